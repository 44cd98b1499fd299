/* llm_http.c - provider HTTP POST with timeouts, retries and cancel (see llm_http.h). */
#include "agent/llm_http.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cJSON.h>

#include "agent/llm_wire.h"
#include "base/clock.h"

void fs_http_opts_default(fs_http_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->connect_timeout_ms = 10000;
	o->total_timeout_ms = 300000;
	o->stall_seconds = 120;
	o->stall_min_bps = 1;
	fs_retry_policy_default(&o->retry);
}

void fs_http_result_free(fs_http_result *r)
{
	if (r)
		fs_buf_free(&r->body);
}

typedef struct xfer {
	CURL *curl;
	const fs_http_opts *o;
	const fs_http_sink *sink;
	fs_buf *body;
	long retry_after_ms;
	int sink_started;
	int sink_failed;
	int cancelled;
} xfer;

static size_t on_write(char *p, size_t size, size_t nmemb, void *user)
{
	xfer *x = user;
	size_t n = size * nmemb;
	long status = 0;
	curl_easy_getinfo(x->curl, CURLINFO_RESPONSE_CODE, &status);
	if (x->sink && status >= 200 && status < 300) {
		if (!x->sink_started) {
			if (x->sink->begin)
				x->sink->begin(x->sink->user);
			x->sink_started = 1;
		}
		if (x->sink->data(p, n, x->sink->user)) {
			x->sink_failed = 1;
			return 0;
		}
		return n;
	}
	/* error bodies are small; cap them anyway */
	if (x->body->len < (1u << 20) && fs_buf_append(x->body, p, n))
		return 0;
	return n;
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *user)
{
	xfer *x = user;
	size_t n = size * nmemb;
	static const char name[] = "retry-after:";
	if (n > sizeof(name) - 1 && !strncasecmp(p, name, sizeof(name) - 1)) {
		char v[64];
		size_t vl = n - (sizeof(name) - 1);
		if (vl >= sizeof(v))
			vl = sizeof(v) - 1;
		memcpy(v, p + sizeof(name) - 1, vl);
		v[vl] = 0;
		v[strcspn(v, "\r\n")] = 0;
		x->retry_after_ms = fs_retry_after_ms(v);
	}
	return n;
}

static int on_progress(void *user, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	(void)dt, (void)dn, (void)ut, (void)un;
	xfer *x = user;
	if (x->o->cancel && x->o->cancel(x->o->cancel_user)) {
		x->cancelled = 1;
		return 1;
	}
	return 0;
}

/* Sleeps in short slices so a cancel request is seen within ~20 ms. */
static int sleep_cancellable(const fs_http_opts *o, long ms)
{
	long end = fs_clock_now_ms(o->clock) + ms;
	for (;;) {
		if (o->cancel && o->cancel(o->cancel_user))
			return -1;
		long left = end - fs_clock_now_ms(o->clock);
		if (left <= 0)
			return 0;
		fs_clock_sleep_ms(o->clock, left > 20 ? 20 : left);
	}
}

/*
 * curl_easy_perform only calls the progress callback about once a second
 * while waiting for a slow server; the multi interface polled every 50 ms
 * makes cancel and the run's wall-clock limit take effect promptly.
 */
static CURLcode perform(CURL *curl, xfer *x)
{
	CURLM *multi = curl_multi_init();
	CURLcode res = CURLE_OUT_OF_MEMORY;
	int running = 1;

	if (!multi)
		return res;
	if (curl_multi_add_handle(multi, curl) != CURLM_OK) {
		curl_multi_cleanup(multi);
		return res;
	}
	res = CURLE_OK;
	while (running) {
		if (curl_multi_perform(multi, &running) != CURLM_OK) {
			res = CURLE_RECV_ERROR;
			break;
		}
		if (!running)
			break;
		if (x->o->cancel && x->o->cancel(x->o->cancel_user)) {
			x->cancelled = 1;
			res = CURLE_ABORTED_BY_CALLBACK;
			break;
		}
		curl_multi_poll(multi, NULL, 0, 50, NULL);
	}
	if (!x->cancelled) {
		int left;
		CURLMsg *m;
		while ((m = curl_multi_info_read(multi, &left)))
			if (m->msg == CURLMSG_DONE)
				res = m->data.result;
	}
	curl_multi_remove_handle(multi, curl);
	curl_multi_cleanup(multi);
	return res;
}

static void describe_status(const fs_http_result *r, char *err, size_t errlen)
{
	cJSON *j = r->body.len ? cJSON_ParseWithLength(r->body.data, r->body.len) : NULL;
	const char *m = fs_wire_error_message(j);
	if (m)
		snprintf(err, errlen, "HTTP %ld: %s", r->status, m);
	else
		snprintf(err, errlen, "HTTP %ld: %.300s", r->status, r->body.len ? r->body.data : "(empty body)");
	cJSON_Delete(j);
}

static const char *status_kind(long status)
{
	if (status == 401 || status == 403)
		return "auth";
	if (status == 429)
		return "rate_limit";
	return "provider_http";
}

int fs_http_post(const fs_http_opts *o, const char *url, const char *const *headers,
		 const char *body, size_t len, const fs_http_sink *sink, fs_http_result *r,
		 char *err, size_t errlen)
{
	struct curl_slist *hl = NULL;
	CURL *curl = curl_easy_init();
	long start = fs_clock_now_ms(o->clock);
	unsigned seed = (unsigned)start ^ (unsigned)getpid();
	int rc = -1;
	xfer x = {.curl = curl, .o = o, .sink = sink, .body = &r->body};

	r->status = 0;
	r->attempts = 0;
	r->error_kind = "internal";
	if (!curl) {
		snprintf(err, errlen, "cannot initialise libcurl");
		goto out;
	}
	for (size_t i = 0; headers && headers[i]; i++) {
		struct curl_slist *n = curl_slist_append(hl, headers[i]);
		if (!n) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		hl = n;
	}
	{
		/* no "Expect: 100-continue" wait on large bodies (see llm_http.h) */
		struct curl_slist *n = curl_slist_append(hl, "Expect:");
		if (!n) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		hl = n;
	}
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hl);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, o->total_timeout_ms);
	curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, o->stall_min_bps);
	curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, o->stall_seconds);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &x);
	curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(curl, CURLOPT_HEADERDATA, &x);
	curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &x);
	curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");

	for (int attempt = 1;; attempt++) {
		char cerr[CURL_ERROR_SIZE] = "";
		curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, cerr);
		fs_buf_reset(&r->body);
		x.retry_after_ms = -1;
		x.sink_started = 0;
		r->attempts = attempt;
		if (o->cancel && o->cancel(o->cancel_user)) {
			x.cancelled = 1;
			break;
		}
		CURLcode cc = perform(curl, &x);
		r->status = 0;
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r->status);
		if (x.cancelled)
			break;
		if (x.sink_failed) {
			const char *se = sink->error ? sink->error(sink->user) : NULL;
			snprintf(err, errlen, "stream: %s", se ? se : "consumer failed");
			r->error_kind = "stream";
			goto out;
		}
		if (cc == CURLE_OK && r->status >= 200 && r->status < 300) {
			rc = 0;
			r->error_kind = NULL;
			goto out;
		}
		if (cc != CURLE_OK) {
			snprintf(err, errlen, "network: %s", cerr[0] ? cerr : curl_easy_strerror(cc));
			r->error_kind = "network";
		} else {
			describe_status(r, err, errlen);
			r->error_kind = status_kind(r->status);
		}
		if (!fs_retry_is_retryable(r->status, (int)cc))
			goto out;
		long delay = fs_retry_delay_ms(&o->retry, attempt, x.retry_after_ms,
					       fs_clock_now_ms(o->clock) - start,
					       (unsigned)rand_r(&seed));
		if (delay < 0) {
			size_t l = strlen(err);
			snprintf(err + l, errlen - l, " (gave up after %d attempts)", attempt);
			goto out;
		}
		if (o->on_retry)
			o->on_retry(o->retry_user, attempt, delay, r->status, err);
		if (sleep_cancellable(o, delay)) {
			x.cancelled = 1;
			break;
		}
	}
	snprintf(err, errlen, "cancelled");
	r->error_kind = "cancelled";
out:
	r->elapsed_ms = fs_clock_now_ms(o->clock) - start;
	curl_slist_free_all(hl);
	if (curl)
		curl_easy_cleanup(curl);
	return rc;
}
