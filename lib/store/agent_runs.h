/*
 * agent_runs.h - the agent_runs table: one row per agent worker process,
 * the web application's record of a run (who, which image and set, which
 * provider, the options, the state and its outcome), the concurrency
 * limits, and the liveness check that turns a run whose worker died without
 * writing a final state into a failed run.
 *
 * States: starting (row made, worker not yet up) -> running -> completed |
 * stopped | failed. A final state is written once: later writes of a final
 * state are ignored, so a worker's own final word and a liveness check
 * cannot overwrite each other.
 *
 * Liveness: a pid alone is not proof (pids are reused, and an orphaned
 * worker may linger as a zombie when nothing reaps it), so a run is alive
 * only while /proc/<pid> is not a zombie and its command line carries
 * "--run <id>".
 *
 * Errors: fs_db_rc values. Ownership: lists are malloc'ed arrays the
 * caller free()s; JSON is the caller's to delete.
 */
#ifndef FS_AGENT_RUNS_H
#define FS_AGENT_RUNS_H

#include <stddef.h>

#include <cJSON.h>

#include "store/db.h"

#define FS_AGENT_OPTIONS_MAX 8192

/* A starting run without a pid after this long is reported failed. */
#define FS_AGENT_START_GRACE_S 30

typedef struct fs_agent_run_rec {
	long long id;
	char kind[16];          /* optimize | edit | chat */
	long long user_id, image_id, set_id;
	char provider[32];
	char model[128];
	char options[FS_AGENT_OPTIONS_MAX]; /* JSON object text */
	char state[16];
	long long pid;          /* 0 = not known yet */
	double started_at, finished_at; /* unix seconds; finished 0 = not yet */
	int iterations;
	long long tokens_in, tokens_out;
	double cost_usd;
	int has_best;
	double best_score;
	char finish_reason[64];
	char error[512];
	char run_dir[1024];
	long long checkpoint_rev, checkpoint_op; /* -1 = none recorded */
	long long mem_bytes;    /* expected peak memory on a large image, 0 = not counted (written by
				 * fs_agent_run_create, not read back) */
} fs_agent_run_rec;

/* Refusals of fs_agent_run_create (in *refused). */
enum {
	FS_AGENT_LIMIT_NONE = 0,
	FS_AGENT_LIMIT_USER = 1,
	FS_AGENT_LIMIT_TOTAL = 2,
	FS_AGENT_LIMIT_MEMORY = 3,  /* not enough of the heavy work's memory left now */
	FS_AGENT_LIMIT_TOO_BIG = 4  /* more than the whole budget: never */
};

/* mem_budget: the heavy jobs' budget (jobs.h); a run with mem_bytes > 0
 * starts only when it fits in it beside the active jobs and agent runs
 * (FS_AGENT_LIMIT_MEMORY or _TOO_BIG otherwise). <= 0: memory not checked. */
typedef struct fs_agent_run_limits {
	int max_per_user;       /* <= 0: no limit */
	int max_total;
	long long mem_budget;
} fs_agent_run_limits;

/* Bytes the active agent runs are expected to take (their mem_bytes). */
int fs_agent_runs_active_memory(fs_db *db, long long *bytes);

/* 1 for starting/running. */
int fs_agent_state_active(const char *state);

/* 1 while the worker pid of run run_id is alive (see above). */
int fs_agent_pid_alive(long long pid, long long run_id);

/*
 * Inserts run (kind, user, image, set, provider, model, options, run_dir
 * are read; state starts "starting") in one immediate transaction that
 * first reconciles dead runs and then counts the active ones against lim.
 * Over a limit: FS_DB_CONSTRAINT with *refused set and a message in err.
 * On success run->id and started_at are filled.
 */
int fs_agent_run_create(fs_db *db, fs_agent_run_rec *run, const fs_agent_run_limits *lim, int *refused, char *err,
			size_t errlen);

/* Reads a row (no liveness check). FS_DB_NOTFOUND when absent. */
int fs_agent_run_get(fs_db *db, long long id, fs_agent_run_rec *out);

/* Like get, then applies the liveness check (which may mark it failed). */
int fs_agent_run_get_checked(fs_db *db, long long id, fs_agent_run_rec *out);

/* Marks every active run whose worker is gone failed; *n_failed (may be NULL). */
int fs_agent_runs_reconcile(fs_db *db, int *n_failed);

/* Counts active runs: of user_id (0 = skip) and in total. */
int fs_agent_runs_count_active(fs_db *db, long long user_id, int *n_user, int *n_total);

/* The id of an active run on set_id in *run_id (0 = none). */
int fs_agent_runs_active_on_set(fs_db *db, long long set_id, long long *run_id);

int fs_agent_run_set_pid(fs_db *db, long long id, long long pid);
int fs_agent_run_set_run_dir(fs_db *db, long long id, const char *run_dir);
/* starting -> running with the worker's pid; FS_DB_STALE when already final. */
int fs_agent_run_set_running(fs_db *db, long long id, long long pid);
int fs_agent_run_set_checkpoint(fs_db *db, long long id, long long rev, long long op);
int fs_agent_run_progress(fs_db *db, long long id, int iterations, long long tokens_in, long long tokens_out,
			  double cost_usd, int has_best, double best_score);

/*
 * Writes a final state (completed | stopped | failed) with reason and error
 * (either may be NULL) unless the run already has one: *changed (may be
 * NULL) says whether this call wrote it.
 */
int fs_agent_run_finish(fs_db *db, long long id, const char *state, const char *reason, const char *error,
			int *changed);

/* Runs of user_id (0 = everyone's), newest first, at most limit. */
int fs_agent_run_list(fs_db *db, long long user_id, int limit, fs_agent_run_rec **out, size_t *n);

int fs_agent_run_delete(fs_db *db, long long id);

/* The row as JSON: {run_id, session_id, kind, state, provider, model, ...}. */
cJSON *fs_agent_run_to_json(const fs_agent_run_rec *run);

#endif
