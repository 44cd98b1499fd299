/*
 * blob_measure.c - half-level boundary of a bright blob along rays, and the
 * polygon's area, centroid, moments and circularity (see blob_measure.h).
 */
#include "analysis/blob_measure.h"
#include "analysis/polygon_moments.h"

#include <math.h>

#define NRAYS 32

/* float, as the profiles it fills are */
static float bilinear(const fs_image *img, double x, double y)
{
	return (float)fs_image_sample(img, x, y);
}

/* The same without clamping, for points at least one pixel inside the image. */
static inline float bilinear_in(const float *d, int w, float x, float y)
{
	int x0 = (int)x, y0 = (int)y;
	float fx = x - (float)x0, fy = y - (float)y0;
	const float *p = d + (size_t)y0 * w + x0;
	float a = p[0] + (p[1] - p[0]) * fx;
	float b = p[w] + (p[w + 1] - p[w]) * fx;
	return a + (b - a) * fy;
}

/* Unit vectors of the rays, k * 2 pi / NRAYS (exact to double precision). */
static const double ray_cos[NRAYS] = {
	1.0, 0.98078528040323043, 0.92387953251128674, 0.83146961230254524,
	0.70710678118654757, 0.55557023301960218, 0.38268343236508984, 0.19509032201612833,
	0.0, -0.19509032201612819, -0.38268343236508973, -0.55557023301960196,
	-0.70710678118654746, -0.83146961230254535, -0.92387953251128674, -0.98078528040323043,
	-1.0, -0.98078528040323043, -0.92387953251128674, -0.83146961230254546,
	-0.70710678118654768, -0.55557023301960218, -0.38268343236509034, -0.19509032201612866,
	0.0, 0.19509032201612828, 0.38268343236509000, 0.55557023301960184,
	0.70710678118654735, 0.83146961230254524, 0.92387953251128652, 0.98078528040323043,
};
#define ray_sin(k) ray_cos[((k) + 3 * NRAYS / 4) % NRAYS]

#define BG_RAYS 16

/* Samples ray k from (x, y) every step px, indices 0..n, into p, stopping
 * after the first sample below stop (-INFINITY: never). Returns the number
 * of samples taken. inside: the whole ray is at least 1 px inside img. */
static int sample_ray(const fs_image *img, int inside, double x, double y, int k, double step,
		      int n, float stop, float *p)
{
	double c = ray_cos[k] * step, s = ray_sin(k) * step;
	int i = 0;
	if (inside) {
		/* float steps relative to a pixel K px before the start: the
		 * drift over 25 steps is ~1e-5 px wherever the tubercle lies (in
		 * absolute coordinates a float's step is 1e-3 px at x = 10000),
		 * and the samples do not depend on where the image's origin is:
		 * a tile of the image (detect_tiled.c, integer offsets) gives
		 * the same ones. inside: x, y >= n step + 1, so the base is in
		 * the image and the ray never goes below it. */
		int K = (int)(n * step) + 1, bx = (int)x - K, by = (int)y - K;
		const float *d = img->data + (size_t)by * img->width + bx;
		float px = (float)(x - bx), py = (float)(y - by), fc = (float)c, fsn = (float)s;
		for (; i <= n; i++, px += fc, py += fsn) {
			p[i] = bilinear_in(d, img->width, px, py);
			if (p[i] < stop)
				return i + 1;
		}
	} else {
		for (; i <= n; i++) {
			p[i] = bilinear(img, x + c * i, y + s * i);
			if (p[i] < stop)
				return i + 1;
		}
	}
	return n + 1;
}

/* One pass: boundary radii along the rays from (x, y). Returns valid rays.
 * Rays are sampled every max(0.5, max_r / 24) px: the edges are blurred
 * over more than that, and the crossing is interpolated linearly. */
static int rays(const fs_image *img, double x, double y, double max_r, double *rad)
{
	const double STEP = fmax(0.5, max_r / 24);
	int nsteps = (int)(max_r / STEP);
	if (nsteps < 4)
		nsteps = 4;
	/* Peak: mean of the centre and its 1-px ring, so single noisy pixels
	 * do not set the level. */
	double peak = bilinear(img, x, y);
	for (int k = 0; k < NRAYS; k += NRAYS / 8)
		peak += bilinear(img, x + ray_cos[k], y + ray_sin(k));
	peak /= 9;
	/* The background is the lowest sample of BG_RAYS evenly spaced full
	 * rays, i.e. the deepest point around the tubercle (the hole between
	 * three neighbours in a tight lattice), since the narrow gap towards a
	 * close neighbour never reaches the surface level once blurred. The
	 * other rays are only followed to their half-level crossing. */
	enum { N_MAX = 25, BG_EVERY = NRAYS / BG_RAYS }; /* max_r / STEP <= 24 */
	int n = nsteps < N_MAX ? nsteps : N_MAX;
	float prof[NRAYS][N_MAX + 1];
	int len[NRAYS] = {0};
	float bg = (float)peak;
	/* Most tubercles lie wholly inside: no clamping needed along their rays. */
	double reach = n * STEP + 1;
	int inside = x - reach >= 0 && y - reach >= 0 && x + reach < img->width - 1 &&
		     y + reach < img->height - 1;
	for (int k = 0; k < NRAYS; k += BG_EVERY) {
		sample_ray(img, inside, x, y, k, STEP, n, -INFINITY, prof[k]);
		len[k] = n + 1;
		for (int i = 0; i <= n; i++)
			bg = prof[k][i] < bg ? prof[k][i] : bg;
	}
	int valid = 0;
	float half = (float)(0.5 * (peak + bg));
	for (int k = 0; k < NRAYS; k++) {
		rad[k] = -1;
		if (peak - bg < 1e-4)
			continue;
		if (!len[k])
			len[k] = sample_ray(img, inside, x, y, k, STEP, n, half, prof[k]);
		for (int i = 1; i < len[k]; i++) {
			if (prof[k][i] < half) {
				double f = (prof[k][i - 1] - half) / (prof[k][i - 1] - prof[k][i]);
				rad[k] = (i - 1 + f) * STEP;
				valid++;
				break;
			}
		}
	}
	return valid;
}

int fs_blob_measure(const fs_image *img, double x, double y, double max_r, fs_tubercle *t)
{
	double rad[NRAYS];
	if (!img || !t || !(max_r > 1) || x < 0 || y < 0 || x > img->width - 1 || y > img->height - 1)
		return -1;
	double cx = x, cy = y;
	/* Up to two passes: the second starts from the first polygon's
	 * centroid, which removes most of the bias of an off-centre start. */
	for (int pass = 0; pass < 2; pass++) {
		int valid = rays(img, cx, cy, max_r, rad);
		if (valid < NRAYS * 3 / 4)
			return -1;
		/* Missing rays take the mean of the valid ones. */
		double mean = 0;
		for (int k = 0; k < NRAYS; k++)
			if (rad[k] >= 0)
				mean += rad[k];
		mean /= valid;
		for (int k = 0; k < NRAYS; k++)
			if (rad[k] < 0)
				rad[k] = mean;
		/* the ray ends relative to the ray origin, as the sums want them */
		double rx[NRAYS], ry[NRAYS];
		for (int k = 0; k < NRAYS; k++) {
			rx[k] = (cx + rad[k] * ray_cos[k]) - cx;
			ry[k] = (cy + rad[k] * ray_sin(k)) - cy;
		}
		fs_poly_moments pm;
		fs_poly_moments_of(rx, ry, NRAYS, &pm);
		double A = pm.area, P = pm.perimeter, gx = pm.gx, gy = pm.gy, l1 = pm.l1, l2 = pm.l2;
		if (A <= 0.25)
			return -1;
		t->centroid_x = cx + gx;
		t->centroid_y = cy + gy;
		t->radius_px = sqrt(A / M_PI);
		t->circularity = P > 0 ? fmin(1.0, 4 * M_PI * A / (P * P)) : 0;
		t->has_ellipse = 1;
		t->major_axis_px = 4 * sqrt(l1);
		t->minor_axis_px = 4 * sqrt(l2);
		t->orientation = pm.orientation;
		t->eccentricity = l1 > 0 ? sqrt(fmax(0, 1 - l2 / l1)) : 0;
		double shift = hypot(gx, gy);
		cx = t->centroid_x;
		cy = t->centroid_y;
		if (cx < 0 || cy < 0 || cx > img->width - 1 || cy > img->height - 1)
			return -1;
		/* A start within a quarter pixel of the centroid already gives the
		 * centred answer: the second pass would only repeat the first. */
		if (shift < 0.25)
			break;
	}
	return 0;
}
