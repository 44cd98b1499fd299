/*
 * jobs.h - heavy work off the request path: the jobs table (one row per
 * piece of work a detached fishscale-job process does: an extraction of a
 * large image, one image of a batch), admission control, and batches.
 *
 * States: queued (waiting for a slot) -> starting (admitted, worker being
 * started) -> running (worker up, pid known) -> done | failed | cancelled.
 * A final state is written once, like an agent run's.
 *
 * Admission: at most max_running jobs are starting or running on the site,
 * at most one per user, and the memory they are expected to take (mem_bytes,
 * estimated from the pixel count before anything is loaded), with that of
 * the active agent runs on large images (agent_runs.h), stays within
 * mem_budget. A request that wants to start at once is refused when that
 * does not hold (see fs_job_start); a batch's jobs wait as queued and
 * fs_job_claim_next admits them in order as slots free up. Admission and
 * the state change happen in one write transaction, so two workers cannot
 * both take the last slot.
 *
 * Liveness: an active job whose worker is gone (fs_agent_pid_alive: the pid
 * alive, not a zombie, its command line naming the job) or that never got a
 * pid within FS_JOB_START_GRACE_S is failed by fs_job_reap.
 *
 * Errors: fs_db_rc values. Ownership: plain structs; JSON text in fixed or
 * caller buffers; lists are cJSON arrays the caller deletes.
 */
#ifndef FS_JOBS_H
#define FS_JOBS_H

#include <stddef.h>

#include <cJSON.h>

#include "store/db.h"

#define FS_JOB_PARAMS_MAX 8192
#define FS_JOB_START_GRACE_S 30

typedef struct fs_job_rec {
	long long id;
	char kind[16];           /* "extract" */
	long long user_id, image_id;
	long long set_id;        /* target set; 0 = create new_set (batches) */
	char new_set[65];        /* name of the set a batch job creates ("" = none) */
	long long batch_id;      /* 0 = none */
	char params[FS_JOB_PARAMS_MAX]; /* JSON object: {"parameters": {...}} or {"profile": name} */
	char state[16];
	char stage[32];          /* what it is doing: "loading", "detecting", ... */
	double progress;         /* 0..1 */
	long long pixels, mem_bytes;
	long long pid;           /* 0 = not known yet */
	char result[4096];       /* JSON object text once done (with the phases' timings) */
	char error[512];
	double created_at, started_at, finished_at; /* unix seconds; 0 = not yet */
} fs_job_rec;

typedef struct fs_job_limits {
	int max_running;         /* starting + running on the site, >= 1 */
	long long mem_budget;    /* bytes the active jobs may be expected to take */
} fs_job_limits;

/* Why fs_job_start refused (in *refused). */
enum {
	FS_JOB_OK = 0,
	FS_JOB_REFUSED_USER = 1,   /* the user already has a job starting or running */
	FS_JOB_REFUSED_SITE = 2,   /* max_running jobs are active */
	FS_JOB_REFUSED_MEMORY = 3, /* not enough of the budget left now */
	FS_JOB_REFUSED_TOO_BIG = 4 /* more than the whole budget: never */
};

/* 1 for queued, starting and running. */
int fs_job_state_active(const char *state);

/*
 * Inserts job (kind, user, image, set, new_set, batch, params, pixels,
 * mem_bytes are read; id and created_at are set). With start_now the job is
 * admitted or refused at once: state "starting" and *refused FS_JOB_OK, or
 * no row and *refused saying why. Without, it is queued (a batch).
 */
int fs_job_create(fs_db *db, fs_job_rec *job, int start_now, const fs_job_limits *lim, int *refused);

/* Admits the oldest queued job that fits the limits (state -> starting):
 * *found 1 and *out filled, or *found 0. */
int fs_job_claim_next(fs_db *db, const fs_job_limits *lim, fs_job_rec *out, int *found);

int fs_job_get(fs_db *db, long long id, fs_job_rec *out);
/* The spawner records the worker's pid (the state stays "starting"). */
int fs_job_set_pid(fs_db *db, long long id, long long pid);
/* The worker, ready to be signalled: state -> running with its pid. *ok 0
 * when the job is no longer startable (cancelled meanwhile). */
int fs_job_running(fs_db *db, long long id, long long pid, int *ok);
int fs_job_progress(fs_db *db, long long id, const char *stage, double progress);
/* Final state (done | failed | cancelled) with an optional result (JSON
 * object text) and error; *changed (may be NULL) 0 when it was final already. */
int fs_job_finish(fs_db *db, long long id, const char *state, const char *result, const char *error, int *changed);

/* Fails active jobs whose worker is gone; *n_failed (may be NULL) counts them. */
int fs_job_reap(fs_db *db, int *n_failed);

/* Seconds until a slot is likely to free up for user_id: the shortest
 * expected remaining time of the active jobs in the way (at least 2). */
int fs_job_retry_after(fs_db *db, long long user_id);

/* The job as JSON: {id, kind, image_id, set_id, batch_id, state, stage,
 * progress, error, result, created_at, started_at, finished_at}; a
 * transform job also its "step" and "keep". */
cJSON *fs_job_to_json(const fs_job_rec *job);

/* The user's jobs (batch_id > 0: that batch's, all states; else the user's
 * active ones and those finished in the last hour), newest first, as a
 * JSON array in *out. */
int fs_job_list(fs_db *db, long long user_id, long long batch_id, cJSON **out);

/* The user's active jobs (queued, starting, running) on image_id, and into
 * set_id when it is > 0 (with the image's own steps, which belong to no
 * set), oldest first, as a JSON array in *out: what a page opened on that
 * image or set follows (a reload, another tab; the workspace's extraction,
 * Re-measure and image steps). */
int fs_job_list_active_on(fs_db *db, long long user_id, long long image_id, long long set_id, cJSON **out);

/* A batch: a named group of a user's jobs. */
int fs_batch_create(fs_db *db, long long user_id, const char *name, long long *id);
/* The user's batches with jobs still queued or running, as
 * [{id, name, created_at, counts: {queued, running, done, failed, cancelled}}]. */
int fs_batch_list_active(fs_db *db, long long user_id, cJSON **out);
/* 0 when batch_id is user_id's, FS_DB_NOTFOUND otherwise. */
int fs_batch_check_owner(fs_db *db, long long batch_id, long long user_id);

#endif
