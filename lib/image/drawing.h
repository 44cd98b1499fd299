/*
 * drawing.h - a vector drawing (a list of lines, rectangles, circles,
 * polygons and text in user units, with groups) and its two renderings:
 * SVG text, and RGB pixels rasterised here with antialiasing and
 * translucent fills, so a chart is drawn once and both renderings show the
 * same picture (the Compare chart: analysis/compare_chart.h).
 *
 * Text: SVG names the font family "DejaVu Sans" (falling back to the
 * browser's sans-serif); the raster rendering uses that font through
 * FreeType when the font file can be opened, else the built-in 5x7 bitmap
 * font (font.h). Layout code measures text with fs_draw_text_width, the
 * same estimate for both, so nothing moves between the renderings.
 *
 * Errors: the fs_draw_* calls record an out-of-memory failure in the
 * drawing instead of returning it, so that a builder need not check every
 * call; fs_drawing_svg and fs_drawing_raster then fail.
 *
 * Ownership: fs_drawing_new returns a drawing the caller frees with
 * fs_drawing_free (tolerates NULL); every string passed in is copied.
 * fs_drawing_raster fills a caller's fs_rgb (free with fs_rgb_free);
 * fs_drawing_png returns a malloc'ed buffer (caller frees).
 */
#ifndef FS_DRAWING_H
#define FS_DRAWING_H

#include <stddef.h>

#include "base/buf.h"
#include "image/render.h"

/* A colour with opacity a (0 = nothing is drawn, 255 = opaque). */
typedef struct fs_color {
	unsigned char r, g, b, a;
} fs_color;

static inline fs_color fs_rgba(unsigned char r, unsigned char g, unsigned char b, unsigned char a)
{
	fs_color c = {r, g, b, a};
	return c;
}
#define FS_NONE fs_rgba(0, 0, 0, 0)

enum fs_text_anchor { FS_ANCHOR_START = 0, FS_ANCHOR_MIDDLE, FS_ANCHOR_END };
enum fs_text_flags {
	FS_TEXT_BOLD = 1,
	FS_TEXT_ITALIC = 2,   /* SVG only; the raster font has no italic */
	FS_TEXT_VERTICAL = 4  /* rotated by -90 degrees: reads bottom to top */
};

/* The default font file for the raster rendering (fonts-dejavu-core). */
#define FS_DRAWING_FONT "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

typedef struct fs_drawing fs_drawing;

/* A drawing of width x height user units on the given background (a = 0: none). */
fs_drawing *fs_drawing_new(double width, double height, fs_color background);
void fs_drawing_free(fs_drawing *d);
double fs_drawing_width(const fs_drawing *d);
double fs_drawing_height(const fs_drawing *d);
/* Changes the size (a builder that learns its height at the end). */
void fs_drawing_resize(fs_drawing *d, double width, double height);
/* Number of items drawn so far (groups count). */
size_t fs_drawing_count(const fs_drawing *d);

/* Shapes: fill and/or stroke (either may be FS_NONE); the stroke is centred
 * on the outline, width in user units. A dashed line alternates 4 and 3
 * times its width. */
void fs_draw_line(fs_drawing *d, double x1, double y1, double x2, double y2, fs_color stroke, double width,
		  int dashed);
void fs_draw_rect(fs_drawing *d, double x, double y, double w, double h, fs_color fill, fs_color stroke,
		  double stroke_width);
void fs_draw_circle(fs_drawing *d, double cx, double cy, double r, fs_color fill, fs_color stroke,
		    double stroke_width);
/* A closed polygon of n points (xy = x0, y0, x1, y1, ...; 3 <= n <= 16). */
void fs_draw_polygon(fs_drawing *d, const double *xy, int n, fs_color fill, fs_color stroke, double stroke_width);
/* Text (UTF-8) with its baseline at y; x is its start, middle or end by
 * anchor; size = font size (em) in user units. */
void fs_draw_text(fs_drawing *d, double x, double y, const char *text, double size, int anchor, int flags,
		  fs_color color);
/* Width the layout assumes for text at size (an estimate of DejaVu Sans). */
double fs_draw_text_width(const char *text, double size);

/*
 * Groups: everything drawn until the matching fs_draw_group_end is one SVG
 * <g>, moved by (dx, dy), with the attributes attrs (name, value pairs,
 * NULL-terminated; names of letters, digits and '-' only, others are
 * skipped) and a <title> (hover text; NULL for none). The raster rendering
 * applies the offset and ignores the rest.
 */
void fs_draw_group_begin(fs_drawing *d, double dx, double dy, const char *const *attrs, const char *title);
void fs_draw_group_end(fs_drawing *d);

/* The drawing as a standalone SVG document (UTF-8, text escaped). 0 or -1. */
int fs_drawing_svg(const fs_drawing *d, fs_buf *out);

/*
 * Rasterises at scale pixels per user unit (0.1..8) into *out (RGB).
 * font_path: a TrueType/OpenType file (NULL: FS_DRAWING_FONT); when it
 * cannot be opened the bitmap font is used. *used_freetype (may be NULL)
 * says which. Returns 0, or -1 with a message (out of memory, too large:
 * more than 64 megapixels).
 */
int fs_drawing_raster(const fs_drawing *d, double scale, const char *font_path, fs_rgb *out, int *used_freetype,
		      char *err, size_t errlen);
/* The same, encoded as PNG. */
int fs_drawing_png(const fs_drawing *d, double scale, const char *font_path, unsigned char **png, size_t *len,
		   char *err, size_t errlen);

#endif
