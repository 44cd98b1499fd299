/*
 * Transforms and display copies of compact images (issue 15 item 1,
 * image.h): a rotation or crop of an 8- or 16-bit compact image stays
 * compact and holds exactly the samples the float path gives, autocrop
 * finds the same rectangle (or refuses alike), and the display PNG is the
 * same bytes - on a paper figure, the SEM image (8 bit) and a 16-bit image
 * with a flat border. These are what the transform jobs and the import job
 * now run instead of the whole float image.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixture_image.h"
#include "image/image.h"
#include "image/image_io.h"
#include "image/image_transform.h"

#define PAPER "tests/fixtures/paper/P1_Fig1_Lepidotes_elvensis_4.78um.tif"
#define SEM "tests/fixtures/sem/M_kelleri_HLMD-Me_15576_ventral_detail.tif"

/* c (compact of bits) holds the floats of f, sample for sample. */
static void same_samples(const fs_image *c, const fs_image *f, int bits)
{
	assert_int_equal(c->bits, bits);
	assert_int_equal(f->bits, 0);
	assert_int_equal(c->width, f->width);
	assert_int_equal(c->height, f->height);
	float *buf = malloc((size_t)c->width * sizeof *buf);
	assert_non_null(buf);
	for (int y = 0; y < c->height; y++)
		assert_memory_equal(fs_image_span(c, 0, y, c->width, buf), f->data + (size_t)y * f->width,
				    (size_t)c->width * sizeof(float));
	free(buf);
}

static void same_transform(const fs_transform *a, const fs_transform *b)
{
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->src_width, b->src_width);
	assert_int_equal(a->src_height, b->src_height);
	assert_memory_equal(&a->rect, &b->rect, sizeof a->rect);
}

/* Every transform of compact c against the same on its float copy. */
static void compact_equals_float(const fs_image *c)
{
	char err[256];
	int bits = c->bits;
	assert_true(bits == 8 || bits == 16);
	fs_image *f = fs_image_to_float(c);
	assert_non_null(f);
	for (int k = FS_TRANSFORM_ROTATE_LEFT; k <= FS_TRANSFORM_ROTATE_RIGHT; k++) {
		fs_transform tc, tf;
		fs_image *rc = fs_image_rotate(c, (fs_transform_kind)k, &tc, err, sizeof err);
		fs_image *rf = fs_image_rotate(f, (fs_transform_kind)k, &tf, err, sizeof err);
		assert_non_null(rc);
		assert_non_null(rf);
		same_samples(rc, rf, bits);
		same_transform(&tc, &tf);
		fs_image_free(rc);
		fs_image_free(rf);
	}
	/* inside, and reaching past the bottom right corner (clamped) */
	fs_rect rects[2] = {{c->width / 5, c->height / 7, c->width / 2, c->height / 3},
			    {c->width / 3, c->height / 2, c->width, c->height}};
	for (int i = 0; i < 2; i++) {
		fs_transform tc, tf;
		fs_image *cc = fs_image_crop(c, rects[i], &tc, err, sizeof err);
		fs_image *cf = fs_image_crop(f, rects[i], &tf, err, sizeof err);
		assert_non_null(cc);
		assert_non_null(cf);
		same_samples(cc, cf, bits);
		same_transform(&tc, &tf);
		fs_image_free(cc);
		fs_image_free(cf);
	}
	fs_rect ac = {0}, af = {0};
	int dc = fs_image_autocrop_detect(c, &ac, err, sizeof err);
	int df = fs_image_autocrop_detect(f, &af, err, sizeof err);
	assert_int_equal(dc, df);
	assert_memory_equal(&ac, &af, sizeof ac);
	unsigned char *pc = NULL, *pf = NULL;
	size_t lc = 0, lf = 0;
	assert_int_equal(fs_png_encode_gray(c, &pc, &lc, err, sizeof err), 0);
	assert_int_equal(fs_png_encode_gray(f, &pf, &lf, err, sizeof err), 0);
	assert_int_equal(lc, lf);
	assert_memory_equal(pc, pf, lc);
	free(pc);
	free(pf);
	fs_image_free(f);
}

static void paper_figure(void **state)
{
	(void)state;
	fs_image *c = fixture_image_8bit(PAPER);
	assert_non_null(c);
	compact_equals_float(c);
	fs_image_free(c);
}

static void sem_image(void **state)
{
	(void)state;
	fs_image *c = fixture_image_8bit(SEM);
	assert_non_null(c);
	compact_equals_float(c);
	fs_image_free(c);
}

/* 16 bits over the whole range, a flat border of 23 px that autocrop
 * removes (it must crop, so both paths are compared on a real rectangle). */
static void sixteen_bit_with_a_border(void **state)
{
	(void)state;
	const int w = 301, h = 207;
	fs_image *c = fs_image_new_compact(w, h, 16);
	assert_non_null(c);
	unsigned short *px = c->px;
	uint32_t r = 7;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			r = r * 1664525u + 1013904223u;
			int inside = x >= 23 && y >= 23 && x < w - 23 && y < h - 23;
			px[(size_t)y * w + x] = (unsigned short)(inside ? r >> 16 : 4000);
		}
	char err[128];
	fs_rect a;
	assert_int_equal(fs_image_autocrop_detect(c, &a, err, sizeof err), 0);
	assert_int_equal(a.x, 23 - 5);
	assert_int_equal(a.y, 23 - 5);
	assert_int_equal(a.width, w - 2 * 23 + 2 * 5);
	assert_int_equal(a.height, h - 2 * 23 + 2 * 5);
	compact_equals_float(c);
	fs_image_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(paper_figure),
		cmocka_unit_test(sem_image),
		cmocka_unit_test(sixteen_bit_with_a_border),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
