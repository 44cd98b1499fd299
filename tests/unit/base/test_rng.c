/*
 * The tests' reproducible random numbers (tests/unit/support/test_rng.h):
 * the draws the tests were written against (the first values from the
 * seeds test_num_format and test_graph use, and the 32-bit step's from 1,
 * computed apart from this code), and uniform doubles in [0, 1) with the mean and variance of the
 * uniform distribution.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "test_rng.h"

static void the_sequences_are_the_tests_own(void **state)
{
	(void)state;
	uint64_t s = 0x9e3779b97f4a7c15ull;
	assert_true(test_xs64(&s) == 0x0d83b3e29a21487aull);
	assert_true(test_xs64(&s) == 0x54c44c79f1fe9d67ull);
	assert_true(test_xs64(&s) == 0xa845f342007a0e78ull);
	uint64_t t = 3;
	assert_true(test_lcg_unit(&t) == 0.11321020286155192);
	assert_true(test_lcg_unit(&t) == 0.32482480805757574);
	assert_true(test_lcg_unit(&t) == 0.7344315366398247);
	unsigned u = 1;
	assert_true(test_lcg32(&u) == 4310654u);
	assert_true(test_lcg32(&u) == 9862832u);
	assert_true(test_lcg32(&u) == 2589156u);
	/* the unit draw is the next value's top 53 bits (24 for lcg32) */
	uint64_t a = 12345, b = 12345;
	assert_true(test_xs64_unit(&a) == (double)(test_xs64(&b) >> 11) / 9007199254740992.0);
	assert_true(a == b);
	unsigned c = 1;
	assert_true(test_lcg32_unit(&c) == 0.2569350004196167);
	assert_true(c == 1103527590u);
}

/* n draws of unit: all in [0, 1), mean 1/2 and variance 1/12 within four
 * standard errors. */
static void check_uniform(double (*unit)(uint64_t *), uint64_t seed)
{
	enum { N = 1 << 16 };
	double sum = 0, sum2 = 0;
	for (int i = 0; i < N; i++) {
		double u = unit(&seed);
		assert_true(u >= 0 && u < 1);
		sum += u;
		sum2 += u * u;
	}
	double mean = sum / N, var = sum2 / N - mean * mean;
	assert_true(fabs(mean - 0.5) < 4 * sqrt(1.0 / 12 / N));
	/* the variance of u's square is 1/180 over n */
	assert_true(fabs(var - 1.0 / 12) < 4 * sqrt(1.0 / 180 / N));
}

/* test_lcg32_unit on check_uniform's state (its low 32 bits) */
static double lcg32_unit_wide(uint64_t *s)
{
	unsigned u = (unsigned)*s;
	double d = test_lcg32_unit(&u);
	*s = u;
	return d;
}

static void the_unit_draws_are_uniform(void **state)
{
	(void)state;
	check_uniform(test_xs64_unit, 0x2545f4914f6cdd1dull);
	check_uniform(test_lcg_unit, 77);
	check_uniform(lcg32_unit_wide, 77);
}

/* test_xs64_gauss: two unit draws through Box-Muller, and over many draws
 * mean 0 and variance 1 within four standard errors. */
static void the_gauss_draws_are_standard_normal(void **state)
{
	(void)state;
	uint64_t a = 5, b = 5;
	double u = test_xs64_unit(&b), v = test_xs64_unit(&b);
	assert_true(test_xs64_gauss(&a) == sqrt(-2 * log(u)) * cos(2 * M_PI * v));
	assert_true(a == b);
	enum { N = 1 << 16 };
	double sum = 0, sum2 = 0;
	for (int i = 0; i < N; i++) {
		double g = test_xs64_gauss(&a);
		sum += g;
		sum2 += g * g;
	}
	double mean = sum / N, var = sum2 / N - mean * mean;
	assert_true(fabs(mean) < 4 * sqrt(1.0 / N));
	/* the variance of g's square is 2 over n */
	assert_true(fabs(var - 1) < 4 * sqrt(2.0 / N));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_sequences_are_the_tests_own),
		cmocka_unit_test(the_unit_draws_are_uniform),
		cmocka_unit_test(the_gauss_draws_are_standard_normal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
