/*
 * nearest_point.c - the nearest point within a limit (nearest_point.h).
 */
#include "nearest_point.h"

#include <math.h>
#include <stdlib.h>

long nearest_point(const double *xs, const double *ys, const int *use, size_t n, double x, double y, double lim)
{
	double best = lim;
	long bi = -1;
	for (size_t i = 0; i < n; i++) {
		if (use && !use[i])
			continue;
		double d = hypot(xs[i] - x, ys[i] - y);
		if (d < best) {
			best = d;
			bi = (long)i;
		}
	}
	return bi;
}

long nearest_tubercle(const fs_tubercle_list *l, double x, double y, double lim)
{
	double best = lim;
	long bi = -1;
	for (size_t i = 0; i < l->n; i++) {
		double d = hypot(l->items[i].centroid_x - x, l->items[i].centroid_y - y);
		if (d < best) {
			best = d;
			bi = (long)i;
		}
	}
	return bi;
}

size_t nearest_of_truth(const sem_truth *tr, const double *xs, const double *ys, const int *use, size_t n,
			double frac, long *of_truth)
{
	size_t k = 0;
	for (size_t t = 0; t < tr->n; t++) {
		of_truth[t] = tr->inside[t] ? nearest_point(xs, ys, use, n, tr->x[t], tr->y[t], frac * tr->pitch) : -1;
		k += of_truth[t] >= 0;
	}
	return k;
}

long nearest_mean_offset(const fs_cand_list *c, double sx, double sy, const sem_truth *tr, double frac, double ax,
			 double ay, double *along, double *across)
{
	double sa = 0, sc = 0;
	long k = 0;
	*along = *across = NAN;
	double *xs = malloc((c->n + 1) * sizeof *xs), *ys = malloc((c->n + 1) * sizeof *ys);
	long *of = malloc((tr->n + 1) * sizeof *of);
	if (!xs || !ys || !of) {
		k = -1;
		goto out;
	}
	for (size_t i = 0; i < c->n; i++) {
		xs[i] = c->items[i].x + sx;
		ys[i] = c->items[i].y + sy;
	}
	nearest_of_truth(tr, xs, ys, NULL, c->n, frac, of);
	for (size_t t = 0; t < tr->n; t++) {
		if (of[t] < 0)
			continue;
		double dx = xs[of[t]] - tr->x[t], dy = ys[of[t]] - tr->y[t];
		sa += dx * ax + dy * ay;
		sc += -dx * ay + dy * ax;
		k++;
	}
	if (k) {
		*along = sa / k;
		*across = sc / k;
	}
out:
	free(xs);
	free(ys);
	free(of);
	return k;
}
