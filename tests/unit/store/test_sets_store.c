/* Unit tests for the annotation set store: edits, revisions, undo/redo,
 * each user's own undo, selective undo, checkpoints, transform frames and
 * calibration changes. */
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
#include "store/images_store.h"
#include "store/users.h"
#include "store/set_packed.h"
#include "analysis/measurement.h"

static char path[128];
static long long uid, image_id;

static int setup(void **state)
{
	fs_db *db = test_db_open_with_image("sets", path, sizeof path, &uid, &image_id);
	*state = db;
	return db ? 0 : -1;
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
	/* net: two of the five added are gone again, the moved one is new anyway */
	assert_string_equal(cJSON_GetObjectItem(ev, "summary")->valuestring, "+3 tubercles");
	assert_string_equal(cJSON_GetObjectItem(ev, "user")->valuestring, "Ann");
	cJSON_Delete(h);
	rev = info.revision;
	fs_tubercle t = tub(90, 90, 3);
	assert_int_equal(fs_set_add_tubercle(db, sid, rev, uid, &t, 0, &tid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_add_tubercle(db, sid, rev, uid, &t, 0, &tid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_revert(db, sid, rev, uid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_int_equal(info.n_tubercles, 3);
	/* reverted to the save: not unsaved any more */
	assert_int_equal(info.revision, info.clean_revision);
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

/* Puts the image's transform steps (a JSON array) and size, as image_steps.c does. */
static void image_steps(fs_db *db, const char *steps, int w, int h)
{
	char err[256];
	cJSON *a = cJSON_Parse(steps);
	fs_image_rec rec;
	assert_int_equal(fs_image_get(db, image_id, &rec), 0);
	assert_int_equal(fs_image_set_steps(db, image_id, rec.work_key, rec.work_key, w, h, 0, a), 0);
	cJSON_Delete(a);
	assert_int_equal(fs_sets_frame_changed(db, image_id, uid, "transform", NULL, err, sizeof err), 0);
}

static const fs_tubercle *find_tub(const fs_tubercle_list *l, int id)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].id == id)
			return &l->items[i];
	return NULL;
}

static void frames_hide_and_give_back_exactly(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long sid = make_set(db, "A"), rev = 0, cur;
	int tid;
	/* image 200 x 100: a outside what the crop below keeps, b c d inside */
	double pts[4][2] = {{10.25, 20.5}, {150, 90}, {120, 50}, {130, 70}};
	for (int i = 0; i < 4; i++) {
		fs_tubercle t = tub(pts[i][0], pts[i][1], 3 + i);
		if (i == 2) {
			t.has_ellipse = 1;
			t.major_axis_px = 8;
			t.minor_axis_px = 5;
			t.orientation = 0.3;
		}
		assert_int_equal(fs_set_add_tubercle(db, sid, rev, uid, &t, 0, &tid, &rev, &cur, err, sizeof err), 0);
	}
	assert_int_equal(fs_set_add_edge(db, sid, rev, uid, 1, 2, 0, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_add_edge(db, sid, rev, uid, 3, 4, 0, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_checkpoint(db, sid, rev, uid, "Ann", 0, &rev, err, sizeof err), 0);
	fs_tubercle_list t0 = {0};
	assert_int_equal(fs_set_load(db, sid, &t0, NULL), 0);
	/* rotate right (to 100 x 200), then crop 60 x 100 from (0, 100) */
	image_steps(db, "[{\"kind\":\"rotate_right\",\"src_width\":200,\"src_height\":100,\"x\":0,\"y\":0,"
			"\"width\":100,\"height\":200},{\"kind\":\"crop\",\"src_width\":100,\"src_height\":200,"
			"\"x\":0,\"y\":100,\"width\":60,\"height\":100}]", 60, 100);
	fs_set_info info;
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_int_equal(info.n_tubercles, 3);
	assert_int_equal(info.n_edges, 1); /* 1-2 is not shown: #1 is hidden */
	assert_int_equal(info.revision, rev + 1);
	assert_int_equal(info.revision, info.clean_revision); /* still saved */
	assert_true(info.can_undo);			      /* the journal stays */
	fs_tubercle_list tl = {0};
	fs_edge_list el = {0};
	assert_int_equal(fs_set_load(db, sid, &tl, &el), 0);
	assert_int_equal(tl.n, 3);
	assert_null(find_tub(&tl, 1));
	const fs_tubercle *c = find_tub(&tl, 3);
	assert_true(c->centroid_x == 49 && c->centroid_y == 20); /* (99 - 50, 120) - (0, 100) */
	assert_true(fabs(c->orientation - (0.3 - M_PI / 2)) < 1e-12);
	assert_int_equal(el.n, 1);
	fs_tubercle_list_free(&tl);
	fs_edge_list_free(&el);
	cJSON *h = fs_history_list(db, sid, 1);
	assert_int_equal((int)cJSON_GetObjectItem(cJSON_GetArrayItem(h, 0), "n_tubercles_hidden")->valuedouble, 1);
	cJSON_Delete(h);
	/* edits in the cropped frame: a hidden tubercle cannot be touched */
	fs_tubercle moved = tub(51, 21, 5);
	assert_int_equal(fs_set_update_tubercle(db, sid, -1, uid, 3, &moved, "move_tubercle", 0, &rev, &cur, err,
						 sizeof err), 0);
	assert_int_equal(fs_set_update_tubercle(db, sid, -1, uid, 1, &moved, "move_tubercle", 0, &rev, &cur, err,
						 sizeof err), FS_DB_INVALID);
	int four[] = {4};
	assert_int_equal(fs_set_set_radius(db, sid, -1, uid, four, 1, 9, &rev, &cur, err, sizeof err), 0);
	/* back to the original frame: the hidden tubercle as it was, bit for
	 * bit; the moved one mapped back; the resized one not moved at all */
	image_steps(db, "[]", 200, 100);
	assert_int_equal(fs_set_load(db, sid, &tl, &el), 0);
	assert_int_equal(tl.n, 4);
	assert_true(fs_tubercle_same(find_tub(&tl, 1), find_tub(&t0, 1)));
	assert_true(fs_tubercle_same(find_tub(&tl, 2), find_tub(&t0, 2)));
	c = find_tub(&tl, 3);
	assert_true(c->centroid_x == 121 && c->centroid_y == 48);
	const fs_tubercle *d = find_tub(&tl, 4);
	assert_true(d->centroid_x == 130 && d->centroid_y == 70 && d->radius_px == 9);
	assert_int_equal(el.n, 2);
	fs_tubercle_list_free(&tl);
	fs_edge_list_free(&el);
	/* a clear while cropped takes what is shown only; undo gives it back */
	image_steps(db, "[{\"kind\":\"crop\",\"src_width\":200,\"src_height\":100,\"x\":100,\"y\":0,"
			"\"width\":100,\"height\":100}]", 100, 100);
	assert_int_equal(fs_set_delete_items(db, sid, -1, uid, NULL, 0, NULL, 0, "clear_all", 0, &rev, &cur, err,
					      sizeof err), 0);
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_int_equal(info.n_tubercles, 0);
	image_steps(db, "[]", 200, 100);
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_int_equal(info.n_tubercles, 1); /* #1 was never shown, never cleared */
	assert_int_equal(fs_set_undo(db, sid, -1, uid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_int_equal(info.n_tubercles, 4);
	assert_int_equal(info.n_edges, 2);
	fs_tubercle_list_free(&t0);
}

/* The id of the set's oldest journal entry. */
static long long first_op_of(fs_db *db, long long sid)
{
	cJSON *j = fs_set_journal(db, sid, 100);
	long long id = (long long)cJSON_GetObjectItem(cJSON_GetArrayItem(j, cJSON_GetArraySize(j) - 1), "id")->valuedouble;
	cJSON_Delete(j);
	return id;
}

static void undo_and_redo_are_each_users_own(void **state)
{
	fs_db *db = *state;
	char err[400];
	long long bob, sid = make_set(db, "A"), rev, cur;
	assert_int_equal(fs_user_create(db, "bob", "Bob", 0, "bob-password", &bob, err, sizeof err), 0);
	int tid;
	fs_tubercle t = tub(10, 10, 3);
	assert_int_equal(fs_set_add_tubercle(db, sid, -1, uid, &t, 0, &tid, &rev, &cur, err, sizeof err), 0);
	t = tub(50, 10, 3);
	assert_int_equal(fs_set_add_tubercle(db, sid, -1, bob, &t, 0, &tid, &rev, &cur, err, sizeof err), 0);
	/* Ann's undo takes her step back, not Bob's newer one */
	assert_int_equal(fs_set_undo(db, sid, -1, uid, &rev, &cur, err, sizeof err), 0);
	fs_tubercle_list tl = {0};
	assert_int_equal(fs_set_load(db, sid, &tl, NULL), 0);
	assert_int_equal(tl.n, 1);
	assert_int_equal(tl.items[0].id, 2);
	fs_tubercle_list_free(&tl);
	int cu, cr;
	assert_int_equal(fs_set_user_stacks(db, sid, uid, &cu, &cr), 0);
	assert_true(!cu && cr);
	assert_int_equal(fs_set_user_stacks(db, sid, bob, &cu, &cr), 0);
	assert_true(cu && !cr);
	assert_int_equal(fs_set_redo(db, sid, -1, bob, &rev, &cur, err, sizeof err), FS_DB_INVALID);
	assert_int_equal(fs_set_redo(db, sid, -1, uid, &rev, &cur, err, sizeof err), 0);
	/* Bob moves Ann's tubercle: her add can no longer be undone, and she is told by whom */
	fs_tubercle m = tub(12, 12, 3);
	assert_int_equal(fs_set_update_tubercle(db, sid, -1, bob, 1, &m, "move_tubercle", 0, &rev, &cur, err,
						 sizeof err), 0);
	assert_int_equal(fs_set_undo(db, sid, -1, uid, &rev, &cur, err, sizeof err), FS_DB_INVALID);
	assert_non_null(strstr(err, "#1 has changed since (by Bob: Moved tubercle #1"));
	/* the journal says whose each step is and whether it can be undone */
	cJSON *j = fs_set_journal_for(db, sid, 10, uid);
	cJSON *newest = cJSON_GetArrayItem(j, 0);
	assert_string_equal(cJSON_GetObjectItem(newest, "user")->valuestring, "Bob");
	assert_false(cJSON_IsTrue(cJSON_GetObjectItem(newest, "mine")));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(newest, "can_undo")));
	cJSON *redo = cJSON_GetArrayItem(j, 1);
	assert_string_equal(cJSON_GetObjectItem(redo, "kind")->valuestring, "redo");
	assert_false(cJSON_IsTrue(cJSON_GetObjectItem(redo, "can_undo")));
	long long move_op = (long long)cJSON_GetObjectItem(newest, "id")->valuedouble;
	cJSON_Delete(j);
	/* Ann undoes Bob's move from the journal; that is now her newest step,
	 * so her Undo puts his move back and her Redo takes it away again */
	assert_int_equal(fs_set_undo_op(db, sid, move_op, uid, &rev, err, sizeof err), 0);
	fs_tubercle got;
	assert_int_equal(fs_set_load(db, sid, &tl, NULL), 0);
	got = *find_tub(&tl, 1);
	fs_tubercle_list_free(&tl);
	assert_true(got.centroid_x == 10);
	assert_int_equal(fs_set_undo(db, sid, -1, uid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_load(db, sid, &tl, NULL), 0);
	got = *find_tub(&tl, 1);
	fs_tubercle_list_free(&tl);
	assert_true(got.centroid_x == 12);
	assert_int_equal(fs_set_redo(db, sid, -1, uid, &rev, &cur, err, sizeof err), 0);
	j = fs_set_journal_for(db, sid, 20, bob);
	const cJSON *e;
	int seen = 0;
	cJSON_ArrayForEach(e, j)
	if ((long long)cJSON_GetObjectItem(e, "id")->valuedouble == move_op) {
		seen = 1;
		assert_string_equal(cJSON_GetObjectItem(e, "state")->valuestring, "reverted");
		assert_true(cJSON_IsTrue(cJSON_GetObjectItem(e, "mine")));
	}
	assert_true(seen);
	cJSON_Delete(j);
	/* now Ann's own add can go: #1 is as she left it */
	assert_int_equal(fs_set_undo_op(db, sid, first_op_of(db, sid), uid, &rev, err, sizeof err), 0);
	fs_set_info info;
	assert_int_equal(fs_set_get_info(db, sid, &info), 0);
	assert_int_equal(info.n_tubercles, 1); /* Bob's #2 */
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

/* A tubercle without a measured base is stored (r NULL, fit quality NULL
 * or a number), reads back as NaN, and its resize is undone exactly. */
static void unmeasured_radius_is_stored_as_null_and_undone_exactly(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long set_id, rev, cur;
	assert_int_equal(fs_set_create(db, image_id, "Base", uid, &set_id, err, sizeof err), 0);
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_tubercle a = tub(10, 10, NAN), b = tub(40, 10, 5);
	a.id = 1;
	a.fit_quality = 0.25;
	b.id = 2;
	b.fit_quality = NAN;
	assert_int_equal(fs_tubercle_list_append(&t, &a), 0);
	assert_int_equal(fs_tubercle_list_append(&t, &b), 0);
	fs_edge ed = {1, 2};
	assert_int_equal(fs_edge_list_append(&e, &ed), 0);
	assert_int_equal(fs_set_replace_all(db, set_id, -1, uid, &t, &e, NULL, "import", 0, &rev, &cur, err, sizeof err),
			 0);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	const fs_set_state *packed;
	assert_int_equal(fs_packed_state(db, set_id, &packed), 0);
	if (!packed) { /* as rows: the unmeasured radius is NULL */
		sqlite3_stmt *st;
		sqlite3_prepare_v2(fs_db_handle(db), "SELECT count(*) FROM tubercles WHERE set_id = ? AND r IS NULL", -1,
				   &st, NULL);
		sqlite3_bind_int64(st, 1, set_id);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(st, 0), 1);
		sqlite3_finalize(st);
	}
	assert_int_equal(fs_set_load(db, set_id, &t, &e), 0);
	assert_int_equal(t.n, 2);
	assert_true(isnan(t.items[0].radius_px));
	assert_float_equal(t.items[0].fit_quality, 0.25, 1e-12);
	assert_true(isnan(t.items[1].fit_quality));
	int tid = t.items[0].id;
	fs_tubercle grown = t.items[0];
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	grown.radius_px = 6;
	assert_int_equal(fs_set_update_tubercle(db, set_id, rev, uid, tid, &grown, "resize_tubercle", 0, &rev, &cur, err,
						sizeof err),
			 0);
	assert_int_equal(fs_set_undo(db, set_id, rev, uid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(fs_set_load(db, set_id, &t, &e), 0);
	assert_true(isnan(t.items[0].radius_px));
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
}

static int version_of(fs_db *db, long long set_id)
{
	fs_set_info info;
	assert_int_equal(fs_set_get_info(db, set_id, &info), 0);
	return info.measurement_version;
}

/* An extraction records the current measurement version, an import 0;
 * Re-measure changes sizes and version as one step, undone exactly. */
static void remeasure_is_one_step_with_the_version(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long set_id, rev, cur;
	assert_int_equal(fs_set_create(db, image_id, "Base", uid, &set_id, err, sizeof err), 0);
	assert_int_equal(version_of(db, set_id), FS_MEASUREMENT_VERSION);
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_tubercle a = tub(10, 10, 3), b = tub(40, 10, 5);
	a.id = 1;
	b.id = 2;
	assert_int_equal(fs_tubercle_list_append(&t, &a), 0);
	assert_int_equal(fs_tubercle_list_append(&t, &b), 0);
	fs_edge ed = {1, 2};
	assert_int_equal(fs_edge_list_append(&e, &ed), 0);
	assert_int_equal(fs_set_replace_all(db, set_id, -1, uid, &t, &e, NULL, "import", 0, &rev, &cur, err, sizeof err),
			 0);
	assert_int_equal(version_of(db, set_id), 0);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	assert_int_equal(fs_set_load(db, set_id, &t, &e), 0);
	fs_tubercle_list old = {0};
	for (size_t i = 0; i < t.n; i++)
		assert_int_equal(fs_tubercle_list_append(&old, &t.items[i]), 0);
	t.items[0].radius_px = 4;
	t.items[1].radius_px = NAN;
	int changed = 0, unmeasured = 0;
	assert_int_equal(fs_set_remeasure(db, set_id, rev, uid, &t, FS_MEASUREMENT_VERSION, &changed, &unmeasured,
					  &rev, &cur, err, sizeof err),
			 0);
	assert_int_equal(changed, 2);
	assert_int_equal(unmeasured, 1);
	assert_int_equal(version_of(db, set_id), FS_MEASUREMENT_VERSION);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	assert_int_equal(fs_set_load(db, set_id, &t, &e), 0);
	assert_true(t.items[0].radius_px == 4 && isnan(t.items[1].radius_px));
	assert_true(t.items[0].centroid_x == old.items[0].centroid_x && e.n == 1);
	/* nothing left to do: refused */
	assert_int_equal(fs_set_remeasure(db, set_id, rev, uid, &t, FS_MEASUREMENT_VERSION, NULL, NULL, &rev, &cur, err,
					  sizeof err),
			 FS_DB_INVALID);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	assert_int_equal(fs_set_undo(db, set_id, rev, uid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(version_of(db, set_id), 0);
	assert_int_equal(fs_set_load(db, set_id, &t, &e), 0);
	for (size_t i = 0; i < t.n; i++)
		assert_true(fs_tubercle_same(&t.items[i], &old.items[i]));
	assert_int_equal(fs_set_redo(db, set_id, rev, uid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(version_of(db, set_id), FS_MEASUREMENT_VERSION);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	fs_tubercle_list_free(&old);
}

/* The same content as rows and packed (set_packed.h): loads, counts and
 * every later edit, undo and duplicate alike, to the last bit. */
static void packed_sets_read_and_edit_as_rows_do(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long ids[2] = {make_set(db, "Rows"), make_set(db, "Packed")}, rev[2] = {0, 0}, cur;
	fs_tubercle_list tl = {0};
	fs_edge_list el = {0};
	for (int i = 0; i < 40; i++) {
		fs_tubercle t = tub(3 + 4.25 * i, 7 + (i % 5) * 3.5, 1.5 + 0.01 * i);
		t.id = i + 1;
		t.source = FS_SOURCE_EXTRACTED;
		t.fit_quality = (i % 3) ? 0.5 + i * 0.01 : NAN;
		if (i % 4 == 0)
			t.radius_px = NAN;
		if (i % 2) {
			t.has_ellipse = 1;
			t.major_axis_px = 4.1;
			t.minor_axis_px = 3.3 + i * 0.001;
			t.orientation = 0.25 * i;
			t.eccentricity = 0.6;
		}
		fs_tubercle_list_append(&tl, &t);
		if (i) {
			fs_edge e = {i, i + 1};
			fs_edge_list_append(&el, &e);
		}
	}
	fs_params p;
	fs_params_default(&p);
	for (int k = 0; k < 2; k++) {
		fs_packed_set_min(k ? 1 : 1000000);
		assert_int_equal(fs_set_replace_all(db, ids[k], rev[k], uid, &tl, &el, &p, "extraction", 0, &rev[k], &cur,
						    err, sizeof err), 0);
	}
	fs_packed_set_min(1000000);
	const fs_set_state *pk;
	assert_int_equal(fs_packed_state(db, ids[0], &pk), 0);
	assert_null(pk);
	assert_int_equal(fs_packed_state(db, ids[1], &pk), 0);
	assert_non_null(pk);
	/* the same edits on both: move, add, connect, delete, undo, redo */
	for (int k = 0; k < 2; k++) {
		fs_tubercle_list t = {0};
		fs_edge_list e = {0};
		assert_int_equal(fs_set_load(db, ids[k], &t, &e), 0);
		fs_tubercle moved = t.items[5];
		moved.centroid_x += 1.5;
		assert_int_equal(fs_set_update_tubercle(db, ids[k], rev[k], uid, moved.id, &moved, "move", 0, &rev[k],
							&cur, err, sizeof err), 0);
		int nid = 0;
		fs_tubercle add = tub(150, 20, 2);
		assert_int_equal(fs_set_add_tubercle(db, ids[k], rev[k], uid, &add, 0, &nid, &rev[k], &cur, err,
						     sizeof err), 0);
		assert_int_equal(fs_set_add_edge(db, ids[k], rev[k], uid, t.items[0].id, nid, 0, &rev[k], &cur, err,
						 sizeof err), 0);
		/* a connection twice is refused alike */
		assert_int_equal(fs_set_add_edge(db, ids[k], rev[k], uid, t.items[0].id, nid, 0, &rev[k], &cur, err,
						 sizeof err), FS_DB_INVALID);
		int del[2] = {t.items[10].id, t.items[11].id};
		assert_int_equal(fs_set_delete_items(db, ids[k], rev[k], uid, del, 2, NULL, 0, "delete", 0, &rev[k], &cur,
						     err, sizeof err), 0);
		assert_int_equal(fs_set_undo(db, ids[k], rev[k], uid, &rev[k], &cur, err, sizeof err), 0);
		assert_int_equal(fs_set_redo(db, ids[k], rev[k], uid, &rev[k], &cur, err, sizeof err), 0);
		fs_tubercle_list_free(&t);
		fs_edge_list_free(&e);
	}
	fs_tubercle_list a = {0}, b = {0};
	fs_edge_list ea = {0}, eb = {0};
	assert_int_equal(fs_set_load(db, ids[0], &a, &ea), 0);
	assert_int_equal(fs_set_load(db, ids[1], &b, &eb), 0);
	assert_int_equal(a.n, b.n);
	assert_int_equal(ea.n, eb.n);
	for (size_t i = 0; i < a.n; i++) {
		assert_true(fs_tubercle_same(&a.items[i], &b.items[i]));
		assert_int_equal(a.items[i].is_boundary, b.items[i].is_boundary);
		assert_memory_equal(&a.items[i].major_axis_px, &b.items[i].major_axis_px, sizeof(double));
	}
	assert_memory_equal(ea.items, eb.items, ea.n * sizeof *ea.items);
	fs_set_info ia, ib;
	assert_int_equal(fs_set_get_info(db, ids[0], &ia), 0);
	assert_int_equal(fs_set_get_info(db, ids[1], &ib), 0);
	assert_int_equal(ia.n_tubercles, ib.n_tubercles);
	assert_int_equal(ia.n_edges, ib.n_edges);
	assert_int_equal(ia.revision, ib.revision);
	/* a duplicate of the packed set is packed and the same */
	long long dup = 0;
	assert_int_equal(fs_set_duplicate(db, ids[1], "Copy", uid, &dup, err, sizeof err), 0);
	fs_tubercle_list c = {0};
	fs_edge_list ec = {0};
	assert_int_equal(fs_set_load(db, dup, &c, &ec), 0);
	assert_int_equal(c.n, b.n);
	assert_int_equal(ec.n, eb.n);
	/* undoing the extraction itself empties both alike */
	for (int k = 0; k < 2; k++) {
		for (int s = 0; s < 6; s++)
			if (fs_set_undo(db, ids[k], rev[k], uid, &rev[k], &cur, err, sizeof err))
				break;
		fs_set_info info;
		assert_int_equal(fs_set_get_info(db, ids[k], &info), 0);
		assert_int_equal(info.n_tubercles, 0);
		assert_int_equal(info.n_edges, 0);
	}
	fs_tubercle_list_free(&a);
	fs_tubercle_list_free(&b);
	fs_tubercle_list_free(&c);
	fs_edge_list_free(&ea);
	fs_edge_list_free(&eb);
	fs_edge_list_free(&ec);
	fs_tubercle_list_free(&tl);
	fs_edge_list_free(&el);
}

/* n tubercles with every bit of their numbers in use (a detection's), ids from id0. */
static void detected(fs_tubercle_list *l, int n, int id0, double shift)
{
	for (int i = 0; i < n; i++) {
		fs_tubercle t = tub(3 + 7.0 / 3 * (i % 60) + shift, 5 + 2.0 / 7 * i, 2 + sqrt(i + 1) / 9);
		t.id = id0 + i;
		t.source = FS_SOURCE_EXTRACTED;
		t.circularity = 1 / sqrt(1 + i);
		t.fit_quality = i % 3 ? 1 / (1 + 1.0 / (i + 3)) : NAN;
		if (i % 2) {
			t.has_ellipse = 1;
			t.major_axis_px = 4 + log1p(i);
			t.minor_axis_px = 3 + log1p(i) / 2;
			t.orientation = sin(i);
			t.eccentricity = cos(i) * cos(i);
		}
		fs_tubercle_list_append(l, &t);
	}
}

/* The set holds want's tubercles in their order, to the bit (the ids are
 * the set's: a replacement numbers them after the ones it removes). */
static void same_tubercles(fs_db *db, long long sid, const fs_tubercle_list *want)
{
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	assert_int_equal(fs_set_load(db, sid, &t, &e), 0);
	assert_int_equal(t.n, want->n);
	for (size_t i = 0; i < t.n; i++) {
		fs_tubercle w = want->items[i];
		w.id = t.items[i].id;
		assert_true(fs_tubercle_same(&t.items[i], &w));
	}
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
}

/* A re-extraction's step is large (every tubercle removed and added): it is
 * stored compressed ("FSZ1", set_rows.c), and undo and redo read it back to
 * the last bit of every number. */
static void large_step_is_compressed_and_undone_exactly(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long sid = make_set(db, "Large"), rev = 0, cur;
	fs_tubercle_list first = {0}, second = {0};
	fs_edge_list none = {0};
	detected(&first, 1500, 1, 0);
	detected(&second, 1600, 1, 0.125);
	fs_params p;
	fs_params_default(&p);
	assert_int_equal(fs_set_replace_all(db, sid, rev, uid, &first, &none, &p, "extraction", 0, &rev, &cur, err,
					    sizeof err), 0);
	assert_int_equal(fs_set_replace_all(db, sid, rev, uid, &second, &none, &p, "extraction", 0, &rev, &cur, err,
					    sizeof err), 0);
	sqlite3_stmt *st = NULL;
	sqlite3_prepare_v2(fs_db_handle(db), "SELECT diff FROM set_ops WHERE set_id = ? ORDER BY id DESC LIMIT 1", -1,
			   &st, NULL);
	assert_non_null(st);
	sqlite3_bind_int64(st, 1, sid);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_type(st, 0), SQLITE_BLOB);
	assert_true(sqlite3_column_bytes(st, 0) > 12);
	assert_memory_equal(sqlite3_column_blob(st, 0), "FSZ1", 4);
	sqlite3_finalize(st);
	same_tubercles(db, sid, &second);
	assert_int_equal(fs_set_undo(db, sid, rev, uid, &rev, &cur, err, sizeof err), 0);
	same_tubercles(db, sid, &first);
	assert_int_equal(fs_set_redo(db, sid, rev, uid, &rev, &cur, err, sizeof err), 0);
	same_tubercles(db, sid, &second);
	fs_tubercle_list_free(&first);
	fs_tubercle_list_free(&second);
}

/* The whole suite once more with every replaced set packed. */
static int pack_every_replacement(void **state)
{
	(void)state;
	fs_packed_set_min(1);
	return 0;
}

static int pack_large_only(void **state)
{
	(void)state;
	fs_packed_set_min(5000);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(names_are_checked_and_unique, setup, teardown),
		cmocka_unit_test_setup_teardown(unmeasured_radius_is_stored_as_null_and_undone_exactly, setup, teardown),
		cmocka_unit_test_setup_teardown(remeasure_is_one_step_with_the_version, setup, teardown),
		cmocka_unit_test_setup_teardown(add_move_delete_with_revisions, setup, teardown),
		cmocka_unit_test_setup_teardown(undo_redo_restore_exact_state_and_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(hundred_and_fifty_undo_steps, setup, teardown),
		cmocka_unit_test_setup_teardown(replace_all_and_edges_are_single_steps, setup, teardown),
		cmocka_unit_test_setup_teardown(selective_undo_of_one_step, setup, teardown),
		cmocka_unit_test_setup_teardown(checkpoint_summarises_and_revert_goes_back, setup, teardown),
		cmocka_unit_test_setup_teardown(duplicate_rename_delete, setup, teardown),
		cmocka_unit_test_setup_teardown(frames_hide_and_give_back_exactly, setup, teardown),
		cmocka_unit_test_setup_teardown(undo_and_redo_are_each_users_own, setup, teardown),
		cmocka_unit_test_setup_teardown(calibration_change_updates_snapshots, setup, teardown),
		cmocka_unit_test_setup_teardown(packed_sets_read_and_edit_as_rows_do, setup, teardown),
		cmocka_unit_test_setup_teardown(large_step_is_compressed_and_undone_exactly, setup, teardown),
	};
	int failed = cmocka_run_group_tests_name("sets", tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("sets, replacements packed", tests, pack_every_replacement,
					      pack_large_only);
	return failed;
}
