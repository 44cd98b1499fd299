/* escape.c - context-specific output escaping (see escape.h). */
#include "web/escape.h"

#include <string.h>
#include <strings.h>

#define REPLACEMENT 0xFFFD

/*
 * Decodes one UTF-8 sequence at s (NUL-terminated). Returns its byte length
 * and the code point in *cp; an invalid, overlong or surrogate sequence
 * consumes one byte and yields -1.
 */
static size_t utf8_next(const unsigned char *s, long *cp)
{
	unsigned char c = s[0];
	size_t n;
	long v, min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2;
		v = c & 0x1F;
		min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		v = c & 0x0F;
		min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		v = c & 0x07;
		min = 0x10000;
	} else {
		*cp = -1;
		return 1;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			*cp = -1;
			return 1;
		}
		v = (v << 6) | (s[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
		*cp = -1;
		return 1;
	}
	*cp = v;
	return n;
}

int fs_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	if (memchr(s, 0, len))
		return 0;
	while (p < end) {
		long cp;
		/* utf8_next stops at the NUL terminator of a truncated sequence,
		 * but s may not be terminated at len: copy the tail first */
		unsigned char tail[5] = {0};
		size_t left = (size_t)(end - p);
		const unsigned char *q = p;
		if (left < 4) {
			memcpy(tail, p, left);
			q = tail;
		}
		size_t n = utf8_next(q, &cp);
		if (cp < 0)
			return 0;
		p += n;
	}
	return 1;
}

static int is_bad_control(long cp)
{
	return (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0x7F;
}

static int esc_markup(fs_buf *b, const char *s, int attr)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s)
		return 0;
	while (*p) {
		long cp;
		size_t n = utf8_next(p, &cp);
		const char *rep = NULL;

		if (cp < 0 || is_bad_control(cp))
			rep = "\xEF\xBF\xBD";
		else if (cp == '&')
			rep = "&amp;";
		else if (cp == '<')
			rep = "&lt;";
		else if (cp == '>')
			rep = "&gt;";
		else if (cp == '"')
			rep = "&quot;";
		else if (cp == '\'')
			rep = "&#39;";
		else if (attr && cp == '`')
			rep = "&#96;";
		else if (attr && cp == '=')
			rep = "&#61;";
		if (rep ? fs_buf_puts(b, rep) : fs_buf_append(b, p, n))
			return -1;
		p += n;
	}
	return 0;
}

int fs_esc_html(fs_buf *b, const char *s)
{
	return esc_markup(b, s, 0);
}

int fs_esc_attr(fs_buf *b, const char *s)
{
	return esc_markup(b, s, 1);
}

static int is_unreserved(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
	       c == '~';
}

static const char hexdig[] = "0123456789ABCDEF";

static int put_pct(fs_buf *b, unsigned char c)
{
	char t[3] = {'%', hexdig[c >> 4], hexdig[c & 15]};
	return fs_buf_append(b, t, 3);
}

int fs_esc_url_component(fs_buf *b, const char *s)
{
	if (!s)
		return 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (is_unreserved(*p) ? fs_buf_putc(b, (char)*p) : put_pct(b, *p))
			return -1;
	}
	return 0;
}

int fs_url_is_safe(const char *s)
{
	/* The WHATWG URL parser strips leading C0/space and removes tab/LF/CR
	 * anywhere, so "\tjava\nscript:" is a javascript: URL; look at the
	 * scheme the way the browser will. */
	char scheme[8];
	size_t n = 0;
	const unsigned char *p = (const unsigned char *)s;

	if (!s)
		return 1;
	while (*p && *p <= 0x20)
		p++;
	for (; *p; p++) {
		if (*p == '\t' || *p == '\n' || *p == '\r')
			continue;
		if (*p == '/' || *p == '?' || *p == '#' || *p == '\\')
			return 1; /* relative: no scheme before the path */
		if (*p == ':')
			break;
		if (n == sizeof(scheme) - 1)
			return 0; /* longer than any scheme we allow */
		scheme[n++] = (char)*p;
	}
	if (!*p)
		return 1; /* no colon at all: a relative path */
	scheme[n] = 0;
	return strcasecmp(scheme, "http") == 0 || strcasecmp(scheme, "https") == 0 ||
	       strcasecmp(scheme, "mailto") == 0;
}

int fs_esc_url_attr(fs_buf *b, const char *s)
{
	fs_buf tmp = FS_BUF_INIT;
	int rc = -1;

	if (!s)
		return 0;
	if (!fs_url_is_safe(s))
		return fs_buf_puts(b, FS_ESC_URL_REFUSED);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		unsigned char c = *p;
		int enc = c <= 0x20 || c >= 0x7F || c == '"' || c == '\'' ||
			  c == '<' || c == '>' || c == '`';
		if (enc ? put_pct(&tmp, c) : fs_buf_putc(&tmp, (char)c))
			goto out;
	}
	rc = tmp.len ? fs_esc_attr(b, tmp.data) : 0;
out:
	fs_buf_free(&tmp);
	return rc;
}

int fs_esc_js_string(fs_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s)
		return 0;
	while (*p) {
		long cp;
		size_t n = utf8_next(p, &cp);
		int rc;

		if (cp < 0)
			cp = REPLACEMENT;
		if (cp == '\\')
			rc = fs_buf_puts(b, "\\\\");
		else if (cp < 0x20 || cp == 0x7F || cp == '"' || cp == '\'' ||
			 cp == '<' || cp == '>' || cp == '&' || cp == '=' ||
			 cp == '`' || cp == '$' || cp == '/' || cp == 0x2028 ||
			 cp == 0x2029 || cp == REPLACEMENT)
			rc = fs_buf_printf(b, "\\u%04lX", cp);
		else
			rc = fs_buf_append(b, p, n);
		if (rc)
			return -1;
		p += n;
	}
	return 0;
}
