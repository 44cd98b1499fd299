/*
 * image_scale.c - area-averaging downscale for thumbnails and display copies.
 *
 * Each output pixel is the mean of the source area it covers, with partial
 * source pixels weighted by their overlap. The box filter is separable: a
 * horizontal pass per row (w -> nw), then a vertical one (-> nw x nh) that
 * takes the reduced rows as it reaches them, so memory is read in order
 * and holds a few rows, not an nw x h temporary. Sums are kept in double.
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

/* One row of w samples reduced to nw. */
static void horizontal(const float *s, float *d, int w, int nw)
{
	double ratio = (double)w / nw;
	for (int o = 0; o < nw; o++) {
		double a = o * ratio, b = (o + 1) * ratio, sum = 0;
		int i1 = (int)ceil(b) < w ? (int)ceil(b) : w;
		for (int i = (int)floor(a); i < i1; i++)
			sum += overlap(i, a, b) * s[i];
		d[o] = (float)(sum / (b - a));
	}
}

/*
 * The vertical pass over horizontally reduced rows made as it reaches
 * them: an output row reads the source rows it overlaps, and consecutive
 * output rows share at most their boundary row, which is kept. So memory
 * is a few rows whatever the height (issue 15: a 100 MP image is reduced
 * without an nw x h temporary), and every sum is the one the two whole
 * passes made, in the same order. img may be compact (image.h): each row
 * is converted by fs_image_span, the loaders' values.
 */
static int vertical(const fs_image *img, fs_image *out)
{
	int w = img->width, h = img->height, nw = out->width, nh = out->height;
	double *acc = malloc((size_t)nw * sizeof *acc);
	float *row = malloc((size_t)nw * sizeof *row);
	float *span = img->bits ? malloc((size_t)w * sizeof *span) : NULL;
	int rc = -1;
	if (!acc || !row || (img->bits && !span))
		goto out;
	int have = -1; /* the source row reduced into row */
	double ratio = (double)h / nh;
	for (int o = 0; o < nh; o++) {
		double a = o * ratio, b = (o + 1) * ratio;
		int i1 = (int)ceil(b) < h ? (int)ceil(b) : h;
		for (int x = 0; x < nw; x++)
			acc[x] = 0;
		for (int i = (int)floor(a); i < i1; i++) {
			double wt = overlap(i, a, b);
			if (i != have) {
				horizontal(fs_image_span(img, 0, i, w, span), row, w, nw);
				have = i;
			}
			for (int x = 0; x < nw; x++)
				acc[x] += wt * row[x];
		}
		float *d = out->data + (size_t)o * nw;
		for (int x = 0; x < nw; x++)
			d[x] = (float)(acc[x] / (b - a));
	}
	rc = 0;
out:
	free(acc);
	free(row);
	free(span);
	return rc;
}

fs_image *fs_image_downscale(const fs_image *img, int max_side)
{
	if (!img || (!img->data && !img->px) || max_side <= 0)
		return NULL;
	int w = img->width, h = img->height;
	int longest = w > h ? w : h;
	if (longest <= max_side)
		return fs_image_is_compact(img) ? fs_image_to_float(img) : fs_image_clone(img);
	double s = (double)max_side / longest;
	int nw = (int)lround(w * s), nh = (int)lround(h * s);
	nw = nw < 1 ? 1 : nw > max_side ? max_side : nw;
	nh = nh < 1 ? 1 : nh > max_side ? max_side : nh;

	fs_image *out = fs_image_new_uninit(nw, nh);
	if (out && vertical(img, out) != 0) {
		fs_image_free(out);
		out = NULL;
	}
	return out;
}
