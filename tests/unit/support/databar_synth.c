/* databar_synth.c - synthetic SEM data bars drawn with FreeType (see databar_synth.h). */
#include "databar_synth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ft2build.h>
#include FT_FREETYPE_H
#include <jpeglib.h>

#include "image/image_io.h"
#include "synth.h"
#include "test_rng.h"

const char *const dbs_fonts[] = {
	"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
	"/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
	"/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
	"/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf",
	"/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
	"/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
	"/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf",
	"/usr/share/fonts/truetype/liberation/LiberationMono-Bold.ttf",
};
const int dbs_n_fonts = (int)(sizeof dbs_fonts / sizeof dbs_fonts[0]);

void dbs_defaults(dbs_opts *o)
{
	memset(o, 0, sizeof *o);
	o->width = 1024;
	o->height = 768;
	o->style = DBS_OVERLAY;
	o->light_on_dark = 1;
	o->font = dbs_fonts[1];
	o->text_px = 28;
	o->bar_px = 140;
	o->bar_thickness = 5;
	o->label = "20 µm";
	o->pitch = 24;
	o->noise = 0.02;
	o->seed = 1;
}

/* Next code point of UTF-8 s (advances *s); 0 at the end. */
static unsigned utf8_next(const char **s)
{
	const unsigned char *p = (const unsigned char *)*s;
	unsigned c = p[0];
	int n = 0;
	if (!c)
		return 0;
	if (c < 0x80)
		n = 0;
	else if ((c & 0xE0) == 0xC0) {
		c &= 0x1F;
		n = 1;
	} else if ((c & 0xF0) == 0xE0) {
		c &= 0x0F;
		n = 2;
	} else {
		c &= 0x07;
		n = 3;
	}
	p++;
	for (int i = 0; i < n && (*p & 0xC0) == 0x80; i++, p++)
		c = (c << 6) | (*p & 0x3F);
	*s = (const char *)p;
	return c;
}

typedef struct canvas {
	fs_image *img;
	float ink;
	fs_rect box; /* union of what was drawn; width 0 = nothing yet */
} canvas;

static void box_add(fs_rect *b, int x0, int y0, int x1, int y1)
{
	if (b->width == 0) {
		*b = (fs_rect){x0, y0, x1 - x0 + 1, y1 - y0 + 1};
		return;
	}
	int bx1 = b->x + b->width - 1, by1 = b->y + b->height - 1;
	if (x0 < b->x)
		b->x = x0;
	if (y0 < b->y)
		b->y = y0;
	if (x1 > bx1)
		bx1 = x1;
	if (y1 > by1)
		by1 = y1;
	b->width = bx1 - b->x + 1;
	b->height = by1 - b->y + 1;
}

static void blend(canvas *c, int x, int y, double a)
{
	if (x < 0 || y < 0 || x >= c->img->width || y >= c->img->height || a <= 0)
		return;
	if (a > 1)
		a = 1;
	float *p = &c->img->data[(size_t)y * c->img->width + x];
	*p = (float)(*p * (1 - a) + c->ink * a);
}

/* Width of s in pixels (advances), and its ink box relative to the pen at (0, baseline). */
static int text_measure(FT_Face face, const char *s, int *top, int *bottom)
{
	int pen = 0;
	*top = 0;
	*bottom = 0;
	for (unsigned cp; (cp = utf8_next(&s));) {
		if (FT_Load_Char(face, cp, FT_LOAD_RENDER))
			continue;
		FT_GlyphSlot g = face->glyph;
		if (g->bitmap.rows) {
			if (-g->bitmap_top < *top)
				*top = -g->bitmap_top;
			if ((int)g->bitmap.rows - g->bitmap_top > *bottom)
				*bottom = (int)g->bitmap.rows - g->bitmap_top;
		}
		pen += (int)(g->advance.x >> 6);
	}
	return pen;
}

/* Draws s with its pen starting at (x, baseline); adds the ink to box. */
static void text_draw(canvas *c, FT_Face face, const char *s, int x, int baseline, fs_rect *box)
{
	int pen = x;
	for (unsigned cp; (cp = utf8_next(&s));) {
		if (FT_Load_Char(face, cp, FT_LOAD_RENDER))
			continue;
		FT_GlyphSlot g = face->glyph;
		FT_Bitmap *bm = &g->bitmap;
		int gx = pen + g->bitmap_left, gy = baseline - g->bitmap_top;
		for (unsigned r = 0; r < bm->rows; r++)
			for (unsigned k = 0; k < bm->width; k++) {
				unsigned char v = bm->buffer[r * (unsigned)abs(bm->pitch) + k];
				if (!v)
					continue;
				blend(c, gx + (int)k, gy + (int)r, v / 255.0);
				if (v < 128)
					continue; /* the boxes hold the pixels at least half covered */
				if (box)
					box_add(box, gx + (int)k, gy + (int)r, gx + (int)k, gy + (int)r);
				box_add(&c->box, gx + (int)k, gy + (int)r, gx + (int)k, gy + (int)r);
			}
		pen += (int)(g->advance.x >> 6);
	}
}

/* A horizontal span [x0, x1] (continuous, pixel-centre coordinates) over rows y0..y1. */
static void span(canvas *c, double x0, double x1, int y0, int y1)
{
	for (int x = (int)floor(x0); x <= (int)ceil(x1); x++) {
		double a = fmin(x + 0.5, x1) - fmax(x - 0.5, x0);
		if (a <= 0)
			continue;
		for (int y = y0; y <= y1; y++)
			blend(c, x, y, a);
		box_add(&c->box, x, y0, x, y1);
	}
}

static void draw_bar(canvas *c, const dbs_opts *o, double x0, int ytop, dbs_truth *t)
{
	double x1 = x0 + o->bar_px;
	int th = o->bar_thickness;
	span(c, x0, x1, ytop, ytop + th - 1);
	if (o->ticks) {
		int tick = th * 3 / 2 + 2;
		double tw = th < 2 ? 2 : th;
		span(c, x0, x0 + tw, ytop - tick, ytop - 1);
		span(c, x0, x0 + tw, ytop + th, ytop + th - 1 + tick);
		span(c, x1 - tw, x1, ytop - tick, ytop - 1);
		span(c, x1 - tw, x1, ytop + th, ytop + th - 1 + tick);
	}
	t->bar_x0 = x0;
	t->bar_x1 = x1;
	t->bar_y = ytop + (th - 1) / 2.0;
}

static int jpeg_round_trip(fs_image **img, int quality, char *err, size_t errlen)
{
	struct jpeg_compress_struct ci;
	struct jpeg_error_mgr jerr;
	unsigned char *out = NULL;
	unsigned long out_len = 0;
	fs_image *im = *img;
	unsigned char *row = malloc((size_t)im->width);
	if (!row) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ci.err = jpeg_std_error(&jerr);
	jpeg_create_compress(&ci);
	jpeg_mem_dest(&ci, &out, &out_len);
	ci.image_width = (JDIMENSION)im->width;
	ci.image_height = (JDIMENSION)im->height;
	ci.input_components = 1;
	ci.in_color_space = JCS_GRAYSCALE;
	jpeg_set_defaults(&ci);
	jpeg_set_quality(&ci, quality, TRUE);
	jpeg_start_compress(&ci, TRUE);
	while (ci.next_scanline < ci.image_height) {
		const float *src = im->data + (size_t)ci.next_scanline * im->width;
		for (int x = 0; x < im->width; x++) {
			double v = src[x] < 0 ? 0 : src[x] > 1 ? 1 : src[x];
			row[x] = (unsigned char)lrint(v * 255);
		}
		JSAMPROW r[1] = {row};
		jpeg_write_scanlines(&ci, r, 1);
	}
	jpeg_finish_compress(&ci);
	jpeg_destroy_compress(&ci);
	free(row);
	fs_loaded L;
	int rc = fs_load_memory(out, out_len, NULL, &L, err, errlen);
	free(out);
	if (rc)
		return -1;
	fs_image_free(*img);
	*img = L.image;
	L.image = NULL;
	fs_loaded_free(&L);
	return 0;
}

fs_image *dbs_make(const dbs_opts *o, dbs_truth *t, char *err, size_t errlen)
{
	FT_Library lib = NULL;
	FT_Face face = NULL;
	fs_image *img = NULL;
	memset(t, 0, sizeof *t);
	if (FT_Init_FreeType(&lib)) {
		snprintf(err, errlen, "FreeType did not start");
		return NULL;
	}
	if (FT_New_Face(lib, o->font, 0, &face) || FT_Set_Pixel_Sizes(face, 0, (FT_UInt)o->text_px)) {
		snprintf(err, errlen, "cannot load font %s", o->font);
		goto fail;
	}
	synth_opts so;
	synth_defaults(&so);
	so.width = o->width;
	so.height = o->height;
	so.pitch = o->pitch;
	so.noise = o->noise;
	so.background = 0.25;
	so.contrast = 0.4;
	so.blur = 1.5;
	so.seed = o->seed;
	synth_truth st;
	img = synth_make(&so, &st);
	synth_truth_free(&st);
	if (!img) {
		snprintf(err, errlen, "synthetic scale failed");
		goto fail;
	}
	uint64_t rs = 0xA5A5A5A5ULL ^ ((uint64_t)o->seed * 104729 + 7);
	test_xs64(&rs);
	canvas cv = {img, o->light_on_dark ? 1.0f : 0.0f, {0, 0, 0, 0}};
	int W = o->width, H = o->height, T = o->text_px;
	int ltop, lbot, ftop, fbot;
	int lw = text_measure(face, o->label, &ltop, &lbot);
	int cap = -ltop; /* height above the baseline */
	int gap = T / 2;

	if (o->style == DBS_BAND) {
		int bh = (int)lrint(2.4 * T) + lbot + o->bar_thickness + (o->ticks ? 2 * o->bar_thickness + 4 : 0);
		int y0 = o->band_top ? 0 : H - bh;
		float band = o->light_on_dark ? 0.0f : 1.0f;
		for (int y = y0; y < y0 + bh; y++)
			for (int x = 0; x < W; x++)
				img->data[(size_t)y * W + x] = band;
		if (o->separator) {
			int sy = o->band_top ? y0 + bh - 2 : y0;
			for (int y = sy; y < sy + 2; y++)
				for (int x = 0; x < W; x++)
					img->data[(size_t)y * W + x] = cv.ink;
		}
		int mid = y0 + bh / 2;
		/* the bar at the right; fields on the left, one after the other,
		 * centred in the band, as many as fit before the bar */
		double bx = W - T - o->bar_px - (o->layout == DBS_LABEL_BESIDE ? lw + T : 0);
		if (o->layout == DBS_LABEL_ABOVE && lw > o->bar_px)
			bx -= (lw - o->bar_px) / 2;
		int x = T;
		for (int i = 0; i < 4 && o->fields[i]; i++) {
			int fw = text_measure(face, o->fields[i], &ftop, &fbot);
			if (x + fw > bx - T)
				break;
			text_draw(&cv, face, o->fields[i], x, mid + cap / 2, NULL);
			x += fw + 2 * T;
		}
		if (o->layout == DBS_LABEL_BESIDE) {
			int ytop = mid - o->bar_thickness / 2;
			draw_bar(&cv, o, bx, ytop, t);
			text_draw(&cv, face, o->label, (int)(bx + o->bar_px) + T / 2, mid + cap / 2, &t->label);
		} else {
			int base = y0 + (bh - cap - lbot - gap / 2 - o->bar_thickness) / 2 + cap;
			int lx = (int)lrint(bx + o->bar_px / 2 - lw / 2.0);
			text_draw(&cv, face, o->label, lx, base, &t->label);
			draw_bar(&cv, o, bx, base + lbot + gap / 2 + (o->ticks ? o->bar_thickness + 2 : 0), t);
		}
		t->rect = (fs_rect){0, y0, W, bh};
	} else {
		int base = H - T - lbot;
		int x = (int)(0.08 * W);
		/* the fields that fit before the bar and its label */
		double need = o->layout == DBS_LABEL_BESIDE ? o->bar_px + T + lw : fmax(o->bar_px, lw);
		for (int i = 0; i < 4 && o->fields[i]; i++) {
			int fw = text_measure(face, o->fields[i], &ftop, &fbot);
			if (x + fw + 3 * T + need > W - T)
				break;
			text_draw(&cv, face, o->fields[i], x, base, NULL);
			x += fw + 3 * T;
		}
		if (o->layout == DBS_LABEL_BESIDE) {
			double bx = x;
			if (bx + o->bar_px + T + lw > W - T)
				bx = W - T - lw - T - o->bar_px;
			int ytop = base - cap / 2 - o->bar_thickness / 2;
			draw_bar(&cv, o, bx, ytop, t);
			text_draw(&cv, face, o->label, (int)(bx + o->bar_px) + T, base, &t->label);
		} else {
			/* JEOL: the label under the bar, both right of the fields */
			double bx = x + (lw > o->bar_px ? (lw - o->bar_px) / 2 : 0);
			if (bx + o->bar_px > W - T)
				bx = W - T - o->bar_px;
			int lx = (int)lrint(bx + o->bar_px / 2 - lw / 2.0);
			text_draw(&cv, face, o->label, lx, base, &t->label);
			int ytop = base - cap - gap - o->bar_thickness - (o->ticks ? o->bar_thickness + 2 : 0);
			draw_bar(&cv, o, bx, ytop, t);
		}
		t->rect = cv.box;
	}
	if (o->jpeg_quality > 0 && jpeg_round_trip(&img, o->jpeg_quality, err, errlen))
		goto fail;
	FT_Done_Face(face);
	FT_Done_FreeType(lib);
	return img;
fail:
	fs_image_free(img);
	if (face)
		FT_Done_Face(face);
	FT_Done_FreeType(lib);
	return NULL;
}

static int rng_int(uint64_t *s, int lo, int hi)
{
	return lo + (int)(test_xs64_unit(s) * (hi - lo + 1));
}

void dbs_random(unsigned seed, dbs_case *c)
{
	static const double um_vals[] = {1, 2, 5, 10, 20, 50, 100, 200, 500};
	static const double nm_vals[] = {100, 200, 500};
	static const double mm_vals[] = {1, 2};
	static const double mags[] = {100, 250, 500, 700, 1000, 1500, 2000, 3500, 5000, 10000, 20000};
	static const double kvs[] = {5, 10, 15, 20, 25};
	uint64_t s = 0xD1B54A32D192ED03ULL ^ ((uint64_t)seed * 6364136223846793005ULL + 1);
	test_xs64(&s);
	memset(c, 0, sizeof *c);
	dbs_opts *o = &c->o;
	dbs_defaults(o);
	o->seed = seed;
	o->style = test_xs64_unit(&s) < 0.5 ? DBS_OVERLAY : DBS_BAND;
	o->band_top = o->style == DBS_BAND && test_xs64_unit(&s) < 0.2;
	o->layout = test_xs64_unit(&s) < 0.5 ? DBS_LABEL_ABOVE : DBS_LABEL_BESIDE;
	o->light_on_dark = test_xs64_unit(&s) < 0.6;
	o->font = dbs_fonts[rng_int(&s, 0, dbs_n_fonts - 1)];
	o->text_px = rng_int(&s, 14, 36);
	o->bar_px = 50 + 350 * test_xs64_unit(&s);
	o->bar_thickness = rng_int(&s, 2, 8);
	o->ticks = test_xs64_unit(&s) < 0.3;
	o->separator = o->style == DBS_BAND && test_xs64_unit(&s) < 0.5;
	o->pitch = 16 + 24 * test_xs64_unit(&s);
	o->noise = 0.01 + 0.04 * test_xs64_unit(&s);
	o->jpeg_quality = test_xs64_unit(&s) < 0.5 ? rng_int(&s, 60, 95) : 0;
	if (test_xs64_unit(&s) < 0.5) {
		o->width = 1280;
		o->height = 960;
	}
	/* the label: unit, value, spelling */
	double u = test_xs64_unit(&s);
	const char *sp = test_xs64_unit(&s) < 0.5 ? "" : " ";
	if (u < 0.15) {
		double v = nm_vals[rng_int(&s, 0, 2)];
		c->label_um = v / 1000;
		snprintf(c->label, sizeof c->label, "%g%snm", v, sp);
	} else if (u < 0.25) {
		double v = mm_vals[rng_int(&s, 0, 1)];
		c->label_um = v * 1000;
		snprintf(c->label, sizeof c->label, "%g%smm", v, sp);
	} else {
		double v = um_vals[rng_int(&s, 0, 8)];
		static const char *const micro[] = {"µm", "μm", "um"};
		c->label_um = v;
		snprintf(c->label, sizeof c->label, "%g%s%s", v, sp, micro[rng_int(&s, 0, 2)]);
	}
	o->label = c->label;
	c->mag = mags[rng_int(&s, 0, 10)];
	c->kv = kvs[rng_int(&s, 0, 4)];
	if (o->style == DBS_OVERLAY) {
		/* JEOL "20kV  X700", Hitachi "15.0kV x1.00k"-like, or "x 1,000" */
		snprintf(c->field[0], sizeof c->field[0], "%gkV", c->kv);
		if (c->mag >= 1000 && test_xs64_unit(&s) < 0.5)
			snprintf(c->field[1], sizeof c->field[1], "x %d,%03d", (int)c->mag / 1000, (int)c->mag % 1000);
		else
			snprintf(c->field[1], sizeof c->field[1], "X%g", c->mag);
	} else {
		snprintf(c->field[0], sizeof c->field[0], "EHT = %.2f kV", c->kv);
		snprintf(c->field[1], sizeof c->field[1], "Mag = %g X", c->mag);
	}
	o->fields[0] = c->field[0];
	o->fields[1] = c->field[1];
}
