/*
 * image_scale.c - area-averaging downscale for thumbnails and display copies.
 *
 * Each output pixel is the mean of the source area it covers, with partial
 * source pixels weighted by their overlap. The box filter is separable: a
 * horizontal pass (w x h -> nw x h), then a vertical one (-> nw x nh) that
 * walks whole rows so memory is read in order. Sums are kept in double.
 */
#include "image/image_io.h"

#include <math.h>
#include <stdlib.h>

/* Overlap of source cell [i, i+1) with output cell [a, b). */
static double overlap(int i, double a, double b)
{
	double lo = i > a ? i : a;
	double hi = i + 1 < b ? i + 1 : b;
	return hi > lo ? hi - lo : 0.0;
}

static void horizontal(const float *src, float *dst, int w, int h, int nw)
{
	double ratio = (double)w / nw;
	for (int y = 0; y < h; y++) {
		const float *s = src + (size_t)y * w;
		float *d = dst + (size_t)y * nw;
		for (int o = 0; o < nw; o++) {
			double a = o * ratio, b = (o + 1) * ratio, sum = 0;
			int i1 = (int)ceil(b) < w ? (int)ceil(b) : w;
			for (int i = (int)floor(a); i < i1; i++)
				sum += overlap(i, a, b) * s[i];
			d[o] = (float)(sum / (b - a));
		}
	}
}

static int vertical(const float *src, float *dst, int w, int h, int nh)
{
	double *acc = malloc((size_t)w * sizeof *acc);
	if (!acc)
		return -1;
	double ratio = (double)h / nh;
	for (int o = 0; o < nh; o++) {
		double a = o * ratio, b = (o + 1) * ratio;
		int i1 = (int)ceil(b) < h ? (int)ceil(b) : h;
		for (int x = 0; x < w; x++)
			acc[x] = 0;
		for (int i = (int)floor(a); i < i1; i++) {
			double wt = overlap(i, a, b);
			const float *s = src + (size_t)i * w;
			for (int x = 0; x < w; x++)
				acc[x] += wt * s[x];
		}
		float *d = dst + (size_t)o * w;
		for (int x = 0; x < w; x++)
			d[x] = (float)(acc[x] / (b - a));
	}
	free(acc);
	return 0;
}

fs_image *fs_image_downscale(const fs_image *img, int max_side)
{
	if (!img || !img->data || max_side <= 0)
		return NULL;
	int w = img->width, h = img->height;
	int longest = w > h ? w : h;
	if (longest <= max_side)
		return fs_image_clone(img);
	double s = (double)max_side / longest;
	int nw = (int)lround(w * s), nh = (int)lround(h * s);
	nw = nw < 1 ? 1 : nw > max_side ? max_side : nw;
	nh = nh < 1 ? 1 : nh > max_side ? max_side : nh;

	fs_image *mid = fs_image_new(nw, h);
	fs_image *out = fs_image_new(nw, nh);
	if (mid && out)
		horizontal(img->data, mid->data, w, h, nw);
	if (!mid || !out || vertical(mid->data, out->data, nw, h, nh) != 0) {
		fs_image_free(out);
		out = NULL;
	}
	fs_image_free(mid);
	return out;
}
