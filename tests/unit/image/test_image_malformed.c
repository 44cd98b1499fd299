/*
 * Unit tests for hostile and broken image files: truncated at every offset,
 * lying headers, zero and huge sizes, unsupported layouts, random byte
 * corruption. Each must give -1 with a message, no image, nothing printed,
 * and (under ASan) no leak and no huge allocation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <cmocka.h>

#include <png.h>
#include <tiffio.h>

#include "image/image_io.h"
#include "testimg_write.h"


static void tiff_bytes(const fs_testimg_tiff *s, unsigned char **buf, size_t *len)
{
	assert_int_equal(fs_testimg_write_tiff(fs_testimg_path("m.tif"), s), 0);
	assert_int_equal(fs_testimg_read(fs_testimg_path("m.tif"), buf, len), 0);
}

static void png_bytes(const fs_testimg_png *s, unsigned char **buf, size_t *len)
{
	assert_int_equal(fs_testimg_write_png(fs_testimg_path("m.png"), s), 0);
	assert_int_equal(fs_testimg_read(fs_testimg_path("m.png"), buf, len), 0);
}

static void jpeg_bytes(const fs_testimg_jpeg *s, unsigned char **buf, size_t *len)
{
	assert_int_equal(fs_testimg_write_jpeg(fs_testimg_path("m.jpg"), s), 0);
	assert_int_equal(fs_testimg_read(fs_testimg_path("m.jpg"), buf, len), 0);
}

/* Asserts that loading buf fails cleanly with a message (containing want, if given). */
static void expect_refused(const unsigned char *buf, size_t len, long max_pixels, const char *want)
{
	fs_load_opts o = {.max_pixels = max_pixels, .page = 0};
	fs_loaded l;
	char err[256] = "";
	int rc = fs_load_memory(buf, len, &o, &l, err, sizeof err);
	if (rc != -1) {
		fs_loaded_free(&l);
		fail_msg("loaded %zu bytes that should be refused", len);
	}
	assert_null(l.image);
	assert_true(err[0] != '\0');
	if (want && !strstr(err, want))
		fail_msg("message \"%s\" lacks \"%s\"", err, want);
}

/* Little-endian classic TIFF: sets the first value of a tag in directory
 * number page (0 = first). */
static void tiff_set_tag_page(unsigned char *b, size_t len, int page, uint16_t tag, uint32_t value)
{
	assert_true(b[0] == 'I');
	uint32_t ifd = b[4] | b[5] << 8 | b[6] << 16 | (uint32_t)b[7] << 24;
	for (int p = 0; p < page; p++) {
		assert_true(ifd + 2 <= len);
		unsigned n = b[ifd] | b[ifd + 1] << 8;
		const unsigned char *nx = b + ifd + 2 + 12 * n;
		assert_true((size_t)(nx + 4 - b) <= len);
		ifd = nx[0] | nx[1] << 8 | nx[2] << 16 | (uint32_t)nx[3] << 24;
	}
	assert_true(ifd + 2 <= len);
	unsigned n = b[ifd] | b[ifd + 1] << 8;
	for (unsigned i = 0; i < n; i++) {
		unsigned char *e = b + ifd + 2 + 12 * i;
		assert_true((size_t)(e + 12 - b) <= len);
		if ((e[0] | e[1] << 8) != tag)
			continue;
		unsigned type = e[2] | e[3] << 8;
		if (type == TIFF_SHORT) {
			e[8] = (unsigned char)value;
			e[9] = (unsigned char)(value >> 8);
		} else {
			for (int k = 0; k < 4; k++)
				e[8 + k] = (unsigned char)(value >> (8 * k));
		}
		return;
	}
	fail_msg("tag %u not found on page %d", tag, page);
}

/* The same in the first directory. */
static void tiff_set_tag(unsigned char *b, size_t len, uint16_t tag, uint32_t value)
{
	tiff_set_tag_page(b, len, 0, tag, value);
}

static uint32_t crc32_of(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
	}
	return ~c;
}

/* Sets IHDR width/height of a PNG and fixes the chunk CRC so only the size lies. */
static void png_set_size(unsigned char *b, uint32_t w, uint32_t h)
{
	unsigned char *d = b + 16; /* signature 8, length 4, "IHDR" 4 */
	for (int k = 0; k < 4; k++) {
		d[k] = (unsigned char)(w >> (24 - 8 * k));
		d[4 + k] = (unsigned char)(h >> (24 - 8 * k));
	}
	uint32_t c = crc32_of(b + 12, 17);
	for (int k = 0; k < 4; k++)
		b[29 + k] = (unsigned char)(c >> (24 - 8 * k));
}

static void jpeg_set_size(unsigned char *b, size_t len, unsigned w, unsigned h)
{
	for (size_t i = 2; i + 9 < len; i++) {
		if (b[i] == 0xff && (b[i + 1] == 0xc0 || b[i + 1] == 0xc2)) {
			b[i + 5] = (unsigned char)(h >> 8);
			b[i + 6] = (unsigned char)h;
			b[i + 7] = (unsigned char)(w >> 8);
			b[i + 8] = (unsigned char)w;
			return;
		}
	}
	fail_msg("no SOF marker");
}

static void truncated_tiffs_are_refused_at_every_offset(void **state)
{
	(void)state;
	fs_testimg_tiff specs[] = {
		{.width = 24, .height = 20, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK,
		 .compression = COMPRESSION_LZW, .rows_per_strip = 4},
		{.width = 20, .height = 20, .bps = 16, .photometric = PHOTOMETRIC_MINISBLACK, .tile = 16},
		{.width = 10, .height = 6, .bps = 8, .spp = 3, .photometric = PHOTOMETRIC_RGB},
	};
	for (size_t s = 0; s < 3; s++) {
		unsigned char *buf;
		size_t len;
		tiff_bytes(&specs[s], &buf, &len);
		for (size_t n = 0; n < len; n++)
			expect_refused(buf, n, 0, NULL);
		free(buf);
	}
}

static void truncated_pngs_are_refused_before_iend(void **state)
{
	(void)state;
	for (int il = 0; il < 2; il++) {
		fs_testimg_png s = {.width = 21, .height = 13, .bit_depth = 8, .color_type = PNG_COLOR_TYPE_RGB,
				    .interlace = il};
		unsigned char *buf;
		size_t len;
		png_bytes(&s, &buf, &len);
		/* Only the 12-byte IEND may go missing: every pixel is there. */
		for (size_t n = 0; n + 12 < len; n++)
			expect_refused(buf, n, 0, NULL);
		free(buf);
	}
}

static void truncated_jpegs_are_refused_at_every_offset(void **state)
{
	(void)state;
	for (int p = 0; p < 2; p++) {
		fs_testimg_jpeg s = {.width = 24, .height = 16, .components = 3, .progressive = p, .quality = 80};
		unsigned char *buf;
		size_t len;
		jpeg_bytes(&s, &buf, &len);
		for (size_t n = 0; n < len; n++)
			expect_refused(buf, n, 0, NULL);
		free(buf);
	}
}

static void zero_sized_images_are_refused(void **state)
{
	(void)state;
	unsigned char *buf;
	size_t len;
	fs_testimg_tiff t = {.width = 8, .height = 8, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK};
	tiff_bytes(&t, &buf, &len);
	tiff_set_tag(buf, len, TIFFTAG_IMAGEWIDTH, 0);
	expect_refused(buf, len, 0, NULL);
	free(buf);

	fs_testimg_png p = {.width = 8, .height = 8, .bit_depth = 8, .color_type = PNG_COLOR_TYPE_GRAY};
	png_bytes(&p, &buf, &len);
	png_set_size(buf, 8, 0);
	expect_refused(buf, len, 0, NULL);
	free(buf);

	fs_testimg_jpeg j = {.width = 8, .height = 8, .components = 1};
	jpeg_bytes(&j, &buf, &len);
	jpeg_set_size(buf, len, 0, 8);
	expect_refused(buf, len, 0, NULL);
	free(buf);
}

static void huge_header_sizes_are_refused_before_allocating(void **state)
{
	(void)state;
	unsigned char *buf;
	size_t len;
	fs_testimg_tiff t = {.width = 8, .height = 8, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK};
	tiff_bytes(&t, &buf, &len);
	tiff_set_tag(buf, len, TIFFTAG_IMAGEWIDTH, 1000000);
	tiff_set_tag(buf, len, TIFFTAG_IMAGELENGTH, 1000000);
	expect_refused(buf, len, 0, NULL);
	free(buf);

	fs_testimg_png p = {.width = 8, .height = 8, .bit_depth = 16, .color_type = PNG_COLOR_TYPE_RGB};
	png_bytes(&p, &buf, &len);
	png_set_size(buf, 200000, 200000);
	expect_refused(buf, len, 0, NULL);
	png_set_size(buf, 20000, 20000); /* within libpng's own limits: ours must catch it */
	expect_refused(buf, len, 0, "too large");
	free(buf);

	fs_testimg_jpeg j = {.width = 8, .height = 8, .components = 3};
	jpeg_bytes(&j, &buf, &len);
	jpeg_set_size(buf, len, 65000, 65000);
	expect_refused(buf, len, 0, "too large");
	free(buf);
}

static void max_pixels_option_is_enforced(void **state)
{
	(void)state;
	unsigned char *buf;
	size_t len;
	fs_testimg_tiff t = {.width = 40, .height = 40, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK};
	tiff_bytes(&t, &buf, &len);
	expect_refused(buf, len, 1599, "too large");
	fs_load_opts o = {.max_pixels = 1600, .page = 0};
	fs_loaded l;
	char err[256];
	assert_int_equal(fs_load_memory(buf, len, &o, &l, err, sizeof err), 0);
	fs_loaded_free(&l);
	free(buf);
}

/* Asserts that the header-only probe refuses buf as well, with want in the message. */
static void expect_probe_refused(const unsigned char *buf, size_t len, int page, const char *want)
{
	fs_load_opts o = {.max_pixels = 0, .page = page};
	fs_loaded l;
	char err[256] = "";
	assert_int_equal(fs_probe_memory(buf, len, &o, &l, err, sizeof err), -1);
	assert_null(l.image);
	if (!strstr(err, want))
		fail_msg("probe message \"%s\" lacks \"%s\"", err, want);
}

/*
 * Decompression bombs of 100000 x 100000 pixels (40 GB as floats): refused
 * from the header, before decoding, by the loader and by the probe. The
 * message says "refused before decoding", which only the size check made
 * before the image is allocated writes (an attempted allocation would fail
 * with "out of memory" instead).
 */
static void bomb_png_and_tiff_of_100000_squared_are_refused_before_allocating(void **state)
{
	(void)state;
	unsigned char *buf;
	size_t len;
	fs_testimg_png p = {.width = 8, .height = 8, .bit_depth = 8, .color_type = PNG_COLOR_TYPE_GRAY};
	png_bytes(&p, &buf, &len);
	png_set_size(buf, 100000, 100000);
	expect_refused(buf, len, 0, "refused before decoding");
	expect_probe_refused(buf, len, 0, "100000 x 100000");
	free(buf);

	fs_testimg_tiff t = {.width = 8, .height = 8, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK,
			     .compression = COMPRESSION_ADOBE_DEFLATE};
	tiff_bytes(&t, &buf, &len);
	tiff_set_tag(buf, len, TIFFTAG_IMAGEWIDTH, 100000);
	tiff_set_tag(buf, len, TIFFTAG_IMAGELENGTH, 100000);
	expect_refused(buf, len, 0, "refused before decoding");
	expect_probe_refused(buf, len, 0, "refused before decoding");
	free(buf);

	/* tiled: the image size counts, not the tile's */
	fs_testimg_tiff tt = {.width = 32, .height = 32, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK,
			      .tile = 16, .compression = COMPRESSION_ADOBE_DEFLATE};
	tiff_bytes(&tt, &buf, &len);
	tiff_set_tag(buf, len, TIFFTAG_IMAGEWIDTH, 100000);
	tiff_set_tag(buf, len, TIFFTAG_IMAGELENGTH, 100000);
	expect_refused(buf, len, 0, NULL);
	expect_probe_refused(buf, len, 0, "TIFF");
	free(buf);
}

/* A multi-page TIFF is checked on the page asked for: a small first page
 * does not let a bomb on the second through, and the bomb does not stop
 * the first page from loading. */
static void multi_page_tiff_checks_the_page_asked_for(void **state)
{
	(void)state;
	unsigned char *buf;
	size_t len;
	fs_testimg_tiff t = {.width = 8, .height = 8, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK, .pages = 2};
	tiff_bytes(&t, &buf, &len);
	/* 16-bit fields in this writer's second page: 60000 is the largest that fits */
	tiff_set_tag_page(buf, len, 1, TIFFTAG_IMAGEWIDTH, 60000);
	tiff_set_tag_page(buf, len, 1, TIFFTAG_IMAGELENGTH, 60000);
	fs_load_opts o = {.max_pixels = 0, .page = 1};
	fs_loaded l;
	char err[256] = "";
	assert_int_equal(fs_load_memory(buf, len, &o, &l, err, sizeof err), -1);
	assert_non_null(strstr(err, "refused before decoding"));
	expect_probe_refused(buf, len, 1, "60000 x 60000");
	o.page = 0;
	assert_int_equal(fs_probe_memory(buf, len, &o, &l, err, sizeof err), 0);
	assert_null(l.image);
	assert_int_equal(l.width, 8);
	assert_int_equal(l.n_pages, 2);
	assert_int_equal(fs_load_memory(buf, len, &o, &l, err, sizeof err), 0);
	assert_int_equal(l.image->width, 8);
	fs_loaded_free(&l);
	free(buf);
}

/*
 * The fuzzer's case: a tile of 1024 x 1024 pixels is within the pixel caps,
 * but 1000 samples of 64 bits each make it 8.4 GB to decode. The cap is in
 * bytes, so it is refused without trying to allocate the block.
 */
static void tiff_tile_cap_is_in_bytes(void **state)
{
	(void)state;
	unsigned char *buf;
	size_t len;
	fs_testimg_tiff t = {.width = 16, .height = 16, .bps = 64, .sample_format = SAMPLEFORMAT_IEEEFP,
			     .photometric = PHOTOMETRIC_MINISBLACK, .tile = 16};
	tiff_bytes(&t, &buf, &len);
	tiff_set_tag(buf, len, TIFFTAG_TILEWIDTH, 1024);
	tiff_set_tag(buf, len, TIFFTAG_TILELENGTH, 1024);
	tiff_set_tag(buf, len, TIFFTAG_SAMPLESPERPIXEL, 1000);
	expect_refused(buf, len, 0, NULL);
	fs_load_opts o = {.max_pixels = 0, .page = 0};
	fs_loaded l;
	char err[256] = "";
	assert_int_equal(fs_load_memory(buf, len, &o, &l, err, sizeof err), -1);
	if (strstr(err, "out of memory"))
		fail_msg("tried to allocate: %s", err);
	print_message("tile bomb: %s\n", err);
	free(buf);
}

/* One strip larger than the block cap (a whole 72 MB image in one deflate
 * strip) is read row by row, with the same pixels as small strips give.
 * Written at deflate's level 1: the reader's path is the same for any
 * level, and writing 2 x 72 MB at libtiff's default level was nearly all
 * of the binary's 13 CPU seconds (zlib's match search, perf). */
static void tiff_huge_single_strip_is_read_row_by_row(void **state)
{
	(void)state;
	unsigned char *a, *b;
	size_t la, lb;
	fs_testimg_tiff t = {.width = 1750, .height = 1800, .bps = 64, .sample_format = SAMPLEFORMAT_IEEEFP,
			     .spp = 3, .photometric = PHOTOMETRIC_RGB, .compression = COMPRESSION_ADOBE_DEFLATE,
			     .rows_per_strip = 1800, .zip_level = 1};
	tiff_bytes(&t, &a, &la);
	t.rows_per_strip = 16;
	tiff_bytes(&t, &b, &lb);
	fs_loaded x, y;
	char err[256] = "";
	assert_int_equal(fs_load_memory(a, la, NULL, &x, err, sizeof err), 0);
	assert_int_equal(fs_load_memory(b, lb, NULL, &y, err, sizeof err), 0);
	assert_int_equal(x.image->width, 1750);
	assert_memory_equal(x.image->data, y.image->data, sizeof(float) * 1750 * 1800);
	fs_loaded_free(&x);
	fs_loaded_free(&y);
	free(a);
	free(b);
}

static void tiff_strip_offset_past_the_end_is_refused(void **state)
{
	(void)state;
	unsigned char *buf;
	size_t len;
	fs_testimg_tiff t = {.width = 16, .height = 4, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK,
			     .rows_per_strip = 4};
	tiff_bytes(&t, &buf, &len);
	tiff_set_tag(buf, len, TIFFTAG_STRIPOFFSETS, 0x7ffffff0u);
	expect_refused(buf, len, 0, "strip");
	free(buf);
}

static void tiff_unsupported_layouts_are_refused(void **state)
{
	(void)state;
	unsigned char *buf;
	size_t len;
	fs_testimg_tiff cmyk = {.width = 8, .height = 8, .bps = 8, .spp = 4, .photometric = PHOTOMETRIC_SEPARATED};
	tiff_bytes(&cmyk, &buf, &len);
	expect_refused(buf, len, 0, "not supported");
	free(buf);

	fs_testimg_tiff g = {.width = 8, .height = 8, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK};
	tiff_bytes(&g, &buf, &len);
	tiff_set_tag(buf, len, TIFFTAG_BITSPERSAMPLE, 12);
	expect_refused(buf, len, 0, "not supported");
	free(buf);

	tiff_bytes(&g, &buf, &len);
	tiff_set_tag(buf, len, TIFFTAG_COMPRESSION, 12345);
	expect_refused(buf, len, 0, NULL);
	free(buf);
}

static void wrong_magic_is_refused(void **state)
{
	(void)state;
	unsigned char *buf;
	size_t len;
	fs_testimg_tiff g = {.width = 8, .height = 8, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK};
	tiff_bytes(&g, &buf, &len);
	buf[2] = 'X';
	expect_refused(buf, len, 0, "not a TIFF, PNG or JPEG");
	free(buf);
}

static void png_bad_crc_is_refused(void **state)
{
	(void)state;
	unsigned char *buf;
	size_t len;
	fs_testimg_png p = {.width = 8, .height = 8, .bit_depth = 8, .color_type = PNG_COLOR_TYPE_GRAY};
	png_bytes(&p, &buf, &len);
	buf[24] ^= 0x01; /* IHDR bit depth byte, CRC left as it was */
	expect_refused(buf, len, 0, "PNG");
	free(buf);
}

/* Deterministic xorshift so the corruption test is the same on every run. */
static uint32_t next_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void mutate_and_load(const unsigned char *orig, size_t len, uint32_t *seed, int rounds)
{
	unsigned char *b = malloc(len);
	assert_non_null(b);
	for (int r = 0; r < rounds; r++) {
		memcpy(b, orig, len);
		int flips = 1 + (int)(next_rand(seed) % 4);
		for (int k = 0; k < flips; k++)
			b[next_rand(seed) % len] = (unsigned char)next_rand(seed);
		fs_load_opts o = {.max_pixels = 1 << 16, .page = 0};
		fs_loaded l;
		char err[256] = "";
		int rc = fs_load_memory(b, len, &o, &l, err, sizeof err);
		if (rc == 0) {
			assert_non_null(l.image);
			fs_loaded_free(&l);
		} else {
			assert_int_equal(rc, -1);
			assert_null(l.image);
			assert_true(err[0] != '\0');
		}
	}
	free(b);
}

static void random_corruption_gives_an_image_or_a_message(void **state)
{
	(void)state;
	uint32_t seed = 0x12345678u;
	unsigned char *buf;
	size_t len;
	fs_testimg_tiff t = {.width = 16, .height = 12, .bps = 8, .spp = 3, .photometric = PHOTOMETRIC_RGB,
			     .compression = COMPRESSION_LZW, .rows_per_strip = 4};
	tiff_bytes(&t, &buf, &len);
	mutate_and_load(buf, len, &seed, 300);
	free(buf);
	fs_testimg_png p = {.width = 16, .height = 12, .bit_depth = 4, .color_type = PNG_COLOR_TYPE_PALETTE,
			    .interlace = 1, .trns = 1};
	png_bytes(&p, &buf, &len);
	mutate_and_load(buf, len, &seed, 300);
	free(buf);
	fs_testimg_jpeg j = {.width = 16, .height = 12, .components = 3, .progressive = 1};
	jpeg_bytes(&j, &buf, &len);
	mutate_and_load(buf, len, &seed, 300);
	free(buf);
}

static void broken_files_print_nothing(void **state)
{
	(void)state;
	unsigned char *t, *p, *j;
	size_t tl, pl, jl;
	fs_testimg_tiff ts = {.width = 8, .height = 8, .bps = 8, .photometric = PHOTOMETRIC_MINISBLACK};
	fs_testimg_png ps = {.width = 8, .height = 8, .bit_depth = 8, .color_type = PNG_COLOR_TYPE_GRAY};
	fs_testimg_jpeg js = {.width = 8, .height = 8, .components = 1};
	tiff_bytes(&ts, &t, &tl);
	png_bytes(&ps, &p, &pl);
	jpeg_bytes(&js, &j, &jl);

	fflush(stdout);
	fflush(stderr);
	int log = open(fs_testimg_path("stderr.log"), O_CREAT | O_TRUNC | O_WRONLY, 0600);
	assert_true(log >= 0);
	int save_out = dup(1), save_err = dup(2);
	dup2(log, 1);
	dup2(log, 2);
	fs_loaded l;
	char err[256];
	int refused = 0;
	refused += fs_load_memory(t, tl / 2, NULL, &l, err, sizeof err) == -1;
	refused += fs_load_memory(p, pl / 2, NULL, &l, err, sizeof err) == -1;
	refused += fs_load_memory(j, jl / 2, NULL, &l, err, sizeof err) == -1;
	p[24] ^= 1;
	refused += fs_load_memory(p, pl, NULL, &l, err, sizeof err) == -1;
	j[jl / 2] ^= 0xff;
	j[jl / 2 + 1] = 0xff;
	if (fs_load_memory(j, jl, NULL, &l, err, sizeof err) == 0)
		fs_loaded_free(&l);
	fflush(stdout);
	fflush(stderr);
	dup2(save_out, 1);
	dup2(save_err, 2);
	close(save_out);
	close(save_err);
	off_t size = lseek(log, 0, SEEK_END);
	close(log);
	free(t);
	free(p);
	free(j);
	assert_int_equal(refused, 4);
	assert_int_equal(size, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(truncated_tiffs_are_refused_at_every_offset),
		cmocka_unit_test(truncated_pngs_are_refused_before_iend),
		cmocka_unit_test(truncated_jpegs_are_refused_at_every_offset),
		cmocka_unit_test(zero_sized_images_are_refused),
		cmocka_unit_test(huge_header_sizes_are_refused_before_allocating),
		cmocka_unit_test(max_pixels_option_is_enforced),
		cmocka_unit_test(bomb_png_and_tiff_of_100000_squared_are_refused_before_allocating),
		cmocka_unit_test(multi_page_tiff_checks_the_page_asked_for),
		cmocka_unit_test(tiff_tile_cap_is_in_bytes),
		cmocka_unit_test(tiff_huge_single_strip_is_read_row_by_row),
		cmocka_unit_test(tiff_strip_offset_past_the_end_is_refused),
		cmocka_unit_test(tiff_unsupported_layouts_are_refused),
		cmocka_unit_test(wrong_magic_is_refused),
		cmocka_unit_test(png_bad_crc_is_refused),
		cmocka_unit_test(random_corruption_gives_an_image_or_a_message),
		cmocka_unit_test(broken_files_print_nothing),
	};
	return cmocka_run_group_tests(tests, fs_testimg_dir_setup, fs_testimg_dir_teardown);
}
