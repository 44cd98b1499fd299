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
 * [--grid G] [--reads NAME,...] [--tied] [SCENE...]; default seeds 0,4000,8000,12000 and the scenes
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
			nseeds = 0;
			for (char *s = strtok(argv[++i], ","); s && nseeds < 16; s = strtok(NULL, ","))
				seeds[nseeds++] = (unsigned)strtoul(s, NULL, 10);
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
	return bad;
}
