/* Streaming, tiled measurement (issue 15, detect_tiled.c): forcing small
 * tiles on images of 3 x 3 tiles and more, in one and in two threads, gives
 * the same count, centres and diameters within 0.01 px and the same
 * neighbour-graph edges as the whole-image path (tile 0); an image that fits
 * one tile gives the same result too. Methods auto and lattice, with and
 * without the top-hat, at a pitch measured at full resolution (40 px) and
 * at one measured on the reduced image (pitch >= 60 px). The dome-base
 * rule (fs_detect_domes) measures on one image prepared whole (its halftone
 * search and blur calibration are per image): the tiling setting does not
 * change its results either. At a fine pitch (14 px, below the 20 px from
 * which the detection reduces the image) the preprocessing runs at full
 * resolution, its top-hat tile by tile (preprocess_tiled.h): the same
 * results on 4 x 4 tiles, with and without the top-hat. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/detect.h"
#include "analysis/graph.h"
#include "detect_diff.h"
#include "sanitized.h"
#include "synth.h"

static char err[256];

/* The tiled runs compared with the whole image: in one and in two threads;
 * under the sanitizers (sanitized.h: memory and undefined behaviour, not
 * results) in two only, since one thread runs the same tiles' code in the
 * caller. */
#define FIRST_THREADS (fs_test_subset() ? 2 : 1)

typedef int (*detect_fn)(const fs_image *, const fs_params *, double, fs_detect_result *, char *, size_t);

static void detect_with(detect_fn fn, const fs_image *img, const fs_params *p, int tile, int threads,
			fs_detect_result *r, fs_edge_list *e)
{
	fs_detect_set_tiling(tile, threads);
	assert_int_equal(fn(img, p, 0, r, err, sizeof err), 0);
	assert_int_equal(fs_graph_build(&r->tubercles, p->neighbor_graph, p->cull_long_edges, p->cull_factor, e,
					err, sizeof err),
			 0);
}

/* Detects img whole and on tiles of `tile` px (threads 1 and 2) and
 * compares; returns the number of tubercles. */
static size_t compare_with(detect_fn fn, const fs_image *img, const fs_params *p, int tile)
{
	fs_detect_result whole, tiled;
	fs_edge_list ew = {0}, et = {0};
	detect_with(fn, img, p, 0, 1, &whole, &ew);
	assert_true(whole.tubercles.n > 20);
	for (int threads = FIRST_THREADS; threads <= 2; threads++) {
		detect_with(fn, img, p, tile, threads, &tiled, &et);
		detect_diff d;
		detect_diff_compute(&whole.tubercles, &ew, &tiled.tubercles, &et, &d);
		assert_int_equal(d.n_b, d.n_a);
		assert_int_equal(d.n_id_differ, 0);
		assert_true(d.d_centre < 0.01);
		/* a tubercle unmeasured whole is unmeasured tiled */
		assert_int_equal(d.n_radius_nan_mismatch, 0);
		assert_true(d.d_radius < 0.01);
		assert_true(d.d_circularity < 1e-3);
		assert_int_equal(d.ne_b, d.ne_a);
		assert_int_equal(d.n_edge_differ, 0);
		fs_detect_result_free(&tiled);
		fs_edge_list_free(&et);
	}
	size_t n = whole.tubercles.n;
	fs_detect_result_free(&whole);
	fs_edge_list_free(&ew);
	fs_detect_set_tiling(FS_DETECT_TILE_DEFAULT, 1);
	return n;
}

static size_t compare(const fs_image *img, const fs_params *p, int tile)
{
	return compare_with(fs_detect, img, p, tile);
}

/* The tests here compare two paths on one image: the truth is not needed. */
static fs_image *lattice_image(int w, int h, double pitch)
{
	synth_opts o;
	synth_truth t;
	synth_defaults(&o);
	o.width = w;
	o.height = h;
	o.pitch = pitch;
	o.angle = 0.2;
	o.jitter = 1.5;
	o.gradient = 0.3;
	o.noise = 0.03;
	fs_image *img = synth_make(&o, &t);
	assert_non_null(img);
	synth_truth_free(&t);
	return img;
}

/* 900 x 800 px on 200-px tiles: 5 x 4 tiles, pitch 40 (full resolution). */
static void test_auto_many_tiles(void **state)
{
	(void)state;
	fs_image *img = lattice_image(900, 800, 40);
	fs_params p;
	fs_params_default(&p);
	size_t n = compare(img, &p, 200);
	assert_true(n > 300);
	/* the tiles are smaller than the overlap: every crop is clipped */
	compare(img, &p, 64);
	fs_image_free(img);
}

static void test_auto_tophat(void **state)
{
	(void)state;
	fs_image *img = lattice_image(700, 700, 40);
	fs_params p;
	fs_params_default(&p);
	p.tophat_radius = 12;
	compare(img, &p, 200);
	fs_image_free(img);
}

static void test_lattice_method(void **state)
{
	(void)state;
	fs_image *img = lattice_image(700, 640, 36);
	fs_params p;
	fs_params_default(&p);
	p.method = FS_METHOD_LATTICE;
	compare(img, &p, 160);
	fs_image_free(img);
}

/* Pitch 64: measured on the image reduced by 2, 3 x 3 tiles of 200 px there. */
static void test_reduced_measurement(void **state)
{
	(void)state;
	fs_image *img = lattice_image(1200, 1200, 64);
	fs_params p;
	fs_params_default(&p);
	compare(img, &p, 200);
	fs_image_free(img);
}

/* An image that fits one tile: the same as the whole-image path. */
static void test_one_tile(void **state)
{
	(void)state;
	fs_image *img = lattice_image(400, 300, 30);
	fs_params p;
	fs_params_default(&p);
	compare(img, &p, FS_DETECT_TILE_DEFAULT);
	fs_image_free(img);
}

/* The dome-base rule at a pitch whose candidates are refined (40 px) and
 * at one whose are not (16 px). */
static void test_domes(void **state)
{
	(void)state;
	fs_image *img = lattice_image(900, 800, 40);
	fs_params p;
	fs_params_default(&p);
	assert_true(compare_with(fs_detect_domes, img, &p, 200) > 300);
	fs_image_free(img);
	img = lattice_image(500, 400, 16);
	assert_true(compare_with(fs_detect_domes, img, &p, 100) > 300);
	fs_image_free(img);
}

/* Pitch 14: preprocessed at full resolution, 640 x 560 px on 160-px tiles
 * (4 x 4), auto and lattice, with and without the top-hat. */
static void test_fine_pitch(void **state)
{
	(void)state;
	fs_image *img = lattice_image(640, 560, 14);
	fs_params p;
	fs_params_default(&p);
	for (int m = 0; m < 2; m++) {
		p.method = m ? FS_METHOD_LATTICE : FS_METHOD_AUTO;
		p.tophat_radius = 0;
		assert_true(compare(img, &p, 160) > 1200);
		p.tophat_radius = 6;
		assert_true(compare(img, &p, 160) > 1200);
	}
	fs_image_free(img);
}

/* Detects img whole (tile 0) and on tiles of `tile` px in one and two
 * threads: the same tubercles (centres and radii within 1e-9 px: only the
 * measurement's ray coordinates differ, relative to a crop) and the same
 * edges. Returns the whole image's result (the caller frees). */
static void same_bits_as_whole(const fs_image *img, const fs_params *p, int tile, fs_detect_result *whole)
{
	fs_detect_result tiled;
	fs_edge_list ew = {0}, et = {0};
	detect_with(fs_detect, img, p, 0, 1, whole, &ew);
	for (int threads = FIRST_THREADS; threads <= 2; threads++) {
		detect_with(fs_detect, img, p, tile, threads, &tiled, &et);
		detect_diff d;
		detect_diff_compute(&whole->tubercles, &ew, &tiled.tubercles, &et, &d);
		assert_int_equal(d.n_b, d.n_a);
		assert_int_equal(d.n_id_differ, 0);
		assert_int_equal(d.n_source_differ, 0);
		/* the measurement's rays in crop coordinates (detect_tiled.h); the
		 * candidates are the same to the last bit (test_preprocess_tiled) */
		assert_true(d.d_centre < 1e-9);
		assert_true(d.d_radius < 1e-9);
		assert_int_equal(d.ne_b, d.ne_a);
		assert_int_equal(d.n_edge_differ, 0);
		fs_detect_result_free(&tiled);
		fs_edge_list_free(&et);
	}
	fs_edge_list_free(&ew);
	fs_detect_set_tiling(FS_DETECT_TILE_DEFAULT, 1);
}

/* Pitch 14 with sites left out, on 3 x 3 tiles of 200 px and on 4 x 4 of
 * 150 (the CLAHE grid of 42 px, the response's and the rays' overlap of
 * 17 px cross every tile border): auto's candidates and lattice's recovery
 * searches made tile by tile (detect_cand_tiled.h) give the whole image's
 * tubercles, and those are the simulated lattice's. Lattice also with a
 * prominence limit that leaves most tubercles to its recovery. */
static void test_fine_pitch_candidates_tiled(void **state)
{
	(void)state;
	synth_opts o;
	synth_truth t;
	synth_defaults(&o);
	o.width = 600;
	o.height = 580;
	o.pitch = 14;
	o.angle = 0.3;
	o.jitter = 0.5;
	o.missing = 0.03;
	o.gradient = 0.4;
	o.noise = 0.03;
	fs_image *img = synth_make(&o, &t);
	assert_non_null(img);
	fs_params p;
	fs_params_default(&p);
	for (int m = 0; m < 2; m++) {
		p.method = m ? FS_METHOD_LATTICE : FS_METHOD_AUTO;
		for (int tile = 150; tile <= 250; tile += 50) {
			/* the third round: lattice, recovering */
			p.auto_prominence = m && tile > 200 ? 0.9 : 0.3;
			fs_detect_result r;
			same_bits_as_whole(img, &p, tile, &r);
			double *xs = malloc(r.tubercles.n * sizeof *xs), *ys = malloc(r.tubercles.n * sizeof *ys);
			assert_true(xs && ys);
			size_t recovered = 0;
			for (size_t i = 0; i < r.tubercles.n; i++) {
				xs[i] = r.tubercles.items[i].centroid_x;
				ys[i] = r.tubercles.items[i].centroid_y;
				recovered += r.tubercles.items[i].source == FS_SOURCE_LATTICE;
			}
			synth_score sc;
			synth_match(&t, xs, ys, r.tubercles.n, o.width, o.height, 2 * o.pitch, 0.25 * o.pitch, &sc,
				    NULL);
			print_message("pitch 14, %s, tiles of %d: %zu tubercles (%zu recovered), recall %.3f "
				      "precision %.3f\n",
				      m ? "lattice" : "auto", tile, r.tubercles.n, recovered, sc.recall, sc.precision);
			assert_true(sc.recall > 0.95);
			assert_true(sc.precision > 0.95);
			/* a prominence limit starves the outline rule's candidates
			 * (smoothed brightness peaks); the dome rule's are the
			 * peaks of its template correlation, which it does not
			 * starve (30 of 1873 left to recovery at pitch 14, with
			 * recall and precision as above) */
			if (p.auto_prominence > 0.5 && fs_measurement_get_rule() == FS_RULE_OUTLINE)
				assert_true(recovered > r.tubercles.n / 10);
			free(xs);
			free(ys);
			fs_detect_result_free(&r);
		}
	}
	fs_image_free(img);
	synth_truth_free(&t);
}

static void test_setting_clamped(void **state)
{
	(void)state;
	int tile, threads;
	fs_detect_set_tiling(3, 99);
	fs_detect_get_tiling(&tile, &threads);
	assert_int_equal(tile, 16);
	assert_int_equal(threads, 8);
	fs_detect_set_tiling(-5, 0);
	fs_detect_get_tiling(&tile, &threads);
	assert_int_equal(tile, 0);
	assert_int_equal(threads, 1);
	fs_detect_set_tiling(FS_DETECT_TILE_DEFAULT, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_auto_many_tiles),   cmocka_unit_test(test_auto_tophat),
		cmocka_unit_test(test_lattice_method),    cmocka_unit_test(test_reduced_measurement),
		cmocka_unit_test(test_one_tile),          cmocka_unit_test(test_domes),
		cmocka_unit_test(test_fine_pitch),        cmocka_unit_test(test_fine_pitch_candidates_tiled),
		cmocka_unit_test(test_setting_clamped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
