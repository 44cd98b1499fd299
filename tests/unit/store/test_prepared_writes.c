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

/* One scenario on one storage: Ann's set of make_set and Bob on a second
 * connection, as another worker's would be, ready to edit between the
 * halves of Ann's changes (bob_between). */
typedef struct scenario {
	fs_db *db;
	long long sid, rev, cur;
	char err[400];
	struct bob_edit bob;
} scenario;

/* From now on Bob moves tubercle tid by dx between the halves of each of
 * Ann's changes (edits: only the first so many, 0 = every one). */
static void bob_between(scenario *s, int tid, double dx, int edits)
{
	s->bob.tid = tid;
	s->bob.dx = dx;
	s->bob.edits = edits;
	s->bob.times = 0;
	fs_set_on_prepared(bob_moves, &s->bob);
}

/* Bob stops; he was called times times and each of his edits landed. */
static void bob_stops(scenario *s, int times)
{
	fs_set_on_prepared(NULL, NULL);
	assert_int_equal(s->bob.times, times);
	assert_false(s->bob.failed);
}

/* Ann moves tubercle tid by dx at the revision she sees (a step of her
 * own to undo); returns where it was. */
static double ann_moves(scenario *s, int tid, double dx)
{
	fs_tubercle m = shown(s->db, s->sid, tid);
	double was = m.centroid_x;
	m.centroid_x += dx;
	assert_int_equal(fs_set_update_tubercle(s->db, s->sid, s->rev, ann, tid, &m, "move_tubercle", 0, &s->rev,
						&s->cur, s->err, sizeof s->err),
			 0);
	return was;
}

/* Runs body once on a set stored as rows and once on a packed one. */
static void on_rows_and_packed(fs_db *db, void (*body)(scenario *s))
{
	for (int packed = 0; packed < 2; packed++) {
		char err[256];
		scenario s;
		memset(&s, 0, sizeof s);
		s.db = db;
		s.sid = make_set(db, packed ? "Packed" : "Rows", packed, &s.rev);
		s.bob.db = fs_db_open(path, 5000, err, sizeof err);
		assert_non_null(s.bob.db);
		s.bob.set_id = s.sid;
		body(&s);
		fs_db_close(s.bob.db);
	}
}

/* Ann undoes her re-extraction at the revision she sees while Bob moves
 * one of its tubercles: a conflict, and Bob's move and Ann's step both
 * stay; at the new revision her undo is refused, naming Bob's change. */
static void undo_at_a_revision(scenario *s)
{
	fs_db *db = s->db;
	long long sid = s->sid;
	double x1 = ann_moves(s, 1, 1);
	long long before = s->rev;
	double x7 = shown(db, sid, 7).centroid_x;
	bob_between(s, 7, 5.0, 0);
	assert_int_equal(fs_set_undo(db, sid, before, ann, &s->rev, &s->cur, s->err, sizeof s->err), FS_DB_STALE);
	bob_stops(s, 1);
	assert_non_null(strstr(s->err, "reload"));
	assert_int_equal(s->cur, before + 1); /* Bob's move, which the caller is told to load */
	/* nothing lost: Bob's move and Ann's are both in the set */
	assert_true(shown(db, sid, 7).centroid_x == x7 + 5.0);
	assert_true(shown(db, sid, 1).centroid_x == x1 + 1);
	/* at the revision she now sees, Ann's undo takes back her move only */
	assert_int_equal(fs_set_undo(db, sid, s->cur, ann, &s->rev, &s->cur, s->err, sizeof s->err), 0);
	assert_true(shown(db, sid, 1).centroid_x == x1);
	assert_true(shown(db, sid, 7).centroid_x == x7 + 5.0);
}

static void undo_overtaken_at_a_revision_is_a_conflict(void **state)
{
	on_rows_and_packed(*state, undo_at_a_revision);
}

/* The same undo with no revision to expect (a journal step's undo, an
 * agent's): prepared again from the set with Bob's move, and both land. */
static void undo_without_a_revision(scenario *s)
{
	fs_db *db = s->db;
	long long sid = s->sid;
	double x9 = shown(db, sid, 9).centroid_x, x3 = ann_moves(s, 3, 2);
	bob_between(s, 9, -3.0, 1);
	assert_int_equal(fs_set_undo(db, sid, -1, ann, &s->rev, &s->cur, s->err, sizeof s->err), 0);
	bob_stops(s, 2); /* overtaken once, prepared again */
	assert_true(shown(db, sid, 3).centroid_x == x3);
	assert_true(shown(db, sid, 9).centroid_x == x9 - 3.0);
	/* and the undo is Ann's newest step: her redo moves #3 again */
	assert_int_equal(fs_set_redo(db, sid, -1, ann, &s->rev, &s->cur, s->err, sizeof s->err), 0);
	assert_true(shown(db, sid, 3).centroid_x == x3 + 2);
}

static void undo_overtaken_without_a_revision_is_prepared_again(void **state)
{
	on_rows_and_packed(*state, undo_without_a_revision);
}

/* An undo overtaken every time it is prepared still lands: the last
 * preparation is made under the lock, where nobody can overtake it. */
static void undo_overtaken_each_time(scenario *s)
{
	fs_db *db = s->db;
	long long sid = s->sid;
	double x20 = shown(db, sid, 20).centroid_x, x4 = ann_moves(s, 4, 2);
	bob_between(s, 20, 1.0, 0);
	cJSON *j = fs_set_journal(db, sid, 1);
	long long move_op = (long long)cJSON_GetObjectItem(cJSON_GetArrayItem(j, 0), "id")->valuedouble;
	cJSON_Delete(j);
	assert_int_equal(fs_set_undo_op(db, sid, move_op, ann, &s->rev, s->err, sizeof s->err), 0);
	bob_stops(s, 2); /* two preparations overtaken, the third under the lock */
	assert_true(shown(db, sid, 4).centroid_x == x4);
	assert_true(shown(db, sid, 20).centroid_x == x20 + 2.0);
}

static void undo_overtaken_every_time_still_lands(void **state)
{
	on_rows_and_packed(*state, undo_overtaken_each_time);
}

/* A whole-set edit (a radius for every tubercle) prepared while Bob
 * moves one: at a revision, a conflict that changes nothing; without, the
 * radius reaches every tubercle and Bob's tubercle keeps his position. */
static void whole_set_edit(scenario *s)
{
	fs_db *db = s->db;
	long long sid = s->sid;
	double x5 = shown(db, sid, 5).centroid_x;
	bob_between(s, 5, 4.0, 1);
	assert_int_equal(fs_set_set_radius(db, sid, s->rev, ann, NULL, 0, 3.25, &s->rev, &s->cur, s->err,
					   sizeof s->err),
			 FS_DB_STALE);
	assert_true(shown(db, sid, 5).centroid_x == x5 + 4.0);
	assert_true(shown(db, sid, 6).radius_px == 1.5);
	bob_between(s, 5, 4.0, 1); /* Bob moves #5 once more, and the radius is set again */
	assert_int_equal(fs_set_set_radius(db, sid, -1, ann, NULL, 0, 3.25, &s->rev, &s->cur, s->err, sizeof s->err),
			 0);
	bob_stops(s, 2);
	fs_tubercle five = shown(db, sid, 5);
	assert_true(five.centroid_x == x5 + 8.0);
	assert_true(five.radius_px == 3.25);
	fs_tubercle_list t = {0};
	assert_int_equal(fs_set_load(db, sid, &t, NULL), 0);
	assert_int_equal(t.n, 48);
	for (size_t i = 0; i < t.n; i++)
		assert_true(t.items[i].radius_px == 3.25);
	fs_tubercle_list_free(&t);
}

static void whole_set_edit_overtaken_loses_nothing(void **state)
{
	on_rows_and_packed(*state, whole_set_edit);
}

/* A Save summed up while Bob moves a tubercle: at a revision, a conflict
 * that saves nothing (the set stays unsaved); without one, the summary is
 * made again from the new state and counts every move (Ann's #2, Bob's
 * #30 and #31). */
static void save_overtaken(scenario *s)
{
	fs_db *db = s->db;
	long long sid = s->sid;
	assert_int_equal(fs_set_checkpoint(db, sid, s->rev, ann, "Ann", 0.5, &s->rev, s->err, sizeof s->err), 0);
	ann_moves(s, 2, 1);
	bob_between(s, 30, 2.0, 1);
	assert_int_equal(fs_set_checkpoint(db, sid, s->rev, ann, "Ann", 0.5, &s->cur, s->err, sizeof s->err),
			 FS_DB_STALE);
	fs_set_info info;
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_true(info.clean_revision < info.revision); /* still unsaved */
	/* Bob moves #31 while the Save without a revision is summed up */
	bob_between(s, 31, 2.0, 1);
	assert_int_equal(fs_set_checkpoint(db, sid, -1, ann, "Ann", 0.5, &s->cur, s->err, sizeof s->err), 0);
	bob_stops(s, 2);
	cJSON *h = fs_history_list(db, sid, 1);
	cJSON *ev = cJSON_GetArrayItem(h, 0);
	assert_string_equal(cJSON_GetObjectItem(ev, "type")->valuestring, "manual_edit");
	assert_string_equal(cJSON_GetObjectItem(ev, "summary")->valuestring, "3 moved");
	cJSON_Delete(h);
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_int_equal(info.clean_revision, info.revision);
}

static void save_overtaken_sums_up_again(void **state)
{
	on_rows_and_packed(*state, save_overtaken);
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
