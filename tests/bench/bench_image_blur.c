/*
 * bench_image_blur - how precisely a corner scene tells its own blur when
 * the blur is read once for the whole image: every counted dome's radial
 * profile about its TRUE centre fitted by one rim-bright base model with
 * ONE blur shared by all the domes (and one rim), each dome its own
 * radius, amplitude and ground (issue 13; docs/paper-figures.md, h48b).
 * Asserts nothing: an evidence bench (evidence.list).
 *
 * Why: h47a (bench_level_beam) found that a rim-bright 4-px base blurred
 * by 0.94 px looks like a uniform base 8-20 % larger blurred 0.04-0.12 px
 * less, so the 4-px flat tops' D needs the blur known to about 0.02 px,
 * and a fit of one dome (or of the domes' mean profile) with its blur free
 * reads R -19..+21 %. The blur is one number per image; this asks whether
 * reading it jointly over all the domes, each with its own radius, pins
 * it where one profile does not. The true centres make it an upper bound
 * on what the rule's own centres would give.
 *
 * The models (rim_cums, fit_profiles): a base of radius R and a band
 * inside it, cos(t) base + sin(t) band, blurred by an isotropic Gaussian
 * sigma, times a per-dome amplitude plus a per-dome ground, by least
 * squares with the profile's area weights (rho). Two bands: "rim", 1
 * within W px of the edge (h47a's rim-bright base; W in RIM_W), and
 * "graded", (r / R)^m inside R (m in GRADE_M: a band brightening towards
 * the edge as the secant law's does on a steep side). t runs over (-90,
 * 90] degrees: the simulator's flat tops are about as bright as the
 * ground in the middle (the secant law and the detector's term are 1
 * and 0 on a flat top), so the pure ring (t 90) must be in the family;
 * h47a's rim strengths 0..8 over a base of 1 leave it out. Shared by
 * every dome: sigma (a 0.03-px grid over 0.5 .. 1.85), t and the band's shape; each dome
 * its own R on a grid of pitch / 400 px over 0.05 .. 0.48 pitch (nothing
 * of the truth), refined by a parabola through its three best. The model
 * is linear in (cos t, sin t), so each (sigma, shape, dome, R) is one
 * pass over the profile for every t.
 *
 * Per scene-seed and band one line: the true blur (beam, the measurement
 * image's smoothing and, under a screen, the scan blur, in quadrature:
 * what the simulator's options put in; the pixel's box, the discrete
 * kernels and the profile's bilinear tent are not counted: sigma_D below
 * is the figure that matters), the blur
 * read (the misfit's minimum over the sigma grid, a parabola through its
 * three lowest), the mean D read there and with the blur held at the
 * true one (% of the true mean D), sigma_D (the blur at which the held
 * fit's mean D is the truth: the blur the size would need, interpolated
 * on the grid, the crossing nearest the true blur; nan when none), the
 * band read (t in degrees, W or m), and the same for the domes' MEAN
 * profile alone (h47a's reading, the same model and grids). Then per
 * band and reading, per group (halftone, pitch, profile) over its scenes
 * and seeds: the blur read's bias and SD against the true blur and
 * against sigma_D, how many within 0.03 px, and the mean |D| at the
 * read and at the true blur.
 *
 * Usage: bench_image_blur [--seeds S1,S2,...] [--family rim|graded]
 * [--strength-max F] [--across A] [--rule] [--domes N] [--beam B] [--meas-sigma S]
 * [--set KEY=VALUE]... [SCENE...]; --strength-max: the band's strength
 * over a base of 1 held to 0 .. F in 0.25 steps (h47a's rim-bright base,
 * no ring); --across: the profiles read only within +-A degrees across
 * the detector's axis (no shadow, the detector's term even); --rule:
 * about the dome rule's own centres (the truth's D still the yardstick,
 * the rule's own D printed beside it); --domes: at most N domes a scene
 * (default 32); default
 * all 64 corner scenes, seed set 0, both bands, the scenes' own beam (0.8
 * px), the rule's measurement smoothing (0.5 px below a pitch of 40,
 * else 1). SEM_SCENE_CACHE shares the renders. About 2 s of CPU a scene
 * and seed with both bands.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_methods.h"
#include "bench_support.h"
#include "image/image.h"
#include "radial_blur.h"
#include "sem_opts_keys.h"
#include "sem_scene.h"

#define MAX_SEEDS 16
#define MAX_SCENES 64
/* profile: angles a radius, radial step (px) below and from a pitch of
 * 40 (the pitch-64 domes are 8 and 25.6 px in radius) */
#define PR_ANG 32
#define PR_STEP_SMALL 0.25
#define PR_STEP_LARGE 0.5
/* the profile's reach, in pitches: inside the gap at fill 0.8 */
#define PR_REACH 0.5
/* domes read a scene, at most (evenly among the counted ones), unless
 * --domes says otherwise */
#define MAX_DOMES 32
static int max_domes = MAX_DOMES;
/* the blur grid (px) */
#define SG_LO 0.50
#define SG_HI 1.85
#define SG_STEP 0.03
#define SG_N 46
/* the band's share: the model is cos(t) base + sin(t) band, t over
 * (-90, 90] degrees in F_N steps: a pure ring (t 90: the top as bright
 * as the ground, as the simulator's flat tops are) is in it */
#define F_N 36
/* --strength-max F: h47a's rim instead, the band's strength 0 .. F over
 * a base of 1 in STR_STEP steps (t = atan(strength); no ring) */
#define STR_STEP 0.25
static double strength_max = -1;
/* --across A: the profile only within +-A degrees of the perpendicular
 * to the detector's azimuth (both sides): where the side detector's term
 * is even and no shadow is cast, so the radial profile is the dome's
 * symmetric part; the axis, not its sense, so a formation fit's azimuth
 * read half a turn off (h45a) would give the same sectors. The
 * simulator's azimuth here (an oracle's; 0 = every angle) */
static double across_deg = 0;
/* --rule: the profiles about the dome rule's own centres (fs_detect_domes,
 * each counted true dome's match within a quarter pitch) instead of the
 * true ones; the line then also prints the rule's own mean D over the
 * same domes */
static int rule_centres;
/* the rim band's widths (px) */
static const double RIM_W[] = {0.3, 0.6, 1.0, 1.5, 2.5};
#define W_N 5
/* the graded rim's exponents */
static const int GRADE_M[] = {1, 2, 3, 4, 6, 8, 10, 12, 16, 20};
#define M_N 10
enum { FAM_RIM, FAM_GRADED, NFAM };
static const char *const FAM_NAME[NFAM] = {"rim", "graded"};
/* R's grid: pitch / R_DIV px a step over R_LO .. R_HI pitches */
#define R_DIV 400.0
#define R_LO 0.05
#define R_HI 0.48

typedef struct {
	int n;         /* profile samples */
	double step;   /* px between them */
	double dr;     /* the object's radial grid, px */
	int nr;        /* object radii 0 .. nr * dr */
	int jlo, jhi;  /* R's grid: indices into the object's radii */
	double *cum;   /* [n][nr + 1]: the blurred unit disk of radius j dr at sample i */
	double *cumm;  /* [M_N][n][nr + 1]: the same of r^m (GRADE_M), the graded rim's */
} rim_grid;

/* cum for blur sg: the profile at rho of a disk of radius j dr blurred by
 * sg is the integral over r < j dr of (r / s^2) exp(-(r - rho)^2 / 2 s^2)
 * I0s(r rho / s^2); the model for (R, F, W) is then two of its columns */
static void rim_cums(rim_grid *g, double sg, int graded)
{
	double s2 = sg * sg;
	size_t plane = (size_t)g->n * (g->nr + 1);
	for (int i = 0; i < g->n; i++) {
		double rho = i * g->step, *c = g->cum + (size_t)i * (g->nr + 1);
		c[0] = 0;
		for (int m = 0; graded && m < M_N; m++)
			g->cumm[m * plane + (size_t)i * (g->nr + 1)] = 0;
		for (int j = 0; j < g->nr; j++) {
			double r = (j + 0.5) * g->dr;
			double k = radial_ring_weight(r, rho, s2) * g->dr;
			c[j + 1] = c[j] + k;
			for (int m = 0; graded && m < M_N; m++) {
				double *cm = g->cumm + m * plane + (size_t)i * (g->nr + 1);
				cm[j + 1] = cm[j] + pow(r, GRADE_M[m]) * k;
			}
		}
	}
}

/* A profile's weights (area: rho, the centre a quarter step) */
static double weight(int i, double step)
{
	return i ? i * step : 0.25 * step;
}

/* The least-squares misfit of m = cos(t) c1 + sin(t) c2 (amplitude and
 * ground free)
 * from a profile's sums: sw, sp, spp its own; s1 .. s2p the model's */
typedef struct {
	double s1, s2, s11, s12, s22, s1p, s2p;
} model_sums;

static double misfit_at(const model_sums *q, double t, double sw, double sp, double spp)
{
	double c = cos(t), s = sin(t);
	double sm = c * q->s1 + s * q->s2, smm = c * c * q->s11 + 2 * c * s * q->s12 + s * s * q->s22,
	       smp = c * q->s1p + s * q->s2p;
	double det = sw * smm - sm * sm;
	if (!(det > 1e-300))
		return INFINITY;
	double a = (sw * smp - sm * sp) / det, gr = (sp - a * sm) / sw;
	return spp - a * smp - gr * sp;
}

/* The fit of nd profiles (prof[d * n + i]) with one blur and one rim
 * shared, per-dome R: for each blur of the grid the best (F, shape) and
 * its misfit and mean R (px) into mis[] and rmean[], F and the shape (W
 * px for the rim, the exponent m for the graded rim) into fbest[],
 * wbest[]. The rim family: 1 + F within W of the edge; the graded one:
 * 1 + F (r / R)^m inside R, a band whose brightness rises towards the
 * edge as the secant law's does on a steep-sided top. */
static void fit_profiles(rim_grid *g, int fam, const double *prof, int nd, double *mis, double *rmean,
			 double *fbest, double *wbest)
{
	int nshape = fam == FAM_RIM ? W_N : M_N;
	size_t plane = (size_t)g->n * (g->nr + 1);
	int nj = g->jhi - g->jlo + 1;
	model_sums *q = malloc((size_t)nd * nj * sizeof *q);
	double *own = malloc((size_t)nd * 3 * sizeof *own);
	if (!q || !own) {
		free(q);
		free(own);
		for (int s = 0; s < SG_N; s++)
			mis[s] = rmean[s] = NAN;
		return;
	}
	for (int d = 0; d < nd; d++) {
		const double *p = prof + (size_t)d * g->n;
		double sw = 0, sp = 0, spp = 0;
		for (int i = 0; i < g->n; i++) {
			double w = weight(i, g->step);
			sw += w;
			sp += w * p[i];
			spp += w * p[i] * p[i];
		}
		own[3 * d] = sw;
		own[3 * d + 1] = sp;
		own[3 * d + 2] = spp;
	}
	for (int s = 0; s < SG_N; s++) {
		rim_cums(g, SG_LO + s * SG_STEP, fam == FAM_GRADED);
		mis[s] = INFINITY;
		rmean[s] = fbest[s] = wbest[s] = NAN;
		for (int w = 0; w < nshape; w++) {
			int jw = fam == FAM_RIM ? (int)lround(RIM_W[w] / g->dr) : 0;
			if (fam == FAM_RIM && jw < 1)
				jw = 1;
			for (int d = 0; d < nd; d++) {
				const double *p = prof + (size_t)d * g->n;
				for (int j = g->jlo; j <= g->jhi; j++) {
					model_sums *m = q + (size_t)d * nj + (j - g->jlo);
					memset(m, 0, sizeof *m);
					int jin = j - jw > 0 ? j - jw : 0;
					double rm = fam == FAM_GRADED ? pow(j * g->dr, -GRADE_M[w]) : 0;
					for (int i = 0; i < g->n; i++) {
						const double *c = g->cum + (size_t)i * (g->nr + 1);
						double wt = weight(i, g->step), c1 = c[j];
						double c2 = fam == FAM_RIM ? c[j] - c[jin]
									   : rm * g->cumm[w * plane + (size_t)i * (g->nr + 1) + j];
						m->s1 += wt * c1;
						m->s2 += wt * c2;
						m->s11 += wt * c1 * c1;
						m->s12 += wt * c1 * c2;
						m->s22 += wt * c2 * c2;
						m->s1p += wt * c1 * p[i];
						m->s2p += wt * c2 * p[i];
					}
				}
			}
			int nt = strength_max >= 0 ? (int)floor(strength_max / STR_STEP + 1e-9) + 1 : F_N;
			for (int f = 0; f < nt; f++) {
				double F = strength_max >= 0 ? atan(f * STR_STEP) : M_PI * ((f + 1.0) / F_N - 0.5);
				double tot = 0, rsum = 0;
				for (int d = 0; d < nd; d++) {
					double e0 = INFINITY, e[3];
					int jb = g->jlo;
					for (int j = g->jlo; j <= g->jhi; j++) {
						double e1 = misfit_at(q + (size_t)d * nj + (j - g->jlo), F, own[3 * d],
								      own[3 * d + 1], own[3 * d + 2]);
						if (e1 < e0) {
							e0 = e1;
							jb = j;
						}
					}
					double r = jb * g->dr;
					if (jb > g->jlo && jb < g->jhi) {
						for (int k = -1; k <= 1; k++)
							e[k + 1] = misfit_at(q + (size_t)d * nj + (jb + k - g->jlo), F,
									     own[3 * d], own[3 * d + 1], own[3 * d + 2]);
						double den = e[0] - 2 * e[1] + e[2];
						if (den > 0)
							r += g->dr * 0.5 * (e[0] - e[2]) / den;
					}
					tot += e0;
					rsum += r;
				}
				if (tot < mis[s]) {
					mis[s] = tot;
					rmean[s] = rsum / nd;
					fbest[s] = F * 180 / M_PI;
					wbest[s] = fam == FAM_RIM ? RIM_W[w] : GRADE_M[w];
				}
			}
		}
	}
	free(q);
	free(own);
}

typedef struct {
	double sig_true, sig_read, d_read, d_held, sig_d, f, w;
} blur_read;

/* From the grid's misfits and mean radii: the blur read (a parabola
 * through the lowest misfit and its neighbours), the mean D there and
 * at the true blur (linear between grid points), sigma_D (where the
 * mean D crosses the truth, the crossing nearest the true blur) */
static void read_out(const double *mis, const double *rmean, const double *fb, const double *wb, double d_true,
		     double sig_true, blur_read *o)
{
	int sb = 0;
	for (int s = 1; s < SG_N; s++)
		if (mis[s] < mis[sb])
			sb = s;
	double x = sb;
	if (sb > 0 && sb < SG_N - 1) {
		double den = mis[sb - 1] - 2 * mis[sb] + mis[sb + 1];
		if (den > 0)
			x += 0.5 * (mis[sb - 1] - mis[sb + 1]) / den;
	}
	o->sig_true = sig_true;
	o->sig_read = SG_LO + x * SG_STEP;
	o->f = fb[sb];
	o->w = wb[sb];
	double dd[SG_N];
	for (int s = 0; s < SG_N; s++)
		dd[s] = 100 * (2 * rmean[s] - d_true) / d_true;
	int s0 = (int)floor(x), s1 = s0 + 1 < SG_N ? s0 + 1 : s0;
	o->d_read = dd[s0] + (x - s0) * (dd[s1] - dd[s0]);
	double xt = (sig_true - SG_LO) / SG_STEP;
	int t0 = (int)floor(xt);
	if (t0 < 0 || t0 + 1 >= SG_N)
		o->d_held = NAN;
	else
		o->d_held = dd[t0] + (xt - t0) * (dd[t0 + 1] - dd[t0]);
	o->sig_d = NAN;
	double best = INFINITY;
	for (int s = 0; s + 1 < SG_N; s++)
		if (isfinite(dd[s]) && isfinite(dd[s + 1]) && (dd[s] <= 0) != (dd[s + 1] <= 0)) {
			double c = SG_LO + (s + dd[s] / (dd[s] - dd[s + 1])) * SG_STEP;
			if (fabs(c - sig_true) < best) {
				best = fabs(c - sig_true);
				o->sig_d = c;
			}
		}
}

/* --beam, --meas-sigma: negative = the scene's own */
static double beam_set = -1, meas_set = -1;

/* group of a scene: halftone (bit 3), pitch (bit 5), profile (bit 1) */
#define NGROUP 8
static int group_of(int k)
{
	return (k >> 3 & 1) * 4 + (k >> 5 & 1) * 2 + (k >> 1 & 1);
}

typedef struct {
	int n, n_sd, w03, w03_sd;
	double e, e2, esd, esd2, mabs_read, mabs_held;
} group_sum;

static void add_group(group_sum *g, const blur_read *r)
{
	double e = r->sig_read - r->sig_true;
	g->n++;
	g->e += e;
	g->e2 += e * e;
	g->w03 += fabs(e) <= 0.03;
	g->mabs_read += fabs(r->d_read);
	g->mabs_held += isfinite(r->d_held) ? fabs(r->d_held) : 0;
	if (isfinite(r->sig_d)) {
		double f = r->sig_read - r->sig_d;
		g->n_sd++;
		g->esd += f;
		g->esd2 += f * f;
		g->w03_sd += fabs(f) <= 0.03;
	}
}

static void print_group(const char *name, const group_sum *g)
{
	if (!g->n)
		return;
	double m = g->e / g->n, sd = g->n > 1 ? sqrt(fmax(0, (g->e2 - g->n * m * m) / (g->n - 1))) : NAN;
	double ms = g->n_sd ? g->esd / g->n_sd : NAN;
	double sds = g->n_sd > 1 ? sqrt(fmax(0, (g->esd2 - g->n_sd * ms * ms) / (g->n_sd - 1))) : NAN;
	printf("%-34s n %3d | read-true %+7.3f SD %.3f within 0.03: %3d | read-sigma_D %+7.3f SD %.3f within 0.03: "
	       "%3d of %3d | mean |D| at read %6.2f %%, at true %6.2f %%\n",
	       name, g->n, m, sd, g->w03, ms, sds, g->w03_sd, g->n_sd, g->mabs_read / g->n, g->mabs_held / g->n);
}

/* the families asked for (--family rim|graded; default both) */
static int fam_on[NFAM] = {1, 1};

/* out[fam][0] the joint fit's reading, out[fam][1] the mean profile's */
static int read_scene(int k, unsigned seed_add, const sem_opts_args *set, blur_read out[NFAM][2])
{
	sem_opts o;
	sem_corner_args(k, seed_add, set, &o);
	if (beam_set >= 0)
		o.beam_blur = beam_set;
	sem_scene sim;
	if (sem_scene_render(&sim, &o)) {
		printf("%d +%u: %s\n", k, seed_add, sim.err);
		return -1;
	}
	fs_image *meas = NULL;
	char err[256];
	double pitch = sim.tr.pitch, msig = meas_set >= 0 ? meas_set : pitch >= 40 ? 1.0 : 0.5;
	if (fs_detect_measure_image(sim.img, &sim.p, msig, &meas, err, sizeof err)) {
		printf("%d +%u: %s\n", k, seed_add, err);
		sem_scene_close(&sim);
		return -1;
	}
	rim_grid g;
	g.step = pitch >= 40 ? PR_STEP_LARGE : PR_STEP_SMALL;
	g.n = (int)(PR_REACH * pitch / g.step) + 1;
	g.dr = pitch / R_DIV;
	g.nr = (int)ceil(R_HI * pitch / g.dr) + 1;
	g.jlo = (int)ceil(R_LO * pitch / g.dr);
	g.jhi = (int)floor(R_HI * pitch / g.dr);
	g.cum = malloc((size_t)g.n * (g.nr + 1) * sizeof *g.cum);
	g.cumm = malloc((size_t)M_N * g.n * (g.nr + 1) * sizeof *g.cumm);
	/* --rule: the dome rule's centres, each counted true dome's match */
	fs_detect_result res;
	memset(&res, 0, sizeof res);
	int *mt = NULL;
	if (rule_centres) {
		mt = malloc((sim.tr.n ? sim.tr.n : 1) * sizeof *mt);
		if (!mt || fs_detect_domes(sim.img, &sim.p, 0, &res, err, sizeof err) ||
		    sem_match_tubercles(&sim.tr, &res.tubercles, NULL, mt)) {
			printf("%d +%u: the rule's centres: %s\n", k, seed_add, mt ? err : "out of memory");
			free(mt);
			fs_detect_result_free(&res);
			fs_image_free(meas);
			sem_scene_close(&sim);
			return -1;
		}
	}
	size_t nc = 0;
	for (size_t j = 0; j < sim.tr.n; j++)
		nc += sem_counted(&sim.tr, sim.tr.x[j], sim.tr.y[j]) && (!mt || mt[j] >= 0);
	int nd = nc < (size_t)max_domes ? (int)nc : max_domes;
	double *prof = calloc((size_t)(nd + 1) * g.n, sizeof *prof);
	int rc = -1;
	double rule_d = 0, rule_t = 0;
	if (!g.cum || !g.cumm || !prof || !nd) {
		printf("%d +%u: %s\n", k, seed_add, nd ? "out of memory" : "no counted dome");
		goto out;
	}
	/* evenly among the counted domes; the last row their mean */
	double d_true = 0, *pm = prof + (size_t)nd * g.n;
	size_t c = 0;
	int d = 0;
	for (size_t j = 0; j < sim.tr.n && d < nd; j++) {
		if (!sem_counted(&sim.tr, sim.tr.x[j], sim.tr.y[j]) || (mt && mt[j] < 0))
			continue;
		if (c++ * nd / nc != (size_t)d)
			continue;
		double *p = prof + (size_t)d * g.n, cx = sim.tr.x[j], cy = sim.tr.y[j];
		if (mt) {
			const fs_tubercle *t = &res.tubercles.items[mt[j]];
			cx = t->centroid_x;
			cy = t->centroid_y;
			if (fs_tubercle_measured(t)) {
				rule_d += 2 * t->radius_px;
				rule_t += sim.tr.d[j];
			}
		}
		for (int i = 0; i < g.n; i++) {
			double r = i * g.step, s = 0;
			for (int a = 0; a < PR_ANG; a++) {
				double t = 2 * M_PI * a / PR_ANG;
				if (across_deg > 0) {
					/* two sectors across the detector's axis, half the
					 * angles each */
					double u = ((a / 2) + 0.5) / (PR_ANG / 2) - 0.5;
					t = o.det_azimuth + M_PI / 2 + (a % 2) * M_PI + u * 2 * across_deg * M_PI / 180;
				}
				s += fs_image_sample_clamped(meas, cx + r * cos(t), cy + r * sin(t));
			}
			p[i] = s / PR_ANG;
			pm[i] += p[i] / nd;
		}
		d_true += sim.tr.d[j] / nd;
		d++;
	}
	double sig_true = sqrt(o.beam_blur * o.beam_blur + msig * msig + (o.halftone > 0 ? o.scan_blur * o.scan_blur : 0));
	double mis[SG_N], rm[SG_N], fb[SG_N], wb[SG_N];
	for (int f = 0; f < NFAM; f++) {
		if (!fam_on[f])
			continue;
		blur_read *joint = &out[f][0], *mean = &out[f][1];
		fit_profiles(&g, f, prof, nd, mis, rm, fb, wb);
		read_out(mis, rm, fb, wb, d_true, sig_true, joint);
		fit_profiles(&g, f, pm, 1, mis, rm, fb, wb);
		read_out(mis, rm, fb, wb, d_true, sig_true, mean);
		printf("%-2d +%-5u ht %d p %2.0f %s fill %.2f h/R %.2f (%2d domes) %-6s true %.3f | joint: read %.3f "
		       "(%+.3f) sigma_D %.3f D at read %+6.2f %% at true %+6.2f %% band %+4.0f deg %s %.1f | mean: read %.3f (%+.3f) "
		       "sigma_D %.3f D at read %+6.2f %% at true %+6.2f %%\n",
		       k, seed_add, o.halftone > 0, pitch, o.profile > 1.5 ? "flat" : "sph ", o.fill, o.h_over_r, nd,
		       FAM_NAME[f], sig_true, joint->sig_read, joint->sig_read - sig_true, joint->sig_d, joint->d_read,
		       joint->d_held, joint->f, f == FAM_RIM ? "w" : "m", joint->w, mean->sig_read,
		       mean->sig_read - sig_true, mean->sig_d, mean->d_read, mean->d_held);
	}
	if (mt)
		printf("%-2d +%-5u the rule's own mean D over the same measured domes %+6.2f %%\n", k, seed_add,
		       rule_t > 0 ? 100 * (rule_d - rule_t) / rule_t : NAN);
	fflush(stdout);
	rc = 0;
out:
	free(g.cum);
	free(g.cumm);
	free(prof);
	free(mt);
	fs_detect_result_free(&res);
	fs_image_free(meas);
	sem_scene_close(&sim);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned seed_add = 0;
	sem_opts_args set;
	memset(&set, 0, sizeof set);
	unsigned seeds[MAX_SEEDS];
	int nsd = 0, scenes[MAX_SCENES], ns = 0;
	for (int i = 1; i < argc; i++) {
		if (sem_bench_arg(argc, argv, &i, &seed_add, &set))
			continue;
		if (!strcmp(argv[i], "--seeds") && i + 1 < argc) {
			if ((nsd = bench_parse_seeds(argv[++i], seeds, MAX_SEEDS)) < 1) {
				fprintf(stderr, "bench_image_blur: --seeds S1,S2,...\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--family") && i + 1 < argc) {
			i++;
			for (int f = 0; f < NFAM; f++)
				fam_on[f] = !strcmp(argv[i], FAM_NAME[f]);
		} else if (!strcmp(argv[i], "--domes") && i + 1 < argc) {
			if ((max_domes = atoi(argv[++i])) < 1) {
				fprintf(stderr, "bench_image_blur: --domes N (N >= 1)\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--rule"))
			rule_centres = 1;
		else if (!strcmp(argv[i], "--across") && i + 1 < argc)
			across_deg = atof(argv[++i]);
		else if (!strcmp(argv[i], "--strength-max") && i + 1 < argc)
			strength_max = atof(argv[++i]);
		else if (!strcmp(argv[i], "--beam") && i + 1 < argc)
			beam_set = atof(argv[++i]);
		else if (!strcmp(argv[i], "--meas-sigma") && i + 1 < argc)
			meas_set = atof(argv[++i]);
		else if (ns < MAX_SCENES)
			scenes[ns++] = atoi(argv[i]);
	}
	if (!ns)
		for (int k = 0; k < MAX_SCENES; k++)
			scenes[ns++] = k;
	if (!nsd) {
		seeds[0] = seed_add;
		nsd = 1;
	}
	printf("the blur read once for the whole image: every counted dome's radial profile about its TRUE centre, "
	       "one rim model with one blur (bench_image_blur.c); blurs in px, D in %% of the true mean D\n");
	/* [family][joint, mean][group, NGROUP = all] */
	static group_sum gs[NFAM][2][NGROUP + 1];
	int bad = 0;
	for (int s = 0; s < ns; s++)
		for (int q = 0; q < nsd; q++) {
			blur_read r[NFAM][2];
			if (read_scene(scenes[s], seeds[q], &set, r)) {
				bad = 1;
				continue;
			}
			int gi = group_of(scenes[s]);
			for (int f = 0; f < NFAM; f++)
				for (int v = 0; v < 2 && fam_on[f]; v++) {
					add_group(&gs[f][v][gi], &r[f][v]);
					add_group(&gs[f][v][NGROUP], &r[f][v]);
				}
		}
	for (int f = 0; f < NFAM; f++)
		for (int v = 0; v < 2 && fam_on[f]; v++) {
			printf("%s, %s\n", FAM_NAME[f],
			       v ? "MEAN PROFILE (h47a's reading: the domes' mean profile alone)"
				 : "JOINT (one blur and one rim shared, each dome its R)");
			for (int gi = 0; gi < NGROUP; gi++) {
				char name[64];
				snprintf(name, sizeof name, "%s pitch %d %s", gi & 4 ? "screen 5" : "no screen",
					 gi & 2 ? 64 : 16, gi & 1 ? "flat tops" : "spherical");
				print_group(name, &gs[f][v][gi]);
			}
			print_group("all", &gs[f][v][NGROUP]);
		}
	return bad;
}
