/* databar_store.c - a finished data-bar reading and its automatic calibration in one transaction (databar_store.h). */
#include "app/databar_store.h"

#include <math.h>
#include <stdio.h>

/* The owner's setting, off when unreadable. */
static int owner_wants_auto(fs_db *db, long long user_id)
{
	cJSON *s = NULL;
	if (fs_settings_get(db, user_id, &s) || !s)
		return 0;
	int on = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "auto_calibrate_data_bar"));
	cJSON_Delete(s);
	return on;
}

/* Whether the reading may calibrate the image now (inside the transaction,
 * so that a calibration the owner made meanwhile is seen). */
static int may_apply(fs_db *db, const fs_image_rec *rec, const fs_databar_suggestion *s)
{
	double um = s->reading.um_per_px;
	if (!s->auto_ok || !s->reading.has_scale || !(um > 0))
		return 0;
	double meta = rec->suggested_um_per_px;
	if (meta > 0 && fabs(meta - um) / meta > 0.02)
		return 0;
	fs_image_rec now;
	if (fs_image_get(db, rec->id, &now) || now.um_per_px > 0)
		return 0;
	return owner_wants_auto(db, rec->owner_id);
}

/* The calibration, every set's snapshot and the log entry (inside the caller's transaction). */
static int apply(fs_db *db, const fs_image_rec *rec, double um, char *err, size_t errlen)
{
	int rc = fs_image_set_calibration(db, rec->id, um, "data_bar");
	if (rc) {
		snprintf(err, errlen, "cannot store the calibration");
		return rc;
	}
	rc = fs_sets_calibration_changed(db, rec->id, 0, um, "data_bar", rec->owner_id, err, errlen);
	if (rc)
		return rc;
	cJSON *ev = cJSON_CreateObject();
	if (!ev) {
		snprintf(err, errlen, "out of memory");
		return FS_DB_ERROR;
	}
	cJSON_AddNumberToObject(ev, "um_per_px", um);
	cJSON_AddStringToObject(ev, "method", "data_bar");
	cJSON_AddBoolToObject(ev, "automatic", 1);
	rc = fs_event_log(db, rec->owner_id, rec->id, "calibration_set", ev);
	cJSON_Delete(ev);
	if (rc)
		snprintf(err, errlen, "cannot log the calibration");
	return rc;
}

static int store_done(fs_db *db, const fs_image_rec *rec, const fs_databar_suggestion *s, const cJSON *j)
{
	return fs_image_databar_done(db, rec->id, j, s->reading.has_scale ? s->reading.um_per_px : 0,
				     s->reading.confidence);
}

int fs_databar_store_reading(fs_db *db, const fs_image_rec *rec, const fs_databar_suggestion *s, int *applied,
			     char *err, size_t errlen)
{
	*applied = 0;
	if (errlen)
		err[0] = '\0';
	cJSON *j = fs_databar_suggestion_json(s);
	if (!j) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = fs_db_begin(db), applying = 0;
	if (!rc)
		rc = store_done(db, rec, s, j);
	if (!rc && may_apply(db, rec, s)) {
		applying = 1;
		rc = apply(db, rec, s->reading.um_per_px, err, errlen);
	}
	if (!rc)
		rc = fs_db_commit(db);
	else
		fs_db_rollback(db);
	if (!rc) {
		*applied = applying;
		cJSON_Delete(j);
		return 0;
	}
	if (applying && !err[0])
		snprintf(err, errlen, "the database refused the calibration");
	/* the calibration failed: the reading is still worth keeping */
	int stored = applying && store_done(db, rec, s, j) == 0;
	cJSON_Delete(j);
	if (!stored) {
		snprintf(err, errlen, "cannot store the reading");
		return -1;
	}
	return 1;
}
