/*
 * blur_estimate.c - effective blur from the two-scale gradient ratio at the
 * strongest edges (see blur_estimate.h).
 */
#include "analysis/blur_estimate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/preprocess.h"

#define S1 1.0
#define S2 2.0

/* The peak gradient of a step blurred by sigma, at scale s, is proportional
 * to 1 / sqrt(sigma^2 + s^2) (the derivative below is accurate to the
 * fourth order, so the pixel grid does not enter). */
static double ratio_of(double sigma)
{
	return sqrt((sigma * sigma + S2 * S2) / (sigma * sigma + S1 * S1));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The k-th smallest of a[0..n) (a is reordered): quickselect, linear on
 * average where a sort of every edge pixel would dominate the cost. */
static double kth(double *a, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (lo < hi) {
		double pv = a[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;
		while (i <= j) {
			while (a[i] < pv)
				i++;
			while (a[j] > pv)
				j--;
			if (i <= j) {
				double t = a[i];
				a[i] = a[j];
				a[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return a[k];
}

/* Gradient of g at (x, y), 2 px from the border: the five-point
 * derivative (-1, 8, 0, -8, 1) / 12, exact to the fourth order. */
static void grad(const fs_image *g, int x, int y, double *gx, double *gy)
{
	*gx = (8.0 * (fs_image_at(g, x + 1, y) - fs_image_at(g, x - 1, y)) - fs_image_at(g, x + 2, y) +
	       fs_image_at(g, x - 2, y)) /
	      12;
	*gy = (8.0 * (fs_image_at(g, x, y + 1) - fs_image_at(g, x, y - 1)) - fs_image_at(g, x, y + 2) +
	       fs_image_at(g, x, y - 2)) /
	      12;
}

/* The gradient direction as one of the 8 neighbour steps (tan 22.5 deg). */
static void quantise(double gx, double gy, int *dx, int *dy)
{
	double ax = fabs(gx), ay = fabs(gy);
	*dx = ax > 0.41421356 * ay ? (gx > 0 ? 1 : -1) : 0;
	*dy = ay > 0.41421356 * ax ? (gy > 0 ? 1 : -1) : 0;
}

static double gmag(const fs_image *g, int x, int y)
{
	double gx, gy;
	grad(g, x, y, &gx, &gy);
	return hypot(gx, gy);
}

/* The peak of the gradient magnitude across the edge through (x, y) along
 * the pixel step (dx, dy): vertex of the parabola through the logarithms
 * of three samples (exact for a Gaussian), never below the middle sample
 * and at most 1.5 times it. */
static double peak(const fs_image *g, int x, int y, int dx, int dy)
{
	double a = gmag(g, x - dx, y - dy), b = gmag(g, x, y), c = gmag(g, x + dx, y + dy);
	if (!(a > 0 && b > 0 && c > 0))
		return b;
	double la = log(a), lb = log(b), lc = log(c);
	double d = la - 2 * lb + lc;
	if (!(d < 0))
		return b;
	double o = 0.5 * (la - lc) / d;
	if (o < -1 || o > 1)
		return b;
	double v = exp(lb - 0.25 * (la - lc) * o);
	return fmin(v, 1.5 * b);
}

static int estimate(const fs_image *img, double *sigma)
{
	char err[64];
	int w = img->width, h = img->height, rc = -1;
	fs_image *g1 = fs_gaussian_blurred(img, S1, err, sizeof err);
	fs_image *g2 = fs_gaussian_blurred(img, S2, err, sizeof err);
	double *mag = NULL, *r = NULL;
	size_t nm = 0;
	int *pos = NULL;
	if (!g1 || !g2)
		goto out;
	mag = malloc((size_t)w * h * sizeof *mag);
	pos = malloc((size_t)w * h * sizeof *pos);
	if (!mag || !pos)
		goto out;
	/* edge pixels: the coarse gradient magnitude is a maximum across the
	 * edge (the gradient direction, quantised to 8 neighbours); 6 px from
	 * the border, where the blurs replicate the edge. The squared
	 * magnitude is computed once per pixel (no libm in this loop: it runs
	 * over every pixel). */
	float *m2 = malloc((size_t)w * h * sizeof *m2);
	if (!m2)
		goto out;
	for (int y = 2; y < h - 2; y++)
		for (int x = 2; x < w - 2; x++) {
			double gx, gy;
			grad(g2, x, y, &gx, &gy);
			m2[(size_t)y * w + x] = (float)(gx * gx + gy * gy);
		}
	for (int y = 6; y < h - 6; y++) {
		for (int x = 6; x < w - 6; x++) {
			double gx, gy;
			grad(g2, x, y, &gx, &gy);
			float m = m2[(size_t)y * w + x];
			if (!(m > 1e-8f))
				continue;
			int dx, dy;
			quantise(gx, gy, &dx, &dy);
			if (m < m2[(size_t)(y + dy) * w + x + dx] || m <= m2[(size_t)(y - dy) * w + x - dx])
				continue;
			mag[nm] = m;
			pos[nm] = y * w + x;
			nm++;
		}
	}
	free(m2);
	rc = 1;
	if (nm < 16)
		goto out;
	double *tmp = malloc(nm * sizeof *tmp);
	if (!tmp) {
		rc = -1;
		goto out;
	}
	for (size_t k = 0; k < nm; k++)
		tmp[k] = mag[k];
	size_t nk = nm / 10 > 16 ? nm / 10 : 16;
	double thr = kth(tmp, nm, nm - nk);
	free(tmp);
	r = malloc(nk * 2 * sizeof *r);
	if (!r) {
		rc = -1;
		goto out;
	}
	size_t nr = 0;
	for (size_t k = 0; k < nm && nr < 2 * nk; k++) {
		if (mag[k] < thr)
			continue;
		int x = pos[k] % w, y = pos[k] / w;
		double gx, gy;
		grad(g2, x, y, &gx, &gy);
		int dx, dy;
		quantise(gx, gy, &dx, &dy);
		double p1 = peak(g1, x, y, dx, dy), p2 = peak(g2, x, y, dx, dy);
		if (p2 > 0)
			r[nr++] = p1 / p2;
	}
	if (nr < 16)
		goto out;
	qsort(r, nr, sizeof *r, cmp_double);
	double rm = r[nr / 2];
	/* ratio_of falls from ratio_of(0) as sigma grows: bisection */
	rc = 0;
	if (rm >= ratio_of(0))
		goto out;
	double lo = 0, hi = 8;
	if (rm <= ratio_of(hi)) {
		*sigma = hi;
		goto out;
	}
	for (int it = 0; it < 50; it++) {
		double mid = 0.5 * (lo + hi);
		if (ratio_of(mid) > rm)
			lo = mid;
		else
			hi = mid;
	}
	*sigma = 0.5 * (lo + hi);
out:
	fs_image_free(g1);
	fs_image_free(g2);
	free(mag);
	free(pos);
	free(r);
	return rc;
}

/* The central CROP x CROP px at most: its strongest tenth of edges are
 * hundreds, and over the whole of a 2048 x 1536 image the estimate cost
 * three times the outline rule's whole detection (175 against 60 ms CPU). */
#define CROP 512

int fs_blur_estimate(const fs_image *img, double *sigma)
{
	*sigma = 0;
	if (!img || !img->data || img->width < 8 || img->height < 8)
		return -1;
	if (img->width <= CROP && img->height <= CROP)
		return estimate(img, sigma);
	int cw = img->width < CROP ? img->width : CROP, ch = img->height < CROP ? img->height : CROP;
	int x0 = (img->width - cw) / 2, y0 = (img->height - ch) / 2;
	fs_image *c = fs_image_new_uninit(cw, ch);
	if (!c)
		return -1;
	for (int y = 0; y < ch; y++)
		memcpy(c->data + (size_t)y * cw, img->data + (size_t)(y0 + y) * img->width + x0,
		       (size_t)cw * sizeof *c->data);
	int rc = estimate(c, sigma);
	fs_image_free(c);
	return rc;
}
