/* log, dog and ellipse tile by tile (issue 15, detect_scale.h): forcing
 * small tiles on images of 3 x 3 tiles and more, in one and in two
 * threads, gives the same count, centres and diameters within 0.01 px and
 * the same neighbour-graph edges as the whole-image path (tile 0), with
 * the default preprocessing (CLAHE on an 8-px grid the tiles do not
 * follow, blur, stretches by the image's extremes), with the top-hat on
 * and with CLAHE off; tiles smaller than the overlap (every crop clipped)
 * too. The tiled results are also the truth's: the lattice is found.
 * Under the sanitizers (sanitized.h) a stated subset: two threads only,
 * and each method one of the three variants (clipped crops, top-hat,
 * CLAHE off), so every method and every variant still runs. */
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

#define UM_PER_PX 0.5

static void detect_with(const fs_image *img, const fs_params *p, int tile, int threads, fs_detect_result *r,
			fs_edge_list *e)
{
	fs_detect_set_tiling(tile, threads);
	int rc = fs_detect_all(img, p, UM_PER_PX, r, err, sizeof err);
	if (rc)
		printf("  %s\n", err);
	assert_int_equal(rc, 0);
	assert_int_equal(fs_graph_build(&r->tubercles, p->neighbor_graph, p->cull_long_edges, p->cull_factor, e,
					err, sizeof err),
			 0);
}

/* Detects img whole and on tiles of `tile` px (threads 1 and 2) and
 * compares; returns the number of tubercles. */
static size_t compare(const fs_image *img, const fs_params *p, int tile)
{
	fs_detect_result whole, tiled;
	fs_edge_list ew = {0}, et = {0};
	detect_with(img, p, 0, 1, &whole, &ew);
	assert_true(whole.tubercles.n > 20);
	assert_true((img->width + tile - 1) / tile >= 3 && (img->height + tile - 1) / tile >= 3);
	/* under the sanitizers two threads only: one thread runs the same
	 * tiles' code in the caller (the plain build compares both) */
	for (int threads = fs_test_subset() ? 2 : 1; threads <= 2; threads++) {
		detect_with(img, p, tile, threads, &tiled, &et);
		printf("  %s tile %d threads %d: %zu / %zu tubercles, %zu / %zu edges\n", fs_method_name(p->method),
		       tile, threads, tiled.tubercles.n, whole.tubercles.n, et.n, ew.n);
		detect_diff d;
		detect_diff_compute(&whole.tubercles, &ew, &tiled.tubercles, &et, &d);
		assert_int_equal(d.n_b, d.n_a);
		assert_int_equal(d.n_id_differ, 0);
		assert_true(d.d_centre < 0.01);
		/* these methods measure every tubercle they keep */
		assert_int_equal(d.n_radius_nan_a, 0);
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

static fs_image *lattice_image(int w, int h, double pitch, synth_truth *t)
{
	synth_opts o;
	synth_defaults(&o);
	o.width = w;
	o.height = h;
	o.pitch = pitch;
	o.angle = 0.2;
	o.jitter = 1.0;
	o.gradient = 0.3;
	o.noise = 0.03;
	fs_image *img = synth_make(&o, t);
	assert_non_null(img);
	return img;
}

/* The method's parameters for tubercles of the truth's size (as
 * test_detect.c). */
static void params_for(fs_params *p, fs_method m, const synth_truth *t)
{
	fs_params_default(p);
	p->method = m;
	double d_um = 2 * t->radius * UM_PER_PX;
	p->min_diameter_um = 0.5 * d_um;
	p->max_diameter_um = 1.5 * d_um;
	if (m == FS_METHOD_ELLIPSE)
		p->min_circularity = 0; /* 1 - eccentricity is harsh on small pixel discs */
}

/* Most true tubercles inside the margin are found by the tiled path too
 * (it equals the whole one, which test_detect.c holds to the truth). */
static void found_the_lattice(const fs_image *img, const fs_params *p, int tile, const synth_truth *t)
{
	fs_detect_result r;
	fs_detect_set_tiling(tile, 1);
	assert_int_equal(fs_detect_all(img, p, UM_PER_PX, &r, err, sizeof err), 0);
	fs_detect_set_tiling(FS_DETECT_TILE_DEFAULT, 1);
	size_t n = r.tubercles.n;
	double *xs = malloc((n + 1) * sizeof *xs), *ys = malloc((n + 1) * sizeof *ys);
	for (size_t i = 0; i < n; i++) {
		xs[i] = r.tubercles.items[i].centroid_x;
		ys[i] = r.tubercles.items[i].centroid_y;
	}
	synth_score s;
	synth_match(t, xs, ys, n, img->width, img->height, 30, 0.3 * t->radius, &s, NULL);
	printf("  %s tiled: recall %.3f precision %.3f\n", fs_method_name(p->method), s.recall, s.precision);
	assert_true(s.recall >= 0.9);
	/* ellipse keeps some background regions under the illumination
	 * gradient (the whole-image path the same) */
	assert_true(s.precision >= (p->method == FS_METHOD_ELLIPSE ? 0.7 : 0.9));
	free(xs);
	free(ys);
	fs_detect_result_free(&r);
}

/* Whether method m runs variant v (1..3) here: every one in the plain
 * build; under the sanitizers (memory and undefined behaviour, not
 * accuracy) method m the variant m + 1 only, so each variant and each
 * method still runs once. */
static int runs_variant(fs_method m, int v)
{
	return !fs_test_subset() || (m == FS_METHOD_LOG ? 1 : m == FS_METHOD_DOG ? 2 : 3) == v;
}

static void run_method(fs_method m)
{
	synth_truth t;
	/* 4 x 4 tiles of 160 px */
	fs_image *img = lattice_image(620, 560, 24, &t);
	fs_params p;
	params_for(&p, m, &t);
	assert_true(compare(img, &p, 160) > 300);
	found_the_lattice(img, &p, 160, &t);
	/* 1: tiles smaller than the overlap: every crop is clipped */
	if (runs_variant(m, 1))
		compare(img, &p, 48);
	/* 2: the top-hat (its crop widened by twice the radius); 3: CLAHE off */
	if (runs_variant(m, 2)) {
		p.tophat_radius = 14;
		compare(img, &p, 160);
		p.tophat_radius = 0;
	}
	if (runs_variant(m, 3)) {
		p.clahe_clip = 0;
		p.blur_sigma = 1.5;
		compare(img, &p, 160);
	}
	fs_image_free(img);
	synth_truth_free(&t);
}

static void test_log(void **state)
{
	(void)state;
	run_method(FS_METHOD_LOG);
}

static void test_dog(void **state)
{
	(void)state;
	run_method(FS_METHOD_DOG);
}

static void test_ellipse(void **state)
{
	(void)state;
	run_method(FS_METHOD_ELLIPSE);
}

/* A compact (8-bit) image is read a crop at a time: the same as its float
 * copy detected whole. */
static void test_compact_source(void **state)
{
	(void)state;
	synth_truth t;
	fs_image *img = lattice_image(500, 500, 24, &t);
	fs_image *c = fs_image_new_compact(img->width, img->height, 8);
	assert_non_null(c);
	unsigned char *px = c->px;
	for (size_t i = 0; i < (size_t)img->width * img->height; i++) {
		long v = lround(img->data[i] * 255);
		px[i] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
		img->data[i] = px[i] / 255.0f;
	}
	fs_params p;
	params_for(&p, FS_METHOD_LOG, &t);
	fs_detect_result a, b;
	fs_detect_set_tiling(0, 1);
	assert_int_equal(fs_detect_all(img, &p, UM_PER_PX, &a, err, sizeof err), 0);
	fs_detect_set_tiling(128, 1);
	assert_int_equal(fs_detect_all(c, &p, UM_PER_PX, &b, err, sizeof err), 0);
	fs_detect_set_tiling(FS_DETECT_TILE_DEFAULT, 1);
	assert_true(a.tubercles.n > 200);
	assert_int_equal(a.tubercles.n, b.tubercles.n);
	for (size_t i = 0; i < a.tubercles.n; i++) {
		assert_true(fabs(a.tubercles.items[i].centroid_x - b.tubercles.items[i].centroid_x) < 0.01);
		assert_true(fabs(a.tubercles.items[i].centroid_y - b.tubercles.items[i].centroid_y) < 0.01);
	}
	fs_detect_result_free(&a);
	fs_detect_result_free(&b);
	fs_image_free(c);
	fs_image_free(img);
	synth_truth_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log),
		cmocka_unit_test(test_dog),
		cmocka_unit_test(test_ellipse),
		cmocka_unit_test(test_compact_source),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
