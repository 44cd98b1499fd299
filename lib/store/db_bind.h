/*
 * db_bind.h - binding a prepared statement's parameters with every
 * result checked, one line a parameter: a binder remembers the first
 * failure (SQLITE_RANGE for a wrong index, SQLITE_TOOBIG past
 * SQLITE_LIMIT_LENGTH, SQLITE_NOMEM, ...) and fs_bind_step then returns
 * that code instead of running the statement, so a failed bind can never
 * run the statement with the parameter left NULL.
 *
 * The failure's message ("binding parameter 3: column index out of
 * range") becomes the connection's message (fs_db_errmsg) until the next
 * statement is fetched, so the callers' usual error reporting carries it.
 *
 * Ownership: a binder is a small value on the caller's stack; it borrows
 * the connection and the statement (both must outlive it) and owns
 * nothing. The bind functions take SQLite's own arguments (text and blob
 * destructors included) and are as cheap as SQLite's.
 */
#ifndef FS_DB_BIND_H
#define FS_DB_BIND_H

#include <sqlite3.h>

#include "store/db.h"

typedef struct fs_bind {
	fs_db *db;        /* where the message goes; may be NULL */
	sqlite3_stmt *st; /* the statement being bound */
	int rc;           /* the first failure's SQLite code, SQLITE_OK while none */
	int index;        /* that failure's parameter */
} fs_bind;

/* A binder for st (a fresh or reset statement) of connection db. */
fs_bind fs_bind_start(fs_db *db, sqlite3_stmt *st);

void fs_bind_int(fs_bind *b, int i, int v);
void fs_bind_int64(fs_bind *b, int i, sqlite3_int64 v);
void fs_bind_double(fs_bind *b, int i, double v);
void fs_bind_null(fs_bind *b, int i);
void fs_bind_text(fs_bind *b, int i, const char *s, int n, void (*destroy)(void *));
void fs_bind_blob64(fs_bind *b, int i, const void *p, sqlite3_uint64 n, void (*destroy)(void *));

/* sqlite3_step of the statement when every bind so far succeeded; else
 * the first failure's code, and the statement does not run. */
int fs_bind_step(fs_bind *b);

#endif
