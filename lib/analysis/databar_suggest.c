/*
 * databar_suggest.c - a data-bar calibration with its cross-check
 * (databar_suggest.h).
 */
#include "analysis/databar_suggest.h"
#include "analysis/lattice_estimate.h"
#include "image/image_transform.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The largest band of full rows the data bar leaves (above or below its rectangle). */
static fs_rect surface_rows(const fs_image *img, const fs_databar *b)
{
	if (!b->found)
		return (fs_rect){0, 0, img->width, img->height};
	int above = b->rect.y, below = img->height - (b->rect.y + b->rect.height);
	if (above >= below)
		return (fs_rect){0, 0, img->width, above};
	return (fs_rect){0, b->rect.y + b->rect.height, img->width, below};
}

int fs_databar_suggest(const fs_image *img, fs_databar_suggestion *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	if (!img) {
		snprintf(err, errlen, "no image");
		return -1;
	}
	s->image_width = img->width;
	s->image_height = img->height;
	if (fs_databar_read_image(img, &s->bar, &s->reading, err, errlen))
		return -1;
	if (!s->reading.has_scale)
		return 0;
	fs_rect r = surface_rows(img, &s->bar);
	if (r.width >= 32 && r.height >= 32) {
		char e[128];
		fs_image *part = fs_image_crop(img, r, NULL, e, sizeof e);
		fs_lattice L;
		if (part && fs_lattice_estimate(part, &L, e, sizeof e) == 0 && L.pitch_px > 0) {
			s->pitch_px = L.pitch_px;
			s->pitch_um = L.pitch_px * s->reading.um_per_px;
			s->pitch_out_of_range = s->pitch_um < FS_DATABAR_PITCH_MIN_UM || s->pitch_um > FS_DATABAR_PITCH_MAX_UM;
		}
		fs_image_free(part);
	}
	s->auto_ok = s->reading.confidence >= FS_DATABAR_AUTO_CONFIDENCE && !s->pitch_out_of_range;
	return 0;
}

static void add_rect(cJSON *o, const char *name, fs_rect r)
{
	cJSON *c = cJSON_AddObjectToObject(o, name);
	cJSON_AddNumberToObject(c, "x", r.x);
	cJSON_AddNumberToObject(c, "y", r.y);
	cJSON_AddNumberToObject(c, "width", r.width);
	cJSON_AddNumberToObject(c, "height", r.height);
}

/* numbers of 0 (not read) become null */
static void add_opt(cJSON *o, const char *name, double v)
{
	if (v > 0)
		cJSON_AddNumberToObject(o, name, v);
	else
		cJSON_AddNullToObject(o, name);
}

cJSON *fs_databar_suggestion_json(const fs_databar_suggestion *s)
{
	const fs_databar *b = &s->bar;
	const fs_databar_reading *r = &s->reading;
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddBoolToObject(o, "found", b->found);
	cJSON_AddBoolToObject(o, "has_scale", r->has_scale);
	add_opt(o, "um_per_px", r->has_scale ? r->um_per_px : 0);
	cJSON_AddNumberToObject(o, "confidence", round(r->confidence * 1000) / 1000);
	cJSON_AddBoolToObject(o, "auto_ok", s->auto_ok);
	cJSON_AddStringToObject(o, "source", r->source);
	cJSON_AddStringToObject(o, "reason", r->reason);
	cJSON_AddNumberToObject(o, "image_width", s->image_width);
	cJSON_AddNumberToObject(o, "image_height", s->image_height);
	if (b->found) {
		add_rect(o, "rect", b->rect);
		cJSON_AddBoolToObject(o, "is_band", b->is_band);
		if (b->has_line) {
			cJSON *l = cJSON_AddObjectToObject(o, "line");
			cJSON_AddNumberToObject(l, "x0", b->line_x0);
			cJSON_AddNumberToObject(l, "x1", b->line_x1);
			cJSON_AddNumberToObject(l, "y", b->line_y);
			cJSON_AddNumberToObject(l, "length_px", b->line_length_px);
		} else {
			cJSON_AddNullToObject(o, "line");
		}
		cJSON *w = cJSON_AddArrayToObject(o, "words");
		for (int i = 0; i < r->n_words; i++) {
			cJSON *x = cJSON_CreateObject();
			cJSON_AddStringToObject(x, "text", r->words[i]);
			cJSON_AddNumberToObject(x, "conf", r->word_conf[i]);
			add_rect(x, "rect", b->text[i]);
			cJSON_AddItemToArray(w, x);
		}
	}
	if (r->has_scale) {
		cJSON *l = cJSON_AddObjectToObject(o, "label");
		cJSON_AddNumberToObject(l, "value", r->label_value);
		cJSON_AddStringToObject(l, "unit", r->label_unit);
		cJSON_AddNumberToObject(l, "um", r->label_um);
	}
	add_opt(o, "magnification", r->magnification);
	add_opt(o, "mag_um_per_px", r->mag_um_per_px);
	cJSON_AddNumberToObject(o, "mag_reference_mm", FS_DATABAR_MAG_REFERENCE_MM);
	cJSON_AddBoolToObject(o, "mag_disagrees", r->mag_disagrees);
	add_opt(o, "kv", r->kv);
	add_opt(o, "pixel_size_um", r->pixel_size_um);
	add_opt(o, "hfw_um", r->hfw_um);
	add_opt(o, "pitch_px", s->pitch_px);
	add_opt(o, "pitch_um", s->pitch_um);
	cJSON_AddBoolToObject(o, "pitch_out_of_range", s->pitch_out_of_range);
	cJSON_AddNumberToObject(o, "ocr_ms", round(r->ocr_ms));
	return o;
}
