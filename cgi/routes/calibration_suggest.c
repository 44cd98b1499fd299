/*
 * calibration_suggest.c - the suggested calibrations of an image
 * (calibration_suggest.h) and the start of its data-bar reading.
 */
#include "routes/calibration_suggest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/analysis.h"
#include "app/app.h"
#include "app/worker_spawn.h"

/* Copies the fields of the stored reading a client needs into data_bar. */
static void copy_items(const cJSON *from, cJSON *to, const char *const *names)
{
	for (; *names; names++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, *names);
		if (v)
			cJSON_AddItemToObject(to, *names, cJSON_Duplicate(v, 1));
	}
}

void fs_calibration_suggestions(fs_db *db, const fs_image_rec *rec, cJSON *o)
{
	cJSON *list = cJSON_AddArrayToObject(o, "suggested");
	double meta = rec->suggested_um_per_px;
	if (meta > 0) {
		cJSON *c = cJSON_CreateObject();
		cJSON_AddNumberToObject(c, "um_per_px", meta);
		cJSON_AddStringToObject(c, "method", "metadata");
		cJSON_AddStringToObject(c, "source", rec->suggested_source);
		/* a pixel size the microscope wrote: exact, ranked first */
		cJSON_AddNumberToObject(c, "confidence", 1);
		cJSON_AddBoolToObject(c, "auto_ok", 0);
		cJSON_AddArrayToObject(c, "flags");
		cJSON_AddItemToArray(list, c);
	}
	cJSON *db_o = cJSON_AddObjectToObject(o, "data_bar");
	fs_image_databar *row = calloc(1, sizeof *row);
	int rc = row ? fs_image_databar_get(db, rec->id, row) : FS_DB_ERROR;
	cJSON *res = rc == FS_DB_OK && !strcmp(row->state, "done") ? cJSON_Parse(row->result) : NULL;
	cJSON_AddStringToObject(db_o, "state", rc == FS_DB_OK ? row->state : "none");
	if (rc == FS_DB_OK && !strcmp(row->state, "failed"))
		cJSON_AddStringToObject(db_o, "error", row->error);
	double bar_um = 0;
	if (res) {
		static const char *const keep[] = {"found", "has_scale", "um_per_px", "confidence", "auto_ok", "source",
						  "reason", "rect", "is_band", "line", "words", "label",
						  "magnification", "mag_um_per_px", "mag_reference_mm", "mag_disagrees",
						  "kv", "pixel_size_um", "hfw_um", "pitch_px", "pitch_um",
						  "pitch_out_of_range", "image_width", "image_height", "ocr_ms", NULL};
		copy_items(res, db_o, keep);
		/* the rectangles are in the uploaded image's pixels: drawable while it is unchanged */
		int same = rec->base_key[0] ? !strcmp(rec->work_key, rec->base_key) : rec->revision == 0;
		cJSON_AddBoolToObject(db_o, "on_current_image", same);
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "has_scale")))
			bar_um = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(res, "um_per_px"));
	}
	cJSON *dis = NULL;
	if (bar_um > 0) {
		cJSON *c = cJSON_CreateObject();
		cJSON_AddNumberToObject(c, "um_per_px", bar_um);
		cJSON_AddStringToObject(c, "method", "data_bar");
		cJSON_AddStringToObject(c, "source",
					cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "source")));
		cJSON_AddItemToObject(c, "confidence",
				      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(res, "confidence"), 1));
		cJSON *flags = cJSON_CreateArray();
		int auto_ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "auto_ok"));
		if (meta > 0 && fabs(bar_um - meta) / meta > 0.02) {
			cJSON_AddItemToArray(flags, cJSON_CreateString("disagrees_with_metadata"));
			dis = cJSON_CreateObject();
			cJSON_AddNumberToObject(dis, "percent", round(1000 * fabs(bar_um - meta) / meta) / 10);
			cJSON *m = cJSON_AddArrayToObject(dis, "methods");
			cJSON_AddItemToArray(m, cJSON_CreateString("metadata"));
			cJSON_AddItemToArray(m, cJSON_CreateString("data_bar"));
			auto_ok = 0;
		}
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "pitch_out_of_range")))
			cJSON_AddItemToArray(flags, cJSON_CreateString("pitch_out_of_range"));
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "mag_disagrees")))
			cJSON_AddItemToArray(flags, cJSON_CreateString("magnification_disagrees"));
		cJSON_AddBoolToObject(c, "auto_ok", auto_ok);
		cJSON_AddItemToObject(c, "flags", flags);
		cJSON_AddItemToArray(list, c);
	}
	double px = res ? cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(res, "pixel_size_um")) : 0;
	if (px > 0 && isfinite(px)) {
		/* printed in a band and read once: shown, never applied without a person */
		char src[96];
		snprintf(src, sizeof src, "pixel size %g nm in the data bar", round(px * 1e5) / 100);
		cJSON *c = cJSON_CreateObject();
		cJSON_AddNumberToObject(c, "um_per_px", px);
		cJSON_AddStringToObject(c, "method", "data_bar_pixel_size");
		cJSON_AddStringToObject(c, "source", src);
		cJSON_AddNumberToObject(c, "confidence", 0.5);
		cJSON_AddBoolToObject(c, "auto_ok", 0);
		cJSON_AddArrayToObject(c, "flags");
		cJSON_AddItemToArray(list, c);
	}
	if (dis)
		cJSON_AddItemToObject(o, "disagreement", dis);
	else
		cJSON_AddNullToObject(o, "disagreement");
	cJSON_Delete(res);
	free(row);
}

int fs_calibration_data_bar(fs_db *db, const fs_image_rec *rec, double *um, char *err, size_t errlen)
{
	*um = 0;
	fs_image_databar *row = calloc(1, sizeof *row);
	if (!row) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = fs_image_databar_get(db, rec->id, row);
	if (rc == FS_DB_OK && !strcmp(row->state, "pending"))
		snprintf(err, errlen, "the data bar is still being read");
	else if (rc != FS_DB_OK || strcmp(row->state, "done") || !(row->um_per_px > 0))
		snprintf(err, errlen, "this image has no calibration from a data bar");
	else
		*um = row->um_per_px;
	free(row);
	return *um > 0 ? 0 : -1;
}

int fs_databar_start(fs_app *app, long long image_id, char *err, size_t errlen)
{
	if (fs_image_databar_pending(app->db, image_id)) {
		snprintf(err, errlen, "cannot mark the data bar pending");
		return -1;
	}
	char exe[1200], dir[1200], logp[1300];
	snprintf(exe, sizeof exe, "%s/build/fishscale-databar", app->root);
	fs_app_data_path(app, "jobs", dir, sizeof dir);
	mkdir(dir, 0750);
	snprintf(logp, sizeof logp, "%s/databar-%lld.stderr", dir, image_id);
	long long pid = 0;
	if (fs_worker_spawn(exe, app->root, image_id, logp, &pid, err, errlen)) {
		fs_image_databar_failed(app->db, image_id, err);
		return -1;
	}
	return 0;
}
