/*
 * detect_offset.h - the dome detector's centres moved by their common
 * offset from the dome centres, fitted once per image with the SE image
 * formation (issue 13 section 2). Not part of the public API (detect.h).
 *
 * Why: the centre a side-lit dome seems to have is not its centre. The
 * centre refinement (centre_refine.h) ends where the base is the sharpest
 * circle, and on low spherical domes that circle runs through the bright
 * half's base and the dark half's inner slope, about 0.35 R towards the
 * detector; the base rule from there reads the domes 12-25 % small
 * (docs/paper-figures.md). The same detector lights every dome of an
 * image, so the offset is common to all of them: the formation fit
 * (dome_fit.h), which fits the mean patch around the centres with the
 * formation and the centres' common offset, measures it once per image,
 * from every tubercle's patch at once.
 *
 * The rule: the fill held at the base rule's own median reading (the
 * offset is what is wanted; one fill costs about a twentieth of the fill
 * search: 30-100 ms against 0.7-1.2 s per corner scene of the simulator),
 * the formation fitted at the centres as given and kept at the offset
 * found (fitting it again there changed no scene of the matrix; but
 * where its azimuth is oblique to the offset it is fitted again there,
 * h40f: dome_fit.h, keep_formation), at most
 * 64 of the tubercles averaged. An offset of at most one
 * step of the fit's fine offset grid (0.0125 pitch) along each axis is the
 * fit's rounding and changes nothing. Otherwise every tubercle is measured
 * again from its centre plus the offset; the new measurement is kept
 * unless its base is much less of a circle (fit quality lower by more
 * than 0.1): from a start moved onto a different step the rays agree
 * less, from the dome's centre they do not. Except on a dome with a bright
 * cap, where they agree best on the cap's edge: a fit of R^2 >= 0.92 with
 * an offset of at least 0.08 pitch, at a pitch of 40 px or more, is
 * trusted up to a drop of 0.35 (h37s; detect_offset.c says why). A fit
 * without a shadow term or a halftone screen that moves the centres is
 * fitted once more at the moved centres, and its further offset added
 * when it is the smaller of the two (h38s: a tall dome's dark crescent,
 * which the first centres straddle; detect_offset.c says why).
 *
 * The caller owns every argument; nothing is kept.
 */
#ifndef FS_DETECT_OFFSET_H
#define FS_DETECT_OFFSET_H

#include "analysis/detect_measure.h"
#include "analysis/dome_fit.h"

/* What the correction did (for reports and tests). */
typedef struct fs_det_offset {
	int fitted;       /* 1 when the fit ran (at least 8 whole patches) */
	int applied;      /* 1 when the tubercles were measured again */
	double dx, dy;    /* the dome centres minus the given centres, px of m */
	double quality;   /* the fit's R^2 */
	size_t moved;     /* tubercles whose new measurement was kept */
	fs_dome_fit fit;  /* the formation fit itself (when fitted): the
			   * per-tubercle fit (detect_base_fit.h) renders it */
	double smooth;    /* the rays' smoothing the bases were read with, px
			   * of m (fs_det_offset_correct's, over m->f): under a
			   * screen it says whether the first reading resolves
			   * more than the low-pass (fs_det_base_level_screened) */
} fs_det_offset;

/*
 * Corrects the n measured candidates meas[] (m's pixels; the dome rule's
 * measurement of c's candidates, rays up to max_r or 2 x cand.r, smoothed
 * by smooth full-resolution px) for their common offset (see above).
 * info may be NULL. Returns 0 (also when nothing was corrected), -1 on out
 * of memory (meas unchanged).
 */
int fs_det_offset_correct(const fs_meas *m, const fs_cand_list *c, double max_r, double smooth,
			  fs_measured *meas, fs_det_offset *info);

/*
 * Whether the offset fs_det_offset_correct applied (off) was refused by
 * most domes under a halftone screen: the fit's R^2 at least 0.92
 * (FAR_FIT_R2), a screen in the formation, and fewer than half of the
 * domes in meas (n of them, after the correction) moved from where they
 * were before it (bx, by: their centres then). Why (h43j): the first
 * pass's refinement (centre_refine.h) takes a low dome's centre to the
 * sharpest circle, 1-2.5 px towards the detector of the candidate on
 * the interior scenes at pitch 28-40; without a screen the offset's
 * trials move 93-97 % of them back (their quality within 0.1), under one
 * they lose a median 0.15 and 60-80 % are refused, and detection's
 * centres stay 4-15 % of the pitch off (D -10..-48 %). The caller then
 * measures the candidates again without the refinement and corrects
 * them again. The printed pitch-64 corner scenes the refinement serves
 * keep their trials (applied 0, or 131 of 138).
 */
int fs_det_offset_refused(const fs_det_offset *off, const fs_measured *meas, const double *bx, const double *by,
			  size_t n);

/*
 * A screen coarse against the lattice, where the first pass's refined
 * circles are judged against the unrefined ones (h44d): the offset was
 * applied, the formation found a halftone screen, and the lattice's pitch
 * is under FS_DET_COARSE_SCREEN_PERIODS (11) of its periods. Why: on the
 * printed interior scenes (pitch 28-40 under 4-6 px screens: 4.7-10
 * periods) the refinement's push towards the detector (1-2.5 px) survives
 * the offset's trials in 4-15 % of the pitch on most seed sets, also
 * where fs_det_offset_refused does not fire (half the domes moved, or
 * R^2 0.80-0.92: 40 of the 112 scene-seeds at 5 px, h43o's 8 seed sets,
 * ended 4-16 % of the pitch off, 25 of them at R^2 under 0.92); the
 * printed pitch-64 corner scenes the refinement serves sit at 12.7
 * periods of a 5-px screen. Then fs_det_offset_paths_differ decides
 * between the two.
 */
#define FS_DET_COARSE_SCREEN_PERIODS 11
int fs_det_offset_coarse_screen(const fs_det_offset *off);

/*
 * Whether the refined path's sized domes (a) and the unrefined path's (b),
 * each after its offset and base fit, measured from the same n
 * candidates, sit apart: the median distance between the centres of the
 * candidates both keep as domes above FS_DET_PATHS_APART (0.06) of pitch
 * (the formation's). Where they agree the refined path stands (so the
 * scenes whose offset did bring its circles home keep it); where they do
 * not, the refinement's push has outlived the offset and the unrefined
 * path is kept. Measured (h44d, bench_centre_steps over 8 seed sets of
 * the printed interior at 5 px): of 36 refined finals within 2.5 % of
 * the pitch of the truth, 35 lie 0.003-0.057 pitch from the unrefined
 * ones; of 35 that sat 5-16 % off, 21 lie above 0.06 (14 at 0.031-0.057
 * stay off). 0.06 is the bar of 0.03-0.12 that puts the most of the 112
 * within 3 % and keeps the test and held-out seeds' printed rows (0.05
 * and below lose the test seeds' S). Since h45d's look again
 * (fs_det_offset_look_again) the callers compare the unrefined path both
 * as it was and after that look, each sized, and keep it where either
 * sits apart (h45k): the look again can bring a path that sat apart to
 * within the bar while the refined one stays off (6-px screen, interior
 * scene 5, held-out seeds: 0.052 pitch after, D -13.8 % kept refined,
 * -2.8 % now), and comparing only before it loses five 5-px scene-seeds
 * the look again had moved apart (within 10 % 89 -> 84 of 112).
 * 1 apart, 0 not (or no dome in both), -1 out of memory.
 */
#define FS_DET_PATHS_APART 0.06
int fs_det_offset_paths_differ(const fs_measured *a, const fs_measured *b, size_t n, double pitch);

/*
 * Whether fs_det_offset_correct on meas would fit the formation and find
 * a halftone screen in it, told without fitting (the dome rule's last
 * step in detection keeps its first pass's sizes under a screen,
 * detect_measure.h, and so needs the fit only where there is none; issue
 * 13's cost: on P1 Fig1 that fit was an eighth of the CLI's instructions).
 * The fit's screen is fs_halftone_detect's on m->img (dome_fit.c: the
 * image's alone), and the fit runs whenever at least 8 of the centres it
 * reads (fs_dome_fit_reach's stride) have their whole neighbourhood inside
 * the image; it leaves the formation unfitted otherwise only when out of
 * memory, which this does not foresee. 1 yes, 0 no, -1 out of memory;
 * *period: the image's screen period (0: none), or -1 when not read.
 * fs_det_offset_correct_period: fs_det_offset_correct with that period
 * (>= 0) handed to the fit instead of looked for again (the same value).
 */
int fs_det_offset_screen_fits(const fs_meas *m, const fs_cand_list *c, const fs_measured *meas, double *period);
/*
 * fs_det_offset_read: fs_det_offset_correct's formation fit alone, no
 * tubercle measured again (info->applied says whether it would be, moved
 * stays 0): where only the offset is wanted (the candidates' walk,
 * detect_walk.h, reads it at each step and measures from the moved
 * candidates itself). The same fit, to the bit.
 */
int fs_det_offset_read(const fs_meas *m, const fs_cand_list *c, double max_r, double smooth, const fs_measured *meas,
		       fs_det_offset *info);
int fs_det_offset_correct_period(const fs_meas *m, const fs_cand_list *c, double max_r, double smooth,
				 double period, fs_measured *meas, fs_det_offset *info);

/*
 * fs_det_offset_set_turn_check: an instrument (h46a, docs/paper-figures.md;
 * 0 by default and no detection path sets it): the formation that
 * fs_det_offset_correct(_period) fits is fitted with
 * fs_dome_fit_opts.turn_check (dome_fit.h, h45m's check of the half-turned
 * detector) in the passes named by the bits of `passes`: FS_DET_TURN_FIRST
 * detection's first pass (m->given 0), FS_DET_TURN_LAST the last step and
 * Re-measure (given centres). The whole-image path only (the tiled path's
 * fits do not read it). Process-wide, like the base fit's sample bounds,
 * for benches and tests that switch it around a detection; returns the
 * previous bits. Why not on: the check puts the 4-px domes' detector
 * right and their centres come 0.2-0.4 px nearer home, which shows the
 * level reader's excess there (the corner all-four 344 -> 339 over 8 seed
 * sets with the first pass's; the last step's alone moves the 4-px rows
 * by at most 0.4 points of D and no count).
 */
#define FS_DET_TURN_FIRST 1u
#define FS_DET_TURN_LAST 2u
unsigned fs_det_offset_set_turn_check(unsigned passes);

/*
 * fs_det_offset_set_foot: an experiment (h47c, docs/paper-figures.md; 0
 * by default and no detection path sets it): the formation that
 * fs_det_offset_correct(_period) fits, whole image or tiles, searches the
 * dome's foot too (fs_dome_fit_opts.foot_search: feet 1..4, h43c) in the
 * passes named by the bits of `passes` (FS_DET_TURN_FIRST, _LAST as
 * above), so that the templates built through it (dome_base_fit.c) draw
 * the foot it picks. Where the held fill's formation picks a smooth foot
 * it is fitted again with the fill free above the held one (the base
 * rule's reading is the flank's on such a foot) and kept where that fit
 * picks a smooth foot too, else the formation is the rule's own (no foot
 * searched); where the formation kept has a smooth foot the templates'
 * window is centred on its fill and the level is the templates' own
 * sizes (fs_det_base_plan.smooth_foot, detect_base_fit.h). Process-wide, for benches and tests that switch it
 * around a detection; returns the previous bits. Why not on: see h47c's
 * section (the foot the formation picks is a nuisance of its misfit on
 * sharp-footed scenes, h43c, and the smooth-footed supports it reads
 * scatter with the foot it picks).
 */
unsigned fs_det_offset_set_foot(unsigned passes);
/* 1 where the pass of m (m->given: the last step) searches the foot */
int fs_det_offset_foot_search(const fs_meas *m);

/*
 * fs_det_offset_set_foot_pool: an option (h48h, docs/paper-figures.md; 0
 * by default): in the passes named by the bits of `passes` the whole
 * image's formation (fs_det_offset_correct(_period) and the look again,
 * not the tiles, which see a part of the image each) searches the foot
 * as fs_det_offset_set_foot's does, but only where the domes' radial
 * profile pooled over the image says their feet are smooth
 * (foot_pool.h, fs_foot_pool_smooth): the foot is the specimen's, decided
 * once for the image's domes, so that no sharp-footed image is read with
 * a smooth foot the formation's misfit picked by chance (h47c: 17 of 64
 * corner scenes). Returns the previous bits.
 */
unsigned fs_det_offset_set_foot_pool(unsigned passes);

/*
 * Its parts, for the tiled measurement (detect_domes_tiled.c), which has
 * no whole image to hand to the fit:
 * fs_det_offset_domes: the centres and radii of the domes among meas[0..n)
 * (those the detection keeps) into xs, ys, rs (n each), in order; returns
 * their number. fs_det_offset_fit: the fit on img (the whole measurement
 * image, or with `reading` its mosaic and the halftone period:
 * fs_dome_fit_opts.patch_ox, and the fill's walk: fill_walk) around those centres of lattice pitch `pitch`
 * (fs_dome_fit_pitch; nothing fitted below 6 px or 8 domes); reorders rs
 * (its median taken in place); fills info (applied: the offset is worth measuring again); returns 0.
 * Where the first offset is applied and the fit has neither a shadow
 * term nor a screen (fs_det_offset_refit_wanted) it looks once more from
 * the centres moved by it and adds that second offset when it is no
 * longer than the first (fs_det_offset_take_refit; h38s, detect_offset.c)
 * - except with `reading`'s patch_ox: a mosaic's patches were copied
 * about the first centres and do not move with them, so the second look
 * would read the same patches and find the same offset again (h39c: the
 * tiled path doubled the offset so on corner scene 3). That caller makes
 * the first look alone (fs_det_offset_fit_once, which never looks
 * twice), a mosaic about the moved centres, a first look on it into
 * `second`, and fs_det_offset_take_refit(info, second).
 * fs_det_offset_refit_walk: sets the walk of the fill (dome_fit.h) that
 * the screened level's refit of the formation (fs_det_base_refit,
 * detect_base_fit.h) asks of fs_det_offset_fit through `reading`: within a
 * quarter of the held fill, kept where it halves the residual (h39a).
 * fs_det_offset_apply_one: a measured candidate q (rays up to mr input
 * px, m->f F) measured again from its centre plus the offset and kept as
 * the rule says; 1 when it moved, 0 when it stayed. *tried (may be
 * NULL) gets that measurement, kept or not (its centre: the start when
 * nothing was measured).
 * fs_det_offset_apply_crop: the same on img, a crop at (ox, oy) of the
 * image whose pixels q is in (q and *tried stay in those): the start is
 * made in the whole image's pixels before the crop's origin is taken off,
 * so a crop measures to the last bit what the whole image does (the tiled
 * path's offset pass, detect_domes_tiled.c; h39i).
 */
#define FS_DET_OFFSET_MAX_CENTRES 64
/*
 * The formation fit's cap_tie (dome_fit.h) at given centres (m->given:
 * Re-measure and detection's last step, whose formation the sizes are
 * read through), 0 elsewhere. Why only there (h42j, docs/paper-figures.md):
 * in detection's first pass the formation places the centres, and the
 * cap taken there within 1-5 % lost a corner scene on the test seeds
 * (mean D 55 -> 54, all four 43 -> 42), and P1 Fig2's first fit in region with any
 * profile but its own (the flat top, by 1.05 %) reads 0.244-0.245,
 * outside the asserted band; at the last step the cap within 5 % moves
 * no corner or interior count on 8 seed sets. 5 %: P1 Fig2's last fit
 * puts profile 1 over the cap by +3.1..+3.7 % on the figure and two of
 * its one-pixel crops and by -4.3 % on the third, so the figure does
 * not decide between them to 4 %.
 */
#define FS_DET_OFFSET_CAP_TIE 0.05
double fs_det_offset_cap_tie(const fs_meas *m);
size_t fs_det_offset_domes(const fs_measured *meas, size_t n, double *xs, double *ys, double *rs);

/*
 * The domes of meas[0..nc) as fs_det_offset_domes gives them, in arrays
 * this allocates, and their pitch (fs_dome_fit_pitch): what every
 * formation fit of the whole image and of the tiles reads first.
 * Returns -1 when out of memory, 1 when there are at least 8 domes at a
 * pitch the formation fits (6 px, fs_dome_fit_image's least), else 0
 * (*pitch 0 when there are fewer than 8).
 * Ownership: d->x, d->y, d->r are the caller's, freed by
 * fs_det_offset_domes_free whatever the result.
 */
typedef struct fs_det_domes {
	double *x, *y, *r;
	size_t n;
} fs_det_domes;
int fs_det_offset_domes_read(const fs_measured *meas, size_t nc, fs_det_domes *d, double *pitch);
void fs_det_offset_domes_free(fs_det_domes *d);
int fs_det_offset_fit(const fs_image *img, const double *xs, const double *ys, double *rs, size_t n, double pitch,
		      const fs_dome_fit_opts *reading, fs_det_offset *info);
int fs_det_offset_fit_once(const fs_image *img, const double *xs, const double *ys, double *rs, size_t n,
			   double pitch, const fs_dome_fit_opts *reading, fs_det_offset *info);
int fs_det_offset_refit_wanted(const fs_det_offset *info);
void fs_det_offset_take_refit(fs_det_offset *info, const fs_det_offset *second);
void fs_det_offset_refit_walk(fs_dome_fit_opts *reading);
int fs_det_offset_apply_crop(const fs_image *img, int ox, int oy, const fs_det_offset *info, double mr, double F,
			     double smooth, fs_measured *q, fs_tubercle *tried);
int fs_det_offset_apply_one(const fs_image *img, const fs_det_offset *info, double mr, double F, double smooth,
			    fs_measured *q, fs_tubercle *tried);

/*
 * The unrefined path's offset under a coarse screen looked for again
 * (h45d): the caller has measured the candidates without the refinement
 * and corrected them by off (fs_det_offset_correct; the screen coarse,
 * fs_det_offset_coarse_screen); the formation is fitted once more at the
 * domes' moved centres in meas and every dome is measured again from its
 * centre plus that further offset, kept as fs_det_offset_apply_one says.
 * off's formation stays the one the base fit reads the sizes through.
 * Why (docs/paper-figures.md, h45d; bench_centre_steps over 8 seed sets
 * of the printed interior at 5 px): the candidates voted on the reduced
 * image sit 2.9-4.1 px towards the detector where this path is kept
 * (1.4-2.2 px on the same scenes without a screen), the first formation,
 * fitted at them and kept, takes part of that asymmetry into its shading
 * and reads a median 0.6 of it (-1.5..-2.5 px), and
 * nothing after it takes the rest out under a screen: the second look
 * that does so without a screen (fs_det_offset_refit_wanted, h38s) is
 * not made under one, and neither is the base fit's axis step
 * (detect_base_fit.h; read on the low-passed image it finds 0.1-0.5 px,
 * often on the wrong side). The look again reads a further 0.8-1.4 px,
 * and the unrefined path's final centres come from +0.5 to +0.2 px
 * (interior scene 1, held-out seeds: D -10.4 -> -4.0 %). Only here: the
 * screens the refinement serves (the printed pitch-64 corners, 12.7
 * periods) and the refined path keep their one look (h37r's capped domes
 * moved onto the lit side by a second one, detect_offset.c).
 * fs_det_offset_again_step: the correction that step makes from the first
 * look (first) and the second (second, fitted at the moved centres) into
 * *step (first's formation, second's offset and quality); 1 when it
 * moves the domes: the further offset beyond the fit's rounding and no
 * longer than the first (a converging correction, as h38s's; a wrong-way
 * first offset on interior scene 3 was followed by a longer second one
 * that threw the centres past the domes, D -18.7 -> +18.1 %), and a
 * second R^2 at least the first's (a move towards the domes sharpens
 * their mean patch; where it does not, the further offset is the fit's
 * trade of its held fill for offset: interior scene 11 under a 6-px
 * screen, R^2 0.984 then 0.981, D +0.1 -> -8.3 %, h46d). The
 * tiled path (detect_domes_tiled.c) fits its second look on a mosaic and
 * applies the same step. fs_det_offset_look_again: 0, -1 out of memory.
 */
int fs_det_offset_again_step(const fs_det_offset *first, const fs_det_offset *second, fs_det_offset *step);
int fs_det_offset_look_again(const fs_meas *m, const fs_cand_list *c, double max_r, double smooth,
			     fs_measured *meas, const fs_det_offset *off);

/*
 * The look again's decision once for the whole image
 * (fs_det_offset_look_again) and the tiles (detect_domes_tiled.c), which
 * fit and measure each on their own pixels: nothing without a first
 * offset taken (off applied); else look->fit fits the formation at the
 * domes' centres as they are, given the first look's screen period, into
 * *second (second->fitted 0: too few domes or no pitch), and where
 * fs_det_offset_again_step moves the domes, look->apply measures every
 * dome again from its centre plus *step. Both return 0 or -1 (their
 * message, if any, is the caller's). 0, or the first -1.
 */
typedef struct fs_det_look {
	int (*fit)(void *ctx, double period, fs_det_offset *second);
	int (*apply)(void *ctx, const fs_det_offset *step);
	void *ctx;
} fs_det_look;
int fs_det_offset_look_again_by(const fs_det_offset *off, const fs_det_look *look);

/*
 * The two paths under a coarse screen (fs_det_offset_coarse_screen:
 * h44d's refined path sized and compared, h45d's look again, h45k's
 * comparison before and after it), one decision for the whole image
 * (detect_measure.c) and the tiles (detect_domes_tiled.c). The caller:
 * fs_det_paths_keep_refined where the refined path stands under a coarse
 * screen (its meas copied and sized; off its offset); having measured the
 * unrefined path and corrected it by off, fs_det_paths_look_again (under
 * a coarse screen: meas copied as it is where a refined path waits, then
 * the caller's look again); having sized meas, fs_det_paths_choose: the
 * refined path copied into meas unless the unrefined one sits apart from
 * it (fs_det_offset_paths_differ) as sized or, where it was looked at
 * again, as it was before (that copy sized then).
 * The caller's callbacks: size, its base fit of meas in place (with the
 * offset it holds then); look_again, its look again of the meas it
 * passed. Both return 0 or -1 with the caller's message.
 * Each returns 0, -1 out of memory (no message), or -2 a callback's -1.
 * Ownership: refined and unrefined are the set's (fs_det_paths_free);
 * ctx and meas the caller's.
 */
typedef struct fs_det_paths {
	int (*size)(void *ctx, fs_measured *meas);
	int (*look_again)(void *ctx);
	void *ctx;
	size_t n;               /* candidates, the length of every meas */
	fs_measured *refined;   /* the refined path, sized; NULL: none waits */
	double refined_pitch;   /* its formation's pitch */
	fs_measured *unrefined; /* the unrefined path before its look again */
} fs_det_paths;
int fs_det_paths_keep_refined(fs_det_paths *p, const fs_measured *meas, const fs_det_offset *off);
int fs_det_paths_look_again(fs_det_paths *p, const fs_measured *meas, const fs_det_offset *off);
int fs_det_paths_choose(fs_det_paths *p, fs_measured *meas);
void fs_det_paths_free(fs_det_paths *p);

/*
 * Detection's final centres walked with the fill they read (h46i, issue
 * 13's smooth-footed and capped domes; experimental, off unless
 * fs_det_offset_set_walk turns it on for the process). For the last
 * step's given centres c (m->given 2, an image without a halftone screen)
 * the formation is fitted at the centres with the fill held at the base
 * readings' median there (fs_det_offset_correct_period, as the last step
 * does), the centres are moved by its offset, and the readings taken and
 * the formation fitted again there; the move is kept where the fill read
 * at the moved centres exceeds the one before by at least
 * FS_DET_OFFSET_WALK_RISE, and the walk goes on from there while the
 * further offset is applied (beyond the fit's rounding) and no longer
 * than the one before, at most FS_DET_OFFSET_WALK_ROUNDS moves. It starts
 * only where the formation at the given centres reads a side detector (a
 * positive side: slope and yield weights of one sign). The paper figures'
 * formations at the rule's centres read a negative one (a dome darker on
 * its slopes than se_render.h draws, whose offset says nothing of a
 * detector): walked anyway, P2 Fig1e's fill went 0.29 -> 0.87 on the
 * neighbours' steps and P1 Fig4 and Fig1e were left unmeasured; the
 * moved formations are not asked again (asked, the walk stopped short on
 * most Fig4-like scenes, whose moved fits read a negative side too). Why: on
 * P1 Fig4-like scenes (docs/paper-figures.md, h46g) the last step's
 * offset, fitted with the fill held at the first readings' 0.50 for a
 * true 0.73, stops 3-4 px short of the domes, and the first reading at
 * the true centres is 0.63, at the rule's 0.51; a formation held at a
 * fill that low reads a short offset, so the fill and the offset are
 * walked together. c's centres are replaced by the walk's end; *moves
 * (may be NULL) gets the number of moves kept. 0, -1 out of memory.
 * Off by default for its cost: the formation and the readings at the
 * given centres are made once more before the last step makes them
 * (lattice bench: 2,074.9 -> 2,519.1 M instructions with it on, no dome
 * moved), and for its gain, which is on h46g's Fig4-like scenes only
 * (docs/paper-figures.md, h46i).
 * fs_det_offset_set_walk: 1 on, 0 off (the default), for the process,
 * set before any detection runs.
 */
#define FS_DET_OFFSET_WALK_RISE 0.01
#define FS_DET_OFFSET_WALK_ROUNDS 4
void fs_det_offset_set_walk(int on);
int fs_det_offset_get_walk(void);
int fs_det_offset_walk_given(const fs_meas *m, fs_cand_list *c, double max_r, int *moves);

/*
 * The unrefined path's formation with its fill held at the level's own
 * reader (h48d, issue 13; experimental, off unless
 * fs_det_offset_set_held_lowpass turns it on for the process). The
 * formation fit holds its fill at the median of the radii it is given
 * (fs_det_offset_fit_once). On the unrefined path of a refined first
 * pass (fs_meas.held_lowpass: fs_det_measure's refused and
 * coarse-screen paths, the look again, the candidates' walk) those are
 * the base rule's readings on the rays smoothed against the screen's
 * dots (2.2 px), which read the printed interior's domes 3-27 % large
 * from their TRUE centres (h/R 0.5 most: +10..+27 %); held there, the
 * formation reads the centres' offset 0.35-1.0 px away from the
 * detector at the true centres (the walk's fixed point past the centre,
 * h47b), and on the tall domes that offset clears the fit's rounding
 * bar and moves them, D +3..+6 %. Held at the truth's fill the same fit
 * reads 0.00 there on 12 of 14 scenes (seed 0) and reads a start 0.5 px off back
 * (bench_unrefined_truth, docs/paper-figures.md h48d). With the switch
 * on, where the image has a screen (period > 0) the radii are the
 * level's reading on the image low-passed by FS_HALFTONE_LOWPASS x the
 * period (fs_det_base_level_lowpassed, its window's ends left out; a
 * dome it cannot read keeps its own radius): -2..+4 % from the true
 * centres. Whole-image path only (the tiled path's mosaic formation
 * holds the rays' fill). fs_det_offset_held_lowpass: whether it is on.
 * Not the rule: it takes the tall domes' excess off but leaves the low
 * domes' short sizing at the true centres (-1..-3 %) uncompensated; on
 * the 5-px printed interior over 8 seed sets the rule's all four 34 ->
 * 29 and, with the candidates' walk on, the walk's low domes stop 0.4-0.7
 * px short of their centres (the formation reads no offset there) and
 * read -4..-6 % (docs/paper-figures.md, h48d).
 */
void fs_det_offset_set_held_lowpass(int on);
int fs_det_offset_held_lowpass(void);

#endif
