/*
 * detect_domes_tiled.h - the dome rule's measurement tile by tile (issues
 * 15 and 13): the candidates' bases measured (dome_measure.h) on crops of
 * the measurement image made from the input around each tile's candidates,
 * so no full-size float image or measurement image is ever allocated; the
 * peak memory of the measurement depends on the tile size, not the image.
 *
 * The whole-image measurement (fs_det_measure with m->img) has three
 * stages, two of them image-wide estimates made once:
 * - the rays' smoothing, chosen from the first FS_DET_SMOOTH_CANDIDATES
 *   candidates (detect_measure.h): here each is measured on a crop around
 *   it;
 * - every candidate's centre refined and its base measured
 *   (fs_det_measure_dome_one): here on its tile's crop, tiles in
 *   m->threads threads, each writing only its own candidates' results;
 * - the domes' common offset from the formation fit (detect_offset.h),
 *   which reads up to 64 patches: here the halftone period is found on the
 *   same centre crop of the measurement image the fit would search, the
 *   patches it reads are copied into a mosaic (dome_fit.h patch_ox) and
 *   the fit runs on that; then the domes are measured again from their
 *   centre plus the offset, tile by tile;
 * - each dome's size from its whole patch through that formation, at the
 *   base rule's level (detect_base_fit.h): the templates built on a
 *   mosaic of the patches their mean reads, every dome fitted on its
 *   tile's crop (low-passed like the whole image when it holds a halftone
 *   screen), the level from all of them at once; under a tight screen
 *   the level from the valleys between neighbours (detect_base_gap.h),
 *   each valley read on the crop of the tile its midpoint lies in.
 *
 * Why the results are the whole image's: a crop's measurement image equals
 * the whole one, sample for sample, at least the filters' reach inside the
 * crop (the top-hat and the separable blur sum each output in the same
 * order whatever the crop; both replicate the same edge where the crop
 * meets the image's border), and each crop is widened around its
 * candidates by the reach of everything that reads it: the centre
 * refinement's shift and rays, the base's rays (1.3 x the largest radius
 * plus the ray smoothing) from where its first pass ends, twice. Only the
 * rays' float coordinates are relative to the crop (a centre moves by
 * less than 1e-9 px). A candidate whose measurement ended further from its
 * start than that reach allows for is measured again on a crop wide
 * enough for its path.
 *
 * fs_det_domes_set_overlap_scale scales every overlap (1, the default:
 * the reach above; below 1 the retry of strayed candidates is off too):
 * for the test that shows the overlap matters (a scale well below 1 must
 * change results). Process-wide, like the tiling setting; not for
 * production use.
 *
 * Ownership: nothing is kept; the results go into the caller's array.
 */
#ifndef FS_DETECT_DOMES_TILED_H
#define FS_DETECT_DOMES_TILED_H

#include "analysis/detect_measure.h"

/*
 * The dome rule's measurement of candidate i of c into res[i] (as
 * fs_det_measure's whole-image loop, the smoothing choice and the offset
 * correction leave it) on tiles of m->src (float or compact, image.h):
 * m->img NULL, m->dome 1, m->f 1, m->mp and m->sigma the measurement
 * image's top-hat and blur, m->tile its tile side (0: one tile) and
 * m->threads. max_r: as fs_det_measure. With m->given the steps of
 * fs_det_measure_domes_at (detect_measure.h) instead, and its returns.
 * Returns 0, or -1 (out of memory, err set).
 */
int fs_det_measure_domes_tiled(const fs_meas *m, const fs_cand_list *c, double max_r, fs_measured *res, char *err,
			       size_t errlen);

void fs_det_domes_set_overlap_scale(double scale);

#endif
