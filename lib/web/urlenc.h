/*
 * urlenc.h - decoding of query strings, application/x-www-form-urlencoded
 * bodies and Cookie headers into key/value lists.
 *
 * Ownership: an fs_kvlist owns every key and value string (malloc'd);
 * fs_kvlist_free releases them and leaves an empty list (tolerates NULL).
 * Keys are NUL-terminated and never contain NUL. Values are NUL-terminated
 * too, but a form value may carry %00, so value_len is the true length.
 * Pointers returned by fs_kv_get stay valid until the list is freed.
 */
#ifndef FS_URLENC_H
#define FS_URLENC_H

#include <stddef.h>

#include "base/buf.h"

/* More pairs than this in one query/body/cookie header is refused. */
#define FS_KV_MAX_PAIRS 1024

typedef struct fs_kv {
	char *key;
	char *value;
	size_t value_len;
} fs_kv;

typedef struct fs_kvlist {
	fs_kv *items;
	size_t n, cap;
} fs_kvlist;

/*
 * Parses "a=1&b=x+y&c=%2F" ('+' is a space, %XX a byte). Pairs without '='
 * get an empty value; empty segments ("a=1&&b=2") are skipped. *out is
 * initialised here (its previous content is NOT freed). Returns 0, or -1 on
 * a malformed escape, a NUL byte in the input or a key, too many pairs or
 * out of memory; *out is then empty.
 */
int fs_urlenc_parse(const char *s, size_t len, fs_kvlist *out);

/*
 * Parses a Cookie header "a=b; c=d". Spaces around names and values are
 * ignored, a value in double quotes loses its quotes, items without '=' or
 * with an empty name are skipped (browsers send odd things). Values are not
 * percent-decoded (RFC 6265). *out is initialised here. Returns 0, or -1 on
 * NULL header, too many pairs or out of memory (*out then empty).
 */
int fs_cookie_parse(const char *header, fs_kvlist *out);

/* The value of the first pair named key, or NULL. */
const char *fs_kv_get(const fs_kvlist *l, const char *key);

/* Same, with the value length (for values that may hold %00). NULL if absent. */
const fs_kv *fs_kv_find(const fs_kvlist *l, const char *key);

/* Appends a copy of the pair; 0, or -1 on OOM / NUL in key / list full. */
int fs_kvlist_add(fs_kvlist *l, const char *key, size_t key_len,
		  const char *value, size_t value_len);

void fs_kvlist_free(fs_kvlist *l);

/*
 * Appends the percent-decoding of s[0..len) to out. With plus_is_space,
 * '+' becomes ' ' (forms and query strings; not paths). Returns 0, or -1 on
 * a '%' not followed by two hex digits or out of memory (out may then hold
 * a partial result).
 */
int fs_url_decode(const char *s, size_t len, int plus_is_space, fs_buf *out);

#endif
