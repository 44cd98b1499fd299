/*
 * main_agent.c - `fishscale-agent --run ID --root ROOT`: one agent run as
 * its own process, started detached by the web application
 * (cgi/app/worker_spawn.h).
 *
 * The job comes from the agent_runs row (never from the command line); the
 * worker owns the private run directory <data>/runs/<id>/ (0700) and is
 * the only writer of its status.json (atomic replace, lib/agent/status_file.h)
 * and agent.log (one "[HH:MM:SS] ..." line each). It records its pid,
 * state, progress, tokens, cost, best score and finish reason in SQLite,
 * and before touching the set the checkpoint (revision and journal
 * position) that Reset goes back to.
 *
 * SIGTERM/SIGINT set a flag the agent polls (should_stop): the run ends
 * after the current step with state "stopped", a final status, a history
 * event. Exit status 0 when the run ended normally (completed or stopped),
 * 1 when it failed.
 *
 * Approve-each-step: a proposal is published in the status
 * ("pending_approval") and the answer is read from approval.json in the run
 * directory (written by POST /api/agent/approve/{id}).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "agent/agent.h"
#include "store/store.h"
#include "app/app.h"
#include "app/worker_start.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

typedef struct worker {
	fs_app app;
	fs_agent_run_rec run;
	char dir[PATH_MAX];
	char status_path[PATH_MAX + 32];
	char approval_path[PATH_MAX + 32];
	char prices_path[PATH_MAX];
	int log_fd;
	int text_fd;      /* reply.txt: the model's streamed text, appended */
	int rec_fd;       /* transcript.jsonl: one record a line */
	long long seq;
	cJSON *last;      /* the latest status (for the final one and approvals) */
} worker;

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static void session_id(const worker *wk, char *out, size_t n)
{
	snprintf(out, n, "%s%lld", strcmp(wk->run.kind, "optimize") ? "edit-" : "", wk->run.id);
}

static void put(cJSON *o, const char *k, cJSON *v)
{
	if (cJSON_HasObjectItem(o, k))
		cJSON_ReplaceItemInObject(o, k, v);
	else
		cJSON_AddItemToObject(o, k, v);
}

/* Adds the fields the worker (not the agent) knows and writes the file. */
static void publish(worker *wk, cJSON *st)
{
	char sid[40], err[256];
	session_id(wk, sid, sizeof sid);
	put(st, "schema_version", cJSON_CreateNumber(1));
	put(st, "seq", cJSON_CreateNumber((double)++wk->seq));
	put(st, "run_id", cJSON_CreateNumber((double)wk->run.id));
	put(st, "session_id", cJSON_CreateString(sid));
	put(st, "kind", cJSON_CreateString(wk->run.kind));
	put(st, "pid", cJSON_CreateNumber((double)getpid()));
	put(st, "started_at", cJSON_CreateNumber(wk->run.started_at));
	put(st, "updated_at", cJSON_CreateNumber(fs_wall_s()));
	put(st, "image_id", cJSON_CreateNumber((double)wk->run.image_id));
	put(st, "set_id", cJSON_CreateNumber((double)wk->run.set_id));
	if (fs_status_file_write(wk->status_path, st, err, sizeof err))
		fprintf(stderr, "fishscale-agent %lld: status: %s\n", wk->run.id, err);
	cJSON_Delete(wk->last);
	wk->last = cJSON_Duplicate(st, 1);
}

static double num(const cJSON *o, const char *k, double dflt)
{
	const cJSON *x = cJSON_GetObjectItem(o, k);
	return cJSON_IsNumber(x) ? x->valuedouble : dflt;
}

static void record_progress(worker *wk, const cJSON *st)
{
	const cJSON *u = cJSON_GetObjectItem(st, "usage");
	const cJSON *best = cJSON_GetObjectItem(st, "best_score");
	if (!cJSON_IsNumber(best))
		best = cJSON_GetObjectItem(st, "hexagonalness");
	int rc = fs_agent_run_progress(wk->app.db, wk->run.id, (int)num(st, "iteration", 0),
				       (long long)num(u, "input_tokens", 0), (long long)num(u, "output_tokens", 0),
				       num(u, "cost_usd", 0), cJSON_IsNumber(best), cJSON_IsNumber(best) ? best->valuedouble : 0);
	if (rc)
		fprintf(stderr, "fishscale-agent %lld: cannot record progress (%d)\n", wk->run.id, rc);
}

static void cb_status(void *ud, const cJSON *status)
{
	worker *wk = ud;
	cJSON *st = cJSON_Duplicate(status, 1);
	if (!st)
		return;
	publish(wk, st);
	record_progress(wk, st);
	cJSON_Delete(st);
}

static void cb_log(void *ud, const char *line)
{
	worker *wk = ud;
	if (wk->log_fd < 0)
		return;
	size_t n = strlen(line);
	/* one write per line keeps lines whole for a reader of the log */
	char *buf = malloc(n + 2);
	if (!buf)
		return;
	memcpy(buf, line, n);
	buf[n] = '\n';
	ssize_t k = write(wk->log_fd, buf, n + 1);
	(void)k;
	free(buf);
}

/* Chat: the model's text as it streams; GET /api/agent/chat/text/{id}
 * serves it from a byte offset. */
static void cb_text(void *ud, const char *delta)
{
	worker *wk = ud;
	size_t n = strlen(delta);
	if (wk->text_fd >= 0 && n) {
		ssize_t k = write(wk->text_fd, delta, n);
		(void)k;
	}
}

/* The run's transcript (GET /api/agent/transcript/{id}): one JSON record a line. */
static void cb_record(void *ud, const cJSON *rec)
{
	worker *wk = ud;
	char *j = wk->rec_fd >= 0 ? cJSON_PrintUnformatted(rec) : NULL;
	if (j) {
		size_t n = strlen(j);
		char *line = malloc(n + 2);
		if (line) {
			memcpy(line, j, n);
			line[n] = '\n';
			ssize_t k = write(wk->rec_fd, line, n + 1);
			(void)k;
			free(line);
		}
	}
	free(j);
}

static int cb_should_stop(void *ud)
{
	(void)ud;
	return stop_requested != 0;
}

static int cb_approve(void *ud, const cJSON *proposal, char *reason, size_t reasonlen)
{
	worker *wk = ud;
	char err[256];
	cJSON *st = wk->last ? cJSON_Duplicate(wk->last, 1) : cJSON_CreateObject();
	if (!st)
		return 0;
	/* A left-over answer goes before the proposal is shown: once it is, the
	 * user's answer may arrive at any moment, and removing the file after
	 * publishing lost an answer given quickly (the run then waited for the
	 * timeout). */
	unlink(wk->approval_path);
	put(st, "pending_approval", cJSON_Duplicate(proposal, 1));
	publish(wk, st);
	cJSON_Delete(st);
	double timeout = num(proposal, "timeout_s", 300);
	double t0 = fs_wall_s();
	int answer = -1;
	while (!stop_requested && fs_wall_s() - t0 < timeout) {
		cJSON *a = NULL;
		if (fs_status_file_read(wk->approval_path, &a, err, sizeof err) == 0) {
			answer = cJSON_IsTrue(cJSON_GetObjectItem(a, "approve")) ? 1 : 0;
			const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(a, "reason"));
			snprintf(reason, reasonlen, "%s", why ? why : answer ? "" : "rejected by the user");
			cJSON_Delete(a);
			unlink(wk->approval_path);
			break;
		}
		sleep_ms(100);
	}
	st = wk->last ? cJSON_Duplicate(wk->last, 1) : NULL;
	if (st) {
		cJSON_DeleteItemFromObject(st, "pending_approval");
		publish(wk, st);
		cJSON_Delete(st);
	}
	if (stop_requested)
		return 0;
	return answer;
}

static void job_from_row(const worker *wk, fs_agent_job *job)
{
	const fs_agent_run_rec *r = &wk->run;
	fs_agent_kind kind = !strcmp(r->kind, "optimize") ? FS_AGENT_OPTIMIZE
		: !strcmp(r->kind, "chat") ? FS_AGENT_CHAT : FS_AGENT_EDIT;
	fs_agent_job_default(job, kind);
	job->run_id = r->id;
	job->user_id = r->user_id;
	job->image_id = r->image_id;
	job->set_id = r->set_id;
	snprintf(job->provider, sizeof job->provider, "%s", r->provider);
	snprintf(job->model, sizeof job->model, "%s", r->model);
	cJSON *o = cJSON_Parse(r->options);
	const cJSON *x;
	job->max_iterations = (int)num(o, "max_iterations", job->max_iterations);
	job->max_seconds = (int)num(o, "max_seconds", job->max_seconds);
	job->max_cost_usd = num(o, "max_cost_usd", job->max_cost_usd);
	job->target_score = num(o, "target_score", job->target_score);
	job->plateau_threshold = num(o, "plateau_threshold", job->plateau_threshold);
	job->plateau_iterations = (int)num(o, "plateau_iterations", job->plateau_iterations);
	if ((x = cJSON_GetObjectItem(o, "profile")) && cJSON_IsString(x))
		snprintf(job->profile, sizeof job->profile, "%s", x->valuestring);
	if ((x = cJSON_GetObjectItem(o, "auto_connect")) && cJSON_IsBool(x))
		job->auto_connect = cJSON_IsTrue(x);
	if ((x = cJSON_GetObjectItem(o, "auto_connect_method")) && cJSON_IsString(x))
		snprintf(job->auto_connect_method, sizeof job->auto_connect_method, "%s", x->valuestring);
	if ((x = cJSON_GetObjectItem(o, "cleanup_boundary")) && cJSON_IsBool(x))
		job->cleanup_boundary = cJSON_IsTrue(x);
	if ((x = cJSON_GetObjectItem(o, "keep_best")) && cJSON_IsBool(x))
		job->keep_best = cJSON_IsTrue(x);
	if ((x = cJSON_GetObjectItem(o, "approve_each_step")) && cJSON_IsBool(x))
		job->approve_each_step = cJSON_IsTrue(x);
	if ((x = cJSON_GetObjectItem(o, "instruction")) && cJSON_IsString(x))
		snprintf(job->instruction, sizeof job->instruction, "%s", x->valuestring);
	job->max_tool_calls = (int)num(o, "max_tool_calls", job->max_tool_calls);
	job->approve_timeout_s = (int)num(o, "approve_timeout_s", job->approve_timeout_s);
	cJSON_Delete(o);
}

/* The set's revision and newest journal entry before the run: Reset's target. */
static void record_checkpoint(worker *wk)
{
	long long rev = -1, op = 0;
	if (fs_set_revision(wk->app.db, wk->run.set_id, &rev))
		return;
	cJSON *j = fs_set_journal(wk->app.db, wk->run.set_id, 1);
	const cJSON *first = cJSON_GetArrayItem(j, 0);
	if (first)
		op = (long long)num(first, "id", 0);
	cJSON_Delete(j);
	fs_agent_run_set_checkpoint(wk->app.db, wk->run.id, rev, op);
}

static void first_status(worker *wk, fs_agent_job *job)
{
	cJSON *st = cJSON_CreateObject();
	if (!st)
		return;
	cJSON_AddStringToObject(st, "state", "running");
	cJSON_AddStringToObject(st, "phase", "starting");
	cJSON_AddNumberToObject(st, "iteration", 0);
	cJSON_AddNumberToObject(st, "max_iterations", job->max_iterations);
	cJSON_AddStringToObject(st, "provider", wk->run.provider);
	cJSON_AddStringToObject(st, "model", wk->run.model);
	cJSON_AddNullToObject(st, "finish_reason");
	cJSON_AddArrayToObject(st, "log_lines");
	publish(wk, st);
	cJSON_Delete(st);
}

static void history_and_event(worker *wk, const char *state, const char *reason, const cJSON *final)
{
	int edit = strcmp(wk->run.kind, "optimize") != 0;
	cJSON *d = cJSON_CreateObject();
	if (!d)
		return;
	cJSON_AddNumberToObject(d, "run_id", (double)wk->run.id);
	cJSON_AddStringToObject(d, "kind", wk->run.kind);
	cJSON_AddStringToObject(d, "state", state);
	cJSON_AddStringToObject(d, "finish_reason", reason ? reason : "");
	cJSON_AddNumberToObject(d, "iterations", num(final, "iteration", 0));
	const cJSON *best = cJSON_GetObjectItem(final, "best_score");
	cJSON_AddNumberToObject(d, "hexagonalness", cJSON_IsNumber(best) ? best->valuedouble
				: num(final, "hexagonalness", 0));
	const cJSON *u = cJSON_GetObjectItem(final, "usage");
	cJSON_AddNumberToObject(d, "cost_usd", num(u, "cost_usd", 0));
	cJSON_AddStringToObject(d, "provider", wk->run.provider);
	if (wk->run.set_id > 0)
		fs_history_add(wk->app.db, wk->run.set_id, wk->run.user_id, edit ? "agent_edit" : "agent_optimize", d);
	const char *ev = !strcmp(state, "failed") ? (edit ? "edit_agent_error" : "agent_error")
		: !strcmp(state, "stopped") ? (edit ? "edit_agent_run_stopped" : "agent_run_stopped")
		: (edit ? "edit_agent_completed" : "agent_completed");
	fs_event_log(wk->app.db, wk->run.user_id, wk->run.image_id, ev, d);
	cJSON_Delete(d);
}

static int make_private_dir(const char *path)
{
	if (mkdir(path, 0700) && errno != EEXIST)
		return -1;
	struct stat st;
	return lstat(path, &st) || !S_ISDIR(st.st_mode) ? -1 : 0;
}

int main(int argc, char **argv)
{
	fs_app_umask(); /* before anything is created: see app.h */
	static worker wk;
	char err[600] = "", name[64];
	long long id;
	cJSON *final = NULL;
	int exit_code = 1;

	fs_agent_kinds_register_all();
	wk.log_fd = -1;
	fs_heap_keep_images();
	wk.text_fd = -1;
	wk.rec_fd = -1;
	int start = fs_worker_start(argc, argv, "fishscale-agent", on_signal, &wk.app, &id, err, sizeof err);
	if (start) {
		fprintf(stderr, "%s\n", err);
		return start;
	}
	if (fs_agent_run_get(wk.app.db, id, &wk.run)) {
		fprintf(stderr, "fishscale-agent %lld: no such run\n", id);
		goto out;
	}
	snprintf(name, sizeof name, "runs/%lld", id);
	fs_app_data_path(&wk.app, "runs", wk.dir, sizeof wk.dir);
	make_private_dir(wk.dir);
	fs_app_data_path(&wk.app, name, wk.dir, sizeof wk.dir);
	snprintf(wk.status_path, sizeof wk.status_path, "%s/status.json", wk.dir);
	snprintf(wk.approval_path, sizeof wk.approval_path, "%s/approval.json", wk.dir);
	snprintf(wk.prices_path, sizeof wk.prices_path, "%s/conf/prices.conf", wk.app.root);
	if (make_private_dir(wk.dir)) {
		snprintf(err, sizeof err, "cannot create the run directory: %s", strerror(errno));
		fs_agent_run_finish(wk.app.db, id, "failed", "error", err, NULL);
		goto out;
	}
	char logp[PATH_MAX + 32];
	snprintf(logp, sizeof logp, "%s/agent.log", wk.dir);
	wk.log_fd = open(logp, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	/* every kind streams the model's text (the optimiser's and editor's reasoning too) */
	snprintf(logp, sizeof logp, "%s/reply.txt", wk.dir);
	wk.text_fd = open(logp, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	snprintf(logp, sizeof logp, "%s/transcript.jsonl", wk.dir);
	wk.rec_fd = open(logp, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	/* a run is executed once: a second start of the same id finds it taken */
	if (fs_agent_run_set_running(wk.app.db, id, getpid())) {
		fprintf(stderr, "fishscale-agent %lld: run is not startable (state %s)\n", id, wk.run.state);
		goto out;
	}
	fs_agent_job job;
	job_from_row(&wk, &job);
	first_status(&wk, &job);
	record_checkpoint(&wk);

	fs_agent_env env = {0};
	env.db = wk.app.db;
	env.cfg = &wk.app.cfg;
	char data_dir[PATH_MAX];
	fs_app_data_path(&wk.app, "", data_dir, sizeof data_dir);
	env.data_dir = data_dir;
	env.prices_path = wk.prices_path;
	env.on_status = cb_status;
	env.on_log = cb_log;
	env.should_stop = cb_should_stop;
	if (wk.text_fd >= 0)
		env.on_text = cb_text;
	env.on_record = cb_record;
	env.approve = cb_approve;
	env.ud = &wk;

	int rc = fs_agent_job_run(&job, &env, &final, err, sizeof err);
	if (!final) {
		final = wk.last ? cJSON_Duplicate(wk.last, 1) : cJSON_CreateObject();
		if (!final)
			goto out;
	}
	const char *fs = cJSON_GetStringValue(cJSON_GetObjectItem(final, "state"));
	const char *fr = cJSON_GetStringValue(cJSON_GetObjectItem(final, "finish_reason"));
	char state[16], reason[64];
	snprintf(state, sizeof state, "%s", rc ? "failed" : fs && !fs_agent_state_active(fs) ? fs : "completed");
	snprintf(reason, sizeof reason, "%s", fr ? fr : rc ? "error" : "completed");
	if (stop_requested && strcmp(state, "failed")) {
		snprintf(state, sizeof state, "stopped");
		snprintf(reason, sizeof reason, "user_stopped");
	}
	put(final, "state", cJSON_CreateString(state));
	put(final, "finish_reason", cJSON_CreateString(reason));
	put(final, "finished_at", cJSON_CreateNumber(fs_wall_s()));
	if (rc && err[0] && !cJSON_GetStringValue(cJSON_GetObjectItem(final, "error")))
		put(final, "error", cJSON_CreateString(err));
	cJSON_DeleteItemFromObject(final, "pending_approval");
	/* The final figures (a chat's reply, the result) reach the file before
	 * the row says the run is over: a reader that sees the row finished
	 * must find them (the status route takes the final state from the row
	 * and the rest from the file). Until the row is written the file still
	 * says "running", so nothing counts the run as over before the row does
	 * (limits, one run per set); then the file gets the final state too. */
	cJSON *pre = cJSON_Duplicate(final, 1);
	if (pre) {
		put(pre, "state", cJSON_CreateString("running"));
		cJSON_DeleteItemFromObject(pre, "finished_at");
		publish(&wk, pre);
		cJSON_Delete(pre);
	}
	record_progress(&wk, final);
	const char *ferr = cJSON_GetStringValue(cJSON_GetObjectItem(final, "error"));
	fs_agent_run_finish(wk.app.db, id, state, reason, !strcmp(state, "failed") ? (ferr ? ferr : err) : NULL, NULL);
	publish(&wk, final);
	history_and_event(&wk, state, reason, final);
	if (rc)
		fprintf(stderr, "fishscale-agent %lld: %s\n", id, err);
	exit_code = !strcmp(state, "failed") ? 1 : 0;
out:
	cJSON_Delete(final);
	cJSON_Delete(wk.last);
	if (wk.log_fd >= 0)
		close(wk.log_fd);
	if (wk.text_fd >= 0)
		close(wk.text_fd);
	if (wk.rec_fd >= 0)
		close(wk.rec_fd);
	fs_app_close(&wk.app);
	return exit_code;
}
