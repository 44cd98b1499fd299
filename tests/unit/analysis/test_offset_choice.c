/*
 * The dome rule's offset choice made continuous (dome_fit.h,
 * fs_dome_fit_set_offset_choice; h48a): the choice between basins by
 * fs_dome_fit_offset_pick, and a corner scene whose formation fit put its
 * offset in one basin or the other under a 1e-6 px move of the candidates
 * (h47k: corner 30 of the test seeds, 0.28 px against 1.13 px on either
 * side of the offset's applied bar, mean D +1.4 % against +19.4 %) reads
 * the same either side of that move with the choice on, and so it does
 * with the mean patch's centres a stable sample (fs_dome_fit_set_offset_choice's
 * FS_DOME_FIT_STABLE_SAMPLE); with its cells of the rounded pitch
 * (FS_DOME_FIT_SAMPLE_ROUND, h48m) a 0.1 % move of the pitch keeps the
 * sample.
 *
 * Since h49m the dome reading snaps a start a rounding outside the frame
 * onto its edge (fs_dome_set_frame_snap, on by default), which by itself
 * keeps corner 14's first pass and D the same at every nudge: the test
 * that its picks over the whole neighbourhoods steady it now shows the
 * scene moving with the snap turned off, and a new one that it is steady
 * with the snap alone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "analysis/detect_methods.h"
#include "analysis/dome_fit.h"
#include "analysis/dome_measure.h"
#include "sem_scene.h"

/* two minima whose sums tie within the bar give the shorter offset
 * whichever is lower; one lower by more than it is taken however far */
static void pick_shorter_within_the_tie(void **state)
{
	(void)state;
	double x[3] = {0.2, 0.8, -1.6}, y[3] = {-0.2, -0.8, 1.6};
	double near_low[3] = {0.00194, 0.00204, 0.0055}, far_low[3] = {0.00204, 0.00194, 0.0055};
	assert_int_equal(fs_dome_fit_offset_pick(near_low, x, y, 3, FS_DOME_FIT_OFFSET_TIE), 0);
	assert_int_equal(fs_dome_fit_offset_pick(far_low, x, y, 3, FS_DOME_FIT_OFFSET_TIE), 0);
	double far_much_lower[3] = {0.00240, 0.00187, 0.0055};
	assert_int_equal(fs_dome_fit_offset_pick(far_much_lower, x, y, 3, FS_DOME_FIT_OFFSET_TIE), 1);
	/* with no tie the least sum, as the wide grid's own choice */
	assert_int_equal(fs_dome_fit_offset_pick(far_low, x, y, 3, 0), 1);
	double none[2] = {INFINITY, NAN};
	assert_int_equal(fs_dome_fit_offset_pick(none, x, y, 2, FS_DOME_FIT_OFFSET_TIE), -1);
}

/* a corner scene's mean D at candidate nudges -1e-6, 0, +1e-6 px */
static void corner_d(int scene, double d[3])
{
	static const double NUDGE[3] = {-1e-6, 0, 1e-6};
	for (int k = 0; k < 3; k++) {
		sem_match_errors e;
		double was = fs_detect_set_cand_nudge(NUDGE[k]);
		assert_int_equal(sem_corner_dome_errors(scene, &e, NULL), 0);
		fs_detect_set_cand_nudge(was);
		assert_true(e.n_measured > 0 && e.sum_truth > 0);
		d[k] = 100 * (e.sum_d / e.sum_truth - 1);
	}
	printf("corner %d: mean D %+.2f / %+.2f / %+.2f %% at nudges -1e-6 / 0 / +1e-6\n", scene, d[0], d[1], d[2]);
}

/* the same basin at each nudge: D within a rounding's reach of the
 * un-nudged reading, and within issue 13's 3 % (main's code: +19.6 %
 * and +19.4 % at -1e-6 and +1e-6) */
static void corner_30_steady_with(unsigned bits)
{
	unsigned was = fs_dome_fit_set_offset_choice(bits);
	double d[3];
	corner_d(30, d);
	fs_dome_fit_set_offset_choice(was);
	for (int k = 0; k < 3; k++) {
		assert_true(fabs(d[k] - d[1]) < 0.5);
		assert_true(fabs(d[k]) < 3);
	}
}

static void corner_30_same_either_side_of_a_nudge(void **state)
{
	(void)state;
	corner_30_steady_with(FS_DOME_FIT_OFFSET_BASINS | FS_DOME_FIT_OFFSET_VERTEX);
}

/* the stable sample alone: the first fit reads the detector at -44
 * degrees at every nudge (h48a), where every k-th of the list read it
 * there at 0 and 1e-6 but the offset then fell in the far basin */
static void corner_30_steady_with_the_stable_sample(void **state)
{
	(void)state;
	corner_30_steady_with(FS_DOME_FIT_STABLE_SAMPLE);
}

/* how many of a pitch-16 lattice's centres over 2048 x 2048 px change
 * membership of the 1/6 sample when the pitch moves by 0.1 % (what a
 * 1e-6 px nudge moves it by, h48m), and the sample's size */
static void sample_moves(unsigned bits, size_t *moved, size_t *in, size_t *n)
{
	unsigned was = fs_dome_fit_set_offset_choice(bits);
	*moved = *in = *n = 0;
	for (double y = 8.3; y < 2048; y += 16 * sqrt(0.75))
		for (double x = 8.7 + fmod(y, 16); x < 2048; x += 16, (*n)++) {
			int a = fs_dome_fit_in_sample(x, y, 16.003, 1.0 / 6);
			*in += (size_t)a;
			*moved += (size_t)(a != fs_dome_fit_in_sample(x, y, 16.003 * 1.001, 1.0 / 6));
		}
	fs_dome_fit_set_offset_choice(was);
}

/* half-pitch cells of the pitch as read: a 0.1 % pitch moves far cells'
 * edges by a tenth of a cell and redraws a good part of the sample; of
 * the rounded pitch, the sample stays (the pitch not at a rounding edge) */
static void rounded_cells_keep_the_sample(void **state)
{
	(void)state;
	size_t moved, in, n;
	sample_moves(FS_DOME_FIT_STABLE_SAMPLE, &moved, &in, &n);
	printf("half-pitch cells: %zu of %zu in the sample, %zu move\n", in, n, moved);
	assert_true(moved > n / 50);
	sample_moves(FS_DOME_FIT_STABLE_SAMPLE | FS_DOME_FIT_SAMPLE_ROUND, &moved, &in, &n);
	printf("rounded cells: %zu of %zu in the sample, %zu move\n", in, n, moved);
	assert_int_equal(moved, 0);
	/* still the share asked for: 1/6 within a few SD of a binomial draw */
	assert_true(fabs((double)in - n / 6.0) < 4 * sqrt(n / 6.0 * 5 / 6));
}

/* corner 14 of the test seeds: the first pass keeps 395 domes at nudge
 * 0 and 377 / 382 at -1e-6 / +1e-6, the difference all on the frame's
 * edge (h48m); with k and the picks counted over the whole
 * neighbourhoods the fit averages one sample at every nudge and D reads
 * alike (+4.57 / +4.33 / +4.42 %: steady, but past 3 % at each; off
 * it reads D past 3 % at nudge 0 alone, h48a's 144 against 180 degrees) */
static double corner_14_spread(unsigned bits)
{
	unsigned was = fs_dome_fit_set_offset_choice(bits);
	double d[3];
	corner_d(14, d);
	fs_dome_fit_set_offset_choice(was);
	return fmax(fmax(d[0], d[1]), d[2]) - fmin(fmin(d[0], d[1]), d[2]);
}

static void corner_14_steady_with_whole_picks(void **state)
{
	(void)state;
	assert_true(corner_14_spread(FS_DOME_FIT_SAMPLE_WHOLE) < 0.5);
	/* the same scene with the picks over the list and the frame's edge
	 * snap off (the rule before h49m), so that the line above cannot pass
	 * on a scene that does not move */
	int snap = fs_dome_set_frame_snap(0);
	double moved = corner_14_spread(0);
	fs_dome_set_frame_snap(snap);
	assert_true(moved > 1);
}

/* The same scene with the picks over the list and the snap on (h49m):
 * the edge candidates read at -1e-6 / +1e-6 px what they read on the
 * edge, the first pass keeps its 395 domes at every nudge and D reads
 * alike without any offset choice (+9.03 % at each: steady, but the
 * sample's coin at nudge 0 is past 3 %, as main's). Before the snap this
 * scene moved by 8.1 points (corner_14_steady_with_whole_picks's control). */
static void corner_14_steady_with_the_frame_snap(void **state)
{
	(void)state;
	int snap = fs_dome_set_frame_snap(1);
	double spread = corner_14_spread(0);
	fs_dome_set_frame_snap(snap);
	assert_true(spread < 0.5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pick_shorter_within_the_tie),
		cmocka_unit_test(corner_30_same_either_side_of_a_nudge),
		cmocka_unit_test(corner_30_steady_with_the_stable_sample),
		cmocka_unit_test(rounded_cells_keep_the_sample),
		cmocka_unit_test(corner_14_steady_with_whole_picks),
		cmocka_unit_test(corner_14_steady_with_the_frame_snap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
