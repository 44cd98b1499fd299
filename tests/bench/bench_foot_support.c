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
 * Cost: about 1 s of CPU a scene with renders cached (6 s with --loose),
 * plus the two rules' detections (1-3 s a scene).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/preprocess.h"
#include "sem_cache.h"
#include "sem_score.h"
#include "sem_sim.h"

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
	unsigned long long st = 0x243F6A8885A308D3ULL;
	for (int q = 0; q < n * n; q += 2) {
		double u[2];
		for (int h = 0; h < 2; h++) {
			st ^= st >> 12;
			st ^= st << 25;
			st ^= st >> 27;
			u[h] = ((st * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
		}
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

static void scene_opts(int k, sem_opts *o)
{
	if (g_corner)
		sem_corner_scene(k, o);
	else
		sem_smooth_scene(k, o);
}

static int run_scene(int k, unsigned seed_add, int rules, int profile_dump, int loose_fit, scene_out *so)
{
	memset(so, 0, sizeof *so);
	double *cx = NULL, *cy = NULL;
	sem_opts o, oc;
	sem_truth t, tc;
	scene_opts(k, &o);
	o.seed += seed_add;
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
		unsigned long long st = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)(k + 1);
		for (size_t i = 0; i < t.n; i++) {
			double g[2] = {0, 0};
			if (g_jitter > 0) {
				double u[2];
				for (int h = 0; h < 2; h++) {
					st ^= st >> 12;
					st ^= st << 25;
					st ^= st >> 27;
					u[h] = ((st * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
				}
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
		int m = 0;
		double m0 = 0, m1 = 0;
		for (int d = 0; d < nc; d++) {
			acc L = T[j];
			acc_add(&L, &A[(size_t)d * nb + j], -1);
			if (acc_solve(&L, 0, &jk0[m], &jk1[m]))
				continue;
			m0 += jk0[m];
			m1 += jk1[m];
			m++;
		}
		if (m < 3) {
			ok[j] = 0;
			continue;
		}
		m0 /= m;
		m1 /= m;
		double v0 = 0, v1 = 0;
		for (int d = 0; d < m; d++) {
			v0 += (jk0[d] - m0) * (jk0[d] - m0);
			v1 += (jk1[d] - m1) * (jk1[d] - m1);
		}
		E0[j] = sqrt((m - 1.0) / m * v0);
		E1[j] = sqrt((m - 1.0) / m * v1);
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
	free(d1);
	free(d2);
	free(i1);
	free(counted);
	free(cx);
	free(cy);
	sem_truth_free(&t);
	fs_image_free(img);
	fs_image_free(cln);
	return 0;
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
	return -1;
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
			for (char *s = argv[++a]; *s && npick < 64;) {
				int k = (int)strtol(s, &s, 10);
				if (k >= 0 && k < 64)
					pick[npick++] = k;
				if (*s == ',')
					s++;
				else
					break;
			}
		} else {
			fprintf(stderr,
				"usage: bench_foot_support [--seed-add N] [--no-rules] [--loose] [--corner] [--rule-centres] [--centre-shift F] [--centre-jitter F] [--scenes a,b,..] [--profile K]\n");
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
		printf("\n");
		fflush(stdout);
	}
	return 0;
}
