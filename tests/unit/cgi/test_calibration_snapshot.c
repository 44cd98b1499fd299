/*
 * test_calibration_snapshot.c - GET /api/images/{id}/calibration reads the
 * image's calibration and its data-bar reading in one snapshot: a reader
 * that stores the reading and the calibration it brings (one transaction,
 * app/databar_store.h) between the handler's two reads never makes the
 * answer say "done" without the calibration. The Calibration tab stops
 * looking at "done", so such an answer left it uncalibrated for good.
 *
 * The reader is played exactly there: a statement trace on the handler's
 * connection commits the reading from a second connection as the handler
 * starts to read the data-bar row.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/databar_store.h"
#include "fake_site.h"

typedef struct world {
	fs_fake_site site;
	long long image_id;
	fs_db *reader; /* the background reader's own connection */
	int stored;    /* the reader has stored its reading */
} world;

/* The reader finishes: the JEOL fixture's confident 20 µm = 139 px. */
static void reader_stores(world *x)
{
	fs_image_rec rec;
	assert_int_equal(fs_image_get(x->reader, x->image_id, &rec), 0);
	fs_databar_suggestion s;
	memset(&s, 0, sizeof s);
	s.bar.found = s.reading.found = s.reading.has_scale = 1;
	s.reading.label_value = s.reading.label_um = 20;
	s.reading.bar_px = 139;
	s.reading.um_per_px = 20.0 / 139;
	s.reading.confidence = 0.93;
	s.auto_ok = 1;
	int applied = 0;
	char err[256];
	assert_int_equal(fs_databar_store_reading(x->reader, &rec, &s, &applied, err, sizeof err), 0);
	assert_true(applied);
	x->stored = 1;
}

/* Statement trace of the handler's connection: the reader commits just as
 * the handler starts reading the data-bar row (after the image row). */
static int on_statement(unsigned type, void *ctx, void *stmt, void *sql)
{
	(void)stmt;
	world *x = ctx;
	if (type == SQLITE_TRACE_STMT && !x->stored && strstr((const char *)sql, "FROM image_databar"))
		reader_stores(x);
	return 0;
}

static int setup(void **state)
{
	world *x = calloc(1, sizeof *x);
	char err[512];
	fs_image_rec rec;
	if (!x || fs_fake_site_open(&x->site, "calsnap") || fs_fake_site_image(&x->site, 7, "sem.tif", 1280, 960, &rec))
		return -1;
	cJSON *on = cJSON_Parse("{\"auto_calibrate_data_bar\": true}");
	int rc = fs_settings_put(x->site.app.db, x->site.uid, on, err, sizeof err) ||
		 fs_image_databar_pending(x->site.app.db, rec.id);
	cJSON_Delete(on);
	if (rc)
		return -1;
	x->image_id = rec.id;
	x->reader = fs_fake_site_connect(&x->site);
	if (!x->reader)
		return -1;
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	world *x = *state;
	sqlite3_trace_v2(fs_db_handle(x->site.app.db), 0, NULL, NULL);
	fs_db_close(x->reader);
	fs_fake_site_close(&x->site);
	free(x);
	return 0;
}

/* GET the calibration answer: calibration set?, and the reading's state. */
static void get(world *x, int *calibrated, char *state, size_t statelen)
{
	char uri[128];
	int status;
	snprintf(uri, sizeof uri, "/api/images/%lld/calibration", x->image_id);
	cJSON *j = fs_fake_site_get(&x->site, uri, &status);
	assert_int_equal(status, 200);
	assert_non_null(j);
	*calibrated = cJSON_IsObject(cJSON_GetObjectItem(j, "calibration"));
	snprintf(state, statelen, "%s",
		 cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "data_bar"), "state")));
	cJSON_Delete(j);
}

static void an_answer_never_shows_the_reading_done_without_its_calibration(void **state)
{
	world *x = *state;
	sqlite3_trace_v2(fs_db_handle(x->site.app.db), SQLITE_TRACE_STMT, on_statement, x);
	int calibrated;
	char st[16];
	get(x, &calibrated, st, sizeof st);
	sqlite3_trace_v2(fs_db_handle(x->site.app.db), 0, NULL, NULL);
	assert_true(x->stored); /* the reader did commit between the two reads */
	/* the answer is the one moment before the reader: pending, uncalibrated
	 * (before: "done" from after it with the calibration from before it) */
	assert_string_equal(st, "pending");
	assert_false(calibrated);
	/* and the next look sees both */
	get(x, &calibrated, st, sizeof st);
	assert_string_equal(st, "done");
	assert_true(calibrated);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(an_answer_never_shows_the_reading_done_without_its_calibration),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
