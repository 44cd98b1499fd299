/* Unit tests for preprocessing (blur, CLAHE, top-hat), the FFT and the
 * lattice estimate. Blurs are checked against plain reference loops. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fft.h"
#include "analysis/lattice_estimate.h"
#include "analysis/preprocess.h"
#include "gauss_ref.h"
#include "synth.h"

static char err[256];

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static void gaussian_matches_reference_including_borders(void **state)
{
	(void)state;
	fs_image *img = gauss_ref_noise(37, 29, 7), *ref = fs_image_clone(img);
	assert_int_equal(fs_gaussian_blur(img, 1.7, err, sizeof err), 0);
	for (int y = 0; y < 29; y += 4)
		for (int x = 0; x < 37; x += 3)
			assert_float_equal(fs_image_at(img, x, y), gauss_ref_at(ref, x, y, 1.7), 1e-5);
	fs_image_free(img);
	fs_image_free(ref);
}

/* fs_gaussian_blur_rect gives the whole blur's values to the bit on its
 * rectangle: one at least the kernel's radius from every edge (each row's
 * middle straight through the horizontal pass), one touching the edges
 * (the rows' replicated borders), and wide and narrow rectangles (the
 * lanes' groups and the one-at-a-time rest); it refuses a rectangle
 * outside the image. */
static void gaussian_rect_is_the_whole_blur_there(void **state)
{
	(void)state;
	const int rects[][4] = {{7, 7, 90, 50}, {0, 0, 97, 61}, {0, 3, 20, 61}, {60, 0, 97, 9}, {8, 9, 11, 10}};
	for (size_t r = 0; r < sizeof rects / sizeof rects[0]; r++) {
		fs_image *whole = gauss_ref_noise(97, 61, 11), *part = fs_image_clone(whole);
		assert_int_equal(fs_gaussian_blur(whole, 1.7, err, sizeof err), 0);
		const int *q = rects[r];
		assert_int_equal(fs_gaussian_blur_rect(part, 1.7, q[0], q[1], q[2], q[3], err, sizeof err), 0);
		for (int y = q[1]; y < q[3]; y++)
			assert_memory_equal(part->data + (size_t)y * 97 + q[0], whole->data + (size_t)y * 97 + q[0],
					    (size_t)(q[2] - q[0]) * sizeof(float));
		fs_image_free(whole);
		fs_image_free(part);
	}
	fs_image *img = gauss_ref_noise(20, 10, 3);
	assert_int_equal(fs_gaussian_blur_rect(img, 1.7, 0, 0, 21, 10, err, sizeof err), -1);
	assert_int_equal(fs_gaussian_blur_rect(img, 1.7, 5, 5, 5, 8, err, sizeof err), -1);
	fs_image_free(img);
}

static void gaussian_keeps_constant_image(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(20, 10);
	for (int i = 0; i < 200; i++)
		img->data[i] = 0.25f;
	assert_int_equal(fs_gaussian_blur(img, 3.0, err, sizeof err), 0);
	for (int i = 0; i < 200; i++)
		assert_float_equal(img->data[i], 0.25, 1e-6);
	fs_image_free(img);
}

static void gaussian_zero_sigma_is_identity_and_negative_fails(void **state)
{
	(void)state;
	fs_image *img = gauss_ref_noise(8, 8, 3), *ref = fs_image_clone(img);
	assert_int_equal(fs_gaussian_blur(img, 0, err, sizeof err), 0);
	assert_memory_equal(img->data, ref->data, 64 * sizeof(float));
	assert_int_equal(fs_gaussian_blur(img, -1, err, sizeof err), -1);
	assert_int_equal(fs_gaussian_blur(img, NAN, err, sizeof err), -1);
	fs_image_free(img);
	fs_image_free(ref);
}

static void box_blur_matches_reference(void **state)
{
	(void)state;
	fs_image *img = gauss_ref_noise(23, 17, 11), *ref = fs_image_clone(img);
	assert_int_equal(fs_box_blur(img, 3, err, sizeof err), 0);
	for (int y = 0; y < 17; y++)
		for (int x = 0; x < 23; x++) {
			double s = 0;
			for (int j = -3; j <= 3; j++)
				for (int i = -3; i <= 3; i++)
					s += fs_image_at(ref, clampi(x + i, 0, 22), clampi(y + j, 0, 16));
			assert_float_equal(fs_image_at(img, x, y), s / 49, 1e-5);
		}
	fs_image_free(img);
	fs_image_free(ref);
}

static void clahe_output_spans_unit_range(void **state)
{
	(void)state;
	fs_image *img = gauss_ref_noise(64, 48, 5);
	for (int i = 0; i < 64 * 48; i++)
		img->data[i] = 0.4f + 0.1f * img->data[i];
	assert_int_equal(fs_clahe(img, 0.03, 8, err, sizeof err), 0);
	float lo = 1, hi = 0;
	for (int i = 0; i < 64 * 48; i++) {
		lo = fminf(lo, img->data[i]);
		hi = fmaxf(hi, img->data[i]);
	}
	assert_float_equal(lo, 0, 1e-6);
	assert_float_equal(hi, 1, 1e-6);
	fs_image_free(img);
}

static double std_of(const fs_image *img, int x0, int x1)
{
	double s = 0, s2 = 0;
	int n = 0;
	for (int y = 0; y < img->height; y++)
		for (int x = x0; x < x1; x++) {
			double v = fs_image_at(img, x, y);
			s += v;
			s2 += v * v;
			n++;
		}
	return sqrt(s2 / n - (s / n) * (s / n));
}

static void clahe_equalises_dark_and_bright_halves(void **state)
{
	(void)state;
	/* Same texture, dark left half and bright right half: CLAHE must bring
	 * the two halves' contrast close together. */
	fs_image *img = gauss_ref_noise(128, 64, 9);
	for (int y = 0; y < 64; y++)
		for (int x = 0; x < 128; x++) {
			float *v = &img->data[y * 128 + x];
			*v = x < 64 ? 0.05f + 0.05f * *v : 0.5f + 0.4f * *v;
		}
	assert_int_equal(fs_clahe(img, 0.05, 16, err, sizeof err), 0);
	double l = std_of(img, 8, 56), r = std_of(img, 72, 120);
	assert_true(l > 0.5 * r && r > 0.5 * l);
	fs_image_free(img);
}

static void clahe_off_and_bad_arguments(void **state)
{
	(void)state;
	fs_image *img = gauss_ref_noise(16, 16, 1), *ref = fs_image_clone(img);
	assert_int_equal(fs_clahe(img, 0, 8, err, sizeof err), 0);
	assert_memory_equal(img->data, ref->data, 256 * sizeof(float));
	assert_int_equal(fs_clahe(img, 0.03, 1, err, sizeof err), -1);
	assert_int_equal(fs_clahe(img, -0.1, 8, err, sizeof err), -1);
	fs_image_free(img);
	fs_image_free(ref);
}

static void tophat_removes_ramp_and_keeps_small_spot(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(60, 40);
	for (int y = 0; y < 40; y++)
		for (int x = 0; x < 60; x++)
			img->data[y * 60 + x] = 0.2f + 0.01f * x + ((x - 30) * (x - 30) + (y - 20) * (y - 20) <= 4 ? 0.3f : 0);
	assert_int_equal(fs_white_tophat(img, 6, err, sizeof err), 0);
	assert_float_equal(fs_image_at(img, 30, 20), 0.3, 0.03);
	assert_float_equal(fs_image_at(img, 10, 5), 0, 0.03);
	assert_float_equal(fs_image_at(img, 50, 35), 0, 0.03);
	fs_image_free(img);
}

static void tophat_of_constant_is_zero_and_radius_zero_is_off(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(10, 10);
	for (int i = 0; i < 100; i++)
		img->data[i] = 0.7f;
	assert_int_equal(fs_white_tophat(img, 0, err, sizeof err), 0);
	assert_float_equal(img->data[55], 0.7, 1e-7);
	assert_int_equal(fs_white_tophat(img, 3, err, sizeof err), 0);
	for (int i = 0; i < 100; i++)
		assert_float_equal(img->data[i], 0, 1e-7);
	assert_int_equal(fs_white_tophat(img, -1, err, sizeof err), -1);
	fs_image_free(img);
}

static void normalize_flat_image_gives_zeros(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(4, 4);
	for (int i = 0; i < 16; i++)
		img->data[i] = 0.5f;
	fs_normalize(img);
	for (int i = 0; i < 16; i++)
		assert_true(img->data[i] == 0);
	fs_image_free(img);
}

static void fft_round_trip_and_impulse(void **state)
{
	(void)state;
	float re[64], im[64], orig[64];
	for (int i = 0; i < 64; i++) {
		re[i] = orig[i] = (float)sin(i * 0.37) + (i % 5);
		im[i] = 0;
	}
	assert_int_equal(fs_fft2d(re, im, 8, 8, 0), 0);
	assert_int_equal(fs_fft2d(re, im, 8, 8, 1), 0);
	for (int i = 0; i < 64; i++)
		assert_float_equal(re[i] / 64, orig[i], 1e-4);
	memset(re, 0, sizeof re);
	memset(im, 0, sizeof im);
	re[0] = 1;
	fs_fft(re, im, 64, 1, 0);
	for (int i = 0; i < 64; i++)
		assert_float_equal(re[i], 1, 1e-6);
	assert_int_equal(fs_fft(re, im, 48, 1, 0), -1);
}

static void lattice_pitch_found_at_several_pitches(void **state)
{
	(void)state;
	double pitches[] = {12, 20, 35};
	for (int i = 0; i < 3; i++) {
		synth_opts o;
		synth_truth t;
		synth_defaults(&o);
		o.pitch = pitches[i];
		o.angle = 0.2 * i;
		fs_image *img = synth_make(&o, &t);
		fs_lattice lat;
		assert_int_equal(fs_lattice_estimate(img, &lat, err, sizeof err), 0);
		assert_float_equal(lat.pitch_px, pitches[i], 0.02 * pitches[i]);
		double da = fmod(fabs(lat.angle - fmod(o.angle, M_PI / 3)), M_PI / 3);
		assert_true(da < 0.05 || da > M_PI / 3 - 0.05);
		fs_image_free(img);
		synth_truth_free(&t);
	}
}

static void lattice_flat_image_has_no_pitch_and_tiny_fails(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(64, 64);
	fs_lattice lat;
	assert_int_equal(fs_lattice_estimate(img, &lat, err, sizeof err), 0);
	assert_true(lat.pitch_px == 0);
	fs_image_free(img);
	img = fs_image_new(20, 100);
	assert_int_equal(fs_lattice_estimate(img, &lat, err, sizeof err), -1);
	fs_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gaussian_matches_reference_including_borders),
		cmocka_unit_test(gaussian_rect_is_the_whole_blur_there),
		cmocka_unit_test(gaussian_keeps_constant_image),
		cmocka_unit_test(gaussian_zero_sigma_is_identity_and_negative_fails),
		cmocka_unit_test(box_blur_matches_reference),
		cmocka_unit_test(clahe_output_spans_unit_range),
		cmocka_unit_test(clahe_equalises_dark_and_bright_halves),
		cmocka_unit_test(clahe_off_and_bad_arguments),
		cmocka_unit_test(tophat_removes_ramp_and_keeps_small_spot),
		cmocka_unit_test(tophat_of_constant_is_zero_and_radius_zero_is_off),
		cmocka_unit_test(normalize_flat_image_gives_zeros),
		cmocka_unit_test(fft_round_trip_and_impulse),
		cmocka_unit_test(lattice_pitch_found_at_several_pitches),
		cmocka_unit_test(lattice_flat_image_has_no_pitch_and_tiny_fails),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
