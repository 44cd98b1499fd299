/* Unit tests for the parameter table, validation, setting and profiles. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/measurement.h"
#include "analysis/params.h"

static char err[256];

static const fs_param_range *find_range(const char *name)
{
	size_t n;
	const fs_param_range *r = fs_param_ranges(&n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(r[i].name, name))
			return &r[i];
	return NULL;
}

static void defaults_are_valid_and_auto(void **state)
{
	(void)state;
	fs_params p;
	fs_params_default(&p);
	assert_int_equal(fs_params_validate(&p, err, sizeof err), 0);
	assert_int_equal(p.method, FS_METHOD_AUTO);
	assert_true(p.clahe_clip == 0.03 && p.clahe_kernel == 8 && p.blur_sigma == 1.0);
	assert_true(p.threshold == 0.05 && p.min_circularity == 0.5 && p.edge_margin_px == 10);
}

static void ranges_use_optimiser_bounds(void **state)
{
	(void)state;
	struct {
		const char *n;
		double lo, hi;
		int integer;
	} want[] = {{"threshold", 0.01, 0.50, 0},     {"min_diameter_um", 0.5, 20, 0},
		    {"max_diameter_um", 1, 50, 0},    {"min_circularity", 0, 1, 0},
		    {"clahe_kernel", 4, 32, 1},       {"blur_sigma", 0, 5, 0},
		    {"cull_factor", 1.0, 5.0, 0},     {"edge_margin_px", 0, 200, 1},
		    {"tophat_radius", 0, 100, 1},     {"clahe_clip", 0, 0.20, 0},
		    {"auto_prominence", 0.05, 0.9, 0}, {"auto_smoothing", 0.05, 0.4, 0}};
	size_t n;
	fs_param_ranges(&n);
	assert_int_equal(n, 12);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		const fs_param_range *r = find_range(want[i].n);
		assert_non_null(r);
		assert_true(r->min == want[i].lo && r->max == want[i].hi);
		assert_int_equal(r->is_integer, want[i].integer);
		assert_non_null(r->help);
	}
}

/* The method table: every parameter is known, auto does not use the
 * threshold, the diameter range or the CLAHE kernel (with a reason) and
 * uses its own knobs, which the other detectors do not. */
static void every_method_declares_its_parameters(void **state)
{
	(void)state;
	size_t n;
	const fs_param_range *r = fs_param_ranges(&n);
	for (size_t i = 0; i < n; i++)
		for (int m = FS_METHOD_AUTO; m <= FS_METHOD_LATTICE; m++) {
			const char *why = NULL;
			int u = fs_param_used_by((fs_method)m, r[i].name, &why);
			assert_true(u == 0 || u == 1);
			if (u == 0)
				assert_true(why && *why);
		}
	const char *why;
	assert_int_equal(fs_param_used_by(FS_METHOD_AUTO, "threshold", &why), 0);
	assert_non_null(strstr(why, "prominence"));
	assert_int_equal(fs_param_used_by(FS_METHOD_AUTO, "min_diameter_um", NULL), 0);
	assert_int_equal(fs_param_used_by(FS_METHOD_AUTO, "clahe_kernel", NULL), 0);
	assert_int_equal(fs_param_used_by(FS_METHOD_AUTO, "auto_prominence", NULL), 1);
	/* the outline rule smooths auto's and lattice's response by
	 * auto_smoothing, the dome rule votes on edges instead (params.h) */
	fs_measurement_rule rule = fs_measurement_get_rule();
	fs_measurement_set_rule(FS_RULE_OUTLINE);
	assert_int_equal(fs_param_used_by(FS_METHOD_AUTO, "auto_smoothing", NULL), 1);
	assert_int_equal(fs_param_used_by(FS_METHOD_LATTICE, "auto_smoothing", NULL), 1);
	fs_measurement_set_rule(FS_RULE_DOME);
	assert_int_equal(fs_param_used_by(FS_METHOD_AUTO, "auto_smoothing", &why), 0);
	assert_non_null(strstr(why, "dome rule"));
	assert_int_equal(fs_param_used_by(FS_METHOD_LATTICE, "auto_smoothing", NULL), 0);
	assert_int_equal(fs_param_used_by(FS_METHOD_AUTO, "auto_prominence", NULL), 1);
	assert_int_equal(fs_param_used_by(FS_METHOD_LOG, "auto_smoothing", &why), 0);
	assert_non_null(strstr(why, "only auto and lattice"));
	fs_measurement_set_rule(rule);
	assert_int_equal(fs_param_used_by(FS_METHOD_LATTICE, "auto_prominence", NULL), 1);
	assert_int_equal(fs_param_used_by(FS_METHOD_LOG, "auto_prominence", NULL), 0);
	assert_int_equal(fs_param_used_by(FS_METHOD_LOG, "threshold", NULL), 1);
	assert_int_equal(fs_param_used_by(FS_METHOD_ELLIPSE, "threshold", NULL), 0);
	assert_int_equal(fs_param_used_by(FS_METHOD_DOG, "neighbor_graph", NULL), 1);
	assert_int_equal(fs_param_used_by(FS_METHOD_AUTO, "nonsense", NULL), -1);
}

static void zero_means_off_and_is_valid(void **state)
{
	(void)state;
	fs_params p;
	fs_params_default(&p);
	p.blur_sigma = 0;
	p.tophat_radius = 0;
	p.clahe_clip = 0;
	p.min_circularity = 0;
	p.edge_margin_px = 0;
	assert_int_equal(fs_params_validate(&p, err, sizeof err), 0);
	assert_true(p.clahe_clip == 0); /* not replaced by a default */
}

static void clahe_clip_between_zero_and_min_is_rejected(void **state)
{
	(void)state;
	fs_params p;
	fs_params_default(&p);
	p.clahe_clip = 0.005;
	assert_int_equal(fs_params_validate(&p, err, sizeof err), -1);
	assert_non_null(strstr(err, "clahe_clip"));
}

static void every_bound_is_enforced_by_set(void **state)
{
	(void)state;
	size_t n;
	const fs_param_range *r = fs_param_ranges(&n);
	for (size_t i = 0; i < n; i++) {
		fs_params p;
		char v[64];
		fs_params_default(&p);
		snprintf(v, sizeof v, "%.17g", r[i].max);
		assert_int_equal(fs_params_set(&p, r[i].name, v, err, sizeof err), 0);
		snprintf(v, sizeof v, "%.17g", r[i].max + (r[i].is_integer ? 1 : 0.001));
		assert_int_equal(fs_params_set(&p, r[i].name, v, err, sizeof err), -1);
		assert_non_null(strstr(err, r[i].name));
		snprintf(v, sizeof v, "%.17g", r[i].min - (r[i].is_integer ? 1 : 0.001));
		assert_int_equal(fs_params_set(&p, r[i].name, v, err, sizeof err), -1);
	}
}

static void validate_names_the_bad_field(void **state)
{
	(void)state;
	fs_params p;
	fs_params_default(&p);
	p.blur_sigma = 7;
	assert_int_equal(fs_params_validate(&p, err, sizeof err), -1);
	assert_non_null(strstr(err, "blur_sigma"));
	fs_params_default(&p);
	p.threshold = NAN;
	assert_int_equal(fs_params_validate(&p, err, sizeof err), -1);
	assert_non_null(strstr(err, "threshold"));
}

static void min_diameter_above_max_is_rejected(void **state)
{
	(void)state;
	fs_params p;
	fs_params_default(&p);
	p.min_diameter_um = 12;
	p.max_diameter_um = 8;
	assert_int_equal(fs_params_validate(&p, err, sizeof err), -1);
}

static void set_parses_method_graph_and_bool(void **state)
{
	(void)state;
	fs_params p;
	fs_params_default(&p);
	assert_int_equal(fs_params_set(&p, "method", "lattice", err, sizeof err), 0);
	assert_int_equal(p.method, FS_METHOD_LATTICE);
	assert_int_equal(fs_params_set(&p, "neighbor_graph", "rng", err, sizeof err), 0);
	assert_int_equal(p.neighbor_graph, FS_GRAPH_RNG);
	assert_int_equal(fs_params_set(&p, "cull_long_edges", "false", err, sizeof err), 0);
	assert_int_equal(p.cull_long_edges, 0);
	assert_int_equal(fs_params_set(&p, "clahe_kernel", "16", err, sizeof err), 0);
	assert_int_equal(p.clahe_kernel, 16);
	assert_int_equal(fs_params_set(&p, "method", "hough", err, sizeof err), -1);
	assert_int_equal(fs_params_set(&p, "cull_long_edges", "maybe", err, sizeof err), -1);
}

static void set_rejects_bad_text(void **state)
{
	(void)state;
	fs_params p;
	fs_params_default(&p);
	assert_int_equal(fs_params_set(&p, "no_such", "1", err, sizeof err), -1);
	assert_non_null(strstr(err, "unknown"));
	assert_int_equal(fs_params_set(&p, "threshold", "0.1x", err, sizeof err), -1);
	assert_int_equal(fs_params_set(&p, "threshold", "", err, sizeof err), -1);
	assert_int_equal(fs_params_set(&p, "threshold", "nan", err, sizeof err), -1);
	assert_int_equal(fs_params_set(&p, "clahe_kernel", "8.5", err, sizeof err), -1);
	assert_true(p.threshold == 0.05 && p.clahe_kernel == 8); /* unchanged */
}

static void names_round_trip(void **state)
{
	(void)state;
	for (int m = 0; m <= FS_METHOD_LATTICE; m++) {
		fs_method out;
		assert_int_equal(fs_method_parse(fs_method_name((fs_method)m), &out), 0);
		assert_int_equal(out, m);
	}
	for (int g = 0; g <= FS_GRAPH_RNG; g++) {
		fs_graph out;
		assert_int_equal(fs_graph_parse(fs_graph_name((fs_graph)g), &out), 0);
		assert_int_equal(out, g);
	}
	fs_method m;
	assert_int_equal(fs_method_parse(NULL, &m), -1);
}

static void profiles_are_valid_and_have_original_values(void **state)
{
	(void)state;
	size_t n;
	const fs_profile *pr = fs_profiles(&n);
	assert_int_equal(n, 8);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(fs_params_validate(&pr[i].params, err, sizeof err), 0);
	const fs_profile *d = fs_profile_find("default");
	assert_non_null(d);
	assert_int_equal(d->params.method, FS_METHOD_AUTO);
	const fs_profile *pa = fs_profile_find("paralepidosteus");
	assert_non_null(pa);
	assert_true(pa->calibration_um_per_px == 0.33 && pa->params.threshold == 0.15);
	assert_true(pa->params.min_diameter_um == 5 && pa->params.max_diameter_um == 15);
	assert_true(pa->params.min_circularity == 0.35 && pa->params.edge_margin_px == 8);
	const fs_profile *lc = fs_profile_find("low-contrast");
	assert_true(lc->params.tophat_radius == 12 && lc->params.clahe_clip == 0.08 &&
		    lc->params.clahe_kernel == 16 && lc->params.blur_sigma == 1.5);
	const fs_profile *po = fs_profile_find("polypterus");
	assert_true(po->params.blur_sigma == 0.8 && po->params.min_diameter_um == 1.5);
	const fs_profile *sp = fs_profile_find("scanned-pdf");
	assert_true(sp->params.min_circularity == 0 && sp->params.clahe_kernel == 12);
	assert_null(fs_profile_find("nope"));
	assert_null(fs_profile_find(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_are_valid_and_auto),
		cmocka_unit_test(ranges_use_optimiser_bounds),
		cmocka_unit_test(every_method_declares_its_parameters),
		cmocka_unit_test(zero_means_off_and_is_valid),
		cmocka_unit_test(clahe_clip_between_zero_and_min_is_rejected),
		cmocka_unit_test(every_bound_is_enforced_by_set),
		cmocka_unit_test(validate_names_the_bad_field),
		cmocka_unit_test(min_diameter_above_max_is_rejected),
		cmocka_unit_test(set_parses_method_graph_and_bool),
		cmocka_unit_test(set_rejects_bad_text),
		cmocka_unit_test(names_round_trip),
		cmocka_unit_test(profiles_are_valid_and_have_original_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
