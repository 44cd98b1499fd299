/*
 * test_databar_store.c - the end of a data-bar reading (app/databar_store.h):
 * the reading and the calibration the owner's setting asks for become
 * visible together, so a page that stops looking once the reading is done
 * cannot miss the calibration; and the calibration is applied only when
 * it may be (setting on, image uncalibrated, reading confident, agreeing
 * with the file metadata).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "app/databar_store.h"
#include "test_db.h"

/* The JEOL fixture's reading: 20 µm = 139 px, confident. */
static void reading(fs_databar_suggestion *s)
{
	memset(s, 0, sizeof *s);
	s->bar.found = 1;
	s->reading.found = 1;
	s->reading.has_scale = 1;
	s->reading.label_value = 20;
	s->reading.label_um = 20;
	s->reading.bar_px = 139;
	s->reading.um_per_px = 20.0 / 139;
	s->reading.confidence = 0.93;
	snprintf(s->reading.source, sizeof s->reading.source, "scale bar 20 µm = 139.0 px");
	s->auto_ok = 1;
}

typedef struct {
	fs_db *db;
	char path[256];
	long long uid, image_id;
	sqlite3 *observer; /* a second connection: what any other process sees */
	char seen[8][16];  /* the observer's reading state at each write to images */
	int n_seen;
} world;

static void open_world(world *w, const char *tag, int auto_on)
{
	memset(w, 0, sizeof *w);
	w->db = test_db_open_with_image(tag, w->path, sizeof w->path, &w->uid, &w->image_id);
	assert_non_null(w->db);
	char err[256];
	long long set_id;
	assert_int_equal(fs_set_create(w->db, w->image_id, "Base", w->uid, &set_id, err, sizeof err), 0);
	if (auto_on) {
		cJSON *p = cJSON_Parse("{\"auto_calibrate_data_bar\": true}");
		assert_int_equal(fs_settings_put(w->db, w->uid, p, err, sizeof err), 0);
		cJSON_Delete(p);
	}
	assert_int_equal(fs_image_databar_pending(w->db, w->image_id), 0);
	assert_int_equal(sqlite3_open_v2(w->path, &w->observer, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
}

static void close_world(world *w)
{
	sqlite3_update_hook(fs_db_handle(w->db), NULL, NULL);
	sqlite3_close(w->observer);
	fs_db_close(w->db);
	test_db_remove(w->path);
}

/* The reading's state as the observer sees it (committed data only). */
static void observed_state(world *w, char *out, size_t outlen)
{
	sqlite3_stmt *st = NULL;
	snprintf(out, outlen, "?");
	if (sqlite3_prepare_v2(w->observer, "SELECT state FROM image_databar WHERE image_id = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, w->image_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(out, outlen, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

/* Every write to the images table (the calibration): what others see meanwhile. */
static void on_update(void *arg, int op, const char *dbname, const char *table, sqlite3_int64 rowid)
{
	(void)op, (void)dbname;
	world *w = arg;
	if (strcmp(table, "images") || rowid != w->image_id || w->n_seen >= 8)
		return;
	observed_state(w, w->seen[w->n_seen], sizeof w->seen[0]);
	w->n_seen++;
}

static int store(world *w, fs_image_rec *rec, const fs_databar_suggestion *s, int *applied)
{
	char err[256];
	sqlite3_update_hook(fs_db_handle(w->db), on_update, w);
	int rc = fs_databar_store_reading(w->db, rec, s, applied, err, sizeof err);
	sqlite3_update_hook(fs_db_handle(w->db), NULL, NULL);
	return rc;
}

static void reading_and_calibration_become_visible_together(void **state)
{
	(void)state;
	world w;
	open_world(&w, "databar_store_together", 1);
	fs_image_rec rec;
	assert_int_equal(fs_image_get(w.db, w.image_id, &rec), 0);
	fs_databar_suggestion s;
	reading(&s);
	int applied = 0;
	assert_int_equal(store(&w, &rec, &s, &applied), 0);
	assert_true(applied);
	/* while the calibration was written, others still saw the reading
	 * pending (before: already done, and the page stopped looking) */
	assert_true(w.n_seen >= 1);
	for (int i = 0; i < w.n_seen; i++)
		assert_string_equal(w.seen[i], "pending");
	char now[16];
	observed_state(&w, now, sizeof now);
	assert_string_equal(now, "done");
	fs_image_rec after;
	assert_int_equal(fs_image_get(w.db, w.image_id, &after), 0);
	assert_true(fabs(after.um_per_px - 20.0 / 139) < 1e-12);
	assert_string_equal(after.calibration_method, "data_bar");
	close_world(&w);
}

/* Not applied: the reading alone is stored, the image left as it was. */
static void expect_not_applied(world *w, fs_image_rec *rec, const fs_databar_suggestion *s, double um_before)
{
	int applied = 1;
	assert_int_equal(store(w, rec, s, &applied), 0);
	assert_false(applied);
	char now[16];
	observed_state(w, now, sizeof now);
	assert_string_equal(now, "done");
	fs_image_rec after;
	assert_int_equal(fs_image_get(w->db, w->image_id, &after), 0);
	assert_true(after.um_per_px == um_before);
}

static void applied_only_when_the_setting_is_on(void **state)
{
	(void)state;
	world w;
	open_world(&w, "databar_store_off", 0);
	fs_image_rec rec;
	assert_int_equal(fs_image_get(w.db, w.image_id, &rec), 0);
	fs_databar_suggestion s;
	reading(&s);
	expect_not_applied(&w, &rec, &s, 0);
	close_world(&w);
}

static void the_owners_calibration_made_meanwhile_wins(void **state)
{
	(void)state;
	world w;
	open_world(&w, "databar_store_owner", 1);
	fs_image_rec rec; /* as the reader saw it when it began: uncalibrated */
	assert_int_equal(fs_image_get(w.db, w.image_id, &rec), 0);
	assert_int_equal(fs_image_set_calibration(w.db, w.image_id, 0.2, "direct"), 0);
	fs_databar_suggestion s;
	reading(&s);
	expect_not_applied(&w, &rec, &s, 0.2);
	close_world(&w);
}

static void not_applied_unconfident_or_against_the_metadata(void **state)
{
	(void)state;
	world w;
	open_world(&w, "databar_store_flags", 1);
	fs_image_rec rec;
	assert_int_equal(fs_image_get(w.db, w.image_id, &rec), 0);
	fs_databar_suggestion s;
	reading(&s);
	s.auto_ok = 0;
	expect_not_applied(&w, &rec, &s, 0);
	/* the file's own pixel size 3 % away: a person decides */
	reading(&s);
	rec.suggested_um_per_px = s.reading.um_per_px * 1.03;
	expect_not_applied(&w, &rec, &s, 0);
	/* within 2 % it agrees, and is applied */
	rec.suggested_um_per_px = s.reading.um_per_px * 1.01;
	int applied = 0;
	assert_int_equal(store(&w, &rec, &s, &applied), 0);
	assert_true(applied);
	close_world(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reading_and_calibration_become_visible_together),
		cmocka_unit_test(applied_only_when_the_setting_is_on),
		cmocka_unit_test(the_owners_calibration_made_meanwhile_wins),
		cmocka_unit_test(not_applied_unconfident_or_against_the_metadata),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
