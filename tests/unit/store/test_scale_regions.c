/*
 * Stored scale regions (store/scale_regions.h): the automatic region is
 * computed once and cached per working image; a person's region wins,
 * belongs to its working image (another key gets its own), and its change
 * is an image-level event plus a scale_region_changed entry in every set's
 * history; a reset goes back to automatic; fs_set_load marks tubercles at
 * the region's inner edge as boundary.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/db.h"
#include "store/eventlog.h"
#include "store/images_store.h"
#include "store/scale_regions.h"
#include "store/sets_store.h"
#include "store/users.h"
#include "test_db.h"

static char path[128];
static long long uid, image_id;

static int setup(void **state)
{
	fs_db *db = test_db_open_with_image("scale_regions", path, sizeof path, &uid, &image_id);
	*state = db;
	return db ? 0 : -1;
}

static int teardown(void **state)
{
	fs_db_close(*state);
	test_db_remove(path);
	return 0;
}

/* 200 x 100, grey texture, rows 0..29 white paper */
static fs_image *banded(void)
{
	fs_image *img = fs_image_new(200, 100);
	for (int y = 0; y < 100; y++)
		for (int x = 0; x < 200; x++)
			img->data[y * 200 + x] = y < 30 ? 0.97f : 0.3f + 0.3f * (((x * 7 + y * 13) % 11) / 10.0f);
	return img;
}

static void auto_is_cached_user_wins_and_is_logged(void **state)
{
	fs_db *db = *state;
	char err[256];
	long long sid;
	assert_int_equal(fs_set_create(db, image_id, "A", uid, &sid, err, sizeof err), 0);
	/* a 5 x 3 grid of tubercles at x 40..160, y 40..80 */
	int tid;
	long long rev;
	for (int gy = 0; gy < 3; gy++)
		for (int gx = 0; gx < 5; gx++) {
			fs_tubercle t = {.centroid_x = 40 + 30 * gx, .centroid_y = 40 + 20 * gy, .radius_px = 3,
					 .circularity = 1, .source = FS_SOURCE_MANUAL};
			assert_int_equal(fs_set_add_tubercle(db, sid, -1, uid, &t, 0, &tid, &rev, NULL, err,
							     sizeof err),
					 0);
		}
	/* nothing stored yet: no image, no region */
	fs_scale_region r;
	fs_scale_region_meta meta;
	assert_int_equal(fs_scale_region_for(db, image_id, "k", NULL, &r, &meta, err, sizeof err), FS_DB_NOTFOUND);

	fs_image *img = banded();
	assert_int_equal(fs_scale_region_for(db, image_id, "k", img, &r, &meta, err, sizeof err), 0);
	assert_false(meta.user);
	assert_false(fs_scale_region_contains(&r, 100, 10));
	assert_true(fs_scale_region_contains(&r, 100, 60));
	fs_scale_region_free(&r);
	/* cached: found without the image */
	assert_int_equal(fs_scale_region_for(db, image_id, "k", NULL, &r, &meta, err, sizeof err), 0);
	assert_false(fs_scale_region_contains(&r, 100, 10));
	fs_scale_region_free(&r);
	/* fs_set_load: the middle tubercle (100, 60) is inside the hull */
	fs_tubercle_list tl = {0};
	assert_int_equal(fs_set_load(db, sid, &tl, NULL), 0);
	assert_int_equal(tl.n, 15);
	assert_false(tl.items[7].is_boundary);
	fs_tubercle_list_free(&tl);
	/* a person's region: everything but the left 30 px and a hole at
	 * x 104..129, y 50..69 (cells of 2 px) */
	assert_int_equal(fs_scale_region_init_full(&r, 200, 100, 0, err, sizeof err), 0);
	for (int gy = 0; gy < r.gh; gy++)
		memset(r.in + gy * r.gw, 0, 15);
	for (int gy = 25; gy < 35; gy++)
		memset(r.in + gy * r.gw + 52, 0, 13);
	assert_int_equal(fs_scale_region_change(db, image_id, "k", uid, &r, "drawn", err, sizeof err), 0);
	fs_scale_region_free(&r);
	assert_int_equal(fs_scale_region_for(db, image_id, "k", img, &r, &meta, err, sizeof err), 0);
	assert_true(meta.user);
	assert_int_equal(meta.user_id, uid);
	assert_true(r.user);
	assert_false(fs_scale_region_contains(&r, 20, 60));
	assert_true(fs_scale_region_contains(&r, 150, 10));
	fs_scale_region_free(&r);
	/* now (100, 60) is 3.5 px from the hole: a boundary tubercle */
	assert_int_equal(fs_set_load(db, sid, &tl, NULL), 0);
	assert_true(tl.items[7].is_boundary);
	assert_false(tl.items[6].is_boundary); /* (70, 60): 33.5 px from it */
	fs_tubercle_list_free(&tl);
	/* another working image has its own (automatic) */
	assert_int_equal(fs_scale_region_for(db, image_id, "k2", img, &r, &meta, err, sizeof err), 0);
	assert_false(meta.user);
	fs_scale_region_free(&r);
	assert_int_equal(fs_scale_region_for(db, image_id, "k", img, &r, &meta, err, sizeof err), 0);
	assert_true(meta.user);
	fs_scale_region_free(&r);

	/* the set's history and the event log */
	cJSON *h = fs_history_list(db, sid, 5);
	assert_non_null(h);
	const cJSON *first = cJSON_GetArrayItem(h, 0);
	assert_string_equal(cJSON_GetObjectItem(first, "type")->valuestring, "scale_region_changed");
	cJSON_Delete(h);
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(fs_db_handle(db),
					    "SELECT count(*) FROM events WHERE event_type = 'scale_region_changed' "
					    "AND image_id = ?",
					    -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_int64(st, 1, image_id);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 1);
	sqlite3_finalize(st);

	/* reset: back to automatic */
	assert_int_equal(fs_scale_region_change(db, image_id, "k", uid, NULL, "reset", err, sizeof err), 0);
	assert_int_equal(fs_scale_region_for(db, image_id, "k", img, &r, &meta, err, sizeof err), 0);
	assert_false(meta.user);
	assert_false(fs_scale_region_contains(&r, 100, 10));
	assert_true(fs_scale_region_contains(&r, 20, 60));
	fs_scale_region_free(&r);
	fs_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(auto_is_cached_user_wins_and_is_logged),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
