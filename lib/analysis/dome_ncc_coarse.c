/*
 * dome_ncc_coarse.c - the mean dome's correlation coarse to fine (see
 * dome_ncc_coarse.h).
 */
#include "analysis/dome_ncc_coarse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* off: on, P2 Fig1e loses the maxima its domes make at the frame's
 * edge and goes unmeasured, and P1 Fig2 reads 0.262 -> 0.253 (h48f) */
static int coarse_on = 0;

int fs_dome_ncc_set_coarse(int on)
{
	int was = coarse_on;
	coarse_on = on != 0;
	return was;
}

int fs_dome_ncc_coarse_on(void)
{
	return coarse_on;
}

static fs_dome_ncc_witness witness;
static void *witness_ctx;

void fs_dome_ncc_set_witness(fs_dome_ncc_witness fn, void *ctx)
{
	witness = fn;
	witness_ctx = ctx;
}

typedef struct look {
	const fs_dome_mean *t;
	const float *img;
	int w, h;
	float *v;
	unsigned char *exact; /* 1 where v holds the correlation itself */
	size_t *stack, n, cap;
} look;

/* The exact correlation over the pixels of the row span [x0, x1) of row
 * y (clipped to the image) not exact yet: from the first to the last of
 * them at once, the exact ones between made again (the same bits), and
 * two or three widened to four, five to seven to eight (within the
 * image), since fs_dome_mean_ncc makes four or eight neighbours in one
 * call at about the cost of one or two single pixels. */
static void exact_span(look *L, int x0, int x1, int y)
{
	int w = L->w;
	if (y < 0 || y >= L->h)
		return;
	x0 = x0 < 0 ? 0 : x0;
	x1 = x1 > w ? w : x1;
	unsigned char *e = L->exact + (size_t)y * w;
	while (x0 < x1 && e[x0])
		x0++;
	while (x1 > x0 && e[x1 - 1])
		x1--;
	int n = x1 - x0;
	if (!n)
		return;
	int want = n == 2 || n == 3 ? 4 : n > 4 && n < 8 ? 8 : n;
	x1 = x0 + want <= w ? x0 + want : w;
	x0 = x1 - want >= 0 ? x1 - want : 0;
	fs_dome_mean_ncc(L->t, L->img, (size_t)w, 0, 0, w, L->h, x0, y, x1, y + 1, L->v + (size_t)y * w + x0,
			 (size_t)w);
	memset(e + x0, 1, (size_t)(x1 - x0));
}

/* fs_det_maxima's test of pixel (x, y): above 0 and the maximum of its
 * 3x3 neighbourhood, a plateau won by its first pixel in raster order. */
static int is_max(const look *L, int x, int y)
{
	const float *v = L->v;
	size_t i = (size_t)y * L->w + x;
	float c = v[i];
	if (!(c > 0))
		return 0;
	/* most pixels fail on a row neighbour: no loop for them */
	if ((x > 0 && v[i - 1] >= c) || (x + 1 < L->w && v[i + 1] > c))
		return 0;
	for (int dy = -1; dy <= 1; dy += 2) {
		int yy = y + dy;
		if (yy < 0 || yy >= L->h)
			continue;
		for (int dx = -1; dx <= 1; dx++) {
			int xx = x + dx;
			if (xx < 0 || xx >= L->w)
				continue;
			float u = v[(size_t)yy * L->w + xx];
			if (u > c || (u == c && dy < 0))
				return 0;
		}
	}
	return 1;
}

/* is_max's first tests, inline where every pixel of a region is asked:
 * most pixels end here. */
static inline int may_be_max(const look *L, int x, int y)
{
	const float *v = L->v + (size_t)y * L->w;
	return v[x] > 0 && !(x > 0 && v[x - 1] >= v[x]) && !(x + 1 < L->w && v[x + 1] > v[x]);
}

/* A maximum of the mixture whose neighbourhood is not all exact yet. */
static int unsure(const look *L, int x, int y)
{
	if (!is_max(L, x, y))
		return 0;
	for (int yy = y - 1; yy <= y + 1; yy++)
		for (int xx = x - 1; xx <= x + 1; xx++)
			if (yy >= 0 && yy < L->h && xx >= 0 && xx < L->w && !L->exact[(size_t)yy * L->w + xx])
				return 1;
	return 0;
}

static int push(look *L, int x, int y)
{
	if (L->n == L->cap) {
		size_t cap = L->cap ? 2 * L->cap : 1024;
		size_t *s = realloc(L->stack, cap * sizeof *s);
		if (!s)
			return -1;
		L->stack = s;
		L->cap = cap;
	}
	L->stack[L->n++] = (size_t)y * L->w + x;
	return 0;
}

/* Row y's even pixels exact (and its last when that is odd), its odd
 * ones halfway between their neighbours. Where the discs leave the image
 * a pixel at a time; the row's end after the last run of eight (within
 * 16 + R of its edge) at once, odd pixels too, four or eight at a time
 * (fs_dome_mean_ncc), cheaper than its even pixels alone. */
static void coarse_row(look *L, int y)
{
	int w = L->w, R = L->t->R;
	float *row = L->v + (size_t)y * w;
	unsigned char *e = L->exact + (size_t)y * w;
	int x = 0;
	if (y - R >= 0 && y + R < L->h) {
		for (; x < R && x < w; x += 2)
			exact_span(L, x, x + 1, y);
		/* the runs of eight end where the tail begins, on any CPU: the
		 * pixels made exact must not depend on the path that makes them */
		int xt = x;
		while (xt + 15 + R < w)
			xt += 16;
		int x1 = fs_dome_mean_ncc_even(L->t, L->img, w, L->h, y, x, row);
		for (; x < x1; x += 2)
			e[x] = 1;
		for (; x < xt; x += 2)
			exact_span(L, x, x + 1, y);
		exact_span(L, x, w, y);
	} else {
		for (; x < w; x += 2)
			exact_span(L, x, x + 1, y);
		if ((w - 1) % 2)
			exact_span(L, w - 1, w, y);
	}
	for (x = 1; x < w - 1; x += 2)
		if (!e[x])
			row[x] = 0.5f * (row[x - 1] + row[x + 1]);
}

/* The coarse pixels exact, the others bilinear between them. */
static void coarse(look *L)
{
	int w = L->w, h = L->h;
	for (int y = 0; y < h; y += 2)
		coarse_row(L, y);
	if ((h - 1) % 2)
		coarse_row(L, h - 1);
	for (int y = 1; y < h - 1; y += 2) {
		/* rows y - 1 and y + 1 are coarse (h - 1 always is) */
		float *row = L->v + (size_t)y * w;
		const float *up = row - w, *dn = row + w;
		for (int x = 0; x < w; x++)
			row[x] = 0.5f * (up[x] + dn[x]);
	}
}

/* Every maximum of the mixture made sure: its 3x3 made exact, then the
 * pixels whose 3x3 that touched looked at again. Each round makes at
 * least one pixel exact, so it ends. */
static int settle(look *L)
{
	int w = L->w, h = L->h;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			if (may_be_max(L, x, y) && unsure(L, x, y) && push(L, x, y))
				return -1;
	while (L->n) {
		size_t i = L->stack[--L->n];
		int x = (int)(i % (size_t)w), y = (int)(i / (size_t)w);
		if (!unsure(L, x, y))
			continue;
		/* its 3x3 (four a row where that is one call of
		 * fs_dome_mean_ncc: one more pixel to the right) */
		for (int yy = y - 1; yy <= y + 1; yy++)
			exact_span(L, x - 1, x + 2, yy);
		/* the pixels whose 3x3 holds a pixel just made */
		for (int yy = y - 2; yy <= y + 2; yy++)
			for (int xx = x - 2; xx <= x + 3; xx++)
				if (yy >= 0 && yy < h && xx >= 0 && xx < w && may_be_max(L, xx, yy) &&
				    unsure(L, xx, yy) && push(L, xx, yy))
					return -1;
	}
	return 0;
}

int fs_dome_template_ncc_coarse(const fs_image *img, const double *xs, const double *ys, size_t n, double radius,
				fs_image **res, char *err, size_t errlen)
{
	*res = NULL;
	fs_dome_mean t;
	int have = fs_dome_mean_of_points(&t, img, xs, ys, n, radius, err, errlen);
	if (have < 0)
		return -1;
	int w = img->width, h = img->height;
	int rc = 0;
	if (have) {
		look L = {.t = &t, .img = img->data, .w = w, .h = h};
		fs_image *out = fs_image_new(w, h);
		L.exact = calloc((size_t)w * h, 1);
		if (out)
			L.v = out->data;
		if (out && L.exact)
			coarse(&L);
		if (!out || !L.exact || settle(&L)) {
			snprintf(err, errlen, "dome template: out of memory");
			fs_image_free(out);
			rc = -1;
		} else {
			if (witness)
				witness(witness_ctx, img, &t, out);
			*res = out;
		}
		free(L.exact);
		free(L.stack);
	}
	fs_dome_mean_free(&t);
	return rc;
}
