/*
 * The step judgement on a sample (h41d, issue 13's cost; detect_base_fit.h,
 * FS_DET_BASE_STEP_SAMPLE): the level's readings are judged for a base
 * step only to decide one image-wide majority (more than half of the
 * readings the level uses on no step: the formation's sizes, or no
 * diameter), so where more judgements than the bound would be made only
 * the entries whose point's pixel falls in the hashed class are judged
 * (fs_det_base_extrap_picked's pick), and the majority is taken among
 * them.
 *
 * On a plan of 32 domes in a row with a bound of 8 (so 4 classes): the
 * pick leaves out exactly the entries the hash does not pick, and
 * fs_det_base_step_point judges none of those; with every judged reading
 * on no step the level is the formation's (a majority of the judged),
 * where counting the unjudged ones as readings on a step - the count
 * before the sample - keeps the readings' level; the same plan under the
 * default bound (or none) judges every entry and counts as before. Cost:
 * well under a millisecond.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "analysis/base_step.h"
#include "analysis/detect_base_fit.h"
#include "base_plan_fixture.h"

#define N 32

/* N domes (pitch 20 along y = 15.5), every one fitted at radius 10 and
 * read at 12, none pinned */
static void plan_of(base_plan_fixture *f, fs_measured *meas)
{
	base_plan_init(f, N, 20, 15.5, meas);
	for (size_t k = 0; k < N; k++) {
		f->fr[k] = 10;
		f->lr[k] = 12;
		f->le[k] = 0;
		base_plan_radius(&meas[k], 11);
	}
}

/* How many entries fs_det_base_step_point judges, each judged entry's
 * step set to contrast (the others NAN, as the paths leave them). */
static size_t judge(base_plan_fixture *f, const fs_measured *meas, double contrast)
{
	size_t n = 0;
	for (size_t k = 0; k < N; k++) {
		double x, y, r;
		int on = fs_det_base_step_point(&f->p, f->fr, f->fx, f->fy, f->fx, f->fy, f->lr, f->le, 0, meas, k, &x,
						&y, &r);
		f->step[k] = on ? contrast : NAN;
		n += on != 0;
	}
	return n;
}

/* plan_of's plan with fs_det_base_step_pick run under the bound
 * (restored after), as both paths call it before the judgement. */
static void plan_picked(base_plan_fixture *f, fs_measured *meas, size_t bound)
{
	plan_of(f, meas);
	size_t old = fs_det_base_set_step_sample(bound);
	assert_int_equal(fs_det_base_step_pick(&f->p, f->fr, f->fx, f->fy, f->fx, f->fy, f->lr, f->le, 0, meas), 0);
	fs_det_base_set_step_sample(old);
}

static void the_judgement_takes_the_hashed_sample_above_the_bound(void **state)
{
	(void)state;
	fs_measured meas[N];
	base_plan_fixture f;
	plan_picked(&f, meas, 8);
	assert_non_null(f.p.step_out);
	size_t kept = 0;
	for (size_t k = 0; k < N; k++) {
		/* 32 readings over a bound of 8: 4 classes, the point's pixel */
		int picked = fs_det_base_extrap_picked(f.fx[k], f.fy[k], 4);
		assert_int_equal(f.p.step_out[k], !picked);
		double x, y, r;
		int on = fs_det_base_step_point(&f.p, f.fr, f.fx, f.fy, f.fx, f.fy, f.lr, f.le, 0, meas, k, &x, &y, &r);
		assert_int_equal(on != 0, picked);
		kept += picked;
	}
	/* a sample: some judged, not all */
	assert_true(kept > 0 && kept < N);
	assert_int_equal(judge(&f, meas, 1.1), kept);
	free(f.p.step_out);
}

static void the_majority_is_taken_among_the_judged(void **state)
{
	(void)state;
	fs_measured meas[N];
	base_plan_fixture f;
	plan_picked(&f, meas, 8);
	/* every judged reading on no step (below FS_BASE_STEP_MIN) */
	size_t kept = judge(&f, meas, 0.5 * FS_BASE_STEP_MIN);
	assert_true(2 * kept < N); /* a minority of all 32 read */
	fs_det_base_fit info;
	base_plan_scale(&f, meas, &info);
	assert_int_equal(info.read, N);
	assert_int_equal(info.judged, kept);
	assert_int_equal(info.nostep, kept);
	/* all of the sample on no step: no base to read, the formation's
	 * sizes (counted over all 32 it would be 1.2) */
	assert_true(info.scale == 1);
	assert_true(fabs(meas[0].t.radius_px - 10) < 1e-12);
	/* every judged reading on a step: the readings' level */
	free(f.p.step_out);
	plan_picked(&f, meas, 8);
	judge(&f, meas, 2 * FS_BASE_STEP_MIN);
	base_plan_scale(&f, meas, &info);
	assert_int_equal(info.nostep, 0);
	assert_true(fabs(info.scale - 1.2) < 1e-12);
	free(f.p.step_out);
}

static void at_most_the_bound_every_reading_is_judged(void **state)
{
	(void)state;
	fs_measured meas[N];
	base_plan_fixture f;
	/* the default bound (512) and no bound: nothing left out */
	for (int pass = 0; pass < 2; pass++) {
		plan_picked(&f, meas, pass ? 0 : FS_DET_BASE_STEP_SAMPLE);
		assert_null(f.p.step_out);
		/* 17 of 32 on no step: a majority, counted over every reading */
		assert_int_equal(judge(&f, meas, 2 * FS_BASE_STEP_MIN), N);
		for (size_t k = 0; k < 17; k++)
			f.step[k] = 0.5 * FS_BASE_STEP_MIN;
		fs_det_base_fit info;
		base_plan_scale(&f, meas, &info);
		assert_int_equal(info.judged, N);
		assert_int_equal(info.nostep, 17);
		assert_true(info.scale == 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_judgement_takes_the_hashed_sample_above_the_bound),
		cmocka_unit_test(the_majority_is_taken_among_the_judged),
		cmocka_unit_test(at_most_the_bound_every_reading_is_judged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
