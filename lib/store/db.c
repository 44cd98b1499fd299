/*
 * db.c - SQLite connection setup, migrations and the statement cache.
 */
#include "store/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/phase_clock.h"
#include "store/db_bind.h"

extern const char *const fs_migrations[];
extern const int fs_migrations_count;

#define STMT_CACHE 160

struct cached {
	const char *key;
	sqlite3_stmt *st;
};

struct fs_db {
	sqlite3 *h;
	int busy_timeout_ms;
	/* the write lock held by fs_db_begin .. fs_db_commit/rollback (ms) */
	double tx_started, last_write_ms, longest_write_ms;
	struct cached cache[STMT_CACHE];
	int ncache;
	unsigned long long serial;
	double commit_released; /* when the last commit let the lock go (the WAL hook) */
	/* the same in this thread's CPU time: on a loaded machine the wall
	 * time holds everyone else's work too */
	double tx_cpu_started, last_write_cpu_ms, commit_released_cpu;
	/* and the time it was runnable but waited for a core (schedstat) */
	double tx_runq_started, last_write_runq_ms, commit_released_runq;
	int checkpoint_on_commit;
	/* fs_db_note_error's message; "" when SQLite's own is the one to give */
	char noted_err[192];
	/* best-effort writes that failed since fs_db_take_skipped, the last one's message */
	int skipped;
	char skipped_msg[192];
	/* the caller's clock the store names its steps on (fs_db_phase) */
	fs_phase_clock *phases;
	int sweep_later;
	/* <database>-waits: when a writer of the site last polled for the
	 * write lock (fs_db_writer_waiting); -1 when it could not be opened */
	int wait_fd;
};

static unsigned long long open_count;

static double mono_ms(void);

int fs_db_rc_from_sqlite(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW:
		return FS_DB_OK;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return FS_DB_BUSY;
	case SQLITE_CONSTRAINT:
		return FS_DB_CONSTRAINT;
	default:
		return FS_DB_ERROR;
	}
}

static int exec(sqlite3 *h, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;
	int rc = sqlite3_exec(h, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "%s", msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return fs_db_rc_from_sqlite(rc);
	}
	return FS_DB_OK;
}

static int read_version(sqlite3 *h)
{
	sqlite3_stmt *st;
	int v = -1;
	if (sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

int fs_db_migration_count(void)
{
	return fs_migrations_count;
}

int fs_db_migrate_to(sqlite3 *h, int target, char *err, size_t errlen)
{
	if (target > fs_migrations_count)
		target = fs_migrations_count;
	int rc = exec(h, "BEGIN IMMEDIATE", err, errlen);
	if (rc)
		return rc;
	int v = read_version(h);
	if (v < 0) {
		snprintf(err, errlen, "cannot read the schema version");
		rc = FS_DB_ERROR;
		goto fail;
	}
	if (v > fs_migrations_count) {
		snprintf(err, errlen, "database schema version %d is newer than this program (%d)", v,
			 fs_migrations_count);
		rc = FS_DB_ERROR;
		goto fail;
	}
	for (int i = v; i < target; i++) {
		char msg[512];
		rc = exec(h, fs_migrations[i], msg, sizeof msg);
		if (rc) {
			snprintf(err, errlen, "migration %d failed: %s", i + 1, msg);
			goto fail;
		}
		char pragma[64];
		snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", i + 1);
		rc = exec(h, pragma, err, errlen);
		if (rc)
			goto fail;
	}
	return exec(h, "COMMIT", err, errlen);
fail:
	sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/*
 * SQLite's own busy handler sleeps in steps that grow to 100 ms, which puts
 * a waiting writer far behind a lock that is usually held for a
 * millisecond: poll often instead, with a little jitter so that waiting
 * processes do not retry in lockstep, until the timeout.
 */
static int busy_wait(void *ctx, int n)
{
	fs_db *db = ctx;
	static unsigned seed;
	if (!seed)
		seed = (unsigned)getpid();
	seed = seed * 1103515245u + 12345u;
	long us = 200 + (long)(seed >> 16) % 800; /* 0.2 .. 1 ms */
	if (n > 50)
		us *= 4; /* long waits: a checkpoint or a big import holds the lock */
	/* n polls of at most 1 ms (or 4 ms later) each: stop once past the timeout */
	long spent_ms = n <= 50 ? n : 50 + (long)(n - 50) * 4;
	if (spent_ms >= db->busy_timeout_ms)
		return 0;
	if (db->wait_fd >= 0) {
		/* a stager between its chunks lets the lock go for as long as
		 * this is recent (staged_blob.c): a best effort, nothing else */
		double now = mono_ms();
		ssize_t w = pwrite(db->wait_fd, &now, sizeof now, 0);
		(void)w;
	}
	struct timespec ts = {0, us * 1000};
	nanosleep(&ts, NULL);
	return 1;
}

/*
 * After every commit, once the write lock is released: note when (so the
 * lock's held time does not count a checkpoint), and checkpoint as
 * SQLite's own auto-checkpoint would (1000 pages), unless this
 * connection leaves that to another process (fs_db_checkpoint_on_commit).
 */
static double mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int wal_hook(void *ctx, sqlite3 *h, const char *name, int pages)
{
	fs_db *db = ctx;
	(void)name;
	db->commit_released = mono_ms();
	db->commit_released_cpu = fs_thread_cpu_ms();
	db->commit_released_runq = fs_thread_runq_ms();
	if (db->checkpoint_on_commit && pages >= 1000)
		sqlite3_wal_checkpoint_v2(h, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	return SQLITE_OK;
}

void fs_db_set_phase_clock(fs_db *db, fs_phase_clock *c)
{
	db->phases = c;
}

void fs_db_phase(fs_db *db, const char *name)
{
	if (db && db->phases)
		fs_phase_begin(db->phases, name);
}

int fs_db_writer_waiting(fs_db *db, double within_ms)
{
	if (db->wait_fd < 0)
		return 1; /* not known: as if someone waited */
	double t = 0;
	if (pread(db->wait_fd, &t, sizeof t, 0) != (ssize_t)sizeof t)
		return 0; /* nobody has ever waited */
	return mono_ms() - t < within_ms;
}

void fs_db_set_sweep_later(fs_db *db, int on)
{
	db->sweep_later = on;
}

int fs_db_sweep_later(const fs_db *db)
{
	return db->sweep_later;
}

void fs_db_checkpoint_on_commit(fs_db *db, int on)
{
	db->checkpoint_on_commit = on;
}

int fs_db_checkpoint(fs_db *db, int *wal_pages)
{
	int log = 0, done = 0;
	int rc = sqlite3_wal_checkpoint_v2(db->h, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &done);
	if (wal_pages)
		*wal_pages = log > 0 ? log : 0;
	return fs_db_rc_from_sqlite(rc);
}

fs_db *fs_db_open(const char *path, int busy_timeout_ms, char *err, size_t errlen)
{
	fs_db *db = calloc(1, sizeof *db);
	if (!db) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	db->wait_fd = -1;
	int rc = sqlite3_open_v2(path, &db->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
				 NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "cannot open %s: %s", path, db->h ? sqlite3_errmsg(db->h) : sqlite3_errstr(rc));
		goto fail;
	}
	sqlite3_extended_result_codes(db->h, 1);
	db->serial = ++open_count;
	char waits[4200];
	snprintf(waits, sizeof waits, "%s-waits", path);
	db->wait_fd = open(waits, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
	db->busy_timeout_ms = busy_timeout_ms > 0 ? busy_timeout_ms : 5000;
	sqlite3_busy_handler(db->h, busy_wait, db);
	if (exec(db->h, "PRAGMA foreign_keys = ON", err, errlen))
		goto fail;
	/* WAL is persistent in the file; setting it again is cheap and makes a
	 * fresh database right. synchronous=NORMAL is durable enough in WAL mode
	 * (a crash loses nothing committed except on power loss). */
	if (exec(db->h, "PRAGMA journal_mode = WAL", err, errlen))
		goto fail;
	if (exec(db->h, "PRAGMA synchronous = NORMAL", err, errlen))
		goto fail;
	if (fs_db_migrate_to(db->h, fs_migrations_count, err, errlen))
		goto fail;
	db->checkpoint_on_commit = 1;
	sqlite3_wal_hook(db->h, wal_hook, db); /* replaces SQLite's auto-checkpoint */
	return db;
fail:
	fs_db_close(db);
	return NULL;
}

void fs_db_close(fs_db *db)
{
	if (!db)
		return;
	for (int i = 0; i < db->ncache; i++)
		sqlite3_finalize(db->cache[i].st);
	sqlite3_close(db->h);
	if (db->wait_fd >= 0)
		close(db->wait_fd);
	free(db);
}

unsigned long long fs_db_open_serial(const fs_db *db)
{
	return db->serial;
}

sqlite3 *fs_db_handle(fs_db *db)
{
	return db->h;
}

sqlite3_stmt *fs_db_stmt(fs_db *db, const char *sql)
{
	db->noted_err[0] = 0;
	for (int i = 0; i < db->ncache; i++)
		if (db->cache[i].key == sql)
			return db->cache[i].st;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v3(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK)
		return NULL;
	if (db->ncache < STMT_CACHE) {
		db->cache[db->ncache].key = sql;
		db->cache[db->ncache].st = st;
		db->ncache++;
	} else {
		/* The cache is sized for every static statement of the program;
		 * running out is a programming error, so fail loudly. */
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

void fs_db_done(sqlite3_stmt *st)
{
	if (!st)
		return;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

void fs_db_col_text(sqlite3_stmt *st, int col, char *dst, size_t n)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	snprintf(dst, n, "%s", t ? (const char *)t : "");
}

int fs_db_exec_id(fs_db *db, const char *sql, long long id)
{
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, id);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	return rc;
}

int fs_db_row_rc(int step_rc)
{
	return step_rc == SQLITE_ROW ? FS_DB_OK : step_rc == SQLITE_DONE ? FS_DB_NOTFOUND : fs_db_rc_from_sqlite(step_rc);
}

int fs_db_row_by_id(fs_db *db, const char *sql, long long id, fs_db_row_reader read, void *out)
{
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, id);
	int rc = fs_bind_step(&b);
	if (rc == SQLITE_ROW)
		read(st, out);
	fs_db_done(st);
	return fs_db_row_rc(rc);
}

static void read_int64(sqlite3_stmt *st, void *out)
{
	*(long long *)out = sqlite3_column_int64(st, 0);
}

int fs_db_int_by_id(fs_db *db, const char *sql, long long id, long long *out)
{
	*out = 0;
	return fs_db_row_by_id(db, sql, id, read_int64, out);
}

int fs_db_finish_row(fs_db *db, const char *sql, const char *state, const char *text2, const char *text3, long long id,
		     int *changed)
{
	if (changed)
		*changed = 0;
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	if (!st)
		return FS_DB_ERROR;
	/* an unbound text stays NULL: the row's column is cleared */
	fs_bind b = fs_bind_start(db, st);
	fs_bind_text(&b, 1, state, -1, SQLITE_TRANSIENT);
	if (text2)
		fs_bind_text(&b, 2, text2, -1, SQLITE_TRANSIENT);
	if (text3)
		fs_bind_text(&b, 3, text3, -1, SQLITE_TRANSIENT);
	fs_bind_double(&b, 4, fs_wall_s());
	fs_bind_int64(&b, 5, id);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	if (!rc && changed)
		*changed = sqlite3_changes(db->h) > 0;
	return rc;
}


/* The lock is released: how long it was held, kept for fs_db_last_write_ms. */
static void lock_released(fs_db *db)
{
	if (db->tx_started <= 0)
		return;
	/* a commit released the lock before its checkpoint (if any) ran */
	int by_hook = db->commit_released > db->tx_started;
	double end = by_hook ? db->commit_released : mono_ms();
	db->last_write_ms = end - db->tx_started;
	db->last_write_cpu_ms = (by_hook ? db->commit_released_cpu : fs_thread_cpu_ms()) - db->tx_cpu_started;
	double rq = by_hook ? db->commit_released_runq : fs_thread_runq_ms();
	db->last_write_runq_ms = rq >= 0 && db->tx_runq_started >= 0 ? rq - db->tx_runq_started : -1;
	if (db->last_write_ms > db->longest_write_ms)
		db->longest_write_ms = db->last_write_ms;
	db->tx_started = 0;
}

int fs_db_begin(fs_db *db)
{
	db->noted_err[0] = 0;
	int rc = fs_db_rc_from_sqlite(sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL));
	if (rc == FS_DB_OK) {
		db->tx_started = mono_ms();
		db->tx_cpu_started = fs_thread_cpu_ms();
		db->tx_runq_started = fs_thread_runq_ms();
	}
	return rc;
}

int fs_db_commit(fs_db *db)
{
	int rc = sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	lock_released(db);
	return fs_db_rc_from_sqlite(rc);
}

void fs_db_rollback(fs_db *db)
{
	if (!sqlite3_get_autocommit(db->h))
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	lock_released(db);
}

int fs_db_begin_read(fs_db *db)
{
	/* deferred: the first read takes the snapshot, no lock is taken */
	return fs_db_rc_from_sqlite(sqlite3_exec(db->h, "BEGIN", NULL, NULL, NULL));
}

void fs_db_end_read(fs_db *db)
{
	if (!sqlite3_get_autocommit(db->h))
		sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL);
}

double fs_db_last_write_runq_ms(const fs_db *db)
{
	return db->last_write_runq_ms;
}

double fs_db_last_write_ms(const fs_db *db)
{
	return db->last_write_ms;
}

double fs_db_last_write_cpu_ms(const fs_db *db)
{
	return db->last_write_cpu_ms;
}

double fs_db_take_longest_write_ms(fs_db *db)
{
	double v = db->longest_write_ms;
	db->longest_write_ms = 0;
	return v;
}

const char *fs_db_errmsg(fs_db *db)
{
	if (!db)
		return "no database";
	return db->noted_err[0] ? db->noted_err : sqlite3_errmsg(db->h);
}

void fs_db_note_skipped(fs_db *db, const char *what, int sqlite_rc)
{
	db->skipped++;
	/* SQLite's message says more than the code when the step itself failed */
	const char *why = db->noted_err[0]		       ? db->noted_err
			  : sqlite3_errcode(db->h) != SQLITE_OK ? sqlite3_errmsg(db->h)
								: sqlite3_errstr(sqlite_rc);
	snprintf(db->skipped_msg, sizeof db->skipped_msg, "%.60s: %.120s", what, why);
}

int fs_db_take_skipped(fs_db *db, char *msg, size_t n)
{
	int k = db->skipped;
	if (n)
		snprintf(msg, n, "%s", k ? db->skipped_msg : "");
	db->skipped = 0;
	db->skipped_msg[0] = 0;
	return k;
}

void fs_db_note_error(fs_db *db, const char *msg)
{
	snprintf(db->noted_err, sizeof db->noted_err, "%s", msg);
}

int fs_db_user_version(fs_db *db)
{
	return read_version(db->h);
}

int fs_db_integrity_check(fs_db *db)
{
	sqlite3_stmt *st;
	int ok = -1;
	if (sqlite3_prepare_v2(db->h, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);
		ok = (t && !strcmp((const char *)t, "ok")) ? 0 : -1;
	}
	sqlite3_finalize(st);
	return ok;
}
