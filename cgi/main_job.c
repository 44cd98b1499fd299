/*
 * main_job.c - `fishscale-job --run ID --root ROOT`: one background job as
 * its own process, started detached by the web application or by the
 * worker of the job before it (cgi/app/job_control.h).
 *
 * The work comes from the jobs row (never from the command line). It
 * computes at lower priority (in fs_job_threads threads), so the web
 * workers keep answering meanwhile, and writes an extraction's result from its main
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
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "analysis/detect.h"
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

/* The job's parameters as JSON (the caller's, cJSON_Delete), or NULL
 * with the reason in err. */
static cJSON *job_json(const fs_job_rec *job, char *err, size_t errlen)
{
	cJSON *o = cJSON_Parse(job->params);
	if (!o)
		snprintf(err, errlen, "the job's parameters are not JSON");
	return o;
}

/* The parameters the job asks for: {"parameters": {...}}, {"profile": name}, or the set's own. */
static int job_params(const fs_job_rec *job, const fs_set_info *set, fs_params *p, char *err, size_t errlen)
{
	if (set->has_params)
		*p = set->params;
	else
		fs_params_default(p);
	cJSON *o = job_json(job, err, errlen);
	if (!o)
		return -1;
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

/* The job's phases (base/phase_clock.h): each stage is one, the store adds
 * its steps (fs_db_phase); they end in the job's log and its result. */
static fs_phase_clock phases;

/* Stage and progress into the row, and the phase of that name begun; 1
 * when the job must stop now. */
static int stage(fs_db *db, long long id, const char *name, double progress)
{
	fs_phase_begin(&phases, name);
	fs_job_progress(db, id, name, progress);
	return cancel_requested != 0;
}

/* What an extraction and a Re-measure share: the job, the image and set it
 * works on and its parameters (open_set_job, main thread), read by its
 * computing thread. */
struct set_job {
	fs_app *app;
	fs_job_rec *job;
	fs_image_rec im;
	fs_set_info set;
	fs_params p;
	char *err;
	size_t errlen;
};

/* The image, the set (made first when an extraction names a new one,
 * make_set) and the parameters the job asks for. */
static int open_set_job(struct set_job *sj, fs_app *app, fs_job_rec *job, int make_set, char *err, size_t errlen)
{
	sj->app = app;
	sj->job = job;
	sj->err = err;
	sj->errlen = errlen;
	if (fs_image_get(app->db, job->image_id, &sj->im)) {
		snprintf(err, errlen, "the image no longer exists");
		return -1;
	}
	if (make_set && job->set_id <= 0) {
		long long sid = 0;
		if (fs_set_create(app->db, sj->im.id, job->new_set[0] ? job->new_set : "Batch", job->user_id, &sid,
				  err, errlen))
			return -1;
		job->set_id = sid;
	}
	if (fs_set_get_info(app->db, job->set_id, &sj->set) || sj->set.image_id != sj->im.id) {
		snprintf(err, errlen, "the set no longer exists");
		return -1;
	}
	return job_params(job, &sj->set, &sj->p, err, errlen);
}

/* In the computing thread: the working image loaded compact (image.h: the
 * detection and the measurement read it by row bands and tiles, so an
 * 8-bit 100 MP image takes 100 MB, not 400), then the work's stage entered
 * once the tests' hold (jobs/hold) is released. NULL with *rc 1 when
 * cancelled, -1 when failed (err). */
static fs_image *load_working(struct set_job *sj, const char *work_stage, int *rc)
{
	char dd[1200];
	fs_app_data_path(sj->app, "", dd, sizeof dd);
	fs_image *img = fs_image_load_work_compact(dd, &sj->im, sj->err, sj->errlen);
	*rc = -1;
	if (!img)
		return NULL;
	*rc = 1;
	if (stage(sj->app->db, sj->job->id, work_stage, 0.15)) {
		fs_image_free(img);
		return NULL;
	}
	wait_while_held(sj->app);
	if (cancel_requested) {
		fs_image_free(img);
		return NULL;
	}
	*rc = 0;
	return img;
}

/* The computing thread's function and its argument; its last phase ends
 * in that thread (phase_clock.h). */
struct low_work {
	int (*fn)(void *arg);
	void *arg;
};

static int low_main(void *arg)
{
	struct low_work *lw = arg;
	int rc = lw->fn(lw->arg);
	fs_phase_end(&phases);
	return rc;
}

/* fn(arg) in the job's low-priority thread (job_priority.h): 0 done, 1
 * cancelled, -1 failed. */
static int compute_low(int (*fn)(void *arg), void *arg)
{
	struct low_work lw = {fn, arg};
	fs_phase_end(&phases); /* the main thread's, which that thread cannot close */
	return fs_job_run_low(low_main, &lw);
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

/* A set job that failed, in the event log under event. */
static void log_failure(const struct set_job *sj, const char *event, int with_set)
{
	cJSON *d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "error", sj->err);
	cJSON_AddNumberToObject(d, "job_id", (double)sj->job->id);
	if (with_set)
		cJSON_AddNumberToObject(d, "set_id", (double)sj->job->set_id);
	fs_event_log(sj->app->db, sj->job->user_id, sj->im.id, event, d);
	cJSON_Delete(d);
}

/* An extraction's computing: detected inside the image's scale region,
 * connected; the result stays in dr and e for the main thread. */
struct extract_work {
	struct set_job *sj;
	double um;
	fs_detect_result dr;
	fs_edge_list e;
};

/* 0 done, 1 cancelled, -1 failed (err) */
static int extract_compute(void *arg)
{
	struct extract_work *w = arg;
	struct set_job *sj = w->sj;
	fs_app *app = sj->app;
	char prio[48];
	fs_job_priority_describe(prio, sizeof prio);
	fprintf(stderr, "fishscale-job %lld: computing at %s\n", sj->job->id, prio);
	if (stage(app->db, sj->job->id, "loading", 0.05))
		return 1;
	int rc;
	fs_image *img = load_working(sj, "detecting", &rc);
	if (!img)
		return rc;
	/* inside the image's scale region (scale_regions.h) */
	fs_scale_region reg;
	fs_phase_begin(&phases, "scale region");
	int have = fs_scale_region_for(app->db, sj->im.id, sj->im.work_key, img, &reg, NULL, sj->err, sj->errlen) ==
		   FS_DB_OK;
	fs_phase_begin(&phases, "detecting");
	rc = fs_detect_in_region(img, &sj->p, w->um, have ? &reg : NULL, &w->dr, sj->err, sj->errlen) ? -1 : 0;
	if (have)
		fs_scale_region_free(&reg);
	fs_image_free(img);
	if (rc)
		return rc;
	if (stage(app->db, sj->job->id, "connecting", 0.8))
		return 1;
	return fs_graph_build(&w->dr.tubercles, sj->p.neighbor_graph, sj->p.cull_long_edges, sj->p.cull_factor, &w->e,
			      sj->err, sj->errlen)
		       ? -1
		       : 0;
}

static int run_extract(fs_app *app, fs_job_rec *job, cJSON *result, char *err, size_t errlen)
{
	struct set_job sj;
	struct extract_work w;
	memset(&sj, 0, sizeof sj);
	memset(&w, 0, sizeof w);
	if (open_set_job(&sj, app, job, 1, err, errlen))
		return -1;
	w.sj = &sj;
	w.um = sj.im.um_per_px > 0 ? sj.im.um_per_px : 0;
	if (sj.p.method != FS_METHOD_AUTO && w.um <= 0) {
		snprintf(err, errlen, "method %s needs a calibration: calibrate the image first (or use auto)",
			 fs_method_name(sj.p.method));
		return -1;
	}
	int rc = compute_low(extract_compute, &w);
	/* from here on at the priority the job was started with: the write
	 * below holds the lock every edit of the site waits for */
	if (!rc && stage(app->db, job->id, "storing", 0.9))
		rc = 1;
	if (rc)
		goto out;
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
		int src = fs_extraction_store(app->db, &sj.im, job->set_id, 0, job->user_id, &sj.p, &w.dr.tubercles,
					      &w.e, &s, &nrev, &cur, err, errlen);
		if (!src)
			break;
		if (!store_again(src, tries, err)) {
			rc = -1;
			goto out;
		}
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
	cJSON_AddStringToObject(result, "set_name", sj.set.name);
	cJSON_AddNumberToObject(result, "revision", (double)nrev);
	cJSON_AddNumberToObject(result, "n_tubercles", (double)w.dr.tubercles.n);
	cJSON_AddNumberToObject(result, "n_edges", (double)w.e.n);
	cJSON_AddNumberToObject(result, "hexagonalness", s.hexagonalness_score);
out:
	if (rc < 0)
		log_failure(&sj, "extraction_failed", 0);
	fs_detect_result_free(&w.dr);
	fs_edge_list_free(&w.e);
	return rc;
}

/* A Re-measure's computing: the set's centres as they were at the job's
 * revision, measured again on the compact working image; the result stays
 * in t for the main thread. */
struct remeasure_work {
	struct set_job *sj;
	long long revision;
	fs_tubercle_list t;
	size_t outside; /* centres outside the scale region, left unmeasured */
};

/* 0 done, 1 cancelled, -1 failed (err) */
static int remeasure_compute(void *arg)
{
	struct remeasure_work *w = arg;
	struct set_job *sj = w->sj;
	if (stage(sj->app->db, sj->job->id, "loading", 0.05))
		return 1;
	/* the centres, then the revision: still the request's, so the centres
	 * are that revision's (a revision only grows; the store checks it once
	 * more under the write lock) */
	long long rev = 0;
	if (fs_set_load(sj->app->db, sj->job->set_id, &w->t, NULL) ||
	    fs_set_revision(sj->app->db, sj->job->set_id, &rev)) {
		snprintf(sj->err, sj->errlen, "the set could not be read");
		return -1;
	}
	if (rev != w->revision) {
		snprintf(sj->err, sj->errlen,
			 "the set was changed (revision %lld, now %lld) before its Re-measure started: nothing was "
			 "re-measured and the change is kept; re-measure again",
			 w->revision, rev);
		return -1;
	}
	int rc;
	/* compact: only the measurement image is made in floats */
	fs_image *img = load_working(sj, "measuring", &rc);
	if (!img)
		return rc;
	/* inside the image's scale region only (measurement.h), the region
	 * extraction uses */
	fs_scale_region reg;
	if (fs_scale_region_for(sj->app->db, sj->im.id, sj->im.work_key, img, &reg, NULL, sj->err, sj->errlen) !=
	    FS_DB_OK) {
		fs_image_free(img);
		return -1;
	}
	rc = fs_measure_centres_in_region(img, &sj->p, sj->im.um_per_px > 0 ? sj->im.um_per_px : 0,
					  fs_measurement_get_rule(), &reg, &w->t, &w->outside, sj->err, sj->errlen);
	fs_scale_region_free(&reg);
	fs_image_free(img);
	return rc ? -1 : 0;
}

/* Re-measure of a large image's set (route_sets.c): the set's centres at
 * the revision the request saw, measured again and stored as one undoable
 * step only if the set is still at that revision. A set changed meanwhile
 * keeps its change: the job fails saying so, nothing is overwritten. */
static int run_remeasure(fs_app *app, fs_job_rec *job, cJSON *result, char *err, size_t errlen)
{
	struct set_job sj;
	struct remeasure_work w;
	memset(&sj, 0, sizeof sj);
	memset(&w, 0, sizeof w);
	if (open_set_job(&sj, app, job, 0, err, errlen))
		return -1;
	w.sj = &sj;
	cJSON *o = cJSON_Parse(job->params);
	const cJSON *rv = cJSON_GetObjectItemCaseSensitive(o, "revision");
	w.revision = cJSON_IsNumber(rv) ? (long long)cJSON_GetNumberValue(rv) : -1;
	cJSON_Delete(o);
	if (w.revision < 0) {
		snprintf(err, errlen, "the job names no revision of the set");
		return -1;
	}
	int from = sj.set.measurement_version;
	int rc = compute_low(remeasure_compute, &w);
	/* at the workers' priority: the write holds the lock edits wait for */
	if (!rc && stage(app->db, job->id, "storing", 0.9))
		rc = 1;
	if (rc)
		goto out;
	rc = -1;
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
	fs_phase_begin(&phases, "history");
	cJSON *h = cJSON_CreateObject();
	cJSON_AddNumberToObject(h, "from_version", from);
	cJSON_AddNumberToObject(h, "to_version", FS_MEASUREMENT_VERSION);
	cJSON_AddStringToObject(h, "rule", fs_measurement_rule_name(fs_measurement_get_rule()));
	cJSON_AddNumberToObject(h, "n_tubercles", (double)w.t.n);
	cJSON_AddNumberToObject(h, "n_changed", changed);
	cJSON_AddNumberToObject(h, "n_unmeasured", unmeasured);
	cJSON_AddNumberToObject(h, "n_outside_region", (double)w.outside);
	cJSON_AddNumberToObject(h, "job_id", (double)job->id);
	fs_history_add(app->db, job->set_id, job->user_id, "remeasure", h);
	cJSON_AddNumberToObject(h, "set_id", (double)job->set_id);
	fs_event_log(app->db, job->user_id, sj.im.id, "remeasure", h);
	cJSON_Delete(h);
	fprintf(stderr, "fishscale-job %lld: re-measured %zu tubercles (%d changed), write lock held %.0f ms at the longest\n",
		job->id, w.t.n, changed, lock_ms);
	cJSON_AddNumberToObject(result, "set_id", (double)job->set_id);
	cJSON_AddStringToObject(result, "set_name", sj.set.name);
	cJSON_AddNumberToObject(result, "revision", (double)nrev);
	cJSON_AddNumberToObject(result, "from_version", from);
	cJSON_AddNumberToObject(result, "to_version", FS_MEASUREMENT_VERSION);
	cJSON_AddNumberToObject(result, "n_tubercles", (double)w.t.n);
	cJSON_AddNumberToObject(result, "n_changed", changed);
	cJSON_AddNumberToObject(result, "n_unmeasured", unmeasured);
	cJSON_AddNumberToObject(result, "n_outside_region", (double)w.outside);
	cJSON_AddNumberToObject(result, "write_lock_ms", lock_ms);
	rc = 0;
out:
	if (rc < 0)
		log_failure(&sj, "remeasure_failed", 1);
	fs_tubercle_list_free(&w.t);
	return rc;
}

/* A rotation, crop, autocrop or undo of a large image (route_images.c
 * decided it is too large for a request): the same whole operation as in a
 * request (image_steps.h), whose files and transaction it owns. */
static int run_transform(fs_app *app, fs_job_rec *job, cJSON *result, char *err, size_t errlen)
{
	cJSON *o = job_json(job, err, errlen);
	if (!o)
		return -1;
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
	cJSON *o = job_json(job, err, errlen);
	if (!o)
		return -1;
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

/* Where the job's time went (phase_clock.h), in its log and, as "phases",
 * in its result: each phase's wall time, on a core, and runnable waiting
 * for one (ms); the rest of a phase's wall time the job was blocked (I/O,
 * SQLite's lock). "spawn_ms": from the request that made the job to its
 * process running. */
static void log_phases(const fs_job_rec *job, double began, cJSON *result)
{
	char line[1200];
	fs_phase_clock_text(&phases, line, sizeof line);
	double spawn_ms = job->created_at > 0 ? (began - job->created_at) * 1e3 : -1;
	fprintf(stderr, "fishscale-job %lld: spawned %.0f ms after its request; phases (wall/on a core/waiting for one, ms): %s\n",
		job->id, spawn_ms, line);
	cJSON *a = cJSON_AddArrayToObject(result, "phases");
	for (int k = 0; a && k < phases.n; k++) {
		const fs_phase *p = &phases.p[k];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "phase", p->name);
		cJSON_AddNumberToObject(o, "wall_ms", round(p->wall_ms * 10) / 10);
		cJSON_AddNumberToObject(o, "cpu_ms", round(p->cpu_ms * 10) / 10);
		if (p->runq_ms >= 0)
			cJSON_AddNumberToObject(o, "runq_ms", round(p->runq_ms * 10) / 10);
		cJSON_AddItemToArray(a, o);
	}
	if (spawn_ms >= 0)
		cJSON_AddNumberToObject(result, "spawn_ms", round(spawn_ms * 10) / 10);
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
	/* from the request that made the job (its row's created_at) to here:
	 * the spawn, the program's loading */
	double began = fs_wall_s();
	fs_phase_clock_init(&phases);
	fs_phase_begin(&phases, "starting");

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
	/* the cores shared out among the jobs that may run at once
	 * (job_control.h), the default tiles */
	fs_detect_set_tiling(FS_DETECT_TILE_DEFAULT, fs_job_threads());
	fs_db_set_phase_clock(app.db, &phases);
	/* the result's time is the user's wait: no checkpoint after the job's
	 * commits (the site's checkpointer copies the WAL every half second,
	 * main_fcgi.c; a commit is as durable without it, WAL and
	 * synchronous=NORMAL), and the garbage a result replaced is swept
	 * after the result is reported (below) */
	fs_db_checkpoint_on_commit(app.db, 0);
	fs_db_set_sweep_later(app.db, 1);
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
	fs_phase_begin(&phases, "opening");
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
		rc = compute_low(call_run, &c);
	}
	else
		snprintf(err, sizeof err, "unknown job kind '%s'", job.kind);
	fs_phase_end(&phases);
	log_phases(&job, began, result);
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
		/* the most threads any of its tile passes ran (fs_job_threads at
		 * most), for tests to check */
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
	/* what the result replaced (its record, trimmed journal steps) is
	 * garbage: deleted now, a chunk per transaction (staged_blob.h), with
	 * the job's heap given back first, since the slot (and its memory in
	 * admission control's budget) is another job's already */
	if (rc == 0) {
		malloc_trim(0);
		(void)fs_blob_sweep(app.db, NULL);
	}
out:
	fs_app_close(&app);
	return exit_code;
}
