/* base_step.c - the rays' summed step at a base reading against its
 * window's median (see base_step.h). */
#include "analysis/base_step.h"

#include <math.h>
#include <stdlib.h>

#include "base/sorting.h"

#define NRAYS 32
#define STEP 0.5
#define BLUR_OFF 0.7
#define MAXN 2048

/* the five-point mean about (x, y), each point clamped to the full image */
static double smoothed(const fs_image *img, int ox, int oy, int w, int h, double x, double y)
{
	static const double dx[5] = {0, BLUR_OFF, -BLUR_OFF, 0, 0}, dy[5] = {0, 0, 0, BLUR_OFF, -BLUR_OFF};
	double s = 0;
	for (int i = 0; i < 5; i++) {
		double px = x + dx[i], py = y + dy[i];
		px = px < 0 ? 0 : px > w - 1 ? w - 1 : px;
		py = py < 0 ? 0 : py > h - 1 ? h - 1 : py;
		s += fs_image_sample_clamped(img, px - ox, py - oy);
	}
	return s / 5;
}

/* smoothed's five points read without clamping, for points at least a
 * pixel inside both the full image and the crop (d: the crop's samples,
 * cw wide): the clamps change nothing there and fs_image_sample_inside
 * reads the same values as fs_image_sample_clamped (image.h), so the same
 * sums, for less work in the rays that lie wholly inside (most of them;
 * h37g: the judgement was 6 % of the dome rule's paper-figure run) */
static double smoothed_inside(const float *d, int cw, int ox, int oy, double x, double y)
{
	static const double dx[5] = {0, BLUR_OFF, -BLUR_OFF, 0, 0}, dy[5] = {0, 0, 0, BLUR_OFF, -BLUR_OFF};
	double s = 0;
	for (int i = 0; i < 5; i++) {
		double px = x + dx[i], py = y + dy[i];
		s += fs_image_sample_inside(d, cw, px - ox, py - oy);
	}
	return s / 5;
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
	double *s = v + n;
	for (int j = 0; j < n; j++)
		s[j] = 0;
	/* every sample within reach of (x, y), a pixel to spare for the
	 * bilinear neighbours and rounding */
	double reach = (n - 1) * STEP + BLUR_OFF + 1;
	int inside = x - reach >= 0 && y - reach >= 0 && x + reach < w - 1 && y + reach < h - 1 &&
		     x - ox - reach >= 0 && y - oy - reach >= 0 && x - ox + reach < img->width - 1 &&
		     y - oy + reach < img->height - 1;
	for (int k = 0; k < NRAYS; k++) {
		double c = cos(2 * M_PI * k / NRAYS), sn = sin(2 * M_PI * k / NRAYS);
		for (int j = 0; j < n; j++)
			v[j] = inside ? smoothed_inside(img->data, img->width, ox, oy, x + j * STEP * c, y + j * STEP * sn)
				      : smoothed(img, ox, oy, w, h, x + j * STEP * c, y + j * STEP * sn);
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
