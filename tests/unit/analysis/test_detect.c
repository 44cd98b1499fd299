/* Detection on synthetic hexagonal lattices with known truth: recall and
 * precision (match within 0.3 x the true radius), mean diameter and mean
 * spacing (edge to edge between neighbours) within 5 % of the truth.
 * The means are the statistics' (metrics.h): over the measured tubercles
 * only. A tubercle left unmeasured (the dome rule's radius NaN: no base
 * circle, or flat ground where noise alone lines steps up) must be a
 * false detection - nothing under it - never one of the disks, whose
 * bases are there to read (h33f: under the dome rule the lattice method's
 * sites predicted into the dark band and log's and dog's detections
 * between the disks are left so, and before this the NaN made every mean
 * NaN). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/detect.h"
#include "analysis/measurement.h"
#include "synth.h"

static char err[256];

typedef struct outcome {
	synth_score score;
	double mean_d, true_d, mean_s, true_s, pitch;
	size_t n;
	size_t n_unmeasured; /* left without a diameter */
	size_t unmeasured_true; /* ... of them matched to a true disk */
	size_t lattice_false;   /* recovered from the lattice where no disk is */
} outcome;

static void run(const synth_opts *o, fs_method m, double um_per_px, outcome *res)
{
	synth_truth t;
	fs_image *img = synth_make(o, &t);
	assert_non_null(img);
	fs_params p;
	fs_params_default(&p);
	p.method = m;
	if (m != FS_METHOD_AUTO && m != FS_METHOD_LATTICE) {
		double d_um = 2 * t.radius * um_per_px;
		p.min_diameter_um = 0.5 * d_um;
		p.max_diameter_um = 1.5 * d_um;
	}
	if (m == FS_METHOD_ELLIPSE)
		p.min_circularity = 0; /* 1 - eccentricity is harsh on small pixel discs */
	fs_detect_result r;
	assert_int_equal(fs_detect(img, &p, um_per_px, &r, err, sizeof err), 0);
	size_t n = r.tubercles.n;
	double *xs = malloc((n + 1) * sizeof *xs), *ys = malloc((n + 1) * sizeof *ys);
	int *match = malloc((n + 1) * sizeof *match);
	assert_true(xs && ys && match);
	double sd = 0;
	size_t nm = 0;
	for (size_t i = 0; i < n; i++) {
		xs[i] = r.tubercles.items[i].centroid_x;
		ys[i] = r.tubercles.items[i].centroid_y;
		if (fs_tubercle_measured(&r.tubercles.items[i])) {
			sd += 2 * r.tubercles.items[i].radius_px;
			nm++;
		}
	}
	synth_match(&t, xs, ys, n, o->width, o->height, o->pitch, 0.3 * t.radius, &res->score, match);
	res->n = n;
	res->n_unmeasured = n - nm;
	res->unmeasured_true = 0;
	res->lattice_false = 0;
	for (size_t i = 0; i < n; i++) {
		res->unmeasured_true += !fs_tubercle_measured(&r.tubercles.items[i]) && match[i] >= 0;
		res->lattice_false += r.tubercles.items[i].source == FS_SOURCE_LATTICE && match[i] < 0;
	}
	res->mean_d = nm ? sd / nm : 0;
	res->true_d = 2 * t.radius;
	res->mean_s = synth_mean_space(&r.tubercles, o->pitch);
	res->true_s = t.spacing;
	res->pitch = r.pitch_px;
	printf("  pitch %.0f ratio %.2f: n %zu (unmeasured %zu, on a disk %zu; lattice sites on no disk %zu) recall %.3f precision %.3f D "
	       "%.2f/%.2f S %.2f/%.2f\n",
	       o->pitch, o->diam_ratio, n, res->n_unmeasured, res->unmeasured_true, res->lattice_false, res->score.recall,
	       res->score.precision, res->mean_d, res->true_d, res->mean_s, res->true_s);
	free(match);
	free(xs);
	free(ys);
	fs_detect_result_free(&r);
	fs_image_free(img);
	synth_truth_free(&t);
}

static void hard_conditions(synth_opts *o, double pitch, double ratio)
{
	synth_defaults(o);
	o->pitch = pitch;
	o->diam_ratio = ratio;
	o->angle = 0.3;
	o->jitter = 0.05 * pitch;
	o->missing = 0.05;
	o->gradient = 0.4;
	o->dark_left = 60;
	o->seed = (unsigned)(pitch * 100 + ratio * 10);
}

static void assert_good(const outcome *r, double tol)
{
	assert_int_equal(r->unmeasured_true, 0);
	assert_true(r->score.recall >= 0.95);
	assert_true(r->score.precision >= 0.95);
	assert_true(fabs(r->mean_d - r->true_d) <= tol * r->true_d);
	assert_true(fabs(r->mean_s - r->true_s) <= tol * r->true_s);
}

static void auto_pitch_20_all_sizes(void **state)
{
	(void)state;
	double ratios[] = {0.3, 0.5, 0.75};
	for (int i = 0; i < 3; i++) {
		synth_opts o;
		outcome r;
		hard_conditions(&o, 20, ratios[i]);
		run(&o, FS_METHOD_AUTO, 0, &r);
		assert_float_equal(r.pitch, 20, 0.4);
		assert_good(&r, 0.05);
	}
}

static void auto_pitch_35_all_sizes(void **state)
{
	(void)state;
	double ratios[] = {0.3, 0.5, 0.75};
	for (int i = 0; i < 3; i++) {
		synth_opts o;
		outcome r;
		hard_conditions(&o, 35, ratios[i]);
		run(&o, FS_METHOD_AUTO, 0, &r);
		assert_good(&r, 0.05);
	}
}

static void auto_pitch_70_measured_on_reduced_image(void **state)
{
	(void)state;
	/* Pitches >= 60 px are measured at half resolution (or less): sizes
	 * and spacing must stay as accurate as at full resolution. */
	double ratios[] = {0.3, 0.75};
	for (int i = 0; i < 2; i++) {
		synth_opts o;
		outcome r;
		hard_conditions(&o, 70, ratios[i]);
		o.width = 1100;
		o.height = 800;
		o.blur = 1.5;
		run(&o, FS_METHOD_AUTO, 0, &r);
		assert_float_equal(r.pitch, 70, 1.4);
		assert_good(&r, 0.05);
	}
}

static void auto_pitch_12_medium_and_large(void **state)
{
	(void)state;
	double ratios[] = {0.5, 0.6};
	for (int i = 0; i < 2; i++) {
		synth_opts o;
		outcome r;
		hard_conditions(&o, 12, ratios[i]);
		run(&o, FS_METHOD_AUTO, 0, &r);
		assert_good(&r, 0.05);
	}
}

static void auto_sixteen_bit_rotated_noisy(void **state)
{
	(void)state;
	synth_opts o;
	outcome r;
	hard_conditions(&o, 24, 0.55);
	o.bits = 16;
	o.angle = 0.9;
	o.noise = 0.04;
	o.blur = 1.2;
	run(&o, FS_METHOD_AUTO, 0, &r);
	assert_good(&r, 0.05);
}

static void lattice_method_recovers_faint_sites(void **state)
{
	(void)state;
	synth_opts o;
	outcome r;
	hard_conditions(&o, 20, 0.5);
	o.missing = 0.15;
	run(&o, FS_METHOD_LATTICE, 0, &r);
	assert_good(&r, 0.05);
	/* No site is kept where no disk is, under either rule: under the
	 * dome rule 12 on the dark band's edge (x = 58-67, no disk centre
	 * below x = 66) and 2 in holes left by missing sites passed the
	 * recovery's checks (measured alone, the band's edge or the
	 * neighbours' feet in the checked disc) and stayed, unmeasured (h34d,
	 * h34j) */
	assert_int_equal(r.lattice_false, 0);
	assert_int_equal(r.n_unmeasured, 0);
}

static void log_diameter_is_measured_not_the_scale(void **state)
{
	(void)state;
	/* The scale range starts far below the true size: the original reported
	 * the minimum for every blob; here the profile decides. */
	synth_opts o;
	outcome r;
	hard_conditions(&o, 20, 0.5);
	run(&o, FS_METHOD_LOG, 0.5, &r);
	assert_int_equal(r.unmeasured_true, 0);
	assert_true(r.score.recall >= 0.9);
	assert_true(fabs(r.mean_d - r.true_d) <= 0.05 * r.true_d);
}

static void dog_finds_tubercles(void **state)
{
	(void)state;
	synth_opts o;
	outcome r;
	hard_conditions(&o, 20, 0.5);
	run(&o, FS_METHOD_DOG, 0.5, &r);
	assert_int_equal(r.unmeasured_true, 0);
	assert_true(r.score.recall >= 0.9);
	assert_true(fabs(r.mean_d - r.true_d) <= 0.05 * r.true_d);
}

static void ellipse_method_measures_regions(void **state)
{
	(void)state;
	synth_opts o;
	outcome r;
	synth_defaults(&o);
	o.pitch = 24;
	o.diam_ratio = 0.5;
	run(&o, FS_METHOD_ELLIPSE, 0.5, &r);
	assert_int_equal(r.unmeasured_true, 0);
	assert_true(r.score.recall >= 0.9);
	assert_true(fabs(r.mean_d - r.true_d) <= 0.1 * r.true_d);
}

static void flat_image_gives_no_tubercles(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(200, 150);
	for (int i = 0; i < 200 * 150; i++)
		img->data[i] = 0.4f;
	fs_params p;
	fs_params_default(&p);
	fs_detect_result r;
	assert_int_equal(fs_detect(img, &p, 0, &r, err, sizeof err), 0);
	assert_int_equal(r.tubercles.n, 0);
	assert_true(r.pitch_px == 0);
	fs_detect_result_free(&r);
	fs_image_free(img);
}

static void tiny_image_is_not_an_error(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(10, 10);
	fs_params p;
	fs_params_default(&p);
	fs_detect_result r;
	assert_int_equal(fs_detect(img, &p, 0, &r, err, sizeof err), 0);
	assert_int_equal(r.tubercles.n, 0);
	fs_detect_result_free(&r);
	fs_image_free(img);
}

static void invalid_parameters_are_rejected(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(64, 64);
	fs_params p;
	fs_params_default(&p);
	p.blur_sigma = -1;
	fs_detect_result r;
	assert_int_equal(fs_detect(img, &p, 0, &r, err, sizeof err), -1);
	fs_params_default(&p);
	p.method = FS_METHOD_LOG;
	assert_int_equal(fs_detect(img, &p, 0, &r, err, sizeof err), -1); /* needs calibration */
	assert_int_equal(fs_detect(NULL, &p, 0.1, &r, err, sizeof err), -1);
	fs_detect_result_free(&r);
	fs_image_free(img);
}

static void ids_are_sequential_and_sources_set(void **state)
{
	(void)state;
	synth_opts o;
	synth_truth t;
	synth_defaults(&o);
	fs_image *img = synth_make(&o, &t);
	fs_params p;
	fs_params_default(&p);
	fs_detect_result r;
	assert_int_equal(fs_detect(img, &p, 0, &r, err, sizeof err), 0);
	assert_true(r.tubercles.n > 100);
	for (size_t i = 0; i < r.tubercles.n; i++) {
		assert_int_equal(r.tubercles.items[i].id, (int)i + 1);
		assert_int_equal(r.tubercles.items[i].source, FS_SOURCE_EXTRACTED);
		assert_true(r.tubercles.items[i].has_ellipse);
	}
	fs_detect_result_free(&r);
	fs_image_free(img);
	synth_truth_free(&t);
}

/* Count of tubercles within d px of (x, y). */
static size_t count_near(const fs_tubercle_list *l, double x, double y, double d)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += hypot(l->items[i].centroid_x - x, l->items[i].centroid_y - y) < d;
	return n;
}

static void lattice_method_drops_isolated_blob(void **state)
{
	(void)state;
	synth_opts o;
	synth_truth t;
	synth_defaults(&o);
	o.dark_left = 140;
	fs_image *img = synth_make(&o, &t);
	assert_non_null(img);
	/* A lone tubercle-like disc in the dark band, far from the lattice. */
	for (int y = 0; y < img->height; y++)
		for (int x = 0; x < img->width; x++)
			if (hypot(x - 50.0, y - 240.0) <= 5)
				img->data[(size_t)y * img->width + x] = 0.8f;
	fs_params p;
	fs_params_default(&p);
	fs_detect_result r;
	/* the methods themselves (fs_detect_all): with the scale region the
	 * dark band is no scale surface and both would drop the blob */
	assert_int_equal(fs_detect_all(img, &p, 0, &r, err, sizeof err), 0);
	size_t auto_n = count_near(&r.tubercles, 50, 240, 5);
	fs_detect_result_free(&r);
	assert_int_equal(fs_detect(img, &p, 0, &r, err, sizeof err), 0);
	assert_int_equal(count_near(&r.tubercles, 50, 240, 5), 0);
	assert_true(r.n_outside_region >= 1);
	fs_detect_result_free(&r);
	p.method = FS_METHOD_LATTICE;
	assert_int_equal(fs_detect_all(img, &p, 0, &r, err, sizeof err), 0);
	assert_int_equal(auto_n, 1); /* auto keeps it: the test image is valid */
	assert_int_equal(count_near(&r.tubercles, 50, 240, 5), 0);
	assert_true(r.tubercles.n > 100);
	fs_detect_result_free(&r);
	fs_image_free(img);
	synth_truth_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(auto_pitch_20_all_sizes),
		cmocka_unit_test(auto_pitch_35_all_sizes),
		cmocka_unit_test(auto_pitch_70_measured_on_reduced_image),
		cmocka_unit_test(auto_pitch_12_medium_and_large),
		cmocka_unit_test(auto_sixteen_bit_rotated_noisy),
		cmocka_unit_test(lattice_method_recovers_faint_sites),
		cmocka_unit_test(lattice_method_drops_isolated_blob),
		cmocka_unit_test(log_diameter_is_measured_not_the_scale),
		cmocka_unit_test(dog_finds_tubercles),
		cmocka_unit_test(ellipse_method_measures_regions),
		cmocka_unit_test(flat_image_gives_no_tubercles),
		cmocka_unit_test(tiny_image_is_not_an_error),
		cmocka_unit_test(invalid_parameters_are_rejected),
		cmocka_unit_test(ids_are_sequential_and_sources_set),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
