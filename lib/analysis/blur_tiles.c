/* blur_tiles.c - a Gaussian-blurred image made tile by tile on demand (see blur_tiles.h). */
#include "analysis/blur_tiles.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/preprocess.h"

typedef struct tile {
	fs_image *img;      /* blurred crop, NULL when the slot is free */
	int tx, ty;         /* grid cell of the core */
	int ox, oy;         /* the crop's origin in the source */
	unsigned long used; /* last use, for least-recently-used */
} tile;

struct fs_blur_tiles {
	const fs_image *src; /* borrowed */
	double sigma;
	int halo, radius, core;
	int whole;
	tile keep[FS_BLUR_TILES_KEEP_MAX];
	int nkeep;          /* slots in use: a row of tiles and one more */
	unsigned long clock;
	size_t made;
};

fs_blur_tiles *fs_blur_tiles_new(const fs_image *src, double sigma, int halo, long long whole_max, char *err,
				 size_t errlen)
{
	if (!src || src->width <= 0 || src->height <= 0 || !isfinite(sigma) || sigma < 0 || halo < 0) {
		snprintf(err, errlen, "blur tiles: bad image, sigma or halo");
		return NULL;
	}
	fs_blur_tiles *bt = calloc(1, sizeof *bt);
	if (!bt) {
		snprintf(err, errlen, "blur tiles: out of memory");
		return NULL;
	}
	bt->src = src;
	bt->sigma = sigma;
	bt->halo = halo;
	bt->radius = sigma > 0 ? fs_gaussian_radius(sigma) : 0;
	bt->core = 4 * halo > FS_BLUR_TILES_CORE ? 4 * halo : FS_BLUR_TILES_CORE;
	bt->whole = (long long)src->width * src->height <= (whole_max > 0 ? whole_max : FS_BLUR_TILES_WHOLE_MAX);
	int row = (src->width + bt->core - 1) / bt->core + 1;
	bt->nkeep = bt->whole ? 1 : row < 4 ? 4 : row > FS_BLUR_TILES_KEEP_MAX ? FS_BLUR_TILES_KEEP_MAX : row;
	return bt;
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Blurs the crop of tile (tx, ty) into t (the whole image when whole). */
static int make(fs_blur_tiles *bt, tile *t, int tx, int ty, char *err, size_t errlen)
{
	const fs_image *s = bt->src;
	int x0 = 0, y0 = 0, x1 = s->width, y1 = s->height;
	if (!bt->whole) {
		/* + 1: a bilinear sample at the halo's end reads the pixel after it */
		int reach = bt->halo + 1 + bt->radius;
		x0 = clampi(tx * bt->core - reach, 0, s->width);
		y0 = clampi(ty * bt->core - reach, 0, s->height);
		x1 = clampi((tx + 1) * bt->core + reach, 0, s->width);
		y1 = clampi((ty + 1) * bt->core + reach, 0, s->height);
	}
	fs_image *img;
	if (bt->whole && !fs_image_is_compact(s))
		/* the very image the whole-image callers made before */
		img = fs_gaussian_blurred(s, bt->sigma, err, errlen);
	else {
		img = bt->whole ? fs_image_to_float(s) : fs_image_region_float(s, x0, y0, x1 - x0, y1 - y0);
		if (!img)
			snprintf(err, errlen, "blur tiles: out of memory");
		else if (fs_gaussian_blur(img, bt->sigma, err, errlen)) {
			fs_image_free(img);
			img = NULL;
		}
	}
	if (!img)
		return -1;
	fs_image_free(t->img);
	t->img = img;
	t->tx = tx;
	t->ty = ty;
	t->ox = x0;
	t->oy = y0;
	bt->made++;
	return 0;
}

const fs_image *fs_blur_tiles_at(fs_blur_tiles *bt, double x, double y, int *ox, int *oy, char *err,
				 size_t errlen)
{
	if (!bt || !(x >= 0 && y >= 0 && x <= bt->src->width - 1 && y <= bt->src->height - 1)) {
		snprintf(err, errlen, "blur tiles: the point lies outside the image");
		return NULL;
	}
	int tx = bt->whole ? 0 : (int)x / bt->core, ty = bt->whole ? 0 : (int)y / bt->core;
	tile *t = NULL, *oldest = &bt->keep[0];
	for (int i = 0; i < bt->nkeep; i++) {
		tile *k = &bt->keep[i];
		if (k->img && k->tx == tx && k->ty == ty) {
			t = k;
			break;
		}
		if (!k->img || (oldest->img && k->used < oldest->used))
			oldest = k;
	}
	if (!t) {
		t = oldest;
		if (make(bt, t, tx, ty, err, errlen))
			return NULL;
	}
	t->used = ++bt->clock;
	*ox = t->ox;
	*oy = t->oy;
	return t->img;
}

long fs_blur_tiles_index(const fs_blur_tiles *bt, double x, double y)
{
	if (!bt || bt->whole)
		return 0;
	int tx = x > 0 ? (int)x / bt->core : 0, ty = y > 0 ? (int)y / bt->core : 0;
	long ntx = (bt->src->width + bt->core - 1) / bt->core;
	return (long)ty * ntx + tx;
}

int fs_blur_tiles_whole(const fs_blur_tiles *bt)
{
	return bt && bt->whole;
}

size_t fs_blur_tiles_bytes(const fs_blur_tiles *bt)
{
	size_t n = 0;
	for (int i = 0; bt && i < bt->nkeep; i++)
		if (bt->keep[i].img)
			n += fs_image_bytes(bt->keep[i].img);
	return n;
}

int fs_blur_tiles_keep(const fs_blur_tiles *bt)
{
	return bt ? bt->nkeep : 0;
}

size_t fs_blur_tiles_made(const fs_blur_tiles *bt)
{
	return bt ? bt->made : 0;
}

void fs_blur_tiles_free(fs_blur_tiles *bt)
{
	if (!bt)
		return;
	for (int i = 0; i < bt->nkeep; i++)
		fs_image_free(bt->keep[i].img);
	free(bt);
}
