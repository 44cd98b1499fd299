/*
 * db.h - SQLite storage: opening a connection the way every fishscale
 * process must (foreign keys on, busy timeout, WAL), numbered migrations
 * keyed on PRAGMA user_version, write transactions, and a per-connection
 * cache of prepared statements for static SQL.
 *
 * Error convention: functions return FS_DB_OK (0) or a negative fs_db_rc;
 * FS_DB_BUSY means the busy timeout ran out (the web layer answers 503).
 * Ownership: fs_db_open returns a handle owned by the caller, closed with
 * fs_db_close (tolerates NULL), which also finalizes cached statements.
 * Statements from fs_db_stmt belong to the cache: never finalize them; call
 * fs_db_done when finished so they are reset for the next user.
 */
#ifndef FS_DB_H
#define FS_DB_H

#include <stddef.h>
#include <sqlite3.h>

#include "base/phase_clock.h"

typedef enum fs_db_rc {
	FS_DB_OK = 0,
	FS_DB_ERROR = -1,
	FS_DB_BUSY = -2,
	FS_DB_CONSTRAINT = -3,
	FS_DB_NOTFOUND = -4,
	FS_DB_FORBIDDEN = -5, /* exists and is visible, but the user may not do that */
	FS_DB_STALE = -6,     /* a revision check failed: someone else changed it first */
	FS_DB_INVALID = -7    /* the request itself is wrong (bad name, missing id, ...) */
} fs_db_rc;

typedef struct fs_db fs_db;

/* Opens (creating if needed) and migrates the database at path. */
fs_db *fs_db_open(const char *path, int busy_timeout_ms, char *err, size_t errlen);
void fs_db_close(fs_db *db);
sqlite3 *fs_db_handle(fs_db *db);
/* A number no other handle opened by this process has (for caches keyed
 * on a handle, whose address a later handle may reuse). */
unsigned long long fs_db_open_serial(const fs_db *db);

/* Cached prepared statement for a static SQL string (keyed by the pointer
 * and checked by content). NULL on a preparation error (see fs_db_errmsg). */
sqlite3_stmt *fs_db_stmt(fs_db *db, const char *sql);
/* Resets and clears the bindings of a cached statement. */
void fs_db_done(sqlite3_stmt *st);
/* Copies text column col of the current row into dst (n bytes, cut and
 * NUL-terminated); NULL reads as "". */
void fs_db_col_text(sqlite3_stmt *st, int col, char *dst, size_t n);
/* Runs sql, a statement with one integer parameter (an id) and no result
 * rows, through the statement cache: an fs_db_rc. */
int fs_db_exec_id(fs_db *db, const char *sql, long long id);
/* Runs sql, a query with one integer parameter (an id), through the
 * statement cache and reads column 0 of its first row as an integer into
 * *out (0 without a row): FS_DB_OK, FS_DB_NOTFOUND when there is no row,
 * or the error. */
int fs_db_int_by_id(fs_db *db, const char *sql, long long id, long long *out);
/* A query's first step as the answer of a read of one row: FS_DB_OK for
 * SQLITE_ROW, FS_DB_NOTFOUND for SQLITE_DONE, else the error's fs_db_rc. */
int fs_db_row_rc(int step_rc);
/* Reads one row's columns into out (the caller's; the statement is lent
 * for the call only and must not be stepped or kept). */
typedef void (*fs_db_row_reader)(sqlite3_stmt *st, void *out);
/* Runs sql, a query with one integer parameter (an id), through the
 * statement cache and hands its first row, if any, to read with out:
 * fs_db_row_rc of the step (out untouched without a row). */
int fs_db_row_by_id(fs_db *db, const char *sql, long long id, fs_db_row_reader read, void *out);
/* Ends a row's life (a job's, an agent run's): sql is an UPDATE whose
 * parameters are 1 the final state, 2 and 3 two texts (NULL leaves them
 * NULL), 4 the time now (fs_wall_s) and 5 the row's id, and which changes
 * the row only while it is unfinished. *changed (may be NULL) says whether
 * it did. An fs_db_rc; the strings are only read. */
int fs_db_finish_row(fs_db *db, const char *sql, const char *state, const char *text2, const char *text3, long long id,
		     int *changed);

/* BEGIN IMMEDIATE / COMMIT / ROLLBACK. */
int fs_db_begin(fs_db *db);
int fs_db_commit(fs_db *db);
void fs_db_rollback(fs_db *db);
/* A read transaction (BEGIN DEFERRED .. COMMIT): one consistent snapshot
 * to prepare a large write from, without taking the write lock (in WAL
 * mode readers never block the writer). */
int fs_db_begin_read(fs_db *db);
void fs_db_end_read(fs_db *db);
/*
 * How long the write lock was held (SQLite has one writer: every other
 * process that writes waits meanwhile), measured from fs_db_begin to its
 * fs_db_commit / fs_db_rollback: the last transaction's, in ms, and the
 * longest since the previous fs_db_take_longest_write_ms (which resets it).
 * Callers log them (the library prints nothing).
 */
double fs_db_last_write_ms(const fs_db *db);
/* The CPU time this thread spent in that transaction (ms): what the lock
 * costs apart from waiting for a core on a loaded machine. */
double fs_db_last_write_cpu_ms(const fs_db *db);
/* The time this thread was runnable in that transaction but waited for a
 * core (ms; -1 where the kernel does not say): the rest of the lock's time
 * apart from the CPU time is then blocking (I/O, page-cache writeback). */
double fs_db_last_write_runq_ms(const fs_db *db);
double fs_db_take_longest_write_ms(fs_db *db);

/*
 * Where a long store's time goes (a job's result, base/phase_clock.h):
 * with a clock set, the store's long operations open a phase of it for
 * each of their steps (fs_db_phase: "diff", "journal", "write", ...); the
 * caller opens its own next phase after them. The clock stays the
 * caller's; NULL (the default) times nothing.
 */
void fs_db_set_phase_clock(fs_db *db, fs_phase_clock *c);
void fs_db_phase(fs_db *db, const char *name);

/*
 * A store that leaves garbage (a replaced record's staged blob,
 * staged_blob.h) sweeps it before it returns, unless the connection's
 * owner sweeps later itself (a job: after it has reported its result, so
 * the deleting is not part of the time to the result). Off by default.
 */
void fs_db_set_sweep_later(fs_db *db, int on);

/*
 * 1 when a writer of the site (a connection with the default busy
 * handler: the web workers) polled for SQLite's write lock within the last
 * within_ms: each poll notes its time in <database>-waits. A process that
 * writes many short transactions in a row (staged_blob.c) pauses between
 * them only then. 1 too when the file could not be opened (the safe side:
 * pause as before). The jobs' polite wait (job_priority.h) notes nothing.
 */
int fs_db_writer_waiting(fs_db *db, double within_ms);
int fs_db_sweep_later(const fs_db *db);

/*
 * Checkpoints (copying the WAL back into the database file): a connection
 * does one after a commit that leaves 1000 pages or more in the WAL, as
 * SQLite's auto-checkpoint would, unless told not to: the web workers
 * leave them to a process of their own (fishscale.fcgi's checkpointer), so
 * no request pays for copying another process's large write.
 * fs_db_checkpoint runs a passive one now (it never waits for a lock);
 * *wal_pages (may be NULL) receives the WAL's size in pages.
 */
void fs_db_checkpoint_on_commit(fs_db *db, int on);
int fs_db_checkpoint(fs_db *db, int *wal_pages);

/* Maps an SQLite result code to an fs_db_rc. */
int fs_db_rc_from_sqlite(int rc);
/* The message of this connection's last failure: SQLite's, or one noted
 * with fs_db_note_error since the last fs_db_stmt / fs_db_begin. */
const char *fs_db_errmsg(fs_db *db);
/* Notes msg (copied) as the connection's error message, for failures whose
 * own SQLite message does not say enough (a failed bind: which parameter);
 * cleared when the next statement is fetched or transaction begins. */
void fs_db_note_error(fs_db *db, const char *msg);

/*
 * Best-effort writes: a write that must not fail what the caller asked
 * for (a session's last-seen time, a login's time, pruning old login
 * failures, caching an automatic scale region) when it fails; the library
 * prints nothing, so such a failure is noted here for the caller to log.
 * fs_db_take_skipped copies the last one's message ("recording a login's
 * time: database is locked") into msg (n bytes), returns how many were
 * noted since the previous call, and forgets them.
 */
void fs_db_note_skipped(fs_db *db, const char *what, int sqlite_rc);
int fs_db_take_skipped(fs_db *db, char *msg, size_t n);

/* Schema version after migrations, and the number of migrations known. */
int fs_db_user_version(fs_db *db);
int fs_db_migration_count(void);
/* Applies migrations up to `target` (for tests of each step); 0 or -1. */
int fs_db_migrate_to(sqlite3 *h, int target, char *err, size_t errlen);

/* Runs PRAGMA integrity_check; 0 when "ok". */
int fs_db_integrity_check(fs_db *db);

#endif
