/*
 * detect_pre_region.h - the detection's preprocessing (fs_det_preprocess,
 * detect_candidates.h: top-hat, CLAHE, blur, stretch) one rectangle at a
 * time, equal sample for sample to the whole image's, for the methods that
 * detect tile by tile (log, dog, ellipse; issue 15).
 *
 * The whole-image preprocessing stretches to [0, 1] three times by the
 * image's own extremes (before CLAHE, after it, after the blur). A plan
 * finds those extremes once, in streaming passes over tiles of the input
 * (each pass reads the input a tile plus its filters' overlap at a time),
 * and fs_pre_region then applies them to any rectangle: its crop is
 * widened by the blur's kernel radius, aligned to CLAHE's tile grid (the
 * whole image's) and widened by twice the top-hat's radius, so inside the
 * rectangle every filter reads exactly the samples it reads on the whole
 * image. The memory needed depends on the rectangle, not on the image.
 *
 * Ownership: the plan keeps a pointer to img and a copy of the parameters;
 * img must outlive it (nothing to free). fs_pre_region returns a new image
 * the caller frees.
 */
#ifndef FS_DETECT_PRE_REGION_H
#define FS_DETECT_PRE_REGION_H

#include <stddef.h>

#include "image/image.h"
#include "analysis/params.h"

typedef struct fs_pre_plan {
	const fs_image *img; /* float or compact (image.h): read a crop at a time */
	fs_params p;
	int clahe_tile;
	float lo[3], hi[3]; /* the extremes before CLAHE, after it, after the blur */
} fs_pre_plan;

/*
 * Makes the plan of fs_det_preprocess(img, p, clahe_tile) with passes over
 * tiles of tile_px (>= 16) in `threads` threads (base/tile_pool.h; the
 * extremes are the same whatever the threads). Returns 0, or -1 with a
 * message (out of memory, bad parameters).
 */
int fs_pre_plan_make(fs_pre_plan *pl, const fs_image *img, const fs_params *p, int clahe_tile, int tile_px,
		     int threads, char *err, size_t errlen);

/* The preprocessed image over the rectangle (x, y, w, h) of the input
 * (inside it), new; NULL with a message on error. */
fs_image *fs_pre_region(const fs_pre_plan *pl, int x, int y, int w, int h, char *err, size_t errlen);

#endif
