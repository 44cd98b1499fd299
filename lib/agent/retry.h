/*
 * retry.h - when and how long to wait before retrying an outbound HTTP call.
 *
 * Pure functions (no I/O, no clock, no global random state) so that every
 * decision is unit-tested: the classifier says whether an HTTP status or a
 * libcurl result is worth another attempt, the delay function gives the
 * exponential backoff with jitter (the caller passes the random number), and
 * Retry-After in seconds is parsed.
 *
 * Ownership: nothing is allocated or kept; the policy and the header value
 * are only read.
 */
#ifndef FS_RETRY_H
#define FS_RETRY_H

typedef struct fs_retry_policy {
	int max_attempts; /* total attempts including the first; 1 = never retry */
	long base_ms;     /* first backoff; doubles each attempt */
	long max_ms;      /* cap for one computed backoff (Retry-After may exceed it) */
	long budget_ms;   /* total time all attempts and waits may take */
} fs_retry_policy;

/* Defaults for real providers: 5 attempts, 1 s doubling to 30 s, 5 min budget. */
void fs_retry_policy_default(fs_retry_policy *p);

/*
 * 1 if the call should be retried: HTTP 408, 429, 5xx (incl. 529 overloaded)
 * or a transient libcurl failure (connect, timeout, send/receive, empty
 * reply, TLS handshake, HTTP/2 stream). curl_code is a CURLcode; when it is
 * not 0 the status is ignored. 0 for everything else (400, 401, 403, 404, ...).
 */
int fs_retry_is_retryable(long http_status, int curl_code);

/* Retry-After as milliseconds: "<seconds>" (integer or decimal); -1 if absent or unparsable. */
long fs_retry_after_ms(const char *value);

/*
 * Wait before attempt number `attempt` (1 = first retry): the larger of
 * Retry-After (if >= 0) and a jittered exponential backoff
 * base*2^(attempt-1) capped at max_ms, where jitter keeps between half and
 * all of it (rnd is any random 32-bit value). Returns -1 if the wait would
 * overrun the budget given the time already spent (elapsed_ms), or if the
 * attempts are used up: the caller then gives up.
 */
long fs_retry_delay_ms(const fs_retry_policy *p, int attempt, long retry_after_ms, long elapsed_ms,
		       unsigned rnd);

#endif
