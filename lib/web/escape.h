/*
 * escape.h - output escaping, one named function per output context.
 *
 * Each function appends the escaped form of the NUL-terminated string s to
 * b and returns 0, or -1 on out of memory (b may then hold a partial
 * result; discard the response). A NULL s appends nothing.
 *
 * Invalid UTF-8 and C0 control characters other than tab, LF and CR come
 * out as U+FFFD in the HTML contexts (and as \uFFFD in JS), so no byte of
 * input can produce markup.
 *
 * Ownership: b is the caller's buffer (base/buf.h); s is only read.
 */
#ifndef FS_ESCAPE_H
#define FS_ESCAPE_H

#include <stddef.h>

#include "base/buf.h"

/* HTML text (element content): & < > " ' become entities. */
int fs_esc_html(fs_buf *b, const char *s);

/* A quoted attribute value: as fs_esc_html plus ` and =. */
int fs_esc_attr(fs_buf *b, const char *s);

/* A URL component (query key/value, path segment): percent-encodes every
 * byte but the RFC 3986 unreserved ones (A-Z a-z 0-9 - . _ ~). */
int fs_esc_url_component(fs_buf *b, const char *s);

/*
 * A whole URL in a quoted href/src/action attribute. Only relative URLs and
 * the schemes http, https and mailto pass; anything else (javascript:,
 * data:, vbscript:, obfuscated with tabs or control characters...) becomes
 * FS_ESC_URL_REFUSED. Spaces, controls, quotes, <, >, ` and non-ASCII bytes
 * are percent-encoded, then the result is attribute-escaped.
 */
#define FS_ESC_URL_REFUSED "about:invalid"
int fs_esc_url_attr(fs_buf *b, const char *s);

/* 1 if fs_esc_url_attr would let the URL through, else 0. */
int fs_url_is_safe(const char *s);

/*
 * The inside of a quoted JavaScript (or JSON) string, in a <script> element
 * or an on* attribute: a backslash is doubled; quotes, control characters,
 * < > & = ` $ / and U+2028/U+2029 become \uXXXX (valid in JS and JSON), so
 * the result contains no HTML-special character and cannot end the string.
 */
int fs_esc_js_string(fs_buf *b, const char *s);

/* 1 if s[0..len) is valid UTF-8 (no overlongs, surrogates) without NUL. */
int fs_utf8_valid(const char *s, size_t len);

#endif
