/*
 * bench_screened_flank_profile.c - the mean radial profile of the
 * screen's low-pass about the TRUE centres, and where its outer flank
 * (the base's step) lies against the true base (issue 13 section 2,
 * group C: pitch 64, fill 0.8, 5-px screen).
 *
 * Why (docs/paper-figures.md, h41e, h42d): the screened level reader
 * (fs_det_base_level_lowpassed) reads the tall flat tops 47 and 63 about
 * 1.5-2 points shorter than the tall spheres 45 and 61, from the true
 * centres, on every seed set. Its two corrections of the rim's outward
 * push (the ridge model and inner_shift, dome_measure.c) take about
 * 0.35 px each off both shapes alike; what differs is where the flank
 * itself lies: the sphere's rim is a thin bright line at the base, which
 * the low-pass spreads outward by ~0.6 px, the flat top's a band several
 * px wide, which it spreads by ~0.3 px. This prints, per scene, the mean
 * of the low-passed image along 64 rays of every counted dome, aligned
 * at each dome's true base radius R, and of its radial derivative:
 *   peak    where the derivative's outer (base) peak lies, px from R
 *   in, out its half widths at half maximum inside and outside the peak
 *   ratio   in / out (a thin rim line skews the peak outward: < 1)
 *   band    where the profile is brightest inside the base, px from R
 *   inner   where the band's inner flank (the derivative's opposite
 *           peak inside it) lies, px from R
 * for all rays and for those facing the detector (within 45 deg) and
 * away from it. With --profile the whole profile (-8..+4 px) follows
 * each scene. --lowpass S: the low-pass's sigma (default
 * FS_HALFTONE_LOWPASS x the screen's period, 1.5 px; 0: none).
 * Usage: bench_screened_flank_profile [--seed-add N] [--set KEY=VALUE]...
 * [--lowpass S] [--profile] [SCENE...] (default: the 8 screened pitch-64
 * fill-0.8 corner scenes 41, 43, 45, 47, 57, 59, 61, 63). Asserts
 * nothing; a side that shows no step prints nan.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/halftone.h"
#include "analysis/preprocess.h"
#include "image/image.h"
#include "sem_cache.h"
#include "sem_opts_keys.h"
#include "sem_sim.h"

#define NB 241   /* 0.05-px bins from -8 to +4 px about the base */
#define BIN 0.05
#define NRAYS 64

enum { ALL, TOWARD, AWAY, NG };

typedef struct flank {
	double peak, in, out, band, inner;
} flank;

/* the derivative's outer peak (the largest fall past -2.5 px) and its
 * half widths, the band's brightest point and its inner flank */
static void read_flank(const double *v, flank *f)
{
	double d[NB];
	d[0] = d[NB - 1] = 0;
	for (int b = 1; b < NB - 1; b++)
		d[b] = -(v[b + 1] - v[b - 1]) / (2 * BIN); /* the fall outward, positive at the base */
	int b0 = (int)((8 - 2.5) / BIN), ip = b0;
	for (int b = b0; b < NB - 1; b++)
		if (d[b] > d[ip])
			ip = b;
	/* a peak at either end of the search is no flank (the side away from
	 * the detector of a low dome shows no step under the screen) */
	if (ip == b0 || ip >= NB - 3 || !(d[ip] > 0)) {
		f->peak = f->in = f->out = f->band = f->inner = NAN;
		return;
	}
	double h = 0.5 * d[ip];
	int io = ip, ii = ip;
	while (io < NB - 2 && d[io] > h)
		io++;
	while (ii > 1 && d[ii] > h)
		ii--;
	double xo = io - 1 + (d[io - 1] - h) / (d[io - 1] - d[io]);
	double xi = ii + 1 - (d[ii + 1] - h) / (d[ii + 1] - d[ii]);
	f->peak = -8 + BIN * ip;
	f->out = BIN * (xo - ip);
	f->in = BIN * (ip - xi);
	/* the band: the brightest bin inside the peak, within 6 px */
	int ib = ip;
	for (int b = ip; b > ip - (int)(6 / BIN) && b > 0; b--)
		if (v[b] > v[ib])
			ib = b;
	f->band = -8 + BIN * ib;
	/* the inner flank: the steepest rise inward of the band */
	int ir = ib;
	for (int b = ib; b > ib - (int)(6 / BIN) && b > 1; b--)
		if (d[b] < d[ir])
			ir = b;
	f->inner = ir < ib ? -8 + BIN * ir : NAN;
}

static sem_opts_args set_args;

static int run(int k, unsigned seed_add, double lowpass, int profile)
{
	sem_opts o;
	sem_truth t;
	sem_corner_args(k, seed_add, &set_args, &o);
	fs_image *img = sem_make_shared(&o, &t);
	if (!img)
		return -1;
	char err[128];
	double sigma = lowpass >= 0 ? lowpass : FS_HALFTONE_LOWPASS * (o.halftone > 0 ? o.halftone : 5);
	fs_image *lp = sigma > 0 ? fs_gaussian_blurred(img, sigma, err, sizeof err) : img;
	if (!lp) {
		fs_image_free(img);
		sem_truth_free(&t);
		return -1;
	}
	static double acc[NG][NB];
	static long cnt[NG][NB];
	memset(acc, 0, sizeof acc);
	memset(cnt, 0, sizeof cnt);
	size_t nd = 0;
	for (size_t j = 0; j < t.n; j++) {
		if (!sem_counted(&t, t.x[j], t.y[j]))
			continue;
		nd++;
		double R = 0.5 * t.d[j];
		for (int r = 0; r < NRAYS; r++) {
			double a = 2 * M_PI * r / NRAYS, c = cos(a - o.det_azimuth);
			int g = c > M_SQRT1_2 ? TOWARD : c < -M_SQRT1_2 ? AWAY : -1;
			for (int b = 0; b < NB; b++) {
				double rr = R - 8 + BIN * b, x = t.x[j] + rr * cos(a), y = t.y[j] + rr * sin(a);
				if (x < 0 || y < 0 || x > lp->width - 1 || y > lp->height - 1)
					continue;
				double v = fs_image_sample_clamped(lp, x, y);
				acc[ALL][b] += v;
				cnt[ALL][b]++;
				if (g >= 0) {
					acc[g][b] += v;
					cnt[g][b]++;
				}
			}
		}
	}
	static const char *names[NG] = {"all", "toward", "away"};
	double v[NG][NB];
	for (int g = 0; g < NG; g++) {
		for (int b = 0; b < NB; b++)
			v[g][b] = cnt[g][b] ? acc[g][b] / (double)cnt[g][b] : NAN;
		flank f;
		read_flank(v[g], &f);
		printf("%-5d %-4s %-4.2f %-2d %-3d %-6s %6.2f %5.2f %5.2f %5.2f %6.2f %6.2f %4zu\n", k, k & 2 ? "flat" : "sph",
		       k & 4 ? 1.0 : 0.25, k & 8 ? 5 : 0, k & 16 ? 135 : 0, names[g], f.peak, f.in, f.out,
		       f.in / f.out, f.band, f.inner, nd);
	}
	if (profile) {
		printf("# scene %d profile: r - R, all, toward, away\n", k);
		for (int b = 0; b < NB; b += 4)
			printf("# %6.2f %8.4f %8.4f %8.4f\n", -8 + BIN * b, v[ALL][b], v[TOWARD][b], v[AWAY][b]);
	}
	if (lp != img)
		fs_image_free(lp);
	fs_image_free(img);
	sem_truth_free(&t);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned seed_add = 0;
	double lowpass = -1;
	int scenes[64], n = 0, profile = 0;
	for (int i = 1; i < argc; i++) {
		if (sem_bench_arg(argc, argv, &i, &seed_add, &set_args))
			continue;
		if (!strcmp(argv[i], "--lowpass") && i + 1 < argc)
			lowpass = atof(argv[++i]);
		else if (!strcmp(argv[i], "--profile"))
			profile = 1;
		else if (n < 64)
			scenes[n++] = atoi(argv[i]);
	}
	if (!n)
		for (int k = 0; k < 64; k++)
			if ((k & 32) && (k & 8) && (k & 1))
				scenes[n++] = k;
	printf("the low-pass's mean radial profile about the TRUE centres, px from the true base (seeds +%u)",
	       seed_add);
	for (int i = 0; i < set_args.n; i++)
		printf(" %s", set_args.kv[i]);
	printf("\n%-5s %-4s %-4s %-2s %-3s %-6s %6s %5s %5s %5s %6s %6s %4s\n", "scene", "prof", "h/R", "ht", "az", "rays",
	       "peak", "in", "out", "ratio", "band", "inner", "n");
	int rc = 0;
	for (int i = 0; i < n; i++)
		rc |= run(scenes[i], seed_add, lowpass, profile) ? 1 : 0;
	return rc;
}
