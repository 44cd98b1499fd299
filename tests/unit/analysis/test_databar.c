/*
 * The data-bar finder (analysis/databar.h): the real JEOL image of the
 * fixtures (its README gives the truth: bar on row 879, columns 524-662 =
 * 139 px, text in rows 877-944, columns 122-665), synthetic data bars drawn
 * with real fonts (databar_synth.h: JEOL-style overlays and Zeiss/FEI-style
 * bands, both polarities, ticks, noise, JPEG), and images that carry none
 * (the paper figures, bare synthetic lattices, dark or light margins, a crop
 * of the real image without its bar).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/databar.h"
#include "databar_synth.h"
#include "image/image_transform.h"
#include "synth.h"
#include "fixture_image.h"

#define SEM "tests/fixtures/sem/M_kelleri_HLMD-Me_15576_ventral_detail.tif"

static int contains(fs_rect outer, int x0, int y0, int x1, int y1)
{
	return x0 >= outer.x && y0 >= outer.y && x1 <= outer.x + outer.width - 1 &&
	       y1 <= outer.y + outer.height - 1;
}

static void real_image_bar_and_text(void **state)
{
	(void)state;
	fs_image *img = fixture_image(SEM);
	assert_non_null(img);
	fs_databar b;
	char err[256];
	assert_int_equal(fs_databar_find(img, &b, err, sizeof err), 0);
	assert_true(b.found);
	assert_false(b.is_band);
	assert_true(b.light_on_dark);
	assert_true(b.has_line);
	printf("real image: bar %.2f px (x %.2f..%.2f, row %.1f), rect %d,%d %dx%d, %d words, text %.0f px\n",
	       b.line_length_px, b.line_x0, b.line_x1, b.line_y, b.rect.x, b.rect.y, b.rect.width,
	       b.rect.height, b.n_text, b.text_height);
	assert_true(fabs(b.line_length_px - 139.0) <= 1.0);
	assert_true(fabs(b.line_y - 879) <= 3);
	/* the whole data bar is inside: glyphs and line */
	assert_true(contains(b.rect, 122, 877, 665, 944));
	assert_true(contains(b.rect, 524, 877, 662, 882));
	/* and not much else: the scale surface above stays scale surface */
	assert_true(b.rect.y >= 840 && b.rect.x >= 90 && b.rect.x + b.rect.width <= 720);
	/* three words: 20kV, X700, 20µm in reading order */
	assert_int_equal(b.n_text, 3);
	assert_true(b.text[0].x < b.text[1].x && b.text[1].x < b.text[2].x);
	assert_true(b.ink_level > 0.95f && b.background_level < 0.7f);
	fs_image_free(img);
}

static void real_image_cropped_above_the_bar_has_none(void **state)
{
	(void)state;
	fs_image *img = fixture_image(SEM);
	assert_non_null(img);
	char err[256];
	fs_image *top = fs_image_crop(img, (fs_rect){0, 0, img->width, 860}, NULL, err, sizeof err);
	assert_non_null(top);
	fs_databar b;
	assert_int_equal(fs_databar_find(top, &b, err, sizeof err), 0);
	assert_false(b.found);
	fs_image_free(top);
	fs_image_free(img);
}

/* img (named by what) holds no data bar the finder would take */
static void assert_no_bar(const char *what, const fs_image *img)
{
	fs_databar b;
	char err[256];
	assert_int_equal(fs_databar_find(img, &b, err, sizeof err), 0);
	if (b.found)
		print_error("%s: data bar found at %d,%d %dx%d\n", what, b.rect.x, b.rect.y, b.rect.width,
			    b.rect.height);
	assert_false(b.found);
}

static void no_bar_found(const char *name, const fs_image *img, void *ctx)
{
	(void)ctx;
	assert_no_bar(name, img);
}

static void paper_figures_have_none(void **state)
{
	(void)state;
	assert_int_equal(fixture_paper_each(no_bar_found, NULL), 9);
}

/* Synthetic lattices without a data bar, some with uniform margins. */
static void bare_images_have_none(void **state)
{
	(void)state;
	for (int k = 0; k < 8; k++) {
		synth_opts o;
		synth_defaults(&o);
		o.seed = 100 + k;
		o.noise = k % 2 ? 0.005 : 0.04;
		o.width = 800;
		o.height = 600;
		o.dark_left = k == 3 ? 120 : 0;
		synth_truth t;
		fs_image *img = synth_make(&o, &t);
		synth_truth_free(&t);
		assert_non_null(img);
		if (k >= 4) {
			/* a uniform margin at the bottom (k 4, 5) or top (6, 7): black or white, no text */
			float v = k % 2 ? 1.0f : 0.0f;
			int y0 = k < 6 ? 540 : 0;
			for (int y = y0; y < y0 + 60; y++)
				for (int x = 0; x < o.width; x++)
					img->data[(size_t)y * o.width + x] = v;
		}
		char what[16];
		snprintf(what, sizeof what, "case %d", k);
		assert_no_bar(what, img);
		fs_image_free(img);
	}
	/* flat and constant images */
	fs_image *flat = fs_image_new(300, 200);
	assert_non_null(flat);
	fs_databar b;
	char err[256];
	assert_int_equal(fs_databar_find(flat, &b, err, sizeof err), 0);
	assert_false(b.found);
	fs_image_free(flat);
	fs_image *tiny = fs_image_new(1, 1);
	assert_int_equal(fs_databar_find(tiny, &b, err, sizeof err), 0);
	assert_false(b.found);
	fs_image_free(tiny);
}

/*
 * Random cases of the synthetic matrix: found, the right kind, the bar's
 * length within 1 %, and the rectangle holding every glyph and the bar
 * without swallowing much of the image.
 */
#define N_SYNTH 48
static void synthetic_data_bars(void **state)
{
	(void)state;
	int found = 0, kind = 0, length = 0, holds = 0;
	double worst = 0;
	for (int i = 0; i < N_SYNTH; i++) {
		dbs_case c;
		dbs_random((unsigned)(1000 + i), &c);
		dbs_truth t;
		char err[256];
		fs_image *img = dbs_make(&c.o, &t, err, sizeof err);
		if (!img)
			print_error("case %d: %s\n", i, err);
		assert_non_null(img);
		fs_databar b;
		assert_int_equal(fs_databar_find(img, &b, err, sizeof err), 0);
		double L = t.bar_x1 - t.bar_x0;
		double e = b.has_line ? fabs(b.line_length_px - L) / L : 1;
		int in = b.found && contains(b.rect, t.rect.x, t.rect.y, t.rect.x + t.rect.width - 1,
					     t.rect.y + t.rect.height - 1);
		int small = b.found && b.rect.height <= t.rect.height + 2 * c.o.text_px;
		found += b.found;
		kind += b.found && b.is_band == (c.o.style == DBS_BAND);
		length += e <= 0.01;
		holds += in && small;
		if (b.has_line && e > worst)
			worst = e;
		if (!(b.found && e <= 0.01 && in && small))
			printf("synthetic case %d (seed %d, %s, '%s', bar %.1f px): found %d band %d line %.2f px, rect %d,%d %dx%d, truth %d,%d %dx%d\n",
			       i, 1000 + i, c.o.style == DBS_BAND ? "band" : "overlay", c.label, L, b.found,
			       b.is_band, b.line_length_px, b.rect.x, b.rect.y, b.rect.width, b.rect.height,
			       t.rect.x, t.rect.y, t.rect.width, t.rect.height);
		fs_image_free(img);
	}
	printf("synthetic data bars: %d cases, found %d, right kind %d, length within 1 %% %d (worst %.2f %%), rectangle holds all %d\n",
	       N_SYNTH, found, kind, length, 100 * worst, holds);
	assert_int_equal(found, N_SYNTH);
	assert_int_equal(kind, N_SYNTH);
	assert_int_equal(length, N_SYNTH);
	assert_true(holds >= N_SYNTH - 1);
}

static void bad_input(void **state)
{
	(void)state;
	fs_databar b;
	char err[256] = "";
	assert_int_equal(fs_databar_find(NULL, &b, err, sizeof err), -1);
	assert_false(b.found);
	assert_true(err[0] != '\0');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(real_image_bar_and_text),
		cmocka_unit_test(real_image_cropped_above_the_bar_has_none),
		cmocka_unit_test(paper_figures_have_none),
		cmocka_unit_test(bare_images_have_none),
		cmocka_unit_test(synthetic_data_bars),
		cmocka_unit_test(bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
