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

/* Six of the nine (the cross and one corner) determine the quadratic:
 * a bowl's minimum comes back exactly whichever corner is read, and the
 * other three corners are not looked at (NAN there). */
static void six_points_find_the_bowl(void **state)
{
	(void)state;
	static const double cases[][5] = {
		{1, 1, 0, 0.3, -0.4}, {2, 0.5, 0.6, -0.9, 0.2}, {0.01, 0.03, -0.01, 0.55, 0.95}, {5, 5, 0, 0, 0},
		{1, 2, -1.2, 0.4, 0.4},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
		for (int p = -1; p <= 1; p += 2)
			for (int q = -1; q <= 1; q += 2) {
				double s[9], u, v;
				bowl(cases[c][0], cases[c][1], cases[c][2], cases[c][3], cases[c][4], 0.7, s);
				for (int j = -1; j <= 1; j += 2)
					for (int i = -1; i <= 1; i += 2)
						if (i != p || j != q)
							s[3 * (j + 1) + (i + 1)] = NAN;
				assert_int_equal(fs_dome_centre_vertex6(s, p, q, &u, &v), 1);
				assert_true(fabs(u - cases[c][3]) < 1e-9);
				assert_true(fabs(v - cases[c][4]) < 1e-9);
			}
}

/* As the nine: a saddle, a ridge or a minimum beyond the square leaves
 * the middle; so does a saddle whose axes' curvatures alone look like a
 * bowl, which only the corner shows. */
static void six_points_no_bowl_keeps_the_middle(void **state)
{
	(void)state;
	double s[9], u = 9, v = 9;
	bowl(1, -1, 0, 0.2, 0.2, 0.5, s);
	assert_int_equal(fs_dome_centre_vertex6(s, 1, 1, &u, &v), 0);
	assert_true(u == 0 && v == 0);
	bowl(1, 0, 0, 0.2, 0, 0.5, s);
	assert_int_equal(fs_dome_centre_vertex6(s, -1, 1, &u, &v), 0);
	bowl(1, 1, 0, 1.6, 0, 0.5, s);
	assert_int_equal(fs_dome_centre_vertex6(s, 1, -1, &u, &v), 0);
	/* cross term 3 against curvatures 1 */
	bowl(1, 1, 3, 0.1, 0.1, 0.5, s);
	assert_int_equal(fs_dome_centre_vertex6(s, -1, -1, &u, &v), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bowl_minimum_found),
		cmocka_unit_test(no_bowl_keeps_the_middle),
		cmocka_unit_test(six_points_find_the_bowl),
		cmocka_unit_test(six_points_no_bowl_keeps_the_middle),
	};
	return cmocka_run_group_tests_name("dome centre fit", tests, NULL, NULL);
}
