/*
 * mean_patch.h - the mean patch of an image about many dome centres and
 * its weighted least-squares fit on model columns: what the formation
 * benches (bench_formation_lm, bench_small_dome_patch) fit the SEM
 * simulator's mean dome to.
 *
 * Ownership: every array is the caller's; nothing is kept between calls.
 */
#ifndef MEAN_PATCH_H
#define MEAN_PATCH_H

#include "image/image.h"

/* The most columns wls_solve takes. */
#define WLS_MAX 32

/*
 * The mean patch of img about the centres (xs, ys; n), each moved by
 * (dx, dy): every pixel within wpx px of a centre goes to the bin of its
 * offset (q bins a px, nb = 2 wpx q + 1 a side, row-major; no
 * interpolation). mean[b] is the bin's mean, w[b] its count over its
 * variance, which is floored at a tenth of the bins' pooled variance (a
 * bin of a few pixels can show none); bins of fewer than 3 pixels are 0
 * in both. Returns the bins filled, -1 when out of memory.
 */
int mean_patch_build(const fs_image *img, const double *xs, const double *ys, int n, double dx, double dy, int wpx,
		     int q, double *mean, double *w);

/*
 * Weighted least squares of y on nc (<= WLS_MAX) columns over nbin bins
 * (col[i][b]; a NULL column is the constant 1; bins of w <= 0 unused):
 * the normal equations with a tiny ridge, so a column that is zero in
 * the data drops out instead of failing, solved by Cholesky. The
 * coefficients into x; when not NULL, X'Wy into xwy (nc) and y'Wy into
 * *ywy (chi^2 = y'Wy - x . X'Wy). Returns 0, -1 when singular.
 */
int wls_solve(const double *y, const double *w, const float *const *col, int nc, int nbin, double *x, double *xwy,
	      double *ywy);

#endif
