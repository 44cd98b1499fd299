/*
 * preprocess_tiled.c - the top-hat tile by tile (see preprocess_tiled.h).
 *
 * Why the overlap is 2 radius: the opening at a pixel is the maximum of the
 * erosion over the disk around it, and the erosion at each of those pixels
 * the minimum of the input over the disk around that one, so an output
 * pixel reads input up to 2 radius away. The filters clip the disk to the
 * image (outside samples take no part), and a crop is clipped only where
 * the image is, so inside the overlap a crop's filters see the samples the
 * whole image's would; minima and maxima do not depend on the order they
 * are taken in, hence the same bits.
 */
#include "analysis/preprocess_tiled.h"

#include <stdio.h>
#include <string.h>

#include "analysis/preprocess.h"
#include "base/tile_pool.h"

struct tophat_job {
	const fs_image *src;
	fs_image *dst;
	int radius, tile, ntx;
};

int fs_white_tophat_rect(const fs_image *src, int radius, int x, int y, int w, int h, float *out, size_t stride,
			 char *err, size_t errlen)
{
	int M = 2 * radius;
	int cx0 = x - M > 0 ? x - M : 0, cy0 = y - M > 0 ? y - M : 0;
	int cx1 = x + w + M < src->width ? x + w + M : src->width;
	int cy1 = y + h + M < src->height ? y + h + M : src->height;
	fs_image *crop = fs_image_region_float(src, cx0, cy0, cx1 - cx0, cy1 - cy0);
	if (!crop) {
		snprintf(err, errlen, "top-hat: out of memory");
		return -1;
	}
	if (fs_white_tophat(crop, radius, err, errlen)) {
		fs_image_free(crop);
		return -1;
	}
	for (int r = 0; r < h; r++)
		memcpy(out + (size_t)r * stride, crop->data + (size_t)(r + y - cy0) * crop->width + (x - cx0),
		       (size_t)w * sizeof *out);
	fs_image_free(crop);
	return 0;
}

/* Tile k of the job into dst's rows and columns of that tile (the pool's
 * work: tiles write disjoint pixels, no merge needed). 0 or -1. */
static int tophat_tile(size_t k, void *arg, char *err, size_t errlen)
{
	struct tophat_job *j = arg;
	const fs_image *src = j->src;
	int T = j->tile;
	int x0 = (int)(k % j->ntx) * T, y0 = (int)(k / j->ntx) * T;
	int x1 = x0 + T < src->width ? x0 + T : src->width;
	int y1 = y0 + T < src->height ? y0 + T : src->height;
	return fs_white_tophat_rect(src, j->radius, x0, y0, x1 - x0, y1 - y0, j->dst->data + (size_t)y0 * src->width + x0,
				    (size_t)src->width, err, errlen);
}

int fs_white_tophat_tiled(const fs_image *src, fs_image *dst, int radius, int tile, int threads, char *err,
			  size_t errlen)
{
	if (!src || !dst || !dst->data || dst->width != src->width || dst->height != src->height || radius < 0) {
		snprintf(err, errlen, "top-hat: bad image or radius");
		return -1;
	}
	int w = src->width, h = src->height;
	if (radius == 0) {
		/* the conversion, a row at a time (src may be compact) */
		for (int y = 0; y < h; y++) {
			float *o = dst->data + (size_t)y * w;
			const float *r = fs_image_span(src, 0, y, w, o);
			if (r != o)
				memcpy(o, r, (size_t)w * sizeof *o);
		}
		return 0;
	}
	struct tophat_job j;
	memset(&j, 0, sizeof j);
	j.src = src;
	j.dst = dst;
	j.radius = radius;
	j.tile = tile < 16 ? 16 : tile;
	j.ntx = (w + j.tile - 1) / j.tile;
	int nty = (h + j.tile - 1) / j.tile;
	return fs_tile_pool_run((size_t)j.ntx * nty, threads, tophat_tile, NULL, &j, err, errlen);
}
