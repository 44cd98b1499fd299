/*
 * The dome-base rule's diameter, measured separately from centre finding
 * (issue 13 section 2): the rule started from the TRUE centres of the 64
 * corner scenes of test_sem_accuracy (the same options and seeds), before
 * (fs_dome_measure on the lightly smoothed image with the ray smoothing
 * chosen per image, as fs_detect_domes does) and after (fs_dome_image:
 * halftone removed, blur estimated once per image from the bases of up to
 * 64 of the centres, fs_dome_image_calibrate, the steepest-step radius
 * corrected for it). Per scene: mean D error %, mean S error % (true
 * neighbour pairs, measured centres and radii), SD % of the per-tubercle D
 * error, unmeasured bases. Targets of the issue: |mean D|, |mean S| < 3 %,
 * SD < 8 % where D >= 8 px and the halftone period <= D / 3. Both tables
 * are printed with the cost per tubercle; the asserts guard the levels
 * reached. DOME_SKIP_BEFORE=1 in the environment skips the first table
 * (when working on the rule; make test's plain run sets it, since the
 * table is not asserted, and `make accuracy` prints it).
 *
 * And the estimators against known truth: the blur sigma of synthetic
 * blurred edges, the halftone period of a simulated screen, the blurred
 * disk's correction, the rim-bright dome's outward push taken out
 * (fs_dome_measure_base).
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
#include <time.h>

#include "analysis/blur_estimate.h"
#include "analysis/dome_measure.h"
#include "analysis/halftone.h"
#include "analysis/preprocess.h"
#include "sem_cache.h"

#define NSCENES 64

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

typedef struct scene_result {
	double d_err, s_err, d_sd, blur, halftone;
	int sd_applies, n_nan;
	size_t n;
	double us_prep, us_per;
} scene_result;

/* The ray smoothing fs_det_measure chooses (detect_measure.c): the least of
 * 0, 1.2, 2.2 px whose mean fit quality over the first 48 centres is
 * within 0.03 of the best. */
static double old_smooth(const fs_image *m, const sem_truth *t, double rmin, double rmax)
{
	static const double sm[3] = {0, 1.2, 2.2};
	double q[3] = {0};
	size_t nc = t->n < 48 ? t->n : 48;
	for (int k = 0; k < 3; k++) {
		for (size_t i = 0; i < nc; i++) {
			fs_tubercle tb;
			memset(&tb, 0, sizeof tb);
			if (t->x[i] < 0 || t->y[i] < 0 || t->x[i] > m->width - 1 || t->y[i] > m->height - 1)
				continue;
			if (fs_dome_measure(m, t->x[i], t->y[i], rmin, rmax, sm[k], &tb) == 0)
				q[k] += tb.fit_quality;
		}
	}
	double best = fmax(q[0], fmax(q[1], q[2]));
	for (int k = 0; k < 3; k++)
		if (q[k] >= best - 0.03 * nc)
			return sm[k];
	return 0;
}

static void run_scene(int k, int after, scene_result *r)
{
	sem_opts o;
	sem_truth t;
	sem_corner_scene(k, &o);
	fs_image *img = sem_make_shared(&o, &t);
	assert_non_null(img);
	memset(r, 0, sizeof *r);
	double a = t.pitch, rmin = 0.09 * a, rmax = 0.48 * a;
	fs_tubercle *m = calloc(t.n + 1, sizeof *m);
	int *ok = calloc(t.n + 1, sizeof *ok);
	assert_true(m && ok);
	char err[128];
	double t0 = now_s();
	fs_dome_image di;
	fs_image *mimg = NULL;
	double smooth = 0;
	if (after) {
		assert_int_equal(fs_dome_image_prepare(img, a, &di, err, sizeof err), 0);
		fs_dome_image_calibrate(&di, t.x, t.y, t.n, rmin, rmax);
		r->blur = di.blur;
		r->halftone = di.halftone;
	} else {
		mimg = fs_gaussian_blurred(img, a >= 40 ? 1.0 : 0.5, err, sizeof err);
		assert_non_null(mimg);
		smooth = old_smooth(mimg, &t, rmin, rmax);
		r->blur = smooth;
	}
	double t1 = now_s();
	size_t nmeas = 0;
	for (size_t j = 0; j < t.n; j++) {
		if (!sem_counted(&t, t.x[j], t.y[j]) && !(t.inside[j]))
			continue;
		fs_tubercle_init(&m[j]);
		ok[j] = (after ? fs_dome_measure_at(&di, t.x[j], t.y[j], rmin, rmax, &m[j])
			       : fs_dome_measure(mimg, t.x[j], t.y[j], rmin, rmax, smooth, &m[j])) == 0;
		nmeas++;
	}
	double t2 = now_s();
	r->us_prep = 1e6 * (t1 - t0);
	r->us_per = nmeas ? 1e6 * (t2 - t1) / nmeas : 0;
	double sd_true = 0, sd_det = 0, se = 0, se2 = 0, dmean = 0;
	size_t nm = 0;
	for (size_t j = 0; j < t.n; j++) {
		if (!sem_counted(&t, t.x[j], t.y[j]))
			continue;
		if (!ok[j] || !isfinite(m[j].radius_px)) {
			r->n_nan++;
			continue;
		}
		double e = (2 * m[j].radius_px - t.d[j]) / t.d[j];
		sd_true += t.d[j];
		sd_det += 2 * m[j].radius_px;
		se += e;
		se2 += e * e;
		dmean += t.d[j];
		nm++;
	}
	r->n = nm;
	r->d_err = nm ? 100 * (sd_det - sd_true) / sd_true : NAN;
	r->d_sd = nm > 1 ? 100 * sqrt(fmax(0, (se2 - se * se / nm) / (nm - 1))) : NAN;
	dmean = nm ? dmean / nm : 0;
	r->sd_applies = dmean >= 8 && o.halftone <= dmean / 3;
	double st = 0, sdv = 0;
	size_t ns = 0;
	for (size_t q = 0; q < t.n_pairs; q++) {
		int i = t.pi[q], j = t.pj[q];
		if (!sem_counted(&t, t.x[i], t.y[i]) || !sem_counted(&t, t.x[j], t.y[j]) || !ok[i] || !ok[j] ||
		    !isfinite(m[i].radius_px) || !isfinite(m[j].radius_px))
			continue;
		st += t.space[q];
		sdv += hypot(m[i].centroid_x - m[j].centroid_x, m[i].centroid_y - m[j].centroid_y) -
		       m[i].radius_px - m[j].radius_px;
		ns++;
	}
	r->s_err = ns && st > 0 ? 100 * (sdv - st) / st : NAN;
	if (after)
		fs_dome_image_free(&di);
	fs_image_free(mimg);
	free(m);
	free(ok);
	sem_truth_free(&t);
	fs_image_free(img);
}

typedef struct summary {
	int d, s, sd, sd_applies, all, run;
	double us_per, us_prep;
} summary;

static summary sum_before, sum_after;

static void run_table(const char *title, int after, summary *S)
{
	scene_result r;
	memset(S, 0, sizeof *S);
	printf("%s\n", title);
	printf("%-5s %-4s %-5s %-4s %-3s %-4s %-3s %6s %6s %6s %4s %5s %5s %6s\n", "scene", "fill", "prof",
	       "h/R", "ht", "az", "pit", "D%", "S%", "sdD%", "nan", after ? "blur" : "smth", "htP",
	       "us/t");
	double tot_us = 0, tot_prep = 0;
	for (int k = 0; k < NSCENES; k += SEM_SCENE_STEP) {
		S->run++;
		run_scene(k, after, &r);
		int ok_d = fabs(r.d_err) < 3, ok_s = fabs(r.s_err) < 3;
		int ok_sd = !r.sd_applies || r.d_sd < 8;
		S->d += ok_d;
		S->s += ok_s;
		S->sd_applies += r.sd_applies;
		S->sd += r.sd_applies && r.d_sd < 8;
		S->all += ok_d && ok_s && ok_sd;
		tot_us += r.us_per;
		tot_prep += r.us_prep;
		printf("%-5d %-4.2f %-5s %-4.2f %-3d %-4d %-3d %6.1f %6.1f %6.1f%s %4d %5.2f %5.2f %6.1f%s%s%s\n",
		       k, k & 1 ? 0.80 : 0.25, k & 2 ? "flat" : "sph", k & 4 ? 1.0 : 0.25, k & 8 ? 5 : 0,
		       k & 16 ? 135 : 0, k & 32 ? 64 : 16, r.d_err, r.s_err, r.d_sd, r.sd_applies ? "*" : " ",
		       r.n_nan, r.blur, r.halftone, r.us_per, ok_d ? "" : " D", ok_s ? "" : " S",
		       ok_sd ? "" : " SD");
	}
	S->us_per = tot_us / S->run;
	S->us_prep = tot_prep / S->run;
	printf("targets met from true centres: mean D %d/%d, mean S %d/%d, D SD %d/%d (* = applies), "
	       "all three %d/%d; %.1f us per tubercle, %.0f us per image before the tubercles\n",
	       S->d, NSCENES, S->s, NSCENES, S->sd, S->sd_applies, S->all, NSCENES, S->us_per, S->us_prep);
}

static int run_all(void **state)
{
	(void)state;
	if (!getenv("DOME_SKIP_BEFORE"))
	run_table("dome-base rule from the true centres, before (fs_dome_measure, ray smoothing "
		  "chosen per image):",
		  0, &sum_before);
	run_table("dome-base rule from the true centres, after (fs_dome_image: halftone removed, "
		  "blur estimated and corrected):",
		  1, &sum_after);
	return 0;
}

/* The levels reached (a regression guard, not the issue's targets), on
 * the simulator that integrates the yield of the analytic slopes over each
 * pixel (h19f; on the one before, with slopes by differences over 2 px,
 * whose edges sat inside the base: D 40, S 35, SD 40). */
#define LEVEL_D 28
#define LEVEL_S 31
#define LEVEL_SD 40

static void true_centre_levels(void **state)
{
	(void)state;
	assert_int_equal(sum_after.run, NSCENES / SEM_SCENE_STEP);
	if (SEM_SCENE_STEP > 1)
		return;
	assert_true(sum_after.d >= LEVEL_D);
	assert_true(sum_after.s >= LEVEL_S);
	assert_true(sum_after.sd >= LEVEL_SD);
}

/* A straight step blurred by a known sigma (rendered exactly: the step's
 * Gaussian edge integrated over each pixel is close to erf at the pixel
 * centre for these sigmas), at several angles, with and without noise:
 * the estimate is within 10 %. */
static void blur_of_a_blurred_edge(void **state)
{
	(void)state;
	static const double sig[] = {0.8, 1.2, 2.0, 3.0};
	for (int si = 0; si < 4; si++) {
		for (int ai = 0; ai < 3; ai++) {
			double ang = 0.3 + ai * 0.5;
			fs_image *img = fs_image_new(160, 160);
			assert_non_null(img);
			/* stripes of width 40 at the angle: several straight edges */
			unsigned rs = 7;
			for (int y = 0; y < 160; y++) {
				for (int x = 0; x < 160; x++) {
					double u = (x - 80) * cos(ang) + (y - 80) * sin(ang);
					double ph = fmod(u + 1000, 40.0);
					double dd = fmin(ph, 40 - ph) - 10; /* > 0 inside the dark band */
					double v = 0.2 + 0.6 * 0.5 * (1 + erf(-dd / (M_SQRT2 * sig[si])));
					rs = rs * 1103515245u + 12345u;
					v += 0.01 * (((rs >> 16) & 0x7fff) / 32767.0 - 0.5);
					img->data[y * 160 + x] = (float)v;
				}
			}
			double s = 0;
			assert_int_equal(fs_blur_estimate(img, &s), 0);
			printf("blur: true %.2f, estimated %.3f (angle %.1f)\n", sig[si], s, ang);
			assert_true(fabs(s - sig[si]) < 0.1 * sig[si]);
			fs_image_free(img);
		}
	}
}

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
		for (int pi = 0; pi < 3; pi++) {
			o.halftone = per[pi];
			fs_image *img = sem_make_shared(&o, &t);
			assert_non_null(img);
			double p = 0, q = 0;
			assert_int_equal(fs_halftone_detect(img, &p, &q), 0);
			printf("halftone: true %.1f, found %.2f (ratio %.0f, scene %d)\n", per[pi], p, q, k);
			assert_true(fabs(p - per[pi]) < 0.04 * per[pi]);
			fs_image_free(img);
			sem_truth_free(&t);
		}
		o.halftone = 0;
		fs_image *img = sem_make_shared(&o, &t);
		assert_non_null(img);
		double p = 0, q = 0;
		assert_int_equal(fs_halftone_detect(img, &p, &q), 0);
		printf("no halftone: found %.2f (ratio %.1f, scene %d)\n", p, q, k);
		assert_true(p == 0);
		fs_image_free(img);
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

/* An ideal bright disk (area-sampled) blurred by a known sigma: with that
 * sigma the corrected radius is within 3 % (+0.05 px) for radii from
 * 2 sigma up (below 3 sigma from the fit of the whole profile); the
 * source's blur is estimated within 10 % on disks of 8 px and more
 * (smaller disks have no edge on its own: the estimate then reads low, see
 * blur_estimate.h). fs_dome_measure, which knows no blur, corrects with the
 * width of the disk's own steps: within 3 % (+0.05 px) from 2 sigma up too
 * (a flat disk is a dome whose base is its edge; uncorrected a 6 px disk
 * read 5.6 px). */
static void blurred_disk_radius_corrected(void **state)
{
	(void)state;
	static const double rad[] = {2.0, 3.0, 5.0, 8.0, 20.0};
	static const double sig[] = {0.8, 1.5};
	for (int si = 0; si < 2; si++) {
		for (int ri = 0; ri < 5; ri++) {
			double R = rad[ri];
			double c;
			fs_image *img = radial_image(R, in_disk, 0.2, 0.5, sig[si], &c);
			char err[64];
			fs_dome_image d;
			assert_int_equal(fs_dome_image_prepare(img, 0, &d, err, sizeof err), 0);
			double est = d.blur;
			/* the known blur: the source's and the smoothing's */
			d.blur = sqrt(sig[si] * sig[si] + d.smooth * d.smooth);
			fs_tubercle t, t0;
			fs_tubercle_init(&t);
			fs_tubercle_init(&t0);
			assert_int_equal(fs_dome_measure_at(&d, c, c, 0.3 * R, 1.6 * R + 2, &t), 0);
			assert_int_equal(fs_dome_measure(d.img, c, c, 0.3 * R, 1.6 * R + 2, 0, &t0), 0);
			printf("disk R %.1f sigma %.2f (with smoothing %.2f): blur est %.3f, own steps %.3f, "
			       "corrected %.3f\n",
			       R, sig[si], d.blur, est, t0.radius_px, t.radius_px);
			if (R >= 2 * d.blur) {
				assert_true(fabs(t.radius_px - R) < 0.03 * R + 0.05);
				assert_true(fabs(t0.radius_px - R) < 0.03 * R + 0.05);
			}
			if (R >= 8)
				assert_true(fabs(est - d.blur) < 0.1 * d.blur);
			fs_dome_image_free(&d);
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
		cmocka_unit_test(blur_of_a_blurred_edge),
		cmocka_unit_test(halftone_period_found),
		cmocka_unit_test(blurred_disk_radius_corrected),
		cmocka_unit_test(ramped_dome_base_not_pushed_out),
	};
	const struct CMUnitTest acc[] = {
		cmocka_unit_test(true_centre_levels),
	};
	int rc = cmocka_run_group_tests_name("dome base estimators", est, NULL, NULL);
	rc |= cmocka_run_group_tests_name("dome base from true centres", acc, run_all, NULL);
	return rc;
}
