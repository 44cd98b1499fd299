/*
 * fft.h - in-place radix-2 complex FFT, 1-D and 2-D (power-of-two sizes),
 * used for the lattice pitch estimate (power spectrum / autocorrelation).
 *
 * The caller owns the re/im arrays. The inverse transform is unscaled
 * (divide by n, or w*h, yourself).
 */
#ifndef FS_FFT_H
#define FS_FFT_H

#include <stddef.h>

/* 1 if n is a power of two >= 1. */
int fs_fft_is_pow2(size_t n);

/* Transform of n samples with the given stride between them.
 * inverse 0 = forward (e^{-i...}), 1 = inverse. Returns -1 if n is not a power of two
 * or on out of memory (twiddle table, scratch for stride > 1). */
int fs_fft(float *re, float *im, size_t n, size_t stride, int inverse);

/* 2-D transform of a w x h row-major array (rows, then columns).
 * Returns -1 if a size is not a power of two or on out of memory. */
int fs_fft2d(float *re, float *im, size_t w, size_t h, int inverse);

/*
 * Power spectrum of the real w x h image data: pw[ky * w + kx] =
 * |FFT(data)(kx, ky)|^2 (unscaled, forward), every bin. Through the
 * real-input symmetries of fs_autocorr2d (two rows share one complex
 * transform, only the columns kx <= w/2 are transformed, the others are
 * their Hermitian mirrors): about half the 1-D transforms of fs_fft2d,
 * the same bins up to float rounding. w and h: powers of two >= 2.
 * Returns 0, or -1 (bad size, out of memory). The caller owns both arrays.
 */
int fs_power2d(const float *data, size_t w, size_t h, float *pw);

/*
 * Circular autocorrelation of the real w x h image data, in place:
 * data <- IFFT(|FFT(data)|^2) with both transforms unscaled (so data[0] is
 * w * h * sum of squares). zero_dc 1 sets the spectrum's DC term to 0 first
 * (the autocorrelation of the mean-free image). w and h: powers of two >= 2.
 * Returns 0, or -1 (bad size, out of memory; data is then unchanged).
 */
int fs_autocorr2d(float *data, size_t w, size_t h, int zero_dc);

#endif
