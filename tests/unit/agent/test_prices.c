/* Unit tests for the price table and cost arithmetic. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "agent/prices.h"

static void shipped_table_loads_with_known_prices(void **state)
{
	(void)state;
	fs_prices t = {0};
	char err[256] = "";
	assert_int_equal(fs_prices_load(&t, "conf/prices.conf", err, sizeof(err)), 0);
	const fs_price *p = fs_prices_find(&t, "anthropic", "claude-sonnet-4-20250514");
	assert_non_null(p);
	assert_true(p->in_per_mtok == 3.0 && p->out_per_mtok == 15.0);
	p = fs_prices_find(&t, "openrouter", "google/gemini-flash-1.5");
	assert_non_null(p);
	assert_true(p->in_per_mtok == 0.075);
	assert_non_null(fs_prices_find(&t, "gemini", "gemini-2.0-flash"));
	assert_null(fs_prices_find(&t, "anthropic", "claude-haiku-3-5-20241022"));
	fs_prices_free(&t);
}

static void cost_is_tokens_times_price_per_million(void **state)
{
	(void)state;
	fs_prices t = {0};
	char err[256];
	assert_int_equal(fs_prices_parse(&t, "anthropic m 3 15\n", err, sizeof(err)), 0);
	int est = -1;
	double c = fs_prices_cost(&t, "anthropic", "m", 12345, 567, &est);
	assert_true(fabs(c - (12345 * 3.0 + 567 * 15.0) / 1e6) < 1e-12);
	assert_int_equal(est, 0);
	fs_prices_free(&t);
}

static void unknown_model_uses_fallback_and_is_estimated(void **state)
{
	(void)state;
	fs_prices t = {0};
	char err[256];
	assert_int_equal(fs_prices_parse(&t, "anthropic m 1 1\n", err, sizeof(err)), 0);
	int est = 0;
	double c = fs_prices_cost(&t, "anthropic", "other", 1000000, 1000000, &est);
	assert_true(fabs(c - 18.0) < 1e-9);
	assert_int_equal(est, 1);
	fs_prices_free(&t);
}

static void self_hosted_providers_cost_nothing(void **state)
{
	(void)state;
	int est = 1;
	assert_true(fs_prices_cost(NULL, "ollama", "anything", 1000000, 1000000, &est) == 0.0);
	assert_int_equal(est, 0);
	assert_true(fs_prices_cost(NULL, "local", "policy", 5, 5, NULL) == 0.0);
}

static void comments_blank_lines_and_flags_parse(void **state)
{
	(void)state;
	fs_prices t = {0};
	char err[256];
	const char *txt = "# header\n\nx a 1 2 default # trailing\r\nx b 0.5 0.5 novision\n";
	assert_int_equal(fs_prices_parse(&t, txt, err, sizeof(err)), 0);
	assert_int_equal(t.n, 2);
	assert_int_equal(t.items[0].is_default, 1);
	assert_int_equal(t.items[1].vision, 0);
	fs_prices_free(&t);
}

static void malformed_line_is_rejected_with_line_number(void **state)
{
	(void)state;
	fs_prices t = {0};
	char err[256] = "";
	assert_int_equal(fs_prices_parse(&t, "\n\nx a 1\n", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 3"));
	assert_int_equal(fs_prices_parse(&t, "x a 1 -2\n", err, sizeof(err)), -1);
	assert_int_equal(fs_prices_parse(&t, "x a 1 2 cheap\n", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown flag"));
	assert_int_equal(t.n, 0);
}

static void missing_file_is_an_error(void **state)
{
	(void)state;
	fs_prices t = {0};
	char err[256] = "";
	assert_int_equal(fs_prices_load(&t, "conf/does-not-exist.conf", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot open"));
}

static int only_ollama(const char *provider, void *user)
{
	(void)user;
	return !strcmp(provider, "ollama");
}

static void providers_json_lists_vision_models_and_configuration(void **state)
{
	(void)state;
	fs_prices t = {0};
	char err[256];
	assert_int_equal(fs_prices_load(&t, "conf/prices.conf", err, sizeof(err)), 0);
	cJSON *j = fs_prices_providers_json(&t, only_ollama, NULL);
	assert_non_null(j);
	char *s = cJSON_PrintUnformatted(j);
	assert_null(strstr(s, "deepseek"));
	assert_non_null(strstr(s, "{\"name\":\"ollama\",\"configured\":true,"
				  "\"default_model\":\"llama3.2-vision\""));
	assert_non_null(strstr(s, "{\"name\":\"anthropic\",\"configured\":false,"
				  "\"default_model\":\"claude-sonnet-4-20250514\""));
	cJSON_free(s);
	cJSON_Delete(j);
	fs_prices_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shipped_table_loads_with_known_prices),
		cmocka_unit_test(cost_is_tokens_times_price_per_million),
		cmocka_unit_test(unknown_model_uses_fallback_and_is_estimated),
		cmocka_unit_test(self_hosted_providers_cost_nothing),
		cmocka_unit_test(comments_blank_lines_and_flags_parse),
		cmocka_unit_test(malformed_line_is_rejected_with_line_number),
		cmocka_unit_test(missing_file_is_an_error),
		cmocka_unit_test(providers_json_lists_vision_models_and_configuration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
