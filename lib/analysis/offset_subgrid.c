/*
 * offset_subgrid.c - the formation fit's offset between its grid points
 * (see offset_subgrid.h).
 */
#include "analysis/offset_subgrid.h"

#include <math.h>

int fs_offset_subgrid(const double rss[9], double *di, double *dj)
{
	*di = *dj = 0;
	for (int k = 0; k < 9; k++)
		if (!isfinite(rss[k]))
			return 0;
	/* The least-squares quadratic a + b i + c j + d i^2 + e j^2 + g i j
	 * over the 3 x 3 block, in closed form: the block is symmetric, so
	 * each coefficient is a contrast of its rows' or columns' sums. The
	 * cross term is kept: with the detector at 135 degrees the residual's
	 * valley runs diagonally, and two one-axis parabolas would each read
	 * the other axis's slope as their own. */
	double col[3] = {0, 0, 0}, row[3] = {0, 0, 0}, cross = 0;
	for (int j = -1; j <= 1; j++)
		for (int i = -1; i <= 1; i++) {
			double v = rss[(j + 1) * 3 + (i + 1)];
			col[i + 1] += v / 3;
			row[j + 1] += v / 3;
			cross += i * j * v;
		}
	double b = 0.5 * (col[2] - col[0]), c = 0.5 * (row[2] - row[0]);
	double d = 0.5 * (col[0] - 2 * col[1] + col[2]), e = 0.5 * (row[0] - 2 * row[1] + row[2]), g = cross / 4;
	/* the gradient's zero: [2d g; g 2e] (i, j) = -(b, c) */
	double det = 4 * d * e - g * g;
	double scale = fabs(rss[4]) + fabs(d) + fabs(e) + fabs(g);
	if (!(d > 0) || !(e > 0) || !(det > 1e-12 * scale * scale))
		return 0;
	double i0 = (-2 * e * b + g * c) / det, j0 = (g * b - 2 * d * c) / det;
	*di = fmin(0.5, fmax(-0.5, i0));
	*dj = fmin(0.5, fmax(-0.5, j0));
	return 1;
}
