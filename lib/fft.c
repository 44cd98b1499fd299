/*
 * fft.c - iterative radix-2 Cooley-Tukey FFT (see fft.h).
 *
 * Twiddles are computed in double by recurrence per stage, which keeps the
 * error of a 1024-point float transform far below what the peak finding needs.
 */
#include "fft.h"

#include <math.h>
#include <stdlib.h>

int fs_fft_is_pow2(size_t n)
{
	return n && !(n & (n - 1));
}

int fs_fft(float *re, float *im, size_t n, size_t stride, int inverse)
{
	if (!fs_fft_is_pow2(n))
		return -1;
	/* Bit-reversal permutation. */
	for (size_t i = 1, j = 0; i < n; i++) {
		size_t bit = n >> 1;
		for (; j & bit; bit >>= 1)
			j ^= bit;
		j ^= bit;
		if (i < j) {
			float t = re[i * stride];
			re[i * stride] = re[j * stride];
			re[j * stride] = t;
			t = im[i * stride];
			im[i * stride] = im[j * stride];
			im[j * stride] = t;
		}
	}
	for (size_t len = 2; len <= n; len <<= 1) {
		double ang = (inverse ? 2.0 : -2.0) * M_PI / (double)len;
		double wr0 = cos(ang), wi0 = sin(ang);
		size_t half = len >> 1;
		double wr = 1.0, wi = 0.0;
		for (size_t k = 0; k < half; k++) {
			for (size_t i = k; i < n; i += len) {
				size_t a = i * stride, b = (i + half) * stride;
				float tr = (float)(re[b] * wr - im[b] * wi);
				float ti = (float)(re[b] * wi + im[b] * wr);
				re[b] = re[a] - tr;
				im[b] = im[a] - ti;
				re[a] += tr;
				im[a] += ti;
			}
			double t = wr * wr0 - wi * wi0;
			wi = wr * wi0 + wi * wr0;
			wr = t;
		}
	}
	return 0;
}

int fs_fft2d(float *re, float *im, size_t w, size_t h, int inverse)
{
	if (!fs_fft_is_pow2(w) || !fs_fft_is_pow2(h))
		return -1;
	for (size_t y = 0; y < h; y++)
		fs_fft(re + y * w, im + y * w, w, 1, inverse);
	/* Columns are gathered into contiguous scratch: a strided transform
	 * would touch a new cache line at every sample. */
	float *cr = malloc(h * sizeof *cr), *ci = malloc(h * sizeof *ci);
	if (!cr || !ci) {
		free(cr);
		free(ci);
		return -1;
	}
	for (size_t x = 0; x < w; x++) {
		for (size_t y = 0; y < h; y++) {
			cr[y] = re[y * w + x];
			ci[y] = im[y * w + x];
		}
		fs_fft(cr, ci, h, 1, inverse);
		for (size_t y = 0; y < h; y++) {
			re[y * w + x] = cr[y];
			im[y * w + x] = ci[y];
		}
	}
	free(cr);
	free(ci);
	return 0;
}
