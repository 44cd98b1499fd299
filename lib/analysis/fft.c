/*
 * fft.c - iterative radix-2 Cooley-Tukey FFT (see fft.h).
 *
 * Twiddles come from per-stage tables computed in double (direct cos/sin,
 * no recurrence) and stored as float, so the butterflies are float vector
 * arithmetic, four at a time. fs_fft2d builds one table per axis and reuses
 * it for every row and column.
 */
#include "analysis/fft.h"
#include "analysis/lanes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int fs_fft_is_pow2(size_t n)
{
	return n && !(n & (n - 1));
}

/*
 * Twiddles per stage, contiguous so that four butterflies run as one vector
 * operation: the stage of length len (half = len / 2) has its half factors
 * e^{-2 pi i k / len}, k < half, at offset half - 1 of wr and wi (the
 * stages' tables follow each other: 1 + 2 + ... + n / 4 = n / 2 - 1).
 * One allocation of 2 n floats (wi = wr + n); NULL on out of memory.
 */
static float *twiddles(size_t n)
{
	float *wr = malloc(2 * (n ? n : 1) * sizeof *wr);
	if (!wr)
		return NULL;
	float *wi = wr + n;
	for (size_t half = 1; half < n; half <<= 1) {
		for (size_t k = 0; k < half; k++) {
			double a = -M_PI * (double)k / (double)half;
			wr[half - 1 + k] = (float)cos(a);
			wi[half - 1 + k] = (float)sin(a);
		}
	}
	return wr;
}

/* Contiguous transform of n samples with the table of n (see twiddles). */
static void fft_tab(float *re, float *im, size_t n, const float *tw, int inverse)
{
	for (size_t i = 1, j = 0; i < n; i++) {
		size_t bit = n >> 1;
		for (; j & bit; bit >>= 1)
			j ^= bit;
		j ^= bit;
		if (i < j) {
			float t = re[i];
			re[i] = re[j];
			re[j] = t;
			t = im[i];
			im[i] = im[j];
			im[j] = t;
		}
	}
	float sgn = inverse ? -1.0f : 1.0f;
	for (size_t half = 1; half < n; half <<= 1) {
		const float *cr = tw + half - 1, *ci = tw + n + half - 1;
		for (size_t i0 = 0; i0 < n; i0 += 2 * half) {
			float *ar = re + i0, *ai = im + i0, *br = ar + half, *bi = ai + half;
			size_t k = 0;
			for (; k + 4 <= half; k += 4) {
				v4f wr = fs_load4f(cr + k), wi = fs_load4f(ci + k) * sgn;
				v4f xr = fs_load4f(br + k), xi = fs_load4f(bi + k);
				v4f yr = fs_load4f(ar + k), yi = fs_load4f(ai + k);
				v4f tr = xr * wr - xi * wi, ti = xr * wi + xi * wr;
				v4f o1 = yr - tr, o2 = yi - ti, o3 = yr + tr, o4 = yi + ti;
				memcpy(br + k, &o1, sizeof o1);
				memcpy(bi + k, &o2, sizeof o2);
				memcpy(ar + k, &o3, sizeof o3);
				memcpy(ai + k, &o4, sizeof o4);
			}
			for (; k < half; k++) {
				float wr = cr[k], wi = sgn * ci[k];
				float tr = br[k] * wr - bi[k] * wi, ti = br[k] * wi + bi[k] * wr;
				br[k] = ar[k] - tr;
				bi[k] = ai[k] - ti;
				ar[k] += tr;
				ai[k] += ti;
			}
		}
	}
}

int fs_fft(float *re, float *im, size_t n, size_t stride, int inverse)
{
	if (!fs_fft_is_pow2(n))
		return -1;
	float *tw = twiddles(n);
	float *cr = NULL, *ci = NULL;
	int rc = -1;
	if (!tw)
		goto out;
	if (stride == 1) {
		fft_tab(re, im, n, tw, inverse);
	} else {
		cr = malloc(n * sizeof *cr);
		ci = malloc(n * sizeof *ci);
		if (!cr || !ci)
			goto out;
		for (size_t i = 0; i < n; i++) {
			cr[i] = re[i * stride];
			ci[i] = im[i * stride];
		}
		fft_tab(cr, ci, n, tw, inverse);
		for (size_t i = 0; i < n; i++) {
			re[i * stride] = cr[i];
			im[i * stride] = ci[i];
		}
	}
	rc = 0;
out:
	free(tw);
	free(cr);
	free(ci);
	return rc;
}

int fs_fft2d(float *re, float *im, size_t w, size_t h, int inverse)
{
	if (!fs_fft_is_pow2(w) || !fs_fft_is_pow2(h))
		return -1;
	int rc = -1;
	float *tw = twiddles(w), *th = twiddles(h);
	/* Columns are gathered into contiguous scratch: a strided transform
	 * would touch a new cache line at every sample. */
	float *cr = malloc(h * sizeof *cr), *ci = malloc(h * sizeof *ci);
	if (!tw || !th || !cr || !ci)
		goto out;
	for (size_t y = 0; y < h; y++)
		fft_tab(re + y * w, im + y * w, w, tw, inverse);
	for (size_t x = 0; x < w; x++) {
		for (size_t y = 0; y < h; y++) {
			cr[y] = re[y * w + x];
			ci[y] = im[y * w + x];
		}
		fft_tab(cr, ci, h, th, inverse);
		for (size_t y = 0; y < h; y++) {
			re[y * w + x] = cr[y];
			im[y * w + x] = ci[y];
		}
	}
	rc = 0;
out:
	free(tw);
	free(th);
	free(cr);
	free(ci);
	return rc;
}

/* The buffers of half_power and what follows it in fs_autocorr2d and
 * fs_power2d: the twiddles of both sizes, the kept spectrum columns (sr,
 * si: h rows of nk = w/2 + 1) and one line of scratch (zr, zi: max(w, h)).
 * half_work_alloc returns 0, or -1 when out of memory; half_work_free
 * frees what was allocated either way. */
typedef struct half_work {
	size_t nk;
	float *tw, *th, *sr, *si, *zr, *zi;
} half_work;

static int half_work_alloc(size_t w, size_t h, half_work *b)
{
	size_t m = w > h ? w : h;
	b->nk = w / 2 + 1;
	b->tw = twiddles(w);
	b->th = twiddles(h);
	b->sr = malloc(b->nk * h * sizeof *b->sr);
	b->si = malloc(b->nk * h * sizeof *b->si);
	b->zr = malloc(m * sizeof *b->zr);
	b->zi = malloc(m * sizeof *b->zi);
	return b->tw && b->th && b->sr && b->si && b->zr && b->zi ? 0 : -1;
}

static void half_work_free(half_work *b)
{
	free(b->tw);
	free(b->th);
	free(b->sr);
	free(b->si);
	free(b->zr);
	free(b->zi);
}

/*
 * The forward half both fs_autocorr2d and fs_power2d share: the power
 * spectrum's columns kx <= w/2 into sr (h rows of w/2 + 1), from rows
 * transformed two at a time (Z = row a + i row b) and those columns
 * transformed. si, zr and zi are scratch (si as sr, zr and zi max(w, h)).
 */
static void half_power(const float *data, size_t w, size_t h, const float *tw, const float *th, float *sr,
		       float *si, float *zr, float *zi)
{
	size_t nk = w / 2 + 1;
	for (size_t r = 0; r < h; r += 2) {
		memcpy(zr, data + r * w, w * sizeof *zr);
		memcpy(zi, data + (r + 1) * w, w * sizeof *zi);
		fft_tab(zr, zi, w, tw, 0);
		for (size_t k = 0; k < nk; k++) {
			size_t c = (w - k) & (w - 1);
			sr[r * nk + k] = 0.5f * (zr[k] + zr[c]);
			si[r * nk + k] = 0.5f * (zi[k] - zi[c]);
			sr[(r + 1) * nk + k] = 0.5f * (zi[k] + zi[c]);
			si[(r + 1) * nk + k] = -0.5f * (zr[k] - zr[c]);
		}
	}
	for (size_t k = 0; k < nk; k++) {
		for (size_t y = 0; y < h; y++) {
			zr[y] = sr[y * nk + k];
			zi[y] = si[y * nk + k];
		}
		fft_tab(zr, zi, h, th, 0);
		for (size_t y = 0; y < h; y++)
			sr[y * nk + k] = zr[y] * zr[y] + zi[y] * zi[y];
	}
}

/*
 * Autocorrelation through real-input symmetries: two real rows share one
 * complex transform, only the columns kx <= w/2 of the (Hermitian) spectrum
 * are transformed, the real power spectrum's columns are inverted two at a
 * time, and two real output rows share one inverse transform. About 2.3
 * times fewer 1-D transforms than the plain complex route.
 */
int fs_autocorr2d(float *data, size_t w, size_t h, int zero_dc)
{
	if (!fs_fft_is_pow2(w) || !fs_fft_is_pow2(h) || w < 2 || h < 2)
		return -1;
	half_work hw;
	if (half_work_alloc(w, h, &hw)) {
		half_work_free(&hw);
		return -1;
	}
	size_t nk = hw.nk; /* spectrum columns kept */
	const float *tw = hw.tw, *th = hw.th;
	float *sr = hw.sr, *si = hw.si, *zr = hw.zr, *zi = hw.zi;
	half_power(data, w, h, tw, th, sr, si, zr, zi);
	if (zero_dc)
		sr[0] = 0;
	/* Inverse columns, two real ones at a time; the result is Hermitian in y. */
	for (size_t k = 0; k < nk; k += 2) {
		int pair = k + 1 < nk;
		for (size_t y = 0; y < h; y++) {
			zr[y] = sr[y * nk + k];
			zi[y] = pair ? sr[y * nk + k + 1] : 0;
		}
		fft_tab(zr, zi, h, th, 1);
		for (size_t y = 0; y < h; y++) {
			size_t c = (h - y) & (h - 1);
			sr[y * nk + k] = 0.5f * (zr[y] + zr[c]);
			si[y * nk + k] = 0.5f * (zi[y] - zi[c]);
			if (pair) {
				sr[y * nk + k + 1] = 0.5f * (zi[y] + zi[c]);
				si[y * nk + k + 1] = -0.5f * (zr[y] - zr[c]);
			}
		}
	}
	/* Inverse rows, two real outputs at a time from their Hermitian halves. */
	for (size_t r = 0; r < h; r += 2) {
		const float *ar = sr + r * nk, *ai = si + r * nk;
		const float *br = sr + (r + 1) * nk, *bi = si + (r + 1) * nk;
		for (size_t k = 0; k < w; k++) {
			float a_re, a_im, b_re, b_im;
			if (k < nk) {
				a_re = ar[k], a_im = ai[k], b_re = br[k], b_im = bi[k];
			} else {
				a_re = ar[w - k], a_im = -ai[w - k], b_re = br[w - k], b_im = -bi[w - k];
			}
			zr[k] = a_re - b_im; /* F_a + i F_b */
			zi[k] = a_im + b_re;
		}
		fft_tab(zr, zi, w, tw, 1);
		memcpy(data + r * w, zr, w * sizeof *zr);
		memcpy(data + (r + 1) * w, zi, w * sizeof *zi);
	}
	half_work_free(&hw);
	return 0;
}

int fs_power2d(const float *data, size_t w, size_t h, float *pw)
{
	if (!fs_fft_is_pow2(w) || !fs_fft_is_pow2(h) || w < 2 || h < 2)
		return -1;
	half_work hw;
	if (half_work_alloc(w, h, &hw)) {
		half_work_free(&hw);
		return -1;
	}
	size_t nk = hw.nk; /* spectrum columns transformed */
	const float *sr = hw.sr;
	half_power(data, w, h, hw.tw, hw.th, hw.sr, hw.si, hw.zr, hw.zi);
	/* the columns kx > w/2 mirror those: P(kx, ky) = P(w - kx, h - ky) */
	for (size_t y = 0; y < h; y++)
		for (size_t k = 0; k < nk; k++) {
			float p = sr[y * nk + k];
			pw[y * w + k] = p;
			if (k > 0 && k < w - k)
				pw[((h - y) & (h - 1)) * w + (w - k)] = p;
		}
	half_work_free(&hw);
	return 0;
}
