/*
 * centre_refine.c - the centre about which a dome's base step is sharpest
 * (see centre_refine.h).
 */
#include "analysis/centre_refine.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#define NRAYS 32
#define NMAX 64

typedef struct rays {
	double cs[NRAYS], sn[NRAYS];
} rays;

/* fs_image_sample without its clamping, for points known to lie inside
 * the image (0 <= x, y and x < w - 1, y < h - 1): the same arithmetic, so
 * the same values; the refinement reads a few thousand samples per centre
 * and the call was most of its cost. */
static inline double sample_in(const float *d, int w, double x, double y)
{
	int x0 = (int)x, y0 = (int)y;
	double fx = x - x0, fy = y - y0;
	const float *p = d + (size_t)y0 * w + x0;
	double a = p[0] * (1 - fx) + p[1] * fx;
	double b = p[w] * (1 - fx) + p[w + 1] * fx;
	return a * (1 - fy) + b * fy;
}

/* fs_image_sample itself, inlined: the clamping to the image and the
 * repeated last column and row, the same arithmetic. */
static inline double sample_clamped(const fs_image *img, double x, double y)
{
	int w = img->width, h = img->height;
	if (x < 0)
		x = 0;
	if (y < 0)
		y = 0;
	if (x > w - 1)
		x = w - 1;
	if (y > h - 1)
		y = h - 1;
	int x0 = (int)x, y0 = (int)y;
	int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
	double fx = x - x0, fy = y - y0;
	const float *d = img->data;
	double a = d[(size_t)y0 * w + x0] * (1 - fx) + d[(size_t)y0 * w + x1] * fx;
	double b = d[(size_t)y1 * w + x0] * (1 - fx) + d[(size_t)y1 * w + x1] * fx;
	return a * (1 - fy) + b * fy;
}

/* The rays of one stage of the search (the grid, the compass): every
 * (NRAYS / nr)-th ray, the radii j0 - span .. j1 + span samples of dr px,
 * and each sample's offset from the trial centre (cs[k] * j * dr, the
 * product focus() took for every sample of every trial centre). */
typedef struct ray_tab {
	int nr, j0, j1, span;
	double dr, reach;
	double ox[NRAYS / 2][NMAX + 1], oy[NRAYS / 2][NMAX + 1]; /* nr <= NRAYS / 2 */
} ray_tab;

static void ray_tab_init(ray_tab *T, const rays *R, int nr, double dr, int span, double rmin, double rmax)
{
	int j0 = (int)floor(rmin / dr), j1 = (int)ceil(rmax / dr);
	if (j0 < span)
		j0 = span;
	if (j1 > NMAX - span)
		j1 = NMAX - span;
	T->nr = nr;
	T->j0 = j0;
	T->j1 = j1;
	T->span = span;
	T->dr = dr;
	T->reach = (j1 + span) * dr;
	for (int k = 0, q = 0; k < NRAYS; k += NRAYS / nr, q++)
		for (int j = j0 - span; j <= j1 + span; j++) {
			T->ox[q][j] = R->cs[k] * j * dr;
			T->oy[q][j] = R->sn[k] * j * dr;
		}
}

/* The height of the peak of the summed radial-derivative magnitude over
 * the radii of T from (x, y), the derivative over +-span samples; *peak
 * (may be NULL) gets the radius of the peak. */
static double focus(const fs_image *img, const ray_tab *T, double x, double y, double *peak)
{
	int j0 = T->j0, j1 = T->j1, span = T->span;
	double h[NMAX + 1] = {0};
	/* the rays' reach inside the image: no clamping needed (the last
	 * column and row excluded, where fs_image_sample repeats the edge) */
	double reach = T->reach;
	int inside = x - reach >= 0 && y - reach >= 0 && x + reach < img->width - 1 && y + reach < img->height - 1;
	for (int q = 0; q < T->nr; q++) {
		double v[NMAX + 1];
		const double *ox = T->ox[q], *oy = T->oy[q];
		if (inside)
			for (int j = j0 - span; j <= j1 + span; j++)
				v[j] = sample_in(img->data, img->width, x + ox[j], y + oy[j]);
		else
			for (int j = j0 - span; j <= j1 + span; j++)
				v[j] = sample_clamped(img, x + ox[j], y + oy[j]);
		for (int j = j0; j <= j1; j++)
			h[j] += fabs(v[j + span] - v[j - span]);
	}
	/* the peak over three radii: one sample's noise does not make it */
	double best = 0;
	int jb = j0;
	for (int j = j0 + 1; j < j1; j++) {
		double v = h[j - 1] + 2 * h[j] + h[j + 1];
		if (v > best) {
			best = v;
			jb = j;
		}
	}
	if (peak)
		*peak = jb * T->dr;
	return best;
}

/* The grid's rays with their interpolation worked out once. When the
 * grid step is a whole number of pixels, every trial centre of the grid
 * has the same fractional position as the start, so a ray sample of one
 * trial centre is that of the start moved by whole pixels: the same
 * bilinear weights at a shifted address. Tabulating the address and
 * weights once per refinement leaves a sample its four reads and six
 * products (the position, its rounding and its weights were more than
 * half of the grid's cost). The values are focus()'s up to the rounding
 * of the positions (about 1e-13 px); the refined centres came out
 * bit-identical on the paper figures, the 2048x1536 synthetic and the 64
 * simulator scenes. */
typedef struct grid_rays {
	int nr, j0, j1, span;
	int reach;                       /* the largest |offset| along x or y, px, plus one */
	ptrdiff_t off[NRAYS / 2][NMAX + 1]; /* (ray, radius) -> offset of the top-left pixel */
	double fx[NRAYS / 2][NMAX + 1], fy[NRAYS / 2][NMAX + 1];
} grid_rays;

/* The samples of focus(x, y, NRAYS / 2, dr, span, rmin, rmax) relative to
 * the pixel (floor x, floor y), for an image of width w. */
static void grid_rays_init(grid_rays *G, const rays *R, int w, double x, double y, double dr, int span,
			   double rmin, double rmax)
{
	int j0 = (int)floor(rmin / dr), j1 = (int)ceil(rmax / dr);
	if (j0 < span)
		j0 = span;
	if (j1 > NMAX - span)
		j1 = NMAX - span;
	G->nr = NRAYS / 2;
	G->j0 = j0;
	G->j1 = j1;
	G->span = span;
	G->reach = 0;
	int xb = (int)floor(x), yb = (int)floor(y);
	for (int k = 0, q = 0; k < NRAYS; k += 2, q++)
		for (int j = j0 - span; j <= j1 + span; j++) {
			double px = x + R->cs[k] * j * dr, py = y + R->sn[k] * j * dr;
			double fx0 = floor(px), fy0 = floor(py);
			int ox = (int)fx0 - xb, oy = (int)fy0 - yb;
			G->off[q][j] = (ptrdiff_t)oy * w + ox;
			G->fx[q][j] = px - fx0;
			G->fy[q][j] = py - fy0;
			int a = abs(ox) > abs(oy) ? abs(ox) : abs(oy);
			if (a + 1 > G->reach)
				G->reach = a + 1;
		}
}

/* focus() of G at the pixel (xb, yb), the start's moved by whole pixels;
 * the caller has checked that G->reach px around it lie in the image. */
static double grid_focus(const fs_image *img, const grid_rays *G, int xb, int yb, double *peak, double dr)
{
	int w = img->width;
	const float *c = img->data + (size_t)yb * w + xb;
	int j0 = G->j0, j1 = G->j1, span = G->span;
	double h[NMAX + 1] = {0};
	for (int q = 0; q < G->nr; q++) {
		double v[NMAX + 1];
		for (int j = j0 - span; j <= j1 + span; j++) {
			const float *p = c + G->off[q][j];
			double fx = G->fx[q][j], fy = G->fy[q][j];
			double a = p[0] * (1 - fx) + p[1] * fx;
			double b = p[w] * (1 - fx) + p[w + 1] * fx;
			v[j] = a * (1 - fy) + b * fy;
		}
		for (int j = j0; j <= j1; j++)
			h[j] += fabs(v[j + span] - v[j - span]);
	}
	double best = 0;
	int jb = j0;
	for (int j = j0 + 1; j < j1; j++) {
		double v = h[j - 1] + 2 * h[j] + h[j + 1];
		if (v > best) {
			best = v;
			jb = j;
		}
	}
	*peak = jb * dr;
	return best;
}

int fs_centre_refine(const fs_image *img, double x, double y, double rmin, double rmax, double max_shift,
		     double smooth, double *ox, double *oy)
{
	if (!img || !img->data || !(rmin > 0) || !(rmax > rmin) || !(max_shift >= 0) || !(smooth >= 0) || !ox ||
	    !oy)
		return -1;
	rays R;
	for (int k = 0; k < NRAYS; k++) {
		R.cs[k] = cos(2 * M_PI * k / NRAYS);
		R.sn[k] = sin(2 * M_PI * k / NRAYS);
	}
	static const double dx[8] = {1, 0.7071, 0, -0.7071, -1, -0.7071, 0, 0.7071};
	static const double dy[8] = {0, 0.7071, 1, 0.7071, 0, -0.7071, -1, -0.7071};
	double dr = fmax(0.5, rmax / (NMAX - 8));
	/* the derivative over +-smooth px: a halftone's dots are steps too */
	int span = smooth > dr ? (int)lround(smooth / dr) : 1;
	if (span > 4)
		span = 4;
	double cx = x, cy = y;
	/* The peak is as narrow as the base step is sharp (a few px), with
	 * ridges around it: a grid over the search disc (every 2 px, 16 rays,
	 * samples every px) finds its foot, the compass search (16 rays, the
	 * radii within 30 % of the peak's) its top. */
	double g = fmin(2.0, fmax(0.5, max_shift / 3));
	int ng = (int)floor(max_shift / g);
	double gdr = fmax(dr, fmin(1.0, 0.1 * rmax));
	int gspan = smooth > gdr ? (int)lround(smooth / gdr) : 1;
	if (gspan > 4)
		gspan = 4;
	double rp = 0;
	ray_tab T;
	ray_tab_init(&T, &R, NRAYS / 2, gdr, gspan, rmin, rmax);
	double best = focus(img, &T, cx, cy, &rp);
	/* a whole-pixel grid step away from the image's border: the
	 * tabulated rays */
	grid_rays G;
	G.nr = G.j0 = G.j1 = G.span = G.reach = 0;
	int gi = (int)g, shared = 0;
	if (gi == g) {
		grid_rays_init(&G, &R, img->width, x, y, gdr, gspan, rmin, rmax);
		int b = G.reach + ng * gi + 1;
		shared = x - b >= 0 && y - b >= 0 && x + b < img->width - 1 && y + b < img->height - 1;
	}
	for (int iy = -ng; iy <= ng; iy++)
		for (int ix = -ng; ix <= ng; ix++) {
			if ((!ix && !iy) || hypot(ix * g, iy * g) > max_shift)
				continue;
			double r;
			double v = shared ? grid_focus(img, &G, (int)floor(x) + ix * gi, (int)floor(y) + iy * gi, &r, gdr)
					  : focus(img, &T, x + ix * g, y + iy * g, &r);
			if (v > best) {
				best = v;
				cx = x + ix * g;
				cy = y + iy * g;
				rp = r;
			}
		}
	double q0 = fmax(rmin, 0.7 * rp), q1 = fmin(rmax, 1.3 * rp);
	if (q1 - q0 < 4 * dr) {
		q0 = rmin;
		q1 = rmax;
	}
	ray_tab_init(&T, &R, NRAYS / 2, dr, span, q0, q1);
	best = focus(img, &T, cx, cy, NULL);
	for (double s = 0.5 * g; s >= 0.25; s *= 0.5) {
		for (int it = 0; it < 8; it++) {
			int bk = -1;
			double bv = best;
			for (int k = 0; k < 8; k++) {
				double nx = cx + s * dx[k], ny = cy + s * dy[k];
				if (hypot(nx - x, ny - y) > max_shift)
					continue;
				double v = focus(img, &T, nx, ny, NULL);
				if (v > bv) {
					bv = v;
					bk = k;
				}
			}
			if (bk < 0)
				break;
			cx += s * dx[bk];
			cy += s * dy[bk];
			best = bv;
		}
	}
	*ox = cx;
	*oy = cy;
	return 0;
}
