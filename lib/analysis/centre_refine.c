/*
 * centre_refine.c - the centre about which a dome's base step is sharpest
 * (see centre_refine.h).
 */
#include "analysis/centre_refine.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/lanes.h"
#include "analysis/lanes_avx.h"
#include "base/cpu_features.h"

#define NRAYS 32
#define NMAX 64

typedef struct rays {
	double cs[NRAYS], sn[NRAYS];
} rays;

/* The rays' directions, cos(2 pi k / NRAYS) and sin(...): the same
 * values every refinement computed for itself (32 sincos calls each),
 * once per process (detection refines from several threads). */
static rays g_rays;
static pthread_once_t g_rays_once = PTHREAD_ONCE_INIT;

static void rays_init(void)
{
	for (int k = 0; k < NRAYS; k++) {
		g_rays.cs[k] = cos(2 * M_PI * k / NRAYS);
		g_rays.sn[k] = sin(2 * M_PI * k / NRAYS);
	}
}

static const rays *ray_dirs(void)
{
	pthread_once(&g_rays_once, rays_init);
	return &g_rays;
}

/* The rays of one stage of the search (the grid, the compass): every
 * (NRAYS / nr)-th ray, the radii j0 - span .. j1 + span samples of dr px,
 * and each sample's offset from the trial centre (cs[k] * j * dr, the
 * product focus() took for every sample of every trial centre). The rays
 * lie one after the other, n samples each (ray q's radius j at
 * ox[q n + j], ray_x), so the samples of all rays are one run of nr n
 * from ox + j0 - span, which the AVX loops read four at a time without a
 * ray's last quad read partly again (h46e). */
typedef struct ray_tab {
	int nr, j0, j1, span, n;
	double dr, reach;
	double ox[(NMAX + 1) * (NRAYS / 2 + 1)], oy[(NMAX + 1) * (NRAYS / 2 + 1)]; /* nr <= NRAYS / 2 */
} ray_tab;

/* ray q's offsets, indexed by the radius j (j0 - span <= j <= j1 + span) */
static inline const double *ray_x(const ray_tab *T, int q)
{
	return T->ox + (size_t)q * T->n;
}

static inline const double *ray_y(const ray_tab *T, int q)
{
	return T->oy + (size_t)q * T->n;
}

/* The table's radii j0, j1 for the window rmin..rmax in samples of dr,
 * span samples kept clear of 0 and NMAX. */
static void ray_tab_radii(double dr, int span, double rmin, double rmax, int *j0, int *j1)
{
	*j0 = (int)floor(rmin / dr);
	*j1 = (int)ceil(rmax / dr);
	if (*j0 < span)
		*j0 = span;
	if (*j1 > NMAX - span)
		*j1 = NMAX - span;
}

static void ray_tab_init(ray_tab *T, const rays *R, int nr, double dr, int span, int j0, int j1)
{
	T->nr = nr;
	T->j0 = j0;
	T->j1 = j1;
	T->span = span;
	T->dr = dr;
	T->reach = (j1 + span) * dr;
	T->n = j1 - j0 + 2 * span + 1 > 0 ? j1 - j0 + 2 * span + 1 : 0;
	/* two radii at a time, each lane (cs[k] * j) * dr as the scalar
	 * expression (j exact as a double) */
	v2d D = {dr, dr};
	for (int k = 0, q = 0; k < NRAYS; k += NRAYS / nr, q++) {
		v2d C = {R->cs[k], R->cs[k]}, S = {R->sn[k], R->sn[k]};
		double *ox = T->ox + (size_t)q * T->n, *oy = T->oy + (size_t)q * T->n;
		int j = j0 - span;
		for (; j + 1 <= j1 + span; j += 2) {
			v2d J = {j, j + 1}, a = C * J * D, b = S * J * D;
			memcpy(ox + j, &a, sizeof a);
			memcpy(oy + j, &b, sizeof b);
		}
		for (; j <= j1 + span; j++) {
			ox[j] = R->cs[k] * j * dr;
			oy[j] = R->sn[k] * j * dr;
		}
	}
}

/*
 * The table of nr rays (every (NRAYS / nr)-th direction of ray_dirs, the
 * one set of directions) at dr, span and radii j0..j1: a pure function
 * of those, so each thread keeps the last few it made. Every dome of an
 * image is refined with the same radii (the grid's table is the same for
 * all of them, the clear-start test's half table with it), and each
 * refinement made its tables afresh (7.7 M instructions of the
 * 2048 x 1536 lattice, 2,864 refinements; h46e left it). The slot
 * least recently used is refilled, so that the compass's tables, whose
 * radii follow each dome's ring, do not push the grid's out. The
 * pointer is good until this thread's next call.
 */
#define RAY_TABS_KEPT 4

typedef struct ray_tab_slot {
	unsigned long used; /* 0: never filled */
	ray_tab T;
} ray_tab_slot;

static const ray_tab *ray_tab_of(const rays *R, int nr, double dr, int span, int j0, int j1)
{
	static _Thread_local ray_tab_slot kept[RAY_TABS_KEPT];
	static _Thread_local unsigned long clock;
	ray_tab_slot *old = &kept[0];
	clock++;
	for (int i = 0; i < RAY_TABS_KEPT; i++) {
		ray_tab_slot *k = &kept[i];
		if (k->used && k->T.nr == nr && k->T.dr == dr && k->T.span == span && k->T.j0 == j0 &&
		    k->T.j1 == j1) {
			k->used = clock;
			return &k->T;
		}
		if (k->used < old->used)
			old = k;
	}
	ray_tab_init(&old->T, R, nr, dr, span, j0, j1);
	old->used = clock;
	return &old->T;
}

/* ray_tab_of for the window rmin..rmax (ray_tab_radii) */
static const ray_tab *ray_tab_for(const rays *R, int nr, double dr, int span, double rmin, double rmax)
{
	int j0, j1;
	ray_tab_radii(dr, span, rmin, rmax, &j0, &j1);
	return ray_tab_of(R, nr, dr, span, j0, j1);
}

/* The radius j0 < j < j1 where the edge strength h, smoothed over three
 * radii (one sample's noise does not make a peak), is largest: its index
 * in *jb (j0 when none is above 0) and the smoothed strength. Both the
 * free and the grid's trial centres judge their circle by it. */
static double ring_peak(const double *h, int j0, int j1, int *jb)
{
	double best = 0;
	*jb = j0;
	for (int j = j0 + 1; j < j1; j++) {
		double v = h[j - 1] + 2 * h[j] + h[j + 1];
		if (v > best) {
			best = v;
			*jb = j;
		}
	}
	return best;
}

/* Two doubles, one per sample: two samples of a ray interpolated together,
 * each lane doing the scalar expression's products and sums in its order
 * (and no fused multiply-add in either: -std=c11 sets -ffp-contract=off),
 * so the same bits as one sample at a time. */
static inline v2d ld2(const double *p)
{
	v2d v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* h[j] += |v[j + span] - v[j - span]| for j in [j0, j1], two radii at a
 * time (fabs clears the sign bit: the mask does the same; each h[j]
 * still adds one term per ray, in the rays' order). */
static inline void add_steps(double *h, const double *v, int j0, int j1, int span)
{
	const v2i mag = {0x7fffffffffffffffLL, 0x7fffffffffffffffLL};
	int j = j0;
	for (; j + 1 <= j1; j += 2) {
		v2d d = ld2(v + j + span) - ld2(v + j - span);
		v2d a = ld2(h + j) + (v2d)((v2i)d & mag);
		memcpy(h + j, &a, sizeof a);
	}
	for (; j <= j1; j++)
		h[j] += fabs(v[j + span] - v[j - span]);
}

/* add_steps of two rays, v0 then v1, in one loop: h[j] + |step of v0|
 * + |step of v1|, added in that order as two calls would (the same bits),
 * with h read and written once for both (focus() reads its rays two at a
 * time, rays_inside). */
static inline void add_steps2(double *h, const double *v0, const double *v1, int j0, int j1, int span)
{
	const v2i mag = {0x7fffffffffffffffLL, 0x7fffffffffffffffLL};
	int j = j0;
	for (; j + 1 <= j1; j += 2) {
		v2d d0 = ld2(v0 + j + span) - ld2(v0 + j - span), d1 = ld2(v1 + j + span) - ld2(v1 + j - span);
		v2d a = (ld2(h + j) + (v2d)((v2i)d0 & mag)) + (v2d)((v2i)d1 & mag);
		memcpy(h + j, &a, sizeof a);
	}
	for (; j <= j1; j++)
		h[j] = (h[j] + fabs(v0[j + span] - v0[j - span])) + fabs(v1[j + span] - v1[j - span]);
}

/* One pair of samples known to lie inside the image (0 <= x < width - 1,
 * 0 <= y < height - 1 in its own pixels), px and py their positions in the
 * pixels of the image it is a crop of, B the crop's origin as an offset
 * (oy w + ox; 0 on a whole image): fs_image_sample_inside's expression in
 * each lane, the fraction taken at the whole image's positions (see
 * fs_centre_refine_crop). The top-left pixel's index y0 w + x0 is made
 * in doubles from the truncations and converted once a lane: exact, as it
 * is below w h, which an image held in memory keeps below 2^46 (4-byte
 * samples, 48-bit addresses), far from 2^53. Why: the integer lanes cost
 * four extractions, four sign extensions and two multiplications a pair,
 * the largest part of a sample's instructions after the interpolation. */
static inline v2d sample_pair_inside(const float *d, v2d W, long w, v2d B, v2d px, v2d py)
{
	v2d tx = fs_trunc2d(px), ty = fs_trunc2d(py);
	v2d fx = px - tx, fy = py - ty, at = (ty * W + tx) - B;
	v2d p00, p01, p10, p11;
	fs_corners2(d + (long long)at[0], d + (long long)at[1], w, &p00, &p01, &p10, &p11);
	return fs_bilerp2d(p00, p01, p10, p11, fx, fy);
}

/* v[j] = fs_image_sample_clamped(img, (x + ox[j]) - cx, (y + oy[j]) - cy)
 * for j in [ja, jb] (x, y in the pixels of the image img is a crop at
 * (cx, cy) of), two samples at a time (one lane each, the same bits). A pair
 * of samples inside the image (0 <= x < width - 1, 0 <= y < height - 1),
 * where clamping changes nothing, is interpolated without it; a pair
 * with a sample outside is clamped sample by sample. Why: a ray that
 * crosses the border has most of its samples inside, and clamping each
 * of them was most of the refinement's cost on the paper figures (a few
 * hundred px across, a third of their domes within reach of the border).
 * inside: the caller knows every sample lies inside (no test a pair, and
 * an odd last sample read without clamping, which costs a third less). */
static void sample_pairs(const fs_image *img, int cx, int cy, double x, double y, const double *ox,
			 const double *oy, int ja, int jb, int inside, double *v)
{
	const float *d = img->data;
	int w = img->width;
	double xe = w - 1, ye = img->height - 1, b = (double)cy * w + cx;
	v2d X = {x, x}, Y = {y, y}, W = {w, w}, B = {b, b}, CX = {cx, cx}, CY = {cy, cy};
	int j = ja;
	if (inside) {
		for (; j + 1 <= jb; j += 2) {
			v2d o = sample_pair_inside(d, W, w, B, X + ld2(ox + j), Y + ld2(oy + j));
			memcpy(v + j, &o, sizeof o);
		}
		if (j <= jb)
			v[j] = fs_image_sample_inside(d, w, (x + ox[j]) - cx, (y + oy[j]) - cy);
		return;
	}
	for (; j + 1 <= jb; j += 2) {
		/* (a whole-image position less an integer: exact) */
		v2d px = (X + ld2(ox + j)) - CX, py = (Y + ld2(oy + j)) - CY;
		if (!(px[0] >= 0 && px[1] >= 0 && py[0] >= 0 && py[1] >= 0 && px[0] < xe && px[1] < xe &&
		      py[0] < ye && py[1] < ye)) {
			v[j] = fs_image_sample_clamped(img, px[0], py[0]);
			v[j + 1] = fs_image_sample_clamped(img, px[1], py[1]);
			continue;
		}
		v2d o = sample_pair_inside(d, W, w, (v2d){0, 0}, px, py);
		memcpy(v + j, &o, sizeof o);
	}
	for (; j <= jb; j++)
		v[j] = fs_image_sample_clamped(img, (x + ox[j]) - cx, (y + oy[j]) - cy);
}

/* focus()'s rays read two at a time where every sample lies inside img
 * (b: the crop's origin as an offset, sample_pair_inside), their steps
 * added to h; returns the rays done. Inlined into focus() twice, once
 * with b a constant 0 (the whole image). */
static inline __attribute__((always_inline)) int rays_inside(const fs_image *img, const ray_tab *T, double x,
							     double y, double b, double *h)
{
	int j0 = T->j0, j1 = T->j1, span = T->span, ja = j0 - span, jb = j1 + span, q = 0;
	/* two rays at a time, so that an odd count of radii leaves one
	 * sample of each, read as one pair (lane 0 ray q, lane 1 ray
	 * q + 1) instead of two single samples; the rays still add to h
	 * one after the other, in their order */
	const float *d = img->data;
	int w = img->width;
	v2d W = {w, w}, X = {x, x}, Y = {y, y}, B = {b, b};
	for (; q + 1 < T->nr; q += 2) {
		double v0[NMAX + 1], v1[NMAX + 1];
		const double *ox0 = ray_x(T, q), *oy0 = ray_y(T, q), *ox1 = ray_x(T, q + 1), *oy1 = ray_y(T, q + 1);
		int j = ja;
		for (; j + 1 <= jb; j += 2) {
			v2d o0 = sample_pair_inside(d, W, w, B, X + ld2(ox0 + j), Y + ld2(oy0 + j));
			v2d o1 = sample_pair_inside(d, W, w, B, X + ld2(ox1 + j), Y + ld2(oy1 + j));
			memcpy(v0 + j, &o0, sizeof o0);
			memcpy(v1 + j, &o1, sizeof o1);
		}
		if (j <= jb) {
			v2d o = sample_pair_inside(d, W, w, B, (v2d){x + ox0[j], x + ox1[j]},
						   (v2d){y + oy0[j], y + oy1[j]});
			v0[j] = o[0];
			v1[j] = o[1];
		}
		add_steps2(h, v0, v1, j0, j1, span);
	}
	return q;
}

#ifdef FS_LANES_AVX
static int rays_inside4(const fs_image *img, const ray_tab *T, double x, double y, double b, double *h);
static void run_steps4(double *h, const double *run, int nr, int n, int j0, int j1, int span);

/* sample_pairs of a ray that may cross the border (inside 0) with AVX,
 * four samples at a time, each clamped to the image in its lane as
 * fs_image_clamped_cell clamps it (maxpd and minpd: the same position
 * but for the sign of a zero), and a sample on the last column or row
 * read as the cell before it with the weights turned (p[w - 2] 0 +
 * p[w - 1] 1 for p[w - 1] 1 + p[w - 1] 0: the same number but for the
 * sign of a zero, finite pixels); the interpolation is
 * sample_pair_inside's, the last 1-3 samples read as the ray's last four.
 * focus() uses a sample only through |v[j + span] - v[j - span]|,
 * where the sign of a zero never shows: the same focus. Why: the
 * compass's looks near the border (where every start that does not stop
 * clear lies on the lattice, and a third of P1 Fig1's) were read by
 * pairs, a clamped sample at a time: 46 M of the lattice's refinement,
 * 30 M of P1 Fig1's. focus() hands it all rays' samples as one run
 * (ja .. jb: the ray table's indices). Needs jb - ja >= 3 and an image
 * of at least 2 x 2. */
__attribute__((target("avx"), always_inline)) static inline void sample_quads_at(const fs_image *img, int cx, int cy,
										  double x, double y, const double *ox,
										  const double *oy, int ja, int jb,
										  double *v, const int small)
{
	const float *d = img->data;
	long w = img->width;
	double xe = w - 1, ye = img->height - 1;
	v4d X = {x, x, x, x}, Y = {y, y, y, y}, W = {w, w, w, w};
	v4d CX = {cx, cx, cx, cx}, CY = {cy, cy, cy, cy};
	__m256d zero = _mm256_setzero_pd(), XE = _mm256_set1_pd(xe), YE = _mm256_set1_pd(ye);
	__m256d ONE = _mm256_set1_pd(1);
	for (int j = ja; j <= jb; j += 4) {
		if (j + 3 > jb)
			j = jb - 3; /* the last four again */
		/* (a whole-image position less an integer: exact) */
		v4d px = (X + fs_ld4d(ox + j)) - CX, py = (Y + fs_ld4d(oy + j)) - CY;
		__m256d cxv = _mm256_min_pd(_mm256_max_pd((__m256d)px, zero), XE);
		__m256d cyv = _mm256_min_pd(_mm256_max_pd((__m256d)py, zero), YE);
		__m256d tx = (__m256d)fs_trunc4d((v4d)cxv), ty = (__m256d)fs_trunc4d((v4d)cyv);
		__m256d fx = _mm256_sub_pd(cxv, tx), fy = _mm256_sub_pd(cyv, ty);
		/* the last column (row): the cell before it, weight 1 */
		__m256d lx = _mm256_cmp_pd(tx, XE, _CMP_EQ_OQ), ly = _mm256_cmp_pd(ty, YE, _CMP_EQ_OQ);
		tx = _mm256_sub_pd(tx, _mm256_and_pd(lx, ONE));
		ty = _mm256_sub_pd(ty, _mm256_and_pd(ly, ONE));
		fx = _mm256_blendv_pd(fx, ONE, lx);
		fy = _mm256_blendv_pd(fy, ONE, ly);
		v4d at = (v4d)ty * W + (v4d)tx;
		v4d p00, p01, p10, p11;
		if (small)
			fs_corners4_at32(d, at, w, &p00, &p01, &p10, &p11);
		else
			fs_corners4_at(d, at, w, &p00, &p01, &p10, &p11);
		v4d o = fs_bilerp4d(p00, p01, p10, p11, (v4d)fx, (v4d)fy);
		memcpy(v + j, &o, sizeof o);
	}
}

/* Whether every cell index of img lies below 2^31, so that the quads'
 * four indices convert in one instruction (fs_corners4_at32: the same
 * pixels; h50a) */
static inline int small_image(const fs_image *img)
{
	return (long long)img->width * img->height <= INT_MAX;
}

/* sample_quads_at with the image's size tested once a call */
__attribute__((target("avx"))) static void sample_quads(const fs_image *img, int cx, int cy, double x, double y,
							 const double *ox, const double *oy, int ja, int jb,
							 double *v)
{
	if (small_image(img))
		sample_quads_at(img, cx, cy, x, y, ox, oy, ja, jb, v, 1);
	else
		sample_quads_at(img, cx, cy, x, y, ox, oy, ja, jb, v, 0);
}
#endif

/* The height of the peak of the summed radial-derivative magnitude over
 * the radii of T from (x, y), the derivative over +-span samples; *peak
 * (may be NULL) gets the radius of the peak. img is a crop at (cx, cy)
 * of the image whose pixels x and y are in (0, 0: the image itself). */
static double focus(const fs_image *img, int cx, int cy, const ray_tab *T, double x, double y, double *peak)
{
	int j0 = T->j0, j1 = T->j1, span = T->span, ja = j0 - span, jb = j1 + span;
	/* only h[j0..j1] is summed and read (add_steps, ring_peak) */
	double h[NMAX + 1];
	if (j1 >= j0)
		memset(h + j0, 0, (size_t)(j1 - j0 + 1) * sizeof *h);
	/* the rays' reach inside the image: no clamping needed (the last
	 * column and row excluded, where fs_image_sample repeats the edge) */
	double reach = T->reach;
	int inside = x - reach >= cx && y - reach >= cy && x + reach < cx + img->width - 1 &&
		     y + reach < cy + img->height - 1;
	int q = 0;
	if (inside) {
		/* (the whole image's own call without the crop's origin: the
		 * same operations as before the origin was added, h40e) */
		double b = (double)cy * img->width + cx;
#ifdef FS_LANES_AVX
		if (fs_cpu_has_avx() && jb - ja + 1 >= 4)
			q = rays_inside4(img, T, x, y, b, h);
		else
#endif
			q = b == 0 ? rays_inside(img, T, x, y, 0, h) : rays_inside(img, T, x, y, b, h);
	}
#ifdef FS_LANES_AVX
	int quads = !inside && jb - ja >= 3 && img->width >= 2 && img->height >= 2 && fs_cpu_has_avx();
#endif
#ifdef FS_LANES_AVX
	if (quads) {
		/* every ray's samples as one run (ray_tab: ray q's radius j at
		 * q n + j), so that only the run's last 1-3 are read again
		 * instead of each ray's (h46e) */
		double run[(NMAX + 1) * (NRAYS / 2 + 1)];
		sample_quads(img, cx, cy, x, y, T->ox, T->oy, ja, ja + T->nr * T->n - 1, run);
		run_steps4(h, run, T->nr & ~1, T->n, j0, j1, span);
		for (q = T->nr & ~1; q < T->nr; q++)
			add_steps(h, run + (size_t)q * T->n, j0, j1, span);
	}
#endif
	for (; q < T->nr; q++) {
		double v[NMAX + 1];
		sample_pairs(img, cx, cy, x, y, ray_x(T, q), ray_y(T, q), ja, jb, inside, v);
		add_steps(h, v, j0, j1, span);
	}
	int jbest;
	double best = ring_peak(h, j0, j1, &jbest);
	if (peak)
		*peak = jbest * T->dr;
	return best;
}

/* The grid's samples with their interpolation worked out once per
 * refinement. A sample of ray q at radius j from the trial centre
 * (x + ix g, y + iy g) lies at px = (x + ix g) + ox[q][j] and
 * py = (y + iy g) + oy[q][j]: px depends on the column ix only, py on the
 * row iy only. So the pixel, the weight and its complement along x are
 * tabulated per (ix, q, j), along y per (iy, q, j), from the very
 * expressions focus() evaluates: the same values, while a sample keeps
 * only its four reads and six products (the position, its rounding and
 * its weights were more than half of the grid's cost). fs_image_sample's
 * clamping to the border is separable too (x is clamped by its column,
 * y by its row), so a grid that reaches over the border tabulates the
 * clamped position and the step to the second pixel (0 on the last
 * column or row, where the clamped sample repeats the edge). */
typedef struct grid_tab {
	int n;             /* trial positions per axis: 2 ng + 1 */
	int nj;            /* samples per ray: j0 - span .. j1 + span */
	int clamped;       /* some sample reaches over the border */
	int *xo;           /* [ix][q][j] column of the left pixel */
	int *xd;           /* [ix][q][j] step to the right one (1, 0 at the edge) */
	double *xf, *xg;   /* [ix][q][j] its weight fx and 1 - fx */
	ptrdiff_t *yo;     /* [iy][q][j] offset of the top row */
	ptrdiff_t *yd;     /* [iy][q][j] step to the row below (w, 0 at the edge) */
	double *yf, *yg;   /* [iy][q][j] fy and 1 - fy */
	double *tx, *ty;   /* [i] the trial centres' columns and rows */
	/* every step is 1 and w, as on an inside grid (a clamped grid on an
	 * image at least 2 x 2: grid_tab_fill folds the last column's and
	 * row's clamped samples into the cell before them), so a clamped
	 * grid's trial centre reads as an inside one's (grid_focus). Why:
	 * near the border, where P1 Fig1 has a third of its domes, the
	 * clamped grids were read by pairs with their steps loaded: 63 M of
	 * its refinement's 215 M, 35 M of the lattice's */
	int unit;
	void *block;       /* owns all of the above */
} grid_tab;

/* fs_image_sample_clamped's clamping of one coordinate v to [0, n - 1]:
 * the pixel *v0, the step *d1 to the next one (0 at the last) and the
 * weight of the next one. */
static inline double clamp_axis(double v, int n, int *v0, int *d1)
{
	if (v < 0)
		v = 0;
	if (v > n - 1)
		v = n - 1;
	*v0 = (int)v;
	*d1 = *v0 + 1 < n ? 1 : 0;
	return v - *v0;
}

/* Room for the tables of the grid of (2 ng + 1)^2 trial centres (none
 * filled yet: grid_tab_fill). Returns 0, -1 when out of memory (nothing
 * to free). */
static int grid_tab_alloc(grid_tab *G, const ray_tab *T, int ng, int clamped)
{
	int n = 2 * ng + 1, nj = T->j1 - T->j0 + 2 * T->span + 1;
	size_t m = (size_t)n * T->nr * nj;
	G->block = malloc(m * (2 * sizeof(int) + 2 * sizeof(ptrdiff_t) + 4 * sizeof(double)) + 2 * n * sizeof(double));
	if (!G->block)
		return -1;
	G->n = n;
	G->nj = nj;
	G->clamped = clamped;
	G->unit = 0;
	G->xf = G->block;
	G->xg = G->xf + m;
	G->yf = G->xg + m;
	G->yg = G->yf + m;
	G->yo = (ptrdiff_t *)(G->yg + m);
	G->yd = G->yo + m;
	G->xo = (int *)(G->yd + m);
	G->xd = G->xo + m;
	G->tx = (double *)(G->xd + m);
	G->ty = G->tx + n;
	return 0;
}

/* Tabulates the columns and rows ia..ib (0..n - 1) of G, column i at
 * G->tx[i], row i at G->ty[i], for the rays of T in img (a crop at (cx, cy)
 * of the image those are in: each position made in that image's pixels,
 * the crop's origin taken off its pixel), clamped to its border when G is
 * clamped. A column's or row's table depends on its position only, so
 * the grid is filled in parts: the first ring's three first, the rest
 * only when the ring does not settle the grid (grid_stage; on the
 * 2048 x 1536 lattice 2,738 of 2,856 grids stop there, and filling all
 * of every grid was 61 M of the refinement's 796 M instructions, h42f). */
static inline __attribute__((always_inline)) void grid_tab_fill(grid_tab *G, const ray_tab *T, const fs_image *img,
								 int cx, int cy, int ia, int ib);

static void grid_tab_part(grid_tab *G, const ray_tab *T, const fs_image *img, int cx, int cy, int ia, int ib)
{
	/* (inlined twice: the whole image's with the origin a constant 0) */
	if (cx || cy)
		grid_tab_fill(G, T, img, cx, cy, ia, ib);
	else
		grid_tab_fill(G, T, img, 0, 0, ia, ib);
}

#ifdef FS_LANES_AVX
/* The inside tables of column and row i (grid_tab_fill's pair loop) four
 * samples at a time where the CPU has AVX: each lane the pair loop's
 * operations - the sum, C's truncation and that integer back as a double,
 * the weight and its complement, the crop's origin taken off the integer
 * and the row's offset y0 w made in 64 bits from two 32-bit integers
 * (pmuldq: exact, as the (ptrdiff_t) product) - so the same tables. The
 * rays' tables follow one another in a column's (row's) block as in the
 * ray table (ray_tab), so the column is one run of nr nj samples, its
 * last 1-3 written again as its last four (a table entry is a function
 * of its offset alone). Why: the pair loop was most of the tables' 56 M
 * instructions on the 2048 x 1536 lattice, where every refinement fills
 * three columns and rows. Needs nr nj >= 4. */
__attribute__((target("avx"))) static void grid_fill4(grid_tab *G, const ray_tab *T, int cx, int cy, long w, int i)
{
	int n = T->nr * G->nj, jlo = T->j0 - T->span;
	double tx = G->tx[i], ty = G->ty[i];
	v4d TX = {tx, tx, tx, tx}, TY = {ty, ty, ty, ty}, one = {1, 1, 1, 1};
	__m128i CX = _mm_set1_epi32(cx), CY = _mm_set1_epi32(cy), W = _mm_set1_epi64x(w);
	{
		size_t a0 = (size_t)i * n;
		const double *ox = T->ox + jlo, *oy = T->oy + jlo;
		int *xo = G->xo + a0;
		double *xf = G->xf + a0, *xg = G->xg + a0, *yf = G->yf + a0, *yg = G->yg + a0;
		ptrdiff_t *yo = G->yo + a0;
		for (int j = 0; j < n; j += 4) {
			if (j + 4 > n)
				j = n - 4; /* the last four again */
			v4d px = TX + fs_ld4d(ox + j), py = TY + fs_ld4d(oy + j);
			__m128i ix = _mm256_cvttpd_epi32((__m256d)px), iy = _mm256_cvttpd_epi32((__m256d)py);
			v4d fx = px - (v4d)_mm256_cvtepi32_pd(ix), fy = py - (v4d)_mm256_cvtepi32_pd(iy);
			v4d gx = one - fx, gy = one - fy;
			iy = _mm_sub_epi32(iy, CY);
			__m128i ylo = _mm_mul_epi32(_mm_unpacklo_epi32(iy, iy), W);
			__m128i yhi = _mm_mul_epi32(_mm_unpackhi_epi32(iy, iy), W);
			_mm_storeu_si128((__m128i *)(void *)(xo + j), _mm_sub_epi32(ix, CX));
			memcpy(xf + j, &fx, sizeof fx);
			memcpy(xg + j, &gx, sizeof gx);
			_mm_storeu_si128((__m128i *)(void *)(yo + j), ylo);
			_mm_storeu_si128((__m128i *)(void *)(yo + j + 2), yhi);
			memcpy(yf + j, &fy, sizeof fy);
			memcpy(yg + j, &gy, sizeof gy);
		}
	}
}

/* clamp_axis of four positions v on an axis of n >= 2 pixels, with
 * grid_tab_fill's fold of the last pixel into the cell before it: the
 * pixels (the cell's first) and their weights; the step is always 1.
 * maxpd and minpd with the bound first return the position itself where
 * the two are equal (a -0.0 kept as clamp_axis keeps it). */
__attribute__((target("avx"), always_inline)) static inline __m128i clamp_axis4(v4d v, int n, v4d *f)
{
	__m256d c = _mm256_min_pd(_mm256_set1_pd(n - 1), _mm256_max_pd(_mm256_setzero_pd(), (__m256d)v));
	__m128i i = _mm256_cvttpd_epi32(c);
	__m128i last = _mm_cmpeq_epi32(i, _mm_set1_epi32(n - 1));
	__m256d fx = _mm256_sub_pd(c, _mm256_cvtepi32_pd(i));
	/* (the mask's -1 added: the cell before the last pixel, weight 1) */
	*f = (v4d)_mm256_blendv_pd(fx, _mm256_set1_pd(1), _mm256_cvtepi32_pd(last));
	return _mm_add_epi32(i, last);
}

/* grid_tab_fill's clamped loop for column and row i of a grid on an
 * image of at least 2 x 2 (whose folded steps are 1 and w), four
 * samples at a time as grid_fill4: each lane clamp_axis's comparisons,
 * truncation and weight, the fold, and the same integers stored, so the
 * same tables (a column one run, as grid_fill4). Why: the grids within
 * reach of the border (a tenth of the 2048 x 1536 lattice's) filled their
 * tables a sample at a time, 20 M instructions there. Needs nr nj >= 4. */
__attribute__((target("avx"))) static void grid_fill4_clamped(grid_tab *G, const ray_tab *T, int cx, int cy, int w,
							      int h, int i)
{
	int n = T->nr * G->nj, jlo = T->j0 - T->span;
	double tx = G->tx[i], ty = G->ty[i];
	v4d TX = {tx, tx, tx, tx}, TY = {ty, ty, ty, ty}, one = {1, 1, 1, 1};
	v4d CX = {cx, cx, cx, cx}, CY = {cy, cy, cy, cy};
	__m128i W = _mm_set1_epi64x(w), ones = _mm_set1_epi32(1);
	{
		size_t a0 = (size_t)i * n;
		const double *ox = T->ox + jlo, *oy = T->oy + jlo;
		int *xo = G->xo + a0, *xd = G->xd + a0;
		double *xf = G->xf + a0, *xg = G->xg + a0, *yf = G->yf + a0, *yg = G->yg + a0;
		ptrdiff_t *yo = G->yo + a0, *yd = G->yd + a0;
		for (int j = 0; j < n; j += 4) {
			if (j + 4 > n)
				j = n - 4; /* the last four again */
			v4d fx, fy;
			__m128i ix = clamp_axis4((TX + fs_ld4d(ox + j)) - CX, w, &fx);
			__m128i iy = clamp_axis4((TY + fs_ld4d(oy + j)) - CY, h, &fy);
			v4d gx = one - fx, gy = one - fy;
			_mm_storeu_si128((__m128i *)(void *)(xo + j), ix);
			_mm_storeu_si128((__m128i *)(void *)(xd + j), ones);
			memcpy(xf + j, &fx, sizeof fx);
			memcpy(xg + j, &gx, sizeof gx);
			_mm_storeu_si128((__m128i *)(void *)(yo + j), _mm_mul_epi32(_mm_unpacklo_epi32(iy, iy), W));
			_mm_storeu_si128((__m128i *)(void *)(yo + j + 2), _mm_mul_epi32(_mm_unpackhi_epi32(iy, iy), W));
			_mm_storeu_si128((__m128i *)(void *)(yd + j), W);
			_mm_storeu_si128((__m128i *)(void *)(yd + j + 2), W);
			memcpy(yf + j, &fy, sizeof fy);
			memcpy(yg + j, &gy, sizeof gy);
		}
	}
}
#endif

static inline __attribute__((always_inline)) void grid_tab_fill(grid_tab *G, const ray_tab *T, const fs_image *img,
								 int cx, int cy, int ia, int ib)
{
	int nj = G->nj, w = img->width, h = img->height, clamped = G->clamped;
	int jlo = T->j0 - T->span;
#ifdef FS_LANES_AVX
	if (T->nr * nj >= 4 && (!clamped || (w >= 2 && h >= 2)) && fs_cpu_has_avx()) {
		for (int i = ia; i <= ib; i++) {
			if (clamped)
				grid_fill4_clamped(G, T, cx, cy, w, h, i);
			else
				grid_fill4(G, T, cx, cy, w, i);
		}
		return;
	}
#endif
	for (int i = ia; i <= ib; i++) {
		double tx = G->tx[i], ty = G->ty[i];
		for (int q = 0; q < T->nr; q++) {
			size_t a0 = ((size_t)i * T->nr + q) * nj;
			const double *ox = ray_x(T, q) + jlo, *oy = ray_y(T, q) + jlo;
			int *xo = G->xo + a0;
			double *xf = G->xf + a0, *xg = G->xg + a0, *yf = G->yf + a0, *yg = G->yg + a0;
			ptrdiff_t *yo = G->yo + a0;
			int j = 0;
			if (clamped) {
				for (; j < nj; j++) {
					int x0, y0, dx1, dy1;
					double fx = clamp_axis((tx + ox[j]) - cx, w, &x0, &dx1);
					double fy = clamp_axis((ty + oy[j]) - cy, h, &y0, &dy1);
					/* A sample clamped to the last column is that
					 * column's pixel, p[w - 1] 1 + p[w - 1] 0; read
					 * as the cell before it with the weights turned,
					 * p[w - 2] 0 + p[w - 1] 1, it is the same number
					 * but for the sign of a zero (finite pixels),
					 * and grid_focus uses a sample only through
					 * |v[a] - v[b]|, where that sign never shows. So
					 * every step is 1 (and w for the rows) and the
					 * samples read as an inside grid's (unit). */
					if (!dx1 && w >= 2) {
						x0 = w - 2;
						fx = 1;
						dx1 = 1;
					}
					if (!dy1 && h >= 2) {
						y0 = h - 2;
						fy = 1;
						dy1 = 1;
					}
					xo[j] = x0;
					G->xd[a0 + j] = dx1;
					xf[j] = fx;
					xg[j] = 1 - fx;
					yo[j] = (ptrdiff_t)y0 * w;
					G->yd[a0 + j] = (ptrdiff_t)dy1 * w;
					yf[j] = fy;
					yg[j] = 1 - fy;
				}
				continue;
			}
			/* inside (grid_focus reads no steps xd, yd then): two
			 * samples at a time, the same truncations and weights */
			v2d TX = {tx, tx}, TY = {ty, ty}, one = {1, 1};
			for (; j + 1 < nj; j += 2) {
				v2d px = TX + ld2(ox + j), py = TY + ld2(oy + j);
				int x0, x1, y0, y1;
				v2d fx = px - fs_trunc2(px, &x0, &x1), fy = py - fs_trunc2(py, &y0, &y1);
				v2d gx = one - fx, gy = one - fy;
				x0 -= cx;
				x1 -= cx;
				y0 -= cy;
				y1 -= cy;
				xo[j] = x0;
				xo[j + 1] = x1;
				memcpy(xf + j, &fx, sizeof fx);
				memcpy(xg + j, &gx, sizeof gx);
				yo[j] = (ptrdiff_t)y0 * w;
				yo[j + 1] = (ptrdiff_t)y1 * w;
				memcpy(yf + j, &fy, sizeof fy);
				memcpy(yg + j, &gy, sizeof gy);
			}
			for (; j < nj; j++) {
				double px = tx + ox[j], py = ty + oy[j];
				int x0 = (int)px, y0 = (int)py;
				xo[j] = x0 - cx;
				xf[j] = px - x0;
				xg[j] = 1 - xf[j];
				yo[j] = (ptrdiff_t)(y0 - cy) * w;
				yf[j] = py - y0;
				yg[j] = 1 - yf[j];
			}
		}
	}
}

#ifdef FS_LANES_AVX
/* Samples j..j + 3 of one ray of an inside grid's trial centre (see
 * grid_ray4). */
__attribute__((target("avx"), always_inline)) static inline void grid_quad(const float *d, long w, const int *xo,
							     const ptrdiff_t *yo, const double *xf, const double *xg,
							     const double *yf, const double *yg, int j, double *v)
{
	v4d p00, p01, p10, p11;
	fs_corners4_ix(d, d + w, yo[j] + xo[j], yo[j + 1] + xo[j + 1], yo[j + 2] + xo[j + 2], yo[j + 3] + xo[j + 3], &p00,
		       &p01, &p10, &p11);
	v4d g = fs_ld4d(xg + j), f = fs_ld4d(xf + j);
	v4d a = p00 * g + p01 * f;
	v4d b = p10 * g + p11 * f;
	v4d o = a * fs_ld4d(yg + j) + b * fs_ld4d(yf + j);
	memcpy(v + j, &o, sizeof o);
}

/* One ray of an inside grid's trial centre, four samples at a time in AVX
 * registers where the CPU has it (grid_focus checks): v[j] from the
 * tabulated pixels and weights, each lane the pair loop's operations in
 * its order (no fused multiply-add under target "avx"), so the same
 * values. Returns how many it wrote: all nj when nj >= 4, the last 1-3
 * samples read as the ray's last four (those before them written twice,
 * the same values: a sample is a function of its tables at j alone), as
 * obs_rows4 does (h43f); fewer samples are left to grid_focus. The
 * grid's samples were the largest part of the refinement, a sixth of the
 * dome rule on the 2048 x 1536 lattice (h40d); the pair and single loops
 * after the quads were ~20 M of it there (h43n). */
__attribute__((target("avx"))) static int grid_ray4(const float *d, long w, const int *xo, const ptrdiff_t *yo,
						     const double *xf, const double *xg, const double *yf,
						     const double *yg, int nj, double *v)
{
	int j = 0;
	for (; j + 3 < nj; j += 4)
		grid_quad(d, w, xo, yo, xf, xg, yf, yg, j, v);
	if (j < nj && nj >= 4) {
		grid_quad(d, w, xo, yo, xf, xg, yf, yg, nj - 4, v);
		j = nj;
	}
	return j;
}

/* add_steps2 four radii at a time (each lane h + |step of v0| + |step
 * of v1| in that order, the sign bit cleared as fabs does); the last
 * 0-3 radii by add_steps2 itself (h is summed into, so no quad may
 * overlap another). */
__attribute__((target("avx"))) static inline void add_steps2_4(double *h, const double *v0, const double *v1, int j0,
							       int j1, int span)
{
	const v4d sign = {-0.0, -0.0, -0.0, -0.0};
	int j = j0;
	for (; j + 3 <= j1; j += 4) {
		v4d d0 = fs_ld4d(v0 + j + span) - fs_ld4d(v0 + j - span);
		v4d d1 = fs_ld4d(v1 + j + span) - fs_ld4d(v1 + j - span);
		v4d a0 = (v4d)_mm256_andnot_pd((__m256d)sign, (__m256d)d0);
		v4d a1 = (v4d)_mm256_andnot_pd((__m256d)sign, (__m256d)d1);
		v4d a = (fs_ld4d(h + j) + a0) + a1;
		memcpy(h + j, &a, sizeof a);
	}
	add_steps2(h, v0, v1, j, j1, span);
}

/* The steps of nr rays (an even count) whose samples are one run (ray q's
 * radius j at run[q n + j]) added to h two rays at a time, in the rays'
 * order (add_steps2_4): the same sums as a ray at a time. */
__attribute__((target("avx"))) static void run_steps4(double *h, const double *run, int nr, int n, int j0, int j1,
						      int span)
{
	for (int q = 0; q + 1 < nr; q += 2)
		add_steps2_4(h, run + (size_t)q * n, run + (size_t)(q + 1) * n, j0, j1, span);
}

/* rays_inside with AVX (where the CPU has it: focus checks), four
 * samples at a time: each lane sample_pair_inside's expression (the
 * truncation, the index made in doubles less the crop's origin b, the
 * interpolation in its order; b = 0 leaves the index as it is). The
 * rays' samples are one run (ray_tab), its last 1-3 read again as its
 * last four (a sample is a function of its offset alone; h46e: a ray's
 * own last quad was read again in part), and the rays' steps added two
 * rays at a time by add_steps2_4 (add_steps2's sums): the same values.
 * Why: the compass's looks (focus) are the refinement's part left on
 * pairs, 46 M of the 2048 x 1536 lattice's detection and 86 M of P1
 * Fig1's, whose starts never stop clear (h42k). Needs at least four
 * samples a ray; returns the rays done (pairs of them). */
__attribute__((target("avx"), always_inline)) static inline int rays_inside4_at(const fs_image *img, const ray_tab *T,
										  double x, double y, double b, double *h,
										  const int small)
{
	int j0 = T->j0, j1 = T->j1, span = T->span, ja = j0 - span, nr = T->nr & ~1, n = nr * T->n;
	const float *d = img->data;
	long w = img->width;
	v4d W = {w, w, w, w}, X = {x, x, x, x}, Y = {y, y, y, y}, B = {b, b, b, b};
	/* ray q's sample j at run[q n + j], as the ray table holds its
	 * offsets: the rays' samples one run, read four at a time */
	double run[(NMAX + 1) * (NRAYS / 2 + 1)];
	const double *ox = T->ox + ja, *oy = T->oy + ja;
	double *v = run + ja;
	for (int t = 0; t < n; t += 4) {
		if (t + 4 > n)
			t = n - 4; /* the last four again */
		v4d px = X + fs_ld4d(ox + t), py = Y + fs_ld4d(oy + t);
		v4d tx = fs_trunc4d(px), ty = fs_trunc4d(py);
		v4d fx = px - tx, fy = py - ty, at = (ty * W + tx) - B;
		v4d p00, p01, p10, p11;
		if (small)
			fs_corners4_at32(d, at, w, &p00, &p01, &p10, &p11);
		else
			fs_corners4_at(d, at, w, &p00, &p01, &p10, &p11);
		v4d o = fs_bilerp4d(p00, p01, p10, p11, fx, fy);
		memcpy(v + t, &o, sizeof o);
	}
	run_steps4(h, run, nr, T->n, j0, j1, span);
	return nr;
}

/* rays_inside4_at with the image's size tested once a call (at: the
 * crop's own index, inside it) */
__attribute__((target("avx"))) static int rays_inside4(const fs_image *img, const ray_tab *T, double x, double y,
						       double b, double *h)
{
	if (small_image(img))
		return rays_inside4_at(img, T, x, y, b, h, 1);
	return rays_inside4_at(img, T, x, y, b, h, 0);
}

/* Every ray of an inside grid's trial centre (ax, ay: its column's and
 * row's first table index) with their steps added to h, in one call:
 * grid_quad's samples and the steps four radii at a time, the rays in
 * their order, two at a time as grid_focus adds them (the same values).
 * A column's (row's) tables hold its rays one after the other, so the
 * samples of all rays are read as one run of nr nj, four at a time, and
 * only the run's last 1-3 again (a sample is a function of its table
 * entry alone): with nj = 18 on the 2048 x 1536 lattice a ray's own quads
 * read 20 samples for 18 (h46e). Was a call and its set-up per ray, and
 * the steps two radii at a time (h43n). Needs nr nj >= 4 and an even
 * count of rays. */
__attribute__((target("avx"))) static void grid_rays4(const float *d, long w, const grid_tab *G, int nr, size_t ax,
						      size_t ay, int j0, int j1, int span, double *h)
{
	int nj = G->nj, jlo = j0 - span, n = nr * nj;
	/* ray q's sample j at run[q nj + j] (jlo <= j < jlo + nj) */
	double run[(NMAX + 1) * (NRAYS / 2 + 1)];
	const int *xo = G->xo + ax;
	const ptrdiff_t *yo = G->yo + ay;
	const double *xf = G->xf + ax, *xg = G->xg + ax, *yf = G->yf + ay, *yg = G->yg + ay;
	double *v = run + jlo;
	int t = 0;
	for (; t + 3 < n; t += 4)
		grid_quad(d, w, xo, yo, xf, xg, yf, yg, t, v);
	if (t < n)
		grid_quad(d, w, xo, yo, xf, xg, yf, yg, n - 4, v);
	run_steps4(h, run, nr, nj, j0, j1, span);
}
#endif

/* focus() of the trial centre (ix, iy) of G (-ng..ng each), the rays of
 * T; the caller has checked that every sample lies inside the image
 * unless G is clamped. */
static double grid_focus(const fs_image *img, const ray_tab *T, const grid_tab *G, int ix, int iy, int ng,
			 double *peak)
{
	int w = img->width;
	int j0 = T->j0, j1 = T->j1, span = T->span, nj = G->nj, jlo = j0 - span;
#ifdef FS_LANES_AVX
	int avx = fs_cpu_has_avx();
#endif
	/* only h[j0..j1] is summed and read (add_steps, ring_peak) */
	double h[NMAX + 1];
	if (j1 >= j0)
		memset(h + j0, 0, (size_t)(j1 - j0 + 1) * sizeof *h);
#ifdef FS_LANES_AVX
	/* (a clamped grid on an image of at least 2 x 2 has every step an
	 * inside grid's: grid_tab's unit) */
	int clamped = G->clamped && !G->unit;
	if (!clamped && avx && nj >= 4 && !(T->nr & 1)) {
		grid_rays4(img->data, w, G, T->nr, (size_t)(ix + ng) * T->nr * nj, (size_t)(iy + ng) * T->nr * nj, j0,
			   j1, span, h);
		int jb;
		double best = ring_peak(h, j0, j1, &jb);
		*peak = jb * T->dr;
		return best;
	}
#endif
	/* the rays' steps added two rays at a time (add_steps2) */
	double vv[2][NMAX + 1];
	for (int q = 0; q < T->nr; q++) {
		size_t ax = ((size_t)(ix + ng) * T->nr + q) * nj, ay = ((size_t)(iy + ng) * T->nr + q) * nj;
		const int *xo = G->xo + ax, *xd = G->xd + ax;
		const double *xf = G->xf + ax, *xg = G->xg + ax, *yf = G->yf + ay, *yg = G->yg + ay;
		const ptrdiff_t *yo = G->yo + ay, *yd = G->yd + ay;
		double *v = vv[q & 1];
		int j = 0;
		if (clamped) {
			/* fs_image_bilinear's expression, on the clamped pixels,
			 * two samples at a time (one lane each) */
			for (; j + 1 < nj; j += 2) {
				const float *p = img->data + yo[j] + xo[j], *r = img->data + yo[j + 1] + xo[j + 1];
				int a0 = xd[j], a1 = xd[j + 1];
				ptrdiff_t b0 = yd[j], b1 = yd[j + 1];
				v2d p00 = {p[0], r[0]}, p01 = {p[a0], r[a1]}, p10 = {p[b0], r[b1]},
				    p11 = {p[b0 + a0], r[b1 + a1]};
				v2d g = ld2(xg + j), f = ld2(xf + j);
				v2d top = p00 * g + p01 * f;
				v2d bot = p10 * g + p11 * f;
				v2d o = top * ld2(yg + j) + bot * ld2(yf + j);
				v[jlo + j] = o[0];
				v[jlo + j + 1] = o[1];
			}
			for (; j < nj; j++) {
				const float *p = img->data + yo[j] + xo[j];
				int a = xd[j];
				ptrdiff_t b = yd[j];
				double top = p[0] * xg[j] + p[a] * xf[j];
				double bot = p[b] * xg[j] + p[b + a] * xf[j];
				v[jlo + j] = top * yg[j] + bot * yf[j];
			}
		}
#ifdef FS_LANES_AVX
		if (!clamped && avx)
			j = grid_ray4(img->data, w, xo, yo, xf, xg, yf, yg, nj, v + jlo);
#endif
		for (; j + 1 < nj; j += 2) {
			const float *p = img->data + yo[j] + xo[j], *r = img->data + yo[j + 1] + xo[j + 1];
			v2d p00, p01, p10, p11;
			fs_corners2(p, r, w, &p00, &p01, &p10, &p11);
			v2d g = ld2(xg + j), f = ld2(xf + j);
			v2d a = p00 * g + p01 * f;
			v2d b = p10 * g + p11 * f;
			v2d o = a * ld2(yg + j) + b * ld2(yf + j);
			memcpy(v + jlo + j, &o, sizeof o);
		}
		for (; j < nj; j++) {
			const float *p = img->data + yo[j] + xo[j];
			double a = p[0] * xg[j] + p[1] * xf[j];
			double b = p[w] * xg[j] + p[w + 1] * xf[j];
			v[jlo + j] = a * yg[j] + b * yf[j];
		}
		if (q & 1)
			add_steps2(h, vv[0], vv[1], j0, j1, span);
		else if (q == T->nr - 1)
			add_steps(h, v, j0, j1, span);
	}
	int jb;
	double best = ring_peak(h, j0, j1, &jb);
	*peak = jb * T->dr;
	return best;
}

/* How far below the start's focus (a fraction of it) every trial centre
 * of the grid's first ring must lie for the start to be taken without
 * the rest of the grid. Why: on a clean lattice the correlation's
 * candidates are the grid's winners for 2,782 of 2,856 domes, and the
 * grid was a fifth of the dome rule there (h41d); but on the simulator's
 * corner scenes a start that beats its ring is not the grid's winner in
 * a quarter of the cases (the focus has ridges around the base's peak).
 * With 0.2 the lattice skips 2,738 of 2,856 grids and picks none
 * differently, the corner scenes skip 3 of 7,762 (all 3 elsewhere);
 * 0.1 skipped 164 there, picked 14 differently and lost a scene's S
 * (h41j). */
#define CLEAR_START 0.2

/* CLEAR_START on half the rays (every fourth of the NRAYS directions):
 * the first ring is tested there first, and a start clear of it is taken
 * without the other half (h47j). Why: on the lattice 2,737 of 2,856
 * starts are clear of their ring and each such grid read 9 trial centres
 * x 16 rays only to keep the start (the grid's trial centres were 103 M
 * of the refinement's 170 M instructions); half the rays decide the same
 * for all but 2 of the lattice's starts (one either way) and 11 of the
 * 8,690 corner refinements of the test seeds (7 clear on half only, 4 on
 * all only: the half ring's highest reads 0.74-0.80 of the start where
 * the whole ring's does not clear). A start not clear on half the rays
 * pays the half test (its tables and the start and ring up to the first
 * trial centre not clearly below) before the whole grid. */
#define CLEAR_START_HALF 0.2

/* The clear-start test of grid_stage on every other ray of T (its even
 * rays: the directions 4 k of NRAYS), stopping at the first ring trial
 * centre that is not clearly below the start. Returns 1 when the whole
 * ring is, with the start's ring radius in *rp; 0 when not (or without
 * memory for the tables), *rp untouched. */
static int clear_on_half(const fs_image *img, int ox, int oy, const ray_tab *T, double x, double y, double g,
			 int ng, double max_shift, int inside, double *rp)
{
	/* T's even rays: the table of every (2 NRAYS / T->nr)-th direction,
	 * the same values (ray_tab_of; it was copied from T each time) */
	const ray_tab *H = ray_tab_of(ray_dirs(), T->nr / 2, T->dr, T->span, T->j0, T->j1);
	grid_tab G = {0};
	if (grid_tab_alloc(&G, H, ng, !inside))
		return 0;
	G.unit = img->width >= 2 && img->height >= 2;
	for (int i = -ng; i <= ng; i++) {
		G.tx[i + ng] = x + i * g;
		G.ty[i + ng] = y + i * g;
	}
	grid_tab_part(&G, H, img, ox, oy, ng - 1, ng + 1);
	double r0, r;
	double best = grid_focus(img, H, &G, 0, 0, ng, &r0);
	int clear = 1;
	for (int iy = -1; iy <= 1 && clear; iy++)
		for (int ix = -1; ix <= 1 && clear; ix++) {
			if ((!ix && !iy) || hypot(ix * g, iy * g) > max_shift)
				continue;
			if (!(grid_focus(img, H, &G, ix, iy, ng, &r) < best - CLEAR_START_HALF * fabs(best)))
				clear = 0;
		}
	free(G.block);
	if (clear)
		*rp = r0;
	return clear;
}

/* The grid stage: the trial centres g apart within max_shift of (x, y)
 * (ng per side), the rays of T; the best one's centre in *cx, *cy and its
 * ring's radius in *rp ((x, y) itself when none is better, or when the
 * first ring lies clearly below it on half the rays, CLEAR_START_HALF,
 * or on all of them, CLEAR_START). Returns whether it stopped at that
 * clear start. */
static int grid_stage(const fs_image *img, int ox, int oy, const ray_tab *T, double x, double y, double g,
		      int ng, double max_shift, double *cx, double *cy, double *rp)
{
	*cx = x;
	*cy = y;
	double b = ng * g + T->reach + 1;
	int inside = x - b >= ox && y - b >= oy && x + b < ox + img->width - 1 && y + b < oy + img->height - 1;
	if (ng >= 1 && T->nr >= 4 && !(T->nr & 3) && clear_on_half(img, ox, oy, T, x, y, g, ng, max_shift, inside, rp))
		return 1;
	/* the tabulated grid (the same values as focus() at each trial
	 * centre), clamped where it reaches over the image's border */
	grid_tab G = {0};
	int tab = grid_tab_alloc(&G, T, ng, !inside) == 0, r1 = ng < 1 ? ng : 1;
	if (tab) {
		G.unit = img->width >= 2 && img->height >= 2;
		for (int i = -ng; i <= ng; i++) {
			G.tx[i + ng] = x + i * g;
			G.ty[i + ng] = y + i * g;
		}
		grid_tab_part(&G, T, img, ox, oy, ng - r1, ng + r1);
	}
	/* the start is the grid's centre (x + 0 g = x): its focus read from
	 * the tables, the same value as focus() there as at every trial
	 * centre, for a quarter fewer instructions (h43n) */
	double best = tab ? grid_focus(img, T, &G, 0, 0, ng, rp) : focus(img, ox, oy, T, x, y, rp);
	/* the first ring before the rest (kept, so that the raster below
	 * sees the same values in the same order as without the test) */
	double ring[3][3], ringr[3][3];
	int clear = 1;
	for (int iy = -1; iy <= 1; iy++)
		for (int ix = -1; ix <= 1; ix++) {
			if ((!ix && !iy) || abs(ix) > ng || abs(iy) > ng || hypot(ix * g, iy * g) > max_shift)
				continue;
			double r;
			double v = tab ? grid_focus(img, T, &G, ix, iy, ng, &r)
				       : focus(img, ox, oy, T, x + ix * g, y + iy * g, &r);
			ring[iy + 1][ix + 1] = v;
			ringr[iy + 1][ix + 1] = r;
			if (!(v < best - CLEAR_START * fabs(best)))
				clear = 0;
		}
	if (tab && !clear && ng > 1) {
		grid_tab_part(&G, T, img, ox, oy, 0, ng - 2);
		grid_tab_part(&G, T, img, ox, oy, ng + 2, 2 * ng);
	}
	for (int iy = -ng; iy <= ng && !clear; iy++)
		for (int ix = -ng; ix <= ng; ix++) {
			if ((!ix && !iy) || hypot(ix * g, iy * g) > max_shift)
				continue;
			double r, v;
			if (abs(ix) <= 1 && abs(iy) <= 1) {
				v = ring[iy + 1][ix + 1];
				r = ringr[iy + 1][ix + 1];
			} else {
				v = tab ? grid_focus(img, T, &G, ix, iy, ng, &r)
					: focus(img, ox, oy, T, x + ix * g, y + iy * g, &r);
			}
			if (v > best) {
				best = v;
				*cx = x + ix * g;
				*cy = y + iy * g;
				*rp = r;
			}
		}
	if (tab)
		free(G.block);
	return clear;
}

/* Whether *k holds the grid stage of these inputs. */
static int grid_kept(const fs_refine_grid *k, const fs_image *img, double x, double y, double rmin, double rmax,
		     double max_shift, double gdr, int gspan)
{
	return k->valid && k->data == img->data && k->width == img->width && k->height == img->height &&
	       k->x == x && k->y == y && k->rmin == rmin && k->rmax == rmax && k->max_shift == max_shift &&
	       k->gdr == gdr && k->gspan == gspan;
}

int fs_centre_refine(const fs_image *img, double x, double y, double rmin, double rmax, double max_shift,
		     double smooth, double *ox, double *oy)
{
	return fs_centre_refine_kept(img, x, y, rmin, rmax, max_shift, smooth, NULL, ox, oy);
}

int fs_centre_refine_kept(const fs_image *img, double x, double y, double rmin, double rmax, double max_shift,
			  double smooth, fs_refine_grid *kept, double *ox, double *oy)
{
	return fs_centre_refine_crop(img, 0, 0, x, y, rmin, rmax, max_shift, smooth, kept, ox, oy);
}

/* The refinement of (x, y), in the pixels of the image img is a crop at
 * (cx, cy) of: every position is made there, as the whole image makes
 * it, and only a sample's pixel has the crop's origin taken off. */
static void refine_at(const fs_image *img, int cx0, int cy0, double x, double y, double rmin, double rmax,
		      double max_shift, double smooth, fs_refine_grid *kept, double *ox, double *oy);

int fs_centre_refine_crop(const fs_image *img, int cx, int cy, double x, double y, double rmin, double rmax,
			  double max_shift, double smooth, fs_refine_grid *kept, double *ox, double *oy)
{
	if (!img || !img->data || !(rmin > 0) || !(rmax > rmin) || !(max_shift >= 0) || !(smooth >= 0) || !ox ||
	    !oy)
		return -1;
	/* (x + cx: the whole image's point, exact when x was made from it
	 * less cx; the result less cx is exact again) */
	refine_at(img, cx, cy, x + cx, y + cy, rmin, rmax, max_shift, smooth, kept, ox, oy);
	*ox -= cx;
	*oy -= cy;
	return 0;
}

static void refine_at(const fs_image *img, int cx0, int cy0, double x, double y, double rmin, double rmax,
		      double max_shift, double smooth, fs_refine_grid *kept, double *ox, double *oy)
{
	const rays *R = ray_dirs();
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
	int clear;
	const ray_tab *T;
	if (kept && grid_kept(kept, img, x, y, rmin, rmax, max_shift, gdr, gspan)) {
		cx = kept->cx;
		cy = kept->cy;
		rp = kept->rp;
		clear = kept->clear;
	} else {
		T = ray_tab_for(R, NRAYS / 2, gdr, gspan, rmin, rmax);
		clear = grid_stage(img, cx0, cy0, T, x, y, g, ng, max_shift, &cx, &cy, &rp);
		if (kept)
			*kept = (fs_refine_grid){.valid = 1, .data = img->data, .width = img->width,
						 .height = img->height, .x = x, .y = y, .rmin = rmin, .rmax = rmax,
						 .max_shift = max_shift, .gdr = gdr, .gspan = gspan, .cx = cx,
						 .cy = cy, .rp = rp, .clear = clear};
	}
	if (kept && kept->done && kept->span == span) {
		/* the compass stage of this grid outcome with this span */
		*ox = kept->ox;
		*oy = kept->oy;
		return;
	}
	/* A start that beat its whole first ring by CLEAR_START is taken
	 * as it is: on the lattice the compass's ~17 looks a dome left 2,481
	 * of 2,738 such starts where they were and moved 257 by 0.34-0.45
	 * px, which the template fit after it takes back (the lattice's mean
	 * centre error 0.0252 vs 0.0253 px against its truth), and elsewhere
	 * such starts are rare (3 of 7,762 corner refinements, h41j); every
	 * count on 8 seed sets is the same (h42k) */
	if (clear) {
		*ox = cx;
		*oy = cy;
		return;
	}
	double q0 = fmax(rmin, 0.7 * rp), q1 = fmin(rmax, 1.3 * rp);
	if (q1 - q0 < 4 * dr) {
		q0 = rmin;
		q1 = rmax;
	}
	T = ray_tab_for(R, NRAYS / 2, dr, span, q0, q1);
	double best = focus(img, cx0, cy0, T, cx, cy, NULL);
	for (double s = 0.5 * g; s >= 0.25; s *= 0.5) {
		/* after a step, the way back leads to the point just left,
		 * whose focus is lower than this one's (up to the rounding of
		 * the position): not looked at again */
		int back = -1;
		for (int it = 0; it < 8; it++) {
			int bk = -1;
			double bv = best;
			for (int k = 0; k < 8; k++) {
				if (k == back)
					continue;
				double nx = cx + s * dx[k], ny = cy + s * dy[k];
				if (hypot(nx - x, ny - y) > max_shift)
					continue;
				double v = focus(img, cx0, cy0, T, nx, ny, NULL);
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
			back = (bk + 4) % 8;
		}
	}
	*ox = cx;
	*oy = cy;
	if (kept) {
		kept->done = 1;
		kept->span = span;
		kept->ox = cx;
		kept->oy = cy;
	}
}
