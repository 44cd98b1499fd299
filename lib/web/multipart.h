/*
 * multipart.h - streaming multipart/form-data parser (RFC 7578, RFC 2046).
 *
 * Feed the request body in chunks of any size; the parser reports each part
 * through callbacks and never holds more than one part's header block
 * (FS_MULTIPART_MAX_HEADER bytes) plus a small staging buffer, so a
 * multi-gigabyte file part streams through part_data in pieces. Delimiters
 * may be split anywhere between feeds. CRLF line ends are standard; bare LF
 * is tolerated. Preamble and epilogue are ignored.
 *
 * Callbacks: part_begin gets the field name, the filename (NULL for a plain
 * field, "" when a file input was left empty; path components are passed
 * through: the caller sanitises) and the part's Content-Type (NULL when
 * absent); the strings are valid only during the call. part_data gets the
 * part's bytes in one or more pieces (none for an empty part). part_end
 * closes the part. Any callback returning non-zero aborts parsing: feed
 * returns -1 and fs_multipart_callback_rc returns that value. After an
 * error the open part gets no part_end: the caller discards what it has.
 *
 * Ownership: fs_multipart_new returns a parser the caller releases with
 * fs_multipart_free (tolerates NULL). The callback table is copied; ud is
 * the caller's.
 */
#ifndef FS_MULTIPART_H
#define FS_MULTIPART_H

#include <stddef.h>

#define FS_MULTIPART_MAX_HEADER 8192	/* bytes of headers per part */
#define FS_MULTIPART_MAX_PARTS 64
#define FS_MULTIPART_MAX_BOUNDARY 70	/* RFC 2046 */

typedef struct fs_multipart_cb {
	int (*part_begin)(void *ud, const char *name, const char *filename,
			  const char *content_type);
	int (*part_data)(void *ud, const char *data, size_t len);
	int (*part_end)(void *ud);
} fs_multipart_cb;

typedef struct fs_multipart fs_multipart;

/* Takes the request's Content-Type header ("multipart/form-data;
 * boundary=..." with the boundary quoted or not). NULL + message when the
 * type is not multipart/form-data or the boundary is missing or invalid. */
fs_multipart *fs_multipart_new(const char *content_type_header,
			       const fs_multipart_cb *cb, void *ud,
			       char *err, size_t errlen);

/* 0, or -1 on malformed input, a limit exceeded or a callback refusal
 * (the parser then stays failed). */
int fs_multipart_feed(fs_multipart *m, const char *data, size_t len);

/* Call after the last byte: 0 if the closing delimiter was seen, else -1
 * (truncated body). */
int fs_multipart_finish(fs_multipart *m);

/* The message of the last error ("" if none). */
const char *fs_multipart_error(const fs_multipart *m);

/* The non-zero value a callback returned to abort parsing, else 0. */
int fs_multipart_callback_rc(const fs_multipart *m);

void fs_multipart_free(fs_multipart *m);

#endif
