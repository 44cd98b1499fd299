/*
 * detect_tiled.c - the detection's measurement tile by tile (see
 * detect_tiled.h).
 *
 * Candidates are put into square tiles of the measurement image by their
 * centre. A tile's crop is the bounding box of its candidates widened by
 * the overlap: the rays' reach (two passes, the second from the first
 * polygon's centroid, which lies within max_r of the start: 2 max_r, plus
 * a pixel for the bilinear sample and one for the "inside" test), the
 * blur's kernel radius and twice the top-hat's radius (an erosion then a
 * dilation). Inside that margin the crop's filters read exactly the
 * samples the whole image's would; where the crop meets the image's border
 * both replicate the same edge. A crop around the candidates rather than
 * the whole tile also keeps the lattice method's one-candidate calls (its
 * gap filling) cheap.
 */
#include "analysis/detect_tiled.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/blob_measure.h"
#include "analysis/detect_methods.h"
#include "analysis/preprocess.h"
#include "analysis/raster_order.h"
#include "base/tile_pool.h"

static int g_tile = FS_DETECT_TILE_DEFAULT;
static int g_threads = 1;

void fs_detect_set_tiling(int tile_px, int threads)
{
	g_tile = tile_px <= 0 ? 0 : tile_px < 16 ? 16 : tile_px;
	g_threads = threads < 1 ? 1 : threads > 8 ? 8 : threads;
}

void fs_detect_get_tiling(int *tile_px, int *threads)
{
	if (tile_px)
		*tile_px = g_tile;
	if (threads)
		*threads = g_threads;
}

struct job {
	const fs_meas *m;
	const fs_cand_list *c;
	double max_r;
	fs_measured *res;
	int tile, ntx, nty, margin;
	const size_t *start; /* candidates of tile k: idx[start[k] .. start[k + 1]) */
	size_t *idx;	     /* each tile orders its own (do_tile) */
};

static double cand_r(const struct job *j, size_t i)
{
	return j->max_r > 0 ? j->max_r : 2 * j->c->items[i].r;
}

/* Measures the candidates of tile k into their own slots of res (the
 * pool's work: no merge needed). Returns 0 or -1 (out of memory). */
static int do_tile(size_t k, void *arg, char *err, size_t errlen)
{
	struct job *j = arg;
	const fs_meas *m = j->m;
	const fs_image *src = m->src;
	double F = m->f;
	size_t a = j->start[k], b = j->start[k + 1];
	if (a == b)
		return 0;
	/* the tile's candidates in raster order (8-px bands, then x), as the
	 * whole-image path measures them: they come strongest first, scattered
	 * over the tile, and the rays then missed the cache on nearly every
	 * sample (the measurement's largest cost); each result goes to its
	 * candidate's own slot, so the order changes nothing else. Sorted here,
	 * in the tile's thread, rather than all candidates at once before. */
	fs_raster_key *keys = malloc((b - a) * sizeof *keys);
	if (!keys) {
		snprintf(err, errlen, "tiled measurement: out of memory");
		return -1;
	}
	for (size_t q = a; q < b; q++) {
		const fs_cand *cd = &j->c->items[j->idx[q]];
		keys[q - a] = (fs_raster_key){k, (long)floor(cd->y / 8), cd->x, j->idx[q]};
	}
	fs_raster_sort(keys, b - a);
	for (size_t q = a; q < b; q++)
		j->idx[q] = keys[q - a].i;
	free(keys);
	double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
	for (size_t q = a; q < b; q++) {
		const fs_cand *cd = &j->c->items[j->idx[q]];
		double sx = (cd->x + 0.5) / F - 0.5, sy = (cd->y + 0.5) / F - 0.5;
		x0 = fmin(x0, sx);
		y0 = fmin(y0, sy);
		x1 = fmax(x1, sx);
		y1 = fmax(y1, sy);
	}
	int M = j->margin;
	int cx0 = (int)floor(x0) - M, cy0 = (int)floor(y0) - M;
	int cx1 = (int)ceil(x1) + M, cy1 = (int)ceil(y1) + M;
	cx0 = cx0 < 0 ? 0 : cx0;
	cy0 = cy0 < 0 ? 0 : cy0;
	cx1 = cx1 > src->width - 1 ? src->width - 1 : cx1;
	cy1 = cy1 > src->height - 1 ? src->height - 1 : cy1;
	int cw = cx1 - cx0 + 1, ch = cy1 - cy0 + 1;
	if (cw < 1 || ch < 1) {
		snprintf(err, errlen, "tiled measurement: empty crop");
		return -1;
	}
	fs_image *meas = NULL;
	if (m->mp->tophat_radius > 0) {
		/* floats of the crop only (src may be compact, image.h) for
		 * the top-hat, which works in place */
		fs_image *crop = fs_image_region_float(src, cx0, cy0, cw, ch);
		if (!crop) {
			snprintf(err, errlen, "tiled measurement: out of memory");
			return -1;
		}
		int rc = fs_detect_measure_image(crop, m->mp, m->sigma, &meas, err, errlen);
		fs_image_free(crop);
		if (rc)
			return -1;
	} else if (!(meas = fs_gaussian_blurred_region(src, cx0, cy0, cw, ch, m->sigma, err, errlen))) {
		/* fs_detect_measure_image of the crop without the crop: its
		 * blur reads src's rows (converted a row at a time) */
		return -1;
	}
	for (size_t q = a; q < b; q++) {
		size_t i = j->idx[q];
		const fs_cand *cd = &j->c->items[i];
		fs_measured *r = &j->res[i];
		fs_tubercle_init(&r->t);
		/* the same pixel centre as fs_det_measure, relative to the crop */
		double sx = (cd->x + 0.5) / F - 0.5 - cx0, sy = (cd->y + 0.5) / F - 0.5 - cy0;
		r->ok = fs_blob_measure(meas, sx, sy, cand_r(j, i) / F, &r->t) == 0;
		r->t.fit_quality = NAN;
		if (r->ok) {
			r->t.centroid_x += cx0;
			r->t.centroid_y += cy0;
		}
	}
	fs_image_free(meas);
	return 0;
}

int fs_det_measure_tiled(const fs_meas *m, const fs_cand_list *c, double max_r, fs_measured *res, char *err,
			 size_t errlen)
{
	if (!m->src || !m->mp || m->f < 1) {
		snprintf(err, errlen, "tiled measurement: no source image");
		return -1;
	}
	for (size_t i = 0; i < c->n; i++) {
		fs_tubercle_init(&res[i].t);
		res[i].ok = 0;
	}
	if (!c->n)
		return 0;
	const fs_image *src = m->src;
	double F = m->f;
	struct job j;
	memset(&j, 0, sizeof j);
	j.m = m;
	j.c = c;
	j.max_r = max_r;
	j.res = res;
	/* tile 0 (the whole-image path asked for while m->img is NULL): one tile */
	j.tile = m->tile > 0 ? m->tile : (src->width > src->height ? src->width : src->height);
	j.ntx = (src->width + j.tile - 1) / j.tile;
	j.nty = (src->height + j.tile - 1) / j.tile;
	double mr = 0;
	for (size_t i = 0; i < c->n; i++)
		mr = fmax(mr, cand_r(&j, i));
	j.margin = (int)ceil(2 * mr / F) + 3 + fs_gaussian_radius(m->sigma) + 2 * (m->mp->tophat_radius > 0 ? m->mp->tophat_radius : 0);
	size_t nt = (size_t)j.ntx * j.nty;
	size_t *start = calloc(nt + 1, sizeof *start);
	size_t *idx = malloc(c->n * sizeof *idx);
	size_t *fill = calloc(nt, sizeof *fill);
	int *tile_of = malloc(c->n * sizeof *tile_of);
	int rc = -1;
	if (!start || !idx || !fill || !tile_of) {
		snprintf(err, errlen, "tiled measurement: out of memory");
		goto out;
	}
	/* bucket the candidates by tile (counting sort, stable) */
	for (size_t i = 0; i < c->n; i++) {
		double sx = (c->items[i].x + 0.5) / F - 0.5, sy = (c->items[i].y + 0.5) / F - 0.5;
		int tx = (int)floor(sx / j.tile), ty = (int)floor(sy / j.tile);
		tx = tx < 0 ? 0 : tx >= j.ntx ? j.ntx - 1 : tx;
		ty = ty < 0 ? 0 : ty >= j.nty ? j.nty - 1 : ty;
		tile_of[i] = ty * j.ntx + tx;
		start[tile_of[i] + 1]++;
	}
	for (size_t k = 0; k < nt; k++)
		start[k + 1] += start[k];
	/* each tile's candidates (do_tile puts them in raster order) */
	for (size_t i = 0; i < c->n; i++)
		idx[start[tile_of[i]] + fill[tile_of[i]]++] = i;
	j.start = start;
	j.idx = idx;
	if (fs_tile_pool_run(nt, m->threads, do_tile, NULL, &j, err, errlen))
		goto out;
	rc = 0;
out:
	free(start);
	free(idx);
	free(fill);
	free(tile_of);
	return rc;
}
