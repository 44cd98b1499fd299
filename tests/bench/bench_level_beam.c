/*
 * bench_level_beam - the level reader's excess on the 4-px domes (corner
 * groups A and E: pitch 16, fill 0.25) from the TRUE centres, against the
 * simulator's beam (issue 13; docs/paper-figures.md, h47a). Asserts
 * nothing.
 *
 * Why: h41b and h46a found the level reading (fs_dome_measure_base_blur)
 * of a 4-px base +14..+20 % of D on the flat tops and +4..+8 % on the caps
 * from the true centres, made in the reader's first stage (the polygon of
 * the rays' steepest steps) and its step inversion. Which of the image's
 * parts makes it - the beam's blur against a 2-px radius, the step
 * model's foot (the inversion), the inner slope's shift, the pixel grid's
 * phase, or the dome's own signal - is read here by rendering each scene
 * again with the beam's sigma changed (and, with --set, any other option:
 * shiftx / shifty the grid's phase, dose=0 no noise), everything else the
 * scene's.
 *
 * Per scene, seed set and beam, one line: the stages' mean D in % of the
 * true mean D over the counted domes, read on the rule's measurement
 * image (0.5-px smoothing, as Re-measure's) - rpoly (the polygon's area
 * radius), ish (the inner shift's share: rpoly-ish less rpoly), inv (the
 * step inversion's share: r_step less rpoly-ish), small (the small-base
 * fit's share of the blend), read (the reading) - the rays' own blur
 * (sigma, px), and three numbers of the domes' mean radial profile about
 * the true centres (the ground its mean over 5-7 px): dip (the profile's
 * maximum above its centre over the centre's height above the ground: 0
 * for a blurred disk, > 0 for a ring), rpk (the maximum's radius, px) and
 * m2 (the disk-equivalent radius of the contrast within 5 px, sqrt(2
 * <r^2>), with the image's blur variance taken off, v = beam^2 + 0.5^2:
 * the radius of the uniform disk with the same second moment, in % of the
 * true mean D; an oracle's reading, since v is the simulator's); then rk
 * and rl, the disk-equivalent radii (% of D) of the profile's 4th- and
 * 6th-order coefficients of the log of its Fourier transform, which a
 * Gaussian blur leaves alone (profile_numbers: K = -R^4 / 6 and L = R^6
 * / 4 for a uniform disk). Then per profile (flat tops, group A; the
 * rest, group E's caps) and beam the means over its scenes and seed sets.
 *
 * --rim-fit: a line RIMFIT a scene: the mean profile about the TRUE
 * centres fitted by a blurred rim-bright base with its radius, rim,
 * rim width and blur all free (rim_joint_fit).
 * --meas-sigma S: the measurement image smoothed by S px instead of the
 * rule's 0.5 (the blur variance m2 takes off follows it).
 * --disk R [--rim F] [--rim-w W]: instead of the scenes, ideal discs of
 * radius R px (brightness 1, 1 + F within W px of the base; default F 0,
 * W 0.5) blurred by each beam alone (read_disks): the reader's bias on a
 * small base with nothing of the simulator's signal, and with a rim band.
 *
 * --degeneracy R,F,W,S: the rim-bright base (radius R, rim F over W px)
 * blurred by S, fitted by a blurred uniform disk with its radius and
 * blur free, and with the blur held (degeneracy()): how much larger a
 * uniform base the same profile could be, and how far its profile lies
 * from the rim's; then the rim's own model (width held, strength free)
 * with the blur given exactly and 0.03 / 0.1 px off (rim_fit): the
 * radius it reads and the radii it cannot tell from it (RMS misfit within
 * 0.1 % of the peak).
 *
 * Usage: bench_level_beam [--seed-add N] [--seeds S1,S2,...]
 * [--beams B1,B2,...] [--set KEY=VALUE]... [--meas-sigma S] [--rim-fit]
 * [--degeneracy R,F,W,S] [--disk R [--rim F] [--rim-w W]] [SCENE...];
 * default scenes 2 6 18 22 (A) 0 4 16 20 (E), beams 0.3,0.5,0.65,0.8,0.95,1.1 (0.8 is the
 * corner scenes' own), seeds the --seed-add one. About 0.3 s of CPU a
 * scene and beam once rendered (SEM_SCENE_CACHE).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_methods.h"
#include "analysis/dome_measure.h"
#include "analysis/params.h"
#include "analysis/preprocess.h"
#include "bench_support.h"
#include "image/image.h"
#include "radial_blur.h"
#include "sem_opts_keys.h"
#include "scene_sets.h"
#include "sem_scene.h"

/* the last step's reach (detect.c: 0.6 of the lattice's pitch) */
#define REACH 0.6
/* the mean radial profile: radii 0 .. PR_N - 1 times PR_STEP px */
#define PR_STEP 0.25
#define PR_N 29
#define PR_ANG 24
/* the contrast's second moment within this radius (px) */
#define M2_REACH 5.0
/* the ground: the profile's mean between these radii (px) */
#define GROUND_LO 5.0
#define GROUND_HI 7.0

#define MAX_BEAMS 16
#define MAX_SEEDS 16
#define MAX_SCENES 64

enum { ST_RPOLY, ST_ISH, ST_INV, ST_SMALL, ST_READ, ST_SIGMA, ST_DIP, ST_RPK, ST_M2, ST_RK, ST_RL, ST_N };

typedef struct {
	double v[ST_N];
	int ok, flat;
} beam_row;

static void mean_profile_at(const fs_image *img, double x, double y, double *prof)
{
	for (int i = 0; i < PR_N; i++) {
		double r = i * PR_STEP, s = 0;
		for (int a = 0; a < PR_ANG; a++) {
			double t = 2 * M_PI * a / PR_ANG;
			s += fs_image_sample_clamped(img, x + r * cos(t), y + r * sin(t));
		}
		prof[i] += s / PR_ANG;
	}
}

/* dip, rpk, m2, rk and rl (see the header) of the summed profile prof
 * over n domes; d_true the true mean D, v the blur variance taken off */
static void profile_numbers(const double *prof, double d_true, double v, double *out)
{
	double g = 0;
	int ng = 0;
	for (int i = 0; i < PR_N; i++)
		if (i * PR_STEP >= GROUND_LO && i * PR_STEP <= GROUND_HI) {
			g += prof[i];
			ng++;
		}
	g /= ng;
	int im = 0;
	for (int i = 1; i * PR_STEP < GROUND_LO; i++)
		if (prof[i] > prof[im])
			im = i;
	out[ST_RPK - ST_DIP] = im * PR_STEP;
	out[0] = prof[0] - g > 0 ? (prof[im] - prof[0]) / (prof[0] - g) : NAN;
	/* the contrast's moments E[r^2], E[r^4], E[r^6] over the disk's
	 * area (r dr), trapezoids */
	double s[4] = {0};
	for (int i = 0; i + 1 < PR_N && (i + 1) * PR_STEP <= M2_REACH; i++) {
		double r0 = i * PR_STEP, r1 = r0 + PR_STEP, c0 = (prof[i] - g) * r0, c1 = (prof[i + 1] - g) * r1;
		for (int m = 0; m < 4; m++) {
			s[m] += 0.5 * PR_STEP * (c0 + c1);
			c0 *= r0 * r0;
			c1 *= r1 * r1;
		}
	}
	double e2 = s[1] / s[0], e4 = s[2] / s[0], e6 = s[3] / s[0];
	/* blurring a radial distribution by an isotropic Gaussian of
	 * variance v adds 2 v to E[r^2]; the coefficients of the log of its
	 * Fourier transform beyond k^2 do not move: K = E4 - 2 E2^2 and
	 * L = E6 - 9 E2 E4 + 12 E2^3 (a uniform disk of radius R: E2 = R^2 / 2,
	 * K = -R^4 / 6, L = R^6 / 4; a thin ring of radius a: K = -a^4,
	 * L = 4 a^6) */
	double r2 = s[0] > 0 ? e2 - 2 * v : NAN, k = e4 - 2 * e2 * e2, l = e6 - 9 * e2 * e4 + 12 * e2 * e2 * e2;
	out[ST_M2 - ST_DIP] = r2 > 0 ? 100 * (2 * sqrt(2 * r2) - d_true) / d_true : NAN;
	out[ST_RK - ST_DIP] = k < 0 ? 100 * (2 * pow(-6 * k, 0.25) - d_true) / d_true : NAN;
	out[ST_RL - ST_DIP] = l > 0 ? 100 * (2 * pow(4 * l, 1.0 / 6) - d_true) / d_true : NAN;
}

/* --rim-fit: the domes' mean radial profile about the TRUE centres
 * (mean_profile_at's radii, out to GROUND_HI) fitted by a rim-bright
 * base blurred by an isotropic Gaussian - radius R, rim F over W px,
 * blur S, all four searched on grids (R 1.2-3.2 px, F 0-8, W 0.2-1.6
 * px, S 0.6-1.3 px), amplitude and ground free (least
 * squares, weights the radius): whether the profile itself reads R and S
 * together where the reader cannot. The blurred profile is linear in the
 * object, so per S the kernel's cumulative sums over the object's radius
 * are made once (RF_DR px a step) and each (R, F, W) is two of them. */
#define RF_DR 0.02
#define RF_NR 200
static int rim_fit_on;
static void rim_joint_fit(const double *prof, double r_true, double *out)
{
	static double cum[PR_N][RF_NR + 1];
	double best = INFINITY, b[4] = {NAN, NAN, NAN, NAN};
	for (double sg = 0.60; sg <= 1.30 + 1e-9; sg += 0.02) {
		double s2 = sg * sg;
		for (int i = 0; i < PR_N; i++) {
			double rho = i * PR_STEP;
			cum[i][0] = 0;
			for (int j = 0; j < RF_NR; j++) {
				double r = (j + 0.5) * RF_DR;
				cum[i][j + 1] = cum[i][j] + radial_ring_weight(r, rho, s2) * RF_DR;
			}
		}
		for (int jr = 60; jr <= 160; jr++) /* R 1.2 .. 3.2 px */
			for (int jw = 10; jw <= 80; jw += 10) /* W 0.2 .. 1.6 px */
				for (double f = 0; f <= 8 + 1e-9; f += 0.25) {
					if (jw > jr)
						continue;
					double m[PR_N], sw = 0, sm = 0, sp = 0, smm = 0, smp = 0, spp = 0;
					for (int i = 0; i < PR_N && i * PR_STEP <= GROUND_HI; i++) {
						m[i] = cum[i][jr] + f * (cum[i][jr] - cum[i][jr - jw]);
						double w = i ? i * PR_STEP : 0.25 * PR_STEP;
						sw += w;
						sm += w * m[i];
						sp += w * prof[i];
						smm += w * m[i] * m[i];
						smp += w * m[i] * prof[i];
						spp += w * prof[i] * prof[i];
					}
					/* amplitude and ground: two-parameter least squares */
					double det = sw * smm - sm * sm;
					if (!(det > 0))
						continue;
					double a = (sw * smp - sm * sp) / det, g = (sp - a * sm) / sw;
					double e = spp - 2 * a * smp - 2 * g * sp + a * a * smm + 2 * a * g * sm + g * g * sw;
					if (e < best) {
						best = e;
						b[0] = jr * RF_DR;
						b[1] = f;
						b[2] = jw * RF_DR;
						b[3] = sg;
					}
				}
	}
	out[0] = 100 * (b[0] - r_true) / r_true;
	out[1] = b[1];
	out[2] = b[2];
	out[3] = b[3];
}

/* --meas-sigma S: the measurement image's smoothing (px) instead of the
 * rule's (0.5 below pitch 40, else 1) */
static double meas_sigma = -1;

static int read_scene(int k, unsigned seed_add, double beam, const sem_opts_args *set, beam_row *row)
{
	sem_opts o;
	sem_corner_args(k, seed_add, set, &o);
	o.beam_blur = beam;
	sem_scene sim;
	memset(row, 0, sizeof *row);
	if (sem_scene_render(&sim, &o)) {
		printf("%d: %s\n", k, sim.err);
		return -1;
	}
	fs_image *meas = NULL;
	char err[256];
	double msig = meas_sigma >= 0 ? meas_sigma : sim.tr.pitch >= 40 ? 1.0 : 0.5;
	if (fs_detect_measure_image(sim.img, &sim.p, msig, &meas, err, sizeof err)) {
		printf("%d: %s\n", k, err);
		sem_scene_close(&sim);
		return -1;
	}
	double mr = REACH * sim.tr.pitch, r0 = FS_DOME_R0 * mr, r1 = FS_DOME_R1 * mr;
	double sum[5] = {0}, tru = 0, sig = 0, dsum = 0, prof[PR_N] = {0};
	size_t n = 0, nd = 0, nsig = 0;
	for (size_t j = 0; j < sim.tr.n; j++) {
		if (!sem_counted(&sim.tr, sim.tr.x[j], sim.tr.y[j]))
			continue;
		mean_profile_at(meas, sim.tr.x[j], sim.tr.y[j], prof);
		dsum += sim.tr.d[j];
		nd++;
		fs_dome_base_trace tr;
		if (fs_dome_measure_base_trace(meas, sim.tr.x[j], sim.tr.y[j], r0, r1, &tr) || !isfinite(tr.radius))
			continue;
		/* the blend's stages as radii: the small fit's share is what
		 * the reading has beyond the step's inversion; a reading whose
		 * rays show no blur (sigma NAN) is its raw radius, every
		 * stage after the inner shift that radius */
		double st[5] = {tr.rpoly, tr.rpoly - tr.ishift, isfinite(tr.r_step) ? tr.r_step : tr.radius, tr.radius,
				tr.radius};
		for (int s = 0; s < 5; s++)
			sum[s] += 2 * st[s];
		tru += sim.tr.d[j];
		if (isfinite(tr.sigma)) {
			sig += tr.sigma;
			nsig++;
		}
		n++;
	}
	if (n && nd) {
		double pct[4];
		for (int s = 0; s < 4; s++)
			pct[s] = 100 * (sum[s] - tru) / tru;
		row->v[ST_RPOLY] = pct[0];
		row->v[ST_ISH] = pct[1] - pct[0];
		row->v[ST_INV] = pct[2] - pct[1];
		row->v[ST_SMALL] = pct[3] - pct[2];
		row->v[ST_READ] = pct[3];
		row->v[ST_SIGMA] = nsig ? sig / nsig : NAN;
		for (int i = 0; i < PR_N; i++)
			prof[i] /= nd;
		profile_numbers(prof, dsum / nd, beam * beam + msig * msig, &row->v[ST_DIP]);
		row->ok = 1;
		row->flat = o.profile > 1.5;
		if (rim_fit_on) {
			double q[4];
			rim_joint_fit(prof, 0.5 * dsum / nd, q);
			printf("RIMFIT %d +%u beam %.2f: R %+6.2f %% rim %.2f w %.2f blur %.2f (the image's %.3f)\n", k,
			       seed_add, beam, q[0], q[1], q[2], q[3], sqrt(beam * beam + msig * msig));
		}
		printf("%-3d %s h/R %.2f +%-5u beam %.2f: rpoly %+6.2f ish %+6.2f inv %+6.2f small %+6.2f "
		       "read %+6.2f | sigma %.3f | dip %.3f rpk %.2f m2 %+6.2f rk %+6.2f rl %+6.2f (%zu read)\n",
		       k, row->flat ? "flat" : "sph ", o.h_over_r, seed_add, beam,
		       row->v[ST_RPOLY], row->v[ST_ISH], row->v[ST_INV], row->v[ST_SMALL], row->v[ST_READ],
		       row->v[ST_SIGMA], row->v[ST_DIP], row->v[ST_RPK], row->v[ST_M2], row->v[ST_RK], row->v[ST_RL], n);
	}
	fs_image_free(meas);
	sem_scene_close(&sim);
	return row->ok ? 0 : -1;
}

/* --disk: discs of radius R on a square lattice of pitch 16 (sub-pixel
 * phases drawn by a fixed LCG), their area coverage on 8 x 8 sub-samples
 * a pixel, brightness 1 on 0 and 1 + rim within rim_w px of the base,
 * blurred by beam (px, fs_gaussian_blur) and nothing else; read from the
 * TRUE centres as read_scene reads: the reader's own bias on a 4-px base
 * without the simulator's signal. */
#define DISK_PITCH 16
#define DISK_N 12
static int read_disks(double R, double rim, double rim_w, double beam, const fs_params *p)
{
	int W = DISK_PITCH * (DISK_N + 1), nd = DISK_N * DISK_N;
	fs_image *img = fs_image_new(W, W);
	double *cx = malloc(nd * sizeof *cx), *cy = malloc(nd * sizeof *cy);
	if (!img || !cx || !cy) {
		fs_image_free(img);
		free(cx);
		free(cy);
		return -1;
	}
	/* the pixels a disc may touch (below half the pitch) */
	int reach = (int)ceil(R) + 2;
	if (reach > DISK_PITCH / 2 - 1)
		reach = DISK_PITCH / 2 - 1;
	unsigned lcg = 12345;
	for (int k = 0; k < nd; k++) {
		lcg = lcg * 1103515245u + 12345u;
		double u = ((lcg >> 8) & 0xffff) / 65536.0;
		lcg = lcg * 1103515245u + 12345u;
		double v = ((lcg >> 8) & 0xffff) / 65536.0;
		cx[k] = DISK_PITCH * (1 + k % DISK_N) + u - 0.5;
		cy[k] = DISK_PITCH * (1 + k / DISK_N) + v - 0.5;
		for (int y = (int)cy[k] - reach; y <= (int)cy[k] + reach; y++)
			for (int x = (int)cx[k] - reach; x <= (int)cx[k] + reach; x++) {
				double a = 0;
				for (int sy = 0; sy < 8; sy++)
					for (int sx = 0; sx < 8; sx++) {
						double dx = x - 0.5 + (sx + 0.5) / 8 - cx[k],
						       dy = y - 0.5 + (sy + 0.5) / 8 - cy[k], r = hypot(dx, dy);
						if (r <= R)
							a += r >= R - rim_w ? 1 + rim : 1;
					}
				img->data[(size_t)y * W + x] += (float)(a / 64);
			}
	}
	char err[256];
	int rc = beam > 0 ? fs_gaussian_blur(img, beam, err, sizeof err) : 0;
	double mr = REACH * DISK_PITCH, r0 = FS_DOME_R0 * mr, r1 = FS_DOME_R1 * mr, sum[4] = {0}, sig = 0;
	int n = 0, ns = 0;
	(void)p;
	for (int k = 0; !rc && k < nd; k++) {
		fs_dome_base_trace tr;
		if (fs_dome_measure_base_trace(img, cx[k], cy[k], r0, r1, &tr) || !isfinite(tr.radius))
			continue;
		/* a reading whose rays show no blur (sigma NAN) is the raw
		 * radius: every stage then that radius */
		double st[4] = {tr.rpoly, tr.rpoly - tr.ishift, isfinite(tr.r_step) ? tr.r_step : tr.radius, tr.radius};
		for (int s = 0; s < 4; s++)
			sum[s] += st[s];
		if (isfinite(tr.sigma)) {
			sig += tr.sigma;
			ns++;
		}
		n++;
	}
	if (n) {
		double pct[4];
		sig = ns ? sig / ns : NAN;
		for (int s = 0; s < 4; s++)
			pct[s] = 100 * (sum[s] / n - R) / R;
		printf("disk R %.2f rim %+.2f w %.2f beam %.2f: rpoly %+6.2f ish %+6.2f inv %+6.2f small %+6.2f read %+6.2f "
		       "| sigma %.3f (%d read)\n",
		       R, rim, rim_w, beam, pct[0], pct[1] - pct[0], pct[2] - pct[1], pct[3] - pct[2], pct[3], sig, n);
	}
	fs_image_free(img);
	free(cx);
	free(cy);
	return rc || !n ? -1 : 0;
}

/* The radial profile at rho = 0, DG_STEP, .. of a radially symmetric
 * object (brightness 1 below R, 1 + rim within rim_w of R, 0 outside)
 * blurred by an isotropic Gaussian sigma: the integral over the object's
 * radius r of f(r) (r / s^2) exp(-(r - rho)^2 / 2 s^2) I0s(r rho / s^2). */
#define DG_STEP 0.05
#define DG_N 120
static void blurred_profile(double R, double rim, double rim_w, double sigma, double *prof)
{
	const double dr = 0.01;
	double s2 = sigma * sigma;
	for (int i = 0; i < DG_N; i++) {
		double rho = i * DG_STEP, acc = 0;
		for (double r = 0.5 * dr; r < R; r += dr) {
			double f = r >= R - rim_w ? 1 + rim : 1;
			acc += f * r / s2 * exp(-0.5 * (r - rho) * (r - rho) / s2) * radial_i0_scaled(r * rho / s2) * dr;
		}
		prof[i] = acc;
	}
}

/* The misfit of a rim model (radius r, rim f over rim_w) blurred by
 * sigma to obj, the amplitude free, by least squares over the disk's
 * area (weights rho); the amplitude into *amp (may be NULL). */
static double rim_misfit(const double *obj, double r, double f, double rim_w, double sigma, double *amp)
{
	double m[DG_N], smm = 0, smo = 0, soo = 0;
	blurred_profile(r, f, rim_w, sigma, m);
	for (int i = 0; i < DG_N; i++) {
		double w = i ? i * DG_STEP : 0.25 * DG_STEP;
		smm += w * m[i] * m[i];
		smo += w * m[i] * obj[i];
		soo += w * obj[i] * obj[i];
	}
	if (amp)
		*amp = smo / smm;
	return soo - smo * smo / smm;
}

/* --degeneracy R,F,W,S: how far the image can tell a rim-bright base from
 * a larger uniform one. The object (radius R, rim F over W px) blurred by
 * S is fitted, by least squares over the disk's area (weights rho) with
 * the amplitude free, by a uniform disk of radius R' blurred by S'; R'
 * and S' searched on a grid (0.01 px), first with S' = S held (the blur
 * known) and then free; the residual's RMS in % of the profile's peak.
 * Its uniform disk is the rim model without a rim. */
static double disk_misfit(const double *obj, double R, double sigma, double *amp)
{
	return rim_misfit(obj, R, 0, 0, sigma, amp);
}

/* The rim model's radius fitted with its rim's strength free (0 .. 4 in
 * 0.1, the width held) and the blur given as sigma + ds: the best radius,
 * and the range of radii whose best misfit stays within tol (% of the
 * peak, RMS) */
static void rim_fit(const double *obj, double peak, double wsum, double R, double rim_w, double sigma, double ds,
		    double tol)
{
	double best = INFINITY, br = NAN, bf = NAN, lo = INFINITY, hi = -INFINITY;
	for (double r = 0.8 * R; r <= 1.3 * R + 1e-9; r += 0.02) {
		double rb = INFINITY, fb = NAN;
		for (double f = 0; f <= 4 + 1e-9; f += 0.1) {
			double e = rim_misfit(obj, r, f, rim_w, sigma + ds, NULL);
			if (e < rb) {
				rb = e;
				fb = f;
			}
		}
		if (rb < best) {
			best = rb;
			br = r;
			bf = fb;
		}
		if (100 * sqrt(rb / wsum) / peak <= tol) {
			lo = fmin(lo, r);
			hi = fmax(hi, r);
		}
	}
	/* (no radius within tol: the range prints as none) */
	if (!(lo <= hi))
		lo = hi = NAN;
	printf("  rim model, blur %+.2f px off: R' %.2f (%+6.2f %%) rim' %.1f, RMS misfit %.3f %%; R' within %.2f %% of "
	       "the peak: %+.1f .. %+.1f %%\n",
	       ds, br, 100 * (br - R) / R, bf, 100 * sqrt(fmax(0, best) / wsum) / peak, tol, 100 * (lo - R) / R,
	       100 * (hi - R) / R);
}

static void degeneracy(double R, double rim, double rim_w, double sigma)
{
	double obj[DG_N], peak = 0, wsum = 0;
	blurred_profile(R, rim, rim_w, sigma, obj);
	for (int i = 0; i < DG_N; i++) {
		peak = fmax(peak, obj[i]);
		wsum += i ? i * DG_STEP : 0.25 * DG_STEP;
	}
	for (int pass = 0; pass < 2; pass++) {
		/* a grid of 0.05 px, then 0.01 px about its best */
		double best = INFINITY, br = R, bs = sigma, amp;
		for (int fine = 0; fine < 2; fine++) {
			double st = fine ? 0.01 : 0.05, r_lo = fine ? br - 0.05 : 0.7 * R, r_hi = fine ? br + 0.05 : 1.5 * R;
			double s_lo = !pass ? sigma : fine ? bs - 0.05 : 0.5 * sigma;
			double s_hi = !pass ? sigma : fine ? bs + 0.05 : 1.5 * sigma;
			for (double r = r_lo; r <= r_hi + 1e-9; r += st)
				for (double sg = s_lo; sg <= s_hi + 1e-9; sg += st) {
					double e = disk_misfit(obj, r, sg, &amp);
					if (e < best) {
						best = e;
						br = r;
						bs = sg;
					}
				}
		}
		printf("degeneracy R %.2f rim %+.2f w %.2f sigma %.2f, %s: uniform disk R' %.2f (%+6.2f %%) sigma' %.2f, "
		       "RMS misfit %.3f %% of the peak\n",
		       R, rim, rim_w, sigma, pass ? "blur free" : "blur held", br, 100 * (br - R) / R, bs,
		       100 * sqrt(best / wsum) / peak);
	}
	static const double ds[] = {0, -0.03, +0.03, -0.1};
	for (size_t k = 0; k < sizeof ds / sizeof *ds; k++)
		rim_fit(obj, peak, wsum, R, rim_w, sigma, ds[k], 0.1);
}

int main(int argc, char **argv)
{
	unsigned seed_add = 0;
	sem_opts_args set;
	memset(&set, 0, sizeof set);
	double beams[MAX_BEAMS] = {0.3, 0.5, 0.65, 0.8, 0.95, 1.1};
	unsigned seeds[MAX_SEEDS];
	int nb = 6, nsd = 0, scenes[MAX_SCENES], ns = 0, disk = 0;
	double disk_r = 2, rim = 0, rim_w = 0.5;
	for (int i = 1; i < argc; i++) {
		if (sem_bench_arg(argc, argv, &i, &seed_add, &set))
			continue;
		if (!strcmp(argv[i], "--beams") && i + 1 < argc) {
			if ((nb = bench_parse_list(argv[++i], beams, MAX_BEAMS)) < 1) {
				fprintf(stderr, "bench_level_beam: --beams B1,B2,...\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--seeds") && i + 1 < argc) {
			if ((nsd = bench_parse_seeds(argv[++i], seeds, MAX_SEEDS)) < 1) {
				fprintf(stderr, "bench_level_beam: --seeds S1,S2,...\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--disk") && i + 1 < argc) {
			disk = 1;
			disk_r = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--rim") && i + 1 < argc)
			rim = atof(argv[++i]);
		else if (!strcmp(argv[i], "--degeneracy") && i + 1 < argc) {
			double q[4];
			if (bench_parse_list(argv[++i], q, 4) != 4) {
				fprintf(stderr, "bench_level_beam: --degeneracy R,F,W,S\n");
				return 2;
			}
			degeneracy(q[0], q[1], q[2], q[3]);
			return 0;
		} else if (!strcmp(argv[i], "--rim-fit"))
			rim_fit_on = 1;
		else if (!strcmp(argv[i], "--meas-sigma") && i + 1 < argc)
			meas_sigma = atof(argv[++i]);
		else if (!strcmp(argv[i], "--rim-w") && i + 1 < argc)
			rim_w = atof(argv[++i]);
		else if (ns < MAX_SCENES)
			scenes[ns++] = atoi(argv[i]);
	}
	if (disk) {
		fs_params p;
		fs_params_default(&p);
		int bad = 0;
		for (int b = 0; b < nb; b++)
			bad |= read_disks(disk_r, rim, rim_w, beams[b], &p);
		return bad;
	}
	if (!ns)
		ns = small_dome_scenes(scenes, 0);
	if (!nsd) {
		seeds[0] = seed_add;
		nsd = 1;
	}
	printf("the level reading's stages from the TRUE centres against the beam (mean D %% of the true mean D; "
	       "dip, rpk, m2: the mean radial profile, bench_level_beam.c)\n");
	/* per group (A, E) and beam: the sums of the rows */
	double gsum[2][MAX_BEAMS][ST_N];
	int gn[2][MAX_BEAMS];
	memset(gsum, 0, sizeof gsum);
	memset(gn, 0, sizeof gn);
	int bad = 0;
	for (int s = 0; s < ns; s++)
		for (int q = 0; q < nsd; q++)
			for (int b = 0; b < nb; b++) {
				beam_row row;
				if (read_scene(scenes[s], seeds[q], beams[b], &set, &row)) {
					bad = 1;
					continue;
				}
				int g = row.flat ? 0 : 1;
				for (int v = 0; v < ST_N; v++)
					gsum[g][b][v] += row.v[v];
				gn[g][b]++;
			}
	for (int g = 0; g < 2; g++)
		for (int b = 0; b < nb; b++) {
			if (!gn[g][b])
				continue;
			double *m = gsum[g][b];
			int c = gn[g][b];
			printf("MEAN %s beam %.2f (%d rows): rpoly %+6.2f ish %+6.2f inv %+6.2f small %+6.2f read %+6.2f | "
			       "sigma %.3f | dip %.3f rpk %.2f m2 %+6.2f rk %+6.2f rl %+6.2f\n",
			       g ? "sph " : "flat", beams[b], c, m[ST_RPOLY] / c, m[ST_ISH] / c, m[ST_INV] / c,
			       m[ST_SMALL] / c, m[ST_READ] / c, m[ST_SIGMA] / c, m[ST_DIP] / c, m[ST_RPK] / c,
			       m[ST_M2] / c, m[ST_RK] / c, m[ST_RL] / c);
		}
	return bad;
}
