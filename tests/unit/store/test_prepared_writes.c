/*
 * Unit tests for changes prepared outside SQLite's write lock (issue 15,
 * "one writer, short writes"): an undo, a redo or an edit is prepared at
 * a snapshot and stored only if the set has not moved on meanwhile. Here
 * another user's edit lands, through a second connection as another
 * worker's would, exactly between the preparation and the write
 * (fs_set_on_prepared): with a revision to expect the change is refused
 * as a conflict and nothing of either is lost; without, it is prepared
 * again from the new state and both changes are in the set. Each test
 * runs on a set stored as rows and on a packed one (set_packed.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "store/db.h"
#include "store/set_packed.h"
#include "store/sets_store.h"
#include "store/users.h"
#include "test_db.h"

static char path[128];
static long long ann, bob, image_id;

/* Bob's edit between the halves of Ann's change: tubercle tid moves by
 * dx, through his own connection; times counts the calls, edits (0 = all)
 * limits how many of them edit. */
struct bob_edit {
	fs_db *db;
	long long set_id;
	int tid;
	double dx;
	int times, edits, failed;
};

static void bob_moves(void *arg)
{
	struct bob_edit *b = arg;
	b->times++;
	if (b->edits && b->times > b->edits)
		return;
	fs_tubercle_list t = {0};
	if (fs_set_load(b->db, b->set_id, &t, NULL)) {
		b->failed = 1;
		return;
	}
	for (size_t i = 0; i < t.n; i++)
		if (t.items[i].id == b->tid) {
			fs_tubercle m = t.items[i];
			long long rev, cur;
			char err[256];
			m.centroid_x += b->dx;
			/* Bob's own change is prepared too: it must not call back here */
			fs_set_on_prepared(NULL, NULL);
			if (fs_set_update_tubercle(b->db, b->set_id, -1, bob, b->tid, &m, "move_tubercle", 0, &rev, &cur,
						   err, sizeof err))
				b->failed = 1;
			fs_set_on_prepared(bob_moves, b);
		}
	fs_tubercle_list_free(&t);
}

static int setup(void **state)
{
	char err[256];
	fs_db *db = test_db_open_with_image("prepared", path, sizeof path, &ann, &image_id);
	if (!db || fs_user_create(db, "bob", "Bob", 0, "bob-password", &bob, err, sizeof err))
		return -1;
	*state = db;
	return 0;
}

static int teardown(void **state)
{
	fs_set_on_prepared(NULL, NULL);
	fs_packed_set_min(5000);
	fs_db_close(*state);
	test_db_remove(path);
	return 0;
}

/* A set of 48 tubercles in a row, each joined to the next, stored packed
 * or as rows; its revision goes into *rev. */
static long long make_set(fs_db *db, const char *name, int packed, long long *rev)
{
	char err[256];
	long long sid, cur;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	for (int i = 0; i < 48; i++) {
		fs_tubercle x;
		fs_tubercle_init(&x);
		x.id = i + 1;
		x.centroid_x = 10 + 4 * i;
		x.centroid_y = 20 + (i % 3);
		x.radius_px = 1.5;
		x.circularity = 0.9;
		x.source = FS_SOURCE_EXTRACTED;
		fs_tubercle_list_append(&t, &x);
		if (i) {
			fs_edge a = {i, i + 1};
			fs_edge_list_append(&e, &a);
		}
	}
	fs_params p;
	fs_params_default(&p);
	fs_packed_set_min(packed ? 1 : 1000000);
	assert_int_equal(fs_set_create(db, image_id, name, ann, &sid, err, sizeof err), 0);
	assert_int_equal(fs_set_replace_all(db, sid, -1, ann, &t, &e, &p, "extraction", 0, rev, &cur, err, sizeof err), 0);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	const fs_set_state *pk;
	assert_int_equal(fs_packed_state(db, sid, &pk), 0);
	assert_true(packed ? pk != NULL : pk == NULL);
	return sid;
}

/* The shown tubercle with the id (a copy; fails the test when missing). */
static fs_tubercle shown(fs_db *db, long long sid, int id)
{
	fs_tubercle_list t = {0};
	fs_tubercle out;
	int found = 0;
	assert_int_equal(fs_set_load(db, sid, &t, NULL), 0);
	for (size_t i = 0; i < t.n; i++)
		if (t.items[i].id == id) {
			out = t.items[i];
			found = 1;
		}
	fs_tubercle_list_free(&t);
	assert_true(found);
	return out;
}

static fs_db *second_connection(void)
{
	char err[256];
	fs_db *other = fs_db_open(path, 5000, err, sizeof err);
	assert_non_null(other);
	return other;
}

/* Ann undoes her re-extraction at the revision she sees while Bob moves
 * one of its tubercles: a conflict, and Bob's move and Ann's step both
 * stay; at the new revision her undo is refused, naming Bob's change. */
static void undo_overtaken_at_a_revision_is_a_conflict(void **state)
{
	fs_db *db = *state;
	for (int packed = 0; packed < 2; packed++) {
		char err[400];
		long long rev, cur = 0, before;
		long long sid = make_set(db, packed ? "Packed" : "Rows", packed, &rev);
		fs_tubercle m = shown(db, sid, 1);
		m.centroid_x += 1;
		assert_int_equal(fs_set_update_tubercle(db, sid, rev, ann, 1, &m, "move_tubercle", 0, &rev, &cur, err,
							sizeof err), 0);
		before = rev;
		fs_db *other = second_connection();
		struct bob_edit b = {other, sid, 7, 5.0, 0, 0, 0};
		double x7 = shown(db, sid, 7).centroid_x;
		fs_set_on_prepared(bob_moves, &b);
		assert_int_equal(fs_set_undo(db, sid, before, ann, &rev, &cur, err, sizeof err), FS_DB_STALE);
		fs_set_on_prepared(NULL, NULL);
		assert_int_equal(b.times, 1);
		assert_false(b.failed);
		assert_non_null(strstr(err, "reload"));
		assert_int_equal(cur, before + 1); /* Bob's move, which the caller is told to load */
		/* nothing lost: Bob's move and Ann's are both in the set */
		assert_true(shown(db, sid, 7).centroid_x == x7 + 5.0);
		assert_true(shown(db, sid, 1).centroid_x == m.centroid_x);
		/* at the revision she now sees, Ann's undo takes back her move only */
		assert_int_equal(fs_set_undo(db, sid, cur, ann, &rev, &cur, err, sizeof err), 0);
		assert_true(shown(db, sid, 1).centroid_x == m.centroid_x - 1);
		assert_true(shown(db, sid, 7).centroid_x == x7 + 5.0);
		fs_db_close(other);
	}
}

/* The same undo with no revision to expect (a journal step's undo, an
 * agent's): prepared again from the set with Bob's move, and both land. */
static void undo_overtaken_without_a_revision_is_prepared_again(void **state)
{
	fs_db *db = *state;
	for (int packed = 0; packed < 2; packed++) {
		char err[400];
		long long rev, cur = 0;
		long long sid = make_set(db, packed ? "Packed" : "Rows", packed, &rev);
		fs_tubercle m = shown(db, sid, 3);
		double x3 = m.centroid_x, x9 = shown(db, sid, 9).centroid_x;
		m.centroid_x += 2;
		assert_int_equal(fs_set_update_tubercle(db, sid, rev, ann, 3, &m, "move_tubercle", 0, &rev, &cur, err,
							sizeof err), 0);
		fs_db *other = second_connection();
		struct bob_edit b = {other, sid, 9, -3.0, 0, 1, 0};
		fs_set_on_prepared(bob_moves, &b);
		assert_int_equal(fs_set_undo(db, sid, -1, ann, &rev, &cur, err, sizeof err), 0);
		fs_set_on_prepared(NULL, NULL);
		assert_false(b.failed);
		assert_int_equal(b.times, 2); /* overtaken once, prepared again */
		assert_true(shown(db, sid, 3).centroid_x == x3);
		assert_true(shown(db, sid, 9).centroid_x == x9 - 3.0);
		/* and the undo is Ann's newest step: her redo moves #3 again */
		assert_int_equal(fs_set_redo(db, sid, -1, ann, &rev, &cur, err, sizeof err), 0);
		assert_true(shown(db, sid, 3).centroid_x == x3 + 2);
		fs_db_close(other);
	}
}

/* An undo overtaken every time it is prepared still lands: the last
 * preparation is made under the lock, where nobody can overtake it. */
static void undo_overtaken_every_time_still_lands(void **state)
{
	fs_db *db = *state;
	for (int packed = 0; packed < 2; packed++) {
		char err[400];
		long long rev, cur = 0;
		long long sid = make_set(db, packed ? "Packed" : "Rows", packed, &rev);
		fs_tubercle m = shown(db, sid, 4);
		double x4 = m.centroid_x, x20 = shown(db, sid, 20).centroid_x;
		m.centroid_x += 2;
		assert_int_equal(fs_set_update_tubercle(db, sid, rev, ann, 4, &m, "move_tubercle", 0, &rev, &cur, err,
							sizeof err), 0);
		fs_db *other = second_connection();
		struct bob_edit b = {other, sid, 20, 1.0, 0, 0, 0};
		fs_set_on_prepared(bob_moves, &b);
		cJSON *j = fs_set_journal(db, sid, 1);
		long long move_op = (long long)cJSON_GetObjectItem(cJSON_GetArrayItem(j, 0), "id")->valuedouble;
		cJSON_Delete(j);
		assert_int_equal(fs_set_undo_op(db, sid, move_op, ann, &rev, err, sizeof err), 0);
		fs_set_on_prepared(NULL, NULL);
		assert_false(b.failed);
		assert_int_equal(b.times, 2); /* two preparations overtaken, the third under the lock */
		assert_true(shown(db, sid, 4).centroid_x == x4);
		assert_true(shown(db, sid, 20).centroid_x == x20 + 2.0);
		fs_db_close(other);
	}
}

/* A whole-set edit (a radius for every tubercle) prepared while Bob
 * moves one: at a revision, a conflict that changes nothing; without, the
 * radius reaches every tubercle and Bob's tubercle keeps his position. */
static void whole_set_edit_overtaken_loses_nothing(void **state)
{
	fs_db *db = *state;
	for (int packed = 0; packed < 2; packed++) {
		char err[400];
		long long rev, cur = 0;
		long long sid = make_set(db, packed ? "Packed" : "Rows", packed, &rev);
		double x5 = shown(db, sid, 5).centroid_x;
		fs_db *other = second_connection();
		struct bob_edit b = {other, sid, 5, 4.0, 0, 1, 0};
		fs_set_on_prepared(bob_moves, &b);
		assert_int_equal(fs_set_set_radius(db, sid, rev, ann, NULL, 0, 3.25, &rev, &cur, err, sizeof err),
				 FS_DB_STALE);
		assert_true(shown(db, sid, 5).centroid_x == x5 + 4.0);
		assert_true(shown(db, sid, 6).radius_px == 1.5);
		b.times = 0; /* Bob moves #5 once more, and the radius is set again */
		assert_int_equal(fs_set_set_radius(db, sid, -1, ann, NULL, 0, 3.25, &rev, &cur, err, sizeof err), 0);
		fs_set_on_prepared(NULL, NULL);
		assert_false(b.failed);
		assert_int_equal(b.times, 2);
		fs_tubercle five = shown(db, sid, 5);
		assert_true(five.centroid_x == x5 + 8.0);
		assert_true(five.radius_px == 3.25);
		fs_tubercle_list t = {0};
		assert_int_equal(fs_set_load(db, sid, &t, NULL), 0);
		assert_int_equal(t.n, 48);
		for (size_t i = 0; i < t.n; i++)
			assert_true(t.items[i].radius_px == 3.25);
		fs_tubercle_list_free(&t);
		fs_db_close(other);
	}
}

/* A Save summed up while Bob moves a tubercle: at a revision, a conflict
 * that saves nothing (the set stays unsaved); without one, the summary is
 * made again from the new state and counts every move (Ann's #2, Bob's
 * #30 and #31). */
static void save_overtaken_sums_up_again(void **state)
{
	fs_db *db = *state;
	for (int packed = 0; packed < 2; packed++) {
		char err[400];
		long long rev, cur = 0;
		long long sid = make_set(db, packed ? "Packed" : "Rows", packed, &rev);
		assert_int_equal(fs_set_checkpoint(db, sid, rev, ann, "Ann", 0.5, &rev, err, sizeof err), 0);
		fs_tubercle m = shown(db, sid, 2);
		m.centroid_x += 1;
		assert_int_equal(fs_set_update_tubercle(db, sid, rev, ann, 2, &m, "move_tubercle", 0, &rev, &cur, err,
							sizeof err), 0);
		fs_db *other = second_connection();
		struct bob_edit b = {other, sid, 30, 2.0, 0, 1, 0};
		fs_set_on_prepared(bob_moves, &b);
		assert_int_equal(fs_set_checkpoint(db, sid, rev, ann, "Ann", 0.5, &cur, err, sizeof err), FS_DB_STALE);
		fs_set_info info;
		assert_int_equal(fs_set_get_info(db, sid, &info), 0);
		assert_true(info.clean_revision < info.revision); /* still unsaved */
		/* Bob moves #31 while the Save without a revision is summed up */
		b.times = 0;
		b.tid = 31;
		assert_int_equal(fs_set_checkpoint(db, sid, -1, ann, "Ann", 0.5, &cur, err, sizeof err), 0);
		fs_set_on_prepared(NULL, NULL);
		assert_false(b.failed);
		assert_int_equal(b.times, 2);
		cJSON *h = fs_history_list(db, sid, 1);
		cJSON *ev = cJSON_GetArrayItem(h, 0);
		assert_string_equal(cJSON_GetObjectItem(ev, "type")->valuestring, "manual_edit");
		assert_string_equal(cJSON_GetObjectItem(ev, "summary")->valuestring, "3 moved");
		cJSON_Delete(h);
		assert_int_equal(fs_set_get_info(db, sid, &info), 0);
		assert_int_equal(info.clean_revision, info.revision);
		fs_db_close(other);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(undo_overtaken_at_a_revision_is_a_conflict, setup, teardown),
		cmocka_unit_test_setup_teardown(undo_overtaken_without_a_revision_is_prepared_again, setup, teardown),
		cmocka_unit_test_setup_teardown(undo_overtaken_every_time_still_lands, setup, teardown),
		cmocka_unit_test_setup_teardown(whole_set_edit_overtaken_loses_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(save_overtaken_sums_up_again, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
