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
#include <stdint.h>
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
 * After them, n bit-reversed indices (as 32-bit integers in the floats'
 * place): the reordering read from a table instead of the carry loop that
 * made each index (a fifth of a 256-point transform).
 * One allocation of 3 n floats (wi = wr + n, the indices at wr + 2 n);
 * NULL on out of memory.
 */
static float *twiddles(size_t n)
{
	size_t m = n ? n : 1;
	float *wr = malloc(3 * m * sizeof *wr);
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
	uint32_t *rev = (uint32_t *)(void *)(wr + 2 * m);
	for (size_t i = 0, j = 0; i < n; i++) {
		rev[i] = (uint32_t)j;
		size_t bit = n >> 1;
		for (; j & bit; bit >>= 1)
			j ^= bit;
		j ^= bit;
	}
	return wr;
}

#if defined(__GNUC__) && !defined(__clang__) /* __builtin_shuffle: GCC's; clang (the fuzz build) keeps the loop */
typedef int v4i __attribute__((vector_size(16)));

/* One butterfly stage on four pairs at once: a = a + t, b = a - t with
 * t = b w; per lane the same operations in the same order as the scalar
 * butterfly of fft_tab, so the same bits. */
static inline void bfly4(v4f *ar, v4f *ai, v4f *br, v4f *bi, v4f wr, v4f wi)
{
	v4f tr = *br * wr - *bi * wi, ti = *br * wi + *bi * wr;
	v4f o1 = *ar - tr, o2 = *ai - ti, o3 = *ar + tr, o4 = *ai + ti;
	*br = o1;
	*bi = o2;
	*ar = o3;
	*ai = o4;
}

/* The first two stages (half 1 and 2: one and two butterflies a block,
 * which the four-wide loop cannot take) for eight samples at a time, the
 * samples shuffled into lanes and back; n a multiple of 8. They were two
 * fifths of a 256-point transform done one butterfly at a time. */
static void first_stages8(float *re, float *im, size_t n, const float *tw, float sgn)
{
	const v4i ev = {0, 2, 4, 6}, od = {1, 3, 5, 7};
	const v4i lo = {0, 4, 2, 6}, hi = {1, 5, 3, 7};
	const v4i o0 = {0, 1, 4, 5}, o1 = {2, 3, 6, 7};
	/* stage 1: factor tw[0]; stage 2: tw[1], tw[2] for k = 0, 1 */
	v4f w1r = {tw[0], tw[0], tw[0], tw[0]}, w1i = (v4f){tw[n], tw[n], tw[n], tw[n]} * sgn;
	v4f w2r = {tw[1], tw[2], tw[1], tw[2]}, w2i = (v4f){tw[n + 1], tw[n + 2], tw[n + 1], tw[n + 2]} * sgn;
	for (size_t i = 0; i < n; i += 8) {
		v4f r0 = fs_load4f(re + i), r1 = fs_load4f(re + i + 4);
		v4f i0 = fs_load4f(im + i), i1 = fs_load4f(im + i + 4);
		/* stage 1: pairs (2q, 2q + 1) */
		v4f ar = __builtin_shuffle(r0, r1, ev), br = __builtin_shuffle(r0, r1, od);
		v4f ai = __builtin_shuffle(i0, i1, ev), bi = __builtin_shuffle(i0, i1, od);
		bfly4(&ar, &ai, &br, &bi, w1r, w1i);
		/* now sample 2q is a[q], 2q + 1 is b[q]; stage 2 pairs
		 * (4p + k, 4p + 2 + k): a = samples 0 1 4 5, b = 2 3 6 7 */
		v4f cr = __builtin_shuffle(ar, br, lo), dr = __builtin_shuffle(ar, br, hi);
		v4f ci = __builtin_shuffle(ai, bi, lo), di = __builtin_shuffle(ai, bi, hi);
		bfly4(&cr, &ci, &dr, &di, w2r, w2i);
		r0 = __builtin_shuffle(cr, dr, o0);
		r1 = __builtin_shuffle(cr, dr, o1);
		i0 = __builtin_shuffle(ci, di, o0);
		i1 = __builtin_shuffle(ci, di, o1);
		memcpy(re + i, &r0, sizeof r0);
		memcpy(re + i + 4, &r1, sizeof r1);
		memcpy(im + i, &i0, sizeof i0);
		memcpy(im + i + 4, &i1, sizeof i1);
	}
}
#define FFT_FIRST_STAGES8 1
#endif

/* Contiguous transform of n samples with the table of n (see twiddles). */
static void fft_tab(float *re, float *im, size_t n, const float *tw, int inverse)
{
	const uint32_t *rev = (const uint32_t *)(const void *)(tw + 2 * n);
	for (size_t i = 1; i < n; i++) {
		size_t j = rev[i];
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
	size_t half = 1;
#ifdef FFT_FIRST_STAGES8
	if (n >= 8) {
		first_stages8(re, im, n, tw, sgn);
		half = 4;
	}
#endif
	for (; half < n; half <<= 1) {
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
 * half_work_alloc returns 0, or -1 for a size the transforms do not
 * take or when out of memory (nothing left allocated); half_work_free
 * frees it after use. */
typedef struct half_work {
	size_t nk;
	float *tw, *th, *sr, *si, *zr, *zi;
} half_work;

static void half_work_free(half_work *b)
{
	free(b->tw);
	free(b->th);
	free(b->sr);
	free(b->si);
	free(b->zr);
	free(b->zi);
}

static int half_work_alloc(size_t w, size_t h, half_work *b)
{
	/* (the radix-2 transforms take powers of two, and a line of one
	 * sample has no half spectrum to keep) */
	if (!fs_fft_is_pow2(w) || !fs_fft_is_pow2(h) || w < 2 || h < 2)
		return -1;
	size_t m = w > h ? w : h;
	b->nk = w / 2 + 1;
	b->tw = twiddles(w);
	b->th = twiddles(h);
	b->sr = malloc(b->nk * h * sizeof *b->sr);
	b->si = malloc(b->nk * h * sizeof *b->si);
	b->zr = malloc(m * sizeof *b->zr);
	b->zi = malloc(m * sizeof *b->zi);
	if (b->tw && b->th && b->sr && b->si && b->zr && b->zi)
		return 0;
	half_work_free(b);
	return -1;
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
	half_work hw;
	if (half_work_alloc(w, h, &hw))
		return -1;
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
	half_work hw;
	if (half_work_alloc(w, h, &hw))
		return -1;
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
