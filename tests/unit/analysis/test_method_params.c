/*
 * test_method_params.c - parameters that do something: on a published
 * figure, changing each parameter auto declares (params.c's table, for the
 * selected measurement rule) changes its result, and changing one it does
 * not declare changes nothing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/graph.h"
#include "image/image_io.h"

#define FIG "tests/fixtures/paper/P1_Fig2_Polypterus_bichir_2.63um.tif"

static fs_loaded L;

static int setup(void **state)
{
	char err[256];
	(void)state;
	return fs_load_file(FIG, NULL, &L, err, sizeof err);
}

static int teardown(void **state)
{
	(void)state;
	fs_loaded_free(&L);
	return 0;
}

/* A fingerprint of the result: tubercles (position and size) and edges. */
typedef struct result {
	size_t n, ne;
	double sum;
} result;

static result run(const fs_params *p)
{
	char err[256];
	fs_detect_result r;
	assert_int_equal(fs_detect(L.image, p, 0.118, &r, err, sizeof err), 0);
	fs_edge_list e = {0};
	assert_int_equal(fs_graph_build(&r.tubercles, p->neighbor_graph, p->cull_long_edges, p->cull_factor, &e, err,
					sizeof err),
			 0);
	result o = {r.tubercles.n, e.n, 0};
	for (size_t i = 0; i < r.tubercles.n; i++) {
		const fs_tubercle *t = &r.tubercles.items[i];
		o.sum += t->centroid_x * 1e-3 + t->centroid_y * 1e-6 + (fs_tubercle_measured(t) ? t->radius_px : 0);
	}
	fs_edge_list_free(&e);
	fs_detect_result_free(&r);
	return o;
}

static int same(result a, result b)
{
	return a.n == b.n && a.ne == b.ne && a.sum == b.sum;
}

/* A value well inside the range and away from the default: towards the
 * farther end of the range (side 0) or the nearer one (side 1; the farther
 * again when the default is an end). */
static double other_value(const fs_param_range *r, int side)
{
	int to_min = r->default_value - r->min > r->max - r->default_value;
	if (side && r->default_value > r->min && r->default_value < r->max)
		to_min = !to_min;
	double v = r->default_value == r->min ? r->min + (side ? 0.6 : 0.3) * (r->max - r->min)
		   : r->default_value + 0.6 * ((to_min ? r->min : r->max) - r->default_value);
	return r->is_integer ? floor(v + 0.5) : v;
}

static void auto_knobs_do_something_and_the_rest_nothing(void **state)
{
	(void)state;
	fs_params base;
	fs_params_default(&base);
	assert_int_equal(base.method, FS_METHOD_AUTO);
	result r0 = run(&base);
	print_message("auto on %s: %zu tubercles, %zu connections\n", FIG, r0.n, r0.ne);
	assert_true(r0.n > 30);
	size_t n;
	const fs_param_range *pr = fs_param_ranges(&n);
	int declared = 0, undeclared = 0;
	/* two values a side of the default: a declared parameter must change
	 * the result with at least one (whether a graph's cull_factor acts
	 * depends on the lengths of the edges the rule's centres give: under the
	 * dome rule none of P1 Fig2's lies between 1.8 and 3.7 x the median, many
	 * above 1.3 x), one not declared with neither. The declaration is the
	 * selected rule's (params.h; FS_TEST_MEASUREMENT_RULE). */
	for (size_t i = 0; i < n; i++) {
		int used = fs_param_used_by(FS_METHOD_AUTO, pr[i].name, NULL), changed = 0;
		for (int side = 0; side < 2; side++) {
			fs_params p = base;
			char val[32], err[128];
			snprintf(val, sizeof val, "%.6g", other_value(&pr[i], side));
			if (!strcmp(pr[i].name, "max_diameter_um"))
				snprintf(val, sizeof val, side ? "5" : "30");
			if (!strcmp(pr[i].name, "min_diameter_um"))
				snprintf(val, sizeof val, side ? "4" : "1");
			assert_int_equal(fs_params_set(&p, pr[i].name, val, err, sizeof err), 0);
			result r = run(&p);
			print_message("  %-16s %-8s -> %s: %zu tubercles, %zu connections %s\n", pr[i].name, val,
				      used ? "declared" : "not declared", r.n, r.ne, same(r, r0) ? "(same)" : "(changed)");
			changed += !same(r, r0);
		}
		if (used) {
			declared++;
			assert_true(changed > 0);
		} else {
			undeclared++;
			assert_int_equal(changed, 0);
		}
	}
	assert_true(declared >= 6 && undeclared >= 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(auto_knobs_do_something_and_the_rest_nothing),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
