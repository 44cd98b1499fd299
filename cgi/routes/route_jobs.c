/*
 * route_jobs.c - background jobs and batches: an extraction or a
 * Re-measure of a large image handed to a job (called from the set routes),
 * a transform or an import (from the image routes), the user's jobs and
 * their progress, cancelling one, and batches of extractions over several
 * images of the library.
 *
 * A user sees and cancels only their own jobs (an admin any); another's job
 * id is 404, so ids cannot be probed.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "app/image_import.h"
#include "app/job_control.h"
#include "app/worker_spawn.h"
#include "routes/routes.h"
#include "store/store.h"
#include "web/web.h"

#define ERRBUF 512
#define BATCH_MAX_IMAGES 500

/* need: the job's memory estimate, against the site's budget for jobs */
static void refuse(fs_req *r, fs_resp *w, int why, long long pixels, long long need, const fs_job_limits *lim)
{
	long long need_mb = (need + (1LL << 20) - 1) >> 20, budget_mb = lim->mem_budget >> 20;
	int after = fs_job_retry_after(r->app->db, r->user.id);
	char wait[32];
	fs_wait_words(after, wait, sizeof wait);
	switch (why) {
	case FS_JOB_REFUSED_USER:
		fs_resp_header(w, "Retry-After", "%d", after);
		fs_resp_error(r, w, 429,
			      "you already have a job running: one at a time per user (try again in about %s)", wait);
		break;
	case FS_JOB_REFUSED_TOO_BIG:
		fs_resp_error(r, w, 413,
			      "an image of %lld pixels needs more memory than this site allows for one job (about %lld MB; "
			      "jobs may take %lld MB)",
			      pixels, need_mb, budget_mb);
		break;
	default:
		fs_resp_header(w, "Retry-After", "%d", after);
		if (why == FS_JOB_REFUSED_MEMORY)
			fs_resp_error(r, w, 503,
				      "the site is busy with other heavy jobs (not enough memory free: this one needs about "
				      "%lld MB and the jobs running now leave less of the %lld MB jobs may take together): "
				      "try again in about %s",
				      need_mb, budget_mb, wait);
		else
			fs_resp_error(r, w, 503,
				      "the site is busy with other heavy jobs (every slot taken): try again in about %s", wait);
	}
}

/* Admits job (kind, image, set, params filled) at once and starts its
 * worker: 202 {job}, or the refusal answered. */
static int submit_now(fs_req *r, fs_resp *w, fs_job_rec *job_in, long long image_id, long long pixels,
		      cJSON *params)
{
	fs_job_rec job = *job_in;
	job.user_id = r->user.id;
	job.image_id = image_id;
	job.pixels = pixels;
	/* an extraction's estimate depends on its method (set by the caller) */
	if (job.mem_bytes <= 0)
		job.mem_bytes = fs_job_memory_estimate(job.pixels);
	char *text = cJSON_PrintUnformatted(params);
	if (!text || strlen(text) >= sizeof job.params) {
		cJSON_free(text);
		return FS_DB_ERROR;
	}
	snprintf(job.params, sizeof job.params, "%s", text);
	cJSON_free(text);

	fs_job_limits lim;
	fs_job_limits_from_config(&r->app->cfg, &lim);
	fs_job_reap(r->app->db, NULL);
	int refused = 0;
	int rc = fs_job_create(r->app->db, &job, 1, &lim, &refused);
	if (rc)
		return rc;
	if (refused) {
		refuse(r, w, refused, job.pixels, job.mem_bytes, &lim);
		return 0;
	}
	char err[ERRBUF];
	if (fs_job_launch(r->app, &job, err, sizeof err)) {
		fs_resp_error(r, w, 500, "the %s job could not be started: %s", job.kind, err);
		return 0;
	}
	fs_job_get(r->app->db, job.id, &job);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddItemToObject(o, "job", fs_job_to_json(&job));
	fs_resp_header(w, "Location", "%sapi/jobs/%lld", r->app->cfg.base_path, job.id);
	fs_resp_json(w, 202, o);
	return 0;
}

int fs_job_submit_extract(fs_req *r, fs_resp *w, const fs_image_rec *im, long long set_id, const fs_params *p)
{
	fs_job_rec job;
	memset(&job, 0, sizeof job);
	snprintf(job.kind, sizeof job.kind, "extract");
	job.set_id = set_id;
	job.mem_bytes = fs_job_extract_memory_estimate_for(im, p->method);
	cJSON *pj = cJSON_CreateObject();
	cJSON_AddItemToObject(pj, "parameters", fs_params_to_json(p));
	int rc = submit_now(r, w, &job, im->id, (long long)im->width * im->height, pj);
	cJSON_Delete(pj);
	return rc;
}

int fs_job_submit_remeasure(fs_req *r, fs_resp *w, const fs_image_rec *im, const fs_set_info *set,
			    const fs_params *p)
{
	fs_job_rec job;
	memset(&job, 0, sizeof job);
	snprintf(job.kind, sizeof job.kind, "remeasure");
	job.set_id = set->id;
	job.mem_bytes = fs_job_remeasure_memory_estimate_for(im, set->n_tubercles, p->tophat_radius > 0);
	cJSON *pj = cJSON_CreateObject();
	cJSON_AddItemToObject(pj, "parameters", fs_params_to_json(p));
	/* the revision whose centres it measures: the result lands only on it */
	cJSON_AddNumberToObject(pj, "revision", (double)set->revision);
	int rc = submit_now(r, w, &job, im->id, (long long)im->width * im->height, pj);
	cJSON_Delete(pj);
	return rc;
}

int fs_job_submit_transform(fs_req *r, fs_resp *w, const fs_image_rec *im, const char *step, const int rect[4],
			    int keep, int expect_revision)
{
	fs_job_rec job;
	memset(&job, 0, sizeof job);
	snprintf(job.kind, sizeof job.kind, "transform");
	cJSON *pj = cJSON_CreateObject();
	cJSON_AddStringToObject(pj, "step", step);
	if (rect) {
		cJSON *a = cJSON_AddArrayToObject(pj, "rect");
		for (int i = 0; i < 4; i++)
			cJSON_AddItemToArray(a, cJSON_CreateNumber(rect[i]));
	}
	cJSON_AddNumberToObject(pj, "keep", keep);
	cJSON_AddNumberToObject(pj, "revision", expect_revision);
	/* the working file's own precision, as the step will load it
	 * (compact, image.h); floats when the header cannot be read */
	char path[4096], err[128];
	int fw, fh, bps = 4;
	if (fs_file_path(r->app->cfg.data_dir, FS_FILE_WORK, im->work_key, path, sizeof path) ||
	    fs_work_file_info(path, &fw, &fh, &bps, err, sizeof err))
		bps = 4;
	job.mem_bytes = fs_job_transform_memory_estimate((long long)im->width * im->height, bps);
	int rc = submit_now(r, w, &job, im->id, (long long)im->width * im->height, pj);
	cJSON_Delete(pj);
	return rc;
}

int fs_job_submit_import(fs_req *r, fs_resp *w, const fs_import_req *q, long long pixels, int compact_bits,
			 int *refused)
{
	fs_job_rec job;
	memset(&job, 0, sizeof job);
	snprintf(job.kind, sizeof job.kind, "import");
	job.mem_bytes = fs_job_import_memory_estimate(pixels, compact_bits ? compact_bits / 8 : 4, q->size);
	cJSON *pj = cJSON_CreateObject();
	cJSON_AddStringToObject(pj, "sha256", q->sha256);
	cJSON_AddNumberToObject(pj, "page", q->page);
	cJSON_AddStringToObject(pj, "name", q->name);
	cJSON_AddBoolToObject(pj, "shared", q->shared);
	cJSON_AddNumberToObject(pj, "size", (double)q->size);
	int rc = submit_now(r, w, &job, 0, pixels, pj);
	cJSON_Delete(pj);
	*refused = w->status != 202;
	return rc;
}

/* The job when the user may see it; 404 otherwise (answered). */
static int load_job(fs_req *r, fs_resp *w, fs_job_rec *job)
{
	int rc = fs_job_get(r->app->db, r->ids[0], job);
	if (rc == FS_DB_NOTFOUND || (!rc && job->user_id != r->user.id && !r->user.is_admin)) {
		fs_resp_error(r, w, 404, "no such job");
		return 1;
	}
	return rc;
}

/* GET /api/jobs: the user's active jobs and those ended in the last hour,
 * with their active batches (the library's batch list finds its batches
 * here after a reload); ?image_id=N (and &set_id=M) instead: only the
 * active jobs on that image (into that set), without batches - what the
 * workspace follows again when it is reloaded or opened in another tab. */
static int h_list(fs_req *r, fs_resp *w)
{
	static const fs_field f[] = {
		{"image_id", FS_FIELD_ID, 0, 0, 0, 0, NULL},
		{"set_id", FS_FIELD_ID, 0, 0, 0, 0, NULL},
	};
	fs_value v[2];
	char err[ERRBUF];
	if (fs_validate_kv(&r->query_kv, f, 2, v, 0, err, sizeof err)) {
		fs_resp_error(r, w, 422, "%s", err);
		return 0;
	}
	if (v[1].present && !v[0].present) {
		fs_resp_error(r, w, 422, "'set_id' needs the set's 'image_id'");
		return 0;
	}
	fs_job_schedule(r->app);
	cJSON *jobs = NULL, *batches = NULL;
	if (v[0].present) {
		/* a dead worker's job is not active: failed first (as h_get) */
		fs_job_reap(r->app->db, NULL);
		int rc = fs_job_list_active_on(r->app->db, r->user.id, v[0].i, v[1].present ? v[1].i : 0, &jobs);
		if (rc)
			return rc;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddBoolToObject(o, "success", 1);
		cJSON_AddItemToObject(o, "jobs", jobs);
		fs_resp_header(w, "Cache-Control", "no-store");
		fs_resp_json(w, 200, o);
		return 0;
	}
	int rc = fs_job_list(r->app->db, r->user.id, 0, &jobs);
	if (!rc)
		rc = fs_batch_list_active(r->app->db, r->user.id, &batches);
	if (rc) {
		cJSON_Delete(jobs);
		return rc;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddItemToObject(o, "jobs", jobs);
	cJSON_AddItemToObject(o, "batches", batches);
	fs_resp_header(w, "Cache-Control", "no-store");
	fs_resp_json(w, 200, o);
	return 0;
}

static int h_get(fs_req *r, fs_resp *w)
{
	fs_job_rec job;
	int rc = load_job(r, w, &job);
	if (rc)
		return rc > 0 ? 0 : rc;
	/* a dead worker shows as failed at the next look */
	if (fs_job_state_active(job.state) && strcmp(job.state, "queued")) {
		int n = 0;
		if (!fs_job_reap(r->app->db, &n) && n)
			fs_job_get(r->app->db, job.id, &job);
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddItemToObject(o, "job", fs_job_to_json(&job));
	fs_resp_header(w, "Cache-Control", "no-store");
	fs_resp_json(w, 200, o);
	return 0;
}

static int h_cancel(fs_req *r, fs_resp *w)
{
	if (fs_req_no_fields(r, w))
		return 0;
	fs_job_rec job;
	int rc = load_job(r, w, &job);
	if (rc)
		return rc > 0 ? 0 : rc;
	if (!fs_job_state_active(job.state)) {
		fs_resp_error(r, w, 409, "the job has already ended (%s)", job.state);
		return 0;
	}
	if (strcmp(job.state, "running")) {
		/* not started, or its worker not yet ready for a signal: it finds
		 * the job cancelled when it comes up and does nothing */
		rc = fs_job_finish(r->app->db, job.id, "cancelled", NULL, "cancelled before it started", NULL);
		if (rc)
			return rc;
	} else if (job.pid > 0) {
		/* the worker stops between stages and records "cancelled" itself */
		fs_worker_signal(job.pid, SIGTERM);
	}
	fs_job_get(r->app->db, job.id, &job);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddItemToObject(o, "job", fs_job_to_json(&job));
	fs_resp_json(w, 200, o);
	return 0;
}

/* The set of image im a batch writes into: the set named Base, else the first. */
static int base_set_of(fs_db *db, long long image_id, long long *set_id)
{
	fs_set_info *sets = NULL;
	size_t n = 0;
	int rc = fs_set_list(db, image_id, &sets, &n);
	if (rc)
		return rc;
	*set_id = 0;
	for (size_t i = 0; i < n && !*set_id; i++)
		if (!strcmp(sets[i].name, "Base"))
			*set_id = sets[i].id;
	if (!*set_id && n)
		*set_id = sets[0].id;
	free(sets);
	return *set_id ? FS_DB_OK : FS_DB_NOTFOUND;
}

static int h_batch_create(fs_req *r, fs_resp *w)
{
	if (!r->json || !cJSON_IsObject(r->json)) {
		fs_resp_error(r, w, 400, "send a JSON object");
		return 0;
	}
	const cJSON *ids = cJSON_GetObjectItemCaseSensitive(r->json, "image_ids");
	const cJSON *q = cJSON_GetObjectItemCaseSensitive(r->json, "q");
	const cJSON *prof = cJSON_GetObjectItemCaseSensitive(r->json, "profile");
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(r->json, "parameters");
	const cJSON *new_set = cJSON_GetObjectItemCaseSensitive(r->json, "new_set");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(r->json, "name");
	const cJSON *it;
	cJSON_ArrayForEach(it, r->json)
	{
		if (strcmp(it->string, "image_ids") && strcmp(it->string, "q") && strcmp(it->string, "profile") &&
		    strcmp(it->string, "parameters") && strcmp(it->string, "new_set") && strcmp(it->string, "name")) {
			fs_resp_error(r, w, 422, "unknown field '%s'", it->string);
			return 0;
		}
	}
	if (!!ids == !!q || (ids && !cJSON_IsArray(ids)) || (q && !cJSON_IsString(q))) {
		fs_resp_error(r, w, 422, "give either 'image_ids' (an array of image ids) or 'q' (a library search)");
		return 0;
	}
	if ((prof && !cJSON_IsString(prof)) || (params && !cJSON_IsObject(params)) ||
	    (new_set && (!cJSON_IsString(new_set) || !*new_set->valuestring || strlen(new_set->valuestring) > 64)) ||
	    (name && (!cJSON_IsString(name) || strlen(name->valuestring) > 128))) {
		fs_resp_error(r, w, 422, "'profile' must be a profile name, 'parameters' an object, 'new_set' a set "
					 "name of 1 to 64 characters, 'name' a text");
		return 0;
	}
	/* the parameters are checked now, so a batch never queues a job that cannot run */
	char err[ERRBUF];
	fs_params p;
	fs_params_default(&p);
	if (prof && *prof->valuestring) {
		const fs_profile *pr = fs_profile_find(prof->valuestring);
		if (!pr) {
			fs_resp_error(r, w, 422, "unknown profile '%s'", prof->valuestring);
			return 0;
		}
		p = pr->params;
	}
	if (params && fs_params_from_json(&p, params, 0, err, sizeof err)) {
		fs_resp_error(r, w, 422, "%s", err);
		return 0;
	}

	/* the images: the ids given (each must be visible) or a search */
	long long *img_ids = NULL;
	size_t n = 0;
	int rc = 0;
	if (ids) {
		int count = cJSON_GetArraySize(ids);
		if (count < 1 || count > BATCH_MAX_IMAGES) {
			fs_resp_error(r, w, 422, "'image_ids' must hold 1 to %d ids", BATCH_MAX_IMAGES);
			return 0;
		}
		img_ids = calloc((size_t)count, sizeof *img_ids);
		if (!img_ids)
			return FS_DB_ERROR;
		cJSON_ArrayForEach(it, ids)
		{
			double v = cJSON_GetNumberValue(it);
			if (!cJSON_IsNumber(it) || v < 1 || v > 9e15 || v != (double)(long long)v) {
				free(img_ids);
				fs_resp_error(r, w, 422, "'image_ids' must hold image ids");
				return 0;
			}
			rc = fs_image_check_access(r->app->db, (long long)v, &r->user, FS_ACCESS_READ, NULL);
			if (rc == FS_DB_NOTFOUND) {
				free(img_ids);
				fs_resp_error(r, w, 404, "no such image: %lld", (long long)v);
				return 0;
			}
			if (rc) {
				free(img_ids);
				return rc;
			}
			/* an image named twice is extracted once: twice would store the
			 * same result in the same set as two steps, one undoing nothing */
			size_t k = 0;
			while (k < n && img_ids[k] != (long long)v)
				k++;
			if (k == n)
				img_ids[n++] = (long long)v;
		}
	} else {
		fs_image_query iq = {.q = q->valuestring, .sort = FS_SORT_DATE, .page = 1, .per_page = BATCH_MAX_IMAGES};
		fs_image_rec *recs = NULL;
		long long total = 0;
		size_t got = 0;
		rc = fs_image_list(r->app->db, &r->user, &iq, &recs, &got, &total);
		if (rc)
			return rc;
		img_ids = calloc(got ? got : 1, sizeof *img_ids);
		for (size_t i = 0; img_ids && i < got; i++)
			img_ids[n++] = recs[i].id;
		free(recs);
		if (!img_ids)
			return FS_DB_ERROR;
		if (!n) {
			free(img_ids);
			fs_resp_error(r, w, 422, "no image matches '%s'", q->valuestring);
			return 0;
		}
	}

	cJSON *pj = cJSON_CreateObject();
	cJSON_AddItemToObject(pj, "parameters", fs_params_to_json(&p));
	char *ptext = cJSON_PrintUnformatted(pj);
	cJSON_Delete(pj);
	if (!ptext) {
		free(img_ids);
		return FS_DB_ERROR;
	}
	char bname[160];
	if (name && *name->valuestring)
		snprintf(bname, sizeof bname, "%s", name->valuestring);
	else
		snprintf(bname, sizeof bname, "Extraction of %zu image%s", n, n == 1 ? "" : "s");
	long long batch_id = 0;
	rc = fs_batch_create(r->app->db, r->user.id, bname, &batch_id);
	fs_job_limits lim;
	fs_job_limits_from_config(&r->app->cfg, &lim);
	for (size_t i = 0; !rc && i < n; i++) {
		fs_image_rec im;
		fs_job_rec job;
		memset(&job, 0, sizeof job);
		rc = fs_image_get(r->app->db, img_ids[i], &im);
		if (rc)
			break;
		snprintf(job.kind, sizeof job.kind, "extract");
		job.user_id = r->user.id;
		job.image_id = im.id;
		job.batch_id = batch_id;
		job.pixels = (long long)im.width * im.height;
		job.mem_bytes = fs_job_extract_memory_estimate_for(&im, p.method);
		snprintf(job.params, sizeof job.params, "%s", ptext);
		if (new_set)
			snprintf(job.new_set, sizeof job.new_set, "%s", new_set->valuestring);
		else if ((rc = base_set_of(r->app->db, im.id, &job.set_id)))
			break;
		int refused = 0;
		rc = fs_job_create(r->app->db, &job, 0, &lim, &refused);
	}
	cJSON_free(ptext);
	free(img_ids);
	if (rc)
		return rc;
	fs_job_schedule(r->app);
	cJSON *jobs = NULL;
	rc = fs_job_list(r->app->db, r->user.id, batch_id, &jobs);
	if (rc)
		return rc;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON *b = cJSON_AddObjectToObject(o, "batch");
	cJSON_AddNumberToObject(b, "id", (double)batch_id);
	cJSON_AddStringToObject(b, "name", bname);
	cJSON_AddItemToObject(o, "jobs", jobs);
	fs_resp_json(w, 201, o);
	return 0;
}

static int h_batch_get(fs_req *r, fs_resp *w)
{
	long long id = r->ids[0];
	int rc = fs_batch_check_owner(r->app->db, id, r->user.id);
	if (rc == FS_DB_NOTFOUND) {
		fs_resp_error(r, w, 404, "no such batch");
		return 0;
	}
	if (rc)
		return rc;
	fs_job_schedule(r->app);
	cJSON *jobs = NULL;
	rc = fs_job_list(r->app->db, r->user.id, id, &jobs);
	if (rc)
		return rc;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddNumberToObject(o, "batch_id", (double)id);
	cJSON_AddItemToObject(o, "jobs", jobs);
	fs_resp_header(w, "Cache-Control", "no-store");
	fs_resp_json(w, 200, o);
	return 0;
}

const fs_route fs_routes_jobs[] = {
	{"GET", "/api/jobs", h_list, FS_MEMBER, 0},
	{"GET", "/api/jobs/{id}", h_get, FS_MEMBER, 0},
	{"POST", "/api/jobs/{id}/cancel", h_cancel, FS_MEMBER, 0},
	{"POST", "/api/batches", h_batch_create, FS_MEMBER, 0},
	{"GET", "/api/batches/{id}", h_batch_get, FS_MEMBER, 0},
};
const size_t fs_routes_jobs_n = sizeof fs_routes_jobs / sizeof fs_routes_jobs[0];
