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

#include "params.h"
#include "tubercle.h"

typedef struct fs_triangulation {
	int *tri;      /* 3 point indices per triangle, counter-clockwise */
	size_t n_tri;
} fs_triangulation;

/* Delaunay triangulation of n points (x[i], y[i]). Duplicate points are
 * ignored (they appear in no triangle). Returns 0 or -1 (out of memory). */
int fs_delaunay(const double *x, const double *y, size_t n, fs_triangulation *out);
void fs_triangulation_free(fs_triangulation *t);

/*
 * Builds the edges of the chosen graph on the tubercles' centroids (edge ids
 * are tubercle ids), culls edges longer than cull_factor x the reference
 * length when cull is set (reference: see graph.c), and sets is_boundary on
 * every tubercle (end points of Delaunay hull edges). Returns 0 or -1 with
 * a message.
 */
int fs_graph_build(fs_tubercle_list *t, fs_graph type, int cull, double cull_factor,
		   fs_edge_list *out, char *err, size_t errlen);

/* Recomputes only the boundary flags (Delaunay hull) of t. */
int fs_graph_boundary(fs_tubercle_list *t);

#endif
