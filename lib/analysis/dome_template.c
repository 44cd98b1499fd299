/*
 * dome_template.c - the image's mean dome and its normalised correlation
 * with the image (see dome_template.h).
 */
#include "analysis/dome_template.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/lanes.h"
#include "base/cpu_features.h"

/* Bilinear sample at (x, y) of a W x H image, which the caller keeps
 * inside [0, W - 1] x [0, H - 1], read from a window at (sx, sy) of row
 * stride `stride` that holds the four pixels. */
static double sample(const float *win, size_t stride, int sx, int sy, int W, int H, double x, double y)
{
	int x0 = (int)x, y0 = (int)y;
	int x1 = x0 + 1 < W ? x0 + 1 : x0, y1 = y0 + 1 < H ? y0 + 1 : y0;
	double fx = x - x0, fy = y - y0;
	const float *r0 = win + (size_t)(y0 - sy) * stride - sx, *r1 = win + (size_t)(y1 - sy) * stride - sx;
	double a = r0[x0] * (1 - fx) + r0[x1] * fx;
	double b = r1[x0] * (1 - fx) + r1[x1] * fx;
	return a * (1 - fy) + b * fy;
}

/* Two doubles, one per output pixel: the correlation of four neighbouring
 * pixels runs as two of these, each lane doing exactly the scalar loop's
 * additions and products in the scalar loop's order (and no fused
 * multiply-add in either: -std=c11 sets -ffp-contract=off), so the same
 * bits as one pixel at a time. */

/* The correlations of n whole discs from their sums s1, s2 and products
 * with the template st into out[0..n) (left as they are where the patch
 * is flat); ncc4's and ncc8's common end, the same operations in the same
 * order for each, so both give the scalar loop's bits. */
static inline void ncc_finish(const double *s1, const double *s2, const double *st, int n, double tt, double np,
			      float *out)
{
	for (int i = 0; i < n; i++) {
		/* the template sums to 0 over the disc: the covariance is st */
		double vi = s2[i] - s1[i] * s1[i] / np;
		if (vi > 1e-12 * np && tt > 0)
			out[i] = (float)(st[i] / sqrt(vi * tt));
	}
}

/* The correlation of the four pixels x .. x + 3 of row y, whose discs lie
 * whole inside the image, into out[0..3] (0 where the patch is flat): the
 * sums of the samples, their squares and their products with the
 * template over the disc, as in the scalar loop below. tt is the
 * template's sum of squares, np its pixel count. */
static void ncc4(const float *d, int w, int x, int y, int R, const int *half, const double *tpl, int side,
		 double tt, double np, float *out)
{
	v2d s1a = {0, 0}, s1b = {0, 0}, s2a = {0, 0}, s2b = {0, 0}, sta = {0, 0}, stb = {0, 0};
	for (int dy = -R; dy <= R; dy++) {
		int hw = half[dy + R];
		const float *r = d + (size_t)(y + dy) * w + x - hw;
		const double *tp = tpl + (dy + R) * side + R - hw, *te = tp + 2 * hw;
		for (; tp <= te; tp++, r++) {
			v2d va = fs_widen2(r), vb = fs_widen2(r + 2);
			v2d t = {*tp, *tp};
			s1a += va;
			s1b += vb;
			s2a += va * va;
			s2b += vb * vb;
			sta += t * va;
			stb += t * vb;
		}
	}
	double s1[4] = {s1a[0], s1a[1], s1b[0], s1b[1]}, s2[4] = {s2a[0], s2a[1], s2b[0], s2b[1]};
	double st[4] = {sta[0], sta[1], stb[0], stb[1]};
	ncc_finish(s1, s2, st, 4, tt, np, out);
}

#if defined(__x86_64__) && defined(__GNUC__)
/*
 * With AVX (where the CPU has it, fs_cpu_has_avx: the build targets plain
 * x86-64) eight pixels at a time, four to a register: per pixel the same
 * operations in the same order as ncc4 (no fused multiply-add: the
 * target is "avx" alone and ISO C keeps contraction off), so the same
 * bits with half the vector instructions. The correlation over every
 * pixel of the reduced image was 314 M instructions of the dome rule's
 * 721 M candidate stage on the 2048 x 1536 lattice (h38e).
 */
#define NCC_AVX 1
#include <immintrin.h>
typedef double v4d __attribute__((vector_size(32)));

/* p[0..3] widened to doubles (exact): one vcvtps2pd from memory. GCC
 * made the generic conversion of a loaded v4f two halves, two
 * conversions and an insert, a quarter of the correlation's
 * instructions (h43f) */
__attribute__((target("avx"))) static inline v4d widen4(const float *p)
{
	return (v4d)_mm256_cvtps_pd(_mm_loadu_ps(p));
}

/* p[0], p[2], p[4], p[6] widened to doubles (exact): two loads, one
 * shuffle, one conversion. */
__attribute__((target("avx"))) static inline v4d widen_even4(const float *p)
{
	__m128 lo = _mm_loadu_ps(p), hi = _mm_loadu_ps(p + 4);
	return (v4d)_mm256_cvtps_pd(_mm_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0)));
}

/* The sums of eight pixels of row y, x + k * step for k = 0..7 (step 1:
 * ncc8 and ncc8_cut; step 2: ncc8_even) over the disc's rows dy0..dy1
 * into s1, s2, st: one body for all three, inlined with step a constant
 * so each keeps its own machine code. */
__attribute__((target("avx"), always_inline)) static inline void ncc8_sums(const float *d, int w, int x, int y, int R,
									     int dy0, int dy1, const int *half,
									     const double *tpl, int side, int step,
									     double *s1, double *s2, double *st)
{
	v4d s1a = {0, 0, 0, 0}, s1b = s1a, s2a = s1a, s2b = s1a, sta = s1a, stb = s1a;
	for (int dy = dy0; dy <= dy1; dy++) {
		int hw = half[dy + R];
		const float *r = d + (size_t)(y + dy) * w + x - hw;
		const double *tp = tpl + (dy + R) * side + R - hw, *te = tp + 2 * hw;
		for (; tp <= te; tp++, r++) {
			v4d va = step == 1 ? widen4(r) : widen_even4(r);
			v4d vb = step == 1 ? widen4(r + 4) : widen_even4(r + 8);
			v4d t = {*tp, *tp, *tp, *tp};
			s1a += va;
			s1b += vb;
			s2a += va * va;
			s2b += vb * vb;
			sta += t * va;
			stb += t * vb;
		}
	}
	memcpy(s1, &s1a, sizeof s1a);
	memcpy(s1 + 4, &s1b, sizeof s1b);
	memcpy(s2, &s2a, sizeof s2a);
	memcpy(s2 + 4, &s2b, sizeof s2b);
	memcpy(st, &sta, sizeof sta);
	memcpy(st + 4, &stb, sizeof stb);
}

/* The whole discs' sums of eight pixels (ncc8, ncc8_even) finished by
 * ncc_finish into out[0..7]. */
__attribute__((target("avx"), always_inline)) static inline void ncc8_step(const float *d, int w, int x, int y, int R,
									     const int *half, const double *tpl,
									     int side, double tt, double np,
									     float *out, int step)
{
	double s1[8], s2[8], st[8];
	ncc8_sums(d, w, x, y, R, -R, R, half, tpl, side, step, s1, s2, st);
	ncc_finish(s1, s2, st, 8, tt, np, out);
}

/* ncc4's correlation of the eight pixels x .. x + 7 of row y, whose discs
 * lie whole inside the image, into out[0..7]. */
__attribute__((target("avx"))) static void ncc8(const float *d, int w, int x, int y, int R, const int *half,
						const double *tpl, int side, double tt, double np, float *out)
{
	ncc8_step(d, w, x, y, R, half, tpl, side, tt, np, out, 1);
}

/* ncc4's correlation of the four pixels x .. x + 3 of row y in one
 * four-lane register: per pixel ncc4's operations in its order, so the
 * same bits with about half its instructions (the coarse look's
 * neighbourhoods, dome_ncc_coarse.h, and the rows' ends). */
__attribute__((target("avx"))) static void ncc4_avx(const float *d, int w, int x, int y, int R, const int *half,
						    const double *tpl, int side, double tt, double np, float *out)
{
	v4d s1 = {0, 0, 0, 0}, s2 = s1, st = s1;
	for (int dy = -R; dy <= R; dy++) {
		int hw = half[dy + R];
		const float *r = d + (size_t)(y + dy) * w + x - hw;
		const double *tp = tpl + (dy + R) * side + R - hw, *te = tp + 2 * hw;
		for (; tp <= te; tp++, r++) {
			v4d v = widen4(r);
			v4d t = {*tp, *tp, *tp, *tp};
			s1 += v;
			s2 += v * v;
			st += t * v;
		}
	}
	double a1[4], a2[4], at[4];
	memcpy(a1, &s1, sizeof s1);
	memcpy(a2, &s2, sizeof s2);
	memcpy(at, &st, sizeof st);
	ncc_finish(a1, a2, at, 4, tt, np, out);
}

/* ncc8's correlation of the eight pixels x, x + 2, .., x + 14 of row y
 * (every other pixel: the coarse look of dome_ncc_coarse.h), whose discs
 * lie whole inside the image and whose row holds pixel x + 15 + R, into
 * out[0..7] (left as they are where the patch is flat): per pixel the
 * scalar loop's operations in its order, as ncc8's. */
__attribute__((target("avx"))) static void ncc8_even(const float *d, int w, int x, int y, int R, const int *half,
						     const double *tpl, int side, double tt, double np, float *out)
{
	ncc8_step(d, w, x, y, R, half, tpl, side, tt, np, out, 2);
}

/* The correlations of n discs the image cuts, from their sums s1, s2, st
 * over the pixels inside, the template's sums st1, stt over the same
 * taps and their count k, into out[0..n) (left as they are where less
 * than half the disc is inside or the patch is flat): the one-pixel loop
 * of fs_dome_mean_ncc's end for such a disc, its operations in its
 * order. */
static inline void cut_finish(const double *s1, const double *s2, const double *st, int n, double st1, double stt,
			      double k, double np, float *out)
{
	if (k < 0.5 * np)
		return;
	double vt = stt - st1 * st1 / k;
	for (int i = 0; i < n; i++) {
		double cov = st[i] - st1 * s1[i] / k;
		double vi = s2[i] - s1[i] * s1[i] / k;
		if (vi > 1e-12 * k && vt > 0)
			out[i] = (float)(cov / sqrt(vi * vt));
	}
}

/*
 * The eight pixels x .. x + 7 of a row within R of the image's top or
 * bottom whose discs lie whole between its left and right edges: only the
 * disc's rows dy0..dy1 are inside, the same for the eight, so their sums
 * run in lanes as ncc8's; the template's own sums over those rows (st1,
 * stt: the same for every pixel of the row) and the pixel count k are
 * the caller's. The one-pixel loop's bits (cut_finish): the cut discs'
 * single pixels were a fifth of the correlation's instructions on the
 * 2048 x 1536 lattice (h49d).
 */
__attribute__((target("avx"))) static void ncc8_cut(const float *d, int w, int x, int y, int R, int dy0, int dy1,
						    const int *half, const double *tpl, int side, double st1,
						    double stt, double k, double np, float *out)
{
	double s1[8], s2[8], st[8];
	ncc8_sums(d, w, x, y, R, dy0, dy1, half, tpl, side, 1, s1, s2, st);
	cut_finish(s1, s2, st, 8, st1, stt, k, np, out);
}

/*
 * The four pixels of column x, rows y .. y + 3, whose discs the image's
 * left or right edge cuts (columns lo .. hi of the disc inside, lo = -x
 * and hi = W - 1 - x in the image's columns) and whose rows are all
 * inside: each disc loses the same columns, so the four run in lanes,
 * one row apart, with the one-pixel loop's sums per lane (each lane's
 * taps gathered from its own row), the template's sums once, and
 * cut_finish; out[0..3] (the four rows' pixels, row stride ostride).
 */
__attribute__((target("avx"))) static void ncc4_col(const float *d, int w, int x, int y, int R, int lo, int hi,
						    const int *half, const double *tpl, int side, double np,
						    float *out, size_t ostride)
{
	v4d s1 = {0, 0, 0, 0}, s2 = s1, st = s1;
	double st1 = 0, stt = 0, k = 0;
	for (int dy = -R; dy <= R; dy++) {
		int a = -half[dy + R], b = half[dy + R];
		a = a < lo ? lo : a;
		b = b > hi ? hi : b;
		const float *r0 = d + (size_t)(y + dy) * w + x;
		const float *r1 = r0 + w, *r2 = r1 + w, *r3 = r2 + w;
		const double *trow = tpl + (dy + R) * side + R;
		for (int dx = a; dx <= b; dx++) {
			v4d v = (v4d)_mm256_cvtps_pd(_mm_set_ps(r3[dx], r2[dx], r1[dx], r0[dx]));
			double t = trow[dx];
			v4d tv = {t, t, t, t};
			s1 += v;
			s2 += v * v;
			st += tv * v;
			st1 += t;
			stt += t * t;
		}
		k += b - a + 1;
	}
	double a1[4], a2[4], at[4];
	memcpy(a1, &s1, sizeof s1);
	memcpy(a2, &s2, sizeof s2);
	memcpy(at, &st, sizeof st);
	float o[4] = {0, 0, 0, 0};
	cut_finish(a1, a2, at, 4, st1, stt, k, np, o);
	for (int i = 0; i < 4; i++)
		out[(size_t)i * ostride] = o[i];
}
#endif

int fs_dome_mean_begin(fs_dome_mean *t, double radius, char *err, size_t errlen)
{
	memset(t, 0, sizeof *t);
	if (!(radius >= 1)) {
		snprintf(err, errlen, "dome template: a radius under 1 px");
		return -1;
	}
	t->radius = radius;
	t->R = (int)floor(radius);
	t->side = 2 * t->R + 1;
	/* the disc as row spans: offsets dx in [-half[dy], half[dy]] */
	t->half = malloc((size_t)t->side * sizeof *t->half);
	t->tpl = calloc((size_t)t->side * t->side, sizeof *t->tpl);
	if (!t->half || !t->tpl) {
		fs_dome_mean_free(t);
		snprintf(err, errlen, "dome template: out of memory");
		return -1;
	}
	for (int dy = -t->R; dy <= t->R; dy++)
		t->half[dy + t->R] = (int)floor(sqrt(fmax(0, radius * radius - (double)dy * dy)));
	return 0;
}

void fs_dome_mean_add(fs_dome_mean *t, const float *win, size_t stride, int sx, int sy, int W, int H, double x,
		     double y)
{
	int R = t->R, side = t->side;
	/* the mean patch: whole discs only, so every offset averages the same
	 * domes */
	if (!(x - R >= 0 && y - R >= 0 && x + R <= W - 1 && y + R <= H - 1))
		return;
	for (int dy = -R; dy <= R; dy++)
		for (int dx = -t->half[dy + R]; dx <= t->half[dy + R]; dx++)
			t->tpl[(dy + R) * side + dx + R] += sample(win, stride, sx, sy, W, H, x + dx, y + dy);
	t->used++;
}

int fs_dome_mean_end(fs_dome_mean *t)
{
	int R = t->R, side = t->side;
	if (t->used < 3)
		return 0; /* no template to correlate with */
	/* zero mean over the disc: the correlation then ignores the patch's
	 * own mean (brightness), and its norm is the template's contrast */
	double tm = 0, np = 0;
	for (int dy = -R; dy <= R; dy++)
		for (int dx = -t->half[dy + R]; dx <= t->half[dy + R]; dx++) {
			tm += t->tpl[(dy + R) * side + dx + R] / t->used;
			np++;
		}
	tm /= np;
	double tt = 0;
	for (int dy = -R; dy <= R; dy++)
		for (int dx = -t->half[dy + R]; dx <= t->half[dy + R]; dx++) {
			double *v = &t->tpl[(dy + R) * side + dx + R];
			*v = *v / t->used - tm;
			tt += *v * *v;
		}
	t->tt = tt;
	t->np = np;
	return 1;
}

void fs_dome_mean_ncc(const fs_dome_mean *t, const float *win, size_t stride, int sx, int sy, int W, int H, int x0,
		     int y0, int x1, int y1, float *out, size_t ostride)
{
	int R = t->R, side = t->side;
	const int *half = t->half;
	const double *tpl = t->tpl;
	double tt = t->tt, np = t->np;
	for (int y = y0; y < y1; y++)
		for (int x = x0; x < x1; x++)
			out[(size_t)(y - y0) * ostride + (x - x0)] = 0;
	if (!(tt > 0))
		return; /* a flat template correlates with nothing: all 0 */
	/* the window's row of image row yy, indexed by image column */
	const float *d = win;
#ifdef NCC_AVX
	int avx = fs_cpu_has_avx();
#endif
	/* the rows whose pixels near the left and right edges run four
	 * rows at a time (ncc4_col): [ya, yc) */
	int ya = y0 > R ? y0 : R, yc = ya;
#ifdef NCC_AVX
	int yb = y1 < H - R ? y1 : H - R;
	if (avx && yb > ya) {
		yc = ya + (yb - ya) / 4 * 4;
		for (int x = x0; x < x1; x++) {
			if (x - R >= 0 && x + R < W)
				continue;
			for (int y = ya; y < yc; y += 4)
				ncc4_col(d, (int)stride, x - sx, y - sy, R, -x, W - 1 - x, half, tpl, side, np,
					 out + (size_t)(y - y0) * ostride + (x - x0), ostride);
		}
	}
#endif
	for (int y = y0; y < y1; y++) {
		int x = x0;
		float *orow = out + (size_t)(y - y0) * ostride - x0;
		int cols_done = y >= ya && y < yc;
		/* where four neighbouring discs lie whole in the image, four
		 * pixels at a time (ncc4: the same values) */
		int inner_row = y - R >= 0 && y + R < H;
#ifdef NCC_AVX
		/* a row the image's top or bottom cuts: the disc's rows inside
		 * and the template's sums over them, as the one-pixel loop
		 * below sums them for a disc whole between the side edges */
		int dy0 = y - R >= 0 ? -R : -y, dy1 = y + R < H ? R : H - 1 - y;
		double c1 = 0, ctt = 0, ck = 0;
		if (avx && !inner_row) {
			for (int dy = dy0; dy <= dy1; dy++) {
				const double *trow = tpl + (dy + R) * side + R;
				for (int dx = -half[dy + R]; dx <= half[dy + R]; dx++) {
					c1 += trow[dx];
					ctt += trow[dx] * trow[dx];
				}
				ck += 2 * half[dy + R] + 1;
			}
		}
#endif
		for (; x < x1; x++) {
#ifdef NCC_AVX
			if (avx && x - R >= 0 && x + 7 + R < W && x + 7 < x1) {
				if (inner_row)
					ncc8(d, (int)stride, x - sx, y - sy, R, half, tpl, side, tt, np, orow + x);
				else
					ncc8_cut(d, (int)stride, x - sx, y - sy, R, dy0, dy1, half, tpl, side, c1, ctt, ck,
						 np, orow + x);
				x += 7;
				continue;
			}
#endif
			if (inner_row && x - R >= 0 && x + 3 + R < W && x + 3 < x1) {
#ifdef NCC_AVX
				if (avx)
					ncc4_avx(d, (int)stride, x - sx, y - sy, R, half, tpl, side, tt, np, orow + x);
				else
#endif
					ncc4(d, (int)stride, x - sx, y - sy, R, half, tpl, side, tt, np, orow + x);
				x += 3;
				continue;
			}
			if (cols_done && (x - R < 0 || x + R >= W))
				continue;
			int inner = x - R >= 0 && y - R >= 0 && x + R < W && y + R < H;
			double s1 = 0, s2 = 0, st = 0, st1 = 0, stt = 0, k = 0;
			for (int dy = -R; dy <= R; dy++) {
				int yy = y + dy;
				if (yy < 0 || yy >= H)
					continue;
				int a = -half[dy + R], b = half[dy + R];
				if (!inner) {
					if (x + a < 0)
						a = -x;
					if (x + b > W - 1)
						b = W - 1 - x;
				}
				const float *row = d + (size_t)(yy - sy) * stride + (x - sx);
				const double *trow = tpl + (dy + R) * side + R;
				for (int dx = a; dx <= b; dx++) {
					double v = row[dx], t = trow[dx];
					s1 += v;
					s2 += v * v;
					st += t * v;
					if (!inner) {
						st1 += t;
						stt += t * t;
					}
				}
				k += b - a + 1;
			}
			double cov, vt;
			if (inner) {
				cov = st; /* the template sums to 0 over the disc */
				vt = tt;
			} else {
				if (k < 0.5 * np)
					continue;
				cov = st - st1 * s1 / k;
				vt = stt - st1 * st1 / k;
			}
			double vi = s2 - s1 * s1 / k;
			if (vi > 1e-12 * k && vt > 0)
				orow[x] = (float)(cov / sqrt(vi * vt));
		}
	}
}

int fs_dome_mean_ncc_even(const fs_dome_mean *t, const float *img, int W, int H, int y, int x, float *orow)
{
#ifdef NCC_AVX
	int R = t->R;
	if (!(t->tt > 0) || !fs_cpu_has_avx() || y - R < 0 || y + R >= H || x - R < 0)
		return x;
	for (; x + 15 + R < W; x += 16) {
		float o[8] = {0};
		ncc8_even(img, W, x, y, R, t->half, t->tpl, t->side, t->tt, t->np, o);
		for (int i = 0; i < 8; i++)
			orow[x + 2 * i] = o[i];
	}
#else
	(void)t, (void)img, (void)W, (void)H, (void)y, (void)orow;
#endif
	return x;
}

void fs_dome_mean_free(fs_dome_mean *t)
{
	free(t->half);
	free(t->tpl);
	t->half = NULL;
	t->tpl = NULL;
}

int fs_dome_mean_of_points(fs_dome_mean *t, const fs_image *img, const double *xs, const double *ys, size_t n,
			   double radius, char *err, size_t errlen)
{
	if (!img || !img->data || !(radius >= 1) || (n && (!xs || !ys))) {
		snprintf(err, errlen, "dome template: no image, no points or a radius under 1 px");
		return -1;
	}
	int w = img->width, h = img->height;
	if (fs_dome_mean_begin(t, radius, err, errlen))
		return -1;
	for (size_t i = 0; i < n; i++)
		fs_dome_mean_add(t, img->data, (size_t)w, 0, 0, w, h, xs[i], ys[i]);
	return fs_dome_mean_end(t) != 0;
}

int fs_dome_template_ncc(const fs_image *img, const double *xs, const double *ys, size_t n, double radius,
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
		fs_image *out = fs_image_new(w, h);
		if (!out) {
			snprintf(err, errlen, "dome template: out of memory");
			rc = -1;
		} else {
			fs_dome_mean_ncc(&t, img->data, (size_t)w, 0, 0, w, h, 0, 0, w, h, out->data, (size_t)w);
			*res = out;
		}
	}
	fs_dome_mean_free(&t);
	return rc;
}
