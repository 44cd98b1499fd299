/*
 * The centres' common shift along the detector's axis (centre_axis.h),
 * judged against the simulator's true dome centres: the profiles read
 * around the true centres moved by a known error along the detector's
 * axis must give that error back, with the detector at azimuth 0 and at
 * 135 degrees (corner scenes 3 and 19: fill 0.8, pitch 16, flat-topped
 * low domes, where the dome rule's centres sat 0.3 px away from the
 * detector before h30f). The gates: a base of fewer than 3 blurs, fewer
 * than 8 domes and a flat image give no shift. The residual gate does
 * not catch a reading from the shadowed side (scene 3 read along the
 * azimuth + 180 degrees gave +1.04 px at 0.14 % residual before h35c),
 * and the formation fit's azimuth, fitted at centres locked onto a lit
 * flank, can be that one: the brighter side decides the axis (h35c), so
 * the same profiles read along the opposite azimuth must give the same
 * move. What it does to the dome rule's accuracy: test_sem_accuracy.
 *
 * Where the first reading fails (h33c, fs_det_base_axis_find): corner
 * scene 5 (fill 0.8, pitch 16, tall spheres, detector at azimuth 0), whose
 * template-fit centres sat 1.2 px (7.5 % of the pitch) away from the
 * detector, read at the base rule's median radius (20 % large from such
 * centres) gave the shift with the wrong sign and failed its residual;
 * the dome rule's mean D was +21.6 % and its mean S -87 %. Through
 * fs_detect_domes the centres' common error must now be under 2 % of the
 * pitch and the mean D within 5 % (the base reading from the true centres
 * is +3.5 % there: the level, not the centres).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/centre_axis.h"
#include "analysis/detect.h"
#include "sanitized.h"
#include "base/sorting.h"
#include "sem_cache.h"
#include "sem_scene.h"
#include "sem_sim.h"

/* The estimate from the counted domes of the scene read at their true
 * centres + e px along the detector's axis az, the profiles read along
 * the azimuth az + turn. */
static fs_centre_axis read_scene_turned(const fs_image *img, const sem_truth *t, const sem_opts *o, double e,
					double az, double turn)
{
	double *d = malloc(t->n * sizeof *d);
	assert_non_null(d);
	for (size_t j = 0; j < t->n; j++)
		d[j] = t->d[j];
	fs_centre_axis_geom g;
	fs_centre_axis_geom_of(az + turn, 0.5 * fs_median_upper(d, t->n), o->beam_blur, t->pitch, &g);
	free(d);
	size_t len = fs_centre_axis_len(&g), n = 0;
	double *profs = malloc(t->n * len * sizeof *profs);
	assert_non_null(profs);
	double reach = fs_centre_axis_reach(&g);
	for (size_t j = 0; j < t->n; j++) {
		double x = t->x[j] + e * cos(az), y = t->y[j] + e * sin(az);
		if (!sem_counted(t, t->x[j], t->y[j]) || x - reach < 0 || y - reach < 0 || x + reach >= img->width - 1 ||
		    y + reach >= img->height - 1)
			continue;
		fs_centre_axis_profile(img, x, y, &g, profs + n++ * len);
	}
	fs_centre_axis ax;
	assert_int_equal(fs_centre_axis_estimate(profs, n, &g, t->pitch, &ax), 0);
	free(profs);
	return ax;
}

static fs_centre_axis read_scene(const fs_image *img, const sem_truth *t, const sem_opts *o, double e, double az)
{
	return read_scene_turned(img, t, o, e, az, 0);
}

static void known_errors_found(int k)
{
	sem_opts o;
	sem_truth t;
	sem_corner_scene(k, &o);
	fs_image *img = sem_make_shared(&o, &t);
	assert_non_null(img);
	static const double errs[] = {0, -0.3, -1.0, 0.5};
	for (size_t q = 0; q < sizeof errs / sizeof errs[0]; q++) {
		fs_centre_axis ax = read_scene(img, &t, &o, errs[q], o.det_azimuth);
		printf("# scene %d (azimuth %.0f), centres %+.1f px along the axis: shift %+.3f px, residual %.4f, "
		       "%zu domes\n",
		       k, o.det_azimuth * 180 / M_PI, errs[q], ax.shift, ax.residual, ax.used);
		assert_int_equal(ax.ok, 1);
		assert_true(ax.used >= 8);
		/* the dome centres are -e ahead of the given ones */
		assert_true(fabs(ax.shift + errs[q]) < 0.2);
		assert_true(fabs(ax.dx - ax.shift * cos(o.det_azimuth)) < 1e-12);
		assert_true(fabs(ax.dy - ax.shift * sin(o.det_azimuth)) < 1e-12);
		assert_int_equal(ax.reversed, 0);
		/* Given the opposite azimuth (the formation fit's at centres
		 * locked onto a lit flank, h35c), the brighter side is the
		 * detector's: the same move back to the true centres. Before
		 * h35c the shadowed side was read (+1.04 px at e = 0 in scene
		 * 3, a residual the gate let through). */
		fs_centre_axis rv = read_scene_turned(img, &t, &o, errs[q], o.det_azimuth, M_PI);
		printf("#   read along azimuth %+.0f: reversed %d, move (%+.3f, %+.3f) px, residual %.4f\n",
		       (o.det_azimuth + M_PI) * 180 / M_PI, rv.reversed, rv.dx, rv.dy, rv.residual);
		assert_int_equal(rv.ok, 1);
		assert_int_equal(rv.reversed, 1);
		assert_true(fabs(rv.dx + errs[q] * cos(o.det_azimuth)) < 0.2);
		assert_true(fabs(rv.dy + errs[q] * sin(o.det_azimuth)) < 0.2);
	}
	sem_truth_free(&t);
	fs_image_free(img);
}

static void detector_at_azimuth_0(void **state)
{
	(void)state;
	known_errors_found(3);
}

static void detector_at_azimuth_135(void **state)
{
	(void)state;
	known_errors_found(19);
}

static void gates_refuse(void **state)
{
	(void)state;
	sem_opts o;
	sem_truth t;
	sem_corner_scene(3, &o);
	fs_image *img = sem_make_shared(&o, &t);
	assert_non_null(img);
	fs_centre_axis ax;
	/* a base of under 3 blurs (the same profiles, r0 taken as 2 blurs) */
	fs_centre_axis_geom g;
	fs_centre_axis_geom_of(o.det_azimuth, 2 * o.beam_blur, o.beam_blur, t.pitch, &g);
	size_t len = fs_centre_axis_len(&g);
	double *profs = malloc(16 * len * sizeof *profs);
	assert_non_null(profs);
	for (int i = 0; i < 16; i++)
		fs_centre_axis_profile(img, t.x[t.n / 2], t.y[t.n / 2], &g, profs + i * len);
	assert_int_equal(fs_centre_axis_estimate(profs, 16, &g, t.pitch, &ax), 0);
	assert_int_equal(ax.ok, 0);
	/* fewer than 8 domes */
	fs_centre_axis_geom_of(o.det_azimuth, 0.5 * t.d[t.n / 2], o.beam_blur, t.pitch, &g);
	len = fs_centre_axis_len(&g);
	profs = realloc(profs, 16 * len * sizeof *profs);
	assert_non_null(profs);
	for (int i = 0; i < 7; i++)
		fs_centre_axis_profile(img, t.x[t.n / 2], t.y[t.n / 2], &g, profs + i * len);
	assert_int_equal(fs_centre_axis_estimate(profs, 7, &g, t.pitch, &ax), 0);
	assert_int_equal(ax.ok, 0);
	assert_int_equal(ax.used, 7);
	/* a flat image: nothing to match */
	fs_image *flat = fs_image_new(64, 64);
	assert_non_null(flat);
	for (size_t i = 0; i < 64 * 64; i++)
		flat->data[i] = 0.5f;
	for (int i = 0; i < 16; i++)
		fs_centre_axis_profile(flat, 32, 32, &g, profs + i * len);
	assert_int_equal(fs_centre_axis_estimate(profs, 16, &g, t.pitch, &ax), 0);
	assert_int_equal(ax.ok, 0);
	/* a dome left out (NAN) is not counted */
	for (int i = 0; i < 16; i++)
		fs_centre_axis_profile(img, t.x[t.n / 2], t.y[t.n / 2], &g, profs + i * len);
	profs[3 * len] = NAN;
	assert_int_equal(fs_centre_axis_estimate(profs, 16, &g, t.pitch, &ax), 0);
	assert_int_equal(ax.used, 15);
	free(profs);
	fs_image_free(flat);
	sem_truth_free(&t);
	fs_image_free(img);
}

static void far_off_centres_found_by_the_second_look(void **state)
{
	(void)state;
	sem_match_errors e;
	double pitch;
	assert_int_equal(sem_corner_dome_errors(5, &e, &pitch), 0);
	size_t nm = e.n;
	assert_true(nm > 100);
	double bias = hypot(e.ox / nm, e.oy / nm) / pitch, derr = (e.sum_d - e.sum_truth) / e.sum_truth;
	printf("# scene 5: centres' common error %.2f %% of the pitch, mean D %+.2f %%, %zu domes\n", 100 * bias,
	       100 * derr, nm);
	assert_true(bias < 0.02);
	assert_true(fabs(derr) < 0.05);
}

/* A neighbour's cast shadow on the lit side (h37j): corner scenes 39 and
 * 55 (fill 0.8, pitch 64, tall flat-topped domes, a neighbour 13 and 11
 * degrees off the detector's axis ahead of each dome) read along the axis
 * from the true centres gave -0.39 px (the bright flank ends where the
 * neighbour's shadow climbs the base's foot), with the residual gate
 * passing it. The lit side's ground must be told shadowed and the shift
 * read beside the axis: the known error back within 0.15 px. */
static void shadowed_lit_side(int k)
{
	sem_opts o;
	sem_truth t;
	sem_corner_scene(k, &o);
	fs_image *img = sem_make_shared(&o, &t);
	assert_non_null(img);
	static const double errs[] = {0, -0.5, 0.5};
	for (size_t q = 0; q < sizeof errs / sizeof errs[0]; q++) {
		fs_centre_axis ax = read_scene(img, &t, &o, errs[q], o.det_azimuth);
		printf("# scene %d, centres %+.1f px along the axis: shift %+.3f px, ground %.3f, oblique %.0f deg, "
		       "residual %.4f\n",
		       k, errs[q], ax.shift, ax.ground, ax.oblique, ax.residual);
		assert_int_equal(ax.ok, 1);
		assert_int_equal(ax.shadowed, 1);
		assert_true(ax.oblique > 0);
		assert_true(fabs(ax.shift + errs[q]) < 0.15);
	}
	sem_truth_free(&t);
	fs_image_free(img);
}

static void shadowed_lit_side_at_azimuth_0(void **state)
{
	(void)state;
	shadowed_lit_side(39);
}

static void shadowed_lit_side_at_azimuth_135(void **state)
{
	(void)state;
	/* under the sanitizers one scene of 768 x 640 px is enough for
	 * memory errors (sem_sim.h, SEM_SCENE_STEP) */
	if (!fs_test_subset())
		shadowed_lit_side(55);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(detector_at_azimuth_0),
		cmocka_unit_test(detector_at_azimuth_135),
		cmocka_unit_test(gates_refuse),
		cmocka_unit_test(far_off_centres_found_by_the_second_look),
		cmocka_unit_test(shadowed_lit_side_at_azimuth_0),
		cmocka_unit_test(shadowed_lit_side_at_azimuth_135),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
