/*
 * test_graph.c - Gabriel / RNG / Delaunay graphs against their brute-force
 * definitions, subset relations, lattices, culling and boundary flags.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/graph.h"
#include "test_rng.h"

static uint64_t rng_state;

/* Adjacency matrix of an edge list on n points. */
static char *adjacency(const int *p, size_t m, size_t n)
{
	char *a = calloc(n * n, 1);
	assert_non_null(a);
	for (size_t i = 0; i < m; i++) {
		assert_true(p[2 * i] < p[2 * i + 1]);
		assert_int_equal(a[p[2 * i] * n + p[2 * i + 1]], 0); /* no duplicate edge */
		a[p[2 * i] * n + p[2 * i + 1]] = a[p[2 * i + 1] * n + p[2 * i]] = 1;
	}
	return a;
}

static char *graph_adj(const double *x, const double *y, size_t n, fs_graph type, size_t *m)
{
	int *p;
	assert_int_equal(fs_graph_edges(x, y, n, type, &p, m), 0);
	char *a = adjacency(p, *m, n);
	free(p);
	return a;
}

/* The brute-force definitions, with the documented tie tolerance. */
static int brute_gabriel(const double *x, const double *y, size_t n, int a, int b)
{
	for (size_t k = 0; k < n; k++) {
		if ((int)k == a || (int)k == b)
			continue;
		double ax = x[a] - x[k], ay = y[a] - y[k], bx = x[b] - x[k], by = y[b] - y[k];
		double dot = ax * bx + ay * by;
		if (dot < -1e-9 * sqrt((ax * ax + ay * ay) * (bx * bx + by * by)))
			return 0;
	}
	return 1;
}

static int brute_rng(const double *x, const double *y, size_t n, int a, int b)
{
	double l2 = (x[a] - x[b]) * (x[a] - x[b]) + (y[a] - y[b]) * (y[a] - y[b]);
	for (size_t k = 0; k < n; k++) {
		if ((int)k == a || (int)k == b)
			continue;
		double da = (x[a] - x[k]) * (x[a] - x[k]) + (y[a] - y[k]) * (y[a] - y[k]);
		double db = (x[b] - x[k]) * (x[b] - x[k]) + (y[b] - y[k]) * (y[b] - y[k]);
		if (fmax(da, db) < l2 * (1 - 1e-9))
			return 0;
	}
	return 1;
}

/* Checks RNG <= Gabriel <= Delaunay and both filters against brute force. */
static void check_graphs(const double *x, const double *y, size_t n)
{
	size_t md, mg, mr;
	char *d = graph_adj(x, y, n, FS_GRAPH_DELAUNAY, &md);
	char *g = graph_adj(x, y, n, FS_GRAPH_GABRIEL, &mg);
	char *r = graph_adj(x, y, n, FS_GRAPH_RNG, &mr);

	assert_true(mr <= mg && mg <= md);
	for (size_t a = 0; a < n; a++)
		for (size_t b = a + 1; b < n; b++) {
			size_t i = a * n + b;
			if (r[i])
				assert_true(g[i]);
			if (g[i])
				assert_true(d[i]);
			if (d[i]) {
				assert_int_equal(g[i], brute_gabriel(x, y, n, (int)a, (int)b));
				assert_int_equal(r[i], brute_rng(x, y, n, (int)a, (int)b));
			}
		}
	/* every brute-force RNG edge is found (RNG is a subgraph of Delaunay) */
	for (size_t a = 0; a < n; a++)
		for (size_t b = a + 1; b < n; b++)
			if (brute_rng(x, y, n, (int)a, (int)b))
				assert_true(r[a * n + b]);
	free(d);
	free(g);
	free(r);
}

static int *degrees(const char *adj, size_t n)
{
	int *deg = calloc(n, sizeof *deg);
	assert_non_null(deg);
	for (size_t a = 0; a < n; a++)
		for (size_t b = 0; b < n; b++)
			deg[a] += adj[a * n + b];
	return deg;
}

static void test_filters_match_definitions_on_random_points(void **state)
{
	(void)state;
	enum { N = 250 };
	double x[N], y[N];
	rng_state = 3;
	for (int r = 0; r < 4; r++) {
		for (int i = 0; i < N; i++) {
			x[i] = test_lcg_unit(&rng_state) * 500;
			y[i] = test_lcg_unit(&rng_state) * 300;
		}
		check_graphs(x, y, N);
	}
}

static void test_filters_match_definitions_on_integer_points(void **state)
{
	(void)state;
	enum { N = 200 };
	double x[N], y[N];
	rng_state = 11;
	for (int i = 0; i < N; i++) {
		x[i] = floor(test_lcg_unit(&rng_state) * 40); /* LoG-like integer centres, many ties */
		y[i] = floor(test_lcg_unit(&rng_state) * 40);
	}
	/* duplicates would break the brute force (distance 0): nudge them apart */
	for (int i = 0; i < N; i++)
		for (int j = 0; j < i; j++)
			if (x[i] == x[j] && y[i] == y[j])
				x[i] += 40 + i;
	check_graphs(x, y, N);
}

static void test_hexagonal_lattice_interior_degree_six(void **state)
{
	(void)state;
	enum { S = 12, N = S * S };
	double x[N], y[N];
	for (int i = 0; i < N; i++) {
		int r = i / S, c = i % S;
		x[i] = 12.5 * c + (r % 2 ? 6.25 : 0.0) + 3.1;
		y[i] = 12.5 * sqrt(3.0) / 2.0 * r + 7.3;
	}
	check_graphs(x, y, N);
	for (int type = FS_GRAPH_DELAUNAY; type <= FS_GRAPH_RNG; type++) {
		size_t m;
		char *a = graph_adj(x, y, N, (fs_graph)type, &m);
		int *deg = degrees(a, N);
		for (int i = 0; i < N; i++) {
			int r = i / S, c = i % S;
			if (r > 0 && r < S - 1 && c > 0 && c < S - 1)
				assert_int_equal(deg[i], 6);
		}
		free(deg);
		free(a);
	}
}

static void test_square_lattice_rng_is_four_neighbour_grid(void **state)
{
	(void)state;
	enum { S = 10, N = S * S };
	double x[N], y[N];
	for (int i = 0; i < N; i++) {
		x[i] = i % S;
		y[i] = i / S;
	}
	check_graphs(x, y, N);
	size_t m;
	char *a = graph_adj(x, y, N, FS_GRAPH_RNG, &m);
	assert_int_equal(m, 2 * S * (S - 1));
	free(a);
	/* diagonals sit on the circle of their square's corners: Gabriel keeps them */
	size_t md, mg;
	free(graph_adj(x, y, N, FS_GRAPH_DELAUNAY, &md));
	free(graph_adj(x, y, N, FS_GRAPH_GABRIEL, &mg));
	assert_int_equal(md, mg);
	assert_int_equal(md, 2 * S * (S - 1) + (S - 1) * (S - 1));
}

/* Near-hexagonal lattices put many triangle angles near 60 degrees, where
 * the RNG's circumcircle shortcut stops applying: the filters must still
 * match the definitions there. */
static void test_filters_match_definitions_on_jittered_hex_lattice(void **state)
{
	(void)state;
	enum { N = 90 };
	double x[N], y[N];
	rng_state = 7;
	for (double jit = 1e-9; jit < 0.5; jit *= 100) {
		for (int i = 0; i < N; i++) {
			int r = i / 10, c = i % 10;
			x[i] = 10.0 * c + 5.0 * (r & 1) + jit * (test_lcg_unit(&rng_state) - 0.5);
			y[i] = 8.660254037844386 * r + jit * (test_lcg_unit(&rng_state) - 0.5);
		}
		check_graphs(x, y, N);
	}
}

/* The one-pass function gives what the two separate calls give. */
static void assert_one_pass_matches(const double *x, const double *y, size_t n)
{
	fs_triangulation t;
	int *g1, *r1, *g2, *r2;
	size_t mg1, mr1, mg2, mr2;
	assert_int_equal(fs_delaunay(x, y, n, &t), 0);
	assert_int_equal(fs_graph_edges_tri(x, y, n, &t, FS_GRAPH_GABRIEL, &g1, &mg1), 0);
	assert_int_equal(fs_graph_edges_tri(x, y, n, &t, FS_GRAPH_RNG, &r1, &mr1), 0);
	assert_int_equal(fs_graph_gabriel_rng_tri(x, y, n, &t, &g2, &mg2, &r2, &mr2), 0);
	assert_int_equal(mg1, mg2);
	assert_int_equal(mr1, mr2);
	assert_memory_equal(g1, g2, 2 * mg1 * sizeof *g1);
	assert_memory_equal(r1, r2, 2 * mr1 * sizeof *r1);
	free(g1);
	free(r1);
	free(g2);
	free(r2);
	fs_triangulation_free(&t);
}

static void test_gabriel_rng_one_pass_matches_separate_calls(void **state)
{
	(void)state;
	enum { N = 500 };
	double x[N], y[N];
	rng_state = 11;
	for (int i = 0; i < N; i++) {
		x[i] = test_lcg_unit(&rng_state) * 300;
		y[i] = test_lcg_unit(&rng_state) * 200;
	}
	assert_one_pass_matches(x, y, N);
	double cx[4] = {0, 1, 2, 3}, cy[4] = {0, 2, 4, 6}; /* collinear: the chain */
	assert_one_pass_matches(cx, cy, 4);
}

static void test_collinear_points_give_chain(void **state)
{
	(void)state;
	double x[5] = {4, 0, 2, 1, 3}, y[5] = {8, 0, 4, 2, 6};
	for (int type = FS_GRAPH_DELAUNAY; type <= FS_GRAPH_RNG; type++) {
		int *p;
		size_t m;
		assert_int_equal(fs_graph_edges(x, y, 5, (fs_graph)type, &p, &m), 0);
		assert_int_equal(m, 4);
		char *a = adjacency(p, m, 5);
		assert_true(a[1 * 5 + 3] && a[3 * 5 + 2] && a[2 * 5 + 4] && a[4 * 5 + 0]);
		free(a);
		free(p);
	}
}

static void test_two_points_give_one_edge(void **state)
{
	(void)state;
	double x[2] = {0, 5}, y[2] = {0, 5};
	int *p;
	size_t m;
	assert_int_equal(fs_graph_edges(x, y, 2, FS_GRAPH_GABRIEL, &p, &m), 0);
	assert_int_equal(m, 1);
	assert_int_equal(p[0], 0);
	assert_int_equal(p[1], 1);
	free(p);
	assert_int_equal(fs_graph_edges(x, y, 1, FS_GRAPH_DELAUNAY, &p, &m), 0);
	assert_int_equal(m, 0);
	free(p);
}

static void test_duplicates_get_no_edge(void **state)
{
	(void)state;
	double x[5] = {0, 10, 0, 10, 10}, y[5] = {0, 0, 10, 10, 10};
	int *p;
	size_t m;
	assert_int_equal(fs_graph_edges(x, y, 5, FS_GRAPH_DELAUNAY, &p, &m), 0);
	assert_int_equal(m, 5);
	char *a = adjacency(p, m, 5);
	assert_false(a[3 * 5 + 4]);
	assert_true(!(a[0 * 5 + 3] && a[0 * 5 + 4]));
	free(a);
	free(p);
}

static void test_cull_removes_edges_longer_than_factor_times_median(void **state)
{
	(void)state;
	/* edge lengths 1, 1, 1, 10: median 1 -> limit 1.8 drops the 10 */
	double x[5] = {0, 1, 2, 3, 13}, y[5] = {0, 0, 0, 0, 0};
	int pairs[8] = {0, 1, 1, 2, 2, 3, 3, 4};
	assert_int_equal(fs_graph_cull(x, y, pairs, 4, 1.8), 3);
	assert_int_equal(pairs[4], 2);
	assert_int_equal(pairs[5], 3);
}

static void test_cull_median_of_even_count_is_mean_of_middle_pair(void **state)
{
	(void)state;
	/* lengths 1, 2, 4, 8: median 3 -> factor 2 keeps <= 6 */
	double x[5] = {0, 1, 3, 7, 15}, y[5] = {0};
	int pairs[8] = {0, 1, 1, 2, 2, 3, 3, 4};
	assert_int_equal(fs_graph_cull(x, y, pairs, 4, 2.0), 3);
}

static void test_cull_factor_zero_disables(void **state)
{
	(void)state;
	double x[3] = {0, 1, 100}, y[3] = {0};
	int pairs[4] = {0, 1, 1, 2};
	assert_int_equal(fs_graph_cull(x, y, pairs, 2, 0), 2);
}

static fs_tubercle_list lattice_tubercles(int s)
{
	fs_tubercle_list l = {0};
	for (int i = 0; i < s * s; i++) {
		fs_tubercle t = {0};
		t.id = 100 + i;
		t.centroid_x = 20.0 * (i % s) + (((i / s) % 2) ? 10.0 : 0.0);
		t.centroid_y = 20.0 * sqrt(3.0) / 2.0 * (i / s);
		t.radius_px = 4;
		assert_int_equal(fs_tubercle_list_append(&l, &t), 0);
	}
	return l;
}

static void test_boundary_flags_are_hull_points(void **state)
{
	(void)state;
	enum { S = 8 };
	fs_tubercle_list l = {0};
	for (int i = 0; i < S * S; i++) {
		fs_tubercle t = {0};
		t.id = i + 1;
		t.centroid_x = i % S;
		t.centroid_y = i / S;
		t.is_boundary = 1;
		assert_int_equal(fs_tubercle_list_append(&l, &t), 0);
	}
	assert_int_equal(fs_graph_boundary(&l), 0);
	for (int i = 0; i < S * S; i++) {
		int r = i / S, c = i % S;
		int edge = r == 0 || c == 0 || r == S - 1 || c == S - 1;
		assert_int_equal(l.items[i].is_boundary, edge);
	}
	fs_tubercle_list_free(&l);
}

static void test_boundary_with_fewer_than_three_points_is_all(void **state)
{
	(void)state;
	fs_tubercle_list l = {0};
	fs_tubercle t = {0};
	t.id = 1;
	assert_int_equal(fs_tubercle_list_append(&l, &t), 0);
	t.id = 2;
	t.centroid_x = 5;
	assert_int_equal(fs_tubercle_list_append(&l, &t), 0);
	assert_int_equal(fs_graph_boundary(&l), 0);
	assert_true(l.items[0].is_boundary && l.items[1].is_boundary);
	fs_tubercle_list_free(&l);
}

static void test_boundary_duplicate_takes_flag_of_original(void **state)
{
	(void)state;
	double pts[6][2] = {{0, 0}, {10, 0}, {0, 10}, {10, 10}, {5, 5}, {5, 5}};
	fs_tubercle_list l = {0};
	for (int i = 0; i < 6; i++) {
		fs_tubercle t = {0};
		t.id = i + 1;
		t.centroid_x = pts[i][0];
		t.centroid_y = pts[i][1];
		assert_int_equal(fs_tubercle_list_append(&l, &t), 0);
	}
	assert_int_equal(fs_graph_boundary(&l), 0);
	assert_false(l.items[4].is_boundary);
	assert_false(l.items[5].is_boundary);
	assert_true(l.items[0].is_boundary);
	fs_tubercle_list_free(&l);
}

static void test_build_uses_ids_sorted_and_sets_boundary(void **state)
{
	(void)state;
	fs_tubercle_list l = lattice_tubercles(6);
	fs_edge_list e = {0};
	char err[128];
	assert_int_equal(fs_graph_build(&l, FS_GRAPH_DELAUNAY, 0, 1.8, &e, err, sizeof err), 0);
	for (size_t i = 0; i < e.n; i++) {
		assert_true(e.items[i].id1 < e.items[i].id2);
		assert_true(e.items[i].id1 >= 100 && e.items[i].id2 < 136);
		if (i)
			assert_true(e.items[i - 1].id1 < e.items[i].id1 ||
				    (e.items[i - 1].id1 == e.items[i].id1 &&
				     e.items[i - 1].id2 < e.items[i].id2));
	}
	int nb = 0;
	for (size_t i = 0; i < l.n; i++)
		nb += l.items[i].is_boundary;
	/* Euler: a triangulation of n points with h on the hull has 3n - 3 - h edges */
	assert_int_equal(e.n, 3 * 36 - 3 - nb);
	assert_true(nb >= 14 && nb <= 20);
	fs_edge_list_free(&e);
	fs_tubercle_list_free(&l);
}

/* Ids anywhere in int's range, negative ones included, and whose every
 * 16-bit digit varies (the edges' order is a radix sort of the two ids):
 * the same edges as with small ids, in (id1, id2) order. */
static void test_build_sorts_edges_by_ids_of_any_size(void **state)
{
	(void)state;
	fs_tubercle_list small = lattice_tubercles(12), big = lattice_tubercles(12);
	fs_edge_list es = {0}, eb = {0};
	char err[128];
	int map[144];
	for (size_t i = 0; i < big.n; i++) {
		/* a scrambled, injective map of 0..143 over the whole range */
		unsigned u = (unsigned)(i * 2654435761u) ^ 0x5bd1e995u;
		map[i] = (int)u;
		big.items[i].id = map[i];
	}
	assert_int_equal(fs_graph_build(&small, FS_GRAPH_RNG, 1, 1.8, &es, err, sizeof err), 0);
	assert_int_equal(fs_graph_build(&big, FS_GRAPH_RNG, 1, 1.8, &eb, err, sizeof err), 0);
	assert_int_equal(eb.n, es.n);
	assert_true(eb.n > 200);
	int negative = 0;
	for (size_t i = 0; i < eb.n; i++) {
		negative += eb.items[i].id1 < 0;
		if (i)
			assert_true(eb.items[i - 1].id1 < eb.items[i].id1 ||
				    (eb.items[i - 1].id1 == eb.items[i].id1 && eb.items[i - 1].id2 < eb.items[i].id2));
		/* each edge of the big ids is an edge of the small ones */
		int a = -1, b = -1;
		for (int k = 0; k < 144; k++) {
			a = map[k] == eb.items[i].id1 ? k : a;
			b = map[k] == eb.items[i].id2 ? k : b;
		}
		assert_true(a >= 0 && b >= 0);
		int lo = 100 + (a < b ? a : b), hi = 100 + (a < b ? b : a), found = 0;
		for (size_t j = 0; j < es.n && !found; j++)
			found = es.items[j].id1 == lo && es.items[j].id2 == hi;
		assert_true(found);
	}
	assert_true(negative > 0);
	fs_edge_list_free(&es);
	fs_edge_list_free(&eb);
	fs_tubercle_list_free(&small);
	fs_tubercle_list_free(&big);
}

static void test_build_rejects_non_finite_centroid(void **state)
{
	(void)state;
	fs_tubercle_list l = lattice_tubercles(3);
	fs_edge_list e = {0};
	char err[128] = "";
	l.items[4].centroid_x = NAN;
	assert_int_equal(fs_graph_build(&l, FS_GRAPH_GABRIEL, 0, 1.8, &e, err, sizeof err), -1);
	assert_non_null(strstr(err, "104"));
	fs_tubercle_list_free(&l);
}

static void test_build_rejects_zero_cull_factor(void **state)
{
	(void)state;
	fs_tubercle_list l = lattice_tubercles(3);
	fs_edge_list e = {0};
	char err[128] = "";
	assert_int_equal(fs_graph_build(&l, FS_GRAPH_RNG, 1, 0.0, &e, err, sizeof err), -1);
	assert_non_null(strstr(err, "cull_factor"));
	fs_tubercle_list_free(&l);
}

static void test_build_empty_list_gives_no_edges(void **state)
{
	(void)state;
	fs_tubercle_list l = {0};
	fs_edge_list e = {0};
	char err[128];
	assert_int_equal(fs_graph_build(&l, FS_GRAPH_DELAUNAY, 1, 1.8, &e, err, sizeof err), 0);
	assert_int_equal(e.n, 0);
	fs_edge_list_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filters_match_definitions_on_random_points),
		cmocka_unit_test(test_filters_match_definitions_on_integer_points),
		cmocka_unit_test(test_hexagonal_lattice_interior_degree_six),
		cmocka_unit_test(test_square_lattice_rng_is_four_neighbour_grid),
		cmocka_unit_test(test_filters_match_definitions_on_jittered_hex_lattice),
		cmocka_unit_test(test_gabriel_rng_one_pass_matches_separate_calls),
		cmocka_unit_test(test_collinear_points_give_chain),
		cmocka_unit_test(test_two_points_give_one_edge),
		cmocka_unit_test(test_duplicates_get_no_edge),
		cmocka_unit_test(test_cull_removes_edges_longer_than_factor_times_median),
		cmocka_unit_test(test_cull_median_of_even_count_is_mean_of_middle_pair),
		cmocka_unit_test(test_cull_factor_zero_disables),
		cmocka_unit_test(test_boundary_flags_are_hull_points),
		cmocka_unit_test(test_boundary_with_fewer_than_three_points_is_all),
		cmocka_unit_test(test_boundary_duplicate_takes_flag_of_original),
		cmocka_unit_test(test_build_uses_ids_sorted_and_sets_boundary),
		cmocka_unit_test(test_build_sorts_edges_by_ids_of_any_size),
		cmocka_unit_test(test_build_rejects_non_finite_centroid),
		cmocka_unit_test(test_build_rejects_zero_cull_factor),
		cmocka_unit_test(test_build_empty_list_gives_no_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
