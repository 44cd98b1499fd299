/* Unit tests for the streaming multipart/form-data parser (multipart.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "web/multipart.h"

#define CT "multipart/form-data; boundary=XyZ-123"

/* Records callbacks as text: [name|filename|type] data... <end> */
struct rec {
	fs_buf log;
	size_t max_piece, pieces;
	int fail_begin_at; /* abort in the n-th part_begin (1-based), 0 never */
	int begins;
};

static int on_begin(void *ud, const char *name, const char *filename, const char *ct)
{
	struct rec *r = ud;
	r->begins++;
	if (r->fail_begin_at && r->begins == r->fail_begin_at)
		return 42;
	return fs_buf_printf(&r->log, "[%s|%s|%s]", name, filename ? filename : "(null)",
			     ct ? ct : "(null)");
}

static int on_data(void *ud, const char *data, size_t len)
{
	struct rec *r = ud;
	assert_true(len > 0);
	r->pieces++;
	if (len > r->max_piece)
		r->max_piece = len;
	return fs_buf_append(&r->log, data, len);
}

static int on_end(void *ud)
{
	struct rec *r = ud;
	return fs_buf_puts(&r->log, "<end>");
}

static const fs_multipart_cb callbacks = {on_begin, on_data, on_end};

static const char body[] =
	"preamble to ignore\r\n"
	"--XyZ-123\r\n"
	"Content-Disposition: form-data; name=\"title\"\r\n"
	"\r\n"
	"scale 1\r\n"
	"--XyZ-123\r\n"
	"content-disposition: form-data; name=\"image\"; filename=\"C:\\\\x\\\\a \\\"b\\\".tif\"\r\n"
	"Content-Type: image/tiff\r\n"
	"\r\n"
	"II*\0\r\n--XyZ-12\r\n\r--XyZ-123x\n--Xy\r\r\n\r\n"
	"--XyZ-123  \r\n"
	"Content-Disposition: form-data; name=empty\r\n"
	"\r\n"
	"\r\n"
	"--XyZ-123--\r\n"
	"epilogue --XyZ-123\r\n";

static const char expected[] =
	"[title|(null)|(null)]scale 1<end>"
	"[image|C:\\x\\a \"b\".tif|image/tiff]II*\0\r\n--XyZ-12\r\n\r--XyZ-123x\n--Xy\r\r\n<end>"
	"[empty|(null)|(null)]<end>";

#define BODY_LEN (sizeof(body) - 1)
#define EXPECTED_LEN (sizeof(expected) - 1)

/* Parses body fed in the pieces given by cut offsets; returns 0/-1. */
static int parse_cuts(const char *ct, const char *b, size_t len, const size_t *cuts,
		      int ncuts, struct rec *r, char *msg, size_t msglen)
{
	char err[200];
	fs_multipart *m = fs_multipart_new(ct, &callbacks, r, err, sizeof(err));
	assert_non_null(m);
	size_t at = 0;
	int rc = 0;
	for (int i = 0; i <= ncuts && rc == 0; i++) {
		size_t end = i < ncuts ? cuts[i] : len;
		rc = fs_multipart_feed(m, b + at, end - at);
		at = end;
	}
	if (rc == 0)
		rc = fs_multipart_finish(m);
	if (msg)
		snprintf(msg, msglen, "%s", fs_multipart_error(m));
	fs_multipart_free(m);
	return rc;
}

static void assert_log(const struct rec *r, const char *want, size_t wantlen)
{
	assert_int_equal(r->log.len, wantlen);
	assert_memory_equal(r->log.data, want, wantlen);
}

static void whole_body_gives_each_part(void **state)
{
	(void)state;
	struct rec r = {0};
	assert_int_equal(parse_cuts(CT, body, BODY_LEN, NULL, 0, &r, NULL, 0), 0);
	assert_log(&r, expected, EXPECTED_LEN);
	fs_buf_free(&r.log);
}

static void every_single_split_gives_same_callbacks(void **state)
{
	(void)state;
	for (size_t cut = 0; cut <= BODY_LEN; cut++) {
		struct rec r = {0};
		assert_int_equal(parse_cuts(CT, body, BODY_LEN, &cut, 1, &r, NULL, 0), 0);
		assert_log(&r, expected, EXPECTED_LEN);
		fs_buf_free(&r.log);
	}
}

static void every_pair_of_splits_gives_same_callbacks(void **state)
{
	(void)state;
	struct rec r = {0};
	for (size_t a = 0; a <= BODY_LEN; a++) {
		for (size_t b = a; b <= BODY_LEN; b++) {
			size_t cuts[2] = {a, b};
			fs_buf_reset(&r.log);
			assert_int_equal(parse_cuts(CT, body, BODY_LEN, cuts, 2, &r, NULL, 0), 0);
			assert_log(&r, expected, EXPECTED_LEN);
		}
	}
	fs_buf_free(&r.log);
}

static void one_byte_at_a_time_gives_same_callbacks(void **state)
{
	(void)state;
	size_t cuts[BODY_LEN];
	for (size_t i = 0; i < BODY_LEN; i++)
		cuts[i] = i;
	struct rec r = {0};
	assert_int_equal(parse_cuts(CT, body, BODY_LEN, cuts, (int)BODY_LEN, &r, NULL, 0), 0);
	assert_log(&r, expected, EXPECTED_LEN);
	fs_buf_free(&r.log);
}

static void bare_lf_line_ends_are_tolerated(void **state)
{
	(void)state;
	const char lf[] = "--XyZ-123\n"
			  "Content-Disposition: form-data; name=\"a\"\n\n"
			  "one\ntwo\n"
			  "--XyZ-123\n"
			  "Content-Disposition: form-data; name=\"b\"\n\n"
			  "x\r\n"
			  "--XyZ-123--";
	for (size_t cut = 0; cut < sizeof(lf); cut++) {
		struct rec r = {0};
		assert_int_equal(parse_cuts(CT, lf, sizeof(lf) - 1, &cut, 1, &r, NULL, 0), 0);
		const char want[] = "[a|(null)|(null)]one\ntwo<end>[b|(null)|(null)]x<end>";
		assert_log(&r, want, sizeof(want) - 1);
		fs_buf_free(&r.log);
	}
}

static void quoted_boundary_is_accepted(void **state)
{
	(void)state;
	const char b[] = "--a b:c\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\nv\r\n--a b:c--\r\n";
	struct rec r = {0};
	assert_int_equal(parse_cuts("Multipart/Form-Data;charset=utf-8; BOUNDARY=\"a b:c\"",
				    b, sizeof(b) - 1, NULL, 0, &r, NULL, 0), 0);
	assert_string_equal(r.log.data, "[f|(null)|(null)]v<end>");
	fs_buf_free(&r.log);
}

static void bad_content_types_are_refused(void **state)
{
	(void)state;
	char err[200];
	const char *bad[] = {
		NULL, "", "text/plain; boundary=x", "multipart/form-data",
		"multipart/form-data; boundary=", "multipart/form-data; boundary=\"\"",
		"multipart/form-data; boundary=\"unterminated",
		"multipart/form-data; boundary=a\x01", "multipart/form-dataX; boundary=a",
		"multipart/form-data; boundary=\"ends in space \"",
		"multipart/form-data; boundary=12345678901234567890123456789012345678901234567890123456789012345678901",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		err[0] = 0;
		assert_null(fs_multipart_new(bad[i], &callbacks, NULL, err, sizeof(err)));
		assert_true(err[0] != 0);
	}
	/* exactly 70 characters is fine */
	fs_multipart *m = fs_multipart_new("multipart/form-data; boundary=1234567890123456789012345678901234567890123456789012345678901234567890",
					   &callbacks, NULL, err, sizeof(err));
	assert_non_null(m);
	fs_multipart_free(m);
	fs_multipart_free(NULL);
}

static void every_truncation_is_reported(void **state)
{
	(void)state;
	/* any prefix short of the closing delimiter fails, never crashes */
	const char *close = memmem(body, BODY_LEN, "--XyZ-123--", 11);
	assert_non_null(close);
	size_t need = (size_t)(close - body) + strlen("--XyZ-123--");
	for (size_t len = 0; len < BODY_LEN; len++) {
		struct rec r = {0};
		char msg[200];
		int rc = parse_cuts(CT, body, len, NULL, 0, &r, msg, sizeof(msg));
		if (len < need) {
			assert_int_equal(rc, -1);
			assert_non_null(strstr(msg, "ended before"));
		} else {
			assert_int_equal(rc, 0);
		}
		fs_buf_free(&r.log);
	}
}

static void oversized_part_headers_are_refused(void **state)
{
	(void)state;
	fs_buf b = FS_BUF_INIT;
	assert_int_equal(fs_buf_puts(&b, "--XyZ-123\r\nContent-Disposition: form-data; name=\"a\"\r\nX-Pad: "), 0);
	for (int i = 0; i < FS_MULTIPART_MAX_HEADER; i++)
		assert_int_equal(fs_buf_putc(&b, 'p'), 0);
	assert_int_equal(fs_buf_puts(&b, "\r\n\r\nv\r\n--XyZ-123--"), 0);
	struct rec r = {0};
	char msg[200];
	assert_int_equal(parse_cuts(CT, b.data, b.len, NULL, 0, &r, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "headers longer"));
	assert_int_equal(r.log.len, 0);
	fs_buf_free(&b);
	fs_buf_free(&r.log);
}

static void too_many_parts_are_refused(void **state)
{
	(void)state;
	fs_buf b = FS_BUF_INIT;
	for (int i = 0; i <= FS_MULTIPART_MAX_PARTS; i++)
		assert_int_equal(fs_buf_printf(&b, "--XyZ-123\r\nContent-Disposition: form-data; name=\"f%d\"\r\n\r\nv\r\n", i), 0);
	assert_int_equal(fs_buf_puts(&b, "--XyZ-123--"), 0);
	struct rec r = {0};
	char msg[200];
	assert_int_equal(parse_cuts(CT, b.data, b.len, NULL, 0, &r, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "more than 64 parts"));
	assert_int_equal(r.begins, FS_MULTIPART_MAX_PARTS);
	fs_buf_free(&b);
	fs_buf_free(&r.log);
}

static void malformed_part_headers_are_refused(void **state)
{
	(void)state;
	const char *bad[] = {
		"--XyZ-123\r\n\r\nv\r\n--XyZ-123--",
		"--XyZ-123\r\nContent-Type: text/plain\r\n\r\nv\r\n--XyZ-123--",
		"--XyZ-123\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\nv\r\n--XyZ-123--",
		"--XyZ-123\r\nContent-Disposition: form-data; filename=\"a\"\r\n\r\nv\r\n--XyZ-123--",
		"--XyZ-123\r\nContent-Disposition: form-data; name=\"a\r\n\r\nv\r\n--XyZ-123--",
		"--XyZ-123\r\nno colon here\r\n\r\nv\r\n--XyZ-123--",
		"--XyZ-123x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--XyZ-123--",
		"--XyZ-123-x",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct rec r = {0};
		char msg[200];
		assert_int_equal(parse_cuts(CT, bad[i], strlen(bad[i]), NULL, 0, &r, msg, sizeof(msg)), -1);
		assert_true(msg[0] != 0);
		fs_buf_free(&r.log);
	}
}

/* found by fuzzing: a NUL inside the header block */
static void nul_in_part_headers_is_refused(void **state)
{
	(void)state;
	const char b[] = "--XyZ-123\r\nX: a\0\n\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--XyZ-123--";
	struct rec r = {0};
	char msg[200];
	assert_int_equal(parse_cuts(CT, b, sizeof(b) - 1, NULL, 0, &r, msg, sizeof(msg)), -1);
	assert_string_equal(msg, "NUL byte in part headers");
	assert_int_equal(r.begins, 0);
}

static void folded_header_and_empty_filename_pass(void **state)
{
	(void)state;
	const char b[] = "--XyZ-123\r\nContent-Disposition: form-data;\r\n name=\"f\"; filename=\"\"\r\n"
			 "Content-Type: application/octet-stream\r\n\r\n\r\n--XyZ-123--";
	struct rec r = {0};
	assert_int_equal(parse_cuts(CT, b, sizeof(b) - 1, NULL, 0, &r, NULL, 0), 0);
	assert_string_equal(r.log.data, "[f||application/octet-stream]<end>");
	fs_buf_free(&r.log);
}

static void callback_refusal_aborts_with_its_code(void **state)
{
	(void)state;
	struct rec r = {.fail_begin_at = 2};
	char err[200];
	fs_multipart *m = fs_multipart_new(CT, &callbacks, &r, err, sizeof(err));
	assert_non_null(m);
	assert_int_equal(fs_multipart_feed(m, body, BODY_LEN), -1);
	assert_int_equal(fs_multipart_callback_rc(m), 42);
	assert_non_null(strstr(fs_multipart_error(m), "part_begin"));
	assert_int_equal(fs_multipart_feed(m, "x", 1), -1);
	assert_int_equal(fs_multipart_finish(m), -1);
	assert_string_equal(r.log.data, "[title|(null)|(null)]scale 1<end>");
	fs_multipart_free(m);
	fs_buf_free(&r.log);
}

static void huge_part_is_streamed_in_pieces(void **state)
{
	(void)state;
	const size_t total = 32u << 20, chunk = 65536;
	char *piece = malloc(chunk);
	assert_non_null(piece);
	for (size_t i = 0; i < chunk; i++)
		piece[i] = (char)(i * 7 + (i >> 9)); /* includes CR, LF and '-' */
	struct rec r = {0};
	char err[200];
	fs_multipart *m = fs_multipart_new(CT, &(fs_multipart_cb){on_begin, NULL, on_end},
					   &r, err, sizeof(err));
	assert_null(m); /* all three callbacks are required */
	size_t seen = 0;
	m = fs_multipart_new(CT, &callbacks, &r, err, sizeof(err));
	const char head[] = "--XyZ-123\r\nContent-Disposition: form-data; name=\"img\"; filename=\"a.tif\"\r\n\r\n";
	assert_int_equal(fs_multipart_feed(m, head, sizeof(head) - 1), 0);
	for (size_t done = 0; done < total; done += chunk) {
		assert_int_equal(fs_multipart_feed(m, piece, chunk), 0);
		seen += r.log.len;
		fs_buf_reset(&r.log); /* the test keeps no copy either */
	}
	assert_int_equal(fs_multipart_feed(m, "\r\n--XyZ-123--\r\n", 15), 0);
	assert_int_equal(fs_multipart_finish(m), 0);
	seen += r.log.len;
	fs_multipart_free(m);
	assert_int_equal(seen, strlen("[img|a.tif|(null)]") + total + strlen("<end>"));
	assert_true(r.pieces >= total / chunk);
	assert_true(r.max_piece <= chunk);
	free(piece);
	fs_buf_free(&r.log);
}

/* Token soup from a fixed seed: malformed bodies fail cleanly, never crash. */
static void random_bodies_fail_cleanly(void **state)
{
	(void)state;
	static const char *const tok[] = {
		"--XyZ-123", "--", "\r\n", "\n", "\r", "Content-Disposition: form-data; name=\"a\"",
		"; filename=\"f\\\"\"", "Content-Type: x/y", " ", "data", "-", "XyZ-123", ":", "\"",
	};
	const size_t ntok = sizeof(tok) / sizeof(*tok);
	unsigned long long seed = 99;
	int ok = 0;
	for (int i = 0; i < 5000; i++) {
		fs_buf b = FS_BUF_INIT;
		struct rec r = {0};
		int n = 1 + i % 30;
		for (int k = 0; k < n; k++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			assert_int_equal(fs_buf_puts(&b, tok[(seed >> 33) % ntok]), 0);
		}
		size_t cut = b.len / 2;
		ok += parse_cuts(CT, b.data, b.len, &cut, 1, &r, NULL, 0) == 0;
		fs_buf_free(&b);
		fs_buf_free(&r.log);
	}
	assert_true(ok > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_body_gives_each_part),
		cmocka_unit_test(every_single_split_gives_same_callbacks),
		cmocka_unit_test(every_pair_of_splits_gives_same_callbacks),
		cmocka_unit_test(one_byte_at_a_time_gives_same_callbacks),
		cmocka_unit_test(bare_lf_line_ends_are_tolerated),
		cmocka_unit_test(quoted_boundary_is_accepted),
		cmocka_unit_test(bad_content_types_are_refused),
		cmocka_unit_test(every_truncation_is_reported),
		cmocka_unit_test(oversized_part_headers_are_refused),
		cmocka_unit_test(too_many_parts_are_refused),
		cmocka_unit_test(malformed_part_headers_are_refused),
		cmocka_unit_test(nul_in_part_headers_is_refused),
		cmocka_unit_test(folded_header_and_empty_filename_pass),
		cmocka_unit_test(callback_refusal_aborts_with_its_code),
		cmocka_unit_test(huge_part_is_streamed_in_pieces),
		cmocka_unit_test(random_bodies_fail_cleanly),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
