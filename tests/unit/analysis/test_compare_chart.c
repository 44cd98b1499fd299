/*
 * test_compare_chart.c - the Compare chart model: groups and their means,
 * where each set and group mean lands (read back from the SVG through the
 * plot's own axis mapping), uncalibrated sets only on the ratio chart, the
 * reference regions in precedence order, the distribution rows, the
 * samples and the bins behind the API.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/compare_chart.h"

static fs_chart_set make_set(long long id, const char *name, const char *group, int cal, double d, double dsd,
			     double s, double ssd, double fill, double hex)
{
	fs_chart_set x;
	memset(&x, 0, sizeof x);
	x.id = id;
	x.name = name;
	x.group = group;
	x.calibrated = cal;
	x.n_tubercles = 50;
	x.n_edges = 120;
	x.d_mean = d, x.d_sd = dsd, x.s_mean = s, x.s_sd = ssd;
	x.fill_ratio = fill;
	x.hexagonalness = hex;
	x.genus = "Unknown";
	x.confidence = "none";
	return x;
}

static void test_groups_means_and_order(void **state)
{
	(void)state;
	fs_chart_set s[] = {
		make_set(1, "a", "B", 1, 4, 0.5, 3, 0.5, 0.57, 0.8),
		make_set(2, "b", "A", 1, 6, 0.5, 2, 0.5, 0.75, 0.6),
		make_set(3, "c", "B", 1, 5, 0.5, 5, 0.5, 0.5, 0.7),
		make_set(4, "d", "B", 0, 40, 5, 30, 4, 0.571, 0.9), /* px: not in the µm means */
		make_set(5, "e", "", 1, 3, 0.2, 6, 1, 0.33, 0.5),
	};
	fs_chart_group *g;
	size_t ng;
	assert_int_equal(fs_chart_groups(s, 5, &g, &ng), 0);
	assert_int_equal(ng, 2);
	assert_string_equal(g[0].label, "B"); /* first appearance */
	assert_string_equal(g[1].label, "A");
	assert_int_equal(g[0].style, 0);
	assert_int_equal(g[0].n_sets, 3);
	assert_int_equal(g[0].n_calibrated, 2);
	assert_true(fabs(g[0].d_mean - 4.5) < 1e-12);
	assert_true(fabs(g[0].s_mean - 4) < 1e-12);
	assert_true(fabs(g[0].d_sd - sqrt(0.5)) < 1e-12);
	assert_true(fabs(g[0].s_sd - sqrt(2)) < 1e-12);
	assert_true(fabs(g[0].fill_ratio - (0.57 + 0.5 + 0.571) / 3) < 1e-12);
	assert_true(fabs(g[0].hexagonalness - 0.8) < 1e-12);
	assert_int_equal(g[1].n_sets, 1);
	assert_true(g[1].d_sd == 0 && g[1].d_mean == 6);
	free(g);
	/* a group of uncalibrated sets only has no µm mean */
	fs_chart_set u[] = {make_set(1, "u", "U", 0, 10, 1, 10, 1, 0.5, 0.5)};
	assert_int_equal(fs_chart_groups(u, 1, &g, &ng), 0);
	assert_true(isnan(g[0].d_mean) && isnan(g[0].d_sd));
	free(g);
}

/* The value of attribute name inside the tag that starts at tag. */
static double attr(const char *tag, const char *name)
{
	char key[64];
	snprintf(key, sizeof key, " %s=\"", name);
	const char *end = strchr(tag, '>');
	const char *p = strstr(tag, key);
	assert_non_null(p);
	assert_true(p < end);
	return atof(p + strlen(key));
}

/* Finds the <g ...> opening tag with these two attributes (in this order). */
static const char *find_group(const char *svg, const char *cls, const char *key, const char *value)
{
	char needle[160];
	snprintf(needle, sizeof needle, "class=\"%s\"", cls);
	for (const char *p = strstr(svg, needle); p; p = strstr(p + 1, needle)) {
		const char *tag = p;
		while (tag > svg && *tag != '<')
			tag--;
		const char *end = strchr(p, '>');
		char kv[160];
		snprintf(kv, sizeof kv, " %s=\"%s\"", key, value);
		const char *q = strstr(tag, kv);
		if (q && q < end)
			return tag;
	}
	return NULL;
}

/* The centre of the first shape after a group's opening tag: circle centre,
 * or the middle of a rect's or polygon's bounding box. */
static void centre(const char *tag, double *x, double *y)
{
	const char *c = strstr(tag, "<circle"), *r = strstr(tag, "<rect"), *p = strstr(tag, "<polygon");
	const char *first = NULL;
	const char *cand[] = {c, r, p};
	for (int i = 0; i < 3; i++)
		if (cand[i] && (!first || cand[i] < first))
			first = cand[i];
	assert_non_null(first);
	if (first == c) {
		*x = attr(c, "cx");
		*y = attr(c, "cy");
	} else if (first == r) {
		*x = attr(r, "x") + attr(r, "width") / 2;
		*y = attr(r, "y") + attr(r, "height") / 2;
	} else {
		const char *q = strstr(p, "points=\"") + 8;
		double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
		while (*q != '"') {
			double a = strtod(q, (char **)&q);
			q++; /* , */
			double b = strtod(q, (char **)&q);
			x0 = fmin(x0, a), x1 = fmax(x1, a), y0 = fmin(y0, b), y1 = fmax(y1, b);
			while (*q == ' ')
				q++;
		}
		*x = (x0 + x1) / 2;
		*y = (y0 + y1) / 2;
	}
}

/* Maps data (vx, vy) through the plot's axis attributes. */
static void expect_at(const char *plot, const char *tag, double vx, double vy)
{
	double x, y;
	centre(tag, &x, &y);
	double ex = attr(plot, "data-left") + (vx - attr(plot, "data-x-min")) /
							(attr(plot, "data-x-max") - attr(plot, "data-x-min")) *
							(attr(plot, "data-right") - attr(plot, "data-left"));
	double ey = attr(plot, "data-bottom") - (vy - attr(plot, "data-y-min")) /
							 (attr(plot, "data-y-max") - attr(plot, "data-y-min")) *
							 (attr(plot, "data-bottom") - attr(plot, "data-top"));
	if (fabs(x - ex) > 0.02 || fabs(y - ey) > 0.02)
		fail_msg("shape at (%g, %g), expected (%g, %g)", x, y, ex, ey);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void test_points_land_where_the_axes_say(void **state)
{
	(void)state;
	fs_chart_set s[] = {
		make_set(11, "a", "Specimen 1", 1, 4.2, 0.5, 3.1, 0.4, 0.57, 0.8),
		make_set(12, "b", "Specimen 2", 1, 6.4, 0.7, 2.2, 0.3, 0.74, 0.6),
		make_set(13, "c", "Specimen 1", 1, 5.0, 0.6, 4.9, 0.5, 0.5, 0.7),
		make_set(14, "uncal", "Specimen 2", 0, 40, 5, 30, 4, 0.571, 0.9),
	};
	fs_chart_input in = {s, 4, NULL, NULL};
	char err[128];
	fs_drawing *d = fs_chart_draw(&in, FS_CHART_MAIN | FS_CHART_RATIO, err, sizeof err);
	assert_non_null(d);
	fs_buf b = FS_BUF_INIT;
	assert_int_equal(fs_drawing_svg(d, &b), 0);
	const char *svg = b.data;
	const char *main_plot = strstr(svg, "class=\"plot plot-main\"");
	const char *ratio_plot = strstr(svg, "class=\"plot plot-ratio\"");
	assert_non_null(main_plot);
	assert_non_null(ratio_plot);
	/* three calibrated points on the main chart, the uncalibrated one not */
	assert_int_equal(count(svg, "data-chart=\"main\" data-set-id="), 3);
	const char *u = find_group(svg, "set-point", "data-set-id", "14");
	assert_non_null(u);
	assert_true(u > ratio_plot); /* its first (and only) point is on the ratio chart */
	for (size_t i = 0; i < 3; i++) {
		char id[16];
		snprintf(id, sizeof id, "%lld", s[i].id);
		const char *tag = find_group(main_plot, "set-point", "data-set-id", id);
		assert_non_null(tag);
		assert_true(tag < ratio_plot);
		expect_at(main_plot, tag, s[i].s_mean, s[i].d_mean); /* x = space, y = diameter */
		const char *rt = find_group(ratio_plot, "set-point", "data-set-id", id);
		assert_non_null(rt);
		expect_at(ratio_plot, rt, s[i].fill_ratio, s[i].hexagonalness);
	}
	/* two group means; Specimen 2's µm mean is its one calibrated set */
	assert_int_equal(count(main_plot, "class=\"group-mean\" data-chart=\"main\"") -
				 count(ratio_plot, "class=\"group-mean\" data-chart=\"main\""),
			 2);
	const char *g1 = find_group(main_plot, "group-mean", "data-group", "Specimen 1");
	assert_non_null(g1);
	expect_at(main_plot, g1, (3.1 + 4.9) / 2, (4.2 + 5.0) / 2);
	const char *g2 = find_group(main_plot, "group-mean", "data-group", "Specimen 2");
	expect_at(main_plot, g2, 2.2, 6.4);
	const char *g2r = find_group(ratio_plot, "group-mean", "data-group", "Specimen 2");
	expect_at(ratio_plot, g2r, (0.74 + 0.571) / 2, (0.6 + 0.9) / 2);
	/* titles name the set (hover) */
	assert_non_null(strstr(svg, "<title>a (Specimen 1): D 4.20 ± 0.50 µm, S 3.10 ± 0.40 µm"));
	/* genus regions: drawn last-precedence first, so number 1 ends on top */
	const char *r1 = strstr(svg, "data-precedence=\"1\""), *r6 = strstr(svg, "data-precedence=\"6\"");
	assert_non_null(r1);
	assert_non_null(r6);
	assert_true(r6 < r1);
	assert_non_null(strstr(svg, "the classifier takes the first of: Lepisosteus, Atractosteus"));
	assert_int_equal(count(main_plot, "class=\"reference-species\"") - count(ratio_plot, "class=\"reference-species\""),
			 9);
	fs_buf_free(&b);
	fs_drawing_free(d);
}

static void test_distributions_and_parts(void **state)
{
	(void)state;
	double dv[] = {4, 4.5, 5, 5.5, 6, 50};
	double sv[] = {2, 3, 4};
	fs_chart_set s[] = {
		make_set(1, "with values", "G", 1, 5, 0.7, 3, 1, 0.6, 0.7),
		make_set(2, "no values", "G", 1, 5, 0.7, 3, 1, 0.6, 0.7),
		make_set(3, "pixels", NULL, 0, 20, 2, 10, 1, 0.66, 0.5),
	};
	s[0].d_values = dv, s[0].n_d = 6, s[0].s_values = sv, s[0].n_s = 3;
	s[2].d_values = dv, s[2].n_d = 5;
	fs_chart_input in = {s, 3, NULL, "My comparison"};
	char err[128];
	fs_drawing *d = fs_chart_draw(&in, FS_CHART_DIST, err, sizeof err);
	assert_non_null(d);
	fs_buf b = FS_BUF_INIT;
	assert_int_equal(fs_drawing_svg(d, &b), 0);
	assert_int_equal(count(b.data, "class=\"set-dist\""), 3);
	assert_non_null(strstr(b.data, ">My comparison</text>"));
	assert_non_null(strstr(b.data, "Uncalibrated sets (pixels)"));
	assert_non_null(strstr(b.data, "Tubercle diameter (px)"));
	assert_non_null(strstr(b.data, ">no values</text>"));
	assert_null(strstr(b.data, "plot-main"));
	fs_buf_free(&b);
	/* the height grows with the rows */
	double h3 = fs_drawing_height(d);
	fs_drawing_free(d);
	in.n = 1;
	d = fs_chart_draw(&in, FS_CHART_DIST, err, sizeof err);
	assert_true(fs_drawing_height(d) < h3 - 60);
	fs_drawing_free(d);
	assert_null(fs_chart_draw(&in, 0, err, sizeof err));
	/* everything, rasterised */
	in.n = 3;
	d = fs_chart_draw(&in, FS_CHART_ALL, err, sizeof err);
	fs_rgb rgb;
	assert_int_equal(fs_drawing_raster(d, 1, NULL, &rgb, NULL, err, sizeof err), 0);
	assert_int_equal(rgb.width, 820);
	assert_true(rgb.height > 1000);
	fs_rgb_free(&rgb);
	fs_drawing_free(d);
	/* no set at all still draws the reference chart */
	in.n = 0;
	d = fs_chart_draw(&in, FS_CHART_ALL, err, sizeof err);
	assert_non_null(d);
	assert_int_equal(fs_drawing_svg(d, &b), 0);
	assert_non_null(strstr(b.data, "No calibrated set"));
	assert_non_null(strstr(b.data, "class=\"genus-region\""));
	fs_buf_free(&b);
	fs_drawing_free(d);
}

static void test_samples_and_bins(void **state)
{
	(void)state;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_tubercle a = {0}, b = {0}, c = {0};
	a.id = 7, a.centroid_x = 0, a.centroid_y = 0, a.radius_px = 2;
	b.id = 3, b.centroid_x = 10, b.centroid_y = 0, b.radius_px = 3;
	c.id = 9, c.centroid_x = 4, c.centroid_y = 0, c.radius_px = 3; /* overlaps a */
	assert_int_equal(fs_tubercle_list_append(&t, &a), 0);
	assert_int_equal(fs_tubercle_list_append(&t, &b), 0);
	assert_int_equal(fs_tubercle_list_append(&t, &c), 0);
	fs_edge e1 = {3, 7}, e2 = {7, 9}, e3 = {7, 99};
	fs_edge_list_append(&e, &e1);
	fs_edge_list_append(&e, &e2);
	fs_edge_list_append(&e, &e3);
	double *d, *s;
	size_t nd, ns;
	assert_int_equal(fs_chart_samples(&t, &e, 0.5, &d, &nd, &s, &ns), 0);
	assert_int_equal(nd, 3);
	assert_true(d[0] == 2 && d[1] == 3 && d[2] == 3);
	assert_int_equal(ns, 2); /* the edge to an unknown tubercle is skipped */
	assert_true(fabs(s[0] - 2.5) < 1e-12); /* (10 - 2 - 3) x 0.5 */
	assert_true(s[1] == 0);                /* overlap counts as 0 */
	free(d);
	free(s);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);

	double v[5000];
	for (int i = 0; i < 5000; i++)
		v[i] = i % 100;
	v[17] = NAN;
	int counts[64];
	double lo, w;
	int nb = fs_chart_bin(v, 5000, 64, &lo, &w, counts);
	assert_int_equal(nb, 64);
	assert_true(lo == 0 && fabs(w - 99.0 / 64) < 1e-12);
	long sum = 0;
	for (int i = 0; i < nb; i++)
		sum += counts[i];
	assert_int_equal(sum, 4999);
	assert_int_equal(counts[63], 50 + 50); /* 98 and 99 */
	double same[3] = {2, 2, 2};
	assert_int_equal(fs_chart_bin(same, 3, 64, &lo, &w, counts), 1);
	assert_int_equal(counts[0], 3);
	assert_int_equal(fs_chart_bin(NULL, 0, 64, &lo, &w, counts), 0);
}

/* fs_chart_set_fill: the statistics' figures where the samples say there
 * is something measured, NaN where not; the classifier's only when
 * calibrated; the samples pointed at, not copied; id, name and group left. */
static void test_set_fill_from_statistics(void **state)
{
	(void)state;
	fs_stats st;
	memset(&st, 0, sizeof st);
	st.n_tubercles = 40, st.n_edges = 90;
	st.mean_diameter_um = 5, st.std_diameter_um = 0.5, st.mean_space_um = 2, st.std_space_um = 0.25;
	st.size_pitch_ratio = 5.0 / 7, st.hexagonalness_score = 0.8;
	st.suggested_genus = "Lepisosteus", st.classification_confidence = "high";
	const double d[2] = {4.5, 5.5}, sp[1] = {2};
	fs_chart_set s;
	memset(&s, 0, sizeof s);
	s.id = 12, s.name = "kept";
	fs_chart_set_fill(&s, &st, 1, d, 2, sp, 1);
	assert_true(s.id == 12 && !strcmp(s.name, "kept") && s.group == NULL);
	assert_true(s.calibrated == 1 && s.n_tubercles == 40 && s.n_edges == 90);
	assert_true(s.d_mean == 5 && s.d_sd == 0.5 && s.s_mean == 2 && s.s_sd == 0.25);
	assert_true(s.fill_ratio == 5.0 / 7 && s.hexagonalness == 0.8);
	assert_string_equal(s.genus, "Lepisosteus");
	assert_string_equal(s.confidence, "high");
	assert_true(s.d_values == d && s.n_d == 2 && s.s_values == sp && s.n_s == 1);
	/* no space measured: no space figures and no fill; uncalibrated: no genus */
	fs_chart_set_fill(&s, &st, 0, d, 2, NULL, 0);
	assert_true(s.calibrated == 0 && s.d_mean == 5);
	assert_true(isnan(s.s_mean) && isnan(s.s_sd) && isnan(s.fill_ratio));
	assert_string_equal(s.genus, "Unknown");
	assert_string_equal(s.confidence, "none");
	/* no diameter measured: no diameter figures and no fill */
	fs_chart_set_fill(&s, &st, 1, NULL, 0, sp, 1);
	assert_true(isnan(s.d_mean) && isnan(s.d_sd) && isnan(s.fill_ratio) && s.s_mean == 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups_means_and_order),
		cmocka_unit_test(test_points_land_where_the_axes_say),
		cmocka_unit_test(test_distributions_and_parts),
		cmocka_unit_test(test_samples_and_bins),
		cmocka_unit_test(test_set_fill_from_statistics),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
