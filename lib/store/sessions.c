/* sessions.c - login sessions (see sessions.h). */
#include "store/sessions.h"

#include <stdio.h>
#include <string.h>

#include "base/token.h"
#include "store/db_bind.h"

int fs_session_create(fs_db *db, long long user_id, long long now, int absolute_s, const char *addr,
		      char token_out[65], char csrf_out[65])
{
	char hash[65];
	if (fs_token_new(token_out) || fs_token_new(csrf_out))
		return FS_DB_ERROR;
	fs_token_hash(token_out, hash);
	sqlite3_stmt *st = fs_db_stmt(db, "INSERT INTO sessions (token_hash, user_id, csrf_token, created_at, "
					  "last_seen_at, expires_at, client_addr) VALUES (?, ?, ?, ?, ?, ?, ?)");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_text(&b, 1, hash, -1, SQLITE_TRANSIENT);
	fs_bind_int64(&b, 2, user_id);
	fs_bind_text(&b, 3, csrf_out, -1, SQLITE_TRANSIENT);
	fs_bind_int64(&b, 4, now);
	fs_bind_int64(&b, 5, now);
	fs_bind_int64(&b, 6, now + absolute_s);
	fs_bind_text(&b, 7, addr ? addr : "", -1, SQLITE_TRANSIENT);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	return rc;
}

static int delete_hash(fs_db *db, const char *hash)
{
	sqlite3_stmt *st = fs_db_stmt(db, "DELETE FROM sessions WHERE token_hash = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_text(&b, 1, hash, -1, SQLITE_TRANSIENT);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	return rc;
}

int fs_session_lookup(fs_db *db, const char *token, long long now, int idle_s, fs_user *u, char csrf_out[65])
{
	if (!token || strlen(token) != 64)
		return FS_DB_NOTFOUND;
	char hash[65];
	fs_token_hash(token, hash);
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT user_id, csrf_token, last_seen_at, expires_at "
					  "FROM sessions WHERE token_hash = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_text(&b, 1, hash, -1, SQLITE_TRANSIENT);
	int rc = fs_bind_step(&b);
	long long uid = 0, last_seen = 0, expires = 0;
	if (rc == SQLITE_ROW) {
		uid = sqlite3_column_int64(st, 0);
		const unsigned char *c = sqlite3_column_text(st, 1);
		snprintf(csrf_out, 65, "%s", c ? (const char *)c : "");
		last_seen = sqlite3_column_int64(st, 2);
		expires = sqlite3_column_int64(st, 3);
	}
	fs_db_done(st);
	if (rc == SQLITE_DONE)
		return FS_DB_NOTFOUND;
	if (rc != SQLITE_ROW)
		return fs_db_rc_from_sqlite(rc);
	if (now >= expires || now - last_seen >= idle_s) {
		delete_hash(db, hash);
		return FS_DB_NOTFOUND;
	}
	rc = fs_user_get(db, uid, u);
	if (rc)
		return rc;
	if (u->disabled) {
		delete_hash(db, hash);
		return FS_DB_NOTFOUND;
	}
	if (now - last_seen >= 60) {
		/* best effort: a busy database must not log the user out; a
		 * missed update only makes the idle timeout count from the
		 * previous one (at most a minute earlier) */
		st = fs_db_stmt(db, "UPDATE sessions SET last_seen_at = ? WHERE token_hash = ?");
		b = fs_bind_start(db, st);
		int src = SQLITE_ERROR;
		if (st) {
			fs_bind_int64(&b, 1, now);
			fs_bind_text(&b, 2, hash, -1, SQLITE_TRANSIENT);
			src = fs_bind_step(&b);
			fs_db_done(st);
		}
		if (src != SQLITE_DONE)
			fs_db_note_skipped(db, "recording a session's last use", src);
	}
	return FS_DB_OK;
}

int fs_session_delete(fs_db *db, const char *token)
{
	char hash[65];
	fs_token_hash(token, hash);
	return delete_hash(db, hash);
}

int fs_session_delete_user(fs_db *db, long long user_id)
{
	return fs_db_exec_id(db, "DELETE FROM sessions WHERE user_id = ?", user_id);
}

int fs_session_delete_user_except(fs_db *db, long long user_id, const char *keep_token, int *ended)
{
	char hash[65] = "";
	if (keep_token && *keep_token)
		fs_token_hash(keep_token, hash);
	*ended = 0;
	sqlite3_stmt *st = fs_db_stmt(db, "DELETE FROM sessions WHERE user_id = ? AND token_hash <> ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, user_id);
	fs_bind_text(&b, 2, hash, -1, SQLITE_TRANSIENT);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	if (!rc)
		*ended = sqlite3_changes(fs_db_handle(db));
	fs_db_done(st);
	return rc;
}

int fs_session_purge(fs_db *db, long long now, int idle_s)
{
	sqlite3_stmt *st = fs_db_stmt(db, "DELETE FROM sessions WHERE expires_at <= ? OR last_seen_at <= ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, now);
	fs_bind_int64(&b, 2, now - idle_s);
	int rc = fs_bind_step(&b);
	fs_db_done(st);
	if (rc != SQLITE_DONE)
		return fs_db_rc_from_sqlite(rc);
	return sqlite3_changes(fs_db_handle(db));
}
