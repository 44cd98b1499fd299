/*
 * dome_fit.h - the fill ratio D / pitch of an image by fitting its SEM
 * image formation (issue 13 section 2, "fitting, per image, a dome model
 * rendered through the same SE formation to the observed patch").
 *
 * What is fitted: the mean patch around the detected centres (the image
 * sampled on a grid of 20 samples per pitch - or one per pixel when the
 * pitch is below 20 px - out to 0.55 pitch from each centre and averaged
 * over the centres; a printed figure's halftone screen, found by
 * halftone.h, low-passed away first), normalised to zero mean and unit SD.
 * The detections sit off the dome centres by a common offset where a side
 * detector brightens one flank (0.16 pitch on the simulator at fill 0.8);
 * the offset is fitted for each fill with the formation (a wide search
 * over +-0.3 pitch, then a fine one), since with the offset held at 0 the
 * fit trades the fill for the asymmetry (0.54 for a true 0.80). The model is a hexagonal lattice of domes at the centres'
 * lattice angle rendered through the SE formation (se_render.h): its
 * linear parts (secant-law yield, the two slope terms of a side detector,
 * edge brightening, shadowed yield) are blurred by a Gaussian and combined
 * by least squares with a constant, so brightness, contrast, detector
 * strength and azimuth, edge and shadow depth are solved, not searched. The
 * search runs over fill, height h/R, dome profile, blur and the detector's
 * elevation (for the shadow): a coarse pass (fill step 0.04), then a fine
 * one (0.01) around the best, and a parabola through the best three fills.
 * Cost: about 1 s per image (a few thousand renders of a 45 x 45 window),
 * independent of the image's size beyond averaging the patches.
 *
 * Output: the fill with its fit quality (R^2 of the mean patch) and an
 * uncertainty: the centres are split at their median x into two halves,
 * each fitted again with the best formation held, and sigma is half the
 * difference of the two fills (the spread of a mean of two estimates).
 * The mean radial profiles of the observed and the fitted patch are
 * returned for reports.
 *
 * The caller owns every argument; nothing is kept.
 */
#ifndef FS_DOME_FIT_H
#define FS_DOME_FIT_H

#include <stddef.h>

#include "image/image.h"

#define FS_DOME_FIT_NRAD 11 /* radial profile bins of 0.05 pitch */

typedef struct fs_dome_fit_opts {
	/* the searched fill range; fill_min == fill_max gives the best
	 * formation (and its residual) at that one fill */
	double fill_min, fill_max;
	int no_sigma; /* skip the two halves' fits (the uncertainty) */
	/* with a held fill: also search the centres' offset near this one
	 * (px; e.g. a free fit's), so that the held fill's residual is not
	 * that of a worse local offset */
	int use_start;
	double start_x, start_y;
	/* with a held fill: then walk the fill away from it in steps of
	 * fill_walk (0: no walk), each step's formation and offset fitted
	 * from the last step's offset, while the residual falls, at most
	 * fill_walk_max x the held fill away (h39a: a held fill read low by
	 * the level leaves the fit in a (fill, offset) pocket that only a
	 * search of the two together leaves; dome_fit.c says why) */
	double fill_walk, fill_walk_max;
	/* the walk's end taken only where its residual sum is at most this
	 * share of the held fill's (0: wherever it is lower) */
	double fill_walk_gain;
	/* the formation fitted at the starting offset is kept at the offset
	 * found, not fitted again there: half the cost, for a caller that
	 * wants the offset (the fill read at a wrong formation is worse);
	 * except where its detector azimuth and the offset's direction
	 * disagree obliquely (20 to 160 degrees, an offset of at least 0.03
	 * pitch, no halftone screen, a positive weight of the secant-law
	 * yield): then it is fitted again at the offset and the offset
	 * searched again from there until it stays (h40f, dome_fit.c) */
	int keep_formation;
	/* with keep_formation: the formation also fitted again from offsets
	 * 0.5 and 1 px either way along its detector axis, and a read turned
	 * more than a quarter turn (with a positive yield weight) taken where
	 * its residual is lower (dome_fit.c, turned_reads, h45m: the opposite
	 * reads on 4-px domes). 0: off (no detection path sets it) */
	int turn_check;
	/* at most this many centres (every k-th of the list) averaged into
	 * the mean patch; 0 = all. The dome detector fits the centres'
	 * offset with 64 (detect_offset.h): the mean of that many patches is
	 * as smooth, and averaging costs in proportion to their number. */
	size_t max_centres;
	/* leave obs[] and model[] at 0: the radial profiles cost one more
	 * rendering of the best formation, which a caller that wants the
	 * offset does not read */
	int no_profiles;
	/* the offset search coarse to fine (dome_fit.c, wide_screened and
	 * offset_descent): the wide grid read on a quarter of the patch's
	 * samples and only its best points on all, the fine grid downhill
	 * from the wide search's point instead of whole; the whole grids'
	 * pick wherever the screen keeps it and the residual has one
	 * minimum over the fine grid */
	int coarse_to_fine;
	/* Tiled callers (detect_domes_tiled.c), which hold no whole image:
	 * the patch of centre i is read from img at (xs[i], ys[i]) less the
	 * integers (patch_ox[i], patch_oy[i]) (a mosaic of crops around the
	 * centres the fit reads: fs_dome_fit_reach; INT_MIN: not read), each
	 * sample's position made at the centre itself as on the whole image
	 * and only its pixel shifted, so that the mosaic's mean patch is the
	 * whole image's to the last bit (h40e: the shifted centre, made as
	 * a double, rounded at another magnitude); and with halftone_given
	 * the screen's period is halftone_period (found by the caller on the
	 * whole image) rather than searched on img. NULL / 0: img is the
	 * whole image. With patch_ox the uncertainty is not computed (as
	 * no_sigma). */
	const int *patch_ox, *patch_oy;
	int halftone_given;
	double halftone_period;
	/* the spherical cap (profile 0) taken wherever its least residual
	 * sum lies within cap_tie x the best profile's (0: the best
	 * profile, always). Why (h42j, docs/paper-figures.md): where the
	 * mean patch does not decide the dome's shape, the grid's pick among
	 * profiles is a coin toss that one-pixel crops of an image flip (P1
	 * Fig2's last fit: profile 1 over 0 by +3.7 % on one crop, by -4.3 %
	 * on another, profile 2 over 0 by 0.25 %), and every size read
	 * through the templates follows it; a fixed answer to a shape the
	 * image leaves open makes those sizes the image's, not the toss's.
	 * The cap, because it is the shape of the fewest assumptions (no
	 * flat top, no foot). */
	double cap_tie;
	/* also search the dome's foot (se_render.h, fs_se_geom.foot: 1 the
	 * sharp-footed profiles, 1.5..4 feet that flatten smoothly into the
	 * ground), every foot with every profile and h/R: six times the
	 * unheld searches' renders. 0 (the default): sharp feet only, as
	 * before. Why (h43c, docs/paper-figures.md): on smooth-footed domes
	 * a sharp-footed model can only fit the flank, and the fill it reads
	 * is where the flank is steepest; with the foot searched the fill is
	 * the support's, where the surface meets the ground. */
	int foot_search;
	/* with foot_search: then refine the fill, h/R, foot and blur off
	 * their grids from the best point (dome_fit.c, refine_foot); the
	 * radial profiles (no_profiles 0) and the halves (the uncertainty)
	 * are made with the refined shape at the grid point's blur
	 * (blur_px reports the refined one) */
	int foot_refine;
	/* at least 2: the model rendered fine_render times finer than the
	 * grid (at pitch 16, 4 gives four samples a px), its edge clipped
	 * per image px, and blurred with the image pixel's box and the mean
	 * patch's bilinear tent as well as the Gaussian, then read at the
	 * grid's samples; 0 or 1 (the default): the grid's model, whose
	 * Gaussian stands for all three. Why (h43b, h44g in
	 * docs/paper-figures.md): on the 4-px domes of a 16-px pitch the
	 * grid's model misfits the image by its discretisation, and a foot
	 * search takes up that misfit. About fine_render^2 the cost. */
	int fine_render;
} fs_dome_fit_opts;

/*
 * Which centres a fit reads and how far around them (for a caller that
 * assembles their neighbourhoods, fs_dome_fit_opts.patch_ox): every
 * *stride-th of n centres (from the first; max_centres as in the
 * options), of those only the ones at least *extent px from every border
 * of the image, and from each it reads the pixels less than *extent + 1
 * px away (before a halftone's low-pass, which reads its own kernel
 * radius further).
 */
void fs_dome_fit_reach(double pitch, size_t n, size_t max_centres, size_t *stride, double *extent);

/* 1 where the centre (x, y) lies at least extent px from every border of
 * a w x h image: a centre whose neighbourhood the fit reads whole
 * (fs_dome_fit_reach). One test for the fit and for the callers that
 * count or assemble its neighbourhoods beforehand (detect_offset.c,
 * detect_domes_tiled.c's mosaic), so their counts cannot drift from the
 * fit's. */
static inline int fs_dome_fit_whole(double x, double y, double extent, int w, int h)
{
	return x - extent >= 0 && y - extent >= 0 && x + extent < w - 1 && y + extent < h - 1;
}

typedef struct fs_dome_fit {
	double fill;      /* base diameter / pitch of the best fit */
	double sigma;     /* its uncertainty (see above); 0 when not computed */
	double fill_a, fill_b; /* the two halves' fills */
	double quality;   /* R^2 of the best fit over the normalised mean patch */
	double residual;  /* RMS residual / SD of the mean patch = sqrt(1 - quality) */
	double h_over_r, profile; /* the dome of the best fit */
	/* the RMS residual of the best low dome (h/R 0.2 or 0.4, any profile,
	 * blur and shadow) over the best dome's, in the search over every
	 * shape that chose the formation reported (at that search's offset
	 * and fill; for the dome rule's kept formation the search at the
	 * starting offset, also where h40f's refit turned back; not a search
	 * of another fill, of the fill walk's or of a refit not kept, h46m):
	 * 1 where a low dome fits as well. Why (h41l, docs/paper-figures.md): at tight gaps a low
	 * dome's patch is the same at every h/R (the shadow's elevation and
	 * the contrast take up the height), so the grid's pick among h/R is
	 * a coin toss there; a tall dome's steep foot is a shape no low dome
	 * makes. */
	double low_ratio;
	/* the least residual sum of each profile (0, 1, 2) in that same
	 * search: how far the image decides the dome's shape (cap_tie) */
	double prof_rss[3];
	/* the foot of the best fit (1: sharp; > 1 with foot_search, see
	 * fs_se_geom.foot) and the RMS residual of the best sharp-footed
	 * formation anywhere in the fit's searches (any fill and offset)
	 * over the best fit's (1 without foot_search; below 1 where the
	 * sharp one was found in a search the fit did not keep): how far
	 * the image says the foot is smooth */
	double foot, sharp_ratio;
	double blur_px;   /* Gaussian sigma of the best fit, image px (includes
			     the centres' scatter around the true dome centres) */
	double azimuth;   /* detector direction from the slope weights, radians */
	double elevation; /* detector elevation of the shadow, radians; 0 = no shadow term */
	double side;      /* slope weight / yield weight: the detector's strength */
	double edge;      /* edge weight / yield weight (convexity in 1 / grid_px) */
	double grid_px;   /* px per sample of the model's grid */
	double shadow;    /* -shadow weight / yield weight: the shadow's depth;
			     0 without the shadow term */
	double pitch, angle; /* the lattice used (px, radians) */
	double offset_x, offset_y; /* the dome centres minus the given centres, px
			     (one offset for all: see dome_fit.c) */
	double halftone;  /* screen period removed, px; 0 = none */
	size_t n_used;    /* centres whose patch lies inside the image */
	double obs[FS_DOME_FIT_NRAD], model[FS_DOME_FIT_NRAD]; /* mean radial profiles
			     (normalised units) at r = (k + 0.5) x 0.05 pitch */
} fs_dome_fit;

/*
 * The lattice pitch of n centres (px): the median distance of the pairs
 * closer than 1.3 median nearest-neighbour distances, i.e. every neighbour
 * and not only the nearest, whose distance the centres' scatter biases low
 * (4 % at a scatter of 0.04 pitch). Up to 512 centres spread over the list
 * are measured against all. 0 when fewer than 3 centres; -1 on out of
 * memory.
 */
double fs_dome_fit_pitch(const double *xs, const double *ys, size_t n);

/* Defaults: fills 0.16..0.88, with the uncertainty. */
void fs_dome_fit_opts_default(fs_dome_fit_opts *o);

/*
 * Fits img around the n centres (xs, ys; px) of a lattice of the given
 * pitch (px). o may be NULL (defaults). Returns 0, or -1 with a message
 * (fewer than 8 centres with a whole patch, pitch below 6 px, out of
 * memory).
 */
int fs_dome_fit_image(const fs_image *img, const double *xs, const double *ys, size_t n, double pitch,
		      const fs_dome_fit_opts *o, fs_dome_fit *out, char *err, size_t errlen);

/*
 * How the offset search of a coarse_to_fine fit (the dome rule's, through
 * detect_offset.c) chooses its offset: an experiment (h48a,
 * docs/paper-figures.md) to make the choice continuous in the image, so
 * that a 1e-6 px move of the candidates (fs_detect_set_cand_nudge) does
 * not flip it. 0 (the
 * default): the wide grid's best point, then downhill on the fine grid
 * from it, the fine grid's point kept. FS_DOME_FIT_OFFSET_BASINS: downhill
 * from each of the wide grid's kept points (WIDE_KEEP, dome_fit.c), and
 * of the minima found the shortest offset whose residual sum lies within
 * FS_DOME_FIT_OFFSET_TIE of the least (fs_dome_fit_offset_pick): two basins
 * whose residuals tie within that are not told apart by the mean patch,
 * and the shorter offset moves the centres less on no evidence.
 * FS_DOME_FIT_OFFSET_VERTEX: every downhill search's minimum (the wide
 * search's, the oblique refit's and the fill walk's) moved to the vertex
 * of the parabolas through it and its neighbours along each axis (at
 * most half a step, 0.00625 pitch), so that the offset follows the image
 * instead of jumping by a step (h47k, corner 5@0 and 19@0: 0.82 -> 1.00,
 * 0.57 -> 0.85 px under a 1e-6 px nudge). FS_DOME_FIT_STABLE_SAMPLE: the
 * centres averaged into the mean patch, where there are more than
 * max_centres, not every k-th of the list but those whose half-pitch
 * cell hashes below max_centres / n: a dome that enters or leaves the
 * list changes the sample by itself alone, where every k-th changed it
 * wholesale (k = ceil(n / 64) is 6 at 377 domes and 7 at 395, and every
 * pick after an inserted dome moves; h48a traced corner 14@0's first
 * fit at 377 / 395 / 382 domes under nudges -1e-6 / 0 / +1e-6, R^2
 * 0.996 / 0.985 / 0.997, the detector read at 180 / 144 / 180 degrees).
 * The whole image's fit only (a mosaic, patch_ox, keeps every k-th).
 * Why off (bench_noise_band over 8 seed sets, all four at nudges -1e-6 /
 * 0 / +1e-6 and the scene-seeds that flip among them; main 344 / 349 /
 * 351, 86 of 512): bit 1 343 / 347 / 347, 81; bit 2 342 / 343 / 347,
 * 88; bits 1 and 2 347 / 343 / 352, 78; bit 4 350 / 348 / 347, 51 - the
 * floor falls with the sample, but nudge 0 loses one and the test seeds'
 * set 45 -> 40 (docs/paper-figures.md, h48a).
 * Process-wide, for benches and
 * tests that switch it before a detection (FS_TEST_OFFSET_CHOICE,
 * tests/unit/support/test_offset_choice.c); returns the previous bits.
 */
#define FS_DOME_FIT_OFFSET_BASINS 1u
#define FS_DOME_FIT_OFFSET_VERTEX 2u
#define FS_DOME_FIT_STABLE_SAMPLE 4u
/*
 * h48m, two more parts of the sample. FS_DOME_FIT_SAMPLE_ROUND: the
 * stable sample's cells from the pitch rounded to 1/64 of an octave, so
 * that the ~0.1 % the pitch moves under a nudge does not move every far
 * cell's edges. FS_DOME_FIT_SAMPLE_DOUBLE: the whole image's fit
 * averages up to twice max_centres (128 for the rule), the draw's noise
 * averaged down instead of fixed, at the cost of twice the patches.
 */
#define FS_DOME_FIT_SAMPLE_ROUND 8u
#define FS_DOME_FIT_SAMPLE_DOUBLE 16u
/*
 * FS_DOME_FIT_SAMPLE_WHOLE (h48m): k and the picks counted over the
 * centres whose neighbourhood lies inside the image, not over the list:
 * the first pass's domes on the frame's edge (kept at nudge 0, lost at
 * +-1e-6 px) are never averaged but moved every pick after them.
 */
#define FS_DOME_FIT_SAMPLE_WHOLE 32u
/*
 * Why off (h48m, bench_noise_band over 8 seed sets; main 369 / 369 / 371,
 * 83 flips): bits 4+8 370 / 374 / 371, 35; bit 16 365 / 368 / 370, 71
 * (+23.8 M on the lattice); bit 32 376 / 375 / 369, 34 - but each reads
 * seed set 0 below test_sem_accuracy's floor (45 / 47 / 47 against 48).
 */
/*
 * Whether the centre (x, y) is in FS_DOME_FIT_STABLE_SAMPLE's sample of
 * the given share at this pitch, under the bits set now (the cell rounded
 * with FS_DOME_FIT_SAMPLE_ROUND); exposed for its test.
 */
int fs_dome_fit_in_sample(double x, double y, double pitch, double share);
#define FS_DOME_FIT_OFFSET_TIE 0.1
unsigned fs_dome_fit_set_offset_choice(unsigned bits);

/*
 * Of n offsets (x[k], y[k]) with residual sums rss[k], the index of the
 * shortest whose sum is at most (1 + tie) x the least (the first of equal
 * lengths); -1 when no sum is finite. The choice of
 * FS_DOME_FIT_OFFSET_BASINS, exposed for its test.
 */
int fs_dome_fit_offset_pick(const double *rss, const double *x, const double *y, size_t n, double tie);

#endif
