/*
 * bench_store_write.c - how long each whole-set operation on a large set
 * holds SQLite's one write lock (issue 15, "one writer, short writes":
 * < 200 ms for about 70,000 tubercles and 210,000 connections), on a
 * scratch database in /tmp: fs_set_replace_all into an empty set and over
 * the same set's 70,000 tubercles (a re-extraction), one small edit, the
 * undo of the edit and of the re-extraction, the redo, Re-measure, a
 * radius for all, regenerated connections, a transform step reaching the
 * set, Revert to the last save, Save, Duplicate, Clear and Delete. Prints for
 * each the median of 5 of the lock held (the longest write transaction of
 * the call, fs_db_take_longest_write_ms; its CPU time: the last one's), of the
 * whole call (wall) and of the process CPU time of the call (which a
 * loaded machine changes less than the wall time); asserts nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/measurement.h"
#include "analysis/params.h"
#include "store/sets_store.h"
#include "store/users.h"
#include "test_db.h"

#define RUNS 5

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double p = *(const double *)a, q = *(const double *)b;
	return (p > q) - (p < q);
}

/* A hexagonal lattice of side x side tubercles, each joined to its right
 * and two lower neighbours (about 3 connections a tubercle). */
static void lattice(int side, fs_tubercle_list *t, fs_edge_list *e)
{
	for (int j = 0; j < side; j++)
		for (int i = 0; i < side; i++) {
			fs_tubercle x;
			fs_tubercle_init(&x);
			x.id = j * side + i + 1;
			x.centroid_x = 20 + i * 36.0 + (j % 2) * 18.0;
			x.centroid_y = 20 + j * 31.2;
			x.radius_px = 11.5 + (i % 7) * 0.1;
			x.circularity = 0.93;
			x.fit_quality = 0.8;
			x.source = FS_SOURCE_EXTRACTED;
			fs_tubercle_list_append(t, &x);
			int id = x.id;
			if (i + 1 < side) {
				fs_edge a = {id, id + 1};
				fs_edge_list_append(e, &a);
			}
			if (j + 1 < side) {
				int dl = (j % 2) ? id + side : id + side - 1, dr = (j % 2) ? id + side + 1 : id + side;
				if ((j % 2) || i > 0) {
					fs_edge a = {id, dl};
					fs_edge_list_append(e, &a);
				}
				if (!(j % 2) || i + 1 < side) {
					fs_edge a = {id, dr};
					fs_edge_list_append(e, &a);
				}
			}
		}
}

/* The operations measured, in the order they run on each set. */
enum {
	OP_EMPTY,
	OP_OVER,
	OP_MOVE,
	OP_UNDO_MOVE,
	OP_UNDO_EXTRACT,
	OP_REDO_EXTRACT,
	OP_REMEASURE,
	OP_RADIUS,
	OP_CONNECT,
	OP_TRANSFORM,
	OP_REVERT,
	OP_SAVE,
	OP_DUPLICATE,
	OP_CLEAR,
	OP_DELETE,
	N_OPS
};

static const char *const op_name[N_OPS] = {
	"store an extraction into an empty set",
	"store it over the set's rows (a re-extraction)",
	"move one tubercle",
	"undo the move",
	"undo the re-extraction",
	"redo the re-extraction",
	"Re-measure every tubercle",
	"a radius for every tubercle",
	"regenerate the connections",
	"a transform step reaching the set",
	"Revert to the last save",
	"Save (summing up every step since the last)",
	"Duplicate the set",
	"Clear the set",
	"Delete the set",
};

static double lock_ms[N_OPS][RUNS], lock_cpu[N_OPS][RUNS], wall_ms[N_OPS][RUNS], cpu_used[N_OPS][RUNS];
static double t_wall, t_cpu;

static void start(fs_db *db)
{
	/* a staged result (staged_blob.h) is several transactions: the lock
	 * an edit may wait for is the longest of them */
	(void)fs_db_take_longest_write_ms(db);
	t_wall = now_ms();
	t_cpu = cpu_ms();
}

static void stop(fs_db *db, int op, int run)
{
	wall_ms[op][run] = now_ms() - t_wall;
	cpu_used[op][run] = cpu_ms() - t_cpu;
	lock_ms[op][run] = fs_db_take_longest_write_ms(db);
	lock_cpu[op][run] = fs_db_last_write_cpu_ms(db);
}

static int fail(const char *what, const char *err)
{
	fprintf(stderr, "%s failed: %s\n", what, err);
	return 1;
}

/* Every operation once on a new set of the image. */
static int one_run(fs_db *db, long long image_id, long long uid, int r, const fs_tubercle_list *t,
		   const fs_edge_list *e)
{
	char name[32], err[256];
	long long sid = 0, rev = 0, cur = 0;
	fs_params p;
	fs_params_default(&p);
	snprintf(name, sizeof name, "Set %d", r);
	if (fs_set_create(db, image_id, name, uid, &sid, err, sizeof err))
		return fail("create", err);
	start(db);
	if (fs_set_replace_all(db, sid, -1, uid, t, e, &p, "extraction", 0, &rev, &cur, err, sizeof err))
		return fail("replace", err);
	stop(db, OP_EMPTY, r);
	/* saved here: Revert goes back to this */
	if (fs_set_checkpoint(db, sid, rev, uid, "Ann", 0.9, &rev, err, sizeof err))
		return fail("save", err);
	start(db);
	if (fs_set_replace_all(db, sid, -1, uid, t, e, &p, "extraction", 0, &rev, &cur, err, sizeof err))
		return fail("re-extraction", err);
	stop(db, OP_OVER, r);
	fs_tubercle_list shown = {0};
	if (fs_set_load(db, sid, &shown, NULL) || !shown.n)
		return fail("load", "no tubercles");
	fs_tubercle moved = shown.items[shown.n / 2];
	moved.centroid_x += 1;
	start(db);
	if (fs_set_update_tubercle(db, sid, rev, uid, moved.id, &moved, "move", 0, &rev, &cur, err, sizeof err))
		return fail("move", err);
	stop(db, OP_MOVE, r);
	start(db);
	if (fs_set_undo(db, sid, rev, uid, &rev, &cur, err, sizeof err))
		return fail("undo of the move", err);
	stop(db, OP_UNDO_MOVE, r);
	start(db);
	if (fs_set_undo(db, sid, rev, uid, &rev, &cur, err, sizeof err))
		return fail("undo of the re-extraction", err);
	stop(db, OP_UNDO_EXTRACT, r);
	start(db);
	if (fs_set_redo(db, sid, rev, uid, &rev, &cur, err, sizeof err))
		return fail("redo", err);
	stop(db, OP_REDO_EXTRACT, r);
	/* Re-measure: every tubercle a little larger */
	fs_tubercle_list_free(&shown);
	if (fs_set_load(db, sid, &shown, NULL))
		return fail("load", "");
	for (size_t i = 0; i < shown.n; i++)
		shown.items[i].radius_px += 0.25;
	start(db);
	if (fs_set_remeasure(db, sid, rev, uid, &shown, FS_MEASUREMENT_VERSION, NULL, NULL, &rev, &cur, err, sizeof err))
		return fail("re-measure", err);
	stop(db, OP_REMEASURE, r);
	fs_tubercle_list_free(&shown);
	start(db);
	if (fs_set_set_radius(db, sid, rev, uid, NULL, 0, 12.0, &rev, &cur, err, sizeof err))
		return fail("radius", err);
	stop(db, OP_RADIUS, r);
	/* the connections regenerated: ids are those of the re-extraction */
	fs_tubercle_list ids = {0};
	fs_edge_list now = {0};
	if (fs_set_load(db, sid, &ids, &now))
		return fail("load", "");
	fs_edge_list fewer = {0};
	for (size_t i = 0; i < now.n; i += 1 + (i % 3 == 0))
		fs_edge_list_append(&fewer, &now.items[i]);
	start(db);
	if (fs_set_replace_edges(db, sid, rev, uid, &fewer, "auto_connect", 0, &rev, &cur, err, sizeof err))
		return fail("connections", err);
	stop(db, OP_CONNECT, r);
	fs_tubercle_list_free(&ids);
	fs_edge_list_free(&now);
	fs_edge_list_free(&fewer);
	/* what a transform step does to each set of the image, in its own
	 * write transaction as image_steps.c runs it */
	start(db);
	if (fs_db_begin(db) ||
	    fs_sets_frame_changed(db, image_id, uid, "transform", NULL, err, sizeof err) || fs_db_commit(db))
		return fail("transform", err);
	stop(db, OP_TRANSFORM, r);
	if (fs_set_revision(db, sid, &rev))
		return fail("revision", "");
	start(db);
	if (fs_set_revert(db, sid, rev, uid, &rev, &cur, err, sizeof err))
		return fail("revert", err);
	stop(db, OP_REVERT, r);
	start(db);
	if (fs_set_checkpoint(db, sid, rev, uid, "Ann", 0.9, &rev, err, sizeof err))
		return fail("save", err);
	stop(db, OP_SAVE, r);
	long long dup = 0;
	snprintf(name, sizeof name, "Copy %d", r);
	start(db);
	if (fs_set_duplicate(db, sid, name, uid, &dup, err, sizeof err))
		return fail("duplicate", err);
	stop(db, OP_DUPLICATE, r);
	start(db);
	if (fs_set_delete_items(db, dup, -1, uid, NULL, 0, NULL, 0, "clear_all", 0, &rev, &cur, err, sizeof err))
		return fail("clear", err);
	stop(db, OP_CLEAR, r);
	if (fs_set_revision(db, sid, &rev))
		return fail("revision", "");
	start(db);
	if (fs_set_delete(db, sid, rev, &cur, err, sizeof err))
		return fail("delete", err);
	stop(db, OP_DELETE, r);
	return 0;
}

int main(void)
{
	char path[256], err[256];
	int side = getenv("FS_BENCH_QUICK") ? 100 : 265; /* 265^2 = 70,225 tubercles */
	fs_db *db = test_db_open("bench-store-write", path, sizeof path);
	if (!db) {
		fprintf(stderr, "cannot open a scratch database\n");
		return 1;
	}
	long long uid = 0;
	const char *sql = "INSERT INTO image_files (sha256, size, format, created_at) VALUES ('ab', 1, 'png', 0);"
			  "INSERT INTO images (owner_id, file_sha256, work_key, original_name, format, width, height, "
			  "bit_depth, created_at, updated_at) VALUES (1, 'ab', 'k', 'x.png', 'png', 10000, 10000, 8, 0, 0);";
	if (fs_user_create(db, "ann", "Ann", 0, "ann-password", &uid, err, sizeof err) ||
	    sqlite3_exec(fs_db_handle(db), sql, NULL, NULL, NULL) != SQLITE_OK) {
		fprintf(stderr, "cannot set up: %s\n", err);
		return 1;
	}
	long long image_id = sqlite3_last_insert_rowid(fs_db_handle(db));
	/* the image keeps one set of its own: a set is deleted only when
	 * another is left */
	long long keep = 0;
	if (fs_set_create(db, image_id, "Base", uid, &keep, err, sizeof err)) {
		fprintf(stderr, "cannot create a set: %s\n", err);
		return 1;
	}
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	lattice(side, &t, &e);
	for (int r = 0; r < RUNS; r++)
		if (one_run(db, image_id, uid, r, &t, &e))
			return 1;
	printf("a set of %zu tubercles, %zu connections; median of %d: SQLite's write lock held (target < 200 ms; "
	       "wall, and the CPU time spent holding it), the whole call (wall and CPU)\n",
	       t.n, e.n, RUNS);
	for (int op = 0; op < N_OPS; op++) {
		qsort(lock_ms[op], RUNS, sizeof(double), cmp_double);
		qsort(lock_cpu[op], RUNS, sizeof(double), cmp_double);
		qsort(wall_ms[op], RUNS, sizeof(double), cmp_double);
		qsort(cpu_used[op], RUNS, sizeof(double), cmp_double);
		printf("  %-48s lock %5.0f ms (cpu %4.0f ms)  call %6.0f ms (cpu %5.0f ms)\n", op_name[op],
		       lock_ms[op][RUNS / 2], lock_cpu[op][RUNS / 2], wall_ms[op][RUNS / 2], cpu_used[op][RUNS / 2]);
	}
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	fs_db_close(db);
	test_db_remove(path);
	return 0;
}
