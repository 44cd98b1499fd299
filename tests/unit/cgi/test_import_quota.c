/*
 * test_import_quota.c - an import job (app/image_import.h: a large upload's
 * original made into a library entry) checks the user's disk quota again
 * under its write lock. It checked once, before decoding and writing the
 * derived files (seconds on 100 MP); an upload of the same user that landed
 * meanwhile was not counted, so both were stored past the quota.
 *
 * The other upload is played exactly there: a statement trace on the job's
 * connection commits another image of the user's from a second connection
 * as the job begins its write transaction.
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
#include <sys/stat.h>

#include "app/image_import.h"
#include "image/image_io.h"
#include "fake_site.h"

#define SIDE 400 /* the imported image: 160,000 px */

typedef struct world {
	fs_fake_site site;
	fs_db *writer;     /* the other upload's connection (another worker) */
	long long other_size; /* bytes of the other upload's original */
	int written;
} world;

/* The other upload lands: an image row of ann's whose original takes
 * other_size bytes (usage counts originals from their rows). */
static void other_upload(world *x)
{
	fs_image_rec rec;
	memset(&rec, 0, sizeof rec);
	rec.owner_id = x->site.uid;
	snprintf(rec.file_sha256, sizeof rec.file_sha256, "%064d", 77);
	fs_work_key_initial(rec.file_sha256, 0, rec.work_key);
	snprintf(rec.original_name, sizeof rec.original_name, "other.tif");
	snprintf(rec.format, sizeof rec.format, "tiff");
	rec.width = rec.height = 100, rec.bit_depth = 8, rec.channels = 1, rec.n_pages = 1;
	assert_int_equal(fs_image_insert(x->writer, &rec, x->other_size), 0);
	x->written = 1;
}

static int on_statement(unsigned type, void *ctx, void *stmt, void *sql)
{
	(void)stmt;
	world *x = ctx;
	if (type == SQLITE_TRACE_STMT && x->other_size > 0 && !x->written && strstr(sql, "BEGIN IMMEDIATE"))
		other_upload(x);
	return 0;
}

static int setup(void **state)
{
	world *x = calloc(1, sizeof *x);
	if (!x || fs_fake_site_open(&x->site, "impquota"))
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

/* Stores a SIDE x SIDE 8-bit PNG as the original of key `seed` and fills q. */
static void stored_original(world *x, int seed, fs_import_req *q)
{
	char err[256], path[4096];
	memset(q, 0, sizeof *q);
	q->user_id = x->site.uid;
	snprintf(q->sha256, sizeof q->sha256, "%064d", seed);
	snprintf(q->name, sizeof q->name, "large-%d.png", seed);
	q->shared = 1;
	assert_int_equal(fs_files_ensure_dirs(x->site.dir, err, sizeof err), 0);
	assert_int_equal(fs_file_path(x->site.dir, FS_FILE_ORIGINAL, q->sha256, path, sizeof path), 0);
	fs_image *img = fs_image_new(SIDE, SIDE);
	assert_non_null(img);
	for (int y = 0; y < SIDE; y++)
		for (int xx = 0; xx < SIDE; xx++)
			img->data[(size_t)y * SIDE + xx] = (float)(((xx / 9 + y / 7) * 37 + seed) % 256) / 255.0f;
	assert_int_equal(fs_png_write_gray(path, img, err, sizeof err), 0);
	fs_image_free(img);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	q->size = st.st_size;
}

static long long images_of_ann(world *x)
{
	sqlite3_stmt *st = NULL;
	long long n = -1;
	sqlite3_prepare_v2(fs_db_handle(x->writer), "SELECT count(*) FROM images WHERE owner_id = ?", -1, &st, NULL);
	sqlite3_bind_int64(st, 1, x->site.uid);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* The quota fits the import alone (its original and derived files), with
 * room for less than the other upload besides. */
static void set_quota(world *x, const fs_import_req *q)
{
	long long need = q->size + fs_files_derived_estimate(SIDE, SIDE, 1);
	x->site.app.cfg.user_quota_mb = (int)(need / 1048576) + 1;
	long long quota = (long long)x->site.app.cfg.user_quota_mb << 20;
	x->other_size = quota - need + 4096; /* the two together: just over */
	assert_true(x->other_size > 0);
}

static void an_upload_landing_during_the_import_counts(void **state)
{
	world *x = *state;
	fs_import_req q;
	stored_original(x, 1, &q);
	set_quota(x, &q);
	char err[512] = "";
	long long id = 0;
	int existing = 0;
	sqlite3_trace_v2(fs_db_handle(x->site.app.db), SQLITE_TRACE_STMT, on_statement, x);
	int rc = fs_image_import_stored(&x->site.app, &q, &id, &existing, err, sizeof err);
	sqlite3_trace_v2(fs_db_handle(x->site.app.db), 0, NULL, NULL);
	assert_true(x->written); /* the other upload did land inside the import */
	/* before: both stored, past the quota */
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err, "quota"));
	assert_int_equal(images_of_ann(x), 1); /* the other upload's only */
	/* the job's files are gone: original and working image */
	char path[4096];
	struct stat st;
	fs_file_path(x->site.dir, FS_FILE_ORIGINAL, q.sha256, path, sizeof path);
	assert_int_not_equal(stat(path, &st), 0);
	char key[65];
	fs_work_key_initial(q.sha256, 0, key);
	fs_file_path(x->site.dir, FS_FILE_WORK, key, path, sizeof path);
	assert_int_not_equal(stat(path, &st), 0);
}

/* Without the other upload the same import fits and is stored. */
static void the_import_alone_fits(void **state)
{
	world *x = *state;
	fs_import_req q;
	stored_original(x, 2, &q);
	set_quota(x, &q);
	x->other_size = 0; /* nobody else writes */
	char err[512] = "";
	long long id = 0;
	int existing = 0;
	assert_int_equal(fs_image_import_stored(&x->site.app, &q, &id, &existing, err, sizeof err), 0);
	assert_true(id > 0);
	assert_int_equal(existing, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(an_upload_landing_during_the_import_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(the_import_alone_fits, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
