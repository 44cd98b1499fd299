/*
 * bench_foot_support - whether a smooth-footed dome's image carries its
 * support (issue 13 §§ 1 and 4; docs/paper-figures.md, h39e). Asserts
 * nothing.
 *
 * Why: test_sem_smooth's 48 cos^2 scenes fail under both rules (mean |D|
 * error 33-38 %), and the simulator's truth there is the support, where
 * the height reaches the ground with the ground's slope (sem_surface.h).
 * Before a rule is asked to read it, this measures whether the image
 * holds it at all: at the TRUE centres, with the noise measured, and with
 * a forward model whose foot shape is free.
 *
 * Per scene (sem_smooth_scene, seeds + SEED_ADD):
 * - the image as the tests see it and the same scene without noise
 *   (dose 0, no quantisation: the draws before the noise are the same, so
 *   the same surface, gain and screen);
 * - per counted dome, each pixel within 1.6 R + 6 px of its true centre
 *   that no other dome's support + 2 px covers, binned by radius (0.5
 *   px); per bin the least-squares fit v = a0 + a1 cos psi + b1 sin psi
 *   (psi the angle from the detector's azimuth): a0 the azimuthal mean,
 *   a1 the first harmonic along the detector - the side detector's term,
 *   first order in the slope where the mean's terms are second order.
 *   The scene-mean profile pools the normal equations of every dome; its
 *   standard error per bin is the jackknife over domes (noise, screen,
 *   roughness, undulation and radius jitter together), and the per-pixel
 *   noise (noisy minus noise-free) gives the bare noise's share;
 * - the signal: a0 minus the ground (pixels at least 3 px beyond every
 *   support) and a1, both from the noise-free image; the detectable foot
 *   at k = 2, 3: outward from the a1 lobe's peak, where the signal first
 *   falls below k standard errors (of the scene mean; "dome": of one
 *   dome's profile, the jackknife SE times sqrt(n));
 * - the a1 lobe's 50 % and 15 % levels outward from its peak;
 * - both rules' detections scored (mean D error %, sem_score.h);
 * - the foot model: height H R cos^(2p)(pi r / 2R) (p = 1 the simulator's
 *   cos^2, p = 1/2 a sharp foot with a slope at the base, p > 1 flatter
 *   feet) in the simulator's own formation at its true values (secant
 *   law, side detector, the dome's own and cast shadow, the edge term
 *   averaged over the roughness's Laplacian - its clamp makes the concave
 *   foot a dark ring), blurred by the beam (and the scan blur under a
 *   screen, the screen taken as linear), the radius jitter averaged over;
 *   gain and ground free; fitted over the outer flank (the lobe's peak to
 *   2.6 times its radius), weighted by the bins' standard errors. Three
 *   fits: R and p free (R over 0.35-1.45 of twice the lobe's peak radius
 *   in 0.5 % steps, p over 0.5-3.0 in 0.1), p held at 1, and (--loose)
 *   R, p, the blur and h/R all free (1 % steps, p by 0.25, blur and h/R
 *   over 0.6-1.4 of the true ones by 0.2). R's spread by the jackknife
 *   over domes (every replicate refitted over the same models).
 * Usage: bench_foot_support [--seed-add N] [--no-rules] [--loose]
 *        [--rule-centres] [--scenes a,b,..] [--profile K]
 *   --corner: the 64 corner scenes (sharp feet) instead of the smooth set
 *   (the fit's p is then the question: sharp feet should take p = 0.5);
 *   --rule-centres: the profiles about the dome rule's own centres (each
 *   counted dome's matched detection), the masks still the true
 *   supports; --centre-shift F / --centre-jitter F: the true centres
 *   moved F R towards the detector / scattered by F R (Gaussian, per
 *   axis); --profile K prints scene K's mean profile bin by bin.
 *   --free: also the formation-free fit below (Voronoi masks, azimuth
 *   from the image), to check on scenes with a known support what
 *   --paper reads on the figures; --cap C [--cap-power P] gives the
 *   scenes a bright cap (sem_opts.cap) as the figures show.
 * --paper [FILTER] (h40h): the published figures (paper_figs.h), no
 * truth: both rules' fills and centres (test_paper_images' way), and at
 * each rule's centres the formation-free foot fit - the cos^(2p) foot
 * with R, p and the blur on grids and every amplitude fitted (the mean's
 * shapes h'^2, the convexity's two signs and the height with amplitudes
 * >= 0, the side detector's -h'), fitted from the centre to 0.5 pitch -
 * without and with a common shift searched by chi^2, with p free and
 * held at 1, and the model-free detectable foot (where the mean's excess
 * falls below 2 / 3 SE); then the supports' absolute sizes with one pixel
 * size a paper and each reading's correlation with the published fills.
 * --paper-profile FILTER prints the figures' mean profiles too.
 * Cost: about 1 s of CPU a scene with renders cached (6 s with --loose),
 * plus the two rules' detections (1-3 s a scene); --free 5-15 s a scene;
 * --paper about 40 s of CPU a figure (both rules' detections and fits).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/graph.h"
#include "analysis/metrics.h"
#include "analysis/preprocess.h"
#include "analysis/scale_region.h"
#include "bench_support.h"
#include "image/image_io.h"
#include "paper_figs.h"
#include "sem_cache.h"
#include "sem_score.h"
#include "sem_sim.h"
#include "test_rng.h"

#define BW 0.5       /* radial bin, px */
#define MASK_PAD 2.0 /* another dome's support + this is left out, px */
#define GROUND_PAD 3.0
#define NP 26 /* p = 0.5 .. 3.0 */
#define NR 151 /* R = 0.70 .. 1.45 of twice the lobe's peak radius */
#define DR 0.05 /* the model's radial step, px */

/* Per dome and bin: the normal equations of v = a0 + a1 c + b1 s. */
typedef struct acc {
	double n, c, s, cc, ss, cs, rsum;
	double v, vc, vs;    /* noisy */
	double w, wc, wss;   /* noise-free (w, w c, w s) */
} acc;

static void acc_add(acc *d, const acc *a, double sign)
{
	d->n += sign * a->n;
	d->c += sign * a->c;
	d->s += sign * a->s;
	d->cc += sign * a->cc;
	d->ss += sign * a->ss;
	d->cs += sign * a->cs;
	d->rsum += sign * a->rsum;
	d->v += sign * a->v;
	d->vc += sign * a->vc;
	d->vs += sign * a->vs;
	d->w += sign * a->w;
	d->wc += sign * a->wc;
	d->wss += sign * a->wss;
}

/* Adds one pixel's noisy value v at radius r and angle (cos, sin) = (c, s)
 * to its bin's sums (the noise-free sums are the caller's). */
static void acc_pixel(acc *b, double r, double c, double s, double v)
{
	b->n += 1;
	b->c += c;
	b->s += s;
	b->cc += c * c;
	b->ss += s * s;
	b->cs += c * s;
	b->rsum += r;
	b->v += v;
	b->vc += v * c;
	b->vs += v * s;
}

/* Solves the bin's 3 x 3 system for (a0, a1) of the noisy (clean = 0) or
 * noise-free values; 0, -1 when the ring's angles do not determine it. */
static int acc_solve(const acc *a, int clean, double *a0, double *a1)
{
	double M[3][3] = {{a->n, a->c, a->s}, {a->c, a->cc, a->cs}, {a->s, a->cs, a->ss}};
	double b[3] = {clean ? a->w : a->v, clean ? a->wc : a->vc, clean ? a->wss : a->vs};
	double det = M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
		     M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);
	if (a->n < 6 || !(fabs(det) > 1e-9 * a->n * a->n * a->n))
		return -1;
	double d0 = b[0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) - M[0][1] * (b[1] * M[2][2] - M[1][2] * b[2]) +
		    M[0][2] * (b[1] * M[2][1] - M[1][1] * b[2]);
	double d1 = M[0][0] * (b[1] * M[2][2] - M[1][2] * b[2]) - b[0] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
		    M[0][2] * (M[1][0] * b[2] - b[1] * M[2][0]);
	*a0 = d0 / det;
	*a1 = d1 / det;
	return 0;
}

/* Bin j's jackknife over the nu domes (A per dome and bin, T their sum):
 * the SEs of (a0, a1) into E0[j], E1[j]. Returns the replicates that
 * solved; below 3 E0[j], E1[j] are left as they were. jk0, jk1: nu
 * doubles of scratch. */
static int acc_jackknife(const acc *A, const acc *T, int j, int nu, int nb, double *jk0, double *jk1, double *E0,
			 double *E1)
{
	int m = 0;
	double m0 = 0, m1 = 0;
	for (int d = 0; d < nu; d++) {
		acc L = T[j];
		acc_add(&L, &A[(size_t)d * nb + j], -1);
		if (acc_solve(&L, 0, &jk0[m], &jk1[m]))
			continue;
		m0 += jk0[m];
		m1 += jk1[m];
		m++;
	}
	if (m < 3)
		return m;
	m0 /= m;
	m1 /= m;
	double v0 = 0, v1 = 0;
	for (int d = 0; d < m; d++) {
		v0 += (jk0[d] - m0) * (jk0[d] - m0);
		v1 += (jk1[d] - m1) * (jk1[d] - m1);
	}
	E0[j] = sqrt((m - 1.0) / m * v0);
	E1[j] = sqrt((m - 1.0) / m * v1);
	return m;
}

/* Two uniforms in [0, 1) from the xorshift64* state st (advanced). */
static void xs_uniform2(uint64_t *st, double u[2])
{
	for (int h = 0; h < 2; h++)
		u[h] = test_xs64_unit(st);
}

/* e^-x I_m(x) for x >= 0, m = 0 or 1 (Abramowitz & Stegun 9.8.1-9.8.4,
 * relative error below 2e-7): the 2-D Gaussian blur of a ring's m-th
 * harmonic is a 1-D integral with this kernel. */
static double bessel_i_scaled(int m, double x)
{
	if (x < 3.75) {
		double t = x / 3.75, t2 = t * t, v;
		if (m == 0)
			v = 1 + t2 * (3.5156229 + t2 * (3.0899424 + t2 * (1.2067492 + t2 * (0.2659732 + t2 * (0.0360768 + t2 * 0.0045813)))));
		else
			v = x * (0.5 + t2 * (0.87890594 + t2 * (0.51498869 + t2 * (0.15084934 + t2 * (0.02658733 + t2 * (0.00301532 + t2 * 0.00032411))))));
		return v * exp(-x);
	}
	double q = 3.75 / x, v;
	if (m == 0)
		v = 0.39894228 + q * (0.01328592 + q * (0.00225319 + q * (-0.00157565 + q * (0.00916281 + q * (-0.02057706 + q * (0.02635537 + q * (-0.01647633 + q * 0.00392377)))))));
	else
		v = 0.39894228 + q * (-0.03988024 + q * (-0.00362018 + q * (0.00163801 + q * (-0.01031555 + q * (0.02282967 + q * (-0.02895312 + q * (0.01787654 - q * 0.00420059)))))));
	return v / sqrt(x);
}

/* The unblurred model's two harmonics at radius r of a dome of support R
 * and foot exponent p (height H R cos^(2p)(pi r / 2R)), the simulator's
 * signal (sem_surface.c, signal_parts) without shadow: m0 the azimuthal
 * mean minus the ground's 1, m1 the cos psi coefficient. The side
 * detector's factor never reaches its 0.05 floor for these slopes, so the
 * signal is linear in cos psi and both harmonics are exact. */
/* E[max(0, Y)] for Y ~ N(m, s^2): the edge term's clamp averaged over
 * the roughness's Laplacian. */
static double clamp_mean(double m, double s)
{
	if (!(s > 0))
		return fmax(0, m);
	double z = m / s;
	return m * 0.5 * erfc(-z / M_SQRT2) + s * exp(-0.5 * z * z) / sqrt(2 * M_PI);
}

/* The SD of the roughness's Laplacian as sem_sim.c makes it (white noise
 * blurred by 1 px, scaled to SD `roughness`, the 5-point Laplacian), by
 * the same recipe on a 256 x 256 field of this bench's own noise. Why:
 * the edge term clamps the convexity at 0, so on open ground the
 * roughness brightens by edge x E[max(0, -lap)], and a concave foot
 * (lap > 0) removes that: a dark ring at the foot that the azimuthal
 * mean carries (seen in --profile), which a model without it misreads. */
static double rough_lap_sd(double roughness)
{
	int n = 256;
	fs_image *r = fs_image_new(n, n);
	char err[128];
	if (!r)
		return 0;
	uint64_t st = 0x243F6A8885A308D3ULL;
	for (int q = 0; q < n * n; q += 2) {
		double u[2];
		xs_uniform2(&st, u);
		double a = sqrt(-2 * log(fmax(u[0], 1e-300))), b = 2 * M_PI * u[1];
		r->data[q] = (float)(a * cos(b));
		r->data[q + 1] = (float)(a * sin(b));
	}
	double s = 0, s2 = 0, m = 0;
	if (!fs_gaussian_blur(r, 1.0, err, sizeof err)) {
		double rs = roughness * 2 * sqrt(M_PI);
		for (int y = 8; y < n - 8; y++)
			for (int x = 8; x < n - 8; x++) {
				const float *c = r->data + (size_t)y * n + x;
				double l = rs * (c[-1] + c[1] + c[-n] + c[n] - 4.0 * c[0]);
				s += l;
				s2 += l * l;
				m++;
			}
	}
	fs_image_free(r);
	return m > 1 ? sqrt(fmax(0, (s2 - s * s / m) / (m - 1))) : 0;
}

static double g_rough_lap; /* rough_lap_sd of the scene's roughness */

/* The dome's own shadow (sem_surface.c: a point is shadowed when the
 * path towards the detector passes under a dome; there the yield times
 * 1 - shadow, the edge term not): per foot exponent, on a grid of u = r /
 * R, the azimuthal means of sh, sh cos psi and sh cos^2 psi. The profile
 * is scale-free (height / R a function of u), so one table serves every
 * R. Why: the h/R 0.5 domes' slope (0.79 at the steepest) passes
 * tan 35 degrees, and a model without their shadow misfits them. */
#define SH_DU 0.005
#define SH_NU 321 /* u 0 .. 1.6 */
#define SH_NA 64
typedef struct shadow_tab {
	double t0[SH_NU], t1[SH_NU], t2[SH_NU];
} shadow_tab;

static double prof_h(double H, double p, double u)
{
	if (u >= 1)
		return 0;
	return H * pow(cos(M_PI * u / 2), 2 * p);
}

static void shadow_table(const sem_opts *o, double p, shadow_tab *tb)
{
	double H = o->h_over_r, te = tan(o->det_elevation);
	memset(tb, 0, sizeof *tb);
	/* no path climbs faster than the steepest slope: below te, no shadow */
	double smax = 0;
	for (int i = 1; i < 1000; i++)
		smax = fmax(smax, (prof_h(H, p, (i - 1) / 1000.0) - prof_h(H, p, i / 1000.0)) * 1000);
	if (smax < te)
		return;
	/* the profile tabulated (0.001 steps) for the marches */
	double ht[1002];
	for (int i = 0; i < 1002; i++)
		ht[i] = prof_h(H, p, i / 1000.0);
	for (int iu = 0; iu < SH_NU; iu++) {
		double u = iu * SH_DU, a0 = 0, a1 = 0, a2 = 0;
		for (int ia = 0; ia < SH_NA; ia++) {
			double ps = 2 * M_PI * (ia + 0.5) / SH_NA, c = cos(ps), x = u * c, y = u * sin(ps);
			double z0 = u < 1 ? ht[(int)(u * 1000)] + (u * 1000 - (int)(u * 1000)) *
								    (ht[(int)(u * 1000) + 1] - ht[(int)(u * 1000)])
					  : 0;
			int sh = 0;
			/* march towards the detector (+x) until past the dome */
			for (double t = 0.004; !sh && x + t < 1.0 + 1e-9; t += 0.004) {
				double q = hypot(x + t, y);
				if (q < 1) {
					double f = q * 1000;
					int i = (int)f;
					if (ht[i] + (f - i) * (ht[i + 1] - ht[i]) > z0 + t * te)
						sh = 1;
				}
			}
			a0 += sh;
			a1 += sh * c;
			a2 += sh * c * c;
		}
		tb->t0[iu] = a0 / SH_NA;
		tb->t1[iu] = a1 / SH_NA;
		tb->t2[iu] = a2 / SH_NA;
	}
}

static double tab_at(const double *t, double u)
{
	double x = u / SH_DU;
	if (x >= SH_NU - 1)
		return t[SH_NU - 1];
	int i = (int)x;
	return t[i] + (x - i) * (t[i + 1] - t[i]);
}

/* The blurless model's two harmonics at radius r of a dome of support R
 * and foot exponent p (height H R cos^(2p)(pi r / 2R)), the simulator's
 * signal (sem_surface.c, signal_parts): m0 the azimuthal mean minus the
 * open ground's, m1 the cos psi coefficient. The side detector's factor
 * never reaches its 0.05 floor at these slopes, so the unshadowed signal
 * is A + B cos psi and the shadow enters through tb's three means. */
static void model_harm(const sem_opts *o, const shadow_tab *tb, double R, double p, double r, double *m0,
		       double *m1)
{
	*m0 = *m1 = 0;
	double u = r / R, sT0 = 0, sT1 = 0, sT2 = 0;
	if (tb && o->shadow > 0) {
		sT0 = o->shadow * tab_at(tb->t0, u);
		sT1 = o->shadow * tab_at(tb->t1, u);
		sT2 = o->shadow * tab_at(tb->t2, u);
	}
	if (r >= R) { /* open ground, a cast shadow on it */
		*m0 = -sT0;
		*m1 = -2 * sT1;
		return;
	}
	double H = o->h_over_r, th = M_PI * u / 2, c = cos(th), s = sin(th);
	double g, h2, gr; /* h', h'', h' / r */
	if (c < 1e-9) {
		g = 0;
		h2 = 0;
	} else {
		g = -H * p * M_PI * pow(c, 2 * p - 1) * s;
		h2 = -H * p * M_PI * M_PI / (2 * R) * (pow(c, 2 * p) - (2 * p - 1) * pow(c, 2 * p - 2) * s * s);
	}
	gr = r > 1e-9 ? g / r : -H * p * M_PI * M_PI / (2 * R);
	double sec = sqrt(1 + g * g), ys = sec > 6 ? 6 : sec;
	double yield = o->secant_n == 1 ? ys : pow(ys, o->secant_n);
	double ce = cos(o->det_elevation), se = sin(o->det_elevation), k = o->det_strength;
	/* the edge term's clamp over the roughness (rough_lap_sd), minus the
	 * open ground's; the 1.5 cap is never near on these domes */
	double conv = clamp_mean(-(h2 + gr), g_rough_lap) - clamp_mean(0, g_rough_lap);
	double A = yield * (1 + k * (se / sec - se)), B = yield * k * (-g * ce) / sec;
	*m0 = A - 1 - (A * sT0 + B * sT1) + o->edge * conv;
	*m1 = B - 2 * (A * sT1 + B * sT2);
}

/* A fit's grids: R over r0 + i dr of twice the lobe's peak radius (nr
 * steps), p over p0 + i dp (np), the blur over s0 + i ds of the true
 * one (ns) and h/R over h0 + i dh of the true one (nh). */
typedef struct fit_grid {
	int nr;
	double r0, dr;
	int np;
	double p0, dp;
	int ns;
	double s0, ds;
	int nh;
	double h0, dh;
} fit_grid;

typedef struct fit_out {
	double R, p, s, h, chi, sdR;
} fit_out;

typedef struct scene_out {
	double Rt, sig_pix, ground;
	double foot[2][3]; /* [scene mean, one dome][k = 2, 3, and the mean term alone at 3] */
	double r50, r15, rpk;
	double d_out, d_dome;
	fit_out fit[3]; /* p free, p = 1, blur and h/R free too */
	double c_along, c_rms; /* the rule's centres: mean offset towards the detector, RMS, px */
	int n;
} scene_out;

/* The detectable foot: outward from bin j0, the first r where |sig|
 * falls below kk * se and stays below over the next 2 px (so that a zero
 * crossing of the azimuthal mean - its bright flank to its dark foot - is
 * not taken for the end), linear between bins; rlim when the signal
 * stays above up to rlim (the search's end, 1.5 R: beyond it the
 * neighbours' feet). */
static double first_below(const double *rc, const double *sig, const double *se, const int *ok, int nb, int j0,
			  double kk, double rlim)
{
	int prev = -1;
	for (int j = j0; j < nb && rc[j] <= rlim; j++) {
		if (!ok[j])
			continue;
		double e = fabs(sig[j]) - kk * se[j];
		if (e < 0) {
			int stays = 1;
			for (int q = j + 1; q < nb && rc[q] <= rc[j] + 2; q++)
				if (ok[q] && fabs(sig[q]) >= kk * se[q])
					stays = 0;
			if (stays) {
				if (prev < 0)
					return rc[j];
				double ep = fabs(sig[prev]) - kk * se[prev];
				return rc[prev] + (rc[j] - rc[prev]) * ep / (ep - e);
			}
		}
		prev = j;
	}
	return rlim;
}

/* The foot model fitted to the scene-mean profile's bins jp .. 2.6 x the
 * peak's radius (where at least a quarter of the ring is open): data
 * (a0, a1) = (c + g m0, g m1), c and g by weighted least squares per grid
 * point (weights the full set's jackknife SEs E0, E1), the grid point of
 * least chi^2, R refined between steps by the parabola through the
 * profile chi^2 (min over the rest); R's SD by the jackknife over domes
 * (each replicate refitted over the same models). */
static int fit_foot(const sem_opts *o, const fit_grid *G, const acc *T, const acc *A, int nb, int nc,
		    const double *rc, const int *ok, const double *E0, const double *E1, int jp, fit_out *fo)
{
	fo->R = fo->p = fo->s = fo->h = fo->chi = fo->sdR = NAN;
	double sig0 = sqrt(o->beam_blur * o->beam_blur + (o->halftone > 0 ? o->scan_blur * o->scan_blur : 0));
	double R0 = 2 * rc[jp];
	int jlo = jp, jhi = jp;
	for (int j = jp; j < nb; j++)
		if (ok[j] && rc[j] <= 2.6 * rc[jp] && T[j].n >= 0.25 * nc * 2 * M_PI * rc[j] * BW)
			jhi = j;
	int nf = jhi - jlo + 1;
	double Rmax = (G->r0 + G->dr * (G->nr - 1)) * R0 * 1.6; /* u to 1.6: the cast shadows' tables */
	int nr = (int)(Rmax / DR) + 2;
	size_t nmod = (size_t)G->nr * G->np * G->ns * G->nh;
	double *K0 = malloc((size_t)nf * nr * sizeof *K0), *K1 = malloc((size_t)nf * nr * sizeof *K1);
	double *mod = malloc(nmod * nf * 2 * sizeof *mod);
	double *h0 = malloc((size_t)nr * sizeof *h0), *h1 = malloc((size_t)nr * sizeof *h1);
	double *best = malloc(((size_t)nc + 1) * sizeof *best), *chiR = malloc((size_t)G->nr * sizeof *chiR);
	double *y0 = malloc((size_t)nf * sizeof *y0), *y1 = malloc((size_t)nf * sizeof *y1);
	shadow_tab *tab = malloc(sizeof *tab);
	int rc_ = -1;
	if (!K0 || !K1 || !mod || !h0 || !h1 || !best || !chiR || !y0 || !y1 || !tab)
		goto out;
	/* the radius jitter (its clipping aside) by three-point Gauss-Hermite:
	 * R (1 + z sd), z 0, +-sqrt 3, weights 2/3, 1/6, 1/6 */
	static const double gz[3] = {0, 1.7320508075688772, -1.7320508075688772}, gw[3] = {2.0 / 3, 1.0 / 6, 1.0 / 6};
	for (int is = 0; is < G->ns; is++) {
		double sig = sig0 * (G->s0 + G->ds * is);
		/* the 2-D Gaussian blur of a ring's harmonic m: the kernel
		 * (r' / s^2) e^(-(r - r')^2 / 2 s^2) e^(-x) I_m(x), x = r r' / s^2 */
		for (int f = 0; f < nf; f++) {
			double r = rc[jlo + f];
			for (int q = 0; q < nr; q++) {
				double rp = q * DR, wq = (q == 0 ? 0.5 : 1) * DR;
				double x = r * rp / (sig * sig), ga = exp(-(r - rp) * (r - rp) / (2 * sig * sig));
				K0[(size_t)f * nr + q] = wq * rp / (sig * sig) * ga * bessel_i_scaled(0, x);
				K1[(size_t)f * nr + q] = wq * rp / (sig * sig) * ga * bessel_i_scaled(1, x);
			}
		}
		for (int ih = 0; ih < G->nh; ih++) {
			sem_opts oo = *o;
			oo.h_over_r = o->h_over_r * (G->h0 + G->dh * ih);
			for (int ip = 0; ip < G->np; ip++) {
				double p = G->p0 + G->dp * ip;
				shadow_table(&oo, p, tab);
				for (int ir = 0; ir < G->nr; ir++) {
					double R = R0 * (G->r0 + G->dr * ir);
					for (int q = 0; q < nr; q++) {
						h0[q] = h1[q] = 0;
						for (int g = 0; g < 3; g++) {
							double a, b;
							model_harm(&oo, tab, R * (1 + gz[g] * o->radius_jitter), p, q * DR, &a,
								   &b);
							h0[q] += gw[g] * a;
							h1[q] += gw[g] * b;
						}
					}
					size_t mi = (((size_t)is * G->nh + ih) * G->np + ip) * G->nr + ir;
					double *md = mod + mi * nf * 2;
					for (int f = 0; f < nf; f++) {
						double s0 = 0, s1 = 0;
						for (int q = 0; q < nr; q++) {
							s0 += K0[(size_t)f * nr + q] * h0[q];
							s1 += K1[(size_t)f * nr + q] * h1[q];
						}
						md[2 * f] = s0;
						md[2 * f + 1] = s1;
					}
				}
			}
		}
	}
	for (int rep = -1; rep < nc; rep++) {
		for (int f = 0; f < nf; f++) {
			acc L = T[jlo + f];
			if (rep >= 0)
				acc_add(&L, &A[(size_t)rep * nb + jlo + f], -1);
			if (acc_solve(&L, 0, &y0[f], &y1[f]))
				y0[f] = y1[f] = NAN;
		}
		double bchi = INFINITY;
		size_t bmi = 0;
		for (int ir = 0; ir < G->nr; ir++)
			chiR[ir] = INFINITY;
		for (size_t mi = 0; mi < nmod; mi++) {
			const double *md = mod + mi * nf * 2;
			double s00 = 0, s01 = 0, s11 = 0, b0 = 0, b1 = 0;
			for (int f = 0; f < nf; f++) {
				if (isnan(y0[f]))
					continue;
				double w0 = 1 / (E0[jlo + f] * E0[jlo + f] + 1e-12), w1 = 1 / (E1[jlo + f] * E1[jlo + f] + 1e-12);
				s00 += w0;
				s01 += w0 * md[2 * f];
				s11 += w0 * md[2 * f] * md[2 * f] + w1 * md[2 * f + 1] * md[2 * f + 1];
				b0 += w0 * y0[f];
				b1 += w0 * y0[f] * md[2 * f] + w1 * y1[f] * md[2 * f + 1];
			}
			double det = s00 * s11 - s01 * s01;
			if (!(fabs(det) > 0))
				continue;
			double cc = (b0 * s11 - b1 * s01) / det, gg = (s00 * b1 - s01 * b0) / det, chi = 0;
			for (int f = 0; f < nf; f++) {
				if (isnan(y0[f]))
					continue;
				double e0 = (y0[f] - cc - gg * md[2 * f]) / E0[jlo + f], e1 = (y1[f] - gg * md[2 * f + 1]) / E1[jlo + f];
				chi += e0 * e0 + e1 * e1;
			}
			int ir = (int)(mi % G->nr);
			if (chi < chiR[ir])
				chiR[ir] = chi;
			if (chi < bchi) {
				bchi = chi;
				bmi = mi;
			}
		}
		int bir = (int)(bmi % G->nr);
		double x = bir;
		if (bir > 0 && bir < G->nr - 1) {
			double a = chiR[bir - 1], b = chiR[bir], c = chiR[bir + 1], den = a - 2 * b + c;
			if (den > 0)
				x += 0.5 * (a - c) / den;
		}
		double R = R0 * (G->r0 + G->dr * x);
		if (rep < 0) {
			size_t rest = bmi / G->nr;
			int ip = (int)(rest % G->np), ih = (int)(rest / G->np % G->nh), is = (int)(rest / G->np / G->nh);
			int npar = 2 + (G->nr > 1) + (G->np > 1) + (G->ns > 1) + (G->nh > 1);
			fo->R = R;
			fo->p = G->p0 + G->dp * ip;
			fo->s = G->s0 + G->ds * is;
			fo->h = G->h0 + G->dh * ih;
			fo->chi = bchi / (2 * nf - npar);
		} else {
			best[rep] = R;
		}
	}
	{
		double m = 0, v = 0;
		for (int d = 0; d < nc; d++)
			m += best[d];
		m /= nc;
		for (int d = 0; d < nc; d++)
			v += (best[d] - m) * (best[d] - m);
		fo->sdR = sqrt((nc - 1.0) / nc * v);
	}
	rc_ = 0;
out:
	free(K0);
	free(K1);
	free(mod);
	free(h0);
	free(h1);
	free(best);
	free(chiR);
	free(y0);
	free(y1);
	free(tab);
	return rc_;
}

/* ---- the formation-free foot fit (--free on the simulator, --paper on
 * the published figures; docs/paper-figures.md, h40h) ----
 *
 * Why a second model: on a published figure the formation (the side
 * detector's strength and elevation, the edge term, the roughness, the
 * screen) is unknown, so model_harm cannot be evaluated there. What is
 * left once every amplitude is free: in the small-slope limit the side
 * detector's harmonic is linear in the slope (a1 = g1 (-h')), and the
 * azimuthal mean is the secant's h'^2 / 2 plus the edge term's convexity,
 * clamped at 0 (its convex and concave parts given their own amplitudes,
 * because the roughness, which decides how much of the concave foot's
 * dark ring shows, is unknown). With the ground and these four amplitudes
 * free, the fit searches only the foot's support R, its shape p and the
 * blur. The masks know no support either: a pixel belongs to the nearest
 * centre (Voronoi over every centre handed in), inside the image and the
 * scale region. The detector's azimuth is the pooled first harmonic's
 * direction at the centres (no formation fit). */

/* --paper-profile: ff_run prints its reference profile bin by bin */
static int g_ff_dump;
/* >= 0: ff_run's fits hold p at 0.5 + 0.25 g_ff_pfix (2: the
 * simulator's cos^2), the rest of the grid as it is */
static int g_ff_pfix = -1;

#define FF_NS 8
/* blur, px: to 6 because the printed figures' screens and reproduction
 * blur them more than the simulator's beam (P1 Fig1/Fig2 took the old
 * grid's end, 4 px) */
static const double ff_sig[FF_NS] = {0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
#define FF_NP 11   /* p 0.5 .. 3.0 by 0.25 */
#define FF_NR 201  /* R 0.05 .. 0.55 pitch by 0.0025 pitch (fill 0.1 .. 1.1) */
#define FF_R(ir) (0.05 + 0.0025 * (ir)) /* R / pitch at grid index ir */
#define FF_NB 6    /* shapes per bin: h'^2, max(0, -lap), min(0, -lap), h (harmonic 0); -h', -h h' (harmonic 1) */
/* --cap-cross: the side detector's harmonic gets a second shape, -h h':
 * a bright cap multiplies the whole signal by 1 + cap z / Z (sem_surface.c),
 * so the harmonic is -h' (1 + cap h), which -h' alone misfits (the
 * capped smooth scenes read R -23..+10 % without it) */
static int g_ff_capx;
#define FF_NSH 31  /* common shifts -0.15 .. +0.15 pitch by 0.01 */
#define FF_NMOD ((size_t)FF_NR * FF_NP * FF_NS)

typedef struct ff_out {
	double az;       /* the detector's direction read from the image, rad */
	double rpk;      /* the a1 lobe's peak, px */
	double R, p, sig, chi, sdR; /* the fit: support px, shape, blur px, chi^2/dof, jackknife SD px */
	double shift;    /* the common shift of least chi^2, px towards the detector */
	double chi0;     /* chi^2/dof with no shift */
	double R0s;      /* R with no shift */
	double ground, top; /* the mean profile's ground (a0 over 0.4-0.5 pitch) and its top's excess */
	double foot2, foot3; /* where the a0 excess falls below 2 / 3 SE for good, px (no model) */
	int n, nf, edge; /* domes profiled, bins fitted, R at the grid's end */
} ff_out;

/* Each profiled dome's normal equations per bin about centres (cx, cy) +
 * shift along az; pixels owned by the nearest of all n centres, inside
 * the image and the region. A is nu x nb, T the pooled. */
static void ff_bin(const fs_image *img, const fs_scale_region *reg, const double *cx, const double *cy, size_t n,
		   const int *use, const int *const *nbr, const int *nnb, double reach, double az, double shift, int nb,
		   acc *A, acc *T)
{
	int W = img->width, H = img->height, di = 0;
	double ux = cos(az), uy = sin(az);
	memset(T, 0, (size_t)nb * sizeof *T);
	for (size_t i = 0; i < n; i++) {
		if (!use[i])
			continue;
		acc *Ai = A + (size_t)di * nb;
		memset(Ai, 0, (size_t)nb * sizeof *Ai);
		double x0c = cx[i] + shift * ux, y0c = cy[i] + shift * uy;
		int x0 = (int)floor(x0c - reach), x1 = (int)ceil(x0c + reach);
		int y0 = (int)floor(y0c - reach), y1 = (int)ceil(y0c + reach);
		for (int y = y0 < 0 ? 0 : y0; y <= y1 && y < H; y++)
			for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < W; x++) {
				double dx = x - x0c, dy = y - y0c, r2 = dx * dx + dy * dy;
				if (r2 >= reach * reach || !fs_scale_region_contains(reg, x, y))
					continue;
				int mine = 1;
				for (int q = 0; q < nnb[i] && mine; q++) {
					double ex = x - cx[nbr[i][q]] - shift * ux, ey = y - cy[nbr[i][q]] - shift * uy;
					mine = ex * ex + ey * ey >= r2;
				}
				if (!mine)
					continue;
				double r = sqrt(r2), ps = atan2(dy, dx) - az, c = cos(ps), s = sin(ps);
				double v = img->data[(size_t)y * W + x];
				acc_pixel(Ai + (int)(r / BW), r, c, s, v);
			}
		for (int j = 0; j < nb; j++)
			acc_add(&T[j], &Ai[j], 1);
		di++;
	}
}

/* The pooled profile's (a0, a1) per bin and their jackknife SEs over the
 * nu domes; ok[j] 0 where a bin is not determined. */
static void ff_profile(const acc *A, const acc *T, int nu, int nb, double *y0, double *y1, double *E0, double *E1,
		       int *ok, double *jk0, double *jk1)
{
	for (int j = 0; j < nb; j++) {
		ok[j] = 0;
		if (acc_solve(&T[j], 0, &y0[j], &y1[j]))
			continue;
		if (acc_jackknife(A, T, j, nu, nb, jk0, jk1, E0, E1) < 3)
			continue;
		ok[j] = E0[j] > 0 && E1[j] > 0;
	}
}

/* The fit's values z and weights w (1 / SE^2; 0 where a bin is not
 * determined) over bins jlo .. jlo + nf - 1 of the profile. */
static void ff_weights(const int *ok, const double *y0, const double *y1, const double *E0, const double *E1, int jlo,
		       int nf, double *z0, double *z1, double *w0, double *w1)
{
	for (int f = 0; f < nf; f++) {
		int j = jlo + f;
		w0[f] = ok[j] ? 1 / (E0[j] * E0[j]) : 0;
		w1[f] = ok[j] ? 1 / (E1[j] * E1[j]) : 0;
		z0[f] = ok[j] ? y0[j] : 0;
		z1[f] = ok[j] ? y1[j] : 0;
	}
}

/* The model table over bins jlo .. jlo + nf - 1 (radii rc): per model
 * (sigma, p, R) and bin the blurred shapes h'^2, max(0, -lap),
 * min(0, -lap), h (harmonic 0) and -h' (harmonic 1), height cos^(2p)(pi
 * r / 2R) of unit amplitude (every amplitude is fitted). The height
 * itself is a shape because the published figures' domes are brighter
 * the higher they rise (a bright cap, sem_opts.cap's linear case): their
 * mean profile falls from the top to the ground with almost no side
 * detector's harmonic (P1 Fig2: a1 0.02 against a0's 0.35). */
static double *ff_table(const double *rc, int jlo, int nf, double pitch)
{
	double *m = malloc(FF_NMOD * (size_t)nf * FF_NB * sizeof *m);
	double Rmax = FF_R(FF_NR - 1) * pitch;
	int nq = (int)(Rmax / 0.05) + 2;
	double *f[FF_NB];
	for (int k = 0; k < FF_NB; k++)
		f[k] = malloc((size_t)nq * sizeof *f[k]);
	if (!m || !f[0] || !f[1] || !f[2] || !f[3] || !f[4] || !f[5]) {
		free(m);
		m = NULL;
		goto out;
	}
	for (int is = 0; is < FF_NS; is++) {
		double sig = ff_sig[is], dq = sig < 1 ? 0.05 : 0.1;
		int nqs = (int)(Rmax / dq) + 2;
		for (int ip = 0; ip < FF_NP; ip++) {
			double p = 0.5 + 0.25 * ip;
			for (int ir = 0; ir < FF_NR; ir++) {
				double R = pitch * FF_R(ir);
				for (int q = 0; q < nqs; q++) {
					double r = q * dq, u = r / R;
					f[0][q] = f[1][q] = f[2][q] = f[3][q] = f[4][q] = f[5][q] = 0;
					if (u >= 1)
						continue;
					double th = M_PI * u / 2, c = cos(th), s = sin(th);
					double g = -p * M_PI * pow(c, 2 * p - 1) * s;
					double h2 = -p * M_PI * M_PI / (2 * R) *
						    (pow(c, 2 * p) - (2 * p - 1) * (c > 1e-9 ? pow(c, 2 * p - 2) : 0) * s * s);
					double gr = r > 1e-9 ? g / r : -p * M_PI * M_PI / (2 * R);
					double conv = -(h2 + gr);
					f[0][q] = g * g;
					f[1][q] = conv > 0 ? conv : 0;
					f[2][q] = conv < 0 ? conv : 0;
					f[3][q] = pow(c, 2 * p);
					f[4][q] = -g;
					f[5][q] = -g * f[3][q];
				}
				size_t mi = ((size_t)is * FF_NP + ip) * FF_NR + ir;
				double *md = m + mi * nf * FF_NB;
				for (int b = 0; b < nf; b++) {
					double r = rc[jlo + b], s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0;
					int qa = (int)((r - 5 * sig) / dq), qb = (int)((r + 5 * sig) / dq) + 1;
					if (qa < 0)
						qa = 0;
					if (qb > nqs - 1)
						qb = nqs - 1;
					for (int q = qa; q <= qb; q++) {
						double rp = q * dq, wq = (q == 0 ? 0.5 : 1) * dq;
						double x = r * rp / (sig * sig), ga = exp(-(r - rp) * (r - rp) / (2 * sig * sig));
						double k0 = wq * rp / (sig * sig) * ga * bessel_i_scaled(0, x);
						double k1 = wq * rp / (sig * sig) * ga * bessel_i_scaled(1, x);
						s0 += k0 * f[0][q];
						s1 += k0 * f[1][q];
						s2 += k0 * f[2][q];
						s3 += k0 * f[3][q];
						s4 += k1 * f[4][q];
						s5 += k1 * f[5][q];
					}
					md[FF_NB * b] = s0;
					md[FF_NB * b + 1] = s1;
					md[FF_NB * b + 2] = s2;
					md[FF_NB * b + 3] = s3;
					md[FF_NB * b + 4] = s4;
					md[FF_NB * b + 5] = s5;
				}
			}
		}
	}
out:
	for (int k = 0; k < FF_NB; k++)
		free(f[k]);
	return m;
}

/* Weighted least squares of y on the columns of X (k <= 4, rows nf,
 * stride FF_NB from col0, a constant column first when with_const), the
 * shapes' amplitudes held >= 0 when nonneg. Why >= 0 on the mean's
 * shapes: each is a brightening the formation makes with one sign (the
 * secant law's h'^2, the edge term on convexity and its darkening on the
 * concave foot, a bright cap's height); with free signs they cancel into
 * flat feet of any R (P1 Fig2 read a fill of 0.9-1.1 so). Returns the
 * residual sum; without the signs a column whose pivot vanishes (a shape
 * that is zero over the window) is left out, with them such a subset. */
static double ff_ls(const double *md, int col0, int k, const double *y, const double *w, int nf, int with_const,
		    int nonneg)
{
	double G[5][5] = {{0}}, b[5] = {0}, yy = 0;
	int kk = k + with_const;
	for (int f = 0; f < nf; f++) {
		double x[5];
		int t = 0;
		if (with_const)
			x[t++] = 1;
		for (int c = 0; c < k; c++)
			x[t++] = md[FF_NB * f + col0 + c];
		for (int a = 0; a < kk; a++) {
			b[a] += w[f] * x[a] * y[f];
			for (int c = 0; c <= a; c++)
				G[a][c] += w[f] * x[a] * x[c];
		}
		yy += w[f] * y[f] * y[f];
	}
	for (int a = 0; a < kk; a++)
		for (int c = a + 1; c < kk; c++)
			G[a][c] = G[c][a];
	if (!nonneg) {
		/* Cholesky with a dropped column where the pivot is below 1e-10
		 * of its diagonal: chi^2 = yy - b' G^-1 b over the kept columns */
		double L[5][5] = {{0}}, z[5] = {0}, red = 0;
		int keep[5];
		for (int a = 0; a < kk; a++) {
			double d = G[a][a];
			for (int c = 0; c < a; c++)
				if (keep[c])
					d -= L[a][c] * L[a][c];
			keep[a] = d > 1e-10 * G[a][a] && G[a][a] > 0;
			if (!keep[a])
				continue;
			L[a][a] = sqrt(d);
			for (int e = a + 1; e < kk; e++) {
				double t = G[e][a];
				for (int c = 0; c < a; c++)
					if (keep[c])
						t -= L[e][c] * L[a][c];
				L[e][a] = t / L[a][a];
			}
			double t = b[a];
			for (int c = 0; c < a; c++)
				if (keep[c])
					t -= L[a][c] * z[c];
			z[a] = t / L[a][a];
			red += z[a] * z[a];
		}
		return yy - red;
	}
	/* the amplitudes >= 0 (the constant free): every subset of the shapes
	 * solved from the same normal equations, the best one whose amplitudes
	 * are all >= 0 (at most 2^4 small systems; the empty one always is) */
	double best = INFINITY;
	for (int set = 0; set < 1 << k; set++) {
		int idx[5], m = 0;
		if (with_const)
			idx[m++] = 0;
		for (int c = 0; c < k; c++)
			if (set >> c & 1)
				idx[m++] = c + with_const;
		double M[5][6];
		for (int a = 0; a < m; a++) {
			for (int c = 0; c < m; c++)
				M[a][c] = G[idx[a]][idx[c]];
			M[a][m] = b[idx[a]];
		}
		int sing = 0;
		for (int a = 0; a < m && !sing; a++) {
			int pv = a;
			for (int e = a + 1; e < m; e++)
				if (fabs(M[e][a]) > fabs(M[pv][a]))
					pv = e;
			if (!(fabs(M[pv][a]) > 1e-12 * (fabs(G[idx[a]][idx[a]]) + 1e-300))) {
				sing = 1;
				break;
			}
			if (pv != a)
				for (int c = 0; c <= m; c++) {
					double t = M[a][c];
					M[a][c] = M[pv][c];
					M[pv][c] = t;
				}
			for (int e = 0; e < m; e++)
				if (e != a) {
					double f = M[e][a] / M[a][a];
					for (int c = a; c <= m; c++)
						M[e][c] -= f * M[a][c];
				}
		}
		if (sing)
			continue;
		double chi = yy;
		int feas = 1;
		for (int a = 0; a < m; a++) {
			double beta = M[a][m] / M[a][a];
			if (idx[a] >= with_const && beta < 0)
				feas = 0;
			chi -= beta * b[idx[a]];
		}
		if (feas && chi < best)
			best = chi;
	}
	return best;
}

/* The grid's best model for (y0, y1) with weights (w0, w1); R refined by
 * the parabola through the profile chi^2. Returns chi^2. */
static double ff_fit(const double *tab, int nf, double pitch, const double *y0, const double *y1, const double *w0,
		     const double *w1, double *R, int *bmi_out)
{
	double chiR[FF_NR], bchi = INFINITY;
	size_t bmi = 0;
	for (int ir = 0; ir < FF_NR; ir++)
		chiR[ir] = INFINITY;
	for (size_t mi = 0; mi < FF_NMOD; mi++) {
		if (g_ff_pfix >= 0 && (int)(mi / FF_NR % FF_NP) != g_ff_pfix)
			continue;
		const double *md = tab + mi * nf * FF_NB;
		double chi = ff_ls(md, 0, 4, y0, w0, nf, 1, 1) + ff_ls(md, 4, g_ff_capx ? 2 : 1, y1, w1, nf, 0, 0);
		int ir = (int)(mi % FF_NR);
		if (chi < chiR[ir])
			chiR[ir] = chi;
		if (chi < bchi) {
			bchi = chi;
			bmi = mi;
		}
	}
	int bir = (int)(bmi % FF_NR);
	double x = bir;
	if (bir > 0 && bir < FF_NR - 1) {
		double a = chiR[bir - 1], b = chiR[bir], c = chiR[bir + 1], den = a - 2 * b + c;
		if (den > 0)
			x += 0.5 * (a - c) / den;
	}
	*R = pitch * (0.05 + 0.0025 * x);
	if (bmi_out)
		*bmi_out = (int)bmi;
	return bchi;
}

/* The whole reading at centres (cx, cy) (n of them, use[] the profiled
 * ones; every centre owns its Voronoi cell): the azimuth (az_in, or from
 * the image when NaN), the reference profile and its window, the model
 * table, the common shift of least chi^2 (when shifts), the jackknife of
 * R at it. pitch sets the reach (0.8 pitch) and the shifts' unit. */
static int ff_run(const fs_image *img, const fs_scale_region *reg, const double *cx, const double *cy, size_t n,
		  const int *use, double pitch, double az_in, int shifts, ff_out *o)
{
	memset(o, 0, sizeof *o);
	o->R = o->sdR = o->chi = NAN;
	double reach = 0.8 * pitch;
	int nb = (int)(reach / BW) + 1, nu = 0, rc_ = -1;
	int **nbr = calloc(n + 1, sizeof *nbr), *nnb = calloc(n + 1, sizeof *nnb);
	for (size_t i = 0; i < n; i++)
		nu += use[i] != 0;
	acc *A = calloc((size_t)(nu + 1) * nb, sizeof *A), *T = calloc((size_t)nb, sizeof *T);
	double *rc = calloc(nb, sizeof *rc), *y0 = calloc(nb, sizeof *y0), *y1 = calloc(nb, sizeof *y1);
	double *E0 = calloc(nb, sizeof *E0), *E1 = calloc(nb, sizeof *E1);
	size_t njk = (size_t)(nu > nb ? nu : nb) + 1; /* a replicate per dome, or a bin's scratch */
	double *jk0 = malloc(njk * sizeof *jk0), *jk1 = malloc(njk * sizeof *jk1);
	double *w0 = calloc(nb, sizeof *w0), *w1 = calloc(nb, sizeof *w1);
	double *z0 = calloc(nb, sizeof *z0), *z1 = calloc(nb, sizeof *z1), *tab = NULL;
	int *ok = calloc(nb, sizeof *ok);
	if (!nbr || !nnb || !A || !T || !rc || !y0 || !y1 || !E0 || !E1 || !jk0 || !jk1 || !w0 || !w1 || !z0 || !z1 ||
	    !ok || nu < 5)
		goto out;
	/* the neighbours that can own a pixel within reach of a used centre */
	for (size_t i = 0; i < n; i++) {
		if (!use[i])
			continue;
		nbr[i] = malloc(n * sizeof *nbr[i]);
		if (!nbr[i])
			goto out;
		for (size_t q = 0; q < n; q++)
			if (q != i && hypot(cx[q] - cx[i], cy[q] - cy[i]) < 2 * reach)
				nbr[i][nnb[i]++] = (int)q;
	}
	o->n = nu;
	/* the azimuth: the direction of the pooled first harmonic over the
	 * inner half pitch (the lobe; the sign: brighter towards the detector) */
	double az = az_in;
	if (isnan(az)) {
		ff_bin(img, reg, cx, cy, n, use, (const int *const *)nbr, nnb, reach, 0, 0, nb, A, T);
		double sx = 0, sy = 0;
		for (int j = 0; j < nb; j++) {
			const acc *a = &T[j];
			double M[3][3] = {{a->n, a->c, a->s}, {a->c, a->cc, a->cs}, {a->s, a->cs, a->ss}};
			double bb[3] = {a->v, a->vc, a->vs};
			double det = M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) -
				     M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
				     M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);
			if (a->n < 6 || !(fabs(det) > 1e-9 * a->n * a->n * a->n) || a->rsum / a->n > 0.5 * pitch)
				continue;
			double d1 = M[0][0] * (bb[1] * M[2][2] - M[1][2] * bb[2]) - bb[0] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
				    M[0][2] * (M[1][0] * bb[2] - bb[1] * M[2][0]);
			double d2 = M[0][0] * (M[1][1] * bb[2] - bb[1] * M[2][1]) - M[0][1] * (M[1][0] * bb[2] - bb[0] * M[2][1]) +
				    bb[0] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);
			sx += a->n * d1 / det;
			sy += a->n * d2 / det;
		}
		az = atan2(sy, sx);
	}
	o->az = az;
	/* the reference profile (no shift): the lobe's peak, the window */
	ff_bin(img, reg, cx, cy, n, use, (const int *const *)nbr, nnb, reach, az, 0, nb, A, T);
	ff_profile(A, T, nu, nb, y0, y1, E0, E1, ok, jk0, jk1);
	int jp = -1;
	for (int j = 0; j < nb; j++) {
		rc[j] = T[j].n > 0 ? T[j].rsum / T[j].n : (j + 0.5) * BW;
		if (ok[j] && rc[j] > 1.0 && rc[j] < 0.5 * pitch && (jp < 0 || y1[j] > y1[jp]))
			jp = j;
	}
	if (g_ff_dump)
		for (int j = 0; j < nb; j++)
			if (ok[j])
				printf("    r %6.2f (%5.3f pitch)  a0 %+8.4f +- %.4f  a1 %+8.4f +- %.4f  px %6.0f\n", rc[j],
				       rc[j] / pitch, y0[j], E0[j], y1[j], E1[j], T[j].n);
	if (jp < 0)
		goto out;
	o->rpk = rc[jp];
	{
		/* the model-free reading: the ground as the mean of a0 over 0.4-
		 * 0.5 pitch (weighted by its SEs), and the detectable foot, where
		 * the a0 excess, outward from its maximum within 0.3 pitch, falls
		 * below 2 (3) SE of the mean profile and stays there (first_below;
		 * 0.5 pitch when it never does) */
		double gs = 0, gw = 0, *ex = jk0, *ee = jk1;
		int j0 = -1;
		for (int j = 0; j < nb; j++)
			if (ok[j] && rc[j] >= 0.4 * pitch && rc[j] <= 0.5 * pitch) {
				gs += y0[j] / (E0[j] * E0[j]);
				gw += 1 / (E0[j] * E0[j]);
			}
		o->ground = gw > 0 ? gs / gw : NAN;
		{
			for (int j = 0; j < nb; j++) {
				ex[j] = ok[j] ? y0[j] - o->ground : 0;
				ee[j] = E0[j];
				if (ok[j] && rc[j] <= 0.3 * pitch && (j0 < 0 || ex[j] > ex[j0]))
					j0 = j;
			}
			o->top = j0 >= 0 ? ex[j0] : NAN;
			o->foot2 = j0 >= 0 ? first_below(rc, ex, ee, ok, nb, j0, 2, 0.5 * pitch) : NAN;
			o->foot3 = j0 >= 0 ? first_below(rc, ex, ee, ok, nb, j0, 3, 0.5 * pitch) : NAN;
		}
	}
	/* the window: from the centre to 0.5 pitch (short of the Voronoi
	 * cell's corners, 0.577 pitch, where the neighbours' blurred feet
	 * and undetected neighbours come in: P1 Fig2's mean rises there),
	 * bins where at least a quarter of the ring is open */
	int jlo = -1, jhi = -1;
	for (int j = 0; j < nb; j++)
		if (ok[j] && rc[j] <= 0.5 * pitch && T[j].n >= 0.25 * nu * 2 * M_PI * rc[j] * BW) {
			if (jlo < 0)
				jlo = j;
			jhi = j;
		}
	if (jlo < 0)
		goto out;
	int nf = jhi - jlo + 1;
	o->nf = nf;
	tab = ff_table(rc, jlo, nf, pitch);
	if (!tab || nf < 10)
		goto out;
	/* the common shift of least chi^2 (the window and models held) */
	double bchi = INFINITY, bshift = 0;
	for (int k = 0; k < (shifts ? FF_NSH : 1); k++) {
		double sh = shifts ? (k - FF_NSH / 2) * 0.01 * pitch : 0;
		ff_bin(img, reg, cx, cy, n, use, (const int *const *)nbr, nnb, reach, az, sh, nb, A, T);
		ff_profile(A, T, nu, nb, y0, y1, E0, E1, ok, jk0, jk1);
		ff_weights(ok, y0, y1, E0, E1, jlo, nf, z0, z1, w0, w1);
		double R;
		double chi = ff_fit(tab, nf, pitch, z0, z1, w0, w1, &R, NULL);
		if (fabs(sh) < 1e-12) {
			o->chi0 = chi / (2 * nf - 9);
			o->R0s = R;
		}
		if (chi < bchi) {
			bchi = chi;
			bshift = sh;
		}
	}
	/* at the best shift: the fit and its jackknife over domes */
	ff_bin(img, reg, cx, cy, n, use, (const int *const *)nbr, nnb, reach, az, bshift, nb, A, T);
	ff_profile(A, T, nu, nb, y0, y1, E0, E1, ok, jk0, jk1);
	ff_weights(ok, y0, y1, E0, E1, jlo, nf, z0, z1, w0, w1);
	int bmi;
	double chi = ff_fit(tab, nf, pitch, z0, z1, w0, w1, &o->R, &bmi);
	o->chi = chi / (2 * nf - 9);
	o->shift = bshift;
	o->p = 0.5 + 0.25 * (bmi / FF_NR % FF_NP);
	o->sig = ff_sig[bmi / FF_NR / FF_NP];
	o->edge = bmi % FF_NR == 0 || bmi % FF_NR == FF_NR - 1;
	{
		/* grouped jackknife (G groups of domes, d mod G): one refit per
		 * group instead of per dome; a replicate's bin that its groups'
		 * removal leaves undetermined is left out of that replicate */
		int G = nu < 24 ? nu : 24;
		double m = 0, v = 0, Rs[24];
		for (int g = 0; g < G; g++) {
			for (int f = 0; f < nf; f++) {
				acc L = T[jlo + f];
				for (int d = g; d < nu; d += G)
					acc_add(&L, &A[(size_t)d * nb + jlo + f], -1);
				y0[f] = w0[f];
				y1[f] = w1[f];
				if (!ok[jlo + f] || acc_solve(&L, 0, &z0[f], &z1[f])) {
					z0[f] = z1[f] = 0;
					y0[f] = y1[f] = 0;
				}
			}
			ff_fit(tab, nf, pitch, z0, z1, y0, y1, &Rs[g], NULL);
			m += Rs[g];
		}
		m /= G;
		for (int g = 0; g < G; g++)
			v += (Rs[g] - m) * (Rs[g] - m);
		o->sdR = sqrt((G - 1.0) / G * v);
	}
	rc_ = 0;
out:
	for (size_t i = 0; nbr && i < n; i++)
		free(nbr[i]);
	free(nbr);
	free(nnb);
	free(A);
	free(T);
	free(rc);
	free(y0);
	free(y1);
	free(E0);
	free(E1);
	free(jk0);
	free(jk1);
	free(w0);
	free(w1);
	free(z0);
	free(z1);
	free(ok);
	free(tab);
	return rc_;
}

/* ---- --paper: the published figures ---- */

/* One rule on one figure as test_paper_images measures it (inside the
 * automatic scale region, the default graph): its fill D / (D + S), its
 * mean centre distance (px), mean D (px), and its centres (caller frees). */
typedef struct paper_rule_out {
	double fill, pitch, d;
	size_t n, unmeasured;
	double *x, *y;
} paper_rule_out;

static int paper_rule(const fs_image *img, const fs_scale_region *reg, fs_measurement_rule rule, paper_rule_out *r)
{
	char err[256];
	fs_params p;
	fs_params_default(&p);
	fs_detect_result res;
	memset(r, 0, sizeof *r);
	if (fs_detect_rule_in_region(img, &p, 0, rule, reg, &res, err, sizeof err))
		return -1;
	fs_edge_list e = {0};
	fs_stats st;
	int rc = -1;
	if (fs_graph_build(&res.tubercles, p.neighbor_graph, p.cull_long_edges, p.cull_factor, &e, err, sizeof err) ||
	    fs_stats_compute(&res.tubercles, &e, 1.0, NULL, img->width, img->height, &st))
		goto out;
	r->n = res.tubercles.n;
	r->x = malloc((r->n + 1) * sizeof *r->x);
	r->y = malloc((r->n + 1) * sizeof *r->y);
	if (!r->x || !r->y)
		goto out;
	for (size_t i = 0; i < r->n; i++) {
		r->x[i] = res.tubercles.items[i].centroid_x;
		r->y[i] = res.tubercles.items[i].centroid_y;
		r->unmeasured += !fs_tubercle_measured(&res.tubercles.items[i]);
	}
	r->fill = r->unmeasured == r->n ? NAN : st.size_pitch_ratio;
	r->pitch = st.mean_center_distance_um;
	r->d = st.mean_diameter_um;
	rc = 0;
out:
	fs_edge_list_free(&e);
	fs_detect_result_free(&res);
	return rc;
}

static double pearson(const double *a, const double *b, int n)
{
	double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
	int m = 0;
	for (int i = 0; i < n; i++)
		if (!isnan(a[i]) && !isnan(b[i])) {
			ma += a[i];
			mb += b[i];
			m++;
		}
	if (m < 3)
		return NAN;
	ma /= m;
	mb /= m;
	for (int i = 0; i < n; i++)
		if (!isnan(a[i]) && !isnan(b[i])) {
			sab += (a[i] - ma) * (b[i] - mb);
			saa += (a[i] - ma) * (a[i] - ma);
			sbb += (b[i] - mb) * (b[i] - mb);
		}
	return sab / sqrt(saa * sbb);
}

/* Every published figure: both rules' fills and centres, then the
 * formation-free foot fit at each rule's centres, without and with the
 * common shift searched by chi^2; the support's fill 2 R / the rule's
 * mean centre distance. Then the support's absolute size per paper (one
 * pixel size a paper: the median of the published d + s over the outline
 * rule's pitch, test_paper_images' way) and the fills' correlations with
 * the published ones. */
static int run_paper(const char *only)
{
	paper_fig figs[PAPER_FIGS_MAX];
	int nfig = paper_figs_read(figs, PAPER_FIGS_MAX);
	if (nfig <= 0) {
		fprintf(stderr, "cannot read %sexpected.csv (run from the repository's top)\n", PAPER_FIGS_DIR);
		return 1;
	}
	double pub[PAPER_FIGS_MAX], fo[PAPER_FIGS_MAX], fd[PAPER_FIGS_MAX], px[PAPER_FIGS_MAX];
	double sup[2][2][PAPER_FIGS_MAX], Dsup[2][PAPER_FIGS_MAX], pitch_o[PAPER_FIGS_MAX], dpub[PAPER_FIGS_MAX];
	double sup1[2][2][PAPER_FIGS_MAX], Dsup1[2][PAPER_FIGS_MAX], sup5[2][PAPER_FIGS_MAX];
	double mf2[2][PAPER_FIGS_MAX], mf3[2][PAPER_FIGS_MAX]; /* the detectable foot's fill, 2 / 3 SE */
	double pitch_r[2][PAPER_FIGS_MAX]; /* each rule's mean centre distance, px */
	char tags[PAPER_FIGS_MAX][16], papers[PAPER_FIGS_MAX][8];
	printf("published figures: the formation-free foot fit (cos^(2p) foot, R p blur free, the mean's amplitudes >= 0, "
	       "Voronoi masks, azimuth from the image) at each rule's centres; fill = 2 R / the rule's mean centre "
	       "distance; m2/m3 the fill where the mean's excess over the ground falls below 2/3 SE (no model); "
	       "'0' no shift, 'sh' the common shift of least chi^2 (in pitch, + towards the detector); f05 the "
	       "fill at the fitted foot's 5 %% height; E: R at the grid's end\n");
	printf("%-8s %-12s %5s | %5s %5s | %-7s %4s %6s %6s %5s %5s | p free: %5s %5s | %6s %5s %4s %4s %5s %5s %5s  | p = 1: %5s %5s | %6s %5s %4s %5s %5s\n",
	       "fig", "genus", "pub", "outl", "dome", "centres", "n", "pitch", "az", "m2", "m3", "fill0", "chi0", "sh/p", "fill", "p",
	       "blur", "chi", "sd", "f05", "fill0", "chi0", "sh/p", "fill", "blur", "chi", "sd");
	int kept = 0;
	for (int i = 0; i < nfig; i++) {
		const paper_fig *F = &figs[i];
		if (only && !strstr(F->file, only))
			continue;
		char path[512], err[256], tag[16];
		snprintf(path, sizeof path, "%s%.150s", PAPER_FIGS_DIR, F->file);
		/* the tag: paper and figure, e.g. P2_Fig1e */
		size_t tl = strcspn(F->file + strlen(F->paper) + 1, "_") + strlen(F->paper) + 1;
		snprintf(tag, sizeof tag, "%.*s", (int)(tl < 15 ? tl : 15), F->file);
		fs_loaded L;
		if (fs_load_file(path, NULL, &L, err, sizeof err)) {
			printf("%-8s cannot load: %s\n", tag, err);
			continue;
		}
		fs_scale_region reg;
		memset(&reg, 0, sizeof reg);
		if (fs_scale_region_detect(L.image, &reg, err, sizeof err)) {
			fs_loaded_free(&L);
			printf("%-8s no scale region: %s\n", tag, err);
			continue;
		}
		int k = kept++;
		pub[k] = F->ratio;
		fo[k] = fd[k] = pitch_o[k] = NAN;
		for (int rl = 0; rl < 2; rl++) {
			paper_rule_out pr;
			sup[rl][0][k] = sup[rl][1][k] = Dsup[rl][k] = sup5[rl][k] = NAN;
			sup1[rl][0][k] = sup1[rl][1][k] = Dsup1[rl][k] = NAN;
			mf2[rl][k] = mf3[rl][k] = pitch_r[rl][k] = NAN;
			if (paper_rule(L.image, &reg, rl ? FS_RULE_DOME : FS_RULE_OUTLINE, &pr)) {
				printf("%-8s %-12s %5.3f | rule %d failed\n", tag, F->genus, F->ratio, rl);
				continue;
			}
			*(rl ? &fd[k] : &fo[k]) = pr.fill;
			pitch_r[rl][k] = pr.pitch;
			if (!rl)
				pitch_o[k] = pr.pitch;
			int *use = malloc((pr.n + 1) * sizeof *use);
			ff_out ff;
			int ok = use != NULL;
			for (size_t q = 0; ok && q < pr.n; q++)
				use[q] = 1;
			ff_out f1;
			if (ok)
				ok = !ff_run(L.image, &reg, pr.x, pr.y, pr.n, use, pr.pitch, NAN, 1, &ff);
			g_ff_pfix = 2;
			int ok1 = ok && !ff_run(L.image, &reg, pr.x, pr.y, pr.n, use, pr.pitch, ff.az, 1, &f1);
			g_ff_pfix = -1;
			if (ok) {
				mf2[rl][k] = 2 * ff.foot2 / pr.pitch;
				mf3[rl][k] = 2 * ff.foot3 / pr.pitch;
			}
			printf("%-8s %-12s %5.3f | %5.3f %5.3f | %-7s %4zu %6.2f %6.1f %5.3f %5.3f | ", rl ? "" : tag,
			       rl ? "" : F->genus, F->ratio, fo[k], fd[k], rl ? "dome" : "outline", pr.n, pr.pitch,
			       ok ? ff.az * 180 / M_PI : NAN, ok ? mf2[rl][k] : NAN, ok ? mf3[rl][k] : NAN);
			if (ok) {
				/* the 5 % radius of the fitted foot: where cos^(2p) falls
				 * to 0.05, a reading that does not run off with p */
				double u05 = 2 / M_PI * acos(pow(0.05, 1 / (2 * ff.p)));
				sup[rl][0][k] = 2 * ff.R0s / pr.pitch;
				sup[rl][1][k] = 2 * ff.R / pr.pitch;
				sup5[rl][k] = 2 * ff.R * u05 / pr.pitch;
				Dsup[rl][k] = 2 * ff.R;
				printf("%5.3f %5.1f | %+6.3f %5.3f %4.2f %4.2f %5.1f %5.3f %5.3f%s | ", sup[rl][0][k], ff.chi0,
				       ff.shift / pr.pitch, sup[rl][1][k], ff.p, ff.sig, ff.chi, 2 * ff.sdR / pr.pitch,
				       sup5[rl][k], ff.edge ? "E" : " ");
			} else {
				printf("not fitted | ");
			}
			if (ok1) {
				sup1[rl][0][k] = 2 * f1.R0s / pr.pitch;
				sup1[rl][1][k] = 2 * f1.R / pr.pitch;
				Dsup1[rl][k] = 2 * f1.R;
				printf("%5.3f %5.1f | %+6.3f %5.3f %4.2f %5.1f %5.3f%s\n", sup1[rl][0][k], f1.chi0, f1.shift / pr.pitch,
				       sup1[rl][1][k], f1.sig, f1.chi, 2 * f1.sdR / pr.pitch, f1.edge ? "E" : "");
			} else {
				printf("not fitted\n");
			}
			fflush(stdout);
			free(use);
			free(pr.x);
			free(pr.y);
		}
		/* the pixel size this figure's outline pitch implies */
		px[k] = pitch_o[k] > 0 ? (F->d_um + F->s_um) / pitch_o[k] : NAN;
		snprintf(tags[k], sizeof tags[k], "%s", tag);
		snprintf(papers[k], sizeof papers[k], "%s", F->paper);
		dpub[k] = F->d_um;
		fs_scale_region_free(&reg);
		fs_loaded_free(&L);
	}
	/* absolute size: one pixel size per paper (the median of its
	 * figures' implied sizes; with fewer than three figures each its own) */
	printf("\nabsolute support diameter (one pixel size per paper: the median of d+s published / outline pitch):\n");
	printf("%-8s %8s %8s | %8s %8s | %8s %8s | %8s %8s | %8s %8s | %8s\n", "fig", "um/px", "paper", "Dsup@o", "Dsup@d",
	       "um@o", "um@d", "p=1 um@o", "p=1 um@d", "m2 um@o", "m2 um@d", "pub d um");
	for (int k = 0; k < kept; k++) {
		double a[PAPER_FIGS_MAX];
		int na = 0;
		for (int j = 0; j < kept; j++)
			if (!strcmp(papers[j], papers[k]) && !isnan(px[j]))
				a[na++] = px[j];
		for (int x = 1; x < na; x++) /* insertion sort: a handful */
			for (int y = x; y > 0 && a[y] < a[y - 1]; y--) {
				double t = a[y];
				a[y] = a[y - 1];
				a[y - 1] = t;
			}
		double pp = na >= 3 ? (na % 2 ? a[na / 2] : 0.5 * (a[na / 2 - 1] + a[na / 2])) : px[k];
		printf("%-8s %8.4f %8.4f | %8.2f %8.2f | %8.2f %8.2f | %8.2f %8.2f | %8.2f %8.2f | %8.2f\n", tags[k], px[k], pp,
		       Dsup[0][k], Dsup[1][k], Dsup[0][k] * pp, Dsup[1][k] * pp, Dsup1[0][k] * pp, Dsup1[1][k] * pp,
		       mf2[0][k] * pitch_r[0][k] * pp, mf2[1][k] * pitch_r[1][k] * pp, dpub[k]);
	}
	printf("\nfill against published over the figures (Pearson r; mean |fill - published|; within 0.08):\n");
	const char *nm[16] = {"outline rule", "dome rule (measured)", "support @outline, no shift",
			      "support @outline, shift", "support @dome, no shift", "support @dome, shift",
			      "p=1 @outline, no shift", "p=1 @outline, shift", "p=1 @dome, no shift", "p=1 @dome, shift",
			      "5 % radius @outline, shift", "5 % radius @dome, shift", "foot at 2 SE @outline",
			      "foot at 2 SE @dome", "foot at 3 SE @outline", "foot at 3 SE @dome"};
	const double *col[16] = {fo, fd, sup[0][0], sup[0][1], sup[1][0], sup[1][1], sup1[0][0], sup1[0][1], sup1[1][0],
				 sup1[1][1], sup5[0], sup5[1], mf2[0], mf2[1], mf3[0], mf3[1]};
	for (int c = 0; c < 16; c++) {
		double e = 0;
		int m = 0, w = 0;
		for (int k = 0; k < kept; k++)
			if (!isnan(col[c][k])) {
				e += fabs(col[c][k] - pub[k]);
				w += fabs(col[c][k] - pub[k]) <= 0.08;
				m++;
			}
		printf("  %-28s r %+.3f  mean |err| %.3f  within 0.08: %d of %d\n", nm[c], pearson(col[c], pub, kept),
		       m ? e / m : NAN, w, m);
	}
	return 0;
}

/* 1: the profiles about the dome rule's own centres (each counted true
 * dome's matched detection; unmatched domes left out), the masks still
 * the true supports: what the centres' scatter does to the reading */
static int g_rule_centres;
/* the true centres moved by g_shift R towards the detector and
 * scattered by Gaussian g_jitter R per axis (a fixed generator): how
 * much centre error the reading tolerates */
static double g_shift, g_jitter;
/* --corner: the corner matrix's scenes (sem_corner_scene, sharp feet)
 * instead of the smooth set: where the foot model's p should come out at
 * its sharp end (0.5) if the fit is to tell the feet apart */
static int g_corner;
/* --free: the formation-free fit too (ff_run), its result for main */
static int g_free, g_ff_ok, g_ff1_ok;
static ff_out g_ff, g_ff1; /* p free, p held at 1 */
static double g_ff_az_true;
/* --cap C [--cap-power P]: the smooth scenes with a bright cap (sem_opts.cap,
 * h37r), the published figures' look (their domes brighter the higher),
 * to see whether the formation-free fit's height shape reads the support
 * under it */
static double g_cap, g_cap_power;

static void scene_opts(int k, sem_opts *o)
{
	if (g_corner)
		sem_corner_scene(k, o);
	else
		sem_smooth_scene(k, o);
}

static int run_scene(int k, unsigned seed_add, int rules, int profile_dump, int loose_fit, scene_out *so)
{
	int ret = -1; /* 0 once the scene is done: the end frees either way */
	memset(so, 0, sizeof *so);
	double *cx = NULL, *cy = NULL;
	sem_opts o, oc;
	sem_truth t, tc;
	scene_opts(k, &o);
	o.seed += seed_add;
	if (g_cap > 0) {
		o.cap = g_cap;
		o.cap_power = g_cap_power;
	}
	g_rough_lap = rough_lap_sd(o.roughness);
	oc = o;
	oc.dose = 0;
	oc.bits = 0;
	fs_image *img = sem_make_shared(&o, &t);
	fs_image *cln = img ? sem_make_shared(&oc, &tc) : NULL;
	if (!img || !cln) {
		fs_image_free(img);
		if (img)
			sem_truth_free(&t);
		return -1;
	}
	sem_truth_free(&tc);
	int W = img->width, Hh = img->height;
	/* each pixel's nearest and second nearest support (distance beyond
	 * the base circle), for the masks and the ground */
	size_t np = (size_t)W * Hh;
	float *d1 = malloc(np * sizeof *d1), *d2 = malloc(np * sizeof *d2);
	int *i1 = malloc(np * sizeof *i1);
	double Rmean = 0;
	int *counted = calloc(t.n + 1, sizeof *counted);
	int nc = 0;
	for (size_t i = 0; i < t.n; i++)
		if (t.inside[i] && sem_counted(&t, t.x[i], t.y[i])) {
			counted[i] = 1;
			Rmean += t.d[i] / 2;
			nc++;
		}
	cx = malloc((t.n + 1) * sizeof *cx);
	cy = malloc((t.n + 1) * sizeof *cy);
	if (!d1 || !d2 || !i1 || !counted || !cx || !cy || nc < 3)
		goto fail;
	Rmean /= nc;
	{
		uint64_t st = 0x9E3779B97F4A7C15ULL ^ (uint64_t)(k + 1);
		for (size_t i = 0; i < t.n; i++) {
			double g[2] = {0, 0};
			if (g_jitter > 0) {
				double u[2];
				xs_uniform2(&st, u);
				double a = sqrt(-2 * log(fmax(u[0], 1e-300)));
				g[0] = a * cos(2 * M_PI * u[1]);
				g[1] = a * sin(2 * M_PI * u[1]);
			}
			double R = t.d[i] / 2;
			cx[i] = t.x[i] + R * (g_shift * cos(o.det_azimuth) + g_jitter * g[0]);
			cy[i] = t.y[i] + R * (g_shift * sin(o.det_azimuth) + g_jitter * g[1]);
		}
	}
	if (g_rule_centres) {
		fs_params p;
		fs_params_default(&p);
		fs_detect_result res;
		char err[256];
		int *mt = malloc((t.n + 1) * sizeof *mt);
		size_t nd = 0;
		double *xs = NULL, *ys = NULL;
		if (mt && !fs_detect_domes(img, &p, 0, &res, err, sizeof err)) {
			nd = res.tubercles.n;
			xs = malloc((nd + 1) * sizeof *xs);
			ys = malloc((nd + 1) * sizeof *ys);
			for (size_t q = 0; xs && ys && q < nd; q++) {
				xs[q] = res.tubercles.items[q].centroid_x;
				ys[q] = res.tubercles.items[q].centroid_y;
			}
			if (xs && ys && !sem_match(&t, xs, ys, nd, 0.25 * t.pitch, NULL, mt)) {
				nc = 0;
				Rmean = 0;
				for (size_t i = 0; i < t.n; i++) {
					if (!counted[i])
						continue;
					if (mt[i] < 0) {
						counted[i] = 0;
						continue;
					}
					/* --centre-shift moves the rule's centres too: a
					 * common shift searched by chi^2 (docs, h39e) */
					cx[i] = xs[mt[i]] + t.d[i] / 2 * g_shift * cos(o.det_azimuth);
					cy[i] = ys[mt[i]] + t.d[i] / 2 * g_shift * sin(o.det_azimuth);
					double ex = cx[i] - t.x[i], ey = cy[i] - t.y[i];
					double along = ex * cos(o.det_azimuth) + ey * sin(o.det_azimuth);
					so->c_along += along;
					so->c_rms += ex * ex + ey * ey;
					Rmean += t.d[i] / 2;
					nc++;
				}
				Rmean /= nc > 0 ? nc : 1;
				so->c_along /= nc > 0 ? nc : 1;
				so->c_rms = sqrt(so->c_rms / (nc > 0 ? nc : 1));
			}
			fs_detect_result_free(&res);
		}
		free(xs);
		free(ys);
		free(mt);
		if (nc < 3)
			goto fail;
	}
	for (size_t q = 0; q < np; q++) {
		d1[q] = d2[q] = 1e9f;
		i1[q] = -1;
	}
	double reach = 1.6 * Rmean + 8;
	for (size_t i = 0; i < t.n; i++) {
		double R = t.d[i] / 2;
		int x0 = (int)floor(t.x[i] - R - reach), x1 = (int)ceil(t.x[i] + R + reach);
		int y0 = (int)floor(t.y[i] - R - reach), y1 = (int)ceil(t.y[i] + R + reach);
		for (int y = y0 < 0 ? 0 : y0; y <= y1 && y < Hh; y++)
			for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < W; x++) {
				size_t q = (size_t)y * W + x;
				float e = (float)(hypot(x - t.x[i], y - t.y[i]) - R);
				if (e < d1[q]) {
					d2[q] = d1[q];
					d1[q] = e;
					i1[q] = (int)i;
				} else if (e < d2[q]) {
					d2[q] = e;
				}
			}
	}
	/* ground and per-pixel noise over the counted region's open ground
	 * and everywhere respectively */
	double gs = 0, gc = 0, ns = 0, ns2 = 0, nn = 0;
	for (int y = 0; y < Hh; y++)
		for (int x = 0; x < W; x++) {
			size_t q = (size_t)y * W + x;
			if (!sem_counted(&t, x, y))
				continue;
			double e = (double)img->data[q] - cln->data[q];
			ns += e;
			ns2 += e * e;
			nn++;
			if (d1[q] >= GROUND_PAD) {
				gs += cln->data[q];
				gc++;
			}
		}
	so->ground = gc > 0 ? gs / gc : NAN;
	so->sig_pix = nn > 1 ? sqrt(fmax(0, (ns2 - ns * ns / nn) / (nn - 1))) : NAN;
	so->Rt = Rmean;
	so->n = nc;
	int nb = (int)(reach / BW) + 1;
	acc *A = calloc((size_t)nc * nb, sizeof *A), *T = calloc((size_t)nb, sizeof *T);
	double az = o.det_azimuth;
	if (!A || !T) {
		free(A);
		free(T);
		goto fail;
	}
	int di = 0;
	for (size_t i = 0; i < t.n; i++) {
		if (!counted[i])
			continue;
		acc *Ai = A + (size_t)di * nb;
		int x0 = (int)floor(cx[i] - reach), x1 = (int)ceil(cx[i] + reach);
		int y0 = (int)floor(cy[i] - reach), y1 = (int)ceil(cy[i] + reach);
		for (int y = y0 < 0 ? 0 : y0; y <= y1 && y < Hh; y++)
			for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < W; x++) {
				double dx = x - cx[i], dy = y - cy[i], r = hypot(dx, dy);
				if (r >= reach)
					continue;
				size_t q = (size_t)y * W + x;
				/* another dome's support (+ pad) covers the pixel */
				double other = i1[q] == (int)i ? d2[q] : d1[q];
				if (other < MASK_PAD)
					continue;
				double ps = atan2(dy, dx) - az, c = cos(ps), s = sin(ps);
				double v = img->data[q], w = cln->data[q];
				acc *b = Ai + (int)(r / BW);
				acc_pixel(b, r, c, s, v);
				b->w += w;
				b->wc += w * c;
				b->wss += w * s;
			}
		for (int j = 0; j < nb; j++)
			acc_add(&T[j], &Ai[j], 1);
		di++;
	}
	/* pooled profiles, noise-free signal, jackknife SEs */
	double *rc = calloc(nb, sizeof *rc), *S0 = calloc(nb, sizeof *S0), *S1 = calloc(nb, sizeof *S1);
	double *N0 = calloc(nb, sizeof *N0), *N1 = calloc(nb, sizeof *N1);
	double *E0 = calloc(nb, sizeof *E0), *E1 = calloc(nb, sizeof *E1), *Ed0 = calloc(nb, sizeof *Ed0),
	       *Ed1 = calloc(nb, sizeof *Ed1);
	int *ok = calloc(nb, sizeof *ok);
	double *jk0 = malloc(((size_t)nc + 1) * sizeof *jk0), *jk1 = malloc(((size_t)nc + 1) * sizeof *jk1);
	if (!rc || !S0 || !S1 || !N0 || !N1 || !E0 || !E1 || !Ed0 || !Ed1 || !ok || !jk0 || !jk1)
		goto fail2;
	for (int j = 0; j < nb; j++) {
		double a0, a1;
		if (acc_solve(&T[j], 0, &N0[j], &N1[j]) || acc_solve(&T[j], 1, &a0, &a1))
			continue;
		ok[j] = 1;
		rc[j] = T[j].rsum / T[j].n;
		S0[j] = a0 - so->ground;
		S1[j] = a1;
		int m = acc_jackknife(A, T, j, nc, nb, jk0, jk1, E0, E1);
		if (m < 3) {
			ok[j] = 0;
			continue;
		}
		/* one dome's: the scene mean's SE times sqrt(domes) */
		Ed0[j] = E0[j] * sqrt((double)m);
		Ed1[j] = E1[j] * sqrt((double)m);
	}
	/* the lobe's peak (a1 over 0.15-1.2 R of the true mean: a search
	 * window only) and its levels outward */
	int jp = -1;
	for (int j = 0; j < nb; j++)
		if (ok[j] && rc[j] > 0.15 * Rmean && rc[j] < 1.2 * Rmean && (jp < 0 || S1[j] > S1[jp]))
			jp = j;
	if (jp < 0)
		goto fail2;
	so->rpk = rc[jp];
	so->r50 = so->r15 = NAN;
	for (int j = jp + 1, prev = jp; j < nb; j++) {
		if (!ok[j])
			continue;
		for (int L = 0; L < 2; L++) {
			double lev = (L ? 0.15 : 0.5) * S1[jp];
			double *dst = L ? &so->r15 : &so->r50;
			if (isnan(*dst) && S1[j] < lev)
				*dst = rc[prev] + (rc[j] - rc[prev]) * (S1[prev] - lev) / (S1[prev] - S1[j]);
		}
		prev = j;
	}
	for (int kk = 0; kk < 2; kk++) {
		double kv = kk ? 3 : 2;
		for (int who = 0; who < 2; who++) {
			const double *e0 = who ? Ed0 : E0, *e1 = who ? Ed1 : E1;
			double f1 = first_below(rc, S1, e1, ok, nb, jp, kv, 1.5 * Rmean),
			       f0 = first_below(rc, S0, e0, ok, nb, jp, kv, 1.5 * Rmean);
			so->foot[who][kk] = fmax(f1, f0);
			if (kk == 1)
				so->foot[who][2] = f0;
		}
	}
	if (profile_dump) {
		printf("scene %d: R %.2f px, ground %.4f, noise per pixel %.4f, %d domes; bins: r, a0-ground (noise-free), "
		       "a0 noisy-ground, SE0 (jk), SE0 (pixel noise), a1 (noise-free), a1 noisy, SE1 (jk), SE1 (pixel "
		       "noise), pixels\n",
		       k, Rmean, so->ground, so->sig_pix, nc);
		for (int j = 0; j < nb; j++)
			if (ok[j])
				printf("  %6.2f %6.3f  %+8.5f %+8.5f %8.5f %8.5f  %+8.5f %+8.5f %8.5f %8.5f %6.0f\n", rc[j],
				       rc[j] / Rmean, S0[j], N0[j] - so->ground, E0[j], so->sig_pix / sqrt(T[j].n), S1[j],
				       N1[j], E1[j], so->sig_pix * sqrt(2 / T[j].n), T[j].n);
	}
	/* the foot model's fits over the outer flank: R and p on fine grids
	 * with the formation known, p held at 1, and (coarser) with the blur
	 * and h/R free as well */
	{
		/* from 0.35: on a sharp foot (--corner) the lobe's peak sits near
		 * the rim, so the support lies near the peak's radius, not twice
		 * it; the smooth scenes' points are the same (0.70 is point 70) */
		static const fit_grid fine = {221, 0.35, 0.005, 26, 0.5, 0.1, 1, 1, 0, 1, 1, 0};
		static const fit_grid p1 = {221, 0.35, 0.005, 1, 1.0, 0.1, 1, 1, 0, 1, 1, 0};
		static const fit_grid loose = {76, 0.70, 0.01, 11, 0.5, 0.25, 5, 0.6, 0.2, 5, 0.6, 0.2};
		fit_foot(&o, &fine, T, A, nb, nc, rc, ok, E0, E1, jp, &so->fit[0]);
		fit_foot(&o, &p1, T, A, nb, nc, rc, ok, E0, E1, jp, &so->fit[1]);
		if (loose_fit)
			fit_foot(&o, &loose, T, A, nb, nc, rc, ok, E0, E1, jp, &so->fit[2]);
	}
	/* --free: the reading the published figures get (--paper), here where
	 * the support is known: Voronoi masks, the azimuth from the image,
	 * the formation free, the shift searched at the rule's centres */
	if (g_free) {
		g_ff_ok = !ff_run(img, NULL, cx, cy, t.n, counted, t.pitch, NAN, g_rule_centres, &g_ff);
		g_ff_pfix = 2;
		g_ff1_ok = g_ff_ok && !ff_run(img, NULL, cx, cy, t.n, counted, t.pitch, g_ff.az, g_rule_centres, &g_ff1);
		g_ff_pfix = -1;
		g_ff_az_true = o.det_azimuth;
	}
	so->d_out = so->d_dome = NAN;
	for (int rule = 0; rules && rule < 2; rule++) {
		fs_params p;
		fs_params_default(&p);
		fs_detect_result res;
		char err[256];
		int rc2 = rule ? fs_detect_domes(img, &p, 0, &res, err, sizeof err)
			       : fs_detect_outline(img, &p, 0, &res, err, sizeof err);
		if (rc2)
			continue;
		sem_score sc;
		if (!sem_score_detection(&t, &res.tubercles, o.halftone, &sc))
			*(rule ? &so->d_dome : &so->d_out) = sc.d_err;
		fs_detect_result_free(&res);
	}
	ret = 0;
fail2:
	free(rc);
	free(S0);
	free(S1);
	free(N0);
	free(N1);
	free(E0);
	free(E1);
	free(Ed0);
	free(Ed1);
	free(ok);
	free(jk0);
	free(jk1);
	free(A);
	free(T);
fail:
	free(d1);
	free(d2);
	free(i1);
	free(counted);
	free(cx);
	free(cy);
	sem_truth_free(&t);
	fs_image_free(img);
	fs_image_free(cln);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned seed_add = 0;
	int rules = 1, dump = -1, loose = 0;
	int pick[64], npick = 0;
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--seed-add") && a + 1 < argc)
			seed_add = (unsigned)strtoul(argv[++a], NULL, 10);
		else if (!strcmp(argv[a], "--no-rules"))
			rules = 0;
		else if (!strcmp(argv[a], "--loose"))
			loose = 1;
		else if (!strcmp(argv[a], "--cap") && a + 1 < argc)
			g_cap = atof(argv[++a]);
		else if (!strcmp(argv[a], "--cap-power") && a + 1 < argc)
			g_cap_power = atof(argv[++a]);
		else if (!strcmp(argv[a], "--cap-cross"))
			g_ff_capx = 1;
		else if (!strcmp(argv[a], "--free"))
			g_free = 1;
		else if (!strcmp(argv[a], "--paper-profile") && a + 1 < argc) {
			g_ff_dump = 1;
			return run_paper(argv[a + 1]);
		} else if (!strcmp(argv[a], "--paper"))
			return run_paper(a + 1 < argc ? argv[a + 1] : NULL);
		else if (!strcmp(argv[a], "--corner"))
			g_corner = 1;
		else if (!strcmp(argv[a], "--rule-centres"))
			g_rule_centres = 1;
		else if (!strcmp(argv[a], "--centre-shift") && a + 1 < argc)
			g_shift = atof(argv[++a]);
		else if (!strcmp(argv[a], "--centre-jitter") && a + 1 < argc)
			g_jitter = atof(argv[++a]);
		else if (!strcmp(argv[a], "--profile") && a + 1 < argc)
			dump = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--scenes") && a + 1 < argc) {
			if ((npick = bench_parse_ints(argv[++a], 0, 63, pick, 64)) < 1) {
				fprintf(stderr, "bench_foot_support: --scenes a,b,.. (corner scenes 0..63)\n");
				return 2;
			}
		} else {
			fprintf(stderr,
				"usage: bench_foot_support [--cap-cross] [--paper [FILTER] | --paper-profile FILTER] | [--seed-add N] [--no-rules] [--loose] [--free] [--cap C] [--cap-power P] [--corner] [--rule-centres] [--centre-shift F] [--centre-jitter F] [--scenes a,b,..] [--profile K]\n");
			return 2;
		}
	}
	if (dump >= 0 && !npick)
		pick[npick++] = dump;
	if (!npick)
		for (int k = 0; k < (g_corner ? 64 : SEM_SMOOTH_SCENES); k++)
			pick[npick++] = k;
	printf("%s scenes, seeds + %u, at the %s centres (moved %.3f R towards the detector, scattered %.3f R); radii / true mean R; foot = where the "
	       "noise-free signal (a1 lobe or a0 - ground, the outer) falls below k SE of the scene-mean profile "
	       "(mean) or of one dome's (dome); a0@3 the azimuthal mean alone; fit: the cos^(2p) foot model, "
	       "formation known, R by grid (p free; p = 1), R's SD by jackknife over domes\n",
	       g_corner ? "corner" : "smooth-footed", seed_add, g_rule_centres ? "dome rule's (matched)" : "TRUE", g_shift, g_jitter);
	printf("%-3s %-4s %-3s %-4s %-3s %-3s %4s %6s %6s | %5s %5s %5s %5s %5s | %5s %5s %5s | %6s %6s | %6s %4s %5s "
	       "%5s | %6s %5s %5s",
	       "k", "fill", "pit", "h/R", "az", "ht", "n", "R px", "noise", "m2", "m3", "a0@3", "d2", "d3", "pk", "r50",
	       "r15", "outD%", "domD%", "fitR", "p", "sd%", "chi", "R|p1", "sd%", "chi");
	if (loose)
		printf(" | %6s %4s %4s %4s %5s %5s", "R|all", "p", "blur", "h", "sd%", "chi");
	printf("\n");
	for (int i = 0; i < npick; i++) {
		int k = pick[i];
		scene_out so;
		sem_opts o;
		scene_opts(k, &o);
		if (run_scene(k, seed_add, rules && dump < 0, dump == k, loose, &so)) {
			printf("%-3d not measured\n", k);
			continue;
		}
		double R = so.Rt;
		printf("%-3d %-4.2f %-3.0f %-4.2f %-3.0f %-3.0f %4d %6.2f %6.4f | %5.3f %5.3f %5.3f %5.3f %5.3f | %5.3f %5.3f "
		       "%5.3f | %+6.1f %+6.1f | %6.3f %4.1f %5.2f %5.1f | %6.3f %5.2f %5.1f",
		       k, o.fill, o.pitch, o.h_over_r, o.det_azimuth * 180 / M_PI, o.halftone, so.n, R, so.sig_pix,
		       so.foot[0][0] / R, so.foot[0][1] / R, so.foot[0][2] / R, so.foot[1][0] / R, so.foot[1][1] / R,
		       so.rpk / R, so.r50 / R, so.r15 / R, so.d_out, so.d_dome, so.fit[0].R / R, so.fit[0].p,
		       100 * so.fit[0].sdR / R, so.fit[0].chi, so.fit[1].R / R, 100 * so.fit[1].sdR / R, so.fit[1].chi);
		if (g_rule_centres)
			printf(" | centres %+.3f R along, RMS %.3f R", so.c_along / R, so.c_rms / R);
		if (loose)
			printf(" | %6.3f %4.2f %4.2f %4.2f %5.2f %5.1f", so.fit[2].R / R, so.fit[2].p, so.fit[2].s, so.fit[2].h,
			       100 * so.fit[2].sdR / R, so.fit[2].chi);
		if (g_free && g_ff_ok) {
			double daz = remainder(g_ff.az - g_ff_az_true, 2 * M_PI) * 180 / M_PI;
			printf(" | free: m2 %5.3f m3 %5.3f az %+5.1f n %d R0 %6.3f chi0 %6.1f | sh %+6.3f R %6.3f p %4.2f blur %4.2f sd%% %5.2f "
			       "chi %6.1f%s",
			       g_ff.foot2 / R, g_ff.foot3 / R, daz, g_ff.n, g_ff.R0s / R, g_ff.chi0, g_ff.shift / R, g_ff.R / R, g_ff.p, g_ff.sig,
			       100 * g_ff.sdR / R, g_ff.chi, g_ff.edge ? " EDGE" : "");
			if (g_ff1_ok)
				printf(" | p=1: R0 %6.3f sh %+6.3f R %6.3f blur %4.2f sd%% %5.2f chi %6.1f", g_ff1.R0s / R,
				       g_ff1.shift / R, g_ff1.R / R, g_ff1.sig, 100 * g_ff1.sdR / R, g_ff1.chi);
		} else if (g_free) {
			printf(" | free: not fitted");
		}
		printf("\n");
		fflush(stdout);
	}
	return 0;
}
