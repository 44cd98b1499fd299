/*
 * detect_candidates.c - preprocessing, candidate lists, peaks and prominence
 * shared by the detection methods (see detect_candidates.h).
 */
#include "analysis/detect_candidates.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/parabola_vertex.h"
#include "analysis/preprocess.h"
#include "analysis/preprocess_tiled.h"
#include "base/sorting.h"
#include "base/tile_pool.h"

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

int fs_cand_list_shifted(const fs_cand_list *c, double dx, double dy, fs_cand_list *out)
{
	*out = (fs_cand_list){0};
	out->items = malloc((c->n ? c->n : 1) * sizeof *out->items);
	if (!out->items)
		return -1;
	out->n = out->cap = c->n;
	for (size_t i = 0; i < c->n; i++) {
		out->items[i] = c->items[i];
		out->items[i].x += dx;
		out->items[i].y += dy;
	}
	return 0;
}

int fs_det_preprocess(const fs_image *img, const fs_params *p, int clahe_tile, fs_image **out,
		      char *err, size_t errlen)
{
	int tiling = 0, threads = 1;
	fs_detect_get_tiling(&tiling, &threads);
	fs_image *pre;
	if (tiling > 0) {
		/* the output is the only full-size buffer: the top-hat runs tile
		 * by tile from img (a compact img converted a crop at a time,
		 * image.h), CLAHE and the blur in place row by row */
		pre = fs_image_new_uninit(img->width, img->height);
		if (pre && fs_white_tophat_tiled(img, pre, p->tophat_radius,
						 tiling, threads, err, errlen)) {
			fs_image_free(pre);
			return -1;
		}
	} else if ((pre = fs_image_to_float(img)) &&
		   fs_white_tophat(pre, p->tophat_radius, err, errlen)) {
		/* the whole-image path (tile 0): the top-hat's temporaries are
		 * full-size */
		fs_image_free(pre);
		return -1;
	}
	if (!pre) {
		snprintf(err, errlen, "preprocess: out of memory");
		return -1;
	}
	/* CLAHE, the blur and the stretch in the tiling's threads (the CLI's
	 * two): the same image */
	if (fs_clahe_threads(pre, p->clahe_clip, clahe_tile, threads, err, errlen) ||
	    fs_gaussian_blur_threads(pre, p->blur_sigma, threads, err, errlen)) {
		fs_image_free(pre);
		return -1;
	}
	fs_normalize_threads(pre, threads);
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
	if (x->x != y->x)
		return x->x < y->x ? -1 : 1;
	/* a total order (two scales' peaks at one pixel), so the tiles'
	 * candidates, gathered in another order, sort the same */
	return x->r < y->r ? -1 : x->r > y->r;
}

/* fs_det_maxima's test of a pixel on the image's edge (or the crop's),
 * its neighbours' bounds checked: 1 when (x, y) of value v is a maximum,
 * plateaus going to the first pixel in scan order. */
static int edge_maximum(const fs_image *resp, int x, int y, int gx, int gy, int W, int H, float v)
{
	int w = resp->width, h = resp->height;
	for (int dy = -1; dy <= 1; dy++) {
		int yy = y + dy;
		if (gy + dy < 0 || gy + dy >= H || yy < 0 || yy >= h)
			continue;
		for (int dx = -1; dx <= 1; dx++) {
			int xx = x + dx;
			if (gx + dx < 0 || gx + dx >= W || xx < 0 || xx >= w || (!dx && !dy))
				continue;
			float u = resp->data[(size_t)yy * w + xx];
			/* Plateaus: only the first pixel in scan order wins. */
			if (u > v || (u == v && (dy < 0 || (dy == 0 && dx < 0))))
				return 0;
		}
	}
	return 1;
}

/* fs_det_maxima's pixels x = a .. b - 1 of row y on the edge (their
 * neighbours' bounds checked), appended in scan order */
static int edge_maxima(const fs_image *resp, double min_value, int a, int b, int y, int ox, int gy, int W, int H,
		       fs_cand_list *all)
{
	for (int x = a; x < b; x++) {
		float v = resp->data[(size_t)y * resp->width + x];
		if (!(v > min_value) || !edge_maximum(resp, x, y, x + ox, gy, W, H, v))
			continue;
		fs_cand c = {x + ox, gy, v, 0};
		if (fs_cand_append(all, &c))
			return -1;
	}
	return 0;
}

int fs_det_maxima(const fs_image *resp, double min_value, int x0, int y0, int x1, int y1, int ox, int oy, int W,
		  int H, fs_cand_list *all)
{
	int w = resp->width;
	for (int y = y0; y < y1; y++) {
		int gy = y + oy;
		/* Interior pixels (of the image, not of the crop: the crop
		 * holds a pixel's neighbours wherever the image does), x = a ..
		 * b - 1 of an interior row, are tested without the bounds
		 * checks of the edge's (edge_maxima): most fail on one of the
		 * first comparisons. The row's three runs in scan order, so
		 * the same candidates in the same order (h50a: the interior
		 * test once a run, not once a pixel). */
		int a = x0, b = x0;
		if (gy > 0 && gy < H - 1) {
			a = 1 - ox > x0 ? 1 - ox : x0;
			b = W - 1 - ox < x1 ? W - 1 - ox : x1;
			if (a > x1)
				a = x1;
			if (b < a)
				b = a;
		}
		if (edge_maxima(resp, min_value, x0, a, y, ox, gy, W, H, all))
			return -1;
		for (int x = a; x < b; x++) {
			const float *q = resp->data + (size_t)y * w + x;
			float v = *q;
			if (!(v > min_value))
				continue;
			if (q[-1] >= v || q[1] > v || q[-w] >= v || q[w] > v || q[-w - 1] >= v || q[-w + 1] >= v ||
			    q[w - 1] > v || q[w + 1] > v)
				continue;
			fs_cand c = {x + ox, gy, v, 0};
			if (fs_cand_append(all, &c))
				return -1;
		}
		if (edge_maxima(resp, min_value, b, x1, y, ox, gy, W, H, all))
			return -1;
	}
	return 0;
}

/* The grid cell of a coordinate, clamped to the grid. */
static int grid_cell(double v, double cell, int n)
{
	int g = (int)(v / cell);
	return g < 0 ? 0 : g >= n ? n - 1 : g;
}

/* The greedy keep of both suppressions: all (sorted strongest first) is
 * appended to out but for the candidates that clash with one kept before
 * them. A clash never reaches past one cell, so the kept candidates are
 * found in a grid of cells that size, in the 3 x 3 cells around a
 * candidate (a list per cell: head, and next by kept index). all is freed. */
static int keep_apart(fs_cand_list *all, int w, int h, double cell,
		      int (*clash_fn)(const fs_cand *a, const fs_cand *b, double arg), double arg, fs_cand_list *out)
{
	size_t first = out->n;
	int gw = (int)(w / cell) + 1, gh = (int)(h / cell) + 1;
	long *head = malloc((size_t)gw * gh * sizeof *head);
	long *next = malloc((all->n ? all->n : 1) * sizeof *next);
	int rc = -1;
	if (!head || !next)
		goto out;
	for (size_t i = 0; i < (size_t)gw * gh; i++)
		head[i] = -1;
	for (size_t i = 0; i < all->n; i++) {
		const fs_cand *a = &all->items[i];
		int gx = grid_cell(a->x, cell, gw), gy = grid_cell(a->y, cell, gh);
		int clash = 0;
		for (int yy = gy - 1; yy <= gy + 1 && !clash; yy++)
			for (int xx = gx - 1; xx <= gx + 1 && !clash; xx++) {
				if (xx < 0 || yy < 0 || xx >= gw || yy >= gh)
					continue;
				for (long j = head[(size_t)yy * gw + xx]; j >= 0 && !clash; j = next[j])
					clash = clash_fn(a, &out->items[first + (size_t)j], arg);
			}
		if (clash)
			continue;
		if (fs_cand_append(out, a))
			goto out;
		long k = (long)(out->n - 1 - first);
		next[k] = head[(size_t)gy * gw + gx];
		head[(size_t)gy * gw + gx] = k;
	}
	rc = 0;
out:
	free(head);
	free(next);
	fs_cand_free(all);
	return rc;
}

/* fs_det_peaks_suppress's clash: closer than min_dist (d2 its square),
 * on the peaks' pixels */
static int peaks_clash(const fs_cand *a, const fs_cand *b, double d2)
{
	double dx = (int)a->x - (int)b->x, dy = (int)a->y - (int)b->y;
	return dx * dx + dy * dy < d2;
}

int fs_det_peaks_suppress(fs_cand_list *all, double min_dist, int w, int h, int threads, fs_cand_list *out)
{
	/* (cmp_cand_desc is a total order: the order of qsort) */
	if (all->n)
		fs_sort_threads(all->items, all->n, sizeof *all->items, cmp_cand_desc, threads);
	/* Greedy suppression, strongest first: a peak is dropped when a kept
	 * one lies closer than min_dist. The kept peaks are looked up in a
	 * grid of cells min_dist wide (3 x 3 cells around a peak) rather than
	 * marked in a byte per pixel: at a fine pitch resp is full-size, and
	 * such a map was 100 MB for a 100 MP image (issue 15). Peaks sit on
	 * pixel centres, so the test on integer offsets is the one the map
	 * made. Cells are at least 8 px (a grid of at most 1/8 byte per
	 * pixel when min_dist is small). */
	double cell = min_dist > 8 ? min_dist : 8;
	return keep_apart(all, w, h, cell, peaks_clash, min_dist * min_dist, out);
}

int fs_det_peaks(const fs_image *resp, double min_value, double min_dist, fs_cand_list *out)
{
	return fs_det_peaks_threads(resp, min_value, min_dist, 1, out);
}

/* The 3x3 maxima of bands of rows, gathered in band order: the raster
 * order of one pass over the whole response. */
struct maxima_job {
	const fs_image *resp;
	double min_value;
	int band;
	fs_cand_list *bands, *all;
};

static int maxima_band(size_t k, void *arg, char *err, size_t errlen)
{
	struct maxima_job *j = arg;
	int w = j->resp->width, h = j->resp->height;
	int y0 = (int)k * j->band, y1 = y0 + j->band < h ? y0 + j->band : h;
	if (fs_det_maxima(j->resp, j->min_value, 0, y0, w, y1, 0, 0, w, h, &j->bands[k])) {
		snprintf(err, errlen, "peaks: out of memory");
		return -1;
	}
	return 0;
}

static int maxima_merge(size_t k, void *arg, char *err, size_t errlen)
{
	struct maxima_job *j = arg;
	fs_cand_list *b = &j->bands[k];
	for (size_t i = 0; i < b->n; i++)
		if (fs_cand_append(j->all, &b->items[i])) {
			snprintf(err, errlen, "peaks: out of memory");
			return -1;
		}
	fs_cand_free(b);
	return 0;
}

int fs_det_peaks_threads(const fs_image *resp, double min_value, double min_dist, int threads,
			 fs_cand_list *out)
{
	int w = resp->width, h = resp->height;
	fs_cand_list all = {0};
	/* bands of about 256k pixels, at least 16 rows */
	int band = (int)((1L << 18) / (w > 0 ? w : 1));
	band = band < 16 ? 16 : band;
	size_t nb = h > 0 ? (size_t)((h + band - 1) / band) : 0;
	struct maxima_job j = {resp, min_value, band, calloc(nb ? nb : 1, sizeof(fs_cand_list)), &all};
	char err[64];
	int rc = !j.bands || fs_tile_pool_run(nb, threads, maxima_band, maxima_merge, &j, err, sizeof err);
	for (size_t k = 0; j.bands && k < nb; k++)
		fs_cand_free(&j.bands[k]);
	free(j.bands);
	if (rc) {
		fs_cand_free(&all);
		return -1;
	}
	return fs_det_peaks_suppress(&all, min_dist, w, h, threads, out);
}

void fs_det_peak_offset(const fs_image *resp, int ox, int oy, int W, int H, int gx, int gy, double *dx, double *dy)
{
	*dx = *dy = 0;
	if (gx > 0 && gy > 0 && gx < W - 1 && gy < H - 1) {
		const float *d = resp->data + (size_t)(gy - oy) * resp->width + (gx - ox);
		*dx = fs_parabola_vertex(d[-1], d[0], d[1]);
		*dy = fs_parabola_vertex(d[-resp->width], d[0], d[resp->width]);
	}
}

/* The pixel row of a candidate, clamped to the image (for ordering only). */
static int cand_row(const fs_cand *c, int h)
{
	int y = (int)c->y;
	return y < 0 ? 0 : y >= h ? h - 1 : y;
}

/* What fs_det_prominence computes for one candidate: its value minus the
 * lowest sample along 16 rays of nr px (off: the rays' offsets from a
 * pixel centre, or NULL; at: the same as index offsets, or NULL). */
static float prominence_of(const fs_image *resp, const fs_cand *cd, const int *off, const ptrdiff_t *at, int nr)
{
	int w = resp->width, h = resp->height;
	double x = cd->x, y = cd->y;
	float top = resp->data[(size_t)(int)y * w + (int)x];
	float lo = top;
	int on_pixel = x == floor(x) && y == floor(y);
	/* A candidate on a pixel at least nr px from every edge: no ray
	 * leaves the image (an offset is at most r <= nr a coordinate), so
	 * the same pixels in the same order, each by its index offset alone
	 * (h50a: the test a step and the pair of offsets were most of the
	 * prominence's 14 M instructions on the 2048 x 1536 lattice) */
	if (at && on_pixel && x >= nr && y >= nr && x < w - nr && y < h - nr) {
		const float *c = resp->data + (size_t)(int)y * w + (int)x;
		for (int i = 0; i < 16 * nr; i++) {
			float v = c[at[i]];
			if (v < lo)
				lo = v;
		}
		return top - lo;
	}
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
	return top - lo;
}

/* Candidates ord[k * chunk ..] of fs_det_prominence_threads: each writes
 * only its own candidates' response. */
struct prom_job {
	const fs_image *resp;
	fs_cand_list *c;
	const size_t *ord;
	const int *off;
	const ptrdiff_t *at; /* the offsets as index offsets (y w + x), or NULL */
	int nr;
	size_t chunk;
};

static int prom_chunk(size_t k, void *arg, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	const struct prom_job *j = arg;
	size_t a = k * j->chunk, b = a + j->chunk < j->c->n ? a + j->chunk : j->c->n;
	for (size_t q = a; q < b; q++) {
		size_t i = j->ord ? j->ord[q] : q;
		j->c->items[i].response = prominence_of(j->resp, &j->c->items[i], j->off, j->at, j->nr);
	}
	return 0;
}

void fs_det_prominence(const fs_image *resp, fs_cand_list *c, double radius)
{
	fs_det_prominence_threads(resp, c, radius, 1);
}

void fs_det_prominence_threads(const fs_image *resp, fs_cand_list *c, double radius, int threads)
{
	int h = resp->height;
	int nr = radius >= 1 ? (int)radius : 0;
	/* Ray offsets are the same for every candidate: the candidates sit on
	 * pixel centres, so lround(x + r cos) = x + lround(r cos). */
	int *off = malloc((size_t)(16 * nr + 1) * 2 * sizeof *off);
	ptrdiff_t *at = off ? malloc((size_t)(16 * nr + 1) * sizeof *at) : NULL;
	if (off) {
		for (int k = 0; k < 16; k++) {
			for (int r = 1; r <= nr; r++) {
				off[2 * (k * nr + r - 1)] = (int)lround(cos(k * M_PI / 8) * r);
				off[2 * (k * nr + r - 1) + 1] = (int)lround(sin(k * M_PI / 8) * r);
				if (at)
					at[k * nr + r - 1] = (ptrdiff_t)off[2 * (k * nr + r - 1) + 1] * resp->width +
							     off[2 * (k * nr + r - 1)];
			}
		}
	}
	/* Candidates come strongest first, scattered over the image: visited
	 * row by row instead (a counting sort on the row), the rays of
	 * neighbouring candidates share cache lines; each candidate's value
	 * does not depend on the order, nor on the thread. */
	size_t *ord = malloc((c->n ? c->n : 1) * sizeof *ord);
	size_t *row_start = calloc((size_t)h + 1, sizeof *row_start);
	if (ord && row_start) {
		for (size_t i = 0; i < c->n; i++)
			row_start[cand_row(&c->items[i], h) + 1]++;
		for (int y = 0; y < h; y++)
			row_start[y + 1] += row_start[y];
		for (size_t i = 0; i < c->n; i++)
			ord[row_start[cand_row(&c->items[i], h)]++] = i;
	} else {
		free(ord);
		ord = NULL;
	}
	free(row_start);
	struct prom_job j = {resp, c, ord, off, at, nr, 2048};
	char err[8];
	if (c->n)
		fs_tile_pool_run((c->n + j.chunk - 1) / j.chunk, threads, prom_chunk, NULL, &j, err, sizeof err);
	free(off);
	free(at);
	free(ord);
}

int fs_det_scale_maxima(fs_image *const *layers, const double *radii, int n, double thr, int x0, int y0, int x1,
			int y1, int ox, int oy, fs_cand_list *all)
{
	int w = layers[0]->width, h = layers[0]->height;
	for (int s = 0; s < n; s++) {
		const float *L = layers[s]->data;
		for (int y = y0; y < y1; y++) {
			for (int x = x0; x < x1; x++) {
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
					fs_cand c = {x + ox, y + oy, v, radii[s]};
					if (fs_cand_append(all, &c))
						return -1;
				}
			}
		}
	}
	return 0;
}

/* fs_det_scale_suppress's clash: within the larger radius */
static int blobs_clash(const fs_cand *a, const fs_cand *b, double unused)
{
	(void)unused;
	return hypot(a->x - b->x, a->y - b->y) < fmax(a->r, b->r);
}

int fs_det_scale_suppress(fs_cand_list *all, int w, int h, fs_cand_list *out)
{
	if (all->n)
		qsort(all->items, all->n, sizeof *all->items, cmp_cand_desc);
	/* Greedy overlap removal, strongest first: a blob is dropped when it
	 * lies within the larger radius of one kept before it. Two blobs
	 * clash only within the largest radius of all, so the kept ones are
	 * looked up in a grid of cells that size (3 x 3 cells around a blob),
	 * not one by one: a 100-megapixel image holds 70,000 blobs. */
	double cell = 1;
	for (size_t i = 0; i < all->n; i++)
		cell = fmax(cell, all->items[i].r);
	return keep_apart(all, w, h, cell, blobs_clash, 0, out);
}

int fs_det_scale_peaks(fs_image *const *layers, const double *radii, int n, double thr,
		       fs_cand_list *out)
{
	fs_cand_list all = {0};
	int w = layers[0]->width, h = layers[0]->height;
	if (fs_det_scale_maxima(layers, radii, n, thr, 0, 0, w, h, 0, 0, &all)) {
		fs_cand_free(&all);
		return -1;
	}
	return fs_det_scale_suppress(&all, w, h, out);
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
