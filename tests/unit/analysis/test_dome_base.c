/*
 * The dome-base rule's estimators against known truth (issue 13 section 2):
 * the halftone period of a simulated screen (halftone.h, which the dome
 * rule's formation and level readings low-pass away), the blurred disk's
 * radius corrected by the width of its own steps (fs_dome_measure), and
 * the rim-bright dome's outward push taken out (fs_dome_measure_base).
 *
 * The rule's accuracy from the true centres of the 64 corner scenes is
 * test_sem_oracle's (make accuracy) and from its own centres
 * test_sem_accuracy's; this file once also printed the table of an
 * earlier per-image blur correction (fs_dome_image), which the template
 * fit of the dome rule replaced and which is gone with it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dome_measure.h"
#include "analysis/halftone.h"
#include "analysis/preprocess.h"
#include "sem_cache.h"

#define NSCENES 64

/* The screen of a simulated printed figure: its period within 4 %; none on
 * the same scene unprinted. Four corner scenes that put each factor at both
 * its levels and hold the hardest cases of the 8 (every 9th) this ran on
 * before: 45, the printed one whose spectral peak stands least above the
 * rest (ratio 6655 at a 6-px screen), and 27, the unprinted one whose
 * stands most (6.3); on all 8 the period read was the same (3.48, 5.03,
 * 6.03 px), so the other 4 added renderings (this test was half of the
 * binary's 96 s of CPU, run alone), not cases. */
static void halftone_period_found(void **state)
{
	(void)state;
	static const double per[] = {3.5, 5, 6};
	static const int scenes[] = {0, 27, 45, 54};
	for (int si = 0; si < 4; si++) {
		int k = scenes[si];
		sem_opts o;
		sem_truth t;
		sem_corner_scene(k, &o);
		/* the scene rendered once, unprinted, and each screen applied to
		 * a copy: sem_make's printed image to the bit (sem_screen; h35f:
		 * the surface was rendered four times a scene) */
		o.halftone = 0;
		fs_image *bare = sem_make_shared(&o, &t);
		assert_non_null(bare);
		for (int pi = 0; pi < 3; pi++) {
			fs_image *img = fs_image_clone(bare);
			assert_non_null(img);
			assert_int_equal(sem_screen(img, per[pi], o.scan_blur), 0);
			double p = 0, q = 0;
			assert_int_equal(fs_halftone_detect(img, &p, &q), 0);
			printf("halftone: true %.1f, found %.2f (ratio %.0f, scene %d)\n", per[pi], p, q, k);
			assert_true(fabs(p - per[pi]) < 0.04 * per[pi]);
			fs_image_free(img);
		}
		double p = 0, q = 0;
		assert_int_equal(fs_halftone_detect(bare, &p, &q), 0);
		printf("no halftone: found %.2f (ratio %.1f, scene %d)\n", p, q, k);
		assert_true(p == 0);
		fs_image_free(bare);
		sem_truth_free(&t);
	}
}

/* A harmonic of the tubercle lattice is not a screen (h35j). The two
 * unscreened interior scenes of test_sem_accuracy at pitch 28
 * (sem_interior_scene 11 and 12, seeds 3100 and 3119) carry the
 * lattice's sqrt(13) ring at 6.7 px, two of its twelve peaks 87.8
 * degrees apart, 51 and 74
 * times above the ring's median: before h35j a screen of 6.7 px was found
 * on both (and the dome rule's axis step, which runs only without one,
 * skipped: mean D -23 % on seed 3100). Unscreened, they must read none;
 * printed through a 5-px 45-degree screen (the corner scenes') and a
 * 3.5-px one, that screen's period must still be found. */
static void lattice_harmonic_not_a_screen(void **state)
{
	(void)state;
	static const int scenes[] = {11, 12};
	static const double per[] = {3.5, 5};
	for (int i = 0; i < 2; i++) {
		sem_opts o;
		sem_truth t;
		sem_interior_scene(scenes[i], &o);
		fs_image *bare = sem_make_shared(&o, &t);
		assert_non_null(bare);
		double p = 0, q = 0;
		assert_int_equal(fs_halftone_detect(bare, &p, &q), 0);
		printf("lattice pitch 28, interior scene %d: found %.2f (ratio %.1f)\n", scenes[i], p, q);
		assert_true(p == 0);
		for (int pi = 0; pi < 2; pi++) {
			fs_image *img = fs_image_clone(bare);
			assert_non_null(img);
			assert_int_equal(sem_screen(img, per[pi], o.scan_blur), 0);
			assert_int_equal(fs_halftone_detect(img, &p, &q), 0);
			printf("  printed at %.1f px: found %.2f (ratio %.0f)\n", per[pi], p, q);
			assert_true(fabs(p - per[pi]) < 0.04 * per[pi]);
			fs_image_free(img);
		}
		fs_image_free(bare);
		sem_truth_free(&t);
	}
}

/* A W x W image, W = 2 R + 40, of a brightness f(r, R) around the centre
 * *c = (W / 2 + 0.3, the same), area-sampled (4 x 4 samples a pixel, each
 * pixel a + b x their mean), then blurred by sigma. The caller frees it. */
static fs_image *radial_image(double R, double (*f)(double r, double R), double a, double b, double sigma,
			      double *c)
{
	int W = (int)(2 * R + 40);
	fs_image *img = fs_image_new(W, W);
	assert_non_null(img);
	*c = W / 2.0 + 0.3;
	for (int y = 0; y < W; y++)
		for (int x = 0; x < W; x++) {
			double v = 0;
			for (int sy = 0; sy < 4; sy++)
				for (int sx = 0; sx < 4; sx++)
					v += f(hypot(x + (sx + 0.5) / 4 - 0.5 - *c, y + (sy + 0.5) / 4 - 0.5 - *c), R);
			img->data[y * W + x] = (float)(a + b * v / 16.0);
		}
	char err[64];
	assert_int_equal(fs_gaussian_blur(img, sigma, err, sizeof err), 0);
	return img;
}

/* inside the disk: 1, outside 0 */
static double in_disk(double r, double R)
{
	return r < R;
}

/* a flat disk of 0.65 on a ground of 0.2 */
static double flat_disk(double r, double R)
{
	return r >= R ? 0.2 : 0.65;
}

/* the secant law's rise to the rim: 0.45 at the centre to 0.85 at the
 * edge, on a ground of 0.2 */
static double rim_bright_dome(double r, double R)
{
	return r >= R ? 0.2 : 0.45 + 0.4 * (r / R) * (r / R);
}

/* An ideal bright disk (area-sampled) blurred by a known sigma and then
 * lightly smoothed (0.5 px, as the dome rule's first reading is):
 * fs_dome_measure, which is told no blur, corrects with the width of the
 * disk's own steps: within 3 % (+0.05 px) for radii from 2 sigma of the
 * whole blur up, below 3 sigma from the fit of the whole radial profile
 * (a flat disk is a dome whose base is its edge; uncorrected a 6 px disk
 * read 5.6 px). */
static void blurred_disk_radius_corrected(void **state)
{
	(void)state;
	static const double rad[] = {2.0, 3.0, 5.0, 8.0, 20.0};
	static const double sig[] = {0.8, 1.5};
	const double smooth = 0.5;
	for (int si = 0; si < 2; si++) {
		for (int ri = 0; ri < 5; ri++) {
			double R = rad[ri];
			double c;
			fs_image *img = radial_image(R, in_disk, 0.2, 0.5, sig[si], &c);
			char err[64];
			assert_int_equal(fs_gaussian_blur(img, smooth, err, sizeof err), 0);
			double blur = sqrt(sig[si] * sig[si] + smooth * smooth);
			fs_tubercle t0;
			fs_tubercle_init(&t0);
			assert_int_equal(fs_dome_measure(img, c, c, 0.3 * R, 1.6 * R + 2, 0, &t0), 0);
			printf("disk R %.1f sigma %.2f (with smoothing %.2f): own steps %.3f\n", R, sig[si], blur,
			       t0.radius_px);
			if (R >= 2 * blur)
				assert_true(fabs(t0.radius_px - R) < 0.03 * R + 0.05);
			fs_image_free(img);
		}
	}
}

/* A dome brighter towards its base (the secant law's rise to the rim: the
 * disk's inside rises as (r / R)^2 from 0.45 at the centre to 0.85 at the
 * edge, on a ground of 0.2), area-sampled and blurred by a known sigma,
 * against a flat disk (0.65 inside) of the same radius: the blurred
 * step's steepest point lies further out on the rim-bright dome by about
 * c sigma^2 / A (c its inner slope, A the step), which fs_dome_measure
 * reads as it is (0.08-0.22 px here). fs_dome_measure_base fits the inner
 * slope on the rays and takes that push out: what is left of it is under
 * 0.4 of fs_dome_measure's from 6 px up (measured 0.06-0.30 of it), and
 * on the flat disk, which has no inner slope, it reads no further from
 * the truth than fs_dome_measure + 0.04 px. */
static void ramped_dome_base_not_pushed_out(void **state)
{
	(void)state;
	static const double rad[] = {6.0, 10.0, 25.0};
	static const double sig[] = {0.9, 1.3};
	for (int si = 0; si < 2; si++) {
		for (int ri = 0; ri < 3; ri++) {
			double R = rad[ri], old[2], now[2];
			for (int flat = 0; flat < 2; flat++) {
				double c;
				fs_image *img = radial_image(R, flat ? flat_disk : rim_bright_dome, 0, 1, sig[si], &c);
				fs_tubercle t0, t1;
				fs_tubercle_init(&t0);
				fs_tubercle_init(&t1);
				assert_int_equal(fs_dome_measure(img, c, c, 0.3 * R, 1.6 * R + 2, 0, &t0), 0);
				assert_int_equal(fs_dome_measure_base(img, c, c, 0.3 * R, 1.6 * R + 2, &t1), 0);
				old[flat] = t0.radius_px;
				now[flat] = t1.radius_px;
				fs_image_free(img);
			}
			printf("R %.1f sigma %.2f: rim-bright dome %.3f -> %.3f, flat disk %.3f -> %.3f "
			       "(fs_dome_measure -> fs_dome_measure_base)\n",
			       R, sig[si], old[0], now[0], old[1], now[1]);
			double push_old = old[0] - old[1], push_now = now[0] - now[1];
			assert_true(push_old > 0.05);
			assert_true(fabs(push_now) < 0.4 * push_old);
			assert_true(fabs(now[1] - R) <= fabs(old[1] - R) + 0.04);
		}
	}
}

int main(void)
{
	const struct CMUnitTest est[] = {
		cmocka_unit_test(halftone_period_found),
		cmocka_unit_test(lattice_harmonic_not_a_screen),
		cmocka_unit_test(blurred_disk_radius_corrected),
		cmocka_unit_test(ramped_dome_base_not_pushed_out),
	};
	return cmocka_run_group_tests_name("dome base estimators", est, NULL, NULL);
}
