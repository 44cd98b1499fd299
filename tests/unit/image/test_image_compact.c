/*
 * Compact images (issue 15, image.h): an 8- or 16-bit grey source loaded
 * with fs_load_opts.compact keeps its samples in 1 or 2 bytes, and every
 * sample read back as a float (fs_image_span, fs_image_value,
 * fs_image_region_float, fs_image_to_float) is bit for bit the float the
 * ordinary loader gives for the same file; layouts that are not plain grey
 * (RGB, min-is-white, palette) stay float. Each layout is written with the
 * real libraries (testimg_write.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <png.h>
#include <tiffio.h>

#include "image/image_io.h"
#include "image/render.h"
#include "testimg_write.h"


/* Loads path twice (float, compact), checks the compact one has `bits`
 * (0: stays float) and that all its samples equal the float load's. */
static void check_file(const char *path, int bits)
{
	char err[256] = "";
	fs_loaded f, c;
	fs_load_opts of = {0}, oc = {.compact = 1};
	if (fs_load_file(path, &of, &f, err, sizeof err) || fs_load_file(path, &oc, &c, err, sizeof err))
		fail_msg("load failed: %s", err);
	assert_int_equal(f.image->bits, 0);
	assert_int_equal(c.image->bits, bits);
	/* the probe says so from the header (the import job's memory estimate) */
	fs_loaded p;
	if (fs_probe_file(path, &oc, &p, err, sizeof err))
		fail_msg("probe failed: %s", err);
	assert_null(p.image);
	assert_int_equal(p.compact_bits, bits);
	assert_int_equal(c.compact_bits, bits);
	fs_loaded_free(&p);
	assert_int_equal(c.image->width, f.image->width);
	assert_int_equal(c.image->height, f.image->height);
	/* the metadata does not depend on the storage (a compact PNG once
	 * lost its pHYs pixel size) */
	assert_int_equal(c.bit_depth, f.bit_depth);
	assert_int_equal(c.channels, f.channels);
	assert_true(c.suggested_um_per_px == f.suggested_um_per_px);
	assert_string_equal(c.calibration_source, f.calibration_source);
	int w = f.image->width, h = f.image->height;
	if (bits) {
		assert_null(c.image->data);
		assert_non_null(c.image->px);
		assert_int_equal(fs_image_bytes(c.image), (size_t)w * h * (bits / 8));
	}
	float *buf = malloc((size_t)w * sizeof *buf);
	assert_non_null(buf);
	for (int y = 0; y < h; y++) {
		const float *row = fs_image_span(c.image, 0, y, w, buf);
		assert_memory_equal(row, f.image->data + (size_t)y * w, (size_t)w * sizeof(float));
		for (int x = 0; x < w; x += 7)
			assert_true(fs_image_value(c.image, x, y) == fs_image_at(f.image, x, y));
	}
	free(buf);
	fs_image *whole = fs_image_to_float(c.image);
	assert_non_null(whole);
	assert_int_equal(whole->bits, 0);
	assert_memory_equal(whole->data, f.image->data, (size_t)w * h * sizeof(float));
	fs_image_free(whole);
	/* a crop inside, as the tiled measurement takes it */
	fs_image *crop = fs_image_region_float(c.image, 3, 2, w - 5, h - 4);
	assert_non_null(crop);
	for (int y = 0; y < h - 4; y++)
		assert_memory_equal(crop->data + (size_t)y * (w - 5), f.image->data + (size_t)(y + 2) * w + 3,
				    (size_t)(w - 5) * sizeof(float));
	fs_image_free(crop);
	assert_null(fs_image_region_float(c.image, 1, 0, w, h)); /* outside */
	fs_image *cl = fs_image_clone(c.image);
	assert_non_null(cl);
	assert_int_equal(cl->bits, bits);
	if (bits)
		assert_memory_equal(cl->px, c.image->px, fs_image_bytes(c.image));
	fs_image_free(cl);
	fs_loaded_free(&f);
	fs_loaded_free(&c);
}

static void test_tiff_grey(void **state)
{
	(void)state;
	struct {
		int bps, tile, planar, spp, compression;
	} cases[] = {
		{8, 0, 0, 1, 0},   {16, 0, 0, 1, 0},  {8, 32, 0, 1, 0}, {16, 32, 0, 1, COMPRESSION_ADOBE_DEFLATE},
		{8, 0, 0, 2, 0},   {16, 0, 1, 2, 0},  {8, 0, 0, 1, COMPRESSION_LZW},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		fs_testimg_tiff s = {.width = 67, .height = 45, .bps = cases[i].bps, .spp = cases[i].spp,
				     .photometric = PHOTOMETRIC_MINISBLACK, .tile = cases[i].tile,
				     .planar_separate = cases[i].planar, .compression = cases[i].compression,
				     .big_endian = (int)(i & 1)};
		assert_int_equal(fs_testimg_write_tiff(fs_testimg_path("g.tif"), &s), 0);
		check_file(fs_testimg_path("g.tif"), cases[i].bps);
	}
}

static void test_tiff_other_layouts_stay_float(void **state)
{
	(void)state;
	fs_testimg_tiff rgb = {.width = 40, .height = 30, .bps = 8, .spp = 3, .photometric = PHOTOMETRIC_RGB};
	assert_int_equal(fs_testimg_write_tiff(fs_testimg_path("rgb.tif"), &rgb), 0);
	check_file(fs_testimg_path("rgb.tif"), 0);
	fs_testimg_tiff white = {.width = 40, .height = 30, .bps = 8, .photometric = PHOTOMETRIC_MINISWHITE};
	assert_int_equal(fs_testimg_write_tiff(fs_testimg_path("w.tif"), &white), 0);
	check_file(fs_testimg_path("w.tif"), 0);
	fs_testimg_tiff pal = {.width = 40, .height = 30, .bps = 8, .photometric = PHOTOMETRIC_PALETTE};
	assert_int_equal(fs_testimg_write_tiff(fs_testimg_path("p.tif"), &pal), 0);
	check_file(fs_testimg_path("p.tif"), 0);
	fs_testimg_tiff f32 = {.width = 40, .height = 30, .bps = 32, .sample_format = SAMPLEFORMAT_IEEEFP,
			       .photometric = PHOTOMETRIC_MINISBLACK};
	assert_int_equal(fs_testimg_write_tiff(fs_testimg_path("f.tif"), &f32), 0);
	check_file(fs_testimg_path("f.tif"), 0);
}

static void test_png(void **state)
{
	(void)state;
	struct {
		int bd, ct, interlace, bits;
	} cases[] = {
		{8, PNG_COLOR_TYPE_GRAY, 0, 8},        {16, PNG_COLOR_TYPE_GRAY, 0, 16},
		{4, PNG_COLOR_TYPE_GRAY, 0, 8},        {8, PNG_COLOR_TYPE_GRAY_ALPHA, 0, 8},
		{8, PNG_COLOR_TYPE_GRAY, 1, 0},        {8, PNG_COLOR_TYPE_RGB, 0, 0},
		{8, PNG_COLOR_TYPE_PALETTE, 0, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		fs_testimg_png s = {.width = 53, .height = 31, .bit_depth = cases[i].bd, .color_type = cases[i].ct,
				    .interlace = cases[i].interlace, .phys_ppm = 2500000 /* 0.4 um */};
		assert_int_equal(fs_testimg_write_png(fs_testimg_path("g.png"), &s), 0);
		check_file(fs_testimg_path("g.png"), cases[i].bits);
	}
}

static void test_jpeg(void **state)
{
	(void)state;
	fs_testimg_jpeg g = {.width = 48, .height = 40, .components = 1};
	assert_int_equal(fs_testimg_write_jpeg(fs_testimg_path("g.jpg"), &g), 0);
	check_file(fs_testimg_path("g.jpg"), 8);
	fs_testimg_jpeg c = {.width = 48, .height = 40, .components = 3};
	assert_int_equal(fs_testimg_write_jpeg(fs_testimg_path("c.jpg"), &c), 0);
	check_file(fs_testimg_path("c.jpg"), 0);
}

/* The conversion is the loaders' own: k / 255 and k / 65535 as floats,
 * so 0 and the top code are exactly 0 and 1. */
static void test_values_and_sizes(void **state)
{
	(void)state;
	assert_true(fs_image_compact_value(8, 0) == 0.0f);
	assert_true(fs_image_compact_value(8, 255) == 1.0f);
	assert_true(fs_image_compact_value(16, 65535) == 1.0f);
	for (unsigned k = 0; k < 256; k++)
		assert_true(fs_image_compact_value(8, k) == (float)k / 255.0f);
	assert_null(fs_image_new_compact(10, 10, 12));
	assert_null(fs_image_new_compact(0, 10, 8));
	fs_image *a = fs_image_new_compact(1000, 1000, 8), *b = fs_image_new_compact(1000, 1000, 16);
	fs_image *f = fs_image_new(1000, 1000);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(f);
	/* a quarter and a half of the float image's memory */
	assert_int_equal(fs_image_bytes(a) * 4, fs_image_bytes(f));
	assert_int_equal(fs_image_bytes(b) * 2, fs_image_bytes(f));
	fs_image_free(a);
	fs_image_free(b);
	fs_image_free(f);
}

/* A span converts every code to the loaders' float, k / 255.0 or k / 65535.0
 * worked out in double and rounded to float (the loaders' own conversion,
 * written here apart from image.c's vector division), whatever the span's
 * start and length (the vector blocks and the tail after them). */
static void test_span_every_code(void **state)
{
	(void)state;
	int w8 = 256 * 3 + 5, w16 = 65536 + 21;
	fs_image *a = fs_image_new_compact(w8, 2, 8), *b = fs_image_new_compact(w16, 1, 16);
	float *buf = malloc((size_t)w16 * sizeof *buf);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(buf);
	for (int i = 0; i < w8 * 2; i++)
		((uint8_t *)a->px)[i] = (uint8_t)(i * 7 + 3);
	for (int i = 0; i < w16; i++)
		((uint16_t *)b->px)[i] = (uint16_t)(i * 3 + 1);
	static const int starts[] = {0, 1, 5, 17};
	for (int s = 0; s < 4; s++)
		for (int n = 1; starts[s] + n <= w8; n += n < 40 ? 1 : 97) {
			const float *r = fs_image_span(a, starts[s], 1, n, buf);
			for (int i = 0; i < n; i++) {
				unsigned k = ((const uint8_t *)a->px)[w8 + starts[s] + i];
				assert_true(r[i] == (float)(k / 255.0));
			}
		}
	const float *r = fs_image_span(b, 3, 0, w16 - 3, buf);
	for (int i = 0; i < w16 - 3; i++) {
		unsigned k = ((const uint16_t *)b->px)[3 + i];
		assert_true(r[i] == (float)(k / 65535.0));
		assert_true(fs_image_compact_value(16, k) == r[i]);
	}
	free(buf);
	fs_image_free(a);
	fs_image_free(b);
}

/* The overlay of a compact image is the float image's, pixel for pixel. */
static void test_render_compact(void **state)
{
	(void)state;
	fs_image *c = fs_image_new_compact(90, 70, 8);
	assert_non_null(c);
	for (int i = 0; i < 90 * 70; i++)
		((unsigned char *)c->px)[i] = (unsigned char)(i * 37 % 256);
	fs_image *f = fs_image_to_float(c);
	assert_non_null(f);
	fs_tubercle_list tl = {0};
	fs_edge_list el = {0};
	fs_render_opts ro;
	fs_render_opts_default(&ro);
	ro.max_side = 50; /* and downscaled */
	fs_rgb a, b;
	char err[128];
	assert_int_equal(fs_render_overlay(c, &tl, &el, &ro, &a, err, sizeof err), 0);
	assert_int_equal(fs_render_overlay(f, &tl, &el, &ro, &b, err, sizeof err), 0);
	assert_int_equal(a.width, b.width);
	assert_int_equal(a.height, b.height);
	assert_memory_equal(a.data, b.data, (size_t)a.width * a.height * 3);
	fs_rgb_free(&a);
	fs_rgb_free(&b);
	fs_image_free(c);
	fs_image_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tiff_grey),
		cmocka_unit_test(test_tiff_other_layouts_stay_float),
		cmocka_unit_test(test_png),
		cmocka_unit_test(test_jpeg),
		cmocka_unit_test(test_values_and_sizes),
		cmocka_unit_test(test_span_every_code),
		cmocka_unit_test(test_render_compact),
	};
	return cmocka_run_group_tests(tests, fs_testimg_dir_setup, fs_testimg_dir_teardown);
}
