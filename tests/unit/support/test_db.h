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
/* Removes path and its -wal and -shm files (the database must be closed). */
void test_db_remove(const char *path);

#endif
