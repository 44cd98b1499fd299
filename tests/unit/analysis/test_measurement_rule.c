/*
 * test_measurement_rule.c - the measurement rule selected in one place
 * (analysis/measurement.h): its names and versions, detection and
 * Re-measure following the selected rule, and the dome rule's Re-measure
 * reading the base of SEM domes whose true diameter is known, where the
 * outline rule reads the bright part (too small).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/measurement.h"
#include "sem_scene.h"

/* Every test leaves the process at the build's rule. */
static int reset_rule(void **state)
{
	(void)state;
	fs_measurement_set_rule(FS_MEASUREMENT_RULE_DEFAULT);
	return 0;
}

static void names_and_versions(void **state)
{
	(void)state;
	fs_measurement_rule r = 0;
	assert_int_equal(fs_measurement_rule_parse("outline", &r), 0);
	assert_int_equal(r, FS_RULE_OUTLINE);
	assert_int_equal(fs_measurement_rule_parse("dome", &r), 0);
	assert_int_equal(r, FS_RULE_DOME);
	assert_int_equal(fs_measurement_rule_parse("", &r), 0);
	assert_int_equal(r, FS_MEASUREMENT_RULE_DEFAULT);
	assert_int_equal(fs_measurement_rule_parse("Dome", &r), -1);
	assert_int_equal(fs_measurement_rule_parse("blob", &r), -1);
	/* a rule's version is its value: 1 outline, 2 dome */
	assert_int_equal(FS_RULE_OUTLINE, 1);
	assert_int_equal(FS_RULE_DOME, 2);
	assert_string_equal(fs_measurement_rule_name(FS_RULE_OUTLINE), "outline");
	assert_string_equal(fs_measurement_rule_name(FS_RULE_DOME), "dome");
	assert_null(fs_measurement_rule_name((fs_measurement_rule)0));
	assert_int_equal(fs_measurement_rule_of_version(1), FS_RULE_OUTLINE);
	assert_int_equal(fs_measurement_rule_of_version(2), FS_RULE_DOME);
	assert_int_equal(fs_measurement_rule_of_version(0), 0);
	assert_int_equal(fs_measurement_rule_of_version(3), 0);
	char buf[64];
	assert_string_equal(fs_measurement_version_text(1, buf, sizeof buf), "the outline rule (version 1)");
	assert_string_equal(fs_measurement_version_text(2, buf, sizeof buf), "the dome rule (version 2)");
	assert_string_equal(fs_measurement_version_text(0, buf, sizeof buf), "before versioning (version 0)");
	assert_string_equal(fs_measurement_version_text(7, buf, sizeof buf), "an unknown rule (version 7)");
}

static void the_selected_rule_gives_the_version(void **state)
{
	(void)state;
	/* the build's default until the configuration chooses */
	assert_int_equal(fs_measurement_get_rule(), FS_MEASUREMENT_RULE_DEFAULT);
	assert_int_equal(FS_MEASUREMENT_VERSION, (int)FS_MEASUREMENT_RULE_DEFAULT);
	fs_measurement_set_rule(FS_RULE_DOME);
	assert_int_equal(fs_measurement_get_rule(), FS_RULE_DOME);
	assert_int_equal(FS_MEASUREMENT_VERSION, 2);
	fs_measurement_set_rule(FS_RULE_OUTLINE);
	assert_int_equal(FS_MEASUREMENT_VERSION, 1);
	/* a value that is no rule changes nothing */
	fs_measurement_set_rule((fs_measurement_rule)9);
	assert_int_equal(FS_MEASUREMENT_VERSION, 1);
}

/* Mean diameter (px) of the measured tubercles of t matched to true domes
 * counted inside the scene, and the mean true diameter of those domes. */
static void matched_means(const sem_truth *tr, const fs_tubercle_list *t, double *d, double *truth, size_t *n)
{
	double s, st;
	assert_int_equal(sem_matched_diameters(tr, t, &s, &st, n), 0);
	*d = *n ? s / *n : 0;
	*truth = *n ? st / *n : 0;
}

/* Low domes lit from the side (sem_low_domes), 384 x 320. */
static void scene(sem_scene *s)
{
	sem_opts o;
	sem_low_domes(&o);
	o.width = 384;
	o.height = 320;
	assert_int_equal(sem_scene_open(s, &o), 0);
}

static int same_detection(const fs_detect_result *a, const fs_detect_result *b)
{
	if (a->tubercles.n != b->tubercles.n)
		return 0;
	for (size_t i = 0; i < a->tubercles.n; i++) {
		const fs_tubercle *x = &a->tubercles.items[i], *y = &b->tubercles.items[i];
		if (x->centroid_x != y->centroid_x || x->centroid_y != y->centroid_y ||
		    !(x->radius_px == y->radius_px || (isnan(x->radius_px) && isnan(y->radius_px))))
			return 0;
	}
	return 1;
}

static void detection_follows_the_selected_rule(void **state)
{
	(void)state;
	sem_scene sc;
	scene(&sc);
	const fs_image *img = sc.img;
	const fs_params *p = &sc.p;
	fs_detect_result out_rule, dome_rule, sel;
	assert_int_equal(fs_detect_rule_in_region(img, p, 0, FS_RULE_OUTLINE, NULL, &out_rule, sc.err, sizeof sc.err),
			 0);
	assert_int_equal(fs_detect_rule_in_region(img, p, 0, FS_RULE_DOME, NULL, &dome_rule, sc.err, sizeof sc.err), 0);
	/* the rules differ: the dome rule reports a fit quality per tubercle */
	assert_false(same_detection(&out_rule, &dome_rule));
	assert_true(isfinite(dome_rule.tubercles.items[0].fit_quality));
	assert_false(isfinite(out_rule.tubercles.items[0].fit_quality));
	fs_measurement_set_rule(FS_RULE_DOME);
	assert_int_equal(fs_detect(img, p, 0, &sel, sc.err, sizeof sc.err), 0);
	assert_true(same_detection(&sel, &dome_rule));
	fs_detect_result_free(&sel);
	fs_measurement_set_rule(FS_RULE_OUTLINE);
	assert_int_equal(fs_detect(img, p, 0, &sel, sc.err, sizeof sc.err), 0);
	assert_true(same_detection(&sel, &out_rule));
	fs_detect_result_free(&sel);
	/* both find the lattice (their accuracy is test_sem_accuracy's: here
	 * the figures are only printed) */
	double d_out, d_dome, t_out, t_dome;
	size_t n_out, n_dome;
	matched_means(&sc.tr, &out_rule.tubercles, &d_out, &t_out, &n_out);
	matched_means(&sc.tr, &dome_rule.tubercles, &d_dome, &t_dome, &n_dome);
	print_message("detection: outline D %.2f px (truth %.2f, n %zu), dome D %.2f px (truth %.2f, n %zu)\n", d_out,
		      t_out, n_out, d_dome, t_dome, n_dome);
	assert_true(n_out > 40 && n_dome > 40);
	fs_detect_result_free(&out_rule);
	fs_detect_result_free(&dome_rule);
	sem_scene_close(&sc);
}

/* The true centres with a wrong size, ids from 7, sources manual. */
static void true_centres(const sem_truth *tr, fs_tubercle_list *t)
{
	for (size_t i = 0; i < tr->n; i++) {
		fs_tubercle x;
		fs_tubercle_init(&x);
		x.id = (int)i + 7;
		x.centroid_x = tr->x[i];
		x.centroid_y = tr->y[i];
		x.radius_px = 1;
		x.source = FS_SOURCE_MANUAL;
		assert_int_equal(fs_tubercle_list_append(t, &x), 0);
	}
}

static void remeasure_follows_the_selected_rule_and_keeps_centres(void **state)
{
	(void)state;
	sem_scene sc;
	scene(&sc);
	const sem_truth tr = sc.tr; /* a view: the scene frees it */
	fs_tubercle_list a = {0}, b = {0}, sel = {0};
	true_centres(&tr, &a);
	true_centres(&tr, &b);
	true_centres(&tr, &sel);
	assert_int_equal(fs_measure_centres_rule(sc.img, &sc.p, 0, FS_RULE_OUTLINE, &a, sc.err, sizeof sc.err), 0);
	assert_int_equal(fs_measure_centres_rule(sc.img, &sc.p, 0, FS_RULE_DOME, &b, sc.err, sizeof sc.err), 0);
	fs_measurement_set_rule(FS_RULE_DOME);
	assert_int_equal(fs_measure_centres(sc.img, &sc.p, 0, &sel, sc.err, sizeof sc.err), 0);
	for (size_t i = 0; i < tr.n; i++) {
		/* centres, ids and sources stay whatever the rule */
		assert_int_equal(b.items[i].id, (int)i + 7);
		assert_true(b.items[i].centroid_x == tr.x[i] && b.items[i].centroid_y == tr.y[i]);
		assert_int_equal(b.items[i].source, FS_SOURCE_MANUAL);
		assert_true(a.items[i].centroid_x == tr.x[i] && a.items[i].centroid_y == tr.y[i]);
		/* the selected rule is the dome rule's measurement exactly */
		assert_true(sel.items[i].radius_px == b.items[i].radius_px ||
			    (isnan(sel.items[i].radius_px) && isnan(b.items[i].radius_px)));
	}
	double d_out, d_dome, t_out, t_dome;
	size_t n_out, n_dome;
	matched_means(&tr, &a, &d_out, &t_out, &n_out);
	matched_means(&tr, &b, &d_dome, &t_dome, &n_dome);
	print_message("re-measure: outline D %.2f px (truth %.2f, n %zu), dome D %.2f px (truth %.2f, n %zu)\n",
		      d_out, t_out, n_out, d_dome, t_dome, n_dome);
	/* at the true centres the dome rule reads the base within 3 %, the
	 * outline rule the bright part, well inside it */
	assert_true(n_dome > 0.9 * n_out);
	assert_true(fabs(d_dome - t_dome) < 0.03 * t_dome);
	assert_true(d_out < 0.9 * t_out);
	assert_true(fabs(d_dome - t_dome) < fabs(d_out - t_out));
	fs_tubercle_list_free(&a);
	fs_tubercle_list_free(&b);
	fs_tubercle_list_free(&sel);
	sem_scene_close(&sc);
}

/* A centre on flat ground has no base: it stays, unmeasured, under the
 * dome rule as under the outline rule. */
static void a_centre_without_a_dome_stays_unmeasured(void **state)
{
	(void)state;
	sem_opts o;
	sem_defaults(&o);
	o.missing = 0;
	sem_scene sc;
	assert_int_equal(sem_scene_open(&sc, &o), 0);
	/* a flat image of the same size: nothing to measure anywhere */
	fs_image *flat = fs_image_new(sc.img->width, sc.img->height);
	assert_non_null(flat);
	for (size_t i = 0; i < (size_t)flat->width * flat->height; i++)
		flat->data[i] = 0.4f;
	fs_tubercle_list t = {0};
	true_centres(&sc.tr, &t);
	assert_int_equal(fs_measure_centres_rule(flat, &sc.p, 0, FS_RULE_DOME, &t, sc.err, sizeof sc.err), 0);
	for (size_t i = 0; i < t.n; i++) {
		assert_false(fs_tubercle_measured(&t.items[i]));
		assert_true(t.items[i].centroid_x == sc.tr.x[i] && t.items[i].id == (int)i + 7);
	}
	assert_int_equal(fs_measure_centres_rule(sc.img, &sc.p, 0, (fs_measurement_rule)5, &t, sc.err, sizeof sc.err),
			 -1);
	assert_non_null(strstr(sc.err, "rule"));
	fs_tubercle_list_free(&t);
	fs_image_free(flat);
	sem_scene_close(&sc);
}

/* The editor's auto-size follows the rule too: a tubercle added by hand to
 * a set measured with the dome rule gets the dome's base. */
static void auto_size_follows_the_selected_rule(void **state)
{
	(void)state;
	sem_scene sc;
	scene(&sc);
	const sem_truth tr = sc.tr; /* a view: the scene frees it */
	double um = 0.5; /* 2-10 um diameters: 4-20 px, the truth 16 px */
	double sum[2] = {0}, truth = 0;
	int n = 0, measured[2] = {0};
	for (size_t k = 0; k < tr.n && n < 30; k++) {
		if (!sem_counted(&tr, tr.x[k], tr.y[k]))
			continue;
		fs_point_result r[2];
		fs_measurement_set_rule(FS_RULE_OUTLINE);
		assert_int_equal(fs_analyze_point(sc.img, &sc.p, um, tr.x[k] + 1, tr.y[k] + 1, 3, &r[0], sc.err, sizeof sc.err),
				 0);
		fs_measurement_set_rule(FS_RULE_DOME);
		assert_int_equal(fs_analyze_point(sc.img, &sc.p, um, tr.x[k] + 1, tr.y[k] + 1, 3, &r[1], sc.err, sizeof sc.err),
				 0);
		if (!r[0].found || !r[1].found)
			continue;
		n++;
		truth += tr.d[k];
		for (int i = 0; i < 2; i++)
			if (fs_tubercle_measured(&r[i].tubercle)) {
				sum[i] += 2 * r[i].tubercle.radius_px - tr.d[k];
				measured[i]++;
			}
		/* the dome rule says how well the base fitted */
		assert_true(isfinite(r[1].tubercle.fit_quality));
		assert_int_equal(r[1].tubercle.source, FS_SOURCE_MANUAL);
	}
	truth /= n;
	double err_out = sum[0] / measured[0], err_dome = sum[1] / measured[1];
	print_message("auto-size at %d domes (truth D %.2f px): outline %+.2f px (%d measured), dome %+.2f px (%d)\n",
		      n, truth, err_out, measured[0], err_dome, measured[1]);
	assert_true(n >= 20 && measured[1] >= 0.8 * n);
	/* clicked 1.4 px off the dome's centre: the base reads about 11 %
	 * small there (at the centre itself within 2 %, above), the bright
	 * part 23 % */
	assert_true(fabs(err_dome) < 0.15 * truth);
	assert_true(fabs(err_dome) < fabs(err_out));
	sem_scene_close(&sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(names_and_versions, reset_rule),
		cmocka_unit_test_teardown(the_selected_rule_gives_the_version, reset_rule),
		cmocka_unit_test_teardown(detection_follows_the_selected_rule, reset_rule),
		cmocka_unit_test_teardown(remeasure_follows_the_selected_rule_and_keeps_centres, reset_rule),
		cmocka_unit_test_teardown(a_centre_without_a_dome_stays_unmeasured, reset_rule),
		cmocka_unit_test_teardown(auto_size_follows_the_selected_rule, reset_rule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
