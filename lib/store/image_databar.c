/*
 * image_databar.c - rows of image_databar (image_databar.h).
 */
#include "store/image_databar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "store/db_bind.h"

static int put(fs_db *db, long long image_id, const char *state, const char *result, double um, double conf,
	       const char *error)
{
	sqlite3_stmt *st = fs_db_stmt(db, "INSERT INTO image_databar (image_id, state, um_per_px, confidence, "
					  "result, error, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
					  "ON CONFLICT (image_id) DO UPDATE SET state = excluded.state, "
					  "um_per_px = excluded.um_per_px, confidence = excluded.confidence, "
					  "result = excluded.result, error = excluded.error, "
					  "updated_at = excluded.updated_at");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, image_id);
	fs_bind_text(&b, 2, state, -1, SQLITE_STATIC);
	if (um > 0)
		fs_bind_double(&b, 3, um);
	else
		fs_bind_null(&b, 3);
	fs_bind_double(&b, 4, conf);
	fs_bind_text(&b, 5, result, -1, SQLITE_STATIC);
	fs_bind_text(&b, 6, error ? error : "", -1, SQLITE_STATIC);
	fs_bind_int64(&b, 7, (long long)time(NULL));
	int rc = fs_bind_step(&b);
	fs_db_done(st);
	return rc == SQLITE_DONE ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

int fs_image_databar_pending(fs_db *db, long long image_id)
{
	return put(db, image_id, "pending", "{}", 0, 0, NULL);
}

int fs_image_databar_done(fs_db *db, long long image_id, const cJSON *result, double um_per_px, double confidence)
{
	char *text = cJSON_PrintUnformatted(result);
	if (!text)
		return FS_DB_ERROR;
	int rc = put(db, image_id, "done", text, um_per_px, confidence, NULL);
	cJSON_free(text);
	return rc;
}

int fs_image_databar_failed(fs_db *db, long long image_id, const char *error)
{
	return put(db, image_id, "failed", "{}", 0, 0, error);
}

static void read_row(sqlite3_stmt *st, void *dst)
{
	fs_image_databar *out = dst;
	fs_db_col_text(st, 0, out->state, sizeof out->state);
	out->um_per_px = sqlite3_column_double(st, 1);
	out->confidence = sqlite3_column_double(st, 2);
	fs_db_col_text(st, 3, out->result, sizeof out->result);
	fs_db_col_text(st, 4, out->error, sizeof out->error);
	out->updated_at = sqlite3_column_int64(st, 5);
}

int fs_image_databar_get(fs_db *db, long long image_id, fs_image_databar *out)
{
	memset(out, 0, sizeof *out);
	int rc = fs_db_row_by_id(db,
				 "SELECT state, um_per_px, confidence, result, error, updated_at "
				 "FROM image_databar WHERE image_id = ?",
				 image_id, read_row, out);
	if (!rc)
		out->image_id = image_id;
	return rc;
}
