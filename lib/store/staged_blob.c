/* staged_blob.c - large values in short transactions (see staged_blob.h). */
#include "store/staged_blob.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "store/db_bind.h"

#define ERR(...) (err && errlen ? (void)snprintf(err, errlen, __VA_ARGS__) : (void)0)

/* A staged blob older than this is garbage even if a process of its
 * writer's pid still runs (the pid reused, or a writer stuck for good). */
#define STAGE_MAX_AGE_S 3600.0

static size_t chunk_bytes = 256 * 1024;
static void (*chunk_hook)(long long, int, void *);
static void *chunk_hook_arg;

size_t fs_blob_chunk_bytes(void)
{
	return chunk_bytes;
}

void fs_blob_set_chunk_bytes(size_t n)
{
	chunk_bytes = n > 0 ? n : 1;
}

int fs_blob_worth_staging(size_t bytes)
{
	return bytes >= chunk_bytes;
}

void fs_blob_on_chunk(void (*fn)(long long, int, void *), void *arg)
{
	chunk_hook = fn;
	chunk_hook_arg = arg;
}

/*
 * After each of its transactions a stager (or the sweep) pauses for as
 * long as it held the lock, 1 to 4 ms, when a writer of the site has
 * polled for the lock in the last 10 ms (fs_db_writer_waiting): a worker
 * waiting for the lock polls every 0.2-1 ms (4 ms after long waits, db.c),
 * so it finds the lock free in the pause instead of taken again at once,
 * and an edit waits for one chunk (two when it came just after the look),
 * not for every chunk back to back. With nobody waiting the chunks go
 * back to back: the pauses were 40-50 ms of a 100 MP extraction's store.
 */
static void share_lock(fs_db *db)
{
	if (!fs_db_writer_waiting(db, 10))
		return;
	double ms = fs_db_last_write_ms(db);
	if (!(ms >= 1))
		ms = 1;
	if (ms > 4)
		ms = 4;
	struct timespec ts = {0, (long)(ms * 1e6)};
	nanosleep(&ts, NULL);
}

/* One statement with one or two integer parameters in its own write
 * transaction. */
static int exec_tx(fs_db *db, const char *sql, long long a, long long b)
{
	int rc = fs_db_begin(db);
	if (rc)
		return rc;
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	if (!st) {
		fs_db_rollback(db);
		return FS_DB_ERROR;
	}
	fs_bind bd = fs_bind_start(db, st);
	fs_bind_int64(&bd, 1, a);
	if (sqlite3_bind_parameter_count(st) > 1)
		fs_bind_int64(&bd, 2, b);
	rc = fs_db_rc_from_sqlite(fs_bind_step(&bd));
	fs_db_done(st);
	if (rc) {
		fs_db_rollback(db);
		return rc;
	}
	rc = fs_db_commit(db);
	if (!rc)
		share_lock(db);
	return rc;
}

/* The next chunk of the parts' concatenation from byte offset off: up to
 * chunk_bytes, copied into buf only when it spans two parts. */
static const unsigned char *chunk_at(const unsigned char *const *parts, const size_t *lens, int nparts, size_t off,
				     size_t want, unsigned char *buf, size_t *got)
{
	int p = 0;
	size_t base = 0;
	while (p < nparts && off >= base + lens[p])
		base += lens[p++];
	if (p < nparts && off + want <= base + lens[p]) {
		*got = want;
		return parts[p] + (off - base);
	}
	size_t n = 0;
	for (; p < nparts && n < want; p++) {
		size_t from = off + n - base, take = lens[p] - from;
		if (take > want - n)
			take = want - n;
		memcpy(buf + n, parts[p] + from, take);
		n += take;
		base += lens[p];
	}
	*got = n;
	return buf;
}

int fs_blob_stage(fs_db *db, const unsigned char *const *parts, const size_t *lens, int nparts, long long *blob_id,
		  char *err, size_t errlen)
{
	*blob_id = 0;
	size_t total = 0;
	for (int i = 0; i < nparts; i++)
		total += lens[i];
	int rc = fs_db_begin(db);
	if (rc) {
		ERR("the database is busy");
		return rc;
	}
	sqlite3_stmt *st = fs_db_stmt(db, "INSERT INTO blobs (size, staged_pid, created_at) VALUES (?, ?, ?)");
	if (!st) {
		fs_db_rollback(db);
		return FS_DB_ERROR;
	}
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, (sqlite3_int64)total);
	fs_bind_int64(&b, 2, (sqlite3_int64)getpid());
	fs_bind_double(&b, 3, fs_wall_s());
	rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	long long id = sqlite3_last_insert_rowid(fs_db_handle(db));
	if (rc || (rc = fs_db_commit(db))) {
		if (rc != FS_DB_OK)
			fs_db_rollback(db);
		ERR("could not start storing a large value: %s", fs_db_errmsg(db));
		return rc;
	}
	unsigned char *buf = malloc(chunk_bytes);
	if (!buf) {
		fs_blob_drop(db, id);
		ERR("out of memory");
		return FS_DB_ERROR;
	}
	int seq = 0;
	for (size_t off = 0; !rc && off < total; off += chunk_bytes, seq++) {
		size_t want = total - off < chunk_bytes ? total - off : chunk_bytes, got = 0;
		const unsigned char *p = chunk_at(parts, lens, nparts, off, want, buf, &got);
		/* each chunk its own transaction: the lock is let go between
		 * them, so an edit waits for one chunk at most */
		if ((rc = fs_db_begin(db)))
			break;
		st = fs_db_stmt(db, "INSERT INTO blob_chunks (blob_id, seq, data) VALUES (?, ?, ?)");
		if (!st) {
			fs_db_rollback(db);
			rc = FS_DB_ERROR;
			break;
		}
		b = fs_bind_start(db, st);
		fs_bind_int64(&b, 1, id);
		fs_bind_int(&b, 2, seq);
		/* static: the bytes outlive the step (no copy of each chunk) */
		fs_bind_blob64(&b, 3, p, got, SQLITE_STATIC);
		rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
		fs_db_done(st);
		if (rc) {
			fs_db_rollback(db);
			break;
		}
		if ((rc = fs_db_commit(db)))
			break;
		share_lock(db);
		if (chunk_hook)
			chunk_hook(id, seq, chunk_hook_arg);
	}
	free(buf);
	if (rc) {
		ERR("could not store a large value: %s", rc == FS_DB_BUSY ? "the database is busy" : fs_db_errmsg(db));
		fs_blob_drop(db, id);
		return rc;
	}
	*blob_id = id;
	return FS_DB_OK;
}

int fs_blob_publish(fs_db *db, long long blob_id)
{
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE blobs SET staged_pid = NULL WHERE id = ? AND staged_pid IS NOT NULL");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, blob_id);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	if (!rc && sqlite3_changes(fs_db_handle(db)) != 1) {
		/* swept meanwhile, or never staged: nothing to refer to */
		fs_db_note_error(db, "the result's staged copy was deleted as abandoned (its writer took more than "
				     "an hour): nothing was changed; run it again");
		rc = FS_DB_ERROR;
	}
	return rc;
}

/*
 * A blob the sweep (or its writer) deletes is claimed first: one short
 * transaction marks its row (size -1, no writer) while it is still
 * garbage, and only then go its chunks, a transaction each, and the row
 * last. From the claim on a reader finds no blob (fs_blob_read:
 * FS_DB_NOTFOUND) and a writer cannot publish it (staged_pid is gone), so
 * nobody sees a blob with chunks missing; before, the chunks went first
 * and the row last, and a writer stuck past STAGE_MAX_AGE_S could publish
 * a blob half deleted. The row stays to the end so that its id is not
 * given to a new blob (INTEGER PRIMARY KEY reuses the largest) while its
 * old chunks are still there; a sweep interrupted after the claim is
 * taken up by the next one (a claimed row is garbage: refs 0, no writer).
 */
#define CLAIMED_SIZE (-1)

/* Claims blob id if it is still garbage as the caller judged it: nothing
 * refers to it and its writer is still `pid` (0: none, or already
 * claimed). *claimed 0: it is not (published meanwhile, or gone). */
static int claim_blob(fs_db *db, long long id, long long pid, int *claimed)
{
	*claimed = 0;
	int rc = exec_tx(db,
			 "UPDATE blobs SET size = -1, staged_pid = NULL WHERE id = ?1 AND refs <= 0 AND "
			 "coalesce(staged_pid, 0) = ?2",
			 id, pid);
	if (!rc)
		*claimed = sqlite3_changes(fs_db_handle(db)) == 1;
	return rc;
}

/* Claims the blob (see above), then deletes its chunks one per
 * transaction and its row. */
static int delete_blob(fs_db *db, long long id, long long pid, int *deleted)
{
	*deleted = 0;
	int claimed = 0;
	int rc = claim_blob(db, id, pid, &claimed);
	if (rc || !claimed)
		return rc;
	for (;;) {
		rc = exec_tx(db,
			     "DELETE FROM blob_chunks WHERE blob_id = ?1 AND seq IN "
			     "(SELECT seq FROM blob_chunks WHERE blob_id = ?1 ORDER BY seq LIMIT ?2)",
			     id, 1);
		if (rc)
			return rc;
		if (sqlite3_changes(fs_db_handle(db)) == 0)
			break;
	}
	rc = exec_tx(db, "DELETE FROM blobs WHERE id = ?1 AND size = ?2", id, CLAIMED_SIZE);
	/* a sweep of another process may have taken up the same claim and
	 * deleted the row first: counted once, by the one that deleted it */
	*deleted = !rc && sqlite3_changes(fs_db_handle(db)) == 1;
	return rc;
}

void fs_blob_drop(fs_db *db, long long blob_id)
{
	int deleted;
	/* still staged by this process, or nothing: the sweep that claimed
	 * it deletes it; failing that, the sweep deletes it once this process
	 * is gone */
	if (blob_id > 0)
		(void)delete_blob(db, blob_id, (long long)getpid(), &deleted);
}

/* Prepared per read, not cached: a read is a whole set's record or a
 * journal step, rare next to the megabytes it copies; and the journal's
 * readers hold only a statement, not the fs_db. The size and the chunks
 * are read in the caller's snapshot (see fs_blob_read_conn). */
static int read_blob(sqlite3 *h, long long blob_id, unsigned char **out, size_t *len)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(h, "SELECT size FROM blobs WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return FS_DB_ERROR;
	fs_bind bd = fs_bind_start(NULL, st);
	fs_bind_int64(&bd, 1, blob_id);
	int rc = fs_bind_step(&bd);
	long long size = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return fs_db_row_rc(rc);
	if (size == CLAIMED_SIZE)
		return FS_DB_NOTFOUND; /* the sweep deletes it: gone, not damaged */
	if (size < 0 || (unsigned long long)size > ((size_t)-1) / 2)
		return FS_DB_ERROR;
	unsigned char *b = malloc((size_t)size + 1);
	if (!b)
		return FS_DB_ERROR;
	if (sqlite3_prepare_v2(h, "SELECT seq, data FROM blob_chunks WHERE blob_id = ? ORDER BY seq", -1, &st, NULL) !=
	    SQLITE_OK) {
		free(b);
		return FS_DB_ERROR;
	}
	bd = fs_bind_start(NULL, st);
	fs_bind_int64(&bd, 1, blob_id);
	size_t n = 0;
	int want_seq = 0, ok = 1;
	while ((rc = fs_bind_step(&bd)) == SQLITE_ROW) {
		size_t m = (size_t)sqlite3_column_bytes(st, 1);
		const void *p = sqlite3_column_blob(st, 1);
		if (sqlite3_column_int(st, 0) != want_seq++ || m > (size_t)size - n) {
			ok = 0;
			break;
		}
		if (m)
			memcpy(b + n, p, m);
		n += m;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		free(b);
		return fs_db_rc_from_sqlite(rc);
	}
	if (!ok || n != (size_t)size) {
		free(b);
		return FS_DB_ERROR;
	}
	*out = b;
	*len = n;
	return FS_DB_OK;
}

static int statement_running(sqlite3 *h)
{
	for (sqlite3_stmt *st = sqlite3_next_stmt(h, NULL); st; st = sqlite3_next_stmt(h, st))
		if (sqlite3_stmt_busy(st))
			return 1;
	return 0;
}

int fs_blob_read_conn(sqlite3 *h, long long blob_id, unsigned char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	/* outside a transaction, and with no statement of the caller's
	 * running (which would hold its snapshot), the row and the chunks
	 * would be read in two snapshots, with a claim and chunk deletes
	 * committed between them: one read transaction for both */
	int own = sqlite3_get_autocommit(h) && !statement_running(h) &&
		  sqlite3_exec(h, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
	int rc = read_blob(h, blob_id, out, len);
	if (own)
		sqlite3_exec(h, "COMMIT", NULL, NULL, NULL);
	return rc;
}

int fs_blob_read(fs_db *db, long long blob_id, unsigned char **out, size_t *len)
{
	return fs_blob_read_conn(fs_db_handle(db), blob_id, out, len);
}

/* Whether a staged blob's writer is gone: no process of that pid (a pid
 * of another user's process still counts as alive), or staged too long
 * ago to be still in progress. */
static int writer_gone(long long pid, double created_at)
{
	if (fs_wall_s() - created_at > STAGE_MAX_AGE_S)
		return 1;
	if (pid <= 0)
		return 1;
	if (pid == (long long)getpid())
		return 0;
	return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

int fs_blob_sweep(fs_db *db, int *freed)
{
	if (freed)
		*freed = 0;
	/* the candidates first (a read), then each claimed and deleted in
	 * transactions of their own: no statement stays open across the
	 * deletes. Each with the writer it had when judged garbage: the claim
	 * holds only if that is still so. */
	struct {
		long long id, pid;
	} c[64];
	int n = 0;
	int rc = fs_db_begin_read(db);
	if (rc)
		return rc;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT id, staged_pid, created_at FROM blobs WHERE refs <= 0 ORDER BY id");
	if (!st) {
		fs_db_end_read(db);
		return FS_DB_ERROR;
	}
	while (n < (int)(sizeof c / sizeof c[0]) && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long pid = sqlite3_column_type(st, 1) != SQLITE_NULL ? sqlite3_column_int64(st, 1) : 0;
		if (!pid || writer_gone(pid, sqlite3_column_double(st, 2))) {
			c[n].id = sqlite3_column_int64(st, 0);
			c[n++].pid = pid;
		}
	}
	fs_db_done(st);
	fs_db_end_read(db);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return fs_db_rc_from_sqlite(rc);
	for (int i = 0; i < n; i++) {
		int deleted = 0;
		if ((rc = delete_blob(db, c[i].id, c[i].pid, &deleted)))
			return rc;
		if (freed && deleted)
			++*freed;
	}
	return FS_DB_OK;
}
