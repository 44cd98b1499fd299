/* test_db.c - scratch databases for the storage tests (see test_db.h). */
#include "test_db.h"

#include "store/users.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

fs_db *test_db_open(const char *tag, char *path, size_t pathlen)
{
	char err[256];
	snprintf(path, pathlen, "/tmp/fs-%s-test-%d.db", tag, (int)getpid());
	test_db_remove(path);
	return fs_db_open(path, 2000, err, sizeof err);
}

void test_db_remove(const char *path)
{
	char p[300];
	unlink(path);
	snprintf(p, sizeof p, "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof p, "%s-shm", path);
	unlink(p);
	snprintf(p, sizeof p, "%s-waits", path);
	unlink(p);
}

fs_db *test_db_open_with_image(const char *tag, char *path, size_t pathlen, long long *uid,
			       long long *image_id)
{
	char err[256];
	sqlite3_stmt *st = NULL;
	fs_db *db = test_db_open(tag, path, pathlen);
	if (!db)
		return NULL;
	if (fs_user_create(db, "ann", "Ann", 0, "ann-password", uid, err, sizeof err) ||
	    sqlite3_exec(fs_db_handle(db),
			 "INSERT INTO image_files (sha256, size, format, created_at) VALUES ('ab', 1, 'png', 0)", NULL,
			 NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(fs_db_handle(db),
			       "INSERT INTO images (owner_id, file_sha256, work_key, original_name, format, width, "
			       "height, bit_depth, created_at, updated_at) "
			       "VALUES (?1, 'ab', 'k', 'x.png', 'png', 200, 100, 8, 0, 0)",
			       -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_int64(st, 1, *uid) != SQLITE_OK || sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_finalize(st);
		fs_db_close(db);
		return NULL;
	}
	sqlite3_finalize(st);
	*image_id = sqlite3_last_insert_rowid(fs_db_handle(db));
	return db;
}

fs_db *test_db_open_two_users(const char *tag, char *path, size_t pathlen, const char *alice_name,
			      const char *bob_name, long long *alice, long long *bob)
{
	char err[256];
	fs_db *db = test_db_open(tag, path, pathlen);
	if (!db)
		return NULL;
	if (fs_user_create(db, "alice", alice_name, 0, NULL, alice, err, sizeof err) ||
	    fs_user_create(db, "bob", bob_name, 0, NULL, bob, err, sizeof err)) {
		fs_db_close(db);
		return NULL;
	}
	return db;
}

int test_two_users_setup(void **state, const char *tag, const char *alice_name, const char *bob_name)
{
	test_two_users *c = calloc(1, sizeof *c);
	if (!c)
		return -1;
	c->db = test_db_open_two_users(tag, c->path, sizeof c->path, alice_name, bob_name, &c->alice, &c->bob);
	if (!c->db) {
		free(c);
		return -1;
	}
	*state = c;
	return 0;
}

int test_two_users_teardown(void **state)
{
	test_two_users *c = *state;
	fs_db_close(c->db);
	test_db_remove(c->path);
	free(c);
	return 0;
}
