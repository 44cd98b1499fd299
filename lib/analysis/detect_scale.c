/*
 * detect_scale.c - log, dog and ellipse whole or tile by tile (see
 * detect_scale.h): the choice, the preprocessing plan, the measurement's
 * setting, and the loop over tiles (in threads through base/tile_pool.h,
 * as detect_tiled.c's).
 */
#include "analysis/detect_scale.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_methods.h"
#include "base/clock.h"
#include "base/tile_pool.h"

struct tiles {
	const fs_det_source *s;
	int overlap, ntx;
	fs_det_tile_fn fn;
	void *ctx;
	/* the method's results, which its tiles gather in the order they
	 * finish: they are sums or are sorted by a total order afterwards */
	pthread_mutex_t lock;
};

/* The pool's work on tile k: its preprocessed crop, then the method. */
static int one_tile(size_t k, void *arg, char *err, size_t errlen)
{
	struct tiles *t = arg;
	const fs_det_source *s = t->s;
	int tx = (int)(k % t->ntx), ty = (int)(k / t->ntx);
	int x0 = tx * s->tile, y0 = ty * s->tile;
	int x1 = x0 + s->tile < s->width ? x0 + s->tile : s->width;
	int y1 = y0 + s->tile < s->height ? y0 + s->tile : s->height;
	int cx0 = x0 - t->overlap > 0 ? x0 - t->overlap : 0, cy0 = y0 - t->overlap > 0 ? y0 - t->overlap : 0;
	int cx1 = x1 + t->overlap < s->width ? x1 + t->overlap : s->width;
	int cy1 = y1 + t->overlap < s->height ? y1 + t->overlap : s->height;
	fs_image *pre = fs_pre_region(s->plan, cx0, cy0, cx1 - cx0, cy1 - cy0, err, errlen);
	if (!pre)
		return -1;
	fs_det_tile dt = {.pre = pre, .ox = cx0, .oy = cy0, .x0 = x0 - cx0, .y0 = y0 - cy0, .x1 = x1 - cx0,
			  .y1 = y1 - cy0, .lock = &t->lock};
	int rc = t->fn(&dt, t->ctx, err, errlen);
	fs_image_free(pre);
	return rc;
}

int fs_det_for_tiles(const fs_det_source *s, int overlap, fs_det_tile_fn fn, void *ctx, char *err, size_t errlen)
{
	if (s->pre) {
		fs_det_tile dt = {.pre = s->pre, .x1 = s->pre->width, .y1 = s->pre->height};
		return fn(&dt, ctx, err, errlen);
	}
	if (!s->plan || s->tile < 1) {
		snprintf(err, errlen, "detect: no image to detect on");
		return -1;
	}
	struct tiles t;
	memset(&t, 0, sizeof t);
	t.s = s;
	t.overlap = overlap;
	t.ntx = (s->width + s->tile - 1) / s->tile;
	int nty = (s->height + s->tile - 1) / s->tile;
	t.fn = fn;
	t.ctx = ctx;
	pthread_mutex_init(&t.lock, NULL);
	int rc = fs_tile_pool_run((size_t)t.ntx * nty, s->threads, one_tile, NULL, &t, err, errlen);
	pthread_mutex_destroy(&t.lock);
	return rc;
}

void fs_det_sigma_range(const fs_params *p, double um_per_px, double *smin, double *smax, double *rmin)
{
	double rmax;
	fs_det_radius_range(p, um_per_px, rmin, &rmax);
	*smin = fmax(1.0, *rmin / M_SQRT2);
	*smax = fmax(*smin + 1, rmax / M_SQRT2);
}

int fs_det_scale_keep(const fs_det_tile *t, fs_image *const *layers, const double *radii, int n, double thr,
		      fs_cand_list *all, const char *name, char *err, size_t errlen)
{
	fs_cand_list mine = {0};
	int rc = fs_det_scale_maxima(layers, radii, n, thr, t->x0, t->y0, t->x1, t->y1, t->ox, t->oy, &mine);
	if (!rc) {
		if (t->lock)
			pthread_mutex_lock(t->lock);
		for (size_t i = 0; i < mine.n && !rc; i++)
			rc = fs_cand_append(all, &mine.items[i]);
		if (t->lock)
			pthread_mutex_unlock(t->lock);
	}
	if (rc)
		snprintf(err, errlen, "%s: out of memory", name);
	fs_cand_free(&mine);
	return rc ? -1 : 0;
}

int fs_det_scale_run(const fs_det_source *s, const fs_meas *m, const fs_params *p, double rmin, int overlap,
		     fs_det_tile_fn fn, void *ctx, fs_cand_list *all, const char *name, fs_detect_result *out,
		     char *err, size_t errlen)
{
	int rc = -1;
	fs_cand_list c = {0};
	fs_meas mm = *m;
	mm.dome = 0; /* profiles (the base rule only lightens the blur) */
	mm.refine = 0;
	if (fs_det_for_tiles(s, overlap, fn, ctx, err, errlen))
		goto out;
	if (fs_det_scale_suppress(all, s->width, s->height, &c) ||
	    fs_det_measure(&mm, &c, 0, 0.5 * rmin, p, FS_SOURCE_EXTRACTED, &out->tubercles)) {
		snprintf(err, errlen, "%s: out of memory", name);
		goto out;
	}
	rc = 0;
out:
	fs_cand_free(all);
	fs_cand_free(&c);
	return rc;
}

int fs_detect_scale(const fs_image *img, const fs_params *p, double um_per_px, int dome, fs_detect_result *out,
		    char *err, size_t errlen)
{
	int rc = -1;
	fs_image *pre = NULL, *meas = NULL, *fimg = NULL;
	fs_pre_plan plan;
	int tile, threads;
	double t0 = 1e3 * fs_mono_s();
	fs_detect_get_tiling(&tile, &threads);
	/* An image of at most four tiles is detected whole: its layers are
	 * small, and the tiles' overlaps and the extremes' passes would cost
	 * more than they save (the results are the same). */
	int tiled = tile > 0 && (double)img->width * img->height > 4.0 * tile * tile;
	/* Measure with 5 % of the mean expected diameter of smoothing: enough
	 * to calm noise along the rays, little enough not to move the
	 * half-level edge (the base rule with less, as detect.c). */
	double rmin, rmax;
	fs_det_radius_range(p, um_per_px, &rmin, &rmax);
	double msig = dome ? 0.5 : 0.05 * (rmin + rmax);
	fs_det_source src = {.tile = tile, .threads = threads, .width = img->width, .height = img->height};
	fs_meas m = {.f = 1, .width = img->width, .height = img->height, .src = img, .mp = p, .sigma = msig,
		     .tile = tile, .threads = threads};
	if (tiled) {
		if (fs_pre_plan_make(&plan, img, p, p->clahe_kernel, tile, threads, err, errlen))
			goto out;
		src.plan = &plan;
	} else {
		/* (a compact img is converted by the preprocessing's own copy) */
		if (fs_det_preprocess(img, p, p->clahe_kernel, &pre, err, errlen))
			goto out;
		src.pre = pre;
		/* ellipse measures region moments, not profiles */
		if (p->method != FS_METHOD_ELLIPSE) {
			if (!(fimg = img->bits ? fs_image_to_float(img) : NULL) && img->bits) {
				snprintf(err, errlen, "detect: out of memory");
				goto out;
			}
			if (fs_detect_measure_image(fimg ? fimg : img, p, msig, &meas, err, errlen))
				goto out;
			fs_image_free(fimg);
			fimg = NULL;
			m.img = meas;
		}
	}
	double t1 = 1e3 * fs_mono_s();
	out->ms_preprocess = t1 - t0;
	switch (p->method) {
	case FS_METHOD_LOG:
		rc = fs_detect_log(&src, &m, p, um_per_px, out, err, errlen);
		break;
	case FS_METHOD_DOG:
		rc = fs_detect_dog(&src, &m, p, um_per_px, out, err, errlen);
		break;
	case FS_METHOD_ELLIPSE:
		rc = fs_detect_ellipse(&src, p, um_per_px, out, err, errlen);
		break;
	default:
		snprintf(err, errlen, "detect: method %s has no scale layers", fs_method_name(p->method));
		break;
	}
	out->ms_detect = 1e3 * fs_mono_s() - t1;
out:
	fs_image_free(pre);
	fs_image_free(meas);
	fs_image_free(fimg);
	return rc;
}
