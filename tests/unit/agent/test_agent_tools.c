/* Unit tests for the tool registry, validated execution, results and the system prompt. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/agent_tools.h"

static int calls;

static int echo(const cJSON *args, fs_tool_output *out, void *user)
{
	calls++;
	out->data = cJSON_Duplicate(args, 1);
	cJSON_AddStringToObject(out->data, "user", user ? (const char *)user : "");
	return FS_TOOL_OK;
}

static int fails(const cJSON *args, fs_tool_output *out, void *user)
{
	(void)args, (void)user;
	snprintf(out->error, sizeof(out->error), "no image loaded");
	return FS_TOOL_ERROR;
}

static int storage_lost(const cJSON *args, fs_tool_output *out, void *user)
{
	(void)args, (void)user;
	snprintf(out->error, sizeof(out->error), "disk full");
	return FS_TOOL_CRITICAL;
}

static int shot(const cJSON *args, fs_tool_output *out, void *user)
{
	(void)args, (void)user;
	out->image_b64 = strdup("iVBORw0KGgo=");
	out->width = 64;
	out->height = 32;
	return FS_TOOL_OK;
}

static const char *POINT =
	"{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\",\"description\":\"pixels\","
	"\"minimum\":0,\"maximum\":640},\"mode\":{\"type\":\"string\",\"enum\":[\"a\",\"b\"]}},"
	"\"required\":[\"x\"]}";

static fs_tool_registry *reg(void)
{
	char err[256];
	fs_tool_registry *r = fs_tools_new();
	assert_int_equal(fs_tools_add(r, "echo", "Echo the arguments", POINT, echo, "ctx", 0, err, sizeof(err)), 0);
	assert_int_equal(fs_tools_add(r, "fails", "Always fails", NULL, fails, NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(fs_tools_add(r, "storage", "Critical", NULL, storage_lost, NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(fs_tools_add(r, "shot", "Screenshot", NULL, shot, NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(fs_tools_add(r, "done", "Finish", NULL, echo, NULL, FS_TOOL_FINISHING, err, sizeof(err)), 0);
	return r;
}

static void exec(fs_tool_registry *r, const char *name, const char *args, fs_tool_exec *ex)
{
	cJSON *a = cJSON_Parse(args);
	assert_int_equal(fs_tools_execute(r, name, a, NULL, ex), 0);
	cJSON_Delete(a);
}

static void success_result_has_common_shape(void **state)
{
	(void)state;
	fs_tool_registry *r = reg();
	fs_tool_exec ex;
	exec(r, "echo", "{\"x\":5}", &ex);
	assert_int_equal(ex.ok, 1);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ex.result, "success")));
	cJSON *data = cJSON_GetObjectItemCaseSensitive(ex.result, "data");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(data, "user")), "ctx");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ex.result, "tool")), "echo");
	const char *ts = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ex.result, "timestamp"));
	assert_non_null(ts);
	assert_int_equal(strlen(ts), 24); /* 2026-01-01T00:00:00.000Z */
	assert_int_equal(ts[23], 'Z');
	assert_null(cJSON_GetObjectItemCaseSensitive(ex.result, "error"));
	assert_non_null(strstr(ex.text, "\"success\":true"));
	fs_tool_exec_free(&ex);
	fs_tools_free(r);
}

static void invalid_arguments_do_not_reach_handler(void **state)
{
	(void)state;
	fs_tool_registry *r = reg();
	fs_tool_exec ex;
	calls = 0;
	exec(r, "echo", "{\"x\":5,\"mode\":\"c\"}", &ex);
	assert_int_equal(calls, 0);
	assert_int_equal(ex.ok, 0);
	assert_int_equal(ex.critical, 0);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(ex.result, "success")));
	assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ex.result, "error")),
			       "invalid arguments: $.mode: must be one of"));
	fs_tool_exec_free(&ex);
	fs_tools_free(r);
}

static void malformed_argument_text_is_an_error_result(void **state)
{
	(void)state;
	fs_tool_registry *r = reg();
	fs_tool_exec ex;
	calls = 0;
	assert_int_equal(fs_tools_execute(r, "echo", NULL, "arguments are not a valid JSON object", &ex), 0);
	assert_int_equal(calls, 0);
	assert_non_null(strstr(ex.text, "invalid arguments: arguments are not a valid JSON object"));
	fs_tool_exec_free(&ex);
	fs_tools_free(r);
}

static void unknown_tool_lists_available_tools(void **state)
{
	(void)state;
	fs_tool_registry *r = reg();
	fs_tool_exec ex;
	exec(r, "nope", "{}", &ex);
	assert_int_equal(ex.ok, 0);
	assert_non_null(strstr(ex.text, "unknown tool 'nope'; available tools: echo, fails, storage, shot, done"));
	fs_tool_exec_free(&ex);
	fs_tools_free(r);
}

static void handler_error_is_not_critical(void **state)
{
	(void)state;
	fs_tool_registry *r = reg();
	fs_tool_exec ex;
	exec(r, "fails", "{}", &ex);
	assert_int_equal(ex.ok, 0);
	assert_int_equal(ex.critical, 0);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ex.result, "error")), "no image loaded");
	fs_tool_exec_free(&ex);
	fs_tools_free(r);
}

static void critical_handler_is_marked_critical(void **state)
{
	(void)state;
	fs_tool_registry *r = reg();
	fs_tool_exec ex;
	exec(r, "storage", "{}", &ex);
	assert_int_equal(ex.critical, 1);
	fs_tool_exec_free(&ex);
	fs_tools_free(r);
}

static void image_result_keeps_image_and_dimensions(void **state)
{
	(void)state;
	fs_tool_registry *r = reg();
	fs_tool_exec ex;
	exec(r, "shot", "{}", &ex);
	assert_string_equal(ex.image_b64, "iVBORw0KGgo=");
	assert_string_equal(ex.media_type, "image/png");
	assert_non_null(strstr(ex.text, "\"image_width\":64"));
	assert_null(strstr(ex.text, "iVBOR"));
	fs_tool_exec_free(&ex);
	fs_tools_free(r);
}

static void bad_registrations_are_refused(void **state)
{
	(void)state;
	char err[256];
	fs_tool_registry *r = reg();
	assert_int_equal(fs_tools_add(r, "echo", "dup", NULL, echo, NULL, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "already registered"));
	assert_int_equal(fs_tools_add(r, "bad name", "x", NULL, echo, NULL, 0, err, sizeof(err)), -1);
	assert_int_equal(fs_tools_add(r, "x", "x", "[1]", echo, NULL, 0, err, sizeof(err)), -1);
	assert_int_equal(fs_tools_add(r, "y", "x", NULL, NULL, NULL, 0, err, sizeof(err)), -1);
	assert_int_equal(fs_tools_count(r), 5);
	fs_tools_free(r);
}

static void definitions_and_finishing_flags(void **state)
{
	(void)state;
	fs_tool_registry *r = reg();
	const cJSON *defs = fs_tools_definitions(r);
	assert_int_equal(cJSON_GetArraySize(defs), 5);
	cJSON *d1 = cJSON_GetArrayItem(defs, 1);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d1, "name")), "fails");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(d1, "parameters"), "type")), "object");
	assert_true(fs_tools_is_finishing(r, "done"));
	assert_false(fs_tools_is_finishing(r, "echo"));
	assert_true(fs_tools_has_finishing(r));
	fs_tools_free(r);
}

static void system_prompt_fills_placeholders_and_tool_list(void **state)
{
	(void)state;
	char err[256];
	fs_tool_registry *r = reg();
	const char *ctx[] = {"image", "P1.tif", "goal", "0.8", NULL};
	char *p = fs_tools_system_prompt(r, "Image {image}, goal {goal}.\nTools:\n{tools}Example: {\"x\": 1}",
					 ctx, err, sizeof(err));
	assert_non_null(p);
	assert_non_null(strstr(p, "Image P1.tif, goal 0.8."));
	assert_non_null(strstr(p, "- echo: Echo the arguments\n  parameters:\n"
				  "    - x (number, required): pixels [min 0, max 640]\n"
				  "    - mode (string) one of [\"a\",\"b\"]\n"));
	assert_non_null(strstr(p, "- done (ends the run): Finish\n  parameters: none\n"));
	assert_non_null(strstr(p, "Example: {\"x\": 1}"));
	free(p);
	fs_tools_free(r);
}

static void unknown_placeholder_is_an_error(void **state)
{
	(void)state;
	char err[256] = "";
	fs_tool_registry *r = reg();
	assert_null(fs_tools_system_prompt(r, "Hello {nmae}", NULL, err, sizeof(err)));
	assert_string_equal(err, "system prompt: unknown placeholder {nmae}");
	fs_tools_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(success_result_has_common_shape),
		cmocka_unit_test(invalid_arguments_do_not_reach_handler),
		cmocka_unit_test(malformed_argument_text_is_an_error_result),
		cmocka_unit_test(unknown_tool_lists_available_tools),
		cmocka_unit_test(handler_error_is_not_critical),
		cmocka_unit_test(critical_handler_is_marked_critical),
		cmocka_unit_test(image_result_keeps_image_and_dimensions),
		cmocka_unit_test(bad_registrations_are_refused),
		cmocka_unit_test(definitions_and_finishing_flags),
		cmocka_unit_test(system_prompt_fills_placeholders_and_tool_list),
		cmocka_unit_test(unknown_placeholder_is_an_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
