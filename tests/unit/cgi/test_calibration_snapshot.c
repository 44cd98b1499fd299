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

#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "app/databar_store.h"
#include "fake_req.h"
#include "routes/router.h"
#include "store/store.h"

typedef struct world {
	fs_app app;
	char dir[64], cookie[200];
	long long uid, image_id;
	fs_db *reader; /* the background reader's own connection */
	int stored;    /* the reader has stored its reading */
} world;

static void rm_rf(const char *path)
{
	DIR *d = opendir(path);
	if (!d) {
		unlink(path);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char p[512];
		snprintf(p, sizeof p, "%s/%s", path, e->d_name);
		rm_rf(p);
	}
	closedir(d);
	rmdir(path);
}

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
	char err[512], token[65], csrf[65], db_path[200];
	snprintf(x->dir, sizeof x->dir, "/tmp/fs-calsnap-XXXXXX");
	if (!mkdtemp(x->dir) || fs_app_config(&x->app, ".", NULL, err, sizeof err))
		return -1;
	snprintf(x->app.cfg.data_dir, sizeof x->app.cfg.data_dir, "%s", x->dir);
	if (fs_app_open(&x->app, 1, err, sizeof err) ||
	    fs_user_create(x->app.db, "ann", "Ann", 0, NULL, &x->uid, err, sizeof err) ||
	    fs_session_create(x->app.db, x->uid, (long long)time(NULL), 3600, "127.0.0.1", token, csrf))
		return -1;
	snprintf(x->cookie, sizeof x->cookie, "HTTP_COOKIE=fs_session=%s", token);
	fs_image_rec rec;
	memset(&rec, 0, sizeof rec);
	rec.owner_id = x->uid;
	snprintf(rec.file_sha256, sizeof rec.file_sha256, "%064d", 7);
	fs_work_key_initial(rec.file_sha256, 0, rec.work_key);
	snprintf(rec.original_name, sizeof rec.original_name, "sem.tif");
	snprintf(rec.format, sizeof rec.format, "tiff");
	rec.width = 1280, rec.height = 960, rec.bit_depth = 8, rec.channels = 1, rec.n_pages = 1;
	cJSON *on = cJSON_Parse("{\"auto_calibrate_data_bar\": true}");
	int rc = fs_image_insert(x->app.db, &rec, 123) || fs_settings_put(x->app.db, x->uid, on, err, sizeof err) ||
		 fs_image_databar_pending(x->app.db, rec.id);
	cJSON_Delete(on);
	if (rc)
		return -1;
	x->image_id = rec.id;
	snprintf(db_path, sizeof db_path, "%s/fishscale.db", x->dir);
	x->reader = fs_db_open(db_path, 2000, err, sizeof err);
	if (!x->reader)
		return -1;
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	world *x = *state;
	sqlite3_trace_v2(fs_db_handle(x->app.db), 0, NULL, NULL);
	fs_db_close(x->reader);
	fs_app_close(&x->app);
	rm_rf(x->dir);
	free(x);
	return 0;
}

/* GET the calibration answer: calibration set?, and the reading's state. */
static void get(world *x, int *calibrated, char *state, size_t statelen)
{
	char uri[128];
	snprintf(uri, sizeof uri, "DOCUMENT_URI=/api/images/%lld/calibration", x->image_id);
	const char *env[] = {"REQUEST_METHOD=GET", uri, "REMOTE_ADDR=127.0.0.1", x->cookie, NULL};
	fs_req r;
	fs_fake_io io;
	fs_resp w;
	fs_fake_req(&r, &x->app, &io, env, NULL);
	fs_resp_init(&w);
	fs_dispatch(&r, &w);
	fs_req_free(&r);
	assert_int_equal(w.status, 200);
	cJSON *j = cJSON_ParseWithLength(w.body.data, w.body.len);
	assert_non_null(j);
	*calibrated = cJSON_IsObject(cJSON_GetObjectItem(j, "calibration"));
	snprintf(state, statelen, "%s",
		 cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "data_bar"), "state")));
	cJSON_Delete(j);
	fs_resp_free(&w);
}

static void an_answer_never_shows_the_reading_done_without_its_calibration(void **state)
{
	world *x = *state;
	sqlite3_trace_v2(fs_db_handle(x->app.db), SQLITE_TRACE_STMT, on_statement, x);
	int calibrated;
	char st[16];
	get(x, &calibrated, st, sizeof st);
	sqlite3_trace_v2(fs_db_handle(x->app.db), 0, NULL, NULL);
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
