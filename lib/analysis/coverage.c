/*
 * coverage.c - convex-hull area and the coverage percentage (see
 * metrics.h for the formula; every term is in pixels).
 */
#include "analysis/metrics.h"
#include "analysis/predicates.h"

#include <math.h>
#include <stdlib.h>

struct pt {
	double x, y;
};

static int cmp_pt(const void *a, const void *b)
{
	const struct pt *p = a, *q = b;
	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return (p->y > q->y) - (p->y < q->y);
}

/* Andrew's monotone chain; collinear points are dropped from the hull. */
double fs_convex_hull_area(const double *x, const double *y, size_t n)
{
	if (n < 3)
		return 0;
	struct pt *p = malloc(n * sizeof *p);
	struct pt *h = malloc((2 * n + 1) * sizeof *h);
	double area = -1;
	size_t k = 0;

	if (!p || !h)
		goto out;
	for (size_t i = 0; i < n; i++) {
		p[i].x = x[i];
		p[i].y = y[i];
	}
	qsort(p, n, sizeof *p, cmp_pt);
	for (int pass = 0; pass < 2; pass++) {
		size_t start = k;
		for (size_t j = 0; j < n; j++) {
			const struct pt *c = &p[pass ? n - 1 - j : j];
			while (k >= start + 2 &&
			       fs_orient2d(h[k - 2].x, h[k - 2].y, h[k - 1].x, h[k - 1].y, c->x, c->y) <= 0)
				k--;
			h[k++] = *c;
		}
		k--; /* the last point of each chain starts the other */
	}
	area = 0;
	for (size_t i = 0; i < k; i++) {
		size_t j = (i + 1) % k;
		area += h[i].x * h[j].y - h[j].x * h[i].y;
	}
	area = fabs(area) / 2;
out:
	free(p);
	free(h);
	return area;
}

double fs_coverage_percent(const fs_tubercle_list *t, double pitch_px, int image_w, int image_h)
{
	if (t->n < 3 || image_w <= 0 || image_h <= 0)
		return 0;
	double *x = malloc(t->n * sizeof *x), *y = malloc(t->n * sizeof *y);
	double cov = -1;

	if (!x || !y)
		goto out;
	for (size_t i = 0; i < t->n; i++) {
		x[i] = t->items[i].centroid_x;
		y[i] = t->items[i].centroid_y;
	}
	double hull = fs_convex_hull_area(x, y, t->n);
	if (hull < 0)
		goto out;
	double base = hull / ((double)image_w * (double)image_h) * 100.0;
	double density = 0.7;
	if (pitch_px > 0 && isfinite(pitch_px)) {
		double cell = pitch_px * pitch_px * sqrt(3.0) / 2.0;
		density = fmin(1.0, (double)t->n / fmax(10.0, hull / cell));
	}
	cov = fmin(100.0, fmax(0.0, base * density));
out:
	free(x);
	free(y);
	return cov;
}
