/*
 * detect_pre_region.c - the detection's preprocessing one rectangle at a
 * time (see detect_pre_region.h).
 *
 * The stages of fs_det_preprocess are numbered: 0 the top-hat (or the
 * input), 1 CLAHE before its final stretch, 2 the blur of CLAHE's stretched
 * output, 3 the final stretch. stage() makes stage k over a rectangle from
 * stage k - 1 over the rectangle the filter reads, recursively; the plan's
 * passes find the extremes of stages 0, 1 and 2 in that order, each with
 * the extremes already found.
 */
#include "analysis/detect_pre_region.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/clahe_region.h"
#include "analysis/preprocess.h"
#include "analysis/preprocess_tiled.h"
#include "base/tile_pool.h"

typedef struct rect {
	int x, y, w, h;
} rect;

/* r widened by m on every side, clipped to the image */
static rect widen(const fs_pre_plan *pl, rect r, int m)
{
	int x0 = r.x - m < 0 ? 0 : r.x - m, y0 = r.y - m < 0 ? 0 : r.y - m;
	int x1 = r.x + r.w + m, y1 = r.y + r.h + m;
	x1 = x1 > pl->img->width ? pl->img->width : x1;
	y1 = y1 > pl->img->height ? pl->img->height : y1;
	return (rect){x0, y0, x1 - x0, y1 - y0};
}

/* The part r of img, which holds the rectangle `at`; img is freed. */
static fs_image *cut(fs_image *img, rect at, rect r, char *err, size_t errlen)
{
	if (!img)
		return NULL;
	if (at.x == r.x && at.y == r.y && at.w == r.w && at.h == r.h)
		return img;
	fs_image *o = fs_image_new_uninit(r.w, r.h);
	if (!o) {
		snprintf(err, errlen, "preprocess: out of memory");
	} else {
		for (int y = 0; y < r.h; y++)
			memcpy(o->data + (size_t)y * r.w,
			       img->data + (size_t)(y + r.y - at.y) * at.w + (r.x - at.x), (size_t)r.w * sizeof *o->data);
	}
	fs_image_free(img);
	return o;
}

static fs_image *stage(const fs_pre_plan *pl, rect r, int k, char *err, size_t errlen)
{
	const fs_params *p = &pl->p;
	if (k == 0) {
		/* the top-hat's own tiles' function (preprocess_tiled.h) */
		fs_image *img = fs_image_new_uninit(r.w, r.h);
		if (!img) {
			snprintf(err, errlen, "preprocess: out of memory");
			return NULL;
		}
		if (fs_white_tophat_rect(pl->img, p->tophat_radius, r.x, r.y, r.w, r.h, img->data, (size_t)r.w, err,
					 errlen)) {
			fs_image_free(img);
			return NULL;
		}
		return img;
	}
	if (k == 1) {
		if (p->clahe_clip == 0)
			return stage(pl, r, 0, err, errlen);
		rect c;
		int x1, y1;
		fs_clahe_span(r.x, r.w, pl->clahe_tile, pl->img->width, &c.x, &x1);
		fs_clahe_span(r.y, r.h, pl->clahe_tile, pl->img->height, &c.y, &y1);
		c.w = x1 - c.x;
		c.h = y1 - c.y;
		fs_image *in = stage(pl, c, 0, err, errlen);
		fs_image *o = in ? fs_image_new_uninit(r.w, r.h) : NULL;
		if (in && !o)
			snprintf(err, errlen, "preprocess: out of memory");
		if (o) {
			fs_normalize_range(in, pl->lo[0], pl->hi[0]);
			if (fs_clahe_region(in->data, c.x, c.y, c.w, c.h, pl->img->width, pl->img->height, p->clahe_clip,
					    pl->clahe_tile, r.x, r.y, r.w, r.h, o->data, err, errlen)) {
				fs_image_free(o);
				o = NULL;
			}
		}
		fs_image_free(in);
		return o;
	}
	if (k == 2) {
		rect c = p->blur_sigma > 0 ? widen(pl, r, fs_gaussian_radius(p->blur_sigma)) : r;
		fs_image *img = stage(pl, c, 1, err, errlen);
		if (!img)
			return NULL;
		if (p->clahe_clip > 0)
			fs_normalize_range(img, pl->lo[1], pl->hi[1]);
		if (fs_gaussian_blur(img, p->blur_sigma, err, errlen)) {
			fs_image_free(img);
			return NULL;
		}
		return cut(img, c, r, err, errlen);
	}
	fs_image *img = stage(pl, r, 2, err, errlen);
	if (img)
		fs_normalize_range(img, pl->lo[2], pl->hi[2]);
	return img;
}

/* One pass of the extremes: tile k's minimum and maximum of stage `stage`
 * in its own slots, so the threads share nothing but the plan (read only). */
typedef struct extremes_pass {
	const fs_pre_plan *pl;
	int stage, tile, ntx;
	float *lo, *hi;
} extremes_pass;

static int extremes_tile(size_t k, void *ctx, char *err, size_t errlen)
{
	extremes_pass *e = ctx;
	int W = e->pl->img->width, H = e->pl->img->height;
	int x = (int)(k % (size_t)e->ntx) * e->tile, y = (int)(k / (size_t)e->ntx) * e->tile;
	rect r = {x, y, x + e->tile < W ? e->tile : W - x, y + e->tile < H ? e->tile : H - y};
	fs_image *img = stage(e->pl, r, e->stage, err, errlen);
	if (!img)
		return -1;
	fs_minmax(img, &e->lo[k], &e->hi[k]);
	fs_image_free(img);
	return 0;
}

/* The extremes of stage k over the whole image, a tile at a time in
 * `threads` threads (this is most of the tiled candidate step's extra CPU:
 * CLAHE runs once per stage). The tiles' extremes are combined in tile
 * order afterwards, as the one-thread loop combined them. */
static int extremes(fs_pre_plan *pl, int k, int tile, int threads, char *err, size_t errlen)
{
	int W = pl->img->width, H = pl->img->height;
	extremes_pass e = {.pl = pl, .stage = k, .tile = tile, .ntx = (W + tile - 1) / tile};
	size_t n = (size_t)e.ntx * (size_t)((H + tile - 1) / tile);
	e.lo = malloc(n * sizeof *e.lo);
	e.hi = malloc(n * sizeof *e.hi);
	if (!e.lo || !e.hi) {
		free(e.lo);
		free(e.hi);
		snprintf(err, errlen, "preprocess: out of memory");
		return -1;
	}
	int rc = fs_tile_pool_run(n, threads, extremes_tile, NULL, &e, err, errlen);
	float lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; !rc && i < n; i++) {
		lo = e.lo[i] < lo ? e.lo[i] : lo;
		hi = e.hi[i] > hi ? e.hi[i] : hi;
	}
	free(e.lo);
	free(e.hi);
	if (rc)
		return -1;
	pl->lo[k] = lo;
	pl->hi[k] = hi;
	return 0;
}

int fs_pre_plan_make(fs_pre_plan *pl, const fs_image *img, const fs_params *p, int clahe_tile, int tile_px,
		     int threads, char *err, size_t errlen)
{
	memset(pl, 0, sizeof *pl);
	if (!img || img->width < 1 || img->height < 1 || tile_px < 16) {
		snprintf(err, errlen, "preprocess: no image or tile");
		return -1;
	}
	if (p->clahe_clip > 0 && (clahe_tile < 2 || !(p->clahe_clip <= 1))) {
		snprintf(err, errlen, "clahe: clip must be in [0, 1] and tile >= 2");
		return -1;
	}
	pl->img = img;
	pl->p = *p;
	pl->clahe_tile = clahe_tile;
	if (p->clahe_clip > 0 && (extremes(pl, 0, tile_px, threads, err, errlen) ||
				  extremes(pl, 1, tile_px, threads, err, errlen)))
		return -1;
	return extremes(pl, 2, tile_px, threads, err, errlen);
}

fs_image *fs_pre_region(const fs_pre_plan *pl, int x, int y, int w, int h, char *err, size_t errlen)
{
	if (!pl->img || w < 1 || h < 1 || x < 0 || y < 0 || x + w > pl->img->width || y + h > pl->img->height) {
		snprintf(err, errlen, "preprocess: region outside the image");
		return NULL;
	}
	return stage(pl, (rect){x, y, w, h}, 3, err, errlen);
}
