/*
 * gap_read.h - the feet of two neighbouring domes read from the valley
 * between them (issue 13, the fill-0.8 corner scenes' S; h47g).
 *
 * Why: where two domes nearly touch, the space between them is a valley
 * a few px wide whose floor is flat ground and whose walls are the two
 * domes' feet. The level's base reading (dome_measure.h) reads each foot
 * from its own dome's centre on 32 rays, with a lone circular step's
 * blur model; at fill 0.8 the space is a quarter of D, so S within 3 %
 * needs each foot to about 0.05 px. The valley along the two centres'
 * line shows both feet at once, each from the side the other dome does
 * not cover: the floor's two edges.
 *
 * A reading: the image sampled along the centre line (and on lines
 * parallel to it at +-0.5 px, each foot's distance taken to its dome's
 * centre), and on each line the valley's two walls located, by one of
 * two methods:
 *  - FS_GAP_STEPS: the steepest step of each wall, the one nearest the
 *    valley's middle among the steps at least half the strongest of its
 *    half-window (a flat top's upper edge or a bright rim inside the
 *    wall are further out), at its parabola vertex;
 *  - FS_GAP_FIT: a model of the valley - a floor between the two feet
 *    and a straight wall on either side, each piece with its own level
 *    and slope, blurred by a Gaussian - fitted by least squares (levels
 *    and slopes linear, the two feet and the blur searched), started from
 *    the steps.
 * Either foot's radius is then corrected for the curvature of its
 * circular step (a blurred circle's steepest point lies sigma^2 / 2R
 * inside it, dome_measure.h) at the blur sigma: the fitted one (FIT) or
 * the caller's (STEPS; 0 for none).
 *
 * Ownership: reads img, keeps nothing; every output (fs_gap_pairs' list
 * too) is the caller's.
 */
#ifndef FS_GAP_READ_H
#define FS_GAP_READ_H

#include <stddef.h>

#include "image/image.h"

enum { FS_GAP_STEPS = 0, FS_GAP_FIT = 1 };

/*
 * The valley between domes A (ax, ay) and B (bx, by) on img (floats), read
 * by method with blur sigma (px; FS_GAP_STEPS only, the curvature's
 * correction; FIT reads its own): *ra and *rb the feet's distances from A's
 * and B's centres (px), *sig (may be NULL) the blur used. Returns 0; -1
 * when no valley is read (a line leaves the image, or no wall stands on
 * one side), the outputs then NAN.
 */
int fs_gap_feet(const fs_image *img, double ax, double ay, double bx, double by, int method, double sigma,
		double *ra, double *rb, double *sig);

/*
 * fs_gap_feet on img, a crop at (ox, oy) of a w x h image: the centres in
 * the whole image's pixels, a line leaving the w x h image unread; the
 * whole image's bits wherever the crop holds every sample's pixels (the
 * tiled dome rule, detect_domes_tiled.c).
 */
int fs_gap_feet_at(const fs_image *img, int ox, int oy, int w, int h, double ax, double ay, double bx, double by,
		   int method, double sigma, double *ra, double *rb, double *sig);

/*
 * Every dome's foot radius from the valleys to its neighbours: the domes
 * at (x[i], y[i]), i < n, whose centres lie within 1.25 pitch of each
 * other are neighbours, and r[i] is the mean of the feet read on i's side
 * of each valley (NAN where none read), nr[i] (may be NULL) how many.
 * With azimuth finite (radians, towards the detector, x right, y down)
 * only the feet whose outward direction lies within about 95 degrees of
 * it count (FS_GAP_LIT_COS): a foot facing away from a side detector has
 * no wall in the image (its dark flank and the floor's cast shadow are
 * one dark band), h47g. Returns 0, -1 on out of memory (r then all NAN).
 */
#define FS_GAP_LIT_COS (-0.1)
int fs_gap_radii(const fs_image *img, const double *x, const double *y, size_t n, double pitch, int method,
		 double sigma, double azimuth, double *r, int *nr);

/*
 * fs_gap_radii in its three parts, for a caller that reads the valleys
 * elsewhere (the tiled dome rule reads each on a tile's crop):
 * fs_gap_pairs lists the neighbours (i < j, both x and y finite, within
 * 1.25 pitch) in the order of a loop over i then j ascending, which is
 * the order the feet are summed in, so the radii are the same bits however
 * the valleys were read; found on a grid of cells a reach wide, not by
 * testing every pair. *out (NAN feet, read 0) is the caller's to free.
 * Returns 0 (*out NULL when none), -1 on out of memory.
 * The caller reads each pair's feet (fs_gap_feet or fs_gap_feet_at into
 * ra, rb; read 1 where it returned 0); fs_gap_gather then makes r and nr
 * (may be NULL) as fs_gap_radii does, with sum and cnt n slots of scratch.
 */
typedef struct fs_gap_pair {
	size_t i, j;
	double ra, rb; /* the feet's distances from i's and j's centres */
	int read;      /* 1: the valley was read (ra, rb set) */
} fs_gap_pair;
int fs_gap_pairs(const double *x, const double *y, size_t n, double pitch, fs_gap_pair **out, size_t *np);
void fs_gap_gather(const double *x, const double *y, size_t n, const fs_gap_pair *pr, size_t np, double azimuth,
		   double *sum, int *cnt, double *r, int *nr);

#endif
