/*
 * test_db.h - a scratch database for the storage tests: a fresh file under
 * /tmp named after the test and the process, and its removal with the WAL
 * and shared-memory files SQLite leaves beside it.
 */
#ifndef FS_TEST_DB_H
#define FS_TEST_DB_H

#include <stddef.h>

#include "store/db.h"

/* Opens /tmp/fs-<tag>-test-<pid>.db afresh (a leftover is removed first);
 * its path goes into path. NULL when it cannot be opened. */
fs_db *test_db_open(const char *tag, char *path, size_t pathlen);
/* test_db_open, then a user "ann" (password "ann-password") owning one
 * 200 x 100 8-bit PNG image record (no file behind it): for tests of what
 * hangs off an image. Their ids go into *uid and *image_id. NULL on any
 * failure (nothing left open). */
fs_db *test_db_open_with_image(const char *tag, char *path, size_t pathlen, long long *uid,
			       long long *image_id);
/* test_db_open, then users "alice" and "bob" (display names alice_name,
 * bob_name; no password). NULL on any failure (nothing left open). */
fs_db *test_db_open_two_users(const char *tag, char *path, size_t pathlen, const char *alice_name,
			      const char *bob_name, long long *alice, long long *bob);
/* The cmocka fixture of test_db_open_two_users: setup puts a malloc'ed
 * test_two_users into *state (-1 on any failure, nothing left open);
 * teardown closes and removes the database and frees it. */
typedef struct test_two_users {
	fs_db *db;
	long long alice, bob;
	char path[128];
} test_two_users;
int test_two_users_setup(void **state, const char *tag, const char *alice_name, const char *bob_name);
int test_two_users_teardown(void **state);
/* Removes path and its -wal, -shm and -waits files (the database must be closed). */
void test_db_remove(const char *path);

#endif
