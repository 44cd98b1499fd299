/*
 * detect_tiled.h - streaming, tiled measurement for the detection (issue
 * 15): the candidates found on the reduced image are measured tile by tile,
 * each tile's measurement image (top-hat + light blur, as
 * fs_detect_measure_image) made from the input image cropped around the
 * tile's candidates with an overlap wide enough for the blur and the rays,
 * so no full-size measurement image is ever allocated: the peak memory of
 * the measurement depends on the tile size, not the image. Tiles may run in
 * several threads (pthreads); each writes only its own candidates' results.
 *
 * The overlap makes the tiled measurement image equal, sample for sample,
 * to the whole-image one wherever a ray reads it (the separable blur sums
 * each output in the same order whatever the crop), so the tiled path gives
 * the same tubercles as the whole-image path; only the rays' float
 * coordinates are relative to the crop, which moves a centre by far less
 * than 0.01 px.
 *
 * The setting (fs_detect_set_tiling, detect.h) is process-wide.
 *
 * Ownership: nothing is kept; the results go into the caller's arrays.
 */
#ifndef FS_DETECT_TILED_H
#define FS_DETECT_TILED_H

#include "analysis/detect_measure.h"

/*
 * Measures candidate i of c into res[i] (ok 0 when no blob is measurable)
 * on tiles of m->src (see fs_meas; float or compact, image.h: only each
 * crop is converted to floats): m->img is NULL. Coordinates as in
 * fs_det_measure (candidates in input pixels, results in m's pixels).
 * max_r: as fs_det_measure. Returns 0, or -1 (out of memory, err set).
 */
int fs_det_measure_tiled(const fs_meas *m, const fs_cand_list *c, double max_r, fs_measured *res, char *err,
			 size_t errlen);

#endif
