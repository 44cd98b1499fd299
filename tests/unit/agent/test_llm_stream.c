/*
 * Streamed responses (server-sent events) for each wire format, assembled
 * into replies. Every transcript is fed split at every byte offset, so
 * state kept across libcurl callbacks is exercised everywhere.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "base/buf.h"
#include "agent/llm_wire.h"
#include "web/sse.h"

typedef struct feed {
	fs_wire_stream *ws;
	char err[256];
} feed;

static int on_event(const char *event, const char *data, size_t len, void *user)
{
	feed *f = user;
	return fs_wire_stream_event(f->ws, event, data, len, f->err, sizeof(f->err)) ? 1 : 0;
}

static void on_delta(const char *t, void *user)
{
	fs_buf_puts(user, t);
}

/* Feeds the transcript in two pieces split at `split`; returns 0 and fills r, or -1 with err. */
static int assemble(fs_wire w, const char *t, size_t split, fs_llm_reply *r, fs_buf *deltas, char *err, size_t errlen)
{
	feed f = {0};
	fs_sse p;
	int rc = -1;
	f.ws = fs_wire_stream_new(w, on_delta, deltas);
	fs_sse_init(&p, on_event, &f);
	memset(r, 0, sizeof(*r));
	if (fs_sse_feed(&p, t, split, err, errlen) || fs_sse_feed(&p, t + split, strlen(t) - split, err, errlen) ||
	    fs_sse_finish(&p, err, errlen)) {
		snprintf(err, errlen, "%s", f.err);
		goto out;
	}
	cJSON *resp = fs_wire_stream_result(f.ws, err, errlen);
	if (resp)
		rc = fs_wire_parse(w, resp, r, err, errlen);
	cJSON_Delete(resp);
out:
	fs_sse_free(&p);
	fs_wire_stream_free(f.ws);
	return rc;
}

static const char *ANTHROPIC =
	"event: message_start\n"
	"data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
	"\"content\":[],\"model\":\"claude-sonnet-4-20250514\",\"stop_reason\":null,\"usage\":{\"input_tokens\":472,\"output_tokens\":2}}}\n\n"
	"event: content_block_start\n"
	"data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
	"event: ping\ndata: {\"type\": \"ping\"}\n\n"
	"event: content_block_delta\n"
	"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Okay, let's\"}}\n\n"
	"event: content_block_delta\n"
	"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\" check.\"}}\n\n"
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
	"event: content_block_start\n"
	"data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01T1x\","
	"\"name\":\"get_weather\",\"input\":{}}}\n\n"
	"event: content_block_delta\n"
	"data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n\n"
	"event: content_block_delta\n"
	"data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"location\\\":\"}}\n\n"
	"event: content_block_delta\n"
	"data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\" \\\"San Francisco, CA\\\"}\"}}\n\n"
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
	"event: message_delta\n"
	"data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":89}}\n\n"
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

static const char *OPENAI =
	"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Let me\"},\"finish_reason\":null}]}\n\n"
	": OPENROUTER PROCESSING\n\n"
	"data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" look.\"},\"finish_reason\":null}]}\n\n"
	"data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_DdmO9\",\"type\":\"function\","
	"\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n"
	"data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"lo\"}}]},\"finish_reason\":null}]}\n\n"
	"data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"cation\\\": \\\"Paris\\\"}\"}}]},\"finish_reason\":null}]}\n\n"
	"data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_2\",\"type\":\"function\","
	"\"function\":{\"name\":\"get_weather\",\"arguments\":\"{}\"}}]},\"finish_reason\":null}]}\n\n"
	"data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
	"data: {\"id\":\"c\",\"choices\":[],\"usage\":{\"prompt_tokens\":82,\"completion_tokens\":17,\"total_tokens\":99}}\n\n"
	"data: [DONE]\n\n";

static const char *GEMINI =
	"data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Turning\"}],\"role\": \"model\"},\"index\": 0}]}\r\n\r\n"
	"data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \" on the lights.\"}],\"role\": \"model\"},\"index\": 0}]}\r\n\r\n"
	"data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"set_light\",\"args\": {\"on\": true}},"
	"\"thoughtSignature\": \"Sig==\"}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}],"
	"\"usageMetadata\": {\"promptTokenCount\": 31,\"candidatesTokenCount\": 9,\"totalTokenCount\": 40}}\r\n\r\n";

static void every_split(fs_wire w, const char *t, void (*check)(const fs_llm_reply *r, const char *deltas))
{
	size_t n = strlen(t);
	for (size_t split = 0; split <= n; split++) {
		char err[256] = "";
		fs_llm_reply r;
		fs_buf d = FS_BUF_INIT;
		fs_buf_reserve(&d, 0);
		if (assemble(w, t, split, &r, &d, err, sizeof(err)))
			fail_msg("split %zu: %s", split, err);
		check(&r, d.data);
		fs_llm_reply_free(&r);
		fs_buf_free(&d);
	}
}

static void check_anthropic(const fs_llm_reply *r, const char *deltas)
{
	assert_string_equal(deltas, "Okay, let's check.");
	assert_string_equal(r->text, "Okay, let's check.");
	assert_int_equal(r->ncalls, 1);
	assert_string_equal(r->calls[0].id, "toolu_01T1x");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r->calls[0].args, "location")),
			    "San Francisco, CA");
	assert_string_equal(r->stop_reason, "tool_use");
	assert_int_equal(r->in_tokens, 472);
	assert_int_equal(r->out_tokens, 89);
}

static void check_openai(const fs_llm_reply *r, const char *deltas)
{
	assert_string_equal(deltas, "Let me look.");
	assert_string_equal(r->text, "Let me look.");
	assert_int_equal(r->ncalls, 2);
	assert_string_equal(r->calls[0].id, "call_DdmO9");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r->calls[0].args, "location")), "Paris");
	assert_string_equal(r->calls[1].id, "call_2");
	assert_string_equal(r->stop_reason, "tool_calls");
	assert_int_equal(r->in_tokens, 82);
	assert_int_equal(r->out_tokens, 17);
}

static void check_gemini(const fs_llm_reply *r, const char *deltas)
{
	assert_string_equal(deltas, "Turning on the lights.");
	assert_string_equal(r->text, "Turning on the lights.");
	assert_int_equal(r->ncalls, 1);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r->calls[0].args, "on")));
	assert_int_equal(r->in_tokens, 31);
	assert_int_equal(r->out_tokens, 9);
	/* text pieces joined, the signed part kept as it came */
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r->raw, "parts")), 2);
	cJSON *p1 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r->raw, "parts"), 1);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p1, "thoughtSignature")), "Sig==");
}

static void anthropic_stream_assembles_at_every_split(void **state)
{
	(void)state;
	every_split(FS_WIRE_ANTHROPIC, ANTHROPIC, check_anthropic);
}

static void openai_stream_assembles_at_every_split(void **state)
{
	(void)state;
	every_split(FS_WIRE_OPENAI, OPENAI, check_openai);
}

static void gemini_stream_assembles_at_every_split(void **state)
{
	(void)state;
	every_split(FS_WIRE_GEMINI, GEMINI, check_gemini);
}

static void stream_error_event_fails(void **state)
{
	(void)state;
	char err[256] = "";
	fs_llm_reply r;
	fs_buf d = FS_BUF_INIT;
	const char *t = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
	assert_int_equal(assemble(FS_WIRE_ANTHROPIC, t, 3, &r, &d, err, sizeof(err)), -1);
	assert_string_equal(err, "anthropic stream error: Overloaded");
	fs_llm_reply_free(&r);
	fs_buf_free(&d);
}

static void malformed_tool_input_fails(void **state)
{
	(void)state;
	char err[256] = "";
	fs_llm_reply r;
	fs_buf d = FS_BUF_INIT;
	const char *t =
		"data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"a\",\"name\":\"b\",\"input\":{}}}\n\n"
		"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"x\\\":\"}}\n\n"
		"data: {\"type\":\"content_block_stop\",\"index\":0}\n\n";
	assert_int_equal(assemble(FS_WIRE_ANTHROPIC, t, 0, &r, &d, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "tool input is not valid JSON"));
	fs_llm_reply_free(&r);
	fs_buf_free(&d);
}

static void non_json_event_data_fails(void **state)
{
	(void)state;
	char err[256] = "";
	fs_llm_reply r;
	fs_buf d = FS_BUF_INIT;
	assert_int_equal(assemble(FS_WIRE_GEMINI, "data: {oops\n\n", 0, &r, &d, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not JSON"));
	fs_llm_reply_free(&r);
	fs_buf_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(anthropic_stream_assembles_at_every_split),
		cmocka_unit_test(openai_stream_assembles_at_every_split),
		cmocka_unit_test(gemini_stream_assembles_at_every_split),
		cmocka_unit_test(stream_error_event_fails),
		cmocka_unit_test(malformed_tool_input_fails),
		cmocka_unit_test(non_json_event_data_fails),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
