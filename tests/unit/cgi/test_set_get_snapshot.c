/*
 * test_set_get_snapshot.c - GET /api/sets/{id} reads the set's row (its
 * revision) and its tubercles in one snapshot: an edit or a job's result
 * committed by another process between the two reads never makes the
 * answer pair the old revision with the new tubercles. The workspace
 * keeps the answer's revision for its next edit and polls by revision, so
 * such an answer showed a result under a revision that never had it (the
 * clean-clone make test at 6eda6b5 saw (revision 0, 56 tubercles) in
 * integration test_write_lock while a staged result was published).
 *
 * The other writer is played exactly there: a statement trace on the
 * handler's connection commits an added tubercle from a second
 * connection as the handler starts to read the tubercles.
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
#include "fake_req.h"
#include "routes/router.h"
#include "store/store.h"

typedef struct world {
	fs_app app;
	char dir[64], cookie[200];
	long long uid, image_id, set_id;
	fs_db *writer; /* the other process's connection */
	int armed;     /* the handler has read the set's row */
	int written;   /* the writer has committed its edit */
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

/* The other process adds one tubercle: revision 0 -> 1. */
static void writer_adds(world *x)
{
	fs_tubercle t;
	memset(&t, 0, sizeof t);
	t.centroid_x = 40, t.centroid_y = 30, t.radius_px = 5, t.circularity = 1;
	t.source = FS_SOURCE_MANUAL;
	int tid;
	long long rev, cur;
	char err[256];
	assert_int_equal(fs_set_add_tubercle(x->writer, x->set_id, 0, x->uid, &t, 0, &tid, &rev, &cur, err, sizeof err),
			 0);
	x->written = 1;
}

/* Statement trace of the handler's connection: the writer commits after
 * the handler read the set's row, as it starts on the tubercles. */
static int on_statement(unsigned type, void *ctx, void *stmt, void *sql)
{
	(void)stmt;
	world *x = ctx;
	const char *s = sql;
	if (type != SQLITE_TRACE_STMT || x->written)
		return 0;
	if (strstr(s, "FROM sets"))
		x->armed = 1;
	else if (x->armed && strstr(s, "FROM tubercles"))
		writer_adds(x);
	return 0;
}

static int setup(void **state)
{
	world *x = calloc(1, sizeof *x);
	char err[512], token[65], csrf[65], db_path[200];
	snprintf(x->dir, sizeof x->dir, "/tmp/fs-setsnap-XXXXXX");
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
	snprintf(rec.file_sha256, sizeof rec.file_sha256, "%064d", 9);
	fs_work_key_initial(rec.file_sha256, 0, rec.work_key);
	snprintf(rec.original_name, sizeof rec.original_name, "scale.tif");
	snprintf(rec.format, sizeof rec.format, "tiff");
	rec.width = 300, rec.height = 200, rec.bit_depth = 8, rec.channels = 1, rec.n_pages = 1;
	if (fs_image_insert(x->app.db, &rec, 123) ||
	    fs_set_create(x->app.db, rec.id, "Base", x->uid, &x->set_id, err, sizeof err))
		return -1;
	x->image_id = rec.id;
	snprintf(db_path, sizeof db_path, "%s/fishscale.db", x->dir);
	x->writer = fs_db_open(db_path, 2000, err, sizeof err);
	if (!x->writer)
		return -1;
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	world *x = *state;
	sqlite3_trace_v2(fs_db_handle(x->app.db), 0, NULL, NULL);
	fs_db_close(x->writer);
	fs_app_close(&x->app);
	rm_rf(x->dir);
	free(x);
	return 0;
}

/* GET the set: its revision and its number of tubercles. */
static void get(world *x, long long *rev, int *n)
{
	char uri[128];
	snprintf(uri, sizeof uri, "DOCUMENT_URI=/api/sets/%lld", x->set_id);
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
	*rev = (long long)cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "set"), "revision"));
	*n = cJSON_GetArraySize(cJSON_GetObjectItem(j, "tubercles"));
	cJSON_Delete(j);
	fs_resp_free(&w);
}

static void an_answer_never_pairs_the_old_revision_with_new_tubercles(void **state)
{
	world *x = *state;
	sqlite3_trace_v2(fs_db_handle(x->app.db), SQLITE_TRACE_STMT, on_statement, x);
	long long rev;
	int n;
	get(x, &rev, &n);
	sqlite3_trace_v2(fs_db_handle(x->app.db), 0, NULL, NULL);
	assert_true(x->written); /* the writer did commit between the two reads */
	/* the moment before the edit, whole (before: revision 0 with 1 tubercle) */
	assert_int_equal(rev, 0);
	assert_int_equal(n, 0);
	/* and the next look sees the edit */
	get(x, &rev, &n);
	assert_int_equal(rev, 1);
	assert_int_equal(n, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(an_answer_never_pairs_the_old_revision_with_new_tubercles),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
