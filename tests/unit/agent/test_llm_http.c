/*
 * Provider HTTP behaviour against the mock server: documented headers and
 * paths, retries (429 + Retry-After, 5xx give-up, dropped connections), no
 * retry on 401 with the provider's message, timeouts, cancel, malformed
 * bodies, and streamed text deltas for all three wire formats.
 *
 * The retries' waits, budget and cancel are asserted on a fake clock
 * (fs_http_opts.clock): its sleeps only advance its own time, so the
 * waits asked for and slept are exact and no bound depends on how fast a
 * loaded machine runs the mock server (h36a: "< 1500 ms" failed 2 of 3
 * runs under a load of 36). The total timeout is libcurl's, in real time:
 * that test asserts why the call failed, not how long it took.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "agent/llm_provider.h"
#include "mock_provider/mock_client.h"

static mock_server M;
static const char *KEY = "sk-test-SECRET-0123456789";

static int setup(void **state)
{
	(void)state;
	return mock_start(&M);
}

static int teardown(void **state)
{
	(void)state;
	mock_stop(&M);
	return 0;
}

static fs_llm *make(const char *provider, const char *base_suffix, int stream)
{
	char base[128], err[256];
	fs_llm_config c;
	fs_llm_config_default(&c);
	snprintf(base, sizeof(base), "%s%s", M.base, base_suffix ? base_suffix : "");
	c.provider = provider;
	c.base_url = base;
	c.api_key = KEY;
	c.stream = stream;
	c.http.retry.base_ms = 1;
	c.http.retry.max_ms = 5;
	c.http.retry.max_attempts = 4;
	c.http.retry.budget_ms = 10000;
	fs_llm *llm = fs_llm_new(&c, err, sizeof(err));
	if (!llm)
		fail_msg("fs_llm_new: %s", err);
	return llm;
}

static int turn(fs_llm *llm, fs_llm_reply *rep, char *err, size_t errlen)
{
	fs_conv c;
	fs_conv_init(&c);
	fs_conv_set_system(&c, "system prompt");
	fs_msg_add_text(fs_conv_add(&c, FS_ROLE_USER), "hello");
	cJSON *tools = cJSON_Parse("[{\"name\":\"probe\",\"description\":\"d\",\"parameters\":"
				   "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"}}}}]");
	memset(rep, 0, sizeof(*rep));
	int rc = fs_llm_turn(llm, &c, tools, rep, err, errlen);
	cJSON_Delete(tools);
	fs_conv_free(&c);
	return rc;
}

static const char *req_header(cJSON *reqs, int i, const char *name)
{
	cJSON *h = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(reqs, i), "headers");
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(h, name));
}

static const char *req_path(cJSON *reqs, int i)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(reqs, i), "path"));
}

/* Time that moves only when slept (from an arbitrary origin). */
typedef struct fake_clock {
	long now, slept;
} fake_clock;

static long fake_now(void *user)
{
	return ((fake_clock *)user)->now;
}

static void fake_sleep(void *user, long ms)
{
	fake_clock *f = user;
	f->now += ms;
	f->slept += ms;
}

/* The waits the retry loop announced (on_retry), in order. */
typedef struct waits {
	int n;
	long ms[128];
} waits;

static void note_wait(void *user, int attempt, long delay_ms, long status, const char *why)
{
	(void)attempt, (void)status, (void)why;
	waits *w = user;
	if (w->n < (int)(sizeof w->ms / sizeof w->ms[0]))
		w->ms[w->n] = delay_ms;
	w->n++;
}

static long waited(const waits *w)
{
	long s = 0;
	for (int i = 0; i < w->n; i++)
		s += w->ms[i];
	return s;
}

/* fs_llm for anthropic on the mock with retry policy rp (NULL: make's),
 * its waits counted on the fake clock fc and noted into w. */
static fs_llm *make_timed(const fs_retry_policy *rp, const fs_clock *fc, waits *w)
{
	char base[128], err[256];
	fs_llm_config c;
	fs_llm_config_default(&c);
	snprintf(base, sizeof(base), "%s", M.base);
	c.provider = "anthropic";
	c.base_url = base;
	c.api_key = KEY;
	c.http.retry = rp ? *rp : (fs_retry_policy){.max_attempts = 4, .base_ms = 1, .max_ms = 5, .budget_ms = 10000};
	c.http.clock = fc;
	c.http.on_retry = note_wait;
	c.http.retry_user = w;
	fs_llm *llm = fs_llm_new(&c, err, sizeof(err));
	if (!llm)
		fail_msg("fs_llm_new: %s", err);
	return llm;
}

static void anthropic_sends_documented_headers_and_path(void **state)
{
	(void)state;
	char err[512];
	fs_llm_reply rep;
	assert_int_equal(mock_script(&M, "{\"responses\":[{\"text\":\"hi\",\"usage\":{\"input\":11,\"output\":3}}]}"), 0);
	fs_llm *llm = make("anthropic", NULL, 0);
	assert_int_equal(turn(llm, &rep, err, sizeof(err)), 0);
	assert_string_equal(rep.text, "hi");
	assert_int_equal(rep.in_tokens, 11);
	assert_int_equal(rep.out_tokens, 3);
	assert_string_equal(rep.stop_reason, "end_turn");
	cJSON *reqs = mock_requests(&M);
	assert_int_equal(cJSON_GetArraySize(reqs), 1);
	assert_string_equal(req_path(reqs, 0), "/v1/messages");
	assert_string_equal(req_header(reqs, 0, "x-api-key"), KEY);
	assert_string_equal(req_header(reqs, 0, "anthropic-version"), "2023-06-01");
	assert_string_equal(req_header(reqs, 0, "content-type"), "application/json");
	assert_null(req_header(reqs, 0, "authorization"));
	cJSON *body = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(reqs, 0), "body");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(body, "system")), "system prompt");
	assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(body, "max_tokens")), 4096);
	cJSON_Delete(reqs);
	fs_llm_reply_free(&rep);
	fs_llm_free(llm);
}

static void openrouter_sends_bearer_under_configured_base(void **state)
{
	(void)state;
	char err[512];
	fs_llm_reply rep;
	assert_int_equal(mock_script(&M, "{\"responses\":[{\"tool_calls\":[{\"id\":\"c1\",\"name\":\"probe\","
				     "\"arguments\":{\"a\":2}}]}]}"), 0);
	fs_llm *llm = make("openrouter", "/api", 0);
	assert_int_equal(turn(llm, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.ncalls, 1);
	assert_string_equal(rep.calls[0].id, "c1");
	assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(rep.calls[0].args, "a")), 2);
	cJSON *reqs = mock_requests(&M);
	assert_string_equal(req_path(reqs, 0), "/api/v1/chat/completions");
	char bearer[128];
	snprintf(bearer, sizeof(bearer), "Bearer %s", KEY);
	assert_string_equal(req_header(reqs, 0, "authorization"), bearer);
	assert_null(req_header(reqs, 0, "x-api-key"));
	cJSON_Delete(reqs);
	fs_llm_reply_free(&rep);
	fs_llm_free(llm);
}

static void gemini_key_goes_in_header_not_url(void **state)
{
	(void)state;
	char err[512];
	fs_llm_reply rep;
	assert_int_equal(mock_script(&M, "{\"responses\":[{\"text\":\"ok\"}]}"), 0);
	fs_llm *llm = make("gemini", NULL, 0);
	assert_null(strstr(fs_llm_url(llm), KEY));
	assert_int_equal(turn(llm, &rep, err, sizeof(err)), 0);
	cJSON *reqs = mock_requests(&M);
	assert_string_equal(req_path(reqs, 0), "/v1beta/models/gemini-2.0-flash:generateContent");
	assert_string_equal(req_header(reqs, 0, "x-goog-api-key"), KEY);
	cJSON_Delete(reqs);
	fs_llm_reply_free(&rep);
	fs_llm_free(llm);
}

static void rate_limit_with_retry_after_is_retried_after_waiting(void **state)
{
	(void)state;
	char err[512];
	fs_llm_reply rep;
	fake_clock f = {.now = 5000000};
	fs_clock fc = {fake_now, fake_sleep, &f};
	waits w = {0};
	assert_int_equal(mock_script(&M, "{\"responses\":[{\"status\":429,\"headers\":{\"Retry-After\":\"1\"},"
				     "\"message\":\"slow down\"},{\"text\":\"after wait\"}]}"), 0);
	fs_llm *llm = make_timed(NULL, &fc, &w);
	assert_int_equal(turn(llm, &rep, err, sizeof(err)), 0);
	/* the one wait is Retry-After's second (the backoff alone: <= 5 ms),
	 * slept in full before the second attempt */
	assert_int_equal(w.n, 1);
	assert_int_equal(w.ms[0], 1000);
	assert_int_equal(f.slept, 1000);
	assert_int_equal(fs_llm_last_attempts(llm), 2);
	assert_string_equal(rep.text, "after wait");
	fs_llm_reply_free(&rep);
	fs_llm_free(llm);
}

static void server_errors_give_up_after_max_attempts(void **state)
{
	(void)state;
	char err[512] = "";
	fs_llm_reply rep;
	assert_int_equal(mock_script(&M, "{\"responses\":[{\"status\":500},{\"status\":502},{\"status\":503},"
				     "{\"status\":529},{\"text\":\"never reached\"}]}"), 0);
	fs_llm *llm = make("openai", NULL, 0);
	assert_int_equal(turn(llm, &rep, err, sizeof(err)), -1);
	assert_int_equal(fs_llm_last_attempts(llm), 4);
	assert_string_equal(fs_llm_last_error_kind(llm), "provider_http");
	assert_non_null(strstr(err, "HTTP 529"));
	assert_non_null(strstr(err, "gave up after 4 attempts"));
	fs_llm_reply_free(&rep);
	fs_llm_free(llm);
}

static void retries_stop_at_the_time_budget(void **state)
{
	(void)state;
	char err[512] = "", want[64];
	fs_llm_reply rep;
	fake_clock f = {.now = 5000000};
	fs_clock fc = {fake_now, fake_sleep, &f};
	waits w = {0};
	/* more 503s than the budget lets it try (each wait 50-100 ms: at most
	 * 7 fit in 350 ms), and attempts without end */
	assert_int_equal(mock_script(&M, "{\"responses\":[{\"status\":503},{\"status\":503},{\"status\":503},"
				     "{\"status\":503},{\"status\":503},{\"status\":503},{\"status\":503},"
				     "{\"status\":503},{\"status\":503},{\"status\":503},{\"status\":503},"
				     "{\"status\":503}]}"), 0);
	fs_retry_policy rp = {.max_attempts = 100, .base_ms = 100, .max_ms = 100, .budget_ms = 350};
	fs_llm *llm = make_timed(&rp, &fc, &w);
	assert_int_equal(turn(llm, &rep, err, sizeof(err)), -1);
	int attempts = fs_llm_last_attempts(llm);
	assert_int_equal(attempts, w.n + 1);
	for (int i = 0; i < w.n; i++)
		assert_in_range(w.ms[i], 50, 100);
	assert_int_equal(f.slept, waited(&w));
	/* within the budget, and given up only when the next wait (50-100
	 * ms) would overrun it: the attempts take no time on this clock */
	assert_true(waited(&w) <= 350 && waited(&w) > 250);
	assert_in_range(attempts, 4, 8);
	snprintf(want, sizeof want, "gave up after %d attempts", attempts);
	assert_non_null(strstr(err, want));
	assert_string_equal(fs_llm_last_error_kind(llm), "provider_http");
	fs_llm_reply_free(&rep);
	fs_llm_free(llm);
}

static void unauthorized_is_not_retried_and_shows_provider_message(void **state)
{
	(void)state;
	char err[512] = "";
	fs_llm_reply rep;
	assert_int_equal(mock_script(&M, "{\"responses\":[{\"status\":401,\"message\":\"invalid x-api-key\"},"
				     "{\"text\":\"never\"}]}"), 0);
	fs_llm *llm = make("anthropic", NULL, 0);
	assert_int_equal(turn(llm, &rep, err, sizeof(err)), -1);
	assert_int_equal(fs_llm_last_attempts(llm), 1);
	assert_string_equal(fs_llm_last_error_kind(llm), "auth");
	assert_string_equal(err, "HTTP 401: invalid x-api-key");
	assert_null(strstr(err, KEY));
	cJSON *reqs = mock_requests(&M);
	assert_int_equal(cJSON_GetArraySize(reqs), 1);
	cJSON_Delete(reqs);
	fs_llm_reply_free(&rep);
	fs_llm_free(llm);
}

static void bad_request_is_not_retried(void **state)
{
	(void)state;
	char err[512] = "";
	fs_llm_reply rep;
	assert_int_equal(mock_script(&M, "{\"responses\":[{\"status\":400,\"message\":\"tools.0: bad schema\"}]}"), 0);
	fs_llm *llm = make("gemini", NULL, 0);
	assert_int_equal(turn(llm, &rep, err, sizeof(err)), -1);
	assert_int_equal(fs_llm_last_attempts(llm), 1);
	assert_string_equal(err, "HTTP 400: tools.0: bad schema");
	fs_llm_reply_free(&rep);
	fs_llm_free(llm);
}

static void dropped_connection_is_retried(void **state)
{
	(void)state;
	char err[512] = "";
	fs_llm_reply rep;
	assert_int_equal(mock_script(&M, "{\"responses\":[{\"drop\":true},{\"text\":\"second try\"}]}"), 0);
	fs_llm *llm = make("openai", NULL, 0);
	assert_int_equal(turn(llm, &rep, err, sizeof(err)), 0);
	assert_int_equal(fs_llm_last_attempts(llm), 2);
	assert_string_equal(rep.text, "second try");
	fs_llm_reply_free(&rep);
	fs_llm_free(llm);
}

static void malformed_json_body_is_an_error(void **state)
{
	(void)state;
	char err[512] = "";
	fs_llm_reply rep;
	assert_int_equal(mock_script(&M, "{\"responses\":[{\"raw\":\"{not json\"}]}"), 0);
	fs_llm *llm = make("anthropic", NULL, 0);
	assert_int_equal(turn(llm, &rep, err, sizeof(err)), -1);
	assert_string_equal(fs_llm_last_error_kind(llm), "provider_response");
	assert_non_null(strstr(err, "not valid JSON"));
	fs_llm_reply_free(&rep);
	fs_llm_free(llm);
}

static void slow_response_hits_total_timeout(void **state)
{
	(void)state;
	char err[512] = "", base[128];
	fs_llm_reply rep;
	fs_llm_config c;
	assert_int_equal(mock_script(&M, "{\"responses\":[{\"delay_ms\":10000,\"text\":\"late\"}]}"), 0);
	fs_llm_config_default(&c);
	snprintf(base, sizeof(base), "%s", M.base);
	c.provider = "anthropic";
	c.base_url = base;
	c.api_key = KEY;
	c.http.total_timeout_ms = 300;
	c.http.retry.max_attempts = 1;
	fs_llm *llm = fs_llm_new(&c, err, sizeof(err));
	/* without the timeout the late answer (10 s: far beyond any pause
	 * of a loaded machine) would arrive and pass: the failure is
	 * libcurl's timeout, however long the call took */
	assert_int_equal(turn(llm, &rep, err, sizeof(err)), -1);
	assert_string_equal(fs_llm_last_error_kind(llm), "network");
	assert_non_null(strstr(err, "timed out"));
	assert_int_equal(fs_llm_last_attempts(llm), 1);
	fs_llm_reply_free(&rep);
	fs_llm_free(llm);
}

/* cancels once the fake clock reaches *at */
typedef struct cancel_at {
	const fake_clock *f;
	long at;
} cancel_at;

static int cancel_after_deadline(void *user)
{
	const cancel_at *c = user;
	return c->f->now >= c->at;
}

static void cancel_interrupts_backoff_sleep(void **state)
{
	(void)state;
	char err[512] = "";
	fs_llm_reply rep;
	fake_clock f = {.now = 5000000};
	fs_clock fc = {fake_now, fake_sleep, &f};
	waits w = {0};
	assert_int_equal(mock_script(&M, "{\"responses\":[{\"status\":429,\"headers\":{\"Retry-After\":\"5\"}},"
				     "{\"text\":\"never\"}]}"), 0);
	fs_llm *llm = make_timed(NULL, &fc, &w);
	cancel_at ca = {&f, f.now + 300};
	fs_llm_set_cancel(llm, cancel_after_deadline, &ca);
	assert_int_equal(turn(llm, &rep, err, sizeof(err)), -1);
	assert_string_equal(fs_llm_last_error_kind(llm), "cancelled");
	/* the 5 s wait was asked for, and cut off within one slice (20 ms)
	 * of the cancel, before a second attempt */
	assert_int_equal(w.n, 1);
	assert_int_equal(w.ms[0], 5000);
	assert_in_range(f.slept, 300, 319);
	assert_int_equal(fs_llm_last_attempts(llm), 1);
	fs_llm_reply_free(&rep);
	fs_llm_free(llm);
}

static void collect(const char *t, void *user)
{
	fs_buf *b = user;
	fs_buf_puts(b, t);
	fs_buf_putc(b, '|');
}

static void streamed(const char *provider)
{
	char err[512] = "";
	fs_llm_reply rep;
	fs_buf deltas = FS_BUF_INIT;
	assert_int_equal(mock_script(&M, "{\"responses\":[{\"text\":\"hello streaming world\","
				     "\"tool_calls\":[{\"id\":\"t1\",\"name\":\"probe\",\"arguments\":{\"a\":42,"
				     "\"note\":\"x y\"}}],\"usage\":{\"input\":70,\"output\":9}}]}"), 0);
	fs_llm *llm = make(provider, NULL, 1);
	fs_llm_set_text_delta(llm, collect, &deltas);
	if (turn(llm, &rep, err, sizeof(err)))
		fail_msg("%s: %s", provider, err);
	assert_string_equal(rep.text, "hello streaming world");
	assert_int_equal(rep.ncalls, 1);
	assert_string_equal(rep.calls[0].name, "probe");
	assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(rep.calls[0].args, "a")), 42);
	assert_int_equal(rep.in_tokens, 70);
	assert_int_equal(rep.out_tokens, 9);
	/* more than one delta, and together they are the text */
	assert_non_null(strchr(deltas.data, '|'));
	assert_true(strchr(deltas.data, '|') < deltas.data + deltas.len - 1);
	fs_buf out = FS_BUF_INIT;
	for (char *p = deltas.data; *p; p++)
		if (*p != '|')
			fs_buf_putc(&out, *p);
	assert_string_equal(out.data, "hello streaming world");
	fs_buf_free(&out);
	fs_buf_free(&deltas);
	fs_llm_reply_free(&rep);
	fs_llm_free(llm);
}

static void anthropic_stream_delivers_deltas_and_tool_input(void **state)
{
	(void)state;
	streamed("anthropic");
}

static void openai_stream_delivers_deltas_and_tool_arguments(void **state)
{
	(void)state;
	streamed("openai");
}

static void gemini_stream_delivers_deltas_and_function_call(void **state)
{
	(void)state;
	streamed("gemini");
	cJSON *reqs = mock_requests(&M);
	assert_string_equal(req_path(reqs, 0), "/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse");
	cJSON_Delete(reqs);
}

/* issue 16: a body over 1 MB (screenshots) goes without "Expect: 100-continue" */
static void large_body_carries_no_expect_header(void **state)
{
	(void)state;
	char err[512];
	fs_llm_reply rep;
	fs_conv c;
	size_t n = 1500000;
	char *big = malloc(n + 1);
	assert_non_null(big);
	memset(big, 'a', n);
	big[n] = 0;
	assert_int_equal(mock_script(&M, "{\"responses\":[{\"text\":\"ok\",\"usage\":{\"input\":1,\"output\":1}}]}"), 0);
	fs_llm *llm = make("anthropic", NULL, 0);
	fs_conv_init(&c);
	fs_conv_set_system(&c, "system prompt");
	fs_msg_add_text(fs_conv_add(&c, FS_ROLE_USER), big);
	memset(&rep, 0, sizeof(rep));
	assert_int_equal(fs_llm_turn(llm, &c, NULL, &rep, err, sizeof(err)), 0);
	cJSON *reqs = mock_requests(&M);
	assert_int_equal(cJSON_GetArraySize(reqs), 1);
	assert_null(req_header(reqs, 0, "expect"));
	cJSON_Delete(reqs);
	fs_conv_free(&c);
	fs_llm_reply_free(&rep);
	fs_llm_free(llm);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(anthropic_sends_documented_headers_and_path),
		cmocka_unit_test(large_body_carries_no_expect_header),
		cmocka_unit_test(openrouter_sends_bearer_under_configured_base),
		cmocka_unit_test(gemini_key_goes_in_header_not_url),
		cmocka_unit_test(rate_limit_with_retry_after_is_retried_after_waiting),
		cmocka_unit_test(server_errors_give_up_after_max_attempts),
		cmocka_unit_test(retries_stop_at_the_time_budget),
		cmocka_unit_test(unauthorized_is_not_retried_and_shows_provider_message),
		cmocka_unit_test(bad_request_is_not_retried),
		cmocka_unit_test(dropped_connection_is_retried),
		cmocka_unit_test(malformed_json_body_is_an_error),
		cmocka_unit_test(slow_response_hits_total_timeout),
		cmocka_unit_test(cancel_interrupts_backoff_sleep),
		cmocka_unit_test(anthropic_stream_delivers_deltas_and_tool_input),
		cmocka_unit_test(openai_stream_delivers_deltas_and_tool_arguments),
		cmocka_unit_test(gemini_stream_delivers_deltas_and_function_call),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
