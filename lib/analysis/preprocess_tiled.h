/*
 * preprocess_tiled.h - the filters of the preprocessing that read a
 * neighbourhood, run tile by tile with overlaps (issue 15), so their
 * temporaries depend on the tile size, not on the image.
 *
 * The detection's preprocessing (fs_det_preprocess, detect_candidates.h) is
 * top-hat, CLAHE, blur, normalisation. Of those only the top-hat needs
 * full-size temporaries when run on a whole image (three float images: the
 * erosion, the opening, the disk's runs); CLAHE (fs_clahe) and the blur
 * (fs_gaussian_blur) run in place row by row with temporaries of a few rows,
 * and the image-wide quantities (the stretches' minima and maxima, CLAHE's
 * LUTs on the image's own tile grid) are taken from the output itself, so
 * they are exactly the whole-image path's.
 *
 * Ownership: src stays the caller's and is not changed; dst is the
 * caller's, written in full.
 */
#ifndef FS_PREPROCESS_TILED_H
#define FS_PREPROCESS_TILED_H

#include <stddef.h>

#include "image/image.h"

/*
 * dst = white top-hat of src (fs_white_tophat's result, to the last bit) by
 * a disk of the given radius, computed on square tiles of side tile (>= 16;
 * smaller values are raised) each cropped from src with an overlap of
 * twice the radius (an erosion, then a dilation, each reading radius px
 * away). src may be compact (image.h: only each crop is converted to
 * floats); dst is a float image of src's size. radius 0 copies src.
 * threads: tiles computed at once (1..8). Returns 0, or -1 (bad arguments,
 * out of memory) with a message.
 */
int fs_white_tophat_tiled(const fs_image *src, fs_image *dst, int radius, int tile, int threads, char *err,
			  size_t errlen);

/*
 * The white top-hat of src over the rectangle (x, y, w, h) (inside src)
 * into out (h rows of w floats, stride floats apart; the caller's), from a
 * crop of src widened by twice the radius: fs_white_tophat's values there
 * to the last bit. src may be compact; radius 0 copies. The one piece that
 * the tiled top-hat above and the region preprocessing
 * (detect_pre_region.h) share. Returns 0, or -1 with a message.
 */
int fs_white_tophat_rect(const fs_image *src, int radius, int x, int y, int w, int h, float *out, size_t stride,
			 char *err, size_t errlen);

#endif
