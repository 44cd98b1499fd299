/*
 * agent_runs.c - rows of agent runs, their limits and the liveness check.
 */
#include "store/agent_runs.h"
#include "base/clock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include "store/db_bind.h"

#define COLS "id, kind, user_id, image_id, set_id, provider, model, options, state, pid, started_at, " \
	     "finished_at, iterations, tokens_in, tokens_out, cost_usd, best_score, finish_reason, error, " \
	     "run_dir, checkpoint_rev, checkpoint_op"

static void read_row(sqlite3_stmt *st, void *out)
{
	fs_agent_run_rec *r = out;
	memset(r, 0, sizeof *r);
	r->id = sqlite3_column_int64(st, 0);
	fs_db_col_text(st, 1, r->kind, sizeof r->kind);
	r->user_id = sqlite3_column_int64(st, 2);
	r->image_id = sqlite3_column_int64(st, 3);
	r->set_id = sqlite3_column_int64(st, 4);
	fs_db_col_text(st, 5, r->provider, sizeof r->provider);
	fs_db_col_text(st, 6, r->model, sizeof r->model);
	fs_db_col_text(st, 7, r->options, sizeof r->options);
	fs_db_col_text(st, 8, r->state, sizeof r->state);
	r->pid = sqlite3_column_int64(st, 9);
	r->started_at = sqlite3_column_double(st, 10);
	r->finished_at = sqlite3_column_double(st, 11);
	r->iterations = sqlite3_column_int(st, 12);
	r->tokens_in = sqlite3_column_int64(st, 13);
	r->tokens_out = sqlite3_column_int64(st, 14);
	r->cost_usd = sqlite3_column_double(st, 15);
	r->has_best = sqlite3_column_type(st, 16) != SQLITE_NULL;
	r->best_score = sqlite3_column_double(st, 16);
	fs_db_col_text(st, 17, r->finish_reason, sizeof r->finish_reason);
	fs_db_col_text(st, 18, r->error, sizeof r->error);
	fs_db_col_text(st, 19, r->run_dir, sizeof r->run_dir);
	r->checkpoint_rev = sqlite3_column_type(st, 20) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 20);
	r->checkpoint_op = sqlite3_column_type(st, 21) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 21);
}

int fs_agent_state_active(const char *state)
{
	return !strcmp(state, "starting") || !strcmp(state, "running");
}

/* Only a /proc entry that is not there says a process is gone: a file
 * that cannot be opened for another reason (the server out of file
 * descriptors or memory) says nothing, and a live run must not be failed
 * as dead on it. */
static int proc_gone(void)
{
	return errno == ENOENT || errno == ESRCH;
}

/* The state letter of /proc/<pid>/stat (after the command in parentheses);
 * 0 when the process is gone, '?' when it cannot be told. */
static char proc_state(long long pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%lld/stat", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return proc_gone() ? 0 : '?';
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

static int cmdline_has_run(long long pid, long long run_id)
{
	char path[64], buf[4096], want[32];
	snprintf(path, sizeof path, "/proc/%lld/cmdline", pid);
	snprintf(want, sizeof want, "%lld", run_id);
	FILE *f = fopen(path, "re");
	if (!f)
		return !proc_gone();
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	/* arguments are NUL-separated: look for "--run" followed by the id */
	for (size_t i = 0; i < n;) {
		const char *arg = buf + i;
		size_t len = strlen(arg);
		if (!strcmp(arg, "--run") && i + len + 1 < n && !strcmp(arg + len + 1, want))
			return 1;
		i += len + 1;
	}
	return 0;
}

int fs_agent_pid_alive(long long pid, long long run_id)
{
	if (pid <= 0)
		return 0;
	char s = proc_state(pid);
	if (!s || s == 'Z' || s == 'X' || s == 'x')
		return 0;
	if (s == '?')
		return 1;
	return cmdline_has_run(pid, run_id);
}

/* Dead: a pid that is gone, or no pid long after the start. */
static int run_is_dead(const fs_agent_run_rec *r, double now)
{
	if (!fs_agent_state_active(r->state))
		return 0;
	if (r->pid > 0)
		return !fs_agent_pid_alive(r->pid, r->id);
	return now - r->started_at > FS_AGENT_START_GRACE_S;
}

int fs_agent_run_finish(fs_db *db, long long id, const char *state, const char *reason, const char *error,
			int *changed)
{
	return fs_db_finish_row(db,
				"UPDATE agent_runs SET state = ?, finish_reason = ?, error = ?, "
				"finished_at = ? WHERE id = ? AND state IN ('starting', 'running')",
				state, reason, error, id, changed);
}

#define DIED "the worker process ended without recording a final state"

/* The run's error when its worker is gone: what the worker last wrote on
 * its stderr (a failed start, a fatal signal: cgi/app/fatal_note.c) says
 * why, so the user and a failing test see it rather than only that it
 * died. run_dir comes from the row the server wrote; the file is read from
 * its end, at most 400 bytes, and only printable ASCII is kept. */
static void died_message(const char *run_dir, char *out, size_t n)
{
	snprintf(out, n, "%s", DIED);
	if (!run_dir || !run_dir[0])
		return;
	char path[1100], tail[401];
	snprintf(path, sizeof path, "%s/worker.stderr", run_dir);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	size_t got = 0;
	if (fseek(f, -400, SEEK_END))
		rewind(f);
	got = fread(tail, 1, sizeof tail - 1, f);
	fclose(f);
	tail[got] = 0;
	/* the last line that has something in it */
	while (got > 0 && (tail[got - 1] == '\n' || tail[got - 1] == ' ' || tail[got - 1] == '\r'))
		tail[--got] = 0;
	char *line = strrchr(tail, '\n');
	line = line ? line + 1 : tail;
	for (char *c = line; *c; c++)
		if (*c < 32 || *c > 126)
			*c = '?';
	if (line[0])
		snprintf(out, n, "%s; it last wrote: %s", DIED, line);
}

static int mark_dead(fs_db *db, const fs_agent_run_rec *r)
{
	char msg[sizeof r->error];
	died_message(r->run_dir, msg, sizeof msg);
	return fs_agent_run_finish(db, r->id, "failed", "worker_died", msg, NULL);
}

int fs_agent_runs_reconcile(fs_db *db, int *n_failed)
{
	enum { MAX_DEAD = 64 };
	long long dead[MAX_DEAD];
	size_t nd = 0;
	double now = fs_wall_s();
	if (n_failed)
		*n_failed = 0;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT " COLS " FROM agent_runs WHERE state IN ('starting', 'running')");
	if (!st)
		return FS_DB_ERROR;
	fs_agent_run_rec *r = malloc(sizeof *r);
	char (*why)[sizeof r->error] = malloc(MAX_DEAD * sizeof *why);
	if (!r || !why) {
		free(r);
		free(why);
		fs_db_done(st);
		return FS_DB_ERROR;
	}
	int src;
	while ((src = sqlite3_step(st)) == SQLITE_ROW) {
		read_row(st, r);
		if (run_is_dead(r, now) && nd < MAX_DEAD) {
			died_message(r->run_dir, why[nd], sizeof why[nd]);
			dead[nd++] = r->id;
		}
	}
	fs_db_done(st);
	free(r);
	int rc = fs_db_rc_from_sqlite(src);
	for (size_t i = 0; !rc && i < nd; i++) {
		int changed = 0;
		rc = fs_agent_run_finish(db, dead[i], "failed", "worker_died", why[i], &changed);
		if (!rc && changed && n_failed)
			(*n_failed)++;
	}
	free(why);
	return rc;
}

int fs_agent_runs_count_active(fs_db *db, long long user_id, int *n_user, int *n_total)
{
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT count(*), coalesce(sum(user_id = ?), 0) FROM agent_runs "
					  "WHERE state IN ('starting', 'running')");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, user_id);
	int src = fs_bind_step(&b);
	if (src == SQLITE_ROW) {
		*n_total = sqlite3_column_int(st, 0);
		*n_user = sqlite3_column_int(st, 1);
	}
	fs_db_done(st);
	return src == SQLITE_ROW ? FS_DB_OK : fs_db_rc_from_sqlite(src);
}

int fs_agent_runs_active_on_set(fs_db *db, long long set_id, long long *run_id)
{
	*run_id = 0;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT id FROM agent_runs WHERE set_id = ? "
					  "AND state IN ('starting', 'running') ORDER BY id LIMIT 1");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	int src = fs_bind_step(&b);
	if (src == SQLITE_ROW)
		*run_id = sqlite3_column_int64(st, 0);
	fs_db_done(st);
	return src == SQLITE_ROW || src == SQLITE_DONE ? FS_DB_OK : fs_db_rc_from_sqlite(src);
}

static int insert_run(fs_db *db, fs_agent_run_rec *run)
{
	sqlite3_stmt *st = fs_db_stmt(db, "INSERT INTO agent_runs (kind, user_id, image_id, set_id, provider, "
					  "model, options, state, started_at, run_dir, mem_bytes) "
					  "VALUES (?, ?, ?, ?, ?, ?, ?, 'starting', ?, ?, ?)");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	run->started_at = fs_wall_s();
	fs_bind_text(&b, 1, run->kind, -1, SQLITE_TRANSIENT);
	fs_bind_int64(&b, 2, run->user_id);
	if (run->image_id > 0)
		fs_bind_int64(&b, 3, run->image_id);
	if (run->set_id > 0)
		fs_bind_int64(&b, 4, run->set_id);
	fs_bind_text(&b, 5, run->provider, -1, SQLITE_TRANSIENT);
	fs_bind_text(&b, 6, run->model, -1, SQLITE_TRANSIENT);
	fs_bind_text(&b, 7, run->options[0] ? run->options : "{}", -1, SQLITE_TRANSIENT);
	fs_bind_double(&b, 8, run->started_at);
	fs_bind_text(&b, 9, run->run_dir, -1, SQLITE_TRANSIENT);
	fs_bind_int64(&b, 10, run->mem_bytes > 0 ? run->mem_bytes : 0);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	if (!rc) {
		run->id = sqlite3_last_insert_rowid(fs_db_handle(db));
		snprintf(run->state, sizeof run->state, "starting");
	}
	return rc;
}

/* The one integer a parameterless sum query answers (the expected memory
 * of the active rows of agent_runs or jobs). */
static int sum_of(fs_db *db, const char *sql, long long *bytes)
{
	*bytes = 0;
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	if (!st)
		return FS_DB_ERROR;
	int src = sqlite3_step(st);
	if (src == SQLITE_ROW)
		*bytes = sqlite3_column_int64(st, 0);
	fs_db_done(st);
	return src == SQLITE_ROW ? FS_DB_OK : fs_db_rc_from_sqlite(src);
}

int fs_agent_runs_active_memory(fs_db *db, long long *bytes)
{
	return sum_of(db, "SELECT coalesce(sum(mem_bytes), 0) FROM agent_runs WHERE state IN ('starting', 'running')",
		      bytes);
}

/* The heavy jobs' expected memory now (jobs.h's active states). */
static int jobs_active_memory(fs_db *db, long long *bytes)
{
	return sum_of(db, "SELECT coalesce(sum(mem_bytes), 0) FROM jobs WHERE state IN ('starting', 'running')", bytes);
}

int fs_agent_run_create(fs_db *db, fs_agent_run_rec *run, const fs_agent_run_limits *lim, int *refused, char *err,
			size_t errlen)
{
	int n_user = 0, n_total = 0;
	*refused = FS_AGENT_LIMIT_NONE;
	int rc = fs_db_begin(db);
	if (rc) {
		snprintf(err, errlen, "database busy");
		return rc;
	}
	if ((rc = fs_agent_runs_reconcile(db, NULL)) ||
	    (rc = fs_agent_runs_count_active(db, run->user_id, &n_user, &n_total))) {
		snprintf(err, errlen, "cannot count running agents: %s", fs_db_errmsg(db));
		goto fail;
	}
	if (lim && lim->max_per_user > 0 && n_user >= lim->max_per_user) {
		*refused = FS_AGENT_LIMIT_USER;
		snprintf(err, errlen, "you already have %d agent run%s going (limit %d); stop one or wait", n_user,
			 n_user == 1 ? "" : "s", lim->max_per_user);
		rc = FS_DB_CONSTRAINT;
		goto fail;
	}
	if (lim && lim->max_total > 0 && n_total >= lim->max_total) {
		*refused = FS_AGENT_LIMIT_TOTAL;
		snprintf(err, errlen, "the server is running its maximum of %d agent runs; try again later",
			 lim->max_total);
		rc = FS_DB_CONSTRAINT;
		goto fail;
	}
	if (lim && lim->mem_budget > 0 && run->mem_bytes > 0) {
		/* a run on a large image holds its image and runs extractions in
		 * its own process: it takes its share of the heavy jobs' memory
		 * (in the same transaction as the jobs' admission takes theirs) */
		long long jobs = 0, runs = 0;
		if ((rc = jobs_active_memory(db, &jobs)) || (rc = fs_agent_runs_active_memory(db, &runs))) {
			snprintf(err, errlen, "cannot count the memory in use: %s", fs_db_errmsg(db));
			goto fail;
		}
		if (run->mem_bytes > lim->mem_budget || jobs + runs + run->mem_bytes > lim->mem_budget) {
			*refused = run->mem_bytes > lim->mem_budget ? FS_AGENT_LIMIT_TOO_BIG : FS_AGENT_LIMIT_MEMORY;
			snprintf(err, errlen,
				 run->mem_bytes > lim->mem_budget
					 ? "this image is too large for an agent run on this server (about %.0f MB needed, "
					   "%.0f MB allowed for heavy work)"
					 : "the server is busy with heavy work (about %.0f MB needed, %.0f MB of its "
					   "memory for it taken); try again later",
				 run->mem_bytes / 1e6, (run->mem_bytes > lim->mem_budget ? lim->mem_budget : jobs + runs) / 1e6);
			rc = FS_DB_CONSTRAINT;
			goto fail;
		}
	}
	if ((rc = insert_run(db, run))) {
		snprintf(err, errlen, "cannot record the run: %s", fs_db_errmsg(db));
		goto fail;
	}
	if ((rc = fs_db_commit(db))) {
		snprintf(err, errlen, "cannot record the run: %s", fs_db_errmsg(db));
		return rc;
	}
	return FS_DB_OK;
fail:
	fs_db_rollback(db);
	return rc;
}

int fs_agent_run_get(fs_db *db, long long id, fs_agent_run_rec *out)
{
	return fs_db_row_by_id(db, "SELECT " COLS " FROM agent_runs WHERE id = ?", id, read_row, out);
}

int fs_agent_run_get_checked(fs_db *db, long long id, fs_agent_run_rec *out)
{
	int rc = fs_agent_run_get(db, id, out);
	if (rc || !run_is_dead(out, fs_wall_s()))
		return rc;
	if ((rc = mark_dead(db, out)))
		return rc;
	return fs_agent_run_get(db, id, out);
}

static int exec_id(fs_db *db, sqlite3_stmt *st, int idpos, long long id)
{
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, idpos, id);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	return rc;
}

int fs_agent_run_set_pid(fs_db *db, long long id, long long pid)
{
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE agent_runs SET pid = ? WHERE id = ?");
	fs_bind b = fs_bind_start(db, st);
	if (st)
		fs_bind_int64(&b, 1, pid);
	return exec_id(db, st, 2, id);
}

int fs_agent_run_set_run_dir(fs_db *db, long long id, const char *run_dir)
{
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE agent_runs SET run_dir = ? WHERE id = ?");
	fs_bind b = fs_bind_start(db, st);
	if (st)
		fs_bind_text(&b, 1, run_dir, -1, SQLITE_TRANSIENT);
	return exec_id(db, st, 2, id);
}

int fs_agent_run_set_running(fs_db *db, long long id, long long pid)
{
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE agent_runs SET state = 'running', pid = ? "
					  "WHERE id = ? AND state IN ('starting', 'running')");
	fs_bind b = fs_bind_start(db, st);
	if (st)
		fs_bind_int64(&b, 1, pid);
	int rc = exec_id(db, st, 2, id);
	if (!rc && sqlite3_changes(fs_db_handle(db)) == 0)
		rc = FS_DB_STALE;
	return rc;
}

int fs_agent_run_set_checkpoint(fs_db *db, long long id, long long rev, long long op)
{
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE agent_runs SET checkpoint_rev = ?, checkpoint_op = ? WHERE id = ?");
	fs_bind b = fs_bind_start(db, st);
	if (st) {
		fs_bind_int64(&b, 1, rev);
		fs_bind_int64(&b, 2, op);
	}
	return exec_id(db, st, 3, id);
}

int fs_agent_run_progress(fs_db *db, long long id, int iterations, long long tokens_in, long long tokens_out,
			  double cost_usd, int has_best, double best_score)
{
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE agent_runs SET iterations = ?, tokens_in = ?, tokens_out = ?, "
					  "cost_usd = ?, best_score = coalesce(?, best_score) WHERE id = ?");
	fs_bind b = fs_bind_start(db, st);
	if (st) {
		fs_bind_int(&b, 1, iterations);
		fs_bind_int64(&b, 2, tokens_in);
		fs_bind_int64(&b, 3, tokens_out);
		fs_bind_double(&b, 4, cost_usd);
		if (has_best)
			fs_bind_double(&b, 5, best_score);
	}
	return exec_id(db, st, 6, id);
}

int fs_agent_run_list(fs_db *db, long long user_id, int limit, fs_agent_run_rec **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	size_t cap = 0;
	fs_agent_run_rec *arr = NULL;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT " COLS " FROM agent_runs WHERE (? = 0 OR user_id = ?) "
					  "ORDER BY started_at DESC, id DESC LIMIT ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, user_id);
	fs_bind_int64(&b, 2, user_id);
	fs_bind_int(&b, 3, limit > 0 ? limit : 100);
	int src, rc = FS_DB_OK;
	while ((src = fs_bind_step(&b)) == SQLITE_ROW) {
		if (*n == cap) {
			size_t nc = cap ? cap * 2 : 8;
			fs_agent_run_rec *na = realloc(arr, nc * sizeof *na);
			if (!na) {
				rc = FS_DB_ERROR;
				break;
			}
			arr = na;
			cap = nc;
		}
		read_row(st, &arr[(*n)++]);
	}
	fs_db_done(st);
	if (!rc && src != SQLITE_DONE)
		rc = fs_db_rc_from_sqlite(src);
	if (rc) {
		free(arr);
		*n = 0;
		return rc;
	}
	*out = arr;
	return FS_DB_OK;
}

int fs_agent_run_delete(fs_db *db, long long id)
{
	return fs_db_exec_id(db, "DELETE FROM agent_runs WHERE id = ?", id);
}

cJSON *fs_agent_run_to_json(const fs_agent_run_rec *r)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	char sid[40];
	snprintf(sid, sizeof sid, "%s%lld", strcmp(r->kind, "optimize") ? "edit-" : "", r->id);
	cJSON_AddNumberToObject(o, "run_id", (double)r->id);
	cJSON_AddStringToObject(o, "session_id", sid);
	cJSON_AddStringToObject(o, "kind", r->kind);
	cJSON_AddStringToObject(o, "state", r->state);
	cJSON_AddNumberToObject(o, "user_id", (double)r->user_id);
	if (r->image_id)
		cJSON_AddNumberToObject(o, "image_id", (double)r->image_id);
	else
		cJSON_AddNullToObject(o, "image_id");
	if (r->set_id)
		cJSON_AddNumberToObject(o, "set_id", (double)r->set_id);
	else
		cJSON_AddNullToObject(o, "set_id");
	cJSON_AddStringToObject(o, "provider", r->provider);
	cJSON_AddStringToObject(o, "model", r->model);
	cJSON *opts = cJSON_Parse(r->options);
	if (opts)
		cJSON_AddItemToObject(o, "options", opts);
	if (r->pid)
		cJSON_AddNumberToObject(o, "pid", (double)r->pid);
	else
		cJSON_AddNullToObject(o, "pid");
	cJSON_AddNumberToObject(o, "started_at", r->started_at);
	if (r->finished_at > 0)
		cJSON_AddNumberToObject(o, "finished_at", r->finished_at);
	else
		cJSON_AddNullToObject(o, "finished_at");
	cJSON_AddNumberToObject(o, "iterations", r->iterations);
	cJSON_AddNumberToObject(o, "input_tokens", (double)r->tokens_in);
	cJSON_AddNumberToObject(o, "output_tokens", (double)r->tokens_out);
	cJSON_AddNumberToObject(o, "cost_usd", r->cost_usd);
	if (r->has_best)
		cJSON_AddNumberToObject(o, "best_score", r->best_score);
	else
		cJSON_AddNullToObject(o, "best_score");
	if (r->finish_reason[0])
		cJSON_AddStringToObject(o, "finish_reason", r->finish_reason);
	else
		cJSON_AddNullToObject(o, "finish_reason");
	if (r->error[0])
		cJSON_AddStringToObject(o, "error", r->error);
	else
		cJSON_AddNullToObject(o, "error");
	return o;
}
