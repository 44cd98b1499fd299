/* near_pairs.c - the centres near a centre by an x-sorted index (see
 * near_pairs.h). */
#include "analysis/near_pairs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/stable_sort.h"

/* A pair further apart in x than this times the radius is not looked at:
 * hypot(dx, dy) >= |dx| holds for the rounded hypot too, and the margin
 * keeps any last-bit difference between the two on the looked-at side. */
#define MARGIN (1 + 1e-9)

typedef struct keyed {
	double x;
	size_t i;
} keyed;

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_keyed(const void *a, const void *b)
{
	const keyed *p = a, *q = b;
	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

/* the index's sort with cmp_keyed inlined (a total order: the indices
 * are distinct, so qsort's order; qsort was 5.9 M instructions of the
 * 2048 x 1536 lattice's dome rule, h53d) */
FS_STABLE_SORT_DEFINE(sort_keyed, keyed, cmp_keyed)

void fs_near_index_free(fs_near_index *ix)
{
	free(ix->sx);
	free(ix->order);
	free(ix->pos);
	memset(ix, 0, sizeof *ix);
}

int fs_near_index_build(fs_near_index *ix, const double *xs, const double *ys, size_t n)
{
	memset(ix, 0, sizeof *ix);
	keyed *k = malloc((n + 1) * sizeof *k);
	ix->sx = malloc((n + 1) * sizeof *ix->sx);
	ix->order = malloc((n + 1) * sizeof *ix->order);
	ix->pos = malloc((n + 1) * sizeof *ix->pos);
	if (!k || !ix->sx || !ix->order || !ix->pos) {
		free(k);
		fs_near_index_free(ix);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		k[i].x = xs[i];
		k[i].i = i;
	}
	sort_keyed(k, n);
	for (size_t r = 0; r < n; r++) {
		ix->sx[r] = k[r].x;
		ix->order[r] = k[r].i;
		ix->pos[k[r].i] = r;
	}
	free(k);
	ix->xs = xs;
	ix->ys = ys;
	ix->n = n;
	return 0;
}

double fs_near_nearest(const fs_near_index *ix, size_t i)
{
	double best = INFINITY, x = ix->xs[i], y = ix->ys[i];
	size_t p = ix->pos[i];
	/* outwards on both sides until the gap in x alone exceeds the best;
	 * a centre whose gap in y alone exceeds it is passed without its
	 * hypot, which would be at least that gap (a faithful rounding of a
	 * value no less than the representable |dy|) and so not the least:
	 * the same best. On a lattice the x-band crosses the whole image, and
	 * its hypot calls were 5.7 M instructions of the 2048 x 1536
	 * lattice's dome rule (h49o). */
	for (size_t r = p + 1; r < ix->n && ix->sx[r] - x <= best * MARGIN; r++) {
		size_t j = ix->order[r];
		double dy = y - ix->ys[j];
		if (fabs(dy) > best * MARGIN)
			continue;
		best = fmin(best, hypot(x - ix->xs[j], dy));
	}
	for (size_t r = p; r-- > 0 && x - ix->sx[r] <= best * MARGIN;) {
		size_t j = ix->order[r];
		double dy = y - ix->ys[j];
		if (fabs(dy) > best * MARGIN)
			continue;
		best = fmin(best, hypot(x - ix->xs[j], dy));
	}
	return best;
}

size_t fs_near_within_box(const fs_near_index *ix, size_t i, double r, size_t *out)
{
	double x = ix->xs[i], y = ix->ys[i], lim = r * MARGIN;
	const double *ys = ix->ys;
	size_t p = ix->pos[i], m = 0;
	/* the x-band's centres further than r in y are left out here: on a
	 * lattice the band crosses the whole image, and sorting all of it
	 * (qsort, a hundred indices a call on the 2048 x 1536 lattice) cost
	 * more than the distances the callers then measure (h40d). |dy| <=
	 * hypot(dx, dy) holds as |dx| <= it does, with the same margin. */
	for (size_t q = p + 1; q < ix->n && ix->sx[q] - x <= lim; q++)
		if (fabs(ys[ix->order[q]] - y) <= lim)
			out[m++] = ix->order[q];
	for (size_t q = p; q-- > 0 && x - ix->sx[q] <= lim;)
		if (fabs(ys[ix->order[q]] - y) <= lim)
			out[m++] = ix->order[q];
	/* ascending: the indices are distinct, so any sort gives qsort's
	 * order; a lattice leaves a dozen, sorted by insertion (qsort
	 * where crowded centres leave more) */
	if (m > 32) {
		qsort(out, m, sizeof *out, cmp_size);
		return m;
	}
	for (size_t a = 1; a < m; a++) {
		size_t v = out[a], b = a;
		for (; b > 0 && out[b - 1] > v; b--)
			out[b] = out[b - 1];
		out[b] = v;
	}
	return m;
}
