/*
 * Unit tests for the fast paths of the detection kernels: the ring-buffer
 * vectorised Gaussian (against a direct 2-D reference), block-mean
 * reduction, normalisation, the table-driven FFT and the real-input
 * autocorrelation (against direct sums),
 * peak picking and prominence, and the measurement's border and re-centring
 * paths.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/blob_measure.h"
#include "analysis/detect_methods.h"
#include "analysis/fft.h"
#include "analysis/preprocess.h"
#include "gauss_ref.h"

static char err[256];

static void check_gauss(int w, int h, double sigma)
{
	fs_image *img = gauss_ref_noise(w, h, (unsigned)(w * 31 + h)), *ref = fs_image_clone(img);
	assert_non_null(img);
	assert_non_null(ref);
	assert_int_equal(fs_gaussian_blur(img, sigma, err, sizeof err), 0);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			assert_float_equal(fs_image_at(img, x, y), gauss_ref_at(ref, x, y, sigma), 2e-5);
	fs_image_free(img);
	fs_image_free(ref);
}

static void gaussian_kernel_taller_than_image_matches_reference(void **state)
{
	(void)state;
	check_gauss(40, 5, 3.0); /* 25 taps on 5 rows: every row is clamped */
	check_gauss(9, 1, 2.0);
}

static void gaussian_width_not_multiple_of_four_matches_reference(void **state)
{
	(void)state;
	check_gauss(23, 17, 1.2); /* vector body and scalar tail */
	check_gauss(3, 30, 0.7);  /* narrower than one vector */
}

/* In place in bands of rows, each band reading its neighbours' edge rows
 * from the copies saved before: a band that read them from the image
 * would see them blurred already. Bands of a few rows up to a thousand,
 * kernels wider than a band (2R rows): every one the same bits as the
 * whole image blurred at once. */
static void gaussian_in_threads_equals_one_thread(void **state)
{
	(void)state;
	static const struct {
		int w, h;
		double sigma;
	} c[] = {{300, 2000, 1.5}, {4000, 300, 6.0}, {20000, 50, 3.0}, {257, 3100, 0.6}};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		fs_image *a = gauss_ref_noise(c[i].w, c[i].h, (unsigned)(7 + i));
		assert_non_null(a);
		fs_image *b = fs_image_clone(a);
		assert_non_null(b);
		assert_int_equal(fs_gaussian_blur(a, c[i].sigma, err, sizeof err), 0);
		for (int t = 2; t <= 3; t++) {
			fs_image *d = fs_image_clone(b);
			assert_non_null(d);
			assert_int_equal(fs_gaussian_blur_threads(d, c[i].sigma, t, err, sizeof err), 0);
			assert_memory_equal(d->data, a->data, sizeof(float) * (size_t)c[i].w * c[i].h);
			fs_image_free(d);
		}
		fs_image_free(b);
		fs_image_free(a);
	}
	/* and the blur itself: a band's rows against the direct 2-D sum */
	fs_image *img = gauss_ref_noise(90, 2950, 3), *ref = fs_image_clone(img);
	assert_non_null(img);
	assert_non_null(ref);
	assert_int_equal(fs_gaussian_blur_threads(img, 2.0, 2, err, sizeof err), 0);
	for (int y = 2900; y < 2950; y++) /* bands of 2912 rows: the edge between the two */
		for (int x = 0; x < 90; x++)
			assert_float_equal(fs_image_at(img, x, y), gauss_ref_at(ref, x, y, 2.0), 2e-5);
	fs_image_free(img);
	fs_image_free(ref);
	/* a compact image cannot be blurred in place */
	fs_image *cpt = fs_image_new_compact(8, 8, 8);
	assert_non_null(cpt);
	assert_int_equal(fs_gaussian_blur_threads(cpt, 1.0, 2, err, sizeof err), -1);
	fs_image_free(cpt);
}

/* A region blurred from its source, float or compact (converted a row at
 * a time, read in place or through the pad when narrower than the
 * kernel), is its copy blurred, to the bit; a region outside is refused. */
static void gaussian_of_a_region_equals_the_blurred_copy(void **state)
{
	(void)state;
	int W = 211, H = 97;
	fs_image *f = gauss_ref_noise(W, H, 5), *c8 = fs_image_new_compact(W, H, 8);
	assert_non_null(f);
	assert_non_null(c8);
	for (int i = 0; i < W * H; i++)
		((unsigned char *)c8->px)[i] = (unsigned char)(f->data[i] * 255);
	static const int r[][4] = {{0, 0, 211, 97}, {13, 7, 150, 60}, {200, 3, 11, 90}, {5, 90, 40, 7}};
	static const double sig[] = {0, 0.6, 1.2, 3.0};
	const fs_image *src[2] = {f, c8};
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
			for (size_t q = 0; q < sizeof sig / sizeof sig[0]; q++) {
				fs_image *copy = fs_image_region_float(src[s], r[i][0], r[i][1], r[i][2], r[i][3]);
				assert_non_null(copy);
				fs_image *want = fs_gaussian_blurred(copy, sig[q], err, sizeof err);
				fs_image *got = fs_gaussian_blurred_region(src[s], r[i][0], r[i][1], r[i][2], r[i][3],
									   sig[q], err, sizeof err);
				assert_non_null(want);
				assert_non_null(got);
				assert_memory_equal(got->data, want->data, sizeof(float) * (size_t)r[i][2] * r[i][3]);
				fs_image_free(copy);
				fs_image_free(want);
				fs_image_free(got);
			}
	assert_null(fs_gaussian_blurred_region(f, 200, 0, 12, 10, 1.0, err, sizeof err));
	assert_null(fs_gaussian_blurred_region(f, -1, 0, 10, 10, 1.0, err, sizeof err));
	fs_image_free(f);
	fs_image_free(c8);
}

static void normalize_in_threads_equals_one_thread(void **state)
{
	(void)state;
	int w = 1031, h = 700; /* 721,700 samples: three chunks and a tail */
	fs_image *a = gauss_ref_noise(w, h, 11);
	assert_non_null(a);
	a->data[(size_t)w * h - 1] = 7.5f; /* the maximum in the last sample */
	a->data[3] = -2.25f;
	fs_image *b = fs_image_clone(a);
	assert_non_null(b);
	fs_normalize(a);
	fs_normalize_threads(b, 2);
	assert_memory_equal(a->data, b->data, sizeof(float) * (size_t)w * h);
	assert_float_equal(b->data[(size_t)w * h - 1], 1.0, 0);
	assert_float_equal(b->data[3], 0.0, 0);
	fs_image_free(a);
	fs_image_free(b);
}

static void downsample_averages_blocks_including_partial_ones(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(7, 5);
	for (int i = 0; i < 35; i++)
		img->data[i] = (float)i;
	fs_image *d = fs_downsample(img, 3);
	assert_non_null(d);
	assert_int_equal(d->width, 3);
	assert_int_equal(d->height, 2);
	/* block (0,0): rows 0-2, cols 0-2 -> mean of i = y*7 + x */
	assert_float_equal(fs_image_at(d, 0, 0), 8.0, 1e-5);
	/* block (2,0): col 6 only, rows 0-2 -> (6 + 13 + 20) / 3 */
	assert_float_equal(fs_image_at(d, 2, 0), 13.0, 1e-5);
	/* block (2,1): col 6, rows 3-4 -> (27 + 34) / 2 */
	assert_float_equal(fs_image_at(d, 2, 1), 30.5, 1e-5);
	fs_image_free(d);
	fs_image_free(img);
}

/* In threads the reduction is cut into bands of output rows: every band's
 * block means are the one-thread image's to the bit (a compact 8-bit
 * image of several bands with partial last blocks both ways), and each is
 * the block's mean. */
static void downsample_in_threads_equals_one_thread(void **state)
{
	(void)state;
	int W = 2003, H = 1100, f = 3; /* bands of 174 output rows: 3 of them */
	fs_image *c = fs_image_new_compact(W, H, 8);
	assert_non_null(c);
	uint8_t *px = c->px;
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			px[(size_t)y * W + x] = (uint8_t)((x * 7 + y * 13 + (x * y) % 29) & 255);
	fs_image *one = fs_downsample_threads(c, f, 1);
	assert_non_null(one);
	assert_int_equal(one->width, 668);
	assert_int_equal(one->height, 367);
	for (int t = 2; t <= 3; t++) {
		fs_image *d = fs_downsample_threads(c, f, t);
		assert_non_null(d);
		assert_memory_equal(d->data, one->data, sizeof(float) * 668 * 367);
		fs_image_free(d);
	}
	/* block (667, 366): column 2001-2002, row 1098-1099 */
	int xs[] = {0, 200, 667}, ys[] = {0, 174, 366};
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++) {
			double sum = 0;
			int n = 0;
			for (int y = ys[k] * f; y < ys[k] * f + f && y < H; y++)
				for (int x = xs[i] * f; x < xs[i] * f + f && x < W; x++, n++)
					sum += px[(size_t)y * W + x] / 255.0;
			assert_float_equal(fs_image_at(one, xs[i], ys[k]), sum / n, 1e-6);
		}
	fs_image_free(one);
	fs_image_free(c);
}

/* CLAHE in threads (every tile's LUT first, then bands of rows) is the
 * one-thread image to the bit: 700 x 1100 (3 bands, 30 x 46 tiles with
 * partial ones), an illumination ramp it evens out. */
static void clahe_in_threads_equals_one_thread(void **state)
{
	(void)state;
	int w = 700, h = 1100;
	fs_image *a = fs_image_new(w, h);
	assert_non_null(a);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			a->data[(size_t)y * w + x] =
				(float)(0.2 + 0.6 * x / w + 0.1 * sin(x * 0.5) * sin(y * 0.45) * (1 + y / 400.0));
	fs_image *b = fs_image_clone(a);
	assert_non_null(b);
	char err[128];
	assert_int_equal(fs_clahe(a, 0.02, 24, err, sizeof err), 0);
	for (int t = 2; t <= 3; t++) {
		fs_image *c = fs_image_clone(b);
		assert_non_null(c);
		assert_int_equal(fs_clahe_threads(c, 0.02, 24, t, err, sizeof err), 0);
		assert_memory_equal(c->data, a->data, sizeof(float) * (size_t)w * h);
		fs_image_free(c);
	}
	/* equalised tile by tile: the ramp's left and right ends end up with
	 * about the same mean */
	double left = 0, right = 0;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < 48; x++) {
			left += a->data[(size_t)y * w + x];
			right += a->data[(size_t)y * w + w - 1 - x];
		}
	assert_true(fabs(left - right) / (48.0 * h) < 0.1);
	fs_image_free(a);
	fs_image_free(b);
}

static void downsample_rejects_bad_factor(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(4, 4);
	assert_null(fs_downsample(img, 0));
	assert_null(fs_downsample(NULL, 2));
	fs_image_free(img);
}

static void normalize_finds_extremes_in_the_tail(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(7, 1); /* 4 in the vector part, 3 in the tail */
	float v[7] = {0.5f, 0.4f, 0.6f, 0.5f, 0.45f, 0.9f, 0.1f};
	memcpy(img->data, v, sizeof v);
	fs_normalize(img);
	assert_float_equal(img->data[5], 1.0, 1e-6);
	assert_float_equal(img->data[6], 0.0, 1e-6);
	assert_float_equal(img->data[0], 0.5, 1e-6);
	fs_image_free(img);
}

static void dft(const double *xr, const double *xi, int n, int inverse, double *yr, double *yi)
{
	for (int k = 0; k < n; k++) {
		yr[k] = yi[k] = 0;
		for (int j = 0; j < n; j++) {
			double a = (inverse ? 2 : -2) * M_PI * (double)j * k / n;
			yr[k] += xr[j] * cos(a) - xi[j] * sin(a);
			yi[k] += xr[j] * sin(a) + xi[j] * cos(a);
		}
	}
}

static void fft_matches_direct_dft_both_directions(void **state)
{
	(void)state;
	enum { N = 64 };
	for (int inverse = 0; inverse <= 1; inverse++) {
		float re[N], im[N];
		double xr[N], xi[N], yr[N], yi[N];
		for (int i = 0; i < N; i++) {
			xr[i] = re[i] = (float)sin(0.3 * i * i);
			xi[i] = im[i] = (float)cos(1.7 * i);
		}
		dft(xr, xi, N, inverse, yr, yi);
		assert_int_equal(fs_fft(re, im, N, 1, inverse), 0);
		for (int k = 0; k < N; k++) {
			assert_float_equal(re[k], yr[k], 1e-3);
			assert_float_equal(im[k], yi[k], 1e-3);
		}
	}
}

static void fft_strided_equals_contiguous(void **state)
{
	(void)state;
	enum { N = 16, S = 3 };
	float a_re[N], a_im[N], b_re[N * S], b_im[N * S];
	for (int i = 0; i < N; i++) {
		a_re[i] = b_re[i * S] = (float)(i % 5);
		a_im[i] = b_im[i * S] = (float)(i % 3);
	}
	assert_int_equal(fs_fft(a_re, a_im, N, 1, 0), 0);
	assert_int_equal(fs_fft(b_re, b_im, N, S, 0), 0);
	for (int i = 0; i < N; i++) {
		assert_float_equal(a_re[i], b_re[i * S], 1e-5);
		assert_float_equal(a_im[i], b_im[i * S], 1e-5);
	}
}

/* The 2-D DFT of in (W x H) at (kx, ky), term by term in double: what the
 * transforms are checked against. */
static void direct_dft(const float *in, int W, int H, int kx, int ky, double *sr, double *si)
{
	*sr = *si = 0;
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			double a = -2 * M_PI * ((double)kx * x / W + (double)ky * y / H);
			*sr += in[y * W + x] * cos(a);
			*si += in[y * W + x] * sin(a);
		}
}

static void fft2d_matches_direct_dft_and_rejects_odd_sizes(void **state)
{
	(void)state;
	enum { W = 8, H = 4 };
	float re[W * H], im[W * H];
	for (int i = 0; i < W * H; i++) {
		re[i] = (float)((i * 7) % 11);
		im[i] = 0;
	}
	float in[W * H];
	memcpy(in, re, sizeof in);
	assert_int_equal(fs_fft2d(re, im, W, H, 0), 0);
	for (int ky = 0; ky < H; ky++)
		for (int kx = 0; kx < W; kx++) {
			double sr, si;
			direct_dft(in, W, H, kx, ky, &sr, &si);
			assert_float_equal(re[ky * W + kx], sr, 1e-3);
			assert_float_equal(im[ky * W + kx], si, 1e-3);
		}
	assert_int_equal(fs_fft2d(re, im, 6, 4, 0), -1);
	assert_int_equal(fs_fft(re, im, 12, 1, 0), -1);
}

static void check_autocorr(int W, int H, int zero_dc)
{
	float d[64 * 64];
	double in[64 * 64], mean = 0;
	for (int i = 0; i < W * H; i++) {
		in[i] = d[i] = (float)sin(0.7 * i + 0.01 * i * i);
		mean += in[i] / (W * H);
	}
	assert_int_equal(fs_autocorr2d(d, W, H, zero_dc), 0);
	for (int dy = 0; dy < H; dy++)
		for (int dx = 0; dx < W; dx++) {
			double s = 0;
			for (int y = 0; y < H; y++)
				for (int x = 0; x < W; x++) {
					double a = in[y * W + x], b = in[((y + dy) % H) * W + (x + dx) % W];
					s += zero_dc ? (a - mean) * (b - mean) : a * b;
				}
			/* unscaled forward and inverse: w * h times the plain sum */
			assert_float_equal(d[dy * W + dx], s * W * H, 1e-3 * W * H);
		}
}

static void autocorr_matches_direct_circular_sums(void **state)
{
	(void)state;
	check_autocorr(8, 4, 0);
	check_autocorr(4, 16, 1);
	check_autocorr(2, 2, 0);
	check_autocorr(32, 8, 1);
}

static void autocorr_rejects_bad_sizes(void **state)
{
	(void)state;
	float d[12] = {0};
	assert_int_equal(fs_autocorr2d(d, 6, 2, 0), -1);
	assert_int_equal(fs_autocorr2d(d, 4, 1, 0), -1);
}

/* fs_power2d (halftone.c's spectrum): every bin, the mirrored columns
 * kx > w/2 included, against the direct DFT of a real image */
static void check_power(int W, int H)
{
	float d[32 * 32], pw[32 * 32];
	for (int i = 0; i < W * H; i++)
		d[i] = (float)sin(0.9 * i + 0.013 * i * i);
	assert_int_equal(fs_power2d(d, W, H, pw), 0);
	for (int ky = 0; ky < H; ky++)
		for (int kx = 0; kx < W; kx++) {
			double sr, si;
			direct_dft(d, W, H, kx, ky, &sr, &si);
			assert_float_equal(pw[ky * W + kx], sr * sr + si * si, 1e-3 * W * H);
		}
}

static void power2d_matches_direct_dft_and_rejects_bad_sizes(void **state)
{
	(void)state;
	check_power(8, 4);
	check_power(4, 16);
	check_power(2, 2);
	check_power(32, 8);
	float d[12] = {0}, pw[12];
	assert_int_equal(fs_power2d(d, 6, 2, pw), -1);
	assert_int_equal(fs_power2d(d, 4, 1, pw), -1);
}

static void peaks_plateau_keeps_first_pixel_in_scan_order(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(10, 8);
	img->data[3 * 10 + 4] = img->data[3 * 10 + 5] = 1.0f; /* interior plateau */
	img->data[0 * 10 + 8] = img->data[0 * 10 + 9] = 0.5f; /* plateau on the border */
	fs_cand_list c = {0};
	assert_int_equal(fs_det_peaks(img, 0, 1.0, &c), 0);
	assert_int_equal(c.n, 2);
	assert_float_equal(c.items[0].x, 4, 0);
	assert_float_equal(c.items[0].y, 3, 0);
	assert_float_equal(c.items[1].x, 8, 0);
	assert_float_equal(c.items[1].y, 0, 0);
	fs_cand_free(&c);
	fs_image_free(img);
}

static void peaks_below_min_value_are_ignored(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(6, 6);
	img->data[2 * 6 + 2] = 0.3f;
	fs_cand_list c = {0};
	assert_int_equal(fs_det_peaks(img, 0.5, 1.0, &c), 0);
	assert_int_equal(c.n, 0);
	fs_cand_free(&c);
	fs_image_free(img);
}

/* The suppression the way it was first written: every pixel within
 * min_dist of a kept peak marked in a map, strongest peak first; the
 * candidates (3x3 maxima, strongest first) are taken from fs_det_peaks
 * with no suppression (min_dist 0). */
static void peaks_reference(const fs_image *img, double min_dist, fs_cand_list *out)
{
	int w = img->width, h = img->height;
	fs_cand_list all = {0};
	assert_int_equal(fs_det_peaks(img, 0, 0, &all), 0);
	unsigned char *taken = calloc((size_t)w * h, 1);
	assert_non_null(taken);
	int R = (int)ceil(min_dist);
	for (size_t i = 0; i < all.n; i++) {
		int x = (int)all.items[i].x, y = (int)all.items[i].y;
		if (taken[(size_t)y * w + x])
			continue;
		assert_int_equal(fs_cand_append(out, &all.items[i]), 0);
		for (int dy = -R; dy <= R; dy++)
			for (int dx = -R; dx <= R; dx++)
				if (x + dx >= 0 && x + dx < w && y + dy >= 0 && y + dy < h &&
				    dx * dx + dy * dy < min_dist * min_dist)
					taken[(size_t)(y + dy) * w + x + dx] = 1;
	}
	free(taken);
	fs_cand_free(&all);
}

/* Suppression through a grid of kept peaks (no per-pixel map, issue 15)
 * keeps exactly the peaks the map kept, for distances below, at and above
 * the grid's smallest cell, on a rough surface full of peaks. */
/* The peaks and their prominences in threads (bands of rows, chunks of
 * candidates) are the one-thread list to the bit: a 1000 x 800 response
 * of about 8,000 bumps (4 bands, 4 chunks), with plateaus and ties. */
static void peaks_and_prominence_in_threads_equal_one_thread(void **state)
{
	(void)state;
	fs_image *r = fs_image_new(1000, 800);
	assert_non_null(r);
	for (int y = 0; y < 800; y++)
		for (int x = 0; x < 1000; x++) {
			unsigned hsh = (unsigned)(x * 73856093u) ^ (unsigned)(y * 19349663u);
			float v = (float)(sin(x * 0.63) * sin(y * 0.71) + 0.05 * ((hsh >> 8) % 5));
			r->data[(size_t)y * 1000 + x] = v;
		}
	fs_cand_list one = {0};
	assert_int_equal(fs_det_peaks_threads(r, 0, 3, 1, &one), 0);
	assert_true(one.n > 4000);
	fs_det_prominence_threads(r, &one, 6, 1);
	for (int t = 2; t <= 3; t++) {
		fs_cand_list c = {0};
		assert_int_equal(fs_det_peaks_threads(r, 0, 3, t, &c), 0);
		assert_int_equal(c.n, one.n);
		fs_det_prominence_threads(r, &c, 6, t);
		assert_memory_equal(c.items, one.items, one.n * sizeof *one.items);
		fs_cand_free(&c);
	}
	/* a prominence is the peak over the lowest sample of its rays: never
	 * negative, and zero nowhere a bump stands out */
	size_t positive = 0;
	for (size_t i = 0; i < one.n; i++) {
		assert_true(one.items[i].response >= 0);
		positive += one.items[i].response > 0.5;
	}
	assert_true(positive > one.n / 2);
	fs_cand_free(&one);
	fs_image_free(r);
}

static void peak_suppression_equals_pixel_map(void **state)
{
	(void)state;
	int w = 233, h = 171;
	fs_image *img = fs_image_new(w, h);
	unsigned s = 12345;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			s = s * 1103515245u + 12345u;
			img->data[y * w + x] = (float)(sin(x * 0.45) * cos(y * 0.37) + ((s >> 8) & 0xffff) / 65535.0 * 0.3);
		}
	const double dists[] = {1, 2.5, 7, 8, 11.3, 40};
	for (size_t k = 0; k < sizeof dists / sizeof *dists; k++) {
		fs_cand_list a = {0}, b = {0};
		assert_int_equal(fs_det_peaks(img, 0, dists[k], &a), 0);
		peaks_reference(img, dists[k], &b);
		assert_true(a.n > 0);
		assert_int_equal(a.n, b.n);
		for (size_t i = 0; i < a.n; i++) {
			assert_true(a.items[i].x == b.items[i].x && a.items[i].y == b.items[i].y);
			assert_true(a.items[i].response == b.items[i].response);
		}
		fs_cand_free(&a);
		fs_cand_free(&b);
	}
	fs_image_free(img);
}

/* Cone of height 1 at (cx, cy) falling 0.1 per pixel, floor 0. */
static fs_image *cone(int w, int h, double cx, double cy)
{
	fs_image *img = fs_image_new(w, h);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			img->data[y * w + x] = (float)fmax(0, 1 - 0.1 * hypot(x - cx, y - cy));
	return img;
}

static void prominence_on_and_off_pixel_centres_agree(void **state)
{
	(void)state;
	fs_image *img = cone(41, 41, 20, 20);
	fs_cand_list c = {0};
	fs_cand a = {20, 20, 0, 0}, b = {20.0000001, 20, 0, 0};
	assert_int_equal(fs_cand_append(&c, &a), 0);
	assert_int_equal(fs_cand_append(&c, &b), 0);
	fs_det_prominence(img, &c, 5.5);
	/* Rays reach r = 5 rounded to pixels; the farthest sample is the
	 * diagonal one at (4, 4), 0.1 * sqrt(32) below the top. */
	assert_float_equal(c.items[0].response, 0.1 * sqrt(32), 1e-5);
	assert_float_equal(c.items[1].response, c.items[0].response, 1e-5);
	fs_cand_free(&c);
	fs_image_free(img);
}

/* Scale-space peaks on noise at several radii: the overlap removal (a grid
 * lookup) keeps exactly the blobs of the rule said one pair at a time,
 * strongest first: drop a blob within the larger radius of one kept. */
static void scale_peaks_overlap_removal_matches_the_pairwise_rule(void **state)
{
	(void)state;
	enum { N = 4 };
	fs_image *layers[N];
	double radii[N] = {1.5, 3, 4.5, 7};
	for (int s = 0; s < N; s++)
		layers[s] = gauss_ref_noise(150, 110, 11u + (unsigned)s);
	fs_cand_list got = {0}, all = {0};
	fs_cand pre = {-100, -100, 9, 1}; /* already in out: never compared */
	assert_int_equal(fs_cand_append(&got, &pre), 0);
	assert_int_equal(fs_det_scale_peaks(layers, radii, N, 0.2, &got), 0);
	/* every local maximum, strongest first, through a threshold of the
	 * weakest response: the same list before any removal */
	assert_int_equal(fs_det_scale_peaks(layers, (double[N]){0, 0, 0, 0}, N, 0.2, &all), 0);
	size_t k = 1;
	fs_cand_list want = {0};
	for (size_t i = 0; i < all.n; i++) {
		fs_cand a = all.items[i];
		for (int s = 0; s < N; s++) /* the radius of its layer */
			if (fabsf(layers[s]->data[(int)a.y * 150 + (int)a.x] - (float)a.response) == 0)
				a.r = radii[s];
		int clash = 0;
		for (size_t j = 0; j < want.n && !clash; j++)
			clash = hypot(a.x - want.items[j].x, a.y - want.items[j].y) < fmax(a.r, want.items[j].r);
		if (!clash)
			assert_int_equal(fs_cand_append(&want, &a), 0);
	}
	assert_true(want.n > 50);
	assert_int_equal(got.n, want.n + 1);
	for (size_t i = 0; i < want.n; i++, k++) {
		assert_float_equal(got.items[k].x, want.items[i].x, 0);
		assert_float_equal(got.items[k].y, want.items[i].y, 0);
		assert_float_equal(got.items[k].r, want.items[i].r, 0);
	}
	fs_cand_free(&got);
	fs_cand_free(&all);
	fs_cand_free(&want);
	for (int s = 0; s < N; s++)
		fs_image_free(layers[s]);
}

/* Prominence visits the candidates row by row: every candidate gets the
 * value it gets alone, wherever it stands in the list. */
static void prominence_does_not_depend_on_the_order(void **state)
{
	(void)state;
	fs_image *img = gauss_ref_noise(90, 70, 5);
	fs_cand_list c = {0};
	for (int i = 0; i < 300; i++) {
		fs_cand a = {(i * 37) % 90, (i * 53) % 70, 0, 0};
		if (i % 7 == 3)
			a.x += 0.25; /* off a pixel centre */
		assert_int_equal(fs_cand_append(&c, &a), 0);
	}
	fs_det_prominence(img, &c, 6.5);
	for (size_t i = 0; i < c.n; i += 17) {
		fs_cand_list one = {0};
		fs_cand a = c.items[i];
		a.response = 0;
		assert_int_equal(fs_cand_append(&one, &a), 0);
		fs_det_prominence(img, &one, 6.5);
		assert_float_equal(one.items[0].response, c.items[i].response, 0);
		fs_cand_free(&one);
	}
	fs_cand_free(&c);
	fs_image_free(img);
}

/* Disc of radius r (anti-aliased) of level 0.8 on 0.2. */
static fs_image *disc(int w, int h, double cx, double cy, double r)
{
	fs_image *img = fs_image_new(w, h);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			double e = r - hypot(x - cx, y - cy) + 0.5;
			e = e < 0 ? 0 : e > 1 ? 1 : e;
			img->data[y * w + x] = (float)(0.2 + 0.6 * e);
		}
	return img;
}

static void measure_recentres_from_a_far_start(void **state)
{
	(void)state;
	fs_image *img = disc(64, 64, 31.4, 32.7, 8);
	fs_tubercle t = {0};
	assert_int_equal(fs_blob_measure(img, 28.5, 35.0, 16, &t), 0);
	assert_float_equal(t.centroid_x, 31.4, 0.2);
	assert_float_equal(t.centroid_y, 32.7, 0.2);
	assert_float_equal(t.radius_px, 8, 0.25);
	fs_image_free(img);
}

static void measure_near_the_border_uses_clamped_samples(void **state)
{
	(void)state;
	/* The rays of max_r 12 leave the image: the clamped path must give the
	 * same disc as the interior one. */
	fs_image *img = disc(40, 40, 9, 20, 6);
	fs_tubercle t = {0};
	assert_int_equal(fs_blob_measure(img, 9, 20, 12, &t), 0);
	assert_float_equal(t.radius_px, 6, 0.25);
	assert_float_equal(t.centroid_x, 9, 0.2);
	fs_image_free(img);
}

static void measure_flat_image_has_no_blob(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(30, 30);
	fs_tubercle t = {0};
	assert_int_equal(fs_blob_measure(img, 15, 15, 10, &t), -1);
	assert_int_equal(fs_blob_measure(img, 40, 15, 10, &t), -1);
	fs_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gaussian_kernel_taller_than_image_matches_reference),
		cmocka_unit_test(gaussian_width_not_multiple_of_four_matches_reference),
		cmocka_unit_test(gaussian_in_threads_equals_one_thread),
		cmocka_unit_test(gaussian_of_a_region_equals_the_blurred_copy),
		cmocka_unit_test(normalize_in_threads_equals_one_thread),
		cmocka_unit_test(downsample_averages_blocks_including_partial_ones),
		cmocka_unit_test(downsample_in_threads_equals_one_thread),
		cmocka_unit_test(clahe_in_threads_equals_one_thread),
		cmocka_unit_test(downsample_rejects_bad_factor),
		cmocka_unit_test(normalize_finds_extremes_in_the_tail),
		cmocka_unit_test(fft_matches_direct_dft_both_directions),
		cmocka_unit_test(fft_strided_equals_contiguous),
		cmocka_unit_test(fft2d_matches_direct_dft_and_rejects_odd_sizes),
		cmocka_unit_test(autocorr_matches_direct_circular_sums),
		cmocka_unit_test(autocorr_rejects_bad_sizes),
		cmocka_unit_test(power2d_matches_direct_dft_and_rejects_bad_sizes),
		cmocka_unit_test(peaks_plateau_keeps_first_pixel_in_scan_order),
		cmocka_unit_test(peaks_below_min_value_are_ignored),
		cmocka_unit_test(peak_suppression_equals_pixel_map),
		cmocka_unit_test(peaks_and_prominence_in_threads_equal_one_thread),
		cmocka_unit_test(prominence_on_and_off_pixel_centres_agree),
		cmocka_unit_test(prominence_does_not_depend_on_the_order),
		cmocka_unit_test(scale_peaks_overlap_removal_matches_the_pairwise_rule),
		cmocka_unit_test(measure_recentres_from_a_far_start),
		cmocka_unit_test(measure_near_the_border_uses_clamped_samples),
		cmocka_unit_test(measure_flat_image_has_no_blob),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
