/* mean_patch.c - see mean_patch.h. */
#include "mean_patch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int mean_patch_build(const fs_image *img, const double *xs, const double *ys, int n, double dx, double dy, int wpx,
		     int q, double *mean, double *w)
{
	int nb = 2 * wpx * q + 1, c = wpx * q;
	size_t nn = (size_t)nb * nb;
	double *s1 = calloc(nn, sizeof *s1), *s2 = calloc(nn, sizeof *s2);
	int *cnt = calloc(nn, sizeof *cnt);
	if (!s1 || !s2 || !cnt) {
		free(s1);
		free(s2);
		free(cnt);
		return -1;
	}
	for (int k = 0; k < n; k++) {
		double cx = xs[k] + dx, cy = ys[k] + dy;
		int x0 = (int)floor(cx - wpx), x1 = (int)ceil(cx + wpx);
		int y0 = (int)floor(cy - wpx), y1 = (int)ceil(cy + wpx);
		for (int y = y0; y <= y1; y++)
			for (int x = x0; x <= x1; x++) {
				if (x < 0 || y < 0 || x >= img->width || y >= img->height)
					continue;
				double ox = x - cx, oy = y - cy;
				if (ox * ox + oy * oy > wpx * wpx)
					continue;
				int bx = (int)lround(ox * q) + c, by = (int)lround(oy * q) + c;
				if (bx < 0 || by < 0 || bx >= nb || by >= nb)
					continue;
				double v = fs_image_value(img, x, y);
				s1[by * nb + bx] += v;
				s2[by * nb + bx] += v * v;
				cnt[by * nb + bx]++;
			}
	}
	double vsum = 0;
	int vn = 0;
	for (size_t b = 0; b < nn; b++)
		if (cnt[b] >= 3) {
			double m = s1[b] / cnt[b];
			vsum += s2[b] / cnt[b] - m * m;
			vn++;
		}
	double vfloor = vn ? 0.1 * vsum / vn : 1e-6;
	int nbins = 0;
	for (size_t b = 0; b < nn; b++) {
		mean[b] = w[b] = 0;
		if (cnt[b] < 3)
			continue;
		double m = s1[b] / cnt[b], var = (s2[b] / cnt[b] - m * m) * cnt[b] / (cnt[b] - 1);
		if (var < vfloor)
			var = vfloor;
		mean[b] = m;
		w[b] = cnt[b] / var;
		nbins++;
	}
	free(s1);
	free(s2);
	free(cnt);
	return nbins;
}

int wls_solve(const double *y, const double *w, const float *const *col, int nc, int nbin, double *x, double *xwy,
	      double *ywy)
{
	if (nc < 1 || nc > WLS_MAX)
		return -1;
	double A[WLS_MAX][WLS_MAX], bv[WLS_MAX], L[WLS_MAX][WLS_MAX], yy = 0;
	memset(A, 0, sizeof A);
	memset(bv, 0, sizeof bv);
	memset(L, 0, sizeof L);
	for (int b = 0; b < nbin; b++) {
		double wb = w[b];
		if (!(wb > 0))
			continue;
		double v[WLS_MAX];
		for (int i = 0; i < nc; i++)
			v[i] = col[i] ? col[i][b] : 1.0;
		for (int i = 0; i < nc; i++) {
			for (int j = i; j < nc; j++)
				A[i][j] += wb * v[i] * v[j];
			bv[i] += wb * v[i] * y[b];
		}
		yy += wb * y[b] * y[b];
	}
	for (int i = 0; i < nc; i++)
		for (int j = 0; j < i; j++)
			A[i][j] = A[j][i];
	for (int i = 0; i < nc; i++) {
		A[i][i] += 1e-9 * (A[i][i] + 1e-12);
		for (int j = 0; j <= i; j++) {
			double s = A[i][j];
			for (int k = 0; k < j; k++)
				s -= L[i][k] * L[j][k];
			if (i == j) {
				if (!(s > 0))
					return -1;
				L[i][i] = sqrt(s);
			} else {
				L[i][j] = s / L[j][j];
			}
		}
	}
	double z[WLS_MAX];
	for (int i = 0; i < nc; i++) {
		double s = bv[i];
		for (int k = 0; k < i; k++)
			s -= L[i][k] * z[k];
		z[i] = s / L[i][i];
	}
	for (int i = nc - 1; i >= 0; i--) {
		double s = z[i];
		for (int k = i + 1; k < nc; k++)
			s -= L[k][i] * x[k];
		x[i] = s / L[i][i];
	}
	if (xwy)
		memcpy(xwy, bv, (size_t)nc * sizeof *xwy);
	if (ywy)
		*ywy = yy;
	return 0;
}
