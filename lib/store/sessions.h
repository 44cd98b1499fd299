/*
 * sessions.h - login sessions stored in SQLite.
 *
 * The browser holds a random 32-byte token (hex); the database stores only
 * its SHA-256, so a copy of the database does not let anyone log in. Each
 * session has a CSRF token (random, stored plainly: it is not a credential
 * on its own), an idle expiry (last_seen + idle) and an absolute expiry.
 */
#ifndef FS_SESSIONS_H
#define FS_SESSIONS_H

#include "store/db.h"
#include "store/users.h"

/* Creates a session; token_out and csrf_out receive 64 hex chars + NUL. */
int fs_session_create(fs_db *db, long long user_id, long long now, int absolute_s, const char *addr,
		      char token_out[65], char csrf_out[65]);

/*
 * Looks a token up. Returns 0 with the user and CSRF token for a live
 * session of an enabled user (refreshing last_seen at most once a minute, so
 * reads stay reads); FS_DB_NOTFOUND when unknown, expired (idle or absolute;
 * the row is then deleted) or the user is disabled.
 */
int fs_session_lookup(fs_db *db, const char *token, long long now, int idle_s, fs_user *u, char csrf_out[65]);

int fs_session_delete(fs_db *db, const char *token);
int fs_session_delete_user(fs_db *db, long long user_id);
/* Ends every session of the user but the one with keep_token (NULL or ""
 * = all); *ended = how many. After a password change. */
int fs_session_delete_user_except(fs_db *db, long long user_id, const char *keep_token, int *ended);
/* Deletes every expired session; returns the count or a negative fs_db_rc. */
int fs_session_purge(fs_db *db, long long now, int idle_s);

#endif
