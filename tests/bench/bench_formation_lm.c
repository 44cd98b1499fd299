/*
 * bench_formation_lm - does the dome rule's own forward model, fitted
 * with every parameter continuous, reach what h39d's Cramer-Rao bound
 * says the image holds? (issue 13; docs/paper-figures.md, h39j).
 * Asserts nothing.
 *
 * Why: h39d bounded every corner scene's mean D at 0.003-0.58 % with the
 * formation unknown, so groups A (4-px flat tops), E (4-px spheres) and
 * B2 (fill 0.8 under a 5-px screen) fail through bias; the bias it names
 * is the blur (E: 0.03 px per 3 %) and the centres' common offset (E:
 * 0.06 px, B2: 0.23-0.30 px), which the rule's formation fit
 * (analysis/dome_fit.c) holds on grids (h38n, h38d, h39b). This
 * instrument removes the grids: at the TRUE centres it fits the rule's
 * model (analysis/se_render.h: secant yield, two detector slopes, edge
 * brightening, shadow; a Gaussian blur; the weights and a constant
 * solved linearly) with fill, h/R, profile, blur, the detector's
 * elevation and the common offset (x, y) all continuous, by
 * Levenberg-Marquardt on the variable-projection residual (the linear
 * weights re-solved at every point, the Jacobian by finite differences).
 *
 * The observed side is h38c's sub-pixel mean patch (every pixel within
 * WPX of a centre put in the bin of its offset, Q bins a pixel, no
 * interpolation), each bin weighted by its count over its sample
 * variance. The model is rendered at Q samples a pixel (g = pitch x Q
 * samples a pitch); the common offset enters as the centre of the
 * Gaussian kernel (a sub-sample shift, so chi^2 is continuous in it).
 * The edge term is capped at EDGE_CAP per px, the rule's own cap (one
 * per grid unit at its grid of one sample per px on a pitch-16 image).
 *
 * Starts, per scene: "rule" the rule's own formation fit at the true
 * centres (fs_dome_fit_image: its fill, h/R, profile, blur, elevation,
 * offset); "truth" the scene's fill, h/R, profile, beam blur, elevation,
 * no offset; "rule@D" the rule's formation with the true fill. Where
 * they converge to one D with one chi^2 the answer is the model's, not
 * the search's.
 *
 * Model mismatch against noise: the same scene rendered without shot
 * noise or quantisation (dose 0, bits 0: the same surface, gain and
 * truth to the bit, form_image draws the noise last) gives the
 * simulator's own noise-free mean patch; "floor" is the noisy patch's
 * chi^2 about it (a + b x that patch: what the simulator's own model at
 * its truth scores, i.e. the noise), and the rule's model is fitted to
 * the noise-free patch too ("clean": its D there is the model's bias
 * with no noise at all).
 *
 * Six more starts from the rule's fill (profile 0/1/2 x h/R 0.3/1.0,
 * blur 0.9 px, elevation 35 deg, no offset; --no-grid drops them): the
 * lowest chi^2 of all starts is printed as BEST, with what moved from
 * the rule's fit and the CPU the starts took.
 *
 * A screened image is low-passed first as the rule does it (the
 * halftone's period found by fs_halftone_detect, a Gaussian of
 * FS_HALFTONE_LOWPASS x period; --no-lowpass fits the raw screen).
 *
 * --profile-d: chi^2 with the fill held at the truth's -10..+10 %, the
 * rest refitted from every start's end (the lowest kept), above BEST's, in units of the noise (the
 * floor's chi^2 per bin): how flat the model's valley is in D.
 *
 * --model M: the model fitted. "old" (default) se_render as h39j. The
 * mean patch is many domes, not one (h40c, se_mean_dome.h), so these make
 * the model their mean: "jitter" (the radii's relative SD a free
 * parameter), "rough" (random slope and Laplacian SDs free), "pixel" (the
 * 1-px box over samples --fine N times finer, default 2), "meanall" (all
 * three), "base" (none of them: the rule's model in se_mean's code, the
 * control). Two parts made as the image forms them (h40b,
 * se_model_physical.h; the other parts se_render's): "edgepx" the edge term
 * clipped at a fixed curvature per image px at each subsample
 * (--edge-cap C, default 1.5 px^-1) instead of se_render's per grid unit
 * and this bench's 1 per px after the average; "shadowx" the shadow as a
 * product of the whole signal (blocked x constant, yield, slope x, slope
 * y: three linear parts more); "both" the two.
 *
 * --bg 1|2: a plane or a quadric of the offset from the centre as linear
 * parts too (any model). --lattice-blur (h40a): the simulator's kernel
 * as the sub-pixel patch sees it (the pixel's box, then a sampled
 * Gaussian on the pixel lattice) in place of the model's Gaussian; with
 * old, edgepx, shadowx, both only (the mean models blur their own
 * components). --rings (h40c) and --resid (h40b): where BEST's misfit
 * lies, by ring of r/R and side, against the floor (--rings adds the
 * other seeds' floor and the sub-pixel phase classes).
 *
 * --set KEY=VALUE (repeatable; sem_opts_keys.h's keys, e.g. edge=0,
 * shadow=0, rough=0, rjit=0, strength=0; --sim is the same option, h40b's
 * name): the scene's options changed after the
 * corner scene and its seed are made, so one feature of the simulator's
 * formation can be switched off at a time and the misfit that goes with
 * it seen (h40a's ablation). The noise floor's render takes the same
 * options (only dose and bits differ), so "x floor" stays the misfit
 * over the simulator's own model of that ablated scene. A switch also
 * changes the operator's contrast (the signal's 1st..99th percentiles
 * are stretched over the range), so the noise against what is left: the
 * line "signal" gives the patch's chi^2 about a constant, and
 * (fit - floor) / (signal - floor) is the share of the domes' signal the
 * model leaves unexplained, which does not move with the contrast. Note
 * pjit=0 puts every centre on the exact lattice: where the lattice runs
 * along the pixel grid (scene 0's angle is 0) the centres then share a
 * few sub-pixel phases and the patch fills a quarter of its bins.
 *
 * The split halves (on the "signal" line, every run): the even and the
 * odd domes' patches against each other with the fit's weights - the
 * level a perfect model of the mean dome reaches, which the floor leaves
 * out (h40a; h40b's --resid printed the same quantity weighted by the
 * halves' own variances, dropped for this one).
 *
 * Usage: bench_formation_lm [--seed-add N] [--starts rule,truth,ruleD]
 * [--model old|base|jitter|rough|pixel|meanall|edgepx|shadowx|both]
 * [--fine N] [--edge-cap C] [--bg 1|2] [--lattice-blur]
 * [--set KEY=VALUE]... [--rings] [--resid] [--no-clean] [--no-grid]
 * [--no-lowpass] [--profile-d] [SCENE...]; default the 24
 * pitch-16 corner scenes of groups A, E and B2. About 5-20 s of CPU per
 * scene (renders through SEM_SCENE_CACHE).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/dome_fit.h"
#include "analysis/halftone.h"
#include "analysis/preprocess.h"
#include "analysis/se_render.h"
#include "image/image.h"
#include "mean_patch.h"
#include "se_mean_dome.h"
#include "sem_cache.h"
#include "sem_opts_keys.h"
#include "sem_sim.h"
#include "se_model_physical.h"

#define Q 4                  /* bins (and model samples) per pixel */
#define WPX 9                /* the patch's radius, px: 0.55 pitch at 16 */
#define NB (2 * WPX * Q + 1) /* bins per side */
#define KMAX 63              /* kernel half width, samples */
#define HALF (WPX * Q + KMAX + 1)
#define NL (FS_SE_NCOMP + 1) /* constant + the five components */
#define NLMAX (NL + SEX_N + 5) /* --model shadowx's three more, --bg's up to five */
#define NPAR 10
#define EDGE_CAP 1.0 /* per px: the rule's cap at its pitch-16 grid */

/* P_JIT, P_RT, P_RL: the mean patch's radius scatter and roughness
 * (h40c, --model; se_mean_dome.h), held where the model has no use for
 * them (a held parameter's Jacobian column is zero: the others' steps
 * are the same as without it) */
enum { P_FILL, P_HR, P_PROF, P_SIG, P_EL, P_SX, P_SY, P_JIT, P_RT, P_RL };
static const char *PN[NPAR] = {"fill", "h/R", "prof", "blur", "elev", "sx", "sy", "jit", "rt", "rl"};
static const double LO[NPAR] = {0.08, 0.05, 0, 0.25, 5 * M_PI / 180, -3, -3, 0, 0, 0};
static const double HI[NPAR] = {0.95, 3.0, 2, 3.0, 85 * M_PI / 180, 3, 3, 0.25, 0.4, 0.6};
/* finite-difference steps: large enough that the shadow's and the edge
 * cap's sample-level kinks average out, small against the tolerances
 * h39d names (blur 0.03 px, offset 0.06 px) */
static const double STEP[NPAR] = {0.002, 0.01, 0.02, 0.01, 0.01, 0.02, 0.02, 0.005, 0.005, 0.01};

/* --model (h40c): 0 the rule's se_render as h39j; otherwise
 * se_mean_components with these SE_MEAN_* kinds (0: the same model in
 * se_mean's code, the control) */
static int g_model = -1;
static se_mean_ctx g_mean;
static int par_free(int j)
{
	if (j < P_JIT)
		return 1;
	if (g_model < 0)
		return 0;
	return j == P_JIT ? (g_model & SE_MEAN_JITTER) != 0 : (g_model & SE_MEAN_ROUGH) != 0;
}

typedef struct patch {
	double mean[NB * NB], w[NB * NB]; /* w = count / variance; 0 = unused */
	int nbins;
} patch;

/* h38c's mean patch (mean_patch.h), about the centres as given. */
static void build_patch(const fs_image *img, const double *xs, const double *ys, int n, patch *p)
{
	int nbins = mean_patch_build(img, xs, ys, n, 0, 0, WPX, Q, p->mean, p->w);
	p->nbins = nbins > 0 ? nbins : 0;
}

/* Weighted least squares of y on the columns (NULL = constant); writes
 * the coefficients and the residuals sqrt(w) (y - fit) into r (unused
 * bins 0). chi^2, or INFINITY when singular. */
static double solve_lin(const double *y, const double *wt, const float *const *col, int nc, double *coef,
			double *r)
{
	double x[NLMAX];
	if (wls_solve(y, wt, col, nc, NB * NB, x, NULL, NULL))
		return INFINITY;
	double chi = 0;
	for (int b = 0; b < NB * NB; b++) {
		double w = wt[b];
		if (!(w > 0)) {
			if (r)
				r[b] = 0;
			continue;
		}
		double f = 0;
		for (int i = 0; i < nc; i++)
			f += x[i] * (col[i] ? col[i][b] : 1.0);
		double e = sqrt(w) * (y[b] - f);
		if (r)
			r[b] = e;
		chi += e * e;
	}
	if (coef)
		for (int i = 0; i < nc; i++)
			coef[i] = x[i];
	return chi;
}

/* --lattice-blur (h40a): the kernel the sub-pixel patch sees in the
 * simulator's image instead of a Gaussian. The simulator integrates each
 * pixel's box and then blurs by sqrt(sig^2 - 1/12) px with a sampled
 * Gaussian on the pixel lattice (sem_sim.c, form_image), so a pixel at
 * offset t from a dome's centre holds the surface weighted by
 * sum_k K(k) box(t - k): a staircase of pixel-wide steps, K(k) the
 * normalised sampled Gaussian of radius round(4 sigma) (preprocess.c's
 * kernel), not a smooth spot. One axis, in model samples (Q a px), the
 * sample's own width integrated so it stays continuous in the shift s;
 * sig in samples. Writes k[0..2r]. */
static int g_lattice_blur;

static void lattice_kernel(double sig, double s, int r, double *k)
{
	double sp = sig / Q, sd2 = sp * sp - 1.0 / 12, Kd[KMAX + 1], ks = 0;
	int Rd = sd2 > 0 ? (int)(4.0 * sqrt(sd2) + 0.5) : 0;
	if (sd2 > 0 && Rd < 1)
		Rd = 1;
	if (Rd > KMAX)
		Rd = KMAX;
	for (int j = 0; j <= Rd; j++)
		ks += (j ? 2 : 1) * (Kd[j] = sd2 > 0 ? exp(-0.5 * j * j / sd2) : j == 0);
	for (int i = -r; i <= r; i++) {
		double t = (i - s) / Q, h = 0.5 / Q, v = 0;
		for (int j = -Rd; j <= Rd; j++) {
			double lo = fmax(t - h, j - 0.5), hi = fmin(t + h, j + 0.5);
			if (hi > lo)
				v += Kd[abs(j)] / ks * (hi - lo) * Q;
		}
		k[i + r] = v;
	}
}

/* Separable Gaussian of sig samples centred at (sx, sy) samples: the
 * field moved by the offset and blurred in one pass, continuous in both;
 * the central NB x NB samples. */
static void blur_shift(const float *src, double sig, double sx, double sy, float *out)
{
	static double kx[2 * KMAX + 1], ky[2 * KMAX + 1];
	static float tmp[(2 * HALF + 1) * NB];
	int w = 2 * HALF + 1, c = WPX * Q;
	int r = (int)ceil(3.5 * sig + fmax(fabs(sx), fabs(sy))) + 1;
	if (g_lattice_blur) /* the staircase reaches round(4 sigma) + 1/2 px */
		r = (int)ceil((4.0 * sig / Q + 1.5) * Q + fmax(fabs(sx), fabs(sy)));
	if (r > KMAX)
		r = KMAX;
	double sxs = 0, sys = 0;
	if (g_lattice_blur) {
		lattice_kernel(sig, sx, r, kx);
		lattice_kernel(sig, sy, r, ky);
		for (int i = 0; i <= 2 * r; i++) {
			sxs += kx[i];
			sys += ky[i];
		}
	}
	for (int i = -r; i <= r && !g_lattice_blur; i++) {
		sxs += kx[i + r] = exp(-0.5 * (i - sx) * (i - sx) / (sig * sig));
		sys += ky[i + r] = exp(-0.5 * (i - sy) * (i - sy) / (sig * sig));
	}
	for (int i = 0; i <= 2 * r; i++) {
		kx[i] /= sxs;
		ky[i] /= sys;
	}
	/* out(x) = sum_i k(i) src(x - i): a kernel peaked at +s moves the
	 * dome by +s */
	for (int y = -c - r; y <= c + r; y++)
		for (int x = -c; x <= c; x++) {
			double s = 0;
			const float *row = src + (size_t)(y + HALF) * w + HALF + x;
			for (int i = -r; i <= r; i++)
				s += kx[i + r] * row[-i];
			tmp[(y + c + r) * NB + (x + c)] = (float)s;
		}
	for (int y = -c; y <= c; y++)
		for (int x = -c; x <= c; x++) {
			double s = 0;
			for (int i = -r; i <= r; i++)
				s += ky[i + r] * tmp[(y - i + c + r) * NB + (x + c)];
			out[(y + c) * NB + (x + c)] = (float)s;
		}
}

/* The shadow's direction: se_render's shadow is cast away from a
 * detector at azimuth az; the fit holds the azimuth of its start (the
 * rule's, from its slope weights; the truth's) - the shadow is the only
 * nonlinear use of it, the slopes' weights give it linearly */
static double g_az;

typedef struct model {
	double pitch, angle;
	int g;
	fs_se_field f;
	float bl[FS_SE_NCOMP][NB * NB];
	long evals;
} model;

/* --model (h40b): bit 1 the edge per image px, bit 2 the shadow as a
 * product; the edge's clip, px^-1 */
static int g_phys;
static double g_edge_cap = 1.5;
/* --bg 1|2: a plane (1) or a quadric (2) of the offset from the centre
 * added to the linear parts: whether what varies slowly over the frame
 * (the undulation's slopes, the drift's gain and offset) leaves a ramp in
 * the mean patch that the noise-free patch shares, so the floor does not
 * count it and a dome model without it does (h40b: it lowers no misfit;
 * what the floor leaves out is per bin, not a ramp) */
static int g_bg;
/* --resid: where BEST's misfit lies (print_resid) */
static int g_resid;
/* --bg's columns after the nc in col; returns the new count */
static int add_bg(const float **col, int nc)
{
	static float bg[5][NB * NB];
	static int bg_made;
	if (!bg_made) {
		/* offsets in patch radii, so the columns are of one scale */
		for (int b = 0; b < NB * NB; b++) {
			double ox = (b % NB - WPX * Q) / (double)(WPX * Q), oy = (b / NB - WPX * Q) / (double)(WPX * Q);
			bg[0][b] = (float)ox;
			bg[1][b] = (float)oy;
			bg[2][b] = (float)(ox * ox);
			bg[3][b] = (float)(oy * oy);
			bg[4][b] = (float)(ox * oy);
		}
		bg_made = 1;
	}
	for (int k = 0; k < (g_bg >= 2 ? 5 : g_bg ? 2 : 0); k++)
		col[nc++] = bg[k];
	return nc;
}

/* eval's parts after fs_se_shadow under --model or --bg: the columns are eval's
 * six (the edge replaced under bit 1) and, under bit 2, blocked x
 * constant, slope x and slope y after them, so coef[0..5] mean what
 * they mean under the old model; --bg's columns last */
static double eval_physical(model *m, const patch *pt, const double *p, double *r, double *coef)
{
	static float edge[(2 * HALF + 1) * (2 * HALF + 1)], xs[SEX_N][(2 * HALF + 1) * (2 * HALF + 1)];
	static float xbl[SEX_N][NB * NB];
	int w = 2 * HALF + 1;
	fs_se_geom geo = {p[P_FILL], p[P_HR], p[P_PROF], m->angle, 0};
	if (g_phys & 2) {
		float *const out[SEX_N] = {xs[0], xs[1], xs[2]};
		se_phys_shadow_parts(&m->f, out);
	}
	if (g_phys & 1) {
		if (fs_se_edge_px(&geo, m->g, HALF, m->pitch / m->g, g_edge_cap, edge))
			return INFINITY;
		memcpy(m->f.c[FS_SE_EDGE], edge, sizeof edge);
	} else {
		for (int k = 0; k < w * w; k++)
			m->f.c[FS_SE_EDGE][k] = (float)fmin(EDGE_CAP, Q * m->f.c[FS_SE_EDGE][k]);
	}
	for (int cpt = 0; cpt < FS_SE_NCOMP; cpt++)
		blur_shift(m->f.c[cpt], p[P_SIG] * Q, p[P_SX] * Q, p[P_SY] * Q, m->bl[cpt]);
	const float *col[NLMAX] = {NULL, m->bl[FS_SE_YIELD], m->bl[FS_SE_SLOPE_X], m->bl[FS_SE_SLOPE_Y],
				   m->bl[FS_SE_EDGE], m->bl[FS_SE_SHADOW]};
	int nc = NL;
	if (g_phys & 2)
		for (int k = 0; k < SEX_N; k++) {
			blur_shift(xs[k], p[P_SIG] * Q, p[P_SX] * Q, p[P_SY] * Q, xbl[k]);
			col[nc++] = xbl[k];
		}
	nc = add_bg(col, nc);
	return solve_lin(pt->mean, pt->w, col, nc, coef, r);
}

/* chi^2 of the patch at parameters p (r: the residual vector, coef: the
 * linear weights, either may be NULL). */
static double eval(model *m, const patch *pt, const double *p, double *r, double *coef)
{
	fs_se_geom geo = {p[P_FILL], p[P_HR], p[P_PROF], m->angle, 0};
	m->evals++;
	if (g_model >= 0) {
		/* h40c's mean-patch variants: the components come blurred */
		se_mean_par sp = {.fill = p[P_FILL], .h_over_r = p[P_HR], .profile = p[P_PROF], .angle = m->angle,
				  .pitch_px = m->pitch, .az = g_az, .el = p[P_EL], .blur_px = p[P_SIG],
				  .sx = p[P_SX], .sy = p[P_SY], .jitter = p[P_JIT], .rough_t = p[P_RT],
				  .rough_l = p[P_RL]};
		float *outs[FS_SE_NCOMP];
		for (int cpt = 0; cpt < FS_SE_NCOMP; cpt++)
			outs[cpt] = m->bl[cpt];
		g_mean.kinds = g_model;
		g_mean.q = Q;
		g_mean.wb = WPX * Q;
		g_mean.edge_cap = EDGE_CAP;
		if (se_mean_components(&g_mean, &sp, outs))
			return INFINITY;
		const float *cl[NLMAX] = {NULL, m->bl[FS_SE_YIELD], m->bl[FS_SE_SLOPE_X], m->bl[FS_SE_SLOPE_Y],
					  m->bl[FS_SE_EDGE], m->bl[FS_SE_SHADOW]};
		return solve_lin(pt->mean, pt->w, cl, add_bg(cl, NL), coef, r);
	}
	if (fs_se_render(&geo, m->g, HALF, m->g, &m->f))
		return INFINITY;
	fs_se_shadow(&m->f, g_az, p[P_EL]);
	if (g_phys || g_bg)
		return eval_physical(m, pt, p, r, coef);
	int w = 2 * HALF + 1;
	for (int k = 0; k < w * w; k++)
		m->f.c[FS_SE_EDGE][k] = (float)fmin(EDGE_CAP, Q * m->f.c[FS_SE_EDGE][k]);
	for (int cpt = 0; cpt < FS_SE_NCOMP; cpt++)
		blur_shift(m->f.c[cpt], p[P_SIG] * Q, p[P_SX] * Q, p[P_SY] * Q, m->bl[cpt]);
	const float *col[NL] = {NULL, m->bl[FS_SE_YIELD], m->bl[FS_SE_SLOPE_X], m->bl[FS_SE_SLOPE_Y],
				m->bl[FS_SE_EDGE], m->bl[FS_SE_SHADOW]};
	return solve_lin(pt->mean, pt->w, col, NL, coef, r);
}

/* 1: the fill is held (the profile of chi^2 in D, --profile-d) */
static int g_hold_fill;

static void clampp(double *p)
{
	for (int i = 0; i < NPAR; i++)
		p[i] = p[i] < LO[i] ? LO[i] : p[i] > HI[i] ? HI[i] : p[i];
}

/* Levenberg-Marquardt on the projected residual; p in/out. Returns the
 * chi^2 at the end and the iterations used in *iters. */
static double lm(model *m, const patch *pt, double *p, int *iters)
{
	static double r0[NB * NB], r1[NB * NB], J[NPAR][NB * NB];
	clampp(p);
	double chi = eval(m, pt, p, r0, NULL), lam = 1e-3;
	int it;
	for (it = 0; it < 60 && isfinite(chi); it++) {
		for (int j = 0; j < NPAR; j++) {
			double q[NPAR];
			memcpy(q, p, sizeof q);
			double h = STEP[j];
			if (q[j] + h > HI[j])
				h = -h;
			q[j] += h;
			double c = (j == P_FILL && g_hold_fill) || !par_free(j) ? INFINITY : eval(m, pt, q, r1, NULL);
			for (int b = 0; b < NB * NB; b++)
				J[j][b] = isfinite(c) ? (r1[b] - r0[b]) / h : 0;
		}
		double A[NPAR][NPAR], g[NPAR];
		for (int i = 0; i < NPAR; i++) {
			g[i] = 0;
			for (int b = 0; b < NB * NB; b++)
				g[i] += J[i][b] * r0[b];
			for (int j = 0; j <= i; j++) {
				double s = 0;
				for (int b = 0; b < NB * NB; b++)
					s += J[i][b] * J[j][b];
				A[i][j] = A[j][i] = s;
			}
		}
		int improved = 0;
		for (int tries = 0; tries < 12 && !improved; tries++) {
			double M[NPAR][NPAR + 1];
			for (int i = 0; i < NPAR; i++) {
				for (int j = 0; j < NPAR; j++)
					M[i][j] = A[i][j] + (i == j ? lam * (A[i][i] + 1e-12) + (A[i][i] > 0 ? 0 : 1) : 0);
				M[i][NPAR] = -g[i];
			}
			/* Gauss-Jordan with partial pivoting: 7 x 7 */
			int ok = 1;
			for (int c = 0; c < NPAR && ok; c++) {
				int piv = c;
				for (int i = c + 1; i < NPAR; i++)
					if (fabs(M[i][c]) > fabs(M[piv][c]))
						piv = i;
				if (!(fabs(M[piv][c]) > 0)) {
					ok = 0;
					break;
				}
				for (int j = 0; j <= NPAR; j++) {
					double t = M[c][j];
					M[c][j] = M[piv][j];
					M[piv][j] = t;
				}
				for (int i = 0; i < NPAR; i++)
					if (i != c) {
						double f = M[i][c] / M[c][c];
						for (int j = c; j <= NPAR; j++)
							M[i][j] -= f * M[c][j];
					}
			}
			double q[NPAR];
			for (int i = 0; i < NPAR; i++)
				q[i] = p[i] + (ok ? M[i][NPAR] / M[i][i] : 0);
			clampp(q);
			double c = ok ? eval(m, pt, q, r1, NULL) : INFINITY;
			if (c < chi) {
				double rel = (chi - c) / chi;
				memcpy(p, q, sizeof q);
				memcpy(r0, r1, sizeof r0);
				chi = c;
				lam = fmax(lam / 4, 1e-7);
				improved = 1;
				if (rel < 1e-7) {
					*iters = it + 1;
					return chi;
				}
			} else {
				lam *= 8;
			}
		}
		if (!improved)
			break;
	}
	*iters = it;
	return chi;
}

static void print_fit(const char *label, const model *mm, const patch *pt, const double *p, double chi,
		      double floor_chi, double true_fill, int iters, const double *start)
{
	double coef[NLMAX];
	model *m = (model *)mm;
	eval(m, pt, p, NULL, coef);
	double y = coef[1], side = hypot(coef[2], coef[3]) / fabs(y), az = atan2(coef[3], coef[2]);
	printf("    %-7s D %+6.2f %%  chi2/bin %6.3f  x floor %5.2f  h/R %.3f prof %.2f blur %.3f el %4.1f "
	       "off %+.3f,%+.3f  side %.2f az %4.0f edge %.2f shadow %.2f  it %d",
	       label, 100 * (p[P_FILL] - true_fill) / true_fill, chi / pt->nbins, floor_chi > 0 ? chi / floor_chi : 0,
	       p[P_HR], p[P_PROF], p[P_SIG], p[P_EL] * 180 / M_PI, p[P_SX], p[P_SY], side, az * 180 / M_PI,
	       coef[4] / y, -coef[5] / y, iters);
	if (g_model >= 0)
		printf("  jit %.3f rt %.3f rl %.3f", p[P_JIT], p[P_RT], p[P_RL]);
	if (start) {
		printf("  moved:");
		static const double TOL[NPAR] = {0.005, 0.05, 0.1, 0.03, 3 * M_PI / 180, 0.05, 0.05};
		for (int i = 0; i < NPAR; i++)
			if (fabs(p[i] - start[i]) > TOL[i])
				printf(" %s%+.3g", PN[i], i == P_EL ? (p[i] - start[i]) * 180 / M_PI : p[i] - start[i]);
	}
	printf("\n");
}

/* --rings (h40c): where BEST's misfit lies - chi^2 per bin over the
 * floor's, and each region's share of the excess over the floor, by the
 * bins' distance from the centre in true base radii (core < 0.5, flank
 * < 0.85, rim < 1.15, foot < 1.6, near < 2.5, ground beyond) and, from 0.85 to 2.5
 * radii, by side (towards the detector within 60 degrees, away within 60
 * degrees): the radius scatter and the pixel would put it at the rim,
 * roughness everywhere on the dome, a shadow on the away side. */
static int g_rings;
/* the floor's residuals per bin (the noisy patch about the simulator's
 * noise-free one): a region's own floor, since the bins' scatter (and so
 * their weights) differs between the dome and the ground */
static double g_floor_res[NB * NB];
/* a second floor: the noisy patch about the noise-free mean patch of the
 * same scene at another seed (other domes, radii, undulation and drift):
 * what the simulator's own physics scores when the domes' variation is
 * sampled independently, as it is for any model of the mean dome; over
 * F2N other seeds (each one draw of that variation), as a ratio to the
 * floor on the bins both patches have */
#define F2N 3
static double g_floor2_ratio[F2N];
static int g_have_floor2;

/* How much of a residual (and of the floor's, *fdrop) a fit per phase
 * class takes away (see print_rings): v 0 a constant, 1 a plane in the
 * bin's offset, 2 the plane and a gain on the model's value. */
static double class_drop(const patch *pt, const double *res, int v, double *fdrop)
{
	enum { NC = 4 };
	static double A[Q * Q][NC][NC], br[Q * Q][NC], bf[Q * Q][NC];
	int nc = v == 0 ? 1 : v == 1 ? 3 : 4, c = WPX * Q;
	memset(A, 0, sizeof A);
	memset(br, 0, sizeof br);
	memset(bf, 0, sizeof bf);
	for (int b = 0; b < NB * NB; b++) {
		if (!(pt->w[b] > 0))
			continue;
		int cl = (b % NB % Q) * Q + (b / NB % Q);
		double sw = sqrt(pt->w[b]);
		double col[NC] = {sw, sw * (b % NB - c) / (double)c, sw * (b / NB - c) / (double)c,
				  sw * pt->mean[b] - res[b]};
		for (int i = 0; i < nc; i++) {
			for (int j = 0; j < nc; j++)
				A[cl][i][j] += col[i] * col[j];
			br[cl][i] += col[i] * res[b];
			bf[cl][i] += col[i] * g_floor_res[b];
		}
	}
	double drop = 0;
	*fdrop = 0;
	for (int cl = 0; cl < Q * Q; cl++) {
		/* b' A^-1 b by Gauss-Jordan on [A | br bf] */
		double M[NC][NC + 2];
		for (int i = 0; i < nc; i++) {
			for (int j = 0; j < nc; j++)
				M[i][j] = A[cl][i][j] + (i == j ? 1e-12 * A[cl][i][i] : 0);
			M[i][nc] = br[cl][i];
			M[i][nc + 1] = bf[cl][i];
		}
		int ok = 1;
		for (int k = 0; k < nc && ok; k++) {
			if (!(fabs(M[k][k]) > 0)) {
				ok = 0;
				break;
			}
			for (int i = 0; i < nc; i++)
				if (i != k) {
					double f = M[i][k] / M[k][k];
					for (int j = k; j < nc + 2; j++)
						M[i][j] -= f * M[k][j];
				}
		}
		if (!ok)
			continue;
		for (int i = 0; i < nc; i++) {
			drop += br[cl][i] * M[i][nc] / M[i][i];
			*fdrop += bf[cl][i] * M[i][nc + 1] / M[i][i];
		}
	}
	return drop;
}

static void print_rings(model *m, const patch *pt, const double *p, double floor_chi, double r_px)
{
	static double res[NB * NB];
	eval(m, pt, p, res, NULL);
	enum { NREG = 8 };
	static const char *RN[NREG] = {"core", "flank", "rim", "foot", "near", "ground", "towards", "away"};
	double chi[NREG] = {0}, fl[NREG] = {0}, tot = 0;
	int c = WPX * Q;
	for (int b = 0; b < NB * NB; b++) {
		if (!(pt->w[b] > 0))
			continue;
		double x = (b % NB - c) / (double)Q, y = (b / NB - c) / (double)Q, u = hypot(x, y) / r_px;
		double e2 = res[b] * res[b], f2 = g_floor_res[b] * g_floor_res[b];
		int ring = u < 0.5 ? 0 : u < 0.85 ? 1 : u < 1.15 ? 2 : u < 1.6 ? 3 : u < 2.5 ? 4 : 5;
		chi[ring] += e2;
		fl[ring] += f2;
		tot += e2;
		if (u >= 0.85 && u < 2.5) {
			double cs = (x * cos(g_az) + y * sin(g_az)) / hypot(x, y);
			int side = cs > 0.5 ? 6 : cs < -0.5 ? 7 : -1;
			if (side > 0) {
				chi[side] += e2;
				fl[side] += f2;
			}
		}
	}
	/* Each dome feeds one bin of every Q x Q block (the bins at its
	 * centre's sub-pixel phase), so the bins of one phase class are the
	 * mean of their own subset of domes: what varies between domes (the
	 * ground's brightness under drift and undulation, the radius) enters
	 * a class as a common error that no mean-dome model can follow and
	 * the floor (the same domes without noise) does not count. A
	 * constant per class, fitted to BEST's residual, says how much of the
	 * misfit that is. */
	if (g_have_floor2) {
		double f2 = 0, lo = INFINITY, hi = 0;
		for (int i = 0; i < g_have_floor2; i++) {
			f2 += g_floor2_ratio[i] / g_have_floor2;
			lo = fmin(lo, g_floor2_ratio[i]);
			hi = fmax(hi, g_floor2_ratio[i]);
		}
		/* floor2 counts two draws of the domes' variation (this
		 * patch's and the other's), a model of the mean dome only
		 * this patch's: it would score (floor + floor2) / 2 */
		printf("    floor2 (other seeds' noise-free patches, %d) %.2f x floor (%.2f..%.2f); a perfect mean dome "
		       "~%.2f x floor; BEST %.2f x that\n",
		       g_have_floor2, f2, lo, hi, 0.5 * (1 + f2), tot / floor_chi / (0.5 * (1 + f2)));
	}
	double cut[3], fcut[3];
	for (int v = 0; v < 3; v++)
		cut[v] = tot - class_drop(pt, res, v, &fcut[v]), fcut[v] = floor_chi - fcut[v];
	printf("    per sub-pixel phase class (%d): a constant x floor %.2f, + a plane %.2f, + a gain %.2f (the "
	       "floor itself -> %.3f, %.3f, %.3f)\n",
	       Q * Q, cut[0] / floor_chi, cut[1] / floor_chi, cut[2] / floor_chi, fcut[0] / floor_chi,
	       fcut[1] / floor_chi, fcut[2] / floor_chi);
	double excess = tot - floor_chi;
	printf("    rings (x its floor, share of the excess):");
	for (int i = 0; i < NREG; i++)
		if (fl[i] > 0)
			printf(" %s %.2f %.0f%%", RN[i], chi[i] / fl[i], 100 * (chi[i] - fl[i]) / excess);
	printf("\n");
}

/* --set's KEY=VALUE texts, applied to every scene in order */
#define NSETS_MAX 32
static const char *g_sets[NSETS_MAX];
static int g_nsets;

/* BEST's chi^2 and the floor's by ring of r / R (true mean radius) and by
 * side (towards the detector or away), each ring's x floor and its share
 * of what BEST misfits beyond the floor: which part of the dome the model
 * fails to draw (the edge's rim, the shadow's far side, the flat). */
static void print_resid(model *m, const patch *pt, const patch *pc, const double *best, double az, double R)
{
	static double rb[NB * NB], rf[NB * NB];
	static float cf[NB * NB];
	enum { NRING = 6 };
	static const double EDGE[NRING] = {0.5, 0.85, 1.15, 1.6, 2.2, 1e9};
	double cb[NRING][2] = {{0}}, cfl[NRING][2] = {{0}}, tot = 0, totf = 0;
	int nb[NRING][2] = {{0}};
	eval(m, pt, best, rb, NULL);
	for (int b = 0; b < NB * NB; b++)
		cf[b] = (float)pc->mean[b];
	const float *col[2] = {NULL, cf};
	solve_lin(pt->mean, pt->w, col, 2, NULL, rf);
	int c = WPX * Q;
	for (int b = 0; b < NB * NB; b++) {
		if (!(pt->w[b] > 0))
			continue;
		double ox = (b % NB - c) / (double)Q, oy = (b / NB - c) / (double)Q, u = hypot(ox, oy) / R;
		int ring = 0, side = ox * cos(az) + oy * sin(az) < 0;
		while (u >= EDGE[ring])
			ring++;
		cb[ring][side] += rb[b] * rb[b];
		cfl[ring][side] += rf[b] * rf[b];
		nb[ring][side]++;
		tot += rb[b] * rb[b];
		totf += rf[b] * rf[b];
	}
	printf("    BEST's misfit by ring of r/R (towards | away from the detector: x floor there, share of the "
	       "misfit beyond the floor):\n     ");
	for (int i = 0; i < NRING; i++) {
		printf(" [%.2f,", i ? EDGE[i - 1] : 0.0);
		if (i < NRING - 1)
			printf("%.2f)", EDGE[i]);
		else
			printf("...)");
		for (int sd = 0; sd < 2; sd++) {
			double xf = cfl[i][sd] > 0 ? cb[i][sd] / cfl[i][sd] : 0;
			double share = tot > totf ? 100 * (cb[i][sd] - cfl[i][sd]) / (tot - totf) : 0;
			printf("%s%.1fx %.0f%%", sd ? " | " : " ", xf, share);
		}
	}
	printf("\n");
}

static int run_scene(int k, unsigned seed_add, unsigned starts, int clean, int grid, int lowpass, int profile_d)
{
	sem_opts o, oc;
	sem_truth t, tc;
	memset(&tc, 0, sizeof tc);
	sem_corner_scene(k, &o);
	o.seed += seed_add;
	for (int i = 0; i < g_nsets; i++)
		sem_opts_set_key(&o, g_sets[i]); /* checked in main */
	fs_image *img = sem_make_shared(&o, &t), *imc = NULL, *lpi = NULL;
	if (!img) {
		printf("%d: the simulator refused the scene\n", k);
		return -1;
	}
	int rc = -1;
	double *xs = malloc((t.n + 1) * sizeof *xs), *ys = malloc((t.n + 1) * sizeof *ys);
	patch *pt = malloc(sizeof *pt), *pc = malloc(sizeof *pc);
	model *m = calloc(1, sizeof *m);
	if (!xs || !ys || !pt || !pc || !m)
		goto done;
	int n = 0;
	/* a screened image is fitted as the rule fits it: low-passed by
	 * FS_HALFTONE_LOWPASS x its period first (dome_fit.c); the mean
	 * patch would keep the screen's phase pattern otherwise */
	double period = 0;
	if (lowpass && !fs_halftone_detect(img, &period, NULL) && period > 0) {
		char e2[128];
		lpi = fs_gaussian_blurred(img, FS_HALFTONE_LOWPASS * period, e2, sizeof e2);
		if (!lpi)
			goto done;
	}
	/* the rule's fit reads the raw image (it low-passes it itself);
	 * the patch the low-passed one */
	const fs_image *fit_img = lpi ? lpi : img;
	double mean_d = 0;
	for (size_t j = 0; j < t.n; j++)
		mean_d += t.d[j];
	mean_d /= (double)t.n;
	n = (int)sem_counted_centres(&t, xs, ys);
	double true_fill = mean_d / t.pitch;
	build_patch(fit_img, xs, ys, n, pt);
	m->pitch = t.pitch;
	m->angle = o.angle;
	m->g = (int)lround(t.pitch * Q);
	g_az = o.det_azimuth;

	/* the simulator's own noise-free patch: the noise floor */
	double floor_chi = 0;
	if (clean) {
		oc = o;
		oc.dose = 0;
		oc.bits = 0;
		imc = sem_make_shared(&oc, &tc);
		if (!imc || tc.n != t.n)
			goto done;
		if (period > 0) {
			char e2[128];
			fs_image *lp = fs_gaussian_blurred(imc, FS_HALFTONE_LOWPASS * period, e2, sizeof e2);
			if (!lp)
				goto done;
			fs_image_free(imc);
			imc = lp;
		}
		build_patch(imc, xs, ys, n, pc);
		const float *col[2] = {NULL, NULL};
		static float cf[NB * NB];
		for (int b = 0; b < NB * NB; b++)
			cf[b] = (float)pc->mean[b];
		col[1] = cf;
		floor_chi = solve_lin(pt->mean, pt->w, col, 2, NULL, g_floor_res);
		/* the clean patch is fitted with the noisy one's weights, so
		 * that its chi^2 is on the same scale */
		memcpy(pc->w, pt->w, sizeof pc->w);
		pc->nbins = pt->nbins;
		g_have_floor2 = 0;
		for (int f2 = 0; f2 < F2N && g_rings && !period; f2++) {
			sem_opts o2 = oc;
			sem_truth t2;
			o2.seed += 7919 * (unsigned)(f2 + 1);
			fs_image *im2 = sem_make_shared(&o2, &t2);
			patch *p2 = malloc(sizeof *p2);
			double *x2 = malloc((t2.n + 1) * sizeof *x2), *y2 = malloc((t2.n + 1) * sizeof *y2);
			if (im2 && p2 && x2 && y2) {
				build_patch(im2, x2, y2, (int)sem_counted_centres(&t2, x2, y2), p2);
				static double w2[NB * NB], r2[NB * NB];
				for (int b = 0; b < NB * NB; b++) {
					w2[b] = pt->w[b] > 0 && p2->w[b] > 0 ? pt->w[b] : 0;
					cf[b] = (float)p2->mean[b];
				}
				if (isfinite(solve_lin(pt->mean, w2, col, 2, NULL, r2))) {
					double c2 = 0, c0 = 0;
					for (int b = 0; b < NB * NB; b++)
						if (w2[b] > 0) {
							c2 += r2[b] * r2[b];
							c0 += g_floor_res[b] * g_floor_res[b];
						}
					g_floor2_ratio[g_have_floor2++] = c2 / c0;
				}
			}
			free(p2);
			free(x2);
			free(y2);
			if (im2)
				sem_truth_free(&t2);
			fs_image_free(im2);
		}
	}

	/* the rule's formation fit at the true centres: the start */
	fs_dome_fit_opts fo;
	fs_dome_fit_opts_default(&fo);
	fo.no_sigma = 1;
	fs_dome_fit rf;
	char err[256];
	double rule[NPAR] = {0};
	int have_rule = 0;
	rule[P_JIT] = 0.04; /* the scatter's starts (below) */
	rule[P_RT] = 0.04;
	rule[P_RL] = 0.07;
	if (!fs_dome_fit_image(img, xs, ys, (size_t)n, t.pitch, &fo, &rf, err, sizeof err)) {
		have_rule = 1;
		rule[P_FILL] = rf.fill;
		rule[P_HR] = rf.h_over_r;
		rule[P_PROF] = rf.profile;
		rule[P_SIG] = rf.blur_px;
		rule[P_EL] = rf.elevation > 0 ? rf.elevation : 60 * M_PI / 180;
		rule[P_SX] = rf.offset_x;
		rule[P_SY] = rf.offset_y;
		g_az = rf.azimuth;
	} else {
		printf("%d: the rule's formation fit failed: %s\n", k, err);
	}
	m->angle = have_rule ? rf.angle : o.angle;
	printf("scene %d (%s fill %.2f h/R %.2f %s az %d, seed +%u): %d domes, %d bins, true fill %.4f (D %.2f px), "
	       "floor chi2/bin %.3f\n",
	       k, o.profile > 1 ? "flat" : "sph", o.fill, o.h_over_r, o.halftone > 0 ? "screen" : "clean",
	       (int)lround(o.det_azimuth * 180 / M_PI), seed_add, n, pt->nbins, true_fill, mean_d,
	       floor_chi / pt->nbins);
	for (int i = 0; i < g_nsets; i++)
		printf("%s%s%s", i ? " " : "    set: ", g_sets[i], i == g_nsets - 1 ? "\n" : "");
	{
		/* the patch's chi^2 about a constant: its signal plus the
		 * noise. A feature switched off changes the operator's
		 * contrast and so the noise against the domes' signal; "x
		 * floor" moves with that, (fit - floor) / (this - floor), the
		 * share of the signal the model leaves unexplained, does not
		 * (h40a) */
		const float *col1[1] = {NULL};
		printf("    signal: chi2/bin about a constant %.3f", solve_lin(pt->mean, pt->w, col1, 1, NULL, NULL) / pt->nbins);
		/* What a perfect model of the MEAN dome would score: the
		 * patches of the even and the odd domes differ only by the
		 * noise and by each dome's own variation (jitters, roughness,
		 * undulation, drift), which the floor - the noisy image against
		 * its noise-free self, pixel for pixel - leaves out but every
		 * mean-dome model meets; their chi^2 per bin is the level a
		 * fit can reach, the floor's
		 * 1 / (floor chi2/bin) times over when that variation
		 * dominates (h40a) */
		patch *ph[2] = {malloc(sizeof(patch)), malloc(sizeof(patch))};
		double *hx = malloc((n + 1) * sizeof *hx), *hy = malloc((n + 1) * sizeof *hy);
		if (ph[0] && ph[1] && hx && hy) {
			for (int h = 0; h < 2; h++) {
				int m = 0;
				for (int j = h; j < n; j += 2) {
					hx[m] = xs[j];
					hy[m++] = ys[j];
				}
				build_patch(fit_img, hx, hy, m, ph[h]);
			}
			double chi = 0;
			int nb = 0;
			/* each half holds about half the bin's pixels: the
			 * difference's variance 4 / w of the whole patch's weight,
			 * the weight the fits use (a half's own scatter from a
			 * handful of pixels would inflate it) */
			for (int b = 0; b < NB * NB; b++)
				if (pt->w[b] > 0 && ph[0]->w[b] > 0 && ph[1]->w[b] > 0) {
					double d = ph[0]->mean[b] - ph[1]->mean[b];
					chi += d * d * pt->w[b] / 4;
					nb++;
				}
			printf("; split halves chi2/bin %.3f (%d bins)", nb ? chi / nb : 0, nb);
		}
		printf("\n");
		free(ph[0]);
		free(ph[1]);
		free(hx);
		free(hy);
	}
	if (have_rule)
		printf("    rule's fit: D %+6.2f %%  h/R %.2f prof %.1f blur %.3f px el %.0f off %+.2f,%+.2f (R^2 %.4f)\n",
		       100 * (rf.fill - true_fill) / true_fill, rf.h_over_r, rf.profile, rf.blur_px,
		       rf.elevation * 180 / M_PI, rf.offset_x, rf.offset_y, rf.quality);
	double best[NPAR], ends[9][NPAR];
	double best_chi = INFINITY, best_az = g_az;
	int nends = 0;
	clock_t t0 = clock();
	long ev0 = m->evals;
	int nstarts = 0;
	for (int s = 0; s < 3 + 6; s++) {
		if (s < 3 && !(starts & (1u << s)))
			continue;
		if (s >= 3 && (!grid || !have_rule))
			continue;
		double p[NPAR], st[NPAR];
		if (s >= 3) {
			/* a grid of shapes from the rule's fill: whether a
			 * lower minimum lies elsewhere (search) */
			static const double GP[3] = {0, 1, 2}, GH[2] = {0.3, 1.0};
			p[P_FILL] = rule[P_FILL];
			p[P_PROF] = GP[(s - 3) / 2];
			p[P_HR] = GH[(s - 3) % 2];
			p[P_SIG] = 0.9;
			p[P_EL] = 35 * M_PI / 180;
			p[P_SX] = p[P_SY] = 0;
			g_az = rf.azimuth;
		} else if (s == 0 || s == 2) {
			if (!have_rule)
				continue;
			memcpy(p, rule, sizeof p);
			if (s == 2)
				p[P_FILL] = true_fill;
		} else {
			/* the simulator's own values in the rule's terms */
			p[P_FILL] = true_fill;
			p[P_HR] = o.h_over_r;
			p[P_PROF] = o.profile;
			p[P_SIG] = o.beam_blur;
			p[P_EL] = o.det_elevation;
			p[P_SX] = p[P_SY] = 0;
			g_az = o.det_azimuth;
		}
		/* the mean patch's scatter: started at the simulator's
		 * defaults' order (radius SD 4 %; slope and Laplacian SD of
		 * 0.05 px of roughness smoothed over 1 px), never at 0, where
		 * a symmetric spread has no slope to start from */
		p[P_JIT] = 0.04;
		p[P_RT] = 0.04;
		p[P_RL] = 0.07;
		clampp(p);
		memcpy(st, p, sizeof st);
		double c0 = eval(m, pt, p, NULL, NULL);
		int it = 0;
		double chi = lm(m, pt, p, &it);
		static const char *SN[9] = {"rule", "truth", "rule@D", "g s.3", "g s1", "g p.3", "g p1", "g f.3", "g f1"};
		nstarts++;
		printf("    start %-6s chi2/bin %.3f\n", SN[s], c0 / pt->nbins);
		print_fit(SN[s], m, pt, p, chi, floor_chi, true_fill, it, st);
		memcpy(ends[nends++], p, sizeof p);
		if (chi < best_chi) {
			best_chi = chi;
			best_az = g_az;
			memcpy(best, p, sizeof best);
		}
	}
	double cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
	if (isfinite(best_chi)) {
		print_fit("BEST", m, pt, best, best_chi, floor_chi, true_fill, 0, have_rule ? rule : NULL);
		printf("    cost: %d starts, %ld renders, %.2f s CPU (%.1f ms a render)\n", nstarts, m->evals - ev0, cpu,
		       1000 * cpu / (double)(m->evals - ev0 > 0 ? m->evals - ev0 : 1));
		if (g_rings && floor_chi > 0)
			print_rings(m, pt, best, floor_chi, 0.5 * mean_d);
	}
	if (clean && isfinite(best_chi)) {
		/* the model's bias with no noise: the clean patch from the
		 * best noisy fit */
		double p[NPAR], st[NPAR];
		memcpy(p, best, sizeof p);
		memcpy(st, p, sizeof st);
		int it = 0;
		double chi = lm(m, pc, p, &it);
		print_fit("clean", m, pc, p, chi, 0, true_fill, it, st);
	}
	if (g_resid && clean && isfinite(best_chi)) {
		/* at the azimuth BEST's shadow was cast from */
		double az_now = g_az;
		g_az = best_az;
		print_resid(m, pt, pc, best, o.det_azimuth, mean_d / 2);
		g_az = az_now;
	}
	if (profile_d && isfinite(best_chi)) {
		/* chi^2 with D held at the truth x (1 + e), the rest refitted
		 * from BEST: how wide the model's valley in D is against the
		 * noise (the floor says what one unit of chi^2/bin is) */
		static const double E[] = {-0.10, -0.06, -0.03, 0, 0.03, 0.06, 0.10};
		printf("    chi2 - BEST's, in noise units (x bins / floor), D held at truth +:");
		g_hold_fill = 1;
		for (size_t i = 0; i < sizeof E / sizeof E[0]; i++) {
			/* from every start's end, the fill replaced: one LM from
			 * BEST alone stops in the surface's local minima */
			double lo = INFINITY;
			for (int e = 0; e < nends; e++) {
				double p[NPAR];
				memcpy(p, ends[e], sizeof p);
				p[P_FILL] = true_fill * (1 + E[i]);
				int it = 0;
				double chi = lm(m, pt, p, &it);
				if (chi < lo)
					lo = chi;
			}
			printf(" %+.0f%%: %.0f", 100 * E[i], floor_chi > 0 ? (lo - best_chi) / (floor_chi / pt->nbins) : lo - best_chi);
		}
		g_hold_fill = 0;
		printf("\n");
	}
	printf("    (%ld renders)\n", m->evals);
	fflush(stdout);
	rc = 0;
done:
	if (m)
		fs_se_field_free(&m->f);
	free(m);
	free(pt);
	free(pc);
	free(xs);
	free(ys);
	sem_truth_free(&t);
	if (imc)
		sem_truth_free(&tc);
	fs_image_free(img);
	fs_image_free(lpi);
	fs_image_free(imc);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned seed_add = 0, starts = 7;
	int clean = 1, grid = 1, lowpass = 1, profile_d = 0, scenes[64], ns = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed-add") && i + 1 < argc)
			seed_add = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--starts") && i + 1 < argc) {
			/* a comma-separated list of rule, truth, ruleD */
			char buf[64];
			snprintf(buf, sizeof buf, "%s", argv[++i]);
			starts = 0;
			for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","))
				starts |= !strcmp(tok, "rule") ? 1u : !strcmp(tok, "truth") ? 2u : !strcmp(tok, "ruleD") ? 4u : 0u;
		} else if (!strcmp(argv[i], "--no-clean"))
			clean = 0;
		else if (!strcmp(argv[i], "--no-grid"))
			grid = 0;
		else if (!strcmp(argv[i], "--no-lowpass"))
			lowpass = 0;
		else if (!strcmp(argv[i], "--profile-d"))
			profile_d = 1;
		else if (!strcmp(argv[i], "--rings"))
			g_rings = 1;
		else if (!strcmp(argv[i], "--model") && i + 1 < argc) {
			/* h40c's mean-dome models (MK: SE_MEAN_* kinds, -1
			 * se_render) and h40b's physical parts (MP: bit 1 the
			 * edge per image px, bit 2 the shadow as a product) */
			static const char *MN[] = {"old",   "base",    "jitter", "rough",   "pixel",
						   "meanall", "edgepx", "shadowx", "both"};
			static const int MK[] = {-1, 0, SE_MEAN_JITTER, SE_MEAN_ROUGH, SE_MEAN_PIXEL,
						 SE_MEAN_JITTER | SE_MEAN_ROUGH | SE_MEAN_PIXEL, -1, -1, -1};
			static const int MP[] = {0, 0, 0, 0, 0, 0, 1, 2, 3};
			const char *nm = argv[++i];
			int found = 0;
			for (int j = 0; j < 9; j++)
				if (!strcmp(nm, MN[j])) {
					g_model = MK[j];
					g_phys = MP[j];
					found = 1;
				}
			if (!found) {
				fprintf(stderr, "--model: old, base, jitter, rough, pixel, meanall, edgepx, shadowx or both\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--fine") && i + 1 < argc)
			g_mean.fine = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--lattice-blur"))
			g_lattice_blur = 1;
		else if (!strcmp(argv[i], "--edge-cap") && i + 1 < argc)
			g_edge_cap = atof(argv[++i]);
		else if (!strcmp(argv[i], "--bg") && i + 1 < argc)
			g_bg = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--resid"))
			g_resid = 1;
		else if ((!strcmp(argv[i], "--set") || !strcmp(argv[i], "--sim")) && i + 1 < argc) {
			sem_opts probe;
			sem_defaults(&probe);
			if (g_nsets == NSETS_MAX || sem_opts_set_key(&probe, argv[i + 1])) {
				fprintf(stderr, "--set %s: no such key (sem_opts_keys.h) or too many\n", argv[i + 1]);
				return 2;
			}
			g_sets[g_nsets++] = argv[++i];
		} else if (ns < 64)
			scenes[ns++] = atoi(argv[i]);
	}
	if (!ns) {
		/* A: 4-px flat tops; E: 4-px spheres; B2: fill 0.8 under a
		 * 5-px screen (docs/paper-figures.md, h37e) */
		static const int def[24] = {2, 6, 10, 14, 18, 22, 26, 30, 0,  4,  8,  12,
					    16, 20, 24, 28, 9, 11, 13, 15, 25, 27, 29, 31};
		for (int i = 0; i < 24; i++)
			scenes[ns++] = def[i];
	}
	if (!g_mean.fine)
		g_mean.fine = 2;
	if (g_lattice_blur && g_model >= 0) {
		/* se_mean_components blurs its components itself, with the
		 * model's Gaussian: the staircase is blur_shift's only */
		fprintf(stderr, "--lattice-blur: only with the se_render models (old)\n");
		return 2;
	}
	if (g_bg)
		printf("background: %s of the offset\n", g_bg >= 2 ? "a quadric" : "a plane");
	if (g_phys)
		printf("model: %s%s%s (edge clip %.2f px^-1)\n", g_phys & 1 ? "edge per image px" : "",
		       g_phys == 3 ? " + " : "", g_phys & 2 ? "shadow x whole signal" : "", g_edge_cap);
	for (int i = 0; i < ns; i++)
		run_scene(scenes[i], seed_add, starts, clean, grid, lowpass, profile_d);
	se_mean_free(&g_mean);
	return 0;
}
