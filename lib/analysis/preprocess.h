/*
 * preprocess.h - image conditioning before detection: CLAHE, separable
 * Gaussian blur, box blur, white top-hat, min-max normalisation.
 *
 * All functions work in place on a caller-owned fs_image (values in [0, 1])
 * and keep its size; temporary buffers are theirs and freed before return.
 *
 * Border policy (all filters): samples outside the image are the nearest
 * edge sample (replicate), so a constant image stays constant.
 */
#ifndef FS_PREPROCESS_H
#define FS_PREPROCESS_H

#include <stddef.h>

#include "image/image.h"

/*
 * Gaussian blur with a kernel truncated at radius int(4 sigma + 0.5) and
 * normalised to sum 1, applied along x then y. sigma 0 leaves img as it is.
 * Returns 0, or -1 (sigma < 0 or not finite, out of memory) with a message.
 */
int fs_gaussian_blur(fs_image *img, double sigma, char *err, size_t errlen);
/* fs_gaussian_blur of img in place where the rectangle [x0, x1) x [y0, y1)
 * is concerned: its pixels get fs_gaussian_blur's values to the bit, the
 * rest of img is left undefined (what a caller that reads only the
 * rectangle need not pay for: the dome rule's vote layers). Returns 0, or
 * -1 (a rectangle not inside img, sigma as above, out of memory) with a
 * message. */
int fs_gaussian_blur_rect(fs_image *img, double sigma, int x0, int y0, int x1, int y1, char *err, size_t errlen);
/* That kernel's radius in px (at least 1): how far a blurred sample reads,
 * the overlap the tiled passes give a crop for each blur. */
int fs_gaussian_radius(double sigma);
/* The same into a new float image (caller frees), src unchanged: saves the
 * copy a clone followed by fs_gaussian_blur makes. src may be compact
 * (read a row at a time, the values of its float copy). NULL on error (err
 * set). */
fs_image *fs_gaussian_blurred(const fs_image *src, double sigma, char *err, size_t errlen);
/* The same of the region (x0, y0, w, h) of src, which must lie inside it,
 * its edges replicated: fs_gaussian_blurred of fs_image_region_float's
 * copy of the region, to the bit, without that copy (the tiled
 * measurement's crops, detect_tiled.c). */
fs_image *fs_gaussian_blurred_region(const fs_image *src, int x0, int y0, int w, int h, double sigma, char *err,
				     size_t errlen);
/* fs_gaussian_blur of a float image in up to `threads` threads (bands of
 * rows through base/tile_pool.h, the rows around each band's edges saved
 * first): the same image to the bit whatever the count. */
int fs_gaussian_blur_threads(fs_image *img, double sigma, int threads, char *err, size_t errlen);

/* Mean over a (2r+1) x (2r+1) box; r 0 leaves img unchanged. O(1) per pixel. */
int fs_box_blur(fs_image *img, int r, char *err, size_t errlen);

/*
 * Contrast-limited adaptive histogram equalisation with the original's
 * parameters: clip in (0, 1] (fraction of a tile's pixel count, as skimage:
 * clip limit per bin = max(1, clip * tile^2) counts, 256 bins), tile = tile
 * side in pixels (>= 2). LUTs are interpolated bilinearly between tile
 * centres; the result is min-max stretched to [0, 1]. clip 0 = off.
 * Runs in place row by row: its temporaries are two rows of tiles' LUTs and
 * a few rows of samples, whatever the image's height (issue 15).
 */
int fs_clahe(fs_image *img, double clip, int tile, char *err, size_t errlen);
/* The same in up to `threads` threads (base/tile_pool.h): every tile's LUT
 * first (at most 64 MB of them, else fs_clahe itself), then bands of rows;
 * the same image to the bit whatever the count. */
int fs_clahe_threads(fs_image *img, double clip, int tile, int threads, char *err, size_t errlen);

/*
 * White top-hat: img minus its grey opening by a flat disk of the given
 * radius ({dx^2 + dy^2 <= r^2}); removes structures wider than the disk
 * (uneven illumination). radius 0 = off.
 */
int fs_white_tophat(fs_image *img, int radius, char *err, size_t errlen);

/* Block-mean reduction by an integer factor f >= 1 (a partial last block
 * averages what it has). Returns a new float image (caller frees), NULL on
 * out of memory or bad f. img may be compact (image.h): read a row at a
 * time, with the same sums as from its float copy. */
fs_image *fs_downsample(const fs_image *img, int f);
/* The same in up to `threads` threads (bands of output rows through
 * base/tile_pool.h): the same image to the bit whatever the count. */
fs_image *fs_downsample_threads(const fs_image *img, int f, int threads);

/* Affine stretch to [0, 1]; an image with max - min < 1e-10 becomes all 0. */
void fs_normalize(fs_image *img);
/* The two halves of fs_normalize, for a stretch by image-wide extremes
 * applied to one tile at a time (detect_pre_region.h): the least and
 * greatest sample, and the stretch that maps lo..hi to 0..1 with the same
 * float operations as fs_normalize. */
void fs_minmax(const fs_image *img, float *lo, float *hi);
void fs_normalize_range(fs_image *img, float lo, float hi);
/* fs_normalize with the stretch in up to `threads` threads (chunks of
 * samples): the same image to the bit. */
void fs_normalize_threads(fs_image *img, int threads);

#endif
