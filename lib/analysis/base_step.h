/*
 * base_step.h - whether a base reading of the dome rule lies on a step of
 * the image: the rays' summed radial step at the reading's radius against
 * its median over the reading's window (issue 13, h36g).
 *
 * Why: the base rule (dome_measure.h) puts a dome's base where the
 * summed step of 32 rays about its centre is strongest, on the premise
 * that a dome's slope, and with it the SE signal's step, is steepest at
 * its base. On P1 Fig1's low, smooth-footed domes (Lepidotes, h34g) the
 * summed step is nearly flat over the window and the rule's readings go
 * to the window's ceiling (the flat ground and saddles towards the
 * neighbours) or its floor (a bright fleck on the dome): 7-40 px for
 * domes of 42-49 px. A reading in the flat ground lies where the image
 * has no step at all, which this measures. At the readings the level
 * uses (docs/paper-figures.md, section h36g): P1 Fig1 14 of 21 readings
 * below 1.5 x the window's median (0.7-1.3 at the ceiling readings),
 * P1 Fig2's tall caps 2 of 41 (its caps' readings 2-12 x). On the
 * simulator (test_base_step.c) the true bases of low caps read 2-6 x,
 * and the flat ground beyond a base 0.6-1.2 x whether the foot is sharp
 * or smooth.
 *
 * The profile: 32 rays from (x, y), samples every half pixel, each the
 * mean of five bilinear samples (the point and four at 0.7 px about it:
 * a light blur against a printed screen's dots and noise), the step the
 * central difference over one pixel; the value at the reading is the
 * largest of the three samples nearest its radius.
 *
 * img is a float image (its data) whose pixel (0, 0) is the full image's
 * (ox, oy), of a full image w x h px: a tile's crop reads what the whole
 * image reads (positions are clamped to the full image, and the crop must
 * hold every sample: FS_BASE_STEP_REACH beyond r1). The caller owns img;
 * nothing is kept.
 */
#ifndef FS_BASE_STEP_H
#define FS_BASE_STEP_H

#include "image/image.h"

/* Below this ratio the reading is on no step (h36g's measurements: P1
 * Fig1's ceiling readings 0.7-1.3, its bright flecks 3-5, P1 Fig2's caps
 * 2-12). */
#define FS_BASE_STEP_MIN 1.5

/* px the samples reach beyond max(r, r1) (the profile's extra pixel, the
 * difference's half pixel, the blur's 0.7 px and a pixel for bilinear
 * sampling, rounded up) */
#define FS_BASE_STEP_REACH 4

/*
 * The summed step at radius r about (x, y) (full-image px) over its median
 * across [r0, r1]; NAN when the window holds fewer than three samples, r
 * is not positive or the median is 0.
 */
double fs_base_step_contrast(const fs_image *img, int ox, int oy, int w, int h, double x, double y, double r,
			     double r0, double r1);

#endif
