/* Compact working images (issue 15, image.h) through the analysis: an
 * 8-bit simulated SEM image (sem_sim: domes with known centres) held in
 * one byte a pixel gives exactly the result of the same image as floats -
 * the same tubercles (count, centres, diameters bit for bit), edges, scale
 * region, lattice estimate, reduced image and data bar - for methods auto
 * and lattice, whole and on tiles in one and two threads; and the result
 * finds the simulated domes. A 16-bit image likewise. And the untiled
 * methods' size limit (detect.h). Under the sanitizers (sanitized.h) each
 * image and method runs one of the three tilings, in turn, so every
 * tiling runs with each method and each image once (a third of the
 * detections). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/databar.h"
#include "analysis/detect.h"
#include "analysis/graph.h"
#include "analysis/lattice_estimate.h"
#include "analysis/preprocess.h"
#include "analysis/scale_region.h"
#include "databar_synth.h"
#include "sanitized.h"
#include "sem_sim.h"

static char err[256];

/* The compact twin of a quantised float image: the codes k with
 * fs_image_compact_value(bits, k) == the float sample (asserted). */
static fs_image *compact_of(const fs_image *f, int bits)
{
	fs_image *c = fs_image_new_compact(f->width, f->height, bits);
	assert_non_null(c);
	double top = bits == 8 ? 255.0 : 65535.0;
	size_t n = (size_t)f->width * f->height;
	for (size_t i = 0; i < n; i++) {
		long k = lround(f->data[i] * top);
		assert_true(k >= 0 && k <= (long)top);
		if (bits == 8)
			((uint8_t *)c->px)[i] = (uint8_t)k;
		else
			((uint16_t *)c->px)[i] = (uint16_t)k;
		assert_true(fs_image_compact_value(bits, (unsigned)k) == f->data[i]);
	}
	return c;
}

/* The floats a loader makes of the image saved at `bits` (the simulator
 * quantises in its own arithmetic). */
static void quantise(fs_image *img, int bits)
{
	double top = bits == 8 ? 255.0 : 65535.0;
	size_t n = (size_t)img->width * img->height;
	for (size_t i = 0; i < n; i++)
		img->data[i] = fs_image_compact_value(bits, (unsigned)lround(fmin(fmax(img->data[i], 0), 1) * top));
}

static fs_image *sem_scene(int bits, double pitch, sem_truth *t)
{
	sem_opts o;
	sem_defaults(&o);
	o.width = 480;
	o.height = 400;
	o.pitch = pitch;
	o.bits = bits;
	o.margin_top = 40;
	o.black_left = 50;
	fs_image *img = sem_make(&o, t);
	assert_non_null(img);
	quantise(img, bits);
	return img;
}

/* The same value, an unmeasured diameter (NaN, the dome rule's) included:
 * NaN == NaN is false, and both storages must leave the same tubercles
 * unmeasured. */
static int same(double x, double y)
{
	return x == y || (isnan(x) && isnan(y));
}

static void assert_same_result(fs_detect_result *a, fs_detect_result *b, const fs_params *p)
{
	assert_int_equal(a->tubercles.n, b->tubercles.n);
	assert_true(a->pitch_px == b->pitch_px);
	assert_int_equal(a->n_outside_region, b->n_outside_region);
	for (size_t i = 0; i < a->tubercles.n; i++) {
		const fs_tubercle *x = &a->tubercles.items[i], *y = &b->tubercles.items[i];
		assert_int_equal(x->id, y->id);
		assert_true(x->centroid_x == y->centroid_x);
		assert_true(x->centroid_y == y->centroid_y);
		assert_true(same(x->radius_px, y->radius_px));
		assert_true(same(x->circularity, y->circularity));
		assert_true(same(x->fit_quality, y->fit_quality));
	}
	fs_edge_list ea = {0}, eb = {0};
	assert_int_equal(fs_graph_build(&a->tubercles, p->neighbor_graph, p->cull_long_edges, p->cull_factor, &ea, err,
					sizeof err),
			 0);
	assert_int_equal(fs_graph_build(&b->tubercles, p->neighbor_graph, p->cull_long_edges, p->cull_factor, &eb, err,
					sizeof err),
			 0);
	assert_int_equal(ea.n, eb.n);
	for (size_t i = 0; i < ea.n; i++) {
		assert_int_equal(ea.items[i].id1, eb.items[i].id1);
		assert_int_equal(ea.items[i].id2, eb.items[i].id2);
	}
	fs_edge_list_free(&ea);
	fs_edge_list_free(&eb);
}

/* Most domes whose base lies in the scale region are found within a
 * quarter pitch of their true centre. */
static void assert_finds_domes(const fs_detect_result *r, const sem_truth *t)
{
	size_t n = r->tubercles.n;
	double *xs = malloc((n + 1) * sizeof *xs), *ys = malloc((n + 1) * sizeof *ys);
	int *mt = malloc(t->n * sizeof *mt);
	assert_non_null(xs);
	assert_non_null(ys);
	assert_non_null(mt);
	for (size_t i = 0; i < n; i++) {
		xs[i] = r->tubercles.items[i].centroid_x;
		ys[i] = r->tubercles.items[i].centroid_y;
	}
	assert_int_equal(sem_match(t, xs, ys, n, 0.25 * t->pitch, NULL, mt), 0);
	size_t counted = 0, found = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (!sem_counted(t, t->x[i], t->y[i]))
			continue;
		counted++;
		found += mt[i] >= 0;
	}
	assert_true(counted > 50);
	assert_true(found >= 0.9 * counted);
	free(xs);
	free(ys);
	free(mt);
}

/* pitch 26: detection on the image reduced by 2; pitch 14: on the full
 * resolution (the preprocessing converts the compact image whole). */
static void compare_detection(int bits, double pitch, int turn)
{
	sem_truth t;
	fs_image *f = sem_scene(bits, pitch, &t);
	fs_image *c = compact_of(f, bits);
	fs_method methods[] = {FS_METHOD_AUTO, FS_METHOD_LATTICE};
	for (int m = 0; m < 2; m++) {
		fs_params p;
		fs_params_default(&p);
		p.method = methods[m];
		p.tophat_radius = 12; /* a non-default preprocessing too */
		/* the whole-image path, then 3 x 3 tiles and more in one and two threads */
		int tiles[][2] = {{0, 1}, {128, 1}, {128, 2}};
		for (int k = 0; k < 3; k++) {
			if (fs_test_subset() && k != (turn + m) % 3)
				continue;
			fs_detect_set_tiling(tiles[k][0], tiles[k][1]);
			fs_detect_result rf, rc;
			assert_int_equal(fs_detect(f, &p, 0, &rf, err, sizeof err), 0);
			assert_int_equal(fs_detect(c, &p, 0, &rc, err, sizeof err), 0);
			assert_same_result(&rf, &rc, &p);
			if (methods[m] == FS_METHOD_AUTO)
				assert_finds_domes(&rc, &t);
			fs_detect_result_free(&rf);
			fs_detect_result_free(&rc);
		}
	}
	fs_detect_set_tiling(FS_DETECT_TILE_DEFAULT, 1);
	fs_image_free(f);
	fs_image_free(c);
	sem_truth_free(&t);
}

static void test_detect_8bit(void **state)
{
	(void)state;
	compare_detection(8, 26, 0);
	compare_detection(8, 14, 1);
}

static void test_detect_16bit(void **state)
{
	(void)state;
	compare_detection(16, 26, 2);
}

/* The image-wide steps that read a compact image by rows. */
static void test_region_lattice_downsample(void **state)
{
	(void)state;
	sem_truth t;
	fs_image *f = sem_scene(8, 26, &t);
	fs_image *c = compact_of(f, 8);
	fs_scale_region a, b;
	assert_int_equal(fs_scale_region_detect(f, &a, err, sizeof err), 0);
	assert_int_equal(fs_scale_region_detect(c, &b, err, sizeof err), 0);
	assert_int_equal(a.gw, b.gw);
	assert_int_equal(a.gh, b.gh);
	assert_memory_equal(a.in, b.in, (size_t)a.gw * a.gh);
	/* and it is the simulated region: the paper margin on top is out */
	assert_false(fs_scale_region_contains(&b, t.rx0 + 100, 10));
	assert_true(fs_scale_region_contains(&b, 0.5 * (t.rx0 + t.rx1), 0.5 * (t.ry0 + t.ry1)));
	fs_scale_region_free(&a);
	fs_scale_region_free(&b);
	fs_lattice la, lb;
	assert_int_equal(fs_lattice_estimate(f, &la, err, sizeof err), 0);
	assert_int_equal(fs_lattice_estimate(c, &lb, err, sizeof err), 0);
	assert_true(la.pitch_px == lb.pitch_px);
	assert_true(la.angle == lb.angle);
	assert_true(fabs(lb.pitch_px - t.pitch) < 0.05 * t.pitch);
	for (int fct = 1; fct <= 3; fct++) {
		fs_image *da = fs_downsample(f, fct), *db = fs_downsample(c, fct);
		assert_non_null(da);
		assert_non_null(db);
		assert_int_equal(db->bits, 0);
		assert_int_equal(da->width, db->width);
		assert_memory_equal(da->data, db->data, (size_t)da->width * da->height * sizeof(float));
		fs_image_free(da);
		fs_image_free(db);
	}
	fs_image_free(f);
	fs_image_free(c);
	sem_truth_free(&t);
}

/* The data bar finder (part of the scale region) on a compact image, 8
 * and 16 bits (its masks classify the codes by a table of each). */
static void test_databar(void **state)
{
	(void)state;
	for (int k = 0; k < 4; k++) {
		int style = k % 2, bits = k < 2 ? 8 : 16;
		dbs_opts o;
		dbs_defaults(&o);
		o.style = style;
		dbs_truth t;
		fs_image *f = dbs_make(&o, &t, err, sizeof err);
		if (!f)
			fail_msg("%s", err);
		quantise(f, bits);
		fs_image *c = compact_of(f, bits);
		fs_databar a, b;
		assert_int_equal(fs_databar_find(f, &a, err, sizeof err), 0);
		assert_int_equal(fs_databar_find(c, &b, err, sizeof err), 0);
		assert_int_equal(b.found, 1);
		assert_memory_equal(&a, &b, sizeof a);
		/* where the synthetic drew it */
		assert_true(fabs(b.line_x0 - t.bar_x0) < 1.0);
		assert_true(fabs(b.line_x1 - t.bar_x1) < 1.0);
		fs_image_free(f);
		fs_image_free(c);
	}
}

/* log, dog and ellipse detect tile by tile (detect_scale.h): with the
 * default tiling every size is taken; with tiling off (tile 0) they keep
 * full-size scale layers (detect.h), and an image over
 * FS_DETECT_UNTILED_MAX_PIXELS is refused at once, with a message saying
 * to detect tile by tile; auto and lattice have no limit either way. */
static void test_layered_methods_refused_only_untiled(void **state)
{
	(void)state;
	fs_image *big = fs_image_new_compact(6000, 4400, 8); /* 26.4 MP, 26 MB compact */
	assert_non_null(big);
	memset(big->px, 0, fs_image_bytes(big));
	fs_method layered[] = {FS_METHOD_LOG, FS_METHOD_DOG, FS_METHOD_ELLIPSE};
	fs_detect_set_tiling(0, 1);
	for (int i = 0; i < 3; i++) {
		fs_params p;
		fs_params_default(&p);
		p.method = layered[i];
		fs_detect_result r;
		err[0] = 0;
		assert_int_equal(fs_detect(big, &p, 0.5, &r, err, sizeof err), -1);
		assert_non_null(strstr(err, "tile by tile"));
		assert_non_null(strstr(err, fs_method_name(layered[i])));
		assert_int_equal(r.tubercles.n, 0);
		assert_int_equal(fs_detect_check_size(layered[i], 5000, 5200, err, sizeof err), 0);
		assert_int_equal(fs_detect_check_size(layered[i], 6000, 4400, err, sizeof err), -1);
		assert_true(fs_detect_max_pixels(layered[i]) == FS_DETECT_UNTILED_MAX_PIXELS);
	}
	assert_int_equal(fs_detect_check_size(FS_METHOD_AUTO, 10000, 10000, err, sizeof err), 0);
	assert_true(fs_detect_max_pixels(FS_METHOD_LATTICE) == 0);
	fs_detect_set_tiling(FS_DETECT_TILE_DEFAULT, 1);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(fs_detect_check_size(layered[i], 10000, 10000, err, sizeof err), 0);
		assert_true(fs_detect_max_pixels(layered[i]) == 0);
	}
	assert_int_equal(fs_detect_check_size(FS_METHOD_LATTICE, 10000, 10000, err, sizeof err), 0);
	assert_true(fs_detect_max_pixels(FS_METHOD_AUTO) == 0);
	fs_image_free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect_8bit),
		cmocka_unit_test(test_detect_16bit),
		cmocka_unit_test(test_region_lattice_downsample),
		cmocka_unit_test(test_databar),
		cmocka_unit_test(test_layered_methods_refused_only_untiled),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
