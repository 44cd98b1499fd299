/* image.c - allocation of the working image, float or compact, and the
 * conversion of compact samples to floats (see image.h). */
#include "image/image.h"
#include "base/cpu_features.h"
#include "base/heap_policy.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

fs_image *fs_image_new_uninit(int width, int height)
{
	if (width <= 0 || height <= 0)
		return NULL;
	if ((size_t)width > SIZE_MAX / sizeof(float) / (size_t)height)
		return NULL;
	fs_image *img = malloc(sizeof *img);
	if (!img)
		return NULL;
	img->width = width;
	img->height = height;
	img->bits = 0;
	img->px = NULL;
	img->data = malloc((size_t)width * (size_t)height * sizeof(float));
	if (!img->data) {
		free(img);
		return NULL;
	}
	/* every pixel is written next: its pages mapped in one call */
	fs_heap_prefault(img->data, (size_t)width * (size_t)height * sizeof(float));
	return img;
}

fs_image *fs_image_new(int width, int height)
{
	fs_image *img = fs_image_new_uninit(width, height);
	if (img)
		memset(img->data, 0, (size_t)width * (size_t)height * sizeof(float));
	return img;
}

fs_image *fs_image_new_compact(int width, int height, int bits)
{
	if (width <= 0 || height <= 0 || (bits != 8 && bits != 16))
		return NULL;
	size_t bpp = bits / 8;
	if ((size_t)width > SIZE_MAX / bpp / (size_t)height)
		return NULL;
	fs_image *img = calloc(1, sizeof *img);
	if (!img)
		return NULL;
	img->width = width;
	img->height = height;
	img->bits = bits;
	img->px = malloc((size_t)width * (size_t)height * bpp);
	if (!img->px) {
		free(img);
		return NULL;
	}
	fs_heap_prefault(img->px, (size_t)width * (size_t)height * bpp);
	return img;
}

/* k / 255.0 and k / 65535.0 in double, then to float: the loaders'
 * conversions (equal, value for value, to their float divisions). */
static float lut8[256];
static pthread_once_t lut_once = PTHREAD_ONCE_INIT;
static float lut16[65536];

static void make_luts(void)
{
	for (int k = 0; k < 256; k++)
		lut8[k] = (float)(k / 255.0);
	for (int k = 0; k < 65536; k++)
		lut16[k] = (float)(k / 65535.0);
}

float fs_image_compact_value(int bits, unsigned k)
{
	pthread_once(&lut_once, make_luts);
	return bits == 16 ? lut16[k & 0xffff] : lut8[k & 0xff];
}

/*
 * The conversions of a span. k / 255.0f in float is (float)(k / 255.0) for
 * every code (a float division is correctly rounded, and k / 255 never lies
 * close enough to a float midpoint for the double's rounding to matter;
 * likewise k / 65535.0f; test_image_compact checks every code). Written in
 * blocks of 16 with no table, GCC -O2 makes the division vector code: about
 * twice as fast as the table lookups, which cost a fifth of a one-thread
 * extraction of a 100 MP image (five passes over it convert it).
 */
static void span8(const uint8_t *restrict p, float *restrict out, int n)
{
	int i = 0;
	for (; i + 16 <= n; i += 16)
		for (int j = 0; j < 16; j++)
			out[i + j] = (float)p[i + j] / 255.0f;
	for (; i < n; i++)
		out[i] = (float)p[i] / 255.0f;
}

static void span16(const uint16_t *restrict p, float *restrict out, int n)
{
	int i = 0;
	for (; i + 16 <= n; i += 16)
		for (int j = 0; j < 16; j++)
			out[i + j] = (float)p[i + j] / 65535.0f;
	for (; i < n; i++)
		out[i] = (float)p[i] / 65535.0f;
}

const float *fs_image_span(const fs_image *img, int x0, int y, int n, float *buf)
{
	size_t at = (size_t)y * (size_t)img->width + (size_t)x0;
	if (!img->bits)
		return img->data + at;
	if (img->bits == 8)
		span8((const uint8_t *)img->px + at, buf, n);
	else
		span16((const uint16_t *)img->px + at, buf, n);
	return buf;
}

/* The disc's rows: y0..y1 clipped to the image, and x0, x1 the square's
 * columns, for disc_run. */
typedef struct disc_box {
	int x0, x1, y0, y1;
} disc_box;

static inline disc_box disc_box_of(const fs_image *img, double x, double y, double r)
{
	disc_box d = {(int)floor(x - r), (int)ceil(x + r), (int)floor(y - r), (int)ceil(y + r)};
	if (d.y0 < 0)
		d.y0 = 0;
	if (d.y1 > img->height - 1)
		d.y1 = img->height - 1;
	return d;
}

/* Row yy's pixels inside the disc: the run [*pa, *pb] (empty where *pa >
 * *pb). A row's pixels inside the disc are one run: the test's value
 * (xx - x)^2 + dy^2, rounded at every step, falls and then rises with xx
 * (rounding is monotone), so the run's ends are found from the row's ends
 * inwards and the pixels between them summed untested, in the same order
 * (the test of every pixel was two thirds of the cost: the dome rule
 * reads this once per dome; h35d). Inlined into both sums' loops. */
__attribute__((always_inline)) static inline void disc_run(const fs_image *img, double x, double y, double r,
							   const disc_box *d, int yy, int *pa, int *pb)
{
	double dy2 = (yy - y) * (yy - y);
	int a = d->x0 < 0 ? 0 : d->x0, b = d->x1 < img->width ? d->x1 : img->width - 1;
	/* The searches start 1 px outside the row's half chord h: a pixel
	 * farther than h + 1 from x fails the test by (h + 1)^2 - h^2 >= 1
	 * (px^2), far beyond its rounding, so the run found is the same,
	 * with a test or two a side instead of the square's corners (h43n;
	 * a, b >= 0 where moved, so the truncation is the floor) */
	double h = r * r - dy2 > 0 ? sqrt(r * r - dy2) : 0;
	if (x - h - 1 > a)
		a = (int)(x - h - 1);
	if (x + h + 1 < b && x + h + 1 >= 0)
		b = (int)(x + h + 1) + 1;
	while (a <= b && (a - x) * (a - x) + dy2 > r * r)
		a++;
	while (b >= a && (b - x) * (b - x) + dy2 > r * r)
		b--;
	*pa = a;
	*pb = b;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* disc_sums' sums and count four pixels a step: {s, s2} one pair of
 * lanes, each lane adding in the plain loop's order (s += v, s2 += v v,
 * pixel by pixel), so the same bits; the four widened by one conversion
 * and squared by one product (h50d: the plain loop was 7.5 instructions a
 * pixel, 19 M on the 2048 x 1536 lattice). Run only where fs_cpu_has_avx
 * says so. */
__attribute__((target("avx"))) static long disc_sums_avx(const fs_image *img, double x, double y, double r,
							 double *s, double *s2)
{
	__m128d acc = _mm_setzero_pd();
	long n = 0;
	disc_box d = disc_box_of(img, x, y, r);
	for (int yy = d.y0; yy <= d.y1; yy++) {
		int a, b;
		disc_run(img, x, y, r, &d, yy, &a, &b);
		const float *row = img->data + (size_t)yy * (size_t)img->width;
		int xx = a;
		for (; xx + 3 <= b; xx += 4) {
			__m256d v = _mm256_cvtps_pd(_mm_loadu_ps(row + xx)), q = _mm256_mul_pd(v, v);
			/* {a, a a, c, c c} and {b, b b, d, d d} */
			__m256d lo = _mm256_unpacklo_pd(v, q), hi = _mm256_unpackhi_pd(v, q);
			acc = _mm_add_pd(acc, _mm256_castpd256_pd128(lo));
			acc = _mm_add_pd(acc, _mm256_castpd256_pd128(hi));
			acc = _mm_add_pd(acc, _mm256_extractf128_pd(lo, 1));
			acc = _mm_add_pd(acc, _mm256_extractf128_pd(hi, 1));
		}
		for (; xx <= b; xx++) {
			double v = row[xx];
			acc = _mm_add_pd(acc, _mm_set_pd(v * v, v));
		}
		if (b >= a)
			n += b - a + 1;
	}
	*s = _mm_cvtsd_f64(acc);
	*s2 = _mm_cvtsd_f64(_mm_unpackhi_pd(acc, acc));
	return n;
}
#define DISC_SUMS_AVX 1
#endif

/* The disc's sums of v and v v over its pixels, and their count. */
static long disc_sums(const fs_image *img, double x, double y, double r, double *ps, double *ps2)
{
	double s = 0, s2 = 0;
	long n = 0;
	disc_box d = disc_box_of(img, x, y, r);
	for (int yy = d.y0; yy <= d.y1; yy++) {
		int a, b;
		disc_run(img, x, y, r, &d, yy, &a, &b);
		/* two pixels a loop, each still added in turn (the loop's
		 * own instructions were a third of the sum's) */
		const float *row = img->data + (size_t)yy * (size_t)img->width;
		int xx = a;
		for (; xx + 1 <= b; xx += 2) {
			double v = row[xx], u = row[xx + 1];
			s += v;
			s2 += v * v;
			s += u;
			s2 += u * u;
		}
		if (xx <= b) {
			double v = row[xx];
			s += v;
			s2 += v * v;
		}
		if (b >= a)
			n += b - a + 1;
	}
	*ps = s;
	*ps2 = s2;
	return n;
}

double fs_image_disc_spread(const fs_image *img, double x, double y, double r)
{
	double s, s2;
	long n;
#ifdef DISC_SUMS_AVX
	if (fs_cpu_has_avx())
		n = disc_sums_avx(img, x, y, r, &s, &s2);
	else
#endif
		n = disc_sums(img, x, y, r, &s, &s2);
	if (n < 3)
		return 0;
	double m = s / n, var = s2 / n - m * m;
	return var > 0 ? sqrt(var) : 0;
}

fs_image *fs_image_region_float(const fs_image *img, int x0, int y0, int w, int h)
{
	if (!img || x0 < 0 || y0 < 0 || w < 1 || h < 1 || x0 > img->width - w || y0 > img->height - h)
		return NULL;
	fs_image *out = fs_image_new_uninit(w, h);
	if (!out)
		return NULL;
	for (int y = 0; y < h; y++) {
		float *dst = out->data + (size_t)y * (size_t)w;
		const float *src = fs_image_span(img, x0, y0 + y, w, dst);
		if (src != dst)
			memcpy(dst, src, (size_t)w * sizeof *dst);
	}
	return out;
}

fs_image *fs_image_to_float(const fs_image *img)
{
	return img ? fs_image_region_float(img, 0, 0, img->width, img->height) : NULL;
}

size_t fs_image_bytes(const fs_image *img)
{
	return (size_t)img->width * (size_t)img->height * (img->bits ? (size_t)img->bits / 8 : sizeof(float));
}

fs_image *fs_image_clone(const fs_image *src)
{
	if (!src)
		return NULL;
	if (src->bits) {
		fs_image *c = fs_image_new_compact(src->width, src->height, src->bits);
		if (c)
			memcpy(c->px, src->px, fs_image_bytes(src));
		return c;
	}
	fs_image *img = fs_image_new_uninit(src->width, src->height);
	if (!img)
		return NULL;
	memcpy(img->data, src->data,
	       (size_t)src->width * (size_t)src->height * sizeof(float));
	return img;
}

void fs_image_free(fs_image *img)
{
	if (!img)
		return;
	free(img->data);
	free(img->px);
	free(img);
}

double fs_image_sample(const fs_image *img, double x, double y)
{
	return fs_image_sample_clamped(img, x, y);
}
