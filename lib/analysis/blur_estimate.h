/*
 * blur_estimate.h - the effective blur of an image (sigma of the Gaussian
 * that, applied to ideal steps, gives its edges), estimated once per image
 * from its strongest edges, for the dome-base rule's blur correction
 * (dome_measure.h, issue 13).
 *
 * Why: beam blur, scan blur, a halftone's low-pass and the measurement's
 * own smoothing all move the steepest point of a small dome's base inwards
 * (the blurred edge of a disk of radius R peaks at about R - sigma^2 / 2R);
 * the correction needs sigma, and it differs per image.
 *
 * Method (the two-scale gradient ratio): the image is blurred again by
 * s1 = 1 and s2 = 2 px. A step of any height blurred by sigma has the peak
 * gradient A g(sqrt(sigma^2 + s^2)) at scale s (g: the central difference
 * of a Gaussian edge), so the ratio of the two peaks at one edge gives
 * sigma without knowing A. Edges: pixels where the coarse gradient is a
 * local maximum across the edge, the strongest 10 % of them (at least 16);
 * each peak is interpolated through the logarithm of three samples across
 * the edge (exact for a Gaussian profile); sigma from the median ratio.
 * On images larger than 512 x 512 px the central 512 x 512 px tell (the
 * cost: 175 ms CPU over a whole 2048 x 1536 image, three times the outline
 * rule's detection; fs_dome_image_calibrate, which reads the blur from the
 * dome bases themselves, replaces the value where it can).
 *
 * The caller owns img; nothing is kept.
 */
#ifndef FS_BLUR_ESTIMATE_H
#define FS_BLUR_ESTIMATE_H

#include <stddef.h>

#include "image/image.h"

/*
 * The effective blur sigma of img in px (*sigma, 0 for a perfectly sharp
 * step, capped at 8). Returns 0; 1 when the image has too few edges to
 * tell (*sigma then 0); -1 on out of memory or an image under 8 x 8.
 */
int fs_blur_estimate(const fs_image *img, double *sigma);

#endif
