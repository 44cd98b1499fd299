/*
 * ray_spread.c - the domes' radius spread and centres' scatter from two
 * independent halves of each dome's rays (ray_spread.h).
 */
#include "ray_spread.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP 0.25
/* the derivative's half baseline in samples (0.5 px): steadier than
 * neighbouring samples' difference against the shot noise */
#define DH 2
/* how far (samples) a dome's edge may lie from the mean profile's */
#define LOOK 6

/* a + bx cos + by sin fitted to the rays of one parity (half 0 even,
 * 1 odd, 2 all) with a finite residual; 0, or -1 with too few rays */
static int fit_half(const double *e, const double *cs, const double *sn, int half, double out[3])
{
	double m[3][3] = {{0}}, v[3] = {0};
	int used = 0;
	for (int k = 0; k < RAY_SPREAD_RAYS; k++) {
		if ((half < 2 && (k & 1) != half) || !isfinite(e[k]))
			continue;
		double f[3] = {1, cs[k], sn[k]};
		for (int a = 0; a < 3; a++) {
			v[a] += f[a] * e[k];
			for (int b = 0; b < 3; b++)
				m[a][b] += f[a] * f[b];
		}
		used++;
	}
	if (used < (half < 2 ? 8 : 16))
		return -1;
	/* Gaussian elimination; the rays' spread in angle keeps m well posed */
	for (int c = 0; c < 3; c++) {
		if (!(fabs(m[c][c]) > 1e-9))
			return -1;
		for (int r = c + 1; r < 3; r++) {
			double q = m[r][c] / m[c][c];
			for (int b = c; b < 3; b++)
				m[r][b] -= q * m[c][b];
			v[r] -= q * v[c];
		}
	}
	for (int c = 2; c >= 0; c--) {
		double s = v[c];
		for (int b = c + 1; b < 3; b++)
			s -= m[c][b] * out[b];
		out[c] = s / m[c][c];
	}
	return 0;
}

/* the covariance of a and b over n (the means taken off) */
static double cov(const double *a, const double *b, size_t n)
{
	double sa = 0, sb = 0, sab = 0;
	for (size_t i = 0; i < n; i++) {
		sa += a[i];
		sb += b[i];
		sab += a[i] * b[i];
	}
	return (sab - sa * sb / n) / (n - 1);
}

int ray_spread_read(const fs_image *img, const double *xs, const double *ys, size_t n, double r0, double out,
		    ray_spread *rs, char *err, size_t errlen)
{
	return ray_spread_read_each(img, xs, ys, n, r0, out, rs, NULL, NULL, err, errlen);
}

int ray_spread_read_each(const fs_image *img, const double *xs, const double *ys, size_t n, double r0, double out,
			 ray_spread *rs, double *dx, double *dy, char *err, size_t errlen)
{
	memset(rs, 0, sizeof *rs);
	double t0 = 0.55 * r0, reach = r0 + out;
	int ns = (int)((reach - t0) / STEP) + 1;
	if (ns < 2 * DH + 3 || n < 8) {
		snprintf(err, errlen, "ray_spread: too few samples or domes");
		return -1;
	}
	double cs[RAY_SPREAD_RAYS], sn[RAY_SPREAD_RAYS];
	for (int k = 0; k < RAY_SPREAD_RAYS; k++) {
		cs[k] = cos(2 * M_PI * k / RAY_SPREAD_RAYS);
		sn[k] = sin(2 * M_PI * k / RAY_SPREAD_RAYS);
	}
	double *prof = malloc((size_t)ns * sizeof *prof), *mean = calloc((size_t)RAY_SPREAD_RAYS * ns, sizeof *mean);
	double *r = malloc(n * RAY_SPREAD_RAYS * sizeof *r), *h = malloc(n * 6 * sizeof *h);
	double *whole = malloc(n * 3 * sizeof *whole);
	int *in = malloc(n * sizeof *in);
	if (!prof || !mean || !r || !h || !whole || !in) {
		free(prof), free(mean), free(r), free(h), free(whole), free(in);
		snprintf(err, errlen, "ray_spread: out of memory");
		return -1;
	}
	size_t nin = 0;
	for (size_t i = 0; i < n; i++) {
		in[i] = xs[i] - reach >= 1 && ys[i] - reach >= 1 && xs[i] + reach <= img->width - 2 &&
			ys[i] + reach <= img->height - 2;
		nin += in[i];
	}
	/* the domes' mean profile a ray: where and which way its edge goes */
	for (size_t i = 0; i < n; i++)
		for (int k = 0; in[i] && k < RAY_SPREAD_RAYS; k++)
			for (int j = 0; j < ns; j++)
				mean[k * ns + j] += fs_image_sample_clamped(img, xs[i] + (t0 + STEP * j) * cs[k],
									    ys[i] + (t0 + STEP * j) * sn[k]);
	int jm[RAY_SPREAD_RAYS];
	double sg[RAY_SPREAD_RAYS];
	for (int k = 0; k < RAY_SPREAD_RAYS; k++) {
		double best = -1;
		jm[k] = DH;
		sg[k] = 1;
		for (int j = DH; j < ns - DH; j++) {
			double g = mean[k * ns + j + DH] - mean[k * ns + j - DH];
			if (fabs(g) > best) {
				best = fabs(g);
				jm[k] = j;
				sg[k] = g < 0 ? -1 : 1;
			}
		}
	}
	/* each dome's edge a ray: the strongest change of that sign near the
	 * mean's, at a parabola's vertex; NAN where it lies on the look's
	 * bound (another edge, or none) */
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < RAY_SPREAD_RAYS; k++) {
			double *ri = &r[i * RAY_SPREAD_RAYS + k];
			*ri = NAN;
			if (!in[i])
				continue;
			for (int j = 0; j < ns; j++)
				prof[j] = fs_image_sample_clamped(img, xs[i] + (t0 + STEP * j) * cs[k],
								  ys[i] + (t0 + STEP * j) * sn[k]);
			int lo = jm[k] - LOOK < DH ? DH : jm[k] - LOOK, hi = jm[k] + LOOK > ns - DH - 1 ? ns - DH - 1 : jm[k] + LOOK;
			int jb = -1;
			double gb = -INFINITY;
			for (int j = lo; j <= hi; j++) {
				double g = sg[k] * (prof[j + DH] - prof[j - DH]);
				if (g > gb) {
					gb = g;
					jb = j;
				}
			}
			if (jb <= lo || jb >= hi)
				continue;
			double gm = sg[k] * (prof[jb - 1 + DH] - prof[jb - 1 - DH]),
			       gp = sg[k] * (prof[jb + 1 + DH] - prof[jb + 1 - DH]), den = gm + gp - 2 * gb,
			       off = den < 0 ? 0.5 * (gm - gp) / den : 0;
			*ri = t0 + STEP * (jb + off);
		}
	/* each ray's mean over the domes off: the sides' own offsets */
	double emean = 0;
	size_t ne = 0;
	for (int k = 0; k < RAY_SPREAD_RAYS; k++) {
		double s = 0;
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (isfinite(r[i * RAY_SPREAD_RAYS + k])) {
				s += r[i * RAY_SPREAD_RAYS + k];
				m++;
			}
		for (size_t i = 0; i < n; i++)
			r[i * RAY_SPREAD_RAYS + k] -= m ? s / m : NAN;
		if (m) {
			emean += s / m;
			ne++;
		}
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		double a[3], b[3], w[3];
		const double *e = &r[i * RAY_SPREAD_RAYS];
		if (dx)
			dx[i] = dy[i] = NAN;
		if (!in[i] || fit_half(e, cs, sn, 0, a) || fit_half(e, cs, sn, 1, b) || fit_half(e, cs, sn, 2, w))
			continue;
		if (dx) {
			dx[i] = w[1];
			dy[i] = w[2];
		}
		for (int q = 0; q < 3; q++) {
			h[q * n + m] = a[q];
			h[(3 + q) * n + m] = b[q];
			whole[q * n + m] = w[q];
		}
		m++;
	}
	int rc = 0;
	if (m < 8) {
		snprintf(err, errlen, "ray_spread: %zu of %zu domes read", m, nin);
		rc = -1;
	} else {
		rs->n = m;
		rs->var_r = cov(&h[0], &h[3 * n], m);
		rs->scatter = 0.5 * (cov(&h[n], &h[4 * n], m) + cov(&h[2 * n], &h[5 * n], m));
		rs->var_r_whole = cov(&whole[0], &whole[0], m);
		rs->scatter_whole = 0.5 * (cov(&whole[n], &whole[n], m) + cov(&whole[2 * n], &whole[2 * n], m));
		rs->edge_r = ne ? emean / ne : NAN;
	}
	free(prof), free(mean), free(r), free(h), free(whole), free(in);
	return rc;
}
