/*
 * images_store.c - image records in SQLite, access rules, listings (see
 * images_store.h). Files are image_files.c's business; this module only
 * says which of them are still referenced.
 */
#include "store/images_store.h"
#include "store/work_file.h"
#include "store/pyramid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/eventlog.h"
#include "store/image_files.h"
#include "store/db_bind.h"

#define REC_COLS                                                                                             \
	"i.id, i.owner_id, coalesce(u.login, ''), i.file_sha256, i.work_key, i.original_name, i.format, "   \
	"i.width, i.height, i.bit_depth, i.channels, i.n_pages, i.visibility, i.um_per_px, "                \
	"i.calibration_method, i.suggested_um_per_px, i.suggested_source, i.rotation, "                     \
	"i.xf_revision, i.created_at, i.updated_at, "                                                         \
	"(SELECT count(*) FROM sets s WHERE s.image_id = i.id), i.base_key, i.base_step, "                  \
	"json_array_length(i.transforms) "
#define REC_FROM "FROM images i LEFT JOIN users u ON u.id = i.owner_id "

static void read_rec(sqlite3_stmt *st, fs_image_rec *r)
{
	memset(r, 0, sizeof *r);
	r->id = sqlite3_column_int64(st, 0);
	r->owner_id = sqlite3_column_int64(st, 1);
	fs_db_col_text(st, 2, r->owner_login, sizeof r->owner_login);
	fs_db_col_text(st, 3, r->file_sha256, sizeof r->file_sha256);
	fs_db_col_text(st, 4, r->work_key, sizeof r->work_key);
	fs_db_col_text(st, 5, r->original_name, sizeof r->original_name);
	fs_db_col_text(st, 6, r->format, sizeof r->format);
	r->width = sqlite3_column_int(st, 7);
	r->height = sqlite3_column_int(st, 8);
	r->bit_depth = sqlite3_column_int(st, 9);
	r->channels = sqlite3_column_int(st, 10);
	r->n_pages = sqlite3_column_int(st, 11);
	const unsigned char *vis = sqlite3_column_text(st, 12);
	r->shared = vis && !strcmp((const char *)vis, "shared");
	r->um_per_px = sqlite3_column_double(st, 13);
	fs_db_col_text(st, 14, r->calibration_method, sizeof r->calibration_method);
	r->suggested_um_per_px = sqlite3_column_double(st, 15);
	fs_db_col_text(st, 16, r->suggested_source, sizeof r->suggested_source);
	r->rotation = sqlite3_column_int(st, 17);
	r->revision = sqlite3_column_int(st, 18);
	r->created_at = sqlite3_column_int64(st, 19);
	r->updated_at = sqlite3_column_int64(st, 20);
	r->n_sets = sqlite3_column_int(st, 21);
	fs_db_col_text(st, 22, r->base_key, sizeof r->base_key);
	if (!r->base_key[0]) /* a row written without one: its work key is its base */
		snprintf(r->base_key, sizeof r->base_key, "%s", r->work_key);
	r->base_step = sqlite3_column_int(st, 23);
	r->n_steps = sqlite3_column_int(st, 24);
}

static int step_rc(fs_bind *b)
{
	int rc = fs_bind_step(b);
	if (rc == SQLITE_DONE)
		return FS_DB_OK;
	return fs_db_rc_from_sqlite(rc);
}

/* Steps a bound statement of at most one image row into out (may be NULL)
 * and finishes it: FS_DB_OK, FS_DB_NOTFOUND or the error. */
static int one_rec(fs_bind *b, fs_image_rec *out)
{
	sqlite3_stmt *st = b->st;
	int rc = fs_bind_step(b);
	if (rc == SQLITE_ROW && out)
		read_rec(st, out);
	fs_db_done(st);
	return fs_db_row_rc(rc);
}

int fs_image_get(fs_db *db, long long id, fs_image_rec *out)
{
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT " REC_COLS REC_FROM "WHERE i.id = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, id);
	return one_rec(&b, out);
}

int fs_image_can_manage(const fs_image_rec *rec, const fs_user *u)
{
	return u && (u->is_admin || u->id == rec->owner_id);
}

int fs_image_check_access(fs_db *db, long long image_id, const fs_user *u, int want, fs_image_rec *out)
{
	fs_image_rec rec;
	int rc = fs_image_get(db, image_id, &rec);
	if (rc)
		return rc;
	int manage = fs_image_can_manage(&rec, u);
	if (!manage && !rec.shared)
		return FS_DB_NOTFOUND;
	if ((want & FS_ACCESS_MANAGE) && !manage)
		return FS_DB_FORBIDDEN;
	if (out)
		*out = rec;
	return FS_DB_OK;
}

fs_image *fs_image_load_work(const char *data_dir, const fs_image_rec *rec, char *err, size_t errlen)
{
	char path[4096];
	if (fs_file_path(data_dir, FS_FILE_WORK, rec->work_key, path, sizeof path)) {
		snprintf(err, errlen, "the image has no valid working file key");
		return NULL;
	}
	return fs_work_read(path, err, errlen);
}

fs_image *fs_image_load_work_compact(const char *data_dir, const fs_image_rec *rec, char *err, size_t errlen)
{
	char path[4096];
	if (fs_file_path(data_dir, FS_FILE_WORK, rec->work_key, path, sizeof path)) {
		snprintf(err, errlen, "the image has no valid working file key");
		return NULL;
	}
	return fs_work_file_read_compact(path, err, errlen);
}

int fs_image_find_owned(fs_db *db, long long owner_id, const char *sha256, fs_image_rec *out)
{
	sqlite3_stmt *st =
		fs_db_stmt(db, "SELECT " REC_COLS REC_FROM "WHERE i.owner_id = ? AND i.file_sha256 = ? ORDER BY i.id LIMIT 1");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, owner_id);
	fs_bind_text(&b, 2, sha256, -1, SQLITE_TRANSIENT);
	return one_rec(&b, out);
}

static void bind_opt_text(fs_bind *b, int col, const char *s)
{
	if (s && *s)
		fs_bind_text(b, col, s, -1, SQLITE_TRANSIENT);
	else
		fs_bind_null(b, col);
}

static void bind_opt_double(fs_bind *b, int col, double v)
{
	if (v > 0)
		fs_bind_double(b, col, v);
	else
		fs_bind_null(b, col);
}

int fs_image_log_loaded(fs_db *db, long long user_id, const fs_image_rec *rec, int background_job)
{
	cJSON *ev = cJSON_CreateObject();
	cJSON_AddStringToObject(ev, "filename", rec->original_name);
	cJSON_AddNumberToObject(ev, "width", rec->width);
	cJSON_AddNumberToObject(ev, "height", rec->height);
	cJSON_AddStringToObject(ev, "format", rec->format);
	if (background_job)
		cJSON_AddBoolToObject(ev, "background_job", 1);
	int rc = fs_event_log(db, user_id, rec->id, "image_loaded", ev);
	cJSON_Delete(ev);
	return rc;
}

void fs_image_rec_from_loaded(fs_image_rec *rec, long long owner_id, const char *file_sha256, int page,
			      const char *original_name, const fs_loaded *ld)
{
	rec->owner_id = owner_id;
	snprintf(rec->file_sha256, sizeof rec->file_sha256, "%s", file_sha256);
	fs_work_key_initial(file_sha256, page, rec->work_key);
	snprintf(rec->original_name, sizeof rec->original_name, "%s", original_name);
	snprintf(rec->format, sizeof rec->format, "%s", fs_format_name(ld->format));
	rec->width = ld->image->width;
	rec->height = ld->image->height;
	rec->bit_depth = ld->bit_depth;
	rec->channels = ld->channels;
	rec->n_pages = ld->n_pages;
	rec->suggested_um_per_px = ld->suggested_um_per_px;
	snprintf(rec->suggested_source, sizeof rec->suggested_source, "%s", ld->calibration_source);
}

int fs_image_insert(fs_db *db, fs_image_rec *rec, long long file_size)
{
	long long now = (long long)time(NULL);
	sqlite3_stmt *st = fs_db_stmt(db, "INSERT OR IGNORE INTO image_files (sha256, size, format, created_at) "
					  "VALUES (?, ?, ?, ?)");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_text(&b, 1, rec->file_sha256, -1, SQLITE_TRANSIENT);
	fs_bind_int64(&b, 2, file_size);
	fs_bind_text(&b, 3, rec->format, -1, SQLITE_TRANSIENT);
	fs_bind_int64(&b, 4, now);
	int rc = step_rc(&b);
	fs_db_done(st);
	if (rc)
		return rc;
	st = fs_db_stmt(db, "INSERT INTO images (owner_id, file_sha256, work_key, original_name, format, width, "
			    "height, bit_depth, channels, n_pages, visibility, um_per_px, calibration_method, "
			    "suggested_um_per_px, suggested_source, rotation, created_at, updated_at, base_key) "
			    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?3)");
	if (!st)
		return FS_DB_ERROR;
	b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, rec->owner_id);
	fs_bind_text(&b, 2, rec->file_sha256, -1, SQLITE_TRANSIENT);
	fs_bind_text(&b, 3, rec->work_key, -1, SQLITE_TRANSIENT);
	fs_bind_text(&b, 4, rec->original_name, -1, SQLITE_TRANSIENT);
	fs_bind_text(&b, 5, rec->format, -1, SQLITE_TRANSIENT);
	fs_bind_int(&b, 6, rec->width);
	fs_bind_int(&b, 7, rec->height);
	fs_bind_int(&b, 8, rec->bit_depth);
	fs_bind_int(&b, 9, rec->channels);
	fs_bind_int(&b, 10, rec->n_pages);
	fs_bind_text(&b, 11, rec->shared ? "shared" : "private", -1, SQLITE_STATIC);
	bind_opt_double(&b, 12, rec->um_per_px);
	bind_opt_text(&b, 13, rec->um_per_px > 0 ? rec->calibration_method : NULL);
	bind_opt_double(&b, 14, rec->suggested_um_per_px);
	bind_opt_text(&b, 15, rec->suggested_um_per_px > 0 ? rec->suggested_source : NULL);
	fs_bind_int(&b, 16, rec->rotation);
	fs_bind_int64(&b, 17, now);
	fs_bind_int64(&b, 18, now);
	rc = step_rc(&b);
	fs_db_done(st);
	if (rc)
		return rc;
	rec->id = sqlite3_last_insert_rowid(fs_db_handle(db));
	rec->created_at = rec->updated_at = now;
	return FS_DB_OK;
}

static int changed_one(fs_db *db)
{
	return sqlite3_changes(fs_db_handle(db)) > 0 ? FS_DB_OK : FS_DB_NOTFOUND;
}

int fs_image_update_meta(fs_db *db, long long id, int shared, const char *original_name)
{
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE images SET "
					  "visibility = CASE WHEN ?2 < 0 THEN visibility WHEN ?2 = 1 THEN 'shared' "
					  "ELSE 'private' END, "
					  "original_name = coalesce(?3, original_name), updated_at = ?4 WHERE id = ?1");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, id);
	fs_bind_int(&b, 2, shared < 0 ? -1 : !!shared);
	if (original_name)
		fs_bind_text(&b, 3, original_name, -1, SQLITE_TRANSIENT);
	fs_bind_int64(&b, 4, (long long)time(NULL));
	int rc = step_rc(&b);
	fs_db_done(st);
	return rc ? rc : changed_one(db);
}

static int count_where(fs_db *db, const char *sql, const char *key, int *n)
{
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_text(&b, 1, key, -1, SQLITE_TRANSIENT);
	int rc = fs_bind_step(&b);
	if (rc == SQLITE_ROW) {
		*n = sqlite3_column_int(st, 0);
		rc = FS_DB_OK;
	} else {
		rc = fs_db_rc_from_sqlite(rc);
	}
	fs_db_done(st);
	return rc;
}

int fs_image_work_key_in_use(fs_db *db, const char *key, int *in_use)
{
	int n = 0;
	int rc = count_where(db, "SELECT count(*) FROM images WHERE work_key = ?1 OR base_key = ?1", key, &n);
	*in_use = n > 0;
	return rc;
}

int fs_image_file_in_use(fs_db *db, const char *sha256, int *in_use)
{
	int n = 0;
	int rc = count_where(db, "SELECT count(*) FROM images WHERE file_sha256 = ?", sha256, &n);
	*in_use = n > 0;
	return rc;
}

int fs_image_delete(fs_db *db, long long id, int *original_unused, int *work_unused, int *base_unused)
{
	*original_unused = *work_unused = *base_unused = 0;
	fs_image_rec rec;
	int rc = fs_image_get(db, id, &rec);
	if (rc)
		return rc;
	sqlite3_stmt *st = fs_db_stmt(db, "DELETE FROM images WHERE id = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, id);
	rc = step_rc(&b);
	fs_db_done(st);
	if (rc)
		return rc;
	int n = 0;
	rc = count_where(db, "SELECT count(*) FROM images WHERE file_sha256 = ?", rec.file_sha256, &n);
	if (rc)
		return rc;
	if (!n) {
		st = fs_db_stmt(db, "DELETE FROM image_files WHERE sha256 = ?");
		if (!st)
			return FS_DB_ERROR;
		b = fs_bind_start(db, st);
		fs_bind_text(&b, 1, rec.file_sha256, -1, SQLITE_TRANSIENT);
		rc = step_rc(&b);
		fs_db_done(st);
		if (rc)
			return rc;
		*original_unused = 1;
	}
	int used = 1;
	rc = fs_image_work_key_in_use(db, rec.work_key, &used);
	if (rc)
		return rc;
	*work_unused = !used;
	if (strcmp(rec.base_key, rec.work_key)) {
		used = 1;
		rc = fs_image_work_key_in_use(db, rec.base_key, &used);
		if (rc)
			return rc;
		*base_unused = !used;
	}
	return FS_DB_OK;
}

int fs_image_set_steps(fs_db *db, long long id, const char *old_key, const char *new_key, int width, int height,
		       int rotation, const cJSON *steps)
{
	char *js = cJSON_PrintUnformatted(steps);
	if (!js)
		return FS_DB_ERROR;
	int rc = FS_DB_ERROR;
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE images SET work_key = ?2, width = ?3, height = ?4, rotation = ?5, "
					  "transforms = json(?6), xf_revision = xf_revision + 1, updated_at = ?7 "
					  "WHERE id = ?1 AND work_key = ?8");
	if (!st)
		goto out;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, id);
	fs_bind_text(&b, 2, new_key, -1, SQLITE_TRANSIENT);
	fs_bind_int(&b, 3, width);
	fs_bind_int(&b, 4, height);
	fs_bind_int(&b, 5, rotation);
	fs_bind_text(&b, 6, js, -1, SQLITE_TRANSIENT);
	fs_bind_int64(&b, 7, (long long)time(NULL));
	fs_bind_text(&b, 8, old_key, -1, SQLITE_TRANSIENT);
	rc = step_rc(&b);
	fs_db_done(st);
	if (!rc && changed_one(db)) {
		/* gone, or transformed by someone else since old_key was read */
		rc = fs_image_get(db, id, NULL) == FS_DB_OK ? FS_DB_STALE : FS_DB_NOTFOUND;
	}
out:
	cJSON_free(js);
	return rc;
}

/* ---- transform steps ---- */

static const char *const step_kinds[] = {"rotate_left", "rotate_right", "crop"};

static double jnum(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static void jstr(const cJSON *o, const char *k, char *dst, size_t n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	snprintf(dst, n, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

void fs_image_step_label(fs_image_step *s)
{
	const fs_rect *r = &s->t.rect;
	if (s->t.kind == FS_TRANSFORM_ROTATE_LEFT)
		snprintf(s->label, sizeof s->label, "rotate 90° counter-clockwise");
	else if (s->t.kind == FS_TRANSFORM_ROTATE_RIGHT)
		snprintf(s->label, sizeof s->label, "rotate 90° clockwise");
	else
		snprintf(s->label, sizeof s->label, "%s %d,%d %d×%d",
			 !strcmp(s->event, "image_autocropped") ? "autocrop" : "crop", r->x, r->y, r->width, r->height);
}

int fs_image_steps_parse(const char *json, fs_image_step **steps, size_t *n)
{
	*steps = NULL;
	*n = 0;
	cJSON *a = cJSON_Parse(json ? json : "[]");
	if (!cJSON_IsArray(a)) {
		cJSON_Delete(a);
		return -1;
	}
	int count = cJSON_GetArraySize(a), rc = 0;
	fs_image_step *v = count ? calloc((size_t)count, sizeof *v) : NULL;
	if (count && !v) {
		cJSON_Delete(a);
		return -1;
	}
	const cJSON *o;
	size_t k = 0;
	cJSON_ArrayForEach(o, a)
	{
		fs_image_step *s = &v[k++];
		char kind[32];
		jstr(o, "kind", kind, sizeof kind);
		int known = -1;
		for (int i = 0; i < 3; i++)
			if (!strcmp(kind, step_kinds[i]))
				known = i;
		if (known < 0) {
			rc = -1;
			break;
		}
		s->t.kind = (fs_transform_kind)known;
		s->t.src_width = (int)jnum(o, "src_width");
		s->t.src_height = (int)jnum(o, "src_height");
		s->t.rect = (fs_rect){(int)jnum(o, "x"), (int)jnum(o, "y"), (int)jnum(o, "width"), (int)jnum(o, "height")};
		jstr(o, "from_key", s->from_key, sizeof s->from_key);
		jstr(o, "event", s->event, sizeof s->event);
		if (!s->event[0])
			snprintf(s->event, sizeof s->event, "%s", known == 2 ? "image_cropped" : "image_rotated");
		s->user_id = (long long)jnum(o, "user_id");
		s->at = (long long)jnum(o, "at");
		fs_image_step_label(s);
	}
	cJSON_Delete(a);
	if (rc) {
		free(v);
		return -1;
	}
	*steps = v;
	*n = k;
	return 0;
}

cJSON *fs_image_step_json(const fs_image_step *s)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "kind", step_kinds[s->t.kind <= FS_TRANSFORM_CROP ? s->t.kind : 2]);
	cJSON_AddNumberToObject(o, "src_width", s->t.src_width);
	cJSON_AddNumberToObject(o, "src_height", s->t.src_height);
	cJSON_AddNumberToObject(o, "x", s->t.rect.x);
	cJSON_AddNumberToObject(o, "y", s->t.rect.y);
	cJSON_AddNumberToObject(o, "width", s->t.rect.width);
	cJSON_AddNumberToObject(o, "height", s->t.rect.height);
	if (s->from_key[0])
		cJSON_AddStringToObject(o, "from_key", s->from_key);
	cJSON_AddStringToObject(o, "event", s->event);
	cJSON_AddStringToObject(o, "label", s->label);
	cJSON_AddNumberToObject(o, "user_id", (double)s->user_id);
	cJSON_AddNumberToObject(o, "at", (double)s->at);
	return o;
}

/* images.transforms and base_step of an image. */
static int read_steps(fs_db *db, long long image_id, fs_image_step **steps, size_t *n, int *base_step)
{
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT transforms, base_step FROM images WHERE id = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, image_id);
	int rc = fs_bind_step(&b);
	if (rc == SQLITE_ROW) {
		*base_step = sqlite3_column_int(st, 1);
		rc = fs_image_steps_parse((const char *)sqlite3_column_text(st, 0), steps, n) ? FS_DB_ERROR : FS_DB_OK;
	} else {
		rc = fs_db_row_rc(rc);
	}
	fs_db_done(st);
	return rc;
}

int fs_image_steps(fs_db *db, long long image_id, fs_image_step **steps, size_t *n)
{
	int base;
	return read_steps(db, image_id, steps, n, &base);
}

int fs_image_set_calibration(fs_db *db, long long id, double um_per_px, const char *method)
{
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE images SET um_per_px = ?2, calibration_method = ?3, updated_at = ?4 "
					  "WHERE id = ?1");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, id);
	bind_opt_double(&b, 2, um_per_px);
	bind_opt_text(&b, 3, um_per_px > 0 ? method : NULL);
	fs_bind_int64(&b, 4, (long long)time(NULL));
	int rc = step_rc(&b);
	fs_db_done(st);
	return rc ? rc : changed_one(db);
}

int fs_image_touch_recent(fs_db *db, long long user_id, long long image_id)
{
	sqlite3_stmt *st = fs_db_stmt(db, "INSERT INTO recent_images (user_id, image_id, opened_at) VALUES (?1, ?2, "
					  "max(?3, coalesce((SELECT max(opened_at) FROM recent_images WHERE user_id = ?1), 0) + 1)) "
					  "ON CONFLICT (user_id, image_id) DO UPDATE SET opened_at = excluded.opened_at");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	/* milliseconds, and strictly after the user's last opening, so two
	 * images opened in the same instant still keep their order */
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	long long now_ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	fs_bind_int64(&b, 1, user_id);
	fs_bind_int64(&b, 2, image_id);
	fs_bind_int64(&b, 3, now_ms);
	int rc = step_rc(&b);
	fs_db_done(st);
	if (rc)
		return rc;
	st = fs_db_stmt(db, "DELETE FROM recent_images WHERE user_id = ?1 AND image_id NOT IN "
			    "(SELECT image_id FROM recent_images WHERE user_id = ?1 "
			    "ORDER BY opened_at DESC, image_id DESC LIMIT ?2)");
	if (!st)
		return FS_DB_ERROR;
	b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, user_id);
	fs_bind_int(&b, 2, FS_RECENT_MAX);
	rc = step_rc(&b);
	fs_db_done(st);
	return rc;
}

/* Collects every row of a prepared statement into a malloc'ed array. */
static int collect(fs_bind *b, fs_image_rec **out, size_t *n)
{
	sqlite3_stmt *st = b->st;
	size_t cap = 0, k = 0;
	fs_image_rec *v = NULL;
	int rc;
	while ((rc = fs_bind_step(b)) == SQLITE_ROW) {
		if (k == cap) {
			size_t nc = cap ? cap * 2 : 16;
			fs_image_rec *nv = realloc(v, nc * sizeof *nv);
			if (!nv) {
				free(v);
				return FS_DB_ERROR;
			}
			v = nv;
			cap = nc;
		}
		read_rec(st, &v[k++]);
	}
	if (rc != SQLITE_DONE) {
		free(v);
		return fs_db_rc_from_sqlite(rc);
	}
	*out = v;
	*n = k;
	return FS_DB_OK;
}

#define VISIBLE_WHERE                                                                                        \
	"WHERE (?1 OR i.owner_id = ?2 OR i.visibility = 'shared') "                                          \
	"AND (?3 = '' OR i.original_name LIKE '%' || ?3 || '%' ESCAPE '\\') "
#define LIST_SQL(order) "SELECT " REC_COLS REC_FROM VISIBLE_WHERE "ORDER BY " order " LIMIT ?4 OFFSET ?5"

/* Static SQL per sort order: the ORDER BY cannot be a bound value. */
static const char *const list_sql[3][2] = {
	{LIST_SQL("i.created_at, i.id"), LIST_SQL("i.created_at DESC, i.id DESC")},
	{LIST_SQL("i.original_name COLLATE NOCASE, i.id"), LIST_SQL("i.original_name COLLATE NOCASE DESC, i.id DESC")},
	{LIST_SQL("u.login COLLATE NOCASE, i.id"), LIST_SQL("u.login COLLATE NOCASE DESC, i.id DESC")},
};

/* LIKE pattern characters in the search text are literal. */
static char *like_escape(const char *q)
{
	size_t n = strlen(q);
	char *o = malloc(2 * n + 1);
	if (!o)
		return NULL;
	char *p = o;
	for (; *q; q++) {
		if (*q == '%' || *q == '_' || *q == '\\')
			*p++ = '\\';
		*p++ = *q;
	}
	*p = 0;
	return o;
}

static void bind_visible(fs_bind *b, const fs_user *u, const char *pat)
{
	fs_bind_int(b, 1, u->is_admin ? 1 : 0);
	fs_bind_int64(b, 2, u->id);
	fs_bind_text(b, 3, pat, -1, SQLITE_TRANSIENT);
}

int fs_image_list(fs_db *db, const fs_user *u, const fs_image_query *q, fs_image_rec **out, size_t *n,
		  long long *total)
{
	*out = NULL;
	*n = 0;
	*total = 0;
	int sort = q->sort >= FS_SORT_DATE && q->sort <= FS_SORT_OWNER ? q->sort : FS_SORT_DATE;
	int per = q->per_page < 1 ? 20 : q->per_page > FS_PER_PAGE_MAX ? FS_PER_PAGE_MAX : q->per_page;
	long long page = q->page < 1 ? 1 : q->page;
	char *pat = like_escape(q->q ? q->q : "");
	if (!pat)
		return FS_DB_ERROR;
	int rc = FS_DB_ERROR;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT count(*) " REC_FROM VISIBLE_WHERE);
	if (!st)
		goto out;
	fs_bind b = fs_bind_start(db, st);
	bind_visible(&b, u, pat);
	rc = fs_bind_step(&b);
	if (rc == SQLITE_ROW) {
		*total = sqlite3_column_int64(st, 0);
		rc = FS_DB_OK;
	} else {
		rc = fs_db_rc_from_sqlite(rc);
	}
	fs_db_done(st);
	if (rc)
		goto out;
	st = fs_db_stmt(db, list_sql[sort][q->desc ? 1 : 0]);
	if (!st) {
		rc = FS_DB_ERROR;
		goto out;
	}
	b = fs_bind_start(db, st);
	bind_visible(&b, u, pat);
	fs_bind_int(&b, 4, per);
	fs_bind_int64(&b, 5, (page - 1) * per);
	rc = collect(&b, out, n);
	fs_db_done(st);
out:
	free(pat);
	return rc;
}

int fs_image_recent(fs_db *db, const fs_user *u, fs_image_rec **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT " REC_COLS "FROM recent_images r JOIN images i ON i.id = r.image_id "
					  "LEFT JOIN users u ON u.id = i.owner_id "
					  "WHERE r.user_id = ?2 AND (?1 OR i.owner_id = ?2 OR i.visibility = 'shared') "
					  "ORDER BY r.opened_at DESC, i.id DESC LIMIT ?3");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int(&b, 1, u->is_admin ? 1 : 0);
	fs_bind_int64(&b, 2, u->id);
	fs_bind_int(&b, 3, FS_RECENT_MAX);
	int rc = collect(&b, out, n);
	fs_db_done(st);
	return rc;
}

cJSON *fs_image_to_json(const fs_image_rec *rec, const char *base_path, const fs_user *viewer)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	char url[1200];
	cJSON_AddNumberToObject(o, "id", (double)rec->id);
	cJSON_AddStringToObject(o, "name", rec->original_name);
	cJSON_AddStringToObject(o, "original_name", rec->original_name);
	cJSON_AddNumberToObject(o, "owner_id", (double)rec->owner_id);
	cJSON_AddStringToObject(o, "owner_login", rec->owner_login);
	cJSON_AddStringToObject(o, "visibility", rec->shared ? "shared" : "private");
	cJSON_AddBoolToObject(o, "can_manage", fs_image_can_manage(rec, viewer));
	cJSON_AddStringToObject(o, "format", rec->format);
	cJSON_AddNumberToObject(o, "width", rec->width);
	cJSON_AddNumberToObject(o, "height", rec->height);
	cJSON_AddNumberToObject(o, "bit_depth", rec->bit_depth);
	cJSON_AddNumberToObject(o, "channels", rec->channels);
	cJSON_AddNumberToObject(o, "n_pages", rec->n_pages);
	cJSON_AddStringToObject(o, "sha256", rec->file_sha256);
	if (rec->um_per_px > 0) {
		cJSON *c = cJSON_AddObjectToObject(o, "calibration");
		cJSON_AddNumberToObject(c, "um_per_px", rec->um_per_px);
		cJSON_AddStringToObject(c, "method", rec->calibration_method);
	} else {
		cJSON_AddNullToObject(o, "calibration");
	}
	if (rec->suggested_um_per_px > 0) {
		cJSON *c = cJSON_AddObjectToObject(o, "suggested_calibration");
		cJSON_AddNumberToObject(c, "um_per_px", rec->suggested_um_per_px);
		cJSON_AddStringToObject(c, "source", rec->suggested_source);
	} else {
		cJSON_AddNullToObject(o, "suggested_calibration");
	}
	cJSON_AddNumberToObject(o, "rotation", rec->rotation);
	cJSON_AddNumberToObject(o, "revision", rec->revision);
	/* steps that can be undone (the Image tab's history lists them) */
	cJSON_AddNumberToObject(o, "undoable_steps", rec->n_steps > rec->base_step ? rec->n_steps - rec->base_step : 0);
	cJSON_AddNumberToObject(o, "n_sets", rec->n_sets);
	cJSON_AddNumberToObject(o, "created_at", (double)rec->created_at);
	cJSON_AddNumberToObject(o, "updated_at", (double)rec->updated_at);
	/* the key in the query string changes with every transform, so a
	 * cached copy of the old pixels is never shown for the new ones */
	cJSON *urls = cJSON_AddObjectToObject(o, "urls");
	snprintf(url, sizeof url, "%sapi/images/%lld/display.png?v=%.12s", base_path, rec->id, rec->work_key);
	cJSON_AddStringToObject(urls, "display", url);
	snprintf(url, sizeof url, "%sapi/images/%lld/thumb.png?v=%.12s", base_path, rec->id, rec->work_key);
	cJSON_AddStringToObject(urls, "thumb", url);
	/* a large image: the display PNG is an overview, the pyramid has the
	 * pixels (the client fills in z, x and y) */
	if (fs_pyramid_wanted(rec->width, rec->height)) {
		cJSON *t = cJSON_AddObjectToObject(o, "tiles");
		snprintf(url, sizeof url, "%sapi/images/%lld/tiles/{z}-{x}-{y}.jpg?v=%.12s", base_path, rec->id,
			 rec->work_key);
		cJSON_AddStringToObject(t, "url", url);
		cJSON_AddNumberToObject(t, "size", FS_TILE_SIDE);
		cJSON_AddNumberToObject(t, "levels", fs_pyramid_levels(rec->width, rec->height));
	} else {
		cJSON_AddNullToObject(o, "tiles");
	}
	return o;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0. */
static int utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	int n;
	unsigned cp;
	if ((s[0] & 0xE0) == 0xC0) {
		n = 2;
		cp = s[0] & 0x1F;
	} else if ((s[0] & 0xF0) == 0xE0) {
		n = 3;
		cp = s[0] & 0x0F;
	} else if ((s[0] & 0xF8) == 0xF0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	static const unsigned min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
	if (cp < min_cp[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

void fs_image_name_sanitise(const char *in, char *out, size_t outlen)
{
	if (!outlen)
		return;
	const char *base = in ? in : "";
	for (const char *p = base; *p; p++)
		if (*p == '/' || *p == '\\')
			base = p + 1;
	size_t k = 0;
	const unsigned char *s = (const unsigned char *)base;
	while (*s && k + 1 < outlen) {
		int n = utf8_len(s);
		if (n == 0 || s[0] < 0x20 || s[0] == 0x7F) {
			/* control characters and broken bytes become one '_' each */
			out[k++] = '_';
			s++;
			continue;
		}
		if (k + (size_t)n >= outlen)
			break;
		if (!(k == 0 && s[0] == ' ')) {
			memcpy(out + k, s, (size_t)n);
			k += (size_t)n;
		}
		s += n;
	}
	while (k > 0 && out[k - 1] == ' ')
		k--;
	out[k] = 0;
	if (!k || !strcmp(out, ".") || !strcmp(out, ".."))
		snprintf(out, outlen, "image");
}
