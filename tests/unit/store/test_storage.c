/* Unit tests for the SQLite layer, migrations, accounts, sessions and
 * login throttling. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <crypt.h>

#include "store/db.h"
#include "store/db_bind.h"
#include "store/rows_json.h"
#include "test_db.h"
#include "base/sha256.h"
#include "store/password.h"
#include "store/sessions.h"
#include "base/token.h"
#include "store/users.h"

static char dbpath[128];

static int setup(void **state)
{
	fs_db *db = test_db_open("storage", dbpath, sizeof dbpath);
	if (!db)
		return -1;
	*state = db;
	return 0;
}

static int teardown(void **state)
{
	fs_db_close(*state);
	test_db_remove(dbpath);
	return 0;
}

static void open_sets_wal_foreign_keys_and_version(void **state)
{
	fs_db *db = *state;
	assert_int_equal(fs_db_user_version(db), fs_db_migration_count());
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(fs_db_handle(db), "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(fs_db_handle(db), "PRAGMA foreign_keys", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 1);
	sqlite3_finalize(st);
	assert_int_equal(fs_db_integrity_check(db), 0);
}

/* Each migration applied alone on a copy of the previous schema. */
static void each_migration_applies_on_the_previous_schema(void **state)
{
	(void)state;
	char err[256];
	sqlite3 *h;
	assert_int_equal(sqlite3_open(":memory:", &h), SQLITE_OK);
	for (int v = 1; v <= fs_db_migration_count(); v++) {
		assert_int_equal(fs_db_migrate_to(h, v, err, sizeof err), 0);
		sqlite3_stmt *st;
		sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL);
		sqlite3_step(st);
		assert_int_equal(sqlite3_column_int(st, 0), v);
		sqlite3_finalize(st);
		/* applying again is a no-op */
		assert_int_equal(fs_db_migrate_to(h, v, err, sizeof err), 0);
	}
	sqlite3_close(h);
}

/* The measured-diameters migration keeps every row, makes r nullable and
 * gives the sets that existed "measured before versioning" (0). */
static void measurement_migration_keeps_rows_and_marks_old_sets(void **state)
{
	(void)state;
	char err[256];
	sqlite3 *h;
	int target = 0;
	for (int v = 1; v <= fs_db_migration_count() && !target; v++) {
		extern const char *const fs_migrations[];
		if (strstr(fs_migrations[v - 1], "measurement_version"))
			target = v;
	}
	assert_true(target > 1);
	assert_int_equal(sqlite3_open(":memory:", &h), SQLITE_OK);
	assert_int_equal(fs_db_migrate_to(h, target - 1, err, sizeof err), 0);
	assert_int_equal(sqlite3_exec(h,
				      "INSERT INTO users (id, login, display_name, role, password_hash, created_at) "
				      "VALUES (1, 'a', 'A', 'admin', 'x', 0);"
				      "INSERT INTO image_files (sha256, size, format, created_at) VALUES ('ab', 1, 'png', 0);"
				      "INSERT INTO images (id, owner_id, file_sha256, work_key, original_name, format, width, "
				      "height, bit_depth, created_at, updated_at) VALUES (1, 1, 'ab', 'k', 'x.png', 'png', "
				      "20, 10, 8, 0, 0);"
				      "INSERT INTO sets (id, image_id, name, position, created_at, updated_at) "
				      "VALUES (1, 1, 'Base', 1, 0, 0);"
				      "INSERT INTO tubercles (set_id, tid, x, y, r) VALUES (1, 1, 2.5, 3.5, 1.25);",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(fs_db_migrate_to(h, target, err, sizeof err), 0);
	sqlite3_stmt *st;
	sqlite3_prepare_v2(h, "SELECT s.measurement_version, t.x, t.y, t.r, t.fit_quality FROM sets s "
			      "JOIN tubercles t ON t.set_id = s.id", -1, &st, NULL);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 0);
	assert_true(sqlite3_column_double(st, 1) == 2.5 && sqlite3_column_double(st, 3) == 1.25);
	assert_int_equal(sqlite3_column_type(st, 4), SQLITE_NULL);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_exec(h, "INSERT INTO tubercles (set_id, tid, x, y, r) VALUES (1, 2, 5, 5, NULL)", NULL,
				      NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(h);
}

static void newer_schema_is_refused(void **state)
{
	(void)state;
	char err[256];
	sqlite3 *h;
	assert_int_equal(sqlite3_open(":memory:", &h), SQLITE_OK);
	sqlite3_exec(h, "PRAGMA user_version = 9999", NULL, NULL, NULL);
	assert_int_not_equal(fs_db_migrate_to(h, fs_db_migration_count(), err, sizeof err), 0);
	assert_non_null(strstr(err, "newer"));
	sqlite3_close(h);
}

static void failed_migration_leaves_previous_version(void **state)
{
	(void)state;
	char err[256];
	sqlite3 *h;
	assert_int_equal(sqlite3_open(":memory:", &h), SQLITE_OK);
	/* a table the first migration creates already exists: it must fail whole */
	sqlite3_exec(h, "CREATE TABLE sessions (x)", NULL, NULL, NULL);
	assert_int_not_equal(fs_db_migrate_to(h, 1, err, sizeof err), 0);
	assert_non_null(strstr(err, "migration 1"));
	sqlite3_stmt *st;
	sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL);
	sqlite3_step(st);
	assert_int_equal(sqlite3_column_int(st, 0), 0);
	sqlite3_finalize(st);
	sqlite3_prepare_v2(h, "SELECT count(*) FROM sqlite_master WHERE name = 'users'", -1, &st, NULL);
	sqlite3_step(st);
	assert_int_equal(sqlite3_column_int(st, 0), 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
}

static void busy_database_reports_busy(void **state)
{
	fs_db *db = *state;
	char err[256];
	fs_db *other = fs_db_open(dbpath, 50, err, sizeof err);
	assert_non_null(other);
	assert_int_equal(fs_db_begin(db), FS_DB_OK);
	assert_int_equal(fs_db_begin(other), FS_DB_BUSY);
	fs_db_rollback(db);
	assert_int_equal(fs_db_begin(other), FS_DB_OK);
	fs_db_rollback(other);
	fs_db_close(other);
}

/* A table for the row readers: the row at id 9 holds the smallest integer,
 * whose abs() overflows when a query steps onto it. */
static void make_probe(fs_db *db)
{
	assert_int_equal(sqlite3_exec(fs_db_handle(db),
				      "CREATE TABLE probe (id INTEGER PRIMARY KEY, v INTEGER, name TEXT);"
				      "INSERT INTO probe VALUES (3, 1, 'three'), (5, 2, NULL), (7, 42, 'seven'),"
				      " (9, -9223372036854775807 - 1, NULL);",
				      NULL, NULL, NULL),
			 SQLITE_OK);
}

struct read_seen {
	int calls;
	long long v;
	char name[8];
};

static void read_v_name(sqlite3_stmt *st, void *out)
{
	struct read_seen *r = out;
	r->calls++;
	r->v = sqlite3_column_int64(st, 0);
	fs_db_col_text(st, 1, r->name, sizeof r->name);
}

/* A read of one row by id: the row's columns handed over once, no row is
 * NOTFOUND with out untouched, a step that fails is its error. */
static void row_by_id_reads_one_row_or_says_why_not(void **state)
{
	fs_db *db = *state;
	static const char by_id[] = "SELECT v, name FROM probe WHERE id = ?";
	static const char failing[] = "SELECT abs(v), name FROM probe WHERE id = ?";
	make_probe(db);
	struct read_seen r = {0};
	assert_int_equal(fs_db_row_by_id(db, by_id, 7, read_v_name, &r), FS_DB_OK);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.v, 42);
	assert_string_equal(r.name, "seven");
	struct read_seen none = {.v = -3};
	assert_int_equal(fs_db_row_by_id(db, by_id, 8, read_v_name, &none), FS_DB_NOTFOUND);
	assert_int_equal(none.calls, 0);
	assert_int_equal(none.v, -3);
	/* abs() of the smallest integer overflows when the row is stepped */
	assert_int_equal(fs_db_row_by_id(db, failing, 9, read_v_name, &none), FS_DB_ERROR);
	assert_int_equal(none.calls, 0);
	/* the cached statement was reset: the next read runs */
	assert_int_equal(fs_db_row_by_id(db, failing, 7, read_v_name, &r), FS_DB_OK);
	assert_int_equal(r.calls, 2);
	long long v = -1;
	assert_int_equal(fs_db_int_by_id(db, by_id, 8, &v), FS_DB_NOTFOUND);
	assert_int_equal(v, 0);
	assert_int_equal(fs_db_int_by_id(db, by_id, 7, &v), FS_DB_OK);
	assert_int_equal(v, 42);
	assert_int_equal(fs_db_row_rc(SQLITE_ROW), FS_DB_OK);
	assert_int_equal(fs_db_row_rc(SQLITE_DONE), FS_DB_NOTFOUND);
	assert_int_equal(fs_db_row_rc(SQLITE_BUSY), FS_DB_BUSY);
	assert_int_equal(fs_db_row_rc(SQLITE_CONSTRAINT_UNIQUE), FS_DB_CONSTRAINT);
	assert_int_equal(fs_db_row_rc(SQLITE_IOERR), FS_DB_ERROR);
}

/* An item of the probe table's row; ctx counts the calls and, when it
 * reaches *fail_at, the item cannot be made. */
struct row_ctx {
	int calls, fail_at;
};

static cJSON *probe_item(sqlite3_stmt *st, void *ctx)
{
	struct row_ctx *c = ctx;
	if (++c->calls == c->fail_at)
		return NULL;
	return cJSON_CreateNumber((double)sqlite3_column_int64(st, 0));
}

static int rows_json_of(fs_db *db, const char *sql, long long above, struct row_ctx *c, cJSON **out)
{
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	assert_non_null(st);
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, above);
	return fs_db_rows_json(&b, probe_item, c, out);
}

/* Every row an item, in the query's order; no row is an empty array; an
 * item that cannot be made or a step that fails is an error with nothing
 * handed out, and the statement is finished either way. */
static void rows_json_lists_every_row_or_none(void **state)
{
	fs_db *db = *state;
	static const char ids[] = "SELECT id FROM probe WHERE id > ? ORDER BY id DESC";
	static const char failing[] = "SELECT abs(v) FROM probe WHERE id > ? ORDER BY id";
	make_probe(db);
	struct row_ctx c = {0};
	cJSON *out = NULL;
	assert_int_equal(rows_json_of(db, ids, 0, &c, &out), FS_DB_OK);
	char *text = cJSON_PrintUnformatted(out);
	assert_string_equal(text, "[9,7,5,3]");
	cJSON_free(text);
	cJSON_Delete(out);
	assert_int_equal(c.calls, 4);
	out = NULL;
	assert_int_equal(rows_json_of(db, ids, 9, &c, &out), FS_DB_OK);
	assert_int_equal(cJSON_GetArraySize(out), 0);
	assert_true(cJSON_IsArray(out));
	cJSON_Delete(out);
	cJSON *kept = cJSON_CreateNull();
	out = kept;
	c = (struct row_ctx){.fail_at = 2};
	assert_int_equal(rows_json_of(db, ids, 0, &c, &out), FS_DB_ERROR);
	assert_ptr_equal(out, kept);
	assert_int_equal(c.calls, 2);
	/* abs() of the smallest integer fails on the fourth row's step */
	c = (struct row_ctx){0};
	assert_int_equal(rows_json_of(db, failing, 0, &c, &out), FS_DB_ERROR);
	assert_ptr_equal(out, kept);
	assert_int_equal(c.calls, 3);
	/* both statements were finished: they run again */
	c = (struct row_ctx){0};
	assert_int_equal(rows_json_of(db, failing, 4, &c, &out), FS_DB_ERROR);
	assert_int_equal(c.calls, 2);
	assert_int_equal(rows_json_of(db, ids, 4, &c, &out), FS_DB_OK);
	assert_int_equal(cJSON_GetArraySize(out), 3);
	cJSON_Delete(out);
	cJSON_Delete(kept);
}

static void sha256_matches_fips_vectors(void **state)
{
	(void)state;
	char hex[65];
	fs_sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	fs_sha256_hex("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	fs_sha256_hex(two, strlen(two), hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* streaming in odd pieces gives the same digest */
	fs_sha256 s;
	unsigned char d[32];
	fs_sha256_init(&s);
	for (size_t i = 0; i < strlen(two); i += 7)
		fs_sha256_update(&s, two + i, strlen(two) - i < 7 ? strlen(two) - i : 7);
	fs_sha256_final(&s, d);
	fs_hex_encode(d, 32, hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void session_tokens_are_random_and_compared_in_full(void **state)
{
	(void)state;
	char a[65], b[65];
	assert_int_equal(fs_token_new(a), 0);
	assert_int_equal(fs_token_new(b), 0);
	assert_int_equal(strlen(a), 64);
	assert_string_not_equal(a, b);
	assert_true(fs_token_equal(a, a));
	assert_false(fs_token_equal(a, b));
	char c[65];
	memcpy(c, a, 65);
	c[63] ^= 1;
	assert_false(fs_token_equal(a, c));
	c[63] = 0;
	assert_false(fs_token_equal(a, c)); /* a prefix is not equal */
	assert_false(fs_token_equal("", a));
	char pw[21];
	assert_int_equal(fs_password_generate(pw, 20), 0);
	assert_int_equal(strlen(pw), 20);
	assert_null(strpbrk(pw, "0O1lI"));
}

static void password_hash_uses_preferred_method_and_verifies(void **state)
{
	(void)state;
	char h[FS_PASSWORD_HASH_MAX], err[128];
	assert_int_equal(fs_password_hash("correct horse", h, sizeof h, err, sizeof err), 0);
	int rehash = 1;
	assert_int_equal(fs_password_verify("correct horse", h, &rehash), 1);
	assert_int_equal(rehash, 0);
	assert_int_equal(fs_password_verify("correct horsE", h, &rehash), 0);
	assert_int_equal(fs_password_verify("correct horse", "", &rehash), 0);
	assert_int_equal(fs_password_verify("correct horse", "*", &rehash), 0);
	char h2[FS_PASSWORD_HASH_MAX];
	assert_int_equal(fs_password_hash("correct horse", h2, sizeof h2, err, sizeof err), 0);
	assert_string_not_equal(h, h2); /* salted */
	assert_int_equal(fs_password_acceptable("short", err, sizeof err), -1);
}

static void old_hash_method_is_upgraded_on_login(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long id;
	assert_int_equal(fs_user_create(db, "olduser", NULL, 0, "old-password", &id, err, sizeof err), 0);
	/* store a SHA-512-crypt hash: supported, but not libxcrypt's preferred method */
	struct crypt_data cd;
	memset(&cd, 0, sizeof cd);
	const char *old = crypt_r("old-password", "$6$saltsaltsalt$", &cd);
	assert_non_null(old);
	assert_true(old[0] == '$' && old[1] == '6');
	sqlite3_stmt *st;
	sqlite3_prepare_v2(fs_db_handle(db), "UPDATE users SET password_hash = ? WHERE id = ?", -1, &st, NULL);
	sqlite3_bind_text(st, 1, old, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, id);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	fs_user u;
	assert_int_equal(fs_user_authenticate(db, "olduser", "wrong-password", 100, &u), FS_DB_NOTFOUND);
	assert_int_equal(fs_user_authenticate(db, "olduser", "old-password", 100, &u), 0);
	sqlite3_prepare_v2(fs_db_handle(db), "SELECT password_hash FROM users WHERE id = ?", -1, &st, NULL);
	sqlite3_bind_int64(st, 1, id);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	const char *now = (const char *)sqlite3_column_text(st, 0);
	const char *pref = crypt_preferred_method();
	assert_non_null(pref);
	assert_memory_equal(now, pref, strlen(pref));
	sqlite3_finalize(st);
	/* and the upgraded hash still verifies */
	assert_int_equal(fs_user_authenticate(db, "olduser", "old-password", 101, &u), 0);
}

static void users_create_get_disable(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long id;
	assert_int_equal(fs_user_create(db, "alice", "Alice", 0, "alice-password", &id, err, sizeof err), 0);
	assert_int_equal(fs_user_create(db, "ALICE", "Other", 0, "alice-password", NULL, err, sizeof err),
			 FS_DB_CONSTRAINT);
	assert_int_not_equal(fs_user_create(db, "bad name", NULL, 0, "whatever-123", NULL, err, sizeof err), 0);
	assert_int_not_equal(fs_user_create(db, "carol", NULL, 0, "short", NULL, err, sizeof err), 0);
	fs_user u;
	assert_int_equal(fs_user_get_by_login(db, "alice", &u), 0);
	assert_int_equal(u.id, id);
	assert_string_equal(u.display_name, "Alice");
	assert_int_equal(u.is_admin, 0);
	assert_int_equal(fs_user_authenticate(db, "alice", "alice-password", 1000, &u), 0);
	assert_int_equal(u.last_login_at, 1000);
	assert_int_equal(fs_user_authenticate(db, "alice", "nope-nope", 1000, &u), FS_DB_NOTFOUND);
	assert_int_equal(fs_user_authenticate(db, "nobody", "alice-password", 1000, &u), FS_DB_NOTFOUND);
	assert_int_equal(fs_user_set_disabled(db, id, 1), 0);
	assert_int_equal(fs_user_authenticate(db, "alice", "alice-password", 1000, &u), FS_DB_NOTFOUND);
	assert_int_equal(fs_user_set_disabled(db, 424242, 1), FS_DB_NOTFOUND);
	assert_true(fs_login_valid("a.b-c_d@lab"));
	assert_false(fs_login_valid(".hidden"));
	assert_false(fs_login_valid(""));
	assert_false(fs_login_valid("x'--"));
}

static void sessions_store_hash_and_expire(void **state)
{
	fs_db *db = *state;
	char err[256], tok[65], csrf[65], csrf2[65];
	long long id;
	assert_int_equal(fs_user_create(db, "sam", NULL, 1, "sam-password", &id, err, sizeof err), 0);
	assert_int_equal(fs_session_create(db, id, 1000, 3600, "127.0.0.1", tok, csrf), 0);
	fs_user u;
	assert_int_equal(fs_session_lookup(db, tok, 1100, 600, &u, csrf2), 0);
	assert_string_equal(csrf, csrf2);
	assert_int_equal(u.id, id);
	assert_int_equal(u.is_admin, 1);
	/* the token itself is nowhere in the database */
	sqlite3_stmt *st;
	sqlite3_prepare_v2(fs_db_handle(db), "SELECT count(*) FROM sessions WHERE token_hash = ?", -1, &st, NULL);
	sqlite3_bind_text(st, 1, tok, -1, SQLITE_STATIC);
	sqlite3_step(st);
	assert_int_equal(sqlite3_column_int(st, 0), 0);
	sqlite3_finalize(st);
	/* idle expiry: last seen 1100, idle 600 */
	assert_int_equal(fs_session_lookup(db, tok, 1800, 600, &u, csrf2), FS_DB_NOTFOUND);
	assert_int_equal(fs_session_lookup(db, tok, 1101, 600, &u, csrf2), FS_DB_NOTFOUND); /* deleted */
	/* absolute expiry even when active */
	assert_int_equal(fs_session_create(db, id, 1000, 300, "", tok, csrf), 0);
	assert_int_equal(fs_session_lookup(db, tok, 1200, 600, &u, csrf2), 0);
	assert_int_equal(fs_session_lookup(db, tok, 1300, 600, &u, csrf2), FS_DB_NOTFOUND);
	/* malformed tokens */
	assert_int_equal(fs_session_lookup(db, "abc", 1000, 600, &u, csrf2), FS_DB_NOTFOUND);
	assert_int_equal(fs_session_lookup(db, NULL, 1000, 600, &u, csrf2), FS_DB_NOTFOUND);
	/* disabling the user ends the session */
	assert_int_equal(fs_session_create(db, id, 5000, 3600, "", tok, csrf), 0);
	assert_int_equal(fs_user_set_disabled(db, id, 1), 0);
	assert_int_equal(fs_session_lookup(db, tok, 5001, 600, &u, csrf2), FS_DB_NOTFOUND);
	/* logout */
	assert_int_equal(fs_user_set_disabled(db, id, 0), 0);
	assert_int_equal(fs_session_create(db, id, 5000, 3600, "", tok, csrf), 0);
	assert_int_equal(fs_session_delete(db, tok), 0);
	assert_int_equal(fs_session_lookup(db, tok, 5001, 600, &u, csrf2), FS_DB_NOTFOUND);
}

/* Sessions that ended without a logout (absolute or idle expiry) are
 * deleted by fs_session_purge, which each login runs (cgi/app/auth.c):
 * the table does not grow with every login forever. */
static void expired_sessions_are_purged(void **state)
{
	fs_db *db = *state;
	char err[256], a[65], b[65], c[65], csrf[65];
	long long id;
	assert_int_equal(fs_user_create(db, "pat", NULL, 0, "pat-password", &id, err, sizeof err), 0);
	assert_int_equal(fs_session_create(db, id, 1000, 300, "", a, csrf), 0);  /* expires at 1300 */
	assert_int_equal(fs_session_create(db, id, 1000, 3600, "", b, csrf), 0); /* idle since 1000 */
	assert_int_equal(fs_session_create(db, id, 1650, 3600, "", c, csrf), 0); /* live */
	assert_int_equal(fs_session_purge(db, 1700, 600), 2);
	fs_user u;
	assert_int_equal(fs_session_lookup(db, c, 1700, 600, &u, csrf), 0);
	assert_int_equal(fs_session_lookup(db, a, 1200, 600, &u, csrf), FS_DB_NOTFOUND);
	assert_int_equal(fs_session_lookup(db, b, 1200, 600, &u, csrf), FS_DB_NOTFOUND);
	assert_int_equal(fs_session_purge(db, 1700, 600), 0);
}

static void throttle_counts_per_account_and_address(void **state)
{
	fs_db *db = *state;
	int retry;
	/* issue 14 item 13: per (account, address), with growing waits */
	for (int i = 0; i < 3; i++)
		assert_int_equal(fs_throttle_record(db, "tom", "10.0.0.1", 1000 + i), 0);
	assert_int_equal(fs_throttle_check(db, "tom", "10.0.0.1", 3, 600, 1010, &retry), 1);
	assert_int_equal(retry, 1002 + 20 - 1010); /* window/30 = 20 s after the latest failure */
	assert_int_equal(fs_throttle_check(db, "tom", "10.0.0.9", 3, 600, 1010, &retry), 0); /* another address */
	assert_int_equal(fs_throttle_check(db, "tom", "10.0.0.1", 4, 600, 1010, &retry), 0);
	assert_int_equal(fs_throttle_check(db, "tom", "10.0.0.1", 3, 600, 1022, &retry), 0); /* waited */
	assert_int_equal(fs_throttle_record(db, "tom", "10.0.0.1", 1022), 0);
	assert_int_equal(fs_throttle_check(db, "tom", "10.0.0.1", 3, 600, 1023, &retry), 1);
	assert_int_equal(retry, 1022 + 40 - 1023); /* twice as long */
	assert_int_equal(fs_throttle_record(db, "tom", "10.0.0.1", 1062), 0);
	assert_int_equal(fs_throttle_check(db, "tom", "10.0.0.1", 3, 600, 1062, &retry), 1);
	assert_int_equal(retry, 80);
	assert_int_equal(fs_throttle_check(db, "tom", "10.0.0.1", 3, 600, 1700, &retry), 0); /* window passed */
	/* the account from many addresses: 20 x 3 */
	for (int i = 0; i < 60; i++) {
		char addr[32];
		snprintf(addr, sizeof addr, "10.1.0.%d", i);
		fs_throttle_record(db, "ann", addr, 3000);
	}
	assert_int_equal(fs_throttle_check(db, "ann", "10.2.0.1", 3, 600, 3001, &retry), 1);
	assert_int_equal(retry, 600);
	/* many accounts from one address */
	for (int i = 0; i < 12; i++) {
		char login[16];
		snprintf(login, sizeof login, "u%d", i);
		fs_throttle_record(db, login, "10.0.0.7", 2000);
	}
	assert_int_equal(fs_throttle_check(db, "fresh", "10.0.0.7", 3, 600, 2001, &retry), 1);
	assert_int_equal(fs_throttle_check(db, "fresh", "10.0.0.8", 3, 600, 2001, &retry), 0);
	assert_int_equal(fs_throttle_clear(db, "tom", "10.0.0.1"), 0);
	assert_int_equal(fs_throttle_check(db, "tom", "10.0.0.1", 3, 600, 1063, &retry), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(open_sets_wal_foreign_keys_and_version, setup, teardown),
		cmocka_unit_test(each_migration_applies_on_the_previous_schema),
		cmocka_unit_test(newer_schema_is_refused),
		cmocka_unit_test(measurement_migration_keeps_rows_and_marks_old_sets),
		cmocka_unit_test(failed_migration_leaves_previous_version),
		cmocka_unit_test_setup_teardown(busy_database_reports_busy, setup, teardown),
		cmocka_unit_test_setup_teardown(row_by_id_reads_one_row_or_says_why_not, setup, teardown),
		cmocka_unit_test_setup_teardown(rows_json_lists_every_row_or_none, setup, teardown),
		cmocka_unit_test(sha256_matches_fips_vectors),
		cmocka_unit_test(session_tokens_are_random_and_compared_in_full),
		cmocka_unit_test(password_hash_uses_preferred_method_and_verifies),
		cmocka_unit_test_setup_teardown(old_hash_method_is_upgraded_on_login, setup, teardown),
		cmocka_unit_test_setup_teardown(users_create_get_disable, setup, teardown),
		cmocka_unit_test_setup_teardown(sessions_store_hash_and_expire, setup, teardown),
		cmocka_unit_test_setup_teardown(expired_sessions_are_purged, setup, teardown),
		cmocka_unit_test_setup_teardown(throttle_counts_per_account_and_address, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
