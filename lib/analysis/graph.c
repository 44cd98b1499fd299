/*
 * graph.c - Delaunay, Gabriel and relative-neighbourhood graphs, long-edge
 * culling and boundary flags on tubercle centroids (see graph.h).
 *
 * Both filters are restricted to Delaunay edges because RNG is a subgraph of
 * Gabriel, which is a subgraph of Delaunay. A Delaunay edge is Gabriel
 * exactly when neither vertex opposite to it lies inside its diametral
 * circle (a point inside that circle implies an opposite vertex inside), so
 * Gabriel costs O(1) per edge. The lune of the RNG has no such local
 * certificate, so each Gabriel edge scans the grid cells around its lune.
 */
#include "analysis/graph.h"
#include "base/sorting.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Relative tolerance for "strictly inside": lattice ties stay ties. */
#define TIE_EPS 1e-9

/* k strictly inside the circle with diameter ab: the angle at k is obtuse. */
static int in_diametral(const double *x, const double *y, int a, int b, int k)
{
	double ax = x[a] - x[k], ay = y[a] - y[k];
	double bx = x[b] - x[k], by = y[b] - y[k];
	double dot = ax * bx + ay * by;
	/* dot < -TIE_EPS |ka| |kb| without the square root */
	return dot < 0 && dot * dot > TIE_EPS * TIE_EPS * (ax * ax + ay * ay) * (bx * bx + by * by);
}

/*
 * The half of the lune of ab on k's side lies inside the circumcircle of the
 * Delaunay triangle abk, which is empty, when the angle at k is at most 60
 * degrees: the circles through a and b grow on k's side as that angle
 * shrinks, and at 60 degrees the circle is the equilateral triangle's, which
 * holds the whole Reuleaux triangle and so the half-lune. Conservative: a
 * margin keeps near-60-degree angles (lattices) for the exact search.
 */
static int half_lune_empty(const double *x, const double *y, int a, int b, int k)
{
	double ax = x[a] - x[k], ay = y[a] - y[k];
	double bx = x[b] - x[k], by = y[b] - y[k];
	double dot = ax * bx + ay * by;
	/* cos(angle) >= 0.5 with margin: dot^2 > 0.25 (1 + 1e-6) |ka|^2 |kb|^2 */
	return dot > 0 && dot * dot > 0.25000025 * (ax * ax + ay * ay) * (bx * bx + by * by);
}

/* Collinear (or two-point) input: consecutive distinct points. */
static int chain_edges(const double *x, const double *y, const int *rep, size_t n, int **pairs,
		       size_t *np)
{
	int *idx = malloc((n ? n : 1) * sizeof *idx);
	size_t m = 0;

	if (!idx)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (rep[i] == (int)i)
			idx[m++] = (int)i;
	fs_sort_points_xy(x, y, idx, m);
	*pairs = malloc((m ? m : 1) * 2 * sizeof **pairs);
	if (!*pairs) {
		free(idx);
		return -1;
	}
	*np = 0;
	for (size_t i = 1; i < m; i++) {
		int a = idx[i - 1], b = idx[i];
		(*pairs)[2 * *np] = a < b ? a : b;
		(*pairs)[2 * *np + 1] = a < b ? b : a;
		(*np)++;
	}
	free(idx);
	return 0;
}

/* A uniform grid over the distinct points, for lune queries. */
struct grid {
	double x0, y0, cell;
	int nx, ny;
	int *start; /* nx*ny + 1 offsets into items */
	struct gitem {
		double x, y; /* copies: scanning cells then reads memory in order */
		int i;
	} *items;
};

static void grid_free(struct grid *g)
{
	free(g->start);
	free(g->items);
}

static int grid_cell(const struct grid *g, double v, double o, int nmax)
{
	double c = floor((v - o) / g->cell);
	if (c < 0)
		return 0;
	if (c >= nmax)
		return nmax - 1;
	return (int)c;
}

static int grid_build(struct grid *g, const double *x, const double *y, const int *rep, size_t n)
{
	double minx = INFINITY, maxx = -INFINITY, miny = INFINITY, maxy = -INFINITY;
	size_t m = 0;

	memset(g, 0, sizeof *g);
	for (size_t i = 0; i < n; i++) {
		if (rep[i] != (int)i)
			continue;
		m++;
		if (x[i] < minx)
			minx = x[i];
		if (x[i] > maxx)
			maxx = x[i];
		if (y[i] < miny)
			miny = y[i];
		if (y[i] > maxy)
			maxy = y[i];
	}
	double w = maxx - minx, h = maxy - miny;
	double area = fmax(w, 1e-300) * fmax(h, 1e-300);
	/* about two points per cell */
	g->cell = sqrt(2.0 * area / (double)(m ? m : 1));
	if (!(g->cell > 0) || !isfinite(g->cell))
		g->cell = fmax(fmax(w, h), 1.0);
	g->x0 = minx;
	g->y0 = miny;
	g->nx = (int)fmin(floor(w / g->cell) + 1, 4096);
	g->ny = (int)fmin(floor(h / g->cell) + 1, 4096);
	size_t nc = (size_t)g->nx * (size_t)g->ny;
	g->start = calloc(nc + 1, sizeof *g->start);
	g->items = malloc((m ? m : 1) * sizeof *g->items);
	if (!g->start || !g->items) {
		grid_free(g);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (rep[i] == (int)i) {
			int c = grid_cell(g, y[i], g->y0, g->ny) * g->nx + grid_cell(g, x[i], g->x0, g->nx);
			g->start[c + 1]++;
		}
	for (size_t c = 0; c < nc; c++)
		g->start[c + 1] += g->start[c];
	int *fill = malloc((nc ? nc : 1) * sizeof *fill);
	if (!fill) {
		grid_free(g);
		return -1;
	}
	memcpy(fill, g->start, nc * sizeof *fill);
	for (size_t i = 0; i < n; i++)
		if (rep[i] == (int)i) {
			int c = grid_cell(g, y[i], g->y0, g->ny) * g->nx + grid_cell(g, x[i], g->x0, g->nx);
			struct gitem *it = &g->items[fill[c]++];
			it->x = x[i];
			it->y = y[i];
			it->i = (int)i;
		}
	free(fill);
	return 0;
}

/* Some point k has max(|ak|, |bk|) < |ab| (with the tie tolerance). */
static int lune_occupied(const struct grid *g, const double *x, const double *y, int a, int b)
{
	double dx = x[b] - x[a], dy = y[b] - y[a];
	double l2 = dx * dx + dy * dy;
	double lim = l2 * (1.0 - TIE_EPS);
	/* the lune spans L/2 along ab and L sqrt(3)/2 across it from the
	 * midpoint: its bounding box, as fractions of |dx| and |dy| */
	double hx = 0.5 * fabs(dx) + 0.8660254037844387 * fabs(dy);
	double hy = 0.5 * fabs(dy) + 0.8660254037844387 * fabs(dx);
	double mx = (x[a] + x[b]) / 2, my = (y[a] + y[b]) / 2;
	int cx0 = grid_cell(g, mx - hx, g->x0, g->nx), cx1 = grid_cell(g, mx + hx, g->x0, g->nx);
	int cy0 = grid_cell(g, my - hy, g->y0, g->ny), cy1 = grid_cell(g, my + hy, g->y0, g->ny);

	for (int cy = cy0; cy <= cy1; cy++)
		for (int cx = cx0; cx <= cx1; cx++) {
			int c = cy * g->nx + cx;
			for (int s = g->start[c]; s < g->start[c + 1]; s++) {
				const struct gitem *it = &g->items[s];
				double ax = it->x - x[a], ay = it->y - y[a];
				if (ax * ax + ay * ay >= lim)
					continue;
				double bx = it->x - x[b], by = it->y - y[b];
				if (bx * bx + by * by < lim && it->i != a && it->i != b)
					return 1;
			}
		}
	return 0;
}

/* The graph of the given type; for RNG, the Gabriel edges it was filtered
 * from are copied to *gab when gab is not NULL. */
static int edges_tri(const double *x, const double *y, size_t n, const fs_triangulation *t,
		     fs_graph type, int **pairs, size_t *n_pairs, int **gab, size_t *n_gab)
{
	struct grid g;
	int *p = NULL;
	unsigned char *certain = NULL; /* RNG: edge known to be in the RNG */
	size_t m = 0;

	*pairs = NULL;
	*n_pairs = 0;
	memset(&g, 0, sizeof g);
	if (t->n_tri == 0) /* a chain is its own Gabriel graph and RNG */
		return chain_edges(x, y, t->rep, n, pairs, n_pairs);
	/* Euler: a triangulation has fewer than 3 edges per point */
	p = malloc((3 * n + 3) * 2 * sizeof *p);
	if (type == FS_GRAPH_RNG)
		certain = malloc(3 * n + 3);
	if (!p || (type == FS_GRAPH_RNG && !certain)) {
		free(p);
		free(certain);
		return -1;
	}
	for (size_t k = 0; k < t->n_tri; k++) {
		const int *v = &t->tri[3 * k];
		for (int e = 0; e < 3; e++) {
			int nb = t->nbr[3 * k + e];
			if (nb >= 0 && (size_t)nb < k)
				continue; /* emitted with the lower-numbered triangle */
			int a = v[(e + 1) % 3], b = v[(e + 2) % 3];
			if (type != FS_GRAPH_DELAUNAY) {
				if (in_diametral(x, y, a, b, v[e]))
					continue;
				if (nb >= 0) {
					const int *w = &t->tri[3 * nb];
					int opp = w[0] != a && w[0] != b ? w[0] : w[1] != a && w[1] != b ? w[1] : w[2];
					if (in_diametral(x, y, a, b, opp))
						continue;
				}
			}
			if (type == FS_GRAPH_RNG) {
				/* An edge whose two half-lunes lie in empty
				 * circumcircles is an RNG edge without a search
				 * (about half of them). */
				int sure = half_lune_empty(x, y, a, b, v[e]);
				if (sure && nb >= 0) {
					const int *w = &t->tri[3 * nb];
					int opp = w[0] != a && w[0] != b ? w[0] : w[1] != a && w[1] != b ? w[1] : w[2];
					sure = half_lune_empty(x, y, a, b, opp);
				}
				certain[m] = (unsigned char)sure;
			}
			p[2 * m] = a < b ? a : b;
			p[2 * m + 1] = a < b ? b : a;
			m++;
		}
	}
	if (type == FS_GRAPH_RNG) {
		if (gab) {
			*gab = malloc((m ? m : 1) * 2 * sizeof **gab);
			if (*gab) {
				memcpy(*gab, p, m * 2 * sizeof *p);
				*n_gab = m;
			}
		}
		if ((gab && !*gab) || grid_build(&g, x, y, t->rep, n)) {
			if (gab) {
				free(*gab);
				*gab = NULL;
			}
			free(p);
			free(certain);
			return -1;
		}
		size_t keep = 0;
		for (size_t i = 0; i < m; i++)
			if (certain[i] || !lune_occupied(&g, x, y, p[2 * i], p[2 * i + 1])) {
				p[2 * keep] = p[2 * i];
				p[2 * keep + 1] = p[2 * i + 1];
				keep++;
			}
		m = keep;
		grid_free(&g);
		free(certain);
	}
	*pairs = p;
	*n_pairs = m;
	return 0;
}

int fs_graph_edges_tri(const double *x, const double *y, size_t n, const fs_triangulation *t,
		       fs_graph type, int **pairs, size_t *n_pairs)
{
	return edges_tri(x, y, n, t, type, pairs, n_pairs, NULL, NULL);
}

int fs_graph_gabriel_rng_tri(const double *x, const double *y, size_t n, const fs_triangulation *t,
			     int **gab, size_t *n_gab, int **rng, size_t *n_rng)
{
	*gab = NULL;
	*n_gab = 0;
	if (t->n_tri == 0) { /* a chain: both graphs are the chain */
		if (chain_edges(x, y, t->rep, n, gab, n_gab))
			return -1;
		if (chain_edges(x, y, t->rep, n, rng, n_rng)) {
			free(*gab);
			*gab = NULL;
			*n_gab = 0;
			return -1;
		}
		return 0;
	}
	return edges_tri(x, y, n, t, FS_GRAPH_RNG, rng, n_rng, gab, n_gab);
}

int fs_graph_edges(const double *x, const double *y, size_t n, fs_graph type, int **pairs,
		   size_t *n_pairs)
{
	fs_triangulation t;

	*pairs = NULL;
	*n_pairs = 0;
	if (fs_delaunay(x, y, n, &t))
		return -1;
	int rc = fs_graph_edges_tri(x, y, n, &t, type, pairs, n_pairs);
	fs_triangulation_free(&t);
	return rc;
}

size_t fs_graph_cull(const double *x, const double *y, int *pairs, size_t n_pairs, double factor)
{
	if (factor <= 0 || n_pairs == 0)
		return n_pairs;
	double *len = malloc(n_pairs * sizeof *len);
	double *sorted = malloc(n_pairs * sizeof *sorted);
	if (!len || !sorted) {
		/* culling is an optional refinement: keep everything */
		free(len);
		free(sorted);
		return n_pairs;
	}
	for (size_t i = 0; i < n_pairs; i++) {
		int a = pairs[2 * i], b = pairs[2 * i + 1];
		len[i] = hypot(x[a] - x[b], y[a] - y[b]);
		sorted[i] = len[i];
	}
	/* the median of the lengths as sorting them gave it (the middle one,
	 * or the mean of the two middle ones: the lower is the largest below
	 * the upper once that is selected), in linear time: the sort was a
	 * tenth of the graph on 100 MP */
	double hi = fs_select_kth(sorted, n_pairs, n_pairs / 2), med = hi;
	if (n_pairs % 2 == 0) {
		double lo = sorted[0];
		for (size_t i = 1; i < n_pairs / 2; i++)
			lo = sorted[i] > lo ? sorted[i] : lo;
		med = (lo + hi) / 2;
	}
	double limit = factor * med;
	size_t keep = 0;
	for (size_t i = 0; i < n_pairs; i++)
		if (len[i] <= limit) {
			pairs[2 * keep] = pairs[2 * i];
			pairs[2 * keep + 1] = pairs[2 * i + 1];
			keep++;
		}
	free(len);
	free(sorted);
	return keep;
}

static int centroids(const fs_tubercle_list *t, double **x, double **y)
{
	size_t n = t->n ? t->n : 1;
	*x = malloc(n * sizeof **x);
	*y = malloc(n * sizeof **y);
	if (!*x || !*y) {
		free(*x);
		free(*y);
		return -1;
	}
	for (size_t i = 0; i < t->n; i++) {
		(*x)[i] = t->items[i].centroid_x;
		(*y)[i] = t->items[i].centroid_y;
	}
	return 0;
}

/* c lies on line ab up to rounding (relative to |ab|^2). */
static int nearly_on_line(const double *x, const double *y, int a, int b, int c)
{
	double abx = x[b] - x[a], aby = y[b] - y[a];
	double cross = abx * (y[c] - y[a]) - aby * (x[c] - x[a]);
	return fabs(cross) <= TIE_EPS * (abx * abx + aby * aby);
}

/*
 * Boundary flags from a triangulation of the centroids: the end points of
 * hull edges. Points of a hull side computed in floating point (a lattice
 * with irrational coordinates) are often a hair inside the hull and would
 * be interior by exact geometry, joined by sliver triangles; such slivers
 * are peeled off so their apex counts as boundary too.
 */
static int set_boundary(fs_tubercle_list *tl, const fs_triangulation *t, const double *x,
			const double *y)
{
	size_t n = tl->n, nq = 0, cap = 0;
	int *q = NULL; /* (triangle, edge) pairs facing the outside */
	char *peeled = calloc(t->n_tri ? t->n_tri : 1, 1);

	if (!peeled)
		return -1;
	for (size_t i = 0; i < n; i++)
		tl->items[i].is_boundary = t->n_tri == 0;
	for (size_t k = 0; k < t->n_tri; k++)
		for (int e = 0; e < 3; e++)
			if (t->nbr[3 * k + e] < 0)
				cap += 2;
	cap += 4 * t->n_tri; /* each peeled triangle adds at most two edges */
	q = malloc((cap + 2) * sizeof *q);
	if (!q) {
		free(peeled);
		return -1;
	}
	for (size_t k = 0; k < t->n_tri; k++)
		for (int e = 0; e < 3; e++)
			if (t->nbr[3 * k + e] < 0) {
				q[nq++] = (int)k;
				q[nq++] = e;
			}
	for (size_t h = 0; h < nq; h += 2) {
		int k = q[h], e = q[h + 1];
		const int *v = &t->tri[3 * k];
		int a = v[(e + 1) % 3], b = v[(e + 2) % 3], c = v[e];
		tl->items[a].is_boundary = 1;
		tl->items[b].is_boundary = 1;
		if (peeled[k] || !nearly_on_line(x, y, a, b, c))
			continue;
		peeled[k] = 1;
		/* the sliver's two other edges now face the outside */
		for (int f = 0; f < 3; f++) {
			int nb = t->nbr[3 * k + f];
			if (f == e || nb < 0 || peeled[nb])
				continue;
			if (nq + 2 > cap + 2)
				continue; /* cannot happen: each triangle is peeled once */
			const int *w = &t->tri[3 * nb];
			int u = v[(f + 1) % 3], z = v[(f + 2) % 3];
			for (int g = 0; g < 3; g++)
				if ((w[(g + 1) % 3] == z && w[(g + 2) % 3] == u)) {
					q[nq++] = nb;
					q[nq++] = g;
				}
		}
	}
	for (size_t i = 0; i < n; i++)
		tl->items[i].is_boundary = tl->items[t->rep[i]].is_boundary;
	free(q);
	free(peeled);
	return 0;
}

int fs_graph_boundary(fs_tubercle_list *tl)
{
	double *x = NULL, *y = NULL;
	fs_triangulation t;
	int rc = -1;

	if (centroids(tl, &x, &y))
		return -1;
	if (fs_delaunay(x, y, tl->n, &t))
		goto out;
	rc = set_boundary(tl, &t, x, y);
	fs_triangulation_free(&t);
out:
	free(x);
	free(y);
	return rc;
}

static int cmp_edge(const void *a, const void *b)
{
	const fs_edge *p = a, *q = b;
	if (p->id1 != q->id1)
		return (p->id1 > q->id1) - (p->id1 < q->id1);
	return (p->id2 > q->id2) - (p->id2 < q->id2);
}

/* The edges in (id1, id2) order, as qsort with cmp_edge gives them (equal
 * edges are equal items, so any correct sort gives the same list): an LSD
 * radix sort of both ids as one 64-bit key, 16 bits a pass, a pass skipped
 * where every key has the same digit (qsort's comparator calls took a
 * fifth of the graph on 100 MP). -1 when out of memory. */
static int sort_edges(fs_edge *e, size_t n)
{
	uint64_t *k = malloc(2 * n * sizeof *k);
	size_t *cnt = malloc(((size_t)1 << 16) * sizeof *cnt);
	if (!k || !cnt) {
		free(k);
		free(cnt);
		return -1;
	}
	uint64_t *tmp = k + n;
	/* the sign bit flipped: signed order as unsigned */
	for (size_t i = 0; i < n; i++)
		k[i] = (uint64_t)((uint32_t)e[i].id1 ^ 0x80000000u) << 32 | ((uint32_t)e[i].id2 ^ 0x80000000u);
	for (int sh = 0; sh < 64; sh += 16) {
		memset(cnt, 0, ((size_t)1 << 16) * sizeof *cnt);
		for (size_t i = 0; i < n; i++)
			cnt[(k[i] >> sh) & 0xffff]++;
		if (cnt[(k[0] >> sh) & 0xffff] == n)
			continue;
		size_t sum = 0;
		for (size_t b = 0; b < ((size_t)1 << 16); b++) {
			size_t c = cnt[b];
			cnt[b] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[cnt[(k[i] >> sh) & 0xffff]++] = k[i];
		memcpy(k, tmp, n * sizeof *k);
	}
	for (size_t i = 0; i < n; i++) {
		e[i].id1 = (int)((uint32_t)(k[i] >> 32) ^ 0x80000000u);
		e[i].id2 = (int)((uint32_t)k[i] ^ 0x80000000u);
	}
	free(k);
	free(cnt);
	return 0;
}

int fs_graph_build(fs_tubercle_list *tl, fs_graph type, int cull, double cull_factor,
		   fs_edge_list *out, char *err, size_t errlen)
{
	double *x = NULL, *y = NULL;
	int *pairs = NULL;
	size_t np = 0;
	fs_triangulation tri = {0};
	int rc = -1;

	fs_edge_list_free(out);
	if (cull && !(cull_factor > 0)) {
		snprintf(err, errlen, "cull_factor must be positive (got %g)", cull_factor);
		return -1;
	}
	if (type != FS_GRAPH_DELAUNAY && type != FS_GRAPH_GABRIEL && type != FS_GRAPH_RNG) {
		snprintf(err, errlen, "unknown neighbour graph type %d", (int)type);
		return -1;
	}
	for (size_t i = 0; i < tl->n; i++)
		if (!isfinite(tl->items[i].centroid_x) || !isfinite(tl->items[i].centroid_y)) {
			snprintf(err, errlen, "tubercle %d has a non-finite centroid", tl->items[i].id);
			return -1;
		}
	if (centroids(tl, &x, &y)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* one triangulation serves the boundary flags and the edges */
	if (fs_delaunay(x, y, tl->n, &tri)) {
		snprintf(err, errlen, "out of memory triangulating %zu points", tl->n);
		goto out;
	}
	if (set_boundary(tl, &tri, x, y) ||
	    fs_graph_edges_tri(x, y, tl->n, &tri, type, &pairs, &np)) {
		snprintf(err, errlen, "out of memory building the neighbour graph");
		goto out;
	}
	if (cull)
		np = fs_graph_cull(x, y, pairs, np, cull_factor);
	for (size_t i = 0; i < np; i++) {
		int a = tl->items[pairs[2 * i]].id, b = tl->items[pairs[2 * i + 1]].id;
		fs_edge e = {a < b ? a : b, a < b ? b : a};
		if (fs_edge_list_append(out, &e)) {
			snprintf(err, errlen, "out of memory");
			fs_edge_list_free(out);
			goto out;
		}
	}
	if (out->n && sort_edges(out->items, out->n))
		qsort(out->items, out->n, sizeof *out->items, cmp_edge);
	rc = 0;
out:
	fs_triangulation_free(&tri);
	free(pairs);
	free(x);
	free(y);
	return rc;
}
