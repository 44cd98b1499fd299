/* scale_grid.c - the best scale over a grid of scales (scale_grid.h). */
#include "scale_grid.h"

double scale_grid_vertex(const double *x, const double *y)
{
	double d1 = (y[1] - y[0]) / (x[1] - x[0]), d2 = (y[2] - y[1]) / (x[2] - x[1]);
	double a = (d2 - d1) / (x[2] - x[0]);
	if (!(a > 0))
		return x[1];
	return 0.5 * (x[0] + x[1]) - d1 / (2 * a);
}

double scale_grid_best(const double *scales, const double *sse, int n, int *clip)
{
	int m = 0;
	for (int i = 1; i < n; i++)
		if (sse[i] < sse[m])
			m = i;
	*clip = m == 0 || m == n - 1;
	return *clip ? scales[m] : scale_grid_vertex(&scales[m - 1], &sse[m - 1]);
}
