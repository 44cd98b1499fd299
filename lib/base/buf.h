/*
 * buf.h - a growable byte buffer, always NUL-terminated (data[len] == 0).
 *
 * Ownership: the buffer owns data; fs_buf_free releases it (tolerates NULL)
 * and leaves an empty buffer. fs_buf_steal hands data to the caller (free()).
 * Append functions return 0, or -1 on out of memory with the buffer unchanged.
 */
#ifndef FS_BUF_H
#define FS_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct fs_buf {
	char *data;
	size_t len;
	size_t cap;
} fs_buf;

#define FS_BUF_INIT {NULL, 0, 0}

int fs_buf_reserve(fs_buf *b, size_t extra);
int fs_buf_append(fs_buf *b, const void *p, size_t n);
int fs_buf_puts(fs_buf *b, const char *s);
int fs_buf_putc_slow(fs_buf *b, char c);
/* One byte; inline because JSON and CSV writers call it per character. */
static inline int fs_buf_putc(fs_buf *b, char c)
{
	if (b->len + 1 < b->cap) {
		b->data[b->len++] = c;
		b->data[b->len] = 0;
		return 0;
	}
	return fs_buf_putc_slow(b, c);
}
int fs_buf_printf(fs_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int fs_buf_vprintf(fs_buf *b, const char *fmt, va_list ap);
void fs_buf_reset(fs_buf *b); /* len = 0, keeps the memory */
void fs_buf_free(fs_buf *b);
char *fs_buf_steal(fs_buf *b); /* returns data (never NULL), buffer becomes empty */

#endif
