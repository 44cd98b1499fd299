/* The dome rule's candidate step tile by tile (detect_cand_domes.h, issues
 * 15 and 13): on simulated SEM scenes at a pitch below 20 px (candidates
 * found at full resolution), the candidates made from the preprocessing
 * plan tile by tile - on 3 x 3 tiles and more, on tiles narrower than the
 * stages' overlaps, and on one tile holding the whole image, in one and
 * two threads - are the whole image's to the last bit (position,
 * prominence, order); with and without a halftone screen (which sets the
 * smoothing the votes are cast on). So are the lattice method's searches
 * in the response they were found in (the template's correlation), made
 * again crop by crop, and in the circle votes (the response when the image
 * gives no template), made crop by crop against the whole image's. */
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
#include "analysis/dome_votes.h"
#include "analysis/halftone.h"
#include "analysis/preprocess.h"
#include "analysis/lattice_estimate.h"
#include "sanitized.h"
#include "sem_scene.h"

static char err[256];

/* The whole image's circle votes as the candidate step casts them
 * (detect_auto.c, dome_votes.h): on the preprocessed image smoothed for
 * its halftone screen, with the image-wide gradient mean, in one
 * rectangle. */
static fs_image *whole_votes(const fs_image *img, const fs_params *p, int clahe, double pitch)
{
	fs_image *pre = NULL;
	double period = 0;
	assert_int_equal(fs_det_preprocess(img, p, clahe, &pre, err, sizeof err), 0);
	assert_int_equal(fs_halftone_detect(pre, &period, NULL), 0);
	fs_image *sm = fs_gaussian_blurred(pre, fs_dome_smoothing(pitch, period, 1), err, sizeof err);
	assert_non_null(sm);
	fs_image_free(pre);
	int w = sm->width, h = sm->height;
	double mean = fs_dome_grad_add(sm->data + w, w, h - 2, 0) / ((double)(w - 2) * (h - 2));
	fs_image *v = fs_image_new(w, h);
	assert_non_null(v);
	memset(v->data, 0, (size_t)w * h * sizeof *v->data);
	assert_int_equal(fs_dome_votes_rect(sm->data, (size_t)w, 0, 0, w, h, mean, pitch, fs_dome_votes_blur(pitch), 0,
					    0, w, h, v->data, (size_t)w, err, sizeof err),
			 0);
	fs_image_free(sm);
	return v;
}

/* How many of the n searches differ from want's in any way. */
static size_t searches_differ(const fs_lattice_probe *got, const fs_lattice_probe *want, size_t n)
{
	size_t differ = 0;
	for (size_t i = 0; i < n; i++)
		differ += got[i].key != want[i].key || got[i].bx != want[i].bx || got[i].by != want[i].by ||
			  got[i].prom != want[i].prom;
	return differ;
}

/* The searches in the votes-only response (what they read when the image
 * gives no template), made crop by crop from the tiled run's stages dr,
 * are the whole image's votes' (want) to the bit; q are the searches
 * before they ran. */
static void votes_searches_are_the_whole_images(const fs_dome_resp *dr, int R, double radius,
						const fs_lattice_probe *q, const fs_lattice_probe *want, size_t n,
						int tile)
{
	static fs_lattice_probe t[3000];
	assert_true(n <= 3000);
	fs_dome_resp vr = {.ready = 1, .st = dr->st};
	memcpy(t, q, n * sizeof *t);
	assert_int_equal(fs_dome_probe_tiled(&vr, R, radius, t, n, err, sizeof err), 0);
	size_t differ = searches_differ(t, want, n);
	if (differ)
		printf("# tile %d: %zu of %zu searches in the votes differ\n", tile, differ, n);
	assert_int_equal(differ, 0);
}

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
	static fs_lattice_probe q[3000], qt[3000], qv[3000];
	for (double y = 0.3; y < img->height - 0.5 && nq < 3000; y += 7.1)
		for (double x = 0.4; x < img->width - 0.5 && nq < 3000; x += 7.7)
			q[nq] = (fs_lattice_probe){.key = (long)nq, .sx = x, .sy = y}, nq++;
	int R = (int)(0.25 * lat.pitch_px) + 1;
	memcpy(qt, q, sizeof q);
	fs_lattice_probe_crop(resp, 0, 0, img->width, img->height, R, 0.6 * lat.pitch_px, q, nq);
	fs_image_free(resp);
	/* and in the votes */
	fs_image *votes = whole_votes(img, &p, clahe, lat.pitch_px);
	memcpy(qv, qt, sizeof qv);
	fs_lattice_probe_crop(votes, 0, 0, img->width, img->height, R, 0.6 * lat.pitch_px, qv, nq);
	fs_image_free(votes);
	assert_true(searches_differ(q, qv, nq) > 0); /* two responses: not the same searches */
	int smallest = tiles[0];
	for (size_t k = 1; k < ntiles; k++)
		smallest = tiles[k] < smallest ? tiles[k] : smallest;
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
			assert_true(dr.ready && dr.has_tpl);
			assert_int_equal(fs_dome_probe_tiled(&dr, R, 0.6 * lat.pitch_px, t, nq, err, sizeof err), 0);
			differ = searches_differ(t, q, nq);
			if (differ)
				printf("# tile %d, %d threads: %zu of %zu searches differ\n", tiles[k], threads, differ, nq);
			assert_int_equal(differ, 0);
			/* one thread, on the smallest tiles (where crops cut most):
			 * each search in the votes costs a crop's votes */
			if (threads == 1 && tiles[k] == smallest)
				votes_searches_are_the_whole_images(&dr, R, 0.6 * lat.pitch_px, qt, qv, nq, tiles[k]);
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
	sem_tight_side_lit(&o);
	o.seed = 2201;
	/* under the sanitizers (sanitized.h) the 120-px tiles only: they make
	 * each plan 20x slower, and the plain build holds the other tilings.
	 * (This read FS_UNDER_ASAN, which nothing defines here, so the
	 * sanitizer build ran all three until h33g.) */
	const int all[] = {120, 30, 512}, san[] = {120};
	const int *tiles = fs_test_subset() ? san : all;
	size_t nt = fs_test_subset() ? sizeof san / sizeof *san : sizeof all / sizeof *all;
	size_t n = compare(&o, tiles, nt);
	printf("# %zu candidates\n", n);
}

/* The whole image's dome candidates of img (full resolution, as
 * compare's) into c. */
static void whole_candidates(const fs_image *img, fs_cand_list *c)
{
	fs_params p;
	fs_params_default(&p);
	fs_lattice lat;
	assert_int_equal(fs_lattice_estimate(img, &lat, err, sizeof err), 0);
	fs_detect_set_tiling(0, 1);
	fs_image *pre = NULL;
	assert_int_equal(fs_det_preprocess(img, &p, (int)lround(3 * lat.pitch_px), &pre, err, sizeof err), 0);
	assert_int_equal(fs_detect_auto_candidates(&pre, NULL, 1, &p, lat.pitch_px, 1, c, NULL, err, sizeof err), 0);
	fs_detect_set_tiling(FS_DETECT_TILE_DEFAULT, 1);
}

/* h41d: the votes of a centred window seed the template where the image
 * holds more pitch cells than the bound (dome_votes.h,
 * fs_dome_votes_window; a bound of 256 puts this 750-cell scene over
 * it): tile by tile the whole image's to the bit, as above; and the
 * candidates one for one those that every pixel's votes seed (each
 * within 1 px of its nearest there; 849 of 885 within 0.05 px, the
 * farthest 0.56 px, a flat correlation peak), some of them not to the
 * bit (the window is in effect: the mean dome is made of a third of the
 * patches). Cost: about 1.5 s of CPU. */
static void test_votes_window(void **state)
{
	(void)state;
	sem_opts o;
	sem_tight_side_lit(&o);
	o.seed = 2201;
	double old = fs_dome_votes_set_cells(256);
	int x0, y0, x1, y1;
	assert_true(fs_dome_votes_window(o.width, o.height, o.pitch, &x0, &y0, &x1, &y1));
	assert_true(x0 > 0 && y0 > 0 && x1 < o.width && y1 < o.height);
	const int tiles[] = {120};
	compare(&o, tiles, 1);
	sem_truth truth;
	fs_image *img = sem_make(&o, &truth);
	assert_non_null(img);
	fs_cand_list a = {0}, b = {0};
	whole_candidates(img, &a);
	fs_dome_votes_set_cells(0);
	whole_candidates(img, &b);
	fs_dome_votes_set_cells(old);
	assert_int_equal(a.n, b.n);
	size_t moved = 0, far = 0;
	double worst = 0;
	/* (each matched to its nearest: a change in the last bits of the
	 * prominences may reorder them) */
	for (size_t i = 0; i < a.n; i++) {
		double d = INFINITY;
		for (size_t j = 0; j < b.n; j++)
			d = fmin(d, hypot(a.items[i].x - b.items[j].x, a.items[i].y - b.items[j].y));
		worst = fmax(worst, d);
		moved += d > 0;
		far += d > 0.05;
	}
	printf("# %zu candidates, %zu moved by the window, %zu by more than 0.05 px, at most %.4f px\n", a.n, moved,
	       far, worst);
	assert_true(worst < 1);
	assert_true(moved > 0);
	fs_cand_free(&a);
	fs_cand_free(&b);
	fs_image_free(img);
	sem_truth_free(&truth);
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
		cmocka_unit_test(test_votes_window),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
