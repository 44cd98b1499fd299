/*
 * calibration_suggest.h - what GET /api/images/{id}/calibration says an
 * image suggests: the list `suggested` (file metadata first: an exact pixel
 * size; then the SEM data bar's scale bar by confidence; then a pixel size
 * printed in a data bar), a disagreement over 2 % between metadata and the
 * data bar flagged, and the object `data_bar` (the reading as stored by
 * fishscale-databar: state, rectangles, words, magnification with the pixel
 * size it implies through the reference width, kV, HFW, pitch cross-check).
 *
 * Ownership: the cJSON items are added to the caller's object.
 */
#ifndef FS_CALIBRATION_SUGGEST_H
#define FS_CALIBRATION_SUGGEST_H

#include <stddef.h>

#include <cJSON.h>

#include "app/http.h"
#include "store/store.h"

/* Adds "suggested", "disagreement" and "data_bar" to o. */
void fs_calibration_suggestions(fs_db *db, const fs_image_rec *rec, cJSON *o);

/* The data bar's calibration of rec: 0 with *um, or -1 with a message (none, pending, unread). */
int fs_calibration_data_bar(fs_db *db, const fs_image_rec *rec, double *um, char *err, size_t errlen);

/* Marks the image's data bar pending and starts fishscale-databar for it (detached). 0 or -1 with err. */
int fs_databar_start(fs_app *app, long long image_id, char *err, size_t errlen);

#endif
