/*
 * databar_parse.c - the words of a data bar, once read, into numbers
 * (databar_read.h: fs_databar_parse, fs_databar_parse_length,
 * fs_databar_mag_um_per_px). The text is lowered, µ/μ become u, and cut into
 * numbers and letter runs; the fields are then recognised by their shape
 * (a number followed by a length unit, "x" before or after a number) or by
 * the keyword before them (Mag, EHT, Pixel Size, HFW, WD).
 */
#include "analysis/databar_read.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_NUM, T_WORD };
#define MAX_TOK 32

typedef struct tok {
	int kind;
	double num;
	char word[16];
} tok;

/* Lowers, µ (C2 B5) and μ (CE BC) -> 'u', drops everything but letters, digits, '.', ','. */
static void normalise(const char *in, char *out, size_t outlen)
{
	size_t n = 0;
	const unsigned char *s = (const unsigned char *)in;
	for (; *s && n + 1 < outlen; s++) {
		if ((s[0] == 0xC2 && s[1] == 0xB5) || (s[0] == 0xCE && s[1] == 0xBC)) {
			out[n++] = 'u';
			s++;
		} else if (isalnum(*s) || *s == '.' || *s == ',') {
			out[n++] = (char)tolower(*s);
		} else if (*s < 0x80) {
			out[n++] = ' ';
		}
	}
	out[n] = '\0';
}

/*
 * A number: digits with at most one decimal separator ('.' or ','); a comma
 * followed by exactly three digits is a thousands separator ("1,000").
 */
static int lex(const char *s, tok *t, int max)
{
	int n = 0;
	while (*s && n < max) {
		if (isdigit((unsigned char)*s)) {
			char buf[32];
			size_t k = 0;
			int dec = 0;
			while (*s && k + 1 < sizeof buf) {
				if (isdigit((unsigned char)*s)) {
					buf[k++] = *s++;
				} else if ((*s == ',' || *s == '.') && isdigit((unsigned char)s[1])) {
					int three = isdigit((unsigned char)s[1]) && isdigit((unsigned char)s[2]) &&
						    isdigit((unsigned char)s[3]) && !isdigit((unsigned char)s[4]);
					if (*s == ',' && three) {
						s++; /* thousands */
					} else if (!dec) {
						buf[k++] = '.';
						dec = 1;
						s++;
					} else {
						break;
					}
				} else {
					break;
				}
			}
			buf[k] = '\0';
			t[n].kind = T_NUM;
			t[n].num = strtod(buf, NULL);
			t[n].word[0] = '\0';
			n++;
		} else if (isalpha((unsigned char)*s)) {
			size_t k = 0;
			while (isalpha((unsigned char)*s)) {
				if (k + 1 < sizeof t[n].word)
					t[n].word[k++] = *s;
				s++;
			}
			t[n].word[k] = '\0';
			t[n].kind = T_WORD;
			t[n].num = 0;
			n++;
		} else {
			s++;
		}
	}
	/* "µ m" read with a space: one unit */
	for (int i = 0; i + 1 < n; i++)
		if (t[i].kind == T_WORD && t[i + 1].kind == T_WORD && strlen(t[i].word) == 1 &&
		    strchr("unm", t[i].word[0]) && !strcmp(t[i + 1].word, "m")) {
			t[i].word[1] = 'm';
			t[i].word[2] = '\0';
			memmove(&t[i + 1], &t[i + 2], sizeof *t * (size_t)(n - i - 2));
			n--;
		}
	return n;
}

/* µm per unit, 0 when word is no length unit. */
static double unit_um(const char *w)
{
	if (!strcmp(w, "nm"))
		return 1e-3;
	if (!strcmp(w, "um"))
		return 1;
	if (!strcmp(w, "mm"))
		return 1e3;
	return 0;
}

static const char *unit_name(const char *w)
{
	return !strcmp(w, "nm") ? "nm" : !strcmp(w, "mm") ? "mm" : "µm";
}

double fs_databar_parse_length(const char *text, double *value, char unit[8])
{
	char norm[128];
	tok t[MAX_TOK];
	normalise(text ? text : "", norm, sizeof norm);
	int n = lex(norm, t, MAX_TOK);
	/* exactly a number and a unit: anything else is not a bare label */
	if (n != 2 || t[0].kind != T_NUM || t[1].kind != T_WORD || t[0].num <= 0)
		return 0;
	double u = unit_um(t[1].word);
	if (u == 0)
		return 0;
	if (value)
		*value = t[0].num;
	if (unit)
		snprintf(unit, 8, "%s", unit_name(t[1].word));
	return t[0].num * u;
}

double fs_databar_mag_um_per_px(double mag, int width_px)
{
	if (mag <= 0 || width_px <= 0)
		return 0;
	return FS_DATABAR_MAG_REFERENCE_MM * 1000.0 / mag / width_px;
}

static double rect_gap(fs_rect a, double x0, double x1, double y0, double y1);

/* A value microscopes print on a scale bar: 1, 2, 2.5, 3, 4, 5 times a power of ten. */
static int nice_value(double v)
{
	if (v <= 0)
		return 0;
	double m = v / pow(10, floor(log10(v) + 1e-9));
	static const double ok[] = {1, 2, 2.5, 3, 4, 5, 10};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (fabs(m - ok[i]) < 1e-6)
			return 1;
	return 0;
}

/* Reads one word's fields into out; returns the length label in µm it holds (0 = none). */
static double word_fields(const char *text, fs_databar_reading *out, double *value, char unit[8])
{
	char norm[128];
	tok t[MAX_TOK];
	normalise(text, norm, sizeof norm);
	int n = lex(norm, t, MAX_TOK);
	double label = 0;
	for (int i = 0; i < n; i++) {
		if (t[i].kind == T_WORD) {
			const char *w = t[i].word;
			int next_num = i + 1 < n && t[i + 1].kind == T_NUM;
			if ((!strcmp(w, "x") || !strcmp(w, "mag") || !strcmp(w, "magx")) && next_num) {
				double m = t[i + 1].num;
				int j = i + 2;
				if (j < n && t[j].kind == T_WORD && t[j].word[0] == 'k') {
					m *= 1000;
					j++;
				}
				if (j < n && t[j].kind == T_WORD && !strcmp(t[j].word, "x"))
					j++;
				if (m > 0)
					out->magnification = m;
				i = j - 1;
			} else if ((!strcmp(w, "pixel") || !strcmp(w, "pixelsize") || !strcmp(w, "hfw") ||
				    !strcmp(w, "wd") || !strcmp(w, "fw"))) {
				int j = i + 1;
				if (j < n && t[j].kind == T_WORD && !strcmp(t[j].word, "size"))
					j++;
				if (j + 1 < n && t[j].kind == T_NUM && t[j + 1].kind == T_WORD &&
				    unit_um(t[j + 1].word) > 0) {
					double v = t[j].num * unit_um(t[j + 1].word);
					if (w[0] == 'p')
						out->pixel_size_um = v;
					else if (w[0] == 'h' || w[0] == 'f')
						out->hfw_um = v;
					i = j + 1;
				}
			}
		} else {
			int has_unit = i + 1 < n && t[i + 1].kind == T_WORD;
			const char *u = has_unit ? t[i + 1].word : "";
			if (has_unit && !strcmp(u, "kv")) {
				out->kv = t[i].num;
				i++;
			} else if (has_unit && (!strcmp(u, "x") || !strcmp(u, "kx"))) {
				out->magnification = t[i].num * (u[0] == 'k' ? 1000 : 1);
				i++;
			} else if (has_unit && unit_um(u) > 0 && label == 0 && t[i].num > 0) {
				label = t[i].num * unit_um(u);
				*value = t[i].num;
				snprintf(unit, 8, "%s", unit_name(u));
				i++;
			}
		}
	}
	return label;
}

double fs_databar_parse_label(const char *text, int descender, double *value, char unit[8])
{
	char norm[128], num[64];
	normalise(text ? text : "", norm, sizeof norm);
	/* the number, with the letters OCR takes for digits */
	const char *s = norm;
	size_t k = 0;
	while (*s == ' ')
		s++;
	int last_mapped = 0;
	for (; *s && k + 1 < sizeof num; s++) {
		char c = *s;
		int mapped = c == 'l' || c == 'i'; /* a stroke: a 1, or the µ's stem */
		if (c == 'l' || c == 'i')
			c = '1';
		else if (c == 's')
			c = '5';
		else if (c == 'o')
			c = '0';
		if (isdigit((unsigned char)c) || c == '.' || c == ',') {
			num[k++] = c;
			last_mapped = mapped;
		} else if (c != ' ') {
			break;
		}
	}
	/*
	 * An l or i read for a 1 right before the unit, after other digits, is
	 * the µ's stem when the word has a descender ("100lum" is 100 µm), not
	 * one more digit.
	 */
	if (descender && last_mapped && k > 1)
		k--;
	num[k] = '\0';
	char rest[32];
	size_t r = 0;
	for (; *s && r + 1 < sizeof rest; s++)
		if (*s != ' ')
			rest[r++] = *s;
	rest[r] = '\0';
	tok t[4];
	if (lex(num, t, 4) != 1 || t[0].kind != T_NUM || t[0].num <= 0)
		return 0;
	double u;
	if (descender) {
		/* the µ came out as u, n or m, or not at all: only those letters may follow */
		if (strspn(rest, "unm") != r)
			return 0;
		u = 1;
	} else {
		u = unit_um(rest);
		/* a µ is the only glyph of a label reaching below the line: without one, no µ */
		if (u == 0)
			return 0;
	}
	if (value)
		*value = t[0].num;
	if (unit)
		snprintf(unit, 8, "%s", u == 1 ? "µm" : u < 1 ? "nm" : "mm");
	return t[0].num * u;
}

int fs_databar_nice_value(double v)
{
	return nice_value(v);
}

double fs_databar_label_gap(const fs_databar *bar, fs_rect r)
{
	return rect_gap(r, bar->line_x0, bar->line_x1, bar->line.y, bar->line.y + bar->line.height - 1);
}

static double rect_gap(fs_rect a, double x0, double x1, double y0, double y1)
{
	double ax0 = a.x, ax1 = a.x + a.width - 1, ay0 = a.y, ay1 = a.y + a.height - 1;
	double dx = fmax(0, fmax(ax0 - x1, x0 - ax1));
	double dy = fmax(0, fmax(ay0 - y1, y0 - ay1));
	return hypot(dx, dy);
}

void fs_databar_parse(const char *const *words, const int *word_conf, const fs_rect *rects, int n,
		      const fs_databar *bar, int image_width, fs_databar_reading *out)
{
	double ocr_ms = out->ocr_ms;
	memset(out, 0, sizeof *out);
	out->ocr_ms = ocr_ms;
	out->found = bar ? bar->found : n > 0;
	out->label_word = -1;
	if (n > FS_DATABAR_MAX_TEXT)
		n = FS_DATABAR_MAX_TEXT;
	out->n_words = n;
	int best = -1;
	double best_gap = 1e300, best_um = 0, best_value = 0;
	char best_unit[8] = "";
	double th = bar && bar->text_height > 0 ? bar->text_height : 12;
	for (int i = 0; i < n; i++) {
		snprintf(out->words[i], sizeof out->words[i], "%s", words[i] ? words[i] : "");
		out->word_conf[i] = word_conf ? word_conf[i] : 100;
		double v = 0;
		char u[8] = "";
		double um = word_fields(out->words[i], out, &v, u);
		if (um <= 0)
			continue;
		double gap = 0;
		if (bar && bar->has_line && rects)
			gap = rect_gap(rects[i], bar->line_x0, bar->line_x1, bar->line.y,
				       bar->line.y + bar->line.height - 1);
		if (gap < best_gap) {
			best_gap = gap;
			best = i;
			best_um = um;
			best_value = v;
			snprintf(best_unit, sizeof best_unit, "%s", u);
		}
	}
	if (!out->found) {
		snprintf(out->reason, sizeof out->reason, "no data bar");
		return;
	}
	if (!bar || !bar->has_line) {
		snprintf(out->reason, sizeof out->reason, "no scale-bar line in the data bar");
	} else if (best < 0) {
		char seen[120] = "";
		size_t k = 0;
		for (int i = 0; i < n && k + 4 < sizeof seen; i++)
			k += (size_t)snprintf(seen + k, sizeof seen - k, "%s'%s'", i ? " " : "", out->words[i]);
		if (k >= sizeof seen)
			k = sizeof seen - 1;
		snprintf(out->reason, sizeof out->reason, "no scale-bar label read (words: %s)",
			 n ? seen : "none");
	} else if (best_gap > 4 * th) {
		snprintf(out->reason, sizeof out->reason, "the label '%s' is not next to the bar",
			 out->words[best]);
	} else {
		out->has_scale = 1;
		out->label_word = best;
		out->label_value = best_value;
		out->label_um = best_um;
		snprintf(out->label_unit, sizeof out->label_unit, "%s", best_unit);
		out->bar_px = bar->line_length_px;
		out->um_per_px = best_um / bar->line_length_px;
		double c = out->word_conf[best] / 100.0;
		if (!nice_value(best_value))
			c *= 0.5;
		if (best_gap > 1.5 * th)
			c *= 0.8;
		out->confidence = fmax(0, fmin(1, c));
		snprintf(out->source, sizeof out->source, "scale bar %g %s = %.1f px", best_value, best_unit,
			 bar->line_length_px);
	}
	if (out->magnification > 0) {
		out->mag_um_per_px = fs_databar_mag_um_per_px(out->magnification, image_width);
		if (out->has_scale && out->mag_um_per_px > 0)
			out->mag_disagrees =
				fabs(out->mag_um_per_px - out->um_per_px) / out->um_per_px > FS_DATABAR_MAG_TOLERANCE;
	}
}
