/*
 * test_render.c - the overlay renderer and the bitmap font: colours by
 * source, edges, clipping, downscaling, scale bar, labels, highlight, PNG.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "image/font.h"
#include "image/render.h"

static fs_image *grey_image(int w, int h, float v)
{
	fs_image *img = fs_image_new(w, h);
	assert_non_null(img);
	for (size_t i = 0; i < (size_t)w * h; i++)
		img->data[i] = v;
	return img;
}

static void add(fs_tubercle_list *l, int id, double x, double y, double r, fs_source s)
{
	fs_tubercle t = {0};
	t.id = id;
	t.centroid_x = x;
	t.centroid_y = y;
	t.radius_px = r;
	t.source = s;
	assert_int_equal(fs_tubercle_list_append(l, &t), 0);
}

static const unsigned char *px(const fs_rgb *c, int x, int y)
{
	return c->data + ((size_t)y * c->width + x) * 3;
}

static int is(const unsigned char *p, int r, int g, int b)
{
	return p[0] == r && p[1] == g && p[2] == b;
}

static int count_colour(const fs_rgb *c, int r, int g, int b)
{
	int n = 0;
	for (int y = 0; y < c->height; y++)
		for (int x = 0; x < c->width; x++)
			n += is(px(c, x, y), r, g, b);
	return n;
}

static fs_render_opts plain_opts(void)
{
	fs_render_opts o;
	fs_render_opts_default(&o);
	o.show_scale_bar = 0;
	return o;
}

static void test_background_is_grey_image(void **state)
{
	(void)state;
	fs_image *img = grey_image(30, 20, 0.5f);
	fs_rgb c;
	char err[128];
	fs_render_opts o = plain_opts();
	assert_int_equal(fs_render_overlay(img, NULL, NULL, &o, &c, err, sizeof err), 0);
	assert_int_equal(c.width, 30);
	assert_int_equal(c.height, 20);
	assert_true(c.scale == 1.0);
	assert_true(is(px(&c, 7, 9), 128, 128, 128));
	fs_rgb_free(&c);
	fs_image_free(img);
}

static void test_circles_coloured_by_source(void **state)
{
	(void)state;
	fs_image *img = grey_image(100, 40, 0.5f);
	fs_tubercle_list t = {0};
	fs_rgb c;
	char err[128];
	fs_render_opts o = plain_opts();
	add(&t, 1, 15, 20, 5, FS_SOURCE_EXTRACTED);
	add(&t, 2, 35, 20, 5, FS_SOURCE_MANUAL);
	add(&t, 3, 55, 20, 5, FS_SOURCE_LATTICE);
	add(&t, 4, 75, 20, 5, FS_SOURCE_AGENT);
	assert_int_equal(fs_render_overlay(img, &t, NULL, &o, &c, err, sizeof err), 0);
	assert_true(is(px(&c, 20, 20), 0, 255, 255));
	assert_true(is(px(&c, 40, 20), 0, 220, 0));
	assert_true(is(px(&c, 60, 20), 255, 160, 0));
	assert_true(is(px(&c, 80, 20), 255, 0, 255));
	assert_true(is(px(&c, 15, 20), 128, 128, 128)); /* outline only */
	fs_rgb_free(&c);
	o.show_tubercles = 0;
	assert_int_equal(fs_render_overlay(img, &t, NULL, &o, &c, err, sizeof err), 0);
	assert_int_equal(count_colour(&c, 0, 255, 255), 0);
	fs_rgb_free(&c);
	fs_tubercle_list_free(&t);
	fs_image_free(img);
}

static void test_edges_are_drawn_between_centroids(void **state)
{
	(void)state;
	fs_image *img = grey_image(60, 30, 0.0f);
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_edge ed = {1, 2};
	fs_rgb c;
	char err[128];
	fs_render_opts o = plain_opts();
	add(&t, 1, 10, 15, 3, FS_SOURCE_EXTRACTED);
	add(&t, 2, 50, 15, 3, FS_SOURCE_EXTRACTED);
	assert_int_equal(fs_edge_list_append(&e, &ed), 0);
	assert_int_equal(fs_render_overlay(img, &t, &e, &o, &c, err, sizeof err), 0);
	assert_true(is(px(&c, 30, 15), 255, 200, 40));
	fs_rgb_free(&c);
	o.show_edges = 0;
	assert_int_equal(fs_render_overlay(img, &t, &e, &o, &c, err, sizeof err), 0);
	assert_true(is(px(&c, 30, 15), 0, 0, 0));
	fs_rgb_free(&c);
	fs_edge_list_free(&e);
	fs_tubercle_list_free(&t);
	fs_image_free(img);
}

static void test_shapes_are_clipped_at_borders(void **state)
{
	(void)state;
	fs_image *img = grey_image(20, 20, 0.0f);
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_edge ed = {1, 2};
	fs_rgb c;
	char err[128];
	fs_render_opts o = plain_opts();
	o.show_ids = 1;
	add(&t, 1, -2, 10, 6, FS_SOURCE_EXTRACTED);
	add(&t, 2, 1e7, -1e7, 4, FS_SOURCE_MANUAL);
	add(&t, 3, 19, 19, 30, FS_SOURCE_AGENT);
	assert_int_equal(fs_edge_list_append(&e, &ed), 0);
	assert_int_equal(fs_render_overlay(img, &t, &e, &o, &c, err, sizeof err), 0);
	assert_true(is(px(&c, 4, 10), 0, 255, 255)); /* visible part of circle 1 */
	assert_true(count_colour(&c, 255, 200, 40) > 0); /* clipped edge */
	fs_rgb_free(&c);
	fs_edge_list_free(&e);
	fs_tubercle_list_free(&t);
	fs_image_free(img);
}

static void test_downscale_reports_scale(void **state)
{
	(void)state;
	fs_image *img = grey_image(400, 300, 0.25f);
	fs_tubercle_list t = {0};
	fs_rgb c;
	char err[128];
	fs_render_opts o = plain_opts();
	o.max_side = 100;
	add(&t, 1, 200, 100, 20, FS_SOURCE_EXTRACTED);
	assert_int_equal(fs_render_overlay(img, &t, NULL, &o, &c, err, sizeof err), 0);
	assert_int_equal(c.width, 100);
	assert_int_equal(c.height, 75);
	assert_true(fabs(c.scale - 0.25) < 1e-9);
	/* circle of radius 5 around (50, 25) in output pixels */
	assert_true(is(px(&c, 55, 25), 0, 255, 255));
	fs_rgb_free(&c);
	fs_tubercle_list_free(&t);
	fs_image_free(img);
}

static void test_scale_bar_nice_values(void **state)
{
	(void)state;
	assert_true(fs_render_scale_bar_um(1000, 0.33) == 50);
	assert_true(fs_render_scale_bar_um(700, 0.13671875) == 10);
	assert_true(fs_render_scale_bar_um(4096, 1.0) == 500);
	assert_true(fs_render_scale_bar_um(100, 0.01) == 0.1);
	assert_true(fs_render_scale_bar_um(1000, 0) == 0);
}

static void test_scale_bar_drawn_only_when_calibrated(void **state)
{
	(void)state;
	fs_image *img = grey_image(300, 200, 0.5f);
	fs_rgb c;
	char err[128];
	fs_render_opts o;
	fs_render_opts_default(&o);
	assert_int_equal(fs_render_overlay(img, NULL, NULL, &o, &c, err, sizeof err), 0);
	assert_int_equal(count_colour(&c, 255, 255, 255), 0);
	fs_rgb_free(&c);
	o.um_per_px = 0.5; /* 150 µm wide: bar of 20 µm = 40 px */
	assert_int_equal(fs_render_overlay(img, NULL, NULL, &o, &c, err, sizeof err), 0);
	assert_true(count_colour(&c, 255, 255, 255) >= 40 * 6);
	assert_true(is(px(&c, 5, 5), 128, 128, 128));
	assert_true(count_colour(&c, 51, 51, 51) > 0); /* darkened backing box */
	fs_rgb_free(&c);
	fs_image_free(img);
}

static void test_ids_and_highlight(void **state)
{
	(void)state;
	fs_image *img = grey_image(80, 40, 0.0f);
	fs_tubercle_list t = {0};
	fs_rgb c;
	char err[128];
	fs_render_opts o = plain_opts();
	int hl[1] = {7};
	add(&t, 7, 20, 20, 5, FS_SOURCE_EXTRACTED);
	assert_int_equal(fs_render_overlay(img, &t, NULL, &o, &c, err, sizeof err), 0);
	assert_int_equal(count_colour(&c, 255, 255, 255), 0);
	assert_int_equal(count_colour(&c, 255, 0, 0), 0);
	fs_rgb_free(&c);
	o.show_ids = 1;
	o.highlight_ids = hl;
	o.n_highlight = 1;
	assert_int_equal(fs_render_overlay(img, &t, NULL, &o, &c, err, sizeof err), 0);
	assert_true(count_colour(&c, 255, 255, 255) > 5); /* the label "7" */
	assert_true(is(px(&c, 20, 27), 255, 0, 0));      /* ring at r + 2 */
	fs_rgb_free(&c);
	fs_tubercle_list_free(&t);
	fs_image_free(img);
}

static void test_render_rejects_missing_image(void **state)
{
	(void)state;
	fs_rgb c;
	char err[128] = "";
	assert_int_equal(fs_render_overlay(NULL, NULL, NULL, NULL, &c, err, sizeof err), -1);
	assert_true(strlen(err) > 0);
	assert_null(c.data);
}

static void test_render_png_has_signature(void **state)
{
	(void)state;
	fs_image *img = grey_image(16, 8, 0.5f);
	unsigned char *png = NULL;
	size_t len = 0;
	double scale = 0;
	char err[128];
	assert_int_equal(fs_render_png(img, NULL, NULL, NULL, &png, &len, &scale, err, sizeof err), 0);
	assert_true(len > 8);
	assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
	assert_true(scale == 1.0);
	free(png);
	fs_image_free(img);
}

static void test_font_width_counts_utf8_micro_as_one(void **state)
{
	(void)state;
	assert_int_equal(fs_font_text_width("10 \xc2\xb5m", 1), 5 * 6 - 1);
	assert_int_equal(fs_font_text_width("10 \xc2\xb5m", 2), 2 * (5 * 6 - 1));
	assert_int_equal(fs_font_text_width("", 1), 0);
}

static void test_font_draws_glyph_bits_and_clips(void **state)
{
	(void)state;
	unsigned char buf[10 * 10 * 3];
	const unsigned char white[3] = {255, 255, 255};
	memset(buf, 0, sizeof buf);
	fs_font_draw(buf, 10, 10, 0, 0, "1", 1, white);
	/* '1': row 0 is 00100, row 6 is 01110 */
	assert_int_equal(buf[(0 * 10 + 2) * 3], 255);
	assert_int_equal(buf[(0 * 10 + 1) * 3], 0);
	assert_int_equal(buf[(6 * 10 + 1) * 3], 255);
	memset(buf, 0, sizeof buf);
	fs_font_draw(buf, 10, 10, -3, -3, "A?\xe2\x82\xac", 2, white); /* clipped, unknown char */
	fs_font_draw(buf, 10, 10, 8, 8, "W", 3, white);
	assert_int_equal(buf[(9 * 10 + 9) * 3 + 1], 255);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_background_is_grey_image),
		cmocka_unit_test(test_circles_coloured_by_source),
		cmocka_unit_test(test_edges_are_drawn_between_centroids),
		cmocka_unit_test(test_shapes_are_clipped_at_borders),
		cmocka_unit_test(test_downscale_reports_scale),
		cmocka_unit_test(test_scale_bar_nice_values),
		cmocka_unit_test(test_scale_bar_drawn_only_when_calibrated),
		cmocka_unit_test(test_ids_and_highlight),
		cmocka_unit_test(test_render_rejects_missing_image),
		cmocka_unit_test(test_render_png_has_signature),
		cmocka_unit_test(test_font_width_counts_utf8_micro_as_one),
		cmocka_unit_test(test_font_draws_glyph_bits_and_clips),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
