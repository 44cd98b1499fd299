/*
 * drawing.c - the vector drawing and its SVG and raster renderings (see
 * drawing.h).
 *
 * The rasteriser evaluates each shape per pixel centre in device units
 * (user units x scale): coverage from the distance to the outline (circles,
 * lines, polygons) or the exact overlap (rectangles), so edges are
 * antialiased and a translucent fill is composited once per shape.
 */
#include "image/drawing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_SYNTHESIS_H

#include "image/font.h"
#include "image/image_io.h"

enum kind { K_LINE, K_RECT, K_CIRCLE, K_POLY, K_TEXT, K_GROUP, K_END };

typedef struct item {
	int kind;
	double v[4]; /* line x1 y1 x2 y2; rect x y w h; circle cx cy r; group dx dy */
	double *pts; /* polygon x0 y0 x1 y1 ... (owned) */
	int npts;
	fs_color fill, stroke;
	double sw;
	int dashed;
	char *text;  /* text, or a group's title (owned) */
	char *attrs; /* a group's SVG attributes, ready to print (owned) */
	double size;
	int anchor, flags;
} item;

struct fs_drawing {
	double w, h;
	fs_color bg;
	item *items;
	size_t n, cap;
	int failed; /* out of memory while drawing */
	int depth;  /* open groups */
};

fs_drawing *fs_drawing_new(double width, double height, fs_color background)
{
	fs_drawing *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->w = width;
	d->h = height;
	d->bg = background;
	return d;
}

void fs_drawing_free(fs_drawing *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++) {
		free(d->items[i].pts);
		free(d->items[i].text);
		free(d->items[i].attrs);
	}
	free(d->items);
	free(d);
}

double fs_drawing_width(const fs_drawing *d)
{
	return d->w;
}

double fs_drawing_height(const fs_drawing *d)
{
	return d->h;
}

void fs_drawing_resize(fs_drawing *d, double width, double height)
{
	d->w = width;
	d->h = height;
}

size_t fs_drawing_count(const fs_drawing *d)
{
	return d->n;
}

static item *push(fs_drawing *d, int kind)
{
	if (!d || d->failed)
		return NULL;
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 256;
		item *p = realloc(d->items, cap * sizeof *p);
		if (!p) {
			d->failed = 1;
			return NULL;
		}
		d->items = p;
		d->cap = cap;
	}
	item *it = &d->items[d->n++];
	memset(it, 0, sizeof *it);
	it->kind = kind;
	return it;
}

static int finite4(double a, double b, double c, double e)
{
	return isfinite(a) && isfinite(b) && isfinite(c) && isfinite(e);
}

void fs_draw_line(fs_drawing *d, double x1, double y1, double x2, double y2, fs_color stroke, double width,
		  int dashed)
{
	if (!finite4(x1, y1, x2, y2) || !stroke.a || !(width > 0))
		return;
	item *it = push(d, K_LINE);
	if (!it)
		return;
	it->v[0] = x1, it->v[1] = y1, it->v[2] = x2, it->v[3] = y2;
	it->stroke = stroke;
	it->sw = width;
	it->dashed = dashed;
}

void fs_draw_rect(fs_drawing *d, double x, double y, double w, double h, fs_color fill, fs_color stroke,
		  double stroke_width)
{
	if (!finite4(x, y, w, h) || w < 0 || h < 0 || (!fill.a && (!stroke.a || !(stroke_width > 0))))
		return;
	item *it = push(d, K_RECT);
	if (!it)
		return;
	it->v[0] = x, it->v[1] = y, it->v[2] = w, it->v[3] = h;
	it->fill = fill;
	it->stroke = stroke;
	it->sw = stroke_width > 0 ? stroke_width : 0;
}

void fs_draw_circle(fs_drawing *d, double cx, double cy, double r, fs_color fill, fs_color stroke,
		    double stroke_width)
{
	if (!finite4(cx, cy, r, 0) || !(r > 0) || (!fill.a && (!stroke.a || !(stroke_width > 0))))
		return;
	item *it = push(d, K_CIRCLE);
	if (!it)
		return;
	it->v[0] = cx, it->v[1] = cy, it->v[2] = r;
	it->fill = fill;
	it->stroke = stroke;
	it->sw = stroke_width > 0 ? stroke_width : 0;
}

void fs_draw_polygon(fs_drawing *d, const double *xy, int n, fs_color fill, fs_color stroke, double stroke_width)
{
	if (n < 3 || n > 16 || (!fill.a && (!stroke.a || !(stroke_width > 0))))
		return;
	for (int i = 0; i < 2 * n; i++)
		if (!isfinite(xy[i]))
			return;
	double *pts = malloc(2 * (size_t)n * sizeof *pts);
	item *it = pts ? push(d, K_POLY) : NULL;
	if (!it) {
		free(pts);
		if (d)
			d->failed = 1;
		return;
	}
	memcpy(pts, xy, 2 * (size_t)n * sizeof *pts);
	it->pts = pts;
	it->npts = n;
	it->fill = fill;
	it->stroke = stroke;
	it->sw = stroke_width > 0 ? stroke_width : 0;
}

void fs_draw_text(fs_drawing *d, double x, double y, const char *text, double size, int anchor, int flags,
		  fs_color color)
{
	if (!text || !*text || !finite4(x, y, size, 0) || !(size > 0) || !color.a)
		return;
	char *copy = strdup(text);
	item *it = copy ? push(d, K_TEXT) : NULL;
	if (!it) {
		free(copy);
		if (d)
			d->failed = 1;
		return;
	}
	it->v[0] = x, it->v[1] = y;
	it->text = copy;
	it->size = size;
	it->anchor = anchor;
	it->flags = flags;
	it->fill = color;
}

/* Next code point of a UTF-8 string (invalid bytes read as U+FFFD). */
static unsigned utf8_next(const unsigned char **p)
{
	const unsigned char *s = *p;
	unsigned c = s[0];
	int n = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : -1;
	if (n < 0) {
		*p = s + 1;
		return 0xfffd;
	}
	unsigned cp = n ? c & (0x3f >> n) : c;
	for (int i = 1; i <= n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*p = s + i;
			return 0xfffd;
		}
		cp = cp << 6 | (s[i] & 0x3f);
	}
	*p = s + n + 1;
	return cp;
}

double fs_draw_text_width(const char *text, double size)
{
	/* advance widths of DejaVu Sans in em, by kind of character */
	double em = 0;
	const unsigned char *p = (const unsigned char *)text;
	while (p && *p) {
		unsigned c = utf8_next(&p);
		if (c == ' ')
			em += 0.318;
		else if (c >= '0' && c <= '9')
			em += 0.636;
		else if (strchr("iljI.,:;'|!()[]", (int)(c < 128 ? c : 'x')) && c < 128)
			em += 0.30;
		else if (c >= 'A' && c <= 'Z')
			em += c == 'M' || c == 'W' ? 0.86 : 0.70;
		else if (c == 'm' || c == 'w')
			em += 0.90;
		else if (c >= 'a' && c <= 'z')
			em += c == 'f' || c == 't' || c == 'r' ? 0.40 : 0.61;
		else
			em += 0.62;
	}
	return em * size;
}

static char *svg_attrs(const char *const *attrs)
{
	fs_buf b = FS_BUF_INIT;
	for (size_t i = 0; attrs && attrs[i] && attrs[i + 1]; i += 2) {
		const char *k = attrs[i];
		int ok = *k != 0;
		for (const char *c = k; *c; c++)
			if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
			      *c == '-'))
				ok = 0;
		if (!ok)
			continue;
		if (fs_buf_printf(&b, " %s=\"", k)) {
			fs_buf_free(&b);
			return NULL;
		}
		for (const unsigned char *c = (const unsigned char *)attrs[i + 1]; *c; c++) {
			int rc = *c == '&' ? fs_buf_puts(&b, "&amp;")
				 : *c == '<' ? fs_buf_puts(&b, "&lt;")
				 : *c == '"' ? fs_buf_puts(&b, "&quot;")
				 : *c < 0x20 ? fs_buf_putc(&b, ' ')
					     : fs_buf_putc(&b, (char)*c);
			if (rc) {
				fs_buf_free(&b);
				return NULL;
			}
		}
		if (fs_buf_putc(&b, '"')) {
			fs_buf_free(&b);
			return NULL;
		}
	}
	return fs_buf_steal(&b);
}

void fs_draw_group_begin(fs_drawing *d, double dx, double dy, const char *const *attrs, const char *title)
{
	if (!d || d->failed)
		return;
	char *a = svg_attrs(attrs);
	char *t = title && *title ? strdup(title) : NULL;
	item *it = a && (!title || !*title || t) ? push(d, K_GROUP) : NULL;
	if (!it) {
		free(a);
		free(t);
		d->failed = 1;
		return;
	}
	it->v[0] = isfinite(dx) ? dx : 0;
	it->v[1] = isfinite(dy) ? dy : 0;
	it->attrs = a;
	it->text = t;
	d->depth++;
}

void fs_draw_group_end(fs_drawing *d)
{
	if (!d || d->failed || d->depth <= 0)
		return;
	if (push(d, K_END))
		d->depth--;
}

/* ---- SVG ---- */

/* A number with at most two decimals and no trailing zeros. */
static int num(fs_buf *b, double v)
{
	char s[64];
	if (fabs(v) < 0.005)
		v = 0;
	snprintf(s, sizeof s, "%.2f", v);
	char *dot = strchr(s, '.');
	if (dot) {
		char *e = s + strlen(s) - 1;
		while (e > dot && *e == '0')
			*e-- = 0;
		if (e == dot)
			*e = 0;
	}
	return fs_buf_puts(b, s);
}

static int text_escaped(fs_buf *b, const char *s)
{
	int rc = 0;
	for (const unsigned char *c = (const unsigned char *)s; *c && !rc; c++)
		rc = *c == '&' ? fs_buf_puts(b, "&amp;")
		     : *c == '<' ? fs_buf_puts(b, "&lt;")
		     : *c == '>' ? fs_buf_puts(b, "&gt;")
		     : *c < 0x20 ? fs_buf_putc(b, ' ')
				 : fs_buf_putc(b, (char)*c);
	return rc;
}

static int paint(fs_buf *b, const char *what, fs_color c)
{
	if (!c.a)
		return fs_buf_printf(b, " %s=\"none\"", what);
	int rc = fs_buf_printf(b, " %s=\"#%02x%02x%02x\"", what, c.r, c.g, c.b);
	if (!rc && c.a < 255) {
		rc = fs_buf_printf(b, " %s-opacity=\"", what);
		rc = rc || num(b, c.a / 255.0) || fs_buf_putc(b, '"');
	}
	return rc;
}

static int stroke_attrs(fs_buf *b, const item *it)
{
	if (!it->stroke.a || !(it->sw > 0))
		return 0;
	int rc = paint(b, "stroke", it->stroke) || fs_buf_puts(b, " stroke-width=\"") || num(b, it->sw) ||
		 fs_buf_putc(b, '"');
	if (!rc && it->dashed)
		rc = fs_buf_puts(b, " stroke-dasharray=\"") || num(b, 4 * it->sw) || fs_buf_putc(b, ' ') ||
		     num(b, 3 * it->sw) || fs_buf_putc(b, '"');
	return rc;
}

static int svg_item(fs_buf *b, const item *it)
{
	int rc = 0;
	switch (it->kind) {
	case K_LINE:
		rc = fs_buf_puts(b, "<line x1=\"") || num(b, it->v[0]) || fs_buf_puts(b, "\" y1=\"") ||
		     num(b, it->v[1]) || fs_buf_puts(b, "\" x2=\"") || num(b, it->v[2]) ||
		     fs_buf_puts(b, "\" y2=\"") || num(b, it->v[3]) || fs_buf_putc(b, '"') || stroke_attrs(b, it) ||
		     fs_buf_puts(b, "/>\n");
		break;
	case K_RECT:
		rc = fs_buf_puts(b, "<rect x=\"") || num(b, it->v[0]) || fs_buf_puts(b, "\" y=\"") ||
		     num(b, it->v[1]) || fs_buf_puts(b, "\" width=\"") || num(b, it->v[2]) ||
		     fs_buf_puts(b, "\" height=\"") || num(b, it->v[3]) || fs_buf_putc(b, '"') ||
		     paint(b, "fill", it->fill) || stroke_attrs(b, it) || fs_buf_puts(b, "/>\n");
		break;
	case K_CIRCLE:
		rc = fs_buf_puts(b, "<circle cx=\"") || num(b, it->v[0]) || fs_buf_puts(b, "\" cy=\"") ||
		     num(b, it->v[1]) || fs_buf_puts(b, "\" r=\"") || num(b, it->v[2]) || fs_buf_putc(b, '"') ||
		     paint(b, "fill", it->fill) || stroke_attrs(b, it) || fs_buf_puts(b, "/>\n");
		break;
	case K_POLY:
		rc = fs_buf_puts(b, "<polygon points=\"");
		for (int i = 0; i < it->npts && !rc; i++)
			rc = (i && fs_buf_putc(b, ' ')) || num(b, it->pts[2 * i]) || fs_buf_putc(b, ',') ||
			     num(b, it->pts[2 * i + 1]);
		rc = rc || fs_buf_putc(b, '"') || paint(b, "fill", it->fill) || stroke_attrs(b, it) ||
		     fs_buf_puts(b, "/>\n");
		break;
	case K_TEXT: {
		static const char *const anchors[] = {"start", "middle", "end"};
		rc = fs_buf_puts(b, "<text x=\"") || num(b, it->v[0]) || fs_buf_puts(b, "\" y=\"") ||
		     num(b, it->v[1]) || fs_buf_puts(b, "\" font-size=\"") || num(b, it->size) ||
		     fs_buf_putc(b, '"') || paint(b, "fill", it->fill);
		if (!rc && it->anchor > 0 && it->anchor <= 2)
			rc = fs_buf_printf(b, " text-anchor=\"%s\"", anchors[it->anchor]);
		if (!rc && (it->flags & FS_TEXT_BOLD))
			rc = fs_buf_puts(b, " font-weight=\"bold\"");
		if (!rc && (it->flags & FS_TEXT_ITALIC))
			rc = fs_buf_puts(b, " font-style=\"italic\"");
		if (!rc && (it->flags & FS_TEXT_VERTICAL))
			rc = fs_buf_puts(b, " transform=\"rotate(-90 ") || num(b, it->v[0]) || fs_buf_putc(b, ' ') ||
			     num(b, it->v[1]) || fs_buf_puts(b, ")\"");
		rc = rc || fs_buf_putc(b, '>') || text_escaped(b, it->text) || fs_buf_puts(b, "</text>\n");
		break;
	}
	case K_GROUP:
		rc = fs_buf_puts(b, "<g");
		if (!rc && (it->v[0] || it->v[1]))
			rc = fs_buf_puts(b, " transform=\"translate(") || num(b, it->v[0]) || fs_buf_putc(b, ' ') ||
			     num(b, it->v[1]) || fs_buf_puts(b, ")\"");
		rc = rc || fs_buf_puts(b, it->attrs) || fs_buf_puts(b, ">\n");
		if (!rc && it->text)
			rc = fs_buf_puts(b, "<title>") || text_escaped(b, it->text) || fs_buf_puts(b, "</title>\n");
		break;
	case K_END:
		rc = fs_buf_puts(b, "</g>\n");
		break;
	}
	return rc;
}

int fs_drawing_svg(const fs_drawing *d, fs_buf *out)
{
	if (!d || d->failed)
		return -1;
	int rc = fs_buf_puts(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"") || num(out, d->w) ||
		 fs_buf_puts(out, "\" height=\"") || num(out, d->h) || fs_buf_puts(out, "\" viewBox=\"0 0 ") ||
		 num(out, d->w) || fs_buf_putc(out, ' ') || num(out, d->h) ||
		 fs_buf_puts(out, "\" font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\">\n");
	if (!rc && d->bg.a) {
		item bg;
		memset(&bg, 0, sizeof bg);
		bg.kind = K_RECT;
		bg.v[2] = d->w;
		bg.v[3] = d->h;
		bg.fill = d->bg;
		rc = svg_item(out, &bg);
	}
	for (size_t i = 0; i < d->n && !rc; i++)
		rc = svg_item(out, &d->items[i]);
	for (int i = 0; i < d->depth && !rc; i++) /* groups left open */
		rc = fs_buf_puts(out, "</g>\n");
	return rc || fs_buf_puts(out, "</svg>\n") ? -1 : 0;
}

/* ---- raster ---- */

typedef struct canvas {
	unsigned char *px;
	int w, h;
	double s;      /* device pixels per user unit */
	double ox, oy; /* current group offset, user units */
	FT_Face face;  /* NULL: bitmap font */
} canvas;

static double clamp01(double v)
{
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

static void blend(canvas *c, int x, int y, fs_color col, double cov)
{
	if (x < 0 || y < 0 || x >= c->w || y >= c->h || cov <= 0)
		return;
	double a = col.a / 255.0 * (cov > 1 ? 1 : cov);
	unsigned char *p = c->px + ((size_t)y * c->w + x) * 3;
	p[0] = (unsigned char)lround(p[0] + (col.r - p[0]) * a);
	p[1] = (unsigned char)lround(p[1] + (col.g - p[1]) * a);
	p[2] = (unsigned char)lround(p[2] + (col.b - p[2]) * a);
}

/* Pixel range [*x0, *x1) x [*y0, *y1) of a device box, clipped. */
static int box(const canvas *c, double xa, double ya, double xb, double yb, int *x0, int *y0, int *x1, int *y1)
{
	*x0 = (int)floor(fmax(0, xa));
	*y0 = (int)floor(fmax(0, ya));
	*x1 = (int)ceil(fmin(c->w, xb));
	*y1 = (int)ceil(fmin(c->h, yb));
	return *x0 < *x1 && *y0 < *y1;
}

/* A stroke thinner than a pixel covers its width's share of it. */
static double stroke_cov(double half, double dist)
{
	double cov = clamp01(half + 0.5 - dist);
	return 2 * half < 1 ? cov * 2 * half : cov;
}

static double overlap1(double a0, double a1, double b0, double b1)
{
	double v = fmin(a1, b1) - fmax(a0, b0);
	return v > 0 ? v : 0;
}

static double rect_cov(double px, double py, double x0, double y0, double x1, double y1)
{
	return overlap1(px, px + 1, x0, x1) * overlap1(py, py + 1, y0, y1);
}

static void raster_rect(canvas *c, const item *it)
{
	double x0 = (it->v[0] + c->ox) * c->s, y0 = (it->v[1] + c->oy) * c->s;
	double x1 = x0 + it->v[2] * c->s, y1 = y0 + it->v[3] * c->s;
	double hw = it->stroke.a ? it->sw * c->s / 2 : 0;
	int a, b, e, f;
	if (!box(c, x0 - hw - 1, y0 - hw - 1, x1 + hw + 1, y1 + hw + 1, &a, &b, &e, &f))
		return;
	for (int y = b; y < f; y++)
		for (int x = a; x < e; x++) {
			if (it->fill.a)
				blend(c, x, y, it->fill, rect_cov(x, y, x0, y0, x1, y1));
			if (hw > 0) {
				double outer = rect_cov(x, y, x0 - hw, y0 - hw, x1 + hw, y1 + hw);
				double inner = x1 - x0 > 2 * hw && y1 - y0 > 2 * hw
						       ? rect_cov(x, y, x0 + hw, y0 + hw, x1 - hw, y1 - hw)
						       : 0;
				blend(c, x, y, it->stroke, outer - inner);
			}
		}
}

static void raster_circle(canvas *c, const item *it)
{
	double cx = (it->v[0] + c->ox) * c->s, cy = (it->v[1] + c->oy) * c->s, r = it->v[2] * c->s;
	double hw = it->stroke.a ? it->sw * c->s / 2 : 0;
	double ext = r + hw + 1;
	int a, b, e, f;
	if (!box(c, cx - ext, cy - ext, cx + ext, cy + ext, &a, &b, &e, &f))
		return;
	for (int y = b; y < f; y++)
		for (int x = a; x < e; x++) {
			double dist = hypot(x + 0.5 - cx, y + 0.5 - cy);
			if (it->fill.a)
				blend(c, x, y, it->fill, clamp01(r - dist + 0.5));
			if (hw > 0)
				blend(c, x, y, it->stroke, stroke_cov(hw, fabs(dist - r)));
		}
}

static void raster_line(canvas *c, const item *it)
{
	double x0 = (it->v[0] + c->ox) * c->s, y0 = (it->v[1] + c->oy) * c->s;
	double x1 = (it->v[2] + c->ox) * c->s, y1 = (it->v[3] + c->oy) * c->s;
	double hw = it->sw * c->s / 2, dx = x1 - x0, dy = y1 - y0, len = hypot(dx, dy);
	if (len < 1e-9)
		return;
	double ux = dx / len, uy = dy / len, dash = 4 * it->sw * c->s, period = 7 * it->sw * c->s;
	int a, b, e, f;
	if (!box(c, fmin(x0, x1) - hw - 1, fmin(y0, y1) - hw - 1, fmax(x0, x1) + hw + 1, fmax(y0, y1) + hw + 1, &a,
		 &b, &e, &f))
		return;
	for (int y = b; y < f; y++)
		for (int x = a; x < e; x++) {
			double px = x + 0.5 - x0, py = y + 0.5 - y0;
			double along = px * ux + py * uy, across = fabs(px * uy - py * ux);
			/* butt ends, as SVG's default */
			double cov = stroke_cov(hw, across) * clamp01(fmin(along, len - along) + 0.5);
			if (it->dashed && period > 0) {
				double m = fmod(along < 0 ? 0 : along, period);
				cov *= clamp01(fmin(m, dash - m) + 0.5);
			}
			blend(c, x, y, it->stroke, cov);
		}
}

static double seg_dist(double px, double py, double ax, double ay, double bx, double by)
{
	double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
	double t = l2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / l2 : 0;
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	return hypot(px - ax - t * dx, py - ay - t * dy);
}

static void raster_polygon(canvas *c, const item *it)
{
	double p[32];
	double xa = INFINITY, ya = INFINITY, xb = -INFINITY, yb = -INFINITY;
	for (int i = 0; i < it->npts; i++) {
		p[2 * i] = (it->pts[2 * i] + c->ox) * c->s;
		p[2 * i + 1] = (it->pts[2 * i + 1] + c->oy) * c->s;
		xa = fmin(xa, p[2 * i]), xb = fmax(xb, p[2 * i]);
		ya = fmin(ya, p[2 * i + 1]), yb = fmax(yb, p[2 * i + 1]);
	}
	double hw = it->stroke.a ? it->sw * c->s / 2 : 0;
	int a, b, e, f;
	if (!box(c, xa - hw - 1, ya - hw - 1, xb + hw + 1, yb + hw + 1, &a, &b, &e, &f))
		return;
	int n = it->npts;
	for (int y = b; y < f; y++)
		for (int x = a; x < e; x++) {
			double px = x + 0.5, py = y + 0.5, dmin = INFINITY;
			int inside = 0;
			for (int i = 0, j = n - 1; i < n; j = i++) {
				double xi = p[2 * i], yi = p[2 * i + 1], xj = p[2 * j], yj = p[2 * j + 1];
				if ((yi > py) != (yj > py) && px < (xj - xi) * (py - yi) / (yj - yi) + xi)
					inside = !inside;
				dmin = fmin(dmin, seg_dist(px, py, xi, yi, xj, yj));
			}
			if (it->fill.a)
				blend(c, x, y, it->fill, inside ? clamp01(0.5 + dmin) : clamp01(0.5 - dmin));
			if (hw > 0)
				blend(c, x, y, it->stroke, stroke_cov(hw, dmin));
		}
}

/* Puts a coverage bitmap (rows of w bytes, 0..255) whose top-left is at
 * text coordinates (u, v) relative to the origin (ox, oy): along the text
 * and down from its baseline; vertical text turns (u, v) into (v, -u). */
static void put_mask(canvas *c, const unsigned char *m, int w, int h, int pitch, int u, int v, int ox, int oy,
		     int vertical, fs_color col)
{
	for (int j = 0; j < h; j++)
		for (int i = 0; i < w; i++) {
			unsigned char cov = m[(size_t)j * pitch + i];
			if (!cov)
				continue;
			int x = vertical ? ox + v + j : ox + u + i;
			int y = vertical ? oy - (u + i) : oy + v + j;
			blend(c, x, y, col, cov / 255.0);
		}
}

static int ft_width(FT_Face face, const char *s, int bold)
{
	long w = 0;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned cp = utf8_next(&p);
		if (FT_Load_Char(face, cp, FT_LOAD_DEFAULT))
			continue;
		if (bold)
			FT_GlyphSlot_Embolden(face->glyph);
		w += face->glyph->advance.x;
	}
	return (int)(w >> 6);
}

static void raster_text_ft(canvas *c, const item *it, int ox, int oy)
{
	int px = (int)lround(it->size * c->s);
	if (px < 4 || FT_Set_Pixel_Sizes(c->face, 0, (FT_UInt)px))
		return;
	int bold = (it->flags & FS_TEXT_BOLD) != 0, vertical = (it->flags & FS_TEXT_VERTICAL) != 0;
	int width = ft_width(c->face, it->text, bold);
	int pen = it->anchor == FS_ANCHOR_MIDDLE ? -width / 2 : it->anchor == FS_ANCHOR_END ? -width : 0;
	const unsigned char *p = (const unsigned char *)it->text;
	while (*p) {
		unsigned cp = utf8_next(&p);
		if (FT_Load_Char(c->face, cp, FT_LOAD_DEFAULT))
			continue;
		FT_GlyphSlot g = c->face->glyph;
		if (bold)
			FT_GlyphSlot_Embolden(g);
		if (FT_Render_Glyph(g, FT_RENDER_MODE_NORMAL))
			continue;
		FT_Bitmap *bm = &g->bitmap;
		if (bm->pixel_mode == FT_PIXEL_MODE_GRAY && bm->pitch > 0)
			put_mask(c, bm->buffer, (int)bm->width, (int)bm->rows, bm->pitch, pen + g->bitmap_left,
				 -g->bitmap_top, ox, oy, vertical, it->fill);
		pen += (int)(g->advance.x >> 6);
	}
}

static void raster_text_bitmap(canvas *c, const item *it, int ox, int oy)
{
	/* the widest whole scale not wider than DejaVu Sans (advance 6 vs ~0.6 em) */
	int gs = (int)(it->size * c->s / 11.0);
	if (gs < 1)
		gs = 1;
	int vertical = (it->flags & FS_TEXT_VERTICAL) != 0, bold = (it->flags & FS_TEXT_BOLD) != 0;
	int width = fs_font_text_width(it->text, gs);
	int pen = it->anchor == FS_ANCHOR_MIDDLE ? -width / 2 : it->anchor == FS_ANCHOR_END ? -width : 0;
	unsigned char mask[FS_FONT_HEIGHT * 8][FS_FONT_ADVANCE * 8];
	const char *s = it->text;
	if (gs > 8)
		gs = 8;
	while (*s) {
		unsigned char rows[FS_FONT_HEIGHT];
		fs_font_next_glyph(&s, rows);
		memset(mask, 0, sizeof mask);
		for (int r = 0; r < FS_FONT_HEIGHT; r++)
			for (int col = 0; col < FS_FONT_WIDTH; col++)
				if (rows[r] & (0x10 >> col))
					for (int dy = 0; dy < gs; dy++)
						for (int dx = 0; dx < gs + bold; dx++)
							mask[r * gs + dy][col * gs + dx] = 255;
		put_mask(c, &mask[0][0], FS_FONT_ADVANCE * gs, FS_FONT_HEIGHT * gs, (int)sizeof mask[0], pen,
			 -FS_FONT_HEIGHT * gs, ox, oy, vertical, it->fill);
		pen += FS_FONT_ADVANCE * gs;
	}
}

static void raster_text(canvas *c, const item *it)
{
	int ox = (int)lround((it->v[0] + c->ox) * c->s), oy = (int)lround((it->v[1] + c->oy) * c->s);
	if (c->face)
		raster_text_ft(c, it, ox, oy);
	else
		raster_text_bitmap(c, it, ox, oy);
}

/* One FreeType face per process, kept for the next drawing (a FastCGI
 * worker renders many); reopened only when another path is asked for. */
static FT_Library ft_lib;
static FT_Face ft_face;
static char ft_path[1024];

static FT_Face font_face(const char *path)
{
	if (!path)
		path = FS_DRAWING_FONT;
	if (ft_face && !strcmp(ft_path, path))
		return ft_face;
	if (!ft_lib && FT_Init_FreeType(&ft_lib)) {
		ft_lib = NULL;
		return NULL;
	}
	if (ft_face) {
		FT_Done_Face(ft_face);
		ft_face = NULL;
	}
	snprintf(ft_path, sizeof ft_path, "%s", path);
	if (FT_New_Face(ft_lib, path, 0, &ft_face)) {
		ft_face = NULL;
		ft_path[0] = 0;
	}
	return ft_face;
}

int fs_drawing_raster(const fs_drawing *d, double scale, const char *font_path, fs_rgb *out, int *used_freetype,
		      char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	if (!d || d->failed) {
		snprintf(err, errlen, "out of memory while drawing");
		return -1;
	}
	if (!(scale >= 0.1 && scale <= 8)) {
		snprintf(err, errlen, "scale must be between 0.1 and 8");
		return -1;
	}
	double w = ceil(d->w * scale), h = ceil(d->h * scale);
	if (!(w >= 1 && h >= 1) || w * h > 64e6) {
		snprintf(err, errlen, "a %.0f x %.0f pixel image is too large to draw", w, h);
		return -1;
	}
	canvas c = {.w = (int)w, .h = (int)h, .s = scale};
	c.px = malloc((size_t)c.w * c.h * 3);
	if (!c.px) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fs_color bg = d->bg.a ? d->bg : fs_rgba(255, 255, 255, 255);
	for (size_t i = 0; i < (size_t)c.w * c.h; i++) {
		/* a translucent background over white */
		c.px[3 * i] = (unsigned char)(255 - (255 - bg.r) * bg.a / 255);
		c.px[3 * i + 1] = (unsigned char)(255 - (255 - bg.g) * bg.a / 255);
		c.px[3 * i + 2] = (unsigned char)(255 - (255 - bg.b) * bg.a / 255);
	}
	c.face = font_face(font_path);
	double stack[64][2];
	int depth = 0;
	for (size_t i = 0; i < d->n; i++) {
		const item *it = &d->items[i];
		switch (it->kind) {
		case K_LINE:
			raster_line(&c, it);
			break;
		case K_RECT:
			raster_rect(&c, it);
			break;
		case K_CIRCLE:
			raster_circle(&c, it);
			break;
		case K_POLY:
			raster_polygon(&c, it);
			break;
		case K_TEXT:
			raster_text(&c, it);
			break;
		case K_GROUP:
			if (depth < 64) {
				stack[depth][0] = c.ox;
				stack[depth][1] = c.oy;
			}
			depth++;
			c.ox += it->v[0];
			c.oy += it->v[1];
			break;
		case K_END:
			if (depth > 0 && --depth < 64) {
				c.ox = stack[depth][0];
				c.oy = stack[depth][1];
			}
			break;
		}
	}
	if (used_freetype)
		*used_freetype = c.face != NULL;
	out->data = c.px;
	out->width = c.w;
	out->height = c.h;
	out->scale = scale;
	return 0;
}

int fs_drawing_png(const fs_drawing *d, double scale, const char *font_path, unsigned char **png, size_t *len,
		   char *err, size_t errlen)
{
	fs_rgb rgb;
	*png = NULL;
	*len = 0;
	if (fs_drawing_raster(d, scale, font_path, &rgb, NULL, err, errlen))
		return -1;
	int rc = fs_png_encode_rgb(rgb.data, rgb.width, rgb.height, png, len, err, errlen);
	fs_rgb_free(&rgb);
	return rc;
}
