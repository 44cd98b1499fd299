/*
 * fs_dome_measure_base_trace (dome_measure.h, h41b): the stages of one
 * level reading, for the instrument bench_level_small.
 *
 * Why: the bench blames a small dome's level error on a stage of the base
 * reading (the polygon of the rays' steepest steps, the inner shift, the
 * step's blur inversion, the small-base profile fit, their blend), so the
 * stages it prints must be the ones the reading was made of: the traced
 * reading is the rule's reading to the bit (radius, centre, quality), and
 * its radius is the blend of the traced stages as measure() forms it. A
 * small blurred disk (R below 3 sigma: the profile fit blended in) and a
 * larger one (the step's inversion alone) are read, on and off centre.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analysis/dome_measure.h"
#include "image/image.h"

/* a bright disk of radius R at (cx, cy) on a dim ground, each pixel the
 * share of 8 x 8 sub-samples inside it, then blurred by a Gaussian of
 * sigma px (separable, direct) */
static fs_image *blurred_disk(int w, int h, double cx, double cy, double R, double sigma)
{
	fs_image *a = fs_image_new(w, h), *b = fs_image_new(w, h);
	assert_non_null(a);
	assert_non_null(b);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			int in = 0;
			for (int j = 0; j < 8; j++)
				for (int i = 0; i < 8; i++) {
					double dx = x - 0.5 + (i + 0.5) / 8 - cx, dy = y - 0.5 + (j + 0.5) / 8 - cy;
					in += dx * dx + dy * dy < R * R;
				}
			a->data[(size_t)y * w + x] = (float)(0.2 + 0.6 * in / 64.0);
		}
	int kr = (int)ceil(4 * sigma);
	double k[64], ks = 0;
	assert_true(kr < 32);
	for (int i = -kr; i <= kr; i++)
		ks += k[i + kr] = exp(-0.5 * i * i / (sigma * sigma));
	for (int pass = 0; pass < 2; pass++) {
		fs_image *src = pass ? b : a, *dst = pass ? a : b;
		for (int y = 0; y < h; y++)
			for (int x = 0; x < w; x++) {
				double acc = 0;
				for (int i = -kr; i <= kr; i++) {
					int u = pass ? x : x + i, v = pass ? y + i : y;
					u = u < 0 ? 0 : u >= w ? w - 1 : u;
					v = v < 0 ? 0 : v >= h ? h - 1 : v;
					acc += k[i + kr] * src->data[(size_t)v * w + u];
				}
				dst->data[(size_t)y * w + x] = (float)(acc / ks);
			}
	}
	fs_image_free(b);
	return a;
}

/* the trace against fs_dome_measure_base_blur at (x, y); returns the
 * traced small-base weight */
static double traced_is_the_reading(const fs_image *img, double x, double y, double r0, double r1)
{
	fs_tubercle t;
	int edge;
	double var;
	memset(&t, 0, sizeof t);
	int rc = fs_dome_measure_base_blur(img, x, y, r0, r1, &t, &edge, &var);
	fs_dome_base_trace tr;
	int rt = fs_dome_measure_base_trace(img, x, y, r0, r1, &tr);
	assert_int_equal(rc, 0);
	assert_int_equal(rt, 0);
	/* the same reading, to the bit */
	assert_memory_equal(&tr.radius, &t.radius_px, sizeof tr.radius);
	assert_memory_equal(&tr.x, &t.centroid_x, sizeof tr.x);
	assert_memory_equal(&tr.y, &t.centroid_y, sizeof tr.y);
	assert_memory_equal(&tr.quality, &t.fit_quality, sizeof tr.quality);
	assert_true(isfinite(tr.radius));
	/* kappa is the blur the reading reports */
	assert_true(fabs(1 / tr.kappa - var) <= 1e-12 * var);
	/* the radius is the blend of the stages (measure(), base_radius()) */
	double r_raw = tr.rpoly - tr.ishift;
	double r_base = tr.w_small > 0 ? tr.w_small * tr.r_small + (1 - tr.w_small) * tr.r_step : tr.r_step;
	double blend = tr.w_local > 0 ? tr.w_local * r_base + (1 - tr.w_local) * r_raw : r_raw;
	assert_true(fabs(blend - tr.radius) <= 1e-9 * tr.radius);
	assert_true(tr.w_local >= 0 && tr.w_local <= 1);
	assert_true(tr.w_small >= 0 && tr.w_small <= 1);
	return tr.w_small;
}

static void trace_is_the_reading_and_its_blend(void **state)
{
	(void)state;
	/* R 2 px at sigma 1: below SMALL_HI sigma, the profile fit weighs in */
	fs_image *small = blurred_disk(40, 40, 20.3, 19.6, 2.0, 1.0);
	assert_true(traced_is_the_reading(small, 20.3, 19.6, 0.15 * 9.6, 0.8 * 9.6) > 0);
	assert_true(traced_is_the_reading(small, 20.8, 19.4, 0.15 * 9.6, 0.8 * 9.6) > 0);
	fs_image_free(small);
	/* R 7 px at sigma 1: the step's inversion alone */
	fs_image *large = blurred_disk(64, 64, 31.7, 32.2, 7.0, 1.0);
	assert_true(traced_is_the_reading(large, 31.7, 32.2, 0.15 * 16, 0.8 * 16) == 0);
	assert_true(traced_is_the_reading(large, 32.5, 31.8, 0.15 * 16, 0.8 * 16) == 0);
	fs_image_free(large);
}

/* off the image: no reading, and the trace says so */
static void trace_off_the_image(void **state)
{
	(void)state;
	fs_image *img = blurred_disk(24, 24, 12, 12, 2.0, 1.0);
	fs_dome_base_trace tr;
	assert_int_equal(fs_dome_measure_base_trace(img, -3, 5, 1.0, 6.0, &tr), -1);
	assert_true(isnan(tr.radius));
	fs_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(trace_is_the_reading_and_its_blend),
		cmocka_unit_test(trace_off_the_image),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
