/*
 * graph.h - neighbour graphs on tubercle centroids: Delaunay triangulation
 * (robust orientation / in-circle predicates; duplicates, collinear and
 * co-circular points handled), Gabriel graph, relative neighbourhood graph,
 * long-edge culling and boundary flags.
 *
 * Ownership: output lists are owned by the caller and freed with
 * fs_edge_list_free / fs_triangulation_free.
 */
#ifndef FS_GRAPH_H
#define FS_GRAPH_H

#include <stddef.h>

#include "analysis/params.h"
#include "image/tubercle.h"

typedef struct fs_triangulation {
	int *tri;      /* 3 point indices per triangle, fs_orient2d(...) > 0 */
	size_t n_tri;
	int *nbr;      /* 3 per triangle: the triangle across the edge opposite
			* tri[3t + k], or -1 on the convex hull */
	int *rep;      /* n entries: rep[i] = i, or for a duplicate the index
			* of the equal point that represents it (the one used
			* in the triangles or, without triangles, the smallest) */
} fs_triangulation;

/*
 * Delaunay triangulation of n points (x[i], y[i]) (incremental insertion in
 * Hilbert-curve order with walking point location and ghost triangles for
 * the outside of the hull; exact predicates). Duplicate points are ignored
 * (they appear in no triangle; see rep). When every point is collinear
 * there is no triangle (n_tri = 0). Co-circular points get one valid
 * triangulation (which diagonal is implementation-defined). Coordinates must
 * be finite. Returns 0 or -1 (out of memory, non-finite coordinate).
 */
int fs_delaunay(const double *x, const double *y, size_t n, fs_triangulation *out);
/* Sorts the point indices idx[0..m) by x, then y, then index: the order of
 * collinear points along their line, and equal points side by side. */
void fs_sort_points_xy(const double *x, const double *y, int *idx, size_t m);
void fs_triangulation_free(fs_triangulation *t); /* tolerates NULL, zeroes t */

/*
 * Edges of the chosen graph on n points, as pairs of point indices (a < b),
 * 2 ints per edge in pairs (caller frees with free()). Without triangles
 * (n == 2, or all points collinear) the Delaunay graph is the chain of
 * consecutive distinct points along the line. Duplicate points get no edge.
 * Gabriel: a Delaunay edge ab is kept unless some point lies strictly inside
 * the circle with diameter ab (points on the circle keep it); RNG: kept
 * unless some point k has max(|ak|, |bk|) < |ab|. "Strictly" allows a
 * relative tolerance of 1e-9 so that rounding noise on lattices (ties by
 * construction) never removes an edge. Gabriel uses the two vertices
 * opposite the edge in the triangulation; RNG (a subset of Gabriel) checks
 * the lune through a uniform grid. Returns 0 or -1 (out of memory).
 */
int fs_graph_edges(const double *x, const double *y, size_t n, fs_graph type, int **pairs,
		   size_t *n_pairs);
/* Same on an existing triangulation t of the same points (so one
 * triangulation can serve several graphs). */
int fs_graph_edges_tri(const double *x, const double *y, size_t n, const fs_triangulation *t,
		       fs_graph type, int **pairs, size_t *n_pairs);
/* Gabriel and RNG edges in one pass over t (the RNG is filtered from the
 * Gabriel edges, so asking for both separately would compute Gabriel
 * twice). The caller frees *gab and *rng; on error (-1) neither is set. */
int fs_graph_gabriel_rng_tri(const double *x, const double *y, size_t n, const fs_triangulation *t,
			     int **gab, size_t *n_gab, int **rng, size_t *n_rng);

/*
 * Long-edge culling. The reference length is the MEDIAN centre distance of
 * the given edges (robust to a few very long hull edges, unlike the
 * original UI's mean); edges longer than factor x median are removed in
 * place (order kept). factor <= 0 disables culling. Returns the number of
 * edges kept.
 */
size_t fs_graph_cull(const double *x, const double *y, int *pairs, size_t n_pairs, double factor);

/*
 * Builds the edges of the chosen graph on the tubercles' centroids (edge ids
 * are tubercle ids), culls edges longer than cull_factor x the reference
 * length when cull is set (reference: the median, see fs_graph_cull), and
 * sets is_boundary on every tubercle as fs_graph_boundary does (always from
 * the full Delaunay triangulation). Edges come out with id1 < id2, sorted.
 * out is overwritten (its old items are freed). Returns 0 or -1 with a
 * message (out of memory, non-finite centroid, cull factor not positive).
 */
int fs_graph_build(fs_tubercle_list *t, fs_graph type, int cull, double cull_factor,
		   fs_edge_list *out, char *err, size_t errlen);

/*
 * Recomputes only the boundary flags of t: the end points of Delaunay hull
 * edges (points on a hull side count too, also when rounding put them a
 * hair inside: sliver triangles along the hull, apex within 1e-9 x the
 * edge length of it, are peeled off). With fewer than 3 distinct
 * points, or all points collinear, every tubercle is boundary. A duplicate
 * takes the flag of the point it duplicates. Returns 0 or -1 (out of
 * memory; flags unchanged).
 */
int fs_graph_boundary(fs_tubercle_list *t);

#endif
