/*
 * The cast shadow's part of the dome rule's level (issue 13; h36i, h37d in
 * docs/paper-figures.md; detect_base_fit.h): where a dome's foot is
 * steeper than the detector's elevation, the rays facing away from the
 * detector read the shadow's outer border, so every reading's polygon is
 * elongated along the detector's axis and its circle larger than the base.
 *
 * Checked here:
 * - the geometry (fs_se_shadow_reach, fs_se_shadow_rays) against closed
 *   forms: a hemisphere's border lies 1 / sin(e) - 1 radii beyond its
 *   base; a spherical cap of h/R 0.25 (foot 28.1 degrees) casts none
 *   beyond it at 35 degrees; h/R 0.5 at 35 degrees reaches 0.108 R along
 *   the axis (h36i's table), and the rays' mean and elongation are
 *   positive, the mean smaller than the axis' reach;
 * - the level's factor (fs_det_base_shadow_factor) on a plan of readings
 *   whose polygons are elongated by the h/R-0.5 cap's a2 at 35 degrees:
 *   it gives back 1 / (1 + mean) of that elevation (the elevation is
 *   found from the elongation, not from the formation fit); the same
 *   elongation across the detector's axis, or below the noise floor,
 *   under a screen, or with the feet not clear of the neighbours', gives
 *   1; a detector at 135 degrees with the polygons turned with it gives
 *   the same factor.
 * - under a halftone screen (h41i, fs_det_base_shadow_factor_screened):
 *   the level's own readings' elongations (la) give the same factor as
 *   the first pass's polygons without a screen; an elongation the clean
 *   images' floor would take (0.010 R) is not enough under the screen's
 *   (0.012 R); a formation that could not cast the shadow (detector
 *   weight negative: its azimuth flipped; a shadow deeper than the
 *   yield), a pinned reading, or no screen gives 1.
 * Cost: well under a second (no image).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_base_fit.h"
#include "analysis/se_render.h"

#define DEG (M_PI / 180)

static void the_border_beyond_the_base_follows_the_foot(void **state)
{
	(void)state;
	/* hemisphere (spherical cap of h/R 1): the outline of a unit sphere
	 * cast at e reaches 1 / sin e from the centre */
	assert_true(fabs(fs_se_shadow_reach(1, 0, 35 * DEG) - (1 / sin(35 * DEG) - 1)) < 0.002);
	assert_true(fabs(fs_se_shadow_reach(1, 0, 50 * DEG) - (1 / sin(50 * DEG) - 1)) < 0.002);
	/* h/R 0.25: foot tilt asin(2x / (1 + x^2)) = 28.1 degrees < 35 */
	assert_true(fs_se_shadow_reach(0.25, 0, 35 * DEG) < 1e-9);
	assert_true(fs_se_shadow_reach(0.25, 0, 25 * DEG) > 0.005); /* 0.0072 */
	/* h/R 0.5 at 35 degrees (h36i: 0.108 R) */
	assert_true(fabs(fs_se_shadow_reach(0.5, 0, 35 * DEG) - 0.108) < 0.003);
	double m, a2;
	fs_se_shadow_rays(0.5, 0, 35 * DEG, 0.25, &m, &a2);
	assert_true(m > 0.015 && m < 0.025);
	assert_true(a2 > 0.02 && a2 < 0.035);
	/* none at 35 degrees on the low cap; all rays beyond the cap count 0 */
	fs_se_shadow_rays(0.25, 0, 35 * DEG, 0.25, &m, &a2);
	assert_true(m == 0 && a2 == 0);
	fs_se_shadow_rays(1, 0, 10 * DEG, 0.25, &m, &a2);
	assert_true(m == 0 && a2 == 0);
}

enum { N = 40 };

/* N readings of radius R whose polygons are elongated by a2 (px) along
 * orientation th, and a formation fitted with the detector at az */
static void plan_of(fs_det_base_plan *p, fs_measured *meas, double *lr, fs_det_offset *off, double R, double a2,
		    double th, double az)
{
	memset(p, 0, sizeof *p);
	p->n = N;
	p->idx = malloc(N * sizeof *p->idx);
	assert_non_null(p->idx);
	memset(meas, 0, N * sizeof *meas);
	for (size_t k = 0; k < N; k++) {
		p->idx[k] = k;
		lr[k] = R;
		meas[k].ok = 1;
		meas[k].t.radius_px = R;
		meas[k].t.has_ellipse = 1;
		meas[k].t.major_axis_px = 2 * (R + a2);
		meas[k].t.minor_axis_px = 2 * (R - a2);
		meas[k].t.orientation = th;
	}
	memset(off, 0, sizeof *off);
	off->fitted = 1;
	off->fit.azimuth = az;
	off->fit.h_over_r = 0.5;
	off->fit.profile = 0;
	off->fit.elevation = 40 * DEG; /* the search's grid, not used */
}

static void the_level_takes_out_the_border_the_readings_show(void **state)
{
	(void)state;
	fs_det_base_plan p;
	fs_measured meas[N];
	double lr[N], off_m, a2;
	fs_det_offset off;
	double R = 12.6; /* interior scene 13: fill 0.7, pitch 36 */
	fs_se_shadow_rays(0.5, 0, 35 * DEG, 0.25, &off_m, &a2);
	double want = 1 / (1 + off_m);

	plan_of(&p, meas, lr, &off, R, a2 * R, 0, 0);
	double f = fs_det_base_shadow_factor(&p, &off, meas, lr, 1);
	assert_true(fabs(f - want) < 0.001);
	assert_true(f < 0.99);
	fs_det_base_shadow_apply(&p, f, lr);
	assert_true(fabs(lr[7] - R * want) < 0.02);
	/* the feet not clear: nothing */
	assert_true(fs_det_base_shadow_factor(&p, &off, meas, lr, 0) == 1);
	/* under a screen: nothing */
	off.fit.halftone = 5;
	assert_true(fs_det_base_shadow_factor(&p, &off, meas, lr, 1) == 1);
	fs_det_base_plan_free(&p);

	/* elongated across the axis: no border facing away */
	plan_of(&p, meas, lr, &off, R, a2 * R, M_PI / 2, 0);
	assert_true(fs_det_base_shadow_factor(&p, &off, meas, lr, 1) == 1);
	fs_det_base_plan_free(&p);

	/* below the unshadowed scenes' elongation (0.005 R): nothing */
	plan_of(&p, meas, lr, &off, R, 0.005 * R, 0, 0);
	assert_true(fs_det_base_shadow_factor(&p, &off, meas, lr, 1) == 1);
	fs_det_base_plan_free(&p);

	/* the detector at 135 degrees, the polygons turned with it (an
	 * ellipse's orientation is modulo 180 degrees) */
	plan_of(&p, meas, lr, &off, R, a2 * R, -45 * DEG, 135 * DEG);
	assert_true(fabs(fs_det_base_shadow_factor(&p, &off, meas, lr, 1) - want) < 0.001);
	fs_det_base_plan_free(&p);
}

static void the_screened_level_takes_out_the_border_its_readings_show(void **state)
{
	(void)state;
	fs_det_base_plan p;
	fs_measured meas[N];
	double lr[N], la[N], off_m, a2;
	int le[N];
	fs_det_offset off;
	double R = 25.6; /* corner scene 59: fill 0.8, pitch 64 */
	fs_se_shadow_rays(0.5, 0, 35 * DEG, 0.25, &off_m, &a2);
	double want = 1 / (1 + off_m);

	plan_of(&p, meas, lr, &off, R, a2 * R, 0, 0);
	double clean = fs_det_base_shadow_factor(&p, &off, meas, lr, 1);
	for (size_t k = 0; k < N; k++) {
		la[k] = a2 * R;
		le[k] = 0;
	}
	off.fit.halftone = 5;
	off.fit.side = 0.4;
	off.fit.shadow = 0.3;
	double f = fs_det_base_shadow_factor_screened(&p, &off, lr, le, la);
	assert_true(fabs(f - want) < 0.001);
	assert_true(f == clean);
	/* no screen: the clean path's, not this one */
	off.fit.halftone = 0;
	assert_true(fs_det_base_shadow_factor_screened(&p, &off, lr, le, la) == 1);
	off.fit.halftone = 5;
	/* the formation could not cast it */
	off.fit.side = -1.6;
	assert_true(fs_det_base_shadow_factor_screened(&p, &off, lr, le, la) == 1);
	off.fit.side = 0.4;
	off.fit.shadow = 1.7;
	assert_true(fs_det_base_shadow_factor_screened(&p, &off, lr, le, la) == 1);
	off.fit.shadow = 0;
	assert_true(fs_det_base_shadow_factor_screened(&p, &off, lr, le, la) == 1);
	off.fit.shadow = 0.3;
	/* pinned readings are none: fewer than 8 left */
	for (size_t k = 0; k < N - 7; k++)
		le[k] = 1;
	assert_true(fs_det_base_shadow_factor_screened(&p, &off, lr, le, la) == 1);
	for (size_t k = 0; k < N; k++)
		le[k] = 0;
	/* 0.010 R: above the clean floor, below the screened one */
	for (size_t k = 0; k < N; k++)
		la[k] = 0.010 * R;
	assert_true(fs_det_base_shadow_factor_screened(&p, &off, lr, le, la) == 1);
	fs_det_base_plan_free(&p);
	plan_of(&p, meas, lr, &off, R, 0.010 * R, 0, 0);
	assert_true(fs_det_base_shadow_factor(&p, &off, meas, lr, 1) < 1);
	fs_det_base_plan_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_border_beyond_the_base_follows_the_foot),
		cmocka_unit_test(the_level_takes_out_the_border_the_readings_show),
		cmocka_unit_test(the_screened_level_takes_out_the_border_its_readings_show),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
