/*
 * A base reading pinned at its radius window's end is no reading of the
 * base (issue 13 section 4, h32c; detect_base_fit.h): the rays' summed
 * step still rising past the window's floor or ceiling says the step it
 * found is the window's, not the dome's (fs_dome_measure_base_edge), and
 * the dome rule's level then leaves that reading out of its sums - a dome
 * the template fit sized keeps the fit's size at the level the others
 * read, a dome it did not size takes the image's (the level times the
 * fit's median size); with fewer than 8 readings left the level is the
 * formation's own (scale 1).
 *
 * Checked against known bases: a blurred disk of radius 12 read with its
 * base inside the window (edge 0, within 0.3 px), beyond the ceiling
 * (edge 1: the reading is the window's, not 12) and a 2-px fleck below
 * the floor (edge -1); and the level's arithmetic on a plan whose true
 * scale is 1.2, with three readings pinned at the ceiling that would pull
 * it to 1.40 if they were summed. Cost: a few milliseconds.
 *
 * Readings on no step of the image (h36g; base_step.h, test_base_step.c
 * for the contrast itself) are no readings of the base either: the same
 * plan keeps its level of 1.2 with a minority of its readings on no step
 * and takes the formation's sizes (1) with a majority; pinned readings
 * are not counted. Where the templates name no fill either (h38b,
 * plan.no_fill), that majority leaves every dome without a diameter, its
 * centre and its fit quality kept (the image shows no base); a minority,
 * or too few readings left, keep the sizes as before.
 *
 * h39f: at given centres where the templates size fewer than 8 domes,
 * the base rule's own readings stand as the sizes; they are judged for a
 * step too (plan.own, fs_det_base_own_plan), every plan entry that is ok
 * and not pinned at its centre and own radius, and a majority on no step
 * leaves every dome without a diameter; a minority, or the first pass
 * (not given), keeps the readings.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analysis/detect_base_fit.h"
#include "analysis/dome_measure.h"
#include "analysis/preprocess.h"
#include "base_plan_fixture.h"
#include "synth.h"

/* a disk of radius R (brightness 0.7 on 0.2, area-sampled) centred at c,
 * blurred by 1.8 px */
static fs_image *disk(int W, double c, double R)
{
	fs_image *img = synth_blurred_disk(W, c, R, 0.7, 0.2, 1.8);
	assert_non_null(img);
	return img;
}

static void the_reading_says_when_it_is_the_windows_end(void **state)
{
	(void)state;
	int W = 96;
	double c = W / 2.0 + 0.3;
	fs_image *img = disk(W, c, 12);
	fs_tubercle t;
	int edge = 9;
	/* the base inside the window (3.6-19.2 px): read, not pinned */
	memset(&t, 0, sizeof t);
	assert_int_equal(fs_dome_measure_base_edge(img, c, c, 3.6, 19.2, 0, &t, &edge), 0);
	assert_true(fabs(t.radius_px - 12) < 0.3);
	assert_int_equal(edge, 0);
	/* the same dome through a window whose ceiling (9.6 px) lies inside
	 * its base: whatever it reads is the window's */
	edge = 9;
	memset(&t, 0, sizeof t);
	assert_int_equal(fs_dome_measure_base_edge(img, c, c, 1.8, 9.6, 0, &t, &edge), 0);
	assert_int_equal(edge, 1);
	assert_false(fabs(t.radius_px - 12) < 1);
	/* the ridge variant says the same */
	edge = 9;
	assert_int_equal(fs_dome_measure_base_edge(img, c, c, 1.8, 9.6, 1, &t, &edge), 0);
	assert_int_equal(edge, 1);
	fs_image_free(img);
	/* a 2-px fleck read through a window whose floor is 6 px */
	img = disk(W, c, 2);
	edge = 9;
	memset(&t, 0, sizeof t);
	assert_int_equal(fs_dome_measure_base_edge(img, c, c, 6, 32, 0, &t, &edge), 0);
	assert_int_equal(edge, -1);
	/* ... and through one that holds it */
	edge = 9;
	assert_int_equal(fs_dome_measure_base_edge(img, c, c, 0.5, 8, 0, &t, &edge), 0);
	assert_int_equal(edge, 0);
	fs_image_free(img);
}

#define N 14

/* A plan of N domes: 0-11 sized by the template fit (fr), 12-13 not;
 * the level's re-reads lr of 0-11 are 1.2 x fr but for the last npinned
 * of them, which read the window's ceiling (30 px, le 1). Dome 12's first
 * reading is pinned too (30 px), dome 13's is a reading (11 px). The
 * readings' step contrast (base_step.h): the first nflat of 0-11 and the
 * pinned ones lie on no step (1.1), the others on one (4.0). */
static void level_of_fill(size_t nflat, size_t npinned, int no_fill, fs_det_base_fit *info, fs_measured *meas)
{
	base_plan_fixture f;
	base_plan_init(&f, N, 20, 10, meas);
	f.p.no_fill = no_fill;
	for (size_t k = 0; k < N; k++) {
		f.fr[k] = k < 12 ? 10 * (1 + 0.01 * (double)k) : NAN;
		int pin = k < 12 && k >= 12 - npinned;
		f.lr[k] = k >= 12 ? NAN : pin ? 30 : 1.2 * f.fr[k];
		f.le[k] = pin;
		f.step[k] = k >= 12 ? NAN : pin || k < nflat ? 1.1 : 4.0;
		base_plan_radius(&meas[k], k == 12 ? 30 : k == 13 ? 11 : f.lr[k]);
		meas[k].edge = k == 12;
	}
	base_plan_scale(&f, meas, info);
	/* where the step point says the level's readings were read */
	double x, y, r;
	assert_int_equal(fs_det_base_step_point(&f.p, f.fr, f.fx, f.fy, f.fx, f.fy, f.lr, f.le, 0, meas, 0, &x, &y, &r),
			 1);
	assert_true(x == f.fx[0] && y == f.fy[0] && r == f.lr[0]);
	if (npinned)
		assert_int_equal(
			fs_det_base_step_point(&f.p, f.fr, f.fx, f.fy, f.fx, f.fy, f.lr, f.le, 0, meas, 11, &x, &y, &r), 0);
}

static void level_of(size_t nflat, size_t npinned, fs_det_base_fit *info, fs_measured *meas)
{
	level_of_fill(nflat, npinned, 0, info, meas);
}

static void pinned_readings_do_not_set_the_level(void **state)
{
	(void)state;
	fs_measured meas[N];
	fs_det_base_fit info;
	/* three pinned: the level from the nine readings, 1.2 (summed with
	 * the pinned ones it would be 1.60) */
	level_of(0, 3, &info, meas);
	assert_int_equal(info.applied, 1);
	assert_int_equal(info.fitted, 12);
	assert_int_equal(info.pinned, 3);
	assert_true(fabs(info.scale - 1.2) < 1e-12);
	for (size_t k = 0; k < 12; k++)
		assert_true(fabs(meas[k].t.radius_px - 12 * (1 + 0.01 * (double)k)) < 1e-9);
	/* the unsized dome read at the ceiling takes the image's size: the
	 * level times the fit's median (10.6 px) */
	assert_int_equal(info.replaced, 1);
	assert_true(fabs(meas[12].t.radius_px - 1.2 * 10.6) < 1e-9);
	assert_true(fabs(meas[12].t.major_axis_px - 2 * 1.2 * 10.6) < 1e-9);
	/* ... the one with a reading keeps it */
	assert_true(meas[13].t.radius_px == 11);
	/* seven readings left (fewer than 8): the formation's own sizes */
	level_of(0, 5, &info, meas);
	assert_int_equal(info.pinned, 5);
	assert_true(info.scale == 1);
	assert_true(fabs(meas[0].t.radius_px - 10) < 1e-9);
	/* none pinned: as before */
	level_of(0, 0, &info, meas);
	assert_int_equal(info.pinned, 0);
	assert_true(fabs(info.scale - 1.2) < 1e-12);
}

static void readings_on_no_step_do_not_set_the_level(void **state)
{
	(void)state;
	fs_measured meas[N];
	fs_det_base_fit info;
	/* five of twelve on no step: the readings' level, 1.2 */
	level_of(5, 0, &info, meas);
	assert_int_equal(info.nostep, 5);
	assert_true(fabs(info.scale - 1.2) < 1e-12);
	/* six of twelve: not more than half, still 1.2 */
	level_of(6, 0, &info, meas);
	assert_true(fabs(info.scale - 1.2) < 1e-12);
	/* seven of twelve: no base to read, the formation's sizes */
	level_of(7, 0, &info, meas);
	assert_int_equal(info.nostep, 7);
	assert_true(info.scale == 1);
	/* pinned readings are left out before the count: 5 of the 9 read */
	level_of(5, 3, &info, meas);
	assert_int_equal(info.pinned, 3);
	assert_int_equal(info.nostep, 5);
	assert_true(info.scale == 1);
	/* 4 of the 9 read: 1.2 */
	level_of(4, 3, &info, meas);
	assert_true(fabs(info.scale - 1.2) < 1e-12);
}

/* h38b: where the templates name no fill as well (plan.no_fill), a
 * majority on no step leaves every dome of the plan, sized or not,
 * without a diameter, at the fit's centre when it was sized; a minority
 * keeps the level as before */
static void no_step_and_no_fill_leave_no_diameter(void **state)
{
	(void)state;
	fs_measured meas[N];
	fs_det_base_fit info;
	level_of_fill(7, 0, 1, &info, meas);
	assert_int_equal(info.nostep, 7);
	assert_int_equal(info.read, 12);
	assert_int_equal(info.unmeasured, N);
	for (size_t k = 0; k < N; k++) {
		assert_false(fs_tubercle_measured(&meas[k].t));
		assert_true(meas[k].t.fit_quality == 0.8); /* a dome's: it says why */
		assert_true(meas[k].t.centroid_x == (k < 12 ? 20.0 * (double)k : 0));
	}
	/* six of twelve: the readings' level, every dome sized */
	level_of_fill(6, 0, 1, &info, meas);
	assert_int_equal(info.unmeasured, 0);
	assert_true(fabs(info.scale - 1.2) < 1e-12);
	assert_true(fabs(meas[0].t.radius_px - 12) < 1e-9);
	/* too few readings (pinned) is the older branch: the formation's
	 * sizes, not "no base" */
	level_of_fill(0, 5, 1, &info, meas);
	assert_int_equal(info.unmeasured, 0);
	assert_true(info.scale == 1);
}

/* h39f: 5 of N domes sized by the templates (fewer than 8): the own
 * readings (radius 20 + k) stand unless most judged ones lie on no step;
 * entry 13's reading is pinned (not judged). nflat of the judged entries
 * 0-12 lie on no step. */
static size_t too_few_fitted(int given, size_t nflat, fs_measured *meas)
{
	base_plan_fixture f;
	base_plan_init(&f, N, 30, 15, meas);
	for (size_t k = 0; k < N; k++) {
		f.fr[k] = k < 5 ? 12 : NAN;
		meas[k].t.radius_px = 20 + (double)k;
		meas[k].edge = k == 13;
	}
	fs_det_base_own_plan(&f.p, f.fr, given);
	assert_int_equal(f.p.own, given);
	for (size_t k = 0; k < N; k++) {
		double x, y, r;
		int on = fs_det_base_step_point(&f.p, f.fr, f.fx, f.fy, f.fx, f.fy, NULL, NULL, 0, meas, k, &x, &y, &r);
		/* judged where its own reading was read, fitted or not */
		if (given) {
			assert_int_equal(on, k != 13);
			if (on)
				assert_true(x == f.xs[k] && y == f.ys[k] && r == 20 + (double)k);
		}
		f.step[k] = on ? (k < nflat ? 1.1 : 4.0) : NAN;
	}
	fs_det_base_fit info;
	fs_det_base_fit_scale(&f.p, f.fr, f.fx, f.fy, NULL, NULL, f.step, meas, &info);
	assert_int_equal(info.applied, 0);
	return info.unmeasured;
}

static void too_few_fitted_readings_judged(void **state)
{
	(void)state;
	fs_measured meas[N];
	/* seven of the 13 judged on no step: no base, no diameter, each
	 * dome's quality kept */
	assert_int_equal(too_few_fitted(1, 7, meas), N);
	for (size_t k = 0; k < N; k++) {
		assert_false(fs_tubercle_measured(&meas[k].t));
		assert_true(meas[k].t.fit_quality == 0.8);
	}
	/* six of 13: the own readings stand */
	assert_int_equal(too_few_fitted(1, 6, meas), 0);
	for (size_t k = 0; k < N; k++)
		assert_true(meas[k].t.radius_px == 20 + (double)k);
	/* the first pass (not given): not judged, the readings stand */
	assert_int_equal(too_few_fitted(0, 13, meas), 0);
	assert_true(meas[0].t.radius_px == 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_reading_says_when_it_is_the_windows_end),
		cmocka_unit_test(pinned_readings_do_not_set_the_level),
		cmocka_unit_test(readings_on_no_step_do_not_set_the_level),
		cmocka_unit_test(no_step_and_no_fill_leave_no_diameter),
		cmocka_unit_test(too_few_fitted_readings_judged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
