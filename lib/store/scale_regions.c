/*
 * scale_regions.c - stored scale regions (see scale_regions.h).
 */
#include "store/scale_regions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cJSON.h>

#include "store/eventlog.h"
#include "store/sets_store.h"
#include "store/db_bind.h"

#define ERR(...) (err && errlen ? (void)snprintf(err, errlen, __VA_ARGS__) : (void)0)

int fs_scale_region_stored(fs_db *db, long long image_id, const char *work_key, int width, int height,
			   fs_scale_region *out, fs_scale_region_meta *meta)
{
	memset(out, 0, sizeof *out);
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT width, height, cell, rows, source, user_id, updated_at "
					  "FROM scale_regions WHERE image_id = ? AND work_key = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, image_id);
	fs_bind_text(&b, 2, work_key ? work_key : "", -1, SQLITE_TRANSIENT);
	int rc = fs_bind_step(&b);
	if (rc != SQLITE_ROW) {
		fs_db_done(st);
		return fs_db_row_rc(rc);
	}
	int w = sqlite3_column_int(st, 0), h = sqlite3_column_int(st, 1), cell = sqlite3_column_int(st, 2);
	const char *rows = (const char *)sqlite3_column_text(st, 3);
	const char *src = (const char *)sqlite3_column_text(st, 4);
	int user = src && !strcmp(src, "user");
	long long uid = sqlite3_column_int64(st, 5), at = sqlite3_column_int64(st, 6);
	char err[128];
	int ok = w == width && h == height &&
		 !fs_scale_region_rows_parse(rows, width, height, cell, out, err, sizeof err);
	fs_db_done(st);
	if (!ok)
		return FS_DB_NOTFOUND; /* another frame or an old cell size: found again */
	out->user = user;
	if (meta) {
		meta->user = user;
		meta->user_id = uid;
		meta->updated_at = at;
	}
	return FS_DB_OK;
}

/* Writes (insert or replace) the row of work_key; source "auto" never
 * replaces a person's region. */
static int put_row(fs_db *db, long long image_id, const char *work_key, const fs_scale_region *r, int user,
		   long long user_id)
{
	size_t cap = fs_scale_region_rows_cap(r);
	char *rows = malloc(cap);
	if (!rows || fs_scale_region_rows_write(r, rows, cap)) {
		free(rows);
		return FS_DB_ERROR;
	}
	sqlite3_stmt *st =
		fs_db_stmt(db, user ? "INSERT OR REPLACE INTO scale_regions (image_id, work_key, width, height, cell, "
				      "rows, source, user_id, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'user', ?, ?)"
				    : "INSERT OR IGNORE INTO scale_regions (image_id, work_key, width, height, cell, "
				      "rows, source, user_id, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'auto', ?, ?)");
	if (!st) {
		free(rows);
		return FS_DB_ERROR;
	}
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, image_id);
	fs_bind_text(&b, 2, work_key, -1, SQLITE_TRANSIENT);
	fs_bind_int(&b, 3, r->width);
	fs_bind_int(&b, 4, r->height);
	fs_bind_int(&b, 5, r->cell);
	fs_bind_text(&b, 6, rows, -1, SQLITE_TRANSIENT);
	if (user_id)
		fs_bind_int64(&b, 7, user_id);
	fs_bind_int64(&b, 8, (long long)time(NULL));
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	free(rows);
	return rc;
}

int fs_scale_region_for(fs_db *db, long long image_id, const char *work_key, const fs_image *img,
			fs_scale_region *out, fs_scale_region_meta *meta, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	if (meta)
		memset(meta, 0, sizeof *meta);
	int w = img ? img->width : 0, h = img ? img->height : 0;
	int rc;
	if (img) {
		rc = fs_scale_region_stored(db, image_id, work_key, w, h, out, meta);
		if (rc != FS_DB_NOTFOUND)
			return rc;
		if (fs_scale_region_detect(img, out, err, errlen))
			return FS_DB_ERROR;
		/* a stale row (another size) is replaced; a person's region of
		 * the same key with another size cannot exist (keys are content).
		 * Best effort: the stored automatic region is only a cache of
		 * what was just computed, so the caller gets its region even when
		 * the database cannot take the write now; it is computed again
		 * next time. */
		sqlite3_stmt *st = fs_db_stmt(db, "DELETE FROM scale_regions WHERE image_id = ? AND work_key = ? "
						  "AND (width <> ? OR height <> ? OR source = 'auto')");
		fs_bind b = fs_bind_start(db, st);
		int src = SQLITE_ERROR;
		if (st) {
			fs_bind_int64(&b, 1, image_id);
			fs_bind_text(&b, 2, work_key ? work_key : "", -1, SQLITE_TRANSIENT);
			fs_bind_int(&b, 3, w);
			fs_bind_int(&b, 4, h);
			src = fs_bind_step(&b);
			fs_db_done(st);
		}
		if (src != SQLITE_DONE)
			fs_db_note_skipped(db, "replacing a stale automatic scale region", src);
		else if (put_row(db, image_id, work_key ? work_key : "", out, 0, 0))
			fs_db_note_skipped(db, "caching an automatic scale region", SQLITE_ERROR);
		return FS_DB_OK;
	}
	/* no image: whatever is stored, at its own size */
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT width, height FROM scale_regions WHERE image_id = ? AND work_key = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, image_id);
	fs_bind_text(&b, 2, work_key ? work_key : "", -1, SQLITE_TRANSIENT);
	rc = fs_bind_step(&b);
	if (rc != SQLITE_ROW) {
		fs_db_done(st);
		return fs_db_row_rc(rc);
	}
	w = sqlite3_column_int(st, 0);
	h = sqlite3_column_int(st, 1);
	fs_db_done(st);
	return fs_scale_region_stored(db, image_id, work_key, w, h, out, meta);
}

int fs_scale_region_change(fs_db *db, long long image_id, const char *work_key, long long user_id,
			   const fs_scale_region *r, const char *what, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = 0;
	int rc = fs_db_begin(db);
	if (rc) {
		ERR("the database is busy");
		return rc;
	}
	if (r) {
		rc = put_row(db, image_id, work_key, r, 1, user_id);
	} else {
		sqlite3_stmt *st = fs_db_stmt(db, "DELETE FROM scale_regions WHERE image_id = ? AND work_key = ?");
		if (!st) {
			rc = FS_DB_ERROR;
		} else {
			fs_bind b = fs_bind_start(db, st);
			fs_bind_int64(&b, 1, image_id);
			fs_bind_text(&b, 2, work_key, -1, SQLITE_TRANSIENT);
			rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
			fs_db_done(st);
		}
	}
	cJSON *d = cJSON_CreateObject();
	if (!d && !rc)
		rc = FS_DB_ERROR;
	if (!rc) {
		cJSON_AddStringToObject(d, "action", r ? "edited" : "reset");
		cJSON_AddStringToObject(d, "source", r ? "user" : "auto");
		if (what && *what)
			cJSON_AddStringToObject(d, "summary", what);
		if (r)
			cJSON_AddNumberToObject(d, "area_fraction", (double)(long)(1000 * fs_scale_region_fraction(r)) / 1000);
		rc = fs_event_log(db, user_id, image_id, "scale_region_changed", d);
	}
	if (!rc)
		rc = fs_sets_frame_changed(db, image_id, user_id, "scale_region_changed", d, err, errlen);
	cJSON_Delete(d);
	if (!rc)
		rc = fs_db_commit(db);
	if (rc) {
		fs_db_rollback(db);
		if (err && errlen && !err[0])
			ERR("could not store the scale region: %s", fs_db_errmsg(db));
	}
	return rc;
}
