/*
 * detect.c - the detection entry point (see detect.h) and the steps the
 * methods share: preprocessing, peak picking, prominence, measurement.
 *
 * For auto and lattice the lattice is estimated first, on the raw image,
 * because the preprocessing depends on it: the CLAHE tile is widened to at
 * least three pitches, so equalisation evens out illumination between
 * tubercles instead of flattening each tubercle's own profile. Detection
 * runs on the image reduced to ~10 px per pitch, and measurement on the
 * full image up to a pitch of 60 px, reduced by pitch / 30 above: the cost
 * then depends on the number of tubercles more than on the pixel count.
 */
#include "detect.h"
#include "clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blob_measure.h"
#include "detect_internal.h"
#include "lattice_estimate.h"
#include "preprocess.h"

int fs_cand_append(fs_cand_list *l, const fs_cand *c)
{
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 256;
		fs_cand *p = realloc(l->items, nc * sizeof *p);
		if (!p)
			return -1;
		l->items = p;
		l->cap = nc;
	}
	l->items[l->n++] = *c;
	return 0;
}

void fs_cand_free(fs_cand_list *l)
{
	if (!l)
		return;
	free(l->items);
	memset(l, 0, sizeof *l);
}

int fs_det_preprocess(const fs_image *img, const fs_params *p, int clahe_tile, fs_image **out,
		      char *err, size_t errlen)
{
	fs_image *pre = fs_image_clone(img);
	if (!pre) {
		snprintf(err, errlen, "preprocess: out of memory");
		return -1;
	}
	if (fs_white_tophat(pre, p->tophat_radius, err, errlen) ||
	    fs_clahe(pre, p->clahe_clip, clahe_tile, err, errlen) ||
	    fs_gaussian_blur(pre, p->blur_sigma, err, errlen)) {
		fs_image_free(pre);
		return -1;
	}
	fs_normalize(pre);
	*out = pre;
	return 0;
}

static int cmp_cand_desc(const void *a, const void *b)
{
	const fs_cand *x = a, *y = b;
	if (x->response != y->response)
		return x->response < y->response ? 1 : -1;
	if (x->y != y->y)
		return x->y < y->y ? -1 : 1;
	return x->x < y->x ? -1 : x->x > y->x;
}

int fs_det_peaks(const fs_image *resp, double min_value, double min_dist, fs_cand_list *out)
{
	int w = resp->width, h = resp->height;
	fs_cand_list all = {0};
	unsigned char *taken = NULL;
	int rc = -1;
	for (int y = 0; y < h; y++) {
		for (int x = 0; x < w; x++) {
			const float *q = resp->data + (size_t)y * w + x;
			float v = *q;
			if (!(v > min_value))
				continue;
			/* Interior pixels: most fail on one of the first comparisons,
			 * without the bounds checks of the general case below. */
			if (x > 0 && y > 0 && x < w - 1 && y < h - 1) {
				if (q[-1] >= v || q[1] > v || q[-w] >= v || q[w] > v || q[-w - 1] >= v ||
				    q[-w + 1] >= v || q[w - 1] > v || q[w + 1] > v)
					continue;
				fs_cand c = {x, y, v, 0};
				if (fs_cand_append(&all, &c))
					goto out;
				continue;
			}
			int ok = 1;
			for (int dy = -1; dy <= 1 && ok; dy++) {
				int yy = y + dy;
				if (yy < 0 || yy >= h)
					continue;
				for (int dx = -1; dx <= 1; dx++) {
					int xx = x + dx;
					if (xx < 0 || xx >= w || (!dx && !dy))
						continue;
					float u = resp->data[(size_t)yy * w + xx];
					/* Plateaus: only the first pixel in scan order wins. */
					if (u > v || (u == v && (dy < 0 || (dy == 0 && dx < 0)))) {
						ok = 0;
						break;
					}
				}
			}
			if (ok) {
				fs_cand c = {x, y, v, 0};
				if (fs_cand_append(&all, &c))
					goto out;
			}
		}
	}
	if (all.n)
		qsort(all.items, all.n, sizeof *all.items, cmp_cand_desc);
	taken = calloc((size_t)w * h, 1);
	if (!taken)
		goto out;
	int R = (int)ceil(min_dist);
	double md2 = min_dist * min_dist;
	for (size_t i = 0; i < all.n; i++) {
		int x = (int)all.items[i].x, y = (int)all.items[i].y;
		if (taken[(size_t)y * w + x])
			continue;
		if (fs_cand_append(out, &all.items[i]))
			goto out;
		for (int dy = -R; dy <= R; dy++) {
			int yy = y + dy;
			if (yy < 0 || yy >= h)
				continue;
			for (int dx = -R; dx <= R; dx++) {
				int xx = x + dx;
				if (xx >= 0 && xx < w && dx * dx + dy * dy < md2)
					taken[(size_t)yy * w + xx] = 1;
			}
		}
	}
	rc = 0;
out:
	fs_cand_free(&all);
	free(taken);
	return rc;
}

void fs_det_prominence(const fs_image *resp, fs_cand_list *c, double radius)
{
	int w = resp->width, h = resp->height;
	int nr = radius >= 1 ? (int)radius : 0;
	/* Ray offsets are the same for every candidate: the candidates sit on
	 * pixel centres, so lround(x + r cos) = x + lround(r cos). */
	int *off = malloc((size_t)(16 * nr + 1) * 2 * sizeof *off);
	if (off) {
		for (int k = 0; k < 16; k++) {
			for (int r = 1; r <= nr; r++) {
				off[2 * (k * nr + r - 1)] = (int)lround(cos(k * M_PI / 8) * r);
				off[2 * (k * nr + r - 1) + 1] = (int)lround(sin(k * M_PI / 8) * r);
			}
		}
	}
	for (size_t i = 0; i < c->n; i++) {
		double x = c->items[i].x, y = c->items[i].y;
		float top = resp->data[(size_t)(int)y * w + (int)x];
		float lo = top;
		int on_pixel = x == floor(x) && y == floor(y);
		for (int k = 0; k < 16; k++) {
			double cs = 0, sn = 0;
			if (!off || !on_pixel) {
				cs = cos(k * M_PI / 8);
				sn = sin(k * M_PI / 8);
			}
			for (int r = 1; r <= nr; r++) {
				int xx, yy;
				if (off && on_pixel) {
					xx = (int)x + off[2 * (k * nr + r - 1)];
					yy = (int)y + off[2 * (k * nr + r - 1) + 1];
				} else {
					xx = (int)lround(x + cs * r);
					yy = (int)lround(y + sn * r);
				}
				if (xx < 0 || yy < 0 || xx >= w || yy >= h)
					break;
				float v = resp->data[(size_t)yy * w + xx];
				if (v < lo)
					lo = v;
			}
		}
		c->items[i].response = top - lo;
	}
	free(off);
}

struct measured {
	fs_tubercle t;
	int ok;
};

struct raster {
	size_t i;
	long band; /* 8-px band of rows */
	double x;
};

static int cmp_raster(const void *a, const void *b)
{
	const struct raster *p = a, *q = b;
	if (p->band != q->band)
		return p->band < q->band ? -1 : 1;
	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return (p->i > q->i) - (p->i < q->i);
}

int fs_det_measure(const fs_meas *m, const fs_cand_list *c, double max_r, double min_sep,
		   const fs_params *p, fs_source source, fs_tubercle_list *out)
{
	int rc = -1;
	int w = m->width, h = m->height;
	double F = m->f, mg = p->edge_margin_px;
	/* Duplicates are looked up in a grid of min_sep cells (3 x 3 cells
	 * around a centre) instead of against every kept tubercle. */
	double cs = min_sep > 1 ? min_sep : 1;
	int gw = (int)(w / cs) + 1, gh = (int)(h / cs) + 1;
	long *head = malloc((size_t)gw * gh * sizeof *head);
	long *next = malloc((c->n + out->n + 1) * sizeof *next);
	struct measured *meas = NULL;
	struct raster *order = NULL;
	if (!head || !next)
		goto out;
	for (size_t i = 0; i < (size_t)gw * gh; i++)
		head[i] = -1;
	for (size_t j = 0; j < out->n; j++) {
		int gx = (int)(out->items[j].centroid_x / cs), gy = (int)(out->items[j].centroid_y / cs);
		if (gx < 0 || gy < 0 || gx >= gw || gy >= gh)
			continue;
		next[j] = head[(size_t)gy * gw + gx];
		head[(size_t)gy * gw + gx] = (long)j;
	}
	/* Measure in raster order (candidates come strongest first, scattered
	 * over the image, and the rays then miss the cache on every blob), and
	 * keep in candidate order below, so the strongest of two duplicates
	 * still wins. */
	meas = malloc((c->n ? c->n : 1) * sizeof *meas);
	order = malloc((c->n ? c->n : 1) * sizeof *order);
	if (!meas || !order)
		goto out;
	for (size_t i = 0; i < c->n; i++) {
		order[i].i = i;
		order[i].band = (long)(c->items[i].y / 8);
		order[i].x = c->items[i].x;
	}
	qsort(order, c->n, sizeof *order, cmp_raster);
	for (size_t k = 0; k < c->n; k++) {
		size_t i = order[k].i;
		double mr = max_r > 0 ? max_r : 2 * c->items[i].r;
		memset(&meas[i].t, 0, sizeof meas[i].t);
		/* Pixel centres: input pixel x lies at (x + 0.5) / F - 0.5 of m. */
		meas[i].ok = fs_blob_measure(m->img, (c->items[i].x + 0.5) / F - 0.5,
					     (c->items[i].y + 0.5) / F - 0.5, mr / F, &meas[i].t) == 0;
	}
	for (size_t i = 0; i < c->n; i++) {
		if (!meas[i].ok)
			continue;
		fs_tubercle t = meas[i].t;
		t.centroid_x = (t.centroid_x + 0.5) * F - 0.5;
		t.centroid_y = (t.centroid_y + 0.5) * F - 0.5;
		t.radius_px *= F;
		t.major_axis_px *= F;
		t.minor_axis_px *= F;
		if (t.circularity < p->min_circularity)
			continue;
		if (t.centroid_x < mg || t.centroid_y < mg || t.centroid_x > w - 1 - mg ||
		    t.centroid_y > h - 1 - mg)
			continue;
		int gx = (int)(t.centroid_x / cs), gy = (int)(t.centroid_y / cs);
		int dup = 0;
		for (int yy = gy - 1; yy <= gy + 1 && !dup; yy++) {
			for (int xx = gx - 1; xx <= gx + 1 && !dup; xx++) {
				if (xx < 0 || yy < 0 || xx >= gw || yy >= gh)
					continue;
				for (long j = head[(size_t)yy * gw + xx]; j >= 0 && !dup; j = next[j]) {
					double dx = out->items[j].centroid_x - t.centroid_x;
					double dy = out->items[j].centroid_y - t.centroid_y;
					dup = dx * dx + dy * dy < min_sep * min_sep;
				}
			}
		}
		if (dup)
			continue;
		t.id = (int)out->n + 1;
		t.source = source;
		if (fs_tubercle_list_append(out, &t))
			goto out;
		next[out->n - 1] = head[(size_t)gy * gw + gx];
		head[(size_t)gy * gw + gx] = (long)(out->n - 1);
	}
	rc = 0;
out:
	free(head);
	free(next);
	free(meas);
	free(order);
	return rc;
}

int fs_det_scale_peaks(fs_image *const *layers, const double *radii, int n, double thr,
		       fs_cand_list *out)
{
	fs_cand_list all = {0};
	int w = layers[0]->width, h = layers[0]->height;
	for (int s = 0; s < n; s++) {
		const float *L = layers[s]->data;
		for (int y = 0; y < h; y++) {
			for (int x = 0; x < w; x++) {
				float v = L[(size_t)y * w + x];
				if (!(v > thr))
					continue;
				int ok = 1;
				for (int ds = -1; ds <= 1 && ok; ds++) {
					int ss = s + ds;
					if (ss < 0 || ss >= n)
						continue;
					const float *M = layers[ss]->data;
					for (int dy = -1; dy <= 1 && ok; dy++) {
						int yy = y + dy;
						if (yy < 0 || yy >= h)
							continue;
						for (int dx = -1; dx <= 1; dx++) {
							int xx = x + dx;
							if (xx < 0 || xx >= w || (!dx && !dy && !ds))
								continue;
							if (M[(size_t)yy * w + xx] > v) {
								ok = 0;
								break;
							}
						}
					}
				}
				if (ok) {
					fs_cand c = {x, y, v, radii[s]};
					if (fs_cand_append(&all, &c)) {
						fs_cand_free(&all);
						return -1;
					}
				}
			}
		}
	}
	if (all.n)
		qsort(all.items, all.n, sizeof *all.items, cmp_cand_desc);
	/* Greedy overlap removal, strongest first; O(n^2) is fine for the few
	 * thousand blobs an image holds. */
	size_t first = out->n;
	for (size_t i = 0; i < all.n; i++) {
		const fs_cand *a = &all.items[i];
		int clash = 0;
		for (size_t j = first; j < out->n && !clash; j++) {
			const fs_cand *b = &out->items[j];
			if (hypot(a->x - b->x, a->y - b->y) < fmax(a->r, b->r))
				clash = 1;
		}
		if (!clash && fs_cand_append(out, a)) {
			fs_cand_free(&all);
			return -1;
		}
	}
	fs_cand_free(&all);
	return 0;
}

void fs_det_radius_range(const fs_params *p, double um_per_px, double *rmin, double *rmax)
{
	double c = um_per_px > 0 ? um_per_px : 1;
	*rmin = 0.5 * p->min_diameter_um / c;
	*rmax = 0.5 * p->max_diameter_um / c;
	if (*rmin < 1)
		*rmin = 1;
	if (*rmax < *rmin + 1)
		*rmax = *rmin + 1;
}

int fs_detect(const fs_image *img, const fs_params *p, double um_per_px, fs_detect_result *out,
	      char *err, size_t errlen)
{
	int rc = -1;
	fs_image *pre = NULL, *meas = NULL;
	fs_lattice lat = {0};
	if (!out) {
		snprintf(err, errlen, "detect: no result");
		return -1;
	}
	memset(out, 0, sizeof *out);
	if (!img || !img->data || img->width < 1 || img->height < 1) {
		snprintf(err, errlen, "detect: no image");
		return -1;
	}
	if (fs_params_validate(p, err, errlen))
		return -1;
	int needs_cal = p->method != FS_METHOD_AUTO && p->method != FS_METHOD_LATTICE;
	if (needs_cal && !(um_per_px > 0 && isfinite(um_per_px))) {
		snprintf(err, errlen, "detect: method %s needs a calibration (um per pixel > 0)",
			 fs_method_name(p->method));
		return -1;
	}
	double t0 = 1e3 * fs_mono_s();
	int tile = p->clahe_kernel;
	int f = 1;
	fs_params pp = *p;
	if (!needs_cal) {
		if (img->width < 32 || img->height < 32) {
			rc = 0; /* too small to hold a lattice: nothing found */
			goto out;
		}
		if (fs_lattice_estimate(img, &lat, err, errlen))
			goto out;
		out->pitch_px = lat.pitch_px;
		out->lattice_angle = lat.angle;
		if (lat.pitch_px > 0 && tile < 3 * lat.pitch_px)
			tile = (int)lround(3 * lat.pitch_px);
		/* Detection at the lattice scale does not need more than ~10 px per
		 * pitch: reduce the image (and the pixel-sized parameters) by f.
		 * Measurement still runs at full resolution. */
		if (lat.pitch_px >= 20) {
			f = (int)(lat.pitch_px / 10);
			tile = tile / f > 2 ? tile / f : 2;
			pp.blur_sigma = p->blur_sigma / f;
			pp.tophat_radius = p->tophat_radius > 0 ? (p->tophat_radius + f - 1) / f : 0;
		}
	}
	if (f > 1) {
		fs_image *small = fs_downsample(img, f);
		if (!small) {
			snprintf(err, errlen, "detect: out of memory");
			goto out;
		}
		int prc = fs_det_preprocess(small, &pp, tile, &pre, err, errlen);
		fs_image_free(small);
		if (prc)
			goto out;
	} else if (fs_det_preprocess(img, p, tile, &pre, err, errlen)) {
		goto out;
	}
	/* Measure with 3 % of the pitch of smoothing when there is a lattice,
	 * else 5 % of the mean expected diameter: enough to calm noise along
	 * the rays, little enough not to move the half-level edge. */
	double msig;
	if (lat.pitch_px > 0) {
		msig = 0.03 * lat.pitch_px;
	} else {
		double rmin, rmax;
		fs_det_radius_range(p, um_per_px, &rmin, &rmax);
		msig = 0.05 * (rmin + rmax);
	}
	/* Pitches of 60 px and more are measured at 1 / (pitch / 30) of the
	 * resolution: the smallest tubercles (0.15 pitch radius) still span
	 * 4.5 px there. The block mean already smooths by a variance of
	 * fm^2 / 12 px^2, which the measurement blur makes up to msig. */
	int fm = lat.pitch_px >= 60 ? (int)(lat.pitch_px / 30) : 1; /* 0 pitch: log, dog, ellipse */
	if (fm > 1) {
		fs_image *small = fs_downsample(img, fm);
		fs_params pm = *p;
		pm.tophat_radius = p->tophat_radius > 0 ? (p->tophat_radius + fm - 1) / fm : 0;
		double s2 = msig * msig - fm * fm / 12.0;
		int mrc = small ? fs_detect_measure_image(small, &pm, s2 > 0 ? sqrt(s2) / fm : 0,
							  &meas, err, errlen)
				: -1;
		if (!small)
			snprintf(err, errlen, "detect: out of memory");
		fs_image_free(small);
		if (mrc)
			goto out;
	} else if (fs_detect_measure_image(img, p, msig, &meas, err, errlen)) {
		goto out;
	}
	fs_meas m = {meas, fm, img->width, img->height};
	double t1 = 1e3 * fs_mono_s();
	out->ms_preprocess = t1 - t0;
	switch (p->method) {
	case FS_METHOD_AUTO:
		rc = lat.pitch_px > 0 ? fs_detect_auto(pre, &m, f, p, &lat, out, err, errlen) : 0;
		break;
	case FS_METHOD_LATTICE:
		rc = lat.pitch_px > 0 ? fs_detect_lattice(pre, &m, f, p, &lat, out, err, errlen) : 0;
		break;
	case FS_METHOD_LOG:
		rc = fs_detect_log(pre, meas, p, um_per_px, out, err, errlen);
		break;
	case FS_METHOD_DOG:
		rc = fs_detect_dog(pre, meas, p, um_per_px, out, err, errlen);
		break;
	case FS_METHOD_ELLIPSE:
		rc = fs_detect_ellipse(pre, meas, p, um_per_px, out, err, errlen);
		break;
	}
	out->ms_detect = 1e3 * fs_mono_s() - t1;
out:
	fs_image_free(pre);
	fs_image_free(meas);
	if (rc)
		fs_tubercle_list_free(&out->tubercles);
	return rc;
}

void fs_detect_result_free(fs_detect_result *r)
{
	if (!r)
		return;
	fs_tubercle_list_free(&r->tubercles);
}
