/*
 * json_write.h - appending JSON values to an fs_buf quickly, for the large
 * arrays (thousands of tubercles and connections) where building a cJSON
 * tree and printing it costs tens of milliseconds. Numbers up to 1e9 are
 * written with at most 9 decimals (pixel and micrometre values need far
 * less), others with %.17g; non-finite numbers become null.
 */
#ifndef FS_JSON_WRITE_H
#define FS_JSON_WRITE_H

#include "base/buf.h"

int fs_jw_num(fs_buf *b, double v);
int fs_jw_int(fs_buf *b, long long v);
/* A JSON string with the quotes; s is UTF-8 (escaped: " \ and controls). */
int fs_jw_str(fs_buf *b, const char *s);
/* "name": (with the comma before it unless first); name is one of our
 * own literal keys and is not escaped. */
int fs_jw_key(fs_buf *b, const char *name, int first);

#endif
