/*
 * halftone.c - the spectral peak of a halftone screen (see halftone.h).
 */
#include "analysis/halftone.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fft.h"

/* The largest crop fs_halftone_crop gives. */
#define CROP_MAX 256

/*
 * The last crop read and what it gave. Why: the dome rule asks twice
 * about its measurement image, once for the formation fit
 * (fs_dome_fit_image) and once for the offset's screen
 * (fs_det_offset_screen_fits), each a 256 x 256 power spectrum: 10.6 M
 * instructions each on the 2048 x 1536 lattice and on P1 Fig1. The answer
 * depends on the crop's pixels alone, so a crop equal to the last one to
 * the bit gets the last answer (the same bits); any other crop is read
 * afresh and becomes the last one. Under a lock: detection's threads may
 * ask about their own images.
 */
static struct {
	pthread_mutex_t lock;
	int n; /* the kept crop's side, 0: none */
	float px[CROP_MAX * CROP_MAX];
	double period, ratio;
} g_last = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

/* Whether the bin (u, v) may lie at a distance in [lo, hi] from the
 * origin: a test on the exact integer u^2 + v^2 with 0.01 bin to spare, so
 * that hypot() (within an ulp) is only called near the band, where it
 * decides as before. (hypot itself is kept: it differs from
 * sqrt(u^2 + v^2) in the last bit for about 1 bin in 200.) */
static int near_band(int u, int v, double lo, double hi)
{
	double r2 = (double)u * u + (double)v * v;
	double a = lo - 0.01, b = hi + 0.01;
	return !(a > 0 && r2 < a * a) && !(r2 > b * b);
}

/* Median power of the ring of radius rk +- 1 bin (upper half plane). */
static double ring_median(const float *pw, int n, double rk, float *buf)
{
	size_t m = 0;
	for (int v = 0; v <= n / 2; v++) {
		for (int u = -n / 2 + 1; u < n / 2; u++) {
			if (!near_band(u, v, rk - 1, rk + 1))
				continue;
			double r = hypot(u, v);
			if (fabs(r - rk) <= 1)
				buf[m++] = pw[(size_t)v * n + (u < 0 ? u + n : u)];
		}
	}
	if (!m)
		return 0;
	qsort(buf, m, sizeof *buf, cmp_float);
	return buf[m / 2];
}

/* Strongest bin within 2 bins of (u, v) (any half plane). */
static double peak_near(const float *pw, int n, int u, int v)
{
	double best = 0;
	for (int dv = -2; dv <= 2; dv++)
		for (int du = -2; du <= 2; du++) {
			int uu = ((u + du) % n + n) % n, vv = ((v + dv) % n + n) % n;
			best = fmax(best, pw[(size_t)vv * n + uu]);
		}
	return best;
}

int fs_halftone_crop(int w, int h, int *x0, int *y0)
{
	int s = w < h ? w : h;
	if (s < 64)
		return 0;
	int n = 64;
	while (2 * n <= s && n < 256)
		n *= 2;
	*x0 = (w - n) / 2;
	*y0 = (h - n) / 2;
	return n;
}

int fs_halftone_detect(const fs_image *img, double *period, double *ratio)
{
	*period = 0;
	if (ratio)
		*ratio = 0;
	int x0 = 0, y0 = 0, n = fs_halftone_crop(img->width, img->height, &x0, &y0);
	if (!n)
		return 0;
	/* (calloc: the sanitizer build cannot see that the loops below fill it) */
	float *re = calloc((size_t)n * n, sizeof *re), *pw = malloc((size_t)n * n * sizeof *pw);
	float *buf = malloc((size_t)n * n * sizeof *buf), *crop = malloc((size_t)n * n * sizeof *crop);
	double *wx = malloc((size_t)n * sizeof *wx);
	int rc = -1, kept = 0;
	double per = 0, rat = 0;
	if (!re || !pw || !buf || !crop || !wx)
		goto out;
	for (int y = 0; y < n; y++)
		for (int x = 0; x < n; x++)
			crop[(size_t)y * n + x] = fs_image_at(img, x0 + x, y0 + y);
	pthread_mutex_lock(&g_last.lock);
	if (g_last.n == n && !memcmp(g_last.px, crop, (size_t)n * n * sizeof *crop)) {
		per = g_last.period;
		rat = g_last.ratio;
		kept = 1;
	}
	pthread_mutex_unlock(&g_last.lock);
	if (kept) {
		rc = 0;
		goto out;
	}
	double mean = 0;
	for (int y = 0; y < n; y++)
		for (int x = 0; x < n; x++)
			mean += crop[(size_t)y * n + x];
	mean /= (double)n * n;
	/* the Hann window along x, once (it was a cos per pixel) */
	for (int x = 0; x < n; x++)
		wx[x] = 0.5 - 0.5 * cos(2 * M_PI * (x + 0.5) / n);
	for (int y = 0; y < n; y++) {
		double wy = 0.5 - 0.5 * cos(2 * M_PI * (y + 0.5) / n);
		for (int x = 0; x < n; x++)
			re[(size_t)y * n + x] = (float)(wx[x] * wy * (crop[(size_t)y * n + x] - mean));
	}
	/* the windowed crop is real: its power spectrum through the
	 * real-input transforms (half the 1-D transforms of a complex one) */
	if (fs_power2d(re, (size_t)n, (size_t)n, pw))
		goto out;
	/* the strongest bin at periods 2.5..8 px, upper half plane */
	double kmin = n / 8.0, kmax = n / 2.5, best = 0;
	int bu = 0, bv = 0;
	for (int v = 0; v <= n / 2; v++) {
		for (int u = -n / 2 + 1; u < n / 2; u++) {
			if (!near_band(u, v, kmin, kmax))
				continue;
			double r = hypot(u, v);
			if (r < kmin || r > kmax)
				continue;
			double p = pw[(size_t)v * n + (u < 0 ? u + n : u)];
			if (p > best) {
				best = p;
				bu = u;
				bv = v;
			}
		}
	}
	rc = 0;
	if (!(best > 0))
		goto out;
	double rk = hypot(bu, bv);
	double med = ring_median(pw, n, rk, buf);
	if (!(med > 0))
		goto out;
	/* the partner turned by 90 degrees: (-v, u) */
	double p2 = peak_near(pw, n, -bv, bu);
	double q = fmin(best, p2) / med;
	rat = q;
	/* the peak turned by 60 and by 120 degrees: a harmonic of the
	 * tubercles' hexagonal lattice has partners there (halftone.h) */
	double c60 = 0.5, s60 = sqrt(3) / 2;
	int u60 = (int)lround(c60 * bu - s60 * bv), v60 = (int)lround(s60 * bu + c60 * bv);
	int u120 = (int)lround(-c60 * bu - s60 * bv), v120 = (int)lround(s60 * bu - c60 * bv);
	double six = fmax(peak_near(pw, n, u60, v60), peak_near(pw, n, u120, v120));
	if (q >= FS_HALFTONE_MIN_RATIO && six < FS_HALFTONE_MAX_SIXFOLD * fmin(best, p2))
		per = n / rk;
out:
	if (rc == 0) {
		*period = per;
		if (ratio)
			*ratio = rat;
		if (!kept && n <= CROP_MAX) {
			pthread_mutex_lock(&g_last.lock);
			memcpy(g_last.px, crop, (size_t)n * n * sizeof *crop);
			g_last.n = n;
			g_last.period = per;
			g_last.ratio = rat;
			pthread_mutex_unlock(&g_last.lock);
		}
	}
	free(crop);
	free(re);
	free(pw);
	free(buf);
	free(wx);
	return rc;
}
