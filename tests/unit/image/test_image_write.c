/* Unit tests for the PNG writers and the area-averaging downscale (image_io.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "image/image_io.h"
#include "testimg_write.h"

static char tmpdir[128];

static int setup_dir(void **state)
{
	(void)state;
	return fs_testimg_tmpdir(tmpdir, sizeof tmpdir);
}

static int teardown_dir(void **state)
{
	(void)state;
	fs_testimg_rmdir(tmpdir);
	return 0;
}

static void png_gray_round_trips_8bit_values(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(16, 16);
	assert_non_null(img);
	for (int i = 0; i < 256; i++)
		img->data[i] = i / 255.0f;
	unsigned char *png = NULL;
	size_t len = 0;
	char err[256];
	assert_int_equal(fs_png_encode_gray(img, &png, &len, err, sizeof err), 0);
	fs_loaded l;
	assert_int_equal(fs_load_memory(png, len, NULL, &l, err, sizeof err), 0);
	assert_int_equal(l.format, FS_FORMAT_PNG);
	assert_int_equal(l.channels, 1);
	assert_int_equal(l.bit_depth, 8);
	assert_memory_equal(l.image->data, img->data, 256 * sizeof(float));
	fs_loaded_free(&l);
	free(png);
	fs_image_free(img);
}

static void png_gray_clamps_out_of_range_values(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(3, 1);
	assert_non_null(img);
	img->data[0] = -0.5f;
	img->data[1] = 1.5f;
	img->data[2] = 0.5f;
	unsigned char *png = NULL;
	size_t len;
	char err[256];
	assert_int_equal(fs_png_encode_gray(img, &png, &len, err, sizeof err), 0);
	fs_loaded l;
	assert_int_equal(fs_load_memory(png, len, NULL, &l, err, sizeof err), 0);
	assert_true(l.image->data[0] == 0.0f);
	assert_true(l.image->data[1] == 1.0f);
	assert_float_equal(l.image->data[2], 128 / 255.0f, 1e-7); /* 127.5 rounds up */
	fs_loaded_free(&l);
	free(png);
	fs_image_free(img);
}

static void png_rgb_file_loads_as_luma(void **state)
{
	(void)state;
	unsigned char rgb[2 * 2 * 3] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255};
	char path[256], err[256];
	snprintf(path, sizeof path, "%s/rgb.png", tmpdir);
	assert_int_equal(fs_png_write_rgb(path, rgb, 2, 2, err, sizeof err), 0);
	fs_loaded l;
	assert_int_equal(fs_load_file(path, NULL, &l, err, sizeof err), 0);
	assert_int_equal(l.channels, 3);
	assert_float_equal(l.image->data[0], 0.299f, 1e-6);
	assert_float_equal(l.image->data[1], 0.587f, 1e-6);
	assert_float_equal(l.image->data[2], 0.114f, 1e-6);
	assert_true(l.image->data[3] == 1.0f);
	fs_loaded_free(&l);
}

static void png_gray_file_is_written_in_place(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(5, 4);
	assert_non_null(img);
	char path[256], err[256];
	snprintf(path, sizeof path, "%s/g.png", tmpdir);
	assert_int_equal(fs_png_write_gray(path, img, err, sizeof err), 0);
	fs_loaded l;
	assert_int_equal(fs_load_file(path, NULL, &l, err, sizeof err), 0);
	assert_int_equal(l.image->width, 5);
	assert_int_equal(l.image->height, 4);
	fs_loaded_free(&l);
	fs_image_free(img);
}

static void png_write_into_missing_directory_fails(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(2, 2);
	assert_non_null(img);
	char path[256], err[256] = "";
	snprintf(path, sizeof path, "%s/no/such/dir.png", tmpdir);
	assert_int_equal(fs_png_write_gray(path, img, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot create"));
	fs_image_free(img);
}

static void png_encode_refuses_bad_arguments(void **state)
{
	(void)state;
	unsigned char *png = NULL;
	size_t len;
	char err[256] = "";
	unsigned char rgb[3] = {0};
	assert_int_equal(fs_png_encode_rgb(NULL, 1, 1, &png, &len, err, sizeof err), -1);
	assert_int_equal(fs_png_encode_rgb(rgb, 0, 1, &png, &len, err, sizeof err), -1);
	assert_int_equal(fs_png_encode_gray(NULL, &png, &len, err, sizeof err), -1);
	assert_true(err[0] != '\0');
	assert_null(png);
}

static void downscale_keeps_small_images_as_copies(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(30, 20);
	assert_non_null(img);
	img->data[7] = 0.25f;
	fs_image *d = fs_image_downscale(img, 30);
	assert_non_null(d);
	assert_ptr_not_equal(d, img);
	assert_int_equal(d->width, 30);
	assert_memory_equal(d->data, img->data, 30 * 20 * sizeof(float));
	fs_image_free(d);
	fs_image_free(img);
}

static void downscale_by_two_averages_blocks(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(4, 2);
	assert_non_null(img);
	float v[8] = {0, 1, 0.5f, 0.5f, 1, 0, 0.25f, 0.75f};
	memcpy(img->data, v, sizeof v);
	fs_image *d = fs_image_downscale(img, 2);
	assert_non_null(d);
	assert_int_equal(d->width, 2);
	assert_int_equal(d->height, 1);
	assert_float_equal(d->data[0], 0.5f, 1e-6);
	assert_float_equal(d->data[1], 0.5f, 1e-6);
	fs_image_free(d);
	fs_image_free(img);
}

static void downscale_weights_partial_pixels_by_area(void **state)
{
	(void)state;
	/* 3 -> 2 columns: output 0 covers source [0, 1.5): (v0 + 0.5 v1) / 1.5 */
	fs_image *img = fs_image_new(3, 1);
	assert_non_null(img);
	img->data[0] = 0.0f;
	img->data[1] = 0.6f;
	img->data[2] = 0.9f;
	fs_image *d = fs_image_downscale(img, 2);
	assert_non_null(d);
	assert_int_equal(d->width, 2);
	assert_float_equal(d->data[0], 0.2f, 1e-6);
	assert_float_equal(d->data[1], 0.8f, 1e-6);
	fs_image_free(d);
	fs_image_free(img);
}

static void downscale_keeps_aspect_and_mean(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(1000, 500);
	assert_non_null(img);
	double sum = 0;
	for (int i = 0; i < 1000 * 500; i++) {
		img->data[i] = (float)(((unsigned)i * 7919u) % 1000u) / 1000.0f;
		sum += img->data[i];
	}
	fs_image *d = fs_image_downscale(img, 300);
	assert_non_null(d);
	assert_int_equal(d->width, 300);
	assert_int_equal(d->height, 150);
	double dsum = 0;
	for (int i = 0; i < 300 * 150; i++)
		dsum += d->data[i];
	assert_float_equal(dsum / (300 * 150), sum / (1000 * 500), 1e-4);
	fs_image_free(d);
	fs_image_free(img);
}

static void downscale_refuses_bad_arguments(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(4, 4);
	assert_non_null(img);
	assert_null(fs_image_downscale(img, 0));
	assert_null(fs_image_downscale(NULL, 10));
	fs_image_free(img);
}

/* issue 15 (h22b): a compact image is reduced a row at a time to the very
 * floats its float copy gives, 8 and 16 bit, reduced or small; an agent's
 * screenshot of a 100 MP montage is made that way. */
static void downscale_of_compact_equals_its_float_copy(void **state)
{
	(void)state;
	int bits[2] = {8, 16};
	for (int b = 0; b < 2; b++) {
		fs_image *img = fs_image_new_compact(1003, 517, bits[b]);
		assert_non_null(img);
		for (size_t i = 0; i < (size_t)1003 * 517; i++) {
			unsigned v = (unsigned)((i * 7919u) % (bits[b] == 8 ? 256u : 65536u));
			if (bits[b] == 8)
				((unsigned char *)img->px)[i] = (unsigned char)v;
			else
				((unsigned short *)img->px)[i] = (unsigned short)v;
		}
		fs_image *fl = fs_image_to_float(img);
		assert_non_null(fl);
		int sides[3] = {300, 517, 1100};
		for (int k = 0; k < 3; k++) {
			fs_image *a = fs_image_downscale(img, sides[k]), *c = fs_image_downscale(fl, sides[k]);
			assert_non_null(a);
			assert_non_null(c);
			assert_false(fs_image_is_compact(a));
			assert_int_equal(a->width, c->width);
			assert_int_equal(a->height, c->height);
			assert_memory_equal(a->data, c->data, fs_image_bytes(c));
			fs_image_free(a);
			fs_image_free(c);
		}
		fs_image_free(fl);
		fs_image_free(img);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(png_gray_round_trips_8bit_values),
		cmocka_unit_test(png_gray_clamps_out_of_range_values),
		cmocka_unit_test(png_rgb_file_loads_as_luma),
		cmocka_unit_test(png_gray_file_is_written_in_place),
		cmocka_unit_test(png_write_into_missing_directory_fails),
		cmocka_unit_test(png_encode_refuses_bad_arguments),
		cmocka_unit_test(downscale_keeps_small_images_as_copies),
		cmocka_unit_test(downscale_by_two_averages_blocks),
		cmocka_unit_test(downscale_weights_partial_pixels_by_area),
		cmocka_unit_test(downscale_keeps_aspect_and_mean),
		cmocka_unit_test(downscale_refuses_bad_arguments),
		cmocka_unit_test(downscale_of_compact_equals_its_float_copy),
	};
	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
