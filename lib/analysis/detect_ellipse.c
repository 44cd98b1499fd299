/*
 * detect_ellipse.c - method "ellipse": Otsu threshold, 8-connected regions,
 * and each region's moments (centroid, equivalent diameter, major/minor
 * axis, orientation, eccentricity; circularity = 1 - eccentricity as the
 * original). Regions outside the µm area window (0.5 x the smallest disc to
 * 2 x the largest), with eccentricity > 0.9, or within the edge margin are
 * dropped. Touching tubercles are not split (the original's watershed is
 * not reproduced).
 *
 * Tile by tile (detect_scale.h) the image-wide steps work on what the
 * tiles leave: Otsu's histogram is summed over the tiles, the foreground
 * is a one-bit mask of the image (an eighth of a byte a pixel) that each
 * tile fills, and the regions are labelled row by row over the mask
 * (region_moments.h), so a region across tiles is one region. The
 * tubercles come in the raster order of the regions' first pixels, a
 * flood fill's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_methods.h"
#include "analysis/region_moments.h"

struct ell_ctx {
	const fs_params *p;
	long long hist[256];
	double thr;
	unsigned char *mask; /* bit x of row y at [y * stride + x / 8] */
	size_t stride;
	int w, h;
	double amin, amax;
	struct found {
		long long first;
		fs_tubercle t;
	} *found;
	size_t nfound, cap;
};

static int hist_tile(const fs_det_tile *t, void *arg, char *err, size_t errlen)
{
	struct ell_ctx *c = arg;
	const fs_image *pre = t->pre;
	long long hist[256] = {0};
	(void)err;
	(void)errlen;
	for (int y = t->y0; y < t->y1; y++) {
		const float *row = pre->data + (size_t)y * pre->width;
		for (int x = t->x0; x < t->x1; x++) {
			int b = (int)(row[x] * 255 + 0.5f);
			hist[b < 0 ? 0 : b > 255 ? 255 : b]++;
		}
	}
	if (t->lock)
		pthread_mutex_lock(t->lock);
	for (int b = 0; b < 256; b++)
		c->hist[b] += hist[b];
	if (t->lock)
		pthread_mutex_unlock(t->lock);
	return 0;
}

static double otsu(const long long *hist, double n)
{
	double sum = 0;
	for (int i = 0; i < 256; i++)
		sum += (double)i * hist[i];
	double sb = 0, wb = 0, best = -1;
	int t = 127;
	for (int i = 0; i < 256; i++) {
		wb += hist[i];
		if (wb == 0)
			continue;
		double wf = n - wb;
		if (wf == 0)
			break;
		sb += (double)i * hist[i];
		double mb = sb / wb, mf = (sum - sb) / wf;
		double v = wb * wf * (mb - mf) * (mb - mf);
		if (v > best) {
			best = v;
			t = i;
		}
	}
	return (t + 0.5) / 255.0;
}

static int mask_tile(const fs_det_tile *t, void *arg, char *err, size_t errlen)
{
	struct ell_ctx *c = arg;
	const fs_image *pre = t->pre;
	(void)err;
	(void)errlen;
	/* tiles share the mask's bytes where they meet */
	if (t->lock)
		pthread_mutex_lock(t->lock);
	for (int y = t->y0; y < t->y1; y++) {
		const float *row = pre->data + (size_t)y * pre->width;
		unsigned char *m = c->mask + (size_t)(y + t->oy) * c->stride;
		for (int x = t->x0; x < t->x1; x++)
			if (row[x] > c->thr)
				m[(x + t->ox) >> 3] |= (unsigned char)(1u << ((x + t->ox) & 7));
	}
	if (t->lock)
		pthread_mutex_unlock(t->lock);
	return 0;
}

/* One complete region: kept (with its first pixel, for the order) when
 * its size and shape are a tubercle's. */
static int region(const fs_region_moments *r, void *arg)
{
	struct ell_ctx *c = arg;
	double S = r->S;
	if (S < c->amin || S > c->amax)
		return 0;
	double cx = r->Sx / S, cy = r->Sy / S;
	double mxx = r->Sxx / S - cx * cx + 1.0 / 12, myy = r->Syy / S - cy * cy + 1.0 / 12;
	double mxy = r->Sxy / S - cx * cy;
	double tr = mxx + myy, det = mxx * myy - mxy * mxy;
	double disc = sqrt(fmax(0, tr * tr / 4 - det));
	double l1 = tr / 2 + disc, l2 = fmax(0, tr / 2 - disc);
	double ecc = l1 > 0 ? sqrt(fmax(0, 1 - l2 / l1)) : 0;
	double m = c->p->edge_margin_px;
	if (ecc > 0.9 || 1 - ecc < c->p->min_circularity)
		return 0;
	if (cx < m || cy < m || cx > c->w - 1 - m || cy > c->h - 1 - m)
		return 0;
	if (c->nfound == c->cap) {
		size_t nc = c->cap ? 2 * c->cap : 256;
		struct found *f = realloc(c->found, nc * sizeof *f);
		if (!f)
			return 1; /* out of memory (the scan's own errors are -1) */
		c->found = f;
		c->cap = nc;
	}
	fs_tubercle *t = &c->found[c->nfound].t;
	memset(t, 0, sizeof *t);
	c->found[c->nfound++].first = r->first;
	t->centroid_x = cx;
	t->centroid_y = cy;
	t->radius_px = sqrt(S / M_PI);
	t->circularity = 1 - ecc;
	t->has_ellipse = 1;
	t->major_axis_px = 4 * sqrt(l1);
	t->minor_axis_px = 4 * sqrt(l2);
	t->orientation = 0.5 * atan2(2 * mxy, mxx - myy);
	t->eccentricity = ecc;
	t->source = FS_SOURCE_EXTRACTED;
	return 0;
}

static int cmp_first(const void *a, const void *b)
{
	const struct found *x = a, *y = b;
	return (x->first > y->first) - (x->first < y->first);
}

int fs_detect_ellipse(const fs_det_source *s, const fs_params *p, double um_per_px, fs_detect_result *out,
		      char *err, size_t errlen)
{
	int rc = -1;
	struct ell_ctx c;
	memset(&c, 0, sizeof c);
	c.p = p;
	c.w = s->width;
	c.h = s->height;
	c.stride = ((size_t)c.w + 7) / 8;
	double rmin, rmax;
	fs_det_radius_range(p, um_per_px, &rmin, &rmax);
	c.amin = M_PI * rmin * rmin * 0.5;
	c.amax = M_PI * rmax * rmax * 2.0;
	/* the preprocessed image is read twice when tiled (the histogram,
	 * then the mask): a full-size copy would cost 4 bytes a pixel */
	if (fs_det_for_tiles(s, 0, hist_tile, &c, err, errlen))
		goto out;
	c.thr = otsu(c.hist, (double)c.w * c.h);
	c.mask = calloc(c.stride * (size_t)c.h, 1);
	if (!c.mask) {
		snprintf(err, errlen, "ellipse: out of memory");
		goto out;
	}
	if (fs_det_for_tiles(s, 0, mask_tile, &c, err, errlen))
		goto out;
	int frc = fs_regions_scan(c.mask, c.stride, c.w, c.h, region, &c, err, errlen);
	if (frc) {
		if (frc > 0)
			snprintf(err, errlen, "ellipse: out of memory");
		goto out;
	}
	if (c.nfound)
		qsort(c.found, c.nfound, sizeof *c.found, cmp_first);
	for (size_t i = 0; i < c.nfound; i++) {
		c.found[i].t.id = (int)out->tubercles.n + 1;
		if (fs_tubercle_list_append(&out->tubercles, &c.found[i].t)) {
			snprintf(err, errlen, "ellipse: out of memory");
			goto out;
		}
	}
	rc = 0;
out:
	free(c.mask);
	free(c.found);
	return rc;
}
