/* fs_parabola_vertex (analysis/parabola_vertex.h): a peak's offset from
 * three samples, 0 where the middle one is no strict maximum - also for
 * three samples on one line, whose computed curvature is only the
 * rounding's (the dome rule's step magnitudes along a ray lie on a line
 * inside one pixel's cell; their rounding sent a ray's radius half a step
 * either way, and a crop and the whole image then read different
 * radii). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "analysis/parabola_vertex.h"

#include "test_rng.h"

/* The vertex of a parabola sampled at -1, 0, 1, and the clamping. */
static void test_peak(void **state)
{
	(void)state;
	/* y = -(x - 0.2)^2: vertex at 0.2 */
	assert_true(fabs(fs_parabola_vertex(-1.44, -0.04, -0.64) - 0.2) < 1e-12);
	assert_true(fabs(fs_parabola_vertex(1, 2, 1.5) - 1.0 / 6) < 1e-12);
	assert_true(fabs(fs_parabola_vertex(1.5, 2, 1) + 1.0 / 6) < 1e-12);
	/* a symmetric peak */
	assert_true(fs_parabola_vertex(3, 5, 3) == 0);
	/* no strict maximum: a valley, a plateau, a NaN */
	assert_true(fs_parabola_vertex(2, 1, 2) == 0);
	assert_true(fs_parabola_vertex(1, 1, 1) == 0);
	assert_true(fs_parabola_vertex(NAN, 1, 0) == 0);
	assert_true(fs_parabola_vertex(0, NAN, 0) == 0);
}

/* The samples of one ray that read a radius 3.325 or 3.5 px by the
 * rounding of their curvature (test_detect_tiled's pitch-14 domes under
 * the dome rule, a crop and the whole image), and 20,000 other triples
 * on lines of every slope and level: no vertex, offset 0. */
static void test_collinear(void **state)
{
	(void)state;
	assert_true(fs_parabola_vertex(0.22828624742941198, 0.2102096905084066, 0.19213313358740153) == 0);
	assert_true(fs_parabola_vertex(0.22828624742941611, 0.21020969050841087, 0.19213313358740555) == 0);
	unsigned s = 12345;
	int nonzero = 0;
	for (int i = 0; i < 20000; i++) {
		double level = test_lcg32_unit(&s) * 3;
		double slope = (test_lcg32_unit(&s) - 0.5) * 0.2;
		/* as the rays' samples are made: each value from its own
		 * position, so the rounding differs per sample */
		double x0 = 7.0 + 0.35 * (i % 11);
		double a = level + slope * x0, b = level + slope * (x0 + 0.35), c = level + slope * (x0 + 0.7);
		nonzero += fs_parabola_vertex(a, b, c) != 0;
	}
	assert_int_equal(nonzero, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peak),
		cmocka_unit_test(test_collinear),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
