/*
 * bench_level_small - where the dome rule's level reading of small domes
 * (D of a few px) makes its error, stage by stage (issue 13, corner group
 * A; docs/paper-figures.md, h41b). Asserts nothing.
 *
 * Why: the rule reads the 4-px flat-topped domes of corner scenes 2 and 18
 * +18 % large on every seed set (6: +5..+11 %), while its formation fit at
 * the true centres is healthy (h38n, h40a). Its D there is the level's: the
 * mean of fs_dome_measure_base_blur's readings over the sized domes (the
 * template fit only spreads the domes about it, detect_base_fit.h). A
 * reading is made in stages (dome_measure.c): the polygon of the 32 rays'
 * steepest steps (rpoly), the inner slope's shift taken off (ishift), the
 * blur the steps show (sigma), the steepest step inverted for it (r_step),
 * the whole radial profile's disk fit below 3 sigma (r_small, weight
 * w_small), and the blend with the raw radius (w_local). This prints each
 * stage's mean, in % of the true mean D, over the counted domes, read on
 * detection's measurement image from the rule's final centres and from the
 * true ones, with the rule's own D beside them.
 *
 * Beside them: "ridge", the same base read with pass()'s ridge model
 * (fs_dome_measure_base_ridge), and where each reading's own last centre
 * lies from the true one along and across the detector's axis (px).
 *
 * --annulus / --ann-sigma S1,S2,S3: the domes' mean radial profile about
 * the readings' own centres (rule) and about the true centres (true),
 * fitted by a background plus a Gaussian-blurred disk (fit_small_base's
 * model) and plus a blurred annulus [R - w, R] with w free, at three
 * given blurs (default 0.72, 0.85, 0.94 px: the rays' own, between, the
 * image's), and the profile's centre dip (its maximum above its centre,
 * over the centre's height above the far end: 0 for a blurred disk, > 0
 * for a ring). The profile's reach is made for D = 4 px (1.5 x 2 px + 3
 * sigma): on larger domes the dip prints NAN or 0 and means nothing
 * (h41b ran it on the 32 unscreened corner scenes: > 0 only on group A).
 * About 2 s of CPU a scene more.
 * --profile: the domes' mean radial profile at the true centres, printed.
 * --calibrate (h42a): the reader's bias on the formation's own dome - the
 * templates' lattice (fs_dome_tpl_render) at the true mean fill, read by
 * the level's reader from its true site at four sub-pixel phases; the
 * true radius over the mean reading is the factor that would take the
 * bias off, printed with the true-centre reading times it, for the
 * formation fitted at the rule's centres, at the true ones, the
 * simulator's own, and each with its blur swapped or searched finely
 * (calib_print). About 2 s of CPU a scene more.
 * --blur-read (h42l): per scene a line "BLUR" with the mean patch's blur
 * searched to 0.01 px (fine_blur) by the formation fitted at the true
 * centres and by the simulator's own, about the true centres, the true
 * centres moved by the rule's common offset, and the rule's centres
 * (blur_print): which centres spoil the blur's reading; and a line "JOINT"
 * with the blur read about the rule's centres moved together on a grid
 * (joint_blur: the common offset found by the mean patch itself), by the
 * rule's formation and by the simulator's. About 10-20 s of CPU a pitch-16
 * scene more.
 * --extrap-calib (h43g): per scene the level's extrapolation to no blur
 * (fs_det_base_extrap_apply) split into its inputs from the TRUE centres
 * (extrap_print): the first reading's excess, the reader's own variance
 * v1 against the image's v (the simulator's: spot, box and the
 * measurement's smoothing), the response to the 1-px second reading with
 * and without the second readings on the window's edge (which the rule
 * keeps), the response that would take the reading to the truth, and the
 * extrapolated D % with each pair; then the same on the formation's own
 * rendered dome (the simulator's formation at its blur and 0.1 px either
 * side, the fits at the true and the rule's centres). About 0.15 s of
 * CPU a pitch-16 scene more.
 * --extrap-curve (h43i): the level's excess from the TRUE centres against
 * the blur added to the measurement image (E = 0.5 .. 1.414 px), with the
 * slopes and the extrapolations to no blur they give (curve_print).
 * About 0.3 s of CPU a pitch-16 scene more.
 * --blur-true (h43b): a line "BTRUE" with --blur-read's readings about
 * the TRUE centres alone (t@true, m@true) and their misfits, about a
 * tenth of its cost: the forward model's difference from the image's
 * formation, with --set switching the simulator's pieces off.
 * --rule-level (h44c): h43i's correction of the tall spheres' level with
 * the image's blur variance known (the simulator's, and perturbed by
 * +-0.05..+-0.3 px^2), judged from the rule's OWN final centres by
 * scaling the rule's radii by the level's ratio (rule_level_print): a line
 * "RULELEVEL" a scene. About 0.3 s of CPU a pitch-16 scene more.
 * --fine-v NAME,... (h45b; implies --rule-level): the line with the blur
 * variance read by the fine forward model (fs_blur_fine_read) from the
 * rule's own centres instead of the oracle, where the sphere gate opens
 * and on the truth's tall spheres; NAME one of fD, fD+shape, fD/sph1,
 * fD@meas, true, fD/al, fD+shape/al, fD/sph1/al, true/al, or all (the FV_* list
 * at fine_v_read); --fine-grid G and --fine-sigma-hi S set the read's
 * grid and sigma range (cost). Per reading: v, v - the oracle, the beam,
 * misfit, shape, offset and the line's D/S, and (h45n) the variance of
 * the true and of the rule's radii. About 1 s of CPU a reading
 * (shape held), 8 s with the shape searched, on a pitch-16 scene.
 * --spread-v (h46b; implies --rule-level): where the sphere gate opens
 * and on the truth's tall spheres, a line "SPREADV": the domes' radius
 * spread and the centres' scatter read from two halves of each dome's
 * rays (ray_spread.h) about the rule's centres and the true ones, beside
 * their oracles, the per-dome offsets against the true ones, and three
 * mean-patch reads of v (the templates' fine blur, fD, fD/sph1) as they
 * are and with the spread and scatter taken off, and v from the
 * readings' own step variance (fs_det_base_line_v), each with the line's
 * D/S. About 3 s of CPU a tall-sphere scene more.
 * --no-line: the rule with the tall sphere's line switched off
 * (fs_det_base_set_line, h46b: as before it): every detection of the run.
 * --interior: SCENE numbers are the interior scenes (sem_interior_scene)
 * instead of the corner scenes (h44c: whether --rule-level's gate opens
 * there).
 * --calib-rule (h44b): --calibrate's factor made from the rule's OWN
 * centres with the blur given (an oracle, and 0.01-0.05 px off), applied
 * to the rule's sizes: a line "CRULE" (calib_rule_print). About 2 s of
 * CPU a pitch-16 scene more.
 * --set KEY=VALUE (repeatable, sem_opts_keys.h): a simulator option on
 * every scene after its seed (h41b switched the edge, the secant yield and
 * the detector's strength off one at a time).
 *
 * Usage: bench_level_small [--seed-add N] [--set KEY=VALUE]... [--annulus |
 * --ann-sigma S1,S2,S3] [--profile] [--calibrate] [--blur-read] [--blur-true]
 * [--calib-rule] [--extrap-calib] [--extrap-curve] [--rule-level] [--fine-v NAME,...] [--fine-grid G]
 * [--fine-sigma-hi S] [--spread-v] [--no-line] [--interior] [SCENE...]; default the unscreened
 * fill-0.25 pitch-16 corner scenes (A: 2 6 18 22, E: 0 4 16 20) and B1 (1
 * 3 5 7 17 19 21 23). About 0.15 s of CPU a scene with SEM_SCENE_CACHE.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/blur_fine.h"
#include "analysis/detect.h"
#include "analysis/detect_base_fit.h"
#include "analysis/detect_offset.h"
#include "analysis/dome_base_fit.h"
#include "analysis/detect_methods.h"
#include "analysis/dome_measure.h"
#include "analysis/preprocess.h"
#include "base/sorting.h"
#include "formation_blur.h"
#include "formation_calib.h"
#include "sem_opts_keys.h"
#include "scene_sets.h"
#include "sem_scene.h"
#include "ray_spread.h"
#include "sem_score.h"

/* the last step's reach (detect.c: 0.6 of the lattice's pitch) */
#define REACH 0.6

enum { S_RPOLY, S_R0, S_STEP, S_SMALL, S_READ, S_RIDGE, S_N };
static const char *stage_name[S_N] = {"rpoly", "rpoly-ish", "r_step", "r_small", "reading", "ridge"};

typedef struct {
	double sum[S_N], tru[S_N];
	size_t n[S_N];
	double sig, wsm, wloc, ish;
	size_t nsig, nread;
	/* the reading's own final centre less the true one, along and across
	 * the detector's axis (px), summed over the readings */
	double along, across;
	size_t ncen;
} acc;

static void acc_centre(acc *a, const fs_dome_base_trace *tr, double tx, double ty, double az)
{
	if (!isfinite(tr->radius))
		return;
	double dx = tr->x - tx, dy = tr->y - ty;
	a->along += dx * cos(az) + dy * sin(az);
	a->across += -dx * sin(az) + dy * cos(az);
	a->ncen++;
}

static void acc_add(acc *a, const fs_dome_base_trace *tr, double ridge, double d_true)
{
	double v[S_N] = {tr->rpoly, tr->rpoly - tr->ishift, tr->r_step, tr->r_small, tr->radius, ridge};
	for (int s = 0; s < S_N; s++)
		if (isfinite(v[s])) {
			a->sum[s] += 2 * v[s];
			a->tru[s] += d_true;
			a->n[s]++;
		}
	if (isfinite(tr->sigma)) {
		a->sig += tr->sigma;
		a->wsm += tr->w_small;
		a->wloc += tr->w_local;
		a->ish += tr->ishift;
		a->nsig++;
	}
	a->nread += isfinite(tr->radius);
}

static void acc_print(const char *label, const acc *a)
{
	printf("  %-6s", label);
	for (int s = 0; s < S_N; s++)
		printf(" %s %+7.2f", stage_name[s], a->tru[s] > 0 ? 100 * (a->sum[s] - a->tru[s]) / a->tru[s] : NAN);
	if (a->nsig)
		printf("  sigma %.3f ishift %+.3f w_small %.2f w_local %.2f", a->sig / a->nsig, a->ish / a->nsig,
		       a->wsm / a->nsig, a->wloc / a->nsig);
	printf("  centre along %+.3f across %+.3f px  (%zu read)\n", a->ncen ? a->along / a->ncen : NAN,
	       a->ncen ? a->across / a->ncen : NAN, a->nread);
}

/* the same base read with pass()'s ridge model (fs_dome_measure_base_ridge,
 * the screened level's reader): a bright band inside the base */
static double ridge_reading(const fs_image *img, double x, double y, double r0, double r1)
{
	fs_tubercle t;
	memset(&t, 0, sizeof t);
	if (fs_dome_measure_base_ridge(img, x, y, r0, r1, &t))
		return NAN;
	return t.radius_px;
}

/* --annulus (prototype, h41b): the dome's mean radial profile (32 rays
 * about the reading's own centre, 0.25 px apart out to 1.5 r + 3 sigma, as
 * fit_small_base samples it) fitted by a background plus a Gaussian-blurred
 * annulus [R - w, R] (w = R: the disk fit_small_base uses), R and w
 * searched on grids, the amplitude and background linear; the best R. */
static double i0e_num(double z)
{
	/* I0(z) e^-z = (1 / pi) int_0^pi exp(z (cos t - 1)) dt, by 48 midpoints */
	double acc = 0;
	for (int i = 0; i < 48; i++)
		acc += exp(z * (cos(M_PI * (i + 0.5) / 48) - 1));
	return acc / 48;
}

/* the blurred disk of radius R at r: int_0^R rho / s^2 exp(-(r - rho)^2 / 2 s^2) I0e(r rho / s^2) */
static double disk_at(double r, double R, double s)
{
	int n = 40;
	double h = R / n, acc = 0, s2 = s * s;
	for (int i = 0; i < n; i++) {
		double rho = (i + 0.5) * h;
		acc += rho / s2 * exp(-0.5 * (r - rho) * (r - rho) / s2) * i0e_num(r * rho / s2);
	}
	return acc * h;
}

enum { PNR = 40 };

static int dome_profile(const fs_image *img, double x, double y, double r0, double sigma, double *prof,
			double *step)
{
	double rfit = 1.5 * r0 + 3 * sigma;
	int nr = (int)(rfit / 0.25) + 1;
	if (nr > PNR)
		nr = PNR;
	*step = 0.25;
	for (int j = 0; j < nr; j++) {
		double acc = 0;
		for (int k = 0; k < 32; k++) {
			double a = 2 * M_PI * k / 32;
			acc += fs_image_sample(img, x + j * 0.25 * cos(a), y + j * 0.25 * sin(a));
		}
		prof[j] = acc / 32;
	}
	return nr;
}

/* least squares of prof on {1, m}: the residual */
static double fit2(const double *prof, const double *m, int n)
{
	double s1 = n, sm = 0, smm = 0, sy = 0, smy = 0, syy = 0;
	for (int j = 0; j < n; j++) {
		sm += m[j];
		smm += m[j] * m[j];
		sy += prof[j];
		smy += m[j] * prof[j];
		syy += prof[j] * prof[j];
	}
	double det = s1 * smm - sm * sm;
	if (!(fabs(det) > 1e-12))
		return INFINITY;
	double b = (s1 * smy - sm * sy) / det, a = (sy - b * sm) / n;
	return syy - 2 * a * sy - 2 * b * smy + a * a * s1 + 2 * a * b * sm + b * b * smm;
}

/* the blurred disks tabulated per sigma: tab[i][j] = disk_at(j step, i DR) */
enum { TAB_R = 320 };
#define DR 0.02
static double tab_sigma = -1, tab[TAB_R][PNR];

static void tab_make(double sigma)
{
	if (tab_sigma == sigma)
		return;
	for (int i = 0; i < TAB_R; i++)
		for (int j = 0; j < PNR; j++)
			tab[i][j] = i ? disk_at(j * 0.25, i * DR, sigma) : 0;
	tab_sigma = sigma;
}

/* best R of the disk (w = R) and of the annulus [R - w, R] (w free, in
 * steps of 5 DR), from a profile sampled 0.25 px apart */
static void annulus_fit(const double *prof, int nr, double r0, double sigma, double *rdisk, double *rann,
			double *wann)
{
	double m[PNR], best_d = INFINITY, best_a = INFINITY;
	*rdisk = *rann = *wann = NAN;
	tab_make(sigma);
	for (int iR = (int)(0.5 * r0 / DR); iR <= (int)(2 * r0 / DR) && iR < TAB_R; iR++) {
		for (int iw = 5;; iw += 5) {
			int ww = iw > iR - 3 ? iR : iw;
			for (int j = 0; j < nr; j++)
				m[j] = tab[iR][j] - tab[iR - ww][j];
			double e = fit2(prof, m, nr);
			if (ww == iR && e < best_d) {
				best_d = e;
				*rdisk = iR * DR;
			}
			if (e < best_a) {
				best_a = e;
				*rann = iR * DR;
				*wann = ww * DR;
			}
			if (ww == iR)
				break;
		}
	}
}

/* the mean profile's centre dip: how far its maximum rises above its
 * centre, over the centre's height above the profile's far end (0 for a
 * profile falling from its centre, a blurred disk; > 0 for a ring) */
static double centre_dip(const double *prof, int nr)
{
	double mx = prof[0];
	for (int j = 1; j < nr; j++)
		mx = fmax(mx, prof[j]);
	double h = prof[0] - prof[nr - 1];
	return h > 0 ? (mx - prof[0]) / h : NAN;
}

/* --profile: the mean radial profile over the counted domes from the true
 * centres (32 rays, bilinear, as mean_profile in dome_measure.c) */
static void print_profile(const fs_image *meas, const sem_truth *t)
{
	enum { NR = 25 };
	double prof[NR] = {0};
	size_t n = 0;
	for (size_t j = 0; j < t->n; j++) {
		if (!sem_counted(t, t->x[j], t->y[j]))
			continue;
		for (int i = 0; i < NR; i++) {
			double acc = 0;
			for (int k = 0; k < 32; k++) {
				double a = 2 * M_PI * k / 32;
				acc += fs_image_sample(meas, t->x[j] + 0.25 * i * cos(a), t->y[j] + 0.25 * i * sin(a));
			}
			prof[i] += acc / 32;
		}
		n++;
	}
	printf("  profile (r px: mean):");
	for (int i = 0; i < NR; i++)
		printf(" %.2f:%.4f", 0.25 * i, n ? prof[i] / n : NAN);
	printf("\n");
}

static int annulus;
/* --annulus's blurs (px; --ann-sigma S1,S2,S3) */
static double sgs[3] = {0.72, 0.85, 0.94};

/* the image-wide mean profile about the readings' own centres, fitted */
typedef struct {
	double prof[PNR];
	size_t n;
	double r0, sig, dtrue;
} mean_prof;

static void mp_add(mean_prof *mp, const fs_image *img, const fs_dome_base_trace *tr, double d_true, double sigma)
{
	if (!isfinite(tr->radius) || !isfinite(tr->x))
		return;
	double pr[PNR], step;
	/* a fixed reach for every dome, so the profiles add */
	int nr = dome_profile(img, tr->x, tr->y, 2.0, sigma, pr, &step);
	(void)nr;
	for (int j = 0; j < PNR; j++)
		mp->prof[j] += j < nr ? pr[j] : 0;
	mp->r0 += tr->rpoly - tr->ishift;
	mp->sig += tr->sigma;
	mp->dtrue += d_true;
	mp->n++;
}

static void mp_print(const char *label, const mean_prof *mp, double sigma)
{
	if (!mp->n)
		return;
	double pr[PNR];
	int nr = (int)((1.5 * 2.0 + 3 * sigma) / 0.25) + 1;
	if (nr > PNR)
		nr = PNR;
	for (int j = 0; j < nr; j++)
		pr[j] = mp->prof[j] / mp->n;
	double r0 = mp->r0 / mp->n, dt = mp->dtrue / mp->n, rd, ra, wa;
	annulus_fit(pr, nr, r0, sigma, &rd, &ra, &wa);
	printf("  %-6s mean-profile fit at sigma %.3f: disk %+7.2f annulus %+7.2f (w %.2f px), centre dip %.4f\n",
	       label, sigma, 100 * (2 * rd - dt) / dt, 100 * (2 * ra - dt) / dt, wa, centre_dip(pr, nr));
}

static sem_opts_args set_args;

/* --calibrate (h42a): the reader's bias on the formation's own dome
 * (formation_calib_factor, formation_calib.h). */
static int calibrate;

/* The blur (px, 0.60-1.40 in steps of 0.02) at which f's templates about
 * (xs, ys) read the mean patch best, f's geometry and detector held. */
static double best_blur(const fs_image *meas, const fs_dome_fit *f0, const double *xs, const double *ys, size_t n,
			double fill)
{
	double bb = NAN, br = INFINITY;
	for (int q = 0; q <= 40; q++) {
		double bl = 0.6 + 0.02 * q, r = formation_blur_misfit(meas, f0, bl, xs, ys, n, fill);
		if (r < br) {
			br = r;
			bb = bl;
		}
	}
	return bb;
}

/* --blur-read (h42l): the blur searched 0.40-2.00 px, 0.04 then 0.01
 * steps (the level's calibration moves 1.5-3.5 % of D per 0.01 px, h42a,
 * so best_blur's 0.02 is too coarse to judge it); formation_blur.h */
static double fine_blur(const fs_image *meas, const fs_dome_fit *f0, const double *xs, const double *ys, size_t n,
			double fill, double *mis)
{
	return formation_blur_fine(meas, f0, xs, ys, n, fill, 0.40, 2.00, mis);
}

/* The misfit of f's templates at blur bl about (xs, ys) moved by (dx, dy). */
static double moved_misfit(const fs_image *meas, const fs_dome_fit *f0, double bl, const double *xs, const double *ys,
			   size_t n, double fill, double dx, double dy, double *mx, double *my)
{
	for (size_t j = 0; j < n; j++) {
		mx[j] = xs[j] + dx;
		my[j] = ys[j] + dy;
	}
	return formation_blur_misfit(meas, f0, bl, mx, my, n, fill);
}

/* The blur read with the centres' common offset free: the rule's centres
 * (xs, ys) moved together, first on a grid of +-1.2 px in 0.2 steps at
 * f0's own blur (h42b's offsets reach 0.9 px on the flat tops), then the
 * blur 0.60-1.40 px in 0.04 steps there, the move again on +-0.2 px in
 * 0.05 steps at that blur, and fine_blur at the best move; *dx, *dy get
 * the move (what the mean patch says the common offset is, opposite to
 * it). Coordinate steps, not a joint grid: about 300 template builds. */
static double joint_blur(const fs_image *meas, const fs_dome_fit *f0, const double *xs, const double *ys, size_t n,
			 double fill, double *dx, double *dy, double *mis)
{
	double *mx = malloc(n * sizeof *mx), *my = malloc(n * sizeof *my), br = INFINITY, bx = 0, by = 0,
	       bl = f0->blur_px;
	if (!mx || !my) {
		free(mx);
		free(my);
		return NAN;
	}
	for (int u = -6; u <= 6; u++)
		for (int v = -6; v <= 6; v++) {
			double r = moved_misfit(meas, f0, bl, xs, ys, n, fill, 0.2 * u, 0.2 * v, mx, my);
			if (r < br) {
				br = r;
				bx = 0.2 * u;
				by = 0.2 * v;
			}
		}
	for (int q = 0; q <= 20; q++) {
		double r = moved_misfit(meas, f0, 0.60 + 0.04 * q, xs, ys, n, fill, bx, by, mx, my);
		if (r < br) {
			br = r;
			bl = 0.60 + 0.04 * q;
		}
	}
	double cx = bx, cy = by;
	for (int u = -4; u <= 4; u++)
		for (int v = -4; v <= 4; v++) {
			double r = moved_misfit(meas, f0, bl, xs, ys, n, fill, cx + 0.05 * u, cy + 0.05 * v, mx, my);
			if (r < br) {
				br = r;
				bx = cx + 0.05 * u;
				by = cy + 0.05 * v;
			}
		}
	for (size_t j = 0; j < n; j++) {
		mx[j] = xs[j] + bx;
		my[j] = ys[j] + by;
	}
	double b = fine_blur(meas, f0, mx, my, n, fill, mis);
	free(mx);
	free(my);
	*dx = bx;
	*dy = by;
	return b;
}

/* The centres (the rule's matched ones, own, or the TRUE ones) inside
 * the scale region, with their radii, into xs, ys, rs; their count. */
static size_t calib_centres(const sem_truth *t, const fs_tubercle_list *l, const int *mtru, int own, double *xs,
			    double *ys, double *rs)
{
	size_t n = 0;
	for (size_t j = 0; j < t->n; j++) {
		if (!t->inside[j] || (own && mtru[j] < 0))
			continue;
		const fs_tubercle *q = own ? &l->items[mtru[j]] : NULL;
		xs[n] = q ? q->centroid_x : t->x[j];
		ys[n] = q ? q->centroid_y : t->y[j];
		rs[n++] = q ? q->radius_px : 0.5 * t->d[j];
	}
	return n;
}

/* The two sets of centres --calibrate, --extrap-calib and --blur-read read
 * about (calib_centres): the TRUE ones with the true radii (xs, ys, rs;
 * n) and the rule's matched ones with its radii (xr, yr, rr; nr), t->n
 * slots each, and fill the true centres' mean D over the pitch (the fill
 * every formation there is built at). Owned by the struct
 * (centre_sets_free). */
typedef struct {
	double *xs, *ys, *rs, *xr, *yr, *rr;
	size_t n, nr;
	double fill;
} centre_sets;

static void centre_sets_free(centre_sets *c)
{
	free(c->xs);
	free(c->ys);
	free(c->rs);
	free(c->xr);
	free(c->yr);
	free(c->rr);
}

/* 0, or -1 out of memory (nothing kept) */
static int centre_sets_make(centre_sets *c, const sem_truth *t, const fs_tubercle_list *l, const int *mtru)
{
	c->xs = malloc(t->n * sizeof *c->xs);
	c->ys = malloc(t->n * sizeof *c->ys);
	c->rs = malloc(t->n * sizeof *c->rs);
	c->xr = malloc(t->n * sizeof *c->xr);
	c->yr = malloc(t->n * sizeof *c->yr);
	c->rr = malloc(t->n * sizeof *c->rr);
	if (!c->xs || !c->ys || !c->rs || !c->xr || !c->yr || !c->rr) {
		centre_sets_free(c);
		return -1;
	}
	c->n = calib_centres(t, l, mtru, 0, c->xs, c->ys, c->rs);
	c->nr = calib_centres(t, l, mtru, 1, c->xr, c->yr, c->rr);
	double dsum = 0;
	for (size_t j = 0; j < c->n; j++)
		dsum += 2 * c->rs[j];
	c->fill = dsum / c->n / t->pitch;
	return 0;
}

/* The formation fitted (fs_det_offset_fit) at either set of c with its
 * radii: or at the rule's centres, ot at the TRUE ones; okr, okt say
 * which fitted. What --calibrate and --extrap-calib both compare. */
typedef struct {
	fs_det_offset or, ot;
	int okr, okt;
} centre_fits;

static void centre_sets_fit(const fs_image *meas, const centre_sets *c, double pitch, centre_fits *f)
{
	f->okr = !fs_det_offset_fit(meas, c->xr, c->yr, c->rr, c->nr, pitch, NULL, &f->or) && f->or.fitted;
	f->okt = !fs_det_offset_fit(meas, c->xs, c->ys, c->rs, c->n, pitch, NULL, &f->ot) && f->ot.fitted;
}

static void calib_line(const char *label, const fs_image *meas, const fs_dome_fit *f, const double *xs,
		       const double *ys, size_t n, double fill, double r0, double r1, double rd)
{
	double c = formation_calib_factor(meas, f, xs, ys, n, fill, r0, r1);
	printf("  calib %-5s profile %.1f h/R %.2f blur %.2f px az %6.1f: factor %.4f, true-centre reading %+6.2f -> "
	       "%+6.2f %%\n",
	       label, f->profile, f->h_over_r, f->blur_px, f->azimuth * 180 / M_PI, c, rd,
	       100 * ((1 + rd / 100) * c - 1));
}

/* --calibrate's lines, each the factor and the true-centre reading (mean
 * D %, rd) times it, for these formations:
 *   rule   fitted (fs_det_offset_fit) at the rule's matched centres and
 *          radii: what the rule itself could render;
 *   true   fitted at the TRUE centres and radii: the fit's own error
 *          without the centres';
 *   model  the simulator's geometry, detector and blur (the measurement
 *          image's: the beam and msig in quadrature): the forward model's
 *          error alone;
 *   m+fb   model with the true fit's blur;  t+tb  true with the true blur;
 *   r+bb, t+bb  rule and true with the blur searched finely (best_blur)
 *          on their own centres' mean patch, the rest of each held.
 * The weights are always solved on the mean patch about the formation's
 * own centres (the rule's for rule and r+bb, the true ones otherwise). */
static void calib_print(const fs_image *meas, const sem_opts *o, const sem_truth *t, const fs_tubercle_list *l,
			const int *mtru, double msig, double rd)
{
	centre_sets c;
	if (centre_sets_make(&c, t, l, mtru))
		return;
	double mr = REACH * t->pitch, r0 = FS_DOME_R0 * mr, r1 = FS_DOME_R1 * mr;
	double blur = sqrt(o->beam_blur * o->beam_blur + msig * msig);
	centre_fits cf;
	centre_sets_fit(meas, &c, t->pitch, &cf);
	fs_dome_fit f;
	if (cf.okr)
		calib_line("rule", meas, &cf.or.fit, c.xr, c.yr, c.nr, c.fill, r0, r1, rd);
	if (cf.okt)
		calib_line("true", meas, &cf.ot.fit, c.xs, c.ys, c.n, c.fill, r0, r1, rd);
	formation_sim(o, t->pitch, c.fill, blur, &f);
	calib_line("model", meas, &f, c.xs, c.ys, c.n, c.fill, r0, r1, rd);
	if (cf.okt) {
		f.blur_px = cf.ot.fit.blur_px;
		calib_line("m+fb", meas, &f, c.xs, c.ys, c.n, c.fill, r0, r1, rd);
		f = cf.ot.fit;
		f.blur_px = blur;
		calib_line("t+tb", meas, &f, c.xs, c.ys, c.n, c.fill, r0, r1, rd);
	}
	if (cf.okr) {
		f = cf.or.fit;
		f.blur_px = best_blur(meas, &f, c.xr, c.yr, c.nr, c.fill);
		calib_line("r+bb", meas, &f, c.xr, c.yr, c.nr, c.fill, r0, r1, rd);
	}
	if (cf.okt) {
		f = cf.ot.fit;
		f.blur_px = best_blur(meas, &f, c.xs, c.ys, c.n, c.fill);
		calib_line("t+bb", meas, &f, c.xs, c.ys, c.n, c.fill, r0, r1, rd);
	}
	centre_sets_free(&c);
}


/* --calib-rule (h44b): h42a's calibration (formation_calib_factor: the
 * rule's templates, 24 samples a pitch, the blur a Gaussian) made from
 * the rule's OWN final centres with the blur given: one line "CRULE k"
 * with the factor and the rule's D and S with every radius times it
 * (sem_score_scaled) for
 *   model  the simulator's geometry at the TRUE fill, the weights solved
 *          on the mean patch about the rule's matched centres, the blur
 *          the measurement image's (beam and msig in quadrature, h42a's
 *          oracle) and that blur each of CR_DB px off;
 *   r+tb   the formation fitted at the rule's centres, the same fill and
 *          oracle blur (h42a's table had t+tb, never r+tb).
 * bench_blur_kernel --rule is the same question with h43b's finer model. */
static int calib_rule;
static const double CR_DB[] = {0, -0.05, -0.03, -0.01, +0.01, +0.03, +0.05};

static void calib_rule_one(const fs_image *meas, const fs_dome_fit *f, const double *xs, const double *ys, size_t n,
			   double fill, double r0, double r1, const sem_truth *t, const fs_tubercle_list *l,
			   double halftone)
{
	sem_score_scaled_print(t, l, halftone, formation_calib_factor(meas, f, xs, ys, n, fill, r0, r1));
}

static void calib_rule_print(int k, const fs_image *meas, const sem_opts *o, const sem_truth *t,
			     const fs_tubercle_list *l, const int *mtru, double msig)
{
	centre_sets c;
	if (centre_sets_make(&c, t, l, mtru))
		return;
	double mr = REACH * t->pitch, r0 = FS_DOME_R0 * mr, r1 = FS_DOME_R1 * mr;
	double blur = sqrt(o->beam_blur * o->beam_blur + msig * msig);
	fs_dome_fit f;
	printf("CRULE %-3d oracle blur %.3f | model", k, blur);
	formation_sim(o, t->pitch, c.fill, blur, &f);
	for (size_t q = 0; q < sizeof CR_DB / sizeof *CR_DB; q++) {
		f.blur_px = blur + CR_DB[q];
		calib_rule_one(meas, &f, c.xr, c.yr, c.nr, c.fill, r0, r1, t, l, o->halftone);
	}
	fs_det_offset or;
	if (!fs_det_offset_fit(meas, c.xr, c.yr, c.rr, c.nr, t->pitch, NULL, &or) && or.fitted) {
		f = or.fit;
		f.blur_px = blur;
		printf(" | r+tb p%.1f h/R %.2f", f.profile, f.h_over_r);
		calib_rule_one(meas, &f, c.xr, c.yr, c.nr, c.fill, r0, r1, t, l, o->halftone);
	} else
		printf(" | r+tb none");
	printf("\n");
	centre_sets_free(&c);
}

/* --extrap-calib (h43g): the level's extrapolation to no blur
 * (fs_det_base_extrap_apply: a second reading on the image blurred by
 * FS_DET_BASE_EXTRA_BLUR more, the readings' ratio taken as linear in the
 * reader's own variance, v1 = its mean 1 / kappa) split into its inputs,
 * where the truth is known. Sums over the domes read at (xs, ys) with
 * the rule's window: s1 and s2 the first and second readings (s2 with
 * every second reading, as the rule takes them; s2n and s1n without the
 * second readings that lie on the window's edge, ne of them), sv the
 * first readings' variances, sr the true radii (rs). */
typedef struct {
	double s1, s2, s1n, s2n, sv, sr;
	size_t n, ne;
} extrap_sums;

static int extrap_read(const fs_image *img, const double *xs, const double *ys, const double *rs, size_t n, double mr,
		       extrap_sums *e)
{
	char err[128];
	memset(e, 0, sizeof *e);
	fs_image *b2 = fs_gaussian_blurred(img, FS_DET_BASE_EXTRA_BLUR, err, sizeof err);
	if (!b2)
		return -1;
	for (size_t j = 0; j < n; j++) {
		int e1 = 1, e2 = 1;
		double v1 = NAN, v2;
		double l1 = fs_det_base_level_blur(img, xs[j], ys[j], mr, 1, &e1, &v1, NULL);
		double l2 = fs_det_base_level_blur(b2, xs[j], ys[j], mr, 1, &e2, &v2, NULL);
		if (!isfinite(l1) || e1 || !isfinite(l2) || !(v1 > 0))
			continue;
		e->s1 += l1;
		e->s2 += l2;
		e->sv += v1;
		e->sr += rs[j];
		e->n++;
		if (e2) {
			e->ne++;
		} else {
			e->s1n += l1;
			e->s2n += l2;
		}
	}
	fs_image_free(b2);
	return 0;
}

/* The readings' excess over the true radii, %, extrapolated with the
 * response r (the second readings' ratio less one) over the variance v:
 * what fs_det_base_extrap_apply would give with those two. */
static double extrap_pct(const extrap_sums *e, double r, double v)
{
	return 100 * ((e->s1 / e->sr) * (1 - r * v / (FS_DET_BASE_EXTRA_BLUR * FS_DET_BASE_EXTRA_BLUR)) - 1);
}

/* A sampled Gaussian's variance (px^2), as fs_gaussian_blurred's kernel
 * (4 sigma reach): below 0.6 px it is less than sigma^2 (h41f). */
static double sampled_var(double sigma)
{
	if (!(sigma > 0))
		return 0;
	int R = (int)(4.0 * sigma + 0.5);
	double s = 0, m = 0;
	for (int j = -(R < 1 ? 1 : R); j <= (R < 1 ? 1 : R); j++) {
		double k = exp(-0.5 * j * j / (sigma * sigma));
		s += k;
		m += k * j * j;
	}
	return m / s;
}

/* The measurement image's blur variance (px^2) as the simulator made it:
 * the beam's spot (sampled on the lattice after the pixel's box, or
 * continuous), its pixel box, and the measurement's smoothing msig
 * sampled. The rule cannot read it; the benches compare with it. */
static double image_var(const sem_opts *o, double msig)
{
	double spot2 = o->beam_blur * o->beam_blur - 1.0 / 12;
	double v_beam = o->beam_continuous ? o->beam_blur * o->beam_blur
					   : sampled_var(spot2 > 0 ? sqrt(spot2) : 0) + 1.0 / 12;
	return v_beam + sampled_var(msig);
}

static void extrap_line(const char *label, const extrap_sums *e, double v_img)
{
	double ra = e->s2 / e->s1 - 1, rn = e->s1n > 0 ? e->s2n / e->s1n - 1 : NAN, v1 = e->sv / e->n;
	printf("  EXTRAP %-12s L1 %+6.2f %% v1 %.3f (v %.3f) response/px^2 %5.2f %% (%zu of %zu on the edge; without "
	       "them %5.2f %%) need %5.2f %% | extrapolated: rule %+6.2f, edge out %+6.2f, v %+6.2f, both %+6.2f %%\n",
	       label, 100 * (e->s1 - e->sr) / e->sr, v1, v_img, 100 * ra, e->ne, e->n, 100 * rn,
	       100 * (e->s1 / e->sr - 1) / v_img, extrap_pct(e, ra, v1), extrap_pct(e, rn, v1), extrap_pct(e, ra, v_img),
	       extrap_pct(e, rn, v_img));
}

static int extrap_calib;

/* --extrap-calib's lines. "image": the measurement image read from the
 * TRUE centres with the rule's window (REACH x the pitch, as the rule's
 * Re-measure and bench_rim_rays); v is the image's own blur variance as
 * the simulator made it (the beam's spot, sampled on the lattice or
 * continuous, its pixel box, and the measurement's smoothing sampled),
 * which the rule cannot read; "need" the response per px^2 that would
 * take the reading to the truth over v. Then the same on the
 * formation's own lattice (fs_dome_tpl_render at the true fill, one
 * dome read at four sub-pixel phases, v its blur squared): for the
 * simulator's formation at the image's blur and 0.1 px either side, and
 * for the formation fitted at the true centres and at the rule's: whether
 * a render could tell the image's extrapolation its shortfall. */
static void extrap_print(const fs_image *meas, const sem_opts *o, const sem_truth *t, const fs_tubercle_list *l,
			 const int *mtru, double msig)
{
	centre_sets c;
	if (centre_sets_make(&c, t, l, mtru))
		return;
	double fill = c.fill;
	double mr = REACH * t->pitch;
	double v_img = image_var(o, msig);
	extrap_sums e;
	if (extrap_read(meas, c.xs, c.ys, c.rs, c.n, mr, &e) || !e.n)
		goto out;
	extrap_line("image", &e, v_img);
	centre_fits cf;
	centre_sets_fit(meas, &c, t->pitch, &cf);
	fs_dome_fit fm;
	formation_sim(o, t->pitch, fill, sqrt(v_img), &fm);
	for (int w = 0; w < 5; w++) {
		fs_dome_fit f = fm;
		const double *cx = c.xs, *cy = c.ys;
		size_t cn = c.n;
		if (w == 1)
			f.blur_px -= 0.1;
		else if (w == 2)
			f.blur_px += 0.1;
		else if (w == 3 && cf.okt)
			f = cf.ot.fit;
		else if (w == 4 && cf.okr) {
			f = cf.or.fit;
			cx = c.xr;
			cy = c.yr;
			cn = c.nr;
		} else if (w >= 3)
			continue;
		fs_dome_tpl tpl;
		char err[128];
		if (fs_dome_tpl_build(meas, &f, fill, cx, cy, cn, &tpl, err, sizeof err))
			continue;
		int size = 2 * (int)ceil(1.5 * f.pitch);
		extrap_sums sum, one;
		memset(&sum, 0, sizeof sum);
		for (int ph = 0; ph < 4; ph++) {
			double px = 0.5 * size + 0.5 * (ph & 1), py = 0.5 * size + 0.5 * (ph >> 1);
			double rt = 0.5 * fill * f.pitch;
			fs_image *img = NULL;
			if (fs_dome_tpl_render(&tpl, &f, fill, size, px, py, &img))
				continue;
			if (!extrap_read(img, &px, &py, &rt, 1, mr, &one)) {
				sum.s1 += one.s1;
				sum.s2 += one.s2;
				sum.s1n += one.s1n;
				sum.s2n += one.s2n;
				sum.sv += one.sv;
				sum.sr += one.sr;
				sum.n += one.n;
				sum.ne += one.ne;
			}
			fs_image_free(img);
		}
		fs_dome_tpl_free(&tpl);
		char lab[40];
		snprintf(lab, sizeof lab, "%s %.2f", w < 3 ? "model" : w == 3 ? "true" : "rule", f.blur_px);
		if (sum.n)
			extrap_line(lab, &sum, f.blur_px * f.blur_px);
		else
			printf("  EXTRAP %-12s no reading on the render\n", lab);
	}
out:
	centre_sets_free(&c);
}

/* --extrap-curve (h43i): the level's excess over the truth as a function
 * of the blur ADDED to the measurement image (a Gaussian of sigma E px,
 * E in CURVE_E; E = 0 the image itself), read from the TRUE centres with
 * the rule's window. What it asks of h43g's proposal: does the tall
 * dome's excess level off with blur (a bright rim line's shift
 * saturating) or grow with the variance, and does the curve above the
 * image's blur (the only part a rule can read) tell the tall spheres
 * (excess through the origin) from the tall flat tops (excess with a
 * cast-shadow offset)? "CURVE": over the domes none of whose readings
 * lies on the window's edge (one set of domes for every column), the
 * excess per added variance, the local slope per px^2 between
 * neighbours, and the extrapolations to no blur, linear through E = 0
 * and 1 and quadratic through E = 0, 1 and 1.414, each with the image's
 * true variance v (which the rule cannot read) and with the reader's own
 * v1. "PAIRS": per E the slope over the domes whose first reading and
 * reading at E are both off the edge (the rule's pair with the edge
 * readings dropped consistently, on a larger set than CURVE's). The
 * beam's own variance is swept with --set blur=B (bench comment of
 * extrap_print: v follows the beam, its pixel box and the smoothing). */
static const double CURVE_E[] = {0, 0.5, 0.7, 1.0, 1.225, 1.414};
#define CURVE_N ((int)(sizeof CURVE_E / sizeof *CURVE_E))

static int extrap_curve;

/* (x0, y0), (x1, y1), (x2, y2) through a parabola, its value at x */
static double lagrange3(double x0, double y0, double x1, double y1, double x2, double y2, double x)
{
	return y0 * (x - x1) * (x - x2) / ((x0 - x1) * (x0 - x2)) + y1 * (x - x0) * (x - x2) / ((x1 - x0) * (x1 - x2)) +
	       y2 * (x - x0) * (x - x1) / ((x2 - x0) * (x2 - x1));
}

static void curve_print(const fs_image *meas, const sem_opts *o, const sem_truth *t, const fs_tubercle_list *l,
			const int *mtru, double msig)
{
	double *xs = malloc(t->n * sizeof *xs), *ys = malloc(t->n * sizeof *ys), *rs = malloc(t->n * sizeof *rs);
	fs_image *im[CURVE_N] = {NULL};
	if (!xs || !ys || !rs)
		goto out;
	size_t n = calib_centres(t, l, mtru, 0, xs, ys, rs);
	double mr = REACH * t->pitch;
	char err[128];
	for (int q = 1; q < CURVE_N; q++)
		if (!(im[q] = fs_gaussian_blurred(meas, CURVE_E[q], err, sizeof err)))
			goto out;
	double v = image_var(o, msig);
	/* s[q], p0[q], pr[q]: the readings at E_q, the first readings and
	 * the true radii over the domes whose first reading and reading at
	 * E_q are both off the window's edge (the pair's slope, as the rule
	 * would take it with the edge readings dropped consistently); the
	 * curve's own columns (c[q]) over the domes with every reading off
	 * the edge, so they are one set of domes */
	double s[CURVE_N] = {0}, p0[CURVE_N] = {0}, pr[CURVE_N] = {0}, c[CURVE_N] = {0}, cr = 0, sv = 0, a0 = 0, ar = 0;
	size_t m = 0, mp[CURVE_N] = {0}, nv = 0;
	for (size_t j = 0; j < n; j++) {
		double r[CURVE_N], v1 = NAN;
		int e[CURVE_N];
		for (int q = 0; q < CURVE_N; q++) {
			double vq;
			e[q] = 1;
			r[q] = fs_det_base_level_blur(q ? im[q] : meas, xs[j], ys[j], mr, 1, &e[q], q ? &vq : &v1, NULL);
		}
		if (!isfinite(r[0]) || e[0] || !(v1 > 0))
			continue;
		sv += v1;
		a0 += r[0];
		ar += rs[j];
		nv++;
		int all = 1;
		for (int q = 1; q < CURVE_N; q++) {
			if (!isfinite(r[q]) || e[q]) {
				all = 0;
				continue;
			}
			s[q] += r[q];
			p0[q] += r[0];
			pr[q] += rs[j];
			mp[q]++;
		}
		if (!all)
			continue;
		for (int q = 0; q < CURVE_N; q++)
			c[q] += r[q];
		cr += rs[j];
		m++;
	}
	if (!m || !nv)
		goto out;
	double ex[CURVE_N], vx[CURVE_N], v1 = sv / nv;
	printf("  CURVE v %.3f v1 %.3f (%zu of %zu domes) excess %% at v +", v, v1, m, n);
	for (int q = 0; q < CURVE_N; q++) {
		ex[q] = 100 * (c[q] / cr - 1);
		vx[q] = sampled_var(CURVE_E[q]);
		printf(" %.2f: %+.2f", vx[q], ex[q]);
	}
	printf(" | slope/px^2");
	for (int q = 1; q < CURVE_N; q++)
		printf(" %.2f", (ex[q] - ex[q - 1]) / (vx[q] - vx[q - 1]));
	printf(" | excess/v %.2f | to no blur: linear v %+.2f v1 %+.2f, quadratic v %+.2f v1 %+.2f\n", ex[0] / v,
	       ex[0] - (ex[3] - ex[0]) / vx[3] * v, ex[0] - (ex[3] - ex[0]) / vx[3] * v1,
	       lagrange3(0, ex[0], vx[3], ex[3], vx[5], ex[5], -v), lagrange3(0, ex[0], vx[3], ex[3], vx[5], ex[5], -v1));
	printf("  PAIRS first reading's excess %+.2f %% (%zu domes)", 100 * (a0 / ar - 1), nv);
	for (int q = 1; q < CURVE_N; q++)
		if (mp[q])
			printf(" | E %.2f (+%.2f px^2, %zu domes): slope %.2f %%/px^2", CURVE_E[q], vx[q], mp[q],
			       100 * (s[q] - p0[q]) / pr[q] / vx[q]);
	printf("\n");
out:
	for (int q = 1; q < CURVE_N; q++)
		fs_image_free(im[q]);
	free(xs);
	free(ys);
	free(rs);
}

/* --rule-level (h44c): h43i's correction of B1's tall spheres judged from
 * the rule's OWN final centres with the image's blur variance v known (the
 * simulator's, image_var: an oracle the rule cannot read) and perturbed by
 * RL_DV px^2 (how precisely a reading must give it). h43i found the tall sphere's first reading in excess by a
 * line through the origin in v (L = A v, A 3.84-4.20 % of D per px^2 from
 * the TRUE centres, RL_SLOPE their mean), where the rule's extrapolation
 * (fs_det_base_extrap_apply with the reader's own v1) leaves +0.5..+1.2 %;
 * so "line" takes the level to the first reading over 1 + A v instead of
 * the rule's extrapolation, and "vext" keeps the rule's extrapolation
 * with v in place of v1. Both act on the level, which every sized dome's
 * radius follows (detect_base_fit.h: the template fit's sizes are scaled
 * to it), so each is judged by scaling every radius of the rule's own
 * result by the level's ratio and scoring it again (D, S % of the truth).
 * Where each applies is decided from the image: the rule's gate
 * (fs_det_base_extrap_plan's, read again here from the formation fitted
 * at the rule's centres, its median radius and v1: NONE, CLEAR or TALL)
 * and, for "line", a sphere (profile < 0.5) at a tight gap (TALL). The
 * rule's own level may come from centres moved by the formation's offset
 * (h42b, scene 23); this reads it at the final centres, which is what the
 * sizes stand on. "read v": the line where the formation says a tall
 * sphere with three image-read variances in place of the oracle (the
 * formation's blur squared, its templates' blur searched to 0.01 px
 * about the same centres, and that search with the centres' common
 * offset free, joint_blur). "level/radii" says how far the level rebuilt here is
 * from the rule's own radii (1: the same). "true" prints the line's level from the TRUE centres
 * (the first readings over 1 + A v, % of the true D) beside it. */
static int rule_level;
#define RL_SLOPE 4.05
static const double RL_DV[] = {0, -0.3, -0.2, -0.1, -0.05, 0.05, 0.1, 0.2, 0.3};
#define RL_NDV ((int)(sizeof RL_DV / sizeof *RL_DV))

/* --fine-v (h45b): the blur variance h43i's line needs, read by the fine
 * forward model (blur_fine.h, h44a) from the rule's OWN centres instead of
 * the oracle, where the line would apply (the sphere gate open) and on
 * the scenes the truth says are tall spheres at pitch 16 (its bias and SD
 * there, gate or not). h44c found the line needs v within +-0.1 px^2 at
 * both detector azimuths; the formation fit's templates read 21 0.15-0.40
 * px^2 high. The readings (FV_*), each about every sized centre of the
 * rule (moved by the formation's offset where the rule's level is read
 * from there, h42b), the common offset searched:
 *   fD        the fill held at the rule's mean D over the formation's
 *             pitch, the formation fit's shape held (h44k's fD);
 *   fD+shape  the same with the profile and h/R searched (h44k's best on
 *             A and E; 18 x the cost);
 *   fD/sph1   the fill tied, the shape held at a sphere of h/R 1.0 (what
 *             the gate says a tall sphere is, not the fit's coarse h/R);
 *   fD@meas   fD read on the measurement image itself (the image the
 *             level's readings and the line's v are on) instead of the
 *             source: no sampled-smoothing term to add;
 *   true      the TRUE centres with the simulator's geometry, offset held
 *             at 0 (an oracle: the fine model's own bias at 3.2-px gaps,
 *             h44a +0.05 px of beam);
 *   fD/al, fD+shape/al, fD/sph1/al  fD, fD+shape and fD/sph1 about
 *             the rule's centres each moved onto the mean patch (align_centres): the rule's
 *             per-dome scatter widens the mean patch as a blur would
 *             (a scatter of variance s^2 a axis adds s^2 to v), and no
 *             common offset takes it off;
 *   true/al   true's reading about the TRUE centres moved by
 *             align_centres: what the alignment itself does to the mean
 *             patch where there is no scatter to take off.
 * Read on the source image, v = beam^2 + 1/12 + the measurement
 * smoothing's sampled variance (image_var's sum); on the measurement
 * image v = beam^2 + 1/12 (its smoothing is in the Gaussian read). */
enum { FV_FD, FV_FDSHAPE, FV_FDSPH1, FV_FDMEAS, FV_TRUE, FV_FDAL, FV_FDALSHAPE, FV_FDSPH1AL, FV_TRUEAL, FV_N };
static const char *FV_NAME[FV_N] = {"fD",         "fD+shape",    "fD/sph1",
				    "fD@meas",    "true",        "fD/al",
				    "fD+shape/al", "fD/sph1/al", "true/al"};
static unsigned fine_v_on; /* a bit per FV_*; 0: --fine-v not asked */
static int fine_v_grid = 64;
static double fine_v_sigma_hi = 3.0;

/* Each centre moved onto the mean patch (image-only): the mean patch
 * about the centres (whole-px offsets within half a pitch, bilinear),
 * then each dome's own patch matched to it (gain and level solved, the
 * least squares' residual) over moves of +-1 px in 0.125-px steps, the
 * best refined by a parabola a axis; the moves' mean taken off (the
 * common offset is the fine read's to find), and again from the new
 * centres, iters times. Why: the rule's centres scatter about the domes
 * (0.02-0.18 px^2 a axis on corner 5 and 21, h45b), which the mean patch
 * shows as blur. It does not put them nearer the truth (0.03-0.04 px^2
 * after it, about the TRUE centres too) and it sharpens the mean patch
 * by ~0.05 px^2 beyond the true centres' (the same at half and twice
 * the noise variance and without roughness or undulation; the moves go
 * towards half pixels, not whole ones, h45b). What it matches is the
 * domes' radius spread (h45n): with the simulator's radius jitter off
 * (--set rjit=0) the true centres move 0.002 px^2 instead of 0.03 and
 * the patch blurs by 0.01 instead of sharpening by 0.05; the position
 * jitter off (pjit=0) changes neither. Brute force (17 x 17 moves a dome and round): ~4 G instructions
 * on a corner scene; a cost to cut before any rule used it. xs, ys are
 * moved in place; 0, or -1 out of memory. */
__attribute__((noinline)) /* its own line in a callgrind profile (its cost, h45b) */
static int align_centres(const fs_image *img, double *xs, double *ys, size_t n, double pitch, int iters)
{
	int hw = (int)(0.5 * pitch), side = 2 * hw + 1, np = 0;
	int *du = malloc((size_t)side * side * sizeof *du), *dvv = malloc((size_t)side * side * sizeof *dvv);
	double *tp = malloc((size_t)side * side * sizeof *tp), *pp = malloc((size_t)side * side * sizeof *pp);
	double *mvx = malloc((n + 1) * sizeof *mvx), *mvy = malloc((n + 1) * sizeof *mvy);
	if (!du || !dvv || !tp || !pp || !mvx || !mvy) {
		free(du), free(dvv), free(tp), free(pp), free(mvx), free(mvy);
		return -1;
	}
	for (int v = -hw; v <= hw; v++)
		for (int u = -hw; u <= hw; u++)
			if (u * u + v * v <= 0.25 * pitch * pitch) {
				du[np] = u;
				dvv[np++] = v;
			}
	double lo = hw + 2, hx = img->width - hw - 3, hy = img->height - hw - 3;
#define AL_IN(x, y) ((x) >= lo && (y) >= lo && (x) <= hx && (y) <= hy)
	for (int it = 0; it < iters; it++) {
		size_t m = 0;
		for (int p = 0; p < np; p++)
			tp[p] = 0;
		for (size_t i = 0; i < n; i++)
			if (AL_IN(xs[i], ys[i])) {
				for (int p = 0; p < np; p++)
					tp[p] += fs_image_sample_inside(img->data, img->width, xs[i] + du[p], ys[i] + dvv[p]);
				m++;
			}
		if (m < 8)
			break;
		double tm = 0, tss = 0;
		for (int p = 0; p < np; p++)
			tm += (tp[p] /= m);
		tm /= np;
		for (int p = 0; p < np; p++)
			tss += (tp[p] - tm) * (tp[p] - tm);
		double sx = 0, sy = 0;
		size_t nm = 0;
		for (size_t i = 0; i < n; i++) {
			mvx[i] = mvy[i] = 0;
			if (!AL_IN(xs[i], ys[i]))
				continue;
			/* the residual of the patch on (1, template) at a move */
#define AL_RES(ax, ay, out)                                                                                   \
	do {                                                                                                   \
		double pm = 0, ptc = 0, pss = 0;                                                               \
		for (int p = 0; p < np; p++)                                                                   \
			pm += (pp[p] = fs_image_sample_clamped(img, xs[i] + (ax) + du[p], ys[i] + (ay) + dvv[p])); \
		pm /= np;                                                                                      \
		for (int p = 0; p < np; p++) {                                                                 \
			ptc += (pp[p] - pm) * (tp[p] - tm);                                                    \
			pss += (pp[p] - pm) * (pp[p] - pm);                                                    \
		}                                                                                              \
		(out) = pss - ptc * ptc / tss;                                                                 \
	} while (0)
			double best = INFINITY, bx = 0, by = 0, st = 0.125;
			for (int a = -8; a <= 8; a++)
				for (int b = -8; b <= 8; b++) {
					double r;
					AL_RES(a * st, b * st, r);
					if (r < best) {
						best = r;
						bx = a * st;
						by = b * st;
					}
				}
			double rxm, rxp, rym, ryp, ox = 0, oy = 0;
			AL_RES(bx - st, by, rxm);
			AL_RES(bx + st, by, rxp);
			AL_RES(bx, by - st, rym);
			AL_RES(bx, by + st, ryp);
			if (rxm + rxp - 2 * best > 0)
				ox = 0.5 * st * (rxm - rxp) / (rxm + rxp - 2 * best);
			if (rym + ryp - 2 * best > 0)
				oy = 0.5 * st * (rym - ryp) / (rym + ryp - 2 * best);
			mvx[i] = bx + ox;
			mvy[i] = by + oy;
			sx += mvx[i];
			sy += mvy[i];
			nm++;
#undef AL_RES
		}
		if (!nm)
			break;
		sx /= nm;
		sy /= nm;
		for (size_t i = 0; i < n; i++)
			if (AL_IN(xs[i], ys[i]) && (mvx[i] != 0 || mvy[i] != 0)) {
				xs[i] += mvx[i] - sx;
				ys[i] += mvy[i] - sy;
			}
	}
#undef AL_IN
	free(du), free(dvv), free(tp), free(pp), free(mvx), free(mvy);
	return 0;
}

/* The rule's centres' scatter about the TRUE ones (an oracle): the
 * variance a axis of true - given over the matched domes, their mean
 * (the common offset) taken off; (var x + var y) / 2, px^2. idx maps
 * the given centres to l's items. */
static double centre_scatter(const sem_truth *t, const int *mtru, const int *idx, size_t n, const double *xs,
			     const double *ys)
{
	double sx = 0, sy = 0, sxx = 0, syy = 0;
	size_t m = 0;
	for (size_t j = 0; j < t->n; j++) {
		if (!t->inside[j] || mtru[j] < 0)
			continue;
		for (size_t i = 0; i < n; i++)
			if (idx[i] == mtru[j]) {
				double ex = t->x[j] - xs[i], ey = t->y[j] - ys[i];
				sx += ex, sy += ey, sxx += ex * ex, syy += ey * ey;
				m++;
				break;
			}
	}
	if (m < 2)
		return NAN;
	return 0.5 * ((sxx - sx * sx / m) + (syy - sy * sy / m)) / (m - 1);
}

/* one fine reading's v (px^2), NAN where it fails; *rd gets the read */
static double fine_v_read(const fs_image *img, const double *xs, const double *ys, size_t n, const fs_dome_fit *f,
			  double fill, int shape_search, double shift_max, double add_var, fs_blur_fine *rd)
{
	fs_blur_fine_opts bo;
	fs_blur_fine_opts_default(&bo);
	bo.grid = fine_v_grid;
	bo.sigma_hi = fine_v_sigma_hi;
	bo.fill = fill;
	bo.shape_search = shape_search;
	bo.shift_max = shift_max;
	char err[256];
	if (fs_blur_fine_read(img, xs, ys, n, f, &bo, rd, err, sizeof err)) {
		printf("  FINEV: %s\n", err);
		return NAN;
	}
	return rd->beam * rd->beam + 1.0 / 12 + add_var;
}

/* --spread-v (h46b): a blur read for the line with the domes' radius
 * spread and the centres' scatter taken off (ray_spread.h: two halves of
 * each dome's rays, so the readings' own scatter is not taken off with
 * them). Per scene a line "SPREADV": the spread and scatter read about the
 * rule's centres (as moved for its level) and about the TRUE ones, the
 * oracles beside them (the true radii's variance, the rule's centres'
 * scatter about the true ones), and three mean-patch reads as they are
 * and less the spread and scatter: the templates' blur searched to 0.01 px
 * on the measurement image (fine_blur, h42l), the fine forward model with
 * the formation's shape held (fD, h45b) and the same with a sphere of h/R
 * 1 held (fD/sph1), each with the line's D/S where the sphere gate is open
 * (the rule's elsewhere), and the reader's own v1. */
static int spread_v;

static void spread_v_print(const fs_image *src, const fs_image *meas, const sem_opts *o, const sem_truth *t,
			   const fs_tubercle_list *l, const int *mtru, const centre_sets *c, const fs_det_offset *off,
			   double mdx, double mdy, int moved, int gate, double g_rule, double v, double v1, double msig)
{
	double *fx = malloc((l->n + 1) * sizeof *fx), *fy = malloc((l->n + 1) * sizeof *fy), dd = 0, rsum = 0, rss = 0;
	int *idx = malloc((l->n + 1) * sizeof *idx);
	size_t nd = 0;
	for (size_t i = 0; fx && fy && idx && i < l->n; i++)
		if (isfinite(l->items[i].radius_px) && l->items[i].radius_px > 0) {
			fx[nd] = l->items[i].centroid_x + (moved ? mdx : 0);
			fy[nd] = l->items[i].centroid_y + (moved ? mdy : 0);
			idx[nd++] = (int)i;
			dd += 2 * l->items[i].radius_px;
			rsum += l->items[i].radius_px;
			rss += l->items[i].radius_px * l->items[i].radius_px;
		}
	char err[256];
	ray_spread sr, st;
	double rmean = nd ? dd / nd / 2 : NAN, out = 0.5 * (t->pitch - 2 * rmean) + 0.5;
	if (nd < 8 || ray_spread_read(src, fx, fy, nd, rmean, out, &sr, err, sizeof err) ||
	    ray_spread_read(src, c->xs, c->ys, c->n, rmean, out, &st, err, sizeof err)) {
		printf(" | SPREADV not read\n");
		goto out;
	}
	double rv_true = 0, s = 0, ss = 0;
	for (size_t j = 0; j < c->n; j++)
		s += c->rs[j], ss += c->rs[j] * c->rs[j];
	rv_true = (ss - s * s / c->n) / (c->n - 1);
	double sc0 = centre_scatter(t, mtru, idx, nd, fx, fy), take = sr.var_r + sr.scatter;
	/* the per-dome offsets against the truth's (an oracle): the slope of
	 * the read on the true offset, and the true scatter over the domes
	 * read and over those within 1 px */
	double *ex = malloc(nd * sizeof *ex), *ey = malloc(nd * sizeof *ey);
	ray_spread sr2;
	if (ex && ey && !ray_spread_read_each(src, fx, fy, nd, rmean, out, &sr2, ex, ey, err, sizeof err)) {
		double st_[2][6] = {{0}};
		size_t nm[2] = {0, 0};
		for (size_t j = 0; j < t->n; j++) {
			if (!t->inside[j] || mtru[j] < 0)
				continue;
			for (size_t i = 0; i < nd; i++)
				if (idx[i] == mtru[j] && isfinite(ex[i])) {
					double tx = t->x[j] - fx[i], ty = t->y[j] - fy[i];
					for (int g = 0; g < 2; g++) {
						if (g && hypot(tx, ty) > 1)
							continue;
						double *a = st_[g];
						a[0] += tx + ty, a[1] += ex[i] + ey[i], a[2] += tx * tx + ty * ty;
						a[3] += ex[i] * tx + ey[i] * ty, a[4] += ex[i] * ex[i] + ey[i] * ey[i];
						nm[g]++;
					}
					break;
				}
		}
		/* (the means taken off per axis would be cleaner; both sums
		 * pooled over x and y serve a slope and a variance a axis) */
		for (int g = 0; g < 2; g++) {
			double *a = st_[g], m2 = 2.0 * nm[g];
			double vt = (a[2] - a[0] * a[0] / m2) / (m2 - 1), ct = (a[3] - a[0] * a[1] / m2) / (m2 - 1),
			       ve = (a[4] - a[1] * a[1] / m2) / (m2 - 1);
			printf(" | offsets%s n %zu true var %.4f read var %.4f slope %.3f corr %.3f", g ? "<1px" : "", nm[g],
			       vt, ve, ct / vt, ct / sqrt(vt * ve));
		}
	}
	free(ex);
	free(ey);
	printf(" | SPREADV gate %d n %zu edge %.2f rule var_r %.4f (whole %.4f) scatter %.4f (whole %.4f) | true-centres "
	       "var_r %.4f scatter %.4f | oracle var(R) %.4f rule radii %.4f scatter %.4f | v %.3f v1 %.3f",
	       gate, sr.n, sr.edge_r, sr.var_r, sr.var_r_whole, sr.scatter, sr.scatter_whole, st.var_r, st.scatter, rv_true,
	       (rss - rsum * rsum / nd) / (nd - 1), sc0, v, v1);
	double fill_d = dd / nd / off->fit.pitch, mis, add = sampled_var(msig);
	fs_dome_fit sph1 = off->fit;
	sph1.profile = 0;
	sph1.h_over_r = 1.0;
	fs_blur_fine rd;
	double bt = fine_blur(meas, &off->fit, fx, fy, nd, fill_d, &mis);
	double reads[3] = {bt * bt, fine_v_read(src, fx, fy, nd, &off->fit, fill_d, 0, 1.5, add, &rd),
			   fine_v_read(src, fx, fy, nd, &sph1, fill_d, 0, 1.5, add, &rd)};
	static const char *rname[3] = {"tpl", "fD", "fD/sph1"};
	{
		/* the readings' own steps (h46b): no spread to take off */
		double vl = fs_det_base_line_v(v1), f = gate && isfinite(vl) ? 1 / (1 + RL_SLOPE * vl / 100) / g_rule : 1, d, sp;
		if (sem_score_scaled_ds(t, l, o->halftone, f, &d, &sp))
			d = sp = NAN;
		printf(" | v1line v %.3f dv %+.3f %+.2f/%+.2f", vl, vl - v, d, sp);
	}
	for (int q = 0; q < 3; q++) {
		printf(" | %s v %.3f dv %+.3f less %.3f dv %+.3f", rname[q], reads[q], reads[q] - v, reads[q] - take,
		       reads[q] - take - v);
		for (int w = 0; w < 2; w++) {
			double vq = reads[q] - (w ? take : 0), f = gate && isfinite(vq) ? 1 / (1 + RL_SLOPE * vq / 100) / g_rule : 1,
			       d, sp;
			if (sem_score_scaled_ds(t, l, o->halftone, f, &d, &sp))
				d = sp = NAN;
			printf(" %+.2f/%+.2f", d, sp);
		}
	}
	printf("\n");
out:
	free(fx);
	free(fy);
	free(idx);
}

static void rule_level_print(int k, unsigned seed_add, const fs_image *src, const fs_image *meas, const sem_opts *o, const sem_truth *t,
			     const fs_tubercle_list *l, const int *mtru, double msig)
{
	centre_sets c;
	if (centre_sets_make(&c, t, l, mtru))
		return;
	double mr = REACH * t->pitch, v = image_var(o, msig);
	extrap_sums er, et;
	fs_det_offset off;
	if (c.nr < 8 || extrap_read(meas, c.xr, c.yr, c.rr, c.nr, mr, &er) || er.n < 8 ||
	    extrap_read(meas, c.xs, c.ys, c.rs, c.n, mr, &et) || !et.n ||
	    fs_det_offset_fit(meas, c.xr, c.yr, c.rr, c.nr, t->pitch, NULL, &off) || !off.fitted) {
		printf("RULELEVEL %d +%u: not read\n", k, seed_add);
		goto out;
	}
	/* the rule's gate as fs_det_base_extrap_plan reads it: the median
	 * radius (its fill0) and the reader's own v1 */
	double v1 = er.sv / er.n, *sr = malloc(c.nr * sizeof *sr), *mx = malloc(c.nr * sizeof *mx),
	       *my = malloc(c.nr * sizeof *my), *ms = malloc(c.nr * sizeof *ms);
	if (!sr || !mx || !my || !ms) {
		free(sr);
		free(mx);
		free(my);
		free(ms);
		goto out;
	}
	memcpy(sr, c.rr, c.nr * sizeof *sr);
	double r0 = fs_median_upper(sr, c.nr), sg = sqrt(v1 + FS_DET_BASE_EXTRA_BLUR * FS_DET_BASE_EXTRA_BLUR), gap = t->pitch - 2 * r0;
	free(sr);
	int resolved = !(off.fit.halftone > 0) && r0 >= FS_DET_BASE_RESOLVED * sg, clear = gap >= FS_DET_BASE_FOOT_CLEAR * sg;
#define RL_TALL(f) ((f).h_over_r >= FS_DET_BASE_TALL_HR && (f).low_ratio >= FS_DET_BASE_TALL_LOW_RATIO)
	int plan = !resolved ? FS_DET_EXTRAP_NONE : clear ? FS_DET_EXTRAP_CLEAR
			   : RL_TALL(off.fit) ? FS_DET_EXTRAP_TALL : FS_DET_EXTRAP_NONE;
	/* h42b (fs_det_base_moved_wanted): where the formation alone shut the
	 * tight-gap gate and its offset is not zero, the rule fits it again at
	 * the centres moved by the offset (fill held) and, where that look
	 * opens the gate, reads the level from there */
	int moved = 0;
	double mdx = off.dx, mdy = off.dy;
	if (resolved && !clear && plan == FS_DET_EXTRAP_NONE && hypot(off.dx, off.dy) > 0) {
		fs_det_offset o2;
		for (size_t j = 0; j < c.nr; j++) {
			mx[j] = c.xr[j] + off.dx;
			my[j] = c.yr[j] + off.dy;
			ms[j] = 0.5 * off.fit.fill * off.fit.pitch;
		}
		extrap_sums e2;
		if (!fs_det_offset_fit(meas, mx, my, ms, c.nr, t->pitch, NULL, &o2) && o2.fitted && RL_TALL(o2.fit) &&
		    !extrap_read(meas, mx, my, c.rr, c.nr, mr, &e2) && e2.n >= 8) {
			off = o2;
			er = e2;
			v1 = er.sv / er.n;
			plan = FS_DET_EXTRAP_TALL;
			moved = 1;
		}
	}
	free(mx);
	free(my);
	free(ms);
	double resp = er.s2 / er.s1 - 1;
	double g_rule = plan != FS_DET_EXTRAP_NONE && fabs(resp * v1) <= FS_DET_BASE_EXTRAP_MAX ? 1 - resp * v1 : 1;
	int sphere_tall = plan == FS_DET_EXTRAP_TALL && off.fit.profile < 0.5;
	double d0, s0;
	if (sem_score_scaled_ds(t, l, o->halftone, 1, &d0, &s0))
		goto out;
	printf("RULELEVEL %d +%u plan %d%s profile %.1f h/R %.2f low %.2f v %.3f v1 %.3f resp %+.4f | rule D %+.2f S "
	       "%+.2f | level/radii %.4f | true-centre line",
	       k, seed_add, plan, moved ? " moved" : "", off.fit.profile, off.fit.h_over_r, off.fit.low_ratio, v, v1, resp, d0, s0,
	       er.s1 * g_rule / er.sr);
	for (int q = 0; q < RL_NDV; q++)
		printf(" %+.2f", 100 * ((et.s1 / et.sr) / (1 + RL_SLOPE * (v + RL_DV[q]) / 100) - 1));
	/* the four ways: line where the formation says a sphere at a tight
	 * gap; line wherever the gap is tight (any profile); line where the
	 * simulator's truth says a tall sphere at pitch 16 (an oracle gate: the line's
	 * own worth, the gate's errors apart); vext wherever the rule
	 * extrapolates */
	static const char *way[4] = {"line/sph", "line/tall", "line/oracle", "vext"};
	int truth_sph = o->profile < 0.5 && o->h_over_r >= FS_DET_BASE_TALL_HR && t->pitch < 40;
	/* three image-read variances for the line where the gate is open, in
	 * place of the oracle: the formation fit's own blur squared and its
	 * templates' blur searched to 0.01 px about the same centres
	 * (fine_blur, h42l) and with the centres moved together (joint_blur,
	 * h42l), at the rule's median fill */
	double mis, vfit = off.fit.blur_px * off.fit.blur_px, bfine = NAN, bjoint = NAN;
	if (sphere_tall) {
		const double *fx = moved ? NULL : c.xr, *fy = c.yr;
		double *gx = NULL, *gy = NULL;
		if (moved && (gx = malloc(c.nr * sizeof *gx)) && (gy = malloc(c.nr * sizeof *gy))) {
			for (size_t j = 0; j < c.nr; j++) {
				gx[j] = c.xr[j] + mdx;
				gy[j] = c.yr[j] + mdy;
			}
			fx = gx;
			fy = gy;
		}
		if (fx) {
			double jx, jy;
			bfine = fine_blur(meas, &off.fit, fx, fy, c.nr, 2 * r0 / t->pitch, &mis);
			bjoint = joint_blur(meas, &off.fit, fx, fy, c.nr, 2 * r0 / t->pitch, &jx, &jy, &mis);
		}
		free(gx);
		free(gy);
	}
	printf(" | read v: fit %.3f fine %.3f joint %.3f", vfit, bfine * bfine, bjoint * bjoint);
	for (int q = 0; q < 3; q++) {
		double vq = q == 2 ? bjoint * bjoint : q ? bfine * bfine : vfit, f = sphere_tall && isfinite(vq) ? 1 / (1 + RL_SLOPE * vq / 100) / g_rule : 1,
		       d, sp;
		if (sem_score_scaled_ds(t, l, o->halftone, f, &d, &sp))
			d = sp = NAN;
		printf(" %+.2f/%+.2f", d, sp);
	}
	if (fine_v_on && (sphere_tall || truth_sph)) {
		/* every sized centre of the rule (as a rule would read them),
		 * moved as the level's readings were, and its mean D's fill */
		double *fx = malloc((l->n + 1) * sizeof *fx), *fy = malloc((l->n + 1) * sizeof *fy), dd = 0;
		double *ax = malloc((l->n + 1) * sizeof *ax), *ay = malloc((l->n + 1) * sizeof *ay);
		int *idx = malloc((l->n + 1) * sizeof *idx);
		size_t nd = 0;
		for (size_t i = 0; fx && fy && ax && ay && idx && i < l->n; i++)
			if (isfinite(l->items[i].radius_px) && l->items[i].radius_px > 0) {
				fx[nd] = l->items[i].centroid_x + (moved ? mdx : 0);
				fy[nd] = l->items[i].centroid_y + (moved ? mdy : 0);
				ax[nd] = fx[nd];
				ay[nd] = fy[nd];
				idx[nd++] = (int)i;
				dd += 2 * l->items[i].radius_px;
			}
		double sc0 = NAN, sc1 = NAN, *tax = NULL, *tay = NULL;
		if (fine_v_on >> FV_TRUEAL & 1 && c.n >= 8 && (tax = malloc(c.n * sizeof *tax)) &&
		    (tay = malloc(c.n * sizeof *tay))) {
			memcpy(tax, c.xs, c.n * sizeof *tax);
			memcpy(tay, c.ys, c.n * sizeof *tay);
			if (align_centres(meas, tax, tay, c.n, t->pitch, 3)) {
				free(tax);
				tax = NULL;
			} else {
				/* the moves' own scatter (true centres: all of it is the alignment's) */
				double sx = 0, sy = 0, sxx = 0, syy = 0;
				for (size_t j = 0; j < c.n; j++) {
					double ex = tax[j] - c.xs[j], ey = tay[j] - c.ys[j];
					sx += ex, sy += ey, sxx += ex * ex, syy += ey * ey;
				}
				/* the bilinear tent's variance a axis at each centre's
				 * sub-pixel phase f, f (1 - f): 1/6 over random phases;
				 * lower where the moves lock centres towards whole px */
				double t0 = 0, t1 = 0;
				for (size_t j = 0; j < c.n; j++) {
					double f0x = c.xs[j] - floor(c.xs[j]), f0y = c.ys[j] - floor(c.ys[j]);
					double f1x = tax[j] - floor(tax[j]), f1y = tay[j] - floor(tay[j]);
					t0 += 0.5 * (f0x * (1 - f0x) + f0y * (1 - f0y));
					t1 += 0.5 * (f1x * (1 - f1x) + f1y * (1 - f1y));
				}
				printf(" | true/al moves' scatter %.3f tent var %.3f -> %.3f",
				       0.5 * ((sxx - sx * sx / c.n) + (syy - sy * sy / c.n)) / (c.n - 1), t0 / c.n, t1 / c.n);
			}
		}
		if (nd >= 8 && (fine_v_on >> FV_FDAL & 1 || fine_v_on >> FV_FDALSHAPE & 1 || fine_v_on >> FV_FDSPH1AL & 1)) {
			sc0 = centre_scatter(t, mtru, idx, nd, fx, fy);
			if (align_centres(meas, ax, ay, nd, t->pitch, 3))
				nd = 0;
			else
				sc1 = centre_scatter(t, mtru, idx, nd, ax, ay);
		}
		double fill_d = nd ? dd / nd / off.fit.pitch : NAN, add = sampled_var(msig);
		fs_dome_fit sph1 = off.fit, fsim;
		sph1.profile = 0;
		sph1.h_over_r = 1.0;
		formation_sim(o, off.fit.pitch, c.fill, 0, &fsim);
		printf(" | FINEV gate %d truth %d fill of D %.3f (true %.3f) fit prof %.1f h/R %.2f scatter %.3f aligned %.3f",
		       sphere_tall, truth_sph, fill_d, c.fill, off.fit.profile, off.fit.h_over_r, sc0, sc1);
		/* h45n: the domes' radius spread widens the mean patch's edges
		 * as a blur would (the simulator's 4 % radius jitter, 0.066
		 * px^2 at R 6.4 px, is the true centres' excess); the TRUE radii's
		 * variance and the rule's own (its measurement scatter in it) */
		double rv_true = NAN, rv_rule = NAN;
		if (c.n >= 2) {
			double s = 0, ss = 0;
			for (size_t j = 0; j < c.n; j++)
				s += c.rs[j], ss += c.rs[j] * c.rs[j];
			rv_true = (ss - s * s / c.n) / (c.n - 1);
		}
		if (nd >= 2 && idx) {
			double s = 0, ss = 0;
			for (size_t j = 0; j < nd; j++) {
				double r = l->items[idx[j]].radius_px;
				s += r, ss += r * r;
			}
			rv_rule = (ss - s * s / nd) / (nd - 1);
		}
		printf(" radii var true %.4f rule %.4f", rv_true, rv_rule);
		for (int q = 0; q < FV_N; q++) {
			if (!(fine_v_on >> q & 1) || nd < 8 || !fx || !fy || (q == FV_TRUEAL && !(tax && tay)))
				continue;
			fs_blur_fine rd;
			double vq = q == FV_FD ? fine_v_read(src, fx, fy, nd, &off.fit, fill_d, 0, 1.5, add, &rd)
				  : q == FV_FDSHAPE ? fine_v_read(src, fx, fy, nd, &off.fit, fill_d, 1, 1.5, add, &rd)
				  : q == FV_FDSPH1 ? fine_v_read(src, fx, fy, nd, &sph1, fill_d, 0, 1.5, add, &rd)
				  : q == FV_FDMEAS ? fine_v_read(meas, fx, fy, nd, &off.fit, fill_d, 0, 1.5, 0, &rd)
				  : q == FV_FDAL ? fine_v_read(src, ax, ay, nd, &off.fit, fill_d, 0, 1.5, add, &rd)
				  : q == FV_FDALSHAPE ? fine_v_read(src, ax, ay, nd, &off.fit, fill_d, 1, 1.5, add, &rd)
				  : q == FV_FDSPH1AL ? fine_v_read(src, ax, ay, nd, &sph1, fill_d, 0, 1.5, add, &rd)
				  : q == FV_TRUEAL ? fine_v_read(src, tax, tay, c.n, &fsim, c.fill, 0, 0, add, &rd)
				  : fine_v_read(src, c.xs, c.ys, c.n, &fsim, c.fill, 0, 0, add, &rd);
			if (!isfinite(vq))
				continue;
			/* where the gate is open the line takes this v; elsewhere the
			 * rule's result stands (printed as the rule's) */
			double f = sphere_tall ? 1 / (1 + RL_SLOPE * vq / 100) / g_rule : 1, d, sp;
			if (sem_score_scaled_ds(t, l, o->halftone, f, &d, &sp))
				d = sp = NAN;
			printf(" | %s v %.3f dv %+.3f beam %.3f mis %.5f prof %.0f h/R %.2f shift %+.2f %+.2f D/S %+.2f/%+.2f",
			       FV_NAME[q], vq, vq - v, rd.beam, rd.misfit, rd.profile, rd.h_over_r, rd.shift_x, rd.shift_y,
			       d, sp);
		}
		free(fx);
		free(fy);
		free(ax);
		free(ay);
		free(idx);
		free(tax);
		free(tay);
	}
	if (spread_v && (sphere_tall || truth_sph)) {
		spread_v_print(src, meas, o, t, l, mtru, &c, &off, mdx, mdy, moved, sphere_tall, g_rule, v, v1, msig);
		goto out;
	}
	for (int w = 0; w < 4; w++) {
		int on = w == 0 ? sphere_tall : w == 1 ? plan == FS_DET_EXTRAP_TALL : w == 2 ? truth_sph
										    : plan != FS_DET_EXTRAP_NONE;
		printf(" | %s %d", way[w], on);
		for (int q = 0; q < RL_NDV; q++) {
			double vq = v + RL_DV[q], f = 1;
			if (on && w < 3)
				f = 1 / (1 + RL_SLOPE * vq / 100) / g_rule;
			else if (on && fabs(resp * vq) <= FS_DET_BASE_EXTRAP_MAX)
				f = (1 - resp * vq) / g_rule;
			double d, s;
			if (sem_score_scaled_ds(t, l, o->halftone, f, &d, &s))
				d = s = NAN;
			printf(" %+.2f/%+.2f", d, s);
		}
	}
	printf("\n");
out:
	centre_sets_free(&c);
}

static int blur_read;

/* --blur-read's line per scene: the finely searched blur (fine_blur) for
 * the formation fitted at the TRUE centres (t) and for the simulator's own
 * formation (m), each read about the true centres, about the true centres
 * moved by the rule's common offset (the mean of rule - true over the
 * matched domes: h42b's 0.2-0.4 px along the detector's axis) and about
 * the rule's own centres; and the formation fitted at the rule's centres
 * about them (r: what the rule could read). The nominal blur is the
 * beam's and the measurement image's smoothing in quadrature. What it
 * asks: does the blur read to 0.01 px, and which centres spoil it - the
 * common offset alone or the per-dome scatter about it. */
static void blur_print(int k, const fs_image *meas, const sem_opts *o, const sem_truth *t, const fs_tubercle_list *l,
		       const int *mtru, double msig)
{
	centre_sets c;
	if (centre_sets_make(&c, t, l, mtru))
		return;
	double *xs = c.xs, *ys = c.ys, *rs = c.rs, *xr = c.xr, *yr = c.yr, *rr = c.rr;
	size_t n = c.n, nr = c.nr;
	double *xo = malloc(t->n * sizeof *xo), *yo = malloc(t->n * sizeof *yo);
	if (!xo || !yo)
		goto out;
	double ox = 0, oy = 0, sc2 = 0;
	size_t nm = 0;
	for (size_t j = 0; j < t->n; j++)
		if (t->inside[j] && mtru[j] >= 0) {
			ox += l->items[mtru[j]].centroid_x - t->x[j];
			oy += l->items[mtru[j]].centroid_y - t->y[j];
			nm++;
		}
	if (!n || !nm)
		goto out;
	ox /= nm;
	oy /= nm;
	/* the per-dome scatter about the common offset (RMS, both axes) */
	for (size_t j = 0; j < t->n; j++)
		if (t->inside[j] && mtru[j] >= 0) {
			double ex = l->items[mtru[j]].centroid_x - t->x[j] - ox, ey = l->items[mtru[j]].centroid_y - t->y[j] - oy;
			sc2 += ex * ex + ey * ey;
		}
	for (size_t j = 0; j < n; j++) {
		xo[j] = xs[j] + ox;
		yo[j] = ys[j] + oy;
	}
	double fill = c.fill, az = o->det_azimuth;
	double along = ox * cos(az) + oy * sin(az), across = -ox * sin(az) + oy * cos(az);
	double nominal = sqrt(o->beam_blur * o->beam_blur + msig * msig);
	/* blur 0: fine_blur sets its own; joint_blur's first grid (m@rule+move)
	 * runs at no blur, as h42l ran it */
	fs_dome_fit fm;
	formation_sim(o, t->pitch, fill, 0, &fm);
	fs_det_offset or, ot;
	int okr = !fs_det_offset_fit(meas, xr, yr, rr, nr, t->pitch, NULL, &or) && or.fitted;
	int okt = !fs_det_offset_fit(meas, xs, ys, rs, n, t->pitch, NULL, &ot) && ot.fitted;
	double b[7], mi[7];
	for (int q = 0; q < 7; q++)
		b[q] = mi[q] = NAN;
	if (okt) {
		b[0] = fine_blur(meas, &ot.fit, xs, ys, n, fill, &mi[0]);
		b[1] = fine_blur(meas, &ot.fit, xo, yo, n, fill, &mi[1]);
		b[2] = fine_blur(meas, &ot.fit, xr, yr, nr, fill, &mi[2]);
	}
	b[3] = fine_blur(meas, &fm, xs, ys, n, fill, &mi[3]);
	b[4] = fine_blur(meas, &fm, xo, yo, n, fill, &mi[4]);
	b[5] = fine_blur(meas, &fm, xr, yr, nr, fill, &mi[5]);
	if (okr)
		b[6] = fine_blur(meas, &or.fit, xr, yr, nr, fill, &mi[6]);
	double jx = NAN, jy = NAN, jm = NAN, jb = NAN, kx = NAN, ky = NAN, km = NAN, kb = NAN;
	if (okr)
		jb = joint_blur(meas, &or.fit, xr, yr, nr, fill, &jx, &jy, &jm);
	kb = joint_blur(meas, &fm, xr, yr, nr, fill, &kx, &ky, &km);
	printf("JOINT %-3d r@rule+move %.2f move along %+.2f across %+.2f misfit %.4f | m@rule+move %.2f move along %+.2f "
	       "across %+.2f misfit %.4f\n",
	       k, jb, jx * cos(az) + jy * sin(az), -jx * sin(az) + jy * cos(az), jm, kb, kx * cos(az) + ky * sin(az),
	       -kx * sin(az) + ky * cos(az), km);
	printf("BLUR %-3d nominal %.3f offset along %+.3f across %+.3f scatter %.3f px | t@true %.2f t@true+off %.2f "
	       "t@rule %.2f | m@true %.2f m@true+off %.2f m@rule %.2f | r@rule %.2f | misfit %.4f %.4f %.4f %.4f %.4f "
	       "%.4f %.4f | fit blur t %.2f r %.2f\n",
	       k, nominal, along, across, sqrt(sc2 / nm), b[0], b[1], b[2], b[3], b[4], b[5], b[6], mi[0], mi[1],
	       mi[2], mi[3], mi[4], mi[5], mi[6], okt ? ot.fit.blur_px : NAN, okr ? or.fit.blur_px : NAN);
out:
	centre_sets_free(&c);
	free(xo);
	free(yo);
}

/* The mean patch's residual share against template values v (npts, its
 * own gain and offset fitted). */
static double share_misfit(const double *mean, const float *v, size_t np)
{
	double mm = 0, vm = 0, vv = 0, tt = 0, tv = 0;
	for (size_t i = 0; i < np; i++) {
		mm += mean[i];
		vm += v[i];
	}
	mm /= np;
	vm /= np;
	for (size_t i = 0; i < np; i++) {
		vv += (mean[i] - mm) * (mean[i] - mm);
		tt += (v[i] - vm) * (v[i] - vm);
		tv += (v[i] - vm) * (mean[i] - mm);
	}
	return vv > 0 ? (vv - (tt > 0 ? tv * tv / tt : 0)) / vv : NAN;
}

/* --blur-true (h43b): two misfits at blur bl that do not step with the
 * templates' fill grid (5 % of D apart, which tpl_misfit's best over the
 * fills turns into steps of the blur read on 4-px domes): *at_fill the
 * template rendered at exactly fill (fs_dome_tpl_render with the
 * build's weights) against the mean patch, *cont the parabola's vertex
 * through the best fill's residual and its two neighbours' (the fill
 * free and continuous). */
static int pick_off; /* builds whose mixing weights were solved at another fill than the given one */

static void fill_misfits(const fs_image *meas, const fs_dome_fit *f0, double bl, const double *xs, const double *ys,
			 size_t n, double fill, double *at_fill, double *cont)
{
	fs_dome_fit f = *f0;
	f.blur_px = bl;
	*at_fill = *cont = NAN;
	fs_dome_tpl tpl;
	char err[128];
	if (fs_dome_tpl_build(meas, &f, fill, xs, ys, n, &tpl, err, sizeof err))
		return;
	size_t np = tpl.npts;
	/* the weights are solved at the coarse step's best fill, the centre
	 * of the fine grid: at the given fill only when that is it */
	pick_off += !(tpl.nk == FS_DOME_TPL_NFILL && fabs(tpl.fill[FS_DOME_TPL_NFILL / 2] - fill) < 1e-9 * fill);
	double r[FS_DOME_TPL_NFILL] = {0};
	int kb = 0;
	for (int k = 0; k < tpl.nk; k++) {
		r[k] = share_misfit(tpl.mean, tpl.t + (size_t)k * np, np);
		if (r[k] < r[kb])
			kb = k;
	}
	*cont = r[kb];
	if (kb > 0 && kb < tpl.nk - 1) {
		double a = r[kb - 1], b = r[kb], c = r[kb + 1], den = a - 2 * b + c;
		if (den > 0)
			*cont = b - (a - c) * (a - c) / (8 * den);
	}
	/* the points are whole pixels from the centre at pitch <= 16 (on
	 * grid), so a render about a whole pixel reads them exactly */
	float dmax = 0;
	for (size_t i = 0; i < np; i++)
		dmax = fmaxf(dmax, fmaxf(fabsf(tpl.dx[i]), fabsf(tpl.dy[i])));
	int c0 = (int)ceil(dmax) + 2, size = 2 * c0 + 1;
	fs_image *img = NULL;
	float *v = malloc(np * sizeof *v);
	if (v && !fs_dome_tpl_render(&tpl, &f, fill, size, c0, c0, &img)) {
		for (size_t i = 0; i < np; i++)
			v[i] = img->data[(size_t)(c0 + lround(tpl.dy[i])) * size + (size_t)(c0 + lround(tpl.dx[i]))];
		*at_fill = share_misfit(tpl.mean, v, np);
	}
	fs_image_free(img);
	free(v);
	fs_dome_tpl_free(&tpl);
}

/* The blur at which fill_misfits' two misfits are least (0.70-1.30 px
 * in 0.04 steps, then 0.01 steps about each best): *bf at the given
 * fill, *bc the fill free. */
static void fill_blurs(const fs_image *meas, const fs_dome_fit *f0, const double *xs, const double *ys, size_t n,
		       double fill, double *bf, double *bc)
{
	double rf = INFINITY, rc = INFINITY;
	*bf = *bc = NAN;
	for (int q = 0; q <= 15; q++) {
		double bl = 0.70 + 0.04 * q, a, c;
		fill_misfits(meas, f0, bl, xs, ys, n, fill, &a, &c);
		if (a < rf) {
			rf = a;
			*bf = bl;
		}
		if (c < rc) {
			rc = c;
			*bc = bl;
		}
	}
	double cf = *bf, cc = *bc;
	for (int q = -3; q <= 3; q++) {
		double a, c, x;
		if (!q)
			continue;
		fill_misfits(meas, f0, cf + 0.01 * q, xs, ys, n, fill, &a, &x);
		if (a < rf) {
			rf = a;
			*bf = cf + 0.01 * q;
		}
		fill_misfits(meas, f0, cc + 0.01 * q, xs, ys, n, fill, &x, &c);
		if (c < rc) {
			rc = c;
			*bc = cc + 0.01 * q;
		}
	}
}

static int blur_true;

/* --blur-true (h43b): --blur-read's two readings about the TRUE centres
 * alone (t@true, m@true: no rule's centres, no joint search, about a
 * tenth of its cost), with each best misfit and the misfit of the
 * simulator's formation at the nominal blur: what is left when the
 * centres are right is the forward model's (se_render's) difference
 * from the image's formation, which --set switches off piece by piece. */
static void blur_true_print(int k, const fs_image *meas, const sem_opts *o, const sem_truth *t, double msig)
{
	double *xs = malloc(t->n * sizeof *xs), *ys = malloc(t->n * sizeof *ys), *rs = malloc(t->n * sizeof *rs);
	if (!xs || !ys || !rs)
		goto out;
	size_t n = calib_centres(t, NULL, NULL, 0, xs, ys, rs);
	if (!n)
		goto out;
	double dsum = 0;
	for (size_t j = 0; j < n; j++)
		dsum += 2 * rs[j];
	double fill = dsum / n / t->pitch, nominal = sqrt(o->beam_blur * o->beam_blur + msig * msig);
	fs_dome_fit fm;
	formation_sim(o, t->pitch, fill, 0, &fm);
	fs_det_offset ot;
	int okt = !fs_det_offset_fit(meas, xs, ys, rs, n, t->pitch, NULL, &ot) && ot.fitted;
	double bt = NAN, mt = NAN, mm, mnom = formation_blur_misfit(meas, &fm, nominal, xs, ys, n, fill);
	if (okt)
		bt = fine_blur(meas, &ot.fit, xs, ys, n, fill, &mt);
	double bm = fine_blur(meas, &fm, xs, ys, n, fill, &mm);
	double mf, mc, tf = NAN, tc = NAN;
	pick_off = 0;
	fill_blurs(meas, &fm, xs, ys, n, fill, &mf, &mc);
	int moff = pick_off;
	if (okt)
		fill_blurs(meas, &ot.fit, xs, ys, n, fill, &tf, &tc);
	printf("BTRUE %-3d nominal %.3f | t@true %.2f misfit %.5f (fit: profile %.1f h/R %.2f blur %.2f) | m@true %.2f "
	       "misfit %.5f | m@nominal misfit %.5f | at true fill: m %.2f t %.2f | fill free: m %.2f t %.2f | weights off the fill m %d t %d of 28\n",
	       k, nominal, bt, mt, okt ? ot.fit.profile : NAN, okt ? ot.fit.h_over_r : NAN, okt ? ot.fit.blur_px : NAN,
	       bm, mm, mnom, mf, tf, mc, tc, moff, pick_off - moff);
out:
	free(xs);
	free(ys);
	free(rs);
}

/* --interior: the scenes are sem_interior_scene's (test_sem_accuracy's
 * interior table) instead of the corner scenes */
static int interior;

static int run_scene(int k, unsigned seed_add, int profile)
{
	sem_opts o;
	sem_scene_args(interior, k, seed_add, &set_args, &o);
	sem_scene sim;
	fs_detect_result res;
	if (sem_scene_detect(&sim, &o, fs_detect_domes, &res)) {
		printf("%d: %s\n", k, sim.err); /* (the simulator's refusal, or the detection's error) */
		return -1;
	}
	char err[256];
	const fs_tubercle_list *l = &res.tubercles;
	sem_score sc;
	int *mdet = malloc((l->n + 1) * sizeof *mdet), *mtru = malloc((sim.tr.n + 1) * sizeof *mtru);
	double *xs = malloc((l->n + 1) * sizeof *xs), *ys = malloc((l->n + 1) * sizeof *ys);
	fs_image *meas = NULL;
	int rc = -1;
	if (mdet && mtru && xs && ys && !sem_score_detection(&sim.tr, l, o.halftone, &sc) &&
	    !fs_detect_measure_image(sim.img, &sim.p, sim.tr.pitch >= 40 ? 1.0 : 0.5, &meas, err, sizeof err)) {
		for (size_t i = 0; i < l->n; i++) {
			xs[i] = l->items[i].centroid_x;
			ys[i] = l->items[i].centroid_y;
		}
		rc = sem_match(&sim.tr, xs, ys, l->n, 0.25 * sim.tr.pitch, mdet, mtru);
	}
	if (!rc) {
		acc rule, tru;
		memset(&rule, 0, sizeof rule);
		memset(&tru, 0, sizeof tru);
		static mean_prof mpr[3], mpt[3];
		memset(mpr, 0, sizeof mpr);
		memset(mpt, 0, sizeof mpt);
		double mr = REACH * sim.tr.pitch, r0 = FS_DOME_R0 * mr, r1 = FS_DOME_R1 * mr;
		for (size_t j = 0; j < sim.tr.n; j++) {
			if (mtru[j] < 0 || !sem_counted(&sim.tr, sim.tr.x[j], sim.tr.y[j]))
				continue;
			fs_dome_base_trace tr;
			const fs_tubercle *q = &l->items[mtru[j]];
			if (!fs_dome_measure_base_trace(meas, q->centroid_x, q->centroid_y, r0, r1, &tr))
			{
				acc_add(&rule, &tr, ridge_reading(meas, q->centroid_x, q->centroid_y, r0, r1),
					sim.tr.d[j]);
				acc_centre(&rule, &tr, sim.tr.x[j], sim.tr.y[j], o.det_azimuth);
				for (int g = 0; annulus && g < 3; g++)
					mp_add(&mpr[g], meas, &tr, sim.tr.d[j], sgs[g]);
			}
			if (!fs_dome_measure_base_trace(meas, sim.tr.x[j], sim.tr.y[j], r0, r1, &tr))
			{
				acc_add(&tru, &tr, ridge_reading(meas, sim.tr.x[j], sim.tr.y[j], r0, r1), sim.tr.d[j]);
				acc_centre(&tru, &tr, sim.tr.x[j], sim.tr.y[j], o.det_azimuth);
				/* at the true centre itself, not the reading's */
				tr.x = sim.tr.x[j];
				tr.y = sim.tr.y[j];
				for (int g = 0; annulus && g < 3; g++)
					mp_add(&mpt[g], meas, &tr, sim.tr.d[j], sgs[g]);
			}
		}
		printf("%-3d fill %.2f %s h/R %.2f az %3.0f pitch %2.0f screen %d: rule D %+6.2f S %+6.2f\n", k, o.fill,
		       o.profile > 1.5 ? "flat" : o.profile > 0.5 ? "par" : "sph", o.h_over_r,
		       o.det_azimuth * 180 / M_PI, o.pitch, (int)o.halftone, sc.d_err, sc.s_err);
		acc_print("rule", &rule);
		acc_print("true", &tru);
		if (calibrate && tru.tru[S_READ] > 0)
			calib_print(meas, &o, &sim.tr, l, mtru, sim.tr.pitch >= 40 ? 1.0 : 0.5,
				    100 * (tru.sum[S_READ] - tru.tru[S_READ]) / tru.tru[S_READ]);
		if (calib_rule)
			calib_rule_print(k, meas, &o, &sim.tr, l, mtru, sim.tr.pitch >= 40 ? 1.0 : 0.5);
		if (extrap_calib)
			extrap_print(meas, &o, &sim.tr, l, mtru, sim.tr.pitch >= 40 ? 1.0 : 0.5);
		if (extrap_curve)
			curve_print(meas, &o, &sim.tr, l, mtru, sim.tr.pitch >= 40 ? 1.0 : 0.5);
		if (rule_level)
			rule_level_print(k, seed_add, sim.img, meas, &o, &sim.tr, l, mtru, sim.tr.pitch >= 40 ? 1.0 : 0.5);
		if (blur_true)
			blur_true_print(k, meas, &o, &sim.tr, sim.tr.pitch >= 40 ? 1.0 : 0.5);
		if (blur_read)
			blur_print(k, meas, &o, &sim.tr, l, mtru, sim.tr.pitch >= 40 ? 1.0 : 0.5);
		for (int g = 0; annulus && g < 3; g++) {
			mp_print("rule", &mpr[g], sgs[g]);
			mp_print("true", &mpt[g], sgs[g]);
		}
		if (profile)
			print_profile(meas, &sim.tr);
	}
	fs_image_free(meas);
	free(mdet);
	free(mtru);
	free(xs);
	free(ys);
	fs_detect_result_free(&res);
	sem_scene_close(&sim);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned seed_add = 0;
	int profile = 0, scenes[64], ns = 0;
	for (int i = 1; i < argc; i++) {
		if (sem_bench_arg(argc, argv, &i, &seed_add, &set_args))
			continue;
		if (!strcmp(argv[i], "--ann-sigma") && i + 1 < argc) {
			if (sscanf(argv[++i], "%lf,%lf,%lf", &sgs[0], &sgs[1], &sgs[2]) != 3) {
				fprintf(stderr, "bench_level_small: --ann-sigma S1,S2,S3\n");
				return 2;
			}
			annulus = 1;
		} else if (!strcmp(argv[i], "--annulus"))
			annulus = 1;
		else if (!strcmp(argv[i], "--profile"))
			profile = 1;
		else if (!strcmp(argv[i], "--calibrate"))
			calibrate = 1;
		else if (!strcmp(argv[i], "--calib-rule"))
			calib_rule = 1;
		else if (!strcmp(argv[i], "--extrap-calib"))
			extrap_calib = 1;
		else if (!strcmp(argv[i], "--extrap-curve"))
			extrap_curve = 1;
		else if (!strcmp(argv[i], "--interior"))
			interior = 1;
		else if (!strcmp(argv[i], "--rule-level"))
			rule_level = 1;
		else if (!strcmp(argv[i], "--fine-v") && i + 1 < argc) {
			rule_level = 1;
			for (char *w = strtok(argv[++i], ","); w; w = strtok(NULL, ","))
				for (int q = 0; q < FV_N; q++)
					if (!strcmp(w, FV_NAME[q]) || !strcmp(w, "all"))
						fine_v_on |= 1u << q;
		} else if (!strcmp(argv[i], "--fine-grid") && i + 1 < argc)
			fine_v_grid = atoi(argv[++i]) >= 8 ? atoi(argv[i]) : 64;
		else if (!strcmp(argv[i], "--fine-sigma-hi") && i + 1 < argc)
			fine_v_sigma_hi = atof(argv[++i]) > 0.5 ? atof(argv[i]) : 3.0;
		else if (!strcmp(argv[i], "--no-line"))
			fs_det_base_set_line(0);
		else if (!strcmp(argv[i], "--spread-v"))
			spread_v = rule_level = 1;
		else if (!strcmp(argv[i], "--blur-read"))
			blur_read = 1;
		else if (!strcmp(argv[i], "--blur-true"))
			blur_true = 1;
		else if (ns < 64)
			scenes[ns++] = atoi(argv[i]);
	}
	if (!ns)
		ns = small_dome_scenes(scenes, 1);
	printf("the dome rule's level readings (fs_dome_measure_base_blur) stage by stage, mean D %% of the true "
	       "mean D over the counted domes, from the rule's final centres and the true ones; seeds +%u\n",
	       seed_add);
	int bad = 0;
	for (int i = 0; i < ns; i++)
		bad |= run_scene(scenes[i], seed_add, profile) != 0;
	return bad;
}
