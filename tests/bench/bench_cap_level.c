/*
 * bench_cap_level - where the dome rule's base level reads a bright-capped
 * dome, against its true base and its cap (issue 13, P1 Fig4;
 * docs/paper-figures.md, h38a). Asserts nothing.
 *
 * Why: on h37r's capped Fig4-like scenes (yield x (1 + cap (z/Z)^power),
 * cos^2 domes, fill 0.84) the rule's centres came back within 3.5 px of
 * the truth after h37s, yet D stays -21..-33 %: the level reads a circle
 * inside the base. This reads, from the TRUE centres (so no centre error
 * enters), the level's own reading (fs_det_base_level_one, unsmoothed rays
 * on the measurement image, as the rule reads it where the image holds no
 * screen) and the base rule's smoothed first reading (fs_dome_measure at
 * 1.2 px, the level under a screen), as r / R_true; the rays' mean
 * absolute radial step |dI/dr| in bins of r / R (what the base rule's
 * summed step peaks on), and the mean brightness I(r) minus the ring's
 * ground; the cap's own edge (the radius where (z/Z)^power falls
 * steepest, and its half level) beside the true base (r / R = 1). Then
 * the image's SE formation (fs_dome_fit_image) fitted at the true centres
 * (fill against the truth, R^2, and the mean radial residual observed
 * minus model: a cap the formation cannot draw shows as a central
 * excess), the dome rule's own detection (matched mean D error) and the
 * formation as the rule fits it (fs_det_offset_fit: its fill held at the
 * base rule's median) from the rule's final centres and radii.
 * For a paper figure (--figure PATH) the same from the rule's centres,
 * with r in units of each dome's rule radius (no truth; "fill" there is
 * the rule's mean 2R / pitch, not test_paper_images' d / (d + s)).
 * Usage: bench_cap_level [--scene H FILL CAP POWER SEED | --figure PATH]
 * default: the capped scenes (cap 0.15^2 h/R 0.3, cap 0.2^2 h/R 0.35) and
 * the uncapped one (h/R 0.35), seeds 1-2, then P1 Fig4, Fig1, Fig2.
 * Cost: about 1-3 s of CPU a scene (renders from SEM_SCENE_CACHE).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/detect_base_fit.h"
#include "analysis/detect_measure.h"
#include "analysis/detect_methods.h"
#include "analysis/detect_offset.h"
#include "analysis/dome_fit.h"
#include "analysis/dome_measure.h"
#include "fixture_image.h"
#include "image/image.h"
#include "sem_cache.h"
#include "sem_scene.h"
#include "sem_sim.h"

#define NBIN 28       /* bins of 0.05 R, r / R from 0 to 1.4 */
#define BINW 0.05
#define NRAY 32

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* median and quartiles of v[0..n) (sorted in place) */
static void quartiles(const char *what, double *v, size_t n)
{
	if (!n) {
		printf("    %-40s none\n", what);
		return;
	}
	qsort(v, n, sizeof *v, cmp_double);
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	printf("    %-40s median %.3f  quartiles %.3f / %.3f  mean %.3f  (%zu)\n", what, v[n / 2], v[n / 4],
	       v[3 * n / 4], s / n, n);
}

/* Counts of v[0..n) in the r / R bins, printed as one row. */
static void histogram(const char *what, const double *v, size_t n)
{
	int h[NBIN] = {0};
	for (size_t i = 0; i < n; i++) {
		int b = (int)floor(v[i] / BINW);
		if (b >= 0 && b < NBIN)
			h[b]++;
	}
	printf("    %-14s", what);
	for (int b = 8; b < 26; b++)
		printf(" %3d", h[b]);
	printf("\n");
}

/* The rays' mean |dI/dr| and mean I - ground at r / R of each bin, over
 * the n domes at (xs, ys) with radii rs (px) on img. ground: the median
 * of I over the ring 1.25-1.35 R is not flat ground at fill 0.84 (the
 * neighbours' feet), so the brightness is given against the mean at the
 * centre's own 1.0 R ring instead. */
static void ray_profiles(const fs_image *img, const double *xs, const double *ys, const double *rs, size_t n)
{
	double step[NBIN] = {0}, lev[NBIN] = {0};
	size_t cnt = 0;
	for (size_t i = 0; i < n; i++) {
		double R = rs[i];
		if (!(R > 2) || xs[i] - 1.45 * R < 1 || ys[i] - 1.45 * R < 1 || xs[i] + 1.45 * R > img->width - 2 ||
		    ys[i] + 1.45 * R > img->height - 2)
			continue;
		double base = 0;
		for (int k = 0; k < NRAY; k++) {
			double a = 2 * M_PI * k / NRAY;
			base += fs_image_sample_clamped(img, xs[i] + R * cos(a), ys[i] + R * sin(a));
		}
		base /= NRAY;
		for (int b = 0; b < NBIN; b++) {
			double u = (b + 0.5) * BINW, du = 0.5 * BINW;
			double s = 0, l = 0;
			for (int k = 0; k < NRAY; k++) {
				double a = 2 * M_PI * k / NRAY, c = cos(a), sn = sin(a);
				double i0 = fs_image_sample_clamped(img, xs[i] + (u - du) * R * c, ys[i] + (u - du) * R * sn);
				double i1 = fs_image_sample_clamped(img, xs[i] + (u + du) * R * c, ys[i] + (u + du) * R * sn);
				s += fabs(i1 - i0) / (2 * du * R);
				l += fs_image_sample_clamped(img, xs[i] + u * R * c, ys[i] + u * R * sn);
			}
			step[b] += s / NRAY;
			lev[b] += l / NRAY - base;
		}
		cnt++;
	}
	if (!cnt)
		return;
	printf("    r/R bin          ");
	for (int b = 0; b < NBIN; b += 2)
		printf(" %5.2f", (b + 0.5) * BINW);
	printf("\n    |dI/dr| x 1000   ");
	for (int b = 0; b < NBIN; b += 2)
		printf(" %5.1f", 1000 * step[b] / cnt);
	printf("\n    I - I(R) x 1000  ");
	for (int b = 0; b < NBIN; b += 2)
		printf(" %5.1f", 1000 * lev[b] / cnt);
	/* beyond 0.3 R: inside it the steps are mostly a screen's dots on
	 * the top, which the level's window reaches only at its floor */
	int bmax = 6;
	for (int b = 6; b < NBIN; b++)
		if (step[b] > step[bmax])
			bmax = b;
	printf("\n    the rays' mean step peaks beyond 0.3 R at r/R %.3f (%zu domes)\n", (bmax + 0.5) * BINW, cnt);
}

/* The formation fitted at the n centres: its fill and dome against the
 * truth's (true_fill 0: none), and the radial residual observed - model. */
static void formation(const fs_image *img, const double *xs, const double *ys, size_t n, double pitch,
		      double true_fill)
{
	fs_dome_fit_opts o;
	fs_dome_fit f;
	char err[200];
	fs_dome_fit_opts_default(&o);
	o.no_sigma = 1;
	if (fs_dome_fit_image(img, xs, ys, n, pitch, &o, &f, err, sizeof err)) {
		printf("    formation fit failed: %s\n", err);
		return;
	}
	printf("    formation at these centres: fill %.3f", f.fill);
	if (true_fill > 0)
		printf(" (%+.1f %% of %.2f)", 100 * (f.fill / true_fill - 1), true_fill);
	printf(", h/R %.2f profile %.2f blur %.2f px, R^2 %.3f, side %.2f edge %.2f, screen %.2f, offset (%+.1f, %+.1f)\n",
	       f.h_over_r, f.profile, f.blur_px, f.quality, f.side, f.edge, f.halftone, f.offset_x, f.offset_y);
	printf("    residual obs - model by 0.05 pitch:");
	for (int k = 0; k < FS_DOME_FIT_NRAD; k++)
		printf(" %+.2f", f.obs[k] - f.model[k]);
	printf("\n");
}

static void cap_edge(double cap, double power)
{
	if (!(cap > 0))
		return;
	/* cos^2 dome: z / Z = cos^2 (pi u / 2), so (z/Z)^p = cos^(2p); its
	 * slope -d/du peaks where tan^2 (pi u / 2) = 1 / (2p - 1) */
	double p = power > 0 ? power : 2;
	double u_steep = 2 / M_PI * atan(1 / sqrt(fmax(2 * p - 1, 1e-9)));
	double u_half = 2 / M_PI * acos(pow(0.5, 1 / (2 * p)));
	printf("    the cap's edge: steepest at r/R %.3f, half its brightening at %.3f (true base 1.000)\n", u_steep,
	       u_half);
}

/* The level's readings at (xs, ys), against the radii rs: fills q with
 * r / rs for the unsmoothed level reading and q2 for the smoothed one. */
static void readings(const fs_image *meas_img, const double *xs, const double *ys, const double *rs, size_t n,
		     double pitch)
{
	double *q = malloc((n ? n : 1) * sizeof *q), *q2 = malloc((n ? n : 1) * sizeof *q2);
	size_t a = 0, b = 0, pinned = 0;
	double mr = 0.6 * pitch;
	if (!q || !q2)
		goto out;
	for (size_t i = 0; i < n; i++) {
		int edge = 0;
		double r = fs_det_base_level_one(meas_img, xs[i], ys[i], mr, 1, &edge);
		if (isfinite(r) && !edge)
			q[a++] = r / rs[i];
		pinned += edge != 0;
		fs_tubercle t;
		memset(&t, 0, sizeof t);
		if (!fs_dome_measure(meas_img, xs[i], ys[i], FS_DOME_R0 * mr, FS_DOME_R1 * mr, 1.2, &t) &&
		    isfinite(t.radius_px))
			q2[b++] = t.radius_px / rs[i];
	}
	printf("    counts of r/R in bins of 0.05 from 0.40 to 1.30 ->");
	printf("\n");
	histogram("level (raw)", q, a);
	histogram("smoothed 1.2", q2, b);
	quartiles("level reading r / R (unsmoothed rays)", q, a);
	printf("    (%zu readings pinned at the window's end, left out)\n", pinned);
	quartiles("first reading r / R (smoothed 1.2 px)", q2, b);
out:
	free(q);
	free(q2);
}

static void scene(double h, double fill, double cap, double power, unsigned seed)
{
	sem_opts o;
	sem_truth tr;
	char err[256];
	sem_fig4_like(&o, h, fill, 0, cap, power);
	o.seed = seed;
	printf("Fig4-like scene, h/R %g fill %g cap %g^%g seed %u\n", h, fill, cap, power, seed);
	fs_image *img = sem_make_shared(&o, &tr);
	if (!img) {
		printf("  not rendered\n");
		return;
	}
	fs_params p;
	fs_params_default(&p);
	fs_image *meas_img = NULL;
	double pitch = tr.pitch;
	size_t n = 0;
	double *xs = malloc((tr.n ? tr.n : 1) * sizeof *xs), *ys = malloc((tr.n ? tr.n : 1) * sizeof *ys);
	double *rs = malloc((tr.n ? tr.n : 1) * sizeof *rs);
	if (!xs || !ys || !rs || fs_detect_measure_image(img, &p, pitch >= 40 ? 1.0 : 0.5, &meas_img, err, sizeof err))
		goto done;
	for (size_t i = 0; i < tr.n; i++)
		if (tr.inside[i]) {
			xs[n] = tr.x[i];
			ys[n] = tr.y[i];
			rs[n++] = tr.d[i] / 2;
		}
	printf("  from the true centres (%zu domes, true R %.1f px):\n", n, n ? rs[0] : 0.0);
	cap_edge(cap, power);
	readings(meas_img, xs, ys, rs, n, pitch);
	ray_profiles(meas_img, xs, ys, rs, n);
	formation(meas_img, xs, ys, n, pitch, fill);
	fs_detect_result res;
	memset(&res, 0, sizeof res);
	if (!fs_detect_domes(img, &p, 0, &res, err, sizeof err)) {
		sem_match_errors e;
		if (!sem_matched_errors(&tr, &res.tubercles, &e) && e.n_measured && e.n)
			printf("  the dome rule's detection: mean D %+.1f %% (%zu matched), centres (%+.1f, %+.1f) px\n",
			       100 * (e.sum_d / e.sum_truth - 1), e.n_measured, e.ox / e.n, e.oy / e.n);
		/* the formation as the rule fits it (detect_offset.h: its fill
		 * held at the base rule's median), here from the rule's final
		 * centres and radii */
		size_t nr = res.tubercles.n, k = 0;
		double *rx = malloc((nr ? nr : 1) * sizeof *rx), *ry = malloc((nr ? nr : 1) * sizeof *ry);
		double *rr = malloc((nr ? nr : 1) * sizeof *rr);
		for (size_t i = 0; rx && ry && rr && i < nr; i++)
			if (isfinite(res.tubercles.items[i].radius_px)) {
				rx[k] = res.tubercles.items[i].centroid_x;
				ry[k] = res.tubercles.items[i].centroid_y;
				rr[k++] = res.tubercles.items[i].radius_px;
			}
		fs_det_offset off;
		if (k && !fs_det_offset_fit(meas_img, rx, ry, rr, k, pitch, NULL, &off) && off.fitted)
			printf("  the rule's formation from its final centres: fill %.3f h/R %.2f profile %.2f blur %.2f px "
			       "R^2 %.3f edge %.2f\n",
			       off.fit.fill, off.fit.h_over_r, off.fit.profile, off.fit.blur_px, off.fit.quality,
			       off.fit.edge);
		free(rx);
		free(ry);
		free(rr);
		fs_detect_result_free(&res);
	}
done:
	free(xs);
	free(ys);
	free(rs);
	fs_image_free(meas_img);
	sem_truth_free(&tr);
	fs_image_free(img);
}

static void figure(const char *path)
{
	char err[256];
	printf("%s\n", path);
	fs_image *img = fixture_image(path);
	if (!img) {
		printf("  cannot be read\n");
		return;
	}
	fs_params p;
	fs_params_default(&p);
	fs_detect_result res;
	memset(&res, 0, sizeof res);
	fs_image *meas_img = NULL;
	double *xs = NULL, *ys = NULL, *rs = NULL;
	if (fs_detect_domes(img, &p, 0, &res, err, sizeof err))
		goto done;
	size_t n = res.tubercles.n, k = 0;
	xs = malloc((n ? n : 1) * sizeof *xs);
	ys = malloc((n ? n : 1) * sizeof *ys);
	rs = malloc((n ? n : 1) * sizeof *rs);
	if (!xs || !ys || !rs)
		goto done;
	for (size_t i = 0; i < n; i++) {
		const fs_tubercle *t = &res.tubercles.items[i];
		if (!isfinite(t->radius_px) || !(t->radius_px > 0))
			continue;
		xs[k] = t->centroid_x;
		ys[k] = t->centroid_y;
		rs[k++] = t->radius_px;
	}
	double pitch = fs_dome_fit_pitch(xs, ys, k);
	if (!(pitch > 0) ||
	    fs_detect_measure_image(img, &p, pitch >= 40 ? 1.0 : 0.5, &meas_img, err, sizeof err))
		goto done;
	double sr = 0;
	for (size_t i = 0; i < k; i++)
		sr += rs[i];
	printf("  from the rule's centres (%zu domes, pitch %.1f px, rule's mean R %.1f px = fill %.3f); r / R "
	       "below is against each dome's rule radius\n",
	       k, pitch, sr / k, 2 * sr / k / pitch);
	readings(meas_img, xs, ys, rs, k, pitch);
	ray_profiles(meas_img, xs, ys, rs, k);
	formation(meas_img, xs, ys, k, pitch, 0);
done:
	free(xs);
	free(ys);
	free(rs);
	fs_image_free(meas_img);
	fs_detect_result_free(&res);
	fs_image_free(img);
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--figure")) {
		figure(argv[2]);
		return 0;
	}
	if (argc > 6 && !strcmp(argv[1], "--scene")) {
		scene(atof(argv[2]), atof(argv[3]), atof(argv[4]), atof(argv[5]), (unsigned)atoi(argv[6]));
		return 0;
	}
	for (unsigned s = 1; s <= 2; s++) {
		scene(0.3, 0.84, 0.15, 2, s);
		scene(0.35, 0.84, 0.2, 2, s);
		scene(0.35, 0.84, 0, 2, s);
	}
	figure("tests/fixtures/paper/P1_Fig4_Atractosteus_simplex_7.07um.tif");
	figure("tests/fixtures/paper/P1_Fig1_Lepidotes_elvensis_4.78um.tif");
	figure("tests/fixtures/paper/P1_Fig2_Polypterus_bichir_2.63um.tif");
	return 0;
}
