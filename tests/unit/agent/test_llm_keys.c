/* Unit tests for API key lookup (environment, 0600 key file) and redaction. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/llm_keys.h"
#include "agent/llm_provider.h"

static char *key_file(const char *content, mode_t mode)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/fs_keys_XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
	return path;
}

static void environment_variable_wins(void **state)
{
	(void)state;
	char key[128], err[256];
	setenv("FS_TEST_ANTHROPIC_KEY", "sk-from-env", 1);
	assert_int_equal(fs_llm_key_resolve("anthropic", "FS_TEST_ANTHROPIC_KEY", NULL, key, sizeof(key),
					    err, sizeof(err)), 0);
	assert_string_equal(key, "sk-from-env");
	unsetenv("FS_TEST_ANTHROPIC_KEY");
}

static void default_variable_names(void **state)
{
	(void)state;
	assert_string_equal(fs_llm_default_key_env("anthropic"), "ANTHROPIC_API_KEY");
	assert_string_equal(fs_llm_default_key_env("openai"), "OPENAI_API_KEY");
	assert_string_equal(fs_llm_default_key_env("openrouter"), "OPENROUTER_API_KEY");
	assert_string_equal(fs_llm_default_key_env("gemini"), "GEMINI_API_KEY");
}

static void private_key_file_is_read(void **state)
{
	(void)state;
	char key[128], err[256];
	char *p = key_file("# keys\nopenai = sk-openai-1\n  gemini=AIza-gem  \n", 0600);
	unsetenv("GEMINI_API_KEY");
	assert_int_equal(fs_llm_key_resolve("gemini", NULL, p, key, sizeof(key), err, sizeof(err)), 0);
	assert_string_equal(key, "AIza-gem");
	assert_int_equal(fs_llm_provider_configured("gemini", p), 1);
	unlink(p);
}

static void group_readable_key_file_is_refused(void **state)
{
	(void)state;
	char key[128] = "", err[256] = "";
	char *p = key_file("openrouter = sk-or-secret\n", 0640);
	unsetenv("OPENROUTER_API_KEY");
	assert_int_equal(fs_llm_key_resolve("openrouter", NULL, p, key, sizeof(key), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "accessible by group or others"));
	assert_null(strstr(err, "sk-or-secret"));
	assert_string_equal(key, "");
	unlink(p);
}

static void symlinked_key_file_is_refused(void **state)
{
	(void)state;
	char key[128], err[256] = "";
	char *p = key_file("anthropic = sk-x\n", 0600);
	char link[80];
	snprintf(link, sizeof(link), "%s.lnk", p);
	assert_int_equal(symlink(p, link), 0);
	unsetenv("ANTHROPIC_API_KEY");
	assert_int_equal(fs_llm_key_resolve("anthropic", NULL, link, key, sizeof(key), err, sizeof(err)), -1);
	unlink(link);
	unlink(p);
}

static void missing_key_names_the_variable(void **state)
{
	(void)state;
	char key[128], err[256] = "";
	unsetenv("OPENAI_API_KEY");
	assert_int_equal(fs_llm_key_resolve("openai", NULL, NULL, key, sizeof(key), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "OPENAI_API_KEY"));
	assert_int_equal(fs_llm_key_present("openai", NULL, NULL), 0);
}

static void ollama_needs_no_key(void **state)
{
	(void)state;
	char key[128] = "x", err[256];
	unsetenv("OLLAMA_API_KEY");
	assert_int_equal(fs_llm_key_resolve("ollama", NULL, NULL, key, sizeof(key), err, sizeof(err)), 0);
	assert_string_equal(key, "");
}

static void provider_without_key_is_not_created(void **state)
{
	(void)state;
	char err[256] = "";
	fs_llm_config c;
	fs_llm_config_default(&c);
	c.provider = "anthropic";
	c.key_env = "FS_TEST_UNSET_VARIABLE";
	assert_null(fs_llm_new(&c, err, sizeof(err)));
	assert_non_null(strstr(err, "FS_TEST_UNSET_VARIABLE"));
	c.provider = "mystery";
	assert_null(fs_llm_new(&c, err, sizeof(err)));
	assert_non_null(strstr(err, "unknown provider"));
}

static void ollama_host_without_scheme_is_normalised(void **state)
{
	(void)state;
	char err[256] = "";
	fs_llm_config c;
	fs_llm_config_default(&c);
	c.provider = "ollama";
	setenv("OLLAMA_HOST", "127.0.0.1:11434", 1);
	fs_llm *llm = fs_llm_new(&c, err, sizeof(err));
	unsetenv("OLLAMA_HOST");
	assert_non_null(llm);
	assert_string_equal(fs_llm_url(llm), "http://127.0.0.1:11434/v1/chat/completions");
	assert_string_equal(fs_llm_model(llm), "llama3.2-vision");
	fs_llm_free(llm);
	c.base_url = "ftp://example.org/";
	assert_null(fs_llm_new(&c, err, sizeof(err)));
	assert_non_null(strstr(err, "http:// or https://"));
}

/* Issue 14 item 6: a model name goes into gemini's URL path. */
static void model_names_are_validated_and_escaped(void **state)
{
	(void)state;
	char err[256] = "";
	fs_llm_config c;
	fs_llm_config_default(&c);
	c.provider = "gemini";
	c.api_key = "AIzaTestKey";
	c.base_url = "http://127.0.0.1:9";
	c.model = "gemini-2.0-flash";
	fs_llm *llm = fs_llm_new(&c, err, sizeof(err));
	assert_non_null(llm);
	assert_string_equal(fs_llm_url(llm), "http://127.0.0.1:9/v1beta/models/gemini-2.0-flash:generateContent");
	fs_llm_free(llm);
	c.model = "tuned/x:1";
	llm = fs_llm_new(&c, err, sizeof(err));
	assert_non_null(llm);
	assert_string_equal(fs_llm_url(llm), "http://127.0.0.1:9/v1beta/models/tuned%2Fx%3A1:generateContent");
	fs_llm_free(llm);
	static const char *const bad[] = {"x?key=1", "x#f", "a b", "../../files", "m\nHost: evil", "%2e%2e", "",
					  NULL};
	for (int i = 0; bad[i]; i++) {
		assert_int_equal(fs_llm_model_name_valid(bad[i]), 0);
		if (!*bad[i])
			continue;
		for (int k = 0; k < 3; k++) {
			c.provider = k == 0 ? "gemini" : k == 1 ? "openai" : "anthropic";
			c.model = bad[i];
			assert_null(fs_llm_new(&c, err, sizeof(err)));
			assert_non_null(strstr(err, "invalid model name"));
		}
	}
	char longname[200];
	memset(longname, 'a', sizeof longname);
	longname[128] = 0;
	assert_int_equal(fs_llm_model_name_valid(longname), 0);
	longname[127] = 0;
	assert_int_equal(fs_llm_model_name_valid(longname), 1);
	assert_int_equal(fs_llm_model_name_valid("anthropic/claude-3.5:beta_1"), 1);
}

static char *sanitize(const char *s, const char *const *secrets)
{
	fs_buf b = FS_BUF_INIT;
	fs_buf_reserve(&b, 0);
	assert_int_equal(fs_llm_sanitize_text(s, secrets, &b), 0);
	return fs_buf_steal(&b);
}

static void secrets_are_redacted(void **state)
{
	(void)state;
	const char *sec[] = {"sk-ant-api03-XYZ", NULL};
	char *s = sanitize("header x-api-key: sk-ant-api03-XYZ and again sk-ant-api03-XYZ.", sec);
	assert_string_equal(s, "header x-api-key: [REDACTED] and again [REDACTED].");
	free(s);
}

/* Issue 14 item 5: keys that are not configured here, and cut-off copies. */
static void key_shapes_and_cut_off_keys_are_redacted(void **state)
{
	(void)state;
	static const char *const secrets[] = {"zz-configured-secret-1234", NULL};
	char *o;
	o = fs_llm_redact_dup("Incorrect API key provided: sk-proj-abcdefghijklmnop1234. See docs.", secrets);
	assert_string_equal(o, "Incorrect API key provided: [REDACTED]. See docs.");
	free(o);
	o = fs_llm_redact_dup("key=AIzaSyA1234567890abcdefghijklmnopqrstu end", secrets);
	assert_string_equal(o, "key=[REDACTED] end");
	free(o);
	o = fs_llm_redact_dup("Authorization: Bearer abcdefghijklmnop.qrstu", secrets);
	assert_string_equal(o, "Authorization: Bearer [REDACTED]");
	free(o);
	o = fs_llm_redact_dup("cut here zz-configured-se", secrets);
	assert_string_equal(o, "cut here [REDACTED]");
	free(o);
	o = fs_llm_redact_dup("cut here sk-ant-api0", secrets);
	assert_string_equal(o, "cut here [REDACTED]");
	free(o);
	/* ordinary words stay */
	o = fs_llm_redact_dup("task-management sk-short, risk-assessment-of-the-tubercles", secrets);
	assert_string_equal(o, "task-management sk-short, risk-assessment-of-the-tubercles");
	free(o);
	char buf[40] = "a zz-configured-secret-1234 b";
	fs_llm_redact_in_place(buf, sizeof buf, secrets);
	assert_string_equal(buf, "a [REDACTED] b");
	assert_int_equal(fs_llm_redact_safe_len("hello sk-pr", 11), 6);
	assert_int_equal(fs_llm_redact_safe_len("hello, ", 7), 7);
	cJSON *j = cJSON_Parse("{\"note\":\"sk-or-v1-0123456789abcdef0123\",\"n\":[\"zz-configured-secret-1234\"]}");
	cJSON *r = fs_llm_redact_json(j, secrets);
	char *txt = cJSON_PrintUnformatted(r);
	assert_string_equal(txt, "{\"note\":\"[REDACTED]\",\"n\":[\"[REDACTED]\"]}");
	free(txt);
	cJSON_Delete(j);
	cJSON_Delete(r);
}

static void long_base64_is_truncated_with_its_length(void **state)
{
	(void)state;
	char in[400];
	for (int i = 0; i < 300; i++)
		in[i] = "ABCDEFGHIJ"[i % 10];
	in[300] = 0;
	char *s = sanitize(in, NULL);
	char expect[200];
	snprintf(expect, sizeof(expect), "%.50s...[300 bytes base64 truncated]...%.20s", in, in + 280);
	assert_string_equal(s, expect);
	free(s);
	s = sanitize("short base64 aGVsbG8= stays", NULL);
	assert_string_equal(s, "short base64 aGVsbG8= stays");
	free(s);
}

static void key_inside_base64_run_is_redacted(void **state)
{
	(void)state;
	char in[600];
	const char *sec[] = {"SECRETKEY123", NULL};
	memset(in, 'Q', 500);
	memcpy(in + 10, "SECRETKEY123", 12);
	in[500] = 0;
	char *s = sanitize(in, sec);
	assert_null(strstr(s, "SECRETKEY123"));
	assert_non_null(strstr(s, "[REDACTED]"));
	free(s);
}

static void json_is_sanitized_deeply(void **state)
{
	(void)state;
	const char *sec[] = {"topsecret", NULL};
	char big[500];
	memset(big, 'A', 400);
	big[400] = 0;
	cJSON *j = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(j, "a");
	cJSON_AddItemToArray(arr, cJSON_CreateString("topsecret"));
	cJSON_AddItemToArray(arr, cJSON_CreateNumber(3));
	cJSON_AddStringToObject(j, "img", big);
	cJSON_AddBoolToObject(j, "b", 1);
	cJSON *s = fs_llm_sanitize(j, sec);
	char *out = cJSON_PrintUnformatted(s);
	assert_non_null(strstr(out, "[\"[REDACTED]\",3]"));
	assert_non_null(strstr(out, "[400 bytes base64 truncated]"));
	assert_non_null(strstr(out, "\"b\":true"));
	cJSON_free(out);
	cJSON_Delete(s);
	cJSON_Delete(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(environment_variable_wins),
		cmocka_unit_test(default_variable_names),
		cmocka_unit_test(private_key_file_is_read),
		cmocka_unit_test(group_readable_key_file_is_refused),
		cmocka_unit_test(symlinked_key_file_is_refused),
		cmocka_unit_test(missing_key_names_the_variable),
		cmocka_unit_test(ollama_needs_no_key),
		cmocka_unit_test(provider_without_key_is_not_created),
		cmocka_unit_test(ollama_host_without_scheme_is_normalised),
		cmocka_unit_test(model_names_are_validated_and_escaped),
		cmocka_unit_test(secrets_are_redacted),
		cmocka_unit_test(key_shapes_and_cut_off_keys_are_redacted),
		cmocka_unit_test(long_base64_is_truncated_with_its_length),
		cmocka_unit_test(key_inside_base64_run_is_redacted),
		cmocka_unit_test(json_is_sanitized_deeply),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
