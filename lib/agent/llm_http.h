/*
 * llm_http.h - one JSON POST to an LLM provider over libcurl, with connect,
 * total and stall timeouts, retries (retry.h) with exponential backoff,
 * jitter and Retry-After under a total budget, a cancel hook checked during
 * transfers and backoff sleeps, and optional streaming to a sink.
 *
 * Every request carries an empty "Expect:" header: libcurl would otherwise
 * send "Expect: 100-continue" with bodies over 1 MB (screenshots) and wait
 * up to a second for a server that does not answer it.
 *
 * Request headers (which carry API keys) are never logged or copied into
 * error messages. Errors name the HTTP status and the provider's own
 * message ({"error":{"message"}}), or the libcurl error.
 *
 * Ownership: the caller owns every argument; fs_http_result owns its body
 * buffer, released by fs_http_result_free (tolerates NULL).
 */
#ifndef FS_LLM_HTTP_H
#define FS_LLM_HTTP_H

#include <stddef.h>

#include "base/buf.h"
#include "base/clock.h"
#include "agent/retry.h"

/* Return non-zero to cancel the run (checked at least every ~50 ms). */
typedef int (*fs_cancel_fn)(void *user);

typedef struct fs_http_opts {
	long connect_timeout_ms; /* default 10 s */
	long total_timeout_ms;   /* per attempt; default 300 s */
	long stall_seconds;      /* abort when below stall_min_bps for this long; default 120.
				    libcurl averages speed over ~5 s and counts the upload, so
				    this also bounds the wait for a non-streamed reply's first
				    byte to about stall_seconds + 5 s */
	long stall_min_bps;      /* default 1 byte/s */
	fs_retry_policy retry;
	fs_cancel_fn cancel;
	void *cancel_user;
	/* told before each retry's wait (the run's log and transcript record it) */
	void (*on_retry)(void *user, int attempt, long delay_ms, long http_status, const char *why);
	void *retry_user;
	/* the clock the retries' waits and budget are counted on and slept
	 * with (base/clock.h); NULL: the real one. Tests pass a fake. The
	 * timeouts above are libcurl's and always real time. */
	const fs_clock *clock;
} fs_http_opts;

/* Fills in the defaults above and fs_retry_policy_default. */
void fs_http_opts_default(fs_http_opts *o);

typedef struct fs_http_sink {
	void (*begin)(void *user);                         /* before each attempt's 2xx body */
	int (*data)(const char *p, size_t n, void *user);  /* non-zero aborts the transfer */
	const char *(*error)(void *user);                  /* why data() aborted */
	void *user;
} fs_http_sink;

typedef struct fs_http_result {
	long status;            /* last HTTP status, 0 if none */
	fs_buf body;            /* the body when not streamed, or an error body */
	int attempts;
	long elapsed_ms;
	const char *error_kind; /* NULL on success; "auth", "rate_limit", "provider_http",
				   "network", "cancelled", "stream", "internal" */
} fs_http_result;

void fs_http_result_free(fs_http_result *r);

/*
 * POST body to url with the given headers (NULL-terminated "Name: value"
 * strings). With a sink, a 2xx body goes to the sink instead of r->body.
 * Returns 0 on a 2xx answer, -1 otherwise (r->error_kind and err say why).
 */
int fs_http_post(const fs_http_opts *o, const char *url, const char *const *headers,
		 const char *body, size_t len, const fs_http_sink *sink, fs_http_result *r,
		 char *err, size_t errlen);

#endif
