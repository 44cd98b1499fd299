/*
 * Unit tests for the compact working image file: the precision is chosen
 * from the values (8 bits for k/255, 16 for k/65535, floats otherwise),
 * reading gives back the very floats written, the file of an 8-bit image is
 * a small fraction of the old float file, the old float format is still
 * read, and damaged files are refused with a message.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include <png.h>
#include <math.h>
#include <tiffio.h>
#include <zlib.h>

#include "image/image_io.h"
#include "store/work_file.h"
#include "store/image_files.h"
#include "testimg_write.h"

static char dir[128];

static int setup(void **state)
{
	(void)state;
	return fs_testimg_tmpdir(dir, sizeof dir);
}

static int teardown(void **state)
{
	(void)state;
	fs_testimg_rmdir(dir);
	return 0;
}

static const char *tpath(const char *name)
{
	static char p[256];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	return p;
}

static long long file_size(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 ? (long long)st.st_size : -1;
}

static fs_image *pattern(int w, int h, double levels)
{
	fs_image *img = fs_image_new(w, h);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			int k = (x * 7 + y * 13 + (x * y) % 5) % ((int)levels + 1);
			img->data[(size_t)y * w + x] = (float)(k / levels);
		}
	return img;
}

static void round_trip(fs_image *img, int want_bps)
{
	char err[256] = "";
	assert_int_equal(fs_work_precision(img), want_bps);
	assert_int_equal(fs_work_write(tpath("w.f32"), img, err, sizeof err), 0);
	int w, h, bps;
	assert_int_equal(fs_work_file_info(tpath("w.f32"), &w, &h, &bps, err, sizeof err), 0);
	assert_int_equal(w, img->width);
	assert_int_equal(h, img->height);
	assert_int_equal(bps, want_bps);
	fs_image *back = fs_work_read(tpath("w.f32"), err, sizeof err);
	assert_non_null(back);
	assert_memory_equal(back->data, img->data, sizeof(float) * (size_t)w * h);
	fs_image_free(back);
	/* read compact (image.h): 8 or 16 bits in their bytes, floats as floats;
	 * the same values, and written back, the same file */
	fs_image *c = fs_work_file_read_compact(tpath("w.f32"), err, sizeof err);
	assert_non_null(c);
	assert_int_equal(c->bits, want_bps < 4 ? 8 * want_bps : 0);
	float *row = malloc((size_t)w * sizeof *row);
	assert_non_null(row);
	for (int y = 0; y < h; y++)
		assert_memory_equal(fs_image_span(c, 0, y, w, row), img->data + (size_t)y * w, sizeof(float) * (size_t)w);
	free(row);
	assert_int_equal(fs_work_precision(c), want_bps);
	assert_int_equal(fs_work_write(tpath("c.f32"), c, err, sizeof err), 0);
	unsigned char *b1, *b2;
	size_t l1, l2;
	assert_int_equal(fs_testimg_read(tpath("w.f32"), &b1, &l1), 0);
	assert_int_equal(fs_testimg_read(tpath("c.f32"), &b2, &l2), 0);
	assert_int_equal(l1, l2);
	assert_memory_equal(b1, b2, l1);
	free(b1);
	free(b2);
	fs_image_free(c);
}

static void eight_bit_images_are_stored_in_eight_bits_exactly(void **state)
{
	(void)state;
	fs_image *img = pattern(300, 200, 255.0);
	round_trip(img, 1);
	/* 60,000 pixels: at most a byte each, far below the 240 KB of floats */
	assert_true(file_size(tpath("w.f32")) < 300 * 200 + 64);
	fs_image_free(img);
}

static void sixteen_bit_and_float_images_keep_every_bit(void **state)
{
	(void)state;
	fs_image *img = pattern(130, 70, 65535.0);
	round_trip(img, 2);
	img->data[5] = 0.123456789f; /* no longer k/65535: floats */
	round_trip(img, 4);
	img->data[5] = -0.5f;
	round_trip(img, 4);
	fs_image_free(img);
}

static void a_flat_large_image_takes_almost_nothing(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(4000, 2500); /* the all-zero "bomb" after decoding */
	round_trip(img, 1);
	assert_true(file_size(tpath("w.f32")) < 100000);
	fs_image_free(img);
}

static void the_old_float_format_is_still_read(void **state)
{
	(void)state;
	fs_image *img = pattern(33, 17, 1000.0);
	unsigned char buf[12 + 33 * 17 * 4];
	uint32_t hdr[2] = {33, 17};
	memcpy(buf, "FSW1", 4);
	memcpy(buf + 4, hdr, 8);
	memcpy(buf + 12, img->data, sizeof(float) * 33 * 17);
	assert_int_equal(fs_testimg_write_bytes(tpath("old.f32"), buf, sizeof buf), 0);
	char err[256];
	fs_image *back = fs_work_read(tpath("old.f32"), err, sizeof err);
	assert_non_null(back);
	assert_memory_equal(back->data, img->data, sizeof buf - 12);
	fs_image_free(back);
	fs_image_free(img);
}

/* Bands deflated by zlib (files written before libdeflate, at any level)
 * read as before; noise that does not deflate still round-trips (stored
 * blocks, within the reader's bound). */
static void zlib_bands_and_incompressible_ones_are_read(void **state)
{
	(void)state;
	enum { W = 97, H = 150, BAND = 64 };
	fs_image *img = fs_image_new(W, H);
	unsigned r = 7;
	for (int i = 0; i < W * H; i++) {
		r = r * 1103515245u + 12345u;
		img->data[i] = (float)(((r >> 16) & 255) / 255.0);
	}
	round_trip(img, 1); /* incompressible: libdeflate's stored blocks */
	unsigned char *file = malloc(4 + 16 + 3 * (4 + compressBound(BAND * W)));
	size_t len = 0;
	uint32_t hdr[4] = {W, H, 1, BAND};
	memcpy(file, "FSW2", 4);
	memcpy(file + 4, hdr, sizeof hdr);
	len = 20;
	unsigned char raw[BAND * W];
	for (int y = 0; y < H; y += BAND) {
		int rows = H - y < BAND ? H - y : BAND;
		for (int i = 0; i < rows * W; i++)
			raw[i] = (unsigned char)lrintf(img->data[(size_t)y * W + i] * 255.0f);
		uLongf zl = compressBound(BAND * W);
		assert_int_equal(compress2(file + len + 4, &zl, raw, (uLong)rows * W, 9), Z_OK);
		uint32_t l32 = (uint32_t)zl;
		memcpy(file + len, &l32, 4);
		len += 4 + zl;
	}
	assert_int_equal(fs_testimg_write_bytes(tpath("zlib.fsw"), file, len), 0);
	char err[256];
	fs_image *back = fs_work_read(tpath("zlib.fsw"), err, sizeof err);
	assert_non_null(back);
	assert_memory_equal(back->data, img->data, sizeof(float) * W * H);
	fs_image_free(back);
	free(file);
	fs_image_free(img);
}

static void damaged_files_are_refused(void **state)
{
	(void)state;
	fs_image *img = pattern(100, 100, 255.0);
	char err[256] = "";
	assert_int_equal(fs_work_write(tpath("d.f32"), img, err, sizeof err), 0);
	unsigned char *buf;
	size_t len;
	assert_int_equal(fs_testimg_read(tpath("d.f32"), &buf, &len), 0);
	/* cut short at several places, then a flipped byte inside the deflate stream */
	size_t cuts[] = {3, 10, 23, len / 2, len - 1};
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
		assert_int_equal(fs_testimg_write_bytes(tpath("d2.f32"), buf, cuts[i]), 0);
		err[0] = 0;
		assert_null(fs_work_read(tpath("d2.f32"), err, sizeof err));
		assert_non_null(strstr(err, "damaged"));
	}
	buf[len - 5] ^= 0x55;
	assert_int_equal(fs_testimg_write_bytes(tpath("d2.f32"), buf, len), 0);
	assert_null(fs_work_read(tpath("d2.f32"), err, sizeof err));
	/* every reader of the file: a header cut short is damaged, no file
	 * is missing (each opens the file and reads its header the same way) */
	int w, h, bps;
	double scale;
	for (int absent = 0; absent < 2; absent++) {
		const char *want = absent ? "missing" : "damaged";
		const char *name = absent ? "absent.f32" : "d2.f32";
		assert_int_equal(fs_testimg_write_bytes(tpath("d2.f32"), buf, 10), 0);
		err[0] = 0;
		assert_int_equal(fs_work_file_info(tpath(name), &w, &h, &bps, err, sizeof err), -1);
		assert_non_null(strstr(err, want));
		err[0] = 0;
		assert_null(fs_work_file_read_compact(tpath(name), err, sizeof err));
		assert_non_null(strstr(err, want));
		err[0] = 0;
		assert_null(fs_work_file_read_reduced(tpath(name), 16, &scale, err, sizeof err));
		assert_non_null(strstr(err, want));
	}
	free(buf);
	fs_image_free(img);
}

/* What the loaders make of 8- and 16-bit files is stored in 8 and 16 bits. */
static void loaded_images_keep_their_source_precision(void **state)
{
	(void)state;
	char err[256];
	fs_loaded l;
	fs_testimg_png p8 = {.width = 50, .height = 40, .bit_depth = 8, .color_type = PNG_COLOR_TYPE_GRAY};
	assert_int_equal(fs_testimg_write_png(tpath("a.png"), &p8), 0);
	assert_int_equal(fs_load_file(tpath("a.png"), NULL, &l, err, sizeof err), 0);
	assert_int_equal(fs_work_precision(l.image), 1);
	fs_loaded_free(&l);
	fs_testimg_png p16 = {.width = 50, .height = 40, .bit_depth = 16, .color_type = PNG_COLOR_TYPE_GRAY};
	assert_int_equal(fs_testimg_write_png(tpath("b.png"), &p16), 0);
	assert_int_equal(fs_load_file(tpath("b.png"), NULL, &l, err, sizeof err), 0);
	assert_int_equal(fs_work_precision(l.image), 2);
	round_trip(l.image, 2);
	fs_loaded_free(&l);
	fs_testimg_tiff t8 = {.width = 64, .height = 32, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK,
			      .compression = COMPRESSION_ADOBE_DEFLATE};
	assert_int_equal(fs_testimg_write_tiff(tpath("c.tif"), &t8), 0);
	assert_int_equal(fs_load_file(tpath("c.tif"), NULL, &l, err, sizeof err), 0);
	round_trip(l.image, 1);
	fs_loaded_free(&l);
}

/* The reduced read averages f x f blocks band by band (odd edges too),
 * from both formats, without the full image. */
static void reduced_read_averages_blocks(void **state)
{
	(void)state;
	fs_image *img = pattern(301, 199, 255.0);
	char err[256];
	assert_int_equal(fs_work_write(tpath("r.f32"), img, err, sizeof err), 0);
	double scale = 0;
	fs_image *small = fs_work_file_read_reduced(tpath("r.f32"), 100, &scale, err, sizeof err);
	assert_non_null(small);
	/* 301 / 100 -> factor 4: 76 x 50 */
	assert_int_equal(small->width, 76);
	assert_int_equal(small->height, 50);
	assert_true(scale == 0.25);
	for (int oy = 0; oy < small->height; oy += 7)
		for (int ox = 0; ox < small->width; ox += 5) {
			double sum = 0;
			int n = 0;
			for (int y = oy * 4; y < oy * 4 + 4 && y < 199; y++)
				for (int x = ox * 4; x < ox * 4 + 4 && x < 301; x++, n++)
					sum += img->data[(size_t)y * 301 + x];
			assert_float_equal(small->data[(size_t)oy * 76 + ox], sum / n, 1e-6);
		}
	fs_image_free(small);
	/* already small enough: the image itself */
	small = fs_work_file_read_reduced(tpath("r.f32"), 400, &scale, err, sizeof err);
	assert_non_null(small);
	assert_true(scale == 1.0 && small->width == 301);
	assert_memory_equal(small->data, img->data, sizeof(float) * 301 * 199);
	fs_image_free(small);
	fs_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(eight_bit_images_are_stored_in_eight_bits_exactly),
		cmocka_unit_test(sixteen_bit_and_float_images_keep_every_bit),
		cmocka_unit_test(a_flat_large_image_takes_almost_nothing),
		cmocka_unit_test(the_old_float_format_is_still_read),
		cmocka_unit_test(zlib_bands_and_incompressible_ones_are_read),
		cmocka_unit_test(damaged_files_are_refused),
		cmocka_unit_test(loaded_images_keep_their_source_precision),
		cmocka_unit_test(reduced_read_averages_blocks),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
