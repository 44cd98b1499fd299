/*
 * lanes_avx.h - four doubles in one AVX register, for the bilinear
 * samplers' inner loops (the rays of dome_measure.c, centre_refine.c and
 * base_step.c), each lane the operations a scalar or lanes.h loop does in
 * its order, so the same bits. The build targets plain x86-64: a caller
 * marks its loop __attribute__((target("avx"))) and runs it only where
 * fs_cpu_has_avx (base/cpu_features.h) says the processor has AVX; under
 * target "avx" alone and ISO C there is no fused multiply-add. FS_LANES_AVX
 * is defined where these exist. Header-only.
 */
#ifndef FS_ANALYSIS_LANES_AVX_H
#define FS_ANALYSIS_LANES_AVX_H

#if defined(__x86_64__) && defined(__GNUC__)
#define FS_LANES_AVX 1

#include <immintrin.h>
#include <string.h>

typedef double v4d __attribute__((vector_size(32)));

/* trunc of four lanes (|u| < 2^31) as doubles: fs_trunc2d's values */
__attribute__((target("avx"))) static inline v4d fs_trunc4d(v4d u)
{
	return (v4d)_mm256_cvtepi32_pd(_mm256_cvttpd_epi32((__m256d)u));
}

/* floor of four lanes (|u| < 2^31) as doubles, fs_floor2d's values:
 * roundpd's floor plus +0.0. The sum changes nothing but roundpd's -0.0
 * (the floor of -0.0), which it makes +0.0 as the truncation gives it;
 * the truncation, its comparison and the -1 where u lies below it were
 * five instructions where these are two (h49f: the rays' quads take two
 * floors each, 3.9 M quads on the 2048 x 1536 lattice). */
__attribute__((target("avx"))) static inline v4d fs_floor4d(v4d u)
{
	return (v4d)_mm256_add_pd(_mm256_floor_pd((__m256d)u), _mm256_setzero_pd());
}

/* {p[0], p[1], r[0], r[1]}: two cells' pairs of neighbours, one 8-byte
 * load each (through memcpy: a float's address need not suit a double,
 * which _mm_load_sd's pointer would claim) */
__attribute__((target("avx"))) static inline __m128 fs_pairs2f(const float *p, const float *r)
{
	double a, b;
	memcpy(&a, p, sizeof a);
	memcpy(&b, r, sizeof b);
	return _mm_castpd_ps(_mm_set_pd(b, a));
}

/* The corners of four bilinear cells, lane i the cell whose top-left
 * pixel is p[i] (w: the row stride): c00 = p[i][0], c01 = p[i][1],
 * c10 = p[i][w], c11 = p[i][w + 1], each float widened exactly (the same
 * doubles as fs_corners2's, in fewer instructions a cell). */
__attribute__((target("avx"))) static inline void fs_corners4(const float *p0, const float *p1, const float *p2,
							       const float *p3, long w, v4d *c00, v4d *c01, v4d *c10,
							       v4d *c11)
{
	__m128 t01 = fs_pairs2f(p0, p1), t23 = fs_pairs2f(p2, p3);
	__m128 b01 = fs_pairs2f(p0 + w, p1 + w), b23 = fs_pairs2f(p2 + w, p3 + w);
	*c00 = (v4d)_mm256_cvtps_pd(_mm_shuffle_ps(t01, t23, _MM_SHUFFLE(2, 0, 2, 0)));
	*c01 = (v4d)_mm256_cvtps_pd(_mm_shuffle_ps(t01, t23, _MM_SHUFFLE(3, 1, 3, 1)));
	*c10 = (v4d)_mm256_cvtps_pd(_mm_shuffle_ps(b01, b23, _MM_SHUFFLE(2, 0, 2, 0)));
	*c11 = (v4d)_mm256_cvtps_pd(_mm_shuffle_ps(b01, b23, _MM_SHUFFLE(3, 1, 3, 1)));
}

/* fs_corners4 of the cells whose top-left pixels are d + i0 .. d + i3,
 * the rows below read from e = d + w at the same indices: the same
 * pixels, without an address made per cell for its second row (a
 * pointer per cell and its row below cost the samplers' quads a lea
 * each and spilled their table pointers; h46e: 12 M of the refinement's
 * grid on the 2048 x 1536 lattice). */
__attribute__((target("avx"))) static inline void fs_corners4_ix(const float *d, const float *e, long long i0,
								  long long i1, long long i2, long long i3, v4d *c00,
								  v4d *c01, v4d *c10, v4d *c11)
{
	__m128 t01 = fs_pairs2f(d + i0, d + i1), t23 = fs_pairs2f(d + i2, d + i3);
	__m128 b01 = fs_pairs2f(e + i0, e + i1), b23 = fs_pairs2f(e + i2, e + i3);
	*c00 = (v4d)_mm256_cvtps_pd(_mm_shuffle_ps(t01, t23, _MM_SHUFFLE(2, 0, 2, 0)));
	*c01 = (v4d)_mm256_cvtps_pd(_mm_shuffle_ps(t01, t23, _MM_SHUFFLE(3, 1, 3, 1)));
	*c10 = (v4d)_mm256_cvtps_pd(_mm_shuffle_ps(b01, b23, _MM_SHUFFLE(2, 0, 2, 0)));
	*c11 = (v4d)_mm256_cvtps_pd(_mm_shuffle_ps(b01, b23, _MM_SHUFFLE(3, 1, 3, 1)));
}

/* fs_corners4 of the cells whose top-left pixels are d + at[i] (at: whole
 * numbers, the index y w + x made in doubles), through fs_corners4_ix */
__attribute__((target("avx"))) static inline void fs_corners4_at(const float *d, v4d at, long w, v4d *c00, v4d *c01,
								  v4d *c10, v4d *c11)
{
	fs_corners4_ix(d, d + w, (long long)at[0], (long long)at[1], (long long)at[2], (long long)at[3], c00, c01,
		       c10, c11);
}

/* fs_corners4_at where every at[i] is below 2^31 (an image of fewer than
 * 2^31 pixels, a cell inside it): the four indices converted in one
 * instruction and taken out as 32-bit numbers (zero-extended, so no sign
 * extension either), not one conversion a lane after taking the lanes
 * apart; the same pixels (h46o: 8 M of the rays' quads on the
 * 2048 x 1536 lattice). */
__attribute__((target("avx"))) static inline void fs_corners4_at32(const float *d, v4d at, long w, v4d *c00,
								    v4d *c01, v4d *c10, v4d *c11)
{
	__m128i i = _mm256_cvttpd_epi32((__m256d)at);
	unsigned i0 = (unsigned)_mm_cvtsi128_si32(i), i1 = (unsigned)_mm_extract_epi32(i, 1);
	unsigned i2 = (unsigned)_mm_extract_epi32(i, 2), i3 = (unsigned)_mm_extract_epi32(i, 3);
	fs_corners4_ix(d, d + w, i0, i1, i2, i3, c00, c01, c10, c11);
}

/* fs_bilerp2d in four lanes: four bilinear cells' values at fractions
 * fx, fy from their corners (fs_corners4 and its kin), the rows blended
 * along x and then along y in the scalar expression's order. */
__attribute__((target("avx"))) static inline v4d fs_bilerp4d(v4d c00, v4d c01, v4d c10, v4d c11, v4d fx, v4d fy)
{
	v4d one = {1, 1, 1, 1};
	v4d a = c00 * (one - fx) + c01 * fx;
	v4d b = c10 * (one - fx) + c11 * fx;
	return a * (one - fy) + b * fy;
}

/* v4d from p[0..3], no alignment needed */
__attribute__((target("avx"))) static inline v4d fs_ld4d(const double *p)
{
	return (v4d)_mm256_loadu_pd(p);
}

/* Four neighbouring outputs of a 1-D convolution of floats: the lane j
 * sums k[i] * p[i * step + j] over i = 0 .. taps - 1 in that order, a
 * multiply then an add (no fused multiply-add under target "avx"), each
 * float widened first: the value a scalar loop `a += k[i] * p[...]` in
 * double gets, so the templates' and the formation's blurs keep their
 * scalar twins' bits (dome_base_fit.c, dome_fit.c). */
__attribute__((target("avx"))) static inline v4d fs_conv4f(const float *p, size_t step, const double *k, int taps)
{
	v4d a = {0, 0, 0, 0};
	for (int i = 0; i < taps; i++)
		a += (v4d)_mm256_broadcast_sd(k + i) * (v4d)_mm256_cvtps_pd(_mm_loadu_ps(p + (size_t)i * step));
	return a;
}

#endif
#endif
