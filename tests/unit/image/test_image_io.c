/*
 * Unit tests for the image loaders (TIFF, PNG, JPEG): every supported layout
 * is generated with the real libraries (tests/unit/support/testimg_write.c),
 * loaded back and compared pixel by pixel; malformed files must give -1 with
 * a message (and, under ASan, no leak).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include <png.h>
#include <tiffio.h>

#include "image/image_io.h"
#include "testimg_write.h"


/* Writes spec to a temp TIFF and loads it (asserting success). */
static void load_tiff_spec(const fs_testimg_tiff *spec, int page, fs_loaded *l)
{
	char err[256] = "";
	const char *p = fs_testimg_path("t.tif");
	assert_int_equal(fs_testimg_write_tiff(p, spec), 0);
	fs_load_opts o = {.max_pixels = 0, .page = page};
	int rc = fs_load_file(p, &o, l, err, sizeof err);
	if (rc != 0)
		fail_msg("load failed: %s", err);
	assert_non_null(l->image);
	assert_int_equal(l->format, FS_FORMAT_TIFF);
}

/* Expected value of an unsigned integer grey sample. */
static float grey_u(int bits, int x, int y, int page)
{
	double maxv = bits == 32 ? 4294967295.0 : (double)((1ULL << bits) - 1);
	return (float)(fs_testimg_sample(bits, 0, 0, x, y, 0, page) / maxv);
}

static float rgb_u(int bits, int x, int y)
{
	double maxv = (double)((1ULL << bits) - 1);
	return fs_luma((float)(fs_testimg_sample(bits, 0, 0, x, y, 0, 0) / maxv),
		       (float)(fs_testimg_sample(bits, 0, 0, x, y, 1, 0) / maxv),
		       (float)(fs_testimg_sample(bits, 0, 0, x, y, 2, 0) / maxv));
}

static void check_grey(const fs_loaded *l, int bits, int w, int h, int page)
{
	assert_int_equal(l->image->width, w);
	assert_int_equal(l->image->height, h);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			assert_float_equal(fs_image_at(l->image, x, y), grey_u(bits, x, y, page), 1e-6);
}

static void check_rgb(const fs_loaded *l, int bits, int w, int h)
{
	assert_int_equal(l->image->width, w);
	assert_int_equal(l->image->height, h);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			assert_float_equal(fs_image_at(l->image, x, y), rgb_u(bits, x, y), 1e-5);
}

/* ---- TIFF layouts ---- */

static void tiff_grey_integer_depths_load_exactly(void **state)
{
	(void)state;
	static const int depths[] = {1, 2, 4, 8, 16, 32};
	for (size_t i = 0; i < sizeof depths / sizeof depths[0]; i++) {
		fs_testimg_tiff s = {.width = 37, .height = 21, .bps = depths[i], .photometric = PHOTOMETRIC_MINISBLACK,
				     .rows_per_strip = 5};
		fs_loaded l;
		load_tiff_spec(&s, 0, &l);
		check_grey(&l, depths[i], 37, 21, 0);
		assert_int_equal(l.bit_depth, depths[i]);
		assert_int_equal(l.channels, 1);
		assert_int_equal(l.n_pages, 1);
		assert_false(l.is_float);
		fs_loaded_free(&l);
	}
}

static void tiff_16bit_keeps_values_above_255(void **state)
{
	(void)state;
	fs_testimg_tiff s = {.width = 8, .height = 4, .bps = 16, .photometric = PHOTOMETRIC_MINISBLACK};
	fs_loaded l;
	load_tiff_spec(&s, 0, &l);
	/* (x=3, y=2): (9 + 10) * 257 + 3 = 4886: not a multiple of 257, so no 8-bit path can give it. */
	assert_float_equal(fs_image_at(l.image, 3, 2), 4886.0f / 65535.0f, 1e-7);
	fs_loaded_free(&l);
}

static void tiff_float32_is_min_max_normalised(void **state)
{
	(void)state;
	fs_testimg_tiff s = {.width = 10, .height = 6, .bps = 32, .sample_format = SAMPLEFORMAT_IEEEFP,
			     .photometric = PHOTOMETRIC_MINISBLACK};
	fs_loaded l;
	load_tiff_spec(&s, 0, &l);
	assert_true(l.is_float);
	assert_int_equal(l.bit_depth, 32);
	/* values (3x + 5y) * 0.5 - 3: min -3 at (0,0), max 23 at (9,5) */
	assert_float_equal(fs_image_at(l.image, 0, 0), 0.0f, 1e-6);
	assert_float_equal(fs_image_at(l.image, 9, 5), 1.0f, 1e-6);
	assert_float_equal(fs_image_at(l.image, 2, 1), (float)((2.5 + 3.0) / 26.0), 1e-6);
	fs_loaded_free(&l);
}

static void tiff_float64_is_min_max_normalised(void **state)
{
	(void)state;
	fs_testimg_tiff s = {.width = 10, .height = 6, .bps = 64, .sample_format = SAMPLEFORMAT_IEEEFP,
			     .photometric = PHOTOMETRIC_MINISBLACK};
	fs_loaded l;
	load_tiff_spec(&s, 0, &l);
	assert_float_equal(fs_image_at(l.image, 9, 5), 1.0f, 1e-6);
	assert_float_equal(fs_image_at(l.image, 2, 1), (float)((2.5 + 3.0) / 26.0), 1e-6);
	fs_loaded_free(&l);
}

static void tiff_signed16_is_offset_to_unsigned(void **state)
{
	(void)state;
	fs_testimg_tiff s = {.width = 6, .height = 3, .bps = 16, .sample_format = SAMPLEFORMAT_INT,
			     .photometric = PHOTOMETRIC_MINISBLACK};
	fs_loaded l;
	load_tiff_spec(&s, 0, &l);
	for (int x = 0; x < 6; x++) {
		int16_t v = (int16_t)(uint16_t)fs_testimg_sample(16, 0, 0, x, 1, 0, 0);
		assert_float_equal(fs_image_at(l.image, x, 1), (v + 32768.0) / 65535.0, 1e-6);
	}
	fs_loaded_free(&l);
}

static void tiff_min_is_white_is_inverted(void **state)
{
	(void)state;
	fs_testimg_tiff s = {.width = 9, .height = 5, .bps = 8, .photometric = PHOTOMETRIC_MINISWHITE};
	fs_loaded l;
	load_tiff_spec(&s, 0, &l);
	for (int y = 0; y < 5; y++)
		for (int x = 0; x < 9; x++)
			assert_float_equal(fs_image_at(l.image, x, y), 1.0f - grey_u(8, x, y, 0), 1e-6);
	fs_loaded_free(&l);
}

static void tiff_rgb8_uses_bt601_luma(void **state)
{
	(void)state;
	fs_testimg_tiff s = {.width = 13, .height = 7, .bps = 8, .spp = 3, .photometric = PHOTOMETRIC_RGB};
	fs_loaded l;
	load_tiff_spec(&s, 0, &l);
	check_rgb(&l, 8, 13, 7);
	assert_int_equal(l.channels, 3);
	fs_loaded_free(&l);
}

static void tiff_rgba8_ignores_alpha(void **state)
{
	(void)state;
	fs_testimg_tiff s = {.width = 13, .height = 7, .bps = 8, .spp = 4, .photometric = PHOTOMETRIC_RGB};
	fs_loaded l;
	load_tiff_spec(&s, 0, &l);
	check_rgb(&l, 8, 13, 7);
	assert_int_equal(l.channels, 4);
	fs_loaded_free(&l);
}

static void tiff_rgb16_separate_planes(void **state)
{
	(void)state;
	fs_testimg_tiff s = {.width = 11, .height = 9, .bps = 16, .spp = 3, .photometric = PHOTOMETRIC_RGB,
			     .planar_separate = 1, .rows_per_strip = 4};
	fs_loaded l;
	load_tiff_spec(&s, 0, &l);
	check_rgb(&l, 16, 11, 9);
	fs_loaded_free(&l);
}

static void tiff_palette_looks_up_colour_map(void **state)
{
	(void)state;
	static const int depths[] = {4, 8};
	for (size_t i = 0; i < 2; i++) {
		int b = depths[i];
		fs_testimg_tiff s = {.width = 12, .height = 5, .bps = b, .photometric = PHOTOMETRIC_PALETTE};
		fs_loaded l;
		load_tiff_spec(&s, 0, &l);
		for (int y = 0; y < 5; y++)
			for (int x = 0; x < 12; x++) {
				unsigned k = (unsigned)fs_testimg_sample(b, 0, 0, x, y, 0, 0);
				float want = fs_luma(fs_testimg_palette(k, 0) / 65535.0f, fs_testimg_palette(k, 1) / 65535.0f,
						     fs_testimg_palette(k, 2) / 65535.0f);
				assert_float_equal(fs_image_at(l.image, x, y), want, 1e-6);
			}
		assert_int_equal(l.channels, 1);
		assert_int_equal(l.bit_depth, b);
		fs_loaded_free(&l);
	}
}

static void tiff_old_8bit_colour_map_is_scaled_by_255(void **state)
{
	(void)state;
	fs_testimg_tiff s = {.width = 12, .height = 5, .bps = 8, .photometric = PHOTOMETRIC_PALETTE, .cmap8 = 1};
	fs_loaded l;
	load_tiff_spec(&s, 0, &l);
	for (int x = 0; x < 12; x++) {
		unsigned k = (unsigned)fs_testimg_sample(8, 0, 0, x, 2, 0, 0);
		float want = fs_luma((fs_testimg_palette(k, 0) >> 8) / 255.0f, (fs_testimg_palette(k, 1) >> 8) / 255.0f,
				     (fs_testimg_palette(k, 2) >> 8) / 255.0f);
		assert_float_equal(fs_image_at(l.image, x, 2), want, 1e-6);
	}
	fs_loaded_free(&l);
}

static void tiff_big_endian_16bit_loads_exactly(void **state)
{
	(void)state;
	fs_testimg_tiff s = {.width = 17, .height = 9, .bps = 16, .photometric = PHOTOMETRIC_MINISBLACK,
			     .big_endian = 1, .compression = COMPRESSION_LZW};
	fs_loaded l;
	load_tiff_spec(&s, 0, &l);
	check_grey(&l, 16, 17, 9, 0);
	fs_loaded_free(&l);
	unsigned char *buf;
	size_t len;
	assert_int_equal(fs_testimg_read(fs_testimg_path("t.tif"), &buf, &len), 0);
	assert_true(buf[0] == 'M' && buf[1] == 'M');
	free(buf);
}

static void tiff_tiles_with_partial_edge_tiles(void **state)
{
	(void)state;
	fs_testimg_tiff s = {.width = 40, .height = 35, .bps = 16, .photometric = PHOTOMETRIC_MINISBLACK, .tile = 16};
	fs_loaded l;
	load_tiff_spec(&s, 0, &l);
	check_grey(&l, 16, 40, 35, 0);
	fs_loaded_free(&l);
}

static void tiff_tiles_rgb_separate_planes(void **state)
{
	(void)state;
	fs_testimg_tiff s = {.width = 20, .height = 18, .bps = 8, .spp = 3, .photometric = PHOTOMETRIC_RGB,
			     .tile = 16, .planar_separate = 1};
	fs_loaded l;
	load_tiff_spec(&s, 0, &l);
	check_rgb(&l, 8, 20, 18);
	fs_loaded_free(&l);
}

static void tiff_lossless_codecs_load_exactly(void **state)
{
	(void)state;
	static const int codecs[] = {COMPRESSION_LZW, COMPRESSION_ADOBE_DEFLATE, COMPRESSION_PACKBITS};
	for (size_t i = 0; i < 3; i++) {
		fs_testimg_tiff s = {.width = 30, .height = 20, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK,
				     .compression = codecs[i], .rows_per_strip = 7};
		fs_loaded l;
		load_tiff_spec(&s, 0, &l);
		check_grey(&l, 8, 30, 20, 0);
		fs_loaded_free(&l);
		s.bps = 16;
		s.tile = 16;
		load_tiff_spec(&s, 0, &l);
		check_grey(&l, 16, 30, 20, 0);
		fs_loaded_free(&l);
	}
}

/* Mean absolute difference to a smooth expected image (lossy codecs). */
static double mean_err_smooth(const fs_loaded *l, int rgb)
{
	double sum = 0;
	int w = l->image->width, h = l->image->height;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			double r = fs_testimg_sample(8, 0, 1, x, y, 0, 0) / 255.0;
			double want = r;
			if (rgb)
				want = fs_luma((float)r, (float)(fs_testimg_sample(8, 0, 1, x, y, 1, 0) / 255.0),
					       (float)(fs_testimg_sample(8, 0, 1, x, y, 2, 0) / 255.0));
			sum += fabs(fs_image_at(l->image, x, y) - want);
		}
	return sum / ((double)w * h);
}

static void tiff_jpeg_grey_and_ycbcr_load_close(void **state)
{
	(void)state;
	fs_testimg_tiff g = {.width = 40, .height = 32, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK,
			     .compression = COMPRESSION_JPEG, .smooth = 1};
	fs_loaded l;
	load_tiff_spec(&g, 0, &l);
	assert_true(mean_err_smooth(&l, 0) < 0.01);
	fs_loaded_free(&l);
	fs_testimg_tiff c = {.width = 40, .height = 32, .bps = 8, .spp = 3, .photometric = PHOTOMETRIC_YCBCR,
			     .compression = COMPRESSION_JPEG, .smooth = 1};
	load_tiff_spec(&c, 0, &l);
	assert_int_equal(l.image->width, 40);
	assert_true(mean_err_smooth(&l, 1) < 0.02);
	fs_loaded_free(&l);
}

static void tiff_multipage_loads_first_page_by_default(void **state)
{
	(void)state;
	fs_testimg_tiff s = {.width = 10, .height = 4, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK, .pages = 3};
	fs_loaded l;
	load_tiff_spec(&s, 0, &l);
	assert_int_equal(l.n_pages, 3);
	check_grey(&l, 8, 10, 4, 0);
	fs_loaded_free(&l);
}

static void tiff_multipage_loads_requested_page(void **state)
{
	(void)state;
	fs_testimg_tiff s = {.width = 10, .height = 4, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK, .pages = 3};
	fs_loaded l;
	load_tiff_spec(&s, 2, &l);
	assert_int_equal(l.n_pages, 3);
	check_grey(&l, 8, 12, 4, 2);
	fs_loaded_free(&l);
}

static void tiff_page_out_of_range_fails(void **state)
{
	(void)state;
	fs_testimg_tiff s = {.width = 10, .height = 4, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK, .pages = 2};
	assert_int_equal(fs_testimg_write_tiff(fs_testimg_path("p.tif"), &s), 0);
	fs_load_opts o = {.max_pixels = 0, .page = 2};
	fs_loaded l;
	char err[256] = "";
	assert_int_equal(fs_load_file(fs_testimg_path("p.tif"), &o, &l, err, sizeof err), -1);
	assert_non_null(strstr(err, "2 page"));
	assert_null(l.image);
	o.page = -1;
	assert_int_equal(fs_load_file(fs_testimg_path("p.tif"), &o, &l, err, sizeof err), -1);
}

/* A TIFF file is read from its descriptor, the same bytes a memory load
 * reads: the same image (compact and float), and a file cut short in its
 * strips is an error, not a partial image. */
static void tiff_file_equals_memory_and_cut_file_fails(void **state)
{
	(void)state;
	fs_testimg_tiff s = {.width = 301, .height = 97, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK,
			     .rows_per_strip = 7, .smooth = 1};
	const char *p = fs_testimg_path("fd.tif");
	assert_int_equal(fs_testimg_write_tiff(p, &s), 0);
	FILE *fp = fopen(p, "rb");
	assert_non_null(fp);
	unsigned char *buf = malloc(1 << 20);
	assert_non_null(buf);
	size_t len = fread(buf, 1, 1 << 20, fp);
	fclose(fp);
	assert_true(len > 301 * 97);
	char err[256] = "";
	for (int compact = 0; compact <= 1; compact++) {
		fs_load_opts o = {.compact = compact};
		fs_loaded f, m;
		assert_int_equal(fs_load_file(p, &o, &f, err, sizeof err), 0);
		assert_int_equal(fs_load_memory(buf, len, &o, &m, err, sizeof err), 0);
		assert_int_equal(f.format, FS_FORMAT_TIFF);
		assert_int_equal(f.image->bits, compact ? 8 : 0);
		assert_memory_equal(compact ? f.image->px : (void *)f.image->data,
				    compact ? m.image->px : (void *)m.image->data, fs_image_bytes(f.image));
		fs_loaded_free(&f);
		fs_loaded_free(&m);
	}
	/* cut short: its last strips and the directory libtiff writes after them */
	fp = fopen(p, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, 8 + 301 * 90, fp), 8 + 301 * 90);
	fclose(fp);
	fs_loaded l;
	fs_load_opts o = {.compact = 1};
	int rc = fs_load_file(p, &o, &l, err, sizeof err);
	if (rc == 0)
		fs_loaded_free(&l);
	assert_int_equal(rc, -1);
	assert_null(l.image);
	free(buf);
}

/* ---- calibration ---- */

static void tiff_zeiss_pixel_size_is_suggested(void **state)
{
	(void)state;
	fs_testimg_tiff s = {.width = 8, .height = 8, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK,
			     .zeiss_text = "AP_PIXEL_SIZE\r\nImage Pixel Size = 12.3 nm\r\nAP_WD\r\n",
			     .xres = 72, .resunit = RESUNIT_INCH};
	fs_loaded l;
	load_tiff_spec(&s, 0, &l);
	assert_float_equal(l.suggested_um_per_px, 0.0123, 1e-9);
	assert_string_equal(l.calibration_source, "sem-metadata-zeiss");
	fs_loaded_free(&l);
}

static void tiff_fei_pixel_width_is_suggested(void **state)
{
	(void)state;
	fs_testimg_tiff s = {.width = 8, .height = 8, .bps = 16, .photometric = PHOTOMETRIC_MINISBLACK,
			     .fei_text = "[User]\r\nDate=01/02/2020\r\n[Scan]\r\nPixelWidth=1.2e-08\r\nPixelHeight=1.2e-08\r\n"};
	fs_loaded l;
	load_tiff_spec(&s, 0, &l);
	assert_float_equal(l.suggested_um_per_px, 0.012, 1e-9);
	assert_string_equal(l.calibration_source, "sem-metadata-fei");
	fs_loaded_free(&l);
}

static void tiff_screen_dpi_is_not_a_calibration(void **state)
{
	(void)state;
	static const double dpis[] = {72, 96, 300};
	for (int i = 0; i < 3; i++) {
		fs_testimg_tiff s = {.width = 8, .height = 8, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK,
				     .xres = dpis[i], .resunit = RESUNIT_INCH};
		fs_loaded l;
		load_tiff_spec(&s, 0, &l);
		assert_true(l.suggested_um_per_px == 0.0);
		assert_string_equal(l.calibration_source, "");
		fs_loaded_free(&l);
	}
}

static void tiff_fine_resolution_is_a_calibration(void **state)
{
	(void)state;
	/* 20000 px/cm = 0.5 µm per pixel */
	fs_testimg_tiff s = {.width = 8, .height = 8, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK,
			     .xres = 20000, .resunit = RESUNIT_CENTIMETER};
	fs_loaded l;
	load_tiff_spec(&s, 0, &l);
	assert_float_equal(l.suggested_um_per_px, 0.5, 1e-6);
	assert_string_equal(l.calibration_source, "tiff-resolution");
	fs_loaded_free(&l);
}

/* ---- PNG ---- */

static void load_png_spec(const fs_testimg_png *s, fs_loaded *l)
{
	char err[256] = "";
	assert_int_equal(fs_testimg_write_png(fs_testimg_path("t.png"), s), 0);
	if (fs_load_file(fs_testimg_path("t.png"), NULL, l, err, sizeof err) != 0)
		fail_msg("load failed: %s", err);
	assert_int_equal(l->format, FS_FORMAT_PNG);
	assert_int_equal(l->n_pages, 1);
}

static void png_grey_depths_load_exactly(void **state)
{
	(void)state;
	static const int depths[] = {1, 2, 4, 8, 16};
	for (int il = 0; il < 2; il++)
		for (size_t i = 0; i < 5; i++) {
			fs_testimg_png s = {.width = 23, .height = 17, .bit_depth = depths[i],
					    .color_type = PNG_COLOR_TYPE_GRAY, .interlace = il, .trns = 1};
			fs_loaded l;
			load_png_spec(&s, &l);
			check_grey(&l, depths[i], 23, 17, 0);
			assert_int_equal(l.bit_depth, depths[i]);
			assert_int_equal(l.channels, 1);
			fs_loaded_free(&l);
		}
}

static void png_grey_alpha_ignores_alpha(void **state)
{
	(void)state;
	fs_testimg_png s = {.width = 9, .height = 9, .bit_depth = 16, .color_type = PNG_COLOR_TYPE_GRAY_ALPHA};
	fs_loaded l;
	load_png_spec(&s, &l);
	check_grey(&l, 16, 9, 9, 0);
	assert_int_equal(l.channels, 2);
	fs_loaded_free(&l);
}

static void png_rgb_and_rgba_use_bt601_luma(void **state)
{
	(void)state;
	static const int types[] = {PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
	for (int il = 0; il < 2; il++)
		for (int t = 0; t < 2; t++)
			for (int b = 8; b <= 16; b += 8) {
				fs_testimg_png s = {.width = 19, .height = 11, .bit_depth = b, .color_type = types[t],
						    .interlace = il};
				fs_loaded l;
				load_png_spec(&s, &l);
				check_rgb(&l, b, 19, 11);
				fs_loaded_free(&l);
			}
}

static void png_palette_with_trns_looks_up_colours(void **state)
{
	(void)state;
	static const int depths[] = {1, 2, 4, 8};
	for (int il = 0; il < 2; il++)
		for (size_t i = 0; i < 4; i++) {
			int b = depths[i];
			fs_testimg_png s = {.width = 15, .height = 10, .bit_depth = b,
					    .color_type = PNG_COLOR_TYPE_PALETTE, .interlace = il, .trns = 1};
			fs_loaded l;
			load_png_spec(&s, &l);
			for (int y = 0; y < 10; y++)
				for (int x = 0; x < 15; x++) {
					unsigned k = (unsigned)fs_testimg_sample(b, 0, 0, x, y, 0, 0);
					float want = fs_luma((fs_testimg_palette(k, 0) >> 8) / 255.0f,
							     (fs_testimg_palette(k, 1) >> 8) / 255.0f,
							     (fs_testimg_palette(k, 2) >> 8) / 255.0f);
					assert_float_equal(fs_image_at(l.image, x, y), want, 1e-6);
				}
			fs_loaded_free(&l);
		}
}

static void png_interlaced_tiny_images_load(void **state)
{
	(void)state;
	/* 1x1 .. 3x3 leave most Adam7 passes empty */
	for (int w = 1; w <= 3; w++)
		for (int h = 1; h <= 3; h++) {
			fs_testimg_png s = {.width = w, .height = h, .bit_depth = 8, .color_type = PNG_COLOR_TYPE_GRAY,
					    .interlace = 1};
			fs_loaded l;
			load_png_spec(&s, &l);
			check_grey(&l, 8, w, h, 0);
			fs_loaded_free(&l);
		}
}

static void png_phys_calibration_follows_the_dpi_rule(void **state)
{
	(void)state;
	fs_testimg_png s = {.width = 4, .height = 4, .bit_depth = 8, .color_type = PNG_COLOR_TYPE_GRAY,
			    .phys_ppm = 2000000};
	fs_loaded l;
	load_png_spec(&s, &l);
	assert_float_equal(l.suggested_um_per_px, 0.5, 1e-9);
	assert_string_equal(l.calibration_source, "png-phys");
	fs_loaded_free(&l);
	s.phys_ppm = 2835; /* 72 dpi */
	load_png_spec(&s, &l);
	assert_true(l.suggested_um_per_px == 0.0);
	fs_loaded_free(&l);
}

/* ---- JPEG ---- */

static void jpeg_grey_rgb_and_progressive_load_close(void **state)
{
	(void)state;
	static const int comps[] = {1, 3};
	for (int p = 0; p < 2; p++)
		for (int c = 0; c < 2; c++) {
			fs_testimg_jpeg s = {.width = 48, .height = 40, .components = comps[c], .progressive = p};
			char err[256] = "";
			fs_loaded l;
			assert_int_equal(fs_testimg_write_jpeg(fs_testimg_path("t.jpg"), &s), 0);
			if (fs_load_file(fs_testimg_path("t.jpg"), NULL, &l, err, sizeof err) != 0)
				fail_msg("load failed: %s", err);
			assert_int_equal(l.format, FS_FORMAT_JPEG);
			assert_int_equal(l.image->width, 48);
			assert_int_equal(l.image->height, 40);
			assert_int_equal(l.channels, comps[c]);
			assert_int_equal(l.bit_depth, 8);
			assert_true(mean_err_smooth(&l, comps[c] == 3) < 0.01);
			fs_loaded_free(&l);
		}
}

static void jpeg_cmyk_is_refused(void **state)
{
	(void)state;
	fs_testimg_jpeg s = {.width = 16, .height = 16, .components = 4};
	assert_int_equal(fs_testimg_write_jpeg(fs_testimg_path("c.jpg"), &s), 0);
	fs_loaded l;
	char err[256] = "";
	assert_int_equal(fs_load_file(fs_testimg_path("c.jpg"), NULL, &l, err, sizeof err), -1);
	assert_non_null(strstr(err, "CMYK"));
	assert_null(l.image);
}

static void jpeg_screen_density_is_not_a_calibration(void **state)
{
	(void)state;
	fs_testimg_jpeg s = {.width = 16, .height = 16, .components = 1, .density_dpi = 96};
	assert_int_equal(fs_testimg_write_jpeg(fs_testimg_path("d.jpg"), &s), 0);
	fs_loaded l;
	char err[256] = "";
	assert_int_equal(fs_load_file(fs_testimg_path("d.jpg"), NULL, &l, err, sizeof err), 0);
	assert_true(l.suggested_um_per_px == 0.0);
	fs_loaded_free(&l);
}

/* ---- sniffing and dispatch ---- */

static void sniff_recognises_magic_numbers(void **state)
{
	(void)state;
	assert_int_equal(fs_format_sniff((const unsigned char *)"II*\0", 4), FS_FORMAT_TIFF);
	assert_int_equal(fs_format_sniff((const unsigned char *)"MM\0*", 4), FS_FORMAT_TIFF);
	assert_int_equal(fs_format_sniff((const unsigned char *)"\x89PNG\r\n\x1a\n", 8), FS_FORMAT_PNG);
	assert_int_equal(fs_format_sniff((const unsigned char *)"\xff\xd8\xff\xe0", 4), FS_FORMAT_JPEG);
	assert_int_equal(fs_format_sniff((const unsigned char *)"GIF89a", 6), FS_FORMAT_UNKNOWN);
	assert_int_equal(fs_format_sniff((const unsigned char *)"II", 2), FS_FORMAT_UNKNOWN);
	assert_int_equal(fs_format_sniff(NULL, 0), FS_FORMAT_UNKNOWN);
	assert_string_equal(fs_format_name(FS_FORMAT_PNG), "png");
	assert_string_equal(fs_format_name((fs_format)99), "unknown");
}

static void unknown_format_is_refused(void **state)
{
	(void)state;
	fs_loaded l;
	char err[256] = "";
	const unsigned char gif[] = "GIF89a\x01\x00\x01\x00";
	assert_int_equal(fs_load_memory(gif, sizeof gif, NULL, &l, err, sizeof err), -1);
	assert_non_null(strstr(err, "not a TIFF, PNG or JPEG"));
	assert_int_equal(fs_load_memory(gif, 0, NULL, &l, err, sizeof err), -1);
	assert_int_equal(fs_load_memory(NULL, 10, NULL, &l, err, sizeof err), -1);
}

static void missing_empty_and_directory_files_are_refused(void **state)
{
	(void)state;
	fs_loaded l;
	char err[256] = "";
	assert_int_equal(fs_load_file(fs_testimg_path("nope.tif"), NULL, &l, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot open"));
	assert_int_equal(fs_testimg_write_bytes(fs_testimg_path("empty.png"), (const unsigned char *)"", 0), 0);
	assert_int_equal(fs_load_file(fs_testimg_path("empty.png"), NULL, &l, err, sizeof err), -1);
	assert_int_equal(fs_load_file(fs_testimg_dir(), NULL, &l, err, sizeof err), -1);
	fs_loaded_free(&l);
	fs_loaded_free(NULL);
}

static void page_on_png_is_refused(void **state)
{
	(void)state;
	fs_testimg_png s = {.width = 4, .height = 4, .bit_depth = 8, .color_type = PNG_COLOR_TYPE_GRAY};
	assert_int_equal(fs_testimg_write_png(fs_testimg_path("pg.png"), &s), 0);
	fs_load_opts o = {.max_pixels = 0, .page = 1};
	fs_loaded l;
	char err[256] = "";
	assert_int_equal(fs_load_file(fs_testimg_path("pg.png"), &o, &l, err, sizeof err), -1);
	assert_non_null(strstr(err, "page"));
}

/* ---- the paper figures ---- */

static void paper_tiffs_all_load_with_their_sizes(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		int w, h, ch;
	} figs[] = {
		{"P1_Fig1_Lepidotes_elvensis_4.78um.tif", 660, 580, 3},
		{"P1_Fig2_Polypterus_bichir_2.63um.tif", 700, 580, 3},
		{"P1_Fig3_Lepisosteus_osseus_3.79um.tif", 660, 510, 3},
		{"P1_Fig4_Atractosteus_simplex_7.07um.tif", 700, 510, 3},
		{"P1_Fig6_Lepisosteidae_indet_Bolivia_4.50um.tif", 700, 480, 3},
		{"P2_Fig1c_Paralepidosteus_sp_Acre_5.73um.tif", 355, 438, 3},
		{"P2_Fig1e_Polypterus_delhezi_2.19um.tif", 357, 219, 3},
		{"P2_Pl1_Fig1a_Lepisosteus_platostomus_5.38um.tif", 302, 302, 1},
		{"P3_Fig4_Obaichthys_laevis_5.0um.tif", 145, 167, 1},
	};
	for (size_t i = 0; i < sizeof figs / sizeof figs[0]; i++) {
		char path[512], err[256] = "";
		snprintf(path, sizeof path, "tests/fixtures/paper/%s", figs[i].name);
		fs_loaded l;
		if (fs_load_file(path, NULL, &l, err, sizeof err) != 0)
			fail_msg("%s: %s", figs[i].name, err);
		assert_int_equal(l.image->width, figs[i].w);
		assert_int_equal(l.image->height, figs[i].h);
		assert_int_equal(l.channels, figs[i].ch);
		assert_int_equal(l.bit_depth, 8);
		/* a real photograph: neither black nor white on average */
		double sum = 0;
		for (int k = 0; k < figs[i].w * figs[i].h; k++)
			sum += l.image->data[k];
		double mean = sum / (figs[i].w * figs[i].h);
		assert_true(mean > 0.2 && mean < 0.8);
		fs_loaded_free(&l);
	}
}

static void memory_and_file_loading_agree(void **state)
{
	(void)state;
	const char *path = "tests/fixtures/paper/P3_Fig4_Obaichthys_laevis_5.0um.tif";
	unsigned char *buf;
	size_t len;
	char err[256];
	assert_int_equal(fs_testimg_read(path, &buf, &len), 0);
	fs_loaded a, b;
	assert_int_equal(fs_load_file(path, NULL, &a, err, sizeof err), 0);
	assert_int_equal(fs_load_memory(buf, len, NULL, &b, err, sizeof err), 0);
	assert_int_equal(a.image->width, b.image->width);
	assert_memory_equal(a.image->data, b.image->data,
			    (size_t)a.image->width * a.image->height * sizeof(float));
	fs_loaded_free(&a);
	fs_loaded_free(&b);
	free(buf);
}

static void normalise_maps_range_and_zeroes_non_finite(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(4, 1);
	assert_non_null(img);
	img->data[0] = -2.0f;
	img->data[1] = NAN;
	img->data[2] = 6.0f;
	img->data[3] = INFINITY;
	fs_image_normalise(img);
	assert_true(img->data[0] == 0.0f);
	assert_true(img->data[1] == 0.0f);
	assert_true(img->data[2] == 1.0f);
	assert_true(img->data[3] == 0.0f);
	/* flat: no range, all 0 */
	for (int i = 0; i < 4; i++)
		img->data[i] = 3.0f;
	fs_image_normalise(img);
	assert_true(img->data[2] == 0.0f);
	fs_image_free(img);
}

/* fs_load_hand_over, the one-page loaders' last step: a decoded image
 * moves to the record with one page (the loader keeps nothing to free);
 * a failed decode says the loader's own reason first, else the library's
 * message after the format's name, else "cannot decode", and hands
 * nothing over. */
static void hand_over_moves_the_image_or_says_why(void **state)
{
	(void)state;
	char err[128] = "";
	fs_loaded out = {0};
	fs_image *img = fs_image_new(3, 2);
	assert_non_null(img);
	fs_image *was = img;
	assert_int_equal(fs_load_hand_over(0, "PNG", "", "", &img, &out, err, sizeof err), 0);
	assert_ptr_equal(out.image, was);
	assert_null(img);
	assert_int_equal(out.n_pages, 1);
	assert_string_equal(err, "");
	fs_loaded_free(&out);

	/* a header-only probe decodes no image: none handed over, still one page */
	fs_loaded probe = {0};
	assert_int_equal(fs_load_hand_over(0, "JPEG", "", "", &img, &probe, err, sizeof err), 0);
	assert_null(probe.image);
	assert_int_equal(probe.n_pages, 1);

	/* failures: the image stays with the loader, which frees it */
	fs_loaded none = {0};
	img = fs_image_new(1, 1);
	assert_non_null(img);
	assert_int_equal(fs_load_hand_over(-1, "PNG", "PNG: 3 x 0 pixels", "libpng's words", &img, &none, err,
					   sizeof err),
			 -1);
	assert_string_equal(err, "PNG: 3 x 0 pixels");
	assert_int_equal(fs_load_hand_over(-1, "JPEG", "", "Bogus marker length", &img, &none, err, sizeof err), -1);
	assert_string_equal(err, "JPEG: Bogus marker length");
	assert_int_equal(fs_load_hand_over(-1, "PNG", "", "", &img, &none, err, sizeof err), -1);
	assert_string_equal(err, "PNG: cannot decode");
	assert_non_null(img);
	assert_null(none.image);
	assert_int_equal(none.n_pages, 0);
	fs_image_free(img);
}

static void luma_of_white_is_exactly_one(void **state)
{
	(void)state;
	assert_true(fs_luma(1, 1, 1) == 1.0f);
	assert_true(fs_luma(0, 0, 0) == 0.0f);
	assert_float_equal(fs_luma(0, 1, 0), 0.587f, 1e-7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tiff_grey_integer_depths_load_exactly),
		cmocka_unit_test(tiff_16bit_keeps_values_above_255),
		cmocka_unit_test(tiff_float32_is_min_max_normalised),
		cmocka_unit_test(tiff_float64_is_min_max_normalised),
		cmocka_unit_test(tiff_signed16_is_offset_to_unsigned),
		cmocka_unit_test(tiff_min_is_white_is_inverted),
		cmocka_unit_test(tiff_rgb8_uses_bt601_luma),
		cmocka_unit_test(tiff_rgba8_ignores_alpha),
		cmocka_unit_test(tiff_rgb16_separate_planes),
		cmocka_unit_test(tiff_palette_looks_up_colour_map),
		cmocka_unit_test(tiff_old_8bit_colour_map_is_scaled_by_255),
		cmocka_unit_test(tiff_big_endian_16bit_loads_exactly),
		cmocka_unit_test(tiff_tiles_with_partial_edge_tiles),
		cmocka_unit_test(tiff_tiles_rgb_separate_planes),
		cmocka_unit_test(tiff_lossless_codecs_load_exactly),
		cmocka_unit_test(tiff_jpeg_grey_and_ycbcr_load_close),
		cmocka_unit_test(tiff_multipage_loads_first_page_by_default),
		cmocka_unit_test(tiff_multipage_loads_requested_page),
		cmocka_unit_test(tiff_page_out_of_range_fails),
		cmocka_unit_test(tiff_file_equals_memory_and_cut_file_fails),
		cmocka_unit_test(tiff_zeiss_pixel_size_is_suggested),
		cmocka_unit_test(tiff_fei_pixel_width_is_suggested),
		cmocka_unit_test(tiff_screen_dpi_is_not_a_calibration),
		cmocka_unit_test(tiff_fine_resolution_is_a_calibration),
		cmocka_unit_test(png_grey_depths_load_exactly),
		cmocka_unit_test(png_grey_alpha_ignores_alpha),
		cmocka_unit_test(png_rgb_and_rgba_use_bt601_luma),
		cmocka_unit_test(png_palette_with_trns_looks_up_colours),
		cmocka_unit_test(png_interlaced_tiny_images_load),
		cmocka_unit_test(png_phys_calibration_follows_the_dpi_rule),
		cmocka_unit_test(jpeg_grey_rgb_and_progressive_load_close),
		cmocka_unit_test(jpeg_cmyk_is_refused),
		cmocka_unit_test(jpeg_screen_density_is_not_a_calibration),
		cmocka_unit_test(sniff_recognises_magic_numbers),
		cmocka_unit_test(unknown_format_is_refused),
		cmocka_unit_test(missing_empty_and_directory_files_are_refused),
		cmocka_unit_test(page_on_png_is_refused),
		cmocka_unit_test(paper_tiffs_all_load_with_their_sizes),
		cmocka_unit_test(memory_and_file_loading_agree),
		cmocka_unit_test(normalise_maps_range_and_zeroes_non_finite),
		cmocka_unit_test(hand_over_moves_the_image_or_says_why),
		cmocka_unit_test(luma_of_white_is_exactly_one),
	};
	return cmocka_run_group_tests(tests, fs_testimg_dir_setup, fs_testimg_dir_teardown);
}
