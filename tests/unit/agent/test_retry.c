/* Unit tests for the retry classifier, Retry-After parsing and backoff. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <curl/curl.h>
#include <cmocka.h>

#include "agent/retry.h"

static void retryable_statuses_are_retried(void **state)
{
	(void)state;
	long yes[] = {408, 429, 500, 502, 503, 504, 529};
	for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++)
		assert_int_equal(fs_retry_is_retryable(yes[i], CURLE_OK), 1);
}

static void client_errors_are_not_retried(void **state)
{
	(void)state;
	long no[] = {200, 400, 401, 403, 404, 409, 413, 422};
	for (size_t i = 0; i < sizeof(no) / sizeof(*no); i++)
		assert_int_equal(fs_retry_is_retryable(no[i], CURLE_OK), 0);
}

static void transient_curl_errors_are_retried(void **state)
{
	(void)state;
	assert_int_equal(fs_retry_is_retryable(0, CURLE_COULDNT_CONNECT), 1);
	assert_int_equal(fs_retry_is_retryable(0, CURLE_OPERATION_TIMEDOUT), 1);
	assert_int_equal(fs_retry_is_retryable(0, CURLE_RECV_ERROR), 1);
	assert_int_equal(fs_retry_is_retryable(0, CURLE_GOT_NOTHING), 1);
}

static void permanent_curl_errors_are_not_retried(void **state)
{
	(void)state;
	assert_int_equal(fs_retry_is_retryable(0, CURLE_ABORTED_BY_CALLBACK), 0);
	assert_int_equal(fs_retry_is_retryable(0, CURLE_URL_MALFORMAT), 0);
	assert_int_equal(fs_retry_is_retryable(0, CURLE_PEER_FAILED_VERIFICATION), 0);
	/* a curl failure wins over a stale retryable status */
	assert_int_equal(fs_retry_is_retryable(503, CURLE_UNSUPPORTED_PROTOCOL), 0);
}

static void retry_after_seconds_parse(void **state)
{
	(void)state;
	assert_int_equal(fs_retry_after_ms("2"), 2000);
	assert_int_equal(fs_retry_after_ms(" 0.25 "), 250);
	assert_int_equal(fs_retry_after_ms("0"), 0);
}

static void retry_after_invalid_is_absent(void **state)
{
	(void)state;
	assert_int_equal(fs_retry_after_ms(NULL), -1);
	assert_int_equal(fs_retry_after_ms(""), -1);
	assert_int_equal(fs_retry_after_ms("-1"), -1);
	assert_int_equal(fs_retry_after_ms("Wed, 21 Oct 2015 07:28:00 GMT"), -1);
	assert_int_equal(fs_retry_after_ms("5s"), -1);
}

static void backoff_doubles_and_is_capped(void **state)
{
	(void)state;
	fs_retry_policy p = {.max_attempts = 10, .base_ms = 100, .max_ms = 1000, .budget_ms = 100000};
	/* rnd = max jitter gives the full value, rnd = 0 gives half */
	assert_int_equal(fs_retry_delay_ms(&p, 1, -1, 0, 50), 100);
	assert_int_equal(fs_retry_delay_ms(&p, 2, -1, 0, 100), 200);
	assert_int_equal(fs_retry_delay_ms(&p, 3, -1, 0, 200), 400);
	assert_int_equal(fs_retry_delay_ms(&p, 8, -1, 0, 500), 1000);
	assert_int_equal(fs_retry_delay_ms(&p, 3, -1, 0, 0), 200);
}

static void jitter_stays_within_half_and_full(void **state)
{
	(void)state;
	fs_retry_policy p = {.max_attempts = 10, .base_ms = 1000, .max_ms = 30000, .budget_ms = 1000000};
	for (unsigned r = 0; r < 5000; r += 37) {
		long d = fs_retry_delay_ms(&p, 2, -1, 0, r * 2654435761u);
		assert_in_range(d, 1000, 2000);
	}
}

static void retry_after_overrides_shorter_backoff(void **state)
{
	(void)state;
	fs_retry_policy p = {.max_attempts = 3, .base_ms = 10, .max_ms = 100, .budget_ms = 10000};
	assert_int_equal(fs_retry_delay_ms(&p, 1, 3000, 0, 0), 3000);
}

static void gives_up_when_attempts_are_used(void **state)
{
	(void)state;
	fs_retry_policy p = {.max_attempts = 3, .base_ms = 10, .max_ms = 100, .budget_ms = 10000};
	assert_true(fs_retry_delay_ms(&p, 2, -1, 0, 0) > 0);
	assert_int_equal(fs_retry_delay_ms(&p, 3, -1, 0, 0), -1);
}

static void gives_up_when_budget_would_overrun(void **state)
{
	(void)state;
	fs_retry_policy p = {.max_attempts = 10, .base_ms = 100, .max_ms = 100, .budget_ms = 1000};
	assert_int_equal(fs_retry_delay_ms(&p, 1, -1, 950, 100), -1);
	assert_int_equal(fs_retry_delay_ms(&p, 1, 5000, 0, 0), -1);
	assert_int_equal(fs_retry_delay_ms(&p, 1, -1, 800, 50), 100);
}

static void default_policy_is_bounded(void **state)
{
	(void)state;
	fs_retry_policy p;
	fs_retry_policy_default(&p);
	assert_true(p.max_attempts > 1 && p.max_attempts <= 10);
	assert_true(p.budget_ms > 0 && p.max_ms <= p.budget_ms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(retryable_statuses_are_retried),
		cmocka_unit_test(client_errors_are_not_retried),
		cmocka_unit_test(transient_curl_errors_are_retried),
		cmocka_unit_test(permanent_curl_errors_are_not_retried),
		cmocka_unit_test(retry_after_seconds_parse),
		cmocka_unit_test(retry_after_invalid_is_absent),
		cmocka_unit_test(backoff_doubles_and_is_capped),
		cmocka_unit_test(jitter_stays_within_half_and_full),
		cmocka_unit_test(retry_after_overrides_shorter_backoff),
		cmocka_unit_test(gives_up_when_attempts_are_used),
		cmocka_unit_test(gives_up_when_budget_would_overrun),
		cmocka_unit_test(default_policy_is_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
