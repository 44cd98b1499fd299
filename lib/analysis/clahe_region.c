/*
 * clahe_region.c - CLAHE over one rectangle with the whole image's tile
 * grid (see clahe_region.h).
 *
 * Every quantity is computed from global coordinates exactly as on the
 * whole image: the bins from the stretched values, each tile's clipped
 * histogram from its own pixels (its size clipped to the image, not to the
 * crop), the interpolation weights from the pixel's image position. Only
 * the tiles the output needs are equalised, so a crop costs what its area
 * costs.
 */
#include "analysis/clahe_region.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The tile (clamped to the grid) whose centre is at or left of pixel x. */
static int tile_left(int x, int tile, int nt)
{
	return clampi((int)floor((x + 0.5) / tile - 0.5), 0, nt - 1);
}

void fs_clahe_tile_lut(int *hist, int count, double clip, float *quot, int *qcount, float *lut)
{
	int limit = (int)(clip * count);
	if (limit < 1)
		limit = 1;
	long excess = 0;
	for (int b = 0; b < FS_CLAHE_BINS; b++) {
		if (hist[b] > limit) {
			excess += hist[b] - limit;
			hist[b] = limit;
		}
	}
	/* Redistribute the excess evenly (the remainder to the first bins),
	 * which keeps the LUT monotone and the total count unchanged. */
	long add = excess / FS_CLAHE_BINS, rem = excess % FS_CLAHE_BINS;
	/* cum never exceeds count (the excess is only moved): the count + 1
	 * quotients are the same floats as a division per bin */
	if (count != *qcount) {
		for (int c = 0; c <= count; c++)
			quot[c] = (float)c / (float)count;
		*qcount = count;
	}
	long cum = 0;
	for (int b = 0; b < FS_CLAHE_BINS; b++) {
		cum += hist[b] + add + (b < rem);
		lut[b] = quot[cum];
	}
}

void fs_clahe_span(int o, int len, int tile, int n, int *a0, int *a1)
{
	int nt = (n + tile - 1) / tile;
	int t0 = tile_left(o, tile, nt), t1 = clampi(tile_left(o + len - 1, tile, nt) + 1, 0, nt - 1);
	*a0 = t0 * tile;
	*a1 = (t1 + 1) * tile < n ? (t1 + 1) * tile : n;
}

void fs_clahe_axis(int x, int tile, int nt, float *wb, int *a, int *b)
{
	double f = (x + 0.5) / tile - 0.5;
	int t = (int)floor(f);
	*wb = (float)(f - t);
	*a = clampi(t, 0, nt - 1);
	*b = clampi(t + 1, 0, nt - 1);
}

int fs_clahe_region(const float *in, int ix, int iy, int iw, int ih, int W, int H, double clip, int tile, int ox,
		    int oy, int ow, int oh, float *out, char *err, size_t errlen)
{
	int rc = -1;
	float *lut = NULL, *colw = NULL, *quot = NULL;
	int *coll = NULL, *colr = NULL, qcount = -1;
	unsigned char *bin = NULL;
	int sx0, sx1, sy0, sy1;
	if (!(clip > 0) || tile < 2 || ow < 1 || oh < 1) {
		snprintf(err, errlen, "clahe: bad region");
		return -1;
	}
	fs_clahe_span(ox, ow, tile, W, &sx0, &sx1);
	fs_clahe_span(oy, oh, tile, H, &sy0, &sy1);
	if (sx0 < ix || sy0 < iy || sx1 > ix + iw || sy1 > iy + ih) {
		snprintf(err, errlen, "clahe: the input does not cover the tiles of the output");
		return -1;
	}
	int ntx = (W + tile - 1) / tile, nty = (H + tile - 1) / tile;
	int tx0 = sx0 / tile, ty0 = sy0 / tile; /* the first tile held */
	int mtx = (sx1 - sx0 + tile - 1) / tile, mty = (sy1 - sy0 + tile - 1) / tile;
	size_t n = (size_t)iw * ih;
	lut = malloc((size_t)mtx * mty * FS_CLAHE_BINS * sizeof *lut);
	bin = malloc(n);
	colw = malloc((size_t)ow * sizeof *colw);
	coll = malloc((size_t)ow * sizeof *coll);
	colr = malloc((size_t)ow * sizeof *colr);
	if (!lut || !bin || !colw || !coll || !colr) {
		snprintf(err, errlen, "clahe: out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		bin[i] = (unsigned char)fs_clahe_bin(in[i]);
	/* a tile holds at most tile^2 pixels (fewer at the image's edges) */
	quot = malloc(((size_t)tile * tile + 1) * sizeof *quot);
	if (!quot) {
		snprintf(err, errlen, "clahe: out of memory");
		goto out;
	}
	for (int ty = 0; ty < mty; ty++) {
		for (int tx = 0; tx < mtx; tx++) {
			int hist[FS_CLAHE_BINS] = {0};
			int y0 = (ty0 + ty) * tile, y1 = y0 + tile < H ? y0 + tile : H;
			int x0 = (tx0 + tx) * tile, x1 = x0 + tile < W ? x0 + tile : W;
			int count = (y1 - y0) * (x1 - x0);
			for (int y = y0; y < y1; y++)
				for (int x = x0; x < x1; x++)
					hist[bin[(size_t)(y - iy) * iw + (x - ix)]]++;
			fs_clahe_tile_lut(hist, count, clip, quot, &qcount,
					  lut + ((size_t)ty * mtx + tx) * FS_CLAHE_BINS);
		}
	}
	/* the column terms are the same on every row */
	for (int i = 0; i < ow; i++) {
		int a, b;
		fs_clahe_axis(ox + i, tile, ntx, &colw[i], &a, &b);
		coll[i] = (a - tx0) * FS_CLAHE_BINS;
		colr[i] = (b - tx0) * FS_CLAHE_BINS;
	}
	for (int j = 0; j < oh; j++) {
		int y = oy + j, a, b;
		float ay;
		fs_clahe_axis(y, tile, nty, &ay, &a, &b);
		const float *la = lut + (size_t)(a - ty0) * mtx * FS_CLAHE_BINS;
		const float *lb = lut + (size_t)(b - ty0) * mtx * FS_CLAHE_BINS;
		fs_clahe_row(bin + (size_t)(y - iy) * iw + (ox - ix), ow, colw, coll, colr, la, lb, ay,
			     out + (size_t)j * ow);
	}
	rc = 0;
out:
	free(quot);
	free(lut);
	free(bin);
	free(colw);
	free(coll);
	free(colr);
	return rc;
}
