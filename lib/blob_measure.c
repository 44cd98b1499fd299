/*
 * blob_measure.c - half-level boundary of a bright blob along rays, and the
 * polygon's area, centroid, moments and circularity (see blob_measure.h).
 */
#include "blob_measure.h"

#include <math.h>

#define NRAYS 32

static float bilinear(const fs_image *img, double x, double y)
{
	int w = img->width, h = img->height;
	if (x < 0)
		x = 0;
	if (y < 0)
		y = 0;
	if (x > w - 1)
		x = w - 1;
	if (y > h - 1)
		y = h - 1;
	int x0 = (int)x, y0 = (int)y;
	int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
	double fx = x - x0, fy = y - y0;
	const float *d = img->data;
	double a = d[(size_t)y0 * w + x0] * (1 - fx) + d[(size_t)y0 * w + x1] * fx;
	double b = d[(size_t)y1 * w + x0] * (1 - fx) + d[(size_t)y1 * w + x1] * fx;
	return (float)(a * (1 - fy) + b * fy);
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
	for (int k = 0; k < 8; k++)
		peak += bilinear(img, x + cos(k * M_PI / 4), y + sin(k * M_PI / 4));
	peak /= 9;
	/* Profiles first: the background is the lowest ray minimum, i.e. the
	 * deepest point around the tubercle (the hole between three neighbours
	 * in a tight lattice), since the narrow gap towards a close neighbour
	 * never reaches the surface level once blurred. */
	enum { N_MAX = 25 }; /* max_r / STEP <= 24 */
	int n = nsteps < N_MAX ? nsteps : N_MAX;
	float prof[NRAYS][N_MAX + 1];
	double bg = peak;
	for (int k = 0; k < NRAYS; k++) {
		double c = ray_cos[k], s = ray_sin(k);
		for (int i = 0; i <= n; i++) {
			prof[k][i] = bilinear(img, x + c * i * STEP, y + s * i * STEP);
			if (prof[k][i] < bg)
				bg = prof[k][i];
		}
	}
	int valid = 0;
	double half = 0.5 * (peak + bg);
	for (int k = 0; k < NRAYS; k++) {
		rad[k] = -1;
		if (peak - bg < 1e-4)
			continue;
		for (int i = 1; i <= n; i++) {
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
	/* Two passes: the second starts from the first polygon's centroid, which
	 * removes most of the bias of an off-centre start. */
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
		double px[NRAYS], py[NRAYS];
		for (int k = 0; k < NRAYS; k++) {
			px[k] = cx + rad[k] * ray_cos[k];
			py[k] = cy + rad[k] * ray_sin(k);
		}
		/* Polygon area, centroid, second moments and perimeter (Green). */
		double A = 0, Sx = 0, Sy = 0, Sxx = 0, Syy = 0, Sxy = 0, P = 0;
		for (int k = 0; k < NRAYS; k++) {
			int j = (k + 1) % NRAYS;
			double x0 = px[k] - cx, y0 = py[k] - cy, x1 = px[j] - cx, y1 = py[j] - cy;
			double cr = x0 * y1 - x1 * y0;
			A += cr;
			Sx += (x0 + x1) * cr;
			Sy += (y0 + y1) * cr;
			Sxx += (x0 * x0 + x0 * x1 + x1 * x1) * cr;
			Syy += (y0 * y0 + y0 * y1 + y1 * y1) * cr;
			Sxy += (x0 * y1 + 2 * x0 * y0 + 2 * x1 * y1 + x1 * y0) * cr;
			P += hypot(x1 - x0, y1 - y0);
		}
		A *= 0.5;
		if (A <= 0.25)
			return -1;
		double gx = Sx / (6 * A), gy = Sy / (6 * A);
		double mxx = Sxx / (12 * A) - gx * gx;
		double myy = Syy / (12 * A) - gy * gy;
		double mxy = Sxy / (24 * A) - gx * gy;
		double tr = mxx + myy, det = mxx * myy - mxy * mxy;
		double disc = sqrt(fmax(0, tr * tr / 4 - det));
		double l1 = tr / 2 + disc, l2 = fmax(0, tr / 2 - disc);
		t->centroid_x = cx + gx;
		t->centroid_y = cy + gy;
		t->radius_px = sqrt(A / M_PI);
		t->circularity = P > 0 ? fmin(1.0, 4 * M_PI * A / (P * P)) : 0;
		t->has_ellipse = 1;
		t->major_axis_px = 4 * sqrt(l1);
		t->minor_axis_px = 4 * sqrt(l2);
		t->orientation = 0.5 * atan2(2 * mxy, mxx - myy);
		t->eccentricity = l1 > 0 ? sqrt(fmax(0, 1 - l2 / l1)) : 0;
		cx = t->centroid_x;
		cy = t->centroid_y;
		if (cx < 0 || cy < 0 || cx > img->width - 1 || cy > img->height - 1)
			return -1;
	}
	return 0;
}
