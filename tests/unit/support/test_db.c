/* test_db.c - scratch databases for the storage tests (see test_db.h). */
#include "test_db.h"

#include <stdio.h>
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
}
