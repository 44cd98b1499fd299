/*
 * detect_cand_tiled.c - auto's peaks and lattice's recovery searches tile
 * by tile from the preprocessing plan (see detect_cand_tiled.h).
 */
#include "analysis/detect_cand_tiled.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/preprocess.h"

/* What a maximum keeps besides its fs_cand until the suppression has
 * chosen: found where its tile's response is at hand. */
typedef struct peak_extra {
	float prom;
	double dx, dy;
} peak_extra;

typedef struct auto_ctx {
	double radius;
	int W, H, reach;
	fs_cand_list all;
	peak_extra *ex;
	size_t nex, cap;
	fs_tile_resp_fn resp_fn;
	void *resp_ctx;
} auto_ctx;

/* Appends a tile's maxima and their extras (under the tiles' lock). */
static int auto_gather(auto_ctx *a, const fs_cand_list *loc, const peak_extra *ex)
{
	if (a->nex + loc->n > a->cap) {
		size_t nc = (a->nex + loc->n) * 2;
		peak_extra *p = realloc(a->ex, nc * sizeof *p);
		if (!p)
			return -1;
		a->ex = p;
		a->cap = nc;
	}
	for (size_t i = 0; i < loc->n; i++) {
		/* The maximum's extras are found again by their index, kept in
		 * r through the suppression: r orders candidates only after
		 * their position, and a pixel holds one maximum, so it orders
		 * nothing here (the whole image's maxima have r 0; reset below). */
		fs_cand c = loc->items[i];
		c.r = (double)(a->nex + i);
		if (fs_cand_append(&a->all, &c))
			return -1;
	}
	/* a tile without maxima has no extras (ex NULL): memcpy's arguments
	 * must not be NULL even for no bytes (fuzz_tiled found it) */
	if (loc->n)
		memcpy(a->ex + a->nex, ex, loc->n * sizeof *ex);
	a->nex += loc->n;
	return 0;
}

static int auto_tile(const fs_det_tile *t, void *ctx, char *err, size_t errlen)
{
	auto_ctx *a = ctx;
	int rc = -1;
	fs_cand_list loc = {0}, pr = {0};
	peak_extra *ex = NULL;
	fs_image *resp = NULL;
	int rx = 0, ry = 0;
	if (a->resp_fn(t, a->resp_ctx, a->reach, &resp, &rx, &ry, err, errlen))
		return -1;
	/* the core in the response's pixels */
	int cx0 = t->x0 + t->ox - rx, cy0 = t->y0 + t->oy - ry;
	int cx1 = t->x1 + t->ox - rx, cy1 = t->y1 + t->oy - ry;
	if (fs_det_maxima(resp, 0, cx0, cy0, cx1, cy1, rx, ry, a->W, a->H, &loc))
		goto oom;
	if (loc.n) {
		/* the prominence of every maximum, not only of those the
		 * suppression keeps: it reads the response within the rays'
		 * reach, which is here now and would need the tile again later */
		pr.items = malloc(loc.n * sizeof *pr.items);
		ex = malloc(loc.n * sizeof *ex);
		if (!pr.items || !ex)
			goto oom;
		pr.n = pr.cap = loc.n;
		for (size_t i = 0; i < loc.n; i++) {
			pr.items[i] = loc.items[i];
			pr.items[i].x -= rx;
			pr.items[i].y -= ry;
		}
		fs_det_prominence(resp, &pr, a->radius);
		for (size_t i = 0; i < loc.n; i++) {
			int gx = (int)loc.items[i].x, gy = (int)loc.items[i].y;
			ex[i].prom = (float)pr.items[i].response; /* a float difference */
			fs_det_peak_offset(resp, rx, ry, a->W, a->H, gx, gy, &ex[i].dx, &ex[i].dy);
		}
	}
	if (t->lock)
		pthread_mutex_lock(t->lock);
	int grc = auto_gather(a, &loc, ex);
	if (t->lock)
		pthread_mutex_unlock(t->lock);
	if (grc)
		goto oom;
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "auto: out of memory");
out:
	fs_image_free(resp);
	fs_cand_free(&loc);
	fs_cand_free(&pr);
	free(ex);
	return rc;
}

/* Auto's response: the tile's preprocessed crop smoothed, a crop at the
 * tile's own position. */
static int smoothed_resp(const fs_det_tile *t, void *ctx, int reach, fs_image **resp, int *rx, int *ry, char *err,
			 size_t errlen)
{
	(void)reach; /* the crop's overlap covers it */
	*resp = fs_gaussian_blurred(t->pre, *(const double *)ctx, err, errlen);
	*rx = t->ox;
	*ry = t->oy;
	return *resp ? 0 : -1;
}

int fs_auto_peaks_tiled(const fs_det_source *s, double sigma, double min_dist, double radius, fs_cand_list *c,
			double **off, char *err, size_t errlen)
{
	/* a core pixel's 3x3 neighbours and rays read the response (within
	 * the peaks' reach), which reads the preprocessing within the blur's */
	int overlap = fs_peaks_tiled_reach(radius) + fs_gaussian_radius(sigma);
	return fs_peaks_tiled(s, overlap, smoothed_resp, &sigma, min_dist, radius, c, off, err, errlen);
}

int fs_peaks_tiled_reach(double radius)
{
	int nr = radius >= 1 ? (int)radius : 1;
	return nr + 1;
}

int fs_peaks_tiled(const fs_det_source *s, int overlap, fs_tile_resp_fn fn, void *ctx, double min_dist,
		   double radius, fs_cand_list *c, double **off, char *err, size_t errlen)
{
	auto_ctx a = {.radius = radius, .W = s->width, .H = s->height, .reach = fs_peaks_tiled_reach(radius),
		      .resp_fn = fn, .resp_ctx = ctx};
	int rc = -1;
	*off = NULL;
	if (fs_det_for_tiles(s, overlap, auto_tile, &a, err, errlen))
		goto out;
	size_t first = c->n;
	if (fs_det_peaks_suppress(&a.all, min_dist, s->width, s->height, s->threads, c))
		goto oom;
	*off = malloc((c->n - first ? c->n - first : 1) * 2 * sizeof **off);
	if (!*off)
		goto oom;
	for (size_t i = first; i < c->n; i++) {
		size_t j = (size_t)c->items[i].r;
		if (j >= a.nex) {
			snprintf(err, errlen, "auto: a peak lost between the tiles");
			goto out;
		}
		const peak_extra *e = &a.ex[j];
		c->items[i].r = 0;
		c->items[i].response = e->prom;
		(*off)[2 * (i - first)] = e->dx;
		(*off)[2 * (i - first) + 1] = e->dy;
	}
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "auto: out of memory");
out:
	if (rc) {
		free(*off);
		*off = NULL;
	}
	fs_cand_free(&a.all);
	free(a.ex);
	return rc;
}

void fs_lattice_probe_crop(const fs_image *resp, int ox, int oy, int W, int H, int R, double radius,
			   fs_lattice_probe *q, size_t n)
{
	int rw = resp->width;
	for (size_t i = 0; i < n; i++) {
		int cx = (int)lround(q[i].sx), cy = (int)lround(q[i].sy);
		double best = -1, bx = q[i].sx, by = q[i].sy;
		for (int dy = -R; dy <= R; dy++) {
			for (int dx = -R; dx <= R; dx++) {
				int xx = cx + dx, yy = cy + dy;
				if (xx < 0 || yy < 0 || xx >= W || yy >= H || dx * dx + dy * dy > R * R)
					continue;
				double v = resp->data[(size_t)(yy - oy) * rw + (xx - ox)];
				if (v > best) {
					best = v;
					bx = xx;
					by = yy;
				}
			}
		}
		fs_cand cc = {bx - ox, by - oy, 0, 0};
		fs_cand_list one = {.items = &cc, .n = 1, .cap = 1};
		fs_det_prominence(resp, &one, radius);
		q[i].bx = bx;
		q[i].by = by;
		q[i].prom = (float)cc.response;
	}
}

/* A search's tile index, for grouping. */
typedef struct probe_at {
	long tile;
	size_t i;
} probe_at;

static int cmp_probe_at(const void *a, const void *b)
{
	const probe_at *x = a, *y = b;
	if (x->tile != y->tile)
		return x->tile < y->tile ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int clampi(long v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : (int)v;
}

static fs_image *smoothed_crop(const fs_image *pre, int x0, int y0, void *ctx, char *err, size_t errlen)
{
	(void)x0;
	(void)y0;
	return fs_gaussian_blurred(pre, *(const double *)ctx, err, errlen);
}

int fs_lattice_probe_tiled(const fs_det_source *s, double sigma, int R, double radius, fs_lattice_probe *q,
			   size_t n, char *err, size_t errlen)
{
	return fs_lattice_probe_tiled_by(s, fs_gaussian_radius(sigma) + 1, smoothed_crop, &sigma, R, radius, q, n,
					 err, errlen);
}

int fs_lattice_probe_tiled_by(const fs_det_source *s, int margin, fs_crop_resp_fn fn, void *ctx, int R,
			      double radius, fs_lattice_probe *q, size_t n, char *err, size_t errlen)
{
	int W = s->width, H = s->height, T = s->tile;
	if (!n)
		return 0;
	if (!s->plan || T < 1) {
		snprintf(err, errlen, "lattice: no image to search");
		return -1;
	}
	probe_at *at = malloc(n * sizeof *at);
	fs_lattice_probe *grp = malloc(n * sizeof *grp);
	if (!at || !grp) {
		free(at);
		free(grp);
		snprintf(err, errlen, "lattice: out of memory");
		return -1;
	}
	int ntx = (W + T - 1) / T;
	for (size_t i = 0; i < n; i++) {
		int cx = clampi(lround(q[i].sx), 0, W - 1), cy = clampi(lround(q[i].sy), 0, H - 1);
		at[i] = (probe_at){(long)(cy / T) * ntx + cx / T, i};
	}
	qsort(at, n, sizeof *at, cmp_probe_at);
	int rc = 0;
	int reach = R + (radius >= 1 ? (int)radius : 0) + 1, blur = margin;
	for (size_t g = 0; g < n && !rc;) {
		size_t e = g;
		int x0 = W, y0 = H, x1 = 0, y1 = 0;
		for (; e < n && at[e].tile == at[g].tile; e++) {
			const fs_lattice_probe *p = &q[at[e].i];
			int cx = (int)lround(p->sx), cy = (int)lround(p->sy);
			x0 = cx - reach < x0 ? cx - reach : x0;
			y0 = cy - reach < y0 ? cy - reach : y0;
			x1 = cx + reach + 1 > x1 ? cx + reach + 1 : x1;
			y1 = cy + reach + 1 > y1 ? cy + reach + 1 : y1;
			grp[e - g] = *p;
		}
		/* the searches' reach, then the response's, clipped */
		x0 = clampi((long)x0 - blur, 0, W - 1);
		y0 = clampi((long)y0 - blur, 0, H - 1);
		x1 = clampi((long)x1 + blur, 1, W);
		y1 = clampi((long)y1 + blur, 1, H);
		fs_image *pre = fs_pre_region(s->plan, x0, y0, x1 - x0, y1 - y0, err, errlen);
		fs_image *resp = pre ? fn(pre, x0, y0, ctx, err, errlen) : NULL;
		fs_image_free(pre);
		if (!resp) {
			rc = -1;
			break;
		}
		fs_lattice_probe_crop(resp, x0, y0, W, H, R, radius, grp, e - g);
		fs_image_free(resp);
		for (size_t k = g; k < e; k++)
			q[at[k].i] = grp[k - g];
		g = e;
	}
	free(at);
	free(grp);
	return rc;
}
