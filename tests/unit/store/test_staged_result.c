/*
 * Unit tests for a large result written in short transactions (issue 15,
 * staged_blob.h): the packed record and the journal step of a
 * replacement are written a chunk per transaction while nothing refers
 * to them, and one tiny transaction makes them the set's. Checked here
 * with chunks of 16 KiB, so a few thousand tubercles take a dozen or more:
 * the result reads back exactly and undoes and redoes; a reader on another
 * connection sees the old set at every chunk, never half the new one; a
 * writer killed between chunks leaves the set as it was and the sweep
 * leaves no row behind; a set that moves on while the result is staged
 * gets the result on top (or a conflict), with nothing left over; a
 * duplicate shares the record and the last reference gone frees it.
 * An edit of such a set writes only its change (the delta over the
 * record), which every connection and a duplicate read the same; past the
 * delta's limit the whole record is written again. The sweep itself: a staged blob whose writer still runs (another live
 * process, or this one) is kept, and freed once that process is gone or
 * the blob is an hour old; a published blob is kept while referred to;
 * more garbage than one sweep takes is freed by the next ones; a reader
 * or a writer between two of the sweep's transactions finds the blob
 * whole or gone, never with chunks missing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/db.h"
#include "store/set_packed.h"
#include "store/sets_store.h"
#include "store/staged_blob.h"
#include "test_db.h"

#define CHUNK 16384
/* 3000 tubercles: a record of 264 KB (17 chunks), and a journal step of
 * their JSON large enough to be compressed and staged too */
#define N_BIG 3000

static char path[128];
static long long ann, image_id;

static int setup(void **state)
{
	fs_db *db = test_db_open_with_image("staged", path, sizeof path, &ann, &image_id);
	if (!db)
		return -1;
	fs_blob_set_chunk_bytes(CHUNK);
	fs_packed_set_min(1000);
	*state = db;
	return 0;
}

static int teardown(void **state)
{
	fs_blob_on_chunk(NULL, NULL);
	fs_blob_set_chunk_bytes(256 * 1024);
	fs_packed_set_min(5000);
	fs_db_close(*state);
	test_db_remove(path);
	return 0;
}

/* n tubercles on a grid of pitch 10 px shifted by (dx, 0), each joined to
 * the next; radius varies with the index so that two results differ. */
static void lattice(int n, double dx, fs_tubercle_list *t, fs_edge_list *e)
{
	memset(t, 0, sizeof *t);
	memset(e, 0, sizeof *e);
	for (int i = 0; i < n; i++) {
		fs_tubercle x;
		fs_tubercle_init(&x);
		x.id = i + 1;
		x.centroid_x = 5 + dx + 10 * (i % 60);
		x.centroid_y = 5 + 10 * (i / 60);
		x.radius_px = 2 + (i % 7) * 0.25;
		x.circularity = 0.9;
		x.source = FS_SOURCE_EXTRACTED;
		assert_int_equal(fs_tubercle_list_append(t, &x), 0);
		if (i) {
			fs_edge a = {i, i + 1};
			assert_int_equal(fs_edge_list_append(e, &a), 0);
		}
	}
}

static int store(fs_db *db, long long sid, long long expect, int n, double dx, long long *rev)
{
	fs_tubercle_list t;
	fs_edge_list e;
	fs_params p;
	char err[256];
	long long cur = 0;
	lattice(n, dx, &t, &e);
	fs_params_default(&p);
	int rc = fs_set_replace_all(db, sid, expect, ann, &t, &e, &p, "extraction", 0, rev, &cur, err, sizeof err);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	return rc;
}

/* The set holds exactly lattice(n, dx) (positions and radii in order;
 * the ids are the set's own), with n - 1 connections. */
static void assert_holds(fs_db *db, long long sid, int n, double dx)
{
	fs_tubercle_list t = {0}, want;
	fs_edge_list e = {0}, we;
	lattice(n, dx, &want, &we);
	assert_int_equal(fs_set_load(db, sid, &t, &e), 0);
	assert_int_equal(t.n, (size_t)n);
	assert_int_equal(e.n, (size_t)(n > 0 ? n - 1 : 0));
	for (int i = 0; i < n; i++) {
		assert_true(t.items[i].centroid_x == want.items[i].centroid_x);
		assert_true(t.items[i].centroid_y == want.items[i].centroid_y);
		assert_true(t.items[i].radius_px == want.items[i].radius_px);
	}
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	fs_tubercle_list_free(&want);
	fs_edge_list_free(&we);
}

static long long count(fs_db *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_prepare_v2(fs_db_handle(db), sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	long long v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* After the sweep: every blob whole, published and referred to as often as
 * it counts; no chunk without its blob. */
static void assert_no_orphans(fs_db *db)
{
	int freed = 0;
	assert_int_equal(fs_blob_sweep(db, &freed), 0);
	assert_int_equal(count(db, "SELECT count(*) FROM blob_chunks c WHERE NOT EXISTS "
				   "(SELECT 1 FROM blobs b WHERE b.id = c.blob_id)"),
			 0);
	assert_int_equal(count(db, "SELECT count(*) FROM blobs WHERE staged_pid IS NOT NULL OR refs <= 0"), 0);
	assert_int_equal(count(db, "SELECT count(*) FROM blobs b WHERE refs != "
				   "(SELECT count(*) FROM set_packed WHERE blob_id = b.id) + "
				   "(SELECT count(*) FROM set_ops WHERE diff_blob = b.id)"),
			 0);
	assert_int_equal(count(db, "SELECT count(*) FROM blobs b WHERE size != "
				   "(SELECT coalesce(sum(length(data)), 0) FROM blob_chunks WHERE blob_id = b.id)"),
			 0);
}

static long long count_id(fs_db *db, const char *sql, long long id)
{
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_prepare_v2(fs_db_handle(db), sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_bind_int64(st, 1, id), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	long long v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static long long new_set(fs_db *db, const char *name)
{
	char err[256];
	long long sid = 0;
	assert_int_equal(fs_set_create(db, image_id, name, ann, &sid, err, sizeof err), 0);
	return sid;
}

static void test_staged_result_reads_back_and_undoes(void **state)
{
	fs_db *db = *state;
	long long sid = new_set(db, "big"), rev = 0, cur = 0;
	char err[256];
	assert_int_equal(store(db, sid, -1, N_BIG, 0, &rev), 0);
	assert_holds(db, sid, N_BIG, 0);
	/* written by reference, in many chunks */
	assert_int_equal(count(db, "SELECT count(*) FROM set_packed WHERE blob_id IS NOT NULL"), 1);
	assert_true(count(db, "SELECT count(*) FROM blob_chunks") > 10);
	/* a second result over it: its journal step (3000 removed, 2000
	 * added) is staged as well */
	assert_int_equal(store(db, sid, rev, 2000, 3, &rev), 0);
	assert_holds(db, sid, 2000, 3);
	assert_true(count(db, "SELECT count(*) FROM set_ops WHERE diff_blob IS NOT NULL") >= 1);
	assert_no_orphans(db);
	assert_int_equal(fs_set_undo(db, sid, rev, ann, &rev, &cur, err, sizeof err), 0);
	assert_holds(db, sid, N_BIG, 0);
	assert_int_equal(fs_set_redo(db, sid, rev, ann, &rev, &cur, err, sizeof err), 0);
	assert_holds(db, sid, 2000, 3);
	assert_no_orphans(db);
}

/* At each chunk a reader on its own connection, as another worker's,
 * sees the set exactly as it was. */
struct reader {
	fs_db *db;
	long long sid, rev;
	int n, calls;
	double dx;
};

static void read_between_chunks(long long blob_id, int seq, void *arg)
{
	(void)blob_id;
	(void)seq;
	struct reader *r = arg;
	long long rev = 0;
	assert_int_equal(fs_set_revision(r->db, r->sid, &rev), 0);
	assert_int_equal(rev, r->rev);
	assert_holds(r->db, r->sid, r->n, r->dx);
	r->calls++;
}

static void test_readers_never_see_half_a_result(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long sid = new_set(db, "watched"), rev = 0;
	assert_int_equal(store(db, sid, -1, N_BIG, 0, &rev), 0);
	struct reader r = {fs_db_open(path, 5000, err, sizeof err), sid, rev, N_BIG, 0, 0};
	assert_non_null(r.db);
	fs_blob_on_chunk(read_between_chunks, &r);
	assert_int_equal(store(db, sid, rev, 2500, 7, &rev), 0);
	fs_blob_on_chunk(NULL, NULL);
	assert_true(r.calls > 10);
	/* and once it is stored, the other connection sees all of it */
	assert_holds(r.db, sid, 2500, 7);
	fs_db_close(r.db);
	assert_no_orphans(db);
}

/* Kills the process at chunk `at` of the blob-th blob it stages (0: the
 * record, 1: the journal step). */
struct killer {
	long long first;
	int blob, at;
};

static void die_at_chunk(long long blob_id, int seq, void *arg)
{
	struct killer *k = arg;
	if (!k->first)
		k->first = blob_id;
	if (seq == k->at && (blob_id != k->first) == (k->blob == 1))
		raise(SIGKILL);
}

/* The writer (a child process with its own connection, as a job is)
 * killed between two chunks: the set unchanged, and the sweep leaves no
 * row of the half-written result. */
static void killed_in(fs_db *db, int blob)
{
	char err[256];
	long long sid = new_set(db, blob ? "killed in the journal" : "killed in the record"), rev = 0, after = 0;
	assert_int_equal(store(db, sid, -1, N_BIG, 0, &rev), 0);
	long long ops = count(db, "SELECT count(*) FROM set_ops");
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fs_db *c = fs_db_open(path, 5000, err, sizeof err);
		struct killer k = {0, blob, 3};
		fs_blob_on_chunk(die_at_chunk, &k);
		long long r2 = 0;
		if (c)
			(void)store(c, sid, rev, 2000, 5, &r2);
		_exit(0); /* not killed: the test fails below */
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_int_equal(fs_set_revision(db, sid, &after), 0);
	assert_int_equal(after, rev);
	assert_holds(db, sid, N_BIG, 0);
	assert_int_equal(count(db, "SELECT count(*) FROM set_ops"), ops);
	/* the dead writer's chunks stay until the sweep */
	assert_true(count(db, "SELECT count(*) FROM blobs WHERE staged_pid IS NOT NULL") >= 1);
	assert_no_orphans(db);
	assert_holds(db, sid, N_BIG, 0);
}

static void test_killed_between_chunks_leaves_the_set_unchanged(void **state)
{
	killed_in(*state, 0);
	killed_in(*state, 1);
}

/* Moves the set's first tubercle through another connection, once, at
 * the given chunk of the result being staged. */
struct mover {
	fs_db *db;
	long long sid;
	int at, done;
};

static void move_at_chunk(long long blob_id, int seq, void *arg)
{
	(void)blob_id;
	struct mover *m = arg;
	if (m->done || seq != m->at)
		return;
	m->done = 1;
	fs_tubercle_list t = {0};
	assert_int_equal(fs_set_load(m->db, m->sid, &t, NULL), 0);
	fs_tubercle x = t.items[0];
	x.centroid_x += 1;
	long long rev, cur;
	char err[256];
	assert_int_equal(fs_set_update_tubercle(m->db, m->sid, -1, ann, x.id, &x, "move_tubercle", 0, &rev, &cur, err,
						sizeof err),
			 0);
	fs_tubercle_list_free(&t);
}

static void test_overtaken_while_staging(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long sid = new_set(db, "overtaken"), rev = 0, rev2 = 0;
	assert_int_equal(store(db, sid, -1, N_BIG, 0, &rev), 0);
	struct mover m = {fs_db_open(path, 5000, err, sizeof err), sid, 2, 0};
	assert_non_null(m.db);
	/* with the revision expected: a conflict, the edit stays, nothing of
	 * the staged result is left */
	fs_blob_on_chunk(move_at_chunk, &m);
	assert_int_equal(store(db, sid, rev, 2000, 5, &rev2), FS_DB_STALE);
	assert_true(m.done);
	fs_tubercle_list t = {0};
	assert_int_equal(fs_set_load(db, sid, &t, NULL), 0);
	assert_int_equal(t.n, (size_t)N_BIG);
	assert_true(t.items[0].centroid_x == 6);
	fs_tubercle_list_free(&t);
	assert_no_orphans(db);
	/* "on top of whatever is there" (a job's result): staged again and
	 * stored over the edit */
	m.done = 0;
	assert_int_equal(store(db, sid, -1, 2000, 5, &rev2), 0);
	assert_true(m.done);
	fs_blob_on_chunk(NULL, NULL);
	assert_holds(db, sid, 2000, 5);
	fs_db_close(m.db);
	assert_no_orphans(db);
}

static void test_duplicate_shares_and_the_last_reference_frees(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long keep = new_set(db, "keep"), sid = new_set(db, "original"), dup = 0, rev = 0, cur = 0;
	assert_int_equal(store(db, sid, -1, N_BIG, 0, &rev), 0);
	long long blobs = count(db, "SELECT count(*) FROM blobs");
	assert_int_equal(fs_set_duplicate(db, sid, "copy", ann, &dup, err, sizeof err), 0);
	/* shared, not copied */
	assert_int_equal(count(db, "SELECT count(*) FROM blobs"), blobs);
	assert_holds(db, dup, N_BIG, 0);
	assert_int_equal(fs_set_revision(db, sid, &rev), 0);
	assert_int_equal(fs_set_delete(db, sid, rev, &cur, err, sizeof err), 0);
	assert_no_orphans(db);
	assert_holds(db, dup, N_BIG, 0);
	assert_int_equal(fs_set_revision(db, dup, &rev), 0);
	assert_int_equal(fs_set_delete(db, dup, rev, &cur, err, sizeof err), 0);
	assert_no_orphans(db);
	(void)keep;
	/* nothing refers to the record any more: it is gone */
	assert_int_equal(count(db, "SELECT count(*) FROM blobs b WHERE NOT EXISTS "
				   "(SELECT 1 FROM set_ops WHERE diff_blob = b.id)"),
			 0);
}

/* Moves tubercle `id` of the set by dx through fs_set_update_tubercle. */
static void move(fs_db *db, long long sid, int id, double dx, long long *rev)
{
	fs_tubercle_list t = {0};
	assert_int_equal(fs_set_load(db, sid, &t, NULL), 0);
	fs_tubercle x = t.items[id - 1];
	assert_int_equal(x.id, id);
	x.centroid_x += dx;
	long long cur = 0;
	char err[256];
	assert_int_equal(fs_set_update_tubercle(db, sid, *rev, ann, id, &x, "move_tubercle", 0, rev, &cur, err,
						sizeof err),
			 0);
	fs_tubercle_list_free(&t);
}

/* The set holds lattice(N_BIG, 0) with tubercle `id` moved by dx, read on
 * a connection of its own (nothing cached: the record and its delta
 * decoded afresh). */
static void assert_moved_on_fresh_connection(long long sid, int id, double dx)
{
	char err[256];
	fs_db *c = fs_db_open(path, 5000, err, sizeof err);
	assert_non_null(c);
	fs_tubercle_list t = {0}, want;
	fs_edge_list e = {0}, we;
	lattice(N_BIG, 0, &want, &we);
	want.items[id - 1].centroid_x += dx;
	assert_int_equal(fs_set_load(c, sid, &t, &e), 0);
	assert_int_equal(t.n, want.n);
	assert_int_equal(e.n, we.n);
	for (size_t i = 0; i < t.n; i++)
		assert_true(t.items[i].centroid_x == want.items[i].centroid_x &&
			    t.items[i].centroid_y == want.items[i].centroid_y);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	fs_tubercle_list_free(&want);
	fs_edge_list_free(&we);
	fs_db_close(c);
}

static long long delta_bytes(fs_db *db, long long sid)
{
	return count_id(db, "SELECT coalesce(length(delta), -1) FROM set_packed WHERE set_id = ?", sid);
}

/* One move on a packed set of 3000 tubercles writes its change (one
 * tubercle: a delta of about a hundred bytes), not the 264 KB record:
 * the record stays the staged blob it was. Undone, the delta is empty;
 * a duplicate and other connections read the same set. When the delta
 * would outgrow its limit the whole record is written again (and the old
 * one is garbage for the sweep). */
static void test_edit_of_a_packed_set_writes_only_the_change(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long sid = new_set(db, "edited"), rev = 0, cur = 0, dup = 0;
	assert_int_equal(store(db, sid, -1, N_BIG, 0, &rev), 0);
	long long record = count_id(db, "SELECT blob_id FROM set_packed WHERE set_id = ?", sid);
	assert_true(record > 0);
	assert_int_equal(delta_bytes(db, sid), -1);
	move(db, sid, 17, 2.5, &rev);
	assert_int_equal(count_id(db, "SELECT blob_id FROM set_packed WHERE set_id = ?", sid), record);
	long long one = delta_bytes(db, sid);
	assert_true(one > 0 && one < 200);
	assert_moved_on_fresh_connection(sid, 17, 2.5);
	/* the same tubercle again: still one tubercle's change */
	move(db, sid, 17, 0.5, &rev);
	assert_int_equal(delta_bytes(db, sid), one);
	assert_moved_on_fresh_connection(sid, 17, 3.0);
	assert_int_equal(fs_set_duplicate(db, sid, "edited copy", ann, &dup, err, sizeof err), 0);
	assert_moved_on_fresh_connection(dup, 17, 3.0);
	/* both moves undone: the set is its record again */
	assert_int_equal(fs_set_undo(db, sid, rev, ann, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_undo(db, sid, rev, ann, &rev, &cur, err, sizeof err), 0);
	assert_true(delta_bytes(db, sid) < one);
	assert_holds(db, sid, N_BIG, 0);
	assert_moved_on_fresh_connection(sid, 17, 0);
	/* past the limit (two tubercles' change here): the whole record */
	size_t was = fs_packed_delta_max();
	fs_packed_set_delta_max(200);
	assert_int_equal(fs_set_redo(db, sid, rev, ann, &rev, &cur, err, sizeof err), 0);
	move(db, sid, 30, 1, &rev);
	assert_true(delta_bytes(db, sid) > one);
	move(db, sid, 31, 1, &rev);
	assert_int_equal(delta_bytes(db, sid), -1);
	assert_int_equal(count_id(db, "SELECT count(*) FROM set_packed WHERE set_id = ? AND blob_id IS NULL", sid), 1);
	/* and the next edit's delta is over that record */
	move(db, sid, 32, 1, &rev);
	fs_packed_set_delta_max(was);
	assert_int_equal(delta_bytes(db, sid), one);
	fs_tubercle_list t = {0};
	assert_int_equal(fs_set_load(db, sid, &t, NULL), 0);
	assert_true(t.items[16].centroid_x == 5 + 10 * 16 + 2.5 && t.items[29].centroid_x == 5 + 10 * 29 + 1 &&
		    t.items[30].centroid_x == 5 + 10 * 30 + 1 && t.items[31].centroid_x == 5 + 10 * 31 + 1 &&
		    t.items[32].centroid_x == 5 + 10 * 32);
	fs_tubercle_list_free(&t);
	/* the duplicate still holds the old record and its delta */
	assert_moved_on_fresh_connection(dup, 17, 3.0);
	assert_no_orphans(db);
}

/* A blob of `bytes` bytes (a pattern) staged by this connection's process. */
static long long stage_bytes(fs_db *db, size_t bytes)
{
	static unsigned char buf[3 * CHUNK];
	assert_true(bytes <= sizeof buf);
	for (size_t i = 0; i < bytes; i++)
		buf[i] = (unsigned char)(i * 7);
	const unsigned char *parts[1] = {buf};
	size_t lens[1] = {bytes};
	long long id = 0;
	char err[256];
	assert_int_equal(fs_blob_stage(db, parts, lens, 1, &id, err, sizeof err), 0);
	assert_true(id > 0);
	return id;
}

/* The blob and all its chunks are there, or none of either. */
static int blob_present(fs_db *db, long long id)
{
	long long rows = count_id(db, "SELECT count(*) FROM blobs WHERE id = ?", id);
	long long chunks = count_id(db, "SELECT count(*) FROM blob_chunks WHERE blob_id = ?", id);
	assert_true(rows == 1 || chunks == 0);
	if (rows)
		assert_int_equal(chunks, (count_id(db, "SELECT size FROM blobs WHERE id = ?", id) + CHUNK - 1) / CHUNK);
	return rows == 1;
}

static int sweep(fs_db *db)
{
	int freed = -1;
	assert_int_equal(fs_blob_sweep(db, &freed), 0);
	return freed;
}

/* Staged an hour and a second ago: past the age a writer may take. */
static void age_blob(fs_db *db, long long id)
{
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_prepare_v2(fs_db_handle(db),
					    "UPDATE blobs SET created_at = created_at - 3601 WHERE id = ?", -1, &st,
					    NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_bind_int64(st, 1, id), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
}

/* A writer in another process stages a blob and waits, alive, until told
 * to go: meanwhile the sweep must not touch its blob; once the process is
 * gone, the sweep frees it. This process's own staged blob is kept until
 * it is an hour old. */
static void test_sweep_spares_live_writers_until_they_are_gone(void **state)
{
	fs_db *db = *state;
	int to_parent[2], to_child[2];
	assert_int_equal(pipe(to_parent), 0);
	assert_int_equal(pipe(to_child), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char err[256], go;
		long long id = 0;
		fs_db *c = fs_db_open(path, 5000, err, sizeof err);
		if (c)
			id = stage_bytes(c, 2 * CHUNK + 5);
		if (write(to_parent[1], &id, sizeof id) != (ssize_t)sizeof id || read(to_child[0], &go, 1) < 0)
			_exit(1);
		_exit(0); /* gone without dropping or publishing its blob */
	}
	close(to_parent[1]);
	close(to_child[0]);
	long long theirs = 0;
	assert_int_equal(read(to_parent[0], &theirs, sizeof theirs), (ssize_t)sizeof theirs);
	assert_true(theirs > 0);
	long long ours = stage_bytes(db, CHUNK / 2);
	assert_int_equal(sweep(db), 0);
	assert_true(blob_present(db, theirs));
	assert_true(blob_present(db, ours));
	/* the writer ends: its blob is garbage, ours still is not */
	assert_int_equal(write(to_child[1], "g", 1), 1);
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(to_parent[0]);
	close(to_child[1]);
	assert_int_equal(sweep(db), 1);
	assert_false(blob_present(db, theirs));
	assert_true(blob_present(db, ours));
	/* an hour old: a writer stuck for good (or its pid reused) */
	age_blob(db, ours);
	assert_int_equal(sweep(db), 1);
	assert_false(blob_present(db, ours));
	/* and what the sweep took cannot be published any more */
	assert_int_equal(fs_db_begin(db), 0);
	assert_int_equal(fs_blob_publish(db, ours), FS_DB_ERROR);
	fs_db_rollback(db);
	assert_no_orphans(db);
}

/* Published blobs live while referred to, however old; more garbage than
 * one sweep takes at a time goes in the next sweeps, each blob once. */
static void test_sweep_frees_all_garbage_and_nothing_referred_to(void **state)
{
	fs_db *db = *state;
	long long sid = new_set(db, "kept"), rev = 0;
	assert_int_equal(store(db, sid, -1, N_BIG, 0, &rev), 0);
	long long record = count(db, "SELECT blob_id FROM set_packed");
	assert_true(record > 0);
	age_blob(db, record);
	enum { GARBAGE = 70 };
	for (int i = 0; i < GARBAGE; i++) {
		long long id = stage_bytes(db, 16);
		age_blob(db, id);
	}
	int total = 0, sweeps = 0, freed;
	while ((freed = sweep(db)) > 0) {
		total += freed;
		sweeps++;
	}
	assert_int_equal(total, GARBAGE);
	assert_true(sweeps >= 2);
	assert_true(blob_present(db, record));
	assert_holds(db, sid, N_BIG, 0);
	assert_no_orphans(db);
}

/*
 * The sweep against another connection at every point between its
 * transactions: a statement trace on the sweep's connection plays the
 * other process as the sweep begins each write after its first one. The
 * blob is a writer's staged record, an hour old (a writer stuck that
 * long): a reader there finds the blob whole or finds none, never a blob
 * with chunks missing; the writer, back at the first point, cannot
 * publish it any more, so no set refers to a blob the sweep goes on
 * deleting (before h24h the sweep deleted the chunks first and the blob
 * row last: the reader found it damaged and the writer's set lost its
 * record).
 */
struct interleave {
	fs_db *other; /* the other process's connection */
	long long sid, blob;
	const fs_packed_rec *rec;
	const unsigned char *bytes; /* the blob as staged */
	size_t len;
	int began;   /* the sweep's write transactions begun */
	int points;  /* points between them visited */
	int whole;   /* reads there that found the whole blob */
	int gone;    /* reads that found none */
	int damaged; /* reads that found it with chunks missing, or failed */
	int put_rc;  /* the writer's publish, at the first point */
	char put_err[256];
};

/* Recorded, not asserted: a failed assertion must not jump out of SQLite's
 * statement trace. */
static void read_at_point(struct interleave *x)
{
	unsigned char *b = NULL;
	size_t len = 0;
	int rc = fs_blob_read(x->other, x->blob, &b, &len);
	if (rc == FS_DB_OK && len == x->len && memcmp(b, x->bytes, len) == 0)
		x->whole++;
	else if (rc == FS_DB_NOTFOUND)
		x->gone++;
	else
		x->damaged++;
	free(b);
}

/* The stuck writer comes back: its record becomes the set's, as
 * fs_set_replace_all's write transaction makes it. */
static void publish_at_point(struct interleave *x)
{
	x->put_rc = fs_db_begin(x->other);
	if (x->put_rc)
		return;
	x->put_rc = fs_packed_put_encoded(x->other, x->sid, x->rec);
	if (x->put_rc) {
		snprintf(x->put_err, sizeof x->put_err, "%s", fs_db_errmsg(x->other));
		fs_db_rollback(x->other);
	}
	else
		x->put_rc = fs_db_commit(x->other);
}

static int at_sweep_statement(unsigned type, void *ctx, void *stmt, void *sql)
{
	(void)stmt;
	struct interleave *x = ctx;
	/* at a write's BEGIN the sweep holds no lock: the previous write has
	 * committed, the next has not started */
	if (type != SQLITE_TRACE_STMT || !strstr((const char *)sql, "BEGIN IMMEDIATE") || x->began++ == 0)
		return 0;
	x->points++;
	read_at_point(x);
	if (x->points == 1)
		publish_at_point(x);
	return 0;
}

static void test_sweep_claims_a_blob_before_deleting_its_chunks(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long sid = new_set(db, "stuck writer");
	struct interleave x;
	memset(&x, 0, sizeof x);
	x.other = fs_db_open(path, 5000, err, sizeof err);
	assert_non_null(x.other);
	fs_tubercle_list t;
	fs_edge_list e;
	fs_packed_rec rec;
	lattice(N_BIG, 0, &t, &e);
	assert_int_equal(fs_packed_encode(&t, &e, &rec), 0);
	assert_int_equal(fs_packed_stage(x.other, &rec, err, sizeof err), 0);
	assert_true(rec.blob_id > 0);
	assert_true(count_id(db, "SELECT count(*) FROM blob_chunks WHERE blob_id = ?", rec.blob_id) > 10);
	unsigned char *bytes = NULL;
	assert_int_equal(fs_blob_read(db, rec.blob_id, &bytes, &x.len), 0);
	age_blob(db, rec.blob_id);
	x.sid = sid;
	x.blob = rec.blob_id;
	x.rec = &rec;
	x.bytes = bytes;
	assert_int_equal(sqlite3_trace_v2(fs_db_handle(db), SQLITE_TRACE_STMT, at_sweep_statement, &x), SQLITE_OK);
	int freed = 0;
	int rc = fs_blob_sweep(db, &freed);
	sqlite3_trace_v2(fs_db_handle(db), 0, NULL, NULL);
	assert_int_equal(rc, 0);
	/* a point between every two of its chunks' deletes at least */
	assert_true(x.points > 10);
	assert_int_equal(x.damaged, 0);
	assert_int_equal(x.whole + x.gone, x.points);
	/* the sweep took it: refused to the writer, and the set as it was */
	assert_int_equal(freed, 1);
	assert_int_not_equal(x.put_rc, 0);
	assert_non_null(strstr(x.put_err, "run it again"));
	assert_false(blob_present(db, rec.blob_id));
	fs_db *fresh = fs_db_open(path, 5000, err, sizeof err);
	assert_non_null(fresh);
	fs_tubercle_list got = {0};
	assert_int_equal(fs_set_load(fresh, sid, &got, NULL), 0);
	assert_int_equal(got.n, 0);
	fs_tubercle_list_free(&got);
	fs_db_close(fresh);
	free(bytes);
	fs_packed_rec_free(&rec);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	fs_db_close(x.other);
	assert_no_orphans(db);
}

/* A stager pauses between its chunks only while a writer of the site
 * waits (fs_db_writer_waiting): nobody has waited on a fresh database; a
 * connection polling for the lock another holds is seen by the holder, as
 * recent within a minute and not within no time at all. */
static void test_a_waiting_writer_is_seen(void **state)
{
	fs_db *db = *state;
	assert_int_equal(fs_db_writer_waiting(db, 60000), 0);
	char err[256];
	fs_db *other = fs_db_open(path, 20, err, sizeof err);
	assert_non_null(other);
	assert_int_equal(fs_db_begin(db), FS_DB_OK);
	/* polls (and notes it) until its 20 ms timeout, then gives up */
	assert_int_equal(fs_db_begin(other), FS_DB_BUSY);
	assert_int_equal(fs_db_writer_waiting(db, 60000), 1);
	assert_int_equal(fs_db_writer_waiting(db, 0), 0);
	assert_int_equal(fs_db_commit(db), FS_DB_OK);
	fs_db_close(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_staged_result_reads_back_and_undoes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readers_never_see_half_a_result, setup, teardown),
		cmocka_unit_test_setup_teardown(test_killed_between_chunks_leaves_the_set_unchanged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overtaken_while_staging, setup, teardown),
		cmocka_unit_test_setup_teardown(test_duplicate_shares_and_the_last_reference_frees, setup, teardown),
		cmocka_unit_test_setup_teardown(test_edit_of_a_packed_set_writes_only_the_change, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep_spares_live_writers_until_they_are_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep_frees_all_garbage_and_nothing_referred_to, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep_claims_a_blob_before_deleting_its_chunks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_waiting_writer_is_seen, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
