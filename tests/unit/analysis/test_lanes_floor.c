/*
 * The four-lane floor (fs_floor4d, lanes_avx.h) gives the two-lane one's
 * values (fs_floor2d, lanes.h) to the bit, the sign of a zero included:
 * the rays' quads (dome_measure.c) take it, their pair and scalar twins
 * the two-lane one and floor_int, and test_avx_same_bits holds the whole
 * rule to those twins' bits.
 *
 * Why: since h49f it is roundpd's floor plus +0.0 instead of the
 * truncation less one below it. roundpd's floor of -0.0 is -0.0 where the
 * truncation gives +0.0; a -0.0 there would make the fraction u - floor(u)
 * +0.0 instead of -0.0 and could part a sample's bits from the twins'.
 * Checked to fail: without the + 0.0 test_floor4d_zeros fails on -0.0.
 * Cost: a few microseconds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analysis/lanes.h"
#include "analysis/lanes_avx.h"
#include "base/cpu_features.h"

#ifdef FS_LANES_AVX
static uint64_t bits(double v)
{
	uint64_t b;
	memcpy(&b, &v, sizeof b);
	return b;
}

/* fs_floor4d of four values against fs_floor2d of the same, lane by lane */
__attribute__((target("avx"))) static void floor4(const double *u, double *out)
{
	v4d v = {u[0], u[1], u[2], u[3]};
	v4d f = fs_floor4d(v);
	memcpy(out, &f, sizeof f);
}

static void check_four(const double *u)
{
	double f4[4];
	floor4(u, f4);
	for (int i = 0; i < 4; i += 2) {
		v2d f2 = fs_floor2d((v2d){u[i], u[i + 1]});
		for (int l = 0; l < 2; l++) {
			if (bits(f4[i + l]) != bits(f2[l]))
				fail_msg("floor of %a: four lanes %a, two lanes %a", u[i + l], f4[i + l], f2[l]);
			/* and the value C's floor gives, a zero always +0.0 */
			double want = floor(u[i + l]) + 0.0;
			assert_true(bits(f4[i + l]) == bits(want));
		}
	}
}
#endif

/* the zeros and the values either side of them */
static void test_floor4d_zeros(void **state)
{
	(void)state;
#ifdef FS_LANES_AVX
	if (!fs_cpu_has_avx())
		skip();
	const double u[][4] = {
		{-0.0, 0.0, -0.0, -0.0},
		{-1e-300, 1e-300, -0.5, 0.5},
		{-0.9999999999999999, 0.9999999999999999, -1.0, 1.0},
	};
	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
		check_four(u[i]);
#else
	skip();
#endif
}

/* whole numbers, halves and the neighbours of whole numbers up to the
 * samplers' range (|u| < 2^31) */
static void test_floor4d_range(void **state)
{
	(void)state;
#ifdef FS_LANES_AVX
	if (!fs_cpu_has_avx())
		skip();
	const double big = 2147483646.0;
	const double u[][4] = {
		{-3.0, 3.0, -2.5, 2.5},
		{nextafter(-7.0, 0), nextafter(-7.0, -8), nextafter(7.0, 8), nextafter(7.0, 0)},
		{-big, big, -big + 0.5, big + 0.5},
		{-1234.75, 1234.75, -0.25, 2047.999},
	};
	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
		check_four(u[i]);
	/* a sweep across the pixels a ray's quads meet */
	for (int k = -4000; k < 4000; k++) {
		double v[4] = {k * 0.37, -k * 0.37, k / 8.0, -k / 8.0};
		check_four(v);
	}
#else
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_floor4d_zeros),
		cmocka_unit_test(test_floor4d_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
