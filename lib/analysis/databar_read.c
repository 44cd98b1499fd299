/*
 * databar_read.c - reading a found data bar (databar_read.h): every word
 * through Tesseract, the fields parsed (databar_parse.c), and the label
 * read a second time at another rendering size; the two readings must
 * agree for the confidence to stay high, since a misread digit rarely
 * misreads the same way twice.
 */
#include "analysis/databar_read.h"
#include "analysis/databar_ocr.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Reads every word at one rendering size into text/conf. */
static int read_words(const fs_image *img, const fs_databar *bar, double scale,
		      char text[][FS_DATABAR_WORD_TEXT], int *conf, char *err, size_t errlen)
{
	for (int i = 0; i < bar->n_text && i < FS_DATABAR_MAX_TEXT; i++)
		if (fs_databar_ocr_word(img, bar, bar->text[i], scale, 0, text[i], FS_DATABAR_WORD_TEXT, &conf[i], err,
					errlen))
			return -1;
	return 0;
}

static void parse_words(char text[][FS_DATABAR_WORD_TEXT], const int *conf, const fs_image *img,
			const fs_databar *bar, fs_databar_reading *out)
{
	const char *w[FS_DATABAR_MAX_TEXT];
	int n = bar->n_text < FS_DATABAR_MAX_TEXT ? bar->n_text : FS_DATABAR_MAX_TEXT;
	for (int i = 0; i < n; i++)
		w[i] = text[i];
	fs_databar_parse(w, conf, bar->text, n, bar, img->width, out);
}

/* One reading of the label word with the label characters. */
static int read_label(const fs_image *img, const fs_databar *bar, int k, double scale, int descender,
		      char *text, size_t textlen, int *conf, double *value, char unit[8], double *um, char *err,
		      size_t errlen)
{
	*um = 0;
	if (fs_databar_ocr_word(img, bar, bar->text[k], scale, 1, text, textlen, conf, err, errlen))
		return -1;
	*um = fs_databar_parse_label(text, descender, value, unit);
	return 0;
}

int fs_databar_read(const fs_image *img, const fs_databar *bar, fs_databar_reading *out, char *err,
		    size_t errlen)
{
	memset(out, 0, sizeof *out);
	out->label_word = -1;
	if (!img || !bar) {
		snprintf(err, errlen, "no image or data bar");
		return -1;
	}
	if (!bar->found) {
		snprintf(out->reason, sizeof out->reason, "no data bar");
		return 0;
	}
	int conf[FS_DATABAR_MAX_TEXT] = {0};
	char t1[FS_DATABAR_MAX_TEXT][FS_DATABAR_WORD_TEXT];
	double t0 = now_ms();
	/* every word with the fields' characters: magnification, kV, pixel size, HFW */
	if (read_words(img, bar, 1.0, t1, conf, err, errlen))
		return -1;
	parse_words(t1, conf, img, bar, out);
	/*
	 * The label: the word nearest the bar, read twice more with the label's
	 * characters at two sizes; a µ is told by its descender.
	 */
	int k = -1;
	double best = 1e300, th = bar->text_height > 0 ? bar->text_height : 12;
	for (int i = 0; bar->has_line && i < bar->n_text && i < FS_DATABAR_MAX_TEXT; i++) {
		double g = fs_databar_label_gap(bar, bar->text[i]);
		if (g < best) {
			best = g;
			k = i;
		}
	}
	if (k >= 0 && best <= 4 * th) {
		int desc = fs_databar_word_descender(img, bar, bar->text[k]);
		/*
		 * Three readings at three rendering sizes: all three agreeing make
		 * a label that may be applied without a person; two of three are
		 * shown but not applied by themselves (a misread digit sometimes
		 * comes out the same at two sizes, rarely at three); a lone
		 * reading likewise, lower still.
		 */
		static const double sizes[3] = {1.0, 0.75, 1.3};
		char txt[3][FS_DATABAR_WORD_TEXT];
		int cf[3] = {0};
		double val[3] = {0}, len[3] = {0};
		char un[3][8] = {"", "", ""};
		for (int j = 0; j < 3; j++)
			if (read_label(img, bar, k, sizes[j], desc, txt[j], sizeof txt[j], &cf[j], &val[j], un[j], &len[j],
				       err, errlen))
				return -1;
		int pick = -1, votes = 0;
		for (int j = 0; j < 3; j++) {
			if (len[j] <= 0)
				continue;
			int n = 0;
			for (int i = 0; i < 3; i++)
				n += len[i] > 0 && fabs(len[i] - len[j]) <= 1e-9 * len[j];
			if (n > votes || (n == votes && pick >= 0 && cf[j] > cf[pick])) {
				votes = n;
				pick = j;
			}
		}
		double c = 0, um = 0, v = 0;
		const char *unit = "";
		if (pick >= 0) {
			/* agreement is the evidence; Tesseract's own figure adds little */
			c = 0.85 + 0.15 * cf[pick] / 100.0;
			if (votes == 2)
				c *= 0.75;
			else if (votes < 2)
				c *= 0.4;
			um = len[pick], v = val[pick], unit = un[pick];
		}
		int ca = pick >= 0 ? cf[pick] : 0;
		if (um > 0) {
			if (!fs_databar_nice_value(v))
				c *= 0.5;
			if (best > 1.5 * th)
				c *= 0.8;
			out->has_scale = 1;
			out->label_word = k;
			out->label_value = v;
			out->label_um = um;
			snprintf(out->label_unit, sizeof out->label_unit, "%s", unit);
			snprintf(out->words[k], sizeof out->words[k], "%g %s", v, unit);
			out->word_conf[k] = ca;
			out->bar_px = bar->line_length_px;
			out->um_per_px = um / bar->line_length_px;
			out->confidence = fmax(0, fmin(1, c));
			snprintf(out->source, sizeof out->source, "scale bar %g %s = %.1f px", v, unit,
				 bar->line_length_px);
			out->reason[0] = '\0';
		} else if (out->has_scale) {
			/* the fields' reading found a label the label's reading does not confirm */
			out->confidence *= 0.4;
		}
	}
	if (out->has_scale && out->mag_um_per_px > 0)
		out->mag_disagrees = fabs(out->mag_um_per_px - out->um_per_px) / out->um_per_px > FS_DATABAR_MAG_TOLERANCE;
	out->ocr_ms = now_ms() - t0;
	return 0;
}

int fs_databar_read_image(const fs_image *img, fs_databar *bar, fs_databar_reading *out, char *err,
			  size_t errlen)
{
	if (fs_databar_find(img, bar, err, errlen)) {
		memset(out, 0, sizeof *out);
		out->label_word = -1;
		return -1;
	}
	return fs_databar_read(img, bar, out, err, errlen);
}
