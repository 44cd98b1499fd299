/* Unit tests for num_format.h: fs_fmt_g6 writes what snprintf's "%.6g"
 * writes, fs_fmt_g17 what "%.17g" writes, fs_fmt_int what "%lld" writes, for hand-picked and many random
 * values (the CSV exports must not change by a character). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/num_format.h"
#include "test_rng.h"

static void check_g6(double v)
{
	char want[64], got[FS_FMT_G6_MAX];
	int wn = snprintf(want, sizeof want, "%.6g", v);
	int gn = fs_fmt_g6(got, v);
	if (strcmp(want, got) || wn != gn)
		fail_msg("%.17g: snprintf \"%s\", fs_fmt_g6 \"%s\" (%d)", v, want, got, gn);
}

/* xorshift64* (test_rng.h): the same sequence on every run */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	return test_xs64(&rnd_state);
}

static double unit(void)
{
	return test_xs64_unit(&rnd_state);
}

static void g6_matches_printf_on_chosen_values(void **state)
{
	(void)state;
	static const double v[] = {
		0.0, 1.0, 0.5, 2.5, 10, 100000, 123456, 999999, 999999.4, 999999.5, 999999.6, 1e6, 1e7,
		1234567, 1e15, 1e300, 1e-4, 0.0001, 0.00009999995, 0.000099999949, 0.00012345649999,
		0.000123456, 0.00123456, 0.0123456, 0.123456, 1.23456, 12.3456, 123.456, 1234.56, 12345.6,
		1.000005, 1.0000049999, 1.0000050001, 12345.65, 12345.75, 99999.95, 99999.949999, 9.9999950,
		0.1, 0.2, 0.3, 1.5, 3.14159265358979, 2.718281828, 4.94e-324, 2.2250738585072014e-308,
		0.000100000, 1e-5, 1e-3, 0.999999, 0.9999995, 0.99999949, 7.0000005, 100000.5, 100001.5,
		12.0, 12.5, 12.25, 12.125, 12.0625, 1.0 / 3, 2.0 / 3, 1e-4 * (1 + 1e-15),
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		check_g6(v[i]);
		check_g6(-v[i]);
		check_g6(nextafter(v[i], 0));
		check_g6(nextafter(v[i], INFINITY));
	}
	check_g6(-0.0);
	check_g6(NAN);
	check_g6(INFINITY);
	check_g6(-INFINITY);
}

static void g6_matches_printf_on_random_values(void **state)
{
	(void)state;
	for (int i = 0; i < 150000; i++) {
		/* any magnitude from 1e-7 to 1e8, any mantissa */
		double m = unit() * 15 - 7;
		check_g6(pow(10, m) * (rnd() & 1 ? -1 : 1));
		/* pixel-like values with few decimals, binary fractions (exact ties
		 * at the sixth digit), and values near a rounding tie */
		check_g6((double)(rnd() % 100000000) / 1000);
		check_g6((double)(rnd() % 100000000) / 1024);
		double d = (double)(100000 + rnd() % 900000) + 0.5;
		int e = (int)(rnd() % 10);
		double t = d / pow(10, e);
		check_g6(t);
		check_g6(nextafter(t, 0));
		check_g6(nextafter(t, INFINITY));
		/* raw bit patterns: every exponent */
		uint64_t bits = rnd();
		double r;
		memcpy(&r, &bits, sizeof r);
		check_g6(r);
	}
}

static void check_g17(double v)
{
	char want[64], got[FS_FMT_G17_MAX];
	int wn = snprintf(want, sizeof want, "%.17g", v);
	int gn = fs_fmt_g17(got, v);
	if (strcmp(want, got) || wn != gn)
		fail_msg("%a: snprintf \"%s\", fs_fmt_g17 \"%s\" (%d)", v, want, got, gn);
}

static void g17_matches_printf_on_chosen_values(void **state)
{
	(void)state;
	static const double v[] = {
		0.0, 1.0, 0.5, 2.5, 10, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 3.14159265358979, 1e-4, 1e-5, 0.001,
		0.00099999999999999999, 9.9999999999999995e-5, 1e16, 1e17, 99999999999999999.0, 9007199254740993.0,
		9007199254740992.0, 12345678901234567.0, 1e15, 123.456, 4095.5, 4096.25, 0.999999999999999,
		0.99999999999999999, 9.99999999999999999, 1.00000000000000005, 5e-324, 1e300, 2.2250738585072014e-308,
		7.0710678118654752, 1.4142135623730951, 0.70710678118654757, 6.2831853071795862,
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		check_g17(v[i]);
		check_g17(-v[i]);
		check_g17(nextafter(v[i], 0));
		check_g17(nextafter(v[i], INFINITY));
	}
	check_g17(-0.0);
	check_g17(NAN);
	check_g17(INFINITY);
	check_g17(-INFINITY);
	/* every power of two and its neighbours across the fast path's range */
	for (int e = -20; e <= 60; e++) {
		check_g17(ldexp(1, e));
		check_g17(nextafter(ldexp(1, e), 0));
		check_g17(nextafter(ldexp(1, e), INFINITY));
	}
	/* every power of ten and its neighbours (down to the exponent
	 * notation's fast path and past it: 9.9999999999999995e-07 is the
	 * double below 1e-6 whose rounding carries into another digit) */
	for (int e = -42; e <= 18; e++) {
		double p = pow(10, e);
		check_g17(p);
		check_g17(nextafter(p, 0));
		check_g17(nextafter(p, INFINITY));
	}
}

static void g17_matches_printf_on_random_values(void **state)
{
	(void)state;
	for (int i = 0; i < 150000; i++) {
		/* any magnitude from 1e-6 to 1e18, any mantissa */
		double m = unit() * 24 - 6;
		check_g17(pow(10, m) * (rnd() & 1 ? -1 : 1));
		/* what the journal holds: pixel coordinates, radii, angles,
		 * ratios; binary fractions (exact ties further down) */
		check_g17(unit() * 10000);
		check_g17(unit() * 3.2 - 1.6);
		check_g17(unit());
		check_g17((double)(rnd() % 100000000) / 1024);
		check_g17((double)(rnd() % 1000000000000ull) / 65536);
		check_g17(ldexp((double)(rnd() >> 11), -(int)(rnd() % 70)));
		uint64_t bits = rnd();
		double r;
		memcpy(&r, &bits, sizeof r);
		check_g17(r);
		/* the exponent notation's fast path, 1e-39 .. 1e-4, and a round
		 * tubercle's orientation: rounding noise of a few 1e-17 (every
		 * 4th turn: the test's time) */
		if (i % 4)
			continue;
		check_g17(pow(10, unit() * 36 - 40) * (rnd() & 1 ? -1 : 1));
		check_g17(sin(M_PI * (double)(rnd() % 64)) * (unit() + 0.5));
		check_g17(ldexp((double)(rnd() >> 11), -53 - (int)(rnd() % 80)));
	}
}

/* fs_digits17: printf's "%.16e" digits and exponent wherever it answers. */
static void check_digits17(double v)
{
	char e[48], dig[17];
	int x;
	if (fs_digits17(v, dig, &x))
		return; /* printf's to say: the caller asks it */
	snprintf(e, sizeof e, "%.16e", v);
	const char *p = e + (e[0] == '-');
	char want[17];
	int n = 0;
	for (; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9')
			want[n++] = *p;
	if (n != 17 || memcmp(want, dig, 17) || atoi(strchr(e, 'e') + 1) != x)
		fail_msg("%a: %%.16e \"%s\", fs_digits17 \"%.17s\" e%d", v, e, dig, x);
}

static void digits17_match_printf(void **state)
{
	(void)state;
	int answered = 0;
	for (int i = 0; i < 40000; i++) {
		double v = pow(10, unit() * 55 - 39) * (rnd() & 1 ? -1 : 1);
		char dig[17];
		int x;
		answered += !fs_digits17(v, dig, &x);
		check_digits17(v);
		check_digits17(unit() * 10000);
		check_digits17(sin(M_PI * (double)(rnd() % 64)));
	}
	/* the fast path takes (nearly) every value of its range */
	assert_true(answered > 39000);
	check_digits17(9.9999999999999995e-07);
	check_digits17(0.1);
	check_digits17(1e16);
}

static void int_matches_printf(void **state)
{
	(void)state;
	static const long long v[] = {0, 1, -1, 9, 10, -10, 99, 100, 123456789, -987654321, INT_MAX, INT_MIN,
				      LLONG_MAX, LLONG_MIN, LLONG_MIN + 1};
	char want[32], got[24];
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		snprintf(want, sizeof want, "%lld", v[i]);
		assert_int_equal(fs_fmt_int(got, v[i]), (int)strlen(want));
		assert_string_equal(got, want);
	}
	for (int i = 0; i < 100000; i++) {
		long long x = (long long)rnd() >> (rnd() % 64);
		snprintf(want, sizeof want, "%lld", x);
		fs_fmt_int(got, x);
		assert_string_equal(got, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(g6_matches_printf_on_chosen_values),
		cmocka_unit_test(g6_matches_printf_on_random_values),
		cmocka_unit_test(g17_matches_printf_on_chosen_values),
		cmocka_unit_test(g17_matches_printf_on_random_values),
		cmocka_unit_test(digits17_match_printf),
		cmocka_unit_test(int_matches_printf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
