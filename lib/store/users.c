/* users.c - accounts and login throttling in SQLite (see users.h). */
#include "store/users.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "store/password.h"
#include "store/db_bind.h"

int fs_login_valid(const char *login)
{
	size_t n = login ? strlen(login) : 0;
	if (n < 1 || n > 64 || !isalnum((unsigned char)login[0]))
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)login[i];
		if (!(isalnum(c) || c == '.' || c == '_' || c == '-' || c == '@'))
			return 0;
	}
	return 1;
}

static const char SQL_USER_COLS[] = "id, login, display_name, role, disabled, created_at, last_login_at";

static void row_to_user(sqlite3_stmt *st, fs_user *u)
{
	memset(u, 0, sizeof *u);
	u->id = sqlite3_column_int64(st, 0);
	fs_db_col_text(st, 1, u->login, sizeof u->login);
	fs_db_col_text(st, 2, u->display_name, sizeof u->display_name);
	const unsigned char *role = sqlite3_column_text(st, 3);
	u->is_admin = role && !strcmp((const char *)role, "admin");
	u->disabled = sqlite3_column_int(st, 4);
	u->created_at = sqlite3_column_int64(st, 5);
	u->last_login_at = sqlite3_column_int64(st, 6);
}

int fs_user_create(fs_db *db, const char *login, const char *display_name, int is_admin,
		   const char *password, long long *id_out, char *err, size_t errlen)
{
	static const char sql[] = "INSERT INTO users (login, display_name, role, password_hash, created_at) "
				  "VALUES (?, ?, ?, ?, strftime('%s','now'))";
	char hash[FS_PASSWORD_HASH_MAX];
	if (!fs_login_valid(login)) {
		snprintf(err, errlen, "a login is 1 to 64 letters, digits, '.', '_', '-' or '@'");
		return FS_DB_ERROR;
	}
	if (!display_name || !*display_name)
		display_name = login;
	if (strlen(display_name) > 128) {
		snprintf(err, errlen, "the display name may have at most 128 bytes");
		return FS_DB_ERROR;
	}
	if (password) {
		if (fs_password_acceptable(password, err, errlen))
			return FS_DB_ERROR;
		if (fs_password_hash(password, hash, sizeof hash, err, errlen))
			return FS_DB_ERROR;
	}
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	if (!st) {
		snprintf(err, errlen, "%s", fs_db_errmsg(db));
		return FS_DB_ERROR;
	}
	fs_bind b = fs_bind_start(db, st);
	fs_bind_text(&b, 1, login, -1, SQLITE_TRANSIENT);
	fs_bind_text(&b, 2, display_name, -1, SQLITE_TRANSIENT);
	fs_bind_text(&b, 3, is_admin ? "admin" : "member", -1, SQLITE_STATIC);
	if (password)
		fs_bind_text(&b, 4, hash, -1, SQLITE_TRANSIENT);
	else
		fs_bind_null(&b, 4);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	if (rc == FS_DB_CONSTRAINT)
		snprintf(err, errlen, "the login '%s' is taken", login);
	else if (rc)
		snprintf(err, errlen, "%s", fs_db_errmsg(db));
	else if (id_out)
		*id_out = sqlite3_last_insert_rowid(fs_db_handle(db));
	return rc;
}

static int get_one(fs_db *db, fs_bind *b, fs_user *u)
{
	sqlite3_stmt *st = b->st;
	int rc = fs_bind_step(b);
	int out;
	if (rc == SQLITE_ROW) {
		row_to_user(st, u);
		out = FS_DB_OK;
	} else if (rc == SQLITE_DONE) {
		out = FS_DB_NOTFOUND;
	} else {
		out = fs_db_rc_from_sqlite(rc);
	}
	(void)db;
	fs_db_done(st);
	return out;
}

int fs_user_get(fs_db *db, long long id, fs_user *u)
{
	static char sql[160];
	if (!sql[0])
		snprintf(sql, sizeof sql, "SELECT %s FROM users WHERE id = ?", SQL_USER_COLS);
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, id);
	return get_one(db, &b, u);
}

int fs_user_get_by_login(fs_db *db, const char *login, fs_user *u)
{
	static char sql[160];
	if (!sql[0])
		snprintf(sql, sizeof sql, "SELECT %s FROM users WHERE login = ?", SQL_USER_COLS);
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_text(&b, 1, login, -1, SQLITE_TRANSIENT);
	return get_one(db, &b, u);
}

static int exec_update(fs_db *db, fs_bind *b)
{
	sqlite3_stmt *st = b->st;
	int rc = fs_db_rc_from_sqlite(fs_bind_step(b));
	fs_db_done(st);
	if (rc == FS_DB_OK && sqlite3_changes(fs_db_handle(db)) == 0)
		rc = FS_DB_NOTFOUND;
	return rc;
}

int fs_user_set_password(fs_db *db, long long id, const char *password, char *err, size_t errlen)
{
	char hash[FS_PASSWORD_HASH_MAX];
	if (fs_password_acceptable(password, err, errlen))
		return FS_DB_ERROR;
	if (fs_password_hash(password, hash, sizeof hash, err, errlen))
		return FS_DB_ERROR;
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE users SET password_hash = ? WHERE id = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_text(&b, 1, hash, -1, SQLITE_TRANSIENT);
	fs_bind_int64(&b, 2, id);
	int rc = exec_update(db, &b);
	if (rc == FS_DB_NOTFOUND)
		snprintf(err, errlen, "no such user");
	else if (rc)
		snprintf(err, errlen, "%s", fs_db_errmsg(db));
	return rc;
}

int fs_user_set_disabled(fs_db *db, long long id, int disabled)
{
	int rc = fs_db_begin(db);
	if (rc)
		return rc;
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE users SET disabled = ? WHERE id = ?");
	if (!st) {
		fs_db_rollback(db);
		return FS_DB_ERROR;
	}
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int(&b, 1, disabled ? 1 : 0);
	fs_bind_int64(&b, 2, id);
	rc = exec_update(db, &b);
	if (rc == FS_DB_OK && disabled) {
		st = fs_db_stmt(db, "DELETE FROM sessions WHERE user_id = ?");
		if (!st) {
			rc = FS_DB_ERROR;
		} else {
			b = fs_bind_start(db, st);
			fs_bind_int64(&b, 1, id);
			rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
			fs_db_done(st);
		}
	}
	if (rc) {
		fs_db_rollback(db);
		return rc;
	}
	return fs_db_commit(db);
}

int fs_user_set_display_name(fs_db *db, long long id, const char *name)
{
	if (!name || !*name || strlen(name) > 128)
		return FS_DB_ERROR;
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE users SET display_name = ? WHERE id = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_text(&b, 1, name, -1, SQLITE_TRANSIENT);
	fs_bind_int64(&b, 2, id);
	return exec_update(db, &b);
}

int fs_user_count(fs_db *db, long long *n)
{
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT count(*) FROM users");
	if (!st)
		return FS_DB_ERROR;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	fs_db_done(st);
	return rc == SQLITE_ROW ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

int fs_user_each(fs_db *db, int (*fn)(const fs_user *u, void *ud), void *ud)
{
	static char sql[160];
	if (!sql[0])
		snprintf(sql, sizeof sql, "SELECT %s FROM users ORDER BY login", SQL_USER_COLS);
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	if (!st)
		return FS_DB_ERROR;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		fs_user u;
		row_to_user(st, &u);
		if (fn(&u, ud))
			break;
	}
	fs_db_done(st);
	return (rc == SQLITE_ROW || rc == SQLITE_DONE) ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

int fs_user_authenticate(fs_db *db, const char *login, const char *password, long long now, fs_user *u)
{
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT id, password_hash, disabled FROM users WHERE login = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_text(&b, 1, login, -1, SQLITE_TRANSIENT);
	int rc = fs_bind_step(&b);
	char hash[FS_PASSWORD_HASH_MAX] = "";
	long long id = 0;
	int disabled = 1;
	if (rc == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		fs_db_col_text(st, 1, hash, sizeof hash);
		disabled = sqlite3_column_int(st, 2);
	}
	fs_db_done(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return fs_db_rc_from_sqlite(rc);
	int rehash = 0;
	/* Verify even for unknown logins (against a fixed hash) so that the
	 * response time does not tell which logins exist. */
	static char dummy[FS_PASSWORD_HASH_MAX];
	if (!dummy[0]) {
		char e[64];
		if (fs_password_hash("fishscale-timing-equaliser", dummy, sizeof dummy, e, sizeof e))
			dummy[0] = 0;
	}
	int ok = fs_password_verify(password, hash[0] ? hash : dummy, &rehash);
	if (rc != SQLITE_ROW || !hash[0] || !ok || disabled)
		return FS_DB_NOTFOUND;
	/* Best effort from here on: the password was right, so the login
	 * succeeds even when the database cannot take these writes now (busy);
	 * the old hash still verifies and is upgraded at the next login, and a
	 * missed last-login time is only shown on the admin page. */
	if (rehash) {
		char e[128];
		if (fs_user_set_password(db, id, password, e, sizeof e))
			fs_db_note_skipped(db, "upgrading a password's hash", SQLITE_ERROR);
	}
	st = fs_db_stmt(db, "UPDATE users SET last_login_at = ? WHERE id = ?");
	b = fs_bind_start(db, st);
	int src = SQLITE_ERROR;
	if (st) {
		fs_bind_int64(&b, 1, now);
		fs_bind_int64(&b, 2, id);
		src = fs_bind_step(&b);
		fs_db_done(st);
	}
	if (src != SQLITE_DONE)
		fs_db_note_skipped(db, "recording a login's time", src);
	return fs_user_get(db, id, u);
}

static int count_since(fs_db *db, const char *sql, const char *key, long long since, long long *count,
		       long long *oldest)
{
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_text(&b, 1, key, -1, SQLITE_TRANSIENT);
	fs_bind_int64(&b, 2, since);
	int rc = fs_bind_step(&b);
	if (rc == SQLITE_ROW) {
		*count = sqlite3_column_int64(st, 0);
		*oldest = sqlite3_column_int64(st, 1);
	}
	fs_db_done(st);
	return rc == SQLITE_ROW ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

/* Failures (count, latest) of one account from one address since a time. */
static int pair_since(fs_db *db, const char *login, const char *addr, long long since, long long *count,
		      long long *latest)
{
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT count(*), coalesce(max(at), 0) FROM login_failures "
					  "WHERE login = ? AND client_addr = ? AND at > ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_text(&b, 1, login, -1, SQLITE_TRANSIENT);
	fs_bind_text(&b, 2, addr, -1, SQLITE_TRANSIENT);
	fs_bind_int64(&b, 3, since);
	int rc = fs_bind_step(&b);
	if (rc == SQLITE_ROW) {
		*count = sqlite3_column_int64(st, 0);
		*latest = sqlite3_column_int64(st, 1);
	}
	fs_db_done(st);
	return rc == SQLITE_ROW ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

int fs_throttle_check(fs_db *db, const char *login, const char *addr, int max_failures, int window_s,
		      long long now, int *retry_after_s)
{
	long long since = now - window_s, n = 0, oldest = 0, latest = 0;
	*retry_after_s = 0;
	/* this account from this address: after max_failures, a wait after each
	 * further failure that doubles each time (window/30, 2x, 4x, ... up to
	 * the window), so a guesser slows down and the owner elsewhere does not */
	int rc = pair_since(db, login, addr, since, &n, &latest);
	if (rc)
		return rc;
	if (n >= max_failures) {
		long long base = window_s / 30 > 0 ? window_s / 30 : 1, wait = base;
		for (long long k = max_failures; k < n && wait < window_s; k++)
			wait *= 2;
		if (wait > window_s)
			wait = window_s;
		if (now < latest + wait) {
			*retry_after_s = (int)(latest + wait - now);
			return 1;
		}
	}
	/* the account from everywhere: a much higher ceiling (many addresses) */
	rc = count_since(db, "SELECT count(*), min(at) FROM login_failures WHERE login = ? AND at > ?", login,
			 since, &n, &oldest);
	if (rc)
		return rc;
	if (n >= (long long)FS_THROTTLE_ACCOUNT_FACTOR * max_failures) {
		*retry_after_s = (int)(oldest + window_s - now) + 1;
		return 1;
	}
	/* one address trying many accounts */
	rc = count_since(db, "SELECT count(*), min(at) FROM login_failures WHERE client_addr = ? AND at > ?", addr,
			 since, &n, &oldest);
	if (rc)
		return rc;
	if (n >= (long long)FS_THROTTLE_ADDRESS_FACTOR * max_failures) {
		*retry_after_s = (int)(oldest + window_s - now) + 1;
		return 1;
	}
	return 0;
}

int fs_throttle_record(fs_db *db, const char *login, const char *addr, long long now)
{
	sqlite3_stmt *st = fs_db_stmt(db, "INSERT INTO login_failures (login, client_addr, at) VALUES (?, ?, ?)");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_text(&b, 1, login, -1, SQLITE_TRANSIENT);
	fs_bind_text(&b, 2, addr, -1, SQLITE_TRANSIENT);
	fs_bind_int64(&b, 3, now);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	/* keep the table small: failures older than a day are of no use.
	 * Best effort: the failure itself is recorded (rc); old rows left
	 * behind are pruned by the next failure's call. */
	st = fs_db_stmt(db, "DELETE FROM login_failures WHERE at < ?");
	b = fs_bind_start(db, st);
	int src = SQLITE_ERROR;
	if (st) {
		fs_bind_int64(&b, 1, now - 86400);
		src = fs_bind_step(&b);
		fs_db_done(st);
	}
	if (src != SQLITE_DONE)
		fs_db_note_skipped(db, "pruning old login failures", src);
	return rc;
}

int fs_throttle_clear(fs_db *db, const char *login, const char *addr)
{
	sqlite3_stmt *st = fs_db_stmt(db, "DELETE FROM login_failures WHERE login = ? AND client_addr = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_text(&b, 1, login, -1, SQLITE_TRANSIENT);
	fs_bind_text(&b, 2, addr, -1, SQLITE_TRANSIENT);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	return rc;
}
