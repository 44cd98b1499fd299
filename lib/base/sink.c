/*
 * sink.c - a buffer handed on in chunks (see sink.h).
 */
#include "base/sink.h"

#include <string.h>

fs_sink fs_sink_buffer(fs_buf *b)
{
	fs_sink s = {b, 0, NULL, NULL, 0};
	return s;
}

fs_sink fs_sink_stream(fs_buf *b, fs_sink_write_fn write, void *ctx)
{
	fs_sink s = {b, FS_SINK_CHUNK, write, ctx, 0};
	return s;
}

int fs_sink_flush(fs_sink *s)
{
	if (s->failed)
		return -1;
	if (!s->write || !s->buf->len)
		return 0;
	int rc = s->write(s->ctx, s->buf->data, s->buf->len);
	fs_buf_reset(s->buf);
	if (rc) {
		s->failed = 1;
		return -1;
	}
	return 0;
}

int fs_sink_put(fs_sink *s, const char *p, size_t n)
{
	if (s->failed)
		return -1;
	if (fs_buf_append(s->buf, p, n)) {
		s->failed = 1;
		return -1;
	}
	return fs_sink_tick(s);
}

int fs_sink_puts(fs_sink *s, const char *str)
{
	return fs_sink_put(s, str, strlen(str));
}

int fs_sink_end(fs_sink *s)
{
	return fs_sink_flush(s);
}
