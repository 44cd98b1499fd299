/* jobs.c - the jobs and batches tables and admission control (see jobs.h). */
#include "store/jobs.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "store/agent_runs.h"
#include "store/db_bind.h"
#include "store/rows_json.h"

/* Expected wall time of a job, for Retry-After: a start-up second plus the
 * pixels at the rate one core measures them (make bench). */
#define JOB_PIXELS_PER_S 20e6

#define JOB_COLUMNS                                                                                            \
	"id, kind, user_id, image_id, set_id, new_set, batch_id, params, state, stage, progress, pixels, "      \
	"mem_bytes, pid, result, error, created_at, started_at, finished_at"

int fs_job_state_active(const char *state)
{
	return !strcmp(state, "queued") || !strcmp(state, "starting") || !strcmp(state, "running");
}

static void read_row(sqlite3_stmt *st, void *out)
{
	fs_job_rec *j = out;
	memset(j, 0, sizeof *j);
	j->id = sqlite3_column_int64(st, 0);
	fs_db_col_text(st, 1, j->kind, sizeof j->kind);
	j->user_id = sqlite3_column_int64(st, 2);
	j->image_id = sqlite3_column_int64(st, 3);
	j->set_id = sqlite3_column_int64(st, 4);
	fs_db_col_text(st, 5, j->new_set, sizeof j->new_set);
	j->batch_id = sqlite3_column_int64(st, 6);
	fs_db_col_text(st, 7, j->params, sizeof j->params);
	fs_db_col_text(st, 8, j->state, sizeof j->state);
	fs_db_col_text(st, 9, j->stage, sizeof j->stage);
	j->progress = sqlite3_column_double(st, 10);
	j->pixels = sqlite3_column_int64(st, 11);
	j->mem_bytes = sqlite3_column_int64(st, 12);
	j->pid = sqlite3_column_int64(st, 13);
	fs_db_col_text(st, 14, j->result, sizeof j->result);
	fs_db_col_text(st, 15, j->error, sizeof j->error);
	j->created_at = sqlite3_column_double(st, 16);
	j->started_at = sqlite3_column_double(st, 17);
	j->finished_at = sqlite3_column_double(st, 18);
}

int fs_job_get(fs_db *db, long long id, fs_job_rec *out)
{
	return fs_db_row_by_id(db, "SELECT " JOB_COLUMNS " FROM jobs WHERE id = ?", id, read_row, out);
}

/* Active (starting or running) jobs: how many on the site, how many of
 * user_id's, and the memory they are expected to take. Queued jobs of
 * user_id count for the user too when count_queued is set. */
static int load_now(fs_db *db, long long user_id, int count_queued, int *site, int *mine, long long *mem)
{
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT count(*), coalesce(sum(user_id = ?1), 0), coalesce(sum(mem_bytes), 0)"
					  " FROM jobs WHERE state IN ('starting', 'running')");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, user_id);
	int rc = fs_bind_step(&b);
	if (rc == SQLITE_ROW) {
		*site = sqlite3_column_int(st, 0);
		*mine = sqlite3_column_int(st, 1);
		*mem = sqlite3_column_int64(st, 2);
	}
	fs_db_done(st);
	if (rc != SQLITE_ROW)
		return fs_db_rc_from_sqlite(rc);
	/* agent runs on large images share the budget (agent_runs.h) */
	long long runs = 0;
	if ((rc = fs_agent_runs_active_memory(db, &runs)))
		return rc;
	*mem += runs;
	if (count_queued) {
		st = fs_db_stmt(db, "SELECT count(*) FROM jobs WHERE state = 'queued' AND user_id = ?");
		if (!st)
			return FS_DB_ERROR;
		b = fs_bind_start(db, st);
		fs_bind_int64(&b, 1, user_id);
		rc = fs_bind_step(&b);
		if (rc == SQLITE_ROW)
			*mine += sqlite3_column_int(st, 0);
		fs_db_done(st);
		if (rc != SQLITE_ROW)
			return fs_db_rc_from_sqlite(rc);
	}
	return FS_DB_OK;
}

static int admit(const fs_job_limits *lim, int site, int mine, long long mem, long long want)
{
	if (want > lim->mem_budget)
		return FS_JOB_REFUSED_TOO_BIG;
	if (mine > 0)
		return FS_JOB_REFUSED_USER;
	if (site >= lim->max_running)
		return FS_JOB_REFUSED_SITE;
	if (mem + want > lim->mem_budget)
		return FS_JOB_REFUSED_MEMORY;
	return FS_JOB_OK;
}

static int insert(fs_db *db, fs_job_rec *j, const char *state)
{
	sqlite3_stmt *st = fs_db_stmt(db, "INSERT INTO jobs (kind, user_id, image_id, set_id, new_set, batch_id, params,"
					  " state, pixels, mem_bytes, created_at, started_at)"
					  " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	j->created_at = fs_wall_s();
	fs_bind_text(&b, 1, j->kind, -1, SQLITE_TRANSIENT);
	fs_bind_int64(&b, 2, j->user_id);
	if (j->image_id > 0)
		fs_bind_int64(&b, 3, j->image_id);
	if (j->set_id > 0)
		fs_bind_int64(&b, 4, j->set_id);
	fs_bind_text(&b, 5, j->new_set, -1, SQLITE_TRANSIENT);
	if (j->batch_id > 0)
		fs_bind_int64(&b, 6, j->batch_id);
	fs_bind_text(&b, 7, j->params[0] ? j->params : "{}", -1, SQLITE_TRANSIENT);
	fs_bind_text(&b, 8, state, -1, SQLITE_STATIC);
	fs_bind_int64(&b, 9, j->pixels);
	fs_bind_int64(&b, 10, j->mem_bytes);
	fs_bind_double(&b, 11, j->created_at);
	if (!strcmp(state, "starting"))
		fs_bind_double(&b, 12, j->created_at);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	if (!rc) {
		j->id = sqlite3_last_insert_rowid(fs_db_handle(db));
		snprintf(j->state, sizeof j->state, "%s", state);
	}
	return rc;
}

int fs_job_create(fs_db *db, fs_job_rec *job, int start_now, const fs_job_limits *lim, int *refused)
{
	*refused = FS_JOB_OK;
	int rc = fs_db_begin(db);
	if (rc)
		return rc;
	if (start_now) {
		int site = 0, mine = 0;
		long long mem = 0;
		rc = load_now(db, job->user_id, 0, &site, &mine, &mem);
		if (!rc)
			*refused = admit(lim, site, mine, mem, job->mem_bytes);
		if (rc || *refused) {
			fs_db_rollback(db);
			return rc;
		}
	}
	rc = insert(db, job, start_now ? "starting" : "queued");
	if (rc) {
		fs_db_rollback(db);
		return rc;
	}
	return fs_db_commit(db);
}

int fs_job_claim_next(fs_db *db, const fs_job_limits *lim, fs_job_rec *out, int *found)
{
	*found = 0;
	int rc = fs_db_begin(db);
	if (rc)
		return rc;
	/* oldest first, skipping users who already have a job on the way */
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT " JOB_COLUMNS " FROM jobs q WHERE state = 'queued' AND NOT EXISTS"
					  " (SELECT 1 FROM jobs a WHERE a.user_id = q.user_id"
					  "  AND a.state IN ('starting', 'running')) ORDER BY id");
	if (!st) {
		fs_db_rollback(db);
		return FS_DB_ERROR;
	}
	fs_bind b = fs_bind_start(db, st);
	fs_job_rec j;
	int step;
	while ((step = fs_bind_step(&b)) == SQLITE_ROW) {
		read_row(st, &j);
		int site = 0, mine = 0;
		long long mem = 0;
		/* the statement stays open: load_now uses other cached statements */
		rc = load_now(db, j.user_id, 0, &site, &mine, &mem);
		if (rc)
			break;
		int why = admit(lim, site, mine, mem, j.mem_bytes);
		if (why == FS_JOB_REFUSED_TOO_BIG) {
			/* it would never fit: fail it instead of blocking the queue */
			fs_db_done(st);
			st = NULL;
			rc = fs_job_finish(db, j.id, "failed", NULL,
					   "the image needs more memory than the site allows for one job", NULL);
			if (!rc)
				return fs_db_commit(db) ? FS_DB_ERROR : fs_job_claim_next(db, lim, out, found);
			break;
		}
		if (why == FS_JOB_OK) {
			*found = 1;
			*out = j;
			break;
		}
		if (why == FS_JOB_REFUSED_SITE)
			break;
	}
	if (st)
		fs_db_done(st);
	if (!rc && step != SQLITE_ROW && step != SQLITE_DONE)
		rc = fs_db_rc_from_sqlite(step);
	if (!rc && *found) {
		st = fs_db_stmt(db, "UPDATE jobs SET state = 'starting', started_at = ? WHERE id = ? AND state = 'queued'");
		if (!st) {
			rc = FS_DB_ERROR;
		} else {
			b = fs_bind_start(db, st);
			out->started_at = fs_wall_s();
			fs_bind_double(&b, 1, out->started_at);
			fs_bind_int64(&b, 2, out->id);
			rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
			fs_db_done(st);
			snprintf(out->state, sizeof out->state, "starting");
		}
	}
	if (rc) {
		*found = 0;
		fs_db_rollback(db);
		return rc;
	}
	return fs_db_commit(db);
}

int fs_job_set_pid(fs_db *db, long long id, long long pid)
{
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE jobs SET pid = ? WHERE id = ? AND state IN ('starting', 'running')");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, pid);
	fs_bind_int64(&b, 2, id);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	return rc;
}

int fs_job_running(fs_db *db, long long id, long long pid, int *ok)
{
	*ok = 0;
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE jobs SET state = 'running', pid = ? WHERE id = ?"
					  " AND state IN ('starting', 'running')");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, pid);
	fs_bind_int64(&b, 2, id);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	if (!rc)
		*ok = sqlite3_changes(fs_db_handle(db)) > 0;
	return rc;
}

int fs_job_progress(fs_db *db, long long id, const char *stage, double progress)
{
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE jobs SET stage = ?, progress = ? WHERE id = ? AND state = 'running'");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_text(&b, 1, stage, -1, SQLITE_TRANSIENT);
	fs_bind_double(&b, 2, progress < 0 ? 0 : progress > 1 ? 1 : progress);
	fs_bind_int64(&b, 3, id);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	return rc;
}

int fs_job_finish(fs_db *db, long long id, const char *state, const char *result, const char *error, int *changed)
{
	return fs_db_finish_row(db,
				"UPDATE jobs SET state = ?, result = ?, error = ?, finished_at = ?,"
				" progress = CASE WHEN ?1 = 'done' THEN 1 ELSE progress END"
				" WHERE id = ? AND state IN ('queued', 'starting', 'running')",
				state, result, error, id, changed);
}

int fs_job_reap(fs_db *db, int *n_failed)
{
	if (n_failed)
		*n_failed = 0;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT id, pid, started_at FROM jobs WHERE state IN ('starting', 'running')");
	if (!st)
		return FS_DB_ERROR;
	long long dead[64];
	int n = 0, rc;
	double now = fs_wall_s();
	while (n < 64 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(st, 0), pid = sqlite3_column_int64(st, 1);
		double started = sqlite3_column_double(st, 2);
		if (pid > 0 ? !fs_agent_pid_alive(pid, id) : now - started > FS_JOB_START_GRACE_S)
			dead[n++] = id;
	}
	fs_db_done(st);
	for (int i = 0; i < n; i++) {
		int changed = 0;
		rc = fs_job_finish(db, dead[i], "failed", NULL, "the job's worker process ended without finishing",
				   &changed);
		if (rc)
			return rc;
		if (n_failed)
			*n_failed += changed;
	}
	return FS_DB_OK;
}

int fs_job_retry_after(fs_db *db, long long user_id)
{
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT user_id, pixels, started_at FROM jobs"
					  " WHERE state IN ('starting', 'running')");
	if (!st)
		return 5;
	double now = fs_wall_s(), best = -1, best_mine = -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		double total = 1.0 + sqlite3_column_int64(st, 1) / JOB_PIXELS_PER_S;
		double left = total - (now - sqlite3_column_double(st, 2));
		if (left < 0)
			left = 0;
		if (sqlite3_column_int64(st, 0) == user_id && (best_mine < 0 || left < best_mine))
			best_mine = left;
		if (best < 0 || left < best)
			best = left;
	}
	fs_db_done(st);
	double s = best_mine >= 0 ? best_mine : best;
	int secs = (int)ceil(s);
	return secs < 2 ? 2 : secs;
}

cJSON *fs_job_to_json(const fs_job_rec *j)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "id", (double)j->id);
	cJSON_AddStringToObject(o, "kind", j->kind);
	cJSON_AddNumberToObject(o, "image_id", (double)j->image_id);
	if (j->set_id > 0)
		cJSON_AddNumberToObject(o, "set_id", (double)j->set_id);
	else
		cJSON_AddNullToObject(o, "set_id");
	if (j->batch_id > 0)
		cJSON_AddNumberToObject(o, "batch_id", (double)j->batch_id);
	/* an image step's name, so a page that finds the job after a reload
	 * can say what is being done (its parameters stay private otherwise) */
	if (!strcmp(j->kind, "transform")) {
		cJSON *pj = cJSON_Parse(j->params);
		const cJSON *step = cJSON_GetObjectItemCaseSensitive(pj, "step");
		const cJSON *keep = cJSON_GetObjectItemCaseSensitive(pj, "keep");
		if (cJSON_IsString(step))
			cJSON_AddStringToObject(o, "step", step->valuestring);
		if (cJSON_IsNumber(keep))
			cJSON_AddNumberToObject(o, "keep", keep->valuedouble);
		cJSON_Delete(pj);
	}
	cJSON_AddStringToObject(o, "state", j->state);
	cJSON_AddStringToObject(o, "stage", j->stage);
	cJSON_AddNumberToObject(o, "progress", j->progress);
	/* what admission control counted it at (the estimate, job_control.h) */
	cJSON_AddNumberToObject(o, "memory_mb", (double)(j->mem_bytes >> 20));
	if (j->error[0])
		cJSON_AddStringToObject(o, "error", j->error);
	cJSON *res = j->result[0] ? cJSON_Parse(j->result) : NULL;
	if (res)
		cJSON_AddItemToObject(o, "result", res);
	cJSON_AddNumberToObject(o, "created_at", j->created_at);
	if (j->started_at > 0)
		cJSON_AddNumberToObject(o, "started_at", j->started_at);
	if (j->finished_at > 0)
		cJSON_AddNumberToObject(o, "finished_at", j->finished_at);
	return o;
}

static cJSON *job_row_json(sqlite3_stmt *st, void *ctx)
{
	(void)ctx;
	fs_job_rec j;
	read_row(st, &j);
	return fs_job_to_json(&j);
}

int fs_job_list(fs_db *db, long long user_id, long long batch_id, cJSON **out)
{
	*out = NULL;
	sqlite3_stmt *st =
		batch_id > 0
			? fs_db_stmt(db, "SELECT " JOB_COLUMNS " FROM jobs WHERE user_id = ? AND batch_id = ? ORDER BY id")
			: fs_db_stmt(db, "SELECT " JOB_COLUMNS " FROM jobs WHERE user_id = ? AND (state IN"
					 " ('queued', 'starting', 'running') OR finished_at > ?) ORDER BY id DESC LIMIT 200");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, user_id);
	if (batch_id > 0)
		fs_bind_int64(&b, 2, batch_id);
	else
		fs_bind_double(&b, 2, fs_wall_s() - 3600);
	return fs_db_rows_json(&b, job_row_json, NULL, out);
}

int fs_job_list_active_on(fs_db *db, long long user_id, long long image_id, long long set_id, cJSON **out)
{
	*out = NULL;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT " JOB_COLUMNS " FROM jobs WHERE user_id = ? AND image_id = ?"
					  " AND (? <= 0 OR set_id = ? OR coalesce(set_id, 0) <= 0)"
					  " AND state IN ('queued', 'starting', 'running')"
					  " ORDER BY id");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, user_id);
	fs_bind_int64(&b, 2, image_id);
	fs_bind_int64(&b, 3, set_id);
	fs_bind_int64(&b, 4, set_id);
	return fs_db_rows_json(&b, job_row_json, NULL, out);
}

int fs_batch_create(fs_db *db, long long user_id, const char *name, long long *id)
{
	sqlite3_stmt *st = fs_db_stmt(db, "INSERT INTO batches (user_id, name, created_at) VALUES (?, ?, ?)");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, user_id);
	fs_bind_text(&b, 2, name, -1, SQLITE_TRANSIENT);
	fs_bind_double(&b, 3, fs_wall_s());
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	if (!rc)
		*id = sqlite3_last_insert_rowid(fs_db_handle(db));
	return rc;
}

int fs_batch_check_owner(fs_db *db, long long batch_id, long long user_id)
{
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT 1 FROM batches WHERE id = ? AND user_id = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, batch_id);
	fs_bind_int64(&b, 2, user_id);
	int rc = fs_bind_step(&b);
	fs_db_done(st);
	return fs_db_row_rc(rc);
}

static cJSON *batch_row_json(sqlite3_stmt *st, void *ctx)
{
	(void)ctx;
	static const char *const names[] = {"queued", "running", "done", "failed", "cancelled"};
	cJSON *o = cJSON_CreateObject();
	char name[129];
	fs_db_col_text(st, 1, name, sizeof name);
	cJSON_AddNumberToObject(o, "id", (double)sqlite3_column_int64(st, 0));
	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddNumberToObject(o, "created_at", sqlite3_column_double(st, 2));
	cJSON *c = cJSON_AddObjectToObject(o, "counts");
	for (int i = 0; i < 5; i++)
		cJSON_AddNumberToObject(c, names[i], sqlite3_column_int(st, 3 + i));
	return o;
}

int fs_batch_list_active(fs_db *db, long long user_id, cJSON **out)
{
	*out = NULL;
	sqlite3_stmt *st = fs_db_stmt(
		db, "SELECT b.id, b.name, b.created_at,"
		    " sum(j.state = 'queued'), sum(j.state IN ('starting', 'running')), sum(j.state = 'done'),"
		    " sum(j.state = 'failed'), sum(j.state = 'cancelled')"
		    " FROM batches b JOIN jobs j ON j.batch_id = b.id WHERE b.user_id = ?"
		    " GROUP BY b.id HAVING sum(j.state IN ('queued', 'starting', 'running')) > 0"
		    " OR max(j.finished_at) > ? ORDER BY b.id DESC");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, user_id);
	fs_bind_double(&b, 2, fs_wall_s() - 3600);
	return fs_db_rows_json(&b, batch_row_json, NULL, out);
}
