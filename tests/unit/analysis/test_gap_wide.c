/*
 * The wide-valley reader (gap_wide.h, h52g) on drawn domes at group C's
 * pitch and fill (64 px, D 51.2 px, a 12.8-px floor): each dome a disk
 * whose wall brightens linearly over its last quarter towards the foot
 * (a flat tall top's band, the reader's own model), on dark ground,
 * blurred by a known Gaussian, so each foot is known. The reader puts
 * each foot within 0.1 px of the drawn base (S within 3 % at fill 0.8
 * needs the two feet within about 0.2 px) from starts 2 % short or long,
 * the two readings within 0.1 px of each other; a narrow valley and a
 * line leaving the image read nothing. What it does on the simulator's
 * domes: bench_gap_wide.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "analysis/gap_wide.h"
#include "analysis/preprocess.h"

#define W 176
#define H 96
#define R 25.6
#define SIG 1.9

/* domes of radius R at (cx[k], cy[k]): inside 0.75 R level 0.45, the
 * wall rising from 0.55 to 0.85 at the foot, the ground 0.15; each
 * pixel the mean of 8 x 8 sub-samples, then blurred by SIG */
static fs_image *domes(const double *cx, const double *cy, int n)
{
	fs_image *img = fs_image_new(W, H);
	assert_non_null(img);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			double s = 0;
			for (int j = 0; j < 8; j++)
				for (int i = 0; i < 8; i++) {
					double px = x - 0.5 + (i + 0.5) / 8, py = y - 0.5 + (j + 0.5) / 8, v = 0.15;
					for (int k = 0; k < n; k++) {
						double r = hypot(px - cx[k], py - cy[k]);
						if (r < R) {
							v = r < 0.75 * R ? 0.45 : 0.55 + 0.3 * (r - 0.75 * R) / (0.25 * R);
							break;
						}
					}
					s += v;
				}
			img->data[y * W + x] = (float)(s / 64);
		}
	char err[128];
	assert_int_equal(fs_gaussian_blur(img, SIG, err, sizeof err), 0);
	return img;
}

static void feet_within_a_tenth_from_either_start(void **state)
{
	(void)state;
	/* three phases of the pixels */
	static const double ph[3][2] = {{0.0, 0.0}, {0.37, 0.21}, {0.71, 0.58}};
	double worst = 0;
	for (int q = 0; q < 3; q++) {
		double cx[2] = {44 + ph[q][0], 108 + ph[q][0]}, cy[2] = {48 + ph[q][1], 48 - ph[q][1]};
		fs_image *img = domes(cx, cy, 2);
		double ra[2], rb[2], sig;
		for (int st = 0; st < 2; st++) {
			double r0 = R * (st ? 1.02 : 0.98);
			assert_int_equal(fs_gap_wide_feet(img, cx[0], cy[0], cx[1], cy[1], r0, r0, &ra[st], &rb[st], &sig), 0);
			worst = fmax(worst, fmax(fabs(ra[st] - R), fabs(rb[st] - R)));
			assert_true(fabs(ra[st] - R) < 0.1);
			assert_true(fabs(rb[st] - R) < 0.1);
			assert_true(sig > 1.5 && sig < 2.5);
		}
		assert_true(fabs(ra[0] - ra[1]) < 0.1);
		assert_true(fabs(rb[0] - rb[1]) < 0.1);
		fs_image_free(img);
	}
	print_message("the feet within %.3f px of the drawn base\n", worst);
}

static void narrow_or_leaving_reads_nothing(void **state)
{
	(void)state;
	double cx[2] = {44, 108}, cy[2] = {48, 48};
	fs_image *img = domes(cx, cy, 2);
	double ra, rb;
	/* a start gap under FS_GAP_WIDE_MIN_GAP */
	assert_int_equal(fs_gap_wide_feet(img, 44, 48, 108, 48, 30.5, 30.5, &ra, &rb, NULL), -1);
	assert_true(isnan(ra) && isnan(rb));
	/* the window leaving the image */
	assert_int_equal(fs_gap_wide_feet(img, 44, 0.5, 108, 0.5, R, R, &ra, &rb, NULL), -1);
	fs_image_free(img);
}

static void radii_mean_the_feet_of_every_valley(void **state)
{
	(void)state;
	/* two domes 64 px apart: one valley, each read from its side */
	double cx[2] = {44, 108}, cy[2] = {48, 48}, r0[2] = {R, R}, r[2];
	int nr[2];
	double sig;
	fs_image *img = domes(cx, cy, 2);
	assert_int_equal(fs_gap_wide_radii(img, cx, cy, r0, 2, 64, r, nr, &sig), 0);
	assert_int_equal(nr[0], 1);
	assert_int_equal(nr[1], 1);
	assert_true(fabs(r[0] - R) < 0.1 && fabs(r[1] - R) < 0.1);
	assert_true(sig > 1.5 && sig < 2.5);
	/* a dome without a start takes no part */
	r0[1] = NAN;
	assert_int_equal(fs_gap_wide_radii(img, cx, cy, r0, 2, 64, r, nr, &sig), 0);
	assert_true(isnan(r[0]) && isnan(r[1]) && nr[0] == 0 && isnan(sig));
	fs_image_free(img);
}

/* the witness and the scale (h53c): on the reader's own model its fit is
 * near exact (the witness far under FS_GAP_WIDE_FLAT, the drawn image
 * carries no noise), and from starts 2 % short the feet give the scale
 * back; no valley read, no witness */
static void level_reads_witness_and_scale(void **state)
{
	(void)state;
	double cx[2] = {44, 108}, cy[2] = {48, 48}, r0[2] = {0.98 * R, 0.98 * R};
	fs_image *img = domes(cx, cy, 2);
	fs_gap_wide_level lv;
	assert_int_equal(fs_gap_wide_level_read(img, cx, cy, r0, 2, 64, &lv), 0);
	assert_int_equal((int)lv.valleys, 1);
	assert_true(lv.witness >= 0 && lv.witness < 0.5 * FS_GAP_WIDE_FLAT);
	assert_true(fabs(lv.scale - 1 / 0.98) < 0.005 && fabs(lv.scale_med - 1 / 0.98) < 0.005);
	r0[0] = NAN;
	assert_int_equal(fs_gap_wide_level_read(img, cx, cy, r0, 2, 64, &lv), 0);
	assert_true(lv.valleys == 0 && isnan(lv.witness) && isnan(lv.scale) && isnan(lv.scale_med));
	fs_image_free(img);
}

/* the option's step leaves an image without a screen (and a list of
 * fewer than 8) as it is */
static void scale_list_needs_a_screen(void **state)
{
	(void)state;
	double cx[2] = {44, 108}, cy[2] = {48, 48};
	fs_image *img = domes(cx, cy, 2);
	fs_tubercle_list t = {0};
	for (int k = 0; k < 10; k++) {
		fs_tubercle q;
		fs_tubercle_init(&q);
		q.centroid_x = cx[k % 2];
		q.centroid_y = cy[k % 2];
		q.radius_px = R;
		assert_int_equal(fs_tubercle_list_append(&t, &q), 0);
	}
	double k;
	char err[64];
	assert_int_equal(fs_gap_wide_scale_list(img, 1, &t, &k, err, sizeof err), 0);
	assert_true(k == 1 && t.items[0].radius_px == R);
	assert_int_equal(fs_gap_wide_scale_list(NULL, 1, &t, &k, err, sizeof err), 0);
	assert_true(k == 1);
	fs_tubercle_list_free(&t);
	fs_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(feet_within_a_tenth_from_either_start),
		cmocka_unit_test(narrow_or_leaving_reads_nothing),
		cmocka_unit_test(radii_mean_the_feet_of_every_valley),
		cmocka_unit_test(level_reads_witness_and_scale),
		cmocka_unit_test(scale_list_needs_a_screen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
