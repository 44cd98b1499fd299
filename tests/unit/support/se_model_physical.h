/*
 * se_model_physical.h - two parts of the SE forward model (analysis/se_render.h)
 * made as the image formation makes them, for bench_formation_lm's
 * --model edgepx / shadowx / both (issue 13, docs/paper-figures.md h40b).
 *
 * Why: h39j found se_render's model misfits the simulator's images by
 * 2-8x the noise unscreened. Two of its parts are not what an SE image
 * forms:
 *  - edge brightening comes from electrons escaping a convex rim within
 *    their escape depth, a physical length: the brightening saturates at
 *    a fixed curvature in image pixels, whatever the lattice's pitch.
 *    se_render clips its convexity per grid unit (a pitch-16 image's
 *    pixel, a pitch-64 image's 3.2 px). Here the Laplacian is taken in
 *    image px^-1 and clipped to [0, cap_px] at each subsample, before the
 *    pixel's average (the clip of a mean is not the mean of the clips).
 *  - a blocked path to the detector removes part of every electron the
 *    point sends there, so the shadow multiplies the whole signal
 *    (constant, yield and the detector's slope terms alike); se_render
 *    has one shadow part, blocked x yield. With the signal's weights
 *    linear that product is four parts, blocked x each of constant,
 *    yield, slope x and slope y: the three beside se_render's own
 *    FS_SE_SHADOW are made here.
 * The geometry (lattice, profile, heights, the blocked test) is
 * se_render's, so that a change in misfit is these two terms' alone.
 *
 * Ownership: the caller owns every array.
 */
#ifndef SE_MODEL_PHYSICAL_H
#define SE_MODEL_PHYSICAL_H

#include "analysis/se_render.h"

/* The shadow's parts beyond FS_SE_SHADOW (blocked x yield). */
enum { SEX_BLOCKED, SEX_BLOCKED_SLOPE_X, SEX_BLOCKED_SLOPE_Y, SEX_N };

/*
 * Edge brightening of geometry m on fs_se_render's grid (g samples a
 * pitch, a window of half width half samples around the site at the
 * origin): out ((2 half + 1)^2) gets, per sample, the mean over its 2 x 2
 * subsamples of clip(-Laplacian of the height, 0, cap_px), the Laplacian
 * in image px^-1 (px_per_sample: the image's pixels per grid sample,
 * pitch_px / g). Returns 0, -1 on bad arguments.
 */
int se_phys_edge_px(const fs_se_geom *m, int g, int half, double px_per_sample, double cap_px, float *out);

/*
 * The shadow as a product: from field f after fs_se_render and
 * fs_se_shadow, out[SEX_BLOCKED] = 1 where the path is blocked, and the
 * slope parts times it (each (2 f->half + 1)^2).
 */
void se_phys_shadow_parts(const fs_se_field *f, float *const out[SEX_N]);

#endif
