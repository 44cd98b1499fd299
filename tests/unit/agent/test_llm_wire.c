/*
 * Request building and response parsing for each wire format, checked
 * against response shapes as the providers document them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/llm_wire.h"

static cJSON *at(cJSON *root, const char *p)
{
	char buf[256], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", p);
	for (char *t = strtok_r(buf, ".", &save); t && root; t = strtok_r(NULL, ".", &save))
		root = (*t >= '0' && *t <= '9') ? cJSON_GetArrayItem(root, atoi(t))
						 : cJSON_GetObjectItemCaseSensitive(root, t);
	return root;
}

static const char *s_at(cJSON *root, const char *p)
{
	const char *s = cJSON_GetStringValue(at(root, p));
	if (!s)
		fail_msg("no string at %s", p);
	return s;
}

static const cJSON *TOOLS;

static int setup(void **state)
{
	(void)state;
	TOOLS = cJSON_Parse("[{\"name\":\"get_weather\",\"description\":\"Weather for a place\","
			    "\"parameters\":{\"type\":\"object\",\"properties\":{\"location\":{\"type\":\"string\"},"
			    "\"days\":{\"type\":\"integer\",\"exclusiveMinimum\":0}},\"required\":[\"location\"],"
			    "\"additionalProperties\":false}}]");
	return TOOLS ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	cJSON_Delete((cJSON *)TOOLS);
	return 0;
}

/* system, user(text+image), assistant(text+call), user(result with image, error result) */
static void sample_conv(fs_conv *c, fs_llm_reply *assistant_reply)
{
	fs_conv_init(c);
	fs_conv_set_system(c, "Be brief.");
	fs_msg *u = fs_conv_add(c, FS_ROLE_USER);
	fs_msg_add_text(u, "Look at this.");
	fs_msg_add_image(u, "data:image/png;base64,QUJD", "image/png");
	if (assistant_reply) {
		fs_conv_add_reply(c, assistant_reply);
	} else {
		fs_msg *a = fs_conv_add(c, FS_ROLE_ASSISTANT);
		fs_msg_add_text(a, "Checking.");
		cJSON *args = cJSON_Parse("{\"location\":\"Paris\"}");
		fs_msg_add_tool_call(a, "call_1", "get_weather", args);
		fs_msg_add_tool_call(a, "call_2", "get_weather", args);
		cJSON_Delete(args);
	}
	fs_msg *r = fs_conv_add(c, FS_ROLE_USER);
	fs_msg_add_tool_result(r, "call_1", "get_weather", "{\"success\":true,\"data\":{\"t\":21}}", 0, "SU1H", "image/png");
	fs_msg_add_tool_result(r, "call_2", "get_weather", "{\"success\":false,\"error\":\"no station\"}", 1, NULL, NULL);
}

static void anthropic_parses_documented_tool_use(void **state)
{
	(void)state;
	char err[256];
	fs_llm_reply r = {0};
	cJSON *resp = cJSON_Parse(
		"{\"id\":\"msg_01Aq9w938a90dw8q\",\"type\":\"message\",\"role\":\"assistant\","
		"\"model\":\"claude-sonnet-4-20250514\",\"stop_reason\":\"tool_use\",\"content\":["
		"{\"type\":\"text\",\"text\":\"I'll check the weather.\"},"
		"{\"type\":\"tool_use\",\"id\":\"toolu_01A09q90qw90lq917835lq9\",\"name\":\"get_weather\","
		"\"input\":{\"location\":\"San Francisco, CA\",\"unit\":\"celsius\"}}],"
		"\"usage\":{\"input_tokens\":472,\"output_tokens\":89}}");
	assert_int_equal(fs_anthropic_parse(resp, &r, err, sizeof(err)), 0);
	assert_string_equal(r.text, "I'll check the weather.");
	assert_int_equal(r.ncalls, 1);
	assert_string_equal(r.calls[0].id, "toolu_01A09q90qw90lq917835lq9");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r.calls[0].args, "unit")), "celsius");
	assert_string_equal(r.stop_reason, "tool_use");
	assert_int_equal(r.in_tokens, 472);
	assert_int_equal(r.out_tokens, 89);
	assert_string_equal(r.raw_wire, "anthropic");
	assert_int_equal(cJSON_GetArraySize(r.raw), 2);
	cJSON_Delete(resp);
	fs_llm_reply_free(&r);
}

static void anthropic_builds_blocks_and_image_tool_results(void **state)
{
	(void)state;
	fs_conv c;
	fs_wire_opts o = {.model = "claude-sonnet-4-20250514", .max_tokens = 1000, .force_tool = 1};
	sample_conv(&c, NULL);
	cJSON *b = fs_anthropic_build(&o, &c, TOOLS);
	assert_string_equal(s_at(b, "system"), "Be brief.");
	assert_int_equal(cJSON_GetNumberValue(at(b, "max_tokens")), 1000);
	assert_string_equal(s_at(b, "tools.0.input_schema.properties.location.type"), "string");
	assert_string_equal(s_at(b, "tool_choice.type"), "any");
	assert_string_equal(s_at(b, "messages.0.content.1.source.data"), "QUJD");
	assert_string_equal(s_at(b, "messages.1.role"), "assistant");
	assert_string_equal(s_at(b, "messages.1.content.1.type"), "tool_use");
	assert_string_equal(s_at(b, "messages.1.content.1.input.location"), "Paris");
	assert_string_equal(s_at(b, "messages.2.content.0.tool_use_id"), "call_1");
	assert_string_equal(s_at(b, "messages.2.content.0.content.0.source.data"), "SU1H");
	assert_null(at(b, "messages.2.content.0.is_error"));
	assert_true(cJSON_IsTrue(at(b, "messages.2.content.1.is_error")));
	assert_string_equal(s_at(b, "messages.2.content.1.content"), "{\"success\":false,\"error\":\"no station\"}");
	assert_null(at(b, "stream"));
	cJSON_Delete(b);
	fs_conv_free(&c);
}

static void anthropic_echoes_raw_assistant_content(void **state)
{
	(void)state;
	char err[256];
	fs_conv c;
	fs_llm_reply r = {0};
	fs_wire_opts o = {.model = "m"};
	cJSON *resp = cJSON_Parse("{\"content\":[{\"type\":\"thinking\",\"thinking\":\"hmm\",\"signature\":\"s1\"},"
				  "{\"type\":\"tool_use\",\"id\":\"call_1\",\"name\":\"get_weather\",\"input\":{}}],"
				  "\"stop_reason\":\"tool_use\"}");
	assert_int_equal(fs_anthropic_parse(resp, &r, err, sizeof(err)), 0);
	sample_conv(&c, &r);
	assert_null(r.raw);
	cJSON *b = fs_anthropic_build(&o, &c, TOOLS);
	assert_string_equal(s_at(b, "messages.1.content.0.signature"), "s1");
	cJSON_Delete(b);
	cJSON_Delete(resp);
	fs_llm_reply_free(&r);
	fs_conv_free(&c);
}

static void anthropic_error_body_is_reported(void **state)
{
	(void)state;
	char err[256] = "";
	fs_llm_reply r = {0};
	cJSON *resp = cJSON_Parse("{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}");
	assert_int_equal(fs_anthropic_parse(resp, &r, err, sizeof(err)), -1);
	assert_string_equal(err, "anthropic: response has no content: Overloaded");
	cJSON_Delete(resp);
	fs_llm_reply_free(&r);
}

static void openai_parses_documented_tool_calls(void **state)
{
	(void)state;
	char err[256];
	fs_llm_reply r = {0};
	cJSON *resp = cJSON_Parse(
		"{\"id\":\"chatcmpl-abc123\",\"object\":\"chat.completion\",\"model\":\"gpt-4o\",\"choices\":[{"
		"\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_abc123\","
		"\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\n\\\"location\\\": \\\"Boston, MA\\\"\\n}\"}}]},"
		"\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":82,\"completion_tokens\":17,\"total_tokens\":99}}");
	assert_int_equal(fs_openai_parse(resp, &r, err, sizeof(err)), 0);
	assert_null(r.text);
	assert_int_equal(r.ncalls, 1);
	assert_string_equal(r.calls[0].id, "call_abc123");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r.calls[0].args, "location")), "Boston, MA");
	assert_string_equal(r.stop_reason, "tool_calls");
	assert_int_equal(r.in_tokens, 82);
	assert_int_equal(r.out_tokens, 17);
	cJSON_Delete(resp);
	fs_llm_reply_free(&r);
}

static void openai_keeps_calls_even_with_stop_finish_reason(void **state)
{
	(void)state;
	char err[256];
	fs_llm_reply r = {0};
	cJSON *resp = cJSON_Parse("{\"choices\":[{\"message\":{\"content\":\"ok\",\"tool_calls\":[{\"function\":"
				  "{\"name\":\"a\",\"arguments\":\"{\\\"x\\\":\"}},{\"function\":{\"name\":\"b\","
				  "\"arguments\":\"\"}}]},\"finish_reason\":\"stop\"}]}");
	assert_int_equal(fs_openai_parse(resp, &r, err, sizeof(err)), 0);
	assert_int_equal(r.ncalls, 2);
	/* malformed arguments are flagged for the model, missing ids are made up */
	assert_non_null(r.calls[0].args_error);
	assert_string_equal(r.calls[0].id, "call_0");
	assert_null(r.calls[1].args_error);
	assert_int_equal(cJSON_GetArraySize(r.calls[1].args), 0);
	cJSON_Delete(resp);
	fs_llm_reply_free(&r);
}

static void openai_builds_tool_messages_then_image_message(void **state)
{
	(void)state;
	fs_conv c;
	fs_wire_opts o = {.model = "gpt-4o", .max_tokens = 0, .force_tool = 1};
	sample_conv(&c, NULL);
	cJSON *b = fs_openai_build(&o, &c, TOOLS);
	assert_string_equal(s_at(b, "messages.0.role"), "system");
	assert_string_equal(s_at(b, "messages.1.content.1.image_url.url"), "data:image/png;base64,QUJD");
	assert_string_equal(s_at(b, "messages.2.content"), "Checking.");
	assert_string_equal(s_at(b, "messages.2.tool_calls.1.id"), "call_2");
	assert_string_equal(s_at(b, "messages.2.tool_calls.0.function.arguments"), "{\"location\":\"Paris\"}");
	assert_string_equal(s_at(b, "messages.3.role"), "tool");
	assert_string_equal(s_at(b, "messages.3.tool_call_id"), "call_1");
	assert_string_equal(s_at(b, "messages.4.role"), "tool");
	assert_string_equal(s_at(b, "messages.5.role"), "user");
	assert_string_equal(s_at(b, "messages.5.content.1.image_url.url"), "data:image/png;base64,SU1H");
	assert_null(at(b, "messages.6"));
	assert_string_equal(s_at(b, "tool_choice"), "required");
	assert_string_equal(s_at(b, "tools.0.function.parameters.type"), "object");
	assert_null(at(b, "max_tokens"));
	assert_true(cJSON_IsFalse(at(b, "stream")));
	cJSON_Delete(b);
	fs_conv_free(&c);
}

static void openai_text_only_user_message_is_a_string(void **state)
{
	(void)state;
	fs_conv c;
	fs_wire_opts o = {.model = "llama3.2-vision", .max_tokens = 4096};
	fs_conv_init(&c);
	fs_msg_add_text(fs_conv_add(&c, FS_ROLE_USER), "Hi");
	cJSON *b = fs_openai_build(&o, &c, NULL);
	assert_string_equal(s_at(b, "messages.0.content"), "Hi");
	assert_null(at(b, "tools"));
	assert_int_equal(cJSON_GetNumberValue(at(b, "max_tokens")), 4096);
	cJSON_Delete(b);
	fs_conv_free(&c);
}

static void gemini_parses_documented_function_call_with_signature(void **state)
{
	(void)state;
	char err[256];
	fs_llm_reply r = {0};
	cJSON *resp = cJSON_Parse(
		"{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"thinking\",\"thought\":true},"
		"{\"functionCall\":{\"name\":\"set_light_values\",\"args\":{\"brightness\":25,\"color_temp\":\"warm\"}},"
		"\"thoughtSignature\":\"CiQB0e2Kb\"}]},\"finishReason\":\"STOP\",\"index\":0}],"
		"\"usageMetadata\":{\"promptTokenCount\":120,\"candidatesTokenCount\":15,\"thoughtsTokenCount\":40,"
		"\"totalTokenCount\":175}}");
	assert_int_equal(fs_gemini_parse(resp, &r, err, sizeof(err)), 0);
	assert_null(r.text); /* thought summaries are not answer text */
	assert_int_equal(r.ncalls, 1);
	assert_string_equal(r.calls[0].name, "set_light_values");
	assert_string_equal(r.calls[0].id, "gemini_call_0");
	assert_int_equal(r.in_tokens, 120);
	assert_int_equal(r.out_tokens, 55);
	assert_string_equal(r.stop_reason, "STOP");
	/* the content comes back verbatim on the next turn */
	fs_conv c;
	fs_wire_opts o = {.model = "gemini-2.5-flash"};
	sample_conv(&c, &r);
	cJSON *b = fs_gemini_build(&o, &c, TOOLS);
	assert_string_equal(s_at(b, "contents.1.role"), "model");
	assert_string_equal(s_at(b, "contents.1.parts.1.thoughtSignature"), "CiQB0e2Kb");
	assert_true(cJSON_IsTrue(at(b, "contents.1.parts.0.thought")));
	cJSON_Delete(b);
	fs_conv_free(&c);
	cJSON_Delete(resp);
	fs_llm_reply_free(&r);
}

static void gemini_builds_function_responses_then_images(void **state)
{
	(void)state;
	fs_conv c;
	fs_wire_opts o = {.model = "gemini-2.0-flash", .max_tokens = 2048, .force_tool = 1};
	sample_conv(&c, NULL);
	cJSON *b = fs_gemini_build(&o, &c, TOOLS);
	assert_string_equal(s_at(b, "systemInstruction.parts.0.text"), "Be brief.");
	assert_string_equal(s_at(b, "contents.0.parts.1.inline_data.data"), "QUJD");
	assert_string_equal(s_at(b, "contents.0.parts.1.inline_data.mime_type"), "image/png");
	assert_string_equal(s_at(b, "contents.1.parts.1.functionCall.name"), "get_weather");
	assert_string_equal(s_at(b, "contents.2.parts.0.functionResponse.name"), "get_weather");
	assert_int_equal(cJSON_GetNumberValue(at(b, "contents.2.parts.0.functionResponse.response.data.t")), 21);
	assert_string_equal(s_at(b, "contents.2.parts.1.functionResponse.response.error"), "no station");
	assert_string_equal(s_at(b, "contents.3.role"), "user");
	assert_string_equal(s_at(b, "contents.3.parts.1.inline_data.data"), "SU1H");
	assert_string_equal(s_at(b, "toolConfig.functionCallingConfig.mode"), "ANY");
	assert_int_equal(cJSON_GetNumberValue(at(b, "generationConfig.maxOutputTokens")), 2048);
	cJSON_Delete(b);
	fs_conv_free(&c);
}

static void gemini_schema_drops_unsupported_keywords(void **state)
{
	(void)state;
	fs_conv c;
	fs_wire_opts o = {.model = "gemini-2.0-flash"};
	fs_conv_init(&c);
	fs_msg_add_text(fs_conv_add(&c, FS_ROLE_USER), "Hi");
	cJSON *b = fs_gemini_build(&o, &c, TOOLS);
	cJSON *params = at(b, "tools.0.functionDeclarations.0.parameters");
	assert_non_null(params);
	assert_null(cJSON_GetObjectItemCaseSensitive(params, "additionalProperties"));
	assert_null(at(params, "properties.days.exclusiveMinimum"));
	assert_string_equal(s_at(params, "properties.days.type"), "integer");
	assert_string_equal(s_at(params, "required.0"), "location");
	/* the registry's own schema keeps them for local validation */
	assert_non_null(at((cJSON *)TOOLS, "0.parameters.additionalProperties"));
	cJSON_Delete(b);
	fs_conv_free(&c);
}

static void gemini_blocked_prompt_is_reported(void **state)
{
	(void)state;
	char err[256] = "";
	fs_llm_reply r = {0};
	cJSON *resp = cJSON_Parse("{\"promptFeedback\":{\"blockReason\":\"SAFETY\"}}");
	assert_int_equal(fs_gemini_parse(resp, &r, err, sizeof(err)), -1);
	assert_string_equal(err, "gemini: response has no candidates (blocked: SAFETY)");
	cJSON_Delete(resp);
	fs_llm_reply_free(&r);
}

static void error_messages_are_found_in_each_shape(void **state)
{
	(void)state;
	const char *bodies[] = {
		"{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"m1\"}}",
		"{\"error\":{\"message\":\"m1\",\"type\":\"invalid_request_error\",\"code\":null}}",
		"{\"error\":{\"code\":400,\"message\":\"m1\",\"status\":\"INVALID_ARGUMENT\"}}",
		"{\"error\":\"m1\"}",
	};
	for (size_t i = 0; i < 4; i++) {
		cJSON *j = cJSON_Parse(bodies[i]);
		assert_string_equal(fs_wire_error_message(j), "m1");
		cJSON_Delete(j);
	}
	assert_null(fs_wire_error_message(NULL));
}

static void pruning_keeps_only_newest_images(void **state)
{
	(void)state;
	fs_conv c;
	sample_conv(&c, NULL);
	fs_conv_prune_images(&c, 1);
	assert_int_equal(c.msgs[0].parts[1].kind, FS_PART_TEXT);
	assert_string_equal(c.msgs[0].parts[1].text, "[screenshot omitted]");
	assert_string_equal(c.msgs[2].parts[0].image_b64, "SU1H");
	fs_conv_prune_images(&c, 0);
	assert_null(c.msgs[2].parts[0].image_b64);
	assert_int_equal(c.msgs[2].parts[0].kind, FS_PART_TOOL_RESULT);
	fs_conv_free(&c);
}

static void serialize_matches_cjson_print(void **state)
{
	(void)state;
	fs_conv c;
	size_t n = 0;
	char *big = malloc(20001), *odd = malloc(20001);
	for (int i = 0; i < 20000; i++) {
		big[i] = "QUJDRA+/"[i % 8];
		odd[i] = "ab\"\\\n"[i % 5]; /* needs escaping: must take the slow path */
	}
	big[20000] = odd[20000] = 0;
	fs_conv_init(&c);
	fs_conv_set_system(&c, "\001fsblob0\001 looks like a mark");
	fs_msg *u = fs_conv_add(&c, FS_ROLE_USER);
	fs_msg_add_text(u, odd);
	fs_msg_add_image(u, big, "image/png");
	fs_msg_add_tool_result(u, "c", "shot", "{}", 0, big, "image/png");
	for (int w = 0; w < 6; w++) {
		fs_wire_opts o = {.model = "m"};
		if (w == 3) /* a string that is exactly a mark forces the plain path */
			fs_conv_set_system(&c, "\001fsblob0\001");
		cJSON *b = fs_wire_build((fs_wire)(w % 3), &o, &c, TOOLS);
		char *fast = fs_wire_serialize(b, &n);
		char *slow = cJSON_PrintUnformatted(b);
		assert_non_null(fast);
		assert_string_equal(fast, slow);
		assert_int_equal(n, strlen(slow));
		free(fast);
		cJSON_free(slow);
		cJSON_Delete(b);
	}
	fs_conv_free(&c);
	free(big);
	free(odd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(anthropic_parses_documented_tool_use),
		cmocka_unit_test(anthropic_builds_blocks_and_image_tool_results),
		cmocka_unit_test(anthropic_echoes_raw_assistant_content),
		cmocka_unit_test(anthropic_error_body_is_reported),
		cmocka_unit_test(openai_parses_documented_tool_calls),
		cmocka_unit_test(openai_keeps_calls_even_with_stop_finish_reason),
		cmocka_unit_test(openai_builds_tool_messages_then_image_message),
		cmocka_unit_test(openai_text_only_user_message_is_a_string),
		cmocka_unit_test(gemini_parses_documented_function_call_with_signature),
		cmocka_unit_test(gemini_builds_function_responses_then_images),
		cmocka_unit_test(gemini_schema_drops_unsupported_keywords),
		cmocka_unit_test(gemini_blocked_prompt_is_reported),
		cmocka_unit_test(error_messages_are_found_in_each_shape),
		cmocka_unit_test(pruning_keeps_only_newest_images),
		cmocka_unit_test(serialize_matches_cjson_print),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
