/*
 * The centre between the template fit's trial centres
 * (dome_centre_fit.h): the vertex of the quadratic through the residual
 * at 3 x 3 trial centres. A residual that is a bowl gives its minimum
 * exactly (wherever in the square it lies, whatever the bowl's tilt);
 * no bowl (a saddle, a ridge, a minimum outside the square) leaves the
 * middle centre. How it serves a real dome's patch is test_dome_base_fit
 * (centre_between_grid_points) and test_sem_accuracy.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "analysis/dome_centre_fit.h"

/* r(u, v) = a (u - u0)^2 + b (v - v0)^2 + c (u - u0)(v - v0) + r0 at
 * the 3 x 3 trial centres */
static void bowl(double a, double b, double c, double u0, double v0, double r0, double s[9])
{
	for (int j = -1; j <= 1; j++)
		for (int i = -1; i <= 1; i++) {
			double du = i - u0, dv = j - v0;
			s[3 * (j + 1) + (i + 1)] = a * du * du + b * dv * dv + c * du * dv + r0;
		}
}

static void bowl_minimum_found(void **state)
{
	(void)state;
	static const double cases[][5] = {
		{1, 1, 0, 0.3, -0.4}, {2, 0.5, 0.6, -0.9, 0.2}, {0.01, 0.03, -0.01, 0.55, 0.95}, {5, 5, 0, 0, 0},
	};
	for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++) {
		double s[9], u, v;
		bowl(cases[q][0], cases[q][1], cases[q][2], cases[q][3], cases[q][4], 0.7, s);
		assert_int_equal(fs_dome_centre_vertex(s, &u, &v), 1);
		assert_true(fabs(u - cases[q][3]) < 1e-9);
		assert_true(fabs(v - cases[q][4]) < 1e-9);
	}
}

static void no_bowl_keeps_the_middle(void **state)
{
	(void)state;
	double s[9], u = 9, v = 9;
	/* a saddle */
	bowl(1, -1, 0, 0.2, 0.2, 0.5, s);
	assert_int_equal(fs_dome_centre_vertex(s, &u, &v), 0);
	assert_true(u == 0 && v == 0);
	/* a ridge along v (no curvature there) */
	bowl(1, 0, 0, 0.2, 0, 0.5, s);
	assert_int_equal(fs_dome_centre_vertex(s, &u, &v), 0);
	/* a bowl whose minimum lies beyond the square: the search would
	 * have moved there; the middle stands */
	bowl(1, 1, 0, 1.6, 0, 0.5, s);
	assert_int_equal(fs_dome_centre_vertex(s, &u, &v), 0);
	assert_true(u == 0 && v == 0);
	/* a cap (maximum) */
	bowl(-1, -1, 0, 0, 0, 0.5, s);
	assert_int_equal(fs_dome_centre_vertex(s, &u, &v), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bowl_minimum_found),
		cmocka_unit_test(no_bowl_keeps_the_middle),
	};
	return cmocka_run_group_tests_name("dome centre fit", tests, NULL, NULL);
}
