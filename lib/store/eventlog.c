/* eventlog.c - the event log in SQLite (see eventlog.h). */
#include "store/eventlog.h"
#include "base/clock.h"

#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include "store/db_bind.h"
#include "store/rows_json.h"

int fs_event_log(fs_db *db, long long user_id, long long image_id, const char *event_type, const cJSON *details)
{
	sqlite3_stmt *st = fs_db_stmt(db, "INSERT INTO events (at, user_id, image_id, event_type, details) "
					  "VALUES (?, ?, ?, ?, ?)");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	char *d = details ? cJSON_PrintUnformatted(details) : NULL;
	fs_bind_double(&b, 1, fs_wall_s());
	if (user_id)
		fs_bind_int64(&b, 2, user_id);
	if (image_id)
		fs_bind_int64(&b, 3, image_id);
	fs_bind_text(&b, 4, event_type, -1, SQLITE_TRANSIENT);
	fs_bind_text(&b, 5, d ? d : "{}", -1, SQLITE_TRANSIENT);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	cJSON_free(d);
	return rc;
}

/* Every event type the server itself logs (keep in step with the
 * fs_event_log calls; test_security.py posts each one and expects 422). */
static const char *const server_types[] = {
	"image_loaded", "image_deleted", "image_rotated", "image_cropped", "image_autocropped",
	"image_transform_undone", "calibration_set", "annotations_saved", "annotations_exported",
	"annotations_loaded", "annotations_load_failed", "extraction_complete", "extraction_failed",
	"settings_changed", "settings_reset", "regenerate_connections", "optimize_step",
	"optimize_auto_complete", "tools_auto_connect", "tools_tubercle_added", "tools_tubercle_deleted",
	"tools_tubercle_moved", "edit_add_tub", "edit_move_tub", "edit_delete_tub", "edit_add_itc",
	"edit_delete_itc", "edit_delete_multi", "edit_clear_all", "edit_undo", "edit_redo", "edit_revert",
	"agent_reset", "agent_started", "agent_start_failed", "agent_stopped", "agent_error",
	"agent_run_stopped", "agent_completed", "edit_agent_started", "edit_agent_start_failed",
	"edit_agent_stopped", "edit_agent_error", "edit_agent_run_stopped", "edit_agent_completed",
	"agent_chat_started", "agent_chat_start_failed", "password_changed", "remeasure", "remeasure_failed", NULL,
};

int fs_event_type_is_server(const char *type)
{
	if (!strncmp(type, FS_EVENT_CLIENT_PREFIX, strlen(FS_EVENT_CLIENT_PREFIX)))
		return 1; /* the namespace itself is the server's to give */
	for (size_t i = 0; server_types[i]; i++)
		if (!strcmp(type, server_types[i]))
			return 1;
	return 0;
}

static void iso_time(double t, char *out, size_t n)
{
	time_t s = (time_t)t;
	struct tm tm;
	gmtime_r(&s, &tm);
	char base[32];
	strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, n, "%s.%06dZ", base, (int)((t - (double)s) * 1e6));
}

/* Every filter is bound, "no filter" binds a value that makes its clause
 * true; ?6 and ?8 bound the ids from above and below (paging). */
#define EVENT_WHERE \
	"WHERE (?1 = 0 OR e.user_id = ?1) AND (?2 = 0 OR e.image_id = ?2) " \
	"AND (?3 IS NULL OR e.event_type = ?3 OR e.event_type = 'client_' || ?3 OR (substr(?3, -1) = '*' AND " \
	"     (substr(e.event_type, 1, length(?3) - 1) = substr(?3, 1, length(?3) - 1) OR " \
	"      substr(e.event_type, 1, length(?3) + 6) = 'client_' || substr(?3, 1, length(?3) - 1)))) " \
	"AND (?4 = 0 OR e.at >= ?4) AND (?5 = 0 OR e.at < ?5) AND (?6 = 0 OR e.id < ?6) " \
	"AND (?8 = 0 OR e.id > ?8) "
#define EVENT_COLUMNS \
	"SELECT e.id, e.at, e.event_type, coalesce(u.login, ''), coalesce(e.image_id, 0), e.details " \
	"FROM events e LEFT JOIN users u ON u.id = e.user_id "

static fs_bind bind_query(fs_db *db, sqlite3_stmt *st, const fs_event_query *q, int seventh)
{
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, q->user_id);
	fs_bind_int64(&b, 2, q->image_id);
	if (q->event_type && *q->event_type)
		fs_bind_text(&b, 3, q->event_type, -1, SQLITE_TRANSIENT);
	fs_bind_double(&b, 4, q->since);
	fs_bind_double(&b, 5, q->until);
	fs_bind_int64(&b, 6, q->before_id);
	fs_bind_int(&b, 7, seventh);
	fs_bind_int64(&b, 8, q->after_id);
	return b;
}

static cJSON *row_json(sqlite3_stmt *st, void *ctx)
{
	(void)ctx;
	cJSON *e = cJSON_CreateObject();
	cJSON_AddNumberToObject(e, "id", (double)sqlite3_column_int64(st, 0));
	char ts[48];
	iso_time(sqlite3_column_double(st, 1), ts, sizeof ts);
	cJSON_AddStringToObject(e, "timestamp", ts);
	const char *type = (const char *)sqlite3_column_text(st, 2);
	size_t pl = strlen(FS_EVENT_CLIENT_PREFIX);
	int client = type && !strncmp(type, FS_EVENT_CLIENT_PREFIX, pl);
	cJSON_AddStringToObject(e, "event_type", type ? type + (client ? pl : 0) : "");
	cJSON_AddBoolToObject(e, "client", client);
	cJSON_AddStringToObject(e, "user", (const char *)sqlite3_column_text(st, 3));
	long long img = sqlite3_column_int64(st, 4);
	if (img)
		cJSON_AddNumberToObject(e, "image_id", (double)img);
	else
		cJSON_AddNullToObject(e, "image_id");
	const char *d = (const char *)sqlite3_column_text(st, 5);
	cJSON *dj = d ? cJSON_Parse(d) : NULL;
	cJSON_AddItemToObject(e, "details", dj ? dj : cJSON_CreateObject());
	return e;
}

int fs_event_query_run(fs_db *db, const fs_event_query *q, cJSON **out)
{
	static const char newest[] = EVENT_COLUMNS EVENT_WHERE "ORDER BY e.id DESC LIMIT ?7";
	static const char oldest[] = EVENT_COLUMNS EVENT_WHERE "ORDER BY e.id ASC LIMIT ?7";
	*out = NULL;
	sqlite3_stmt *st = fs_db_stmt(db, q->oldest_first ? oldest : newest);
	if (!st)
		return FS_DB_ERROR;
	int limit = q->limit < 1 ? 100 : q->limit > 1000 ? 1000 : q->limit;
	fs_bind b = bind_query(db, st, q, limit);
	return fs_db_rows_json(&b, row_json, NULL, out);
}

int fs_event_query_nth_id(fs_db *db, const fs_event_query *q, int n, long long *id)
{
	static const char sql[] = "SELECT e.id FROM events e " EVENT_WHERE "ORDER BY e.id DESC LIMIT 1 OFFSET ?7";
	*id = 0;
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = bind_query(db, st, q, n > 1 ? n - 1 : 0);
	int rc = fs_bind_step(&b);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	fs_db_done(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}
