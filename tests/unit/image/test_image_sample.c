/* Unit tests for image.h's bilinear sampling: fs_image_sample and its
 * inlined forms (fs_image_sample_clamped, fs_image_sample_inside) give
 * the same bits; a plane is reproduced exactly between pixel centres,
 * pixel centres give their pixel, and points outside take the edge. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "image/image.h"

/* a plane a + b x + c y, exact in floats at these sizes */
static fs_image *plane(int w, int h)
{
	fs_image *img = fs_image_new(w, h);
	assert_non_null(img);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			img->data[(size_t)y * w + x] = 0.125f + 0.03125f * x + 0.0625f * y;
	return img;
}

static void plane_is_reproduced(void **state)
{
	(void)state;
	fs_image *img = plane(9, 7);
	for (double y = 0; y <= 6; y += 0.25)
		for (double x = 0; x <= 8; x += 0.125)
			assert_true(fabs(fs_image_sample(img, x, y) - (0.125 + 0.03125 * x + 0.0625 * y)) < 1e-12);
	/* pixel centres: the pixel itself */
	assert_true(fs_image_sample(img, 3, 2) == img->data[2 * 9 + 3]);
	fs_image_free(img);
}

static void outside_takes_the_edge(void **state)
{
	(void)state;
	fs_image *img = plane(9, 7);
	assert_true(fs_image_sample(img, -5, -1) == img->data[0]);
	assert_true(fs_image_sample(img, 20, 30) == img->data[6 * 9 + 8]);
	assert_true(fs_image_sample(img, 8, 2.5) == fs_image_sample(img, 11.7, 2.5));
	assert_true(fs_image_sample(img, 2.5, 6) == fs_image_sample(img, 2.5, 9));
	fs_image_free(img);
}

/* the inlined forms against the function, bit for bit, on noise-like
 * values where any change of the arithmetic's order would show */
static void inlined_forms_same_bits(void **state)
{
	(void)state;
	int w = 23, h = 17;
	fs_image *img = fs_image_new(w, h);
	assert_non_null(img);
	uint32_t s = 12345;
	for (int i = 0; i < w * h; i++) {
		s = s * 1664525u + 1013904223u;
		img->data[i] = (float)((s >> 8) / 16777216.0);
	}
	for (int k = 0; k < 20000; k++) {
		s = s * 1664525u + 1013904223u;
		double x = -3 + (w + 6) * ((s >> 8) / 16777216.0);
		s = s * 1664525u + 1013904223u;
		double y = -3 + (h + 6) * ((s >> 8) / 16777216.0);
		double f = fs_image_sample(img, x, y), c = fs_image_sample_clamped(img, x, y);
		assert_memory_equal(&f, &c, sizeof f);
		if (x >= 0 && y >= 0 && x < w - 1 && y < h - 1) {
			double i = fs_image_sample_inside(img->data, w, x, y);
			assert_memory_equal(&f, &i, sizeof f);
		}
	}
	fs_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plane_is_reproduced),
		cmocka_unit_test(outside_takes_the_edge),
		cmocka_unit_test(inlined_forms_same_bits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
