/*
 * test_drawing.c - the vector drawing: its SVG text (elements, paint,
 * escaping, groups with data attributes and titles) and its raster
 * rendering (positions, antialiased edges, translucent fills composited
 * over what is below, dashes, group offsets, scale, text with FreeType and
 * with the bitmap font, PNG encoding, limits).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "image/drawing.h"
#include "image/image_io.h"

static const fs_color RED = {255, 0, 0, 255};
static const fs_color BLACK = {0, 0, 0, 255};
static const fs_color WHITE = {255, 255, 255, 255};

static const unsigned char *px(const fs_rgb *c, int x, int y)
{
	return c->data + ((size_t)y * c->width + x) * 3;
}

static int near(const unsigned char *p, int r, int g, int b, int tol)
{
	return abs(p[0] - r) <= tol && abs(p[1] - g) <= tol && abs(p[2] - b) <= tol;
}

static int white(const unsigned char *p)
{
	return near(p, 255, 255, 255, 0);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void test_svg_elements_paint_and_escaping(void **state)
{
	(void)state;
	fs_drawing *d = fs_drawing_new(200, 100, WHITE);
	assert_non_null(d);
	fs_draw_line(d, 0, 0, 10.5, 20.25, BLACK, 1, 1);
	fs_draw_rect(d, 5, 6, 7, 8, fs_rgba(0, 0, 255, 64), FS_NONE, 0);
	fs_draw_circle(d, 50, 50, 3, RED, BLACK, 0.5);
	double tri[] = {0, 0, 10, 0, 5, 8};
	fs_draw_polygon(d, tri, 3, FS_NONE, BLACK, 1);
	fs_draw_text(d, 100, 50, "D < 5 & S > 2 \"µm\"", 12, FS_ANCHOR_MIDDLE, FS_TEXT_ITALIC, BLACK);
	fs_draw_text(d, 10, 90, "up", 10, FS_ANCHOR_START, FS_TEXT_VERTICAL | FS_TEXT_BOLD, BLACK);
	const char *attrs[] = {"class", "point", "data-set-id", "12", "on click", "x", "data-name", "a\"<b", NULL};
	fs_draw_group_begin(d, 3, 4, attrs, "set <12> & co");
	fs_draw_circle(d, 0, 0, 2, RED, FS_NONE, 0);
	fs_draw_group_end(d);
	fs_draw_line(d, NAN, 0, 1, 1, BLACK, 1, 0); /* not drawn */
	fs_draw_circle(d, 1, 1, 0, RED, FS_NONE, 0); /* not drawn */
	assert_int_equal(fs_drawing_count(d), 9);

	fs_buf b = FS_BUF_INIT;
	assert_int_equal(fs_drawing_svg(d, &b), 0);
	const char *s = b.data;
	assert_non_null(strstr(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" height=\"100\" viewBox=\"0 0 200 100\""));
	assert_non_null(strstr(s, "<line x1=\"0\" y1=\"0\" x2=\"10.5\" y2=\"20.25\" stroke=\"#000000\" stroke-width=\"1\" stroke-dasharray=\"4 3\"/>"));
	assert_non_null(strstr(s, "<rect x=\"5\" y=\"6\" width=\"7\" height=\"8\" fill=\"#0000ff\" fill-opacity=\"0.25\" stroke=\"none\"") ||
			strstr(s, "<rect x=\"5\" y=\"6\" width=\"7\" height=\"8\" fill=\"#0000ff\" fill-opacity=\"0.25\"/>"));
	assert_non_null(strstr(s, "<circle cx=\"50\" cy=\"50\" r=\"3\" fill=\"#ff0000\" stroke=\"#000000\" stroke-width=\"0.5\"/>"));
	assert_non_null(strstr(s, "<polygon points=\"0,0 10,0 5,8\" fill=\"none\" stroke=\"#000000\""));
	assert_non_null(strstr(s, "text-anchor=\"middle\" font-style=\"italic\">D &lt; 5 &amp; S &gt; 2 \"µm\"</text>"));
	assert_non_null(strstr(s, "font-weight=\"bold\" transform=\"rotate(-90 10 90)\">up</text>"));
	/* the group: offset, valid attributes only (escaped), and a title */
	assert_non_null(strstr(s, "<g transform=\"translate(3 4)\" class=\"point\" data-set-id=\"12\" data-name=\"a&quot;&lt;b\">\n<title>set &lt;12&gt; &amp; co</title>"));
	assert_null(strstr(s, "on click"));
	assert_int_equal(count(s, "<g"), count(s, "</g>"));
	assert_int_equal(count(s, "<text"), 2);
	assert_int_equal(count(s, "<circle"), 2);
	assert_non_null(strstr(s, "</svg>\n"));
	fs_buf_free(&b);
	fs_drawing_free(d);
}

static fs_rgb raster(const fs_drawing *d, double scale)
{
	fs_rgb c;
	char err[128];
	assert_int_equal(fs_drawing_raster(d, scale, "/nonexistent/font.ttf", &c, NULL, err, sizeof err), 0);
	return c;
}

static void test_raster_shapes_and_antialiasing(void **state)
{
	(void)state;
	fs_drawing *d = fs_drawing_new(100, 80, WHITE);
	fs_draw_rect(d, 10, 10, 20, 20, RED, FS_NONE, 0);
	fs_draw_rect(d, 20.5, 10, 20, 20, fs_rgba(0, 0, 255, 128), FS_NONE, 0); /* half over the red */
	fs_draw_circle(d, 70, 20, 8, BLACK, FS_NONE, 0);
	fs_draw_line(d, 10, 50.5, 90, 50.5, BLACK, 1, 0);
	fs_draw_line(d, 10, 70.5, 90, 70.5, BLACK, 1, 1);
	fs_rgb c = raster(d, 1);
	assert_int_equal(c.width, 100);
	assert_int_equal(c.height, 80);
	assert_true(near(px(&c, 15, 15), 255, 0, 0, 0));   /* red */
	assert_true(white(px(&c, 9, 15)));                /* outside, left */
	assert_true(near(px(&c, 10, 10), 255, 0, 0, 0));   /* the first pixel is fully inside */
	/* half-transparent blue over red and over white */
	assert_true(near(px(&c, 25, 15), 127, 0, 128, 1));
	assert_true(near(px(&c, 35, 15), 127, 127, 255, 1));
	/* its left edge at x = 20.5 covers half of pixel 20: a quarter of the blue */
	assert_true(near(px(&c, 20, 15), 191, 0, 64, 2));
	/* the circle: solid inside, white outside, partial on its rim */
	assert_true(near(px(&c, 70, 20), 0, 0, 0, 0));
	assert_true(white(px(&c, 70, 30)));
	int partial = 0;
	for (int x = 60; x < 80; x++) {
		const unsigned char *p = px(&c, x, 20);
		partial += p[0] > 0 && p[0] < 255;
	}
	assert_true(partial >= 2);
	/* a 1-unit line on a pixel row covers that row only */
	assert_true(near(px(&c, 50, 50), 0, 0, 0, 0));
	assert_true(white(px(&c, 50, 48)));
	assert_true(white(px(&c, 50, 52)));
	/* butt ends: nothing before x = 10 */
	assert_true(white(px(&c, 8, 50)));
	/* dashed: 4 on, 3 off */
	int on = 0, off = 0;
	for (int x = 12; x < 88; x++) {
		const unsigned char *p = px(&c, x, 70);
		on += p[0] < 64;
		off += p[0] > 192;
	}
	assert_true(on > 30 && off > 20);
	fs_rgb_free(&c);
	fs_drawing_free(d);
}

static void test_raster_groups_scale_and_polygon(void **state)
{
	(void)state;
	fs_drawing *d = fs_drawing_new(50, 40, fs_rgba(0, 0, 0, 0)); /* no background: white */
	fs_draw_group_begin(d, 20, 10, NULL, NULL);
	fs_draw_circle(d, 5, 5, 3, RED, FS_NONE, 0);
	fs_draw_group_begin(d, 10, 0, NULL, NULL);
	fs_draw_rect(d, 0, 0, 2, 2, BLACK, FS_NONE, 0);
	fs_draw_group_end(d);
	fs_draw_group_end(d);
	fs_draw_rect(d, 0, 0, 2, 2, RED, FS_NONE, 0); /* after the groups: no offset */
	double tri[] = {2, 20, 18, 20, 10, 36};
	fs_draw_polygon(d, tri, 3, BLACK, FS_NONE, 0);
	fs_rgb c = raster(d, 2);
	assert_int_equal(c.width, 100);
	assert_int_equal(c.height, 80);
	assert_true(near(px(&c, 50, 30), 255, 0, 0, 0)); /* circle centre (25, 15) x 2 */
	assert_true(white(px(&c, 30, 30)));
	assert_true(near(px(&c, 61, 21), 0, 0, 0, 0));   /* nested group: (30..32, 10..12) x 2 */
	assert_true(near(px(&c, 1, 1), 255, 0, 0, 0));
	assert_true(near(px(&c, 20, 44), 0, 0, 0, 0));   /* inside the triangle */
	assert_true(white(px(&c, 6, 60)));               /* outside it, beside the apex */
	fs_rgb_free(&c);
	fs_drawing_free(d);
}

/* Non-white pixels' bounding box. */
static void ink_box(const fs_rgb *c, int *x0, int *y0, int *x1, int *y1)
{
	*x0 = c->width, *y0 = c->height, *x1 = -1, *y1 = -1;
	for (int y = 0; y < c->height; y++)
		for (int x = 0; x < c->width; x++)
			if (!white(px(c, x, y))) {
				if (x < *x0)
					*x0 = x;
				if (x > *x1)
					*x1 = x;
				if (y < *y0)
					*y0 = y;
				if (y > *y1)
					*y1 = y;
			}
}

static void check_text(const char *font, int expect_ft)
{
	char err[128];
	int ft = -1;
	fs_rgb c;
	/* horizontal text, anchored at its end */
	fs_drawing *d = fs_drawing_new(200, 60, WHITE);
	fs_draw_text(d, 150, 40, "Diameter 5 µm", 16, FS_ANCHOR_END, 0, BLACK);
	assert_int_equal(fs_drawing_raster(d, 1, font, &c, &ft, err, sizeof err), 0);
	assert_int_equal(ft, expect_ft);
	int x0, y0, x1, y1;
	ink_box(&c, &x0, &y0, &x1, &y1);
	print_message("%s: text box %d %d %d %d\n", font ? font : "default", x0, y0, x1, y1);
	assert_true(x1 <= 151 && x1 >= 140);       /* ends at the anchor */
	assert_true(x0 >= 20 && x0 < 110);         /* starts a text's width before it */
	assert_true(y1 <= 45 && y0 >= 20 && y0 < 40); /* sits on the baseline (descender of µ) */
	fs_rgb_free(&c);
	fs_drawing_free(d);
	/* vertical text reads upwards from its anchor */
	d = fs_drawing_new(60, 200, WHITE);
	fs_draw_text(d, 30, 150, "Diameter", 16, FS_ANCHOR_START, FS_TEXT_VERTICAL, BLACK);
	assert_int_equal(fs_drawing_raster(d, 1, font, &c, &ft, err, sizeof err), 0);
	ink_box(&c, &x0, &y0, &x1, &y1);
	assert_true(y1 <= 151 && y1 >= 140);
	assert_true(y1 - y0 > 3 * (x1 - x0));
	assert_true(x1 <= 31 && x0 >= 14);
	fs_rgb_free(&c);
	fs_drawing_free(d);
}

static void test_raster_text_freetype_and_bitmap(void **state)
{
	(void)state;
	FILE *f = fopen(FS_DRAWING_FONT, "rb");
	if (f) { /* tools/deps.sh installs it; without it the fallback is what runs */
		fclose(f);
		check_text(NULL, 1);
	}
	check_text("/nonexistent/font.ttf", 0);
	/* the layout's estimate is close to the real width of DejaVu Sans */
	assert_true(fabs(fs_draw_text_width("Diameter 5 µm", 16) - 118) < 15);
}

static void test_png_and_limits(void **state)
{
	(void)state;
	char err[128];
	fs_drawing *d = fs_drawing_new(120, 90, WHITE);
	fs_draw_rect(d, 10, 10, 50, 50, RED, BLACK, 2);
	unsigned char *png = NULL;
	size_t len = 0;
	assert_int_equal(fs_drawing_png(d, 1.5, NULL, &png, &len, err, sizeof err), 0);
	assert_true(len > 8 && !memcmp(png, "\x89PNG", 4));
	fs_loaded ld;
	assert_int_equal(fs_load_memory(png, len, NULL, &ld, err, sizeof err), 0);
	assert_int_equal(ld.image->width, 180);
	assert_int_equal(ld.image->height, 135);
	assert_int_equal(ld.channels, 3);
	fs_loaded_free(&ld);
	free(png);
	fs_rgb c;
	assert_int_equal(fs_drawing_raster(d, 9, NULL, &c, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "scale"));
	fs_drawing_resize(d, 10000, 10000);
	assert_int_equal(fs_drawing_raster(d, 1, NULL, &c, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "too large"));
	assert_null(c.data);
	fs_drawing_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_svg_elements_paint_and_escaping),
		cmocka_unit_test(test_raster_shapes_and_antialiasing),
		cmocka_unit_test(test_raster_groups_scale_and_polygon),
		cmocka_unit_test(test_raster_text_freetype_and_bitmap),
		cmocka_unit_test(test_png_and_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
