/*
 * The near-centre index (lib/analysis/near_pairs.h): fs_near_nearest is
 * the minimum of hypot over all pairs to the bit. Since h49o it passes
 * a centre whose gap in y alone exceeds the best so far without its
 * hypot; these cases hold it to the brute-force minimum on a lattice
 * (where the x-band crosses the whole image), on jittered and crowded
 * centres with repeated x and y, and on ties.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/near_pairs.h"

#include "test_rng.h"

/* the minimum over every other centre, as the callers once made it */
static double brute_nearest(const double *xs, const double *ys, size_t n, size_t i)
{
	double best = INFINITY;
	for (size_t j = 0; j < n; j++)
		if (j != i)
			best = fmin(best, hypot(xs[i] - xs[j], ys[i] - ys[j]));
	return best;
}

static void same_bits_as_all_pairs(const double *xs, const double *ys, size_t n)
{
	fs_near_index ix;
	assert_int_equal(fs_near_index_build(&ix, xs, ys, n), 0);
	for (size_t i = 0; i < n; i++) {
		double a = fs_near_nearest(&ix, i), b = brute_nearest(xs, ys, n, i);
		assert_memory_equal(&a, &b, sizeof a);
	}
	fs_near_index_free(&ix);
}

static void a_lattice_to_the_bit(void **state)
{
	(void)state;
	/* a hexagonal lattice of pitch 37.3 px turned by 0.3 rad, jittered by
	 * up to 0.4 px: the columns' x-bands hold every row */
	enum { NX = 40, NY = 30 };
	static double xs[NX * NY], ys[NX * NY];
	uint64_t s = 1;
	double p = 37.3, c = cos(0.3), sn = sin(0.3);
	size_t n = 0;
	for (int r = 0; r < NY; r++)
		for (int q = 0; q < NX; q++) {
			double u = (q + 0.5 * (r & 1)) * p, v = r * p * sqrt(3) / 2;
			xs[n] = u * c - v * sn + 0.8 * (test_lcg_unit(&s) - 0.5);
			ys[n] = u * sn + v * c + 0.8 * (test_lcg_unit(&s) - 0.5);
			n++;
		}
	same_bits_as_all_pairs(xs, ys, n);
}

static void columns_rows_and_ties_to_the_bit(void **state)
{
	(void)state;
	/* centres on a few x values and a few y values (equal gaps in x or
	 * y alone, pairs at the same distance), some repeated exactly */
	enum { N = 600 };
	static double xs[N], ys[N];
	uint64_t s = 7;
	for (size_t i = 0; i < N; i++) {
		xs[i] = floor(test_lcg_unit(&s) * 12) * 3.5;
		ys[i] = i % 3 ? floor(test_lcg_unit(&s) * 40) * 2.25 : test_lcg_unit(&s) * 90;
	}
	same_bits_as_all_pairs(xs, ys, N);
	/* and crowded: everything within a 2 px square */
	for (size_t i = 0; i < N; i++) {
		xs[i] = 2 * test_lcg_unit(&s);
		ys[i] = 2 * test_lcg_unit(&s);
	}
	same_bits_as_all_pairs(xs, ys, N);
}

static void a_single_centre_has_none(void **state)
{
	(void)state;
	double x = 1, y = 2;
	fs_near_index ix;
	assert_int_equal(fs_near_index_build(&ix, &x, &y, 1), 0);
	assert_true(isinf(fs_near_nearest(&ix, 0)));
	fs_near_index_free(&ix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_lattice_to_the_bit),
		cmocka_unit_test(columns_rows_and_ties_to_the_bit),
		cmocka_unit_test(a_single_centre_has_none),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
