/*
 * test_image_databar.c - the stored data-bar reading of an image
 * (store/image_databar.h): pending, done with its JSON, failed, replaced by
 * a new reading, absent for an image never read, gone with the image.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "store/store.h"
#include "test_db.h"

static long long image(fs_db *db, long long owner)
{
	fs_image_rec rec;
	memset(&rec, 0, sizeof rec);
	rec.owner_id = owner;
	snprintf(rec.file_sha256, sizeof rec.file_sha256, "%s",
		 "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd");
	fs_work_key_initial(rec.file_sha256, 0, rec.work_key);
	snprintf(rec.original_name, sizeof rec.original_name, "sem.tif");
	snprintf(rec.format, sizeof rec.format, "tiff");
	rec.width = 1280, rec.height = 960, rec.bit_depth = 8, rec.channels = 1, rec.n_pages = 1;
	assert_int_equal(fs_image_insert(db, &rec, 123), 0);
	return rec.id;
}

static void states_and_result(void **state)
{
	(void)state;
	char path[256];
	fs_db *db = test_db_open("image_databar", path, sizeof path);
	assert_non_null(db);
	long long uid;
	char err[128];
	assert_int_equal(fs_user_create(db, "ann", "ann", 0, NULL, &uid, err, sizeof err), 0);
	long long id = image(db, uid);
	fs_image_databar *row = calloc(1, sizeof *row);
	assert_non_null(row);
	assert_int_equal(fs_image_databar_get(db, id, row), FS_DB_NOTFOUND);

	assert_int_equal(fs_image_databar_pending(db, id), 0);
	assert_int_equal(fs_image_databar_get(db, id, row), 0);
	assert_string_equal(row->state, "pending");
	assert_string_equal(row->result, "{}");
	assert_true(row->um_per_px == 0);

	cJSON *res = cJSON_Parse("{\"found\":true,\"has_scale\":true,\"source\":\"scale bar 20 µm = 139.0 px\"}");
	assert_int_equal(fs_image_databar_done(db, id, res, 20.0 / 139, 0.93), 0);
	cJSON_Delete(res);
	assert_int_equal(fs_image_databar_get(db, id, row), 0);
	assert_string_equal(row->state, "done");
	assert_true(row->um_per_px == 20.0 / 139 && row->confidence == 0.93);
	cJSON *back = cJSON_Parse(row->result);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(back, "source")), "scale bar 20 µm = 139.0 px");
	cJSON_Delete(back);

	/* a new reading replaces it; a failure says why and keeps no value */
	assert_int_equal(fs_image_databar_failed(db, id, "cannot start Tesseract"), 0);
	assert_int_equal(fs_image_databar_get(db, id, row), 0);
	assert_string_equal(row->state, "failed");
	assert_string_equal(row->error, "cannot start Tesseract");
	assert_true(row->um_per_px == 0);

	/* gone with the image; an unknown image cannot get a row */
	assert_int_equal(fs_db_exec_id(db, "DELETE FROM images WHERE id = ?", id), 0);
	assert_int_equal(fs_image_databar_get(db, id, row), FS_DB_NOTFOUND);
	assert_true(fs_image_databar_pending(db, id + 100) != 0);
	free(row);
	fs_db_close(db);
	test_db_remove(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(states_and_result),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
