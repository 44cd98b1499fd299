/*
 * disk_filter.c - grey erosion and dilation by a flat disk (disk_filter.h).
 *
 * The disk is a stack of horizontal chords: row dy of it covers
 * |dx| <= half(dy) = floor(sqrt(r^2 - dy^2)). So the output is the extreme
 * over dy of H_half(dy) (the row-wise extreme over [x - half, x + half],
 * clipped to the row) read dy rows up and down.
 *
 * The rows of the disk are taken from its top (dy = r, half 0) to its
 * middle (dy = 0, half r), so the chord only grows, and one buffer holds
 * H_c of every row, widened in place: the extremes over [x - c - d,
 * x + c + d] are those of H_c at x - d and x + d (clamped to the row) as
 * long as d <= c, since the two windows then touch; from c = 0 the first
 * step is the three samples x - 1, x, x + 1. A chord longer than twice the
 * last one takes several such doublings. Each row is widened just before
 * the last output row that reads it at this dy is combined, so the rows a
 * pass touches stay in the cache. Every pass is a min or max of two or
 * three rows, four or eight floats at a time, with no branch on the data
 * (the earlier filter's sliding-window deque per chord length, and its
 * separate pass for each of the 2 r + 1 rows, cost 4-10 times as much).
 *
 * Exact: each output is the extreme of the same set of samples as the
 * brute force's, and a min or max of floats does not round; only the order
 * differs, which decides nothing unless NaN or -0 takes part
 * (disk_filter.h). test_disk_filter compares it with the brute force.
 *
 * Ownership: the caller's in and out; the scratch is freed before return.
 */
#include "analysis/disk_filter.h"
#include "base/cpu_features.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DISK_AVX 1
#elif defined(__SSE__)
#include <xmmintrin.h>
#endif

/* The scalar extreme, the same expression as SSE's minps(a, b) / maxps(a, b). */
static inline float ext1(float a, float b, int is_max)
{
	return is_max ? (a > b ? a : b) : (a < b ? a : b);
}

#ifdef DISK_AVX
/* ext2 / ext3 below for i < the largest multiple of 16 <= n; returns it. */
__attribute__((target("avx"))) static int ext2_avx(float *o, const float *a, const float *b, int n, int is_max)
{
	int i = 0;
	if (is_max) {
		for (; i + 16 <= n; i += 16) {
			__m256 x0 = _mm256_max_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
			__m256 x1 = _mm256_max_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8));
			_mm256_storeu_ps(o + i, x0);
			_mm256_storeu_ps(o + i + 8, x1);
		}
	} else {
		for (; i + 16 <= n; i += 16) {
			__m256 x0 = _mm256_min_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
			__m256 x1 = _mm256_min_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8));
			_mm256_storeu_ps(o + i, x0);
			_mm256_storeu_ps(o + i + 8, x1);
		}
	}
	return i;
}

__attribute__((target("avx"))) static int ext3_avx(float *o, const float *a, const float *b, const float *c, int n,
						    int is_max)
{
	int i = 0;
	if (is_max) {
		for (; i + 16 <= n; i += 16) {
			__m256 x0 = _mm256_max_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
			__m256 x1 = _mm256_max_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8));
			x0 = _mm256_max_ps(x0, _mm256_loadu_ps(c + i));
			x1 = _mm256_max_ps(x1, _mm256_loadu_ps(c + i + 8));
			_mm256_storeu_ps(o + i, x0);
			_mm256_storeu_ps(o + i + 8, x1);
		}
	} else {
		for (; i + 16 <= n; i += 16) {
			__m256 x0 = _mm256_min_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
			__m256 x1 = _mm256_min_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8));
			x0 = _mm256_min_ps(x0, _mm256_loadu_ps(c + i));
			x1 = _mm256_min_ps(x1, _mm256_loadu_ps(c + i + 8));
			_mm256_storeu_ps(o + i, x0);
			_mm256_storeu_ps(o + i + 8, x1);
		}
	}
	return i;
}
#endif

/* o[i] = ext(a[i], b[i]) for i < n; o may be a or b (each output is stored
 * after its inputs are read). */
static void ext2(float *o, const float *a, const float *b, int n, int is_max)
{
	int i = 0;
#ifdef DISK_AVX
	if (fs_cpu_has_avx())
		i = ext2_avx(o, a, b, n, is_max);
#endif
#if defined(__SSE__)
	if (is_max)
		for (; i + 4 <= n; i += 4)
			_mm_storeu_ps(o + i, _mm_max_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)));
	else
		for (; i + 4 <= n; i += 4)
			_mm_storeu_ps(o + i, _mm_min_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)));
#endif
	for (; i < n; i++)
		o[i] = ext1(a[i], b[i], is_max);
}

/* o[i] = ext(a[i], b[i], c[i]) for i < n; o may be any of them. */
static void ext3(float *o, const float *a, const float *b, const float *c, int n, int is_max)
{
	int i = 0;
#ifdef DISK_AVX
	if (fs_cpu_has_avx())
		i = ext3_avx(o, a, b, c, n, is_max);
#endif
#if defined(__SSE__)
	if (is_max)
		for (; i + 4 <= n; i += 4)
			_mm_storeu_ps(o + i, _mm_max_ps(_mm_max_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)),
							 _mm_loadu_ps(c + i)));
	else
		for (; i + 4 <= n; i += 4)
			_mm_storeu_ps(o + i, _mm_min_ps(_mm_min_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)),
							 _mm_loadu_ps(c + i)));
#endif
	for (; i < n; i++)
		o[i] = ext1(ext1(a[i], b[i], is_max), c[i], is_max);
}

/* One widening of a row of H_c to H_{c+d} (d == 1 when c == 0, else
 * d <= c), in place; t is scratch of w floats. */
static void widen_step(float *row, float *t, int w, int c, int d, int is_max)
{
	memcpy(t, row, (size_t)w * sizeof *t);
	/* [lo, hi): the outputs whose taps x - d and x + d are both inside the
	 * row; the others clamp their taps to it */
	int lo = d < w ? d : w, hi = w - d > lo ? w - d : lo;
	for (int x = 0; x < w; x++) {
		if (x == lo && hi > lo) {
			if (c == 0)
				ext3(row + lo, t, t + lo, t + 2 * d, hi - lo, is_max);
			else
				ext2(row + lo, t, t + 2 * d, hi - lo, is_max);
			x = hi - 1;
			continue;
		}
		int l = x - d < 0 ? 0 : x - d, r = x + d > w - 1 ? w - 1 : x + d;
		float v = ext1(t[l], t[r], is_max);
		row[x] = c == 0 ? ext1(v, t[x], is_max) : v;
	}
}

/* A row of H_c widened to H_half in place. */
static void widen(float *row, float *t, int w, int c, int half, int is_max)
{
	while (c < half) {
		int d = c == 0 ? 1 : (half - c < c ? half - c : c);
		widen_step(row, t, w, c, d, is_max);
		c += d;
	}
}

int fs_disk_filter(const float *in, float *out, int w, int h, int r, int is_max)
{
	size_t n = (size_t)w * h;
	if (r <= 0) {
		memcpy(out, in, n * sizeof *out);
		return 0;
	}
	float *run = malloc(n * sizeof *run), *t = malloc((size_t)w * sizeof *t);
	if (!run || !t) {
		free(run);
		free(t);
		return -1;
	}
	memcpy(run, in, n * sizeof *run);
	int cur = 0;
	const float none = is_max ? -INFINITY : INFINITY;
	for (int dy = r; dy >= 0; dy--) {
		int half = (int)floor(sqrt((double)r * r - (double)dy * dy));
		/* row y widened, then output row q = y - dy combined: it reads
		 * rows q - dy (widened 2 dy rows before) and q + dy = y */
		for (int y = 0; y < h + dy; y++) {
			if (half > cur && y < h)
				widen(run + (size_t)y * w, t, w, cur, half, is_max);
			int q = y - dy;
			if (q < 0)
				continue;
			float *o = out + (size_t)q * w;
			const float *up = q - dy >= 0 ? run + (size_t)(q - dy) * w : NULL;
			const float *dn = q + dy < h ? run + (size_t)(q + dy) * w : NULL;
			if (dy == 0)
				ext2(o, o, dn, w, is_max);
			else if (dy == r) { /* the first rows: o written, not combined */
				if (up && dn)
					ext2(o, up, dn, w, is_max);
				else if (up || dn)
					memcpy(o, up ? up : dn, (size_t)w * sizeof *o);
				else
					for (int x = 0; x < w; x++)
						o[x] = none;
			} else if (up && dn)
				ext3(o, o, up, dn, w, is_max);
			else if (up || dn)
				ext2(o, o, up ? up : dn, w, is_max);
		}
		if (half > cur)
			cur = half;
	}
	free(run);
	free(t);
	return 0;
}
