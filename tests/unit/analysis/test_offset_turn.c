/*
 * The turn check switched into the rule's passes (detect_offset.h,
 * fs_det_offset_set_turn_check, h46a): an instrument, off by default.
 *
 * Checked on corner scene 22 (fill 0.25, flat tops, h/R 1, pitch 16, the
 * detector at 135 degrees; test seeds), whose first formation reads the
 * detector half a turn off (h45m): detection's centres sit 0.93 px
 * towards the detector without the check; with it in the first pass the
 * formation reads the detector right, its offset is applied and the
 * centres end 0.54 px off (asserted: at least 0.25 px nearer home), and
 * the mean D, which the centres' error had cut from the level reader's
 * +14 % to +3.8 %, reads +10.2 % (asserted: at least 4 points higher:
 * the cancellation docs/paper-figures.md's h46a section measures). In the
 * last step alone the check moves no centre (given centres stay) and D by
 * under half a point. The bits are off again after each detection, and
 * off before the first (the default).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_offset.h"
#include "sem_scene.h"

typedef struct turn_row {
	double along; /* px, + towards the detector */
	double d_pct; /* mean D error, % */
} turn_row;

static void detect_with(unsigned passes, turn_row *row)
{
	sem_opts o;
	sem_corner_scene(22, &o);
	unsigned old = fs_det_offset_set_turn_check(passes);
	assert_int_equal(old, 0);
	sem_match_errors e;
	double pitch;
	int rc = sem_corner_dome_errors(22, &e, &pitch);
	assert_int_equal(fs_det_offset_set_turn_check(0), passes);
	assert_int_equal(rc, 0);
	assert_true(e.n > 100 && e.n_measured > 100);
	row->along = (e.ox * cos(o.det_azimuth) + e.oy * sin(o.det_azimuth)) / (double)e.n;
	row->d_pct = 100 * (e.sum_d / e.sum_truth - 1);
	printf("# corner 22, turn passes %u: centres %+.3f px along the detector's axis, D %+.2f %%\n", passes,
	       row->along, row->d_pct);
}

static void turn_in_first_pass_brings_centres_home(void **state)
{
	(void)state;
	turn_row plain, first, last;
	detect_with(0, &plain);
	detect_with(FS_DET_TURN_FIRST, &first);
	detect_with(FS_DET_TURN_LAST, &last);
	assert_true(plain.along > 0.8);
	assert_true(first.along > 0 && first.along < plain.along - 0.25);
	assert_true(first.d_pct > plain.d_pct + 4);
	assert_true(fabs(last.along - plain.along) < 0.01);
	assert_true(fabs(last.d_pct - plain.d_pct) < 0.5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(turn_in_first_pass_brings_centres_home),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
