/*
 * sse.h - incremental parser for server-sent events (text/event-stream).
 *
 * Bytes arrive in arbitrary pieces (libcurl write callbacks); the parser
 * keeps its state between calls, so an event may be split anywhere, even
 * inside a CRLF. Lines end with LF, CRLF or CR; "event:" names the event,
 * "data:" lines are joined with LF, ':' lines are comments, a blank line
 * dispatches. A single space after the colon is dropped, as the spec says.
 *
 * Ownership: the parser owns its buffers (fs_sse_free releases them). The
 * event and data strings passed to the callback are valid only during the
 * call.
 */
#ifndef FS_SSE_H
#define FS_SSE_H

#include <stddef.h>

#include "base/buf.h"

/* Return 0 to continue, non-zero to stop parsing (fs_sse_feed then fails). */
typedef int (*fs_sse_cb)(const char *event, const char *data, size_t datalen, void *user);

typedef struct fs_sse {
	fs_sse_cb cb;
	void *user;
	fs_buf line;
	fs_buf event;
	fs_buf data;
	int has_data;
	int last_cr;   /* previous byte was CR: a following LF is part of it */
	int stopped;
	size_t max_line; /* longer lines fail the stream rather than eat memory */
} fs_sse;

void fs_sse_init(fs_sse *p, fs_sse_cb cb, void *user);
/* Returns 0, or -1 (callback stopped, line too long, out of memory). */
int fs_sse_feed(fs_sse *p, const char *buf, size_t n, char *err, size_t errlen);
/* End of stream: an event without its final blank line is still delivered. */
int fs_sse_finish(fs_sse *p, char *err, size_t errlen);
void fs_sse_free(fs_sse *p);

#endif
