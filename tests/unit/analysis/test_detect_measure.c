/* Unit tests for the profile-based blob measurement and the editor's point
 * analysis. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analysis/blob_measure.h"
#include "analysis/detect.h"

static char err[256];

/* Anti-aliased ellipse (semi-axes a, b, rotated by th) of level 0.8 on 0.2. */
static fs_image *ellipse_image(int w, int h, double cx, double cy, double a, double b, double th)
{
	fs_image *img = fs_image_new(w, h);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			double dx = x - cx, dy = y - cy;
			double u = dx * cos(th) + dy * sin(th), v = -dx * sin(th) + dy * cos(th);
			double q = sqrt(u * u / (a * a) + v * v / (b * b));
			double edge = (1 - q) * sqrt(a * b) + 0.5; /* ~signed distance in px */
			edge = edge < 0 ? 0 : edge > 1 ? 1 : edge;
			img->data[y * w + x] = (float)(0.2 + 0.6 * edge);
		}
	return img;
}

static void circle_radius_and_centre_are_measured(void **state)
{
	(void)state;
	fs_image *img = ellipse_image(64, 64, 30.3, 33.6, 9, 9, 0);
	fs_tubercle t = {0};
	/* Start off-centre: the polygon centroid must pull the centre back. */
	assert_int_equal(fs_blob_measure(img, 28, 35, 20, &t), 0);
	assert_float_equal(t.centroid_x, 30.3, 0.15);
	assert_float_equal(t.centroid_y, 33.6, 0.15);
	assert_float_equal(t.radius_px, 9, 0.3);
	assert_true(t.circularity > 0.95);
	assert_true(t.eccentricity < 0.2);
	fs_image_free(img);
}

static void different_sizes_give_different_diameters(void **state)
{
	(void)state;
	/* The original's failure: every diameter equal to the smallest scale. */
	double radii[] = {4, 7, 12};
	for (int i = 0; i < 3; i++) {
		fs_image *img = ellipse_image(80, 80, 40, 40, radii[i], radii[i], 0);
		fs_tubercle t = {0};
		assert_int_equal(fs_blob_measure(img, 40, 40, 30, &t), 0);
		assert_float_equal(t.radius_px, radii[i], 0.05 * radii[i] + 0.1);
		fs_image_free(img);
	}
}

static void ellipse_axes_and_orientation(void **state)
{
	(void)state;
	fs_image *img = ellipse_image(80, 80, 40, 40, 14, 7, 0.5);
	fs_tubercle t = {0};
	assert_int_equal(fs_blob_measure(img, 40, 40, 30, &t), 0);
	assert_true(t.has_ellipse);
	assert_float_equal(t.major_axis_px, 28, 1.5);
	assert_float_equal(t.minor_axis_px, 14, 1.0);
	assert_float_equal(t.orientation, 0.5, 0.05);
	assert_float_equal(t.eccentricity, sqrt(1 - 0.25), 0.05);
	assert_true(t.circularity < 0.95);
	fs_image_free(img);
}

static void flat_image_has_no_blob(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(32, 32);
	fs_tubercle t = {0};
	assert_int_equal(fs_blob_measure(img, 16, 16, 10, &t), -1);
	assert_int_equal(fs_blob_measure(img, -3, 16, 10, &t), -1);
	assert_int_equal(fs_blob_measure(img, 16, 16, 0.5, &t), -1);
	fs_image_free(img);
}

static void point_on_blob_is_found(void **state)
{
	(void)state;
	fs_image *img = ellipse_image(120, 100, 60.5, 50.2, 8, 8, 0);
	fs_params p;
	fs_params_default(&p);
	p.max_diameter_um = 10; /* 20 px at 0.5 um/px */
	fs_point_result r;
	assert_int_equal(fs_analyze_point(img, &p, 0.5, 63, 52, 3, &r, err, sizeof err), 0);
	assert_int_equal(r.found, 1);
	assert_float_equal(r.tubercle.centroid_x, 60.5, 0.3);
	assert_float_equal(r.tubercle.centroid_y, 50.2, 0.3);
	assert_float_equal(r.tubercle.radius_px, 8, 0.5);
	assert_int_equal(r.region_w, 60);
	fs_image_free(img);
}

static void point_far_from_blob_is_not_found(void **state)
{
	(void)state;
	fs_image *img = ellipse_image(200, 100, 40, 50, 8, 8, 0);
	fs_params p;
	fs_params_default(&p);
	p.max_diameter_um = 10;
	fs_point_result r;
	assert_int_equal(fs_analyze_point(img, &p, 0.5, 150, 50, 3, &r, err, sizeof err), 0);
	assert_int_equal(r.found, 0);
	assert_true(strlen(r.reason) > 0);
	fs_image_free(img);
}

static void point_bad_arguments_fail(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(50, 50);
	fs_params p;
	fs_params_default(&p);
	fs_point_result r;
	assert_int_equal(fs_analyze_point(img, &p, 0, 10, 10, 3, &r, err, sizeof err), -1);
	assert_int_equal(fs_analyze_point(img, &p, 0.5, 60, 10, 3, &r, err, sizeof err), -1);
	assert_int_equal(fs_analyze_point(img, &p, 0.5, 10, 10, 0, &r, err, sizeof err), -1);
	assert_int_equal(fs_analyze_point(NULL, &p, 0.5, 10, 10, 3, &r, err, sizeof err), -1);
	fs_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(circle_radius_and_centre_are_measured),
		cmocka_unit_test(different_sizes_give_different_diameters),
		cmocka_unit_test(ellipse_axes_and_orientation),
		cmocka_unit_test(flat_image_has_no_blob),
		cmocka_unit_test(point_on_blob_is_found),
		cmocka_unit_test(point_far_from_blob_is_not_found),
		cmocka_unit_test(point_bad_arguments_fail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
