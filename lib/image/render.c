/*
 * render.c - overlay renderer (see render.h). Drawing primitives write
 * straight into the RGB buffer with a bounds check per pixel, so shapes
 * that cross the border are clipped rather than wrapped; lines are clipped
 * to the buffer first so a far-away end point costs nothing.
 */
#include "image/render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/font.h"
#include "image/image_io.h"

static const unsigned char COL_EXTRACTED[3] = {0, 255, 255};
static const unsigned char COL_MANUAL[3] = {0, 220, 0};
static const unsigned char COL_LATTICE[3] = {255, 160, 0};
static const unsigned char COL_AGENT[3] = {255, 0, 255};
static const unsigned char COL_EDGE[3] = {255, 200, 40};
static const unsigned char COL_HIGHLIGHT[3] = {255, 0, 0};
static const unsigned char COL_WHITE[3] = {255, 255, 255};
static const unsigned char COL_BLACK[3] = {0, 0, 0};

void fs_render_opts_default(fs_render_opts *o)
{
	memset(o, 0, sizeof *o);
	o->show_tubercles = 1;
	o->show_edges = 1;
	o->show_scale_bar = 1;
}

void fs_rgb_free(fs_rgb *r)
{
	if (!r)
		return;
	free(r->data);
	memset(r, 0, sizeof *r);
}

static void plot(fs_rgb *c, int x, int y, const unsigned char col[3])
{
	if (x < 0 || y < 0 || x >= c->width || y >= c->height)
		return;
	unsigned char *p = c->data + ((size_t)y * (size_t)c->width + (size_t)x) * 3;
	p[0] = col[0];
	p[1] = col[1];
	p[2] = col[2];
}

/* Pixels whose centre lies within half a pixel of the circle. */
static void circle(fs_rgb *c, double cx, double cy, double r, const unsigned char col[3])
{
	if (r < 0.5)
		r = 0.5;
	int x0 = (int)floor(cx - r - 1), x1 = (int)ceil(cx + r + 1);
	int y0 = (int)floor(cy - r - 1), y1 = (int)ceil(cy + r + 1);
	if (x0 < 0)
		x0 = 0;
	if (y0 < 0)
		y0 = 0;
	if (x1 > c->width - 1)
		x1 = c->width - 1;
	if (y1 > c->height - 1)
		y1 = c->height - 1;
	double lo = (r - 0.5) * (r - 0.5), hi = (r + 0.5) * (r + 0.5);
	if (r < 1.0)
		lo = 0;
	for (int y = y0; y <= y1; y++)
		for (int x = x0; x <= x1; x++) {
			double d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
			if (d2 >= lo && d2 < hi)
				plot(c, x, y, col);
		}
}

/* Liang-Barsky clip of the segment to [0, w-1] x [0, h-1]; 0 if outside. */
static int clip_line(double *x0, double *y0, double *x1, double *y1, int w, int h)
{
	double t0 = 0, t1 = 1, dx = *x1 - *x0, dy = *y1 - *y0;
	double p[4] = {-dx, dx, -dy, dy};
	double q[4] = {*x0, (w - 1) - *x0, *y0, (h - 1) - *y0};

	for (int i = 0; i < 4; i++) {
		if (p[i] == 0) {
			if (q[i] < 0)
				return 0;
			continue;
		}
		double t = q[i] / p[i];
		if (p[i] < 0) {
			if (t > t1)
				return 0;
			if (t > t0)
				t0 = t;
		} else {
			if (t < t0)
				return 0;
			if (t < t1)
				t1 = t;
		}
	}
	double nx0 = *x0 + t0 * dx, ny0 = *y0 + t0 * dy;
	*x1 = *x0 + t1 * dx;
	*y1 = *y0 + t1 * dy;
	*x0 = nx0;
	*y0 = ny0;
	return 1;
}

static void line(fs_rgb *c, double fx0, double fy0, double fx1, double fy1, const unsigned char col[3])
{
	if (!isfinite(fx0) || !isfinite(fy0) || !isfinite(fx1) || !isfinite(fy1))
		return;
	if (!clip_line(&fx0, &fy0, &fx1, &fy1, c->width, c->height))
		return;
	int x0 = (int)lround(fx0), y0 = (int)lround(fy0), x1 = (int)lround(fx1), y1 = (int)lround(fy1);
	int dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
	int dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
	int err = dx + dy;
	for (;;) {
		plot(c, x0, y0, col);
		if (x0 == x1 && y0 == y1)
			break;
		int e2 = 2 * err;
		if (e2 >= dy) {
			err += dy;
			x0 += sx;
		}
		if (e2 <= dx) {
			err += dx;
			y0 += sy;
		}
	}
}

static void fill_rect(fs_rgb *c, int x, int y, int w, int h, const unsigned char col[3])
{
	for (int j = y; j < y + h; j++)
		for (int i = x; i < x + w; i++)
			plot(c, i, j, col);
}

/* Darkens a rectangle to 40 % (the original's 60 %-black backing box). */
static void darken_rect(fs_rgb *c, int x, int y, int w, int h)
{
	for (int j = y < 0 ? 0 : y; j < y + h && j < c->height; j++)
		for (int i = x < 0 ? 0 : x; i < x + w && i < c->width; i++) {
			unsigned char *p = c->data + ((size_t)j * (size_t)c->width + (size_t)i) * 3;
			for (int k = 0; k < 3; k++)
				p[k] = (unsigned char)(p[k] * 2 / 5);
		}
}

static const unsigned char *source_colour(fs_source s)
{
	switch (s) {
	case FS_SOURCE_MANUAL:
		return COL_MANUAL;
	case FS_SOURCE_LATTICE:
		return COL_LATTICE;
	case FS_SOURCE_AGENT:
		return COL_AGENT;
	case FS_SOURCE_EXTRACTED:
	default:
		return COL_EXTRACTED;
	}
}

double fs_render_scale_bar_um(int width_px, double um_per_px)
{
	if (!(um_per_px > 0) || width_px <= 0)
		return 0;
	double target = 0.1 * width_px * um_per_px;
	static const double steps[3] = {1, 2, 5};
	for (double dec = 1e-3; dec < 1e9; dec *= 10)
		for (int i = 0; i < 3; i++)
			if (steps[i] * dec >= target * (1 - 1e-12))
				return steps[i] * dec;
	return 0;
}

static void scale_bar(fs_rgb *c, int image_w, double um_per_px)
{
	double bar_um = fs_render_scale_bar_um(image_w, um_per_px);
	if (bar_um <= 0)
		return;
	int len = (int)lround(bar_um / um_per_px * c->scale);
	int ts = c->width >= 1000 ? 2 : 1;
	int pad = c->width / 20 < 20 ? c->width / 20 : 20;
	char label[32];
	if (bar_um >= 1000)
		snprintf(label, sizeof label, "%g mm", bar_um / 1000);
	else
		snprintf(label, sizeof label, "%g \xc2\xb5m", bar_um);
	int tw = fs_font_text_width(label, ts), th = FS_FONT_HEIGHT * ts;
	int box_w = (len > tw ? len : tw) + 2 * 4, box_h = 6 + 4 + th + 2 * 4;
	int bx = c->width - pad - box_w, by = c->height - pad - box_h;
	darken_rect(c, bx, by, box_w, box_h);
	int x0 = bx + (box_w - len) / 2, y0 = by + 4 + th + 4;
	fill_rect(c, x0, y0, len, 6, COL_WHITE);
	fill_rect(c, x0, y0 - 2, 1, 10, COL_WHITE); /* end caps */
	fill_rect(c, x0 + len - 1, y0 - 2, 1, 10, COL_WHITE);
	fs_font_draw(c->data, c->width, c->height, bx + (box_w - tw) / 2, by + 4, label, ts, COL_WHITE);
}

static int cmp_int(const void *a, const void *b)
{
	int p = *(const int *)a, q = *(const int *)b;
	return (p > q) - (p < q);
}

struct id_pos {
	int id, pos;
};

static int cmp_id_pos(const void *a, const void *b)
{
	const struct id_pos *p = a, *q = b;
	return (p->id > q->id) - (p->id < q->id);
}

int fs_render_overlay(const fs_image *img, const fs_tubercle_list *t, const fs_edge_list *e,
		      const fs_render_opts *o, fs_rgb *out, char *err, size_t errlen)
{
	fs_render_opts dflt;
	fs_image *small = NULL;
	int *hl = NULL;
	struct id_pos *ix = NULL;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (!o) {
		fs_render_opts_default(&dflt);
		o = &dflt;
	}
	if (!img || !(img->data || img->px) || img->width <= 0 || img->height <= 0) {
		snprintf(err, errlen, "no image to render");
		return -1;
	}
	int shrink = o->max_side > 0 && (img->width > o->max_side || img->height > o->max_side);
	/* a compact image (image.h) as floats: the overlay reads every pixel;
	 * one to be reduced is read by fs_image_downscale a row at a time */
	fs_image *conv = img->bits && !shrink ? fs_image_to_float(img) : NULL;
	if (img->bits && !shrink && !conv) {
		snprintf(err, errlen, "out of memory converting the image");
		return -1;
	}
	const fs_image *base = conv ? conv : img;
	if (shrink) {
		small = fs_image_downscale(img, o->max_side);
		if (!small) {
			snprintf(err, errlen, "out of memory downscaling the image");
			goto out;
		}
		base = small;
	}
	out->width = base->width;
	out->height = base->height;
	double src_scale = o->source_scale > 0 ? o->source_scale : 1.0;
	out->scale = (double)base->width / img->width * src_scale;
	out->data = malloc((size_t)base->width * (size_t)base->height * 3);
	if (!out->data) {
		snprintf(err, errlen, "out of memory for a %dx%d overlay", base->width, base->height);
		goto out;
	}
	size_t np = (size_t)base->width * (size_t)base->height;
	/* a plain round-half-up instead of lrintf: no libm call per pixel */
	for (size_t i = 0; i < np; i++) {
		float v = base->data[i];
		unsigned char g = (unsigned char)(v <= 0 ? 0 : v >= 1 ? 255 : (int)(v * 255.0f + 0.5f));
		out->data[3 * i] = out->data[3 * i + 1] = out->data[3 * i + 2] = g;
	}
	double s = out->scale;
	if (o->shade && o->shade_cell > 0 && o->shade_gw > 0 && o->shade_gh > 0) {
		/* orange over what is shaded, the image still readable below */
		for (int oy = 0; oy < out->height; oy++) {
			int cy = (int)((oy + 0.5) / s) / o->shade_cell;
			if (cy >= o->shade_gh)
				cy = o->shade_gh - 1;
			for (int ox = 0; ox < out->width; ox++) {
				int cx = (int)((ox + 0.5) / s) / o->shade_cell;
				if (cx >= o->shade_gw)
					cx = o->shade_gw - 1;
				if (o->shade[(size_t)cy * o->shade_gw + cx])
					continue;
				unsigned char *p = out->data + 3 * ((size_t)oy * out->width + ox);
				p[0] = (unsigned char)((p[0] * 5 + 255 * 3) / 8);
				p[1] = (unsigned char)((p[1] * 5 + 140 * 3) / 8);
				p[2] = (unsigned char)(p[2] * 5 / 8);
			}
		}
	}
	size_t nt = t ? t->n : 0;
	/* pixel centres: image pixel i covers [i, i+1) and maps to the output */
#define MAPX(v) (((v) + 0.5) * s - 0.5)
	if (o->show_edges && e && e->n && nt) {
		ix = malloc(nt * sizeof *ix);
		if (!ix) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		for (size_t i = 0; i < nt; i++) {
			ix[i].id = t->items[i].id;
			ix[i].pos = (int)i;
		}
		qsort(ix, nt, sizeof *ix, cmp_id_pos);
		for (size_t i = 0; i < e->n; i++) {
			struct id_pos k1 = {e->items[i].id1, 0}, k2 = {e->items[i].id2, 0};
			const struct id_pos *a = bsearch(&k1, ix, nt, sizeof *ix, cmp_id_pos);
			const struct id_pos *b = bsearch(&k2, ix, nt, sizeof *ix, cmp_id_pos);
			if (!a || !b)
				continue;
			const fs_tubercle *ta = &t->items[a->pos], *tb = &t->items[b->pos];
			line(out, MAPX(ta->centroid_x), MAPX(ta->centroid_y), MAPX(tb->centroid_x),
			     MAPX(tb->centroid_y), COL_EDGE);
		}
	}
	if (o->n_highlight && o->highlight_ids) {
		hl = malloc(o->n_highlight * sizeof *hl);
		if (!hl) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		memcpy(hl, o->highlight_ids, o->n_highlight * sizeof *hl);
		qsort(hl, o->n_highlight, sizeof *hl, cmp_int);
	}
	for (size_t i = 0; i < nt && (o->show_tubercles || o->show_ids || hl); i++) {
		const fs_tubercle *tb = &t->items[i];
		double cx = MAPX(tb->centroid_x), cy = MAPX(tb->centroid_y), r = tb->radius_px * s;
		if (!isfinite(cx) || !isfinite(cy))
			continue;
		if (!isfinite(r) || r <= 0) {
			/* unmeasured: its centre as a cross, no invented circle */
			r = 4;
			if (o->show_tubercles) {
				const unsigned char *col = source_colour(tb->source);
				line(out, cx - r, cy, cx + r, cy, col);
				line(out, cx, cy - r, cx, cy + r, col);
			}
		} else if (o->show_tubercles) {
			circle(out, cx, cy, r, source_colour(tb->source));
		}
		if (hl && bsearch(&tb->id, hl, o->n_highlight, sizeof *hl, cmp_int)) {
			circle(out, cx, cy, r + 2, COL_HIGHLIGHT);
			circle(out, cx, cy, r + 3, COL_HIGHLIGHT);
		}
		if (o->show_ids) {
			char label[16];
			snprintf(label, sizeof label, "%d", tb->id);
			int lx = (int)lround(cx + r + 2), ly = (int)lround(cy) - FS_FONT_HEIGHT / 2;
			fs_font_draw(out->data, out->width, out->height, lx + 1, ly + 1, label, 1, COL_BLACK);
			fs_font_draw(out->data, out->width, out->height, lx, ly, label, 1, COL_WHITE);
		}
	}
#undef MAPX
	if (o->show_scale_bar && o->um_per_px > 0)
		scale_bar(out, (int)lround(img->width / src_scale), o->um_per_px);
	rc = 0;
out:
	if (rc)
		fs_rgb_free(out);
	fs_image_free(small);
	fs_image_free(conv);
	free(hl);
	free(ix);
	return rc;
}

int fs_render_png(const fs_image *img, const fs_tubercle_list *t, const fs_edge_list *e,
		  const fs_render_opts *o, unsigned char **png, size_t *png_len, double *scale,
		  char *err, size_t errlen)
{
	fs_rgb c;

	*png = NULL;
	*png_len = 0;
	if (fs_render_overlay(img, t, e, o, &c, err, errlen))
		return -1;
	int rc = fs_png_encode_rgb(c.data, c.width, c.height, png, png_len, err, errlen);
	if (scale)
		*scale = c.scale;
	fs_rgb_free(&c);
	return rc;
}
