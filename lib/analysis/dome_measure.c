/*
 * dome_measure.c - the base circle of a dome from the strongest concentric
 * intensity step (see dome_measure.h).
 */
#include "analysis/dome_measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NRAYS 32
#define NMAX 48

/* Offset in [-0.5, 0.5] of the vertex of the parabola through three samples. */
static double vertex(double a, double b, double c)
{
	double d = a - 2 * b + c;
	if (!(d < 0))
		return 0;
	double o = 0.5 * (a - c) / d;
	return o < -0.5 ? -0.5 : o > 0.5 ? 0.5 : o;
}

/* Least-squares circle (Kasa) through the points with use[k] set.
 * Returns 0 with centre and radius, -1 when degenerate. */
static int fit_circle(const double *px, const double *py, const int *use, int n, double *cx,
		      double *cy, double *r)
{
	double mx = 0, my = 0;
	int m = 0;
	for (int k = 0; k < n; k++)
		if (use[k]) {
			mx += px[k];
			my += py[k];
			m++;
		}
	if (m < 5)
		return -1;
	mx /= m;
	my /= m;
	double suu = 0, svv = 0, suv = 0, suuu = 0, svvv = 0, suvv = 0, svuu = 0;
	for (int k = 0; k < n; k++) {
		if (!use[k])
			continue;
		double u = px[k] - mx, v = py[k] - my;
		suu += u * u;
		svv += v * v;
		suv += u * v;
		suuu += u * u * u;
		svvv += v * v * v;
		suvv += u * v * v;
		svuu += v * u * u;
	}
	double det = suu * svv - suv * suv;
	if (fabs(det) < 1e-12)
		return -1;
	double b1 = 0.5 * (suuu + suvv), b2 = 0.5 * (svvv + svuu);
	double uc = (b1 * svv - b2 * suv) / det, vc = (suu * b2 - suv * b1) / det;
	*cx = mx + uc;
	*cy = my + vc;
	*r = sqrt(uc * uc + vc * vc + (suu + svv) / m);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* One pass from (x, y): edge radius per ray (rad), the fitted centre and
 * the quality. Returns -1 when the image is flat around (x, y). */
static int pass(const fs_image *img, double x, double y, double rmin, double rmax, double smooth,
		int outer, double *rad, double *ncx, double *ncy, double *quality)
{
	double reach = 1.3 * rmax;
	double step = fmax(0.35, reach / (NMAX - 2));
	int n = (int)ceil(reach / step) + 1;
	if (n > NMAX)
		n = NMAX;
	double cs[NRAYS], sn[NRAYS];
	for (int k = 0; k < NRAYS; k++) {
		cs[k] = cos(2 * M_PI * k / NRAYS);
		sn[k] = sin(2 * M_PI * k / NRAYS);
	}
	double d[NRAYS][NMAX];
	double h[NMAX];
	memset(h, 0, sizeof h);
	/* Smoothing along the rays (a 1-D Gaussian of sigma smooth px) and
	 * across them (the mean of three neighbouring rays): the dots of a
	 * printed halftone are texture, the base is a circle. */
	double kern[16];
	int kr = 0;
	if (smooth > 0) {
		kr = (int)ceil(2.5 * smooth / step);
		if (kr > 15)
			kr = 15;
		double ks = 0;
		for (int i = 0; i <= kr; i++) {
			kern[i] = exp(-0.5 * (i * step / smooth) * (i * step / smooth));
			ks += i ? 2 * kern[i] : kern[i];
		}
		for (int i = 0; i <= kr; i++)
			kern[i] /= ks;
	}
	double raw[NRAYS][NMAX + 1];
	for (int k = 0; k < NRAYS; k++)
		for (int j = 0; j <= n; j++)
			raw[k][j] = fs_image_sample(img, x + cs[k] * j * step, y + sn[k] * j * step);
	for (int k = 0; k < NRAYS; k++) {
		double v[NMAX + 1];
		if (!kr) {
			for (int j = 0; j <= n; j++)
				v[j] = raw[k][j];
		} else {
			int k0 = (k + NRAYS - 1) % NRAYS, k1 = (k + 1) % NRAYS;
			double t[NMAX + 1];
			for (int j = 0; j <= n; j++)
				t[j] = 0.5 * raw[k][j] + 0.25 * (raw[k0][j] + raw[k1][j]);
			for (int j = 0; j <= n; j++) {
				double acc = 0;
				for (int i = -kr; i <= kr; i++) {
					int jj = j + i < 0 ? 0 : j + i > n ? n : j + i;
					acc += kern[i < 0 ? -i : i] * t[jj];
				}
				v[j] = acc;
			}
		}
		d[k][0] = 0;
		for (int j = 1; j < n; j++) {
			d[k][j] = fabs(v[j + 1] - v[j - 1]) / (2 * step);
			h[j] += d[k][j];
		}
	}
	int j0 = (int)ceil(rmin / step), j1 = (int)floor(rmax / step);
	if (j0 < 1)
		j0 = 1;
	if (j1 > n - 2)
		j1 = n - 2;
	if (j1 < j0)
		return -1;
	int js = j0;
	for (int j = j0; j <= j1; j++)
		if (h[j] > h[js])
			js = j;
	if (!(h[js] > 0))
		return -1;
	/* The base is the outermost strong step: a steep dome shows a thin
	 * bright (or dark) ring just inside its base, whose inner flank is as
	 * strong as the outer one. */
	for (int j = j1; outer && j > js; j--) {
		if (h[j] >= 0.5 * h[js] && h[j] >= h[j - 1] && h[j] >= h[j + 1]) {
			js = j;
			break;
		}
	}
	double rs = (js + vertex(h[js - 1], h[js], h[js + 1])) * step;
	double on = 0, best = 0;
	int w0 = (int)floor(0.75 * rs / step), w1 = (int)ceil(1.25 * rs / step);
	if (w0 < 1)
		w0 = 1;
	if (w1 > n - 2)
		w1 = n - 2;
	for (int k = 0; k < NRAYS; k++) {
		int jb = w0;
		for (int j = w0; j <= w1; j++)
			if (d[k][j] > d[k][jb])
				jb = j;
		rad[k] = (jb + vertex(d[k][jb - 1], d[k][jb], d[k][jb + 1])) * step;
		on += d[k][jb];
		double mx = 0;
		for (int j = 1; j < n - 1; j++)
			mx = fmax(mx, d[k][j]);
		best += mx;
	}
	*quality = best > 0 ? on / best : 0;
	/* circle through the edge points, outliers dropped */
	double px[NRAYS], py[NRAYS], res[NRAYS], tmp[NRAYS];
	int use[NRAYS];
	for (int k = 0; k < NRAYS; k++) {
		px[k] = x + rad[k] * cs[k];
		py[k] = y + rad[k] * sn[k];
		use[k] = 1;
	}
	double cx, cy, r;
	if (fit_circle(px, py, use, NRAYS, &cx, &cy, &r))
		return -1;
	for (int k = 0; k < NRAYS; k++)
		tmp[k] = res[k] = fabs(hypot(px[k] - cx, py[k] - cy) - r);
	qsort(tmp, NRAYS, sizeof *tmp, cmp_double);
	double mad = 0.5 * (tmp[NRAYS / 2 - 1] + tmp[NRAYS / 2]);
	for (int k = 0; k < NRAYS; k++)
		use[k] = res[k] <= fmax(3 * 1.4826 * mad, 0.25);
	if (fit_circle(px, py, use, NRAYS, &cx, &cy, &r))
		return -1;
	/* a centre that leaves the window is not this dome's */
	if (hypot(cx - x, cy - y) > 0.5 * rs) {
		cx = x;
		cy = y;
	}
	/* outlying rays take the circle's radius along their direction */
	for (int k = 0; k < NRAYS; k++) {
		if (use[k])
			continue;
		double ux = x - cx, uy = y - cy;
		double b = ux * cs[k] + uy * sn[k], c = ux * ux + uy * uy - r * r;
		double disc = b * b - c;
		rad[k] = disc > 0 ? -b + sqrt(disc) : rs;
	}
	*ncx = cx;
	*ncy = cy;
	return 0;
}

int fs_dome_measure(const fs_image *img, double x, double y, double rmin, double rmax, double smooth,
		    fs_tubercle *t)
{
	if (!img || !t || !(rmax > rmin) || !(rmin > 0) || x < 0 || y < 0 || x > img->width - 1 ||
	    y > img->height - 1)
		return -1;
	double rad[NRAYS];
	double cx = x, cy = y, q = 0;
	/* The first pass may start off centre (the outer step is then smeared
	 * over the radii): it takes the strongest step; the next ones, from the
	 * fitted centre, the outermost strong one. */
	for (int it = 0; it < 3; it++) {
		double nx, ny;
		if (pass(img, cx, cy, rmin, rmax, smooth, it > 0, rad, &nx, &ny, &q))
			return -1;
		double shift = hypot(nx - cx, ny - cy);
		if (nx < 0 || ny < 0 || nx > img->width - 1 || ny > img->height - 1)
			break;
		cx = nx;
		cy = ny;
		if (shift < 0.25 && it > 0)
			break;
	}
	/* the polygon of edge points (about the centre the rays started from) */
	double A = 0, Sx = 0, Sy = 0, Sxx = 0, Syy = 0, Sxy = 0, P = 0;
	for (int k = 0; k < NRAYS; k++) {
		int j = (k + 1) % NRAYS;
		double a0 = 2 * M_PI * k / NRAYS, a1 = 2 * M_PI * j / NRAYS;
		double x0 = rad[k] * cos(a0), y0 = rad[k] * sin(a0);
		double x1 = rad[j] * cos(a1), y1 = rad[j] * sin(a1);
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
	t->centroid_x = cx;
	t->centroid_y = cy;
	t->fit_quality = q;
	if (!(A > 0.25) || q < FS_DOME_MIN_QUALITY) {
		t->radius_px = NAN;
		t->circularity = 0;
		t->has_ellipse = 0;
		return 0;
	}
	double gx = Sx / (6 * A), gy = Sy / (6 * A);
	double mxx = Sxx / (12 * A) - gx * gx;
	double myy = Syy / (12 * A) - gy * gy;
	double mxy = Sxy / (24 * A) - gx * gy;
	double tr = mxx + myy, det = mxx * myy - mxy * mxy;
	double disc = sqrt(fmax(0, tr * tr / 4 - det));
	double l1 = tr / 2 + disc, l2 = fmax(0, tr / 2 - disc);
	t->radius_px = sqrt(A / M_PI);
	t->circularity = P > 0 ? fmin(1.0, 4 * M_PI * A / (P * P)) : 0;
	t->has_ellipse = 1;
	t->major_axis_px = 4 * sqrt(l1);
	t->minor_axis_px = 4 * sqrt(l2);
	t->orientation = 0.5 * atan2(2 * mxy, mxx - myy);
	t->eccentricity = l1 > 0 ? sqrt(fmax(0, 1 - l2 / l1)) : 0;
	return 0;
}
