/*
 * dome_candidates.h - the dome rule's candidates of a whole image as
 * detect.c votes them, for the tests and benches that read the
 * candidates themselves (where they sit before the measurement moves
 * them: bench_cand_offsets, bench_centre_steps, test_detect_walk),
 * written once (h47h) so the copies cannot drift from one another.
 *
 * detect.c's whole-image path: on the image reduced by f = pitch / 10
 * (block means) where the pitch is 20 px or more, at full resolution
 * below, with the pixel-sized parameters scaled by f as detect.c scales
 * them (the tile 3 pitches, the blur, the top-hat radius);
 * fs_det_preprocess, then fs_detect_auto_candidates with the dome rule's
 * votes. Not detect.c's tiled candidate step (large images), which the
 * scenes here never reach.
 *
 * Ownership: *out is the caller's (fs_cand_free); img and p are read.
 */
#ifndef DOME_CANDIDATES_H
#define DOME_CANDIDATES_H

#include <stddef.h>

#include "analysis/detect_candidates.h"
#include "analysis/params.h"
#include "image/image.h"

/* The candidates of img (pitch: the lattice's, px) under the parameters
 * p into *out, the reduction into *f_out (may be NULL); force_f > 0
 * reduces by force_f instead of pitch / 10. 0, or -1 with err set. */
int dome_candidates(const fs_image *img, const fs_params *p, double pitch, int force_f, fs_cand_list *out,
		    int *f_out, char *err, size_t errlen);

#endif
