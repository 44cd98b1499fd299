/* Unit test (issue 15, h22b): the Gaussian blur read tile by tile
 * (analysis/blur_tiles.h) has the whole image's blurred values around every
 * point, from a float or a compact source, keeps a row of tiles and one
 * more, and below whole_max is the whole image's blur
 * itself at origin 0, 0. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/blur_tiles.h"
#include "analysis/preprocess.h"
#include "image/image.h"

/* An 8-bit compact image of discs on a gradient with noise: structure at
 * every scale the blur touches. */
static fs_image *scene(int w, int h)
{
	fs_image *img = fs_image_new_compact(w, h, 8);
	assert_non_null(img);
	unsigned char *px = img->px;
	unsigned s = 12345;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			s = s * 1103515245u + 12345u;
			double dx = fmod(x, 23.0) - 11.5, dy = fmod(y, 19.0) - 9.5;
			double v = 40 + 0.02 * x + 0.01 * y + (dx * dx + dy * dy < 40 ? 120 : 0) + ((s >> 16) % 21);
			px[(size_t)y * w + x] = (unsigned char)(v > 255 ? 255 : v);
		}
	return img;
}

/* Every pixel within halo of (x, y) read from the tile equals the whole blur's. */
static void check_around(fs_blur_tiles *bt, const fs_image *whole, double x, double y, int halo)
{
	int ox, oy;
	char err[128];
	const fs_image *t = fs_blur_tiles_at(bt, x, y, &ox, &oy, err, sizeof err);
	assert_non_null(t);
	int x0 = (int)floor(x) - halo, y0 = (int)floor(y) - halo, x1 = (int)ceil(x) + halo, y1 = (int)ceil(y) + halo;
	x0 = x0 < 0 ? 0 : x0;
	y0 = y0 < 0 ? 0 : y0;
	x1 = x1 > whole->width - 1 ? whole->width - 1 : x1;
	y1 = y1 > whole->height - 1 ? whole->height - 1 : y1;
	assert_true(x0 >= ox && y0 >= oy && x1 - ox < t->width && y1 - oy < t->height);
	for (int yy = y0; yy <= y1; yy++)
		assert_memory_equal(t->data + (size_t)(yy - oy) * t->width + (x0 - ox),
				    whole->data + (size_t)yy * whole->width + x0, (size_t)(x1 - x0 + 1) * sizeof(float));
}

static void tiles_equal_the_whole_blur(void **state)
{
	(void)state;
	char err[128];
	fs_image *src = scene(2600, 2300);
	fs_image *fl = fs_image_to_float(src);
	assert_non_null(fl);
	double sigma = 1.85;
	int halo = 60;
	fs_image *whole = fs_gaussian_blurred(fl, sigma, err, sizeof err);
	assert_non_null(whole);
	const fs_image *srcs[2] = {src, fl};
	for (int k = 0; k < 2; k++) {
		/* whole_max below the image: tiles of 512 px cores, 6 x 5 of them */
		fs_blur_tiles *bt = fs_blur_tiles_new(srcs[k], sigma, halo, 1000000, err, sizeof err);
		assert_non_null(bt);
		assert_false(fs_blur_tiles_whole(bt));
		unsigned s = 99;
		for (int i = 0; i < 150; i++) {
			s = s * 1103515245u + 12345u;
			double x = (s >> 8) % 2600 + 0.37;
			s = s * 1103515245u + 12345u;
			double y = (s >> 8) % 2300 + 0.81;
			x = x > 2599 ? 2599 : x;
			y = y > 2299 ? 2299 : y;
			check_around(bt, whole, x, y, halo);
		}
		/* the corners and the cores' seams */
		check_around(bt, whole, 0, 0, halo);
		check_around(bt, whole, 2599, 2299, halo);
		check_around(bt, whole, 511.9, 1024.0, halo);
		check_around(bt, whole, 2047.5, 1023.2, halo);
		/* memory follows the tile: a row of tiles and one more, of core + 2
		 * (halo + 1 + kernel radius) a side */
		assert_int_equal(fs_blur_tiles_keep(bt), 7);
		size_t side = 512 + 2 * (size_t)(halo + 1 + fs_gaussian_radius(sigma));
		assert_true(fs_blur_tiles_bytes(bt) <= 7 * side * side * sizeof(float));
		assert_true(fs_blur_tiles_bytes(bt) < fs_image_bytes(whole));
		assert_true(fs_blur_tiles_made(bt) >= 30);
		fs_blur_tiles_free(bt);
	}
	fs_image_free(whole);
	fs_image_free(fl);
	fs_image_free(src);
}

/* Points in one tile blur it once. */
static void one_tile_is_blurred_once(void **state)
{
	(void)state;
	char err[128];
	int ox, oy;
	fs_image *src = scene(3000, 1200);
	fs_blur_tiles *bt = fs_blur_tiles_new(src, 1.0, 30, 1000000, err, sizeof err);
	assert_non_null(bt);
	for (int i = 0; i < 50; i++)
		assert_non_null(fs_blur_tiles_at(bt, 100 + 8 * i, 200 + 5 * i, &ox, &oy, err, sizeof err));
	assert_int_equal(fs_blur_tiles_made(bt), 1);
	assert_int_equal(ox, 0);
	assert_int_equal(oy, 0);
	/* the next core's tile starts halo + 1 + kernel radius before it */
	assert_non_null(fs_blur_tiles_at(bt, 700, 200, &ox, &oy, err, sizeof err));
	assert_int_equal(ox, 512 - 30 - 1 - fs_gaussian_radius(1.0));
	assert_int_equal(fs_blur_tiles_made(bt), 2);
	/* back to the first: still kept */
	assert_non_null(fs_blur_tiles_at(bt, 10, 10, &ox, &oy, err, sizeof err));
	assert_int_equal(fs_blur_tiles_made(bt), 2);
	/* a raster sweep over the image's rows of tiles blurs each other tile once */
	for (int y = 0; y < 1200; y += 20)
		for (int x = 0; x < 3000; x += 20)
			assert_non_null(fs_blur_tiles_at(bt, x, y, &ox, &oy, err, sizeof err));
	assert_int_equal(fs_blur_tiles_made(bt), 6 * 3);
	assert_null(fs_blur_tiles_at(bt, -1, 10, &ox, &oy, err, sizeof err));
	assert_null(fs_blur_tiles_at(bt, 10, 1200, &ox, &oy, err, sizeof err));
	fs_blur_tiles_free(bt);
	fs_image_free(src);
}

/* Below whole_max: the whole image's blur, bit for bit, at origin 0, 0. */
static void small_images_are_blurred_whole(void **state)
{
	(void)state;
	char err[128];
	int ox = -1, oy = -1;
	fs_image *src = scene(700, 500);
	fs_image *fl = fs_image_to_float(src);
	fs_image *whole = fs_gaussian_blurred(fl, 0.9, err, sizeof err);
	assert_non_null(whole);
	const fs_image *srcs[2] = {src, fl};
	for (int k = 0; k < 2; k++) {
		fs_blur_tiles *bt = fs_blur_tiles_new(srcs[k], 0.9, 40, 0, err, sizeof err);
		assert_non_null(bt);
		assert_true(fs_blur_tiles_whole(bt));
		const fs_image *t = fs_blur_tiles_at(bt, 650, 450, &ox, &oy, err, sizeof err);
		assert_non_null(t);
		assert_int_equal(ox, 0);
		assert_int_equal(oy, 0);
		assert_int_equal(t->width, 700);
		assert_int_equal(t->height, 500);
		assert_memory_equal(t->data, whole->data, fs_image_bytes(whole));
		fs_blur_tiles_free(bt);
	}
	assert_null(fs_blur_tiles_new(NULL, 1, 1, 0, err, sizeof err));
	assert_null(fs_blur_tiles_new(src, -1, 1, 0, err, sizeof err));
	fs_image_free(whole);
	fs_image_free(fl);
	fs_image_free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tiles_equal_the_whole_blur),
		cmocka_unit_test(one_tile_is_blurred_once),
		cmocka_unit_test(small_images_are_blurred_whole),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
