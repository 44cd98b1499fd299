/*
 * The valley reader (gap_read.h, h47g) on drawn domes: flat disks (a
 * plateau on dark ground, the simplest wall) blurred by a known Gaussian,
 * at the fill-0.8 corner scenes' pitch and gap (16 px, 3.2 px), so that
 * each foot is known to the last bit. Over the pixels' phases the fit
 * reads each foot to 0.03 px (the 3 % of S at fill 0.8 is 0.1 px for the
 * two feet) and the steepest steps read them inside; only the lit feet
 * count where an azimuth is given. What
 * the readings do on the simulator's domes: bench_gap_read.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "analysis/detect_base_gap.h"
#include "analysis/gap_read.h"
#include "analysis/preprocess.h"

#define W 88
#define H 64
#define R 6.4
#define SIG 0.9

/* disks of radius R at (cx[k], cy[k]), each pixel's cover by 8 x 8
 * sub-samples, blurred by SIG */
static fs_image *disks(const double *cx, const double *cy, int n)
{
	fs_image *img = fs_image_new(W, H);
	assert_non_null(img);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			int in = 0;
			for (int j = 0; j < 8; j++)
				for (int i = 0; i < 8; i++) {
					double px = x - 0.5 + (i + 0.5) / 8, py = y - 0.5 + (j + 0.5) / 8;
					for (int k = 0; k < n; k++)
						if (hypot(px - cx[k], py - cy[k]) < R) {
							in++;
							break;
						}
				}
			img->data[y * W + x] = 0.1f + 0.8f * in / 64.0f;
		}
	char err[128];
	assert_int_equal(fs_gaussian_blur(img, SIG, err, sizeof err), 0);
	return img;
}

/* a small lcg, so the placements are the same on every libc */
static double uniform(unsigned *st)
{
	*st = *st * 1103515245u + 12345u;
	return ((*st >> 8) & 0xffff) / 65536.0;
}

/* 40 pairs at random angles and sub-pixel places: each method's mean foot
 * error (px) and the fit's mean blur */
static void mean_errors(double *steps_raw, double *steps_corr, double *fit, double *fit_sig)
{
	unsigned st = 7;
	double a0 = 0, a1 = 0, a2 = 0, sg = 0;
	int n = 0;
	for (int q = 0; q < 40; q++) {
		double ang = M_PI * uniform(&st), x0 = 44 + uniform(&st), y0 = 30 + uniform(&st);
		double cx[2] = {x0 - 8 * cos(ang), x0 + 8 * cos(ang)}, cy[2] = {y0 - 8 * sin(ang), y0 + 8 * sin(ang)};
		fs_image *img = disks(cx, cy, 2);
		double ra, rb, s;
		assert_int_equal(fs_gap_feet(img, cx[0], cy[0], cx[1], cy[1], FS_GAP_STEPS, 0, &ra, &rb, &s), 0);
		a0 += ra + rb - 2 * R;
		assert_int_equal(fs_gap_feet(img, cx[0], cy[0], cx[1], cy[1], FS_GAP_STEPS, SIG, &ra, &rb, &s), 0);
		assert_true(s == SIG);
		a1 += ra + rb - 2 * R;
		assert_int_equal(fs_gap_feet(img, cx[0], cy[0], cx[1], cy[1], FS_GAP_FIT, 0, &ra, &rb, &s), 0);
		a2 += ra + rb - 2 * R;
		sg += s;
		n++;
		fs_image_free(img);
	}
	*steps_raw = a0 / (2 * n);
	*steps_corr = a1 / (2 * n);
	*fit = a2 / (2 * n);
	*fit_sig = sg / n;
}

/* The fit reads the feet over the pixels' phases to 0.03 px and a blur
 * of the Gaussian with the pixel's box and the bilinear samples' own
 * (about 1.1 px for 0.9); the steepest steps read inside (-0.09 px on
 * these placements, -0.14 on others: the pixels' phases move a step's
 * peak by 0.17 px RMS) and the correction adds sigma^2 / 2R (0.063 px). */
static void fit_reads_the_feet_steps_read_inside(void **state)
{
	(void)state;
	double raw, corr, fit, sig;
	mean_errors(&raw, &corr, &fit, &sig);
	print_message("feet: steps %+.4f, corrected %+.4f, fit %+.4f px, fit's blur %.3f\n", raw, corr, fit, sig);
	assert_true(fabs(fit) < 0.03);
	assert_true(sig > 0.95 && sig < 1.25);
	assert_true(raw < -0.05);
	assert_true(corr - raw > 0.05 && corr - raw < 0.08);
}

static void leaving_the_image_reads_nothing(void **state)
{
	(void)state;
	double cx[2] = {30, 46}, cy[2] = {30, 30};
	fs_image *img = disks(cx, cy, 2);
	double ra = 0, rb = 0;
	/* the second centre far outside: the line leaves the image */
	assert_int_equal(fs_gap_feet(img, 30, 30, 30 + 200, 30, FS_GAP_STEPS, SIG, &ra, &rb, NULL), -1);
	assert_true(isnan(ra) && isnan(rb));
	fs_image_free(img);
}

static void only_lit_feet_count_under_an_azimuth(void **state)
{
	(void)state;
	/* three disks in a row along x: the middle one has a foot either side */
	double cx[3] = {24, 40, 56}, cy[3] = {32, 32, 32};
	fs_image *img = disks(cx, cy, 3);
	double r[3];
	int nr[3];
	assert_int_equal(fs_gap_radii(img, cx, cy, 3, 16, FS_GAP_STEPS, SIG, NAN, r, nr), 0);
	assert_int_equal(nr[0], 1);
	assert_int_equal(nr[1], 2);
	assert_int_equal(nr[2], 1);
	for (int k = 0; k < 3; k++)
		assert_true(fabs(r[k] - R) < 0.2);
	/* the detector towards +x: the feet facing -x are left out */
	assert_int_equal(fs_gap_radii(img, cx, cy, 3, 16, FS_GAP_STEPS, SIG, 0.0, r, nr), 0);
	assert_int_equal(nr[0], 1);
	assert_int_equal(nr[1], 1);
	assert_int_equal(nr[2], 0);
	assert_true(isnan(r[2]));
	fs_image_free(img);
}

/* The level option (detect_base_gap.h) on a row of three drawn domes:
 * off, the readings stand; each mode replaces the unpinned readings by
 * the valleys' feet (steps: every foot, at the readings' own blur, and
 * lifted by the steps' mean excess; fit: the lit feet alone, the end
 * dome facing away unread and kept). */
static void level_option_replaces_readings(void **state)
{
	(void)state;
	double cx[3] = {24, 40, 56}, cy[3] = {32, 32, 32}, fr[3] = {6, 6, 6};
	int le[3] = {0, 0, 1};
	double var[3] = {SIG * SIG, SIG * SIG, SIG * SIG};
	fs_image *img = disks(cx, cy, 3);
	fs_det_base_plan p = {0};
	p.n = 3;
	fs_det_offset off = {0};
	off.fit.pitch = 16;
	off.fit.azimuth = M_PI; /* towards -x */
	double lr[3] = {7, 7, 7};
	int was = fs_det_base_set_gap(FS_DET_GAP_OFF);
	assert_int_equal(fs_det_base_gap_level(&p, &off, img, 1, cx, cy, fr, le, var, lr), 0);
	assert_true(lr[0] == 7 && lr[1] == 7 && lr[2] == 7);
	fs_det_base_set_gap(FS_DET_GAP_STEPS_ALL);
	assert_int_equal(fs_det_base_gap_level(&p, &off, img, 1, cx, cy, fr, le, var, lr), 2);
	assert_true(fabs(lr[0] - R) < 0.25 && fabs(lr[1] - R) < 0.25);
	assert_true(lr[2] == 7); /* pinned */
	/* lifted: the same feet, every dome's reading FS_DET_GAP_LIFT x the
	 * readings' blur further out */
	double l4[3] = {7, 7, 7};
	fs_det_base_set_gap(FS_DET_GAP_STEPS_LIFTED);
	assert_int_equal(fs_det_base_gap_level(&p, &off, img, 1, cx, cy, fr, le, var, l4), 2);
	assert_true(fabs(l4[0] - lr[0] - FS_DET_GAP_LIFT * SIG) < 1e-12);
	assert_true(fabs(l4[1] - lr[1] - FS_DET_GAP_LIFT * SIG) < 1e-12);
	assert_true(l4[2] == 7);
	double l2[3] = {7, 7, 7};
	int le0[3] = {0, 0, 0};
	fs_det_base_set_gap(FS_DET_GAP_FIT_LIT);
	/* the first dome's only foot faces +x, away from the detector */
	assert_int_equal(fs_det_base_gap_level(&p, &off, img, 1, cx, cy, fr, le0, var, l2), 2);
	assert_true(l2[0] == 7);
	assert_true(fabs(l2[1] - R) < 0.25 && fabs(l2[2] - R) < 0.25);
	/* an unsized dome is nobody's neighbour */
	double fr1[3] = {6, NAN, 6}, l3[3] = {7, 7, 7};
	assert_int_equal(fs_det_base_gap_level(&p, &off, img, 1, cx, cy, fr1, le0, var, l3), 0);
	fs_det_base_set_gap(was);
	fs_image_free(img);
}

/* fs_gap_pairs finds on its grid exactly the pairs the nested loop over
 * i < j finds, in its order (the sums' order, so the radii's bits):
 * a jittered lattice at pitch 16 with unsized entries (NAN), and a pitch
 * far below the spacing (no pair, a grid capped at about 4 n cells). */
static void pairs_as_the_nested_loop(void **state)
{
	(void)state;
	enum { N = 400 };
	double x[N], y[N];
	unsigned st = 11;
	for (int k = 0; k < N; k++) {
		x[k] = 16 * (k % 20) + 8 * ((k / 20) & 1) + 3 * uniform(&st);
		y[k] = 13.9 * (k / 20) + 3 * uniform(&st);
		if (k % 17 == 5)
			x[k] = y[k] = NAN;
	}
	const double pitches[2] = {16, 0.01};
	for (int t = 0; t < 2; t++) {
		double reach = 1.25 * pitches[t];
		fs_gap_pair *pr = NULL;
		size_t np = 0, q = 0;
		assert_int_equal(fs_gap_pairs(x, y, N, pitches[t], &pr, &np), 0);
		for (size_t i = 0; i < N; i++)
			for (size_t j = i + 1; j < N; j++) {
				if (!isfinite(x[i]) || !isfinite(x[j]) || hypot(x[j] - x[i], y[j] - y[i]) > reach)
					continue;
				assert_true(q < np);
				assert_true(pr[q].i == i && pr[q].j == j && !pr[q].read);
				q++;
			}
		assert_int_equal(q, np);
		assert_true(t == 1 ? np == 0 : np > 2 * N);
		free(pr);
	}
}

/* A valley read on a crop (fs_gap_feet_at) is the whole image's to the
 * bit, the crop's origin taken off each sample only and the image's
 * bounds the whole one's (the centres lie beyond the crop's own width);
 * a line leaving the whole image is unread on a crop that ends there. */
static void crop_reads_the_whole_images_bits(void **state)
{
	(void)state;
	double cx[2] = {37.3, 52.6}, cy[2] = {29.1, 33.8};
	fs_image *img = disks(cx, cy, 2);
	fs_image *crop = fs_image_region_float(img, 21, 13, 50, 40);
	assert_non_null(crop);
	for (int method = FS_GAP_STEPS; method <= FS_GAP_FIT; method++) {
		double ra, rb, s, ca, cb, cs;
		assert_int_equal(fs_gap_feet(img, cx[0], cy[0], cx[1], cy[1], method, SIG, &ra, &rb, &s), 0);
		assert_int_equal(fs_gap_feet_at(crop, 21, 13, W, H, cx[0], cy[0], cx[1], cy[1], method, SIG, &ca, &cb, &cs),
				 0);
		assert_true(ra == ca && rb == cb && s == cs);
	}
	fs_image *edge = fs_image_region_float(img, W - 30, 10, 30, 40);
	assert_non_null(edge);
	double ra, rb;
	assert_int_equal(fs_gap_feet_at(edge, W - 30, 10, W, H, 70, 30, 94, 30, FS_GAP_STEPS, SIG, &ra, &rb, NULL), -1);
	assert_int_equal(fs_gap_feet(img, 70, 30, 94, 30, FS_GAP_STEPS, SIG, &ra, &rb, NULL), -1);
	fs_image_free(edge);
	fs_image_free(crop);
	fs_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fit_reads_the_feet_steps_read_inside),
		cmocka_unit_test(leaving_the_image_reads_nothing),
		cmocka_unit_test(only_lit_feet_count_under_an_azimuth),
		cmocka_unit_test(level_option_replaces_readings),
		cmocka_unit_test(pairs_as_the_nested_loop),
		cmocka_unit_test(crop_reads_the_whole_images_bits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
