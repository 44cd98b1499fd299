/*
 * bench_screen_scan_blur.c - the scan's blur read from a printed image's
 * own halftone screen (issue 13; docs/paper-figures.md, h45c). Asserts
 * nothing.
 *
 * Why: h42d's step-plus-band correction of the screened level needs the
 * total blur (beam, screen, scan, the rule's smoothing and low-pass) to
 * about 0.03 px (h43e), and no reading of the domes holds it. The screen's
 * dots are binary before the scan, so whatever smooths their harmonics
 * after the screen is the reproduction's blur: the ratio of each harmonic's
 * power in the image to its power in a binary screen of the same tone,
 * period and angle falls with frequency as the scan's transfer squared.
 * This reads that blur from the image only (nothing of the simulator's
 * options enters the reading; they are printed beside it) and prints what
 * it gives against the scan blur the scene was made with.
 *
 * The reading (read_scan_blur):
 *  - the screen's period from fs_halftone_detect; its two fundamentals
 *    f1, f2 (bins of the n x n centred crop fs_halftone_crop names) as the
 *    power-weighted centroids of the 5 x 5 bins about the strongest bin of
 *    the band and about its 90-degree partner (any angle), and their
 *    phases (the dots' centres are ink: the fundamentals' troughs);
 *  - the tone: the image low-passed by 0.5 period (0.7 % of the
 *    fundamental left), mapped to the bright coverage between the ink's
 *    and the paper's levels (the image's 0.2 % and 99.8 % quantiles;
 *    --level-fit: searched 0-0.3 beyond them for the best fit below;
 *    --oracle-levels: the simulator's 0.05 / 0.95, a check only), and
 *    through the inverse coverage of a round-dot screen (the classical
 *    spot function 0.5 + 0.25 (cos a + cos b) of the two fundamentals'
 *    phases) to the signal the dots were thresholded from;
 *  - a binary screen of that signal rendered on the crop at the read
 *    frequencies and phases, each pixel's area on SUB x SUB points (--sub);
 *  - the power of both spectra (Hann window) summed within 2.5 bins of
 *    each harmonic m f1 + k f2 (|m|, |k| <= 4, folded into the crop's
 *    band: the scan blur acts on the sampled image), less the mean power of
 *    the ring 4-6 bins about it; harmonics nearer than 0.8 |f1| to the
 *    origin, within 5 bins of another's fold, or under 10 times their
 *    ring's power in either spectrum are left out (--axes: only the
 *    harmonics along the screen's two axes, m = 0 or k = 0);
 *  - ln(image / screen) = a + 2 ln H(fx) H(fy), H a Gaussian sampled on
 *    the pixel lattice (the transfer of fs_gaussian_blur's kind, its
 *    aliases summed), a solved linearly and sigma searched 0-2.5 px (0.01,
 *    then 0.001); sig_c the same with the continuous Gaussian's transfer.
 *
 * Columns: P (period, px), ang (f1's angle, degrees), nh (harmonics
 * used), sig (the reading, px), sig_c, rms (the fit's residual in ln
 * power), scan (the scene's scan blur, the simulator's: for comparison
 * only), err = sig - scan.
 *
 * --scan S1,S2,...: each scene rendered once without a screen and printed
 * through its own period at each scan blur (sem_screen: the same bits as
 * sem_make's at that scan blur) - whether the reading follows the scan.
 * --control V1,V2,...: no scene, a flat 512 x 512 signal V printed through
 * a 5-px screen (at each --scan, else 0.6): the reading's own floor.
 * --descreen K: the tone corrected K times so that its own synthetic
 * print's low-pass is the image's (descreen below; h45c: the low-passed
 * tone's coverage is not the coverage of the low-passed signal, which is
 * the reading's scene bias; 8 takes most of it). --oracle-tone (with
 * --scan): the tone the simulator screened in place of the one read (a
 * diagnosis of the reading's bias, not a reading). --file PATH
 * (repeatable): a real print's reading alone (the paper figures; no
 * truth). --no-phase: the synthetic screen at phase 0 (h45c: then low
 * scan blurs misread, the folded harmonics adding with other phases).
 * --interior: the SCENE numbers are interior scenes (with --set
 * halftone=5: the printed interior). --verbose: the levels, phases and
 * every harmonic's power, ring and log ratio.
 *
 * Usage: bench_screen_scan_blur [--seeds N,N,...] [--set KEY=VALUE]...
 * [--scan S,S,...] [--control V,V,...] [--file PATH]... [--descreen K]
 * [--oracle-tone] [--sub N] [--axes] [--level-fit] [--oracle-levels]
 * [--no-phase] [--interior] [--verbose] [SCENE...]
 * (default: the 32 screened corner scenes, seeds 0,4000,...,28000).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fft.h"
#include "analysis/halftone.h"
#include "analysis/preprocess.h"
#include "base/sorting.h"
#include "image/image.h"
#include "bench_support.h"
#include "fixture_image.h"
#include "sem_cache.h"
#include "sem_opts_keys.h"
#include "sem_scene.h"

#define MAXH 48
#define NCOV 2001

static int opt_sub = 3, opt_oracle_levels, opt_verbose;
static int opt_no_phase, opt_level_fit, opt_axes;
/* --oracle-tone (with --scan): the signal the simulator screened, in place
 * of the tone read from the image - what the reading gives when only the
 * tone is known exactly (a diagnosis of its bias, never a reading) */
static int opt_oracle_tone;
static const fs_image *oracle_tone;
/* --descreen K: K rounds of the tone made sharper (descreen below) */
static int opt_descreen;

typedef struct {
	double P, ang, sig, sig_c, rms, lo, hi;
	int nh;
} scan_read;

/* the round-dot screen's bright fraction at signal v (v above the spot
 * 0.5 + 0.25 (cos a + cos b), a and b uniform): cov[i] at v = i / (NCOV - 1) */
static double cov[NCOV];

static void cov_table(void)
{
	enum { G = 600 };
	static double spot[G * G];
	for (int i = 0; i < G; i++)
		for (int j = 0; j < G; j++)
			spot[i * G + j] =
			    0.5 + 0.25 * (cos(2 * M_PI * (i + 0.5) / G) + cos(2 * M_PI * (j + 0.5) / G));
	for (int k = 0; k < NCOV; k++) {
		double v = (double)k / (NCOV - 1);
		long c = 0;
		for (int i = 0; i < G * G; i++)
			c += v > spot[i];
		cov[k] = (double)c / (G * G);
	}
}

/* the bright fraction at signal v (the table, linear between samples) */
static double cov_at(double v)
{
	if (v <= 0)
		return cov[0];
	if (v >= 1)
		return cov[NCOV - 1];
	double t = v * (NCOV - 1);
	int k = (int)t;
	if (k >= NCOV - 1)
		return cov[NCOV - 1];
	return cov[k] + (t - k) * (cov[k + 1] - cov[k]);
}

/* the signal whose bright fraction is c (the table's inverse, linear
 * between its samples) */
static double cov_inverse(double c)
{
	if (c <= cov[0])
		return 0;
	if (c >= cov[NCOV - 1])
		return 1;
	int lo = 0, hi = NCOV - 1;
	while (hi - lo > 1) {
		int mid = (lo + hi) / 2;
		if (cov[mid] < c)
			lo = mid;
		else
			hi = mid;
	}
	double d = cov[hi] - cov[lo];
	double t = d > 0 ? (c - cov[lo]) / d : 0;
	return (lo + t) / (NCOV - 1);
}

static double pw_at(const float *pw, int n, int u, int v)
{
	u = ((u % n) + n) % n;
	v = ((v % n) + n) % n;
	return pw[(size_t)v * n + u];
}

/* the power-weighted centroid of the 5 x 5 bins about the strongest bin
 * within 2 bins of (u, v) */
static void peak_centroid(const float *pw, int n, int u, int v, double *cu, double *cv)
{
	int bu = u, bv = v;
	double best = -1;
	for (int dv = -2; dv <= 2; dv++)
		for (int du = -2; du <= 2; du++)
			if (pw_at(pw, n, u + du, v + dv) > best) {
				best = pw_at(pw, n, u + du, v + dv);
				bu = u + du;
				bv = v + dv;
			}
	double s = 0, su = 0, sv = 0;
	for (int dv = -2; dv <= 2; dv++)
		for (int du = -2; du <= 2; du++) {
			double p = pw_at(pw, n, bu + du, bv + dv);
			s += p;
			su += p * (bu + du);
			sv += p * (bv + dv);
		}
	*cu = su / s;
	*cv = sv / s;
}

/* power within 2.5 bins of (fu, fv) less the ring's (4-6 bins) mean
 * power per bin times the disc's bins; *ring the ring's share */
static double harmonic_power(const float *pw, int n, double fu, double fv, double *ring)
{
	double disc = 0, rs = 0;
	int nd = 0, nr = 0;
	for (int dv = -7; dv <= 7; dv++)
		for (int du = -7; du <= 7; du++) {
			int u = (int)lround(fu) + du, v = (int)lround(fv) + dv;
			double r = hypot(u - fu, v - fv), p = pw_at(pw, n, u, v);
			if (r <= 2.5) {
				disc += p;
				nd++;
			} else if (r >= 4 && r <= 6) {
				rs += p;
				nr++;
			}
		}
	*ring = nr ? rs / nr * nd : 0;
	return disc - *ring;
}

/* a Gaussian of sigma sampled on the pixel lattice: its transfer at f
 * cycles/px (the aliases summed), 1 at f = 0 */
static double lattice_gauss(double s, double f)
{
	double a = 0, z = 0;
	for (int j = -3; j <= 3; j++) {
		a += exp(-2 * M_PI * M_PI * s * s * (f - j) * (f - j));
		z += exp(-2 * M_PI * M_PI * s * s * (double)j * j);
	}
	return a / z;
}

/* fold a bin coordinate into (-n/2, n/2] */
static double fold(double f, int n)
{
	f = fmod(f, n);
	if (f > n / 2.0)
		f -= n;
	if (f <= -n / 2.0)
		f += n;
	return f;
}

static int windowed_power(const float *src, int n, float *buf, float *pw)
{
	double mean = 0;
	for (size_t i = 0; i < (size_t)n * n; i++)
		mean += src[i];
	mean /= (double)n * n;
	for (int y = 0; y < n; y++) {
		double wy = 0.5 - 0.5 * cos(2 * M_PI * (y + 0.5) / n);
		for (int x = 0; x < n; x++) {
			double wx = 0.5 - 0.5 * cos(2 * M_PI * (x + 0.5) / n);
			size_t i = (size_t)y * n + x;
			buf[i] = (float)(wx * wy * (src[i] - mean));
		}
	}
	return fs_power2d(buf, (size_t)n, (size_t)n, pw);
}

/* the phase of the crop's (mean-free, windowed) component at frequency
 * (fu, fv) bins */
static double phase_at(const float *src, int n, double fu, double fv)
{
	double mean = 0, re = 0, im = 0;
	for (size_t i = 0; i < (size_t)n * n; i++)
		mean += src[i];
	mean /= (double)n * n;
	for (int y = 0; y < n; y++) {
		double wy = 0.5 - 0.5 * cos(2 * M_PI * (y + 0.5) / n);
		for (int x = 0; x < n; x++) {
			double wx = 0.5 - 0.5 * cos(2 * M_PI * (x + 0.5) / n);
			double v = wx * wy * (src[(size_t)y * n + x] - mean), t = -2 * M_PI * (fu * x + fv * y) / n;
			re += v * cos(t);
			im += v * sin(t);
		}
	}
	return atan2(im, re);
}

/* what the reading keeps between the levels it tries */
typedef struct {
	int n, S, nh;
	int direct; /* tone holds the screened signal itself, not the image's level */
	float *obs, *syn, *buf, *po, *ps, *spot, *tone;
	double hu[MAXH], hv[MAXH], so[MAXH];
	double du[MAXH], dv[MAXH]; /* the harmonics' unfolded bins */
} reading;

/* the synthetic print at ink level lo and paper level hi, its harmonics'
 * log ratios (said on stdout where say is set) and sigma's fit; the
 * residual's RMS (INFINITY where fewer than 3 harmonics are left) */
static double fit_levels(reading *g, double lo, double hi, scan_read *r, int say)
{
	int n = g->n, S = g->S;
	size_t nn = (size_t)n * n;
	for (size_t i = 0; i < nn; i++) {
		double c = (g->tone[i] - lo) / (hi - lo);
		double sv = g->direct ? g->tone[i] : cov_inverse(c < 0 ? 0 : c > 1 ? 1 : c);
		const float *sp = g->spot + i * S * S;
		int acc = 0;
		for (int k = 0; k < S * S; k++)
			acc += sv > sp[k];
		g->syn[i] = (float)((double)acc / (S * S));
	}
	if (windowed_power(g->syn, n, g->buf, g->ps))
		return NAN;
	/* the harmonics that stand out of the synthetic print's spectrum too
	 * (one the tone leaves near zero, as the cross terms at mid-grey, has
	 * a ratio the tone's errors decide) */
	double ly[MAXH], hu[MAXH], hv[MAXH];
	int nh = 0;
	for (int h = 0; h < g->nh; h++) {
		double rs, ss = harmonic_power(g->ps, n, g->hu[h] * n, g->hv[h] * n, &rs);
		if (!(ss > 10 * rs) || !(ss > 0))
			continue;
		hu[nh] = g->hu[h];
		hv[nh] = g->hv[h];
		ly[nh] = log(g->so[h] / ss);
		if (say)
			printf("    h(%+.0f,%+.0f) f %.4f %.4f |f| %.4f ln %.3f\n", g->du[h], g->dv[h], hu[nh], hv[nh],
			       hypot(hu[nh], hv[nh]), ly[nh]);
		nh++;
	}
	r->nh = nh;
	if (nh < 3)
		return INFINITY;
	/* sigma: the lattice Gaussian's transfer squared, the constant solved;
	 * on 0.01 px, then 0.001 about the best */
	double bs = INFINITY, bc = INFINITY, s1 = 0, s2 = 0;
	for (int pass = 0; pass < 2; pass++) {
		double from = pass ? fmax(0, s1 - 0.01) : 0, to = pass ? s1 + 0.01 : 2.5, step = pass ? 0.001 : 0.01;
		double from2 = pass ? fmax(0, s2 - 0.01) : 0, to2 = pass ? s2 + 0.01 : 2.5;
		for (int which = 0; which < 2; which++) {
			double a = which ? from2 : from, b = which ? to2 : to;
			for (double s = a; s <= b + 1e-9; s += step) {
				double m = 0, e = 0, d[MAXH];
				for (int h = 0; h < nh; h++) {
					d[h] = which ? ly[h] + 4 * M_PI * M_PI * s * s * (hu[h] * hu[h] + hv[h] * hv[h])
						     : ly[h] - 2 * log(lattice_gauss(s, hu[h]) * lattice_gauss(s, hv[h]));
					m += d[h] / nh;
				}
				for (int h = 0; h < nh; h++)
					e += (d[h] - m) * (d[h] - m);
				if (!which && e < bs) {
					bs = e;
					s1 = s;
				}
				if (which && e < bc) {
					bc = e;
					s2 = s;
				}
			}
		}
	}
	r->sig = s1;
	r->sig_c = s2;
	r->rms = sqrt(bs / nh);
	return r->rms;
}

/* The tone made sharper than the low-pass leaves it (--descreen): the
 * low-pass of a print is the low-pass of its coverage, not the coverage of
 * the low-passed signal, so the signal is corrected K times by what its own
 * synthetic print's low-pass misses of the image's (the image's coverage
 * between lo and hi), in coverage. g->tone becomes the signal (direct).
 * 0, or -1 out of memory. */
static int descreen(reading *g, double lo, double hi, double P, int K)
{
	int n = g->n, S = g->S;
	size_t nn = (size_t)n * n;
	fs_image *syn = fs_image_new(n, n);
	double *target = malloc(nn * sizeof *target);
	char err[128];
	if (!syn || !target) {
		fs_image_free(syn);
		free(target);
		return -1;
	}
	for (size_t i = 0; i < nn; i++) {
		double c = (g->tone[i] - lo) / (hi - lo);
		target[i] = c < 0 ? 0 : c > 1 ? 1 : c;
		g->tone[i] = (float)cov_inverse(target[i]);
	}
	g->direct = 1;
	int rc = 0;
	for (int it = 0; it < K && !rc; it++) {
		for (size_t i = 0; i < nn; i++) {
			const float *sp = g->spot + i * S * S;
			int acc = 0;
			for (int k = 0; k < S * S; k++)
				acc += g->tone[i] > sp[k];
			syn->data[i] = (float)((double)acc / (S * S));
		}
		if (fs_gaussian_blur(syn, 0.5 * P, err, sizeof err)) {
			rc = -1;
			break;
		}
		for (size_t i = 0; i < nn; i++) {
			double c = cov_at(g->tone[i]) + target[i] - syn->data[i];
			g->tone[i] = (float)cov_inverse(c < 0 ? 0 : c > 1 ? 1 : c);
		}
	}
	fs_image_free(syn);
	free(target);
	return rc;
}

/* 0 read, 1 no screen found, -1 out of memory */
static int read_scan_blur(const fs_image *img, scan_read *r)
{
	memset(r, 0, sizeof *r);
	r->sig = r->sig_c = NAN;
	double P0 = 0;
	if (fs_halftone_detect(img, &P0, NULL))
		return -1;
	int x0 = 0, y0 = 0, n = fs_halftone_crop(img->width, img->height, &x0, &y0);
	if (!(P0 > 0) || !n)
		return 1;
	int rc = -1, S = opt_sub;
	size_t nn = (size_t)n * n;
	reading g = {.n = n, .S = S};
	/* (calloc: the compiler cannot see that the loops fill them) */
	g.obs = calloc(nn, sizeof *g.obs);
	g.syn = calloc(nn, sizeof *g.syn);
	g.buf = malloc(nn * sizeof *g.buf);
	g.po = malloc(nn * sizeof *g.po);
	g.ps = malloc(nn * sizeof *g.ps);
	g.tone = malloc(nn * sizeof *g.tone);
	g.spot = malloc(nn * S * S * sizeof *g.spot);
	double *all = NULL;
	fs_image *lp = NULL;
	char err[128];
	if (!g.obs || !g.syn || !g.buf || !g.po || !g.ps || !g.tone || !g.spot)
		goto out;
	for (int y = 0; y < n; y++)
		for (int x = 0; x < n; x++)
			g.obs[(size_t)y * n + x] = fs_image_value(img, x0 + x, y0 + y);
	if (windowed_power(g.obs, n, g.buf, g.po))
		goto out;
	/* the fundamental: the strongest bin at periods 2.5-8 px (upper half
	 * plane), then its 90-degree partner, each refined to a centroid */
	double best = 0;
	int bu = 0, bv = 0;
	for (int v = 0; v <= n / 2; v++)
		for (int u = -n / 2 + 1; u < n / 2; u++) {
			double rr = hypot(u, v);
			if (rr < n / 8.0 || rr > n / 2.5)
				continue;
			if (pw_at(g.po, n, u, v) > best) {
				best = pw_at(g.po, n, u, v);
				bu = u;
				bv = v;
			}
		}
	double f1u, f1v, f2u, f2v;
	peak_centroid(g.po, n, bu, bv, &f1u, &f1v);
	peak_centroid(g.po, n, (int)lround(-f1v), (int)lround(f1u), &f2u, &f2v);
	r->P = 2.0 * n / (hypot(f1u, f1v) + hypot(f2u, f2v));
	r->ang = atan2(f1v, f1u) * 180 / M_PI;
	/* the screen's phase: the dots' centres are ink, the fundamentals'
	 * troughs (where harmonics fold onto each other their sum depends on
	 * it: a print of arbitrary phase misreads low scan blurs) */
	double ph1 = opt_no_phase ? 0 : phase_at(g.obs, n, f1u, f1v) - M_PI;
	double ph2 = opt_no_phase ? 0 : phase_at(g.obs, n, f2u, f2v) - M_PI;
	for (int y = 0; y < n; y++)
		for (int x = 0; x < n; x++)
			for (int sy = 0; sy < S; sy++)
				for (int sx = 0; sx < S; sx++) {
					double px = x + (sx + 0.5) / S - 0.5, py = y + (sy + 0.5) / S - 0.5;
					double a = 2 * M_PI * (f1u * px + f1v * py) / n + ph1,
					       b = 2 * M_PI * (f2u * px + f2v * py) / n + ph2;
					g.spot[((size_t)y * n + x) * S * S + sy * S + sx] =
					    (float)(0.5 + 0.25 * (cos(a) + cos(b)));
				}
	/* the tone: the screen low-passed away */
	lp = fs_gaussian_blurred(img, 0.5 * r->P, err, sizeof err);
	if (!lp)
		goto out;
	for (int y = 0; y < n; y++)
		for (int x = 0; x < n; x++)
			g.tone[(size_t)y * n + x] =
			    fs_image_value(oracle_tone ? oracle_tone : lp, x0 + x, y0 + y);
	g.direct = oracle_tone != NULL;
	/* the harmonics, one of each +- pair, folded into the band, that
	 * stand out of the image's spectrum */
	double f1r = hypot(f1u, f1v);
	for (int m = 0; m <= 4; m++)
		for (int k = -4; k <= 4; k++) {
			if ((m == 0 && k <= 0) || (opt_axes && m && k))
				continue;
			double fu = fold(m * f1u + k * f2u, n), fv = fold(m * f1v + k * f2v, n);
			if (hypot(fu, fv) < 0.8 * f1r)
				continue;
			int clash = 0;
			for (int m2 = -4; m2 <= 4 && !clash; m2++)
				for (int k2 = -4; k2 <= 4 && !clash; k2++) {
					if ((m2 == m && k2 == k) || (m2 == -m && k2 == -k) || (m2 == 0 && k2 == 0))
						continue;
					double gu = fold(m2 * f1u + k2 * f2u, n), gv = fold(m2 * f1v + k2 * f2v, n);
					clash = hypot(fold(gu - fu, n), fold(gv - fv, n)) < 5;
				}
			if (clash || g.nh >= MAXH)
				continue;
			double ro, so = harmonic_power(g.po, n, fu, fv, &ro);
			if (opt_verbose)
				printf("    obs h(%d,%+d) bins %.1f %.1f power %.3g ring %.3g\n", m, k, fu, fv, so, ro);
			if (!(so > 10 * ro) || !(so > 0))
				continue;
			g.hu[g.nh] = fu / n;
			g.hv[g.nh] = fv / n;
			g.du[g.nh] = m;
			g.dv[g.nh] = k;
			g.so[g.nh++] = so;
		}
	rc = 0;
	if (g.nh < 3)
		goto out;
	double lo = 0.05, hi = 0.95;
	if (!opt_oracle_levels) {
		/* the ink's and the paper's levels: from the image's extremes
		 * outwards (a blurred print never reaches them), the pair whose
		 * synthetic print's harmonics fit a Gaussian best */
		size_t np = (size_t)img->width * img->height;
		all = malloc(np * sizeof *all);
		if (!all) {
			rc = -1;
			goto out;
		}
		for (int y = 0; y < img->height; y++)
			for (int x = 0; x < img->width; x++)
				all[(size_t)y * img->width + x] = fs_image_value(img, x, y);
		double qlo = fs_select_kth(all, np, (size_t)(0.002 * (np - 1)));
		double qhi = fs_select_kth(all, np, (size_t)(0.998 * (np - 1)));
		lo = qlo;
		hi = qhi;
		double bestr = opt_level_fit ? INFINITY : -INFINITY, clo = qlo, chi = qhi;
		scan_read t;
		/* 0-0.3 beyond them on 0.03, then 0.005 about the best */
		for (int pass = 0; pass < 2 && opt_level_fit; pass++) {
			double step = pass ? 0.005 : 0.03;
			int from = pass ? -3 : 0, to = pass ? 3 : 10;
			for (int i = from; i <= to; i++)
				for (int j = from; j <= to; j++) {
					double l = (pass ? clo : qlo) - step * i, h = (pass ? chi : qhi) + step * j;
					double e = fit_levels(&g, l, h, &t, 0);
					if (e < bestr) {
						bestr = e;
						lo = l;
						hi = h;
					}
				}
			clo = lo;
			chi = hi;
		}
	}
	if (opt_descreen > 0 && !g.direct && descreen(&g, lo, hi, r->P, opt_descreen)) {
		rc = -1;
		goto out;
	}
	if (opt_verbose)
		printf("    levels %.3f %.3f phases %.3f %.3f\n", lo, hi, ph1, ph2);
	if (!isfinite(fit_levels(&g, lo, hi, r, opt_verbose)))
		r->sig = r->sig_c = NAN;
	r->lo = lo;
	r->hi = hi;
out:
	free(g.obs);
	free(g.syn);
	free(g.buf);
	free(g.po);
	free(g.ps);
	free(g.tone);
	free(g.spot);
	free(all);
	fs_image_free(lp);
	return rc;
}

typedef struct {
	double s, s2;
	int n;
} acc_t;

static void acc_add(acc_t *a, double v)
{
	if (!isfinite(v))
		return;
	a->s += v;
	a->s2 += v * v;
	a->n++;
}

static void acc_print(const char *what, const acc_t *a)
{
	double m = a->n ? a->s / a->n : NAN;
	double sd = a->n > 1 ? sqrt(fmax(0, (a->s2 - a->n * m * m) / (a->n - 1))) : NAN;
	printf("%s: n %d mean %+.4f SD %.4f\n", what, a->n, m, sd);
}

static void print_read(int k, unsigned sa, double scan, const scan_read *r, acc_t *a)
{
	printf("%-5d %-6u %-6.3f %-7.1f %-3d %-7.3f %-7.3f %-6.3f %-5.2f %+.3f\n", k, sa, r->P, r->ang, r->nh, r->sig,
	       r->sig_c, r->rms, scan, r->sig - scan);
	acc_add(a, r->sig - scan);
}

int main(int argc, char **argv)
{
	static sem_opts_args set_args;
	unsigned seeds[16] = {0, 4000, 8000, 12000, 16000, 20000, 24000, 28000};
	int nseeds = 8, scenes[64], ns = 0, interior = 0;
	double scans[16];
	int nscan = 0, control_n = 0, nfile = 0;
	const char *files[16];
	double control_v[16];
	unsigned dummy = 0;
	for (int i = 1; i < argc; i++) {
		if (sem_bench_arg(argc, argv, &i, &dummy, &set_args))
			continue;
		/* --scan and --control add to the lists given before them */
		int k = 0;
		if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
			k = nseeds = bench_parse_seeds(argv[++i], seeds, 16);
		else if (!strcmp(argv[i], "--scan") && i + 1 < argc)
			nscan += k = bench_parse_list(argv[++i], scans + nscan, 16 - nscan);
		else if (!strcmp(argv[i], "--control") && i + 1 < argc)
			control_n += k = bench_parse_list(argv[++i], control_v + control_n, 16 - control_n);
		else if (!strcmp(argv[i], "--sub") && i + 1 < argc) {
			opt_sub = atoi(argv[++i]);
			if (opt_sub < 1 || opt_sub > 16)
				opt_sub = 3;
		} else if (!strcmp(argv[i], "--file") && i + 1 < argc) {
			if (nfile < 16)
				files[nfile++] = argv[i + 1];
			i++;
		} else if (!strcmp(argv[i], "--descreen") && i + 1 < argc) {
			opt_descreen = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--oracle-tone")) {
			opt_oracle_tone = 1;
		} else if (!strcmp(argv[i], "--axes")) {
			opt_axes = 1;
		} else if (!strcmp(argv[i], "--level-fit")) {
			opt_level_fit = 1;
		} else if (!strcmp(argv[i], "--no-phase")) {
			opt_no_phase = 1;
		} else if (!strcmp(argv[i], "--oracle-levels")) {
			opt_oracle_levels = 1;
		} else if (!strcmp(argv[i], "--interior")) {
			interior = 1;
		} else if (!strcmp(argv[i], "--verbose")) {
			opt_verbose = 1;
		} else if (ns < 64) {
			scenes[ns++] = atoi(argv[i]);
		}
		if (k < 0) {
			fprintf(stderr, "%s: bad %s (at most 16 numbers, comma-separated)\n", argv[0], argv[i - 1]);
			return 2;
		}
	}
	if (!ns) {
		if (interior) {
			for (int k = 0; k < SEM_INTERIOR_SCENES; k++)
				scenes[ns++] = k;
		} else {
			for (int k = 0; k < 64; k++)
				if (k & 8)
					scenes[ns++] = k;
		}
	}
	cov_table();
	if (nfile) {
		/* a real print: no truth, the reading alone (a file not read,
		 * or a reading out of memory, fails the run: a run that printed
		 * fewer readings than asked must not look whole to a script) */
		int failed = 0;
		for (int j = 0; j < nfile; j++) {
			fs_image *img = fixture_image(files[j]);
			scan_read r;
			int rc = img ? read_scan_blur(img, &r) : -1;
			failed |= rc < 0;
			if (rc)
				printf("%s: %s\n", files[j], rc > 0 ? "no screen read" : "not read");
			else
				printf("%s: P %.3f ang %.1f nh %d sig %.3f sig_c %.3f rms %.3f levels %.3f %.3f\n",
				       files[j], r.P, r.ang, r.nh, r.sig, r.sig_c, r.rms, r.lo, r.hi);
			fs_image_free(img);
		}
		return failed;
	}
	if (control_n) {
		/* the reading's own floor: a flat signal printed through a 5-px
		 * screen at each scan blur (sem_screen: the simulator's print) */
		acc_t ca = {0};
		int failed = 0;
		for (int j = 0; j < control_n; j++)
			for (int q = 0; q < (nscan ? nscan : 1); q++) {
				double sb = nscan ? scans[q] : 0.6;
				fs_image *c = fs_image_new(512, 512);
				if (!c)
					return 1;
				for (size_t i = 0; i < 512 * 512; i++)
					c->data[i] = (float)control_v[j];
				scan_read r;
				/* (no screen found on the flat print is a reading's
				 * floor; the print or the reading failing is not) */
				int rc = sem_screen(c, 5, sb) ? -1 : read_scan_blur(c, &r);
				failed |= rc < 0;
				if (rc) {
					printf("control %.2f: no reading\n", control_v[j]);
				} else {
					printf("control v %.2f: ", control_v[j]);
					print_read(0, 0, sb, &r, &ca);
				}
				fs_image_free(c);
			}
		acc_print("control err", &ca);
		return failed;
	}
	printf("the scan blur read from the halftone screen's harmonics (sub %d, levels %s); err = read - the "
	       "scene's scan blur\n",
	       opt_sub, opt_oracle_levels ? "oracle 0.05/0.95" : "image 0.2/99.8 %");
	printf("%-5s %-6s %-6s %-7s %-3s %-7s %-7s %-6s %-5s %s\n", "scene", "seed+", "P", "ang", "nh", "sig",
	       "sig_c", "rms", "scan", "err");
	acc_t all = {0}, per_scan[16] = {{0}};
	int bad = 0;
	for (int si = 0; si < ns; si++) {
		acc_t sc = {0};
		for (int q = 0; q < nseeds; q++) {
			sem_opts o;
			sem_scene_args(interior, scenes[si], seeds[q], &set_args, &o);
			double P = o.halftone;
			if (nscan)
				o.halftone = 0; /* the surface once; the print below */
			sem_truth t;
			fs_image *img = sem_make_shared(&o, &t);
			if (!img) {
				printf("%d +%u: render failed\n", scenes[si], seeds[q]);
				bad = 1;
				continue;
			}
			sem_truth_free(&t);
			if (!nscan) {
				scan_read r;
				int rc = read_scan_blur(img, &r);
				if (rc < 0)
					bad = 1;
				if (rc)
					printf("%-5d %-6u no screen read\n", scenes[si], seeds[q]);
				else
					print_read(scenes[si], seeds[q], o.scan_blur, &r, &sc);
				acc_add(&all, r.sig - o.scan_blur);
			} else if (P > 0) {
				for (int j = 0; j < nscan; j++) {
					fs_image *pr = fs_image_clone(img);
					if (!pr || sem_screen(pr, P, scans[j])) {
						fs_image_free(pr);
						bad = 1;
						continue;
					}
					scan_read r;
					oracle_tone = opt_oracle_tone ? img : NULL;
					int rc = read_scan_blur(pr, &r);
					oracle_tone = NULL;
					fs_image_free(pr);
					if (rc < 0)
						bad = 1; /* (out of memory: as the unscanned path) */
					if (rc)
						printf("%-5d %-6u scan %.2f: no screen read\n", scenes[si], seeds[q],
						       scans[j]);
					else
						print_read(scenes[si], seeds[q], scans[j], &r, &per_scan[j]);
				}
			}
			fs_image_free(img);
		}
		if (!nscan) {
			char what[64];
			snprintf(what, sizeof what, "scene %d err", scenes[si]);
			acc_print(what, &sc);
		}
	}
	if (nscan) {
		for (int j = 0; j < nscan; j++) {
			char what[64];
			snprintf(what, sizeof what, "scan %.2f err", scans[j]);
			acc_print(what, &per_scan[j]);
		}
	} else {
		acc_print("all err", &all);
	}
	return bad;
}
