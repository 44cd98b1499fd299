/*
 * test_measure_centres.c - Re-measure's entry (analysis/measurement.h):
 * given centres get detection's diameters, keep their place and id, and a
 * centre without a tubercle under it is left unmeasured.
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
#include "synth.h"

static double mean_measured_radius(const fs_tubercle_list *t, double x0)
{
	double s = 0;
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (fs_tubercle_measured(&t->items[i]) && t->items[i].centroid_x > x0) {
			s += t->items[i].radius_px;
			n++;
		}
	return n ? s / n : 0;
}

static void centres_get_detections_diameters(void **state)
{
	(void)state;
	synth_opts o;
	synth_defaults(&o);
	o.pitch = 24;
	o.diam_ratio = 0.5;
	o.dark_left = 80;
	synth_truth tr;
	fs_image *img = synth_make(&o, &tr);
	assert_non_null(img);
	fs_params p;
	fs_params_default(&p);
	char err[256];
	/* the true centres with a wrong size, and one in the dark band */
	fs_tubercle_list t = {0};
	for (size_t i = 0; i < tr.n; i++) {
		fs_tubercle x;
		fs_tubercle_init(&x);
		x.id = (int)i + 7;
		x.centroid_x = tr.x[i];
		x.centroid_y = tr.y[i];
		x.radius_px = 1;
		x.source = FS_SOURCE_MANUAL;
		assert_int_equal(fs_tubercle_list_append(&t, &x), 0);
	}
	fs_tubercle dark;
	fs_tubercle_init(&dark);
	dark.id = 1;
	dark.centroid_x = 30;
	dark.centroid_y = 200;
	dark.radius_px = 5;
	assert_int_equal(fs_tubercle_list_append(&t, &dark), 0);
	assert_int_equal(fs_measure_centres(img, &p, 0, &t, err, sizeof err), 0);
	for (size_t i = 0; i < tr.n; i++) {
		assert_int_equal(t.items[i].id, (int)i + 7);
		assert_true(t.items[i].centroid_x == tr.x[i] && t.items[i].centroid_y == tr.y[i]);
		assert_int_equal(t.items[i].source, FS_SOURCE_MANUAL);
	}
	assert_false(fs_tubercle_measured(&t.items[tr.n]));
	double r = mean_measured_radius(&t, 100);
	/* what detection itself measures on the same image */
	fs_detect_result dr;
	assert_int_equal(fs_detect(img, &p, 0, &dr, err, sizeof err), 0);
	double rd = mean_measured_radius(&dr.tubercles, 100);
	print_message("re-measured mean radius %.3f px, detection %.3f px, truth %.3f px\n", r, rd, tr.radius);
	assert_true(fabs(r - rd) < 0.03 * rd);
	assert_true(fabs(r - tr.radius) < 0.15 * tr.radius);
	fs_detect_result_free(&dr);
	fs_tubercle_list_free(&t);
	synth_truth_free(&tr);
	fs_image_free(img);
}

static void no_image_is_an_error(void **state)
{
	(void)state;
	fs_params p;
	fs_params_default(&p);
	fs_tubercle_list t = {0};
	char err[128];
	assert_int_equal(fs_measure_centres(NULL, &p, 0, &t, err, sizeof err), -1);
	assert_non_null(strstr(err, "no image"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(centres_get_detections_diameters),
		cmocka_unit_test(no_image_is_an_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
