/*
 * detect_measure.h - turning candidates into measured tubercles: the image
 * diameters are measured on, and the measurement, filtering and merging of
 * candidates that every detection method ends with. Not part of the public
 * API (include detect.h instead).
 *
 * Ownership: an fs_meas points at images and parameters that stay the
 * caller's and must outlive it; fs_det_measure reads the candidates and
 * appends to out, the caller's list.
 */
#ifndef FS_DETECT_MEASURE_H
#define FS_DETECT_MEASURE_H

#include "analysis/centre_refine.h"
#include "analysis/detect_candidates.h"
#include "analysis/raster_order.h"

/*
 * The image diameters are measured on: img (see fs_detect_measure_image)
 * holds the input of fs_detect (width x height pixels) reduced by the
 * integer factor f (1 = full resolution). Large pitches are measured on a
 * reduced image because their smallest tubercles still span many pixels
 * there, and the measurement blur then costs f^3 times less.
 */
typedef struct fs_meas {
	const fs_image *img;
	int f;
	int width, height;
	/* 1: the dome-base rule (fs_dome_measure), 0: fs_blob_measure. The
	 * dome rule's ray smoothing is chosen per image: the least of 0, 1.2
	 * and 2.2 px on which the bases of the first 48 candidates are found
	 * (mean fit quality) within 0.03 of the best: the dots of a printed
	 * halftone need smoothing, a clean image does not, and smoothing moves
	 * small bases inwards. */
	int dome;
	/* The dome rule only: how far (full-resolution px) a candidate's
	 * centre may move to where its base circle is sharpest
	 * (centre_refine.h) before it is measured; 0 = not at all. Detection
	 * sets it when the candidates come from a reduced image. */
	double refine;
	/* Tiled measurement (detect_tiled.h): when img is NULL the measurement
	 * image is made tile by tile from src (the input reduced by f) with
	 * mp's top-hat and a blur of sigma (fs_detect_measure_image), tile x
	 * tile pixels at a time in `threads` threads; the dome rule's too
	 * (detect_domes_tiled.h; f 1, refine and the smoothing as above). */
	const fs_image *src;
	const fs_params *mp;
	double sigma;
	int tile, threads;
	/* The dome rule: the spread below which a measured point is flat
	 * ground (fs_det_drop_flat_ground), kept across calls. NULL, or 0 in
	 * *flat_spread: from this call's own domes (and stored there when
	 * not NULL); > 0: that floor. The lattice method measures its
	 * recovered sites one at a time against its first pass's floor. The
	 * pointed-to value is the caller's. */
	double *flat_spread;
	/* The dome rule only: the candidates are final centres (Re-measure,
	 * fs_det_measure_domes_at): each is sized where it is, as the
	 * extraction sizes its domes once their centres are final - no
	 * refinement (refine must be 0), the common offset's formation
	 * fitted but no dome moved by it, no axis step, the template fit's
	 * size read from its search about the centre but the centre kept,
	 * the level read there. 2: the same for detection's own final
	 * centres, except on an image with a halftone screen, whose sizes
	 * stay the first pass's (see fs_det_size_domes_list). */
	int given;
	/* The dome rule: the base readings kept for the last step
	 * (base_readings.h), NULL for none. A first pass (given 0) adds the
	 * level's readings from the fitted centres on img (or src, tile by
	 * tile), the last step (given 2, the same images) finds each dome's
	 * reading from its centre there instead of reading it again. The
	 * pointed-to set is the caller's, for one measurement image. */
	struct fs_base_readings *readings;
	/* The dome rule's first pass (refine > 0) under a screen coarse
	 * against the lattice (fs_det_offset_coarse_screen): 1 walks the
	 * candidates by the formation's offset until it stays
	 * (detect_walk.h) and measures them from there without the
	 * refinement, in place of h44d's two paths and h45d's look again;
	 * 0: those; 2: as 1, the walked domes sized with ridge_lit (below).
	 * Detection sets it from fs_det_walk_set (off by default).
	 * The whole-image path and the tiled one (detect_domes_tiled.c)
	 * walk alike (fs_det_walk_shift_by). */
	int walk;
	/* The dome rule's level on the low-passed image under a screen: 1
	 * reads it without the rays facing away from the formation's
	 * detector (fs_det_base_level_lowpassed_along's far_out; h48i), 0 as
	 * the process's fs_det_base_set_ridge_lit says. Detection sets it
	 * only for the candidates the walk moved when fs_det_walk_set(2)
	 * (detect_walk.h): the far foot's picks follow the start, and the
	 * walk is where the start is the formation's own guess. */
	int ridge_lit;
	/* The dome rule's unrefined path of a refined first pass (the
	 * refused and coarse-screen paths, the candidates' walk): 1 holds
	 * its formation's fill at the low-passed level readings, where the
	 * image has a halftone screen (detect_offset.h,
	 * fs_det_offset_set_held_lowpass; h48d, off by default). */
	int held_lowpass;
} fs_meas;

/* One candidate's measurement: the tubercle in m's pixels, ok 0 when none.
 * spread: the dome rule's local contrast where it was measured (the
 * standard deviation of m's pixels within the rays' reach of its centre,
 * fs_image_disc_spread; NAN when not measured, and under the outline rule):
 * fs_det_drop_flat_ground reads it. edge: where t is the base rule's
 * reading on unsmoothed rays from a given centre (fs_meas.given), whether
 * it is the window's end rather than the dome's base (-1 floor, 1
 * ceiling, fs_dome_measure_base_edge); 0 inside, and for every other
 * reading (detect_base_fit.h reads it). */
typedef struct fs_measured {
	fs_tubercle t;
	int ok;
	int edge; /* beside ok: in its padding, the struct no larger */
	double spread;
} fs_measured;

/* res[0..n) as not measured yet: a fresh tubercle (fit quality unknown),
 * ok 0, spread NAN. */
void fs_measured_clear(fs_measured *res, size_t n);

/* One base's first reading at given centres from (x, y) of m->img (f 1)
 * into r->t, r->edge and r->ok, its rays' blur into *v: the plain
 * reading on unsmoothed rays (fs_dome_measure_base_blur) within
 * FS_DOME_R0 .. FS_DOME_R1 x mr, taken from kept (base_readings.h; may be
 * NULL) where detection's first pass read it already. Returns the
 * reading's code (0: a base). fs_det_measure_domes_at reads its bases
 * with it, and the offset walk (detect_offset.c) at its moved centres. */
int fs_det_base_first_reading(const fs_meas *m, const struct fs_base_readings *kept, double x, double y, double mr,
			      fs_measured *r, double *v);

/*
 * Measures every candidate on m (fs_blob_measure with rays up to max_r, or
 * 2 x cand.r when max_r is 0), drops those without a measurable blob, below
 * p->min_circularity or within p->edge_margin_px of the border, and merges
 * candidates whose centres converge (closer than min_sep). Appends to out with
 * ids continuing from out->n + 1 and the given source. Candidates, max_r,
 * min_sep and the results are in input (full-resolution) pixels.
 */
int fs_det_measure(const fs_meas *m, const fs_cand_list *c, double max_r, double min_sep,
		   const fs_params *p, fs_source source, fs_tubercle_list *out);

/*
 * The dome rule's parts, written once for the whole-image path and the
 * tiled one (detect_domes_tiled.c), which run them on crops:
 *
 * The ray smoothing (see fs_meas.dome): fs_det_smooth_trial measures one
 * of the first FS_DET_SMOOTH_CANDIDATES candidates, from (sx, sy) in img's
 * pixels (refined first when refine > 0), with each of the
 * FS_DET_SMOOTH_TRIALS smoothings fs_det_smooth_px[] into q[] (its fit
 * quality, 0 when not measurable); fs_det_smooth_pick chooses from nc
 * candidates' q (nc x FS_DET_SMOOTH_TRIALS, candidate after candidate).
 * mr: the rays' reach in input px (max_r, or 2 x cand.r), F: m->f.
 */
#define FS_DET_SMOOTH_TRIALS 3
#define FS_DET_SMOOTH_CANDIDATES 48
extern const double fs_det_smooth_px[FS_DET_SMOOTH_TRIALS];
/*
 * The trials stop before FS_DET_SMOOTH_CANDIDATES once the choice is
 * settled (issue 13's cost: the 48 trials were a third of the dome rule
 * on the paper figures): candidates are tried FS_DET_SMOOTH_BATCH at a
 * time, in candidate order, and after each batch fs_det_smooth_settled
 * says whether the pick of the first n is sure: every comparison of
 * means that fs_det_smooth_pick makes for it holds beyond
 * FS_DET_SMOOTH_Z standard errors of the candidates' paired differences
 * of fit quality. fs_det_smooth_next gives the end of the next batch to
 * try after the first done of nc (done itself when the trials are over).
 * Both paths run the same batches, so they pick alike.
 */
#define FS_DET_SMOOTH_BATCH 8
#define FS_DET_SMOOTH_Z 2.5
int fs_det_smooth_settled(const double *q, size_t n);
size_t fs_det_smooth_next(const double *q, size_t done, size_t nc);

/* What a candidate's smoothing trial leaves for its measurement (both
 * calls below; may be NULL): its refinement (grid and compass stages,
 * centre_refine.h fs_centre_refine_kept), and the base it measured at
 * each smoothing from the refined centre (a pure function of the image,
 * that centre, the radii and the smoothing). The measurement takes the
 * base of the chosen smoothing when its own refinement ends at the very
 * same centre (bit for bit: always on an image measured without
 * smoothing, often otherwise), instead of measuring it again: the same
 * values, a third of the choice's bases saved (h23g). Zero-initialise
 * it; the caller owns it. */
typedef struct fs_det_kept {
	fs_refine_grid grid;
	int valid;
	const fs_image *img;
	double cx, cy, r0, r1;            /* where and with what the bases were measured */
	fs_tubercle t[FS_DET_SMOOTH_TRIALS];
	int ok[FS_DET_SMOOTH_TRIALS];
} fs_det_kept;

void fs_det_smooth_trial(const fs_image *img, double sx, double sy, double mr, double F, double refine,
			 fs_det_kept *kept, double q[FS_DET_SMOOTH_TRIALS]);
/* The same on img, a crop at (ox, oy) of the measurement image, (sx, sy)
 * in the crop's pixels: the qualities the whole image gives from (sx +
 * ox, sy + oy) (the refinement made in its pixels, centre_refine.h, and
 * fs_dome_measure's arithmetic is the crop's origin's own). */
void fs_det_smooth_trial_crop(const fs_image *img, int ox, int oy, double sx, double sy, double mr, double F,
			      double refine, fs_det_kept *kept, double q[FS_DET_SMOOTH_TRIALS]);
double fs_det_smooth_pick(const double *q, size_t nc);
/* One candidate's dome measurement from (sx, sy) (img's pixels) into *r:
 * its centre refined (refine > 0), the base measured, and refined and
 * measured again when the base's own fit moved the centre by more than a
 * pixel.
 * kept (may be NULL): the smoothing trial of the same candidate in the
 * same image (see fs_det_kept): the first refinement's grid stage is
 * taken when the search is the same (the same centres, half of a
 * refinement saved), its compass stage when the derivative span is the
 * same too, and the base when the refined centre and the smoothing are. */
void fs_det_measure_dome_one(const fs_image *img, double sx, double sy, double mr, double F, double refine,
			     double smooth, fs_det_kept *kept, fs_measured *r);
/* The same on img, a crop at (ox, oy) of the measurement image, (sx, sy)
 * and *r in the crop's pixels: r's centre plus (ox, oy) is the whole
 * image's to the last bit (fs_dome_measure_crop, h39i; the refinements
 * made in the whole image's pixels, fs_centre_refine_crop, h40e; the
 * tiled path, detect_domes_tiled.c). */
void fs_det_measure_dome_crop(const fs_image *img, int ox, int oy, double sx, double sy, double mr, double F,
			      double refine, double smooth, fs_det_kept *kept, fs_measured *r);

/*
 * Every candidate of c measured again from its own centre without the
 * refinement (fs_det_measure_dome_one at m's scale F, refine 0, the ray
 * smoothing smooth), meas[] cleared first, then flat ground dropped with
 * floor (fs_det_drop_flat_ground). order (may be NULL: c's order) is the
 * order the candidates are read in (raster order keeps the image's rows
 * warm; each result depends on its own candidate only). The refused and
 * walked paths of fs_det_measure and each step of the candidates' walk
 * (detect_walk.c) measure so. meas: c->n entries, the caller's.
 */
void fs_det_measure_unrefined(const fs_meas *m, const fs_cand_list *c, double max_r, double smooth,
			      const fs_raster_key *order, fs_measured *meas, double *floor);

/*
 * Flat ground is no dome: of the n measured candidates meas[], those the
 * rule would keep as domes (fit quality >= 0.45, a finite radius) whose
 * spread is below FS_DOME_FLAT_SPREAD of the median spread of those domes
 * are dropped (ok = 0), before the common offset and the per-tubercle fit
 * read them; with floor non-NULL and *floor > 0, those below *floor
 * instead (else *floor, when non-NULL, gets the floor used, 0 for none). Why: the base rule's fit quality says how well the rays'
 * strongest steps lie on one circle, and the steps of noise do that too
 * around a missing site of a lattice (the hole ringed by its neighbours),
 * on a dark band or on paper (quality 0.45-0.7 against 0.9 and more on
 * the domes of the flat-disk lattices of test_detect); a dome, flat-topped
 * disk or SE-lit slope, shows a step of its own within the rays' reach,
 * which raises the spread there whichever way it is lit. The same rule
 * and share as Re-measure's (measure_centres.c) and the agents' evidence
 * (agent_evidence.c). Nothing is dropped with fewer than 3 domes.
 * Returns the number dropped.
 */
size_t fs_det_drop_flat_ground(fs_measured *meas, size_t n, double *floor);

/*
 * A cost cut (h52d), off by default: the last step (fs_meas.given 2,
 * whole image) takes the formation its first pass sized the domes
 * through (fs_base_readings.formation, kept by fs_det_measure) instead of
 * fitting one again at the final centres, with no offset of its own (the
 * first pass's was applied to the centres already). Where none was kept
 * (tiles, Re-measure of a stored set, no fit) it fits as before. Why it
 * may: the last step reads each dome's size relative to the others
 * through the formation, and the level is the base rule's either way;
 * the refit is 65.6 M of the lattice's 1,515.7 M instructions and the
 * templates it builds another 10.8 M (docs/paper-figures.md, h52d).
 * Mode 2 also keeps each dome's template fit from the first pass (fitted
 * through the first pass's templates) where the axis step moved its
 * centre by at most FS_DET_FIRST_FIT_MOVED px (fs_base_readings_add_fit),
 * and the last step fits only the others: the last step's template fits
 * are another 160 M. Mode 3 keeps those fits but fits the formation
 * again as the rule does (the level's steps read it). Mode 3's kept fits
 * were made through the first pass's templates and the others through
 * the last step's, so where the two formations differ they read two
 * scales (h52d: scene 0's per-dome D SD 3.9 -> 23.3 %); modes 4 and 5
 * are mode 3 with the kept fits put on the last step's scale (h53b).
 * Mode 4: every stride-th kept fit (at most FS_DET_FIRST_FIT_SAMPLE of
 * them) is fitted again through the last step's templates, and the
 * others' radii are multiplied by the median ratio of the sample's new
 * radii to their kept ones. Mode 5: each kept dome is fitted again
 * through the last step's templates at its centre without the centre
 * search (fs_dome_tpl_fit_still_crop). Under any mode 1-5 a Re-measure
 * of the detection's own centres (no first pass, nothing kept) does not
 * give the detection's sizes (h53b: test_remeasure_fresh and
 * test_remeasure_region fail under mode 5). Returns the previous mode, -1
 * (nothing set) for one other than 0-5; one setting a process, set
 * before any detection (FS_TEST_FIRST_FORMATION=0..5 in the tests and
 * benches).
 */
#define FS_DET_FIRST_FIT_MOVED 0.1
#define FS_DET_FIRST_FIT_SAMPLE 64
int fs_det_set_first_formation(int mode);
int fs_det_first_formation(void);

/*
 * The dome rule's sizes at given centres (Re-measure, issue 13): every
 * candidate of c (the centres, full-resolution px; r unused when max_r >
 * 0) measured into res[i] by the extraction's own steps after its centres
 * are final (fs_meas.given): the ray smoothing chosen from the first
 * candidates, each base read, flat ground dropped, the formation fitted
 * at the centres, each dome's size from the template fit at the base
 * rule's level read from the centres (detect_base_fit.h). m: m->dome 1,
 * m->f 1, m->refine 0, m->given 1; the whole measurement image in m->img,
 * or tile by tile from m->src (detect_domes_tiled.h). res[i].t's centre
 * is the candidate's; res[i].ok 0 where the rule finds no dome (flat
 * ground, or no base at all); a base of fit quality below 0.45 stays ok
 * with that quality, for the caller to judge. Returns 0, 1 when m->given
 * is 2 and the image holds a halftone screen (res then says nothing), or
 * -1 with a message (out of memory).
 */
int fs_det_measure_domes_at(const fs_meas *m, const fs_cand_list *c, double max_r, fs_measured *res, char *err,
			    size_t errlen);

/*
 * fs_det_measure_domes_at over the tubercles of t (their centres, m's
 * pixels = input px with m->f 1), rays up to max_r: each tubercle takes the
 * size, shape and fit quality found at its centre (centre, id, source and
 * the rest stay); one the rule cannot size (no base circle of fit quality
 * >= FS_DOME_NO_DOME_QUALITY at its centre, flat ground) gets radius NaN,
 * its ellipse cleared, and a fit quality saying why: the base rule's when
 * it read a base below that quality, 0 for flat ground (a base, but no
 * dome's signal), NaN when no base was read. The dome rule's last step in
 * detection (detect.c: its sizes are these, at its final centres) and
 * Re-measure's (measure_centres.c), so re-measuring a fresh extraction
 * gives back its sizes. With m->given 2 (detection) an image that holds a
 * halftone screen keeps t's sizes: there the first pass's level (the base
 * rule's reading from the offset-corrected centres, detect_base_fit.h)
 * met the simulator's targets in more scenes than the reading from the
 * final centres (h31a: mean D 37 -> 33 of 64 scenes, all four targets 28
 * -> 21, the screened scenes' losses). Returns 0, or -1 with a message.
 */
int fs_det_size_domes_list(const fs_meas *m, double max_r, fs_tubercle_list *t, char *err, size_t errlen);

#endif
