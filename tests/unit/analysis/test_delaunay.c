/*
 * test_delaunay.c - robust predicates and the Delaunay triangulation:
 * property checks (orientation, empty circumcircles, neighbour symmetry,
 * Euler count, area = hull area) on random sets, lattices, collinear and
 * duplicate points.
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
#include "analysis/predicates.h"
#include "test_rng.h"

static uint64_t rng_state;

/* Area of the convex hull by the monotone chain (independent of graph.c). */
static int cmp_pt(const void *a, const void *b)
{
	const double *p = a, *q = b;
	if (p[0] != q[0])
		return p[0] < q[0] ? -1 : 1;
	return (p[1] > q[1]) - (p[1] < q[1]);
}

static double hull_area(const double *x, const double *y, size_t n)
{
	double *p = malloc(n * 2 * sizeof *p);
	double *h = malloc((2 * n + 1) * 2 * sizeof *h);
	size_t k = 0;
	assert_non_null(p);
	assert_non_null(h);
	for (size_t i = 0; i < n; i++) {
		p[2 * i] = x[i];
		p[2 * i + 1] = y[i];
	}
	qsort(p, n, 2 * sizeof *p, cmp_pt);
	for (int pass = 0; pass < 2; pass++) {
		size_t start = k;
		for (size_t j = 0; j < n; j++) {
			size_t i = pass ? n - 1 - j : j;
			while (k >= start + 2 &&
			       fs_orient2d(h[2 * (k - 2)], h[2 * (k - 2) + 1], h[2 * (k - 1)],
					   h[2 * (k - 1) + 1], p[2 * i], p[2 * i + 1]) <= 0)
				k--;
			h[2 * k] = p[2 * i];
			h[2 * k + 1] = p[2 * i + 1];
			k++;
		}
		k--;
	}
	double a = 0;
	for (size_t i = 0; i < k; i++) {
		size_t j = (i + 1) % k;
		a += h[2 * i] * h[2 * j + 1] - h[2 * j] * h[2 * i + 1];
	}
	free(p);
	free(h);
	return fabs(a) / 2;
}

/* Checks every property of a Delaunay triangulation of (x, y). */
static void check_triangulation(const double *x, const double *y, size_t n, int brute)
{
	fs_triangulation t;
	assert_int_equal(fs_delaunay(x, y, n, &t), 0);

	size_t distinct = 0, hull_edges = 0;
	char *used = calloc(n ? n : 1, 1);
	char *onhull = calloc(n ? n : 1, 1);
	assert_non_null(used);
	assert_non_null(onhull);
	for (size_t i = 0; i < n; i++) {
		int r = t.rep[i];
		assert_true(r >= 0 && (size_t)r < n);
		assert_true(x[r] == x[i] && y[r] == y[i]);
		assert_int_equal(t.rep[r], r);
		if (r == (int)i)
			distinct++;
	}
	double area = 0;
	for (size_t k = 0; k < t.n_tri; k++) {
		const int *v = &t.tri[3 * k];
		assert_int_equal(fs_orient2d(x[v[0]], y[v[0]], x[v[1]], y[v[1]], x[v[2]], y[v[2]]), 1);
		area += ((x[v[1]] - x[v[0]]) * (y[v[2]] - y[v[0]]) -
			 (y[v[1]] - y[v[0]]) * (x[v[2]] - x[v[0]])) / 2;
		for (int e = 0; e < 3; e++) {
			assert_int_equal(t.rep[v[e]], v[e]);
			used[v[e]] = 1;
			int nb = t.nbr[3 * k + e];
			int a = v[(e + 1) % 3], b = v[(e + 2) % 3];
			if (nb < 0) {
				hull_edges++;
				onhull[a] = onhull[b] = 1;
				continue;
			}
			/* the neighbour has the same edge, reversed, and points back */
			int found = 0;
			for (int f = 0; f < 3; f++) {
				const int *w = &t.tri[3 * nb];
				if (w[(f + 1) % 3] == b && w[(f + 2) % 3] == a) {
					assert_int_equal(t.nbr[3 * nb + f], (int)k);
					found = 1;
				}
			}
			assert_true(found);
		}
		if (brute)
			for (size_t p = 0; p < n; p++)
				assert_true(fs_incircle(x[v[0]], y[v[0]], x[v[1]], y[v[1]], x[v[2]],
							y[v[2]], x[p], y[p]) <= 0);
	}
	if (t.n_tri) {
		size_t h = 0;
		for (size_t i = 0; i < n; i++) {
			if (t.rep[i] == (int)i)
				assert_true(used[i]);
			h += onhull[i];
		}
		assert_int_equal(h, hull_edges);
		assert_int_equal(t.n_tri, 2 * distinct - h - 2);
		double ha = hull_area(x, y, n);
		assert_true(fabs(area - ha) <= 1e-9 * (1 + ha));
	}
	free(used);
	free(onhull);
	fs_triangulation_free(&t);
}

static void test_orient2d_signs(void **state)
{
	(void)state;
	assert_int_equal(fs_orient2d(0, 0, 1, 0, 0, 1), 1);
	assert_int_equal(fs_orient2d(0, 0, 0, 1, 1, 0), -1);
	assert_int_equal(fs_orient2d(0, 0, 1, 1, 2, 2), 0);
}

static void test_orient2d_exact_near_degenerate(void **state)
{
	(void)state;
	/* 0.1 steps are inexact; the float formula misjudges some of these */
	double e = ldexp(1.0, -52);
	assert_int_equal(fs_orient2d(0.5, 0.5, 12, 12, 24, 24), 0);
	assert_int_equal(fs_orient2d(0.5 + e, 0.5, 12, 12, 24, 24), -1);
	assert_int_equal(fs_orient2d(0.5, 0.5 + e, 12, 12, 24, 24), 1);
	/* collinear with a huge coordinate spread */
	assert_int_equal(fs_orient2d(1e15, 1e15, 1e15 + 2, 1e15 + 2, 3, 3), 0);
}

static void test_incircle_signs(void **state)
{
	(void)state;
	assert_int_equal(fs_incircle(0, 0, 2, 0, 0, 2, 0.5, 0.5), 1);
	assert_int_equal(fs_incircle(0, 0, 2, 0, 0, 2, 3, 3), -1);
	assert_int_equal(fs_incircle(0, 0, 2, 0, 0, 2, 2, 2), 0); /* co-circular square */
}

static void test_incircle_exact_near_cocircular(void **state)
{
	(void)state;
	double e = ldexp(1.0, -40);
	/* unit circle around (1e6, 1e6): the float evaluation cannot decide */
	double c = 1e6;
	assert_int_equal(fs_incircle(c + 1, c, c, c + 1, c - 1, c, c, c - 1), 0);
	assert_int_equal(fs_incircle(c + 1, c, c, c + 1, c - 1, c, c, c - 1 + e * 1e6), 1);
	assert_int_equal(fs_incircle(c + 1, c, c, c + 1, c - 1, c, c, c - 1 - e * 1e6), -1);
}

static void test_incircle_exact_cocircular_fractional(void **state)
{
	(void)state;
	/* (3,4), (-4,3), (-3,-4), (4,-3) lie on one circle; scaled by 0.375
	 * they are not integers, so the expansion stage decides */
	double s = 0.375;
	assert_int_equal(fs_incircle(3 * s, 4 * s, -4 * s, 3 * s, -3 * s, -4 * s, 4 * s, -3 * s), 0);
	assert_int_equal(fs_incircle(3 * s, 4 * s, -4 * s, 3 * s, -3 * s, -4 * s, 4 * s, -3 * s + 1e-12),
			 1);
}

/* The exact stage on fractional coordinates whose differences are exact
 * (all within [1024, 2048): Sterbenz), the translated determinant's case,
 * against the integer stage on the same points scaled by 2^10 (a power of
 * two keeps the sign): random quadruples from an 8 x 8 grid, so that
 * co-circular and collinear ties (sign 0) are frequent. */
static void test_incircle_exact_translated_matches_integers(void **state)
{
	(void)state;
	rng_state = 77;
	int zeros = 0, signs = 0;
	for (int n = 0; n < 20000; n++) {
		double k[8], f[8];
		for (int i = 0; i < 8; i++) {
			k[i] = 1200 * 1024 + (double)(int)(test_lcg_unit(&rng_state) * 8) * 37;
			f[i] = k[i] / 1024;
		}
		int want = fs_incircle_exact(k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7]);
		int got = fs_incircle_exact(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]);
		assert_int_equal(got, want);
		assert_int_equal(fs_incircle(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]), want);
		zeros += want == 0;
		signs += want != 0;
	}
	print_message("%d ties, %d signs\n", zeros, signs);
	assert_true(zeros > 1000 && signs > 1000);
}

static void test_delaunay_random_points(void **state)
{
	(void)state;
	enum { N = 400 };
	double x[N], y[N];
	rng_state = 1;
	for (int r = 0; r < 5; r++) {
		for (int i = 0; i < N; i++) {
			x[i] = test_lcg_unit(&rng_state) * 1000;
			y[i] = test_lcg_unit(&rng_state) * 700;
		}
		check_triangulation(x, y, N, 1);
	}
}

static void test_delaunay_square_lattice_cocircular(void **state)
{
	(void)state;
	enum { S = 20 };
	double x[S * S], y[S * S];
	for (int i = 0; i < S * S; i++) {
		x[i] = i % S;
		y[i] = i / S;
	}
	check_triangulation(x, y, S * S, 1);
}

static void test_delaunay_integer_grid_with_noise_free_ties(void **state)
{
	(void)state;
	enum { N = 300 };
	double x[N], y[N];
	rng_state = 7;
	for (int i = 0; i < N; i++) {
		x[i] = floor(test_lcg_unit(&rng_state) * 12);
		y[i] = floor(test_lcg_unit(&rng_state) * 12);
	}
	check_triangulation(x, y, N, 1); /* many duplicates and ties */
}

static void test_delaunay_hexagonal_lattice(void **state)
{
	(void)state;
	enum { S = 15 };
	double x[S * S], y[S * S];
	for (int i = 0; i < S * S; i++) {
		int r = i / S, c = i % S;
		x[i] = 10.0 * c + (r % 2 ? 5.0 : 0.0);
		y[i] = 10.0 * sqrt(3.0) / 2.0 * r;
	}
	check_triangulation(x, y, S * S, 1);
}

static void test_delaunay_collinear_gives_no_triangle(void **state)
{
	(void)state;
	double x[6] = {0, 3, 1, 5, 2, 4}, y[6] = {0, 6, 2, 10, 4, 8};
	fs_triangulation t;
	assert_int_equal(fs_delaunay(x, y, 6, &t), 0);
	assert_int_equal(t.n_tri, 0);
	fs_triangulation_free(&t);
}

static void test_delaunay_collinear_then_one_off_line(void **state)
{
	(void)state;
	double x[7] = {0, 1, 2, 3, 4, 5, 2.5}, y[7] = {0, 0, 0, 0, 0, 0, 1};
	check_triangulation(x, y, 7, 1);
	fs_triangulation t;
	assert_int_equal(fs_delaunay(x, y, 7, &t), 0);
	assert_int_equal(t.n_tri, 5);
	fs_triangulation_free(&t);
}

static void test_delaunay_duplicates_are_ignored(void **state)
{
	(void)state;
	double x[6] = {0, 1, 0, 1, 0, 1}, y[6] = {0, 0, 1, 1, 0, 1};
	fs_triangulation t;
	assert_int_equal(fs_delaunay(x, y, 6, &t), 0);
	assert_int_equal(t.n_tri, 2);
	assert_int_equal(t.rep[4], t.rep[0]);
	assert_int_equal(t.rep[5], t.rep[3]);
	fs_triangulation_free(&t);
	check_triangulation(x, y, 6, 1);
}

static void test_delaunay_all_same_point(void **state)
{
	(void)state;
	double x[4] = {3, 3, 3, 3}, y[4] = {2, 2, 2, 2};
	fs_triangulation t;
	assert_int_equal(fs_delaunay(x, y, 4, &t), 0);
	assert_int_equal(t.n_tri, 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(t.rep[i], 0);
	fs_triangulation_free(&t);
}

static void test_delaunay_small_inputs(void **state)
{
	(void)state;
	double x[3] = {0, 1, 0}, y[3] = {0, 0, 1};
	fs_triangulation t;
	assert_int_equal(fs_delaunay(x, y, 0, &t), 0);
	assert_int_equal(t.n_tri, 0);
	fs_triangulation_free(&t);
	assert_int_equal(fs_delaunay(x, y, 2, &t), 0);
	assert_int_equal(t.n_tri, 0);
	fs_triangulation_free(&t);
	assert_int_equal(fs_delaunay(x, y, 3, &t), 0);
	assert_int_equal(t.n_tri, 1);
	fs_triangulation_free(&t);
}

static void test_delaunay_rejects_nan(void **state)
{
	(void)state;
	double x[3] = {0, NAN, 0}, y[3] = {0, 0, 1};
	fs_triangulation t;
	assert_int_equal(fs_delaunay(x, y, 3, &t), -1);
	assert_null(t.tri);
}

static void test_delaunay_points_on_circle(void **state)
{
	(void)state;
	/* exact co-circular set: the 8 integer points at distance 5 plus 4 axis ones */
	double x[12] = {3, 4, -3, -4, 3, 4, -3, -4, 5, -5, 0, 0};
	double y[12] = {4, 3, 4, 3, -4, -3, -4, -3, 0, 0, 5, -5};
	check_triangulation(x, y, 12, 1);
}

static void test_delaunay_large_random_set_consistent(void **state)
{
	(void)state;
	enum { N = 20000 };
	double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
	assert_non_null(x);
	assert_non_null(y);
	rng_state = 99;
	for (int i = 0; i < N; i++) {
		x[i] = test_lcg_unit(&rng_state) * 4096;
		y[i] = test_lcg_unit(&rng_state) * 3072;
	}
	check_triangulation(x, y, N, 0); /* no brute-force circle test: O(n^2) */
	free(x);
	free(y);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_orient2d_signs),
		cmocka_unit_test(test_orient2d_exact_near_degenerate),
		cmocka_unit_test(test_incircle_signs),
		cmocka_unit_test(test_incircle_exact_near_cocircular),
		cmocka_unit_test(test_incircle_exact_cocircular_fractional),
		cmocka_unit_test(test_incircle_exact_translated_matches_integers),
		cmocka_unit_test(test_delaunay_random_points),
		cmocka_unit_test(test_delaunay_square_lattice_cocircular),
		cmocka_unit_test(test_delaunay_integer_grid_with_noise_free_ties),
		cmocka_unit_test(test_delaunay_hexagonal_lattice),
		cmocka_unit_test(test_delaunay_collinear_gives_no_triangle),
		cmocka_unit_test(test_delaunay_collinear_then_one_off_line),
		cmocka_unit_test(test_delaunay_duplicates_are_ignored),
		cmocka_unit_test(test_delaunay_all_same_point),
		cmocka_unit_test(test_delaunay_small_inputs),
		cmocka_unit_test(test_delaunay_rejects_nan),
		cmocka_unit_test(test_delaunay_points_on_circle),
		cmocka_unit_test(test_delaunay_large_random_set_consistent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
