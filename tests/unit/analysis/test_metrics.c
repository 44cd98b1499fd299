/*
 * test_metrics.c - statistics against hand-computed small cases, genus of
 * the published values, coverage, convex hull and calibration helpers.
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
#include "analysis/metrics.h"

#define EPS 1e-6

static void add(fs_tubercle_list *l, int id, double x, double y, double r, int boundary)
{
	fs_tubercle t = {0};
	t.id = id;
	t.centroid_x = x;
	t.centroid_y = y;
	t.radius_px = r;
	t.is_boundary = boundary;
	assert_int_equal(fs_tubercle_list_append(l, &t), 0);
}

static void edge(fs_edge_list *l, int a, int b)
{
	fs_edge e = {a, b};
	assert_int_equal(fs_edge_list_append(l, &e), 0);
}

/* Square 10 x 10 with a centre point, radius 1: 4 hull edges, 4 spokes. */
static void square_with_centre(fs_tubercle_list *t, fs_edge_list *e)
{
	add(t, 1, 0, 0, 1, 1);
	add(t, 2, 10, 0, 1, 1);
	add(t, 3, 10, 10, 1, 1);
	add(t, 4, 0, 10, 1, 1);
	add(t, 5, 5, 5, 1, 0);
	edge(e, 1, 2);
	edge(e, 2, 3);
	edge(e, 3, 4);
	edge(e, 1, 4);
	for (int i = 1; i <= 4; i++)
		edge(e, i, 5);
}

static void test_hexagonalness_of_square_with_centre(void **state)
{
	(void)state;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_stats s;
	square_with_centre(&t, &e);
	assert_int_equal(fs_stats_compute(&t, &e, 1.0, NULL, 0, 0, &s), 0);
	assert_int_equal(s.n_tubercles, 5);
	assert_int_equal(s.n_edges, 8);
	assert_int_equal(s.n_boundary, 4);
	assert_int_equal(s.n_interior, 1);
	/* gaps: 8 (x4) and sqrt(50) - 2 (x4); sample SD */
	double g2 = sqrt(50.0) - 2, mean = (8 + g2) / 2;
	double sd = sqrt(4 * 2 * pow((8 - g2) / 2, 2) / 7);
	assert_true(fabs(s.spacing_cv - sd / mean) < EPS);
	assert_true(fabs(s.spacing_uniformity - (1 - 2 * sd / mean)) < EPS);
	assert_true(fabs(s.degree_score - 0.7) < EPS); /* centre has degree 4 */
	assert_true(fabs(s.mean_degree - 4) < EPS);
	assert_int_equal(s.degree_histogram[4], 1);
	assert_true(fabs(s.edge_ratio_score - 0) < EPS); /* 8 edges / 1 interior */
	assert_true(fabs(s.hexagonalness_score - (0.4 * (1 - 2 * sd / mean) + 0.45 * 0.7)) < EPS);
	assert_string_equal(s.reliability, "none");
	assert_true(fabs(s.mean_space_um - mean) < EPS);
	assert_true(fabs(s.min_space_um - g2) < EPS);
	assert_true(fabs(s.max_space_um - 8) < EPS);
	assert_true(fabs(s.mean_center_distance_um - (10 + sqrt(50.0)) / 2) < EPS);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
}

static void test_custom_weights_change_score(void **state)
{
	(void)state;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_stats s;
	fs_hex_weights w = {0, 1, 0};
	square_with_centre(&t, &e);
	assert_int_equal(fs_stats_compute(&t, &e, 1.0, &w, 0, 0, &s), 0);
	assert_true(fabs(s.hexagonalness_score - 0.7) < EPS);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
}

static void test_diameter_statistics_use_sample_sd_and_calibration(void **state)
{
	(void)state;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_stats s;
	add(&t, 1, 0, 0, 1, 1);
	add(&t, 2, 50, 0, 2, 1);
	add(&t, 3, 0, 50, 3, 1);
	assert_int_equal(fs_stats_compute(&t, &e, 0.5, NULL, 0, 0, &s), 0);
	assert_true(fabs(s.mean_diameter_um - 2) < EPS); /* 1, 2, 3 µm */
	assert_true(fabs(s.std_diameter_um - 1) < EPS);
	assert_true(fabs(s.min_diameter_um - 1) < EPS);
	assert_true(fabs(s.max_diameter_um - 3) < EPS);
	assert_true(fabs(s.um_per_px - 0.5) < EPS);
	fs_tubercle_list_free(&t);
}

static void test_single_value_has_zero_sd(void **state)
{
	(void)state;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_stats s;
	add(&t, 1, 0, 0, 4, 1);
	assert_int_equal(fs_stats_compute(&t, &e, 1.0, NULL, 0, 0, &s), 0);
	assert_true(fabs(s.std_diameter_um) < EPS);
	assert_true(fabs(s.mean_diameter_um - 8) < EPS);
	fs_tubercle_list_free(&t);
}

static void test_negative_edge_distance_counts_as_zero_space(void **state)
{
	(void)state;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_stats s;
	double c, g;
	add(&t, 1, 0, 0, 2, 1);
	add(&t, 2, 3, 0, 2, 1); /* overlapping: edge distance -1 */
	add(&t, 3, 13, 0, 2, 1); /* gap 6 */
	edge(&e, 1, 2);
	edge(&e, 2, 3);
	assert_int_equal(fs_edge_lengths(&t, &e.items[0], &c, &g), 0);
	assert_true(fabs(c - 3) < EPS);
	assert_true(fabs(g + 1) < EPS); /* not clamped in the core */
	assert_int_equal(fs_stats_compute(&t, &e, 1.0, NULL, 0, 0, &s), 0);
	assert_true(fabs(s.mean_space_um - 3) < EPS); /* (0 + 6) / 2 */
	assert_true(fabs(s.min_space_um) < EPS);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
}

static void test_edge_lengths_unknown_id_fails(void **state)
{
	(void)state;
	fs_tubercle_list t = {0};
	fs_edge bad = {1, 99};
	double c, g;
	add(&t, 1, 0, 0, 2, 1);
	assert_int_equal(fs_edge_lengths(&t, &bad, &c, &g), -1);
	fs_tubercle_list_free(&t);
}

static void test_fewer_than_four_tubercles_have_no_hexagonalness(void **state)
{
	(void)state;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_stats s;
	add(&t, 1, 0, 0, 1, 0);
	add(&t, 2, 10, 0, 1, 0);
	add(&t, 3, 5, 8, 1, 0);
	edge(&e, 1, 2);
	edge(&e, 2, 3);
	edge(&e, 1, 3);
	assert_int_equal(fs_stats_compute(&t, &e, 1.0, NULL, 0, 0, &s), 0);
	assert_true(s.hexagonalness_score == 0 && s.degree_score == 0 && s.edge_ratio_score == 0);
	assert_true(fabs(s.spacing_cv - 1) < EPS);
	assert_string_equal(s.reliability, "none");
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
}

static void test_degree_histogram_last_bin_collects_high_degrees(void **state)
{
	(void)state;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_stats s;
	add(&t, 1, 0, 0, 1, 0);
	for (int i = 0; i < 20; i++) {
		add(&t, 2 + i, 30 * cos(i * 0.314), 30 * sin(i * 0.314), 1, 1);
		edge(&e, 1, 2 + i);
	}
	assert_int_equal(fs_stats_compute(&t, &e, 1.0, NULL, 0, 0, &s), 0);
	assert_int_equal(s.degree_histogram[FS_DEGREE_HIST_MAX], 1);
	assert_true(fabs(s.degree_score) < EPS); /* degree 20 weighs 0 */
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
}

/* Hexagon-shaped patch of a hexagonal lattice: every hull edge is a lattice edge. */
static void test_hexagonal_patch_scores_near_one(void **state)
{
	(void)state;
	enum { R = 8 };
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_stats s;
	char err[128];
	int id = 1;
	for (int q = -R; q <= R; q++)
		for (int r = -R; r <= R; r++) {
			if (abs(q + r) > R)
				continue;
			add(&t, id++, 100 + 20.0 * (q + r / 2.0), 100 + 20.0 * sqrt(3.0) / 2 * r, 6, 0);
		}
	assert_int_equal(t.n, 3 * R * (R + 1) + 1);
	assert_int_equal(fs_graph_build(&t, FS_GRAPH_DELAUNAY, 1, 1.8, &e, err, sizeof err), 0);
	assert_int_equal(fs_stats_compute(&t, &e, 1.0, NULL, 0, 0, &s), 0);
	assert_int_equal(s.n_boundary, 6 * R);
	assert_true(fabs(s.degree_score - 1) < EPS);
	assert_true(fabs(s.mean_degree - 6) < EPS);
	assert_int_equal(s.degree_histogram[6], s.n_interior);
	assert_true(s.spacing_uniformity > 1 - 1e-6);
	assert_true(s.hexagonalness_score > 0.95);
	assert_string_equal(s.reliability, "high");
	assert_true(fabs(s.mean_space_um - 8) < 1e-6);
	assert_true(fabs(s.size_pitch_ratio - 12.0 / 20.0) < 1e-6);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
}

static void test_genus_of_published_values(void **state)
{
	(void)state;
	const char *g, *c;
	fs_classify_genus(3.79, 3.14, &g, &c); /* Lepisosteus osseus */
	assert_string_equal(g, "Lepisosteus");
	assert_string_equal(c, "high");
	fs_classify_genus(7.07, 2.61, &g, &c); /* Atractosteus simplex */
	assert_string_equal(g, "Atractosteus");
	assert_string_equal(c, "high");
	fs_classify_genus(2.63, 6.19, &g, &c); /* Polypterus bichir */
	assert_string_equal(g, "Polypterus");
	assert_string_equal(c, "high");
	fs_classify_genus(2.19, 5.76, &g, &c); /* Polypterus delhezi */
	assert_string_equal(g, "Polypterus");
	fs_classify_genus(5.835, 6.125, &g, &c); /* Paralepidosteus */
	assert_string_equal(g, "Paralepidosteus");
	assert_string_equal(c, "high");
	/* overlapping ranges: the first match in table order wins, as published */
	fs_classify_genus(5.0, 4.67, &g, &c); /* Obaichthys midpoints */
	assert_string_equal(g, "Lepisosteus");
	assert_string_equal(c, "high");
}

static void test_genus_medium_low_and_unknown(void **state)
{
	(void)state;
	const char *g, *c;
	fs_classify_genus(6.0, 3.0, &g, &c); /* Atractosteus score 1.10 */
	assert_string_equal(g, "Atractosteus");
	assert_string_equal(c, "medium");
	fs_classify_genus(15.0, 2.355, &g, &c); /* Atractosteus score 2.25 */
	assert_string_equal(g, "Atractosteus");
	assert_string_equal(c, "low");
	fs_classify_genus(40.0, 40.0, &g, &c);
	assert_string_equal(g, "Unknown");
	assert_string_equal(c, "none");
	fs_classify_genus(NAN, 3.0, &g, &c);
	assert_string_equal(g, "Unknown");
}

static void test_stats_without_edges_give_no_genus(void **state)
{
	(void)state;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_stats s;
	add(&t, 1, 0, 0, 2, 1);
	assert_int_equal(fs_stats_compute(&t, &e, 1.0, NULL, 0, 0, &s), 0);
	assert_string_equal(s.suggested_genus, "Unknown");
	assert_string_equal(s.classification_confidence, "none");
	fs_tubercle_list_free(&t);
}

static void test_convex_hull_area_ignores_interior_and_collinear(void **state)
{
	(void)state;
	double x[7] = {0, 100, 100, 0, 50, 50, 30}, y[7] = {0, 0, 100, 100, 0, 50, 70};
	assert_true(fabs(fs_convex_hull_area(x, y, 7) - 10000) < EPS);
	double lx[4] = {0, 1, 2, 3}, ly[4] = {0, 1, 2, 3};
	assert_true(fabs(fs_convex_hull_area(lx, ly, 4)) < EPS);
	assert_true(fabs(fs_convex_hull_area(x, y, 2)) < EPS);
}

static void test_coverage_is_hull_fraction_times_pixel_density(void **state)
{
	(void)state;
	fs_tubercle_list t = {0};
	add(&t, 1, 50, 50, 1, 1);
	add(&t, 2, 150, 50, 1, 1);
	add(&t, 3, 150, 150, 1, 1);
	add(&t, 4, 50, 150, 1, 1);
	add(&t, 5, 100, 100, 1, 0);
	/* hull 10000 of 40000 = 25 %; cell = 100 sqrt(3)/2; density = 5 / 115.47 */
	double cell = 100 * sqrt(3.0) / 2;
	assert_true(fabs(fs_coverage_percent(&t, 10, 200, 200) - 25 * 5 / (10000 / cell)) < 1e-6);
	/* pitch large enough that the hull holds fewer than 10 cells: max(10, .) */
	assert_true(fabs(fs_coverage_percent(&t, 100, 200, 200) - 25 * 0.5) < 1e-6);
	/* no pitch: the original's 0.7 */
	assert_true(fabs(fs_coverage_percent(&t, 0, 200, 200) - 17.5) < 1e-6);
	assert_true(fabs(fs_coverage_percent(&t, 10, 0, 200)) < EPS);
	fs_tubercle_list_free(&t);
}

static void test_coverage_below_three_points_is_zero(void **state)
{
	(void)state;
	fs_tubercle_list t = {0};
	add(&t, 1, 50, 50, 1, 1);
	add(&t, 2, 150, 50, 1, 1);
	assert_true(fs_coverage_percent(&t, 10, 200, 200) == 0);
	fs_tubercle_list_free(&t);
}

static void test_calibration_from_scale_bar(void **state)
{
	(void)state;
	assert_true(fabs(fs_calibration_from_scale_bar(0, 0, 30, 40, 100) - 2.0) < EPS);
	assert_true(fs_calibration_from_scale_bar(5, 5, 5, 5, 100) == 0);
	assert_true(fs_calibration_from_scale_bar(0, 0, 30, 40, -1) == 0);
	assert_true(fs_calibration_from_scale_bar(0, 0, NAN, 40, 10) == 0);
}

static void test_calibration_from_magnification(void **state)
{
	(void)state;
	assert_true(fabs(fs_calibration_from_magnification(700, 95.703125) -
			 FS_CALIBRATION_ESTIMATE_700X) < 1e-12);
	assert_true(fabs(fs_pixel_um_from_dpi(600) - 25400.0 / 600) < EPS);
	assert_true(fs_calibration_from_magnification(0, 10) == 0);
	assert_true(fs_calibration_from_magnification(700, -1) == 0);
	assert_true(fs_pixel_um_from_dpi(0) == 0);
}

static void test_calibration_direct_and_derived_um(void **state)
{
	(void)state;
	fs_tubercle t = {0};
	t.radius_px = 5;
	assert_true(fs_calibration_direct(0.33) == 0.33);
	assert_true(fs_calibration_direct(0) == 0);
	assert_true(fs_calibration_direct(INFINITY) == 0);
	/* issue 14 item 9: a value every extraction would fail with */
	assert_true(fs_calibration_direct(1e-320) == 0);
	assert_true(fs_calibration_direct(0.5e-4) == 0);
	assert_true(fs_calibration_direct(101) == 0);
	assert_true(fs_calibration_direct(1e-4) == 1e-4);
	assert_true(fs_calibration_direct(100) == 100);
	assert_true(fabs(fs_px_to_um(30.3, 0.33) - 9.999) < EPS);
	assert_true(fabs(fs_tubercle_diameter_um(&t, 0.33) - 3.3) < EPS);
}

/* A tubercle without a measured base (radius NaN) counts as a tubercle and
 * a node, but not in the diameters, and its edges have no space. */
static void test_unmeasured_tubercles_are_counted_not_averaged(void **state)
{
	(void)state;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_stats s;
	add(&t, 1, 0, 0, 1, 0);
	add(&t, 2, 10, 0, 2, 0);
	add(&t, 3, 20, 0, NAN, 0);
	edge(&e, 1, 2);
	edge(&e, 2, 3);
	assert_false(fs_tubercle_measured(&t.items[2]));
	assert_true(fs_tubercle_measured(&t.items[0]));
	assert_int_equal(fs_stats_compute(&t, &e, 0.5, NULL, 0, 0, &s), 0);
	assert_int_equal(s.n_tubercles, 3);
	assert_int_equal(s.n_unmeasured, 1);
	assert_float_equal(s.mean_diameter_um, (2 + 4) / 2.0 * 0.5, EPS);
	assert_float_equal(s.min_diameter_um, 1.0, EPS);
	assert_float_equal(s.max_diameter_um, 2.0, EPS);
	/* one space (10 - 1 - 2 = 7 px), both centre distances */
	assert_float_equal(s.mean_space_um, 7 * 0.5, EPS);
	assert_float_equal(s.std_space_um, 0, EPS);
	assert_float_equal(s.mean_center_distance_um, 10 * 0.5, EPS);
	assert_true(isfinite(s.size_pitch_ratio));
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
}

/* Tubercles found but none measured (the dome rule's no-base verdict):
 * the diameter and space figures are NaN - no value - not a measured 0,
 * and an empty list keeps its zeros. */
static void test_all_unmeasured_give_no_diameter_not_zero(void **state)
{
	(void)state;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_stats s;
	add(&t, 1, 0, 0, NAN, 0);
	add(&t, 2, 10, 0, NAN, 0);
	add(&t, 3, 5, 8, NAN, 0);
	edge(&e, 1, 2);
	edge(&e, 2, 3);
	assert_int_equal(fs_stats_compute(&t, &e, 0.5, NULL, 0, 0, &s), 0);
	assert_int_equal(s.n_unmeasured, 3);
	assert_true(isnan(s.mean_diameter_um) && isnan(s.std_diameter_um));
	assert_true(isnan(s.min_diameter_um) && isnan(s.max_diameter_um));
	assert_true(isnan(s.mean_space_um) && isnan(s.min_space_um));
	assert_true(isnan(s.size_pitch_ratio));
	assert_float_equal(s.mean_center_distance_um, (10 + sqrt(25 + 64)) / 2 * 0.5, EPS);
	assert_string_equal(s.suggested_genus, "Unknown");
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);

	fs_tubercle_list t0 = {0};
	fs_edge_list e0 = {0};
	assert_int_equal(fs_stats_compute(&t0, &e0, 0.5, NULL, 0, 0, &s), 0);
	assert_float_equal(s.mean_diameter_um, 0, EPS);
	assert_float_equal(s.mean_space_um, 0, EPS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hexagonalness_of_square_with_centre),
		cmocka_unit_test(test_custom_weights_change_score),
		cmocka_unit_test(test_diameter_statistics_use_sample_sd_and_calibration),
		cmocka_unit_test(test_single_value_has_zero_sd),
		cmocka_unit_test(test_negative_edge_distance_counts_as_zero_space),
		cmocka_unit_test(test_edge_lengths_unknown_id_fails),
		cmocka_unit_test(test_fewer_than_four_tubercles_have_no_hexagonalness),
		cmocka_unit_test(test_degree_histogram_last_bin_collects_high_degrees),
		cmocka_unit_test(test_hexagonal_patch_scores_near_one),
		cmocka_unit_test(test_genus_of_published_values),
		cmocka_unit_test(test_genus_medium_low_and_unknown),
		cmocka_unit_test(test_stats_without_edges_give_no_genus),
		cmocka_unit_test(test_convex_hull_area_ignores_interior_and_collinear),
		cmocka_unit_test(test_coverage_is_hull_fraction_times_pixel_density),
		cmocka_unit_test(test_coverage_below_three_points_is_zero),
		cmocka_unit_test(test_calibration_from_scale_bar),
		cmocka_unit_test(test_calibration_from_magnification),
		cmocka_unit_test(test_calibration_direct_and_derived_um),
		cmocka_unit_test(test_unmeasured_tubercles_are_counted_not_averaged),
		cmocka_unit_test(test_all_unmeasured_give_no_diameter_not_zero),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
