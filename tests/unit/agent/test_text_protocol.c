/* Unit tests for tool calls written in prose. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "agent/text_protocol.h"

static int parse(const char *text, fs_llm_reply *r)
{
	char err[128];
	memset(r, 0, sizeof(*r));
	return fs_text_protocol_parse(text, r, err, sizeof(err));
}

static double num(const fs_tool_call *c, const char *k)
{
	return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(c->args, k));
}

static void tool_call_and_parameters_lines_parse(void **state)
{
	(void)state;
	fs_llm_reply r;
	assert_int_equal(parse("I will add one.\nTOOL_CALL: add_tubercle\nPARAMETERS: {\"x\": 10, \"y\": 20}\n", &r), 1);
	assert_string_equal(r.calls[0].name, "add_tubercle");
	assert_true(num(&r.calls[0], "x") == 10 && num(&r.calls[0], "y") == 20);
	assert_int_equal(r.calls[0].from_text, 1);
	assert_string_equal(r.calls[0].id, "text_call_1");
	fs_llm_reply_free(&r);
}

static void multi_line_parameters_parse(void **state)
{
	(void)state;
	fs_llm_reply r;
	assert_int_equal(parse("TOOL_CALL: set_params\nPARAMETERS: {\n  \"threshold\": 0.1,\n"
			       "  \"method\": \"log\"\n}\nTOOL_CALL: get_state\n", &r), 2);
	assert_string_equal(r.calls[0].name, "set_params");
	assert_true(num(&r.calls[0], "threshold") == 0.1);
	assert_string_equal(r.calls[1].name, "get_state");
	assert_int_equal(cJSON_GetArraySize(r.calls[1].args), 0);
	assert_null(r.calls[1].args_error);
	assert_string_equal(r.calls[1].id, "text_call_2");
	fs_llm_reply_free(&r);
}

static void fenced_json_with_tool_and_parameters_parses(void **state)
{
	(void)state;
	fs_llm_reply r;
	assert_int_equal(parse("Here:\n```json\n{\"tool\": \"finish\", \"parameters\": {\"summary\": \"ok\"}}\n```\n", &r), 1);
	assert_string_equal(r.calls[0].name, "finish");
	fs_llm_reply_free(&r);
}

static void fenced_json_with_name_and_string_arguments_parses(void **state)
{
	(void)state;
	fs_llm_reply r;
	assert_int_equal(parse("```\n{\"name\": \"add\", \"arguments\": \"{\\\"x\\\": 3}\"}\n```", &r), 1);
	assert_string_equal(r.calls[0].name, "add");
	assert_true(num(&r.calls[0], "x") == 3);
	fs_llm_reply_free(&r);
}

static void fenced_array_gives_several_calls(void **state)
{
	(void)state;
	fs_llm_reply r;
	assert_int_equal(parse("```json\n[{\"tool\":\"a\",\"parameters\":{}},{\"tool\":\"b\",\"parameters\":{}}]\n```", &r), 2);
	assert_string_equal(r.calls[1].name, "b");
	fs_llm_reply_free(&r);
}

static void malformed_parameters_are_flagged_not_dropped(void **state)
{
	(void)state;
	fs_llm_reply r;
	assert_int_equal(parse("TOOL_CALL: add\nPARAMETERS: {x: 1}\n", &r), 1);
	assert_non_null(r.calls[0].args_error);
	fs_llm_reply_free(&r);
}

static void plain_prose_has_no_calls(void **state)
{
	(void)state;
	fs_llm_reply r;
	assert_int_equal(parse("Would you like me to proceed with adding tubercles?", &r), 0);
	assert_int_equal(parse("```python\nprint('hi')\n```", &r), 0);
	assert_int_equal(parse("```json\n{\"x\": 1}\n```", &r), 0);
	assert_int_equal(parse("TOOL_CALL:\n", &r), 0);
	assert_int_equal(r.ncalls, 0);
	fs_llm_reply_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tool_call_and_parameters_lines_parse),
		cmocka_unit_test(multi_line_parameters_parse),
		cmocka_unit_test(fenced_json_with_tool_and_parameters_parses),
		cmocka_unit_test(fenced_json_with_name_and_string_arguments_parses),
		cmocka_unit_test(fenced_array_gives_several_calls),
		cmocka_unit_test(malformed_parameters_are_flagged_not_dropped),
		cmocka_unit_test(plain_prose_has_no_calls),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
