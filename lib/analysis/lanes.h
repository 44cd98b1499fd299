/*
 * lanes.h - two doubles in one vector register, for inner loops that sum
 * two independent outputs at once, each in its own lane in the order a
 * scalar loop sums it (the same bits, half the instructions). Header-only.
 */
#ifndef FS_ANALYSIS_LANES_H
#define FS_ANALYSIS_LANES_H

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef double v2d __attribute__((vector_size(16)));
/* The same 16 bytes as two integers, for masks (a sign cleared). */
typedef long long v2i __attribute__((vector_size(16)));

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

#endif
