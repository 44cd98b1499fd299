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
 *    pixel, a pitch-64 image's 3.2 px). fs_se_edge_px (se_render.h; made
 *    here at h40b, in lib/ since h44l, where fs_blur_fine uses it) takes
 *    the Laplacian in image px^-1 and clips it to [0, cap_px] at each
 *    subsample, before the pixel's average (the clip of a mean is not
 *    the mean of the clips).
 *  - a blocked path to the detector removes part of every electron the
 *    point sends there, so the shadow multiplies the whole signal
 *    (constant, yield and the detector's slope terms alike); se_render
 *    has one shadow part, blocked x yield. With the signal's weights
 *    linear that product is four parts, blocked x each of constant,
 *    yield, slope x and slope y: the three beside se_render's own
 *    FS_SE_SHADOW are made here.
 * The geometry (lattice, profile, heights, the blocked test) is
 * se_render's, so that a change in misfit is these two terms' alone;
 * the shadow's three parts are made here.
 *
 * Ownership: the caller owns every array.
 */
#ifndef SE_MODEL_PHYSICAL_H
#define SE_MODEL_PHYSICAL_H

#include "analysis/se_render.h"

/* The shadow's parts beyond FS_SE_SHADOW (blocked x yield). */
enum { SEX_BLOCKED, SEX_BLOCKED_SLOPE_X, SEX_BLOCKED_SLOPE_Y, SEX_N };

/*
 * The shadow as a product: from field f after fs_se_render and
 * fs_se_shadow, out[SEX_BLOCKED] = 1 where the path is blocked, and the
 * slope parts times it (each (2 f->half + 1)^2).
 */
void se_phys_shadow_parts(const fs_se_field *f, float *const out[SEX_N]);

#endif
