/*
 * dome_measure.c - the base circle of a dome from the strongest concentric
 * intensity step (see dome_measure.h).
 */
#include "analysis/dome_measure.h"
#include "analysis/polygon_moments.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/lanes.h"
#include "analysis/parabola_vertex.h"
#include "analysis/lanes_avx.h"
#include "base/cpu_features.h"

#define NRAYS 32
_Static_assert(NRAYS == FS_DOME_TRACE_RAYS, "the trace keeps every ray");
#define NMAX 48
/* SD of the per-ray edge weight around the common circle, per radius: the
 * bases of domes at fill 0.8 are a quarter radius apart; 0.1 against no
 * weight took mean D within 3 % of the simulator's truth from 21 to 29 of
 * 64 scenes and D SD below 8 % from 31 to 40 of 40 (0.15: 26, 0.2: 28) */
#define SW 0.1

/* Below this R / sigma the blurred step's steepest point hardly moves
 * with R (r* -> sigma as R -> 0), so inverting it amplifies every error;
 * the base is then fitted to the whole radial profile (fit_small_base).
 * Between SMALL_LO and SMALL_HI the two estimates are blended, so a dome
 * near the limit does not jump between rules. */
#define SMALL_LO 2.0
#define SMALL_HI 3.0
/* fs_dome_measure (no prepared image) corrects with the blur one
 * tubercle's own steps show, which 32 rays tell roughly: in full up to
 * LOCAL_HI / 2 sigma, fading out at LOCAL_HI sigma, where the correction
 * is below 1 % of R and its noise would be all it adds. */
#define LOCAL_HI 8.0
/* the inner-slope fit's half window, samples (2.5 sigma; inner_shift) */
#define RAMP_MAXM 16
/* inner_shift's free blur (a trace's only, h49b): the trials, times the
 * picks' width. The width the picks show is the step's narrowed by the
 * inner slope (the opposite-signed slope inside the base steepens the
 * derivative's inner side), so the model's blur is tried from 0.8 to 2.4
 * times it and the least residual kept. */
#define FREE_SIGMA_LO 0.8
#define FREE_SIGMA_HI 2.4
#define FREE_SIGMA_N 17

static double deblur_tab(const double *tab, double s, double r);
static double sigma_from_tab(const double *tab, const double *qtab, double r, double kappa);
static const double *shared_tab(int q);
static const double *ray_dirs(int q);
static const double *ray_dirs_half(int q);
static double fit_small_base(const fs_image *img, int ox, int oy, double cx, double cy, double r0, double sigma,
			     double rlim);
static double fit_profile(const double *prof, int nr, double step, double r0, double sigma, double rfit, double *ssr_out);
static void mean_profile(const fs_image *img, int ox, int oy, double cx, double cy, double step, int nr, double *prof);

/* Least-squares circle (Kasa) through the points with use[k] set.
 * Returns 0 with centre and radius, -1 when degenerate. */
static int fit_circle(const double *px, const double *py, const int *use, int n, double *cx,
		      double *cy, double *r)
{
	double mx = 0, my = 0;
	int m = 0;
	for (int k = 0; k < n; k++)
		if (use[k]) {
			mx += px[k];
			my += py[k];
			m++;
		}
	if (m < 5)
		return -1;
	mx /= m;
	my /= m;
	/* The seven sums in pairs of lanes, {u, v} a point: {suu, svv},
	 * {suuu, svvv} = (u u) u, (v v) v, {suvv, svuu} = (u v) v, (v u) u
	 * (u v = v u to the bit), each sum still added point by point in
	 * order, so the same values with half the products and adds (fit_circle
	 * is called by every pass, 11,772 times on the 2048 x 1536 lattice). */
	v2d c = {mx, my}, s2 = {0, 0}, s3 = {0, 0}, sx = {0, 0};
	double suv = 0;
	for (int k = 0; k < n; k++) {
		if (!use[k])
			continue;
		v2d w = (v2d){px[k], py[k]} - c, sq = w * w;
		double uv = w[0] * w[1];
		s2 += sq;
		suv += uv;
		s3 += sq * w;
		sx += (v2d){uv, uv} * (v2d){w[1], w[0]};
	}
	double suu = s2[0], svv = s2[1], suuu = s3[0], svvv = s3[1], suvv = sx[0], svuu = sx[1];
	double det = suu * svv - suv * suv;
	if (fabs(det) < 1e-12)
		return -1;
	double b1 = 0.5 * (suuu + suvv), b2 = 0.5 * (svvv + svuu);
	double uc = (b1 * svv - b2 * suv) / det, vc = (suu * b2 - suv * b1) / det;
	*cx = mx + uc;
	*cy = my + vc;
	*r = sqrt(uc * uc + vc * vc + (suu + svv) / m);
	return 0;
}

/* The k-th smallest (0-based) of a few (at most NRAYS) values without
 * NAN: the value v[k] holds after sorting them ascending, found by
 * partitioning (quickselect) instead of sorting them all; v is left with
 * v[0..k-1] <= v[k] <= v[k+1..n-1]. Why not the sort: the two medians of
 * every pass (the kappas', the residuals') sorted 32 values by insertion,
 * a twentieth of a base reading (h35d). */
static double kth_few(double *v, int n, int k)
{
	int lo = 0, hi = n - 1;
	while (hi > lo) {
		/* the median of three as the pivot, moved to v[hi] */
		int mid = lo + (hi - lo) / 2;
		double a = v[lo], b = v[mid], c = v[hi];
		int pi = (a < b) ? (b < c ? mid : (a < c ? hi : lo)) : (a < c ? lo : (b < c ? hi : mid));
		double pv = v[pi];
		v[pi] = v[hi];
		v[hi] = pv;
		int st = lo;
		for (int i = lo; i < hi; i++)
			if (v[i] < pv) {
				double t = v[i];
				v[i] = v[st];
				v[st] = t;
				st++;
			}
		v[hi] = v[st];
		v[st] = pv;
		if (st == k)
			return pv;
		if (st < k)
			lo = st + 1;
		else
			hi = st - 1;
	}
	return v[k];
}

/* Two doubles, one per sample: two samples of a ray interpolated together,
 * each lane doing fs_image_bilinear's products and sums in its order (and
 * no fused multiply-add in either: -std=c11 sets -ffp-contract=off), so
 * the same bits as one sample at a time (as centre_refine.c's; the types
 * are lanes.h's). */
static const v2i mag = {0x7fffffffffffffffLL, 0x7fffffffffffffffLL}; /* all but the sign */

/* floor() without the libm call, for the small offsets of a ray */
static inline int floor_int(double u)
{
	int i = (int)u;
	return i - (u < i);
}

/* One bilinear sample at (xi + u, yi + v) (xi, yi whole pixels, u, v
 * small), clamped to the image as fs_image_sample is. The point is split
 * into its pixel and its fraction before the two are added, so that the
 * sample does not depend on where the image's origin lies: a crop of the
 * image (the tiled measurement, detect_domes_tiled.c) reads the same
 * pixels with the same weights to the last bit, where x + u rounded at
 * the magnitude of x would not (and the exact ties of flat-topped disks'
 * plateaus then went one way on the whole image and the other on a tile). */
static inline double sample_split(const fs_image *img, int xi, int yi, double u, double v)
{
	int iu = floor_int(u), iv = floor_int(v);
	int x0 = xi + iu, y0 = yi + iv, w = img->width, h = img->height;
	double fx = u - iu, fy = v - iv;
	const float *d = img->data;
	if (x0 < 0) {
		x0 = 0;
		fx = 0;
	} else if (x0 >= w - 1) {
		x0 = w - 1;
		fx = 0;
	}
	if (y0 < 0) {
		y0 = 0;
		fy = 0;
	} else if (y0 >= h - 1) {
		y0 = h - 1;
		fy = 0;
	}
	int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
	return fs_image_bilinear(d[(size_t)y0 * w + x0], d[(size_t)y0 * w + x1], d[(size_t)y1 * w + x0],
				 d[(size_t)y1 * w + x1], fx, fy);
}

#ifdef FS_LANES_AVX
/* The rays' offsets from a pass's start, u[k][j] = cs[k] j step and
 * v[k][j] = sn[k] j step (the products in sample_rays' order, so the
 * same values), for one step and one table of directions (keyed by both,
 * so no caller's table can be taken for another's). A detection reads every dome of an image
 * at one step (the readers' radii windows are the image's: one table
 * filled for the 2048 x 1536 lattice, one for each P1 figure), so each
 * thread keeps the last few: the quads' two products a coordinate
 * were 4 of their some 70 instructions, 3.9 M quads on the 2048 x 1536
 * lattice (h47f). */
typedef struct ray_offsets {
	const double *cs, *sn; /* the directions' table it was filled from */
	double step;
	double u[NRAYS][NMAX + 1], v[NRAYS][NMAX + 1];
} ray_offsets;

#define RAY_OFFSETS_KEPT 4

static const ray_offsets *ray_offsets_for(const double *cs, const double *sn, double step)
{
	static _Thread_local ray_offsets kept[RAY_OFFSETS_KEPT];
	static _Thread_local int filled, next;
	for (int i = 0; i < filled; i++)
		if (kept[i].step == step && kept[i].cs == cs && kept[i].sn == sn)
			return &kept[i];
	ray_offsets *o = &kept[next];
	next = (next + 1) % RAY_OFFSETS_KEPT;
	if (filled < RAY_OFFSETS_KEPT)
		filled++;
	o->cs = cs;
	o->sn = sn;
	o->step = step;
	for (int k = 0; k < NRAYS; k++)
		for (int j = 0; j <= NMAX; j++) {
			o->u[k][j] = cs[k] * j * step;
			o->v[k][j] = sn[k] * j * step;
		}
	return o;
}

/*
 * sample_rays with AVX (where the CPU has it, fs_cpu_has_avx: the build
 * targets plain x86-64): four samples of a ray at a time, four to a
 * register, each lane the pair loop's operations in its order (no fused
 * multiply-add: the target is "avx" alone and ISO C keeps contraction
 * off), so the same bits. The rays' samples were the largest part of
 * every base reading, a fifth of the dome rule on the 2048 x 1536
 * lattice (h40d). A quad with a sample outside the image, and the last
 * samples of a ray, are read one at a time by sample_split (which gives
 * an inside sample the same value).
 */
/* One ray's quads j = ja, ja + 4, .. while j + 3 <= jb (sample_rays4's
 * loop); returns the first j left. checked is a constant at each call:
 * a dome whose reach lies inside the image (most of them) runs a loop
 * with no border test, whose quads neither test a flag nor keep their
 * points for the one-at-a-time reads (a test and two stores a quad,
 * 16 M of the 2048 x 1536 lattice, h46o). idx32, a constant too: the
 * cells' indices converted four in one instruction (fs_corners4_at32),
 * for an image of fewer than 2^31 pixels. */
__attribute__((target("avx"), always_inline)) static inline int ray_quads4(const fs_image *img, const float *d, int w,
									    int h, int xi, int yi, v4d X, v4d Y,
									    const double *ou, const double *ov,
									    int ja, int jb, const int checked,
									    const int idx32, double *out)
{
	double xe = w - 1, ye = h - 1;
	v4d XI = {xi, xi, xi, xi}, YI = {yi, yi, yi, yi}, W = {w, w, w, w};
	v4d zero = {0, 0, 0, 0}, XE = {xe, xe, xe, xe}, YE = {ye, ye, ye, ye};
	/* the start's own index yi w + xi (below 2^31 where unchecked) */
	double b = (double)yi * w + xi;
	v4d B = {b, b, b, b};
	int j = ja;
	for (; j + 3 <= jb; j += 4) {
		v4d pu = X + fs_ld4d(ou + j), pv = Y + fs_ld4d(ov + j);
		v4d fu = fs_floor4d(pu), fv = fs_floor4d(pv);
		v4d at;
		if (checked) {
			v4d ax = XI + fu, ay = YI + fv;
			__m256d in = _mm256_and_pd(
				_mm256_and_pd(_mm256_cmp_pd((__m256d)ax, (__m256d)zero, _CMP_GE_OQ),
					      _mm256_cmp_pd((__m256d)ay, (__m256d)zero, _CMP_GE_OQ)),
				_mm256_and_pd(_mm256_cmp_pd((__m256d)ax, (__m256d)XE, _CMP_LT_OQ),
					      _mm256_cmp_pd((__m256d)ay, (__m256d)YE, _CMP_LT_OQ)));
			if (_mm256_movemask_pd(in) != 0xf) {
				for (int l = 0; l < 4; l++)
					out[j + l] = sample_split(img, xi, yi, pu[l], pv[l]);
				continue;
			}
			at = ay * W + ax;
		} else {
			/* the same whole number as (yi + fv) w + (xi + fu), every
			 * step exact in doubles (whole numbers below 2^53), in
			 * three operations instead of four (h49o: 3.9 M quads on
			 * the 2048 x 1536 lattice) */
			at = fv * W + (fu + B);
		}
		v4d fx = pu - fu, fy = pv - fv;
		v4d p00, p01, p10, p11;
		if (idx32)
			fs_corners4_at32(d, at, w, &p00, &p01, &p10, &p11);
		else
			fs_corners4_at(d, at, w, &p00, &p01, &p10, &p11);
		v4d o = fs_bilerp4d(p00, p01, p10, p11, fx, fy);
		memcpy(out + j, &o, sizeof o);
	}
	return j;
}

/* The rays k0 .. k1 - 1 of sample_rays4 in one mode (checked, idx32:
 * constants, see ray_quads4). The image's pixels and size come as values
 * and the mode is chosen once a call, not once a ray: read through img
 * after the rays' stores (which may alias anything), the size and the
 * start's index were made again for every ray, with four spills about
 * its loop (h51b: some 26 of the 47 instructions a ray paid besides its
 * quads, 377,000 rays on the 2048 x 1536 lattice). */
__attribute__((target("avx"), always_inline)) static inline void rays_in_mode(const fs_image *img, const double *cs,
									       const double *sn, int xi, int yi,
									       double x, double y, double step,
									       int ja, int jb, int k0, int k1,
									       const ray_offsets *o,
									       double raw[NRAYS][NMAX + 1],
									       const int checked, const int idx32)
{
	v4d X = {x, x, x, x}, Y = {y, y, y, y};
	const float *d = img->data;
	int w = img->width, h = img->height;
	for (int k = k0; k < k1; k++) {
		int j = ray_quads4(img, d, w, h, xi, yi, X, Y, o->u[k], o->v[k], ja, jb, checked, idx32, raw[k]);
		for (; j <= jb; j++)
			raw[k][j] = sample_split(img, xi, yi, x + cs[k] * j * step, y + sn[k] * j * step);
	}
}

__attribute__((target("avx"))) static void sample_rays4(const fs_image *img, const double *cs, const double *sn,
							 int xi, int yi, double x, double y, double step, int ja,
							 int jb, int k0, int k1, int inside, double raw[NRAYS][NMAX + 1])
{
	const ray_offsets *o = ray_offsets_for(cs, sn, step);
	/* the unchecked loop's cell indices as 32-bit numbers
	 * (fs_corners4_at32): a larger image reads through the checked one */
	int small = (long long)img->width * img->height <= INT_MAX;
	/* (and a dome near the border, its quads checked, also takes the
	 * 32-bit indices of an image that small: a checked quad's cells lie
	 * inside it; h50a) */
	if (small && inside)
		rays_in_mode(img, cs, sn, xi, yi, x, y, step, ja, jb, k0, k1, o, raw, 0, 1);
	else if (small)
		rays_in_mode(img, cs, sn, xi, yi, x, y, step, ja, jb, k0, k1, o, raw, 1, 1);
	else
		rays_in_mode(img, cs, sn, xi, yi, x, y, step, ja, jb, k0, k1, o, raw, 1, 0);
}
#endif

/* A ray's central differences from radius j to n - 1 one at a time, where
 * the lane loops stop: sd[j] = q_j, d[j] = |q_j|, h[j] += d[j]; returns
 * the larger of mx and the largest d[j] over radii up to n - 2 (the
 * quality's). The whole pass's two paths (every ray in one AVX call, or
 * ray by ray in pairs) end with it. */
static inline double ray_steps_tail(const double *v, int j, int n, double step, double *sd, double *d, double *h,
				    double mx)
{
	for (; j < n; j++) {
		sd[j] = (v[j + 1] - v[j - 1]) / (2 * step);
		d[j] = fabs(sd[j]);
		h[j] += d[j];
		if (j < n - 1 && d[j] > mx)
			mx = d[j];
	}
	return mx;
}

#ifdef FS_LANES_AVX
/* A ray's central differences q_j = (v[j + 1] - v[j - 1]) / (2 step) from
 * j = 1, four radii at a time with AVX while all four lie within the
 * quality's radii 1 .. n - 2 (j + 3 <= n - 2): sd[j] = q_j, d[j] = |q_j|
 * (the sign bit cleared), h[j] += d[j], *m4 the lanes' largest d[j] so
 * far (two_step: 2 step in every lane, mag4 the mask of all but the sign
 * bit). Returns the first j left for the radii made one at a time. Each
 * lane makes the pair loop's quotient, and h gets the rays' steps added
 * in the same order (ray by ray), so the same bits; the maximum of values
 * that are never NAN is the same in any order. The steps were a sixth of
 * every base reading on the 2048 x 1536 lattice (h43f). Inlined in both
 * callers: a call a ray, its set-up and its lanes' maximum taken one lane
 * at a time were a third of the steps' 35 M instructions on the lattice
 * (h49f). */
__attribute__((target("avx"), always_inline)) static inline int ray_quads_steps4(const double *v, int n, v4d two_step,
										  __m256d mag4, double *sd, double *d,
										  double *h, __m256d *m4)
{
	int j = 1;
	for (; j + 4 < n; j += 4) {
		v4d q = (fs_ld4d(v + j + 1) - fs_ld4d(v + j - 1)) / two_step;
		v4d m = (v4d)_mm256_and_pd((__m256d)q, mag4);
		v4d hj = fs_ld4d(h + j) + m;
		memcpy(sd + j, &q, sizeof q);
		memcpy(d + j, &m, sizeof m);
		memcpy(h + j, &hj, sizeof hj);
		*m4 = _mm256_max_pd(*m4, (__m256d)m);
	}
	return j;
}

/* The largest of four lanes, none NAN (any order gives it). */
__attribute__((target("avx"), always_inline)) static inline double max_of4(__m256d m)
{
	__m128d p = _mm_max_pd(_mm256_castpd256_pd128(m), _mm256_extractf128_pd(m, 1));
	return _mm_cvtsd_f64(_mm_max_sd(p, _mm_unpackhi_pd(p, p)));
}

/* ray_quads_steps4 for one ray, *mx raised to its lanes' largest step:
 * pass()'s loop ray by ray (a smoothed pass). */
__attribute__((target("avx"))) static int ray_steps4(const double *v, int n, double step, double *sd, double *d,
						     double *h, double *mx)
{
	v4d two_step = {2 * step, 2 * step, 2 * step, 2 * step};
	__m256d mag4 = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL)), m4 = _mm256_setzero_pd();
	int j = ray_quads_steps4(v, n, two_step, mag4, sd, d, h, &m4);
	double m = max_of4(m4);
	if (m > *mx)
		*mx = m;
	return j;
}

/* An unsmoothed whole pass's steps, every ray in one call: ray_quads_steps4,
 * then the radii left one at a time as pass()'s loops make them (the
 * quotient, its magnitude, h's sums ray by ray, the largest step over
 * radii 1 .. n - 2 into ray_max), so the same values. One call a pass
 * instead of one a ray and the pair loop after it: those were 35 M and
 * 10 M instructions of the 2048 x 1536 lattice (h47f). */
__attribute__((target("avx"))) static void ray_steps_all4(const double raw[NRAYS][NMAX + 1], int n, double step,
							  double sd[NRAYS][NMAX], double d[NRAYS][NMAX],
							  double *h, double *ray_max)
{
	v4d two_step = {2 * step, 2 * step, 2 * step, 2 * step};
	__m256d mag4 = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
	for (int k = 0; k < NRAYS; k++) {
		const double *v = raw[k];
		__m256d m4 = _mm256_setzero_pd();
		d[k][0] = 0;
		int j = ray_quads_steps4(v, n, two_step, mag4, sd[k], d[k], h, &m4);
		/* (the steps are never below +0.0, where mx starts) */
		ray_max[k] = ray_steps_tail(v, j, n, step, sd[k], d[k], h, max_of4(m4));
	}
}
#endif

/* The image along the rays from (xi + x, yi + y) (xi, yi whole pixels, x,
 * y the point's fraction of them, see measure()): raw[k][j] at j * step
 * along ray k, j = ja..jb (0 <= ja, jb <= n; each sample's value is its
 * own, whichever others are read with it, so a part of the rays reads
 * what the whole would there), two samples at a time, each split into pixel and
 * fraction (sample_split); samples inside the image (the last column and
 * row excluded, where fs_image_sample repeats the edge) are read without
 * its clamping: the same values. Why per pair and not per ray: a ray that
 * crosses the border has most of its samples inside, and clamping all of
 * them was a third of the passes' cost on the paper figures, whose domes
 * lie near the border by the dozen. */
static void sample_rays(const fs_image *img, const double *cs, const double *sn, int xi, int yi, double x, double y,
			double step, int n, int ja, int jb, int k0, int k1, double raw[NRAYS][NMAX + 1])
{
	double reach = n * step;
	const float *d = img->data;
	int w = img->width, h = img->height;
	int inside = xi + x - reach >= 0 && yi + y - reach >= 0 && xi + x + reach < w - 1 && yi + y + reach < h - 1;
#ifdef FS_LANES_AVX
	if (fs_cpu_has_avx()) {
		sample_rays4(img, cs, sn, xi, yi, x, y, step, ja, jb, k0, k1, inside, raw);
		return;
	}
#endif
	v2d XI = {xi, xi}, YI = {yi, yi}, W = {w, w}, two = {2, 2};
	/* the cells' limits as doubles: the pixels below are whole numbers,
	 * so comparing them as doubles is comparing the integers */
	double xe = w - 1, ye = h - 1;
	for (int k = k0; k < k1; k++) {
		v2d C = {cs[k], cs[k]}, S = {sn[k], sn[k]}, X = {x, x}, Y = {y, y}, st = {step, step};
		/* jj = {j, j + 1} counted in doubles (whole numbers, exact),
		 * not converted from j every pair */
		v2d jj = {ja, ja + 1};
		int j = ja;
		for (; j + 1 <= jb; j += 2, jj += two) {
			v2d pu = X + C * jj * st, pv = Y + S * jj * st;
			/* the cells' top-left pixels in doubles (whole numbers
			 * below 2^31: the sums and the index y w + x, below
			 * 2^53, are exact), the index converted once a lane:
			 * the integers' work of a pair (two floors taken out
			 * of the lanes, four sums, two products, sign
			 * extensions) was a fifth of a base reading (h40d) */
			v2d fu = fs_floor2d(pu), fv = fs_floor2d(pv);
			v2d ax = XI + fu, ay = YI + fv;
			if (!inside && !(ax[0] >= 0 && ax[1] >= 0 && ay[0] >= 0 && ay[1] >= 0 && ax[0] < xe &&
					 ax[1] < xe && ay[0] < ye && ay[1] < ye)) {
				raw[k][j] = sample_split(img, xi, yi, pu[0], pv[0]);
				raw[k][j + 1] = sample_split(img, xi, yi, pu[1], pv[1]);
				continue;
			}
			v2d fx = pu - fu, fy = pv - fv, at = ay * W + ax;
			v2d p00, p01, p10, p11;
			fs_corners2(d + (long long)at[0], d + (long long)at[1], w, &p00, &p01, &p10, &p11);
			v2d o = fs_bilerp2d(p00, p01, p10, p11, fx, fy);
			memcpy(&raw[k][j], &o, sizeof o);
		}
		for (; j <= jb; j++)
			raw[k][j] = sample_split(img, xi, yi, x + cs[k] * j * step, y + sn[k] * j * step);
	}
}

/* v = t (j = 0..n) convolved with the symmetric kernel kern[0..kr], the
 * ends repeated. The ends are padded once instead of clamping every tap
 * (kr reaches 15, so most samples were near an end); the taps are added
 * in the same order (-kr..kr), so the sums are the same. */
static void smooth_ray(const double *t, int n, const double *kern, int kr, double *v)
{
	double pad[NMAX + 1 + 2 * 15];
	double *c = pad + kr;
	for (int i = 1; i <= kr; i++) {
		c[-i] = t[0];
		c[n + i] = t[n];
	}
	for (int j = 0; j <= n; j++)
		c[j] = t[j];
	double kf[2 * 15 + 1];
	for (int i = -kr; i <= kr; i++)
		kf[i + kr] = kern[i < 0 ? -i : i];
	/* four outputs at a time: four independent chains of additions
	 * instead of one, two of them in the lanes of each vector (each
	 * output's taps still added in their order, one product and one
	 * sum a lane) */
	int j = 0;
	for (; j + 3 <= n; j += 4) {
		v2d a01 = {0, 0}, a23 = {0, 0};
		const double *s = c + j - kr;
		for (int i = 0; i <= 2 * kr; i++) {
			v2d k = {kf[i], kf[i]}, s01, s23;
			memcpy(&s01, s + i, sizeof s01);
			memcpy(&s23, s + i + 2, sizeof s23);
			a01 += k * s01;
			a23 += k * s23;
		}
		memcpy(v + j, &a01, sizeof a01);
		memcpy(v + j + 2, &a23, sizeof a23);
	}
	for (; j <= n; j++) {
		double acc = 0;
		for (int i = 0; i <= 2 * kr; i++)
			acc += kf[i] * c[j - kr + i];
		v[j] = acc;
	}
}

/* The residual of the base's step model at R (px from the rays' picks) on
 * the rays' mean aligned derivative prof[o], o = 0..2m, at (o - m) step:
 * A phi((r - R) / sigma) + c Phi((R - r) / sigma) + e (the step blurred,
 * the signal's slope c inside the base blurred, a constant), least
 * squares in A, c and e; A in *a. INFINITY when the columns are
 * degenerate. */
static double inner_ssr(const double *prof, int m, double step, double sigma, double R, double *a)
{
	double x0[2 * RAMP_MAXM + 1], x1[2 * RAMP_MAXM + 1], ata[3][4];
	int n = 2 * m + 1;
	for (int o = 0; o < n; o++) {
		double u = ((o - m) * step - R) / sigma;
		x0[o] = exp(-0.5 * u * u);
		x1[o] = 0.5 * erfc(u * M_SQRT1_2);
	}
	/* The Gram matrix's sums in one pass, each added in the order o as
	 * before: a product is commutative to the bit (x_i x_k = x_k x_i, so
	 * the lower half is the upper's), and the constant column is exactly
	 * 1 (1 * v = v, so its sums are the plain sums and n). Were nine
	 * loops over the window with three multiplications by 1 (h35d). */
	/* Since h50a the two columns' sums in the lanes of a pair, {x0, x1}
	 * a sample: {s00, s11}, {s0, s1}, {s0p, s1p}, each lane's sum still
	 * added sample by sample in order (the same values; 15,265 fits on
	 * the 2048 x 1536 lattice). */
	v2d q2 = {0, 0}, l2 = {0, 0}, p2 = {0, 0};
	double s01 = 0, sp = 0;
	for (int o = 0; o < n; o++) {
		v2d x = {x0[o], x1[o]}, pr = {prof[o], prof[o]};
		q2 += x * x;
		s01 += x0[o] * x1[o];
		l2 += x;
		p2 += x * pr;
		sp += prof[o];
	}
	double s00 = q2[0], s11 = q2[1], s0 = l2[0], s1 = l2[1], s0p = p2[0], s1p = p2[1];
	ata[0][0] = s00;
	ata[0][1] = ata[1][0] = s01;
	ata[1][1] = s11;
	ata[0][2] = ata[2][0] = s0;
	ata[1][2] = ata[2][1] = s1;
	ata[2][2] = n;
	ata[0][3] = s0p;
	ata[1][3] = s1p;
	ata[2][3] = sp;
	/* Gauss-Jordan without pivoting: the Gram matrix is positive
	 * definite unless the columns are dependent */
	for (int c = 0; c < 3; c++) {
		if (!(fabs(ata[c][c]) > 1e-12))
			return INFINITY;
		for (int i = 0; i < 3; i++) {
			if (i == c)
				continue;
			double f = ata[i][c] / ata[c][c];
			for (int k = c; k < 4; k++)
				ata[i][k] -= f * ata[c][k];
		}
	}
	double co[3], ssr = 0;
	for (int i = 0; i < 3; i++)
		co[i] = ata[i][3] / ata[i][i];
	for (int o = 0; o < n; o++) {
		double e = prof[o] - co[0] * x0[o] - co[1] * x1[o] - co[2];
		ssr += e * e;
	}
	*a = co[0];
	return ssr;
}

/*
 * How far outside the base the rays' steepest steps lie because the
 * dome's own signal changes towards its base (the secant law's rise, a
 * bright rim): blurred by sigma, a step of height A at the base R on a
 * signal whose slope just inside it is c has its steepest point at
 * R - c sigma^2 / A, outside R when the signal rises towards a falling
 * step (signs taken so that the step is positive, c < 0). The base
 * circle's blur model (a step on a flat signal, deblur_tab) has no such
 * term. Measured, not assumed: each ray's derivative signed by its step
 * and aligned at its pick (pick[k], the sub-sample vertex frac[k]), the
 * mean over the rays fitted within 2.5 sigma of the picks by the blurred
 * step plus the blurred inner slope (inner_ssr), R by golden section in
 * [-1.5, 1] sigma; the shift is the picks' mean position minus R. On the
 * simulator from the true centres (64 corner scenes, rays smoothed by
 * 1.2 px under a halftone screen, else not): the
 * base rule's mean D within 3 % in 22 -> 35 scenes, mean |D error| 7.2 ->
 * 5.6 % (fill 0.8, pitch 16: +1.7..+4.0 % -> +0.3..+2.9 %). 0 when sigma
 * is unknown, the window is under 3 samples a side, fewer than half the
 * rays reach it, or the fit finds no step.
 */
#define INNER_GOLDEN_STEPS 12
/* (12 golden steps leave R within 0.0039 sigma; the 24 before cost 12
 * model fits more a reading, 114 M of the dome rule's instructions on the
 * 2048 x 1536 lattice, and bought no scene: h41d.) From this many steps
 * on, R is the vertex of the parabola through the better inner point and
 * its two neighbours wherever the three bracket a minimum with the vertex
 * between them: on 200,000 noisy blurred steps drawn as inner_ssr's model
 * it lies 0.00007 sigma from the residual's minimum on average (the 12
 * steps' middle 0.0011), at most 0.0039 as before, and the search stops
 * 6 steps (and model fits) sooner: inner_ssr 141.2 -> 84.7 M on the
 * lattice, every corner, interior and printed count on 8 seed sets as
 * before (h44f). Where the three do not bracket one (a minimum at the
 * window's end) the golden steps go on, to 12 at most as before.
 * Since h46l the parabola comes after 3 steps and is polished: the
 * residual read at its vertex, and the vertex of the parabola through the
 * least of the four points and its two neighbours is R (the vertex's fit
 * gives the step's sign, no further fit): 6-7 model fits a reading
 * instead of 9-10 (inner_ssr 84.7 -> 56.5 M on the lattice); 3 steps
 * without the polish moved a corner scene's S past 3 % (19: -3.0 ->
 * -3.1 %) and lost the test seeds' floor. */
#define INNER_PARABOLA_AFTER 3

/* The vertex of the parabola through (xa, fa), (xb, fb), (xc, fc), xa <
 * xb < xc, into *v: 1 when fb is the least of the three and the vertex
 * lies strictly between xa and xc, else 0. */
static int vertex3(double xa, double fa, double xb, double fb, double xc, double fc, double *v)
{
	if (!(isfinite(fa) && isfinite(fb) && isfinite(fc) && fb <= fa && fb <= fc))
		return 0;
	double ua = (xb - xa) * (fb - fc), uc = (xb - xc) * (fb - fa), den = ua - uc;
	if (den == 0)
		return 0;
	double u = xb - 0.5 * ((xb - xa) * ua - (xb - xc) * uc) / den;
	if (!(u > xa && u < xc))
		return 0;
	*v = u;
	return 1;
}

/* The step model on one mean derivative (inner_ssr's arguments) and how
 * many times it was fitted (fs_dome_inner_step_fit reports it). */
typedef struct inner_fit {
	const double *prof;
	int m;
	double step, sigma;
	int fits;
} inner_fit;

static double fit_at(inner_fit *f, double R, double *a)
{
	f->fits++;
	return inner_ssr(f->prof, f->m, f->step, f->sigma, R, a);
}

/* The parabola's vertex through (lo, p, q) when fp < fq, else through
 * (p, q, hi), into *R (vertex3); the three points and residuals into
 * t[0..5] (x, f in turn). An end's residual not yet read (NAN) is read
 * and kept in *flo / *fhi. */
static int parabola_vertex_at(inner_fit *f, double lo, double p, double q, double hi, double fp, double fq,
			      double *flo, double *fhi, double *R, double t[6])
{
	double a;
	if (fp < fq) {
		if (isnan(*flo))
			*flo = fit_at(f, lo, &a);
		t[0] = lo, t[1] = *flo, t[2] = p, t[3] = fp, t[4] = q, t[5] = fq;
	} else {
		if (isnan(*fhi))
			*fhi = fit_at(f, hi, &a);
		t[0] = p, t[1] = fp, t[2] = q, t[3] = fq, t[4] = hi, t[5] = *fhi;
	}
	return vertex3(t[0], t[1], t[2], t[3], t[4], t[5], R);
}

/* R by the golden section and the parabola's polish (above) into *R:
 * 0, or -1 where the fit finds no step (A not positive, a residual not
 * finite). */
static int inner_search(inner_fit *f, double *R)
{
	double sigma = f->sigma;
	const double gr = 0.5 * (sqrt(5) - 1);
	double lo = -1.5 * sigma, hi = sigma, a;
	double p = hi - gr * (hi - lo), q = lo + gr * (hi - lo);
	double fp = fit_at(f, p, &a), fq = fit_at(f, q, &a);
	/* the ends' residuals, as the search learns them (NAN: not read) */
	double flo = NAN, fhi = NAN, t[6];
	for (int it = 0;; it++) {
		if (it >= INNER_PARABOLA_AFTER && parabola_vertex_at(f, lo, p, q, hi, fp, fq, &flo, &fhi, R, t)) {
			/* the polish: the residual at the vertex, then the
			 * parabola through the least of the four points and
			 * its two neighbours (the vertex's fit gives A's
			 * sign) */
			double fv = fit_at(f, *R, &a), x4[4], f4[4], v;
			int left = *R < t[2];
			x4[0] = t[0], f4[0] = t[1], x4[3] = t[4], f4[3] = t[5];
			x4[1] = left ? *R : t[2], f4[1] = left ? fv : t[3];
			x4[2] = left ? t[2] : *R, f4[2] = left ? t[3] : fv;
			int i = f4[1] <= f4[2] ? 1 : 2;
			if (vertex3(x4[i - 1], f4[i - 1], x4[i], f4[i], x4[i + 1], f4[i + 1], &v))
				*R = v;
			return isfinite(fv) && a > 0 ? 0 : -1;
		}
		if (it == INNER_GOLDEN_STEPS) {
			*R = 0.5 * (lo + hi);
			break;
		}
		if (fp < fq) {
			hi = q;
			fhi = fq;
			q = p;
			fq = fp;
			p = hi - gr * (hi - lo);
			fp = fit_at(f, p, &a);
		} else {
			lo = p;
			flo = fp;
			p = q;
			fp = fq;
			q = lo + gr * (hi - lo);
			fq = fit_at(f, q, &a);
		}
	}
	return isfinite(fit_at(f, *R, &a)) && a > 0 ? 0 : -1;
}

int fs_dome_inner_step_fit(const double *prof, int m, double step, double sigma, double *R, int *fits)
{
	inner_fit f = {prof, m, step, sigma, 0};
	int rc = m >= 3 && m <= RAMP_MAXM && sigma > 0 && step > 0 ? inner_search(&f, R) : -1;
	if (fits)
		*fits = f.fits;
	return rc;
}

static double inner_shift(const double sd[NRAYS][NMAX], const int *pick, const double *frac, int n, double step,
			  double sigma, const unsigned char *skip, double *sig_fit)
{
	if (sig_fit)
		*sig_fit = NAN;
	if (!(sigma > 0))
		return 0;
	double smax = sig_fit ? FREE_SIGMA_HI * sigma : sigma;
	int m = (int)ceil(2.5 * smax / step);
	if (m > RAMP_MAXM)
		m = RAMP_MAXM;
	if (m < 3)
		return 0;
	double prof[2 * RAMP_MAXM + 1] = {0}, fr = 0;
	int nr = 0;
	int nall = NRAYS;
	if (skip) {
		for (int k = 0; k < NRAYS; k++)
			nall -= skip[k] != 0;
	}
	for (int k = 0; k < NRAYS; k++) {
		if ((skip && skip[k]) || pick[k] - m < 1 || pick[k] + m > n - 1)
			continue;
		double sg = sd[k][pick[k]] >= 0 ? 1 : -1;
		/* two radii at a time, each lane prof's own sum over the rays
		 * in their order: the same values (h51b: the one-at-a-time loop
		 * was 9.8 M instructions of the 2048 x 1536 lattice) */
		const double *s = sd[k] + pick[k] - m;
		v2d SG = {sg, sg};
		int o = 0;
		for (; o + 1 <= 2 * m; o += 2) {
			v2d p, q;
			memcpy(&p, prof + o, sizeof p);
			memcpy(&q, s + o, sizeof q);
			p += SG * q;
			memcpy(prof + o, &p, sizeof p);
		}
		for (; o <= 2 * m; o++)
			prof[o] += sg * s[o];
		fr += frac[k];
		nr++;
	}
	if (nr < nall / 2)
		return 0;
	for (int o = 0; o <= 2 * m; o++)
		prof[o] /= nr;
	fr /= nr;
	double R;
	if (!sig_fit) {
		inner_fit f = {prof, m, step, sigma, 0};
		if (inner_search(&f, &R))
			return 0;
		return fr * step - R;
	}
	/* the blur free too: the width the picks show is the step's narrowed
	 * by the inner slope (h49b) */
	double best = INFINITY, rb = NAN, sb = NAN;
	for (int i = 0; i < FREE_SIGMA_N; i++) {
		double s = sigma * (FREE_SIGMA_LO + (FREE_SIGMA_HI - FREE_SIGMA_LO) * i / (FREE_SIGMA_N - 1)), a;
		inner_fit f = {prof, m, step, s, 0};
		if (inner_search(&f, &R))
			continue;
		double e = inner_ssr(prof, m, step, s, R, &a);
		if (e < best) {
			best = e;
			rb = R;
			sb = s;
		}
	}
	if (!isfinite(rb))
		return 0;
	*sig_fit = sb;
	return fr * step - rb;
}

/* What inner_shift reads of a pass: the rays' signed derivatives, picks
 * and the blur (kept by the pass, read once after the last one). */
typedef struct ray_picks {
	double sd[NRAYS][NMAX];
	double frac[NRAYS];
	int pick[NRAYS];
	int n;
	double step, sigma;
	int edge; /* the summed step's peak outside the window: -1 below, 1 beyond */
	double blur; /* the pass's ridge blur (0: none; inner_shift's sigma then from kappa) */
	double *rr; /* NULL, or where a trace keeps each ray's radius after the ridge model */
} ray_picks;

/* What the blur of a pass's steps is read from: each ray's derivative at
 * its pick and the two radii beside it. The median curvature (kappa_of)
 * is wanted of the last pass only, unless the ridge model takes it into
 * the next pass: kept here and worked out when wanted, not in every pass
 * (three logs a ray, and a median; h35d). */
typedef struct step_widths {
	double d3[NRAYS][3];
	double step;
	int valid; /* a pass reached its picks */
} step_widths;

/* A ray's curvature of the log step profile at its pick, as kappa_of
 * has always computed it (three logs). */
static double log_curv(const double *d)
{
	return log(d[0]) - 2 * log(d[1]) + log(d[2]);
}

/* The median over the rays of the curvature of the log step profile at
 * its peak (1 / sigma^2 for a blurred straight step), NAN when fewer than
 * half the rays show one or no pass reached its picks: the rays whose
 * curvature is below 0, and the one at rank nk / 2 of their -c2 / step^2. */
static double kappa_exact(const step_widths *w)
{
	double kk[NRAYS], step = w->step;
	int nk = 0;
	for (int k = 0; k < NRAYS; k++) {
		const double *d = w->d3[k];
		if (d[0] > 0 && d[1] > 0 && d[2] > 0) {
			double c2 = log_curv(d);
			if (c2 < 0)
				kk[nk++] = -c2 / (step * step);
		}
	}
	return nk >= NRAYS / 2 ? kth_few(kk, nk, nk / 2) : NAN;
}

/* How far one log of a ratio, log(d0 d2 / (d1 d1)), may lie from
 * log_curv's three logs for d within KAPPA_RANGE of 1: each log is within
 * an ulp of its value (at most 116 in size), the sums and the ratio's
 * products add a few ulps more, about 2 10^-13 in all; the gap is some
 * 500 times that. */
#define KAPPA_GAP 1e-10
#define KAPPA_RANGE 1e50

/* kappa_exact's value to the bit with one log a ray for most rays
 * (h44f: the three logs a ray were 28.8 M instructions on the 2048 x
 * 1536 lattice). The one-log curvature a[k] decides a ray's sign and
 * rank wherever it lies more than KAPPA_GAP from 0 and from the median's
 * own; the rays within the gap of either are given log_curv's value, and
 * the median is taken among those near it, the rays below them counted.
 * (Order statistics move by no more than their values do, so the exact
 * median lies within the gap of the one-log one; a monotone map, -c2 /
 * step^2, keeps the ranks.) Anything the gaps do not settle falls back to
 * kappa_exact. */
static double kappa_of(const step_widths *w)
{
	if (!w->valid)
		return NAN;
	double a[NRAYS], ex[NRAYS];
	int in[NRAYS], known[NRAYS], nk = 0;
	for (int k = 0; k < NRAYS; k++) {
		const double *d = w->d3[k];
		in[k] = known[k] = 0;
		if (!(d[0] > 0 && d[1] > 0 && d[2] > 0))
			continue;
		int ranged = d[0] > 1 / KAPPA_RANGE && d[0] < KAPPA_RANGE && d[1] > 1 / KAPPA_RANGE &&
			     d[1] < KAPPA_RANGE && d[2] > 1 / KAPPA_RANGE && d[2] < KAPPA_RANGE;
		a[k] = ranged ? log(d[0] * d[2] / (d[1] * d[1])) : NAN;
		if (!isfinite(a[k]) || fabs(a[k]) <= KAPPA_GAP) {
			ex[k] = log_curv(d);
			known[k] = 1;
			if (!isfinite(ex[k]))
				return kappa_exact(w);
			a[k] = ex[k];
			in[k] = ex[k] < 0;
		} else {
			in[k] = a[k] < 0;
		}
		nk += in[k];
	}
	if (nk < NRAYS / 2)
		return NAN;
	int r = nk / 2;
	/* rank r of -c2 ascending is rank r of c2 descending: the one-log
	 * value there */
	double b[NRAYS];
	int nb = 0;
	for (int k = 0; k < NRAYS; k++)
		if (in[k])
			b[nb++] = -a[k];
	double br = kth_few(b, nb, r);
	/* the rays that may hold the exact median, read exactly; those
	 * below them counted */
	double near[NRAYS];
	int nn = 0, below = 0;
	for (int k = 0; k < NRAYS; k++) {
		if (!in[k])
			continue;
		if (-a[k] < br - 2 * KAPPA_GAP) {
			below++;
			continue;
		}
		if (-a[k] > br + 2 * KAPPA_GAP)
			continue;
		if (!known[k]) {
			ex[k] = log_curv(w->d3[k]);
			known[k] = 1;
		}
		near[nn++] = -ex[k];
	}
	if (r - below < 0 || r - below >= nn)
		return kappa_exact(w);
	double c2 = -kth_few(near, nn, r - below);
	return -c2 / (w->step * w->step);
}

#ifdef FS_LANES_AVX
/* lean_steps' loop over the rays with AVX, four radii at a time (each lane
 * ray_steps4's quotient and magnitude, h's sums in the same order), the
 * radii left one at a time as lean_steps' plain loop makes them; with_h
 * a constant at each call (span_steps4): whether h gets the sums. */
__attribute__((target("avx"), always_inline)) static inline void span_steps4_h(const double raw[NRAYS][NMAX + 1],
										int a, int b, int k0, int k1,
										double step, double d[NRAYS][NMAX],
										double *h, const int with_h)
{
	v4d two_step = {2 * step, 2 * step, 2 * step, 2 * step};
	__m256d mag4 = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
	/* every ray in one call, ray by ray (h's sums in their order): a
	 * call a ray was a fifth of the lean steps' 27 M instructions on the
	 * 2048 x 1536 lattice (h47f) */
	for (int k = k0; k < k1; k++) {
		const double *v = raw[k];
		double *dk = d[k];
		int j = a;
		for (; j + 3 <= b; j += 4) {
			v4d q = (fs_ld4d(v + j + 1) - fs_ld4d(v + j - 1)) / two_step;
			v4d m = (v4d)_mm256_and_pd((__m256d)q, mag4);
			memcpy(dk + j, &m, sizeof m);
			if (with_h) {
				v4d hj = fs_ld4d(h + j) + m;
				memcpy(h + j, &hj, sizeof hj);
			}
		}
		for (; j <= b; j++) {
			dk[j] = fabs((v[j + 1] - v[j - 1]) / (2 * step));
			if (with_h)
				h[j] += dk[j];
		}
	}
}

/* span_steps4_h with h's test made once a call, not once a radius (h49f:
 * 3.8 M instructions of the lattice's lean passes) */
__attribute__((target("avx"))) static void span_steps4(const double raw[NRAYS][NMAX + 1], int a, int b, int k0,
							int k1, double step, double d[NRAYS][NMAX], double *h)
{
	if (h)
		span_steps4_h(raw, a, b, k0, k1, step, d, h, 1);
	else
		span_steps4_h(raw, a, b, k0, k1, step, d, NULL, 0);
}
#endif

#ifdef FS_LANES_AVX
/* pass()'s picks with AVX, four rays at a time (a ray to a lane): each
 * lane the plain loop's product d * wt, its strictly-greater test and its
 * first radius holding the largest, so the same picks. Four rays' steps
 * at one radius are gathered from four rows; across the radii instead the
 * lanes' join cost more than the 9 instructions a product of the plain
 * loop (h46o), across the rays there is no join. The picks were 39 M
 * instructions of the 2048 x 1536 lattice (h47f). */
__attribute__((target("avx"))) static void window_picks4(const double d[NRAYS][NMAX], const double *wt, int w0,
							  int w1, int nr, int *jbs)
{
	for (int k = 0; k < nr; k += 4) {
		__m256d sb = _mm256_set1_pd(-1), jb = _mm256_set1_pd(w0), jv = jb, one = _mm256_set1_pd(1);
		for (int j = w0; j <= w1; j++, jv = _mm256_add_pd(jv, one)) {
			__m256d dv = _mm256_set_pd(d[k + 3][j], d[k + 2][j], d[k + 1][j], d[k][j]);
			__m256d sc = _mm256_mul_pd(dv, _mm256_set1_pd(wt[j]));
			/* (masks, not blendv: GCC 12 takes blendv apart lane
			 * by lane here; max_pd(sc, sb) is sc where sc > sb, d
			 * is never NAN) */
			__m256d gt = _mm256_cmp_pd(sc, sb, _CMP_GT_OQ);
			sb = _mm256_max_pd(sc, sb);
			jb = _mm256_or_pd(_mm256_and_pd(gt, jv), _mm256_andnot_pd(gt, jb));
		}
		double o[4];
		_mm256_storeu_pd(o, jb);
		for (int l = 0; l < 4; l++)
			jbs[k + l] = (int)o[l];
	}
}
#endif

static int lean_forbidden; /* fs_dome_forbid_lean */
static int keep_rays_forbidden; /* fs_dome_forbid_keep_rays */
static int lean_half; /* fs_dome_set_lean_half */
static int frame_snap = 1; /* fs_dome_set_frame_snap */
static double lit_cap = FS_DOME_LIT_CAP; /* fs_dome_set_lit_cap */

double fs_dome_set_lit_cap(double px)
{
	double was = lit_cap;
	lit_cap = px >= 0 ? px : NAN;
	return was;
}

/* The near-half circle's centre (cx, cy) moved back along the detector's
 * axis (ca, sa) to at most lit_cap px towards the detector from the
 * reading's start (x0, y0), the radius then the kept points' mean distance
 * from it. Why: over the near half a lit excess d cos^2 and a centre
 * shift towards the detector are nearly one column (h49q: the centre
 * +1.12 d, the radius -0.21 d), so a free centre takes the lit foot's
 * excess and the radius reads only what the side feet read; a shift
 * beyond the bound is taken as that excess, not as the dome's centre.
 * Returns 0, or -1 when no point is kept. */
static int lit_centre_capped(double x0, double y0, double cap, double ca, double sa, const double *px, const double *py,
			     const int *use, int nr, double *cx, double *cy, double *r)
{
	double a = (*cx - x0) * ca + (*cy - y0) * sa;
	if (!(a > cap))
		return 0; /* (also when the cap is off: NAN) */
	double m = a - cap;
	*cx -= m * ca;
	*cy -= m * sa;
	double sum = 0;
	int n = 0;
	for (int k = 0; k < nr; k++)
		if (use[k]) {
			sum += hypot(px[k] - *cx, py[k] - *cy);
			n++;
		}
	if (!n)
		return -1;
	*r = sum / n;
	return 0;
}

int fs_dome_set_frame_snap(int on)
{
	return __atomic_exchange_n(&frame_snap, on != 0, __ATOMIC_RELAXED);
}

/* v onto [0, hi] when it lies outside by at most FS_DOME_FRAME_SNAP (the
 * frame's edge), else v as it is (NaN too) */
static double frame_snapped(double v, double hi)
{
	if (v < 0 && v >= -FS_DOME_FRAME_SNAP)
		return 0;
	if (v > hi && v <= hi + FS_DOME_FRAME_SNAP)
		return hi;
	return v;
}

int fs_dome_set_lean_half(int mode)
{
	if (mode != FS_DOME_LEAN_ALL && mode != FS_DOME_LEAN_HALF_RAYS && mode != FS_DOME_LEAN_HALF_SUM &&
	    mode != FS_DOME_LEAN_HALF_LEVEL)
		return -1;
	__atomic_store_n(&lean_half, mode, __ATOMIC_RELAXED);
	return 0;
}

int fs_dome_lean_half(void)
{
	return __atomic_load_n(&lean_half, __ATOMIC_RELAXED);
}

void fs_dome_forbid_lean(int on)
{
	__atomic_store_n(&lean_forbidden, on != 0, __ATOMIC_RELAXED);
}

void fs_dome_forbid_keep_rays(int on)
{
	__atomic_store_n(&keep_rays_forbidden, on != 0, __ATOMIC_RELAXED);
}

/* The outlier bar's floor (px): a ray whose edge point lies within it of
 * the fitted circle is kept whatever the residuals' median. */
#define KEEP_ALL 0.25
/* How far from the outlier bar a residual read with sqrt must lie,
 * relative to r + 1 + the largest residual, for pass()'s hypot residual to
 * lie on the same side: hypot and sqrt of the summed squares are each
 * within an ulp or two of the distance, the median and the bar move no
 * more than the residuals do (times 4.45), some 10^-14 of it in all; this
 * gap is 10^5 times that. */
#define KEEP_GAP 1e-9

/* The outlier bar on nr (even) residuals (tmp, reordered): 3 x 1.4826 x
 * their median, KEEP_ALL at least. The median is the mean of the two
 * middle values: the lower one selected, the upper one the least of those
 * above it. */
static double keep_bar(double *tmp, int nr)
{
	double lo_mid = kth_few(tmp, nr, nr / 2 - 1), hi_mid = tmp[nr / 2];
	for (int k = nr / 2 + 1; k < nr; k++)
		if (tmp[k] < hi_mid)
			hi_mid = tmp[k];
	return fmax(3 * 1.4826 * (0.5 * (lo_mid + hi_mid)), KEEP_ALL);
}

/* pass()'s kept rays (use[k], the residual |distance - r| within
 * max(3 * 1.4826 MAD, KEEP_ALL)) told from the residuals read with sqrt
 * instead of hypot, the median not looked for where every residual lies
 * within KEEP_ALL: the count kept, or -1 where a residual lies within
 * KEEP_GAP of the bar (or one is not finite), and pass() then reads them
 * with hypot as before. */
static int keep_rays(const double *px, const double *py, double cx, double cy, double r, int nr, int *use)
{
	if (__atomic_load_n(&keep_rays_forbidden, __ATOMIC_RELAXED) || !(r > 0))
		return -1;
	double res[NRAYS], top = 0;
	/* two rays at a time, each lane the scalar expression (fs_sqrt2d,
	 * fabs as the sign bit masked): the same
	 * residuals (h50a: every pass, 11,772 on the 2048 x 1536 lattice) */
	v2d C = {cx, cx}, D = {cy, cy}, R = {r, r};
	int k = 0;
	for (; k + 1 < nr; k += 2) {
		v2d u, v;
		memcpy(&u, px + k, sizeof u);
		memcpy(&v, py + k, sizeof v);
		u -= C;
		v -= D;
		v2d e = fs_sqrt2d(u * u + v * v) - R;
		e = (v2d)((v2i)e & mag);
		memcpy(res + k, &e, sizeof e);
	}
	for (; k < nr; k++) {
		double u = px[k] - cx, v = py[k] - cy;
		res[k] = fabs(sqrt(u * u + v * v) - r);
	}
	for (k = 0; k < nr; k++)
		if (!(res[k] <= top))
			top = res[k];
	if (!isfinite(top))
		return -1;
	double gap = KEEP_GAP * (r + 1 + top), bar = KEEP_ALL;
	if (top > KEEP_ALL - gap) {
		double tmp[NRAYS];
		memcpy(tmp, res, sizeof tmp);
		bar = keep_bar(tmp, nr);
	}
	int kept = 0;
	for (int k = 0; k < nr; k++) {
		if (fabs(res[k] - bar) <= gap)
			return -1;
		use[k] = res[k] < bar;
		kept += use[k];
	}
	return kept;
}

/* A lean pass's steps (see pass()): d[k][j] = |v[j + 1] - v[j - 1]| /
 * (2 step) of the raw rays k0 .. k1 - 1 for j = a..b (1 <= a, b <= n - 1), added into
 * h[j] ray after ray unless h is NULL - the quotient, its magnitude and
 * the sums of the whole pass's loops (ray_steps4 and the pair loop), so
 * the same values where both make them. The samples a - 1 .. b + 1 are
 * read, rounded up to whole quads where the rays reach (one more sample
 * in a quad costs less than one read alone, sample_rays4). */
static void lean_steps(const fs_image *img, const double *cs, const double *sn, int xi, int yi, double x, double y,
		       double step, int n, int a, int b, int k0, int k1, double raw[NRAYS][NMAX + 1],
		       double d[NRAYS][NMAX], double *h)
{
	int sa = a - 1, sb = sa + (b - a + 3 + 3) / 4 * 4 - 1;
	if (sb > n)
		sb = n;
	sample_rays(img, cs, sn, xi, yi, x, y, step, n, sa, sb, k0, k1, raw);
#ifdef FS_LANES_AVX
	if (fs_cpu_has_avx()) {
		span_steps4(raw, a, b, k0, k1, step, d, h);
		return;
	}
#endif
	double two_step = 2 * step;
	for (int k = k0; k < k1; k++)
		for (int j = a; j <= b; j++) {
			d[k][j] = fabs((raw[k][j + 1] - raw[k][j - 1]) / two_step);
			if (h)
				h[j] += d[k][j];
		}
}

/* One pass from (xi + x, yi + y): edge radius per ray (rad), the fitted
 * centre (relative to xi, yi as x, y are) and the quality; with rp not
 * NULL, what inner_shift needs of the rays' picks there. Returns -1 when
 * the image is flat around the point. The summed step is read from the
 * first hr rays, the picks, widths and circle from the first nr (pass():
 * all of them, but in a lean pass with half, one of
 * fs_dome_set_lean_half's modes, cs and sn then the half-first table
 * ray_dirs_half, the even directions first: the summed step from NRAYS / 2
 * rays, and with FS_DOME_LEAN_HALF_RAYS its picks, widths and circle too,
 * rad and widths->d3 then holding those rays only). */
__attribute__((always_inline)) static inline int pass_rays(const fs_image *img, const double *cs, const double *sn,
							   int xi, int yi, double x, double y, double rmin, double rmax,
							   double smooth, int outer, double blur, double sw, int lean,
							   double faz, double x0, double y0, double cap, double *rad,
							   double *ncx, double *ncy, double *quality, step_widths *widths,
							   ray_picks *rp, const int nr, const int hr)
{
	double reach = 1.3 * rmax;
	double step = fmax(0.35, reach / (NMAX - 2));
	int n = (int)ceil(reach / step) + 1;
	if (n > NMAX)
		n = NMAX;
	/* the signed derivatives go straight into rp when it is given (the
	 * last pass's are what inner_shift reads; a failed pass fails the
	 * measurement), not into a copy made after every pass (h35d) */
	double d[NRAYS][NMAX], sd_own[NRAYS][NMAX];
	double(*sd)[NMAX] = rp ? rp->sd : sd_own;
	double h[NMAX];
	memset(h, 0, sizeof h);
	/* Smoothing along the rays (a 1-D Gaussian of sigma smooth px) and
	 * across them (the mean of three neighbouring rays): the dots of a
	 * printed halftone are texture, the base is a circle. */
	double kern[16];
	int kr = 0;
	if (smooth > 0) {
		kr = (int)ceil(2.5 * smooth / step);
		if (kr > 15)
			kr = 15;
		double ks = 0;
		for (int i = 0; i <= kr; i++) {
			kern[i] = exp(-0.5 * (i * step / smooth) * (i * step / smooth));
			ks += i ? 2 * kern[i] : kern[i];
		}
		for (int i = 0; i <= kr; i++)
			kern[i] /= ks;
	}
	double raw[NRAYS][NMAX + 1];
	/* each ray's largest step over radii 1 .. n - 2 (the quality's
	 * denominator), taken while its steps are made: a second loop over
	 * every ray's steps for it was 2 % of the readings (h42f). d is never
	 * NAN, so the maximum is the same in any order. */
	double ray_max[NRAYS];
#ifdef FS_LANES_AVX
	int avx = fs_cpu_has_avx();
#endif
	/* Lean (a pass that only moves the start, measure()): unsmoothed,
	 * no ridge, no outermost step, no picks kept (rp NULL). Its centre
	 * reads the summed step over j0 - 1 .. j1 + 1 (the peak and the
	 * vertex beside it) and each ray's steps within the picks' window
	 * +-1; the rest of the rays (the centre's first radii and the reach
	 * beyond 1.25 of the circle, a third of the samples on the 2048 x
	 * 1536 lattice) serves only the quality and the window's edge, which
	 * a pass that is not the last does not give. Every step it makes is
	 * the whole pass's, so its centre is too. */
	int lj0 = (int)ceil(rmin / step), lj1 = (int)floor(rmax / step);
	if (lean) {
		if (lj0 < 1)
			lj0 = 1;
		if (lj1 > n - 2)
			lj1 = n - 2;
		if (lj1 < lj0)
			return -1;
		for (int k = 0; k < NRAYS; k++)
			d[k][0] = 0;
		lean_steps(img, cs, sn, xi, yi, x, y, step, n, lj0 - 1 < 1 ? 1 : lj0 - 1, lj1 + 1, 0, hr, raw, d, h);
	} else {
		sample_rays(img, cs, sn, xi, yi, x, y, step, n, 0, n, 0, NRAYS, raw);
#ifdef FS_LANES_AVX
		if (avx && !kr)
			ray_steps_all4(raw, n, step, sd, d, h, ray_max);
		else
#endif
		for (int k = 0; k < NRAYS; k++) {
			/* unsmoothed, the ray is read where it was sampled (no copy) */
			double vs[NMAX + 1];
			const double *v = raw[k];
			if (kr) {
				int k0 = (k + NRAYS - 1) % NRAYS, k1 = (k + 1) % NRAYS;
				double t[NMAX + 1];
				/* two radii at a time, each lane the same sums */
				v2d half = {0.5, 0.5}, quarter = {0.25, 0.25};
				int j = 0;
				for (; j + 1 <= n; j += 2) {
					v2d r, r0, r1;
					memcpy(&r, &raw[k][j], sizeof r);
					memcpy(&r0, &raw[k0][j], sizeof r0);
					memcpy(&r1, &raw[k1][j], sizeof r1);
					v2d tj = half * r + quarter * (r0 + r1);
					memcpy(t + j, &tj, sizeof tj);
				}
				for (; j <= n; j++)
					t[j] = 0.5 * raw[k][j] + 0.25 * (raw[k0][j] + raw[k1][j]);
				smooth_ray(t, n, kern, kr, vs);
				v = vs;
			}
			d[k][0] = 0;
			/* two radii at a time: the same quotient in each lane, fabs as
			 * the sign bit cleared by a mask */
			v2d two_step = {2 * step, 2 * step}, m2 = {0, 0};
			double mx = 0;
			int j = 1;
	#ifdef FS_LANES_AVX
			if (avx)
				j = ray_steps4(v, n, step, sd[k], d[k], h, &mx);
	#endif
			for (; j + 1 < n; j += 2) {
				v2d a, b, hj;
				memcpy(&a, v + j + 1, sizeof a);
				memcpy(&b, v + j - 1, sizeof b);
				memcpy(&hj, h + j, sizeof hj);
				v2d q = (a - b) / two_step;
				v2d m = (v2d)((v2i)q & mag);
				memcpy(&sd[k][j], &q, sizeof q);
				memcpy(&d[k][j], &m, sizeof m);
				hj += m;
				memcpy(h + j, &hj, sizeof hj);
				/* (radius n - 1, the last pair's second lane, is not
				 * the quality's) */
				if (j + 2 < n)
					m2 = fs_max2(m2, m);
				else if (m[0] > mx)
					mx = m[0];
			}
			mx = ray_steps_tail(v, j, n, step, sd[k], d[k], h, mx);
			if (m2[0] > mx)
				mx = m2[0];
			if (m2[1] > mx)
				mx = m2[1];
			ray_max[k] = mx;
		}
	}
	int j0 = (int)ceil(rmin / step), j1 = (int)floor(rmax / step);
	if (j0 < 1)
		j0 = 1;
	if (j1 > n - 2)
		j1 = n - 2;
	if (j1 < j0)
		return -1;
	int js = j0;
	for (int j = j0; j <= j1; j++)
		if (h[j] > h[js])
			js = j;
	/* Not > 0: on a flat patch the bilinear weights' rounding leaves
	 * steps of about 1e-17 (the samples are split into pixel and fraction,
	 * sample_split), and their ties made a perfectly flat image read as a
	 * dome (quality 0.67). The smallest real step, one 16-bit level over
	 * two samples, sums to far more than this over the rays. */
	if (!(h[js] > 1e-9))
		return -1;
	/* The base is the outermost strong step: a steep dome shows a thin
	 * bright (or dark) ring just inside its base, whose inner flank is as
	 * strong as the outer one. */
	for (int j = j1; outer && j > js; j--) {
		if (h[j] >= 0.5 * h[js] && h[j] >= h[j - 1] && h[j] >= h[j + 1]) {
			js = j;
			break;
		}
	}
	/* the sum still rising past the window's end, its peak (the vertex
	 * through the samples beyond) outside [rmin, rmax]: the reading is
	 * the window's, not the dome's; a peak between rmin and the first
	 * sample (or rmax and the last) is inside */
	int edge = 0;
	if (lean) {
		/* (the window's edge is the last pass's) */
	} else if (js == j0 && h[j0 - 1] > h[j0]) {
		double o = j0 >= 2 ? fs_parabola_vertex(h[j0 - 2], h[j0 - 1], h[j0]) : 0;
		edge = (j0 - 1 + o) * step < rmin ? -1 : 0;
	} else if (js == j1 && h[j1 + 1] > h[j1]) {
		double o = j1 + 2 <= n - 1 ? fs_parabola_vertex(h[j1], h[j1 + 1], h[j1 + 2]) : 0;
		edge = (j1 + 1 + o) * step > rmax ? 1 : 0;
	}
	double rs = (js + fs_parabola_vertex(h[js - 1], h[js], h[js + 1])) * step;
	double on = 0, best = 0, frac[NRAYS];
	int pick[NRAYS];
	int w0 = (int)floor(0.75 * rs / step), w1 = (int)ceil(1.25 * rs / step);
	if (w0 < 1)
		w0 = 1;
	if (w1 > n - 2)
		w1 = n - 2;
	/* (a lean pass's window reaching past the summed step's radii: the
	 * rays' steps there too; the rays picked but not summed, their steps
	 * in the window alone) */
	if (lean && (w0 - 1 < lj0 - 1 || w1 + 1 > lj1 + 1))
		lean_steps(img, cs, sn, xi, yi, x, y, step, n, w0 - 1 < 1 ? 1 : w0 - 1, w1 + 1, 0, nr, raw, d, NULL);
	else if (lean && nr > hr)
		lean_steps(img, cs, sn, xi, yi, x, y, step, n, w0 - 1 < 1 ? 1 : w0 - 1, w1 + 1, hr, nr, raw, d, NULL);
	/* the weight depends on the radius only: one exp per radius, not
	 * per ray and radius (it was a fifth of the pass) */
	double wt[NMAX];
	for (int j = w0; j <= w1; j++) {
		double u = sw > 0 ? (j * step - rs) / (sw * rs) : 0;
		wt[j] = exp(-0.5 * u * u);
	}
	/* the strongest step of each ray, weighed by its distance from the
	 * common circle: between close domes (fill 0.8: a gap of a quarter
	 * radius) the neighbour's base lies in the window too, often as
	 * strong */
	int jbs[NRAYS];
#ifdef FS_LANES_AVX
	if (avx)
		window_picks4(d, wt, w0, w1, nr, jbs);
	else
#endif
		for (int k = 0; k < nr; k++) {
			int jb = w0;
			double sb = -1;
			for (int j = w0; j <= w1; j++) {
				double sc = d[k][j] * wt[j];
				if (sc > sb) {
					sb = sc;
					jb = j;
				}
			}
			jbs[k] = jb;
		}
	for (int k = 0; k < nr; k++) {
		int jb = jbs[k];
		rad[k] = (jb + fs_parabola_vertex(d[k][jb - 1], d[k][jb], d[k][jb + 1])) * step;
		pick[k] = jb;
		frac[k] = rad[k] / step - jb;
		/* the step's width at its peak: the blur as this edge shows it
		 * (kappa_of) */
		widths->d3[k][0] = d[k][jb - 1];
		widths->d3[k][1] = d[k][jb];
		widths->d3[k][2] = d[k][jb + 1];
		/* A ridge, not a step: a steep dome's rim (bright facing the
		 * detector, dark facing away) is a band of width w just inside
		 * the base; blurred, its outer flank lies about sigma - w / 2
		 * beyond the base, and an opposite flank as strong lies inside
		 * within 3 sigma. The band's outer end is then its middle plus
		 * w / 2, with w = sqrt(D^2 - 4 sigma^2) from the flanks'
		 * distance D (a blurred box: D -> 2 sigma as w -> 0, D -> w
		 * for w >> sigma). */
		if (blur > 0) {
			double so = sd[k][jb];
			int lo = jb - (int)ceil(3 * blur / step);
			if (lo < 1)
				lo = 1;
			int ji = -1;
			for (int j = jb - 1; j >= lo; j--) {
				if (sd[k][j] * so >= 0)
					continue;
				if (ji < 0 || d[k][j] > d[k][ji])
					ji = j;
			}
			if (ji > 0 && d[k][ji] >= 0.5 * d[k][jb] && d[k][ji] >= d[k][ji - 1] &&
			    d[k][ji] >= d[k][ji + 1]) {
				double ri = (ji + fs_parabola_vertex(d[k][ji - 1], d[k][ji], d[k][ji + 1])) * step;
				double D = rad[k] - ri;
				double w = sqrt(fmax(0, D * D - 4 * blur * blur));
				rad[k] = 0.5 * (rad[k] + ri) + 0.5 * w;
			}
		}
		on += d[k][jb];
		if (!lean)
			best += ray_max[k];
	}
	*quality = lean ? NAN : best > 0 ? on / best : 0;
	widths->step = step;
	widths->valid = 1;
	if (rp) {
		memcpy(rp->pick, pick, sizeof pick);
		memcpy(rp->frac, frac, sizeof frac);
		rp->n = n;
		rp->step = step;
		rp->blur = blur;
		rp->edge = edge;
		if (rp->rr)
			memcpy(rp->rr, rad, NRAYS * sizeof *rad);
	}
	/* circle through the edge points, outliers dropped */
	double px[NRAYS], py[NRAYS], res[NRAYS], tmp[NRAYS];
	int use[NRAYS];
	for (int k = 0; k < nr; k++) {
		px[k] = x + rad[k] * cs[k];
		py[k] = y + rad[k] * sn[k];
		use[k] = 1;
	}
	double cx, cy, r;
	if (fit_circle(px, py, use, nr, &cx, &cy, &r))
		return -1;
	/* The rays kept are told from residuals read with sqrt (keep_rays)
	 * unless one lies at the bar: hypot and the residuals' median were
	 * 34 M instructions of the 2048 x 1536 lattice (h47f). */
	int kept = keep_rays(px, py, cx, cy, r, nr, use);
	if (kept < 0) {
		kept = 0;
		for (int k = 0; k < nr; k++)
			tmp[k] = res[k] = fabs(hypot(px[k] - cx, py[k] - cy) - r);
		double bar = keep_bar(tmp, nr);
		for (int k = 0; k < nr; k++) {
			use[k] = res[k] <= bar;
			kept += use[k];
		}
	}
	double ca = 0, sa = 0;
	if (isfinite(faz)) {
		/* the rays facing away from the detector left out (their radius
		 * the circle's, below): that foot has no step of its own under a
		 * side detector, its pick lies where the window's weight about
		 * the start puts it and moves with the start (h48i) */
		ca = cos(faz);
		sa = sin(faz);
		kept = 0;
		for (int k = 0; k < nr; k++) {
			if (cs[k] * ca + sn[k] * sa < 0)
				use[k] = 0;
			kept += use[k];
		}
		if (kept < nr / 4)
			return -1;
	}
	/* with no ray dropped the fit is the one above (a function of the
	 * points and use alone): not made twice (h43f) */
	if (kept < nr && fit_circle(px, py, use, nr, &cx, &cy, &r))
		return -1;
	if (isfinite(faz) && lit_centre_capped(x0, y0, cap, ca, sa, px, py, use, nr, &cx, &cy, &r))
		return -1;
	/* a centre that leaves the window is not this dome's */
	if (hypot(cx - x, cy - y) > 0.5 * rs) {
		cx = x;
		cy = y;
	}
	/* outlying rays take the circle's radius along their direction */
	for (int k = 0; k < nr; k++) {
		if (use[k])
			continue;
		double ux = x - cx, uy = y - cy;
		double b = ux * cs[k] + uy * sn[k], c = ux * ux + uy * uy - r * r;
		double disc = b * b - c;
		rad[k] = disc > 0 ? -b + sqrt(disc) : rs;
	}
	*ncx = cx;
	*ncy = cy;
	return 0;
}

/* pass_rays with the rays picked and fitted (nr) and those summed for the
 * peak (hr) as constants: all of them but in a lean pass on half
 * (fs_dome_set_lean_half). The counts as variables in every pass cost the
 * loops over the rays their constant bounds (h48e's +2.8 M instructions
 * on the 2048 x 1536 lattice; h49f). */
static int pass(const fs_image *img, const double *cs, const double *sn, int xi, int yi, double x, double y,
		double rmin, double rmax, double smooth, int outer, double blur, double sw, int lean, int half,
		double faz, double x0, double y0, double cap, double *rad, double *ncx, double *ncy, double *quality,
		step_widths *widths, ray_picks *rp)
{
	if (!(lean && half))
		return pass_rays(img, cs, sn, xi, yi, x, y, rmin, rmax, smooth, outer, blur, sw, lean, faz, x0, y0, cap,
				 rad, ncx, ncy, quality, widths, rp, NRAYS, NRAYS);
	return pass_rays(img, cs, sn, xi, yi, x, y, rmin, rmax, smooth, outer, blur, sw, lean, faz, x0, y0, cap, rad,
			 ncx, ncy, quality, widths, rp, half == FS_DOME_LEAN_HALF_RAYS ? NRAYS / 2 : NRAYS, NRAYS / 2);
}

/* The base radius from the raw radius r0 (the polygon of steepest steps)
 * for an effective blur s: the steepest step inverted (deblur_tab), and for
 * small bases (r0 < SMALL_HI s) the fit of the whole radial profile. */
static double base_radius(const fs_image *img, int ox, int oy, double cx, double cy, double r0, double s,
			  double rlim, fs_dome_base_trace *tr)
{
	if (!(s > 0))
		return r0;
	double r1 = deblur_tab(shared_tab(0), s, r0);
	if (tr)
		tr->r_step = r1;
	if (r0 < SMALL_HI * s) {
		double rf = fit_small_base(img, ox, oy, cx, cy, r0, s, rlim);
		if (isfinite(rf)) {
			double w = (SMALL_HI - r0 / s) / (SMALL_HI - SMALL_LO);
			w = w > 1 ? 1 : w;
			r1 = w * rf + (1 - w) * r1;
			if (tr) {
				tr->r_small = rf;
				tr->w_small = w;
			}
		}
	}
	return r1;
}

/* local: the blur this tubercle's own steps show (their width, the kappa
 * of pass()) corrects the radius; else the raw radius. inner: the raw
 * radius first corrected by the last pass's inner_shift. ridge: the
 * passes after the first take the blur the rays showed in the pass before
 * (1 / sqrt(kappa)) for pass()'s ridge model of a steep rim
 * (fs_dome_measure_base_ridge). */
static int measure(const fs_image *img, int ox, int oy, double x, double y, double rmin, double rmax, double smooth,
		   int local, int inner, int ridge, double sw, double faz, double cap, double *lshift, fs_tubercle *t,
		   double *rawr, double *kappa, int *edge, fs_dome_base_trace *tr, fs_dome_ray_trace *rt)
{
	*rawr = NAN;
	*kappa = NAN;
	if (edge)
		*edge = 0;
	/* A candidate on the frame's first or last row or column lies on an
	 * integer pixel and is measured there; a rounding (1e-6 px) outside
	 * failed it, which took it out of the first pass's dome list and moved
	 * the formation fit's every-k-th sample after it (h48m: 83 of 512
	 * corner scene-seeds flipped across nudges of +-1e-6 px). Snapped onto
	 * the edge it is measured as there, to the bit. */
	if (img && __atomic_load_n(&frame_snap, __ATOMIC_RELAXED)) {
		x = frame_snapped(x, img->width - 1);
		y = frame_snapped(y, img->height - 1);
	}
	if (!img || !t || !(rmax > rmin) || !(rmin > 0) || x < 0 || y < 0 || x > img->width - 1 ||
	    y > img->height - 1)
		return -1;
	double rad[NRAYS], ishift = 0;
	ray_picks picks, *rp = inner ? &picks : NULL;
	picks.rr = rt ? rt->ray : NULL;
	step_widths widths = {.valid = 0};
	/* The passes work relative to the start's pixel (xi, yi): the same
	 * arithmetic wherever the image's origin lies, so a crop of it reads
	 * the same base to the last bit (sample_split) */
	int xi = (int)floor(x), yi = (int)floor(y);
	double cx = x - xi, cy = y - yi, q = 0;
	/* the reading's own start, from which the near-half circle's centre
	 * may move at most the lit cap towards the detector (pass_rays,
	 * fs_dome_set_lit_cap) */
	const double x0 = cx, y0 = cy;
	/* the ray directions (once per process) */
	const double *cs = ray_dirs(0), *sn = ray_dirs(1);
	/* The first pass may start off centre (the outer step is then smeared
	 * over the radii): it takes the strongest step; the next ones, from the
	 * fitted centre, the outermost strong one. */
	for (int it = 0; it < 3; it++) {
		double nx, ny;
		double blur = 0;
		if (rt) {
			rt->ray_x = xi + cx;
			rt->ray_y = yi + cy;
		}
		if (ridge && it > 0 && (*kappa = kappa_of(&widths), isfinite(*kappa)) && *kappa > 0)
			blur = 1 / sqrt(*kappa);
		/* (*kappa: the last pass's that reached its picks, failed or not)
		 * The first pass is lean (pass()) where it may be: it only
		 * moves the start unless its centre leaves the image, and then
		 * it is made whole, from the same start, the same centre. (A
		 * failed lean pass fails where the whole one would, its picks'
		 * widths the same.) */
		int lean = it == 0 && !(smooth > 0) && !__atomic_load_n(&lean_forbidden, __ATOMIC_RELAXED);
		/* The lean pass on half the rays (fs_dome_set_lean_half): with
		 * the ridge model the next pass's blur is read from the lean
		 * pass's widths, which FS_DOME_LEAN_HALF_RAYS keeps for half the
		 * rays only, so there it reads them all. A half pass that fails
		 * is made again on every ray: the whole rule fails a dome only
		 * where it did. */
		int half = lean ? __atomic_load_n(&lean_half, __ATOMIC_RELAXED) : 0;
		if (half == FS_DOME_LEAN_HALF_LEVEL)
			half = inner ? FS_DOME_LEAN_HALF_RAYS : FS_DOME_LEAN_ALL;
		if (half == FS_DOME_LEAN_HALF_RAYS && ridge)
			half = 0;
		if (half && pass(img, ray_dirs_half(0), ray_dirs_half(1), xi, yi, cx, cy, rmin, rmax, smooth, 0, blur,
				 sw, 1, half, faz, x0, y0, cap, rad, &nx, &ny, &q, &widths, NULL) == 0) {
			/* (the half pass's centre taken) */
		} else if (pass(img, cs, sn, xi, yi, cx, cy, rmin, rmax, smooth, it > 0, blur, sw, lean, 0, faz, x0, y0,
				cap, rad, &nx, &ny, &q, &widths, lean ? NULL : rp)) {
			*kappa = kappa_of(&widths);
			return -1;
		}
		double shift = hypot(nx - cx, ny - cy);
		if (xi + nx < 0 || yi + ny < 0 || xi + nx > img->width - 1 || yi + ny > img->height - 1) {
			if (lean && pass(img, cs, sn, xi, yi, cx, cy, rmin, rmax, smooth, 0, blur, sw, 0, 0, faz, x0,
					 y0, cap, rad, &nx, &ny, &q, &widths, rp)) {
				*kappa = kappa_of(&widths);
				return -1;
			}
			break;
		}
		cx = nx;
		cy = ny;
		if (shift < 0.25 && it > 0)
			break;
	}
	*kappa = kappa_of(&widths);
	/* (relative to the start's pixel: the same bits on a crop) */
	if (lshift)
		*lshift = isfinite(faz) ? (cx - x0) * cos(faz) + (cy - y0) * sin(faz) : NAN;
	/* the centre made in the whole image's pixels (the crop's origin ox,
	 * oy added to the start's pixel first), then on img: the integer taken
	 * off is exact, so a crop gets the whole image's centre to the last
	 * bit once its origin is added back (fs_dome_measure_crop); xi + cx
	 * on the crop rounded at another magnitude, and a next measurement
	 * from that centre (the offset pass under a halftone screen) moved by
	 * up to 0.3 px for that last bit (h39i) */
	cx = ((double)(xi + ox) + cx) - ox;
	cy = ((double)(yi + oy) + cy) - oy;
	if (rp) {
		/* the blur the picks' width shows (1 / sqrt(kappa): a straight
		 * blurred step), or the ridge model's */
		rp->sigma = rp->blur > 0 ? rp->blur : isfinite(*kappa) ? 1 / sqrt(*kappa) : NAN;
		ishift = inner_shift(rp->sd, rp->pick, rp->frac, rp->n, rp->step, rp->sigma, NULL, NULL);
		if (rt && isfinite(faz)) {
			/* the inner shift of each side's rays alone (lit: within 45
			 * degrees of the detector; sides: the rest not facing away),
			 * at the picks' width and with the blur free (h49b) */
			unsigned char sk[NRAYS];
			double ca = cos(faz), sa = sin(faz);
			for (int g = 0; g < 2; g++) {
				for (int k = 0; k < NRAYS; k++) {
					double c = cs[k] * ca + sn[k] * sa;
					sk[k] = g == 0 ? !(c > M_SQRT1_2) : !(c >= 0 && c <= M_SQRT1_2);
				}
				rt->ishift_side[g] = inner_shift(rp->sd, rp->pick, rp->frac, rp->n, rp->step, rp->sigma, sk, NULL);
				rt->ishift_free[g] = inner_shift(rp->sd, rp->pick, rp->frac, rp->n, rp->step, rp->sigma, sk,
								 &rt->sfit_side[g]);
			}
		}
		if (edge)
			*edge = rp->edge;
	}
	/* the polygon of edge points (about the centre the rays started from) */
	double ex[NRAYS], ey[NRAYS];
	for (int k = 0; k < NRAYS; k++) {
		ex[k] = rad[k] * cs[k];
		ey[k] = rad[k] * sn[k];
	}
	fs_poly_moments pm;
	fs_poly_moments_of(ex, ey, NRAYS, &pm);
	double A = pm.area, P = pm.perimeter, l1 = pm.l1, l2 = pm.l2;
	t->centroid_x = cx;
	t->centroid_y = cy;
	t->fit_quality = q;
	if (!(A > 0.25) || q < FS_DOME_MIN_QUALITY) {
		/* (the fields a reading writes, fs_dome_reading_apply: the
		 * ellipse's only with its flag) */
		t->radius_px = NAN;
		t->circularity = FS_UNMEASURED_CIRCULARITY;
		t->has_ellipse = 0;
		return 0;
	}
	/* rpoly: the polygon's radius, whose shape the ellipse keeps */
	double rpoly = sqrt(A / M_PI), r0 = rpoly - ishift, r1 = r0;
	if (tr) {
		tr->rpoly = rpoly;
		tr->ishift = ishift;
		tr->kappa = *kappa;
	}
	if (rt) {
		rt->blur = rp ? rp->blur : NAN;
		memcpy(rt->ray_c, cs, sizeof rt->ray_c);
		memcpy(rt->ray_s, sn, sizeof rt->ray_s);
	}
	if (local && isfinite(*kappa)) {
		double s = sigma_from_tab(shared_tab(0), shared_tab(1), r0, *kappa);
		if (tr)
			tr->sigma = s;
		if (s > 0 && r0 < LOCAL_HI * s) {
			double w = fmin(1, 2 - 2 * r0 / (LOCAL_HI * s));
			r1 = w * base_radius(img, ox, oy, cx, cy, r0, s, 1.3 * rmax, tr) + (1 - w) * r0;
			if (tr)
				tr->w_local = w;
		}
	}
	*rawr = r0;
	t->radius_px = r1;
	t->circularity = P > 0 ? fmin(1.0, 4 * M_PI * A / (P * P)) : 0;
	t->has_ellipse = 1;
	t->major_axis_px = 4 * sqrt(l1) * r1 / rpoly;
	t->minor_axis_px = 4 * sqrt(l2) * r1 / rpoly;
	t->orientation = pm.orientation;
	t->eccentricity = l1 > 0 ? sqrt(fmax(0, 1 - l2 / l1)) : 0;
	return 0;
}

int fs_dome_measure(const fs_image *img, double x, double y, double rmin, double rmax, double smooth,
		    fs_tubercle *t)
{
	return fs_dome_measure_crop(img, 0, 0, x, y, rmin, rmax, smooth, t);
}

int fs_dome_measure_crop(const fs_image *img, int ox, int oy, double x, double y, double rmin, double rmax,
			 double smooth, fs_tubercle *t)
{
	double r0, kappa;
	return measure(img, ox, oy, x, y, rmin, rmax, smooth, 1, 0, 0, SW, NAN, NAN, NULL, t, &r0, &kappa, NULL, NULL,
		       NULL);
}

int fs_dome_measure_base(const fs_image *img, double x, double y, double rmin, double rmax, fs_tubercle *t)
{
	return fs_dome_measure_base_edge(img, x, y, rmin, rmax, 0, t, NULL);
}

int fs_dome_measure_base_blur(const fs_image *img, double x, double y, double rmin, double rmax, fs_tubercle *t,
			      int *edge, double *var)
{
	double r0, kappa;
	int rc = measure(img, 0, 0, x, y, rmin, rmax, 0, 1, 1, 0, SW, NAN, NAN, NULL, t, &r0, &kappa, edge, NULL, NULL);
	*var = kappa > 0 ? 1 / kappa : NAN;
	return rc;
}

void fs_dome_read_base_blur(const fs_image *img, double x, double y, double rmin, double rmax, fs_dome_reading *r)
{
	memset(&r->t, 0, sizeof r->t);
	r->rc = fs_dome_measure_base_blur(img, x, y, rmin, rmax, &r->t, &r->edge, &r->var);
}

int fs_dome_reading_apply(const fs_dome_reading *r, fs_tubercle *t, int *edge, double *var)
{
	*edge = r->edge;
	*var = r->var;
	if (r->rc)
		return r->rc; /* measure() wrote nothing into t */
	/* the fields measure() writes: the centre, quality, radius,
	 * circularity and ellipse flag always, the ellipse when it set the
	 * flag (a measurable base) */
	t->centroid_x = r->t.centroid_x;
	t->centroid_y = r->t.centroid_y;
	t->fit_quality = r->t.fit_quality;
	t->radius_px = r->t.radius_px;
	t->circularity = r->t.circularity;
	t->has_ellipse = r->t.has_ellipse;
	if (r->t.has_ellipse) {
		t->major_axis_px = r->t.major_axis_px;
		t->minor_axis_px = r->t.minor_axis_px;
		t->orientation = r->t.orientation;
		t->eccentricity = r->t.eccentricity;
	}
	return 0;
}

/* The base rule's measurement at (x, y) with its trace in tr (zeroed by
 * the caller), the rays' in rt when given (lit: the lit side's ridge
 * at azimuth): what the two trace entry points share */
static int base_traced(const fs_image *img, double x, double y, double rmin, double rmax, int lit, double azimuth,
		       fs_dome_base_trace *tr, fs_dome_ray_trace *rt)
{
	double r0, kappa;
	fs_tubercle t;
	memset(&t, 0, sizeof t);
	tr->rpoly = tr->ishift = tr->kappa = tr->sigma = tr->r_step = tr->r_small = tr->radius = NAN;
	int rc = measure(img, 0, 0, x, y, rmin, rmax, 0, 1, 1, lit, SW, azimuth, lit_cap, NULL, &t, &r0, &kappa, NULL,
			 tr, rt);
	tr->x = t.centroid_x;
	tr->y = t.centroid_y;
	tr->quality = t.fit_quality;
	if (!rc)
		tr->radius = t.radius_px;
	return rc;
}

int fs_dome_measure_base_trace(const fs_image *img, double x, double y, double rmin, double rmax,
			       fs_dome_base_trace *tr)
{
	memset(tr, 0, sizeof *tr);
	return base_traced(img, x, y, rmin, rmax, 0, NAN, tr, NULL);
}

int fs_dome_measure_base_ridge(const fs_image *img, double x, double y, double rmin, double rmax, fs_tubercle *t)
{
	return fs_dome_measure_base_edge(img, x, y, rmin, rmax, 1, t, NULL);
}

int fs_dome_measure_base_edge(const fs_image *img, double x, double y, double rmin, double rmax, int ridge,
			      fs_tubercle *t, int *edge)
{
	double r0, kappa;
	return measure(img, 0, 0, x, y, rmin, rmax, 0, 1, 1, ridge != 0, SW, NAN, NAN, NULL, t, &r0, &kappa, edge, NULL,
		       NULL);
}

int fs_dome_measure_base_ridge_lit(const fs_image *img, double x, double y, double rmin, double rmax,
				   double azimuth, fs_tubercle *t, int *edge)
{
	double r0, kappa;
	return measure(img, 0, 0, x, y, rmin, rmax, 0, 1, 1, 1, SW, azimuth, lit_cap, NULL, t, &r0, &kappa, edge, NULL,
		       NULL);
}

int fs_dome_measure_base_ridge_lit_capped(const fs_image *img, double x, double y, double rmin, double rmax,
					  double azimuth, double cap, fs_tubercle *t, int *edge, double *shift)
{
	double r0, kappa, sh = NAN;
	int rc = measure(img, 0, 0, x, y, rmin, rmax, 0, 1, 1, 1, SW, azimuth, cap >= 0 ? cap : NAN, &sh, t, &r0,
			 &kappa, edge, NULL, NULL);
	if (shift)
		*shift = sh;
	return rc;
}

double fs_dome_lit_cap(void)
{
	return lit_cap;
}

int fs_dome_measure_base_ridge_lit_trace(const fs_image *img, double x, double y, double rmin, double rmax,
					 double azimuth, fs_dome_ray_trace *rt)
{
	memset(rt, 0, sizeof *rt);
	rt->ray_x = rt->ray_y = rt->blur = NAN;
	for (int g = 0; g < 2; g++)
		rt->ishift_side[g] = rt->ishift_free[g] = rt->sfit_side[g] = NAN;
	for (int k = 0; k < FS_DOME_TRACE_RAYS; k++)
		rt->ray[k] = rt->ray_c[k] = rt->ray_s[k] = NAN;
	return base_traced(img, x, y, rmin, rmax, 1, azimuth, &rt->st, rt);
}

int fs_dome_measure_lone(const fs_image *img, double x, double y, double rmin, double rmax, double smooth,
			 fs_tubercle *t)
{
	double r0, kappa;
	return measure(img, 0, 0, x, y, rmin, rmax, smooth, 0, 0, 0, 0, NAN, NAN, NULL, t, &r0, &kappa, NULL, NULL,
		       NULL);
}

/* The blurred circular step (see dome_measure.h), in units of sigma:
 * g(rho; P) = exp(-(rho - P)^2 / 2) I1e(rho P), with I1e(z) = exp(-z) I1(z)
 * (the polynomial approximations of Abramowitz & Stegun 9.8.3-4). */
static double i1e(double z)
{
	if (z < 3.75) {
		double y = (z / 3.75) * (z / 3.75);
		return exp(-z) * z *
		       (0.5 + y * (0.87890594 +
				   y * (0.51498869 +
					y * (0.15084934 + y * (0.2658733e-1 + y * (0.301532e-2 + y * 0.32411e-3))))));
	}
	double y = 3.75 / z;
	return (0.39894228 +
		y * (-0.3988024e-1 +
		     y * (-0.362018e-2 +
			  y * (0.163801e-2 +
			       y * (-0.1031555e-1 +
				    y * (0.2282967e-1 + y * (-0.2895312e-1 + y * (0.1787654e-1 - y * 0.420059e-2)))))))) /
	       sqrt(z);
}

static double step_g(double rho, double P)
{
	return exp(-0.5 * (rho - P) * (rho - P)) * i1e(rho * P);
}

/* The peak rho* of g(.; P): golden section on [0, P + 3] (g is unimodal). */
static double step_peak(double P)
{
	const double gr = 0.5 * (sqrt(5) - 1);
	double a = 1e-3, b = P + 3;
	double c = b - gr * (b - a), d = a + gr * (b - a);
	double gc = step_g(c, P), gd = step_g(d, P);
	for (int it = 0; it < 48; it++) {
		if (gc > gd) {
			b = d;
			d = c;
			gd = gc;
			c = b - gr * (b - a);
			gc = step_g(c, P);
		} else {
			a = c;
			c = d;
			gc = gd;
			d = a + gr * (b - a);
			gd = step_g(d, P);
		}
	}
	return 0.5 * (a + b);
}

#define TAB_STEP 0.1
#define TAB_N 128

/* tab: rho*(P); qtab: rho*^2 times the curvature of log g at rho*, the
 * dimensionless measure of the peak's width (P^2 + 1 for large P). */
static void fill_table(double *tab, double *qtab)
{
	tab[0] = 1; /* a vanishing disk is the Gaussian itself: peak at sigma */
	qtab[0] = 2; /* log g = log(rho exp(-rho^2 / 2)): curvature 2 at 1 */
	for (int i = 1; i < TAB_N; i++) {
		double P = i * TAB_STEP, r = step_peak(P), h = 1e-3;
		tab[i] = r;
		double c = -(log(step_g(r - h, P)) - 2 * log(step_g(r, P)) + log(step_g(r + h, P))) / (h * h);
		qtab[i] = r * r * c;
	}
}

/* sigma from a radius r and the curvature kappa of the log step profile at
 * it: P from q = r^2 kappa (qtab rises with P), sigma = r / rho*(P). NAN
 * when q is outside what a blurred circular step gives. */
static double sigma_from_tab(const double *tab, const double *qtab, double r, double kappa)
{
	double q = r * r * kappa;
	if (!(q > qtab[0]))
		return NAN;
	double P;
	if (q >= qtab[TAB_N - 1]) {
		P = sqrt(fmax(q - 1, 0));
	} else {
		int i = 0;
		while (i < TAB_N - 2 && qtab[i + 1] < q)
			i++;
		P = (i + (q - qtab[i]) / (qtab[i + 1] - qtab[i])) * TAB_STEP;
	}
	double rho = P > (TAB_N - 1) * TAB_STEP ? P - 0.5 / P : NAN;
	if (!isfinite(rho)) {
		double u = P / TAB_STEP;
		int i = (int)u;
		rho = tab[i] + (u - i) * (tab[i + 1] - tab[i]);
	}
	return r / rho;
}

/* The tables of the blurred circular step depend on nothing of an image:
 * filled once per process (detection measures from several threads). */
static double g_tab[TAB_N], g_qtab[TAB_N];
static pthread_once_t g_tab_once = PTHREAD_ONCE_INIT;

static void tab_init(void)
{
	fill_table(g_tab, g_qtab);
}

/* q = 0: rho*(P); q = 1: the width measure (fill_table). */
static const double *shared_tab(int q)
{
	pthread_once(&g_tab_once, tab_init);
	return q ? g_qtab : g_tab;
}

/* The rays' directions, cos(2 pi k / NRAYS) and sin(...), the values
 * every measurement computed for itself (32 sincos calls each, and the
 * polygon's the same again): once per process. */
static double g_dirs[2][NRAYS];
static pthread_once_t g_dirs_once = PTHREAD_ONCE_INIT;

static void dirs_init(void)
{
	for (int k = 0; k < NRAYS; k++) {
		g_dirs[0][k] = cos(2 * M_PI * k / NRAYS);
		g_dirs[1][k] = sin(2 * M_PI * k / NRAYS);
	}
}

/* q = 0: the cosines; q = 1: the sines. */
static const double *ray_dirs(int q)
{
	pthread_once(&g_dirs_once, dirs_init);
	return g_dirs[q];
}

/* ray_dirs' directions in another order, the even ones first (k = 0, 2,
 * .. 30, then 1, 3, .. 31), the values copied: the lean pass on half the
 * rays (fs_dome_set_lean_half) reads them as rays 0 .. NRAYS / 2 - 1 with
 * the same samples as those rays of ray_dirs, and the odd ones after them
 * where it picks every ray. */
static double g_dirs_half[2][NRAYS];
static pthread_once_t g_dirs_half_once = PTHREAD_ONCE_INIT;

static void dirs_half_init(void)
{
	const double *c = ray_dirs(0), *s = ray_dirs(1);
	for (int i = 0; i < NRAYS; i++) {
		int k = i < NRAYS / 2 ? 2 * i : 2 * (i - NRAYS / 2) + 1;
		g_dirs_half[0][i] = c[k];
		g_dirs_half[1][i] = s[k];
	}
}

static const double *ray_dirs_half(int q)
{
	pthread_once(&g_dirs_half_once, dirs_half_init);
	return g_dirs_half[q];
}

static double deblur_tab(const double *tab, double s, double r)
{
	if (!(s > 0) || !(r > 0))
		return r;
	double rho = r / s;
	if (rho >= tab[TAB_N - 1]) {
		/* beyond the table: rho = P - 1 / 2P, so P = (rho + sqrt(rho^2 + 2)) / 2 */
		return s * 0.5 * (rho + sqrt(rho * rho + 2));
	}
	/* the table rises from rho* = 1 (after a possible shallow dip):
	 * the last crossing from below */
	for (int i = TAB_N - 2; i >= 0; i--) {
		if (tab[i] <= rho) {
			double f = (rho - tab[i]) / (tab[i + 1] - tab[i]);
			return s * (i + f) * TAB_STEP;
		}
	}
	return r;
}

/* I0e(z) = exp(-z) I0(z) (Abramowitz & Stegun 9.8.1-2). */
static double i0e(double z)
{
	if (z < 3.75) {
		double y = (z / 3.75) * (z / 3.75);
		return exp(-z) *
		       (1 + y * (3.5156229 +
				 y * (3.0899424 + y * (1.2067492 + y * (0.2659732 + y * (0.360768e-1 + y * 0.45813e-2))))));
	}
	double y = 3.75 / z;
	return (0.39894228 +
		y * (0.1328592e-1 +
		     y * (0.225319e-2 +
			  y * (-0.157565e-2 +
			       y * (0.916281e-2 +
				    y * (-0.2057706e-1 + y * (0.2635537e-1 + y * (-0.1647633e-1 + y * 0.392377e-2)))))))) /
	       sqrt(z);
}

#define FIT_NB 2 /* basis functions of the profile fit */
#define FIT_NR 64 /* radii sampled */

/* Least squares of y on the nb columns of x (n rows): the residual sum of
 * squares, INFINITY when the columns are (nearly) dependent. */
static double lsq_ssr(double x[][FIT_NB], const double *y, int n, int nb)
{
	double a[FIT_NB][FIT_NB + 1];
	for (int i = 0; i < nb; i++) {
		for (int k = 0; k < nb; k++) {
			double acc = 0;
			for (int j = 0; j < n; j++)
				acc += x[j][i] * x[j][k];
			a[i][k] = acc;
		}
		double acc = 0;
		for (int j = 0; j < n; j++)
			acc += x[j][i] * y[j];
		a[i][nb] = acc;
	}
	for (int c = 0; c < nb; c++) {
		int pv = c;
		for (int i = c + 1; i < nb; i++)
			if (fabs(a[i][c]) > fabs(a[pv][c]))
				pv = i;
		if (!(fabs(a[pv][c]) > 1e-12 * (fabs(a[0][0]) + 1e-30)))
			return INFINITY;
		for (int k = 0; k <= nb; k++) {
			double tmp = a[c][k];
			a[c][k] = a[pv][k];
			a[pv][k] = tmp;
		}
		for (int i = 0; i < nb; i++) {
			if (i == c)
				continue;
			double f = a[i][c] / a[c][c];
			for (int k = c; k <= nb; k++)
				a[i][k] -= f * a[c][k];
		}
	}
	double ssr = 0;
	for (int j = 0; j < n; j++) {
		double e = y[j];
		for (int i = 0; i < nb; i++)
			e -= x[j][i] * a[i][nb] / a[i][i];
		ssr += e * e;
	}
	return ssr;
}

/*
 * The base radius of a small dome from its whole radial profile, where the
 * steepest step no longer tells (R below about 2.5 sigma, where the
 * blurred step's steepest point stays near sigma whatever R): the mean
 * over 32 rays about the centre (the side detector's part, odd around the
 * dome, cancels) fitted by least squares with a background plus the
 * Gaussian-blurred (sigma known) disk of radius R, the amplitudes solved
 * for every R and R where the residual is least. A blurred disk keeps its
 * area and its outer tail, which fix R where its steepest point has
 * stopped moving: on ideal disks with the blur known, 1.5, 2.0 and 2.5 px
 * at sigma 1.03 read 1.51, 2.00 and 2.52.
 *
 * Why a disk and not a dome's shape: a disk weighted by (rho / R)^2 (the
 * secant law's rise to the rim) or a thin ring at R (edge brightening)
 * added to the basis makes R unidentifiable below 2.5 sigma - a
 * tapering larger dome and a smaller flat disk blur to the same profile,
 * and the least residual then moves with an error of a few % in sigma by
 * 10-20 % in R (a low spherical cap of 2.0 px read 1.998 px with sigma
 * exact, 2.16 px with the calibrated sigma 20 % low). The disk alone is
 * exact for a flat-topped dome and reads a tapering cap small.
 * NAN when the least lies at an end of the range searched.
 */
static double fit_small_base(const fs_image *img, int ox, int oy, double cx, double cy, double r0, double sigma,
			     double rlim)
{
	double rfit = fmin(rlim, 1.5 * r0 + 3 * sigma);
	/* samples from 0 to rfit: FIT_NR of them when the step is rfit's
	 * share, counted directly (rfit / (rfit / 63) came out 63 or
	 * 62.99999999999999 by the last bits of r0 and sigma, and the profile
	 * lost its last sample or not: a dome read from the same centre on a
	 * crop and on the whole image differed by 0.2 %) */
	double step = 0.25;
	int nr = FIT_NR;
	if (rfit / (FIT_NR - 1) > step)
		step = rfit / (FIT_NR - 1);
	else
		nr = (int)(rfit / step) + 1;
	if (nr > FIT_NR)
		nr = FIT_NR;
	if (nr < 8)
		return NAN;
	double prof[FIT_NR];
	mean_profile(img, ox, oy, cx, cy, step, nr, prof);
	return fit_profile(prof, nr, step, r0, sigma, rfit, NULL);
}

/* The mean over 32 rays about (cx, cy) at radii j step, j < nr; img a
 * crop at (ox, oy) of the image the samples' positions are made in (so
 * a crop reads the whole image's profile to the last bit: cx + ox is the
 * whole image's centre, exactly, and a position less ox is exact; made
 * on the crop, cx + offset rounded at another magnitude and the radius
 * differed in its last bits, h40e). */
static void mean_profile(const fs_image *img, int ox, int oy, double cx, double cy, double step, int nr, double *prof)
{
	const double *cs = ray_dirs(0), *sn = ray_dirs(1);
	double wx = cx + ox, wy = cy + oy;
	prof[0] = fs_image_sample(img, cx, cy);
	for (int j = 1; j < nr; j++) {
		double acc = 0;
		for (int k = 0; k < NRAYS; k++)
			acc += fs_image_sample(img, (wx + cs[k] * j * step) - ox, (wy + sn[k] * j * step) - oy);
		prof[j] = acc / NRAYS;
	}
}

/* fit_small_base on a sampled profile (prof[j] at radius j step); the
 * least residual in *ssr_out when not NULL. */
static double fit_profile(const double *prof, int nr, double step, double r0, double sigma, double rfit, double *ssr_out)
{
	double rr[FIT_NR];
	for (int j = 0; j < nr; j++)
		rr[j] = j * step;
	/* the disk integrals, accumulated over rho in steps of sigma / 8
	 * (trapezoids), so every R of the search costs one step */
	double h = sigma / 8, rlo = 0.5 * r0, rhi = fmin(2 * r0 + sigma, rfit - sigma);
	if (!(rhi > rlo + 4 * h))
		return NAN;
	double acc0[FIT_NR] = {0}, kprev[FIT_NR] = {0};
	double x[FIT_NR][FIT_NB];
	double best = INFINITY, sp = INFINITY, sn = INFINITY, rb = NAN;
	double prev_ssr = INFINITY;
	int mb = -1, m = 0;
	double s2 = sigma * sigma;
	for (m = 1;; m++) {
		double rho = m * h;
		if (rho > rhi)
			break;
		for (int j = 0; j < nr; j++) {
			double k = rho / s2 * exp(-0.5 * (rr[j] - rho) * (rr[j] - rho) / s2) * i0e(rr[j] * rho / s2);
			acc0[j] += 0.5 * h * (kprev[j] + k);
			kprev[j] = k;
		}
		if (rho < rlo)
			continue;
		for (int j = 0; j < nr; j++) {
			x[j][0] = 1;
			x[j][1] = acc0[j];
		}
		double ssr = lsq_ssr(x, prof, nr, FIT_NB);
		if (ssr < best) {
			best = ssr;
			mb = m;
			sp = prev_ssr;
			sn = INFINITY;
			rb = rho;
		} else if (m == mb + 1) {
			sn = ssr;
		}
		prev_ssr = ssr;
	}
	if (ssr_out)
		*ssr_out = best;
	if (mb < 0 || !isfinite(sp) || !isfinite(sn))
		return NAN;
	return rb + h * fs_parabola_vertex(-sp, -best, -sn);
}
