/*
 * dome_template.c - the image's mean dome and its normalised correlation
 * with the image (see dome_template.h).
 */
#include "analysis/dome_template.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Bilinear sample of img at (x, y), which the caller keeps inside
 * [0, w - 1] x [0, h - 1]. */
static double sample(const fs_image *img, double x, double y)
{
	int w = img->width, h = img->height;
	int x0 = (int)x, y0 = (int)y;
	int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
	double fx = x - x0, fy = y - y0;
	const float *d = img->data;
	double a = d[(size_t)y0 * w + x0] * (1 - fx) + d[(size_t)y0 * w + x1] * fx;
	double b = d[(size_t)y1 * w + x0] * (1 - fx) + d[(size_t)y1 * w + x1] * fx;
	return a * (1 - fy) + b * fy;
}

/* Two doubles, one per output pixel: the correlation of four neighbouring
 * pixels runs as two of these, each lane doing exactly the scalar loop's
 * additions and products in the scalar loop's order (and no fused
 * multiply-add in either: -std=c11 sets -ffp-contract=off), so the same
 * bits as one pixel at a time. */
typedef double v2d __attribute__((vector_size(16)));

/* The correlation of the four pixels x .. x + 3 of row y, whose discs lie
 * whole inside the image, into out[0..3] (0 where the patch is flat): the
 * sums of the samples, their squares and their products with the
 * template over the disc, as in the scalar loop below. tt is the
 * template's sum of squares, np its pixel count. */
static void ncc4(const float *d, int w, int x, int y, int R, const int *half, const double *tpl, int side,
		 double tt, double np, float *out)
{
	v2d s1a = {0, 0}, s1b = {0, 0}, s2a = {0, 0}, s2b = {0, 0}, sta = {0, 0}, stb = {0, 0};
	for (int dy = -R; dy <= R; dy++) {
		const float *row = d + (size_t)(y + dy) * w + x;
		const double *trow = tpl + (dy + R) * side + R;
		for (int dx = -half[dy + R]; dx <= half[dy + R]; dx++) {
			const float *r = row + dx;
			v2d va = {r[0], r[1]}, vb = {r[2], r[3]};
			v2d t = {trow[dx], trow[dx]};
			s1a += va;
			s1b += vb;
			s2a += va * va;
			s2b += vb * vb;
			sta += t * va;
			stb += t * vb;
		}
	}
	double s1[4] = {s1a[0], s1a[1], s1b[0], s1b[1]}, s2[4] = {s2a[0], s2a[1], s2b[0], s2b[1]};
	double st[4] = {sta[0], sta[1], stb[0], stb[1]};
	for (int i = 0; i < 4; i++) {
		/* the template sums to 0 over the disc: the covariance is st */
		double vi = s2[i] - s1[i] * s1[i] / np;
		if (vi > 1e-12 * np && tt > 0)
			out[i] = (float)(st[i] / sqrt(vi * tt));
	}
}

int fs_dome_template_ncc(const fs_image *img, const double *xs, const double *ys, size_t n, double radius,
			 fs_image **res, char *err, size_t errlen)
{
	*res = NULL;
	if (!img || !img->data || !(radius >= 1) || (n && (!xs || !ys))) {
		snprintf(err, errlen, "dome template: no image, no points or a radius under 1 px");
		return -1;
	}
	int w = img->width, h = img->height;
	int R = (int)floor(radius);
	int side = 2 * R + 1;
	/* the disc as row spans: offsets dx in [-half[dy], half[dy]] */
	int *half = malloc((size_t)side * sizeof *half);
	double *tpl = calloc((size_t)side * side, sizeof *tpl);
	fs_image *out = NULL;
	int rc = -1;
	if (!half || !tpl) {
		snprintf(err, errlen, "dome template: out of memory");
		goto done;
	}
	for (int dy = -R; dy <= R; dy++)
		half[dy + R] = (int)floor(sqrt(fmax(0, radius * radius - (double)dy * dy)));
	/* the mean patch: whole discs only, so every offset averages the same
	 * domes */
	size_t used = 0;
	for (size_t i = 0; i < n; i++) {
		double x = xs[i], y = ys[i];
		if (!(x - R >= 0 && y - R >= 0 && x + R <= w - 1 && y + R <= h - 1))
			continue;
		for (int dy = -R; dy <= R; dy++)
			for (int dx = -half[dy + R]; dx <= half[dy + R]; dx++)
				tpl[(dy + R) * side + dx + R] += sample(img, x + dx, y + dy);
		used++;
	}
	if (used < 3) {
		rc = 0; /* no template to correlate with */
		goto done;
	}
	/* zero mean over the disc: the correlation then ignores the patch's
	 * own mean (brightness), and its norm is the template's contrast */
	double tm = 0, np = 0;
	for (int dy = -R; dy <= R; dy++)
		for (int dx = -half[dy + R]; dx <= half[dy + R]; dx++) {
			tm += tpl[(dy + R) * side + dx + R] / used;
			np++;
		}
	tm /= np;
	double tt = 0;
	for (int dy = -R; dy <= R; dy++)
		for (int dx = -half[dy + R]; dx <= half[dy + R]; dx++) {
			double *t = &tpl[(dy + R) * side + dx + R];
			*t = *t / used - tm;
			tt += *t * *t;
		}
	out = fs_image_new(w, h);
	if (!out) {
		snprintf(err, errlen, "dome template: out of memory");
		goto done;
	}
	rc = 0;
	if (!(tt > 0))
		goto done; /* a flat template correlates with nothing: all 0 */
	const float *d = img->data;
	for (int y = 0; y < h; y++) {
		int x = 0;
		/* where four neighbouring discs lie whole in the image, four
		 * pixels at a time (ncc4: the same values) */
		int inner_row = y - R >= 0 && y + R < h;
		for (; x < w; x++) {
			if (inner_row && x - R >= 0 && x + 3 + R < w) {
				ncc4(d, w, x, y, R, half, tpl, side, tt, np, out->data + (size_t)y * w + x);
				x += 3;
				continue;
			}
			int inner = x - R >= 0 && y - R >= 0 && x + R < w && y + R < h;
			double s1 = 0, s2 = 0, st = 0, st1 = 0, stt = 0, k = 0;
			for (int dy = -R; dy <= R; dy++) {
				int yy = y + dy;
				if (yy < 0 || yy >= h)
					continue;
				int a = -half[dy + R], b = half[dy + R];
				if (!inner) {
					if (x + a < 0)
						a = -x;
					if (x + b > w - 1)
						b = w - 1 - x;
				}
				const float *row = d + (size_t)yy * w + x;
				const double *trow = tpl + (dy + R) * side + R;
				for (int dx = a; dx <= b; dx++) {
					double v = row[dx], t = trow[dx];
					s1 += v;
					s2 += v * v;
					st += t * v;
					if (!inner) {
						st1 += t;
						stt += t * t;
					}
				}
				k += b - a + 1;
			}
			double cov, vt;
			if (inner) {
				cov = st; /* the template sums to 0 over the disc */
				vt = tt;
			} else {
				if (k < 0.5 * np)
					continue;
				cov = st - st1 * s1 / k;
				vt = stt - st1 * st1 / k;
			}
			double vi = s2 - s1 * s1 / k;
			if (vi > 1e-12 * k && vt > 0)
				out->data[(size_t)y * w + x] = (float)(cov / sqrt(vi * vt));
		}
	}
done:
	free(half);
	free(tpl);
	*res = out;
	return rc;
}
