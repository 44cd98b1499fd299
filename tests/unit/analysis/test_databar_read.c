/*
 * Reading the data bar (analysis/databar_read.h): the parser on the ways
 * microscopes write their fields, the real JEOL image of the fixtures (20 µm
 * = 139 px, X700, 20 kV), 100 synthetic data bars drawn with real fonts
 * (databar_synth.h; the figures are printed: read rate, length errors,
 * confidence of the wrong ones, OCR time), and images without a data bar.
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
#include "analysis/databar_read.h"
#include "analysis/databar_suggest.h"
#include "databar_synth.h"
#include "image/image_transform.h"
#include "fixture_image.h"
#include "sanitized.h"

#define SEM "tests/fixtures/sem/M_kelleri_HLMD-Me_15576_ventral_detail.tif"

static void parse_lengths(void **state)
{
	(void)state;
	struct {
		const char *text;
		double um, value;
		const char *unit;
	} cases[] = {
		{"20µm", 20, 20, "µm"},     {"20 um", 20, 20, "µm"},   {"5 μm", 5, 5, "µm"},
		{"200nm", 0.2, 200, "nm"},  {"1 mm", 1000, 1, "mm"},   {"1,5 µm", 1.5, 1.5, "µm"},
		{"2.5um", 2.5, 2.5, "µm"},  {"10 µ m", 10, 10, "µm"},  {"500 NM", 0.5, 500, "nm"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double v = 0;
		char u[8] = "";
		double um = fs_databar_parse_length(cases[i].text, &v, u);
		if (fabs(um - cases[i].um) > 1e-9)
			print_error("'%s' -> %g\n", cases[i].text, um);
		assert_true(fabs(um - cases[i].um) < 1e-9);
		assert_true(fabs(v - cases[i].value) < 1e-9);
		assert_string_equal(u, cases[i].unit);
	}
	const char *not_lengths[] = {"20kV", "X700", "um", "20", "", "20 um 5", "WD = 8 mm"};
	for (size_t i = 0; i < sizeof not_lengths / sizeof not_lengths[0]; i++)
		assert_true(fs_databar_parse_length(not_lengths[i], NULL, NULL) == 0);
	assert_true(fs_databar_parse_length(NULL, NULL, NULL) == 0);
}

static void parse_fields(void **state)
{
	(void)state;
	fs_databar bar;
	memset(&bar, 0, sizeof bar);
	bar.found = 1;
	bar.has_line = 1;
	bar.text_height = 20;
	bar.line = (fs_rect){500, 100, 140, 4};
	bar.line_x0 = 499.5;
	bar.line_x1 = 639.5;
	bar.line_length_px = 140;
	/* JEOL: 20kV X700 20µm, the label under the bar */
	const char *jeol[] = {"20kV", "X700", "20µm"};
	fs_rect r[] = {{100, 110, 60, 20}, {200, 110, 60, 20}, {540, 110, 60, 20}};
	int conf[] = {95, 95, 95};
	fs_databar_reading out;
	fs_databar_parse(jeol, conf, r, 3, &bar, 1280, &out);
	assert_true(out.has_scale);
	assert_int_equal(out.label_word, 2);
	assert_true(fabs(out.um_per_px - 20.0 / 140) < 1e-12);
	assert_true(out.magnification == 700);
	assert_true(out.kv == 20);
	assert_string_equal(out.source, "scale bar 20 µm = 140.0 px");
	assert_true(out.confidence >= FS_DATABAR_AUTO_CONFIDENCE);
	/* 127 mm / 700 / 1280 px = 0.1417 µm/px: 0.8 % from the bar, not flagged */
	assert_true(fabs(out.mag_um_per_px - 127000.0 / 700 / 1280) < 1e-9);
	assert_false(out.mag_disagrees);

	/* the magnifications' spellings */
	struct {
		const char *text;
		double mag;
	} mags[] = {{"x 1,000", 1000}, {"X700", 700}, {"Mag = 700 X", 700}, {"x1.00k", 1000},
		    {"Mag = 25.00 K X", 25000}, {"1500x", 1500}};
	for (size_t i = 0; i < sizeof mags / sizeof mags[0]; i++) {
		const char *w[] = {mags[i].text};
		fs_databar_parse(w, NULL, r, 1, &bar, 1280, &out);
		if (out.magnification != mags[i].mag)
			print_error("'%s' -> %g\n", mags[i].text, out.magnification);
		assert_true(out.magnification == mags[i].mag);
		assert_false(out.has_scale);
	}
	/* a band's fields: pixel size, HFW, EHT, WD are no labels */
	const char *band[] = {"EHT = 5.00 kV", "Pixel Size = 12.3 nm", "HFW = 29.8 µm", "WD = 8.5 mm", "2 µm"};
	fs_rect rb[] = {{10, 110, 60, 20}, {100, 110, 60, 20}, {200, 110, 60, 20}, {300, 110, 60, 20},
			{540, 80, 40, 20}};
	fs_databar_parse(band, NULL, rb, 5, &bar, 1024, &out);
	assert_true(out.kv == 5);
	assert_true(fabs(out.pixel_size_um - 0.0123) < 1e-12);
	assert_true(fabs(out.hfw_um - 29.8) < 1e-12);
	assert_true(out.has_scale);
	assert_int_equal(out.label_word, 4);
	assert_true(out.label_um == 2);

	/* a value no microscope prints, or a label far from the bar: lower confidence or none */
	const char *odd[] = {"23 µm"};
	fs_databar_parse(odd, conf, &r[2], 1, &bar, 1280, &out);
	assert_true(out.has_scale);
	assert_true(out.confidence < FS_DATABAR_AUTO_CONFIDENCE);
	fs_rect far = {100, 400, 60, 20};
	fs_databar_parse(jeol + 2, conf, &far, 1, &bar, 1280, &out);
	assert_false(out.has_scale);
	assert_true(strstr(out.reason, "not next to the bar") != NULL);
	/* no line, no label */
	bar.has_line = 0;
	fs_databar_parse(jeol, conf, r, 3, &bar, 1280, &out);
	assert_false(out.has_scale);
	assert_true(strstr(out.reason, "no scale-bar line") != NULL);
	bar.has_line = 1;
	fs_databar_parse(jeol, conf, r, 2, &bar, 1280, &out);
	assert_false(out.has_scale);
	assert_true(strstr(out.reason, "no scale-bar label") != NULL);
	assert_true(strstr(out.reason, "'X700'") != NULL);
}

static void real_image(void **state)
{
	(void)state;
	fs_image *img = fixture_image(SEM);
	assert_non_null(img);
	fs_databar b;
	fs_databar_reading r;
	char err[256];
	int rc = fs_databar_read_image(img, &b, &r, err, sizeof err);
	if (rc)
		print_error("%s\n", err);
	assert_int_equal(rc, 0);
	printf("real image: words");
	for (int i = 0; i < r.n_words; i++)
		printf(" '%s' (%d)", r.words[i], r.word_conf[i]);
	printf("; %s, %.5f µm/px, confidence %.2f, X%g (%.4f µm/px through 127 mm%s), %g kV, OCR %.0f ms\n",
	       r.source, r.um_per_px, r.confidence, r.magnification, r.mag_um_per_px,
	       r.mag_disagrees ? ", disagrees" : "", r.kv, r.ocr_ms);
	assert_true(r.found);
	assert_true(r.has_scale);
	assert_true(fabs(r.bar_px - 139) <= 1);
	assert_true(r.label_um == 20);
	assert_string_equal(r.label_unit, "µm");
	assert_true(r.magnification == 700);
	assert_true(r.kv == 20);
	assert_true(fabs(r.um_per_px - 0.1439) <= 0.001);
	assert_true(r.confidence >= FS_DATABAR_AUTO_CONFIDENCE);
	assert_false(r.mag_disagrees);
	/* cropped above the bar: nothing to read, and it says so */
	fs_image *top = fs_image_crop(img, (fs_rect){0, 0, img->width, 860}, NULL, err, sizeof err);
	assert_non_null(top);
	assert_int_equal(fs_databar_read_image(top, &b, &r, err, sizeof err), 0);
	assert_false(r.found);
	assert_false(r.has_scale);
	assert_string_equal(r.reason, "no data bar");
	fs_image_free(top);
	fs_image_free(img);
}

static void no_reading(const char *name, const fs_image *img, void *ctx)
{
	(void)name;
	(void)ctx;
	fs_databar b;
	fs_databar_reading r;
	char err[256];
	assert_int_equal(fs_databar_read_image(img, &b, &r, err, sizeof err), 0);
	assert_false(r.found);
	assert_false(r.has_scale);
}

static void paper_figures_report_none(void **state)
{
	(void)state;
	assert_int_equal(fixture_paper_each(no_reading, NULL), 9);
}

/*
 * 100 cases of the synthetic matrix. Required: the label right in >= 95 %
 * (at most 5 cases wrong), the length within 1 % in all, and no
 * calibration more than 2 % off at or above the auto-apply confidence.
 * Under the sanitizers (sanitized.h: memory and undefined behaviour, not
 * the read rate) every 4th case, with the same bounds on the cases run
 * (at most 5 wrong, at most one line missed), which the full matrix
 * implies: each case is drawn from its own seed, so a case reads the same
 * in either run.
 */
#define N_SYNTH 100
#define N_SYNTH_WRONG 5
#define SYNTH_STEP (fs_test_subset() ? 4 : 1)
static void synthetic_data_bars(void **state)
{
	(void)state;
	int read = 0, right = 0, length_ok = 0, lines = 0, auto_n = 0, auto_wrong = 0, wrong = 0, n_run = 0;
	double worst_len = 0, sum_len = 0, ms = 0, max_ms = 0, worst_wrong_conf = 0;
	for (int i = 0; i < N_SYNTH; i += SYNTH_STEP) {
		n_run++;
		dbs_case c;
		dbs_random((unsigned)(5000 + i), &c);
		dbs_truth t;
		char err[256];
		fs_image *img = dbs_make(&c.o, &t, err, sizeof err);
		assert_non_null(img);
		fs_databar b;
		fs_databar_reading r;
		assert_int_equal(fs_databar_read_image(img, &b, &r, err, sizeof err), 0);
		double L = t.bar_x1 - t.bar_x0;
		double truth = c.label_um / L;
		double le = b.has_line ? fabs(b.line_length_px - L) / L : 1;
		lines += b.has_line;
		length_ok += b.has_line && le <= 0.01;
		if (b.has_line) {
			sum_len += le;
			if (le > worst_len)
				worst_len = le;
		}
		ms += r.ocr_ms;
		if (r.ocr_ms > max_ms)
			max_ms = r.ocr_ms;
		read += r.has_scale;
		int label_right = r.has_scale && fabs(r.label_um - c.label_um) < 1e-9 * c.label_um;
		right += label_right;
		int off = r.has_scale && fabs(r.um_per_px - truth) / truth > 0.02;
		wrong += off;
		if (r.confidence >= FS_DATABAR_AUTO_CONFIDENCE) {
			auto_n++;
			auto_wrong += off;
		}
		if (off && r.confidence > worst_wrong_conf)
			worst_wrong_conf = r.confidence;
		if (!label_right || off) {
			printf("case %d (%s, %s, '%s', %d px text): read '%s' -> %s, confidence %.2f%s%s\n", i,
			       c.o.style == DBS_BAND ? "band" : "overlay", c.o.light_on_dark ? "light" : "dark",
			       c.label, c.o.text_px, r.label_word >= 0 ? r.words[r.label_word] : "",
			       r.has_scale ? r.source : "none", r.confidence, r.has_scale ? "" : ": ",
			       r.has_scale ? "" : r.reason);
		}
		fs_image_free(img);
	}
	printf("synthetic data bars: %d cases; label read right %d, read at all %d, wrong calibration (> 2 %%) %d "
	       "(highest confidence of a wrong one %.2f); auto-applicable (>= %.2f) %d, of them wrong %d; "
	       "bar lines found %d, their length within 1 %% %d (mean error %.3f %%, worst %.3f %%); OCR %.0f ms per image (max %.0f)\n",
	       n_run, right, read, wrong, worst_wrong_conf, FS_DATABAR_AUTO_CONFIDENCE, auto_n, auto_wrong,
	       lines, length_ok, 100 * sum_len / (lines ? lines : 1), 100 * worst_len, ms / n_run, max_ms);
	assert_int_equal(n_run, (N_SYNTH + SYNTH_STEP - 1) / SYNTH_STEP);
	assert_true(n_run - right <= N_SYNTH_WRONG);
	/* the finder misses the line of one case in a hundred (case 81: it then says "no scale-bar line") */
	assert_true(lines >= n_run - 1);
	assert_int_equal(length_ok, lines);
	assert_int_equal(auto_wrong, 0);
}

/*
 * The suggestion's cross-check: the real image's pitch (about 9 µm at the
 * bar's calibration) passes; a bar labelled 1 mm over a 24 px lattice
 * (pitch 171 µm) is read, flagged and not auto-applicable.
 */
static void suggestion_cross_check(void **state)
{
	(void)state;
	char err[256];
	fs_image *img = fixture_image(SEM);
	assert_non_null(img);
	fs_databar_suggestion s;
	assert_int_equal(fs_databar_suggest(img, &s, err, sizeof err), 0);
	printf("real image: lattice pitch %.1f px = %.2f µm\n", s.pitch_px, s.pitch_um);
	assert_true(s.pitch_um >= FS_DATABAR_PITCH_MIN_UM && s.pitch_um <= FS_DATABAR_PITCH_MAX_UM);
	assert_false(s.pitch_out_of_range);
	assert_true(s.auto_ok);
	cJSON *j = fs_databar_suggestion_json(&s);
	assert_non_null(j);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "auto_ok")));
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j, "source")), "scale bar 20 µm = 139.0 px");
	assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(j, "magnification")) == 700);
	assert_true(cJSON_IsObject(cJSON_GetObjectItem(j, "rect")));
	cJSON_Delete(j);
	fs_image_free(img);

	dbs_opts o;
	dbs_defaults(&o);
	o.label = "1 mm";
	o.bar_px = 140;
	dbs_truth t;
	img = dbs_make(&o, &t, err, sizeof err);
	assert_non_null(img);
	assert_int_equal(fs_databar_suggest(img, &s, err, sizeof err), 0);
	printf("1 mm over a 24 px lattice: %s, pitch %.0f µm, confidence %.2f\n", s.reading.source, s.pitch_um,
	       s.reading.confidence);
	assert_true(s.reading.has_scale);
	assert_true(s.reading.label_um == 1000);
	assert_true(s.pitch_out_of_range);
	assert_false(s.auto_ok);
	fs_image_free(img);

	/* no data bar: nothing suggested, no pitch computed */
	fs_image *flat = fs_image_new(64, 64);
	assert_int_equal(fs_databar_suggest(flat, &s, err, sizeof err), 0);
	assert_false(s.reading.found);
	assert_false(s.auto_ok);
	j = fs_databar_suggestion_json(&s);
	assert_false(cJSON_IsTrue(cJSON_GetObjectItem(j, "found")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "um_per_px")));
	cJSON_Delete(j);
	fs_image_free(flat);
}

/*
 * The data-bar reader loads the working image compact (issue 15 item 1,
 * main_databar.c): the same suggestion as from the float image - the bar,
 * its words read, the calibration and the pitch cross-check - on the SEM
 * image as the 8-bit grey file a microscope writes.
 */
static void compact_image_suggests_the_same(void **state)
{
	(void)state;
	char err[256];
	fs_image *c = fixture_image_8bit(SEM);
	assert_non_null(c);
	assert_int_equal(c->bits, 8);
	fs_image *f = fs_image_to_float(c);
	assert_non_null(f);
	fs_databar_suggestion sc, sf;
	assert_int_equal(fs_databar_suggest(c, &sc, err, sizeof err), 0);
	assert_int_equal(fs_databar_suggest(f, &sf, err, sizeof err), 0);
	assert_true(sf.reading.has_scale); /* a reading to compare, not two failures */
	assert_int_equal(sc.bar.found, sf.bar.found);
	assert_memory_equal(&sc.bar.rect, &sf.bar.rect, sizeof sc.bar.rect);
	assert_int_equal(sc.bar.n_text, sf.bar.n_text);
	assert_true(sc.bar.line_length_px == sf.bar.line_length_px);
	assert_int_equal(sc.reading.n_words, sf.reading.n_words);
	for (int i = 0; i < sf.reading.n_words; i++) {
		assert_string_equal(sc.reading.words[i], sf.reading.words[i]);
		assert_int_equal(sc.reading.word_conf[i], sf.reading.word_conf[i]);
	}
	assert_string_equal(sc.reading.source, sf.reading.source);
	assert_true(sc.reading.um_per_px == sf.reading.um_per_px);
	assert_true(sc.reading.confidence == sf.reading.confidence);
	assert_true(sc.reading.magnification == sf.reading.magnification);
	assert_true(sc.pitch_px == sf.pitch_px);
	assert_int_equal(sc.auto_ok, sf.auto_ok);
	fs_image_free(c);
	fs_image_free(f);
}

static int teardown(void **state)
{
	(void)state;
	fs_databar_ocr_shutdown();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_lengths),
		cmocka_unit_test(parse_fields),
		cmocka_unit_test(real_image),
		cmocka_unit_test(paper_figures_report_none),
		cmocka_unit_test(suggestion_cross_check),
		cmocka_unit_test(compact_image_suggests_the_same),
		cmocka_unit_test(synthetic_data_bars),
	};
	return cmocka_run_group_tests(tests, NULL, teardown);
}
