/* Unit tests for the server-sent events parser, split at every byte offset. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/buf.h"
#include "web/sse.h"

/* Events are recorded as "event|data\n" so one string comparison checks all. */
static int record(const char *event, const char *data, size_t len, void *user)
{
	fs_buf *b = user;
	fs_buf_puts(b, event);
	fs_buf_putc(b, '|');
	fs_buf_append(b, data, len);
	fs_buf_putc(b, '\n');
	return 0;
}

static void parse_split(const char *in, size_t split, fs_buf *out)
{
	fs_sse p;
	char err[128];
	size_t n = strlen(in);
	fs_sse_init(&p, record, out);
	assert_int_equal(fs_sse_feed(&p, in, split, err, sizeof(err)), 0);
	assert_int_equal(fs_sse_feed(&p, in + split, n - split, err, sizeof(err)), 0);
	assert_int_equal(fs_sse_finish(&p, err, sizeof(err)), 0);
	fs_sse_free(&p);
}

static void check_every_split(const char *in, const char *expect)
{
	size_t n = strlen(in);
	for (size_t split = 0; split <= n; split++) {
		fs_buf out = FS_BUF_INIT;
		parse_split(in, split, &out);
		if (strcmp(out.data ? out.data : "", expect))
			fail_msg("split at %zu gave '%s'", split, out.data ? out.data : "");
		fs_buf_free(&out);
	}
}

static void anthropic_stream_parses_at_every_split(void **state)
{
	(void)state;
	check_every_split("event: message_start\ndata: {\"a\":1}\n\n"
			  "event: content_block_delta\ndata: {\"t\":\"hi\"}\n\n",
			  "message_start|{\"a\":1}\ncontent_block_delta|{\"t\":\"hi\"}\n");
}

static void crlf_lines_parse_at_every_split(void **state)
{
	(void)state;
	check_every_split("data: {\"x\":1}\r\n\r\ndata: two\r\n\r\n",
			  "message|{\"x\":1}\nmessage|two\n");
}

static void bare_cr_lines_parse_at_every_split(void **state)
{
	(void)state;
	check_every_split("data: a\r\rdata: b\r\r", "message|a\nmessage|b\n");
}

static void multi_line_data_is_joined_with_newline(void **state)
{
	(void)state;
	check_every_split("data: one\ndata:two\n\n", "message|one\ntwo\n");
}

static void comments_and_unknown_fields_are_ignored(void **state)
{
	(void)state;
	check_every_split(": keep-alive\nid: 7\nretry: 10\ndata: x\n\n: OPENROUTER PROCESSING\n\n",
			  "message|x\n");
}

static void event_without_data_is_not_dispatched(void **state)
{
	(void)state;
	check_every_split("event: ping\n\ndata: y\n\n", "message|y\n");
}

static void final_event_without_blank_line_is_delivered(void **state)
{
	(void)state;
	check_every_split("data: [DONE]", "message|[DONE]\n");
}

static int stop_at_first(const char *event, const char *data, size_t len, void *user)
{
	(void)event, (void)data, (void)len;
	(*(int *)user)++;
	return 1;
}

static void consumer_can_stop_the_stream(void **state)
{
	(void)state;
	int calls = 0;
	char err[128] = "";
	fs_sse p;
	fs_sse_init(&p, stop_at_first, &calls);
	assert_int_equal(fs_sse_feed(&p, "data: a\n\ndata: b\n\n", 18, err, sizeof(err)), -1);
	assert_int_equal(calls, 1);
	assert_non_null(strstr(err, "stopped"));
	fs_sse_free(&p);
}

static void overlong_line_fails(void **state)
{
	(void)state;
	fs_buf out = FS_BUF_INIT;
	char err[128] = "";
	fs_sse p;
	fs_sse_init(&p, record, &out);
	p.max_line = 8;
	assert_int_equal(fs_sse_feed(&p, "data: 0123456789", 16, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "longer than"));
	fs_sse_free(&p);
	fs_buf_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(anthropic_stream_parses_at_every_split),
		cmocka_unit_test(crlf_lines_parse_at_every_split),
		cmocka_unit_test(bare_cr_lines_parse_at_every_split),
		cmocka_unit_test(multi_line_data_is_joined_with_newline),
		cmocka_unit_test(comments_and_unknown_fields_are_ignored),
		cmocka_unit_test(event_without_data_is_not_dispatched),
		cmocka_unit_test(final_event_without_blank_line_is_delivered),
		cmocka_unit_test(consumer_can_stop_the_stream),
		cmocka_unit_test(overlong_line_fails),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
