/*
 * gap_wide.h - the feet of two neighbouring domes read from a WIDE valley
 * between them: the floor's own two edges, not the walls' steepest steps
 * (issue 13, group C: the pitch-64 fill-0.8 corner scenes 47 and 63; h52g).
 *
 * Why: at fill 0.8 and pitch 64 the space is 12.8 px, a quarter of D, so S
 * within 3 % needs D within 0.75 %. The level's radial reader on the
 * low-passed image reads the screened flat tall tops 2 % short (h42d: its
 * rim corrections are the spheres'), and the valleys' steepest-step reader
 * built for 3-px gaps (gap_read.h) takes, on a 12.8-px valley, the bright
 * band inside the wall or a screen residue on the floor (h49e, section 3).
 * Between two domes the floor is flat ground seen on both sides of the
 * space, and each wall's foot is where that floor ends. This reader fits,
 * on a window that holds only the floor and the wall's last stretch (the
 * band a flat top's steep flank makes, FS_GAP_WIDE_WALL of the radius),
 * one Gaussian-blurred piecewise-linear profile: a wall, the floor, a
 * wall, each with its own level and slope, discontinuous at the two feet.
 * The feet and the blur are searched, the six levels and slopes solved by
 * least squares. A wall's last stretch is near linear over that window on
 * every profile of the simulator (the flat top's band rises towards its
 * foot, the sphere's is a thin line), so the foot is the discontinuity,
 * wherever the blur puts the steepest point.
 *
 * The valley is read on the mean of five lines across it (offsets -1..1
 * px from the centres' line), fitted once; each foot's distance to its
 * centre takes the lines' mean squared offset back (a chord's end), then
 * the blurred circle's inward shift sigma^2 / 2R (dome_measure.h) at the
 * fitted blur.
 *
 * Ownership: reads img and the arrays given, keeps nothing; every output
 * is the caller's.
 */
#ifndef FS_GAP_WIDE_H
#define FS_GAP_WIDE_H

#include <stddef.h>

#include "image/image.h"
#include "image/tubercle.h"

/* the window inside each foot, as a share of that dome's start radius:
 * at 0.25 (6.4 px at R 25.6) the reading no longer follows its start
 * (at 0.15 a start 2 % short read 47 0.9 % shorter than the TRUE radius
 * did, and read again from its own result it drifted to +1.2 %: h52g) */
#define FS_GAP_WIDE_WALL 0.25
/* the start gap below which the valley is not a wide one (px) */
#define FS_GAP_WIDE_MIN_GAP 4.0

/*
 * The valley between domes A (ax, ay) and B (bx, by) on img (floats),
 * their feet started at ra0 and rb0 px from their centres (the level's
 * reading): *ra, *rb the feet's distances from A's and B's centres (px),
 * *sig (may be NULL) the fitted blur. Returns 0; -1 where no wide valley
 * is read (the start gap under FS_GAP_WIDE_MIN_GAP, a line leaving the
 * image, a fit that ends on its window's edge), the outputs then NAN.
 */
int fs_gap_wide_feet(const fs_image *img, double ax, double ay, double bx, double by, double ra0, double rb0,
		     double *ra, double *rb, double *sig);

/*
 * fs_gap_wide_feet with the fit's own terms: coef the six linear terms of
 * the lines' mean profile, each slope per px along the line from A to B
 * (A's wall: its level at A's foot and slope; the floor: its level at the
 * valley's middle and slope; B's wall: its level at B's foot and slope),
 * wa and wb the walls' windows (px), rms the fit's residual (the image's
 * units, on the lines' mean). The same return.
 */
typedef struct fs_gap_wide_valley {
	double ra, rb, sig;
	double coef[6];
	double wa, wb, rms;
} fs_gap_wide_valley;
int fs_gap_wide_read(const fs_image *img, double ax, double ay, double bx, double by, double ra0, double rb0,
		     fs_gap_wide_valley *out);

/*
 * Every dome's foot radius from the wide valleys to its neighbours (within
 * 1.25 pitch, gap_read.h's fs_gap_pairs): domes at (x[i], y[i]) with start
 * radii r0[i] (NAN: the dome takes no part), r[i] the mean of the feet read
 * on i's side (NAN where none), nr[i] (may be NULL) how many, *sig (may be
 * NULL) the mean fitted blur over the valleys read (NAN: none). Every
 * direction counts, so a common error of the centres cancels between a
 * dome's two sides. Returns 0, -1 on out of memory (r then all NAN).
 */
/* The wall window's share of the radius (FS_GAP_WIDE_WALL; kept in (0, 0.5)):
 * for the evidence bench, set before any reading; returns the previous. */
double fs_gap_wide_set_wall(double share);

int fs_gap_wide_radii(const fs_image *img, const double *x, const double *y, const double *r0, size_t n, double pitch,
		      double *r, int *nr, double *sig);

/*
 * The flat tall top's witness (issue 13, group C; h53c): the median, over
 * the wide valleys read between neighbours, of the fit's residual rms over
 * its step contrast (the walls' mean level at their feet over the floor's).
 * Why: the reader's model - a wall whose last stretch is a ramp ending in
 * a step onto a flat floor - is the flat tall top's wall, where its feet
 * are the base (h52g: +0.3..+0.7 % from the TRUE centres on 39, 47, 55,
 * 63); a sphere's rim line or a low dome's last-px brightening fits it
 * worse, and there the feet read 0.5-2.8 % wide. h52g's mean over the
 * valleys did not separate from the rule's own centres (a few valleys the
 * centres put off weigh in it); the median does (docs/paper-figures.md,
 * h53c: the table of every fill-0.8 corner scene on 8 seed sets).
 * FS_GAP_WIDE_FLAT: the bar under which the image is told flat-topped;
 * FS_GAP_WIDE_MIN_VALLEYS: the valleys a median needs.
 */
#define FS_GAP_WIDE_FLAT 0.0145
#define FS_GAP_WIDE_MIN_VALLEYS 16
/* the median radius (px) below which the option does not read: the
 * reader's wall window is FS_GAP_WIDE_WALL of the radius but at least
 * 3 px (gap_wide.c), so under 3 / FS_GAP_WIDE_WALL = 12 px it is no longer
 * the wall's last stretch but the whole dome, and the fit's residual no
 * longer says what the wall is (h53c: the screened 4-px domes at pitch 16,
 * corner scenes 8 and 10, read a witness of 0.010-0.014 and D +43..+55 %) */
#define FS_GAP_WIDE_MIN_R 12.0
typedef struct fs_gap_wide_level {
	double witness;  /* the median rms/step (NAN: no valley read) */
	size_t valleys;  /* the valleys it is the median of */
	double scale;    /* the feet's radii summed over the start radii's,
			  * over the domes with both (NAN: none) */
	double scale_med; /* the median of the domes' own ratios (NAN: none) */
} fs_gap_wide_level;

/* The wide valleys between the domes at (x[i], y[i]) started from r0[i]
 * (pitch as fs_gap_wide_radii): the witness, and the scale the feet give
 * the start radii. Returns 0, -1 on out of memory. */
int fs_gap_wide_level_read(const fs_image *img, const double *x, const double *y, const double *r0, size_t n,
			   double pitch, fs_gap_wide_level *out);

/*
 * The option (on by default since h53c, which met the acceptance rule with
 * it; FS_TEST_GAP_WIDE=0 turns it off in the tests and benches,
 * tests/unit/support/test_gap_wide_option.c): where on, the dome rule's
 * final sizes (fs_det_size_domes_list: detection and Re-measure alike) on
 * an image with a halftone screen whose gaps stay wider than its period
 * are scaled by the wide valleys' reading wherever the witness says flat
 * tall tops (fs_gap_wide_scale_list). Process-wide; returns the previous.
 */
int fs_gap_wide_set_level(int on);
int fs_gap_wide_level_on(void);

/*
 * The option's step: t's tubercles (full-resolution px) on meas, the
 * measurement image reduced f times: under a screen (fs_halftone_detect)
 * whose period the gap between the domes (their pitch less the median
 * diameter) exceeds, with a median radius of at least FS_GAP_WIDE_MIN_R, the wide valleys read on meas low-passed at
 * FS_HALFTONE_LOWPASS x the period (the image the screened level reads,
 * fs_det_base_lowpass) from t's own centres and radii; where at least
 * FS_GAP_WIDE_MIN_VALLEYS valleys give a witness under FS_GAP_WIDE_FLAT,
 * every radius (and ellipse axis) of t multiplied by the median of the
 * domes' feet over their radii (scale_med), *scale
 * set to it (else 1, t unchanged). meas NULL (the tiled path): nothing.
 * Returns 0, or -1 with a message when out of memory.
 */
int fs_gap_wide_scale_list(const fs_image *meas, double f, fs_tubercle_list *t, double *scale, char *err,
			   size_t errlen);

#endif
