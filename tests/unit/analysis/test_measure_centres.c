/*
 * test_measure_centres.c - Re-measure's entry (analysis/measurement.h):
 * given centres get detection's diameters, keep their place and id, and a
 * centre without a tubercle under it is left unmeasured; a compact image
 * measures as its float copy, and in bands of rows as whole.
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
#include "sanitized.h"
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

/* The picture of the compact and band tests: synth's 640 x 480 in the
 * plain build, which asserts the sizes; under the sanitizers (sanitized.h)
 * 320 x 224, the same code on every path (both rules, the top-hat, four
 * bands of 64 rows with centres on their edges, the last one short) at a
 * quarter of the pixels: a rule's measurement there costs several times
 * the plain build's. */
static void picture_size(synth_opts *o)
{
	if (fs_test_subset()) {
		o->width = 320;
		o->height = 224;
	}
}

/* The same 8-bit picture as a compact image and as its float copy. */
static fs_image *compact_of(const fs_image *f)
{
	fs_image *c = fs_image_new_compact(f->width, f->height, 8);
	assert_non_null(c);
	unsigned char *px = c->px;
	for (size_t k = 0; k < (size_t)f->width * f->height; k++) {
		double v = f->data[k] < 0 ? 0 : f->data[k] > 1 ? 1 : f->data[k];
		px[k] = (unsigned char)lround(v * 255);
	}
	return c;
}

/* A Re-measure job measures on the compact working image (main_job.c):
 * every size and fit quality as from its float copy, both rules, with and
 * without the top-hat. */
static void compact_image_measures_as_its_float_copy(void **state)
{
	(void)state;
	synth_opts o;
	synth_defaults(&o);
	o.pitch = 24;
	o.diam_ratio = 0.5;
	picture_size(&o);
	synth_truth tr;
	fs_image *src = synth_make(&o, &tr);
	assert_non_null(src);
	fs_image *comp = compact_of(src), *flt = fs_image_to_float(comp);
	assert_non_null(flt);
	char err[256];
	for (int rule = 0; rule < 2; rule++) {
		for (int tophat = 0; tophat < 2; tophat++) {
			fs_params p;
			fs_params_default(&p);
			p.tophat_radius = tophat ? 15 : 0;
			fs_tubercle_list a = {0}, b = {0};
			for (size_t i = 0; i < tr.n; i++) {
				fs_tubercle x;
				fs_tubercle_init(&x);
				x.id = (int)i + 1;
				x.centroid_x = tr.x[i];
				x.centroid_y = tr.y[i];
				assert_int_equal(fs_tubercle_list_append(&a, &x), 0);
				assert_int_equal(fs_tubercle_list_append(&b, &x), 0);
			}
			fs_measurement_rule r = rule ? FS_RULE_DOME : FS_RULE_OUTLINE;
			assert_int_equal(fs_measure_centres_rule(comp, &p, 0, r, &a, err, sizeof err), 0);
			assert_int_equal(fs_measure_centres_rule(flt, &p, 0, r, &b, err, sizeof err), 0);
			size_t measured = 0;
			for (size_t i = 0; i < tr.n; i++) {
				const fs_tubercle *x = &a.items[i], *y = &b.items[i];
				assert_true(fs_tubercle_measured(x) == fs_tubercle_measured(y));
				if (!fs_tubercle_measured(x))
					continue;
				measured++;
				assert_true(x->radius_px == y->radius_px);
				/* NaN where the rule gives none */
				assert_true(x->fit_quality == y->fit_quality ||
					    (isnan(x->fit_quality) && isnan(y->fit_quality)));
			}
			/* the picture holds tubercles: most centres measured */
			assert_true(measured > tr.n / 2);
			fs_tubercle_list_free(&a);
			fs_tubercle_list_free(&b);
		}
	}
	fs_image_free(flt);
	fs_image_free(comp);
	fs_image_free(src);
	synth_truth_free(&tr);
}

/* A large image's measurement image is made in bands of rows (a Re-measure
 * job of 100 MP): bands of 64 rows (the image's 480 rows in eight, centres
 * on every band's edge) give every centre the whole image's size and fit
 * quality but for the last bits of the rays' positions, both rules, with
 * and without the top-hat, from the compact image as a job reads it. */
static void bands_of_rows_measure_as_the_whole_image(void **state)
{
	(void)state;
	synth_opts o;
	synth_defaults(&o);
	o.pitch = 24;
	o.diam_ratio = 0.5;
	o.jitter = 2;
	picture_size(&o);
	synth_truth tr;
	fs_image *src = synth_make(&o, &tr);
	assert_non_null(src);
	fs_image *comp = compact_of(src);
	char err[256];
	for (int rule = 0; rule < 2; rule++) {
		for (int tophat = 0; tophat < 2; tophat++) {
			fs_params p;
			fs_params_default(&p);
			p.tophat_radius = tophat ? 15 : 0;
			fs_tubercle_list a = {0}, b = {0};
			for (size_t i = 0; i < tr.n; i++) {
				fs_tubercle x;
				fs_tubercle_init(&x);
				x.id = (int)i + 1;
				x.centroid_x = tr.x[i];
				x.centroid_y = tr.y[i];
				assert_int_equal(fs_tubercle_list_append(&a, &x), 0);
				assert_int_equal(fs_tubercle_list_append(&b, &x), 0);
			}
			fs_measurement_rule r = rule ? FS_RULE_DOME : FS_RULE_OUTLINE;
			assert_int_equal(fs_measure_centres_rule(comp, &p, 0, r, &a, err, sizeof err), 0);
			fs_measure_centres_set_band_rows(64);
			int rc = fs_measure_centres_rule(comp, &p, 0, r, &b, err, sizeof err);
			fs_measure_centres_set_band_rows(0);
			assert_int_equal(rc, 0);
			size_t measured = 0;
			double worst = 0;
			for (size_t i = 0; i < tr.n; i++) {
				const fs_tubercle *x = &a.items[i], *y = &b.items[i];
				assert_int_equal(x->id, y->id);
				assert_true(x->centroid_x == y->centroid_x && x->centroid_y == y->centroid_y);
				assert_true(fs_tubercle_measured(x) == fs_tubercle_measured(y));
				if (!fs_tubercle_measured(x))
					continue;
				measured++;
				worst = fmax(worst, fabs(x->radius_px - y->radius_px));
				assert_true(fabs(x->fit_quality - y->fit_quality) < 1e-9 ||
					    (isnan(x->fit_quality) && isnan(y->fit_quality)));
			}
			print_message("%s rule, top-hat %s: %zu of %zu measured, radii within %.2g px of the whole image's\n",
				      rule ? "dome" : "outline", tophat ? "on" : "off", measured, tr.n, worst);
			assert_true(worst < 1e-9);
			assert_true(measured > tr.n / 2);
			fs_tubercle_list_free(&a);
			fs_tubercle_list_free(&b);
		}
	}
	fs_image_free(comp);
	fs_image_free(src);
	synth_truth_free(&tr);
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
		cmocka_unit_test(compact_image_measures_as_its_float_copy),
		cmocka_unit_test(bands_of_rows_measure_as_the_whole_image),
		cmocka_unit_test(no_image_is_an_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
