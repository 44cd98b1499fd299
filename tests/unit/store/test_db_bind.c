/*
 * Checked binding (store/db_bind.h): a bind that SQLite refuses (a wrong
 * parameter index: SQLITE_RANGE; a text longer than the connection's
 * SQLITE_LIMIT_LENGTH: SQLITE_TOOBIG) must stop the statement, return an
 * error whose message names the parameter, and write nothing; before the
 * binder, the statement ran with that parameter NULL (a user without a
 * password hash, for instance).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "store/db.h"
#include "store/db_bind.h"
#include "store/sets_store.h"
#include "store/users.h"
#include "test_db.h"

static char path[128];

static int setup(void **state)
{
	fs_db *db = test_db_open("db_bind", path, sizeof path);
	*state = db;
	return db ? 0 : -1;
}

static int teardown(void **state)
{
	fs_db_close(*state);
	test_db_remove(path);
	return 0;
}

static long long count_rows(fs_db *db, const char *sql)
{
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	assert_non_null(st);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	long long n = sqlite3_column_int64(st, 0);
	fs_db_done(st);
	return n;
}

static const char INSERT_USER[] = "INSERT INTO users (login, display_name, role, created_at) VALUES (?, ?, ?, 0)";

/* Parameter 4 of a three-parameter statement: SQLITE_RANGE, the statement
 * does not run, and the cached statement serves the next caller. */
static void wrong_index_stops_the_statement(void **state)
{
	fs_db *db = *state;
	sqlite3_stmt *st = fs_db_stmt(db, INSERT_USER);
	assert_non_null(st);
	fs_bind b = fs_bind_start(db, st);
	fs_bind_text(&b, 1, "ann", -1, SQLITE_STATIC);
	fs_bind_text(&b, 2, "Ann", -1, SQLITE_STATIC);
	fs_bind_text(&b, 4, "member", -1, SQLITE_STATIC);
	fs_bind_int(&b, 1, 7); /* after the failure: not bound, not reported */
	assert_int_equal(b.rc, SQLITE_RANGE);
	assert_int_equal(b.index, 4);
	assert_int_equal(fs_bind_step(&b), SQLITE_RANGE);
	assert_int_equal(fs_db_rc_from_sqlite(fs_bind_step(&b)), FS_DB_ERROR);
	assert_string_equal(fs_db_errmsg(db), "binding parameter 4: column index out of range");
	fs_db_done(st);
	assert_int_equal(count_rows(db, "SELECT count(*) FROM users"), 0);

	st = fs_db_stmt(db, INSERT_USER);
	b = fs_bind_start(db, st);
	fs_bind_text(&b, 1, "ann", -1, SQLITE_STATIC);
	fs_bind_text(&b, 2, "Ann", -1, SQLITE_STATIC);
	fs_bind_text(&b, 3, "member", -1, SQLITE_STATIC);
	assert_int_equal(fs_bind_step(&b), SQLITE_DONE);
	fs_db_done(st);
	assert_int_equal(count_rows(db, "SELECT count(*) FROM users"), 1);
}

/* A password hash longer than the length limit: the account is refused
 * with the bind's message instead of being created without a password. */
static void too_big_text_creates_no_user(void **state)
{
	fs_db *db = *state;
	char err[256] = "";
	long long id = 0;
	int old = sqlite3_limit(fs_db_handle(db), SQLITE_LIMIT_LENGTH, 40);
	int rc = fs_user_create(db, "bob", "Bob", 0, "bob-password-long-enough", &id, err, sizeof err);
	sqlite3_limit(fs_db_handle(db), SQLITE_LIMIT_LENGTH, old);
	assert_int_equal(rc, FS_DB_ERROR);
	assert_int_equal(id, 0);
	assert_non_null(strstr(err, "binding parameter 4"));
	assert_non_null(strstr(err, "too big"));
	fs_user u;
	assert_int_equal(fs_user_get_by_login(db, "bob", &u), FS_DB_NOTFOUND);
	assert_int_equal(count_rows(db, "SELECT count(*) FROM users"), 0);
	/* the next statement fetched clears the noted message */
	assert_int_equal(fs_user_create(db, "bob", "Bob", 0, "bob-password-long-enough", &id, err, sizeof err), 0);
	assert_true(id > 0);
}

/* A bind failing inside a transaction (the journal entry of a tubercle's
 * move, a JSON text, over the limit): the whole edit is rolled back, the
 * tubercle stays where it was and the revision does not move. */
static void failed_bind_rolls_back_an_edit(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long uid, image_id, sid, rev, cur;
	fs_db_close(db);
	test_db_remove(path);
	db = test_db_open_with_image("db_bind", path, sizeof path, &uid, &image_id);
	assert_non_null(db);
	*state = db;
	fs_tubercle_list t = {0};
	for (int i = 0; i < 3; i++) {
		fs_tubercle x;
		fs_tubercle_init(&x);
		x.id = i + 1;
		x.centroid_x = 20 + 30 * i;
		x.centroid_y = 50;
		x.radius_px = 8;
		x.circularity = 0.9;
		x.source = FS_SOURCE_EXTRACTED;
		fs_tubercle_list_append(&t, &x);
	}
	fs_edge_list e = {0};
	fs_params p;
	fs_params_default(&p);
	assert_int_equal(fs_set_create(db, image_id, "domes", uid, &sid, err, sizeof err), 0);
	assert_int_equal(fs_set_replace_all(db, sid, -1, uid, &t, &e, &p, "extraction", 0, &rev, &cur, err, sizeof err),
			 0);
	fs_tubercle moved = t.items[1];
	moved.centroid_x += 5;
	long long ops = count_rows(db, "SELECT count(*) FROM set_ops");

	int old = sqlite3_limit(fs_db_handle(db), SQLITE_LIMIT_LENGTH, 120);
	long long new_rev = -1;
	int rc = fs_set_update_tubercle(db, sid, rev, uid, 2, &moved, "move_tubercle", 0, &new_rev, &cur, err,
					sizeof err);
	sqlite3_limit(fs_db_handle(db), SQLITE_LIMIT_LENGTH, old);
	assert_int_not_equal(rc, FS_DB_OK);
	assert_non_null(strstr(err, "binding parameter"));

	fs_tubercle_list now = {0};
	long long rev_now;
	assert_int_equal(fs_set_load(db, sid, &now, NULL), 0);
	assert_int_equal(fs_set_revision(db, sid, &rev_now), 0);
	assert_int_equal(now.n, 3);
	assert_true(now.items[1].centroid_x == t.items[1].centroid_x);
	assert_int_equal(rev_now, rev);
	assert_int_equal(count_rows(db, "SELECT count(*) FROM set_ops"), ops);
	fs_tubercle_list_free(&now);
	fs_tubercle_list_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(wrong_index_stops_the_statement, setup, teardown),
		cmocka_unit_test_setup_teardown(too_big_text_creates_no_user, setup, teardown),
		cmocka_unit_test_setup_teardown(failed_bind_rolls_back_an_edit, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
