/*
 * test_centre_axis_calib.c - the axis step read on the formation's own
 * lattice (centre_axis_calib.h, h51g): mode 2 by default, a no-op off;
 * the gate is h37j's resolved gap turned round (tight at fill 0.8, pitch
 * 16; clear at pitch 64); on corner scene 23's formation (the simulator's,
 * templates built at the true centres) the reading sums its nine phases,
 * is repeatable to the bit and stays inside the step's scan; without
 * templates nothing is read.
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

#include "analysis/centre_axis_calib.h"
#include "analysis/detect_base_fit.h"
#include "formation_calib.h"
#include "sem_cache.h"
#include "sem_sim.h"

static void mode_2_by_default(void **state)
{
	(void)state;
	/* (FS_TEST_AXIS_CALIB=1 turns it on before main) */
	const char *env = getenv("FS_TEST_AXIS_CALIB");
	int was = env && *env ? env[0] - '0' : 2;
	assert_int_equal(fs_centre_axis_calib_on(), was);
	assert_int_equal(fs_centre_axis_set_calib(1), was);
	assert_int_equal(fs_centre_axis_calib_on(), 1);
	assert_int_equal(fs_centre_axis_set_calib(2), 1);
	assert_int_equal(fs_centre_axis_set_calib(0), 2);
	/* off: an ok reading is left as it is, templates or not */
	fs_det_base_plan p;
	memset(&p, 0, sizeof p);
	fs_det_offset off;
	memset(&off, 0, sizeof off);
	off.fit.pitch = 16;
	fs_centre_axis ax;
	memset(&ax, 0, sizeof ax);
	ax.ok = 1;
	ax.shift = 0.3;
	ax.r0 = 6.4;
	assert_int_equal(fs_det_base_axis_calibrate(&p, &off, &off.fit, NULL, NULL, &ax), 0);
	assert_true(ax.shift == 0.3 && ax.calib == 0);
	fs_centre_axis_set_calib(was);
}

static void gate_is_the_tight_gap(void **state)
{
	(void)state;
	fs_centre_axis_geom g;
	fs_centre_axis_geom_of(0, 6.4, 1.2, 16, &g);
	assert_int_equal(fs_centre_axis_gap_resolved(&g, 16), 0);
	fs_centre_axis_geom_of(0, 25.6, 1.2, 64, &g);
	assert_int_equal(fs_centre_axis_gap_resolved(&g, 64), 1);
}

/* Corner scene 23 (tall flat tops at fill 0.8, pitch 16: the neighbours
 * in the step's window) all scale surface, its options in *o. */
static fs_image *scene_23(sem_opts *o, sem_truth *t)
{
	sem_corner_scene(23, o);
	o->margin_top = 0;
	o->black_left = 0;
	fs_image *img = sem_make_shared(o, t);
	assert_non_null(img);
	return img;
}

static void reads_the_formations_lattice(void **state)
{
	(void)state;
	sem_opts o;
	sem_truth t;
	fs_image *img = scene_23(&o, &t);
	fs_dome_fit f;
	fs_dome_tpl u;
	assert_int_equal(formation_sim_templates(&o, img, &t, &f, &u), 0);
	fs_centre_axis_geom g;
	fs_centre_axis_geom_of(f.azimuth, 0.5 * o.fill * t.pitch, 1.2, t.pitch, &g);
	fs_centre_axis a, b;
	assert_int_equal(fs_centre_axis_calib_read(&u, &f, o.fill, &g, t.pitch, &a), 0);
	assert_int_equal(fs_centre_axis_calib_read(&u, &f, o.fill, &g, t.pitch, &b), 0);
	printf("scene 23's formation: the step's own shift %+.3f px (ok %d, residual %.4f)\n", a.shift, a.ok,
	       a.residual);
	assert_int_equal((int)a.used, FS_CENTRE_AXIS_CALIB_NPH * FS_CENTRE_AXIS_CALIB_NPH);
	/* (the rendered reading's own blur is not asked for: nothing reads it) */
	assert_true(isnan(a.vblur));
	assert_true(a.shift == b.shift && a.residual == b.residual && a.ok == b.ok);
	assert_true(fabs(a.shift) < 0.1 * t.pitch);
	/* outside the templates' fills, or no templates: nothing read */
	assert_int_equal(fs_centre_axis_calib_read(&u, &f, 0.99, &g, t.pitch, &a), 1);
	fs_dome_tpl_free(&u);
	memset(&u, 0, sizeof u);
	assert_int_equal(fs_centre_axis_calib_read(&u, &f, o.fill, &g, t.pitch, &a), 1);
	sem_truth_free(&t);
	fs_image_free(img);
}

/* The across-axis profile's blur (mode 2's render blur) is read only
 * where the geometry asks for it, and then on an ok reading at the
 * formation's blur alone: scene 23 from its true centres, the
 * neighbours in the window. */
static void blur_read_where_asked(void **state)
{
	(void)state;
	sem_opts o;
	sem_truth t;
	fs_image *img = scene_23(&o, &t);
	fs_centre_axis_geom g;
	fs_centre_axis_geom_of(o.det_azimuth, 0.5 * o.fill * t.pitch, 1.2, t.pitch, &g);
	assert_int_equal(fs_centre_axis_gap_resolved(&g, t.pitch), 0);
	size_t len = fs_centre_axis_len(&g), n = 0;
	double *profs = malloc(t.n * len * sizeof *profs), reach = fs_centre_axis_reach(&g);
	assert_non_null(profs);
	for (size_t j = 0; j < t.n; j++)
		if (sem_counted(&t, t.x[j], t.y[j]) && t.x[j] - reach >= 0 && t.y[j] - reach >= 0 &&
		    t.x[j] + reach < img->width - 1 && t.y[j] + reach < img->height - 1)
			fs_centre_axis_profile(img, t.x[j], t.y[j], &g, profs + n++ * len);
	fs_centre_axis a, b;
	assert_int_equal(g.vblur, 0);
	assert_int_equal(fs_centre_axis_estimate(profs, n, &g, t.pitch, &a), 0);
	g.vblur = 1;
	assert_int_equal(fs_centre_axis_estimate(profs, n, &g, t.pitch, &b), 0);
	printf("scene 23 from the true centres: shift %+.3f px (ok %d), the profile's blur %.3f px (beam %.2f)\n",
	       b.shift, b.ok, b.vblur, o.beam_blur);
	assert_true(a.ok && b.ok && !b.own && !b.reversed);
	assert_true(isnan(a.vblur));
	assert_true(b.vblur > 0 && b.vblur < 1.2);
	/* the rest of the reading as without it */
	assert_true(a.shift == b.shift && a.residual == b.residual && a.dx == b.dx && a.dy == b.dy);
	free(profs);
	sem_truth_free(&t);
	fs_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mode_2_by_default),
		cmocka_unit_test(gate_is_the_tight_gap),
		cmocka_unit_test(reads_the_formations_lattice),
		cmocka_unit_test(blur_read_where_asked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
