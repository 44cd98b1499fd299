/*
 * bench_blur_fine_read - the blur the fine forward model
 * (analysis/blur_fine.h) reads from the dome rule's OWN final centres,
 * against the simulator's beam, per corner scene and seed set, with each
 * group's bias and SD (issue 13; docs/paper-figures.md, h44a). Asserts
 * nothing.
 *
 * Why: h43b read the beam to ~0.015 px about the TRUE centres with a
 * fine model (64 samples a pitch, the edge per px, the pixel's box and
 * the patch's tent in the sampling); every open simulator group needs
 * that reading from the rule's centres instead (A and E ~0.01 px, B1 the
 * blur variance to 0.05 px^2, C 0.03 px), which sit off the domes by a
 * common offset the blur reading otherwise absorbs (h42l).
 *
 * Per scene and seed set: the scene detected by the dome rule, its final
 * centres, the formation fitted there (fs_det_offset_fit on detection's
 * measurement image, as the rule's last step fits it), and the beam read
 *   rule        about the rule's centres, the formation fit's geometry
 *               held, the common offset searched (the function's use);
 *   rule+fill   the same with the fill searched too (fill_search 0.1):
 *               the fit's fill and the blur trade on 4-px domes;
 *   rule+shape  the same with the profile and h/R searched too
 *               (shape_search): the fit's shape is often not the domes';
 *   rule@0      the same with the offset held at 0 (what the offset
 *               search is worth);
 *   rule+sim    the rule's centres, the simulator's geometry (true mean
 *               fill, profile, h/R, detector), the offset searched: the
 *               centres' share of the error without the fit's;
 *   true        about the TRUE centres, the simulator's geometry, the
 *               offset held at 0: h43b's control;
 *   coarse      the rule's centres and fit through the rule's templates'
 *               discretisation (24 a pitch, the Gaussian alone, the edge
 *               per grid unit): its sigma, which carries the box and the
 *               tent (about +0.17 px), printed for comparison only.
 * With --tied (h44k; or by name in --reads) five more, each about the
 * rule's centres with the fit's shape held, the (fill, offset) trade h44a
 * found in rule+fill and rule+shape cut by what the rule itself knows:
 *   cs+fill     the offset held at h43a's common-shift fit (common_shift.h:
 *               the templates' joint fit of shift, mix and blur at the
 *               fill of the rule's D), the fill searched;
 *   fD          the fill held at the rule's own mean D over the fit's
 *               pitch, the offset searched;
 *   cs+fD       both held: only the blur searched;
 *   cs+shape, fD+shape, cs+fD+shape  as cs+fill, fD and cs+fD with the
 *               profile and h/R searched too (18 x the cost; only by name);
 *   cs+fill/sim, fD/sim  cs+fill and fD with the SIMULATOR's shape and
 *               detector (as rule+sim): the tied offset's or fill's own
 *               error once the shape is right (only by name).
 * With --alt and --joint (h45a) the fine model reads the SIZE too, from
 * the rule's own centres, each read's D = its fill x the formation
 * fit's pitch against the true mean D and the rule's (the level reader's
 * calibration cannot: it carries the fill it is rendered at, h44b):
 *   alt         an alternation to a fixed point: the blur read with the
 *               fill held at the current D and the shape and offset
 *               searched (fD+shape), then the fill read with that blur
 *               held and the shape and offset searched, from the rule's
 *               D, until the fill moves less than ALT_TOL (at most
 *               ALT_MAX rounds): does it find the true D or stay at the
 *               rule's?
 *   alt@true    (--alt-true) the same from the TRUE fill: where it leaves
 *               the truth, the misfit itself prefers another fill; with
 *               it the misfit at the truth (the simulator's shape, true
 *               fill, offset and blur: nothing searched) and the fill
 *               read with the offset held at the TRUE common offset;
 *   alt/det     (--alt-det) alt with the SIMULATOR's detector (azimuth,
 *               elevation) in the formation, which no read searches;
 *   alt/flip    (--alt-flip) alt run again with the fit's azimuth turned
 *               half a turn, the end of lower misfit kept: what the rule
 *               could do itself where the fit reads the azimuth reversed;
 *   alt/dsearch (--alt-detsearch) alt with the detector the fine model
 *               picks first: the fit's azimuth or its opposite, the
 *               elevation 20..60 deg in 10-deg steps, each read once at
 *               the rule's D with the shape searched, the least misfit's;
 *   joint/L     fill, blur and offset searched for each of the 18 shapes
 *               (profile x h/R ladder) and the formation fit's own, the
 *               shape chosen by misfit x (1 + L d^2), d the shape's
 *               distance from the fit's (profile changed: 1; h/R: its
 *               log2 ratio): a prior on the shape from the formation fit,
 *               L = 0 (none), 0.1, 0.3, 1 and inf (the fit's shape held).
 * Unscreened scenes are read on the source image (the beam: the
 * simulator's sqrt(beam^2 - 1/12) on top of its pixels' box); a screened
 * scene (group C) on what the rule's screened level reads, the
 * measurement image low-passed by FS_HALFTONE_LOWPASS x the period, where
 * no single "true" blur exists (h43e's step-plus-band model needs
 * 2.21-2.26 px there): its rows give the reading's seed-to-seed SD.
 * The offset columns: the searched shift (dome minus given centre, px)
 * less the rule's true common offset (the mean of true - rule over the
 * matched domes): 0 where the search found it.
 *
 * Usage: bench_blur_fine_read [--seeds N,N,...] [--set KEY=VALUE]...
 * [--grid G] [--reads NAME,...] [--tied] [--alt] [--alt-true] [--alt-det] [--alt-flip] [--alt-detsearch] [--joint] [--sigma-hi S] [SCENE...]; default seeds 0,4000,8000,12000 and the scenes
 * A (2 6 18 22), E (0 4 16 20), B1 (5 21), C (47 63). About 3-10 s of CPU
 * a scene-seed with SEM_SCENE_CACHE (the detection most of it).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/blur_fine.h"
#include "analysis/detect.h"
#include "analysis/detect_offset.h"
#include "analysis/halftone.h"
#include "analysis/preprocess.h"
#include "bench_support.h"
#include "common_shift.h"
#include "formation_calib.h"
#include "scene_sets.h"
#include "sem_opts_keys.h"
#include "sem_scene.h"

static sem_opts_args set_args;
static int grid = 64;
enum {
	R_RULE, R_RFILL, R_RSHAPE, R_RULE0, R_RSIM, R_TRUE, R_COARSE,
	R_CSFILL, R_FD, R_CSFD, R_CSSHAPE, R_FDSHAPE, R_CSSIM, R_FDSIM, R_CSFDSHAPE, R_N
};
static const char *RNAME[R_N] = {"rule",    "rule+fill", "rule+shape", "rule@0",   "rule+sim",
				 "true",    "coarse",    "cs+fill",    "fD",       "cs+fD",
				 "cs+shape", "fD+shape", "cs+fill/sim", "fD/sim", "cs+fD+shape"};
/* h44a's seven, the default; --tied: h44k's three of modest cost */
#define READS_H44A ((1u << R_CSFILL) - 1)
#define READS_TIED (1u << R_CSFILL | 1u << R_FD | 1u << R_CSFD)
#define READS_CS (1u << R_CSFILL | 1u << R_CSFD | 1u << R_CSSHAPE | 1u << R_CSSIM | 1u << R_CSFDSHAPE)
/* --reads: which readings run (a bit each, default h44a's seven); --reads rule
 * alone is the function's cost under callgrind */
static unsigned reads_on = READS_H44A;
/* --alt, --joint: h45a's size reads (--alt or --joint alone runs only them) */
static int alt_on, joint_on;
/* --alt-true: the alternation started from the TRUE fill as well: where
 * it leaves the truth, the misfit itself prefers another fill (not the
 * search's start) */
static int alt_true_on;
/* --alt-det: the alternation from the rule's D with the SIMULATOR's
 * detector (azimuth, elevation: the shadow's render) in place of the
 * formation fit's, the one part of the formation neither read searches */
static int alt_det_on;
/* --alt-flip: the alternation also with the formation fit's azimuth
 * turned half a turn (its shadow cast the other way), the one of the
 * two with the lower misfit kept (alt/flip): the fit reads the
 * detector's azimuth from its slope weights and reads it reversed on
 * some scenes (dome_fit.c: "opposite reads ... are not refused"), which
 * the fine model's shadow then draws on the wrong side */
static int alt_flip_on;
/* --alt-detsearch: the detector chosen by the fine model itself before
 * the alternation: the azimuth as fitted or turned half a turn, the
 * elevation on DET_ELEV's ladder, each read once at the rule's D (the
 * alternation's first step), the least misfit kept (alt/dsearch) */
static int alt_dsearch_on;
static const double DET_ELEV[] = {20, 30, 40, 50, 60};
/* --sigma-hi: the blur searched up to this (px; the window is sized by it,
 * so a smaller one is cheaper: h45a's coarse version) */
static double sigma_hi_arg;
#define ALT_MAX 8
#define ALT_TOL 0.001
/* the joint read's priors (the last: the fit's shape held) */
static const double LAMBDA[] = {0, 0.1, 0.3, 1, INFINITY};
#define NLAMBDA (sizeof LAMBDA / sizeof *LAMBDA)
/* one group's size sums: D read / D true - 1 (%) for the rule, the
 * alternation and each prior, and the blur read - truth */
enum { S_RULE, S_ALT, S_ALTT, S_ALTD, S_ALTF, S_ALTS, S_JOINT, S_N = S_JOINT + NLAMBDA };
typedef struct {
	double s[S_N], s2[S_N], b[S_N], b2[S_N];
	int n[S_N], w3[S_N], w5[S_N], iters, conv;
} dacc;
static dacc dgroups[5];

static void dacc_add(dacc *a, int v, double derr, double berr)
{
	a->s[v] += derr;
	a->s2[v] += derr * derr;
	a->b[v] += berr;
	a->b2[v] += berr * berr;
	a->n[v]++;
	a->w3[v] += fabs(derr) <= 3;
	a->w5[v] += fabs(derr) <= 5;
}


/* one group's sums: the read minus the truth per reading */
typedef struct {
	double s[R_N], s2[R_N], ex[R_N], ey[R_N];
	int n[R_N];
} gacc;

static const char *group_of(int k)
{
	switch (k) {
	case 2: case 6: case 18: case 22: return "A";
	case 0: case 4: case 16: case 20: return "E";
	case 5: case 21: return "B1";
	case 47: case 63: return "C";
	default: return "other";
	}
}

static int group_index(const char *g)
{
	return !strcmp(g, "A") ? 0 : !strcmp(g, "E") ? 1 : !strcmp(g, "B1") ? 2 : !strcmp(g, "C") ? 3 : 4;
}

static gacc groups[5];

/* The fine model's options for a size read: the bench's grid and blur
 * range, the fill held at fill (fill_search 0) or searched about it. */
static void size_opts(fs_blur_fine_opts *bo, double fill, double fill_search, int shape_search)
{
	fs_blur_fine_opts_default(bo);
	bo->grid = grid;
	if (sigma_hi_arg > bo->sigma_lo)
		bo->sigma_hi = sigma_hi_arg;
	bo->fill = fill;
	bo->fill_search = fill_search;
	bo->shape_search = shape_search;
}

/* h45a's size reads (--alt, --joint) about the rule's centres (xr, yr)
 * from the rule's fill fill_d, each D against the true mean D d_true
 * (the rule's: d_rule), printed on the scene's line and summed into g. */
static void size_reads(const fs_image *img, const double *xr, const double *yr, size_t nr, const fs_dome_fit *fit,
		       double fill_d, double d_true, double d_rule, double truth, double tox, double toy, double az,
		       const fs_dome_fit *fsim, dacc *g)
{
	char err[256];
	fs_blur_fine_opts bo;
	double pitch = fit->pitch;
	dacc_add(g, S_RULE, 100 * (d_rule / d_true - 1), 0);
	printf(" | D true %.2f rule %+.1f %% | detector fit az %.0f el %.0f (sim %.0f, %.0f) deg", d_true,
	       100 * (d_rule / d_true - 1), fit->azimuth * 180 / M_PI, fit->elevation * 180 / M_PI,
	       fsim->azimuth * 180 / M_PI, fsim->elevation * 180 / M_PI);
	/* the plain alternation's end, for alt/flip's choice */
	double alt_mis = NAN, alt_de = NAN, alt_be = NAN;
	for (int mode = 0; mode <= 4; mode++) {
		int from_true = mode == 1;
		if (!(mode == 0 ? alt_on || alt_flip_on : mode == 1 ? alt_true_on : mode == 2 ? alt_det_on
				   : mode == 3 ? alt_flip_on : alt_dsearch_on))
			continue;
		/* coordinate descent on the one misfit: each step can only lower
		 * it, so the fixed point is a joint minimum near the rule's D, or
		 * the drift away from it shows where the mean patch pulls */
		double fl = from_true ? d_true / pitch : fill_d;
		fs_dome_fit fc = *fit;
		if (mode == 2) {
			fc.azimuth = fsim->azimuth;
			fc.elevation = fsim->elevation;
		}
		if (mode == 3)
			fc.azimuth += fc.azimuth > 0 ? -M_PI : M_PI;
		int trials = 0;
		if (mode == 4) {
			double bm = INFINITY, baz = fc.azimuth, bel = fc.elevation;
			for (int turn = 0; turn <= 1; turn++)
				for (size_t e = 0; e < sizeof DET_ELEV / sizeof *DET_ELEV; e++) {
					fs_dome_fit fd = fc;
					fs_blur_fine rd;
					fd.azimuth = fit->azimuth + (turn ? (fit->azimuth > 0 ? -M_PI : M_PI) : 0);
					fd.elevation = DET_ELEV[e] * M_PI / 180;
					size_opts(&bo, fill_d, 0, 1);
					if (fs_blur_fine_read(img, xr, yr, nr, &fd, &bo, &rd, err, sizeof err))
						continue;
					trials += rd.trials;
					if (rd.misfit < bm) {
						bm = rd.misfit;
						baz = fd.azimuth;
						bel = fd.elevation;
					}
				}
			fc.azimuth = baz;
			fc.elevation = bel;
		}
		fs_blur_fine ra, rb;
		int it, conv = 0, okr = 0;
		printf(" | %s", mode == 0 ? "alt" : mode == 1 ? "alt@true" : mode == 2 ? "alt/det" : mode == 3 ? "alt(az+180)"
									    : "alt/dsearch");
		if (mode == 4)
			printf(" (az %.0f el %.0f)", fc.azimuth * 180 / M_PI, fc.elevation * 180 / M_PI);
		for (it = 1; it <= ALT_MAX; it++) {
			size_opts(&bo, fl, 0, 1);
			if (fs_blur_fine_read(img, xr, yr, nr, &fc, &bo, &ra, err, sizeof err))
				break;
			fc.profile = ra.profile;
			fc.h_over_r = ra.h_over_r;
			trials += ra.trials;
			size_opts(&bo, fl, 0.1, 1);
			bo.sigma_lo = bo.sigma_hi = ra.sigma;
			if (fs_blur_fine_read(img, xr, yr, nr, &fc, &bo, &rb, err, sizeof err))
				break;
			fc.profile = rb.profile;
			fc.h_over_r = rb.h_over_r;
			trials += rb.trials;
			okr = 1;
			printf(" [%d: beam %.3f fill %.3f -> %.3f p%.0f h%.2f]", it, ra.beam, fl, rb.fill, rb.profile,
			       rb.h_over_r);
			double step = rb.fill - fl;
			fl = rb.fill;
			if (fabs(step) < ALT_TOL) {
				conv = 1;
				break;
			}
		}
		if (!okr)
			printf(" failed: %s", err);
		else {
			double de = 100 * (fl * pitch / d_true - 1);
			double ex = rb.shift_x - tox, ey = rb.shift_y - toy;
			printf(" D %+.1f %% beam %+.3f, mis %.5f, off err along %+.2f across %+.2f, %d rounds%s, %d trials",
			       de, ra.beam - truth, rb.misfit, ex * cos(az) + ey * sin(az), -ex * sin(az) + ey * cos(az),
			       it > ALT_MAX ? ALT_MAX : it, conv ? "" : " (no fixed point)", trials);
			if (mode == 0) {
				alt_mis = rb.misfit;
				alt_de = de;
				alt_be = ra.beam - truth;
				g->iters += it > ALT_MAX ? ALT_MAX : it;
				g->conv += conv;
			}
			if (mode == 3) {
				int flip = !(rb.misfit >= alt_mis);
				printf(" | alt/flip: %s, D %+.1f %%", flip ? "turned" : "as fitted", flip ? de : alt_de);
				dacc_add(g, S_ALTF, flip ? de : alt_de, flip ? ra.beam - truth : alt_be);
			} else if (mode != 0 || alt_on)
				dacc_add(g, mode == 0 ? S_ALT : mode == 1 ? S_ALTT : mode == 2 ? S_ALTD : S_ALTS, de,
					 ra.beam - truth);
		}
	}
	if (alt_true_on) {
		/* two controls: the misfit at the truth itself (the simulator's
		 * shape and fill, the true offset and blur, nothing searched),
		 * against which the alternation's end is judged; and the fill
		 * read with the offset held at the truth (shape and blur
		 * searched): what the size read gives once the offset is right */
		fs_blur_fine rt;
		size_opts(&bo, d_true / pitch, 0, 0);
		bo.shift_max = 0;
		bo.shift_x = tox;
		bo.shift_y = toy;
		double h = pitch / bo.grid, sg = sqrt(fmax(0.01, truth * truth - 0.0625 * h * h));
		bo.sigma_lo = bo.sigma_hi = sg;
		if (!fs_blur_fine_read(img, xr, yr, nr, fsim, &bo, &rt, err, sizeof err))
			printf(" | mis@truth %.5f", rt.misfit);
		size_opts(&bo, fill_d, 0.1, 1);
		bo.shift_max = 0;
		bo.shift_x = tox;
		bo.shift_y = toy;
		if (!fs_blur_fine_read(img, xr, yr, nr, fit, &bo, &rt, err, sizeof err))
			printf(" | fill@true-offset D %+.1f %% beam %+.3f p%.0f h%.2f mis %.5f",
			       100 * (rt.fill * pitch / d_true - 1), rt.beam - truth, rt.profile, rt.h_over_r, rt.misfit);
	}
	if (joint_on) {
		/* every shape read with its own fill, blur and offset; the
		 * prior then only chooses among them */
		static const double HR[] = {0.2, 0.3, 0.45, 0.65, 0.9, 1.2};
		enum { NS = 1 + 3 * 6 };
		fs_blur_fine r[NS];
		double dist[NS];
		int ok[NS];
		for (int c = 0; c < NS; c++) {
			fs_dome_fit fc = *fit;
			if (c) {
				fc.profile = (c - 1) / 6;
				fc.h_over_r = HR[(c - 1) % 6];
			}
			dist[c] = (fc.profile != fit->profile) + fabs(log2(fc.h_over_r / fit->h_over_r));
			size_opts(&bo, fill_d, 0.1, 0);
			ok[c] = !fs_blur_fine_read(img, xr, yr, nr, &fc, &bo, &r[c], err, sizeof err);
		}
		for (size_t l = 0; l < NLAMBDA; l++) {
			int b = -1;
			double bs = INFINITY;
			for (int c = 0; c < NS; c++) {
				double sc = isinf(LAMBDA[l]) ? (c ? INFINITY : r[c].misfit)
							   : r[c].misfit * (1 + LAMBDA[l] * dist[c] * dist[c]);
				if (ok[c] && sc < bs) {
					bs = sc;
					b = c;
				}
			}
			if (b < 0) {
				printf(" | joint/%g -", LAMBDA[l]);
				continue;
			}
			double de = 100 * (r[b].fill * pitch / d_true - 1);
			double ex = r[b].shift_x - tox, ey = r[b].shift_y - toy;
			printf(" | joint/%g D %+.1f %% beam %+.3f p%.0f h%.2f mis %.5f along %+.2f", LAMBDA[l], de,
			       r[b].beam - truth, r[b].profile, r[b].h_over_r, r[b].misfit, ex * cos(az) + ey * sin(az));
			dacc_add(g, S_JOINT + (int)l, de, r[b].beam - truth);
		}
	}
}

static int run(int k, unsigned seed_add)
{
	sem_opts o;
	sem_corner_args(k, seed_add, &set_args, &o);
	dome_scene m;
	if (dome_scene_open(&m, &o, SET_CORNER, k))
		return -1;
	const sem_truth *t = &m.s.tr;
	const fs_tubercle_list *l = &m.res.tubercles;
	const fs_image *meas = m.meas;
	size_t nl = l->n;
	double *xr = malloc((nl + 1) * sizeof *xr), *yr = malloc((nl + 1) * sizeof *yr), *rr = malloc((nl + 1) * sizeof *rr);
	double *xt = malloc((t->n + 1) * sizeof *xt), *yt = malloc((t->n + 1) * sizeof *yt);
	double *xd = malloc((nl + 1) * sizeof *xd), *yd = malloc((nl + 1) * sizeof *yd);
	double *mx = malloc((nl + 1) * sizeof *mx), *my = malloc((nl + 1) * sizeof *my);
	int *mdet = malloc((nl + 1) * sizeof *mdet);
	fs_image *lp = NULL;
	char err[256];
	int rc = -1;
	if (!xr || !yr || !rr || !xt || !yt || !xd || !yd || !mx || !my || !mdet)
		goto out;
	size_t nr = 0;
	for (size_t i = 0; i < nl; i++) {
		xr[nr] = l->items[i].centroid_x;
		yr[nr] = l->items[i].centroid_y;
		rr[nr++] = isfinite(l->items[i].radius_px) ? l->items[i].radius_px : 0.3 * t->pitch;
	}
	/* the rule's true common offset: true - rule over the matched domes */
	if (sem_match(t, xr, yr, nr, 0.25 * t->pitch, mdet, NULL))
		goto out;
	double tox = 0, toy = 0, dsum = 0;
	size_t nm = 0, nt = 0;
	for (size_t i = 0; i < nr; i++)
		if (mdet[i] >= 0) {
			tox += t->x[mdet[i]] - xr[i];
			toy += t->y[mdet[i]] - yr[i];
			nm++;
		}
	for (size_t j = 0; j < t->n; j++)
		if (t->inside[j]) {
			xt[nt] = t->x[j];
			yt[nt++] = t->y[j];
			dsum += t->d[j];
		}
	if (!nm || !nt)
		goto out;
	tox /= nm;
	toy /= nm;
	double fill = dsum / nt / t->pitch;
	fs_det_offset of;
	if (fs_det_offset_fit(meas, xr, yr, rr, nr, t->pitch, NULL, &of) || !of.fitted) {
		printf("%-3d +%-5u no formation fit at the rule's centres\n", k, seed_add);
		goto out;
	}
	const fs_image *img = m.s.img;
	double truth = sqrt(fmax(0, o.beam_blur * o.beam_blur - 1.0 / 12));
	int screened = o.halftone > 0;
	if (screened) {
		/* the screened level's image: the measurement image low-passed
		 * as the rule removes the screen */
		double period = of.fit.halftone > 0 ? of.fit.halftone : o.halftone;
		if (!(lp = fs_image_clone(meas)) ||
		    fs_gaussian_blur(lp, FS_HALFTONE_LOWPASS * period, err, sizeof err))
			goto out;
		img = lp;
		truth = NAN;
	}
	fs_dome_fit fsim;
	formation_sim(&o, of.fit.pitch, fill, 0, &fsim);
	/* what the rule itself knows (h44k): its mean D over the formation's
	 * pitch (the domes it sized), and h43a's common shift fitted at that
	 * fill about the same sized centres, as bench_common_shift fits it */
	double dd = 0, fill_d = NAN;
	size_t nd = 0;
	for (size_t i = 0; i < nl; i++)
		if (isfinite(l->items[i].radius_px) && l->items[i].radius_px > 0) {
			xd[nd] = l->items[i].centroid_x;
			yd[nd++] = l->items[i].centroid_y;
			dd += 2 * l->items[i].radius_px;
		}
	if (nd)
		fill_d = dd / nd / of.fit.pitch;
	common_shift cs = {NAN, NAN, NAN, NAN, NAN, NAN, NAN};
	if ((reads_on & READS_CS) && nd >= 8) {
		common_shift_trial w = {meas, &of.fit, xd, yd, mx, my, nd, fill_d, 0};
		common_shift_fit(&w, &cs);
	}
	fs_blur_fine_opts bo;
	fs_blur_fine rd[R_N];
	int ok[R_N];
	for (int r = 0; r < R_N; r++) {
		ok[r] = 0;
		if (!(reads_on >> r & 1))
			continue;
		fs_blur_fine_opts_default(&bo);
		bo.grid = grid;
		const double *xs = xr, *ys = yr;
		size_t n = nr;
		const fs_dome_fit *f = &of.fit;
		if (r == R_RULE0)
			bo.shift_max = 0;
		if (r == R_RFILL)
			bo.fill_search = 0.1;
		if (r == R_RSHAPE) {
			bo.fill_search = 0.1;
			bo.shape_search = 1;
		}
		if (r == R_RSIM)
			f = &fsim;
		if (r == R_TRUE) {
			xs = xt;
			ys = yt;
			n = nt;
			f = &fsim;
			bo.shift_max = 0;
		}
		if (r >= R_CSFILL) {
			int held = r == R_CSFILL || r == R_CSFD || r == R_CSSHAPE || r == R_CSSIM || r == R_CSFDSHAPE,
			    tied = r == R_FD || r == R_CSFD || r == R_FDSHAPE || r == R_FDSIM || r == R_CSFDSHAPE;
			if ((held && !isfinite(cs.dx)) || (tied && !isfinite(fill_d)))
				continue;
			if (held) {
				bo.shift_max = 0;
				bo.shift_x = cs.dx;
				bo.shift_y = cs.dy;
			}
			if (tied)
				bo.fill = fill_d;
			else
				bo.fill_search = 0.1;
			bo.shape_search = r == R_CSSHAPE || r == R_FDSHAPE || r == R_CSFDSHAPE;
			if (r == R_CSSIM || r == R_FDSIM)
				f = &fsim;
		}
		if (r == R_COARSE) {
			bo.grid = 24;
			bo.kernel = FS_BLUR_FINE_POINT;
			bo.edge_cap_px = 0;
		}
		ok[r] = !fs_blur_fine_read(img, xs, ys, n, f, &bo, &rd[r], err, sizeof err);
		if (!ok[r])
			printf("%-3d +%-5u %s: %s\n", k, seed_add, RNAME[r], err);
	}
	double az = o.det_azimuth;
	printf("%-3d %-2s +%-5u truth %s", k, group_of(k), seed_add, screened ? "  -  " : "");
	if (!screened)
		printf("%.3f", truth);
	printf(" | fit: fill %.3f (true %.3f) prof %.1f (%.1f) h/R %.2f (%.2f) blur %.2f", of.fit.fill, fill,
	       of.fit.profile, o.profile, of.fit.h_over_r, o.h_over_r, of.fit.blur_px);
	for (int r = 0; r < R_N; r++) {
		if (!ok[r]) {
			if (reads_on >> r & 1)
				printf(" | %s -", RNAME[r]);
			continue;
		}
		double ex = rd[r].shift_x - (r == R_TRUE ? 0 : tox), ey = rd[r].shift_y - (r == R_TRUE ? 0 : toy);
		printf(" | %s %.3f (mis %.4f, off err along %+.2f across %+.2f", RNAME[r], rd[r].beam, rd[r].misfit,
		       ex * cos(az) + ey * sin(az), -ex * sin(az) + ey * cos(az));
		if (r == R_RFILL || r == R_RSHAPE || r == R_CSFILL || r == R_CSSHAPE || r == R_CSSIM)
			printf(", fill %.3f", rd[r].fill);
		if (r == R_RSHAPE || r == R_CSSHAPE || r == R_FDSHAPE || r == R_CSFDSHAPE)
			printf(" prof %.0f h/R %.2f", rd[r].profile, rd[r].h_over_r);
		printf(")");
		gacc *g = &groups[group_index(group_of(k))];
		double v = screened ? rd[r].beam : rd[r].beam - truth;
		g->s[r] += v;
		g->s2[r] += v * v;
		g->ex[r] += fabs(ex);
		g->ey[r] += fabs(ey);
		g->n[r]++;
	}
	if (isfinite(cs.dx))
		printf(" | cs move along %+.2f across %+.2f gain/noise %.1f", cs.dx * cos(az) + cs.dy * sin(az),
		       -cs.dx * sin(az) + cs.dy * cos(az), cs.noise > 0 ? (cs.mis0 - cs.mis) / cs.noise : NAN);
	if (reads_on & (READS_TIED | 1u << R_FDSHAPE | 1u << R_FDSIM | 1u << R_CSFDSHAPE))
		printf(" | fill of D %.3f", fill_d);
	if ((alt_on || joint_on || alt_true_on || alt_det_on || alt_flip_on || alt_dsearch_on) && !screened && isfinite(fill_d))
		size_reads(img, xr, yr, nr, &of.fit, fill_d, fill * t->pitch, fill_d * of.fit.pitch, truth,
			   tox, toy, o.det_azimuth, &fsim, &dgroups[group_index(group_of(k))]);
	printf(" | true offset along %+.2f across %+.2f, %zu centres\n", tox * cos(az) + toy * sin(az),
	       -tox * sin(az) + toy * cos(az), nr);
	fflush(stdout);
	rc = 0;
out:
	fs_image_free(lp);
	free(xr);
	free(yr);
	free(rr);
	free(xt);
	free(yt);
	free(xd);
	free(yd);
	free(mx);
	free(my);
	free(mdet);
	dome_scene_close(&m);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned seeds[16] = {0, 4000, 8000, 12000};
	int nseeds = 4, scenes[64], ns = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seeds") && i + 1 < argc) {
			if ((nseeds = bench_parse_seeds(argv[++i], seeds, 16)) < 1) {
				fprintf(stderr, "%s: --seeds A,B,... (at most 16)\n", argv[0]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
			if (sem_opts_args_say(&set_args, argv[0], "--set", argv[++i]))
				return 2;
		} else if (!strcmp(argv[i], "--reads") && i + 1 < argc) {
			reads_on = 0;
			for (char *s = strtok(argv[++i], ","); s; s = strtok(NULL, ","))
				for (int r = 0; r < R_N; r++)
					if (!strcmp(s, RNAME[r]))
						reads_on |= 1u << r;
		} else if (!strcmp(argv[i], "--tied"))
			reads_on = READS_TIED;
		else if (!strcmp(argv[i], "--alt") || !strcmp(argv[i], "--joint") || !strcmp(argv[i], "--alt-true") ||
			   !strcmp(argv[i], "--alt-det") || !strcmp(argv[i], "--alt-flip") ||
			   !strcmp(argv[i], "--alt-detsearch")) {
			/* alone, only the size reads run */
			if (!alt_on && !joint_on && !alt_true_on && !alt_det_on && !alt_flip_on && !alt_dsearch_on &&
			    reads_on == READS_H44A)
				reads_on = 0;
			*(!strcmp(argv[i], "--alt")	   ? &alt_on
			  : !strcmp(argv[i], "--joint")    ? &joint_on
			  : !strcmp(argv[i], "--alt-true") ? &alt_true_on
			  : !strcmp(argv[i], "--alt-det")  ? &alt_det_on
			  : !strcmp(argv[i], "--alt-flip") ? &alt_flip_on
							   : &alt_dsearch_on) = 1;
		} else if (!strcmp(argv[i], "--sigma-hi") && i + 1 < argc)
			sigma_hi_arg = atof(argv[++i]);
		else if (!strcmp(argv[i], "--grid") && i + 1 < argc)
			grid = atoi(argv[++i]) >= 8 ? atoi(argv[i]) : 64;
		else if (ns < 64)
			scenes[ns++] = atoi(argv[i]);
	}
	if (!ns) {
		static const int def[] = {2, 6, 18, 22, 0, 4, 16, 20, 5, 21, 47, 63};
		for (size_t i = 0; i < sizeof def / sizeof *def; i++)
			scenes[ns++] = def[i];
	}
	printf("the beam (px of sigma beyond the pixel's box) read by the fine model (blur_fine.h, %d a pitch) from the "
	       "dome rule's final centres and the TRUE ones; truth = sqrt(beam^2 - 1/12)\n",
	       grid);
	int bad = 0;
	for (int s = 0; s < nseeds; s++)
		for (int i = 0; i < ns; i++)
			bad |= run(scenes[i], seeds[s]) != 0;
	static const char *gname[5] = {"A", "E", "B1", "C", "other"};
	printf("\ngroup | reading | n | bias (read - truth; C: mean read) px | SD px | mean |offset err| x, y px\n");
	for (int g = 0; g < 5; g++)
		for (int r = 0; r < R_N; r++) {
			gacc *a = &groups[g];
			if (!a->n[r])
				continue;
			double m = a->s[r] / a->n[r], sd = a->n[r] > 1 ? sqrt(fmax(0, (a->s2[r] - a->n[r] * m * m) / (a->n[r] - 1))) : 0;
			printf("%-5s | %-8s | %2d | %+.4f | %.4f | %.3f %.3f\n", gname[g], RNAME[r], a->n[r], m, sd,
			       a->ex[r] / a->n[r], a->ey[r] / a->n[r]);
		}
	if (alt_on || joint_on || alt_true_on || alt_det_on || alt_flip_on || alt_dsearch_on) {
		printf("\ngroup | size read | n | D bias %% | D SD %% | within 3 %% | within 5 %% | beam bias px | beam SD px\n");
		for (int g = 0; g < 5; g++)
			for (int v = 0; v < S_N; v++) {
				dacc *a = &dgroups[g];
				if (!a->n[v])
					continue;
				double m = a->s[v] / a->n[v], sd = a->n[v] > 1 ? sqrt(fmax(0, (a->s2[v] - a->n[v] * m * m) / (a->n[v] - 1))) : 0;
				double bm = a->b[v] / a->n[v], bsd = a->n[v] > 1 ? sqrt(fmax(0, (a->b2[v] - a->n[v] * bm * bm) / (a->n[v] - 1))) : 0;
				char name[32];
				if (v == S_RULE)
					snprintf(name, sizeof name, "rule");
				else if (v == S_ALT)
					snprintf(name, sizeof name, "alt");
				else if (v == S_ALTT)
					snprintf(name, sizeof name, "alt@true");
				else if (v == S_ALTD)
					snprintf(name, sizeof name, "alt/det");
				else if (v == S_ALTF)
					snprintf(name, sizeof name, "alt/flip");
				else if (v == S_ALTS)
					snprintf(name, sizeof name, "alt/dsearch");
				else
					snprintf(name, sizeof name, "joint/%g", LAMBDA[v - S_JOINT]);
				printf("%-5s | %-9s | %2d | %+.2f | %.2f | %2d | %2d", gname[g], name, a->n[v], m, sd, a->w3[v], a->w5[v]);
				if (v != S_RULE)
					printf(" | %+.4f | %.4f", bm, bsd);
				if (v == S_ALT && a->n[v])
					printf(" | mean rounds %.1f, fixed point %d of %d", (double)a->iters / a->n[v], a->conv, a->n[v]);
				printf("\n");
			}
	}
	return bad;
}
