/*
 * image_steps.c - rotate, crop and autocrop as undoable steps of an
 * image (see image_steps.h).
 */
#include "store/image_steps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/eventlog.h"
#include "store/image_files.h"
#include "store/images_store.h"
#include "store/work_file.h"
#include "store/scale_regions.h"
#include "store/sets_store.h"
#include "store/db_bind.h"

#define ERR(...) snprintf(err, errlen, __VA_ARGS__)

/* The working image of a work key, compact when its file is 8- or 16-bit
 * (image.h): a step only moves samples, and the scale region, autocrop and
 * the derived files read either storage, so a 100 MP 8-bit image takes
 * 100 MB here instead of 400 MB, with the same files written. */
static fs_image *load_key(const char *data_dir, const char *key, char *err, size_t errlen)
{
	char path[4096];
	if (fs_file_path(data_dir, FS_FILE_WORK, key, path, sizeof path)) {
		ERR("the image has no valid working file key");
		return NULL;
	}
	return fs_work_file_read_compact(path, err, errlen);
}

/* One step on an image: a new image (caller frees) and what was applied. */
static fs_image *step_image(const fs_image *img, fs_transform_kind kind, fs_rect rect, fs_transform *t, char *err,
			    size_t errlen)
{
	if (kind == FS_TRANSFORM_CROP)
		return fs_image_crop(img, rect, t, err, errlen);
	return fs_image_rotate(img, kind, t, err, errlen);
}

/* The work-key step string (image_files.h): "rotate_left", "crop:x,y,w,h". */
static void key_step(const fs_transform *t, char *out, size_t n)
{
	if (t->kind == FS_TRANSFORM_CROP)
		snprintf(out, n, "crop:%d,%d,%d,%d", t->rect.x, t->rect.y, t->rect.width, t->rect.height);
	else
		snprintf(out, n, "%s", t->kind == FS_TRANSFORM_ROTATE_LEFT ? "rotate_left" : "rotate_right");
}

/* Removes the derived files of key when no image uses them any more. */
static void drop_if_unused(fs_db *db, const char *data_dir, const char *key)
{
	int used = 1;
	if (!fs_image_work_key_in_use(db, key, &used) && !used)
		fs_files_remove_derived(data_dir, key);
}

/* The stored list of steps with s appended or cut to keep (caller deletes). */
static cJSON *steps_json(const fs_image_step *steps, size_t n, const fs_image_step *extra)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; a && i < n; i++)
		cJSON_AddItemToArray(a, fs_image_step_json(&steps[i]));
	if (a && extra)
		cJSON_AddItemToArray(a, fs_image_step_json(extra));
	return a;
}

static int rotation_after(int rotation, fs_transform_kind k, int undo)
{
	int turn = k == FS_TRANSFORM_ROTATE_RIGHT ? 90 : k == FS_TRANSFORM_ROTATE_LEFT ? 270 : 0;
	if (undo)
		turn = (360 - turn) % 360;
	return (rotation + turn) % 360;
}

int fs_image_step_apply(fs_db *db, const char *data_dir, long long image_id, long long user_id,
			const fs_step_request *req, char *err, size_t errlen)
{
	fs_image_rec rec;
	fs_image *img = NULL, *out = NULL;
	fs_image_step *steps = NULL, s;
	size_t n = 0;
	cJSON *list = NULL, *details = NULL, *hist = NULL;
	char key[65] = "", step[96];
	int rc, in_tx = 0, created = 0;
	err[0] = 0;
	memset(&s, 0, sizeof s);

	rc = fs_image_get(db, image_id, &rec);
	if (rc == FS_DB_NOTFOUND)
		ERR("no such image");
	if (rc)
		return rc;
	if (req->expect_revision >= 0 && req->expect_revision != rec.revision) {
		ERR("the image is at revision %d, not %d: reload it", rec.revision, req->expect_revision);
		return FS_DB_STALE;
	}
	img = load_key(data_dir, rec.work_key, err, errlen);
	if (!img)
		return FS_DB_ERROR;
	fs_rect want = req->rect;
	fs_transform_kind kind = req->kind == FS_STEP_ROTATE_LEFT    ? FS_TRANSFORM_ROTATE_LEFT
				 : req->kind == FS_STEP_ROTATE_RIGHT ? FS_TRANSFORM_ROTATE_RIGHT
								     : FS_TRANSFORM_CROP;
	if (req->kind == FS_STEP_AUTOCROP) {
		/* crop to the scale region's bounding box when that removes
		 * something (a paper band, a black surround, a data band); else
		 * the original's rule (rows and columns without variance) */
		fs_scale_region reg;
		int d = 1;
		if (fs_scale_region_for(db, image_id, rec.work_key, img, &reg, NULL, err, errlen) == FS_DB_OK) {
			fs_rect bb;
			if (!fs_scale_region_bbox(&reg, &bb) &&
			    (bb.x > 0 || bb.y > 0 || bb.width < img->width || bb.height < img->height)) {
				want = bb;
				d = 0;
			}
			fs_scale_region_free(&reg);
		}
		err[0] = 0;
		if (d)
			d = fs_image_autocrop_detect(img, &want, err, errlen);
		if (d) {
			if (d == 1)
				ERR("nothing to crop");
			rc = d == 1 ? FS_DB_INVALID : FS_DB_ERROR;
			goto out;
		}
	}
	out = step_image(img, kind, want, &s.t, err, errlen);
	if (!out) {
		rc = FS_DB_INVALID;
		goto out;
	}
	if (kind == FS_TRANSFORM_CROP && s.t.rect.x == 0 && s.t.rect.y == 0 && s.t.rect.width == img->width &&
	    s.t.rect.height == img->height) {
		ERR("nothing to crop: the rectangle covers the whole image");
		rc = FS_DB_INVALID;
		goto out;
	}
	key_step(&s.t, step, sizeof step);
	fs_work_key_next(rec.work_key, step, key);
	if (fs_files_store_derived(data_dir, key, out, 1, &created, err, errlen)) {
		rc = FS_DB_ERROR;
		goto out;
	}
	snprintf(s.from_key, sizeof s.from_key, "%s", rec.work_key);
	snprintf(s.event, sizeof s.event, "%s",
		 req->kind == FS_STEP_AUTOCROP ? "image_autocropped"
		 : kind == FS_TRANSFORM_CROP   ? "image_cropped"
					       : "image_rotated");
	s.user_id = user_id;
	s.at = (long long)time(NULL);
	fs_image_step_label(&s);
	int rotation = rotation_after(rec.rotation, kind, 0);

	rc = fs_db_begin(db);
	if (rc)
		goto out;
	in_tx = 1;
	/* the list as it is under the write lock; the work key check below
	 * refuses a step based on an image someone else changed meanwhile */
	rc = fs_image_steps(db, image_id, &steps, &n);
	if (!rc) {
		list = steps_json(steps, n, &s);
		rc = list ? fs_image_set_steps(db, image_id, rec.work_key, key, out->width, out->height, rotation, list)
			  : FS_DB_ERROR;
		if (rc == FS_DB_STALE)
			ERR("the image was changed by someone else meanwhile; reload it");
	}
	if (rc)
		goto out;
	/* a delete of the same files that committed before our lock: write them again */
	int again = 0;
	if (fs_files_store_derived(data_dir, key, out, 1, &again, err, errlen)) {
		rc = FS_DB_ERROR;
		goto out;
	}
	created |= again;
	hist = cJSON_CreateObject();
	cJSON_AddStringToObject(hist, "transform", kind == FS_TRANSFORM_CROP ? "crop" : step);
	cJSON_AddStringToObject(hist, "summary", s.label);
	cJSON_AddNumberToObject(hist, "from_width", s.t.src_width);
	cJSON_AddNumberToObject(hist, "from_height", s.t.src_height);
	cJSON *r = cJSON_AddObjectToObject(hist, "rect");
	cJSON_AddNumberToObject(r, "x", s.t.rect.x);
	cJSON_AddNumberToObject(r, "y", s.t.rect.y);
	cJSON_AddNumberToObject(r, "width", s.t.rect.width);
	cJSON_AddNumberToObject(r, "height", s.t.rect.height);
	rc = fs_sets_frame_changed(db, image_id, user_id, "transform", hist, err, errlen);
	if (rc)
		goto out;
	details = cJSON_CreateObject();
	cJSON_AddStringToObject(details, "label", s.label);
	if (kind != FS_TRANSFORM_CROP) {
		cJSON_AddStringToObject(details, "direction", kind == FS_TRANSFORM_ROTATE_LEFT ? "left" : "right");
		cJSON_AddNumberToObject(details, "new_rotation", rotation);
	} else if (req->kind == FS_STEP_AUTOCROP) {
		cJSON_AddNumberToObject(details, "original_width", img->width);
		cJSON_AddNumberToObject(details, "original_height", img->height);
		cJSON_AddNumberToObject(details, "removed_top", s.t.rect.y);
		cJSON_AddNumberToObject(details, "removed_left", s.t.rect.x);
		cJSON_AddNumberToObject(details, "new_width", out->width);
		cJSON_AddNumberToObject(details, "new_height", out->height);
	} else {
		cJSON_AddNumberToObject(details, "x", req->rect.x);
		cJSON_AddNumberToObject(details, "y", req->rect.y);
		cJSON_AddNumberToObject(details, "width", req->rect.width);
		cJSON_AddNumberToObject(details, "height", req->rect.height);
		cJSON_AddNumberToObject(details, "original_width", img->width);
		cJSON_AddNumberToObject(details, "original_height", img->height);
	}
	rc = fs_event_log(db, user_id, image_id, s.event, details);
	if (rc)
		goto out;
	/* inside the transaction, so an upload waiting for the lock sees the
	 * files gone and writes them again */
	drop_if_unused(db, data_dir, rec.work_key);
	rc = fs_db_commit(db);
	in_tx = 0;
	if (!rc)
		created = 0;
out:
	if (in_tx)
		fs_db_rollback(db);
	if (rc && created && key[0])
		drop_if_unused(db, data_dir, key);
	if (rc == FS_DB_ERROR && !err[0])
		ERR("%s", fs_db_errmsg(db));
	fs_image_free(img);
	fs_image_free(out);
	free(steps);
	cJSON_Delete(list);
	cJSON_Delete(details);
	cJSON_Delete(hist);
	return rc;
}

/* The working image after steps[from .. to) of base (caller frees). */
static fs_image *replay(const char *data_dir, const char *base_key, const fs_image_step *steps, size_t from,
			size_t to, char *err, size_t errlen)
{
	fs_image *img = load_key(data_dir, base_key, err, errlen);
	for (size_t i = from; img && i < to; i++) {
		fs_transform t;
		fs_image *next = step_image(img, steps[i].t.kind, steps[i].t.rect, &t, err, errlen);
		fs_image_free(img);
		img = next;
	}
	return img;
}

int fs_image_step_undo(fs_db *db, const char *data_dir, long long image_id, long long user_id, int keep,
		       int expect_revision, char *err, size_t errlen)
{
	fs_image_rec rec;
	fs_image_step *steps = NULL;
	fs_image *img = NULL;
	size_t n = 0;
	cJSON *list = NULL, *hist = NULL, *details = NULL;
	int rc, in_tx = 0, created = 0;
	char target_key[65] = "";
	err[0] = 0;

	rc = fs_image_get(db, image_id, &rec);
	if (rc == FS_DB_NOTFOUND)
		ERR("no such image");
	if (rc)
		return rc;
	if (expect_revision >= 0 && expect_revision != rec.revision) {
		ERR("the image is at revision %d, not %d: reload it", rec.revision, expect_revision);
		return FS_DB_STALE;
	}
	rc = fs_image_steps(db, image_id, &steps, &n);
	if (rc)
		return rc;
	size_t base = rec.base_step < 0 ? 0 : (size_t)rec.base_step;
	if (n <= base) {
		if (base)
			ERR("nothing to undo: the image's earlier steps were made before transforms could be undone");
		else
			ERR("nothing to undo: the image is as it was uploaded, the original");
		rc = FS_DB_INVALID;
		goto out;
	}
	size_t target = keep < 0 ? n - 1 : (size_t)keep < base ? base : (size_t)keep;
	if (target >= n) {
		ERR("nothing to undo: the image has %zu step%s", n, n == 1 ? "" : "s");
		rc = FS_DB_INVALID;
		goto out;
	}
	snprintf(target_key, sizeof target_key, "%s", target == base ? rec.base_key : steps[target].from_key);
	if (!fs_file_key_valid(target_key)) {
		ERR("the image's step %zu does not say which image it was applied to", target + 1);
		rc = FS_DB_ERROR;
		goto out;
	}
	/* the files of the image to return to: computed from the base when gone */
	if (!fs_files_have_derived(data_dir, target_key)) {
		img = replay(data_dir, rec.base_key, steps, base, target, err, errlen);
		if (!img || fs_files_store_derived(data_dir, target_key, img, 1, &created, err, errlen)) {
			rc = FS_DB_ERROR;
			goto out;
		}
	}
	int rotation = rec.rotation;
	for (size_t i = n; i-- > target;)
		rotation = rotation_after(rotation, steps[i].t.kind, 1);
	char summary[600] = "undid";
	hist = cJSON_CreateObject();
	cJSON *undone = cJSON_AddArrayToObject(hist, "undone");
	for (size_t i = n, k = strlen(summary); i-- > target;) {
		cJSON_AddItemToArray(undone, cJSON_CreateString(steps[i].label));
		if (k < sizeof summary)
			k += (size_t)snprintf(summary + k, sizeof summary - k, "%s %s", i + 1 == n ? "" : ",", steps[i].label);
	}
	cJSON_AddStringToObject(hist, "summary", summary);
	cJSON_AddNumberToObject(hist, "steps_left", (double)target);
	cJSON_AddBoolToObject(hist, "original", target == 0);
	details = cJSON_Duplicate(hist, 1);

	rc = fs_db_begin(db);
	if (rc)
		goto out;
	in_tx = 1;
	list = steps_json(steps, target, NULL);
	rc = list ? fs_image_set_steps(db, image_id, rec.work_key, target_key, steps[target].t.src_width,
				       steps[target].t.src_height, rotation, list)
		  : FS_DB_ERROR;
	if (rc == FS_DB_STALE)
		ERR("the image was changed by someone else meanwhile; reload it");
	if (rc)
		goto out;
	if (!fs_files_have_derived(data_dir, target_key)) {
		/* removed by a commit that came before our lock */
		fs_image *again = img ? NULL : replay(data_dir, rec.base_key, steps, base, target, err, errlen);
		int more = 0;
		if ((!img && !again) ||
		    fs_files_store_derived(data_dir, target_key, img ? img : again, 1, &more, err, errlen)) {
			fs_image_free(again);
			rc = FS_DB_ERROR;
			goto out;
		}
		created |= more;
		fs_image_free(again);
	}
	rc = fs_sets_frame_changed(db, image_id, user_id, "transform_undone", hist, err, errlen);
	if (!rc)
		rc = fs_event_log(db, user_id, image_id, "image_transform_undone", details);
	if (rc)
		goto out;
	drop_if_unused(db, data_dir, rec.work_key);
	rc = fs_db_commit(db);
	in_tx = 0;
	if (!rc)
		created = 0;
out:
	if (in_tx)
		fs_db_rollback(db);
	if (rc && created)
		drop_if_unused(db, data_dir, target_key);
	if (rc == FS_DB_ERROR && !err[0])
		ERR("%s", fs_db_errmsg(db));
	fs_image_free(img);
	free(steps);
	cJSON_Delete(list);
	cJSON_Delete(hist);
	cJSON_Delete(details);
	return rc;
}

static void iso(long long t, char *out, size_t n)
{
	time_t s = (time_t)t;
	struct tm tm;
	gmtime_r(&s, &tm);
	strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

cJSON *fs_image_steps_list(fs_db *db, long long image_id)
{
	fs_image_rec rec;
	fs_image_step *steps = NULL;
	size_t n = 0;
	if (fs_image_get(db, image_id, &rec) || fs_image_steps(db, image_id, &steps, &n))
		return NULL;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "revision", rec.revision);
	cJSON *a = cJSON_AddArrayToObject(o, "transforms");
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT display_name FROM users WHERE id = ?");
	fs_bind b = fs_bind_start(db, st);
	for (size_t i = 0; i < n; i++) {
		cJSON *s = cJSON_CreateObject();
		char ts[32], user[130] = "";
		cJSON_AddNumberToObject(s, "index", (double)i);
		cJSON_AddStringToObject(s, "kind", steps[i].t.kind == FS_TRANSFORM_CROP ? "crop"
						   : steps[i].t.kind == FS_TRANSFORM_ROTATE_LEFT ? "rotate_left"
												 : "rotate_right");
		cJSON_AddStringToObject(s, "label", steps[i].label);
		if (st && steps[i].user_id) {
			sqlite3_reset(st);
			fs_bind_int64(&b, 1, steps[i].user_id);
			if (fs_bind_step(&b) == SQLITE_ROW)
				fs_db_col_text(st, 0, user, sizeof user);
		}
		cJSON_AddStringToObject(s, "user", user);
		if (steps[i].user_id)
			cJSON_AddNumberToObject(s, "user_id", (double)steps[i].user_id);
		else
			cJSON_AddNullToObject(s, "user_id");
		if (steps[i].at) {
			iso(steps[i].at, ts, sizeof ts);
			cJSON_AddStringToObject(s, "timestamp", ts);
		} else {
			cJSON_AddNullToObject(s, "timestamp");
		}
		cJSON_AddBoolToObject(s, "undoable", (int)i >= rec.base_step);
		cJSON_AddItemToArray(a, s);
	}
	if (st)
		fs_db_done(st);
	free(steps);
	return o;
}
