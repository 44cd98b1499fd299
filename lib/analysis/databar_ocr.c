/*
 * databar_ocr.c - Tesseract on the words of a data bar (databar_ocr.h).
 */
#include "analysis/databar_ocr.h"
#include "analysis/databar_read.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tesseract/capi.h>

/*
 * Only the characters data bars print: digits and separators, the units,
 * and the letters of the fields' names (EHT, Mag, Pixel Size, HFW, WD, kV,
 * x for the magnification). Fewer characters, fewer confusions: an "O" can
 * no longer stand for a zero.
 */
static const char WHITELIST[] = "0123456789.,=:xXkKVmnuMagEHTPixelSzFWD";
/*
 * A label holds only a number and a unit. Tesseract's English model has no
 * µ at all: the µ comes out as u, n or m, and the word's shape tells
 * (fs_databar_word_descender). The letters that look like digits are
 * allowed (and read as digits by fs_databar_parse_label): without them
 * Tesseract drops a lone "1" rather than call it a digit.
 */
static const char LABEL_WHITELIST[] = "0123456789.,unmlIiSsOo";

static pthread_mutex_t engine_lock = PTHREAD_MUTEX_INITIALIZER;
static TessBaseAPI *engine;

/* Called with engine_lock held. */
static int engine_start(char *err, size_t errlen)
{
	if (engine)
		return 0;
	TessBaseAPI *h = TessBaseAPICreate();
	if (!h) {
		snprintf(err, errlen, "cannot create the OCR engine");
		return -1;
	}
	/* Tesseract prints its warnings on stderr: a server's log has no use for them */
	TessBaseAPISetVariable(h, "debug_file", "/dev/null");
	if (TessBaseAPIInit3(h, NULL, "eng") != 0) {
		TessBaseAPIDelete(h);
		snprintf(err, errlen, "cannot start Tesseract: English language data (tesseract-ocr-eng) not found");
		return -1;
	}
	/* the rendering is about 40 px per glyph, i.e. 10-12 pt at 300 dpi */
	TessBaseAPISetVariable(h, "user_defined_dpi", "300");
	/* words of a data bar are not dictionary words */
	TessBaseAPISetVariable(h, "load_system_dawg", "0");
	TessBaseAPISetVariable(h, "load_freq_dawg", "0");
	TessBaseAPISetPageSegMode(h, PSM_SINGLE_LINE);
	engine = h;
	return 0;
}

void fs_databar_ocr_shutdown(void)
{
	pthread_mutex_lock(&engine_lock);
	if (engine) {
		TessBaseAPIEnd(engine);
		TessBaseAPIDelete(engine);
		engine = NULL;
	}
	pthread_mutex_unlock(&engine_lock);
}

/* Keeps the text from the first non-space to the last, µ (U+00B5) for μ (U+03BC). */
static void clean_text(const char *in, char *out, size_t outlen)
{
	size_t n = 0;
	const unsigned char *s = (const unsigned char *)in;
	while (*s == ' ' || *s == '\n' || *s == '\t')
		s++;
	for (; *s && n + 3 < outlen; s++) {
		if (s[0] == 0xCE && s[1] == 0xBC) { /* μ -> µ */
			out[n++] = (char)0xC2;
			out[n++] = (char)0xB5;
			s++;
			continue;
		}
		out[n++] = *s == '\n' || *s == '\t' ? ' ' : (char)*s;
	}
	while (n > 0 && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
}

/* Ink test shared by the rendering and the descender test. */
static double ink_threshold(const fs_databar *bar)
{
	double d = fabs(bar->ink_level - bar->background_level) / 2;
	return bar->is_band ? d : fmin(0.3, d);
}

int fs_databar_word_descender(const fs_image *img, const fs_databar *bar, fs_rect r)
{
	/* over the image, only levels close to the ink's: the scale surface may be as dark or bright */
	double thr = bar->is_band ? ink_threshold(bar) : fmin(ink_threshold(bar), 0.12);
	double th = bar->text_height > 4 ? bar->text_height : 12;
	int n = 0, nb = 0;
	int *bottom = malloc(sizeof(int) * (size_t)(r.width > 0 ? r.width : 1));
	if (!bottom)
		return 0;
	for (int x = r.x; x < r.x + r.width; x++) {
		if (x < 0 || x >= img->width)
			continue;
		int count = 0, b = -1;
		for (int y = r.y; y < r.y + r.height; y++) {
			if (y < 0 || y >= img->height)
				continue;
			if (fabs(fs_image_value(img, x, y) - bar->ink_level) < thr) {
				count++;
				b = y;
			}
		}
		if (count >= 2)
			bottom[n++] = b;
	}
	if (n < 4) {
		free(bottom);
		return 0;
	}
	/* the baseline: the median bottom of the inked columns */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && bottom[j - 1] > bottom[j]; j--) {
			int t = bottom[j];
			bottom[j] = bottom[j - 1];
			bottom[j - 1] = t;
		}
	int base = bottom[n / 2];
	for (int i = 0; i < n; i++)
		nb += bottom[i] >= base + fmax(2, 0.15 * th);
	free(bottom);
	return nb >= 1 && nb < n / 3;
}

int fs_databar_ocr_word(const fs_image *img, const fs_databar *bar, fs_rect r, double scale, int label_only,
			char *text, size_t textlen, int *conf, char *err, size_t errlen)
{
	text[0] = '\0';
	*conf = 0;
	double th = bar->text_height > 4 ? bar->text_height : 12;
	double s = 40.0 / th * scale;
	if (s < 1)
		s = 1;
	if (s > 6)
		s = 6;
	double pad = 0.3 * th;
	double x0 = r.x - pad, y0 = r.y - pad;
	double ww = r.width + 2 * pad, hh = r.height + 2 * pad;
	int margin = 16;
	int W = (int)ceil(ww * s) + 2 * margin, H = (int)ceil(hh * s) + 2 * margin;
	unsigned char *buf = malloc((size_t)W * H);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memset(buf, 255, (size_t)W * H);
	/*
	 * Ink where the level is nearer the glyphs' level than the background's;
	 * over the image (no band) the background is the scale surface itself,
	 * so only levels close to the ink's count.
	 */
	double ink = bar->ink_level;
	double thr = ink_threshold(bar);
	for (int y = 0; y < H - 2 * margin; y++)
		for (int x = 0; x < W - 2 * margin; x++) {
			/* rounded to a float sample as before, so the same pixels are ink */
			double v = (float)fs_image_sample_clamped_any(img, x0 + (x + 0.5) / s - 0.5, y0 + (y + 0.5) / s - 0.5);
			if (fabs(v - ink) < thr)
				buf[(size_t)(y + margin) * W + x + margin] = 0;
		}
	pthread_mutex_lock(&engine_lock);
	int rc = engine_start(err, errlen);
	if (rc == 0) {
		TessBaseAPISetVariable(engine, "tessedit_char_whitelist", label_only ? LABEL_WHITELIST : WHITELIST);
		TessBaseAPISetImage(engine, buf, W, H, 1, W);
		TessBaseAPISetSourceResolution(engine, 300);
		char *t = TessBaseAPIGetUTF8Text(engine);
		if (t) {
			clean_text(t, text, textlen);
			TessDeleteText(t);
			*conf = TessBaseAPIMeanTextConf(engine);
		}
		TessBaseAPIClear(engine);
	}
	pthread_mutex_unlock(&engine_lock);
	free(buf);
	return rc;
}
