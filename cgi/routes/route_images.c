/*
 * route_images.c - the image library over HTTP: upload, listing, recent
 * images, metadata, visibility, delete, the display and thumbnail files
 * (handed to nginx with X-Accel-Redirect after the access check), rotate,
 * crop and autocrop as the image's own undoable steps (image_steps.h),
 * and calibration.
 *
 * Every change that touches files and rows does it in this order: new
 * files are written under content keys first (harmless if left unused),
 * then one BEGIN IMMEDIATE transaction changes the rows, the sets and the
 * event log, and removes files nothing refers to any more; on failure the
 * transaction is rolled back and files only this request created are
 * removed again, so a refused or failed request leaves nothing behind.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "app/image_import.h"
#include "app/job_control.h"
#include "store/store.h"
#include "image/image_io.h"
#include "image/image_transform.h"
#include "analysis/analysis.h"
#include "web/web.h"
#include "routes/routes.h"
#include "routes/calibration_suggest.h"
#include "base/base.h"

#define NFIELDS(f) (sizeof(f) / sizeof((f)[0]))

/* Turns an access refusal into its answer; other codes go to the dispatcher. */
static int refuse(fs_req *r, fs_resp *w, int rc)
{
	if (rc == FS_DB_NOTFOUND) {
		fs_resp_error(r, w, 404, "no such image");
		return 0;
	}
	if (rc == FS_DB_FORBIDDEN) {
		fs_resp_error(r, w, 403, "only the image's owner or an administrator may do that");
		return 0;
	}
	return rc;
}

/* Validates the JSON body (none = {}) against fields; 0, or a 422 sent. */
static int body_values(fs_req *r, fs_resp *w, const fs_field *fields, size_t n, fs_value *v)
{
	char err[256];
	cJSON *empty = NULL;
	const cJSON *obj = r->json;
	if (!obj)
		obj = empty = cJSON_CreateObject();
	int rc = fs_validate_json(obj, fields, n, v, 0, err, sizeof err);
	cJSON_Delete(empty);
	if (rc) {
		fs_resp_error(r, w, 422, "%s", err);
		return -1;
	}
	return 0;
}

static cJSON *sets_summary(fs_db *db, long long image_id, int *rc)
{
	fs_set_info *sets = NULL;
	size_t n = 0;
	*rc = fs_set_list(db, image_id, &sets, &n);
	if (*rc)
		return NULL;
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "id", (double)sets[i].id);
		cJSON_AddStringToObject(o, "name", sets[i].name);
		cJSON_AddNumberToObject(o, "position", sets[i].position);
		cJSON_AddNumberToObject(o, "revision", (double)sets[i].revision);
		cJSON_AddNumberToObject(o, "n_tubercles", sets[i].n_tubercles);
		cJSON_AddNumberToObject(o, "n_edges", sets[i].n_edges);
		if (sets[i].calibration_um_per_px > 0)
			cJSON_AddNumberToObject(o, "calibration_um_per_px", sets[i].calibration_um_per_px);
		else
			cJSON_AddNullToObject(o, "calibration_um_per_px");
		cJSON_AddNumberToObject(o, "updated_at", (double)sets[i].updated_at);
		cJSON_AddItemToArray(arr, o);
	}
	free(sets);
	return arr;
}

/* {success, image: {... , sets}} with status. */
static int send_image(fs_req *r, fs_resp *w, int status, long long id, int existing_flag)
{
	fs_image_rec rec;
	int rc = fs_image_get(r->app->db, id, &rec);
	if (rc)
		return refuse(r, w, rc);
	cJSON *img = fs_image_to_json(&rec, r->app->cfg.base_path, &r->user);
	cJSON *sets = sets_summary(r->app->db, id, &rc);
	if (rc) {
		cJSON_Delete(img);
		return rc;
	}
	cJSON_AddItemToObject(img, "sets", sets);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	if (existing_flag >= 0)
		cJSON_AddBoolToObject(o, "existing", existing_flag);
	cJSON_AddItemToObject(o, "image", img);
	fs_resp_json(w, status, o);
	return 0;
}

/* ---- upload ---------------------------------------------------------- */

/* Streaming state of one upload: the file part goes to a temporary file
 * while it is hashed; the small fields are kept in memory. */
struct upload {
	int fd;
	char tmp[4096];
	fs_sha256 sha;
	long long size, max;
	unsigned char head[16];
	int have_file, in_file;
	int field; /* the small field being read: 0 none, 1 page, 2 visibility */
	char fval[32];
	size_t flen;
	char page[32], visibility[32];
	char name[256];
	int status;
	char msg[256];
	const char *data_dir;
};

static int up_fail(struct upload *u, int status, const char *msg)
{
	if (!u->status) {
		u->status = status;
		snprintf(u->msg, sizeof u->msg, "%s", msg);
	}
	return 1;
}

static int up_begin(void *ud, const char *name, const char *filename, const char *ctype)
{
	struct upload *u = ud;
	(void)ctype;
	u->in_file = 0;
	u->field = 0;
	u->flen = 0;
	u->fval[0] = 0;
	if (!strcmp(name, "file")) {
		if (u->have_file)
			return up_fail(u, 400, "more than one 'file' part");
		char err[256];
		u->fd = fs_files_tmp_open(u->data_dir, u->tmp, sizeof u->tmp, err, sizeof err);
		if (u->fd < 0) {
			u->tmp[0] = 0;
			return up_fail(u, 500, "cannot store the upload");
		}
		u->have_file = u->in_file = 1;
		fs_sha256_init(&u->sha);
		fs_image_name_sanitise(filename ? filename : "", u->name, sizeof u->name);
	} else if (!strcmp(name, "page")) {
		u->field = 1;
	} else if (!strcmp(name, "visibility")) {
		u->field = 2;
	}
	return 0;
}

static int up_write(struct upload *u, const char *data, size_t len)
{
	while (len) {
		ssize_t k = write(u->fd, data, len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		data += k;
		len -= (size_t)k;
	}
	return 0;
}

static int up_data(void *ud, const char *data, size_t len)
{
	struct upload *u = ud;
	if (u->in_file) {
		if (u->size + (long long)len > u->max) {
			char m[128];
			snprintf(m, sizeof m, "the file is larger than the upload limit of %lld MB", u->max >> 20);
			return up_fail(u, 413, m);
		}
		if (u->size < (long long)sizeof u->head) {
			size_t k = sizeof u->head - (size_t)u->size;
			memcpy(u->head + u->size, data, k < len ? k : len);
		}
		if (up_write(u, data, len))
			return up_fail(u, 507, "cannot store the upload");
		fs_sha256_update(&u->sha, data, len);
		u->size += (long long)len;
	} else if (u->field) {
		if (u->flen + len >= sizeof u->fval)
			return up_fail(u, 422, "a form field is too long");
		memcpy(u->fval + u->flen, data, len);
		u->flen += len;
		u->fval[u->flen] = 0;
	}
	return 0;
}

static int up_end(void *ud)
{
	struct upload *u = ud;
	if (u->field == 1)
		snprintf(u->page, sizeof u->page, "%s", u->fval);
	else if (u->field == 2)
		snprintf(u->visibility, sizeof u->visibility, "%s", u->fval);
	u->field = 0;
	u->in_file = 0;
	return 0;
}

/* Loader messages may name the temporary file: never show server paths. */
static void scrub_path(char *msg, const char *path)
{
	static const char repl[] = "the file";
	size_t pl = strlen(path);
	char *p;
	while (pl >= sizeof repl && (p = strstr(msg, path))) {
		memmove(p + sizeof repl - 1, p + pl, strlen(p + pl) + 1);
		memcpy(p, repl, sizeof repl - 1);
	}
}

/* Streams the body through the multipart parser; u->status says why not. */
static void read_upload(fs_req *r, struct upload *u)
{
	char err[256];
	fs_multipart_cb cb = {up_begin, up_data, up_end};
	fs_multipart *m = fs_multipart_new(r->content_type, &cb, u, err, sizeof err);
	if (!m) {
		up_fail(u, 400, err);
		return;
	}
	char *buf = malloc(65536);
	long k = 0;
	int bad = 0;
	if (!buf) {
		up_fail(u, 500, "out of memory");
		goto out;
	}
	while ((k = r->body(r->io_ctx, buf, 65536)) > 0)
		if (fs_multipart_feed(m, buf, (size_t)k)) {
			bad = 1;
			break;
		}
	if (!bad && k < 0) {
		up_fail(u, 400, "could not read the request body");
	} else if (bad) {
		snprintf(err, sizeof err, "malformed multipart body: %s", fs_multipart_error(m));
		up_fail(u, 400, err);
	} else if (fs_multipart_finish(m)) {
		up_fail(u, 400, "the multipart body is truncated");
	}
	if (!u->status && !u->have_file)
		up_fail(u, 400, "no file: send the image in a multipart part named 'file'");
	if (!u->status && u->size == 0)
		up_fail(u, 400, "the file is empty");
	if (u->fd >= 0) {
		if (!u->status && fsync(u->fd))
			up_fail(u, 507, "cannot store the upload");
		close(u->fd);
		u->fd = -1;
	}
out:
	free(buf);
	fs_multipart_free(m);
}

/* Statuses whose store message is meant for the client. */
static int client_rc(int rc)
{
	return rc == FS_DB_INVALID || rc == FS_DB_CONSTRAINT || rc == FS_DB_STALE || rc == FS_DB_NOTFOUND ||
	       rc == FS_DB_FORBIDDEN;
}

/* After a failed request: rc with a message for the client when there is one. */
static int fail_with(fs_req *r, fs_resp *w, int rc, const char *err)
{
	if (w->status >= 400)
		return 0;
	if (client_rc(rc) && err && *err) {
		fs_resp_error(r, w, fs_http_status_for_db(rc), "%s", err);
		return 0;
	}
	return rc;
}

static void quota_refusal(fs_req *r, fs_resp *w, long long used, long long quota, long long need)
{
	fs_resp_error(r, w, 413,
		      "your disk quota is used up: your images take %.1f MB of %.0f MB, and this one needs about "
		      "%.1f MB more (delete images you no longer need, or ask an administrator)",
		      used / 1048576.0, quota / 1048576.0, need / 1048576.0);
}

/*
 * A large upload: the original is stored now (so the request holds no
 * pixels), the rest (decoding, derived files, the library entry) is an
 * "import" job (app/image_import.h). 202 {job}; the job's result names the
 * image. The same file again from the same user is the entry it has; the
 * quota is checked from the header's size before anything is stored.
 */
static int import_as_job(fs_req *r, fs_resp *w, struct upload *u, const char *sha, int page, int shared,
			 const fs_loaded *probe, long long quota, long long used)
{
	fs_app *app = r->app;
	const char *dd = app->cfg.data_dir;
	char err[512] = "", orig_path[4096];
	fs_image_rec dup;
	int rc = fs_image_find_owned(app->db, r->user.id, sha, &dup);
	if (rc == FS_DB_OK) {
		rc = fs_image_touch_recent(app->db, r->user.id, dup.id);
		return rc ? rc : send_image(r, w, 200, dup.id, 1);
	}
	if (rc != FS_DB_NOTFOUND)
		return rc;
	if (quota > 0) {
		int stored_already = 0;
		rc = fs_image_file_in_use(app->db, sha, &stored_already);
		if (rc)
			return rc;
		int bps = probe->is_float || probe->bit_depth > 16 ? 4 : probe->bit_depth > 8 || probe->channels > 1 ? 2 : 1;
		long long need = fs_files_derived_estimate(probe->width, probe->height, bps);
		if (!stored_already && used + u->size + need > quota) {
			quota_refusal(r, w, used, quota, u->size + need);
			return 0;
		}
	}
	int created = 0;
	if (fs_file_path(dd, FS_FILE_ORIGINAL, sha, orig_path, sizeof orig_path) ||
	    fs_file_publish(u->tmp, orig_path, &created, err, sizeof err))
		return fail_with(r, w, FS_DB_ERROR, err);
	u->tmp[0] = 0;
	fs_import_req q;
	memset(&q, 0, sizeof q);
	q.user_id = r->user.id;
	snprintf(q.sha256, sizeof q.sha256, "%s", sha);
	q.page = page;
	snprintf(q.name, sizeof q.name, "%s", u->name);
	q.shared = shared;
	q.size = u->size;
	int refused = 0;
	rc = fs_job_submit_import(r, w, &q, (long long)probe->width * probe->height, probe->compact_bits, &refused);
	if (rc || refused) {
		int in_use = 1;
		if (created && !fs_image_file_in_use(app->db, sha, &in_use) && !in_use)
			fs_files_remove_original(dd, sha);
	}
	return rc;
}

static int h_upload(fs_req *r, fs_resp *w)
{
	fs_app *app = r->app;
	fs_db *db = app->db;
	const char *dd = app->cfg.data_dir;
	struct upload *u = calloc(1, sizeof *u);
	fs_loaded ld = {0};
	fs_image_rec rec;
	char err[512] = "", sha[65] = "", orig_path[4096];
	int rc = 0, in_txn = 0, orig_created = 0, derived_created = 0;
	memset(&rec, 0, sizeof rec);
	if (!u)
		return FS_DB_ERROR;
	u->fd = -1;
	u->data_dir = dd;
	u->max = (long long)app->cfg.upload_max_mb << 20;

	if (strncasecmp(r->content_type, "multipart/form-data", 19)) {
		fs_resp_error(r, w, 415, "send the image as multipart/form-data with a part named 'file'");
		goto out;
	}
	/* the multipart framing adds a few hundred bytes to the file */
	if (r->content_length > u->max + 65536) {
		fs_resp_error(r, w, 413, "the upload is larger than the limit of %d MB", app->cfg.upload_max_mb);
		goto out;
	}
	long long quota = (long long)app->cfg.user_quota_mb << 20, used = 0;
	if (quota > 0) {
		rc = fs_disk_usage_user(db, dd, r->user.id, &used);
		if (rc)
			goto out;
		/* refused before a byte is stored: the body alone would not fit */
		if (used + r->content_length - 65536 > quota) {
			quota_refusal(r, w, used, quota, r->content_length);
			goto out;
		}
	}
	if (fs_files_ensure_dirs(dd, err, sizeof err)) {
		rc = FS_DB_ERROR;
		goto out;
	}
	read_upload(r, u);
	if (u->status) {
		if (u->status >= 500)
			rc = FS_DB_ERROR;
		else
			fs_resp_error(r, w, u->status, "%s", u->msg);
		goto out;
	}
	int page = 0;
	if (u->page[0]) {
		char *end;
		long p = strtol(u->page, &end, 10);
		if (*end || p < 0 || p > 100000) {
			fs_resp_error(r, w, 422, "field 'page' must be a page number (0 = the first)");
			goto out;
		}
		page = (int)p;
	}
	rec.shared = 1;
	if (u->visibility[0]) {
		if (!strcmp(u->visibility, "private")) {
			rec.shared = 0;
		} else if (strcmp(u->visibility, "shared")) {
			fs_resp_error(r, w, 422, "field 'visibility' must be 'private' or 'shared'");
			goto out;
		}
	}
	if (fs_format_sniff(u->head, u->size < 16 ? (size_t)u->size : 16) == FS_FORMAT_UNKNOWN) {
		fs_resp_error(r, w, 415, "not a TIFF, PNG or JPEG image");
		goto out;
	}
	fs_load_opts lo = {.max_pixels = app->cfg.max_pixels, .page = page};
	/* the header first: a bomb is refused before decoding, and a large
	 * image is decoded by a background job instead of this request */
	fs_loaded probe = {0};
	if (fs_probe_file(u->tmp, &lo, &probe, err, sizeof err) == 0 &&
	    (long long)probe.width * probe.height > app->cfg.import_sync_max_pixels) {
		unsigned char dg0[32];
		fs_sha256_final(&u->sha, dg0);
		fs_hex_encode(dg0, 32, sha);
		rc = import_as_job(r, w, u, sha, page, rec.shared, &probe, quota, used);
		goto out;
	}
	/* compact (image.h): the derived files are written from either storage,
	 * the same bytes, and the worker holds 1 or 2 bytes a pixel, not 4 */
	lo.compact = 1;
	if (err[0] || fs_load_file(u->tmp, &lo, &ld, err, sizeof err)) {
		scrub_path(err, u->tmp);
		if (strstr(err, "pixels (limit") || strstr(err, "is too large"))
			fs_resp_error(r, w, 413, "too many pixels: %s", err);
		else
			fs_resp_error(r, w, 422, "cannot read the image: %s", err);
		goto out;
	}
	unsigned char dg[32];
	fs_sha256_final(&u->sha, dg);
	fs_hex_encode(dg, 32, sha);

	/* the same file again from the same user: the entry it already has */
	fs_image_rec dup;
	rc = fs_image_find_owned(db, r->user.id, sha, &dup);
	if (rc == FS_DB_OK) {
		rc = fs_image_touch_recent(db, r->user.id, dup.id);
		if (!rc)
			rc = send_image(r, w, 200, dup.id, 1);
		goto out;
	}
	if (rc != FS_DB_NOTFOUND)
		goto out;
	rc = 0;

	/* the file and what is derived from it must fit; another user's copy
	 * of the same file costs this one nothing */
	long long need = 0;
	if (quota > 0) {
		int stored_already = 0;
		rc = fs_image_file_in_use(db, sha, &stored_already);
		if (rc)
			goto out;
		need = fs_files_derived_estimate(ld.image->width, ld.image->height, fs_work_precision(ld.image));
		if (!stored_already && used + u->size + need > quota) {
			quota_refusal(r, w, used, quota, u->size + need);
			goto out;
		}
	}

	fs_image_rec_from_loaded(&rec, r->user.id, sha, page, u->name, &ld);
	if (fs_files_store_derived(dd, rec.work_key, ld.image, 1, &derived_created, err, sizeof err)) {
		rc = FS_DB_ERROR;
		goto out;
	}

	rc = fs_db_begin(db);
	if (rc)
		goto out;
	in_txn = 1;
	/* a parallel upload of the same file by the same user may have won */
	rc = fs_image_find_owned(db, r->user.id, sha, &dup);
	if (rc == FS_DB_OK) {
		fs_db_rollback(db);
		in_txn = 0;
		rc = send_image(r, w, 200, dup.id, 1);
		goto out;
	}
	if (rc != FS_DB_NOTFOUND)
		goto out;
	/* the same rule again under the write lock: two uploads of one user at
	 * once both passed the check above against the usage before either
	 * (2.4 MB stored in a 2 MB quota, 5 of 5 tries); the second now sees
	 * the first's row and files, and its own files go */
	if (quota > 0) {
		int stored_already = 0;
		rc = fs_image_file_in_use(db, sha, &stored_already);
		if (!rc && !stored_already)
			rc = fs_disk_usage_user(db, dd, r->user.id, &used);
		if (rc)
			goto out;
		if (!stored_already && used + u->size + need > quota) {
			quota_refusal(r, w, used, quota, u->size + need);
			goto out;
		}
	}
	rc = fs_image_insert(db, &rec, u->size);
	if (rc)
		goto out;
	if (fs_file_path(dd, FS_FILE_ORIGINAL, sha, orig_path, sizeof orig_path) ||
	    fs_file_publish(u->tmp, orig_path, &orig_created, err, sizeof err)) {
		rc = FS_DB_ERROR;
		goto out;
	}
	u->tmp[0] = 0;
	/* a delete that committed after the files were written removed them
	 * inside its transaction: put back what is missing */
	int again = 0;
	rc = fs_files_store_derived(dd, rec.work_key, ld.image, 1, &again, err, sizeof err) ? FS_DB_ERROR : 0;
	derived_created |= again;
	if (rc)
		goto out;
	long long set_id;
	err[0] = 0;
	rc = fs_set_create(db, rec.id, "Base", r->user.id, &set_id, err, sizeof err);
	if (rc)
		goto out;
	rc = fs_image_log_loaded(db, r->user.id, &rec, 0);
	if (!rc)
		rc = fs_image_touch_recent(db, r->user.id, rec.id);
	if (rc)
		goto out;
	rc = fs_db_commit(db);
	in_txn = 0;
	if (rc)
		goto out;
	orig_created = derived_created = 0; /* they belong to the new image now */
	/* the data bar is read off the request path; a failure to start it is
	 * recorded with the image and does not fail the upload */
	{
		char derr[256];
		(void)fs_databar_start(app, rec.id, derr, sizeof derr);
	}
	rc = send_image(r, w, 201, rec.id, 0);
out:
	if (in_txn)
		fs_db_rollback(db);
	/* a refusal answered (the quota under the lock) leaves nothing either */
	int undo = rc || w->status >= 400;
	if (undo && orig_created) {
		int used = 1;
		if (!fs_image_file_in_use(db, sha, &used) && !used)
			fs_files_remove_original(dd, sha);
	}
	if (undo && derived_created) {
		int used = 1;
		if (!fs_image_work_key_in_use(db, rec.work_key, &used) && !used)
			fs_files_remove_derived(dd, rec.work_key);
	}
	if (u->fd >= 0)
		close(u->fd);
	if (u->tmp[0])
		unlink(u->tmp);
	fs_loaded_free(&ld);
	free(u);
	return rc ? fail_with(r, w, rc, err) : 0;
}

/* ---- reading -------------------------------------------------------- */

static const char *const sort_names[] = {"date", "name", "owner", NULL};
static const char *const order_names[] = {"asc", "desc", NULL};

static const fs_field list_fields[] = {
	{"q", FS_FIELD_STRING, 0, 0, 0, 200, NULL},
	{"sort", FS_FIELD_ENUM, 0, 0, 0, 0, sort_names},
	{"order", FS_FIELD_ENUM, 0, 0, 0, 0, order_names},
	{"page", FS_FIELD_INT, 0, 1, 1000000, 0, NULL},
	{"per_page", FS_FIELD_INT, 0, 1, FS_PER_PAGE_MAX, 0, NULL},
};

static cJSON *rec_array(fs_req *r, const fs_image_rec *v, size_t n)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, fs_image_to_json(&v[i], r->app->cfg.base_path, &r->user));
	return arr;
}

static int h_list(fs_req *r, fs_resp *w)
{
	fs_value v[NFIELDS(list_fields)];
	char err[256];
	if (fs_validate_kv(&r->query_kv, list_fields, NFIELDS(list_fields), v, 0, err, sizeof err)) {
		fs_resp_error(r, w, 422, "%s", err);
		return 0;
	}
	fs_image_query q = {
		.q = v[0].present ? v[0].s : "",
		.sort = v[1].present ? (int)v[1].i : FS_SORT_DATE,
		.page = v[3].present ? (int)v[3].i : 1,
		.per_page = v[4].present ? (int)v[4].i : 20,
	};
	/* newest first by default; names and owners alphabetically */
	q.desc = v[2].present ? v[2].i == 1 : q.sort == FS_SORT_DATE;
	fs_image_rec *recs;
	size_t n;
	long long total;
	int rc = fs_image_list(r->app->db, &r->user, &q, &recs, &n, &total);
	if (rc)
		return rc;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddItemToObject(o, "images", rec_array(r, recs, n));
	cJSON_AddNumberToObject(o, "total", (double)total);
	cJSON_AddNumberToObject(o, "page", q.page);
	cJSON_AddNumberToObject(o, "per_page", q.per_page);
	cJSON_AddNumberToObject(o, "pages", (double)((total + q.per_page - 1) / q.per_page));
	cJSON_AddStringToObject(o, "sort", sort_names[q.sort]);
	cJSON_AddStringToObject(o, "order", q.desc ? "desc" : "asc");
	free(recs);
	fs_resp_json(w, 200, o);
	return 0;
}

static int h_recent(fs_req *r, fs_resp *w)
{
	fs_image_rec *recs;
	size_t n;
	int rc = fs_image_recent(r->app->db, &r->user, &recs, &n);
	if (rc)
		return rc;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddItemToObject(o, "images", rec_array(r, recs, n));
	free(recs);
	fs_resp_json(w, 200, o);
	return 0;
}

static int h_get(fs_req *r, fs_resp *w)
{
	int rc = fs_image_check_access(r->app->db, r->ids[0], &r->user, FS_ACCESS_READ, NULL);
	if (rc)
		return refuse(r, w, rc);
	rc = fs_image_touch_recent(r->app->db, r->user.id, r->ids[0]);
	if (rc)
		return rc;
	return send_image(r, w, 200, r->ids[0], -1);
}

static int serve_file(fs_req *r, fs_resp *w, fs_file_kind kind)
{
	fs_image_rec rec;
	int rc = fs_image_check_access(r->app->db, r->ids[0], &r->user, FS_ACCESS_READ, &rec);
	if (rc)
		return refuse(r, w, rc);
	char rel[128];
	if (fs_file_relpath(kind, rec.work_key, rel, sizeof rel))
		return FS_DB_ERROR;
	/* nginx serves the bytes from the internal location; we only decide */
	fs_resp_header(w, "X-Accel-Redirect", "%s_protected/%s", r->app->cfg.base_path, rel);
	fs_resp_header(w, "Cache-Control", "private, max-age=300");
	w->status = 200;
	snprintf(w->content_type, sizeof w->content_type, "image/png");
	return 0;
}

static int h_display(fs_req *r, fs_resp *w)
{
	return serve_file(r, w, FS_FILE_DISPLAY);
}

static int h_thumb(fs_req *r, fs_resp *w)
{
	return serve_file(r, w, FS_FILE_THUMB);
}

/* One tile of the display pyramid, "<z>-<x>-<y>.jpg" (decimal, no sign, no
 * leading zeros), handed to nginx like the display PNG. */
static int h_tile(fs_req *r, fs_resp *w)
{
	const char *name = r->nparams > 1 ? r->params[1] : "";
	unsigned z, x, y;
	int end = 0;
	char canon[64];
	if (sscanf(name, "%u-%u-%u.jpg%n", &z, &x, &y, &end) != 3 || name[end] || z > 40 ||
	    snprintf(canon, sizeof canon, "%u-%u-%u.jpg", z, x, y) >= (int)sizeof canon || strcmp(canon, name)) {
		fs_resp_error(r, w, 404, "no such tile");
		return 0;
	}
	fs_image_rec rec;
	int rc = fs_image_check_access(r->app->db, r->ids[0], &r->user, FS_ACCESS_READ, &rec);
	if (rc)
		return refuse(r, w, rc);
	char rel[128];
	if (!fs_pyramid_wanted(rec.width, rec.height) || fs_pyramid_reldir(rec.work_key, rel, sizeof rel)) {
		fs_resp_error(r, w, 404, "this image has no tiles (it is small enough for its display PNG)");
		return 0;
	}
	/* a tile past the edge is nginx's 404: the file does not exist */
	fs_resp_header(w, "X-Accel-Redirect", "%s_protected/%s/%s", r->app->cfg.base_path, rel, canon);
	fs_resp_header(w, "Cache-Control", "private, max-age=300");
	w->status = 200;
	snprintf(w->content_type, sizeof w->content_type, "image/jpeg");
	return 0;
}

/* ---- managing -------------------------------------------------------- */

static const char *const vis_names[] = {"private", "shared", NULL};

static const fs_field patch_fields[] = {
	{"visibility", FS_FIELD_ENUM, 0, 0, 0, 0, vis_names},
	{"original_name", FS_FIELD_STRING, 0, 1, 0, 255, NULL},
};

static int h_patch(fs_req *r, fs_resp *w)
{
	fs_db *db = r->app->db;
	fs_image_rec rec;
	int rc = fs_image_check_access(db, r->ids[0], &r->user, FS_ACCESS_MANAGE, &rec);
	if (rc)
		return refuse(r, w, rc);
	fs_value v[NFIELDS(patch_fields)];
	if (body_values(r, w, patch_fields, NFIELDS(patch_fields), v))
		return 0;
	if (!v[0].present && !v[1].present) {
		fs_resp_error(r, w, 422, "nothing to change: give 'visibility' and/or 'original_name'");
		return 0;
	}
	char name[256];
	if (v[1].present)
		fs_image_name_sanitise(v[1].s, name, sizeof name);
	rc = fs_image_update_meta(db, rec.id, v[0].present ? (int)v[0].i : -1, v[1].present ? name : NULL);
	if (rc)
		return refuse(r, w, rc);
	return send_image(r, w, 200, rec.id, -1);
}

static int h_delete(fs_req *r, fs_resp *w)
{
	fs_db *db = r->app->db;
	const char *dd = r->app->cfg.data_dir;
	fs_image_rec rec;
	int rc = fs_image_check_access(db, r->ids[0], &r->user, FS_ACCESS_MANAGE, &rec);
	if (rc)
		return refuse(r, w, rc);
	rc = fs_db_begin(db);
	if (rc)
		return rc;
	int orig_unused = 0, work_unused = 0, base_unused = 0;
	rc = fs_image_delete(db, rec.id, &orig_unused, &work_unused, &base_unused);
	if (!rc) {
		cJSON *ev = cJSON_CreateObject();
		cJSON_AddNumberToObject(ev, "image_id", (double)rec.id);
		cJSON_AddStringToObject(ev, "filename", rec.original_name);
		rc = fs_event_log(db, r->user.id, 0, "image_deleted", ev);
		cJSON_Delete(ev);
	}
	if (rc) {
		fs_db_rollback(db);
		return refuse(r, w, rc);
	}
	/* inside the transaction, so an upload of the same file waiting for
	 * the lock sees the files gone and writes them again */
	if (orig_unused)
		fs_files_remove_original(dd, rec.file_sha256);
	if (work_unused)
		fs_files_remove_derived(dd, rec.work_key);
	if (base_unused)
		fs_files_remove_derived(dd, rec.base_key);
	rc = fs_db_commit(db);
	if (rc)
		return rc;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddNumberToObject(o, "deleted", (double)rec.id);
	fs_resp_json(w, 200, o);
	return 0;
}

/* ---- transforms ------------------------------------------------------ */

/* Checks that the user may manage the image (rec may be NULL); 0, or the
 * refusal answered (-1) or a storage error. */
static int manage_check(fs_req *r, fs_resp *w, fs_image_rec *rec)
{
	int rc = fs_image_check_access(r->app->db, r->ids[0], &r->user, FS_ACCESS_MANAGE, rec);
	if (rc)
		return refuse(r, w, rc) ? rc : -1;
	return 0;
}

/* A transform of an image over sync_max_pixels is a background job: the
 * request answers 202 at once instead of holding a worker for seconds. */
static int as_job(fs_req *r, const fs_image_rec *rec)
{
	return (long long)rec->width * rec->height > r->app->cfg.sync_max_pixels;
}

static const char *const step_names[] = {"rotate_left", "rotate_right", "crop", "autocrop"};

/* Answers a step or an undo: the image with its sets, or the refusal. */
static int step_done(fs_req *r, fs_resp *w, int rc, const char *err)
{
	if (rc == FS_DB_NOTFOUND)
		return refuse(r, w, rc);
	if (rc)
		return fail_with(r, w, rc, err);
	return send_image(r, w, 200, r->ids[0], -1);
}

/*
 * A step writes a new working image, display copies and pyramid, and keeps
 * the ones before it for undo (disk_usage.h counts both, for the image's
 * owner): checked against the owner's quota before anything runs, as an
 * upload is, or transforms would grow a user's disk use without limit (a
 * crop of one pixel less, again and again). The result's size is known
 * for a rotation and a crop; autocrop is counted at the image's size (at
 * most what it keeps). 0: it fits (or no quota); -1: refused with 507 and
 * answered; else a storage error.
 */
static int step_quota_check(fs_req *r, fs_resp *w, const fs_image_rec *rec, fs_step_kind kind, fs_rect rect)
{
	fs_app *app = r->app;
	long long quota = (long long)app->cfg.user_quota_mb << 20, used = 0;
	if (quota <= 0)
		return 0;
	int rc = fs_disk_usage_user(app->db, app->cfg.data_dir, rec->owner_id, &used);
	if (rc)
		return rc;
	int rw = rec->width, rh = rec->height, bps = 0, iw, ih;
	char path[4096], err[256];
	if (fs_file_path(app->cfg.data_dir, FS_FILE_WORK, rec->work_key, path, sizeof path) ||
	    fs_work_file_info(path, &iw, &ih, &bps, err, sizeof err))
		bps = fs_job_sample_bytes(rec->bit_depth, rec->channels);
	if (kind == FS_STEP_ROTATE_LEFT || kind == FS_STEP_ROTATE_RIGHT) {
		rw = rec->height;
		rh = rec->width;
	} else if (kind == FS_STEP_CROP) {
		/* a rectangle reaching past the image is cut to it (or refused
		 * by the step itself) */
		rw = rect.x < rec->width ? (rect.width < rec->width - rect.x ? rect.width : rec->width - rect.x) : 1;
		rh = rect.y < rec->height ? (rect.height < rec->height - rect.y ? rect.height : rec->height - rect.y) : 1;
	}
	long long need = fs_files_derived_estimate(rw, rh, bps);
	if (used + need <= quota)
		return 0;
	fs_resp_error(r, w, 507,
		      "%s disk quota is used up: %s images take %.1f MB of %.0f MB, and this %s needs about %.1f MB "
		      "more (its working image and display copies, kept beside the earlier ones for undo); delete "
		      "images no longer needed, or undo earlier steps",
		      rec->owner_id == r->user.id ? "your" : "the owner's", rec->owner_id == r->user.id ? "your" : "their",
		      used / 1048576.0, quota / 1048576.0,
		      kind == FS_STEP_CROP ? "crop" : kind == FS_STEP_AUTOCROP ? "autocrop" : "rotation", need / 1048576.0);
	return -1;
}

static int apply_step(fs_req *r, fs_resp *w, fs_step_kind kind, fs_rect rect, const fs_value *revision)
{
	fs_image_rec rec;
	int rc = manage_check(r, w, &rec);
	if (rc)
		return rc < 0 ? 0 : rc;
	rc = step_quota_check(r, w, &rec, kind, rect);
	if (rc)
		return rc < 0 ? 0 : rc;
	fs_step_request req = {kind, rect, revision && revision->present ? (int)revision->i : -1};
	if (as_job(r, &rec)) {
		if (req.expect_revision >= 0 && req.expect_revision != rec.revision) {
			fs_resp_error(r, w, 409, "the image changed meanwhile (revision %d, not %d): reload it",
				      rec.revision, req.expect_revision);
			return 0;
		}
		int box[4] = {rect.x, rect.y, rect.width, rect.height};
		return fs_job_submit_transform(r, w, &rec, step_names[kind], kind == FS_STEP_CROP ? box : NULL, 0,
					       req.expect_revision);
	}
	char err[512] = "";
	rc = fs_image_step_apply(r->app->db, r->app->cfg.data_dir, r->ids[0], r->user.id, &req, err, sizeof err);
	return step_done(r, w, rc, err);
}

static const char *const dir_names[] = {"left", "right", NULL};

static const fs_field rotate_fields[] = {
	{"direction", FS_FIELD_ENUM, 1, 0, 0, 0, dir_names},
	{"revision", FS_FIELD_INT, 0, 0, 1000000, 0, NULL},
};

static int h_rotate(fs_req *r, fs_resp *w)
{
	fs_value v[NFIELDS(rotate_fields)];
	if (body_values(r, w, rotate_fields, NFIELDS(rotate_fields), v))
		return 0;
	fs_rect none = {0, 0, 0, 0};
	return apply_step(r, w, v[0].i == 0 ? FS_STEP_ROTATE_LEFT : FS_STEP_ROTATE_RIGHT, none, &v[1]);
}

static const fs_field crop_fields[] = {
	{"x", FS_FIELD_INT, 1, 0, 1000000, 0, NULL},
	{"y", FS_FIELD_INT, 1, 0, 1000000, 0, NULL},
	{"width", FS_FIELD_INT, 1, 1, 1000000, 0, NULL},
	{"height", FS_FIELD_INT, 1, 1, 1000000, 0, NULL},
	{"revision", FS_FIELD_INT, 0, 0, 1000000, 0, NULL},
};

static int h_crop(fs_req *r, fs_resp *w)
{
	fs_value v[NFIELDS(crop_fields)];
	if (body_values(r, w, crop_fields, NFIELDS(crop_fields), v))
		return 0;
	fs_rect want = {(int)v[0].i, (int)v[1].i, (int)v[2].i, (int)v[3].i};
	return apply_step(r, w, FS_STEP_CROP, want, &v[4]);
}

static const fs_field revision_fields[] = {
	{"revision", FS_FIELD_INT, 0, 0, 1000000, 0, NULL},
};

static int h_autocrop(fs_req *r, fs_resp *w)
{
	fs_value v[NFIELDS(revision_fields)];
	if (body_values(r, w, revision_fields, NFIELDS(revision_fields), v))
		return 0;
	fs_rect none = {0, 0, 0, 0};
	return apply_step(r, w, FS_STEP_AUTOCROP, none, &v[0]);
}

/* The image's steps, oldest first; anyone who may see the image may read them. */
static int h_steps(fs_req *r, fs_resp *w)
{
	int rc = fs_image_check_access(r->app->db, r->ids[0], &r->user, FS_ACCESS_READ, NULL);
	if (rc)
		return refuse(r, w, rc);
	cJSON *o = fs_image_steps_list(r->app->db, r->ids[0]);
	if (!o)
		return FS_DB_ERROR;
	cJSON_AddBoolToObject(o, "success", 1);
	fs_resp_json(w, 200, o);
	return 0;
}

static int undo_steps(fs_req *r, fs_resp *w, int keep)
{
	fs_value v[NFIELDS(revision_fields)];
	if (body_values(r, w, revision_fields, NFIELDS(revision_fields), v))
		return 0;
	fs_image_rec rec;
	int rc = manage_check(r, w, &rec);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (as_job(r, &rec))
		return fs_job_submit_transform(r, w, &rec, "undo", NULL, keep, v[0].present ? (int)v[0].i : -1);
	char err[512] = "";
	rc = fs_image_step_undo(r->app->db, r->app->cfg.data_dir, r->ids[0], r->user.id, keep,
				v[0].present ? (int)v[0].i : -1, err, sizeof err);
	return step_done(r, w, rc, err);
}

static int h_steps_undo(fs_req *r, fs_resp *w)
{
	return undo_steps(r, w, -1);
}

static int h_steps_reset(fs_req *r, fs_resp *w)
{
	return undo_steps(r, w, 0);
}

/* ---- calibration ----------------------------------------------------- */

static cJSON *calibration_json(fs_db *db, const fs_image_rec *rec)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	if (rec->um_per_px > 0) {
		cJSON *c = cJSON_AddObjectToObject(o, "calibration");
		cJSON_AddNumberToObject(c, "um_per_px", rec->um_per_px);
		cJSON_AddStringToObject(c, "method", rec->calibration_method);
	} else {
		cJSON_AddNullToObject(o, "calibration");
	}
	/* suggested: a list (metadata, data bar); data_bar: the reading itself */
	fs_calibration_suggestions(db, rec, o);
	cJSON_AddNumberToObject(o, "estimate_um_per_px", FS_CALIBRATION_ESTIMATE_700X);
	return o;
}

static int h_calibration_get(fs_req *r, fs_resp *w)
{
	/* one snapshot for the image row and its data-bar reading: the reader
	 * stores the reading and the calibration it brings together
	 * (app/databar_store.h), and an answer read between them showed the
	 * reading done without it, after which the page stops looking */
	fs_db *db = r->app->db;
	int snap = fs_db_begin_read(db) == FS_DB_OK;
	fs_image_rec rec;
	int rc = fs_image_check_access(db, r->ids[0], &r->user, FS_ACCESS_READ, &rec);
	cJSON *o = rc ? NULL : calibration_json(db, &rec);
	if (snap)
		fs_db_end_read(db);
	if (rc)
		return refuse(r, w, rc);
	fs_resp_json(w, 200, o);
	return 0;
}

/*
 * Reads the data bar again (or for the first time: images uploaded before
 * data bars were read): in the background, as after an upload. 409 while a
 * reading is pending.
 */
static int h_databar_read(fs_req *r, fs_resp *w)
{
	if (fs_req_no_fields(r, w))
		return 0;
	fs_image_rec rec;
	int rc = fs_image_check_access(r->app->db, r->ids[0], &r->user, FS_ACCESS_MANAGE, &rec);
	if (rc)
		return refuse(r, w, rc);
	fs_image_databar *row = calloc(1, sizeof *row);
	if (!row)
		return FS_DB_ERROR;
	int pending = fs_image_databar_get(r->app->db, rec.id, row) == FS_DB_OK && !strcmp(row->state, "pending");
	free(row);
	if (pending) {
		fs_resp_error(r, w, 409, "the data bar is already being read");
		return 0;
	}
	char err[256] = "";
	if (fs_databar_start(r->app, rec.id, err, sizeof err)) {
		fs_resp_error(r, w, 503, "cannot start reading the data bar: %s", err);
		return 0;
	}
	fs_resp_json(w, 202, calibration_json(r->app->db, &rec));
	return 0;
}

static const char *const method_names[] = {"direct", "estimate", "metadata", "manual", "data_bar", NULL};

enum { C_UM, C_METHOD, C_SCALE_UM, C_SCALE_PX, C_X1, C_Y1, C_X2, C_Y2, C_LEN, C_SUGG, C_DATABAR };
static const fs_field calib_fields[] = {
	[C_UM] = {"um_per_px", FS_FIELD_DOUBLE, 0, 0, 0, 0, NULL},
	[C_METHOD] = {"method", FS_FIELD_ENUM, 0, 0, 0, 0, method_names},
	[C_SCALE_UM] = {"scale_um", FS_FIELD_DOUBLE, 0, 0, 0, 0, NULL},
	[C_SCALE_PX] = {"scale_px", FS_FIELD_DOUBLE, 0, 0, 0, 0, NULL},
	[C_X1] = {"x1", FS_FIELD_DOUBLE, 0, 0, 0, 0, NULL},
	[C_Y1] = {"y1", FS_FIELD_DOUBLE, 0, 0, 0, 0, NULL},
	[C_X2] = {"x2", FS_FIELD_DOUBLE, 0, 0, 0, 0, NULL},
	[C_Y2] = {"y2", FS_FIELD_DOUBLE, 0, 0, 0, 0, NULL},
	[C_LEN] = {"length_um", FS_FIELD_DOUBLE, 0, 0, 0, 0, NULL},
	[C_SUGG] = {"use_suggested", FS_FIELD_BOOL, 0, 0, 0, 0, NULL},
	[C_DATABAR] = {"use_data_bar", FS_FIELD_BOOL, 0, 0, 0, 0, NULL},
};

/* Picks the one calibration form the body uses; 0 with um/method, or a message. */
static int calibration_from(fs_db *db, const fs_value *v, const fs_image_rec *rec, double *um, const char **method,
			    char *err, size_t errlen)
{
	int bar = v[C_SCALE_UM].present || v[C_SCALE_PX].present;
	int pts = v[C_X1].present || v[C_Y1].present || v[C_X2].present || v[C_Y2].present || v[C_LEN].present;
	int sugg = v[C_SUGG].present && v[C_SUGG].b;
	int dbar = v[C_DATABAR].present && v[C_DATABAR].b;
	int est = !v[C_UM].present && v[C_METHOD].present && !strcmp(v[C_METHOD].s, "estimate");
	int forms = v[C_UM].present + bar + pts + sugg + dbar + est;
	if (forms != 1) {
		snprintf(err, errlen, "give exactly one of: um_per_px [+ method]; {\"method\": \"estimate\"}; "
				      "scale_um + scale_px; x1, y1, x2, y2 + length_um; use_suggested; use_data_bar");
		return -1;
	}
	if ((bar || pts || sugg || dbar) && v[C_METHOD].present) {
		snprintf(err, errlen, "'method' goes only with um_per_px or alone as \"estimate\"");
		return -1;
	}
	if (v[C_UM].present) {
		*um = v[C_UM].d;
		*method = v[C_METHOD].present ? v[C_METHOD].s : "direct";
	} else if (est) {
		*um = FS_CALIBRATION_ESTIMATE_700X;
		*method = "estimate";
	} else if (bar) {
		if (!v[C_SCALE_UM].present || !v[C_SCALE_PX].present) {
			snprintf(err, errlen, "a scale bar needs both scale_um and scale_px");
			return -1;
		}
		/* A typed bar may come from another image of the same session, so
		 * only its length is checked, not that it fits this image. */
		if (!isfinite(v[C_SCALE_PX].d) || v[C_SCALE_PX].d < FS_SCALE_BAR_MIN_PX) {
			snprintf(err, errlen, "scale_px must be at least %g pixels", FS_SCALE_BAR_MIN_PX);
			return -1;
		}
		*um = v[C_SCALE_UM].d > 0 ? v[C_SCALE_UM].d / v[C_SCALE_PX].d : 0;
		*method = "scale_bar";
	} else if (pts) {
		if (!v[C_X1].present || !v[C_Y1].present || !v[C_X2].present || !v[C_Y2].present ||
		    !v[C_LEN].present) {
			snprintf(err, errlen, "two points need x1, y1, x2, y2 and length_um");
			return -1;
		}
		/* Both ends on the image (edges included), as the two clicks on it are. */
		for (int k = C_X1; k <= C_Y2; k++) {
			double lim = (k == C_X1 || k == C_X2) ? rec->width : rec->height;
			if (!isfinite(v[k].d) || v[k].d < 0 || v[k].d > lim) {
				snprintf(err, errlen, "%s must be inside the image (0 to %g)", calib_fields[k].name, lim);
				return -1;
			}
		}
		if (hypot(v[C_X2].d - v[C_X1].d, v[C_Y2].d - v[C_Y1].d) < FS_SCALE_BAR_MIN_PX) {
			snprintf(err, errlen, "the two points must be at least %g pixels apart", FS_SCALE_BAR_MIN_PX);
			return -1;
		}
		*um = fs_calibration_from_scale_bar(v[C_X1].d, v[C_Y1].d, v[C_X2].d, v[C_Y2].d, v[C_LEN].d);
		*method = "scale_bar";
	} else if (dbar) {
		if (fs_calibration_data_bar(db, rec, um, err, errlen))
			return -1;
		*method = "data_bar";
	} else {
		if (!(rec->suggested_um_per_px > 0)) {
			snprintf(err, errlen, "this image has no suggested calibration in its file metadata");
			return -1;
		}
		*um = rec->suggested_um_per_px;
		*method = "metadata";
	}
	if (!isfinite(*um) || !(*um >= FS_UM_PER_PX_MIN) || *um > FS_UM_PER_PX_MAX) {
		snprintf(err, errlen, "the calibration must be between %g and %g um per pixel", FS_UM_PER_PX_MIN,
			 FS_UM_PER_PX_MAX);
		return -1;
	}
	return 0;
}

static int h_calibration_set(fs_req *r, fs_resp *w)
{
	fs_db *db = r->app->db;
	fs_image_rec rec;
	int rc = fs_image_check_access(db, r->ids[0], &r->user, FS_ACCESS_MANAGE, &rec);
	if (rc)
		return refuse(r, w, rc);
	fs_value v[NFIELDS(calib_fields)];
	if (body_values(r, w, calib_fields, NFIELDS(calib_fields), v))
		return 0;
	double um = 0;
	const char *method = NULL;
	char err[512] = "";
	if (calibration_from(db, v, &rec, &um, &method, err, sizeof err)) {
		fs_resp_error(r, w, 422, "%s", err);
		return 0;
	}
	char method_copy[32];
	snprintf(method_copy, sizeof method_copy, "%s", method);
	rc = fs_db_begin(db);
	if (rc)
		return rc;
	rc = fs_image_set_calibration(db, rec.id, um, method_copy);
	if (!rc)
		rc = fs_sets_calibration_changed(db, rec.id, rec.um_per_px, um, method_copy, r->user.id, err,
						 sizeof err);
	if (!rc) {
		cJSON *ev = cJSON_CreateObject();
		cJSON_AddNumberToObject(ev, "um_per_px", um);
		cJSON_AddStringToObject(ev, "method", method_copy);
		rc = fs_event_log(db, r->user.id, rec.id, "calibration_set", ev);
		cJSON_Delete(ev);
	}
	if (rc) {
		fs_db_rollback(db);
		return fail_with(r, w, rc, err);
	}
	rc = fs_db_commit(db);
	if (rc)
		return rc;
	rc = fs_image_get(db, rec.id, &rec);
	if (rc)
		return refuse(r, w, rc);
	fs_resp_json(w, 200, calibration_json(r->app->db, &rec));
	return 0;
}

const fs_route fs_routes_images[] = {
	{"POST", "/api/images", h_upload, FS_MEMBER, FS_ROUTE_RAW_BODY},
	{"GET", "/api/images", h_list, FS_MEMBER, 0},
	{"GET", "/api/images/recent", h_recent, FS_MEMBER, 0},
	{"GET", "/api/images/{id}", h_get, FS_MEMBER, 0},
	{"PATCH", "/api/images/{id}", h_patch, FS_MEMBER, 0},
	{"DELETE", "/api/images/{id}", h_delete, FS_MEMBER, 0},
	{"GET", "/api/images/{id}/display.png", h_display, FS_MEMBER, 0},
	{"GET", "/api/images/{id}/thumb.png", h_thumb, FS_MEMBER, 0},
	{"GET", "/api/images/{id}/tiles/{tile}", h_tile, FS_MEMBER, 0},
	{"POST", "/api/images/{id}/rotate", h_rotate, FS_MEMBER, 0},
	{"POST", "/api/images/{id}/crop", h_crop, FS_MEMBER, 0},
	{"POST", "/api/images/{id}/autocrop", h_autocrop, FS_MEMBER, 0},
	{"GET", "/api/images/{id}/transforms", h_steps, FS_MEMBER, 0},
	{"POST", "/api/images/{id}/transforms/undo", h_steps_undo, FS_MEMBER, 0},
	{"POST", "/api/images/{id}/transforms/reset", h_steps_reset, FS_MEMBER, 0},
	{"GET", "/api/images/{id}/calibration", h_calibration_get, FS_MEMBER, 0},
	{"POST", "/api/images/{id}/calibration", h_calibration_set, FS_MEMBER, 0},
	{"POST", "/api/images/{id}/data-bar", h_databar_read, FS_MEMBER, 0},
};
const size_t fs_routes_images_n = NFIELDS(fs_routes_images);
