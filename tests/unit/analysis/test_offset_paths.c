/*
 * The dome rule's decisions under a coarse halftone screen written once
 * for the whole image and the tiles (detect_offset.h, h46h):
 * fs_det_offset_look_again_by (h45d's look again: the first offset taken,
 * the second look given the first one's screen, the domes measured again
 * only where the step converges) and fs_det_paths (h44d's refined path
 * sized and kept, h45k's comparison before and after the look again).
 * The callers' fits, measurements and sizings are callbacks; here they
 * are fakes that count their calls and mark what they were given, so
 * each test says which of them the decision calls, on what, and what it
 * keeps. The detections through both callers are test_offset_refused's
 * and test_detect_domes_tiled's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "analysis/detect_offset.h"

#define N 9

/* the look again's fakes: the second look's offset and whether it fits */
struct fake_look {
	double second_dx;
	int second_fitted, fit_fails, apply_fails;
	int fits, applies;
	double period;   /* what the fit was given */
	double apply_dx; /* what the measurement was given */
};

static int fake_fit(void *ctx, double period, fs_det_offset *second)
{
	struct fake_look *f = ctx;
	f->fits++;
	f->period = period;
	memset(second, 0, sizeof *second);
	second->fitted = f->second_fitted;
	second->dx = second->fit.offset_x = f->second_dx;
	second->quality = second->fit.quality = 0.97;
	second->fit.pitch = 32;
	return f->fit_fails ? -1 : 0;
}

static int fake_apply(void *ctx, const fs_det_offset *step)
{
	struct fake_look *f = ctx;
	f->applies++;
	f->apply_dx = step->dx;
	return f->apply_fails ? -1 : 0;
}

/* a first look at pitch 32 under a 5-px screen, offset (-2, 0) px */
static fs_det_offset first_look(int applied)
{
	fs_det_offset o;
	memset(&o, 0, sizeof o);
	o.fitted = 1;
	o.applied = applied;
	o.dx = -2;
	o.quality = 0.92;
	o.fit.pitch = 32;
	o.fit.halftone = 5;
	return o;
}

static int look(struct fake_look *f, int applied)
{
	fs_det_offset off = first_look(applied);
	const fs_det_look l = {fake_fit, fake_apply, f};
	return fs_det_offset_look_again_by(&off, &l);
}

static void look_again_fits_at_the_first_screen_and_moves_only_a_converging_step(void **state)
{
	(void)state;
	struct fake_look f = {.second_dx = -0.8, .second_fitted = 1};
	assert_int_equal(look(&f, 1), 0);
	assert_int_equal(f.fits, 1);
	assert_true(f.period == 5); /* the first look's screen, not looked for */
	assert_int_equal(f.applies, 1);
	assert_true(f.apply_dx == -0.8);
	/* no first offset taken: no second look */
	f = (struct fake_look){.second_dx = -0.8, .second_fitted = 1};
	assert_int_equal(look(&f, 0), 0);
	assert_int_equal(f.fits + f.applies, 0);
	/* a longer second offset, one within the fit's rounding, or no
	 * second fit: looked, nothing measured again */
	double dx[] = {-2.4, -0.6, -0.8};
	int fitted[] = {1, 1, 0};
	for (int k = 0; k < 3; k++) {
		f = (struct fake_look){.second_dx = dx[k], .second_fitted = fitted[k]};
		assert_int_equal(look(&f, 1), 0);
		assert_int_equal(f.fits, 1);
		assert_int_equal(f.applies, 0);
	}
	/* either callback's failure is the result, nothing after it */
	f = (struct fake_look){.second_dx = -0.8, .second_fitted = 1, .fit_fails = 1};
	assert_int_equal(look(&f, 1), -1);
	assert_int_equal(f.applies, 0);
	f = (struct fake_look){.second_dx = -0.8, .second_fitted = 1, .apply_fails = 1};
	assert_int_equal(look(&f, 1), -1);
}

/* the paths' fakes: a sizing marks every dome it sized (spread 1) and
 * keeps the last array it was given; the look again moves meas's domes
 * by look_dx */
struct fake_paths {
	fs_measured *meas; /* what the look again moves */
	double look_dx;
	int size_fails;
	int sizes, looks;
	const fs_measured *sized;
};

static int fake_size(void *ctx, fs_measured *meas)
{
	struct fake_paths *f = ctx;
	f->sizes++;
	f->sized = meas;
	for (size_t i = 0; i < N; i++)
		meas[i].spread = 1;
	return f->size_fails ? -1 : 0;
}

static int fake_look_again(void *ctx)
{
	struct fake_paths *f = ctx;
	f->looks++;
	for (size_t i = 0; i < N; i++)
		f->meas[i].t.centroid_x += f->look_dx;
	return 0;
}

/* N domes at 20-px steps, each moved by dx */
static void domes(fs_measured *m, double dx)
{
	memset(m, 0, N * sizeof *m);
	for (size_t i = 0; i < N; i++) {
		m[i].ok = 1;
		m[i].t.fit_quality = 0.8;
		m[i].t.radius_px = 8;
		m[i].t.centroid_x = 20.0 * (double)i + dx;
		m[i].t.centroid_y = 10;
	}
}

/* The refined path's domes at 0 kept (pitch 32: apart beyond 1.92 px),
 * the unrefined path's measured at `before` and looked at again by
 * look_dx, then sized as the callers do and the paths chosen; *kept_x
 * the first dome's centre the choice leaves in meas. */
static int choose(double before, double look_dx, struct fake_paths *f, double *kept_x)
{
	fs_measured meas[N];
	domes(meas, 0);
	*f = (struct fake_paths){.meas = meas, .look_dx = look_dx};
	fs_det_paths p = {fake_size, fake_look_again, f, N, NULL, 0, NULL};
	fs_det_offset off = first_look(1);
	int rc = fs_det_paths_keep_refined(&p, meas, &off);
	assert_int_equal(rc, 0);
	assert_ptr_not_equal(f->sized, meas); /* a copy sized, meas as it was */
	assert_true(p.refined[0].spread == 1 && meas[0].spread == 0);
	assert_true(p.refined_pitch == 32);
	domes(meas, before);
	rc = fs_det_paths_look_again(&p, meas, &off);
	assert_int_equal(rc, 0);
	assert_int_equal(f->looks, 1);
	/* the path as it was before the look again */
	assert_non_null(p.unrefined);
	assert_true(p.unrefined[0].t.centroid_x == before && meas[0].t.centroid_x == before + look_dx);
	fake_size(f, meas); /* the caller's sizing of the path it holds */
	f->sizes = 0;
	rc = fs_det_paths_choose(&p, meas);
	*kept_x = meas[0].t.centroid_x;
	fs_det_paths_free(&p);
	assert_null(p.refined);
	return rc;
}

static void paths_keep_the_unrefined_one_apart_before_or_after_its_look_again(void **state)
{
	(void)state;
	struct fake_paths f;
	double x;
	/* apart after the look again: kept, the one before not sized */
	assert_int_equal(choose(0.5, 2.0, &f, &x), 0);
	assert_true(x == 2.5);
	assert_int_equal(f.sizes, 0);
	/* near after it but apart before it: kept, the one before sized */
	assert_int_equal(choose(2.5, -1.5, &f, &x), 0);
	assert_true(x == 1.0);
	assert_int_equal(f.sizes, 1);
	/* near both ways: the refined path */
	assert_int_equal(choose(1.0, 0.5, &f, &x), 0);
	assert_true(x == 0);
	assert_int_equal(f.sizes, 1);
	/* the sizing's failure is the callback's (-2) */
	fs_measured meas[N];
	domes(meas, 0);
	f = (struct fake_paths){.meas = meas, .size_fails = 1};
	fs_det_paths p = {fake_size, fake_look_again, &f, N, NULL, 0, NULL};
	fs_det_offset off = first_look(1);
	assert_int_equal(fs_det_paths_keep_refined(&p, meas, &off), -2);
	fs_det_paths_free(&p);
}

static void paths_look_again_only_under_a_coarse_screen(void **state)
{
	(void)state;
	fs_measured meas[N];
	domes(meas, 0);
	struct fake_paths f = {.meas = meas, .look_dx = 1};
	fs_det_paths p = {fake_size, fake_look_again, &f, N, NULL, 0, NULL};
	/* 64 px at a 5-px screen: 12.8 periods, not coarse */
	fs_det_offset off = first_look(1);
	off.fit.pitch = 64;
	assert_int_equal(fs_det_paths_look_again(&p, meas, &off), 0);
	assert_int_equal(f.looks, 0);
	/* coarse, no refined path waiting: looked again, nothing kept, and
	 * the choice leaves meas as it is */
	off.fit.pitch = 32;
	assert_int_equal(fs_det_paths_look_again(&p, meas, &off), 0);
	assert_int_equal(f.looks, 1);
	assert_null(p.unrefined);
	assert_int_equal(fs_det_paths_choose(&p, meas), 0);
	assert_true(meas[0].t.centroid_x == 1);
	assert_int_equal(f.sizes, 0);
	fs_det_paths_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(look_again_fits_at_the_first_screen_and_moves_only_a_converging_step),
		cmocka_unit_test(paths_keep_the_unrefined_one_apart_before_or_after_its_look_again),
		cmocka_unit_test(paths_look_again_only_under_a_coarse_screen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
