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

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "fake_site.h"

typedef struct world {
	fs_fake_site site;
	long long set_id;
	fs_db *writer; /* the other process's connection */
	int armed;     /* the handler has read the set's row */
	int written;   /* the writer has committed its edit */
} world;

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
	assert_int_equal(fs_set_add_tubercle(x->writer, x->set_id, 0, x->site.uid, &t, 0, &tid, &rev, &cur, err,
					     sizeof err),
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
	char err[256];
	fs_image_rec rec;
	if (!x || fs_fake_site_open(&x->site, "setsnap") || fs_fake_site_image(&x->site, 9, "scale.tif", 300, 200, &rec) ||
	    fs_set_create(x->site.app.db, rec.id, "Base", x->site.uid, &x->set_id, err, sizeof err))
		return -1;
	x->writer = fs_fake_site_connect(&x->site);
	if (!x->writer)
		return -1;
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	world *x = *state;
	sqlite3_trace_v2(fs_db_handle(x->site.app.db), 0, NULL, NULL);
	fs_db_close(x->writer);
	fs_fake_site_close(&x->site);
	free(x);
	return 0;
}

/* GET the set: its revision and its number of tubercles. */
static void get(world *x, long long *rev, int *n)
{
	char uri[128];
	int status;
	snprintf(uri, sizeof uri, "/api/sets/%lld", x->set_id);
	cJSON *j = fs_fake_site_get(&x->site, uri, &status);
	assert_int_equal(status, 200);
	assert_non_null(j);
	*rev = (long long)cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "set"), "revision"));
	*n = cJSON_GetArraySize(cJSON_GetObjectItem(j, "tubercles"));
	cJSON_Delete(j);
}

static void an_answer_never_pairs_the_old_revision_with_new_tubercles(void **state)
{
	world *x = *state;
	sqlite3_trace_v2(fs_db_handle(x->site.app.db), SQLITE_TRACE_STMT, on_statement, x);
	long long rev;
	int n;
	get(x, &rev, &n);
	sqlite3_trace_v2(fs_db_handle(x->site.app.db), 0, NULL, NULL);
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
