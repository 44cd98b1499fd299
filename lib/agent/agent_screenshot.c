/*
 * agent_screenshot.c - overlay screenshots for the agents (see
 * agent_screenshot.h). The small base image is made once per image and
 * size; the tubercles are scaled onto it, so render.c draws at the final
 * size and never downscales again. The model gets a JPEG (quality 90):
 * deflating a noisy 1024 px SEM image costs over 100 ms and 700 kB, a
 * JPEG about 10 ms and a fifth of the bytes; PNG stays available.
 */
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include "agent/agent_screenshot.h"
#include "image/font.h"
#include "image/image_io.h"
#include "image/render.h"

char *fs_agent_b64_encode(const unsigned char *data, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t outlen = 4 * ((n + 2) / 3);
	char *out = malloc(outlen + 1);
	size_t i, o = 0;

	if (!out)
		return NULL;
	for (i = 0; i + 2 < n; i += 3) {
		unsigned v = (unsigned)data[i] << 16 | (unsigned)data[i + 1] << 8 | data[i + 2];
		out[o++] = tab[v >> 18 & 63];
		out[o++] = tab[v >> 12 & 63];
		out[o++] = tab[v >> 6 & 63];
		out[o++] = tab[v & 63];
	}
	if (i < n) {
		unsigned v = (unsigned)data[i] << 16 | (i + 1 < n ? (unsigned)data[i + 1] << 8 : 0);
		out[o++] = tab[v >> 18 & 63];
		out[o++] = tab[v >> 12 & 63];
		out[o++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
		out[o++] = '=';
	}
	out[o] = 0;
	return out;
}

typedef struct jerr {
	struct jpeg_error_mgr pub;
	jmp_buf jump;
	char msg[JMSG_LENGTH_MAX];
} jerr;

static void jpeg_fail(j_common_ptr c)
{
	jerr *e = (jerr *)c->err;
	(*c->err->format_message)(c, e->msg);
	longjmp(e->jump, 1);
}

static int encode_jpeg(const fs_rgb *rgb, int quality, unsigned char **out, size_t *outlen, char *err,
		       size_t errlen)
{
	struct jpeg_compress_struct ci;
	jerr je;
	unsigned long len = 0;
	unsigned char *volatile buf = NULL;

	memset(&ci, 0, sizeof(ci));
	ci.err = jpeg_std_error(&je.pub);
	je.pub.error_exit = jpeg_fail;
	if (setjmp(je.jump)) {
		snprintf(err, errlen, "JPEG encoding failed: %s", je.msg);
		jpeg_destroy_compress(&ci);
		free(buf);
		return -1;
	}
	jpeg_create_compress(&ci);
	jpeg_mem_dest(&ci, (unsigned char **)&buf, &len);
	ci.image_width = (JDIMENSION)rgb->width;
	ci.image_height = (JDIMENSION)rgb->height;
	ci.input_components = 3;
	ci.in_color_space = JCS_RGB;
	jpeg_set_defaults(&ci);
	jpeg_set_quality(&ci, quality, TRUE);
	/* the fast integer DCT: a screenshot for a model, not an archive */
	ci.dct_method = JDCT_IFAST;
	jpeg_start_compress(&ci, TRUE);
	while (ci.next_scanline < ci.image_height) {
		JSAMPROW row = rgb->data + (size_t)ci.next_scanline * rgb->width * 3;
		jpeg_write_scanlines(&ci, &row, 1);
	}
	jpeg_finish_compress(&ci);
	jpeg_destroy_compress(&ci);
	*out = buf;
	*outlen = len;
	return 0;
}

static const fs_image *base_image(const fs_image *img, int max_side, fs_agent_shot_cache *c)
{
	if (max_side <= 0 || (img->width <= max_side && img->height <= max_side))
		return img;
	if (c && c->small && c->src == img && c->max_side == max_side)
		return c->small;
	fs_image *small = fs_image_downscale(img, max_side);
	if (!small || !c)
		return small;
	fs_image_free(c->small);
	c->small = small;
	c->src = img;
	c->max_side = max_side;
	return small;
}

static void put_px(fs_rgb *c, int x, int y, const unsigned char rgb[3])
{
	if (x < 0 || y < 0 || x >= c->width || y >= c->height)
		return;
	unsigned char *p = c->data + ((size_t)y * c->width + x) * 3;
	p[0] = rgb[0];
	p[1] = rgb[1];
	p[2] = rgb[2];
}

/* Outline 3 px wide, 10 px ticks at the corners, the label inside the top-left corner. */
static void draw_rect(fs_rgb *c, const fs_agent_debug_rect *r, double scale)
{
	int x0 = (int)lround(r->x * scale), y0 = (int)lround(r->y * scale);
	int x1 = (int)lround((r->x + r->w) * scale), y1 = (int)lround((r->y + r->h) * scale);
	for (int k = 0; k < 3; k++) {
		for (int x = x0; x <= x1; x++) {
			put_px(c, x, y0 + k, r->rgb);
			put_px(c, x, y1 - k, r->rgb);
		}
		for (int y = y0; y <= y1; y++) {
			put_px(c, x0 + k, y, r->rgb);
			put_px(c, x1 - k, y, r->rgb);
		}
	}
	for (int d = 1; d <= 10; d++) {
		put_px(c, x0 - d, y0, r->rgb);
		put_px(c, x0, y0 - d, r->rgb);
		put_px(c, x1 + d, y1, r->rgb);
		put_px(c, x1, y1 + d, r->rgb);
	}
	if (r->label[0]) {
		static const unsigned char black[3] = {0, 0, 0};
		int tw = fs_font_text_width(r->label, 2);
		for (int y = y0 + 4; y < y0 + 4 + 2 * FS_FONT_HEIGHT + 4; y++)
			for (int x = x0 + 4; x < x0 + 8 + tw; x++)
				put_px(c, x, y, black);
		fs_font_draw(c->data, c->width, c->height, x0 + 6, y0 + 6, r->label, 2, r->rgb);
	}
}

int fs_agent_screenshot(const fs_image *img, const fs_tubercle_list *t, const fs_edge_list *e,
			const fs_agent_shot_opts *o, fs_agent_shot_cache *cache, fs_agent_shot *out, char *err,
			size_t errlen)
{
	fs_tubercle_list scaled = {0};
	fs_render_opts ro;
	fs_rgb rgb = {0};
	unsigned char *png = NULL;
	size_t png_len = 0;
	const fs_image *base;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	base = base_image(img, o->max_side, cache);
	if (!base) {
		snprintf(err, errlen, "out of memory downscaling the screenshot");
		return -1;
	}
	out->scale = (double)base->width / img->width;
	if (o->overlay && t && t->n) {
		scaled.items = malloc(t->n * sizeof(*t->items));
		if (!scaled.items) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		memcpy(scaled.items, t->items, t->n * sizeof(*t->items));
		scaled.n = scaled.cap = t->n;
		for (size_t i = 0; i < scaled.n; i++) {
			fs_tubercle *s = &scaled.items[i];
			s->centroid_x *= out->scale;
			s->centroid_y *= out->scale;
			s->radius_px *= out->scale;
			s->major_axis_px *= out->scale;
			s->minor_axis_px *= out->scale;
		}
	}
	fs_render_opts_default(&ro);
	ro.show_tubercles = o->overlay;
	ro.show_edges = o->overlay;
	ro.show_ids = o->overlay && o->numbers;
	ro.max_side = 0;
	ro.um_per_px = o->um_per_px > 0 ? o->um_per_px / out->scale : 0;
	ro.show_scale_bar = ro.um_per_px > 0;
	if (fs_render_overlay(base, o->overlay ? &scaled : NULL, o->overlay ? e : NULL, &ro, &rgb, err, errlen))
		goto out;
	for (size_t i = 0; i < o->n_rects; i++)
		draw_rect(&rgb, &o->rects[i], out->scale);
	if (o->png ? fs_png_encode_rgb(rgb.data, rgb.width, rgb.height, &png, &png_len, err, errlen)
		   : encode_jpeg(&rgb, 90, &png, &png_len, err, errlen))
		goto out;
	snprintf(out->media_type, sizeof(out->media_type), "%s", o->png ? "image/png" : "image/jpeg");
	out->b64 = fs_agent_b64_encode(png, png_len);
	if (!out->b64) {
		snprintf(err, errlen, "out of memory encoding the screenshot");
		goto out;
	}
	out->png_bytes = png_len;
	out->width = rgb.width;
	out->height = rgb.height;
	rc = 0;
out:
	free(png);
	fs_rgb_free(&rgb);
	fs_tubercle_list_free(&scaled);
	if (base != img && (!cache || base != cache->small))
		fs_image_free((fs_image *)base);
	return rc;
}

void fs_agent_shot_free(fs_agent_shot *s)
{
	if (!s)
		return;
	free(s->b64);
	memset(s, 0, sizeof(*s));
}

void fs_agent_shot_cache_free(fs_agent_shot_cache *c)
{
	if (!c)
		return;
	fs_image_free(c->small);
	memset(c, 0, sizeof(*c));
}
