/* json_write.c - fast JSON output into fs_buf (see json_write.h). */
#include "base/json_write.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int fs_jw_int(fs_buf *b, long long v)
{
	char tmp[24];
	int n = 0;
	unsigned long long u = v < 0 ? (unsigned long long)(-(v + 1)) + 1 : (unsigned long long)v;
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (fs_buf_reserve(b, (size_t)n + 1))
		return -1;
	if (v < 0)
		b->data[b->len++] = '-';
	while (n)
		b->data[b->len++] = tmp[--n];
	b->data[b->len] = 0;
	return 0;
}

int fs_jw_num(fs_buf *b, double v)
{
	if (!isfinite(v))
		return fs_buf_append(b, "null", 4);
	double a = fabs(v);
	if (a < 1e9) {
		/* fixed point with 9 decimals, rounded, trailing zeros trimmed */
		long long scaled = llround(a * 1e9);
		long long ip = scaled / 1000000000LL, fp = scaled % 1000000000LL;
		if (v < 0 && scaled && fs_buf_putc(b, '-'))
			return -1;
		if (fs_jw_int(b, ip))
			return -1;
		if (fp) {
			char frac[10];
			for (int i = 8; i >= 0; i--) {
				frac[i] = (char)('0' + fp % 10);
				fp /= 10;
			}
			int n = 9;
			while (n > 0 && frac[n - 1] == '0')
				n--;
			if (fs_buf_putc(b, '.') || fs_buf_append(b, frac, (size_t)n))
				return -1;
		}
		return 0;
	}
	char tmp[40];
	int n = snprintf(tmp, sizeof tmp, "%.17g", v);
	return fs_buf_append(b, tmp, (size_t)n);
}

int fs_jw_str(fs_buf *b, const char *s)
{
	if (fs_buf_putc(b, '"'))
		return -1;
	const unsigned char *p = (const unsigned char *)s, *run = p;
	for (;; p++) {
		if (*p && *p != '"' && *p != '\\' && *p >= 0x20)
			continue;
		/* copy the plain run in one go, then the escape */
		if (p > run && fs_buf_append(b, run, (size_t)(p - run)))
			return -1;
		if (!*p)
			break;
		char e[8];
		int n;
		if (*p == '"' || *p == '\\') {
			e[0] = '\\';
			e[1] = (char)*p;
			n = 2;
		} else {
			n = snprintf(e, sizeof e, "\\u%04x", *p);
		}
		if (fs_buf_append(b, e, (size_t)n))
			return -1;
		run = p + 1;
	}
	return fs_buf_putc(b, '"');
}

int fs_jw_key(fs_buf *b, const char *name, int first)
{
	size_t n = strlen(name);
	if (fs_buf_reserve(b, n + 4))
		return -1;
	char *p = b->data + b->len;
	if (!first)
		*p++ = ',';
	*p++ = '"';
	memcpy(p, name, n);
	p += n;
	*p++ = '"';
	*p++ = ':';
	*p = 0;
	b->len = (size_t)(p - b->data);
	return 0;
}
