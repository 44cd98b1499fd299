/* Unit tests for rotations, crops, autocrop and point mapping (image_transform.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "image/image.h"
#include "image/image_transform.h"

/* w x h image whose value at (x, y) encodes its position. */
static fs_image *numbered(int w, int h)
{
	fs_image *img = fs_image_new(w, h);
	assert_non_null(img);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			img->data[y * w + x] = (float)(y * 100 + x) / 10000.0f;
	return img;
}

static void check_points_follow_pixels(const fs_image *src, const fs_image *dst, const fs_transform *t)
{
	for (int y = 0; y < src->height; y++)
		for (int x = 0; x < src->width; x++) {
			double nx, ny, bx, by;
			fs_transform_point(t, x, y, &nx, &ny);
			if (nx < 0 || ny < 0 || nx >= dst->width || ny >= dst->height)
				continue; /* cropped away */
			assert_true(fs_image_at(dst, (int)nx, (int)ny) == fs_image_at(src, x, y));
			fs_transform_point_inverse(t, nx, ny, &bx, &by);
			assert_true(bx == x && by == y);
		}
}

static void rotate_left_moves_top_right_to_top_left(void **state)
{
	(void)state;
	fs_image *img = numbered(3, 2);
	fs_transform t;
	char err[128];
	fs_image *r = fs_image_rotate(img, FS_TRANSFORM_ROTATE_LEFT, &t, err, sizeof err);
	assert_non_null(r);
	assert_int_equal(r->width, 2);
	assert_int_equal(r->height, 3);
	/* counter-clockwise: the top-right source pixel (2,0) ends at the top-left */
	assert_true(fs_image_at(r, 0, 0) == fs_image_at(img, 2, 0));
	assert_true(fs_image_at(r, 1, 2) == fs_image_at(img, 0, 1));
	check_points_follow_pixels(img, r, &t);
	fs_image_free(r);
	fs_image_free(img);
}

static void rotate_right_moves_bottom_left_to_top_left(void **state)
{
	(void)state;
	fs_image *img = numbered(3, 2);
	fs_transform t;
	char err[128];
	fs_image *r = fs_image_rotate(img, FS_TRANSFORM_ROTATE_RIGHT, &t, err, sizeof err);
	assert_non_null(r);
	assert_int_equal(r->width, 2);
	assert_int_equal(r->height, 3);
	assert_true(fs_image_at(r, 0, 0) == fs_image_at(img, 0, 1));
	assert_true(fs_image_at(r, 1, 2) == fs_image_at(img, 2, 0));
	check_points_follow_pixels(img, r, &t);
	fs_image_free(r);
	fs_image_free(img);
}

static void rotate_left_then_right_is_identity(void **state)
{
	(void)state;
	fs_image *img = numbered(7, 4);
	char err[128];
	fs_image *a = fs_image_rotate(img, FS_TRANSFORM_ROTATE_LEFT, NULL, err, sizeof err);
	fs_image *b = fs_image_rotate(a, FS_TRANSFORM_ROTATE_RIGHT, NULL, err, sizeof err);
	assert_non_null(b);
	assert_int_equal(b->width, 7);
	assert_memory_equal(b->data, img->data, 7 * 4 * sizeof(float));
	fs_image_free(a);
	fs_image_free(b);
	fs_image_free(img);
}

static void rotate_refuses_a_crop_kind(void **state)
{
	(void)state;
	fs_image *img = numbered(2, 2);
	char err[128] = "";
	assert_null(fs_image_rotate(img, FS_TRANSFORM_CROP, NULL, err, sizeof err));
	assert_true(err[0] != '\0');
	assert_null(fs_image_rotate(NULL, FS_TRANSFORM_ROTATE_LEFT, NULL, err, sizeof err));
	fs_image_free(img);
}

static void crop_is_clamped_to_the_image(void **state)
{
	(void)state;
	fs_image *img = numbered(10, 8);
	fs_transform t;
	char err[128];
	fs_image *c = fs_image_crop(img, (fs_rect){-3, 5, 6, 100}, &t, err, sizeof err);
	assert_non_null(c);
	assert_int_equal(t.rect.x, 0);
	assert_int_equal(t.rect.y, 5);
	assert_int_equal(t.rect.width, 3);
	assert_int_equal(t.rect.height, 3);
	assert_int_equal(c->width, 3);
	assert_int_equal(c->height, 3);
	check_points_follow_pixels(img, c, &t);
	fs_image_free(c);
	fs_image_free(img);
}

static void crop_outside_the_image_fails(void **state)
{
	(void)state;
	fs_image *img = numbered(10, 8);
	char err[128] = "";
	assert_null(fs_image_crop(img, (fs_rect){10, 0, 5, 5}, NULL, err, sizeof err));
	assert_non_null(strstr(err, "outside"));
	assert_null(fs_image_crop(img, (fs_rect){2, 2, 0, 5}, NULL, err, sizeof err));
	assert_null(fs_image_crop(img, (fs_rect){2147483600, 2147483600, 2147483600, 100}, NULL, err, sizeof err));
	fs_image_free(img);
}

/* Flat grey w x h with a checkerboard block at (bx, by), bw x bh. */
static fs_image *framed(int w, int h, int bx, int by, int bw, int bh)
{
	fs_image *img = fs_image_new(w, h);
	assert_non_null(img);
	for (int i = 0; i < w * h; i++)
		img->data[i] = 0.5f;
	for (int y = by; y < by + bh; y++)
		for (int x = bx; x < bx + bw; x++)
			img->data[y * w + x] = ((x + y) & 1) ? 0.9f : 0.1f;
	return img;
}

static void autocrop_keeps_content_padded_by_five(void **state)
{
	(void)state;
	fs_image *img = framed(50, 40, 20, 15, 10, 8);
	fs_rect r;
	char err[128];
	assert_int_equal(fs_image_autocrop_detect(img, &r, err, sizeof err), 0);
	assert_int_equal(r.x, 15);
	assert_int_equal(r.y, 10);
	assert_int_equal(r.width, 20);
	assert_int_equal(r.height, 18);
	fs_image_free(img);
}

static void autocrop_padding_is_clamped(void **state)
{
	(void)state;
	fs_image *img = framed(50, 40, 2, 1, 10, 8);
	fs_rect r;
	char err[128];
	assert_int_equal(fs_image_autocrop_detect(img, &r, err, sizeof err), 0);
	assert_int_equal(r.x, 0);
	assert_int_equal(r.y, 0);
	assert_int_equal(r.width, 17);
	assert_int_equal(r.height, 14);
	fs_image_free(img);
}

static void autocrop_of_a_flat_image_has_nothing_to_crop(void **state)
{
	(void)state;
	fs_image *img = framed(20, 20, 0, 0, 0, 0);
	fs_rect r;
	char err[128] = "";
	assert_int_equal(fs_image_autocrop_detect(img, &r, err, sizeof err), 1);
	assert_non_null(strstr(err, "nothing to crop"));
	fs_image_free(img);
}

static void autocrop_with_content_at_every_edge_has_nothing_to_crop(void **state)
{
	(void)state;
	fs_image *img = framed(20, 20, 3, 3, 14, 14);
	fs_rect r;
	char err[128] = "";
	assert_int_equal(fs_image_autocrop_detect(img, &r, err, sizeof err), 1);
	fs_image_free(img);
}

static void autocrop_threshold_is_variance_above_ten(void **state)
{
	(void)state;
	/*
	 * A 10x10 checkerboard of 100 and 100+s (8-bit) in a flat 40x40 field of
	 * 100: each row and column through it has variance 7 s^2 / 64, which is
	 * 8.86 for s = 9 (not content) and 10.94 for s = 10 (content).
	 */
	for (int s = 9; s <= 10; s++) {
		fs_image *img = fs_image_new(40, 40);
		assert_non_null(img);
		for (int i = 0; i < 40 * 40; i++)
			img->data[i] = 100 / 255.0f;
		for (int y = 15; y < 25; y++)
			for (int x = 15; x < 25; x++)
				img->data[y * 40 + x] = (100 + ((x + y) & 1) * s) / 255.0f;
		fs_rect r;
		char err[128];
		int rc = fs_image_autocrop_detect(img, &r, err, sizeof err);
		assert_int_equal(rc, s == 9 ? 1 : 0);
		if (rc == 0) {
			assert_int_equal(r.x, 10);
			assert_int_equal(r.width, 20);
		}
		fs_image_free(img);
	}
	assert_int_equal(fs_image_autocrop_detect(NULL, NULL, NULL, 0), -1);
}

/* A chain's one map agrees with moving a point step by step, and its
 * inverse brings whole pixels back exactly. */
static void affine_of_a_chain_matches_the_steps(void **state)
{
	(void)state;
	fs_transform steps[4] = {
		{FS_TRANSFORM_ROTATE_RIGHT, 200, 100, {0, 0, 100, 200}},
		{FS_TRANSFORM_CROP, 100, 200, {10, 30, 60, 120}},
		{FS_TRANSFORM_ROTATE_LEFT, 60, 120, {0, 0, 120, 60}},
		{FS_TRANSFORM_ROTATE_LEFT, 120, 60, {0, 0, 60, 120}},
	};
	fs_affine a, inv;
	fs_affine_of_steps(steps, 0, 4, &a);
	fs_affine_invert(&a, &inv);
	assert_int_equal(a.quarter_turns_left, (3 + 1 + 1) % 4);
	for (int y = 0; y < 100; y += 7)
		for (int x = 0; x < 200; x += 9) {
			double px = x + 0.25, py = y + 0.5, sx = px, sy = py;
			for (int i = 0; i < 4; i++)
				fs_transform_point(&steps[i], sx, sy, &sx, &sy);
			double mx, my, bx, by;
			fs_affine_apply(&a, px, py, &mx, &my);
			assert_true(mx == sx && my == sy);
			fs_affine_apply(&a, x, y, &mx, &my);
			fs_affine_apply(&inv, mx, my, &bx, &by);
			assert_true(bx == x && by == y);
		}
	fs_affine id;
	fs_affine_of_steps(steps, 2, 2, &id);
	assert_true(fs_affine_is_identity(&id));
	/* a left turn then a right one is no turn at all */
	fs_transform lr[2] = {{FS_TRANSFORM_ROTATE_LEFT, 40, 30, {0, 0, 30, 40}},
			      {FS_TRANSFORM_ROTATE_RIGHT, 30, 40, {0, 0, 40, 30}}};
	fs_affine_of_steps(lr, 0, 2, &id);
	assert_true(fs_affine_is_identity(&id));
	/* orientations turn with the image, modulo pi */
	fs_affine_of_steps(steps, 0, 1, &a);
	assert_true(fabs(fs_affine_angle(&a, 0.3) - (0.3 - M_PI / 2)) < 1e-12);
	fs_affine_invert(&a, &inv);
	assert_true(fabs(fs_affine_angle(&inv, fs_affine_angle(&a, 0.3)) - 0.3) < 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(affine_of_a_chain_matches_the_steps),
		cmocka_unit_test(rotate_left_moves_top_right_to_top_left),
		cmocka_unit_test(rotate_right_moves_bottom_left_to_top_left),
		cmocka_unit_test(rotate_left_then_right_is_identity),
		cmocka_unit_test(rotate_refuses_a_crop_kind),
		cmocka_unit_test(crop_is_clamped_to_the_image),
		cmocka_unit_test(crop_outside_the_image_fails),
		cmocka_unit_test(autocrop_keeps_content_padded_by_five),
		cmocka_unit_test(autocrop_padding_is_clamped),
		cmocka_unit_test(autocrop_of_a_flat_image_has_nothing_to_crop),
		cmocka_unit_test(autocrop_with_content_at_every_edge_has_nothing_to_crop),
		cmocka_unit_test(autocrop_threshold_is_variance_above_ten),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
