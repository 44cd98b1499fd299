/* Unit tests for the configuration file parser and environment overrides. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"

static char *write_tmp(const char *text)
{
	static char path[64];
	snprintf(path, sizeof path, "/tmp/fs-conf-test-%d.conf", (int)getpid());
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void defaults_are_sane(void **state)
{
	(void)state;
	fs_config c;
	fs_config_defaults(&c);
	assert_string_equal(c.base_path, "/");
	assert_int_equal(c.fcgi_workers, 4);
	assert_string_equal(c.anthropic_key_env, "ANTHROPIC_API_KEY");
	assert_true(c.max_pixels > 0);
}

static void file_values_are_read_with_comments_and_spaces(void **state)
{
	(void)state;
	fs_config c;
	char err[256];
	fs_config_defaults(&c);
	const char *p = write_tmp("# comment\n\n  port =  9000  \nbase_path = fishscale\nsso_create_users = yes\n"
				  "agent_max_cost_usd = 0.5\ntrusted_proxies = 10.0.0.1, 10.0.0.2\n");
	assert_int_equal(fs_config_load(&c, p, 0, err, sizeof err), 0);
	assert_int_equal(c.port, 9000);
	assert_string_equal(c.base_path, "/fishscale/");
	assert_int_equal(c.sso_create_users, 1);
	assert_true(c.agent_max_cost_usd == 0.5);
	assert_int_equal(fs_config_is_trusted_proxy(&c, "10.0.0.2"), 1);
	assert_int_equal(fs_config_is_trusted_proxy(&c, "10.0.0.20"), 0);
	assert_int_equal(fs_config_is_trusted_proxy(&c, "10.0.0."), 0);
	unlink(p);
}

static void unknown_key_names_file_and_line(void **state)
{
	(void)state;
	fs_config c;
	char err[256];
	fs_config_defaults(&c);
	const char *p = write_tmp("port = 9000\nbogus = 1\n");
	assert_int_equal(fs_config_load(&c, p, 0, err, sizeof err), -1);
	assert_non_null(strstr(err, ":2:"));
	assert_non_null(strstr(err, "bogus"));
	unlink(p);
}

static void bad_values_are_refused(void **state)
{
	(void)state;
	fs_config c;
	char err[256];
	fs_config_defaults(&c);
	assert_int_equal(fs_config_set(&c, "port", "0", err, sizeof err), -1);
	assert_int_equal(fs_config_set(&c, "port", "80x", err, sizeof err), -1);
	assert_int_equal(fs_config_set(&c, "port", "", err, sizeof err), -1);
	assert_int_equal(fs_config_set(&c, "sso_create_users", "maybe", err, sizeof err), -1);
	assert_int_equal(fs_config_set(&c, "agent_max_cost_usd", "nan", err, sizeof err), -1);
	assert_int_equal(fs_config_set(&c, "base_path", "/a/../b", err, sizeof err), -1);
	assert_int_equal(fs_config_set(&c, "base_path", "/a b/", err, sizeof err), -1);
	assert_int_equal(fs_config_set(&c, "base_path", "/x\"y/", err, sizeof err), -1);
	assert_int_equal(c.port, 8090);
	assert_int_equal(fs_config_set(&c, "base_path", "/", err, sizeof err), 0);
	assert_string_equal(c.base_path, "/");
	assert_int_equal(fs_config_load(&c, "/nonexistent/fishscale.conf", 0, err, sizeof err), -1);
	assert_int_equal(fs_config_load(&c, "/nonexistent/fishscale.conf", 1, err, sizeof err), 0);
}

static void environment_overrides_file(void **state)
{
	(void)state;
	fs_config c;
	char err[256];
	fs_config_defaults(&c);
	const char *p = write_tmp("port = 9000\n");
	setenv("FISHSCALE_PORT", "9100", 1);
	setenv("FISH_SCALE_AGENT_TABS", "editing", 1);
	assert_int_equal(fs_config_load(&c, p, 0, err, sizeof err), 0);
	assert_int_equal(c.port, 9100);
	assert_int_equal(fs_config_agent_tabs(&c), 2);
	setenv("FISHSCALE_PORT", "nope", 1);
	assert_int_equal(fs_config_load(&c, p, 0, err, sizeof err), -1);
	assert_non_null(strstr(err, "FISHSCALE_PORT"));
	unsetenv("FISHSCALE_PORT");
	unsetenv("FISH_SCALE_AGENT_TABS");
	unlink(p);
}

static void agent_tabs_values(void **state)
{
	(void)state;
	fs_config c;
	fs_config_defaults(&c);
	const char *v[] = {"", "1", "true", "yes", "extraction", "editing", "extraction,editing", "no"};
	int want[] = {0, 3, 3, 3, 1, 2, 3, 0};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		snprintf(c.agent_tabs, sizeof c.agent_tabs, "%s", v[i]);
		assert_int_equal(fs_config_agent_tabs(&c), want[i]);
	}
}

/* measurement_rule: outline, dome or empty (the build's default); any
 * other name fails at start-up, from the file or the environment. */
static void measurement_rule_values(void **state)
{
	(void)state;
	fs_config c;
	char err[256];
	fs_config_defaults(&c);
	assert_string_equal(c.measurement_rule, "");
	assert_int_equal(fs_config_set(&c, "measurement_rule", "dome", err, sizeof err), 0);
	assert_string_equal(c.measurement_rule, "dome");
	assert_int_equal(fs_config_set(&c, "measurement_rule", "outline", err, sizeof err), 0);
	assert_string_equal(c.measurement_rule, "outline");
	assert_int_equal(fs_config_set(&c, "measurement_rule", "", err, sizeof err), 0);
	assert_int_equal(fs_config_set(&c, "measurement_rule", "domes", err, sizeof err), -1);
	assert_non_null(strstr(err, "outline or dome"));
	const char *p = write_tmp("measurement_rule = halfmax\n");
	assert_int_equal(fs_config_load(&c, p, 0, err, sizeof err), -1);
	assert_non_null(strstr(err, ":1:"));
	p = write_tmp("measurement_rule = outline\n");
	setenv("FISHSCALE_MEASUREMENT_RULE", "dome", 1);
	assert_int_equal(fs_config_load(&c, p, 0, err, sizeof err), 0);
	assert_string_equal(c.measurement_rule, "dome");
	unsetenv("FISHSCALE_MEASUREMENT_RULE");
	unlink(p);
}

static void every_key_round_trips_through_get(void **state)
{
	(void)state;
	fs_config c;
	fs_config_defaults(&c);
	size_t n;
	const fs_config_key *k = fs_config_keys(&n);
	assert_true(n >= 25);
	for (size_t i = 0; i < n; i++) {
		char val[1024], err[256];
		assert_int_equal(fs_config_get(&c, k[i].name, val, sizeof val), 0);
		assert_int_equal(fs_config_set(&c, k[i].name, val, err, sizeof err), 0);
		assert_non_null(k[i].help);
	}
	char val[8];
	assert_int_equal(fs_config_get(&c, "nope", val, sizeof val), -1);
}

static void provider_key_env_and_base_url(void **state)
{
	(void)state;
	fs_config c;
	char err[256];
	fs_config_defaults(&c);
	assert_string_equal(fs_config_provider_key_env(&c, "anthropic"), "ANTHROPIC_API_KEY");
	assert_string_equal(fs_config_provider_key_env(&c, "claude"), "ANTHROPIC_API_KEY");
	assert_string_equal(fs_config_provider_key_env(&c, "gemini"), "GEMINI_API_KEY");
	assert_null(fs_config_provider_key_env(&c, "ollama")); /* needs no key */
	assert_null(fs_config_provider_key_env(&c, "nonsense"));
	assert_int_equal(fs_config_set(&c, "openrouter_base_url", "http://127.0.0.1:9", err, sizeof err), 0);
	assert_string_equal(fs_config_provider_base_url(&c, "openrouter"), "http://127.0.0.1:9");
	assert_string_equal(fs_config_provider_base_url(&c, "ollama"), "http://127.0.0.1:11434");
	assert_int_equal(fs_config_set(&c, "openai_key_env", "", err, sizeof err), 0);
	assert_null(fs_config_provider_key_env(&c, "openai")); /* empty = none */
	assert_null(fs_config_provider_base_url(NULL, "openai"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_are_sane),
		cmocka_unit_test(file_values_are_read_with_comments_and_spaces),
		cmocka_unit_test(unknown_key_names_file_and_line),
		cmocka_unit_test(bad_values_are_refused),
		cmocka_unit_test(environment_overrides_file),
		cmocka_unit_test(agent_tabs_values),
		cmocka_unit_test(measurement_rule_values),
		cmocka_unit_test(every_key_round_trips_through_get),
		cmocka_unit_test(provider_key_env_and_base_url),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
