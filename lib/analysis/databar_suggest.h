/*
 * databar_suggest.h - the calibration an image suggests from its own data
 * bar, ready to be stored and shown: the finder (databar.h), the reading
 * (databar_read.h) and a cross-check of the result against the scale
 * itself: the lattice pitch (lattice_estimate.h, on the part of the image
 * the data bar leaves) times the suggested µm per pixel must fall in the
 * published range of ganoid tubercle pitch (FS_DATABAR_PITCH_MIN_UM ..
 * FS_DATABAR_PITCH_MAX_UM, Gayet & Meunier 1986, 1993: about 4-15 µm);
 * outside it the suggestion is flagged and never applied automatically.
 *
 * Ownership: the caller owns img and s; fs_databar_suggestion_json returns
 * a new cJSON object (the caller's, cJSON_Delete).
 */
#ifndef FS_DATABAR_SUGGEST_H
#define FS_DATABAR_SUGGEST_H

#include <stddef.h>

#include <cJSON.h>

#include "analysis/databar.h"
#include "analysis/databar_read.h"
#include "image/image.h"

#define FS_DATABAR_PITCH_MIN_UM 4.0
#define FS_DATABAR_PITCH_MAX_UM 15.0

typedef struct fs_databar_suggestion {
	fs_databar bar;
	fs_databar_reading reading;
	int image_width, image_height;
	double pitch_px;          /* lattice pitch outside the data bar; 0 = none found */
	double pitch_um;          /* pitch_px * reading.um_per_px when both are known */
	int pitch_out_of_range;   /* pitch_um outside the published range */
	int auto_ok;              /* may be applied without a person: confident and not flagged */
} fs_databar_suggestion;

/* Finds, reads and cross-checks. 0, or -1 with a message (OCR unavailable,
 * memory). img may be compact (image.h): the same suggestion as from its
 * float copy; the cross-check's crop then stays compact too. */
int fs_databar_suggest(const fs_image *img, fs_databar_suggestion *s, char *err, size_t errlen);

/*
 * The stored form: {found, has_scale, um_per_px, confidence, auto_ok, source,
 * reason, rect, is_band, line {x0, x1, y, length_px}, words [{text, conf}],
 * label {value, unit, um}, magnification, mag_um_per_px, mag_reference_mm,
 * mag_disagrees, kv, pixel_size_um, hfw_um, pitch_px, pitch_um,
 * pitch_out_of_range, image_width, image_height, ocr_ms}. NULL on no memory.
 */
cJSON *fs_databar_suggestion_json(const fs_databar_suggestion *s);

#endif
