/* Unit tests for the annotation set store: edits, revisions, undo/redo,
 * selective undo, checkpoints, transforms and calibration changes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/db.h"
#include "test_db.h"
#include "store/sets_store.h"
#include "store/users.h"

static char path[128];
static long long uid, image_id;

static int setup(void **state)
{
	char err[256];
	fs_db *db = test_db_open("sets", path, sizeof path);
	if (!db)
		return -1;
	if (fs_user_create(db, "ann", "Ann", 0, "ann-password", &uid, err, sizeof err))
		return -1;
	const char *sql = "INSERT INTO image_files (sha256, size, format, created_at) VALUES ('ab', 1, 'png', 0);"
			  "INSERT INTO images (owner_id, file_sha256, work_key, original_name, format, width, height, "
			  "bit_depth, created_at, updated_at) VALUES (1, 'ab', 'k', 'x.png', 'png', 200, 100, 8, 0, 0);";
	if (sqlite3_exec(fs_db_handle(db), sql, NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	image_id = sqlite3_last_insert_rowid(fs_db_handle(db));
	*state = db;
	return 0;
}

static int teardown(void **state)
{
	fs_db_close(*state);
	test_db_remove(path);
	return 0;
}

static fs_tubercle tub(double x, double y, double r)
{
	fs_tubercle t;
	memset(&t, 0, sizeof t);
	t.centroid_x = x;
	t.centroid_y = y;
	t.radius_px = r;
	t.circularity = 1;
	t.source = FS_SOURCE_MANUAL;
	return t;
}

static long long make_set(fs_db *db, const char *name)
{
	long long sid;
	char err[256];
	assert_int_equal(fs_set_create(db, image_id, name, uid, &sid, err, sizeof err), 0);
	return sid;
}

static void names_are_checked_and_unique(void **state)
{
	fs_db *db = *state;
	char err[256], clean[300];
	long long sid;
	assert_true(fs_set_name_valid("  Base  ", clean, sizeof clean));
	assert_string_equal(clean, "Base");
	assert_false(fs_set_name_valid("a/b", clean, sizeof clean));
	assert_false(fs_set_name_valid("", clean, sizeof clean));
	assert_false(fs_set_name_valid("   ", clean, sizeof clean));
	assert_int_equal(fs_set_create(db, image_id, "Base", uid, &sid, err, sizeof err), 0);
	assert_int_equal(fs_set_create(db, image_id, "base", uid, &sid, err, sizeof err), FS_DB_CONSTRAINT);
	assert_int_equal(fs_set_create(db, image_id, "x<y", uid, &sid, err, sizeof err), FS_DB_INVALID);
	assert_int_equal(fs_set_create(db, 99999, "Other", uid, &sid, err, sizeof err), FS_DB_NOTFOUND);
}

static void add_move_delete_with_revisions(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long sid = make_set(db, "Base"), rev, cur;
	fs_tubercle t = tub(10, 20, 5);
	int tid;
	assert_int_equal(fs_set_add_tubercle(db, sid, 0, uid, &t, 0, &tid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(tid, 1);
	assert_int_equal(rev, 1);
	/* a stale revision is refused and changes nothing */
	fs_tubercle t2 = tub(50, 50, 5);
	assert_int_equal(fs_set_add_tubercle(db, sid, 0, uid, &t2, 0, &tid, &rev, &cur, err, sizeof err), FS_DB_STALE);
	assert_int_equal(cur, 1);
	assert_non_null(strstr(err, "revision"));
	assert_int_equal(fs_set_add_tubercle(db, sid, 1, uid, &t2, 0, &tid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(tid, 2);
	assert_int_equal(fs_set_add_edge(db, sid, 2, uid, 2, 1, 0, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_add_edge(db, sid, 3, uid, 1, 2, 0, &rev, &cur, err, sizeof err), FS_DB_INVALID);
	assert_int_equal(fs_set_add_edge(db, sid, 3, uid, 1, 9, 0, &rev, &cur, err, sizeof err), FS_DB_INVALID);
	fs_tubercle moved = tub(12, 22, 6);
	assert_int_equal(fs_set_update_tubercle(db, sid, 3, uid, 1, &moved, "move_tubercle", 0, &rev, &cur, err,
						 sizeof err), 0);
	assert_int_equal(fs_set_update_tubercle(db, sid, 4, uid, 77, &moved, "move_tubercle", 0, &rev, &cur, err,
						 sizeof err), FS_DB_INVALID);
	fs_tubercle_list tl = {0};
	fs_edge_list el = {0};
	assert_int_equal(fs_set_load(db, sid, &tl, &el), 0);
	assert_int_equal(tl.n, 2);
	assert_true(tl.items[0].centroid_x == 12 && tl.items[0].radius_px == 6);
	assert_int_equal(el.n, 1);
	assert_int_equal(el.items[0].id1, 1);
	fs_tubercle_list_free(&tl);
	fs_edge_list_free(&el);
	/* deleting a tubercle takes its connections */
	int del[] = {1};
	assert_int_equal(fs_set_delete_items(db, sid, 4, uid, del, 1, NULL, 0, "delete_tubercle", 0, &rev, &cur, err,
					      sizeof err), 0);
	assert_int_equal(fs_set_load(db, sid, &tl, &el), 0);
	assert_int_equal(tl.n, 1);
	assert_int_equal(el.n, 0);
	fs_tubercle_list_free(&tl);
	fs_edge_list_free(&el);
	/* invalid values */
	fs_tubercle bad = tub(NAN, 1, 1);
	assert_int_equal(fs_set_add_tubercle(db, sid, -1, uid, &bad, 0, &tid, &rev, &cur, err, sizeof err),
			 FS_DB_INVALID);
	bad = tub(1, 1, -3);
	assert_int_equal(fs_set_add_tubercle(db, sid, -1, uid, &bad, 0, &tid, &rev, &cur, err, sizeof err),
			 FS_DB_INVALID);
}

static void undo_redo_restore_exact_state_and_ids(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long sid = make_set(db, "Base"), rev = 0, cur;
	int tid;
	for (int i = 0; i < 3; i++) {
		fs_tubercle t = tub(10 + 20 * i, 10, 4);
		assert_int_equal(fs_set_add_tubercle(db, sid, rev, uid, &t, 0, &tid, &rev, &cur, err, sizeof err), 0);
	}
	assert_int_equal(fs_set_add_edge(db, sid, rev, uid, 1, 2, 0, &rev, &cur, err, sizeof err), 0);
	int del[] = {2};
	assert_int_equal(fs_set_delete_items(db, sid, rev, uid, del, 1, NULL, 0, "delete_tubercle", 0, &rev, &cur,
					      err, sizeof err), 0);
	fs_set_info info;
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_int_equal(info.n_tubercles, 2);
	assert_true(info.can_undo);
	assert_false(info.can_redo);
	/* undo the delete: tubercle #2 and its connection come back */
	assert_int_equal(fs_set_undo(db, sid, rev, uid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_int_equal(info.n_tubercles, 3);
	assert_int_equal(info.n_edges, 1);
	assert_true(info.can_redo);
	/* undo with a stale revision is refused too */
	assert_int_equal(fs_set_undo(db, sid, rev - 1, uid, &rev, &cur, err, sizeof err), FS_DB_STALE);
	assert_int_equal(fs_set_redo(db, sid, rev, uid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_int_equal(info.n_tubercles, 2);
	assert_int_equal(info.n_edges, 0);
	/* undo everything, then a new step discards the redo tail */
	for (int i = 0; i < 5; i++)
		assert_int_equal(fs_set_undo(db, sid, rev, uid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_undo(db, sid, rev, uid, &rev, &cur, err, sizeof err), FS_DB_INVALID);
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_int_equal(info.n_tubercles, 0);
	fs_tubercle t = tub(5, 5, 2);
	assert_int_equal(fs_set_add_tubercle(db, sid, rev, uid, &t, 0, &tid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(tid, 4); /* ids are never reused */
	assert_int_equal(fs_set_redo(db, sid, rev, uid, &rev, &cur, err, sizeof err), FS_DB_INVALID);
}

static void hundred_and_fifty_undo_steps(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long sid = make_set(db, "Base"), rev = 0, cur;
	int tid;
	for (int i = 0; i < 150; i++) {
		fs_tubercle t = tub(i, i, 2);
		assert_int_equal(fs_set_add_tubercle(db, sid, rev, uid, &t, 0, &tid, &rev, &cur, err, sizeof err), 0);
	}
	for (int i = 0; i < 150; i++)
		assert_int_equal(fs_set_undo(db, sid, rev, uid, &rev, &cur, err, sizeof err), 0);
	fs_set_info info;
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_int_equal(info.n_tubercles, 0);
	assert_int_equal(rev, 300);
}

static void replace_all_and_edges_are_single_steps(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long sid = make_set(db, "Base"), rev = 0, cur;
	fs_tubercle_list tl = {0};
	fs_edge_list el = {0};
	for (int i = 0; i < 10; i++) {
		fs_tubercle t = tub(10 * i, 5, 3);
		t.id = 100 + i;
		t.source = FS_SOURCE_EXTRACTED;
		fs_tubercle_list_append(&tl, &t);
		if (i) {
			fs_edge e = {100 + i - 1, 100 + i};
			fs_edge_list_append(&el, &e);
		}
	}
	fs_params p;
	fs_params_default(&p);
	p.threshold = 0.2;
	assert_int_equal(fs_set_replace_all(db, sid, rev, uid, &tl, &el, &p, "extraction", 0, &rev, &cur, err,
					    sizeof err), 0);
	fs_set_info info;
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_int_equal(info.n_tubercles, 10);
	assert_int_equal(info.n_edges, 9);
	assert_true(info.has_params);
	assert_true(fabs(info.params.threshold - 0.2) < 1e-12);
	/* a second extraction, then one undo returns the first exactly */
	tl.n = 4;
	el.n = 3;
	assert_int_equal(fs_set_replace_all(db, sid, rev, uid, &tl, &el, &p, "extraction", 0, &rev, &cur, err,
					    sizeof err), 0);
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_int_equal(info.n_tubercles, 4);
	assert_int_equal(fs_set_undo(db, sid, rev, uid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_int_equal(info.n_tubercles, 10);
	assert_int_equal(info.n_edges, 9);
	/* edges only */
	fs_edge_list none = {0};
	assert_int_equal(fs_set_replace_edges(db, sid, rev, uid, &none, "auto_connect", 0, &rev, &cur, err, sizeof err),
			 0);
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_int_equal(info.n_edges, 0);
	assert_int_equal(info.n_tubercles, 10);
	assert_int_equal(fs_set_undo(db, sid, rev, uid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_int_equal(info.n_edges, 9);
	/* set radius on all, one step */
	assert_int_equal(fs_set_set_radius(db, sid, rev, uid, NULL, 0, 7.5, &rev, &cur, err, sizeof err), 0);
	fs_tubercle_list got = {0};
	assert_int_equal(fs_set_load(db, sid, &got, NULL), 0);
	for (size_t i = 0; i < got.n; i++)
		assert_true(got.items[i].radius_px == 7.5);
	fs_tubercle_list_free(&got);
	fs_tubercle_list_free(&tl);
	fs_edge_list_free(&el);
}

static void selective_undo_of_one_step(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long sid = make_set(db, "Base"), rev = 0, cur;
	int a, b;
	fs_tubercle t = tub(10, 10, 3);
	assert_int_equal(fs_set_add_tubercle(db, sid, rev, uid, &t, 42, &a, &rev, &cur, err, sizeof err), 0);
	t = tub(30, 10, 3);
	assert_int_equal(fs_set_add_tubercle(db, sid, rev, uid, &t, 42, &b, &rev, &cur, err, sizeof err), 0);
	cJSON *j = fs_set_journal(db, sid, 10);
	assert_int_equal(cJSON_GetArraySize(j), 2);
	long long first_op = (long long)cJSON_GetObjectItem(cJSON_GetArrayItem(j, 1), "id")->valuedouble;
	long long second_op = (long long)cJSON_GetObjectItem(cJSON_GetArrayItem(j, 0), "id")->valuedouble;
	assert_int_equal((int)cJSON_GetObjectItem(cJSON_GetArrayItem(j, 0), "agent_run_id")->valuedouble, 42);
	cJSON_Delete(j);
	/* undo the first add while the second stays */
	assert_int_equal(fs_set_undo_op(db, sid, first_op, uid, &rev, err, sizeof err), 0);
	fs_tubercle_list tl = {0};
	assert_int_equal(fs_set_load(db, sid, &tl, NULL), 0);
	assert_int_equal(tl.n, 1);
	assert_int_equal(tl.items[0].id, b);
	fs_tubercle_list_free(&tl);
	assert_int_equal(fs_set_undo_op(db, sid, first_op, uid, &rev, err, sizeof err), FS_DB_INVALID);
	/* a step that no longer applies says why */
	fs_tubercle moved = tub(31, 11, 3);
	assert_int_equal(fs_set_update_tubercle(db, sid, rev, uid, b, &moved, "move_tubercle", 0, &rev, &cur, err,
						 sizeof err), 0);
	assert_int_equal(fs_set_undo_op(db, sid, second_op, uid, &rev, err, sizeof err), FS_DB_INVALID);
	assert_non_null(strstr(err, "changed"));
}

static void checkpoint_summarises_and_revert_goes_back(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long sid = make_set(db, "Base"), rev = 0, cur;
	int tid;
	for (int i = 0; i < 5; i++) {
		fs_tubercle t = tub(10 * i, 10, 3);
		assert_int_equal(fs_set_add_tubercle(db, sid, rev, uid, &t, 0, &tid, &rev, &cur, err, sizeof err), 0);
	}
	int del[] = {1, 2};
	assert_int_equal(fs_set_delete_items(db, sid, rev, uid, del, 2, NULL, 0, "delete_many", 0, &rev, &cur, err,
					      sizeof err), 0);
	fs_tubercle m = tub(33, 12, 3);
	assert_int_equal(fs_set_update_tubercle(db, sid, rev, uid, 4, &m, "move_tubercle", 0, &rev, &cur, err,
						 sizeof err), 0);
	fs_set_info info;
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_true(info.revision != info.clean_revision);
	assert_int_equal(fs_set_checkpoint(db, sid, rev, uid, "Ann", 0.5, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_int_equal(info.revision, info.clean_revision);
	cJSON *h = fs_history_list(db, sid, 10);
	cJSON *ev = cJSON_GetArrayItem(h, 0);
	assert_string_equal(cJSON_GetObjectItem(ev, "type")->valuestring, "manual_edit");
	assert_string_equal(cJSON_GetObjectItem(ev, "summary")->valuestring,
			    "+5 tubercles, -2 tubercles, 1 moved, 0 resized, +0 connections, -0 connections");
	assert_string_equal(cJSON_GetObjectItem(ev, "user")->valuestring, "Ann");
	cJSON_Delete(h);
	rev = info.revision;
	fs_tubercle t = tub(90, 90, 3);
	assert_int_equal(fs_set_add_tubercle(db, sid, rev, uid, &t, 0, &tid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_add_tubercle(db, sid, rev, uid, &t, 0, &tid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_revert(db, sid, rev, uid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_int_equal(info.n_tubercles, 3);
	assert_int_equal(fs_set_revert(db, sid, rev, uid, &rev, &cur, err, sizeof err), FS_DB_INVALID);
}

static void duplicate_rename_delete(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long sid = make_set(db, "Base"), rev = 0, cur, copy;
	int tid;
	fs_tubercle t = tub(1, 2, 3);
	assert_int_equal(fs_set_add_tubercle(db, sid, rev, uid, &t, 0, &tid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_duplicate(db, sid, "Copy", uid, &copy, err, sizeof err), 0);
	fs_set_info info;
	assert_int_equal(fs_set_get_info(db, copy, &info), 0);
	assert_int_equal(info.n_tubercles, 1);
	assert_false(info.can_undo);
	cJSON *h = fs_history_list(db, copy, 10);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(h, 0), "type")->valuestring, "clone");
	cJSON_Delete(h);
	assert_int_equal(fs_set_rename(db, copy, 0, "Copy 2", uid, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_rename(db, copy, 0, "Base", uid, &cur, err, sizeof err), FS_DB_STALE);
	assert_int_equal(fs_set_rename(db, copy, cur, "Base", uid, &cur, err, sizeof err), FS_DB_CONSTRAINT);
	fs_set_info *list;
	size_t n;
	assert_int_equal(fs_set_list(db, image_id, &list, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(list[1].name, "Copy 2");
	free(list);
	assert_int_equal(fs_set_delete(db, copy, -1, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_delete(db, sid, -1, &cur, err, sizeof err), FS_DB_INVALID);
	assert_non_null(strstr(err, "last set"));
}

static void transform_moves_every_set(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long s1 = make_set(db, "A"), s2 = make_set(db, "B"), rev1 = 0, rev2 = 0, cur;
	int tid;
	fs_tubercle t = tub(10, 20, 3);
	assert_int_equal(fs_set_add_tubercle(db, s1, rev1, uid, &t, 0, &tid, &rev1, &cur, err, sizeof err), 0);
	t = tub(150, 90, 3);
	assert_int_equal(fs_set_add_tubercle(db, s2, rev2, uid, &t, 0, &tid, &rev2, &cur, err, sizeof err), 0);
	/* image is 200 x 100; rotate right: (x, y) -> (H - 1 - y, x) or similar, as image_transform says */
	fs_transform tr = {FS_TRANSFORM_ROTATE_RIGHT, 200, 100, {0, 0, 100, 200}};
	double ex, ey;
	fs_transform_point(&tr, 10, 20, &ex, &ey);
	assert_int_equal(fs_sets_apply_transform(db, image_id, &tr, uid, err, sizeof err), 0);
	fs_tubercle_list tl = {0};
	assert_int_equal(fs_set_load(db, s1, &tl, NULL), 0);
	assert_true(fabs(tl.items[0].centroid_x - ex) < 1e-9 && fabs(tl.items[0].centroid_y - ey) < 1e-9);
	fs_tubercle_list_free(&tl);
	fs_set_info info;
	assert_int_equal(fs_set_get_info(db, s1, &info), 0);
	assert_int_equal(info.revision, 2);
	assert_false(info.can_undo); /* the journal was in the old frame */
	cJSON *h = fs_history_list(db, s2, 10);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(h, 0), "type")->valuestring, "transform");
	cJSON_Delete(h);
	/* crop away s1's tubercle, keep s2's */
	fs_transform crop = {FS_TRANSFORM_CROP, 100, 200, {50, 100, 50, 100}};
	fs_tubercle_list t2 = {0};
	assert_int_equal(fs_set_load(db, s2, &t2, NULL), 0);
	double kx = t2.items[0].centroid_x, ky = t2.items[0].centroid_y;
	fs_tubercle_list_free(&t2);
	assert_int_equal(fs_sets_apply_transform(db, image_id, &crop, uid, err, sizeof err), 0);
	assert_int_equal(fs_set_get_info(db, s1, &info), 0);
	int keep1 = !(ex < 50 || ey < 100 || ex >= 100 || ey >= 200);
	assert_int_equal(info.n_tubercles, keep1);
	assert_int_equal(fs_set_get_info(db, s2, &info), 0);
	int keep2 = !(kx < 50 || ky < 100 || kx >= 100 || ky >= 200);
	assert_int_equal(info.n_tubercles, keep2);
}

static void calibration_change_updates_snapshots(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long s1 = make_set(db, "A");
	assert_int_equal(fs_sets_calibration_changed(db, image_id, 0, 0.25, "direct", uid, err, sizeof err), 0);
	fs_set_info info;
	assert_int_equal(fs_set_get_info(db, s1, &info), 0);
	assert_true(info.calibration_um_per_px == 0.25);
	assert_int_equal(info.revision, 1);
	cJSON *h = fs_history_list(db, s1, 10);
	cJSON *ev = cJSON_GetArrayItem(h, 0);
	assert_string_equal(cJSON_GetObjectItem(ev, "type")->valuestring, "calibration_change");
	assert_true(cJSON_GetObjectItem(ev, "new_um_per_px")->valuedouble == 0.25);
	cJSON_Delete(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(names_are_checked_and_unique, setup, teardown),
		cmocka_unit_test_setup_teardown(add_move_delete_with_revisions, setup, teardown),
		cmocka_unit_test_setup_teardown(undo_redo_restore_exact_state_and_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(hundred_and_fifty_undo_steps, setup, teardown),
		cmocka_unit_test_setup_teardown(replace_all_and_edges_are_single_steps, setup, teardown),
		cmocka_unit_test_setup_teardown(selective_undo_of_one_step, setup, teardown),
		cmocka_unit_test_setup_teardown(checkpoint_summarises_and_revert_goes_back, setup, teardown),
		cmocka_unit_test_setup_teardown(duplicate_rename_delete, setup, teardown),
		cmocka_unit_test_setup_teardown(transform_moves_every_set, setup, teardown),
		cmocka_unit_test_setup_teardown(calibration_change_updates_snapshots, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
