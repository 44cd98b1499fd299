/*
 * foot_contour.c - a smooth foot's support from the mean dome's contour
 * (foot_contour.h).
 */
#include "analysis/foot_contour.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double fs_foot_contour_lattice_angle(const double *xs, const double *ys, size_t n)
{
	size_t m = n < 512 ? n : 512;
	double sc = 0, ss = 0;
	for (size_t i = 0; i < m; i++) {
		double best = INFINITY, bx = 0, by = 0;
		for (size_t j = 0; j < n; j++) {
			double dx = xs[j] - xs[i], dy = ys[j] - ys[i], d = dx * dx + dy * dy;
			if (j != i && d > 0 && d < best) {
				best = d;
				bx = dx;
				by = dy;
			}
		}
		if (isfinite(best)) {
			/* six-fold: every neighbour direction of one lattice votes alike */
			double a = 6 * atan2(by, bx);
			sc += cos(a);
			ss += sin(a);
		}
	}
	return sc == 0 && ss == 0 ? NAN : atan2(ss, sc) / 6;
}

/* The mean patch: nb x nb bins of 1 / FS_FOOT_CONTOUR_Q px about the
 * centres, the bins of fewer than 3 pixels NAN. */
static void build_patch(const fs_image *img, const double *xs, const double *ys, size_t n, int wpx, int nb,
			double *sum, long *cnt)
{
	int q = FS_FOOT_CONTOUR_Q;
	for (size_t i = 0; i < n; i++) {
		int x0 = (int)floor(xs[i]) - wpx, y0 = (int)floor(ys[i]) - wpx;
		for (int y = y0; y <= y0 + 2 * wpx + 1; y++) {
			if (y < 0 || y >= img->height)
				continue;
			for (int x = x0; x <= x0 + 2 * wpx + 1; x++) {
				if (x < 0 || x >= img->width)
					continue;
				int bx = (int)lround((x - xs[i]) * q) + wpx * q, by = (int)lround((y - ys[i]) * q) + wpx * q;
				if (bx < 0 || by < 0 || bx >= nb || by >= nb)
					continue;
				sum[(size_t)by * nb + bx] += fs_image_value(img, x, y);
				cnt[(size_t)by * nb + bx]++;
			}
		}
	}
	for (size_t b = 0; b < (size_t)nb * nb; b++)
		sum[b] = cnt[b] >= 3 ? sum[b] / (double)cnt[b] : NAN;
}

/* mean (nb x nb) blurred by a Gaussian of sigma bins over its finite bins
 * (which stay the only finite ones); 0, -1 out of memory */
static int smooth_patch(double *mean, int nb, double sigma)
{
	int h = (int)ceil(3 * sigma);
	size_t nn = (size_t)nb * nb;
	double *k = malloc((2 * (size_t)h + 1) * sizeof *k), *a = malloc(nn * sizeof *a), *ca = malloc(nn * sizeof *ca);
	if (!k || !a || !ca) {
		free(k);
		free(a);
		free(ca);
		return -1;
	}
	for (int i = -h; i <= h; i++)
		k[i + h] = exp(-0.5 * i * i / (sigma * sigma));
	for (int y = 0; y < nb; y++)
		for (int x = 0; x < nb; x++) {
			double s = 0, c = 0;
			for (int i = -h; i <= h; i++) {
				int xx = x + i;
				double v = xx >= 0 && xx < nb ? mean[(size_t)y * nb + xx] : NAN;
				if (isfinite(v)) {
					s += k[i + h] * v;
					c += k[i + h];
				}
			}
			a[(size_t)y * nb + x] = s;
			ca[(size_t)y * nb + x] = c;
		}
	for (int x = 0; x < nb; x++) {
		/* (the vertical pass reads only a and ca, so mean can take it) */
		for (int y = 0; y < nb; y++) {
			if (!isfinite(mean[(size_t)y * nb + x]))
				continue;
			double s = 0, c = 0;
			for (int i = -h; i <= h; i++) {
				int yy = y + i;
				if (yy < 0 || yy >= nb)
					continue;
				s += k[i + h] * a[(size_t)yy * nb + x];
				c += k[i + h] * ca[(size_t)yy * nb + x];
			}
			if (c > 0)
				mean[(size_t)y * nb + x] = s / c;
		}
	}
	free(k);
	free(a);
	free(ca);
	return 0;
}

/* the patch at (x, y) px from the centre, bilinear over finite bins */
static double patch_at(const double *mean, int nb, int wpx, double x, double y)
{
	double fx = (x + wpx) * FS_FOOT_CONTOUR_Q, fy = (y + wpx) * FS_FOOT_CONTOUR_Q;
	int x0 = (int)floor(fx), y0 = (int)floor(fy);
	if (x0 < 0 || y0 < 0 || x0 + 1 >= nb || y0 + 1 >= nb)
		return NAN;
	double ax = fx - x0, ay = fy - y0, s = 0, sw = 0;
	for (int j = 0; j < 2; j++)
		for (int i = 0; i < 2; i++) {
			double v = mean[(size_t)(y0 + j) * nb + x0 + i], k = (i ? ax : 1 - ax) * (j ? ay : 1 - ay);
			if (isfinite(v)) {
				s += k * v;
				sw += k;
			}
		}
	return sw > 0.5 ? s / sw : NAN;
}

/* One sample's row (three basis values, then the value) added to the
 * normal equations S = [X^T X | X^T y]. */
static void normal3_add(double S[3][4], const double row[4])
{
	for (int p = 0; p < 3; p++)
		for (int q = 0; q < 4; q++)
			S[p][q] += row[p] * row[q];
}

/* The three coefficients of S's least squares into x by Gauss-Jordan
 * without pivoting (a Gram matrix is positive definite unless its
 * columns are dependent); -1 when a pivot is below 1e-12. Not lsq6.h's
 * solve: that one pivots, and the circle and the semi-axis keep their
 * bits. */
static int normal3_solve(double S[3][4], double x[3])
{
	for (int c0 = 0; c0 < 3; c0++) {
		double pv = S[c0][c0];
		if (!(fabs(pv) > 1e-12))
			return -1;
		for (int p = 0; p < 3; p++) {
			if (p == c0)
				continue;
			double f = S[p][c0] / pv;
			for (int q = 0; q < 4; q++)
				S[p][q] -= f * S[c0][q];
		}
	}
	for (int p = 0; p < 3; p++)
		x[p] = S[p][3] / S[p][p];
	return 0;
}

/* The circle through the points (ex, ey; ne of them) by linear least
 * squares of x^2 + y^2 = 2 a x + 2 b y + c; -1 when degenerate. */
static int fit_circle(const double *ex, const double *ey, int ne, double *a, double *b, double *r)
{
	double S[3][4] = {{0}}, x[3];
	for (int i = 0; i < ne; i++)
		normal3_add(S, (double[4]){2 * ex[i], 2 * ey[i], 1, ex[i] * ex[i] + ey[i] * ey[i]});
	if (normal3_solve(S, x))
		return -1;
	*a = x[0];
	*b = x[1];
	*r = sqrt(fmax(0, x[2] + *a * *a + *b * *b));
	return 0;
}

/* The contour's rays from (*cx, *cy) into ex, ey; their count. */
static int cast_rays(const double *mean, int nb, int wpx, double pitch, double g, double lv, double cx, double cy,
		     double *ex, double *ey)
{
	int ne = 0;
	double step = 1.0 / FS_FOOT_CONTOUR_Q;
	for (int k = 0; k < FS_FOOT_CONTOUR_RAYS; k++) {
		double a = 2 * M_PI * k / FS_FOOT_CONTOUR_RAYS, c = cos(a), s = sin(a), rend = NAN, dprev = NAN;
		for (double r = 0; r <= 0.5 * pitch; r += step) {
			double v = patch_at(mean, nb, wpx, cx + r * c, cy + r * s);
			if (!isfinite(v))
				break;
			double d = fabs(v - g);
			if (isfinite(dprev) && dprev >= lv && d < lv)
				rend = r - step * (lv - d) / (dprev - d);
			dprev = d;
		}
		if (isfinite(rend)) {
			ex[ne] = cx + rend * c;
			ey[ne] = cy + rend * s;
			ne++;
		}
	}
	return ne;
}

/* The long semi-axis of the points (ex, ey; ne) about (cx, cy): their
 * radii fitted by r0 + a cos 2 phi + b sin 2 phi (least squares),
 * r0 + hypot(a, b); NAN when singular. */
static double long_semi_axis(const double *ex, const double *ey, int ne, double cx, double cy)
{
	double S[3][4] = {{0}}, x[3];
	for (int i = 0; i < ne; i++) {
		double dx = ex[i] - cx, dy = ey[i] - cy, ph = 2 * atan2(dy, dx);
		normal3_add(S, (double[4]){1, cos(ph), sin(ph), hypot(dx, dy)});
	}
	if (normal3_solve(S, x))
		return NAN;
	return x[0] + hypot(x[1], x[2]);
}

int fs_foot_contour_read(const fs_image *img, const double *xs, const double *ys, size_t n, double pitch,
			 double smooth_px, double level, fs_foot_contour *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	out->radius = out->major = out->ground = out->peak = NAN;
	double angle = fs_foot_contour_lattice_angle(xs, ys, n);
	if (n < 8 || !(pitch > 2) || !isfinite(angle))
		return 0;
	int wpx = (int)ceil(0.75 * pitch), nb = 2 * wpx * FS_FOOT_CONTOUR_Q + 1;
	size_t nn = (size_t)nb * nb;
	double *mean = calloc(nn, sizeof *mean);
	long *cnt = calloc(nn, sizeof *cnt);
	if (!mean || !cnt) {
		free(mean);
		free(cnt);
		snprintf(err, errlen, "foot contour: out of memory");
		return -1;
	}
	build_patch(img, xs, ys, n, wpx, nb, mean, cnt);
	free(cnt);
	if (smooth_px > 0 && smooth_patch(mean, nb, smooth_px * FS_FOOT_CONTOUR_Q)) {
		free(mean);
		snprintf(err, errlen, "foot contour: out of memory");
		return -1;
	}
	double g = 0;
	int ng = 0;
	for (int k = 0; k < 6; k++) {
		double a = angle + M_PI / 6 + k * M_PI / 3, d = pitch / sqrt(3);
		double v = patch_at(mean, nb, wpx, d * cos(a), d * sin(a));
		if (isfinite(v)) {
			g += v;
			ng++;
		}
	}
	double A = 0;
	if (ng >= 3) {
		g /= ng;
		double step = 1.0 / FS_FOOT_CONTOUR_Q, h = 0.5 * pitch;
		for (double y = -h; y <= h; y += step)
			for (double x = -h; x <= h; x += step) {
				double v = patch_at(mean, nb, wpx, x, y);
				if (x * x + y * y <= h * h && isfinite(v) && fabs(v - g) > A)
					A = fabs(v - g);
			}
	}
	if (A > 0) {
		out->ground = g;
		out->peak = A;
		double ex[FS_FOOT_CONTOUR_RAYS], ey[FS_FOOT_CONTOUR_RAYS], cx = 0, cy = 0, r = NAN;
		/* twice: the rays cast again from the first circle's centre */
		for (int pass = 0; pass < 2; pass++) {
			int ne = cast_rays(mean, nb, wpx, pitch, g, level * A, cx, cy, ex, ey);
			out->rays = ne;
			if (ne < FS_FOOT_CONTOUR_RAYS / 2 || fit_circle(ex, ey, ne, &cx, &cy, &r)) {
				r = NAN;
				break;
			}
		}
		if (isfinite(r)) {
			out->radius = r;
			out->cx = cx;
			out->cy = cy;
			out->major = long_semi_axis(ex, ey, out->rays, cx, cy);
		}
	}
	free(mean);
	return 0;
}
