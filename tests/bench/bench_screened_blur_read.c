/*
 * bench_screened_blur_read.c - how well the image itself tells the total
 * blur of the screened level reader's image on group C (pitch 64, 5-px
 * halftone screen), and what a step-plus-band model of the tall domes'
 * edge reads at that blur (issue 13; docs/paper-figures.md, h42d, h43e).
 *
 * Why: h42d found that the screened level reader reads C's tall flat tops
 * (47, 63) 1.5-2 points short because the low-passed flank of a wide
 * bright band lies nearer the base than a thin rim line's, and that a
 * step-plus-band model separates the two only with the total blur known
 * to about 0.1 px. This asks whether the image gives that blur, and what
 * the model's correction would do with it. Per scene and seed set, on the
 * very image the rule reads the screened level on (fs_detect_measure_image's
 * measurement image, then the screen's low-pass FS_HALFTONE_LOWPASS x the
 * period), the mean radial profile of the counted domes (64 rays a dome,
 * 0.05-px bins, -8..+5 px about a radius) is fitted by
 *   level + a x Phi((R - r) / s) + b x Phi((R - W - r) / s)
 * (the ground, a step at the base R and a box band of width W inside it,
 * the whole blurred by a Gaussian s; the levels solved linearly, R and W
 * searched on a 0.01-px table, s on a 0.02-px grid). Columns, px unless %:
 *   s_free  the blur the profile about the TRUE bases picks itself
 *   R_free  the base the model reads there, from the true base
 *   s_zero  the blur at which the model reads the true base: what a blur
 *           reading would have to give (interpolated on the grid)
 *   nom     the stages' Gaussians in quadrature: the beam (its pixel box
 *           included), the screen's 3 x 3 coverage box, the scan blur, the
 *           rule's smoothing, the low-pass
 *   R_nom, W_nom  the base and band width read at nom
 *   bar     the scale bar's edge blur on the measurement image where the
 *           scene has a frame (frame_bar_sigma, bench_frame_edge_blur's): the
 *           reproduction's share only (the frame is drawn after the beam)
 *   f_meas  the formation fitted at the TRUE centres (fs_det_offset_fit),
 *           its templates' best blur on the measurement image's mean patch
 *           (formation_blur_fine, 0.01 px); f_tot: f_meas and the low-pass
 *           in quadrature; R_form the model's base at f_tot
 *   f_lp    the same templates' best blur on the low-passed image's mean
 *           patch (the total directly); R_lp the model's base there
 *   rd%     the screened level reader's mean error from the TRUE centres
 *           (fs_det_base_level_lowpassed, reach 0.6 pitch as the last step)
 *   c_lp%, c_0%, c_tot%  that reading corrected by the model fitted on
 *           the profile aligned at each dome's reading, at f_lp, s_zero
 *           (an oracle) and f_tot
 *   d_lp%, d_0%, d_tot%  the same with each dome's own profile fitted
 * (% of the mean true radius, which is % of D), and over the seed sets
 * each column's mean and SD. The true centres are an oracle: about the
 * rule's own centres a reading can only be worse (h42l: at pitch 64 the
 * rule's centres read the formation's blur within 0.07 px of the true).
 *
 * --ramp: the band a ramp rising linearly to the base instead of a box
 * (every fit above). --tone: three more columns, the screen's own
 * forward model (tone_fit below): t_beam and t_R about the true bases,
 * c_ton% the reader corrected by it. --rule (h44c): a line "RULE" a
 * scene-seed, the correction judged from the rule's OWN final centres
 * (rule_print below; the scene detected, about 2-10 s of CPU more).
 * --interior: the SCENE numbers are interior scenes (with --set
 * halftone=5: the printed interior, where --rule's gate may open too).
 * --rule also prints (h46k) "v1lp": the level reader's own step variance
 * (fs_det_base_level_blur's var, h46b's v1 on B1) on the low-passed
 * image about the rule's centres and the TRUE ones, and "v1meas" on the
 * measurement image: whether the readings' own steps tell s_zero, the
 * blur the model needs. --v1-map A,B (implies --rule) adds the blur
 * A + B sqrt(v1lp at the rule's centres) as a candidate ("v1map").
 *
 * Usage: bench_screened_blur_read [--seeds N,N,...] [--set KEY=VALUE]...
 * [--ramp] [--tone] [--rule] [--v1-map A,B] [--interior] [SCENE...] (default: the 16 screened pitch-64 corner
 * scenes; seeds 0,4000,...,28000). Asserts nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_methods.h"
#include "analysis/detect_base_fit.h"
#include "analysis/detect_offset.h"
#include "analysis/halftone.h"
#include "analysis/preprocess.h"
#include "base/sorting.h"
#include "bench_support.h"
#include "image/image.h"
#include "formation_blur.h"
#include "frame_bar.h"
#include "sem_opts_keys.h"
#include "sem_scene.h"
#include "sem_score.h"

#define LO (-8.0)
#define BIN 0.05
#define NB 261 /* -8 .. +5 px */
#define NRAYS 64
#define ESTEP 0.01
#define ELO (-12.0) /* edges tabulated from -12 to +3 px */
#define NE 1501
#define SMIN 1.00
#define SSTEP 0.02
#define NS 91 /* s 1.00 .. 2.80 */
#define MAXSEEDS 16

static sem_opts_args set_args;

/* the mean of lp along 64 rays of every counted dome, at r - R = LO + BIN b
 * where R is the dome's radius in rad (the true radius when rad is NULL;
 * a NAN radius leaves the dome out), about the centres cx, cy (the true
 * ones when NULL; slots of the truth's domes) */
static int mean_profile_at(const fs_image *lp, const sem_truth *t, const double *cx, const double *cy,
			   const double *rad, double *v)
{
	static double acc[NB];
	static long cnt[NB];
	memset(acc, 0, sizeof acc);
	memset(cnt, 0, sizeof cnt);
	int nd = 0;
	for (size_t j = 0; j < t->n; j++) {
		double R = rad ? rad[j] : 0.5 * t->d[j];
		if (!sem_counted(t, t->x[j], t->y[j]) || !isfinite(R))
			continue;
		nd++;
		for (int q = 0; q < NRAYS; q++) {
			double a = 2 * M_PI * q / NRAYS;
			for (int b = 0; b < NB; b++) {
				double rr = R + LO + BIN * b, x = (cx ? cx[j] : t->x[j]) + rr * cos(a),
				       y = (cy ? cy[j] : t->y[j]) + rr * sin(a);
				if (x < 0 || y < 0 || x > lp->width - 1 || y > lp->height - 1)
					continue;
				acc[b] += fs_image_sample_clamped(lp, x, y);
				cnt[b]++;
			}
		}
	}
	for (int b = 0; b < NB; b++)
		v[b] = cnt[b] ? acc[b] / (double)cnt[b] : NAN;
	return nd;
}

static int mean_profile(const fs_image *lp, const sem_truth *t, const double *rad, double *v)
{
	return mean_profile_at(lp, t, NULL, NULL, rad, v);
}

typedef struct fit_tab {
	double S[NE][NB]; /* Phi((e - r) / s): 1 inside the edge e */
	double P[NE][NB]; /* (r - e)+ blurred: the ramp's primitive */
	double s1[NE], s2[NE], sv[NE];
} fit_tab;

/* --ramp: the band a ramp rising linearly to the base instead of a box
 * (the secant law's band brightens towards the rim: a box fitted to it
 * wants a sharper edge than the image's, h43e) */
static int band_ramp;

/* the edges at blur s (kept while s is the table's) and their sums with v */
static void tabulate(fit_tab *T, const double *v, double s)
{
	static double made = -1;
	for (int e = 0; e < NE && s != made; e++) {
		double pe = ELO + ESTEP * e, a = 0, b = 0;
		for (int k = 0; k < NB; k++) {
			double r = LO + BIN * k, q = 0.5 * erfc((r - pe) / (M_SQRT2 * s));
			T->S[e][k] = q;
			T->P[e][k] = (r - pe) * (1 - q) + s * exp(-0.5 * (r - pe) * (r - pe) / (s * s)) / sqrt(2 * M_PI);
			a += q;
			b += q * q;
		}
		T->s1[e] = a;
		T->s2[e] = b;
	}
	made = s;
	for (int e = 0; e < NE; e++) {
		double c = 0;
		for (int k = 0; k < NB; k++)
			c += T->S[e][k] * v[k];
		T->sv[e] = c;
	}
}

static double det3(double m[3][3])
{
	return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
	       m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

/* the residual sum of squares of level + a S[e1] + b S[e2] against the
 * profile whose sum is sv0 and sum of squares vv, the levels solved by
 * least squares (3 x 3 normal equations by Cramer's rule) */
static double rss(const fit_tab *T, const double *v, double sv0, double vv, int e1, int e2)
{
	double x12 = 0, b1 = 0, b2 = 0, bv = 0;
	if (band_ramp) {
		/* the second column the ramp from e2 up to e1, then 0 */
		double W = ESTEP * (e1 - e2), x22 = 0;
		for (int k = 0; k < NB; k++) {
			double f = (T->P[e2][k] - T->P[e1][k]) / W - (1 - T->S[e1][k]);
			x12 += T->S[e1][k] * f;
			b1 += f;
			x22 += f * f;
			bv += f * v[k];
		}
		b2 = x22;
	} else {
		for (int k = 0; k < NB; k++)
			x12 += T->S[e1][k] * T->S[e2][k];
		b1 = T->s1[e2];
		b2 = T->s2[e2];
		bv = T->sv[e2];
	}
	double m[3][3] = {{NB, T->s1[e1], b1}, {T->s1[e1], T->s2[e1], x12}, {b1, x12, b2}};
	double y[3] = {sv0, T->sv[e1], bv}, det = det3(m), cy = 0;
	if (!(fabs(det) > 1e-12))
		return INFINITY;
	for (int i = 0; i < 3; i++) {
		double a[3][3];
		memcpy(a, m, sizeof a);
		for (int r = 0; r < 3; r++)
			a[r][i] = y[r];
		cy += det3(a) / det * y[i];
	}
	/* RSS = v'v - c'y for the least-squares c */
	return vv - cy;
}

/* One grid of the (R, W) search: base index e1 from e_lo to e_hi in
 * steps of de, band width w (table steps) from w_lo to w_hi in steps of
 * dw, the band's inner edge inside the table; the least RSS below *best
 * moves *best, *b1 and *bw (so the fine grid starts from the coarse
 * one's best and keeps it where nothing beats it). */
static void search_grid(const fit_tab *T, const double *v, double sv0, double vv, int e_lo, int e_hi, int de, int w_lo,
			int w_hi, int dw, double *best, int *b1, int *bw)
{
	for (int e1 = e_lo; e1 <= e_hi; e1 += de)
		for (int w = w_lo; w <= w_hi; w += dw) {
			int e2 = e1 - w;
			if (w < 2 || e2 < 0 || e1 >= NE)
				continue;
			double q = rss(T, v, sv0, vv, e1, e2);
			if (q < *best) {
				*best = q;
				*b1 = e1;
				*bw = w;
			}
		}
}

/* the best R (px from the true base) and W at blur s; returns the RSS */
static double fit_at(fit_tab *T, const double *v, double s, double *R, double *W)
{
	tabulate(T, v, s);
	double sv0 = 0, vv = 0;
	for (int k = 0; k < NB; k++) {
		sv0 += v[k];
		vv += v[k] * v[k];
	}
	int e0 = (int)lround(-ELO / ESTEP); /* the true base */
	double best = INFINITY;
	int b1 = e0, bw = 100;
	/* coarse: R within +-2.5 px in 0.1, W 0.2..8 px in 0.2 */
	search_grid(T, v, sv0, vv, e0 - 250, e0 + 250, 10, 20, 800, 20, &best, &b1, &bw);
	/* fine: 0.01 px about the coarse point */
	int c1 = b1, cw = bw;
	search_grid(T, v, sv0, vv, c1 - 10, c1 + 10, 1, cw - 20, cw + 20, 1, &best, &b1, &bw);
	*R = ESTEP * (b1 - e0);
	*W = ESTEP * bw;
	return best;
}

typedef struct reading {
	double s_free, R_free, s_zero, R_nom, W_nom, bar, f_meas, f_tot, R_form, f_lp, R_lp;
	double rd, c_lp, c_zero, rbar; /* the reader's mean error, corrected at f_lp and at s_zero; mean R */
	double d_lp, d_zero;           /* the mean error of per-dome fits at f_lp and at s_zero */
	double c_tot, d_tot;           /* the same two at f_tot */
	double t_beam, t_R, c_tone;    /* --tone: the beam and base about the true bases; the corrected reading */
} reading;

/* The formation fitted at the TRUE centres inside the scale region, and
 * the blur its templates read best on the measurement image's mean patch
 * (then the low-pass added in quadrature: *tot) and on the low-passed
 * image's (*lp, the total directly). NAN where the fit fails. */
static void formation_reading(const fs_image *meas, const fs_image *lpi, const sem_truth *t, double lps, double *bm,
			      double *tot, double *blp)
{
	*bm = *tot = *blp = NAN;
	double *xs = malloc(t->n * sizeof *xs), *ys = malloc(t->n * sizeof *ys), *rs = malloc(t->n * sizeof *rs);
	size_t n = 0;
	double dsum = 0, mis;
	if (!xs || !ys || !rs)
		goto out;
	for (size_t j = 0; j < t->n; j++) {
		if (!t->inside[j])
			continue;
		xs[n] = t->x[j];
		ys[n] = t->y[j];
		rs[n++] = 0.5 * t->d[j];
		dsum += t->d[j];
	}
	fs_det_offset ot;
	if (!n || fs_det_offset_fit(meas, xs, ys, rs, n, t->pitch, NULL, &ot) || !ot.fitted)
		goto out;
	double fill = dsum / n / t->pitch;
	*bm = formation_blur_fine(meas, &ot.fit, xs, ys, n, fill, 0.40, 2.80, &mis);
	*tot = sqrt(*bm * *bm + lps * lps);
	*blp = formation_blur_fine(lpi, &ot.fit, xs, ys, n, fill, 1.00, 3.00, &mis);
out:
	free(xs);
	free(ys);
	free(rs);
}

static fit_tab tab;
static int tone_on;

/* --tone: the screened edge's own forward model. The screen is not a
 * blur: averaged over its phases it maps the signal v to 0.05 + 0.9 P(spot
 * < v), spot = 0.5 + 0.25 (cos u + cos w) (sem_sim.c halftone_screen),
 * between the beam's Gaussian and the reproduction's. So the profile is
 * fitted by post (x) T(beam (x) (g + a H(R - r) + c box(R - W, R))), the
 * post-screen blur known (the coverage box, the scan blur as the frame's
 * bar reads it, the smoothing and the low-pass) and the beam free: what
 * s_free lacks is a blur read on the model that reads the base. The
 * screen's threshold distribution is the simulator's own here (an
 * oracle a real print does not give). */
#define TONE_N 2001
static double tone_cdf[TONE_N];

static void tone_make(void)
{
	enum { M = 1024 };
	static long h[TONE_N];
	for (int i = 0; i < M; i++)
		for (int j = 0; j < M; j++) {
			double sp = 0.5 + 0.25 * (cos(2 * M_PI * (i + 0.5) / M) + cos(2 * M_PI * (j + 0.5) / M));
			int b = (int)lround(sp * (TONE_N - 1));
			h[b < 0 ? 0 : b >= TONE_N ? TONE_N - 1 : b]++;
		}
	long c = 0;
	for (int b = 0; b < TONE_N; b++) {
		c += h[b];
		tone_cdf[b] = (double)c / ((double)M * M);
	}
}

static double tone(double v)
{
	double x = v * (TONE_N - 1);
	if (!(x > 0))
		return 0.05 + 0.9 * tone_cdf[0];
	if (x >= TONE_N - 1)
		return 0.95;
	int i = (int)x;
	double f = x - i;
	return 0.05 + 0.9 * (tone_cdf[i] * (1 - f) + tone_cdf[i + 1] * f);
}

#define XPAD 160 /* bins past either end the post-screen blur reaches */
#define NX (NB + 2 * XPAD)

typedef struct tone_ctx {
	const double *v;
	double kern[2 * XPAD + 1];
} tone_ctx;

/* the residual sum of squares of parameters q: g, a, c, R, W, beam */
static double tone_rss(const tone_ctx *t, const double *q)
{
	double g = q[0], a = q[1], c = q[2], R = q[3], W = q[4], b = q[5];
	if (!(W > 0.05) || !(b > 0.05) || W > 10 || b > 3)
		return INFINITY;
	double pre[NX], e = 0;
	for (int i = 0; i < NX; i++) {
		double r = LO + BIN * (i - XPAD);
		double s1 = 0.5 * erfc((r - R) / (M_SQRT2 * b)), s2 = 0.5 * erfc((r - (R - W)) / (M_SQRT2 * b));
		pre[i] = tone(g + a * s1 + c * (s1 - s2));
	}
	for (int k = 0; k < NB; k++) {
		double m = 0;
		for (int d = -XPAD; d <= XPAD; d++)
			m += t->kern[d + XPAD] * pre[k + XPAD + d];
		e += (m - t->v[k]) * (m - t->v[k]);
	}
	return e;
}

/* Nelder-Mead over the six parameters from q (in place); the RSS */
static double tone_nm(const tone_ctx *t, double *q)
{
	enum { D = 6 };
	double x[D + 1][D], f[D + 1];
	static const double step[D] = {0.05, 0.05, 0.05, 0.5, 1.0, 0.3};
	for (int i = 0; i <= D; i++) {
		memcpy(x[i], q, sizeof x[i]);
		if (i)
			x[i][i - 1] += step[i - 1];
		f[i] = tone_rss(t, x[i]);
	}
	for (int it = 0; it < 3000; it++) {
		int hi = 0, lo = 0, nh = 0;
		for (int i = 1; i <= D; i++) {
			if (f[i] > f[hi])
				hi = i;
			if (f[i] < f[lo])
				lo = i;
		}
		nh = lo;
		for (int i = 0; i <= D; i++)
			if (i != hi && f[i] > f[nh])
				nh = i;
		if (f[hi] - f[lo] < 1e-12 * (1 + f[lo]))
			break;
		double cen[D] = {0}, xr[D], xe[D];
		for (int i = 0; i <= D; i++)
			for (int j = 0; j < D && i != hi; j++)
				cen[j] += x[i][j] / D;
		for (int j = 0; j < D; j++)
			xr[j] = cen[j] + (cen[j] - x[hi][j]);
		double fr = tone_rss(t, xr);
		if (fr < f[lo]) {
			for (int j = 0; j < D; j++)
				xe[j] = cen[j] + 2 * (cen[j] - x[hi][j]);
			double fe = tone_rss(t, xe);
			memcpy(x[hi], fe < fr ? xe : xr, sizeof x[hi]);
			f[hi] = fe < fr ? fe : fr;
		} else if (fr < f[nh]) {
			memcpy(x[hi], xr, sizeof x[hi]);
			f[hi] = fr;
		} else {
			for (int j = 0; j < D; j++)
				xe[j] = cen[j] + 0.5 * (x[hi][j] - cen[j]);
			double fc = tone_rss(t, xe);
			if (fc < f[hi]) {
				memcpy(x[hi], xe, sizeof x[hi]);
				f[hi] = fc;
			} else {
				for (int i = 0; i <= D; i++) {
					if (i == lo)
						continue;
					for (int j = 0; j < D; j++)
						x[i][j] = x[lo][j] + 0.5 * (x[i][j] - x[lo][j]);
					f[i] = tone_rss(t, x[i]);
				}
			}
		}
	}
	int lo = 0;
	for (int i = 1; i <= D; i++)
		if (f[i] < f[lo])
			lo = i;
	memcpy(q, x[lo], sizeof x[lo]);
	return f[lo];
}

/* the tone model fitted to v with the post-screen blur post: the beam
 * into *beam, the base (px from the profile's origin) into *R; restarts
 * from three beams, the least RSS kept */
static void tone_fit(const double *v, double post, double *beam, double *R)
{
	static int made;
	if (!made) {
		tone_make();
		made = 1;
	}
	tone_ctx t = {.v = v};
	double z = 0;
	for (int d = -XPAD; d <= XPAD; d++)
		z += t.kern[d + XPAD] = exp(-0.5 * (BIN * d) * (BIN * d) / (post * post));
	for (int d = -XPAD; d <= XPAD; d++)
		t.kern[d + XPAD] /= z;
	/* the starts' levels: the screen's inverse of the ground (+4 px), the
	 * top (-8 px) and the band's brightest */
	double vo = v[NB - 20], vi = v[0], vm = v[0];
	for (int b = 0; b < NB; b++)
		if (v[b] > vm)
			vm = v[b];
	double go = 0.5, gi = 0.5, gm = 0.5;
	for (int b = 0; b < TONE_N; b++) {
		double x = (double)b / (TONE_N - 1), tv = tone(x);
		if (tv <= vo)
			go = x;
		if (tv <= vi)
			gi = x;
		if (tv <= vm)
			gm = x;
	}
	double best = INFINITY;
	*beam = *R = NAN;
	static const double b0[3] = {0.5, 1.0, 1.5};
	for (int i = 0; i < 3; i++) {
		double q[6] = {go, gi - go, gm - gi, 0, 3, b0[i]};
		double e = tone_nm(&t, q);
		e = tone_nm(&t, q); /* a restart at the first's end */
		if (e < best) {
			best = e;
			*beam = q[5];
			*R = q[3];
		}
	}
}

/* Every counted dome's own profile (its 64 rays, aligned at its reading
 * rr[j]) fitted at blur s: the mean over the domes of the base the model
 * puts there less the true radius (px). Each dome's own fit is free of
 * the broadening that the readings' scatter gives the mean profile. */
static double per_dome(const fs_image *lp, const sem_truth *t, const double *rr, double s)
{
	if (!isfinite(s))
		return NAN;
	double *one = malloc(t->n * sizeof *one), sum = 0;
	int n = 0;
	if (!one)
		return NAN;
	for (size_t j = 0; j < t->n; j++)
		one[j] = NAN;
	for (size_t j = 0; j < t->n; j++) {
		if (!isfinite(rr[j]))
			continue;
		double v[NB], R, W;
		one[j] = rr[j];
		mean_profile(lp, t, one, v);
		one[j] = NAN;
		int ok = 1;
		for (int b = 0; b < NB; b++)
			ok &= isfinite(v[b]);
		if (!ok)
			continue;
		fit_at(&tab, v, s, &R, &W);
		sum += rr[j] + R - 0.5 * t->d[j];
		n++;
	}
	free(one);
	return n ? sum / n : NAN;
}

/* --rule (h44c): h42d's step-plus-band correction of the screened level
 * judged from the rule's OWN final centres. The scene is detected
 * (fs_detect_domes); at every matched counted dome's final centre the
 * screened reader reads the base on the low-passed image (as from the
 * true centres above), the mean profile about those centres aligned at
 * those readings is fitted by the model at a given blur, and the base it
 * puts there over the mean reading is the level's ratio. The level is
 * what every sized dome's radius follows (detect_base_fit.h), so the
 * rule's radii times that ratio, scored again, are the corrected result
 * (D, S % of the truth). The blurs: s_zero read about the TRUE bases (the
 * oracle: the blur the model needs) and it moved by RC_DS px, the stages'
 * nominal sum (the simulator's blur as it was made), f_tot (the
 * formation's reading at the true centres, above) and frule (the same
 * reading from the rule's own centres and the formation fitted there:
 * what a rule could read). Where it applies is
 * decided from the image: the rule's median D over the pitch at least
 * RC_FILL (h43e: the fill-0.25 pitch-64 scenes must stay out), and the
 * screened level's own gate (fs_det_base_level_screened: the median radius
 * and the gap both at least FS_DET_BASE_RESOLVED low-pass sigmas), which
 * is shut at pitch 16. The same again ("u" columns) about each dome
 * recentred on its own base (recentre below), an image-only step. Prints
 * a line "RULE" a scene-seed, with the mean
 * reading over the rule's mean radius on the same domes (read/radii: 1
 * where the rule's level is these readings; the rule reads its screened
 * level from the first fit's centres, h33e, so it need not be). */
static int rule_on;
#define RC_FILL 0.5
static const double RC_DS[] = {0, -0.05, -0.03, 0.03, 0.05};
#define RC_NDS ((int)(sizeof RC_DS / sizeof *RC_DS))

/* The centre of the circle through one dome's base as the low-passed
 * image shows it, from the rule's centre (x, y) and its reading r: on
 * each of NRAYS rays the steepest fall of lp within 3 px of r, then an
 * algebraic circle fit (Kasa) of those points; 0, or -1 where the fit is
 * singular. Image-only: what a rule could do to take the rule's centre
 * scatter out of the profile the correction is fitted on (the scatter
 * broadens the mean edge, which the model at a given blur reads as a
 * base further in). */
static int recentre(const fs_image *lp, double x, double y, double r, double *ux, double *uy)
{
	double m[3][3] = {{0}}, y3[3] = {0};
	for (int q = 0; q < NRAYS; q++) {
		double a = 2 * M_PI * q / NRAYS, ca = cos(a), sa = sin(a), best = 0, eb = NAN;
		for (double e = r - 3; e <= r + 3; e += 0.1) {
			double x0 = x + (e - 0.1) * ca, y0 = y + (e - 0.1) * sa, x1 = x + (e + 0.1) * ca, y1 = y + (e + 0.1) * sa;
			if (x0 < 0 || y0 < 0 || x1 < 0 || y1 < 0 || x0 > lp->width - 1 || x1 > lp->width - 1 ||
			    y0 > lp->height - 1 || y1 > lp->height - 1)
				continue;
			double d = fs_image_sample_clamped(lp, x1, y1) - fs_image_sample_clamped(lp, x0, y0);
			if (d < best) {
				best = d;
				eb = e;
			}
		}
		if (!isfinite(eb))
			continue;
		double px = x + eb * ca, py = y + eb * sa, row[3] = {px, py, 1}, z = -(px * px + py * py);
		for (int i = 0; i < 3; i++) {
			y3[i] += row[i] * z;
			for (int j = 0; j < 3; j++)
				m[i][j] += row[i] * row[j];
		}
	}
	double det = det3(m);
	if (!(fabs(det) > 1e-9))
		return -1;
	double sol[2];
	for (int i = 0; i < 2; i++) {
		double a[3][3];
		memcpy(a, m, sizeof a);
		for (int rw = 0; rw < 3; rw++)
			a[rw][i] = y3[rw];
		sol[i] = det3(a) / det;
	}
	*ux = -0.5 * sol[0];
	*uy = -0.5 * sol[1];
	return hypot(*ux - x, *uy - y) < r ? 0 : -1;
}

/* --v1-map A,B (h46k): the blur A + B sqrt(v1) as a further candidate */
static int v1_map_on;
static double v1_map[2];

/* The mean of the level reader's step variance (fs_det_base_level_blur's
 * var, h46b's v1) over the counted domes at (xs, ys) (indexed as the
 * truth; with rr, only where rr[j] read), reach mr, on img. */
static double v1_mean(const fs_image *img, const double *xs, const double *ys, const double *rr, const sem_truth *t,
		      double mr)
{
	double s = 0;
	size_t n = 0;
	for (size_t j = 0; j < t->n; j++) {
		if (rr ? !isfinite(rr[j]) : !sem_counted(t, t->x[j], t->y[j]))
			continue;
		int e = 1;
		double v = NAN, r = fs_det_base_level_blur(img, xs[j], ys[j], mr, 1, &e, &v, NULL);
		if (!isfinite(r) || e || !(v > 0))
			continue;
		s += v;
		n++;
	}
	return n ? s / n : NAN;
}

static void rule_print(int k, unsigned seed_add, const sem_scene *sim, const sem_opts *o, const fs_image *meas,
		       const fs_image *lp, double lps, const reading *tr, double nominal)
{
	const sem_truth *t = &sim->tr;
	fs_detect_result res;
	char err[256];
	if (fs_detect_domes(sim->img, &sim->p, 0, &res, err, sizeof err)) {
		printf("RULE %d +%u: %s\n", k, seed_add, err);
		return;
	}
	const fs_tubercle_list *l = &res.tubercles;
	int *mdet = malloc((l->n + 1) * sizeof *mdet), *mtru = malloc((t->n + 1) * sizeof *mtru);
	double *cx = malloc(t->n * sizeof *cx), *cy = malloc(t->n * sizeof *cy), *rr = malloc(t->n * sizeof *rr),
	       *med = malloc((t->n + 1) * sizeof *med), *ru = malloc(t->n * sizeof *ru),
	       *ux_ = malloc(t->n * sizeof *ux_), *uy_ = malloc(t->n * sizeof *uy_);
	if (!mdet || !mtru || !cx || !cy || !rr || !med || !ru || !ux_ || !uy_ || sem_match_tubercles(t, l, mdet, mtru))
		goto out;
	double rsum = 0, d0, s0, pr = 0, pq = 0;
	int ne = 0, nm = 0;
	for (size_t j = 0; j < t->n; j++) {
		rr[j] = NAN;
		if (mtru[j] < 0 || !sem_counted(t, t->x[j], t->y[j]))
			continue;
		const fs_tubercle *q = &l->items[mtru[j]];
		if (isfinite(q->radius_px))
			med[nm++] = q->radius_px;
		cx[j] = q->centroid_x;
		cy[j] = q->centroid_y;
		int edge;
		rr[j] = fs_det_base_level_lowpassed(lp, cx[j], cy[j], 0.6 * t->pitch, 1.0, &edge);
		if (isfinite(rr[j])) {
			rsum += rr[j];
			ne++;
			if (isfinite(q->radius_px)) {
				pr += rr[j];
				pq += q->radius_px;
			}
		}
	}
	if (!ne || !nm || sem_score_scaled_ds(t, l, o->halftone, 1, &d0, &s0)) {
		printf("RULE %d +%u: not read\n", k, seed_add);
		goto out;
	}
	double r0 = fs_median_upper(med, nm), gap = t->pitch - 2 * r0, fill = 2 * r0 / t->pitch;
	int on = o->halftone > 0 && fill >= RC_FILL && r0 >= FS_DET_BASE_RESOLVED * lps &&
		 gap >= FS_DET_BASE_RESOLVED * lps;
	double vr[NB], rbar = rsum / ne;
	mean_profile_at(lp, t, cx, cy, rr, vr);
	int ok = 1;
	for (int b = 0; b < NB; b++)
		ok &= isfinite(vr[b]);
	/* the same about the domes recentred on their own base (recentre):
	 * read again there, the profile aligned at those readings; the ratio
	 * is then (their mean + the model's base) over the mean reading at the
	 * rule's centres, on the domes read at both */
	double vu[NB], usum = 0, usum0 = 0;
	int nu = 0, oku = 1;
	for (size_t j = 0; j < t->n; j++) {
		double ux, uy;
		int edge;
		ru[j] = NAN;
		if (!isfinite(rr[j]) || recentre(lp, cx[j], cy[j], rr[j], &ux, &uy))
			continue;
		ux_[j] = ux;
		uy_[j] = uy;
		ru[j] = fs_det_base_level_lowpassed(lp, ux, uy, 0.6 * t->pitch, 1.0, &edge);
		if (isfinite(ru[j])) {
			usum += ru[j];
			usum0 += rr[j];
			nu++;
		}
	}
	/* the centres' errors from the truth (a diagnostic, px): the common
	 * offset and the scatter about it, at the rule's and the recentred */
	double ex[2] = {0}, ey[2] = {0}, e2[2] = {0};
	for (size_t j = 0; j < t->n; j++)
		if (isfinite(ru[j]))
			for (int u = 0; u < 2; u++) {
				double dx = (u ? ux_[j] : cx[j]) - t->x[j], dy = (u ? uy_[j] : cy[j]) - t->y[j];
				ex[u] += dx;
				ey[u] += dy;
				e2[u] += dx * dx + dy * dy;
			}
	if (nu) {
		mean_profile_at(lp, t, ux_, uy_, ru, vu);
		for (int b = 0; b < NB; b++)
			oku &= isfinite(vu[b]);
	} else
		oku = 0;
	printf("RULE %d +%u gate %d fill %.3f | rule D %+.2f S %+.2f | read/radii %.4f | centres rule (%+.2f, %+.2f) rms "
	       "%.2f recentred (%+.2f, %+.2f) rms %.2f | s_zero %.3f",
	       k, seed_add, on, fill, d0, s0, pr / pq, nu ? ex[0] / nu : NAN, nu ? ey[0] / nu : NAN,
	       nu ? sqrt(e2[0] / nu) : NAN, nu ? ex[1] / nu : NAN, nu ? ey[1] / nu : NAN, nu ? sqrt(e2[1] / nu) : NAN,
	       tr->s_zero);
	/* the blur the rule could read itself: the formation fitted at its
	 * own matched centres and radii, its templates' blur searched to
	 * 0.01 px on the measurement image's mean patch about them, the
	 * low-pass added in quadrature (f_tot's reading from the rule's
	 * centres) */
	double frule = NAN;
	{
		double *xs = malloc(t->n * sizeof *xs), *ys = malloc(t->n * sizeof *ys), *rs = malloc(t->n * sizeof *rs),
		       mis;
		size_t n = 0;
		for (size_t j = 0; xs && ys && rs && j < t->n; j++) {
			if (mtru[j] < 0 || !t->inside[j] || !isfinite(l->items[mtru[j]].radius_px))
				continue;
			xs[n] = l->items[mtru[j]].centroid_x;
			ys[n] = l->items[mtru[j]].centroid_y;
			rs[n++] = l->items[mtru[j]].radius_px;
		}
		fs_det_offset orl;
		if (n && !fs_det_offset_fit(meas, xs, ys, rs, n, t->pitch, NULL, &orl) && orl.fitted) {
			double b = formation_blur_fine(meas, &orl.fit, xs, ys, n, fill, 0.40, 2.80, &mis);
			frule = sqrt(b * b + lps * lps);
		}
		free(xs);
		free(ys);
		free(rs);
	}
	/* h46k: the blur from the level readings' own step variance (as
	 * h46b's v1, fs_det_base_level_blur's var) on the low-passed image
	 * about the rule's centres and the TRUE ones, and on the measurement
	 * image about the rule's; --v1-map A,B makes A + B sqrt(v1) (rule's
	 * centres, low-passed) a blur candidate */
	double v1r = v1_mean(lp, cx, cy, rr, t, 0.6 * t->pitch), v1t = v1_mean(lp, t->x, t->y, NULL, t, 0.6 * t->pitch),
	       v1m = v1_mean(meas, cx, cy, rr, t, 0.6 * t->pitch);
	printf(" | v1lp rule %.4f true %.4f v1meas %.4f", v1r, v1t, v1m);
	double bl[RC_NDS + 4];
	for (int q = 0; q < RC_NDS; q++)
		bl[q] = tr->s_zero + RC_DS[q];
	bl[RC_NDS] = nominal;
	bl[RC_NDS + 1] = tr->f_tot;
	bl[RC_NDS + 2] = frule;
	bl[RC_NDS + 3] = v1_map_on ? v1_map[0] + v1_map[1] * sqrt(v1r) : NAN;
	for (int u = 0; u < 2; u++)
		for (int q = 0; q < RC_NDS + (v1_map_on ? 4 : 3); q++) {
			double cR = NAN, W, f = 1, d, sp;
			if (!u && ok && isfinite(bl[q])) {
				fit_at(&tab, vr, bl[q], &cR, &W);
				if (on)
					f = (rbar + cR) / rbar;
			} else if (u && oku && isfinite(bl[q])) {
				fit_at(&tab, vu, bl[q], &cR, &W);
				if (on)
					f = (usum / nu + cR) / (usum0 / nu);
			}
			if (sem_score_scaled_ds(t, l, o->halftone, f, &d, &sp))
				d = sp = NAN;
			printf(" | %s%s%+.2f %.3f f %.4f %+.2f/%+.2f", u ? "u" : "",
			       q < RC_NDS ? "s0" : q == RC_NDS ? "nom" : q == RC_NDS + 1 ? "ftot" : q == RC_NDS + 2 ? "frule" : "v1map",
			       q < RC_NDS ? RC_DS[q] : 0, bl[q], f, d, sp);
		}
	printf("\n");
out:
	free(mdet);
	free(mtru);
	free(cx);
	free(cy);
	free(rr);
	free(med);
	free(ru);
	free(ux_);
	free(uy_);
	fs_detect_result_free(&res);
}

/* --interior: SCENE numbers are the interior scenes (sem_interior_scene;
 * with --set halftone=5 the printed interior table's, h43m) */
static int interior;

static int run(int k, unsigned seed_add, reading *out, double *nominal)
{
	sem_opts o;
	sem_scene_args(interior, k, seed_add, &set_args, &o);
	sem_scene sim;
	if (sem_scene_render(&sim, &o)) {
		fprintf(stderr, "%d: %s\n", k, sim.err);
		return -1;
	}
	char err[256];
	double msig = sim.tr.pitch >= 40 ? 1.0 : 0.5, period = o.halftone > 0 ? o.halftone : 5;
	double lps = FS_HALFTONE_LOWPASS * period;
	fs_image *meas = NULL, *lp = NULL;
	if (fs_detect_measure_image(sim.img, &sim.p, msig, &meas, err, sizeof err) ||
	    !(lp = fs_gaussian_blurred(meas, lps, err, sizeof err))) {
		fprintf(stderr, "%d: %s\n", k, err);
		fs_image_free(meas);
		sem_scene_close(&sim);
		return -1;
	}
	/* the quadrature sum of every Gaussian-like stage: the beam (its
	 * pixel box included), the screen's 3 x 3 coverage box (a pixel's
	 * box, 1/12), the scan blur, the rule's smoothing and the low-pass */
	int scanned = o.halftone > 0 || o.resample != 1 || o.jpeg_quality > 0;
	*nominal = sqrt(o.beam_blur * o.beam_blur + (o.halftone > 0 ? 1.0 / 12 : 0) +
			(scanned ? o.scan_blur * o.scan_blur : 0) + msig * msig + lps * lps);
	double v[NB];
	mean_profile(lp, &sim.tr, NULL, v);
	double Rs[NS], Q[NS];
	int ib = 0;
	for (int i = 0; i < NS; i++) {
		double W;
		Q[i] = fit_at(&tab, v, SMIN + SSTEP * i, &Rs[i], &W);
		if (Q[i] < Q[ib])
			ib = i;
	}
	out->s_free = SMIN + SSTEP * ib;
	if (ib > 0 && ib < NS - 1) {
		double d = Q[ib - 1] - 2 * Q[ib] + Q[ib + 1];
		if (d > 0)
			out->s_free += SSTEP * 0.5 * (Q[ib - 1] - Q[ib + 1]) / d;
	}
	out->R_free = Rs[ib];
	/* the blur at which the model's R crosses the true base (R falls as
	 * s grows: a wider blur puts the step's half height further in) */
	out->s_zero = NAN;
	for (int i = 0; i + 1 < NS; i++)
		if ((Rs[i] >= 0) != (Rs[i + 1] >= 0)) {
			out->s_zero = SMIN + SSTEP * (i + Rs[i] / (Rs[i] - Rs[i + 1]));
			break;
		}
	fit_at(&tab, v, *nominal, &out->R_nom, &out->W_nom);
	double W;
	formation_reading(meas, lp, &sim.tr, lps, &out->f_meas, &out->f_tot, &out->f_lp);
	out->R_form = out->R_lp = NAN;
	if (isfinite(out->f_tot))
		fit_at(&tab, v, out->f_tot, &out->R_form, &W);
	if (isfinite(out->f_lp))
		fit_at(&tab, v, out->f_lp, &out->R_lp, &W);
	/* (NAN without a frame) */
	out->bar = frame_bar_sigma(meas, &o, NULL);
	/* the post-screen blur: the coverage box, the reproduction as the
	 * frame reads it (its nominal without a frame), the low-pass */
	double repro = isfinite(out->bar) ? out->bar : sqrt((scanned ? o.scan_blur * o.scan_blur : 0) + msig * msig);
	double post = sqrt((o.halftone > 0 ? 1.0 / 12 : 0) + repro * repro + lps * lps);
	out->t_beam = out->t_R = out->c_tone = NAN;
	if (tone_on)
		tone_fit(v, post, &out->t_beam, &out->t_R);
	/* the screened level reader's own readings from the TRUE centres (its
	 * rays' reach 0.6 pitch, as the rule's last step's, detect.c), and the model fitted on the profile aligned
	 * at those readings: the base it puts relative to them is the
	 * correction a rule would add to every reading */
	double *rr = malloc(sim.tr.n * sizeof *rr), esum = 0, rsum = 0;
	int ne = 0;
	out->rd = out->c_lp = out->c_zero = out->rbar = out->d_lp = out->d_zero = out->c_tot = out->d_tot = NAN;
	if (rr) {
		for (size_t j = 0; j < sim.tr.n; j++) {
			int edge;
			rr[j] = NAN;
			if (!sem_counted(&sim.tr, sim.tr.x[j], sim.tr.y[j]))
				continue;
			double R = 0.5 * sim.tr.d[j];
			rr[j] = fs_det_base_level_lowpassed(lp, sim.tr.x[j], sim.tr.y[j], 0.6 * sim.tr.pitch, 1.0, &edge);
			if (isfinite(rr[j])) {
				esum += rr[j] - R;
				rsum += R;
				ne++;
			}
		}
		if (ne) {
			double vr[NB], cR;
			out->rd = esum / ne;
			out->rbar = rsum / ne;
			mean_profile(lp, &sim.tr, rr, vr);
			if (isfinite(out->f_lp)) {
				fit_at(&tab, vr, out->f_lp, &cR, &W);
				out->c_lp = out->rd + cR;
			}
			if (isfinite(out->s_zero)) {
				fit_at(&tab, vr, out->s_zero, &cR, &W);
				out->c_zero = out->rd + cR;
			}
			if (isfinite(out->f_tot)) {
				fit_at(&tab, vr, out->f_tot, &cR, &W);
				out->c_tot = out->rd + cR;
			}
			out->d_tot = per_dome(lp, &sim.tr, rr, out->f_tot);
			if (tone_on) {
				double tb;
				tone_fit(vr, post, &tb, &cR);
				out->c_tone = out->rd + cR;
			}
			out->d_lp = per_dome(lp, &sim.tr, rr, out->f_lp);
			out->d_zero = per_dome(lp, &sim.tr, rr, out->s_zero);
		}
		free(rr);
	}
	if (rule_on)
		rule_print(k, seed_add, &sim, &o, meas, lp, lps, out, *nominal);
	fs_image_free(lp);
	fs_image_free(meas);
	sem_scene_close(&sim);
	return 0;
}

/* the printed columns (the reading's fields; nom the nominal total blur;
 * the last seven in % of the mean true radius) */
enum { NC = 22 };
static const char *col_name[NC] = {"s_free", "R_free", "s_zero", "nom", "R_nom", "W_nom", "bar",
				   "f_meas", "f_tot", "R_form", "f_lp", "R_lp", "rd%", "c_lp%",
				   "c_0%", "d_lp%", "d_0%", "c_tot%", "d_tot%", "t_beam", "t_R", "c_ton%"};
static const int col_prec[NC] = {3, 2, 3, 3, 2, 2, 3, 2, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 2};

static void mean_sd(const double *x, int n, double *m, double *sd)
{
	double s = 0, q = 0;
	int c = 0;
	for (int i = 0; i < n; i++)
		if (isfinite(x[i])) {
			s += x[i];
			c++;
		}
	*m = c ? s / c : NAN;
	for (int i = 0; i < n; i++)
		if (isfinite(x[i]))
			q += (x[i] - *m) * (x[i] - *m);
	*sd = c > 1 ? sqrt(q / (c - 1)) : NAN;
}

int main(int argc, char **argv)
{
	unsigned seeds[MAXSEEDS] = {0, 4000, 8000, 12000, 16000, 20000, 24000, 28000};
	int nseeds = 8, scenes[64], n = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seeds") && i + 1 < argc) {
			if ((nseeds = bench_parse_seeds(argv[++i], seeds, MAXSEEDS)) < 1) {
				fprintf(stderr, "%s: --seeds A,B,... (at most %d)\n", argv[0], MAXSEEDS);
				return 2;
			}
		} else if (!strcmp(argv[i], "--ramp")) {
			band_ramp = 1;
		} else if (!strcmp(argv[i], "--interior")) {
			interior = 1;
		} else if (!strcmp(argv[i], "--rule")) {
			rule_on = 1;
		} else if (!strcmp(argv[i], "--v1-map") && i + 1 < argc &&
			   sscanf(argv[i + 1], "%lf,%lf", &v1_map[0], &v1_map[1]) == 2) {
			v1_map_on = rule_on = 1;
			i++;
		} else if (!strcmp(argv[i], "--tone")) {
			tone_on = 1;
		} else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
			if (sem_opts_args_say(&set_args, argv[0], "--set", argv[++i]))
				return 2;
		} else if (n < 64)
			scenes[n++] = atoi(argv[i]);
	}
	if (!n)
		for (int k = 0; k < 64; k++)
			if ((k & 32) && (k & 8))
				scenes[n++] = k;
	printf("step-plus-band fits of the low-passed measurement image's mean edge profile about the TRUE bases "
	       "(px; R from the true base)");
	for (int i = 0; i < set_args.n; i++)
		printf(" %s", set_args.kv[i]);
	printf("\n%-5s %-4s %-4s %-4s %-6s", "scene", "prof", "fill", "h/R", "seed");
	for (int c = 0; c < NC; c++)
		printf(" %6s", col_name[c]);
	printf("\n");
	int rc = 0;
	for (int i = 0; i < n; i++) {
		int k = scenes[i];
		double col[NC][MAXSEEDS], nominal = NAN, m[NC], sd[NC];
		char head[64];
		if (interior) /* (the corner scenes' bits do not name an interior scene) */
			snprintf(head, sizeof head, "%-5d %-14s", k, "interior");
		else
			snprintf(head, sizeof head, "%-5d %-4s %-4.2f %-4.2f", k, k & 2 ? "flat" : "sph", k & 1 ? 0.8 : 0.25,
				 k & 4 ? 1.0 : 0.25);
		for (int j = 0; j < nseeds; j++) {
			reading r = {0};
			int bad = run(k, seeds[j], &r, &nominal) != 0;
			double x[NC] = {r.s_free, r.R_free, r.s_zero, nominal, r.R_nom, r.W_nom, r.bar,
					r.f_meas, r.f_tot, r.R_form, r.f_lp, r.R_lp, 100 * r.rd / r.rbar,
					100 * r.c_lp / r.rbar, 100 * r.c_zero / r.rbar, 100 * r.d_lp / r.rbar,
					100 * r.d_zero / r.rbar, 100 * r.c_tot / r.rbar, 100 * r.d_tot / r.rbar,
					r.t_beam, r.t_R, 100 * r.c_tone / r.rbar};
			rc |= bad;
			for (int c = 0; c < NC; c++)
				col[c][j] = bad ? NAN : x[c];
			printf("%s %-6u", head, seeds[j]);
			for (int c = 0; c < NC; c++)
				printf(" %6.*f", col_prec[c], col[c][j]);
			printf("\n");
			fflush(stdout);
		}
		for (int c = 0; c < NC; c++)
			mean_sd(col[c], nseeds, &m[c], &sd[c]);
		printf("%s %-6s", head, "mean");
		for (int c = 0; c < NC; c++)
			printf(" %6.*f", col_prec[c], m[c]);
		printf("\n%s %-6s", head, "sd");
		for (int c = 0; c < NC; c++)
			printf(" %6.*f", col_prec[c], sd[c]);
		printf("\n");
	}
	return rc;
}
