/*
 * bench_store_write.c - how long an extraction's result holds SQLite's one
 * write lock (issue 15: < 200 ms for about 70,000 tubercles and 210,000
 * connections): fs_set_replace_all into an empty set, then over the same
 * set's 70,000 tubercles (a re-extraction), one small edit of it and the
 * undo of the re-extraction, on a scratch database in /tmp. Prints the
 * median of 5 of the lock held (fs_db_last_write_ms) and of the whole call;
 * asserts nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int main(void)
{
	char path[256], err[256];
	int side = getenv("FS_BENCH_QUICK") ? 100 : 265; /* 265^2 = 70,225 tubercles */
	fs_db *db = test_db_open("bench-store-write", path, sizeof path);
	if (!db) {
		fprintf(stderr, "cannot open a scratch database\n");
		return 1;
	}
	long long uid = 0, sid = 0;
	const char *sql = "INSERT INTO image_files (sha256, size, format, created_at) VALUES ('ab', 1, 'png', 0);"
			  "INSERT INTO images (owner_id, file_sha256, work_key, original_name, format, width, height, "
			  "bit_depth, created_at, updated_at) VALUES (1, 'ab', 'k', 'x.png', 'png', 10000, 10000, 8, 0, 0);";
	if (fs_user_create(db, "ann", "Ann", 0, "ann-password", &uid, err, sizeof err) ||
	    sqlite3_exec(fs_db_handle(db), sql, NULL, NULL, NULL) != SQLITE_OK) {
		fprintf(stderr, "cannot set up: %s\n", err);
		return 1;
	}
	long long image_id = sqlite3_last_insert_rowid(fs_db_handle(db));
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	lattice(side, &t, &e);
	fs_params p;
	fs_params_default(&p);
	double lock_empty[RUNS], wall_empty[RUNS], lock_over[RUNS], wall_over[RUNS], lock_undo[RUNS], lock_edit[RUNS];
	for (int r = 0; r < RUNS; r++) {
		char name[32];
		snprintf(name, sizeof name, "Set %d", r);
		if (fs_set_create(db, image_id, name, uid, &sid, err, sizeof err)) {
			fprintf(stderr, "cannot create a set: %s\n", err);
			return 1;
		}
		long long rev = 0, cur = 0;
		double a = now_ms();
		if (fs_set_replace_all(db, sid, -1, uid, &t, &e, &p, "extraction", 0, &rev, &cur, err, sizeof err)) {
			fprintf(stderr, "replace failed: %s\n", err);
			return 1;
		}
		wall_empty[r] = now_ms() - a;
		lock_empty[r] = fs_db_last_write_ms(db);
		a = now_ms();
		if (fs_set_replace_all(db, sid, -1, uid, &t, &e, &p, "extraction", 0, &rev, &cur, err, sizeof err)) {
			fprintf(stderr, "replace failed: %s\n", err);
			return 1;
		}
		wall_over[r] = now_ms() - a;
		lock_over[r] = fs_db_last_write_ms(db);
		/* one small edit of the large set, then the undo of both */
		fs_tubercle moved;
		fs_tubercle_list shown = {0};
		if (fs_set_load(db, sid, &shown, NULL) || !shown.n) {
			fprintf(stderr, "cannot load the set\n");
			return 1;
		}
		moved = shown.items[shown.n / 2];
		fs_tubercle_list_free(&shown);
		moved.centroid_x += 1;
		if (fs_set_update_tubercle(db, sid, rev, uid, moved.id, &moved, "move", 0, &rev, &cur, err, sizeof err)) {
			fprintf(stderr, "edit failed: %s\n", err);
			return 1;
		}
		lock_edit[r] = fs_db_last_write_ms(db);
		if (fs_set_undo(db, sid, rev, uid, &rev, &cur, err, sizeof err) ||
		    fs_set_undo(db, sid, rev, uid, &rev, &cur, err, sizeof err)) {
			fprintf(stderr, "undo failed: %s\n", err);
			return 1;
		}
		lock_undo[r] = fs_db_last_write_ms(db);
	}
	qsort(lock_edit, RUNS, sizeof(double), cmp_double);
	qsort(lock_undo, RUNS, sizeof(double), cmp_double);
	qsort(lock_empty, RUNS, sizeof(double), cmp_double);
	qsort(wall_empty, RUNS, sizeof(double), cmp_double);
	qsort(lock_over, RUNS, sizeof(double), cmp_double);
	qsort(wall_over, RUNS, sizeof(double), cmp_double);
	printf("store an extraction of %zu tubercles, %zu connections into an empty set: write lock held %.0f ms "
	       "(target < 200 ms), whole call %.0f ms\n",
	       t.n, e.n, lock_empty[RUNS / 2], wall_empty[RUNS / 2]);
	printf("the same over the set's %zu rows (a re-extraction): write lock held %.0f ms (target < 200 ms), "
	       "whole call %.0f ms\n",
	       t.n, lock_over[RUNS / 2], wall_over[RUNS / 2]);
	printf("one move in that set: write lock held %.0f ms; undoing the re-extraction: %.0f ms\n",
	       lock_edit[RUNS / 2], lock_undo[RUNS / 2]);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	fs_db_close(db);
	test_db_remove(path);
	return 0;
}
