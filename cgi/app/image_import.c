/* image_import.c - a stored original made into a library entry (see image_import.h). */
#include "app/image_import.h"

#include <stdio.h>
#include <string.h>

#include "image/image_io.h"
#include "store/store.h"

/* 1 (with the message) when the upload and its derived files (need bytes)
 * would take the user past quota (> 0) now; 0 when they fit, the file is
 * stored for another entry already (it costs nothing) or there is no
 * quota; 1 with a message when the usage cannot be read. */
static int over_quota(fs_app *app, const fs_import_req *q, long long quota, long long need, char *err, size_t errlen)
{
	long long used = 0;
	int stored_already = 0;
	if (quota <= 0)
		return 0;
	if (fs_image_file_in_use(app->db, q->sha256, &stored_already) ||
	    (!stored_already && fs_disk_usage_user(app->db, app->cfg.data_dir, q->user_id, &used))) {
		snprintf(err, errlen, "cannot read the disk usage");
		return 1;
	}
	if (stored_already || used + q->size + need <= quota)
		return 0;
	snprintf(err, errlen,
		 "your disk quota is used up: your images take %.1f MB of %.0f MB, and this one needs about %.1f MB more",
		 used / 1048576.0, quota / 1048576.0, (q->size + need) / 1048576.0);
	return 1;
}

int fs_image_import_stored(fs_app *app, const fs_import_req *q, long long *image_id, int *existing, char *err,
			   size_t errlen)
{
	fs_db *db = app->db;
	const char *dd = app->cfg.data_dir;
	fs_loaded ld = {0};
	fs_image_rec rec, dup;
	char path[4096];
	int rc = -1, in_txn = 0, derived = 0;
	memset(&rec, 0, sizeof rec);
	*image_id = 0;
	*existing = 0;
	if (fs_file_path(dd, FS_FILE_ORIGINAL, q->sha256, path, sizeof path)) {
		snprintf(err, errlen, "bad file key");
		goto out;
	}
	/* an 8- or 16-bit grey upload stays in its 1 or 2 bytes a pixel
	 * (image.h): the derived files and the scale region read it a row
	 * band at a time, the same files and region as from floats, and a
	 * 100 MP 8-bit import holds 100 MB of pixels instead of 400 MB */
	fs_load_opts lo = {.max_pixels = app->cfg.max_pixels, .page = q->page, .compact = 1};
	if (fs_load_file(path, &lo, &ld, err, errlen))
		goto out;
	long long quota = (long long)app->cfg.user_quota_mb << 20;
	long long need = fs_files_derived_estimate(ld.image->width, ld.image->height, fs_work_precision(ld.image));
	if (over_quota(app, q, quota, need, err, errlen))
		goto out;
	fs_image_rec_from_loaded(&rec, q->user_id, q->sha256, q->page, q->name, &ld);
	rec.shared = q->shared;
	if (fs_files_store_derived(dd, rec.work_key, ld.image, 1, &derived, err, errlen))
		goto out;
	if (fs_db_begin(db)) {
		snprintf(err, errlen, "the database is busy");
		goto out;
	}
	in_txn = 1;
	int f = fs_image_find_owned(db, q->user_id, q->sha256, &dup);
	if (f == FS_DB_OK) {
		*image_id = dup.id;
		*existing = 1;
		rc = 0;
		goto out;
	}
	/* the same rule again under the write lock: an upload of the user's
	 * that landed while this job decoded and wrote its files counts now */
	if (f == FS_DB_NOTFOUND && over_quota(app, q, quota, need, err, errlen))
		goto out;
	long long set_id;
	/* a delete that committed meanwhile may have removed files: put back what is missing */
	int again = 0;
	err[0] = 0;
	int failed = f != FS_DB_NOTFOUND || fs_image_insert(db, &rec, q->size);
	if (!failed) {
		failed = fs_files_store_derived(dd, rec.work_key, ld.image, 1, &again, err, errlen);
		derived |= again;
	}
	if (!failed)
		failed = fs_set_create(db, rec.id, "Base", q->user_id, &set_id, err, errlen);
	if (failed) {
		if (!err[0])
			snprintf(err, errlen, "cannot store the image");
		goto out;
	}
	if (fs_image_log_loaded(db, q->user_id, &rec, 1) || fs_image_touch_recent(db, q->user_id, rec.id) ||
	    fs_db_commit(db)) {
		snprintf(err, errlen, "cannot store the image");
		goto out;
	}
	in_txn = 0;
	*image_id = rec.id;
	derived = 0;
	rc = 0;
	{
		/* the automatic scale region found and cached now, while the image
		 * is decoded: the first extraction would otherwise spend its time
		 * (a second or so on 100 megapixels) on it. Failing is no error:
		 * the extraction then finds it as before. */
		fs_scale_region reg;
		char rerr[256];
		if (fs_scale_region_for(db, rec.id, rec.work_key, ld.image, &reg, NULL, rerr, sizeof rerr) == FS_DB_OK)
			fs_scale_region_free(&reg);
	}
out:
	if (in_txn)
		fs_db_rollback(db);
	if (rc && derived) {
		int used_key = 1;
		if (!fs_image_work_key_in_use(db, rec.work_key, &used_key) && !used_key)
			fs_files_remove_derived(dd, rec.work_key);
	}
	if (rc || *existing) {
		int in_use = 1;
		if (!fs_image_file_in_use(db, q->sha256, &in_use) && !in_use)
			fs_files_remove_original(dd, q->sha256);
	}
	fs_loaded_free(&ld);
	return rc;
}
