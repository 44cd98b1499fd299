/*
 * The mean dome's correlation made coarse to fine (dome_ncc_coarse.h)
 * against every pixel's (dome_template.h), on simulated domes at the
 * reduced image's pitches (12 px, and 16 px under a 5 px screen): the
 * coarse pixels and every 3x3 maximum's neighbourhood the same to the
 * bit, the candidates (fs_det_peaks, their sub-pixel offsets) the same,
 * and the same image with the AVX loops forbidden (the pixels made exact
 * must not depend on the path that makes them).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_candidates.h"
#include "analysis/dome_ncc_coarse.h"
#include "analysis/dome_template.h"
#include "analysis/dome_votes.h"
#include "analysis/preprocess.h"
#include "base/cpu_features.h"
#include "sem_sim.h"

/* An odd width and height, so the last row and column are coarse pixels
 * of their own. */
static fs_image *scene(double pitch, int halftone, unsigned seed, sem_truth *t)
{
	sem_opts o;
	sem_defaults(&o);
	o.width = 201;
	o.height = 171;
	o.pitch = pitch;
	o.fill = 0.6;
	o.halftone = halftone;
	o.angle = 0.4;
	o.seed = seed;
	fs_image *raw = sem_make(&o, t);
	assert_non_null(raw);
	/* smoothed as the candidates smooth the image they correlate
	 * (detect_auto.c): the screen's dots low-passed away */
	char err[128];
	fs_image *img = fs_gaussian_blurred(raw, fs_dome_smoothing(pitch, halftone, 1), err, sizeof err);
	fs_image_free(raw);
	assert_non_null(img);
	return img;
}

/* The true centres (whole pixels) as the template's seeds. */
static size_t seeds(const sem_truth *t, double *xs, double *ys)
{
	for (size_t j = 0; j < t->n; j++) {
		xs[j] = floor(t->x[j]);
		ys[j] = floor(t->y[j]);
	}
	return t->n;
}

static int same_bits(float a, float b)
{
	return !memcmp(&a, &b, sizeof a);
}

static void compare(double pitch, int halftone, unsigned seed)
{
	sem_truth t;
	fs_image *img = scene(pitch, halftone, seed, &t);
	double *xs = malloc(t.n * sizeof *xs), *ys = malloc(t.n * sizeof *ys);
	assert_true(xs && ys);
	size_t n = seeds(&t, xs, ys);
	char err[128];
	fs_image *full = NULL, *co = NULL, *plain = NULL;
	assert_int_equal(fs_dome_template_ncc(img, xs, ys, n, 0.5 * pitch, &full, err, sizeof err), 0);
	assert_int_equal(fs_dome_template_ncc_coarse(img, xs, ys, n, 0.5 * pitch, &co, err, sizeof err), 0);
	fs_cpu_forbid(FS_CPU_FORBID_SSE2);
	int rc = fs_dome_template_ncc_coarse(img, xs, ys, n, 0.5 * pitch, &plain, err, sizeof err);
	fs_cpu_forbid(FS_CPU_ALLOW_ALL);
	assert_int_equal(rc, 0);
	assert_true(full && co && plain);
	int w = img->width, h = img->height;
	/* every coarse pixel exact; the AVX and plain paths alike everywhere */
	size_t differ = 0;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			size_t i = (size_t)y * w + x;
			assert_true(same_bits(co->data[i], plain->data[i]));
			int coarse_px = (x % 2 == 0 || x == w - 1) && (y % 2 == 0 || y == h - 1);
			if (coarse_px)
				assert_true(same_bits(co->data[i], full->data[i]));
			differ += !same_bits(co->data[i], full->data[i]);
		}
	/* the interpolation is not the correlation between the peaks */
	assert_true(differ > (size_t)w * h / 4);
	/* the candidates: the same maxima, values and sub-pixel offsets */
	fs_cand_list a = {0}, b = {0};
	assert_int_equal(fs_det_peaks(full, 0, 0.7 * pitch, &a), 0);
	assert_int_equal(fs_det_peaks(co, 0, 0.7 * pitch, &b), 0);
	assert_true(a.n > t.n / 2);
	/* every coarse candidate is one of every pixel's, the same to the bit */
	for (size_t k = 0; k < b.n; k++) {
		size_t j = 0;
		while (j < a.n && !(a.items[j].x == b.items[k].x && a.items[j].y == b.items[k].y))
			j++;
		assert_true(j < a.n);
		assert_true(a.items[j].response == b.items[k].response);
		int gx = (int)b.items[k].x, gy = (int)b.items[k].y;
		for (int yy = gy - 1; yy <= gy + 1; yy++)
			for (int xx = gx - 1; xx <= gx + 1; xx++)
				if (xx >= 0 && yy >= 0 && xx < w && yy < h)
					assert_true(same_bits(co->data[(size_t)yy * w + xx],
							      full->data[(size_t)yy * w + xx]));
		double ax, ay, bx, by;
		fs_det_peak_offset(full, 0, 0, w, h, gx, gy, &ax, &ay);
		fs_det_peak_offset(co, 0, 0, w, h, gx, gy, &bx, &by);
		assert_true(ax == bx && ay == by);
	}
	/* and what it hides is rare and weak: a bump of the frame's edge,
	 * far under the domes' 0.9-1 */
	assert_true(a.n - b.n <= a.n / 100 + 1);
	for (size_t j = 0; j < a.n; j++) {
		size_t k = 0;
		while (k < b.n && !(a.items[j].x == b.items[k].x && a.items[j].y == b.items[k].y))
			k++;
		if (k == b.n)
			assert_true(a.items[j].response < 0.2);
	}
	fs_cand_free(&a);
	fs_cand_free(&b);
	fs_image_free(full);
	fs_image_free(co);
	fs_image_free(plain);
	free(xs);
	free(ys);
	sem_truth_free(&t);
	fs_image_free(img);
}

static void reduced_pitch_12(void **state)
{
	(void)state;
	compare(12, 0, 7);
	compare(12, 0, 8);
}

static void screened_pitch_16(void **state)
{
	(void)state;
	compare(16, 5, 9);
}

/* The same contract as fs_dome_template_ncc where there is no template. */
static void too_few_patches_and_bad_arguments(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(40, 40);
	assert_non_null(img);
	for (size_t i = 0; i < 1600; i++)
		img->data[i] = (float)((i * 7919) % 13) / 13.0f;
	double xs[3] = {20, 2, 38}, ys[3] = {20, 20, 20};
	fs_image *out = (fs_image *)1;
	char err[128];
	assert_int_equal(fs_dome_template_ncc_coarse(img, xs, ys, 3, 5, &out, err, sizeof err), 0);
	assert_null(out);
	assert_int_equal(fs_dome_template_ncc_coarse(img, xs, ys, 3, 0.5, &out, err, sizeof err), -1);
	assert_int_equal(fs_dome_template_ncc_coarse(NULL, xs, ys, 3, 5, &out, err, sizeof err), -1);
	fs_image_free(img);
}

/* The witness (fs_dome_ncc_set_witness, h49d's instrument) sees each
 * coarse image once, with the image and mean dome it was made from (the
 * exact correlation made from them is fs_dome_template_ncc's to the bit)
 * and the very pixels the caller gets; none once it is unset. */
typedef struct seen {
	int calls, exact_same, coarse_same;
	const fs_image *want_exact;
	fs_image *got;
} seen;

static void see(void *ctx, const fs_image *img, const fs_dome_mean *t, const fs_image *coarse)
{
	seen *s = ctx;
	s->calls++;
	fs_image *ex = fs_image_new(img->width, img->height);
	assert_non_null(ex);
	fs_dome_mean_ncc(t, img->data, (size_t)img->width, 0, 0, img->width, img->height, 0, 0, img->width,
			 img->height, ex->data, (size_t)img->width);
	size_t n = (size_t)img->width * img->height;
	s->exact_same = !memcmp(ex->data, s->want_exact->data, n * sizeof *ex->data);
	s->got = fs_image_new(img->width, img->height);
	assert_non_null(s->got);
	memcpy(s->got->data, coarse->data, n * sizeof *coarse->data);
	fs_image_free(ex);
}

static void witness_sees_each_coarse_image(void **state)
{
	(void)state;
	sem_truth t;
	fs_image *img = scene(12, 0, 3, &t);
	double *xs = malloc(t.n * sizeof *xs), *ys = malloc(t.n * sizeof *ys);
	assert_true(xs && ys);
	size_t n = seeds(&t, xs, ys);
	char err[128];
	fs_image *full = NULL, *co = NULL, *again = NULL;
	assert_int_equal(fs_dome_template_ncc(img, xs, ys, n, 6, &full, err, sizeof err), 0);
	seen s = {.want_exact = full};
	fs_dome_ncc_set_witness(see, &s);
	assert_int_equal(fs_dome_template_ncc_coarse(img, xs, ys, n, 6, &co, err, sizeof err), 0);
	fs_dome_ncc_set_witness(NULL, NULL);
	assert_int_equal(s.calls, 1);
	assert_true(s.exact_same);
	assert_non_null(s.got);
	assert_memory_equal(s.got->data, co->data, (size_t)img->width * img->height * sizeof *co->data);
	assert_int_equal(fs_dome_template_ncc_coarse(img, xs, ys, n, 6, &again, err, sizeof err), 0);
	assert_int_equal(s.calls, 1);
	fs_image_free(s.got);
	fs_image_free(again);
	fs_image_free(co);
	fs_image_free(full);
	free(xs);
	free(ys);
	sem_truth_free(&t);
	fs_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reduced_pitch_12),
		cmocka_unit_test(screened_pitch_16),
		cmocka_unit_test(too_few_patches_and_bad_arguments),
		cmocka_unit_test(witness_sees_each_coarse_image),
	};
	return cmocka_run_group_tests_name("dome ncc coarse", tests, NULL, NULL);
}
