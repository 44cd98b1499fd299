/*
 * main_job.c - `fishscale-job --run ID --root ROOT`: one background job as
 * its own process, started detached by the web application or by the
 * worker of the job before it (cgi/app/job_control.h).
 *
 * The work comes from the jobs row (never from the command line). It
 * computes in one thread of lower priority, so the web workers keep
 * answering meanwhile, and writes an extraction's result from its main
 * thread at the workers' priority, so the write lock every edit waits for
 * is held as briefly as the work allows (job_priority.h). It records its
 * pid, its stage and progress and its outcome in the row; when it ends it
 * starts the queued jobs the freed slot admits.
 *
 * Kinds: "extract" — detection and neighbour graph on the image's working
 * image with the job's parameters (or profile, or the set's own), stored in
 * the target set (made first when the job names a new set) as one journal
 * step on top of whatever the set holds then.
 *
 * "remeasure" — Re-measure of a large image's set: the set's centres at
 * the job's {"revision"} measured again with the server's rule and stored
 * as one undoable step only if the set is still at that revision (a set
 * edited meanwhile keeps the edit; the job fails saying so).
 *
 * "transform" — a rotation, crop, autocrop or undo of a large image's
 * steps (store/image_steps.h), from the job's {"step", "rect", "keep",
 * "revision"}; cancellable only before it starts transforming.
 *
 * "import" — a large upload whose original the request stored: decoded,
 * its derived files written and its library entry made (image_import.h);
 * the result names the image.
 *
 * SIGTERM (Cancel) stops the job between stages: state "cancelled", the set
 * untouched. Exit status 0 done or cancelled, 1 failed, 2 usage.
 *
 * While a file <data>/jobs/hold exists, a job waits at the start of its
 * "detecting" stage (still cancellable): the tests use it to hold jobs
 * running while they check admission control, instead of relying on how
 * long a detection takes. Nothing else creates that file.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "app/app.h"
#include "app/image_import.h"
#include "app/job_control.h"
#include "app/job_priority.h"
#include "app/worker_start.h"
#include "base/base.h"
#include "image/image.h"
#include "store/store.h"

static volatile sig_atomic_t cancel_requested;

static void on_signal(int sig)
{
	(void)sig;
	cancel_requested = 1;
}

/* The parameters the job asks for: {"parameters": {...}}, {"profile": name}, or the set's own. */
static int job_params(const fs_job_rec *job, const fs_set_info *set, fs_params *p, char *err, size_t errlen)
{
	if (set->has_params)
		*p = set->params;
	else
		fs_params_default(p);
	cJSON *o = cJSON_Parse(job->params);
	if (!o) {
		snprintf(err, errlen, "the job's parameters are not JSON");
		return -1;
	}
	int rc = 0;
	const char *prof = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "profile"));
	const cJSON *pj = cJSON_GetObjectItemCaseSensitive(o, "parameters");
	if (prof && *prof) {
		const fs_profile *pr = fs_profile_find(prof);
		if (!pr) {
			snprintf(err, errlen, "unknown profile '%s'", prof);
			rc = -1;
		} else {
			*p = pr->params;
		}
	}
	if (!rc && pj)
		rc = fs_params_from_json(p, pj, 0, err, errlen);
	cJSON_Delete(o);
	return rc;
}

static void wait_while_held(fs_app *app)
{
	char hold[1200];
	fs_app_data_path(app, "jobs/hold", hold, sizeof hold);
	while (!cancel_requested && access(hold, F_OK) == 0)
		usleep(20000);
}

/* Stage and progress into the row; 1 when the job must stop now. */
static int stage(fs_db *db, long long id, const char *name, double progress)
{
	fs_job_progress(db, id, name, progress);
	return cancel_requested != 0;
}

/* An extraction's computing: the working image loaded, detected inside its
 * scale region, connected. It runs in the job's low-priority thread
 * (job_priority.h); its result stays in dr and e for the main thread. */
struct extract_work {
	fs_app *app;
	fs_job_rec *job;
	const fs_image_rec *im;
	const fs_params *p;
	double um;
	fs_detect_result dr;
	fs_edge_list e;
	char *err;
	size_t errlen;
};

/* 0 done, 1 cancelled, -1 failed (err) */
static int extract_compute(void *arg)
{
	struct extract_work *w = arg;
	fs_app *app = w->app;
	fs_image *img = NULL;
	int rc = -1;
	char prio[48];
	fs_job_priority_describe(prio, sizeof prio);
	fprintf(stderr, "fishscale-job %lld: computing at %s\n", w->job->id, prio);
	if (stage(app->db, w->job->id, "loading", 0.05))
		return 1;
	char dd[1200];
	fs_app_data_path(app, "", dd, sizeof dd);
	/* compact (image.h): the scale region and the detection read it by
	 * row bands and tiles, so an 8-bit 100 MP image takes 100 MB, not 400 */
	img = fs_image_load_work_compact(dd, w->im, w->err, w->errlen);
	if (!img)
		return -1;
	if (stage(app->db, w->job->id, "detecting", 0.15))
		goto cancelled;
	wait_while_held(app);
	if (cancel_requested)
		goto cancelled;
	{
		/* inside the image's scale region (scale_regions.h) */
		fs_scale_region reg;
		int have = fs_scale_region_for(app->db, w->im->id, w->im->work_key, img, &reg, NULL, w->err,
					       w->errlen) == FS_DB_OK;
		int drc = fs_detect_in_region(img, w->p, w->um, have ? &reg : NULL, &w->dr, w->err, w->errlen);
		if (have)
			fs_scale_region_free(&reg);
		if (drc)
			goto out;
	}
	fs_image_free(img);
	img = NULL;
	if (stage(app->db, w->job->id, "connecting", 0.8))
		goto cancelled;
	if (fs_graph_build(&w->dr.tubercles, w->p->neighbor_graph, w->p->cull_long_edges, w->p->cull_factor, &w->e,
			   w->err, w->errlen))
		goto out;
	rc = 0;
	goto out;
cancelled:
	rc = 1;
out:
	fs_image_free(img);
	return rc;
}

/*
 * SQLite has one writer: while other jobs write their large results the
 * database may stay busy past its timeout; a job that has finished its
 * work waits its turn (24 tries, 100 ms apart) instead of failing it.
 * Given a store's return code and how many tries it has had: 1 when it is
 * to be tried again (after the pause, with err cleared), else 0.
 */
static int store_again(int src, int tries, char *err)
{
	if (src != FS_DB_BUSY || tries >= 24 || cancel_requested)
		return 0;
	err[0] = 0;
	usleep(100000);
	return 1;
}

static int run_extract(fs_app *app, fs_job_rec *job, cJSON *result, char *err, size_t errlen)
{
	fs_image_rec im;
	fs_set_info set;
	fs_params p;
	struct extract_work w;
	int rc = -1;
	memset(&w, 0, sizeof w);

	if (fs_image_get(app->db, job->image_id, &im)) {
		snprintf(err, errlen, "the image no longer exists");
		return -1;
	}
	if (job->set_id <= 0) {
		long long sid = 0;
		if (fs_set_create(app->db, im.id, job->new_set[0] ? job->new_set : "Batch", job->user_id, &sid, err,
				  errlen))
			return -1;
		job->set_id = sid;
	}
	if (fs_set_get_info(app->db, job->set_id, &set) || set.image_id != im.id) {
		snprintf(err, errlen, "the set no longer exists");
		return -1;
	}
	if (job_params(job, &set, &p, err, errlen))
		return -1;
	double um = im.um_per_px > 0 ? im.um_per_px : 0;
	if (p.method != FS_METHOD_AUTO && um <= 0) {
		snprintf(err, errlen, "method %s needs a calibration: calibrate the image first (or use auto)",
			 fs_method_name(p.method));
		return -1;
	}
	w.app = app;
	w.job = job;
	w.im = &im;
	w.p = &p;
	w.um = um;
	w.err = err;
	w.errlen = errlen;
	int crc = fs_job_run_low(extract_compute, &w);
	if (crc > 0)
		goto cancelled;
	if (crc < 0)
		goto out;
	/* from here on at the priority the job was started with: the write
	 * below holds the lock every edit of the site waits for */
	if (stage(app->db, job->id, "storing", 0.9))
		goto cancelled;
	long long nrev = 0, cur = 0;
	fs_stats s;
	/* when (wall clock) the result was being stored: the benchmark sets
	 * the other users' slow edits against these windows */
	double store_started = fs_wall_s();
	/* a large result is written in several short transactions (staged
	 * chunks, then the one that makes it visible): what an edit may wait
	 * for is the longest of them, not the last */
	(void)fs_db_take_longest_write_ms(app->db);
	for (int tries = 0;; tries++) {
		int src = fs_extraction_store(app->db, &im, job->set_id, 0, job->user_id, &p, &w.dr.tubercles, &w.e, &s,
					      &nrev, &cur, err, errlen);
		if (!src)
			break;
		if (!store_again(src, tries, err))
			goto out;
	}
	/* SQLite has one writer: how long this result kept every other writer
	 * (the site's edits) waiting, in the job's log and its result */
	double lock_ms = fs_db_take_longest_write_ms(app->db), lock_cpu_ms = fs_db_last_write_cpu_ms(app->db);
	double lock_runq_ms = fs_db_last_write_runq_ms(app->db);
	fprintf(stderr,
		"fishscale-job %lld: stored %zu tubercles and %zu connections, write lock held %.0f ms at the longest "
		"(the last transaction %.0f ms on a core, %.0f ms waiting for one)\n",
		job->id, w.dr.tubercles.n, w.e.n, lock_ms, lock_cpu_ms, lock_runq_ms);
	cJSON_AddNumberToObject(result, "write_lock_ms", lock_ms);
	/* the rest of the lock's time the job waited: for a core or for I/O */
	cJSON_AddNumberToObject(result, "write_lock_cpu_ms", lock_cpu_ms);
	if (lock_runq_ms >= 0)
		cJSON_AddNumberToObject(result, "write_lock_runq_ms", lock_runq_ms);
	cJSON_AddNumberToObject(result, "store_started", store_started);
	cJSON_AddNumberToObject(result, "store_ended", fs_wall_s());
	cJSON_AddNumberToObject(result, "set_id", (double)job->set_id);
	cJSON_AddStringToObject(result, "set_name", set.name);
	cJSON_AddNumberToObject(result, "revision", (double)nrev);
	cJSON_AddNumberToObject(result, "n_tubercles", (double)w.dr.tubercles.n);
	cJSON_AddNumberToObject(result, "n_edges", (double)w.e.n);
	cJSON_AddNumberToObject(result, "hexagonalness", s.hexagonalness_score);
	rc = 0;
	goto out;
cancelled:
	rc = 1;
out:
	if (rc < 0) {
		cJSON *d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "error", err);
		cJSON_AddNumberToObject(d, "job_id", (double)job->id);
		fs_event_log(app->db, job->user_id, im.id, "extraction_failed", d);
		cJSON_Delete(d);
	}
	fs_detect_result_free(&w.dr);
	fs_edge_list_free(&w.e);
	return rc;
}

/* A Re-measure's computing, in the low-priority thread: the set's centres
 * as they were at the job's revision, measured again on the compact
 * working image. Its result stays in t for the main thread. */
struct remeasure_work {
	fs_app *app;
	fs_job_rec *job;
	const fs_image_rec *im;
	const fs_params *p;
	long long revision;
	fs_tubercle_list t;
	char *err;
	size_t errlen;
};

/* 0 done, 1 cancelled, -1 failed (err) */
static int remeasure_compute(void *arg)
{
	struct remeasure_work *w = arg;
	fs_app *app = w->app;
	if (stage(app->db, w->job->id, "loading", 0.05))
		return 1;
	/* the centres, then the revision: still the request's, so the centres
	 * are that revision's (a revision only grows; the store checks it once
	 * more under the write lock) */
	long long rev = 0;
	if (fs_set_load(app->db, w->job->set_id, &w->t, NULL) || fs_set_revision(app->db, w->job->set_id, &rev)) {
		snprintf(w->err, w->errlen, "the set could not be read");
		return -1;
	}
	if (rev != w->revision) {
		snprintf(w->err, w->errlen,
			 "the set was changed (revision %lld, now %lld) before its Re-measure started: nothing was "
			 "re-measured and the change is kept; re-measure again",
			 w->revision, rev);
		return -1;
	}
	char dd[1200];
	fs_app_data_path(app, "", dd, sizeof dd);
	/* compact (image.h): only the measurement image is made in floats */
	fs_image *img = fs_image_load_work_compact(dd, w->im, w->err, w->errlen);
	if (!img)
		return -1;
	if (stage(app->db, w->job->id, "measuring", 0.15)) {
		fs_image_free(img);
		return 1;
	}
	wait_while_held(app);
	if (cancel_requested) {
		fs_image_free(img);
		return 1;
	}
	int rc = fs_measure_centres(img, w->p, w->im->um_per_px > 0 ? w->im->um_per_px : 0, &w->t, w->err,
				    w->errlen);
	fs_image_free(img);
	return rc ? -1 : 0;
}

/* Re-measure of a large image's set (route_sets.c): the set's centres at
 * the revision the request saw, measured again and stored as one undoable
 * step only if the set is still at that revision. A set changed meanwhile
 * keeps its change: the job fails saying so, nothing is overwritten. */
static int run_remeasure(fs_app *app, fs_job_rec *job, cJSON *result, char *err, size_t errlen)
{
	fs_image_rec im;
	fs_set_info set;
	fs_params p;
	struct remeasure_work w;
	int rc = -1;
	memset(&w, 0, sizeof w);
	if (fs_image_get(app->db, job->image_id, &im)) {
		snprintf(err, errlen, "the image no longer exists");
		return -1;
	}
	if (fs_set_get_info(app->db, job->set_id, &set) || set.image_id != im.id) {
		snprintf(err, errlen, "the set no longer exists");
		return -1;
	}
	if (job_params(job, &set, &p, err, errlen))
		return -1;
	cJSON *o = cJSON_Parse(job->params);
	const cJSON *rv = cJSON_GetObjectItemCaseSensitive(o, "revision");
	w.revision = cJSON_IsNumber(rv) ? (long long)cJSON_GetNumberValue(rv) : -1;
	cJSON_Delete(o);
	if (w.revision < 0) {
		snprintf(err, errlen, "the job names no revision of the set");
		return -1;
	}
	int from = set.measurement_version;
	w.app = app;
	w.job = job;
	w.im = &im;
	w.p = &p;
	w.err = err;
	w.errlen = errlen;
	int crc = fs_job_run_low(remeasure_compute, &w);
	if (crc > 0)
		goto cancelled;
	if (crc < 0)
		goto out;
	/* at the workers' priority: the write holds the lock edits wait for */
	if (stage(app->db, job->id, "storing", 0.9))
		goto cancelled;
	long long nrev = 0, cur = 0;
	int changed = 0, unmeasured = 0, src;
	(void)fs_db_take_longest_write_ms(app->db);
	for (int tries = 0;; tries++) {
		src = fs_set_remeasure(app->db, job->set_id, w.revision, job->user_id, &w.t, FS_MEASUREMENT_VERSION,
				       &changed, &unmeasured, &nrev, &cur, err, errlen);
		if (!store_again(src, tries, err))
			break;
	}
	if (src == FS_DB_STALE) {
		snprintf(err, errlen,
			 "the set was changed while it was being re-measured (revision %lld, now %lld): nothing was "
			 "re-measured and the change is kept; re-measure again",
			 w.revision, cur);
		goto out;
	}
	if (src) {
		if (!err[0])
			snprintf(err, errlen, "the result could not be stored");
		goto out;
	}
	double lock_ms = fs_db_take_longest_write_ms(app->db);
	cJSON *h = cJSON_CreateObject();
	cJSON_AddNumberToObject(h, "from_version", from);
	cJSON_AddNumberToObject(h, "to_version", FS_MEASUREMENT_VERSION);
	cJSON_AddStringToObject(h, "rule", fs_measurement_rule_name(fs_measurement_get_rule()));
	cJSON_AddNumberToObject(h, "n_tubercles", (double)w.t.n);
	cJSON_AddNumberToObject(h, "n_changed", changed);
	cJSON_AddNumberToObject(h, "n_unmeasured", unmeasured);
	cJSON_AddNumberToObject(h, "job_id", (double)job->id);
	fs_history_add(app->db, job->set_id, job->user_id, "remeasure", h);
	cJSON_AddNumberToObject(h, "set_id", (double)job->set_id);
	fs_event_log(app->db, job->user_id, im.id, "remeasure", h);
	cJSON_Delete(h);
	fprintf(stderr, "fishscale-job %lld: re-measured %zu tubercles (%d changed), write lock held %.0f ms at the longest\n",
		job->id, w.t.n, changed, lock_ms);
	cJSON_AddNumberToObject(result, "set_id", (double)job->set_id);
	cJSON_AddStringToObject(result, "set_name", set.name);
	cJSON_AddNumberToObject(result, "revision", (double)nrev);
	cJSON_AddNumberToObject(result, "from_version", from);
	cJSON_AddNumberToObject(result, "to_version", FS_MEASUREMENT_VERSION);
	cJSON_AddNumberToObject(result, "n_tubercles", (double)w.t.n);
	cJSON_AddNumberToObject(result, "n_changed", changed);
	cJSON_AddNumberToObject(result, "n_unmeasured", unmeasured);
	cJSON_AddNumberToObject(result, "write_lock_ms", lock_ms);
	rc = 0;
	goto out;
cancelled:
	rc = 1;
out:
	if (rc < 0) {
		cJSON *d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "error", err);
		cJSON_AddNumberToObject(d, "job_id", (double)job->id);
		cJSON_AddNumberToObject(d, "set_id", (double)job->set_id);
		fs_event_log(app->db, job->user_id, im.id, "remeasure_failed", d);
		cJSON_Delete(d);
	}
	fs_tubercle_list_free(&w.t);
	return rc;
}

/* A rotation, crop, autocrop or undo of a large image (route_images.c
 * decided it is too large for a request): the same whole operation as in a
 * request (image_steps.h), whose files and transaction it owns. */
static int run_transform(fs_app *app, fs_job_rec *job, cJSON *result, char *err, size_t errlen)
{
	cJSON *o = cJSON_Parse(job->params);
	if (!o) {
		snprintf(err, errlen, "the job's parameters are not JSON");
		return -1;
	}
	char step_buf[32] = "";
	const char *sv = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "step"));
	snprintf(step_buf, sizeof step_buf, "%s", sv ? sv : "");
	const char *step = step_buf;
	const cJSON *rect = cJSON_GetObjectItemCaseSensitive(o, "rect");
	int keep = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "keep"));
	int revision = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "revision"));
	static const char *const names[] = {"rotate_left", "rotate_right", "crop", "autocrop"};
	char dd[1200];
	fs_app_data_path(app, "", dd, sizeof dd);
	int rc = -1, db_rc;
	if (stage(app->db, job->id, "transforming", 0.1)) {
		cJSON_Delete(o);
		return 1;
	}
	wait_while_held(app);
	if (cancel_requested) {
		cJSON_Delete(o);
		return 1;
	}
	if (!strcmp(step, "undo")) {
		db_rc = fs_image_step_undo(app->db, dd, job->image_id, job->user_id, keep, revision, err, errlen);
	} else {
		fs_step_request req;
		memset(&req, 0, sizeof req);
		req.kind = (fs_step_kind)-1;
		for (int k = 0; k < 4; k++)
			if (!strcmp(step, names[k]))
				req.kind = (fs_step_kind)k;
		if ((int)req.kind < 0) {
			snprintf(err, errlen, "unknown transform '%s'", step);
			cJSON_Delete(o);
			return -1;
		}
		if (req.kind == FS_STEP_CROP) {
			if (!cJSON_IsArray(rect) || cJSON_GetArraySize(rect) != 4) {
				snprintf(err, errlen, "a crop needs its rectangle");
				cJSON_Delete(o);
				return -1;
			}
			req.rect.x = (int)cJSON_GetNumberValue(cJSON_GetArrayItem(rect, 0));
			req.rect.y = (int)cJSON_GetNumberValue(cJSON_GetArrayItem(rect, 1));
			req.rect.width = (int)cJSON_GetNumberValue(cJSON_GetArrayItem(rect, 2));
			req.rect.height = (int)cJSON_GetNumberValue(cJSON_GetArrayItem(rect, 3));
		}
		req.expect_revision = revision;
		db_rc = fs_image_step_apply(app->db, dd, job->image_id, job->user_id, &req, err, errlen);
	}
	cJSON_Delete(o);
	if (db_rc) {
		if (!err[0])
			snprintf(err, errlen, "the transform failed (%s)",
				 db_rc == FS_DB_STALE ? "the image changed meanwhile" : "storage error");
		return -1;
	}
	fs_image_rec im;
	if (!fs_image_get(app->db, job->image_id, &im)) {
		cJSON_AddNumberToObject(result, "revision", im.revision);
		cJSON_AddNumberToObject(result, "width", im.width);
		cJSON_AddNumberToObject(result, "height", im.height);
	}
	cJSON_AddStringToObject(result, "step", step);
	rc = 0;
	return rc;
}

/* A large upload made into a library entry (app/image_import.h). */
static int run_import(fs_app *app, fs_job_rec *job, cJSON *result, char *err, size_t errlen)
{
	cJSON *o = cJSON_Parse(job->params);
	if (!o) {
		snprintf(err, errlen, "the job's parameters are not JSON");
		return -1;
	}
	fs_import_req q;
	memset(&q, 0, sizeof q);
	q.user_id = job->user_id;
	const char *sha = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "sha256"));
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "name"));
	snprintf(q.sha256, sizeof q.sha256, "%s", sha ? sha : "");
	snprintf(q.name, sizeof q.name, "%s", name ? name : "image");
	q.page = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "page"));
	q.shared = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "shared"));
	q.size = (long long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "size"));
	cJSON_Delete(o);
	wait_while_held(app);
	if (stage(app->db, job->id, "decoding", 0.1) || cancel_requested) {
		/* cancelled before anything was made: the stored original goes
		 * unless another entry holds it */
		int in_use = 1;
		if (fs_file_key_valid(q.sha256) && !fs_image_file_in_use(app->db, q.sha256, &in_use) && !in_use)
			fs_files_remove_original(app->cfg.data_dir, q.sha256);
		return 1;
	}
	long long id = 0;
	int existing = 0;
	if (fs_image_import_stored(app, &q, &id, &existing, err, errlen))
		return -1;
	cJSON_AddNumberToObject(result, "image_id", (double)id);
	cJSON_AddBoolToObject(result, "existing", existing);
	return 0;
}

/* A whole job of another kind in the low-priority thread (fs_job_run_low). */
struct job_call {
	int (*run)(fs_app *app, fs_job_rec *job, cJSON *result, char *err, size_t errlen);
	fs_app *app;
	fs_job_rec *job;
	cJSON *result;
	char *err;
	size_t errlen;
};

static int call_run(void *arg)
{
	struct job_call *c = arg;
	return c->run(c->app, c->job, c->result, c->err, c->errlen);
}

/* The final state, written even while other jobs keep SQLite busy with
 * their large results past its timeout (up to two minutes): a finished job
 * must not be reported dead for want of one UPDATE. */
static void finish_job(fs_db *db, long long id, const char *state, const char *result, const char *error)
{
	for (int tries = 0; tries < 24; tries++) {
		if (fs_job_finish(db, id, state, result, error, NULL) != FS_DB_BUSY)
			return;
		usleep(100000);
	}
}

int main(int argc, char **argv)
{
	fs_app_umask(); /* before anything is created: see app.h */
	fs_app app;
	fs_job_rec job;
	char err[600] = "";
	long long id;
	int exit_code = 1;

	/* the web workers come first: the job computes in a thread of lower
	 * priority (job_priority.h); this thread keeps the workers' priority
	 * for writing an extraction's result */
	fs_heap_keep_images();
	int start = fs_worker_start(argc, argv, "fishscale-job", on_signal, &app, &id, err, sizeof err);
	if (start) {
		fprintf(stderr, "%s\n", err);
		return start;
	}
	/* the site's edits take SQLite's write lock before a waiting job
	 * (job_priority.h); a minute before a busy database is an error, which
	 * the job's own retries then wait out further */
	fs_job_yield_writes(app.db, 60000);
	if (fs_job_get(app.db, id, &job) || (strcmp(job.state, "starting") && strcmp(job.state, "running"))) {
		fprintf(stderr, "fishscale-job %lld: no such job to run\n", id);
		goto out;
	}
	int startable = 0, jr;
	/* busy past the timeout (other jobs writing): wait, as finish_job does */
	for (int tries = 0; (jr = fs_job_running(app.db, id, getpid(), &startable)) == FS_DB_BUSY && tries < 24; tries++)
		usleep(100000);
	if (jr || !startable) {
		fprintf(stderr, "fishscale-job %lld: cancelled before it started\n", id);
		exit_code = 0;
		goto out;
	}
	cJSON *result = cJSON_CreateObject();
	int rc = -1;
	if (!result)
		snprintf(err, sizeof err, "out of memory");
	else if (!strcmp(job.kind, "extract"))
		rc = run_extract(&app, &job, result, err, sizeof err);
	else if (!strcmp(job.kind, "remeasure"))
		rc = run_remeasure(&app, &job, result, err, sizeof err);
	else if (!strcmp(job.kind, "transform") || !strcmp(job.kind, "import")) {
		/* their writes are a few rows: all of it at low priority */
		struct job_call c = {!strcmp(job.kind, "transform") ? run_transform : run_import, &app, &job, result,
				     err, sizeof err};
		rc = fs_job_run_low(call_run, &c);
	}
	else
		snprintf(err, sizeof err, "unknown job kind '%s'", job.kind);
	if (rc == 0) {
		/* what admission control's estimate (job_control.c) must cover */
		struct rusage ru;
		if (!getrusage(RUSAGE_SELF, &ru)) {
			cJSON_AddNumberToObject(result, "peak_rss_mb", ru.ru_maxrss / 1024.0);
			/* what the job cost the machine, for the benchmarks */
			cJSON_AddNumberToObject(result, "cpu_s",
						ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
							(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
		}
		/* a job computes in one thread so the site keeps a core (issue 15):
		 * the most threads any of its tile passes ran, for tests to check */
		cJSON_AddNumberToObject(result, "tile_threads", fs_tile_pool_most_threads());
		char *text = cJSON_PrintUnformatted(result);
		finish_job(app.db, id, "done", text, NULL);
		cJSON_free(text);
		exit_code = 0;
	} else if (rc > 0) {
		finish_job(app.db, id, "cancelled", NULL, "cancelled before it finished");
		exit_code = 0;
	} else {
		finish_job(app.db, id, "failed", NULL, err);
	}
	cJSON_Delete(result);
	/* the slot is free: start what waits for it */
	fs_job_schedule(&app);
out:
	fs_app_close(&app);
	return exit_code;
}
