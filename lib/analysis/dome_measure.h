/*
 * dome_measure.h - the base of one tubercle (a dome) in a secondary-electron
 * image: the physically based diameter rule of issue 13.
 *
 * Why this rule: in an SE image the brightness of a surface point follows
 * its tilt (secant law), the side of it facing the detector, shadowing and
 * edge brightening. For every dome profile from spherical cap through
 * paraboloid to flat-topped the slope is steepest at the base and drops to
 * the flat surface's zero there, so the image has its strongest intensity
 * step, concentric with the dome, at the base - bright where the slope faces
 * the detector, dark where it faces away: the sign changes around the dome,
 * the position does not. The half level between the bright cap and the
 * darkest point (the old rule) lies inside it, by 12-26 % of D.
 *
 * The rule: along 32 rays from the centre, the magnitude of the radial
 * derivative of the (lightly smoothed) image; its sum over the rays as a
 * function of the radius peaks at the base circle (shadow edges, which are
 * not concentric, spread out in that sum). Each ray's own strongest step
 * within +-25 % of that radius, weighed by a Gaussian of SD 0.1 radius
 * around it (close domes' bases are a quarter radius apart), is its edge
 * point; a circle fitted to the
 * edge points (outliers beyond 3 median deviations dropped) gives the
 * centre, and the polygon of edge points about it the diameter, ellipse and
 * circularity. A second pass starts from the fitted centre.
 *
 * Fit quality (0..1): the share of the rays' strongest steps that lies on
 * the common circle (sum over the rays of the step at the base / sum of
 * each ray's largest step). Below FS_DOME_MIN_QUALITY the base is not
 * measurable: the centre is kept, radius_px is NAN.
 *
 * Blur: every blur of the image - beam, scan, a halftone's low-pass, the
 * measurement's smoothing - moves the steepest point of the base inwards,
 * most for small domes. The base is modelled as what it is in the SE
 * formation, a step of the signal at radius R (the slope, and with it the
 * yield, drops to the flat surface's there); a step on a circle of radius
 * R blurred by a Gaussian of sigma has the radial derivative
 * (R / sigma^2) exp(-(r^2 + R^2) / 2 sigma^2) I1(r R / sigma^2), whose
 * peak r*(R, sigma) lies inside R (about R - sigma^2 / 2R for R >> sigma).
 * The sigma is the one the dome's own steps show (their width, the
 * curvature of the log profile at the peak), and r*(R, sigma) is inverted
 * for the measured radius.
 * A steep dome's rim is a ridge rather than a step (see pass() in
 * dome_measure.c): its outer flank lies beyond the base by about
 * sigma - w / 2, corrected from the two flanks' distance.
 * One model for every image, no per-genus or per-image constant.
 *
 * The caller owns img and t; nothing is kept.
 */
#ifndef FS_DOME_MEASURE_H
#define FS_DOME_MEASURE_H

#include "image/image.h"
#include "image/tubercle.h"

#define FS_DOME_MIN_QUALITY 0.2

/* Below this share of the median local contrast (fs_image_disc_spread
 * within the rays' reach) of an image's domes a point is flat ground, not
 * a dome, whatever its rays' steps say (detect_measure.h
 * fs_det_drop_flat_ground, measure_centres.c's Re-measure). */
#define FS_DOME_FLAT_SPREAD 0.2

/*
 * The dome rule's radius window: detection and Re-measure look for a
 * dome's base between FS_DOME_R0 and FS_DOME_R1 times the rays' reach mr
 * (max_r, or twice the candidate's radius: detect_measure.h), in the
 * measured image's pixels (mr / F on an image reduced by F). Written once
 * because a base reading kept by one pass is found by the next by its
 * radii, to the bit (base_readings.h), and the tiles' overlaps
 * (detect_domes_tiled.c) must reach the window's outer edge. (The values
 * are the rule's first, b591c33; the agents' evidence and point analysis
 * choose their own windows.)
 */
#define FS_DOME_R0 0.15
#define FS_DOME_R1 0.8

/*
 * Measures the dome around (x, y) with a base radius in [rmin, rmax] px,
 * the ray profiles smoothed by smooth px (0: none; see fs_det_measure for
 * how it is chosen per image). The radius is corrected for the blur the
 * dome's own steps show (their width: sigma from r* and the curvature),
 * in full up to 4 sigma and fading out at 8 sigma, with the profile fit
 * below 3 sigma: a flat disk is a dome whose base is its edge, and
 * the blurred edge's steepest point lies inside it by about sigma^2 / 2R
 * (6 px disks read 5.6 px without it, 5.97 with it).
 * Returns 0 and fills centroid, radius_px (NAN when not measurable),
 * circularity, the ellipse fields and fit_quality of t (id and source
 * untouched); -1 when there is no dome at all (the point is outside the
 * image, or the image is flat there).
 */
int fs_dome_measure(const fs_image *img, double x, double y, double rmin, double rmax, double smooth,
		    fs_tubercle *t);
/* The same on img, a crop at (ox, oy) of a larger image, x, y and t in the
 * crop's pixels: t's centre plus (ox, oy) is, to the last bit, the centre
 * fs_dome_measure gives on the larger image from (x + ox, y + oy) (the
 * tiled path, detect_domes_tiled.c: h39i). */
int fs_dome_measure_crop(const fs_image *img, int ox, int oy, double x, double y, double rmin, double rmax,
			 double smooth, fs_tubercle *t);

/*
 * fs_dome_measure on unsmoothed rays, its raw radius first moved in by
 * how far the dome's own signal slope just inside the base pushes the
 * blurred step's steepest point outwards (inner_shift in dome_measure.c:
 * a dome brighter towards its base - the secant law's rise, a bright rim
 * - reads its steepest step 0.05-0.3 px outside the base at a blur of
 * about 0.9 px; at fill 0.8 and pitch 16, 3 % of the space is 0.1 px of
 * radius). Fitted on the rays' mean step profile, not assumed. The dome
 * rule reads its level with it from the fitted centres
 * (detect_base_fit.h). Same returns as fs_dome_measure.
 */
int fs_dome_measure_base(const fs_image *img, double x, double y, double rmin, double rmax, fs_tubercle *t);

/* fs_dome_measure_base_edge without the ridge model (the same t and
 * *edge), also giving the blur its rays' steps show in its last pass:
 * *var = 1 / kappa, the variance (px^2) of the blurred straight step of
 * that width, as its local blur correction reads it; NAN when fewer than
 * half the rays tell. */
int fs_dome_measure_base_blur(const fs_image *img, double x, double y, double rmin, double rmax, fs_tubercle *t,
			      int *edge, double *var);

/*
 * fs_dome_measure_base_blur's result kept as a value, for a later step
 * that would read the same base again (issue 13's cost: the dome rule's
 * last step reads each dome from its final centre, where the level was
 * read already, detect_base_fit.h). fs_dome_read_base_blur takes the
 * reading into *r; fs_dome_reading_apply writes into *t, *edge and *var
 * exactly what fs_dome_measure_base_blur with the same image, point and
 * radii would have written there (the fields of t it leaves alone stay
 * the caller's) and returns its return value.
 */
typedef struct fs_dome_reading {
	fs_tubercle t; /* the fields the reading wrote */
	double var;
	int rc, edge;
} fs_dome_reading;

void fs_dome_read_base_blur(const fs_image *img, double x, double y, double rmin, double rmax, fs_dome_reading *r);
int fs_dome_reading_apply(const fs_dome_reading *r, fs_tubercle *t, int *edge, double *var);

/*
 * The stages of one fs_dome_measure_base_blur reading, for the benches
 * that ask where a level's error is made (bench_level_small, h41b): the
 * polygon of the rays' steepest steps (its area radius rpoly), the inner
 * slope's shift taken off it (ishift), the blur its steps show (kappa,
 * and sigma as the local correction reads it), the steepest step
 * inverted for that blur (r_step), the small-base profile fit (r_small,
 * weighed by w_small in the blend) and the local correction's weight
 * (w_local), and the reading itself (radius, NAN when not measurable)
 * with its centre and quality. A field the reading did not reach is NAN
 * (weights 0).
 */
typedef struct fs_dome_base_trace {
	double rpoly, ishift, kappa, sigma, r_step, r_small, w_small, w_local, radius, x, y, quality;
} fs_dome_base_trace;

/* fs_dome_measure_base_blur's reading with its stages in *tr; the same
 * radius and returns, to the bit. */
int fs_dome_measure_base_trace(const fs_image *img, double x, double y, double rmin, double rmax,
			       fs_dome_base_trace *tr);

/*
 * fs_dome_measure_base with pass()'s ridge model of a steep rim switched
 * on at the blur the rays themselves show (the width of their steps in
 * the pass before, as fs_dome_measure's local blur correction reads it):
 * a bright rim band just inside the base, blurred wider than itself, has
 * its outer flank beyond the base by about sigma - w / 2, and its inner
 * flank within 3 sigma tells w. The dome rule reads its level with it on
 * the low-passed image of a printed figure (detect_base_fit.h), where
 * the low-pass (0.3 of the screen's period) is that wide. The model is
 * approximate: on ideal box bands blurred by 1.3-2.2 px it stays off for
 * bands narrower than about 1.5 sigma (no separate inner flank; the
 * reading then 0.2-0.8 px out, as fs_dome_measure_base's) and moves
 * bands of 3-4 px 0.5-0.9 px in (docs/paper-figures.md, section h31b).
 * Same returns.
 */
int fs_dome_measure_base_ridge(const fs_image *img, double x, double y, double rmin, double rmax, fs_tubercle *t);

/*
 * fs_dome_measure_base (ridge 0) or fs_dome_measure_base_ridge (ridge 1),
 * saying in *edge (may be NULL) whether the reading is the window's
 * rather than the dome's: -1 when the rays' summed step (whose peak sets
 * the base circle) peaks at the window's first sample, still rises below
 * it and its peak (the vertex through the samples there) lies below rmin;
 * 1 the same beyond the last sample and rmax; 0 when the peak lies
 * inside [rmin, rmax] (from the last pass). Same returns; *edge 0 on -1.
 */
int fs_dome_measure_base_edge(const fs_image *img, double x, double y, double rmin, double rmax, int ridge,
			      fs_tubercle *t, int *edge);

/*
 * fs_dome_measure_base_edge's ridge reading (ridge 1) with the rays that
 * face away from the detector (azimuth: towards it, radians, as the
 * formation's fs_dome_formation azimuth) left out of each pass's circle,
 * their radius the circle's through the others. Why (h48i): under a side
 * detector that foot has no step of its own on the low-passed printed
 * image, and its rays' picks sit where the window's weight about the
 * start puts them: from the TRUE centres moved along the detector's
 * axis they move 1.2-1.8 px per px of start while the lit foot's stay
 * within 0.15 px (docs/paper-figures.md, h48i). Same returns.
 */
int fs_dome_measure_base_ridge_lit(const fs_image *img, double x, double y, double rmin, double rmax,
				   double azimuth, fs_tubercle *t, int *edge);

/*
 * fs_dome_measure_base_ridge_lit's reading with the lit cap given (px;
 * NAN or < 0: the free circle) instead of the process's
 * (fs_dome_set_lit_cap), and the near-half circle's last centre's move
 * from the start along the detector's axis (px, + towards it) in *shift
 * (NULL: not wanted; NAN where no pass reached a centre). Why: the
 * detection judges the cap once per image from its domes' shifts
 * (fs_det_base_set_lit_gate, detect_base_fit.h; h52c), so one image's
 * readings may take another cap than the process's. Same returns.
 */
int fs_dome_measure_base_ridge_lit_capped(const fs_image *img, double x, double y, double rmin, double rmax,
					  double azimuth, double cap, fs_tubercle *t, int *edge, double *shift);

/* the process's lit cap (fs_dome_set_lit_cap; NAN: off) */
double fs_dome_lit_cap(void);

/*
 * What fs_dome_measure_base_ridge_lit_trace keeps of a reading (h49b): its
 * stages (st, as fs_dome_measure_base_trace's); the last whole pass's
 * start (ray_x, ray_y, image pixels), each ray's direction and its radius
 * from that start after the ridge model (before outliers take the
 * circle's), and the ridge blur it read with (0: none); and the inner
 * shift read on the lit rays alone ([0], within 45 degrees of the
 * detector) and on the sides' alone ([1], the rest not facing away), at
 * the picks' width (ishift_side) and with the model's blur free
 * (ishift_free, that blur in sfit_side). A field the reading did not
 * reach is NAN.
 */
#define FS_DOME_TRACE_RAYS 32
typedef struct fs_dome_ray_trace {
	fs_dome_base_trace st;
	double ray_x, ray_y, blur;
	double ishift_side[2], ishift_free[2], sfit_side[2];
	double ray_c[FS_DOME_TRACE_RAYS], ray_s[FS_DOME_TRACE_RAYS], ray[FS_DOME_TRACE_RAYS];
} fs_dome_ray_trace;

/* fs_dome_measure_base_ridge_lit's reading with its stages in *rt; the
 * same radius and returns, to the bit. For the benches and tests that
 * split the reading by the side each foot faces (bench_unrefined_truth
 * --feet, test_ridge_lit_trace). */
int fs_dome_measure_base_ridge_lit_trace(const fs_image *img, double x, double y, double rmin, double rmax,
					 double azimuth, fs_dome_ray_trace *rt);

/*
 * fs_dome_measure without the weight around the common circle and without
 * the blur correction: each ray's strongest step within +-25 % of the
 * base radius counts as it is. The
 * weight is made for tight lattices, where a neighbour's base lies in the
 * window; it also pulls the steps of an empty gap onto one circle, so a
 * test of whether a tubercle is there at all (the agents' evidence,
 * agent_evidence.c) measures a point this way, as a lone dome. Same
 * returns.
 */
int fs_dome_measure_lone(const fs_image *img, double x, double y, double rmin, double rmax, double smooth,
			 fs_tubercle *t);

/*
 * The lean first pass of a reading (dome_measure.c's measure(), which only
 * moves the start of the whole passes) on half its rays, a cost cut that
 * moves bits (h47f's two variants, judged against the guards' noise band
 * by h48e):
 * FS_DOME_LEAN_ALL (0, the rule as shipped) every ray; FS_DOME_LEAN_HALF_RAYS
 * (1) every other ray for the summed step, the picks and the circle (not
 * where the ridge model reads the next pass's blur from the lean pass's
 * widths); FS_DOME_LEAN_HALF_SUM (2) the summed step from every other ray,
 * every ray's pick in the window it gives; FS_DOME_LEAN_HALF_LEVEL (3,
 * h51a) mode 1 in the level's readings alone (the base readers that take
 * the inner shift: they start from the template fit's centres, which are
 * good already), every ray in the first reading from a candidate. A half
 * pass that fails is made
 * again on every ray. For the whole process, in the pattern of the
 * measurement rule: set at start-up, never while another thread measures.
 * Returns 0, or -1 (and changes nothing) for another mode.
 * FS_TEST_LEAN_HALF=0|1|2|3 sets it for a unit test or bench
 * (tests/unit/support/test_lean_half.c).
 */
enum { FS_DOME_LEAN_ALL = 0, FS_DOME_LEAN_HALF_RAYS = 1, FS_DOME_LEAN_HALF_SUM = 2, FS_DOME_LEAN_HALF_LEVEL = 3 };
int fs_dome_set_lean_half(int mode);
/* the mode set (FS_DOME_LEAN_ALL unless fs_dome_set_lean_half changed it) */
int fs_dome_lean_half(void);

/*
 * The frame's edge snap (h49m): a reading whose start lies outside the
 * image by at most FS_DOME_FRAME_SNAP px in x or y starts on the frame's
 * edge instead (0 or width - 1, 0 or height - 1) and reads what a start
 * there reads, to the bit; farther outside it fails as before. Why: the
 * candidates on the frame's first or last row or column lie on integer
 * pixels, and a rounding outside the frame (1e-6 px) failed them, which
 * changed the first pass's dome list and with it the formation fit's
 * sample (h48m). On by default; off (0) reproduces the rule before it.
 * For the whole process, in the pattern of the measurement rule: set at
 * start-up, never while another thread measures. Returns the previous
 * setting. FS_TEST_FRAME_SNAP=0|1 sets it for a unit test or bench
 * (tests/unit/support/test_frame_snap.c).
 */
#define FS_DOME_FRAME_SNAP 1e-3
int fs_dome_set_frame_snap(int on);

/*
 * The lit cap (h51f): in the reading without the far rays
 * (fs_dome_measure_base_ridge_lit) the circle through the near half may
 * move its centre at most px towards the detector from the reading's
 * start (along the detector's axis; across it and away from the detector
 * it stays free), its radius then the kept picks' mean distance from that
 * centre. Why: over the near half the lit foot's excess and a centre
 * shift towards the detector are nearly one column (h49q), so the free
 * circle moves towards the detector by about 1.1 times the excess and its
 * radius reads what the side feet read (short on the printed 135-degree
 * scenes under a 5-px screen). px < 0 or NAN: off (the free circle).
 * On by default at FS_DOME_LIT_CAP (h51f): the only readings it reaches
 * are the walked printed domes' (detect_walk.h, mode 2) and h48i's
 * process-wide option; the 0.9 px is inside the window where
 * test_offset_refused holds on both sides (0.85: the tall scene 12 at
 * 4 px reads +10.07 %, bound 10; 1.0: scene 4 at +4000 -4.86 %, bound 5),
 * chosen there, not derived.
 * For the whole process, set at start-up, never while another thread
 * measures. Returns the previous cap (NAN for off). FS_TEST_LIT_CAP=px
 * or off sets it for a unit test or bench
 * (tests/unit/support/test_lit_cap.c).
 */
#define FS_DOME_LIT_CAP 0.9
double fs_dome_set_lit_cap(double px);

/*
 * For tests: with on non-zero every pass of a reading is made whole (the
 * lean first pass of dome_measure.c's measure() forbidden), 0 gives it
 * back. Why: the lean pass promises the whole pass's centre to the bit,
 * and only a reading with and without it shows that it still does
 * (test_dome_lean_pass). Not to be called while another thread measures.
 */
void fs_dome_forbid_lean(int on);

/*
 * For tests: with on non-zero every pass reads its rays' residuals from
 * the fitted circle with hypot (the shortcut that tells the rays kept
 * from residuals read with sqrt, and without their median where all lie
 * within the outlier bar's floor, forbidden), 0 gives it back. Why: the
 * shortcut promises the same rays kept, so the same reading to the bit
 * (test_dome_lean_pass). Not to be called while another thread measures.
 */
void fs_dome_forbid_keep_rays(int on);

/*
 * For tests: the inner shift's step fit (dome_measure.c's inner_search)
 * on a mean aligned derivative prof[0..2m] (the caller's; m 3..16),
 * samples step px apart, the blur sigma px: the base R (px from the
 * middle sample) into *R and how many times the step model was fitted
 * into *fits (may be NULL). Returns 0, or -1 where it finds no step.
 */
int fs_dome_inner_step_fit(const double *prof, int m, double step, double sigma, double *R, int *fits);

#endif
