/* buf.c - growable NUL-terminated byte buffer (see buf.h). */
#include "base/buf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fs_buf_reserve(fs_buf *b, size_t extra)
{
	if (extra > SIZE_MAX - b->len - 1)
		return -1;
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	size_t ncap = b->cap ? b->cap : 256;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2) {
			ncap = need;
			break;
		}
		ncap *= 2;
	}
	char *p = realloc(b->data, ncap);
	if (!p)
		return -1;
	b->data = p;
	b->cap = ncap;
	return 0;
}

int fs_buf_append(fs_buf *b, const void *p, size_t n)
{
	if (fs_buf_reserve(b, n))
		return -1;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = 0;
	return 0;
}

int fs_buf_puts(fs_buf *b, const char *s)
{
	return fs_buf_append(b, s, strlen(s));
}

int fs_buf_putc_slow(fs_buf *b, char c)
{
	return fs_buf_append(b, &c, 1);
}

int fs_buf_vprintf(fs_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0 || fs_buf_reserve(b, (size_t)n))
		return -1;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int fs_buf_printf(fs_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = fs_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

void fs_buf_reset(fs_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = 0;
}

void fs_buf_free(fs_buf *b)
{
	if (!b)
		return;
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

char *fs_buf_steal(fs_buf *b)
{
	char *p = b->data;
	if (!p)
		p = calloc(1, 1);
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}
