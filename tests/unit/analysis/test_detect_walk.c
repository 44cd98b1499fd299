/*
 * The candidates walked by the formation's offset (detect_walk.h, h46c):
 * on interior scene 1 on the held-out seeds (+4000) under a 5-px screen
 * (fill 0.6, pitch 32, detector at 0 degrees) the dome rule's candidates,
 * made as detect.c makes them, sit +3.66 px towards the detector (the
 * votes' own bias, +1.95 without the screen); the first formation reads
 * -1.99 px of it, and the walk's later steps the rest. Checked: the walk
 * takes at least two steps and brings the candidates' mean offset along
 * the axis within 0.5 px of the truth, and none across (within 0.3 px).
 * Without the walk (one formation reading) they stay +1.6 px off.
 *
 * The walk's mode 2 (h48n): the walked candidates' level read without
 * the rays facing away from the detector (fs_meas.ridge_lit). On
 * interior scene 12 (h/R 0.5, pitch 32) under the 5-px screen, seed 0,
 * the walk alone sizes the domes +15 % (the far foot's picks follow the
 * start, h48i), mode 2 under +11 %.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/detect_candidates.h"
#include "analysis/detect_methods.h"
#include "analysis/detect_walk.h"
#include "analysis/preprocess.h"
#include "dome_candidates.h"
#include "nearest_point.h"
#include "printed_scene.h"
#include "sanitized.h"
#include "sem_cache.h"
#include "sem_score.h"
#include "sem_sim.h"

/* The mean offset along the detector's axis (ax, ay) and across it of
 * the candidates moved by (sx, sy) from the truth's inside domes, each
 * its nearest candidate within 0.3 pitch (nearest_mean_offset). */
static void mean_offset(const fs_cand_list *c, double sx, double sy, const sem_truth *tr, double ax, double ay,
			double *along, double *across)
{
	assert_true(nearest_mean_offset(c, sx, sy, tr, 0.3, ax, ay, along, across) > 50);
}

static void printed_candidates_walked_onto_the_domes(void **state)
{
	(void)state;
	if (fs_test_subset())
		return;
	printed_scene s;
	assert_int_equal(printed_scene_open(&s, 1, 4000, 5), 0);
	/* the candidates as detect.c makes them at this pitch: on the image
	 * reduced by pitch / 10 */
	double pitch = s.pitch;
	int f = 1;
	fs_cand_list c = {0};
	assert_int_equal(dome_candidates(s.img, &s.p, pitch, 0, &c, &f, s.err, sizeof s.err), 0);
	assert_true(f > 1);
	const sem_truth *tr = &s.tr;
	double ax = cos(s.o.det_azimuth), ay = sin(s.o.det_azimuth), along, across;
	mean_offset(&c, 0, 0, tr, ax, ay, &along, &across);
	print_message("candidates: %+.2f px along, %+.2f across\n", along, across);
	assert_true(along > 2.5); /* the bias the walk is for */
	fs_meas m = {.img = s.meas, .f = 1, .width = s.img->width, .height = s.img->height, .dome = 1, .src = s.img,
		     .mp = &s.p, .refine = 0.15 * pitch};
	fs_measured *mm = calloc(c.n, sizeof *mm);
	assert_non_null(mm);
	double sx, sy;
	int steps;
	assert_int_equal(fs_det_walk_shift(&m, &c, 0.6 * pitch, fs_det_smooth_px[FS_DET_SMOOTH_TRIALS - 1], mm, &sx,
					   &sy, &steps),
			 0);
	mean_offset(&c, sx, sy, tr, ax, ay, &along, &across);
	print_message("walked (%d steps, shift %+.2f, %+.2f px): %+.2f px along, %+.2f across\n", steps, sx, sy, along,
		      across);
	assert_true(steps >= 2);
	assert_true(fabs(along) < 0.5);
	assert_true(fabs(across) < 0.3);
	free(mm);
	fs_cand_free(&c);
	printed_scene_close(&s);
}

/* the dome rule's mean D error (%) on img under walk mode `walk` */
static double walked_d_err(const fs_image *img, const sem_truth *tr, double halftone, int walk)
{
	char err[256];
	fs_params p;
	fs_params_default(&p);
	fs_detect_result r;
	int was = fs_det_walk_get();
	fs_det_walk_set(walk);
	int rc = fs_detect_domes(img, &p, 0, &r, err, sizeof err);
	fs_det_walk_set(was);
	assert_int_equal(rc, 0);
	sem_score s;
	assert_int_equal(sem_score_detection(tr, &r.tubercles, halftone, &s), 0);
	fs_detect_result_free(&r);
	return s.d_err;
}

static void walked_tall_domes_sized_from_the_lit_foot(void **state)
{
	(void)state;
	if (fs_test_subset())
		return;
	sem_opts o;
	sem_interior_scene(12, &o);
	o.halftone = 5;
	sem_truth tr;
	fs_image *img = sem_make_shared(&o, &tr);
	assert_non_null(img);
	double d1 = walked_d_err(img, &tr, o.halftone, 1), d2 = walked_d_err(img, &tr, o.halftone, 2);
	print_message("interior 12, 5 px: mean D %+.2f %% walked, %+.2f %% walked without the far rays\n", d1, d2);
	assert_true(d1 > 13);
	assert_true(fabs(d2) < 11);
	fs_image_free(img);
	sem_truth_free(&tr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(printed_candidates_walked_onto_the_domes),
		cmocka_unit_test(walked_tall_domes_sized_from_the_lit_foot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
