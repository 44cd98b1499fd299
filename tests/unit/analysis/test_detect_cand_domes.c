/* The dome rule's candidate step tile by tile (detect_cand_domes.h, issues
 * 15 and 13): on simulated SEM scenes at a pitch below 20 px (candidates
 * found at full resolution), the candidates made from the preprocessing
 * plan tile by tile - on 3 x 3 tiles and more, on tiles narrower than the
 * stages' overlaps, and on one tile holding the whole image, in one and
 * two threads - are the whole image's to the last bit (position,
 * prominence, order); with and without a halftone screen (which sets the
 * smoothing the votes are cast on). So are the lattice method's searches
 * in the response they were found in (the template's correlation), made
 * again crop by crop. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/detect_cand_domes.h"
#include "analysis/detect_cand_tiled.h"
#include "analysis/detect_candidates.h"
#include "analysis/detect_methods.h"
#include "analysis/detect_pre_region.h"
#include "analysis/halftone.h"
#include "analysis/lattice_estimate.h"
#include "sem_sim.h"

static char err[256];

/* The scene's candidates whole, then tile by tile on each of tiles[] in
 * one and two threads: the same bits. Returns the count. */
static size_t compare(const sem_opts *o, const int *tiles, size_t ntiles)
{
	sem_truth truth;
	fs_image *img = sem_make(o, &truth);
	assert_non_null(img);
	fs_params p;
	fs_params_default(&p);
	fs_lattice lat;
	assert_int_equal(fs_lattice_estimate(img, &lat, err, sizeof err), 0);
	/* full resolution, as detect.c takes it below 20 px */
	assert_true(lat.pitch_px > 10 && lat.pitch_px < 20);
	int clahe = (int)lround(3 * lat.pitch_px);
	fs_detect_set_tiling(0, 1);
	fs_image *pre = NULL, *resp = NULL;
	fs_cand_list whole = {0};
	assert_int_equal(fs_det_preprocess(img, &p, clahe, &pre, err, sizeof err), 0);
	assert_int_equal(fs_detect_auto_candidates(&pre, NULL, 1, &p, lat.pitch_px, 1, &whole, &resp, err, sizeof err),
			 0);
	assert_true(whole.n > 100);
	/* the lattice method's searches in the response (the template's
	 * correlation): every 7th px and between pixels, the image's border
	 * and corners included */
	size_t nq = 0;
	static fs_lattice_probe q[3000], qt[3000];
	for (double y = 0.3; y < img->height - 0.5 && nq < 3000; y += 7.1)
		for (double x = 0.4; x < img->width - 0.5 && nq < 3000; x += 7.7)
			q[nq] = (fs_lattice_probe){.key = (long)nq, .sx = x, .sy = y}, nq++;
	int R = (int)(0.25 * lat.pitch_px) + 1;
	memcpy(qt, q, sizeof q);
	fs_lattice_probe_crop(resp, 0, 0, img->width, img->height, R, 0.6 * lat.pitch_px, q, nq);
	fs_image_free(resp);
	for (size_t k = 0; k < ntiles; k++) {
		for (int threads = 1; threads <= 2; threads++) {
			fs_detect_set_tiling(tiles[k], threads);
			fs_pre_plan plan;
			assert_int_equal(fs_pre_plan_make(&plan, img, &p, clahe, tiles[k], threads, err, sizeof err), 0);
			fs_dome_resp dr = {0};
			fs_det_source src = {.plan = &plan, .tile = tiles[k], .threads = threads, .width = img->width,
					     .height = img->height, .dome = &dr};
			fs_cand_list c = {0};
			assert_int_equal(fs_detect_auto_candidates(&pre, &src, 1, &p, lat.pitch_px, 1, &c, NULL, err,
								   sizeof err),
					 0);
			size_t differ = c.n != whole.n;
			for (size_t i = 0; i < c.n && i < whole.n; i++)
				differ += c.items[i].x != whole.items[i].x || c.items[i].y != whole.items[i].y ||
					  c.items[i].response != whole.items[i].response ||
					  c.items[i].r != whole.items[i].r;
			if (differ)
				printf("# tile %d, %d threads: %zu / %zu candidates, %zu differ\n", tiles[k], threads, c.n,
				       whole.n, differ);
			assert_int_equal(differ, 0);
			fs_cand_free(&c);
			static fs_lattice_probe t[3000];
			memcpy(t, qt, sizeof t);
			assert_int_equal(fs_dome_probe_tiled(&dr, R, 0.6 * lat.pitch_px, t, nq, err, sizeof err), 0);
			for (size_t i = 0; i < nq; i++)
				differ += t[i].key != q[i].key || t[i].bx != q[i].bx || t[i].by != q[i].by ||
					  t[i].prom != q[i].prom;
			if (differ)
				printf("# tile %d, %d threads: %zu of %zu searches differ\n", tiles[k], threads, differ, nq);
			assert_int_equal(differ, 0);
			fs_dome_resp_free(&dr);
		}
	}
	fs_detect_set_tiling(FS_DETECT_TILE_DEFAULT, 1);
	size_t n = whole.n;
	fs_cand_free(&whole);
	fs_image_free(img);
	sem_truth_free(&truth);
	return n;
}

/* Pitch 16, tight domes lit from 135 degrees: 480 x 400 px on 120-px
 * tiles (4 x 4), 30-px tiles (narrower than the votes' overlap) and one
 * 512-px tile. */
static void test_tight_side_lit(void **state)
{
	(void)state;
	sem_opts o;
	sem_defaults(&o);
	o.width = 480;
	o.height = 400;
	o.pitch = 16;
	o.fill = 0.8;
	o.det_azimuth = 135 * M_PI / 180;
	o.seed = 2201;
#ifdef FS_UNDER_ASAN
	const int tiles[] = {120}; /* the sanitizers make each plan 20x slower */
#else
	const int tiles[] = {120, 30, 512};
#endif
	size_t n = compare(&o, tiles, sizeof tiles / sizeof *tiles);
	printf("# %zu candidates\n", n);
}

/* Pitch 16 under a 4-px halftone screen: the votes are cast on the
 * image low-passed for the screen, found on the plan's centre crop. */
static void test_halftone(void **state)
{
	(void)state;
	sem_opts o;
	sem_defaults(&o);
	o.width = 400;
	o.height = 360;
	o.pitch = 16;
	o.fill = 0.5;
	o.halftone = 4;
	o.seed = 2202;
	/* the screen is there to be found (halftone.h) */
	sem_truth truth;
	fs_image *img = sem_make(&o, &truth);
	assert_non_null(img);
	fs_params p;
	fs_params_default(&p);
	fs_image *pre = NULL;
	double period = 0;
	assert_int_equal(fs_det_preprocess(img, &p, 48, &pre, err, sizeof err), 0);
	assert_int_equal(fs_halftone_detect(pre, &period, NULL), 0);
	assert_true(period > 3.5 && period < 4.5);
	fs_image_free(pre);
	fs_image_free(img);
	sem_truth_free(&truth);
	const int tiles[] = {100};
	size_t n = compare(&o, tiles, 1);
	printf("# %zu candidates\n", n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tight_side_lit),
		cmocka_unit_test(test_halftone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
