/* Unit tests for query string, form body and cookie parsing (urlenc.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "web/urlenc.h"

static int parse(const char *s, fs_kvlist *l)
{
	return fs_urlenc_parse(s, strlen(s), l);
}

static void query_pairs_are_split_and_decoded(void **state)
{
	(void)state;
	fs_kvlist l;
	assert_int_equal(parse("a=1&b=x+y&c=%2F%41&d", &l), 0);
	assert_int_equal(l.n, 4);
	assert_string_equal(fs_kv_get(&l, "a"), "1");
	assert_string_equal(fs_kv_get(&l, "b"), "x y");
	assert_string_equal(fs_kv_get(&l, "c"), "/A");
	assert_string_equal(fs_kv_get(&l, "d"), "");
	assert_null(fs_kv_get(&l, "e"));
	fs_kvlist_free(&l);
	assert_null(l.items);
	assert_int_equal(l.n, 0);
}

static void keys_are_decoded_too(void **state)
{
	(void)state;
	fs_kvlist l;
	assert_int_equal(parse("my+key=1&k%3Dx=2", &l), 0);
	assert_string_equal(fs_kv_get(&l, "my key"), "1");
	assert_string_equal(fs_kv_get(&l, "k=x"), "2");
	fs_kvlist_free(&l);
}

static void empty_segments_are_skipped(void **state)
{
	(void)state;
	fs_kvlist l;
	assert_int_equal(parse("&&a=1&&", &l), 0);
	assert_int_equal(l.n, 1);
	fs_kvlist_free(&l);
	assert_int_equal(parse("", &l), 0);
	assert_int_equal(l.n, 0);
	fs_kvlist_free(&l);
	assert_int_equal(fs_urlenc_parse(NULL, 0, &l), 0);
	fs_kvlist_free(&l);
}

static void first_duplicate_wins(void **state)
{
	(void)state;
	fs_kvlist l;
	assert_int_equal(parse("a=1&a=2", &l), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(fs_kv_get(&l, "a"), "1");
	fs_kvlist_free(&l);
}

static void value_may_contain_nul_with_length(void **state)
{
	(void)state;
	fs_kvlist l;
	assert_int_equal(parse("v=a%00b", &l), 0);
	const fs_kv *kv = fs_kv_find(&l, "v");
	assert_non_null(kv);
	assert_int_equal(kv->value_len, 3);
	assert_memory_equal(kv->value, "a\0b", 4);
	fs_kvlist_free(&l);
}

static void malformed_escape_is_rejected(void **state)
{
	(void)state;
	fs_kvlist l;
	const char *bad[] = {"a=%", "a=%4", "a=%zz", "a=%4g&b=1", "%=1", "a=1&b=%G0"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_equal(parse(bad[i], &l), -1);
		assert_null(l.items);
		assert_int_equal(l.n, 0);
	}
}

static void nul_in_key_is_rejected(void **state)
{
	(void)state;
	fs_kvlist l;
	assert_int_equal(parse("a%00b=1", &l), -1);
	assert_int_equal(fs_urlenc_parse("a\0=1", 4, &l), -1);
	assert_int_equal(fs_urlenc_parse("a=1\0", 4, &l), -1);
	assert_int_equal(l.n, 0);
}

static void too_many_pairs_is_rejected(void **state)
{
	(void)state;
	fs_buf b = FS_BUF_INIT;
	fs_kvlist l;
	for (int i = 0; i < FS_KV_MAX_PAIRS; i++)
		assert_int_equal(fs_buf_printf(&b, "k%d=%d&", i, i), 0);
	assert_int_equal(fs_urlenc_parse(b.data, b.len, &l), 0);
	assert_int_equal(l.n, FS_KV_MAX_PAIRS);
	fs_kvlist_free(&l);
	assert_int_equal(fs_buf_puts(&b, "one=more"), 0);
	assert_int_equal(fs_urlenc_parse(b.data, b.len, &l), -1);
	assert_int_equal(l.n, 0);
	fs_buf_free(&b);
}

static void url_decode_plus_is_literal_in_paths(void **state)
{
	(void)state;
	fs_buf b = FS_BUF_INIT;
	assert_int_equal(fs_url_decode("a+b%20c", 7, 0, &b), 0);
	assert_string_equal(b.data, "a+b c");
	fs_buf_reset(&b);
	assert_int_equal(fs_url_decode("a+b", 3, 1, &b), 0);
	assert_string_equal(b.data, "a b");
	fs_buf_reset(&b);
	assert_int_equal(fs_url_decode("%e2%80%a8", 9, 0, &b), 0);
	assert_string_equal(b.data, "\xe2\x80\xa8");
	assert_int_equal(fs_url_decode("x%", 2, 0, &b), -1);
	fs_buf_free(&b);
}

static void cookies_are_split_and_trimmed(void **state)
{
	(void)state;
	fs_kvlist l;
	assert_int_equal(fs_cookie_parse("sid=abc123;  csrf = \"q w\" ;theme=dark", &l), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(fs_kv_get(&l, "sid"), "abc123");
	assert_string_equal(fs_kv_get(&l, "csrf"), "q w");
	assert_string_equal(fs_kv_get(&l, "theme"), "dark");
	fs_kvlist_free(&l);
}

static void cookie_values_are_not_percent_decoded(void **state)
{
	(void)state;
	fs_kvlist l;
	assert_int_equal(fs_cookie_parse("a=x%20y+z", &l), 0);
	assert_string_equal(fs_kv_get(&l, "a"), "x%20y+z");
	fs_kvlist_free(&l);
}

static void odd_cookie_items_are_skipped(void **state)
{
	(void)state;
	fs_kvlist l;
	assert_int_equal(fs_cookie_parse("junk; =v; ;a=1;b=; c=\"", &l), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(fs_kv_get(&l, "a"), "1");
	assert_string_equal(fs_kv_get(&l, "b"), "");
	assert_string_equal(fs_kv_get(&l, "c"), "\"");
	fs_kvlist_free(&l);
	assert_int_equal(fs_cookie_parse("", &l), 0);
	assert_int_equal(l.n, 0);
	assert_int_equal(fs_cookie_parse(NULL, &l), -1);
}

static void kv_get_tolerates_null(void **state)
{
	(void)state;
	assert_null(fs_kv_get(NULL, "a"));
	fs_kvlist_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(query_pairs_are_split_and_decoded),
		cmocka_unit_test(keys_are_decoded_too),
		cmocka_unit_test(empty_segments_are_skipped),
		cmocka_unit_test(first_duplicate_wins),
		cmocka_unit_test(value_may_contain_nul_with_length),
		cmocka_unit_test(malformed_escape_is_rejected),
		cmocka_unit_test(nul_in_key_is_rejected),
		cmocka_unit_test(too_many_pairs_is_rejected),
		cmocka_unit_test(url_decode_plus_is_literal_in_paths),
		cmocka_unit_test(cookies_are_split_and_trimmed),
		cmocka_unit_test(cookie_values_are_not_percent_decoded),
		cmocka_unit_test(odd_cookie_items_are_skipped),
		cmocka_unit_test(kv_get_tolerates_null),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
