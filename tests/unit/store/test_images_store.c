/* Unit tests for content-addressed image files (image_files.c) and image
 * records with their access rules (images_store.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/db.h"
#include "app/app.h"
#include "fake_req.h"
#include "image/image_io.h"
#include "routes/router.h"
#include "store/sessions.h"
#include <time.h>
#include "store/image_files.h"
#include "store/pyramid.h"
#include "store/work_file.h"
#include "store/images_store.h"
#include "store/image_steps.h"
#include "store/users.h"
#include "rm_tree.h"

typedef struct fixture {
	char dir[64];
	fs_db *db;
	fs_user alice, bob, admin;
} fixture;

static void make_user(fs_db *db, const char *login, int admin, fs_user *u)
{
	char err[256];
	long long id;
	assert_int_equal(fs_user_create(db, login, login, admin, NULL, &id, err, sizeof err), 0);
	assert_int_equal(fs_user_get(db, id, u), 0);
}

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof *f);
	snprintf(f->dir, sizeof f->dir, "/tmp/fs-images-test-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	char p[128], err[256];
	snprintf(p, sizeof p, "%s/fishscale.db", f->dir);
	f->db = fs_db_open(p, 2000, err, sizeof err);
	if (!f->db || fs_files_ensure_dirs(f->dir, err, sizeof err))
		return -1;
	make_user(f->db, "alice", 0, &f->alice);
	make_user(f->db, "bob", 0, &f->bob);
	make_user(f->db, "root", 1, &f->admin);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	fs_db_close(f->db);
	test_rm_tree(f->dir);
	free(f);
	return 0;
}

static int count_files(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static long long insert_image(fixture *f, const fs_user *owner, const char *name, const char *sha, int shared)
{
	fs_image_rec rec;
	memset(&rec, 0, sizeof rec);
	rec.owner_id = owner->id;
	snprintf(rec.file_sha256, sizeof rec.file_sha256, "%s", sha);
	fs_work_key_initial(sha, 0, rec.work_key);
	snprintf(rec.original_name, sizeof rec.original_name, "%s", name);
	snprintf(rec.format, sizeof rec.format, "png");
	rec.width = 10;
	rec.height = 8;
	rec.bit_depth = 8;
	rec.channels = 1;
	rec.n_pages = 1;
	rec.shared = shared;
	assert_int_equal(fs_image_insert(f->db, &rec, 123), 0);
	return rec.id;
}

static const char SHA_A[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const char SHA_B[] = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

/* ---- image_files ---- */

static void file_keys_must_be_lowercase_hex_of_64(void **state)
{
	(void)state;
	char p[256];
	assert_true(fs_file_key_valid(SHA_A));
	assert_false(fs_file_key_valid("../../etc/passwd"));
	assert_false(fs_file_key_valid("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"));
	assert_false(fs_file_key_valid("abc"));
	assert_int_equal(fs_file_path("/d", FS_FILE_DISPLAY, "../x", p, sizeof p), -1);
	assert_int_equal(fs_file_relpath(FS_FILE_THUMB, SHA_A, p, sizeof p), 0);
	assert_string_equal(p, "thumbs/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.png");
}

static void atomic_write_replaces_and_leaves_no_temp_file(void **state)
{
	fixture *f = *state;
	char p[256], err[256], buf[16] = {0};
	snprintf(p, sizeof p, "%s/work/x.bin", f->dir);
	assert_int_equal(fs_file_write_atomic(p, "first", 5, err, sizeof err), 0);
	assert_int_equal(fs_file_write_atomic(p, "second", 6, err, sizeof err), 0);
	FILE *fp = fopen(p, "rb");
	assert_non_null(fp);
	assert_int_equal(fread(buf, 1, sizeof buf, fp), 6);
	fclose(fp);
	assert_string_equal(buf, "second");
	snprintf(p, sizeof p, "%s/work", f->dir);
	assert_int_equal(count_files(p), 1);
}

static void atomic_write_into_missing_directory_fails(void **state)
{
	fixture *f = *state;
	char p[256], err[256] = "";
	snprintf(p, sizeof p, "%s/nowhere/x.bin", f->dir);
	assert_int_equal(fs_file_write_atomic(p, "x", 1, err, sizeof err), -1);
	assert_true(strlen(err) > 0);
}

static void publish_stores_same_content_once(void **state)
{
	fixture *f = *state;
	char tmp[512], dst[512], err[256], dd[128];
	int created = -1;
	snprintf(dd, sizeof dd, "%s", f->dir);
	assert_int_equal(fs_file_path(dd, FS_FILE_ORIGINAL, SHA_A, dst, sizeof dst), 0);
	for (int round = 0; round < 2; round++) {
		int fd = fs_files_tmp_open(dd, tmp, sizeof tmp, err, sizeof err);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, "bytes", 5), 5);
		close(fd);
		assert_int_equal(fs_file_publish(tmp, dst, &created, err, sizeof err), 0);
		assert_int_equal(created, round == 0);
		assert_int_equal(access(tmp, F_OK), -1); /* the temporary name is gone either way */
	}
	char p[256];
	snprintf(p, sizeof p, "%s/originals", dd);
	assert_int_equal(count_files(p), 1);
	snprintf(p, sizeof p, "%s/tmp", dd);
	assert_int_equal(count_files(p), 0);
}

static void work_image_round_trips(void **state)
{
	fixture *f = *state;
	char p[256], err[256];
	fs_image *img = fs_image_new(5, 3);
	for (int i = 0; i < 15; i++)
		img->data[i] = (float)i / 16.0f;
	snprintf(p, sizeof p, "%s/work/t.f32", f->dir);
	assert_int_equal(fs_work_write(p, img, err, sizeof err), 0);
	fs_image *back = fs_work_read(p, err, sizeof err);
	assert_non_null(back);
	assert_int_equal(back->width, 5);
	assert_int_equal(back->height, 3);
	assert_memory_equal(back->data, img->data, 15 * sizeof(float));
	fs_image_free(back);
	fs_image_free(img);
}

static void damaged_work_file_is_refused(void **state)
{
	fixture *f = *state;
	char p[256], err[256] = "";
	fs_image *img = fs_image_new(4, 4);
	snprintf(p, sizeof p, "%s/work/d.f32", f->dir);
	assert_int_equal(fs_work_write(p, img, err, sizeof err), 0);
	assert_int_equal(truncate(p, 20), 0);
	assert_null(fs_work_read(p, err, sizeof err));
	assert_non_null(strstr(err, "damaged"));
	snprintf(p, sizeof p, "%s/work/none.f32", f->dir);
	assert_null(fs_work_read(p, err, sizeof err));
	fs_image_free(img);
}

static void derived_files_written_once_and_removed(void **state)
{
	fixture *f = *state;
	char err[256], key[65];
	fs_work_key_initial(SHA_A, 0, key);
	fs_image *img = fs_image_new(600, 300);
	int created = 0;
	assert_int_equal(fs_files_store_derived(f->dir, key, img, 1, &created, err, sizeof err), 0);
	assert_int_equal(created, (1 << FS_FILE_WORK) | (1 << FS_FILE_DISPLAY) | (1 << FS_FILE_THUMB));
	assert_true(fs_files_have_derived(f->dir, key));
	assert_int_equal(fs_files_store_derived(f->dir, key, img, 1, &created, err, sizeof err), 0);
	assert_int_equal(created, 0);
	fs_files_remove_derived(f->dir, key);
	assert_false(fs_files_have_derived(f->dir, key));
	fs_image_free(img);
}

/* The quota is checked against this estimate before an upload is stored:
 * it must never be below what storing writes (noise: nothing compresses),
 * and for a tiled image it must not count a full-size display copy, which
 * is written as an overview (before, a 100 MP upload was asked for 84 MB
 * it never takes). */
static void derived_estimate_bounds_what_is_written(void **state)
{
	fixture *f = *state;
	char err[256], key[65];
	int old_side = fs_pyramid_min_side();
	fs_pyramid_set_min_side(512);
	fs_work_key_initial(SHA_A, 0, key);
	const int w = 2400, h = 1600;
	fs_image *img = fs_image_new(w, h);
	assert_non_null(img);
	uint32_t x = 12345;
	for (size_t i = 0; i < (size_t)w * h; i++) {
		x = x * 1664525u + 1013904223u;
		img->data[i] = (float)(x >> 24) / 255.0f;
	}
	assert_int_equal(fs_work_precision(img), 1);
	assert_int_equal(fs_files_store_derived(f->dir, key, img, 0, NULL, err, sizeof err), 0);
	assert_true(fs_pyramid_exists(f->dir, key));
	long long written = fs_files_derived_bytes(f->dir, key);
	long long est = fs_files_derived_estimate(w, h, 1);
	long long px = (long long)w * h;
	assert_true(est >= written);
	/* the slack (0.58 px here): JPEG tiles below the byte a pixel they
	 * are counted at, PNG and deflate headers; a full-size display copy
	 * counted as well would add another px (1.54 px before) */
	assert_true(est - written < px);
	fs_files_remove_derived(f->dir, key);
	fs_pyramid_set_min_side(old_side);
	fs_image_free(img);
}

static void work_keys_follow_file_page_and_steps(void **state)
{
	(void)state;
	char k0[65], k1[65], k2[65], k3[65];
	fs_work_key_initial(SHA_A, 0, k0);
	fs_work_key_initial(SHA_A, 1, k1);
	assert_string_not_equal(k0, k1);
	fs_work_key_next(k0, "rotate_left", k2);
	fs_work_key_next(k0, "rotate_left", k3);
	assert_string_equal(k2, k3);
	assert_true(fs_file_key_valid(k2));
	fs_work_key_next(k0, "rotate_right", k3);
	assert_string_not_equal(k2, k3);
}

/* ---- images_store ---- */

static void private_image_visible_only_to_owner_and_admin(void **state)
{
	fixture *f = *state;
	long long id = insert_image(f, &f->alice, "a.png", SHA_A, 0);
	fs_image_rec rec;
	assert_int_equal(fs_image_check_access(f->db, id, &f->alice, FS_ACCESS_MANAGE, &rec), 0);
	assert_string_equal(rec.owner_login, "alice");
	assert_int_equal(rec.n_sets, 0);
	assert_int_equal(fs_image_check_access(f->db, id, &f->bob, FS_ACCESS_READ, NULL), FS_DB_NOTFOUND);
	assert_int_equal(fs_image_check_access(f->db, id, &f->bob, FS_ACCESS_MANAGE, NULL), FS_DB_NOTFOUND);
	assert_int_equal(fs_image_check_access(f->db, id, &f->admin, FS_ACCESS_MANAGE, NULL), 0);
	assert_int_equal(fs_image_check_access(f->db, id + 100, &f->alice, FS_ACCESS_READ, NULL), FS_DB_NOTFOUND);
}

static void shared_image_readable_but_not_manageable_by_others(void **state)
{
	fixture *f = *state;
	long long id = insert_image(f, &f->alice, "a.png", SHA_A, 1);
	assert_int_equal(fs_image_check_access(f->db, id, &f->bob, FS_ACCESS_READ, NULL), 0);
	assert_int_equal(fs_image_check_access(f->db, id, &f->bob, FS_ACCESS_MANAGE, NULL), FS_DB_FORBIDDEN);
	assert_int_equal(fs_image_update_meta(f->db, id, 0, NULL), 0);
	assert_int_equal(fs_image_check_access(f->db, id, &f->bob, FS_ACCESS_READ, NULL), FS_DB_NOTFOUND);
}

static void find_owned_dedupes_per_owner(void **state)
{
	fixture *f = *state;
	long long id = insert_image(f, &f->alice, "a.png", SHA_A, 1);
	fs_image_rec rec;
	assert_int_equal(fs_image_find_owned(f->db, f->alice.id, SHA_A, &rec), 0);
	assert_int_equal(rec.id, id);
	assert_int_equal(fs_image_find_owned(f->db, f->bob.id, SHA_A, &rec), FS_DB_NOTFOUND);
	assert_int_equal(fs_image_find_owned(f->db, f->alice.id, SHA_B, &rec), FS_DB_NOTFOUND);
}

static void delete_frees_files_only_when_last_user(void **state)
{
	fixture *f = *state;
	long long a = insert_image(f, &f->alice, "a.png", SHA_A, 1);
	long long b = insert_image(f, &f->bob, "b.png", SHA_A, 1);
	int orig = -1, work = -1, base = -1;
	assert_int_equal(fs_image_delete(f->db, a, &orig, &work, &base), 0);
	assert_int_equal(orig, 0);
	assert_int_equal(work, 0);
	assert_int_equal(base, 0); /* no steps: the base is the work key */
	assert_int_equal(fs_image_delete(f->db, b, &orig, &work, &base), 0);
	assert_int_equal(orig, 1);
	assert_int_equal(work, 1);
	int used = 1;
	assert_int_equal(fs_image_file_in_use(f->db, SHA_A, &used), 0);
	assert_int_equal(used, 0);
	assert_int_equal(fs_image_delete(f->db, b, &orig, &work, &base), FS_DB_NOTFOUND);
}

static void transform_from_stale_key_is_refused(void **state)
{
	fixture *f = *state;
	long long id = insert_image(f, &f->alice, "a.png", SHA_A, 1);
	fs_image_rec rec;
	assert_int_equal(fs_image_get(f->db, id, &rec), 0);
	char k1[65];
	fs_work_key_next(rec.work_key, "rotate_left", k1);
	cJSON *steps = cJSON_CreateArray(), *step = cJSON_CreateObject();
	cJSON_AddStringToObject(step, "kind", "rotate_left");
	cJSON_AddItemToArray(steps, step);
	assert_int_equal(fs_image_set_steps(f->db, id, rec.work_key, k1, 8, 10, 270, steps), 0);
	assert_int_equal(fs_image_set_steps(f->db, id, rec.work_key, k1, 8, 10, 270, steps), FS_DB_STALE);
	assert_int_equal(fs_image_set_steps(f->db, id + 9, rec.work_key, k1, 8, 10, 270, steps), FS_DB_NOTFOUND);
	cJSON_Delete(steps);
	assert_int_equal(fs_image_get(f->db, id, &rec), 0);
	assert_string_equal(rec.work_key, k1);
	assert_int_equal(rec.revision, 1);
	assert_int_equal(rec.rotation, 270);
	assert_int_equal(rec.width, 8);
	assert_int_equal(rec.n_steps, 1);
	assert_int_equal(rec.base_step, 0);
}

/* A 10 x 8 image whose every pixel differs, stored under the image's key. */
static fs_image *patterned(fixture *f, const fs_image_rec *rec)
{
	char err[256];
	fs_image *img = fs_image_new(10, 8);
	for (int i = 0; i < 80; i++)
		img->data[i] = (float)i / 80.0f;
	assert_int_equal(fs_files_store_derived(f->dir, rec->work_key, img, 1, NULL, err, sizeof err), 0);
	return img;
}

static void steps_undo_back_to_the_original_exactly(void **state)
{
	fixture *f = *state;
	char err[512] = "";
	long long id = insert_image(f, &f->alice, "a.png", SHA_A, 1);
	fs_image_rec rec, base;
	assert_int_equal(fs_image_get(f->db, id, &base), 0);
	fs_image *orig = patterned(f, &base);
	fs_step_request rot = {FS_STEP_ROTATE_RIGHT, {0, 0, 0, 0}, 0};
	assert_int_equal(fs_image_step_apply(f->db, f->dir, id, f->alice.id, &rot, err, sizeof err), 0);
	fs_step_request stale = {FS_STEP_ROTATE_LEFT, {0, 0, 0, 0}, 0};
	assert_int_equal(fs_image_step_apply(f->db, f->dir, id, f->alice.id, &stale, err, sizeof err), FS_DB_STALE);
	fs_step_request crop = {FS_STEP_CROP, {1, 2, 5, 6}, 1};
	assert_int_equal(fs_image_step_apply(f->db, f->dir, id, f->alice.id, &crop, err, sizeof err), 0);
	fs_step_request whole = {FS_STEP_CROP, {0, 0, 50, 50}, -1};
	assert_int_equal(fs_image_step_apply(f->db, f->dir, id, f->alice.id, &whole, err, sizeof err), FS_DB_INVALID);
	assert_non_null(strstr(err, "nothing to crop"));
	assert_int_equal(fs_image_get(f->db, id, &rec), 0);
	assert_int_equal(rec.width, 5);
	assert_int_equal(rec.height, 6);
	assert_int_equal(rec.n_steps, 2);
	assert_int_equal(rec.rotation, 90);
	/* the files of the rotated image are gone (only the base and the
	 * current image keep theirs); undo computes them again from the base */
	fs_image_step *steps;
	size_t n;
	assert_int_equal(fs_image_steps(f->db, id, &steps, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(steps[0].label, "rotate 90° clockwise");
	assert_string_equal(steps[1].label, "crop 1,2 5×6");
	assert_string_equal(steps[0].from_key, base.work_key);
	char rotated_key[65];
	snprintf(rotated_key, sizeof rotated_key, "%s", steps[1].from_key);
	free(steps);
	assert_false(fs_files_have_derived(f->dir, rotated_key));
	assert_true(fs_files_have_derived(f->dir, base.work_key));
	assert_int_equal(fs_image_step_undo(f->db, f->dir, id, f->alice.id, -1, -1, err, sizeof err), 0);
	assert_int_equal(fs_image_get(f->db, id, &rec), 0);
	assert_string_equal(rec.work_key, rotated_key);
	assert_int_equal(rec.width, 8);
	assert_int_equal(rec.height, 10);
	fs_image *back = fs_image_load_work(f->dir, &rec, err, sizeof err);
	assert_non_null(back);
	for (int y = 0; y < 10; y++) /* rotated right: (x, y) -> (H-1-y, x) */
		for (int x = 0; x < 8; x++)
			assert_true(back->data[y * 8 + x] == orig->data[(8 - 1 - x) * 10 + y]);
	fs_image_free(back);
	/* back to the original: the base itself, pixel for pixel */
	assert_int_equal(fs_image_step_undo(f->db, f->dir, id, f->alice.id, 0, rec.revision, err, sizeof err), 0);
	assert_int_equal(fs_image_get(f->db, id, &rec), 0);
	assert_string_equal(rec.work_key, base.work_key);
	assert_int_equal(rec.width, 10);
	assert_int_equal(rec.rotation, 0);
	assert_int_equal(rec.n_steps, 0);
	assert_int_equal(rec.revision, 4);
	back = fs_image_load_work(f->dir, &rec, err, sizeof err);
	assert_memory_equal(back->data, orig->data, 80 * sizeof(float));
	fs_image_free(back);
	assert_false(fs_files_have_derived(f->dir, rotated_key));
	assert_int_equal(fs_image_step_undo(f->db, f->dir, id, f->alice.id, -1, -1, err, sizeof err), FS_DB_INVALID);
	assert_non_null(strstr(err, "original"));
	fs_image_free(orig);
}

static void steps_made_before_undo_existed_stay(void **state)
{
	fixture *f = *state;
	char err[512] = "";
	long long id = insert_image(f, &f->alice, "a.png", SHA_A, 1);
	fs_image_rec rec;
	assert_int_equal(fs_image_get(f->db, id, &rec), 0);
	fs_image_free(patterned(f, &rec));
	/* as migration 5 leaves an image transformed before: its step is the base */
	assert_int_equal(sqlite3_exec(fs_db_handle(f->db), "UPDATE images SET transforms = "
				      "'[{\"kind\":\"rotate_left\",\"src_width\":8,\"src_height\":10,\"x\":0,"
				      "\"y\":0,\"width\":10,\"height\":8}]', base_step = 1",
				      NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(fs_image_step_undo(f->db, f->dir, id, f->alice.id, -1, -1, err, sizeof err), FS_DB_INVALID);
	assert_non_null(strstr(err, "before transforms could be undone"));
	fs_step_request rot = {FS_STEP_ROTATE_LEFT, {0, 0, 0, 0}, -1};
	assert_int_equal(fs_image_step_apply(f->db, f->dir, id, f->alice.id, &rot, err, sizeof err), 0);
	assert_int_equal(fs_image_step_undo(f->db, f->dir, id, f->alice.id, 0, -1, err, sizeof err), 0);
	assert_int_equal(fs_image_get(f->db, id, &rec), 0);
	assert_int_equal(rec.n_steps, 1);
	cJSON *list = fs_image_steps_list(f->db, id);
	cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(list, "transforms"), 0);
	assert_false(cJSON_IsTrue(cJSON_GetObjectItem(first, "undoable")));
	assert_string_equal(cJSON_GetObjectItem(first, "label")->valuestring, "rotate 90° counter-clockwise");
	cJSON_Delete(list);
}

static void list_filters_sorts_pages_and_hides_private(void **state)
{
	fixture *f = *state;
	insert_image(f, &f->alice, "zeta_1.png", SHA_A, 1);
	insert_image(f, &f->alice, "alpha.png", SHA_A, 1);
	insert_image(f, &f->alice, "zetaX1.png", SHA_B, 0);
	insert_image(f, &f->bob, "beta.png", SHA_B, 1);
	fs_image_rec *v;
	size_t n;
	long long total;
	fs_image_query q = {.q = "", .sort = FS_SORT_NAME, .page = 1, .per_page = 2};
	assert_int_equal(fs_image_list(f->db, &f->bob, &q, &v, &n, &total), 0);
	assert_int_equal(total, 3); /* alice's private one is not counted */
	assert_int_equal(n, 2);
	assert_string_equal(v[0].original_name, "alpha.png");
	assert_string_equal(v[1].original_name, "beta.png");
	free(v);
	q.page = 2;
	assert_int_equal(fs_image_list(f->db, &f->bob, &q, &v, &n, &total), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].original_name, "zeta_1.png");
	free(v);
	/* '_' is literal, not a LIKE wildcard */
	fs_image_query s = {.q = "a_1", .sort = FS_SORT_NAME, .page = 1, .per_page = 10};
	assert_int_equal(fs_image_list(f->db, &f->alice, &s, &v, &n, &total), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].original_name, "zeta_1.png");
	free(v);
	fs_image_query o = {.q = "", .sort = FS_SORT_OWNER, .desc = 1, .page = 1, .per_page = 10};
	assert_int_equal(fs_image_list(f->db, &f->admin, &o, &v, &n, &total), 0);
	assert_int_equal(n, 4);
	assert_string_equal(v[0].owner_login, "bob");
	free(v);
}

static void recent_keeps_ten_most_recent_visible(void **state)
{
	fixture *f = *state;
	long long ids[12];
	for (int i = 0; i < 12; i++) {
		char name[16];
		snprintf(name, sizeof name, "r%d.png", i);
		ids[i] = insert_image(f, &f->alice, name, SHA_A, 1);
		assert_int_equal(fs_image_touch_recent(f->db, f->bob.id, ids[i]), 0);
	}
	assert_int_equal(fs_image_touch_recent(f->db, f->bob.id, ids[5]), 0);
	fs_image_rec *v;
	size_t n;
	assert_int_equal(fs_image_recent(f->db, &f->bob, &v, &n), 0);
	assert_int_equal(n, FS_RECENT_MAX);
	assert_int_equal(v[0].id, ids[5]);
	assert_int_equal(v[1].id, ids[11]);
	free(v);
	assert_int_equal(fs_image_update_meta(f->db, ids[5], 0, NULL), 0);
	assert_int_equal(fs_image_recent(f->db, &f->bob, &v, &n), 0);
	assert_int_equal(v[0].id, ids[11]); /* made private: no longer listed for bob */
	free(v);
}

static void json_view_has_calibration_or_null(void **state)
{
	fixture *f = *state;
	long long id = insert_image(f, &f->alice, "c.png", SHA_A, 1);
	assert_int_equal(fs_image_set_calibration(f->db, id, 0.5, "direct"), 0);
	fs_image_rec rec;
	assert_int_equal(fs_image_get(f->db, id, &rec), 0);
	cJSON *j = fs_image_to_json(&rec, "/fs/", &f->bob);
	cJSON *c = cJSON_GetObjectItem(j, "calibration");
	assert_true(cJSON_IsObject(c));
	assert_true(cJSON_GetObjectItem(c, "um_per_px")->valuedouble == 0.5);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "suggested_calibration")));
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(j, "can_manage")));
	const char *u = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "urls"), "display")->valuestring;
	assert_true(!strncmp(u, "/fs/api/images/", 15));
	cJSON_Delete(j);
	assert_int_equal(fs_image_set_calibration(f->db, id + 50, 0.5, "direct"), FS_DB_NOTFOUND);
}

static void names_are_sanitised_for_display(void **state)
{
	(void)state;
	char out[16];
	fs_image_name_sanitise("../../etc/passwd", out, sizeof out);
	assert_string_equal(out, "passwd");
	fs_image_name_sanitise("C:\\scans\\a\001b.tif", out, sizeof out);
	assert_string_equal(out, "a_b.tif");
	fs_image_name_sanitise("  ", out, sizeof out);
	assert_string_equal(out, "image");
	fs_image_name_sanitise("dir/..", out, sizeof out);
	assert_string_equal(out, "image");
	fs_image_name_sanitise("\xff\xfe.png", out, sizeof out);
	assert_string_equal(out, "__.png");
	fs_image_name_sanitise("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", out, sizeof out);
	assert_int_equal(strlen(out), 14); /* cut on a character boundary */
}


/* ---- the routes, through the dispatcher with a real database ---- */

typedef struct web {
	fs_app app;
	char dir[64];
	char cookie[200], csrf[100];
} web;

static int web_setup(void **state)
{
	web *x = calloc(1, sizeof *x);
	char err[512], token[65], csrf[65];
	long long id;
	snprintf(x->dir, sizeof x->dir, "/tmp/fs-images-web-XXXXXX");
	if (!mkdtemp(x->dir) || fs_app_config(&x->app, ".", NULL, err, sizeof err))
		return -1;
	snprintf(x->app.cfg.data_dir, sizeof x->app.cfg.data_dir, "%s", x->dir);
	x->app.cfg.upload_max_mb = 1;
	x->app.cfg.max_pixels = 100000;
	if (fs_app_open(&x->app, 1, err, sizeof err) ||
	    fs_user_create(x->app.db, "uploader", "Uploader", 0, NULL, &id, err, sizeof err) ||
	    fs_session_create(x->app.db, id, (long long)time(NULL), 3600, "127.0.0.1", token, csrf))
		return -1;
	snprintf(x->cookie, sizeof x->cookie, "HTTP_COOKIE=fs_session=%s", token);
	snprintf(x->csrf, sizeof x->csrf, "HTTP_X_CSRF_TOKEN=%s", csrf);
	*state = x;
	return 0;
}

static int web_teardown(void **state)
{
	web *x = *state;
	fs_app_close(&x->app);
	test_rm_tree(x->dir);
	free(x);
	return 0;
}

/* One request: method, path, content type (NULL = none), body of len bytes. */
static int web_run(web *x, const char *method, const char *path, const char *ctype, const char *body, size_t len,
		   fs_resp *w)
{
	char m[32], uri[256], ct[160], cl[64];
	snprintf(m, sizeof m, "REQUEST_METHOD=%s", method);
	snprintf(uri, sizeof uri, "DOCUMENT_URI=%s", path);
	snprintf(ct, sizeof ct, "CONTENT_TYPE=%s", ctype ? ctype : "");
	snprintf(cl, sizeof cl, "CONTENT_LENGTH=%zu", len);
	const char *env[] = {m, uri, "REMOTE_ADDR=127.0.0.1", x->cookie, x->csrf, ct, cl, NULL};
	fs_req r;
	fs_fake_io io;
	fs_fake_req(&r, &x->app, &io, env, NULL);
	io.body = body ? body : "";
	io.body_len = len;
	fs_resp_init(w);
	fs_dispatch(&r, w);
	fs_req_free(&r);
	return w->status;
}

#define BOUNDARY "xXfsTESTbOuNdArYXx"

/* multipart/form-data with one file part (caller frees). */
static char *multipart_file(const void *data, size_t len, const char *filename, size_t *out_len)
{
	char head[256];
	int h = snprintf(head, sizeof head,
			 "--" BOUNDARY "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"%s\"\r\n"
			 "Content-Type: application/octet-stream\r\n\r\n",
			 filename);
	static const char tail[] = "\r\n--" BOUNDARY "--\r\n";
	char *b = malloc((size_t)h + len + sizeof tail);
	memcpy(b, head, (size_t)h);
	memcpy(b + h, data, len);
	memcpy(b + h + len, tail, sizeof tail - 1);
	*out_len = (size_t)h + len + sizeof tail - 1;
	return b;
}

static unsigned char *gray_png(int w, int h, size_t *len)
{
	fs_image *img = fs_image_new(w, h);
	for (int i = 0; i < w * h; i++)
		img->data[i] = (float)((i * 37) % 256) / 255.0f;
	unsigned char *png = NULL;
	char err[128];
	fs_png_encode_gray(img, &png, len, err, sizeof err);
	fs_image_free(img);
	return png;
}

static int web_upload(web *x, const void *data, size_t len, const char *name, fs_resp *w)
{
	size_t bl;
	char *body = multipart_file(data, len, name, &bl);
	int st = web_run(x, "POST", "/api/images", "multipart/form-data; boundary=" BOUNDARY, body, bl, w);
	free(body);
	return st;
}

static int web_count(web *x, const char *sub)
{
	char p[160];
	snprintf(p, sizeof p, "%s/%s", x->dir, sub);
	return count_files(p);
}

static long long json_image_id(const fs_resp *w)
{
	cJSON *j = cJSON_ParseWithLength(w->body.data, w->body.len);
	long long id = (long long)cJSON_GetObjectItem(cJSON_GetObjectItem(j, "image"), "id")->valuedouble;
	cJSON_Delete(j);
	return id;
}

static void upload_png_creates_image_files_and_base_set(void **state)
{
	web *x = *state;
	size_t len;
	unsigned char *png = gray_png(40, 30, &len);
	fs_resp w;
	assert_int_equal(web_upload(x, png, len, "dir/a.png", &w), 201);
	assert_non_null(strstr(w.body.data, "\"name\":\"a.png\""));
	assert_non_null(strstr(w.body.data, "\"Base\""));
	fs_resp_free(&w);
	assert_int_equal(web_count(x, "originals"), 1);
	assert_int_equal(web_count(x, "display"), 1);
	assert_int_equal(web_count(x, "tmp"), 0);
	/* the same bytes again: the existing entry */
	assert_int_equal(web_upload(x, png, len, "again.png", &w), 200);
	assert_non_null(strstr(w.body.data, "\"existing\":true"));
	fs_resp_free(&w);
	assert_int_equal(web_count(x, "originals"), 1);
	free(png);
}

static void refused_uploads_leave_nothing_behind(void **state)
{
	web *x = *state;
	fs_resp w;
	static const char text[] = "hello, not an image";
	assert_int_equal(web_upload(x, text, sizeof text - 1, "t.tif", &w), 415);
	fs_resp_free(&w);
	assert_int_equal(web_upload(x, "", 0, "empty.png", &w), 400);
	fs_resp_free(&w);
	size_t len;
	unsigned char *png = gray_png(400, 300, &len); /* over max_pixels */
	assert_int_equal(web_upload(x, png, len, "big.png", &w), 413);
	assert_non_null(strstr(w.body.data, "too many pixels"));
	assert_null(strstr(w.body.data, x->dir)); /* no server path in the message */
	fs_resp_free(&w);
	free(png);
	png = gray_png(40, 40, &len);
	assert_int_equal(web_upload(x, png, len / 2, "cut.png", &w), 422);
	assert_non_null(strstr(w.body.data, "cannot read the image"));
	fs_resp_free(&w);
	free(png);
	static const char nofile[] = "--" BOUNDARY "\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n1\r\n--" BOUNDARY
				     "--\r\n";
	assert_int_equal(web_run(x, "POST", "/api/images", "multipart/form-data; boundary=" BOUNDARY, nofile,
				 sizeof nofile - 1, &w),
			 400);
	fs_resp_free(&w);
	assert_int_equal(web_run(x, "POST", "/api/images", "application/json", "{}", 2, &w), 415);
	fs_resp_free(&w);
	assert_int_equal(web_count(x, "tmp"), 0);
	assert_int_equal(web_count(x, "originals"), 0);
	assert_int_equal(web_count(x, "work"), 0);
}

static void rotate_calibrate_and_delete_through_routes(void **state)
{
	web *x = *state;
	size_t len;
	unsigned char *png = gray_png(20, 10, &len);
	fs_resp w;
	assert_int_equal(web_upload(x, png, len, "r.png", &w), 201);
	long long id = json_image_id(&w);
	fs_resp_free(&w);
	free(png);
	char path[128];
	snprintf(path, sizeof path, "/api/images/%lld/rotate", id);
	static const char left[] = "{\"direction\":\"left\"}";
	assert_int_equal(web_run(x, "POST", path, "application/json", left, sizeof left - 1, &w), 200);
	assert_non_null(strstr(w.body.data, "\"width\":10,\"height\":20"));
	fs_resp_free(&w);
	assert_int_equal(web_count(x, "display"), 2); /* the upload's stay (undo goes back to them) */
	snprintf(path, sizeof path, "/api/images/%lld/calibration", id);
	static const char cal[] = "{\"um_per_px\":2000}";
	assert_int_equal(web_run(x, "POST", path, "application/json", cal, sizeof cal - 1, &w), 422);
	fs_resp_free(&w);
	snprintf(path, sizeof path, "/api/images/%lld/display.png", id);
	assert_int_equal(web_run(x, "GET", path, NULL, NULL, 0, &w), 200);
	assert_non_null(strstr(w.headers.data, "X-Accel-Redirect: /_protected/display/"));
	fs_resp_free(&w);
	snprintf(path, sizeof path, "/api/images/%lld", id);
	assert_int_equal(web_run(x, "DELETE", path, NULL, NULL, 0, &w), 200);
	fs_resp_free(&w);
	assert_int_equal(web_run(x, "GET", path, NULL, NULL, 0, &w), 404);
	fs_resp_free(&w);
	assert_int_equal(web_count(x, "originals"), 0);
	assert_int_equal(web_count(x, "display"), 0);
	assert_int_equal(web_count(x, "thumbs"), 0);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(file_keys_must_be_lowercase_hex_of_64),
		T(atomic_write_replaces_and_leaves_no_temp_file),
		T(atomic_write_into_missing_directory_fails),
		T(publish_stores_same_content_once),
		T(work_image_round_trips),
		T(damaged_work_file_is_refused),
		T(derived_files_written_once_and_removed),
		T(derived_estimate_bounds_what_is_written),
		cmocka_unit_test(work_keys_follow_file_page_and_steps),
		T(private_image_visible_only_to_owner_and_admin),
		T(shared_image_readable_but_not_manageable_by_others),
		T(find_owned_dedupes_per_owner),
		T(delete_frees_files_only_when_last_user),
		T(transform_from_stale_key_is_refused),
		T(list_filters_sorts_pages_and_hides_private),
		T(recent_keeps_ten_most_recent_visible),
		T(json_view_has_calibration_or_null),
		cmocka_unit_test(names_are_sanitised_for_display),
		T(steps_undo_back_to_the_original_exactly),
		T(steps_made_before_undo_existed_stay),
		cmocka_unit_test_setup_teardown(upload_png_creates_image_files_and_base_set, web_setup, web_teardown),
		cmocka_unit_test_setup_teardown(refused_uploads_leave_nothing_behind, web_setup, web_teardown),
		cmocka_unit_test_setup_teardown(rotate_calibrate_and_delete_through_routes, web_setup, web_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
