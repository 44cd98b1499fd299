/*
 * image_databar.h - the data-bar suggestion of each image (table
 * image_databar, migration 8): 'pending' from the upload until the
 * background reader (cgi/main_databar.c) stores it, then 'done' with the
 * result (analysis/databar_suggest.h's JSON) or 'failed' with an error.
 * It describes the image as uploaded: rotations and crops after that leave
 * it as it is, so a crop that removes the bar keeps the suggestion made
 * from the original (the rectangles in result are in the uploaded image's
 * pixels, image_width x image_height).
 *
 * Errors: fs_db_rc values. Ownership: fs_image_databar_get fills the
 * caller's struct; result JSON is copied into it (cJSON_Parse it when
 * needed).
 */
#ifndef FS_IMAGE_DATABAR_H
#define FS_IMAGE_DATABAR_H

#include <stddef.h>

#include <cJSON.h>

#include "store/db.h"

typedef struct fs_image_databar {
	long long image_id;
	char state[16];       /* pending, done, failed */
	double um_per_px;     /* 0 when the bar gave none */
	double confidence;
	char result[16384];    /* JSON object; "{}" while pending */
	char error[256];
	long long updated_at;
} fs_image_databar;

/* Marks the image's reading as to be done (replacing any earlier one). */
int fs_image_databar_pending(fs_db *db, long long image_id);
/* Stores a finished reading (result: the suggestion's JSON, borrowed). */
int fs_image_databar_done(fs_db *db, long long image_id, const cJSON *result, double um_per_px, double confidence);
int fs_image_databar_failed(fs_db *db, long long image_id, const char *error);
/* FS_DB_NOTFOUND when the image was never read (uploaded before this existed). */
int fs_image_databar_get(fs_db *db, long long image_id, fs_image_databar *out);

#endif
