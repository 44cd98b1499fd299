/*
 * foot_pool.c - the domes' mean radial profile pooled over the image
 * (foot_pool.h).
 */
#include "analysis/foot_pool.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dome_fit.h"
#include "analysis/foot_contour.h"
#include "analysis/halftone.h"
#include "base/sorting.h"

/* The profile's ground (its darkest bin outside 0.9) and peak (its
 * brightest inside 1.1), which every contrast of the profile is read
 * between */
static void ground_and_peak(const double *prof, double *g, double *pk)
{
	*g = INFINITY;
	*pk = -INFINITY;
	for (int b = 0; b < FS_FOOT_POOL_BINS; b++) {
		double u = (b + 0.5) * FS_FOOT_POOL_STEP, v = prof[b];
		if (!isfinite(v))
			continue;
		if (u > 0.9 && v < *g)
			*g = v;
		if (u < 1.1 && v > *pk)
			*pk = v;
	}
}

/* The contrast of the profile's 0.1 step i (bins 2i, 2i + 1) */
static double step_contrast(const double *prof, int i, double g, double pk)
{
	return (0.5 * (prof[2 * i] + prof[2 * i + 1]) - g) / (pk - g);
}

/* fs_foot_pool.fall: from the brightest step inside 1.1 outwards, where
 * the contrast first falls below 0.8 and below 0.2 (linear between the
 * steps' middles) */
static double fall_width(const double *prof, double g, double pk)
{
	enum { NS = FS_FOOT_POOL_BINS / 2 };
	double c[NS];
	int top = -1;
	for (int i = 0; i < NS; i++) {
		c[i] = step_contrast(prof, i, g, pk);
		if ((i + 0.5) * 2 * FS_FOOT_POOL_STEP < 1.1 && isfinite(c[i]) && (top < 0 || c[i] > c[top]))
			top = i;
	}
	if (top < 0)
		return NAN;
	double at[2] = {NAN, NAN}, level[2] = {0.8, 0.2};
	for (int k = 0; k < 2; k++)
		for (int i = top + 1; i < NS; i++)
			if (isfinite(c[i]) && isfinite(c[i - 1]) && c[i] < level[k] && c[i - 1] >= level[k]) {
				at[k] = 2 * FS_FOOT_POOL_STEP * (i - 0.5 + (c[i - 1] - level[k]) / (c[i - 1] - c[i]));
				break;
			}
	return at[1] - at[0];
}

static void contrasts(fs_foot_pool *fp)
{
	double g, pk;
	ground_and_peak(fp->prof, &g, &pk);
	fp->centre = fp->edge = NAN;
	if (!(pk > g))
		return;
	double sc = 0, se = 0;
	int nc = 0, ne = 0;
	for (int b = 0; b < FS_FOOT_POOL_BINS; b++) {
		double u = (b + 0.5) * FS_FOOT_POOL_STEP, c = (fp->prof[b] - g) / (pk - g);
		if (!isfinite(c))
			continue;
		if (u < 0.3) {
			sc += c;
			nc++;
		} else if (u >= 0.8 && u < 1.0) {
			se += c;
			ne++;
		}
	}
	if (nc && ne) {
		fp->centre = sc / nc;
		fp->edge = se / ne;
	}
	fp->fall = fall_width(fp->prof, g, pk);
}

/* fs_foot_pool_read and fs_foot_pool_read_own: own = 0 bins every dome's
 * pixels in the median radius, own = 1 in the dome's own radius */
static int pool(const fs_image *img, const double *xs, const double *ys, const double *rs, size_t n, double pitch,
		int own, fs_foot_pool *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	for (int b = 0; b < FS_FOOT_POOL_BINS; b++)
		out->prof[b] = NAN;
	out->centre = out->edge = out->fall = NAN;
	if (n < 8 || !(pitch > 0)) {
		snprintf(err, errlen, "foot pool: fewer than 8 domes or no pitch");
		return -1;
	}
	double *r = malloc(n * sizeof *r);
	if (!r) {
		snprintf(err, errlen, "foot pool: out of memory");
		return -1;
	}
	size_t nr = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(rs[i]) && rs[i] > 0)
			r[nr++] = rs[i];
	double rm = nr >= 8 ? fs_median_upper(r, nr) : NAN;
	free(r);
	if (!(rm >= 1)) {
		snprintf(err, errlen, "foot pool: no usable base radius");
		return -1;
	}
	double sum[FS_FOOT_POOL_BINS] = {0};
	long cnt[FS_FOOT_POOL_BINS] = {0};
	double half = 0.5 * pitch, reach = fmin(half, FS_FOOT_POOL_BINS * FS_FOOT_POOL_STEP * rm);
	int w = img->width, h = img->height;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(rs[i]) || !(rs[i] > 0))
			continue;
		/* only domes whose whole cell lies inside the image: a cut
		 * cell would weigh its inner bins over its outer ones */
		if (xs[i] - half < 0 || ys[i] - half < 0 || xs[i] + half > w - 1 || ys[i] + half > h - 1)
			continue;
		double ri = own ? rs[i] : rm;
		double reach_i = own ? fmin(half, FS_FOOT_POOL_BINS * FS_FOOT_POOL_STEP * ri) : reach;
		int x0 = (int)ceil(xs[i] - reach_i), x1 = (int)floor(xs[i] + reach_i);
		int y0 = (int)ceil(ys[i] - reach_i), y1 = (int)floor(ys[i] + reach_i);
		for (int y = y0; y <= y1; y++)
			for (int x = x0; x <= x1; x++) {
				double d = hypot(x - xs[i], y - ys[i]);
				if (d > reach_i)
					continue;
				int b = (int)(d / (FS_FOOT_POOL_STEP * ri));
				if (b >= FS_FOOT_POOL_BINS)
					continue;
				sum[b] += fs_image_value(img, x, y);
				cnt[b]++;
			}
		out->domes++;
	}
	if (out->domes < 8) {
		snprintf(err, errlen, "foot pool: fewer than 8 whole cells");
		return -1;
	}
	for (int b = 0; b < FS_FOOT_POOL_BINS; b++)
		if (cnt[b] >= 3)
			out->prof[b] = sum[b] / (double)cnt[b];
	out->r_px = rm;
	out->reach = reach / rm;
	contrasts(out);
	return 0;
}

int fs_foot_pool_read(const fs_image *img, const double *xs, const double *ys, const double *rs, size_t n,
		      double pitch, fs_foot_pool *out, char *err, size_t errlen)
{
	return pool(img, xs, ys, rs, n, pitch, 0, out, err, errlen);
}

int fs_foot_pool_read_own(const fs_image *img, const double *xs, const double *ys, const double *rs, size_t n,
			  double pitch, fs_foot_pool *out, char *err, size_t errlen)
{
	return pool(img, xs, ys, rs, n, pitch, 1, out, err, errlen);
}

int fs_foot_pool_smooth(const fs_foot_pool *fp)
{
	return fp->r_px >= FS_FOOT_POOL_MIN_R && fp->centre - fp->edge > FS_FOOT_POOL_BAR &&
	       fp->fall > FS_FOOT_POOL_FALL;
}

double fs_foot_pool_fade(const fs_foot_pool *fp, double level)
{
	double g, pk;
	ground_and_peak(fp->prof, &g, &pk);
	if (!(pk > g))
		return NAN;
	/* (two bins a step: the profile of a few hundred domes is noisy at
	 * the 0.05 bins' 10-20 % contrast steps in the tail) */
	double prev = NAN;
	for (int b = 0; b + 1 < FS_FOOT_POOL_BINS; b += 2) {
		double c = step_contrast(fp->prof, b / 2, g, pk);
		if (!isfinite(c)) {
			prev = NAN;
			continue;
		}
		if (isfinite(prev) && c < level && prev >= level)
			return 2 * FS_FOOT_POOL_STEP * (b / 2 - 1) + FS_FOOT_POOL_STEP +
			       2 * FS_FOOT_POOL_STEP * (prev - level) / (prev - c);
		prev = c;
	}
	return NAN;
}

double fs_foot_pool_support(const fs_foot_pool *fp)
{
	return FS_FOOT_POOL_SUPPORT_K * fs_foot_pool_fade(fp, FS_FOOT_POOL_FADE);
}

double fs_foot_pool_tail(const fs_foot_pool *fp)
{
	return fs_foot_pool_fade(fp, 0.2) / fs_foot_pool_fade(fp, 0.5);
}

static int g_support;

int fs_foot_pool_set_support(int on)
{
	int old = g_support;
	g_support = on;
	return old;
}

int fs_foot_pool_support_on(void)
{
	return g_support;
}

/* Mode 2's scale (foot_pool.h): the mean dome's contour radius
 * (foot_contour.h) over the median radius r_px; NAN where unread, *rc -1
 * on out of memory. Under a screen the patch is smoothed against it. */
static double contour_scale(const fs_image *img, const double *xs, const double *ys, size_t n, double pitch,
			    double r_px, int *rc, char *err, size_t errlen)
{
	double period = 0;
	fs_foot_contour fc;
	if (fs_halftone_detect(img, &period, NULL) ||
	    fs_foot_contour_read(img, xs, ys, n, pitch, FS_FOOT_CONTOUR_SCREEN * period, FS_FOOT_CONTOUR_LEVEL, &fc, err,
				 errlen)) {
		snprintf(err, errlen, "foot pool: out of memory");
		*rc = -1;
		return NAN;
	}
	return fc.radius / r_px;
}

int fs_foot_pool_scale_list(const fs_image *img, double f, fs_tubercle_list *t, double *scale, char *err,
			    size_t errlen)
{
	*scale = 1;
	size_t n = t->n;
	if (n < 8)
		return 0;
	double *xs = malloc(n * sizeof *xs), *ys = malloc(n * sizeof *ys), *rs = malloc(n * sizeof *rs);
	int rc = -1;
	if (!xs || !ys || !rs) {
		snprintf(err, errlen, "foot pool: out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		xs[i] = t->items[i].centroid_x / f;
		ys[i] = t->items[i].centroid_y / f;
		rs[i] = t->items[i].radius_px / f;
	}
	double pitch = fs_dome_fit_pitch(xs, ys, n);
	if (pitch < 0) {
		snprintf(err, errlen, "foot pool: out of memory");
		goto out;
	}
	fs_foot_pool fp;
	char why[96];
	rc = 0;
	/* (a profile that cannot be read says nothing: the sizes stand) */
	if (fs_foot_pool_read(img, xs, ys, rs, n, pitch, &fp, why, sizeof why) || !fs_foot_pool_smooth(&fp))
		goto out;
	double k = g_support == 2 ? contour_scale(img, xs, ys, n, pitch, fp.r_px, &rc, err, errlen)
				  : fs_foot_pool_support(&fp);
	if (rc || !(k > 1))
		goto out;
	*scale = k;
	for (size_t i = 0; i < n; i++) {
		fs_tubercle *q = &t->items[i];
		q->radius_px *= k;
		if (q->has_ellipse) {
			q->major_axis_px *= k;
			q->minor_axis_px *= k;
		}
	}
out:
	free(xs);
	free(ys);
	free(rs);
	return rc;
}
