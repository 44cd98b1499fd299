/*
 * Best-effort writes (db.h, fs_db_note_skipped): while another process
 * holds SQLite's write lock past this connection's busy timeout, a login
 * with the right password still succeeds and a session still answers,
 * but the writes they could not make (the login's time, the session's
 * last use) are noted with SQLite's reason for the caller to log; once the
 * lock is free they are made and nothing is noted.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "store/db.h"
#include "store/sessions.h"
#include "store/users.h"
#include "test_db.h"

static char path[128];

struct two {
	fs_db *db;     /* the request's connection: a short busy timeout */
	fs_db *holder; /* another worker holding the write lock */
	long long uid;
};

static int setup(void **state)
{
	static struct two t;
	char err[256];
	fs_db *first = test_db_open("best_effort", path, sizeof path);
	if (!first || fs_user_create(first, "ann", "Ann", 0, "ann-password", &t.uid, err, sizeof err))
		return -1;
	fs_db_close(first);
	t.db = fs_db_open(path, 20, err, sizeof err);
	t.holder = fs_db_open(path, 20, err, sizeof err);
	*state = &t;
	return t.db && t.holder ? 0 : -1;
}

static int teardown(void **state)
{
	struct two *t = *state;
	fs_db_close(t->db);
	fs_db_close(t->holder);
	test_db_remove(path);
	return 0;
}

static long long last_login(fs_db *db, long long uid)
{
	fs_user u;
	assert_int_equal(fs_user_get(db, uid, &u), FS_DB_OK);
	return u.last_login_at;
}

static void login_succeeds_while_its_time_cannot_be_written(void **state)
{
	struct two *t = *state;
	char why[200];
	fs_user u;
	assert_int_equal(fs_db_begin(t->holder), FS_DB_OK);
	assert_int_equal(fs_user_authenticate(t->db, "ann", "ann-password", 1000, &u), FS_DB_OK);
	assert_int_equal(u.id, t->uid);
	assert_int_equal(fs_db_take_skipped(t->db, why, sizeof why), 1);
	assert_non_null(strstr(why, "recording a login's time"));
	assert_non_null(strstr(why, "locked"));
	assert_int_equal(fs_db_take_skipped(t->db, why, sizeof why), 0);
	assert_string_equal(why, "");
	fs_db_rollback(t->holder);
	assert_int_not_equal(last_login(t->db, t->uid), 1000);

	assert_int_equal(fs_user_authenticate(t->db, "ann", "ann-password", 2000, &u), FS_DB_OK);
	assert_int_equal(fs_db_take_skipped(t->db, why, sizeof why), 0);
	assert_int_equal(last_login(t->db, t->uid), 2000);
}

static void session_answers_while_its_last_use_cannot_be_written(void **state)
{
	struct two *t = *state;
	char token[65], csrf[65], why[200];
	fs_user u;
	assert_int_equal(fs_session_create(t->db, t->uid, 1000, 86400, "127.0.0.1", token, csrf), FS_DB_OK);
	assert_int_equal(fs_db_begin(t->holder), FS_DB_OK);
	/* two minutes later: the last use is due to be written */
	assert_int_equal(fs_session_lookup(t->db, token, 1120, 3600, &u, csrf), FS_DB_OK);
	assert_int_equal(u.id, t->uid);
	assert_int_equal(fs_db_take_skipped(t->db, why, sizeof why), 1);
	assert_non_null(strstr(why, "recording a session's last use"));
	fs_db_rollback(t->holder);
	assert_int_equal(fs_session_lookup(t->db, token, 1180, 3600, &u, csrf), FS_DB_OK);
	assert_int_equal(fs_db_take_skipped(t->db, why, sizeof why), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(login_succeeds_while_its_time_cannot_be_written, setup, teardown),
		cmocka_unit_test_setup_teardown(session_answers_while_its_last_use_cannot_be_written, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
