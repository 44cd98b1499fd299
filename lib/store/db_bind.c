/* db_bind.c - checked parameter binding (see db_bind.h). */
#include "store/db_bind.h"

#include <stdio.h>

fs_bind fs_bind_start(fs_db *db, sqlite3_stmt *st)
{
	fs_bind b = {db, st, SQLITE_OK, 0};
	return b;
}

/* Keeps the first failure only: a later bind's failure is usually a
 * consequence of it, and the first names the parameter to look at. */
static void note(fs_bind *b, int i, int rc)
{
	if (rc == SQLITE_OK || b->rc != SQLITE_OK)
		return;
	b->rc = rc;
	b->index = i;
	if (b->db) {
		char msg[160];
		snprintf(msg, sizeof msg, "binding parameter %d: %s", i, sqlite3_errstr(rc));
		fs_db_note_error(b->db, msg);
	}
}

void fs_bind_int(fs_bind *b, int i, int v)
{
	if (b->rc == SQLITE_OK)
		note(b, i, sqlite3_bind_int(b->st, i, v));
}

void fs_bind_int64(fs_bind *b, int i, sqlite3_int64 v)
{
	if (b->rc == SQLITE_OK)
		note(b, i, sqlite3_bind_int64(b->st, i, v));
}

void fs_bind_double(fs_bind *b, int i, double v)
{
	if (b->rc == SQLITE_OK)
		note(b, i, sqlite3_bind_double(b->st, i, v));
}

void fs_bind_null(fs_bind *b, int i)
{
	if (b->rc == SQLITE_OK)
		note(b, i, sqlite3_bind_null(b->st, i));
}

void fs_bind_text(fs_bind *b, int i, const char *s, int n, void (*destroy)(void *))
{
	/* SQLite calls destroy itself, even when the bind fails */
	if (b->rc == SQLITE_OK)
		note(b, i, sqlite3_bind_text(b->st, i, s, n, destroy));
	else if (destroy != SQLITE_STATIC && destroy != SQLITE_TRANSIENT)
		destroy((void *)s);
}

void fs_bind_blob64(fs_bind *b, int i, const void *p, sqlite3_uint64 n, void (*destroy)(void *))
{
	if (b->rc == SQLITE_OK)
		note(b, i, sqlite3_bind_blob64(b->st, i, p, n, destroy));
	else if (destroy != SQLITE_STATIC && destroy != SQLITE_TRANSIENT)
		destroy((void *)p);
}

int fs_bind_step(fs_bind *b)
{
	return b->rc != SQLITE_OK ? b->rc : sqlite3_step(b->st);
}
