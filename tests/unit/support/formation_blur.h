/*
 * formation_blur.h - the blur at which a fitted formation's templates
 * read an image's mean patch best: the benches' reading of the image's
 * blur from the domes themselves (bench_level_small --blur-read, h42l;
 * bench_screened_blur_read, h43e), and the templates' misfit
 * bench_common_shift's joint search scores (h43a).
 *
 * Ownership: every array is the caller's; nothing is kept between calls.
 */
#ifndef FORMATION_BLUR_H
#define FORMATION_BLUR_H

#include <stddef.h>

#include "analysis/dome_base_fit.h"
#include "image/image.h"

/* The mean patch's residual share against t's best template (its own
 * gain and offset), over the fills: how well formation and blur read
 * it. */
double formation_tpl_misfit(const fs_dome_tpl *t);

/* The misfit of f0's templates at blur bl (px) about (xs, ys) on img's
 * mean patch (formation_tpl_misfit); INFINITY where no templates are
 * made. */
double formation_blur_misfit(const fs_image *img, const fs_dome_fit *f0, double bl, const double *xs,
			     const double *ys, size_t n, double fill);

/* The blur (px) at which f0's templates about (xs, ys) read img's mean
 * patch best, f0's geometry and detector held: searched lo..hi in 0.04
 * steps and then in 0.01 steps about the best; *mis gets the best
 * residual share. NAN when no blur makes templates. */
double formation_blur_fine(const fs_image *img, const fs_dome_fit *f0, const double *xs, const double *ys, size_t n,
			   double fill, double lo, double hi, double *mis);

#endif
