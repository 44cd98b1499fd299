/*
 * clahe_region.h - CLAHE (fs_clahe, preprocess.h) over one rectangle of a
 * larger image, equal sample for sample to the whole image's: the tile grid
 * of the equalisation is the whole image's (tiles of `tile` px from its
 * origin, the last row and column clipped to it), so a tiled preprocessing
 * stitches without seams. fs_clahe is this on the whole image.
 *
 * Ownership: nothing is kept; the caller owns every buffer.
 */
#ifndef FS_CLAHE_REGION_H
#define FS_CLAHE_REGION_H

#include <stddef.h>

/*
 * The pixels [*a0, *a1) along one axis of an image n px long whose tiles
 * the output pixels [o, o + len) interpolate between (the tiles of the
 * neighbouring centres, whole): the input span fs_clahe_region needs.
 */
void fs_clahe_span(int o, int len, int tile, int n, int *a0, int *a1);

/* Histogram bins of every CLAHE, and the bin of a sample stretched to
 * [0, 1] (the same rounding in the whole-image and the region paths). */
#define FS_CLAHE_BINS 256
static inline int fs_clahe_bin(float v)
{
	int b = (int)(v * (FS_CLAHE_BINS - 1) + 0.5f);
	return b < 0 ? 0 : b > FS_CLAHE_BINS - 1 ? FS_CLAHE_BINS - 1 : b;
}

/*
 * One tile's look-up table (FS_CLAHE_BINS floats to lut) from hist, the
 * bins of its count pixels: clipped at clip * count (at least 1), the
 * excess spread evenly over the bins (the remainder to the first ones),
 * cumulated and divided by count. hist is changed. quot is the caller's
 * scratch of at least count + 1 floats and *qcount the count it was last
 * filled for (-1 at first): tiles of one size divide once, not per bin.
 */
void fs_clahe_tile_lut(int *hist, int count, double clip, float *quot, int *qcount, float *lut);

/*
 * The bilinear interpolation between the LUTs of the four nearest tile
 * centres, written once for fs_clahe and fs_clahe_region. Along one axis
 * of nt tiles: pixel x lies between the centres of tiles *a and *b
 * (clamped to the grid), *wb the weight of b.
 */
void fs_clahe_axis(int x, int tile, int nt, float *wb, int *a, int *b);
/* One output row o of n pixels of bins bin: between the LUT rows la (above)
 * and lb (below) with weight ay, along the row between the LUTs at
 * offsets coll[i] and colr[i] with weight colw[i]. */
static inline void fs_clahe_row(const unsigned char *bin, int n, const float *colw, const int *coll,
				const int *colr, const float *la, const float *lb, float ay, float *o)
{
	for (int i = 0; i < n; i++) {
		int b = bin[i];
		float ax = colw[i];
		float top = la[coll[i] + b] + ax * (la[colr[i] + b] - la[coll[i] + b]);
		float bot = lb[coll[i] + b] + ax * (lb[colr[i] + b] - lb[coll[i] + b]);
		o[i] = top + ay * (bot - top);
	}
}

/*
 * CLAHE of the output rectangle (ox, oy, ow, oh) of a W x H image with clip
 * and tile as fs_clahe, from `in`: the image's values already stretched
 * to [0, 1], a row-major crop of iw x ih px at (ix, iy) that covers
 * fs_clahe_span of the output on both axes. The result (before fs_clahe's
 * final stretch) goes to out (ow x oh, row-major; may be `in` when the two
 * rectangles are the same). clip must be > 0. Returns 0, or -1 (bad
 * arguments, out of memory) with a message.
 */
int fs_clahe_region(const float *in, int ix, int iy, int iw, int ih, int W, int H, double clip, int tile, int ox,
		    int oy, int ow, int oh, float *out, char *err, size_t errlen);

#endif
