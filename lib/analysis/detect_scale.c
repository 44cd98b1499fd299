/*
 * detect_scale.c - log, dog and ellipse whole or tile by tile (see
 * detect_scale.h): the choice, the preprocessing plan, the measurement's
 * setting, and the loop over tiles (in threads as detect_tiled.c's).
 */
#include "analysis/detect_scale.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_methods.h"
#include "base/clock.h"

struct tiles {
	const fs_det_source *s;
	int overlap, ntx, nty;
	fs_det_tile_fn fn;
	void *ctx;
	pthread_mutex_t lock; /* next, failed, err; and the method's results */
	int next, failed;
	char err[160];
};

static int one_tile(struct tiles *t, int k, char *err, size_t errlen)
{
	const fs_det_source *s = t->s;
	int tx = k % t->ntx, ty = k / t->ntx;
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

static void *worker(void *arg)
{
	struct tiles *t = arg;
	char err[160];
	for (;;) {
		pthread_mutex_lock(&t->lock);
		int k = t->failed ? -1 : t->next < t->ntx * t->nty ? t->next++ : -1;
		pthread_mutex_unlock(&t->lock);
		if (k < 0)
			break;
		if (one_tile(t, k, err, sizeof err)) {
			pthread_mutex_lock(&t->lock);
			if (!t->failed)
				snprintf(t->err, sizeof t->err, "%s", err);
			t->failed = 1;
			pthread_mutex_unlock(&t->lock);
			break;
		}
	}
	return NULL;
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
	t.nty = (s->height + s->tile - 1) / s->tile;
	t.fn = fn;
	t.ctx = ctx;
	pthread_mutex_init(&t.lock, NULL);
	int nth = s->threads > 1 ? s->threads : 1;
	nth = nth > t.ntx * t.nty ? t.ntx * t.nty : nth;
	pthread_t th[8];
	int started = 0;
	for (int i = 1; i < nth && i < 8; i++)
		if (pthread_create(&th[started], NULL, worker, &t) == 0)
			started++;
	worker(&t); /* this thread works too: one thread = no thread started */
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&t.lock);
	if (t.failed) {
		snprintf(err, errlen, "%s", t.err);
		return -1;
	}
	return 0;
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
		if (fs_pre_plan_make(&plan, img, p, p->clahe_kernel, tile, err, errlen))
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
