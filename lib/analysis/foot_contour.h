/*
 * foot_contour.h - a smooth foot's support read from the image's mean
 * dome: the circle where the mean patch about the domes' centres stops
 * departing from the ground (issue 13; h52f in docs/paper-figures.md).
 *
 * Why: on a dome whose flank flattens smoothly into the ground (the
 * simulator's cos^2 domes) every term of the SE signal - the secant
 * law's excess, the side detector's brightening and shading, the edge
 * term - falls to nothing with the slope at the support, on every side of
 * the dome whatever the detector does there. So |mean patch - ground|
 * ends on a circle about the support's own centre, even where the centres
 * it was pooled about sit on the lit flank (the dome rule's: 0.08-0.46
 * R towards the detector on the smooth-footed scenes), and its radius is
 * the support's up to the blur and the foot's last few per cent. The
 * contour is the LAST point of each ray inside half the pitch where the
 * departure is at least a fraction (FS_FOOT_CONTOUR_LEVEL) of its
 * greatest: on the side facing away from the detector the secant excess
 * and the detector's shade cancel mid-flank, which a first crossing would
 * take for the foot.
 *
 * The ground is the mean patch at the lattice's six hollows (a third of
 * the way along the long diagonal of each lattice rhombus, pitch / sqrt 3
 * from the centre: as far from every dome as the lattice allows); the
 * lattice's direction is read from the centres' nearest neighbours.
 *
 * Ownership: every array is the caller's; nothing is kept between calls.
 */
#ifndef FOOT_CONTOUR_H
#define FOOT_CONTOUR_H

#include <stddef.h>

#include "image/image.h"

/* the departure's fraction of its greatest at which the contour is read:
 * a side detector's term falls linearly with the slope at the foot, to 5
 * % of its peak at 0.984 of a cos^2 support (sin pi u = 0.05), the
 * secant excess (slope^2) at 0.928 */
#define FS_FOOT_CONTOUR_LEVEL 0.05
/* the mean patch's bins per px (the centres are not on whole pixels) */
#define FS_FOOT_CONTOUR_Q 2
/* rays of the contour */
#define FS_FOOT_CONTOUR_RAYS 64
/* the mean patch's smoothing under a halftone screen, per px of period:
 * it leaves exp(-2 pi^2 0.5^2) = 0.7 % of the screen's fundamental, well
 * under the level (FS_HALFTONE_LOWPASS's 0.3 leaves 17 %) */
#define FS_FOOT_CONTOUR_SCREEN 0.5

typedef struct fs_foot_contour {
	double radius; /* the contour circle's radius, px; NAN when unread */
	/* its long semi-axis, px: the rays' radii about the circle's centre
	 * fitted by r0 + a cos 2 phi + b sin 2 phi, r0 + hypot(a, b). Why:
	 * along the side detector's axis the departure is its term linear
	 * in the slope, which fades to 5 % of the peak at 0.97-0.98 of a
	 * cos^2 support; across it that term vanishes and only the secant
	 * excess (the slope's square) is left, which fades there at
	 * 0.88-0.93 (a drawn lattice: the circle 0.936 of the support). The
	 * long axis is the detector's, whichever way the detector faces. */
	double major;
	double cx, cy; /* its centre's offset from the centres', px */
	double ground; /* the patch at the hollows */
	double peak;   /* the greatest |patch - ground| inside half the pitch */
	int rays;      /* rays that crossed the level */
} fs_foot_contour;

/*
 * The contour of img's mean patch about the n centres (xs, ys, px) of a
 * lattice of the given pitch (px), the patch smoothed by a Gaussian of
 * smooth_px (0: none), the contour read at level (a fraction of the
 * greatest departure; the option's is FS_FOOT_CONTOUR_LEVEL). Returns 0 with out filled (radius NAN when fewer
 * than 8 centres, no ground, or fewer than half the rays cross the
 * level); -1 with a message when out of memory.
 */
int fs_foot_contour_read(const fs_image *img, const double *xs, const double *ys, size_t n, double pitch,
			 double smooth_px, double level, fs_foot_contour *out, char *err, size_t errlen);

/* The lattice's direction (radians, modulo pi / 3) from the n centres'
 * nearest neighbours (at most the first 512 centres); NAN for fewer
 * than 2. */
double fs_foot_contour_lattice_angle(const double *xs, const double *ys, size_t n);

#endif
