/*
 * The level's low-passed ridge reading with the rays facing away from the
 * detector left out of its circle (dome_measure.h,
 * fs_dome_measure_base_ridge_lit; h48i). On interior scene 12 (h/R 0.5,
 * detector at 0 degrees) under a 5-px screen, read on the image
 * low-passed as the rule low-passes it, from the TRUE centres moved 0.5
 * px towards the detector and 0.5 px away: the plain ridge reading
 * follows the start (its far foot has no step of its own and its picks
 * sit on the start's circle), about 13 % of D between the two starts on
 * seed 0; without those rays about 5.5 %. Both asserted, so the test
 * fails if the far rays stop being left out or the plain reading stops
 * showing the fault the option is for.
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
#include "printed_scene.h"
#include "sanitized.h"

/* The inside domes' mean ridge reading from their true centres plus o px
 * along (ax, ay), over their true mean, %; lit: the far rays left out */
static double ridge_d(const fs_image *lp, const sem_truth *tr, double pitch, double ax, double ay, double o,
		      double azimuth, int lit)
{
	double max_r = 0.6 * pitch, sm = 0, st = 0;
	for (size_t i = 0; i < tr->n; i++) {
		if (!tr->inside[i])
			continue;
		fs_tubercle t;
		int e = 0, rc;
		memset(&t, 0, sizeof t);
		double x = tr->x[i] + o * ax, y = tr->y[i] + o * ay;
		if (lit)
			rc = fs_dome_measure_base_ridge_lit(lp, x, y, FS_DOME_R0 * max_r, FS_DOME_R1 * max_r, azimuth, &t,
							    &e);
		else
			rc = fs_dome_measure_base_edge(lp, x, y, FS_DOME_R0 * max_r, FS_DOME_R1 * max_r, 1, &t, &e);
		double r = fs_det_base_level_value(rc, &t, e, NAN, &e, NULL);
		if (isfinite(r) && !e) {
			sm += 2 * r;
			st += tr->d[i];
		}
	}
	assert_true(st > 0);
	return 100 * (sm / st - 1);
}

static void far_rays_left_out_stop_following_the_start(void **state)
{
	(void)state;
	if (fs_test_subset())
		return;
	printed_scene s;
	assert_int_equal(printed_scene_open(&s, 12, 0, 5), 0);
	double pitch = s.pitch;
	fs_cand_list c;
	assert_int_equal(printed_scene_true_cands(&s, &c), 0);
	/* the formation (its screen and detector) as the unrefined path
	 * fits it there */
	fs_meas m = {.img = s.meas, .f = 1, .width = s.img->width, .height = s.img->height, .dome = 1, .src = s.img,
		     .mp = &s.p};
	fs_measured *mm = calloc(c.n, sizeof *mm);
	assert_non_null(mm);
	double smooth = fs_det_smooth_px[FS_DET_SMOOTH_TRIALS - 1];
	fs_det_measure_unrefined(&m, &c, 0.6 * pitch, smooth, NULL, mm, NULL);
	fs_det_offset off;
	assert_int_equal(fs_det_offset_correct(&m, &c, 0.6 * pitch, smooth, mm, &off), 0);
	assert_true(off.fitted && off.fit.halftone > 0);
	fs_image *lp = NULL;
	assert_int_equal(fs_det_base_lowpass(s.meas, &off, &lp, s.err, sizeof s.err), 0);
	assert_non_null(lp);
	double ax = cos(s.o.det_azimuth), ay = sin(s.o.det_azimuth), az = off.fit.azimuth;
	const sem_truth *tr = &s.tr;
	double plain = ridge_d(lp, tr, pitch, ax, ay, -0.5, az, 0) - ridge_d(lp, tr, pitch, ax, ay, 0.5, az, 0);
	double lit = ridge_d(lp, tr, pitch, ax, ay, -0.5, az, 1) - ridge_d(lp, tr, pitch, ax, ay, 0.5, az, 1);
	print_message("D from 0.5 px away minus 0.5 px towards the detector: plain %+.2f %%, far rays out %+.2f %%\n",
		      plain, lit);
	assert_true(plain > 9);
	assert_true(lit < 8);
	assert_true(lit < 0.7 * plain);
	free(mm);
	fs_image_free(lp);
	fs_cand_free(&c);
	printed_scene_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(far_rays_left_out_stop_following_the_start),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
