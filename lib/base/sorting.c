/*
 * sorting.c - sorting in parts in threads, and selection (see sorting.h).
 */
#include "base/sorting.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/tile_pool.h"

/* Below this many items the threads and the merge cost more than they save. */
#define SORT_THREADS_MIN 4096

struct parts {
	char *base;
	size_t n, size, nparts;
	int (*cmp)(const void *, const void *);
};

/* Part k's bounds: n split as evenly as it goes. */
static size_t part_start(const struct parts *p, size_t k)
{
	return p->n / p->nparts * k + (k < p->n % p->nparts ? k : p->n % p->nparts);
}

static int sort_part(size_t k, void *ctx, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	const struct parts *p = ctx;
	size_t a = part_start(p, k), b = part_start(p, k + 1);
	qsort(p->base + a * p->size, b - a, p->size, p->cmp);
	return 0;
}

/* Merges the sorted runs src[a..m) and src[m..b) into dst[a..b), the first
 * run's item first when they compare equal (stable). */
static void merge_runs(const char *src, char *dst, size_t a, size_t m, size_t b, size_t size,
		       int (*cmp)(const void *, const void *))
{
	size_t i = a, j = m, o = a;
	while (i < m && j < b) {
		const char *x = src + i * size, *y = src + j * size;
		if (cmp(y, x) < 0) {
			memcpy(dst + o * size, y, size);
			j++;
		} else {
			memcpy(dst + o * size, x, size);
			i++;
		}
		o++;
	}
	memcpy(dst + o * size, src + i * size, (m - i) * size);
	o += m - i;
	memcpy(dst + o * size, src + j * size, (b - j) * size);
}

int fs_sort_threads(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *), int threads)
{
	int t = threads < 1 ? 1 : threads > FS_TILE_POOL_MAX_THREADS ? FS_TILE_POOL_MAX_THREADS : threads;
	if (t == 1 || n < SORT_THREADS_MIN) {
		qsort(base, n, size, cmp);
		return 0;
	}
	char *tmp = malloc(n * size);
	if (!tmp) {
		qsort(base, n, size, cmp);
		return -1;
	}
	struct parts p = {base, n, size, (size_t)t, cmp};
	char err[64];
	/* sort_part cannot fail */
	(void)fs_tile_pool_run(p.nparts, t, sort_part, NULL, &p, err, sizeof err);
	/* merge neighbouring runs, width doubling, from base to tmp and back */
	char *src = base, *dst = tmp;
	for (size_t w = 1; w < p.nparts; w *= 2) {
		for (size_t k = 0; k < p.nparts; k += 2 * w) {
			size_t a = part_start(&p, k);
			size_t m = part_start(&p, k + w < p.nparts ? k + w : p.nparts);
			size_t b = part_start(&p, k + 2 * w < p.nparts ? k + 2 * w : p.nparts);
			merge_runs(src, dst, a, m, b, size, cmp);
		}
		char *s = src;
		src = dst;
		dst = s;
	}
	if (src != (char *)base)
		memcpy(base, src, n * size);
	free(tmp);
	return 0;
}

double fs_select_kth(double *a, size_t n, size_t k)
{
	ptrdiff_t l = 0, m = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
	while (l < m) {
		double x = a[kk];
		ptrdiff_t i = l, j = m;
		/* Hoare's partition around x: the scans stop at x itself or
		 * at an item swapped past it, so they stay inside [l, m] */
		do {
			while (a[i] < x)
				i++;
			while (x < a[j])
				j--;
			if (i <= j) {
				double s = a[i];
				a[i++] = a[j];
				a[j--] = s;
			}
		} while (i <= j);
		if (j < kk)
			l = i;
		if (kk < i)
			m = j;
	}
	return a[k];
}

int fs_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double fs_median_upper(double *a, size_t n)
{
	return n ? fs_select_kth(a, n, n / 2) : NAN;
}

double fs_median_double(double *a, size_t n)
{
	if (!n)
		return NAN;
	double hi = fs_select_kth(a, n, n / 2);
	if (n % 2)
		return hi;
	/* after the selection a[0..n/2) holds the smaller half */
	double lo = a[0];
	for (size_t i = 1; i < n / 2; i++)
		if (a[i] > lo)
			lo = a[i];
	return 0.5 * (lo + hi);
}
