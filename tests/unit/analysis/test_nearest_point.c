/*
 * The benches' nearest-point matching (tests/unit/support/nearest_point.h,
 * h47h): the printouts of bench_cand_offsets, bench_centre_steps,
 * bench_lobe_profile, bench_paper_trace --vs-whole, bench_lattice_sites
 * and test_detect_walk depend on its three choices, each checked here:
 * the limit is strict, the lowest index wins among equally near points,
 * and it is not one to one (two true domes may take one centre, where
 * sem_match gives the second none). Also: points left out by use, and
 * true domes outside the scale region, are never matched.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "nearest_point.h"

static void limit_is_strict_and_ties_take_the_lowest_index(void **state)
{
	(void)state;
	/* (3, 4) and (-3, -4) are both 5 from the origin, (0, 6) is 6 */
	const double xs[] = {0, 3, -3}, ys[] = {6, 4, -4};
	assert_int_equal(nearest_point(xs, ys, NULL, 3, 0, 0, INFINITY), 1);
	assert_int_equal(nearest_point(xs, ys, NULL, 3, 0, 0, 5.000001), 1);
	assert_int_equal(nearest_point(xs, ys, NULL, 3, 0, 0, 5), -1);
	const int use[] = {1, 0, 1};
	assert_int_equal(nearest_point(xs, ys, use, 3, 0, 0, INFINITY), 2);
	const int none[] = {0, 0, 0};
	assert_int_equal(nearest_point(xs, ys, none, 3, 0, 0, INFINITY), -1);
	assert_int_equal(nearest_point(xs, ys, NULL, 0, 0, 0, INFINITY), -1);
}

static void a_tubercle_list_is_searched_alike(void **state)
{
	(void)state;
	fs_tubercle t[3] = {{0}};
	t[0].centroid_x = 10, t[0].centroid_y = 0;
	t[1].centroid_x = 0, t[1].centroid_y = 2;
	t[2].centroid_x = 0, t[2].centroid_y = -2;
	fs_tubercle_list l = {.items = t, .n = 3, .cap = 3};
	assert_int_equal(nearest_tubercle(&l, 0, 0, 3), 1);
	assert_int_equal(nearest_tubercle(&l, 0, 0, 2), -1);
	assert_int_equal(nearest_tubercle(&l, 9, 0, 3), 0);
}

static void each_inside_dome_takes_its_nearest_not_one_to_one(void **state)
{
	(void)state;
	/* pitch 20 (limit 0.3 x 20 = 6 px): domes 0 and 1 both nearest
	 * centre 0; dome 2 lies outside the scale region; dome 3 has no
	 * centre within 6 px */
	double tx[] = {0, 8, 40, 100}, ty[] = {0, 0, 0, 0}, td[] = {10, 10, 10, 10};
	int inside[] = {1, 1, 0, 1};
	sem_truth tr = {.n = 4, .x = tx, .y = ty, .d = td, .inside = inside, .pitch = 20};
	const double xs[] = {4, 40, 94.5}, ys[] = {0, 0, 0};
	long of[4];
	assert_int_equal(nearest_of_truth(&tr, xs, ys, NULL, 3, 0.3, of), 3);
	assert_int_equal(of[0], 0);
	assert_int_equal(of[1], 0);
	assert_int_equal(of[2], -1);
	assert_int_equal(of[3], 2);
	/* sem_match, one to one, leaves dome 1 without a centre */
	int mt[4];
	assert_int_equal(sem_match(&tr, xs, ys, 3, 6, NULL, mt), 0);
	assert_int_equal(mt[1], -1);
	/* 5.5 px from dome 3 is beyond 0.25 pitch (5 px) */
	assert_int_equal(nearest_of_truth(&tr, xs, ys, NULL, 3, 0.25, of), 2);
	assert_int_equal(of[3], -1);
	const int use[] = {0, 1, 1};
	assert_int_equal(nearest_of_truth(&tr, xs, ys, use, 3, 0.3, of), 1);
	assert_int_equal(of[0], -1);
	assert_int_equal(of[1], -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(limit_is_strict_and_ties_take_the_lowest_index),
		cmocka_unit_test(a_tubercle_list_is_searched_alike),
		cmocka_unit_test(each_inside_dome_takes_its_nearest_not_one_to_one),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
