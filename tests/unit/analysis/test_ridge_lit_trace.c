/*
 * The level's low-passed ridge reading without the far rays, traced
 * (dome_measure.h, fs_dome_measure_base_ridge_lit_trace; h49b). Checked:
 * the trace reads what fs_dome_measure_base_ridge_lit reads, to the bit,
 * on every inside dome of interior scene 8 under a 5-px screen from the
 * TRUE centres; and what it was written to show (docs/paper-figures.md,
 * h49b): interior scenes 0 and 8 (seed 0; pitch 32, fill 0.5, detector at
 * 0 degrees) differ only in height (h/R 0.25 and 0.5), and from the TRUE
 * centres the lit rays' edges lie 0.27 and 0.54 px outside the true base
 * while the inner-slope shift the reader takes off them reads 0.19 and
 * 0.22 px: the step model with a constant slope inside the base does not
 * see what moves the tall domes' lit foot out. Asserted: the lit edges
 * at least 0.15 px further out on the tall domes, the shifts within
 * 0.1 px of each other; a reader that comes to tell the two apart
 * (the mend h49b looked for) fails the second and should change it.
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
#include "analysis/detect_measure.h"
#include "analysis/detect_methods.h"
#include "analysis/detect_offset.h"
#include "analysis/dome_measure.h"
#include "analysis/lattice_estimate.h"
#include "sanitized.h"
#include "sem_cache.h"
#include "sem_sim.h"

/* An interior scene under a 5-px screen, low-passed as the rule
 * low-passes it for its level, with the formation's azimuth. */
typedef struct lit_scene {
	sem_truth tr;
	fs_image *img, *meas, *lp;
	double pitch, azimuth, ax, ay;
} lit_scene;

static void lit_scene_open(int k, lit_scene *s)
{
	char err[256];
	sem_opts o;
	memset(s, 0, sizeof *s);
	sem_interior_scene(k, &o);
	o.halftone = 5;
	s->img = sem_make_shared(&o, &s->tr);
	assert_non_null(s->img);
	s->ax = cos(o.det_azimuth);
	s->ay = sin(o.det_azimuth);
	fs_params p;
	fs_params_default(&p);
	fs_lattice lat;
	assert_int_equal(fs_lattice_estimate(s->img, &lat, err, sizeof err), 0);
	s->pitch = lat.pitch_px;
	assert_int_equal(fs_detect_measure_image(s->img, &p, 0.5, &s->meas, err, sizeof err), 0);
	fs_cand_list c = {0};
	for (size_t i = 0; i < s->tr.n; i++) {
		fs_cand q = {.x = s->tr.x[i], .y = s->tr.y[i], .r = 0.3 * s->pitch};
		if (q.x >= 0 && q.y >= 0 && q.x < s->img->width && q.y < s->img->height)
			assert_int_equal(fs_cand_append(&c, &q), 0);
	}
	/* the formation (its screen and detector) as the unrefined path
	 * fits it there (test_base_ridge_lit's) */
	fs_meas m = {.img = s->meas, .f = 1, .width = s->img->width, .height = s->img->height, .dome = 1,
		     .src = s->img, .mp = &p};
	fs_measured *mm = calloc(c.n, sizeof *mm);
	assert_non_null(mm);
	double smooth = fs_det_smooth_px[FS_DET_SMOOTH_TRIALS - 1];
	fs_det_measure_unrefined(&m, &c, 0.6 * s->pitch, smooth, NULL, mm, NULL);
	fs_det_offset off;
	assert_int_equal(fs_det_offset_correct(&m, &c, 0.6 * s->pitch, smooth, mm, &off), 0);
	assert_true(off.fitted && off.fit.halftone > 0);
	assert_int_equal(fs_det_base_lowpass(s->meas, &off, &s->lp, err, sizeof err), 0);
	assert_non_null(s->lp);
	s->azimuth = off.fit.azimuth;
	free(mm);
	fs_cand_free(&c);
}

static void lit_scene_close(lit_scene *s)
{
	fs_image_free(s->lp);
	fs_image_free(s->meas);
	fs_image_free(s->img);
	sem_truth_free(&s->tr);
}

static int same(double a, double b)
{
	return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static void trace_reads_what_the_reading_reads(void **state)
{
	(void)state;
	if (fs_test_subset())
		return;
	lit_scene s;
	lit_scene_open(8, &s);
	double max_r = 0.6 * s.pitch;
	int n = 0;
	for (size_t i = 0; i < s.tr.n; i++) {
		if (!s.tr.inside[i])
			continue;
		fs_tubercle t;
		fs_dome_ray_trace rt;
		int e = 0;
		memset(&t, 0, sizeof t);
		int rc = fs_dome_measure_base_ridge_lit(s.lp, s.tr.x[i], s.tr.y[i], FS_DOME_R0 * max_r,
						       FS_DOME_R1 * max_r, s.azimuth, &t, &e);
		int rc2 = fs_dome_measure_base_ridge_lit_trace(s.lp, s.tr.x[i], s.tr.y[i], FS_DOME_R0 * max_r,
							       FS_DOME_R1 * max_r, s.azimuth, &rt);
		assert_int_equal(rc, rc2);
		if (rc)
			continue;
		assert_true(same(t.radius_px, rt.st.radius) || (isnan(t.radius_px) && isnan(rt.st.radius)));
		assert_true(same(t.centroid_x, rt.st.x) && same(t.centroid_y, rt.st.y));
		assert_true(same(t.fit_quality, rt.st.quality));
		if (isfinite(rt.st.radius)) {
			/* every ray read, its direction a unit vector */
			for (int k = 0; k < FS_DOME_TRACE_RAYS; k++) {
				assert_true(isfinite(rt.ray[k]) && rt.ray[k] > 0);
				assert_true(fabs(hypot(rt.ray_c[k], rt.ray_s[k]) - 1) < 1e-12);
			}
			n++;
		}
	}
	print_message("%d domes traced\n", n);
	assert_true(n >= 50);
	lit_scene_close(&s);
}

/* The inside domes' mean lit-ray edge (px outside the true base) and
 * the reader's inner shift (px), from the true centres. */
static void lit_foot(int k, double *lit, double *ishift)
{
	lit_scene s;
	lit_scene_open(k, &s);
	double max_r = 0.6 * s.pitch, ca = cos(s.azimuth), sa = sin(s.azimuth), sl = 0, si = 0;
	int nl = 0, nd = 0;
	for (size_t i = 0; i < s.tr.n; i++) {
		if (!s.tr.inside[i])
			continue;
		fs_dome_ray_trace rt;
		if (fs_dome_measure_base_ridge_lit_trace(s.lp, s.tr.x[i], s.tr.y[i], FS_DOME_R0 * max_r,
							 FS_DOME_R1 * max_r, s.azimuth, &rt) ||
		    !isfinite(rt.st.radius))
			continue;
		for (int j = 0; j < FS_DOME_TRACE_RAYS; j++) {
			if (rt.ray_c[j] * ca + rt.ray_s[j] * sa <= M_SQRT1_2)
				continue;
			double px = rt.ray_x + rt.ray[j] * rt.ray_c[j], py = rt.ray_y + rt.ray[j] * rt.ray_s[j];
			sl += hypot(px - s.tr.x[i], py - s.tr.y[i]) - 0.5 * s.tr.d[i];
			nl++;
		}
		si += rt.st.ishift;
		nd++;
	}
	assert_true(nl > 0 && nd >= 50);
	*lit = sl / nl;
	*ishift = si / nd;
	lit_scene_close(&s);
}

static void tall_domes_lit_foot_further_out_under_the_same_inner_shift(void **state)
{
	(void)state;
	if (fs_test_subset())
		return;
	double lit_low, is_low, lit_tall, is_tall;
	lit_foot(0, &lit_low, &is_low);
	lit_foot(8, &lit_tall, &is_tall);
	print_message("lit edges outside the true base: h/R 0.25 %+.3f px, 0.5 %+.3f px; inner shift %.3f / %.3f px\n",
		      lit_low, lit_tall, is_low, is_tall);
	assert_true(lit_tall - lit_low > 0.15);
	assert_true(fabs(is_tall - is_low) < 0.1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(trace_reads_what_the_reading_reads),
		cmocka_unit_test(tall_domes_lit_foot_further_out_under_the_same_inner_shift),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
