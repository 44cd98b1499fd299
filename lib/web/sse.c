/* sse.c - incremental server-sent events parser (see sse.h). */
#include "web/sse.h"

#include <stdio.h>
#include <string.h>

#define FS_SSE_MAX_LINE (32u << 20)

void fs_sse_init(fs_sse *p, fs_sse_cb cb, void *user)
{
	memset(p, 0, sizeof(*p));
	p->cb = cb;
	p->user = user;
	p->max_line = FS_SSE_MAX_LINE;
}

void fs_sse_free(fs_sse *p)
{
	if (!p)
		return;
	fs_buf_free(&p->line);
	fs_buf_free(&p->event);
	fs_buf_free(&p->data);
}

static int dispatch(fs_sse *p, char *err, size_t errlen)
{
	int rc = 0;
	if (p->has_data) {
		/* the spec drops the data's last LF */
		const char *ev = p->event.len ? p->event.data : "message";
		if (p->cb(ev, p->data.data ? p->data.data : "", p->data.len, p->user)) {
			snprintf(err, errlen, "event stream stopped by its consumer");
			p->stopped = 1;
			rc = -1;
		}
	}
	fs_buf_reset(&p->event);
	fs_buf_reset(&p->data);
	p->has_data = 0;
	return rc;
}

static int process_line(fs_sse *p, char *err, size_t errlen)
{
	char *l = p->line.data ? p->line.data : "";
	size_t n = p->line.len;

	if (n == 0)
		return dispatch(p, err, errlen);
	if (l[0] == ':')
		return 0;
	char *colon = memchr(l, ':', n);
	size_t flen = colon ? (size_t)(colon - l) : n;
	const char *val = colon ? colon + 1 : "";
	size_t vlen = colon ? n - flen - 1 : 0;
	if (vlen && *val == ' ') {
		val++;
		vlen--;
	}
	int rc = 0;
	if (flen == 4 && !memcmp(l, "data", 4)) {
		if (p->has_data)
			rc |= fs_buf_putc(&p->data, '\n');
		rc |= fs_buf_append(&p->data, val, vlen);
		p->has_data = 1;
	} else if (flen == 5 && !memcmp(l, "event", 5)) {
		fs_buf_reset(&p->event);
		rc |= fs_buf_append(&p->event, val, vlen);
	}
	/* id and retry are not needed: a failed stream is retried as a whole */
	if (rc) {
		snprintf(err, errlen, "out of memory in event stream");
		return -1;
	}
	return 0;
}

int fs_sse_feed(fs_sse *p, const char *buf, size_t n, char *err, size_t errlen)
{
	if (p->stopped) {
		snprintf(err, errlen, "event stream already stopped");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		char c = buf[i];
		if (c == '\n' && p->last_cr) {
			p->last_cr = 0;
			continue;
		}
		p->last_cr = (c == '\r');
		if (c == '\r' || c == '\n') {
			if (process_line(p, err, errlen))
				return -1;
			fs_buf_reset(&p->line);
			continue;
		}
		/* copy the run up to the next line end in one go */
		size_t j = i;
		while (j < n && buf[j] != '\r' && buf[j] != '\n')
			j++;
		if (p->line.len + (j - i) > p->max_line) {
			snprintf(err, errlen, "event stream line longer than %zu bytes", p->max_line);
			p->stopped = 1;
			return -1;
		}
		if (fs_buf_append(&p->line, buf + i, j - i))
			goto oom;
		i = j - 1;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory in event stream");
	return -1;
}

int fs_sse_finish(fs_sse *p, char *err, size_t errlen)
{
	if (p->stopped)
		return 0;
	if (p->line.len && process_line(p, err, errlen))
		return -1;
	fs_buf_reset(&p->line);
	return dispatch(p, err, errlen);
}
