/*
 * sink.h - where a large text answer goes while it is written: a buffer of
 * pending bytes handed on in chunks to a write function (a download written
 * to the client as it is produced, issue 15), or, with no write function,
 * kept whole in the buffer (the CLI's files, the unit tests). The writers
 * (CSV, annotation JSON, the set's JSON) append to sink->buf and call
 * fs_sink_tick after each row, so the same code serves both and the bytes
 * are the same.
 *
 * Ownership: the sink borrows buf and ctx from its maker; fs_sink_end hands
 * on what is pending and leaves buf empty when there is a write function.
 */
#ifndef FS_SINK_H
#define FS_SINK_H

#include <stddef.h>

#include "base/buf.h"

/* Writes n bytes; returns 0, or -1 (the reader is gone, out of memory). */
typedef int (*fs_sink_write_fn)(void *ctx, const char *p, size_t n);

typedef struct fs_sink {
	fs_buf *buf;            /* pending bytes (borrowed) */
	size_t chunk;           /* hand on once buf holds this many */
	fs_sink_write_fn write; /* NULL: everything stays in buf */
	void *ctx;
	int failed;             /* a write failed: the rest is dropped */
} fs_sink;

#define FS_SINK_CHUNK (64u * 1024)

/* A sink that keeps everything in b. */
fs_sink fs_sink_buffer(fs_buf *b);
/* A sink that hands b's bytes to write(ctx, ...) in chunks of FS_SINK_CHUNK. */
fs_sink fs_sink_stream(fs_buf *b, fs_sink_write_fn write, void *ctx);

/* Hands the pending bytes on (any amount). Returns 0 or -1 (failed). */
int fs_sink_flush(fs_sink *s);
/* After a row: hands the pending bytes on once a chunk is full; -1 once a
 * write has failed, so a writer stops producing for a reader that left. */
static inline int fs_sink_tick(fs_sink *s)
{
	if (s->failed)
		return -1;
	if (s->write && s->buf->len >= s->chunk)
		return fs_sink_flush(s);
	return 0;
}
/* Appends n bytes and ticks. */
int fs_sink_put(fs_sink *s, const char *p, size_t n);
int fs_sink_puts(fs_sink *s, const char *str);
/* The end of the text: hands on the rest. Returns 0 or -1. */
int fs_sink_end(fs_sink *s);

#endif
