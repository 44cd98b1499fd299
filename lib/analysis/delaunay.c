/*
 * delaunay.c - incremental Delaunay triangulation (Bowyer-Watson) with
 * ghost triangles, Hilbert-curve insertion order and walking point location.
 *
 * Why this design: inserting points in Hilbert order keeps consecutive points
 * close together, so the walk from the last new triangle is short and the
 * whole construction is close to O(n log n) (the sort dominates). Ghost
 * triangles (a hull edge plus a virtual vertex at infinity) make points
 * outside the current hull an ordinary cavity, so no "super triangle" with
 * finite far-away corners can distort the hull. Every decision goes through
 * the exact predicates of predicates.h, so duplicate, collinear and
 * co-circular input never produces an inconsistent mesh: a point is in
 * conflict with a triangle only when it lies strictly inside its
 * circumcircle (strictly outside a hull edge, or on the open hull edge, for
 * a ghost), which keeps every cavity star-shaped around the new point.
 */
#include "analysis/graph.h"
#include "analysis/predicates.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GHOST (-1)

struct tri {
	int v[3]; /* counter-clockwise; one may be GHOST */
	int n[3]; /* neighbour across the edge opposite v[k] */
	unsigned mark; /* stamp of the last conflict test (same cache line) */
	int pad;       /* 32 bytes: two triangles per cache line, none split */
};

struct bedge {
	int a, b;   /* cavity boundary edge, in the order of its cavity triangle */
	int out;    /* triangle outside the cavity */
	int made;   /* new triangle (a, b, p) */
};

struct dt {
	const double *xy; /* x, y of point i at 2i, 2i + 1: one cache line per point */
	struct tri *t;
	size_t nt, cap;
	unsigned stamp;
	int *cav;          /* cavity triangles of the current insertion */
	size_t ncav, cavcap;
	struct bedge *be;
	size_t nbe, becap;
	int *vslot;        /* vertex + 1 -> boundary edge starting there */
	unsigned rng;
};

/* (k + 1) % 3 and (k + 2) % 3 without the divisions */
static const int NEXT1[3] = {1, 2, 0}, NEXT2[3] = {2, 0, 1};

static int grow_arr(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 16;
	while (nc < need)
		nc *= 2;
	if (nc > SIZE_MAX / elem)
		return -1;
	void *q = realloc(*p, nc * elem);
	if (!q)
		return -1;
	*p = q;
	*cap = nc;
	return 0;
}

static int new_tri(struct dt *d, int a, int b, int c)
{
	if (grow_arr((void **)&d->t, &d->cap, d->nt + 1, sizeof *d->t))
		return -1;
	int id = (int)d->nt++;
	d->t[id].v[0] = a;
	d->t[id].v[1] = b;
	d->t[id].v[2] = c;
	d->t[id].n[0] = d->t[id].n[1] = d->t[id].n[2] = -1;
	d->t[id].mark = 0;
	return id;
}

static int is_ghost(const struct tri *t)
{
	return t->v[0] == GHOST || t->v[1] == GHOST || t->v[2] == GHOST;
}

static int orient(const struct dt *d, int a, int b, int p)
{
	const double *xy = d->xy;
	return fs_orient2d(xy[2 * a], xy[2 * a + 1], xy[2 * b], xy[2 * b + 1], xy[2 * p], xy[2 * p + 1]);
}

/* p lies strictly between a and b, given that the three are collinear. */
static int strictly_between(const struct dt *d, int a, int b, int p)
{
	double ax = d->xy[2 * a], bx = d->xy[2 * b], px = d->xy[2 * p];
	if (ax != bx)
		return (ax < px && px < bx) || (bx < px && px < ax);
	double ay = d->xy[2 * a + 1], by = d->xy[2 * b + 1], py = d->xy[2 * p + 1];
	return (ay < py && py < by) || (by < py && py < ay);
}

static int in_conflict(const struct dt *d, int id, int p)
{
	const struct tri *t = &d->t[id];

	if (!is_ghost(t)) {
		const double *u = d->xy + 2 * t->v[0], *v = d->xy + 2 * t->v[1];
		const double *w = d->xy + 2 * t->v[2], *q = d->xy + 2 * p;
		return fs_incircle(u[0], u[1], v[0], v[1], w[0], w[1], q[0], q[1]) > 0;
	}
	int g = t->v[0] == GHOST ? 0 : t->v[1] == GHOST ? 1 : 2;
	int a = t->v[(g + 1) % 3], b = t->v[(g + 2) % 3];
	int o = orient(d, a, b, p);
	if (o != 0)
		return o > 0;
	return strictly_between(d, a, b, p);
}

/*
 * Walks from triangle start towards p. Returns a ghost triangle whose hull
 * edge has p strictly outside, or a solid triangle containing p (possibly
 * on its boundary). *dup is set to the vertex p coincides with, or -1.
 */
static int locate(struct dt *d, int start, int p, int *dup)
{
	int cur = start;

	*dup = -1;
	for (;;) {
		const struct tri *t = &d->t[cur];
		int moved = 0;
		/* a varying first edge avoids cycling on degenerate walks */
		d->rng = d->rng * 1103515245u + 12345u;
		int off = (int)((d->rng >> 16) % 3);
		for (int i = 0; i < 3; i++) {
			int k = (i + off) % 3;
			int a = t->v[NEXT1[k]], b = t->v[NEXT2[k]];
			if (orient(d, a, b, p) < 0) {
				cur = t->n[k];
				moved = 1;
				break;
			}
		}
		if (!moved)
			break;
		if (is_ghost(&d->t[cur]))
			return cur;
	}
	for (int k = 0; k < 3; k++) {
		int v = d->t[cur].v[k];
		if (d->xy[2 * v] == d->xy[2 * p] && d->xy[2 * v + 1] == d->xy[2 * p + 1])
			*dup = v;
	}
	return cur;
}

static int edge_index(const struct tri *t, int a, int b)
{
	for (int k = 0; k < 3; k++) {
		int u = t->v[NEXT1[k]], w = t->v[NEXT2[k]];
		if ((u == a && w == b) || (u == b && w == a))
			return k;
	}
	return -1;
}

/* Inserts p found in (or outside the hull edge of) triangle first. */
static int insert(struct dt *d, int first, int p, int *last)
{
	d->stamp += 2;
	unsigned in = d->stamp, out = d->stamp + 1;

	d->ncav = 0;
	d->nbe = 0;
	if (d->cavcap < 1 && grow_arr((void **)&d->cav, &d->cavcap, 1, sizeof *d->cav))
		return -1;
	d->cav[d->ncav++] = first;
	d->t[first].mark = in;
	for (size_t i = 0; i < d->ncav; i++) {
		int c = d->cav[i];
		for (int k = 0; k < 3; k++) {
			int nb = d->t[c].n[k];
			unsigned mk = d->t[nb].mark;
			if (mk == in)
				continue;
			if (mk != out) {
				if (in_conflict(d, nb, p)) {
					if (d->ncav == d->cavcap &&
					    grow_arr((void **)&d->cav, &d->cavcap, d->ncav + 1,
						     sizeof *d->cav))
						return -1;
					d->t[nb].mark = in;
					d->cav[d->ncav++] = nb;
					continue;
				}
				d->t[nb].mark = out;
			}
			if (d->nbe == d->becap &&
			    grow_arr((void **)&d->be, &d->becap, d->nbe + 1, sizeof *d->be))
				return -1;
			struct bedge *e = &d->be[d->nbe++];
			e->a = d->t[c].v[NEXT1[k]];
			e->b = d->t[c].v[NEXT2[k]];
			e->out = nb;
		}
	}
	/* A star-shaped cavity of c triangles has c + 2 boundary edges (ghosts
	 * included): the new triangles take the cavity's slots, which keeps them
	 * where the cache already has them, and two new ones, so no triangle is
	 * ever freed. */
	if (d->nbe != d->ncav + 2)
		return -1; /* cannot happen */
	for (size_t i = 0; i < d->nbe; i++) {
		struct bedge *e = &d->be[i];
		int id;
		if (i < d->ncav) {
			id = d->cav[i];
			struct tri *t = &d->t[id];
			t->v[0] = e->a;
			t->v[1] = e->b;
			t->v[2] = p;
			t->n[0] = t->n[1] = -1;
			t->mark = 0;
		} else if ((id = new_tri(d, e->a, e->b, p)) < 0) {
			return -1;
		}
		e->made = id;
		d->t[id].n[2] = e->out;
		struct tri *o = &d->t[e->out];
		/* (a, b) in o lies opposite o's third vertex */
		int j = o->v[0] != e->a && o->v[0] != e->b ? 0 : o->v[1] != e->a && o->v[1] != e->b ? 1 : 2;
		o->n[j] = id;
		if (!is_ghost(&d->t[id]))
			*last = id;
	}
	/*
	 * The cavity boundary is one cycle in which every vertex starts exactly
	 * one edge: (a, b) is followed by (b, c). vslot[a] names the edge that
	 * starts at a (stale entries of earlier insertions are overwritten
	 * first), so linking is one pass with no clearing.
	 */
	for (size_t i = 0; i < d->nbe; i++)
		d->vslot[d->be[i].a + 1] = (int)i; /* + 1: GHOST is -1 */
	for (size_t i = 0; i < d->nbe; i++) {
		const struct bedge *e = &d->be[i];
		int s = d->vslot[e->b + 1];
		if (s < 0 || (size_t)s >= d->nbe || d->be[s].a != e->b)
			return -1; /* cannot happen: the boundary is a closed cycle */
		int next = d->be[s].made;
		d->t[e->made].n[0] = next;
		d->t[next].n[1] = e->made;
	}
	return 0;
}

/*
 * Insertion order only needs locality, not precision: a 1024 x 1024 grid
 * (ties keep index order) orders 10^5..10^6 points as well as a finer one,
 * with 10 instead of 16 steps per point and a radix sort whose counters
 * fit in the L1 cache.
 */
#define HB 10                     /* bits per coordinate */
#define HMAX ((1u << HB) - 1)

/* Position of (x, y) in [0, HMAX]^2 along a Hilbert curve; branch-free
 * because the bits are random and mispredictions dominated the cost. */
static uint32_t hilbert(uint32_t x, uint32_t y)
{
	uint32_t dist = 0;

	for (uint32_t s = 1u << (HB - 1); s; s >>= 1) {
		uint32_t rx = (x & s) ? 1 : 0, ry = (y & s) ? 1 : 0;
		dist += s * s * ((3 * rx) ^ ry);
		uint32_t flip = 0u - (rx & (ry ^ 1)); /* all ones when rx && !ry */
		x ^= HMAX & flip;
		y ^= HMAX & flip;
		uint32_t swap = (x ^ y) & (0u - (ry ^ 1));
		x ^= swap;
		y ^= swap;
	}
	return dist;
}

struct key {
	uint32_t h;
	int i;
};

/* Stable LSD radix sort by h (< 2^(2 HB)) in two HB-bit passes (qsort took
 * a quarter of the triangulation time). Ties keep index order. */
static int radix_sort(struct key *k, size_t n)
{
	struct key *tmp = malloc(n * sizeof *tmp);
	size_t cnt[1u << HB];

	if (!tmp)
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		int sh = pass * HB;
		memset(cnt, 0, sizeof cnt);
		for (size_t i = 0; i < n; i++)
			cnt[(k[i].h >> sh) & HMAX]++;
		size_t sum = 0;
		for (size_t b = 0; b <= HMAX; b++) {
			size_t c = cnt[b];
			cnt[b] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[cnt[(k[i].h >> sh) & HMAX]++] = k[i];
		memcpy(k, tmp, n * sizeof *k);
	}
	free(tmp);
	return 0;
}

static struct key *hilbert_order(const double *x, const double *y, size_t n)
{
	struct key *k = malloc(n * sizeof *k);
	if (!k)
		return NULL;
	double minx = x[0], maxx = x[0], miny = y[0], maxy = y[0];
	for (size_t i = 1; i < n; i++) { /* no fmin/fmax: libm calls at -O2 */
		minx = x[i] < minx ? x[i] : minx;
		maxx = x[i] > maxx ? x[i] : maxx;
		miny = y[i] < miny ? y[i] : miny;
		maxy = y[i] > maxy ? y[i] : maxy;
	}
	double span = maxx - minx > maxy - miny ? maxx - minx : maxy - miny;
	double sc = span > 0 ? HMAX / span : 0;
	for (size_t i = 0; i < n; i++) {
		k[i].h = hilbert((uint32_t)((x[i] - minx) * sc), (uint32_t)((y[i] - miny) * sc));
		k[i].i = (int)i;
	}
	if (radix_sort(k, n)) {
		free(k);
		return NULL;
	}
	return k;
}

/* Sets n[] of the first four triangles (initial triangle and its ghosts). */
static void link_initial(struct dt *d)
{
	for (int a = 0; a < 4; a++)
		for (int k = 0; k < 3; k++) {
			int u = d->t[a].v[(k + 1) % 3], w = d->t[a].v[(k + 2) % 3];
			for (int b = 0; b < 4; b++)
				if (b != a && edge_index(&d->t[b], u, w) >= 0)
					d->t[a].n[k] = b;
		}
}

static int cmp_xy(const void *a, const void *b, void *ctx)
{
	const double *const *xy = ctx;
	int i = *(const int *)a, j = *(const int *)b;
	if (xy[0][i] != xy[0][j])
		return xy[0][i] < xy[0][j] ? -1 : 1;
	if (xy[1][i] != xy[1][j])
		return xy[1][i] < xy[1][j] ? -1 : 1;
	return (i > j) - (i < j);
}

void fs_sort_points_xy(const double *x, const double *y, int *idx, size_t m)
{
	const double *xy[2] = {x, y};
	qsort_r(idx, m, sizeof *idx, cmp_xy, xy);
}

/* Duplicates for input without a triangle: sort lexicographically; the
 * smallest index of each group of equal points represents it. */
static int mark_duplicates_sorted(const double *x, const double *y, size_t n, int *rep)
{
	int *idx = malloc((n ? n : 1) * sizeof *idx);
	if (!idx)
		return -1;
	for (size_t i = 0; i < n; i++)
		idx[i] = (int)i;
	fs_sort_points_xy(x, y, idx, n);
	for (size_t i = 0; i < n; i++) {
		int r = idx[i];
		if (i > 0 && x[idx[i - 1]] == x[r] && y[idx[i - 1]] == y[r])
			r = rep[idx[i - 1]];
		rep[idx[i]] = r;
	}
	free(idx);
	return 0;
}

void fs_triangulation_free(fs_triangulation *t)
{
	if (!t)
		return;
	free(t->tri);
	free(t->nbr);
	free(t->rep);
	memset(t, 0, sizeof *t);
}

/* Copies the solid triangles out, vertex positions mapped through perm. */
static int export_tris(struct dt *d, const int *perm, fs_triangulation *out)
{
	int *map = malloc((d->nt ? d->nt : 1) * sizeof *map);
	size_t ns = 0;
	if (!map)
		return -1;
	for (size_t i = 0; i < d->nt; i++) {
		const struct tri *t = &d->t[i];
		map[i] = is_ghost(t) ? -1 : (int)ns++;
	}
	out->tri = malloc((ns ? ns : 1) * 3 * sizeof *out->tri);
	out->nbr = malloc((ns ? ns : 1) * 3 * sizeof *out->nbr);
	if (!out->tri || !out->nbr) {
		free(map);
		return -1;
	}
	for (size_t i = 0; i < d->nt; i++) {
		if (map[i] < 0)
			continue;
		size_t o = (size_t)map[i] * 3;
		for (int k = 0; k < 3; k++) {
			out->tri[o + k] = perm[d->t[i].v[k]];
			out->nbr[o + k] = map[d->t[i].n[k]];
		}
	}
	out->n_tri = ns;
	free(map);
	return 0;
}

int fs_delaunay(const double *x, const double *y, size_t n, fs_triangulation *out)
{
	struct dt d;
	struct key *order = NULL;
	double *xs = NULL;
	int *perm = NULL;
	int rc = -1;

	memset(out, 0, sizeof *out);
	memset(&d, 0, sizeof d);
	d.rng = 12345u;
	if (n > (size_t)INT32_MAX / 4)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]) || !isfinite(y[i]))
			return -1;
	out->rep = malloc((n ? n : 1) * sizeof *out->rep);
	if (!out->rep)
		goto out;
	for (size_t i = 0; i < n; i++)
		out->rep[i] = (int)i;
	if (n < 3)
		goto collinear;
	order = hilbert_order(x, y, n);
	if (!order)
		goto out;
	/*
	 * Work on copies in insertion order: consecutive insertions then touch
	 * neighbouring memory, which halved the running time (cache misses
	 * dominated). perm maps a position back to the caller's index.
	 */
	xs = malloc(2 * n * sizeof *xs);
	perm = malloc(n * sizeof *perm);
	d.vslot = malloc((n + 1) * sizeof *d.vslot);
	/* 2n - 2 triangles, ghosts included, by Euler's formula: one allocation */
	if (grow_arr((void **)&d.t, &d.cap, 2 * n + 8, sizeof *d.t))
		goto out;
	if (!xs || !perm || !d.vslot)
		goto out;
	for (size_t j = 0; j < n; j++) {
		perm[j] = order[j].i;
		xs[2 * j] = x[perm[j]];
		xs[2 * j + 1] = y[perm[j]];
	}
	free(order);
	order = NULL;
	d.xy = xs;
	/* first triangle: two distinct points and the first one off their line */
	int i0 = 0, i1 = -1, i2 = -1;
	size_t j1, j2;
	for (j1 = 1; j1 < n; j1++)
		if (xs[2 * j1] != xs[0] || xs[2 * j1 + 1] != xs[1])
			break;
	if (j1 == n)
		goto collinear;
	i1 = (int)j1;
	for (j2 = j1 + 1; j2 < n; j2++)
		if (orient(&d, i0, i1, (int)j2) != 0)
			break;
	if (j2 == n)
		goto collinear;
	i2 = (int)j2;
	if (orient(&d, i0, i1, i2) < 0) {
		int t = i1;
		i1 = i2;
		i2 = t;
	}
	if (new_tri(&d, i0, i1, i2) < 0 || new_tri(&d, i1, i0, GHOST) < 0 ||
	    new_tri(&d, i2, i1, GHOST) < 0 || new_tri(&d, i0, i2, GHOST) < 0)
		goto out;
	link_initial(&d);
	int last = 0;
	for (size_t j = 1; j < n; j++) {
		int p = (int)j, dup;
		if (j == j1 || j == j2)
			continue;
		int t = locate(&d, last, p, &dup);
		if (dup >= 0) {
			out->rep[perm[p]] = perm[dup];
			continue;
		}
		if (insert(&d, t, p, &last))
			goto out;
	}
	if (export_tris(&d, perm, out))
		goto out;
	rc = 0;
	goto out;
collinear:
	rc = mark_duplicates_sorted(x, y, n, out->rep);
out:
	free(order);
	free(xs);
	free(perm);
	free(d.t);
	free(d.cav);
	free(d.be);
	free(d.vslot);
	if (rc)
		fs_triangulation_free(out);
	return rc;
}
