/*
 * lanes.h - two doubles (or four floats) in one vector register, for inner
 * loops that sum independent outputs at once, each in its own lane in the
 * order a scalar loop sums it (the same bits, fewer instructions).
 * Header-only.
 */
#ifndef FS_ANALYSIS_LANES_H
#define FS_ANALYSIS_LANES_H

#include <math.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef double v2d __attribute__((vector_size(16)));
/* The same 16 bytes as two integers, for masks (a sign cleared). */
typedef long long v2i __attribute__((vector_size(16)));
/* Four floats (the blurs' and the FFT's butterflies): -O2 does not
 * auto-vectorise loops of unknown length. */
typedef float v4f __attribute__((vector_size(16)));

/* p[0..3] into a v4f, p needing no alignment. */
static inline v4f fs_load4f(const float *p)
{
	v4f v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* Two neighbouring floats p[0], p[1] widened to doubles (exact, so the
 * same values as converting them one at a time): one load and one
 * conversion with SSE2, which GCC does not find by itself (it converted
 * them one by one through the stack). */
static inline v2d fs_widen2(const float *p)
{
#if defined(__SSE2__)
	return (v2d)_mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)p)));
#else
	return (v2d){p[0], p[1]};
#endif
}

/* floor() of both lanes (|u| < 2^31) as doubles: the truncation, less
 * one where u lies below it (a negative non-integer), as `int i = (int)u;
 * i - (u < i)` gives it, converted back (exact). For a caller that goes
 * on in doubles: an index made as y w + x in doubles, exact below 2^53,
 * instead of the integers taken out of the lanes and sign-extended (h40d;
 * was fs_floor2, which also returned the integers). */
static inline v2d fs_floor2d(v2d u)
{
#if defined(__SSE2__)
	__m128d tf = _mm_cvtepi32_pd(_mm_cvttpd_epi32((__m128d)u));
	__m128d lt = _mm_cmplt_pd((__m128d)u, tf); /* all ones where u < trunc(u) */
	return (v2d)_mm_add_pd(tf, _mm_and_pd(lt, _mm_set1_pd(-1.0)));
#else
	int a = (int)u[0], b = (int)u[1];
	return (v2d){a - (u[0] < a), b - (u[1] < b)};
#endif
}

/* The larger of a and b in each lane (b where they are equal; neither
 * may be NAN): maxpd, for maxima of values without NAN, which are the
 * same in any order. */
static inline v2d fs_max2(v2d a, v2d b)
{
#if defined(__SSE2__)
	return (v2d)_mm_max_pd((__m128d)a, (__m128d)b);
#else
	return (v2d){a[0] > b[0] ? a[0] : b[0], a[1] > b[1] ? a[1] : b[1]};
#endif
}

/* The square roots of both lanes, each correctly rounded as C's sqrt is
 * (sqrtpd; sqrt lane by lane without SSE2), so the same values. */
static inline v2d fs_sqrt2d(v2d a)
{
#if defined(__SSE2__)
	return (v2d)_mm_sqrt_pd((__m128d)a);
#else
	return (v2d){sqrt(a[0]), sqrt(a[1])};
#endif
}

/* (int)u[0], (int)u[1] into *i0, *i1, and the same integers as doubles:
 * one truncating conversion of both lanes and one back (for |u| < 2^31
 * the values of C's (int) cast and of converting that int back). */
static inline v2d fs_trunc2(v2d u, int *i0, int *i1)
{
#if defined(__SSE2__)
	__m128i t = _mm_cvttpd_epi32((__m128d)u);
	*i0 = _mm_cvtsi128_si32(t);
	*i1 = _mm_cvtsi128_si32(_mm_shuffle_epi32(t, 1));
	return (v2d)_mm_cvtepi32_pd(t);
#else
	*i0 = (int)u[0];
	*i1 = (int)u[1];
	return (v2d){*i0, *i1};
#endif
}

/* fs_trunc2's doubles without the integers: trunc of both lanes
 * (|u| < 2^31), for a caller that goes on in doubles. */
static inline v2d fs_trunc2d(v2d u)
{
#if defined(__SSE2__)
	return (v2d)_mm_cvtepi32_pd(_mm_cvttpd_epi32((__m128d)u));
#else
	return (v2d){(int)u[0], (int)u[1]};
#endif
}

/* The corners of two bilinear cells at once, lane 0 the cell whose
 * top-left pixel is p, lane 1 r (w: the row stride): c00 = {p[0], r[0]},
 * c01 = {p[1], r[1]}, c10 = {p[w], r[w]}, c11 = {p[w + 1], r[w + 1]}.
 * Each pair of neighbours is widened at once (fs_widen2) and the lanes
 * are interleaved: the same doubles as converting the eight floats one
 * at a time, in fewer instructions. */
static inline void fs_corners2(const float *p, const float *r, long w, v2d *c00, v2d *c01, v2d *c10, v2d *c11)
{
	v2d pt = fs_widen2(p), rt = fs_widen2(r), pb = fs_widen2(p + w), rb = fs_widen2(r + w);
#if defined(__SSE2__)
	*c00 = (v2d)_mm_unpacklo_pd((__m128d)pt, (__m128d)rt);
	*c01 = (v2d)_mm_unpackhi_pd((__m128d)pt, (__m128d)rt);
	*c10 = (v2d)_mm_unpacklo_pd((__m128d)pb, (__m128d)rb);
	*c11 = (v2d)_mm_unpackhi_pd((__m128d)pb, (__m128d)rb);
#else
	*c00 = (v2d){pt[0], rt[0]};
	*c01 = (v2d){pt[1], rt[1]};
	*c10 = (v2d){pb[0], rb[0]};
	*c11 = (v2d){pb[1], rb[1]};
#endif
}

/* Two bilinear cells' values at fractions fx, fy from their corners
 * (fs_corners2): each row blended along x, then the two rows along y,
 * each lane the scalar sampler's expression in its order, so the same
 * bits; the samplers of dome_measure.c, centre_refine.c and base_step.c
 * share it (fs_bilerp4d is its four-lane twin). */
static inline v2d fs_bilerp2d(v2d c00, v2d c01, v2d c10, v2d c11, v2d fx, v2d fy)
{
	v2d one = {1, 1};
	v2d a = c00 * (one - fx) + c01 * fx;
	v2d b = c10 * (one - fx) + c11 * fx;
	return a * (one - fy) + b * fy;
}

#endif
