/*
 * detect_base_fit.h - the dome detector's per-tubercle diameters: each
 * dome's size relative to the image's others read from its whole patch
 * through the image's fitted SE formation (dome_base_fit.h), at the level
 * of the base rule's mean (dome_measure.h). The last step of the dome
 * rule's measurement (detect_measure.c). Not part of the public API
 * (detect.h).
 *
 * Why two estimators: the base rule reads each base where 32 rays find
 * the signal's step. Its mean over an image is the rule's calibrated
 * reading (blur and ridge corrections, the centres' common offset) and
 * meets the mean-D and mean-S targets in about half the corner scenes of
 * the simulator; but one tubercle's reading scatters with the noise on
 * its rays (a per-tubercle SD of 9-38 % of D under a halftone screen).
 * The template fit reads a tubercle's size from every pixel of its patch
 * with its own gain and offset and scatters 1-5 % where it applies, but
 * its level depends on how well the image's formation (fitted once per
 * image at the base rule's median fill, detect_offset.h) matches the
 * image: from that formation, unsearched, it reads mean D within 3 % in
 * fewer scenes than the base rule (h20e's search of 60 formations per
 * image fixed the level but cost 150-2,200 x the outline rule and lost
 * mean S, docs/paper-figures.md). Every dome of an image is read through
 * the same formation, so a wrong formation scales every fitted size
 * alike: the ratio of a dome's fitted size to the image's mean fitted
 * size is what the fit measures well, the level is what the base rule
 * measures well.
 *
 * The rule: the domes the base rule kept (fit quality >= 0.45, a finite
 * radius) are fitted from their (offset-corrected) centres; with s = (sum
 * of their base-rule radii) / (sum of their fitted radii) over the domes
 * both measured, a dome's radius becomes s x its fitted radius (the
 * ellipse axes scaled alike). So the image's mean radius stays the base
 * rule's and each dome's deviation from it is the fit's. A dome the fit
 * sized takes the fit's centre too (h22d): the template holds the side
 * detector's bright and shadowed halves, so its best centre is the
 * dome's, where the base rule's sharpest circle of ray steps is pulled
 * along the detector and by a halftone's remains (centre error RMS 4.0 ->
 * 2.2 % of the pitch over the 64 corner scenes of the simulator,
 * docs/paper-figures.md). Fit quality stays the base rule's. A dome the fit cannot size (its best fill at an
 * end of the grid, 0.70 or 1.30 of the median, or no positive gain)
 * keeps the base rule's radius; one whose patch leaves the image too.
 * Nothing changes when the formation was not fitted or fewer than 8
 * domes were sized.
 *
 * No base step (h36g, issue 13): where most of the level's readings lie
 * on no step of the image - the rays' summed step at the reading's radius
 * below FS_BASE_STEP_MIN x its median over the reading's window
 * (base_step.h) - the image shows no base for the base rule to read, and
 * its level is the formation's own sizes (s = 1), as where fewer than 8
 * readings are left. Why: on low domes whose flanks flatten into the
 * ground the summed step is nearly flat and the readings go to the
 * window's ceiling (the flat ground towards the neighbours) or its floor
 * (a bright fleck): P1 Fig1 (Lepidotes) read 56.3 px for domes of 42-49
 * px (h34g), 14 of its 21 readings on no step, and its formation's own
 * sizes give 46 px. A majority, not each reading: where most readings
 * are on no step the others are mostly the flecks at the window's floor
 * (P1 Fig1: 5 of 7), which would set the level as wrongly; an image with
 * a base step keeps its level as before (P1 Fig2: 2 of 41 on no step).
 * Judged only where at least 8 readings are left, and not where the
 * formation found a halftone screen: on the simulator's 5-px screens over
 * domes of 12.8 px (fill 0.8, pitch 16) most readings fell below the bar
 * on the unfiltered image and on the screen's low-pass alike (seven
 * corner scenes changed, three for the worse: the dots and their blur
 * leave no flat ground to judge a step against). The paper figures'
 * formations find no screen (main 6987720), so they are judged.
 *
 * Flat ground (h24f, issue 13): before the sizes are applied, a dome
 * whose patch shows less than FS_DOME_MIN_SIGNAL of the median SE signal
 * of the image's domes (dome_signal.h: the amplitude of the formation's
 * template in the patch, at the fit's centre, or at the base rule's where
 * the fit did not size it; the part of the patch inside the image where
 * the frame cuts it) is not a dome: it is dropped (its fitted size out of
 * the level's sums too). Why: in a flat gap (a missing site, a low fill)
 * the base rule's rays find the neighbours' bases on one circle and
 * report a dome of a fit quality like a real one's and a base three or
 * four times the others' (P1 Fig2 at (343, 202) and (686, 94)). The
 * template's signal there is what the noise and debris share with a
 * dome: 0-0.28 of the median on the paper figures' flat points, the
 * domes kept 0.30 and up (0.36 and up but on P2 Fig1c's textured
 * ground), docs/paper-figures.md section h24f. Judged only with at least
 * 8 signals.
 *
 * The level's base-rule radii (h23f): where the image holds no halftone
 * screen (off's fitted formation found none), each sized dome's base is
 * read again by the base rule from the fit's centre on unsmoothed rays
 * (fs_det_base_level_one; a dome it cannot measure there keeps its
 * first reading in the sum). Why: at fill 0.8 the neighbours' feet lie a
 * quarter radius beyond the base, and two things carried the base rule
 * into them - its own circle fit from a start half a pixel to a pixel
 * off moves the centre towards them and the next passes then read the
 * saddle between the domes (D +15 to +19 % from a start 1 px off, +2 to
 * +4 % from the true centre, pitch 16), and the rays' smoothing (chosen
 * per image against a screen's dots and noise) is a blur along the
 * radius that merges the base's step with the neighbour's foot, which
 * the base's blur model (a blurred circular step) does not describe
 * (from the true centres: +1.7 % unsmoothed, +9.4 % at 1.2 px, +22.7 % at
 * 2.2 px, scene 17). The fit's centre is the better start (h22d). Under
 * a screen the dots are steps as strong as the base and the smoothing is
 * what the base needs: read from the fit's centres on unsmoothed rays the
 * screened scenes came out 1-5 % larger, so their level stays the base
 * rule's first reading (since h31b only where the screen's low-pass does
 * not leave the bases resolved: fs_det_base_level_screened below).
 * docs/paper-figures.md, section h23f.
 *
 * Stray readings (h40g, issue 13): where the image holds no halftone
 * screen, a reading (not pinned) whose ratio to its own dome's fitted
 * radius lies below the median of the image's ratios by more than 6
 * robust SDs of them (1.4826 MAD), and by at least 10 % of that median,
 * is left out of the level's sums as a pinned one is; the dome keeps the
 * fit's size at the others' level. Why: the level is image-wide (the
 * ratio of the sums), and at the last step's final centres the domes cut
 * by the image's frame or a band (the simulator's white band and black
 * surround, outside the scale region) are read too, short: three of 89
 * on corner scene 39 at held-out seeds read 63-73 % of their fitted
 * radius and pulled every dome's D down by 0.9 % (D -0.7 % from the true
 * centres, -1.6 % from the rule's; S +6.4 %). How many such domes the
 * final centres hold changes from seed to seed, and so did the pitch-64
 * scenes' D (39: -0.6 to -1.6 % over 8 seed sets). The healthy readings'
 * ratios spread by 0.3-0.6 % (MAD). Only short readings: a cut dome's
 * base lies partly outside what is read, while the paper figures' long
 * readings are bases (judged both ways, P1 Fig2's fill fell 0.267 ->
 * 0.246 and Fig3's 0.290 -> 0.264, away from the published). Not where
 * a screen's low-pass merges the bases and the level is the base rule's
 * first reading (judged there, pitch-16 scene 31 lost S on 2 of 8 seed
 * sets). Where the low-pass leaves the bases resolved (h41i) they are
 * judged, together with the screened shadow factor
 * (fs_det_base_shadow_factor_screened): the gate alone lost corner scene
 * 43 on 7 of 8 seed sets (its own +1.3 % from the away-side shadow, which
 * the strays had hidden, h41e), the two together gain 12 corner
 * scene-seeds of 512 and lose none. Scene 3 (pitch 16) shows the same
 * unscreened: its own +0.9 % lost S on 5 of 8 seed sets.
 * docs/paper-figures.md, sections h40g, h41i.
 *
 * Pinned readings (h32c, issue 13 section 4): a base reading whose rays'
 * summed step peaks at its radius window's first or last sample and still
 * rises past it (fs_dome_measure_base_edge) found the window's end, not
 * the dome's base. It is left out of the level's sums (sb and the fitted
 * radii beside it): the dome keeps the fit's size at the level the other
 * domes read. A dome the fit did not size whose first reading is pinned
 * (known where that reading is the unsmoothed one from a given centre,
 * fs_measured.edge) takes the image's size, the level times the fit's
 * median radius. With fewer than 8 readings left the level is the
 * formation's own (scale 1: the templates' sizes as fitted). Why: on paper
 * 1's figures a third to a half of the readings sit near the window's
 * ends (docs/paper-figures.md, sections h31e and h32c).
 *
 * The caller owns every argument; nothing is kept.
 */
#ifndef FS_DETECT_BASE_FIT_H
#define FS_DETECT_BASE_FIT_H

#include "analysis/centre_axis.h"
#include "analysis/detect_measure.h"
#include "analysis/detect_offset.h"
#include "analysis/dome_base_fit.h"
#include "analysis/dome_measure.h"

/* What the step did (for reports and tests). */
typedef struct fs_det_base_fit {
	int applied;        /* 1 when the fitted sizes were used */
	size_t fitted;      /* domes sized by the template fit */
	size_t kept;        /* domes that kept the base rule's radius */
	size_t flat;        /* points dropped as flat ground (below) */
	size_t pinned;      /* sized domes whose level reading was the window's end */
	size_t stray;       /* sized domes whose level reading is a stray (above) */
	size_t replaced;    /* unsized domes given the image's size (pinned reading) */
	size_t nostep;      /* level readings on no base step (base_step.h), of those judged */
	size_t read;        /* level readings used (fitted, not pinned, no stray) */
	size_t judged;      /* of those, judged for a step (all but where sampled, h41d) */
	size_t unmeasured;  /* domes left without a diameter (no base, below) */
	double scale;       /* s above; 0 when not applied */
} fs_det_base_fit;

/*
 * An instrument (bench_smooth_table, h52f): where t is set, every sizing
 * of the image's domes by the rule above copies what it did into *t, so
 * the last one (the last step's, on a whole image) is left there. The
 * choice of branch (the base rule's level, the formation's own sizes
 * where most readings lie on no step, no size at all) is otherwise
 * invisible from detection's result. Process-wide, one thread: benches
 * only; NULL (the default) turns it off. The trace is the caller's.
 */
void fs_det_base_fit_set_trace(fs_det_base_fit *t);

/*
 * Applies the rule above to the c->n measured candidates meas[] (m's
 * pixels) with off the result of fs_det_offset_correct on them; max_r as
 * fs_det_measure's (a candidate's radius range). info may be NULL.
 * level_at, level_edge, level_var (NULL: none): given centres only
 * (m->given), per candidate the level's reading (fs_det_base_level_blur:
 * radius, edge and variance)
 * already made at exactly the point the level reads it from, or a
 * negative radius where it was not (fs_det_measure_domes_at reads every
 * base from its centre before the fit, the same reading: the level then
 * does not read it again). Returns 0, -1 on out of memory (meas
 * unchanged).
 */
int fs_det_base_fit_apply(const fs_meas *m, const fs_cand_list *c, const fs_det_offset *off, double max_r,
			  const double *level_at, const int *level_edge, const double *level_var, fs_measured *meas,
			  fs_det_base_fit *info);

/*
 * The rule's two image-wide steps, for the measurement tile by tile
 * (detect_domes_tiled.c), which reads the patches from crops but must
 * size the same domes at the same level:
 *
 * fs_det_base_plan_make lists the domes of meas[0..nc) the rule sizes
 * (idx ascending, their centres xs/ys) and the templates' median fill
 * fill0; p->n 0 when the rule changes nothing (no fitted formation in
 * off, fewer than 8 domes). Returns 0, -1 on out of memory. The plan owns
 * its arrays (fs_det_base_plan_free).
 *
 * fs_det_base_fit_scale applies the fitted radii fr[0..p->n) (NAN: the
 * fit could not size that dome) to meas at the base rule's level, moves
 * each sized dome to its fitted centre (fx, fy: px of meas' image), where
 * p->move_unsized each dome it could not size by the sized ones' common
 * move from the plan's centres (the median of fx - xs, fy - ys) or to
 * its second fit's centre (p->ex, p->ey: fs_det_base_ends_again), and
 * fills info (may be NULL). lr (may be NULL): the base rule's radii read
 * from those centres (fs_det_base_level_one), used for the level where
 * finite, meas' own radius elsewhere; le (may be NULL: none pinned) the
 * edge of each finite lr; a pinned reading is left out (above). step (may
 * be NULL: none judged): each entry's fs_base_step_contrast at its level
 * reading (fs_det_base_step_point; NAN: not judged), read on the
 * measurement image, and not judged where the formation found a halftone
 * screen (above); when more than half
 * of the readings the level uses are below FS_BASE_STEP_MIN, s is 1
 * (above).
 *
 * fs_det_base_step_point: where plan entry k's level reading is judged
 * (both paths): 0 when it is not (no fitted size, or pinned), else its
 * point (*x, *y, px of meas' image) and radius (*r), and 1 when it was
 * read on the measurement image (lr finite and not screened, or meas' own
 * reading from the plan's centre), 2 on the low-passed image (lr finite,
 * screened: read from lvx, lvy). lr, le as fs_det_base_fit_scale's.
 * With p->own (below) every entry that is ok and not pinned is judged at
 * the plan's centre and meas' own radius, fitted or not (1).
 *
 * fs_det_base_level_one: the base rule's radius (fs_dome_measure_base:
 * unsmoothed rays, the step's outward shift by the dome's inner slope
 * taken out; the rule's radius range for a candidate of max_r mr
 * on an image reduced by F) of the dome at (x, y) of img; NAN when it
 * finds no dome there (fit quality below the rule's 0.45). *edge: the
 * reading pinned at the window's floor (-1) or ceiling (1), else 0
 * (fs_dome_measure_base_edge).
 *
 * fs_det_base_lowpass: the image the patches are read from for off's
 * formation: NULL when it is img itself (no halftone screen), else a new
 * low-passed copy the caller frees; *err set and -1 on out of memory.
 *
 * fs_det_base_drop_flat applies the flat-ground rule above: sig[k] the
 * signal of plan entry k (fs_dome_signal_at; NAN: not judged); a dropped
 * dome gets meas[].ok 0 and fr[k] NAN. scratch: p->n doubles. Returns the
 * number dropped.
 */
typedef struct fs_det_base_plan {
	size_t n;
	size_t *idx;
	double *xs, *ys;
	double fill0;
	int no_fill; /* the templates name no fill (fs_det_base_level_size), given centres only */
	/* the axis step found the centres far off (fs_det_base_axis_far):
	 * fs_det_base_fit_scale moves the domes the fit does not size by the
	 * sized ones' common move (h39g) */
	int move_unsized;
	/* 1 where the template fit's best fill for entry k was an end of
	 * the templates' range (written by each path's fit; h39h) */
	unsigned char *at_end;
	/* the centres fs_det_base_ends_again found for those entries (NAN:
	 * none; NULL: not run), taken by fs_det_base_fit_scale instead of
	 * the common move */
	double *ex, *ey;
	int own;     /* the base rule's own readings stand and are judged (fs_det_base_own_plan) */
	/* the formation found a halftone screen whose low-pass merges the
	 * bases: the level is the base rule's first reading, not read where
	 * the fitted radii were, so no reading is judged a stray ("Stray
	 * readings" above; set by each path before the level). Where the
	 * low-pass leaves them resolved the strays are judged (h41i: the cut
	 * domes' short readings there are most of the pitch-64 screened
	 * scenes' scatter, and their gate goes with the screened shadow
	 * factor, which takes out the bias they had hidden on scene 43) */
	int screened;
	/* 1 where entry k's level reading is left out of the step
	 * judgement's sample (fs_det_base_step_pick; NULL: none left out) */
	unsigned char *step_out;
	/* the formation picked a smooth foot (fs_det_offset_set_foot's
	 * experiment, h47c; 0 wherever the foot is not searched): the
	 * level is the templates' own sizes (s = 1), since the base rule's
	 * step on such a foot is the flank's, not where the dome meets the
	 * ground, and the templates draw the foot */
	int smooth_foot;
} fs_det_base_plan;

/*
 * Where the axis step found the centres far off (p->move_unsized), the
 * domes the template fit left unsized because their best fill was an end
 * of the templates' range (p->at_end) fitted again through the same
 * templates from their plan centres moved by the sized domes' common
 * move, then moved by the axis step's shift ax as the sized domes were:
 * into p->ex, p->ey (allocated here, owned by the plan). Why: such a dome
 * is unsized because its start lay far off (h39g's cause C: on the
 * held-out interior scenes that fail, twice the common error, 5-7 px
 * towards the detector), so the common move alone leaves it 2-3 px off;
 * from the moved start the fit finds it (bench_centre_steps: interior
 * 6@24000's 11 such domes +3.3 -> -0.2 px along the axis). Those still
 * unsized keep the common move. fx, fy the sized domes' centres after the
 * axis step (fr finite: sized). fit: the path's fit of the entries whose
 * start sx[k] is finite (the others skipped) into r (NAN: not sized), x,
 * y (set where sized): 0, or -1 with err set. Returns 0, -1 on failure
 * (err set).
 */
typedef int (*fs_det_base_fit_some)(void *ctx, const double *sx, const double *sy, double *r, double *x, double *y,
				    char *err, size_t errlen);
int fs_det_base_ends_again(fs_det_base_plan *p, const fs_centre_axis *ax, const double *fr, const double *fx,
			   const double *fy, fs_det_base_fit_some fit, void *ctx, char *err, size_t errlen);

/*
 * No base in the image (h38b, issue 13): where most of the level's
 * readings lie on no step (above: s would be 1, the formation's own
 * sizes) and the templates' mean patch names no fill either - its coarse
 * pick lay on an end of its window, or, read over the wide window
 * (dome_base_fit.h), its best fill is an end or the residual's rise
 * about it is not FS_DET_BASE_WIDE_Z standard errors clear of zero (the
 * rise's jackknife over the domes averaged, h38o) - neither estimator has a
 * size to give: every dome of the plan keeps its centre (the fit's,
 * as a sized dome's) and is left unmeasured (radius NAN, its fit quality
 * the base rule's: a dome, its base not shown), counted in
 * info->unmeasured. Why: on P1 Fig1, Fig6 and P3 Fig4 the last step's
 * coarse pick lies on an end of a window set by the no-step readings in
 * 11 of 12 fits, and the sizes follow the window's centre (Fig1 0.47 ->
 * 0.74 of the pitch as it moves, docs/paper-figures.md h37p): a diameter
 * the image does not give. Judged only at given centres (the last step
 * and Re-measure, whose sizes are reported); the first pass keeps s = 1,
 * its sizes reach nothing reported but the centres.
 * fs_det_base_level_size: both paths' last step, the judgement and
 * fs_det_base_fit_scale from one count of the level's readings (its
 * arguments fr .. info as fs_det_base_fit_scale's): with given set and
 * most readings on no step, whether t (built through the formation f)
 * names no fill in that sense goes to p->no_fill, the wide window
 * (fs_dome_tpl_read_wide) read only where the pick lies inside its own
 * (the wide read costs 13 lattices: P1 Fig1 +57 M instructions); then
 * the radii are applied. Returns 0, -1 on out of memory (meas and info
 * unchanged).
 */
/* Two standard errors, the usual one-sided ~97.7 % bound, not fitted:
 * h38b's fixed bar of a 15 % rise flipped under one-pixel crops (P2
 * Fig1c whole 0.46 named, its crops 0.010 and 0.065 not) where the
 * rise's own noise is as large (SE 0.28, 0.09, 0.12); on the paper
 * figures the named rises stand 3.7 SE clear, the unnamed at most 1.6
 * (docs/paper-figures.md h38o). */
#define FS_DET_BASE_WIDE_Z 2.0
int fs_det_base_level_size(fs_det_base_plan *p, int given, fs_dome_tpl *t, const fs_dome_fit *f, const double *fr,
			   const double *fx, const double *fy, const double *lr, const int *le, const double *step,
			   fs_measured *meas, fs_det_base_fit *info);

/*
 * Too few domes sized by the templates (h39f, issue 13): at given centres
 * where the template fit sizes fewer than 8 domes (after the flat-ground
 * drop), fs_det_base_fit_scale leaves the base rule's own readings from
 * the centres as the sizes. Those readings are judged for a step as the
 * level's are (fs_det_base_step_point: every plan entry that is ok and
 * not pinned, at its centre and own radius, fitted or not), and where
 * more than half of at least 8 of them lie on no step, every dome of the
 * plan is left unmeasured as above: the templates named no fill (they
 * sized too few domes to name one) and the readings that would stand are
 * the window's ceiling, not a base. Why: P3 Fig4 cropped by one column
 * (+1+0) fitted a formation without a shadow term whose templates sized
 * 6 of 16 domes, and its no-step readings (D / pitch 0.90-0.94) stood as
 * the figure's sizes (0.730) where the whole figure and its other two
 * crops were left unmeasured (docs/paper-figures.md h37p, h38b, h39f).
 * fs_det_base_own_plan sets p->own: given centres (detection's last step,
 * Re-measure) and fewer than 8 finite fr; both paths call it after the
 * flat-ground drop and before the step judgement.
 * No templates at all (h43h): where fs_dome_tpl_build gives none at given
 * centres (e.g. the base rule's median fill above 1, every reading at its
 * window's ceiling), the template fit sized no dome, which is
 * fewer than 8: both paths judge the own readings the same way (not under
 * a halftone screen, as above). Why: P1 Fig6 cropped by one column
 * (+1+0) built no templates, and its own readings (D / pitch median
 * 0.875, 38 of 46 on no step) stood as the figure's sizes (0.794;
 * published 0.506) where the whole figure and its other two crops were
 * left unmeasured (docs/paper-figures.md h43h).
 */
void fs_det_base_own_plan(fs_det_base_plan *p, const double *fr, int given);

/*
 * The step judgement on a sample (h41d, issue 13's cost). The judgement
 * of the level's readings (fs_base_step_contrast, 32 rays x 37 radii x 5
 * samples a reading: 275 M instructions of the 2048 x 1536 lattice's
 * 4,005 M) enters the result only through one image-wide count: whether
 * more than half of the readings the level uses lie on no step
 * (fs_det_base_fit_scale, the no-base verdict). A majority is decided by
 * a sample as well as by every reading unless the share is within a few
 * per cent of a half, where the verdict is a knife edge anyway. So where
 * more than FS_DET_BASE_STEP_SAMPLE readings would be judged, only those
 * whose point's pixel falls in one of m hashed classes are (the pick of
 * fs_det_base_extrap_picked: m the smallest power of two with n / m at
 * most the bound), and the majority is taken among them (info->judged).
 * The pick depends on the point's pixel alone, so detection's last step
 * finds the judgements its first pass kept (base_readings.h) and both
 * paths pick alike. Images of at most that many readings (the paper
 * figures, the interior scenes) judge every reading, as before. The
 * bound was 512 until h51a halved it (a cost cut by fewer evaluations:
 * the 2048 x 1536 lattice judges 1 in 16 of its 2,679 readings instead
 * of 1 in 8, -13.2 M instructions; the corner scenes, 270-320 readings,
 * now judge about half of theirs): every guard's output stayed the
 * same bits (the three fingerprints, test_sem_accuracy's seed-0 log,
 * test_sem_smooth, test_nobase_crop and the noise band), as the verdict
 * is a majority far from a half on all of them.
 * fs_det_base_step_pick: sets p->step_out for the entries
 * fs_det_base_step_point judges (its arguments; both paths call it after
 * fs_det_base_own_plan and before the judgement); fs_det_base_step_point
 * then judges none that is left out. Returns 0, -1 on out of memory
 * (p->step_out NULL: every entry judged).
 * fs_det_base_set_step_sample: the bound (0: no sample; for tests),
 * returns the previous one.
 */
#define FS_DET_BASE_STEP_SAMPLE 256
int fs_det_base_step_pick(fs_det_base_plan *p, const double *fr, const double *fx, const double *fy,
			  const double *lvx, const double *lvy, const double *lr, const int *le, int screened,
			  const fs_measured *meas);
size_t fs_det_base_set_step_sample(size_t bound);

/*
 * The cast shadow's part of the level (issue 13, docs/paper-figures.md
 * h36i, h37d): where a dome's foot is steeper than the detector's
 * elevation, the base rule's rays facing away from the detector read the
 * shadow's outer border (the base's own step is not in the image there),
 * and the circle through the rays is larger than the base by the mean of
 * the border's reach over the rays. The formation fit's elevations (25,
 * 40, 55 degrees, a grid of 20 samples a pitch) cannot tell that reach
 * (1.4 px on a 36-px pitch at h/R 0.5); the readings themselves can: the
 * border makes each polygon of edge points elongated along the
 * detector's axis. fs_det_base_shadow_factor: from the plan's readings
 * (meas[p->idx[k]].t where lr[k] is finite: their ellipses, lr their
 * radii) the mean elongation along the fitted azimuth over the mean
 * radius; above SHADOW_A2_MIN (detect_base_fit.c), the elevation at
 * which the fitted dome's profile casts that elongation
 * (fs_se_shadow_rays), and the ratio base / reading, 1 / (1 + mean
 * reach) there. 1 (nothing done) under a screen, without a fitted
 * formation, or unless clear: the level's bases resolved and their feet
 * clear of the neighbours' (fs_det_base_extrap_plan), since at tight
 * gaps the neighbours' feet move the away rays' steps too (h36i,
 * section 2). fs_det_base_shadow_apply multiplies the finite lr by it
 * (both paths, just before fs_det_base_fit_scale).
 */
double fs_det_base_shadow_factor(const fs_det_base_plan *p, const fs_det_offset *off, const fs_measured *meas,
				 const double *lr, int clear);
/*
 * The same under a halftone screen whose low-pass leaves the bases
 * resolved (h41i): there the first pass's polygons, read on the screened
 * image, do not show the border (h41e: the factor fired on 2 of the 16
 * screened pitch-64 scenes, not on 43), but the level's own readings on
 * the low-pass do (fs_det_base_level_lowpassed_along: la[k] the
 * elongation of entry k's reading along the fitted azimuth, NAN: none).
 * The mean elongation over the readings neither pinned (le) nor
 * missing, over their mean radius, above SHADOW_A2_MIN_SCREENED; only
 * where the formation could cast the shadow (its detector weight and
 * shadow depth positive, the depth at most the yield). 1 otherwise.
 * fs_det_base_elongation: a polygon's elongation along a detector
 * azimuth ((a - b) / 2 cos 2 (theta - azimuth), semi-axes a, b), NAN
 * without its ellipse.
 */
double fs_det_base_shadow_factor_screened(const fs_det_base_plan *p, const fs_det_offset *off, const double *lr,
					  const int *le, const double *la);
double fs_det_base_elongation(const fs_tubercle *t, double azimuth);
void fs_det_base_shadow_apply(const fs_det_base_plan *p, double factor, double *lr);
/*
 * Both paths' one call (just before fs_det_base_fit_scale; the benches'
 * traces too), so the choice between the two factors is made in one
 * place: under a screen whose low-pass left the bases resolved
 * (screened: fs_det_base_level_screened) the factor from the level's own
 * readings (le, la), else the first pass's polygons' factor where the
 * level was extrapolated at clear feet (extrap, fs_det_base_extrap_plan's
 * answer: FS_DET_EXTRAP_CLEAR only; not at tight gaps, h41f). The factor
 * applied to lr (fs_det_base_shadow_apply) and returned (1: none). le
 * and la are read only when screened (NULL otherwise).
 */
double fs_det_base_shadow_take_out(const fs_det_base_plan *p, const fs_det_offset *off, const fs_measured *meas,
				   const int *le, const double *la, int screened, int extrap, double *lr);

/* Below this share of the median signal of an image's domes a point is
 * flat ground (see above). */
#define FS_DOME_MIN_SIGNAL 0.3

/*
 * The centres' common shift along the detector's axis (h30f,
 * centre_axis.h), taken out of the sized domes' fitted centres before the
 * level's base reading, where the image holds no halftone screen (under
 * one the level is the base rule's first reading and a common shift moves
 * nothing the statistics read). Its profiles are read about every
 * stride-th sized dome, at most FS_DET_BASE_AXIS_MAX, whose profiles lie
 * inside the image about its fitted centre (none: the step does not
 * run). fs_det_base_axis_move moves every sized dome's fx, fy by ax's
 * shift when ax->ok.
 */
#define FS_DET_BASE_AXIS_MAX 64
/* Whether ax (fs_det_base_axis_find's) found the centres far off: its
 * shift applied and read again from the centres its first reading moved
 * them to (beyond the window, or at P_v's own blur). Where it did, the
 * first pass's centres share a large common error, which the domes the
 * template fit cannot size keep (fs_det_base_plan.move_unsized; h39g). */
int fs_det_base_axis_far(const fs_centre_axis *ax);
void fs_det_base_axis_move(const fs_det_base_plan *p, const double *fr, const fs_centre_axis *ax, double *fx,
			   double *fy);
/*
 * The shift itself (both paths): read at the base rule's median radius
 * (the selection above); where that fails, at the template fit's median
 * radius fr; where that fails on its residual alone, once more from the
 * centres moved by its shift, taken (the two shifts summed) when that
 * look passes and moves them by at most FS_DET_BASE_AXIS_CONFIRM of the
 * first (h33c: at fill 0.8, pitch 16 the centres of tall spheres sat 1.2
 * px off, where the base rule's radius is 20 % large) or further in the
 * same direction (h35c: the first reading stopped short of a lit base
 * the window did not hold). A first reading taken whose shift exceeds
 * the window's half-width (ax->win) is read again from the centres it
 * moved to and the second shift added when it passes (h35c: the lit
 * base of centres 2-5 px off lay outside the window); so is any first
 * reading taken at the across-axis profile's own blur (ax->own: the
 * formation's blur, which holds the centres' scatter, shut the gate),
 * whose profiles, summed from centres scattered and off along the axis,
 * are blurred along it (h36e: fill 0.4, pitch 28, the first look read
 * 1.27 px of a 1.6-px shift inside its window). read() fills
 * profs (ns x fs_centre_axis_len(g)) with fs_centre_axis_profile at xs[sel[i]],
 * ys[sel[i]] of the measurement image and returns 0, or -1 on failure.
 * *ax as fs_centre_axis_estimate's (ok 0: no move). Returns 0, -1 when
 * out of memory or read() failed.
 */
#define FS_DET_BASE_AXIS_CONFIRM 0.25
typedef int (*fs_det_axis_reader)(void *ctx, const fs_centre_axis_geom *g, const size_t *sel, size_t ns,
				  const double *xs, const double *ys, double *profs);
int fs_det_base_axis_find(const fs_det_base_plan *p, const fs_det_offset *off, const double *fr, const double *fx,
			  const double *fy, int w, int h, fs_det_axis_reader read, void *ctx, fs_centre_axis *ax);

/*
 * The blur the axis step's summed across-axis profile shows
 * (fs_centre_axis.vblur) about the sized domes' centres (fx, fy) at the
 * plan's median radius, read once without moving anything: the level's
 * calibration's blur at given centres, where no axis step runs
 * (level_calib.h, h52a). *vblur NAN where nothing is read (a screen, no
 * formation). Returns 0, -1 on out of memory or a failed read.
 */
int fs_det_base_axis_vblur(const fs_det_base_plan *p, const fs_det_offset *off, const double *fr, const double *fx,
			   const double *fy, int w, int h, fs_det_axis_reader read, void *ctx, double *vblur);
/*
 * The step's own shift at tight gaps taken off (centre_axis_calib.h),
 * both paths, just after fs_det_base_axis_find: where the switch is on,
 * ax is ok and neither read at P_v's own blur, reversed nor shadowed, and
 * the neighbours reach its window at the formation's pitch
 * (fs_centre_axis_gap_resolved 0), the step is read on the formation's
 * lattice (formation, the fit t was built from; t NULL: no templates of
 * that formation, nothing done) at the templates' median fill from its
 * known sites, with ax's radius and off's axis and blur, and where that
 * reading is ok its shift is taken off ax's (ax->calib). Returns 0, -1 on
 * out of memory.
 */
int fs_det_base_axis_calibrate(const fs_det_base_plan *p, const fs_det_offset *off, const fs_dome_fit *formation,
			       const fs_dome_tpl *t, const double *fr, fs_centre_axis *ax);

/*
 * A shift read at P_v's own base and blur (ax->own) is checked against
 * the base's step before it is applied (h39f, both paths): each sized
 * dome's base reading (fs_dome_measure_base_blur, its candidate's radius
 * range) is judged for a step (base_step.h) at its centre and at its
 * centre moved by the shift, and the move is refused (ax->ok 0) when the
 * domes whose reading leaves a step outnumber those whose reading finds
 * one by more than FS_DET_AXIS_STEP_Z times the square root of the two
 * counts (McNemar's test on the paired judgements, one-sided at 2 SE as
 * h38o's). Why: the own branch reads shifts up to 0.2 pitch (made for
 * low caps whose centres lock 3-4 px onto the lit flank, h34i); on P2
 * Pl1 Fig1a cropped by one column (+1+0) the first formation's azimuth
 * and blur changed (99 -> 132 deg, 4.24 -> 5.59 px), the own branch
 * opened on that crop alone and read a shift of -4.25 px at a residual of
 * 0.57 %, moving every centre 0.13 pitch off the domes the whole figure
 * and the outline rule agree on: from there 31 of 49 readings lost their
 * step and 1 found one, and the last step found no base (h38b's
 * verdict), where the whole figure and its other crops are sized. On the
 * simulator's 156 corner and interior scenes (test and held-out seeds)
 * the own branch moves the centres 17 times by up to 4.3 px with at most
 * 1 judgement changed, and none is refused (docs/paper-figures.md h39f).
 * Only the own branch is checked: the formation-blur branch's sub-pixel
 * moves change the judgements of domes near the step's bar both ways (a
 * corner scene: 29 against 10 for a 0.14-px shift), which is the
 * judgement's noise, not the shift's.
 * fs_det_base_axis_judge: *on 1 when the reading of the dome at (x, y)
 * (px of the whole image) of img, a crop at (ox, oy) of a w x h image,
 * lies on a step, 0 on none, -1 when nothing was read (or pinned).
 * fs_det_base_axis_refused: 1 when the n paired judgements on0 (before)
 * and on1 (after) refuse the move (entries -1 left out).
 */
#define FS_DET_AXIS_STEP_Z 2.0
void fs_det_base_axis_judge(const fs_image *img, int ox, int oy, int w, int h, double x, double y, double mr,
			    signed char *on);
int fs_det_base_axis_refused(const signed char *on0, const signed char *on1, size_t n);

/*
 * After the common shift (fs_det_base_axis_move with the same *ax): the
 * centres locked onto their dome's lit flank moved one by one
 * (centre_perdome.h; h38l: interior scene 3 of the simulator, 11-15 of
 * 102 centres 1.9-3.2 px towards the detector). Only where ax's step was
 * ok and neither reversed, shadowed nor read at P_v's own blur, the
 * formation has no screen, the template fit's median radius r0 is at
 * least 3 of the formation's blurs and the gap is resolved
 * (fs_centre_axis_gap_resolved: 2 (r0 + 2 blurs) + 0.05 pitch less than
 * the pitch). Every sized dome whose profiles lie
 * inside the w x h image is read by read() (as fs_det_base_axis_find's)
 * at the formation's azimuth and blur; the flagged ones' fx, fy move
 * along the azimuth, *moved says how many. Not where the common shift
 * read less than FS_DET_AXIS_PERDOME_MIN_SHIFT px (0 or one 0.01-px step
 * of its scan either way: no side told; h47k - on the lattice without a
 * side detector whether the step ran turned on a 1e-6 change in the
 * candidates' correlation, 1.8 or 2.3 G instructions). Where
 * fs_centre_perdome_set_calib is on (off by default, h52b), the step is
 * judged and moved through formation's lattice (t's templates; NULL: no
 * calibration, the step not run), centre_perdome_calib.h; in its modes 2-4
 * also where only the base's size or the gap kept it off. Returns 0, -1
 * when out of memory or read() failed.
 */
#define FS_DET_AXIS_PERDOME_MIN_SHIFT 0.015
int fs_det_base_axis_perdome(const fs_det_base_plan *p, const fs_det_offset *off, const fs_centre_axis *ax,
			     const fs_dome_fit *formation, const fs_dome_tpl *t, const double *fr, double *fx,
			     double *fy, int w, int h, fs_det_axis_reader read, void *ctx, size_t *moved);

int fs_det_base_plan_make(const fs_measured *meas, size_t nc, const fs_det_offset *off, fs_det_base_plan *p);
void fs_det_base_plan_free(fs_det_base_plan *p);
void fs_det_base_fit_scale(const fs_det_base_plan *p, const double *fr, const double *fx, const double *fy,
			   const double *lr, const int *le, const double *step, fs_measured *meas,
			   fs_det_base_fit *info);
int fs_det_base_step_point(const fs_det_base_plan *p, const double *fr, const double *fx, const double *fy,
			   const double *lvx, const double *lvy, const double *lr, const int *le, int screened,
			   const fs_measured *meas, size_t k, double *x, double *y, double *r);
double fs_det_base_level_one(const fs_image *img, double x, double y, double mr, double F, int *edge);
/* The level's radius from one reading of the base rule (rc, t, e and v
 * what fs_dome_measure_base_blur returned and wrote): NAN when it failed
 * or found no dome, *edge then 0 and *var (may be NULL) NAN, else e and
 * v. fs_det_base_level_one and _blur are this of their own reading. */
double fs_det_base_level_value(int rc, const fs_tubercle *t, int e, double v, int *edge, double *var);

/*
 * The level read without the blur (h32e). Where the image holds no
 * halftone screen, the level's base readings from the fitted centres
 * still lie outside the true bases by 0.1-0.4 px on domes whose signal
 * rises towards the base (a bright rim: the secant law's rise, edge
 * brightening): the blur pushes the steepest step outwards by more than
 * the inner-slope model of fs_dome_measure_base takes out (corner scenes
 * 34, 36, 50, 52: +3.1 to +3.5 % from the TRUE centres, where the oracle
 * reads within 0.2 %). Whatever the dome's profile, every such push
 * grows with the blur's variance, so the level is read a second time on
 * the measurement image blurred by FS_DET_BASE_EXTRA_BLUR more and the
 * sums are extrapolated linearly in the variance to no blur:
 * L0 = L1 - (L2 - L1) v1 / s^2, with v1 the blur's variance as the base
 * readings' own steps show it (their width, fs_dome_measure_base_blur:
 * the same estimate as the base rule's local blur correction), s the
 * added blur. Every level reading is scaled by L0 / L1. Only where the
 * second blur leaves the bases resolved (the median base radius at least
 * FS_DET_BASE_RESOLVED sigmas of the blurred image, as under a screen,
 * and the gap to the neighbours' bases at least FS_DET_BASE_FOOT_CLEAR
 * of them): two bases closer than that merge and the reading's change is
 * the neighbour's, not the blur's (fill 0.8 at pitch 16); at least 8
 * domes read on both; a correction of more than FS_DET_BASE_EXTRAP_MAX is
 * not applied (not seen on the corner scenes, whose largest is 2.0 %).
 * docs/paper-figures.md, section h32e.
 *
 * The gap's bound (h34c, issue 13 section 2, the flat disks): the base
 * reading takes the dome's inner slope out by a fit within 2.5 sigma
 * either side of the base (fs_dome_measure_base), whose model has flat
 * ground outside the base; a neighbour's wall closer than 2.5 sigma
 * beyond that window's end (its blurred step's derivative still above
 * e^-2 of its peak inside the window) is read as the dome's own slope
 * and moves the second reading out. Flat disks with vertical walls at
 * pitch 20, fill 0.75 (gap 5.1 px, 3.6 sigmas of the blurred image): the
 * second reading from the true centres +1.43 % against -0.51 % for the
 * same disk alone (-0.86 % with the slope fit off), so the level was
 * extrapolated to -2.7 % and detection read D -3.1 %, the mean space
 * +9.4 %; with the bound the level stays the first reading (D -0.7 %).
 * None of the simulator's corner scenes has a gap between 3 and 4.5 of
 * these sigmas (docs/paper-figures.md, section h34c).
 *
 * fs_det_base_level_blur: fs_det_base_level_one's radius and *edge (the
 * same values) and the variance its rays' steps show (*var, NAN when not
 * read); the reading itself in *keep when not NULL (for fs_meas.readings,
 * base_readings.h: the point and radii it was read with are (x, y) and
 * FS_DOME_R0 and FS_DOME_R1 x mr / F). Its radius and *edge are fs_det_base_level_one's
 * on the same image (the same reading), so the second readings are made
 * and kept with it too. fs_det_base_extrap_plan: whether to read again
 * (FS_DET_EXTRAP_CLEAR, or FS_DET_EXTRAP_TALL below; FS_DET_EXTRAP_NONE
 * not) for the
 * plan's level readings lr, their pins le (fs_det_base_level_one's
 * *edge: a pinned reading is out of the level and out of these sums) and
 * their variances var (NAN: not read), the mean variance in *v1.
 * fs_det_base_extrap_apply: lr scaled by L0 / L1 from the second
 * readings l2 (NAN: not read) over the unpinned domes read on both;
 * returns the scale applied (1 when none).
 *
 * Tall domes at tight gaps (h41f, docs/paper-figures.md): where the bases
 * are resolved but their feet are not clear of the neighbours', the
 * level is still extrapolated when the formation fit's h/R is at least
 * FS_DET_BASE_TALL_HR (its grid's 0.7 and 1.0: a steep foot).
 * fs_det_base_extrap_plan then returns FS_DET_EXTRAP_TALL instead of
 * FS_DET_EXTRAP_CLEAR; the shadow's factor (above) stays off there, as
 * its own reason (the neighbours' feet move the away rays' steps)
 * holds. Why: at fill 0.8, pitch 16 (3.2-px gaps) the level from the
 * TRUE centres reads tall domes 1.4-3.5 % large on every seed set, and
 * with the simulator's own blur varied (beam 0.4 / 0.8 / 1.2 px) that
 * excess is the blur's: extrapolated to no blur it is -0.03 / +0.11 %
 * on the tall spheres, -0.6 / -0.9 % on the flat tops; on low domes the
 * reading without blur is 1-3.6 % short (the cast shadow and the edge
 * brightening) and the blur's part makes up for it, so the neighbours'
 * merging under the added blur, which h34c's bound keeps out, would
 * take off what the low domes need. Corner scenes on 8 seed sets, all
 * four: 304 -> 317 of 512 (every set gains; 7, 5 and 21 gained, 3, 17
 * and 19 lost 6 times where the fit read a low dome's h/R as 0.7-1.0).
 */
#define FS_DET_BASE_EXTRA_BLUR 1.0
#define FS_DET_BASE_EXTRAP_MAX 0.1
#define FS_DET_BASE_FOOT_CLEAR 4.5
#define FS_DET_BASE_TALL_HR 0.55
/*
 * And only where the best low dome (h/R 0.2 or 0.4) fits the formation's
 * mean patch worse by at least this RMS ratio (fs_dome_fit.low_ratio,
 * h41l): at 3.2-px gaps a low dome's patch is the same at every h/R (the
 * shadow's elevation and the contrast take up the height), so the grid
 * picked 0.7 or 1.0 on low domes, and the level was extrapolated where
 * the blur's part is what they need (3 and 19 on +4000, 17 on four seed
 * sets). At the rule's centres on 8 seed sets the low domes read 1.00-
 * 1.04 (one 1.12: 17 on +20000), the tall ones 1.09-1.70; at the TRUE
 * centres 1.00-1.04 against 1.49-1.74. The bound sits between 1.04 and
 * 1.09.
 */
#define FS_DET_BASE_TALL_LOW_RATIO 1.06
enum { FS_DET_EXTRAP_NONE = 0, FS_DET_EXTRAP_CLEAR = 1, FS_DET_EXTRAP_TALL = 2 };
/*
 * The tall sphere's line (h46b, after h43i and h44c; on by default). At
 * tight gaps the level's excess over the true base follows the image's
 * blur variance v: from the TRUE centres the tall spheres' first
 * readings are 1 + FS_DET_BASE_LINE_SLOPE v % of the truth (h43i), while
 * the extrapolation's response to the added blur is not (the neighbours'
 * feet move the second reading, h44c). Where the formation reads a
 * sphere at a tight gap (FS_DET_EXTRAP_TALL and profile < 0.5) the level
 * is therefore the first readings over 1 + slope v / 100, with v read
 * from the readings' own steps: v1 (their mean variance, as
 * fs_det_base_extrap_plan gives it) is a dome's own edge, so neither the
 * domes' radius spread nor the centres' scatter widens it, which is what
 * spoils every mean-patch read of v (h45b, h45n, h46b). v1 is not v (the
 * reader's table is made for a step, not a sphere's foot) but follows it
 * steadily on these domes: fs_det_base_line_v is the parabola through
 * the mean v1 of corner scenes 5 and 21 on fresh seeds (+32000, +36000)
 * at three beams (v 0.626, 0.855, 1.215 px^2), NAN outside the span
 * those readings cover, where the rule's extrapolation stays.
 * fs_det_base_line_wanted: whether plan and off call for the line (and
 * it is switched on); fs_det_base_line_apply: lr scaled by
 * 1 / (1 + slope v / 100) with v from v1, returns the scale (1 where v1
 * is outside the span or fewer than 8 readings are unpinned);
 * fs_det_base_set_line: the switch (on; off gives every output as before
 * h46b), returns the previous setting. Corner scenes on 8 seed sets, all
 * four: 344 -> 348 of 512 (21 gains four sets; only 5's and 21's rows move).
 * docs/paper-figures.md, section h46b.
 */
#define FS_DET_BASE_LINE_SLOPE 4.05
double fs_det_base_line_v(double v1);
int fs_det_base_line_wanted(int plan, const fs_det_offset *off, double v1);
double fs_det_base_line_apply(const fs_det_base_plan *p, double v1, const int *le, double *lr);
int fs_det_base_set_line(int on);
/*
 * The tall dome seen from where the formation puts the domes (h42b,
 * docs/paper-figures.md): at given centres (Re-measure and detection's
 * last step) the formation is fitted at the centres and its common
 * offset is not applied without a screen, and h41f's gate reads h/R and
 * low_ratio from the patch at the centres. Corner scene 23 (flat tall,
 * fill 0.8, pitch 16, azimuth 135) ends its first pass 0.21-0.39 px off
 * along the detector's axis on every seed set (h41f: the shadow moves
 * the axis step), with a per-dome scatter of only 0.08-0.10 px; from
 * there the tall flat top fits as a low dome (h/R 0.4, low_ratio 1.000)
 * and the level stays +2.0..+2.8 % (S -8..-11 %); the same fit's offset
 * reads that error to its grid (0.2 px; (-0.2, +0.2) for a true
 * (-0.22, +0.25)), and from the centres moved by it the patch is plainly
 * a tall dome's (low_ratio 1.38-1.41). fs_det_base_moved_wanted: whether
 * to look again from there - a fitted, unscreened formation with a
 * non-zero offset whose own h/R or low_ratio shut the tight-gap gate
 * that a tall dome's would open (the same lr, le, var as
 * fs_det_base_extrap_plan). The path then fits the formation once more
 * at the plan's centres moved by the offset (fill held at the first
 * fit's; fs_det_base_moved_xy makes them), and where that look's
 * formation opens the gate the level is read from the moved centres
 * and extrapolated (both paths); the sizes stay at the given centres.
 */
int fs_det_base_moved_wanted(const fs_det_base_plan *p, const fs_det_offset *off, const double *lr, const int *le,
			     const double *var);
void fs_det_base_moved_xy(const fs_det_base_plan *p, const fs_det_offset *off, double *xs, double *ys, double *rs);
/*
 * The second readings on a sample (h34b, issue 13's cost): they enter
 * only through one image-wide ratio of two sums, so where more than
 * FS_DET_BASE_EXTRAP_SAMPLE domes would be read again, only those whose
 * centre's pixel falls in one of m hashed classes are (m the smallest
 * power of two with n / m at most FS_DET_BASE_EXTRAP_SAMPLE: about n / m
 * of the n domes). The pick depends on the centre's pixel alone, so
 * detection's last step picks the domes whose readings its first pass
 * kept (base_readings.h), and both paths pick alike (their coordinates
 * differ at most in their last bits). Why a sample suffices, with
 * figures: docs/paper-figures.md, section h34b.
 * fs_det_base_extrap_classes: m for the plan's unpinned level readings
 * lr, le (1: all); fs_det_base_extrap_picked: whether the dome at (x, y)
 * is read again under m; fs_det_base_set_extrap_sample: the bound (0: no
 * sample, every dome read; for tests), returns the previous one.
 */
#define FS_DET_BASE_EXTRAP_SAMPLE 512
unsigned fs_det_base_extrap_classes(const fs_det_base_plan *p, const double *lr, const int *le);
int fs_det_base_extrap_picked(double x, double y, unsigned m);
size_t fs_det_base_set_extrap_sample(size_t bound);
double fs_det_base_level_blur(const fs_image *img, double x, double y, double mr, double F, int *edge,
			      double *var, fs_dome_reading *keep);
/* The level's radius, *edge and *var from a kept reading (base_readings.h):
 * what fs_det_base_level_blur gives when it takes that reading. */
double fs_det_base_level_kept(const fs_dome_reading *r, int *edge, double *var);
int fs_det_base_extrap_plan(const fs_det_base_plan *p, const fs_det_offset *off, const double *lr, const int *le,
			    const double *var, double *v1);
double fs_det_base_extrap_apply(const fs_det_base_plan *p, double v1, const int *le, const double *l2, double *lr);

/*
 * The level under a halftone screen (h31b). Where off's formation found a
 * screen, the templates are fitted on the measurement image low-passed by
 * FS_HALFTONE_LOWPASS x the period (fs_det_base_lowpass), and the level's
 * base reading is made there too when the low-pass leaves the bases
 * resolved: the median base radius the template fit read on the
 * low-passed image (fr[0..p->n), NAN: not sized; scratch: p->n doubles;
 * at least 8 sized) and the gap to the neighbours' bases both at least
 * FS_DET_BASE_RESOLVED low-pass sigmas
 * (below 3 sigma a blurred circular step's steepest point no longer
 * follows its radius, dome_measure.h, and two steps closer than that
 * merge). fs_det_base_level_screened says whether; else the level stays
 * the base rule's first reading, on smoothed rays - except where those
 * rays were smoothed by at least the low-pass's sigma (off->smooth,
 * h41c): they merge the gap as much, and the first reading there is
 * bimodal (from the first pass's centres half the domes read 25-33 %
 * short, and the offset's re-read is refused on half of them: corner
 * scene 25 read -16 to -17 % on three of eight seed sets), so the
 * low-passed level, read from the template fit's centres, is taken
 * wherever the bases themselves are resolved. The reading
 * (fs_det_base_level_lowpassed, on the low-passed image lp) is
 * fs_dome_measure_base_ridge: the low-pass is wider than a steep rim's
 * bright band, whose outer flank then lies beyond the base. Why, with
 * figures: docs/paper-figures.md, section h31b.
 */
#define FS_DET_BASE_RESOLVED 3.0
int fs_det_base_level_screened(const fs_det_base_plan *p, const fs_det_offset *off, const double *fr,
			       double *scratch);
/*
 * The same test on the level's low-passed readings lr (le: pinned, left
 * out; scratch p->n doubles, at least 8 read) instead of the template
 * fit's radii. Why (h43j): on low domes under a screen the templates'
 * radii read 40-55 % of the truth (interior scenes at pitch 28-32: 2.7-4.1
 * px for 5.6-8), below 3 sigmas, and the level fell to the first reading
 * (D -20..-35 % from the TRUE centres) where the low-passed reading is
 * right (-1.6..+0.9 %). Asked where fs_det_base_level_screened and
 * fs_det_base_level_tight_screen both say no.
 */
int fs_det_base_level_screened_read(const fs_det_base_plan *p, const fs_det_offset *off, const double *lr,
				    const int *le, double *scratch);
/*
 * Where the low-pass does not leave the bases resolved (above) but the gap
 * between the median bases (the fit's pitch less twice the median of fr,
 * scratch p->n doubles, at least 8 sized) is shorter than the screen's
 * period, the level is read as without a screen: on the measurement
 * image, from the template fit's centres, on unsmoothed rays (h42e). Why:
 * no whole dot fits between two bases there, so beyond the flank the
 * unsmoothed rays' steepest step is the base's own, and the first
 * reading it replaces is the steepest-step polygon from the first pass's
 * centres, which reads outside the base: from the TRUE centres +3..+7 %
 * on the fill-0.8 pitch-16 domes under a 5-px screen and the same on
 * their clean images (flat low domes 5.2-7.2 % screened, 5.3-6.1 clean),
 * i.e. the reader's, not the screen's. Where a dot fits in the gap (fill
 * 0.25 at pitch 16: gaps of 10-13 px) the unsmoothed rays read into the
 * dots (+10..+116 %), so the first reading stays there. The strays and
 * the step are not judged, as under any screen (judging the strays here
 * took 27's level back up by 1.2 points on the test seeds).
 * docs/paper-figures.md, section h42e.
 */
int fs_det_base_level_tight_screen(const fs_det_base_plan *p, const fs_det_offset *off, const double *fr,
				   double *scratch);
double fs_det_base_level_lowpassed(const fs_image *lp, double x, double y, double mr, double F, int *edge);
/* The same reading, and in *along its polygon's elongation along the
 * detector's azimuth (fs_det_base_elongation; NAN without a reading):
 * the screened shadow factor's input. far_out 1: read as
 * fs_det_base_set_ridge_lit reads (below) for this call whatever the
 * process's setting (fs_meas.ridge_lit, the walked domes' option). */
double fs_det_base_level_lowpassed_along(const fs_image *lp, double x, double y, double mr, double F, double azimuth,
					 int far_out, int *edge, double *along);
/*
 * The same reading with the walked domes' lit cap given (px; NAN: the
 * free circle; fs_dome_measure_base_ridge_lit_capped) and in *shift the
 * near-half circle's move from the start along the detector's axis (px,
 * + towards it; NAN where the reading is not the lit one or failed;
 * shift may be NULL). fs_det_base_level_lowpassed_along is this with the
 * process's cap (fs_dome_lit_cap).
 */
double fs_det_base_level_lowpassed_lit(const fs_image *lp, double x, double y, double mr, double F, double azimuth,
				       int far_out, double cap, int *edge, double *along, double *shift);
/*
 * The lit cap judged per image (h52c): where the median of an image's lit
 * readings' shifts (fs_det_base_level_lowpassed_lit's, under the cap)
 * reaches px, its readings are made again with the free circle. Why:
 * h51f's cap (0.9 px, dome_measure.h) keeps a low dome's lit excess in
 * its radius, but on tall printed domes the walked start sits 0.4-1.7 px
 * away from the detector and the circle must move that far to reach the
 * centre: the image's median shift tells the two (docs/paper-figures.md,
 * h51f and h52c). On at 0.5 px since stop 52: the middle of the plateau
 * h52c's sweep showed at 4 and 5 px, between h49b's lit excesses of the
 * two dome heights; 4 px was not used to choose it, and the corner
 * scenes never walk, so they do not reach it.
 * px < 0 or NAN: off (the cap everywhere). Process-wide,
 * set before any detection; returns the previous bar.
 * FS_TEST_LIT_GATE=px|off sets it for a unit test or bench
 * (tests/unit/support/test_lit_gate.c).
 */
#define FS_DET_BASE_LIT_GATE 0.5
double fs_det_base_set_lit_gate(double px);
/* Whether the image's readings are to be made again free: the median of
 * shift[0..n)'s finite values at least the bar (0 with the gate off or
 * no finite value). scratch: n doubles of the caller's. */
int fs_det_base_lit_gate_free(const double *shift, size_t n, double *scratch);
/*
 * The walked domes' cast-shadow excess (level_calib.h,
 * fs_level_calib_lit_shadow_apply; h53e, off by default): formation form
 * (the one t was built from: the refit's where there was one) rendered
 * at the sized domes' fill, read with the reaches the lit readings were
 * made with ((max_r > 0 ? max_r : 2 r of c's candidate) / F) under cap,
 * and lr divided by the shadow's share where the switch says. Returns
 * 0, -1 on out of memory.
 */
int fs_det_base_lit_shadow(const fs_det_base_plan *p, const fs_dome_fit *form, const fs_dome_tpl *t, const double *fr,
			   const fs_cand_list *c, double max_r, double F, double cap, double *lr);
/*
 * An option, off (h48i): fs_det_base_level_lowpassed_along reads with the
 * rays facing away from the formation's detector left out of the circle
 * (fs_dome_measure_base_ridge_lit, dome_measure.h): that foot has no step
 * of its own under a side detector and its picks follow the start.
 * Returns the previous setting; one setting a process, set before any
 * detection (FS_TEST_RIDGE_LIT=1 in the tests and benches).
 */
int fs_det_base_set_ridge_lit(int on);
int fs_det_base_ridge_lit(void);
/*
 * A cost cut (h51a), mode 0 (the rule as shipped) by default: at given
 * centres (the last step, fs_meas.given) the template fit reads each
 * dome with a cheaper centre search - FS_DET_GIVEN_FIT_STILL: its fills
 * at the given centre alone (fs_dome_tpl_fit_still_crop, one patch
 * instead of about ten); FS_DET_GIVEN_FIT_CROSS: h47e's cross search
 * (fs_dome_tpl_fit_cross_crop). Why it may: the centres stay where they
 * are given anyway, and only the fitted sizes are used, scaled by the
 * level (fs_det_base_fit_scale). Whole image and tiles alike. Returns
 * the previous mode, -1 (nothing set) for an unknown one; one setting a
 * process, set before any detection (FS_TEST_GIVEN_FIT=0|1|2 in the
 * tests and benches).
 */
enum { FS_DET_GIVEN_FIT_RULE, FS_DET_GIVEN_FIT_STILL, FS_DET_GIVEN_FIT_CROSS };
int fs_det_base_set_given_fit(int mode);
int fs_det_base_given_fit(void);
/* The template fit of one plan entry from (x, y) (px of img, a crop at
 * (ox, oy)): the search's fit, or at given centres (given 1) the
 * cheaper one fs_det_base_set_given_fit's mode names. As
 * fs_dome_tpl_fit_crop's return. */
int fs_det_base_tpl_fit(const fs_dome_tpl *t, const fs_image *img, int ox, int oy, double x, double y, int given,
			fs_dome_tfit *out);
/* The first pass's fit of the dome at (x, y) (the whole image's px)
 * where the axis step moved it by at most FS_DET_FIRST_FIT_MOVED
 * (fs_det_set_first_formation's modes 2-5, detect_measure.h), NULL where
 * none is kept (kept NULL: none). The pointer is kept's. */
const struct fs_base_fit_at *fs_det_base_kept_fit(const struct fs_base_readings *kept, double x, double y);
/* fs_det_base_tpl_fit, but at given centres under
 * fs_det_set_first_formation's mode 5 a dome with a kept fit (kept, as
 * fs_det_base_kept_fit) is read without the centre search
 * (fs_dome_tpl_fit_still_crop): its centre is where the first pass's
 * search ended (h53b). Whole image and tiles alike. */
int fs_det_base_tpl_fit_kept(const fs_dome_tpl *t, const fs_image *img, int ox, int oy, double x, double y,
			     int given, const struct fs_base_readings *kept, fs_dome_tfit *out);
/* Keeps in r, for the last step (modes 2-5; r NULL: nothing), the first
 * pass's template fit of every sized plan entry (fr finite) by its final
 * centre (fx, fy; the measurement's px, f its reduction: the key is in
 * full-resolution px) with how far that lies from the fit's own centre
 * (x0, y0): the fitted radius fr, the signal sig and p->at_end. Out of
 * memory: the fits not kept are fitted by the last step itself. */
void fs_det_base_keep_fits(struct fs_base_readings *r, const fs_det_base_plan *p, double f, const double *fr,
			   const double *sig, const double *fx, const double *fy, const double *x0, const double *y0);
/*
 * An instrument, the verdict on by default (h49h): whether the no-base
 * verdict above (fs_det_base_level_size's and the own readings') is
 * taken. FS_DET_NOBASE_VERDICT as shipped; FS_DET_NOBASE_OFF never, so
 * such an image keeps the formation's own sizes (s = 1) or the own
 * readings, as before h38b: what the rule would read there, for the
 * evidence on the figures it leaves unmeasured (docs/paper-figures.md
 * h49h). Returns the previous setting; one setting a process, set before
 * any detection (FS_TEST_NOBASE=0 in the tests and benches).
 */
#define FS_DET_NOBASE_OFF 0
#define FS_DET_NOBASE_VERDICT 1
int fs_det_base_set_nobase(int mode);
int fs_det_base_lowpass(const fs_image *img, const fs_det_offset *off, fs_image **out, char *err, size_t errlen);

/*
 * The formation fitted again at the template fit's centres, under a
 * halftone screen (h33e, issue 13 section 2). The formation the
 * templates render is fitted once at the base rule's centres
 * (detect_offset.h), and under a screen those scatter: on the low
 * spherical caps of corner scenes 40 and 56 (pitch 64, D 16 px, 5-px
 * screen) the fit there found the detector's azimuth turned by 180
 * degrees (scene 40: -179 for 0, with edge and shadow weights of -19
 * and -37; scene 56: -42 for 135) and a smeared blur (3.2 px for 1.9),
 * and through that formation a dome read off its centre along the
 * detector's axis took a size that followed the offset (correlation
 * -0.78 and +0.85 of the D error with the centre's error along the
 * axis): a per-tubercle D error SD of 9.2 and 10.4 % with centres 0.5-0.8
 * px RMS from the truth. At the fit's own centres the formation comes
 * out right (azimuth 0 and 135, blur 1.9 px) and the domes fitted again
 * through it from those centres read 4.8 and 4.6 %
 * (docs/paper-figures.md, section h33e). So in detection's first pass
 * (not at given centres, which are final and where the formation is
 * already fitted) on an image with a screen whose low-pass leaves the
 * bases resolved (fs_det_base_level_screened on the first fit's radii fr,
 * scratch p->n doubles; where it merges them - the 4-px domes and 3-px
 * gaps at pitch 16 - the refit raised the per-tubercle D error SD of the
 * 16 screened pitch-16 corner scenes from 11.2 to 12.3 % on average, 10:
 * 14.4 -> 23.9 %): the formation fitted again
 * (fs_det_offset_fit at fs_det_base_refit_centres: the sized domes'
 * fitted centres, their base rule radii for its fill; the screen's
 * period the first fit's), the templates built again from it at
 * fs_det_base_refit_starts (a sized dome's fitted centre, else its plan
 * centre) and every dome fitted again from there; the level and
 * everything after read as before, but the level's base readings under
 * the screen from the first fit's centres (fs_det_base_refit_starts), as
 * the level has been read since h31b: from the refit's centres scene 43
 * (fill 0.8) read D -0.3 -> -1.4 % and lost mean S (0.7 -> 5.8 %); the
 * sizes' level is the base rule's, calibrated where it reads. Cost: one
 * more formation fit, template build and template fit per dome on such
 * an image (scene 40: fs_detect_domes 1,108.6 -> 1,214.7 M instructions,
 * +9.6 %); none elsewhere. When the formation cannot be fitted
 * again or gives no templates, the first fit stands.
 * fs_det_base_refit_centres writes the n sized entries' centres and radii
 * to xs, ys, rs (p->n each) and returns n; fs_det_base_refit_starts
 * writes p->n starts: a sized entry's fitted centre, moved by the refit's
 * common offset (o2, the formation fitted again there) where
 * fs_det_base_refit_moves(off, o2): the first fit (off) had the detector
 * turned round (its azimuth more than 90 degrees from the refit's) and
 * the refit's offset applies (fs_det_offset.applied), or, under a screen
 * coarse against the lattice (fs_det_offset_coarse_screen), whether or
 * not it clears that rounding bar (0.02 pitch; h46d: on the printed interior's
 * unrefined path after its look again, fs_det_offset_look_again, the
 * turned first formation's templates moved centres 0.17 px off to 0.55
 * px towards the detector, and the refit's -0.40 px, one step of its
 * offset grid under the bar, was left out: interior scene 0 at seed
 * +12000 under a 5-px screen, D -4.8 % from those centres, -2.4 % when
 * the look again had left the starts 1.24 px off and the refit's -1.19
 * px cleared the bar; moved by it, -2.8 %; 5-px printed interior over 8
 * seed sets all four 25 -> 33, 6 px 28 -> 38; at pitch 64 under a 5-px
 * screen, 12.7 periods, the same lost corner scene 56 on 4 of 8 seed
 * sets, D +1.5 -> +6.1 %) and the refit explains the mean patch to an
 * R^2 of at least FS_DET_REFIT_BELOW_BAR_R2 (h47d: below it a step of
 * the offset grid is within what the misfit moves; the refits that lost
 * were the refined path's on interior scene 2, R^2 0.96 with almost no
 * detector read (side 0.02-0.03), whose moved sizes came near the
 * unrefined path's and won the paths' choice, fs_det_paths_choose: D
 * -5.4 -> -20.9 % at seed +8000 under a 5-px screen; and the tall small
 * domes of interior scene 12 under a 4-px screen, R^2 0.982-0.989, whose
 * centres already sat 0.6 px away from the detector: D +8.1 -> +12.4 %
 * at seed 0; every gain on scenes 0 and 4 read 0.993 or more); an
 * unsized entry's plan centre as it is. Why (h34e): at pitch 16, fill 0.8 under the
 * screen (corner scenes 9 and 25) the candidates sit 2.9 px (18 % of the
 * pitch) towards the detector; the first formation fit explains much of
 * that as the detector turned round (azimuth -176 / -46 degrees for 0 /
 * 135, negative slope weight), and the templates it renders keep the
 * fitted centres 1.3-1.4 px off; the refit at those centres reads the
 * detector right (-2 / 134 degrees) and the offset left (-1.4 px on scene
 * 9), which the templates cannot take out themselves (shift and shading
 * are one degree of freedom for a fit of the whole patch, centre_axis.h):
 * centres 6.6 -> 0.8 % (9) and 6.6 -> 2.7 % (25) of the pitch off, mean
 * D -13.9 -> -3.1 % and -12.6 -> -6.4 %. Where the first fit read the
 * detector right, the fitted centres are already good and the refit's
 * offset is its fill's (pinned at 0.88 on scenes 41 and 57, where it read
 * 1.6-2.9 px for centres 0-0.5 px off): moving by it lost scene 57 (S
 * +2.1 -> -10.7 %). The level is read from these starts (lvx above).
 *
 * A formation turned round without a screen (h41g, issue 13): in
 * detection's first pass on an image without a halftone screen whose
 * first formation gives the secant-law yield a positive weight
 * (fs_dome_fit.side > 0, at most 0.75: a turned fit's slope weights
 * cancel the detector's) and is smeared (a blur of 0.09-0.15 pitch:
 * the displacement taken up as blur; TURNED_* in detect_base_fit.c),
 * the formation is fitted again at the template
 * fit's centres as above, and the refit goes on (templates, every dome
 * fitted again, starts moved by its offset where
 * fs_det_base_refit_moves) only where that second fit reads the
 * detector's azimuth more than 90 degrees from the first; else the first
 * fit stands and only the second formation fit was spent. Why: the first
 * formation is fitted at the first pass's centres, which the refinement
 * pulls 3-4 px onto the lit flank of low domes (h39g), with the fill held
 * at their base readings, short from there (interior scene 10 at seed
 * +28000: 0.46 for 0.70); a mean patch of domes displaced that far is
 * best explained at that fill by the detector turned round (-169
 * degrees for 0, its offset +0.69 px pointing away from it: the two
 * reads agree, so dome_fit.c's oblique check cannot see it; a free
 * formation at the true offset fits worse there, residual 42 against
 * 28). The templates rendered from it left the fitted centres 2.2 px off
 * and scattered, and 31 final centres stayed more than 1 px off (D -1.7
 * %, S +4.5 %). At the template fit's centres the formation reads the
 * detector at 0.6 degrees; refitted from there the scene reads D -0.4 %,
 * S +0.9 %. Of 112 interior scene-seeds 15 first fits are turned round
 * so, every one read right by the second fit (within 2 degrees of 0 or
 * 135); all 112 now meet every target (111 before). Not where the yield
 * weight is negative: the pitch-16 fill-0.25 corner scenes' 4-px domes
 * (groups A and E) have their first fits turned round with a negative
 * yield weight on every seed set (h38n), and refitted there the centres
 * come home and uncover the level's own excess on the 4-px spheres
 * (corner scene 4: D +1.7..+2.5 -> +6.5..+6.9 % on all 8 seed sets,
 * docs/paper-figures.md h41g), as h40f's oblique refit stays off where
 * the yield weight is negative. Cost: one formation fit per such image
 * (none on the 2048 x 1536 lattice, whose first fit is sharp, nor on the
 * nine paper figures).
 *
 * Where that look was made, the axis step (fs_det_base_axis_find) reads
 * along the second fit's azimuth whenever the second fit reads the
 * detector more strongly (a larger side weight), turned round or not
 * (*axis_az; else the first fit's). Why (h42c, issue 13): a first fit
 * that reads almost no detector (side 0.01-0.03) reads its azimuth at
 * random, not only turned round: under the continuous beam (h40s)
 * interior 2@4000's read -138 degrees (side 0.029) for 0, the second fit
 * 0 (side 0.057); the templates were rebuilt from the second fit but the
 * axis step read along -138, reversed to +42, 42 degrees off the axis,
 * and moved every centre 6 % of the pitch the wrong way (D -17.0 %, S
 * +17.2 %; now 0.0 %, 0.0 %). Interior 10@0 (first -9.2 degrees, side
 * 0.011; second 0.0, side 0.093, not turned, so the first fit stood): the
 * shift's cross-axis part left the centres 0.4 px across the axis, S
 * +3.3 % (now +2.9 %). Under the lattice-sampled blur the first fits of
 * these scenes read a pure flip (178.7, 179.4), which the axis step's
 * lit-side reversal undoes. Not where the second fit is the weaker:
 * interior 10@20000 under the continuous beam reads side 0.012 and 0.003
 * (-16.9 degrees), neither a detector.
 */
int fs_det_base_refit_wanted(const fs_meas *m, const fs_det_base_plan *p, const fs_det_offset *off, const double *fr,
			     double *scratch);
#define FS_DET_REFIT_BELOW_BAR_R2 0.99
size_t fs_det_base_refit_centres(const fs_det_base_plan *p, const double *fr, const double *fx, const double *fy,
				 const fs_measured *meas, double *xs, double *ys, double *rs);
int fs_det_base_refit_moves(const fs_det_offset *off, const fs_det_offset *o2);
void fs_det_base_refit_starts(const fs_det_base_plan *p, const double *fr, const double *fx, const double *fy,
			      const fs_det_offset *off, const fs_det_offset *o2, double *sx, double *sy);

/*
 * The refit above as one sequence for both paths (whole image in
 * fs_det_base_fit_apply, tiles in detect_domes_tiled.c), each giving its
 * three steps through `path` (ctx its own):
 * formation: the formation fitted at the n centres (xs, ys; rs their
 * radii, reordered) of lattice pitch `pitch`, the screen's period given,
 * into *o (o->fitted 0: none): 0, or -1 with err set;
 * templates: the templates of the formation f at p->n starts (sx, sy)
 * into *t: 0 built, 1 none, -1 with err set;
 * fit: every plan entry fitted through t from (sx, sy) into the path's
 * fr, fx, fy and signals: 0, or -1 with err set.
 * fs_det_base_refit: when fs_det_base_refit_wanted (scratch p->n
 * doubles), or without a screen where the first formation may be turned
 * round ("A formation turned round" above: then only where the second
 * fit reads the detector more than 90 degrees from the first), the
 * formation again at fs_det_base_refit_centres (rs p->n
 * doubles), the starts (fs_det_base_refit_starts into sx, sy, p->n each)
 * and, where that formation gives templates, *t replaced by them (the
 * first freed) and every entry fitted again from the starts. Returns 1
 * when refitted (the level is then read from sx, sy), 0 when the first
 * fit stands (not wanted, or no formation or templates again), -1 on
 * failure with err set (t then holds the templates to free). *axis_az:
 * the azimuth (radians) the axis step is to read along - off's, or the
 * second fit's where the look was made and it reads the detector more
 * strongly (above, h42c).
 */
typedef struct fs_det_base_refit_path {
	int (*formation)(void *ctx, const double *xs, const double *ys, double *rs, size_t n, double pitch,
			 double period, fs_det_offset *o, char *err, size_t errlen);
	int (*templates)(void *ctx, const fs_dome_fit *f, const double *sx, const double *sy, fs_dome_tpl *t,
			 char *err, size_t errlen);
	int (*fit)(void *ctx, const fs_dome_tpl *t, const double *sx, const double *sy, char *err, size_t errlen);
	void *ctx;
} fs_det_base_refit_path;
int fs_det_base_refit(const fs_meas *m, const fs_det_base_plan *p, const fs_det_offset *off, const fs_measured *meas,
		      const double *fr, const double *fx, const double *fy, double *scratch, double *sx, double *sy,
		      double *rs, fs_dome_tpl *t, const fs_det_base_refit_path *path, double *axis_az, char *err,
		      size_t errlen);
size_t fs_det_base_drop_flat(const fs_det_base_plan *p, const double *sig, double *fr, double *scratch,
			     fs_measured *meas);

#endif
