/* Unit tests for context-specific output escaping (escape.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "web/escape.h"

typedef int (*esc_fn)(fs_buf *, const char *);

static fs_buf esc_out;

static char *esc(esc_fn f, const char *s)
{
	fs_buf b = FS_BUF_INIT;
	fs_buf_free(&esc_out);
	assert_int_equal(f(&b, s), 0);
	if (!b.data)
		assert_int_equal(fs_buf_puts(&b, ""), 0);
	esc_out = b;
	return b.data;
}

static void assert_no_chars(const char *out, const char *forbidden)
{
	for (const char *f = forbidden; *f; f++)
		if (strchr(out, *f))
			fail_msg("'%c' left raw in \"%s\"", *f, out);
}

static void html_escapes_markup_characters(void **state)
{
	(void)state;
	assert_string_equal(esc(fs_esc_html, "<script>alert(1)</script>"),
			    "&lt;script&gt;alert(1)&lt;/script&gt;");
	assert_string_equal(esc(fs_esc_html, "a&amp;b \"q\" 'x'"),
			    "a&amp;amp;b &quot;q&quot; &#39;x&#39;");
	assert_string_equal(esc(fs_esc_html, "a=b`c"), "a=b`c");
	assert_string_equal(esc(fs_esc_html, "écaille µm"), "écaille µm");
	assert_string_equal(esc(fs_esc_html, ""), "");
	assert_string_equal(esc(fs_esc_html, NULL), "");
}

static void html_replaces_invalid_utf8_and_controls(void **state)
{
	(void)state;
	assert_string_equal(esc(fs_esc_html, "a\xC3"), "a\xEF\xBF\xBD");
	assert_string_equal(esc(fs_esc_html, "\xC0\xBC"), "\xEF\xBF\xBD\xEF\xBF\xBD");
	assert_string_equal(esc(fs_esc_html, "\xED\xA0\x80"),
			    "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
	assert_string_equal(esc(fs_esc_html, "a\x01\x7F\tb\n"),
			    "a\xEF\xBF\xBD\xEF\xBF\xBD\tb\n");
}

static void attr_also_escapes_backtick_and_equals(void **state)
{
	(void)state;
	assert_string_equal(esc(fs_esc_attr, "\" onmouseover=\"x"),
			    "&quot; onmouseover&#61;&quot;x");
	assert_string_equal(esc(fs_esc_attr, "`'"), "&#96;&#39;");
}

static void url_component_keeps_only_unreserved(void **state)
{
	(void)state;
	assert_string_equal(esc(fs_esc_url_component, "a b&c=d/é~._-"),
			    "a%20b%26c%3Dd%2F%C3%A9~._-");
	assert_string_equal(esc(fs_esc_url_component, "javascript:alert(1)"),
			    "javascript%3Aalert%281%29");
}

static void url_attr_passes_safe_schemes_and_relative(void **state)
{
	(void)state;
	assert_string_equal(esc(fs_esc_url_attr, "https://x.org/a?b=1&c=2"),
			    "https://x.org/a?b&#61;1&amp;c&#61;2");
	assert_string_equal(esc(fs_esc_url_attr, "HTTP://x"), "HTTP://x");
	assert_string_equal(esc(fs_esc_url_attr, "mailto:a@b.org"), "mailto:a@b.org");
	assert_string_equal(esc(fs_esc_url_attr, "/images/3"), "/images/3");
	assert_string_equal(esc(fs_esc_url_attr, "images/3"), "images/3");
	assert_string_equal(esc(fs_esc_url_attr, "?page=2"), "?page&#61;2");
	assert_string_equal(esc(fs_esc_url_attr, "a/b:c"), "a/b:c");
	assert_string_equal(esc(fs_esc_url_attr, "#top"), "#top");
	assert_string_equal(esc(fs_esc_url_attr, "//cdn.example/x"), "//cdn.example/x");
}

static void url_attr_refuses_dangerous_schemes(void **state)
{
	(void)state;
	const char *bad[] = {
		"javascript:alert(1)", "JavaScript:alert(1)", " javascript:x",
		"java\tscript:x", "java\nscript:x", "\x01javascript:x",
		"data:text/html,<script>", "vbscript:x", ":x", "ftp://x",
		"httpsx:x", "http\x01:x",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_string_equal(esc(fs_esc_url_attr, bad[i]), FS_ESC_URL_REFUSED);
		assert_int_equal(fs_url_is_safe(bad[i]), 0);
	}
}

static void url_attr_percent_encodes_breakout_characters(void **state)
{
	(void)state;
	assert_string_equal(esc(fs_esc_url_attr, "/a b\"><script>'`"),
			    "/a%20b%22%3E%3Cscript%3E%27%60");
	assert_string_equal(esc(fs_esc_url_attr, "/é"), "/%C3%A9");
}

static void js_string_escapes_breakouts(void **state)
{
	(void)state;
	assert_string_equal(esc(fs_esc_js_string, "</script><script>"),
			    "\\u003C\\u002Fscript\\u003E\\u003Cscript\\u003E");
	assert_string_equal(esc(fs_esc_js_string, "a'b\"c\\d"),
			    "a\\u0027b\\u0022c\\\\d");
	assert_string_equal(esc(fs_esc_js_string, "\n\r\t"), "\\u000A\\u000D\\u0009");
	assert_string_equal(esc(fs_esc_js_string, "x\xE2\x80\xA8y\xE2\x80\xA9"),
			    "x\\u2028y\\u2029");
	assert_string_equal(esc(fs_esc_js_string, "`${x}`&="),
			    "\\u0060\\u0024{x}\\u0060\\u0026\\u003D");
	assert_string_equal(esc(fs_esc_js_string, "\xFF"), "\\uFFFD");
	assert_string_equal(esc(fs_esc_js_string, "é"), "é");
}

/* Every byte value, alone and around markup, in every context. */
static void every_byte_stays_safe_in_every_context(void **state)
{
	(void)state;
	char in[8];
	for (int c = 1; c < 256; c++) {
		snprintf(in, sizeof(in), "%c<%c'%c", c, c, c);
		assert_no_chars(esc(fs_esc_html, in), "<>\"'");
		assert_no_chars(esc(fs_esc_attr, in), "<>\"'`=");
		const char *u = esc(fs_esc_url_component, in);
		for (const char *p = u; *p; p++)
			assert_true(strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					   "abcdefghijklmnopqrstuvwxyz0123456789-._~%", *p));
		assert_no_chars(esc(fs_esc_url_attr, in), "<>\"'` \t\n\r");
		const char *j = esc(fs_esc_js_string, in);
		assert_no_chars(j, "<>\"'&`\n\r");
		for (const unsigned char *p = (const unsigned char *)j; *p; p++)
			assert_true(*p >= 0x20 && *p != 0x7F);
	}
}

static int valid_utf8(const unsigned char *p)
{
	while (*p) {
		int n = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3
			: (*p & 0xF8) == 0xF0 ? 4 : 0;
		if (!n || (n == 2 && *p < 0xC2))
			return 0;
		for (int i = 1; i < n; i++)
			if ((p[i] & 0xC0) != 0x80)
				return 0;
		p += n;
	}
	return 1;
}

/* Every 2-byte sequence: markup output is always valid UTF-8. */
static void every_byte_pair_gives_valid_utf8(void **state)
{
	(void)state;
	char in[3] = {0};
	for (int c = 1; c < 256; c++) {
		for (int d = 1; d < 256; d++) {
			in[0] = (char)c;
			in[1] = (char)d;
			assert_true(valid_utf8((const unsigned char *)esc(fs_esc_html, in)));
			assert_true(valid_utf8((const unsigned char *)esc(fs_esc_attr, in)));
			assert_true(valid_utf8((const unsigned char *)esc(fs_esc_js_string, in)));
		}
	}
}

static void utf8_validity_is_checked_within_length(void **state)
{
	(void)state;
	assert_true(fs_utf8_valid("", 0));
	assert_true(fs_utf8_valid("a\xC3\xA9\xE2\x80\xA8\xF0\x9F\x90\x9F", 10));
	assert_false(fs_utf8_valid("\xC3\xA9", 1));	/* cut inside a sequence */
	assert_false(fs_utf8_valid("\xF0\x9F\x90\x9F", 3));
	assert_false(fs_utf8_valid("a\0b", 3));
	assert_false(fs_utf8_valid("\xC0\xAF", 2));	/* overlong */
	assert_false(fs_utf8_valid("\xED\xA0\x80", 3));	/* surrogate */
	assert_false(fs_utf8_valid("\xF4\x90\x80\x80", 4)); /* > U+10FFFF */
	assert_false(fs_utf8_valid("\xFF", 1));
}

static void long_strings_are_escaped_whole(void **state)
{
	(void)state;
	fs_buf in = FS_BUF_INIT, out = FS_BUF_INIT;
	for (int i = 0; i < 20000; i++)
		assert_int_equal(fs_buf_puts(&in, "<a>"), 0);
	assert_int_equal(fs_esc_html(&out, in.data), 0);
	assert_int_equal(out.len, 20000 * strlen("&lt;a&gt;"));
	fs_buf_free(&in);
	fs_buf_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(html_escapes_markup_characters),
		cmocka_unit_test(html_replaces_invalid_utf8_and_controls),
		cmocka_unit_test(attr_also_escapes_backtick_and_equals),
		cmocka_unit_test(url_component_keeps_only_unreserved),
		cmocka_unit_test(url_attr_passes_safe_schemes_and_relative),
		cmocka_unit_test(url_attr_refuses_dangerous_schemes),
		cmocka_unit_test(url_attr_percent_encodes_breakout_characters),
		cmocka_unit_test(js_string_escapes_breakouts),
		cmocka_unit_test(every_byte_stays_safe_in_every_context),
		cmocka_unit_test(every_byte_pair_gives_valid_utf8),
		cmocka_unit_test(utf8_validity_is_checked_within_length),
		cmocka_unit_test(long_strings_are_escaped_whole),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	fs_buf_free(&esc_out);
	return rc;
}
