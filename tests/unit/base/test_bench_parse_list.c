/*
 * The benches' comma-separated argument lists (tests/unit/support/
 * bench_support.h: bench_parse_list, bench_parse_ints, bench_parse_seeds;
 * h49g): what each reads and what each refuses, since a bench that read a
 * bad list quietly would print a table for seeds nobody asked for.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench_support.h"

static void numbers_read_in_order(void **state)
{
	(void)state;
	double v[4] = {9, 9, 9, 9};
	assert_int_equal(bench_parse_list("-1e-6,0,1e-6", v, 4), 3);
	assert_true(v[0] == -1e-6 && v[1] == 0 && v[2] == 1e-6);
	assert_true(v[3] == 9);
	assert_int_equal(bench_parse_list("0.5", v, 1), 1);
	assert_true(v[0] == 0.5);
	assert_int_equal(bench_parse_list("", v, 4), 0);
	/* a trailing comma ends the list */
	assert_int_equal(bench_parse_list("1,2,", v, 4), 2);
}

static void bad_lists_refused(void **state)
{
	(void)state;
	double v[3];
	assert_int_equal(bench_parse_list("1,2,3,4", v, 3), -1); /* too long, not cut short */
	assert_int_equal(bench_parse_list("4000x", v, 3), -1);
	assert_int_equal(bench_parse_list("0;4000", v, 3), -1);
	assert_int_equal(bench_parse_list("1,,2", v, 3), -1);
	assert_int_equal(bench_parse_list("a", v, 3), -1);
}

static void whole_numbers_within_their_range(void **state)
{
	(void)state;
	int k[4];
	assert_int_equal(bench_parse_ints("0,63,7", 0, 63, k, 4), 3);
	assert_true(k[0] == 0 && k[1] == 63 && k[2] == 7);
	assert_int_equal(bench_parse_ints("64", 0, 63, k, 4), -1);
	assert_int_equal(bench_parse_ints("-1", 0, 63, k, 4), -1);
	assert_int_equal(bench_parse_ints("1.5", 0, 63, k, 4), -1);
	unsigned s[8];
	assert_int_equal(bench_parse_seeds("0,4000,8000,12000,16000,20000,24000,28000", s, 8), 8);
	assert_true(s[0] == 0 && s[1] == 4000 && s[7] == 28000);
	assert_int_equal(bench_parse_seeds("4294967295", s, 8), 1);
	assert_true(s[0] == 4294967295u);
	assert_int_equal(bench_parse_seeds("4294967296", s, 8), -1);
	assert_int_equal(bench_parse_seeds("-4000", s, 8), -1);
	assert_int_equal(bench_parse_seeds("0,4000", s, 1), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers_read_in_order),
		cmocka_unit_test(bad_lists_refused),
		cmocka_unit_test(whole_numbers_within_their_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
