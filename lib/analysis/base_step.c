/* base_step.c - the rays' summed step at a base reading against its
 * window's median (see base_step.h). */
#include "analysis/base_step.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "analysis/lanes.h"
#include "analysis/lanes_avx.h"
#include "base/cpu_features.h"
#include "base/sorting.h"

#define NRAYS 32
#define STEP 0.5
#define BLUR_OFF 0.7
#define MAXN 2048

static const double g_dx[5] = {0, BLUR_OFF, -BLUR_OFF, 0, 0}, g_dy[5] = {0, 0, 0, BLUR_OFF, -BLUR_OFF};

/* The rays' directions, cos(2 pi k / NRAYS) and sin(...): the values
 * every call computed for itself (64 libm calls a reading, 5,358
 * readings on the 2048 x 1536 lattice), once per process (the tiled
 * measurement judges from several threads). */
static double g_cs[NRAYS], g_sn[NRAYS];
static pthread_once_t g_dirs_once = PTHREAD_ONCE_INIT;

static void dirs_init(void)
{
	for (int k = 0; k < NRAYS; k++) {
		g_cs[k] = cos(2 * M_PI * k / NRAYS);
		g_sn[k] = sin(2 * M_PI * k / NRAYS);
	}
}

/* the five-point mean about (x, y), each point clamped to the full image */
static double smoothed(const fs_image *img, int ox, int oy, int w, int h, double x, double y)
{
	double s = 0;
	for (int i = 0; i < 5; i++) {
		double px = x + g_dx[i], py = y + g_dy[i];
		px = px < 0 ? 0 : px > w - 1 ? w - 1 : px;
		py = py < 0 ? 0 : py > h - 1 ? h - 1 : py;
		s += fs_image_sample_clamped(img, px - ox, py - oy);
	}
	return s / 5;
}

#ifdef FS_LANES_AVX
/* ray_inside's samples four at a time with AVX (where the CPU has it,
 * fs_cpu_has_avx), each lane the pair loop's operations in its order (no
 * fused multiply-add under target "avx" and ISO C): the same values.
 * Returns how many samples it wrote (a multiple of four; the rest are
 * ray_inside's). The five points' bilinear reads were most of a step
 * judgement, a ninth of the dome rule on the 2048 x 1536 lattice (h40d). */
__attribute__((target("avx"), always_inline)) static inline int ray_inside4_at(const fs_image *img, int ox, int oy,
										 double x, double y, double c, double sn,
										 int n, double *v, const int small)
{
	const float *d = img->data;
	long iw = img->width;
	v4d W = {iw, iw, iw, iw}, four = {4, 4, 4, 4}, jv = {0, 1, 2, 3};
	v4d X = {x, x, x, x}, Y = {y, y, y, y};
	int j = 0;
	for (; j + 4 <= n; j += 4, jv += four) {
		v4d bx = X + jv * STEP * c, by = Y + jv * STEP * sn;
		v4d s = {0, 0, 0, 0};
#pragma GCC unroll 5
		for (int i = 0; i < 5; i++) {
			v4d px = bx + g_dx[i] - ox, py = by + g_dy[i] - oy;
			v4d tx = fs_trunc4d(px), ty = fs_trunc4d(py);
			v4d fx = px - tx, fy = py - ty, at = ty * W + tx;
			v4d c00, c01, c10, c11;
			if (small)
				fs_corners4_at32(d, at, iw, &c00, &c01, &c10, &c11);
			else
				fs_corners4_at(d, at, iw, &c00, &c01, &c10, &c11);
			s += fs_bilerp4d(c00, c01, c10, c11, fx, fy);
		}
		s /= 5;
		memcpy(v + j, &s, sizeof s);
	}
	return j;
}

/* ray_inside4 with the cells' indices converted four in one instruction
 * where every index of img is below 2^31 (fs_corners4_at32: the same
 * pixels; h50a), the larger images' through fs_corners4_at; the test
 * made once a ray, not once a point */
__attribute__((target("avx"))) static int ray_inside4(const fs_image *img, int ox, int oy, double x, double y,
						       double c, double sn, int n, double *v)
{
	if ((long long)img->width * img->height <= INT_MAX)
		return ray_inside4_at(img, ox, oy, x, y, c, sn, n, v, 1);
	return ray_inside4_at(img, ox, oy, x, y, c, sn, n, v, 0);
}
#endif

/* One ray's profile v[0..n-1] where every sample lies inside both the
 * full image and the crop (so that neither clamp changes a position and
 * fs_image_sample_inside reads the same four pixels with the same weights
 * as fs_image_sample_clamped): two radii at a time in vector lanes, each
 * lane the scalar expressions' operations in their order (lanes.h; no
 * fused multiply-add under -std=c11), so the same values as smoothed().
 * The clamps and the bilinear call per point were most of a reading's
 * cost (2.7 G instructions of the lattice's 7.7 G). */
static void ray_inside(const fs_image *img, int ox, int oy, double x, double y, double c, double sn, int n,
		       double *v)
{
	const float *d = img->data;
	long iw = img->width;
	int j = 0;
#ifdef FS_LANES_AVX
	if (fs_cpu_has_avx())
		j = ray_inside4(img, ox, oy, x, y, c, sn, n, v);
#endif
	v2d W = {iw, iw}, two = {2, 2}, jv = {j, j + 1};
	for (; j + 2 <= n; j += 2, jv += two) {
		/* (jv = {j, j + 1}: whole numbers, counted exactly in doubles) */
		v2d bx = (v2d){x, x} + jv * STEP * c, by = (v2d){y, y} + jv * STEP * sn;
		v2d s = {0, 0};
		/* the five points unrolled (their offsets constants) */
#pragma GCC unroll 5
		for (int i = 0; i < 5; i++) {
			v2d px = bx + g_dx[i] - ox, py = by + g_dy[i] - oy;
			/* lane 0's and lane 1's cells: the truncations stay
			 * doubles and the index y w + x is made in doubles
			 * (whole numbers below 2^53: exact), converted once a
			 * lane, instead of four integers taken out of the
			 * lanes (h40d; as centre_refine.c's pairs, h37n) */
			v2d tx = fs_trunc2d(px), ty = fs_trunc2d(py);
			v2d fx = px - tx, fy = py - ty, at = ty * W + tx;
			v2d c00, c01, c10, c11;
			fs_corners2(d + (long long)at[0], d + (long long)at[1], iw, &c00, &c01, &c10, &c11);
			s += fs_bilerp2d(c00, c01, c10, c11, fx, fy);
		}
		s /= 5;
		v[j] = s[0];
		v[j + 1] = s[1];
	}
	for (; j < n; j++) {
		double bx = x + j * STEP * c, by = y + j * STEP * sn, s = 0;
		for (int i = 0; i < 5; i++)
			s += fs_image_sample_inside(d, img->width, bx + g_dx[i] - ox, by + g_dy[i] - oy);
		v[j] = s / 5;
	}
}

double fs_base_step_contrast(const fs_image *img, int ox, int oy, int w, int h, double x, double y, double r,
			     double r0, double r1)
{
	if (!(r > 0) || !(r1 > r0))
		return NAN;
	int j0 = (int)ceil(r0 / STEP), j1 = (int)floor(r1 / STEP), jr = (int)lround(r / STEP);
	if (j0 < 1)
		j0 = 1;
	int n = (jr > j1 ? jr : j1) + 3; /* samples 0..n-1; steps 1..n-2 */
	if (j1 - j0 + 1 < 3 || jr < 1 || n > MAXN)
		return NAN;
	double *v = malloc(2 * (size_t)n * sizeof *v);
	if (!v)
		return NAN;
	pthread_once(&g_dirs_once, dirs_init);
	double *s = v + n;
	for (int j = 0; j < n; j++)
		s[j] = 0;
	/* every sample within reach of (x, y), a pixel to spare for the
	 * positions' rounding: inside the full image and the crop, with the
	 * right and lower neighbours of every bilinear cell */
	double reach = (n - 1) * STEP + BLUR_OFF + 1;
	int lo_x = ox > 0 ? ox : 0, lo_y = oy > 0 ? oy : 0;
	int hi_x = ox + img->width < w ? ox + img->width : w, hi_y = oy + img->height < h ? oy + img->height : h;
	int inside = x - reach >= lo_x && y - reach >= lo_y && x + reach < hi_x - 1 && y + reach < hi_y - 1;
	for (int k = 0; k < NRAYS; k++) {
		double c = g_cs[k], sn = g_sn[k];
		if (inside)
			ray_inside(img, ox, oy, x, y, c, sn, n, v);
		else
			for (int j = 0; j < n; j++)
				v[j] = smoothed(img, ox, oy, w, h, x + j * STEP * c, y + j * STEP * sn);
		for (int j = 1; j + 1 < n; j++)
			s[j] += fabs(v[j + 1] - v[j - 1]);
	}
	double at = fmax(s[jr], fmax(s[jr - 1], s[jr + 1]));
	/* the window's median (s's window copied into v, which is free now) */
	int m = 0;
	for (int j = j0; j <= j1 && j + 1 < n; j++)
		v[m++] = s[j];
	double med = fs_median_upper(v, (size_t)m);
	free(v);
	return med > 0 ? at / med : NAN;
}
