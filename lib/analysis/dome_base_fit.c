/* dome_base_fit.c - a tubercle's size fitted to its whole patch through
 * the image's formation (see dome_base_fit.h). */
#include "analysis/dome_base_fit.h"

#include "analysis/dome_centre_fit.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/lanes.h"
#include "analysis/lanes_avx.h"
#include "analysis/se_render.h"
#include "analysis/se_solve.h"
#include "base/cpu_features.h"

#define SCALE_LO 0.70
#define SCALE_STEP 0.05
#define FILL_MAX 0.96 /* neighbours' bases touch at 1; se_render needs < 1 */
#define FILL_MIN 0.05
#define MEAN_MAX 64   /* tubercles averaged for the weights */
#define NW (FS_SE_NCOMP + 1)
#define NLIN FS_SE_SHADOW /* yield, the two slopes, edge */
/* The render grid and the patch's sample points, per pitch: 24 render
 * samples a pitch instead of h20e's 24-48 (two a pixel), whose blur and
 * shadow cost the cube of it; 16 points a pitch (one a pixel below) read
 * each patch instead of 32, and two rounds of the centre search instead
 * of three. P1 Fig1's step, callgrind: 480 M instructions with h20e's
 * grids, 85 M with these and the templates' two steps
 * (fs_dome_tpl_build); the outline rule's whole detection is 83 M. The
 * corner scenes read the same counts with 24 points a pitch as with 16
 * (docs/paper-figures.md, h21e). */
#define RENDER_G 24
#define POINTS_PER_PITCH 16
#define PITCH_TOL 1.01
/* the centre search's rounds: one, at 0.04 pitch, then the vertex of
 * the residual's quadratic through the 3 x 3 trial centres at that step
 * about its end (centre_between), most of which the last round has read.
 * A second round at 0.02 pitch before the vertex (h22d-h30) read 8-16
 * patches more a tubercle, about a third of the fit's cost, for a vertex
 * the smooth bowl of the residual (dome_centre_fit.h) gives from the
 * wider 3 x 3 as well (h31d: the accuracy table and the paper figures'
 * fills in the commit). */
#define CENTRE_ROUNDS 1
/* the moves of the search along the axes only (cross_search): a
 * diagonal offset takes two, so up to six, each within the three steps
 * along each axis that the eight neighbours' three moves reach (and
 * fs_dome_tpl_reach_of bounds). With three, interior scene 7 at seed
 * 4000 read D SD 19.8 % (starts a diagonal step or two off stopped
 * short). */
#define CROSS_MOVES 6
#define CROSS_REACH 3

/* Two doubles: two outputs of a blur, two points interpolated or two
 * fills' dot products accumulated together, each lane doing the scalar expression's
 * operations in its order (and no fused multiply-add: -std=c11 sets
 * -ffp-contract=off), so the same values as one at a time (lanes.h). */

/* One output of blur_crop's passes, the taps k[0 .. taps - 1] over p[0],
 * p[step], ..: the scalar sum in double, added in order and narrowed, the
 * value each lane of its two- and four-lane loops gives (a row's last
 * outputs, and every output where neither is taken). */
static float blur_one(const float *p, size_t step, const double *k, int taps)
{
	double a = 0;
	for (int i = 0; i < taps; i++)
		a += k[i] * p[(size_t)i * step];
	return (float)a;
}

#ifdef FS_LANES_AVX
/* blur_crop's two passes with AVX (where the CPU has it, fs_cpu_has_avx),
 * given its kernel k of radius kr: four neighbouring outputs at a time,
 * each lane adding its taps in order (no fused multiply-add under target
 * "avx"; a float widened and a sum narrowed as the scalar casts do), so
 * the same values as blur_crop's two-lane and scalar loops; a row's last
 * outputs, fewer than four, as its scalar loop. The templates' blurs were
 * a fourteenth of P1 Fig1's detection (h46f). */
__attribute__((target("avx"))) static void blur_crop4(const float *src, int sh, int half, const double *k, int kr,
						      float *tmp, float *dst)
{
	int sw = 2 * sh + 1, cw = 2 * half + 1, off = sh - half;
	for (int y = 0; y < sw; y++) {
		const float *row = src + (size_t)y * sw + off - kr;
		float *out = tmp + (size_t)y * cw;
		int x = 0;
		for (; x + 3 < cw; x += 4) {
			v4d a = fs_conv4f(row + x, 1, k, 2 * kr + 1);
			_mm_storeu_ps(out + x, _mm256_cvtpd_ps((__m256d)a));
		}
		for (; x < cw; x++)
			out[x] = blur_one(row + x, 1, k, 2 * kr + 1);
	}
	for (int y = 0; y < cw; y++) {
		const float *col = tmp + (size_t)(y + off - kr) * cw;
		float *out = dst + (size_t)y * cw;
		int x = 0;
		for (; x + 3 < cw; x += 4) {
			v4d a = fs_conv4f(col + x, (size_t)cw, k, 2 * kr + 1);
			_mm_storeu_ps(out + x, _mm256_cvtpd_ps((__m256d)a));
		}
		for (; x < cw; x++)
			out[x] = blur_one(col + x, (size_t)cw, k, 2 * kr + 1);
	}
}
#endif

/* Gaussian blur of the (2 sh + 1)^2 window src into the centred
 * (2 half + 1)^2 crop dst, rows then columns (tmp: (2 sh + 1) x
 * (2 half + 1) floats). */
static void blur_crop(const float *src, int sh, int half, double sigma, float *tmp, float *dst)
{
	int sw = 2 * sh + 1, cw = 2 * half + 1, off = sh - half;
	int kr = sigma > 0 ? (int)ceil(3 * sigma) : 0;
	if (kr > off)
		kr = off;
	double k[2 * 64 + 1], ks = 0;
	if (kr > 64)
		kr = 64;
	for (int i = -kr; i <= kr; i++)
		ks += k[i + kr] = sigma > 0 ? exp(-0.5 * i * i / (sigma * sigma)) : 1;
	for (int i = 0; i <= 2 * kr; i++)
		k[i] /= ks;
#ifdef FS_LANES_AVX
	if (fs_cpu_has_avx()) {
		blur_crop4(src, sh, half, k, kr, tmp, dst);
		return;
	}
#endif
	/* two outputs at a time in vector lanes, each adding its taps in
	 * order (the same sums as one at a time) */
	for (int y = 0; y < sw; y++) {
		int x = 0;
		for (; x + 1 < cw; x += 2) {
			v2d a = {0, 0};
			const float *s = src + (size_t)y * sw + x + off - kr;
			for (int i = 0; i <= 2 * kr; i++)
				a += (v2d){k[i], k[i]} * (v2d){s[i], s[i + 1]};
			tmp[(size_t)y * cw + x] = (float)a[0];
			tmp[(size_t)y * cw + x + 1] = (float)a[1];
		}
		for (; x < cw; x++)
			tmp[(size_t)y * cw + x] = blur_one(src + (size_t)y * sw + x + off - kr, 1, k, 2 * kr + 1);
	}
	for (int y = 0; y < cw; y++) {
		int x = 0;
		for (; x + 1 < cw; x += 2) {
			v2d a = {0, 0};
			for (int i = 0; i <= 2 * kr; i++) {
				const float *t = tmp + (size_t)(y + off - kr + i) * cw + x;
				a += (v2d){k[i], k[i]} * (v2d){t[0], t[1]};
			}
			dst[(size_t)y * cw + x] = (float)a[0];
			dst[(size_t)y * cw + x + 1] = (float)a[1];
		}
		for (; x < cw; x++)
			dst[(size_t)y * cw + x] =
				blur_one(tmp + (size_t)(y + off - kr) * cw + x, (size_t)cw, k, 2 * kr + 1);
	}
}

/* Bilinear value of a (2 half + 1)^2 grid at (u, v) from its centre. */
static double grid_at(const float *g, int half, double u, double v)
{
	int cw = 2 * half + 1;
	double x = u + half, y = v + half;
	int x0 = (int)floor(x), y0 = (int)floor(y);
	if (x0 < 0)
		x0 = 0;
	if (y0 < 0)
		y0 = 0;
	if (x0 > cw - 2)
		x0 = cw - 2;
	if (y0 > cw - 2)
		y0 = cw - 2;
	/* clamped to the grid's last cell: beyond it, the cell's plane goes on */
	const float *d = g + (size_t)y0 * cw + x0;
	return fs_image_bilinear(d[0], d[1], d[cw], d[cw + 1], x - x0, y - y0);
}

/* The most columns the points of a disc have (16 points a pitch over a
 * disc of half a pitch: 17); sample_obs reads the points one at a time
 * beyond it. */
#define MAX_COLS 64

#ifdef FS_LANES_AVX
/* Four points of a row: columns xs[0..3] with weights gs, fs along x,
 * GY, FY along y, into os[0..3] (fs_image_bilinear's operations in
 * order in each lane). The corners come from the row pointers r0 and
 * r1 = r0 + w at each column's index (fs_corners4_ix), every load in
 * one addressing mode, no address made per cell. */
__attribute__((target("avx"))) static inline __attribute__((always_inline)) void
row4(const float *r0, const float *r1, const int *xs, const double *gs, const double *fs, v4d GY, v4d FY, double *os)
{
	v4d p00, p01, p10, p11;
	fs_corners4_ix(r0, r1, xs[0], xs[1], xs[2], xs[3], &p00, &p01, &p10, &p11);
	v4d G = fs_ld4d(gs), F = fs_ld4d(fs);
	v4d a = p00 * G + p01 * F;
	v4d b = p10 * G + p11 * F;
	v4d v = a * GY + b * FY;
	_mm256_storeu_pd(os, (__m256d)v);
}

/* sample_obs' rows with AVX (where the CPU has it, fs_cpu_has_avx), given
 * its columns' pixels x0 (the crop's origin taken off) and weights fx, gx
 * along x: four points of a row at a time. A row's points are
 * consecutive columns (make_points: a row of the square grid cut by the
 * disc, which is convex), so the columns' weights are read four at a
 * time; a row's last points, fewer than four, are read as the row's last
 * four (the one to three read again get the same values: a point's
 * sample is a function of its position alone), and a row of fewer than
 * four points one point at a time. Each lane does the pair loop's
 * operations in its order (no fused multiply-add under target "avx"), so
 * the same values. The patches' samples were half of the template fits,
 * a tenth of the dome rule on the 2048 x 1536 lattice (h43f).
 * The template's arrays are taken into locals and a row's columns
 * counted from its first (h46j): the store of four samples through
 * memcpy may alias anything, so the compiler loaded t's fields and the
 * spilled pointers again for every four points (about 50 instructions
 * where 30 do; 177.8 -> 146.7 M instructions of the patch reads' rows on
 * the lattice). */
__attribute__((target("avx"))) static void obs_rows4(const fs_dome_tpl *t, const float *d, long w, int oy, double y,
						     const int *x0, const double *fx, const double *gx, double *o)
{
	/* row by row from the template's table of rows (h49f: the row's
	 * end, first column and dy looked up at its first point, the float
	 * dy widened there, were 8 M instructions of the lattice's reads) */
	const fs_dome_tpl_row *rw = t->rows, *rend = rw + t->nrows;
	for (; rw < rend; rw++) {
		double py = y + rw->dy;
		int y0 = (int)py;
		double fy = py - y0, gy = 1 - fy;
		const float *r0 = d + (size_t)(y0 - oy) * w, *r1 = r0 + w;
		size_t i = (size_t)rw->first, n = (size_t)rw->n;
		int c0 = rw->c0;
		if (n < 4) {
			for (size_t j = 0; j < n; j++) {
				int c = c0 + (int)j;
				double a = r0[x0[c]] * gx[c] + r0[x0[c] + 1] * fx[c];
				double b = r1[x0[c]] * gx[c] + r1[x0[c] + 1] * fx[c];
				o[i + j] = a * gy + b * fy;
			}
			continue;
		}
		v4d FY = {fy, fy, fy, fy}, GY = {gy, gy, gy, gy};
		const int *xs = x0 + c0;
		const double *gs = gx + c0, *fs = fx + c0;
		double *os = o + i;
		size_t j = 0;
		for (; j + 4 <= n; j += 4)
			row4(r0, r1, xs + j, gs + j, fs + j, GY, FY, os + j);
		if (j < n)
			row4(r0, r1, xs + n - 4, gs + n - 4, fs + n - 4, GY, FY, os + n - 4);
	}
}
#endif

#ifdef FS_LANES_AVX
/* sample_obs' columns with AVX, four at a time (ncol >= 4; the last
 * columns as the last four, the same values again): the pixel x0 (the
 * crop's origin ox taken off) and the weights fx, gx of each column at
 * x, the scalar loop's expressions in each lane (cvttpd2dq truncates as
 * the cast does; the pixels lie inside the image, well within int). The
 * loop of one column at a time was 14 M instructions on the 2048 x 1536
 * lattice (h46j). */
__attribute__((target("avx"))) static void obs_cols4(const fs_dome_tpl *t, double x, int ox, int *x0, double *fx,
						     double *gx)
{
	int n = t->ncol;
	const float *colx = t->colx;
	v4d X = {x, x, x, x}, ONE = {1, 1, 1, 1};
	__m128i OX = _mm_set1_epi32(ox);
	for (int c = 0;; c += 4) {
		if (c + 4 > n)
			c = n - 4;
		v4d px = (v4d)_mm256_cvtps_pd(_mm_loadu_ps(colx + c)) + X;
		__m128i xi = _mm256_cvttpd_epi32((__m256d)px);
		v4d f = px - (v4d)_mm256_cvtepi32_pd(xi);
		_mm256_storeu_pd(fx + c, (__m256d)f);
		_mm256_storeu_pd(gx + c, (__m256d)(ONE - f));
		_mm_storeu_si128((__m128i *)(x0 + c), _mm_sub_epi32(xi, OX));
		if (c + 4 == n)
			break;
	}
}
#endif

/* The image at the sample points around (x, y): 1 when they leave the
 * image (nothing written). Inside, bilinear without clamping.
 * The points lie on a square grid (make_points), so a point's x depends
 * on its column only and its y on its row only: the pixel column and the
 * weights along x are worked out once per column, those along y once per
 * row, from the expressions fs_image_sample_inside evaluates at each
 * point (the same values; the point-by-point rounding and weights were
 * half of the per-tubercle fit's cost). */
static int sample_obs(const fs_dome_tpl *t, const fs_image *img, int ox, int oy, double x, double y, double *o)
{
	double r = t->rfit + 1;
	if (!(x - r >= ox && y - r >= oy && x + r < ox + img->width - 1 && y + r < oy + img->height - 1))
		return 1;
	const float *d = img->data;
	int w = img->width;
	if (!t->col || t->ncol > MAX_COLS) {
		for (size_t i = 0; i < t->npts; i++)
			o[i] = fs_image_sample_inside(d, w, (x + t->dx[i]) - ox, (y + t->dy[i]) - oy);
		return 0;
	}
	int x0[MAX_COLS];
	double fx[MAX_COLS], gx[MAX_COLS];
	/* row by row (a row: the points of one dy), four (obs_rows4) or two
	 * points at a time in vector lanes, each lane fs_image_bilinear's
	 * operations in order */
#ifdef FS_LANES_AVX
	if (fs_cpu_has_avx() && t->ncol >= 4 && t->rows) {
		obs_cols4(t, x, ox, x0, fx, gx);
		obs_rows4(t, d, w, oy, y, x0, fx, gx, o);
		return 0;
	}
#endif
	for (int c = 0; c < t->ncol; c++) {
		double px = x + t->colx[c];
		x0[c] = (int)px;
		fx[c] = px - x0[c];
		gx[c] = 1 - fx[c];
		x0[c] -= ox;
	}
	size_t np = t->npts, i = 0;
	while (i < np) {
		double py = y + t->dy[i];
		int y0 = (int)py;
		double fy = py - y0, gy = 1 - fy;
		v2d FY = {fy, fy}, GY = {gy, gy};
		const float *row = d + (size_t)(y0 - oy) * w;
		/* the row's end, found once in make_points (the search for it,
		 * a comparison per point, was a sixth of this read) */
		size_t e = (size_t)t->row_end[i];
		for (; i + 1 < e; i += 2) {
			int c0 = t->col[i], c1 = t->col[i + 1];
			const float *p = row + x0[c0], *q = row + x0[c1];
			v2d p00 = {p[0], q[0]}, p01 = {p[1], q[1]}, p10 = {p[w], q[w]}, p11 = {p[w + 1], q[w + 1]};
			v2d G = {gx[c0], gx[c1]}, F = {fx[c0], fx[c1]};
			v2d a = p00 * G + p01 * F;
			v2d b = p10 * G + p11 * F;
			v2d v = a * GY + b * FY;
			o[i] = v[0];
			o[i + 1] = v[1];
		}
		if (i < e) {
			int c = t->col[i];
			const float *p = row + x0[c];
			double a = p[0] * gx[c] + p[1] * fx[c];
			double b = p[w] * gx[c] + p[w + 1] * fx[c];
			o[i] = a * gy + b * fy;
			i++;
		}
	}
	return 0;
}

void fs_dome_tpl_free(fs_dome_tpl *t)
{
	if (!t)
		return;
	free(t->dx);
	free(t->dy);
	free(t->t);
	free(t->colx);
	free(t->col);
	free(t->row_end);
	free(t->rows);
	free(t->tp);
	free(t->tpp);
	free(t->stp);
	free(t->sttp);
	free(t->vtp);
	free(t->mean);
	free(t->obs);
	memset(t, 0, sizeof *t);
}

/* phases per axis of the templates where the points lie on the pixel grid */
#define NPHASE 4

/* The phase index of a patch read about (x, y) (fs_dome_tpl.nph). */
static int phase_of(const fs_dome_tpl *t, double x, double y)
{
	if (t->nph <= 1)
		return 0;
	int qx = (int)floor((x - floor(x)) * t->nph + 0.5), qy = (int)floor((y - floor(y)) * t->nph + 0.5);
	qx %= t->nph;
	qy %= t->nph;
	return qy * t->nph + qx;
}

static const double *tp_at(const fs_dome_tpl *t, int ph)
{
	return t->nph > 1 ? t->tpp + (size_t)ph * t->npts * t->nk : t->tp;
}

static const double *st_at(const fs_dome_tpl *t, int ph)
{
	return t->nph > 1 ? t->stp + (size_t)ph * FS_DOME_TPL_NFILL : t->st;
}

/* the templates' variances times npts, stt - st^2 / npts, at phase ph
 * (template_sums) */
static const double *vt_at(const fs_dome_tpl *t, int ph)
{
	return t->nph > 1 ? t->vtp + (size_t)ph * FS_DOME_TPL_NFILL : t->vt;
}

/* The sample points: a square grid of step sp px inside the disc. */
static int make_points(fs_dome_tpl *t, double sp)
{
	int r = (int)floor(t->rfit / sp);
	size_t cap = (size_t)(2 * r + 1) * (2 * r + 1);
	t->dx = malloc(cap * sizeof *t->dx);
	t->dy = malloc(cap * sizeof *t->dy);
	t->col = malloc(cap * sizeof *t->col);
	t->row_end = malloc(cap * sizeof *t->row_end);
	t->colx = malloc((size_t)(2 * r + 1) * sizeof *t->colx);
	t->rows = malloc((size_t)(2 * r + 1) * sizeof *t->rows);
	if (!t->dx || !t->dy || !t->col || !t->row_end || !t->colx || !t->rows)
		return -1;
	t->ncol = 2 * r + 1;
	for (int i = -r; i <= r; i++)
		t->colx[i + r] = (float)(i * sp);
	t->npts = 0;
	t->nrows = 0;
	for (int j = -r; j <= r; j++) {
		size_t first = t->npts;
		for (int i = -r; i <= r; i++)
			if (hypot(i * sp, j * sp) <= t->rfit) {
				t->col[t->npts] = i + r;
				t->dx[t->npts] = (float)(i * sp);
				t->dy[t->npts++] = (float)(j * sp);
			}
		/* a row is the points of one dy, which no other row has */
		for (size_t k = first; k < t->npts; k++)
			t->row_end[k] = (int)t->npts;
		if (t->npts > first)
			t->rows[t->nrows++] = (fs_dome_tpl_row){(double)t->dy[first], (int)first,
								(int)(t->npts - first), t->col[first]};
	}
	return 0;
}

/* The lower triangle of X^T X for the nc sampled components c[] and a
 * constant (index nc), np points: what solve_xtx needs of the components
 * alone, so that a caller solving many patches on the same components
 * (read_wide's jackknife: each fill's components against the mean patch
 * with each dome left out in turn) sums it once. Each entry sums its
 * products over the points in order, as one loop making X^T v beside it
 * would: the same bits. */
static void normal_on(const float *const *c, int nc, size_t np, double xtx[NW][NW])
{
	double x[NW];
	int n1 = nc + 1;
	memset(xtx, 0, NW * sizeof xtx[0]);
	for (size_t i = 0; i < np; i++) {
		for (int j = 0; j < nc; j++)
			x[j] = c[j][i];
		x[nc] = 1;
		for (int a = 0; a < n1; a++)
			for (int q = 0; q <= a; q++)
				xtx[a][q] += x[a] * x[q];
	}
}

/* Least squares of v on the nc sampled components c[] and a constant
 * given their X^T X (normal_on); w gets nc + 1 weights (the constant
 * last); returns the residual sum of squares. */
static double solve_xtx(const float *const *c, int nc, size_t np, const double xtx[NW][NW], const double *v,
			double *w)
{
	double A[NW][NW + 1], x[NW];
	int n1 = nc + 1;
	memset(A, 0, sizeof A);
	for (size_t i = 0; i < np; i++) {
		for (int j = 0; j < nc; j++)
			x[j] = c[j][i];
		x[nc] = 1;
		for (int a = 0; a < n1; a++)
			A[a][n1] += x[a] * v[i];
	}
	for (int a = 0; a < n1; a++)
		for (int q = 0; q <= a; q++)
			A[a][q] = A[q][a] = xtx[a][q];
	fs_se_solve(A, n1, w);
	double rss = 0;
	for (size_t i = 0; i < np; i++) {
		double m = w[nc] - v[i];
		for (int j = 0; j < nc; j++)
			m += w[j] * c[j][i];
		rss += m * m;
	}
	return rss;
}

/* solve_xtx with the components' X^T X summed here */
static double solve_on(const float *const *c, int nc, size_t np, const double *v, double *w)
{
	double xtx[NW][NW];
	normal_on(c, nc, np, xtx);
	return solve_xtx(c, nc, np, xtx, v, w);
}

/* The coarse step's rendered lattices, kept for the fine step
 * (make_templates): where the coarse step picks its middle fill, the fine
 * grid's fills 0.70 + 0.05 k of it are the coarse ones 0.70 + 0.15 k' of
 * it to the bit at k = 3 k' (all five on the 2048 x 1536 lattice, two of
 * five on P1 Fig1's two builds), and a render with its shadow is a pure
 * function of the fill, the formation, the grid and the window (sh,
 * reach), so a fill the coarse step rendered is not rendered again (h46f:
 * four of P1 Fig1's 48 template renders and shadows, ten of the
 * lattice's 36). Owns its copies (kept_free). */
typedef struct kept_renders {
	int n, sh, reach, shadow;
	double fill[FS_DOME_TPL_NFILL];
	float *c[FS_DOME_TPL_NFILL][FS_SE_NCOMP]; /* the components 0 .. ncomp - 1, (2 sh + 1)^2 each */
} kept_renders;

static int reuse_forbidden; /* fs_dome_tpl_forbid_reuse */

void fs_dome_tpl_forbid_reuse(int on)
{
	__atomic_store_n(&reuse_forbidden, on != 0, __ATOMIC_RELAXED);
}

static void kept_free(kept_renders *kp)
{
	for (int i = 0; i < kp->n; i++)
		for (int j = 0; j < FS_SE_NCOMP; j++)
			free(kp->c[i][j]);
	kp->n = 0;
}

/* The kept render of fill (its bits) in the window sh, reach with or
 * without the shadow, or -1. */
static int kept_find(const kept_renders *kp, double fill, int sh, int reach, int shadow)
{
	if (!kp || kp->sh != sh || kp->reach != reach || kp->shadow != shadow)
		return -1;
	for (int i = 0; i < kp->n; i++)
		if (!memcmp(&kp->fill[i], &fill, sizeof fill))
			return i;
	return -1;
}

/* A copy of the field's first ncomp components kept as fill's. 0, -1 on
 * out of memory. */
static int kept_add(kept_renders *kp, double fill, int sh, int reach, int shadow, const fs_se_field *fld,
		    int ncomp)
{
	if (kp->n && (kp->sh != sh || kp->reach != reach || kp->shadow != shadow))
		return 0; /* (one window a step: not kept) */
	if (kp->n == FS_DOME_TPL_NFILL)
		return 0;
	size_t nsw = (size_t)(2 * sh + 1) * (2 * sh + 1);
	int i = kp->n;
	for (int j = 0; j < FS_SE_NCOMP; j++)
		kp->c[i][j] = NULL;
	for (int j = 0; j < ncomp; j++) {
		if (!(kp->c[i][j] = malloc(nsw * sizeof *kp->c[i][j]))) {
			for (int q = 0; q < j; q++)
				free(kp->c[i][q]);
			return -1;
		}
		memcpy(kp->c[i][j], fld->c[j], nsw * sizeof *kp->c[i][j]);
	}
	kp->sh = sh;
	kp->reach = reach;
	kp->shadow = shadow;
	kp->fill[i] = fill;
	kp->n++;
	return 0;
}

/* The templates' components: every fill's lattice rendered, each
 * component blurred and sampled at t's points (cs: nk x FS_SE_NCOMP x
 * npts; the shadow's only when shadow). With weights w (nc of them), the
 * components are mixed before the blur instead, which is linear: one
 * blur a fill, the templates written to t->t (cs unused). keep (may be
 * NULL): without w every render is kept in it, with w a fill kept there
 * is taken from it instead of rendered. */
static int sample_components(fs_dome_tpl *t, const fs_dome_fit *f, int gr, int shadow, const double *w, int nc,
			     float *cs, kept_renders *keep)
{
	double g2p = gr / f->pitch, sg = f->blur_px * g2p;
	int half = (int)ceil(0.5 * gr) + 2, sh = half + (int)ceil(3 * sg) + 1;
	/* a shadow reaches as far as the highest dome's top casts it */
	int reach = shadow ? (int)ceil(0.5 * FILL_MAX * gr * f->h_over_r / tan(f->elevation)) + 1 : 0;
	size_t cw = (size_t)(2 * half + 1), sw = (size_t)(2 * sh + 1), np = t->npts, nsw = sw * sw;
	float *tmp = malloc(sw * cw * sizeof *tmp), *bl = malloc(cw * cw * sizeof *bl);
	float *mix = w ? malloc(nsw * sizeof *mix) : NULL;
	fs_se_field fld;
	memset(&fld, 0, sizeof fld);
	int rc = -1, ncomp = shadow ? FS_SE_NCOMP : NLIN;
	if (!tmp || !bl || (w && !mix))
		goto out;
	for (int k = 0; k < t->nk; k++) {
		const float *comp[FS_SE_NCOMP];
		int from = w ? kept_find(keep, t->fill[k], sh, reach, shadow) : -1;
		if (from >= 0) {
			for (int j = 0; j < ncomp; j++)
				comp[j] = keep->c[from][j];
		} else {
			fs_se_geom g = {t->fill[k], f->h_over_r, f->profile, f->angle, f->foot};
			if (fs_se_render(&g, gr, sh, reach, &fld))
				goto out;
			if (shadow)
				fs_se_shadow(&fld, f->azimuth, f->elevation);
			for (int j = 0; j < ncomp; j++)
				comp[j] = fld.c[j];
			if (!w && keep && kept_add(keep, t->fill[k], sh, reach, shadow, &fld, ncomp))
				goto out;
		}
		if (w) {
			/* (the yield was weighted in place: the same values) */
			for (size_t i = 0; i < nsw; i++) {
				double v = 0;
				for (int j = 0; j < nc; j++)
					v += w[j] * comp[j][i];
				mix[i] = (float)v;
			}
			float *dst = t->t + (size_t)k * np;
			blur_crop(mix, sh, half, sg, tmp, bl);
			for (size_t i = 0; i < np; i++)
				dst[i] = (float)grid_at(bl, half, t->dx[i] * g2p, t->dy[i] * g2p);
			/* the read at phase (fx, fy): the bilinear weights of
			 * the four pixels about each point, offsets from the
			 * centre dx + a - fx, dy + b - fy */
			for (int ph = 0; t->tpp && ph < t->nph * t->nph; ph++) {
				double fx = (double)(ph % t->nph) / t->nph, fy = (double)(ph / t->nph) / t->nph;
				double *tq = t->tpp + (size_t)ph * np * t->nk;
				for (size_t i = 0; i < np; i++) {
					double v = 0;
					for (int b = 0; b < 2; b++)
						for (int a = 0; a < 2; a++) {
							double wab = (a ? fx : 1 - fx) * (b ? fy : 1 - fy);
							if (wab == 0)
								continue;
							v += wab * grid_at(bl, half, (t->dx[i] + a - fx) * g2p,
									   (t->dy[i] + b - fy) * g2p);
						}
					tq[i * t->nk + k] = v;
				}
			}
			continue;
		}
		for (int j = 0; j < ncomp; j++) {
			float *dst = cs + ((size_t)k * FS_SE_NCOMP + j) * np;
			blur_crop(comp[j], sh, half, sg, tmp, bl);
			for (size_t i = 0; i < np; i++)
				dst[i] = (float)grid_at(bl, half, t->dx[i] * g2p, t->dy[i] * g2p);
		}
	}
	rc = 0;
out:
	fs_se_field_free(&fld);
	free(tmp);
	free(bl);
	free(mix);
	return rc;
}

/* The weights w of the components (nc of them and a constant) that read
 * the mean patch best at any of t's fills (*kbest). Returns 1 when none
 * could be solved. */
static int mix_weights(const fs_dome_tpl *t, const float *cs, int nc, const double *mean, double *w, int *kbest)
{
	size_t np = t->npts;
	const float *c[NW];
	double wk[NW], brss = INFINITY;
	for (int k = 0; k < t->nk; k++) {
		for (int j = 0; j < nc; j++)
			c[j] = cs + ((size_t)k * FS_SE_NCOMP + j) * np;
		double rss = solve_on(c, nc, np, mean, wk);
		if (rss < brss) {
			brss = rss;
			memcpy(w, wk, sizeof wk);
			*kbest = k;
		}
	}
	return !isfinite(brss);
}

/* The sums of t's templates; 1 when one is flat. */
static int template_sums(fs_dome_tpl *t)
{
	size_t np = t->npts;
	for (int k = 0; k < t->nk; k++) {
		const float *tk = t->t + (size_t)k * np;
		double s = 0, s2 = 0;
		for (size_t i = 0; i < np; i++) {
			s += tk[i];
			s2 += (double)tk[i] * tk[i];
		}
		t->st[k] = s;
		t->stt[k] = s2;
		/* (the variance made once here: every patch's score read it
		 * again, a product, a quotient and a difference a fill) */
		t->vt[k] = s2 - s * s / np;
		if (!(t->vt[k] > 1e-12))
			return 1;
	}
	for (int ph = 0; t->tpp && ph < t->nph * t->nph; ph++) {
		const double *tq = t->tpp + (size_t)ph * np * t->nk;
		for (int k = 0; k < t->nk; k++) {
			double s = 0, s2 = 0;
			for (size_t i = 0; i < np; i++) {
				s += tq[i * t->nk + k];
				s2 += tq[i * t->nk + k] * tq[i * t->nk + k];
			}
			t->stp[(size_t)ph * FS_DOME_TPL_NFILL + k] = s;
			t->sttp[(size_t)ph * FS_DOME_TPL_NFILL + k] = s2;
			t->vtp[(size_t)ph * FS_DOME_TPL_NFILL + k] = s2 - s * s / np;
			if (!(t->vtp[(size_t)ph * FS_DOME_TPL_NFILL + k] > 1e-12))
				return 1;
		}
	}
	return 0;
}

/* t->tp from t->t (see fs_dome_tpl). Returns 0, -1 on out of memory. */
static int transpose_templates(fs_dome_tpl *t)
{
	size_t np = t->npts;
	t->tp = malloc((size_t)t->nk * np * sizeof *t->tp);
	if (!t->tp)
		return -1;
	for (int k = 0; k < t->nk; k++)
		for (size_t i = 0; i < np; i++)
			t->tp[i * t->nk + k] = t->t[(size_t)k * np + i];
	return 0;
}

/* The fills: 0.70..1.30 of fc in steps of step (one above what a lattice
 * can hold read as 0.85), where the lattice can be drawn. 1 when fewer
 * than three. */
static int set_fills(fs_dome_tpl *t, double fc, double step)
{
	fc = fmin(fc, 0.85);
	t->nk = 0;
	for (int k = 0; SCALE_LO + step * k <= 2 - SCALE_LO + 1e-9 && k < FS_DOME_TPL_NFILL; k++) {
		double fl = fc * (SCALE_LO + step * k);
		if (fl >= FILL_MIN && fl <= FILL_MAX)
			t->fill[t->nk++] = fl;
	}
	return t->nk < 3;
}

/* The wide read's rise (fs_dome_tpl) from the residuals rss of nk
 * fills: 0 when the best is an end or fits exactly; *kbest its index. */
static double rise_of(const double *rss, int nk, int *kbest)
{
	int kb = 0;
	for (int k = 1; k < nk; k++)
		if (rss[k] < rss[kb])
			kb = k;
	*kbest = kb;
	if (kb == 0 || kb == nk - 1 || !(rss[kb] > 0))
		return 0;
	double lo = 0, hi = 0;
	for (int k = 0; k < kb; k++)
		lo = fmax(lo, rss[k]);
	for (int k = kb + 1; k < nk; k++)
		hi = fmax(hi, rss[k]);
	return fmin(lo, hi) / rss[kb] - 1;
}

/* t->wide_best, t->wide_rise and t->wide_rise_se (dome_base_fit.h): the mean patch read
 * with the components (nc of them) solved afresh at every fill of the
 * wide window. Leaves t's fills to the caller. 0, -1 on out of memory. */
static int read_wide(fs_dome_tpl *t, const fs_dome_fit *f, int shadow, int nc, const double *mean, float *cs)
{
	t->nk = 0;
	for (int k = 0; k < FS_DOME_TPL_NFILL; k++) {
		double fl = FS_DOME_TPL_WIDE_LO + (FS_DOME_TPL_WIDE_HI - FS_DOME_TPL_WIDE_LO) * k / (FS_DOME_TPL_NFILL - 1);
		if (fl > FS_DOME_TPL_WIDE_HI + 1e-9)
			break;
		t->fill[t->nk++] = fl;
	}
	if (sample_components(t, f, RENDER_G, shadow, NULL, 0, cs, NULL))
		return -1;
	double rss[FS_DOME_TPL_NFILL], wk[NW], xtx[FS_DOME_TPL_NFILL][NW][NW];
	const float *c[NW];
	int kb;
	for (int k = 0; k < t->nk; k++) {
		for (int j = 0; j < nc; j++)
			c[j] = cs + ((size_t)k * FS_SE_NCOMP + j) * t->npts;
		normal_on(c, nc, t->npts, xtx[k]);
		rss[k] = solve_xtx(c, nc, t->npts, xtx[k], mean, wk);
	}
	t->wide_rise = rise_of(rss, t->nk, &kb);
	t->wide_best = t->fill[kb];
	/* the rise's own noise: the same read on the mean patch with one dome
	 * left out, each in turn (jackknife over the domes averaged) */
	size_t n = t->nobs, np = t->npts;
	t->wide_rise_se = NAN;
	double *v = n >= 3 && t->obs ? malloc(np * sizeof *v) : NULL;
	if (n >= 3 && t->obs && !v)
		return -1;
	if (!v)
		return 0;
	double sr = 0, srr = 0;
	for (size_t q = 0; q < n; q++) {
		const double *o = t->obs + q * np;
		for (size_t i = 0; i < np; i++)
			v[i] = (n * mean[i] - o[i]) / (n - 1);
		double rq[FS_DOME_TPL_NFILL];
		for (int k = 0; k < t->nk; k++) {
			for (int j = 0; j < nc; j++)
				c[j] = cs + ((size_t)k * FS_SE_NCOMP + j) * np;
			rq[k] = solve_xtx(c, nc, np, xtx[k], v, wk);
		}
		int kq;
		double r = rise_of(rq, t->nk, &kq);
		sr += r;
		srr += r * r;
	}
	free(v);
	double m = sr / n, var = srr / n - m * m;
	t->wide_rise_se = sqrt((n - 1) * fmax(var, 0));
	return 0;
}

/* The templates (see dome_base_fit.h), in two steps. Coarse: the lattice
 * at five fills, 0.70-1.30 of fill0, every component blurred, the mix of
 * them that reads the mean patch best and at which of the five fills.
 * Fine: the thirteen fills around that one (the formation, fitted at the
 * base rule's median, may see the domes larger or smaller than the rule
 * does: 25 % smaller on scene 40 of the corner matrix, so that a grid
 * around the median leaves the tubercles' own fills outside it), each
 * rendered, mixed with those weights and blurred once. Returns 0, 1
 * (degenerate), -1 (memory). */
static int make_templates(fs_dome_tpl *t, const fs_dome_fit *f, double fill0, const double *mean, float *cs)
{
	int shadow = f->elevation > 0 && f->h_over_r > 0, kb = 0, rc = 1;
	kept_renders keep = {.n = 0};
	if (set_fills(t, fill0, 3 * SCALE_STEP))
		return 1;
	if (sample_components(t, f, RENDER_G, shadow, NULL, 0, cs, &keep)) {
		rc = -1;
		goto out;
	}
	double w[NW];
	int mt = mix_weights(t, cs, shadow ? FS_SE_NCOMP : NLIN, mean, w, &kb);
	/* a shadow brighter than the lit surface is no shadow */
	if (mt == 0 && shadow && !(w[FS_SE_SHADOW] < 0)) {
		shadow = 0;
		mt = mix_weights(t, cs, NLIN, mean, w, &kb);
	}
	if (mt)
		goto out;
	t->shadowed = shadow;
	t->nmix = shadow ? FS_SE_NCOMP : NLIN;
	memcpy(t->mixw, w, (size_t)(t->nmix + 1) * sizeof *w);
	double pick = t->fill[kb];
	t->pick_edge = kb == 0 ? -1 : kb == t->nk - 1 ? 1 : 0;
	t->wide_best = t->wide_rise = t->wide_rise_se = NAN; /* fs_dome_tpl_read_wide */
	if (set_fills(t, pick, SCALE_STEP))
		goto out;
	if (sample_components(t, f, RENDER_G, shadow, w, shadow ? FS_SE_NCOMP : NLIN, cs,
			      __atomic_load_n(&reuse_forbidden, __ATOMIC_RELAXED) ? NULL : &keep)) {
		rc = -1;
		goto out;
	}
	rc = template_sums(t);
out:
	kept_free(&keep);
	return rc;
}

/* the fitted disc's radius and the centre search's first step */
static double rfit_of(double pitch)
{
	return 0.5 * pitch;
}

static double shift_of(double pitch)
{
	return fmax(0.5, 0.04 * pitch);
}

void fs_dome_tpl_reach_of(double pitch, size_t n, fs_dome_tpl_reach *r)
{
	double shift = shift_of(pitch);
	r->patch_r = rfit_of(pitch) + 1; /* sample_obs's test */
	/* each round up to three steps of h along both axes, h halving */
	r->search_r = 0;
	for (int k = 0; k < CENTRE_ROUNDS; k++, shift *= 0.5)
		r->search_r += 3 * M_SQRT2 * shift;
	/* then the 3 x 3 trial centres one last step about the end, and the
	 * vertex between them (centre_between) */
	r->search_r += M_SQRT2 * 2 * shift;
	r->stride = n > MEAN_MAX ? (n + MEAN_MAX - 1) / MEAN_MAX : 1;
}

int fs_dome_tpl_build(const fs_image *img, const fs_dome_fit *f, double fill0, const double *xs,
		      const double *ys, size_t n, fs_dome_tpl *t, char *err, size_t errlen)
{
	return fs_dome_tpl_build_shifted(img, f, fill0, xs, ys, NULL, NULL, n, t, err, errlen);
}

int fs_dome_tpl_build_shifted(const fs_image *img, const fs_dome_fit *f, double fill0, const double *xs,
			      const double *ys, const int *sx, const int *sy, size_t n, fs_dome_tpl *t, char *err,
			      size_t errlen)
{
	memset(t, 0, sizeof *t);
	if (!(f->pitch >= 6) || !(fill0 > FILL_MIN) || n < 8 || !(f->blur_px >= 0))
		return 1;
	int rc = -1;
	float *cs = NULL;
	double *mean = NULL, *obs = NULL;
	t->pitch = f->pitch;
	t->rfit = rfit_of(f->pitch);
	t->shift = shift_of(f->pitch);
	t->screened = f->halftone > 0;
	if (!(fill0 <= 1)) {
		fs_dome_tpl_free(t);
		return 1;
	}
	/* a pixel apart up to 16 px, and within the pitch estimate's own 1 %
	 * above it (the points then lie on the pixel grid: phase templates) */
	int on_grid = !(f->pitch > POINTS_PER_PITCH * PITCH_TOL);
	if (make_points(t, on_grid ? 1 : f->pitch / POINTS_PER_PITCH))
		goto oom;
	size_t np = t->npts;
	t->nph = 1;
	if (on_grid) {
		t->nph = NPHASE;
		t->tpp = malloc((size_t)NPHASE * NPHASE * np * FS_DOME_TPL_NFILL * sizeof *t->tpp);
		t->stp = malloc((size_t)NPHASE * NPHASE * FS_DOME_TPL_NFILL * sizeof *t->stp);
		t->sttp = malloc((size_t)NPHASE * NPHASE * FS_DOME_TPL_NFILL * sizeof *t->sttp);
		t->vtp = malloc((size_t)NPHASE * NPHASE * FS_DOME_TPL_NFILL * sizeof *t->vtp);
		if (!t->tpp || !t->stp || !t->sttp || !t->vtp)
			goto oom;
	}
	/* for the most fills: the grid may be set again (below) */
	cs = calloc((size_t)FS_DOME_TPL_NFILL * FS_SE_NCOMP * np, sizeof *cs);
	mean = calloc(np, sizeof *mean);
	obs = malloc((size_t)MEAN_MAX * np * sizeof *obs);
	t->t = malloc((size_t)FS_DOME_TPL_NFILL * np * sizeof *t->t);
	if (!cs || !mean || !obs || !t->t)
		goto oom;
	/* the mean patch of up to 64 tubercles spread over the image */
	fs_dome_tpl_reach reach;
	fs_dome_tpl_reach_of(f->pitch, n, &reach);
	size_t used = 0;
	for (size_t q = 0; q < n && used < MEAN_MAX; q += reach.stride) {
		double *o = obs + used * np;
		if ((sx && sx[q] == INT_MIN) || sample_obs(t, img, sx ? sx[q] : 0, sy ? sy[q] : 0, xs[q], ys[q], o))
			continue;
		for (size_t i = 0; i < np; i++)
			mean[i] += o[i];
		used++;
	}
	if (used < 8) {
		rc = 1;
		goto done;
	}
	for (size_t i = 0; i < np; i++)
		mean[i] /= used;
	int mt = make_templates(t, f, fill0, mean, cs);
	if (mt < 0 || (mt == 0 && transpose_templates(t)))
		goto oom;
	if (mt) {
		rc = 1;
		goto done;
	}
	t->mean = mean; /* for fs_dome_tpl_read_wide */
	mean = NULL;
	t->obs = obs; /* the patches themselves: the wide read's noise */
	t->nobs = used;
	obs = NULL;
	rc = 0;
	goto done;
oom:
	snprintf(err, errlen, "dome template: out of memory");
done:
	free(cs);
	free(mean);
	free(obs);
	if (rc)
		fs_dome_tpl_free(t);
	return rc;
}


int fs_dome_tpl_read_wide(fs_dome_tpl *t, const fs_dome_fit *f)
{
	if (!t->mean)
		return 0;
	float *cs = malloc((size_t)FS_DOME_TPL_NFILL * FS_SE_NCOMP * t->npts * sizeof *cs);
	if (!cs)
		return -1;
	/* the fills are the templates': put back after the read */
	int nk = t->nk;
	double fill[FS_DOME_TPL_NFILL];
	memcpy(fill, t->fill, sizeof fill);
	int rc = read_wide(t, f, t->shadowed, t->shadowed ? FS_SE_NCOMP : NLIN, t->mean, cs);
	t->nk = nk;
	memcpy(t->fill, fill, sizeof fill);
	free(cs);
	return rc;
}

/* The dot products of the patch o with n = 2 np2 + odd templates from
 * tp (the first fill's column; a point's fills nk apart), two fills at a
 * time in vector lanes, each lane summing its fill over the points in
 * order (the serial chain of additions one fill alone would make, so a
 * dot product does not depend on which fills are computed with it).
 * Inlined with constant np2 and odd (dots), the accumulators are
 * registers and there is no loop over the fills: with a loop over a
 * variable count and an array of accumulators the fit spent more on the
 * loop's counting and the accumulators' loads and stores than on the
 * products (h38e: 914.8 -> 589.6 M instructions of fs_dome_tpl_fit on
 * the 2048 x 1536 lattice, with the rows' ends of sample_obs). */
static inline __attribute__((always_inline)) void dots_fixed(const double *tp, int nk, const double *o, size_t np,
							     int np2, int odd, int sums, double *sot, double *so,
							     double *soo)
{
	v2d a0 = {0, 0}, a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0;
	double last = 0, s = 0, ss = 0;
	for (size_t i = 0; i < np; i++, tp += nk) {
		v2d oi = {o[i], o[i]}, tv;
		if (sums) {
			s += o[i];
			ss += o[i] * o[i];
		}
		if (np2 > 0) {
			memcpy(&tv, tp, sizeof tv);
			a0 += oi * tv;
		}
		if (np2 > 1) {
			memcpy(&tv, tp + 2, sizeof tv);
			a1 += oi * tv;
		}
		if (np2 > 2) {
			memcpy(&tv, tp + 4, sizeof tv);
			a2 += oi * tv;
		}
		if (np2 > 3) {
			memcpy(&tv, tp + 6, sizeof tv);
			a3 += oi * tv;
		}
		if (np2 > 4) {
			memcpy(&tv, tp + 8, sizeof tv);
			a4 += oi * tv;
		}
		if (np2 > 5) {
			memcpy(&tv, tp + 10, sizeof tv);
			a5 += oi * tv;
		}
		if (odd)
			last += o[i] * tp[2 * np2];
	}
	v2d acc[6] = {a0, a1, a2, a3, a4, a5};
	for (int q = 0; q < np2; q++) {
		sot[2 * q] = acc[q][0];
		sot[2 * q + 1] = acc[q][1];
	}
	if (odd)
		sot[2 * np2] = last;
	if (sums) {
		*so = s;
		*soo = ss;
	}
}

_Static_assert(FS_DOME_TPL_NFILL <= 13, "dots_fixed holds at most 6 pairs of fills and one more");

/* One call of F, a dots_fixed kernel of lanes L (2 or 4), for each count
 * of fills 1 .. 13: the count split into its whole registers and the
 * rest, as constants, so that each case is the kernel made for it. Sums
 * S 0 or 1. */
#define DOTS_CASE(F, L, S, N)                                                                                          \
	case N: F(tp, nk, o, np, (N) / (L), (N) % (L), S, sot, so, soo); break;
#define DOTS_ALL_CASES(F, L, S)                                                                                        \
	DOTS_CASE(F, L, S, 1) DOTS_CASE(F, L, S, 2) DOTS_CASE(F, L, S, 3) DOTS_CASE(F, L, S, 4)                        \
	DOTS_CASE(F, L, S, 5) DOTS_CASE(F, L, S, 6) DOTS_CASE(F, L, S, 7) DOTS_CASE(F, L, S, 8)                        \
	DOTS_CASE(F, L, S, 9) DOTS_CASE(F, L, S, 10) DOTS_CASE(F, L, S, 11) DOTS_CASE(F, L, S, 12)                     \
	DOTS_CASE(F, L, S, 13)

#ifdef FS_LANES_AVX
/* dots_fixed with AVX (where the CPU has it, fs_cpu_has_avx): n = 4 nq +
 * rem fills, four to a register, then a pair and one more as
 * dots_fixed; each lane still sums its fill over the points in order
 * (no fused multiply-add under target "avx"), so the same dot products
 * and sums. The template fits' dot products were a twentieth of the dome
 * rule on the 2048 x 1536 lattice (h40d). */
__attribute__((target("avx"))) static inline __attribute__((always_inline)) void
dots_fixed4(const double *tp, int nk, const double *o, size_t np, int nq, int rem, int sums, double *sot, double *so,
	    double *soo)
{
	v4d q0 = {0, 0, 0, 0}, q1 = q0, q2 = q0;
	v2d pr = {0, 0};
	double last = 0, s = 0, ss = 0;
	int pair = rem >= 2, odd = rem & 1;
	/* One point's products and sums. The point's value broadcast from
	 * memory (one instruction; the lanes' initializer took three), and
	 * two points a loop (half the loop's counting): each accumulator
	 * still adds point i before point i + 1, so the same sums (h43f:
	 * -40 M instructions of the template fits on the lattice). The
	 * scalar sums and the pair take the value from the broadcast's low
	 * lanes (the compiler loaded it a second time), and four points a
	 * loop (h46j). */
#define DOTS4_POINT(I, TP)                                                                                              \
	do {                                                                                                            \
		__m256d ob = _mm256_broadcast_sd(o + (I));                                                              \
		v4d oi = (v4d)ob;                                                                                       \
		double ov = _mm_cvtsd_f64(_mm256_castpd256_pd128(ob));                                                  \
		if (sums) {                                                                                             \
			s += ov;                                                                                        \
			ss += ov * ov;                                                                                  \
		}                                                                                                       \
		if (nq > 0)                                                                                             \
			q0 += oi * fs_ld4d(TP);                                                                         \
		if (nq > 1)                                                                                             \
			q1 += oi * fs_ld4d((TP) + 4);                                                                   \
		if (nq > 2)                                                                                             \
			q2 += oi * fs_ld4d((TP) + 8);                                                                   \
		if (pair) {                                                                                             \
			v2d o2 = (v2d)_mm256_castpd256_pd128(ob), tv;                                                   \
			memcpy(&tv, (TP) + 4 * nq, sizeof tv);                                                          \
			pr += o2 * tv;                                                                                  \
		}                                                                                                       \
		if (odd)                                                                                                \
			last += ov * (TP)[4 * nq + 2 * pair];                                                           \
	} while (0)
	size_t i = 0;
	for (; i + 3 < np; i += 4, tp += 4 * nk) {
		DOTS4_POINT(i, tp);
		DOTS4_POINT(i + 1, tp + nk);
		DOTS4_POINT(i + 2, tp + 2 * nk);
		DOTS4_POINT(i + 3, tp + 3 * nk);
	}
	for (; i < np; i++, tp += nk)
		DOTS4_POINT(i, tp);
#undef DOTS4_POINT
	v4d acc[3] = {q0, q1, q2};
	for (int q = 0; q < nq; q++)
		memcpy(sot + 4 * q, &acc[q], sizeof acc[q]);
	if (pair)
		memcpy(sot + 4 * nq, &pr, sizeof pr);
	if (odd)
		sot[4 * nq + 2 * pair] = last;
	if (sums) {
		*so = s;
		*soo = ss;
	}
}

_Static_assert(FS_DOME_TPL_NFILL <= 15, "dots_fixed4 holds at most 3 quads of fills and three more");

/* dots() with AVX: returns 0 when it made the products, -1 for a count
 * it does not hold (dots then makes them) */
__attribute__((target("avx"))) static int dots4(const double *tp, int nk, const double *o, size_t np, int cnt,
						double *sot, double *so, double *soo)
{
	if (so) {
		switch (cnt) {
			DOTS_ALL_CASES(dots_fixed4, 4, 1)
		default: return -1;
		}
	} else {
		switch (cnt) {
			DOTS_ALL_CASES(dots_fixed4, 4, 0)
		default: return -1;
		}
	}
	return 0;
}
#endif

/* sot[k - k0] = the dot product of the patch o with the templates
 * k0..k1 (1 to FS_DOME_TPL_NFILL of them) from t->tp (dots_fixed); with
 * so not NULL, also the patch's sum in *so and sum of squares in *soo,
 * each summed over the points in order (a patch read fresh: in the same
 * pass over the points). */
static void dots(const fs_dome_tpl *t, const double *tpb, const double *o, int k0, int k1, double *sot, double *so,
		 double *soo)
{
	const double *tp = tpb + k0;
	size_t np = t->npts;
	int nk = t->nk;
#ifdef FS_LANES_AVX
	if (fs_cpu_has_avx() && !dots4(tp, nk, o, np, k1 - k0 + 1, sot, so, soo))
		return;
#endif
	if (so) {
		switch (k1 - k0 + 1) {
			DOTS_ALL_CASES(dots_fixed, 2, 1)
		default: break; /* (read_at asks for 1 to nk fills) */
		}
	} else {
		switch (k1 - k0 + 1) {
			DOTS_ALL_CASES(dots_fixed, 2, 0)
		default: break;
		}
	}
}

/* What one trial centre's patch gave, kept for the rest of one
 * tubercle's fit: the pattern search comes back to centres it has read
 * (after a step, three or five of the eight neighbours are the last
 * centre's; the 3 x 3 trial centres of centre_between are the last
 * round's centre and neighbours, to the bit: the same expressions of the
 * same doubles), and a patch's sums and dot products are a pure function
 * of the image and the centre. A dot product is the same whichever fills
 * are computed with it (dots: each lane sums its fill in point order), so
 * a read that needs fills the first one did not compute adds only those.
 * A centre seen again with fewer than all its fills samples its patch
 * again (the same values). */
typedef struct seen {
	double x, y;
	int outside;        /* sample_obs returned 1 */
	double so, soo;     /* the patch's sum and sum of squares */
	double dot[FS_DOME_TPL_NFILL];
	unsigned have;      /* bit k: dot[k] computed */
} seen;

/* every centre one fit can read: the start, CENTRE_ROUNDS rounds x 3
 * steps x 8 neighbours, the 3 x 3 between them and the end (35 with one
 * round, 59 with two); a fit that reads more simply does not keep them */
#define SEEN_MAX 64

typedef struct seen_set {
	int n;
	int reads; /* patches sampled, kept or not (fs_dome_tfit.patches) */
	seen e[SEEN_MAX];
} seen_set;

/* The mask of fills a..b (b < FS_DOME_TPL_NFILL < 31), as seen.have
 * keeps them. */
static inline unsigned fill_bits(int a, int b)
{
	return ((2u << b) - 1) & ~((1u << a) - 1);
}

/* The patch at (x, y) with its dot products for fills qa..qb, from memory
 * or read (o: npts doubles of scratch); NULL when it leaves the image. */
static const seen *read_at(const fs_dome_tpl *t, const fs_image *img, int ox, int oy, double x, double y, int qa,
			   int qb, seen_set *m, double *o, seen *spare)
{
	seen *s = NULL;
	for (int i = 0; i < m->n && !s; i++)
		if (m->e[i].x == x && m->e[i].y == y)
			s = &m->e[i];
	unsigned need = fill_bits(qa, qb);
	if (s && (s->outside || (s->have & need) == need))
		return s->outside ? NULL : s;
	int fresh = !s;
	if (fresh) {
		s = m->n < SEEN_MAX ? &m->e[m->n++] : spare;
		s->x = x;
		s->y = y;
		s->have = 0;
		s->outside = sample_obs(t, img, ox, oy, x, y, o);
		m->reads += !s->outside;
		if (s->outside)
			return NULL;
	} else {
		sample_obs(t, img, ox, oy, x, y, o);
		m->reads++;
	}
	/* the fills not yet computed, from the first missing to the last
	 * (a fresh patch: all of qa..qb, never empty, and its sums) */
	int ka = qa, kb = qb;
	while (ka <= kb && (s->have >> ka & 1))
		ka++;
	while (kb >= ka && (s->have >> kb & 1))
		kb--;
	if (ka <= kb) {
		/* straight into the kept products (a copy through a local and
		 * a bit set per fill were 5 M instructions on the lattice) */
		dots(t, tp_at(t, phase_of(t, x, y)), o, ka, kb, s->dot + ka, fresh ? &s->so : NULL,
		     fresh ? &s->soo : NULL);
		s->have |= fill_bits(ka, kb);
	}
	return s;
}

/* 1 - R^2 of the patch s against every fill's template (after the best
 * gain and offset); gain[k] the gains. A fill whose template the patch
 * does not follow (gain <= 0) scores 1. */
static void score_all(const fs_dome_tpl *t, const seen *s, double *sc, double *gain, double *offs)
{
	size_t np = t->npts;
	double so = s->so, soo = s->soo;
	double vo = soo - so * so / np;
	int ph = phase_of(t, s->x, s->y);
	const double *st = st_at(t, ph), *vts = vt_at(t, ph);
	for (int k = 0; k < t->nk; k++) {
		double sot = s->dot[k];
		double cov = sot - so * st[k] / np, vt = vts[k];
		gain[k] = cov / vt;
		offs[k] = (so - gain[k] * st[k]) / np;
		sc[k] = vo > 1e-20 && cov > 0 ? 1 - cov * cov / (vt * vo) : 1;
	}
}

/* The fills score_near reads about k0: k0 - 2 .. k0 + 2 within the grid */
static void near_range(const fs_dome_tpl *t, int k0, int *qa, int *qb)
{
	*qa = k0 - 2 < 0 ? 0 : k0 - 2;
	*qb = k0 + 2 >= t->nk ? t->nk - 1 : k0 + 2;
}

/* The best 1 - R^2 of the patch s over the templates k0 - 2 .. k0 + 2
 * (*k the best of them). */
static double score_near(const fs_dome_tpl *t, const seen *s, int k0, int *k)
{
	size_t np = t->npts;
	double so = s->so, soo = s->soo;
	double vo = soo - so * so / np, best = 1;
	*k = k0;
	int qa, qb;
	near_range(t, k0, &qa, &qb);
	int ph = phase_of(t, s->x, s->y);
	const double *st = st_at(t, ph), *vts = vt_at(t, ph);
	for (int q = qa; q <= qb; q++) {
		double sot = s->dot[q];
		double cov = sot - so * st[q] / np, vt = vts[q];
		double sc = vo > 1e-20 && cov > 0 ? 1 - cov * cov / (vt * vo) : 1;
		if (sc < best) {
			best = sc;
			*k = q;
		}
	}
	return best;
}

/* score_near of the patch at (x, y) (read_at); 0 with the score in *sc,
 * 1 when the patch leaves the image. */
static inline __attribute__((always_inline)) int score_near_at(const fs_dome_tpl *t, const fs_image *img, int ox,
								  int oy, double x, double y, int k0, seen_set *m,
								  double *o, double *sc, int *k)
{
	int qa, qb;
	near_range(t, k0, &qa, &qb);
	seen spare;
	const seen *s = read_at(t, img, ox, oy, x, y, qa, qb, m, o, &spare);
	if (!s)
		return 1;
	*sc = score_near(t, s, k0, k);
	return 0;
}

/* The centre (*cx, *cy), where the pattern search ended with steps of h,
 * moved to the vertex of the residual's quadratic through the 3 x 3
 * trial centres h apart about it (each read at the best of the fills
 * near kb, as the search reads them); unmoved when a trial patch leaves
 * the image or the residual is no bowl there. o: npts doubles of
 * scratch. */
static inline __attribute__((always_inline)) void centre_between(const fs_dome_tpl *t, const fs_image *img,
								   int ox, int oy, int kb, double h, double *cx,
								   double *cy, seen_set *m, double *o)
{
	double s9[9], u, v;
	for (int j = -1; j <= 1; j++)
		for (int i = -1; i <= 1; i++) {
			int kq;
			if (score_near_at(t, img, ox, oy, *cx + i * h, *cy + j * h, kb, m, o, &s9[3 * (j + 1) + (i + 1)],
					  &kq))
				return;
		}
	if (!fs_dome_centre_vertex(s9, &u, &v))
		return;
	*cx += u * h;
	*cy += v * h;
}

/* Whether the centre search reads the four neighbours along the axes
 * and the vertex six of the nine (h47e, an option, off: see
 * fs_dome_tpl_set_cross_search), or
 * all eight and the nine's least
 * squares: the eight under a halftone screen, where the residual's
 * bowl is rough at the screen's period and six points follow it (printed
 * interior, test seeds: D SD targets 11 -> 9 of 12), and where the
 * points lie on the pixel grid (nph > 1), where the read's phase template
 * changes every quarter pixel (corner scene 21 at seed 12000: S -13 %). */
static int cross_on; /* fs_dome_tpl_set_cross_search */

/* fit_crop's centre searches: none (the fit at the start,
 * fs_dome_tpl_fit_still_crop), the rule's (the eight, or the cross where
 * cross_on), the cross wherever cross_search allows it
 * (fs_dome_tpl_fit_cross_crop) */
enum { FIT_SEARCH_NONE, FIT_SEARCH_RULE, FIT_SEARCH_CROSS };

void fs_dome_tpl_set_cross_search(int on)
{
	cross_on = on != 0;
}

int fs_dome_tpl_cross_search(void)
{
	return cross_on;
}

static int cross_search(const fs_dome_tpl *t, int search)
{
	return (cross_on || search == FIT_SEARCH_CROSS) && !t->screened && t->nph == 1;
}

/* centre_between from six of the nine trial centres (cross_search): the
 * middle and its four neighbours along the axes, which the search has
 * read, and the one corner on the downhill side of both axes' parabolas,
 * which alone carries the cross term (fs_dome_centre_vertex6); where the
 * six make no bowl, the nine (the other three corners read). Why (h47e):
 * the four diagonal neighbours were three of a tubercle's ten patches,
 * and the fit's cost is a patch. Without the corner (the two parabolas
 * alone) the corner scenes lose S (48 -> 46 of 64 on the test seeds). */
static void centre_between6(const fs_dome_tpl *t, const fs_image *img, int ox, int oy, int kb, double h,
			    double *cx, double *cy, seen_set *m, double *o)
{
	double s9[9], u, v;
	static const int cross[5] = {4, 3, 5, 1, 7};
	int kq;
	for (int n = 0; n < 5; n++) {
		int i = cross[n] % 3 - 1, j = cross[n] / 3 - 1;
		if (score_near_at(t, img, ox, oy, *cx + i * h, *cy + j * h, kb, m, o, &s9[cross[n]], &kq))
			return;
	}
	int p = s9[5] > s9[3] ? -1 : 1, q = s9[7] > s9[1] ? -1 : 1;
	if (score_near_at(t, img, ox, oy, *cx + p * h, *cy + q * h, kb, m, o, &s9[3 * (q + 1) + (p + 1)], &kq))
		return;
	if (!fs_dome_centre_vertex6(s9, p, q, &u, &v)) {
		centre_between(t, img, ox, oy, kb, h, cx, cy, m, o);
		return;
	}
	*cx += u * h;
	*cy += v * h;
}

/* fs_dome_signal_at's signal of a whole patch from the fit's sums (its
 * formula, with every point of the patch inside the image). */
static double signal_of(const fs_dome_tpl *t, const seen *s)
{
	double n = (double)t->npts, so = s->so, vo = s->soo - so * so / n, sig = 0, best = 0;
	int ph = phase_of(t, s->x, s->y);
	const double *st = st_at(t, ph), *vts = vt_at(t, ph);
	for (int k = 0; k < t->nk; k++) {
		/* (n is npts as a double: the same quotient as template_sums') */
		double cov = s->dot[k] - so * st[k] / n, vt = vts[k];
		if (!(cov > 0 && vt > 0 && vo > 0))
			continue;
		double r2 = cov * cov / (vt * vo);
		if (r2 > best) {
			best = r2;
			sig = cov / sqrt(vt * n);
		}
	}
	return sig;
}

/* fs_dome_tpl_fit_crop's pattern search with the four neighbours along
 * the axes (cross_search): up to CROSS_MOVES moves a round, each within
 * CROSS_REACH steps of the round's start along each axis; *h is left
 * half the last round's step, as the eight's loop leaves it. Its own
 * function so that the eight's loop, the rule as shipped, is the code it
 * was (the bookkeeping inside it cost the lattice 3.2 M instructions). */
static void search_cross(const fs_dome_tpl *t, const fs_image *img, int ox, int oy, double *cx, double *cy,
			 double *best, int *kb, double *h, seen_set *m, double *o)
{
	static const int di[4] = {0, -1, 1, 0}, dj[4] = {-1, 0, 0, 1};
	for (int round = 0; round < CENTRE_ROUNDS; round++, *h *= 0.5) {
		int ix = 0, iy = 0;
		for (int mv = 0; mv < CROSS_MOVES; mv++) {
			double bx = *cx, by = *cy;
			int bi = 0, bj = 0;
			for (int n = 0; n < 4; n++) {
				int i = di[n], j = dj[n];
				if (abs(ix + i) > CROSS_REACH || abs(iy + j) > CROSS_REACH)
					continue;
				int kq;
				double s;
				if (score_near_at(t, img, ox, oy, *cx + i * *h, *cy + j * *h, *kb, m, o, &s, &kq))
					continue;
				if (s < *best) {
					*best = s;
					*kb = kq;
					bx = *cx + i * *h;
					by = *cy + j * *h;
					bi = i;
					bj = j;
				}
			}
			if (bx == *cx && by == *cy)
				break;
			ix += bi;
			iy += bj;
			*cx = bx;
			*cy = by;
		}
	}
}

int fs_dome_tpl_fit(const fs_dome_tpl *t, const fs_image *img, double x, double y, fs_dome_tfit *out)
{
	return fs_dome_tpl_fit_crop(t, img, 0, 0, x, y, out);
}

/* The most points a fit's patch scratch holds on the stack (16 KB; a
 * disc of radius 25 on the pixel grid; more are allocated) */
#define TFIT_SCRATCH 2048

/* fs_dome_tpl_fit_crop's work; search one of FIT_SEARCH_* (above
 * cross_search). */
static int fit_crop(const fs_dome_tpl *t, const fs_image *img, int ox, int oy, double x, double y, int search,
		    fs_dome_tfit *out)
{
	/* the search in the whole image's pixels (x + ox: exact, the start
	 * having been made from them less ox), as there: only a sample's
	 * pixel has the crop's origin taken off (sample_obs) */
	x += ox;
	y += oy;
	/* the patch's scratch on the stack where it fits (a malloc and free
	 * a fit were 2.5 M instructions of the 2048 x 1536 lattice, h51b) */
	double own[TFIT_SCRATCH];
	double *o = t->npts <= TFIT_SCRATCH ? own : malloc(t->npts * sizeof *o);
	double sc[FS_DOME_TPL_NFILL], gain[FS_DOME_TPL_NFILL], offs[FS_DOME_TPL_NFILL];
	if (!o)
		return -1;
	seen_set mem; /* 10 KB */
	seen_set *m = &mem;
	m->n = 0;
	m->reads = 0;
	seen spare;
	const seen *s0 = read_at(t, img, ox, oy, x, y, 0, t->nk - 1, m, o, &spare);
	if (!s0) {
		if (o != own)
			free(o);
		return 1;
	}
	double sig0 = signal_of(t, s0);
	score_all(t, s0, sc, gain, offs);
	int kb = 0;
	for (int k = 1; k < t->nk; k++)
		if (sc[k] < sc[kb])
			kb = k;
	/* the centre: the eight neighbours (the four along the axes where no
	 * screen was removed, centre_between6), each at the best of the fills
	 * near the best so far (a patch read off its centre fits a smaller
	 * dome best, and that dome's best centre is off too), the step
	 * halved each round (the start is the base rule's centre, off by a
	 * pixel or two where the detector's side is brighter) */
	double cx = x, cy = y, best = sc[kb], h = t->shift;
	int cross = cross_search(t, search);
	if (search == FIT_SEARCH_NONE) {
		/* (the start's patch is the end's: read_at finds it kept) */
	} else if (cross)
		search_cross(t, img, ox, oy, &cx, &cy, &best, &kb, &h, m, o);
	else
		for (int round = 0; round < CENTRE_ROUNDS; round++, h *= 0.5) {
			/* up to three steps of this size while they improve */
			for (int mv = 0; mv < 3; mv++) {
				double bx = cx, by = cy;
				for (int j = -1; j <= 1; j++)
					for (int i = -1; i <= 1; i++) {
						if (!i && !j)
							continue;
						int kq;
						double s;
						if (score_near_at(t, img, ox, oy, cx + i * h, cy + j * h, kb, m, o, &s,
								  &kq))
							continue;
						if (s < best) {
							best = s;
							kb = kq;
							bx = cx + i * h;
							by = cy + j * h;
						}
					}
				if (bx == cx && by == cy)
					break;
				cx = bx;
				cy = by;
			}
		}
	/* between the grid's points (dome_centre_fit.h): h is now half the
	 * last round's step */
	if (search == FIT_SEARCH_NONE) {
		/* (no grid to move between) */
	} else if (cross)
		centre_between6(t, img, ox, oy, kb, 2 * h, &cx, &cy, m, o);
	else
		centre_between(t, img, ox, oy, kb, 2 * h, &cx, &cy, m, o);
	/* inside: the start or a centre the search read, or within the
	 * square of the 3 x 3 it read about one */
	const seen *se = read_at(t, img, ox, oy, cx, cy, 0, t->nk - 1, m, o, &spare);
	if (!se)
		se = s0; /* (not reached, see above) */
	score_all(t, se, sc, gain, offs);
	kb = 0;
	for (int k = 1; k < t->nk; k++)
		if (sc[k] < sc[kb])
			kb = k;
	out->x = cx - ox;
	out->y = cy - oy;
	out->gain = gain[kb];
	out->offset = offs[kb];
	out->quality = fmin(1, fmax(0, 1 - sc[kb]));
	out->radius = NAN;
	out->signal_start = sig0;
	out->signal_end = signal_of(t, se);
	out->patches = m->reads;
	if (o != own)
		free(o);
	if (kb == 0 || kb == t->nk - 1 || !(gain[kb] > 0))
		return 0;
	double a = sc[kb - 1], b = sc[kb], c = sc[kb + 1], d = a - 2 * b + c;
	double off = d > 0 ? 0.5 * (a - c) / d : 0;
	off = off < -0.5 ? -0.5 : off > 0.5 ? 0.5 : off;
	double fl = t->fill[kb] + off * (t->fill[kb + 1] - t->fill[kb - 1]) / 2;
	out->radius = 0.5 * fl * t->pitch;
	return 0;
}

int fs_dome_tpl_fit_crop(const fs_dome_tpl *t, const fs_image *img, int ox, int oy, double x, double y,
			 fs_dome_tfit *out)
{
	return fit_crop(t, img, ox, oy, x, y, FIT_SEARCH_RULE, out);
}

int fs_dome_tpl_fit_still_crop(const fs_dome_tpl *t, const fs_image *img, int ox, int oy, double x, double y,
			       fs_dome_tfit *out)
{
	return fit_crop(t, img, ox, oy, x, y, FIT_SEARCH_NONE, out);
}

int fs_dome_tpl_fit_cross_crop(const fs_dome_tpl *t, const fs_image *img, int ox, int oy, double x, double y,
			       fs_dome_tfit *out)
{
	return fit_crop(t, img, ox, oy, x, y, FIT_SEARCH_CROSS, out);
}

static double product_depth; /* fs_dome_tpl_set_product_shadow (0: off) */

double fs_dome_tpl_set_product_shadow(double depth)
{
	double was = product_depth;
	product_depth = depth;
	return was;
}

double fs_dome_tpl_product_shadow(void)
{
	return product_depth;
}

int fs_dome_tpl_render(const fs_dome_tpl *t, const fs_dome_fit *f, double fill, int size, double cx, double cy,
		       fs_image **out)
{
	return fs_dome_tpl_render_grid(t, f, fill, 0, size, cx, cy, out);
}

int fs_dome_tpl_render_grid(const fs_dome_tpl *t, const fs_dome_fit *f, double fill, int grid, int size, double cx,
			    double cy, fs_image **out)
{
	*out = NULL;
	if (!t->nmix || !(fill > FILL_MIN) || !(fill < FILL_MAX) || size < 2 || !(f->pitch >= 6) ||
	    !(f->blur_px >= 0))
		return 1;
	/* the grid as make_templates renders it (RENDER_G a pitch) unless
	 * the caller asks for a finer one, wide enough for every pixel:
	 * grid_at extends the last cell's plane */
	int gr = grid > 0 ? grid : RENDER_G;
	double g2p = gr / f->pitch, sg = f->blur_px * g2p;
	double far = fmax(fmax(cx, size - 1 - cx), fmax(cy, size - 1 - cy));
	int half = (int)ceil(far * g2p) + 2, sh = half + (int)ceil(3 * sg) + 1;
	int reach = t->shadowed ? (int)ceil(0.5 * FILL_MAX * gr * f->h_over_r / tan(f->elevation)) + 1 : 0;
	size_t cw = (size_t)(2 * half + 1), sw = (size_t)(2 * sh + 1);
	float *tmp = malloc(sw * cw * sizeof *tmp), *bl = malloc(cw * cw * sizeof *bl);
	fs_image *img = fs_image_new(size, size);
	fs_se_field fld;
	memset(&fld, 0, sizeof fld);
	int rc = -1;
	if (!tmp || !bl || !img)
		goto out;
	fs_se_geom g = {fill, f->h_over_r, f->profile, f->angle, f->foot};
	/* the edge part is a convexity per grid unit, clipped at 1 per grid
	 * unit (fs_se_render's): on a grid gr / RENDER_G finer it reads that
	 * much less, so it is clipped at the templates' curvature and its
	 * weight scaled back, and the templates' dome is drawn, only finer
	 * (at RENDER_G the same bits: fs_se_render_cap at 1 is fs_se_render) */
	double eg = (double)gr / RENDER_G;
	if (fs_se_render_cap(&g, gr, sh, reach, 1 / eg, &fld))
		goto out;
	double pd = t->shadowed ? fs_dome_tpl_product_shadow() : 0;
	if (t->shadowed)
		fs_se_shadow(&fld, f->azimuth, f->elevation);
	/* mixed before the blur, which is linear (sample_components) */
	float *mix = fld.c[0];
	for (size_t i = 0; i < sw * sw && !(pd > 0); i++) {
		double v = 0;
		for (int j = 0; j < t->nmix; j++)
			v += (j == FS_SE_EDGE ? eg : 1) * t->mixw[j] * fld.c[j][i];
		mix[i] = (float)(v + t->mixw[t->nmix]);
	}
	/* the bench's product shadow (fs_dome_tpl_set_product_shadow): the
	 * lit parts times 1 - depth where the path is blocked (the shadow
	 * part is the yield there: blocked where it is not 0), the edge and
	 * the constant not */
	for (size_t i = 0; i < sw * sw && pd > 0; i++) {
		double lit = t->mixw[FS_SE_YIELD] * fld.c[FS_SE_YIELD][i] + t->mixw[FS_SE_SLOPE_X] * fld.c[FS_SE_SLOPE_X][i] +
			     t->mixw[FS_SE_SLOPE_Y] * fld.c[FS_SE_SLOPE_Y][i];
		double yv = fld.c[FS_SE_YIELD][i], b = yv > 0 ? fld.c[FS_SE_SHADOW][i] / yv : 0;
		mix[i] = (float)(lit * (1 - pd * b) + t->mixw[FS_SE_EDGE] * fld.c[FS_SE_EDGE][i] + t->mixw[t->nmix]);
	}
	blur_crop(mix, sh, half, sg, tmp, bl);
	for (int y = 0; y < size; y++)
		for (int x = 0; x < size; x++)
			img->data[(size_t)y * size + x] = (float)grid_at(bl, half, (x - cx) * g2p, (y - cy) * g2p);
	*out = img;
	img = NULL;
	rc = 0;
out:
	fs_se_field_free(&fld);
	fs_image_free(img);
	free(tmp);
	free(bl);
	return rc;
}
