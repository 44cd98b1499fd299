/*
 * route_agents.c - the agent API: provider catalogue, starting the
 * extraction optimiser and the editing agent as detached worker processes
 * (cgi/app/worker_spawn.h, cgi/main_agent.c), their status (the worker's status
 * file joined with the agent_runs row), log, stop, list, cleanup, and
 * reset (undo every step a run made to its set).
 *
 * Who may do what: a run belongs to the user who started it; another
 * member gets 404 for it (ids cannot be probed); admins may read and stop
 * every run. Starting needs read access to the image (visible users edit
 * its sets).
 */
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "base/base.h"
#include "app/worker_spawn.h"
#include "app/app.h"
#include "app/job_control.h"
#include "agent/agent.h"
#include "analysis/analysis.h"
#include "routes/routes.h"
#include "web/web.h"

#define ERRBUF 512
#define STOP_WAIT_MS 5000
#define LOG_CHUNK_MAX (256 * 1024)

static const char *const provider_names[] = {"local", "anthropic", "claude", "openai", "openrouter",
					     "gemini", "ollama", "vllm", NULL};
static const char *const connect_methods[] = {"delaunay", "gabriel", "rng", NULL};

/* Providers that need an API key, in the order a default is chosen. */
static const char *const keyed_providers[] = {"anthropic", "openrouter", "openai", "gemini", NULL};

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int provider_configured(const char *provider, void *user)
{
	const fs_config *c = user;
	const char *p = !strcmp(provider, "claude") ? "anthropic" : provider;
	if (fs_llm_key_optional(p))
		return 1;
	return fs_llm_key_present(p, fs_config_provider_key_env(c, p), c->key_file[0] ? c->key_file : NULL);
}

static const char *default_provider(const fs_config *c)
{
	for (int i = 0; keyed_providers[i]; i++)
		if (provider_configured(keyed_providers[i], (void *)c))
			return keyed_providers[i];
	return "local";
}

static int run_dir_of(fs_req *r, long long id, char *out, size_t n)
{
	char name[64];
	snprintf(name, sizeof name, "runs/%lld", id);
	return fs_app_data_path(r->app, name, out, n);
}

static int run_file(fs_req *r, long long id, const char *file, char *out, size_t n)
{
	char name[128];
	snprintf(name, sizeof name, "runs/%lld/%s", id, file);
	return fs_app_data_path(r->app, name, out, n);
}

/* ---- providers ---- */

static int h_providers(fs_req *r, fs_resp *w)
{
	char path[1200], err[ERRBUF];
	fs_prices prices = {0};
	snprintf(path, sizeof path, "%s/conf/prices.conf", r->app->root);
	if (fs_prices_load(&prices, path, err, sizeof err)) {
		fs_resp_error(r, w, 500, "price table unavailable: %s", err);
		return 0;
	}
	cJSON *o = fs_prices_providers_json(&prices, provider_configured, &r->app->cfg);
	fs_prices_free(&prices);
	if (!o)
		return FS_DB_ERROR;
	cJSON *list = cJSON_GetObjectItem(o, "providers"), *p;
	int has_local = 0;
	cJSON_ArrayForEach(p, list)
	{
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(p, "name"));
		if (name && !strcmp(name, "local"))
			has_local = 1;
	}
	if (!has_local && list) {
		/* the offline provider is always there, whatever the price table lists */
		cJSON *l = cJSON_CreateObject();
		cJSON_AddStringToObject(l, "name", "local");
		cJSON_AddBoolToObject(l, "configured", 1);
		cJSON_AddStringToObject(l, "default_model", "local");
		cJSON *m = cJSON_AddArrayToObject(l, "models");
		cJSON *mm = cJSON_CreateObject();
		cJSON_AddStringToObject(mm, "id", "local");
		cJSON_AddNumberToObject(mm, "input_per_mtok", 0);
		cJSON_AddNumberToObject(mm, "output_per_mtok", 0);
		cJSON_AddItemToArray(m, mm);
		cJSON_AddItemToArray(list, l);
	}
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddStringToObject(o, "default_provider", default_provider(&r->app->cfg));
	fs_resp_json(w, 200, o);
	return 0;
}

/* ---- start ---- */

enum {
	F_IMAGE, F_SET, F_PROVIDER, F_MODEL, F_MAX_ITER, F_MAX_SECONDS, F_MAX_COST, F_APPROVE, F_VERBOSE,
	F_CALIBRATION,
	/* optimiser */
	F_TARGET, F_PROFILE, F_USE_CURRENT, F_PLATEAU_T, F_PLATEAU_N,
	F_COUNT_OPT,
	/* editing agent (same first block) */
	F_E_PLATEAU = F_CALIBRATION + 1, F_E_AUTO, F_E_METHOD, F_E_CLEANUP, F_E_APPROVE_TIMEOUT, F_E_KEEP_BEST,
	F_COUNT_EDIT,
	/* chat instruction (same first block) */
	F_C_INSTRUCTION = F_CALIBRATION + 1, F_C_MAX_CALLS, F_C_APPROVE_TIMEOUT,
	F_COUNT_CHAT
};

enum { KIND_OPTIMIZE, KIND_EDIT, KIND_CHAT };

/* The first block of every kind's fields (F_IMAGE .. F_CALIBRATION), in
 * the order of the enum above. */
#define COMMON_FIELDS                                                   \
	{"image_id", FS_FIELD_ID, 1, 0, 0, 0, NULL},                    \
	{"set_id", FS_FIELD_ID, 1, 0, 0, 0, NULL},                      \
	{"provider", FS_FIELD_ENUM, 0, 0, 0, 0, provider_names},        \
	{"model", FS_FIELD_STRING, 0, 0, 0, 127, NULL},                 \
	{"max_iterations", FS_FIELD_INT, 0, 1, 1000, 0, NULL},          \
	{"max_seconds", FS_FIELD_INT, 0, 1, 86400, 0, NULL},            \
	{"max_cost_usd", FS_FIELD_DOUBLE, 0, 0, 1000, 0, NULL},         \
	{"approve_each_step", FS_FIELD_BOOL, 0, 0, 0, 0, NULL},         \
	{"verbose", FS_FIELD_BOOL, 0, 0, 0, 0, NULL},                   \
	{"calibration", FS_FIELD_DOUBLE, 0, 0, FS_UM_PER_PX_MAX, 0, NULL}

static const fs_field opt_fields[] = {
	COMMON_FIELDS,
	{"target_score", FS_FIELD_DOUBLE, 0, 0.01, 1, 0, NULL},
	{"profile", FS_FIELD_STRING, 0, 0, 0, 63, NULL},
	{"use_current_params", FS_FIELD_BOOL, 0, 0, 0, 0, NULL},
	{"plateau_threshold", FS_FIELD_DOUBLE, 0, 0, 1, 0, NULL},
	{"plateau_iterations", FS_FIELD_INT, 0, 1, 50, 0, NULL},
};

static const fs_field edit_fields[] = {
	COMMON_FIELDS,
	{"plateau_threshold", FS_FIELD_INT, 0, 1, 10, 0, NULL},
	{"auto_connect", FS_FIELD_BOOL, 0, 0, 0, 0, NULL},
	{"auto_connect_method", FS_FIELD_ENUM, 0, 0, 0, 0, connect_methods},
	{"cleanup_boundary", FS_FIELD_BOOL, 0, 0, 0, 0, NULL},
	{"approve_timeout_s", FS_FIELD_INT, 0, 5, 3600, 0, NULL},
	{"keep_best", FS_FIELD_BOOL, 0, 0, 0, 0, NULL},
};

/* seed 002: one instruction, a tool loop of at most max_tool_calls calls */
static const fs_field chat_fields[] = {
	COMMON_FIELDS,
	{"instruction", FS_FIELD_STRING, 1, 0, 0, 4000, NULL},
	{"max_tool_calls", FS_FIELD_INT, 0, 1, 100, 0, NULL},
	{"approve_timeout_s", FS_FIELD_INT, 0, 5, 3600, 0, NULL},
};

/* Checks a value against a server limit: 422 with the limit named. */
static int over_limit(fs_req *r, fs_resp *w, const fs_value *v, const char *name, double limit)
{
	if (v->present && limit > 0 && v->d > limit) {
		fs_resp_error(r, w, 422, "field '%s' must be at most %g (server limit)", name, limit);
		return 1;
	}
	return 0;
}

/* Builds the options object the worker turns into its job. */
static cJSON *options_json(fs_req *r, int kind, const fs_value *v)
{
	const fs_config *c = &r->app->cfg;
	cJSON *o = cJSON_CreateObject();
	int edit = kind != KIND_OPTIMIZE;
	int def_iter = edit ? 30 : 10;
	if (c->agent_max_iterations > 0 && def_iter > c->agent_max_iterations)
		def_iter = c->agent_max_iterations;
	cJSON_AddNumberToObject(o, "max_iterations", v[F_MAX_ITER].present ? (double)v[F_MAX_ITER].i : def_iter);
	cJSON_AddNumberToObject(o, "max_seconds", v[F_MAX_SECONDS].present ? (double)v[F_MAX_SECONDS].i
						  : (c->agent_max_seconds > 0 ? c->agent_max_seconds : 1800));
	cJSON_AddNumberToObject(o, "max_cost_usd", v[F_MAX_COST].present ? v[F_MAX_COST].d
						    : (c->agent_max_cost_usd > 0 ? c->agent_max_cost_usd : 5.0));
	cJSON_AddBoolToObject(o, "approve_each_step", v[F_APPROVE].present && v[F_APPROVE].b);
	if (!edit) {
		cJSON_AddNumberToObject(o, "target_score", v[F_TARGET].present ? v[F_TARGET].d : 0.85);
		/* the set's own parameters unless told otherwise (the original's default);
		 * naming a profile alone means that profile */
		int current = v[F_USE_CURRENT].present ? v[F_USE_CURRENT].b : !v[F_PROFILE].present;
		cJSON_AddStringToObject(o, "profile", current ? ""
					: v[F_PROFILE].present ? v[F_PROFILE].s : "default");
		cJSON_AddNumberToObject(o, "plateau_threshold", v[F_PLATEAU_T].present ? v[F_PLATEAU_T].d : 0.005);
		cJSON_AddNumberToObject(o, "plateau_iterations", v[F_PLATEAU_N].present ? (double)v[F_PLATEAU_N].i : 5);
	} else if (kind == KIND_CHAT) {
		cJSON_AddStringToObject(o, "instruction", v[F_C_INSTRUCTION].s);
		cJSON_AddNumberToObject(o, "max_tool_calls", v[F_C_MAX_CALLS].present ? (double)v[F_C_MAX_CALLS].i : 20);
		if (v[F_C_APPROVE_TIMEOUT].present)
			cJSON_AddNumberToObject(o, "approve_timeout_s", (double)v[F_C_APPROVE_TIMEOUT].i);
	} else {
		if (v[F_E_APPROVE_TIMEOUT].present)
			cJSON_AddNumberToObject(o, "approve_timeout_s", (double)v[F_E_APPROVE_TIMEOUT].i);
		cJSON_AddNumberToObject(o, "plateau_iterations", v[F_E_PLATEAU].present ? (double)v[F_E_PLATEAU].i : 3);
		cJSON_AddBoolToObject(o, "auto_connect", v[F_E_AUTO].present ? v[F_E_AUTO].b : 1);
		cJSON_AddStringToObject(o, "auto_connect_method", v[F_E_METHOD].present ? v[F_E_METHOD].s : "gabriel");
		cJSON_AddBoolToObject(o, "cleanup_boundary", v[F_E_CLEANUP].present ? v[F_E_CLEANUP].b : 1);
		cJSON_AddBoolToObject(o, "keep_best", v[F_E_KEEP_BEST].present ? v[F_E_KEEP_BEST].b : 1);
	}
	return o;
}

static int make_private_dir(const char *path)
{
	if (mkdir(path, 0700) && errno != EEXIST)
		return -1;
	struct stat st;
	if (lstat(path, &st) || !S_ISDIR(st.st_mode))
		return -1;
	return 0;
}

static int start_run(fs_req *r, fs_resp *w, int kind)
{
	int edit = kind != KIND_OPTIMIZE;
	const fs_field *fields = kind == KIND_CHAT ? chat_fields : edit ? edit_fields : opt_fields;
	size_t nf = kind == KIND_CHAT ? sizeof chat_fields / sizeof chat_fields[0]
		: edit ? sizeof edit_fields / sizeof edit_fields[0] : sizeof opt_fields / sizeof opt_fields[0];
	fs_value v[F_COUNT_OPT + F_COUNT_EDIT + F_COUNT_CHAT];
	char err[ERRBUF], dir[1200], logp[1300], exe[1200];
	const fs_config *c = &r->app->cfg;
	const char *ev_prefix = kind == KIND_CHAT ? "agent_chat" : edit ? "edit_agent" : "agent";
	char ev[64];
	fs_agent_run_rec *run = NULL;
	cJSON *opts = NULL;
	int rc = 0;

	if (fs_req_body_fields(r, w, fields, nf, v, 0))
		return 0;
	if (kind == KIND_CHAT && !v[F_C_INSTRUCTION].s[strspn(v[F_C_INSTRUCTION].s, " \t\r\n")]) {
		fs_resp_error(r, w, 422, "field 'instruction' must not be empty");
		return 0;
	}
	if (over_limit(r, w, &v[F_MAX_ITER], "max_iterations", c->agent_max_iterations) ||
	    over_limit(r, w, &v[F_MAX_SECONDS], "max_seconds", c->agent_max_seconds) ||
	    over_limit(r, w, &v[F_MAX_COST], "max_cost_usd", c->agent_max_cost_usd))
		return 0;
	if (!edit && v[F_PROFILE].present && !(v[F_USE_CURRENT].present && v[F_USE_CURRENT].b) &&
	    !fs_profile_find(v[F_PROFILE].s)) {
		fs_resp_error(r, w, 422, "field 'profile': unknown profile '%s'", v[F_PROFILE].s);
		return 0;
	}
	/* 0 = the image's own calibration; anything else within the sensible range */
	if (v[F_CALIBRATION].present && v[F_CALIBRATION].d != 0 && !(fs_calibration_direct(v[F_CALIBRATION].d) > 0)) {
		fs_resp_error(r, w, 422, "field 'calibration' must be 0 or between %g and %g um per pixel",
			      FS_UM_PER_PX_MIN, FS_UM_PER_PX_MAX);
		return 0;
	}
	if (v[F_MODEL].present && *v[F_MODEL].s && !fs_llm_model_name_valid(v[F_MODEL].s)) {
		fs_resp_error(r, w, 422, "field 'model': 1 to %d characters of A-Z a-z 0-9 . _ : / -",
			      FS_LLM_MODEL_MAX);
		return 0;
	}
	const char *provider = v[F_PROVIDER].present ? v[F_PROVIDER].s : default_provider(c);
	if (!strcmp(provider, "claude"))
		provider = "anthropic";
	if (!provider_configured(provider, (void *)c)) {
		fs_resp_error(r, w, 422, "provider '%s' has no API key configured on the server", provider);
		return 0;
	}

	long long image_id = v[F_IMAGE].i, set_id = v[F_SET].i;
	fs_image_rec im;
	rc = fs_image_check_access(r->app->db, image_id, &r->user, FS_ACCESS_READ, &im);
	if (rc == FS_DB_NOTFOUND || rc == FS_DB_FORBIDDEN) {
		fs_resp_error(r, w, 404, "no such image");
		return 0;
	}
	if (rc)
		return rc;
	fs_set_info info;
	rc = fs_set_get_info(r->app->db, set_id, &info);
	if (rc == FS_DB_NOTFOUND || (!rc && info.image_id != image_id)) {
		fs_resp_error(r, w, 404, "no such set on this image");
		return 0;
	}
	if (rc)
		return rc;
	long long busy_run = 0;
	if ((rc = fs_agent_runs_reconcile(r->app->db, NULL)) ||
	    (rc = fs_agent_runs_active_on_set(r->app->db, set_id, &busy_run)))
		return rc;
	if (busy_run) {
		fs_resp_error(r, w, 409, "agent run %lld is already working on this set; stop it first", busy_run);
		return 0;
	}

	opts = options_json(r, kind, v);
	char *opt_text = opts ? cJSON_PrintUnformatted(opts) : NULL;
	run = calloc(1, sizeof *run);
	if (!opt_text || !run || strlen(opt_text) >= sizeof run->options) {
		cJSON_free(opt_text);
		rc = FS_DB_ERROR;
		goto out;
	}
	snprintf(run->options, sizeof run->options, "%s", opt_text);
	cJSON_free(opt_text);
	snprintf(run->kind, sizeof run->kind, "%s", kind == KIND_CHAT ? "chat" : edit ? "edit" : "optimize");
	snprintf(run->provider, sizeof run->provider, "%s", provider);
	snprintf(run->model, sizeof run->model, "%s", v[F_MODEL].present ? v[F_MODEL].s : "");
	run->user_id = r->user.id;
	run->image_id = image_id;
	run->set_id = set_id;
	fs_agent_run_limits lim = {c->agent_max_runs_per_user, c->agent_max_runs_total, 0};
	/* a large image: the run takes its share of the heavy jobs' memory
	 * (issue 15), admitted like a job */
	fs_job_limits jl;
	fs_job_limits_from_config(c, &jl);
	lim.mem_budget = jl.mem_budget;
	run->mem_bytes = fs_job_agent_memory_estimate_for(c, &im);
	int refused = 0;
	rc = fs_agent_run_create(r->app->db, run, &lim, &refused, err, sizeof err);
	if (rc == FS_DB_CONSTRAINT && refused == FS_AGENT_LIMIT_TOO_BIG) {
		fs_resp_error(r, w, 413, "%s", err);
		rc = 0;
		goto out;
	}
	if (rc == FS_DB_CONSTRAINT && refused == FS_AGENT_LIMIT_MEMORY) {
		fs_resp_header(w, "Retry-After", "%d", fs_job_retry_after(r->app->db, r->user.id));
		fs_resp_error(r, w, 503, "%s", err);
		rc = 0;
		goto out;
	}
	if (rc == FS_DB_CONSTRAINT && refused) {
		fs_resp_error(r, w, 429, "%s", err);
		rc = 0;
		goto out;
	}
	if (rc)
		goto out;

	/* a private directory per run: prompts and logs are nobody else's business */
	fs_app_data_path(r->app, "runs", dir, sizeof dir);
	int dir_ok = make_private_dir(dir) == 0;
	run_dir_of(r, run->id, dir, sizeof dir);
	dir_ok = dir_ok && make_private_dir(dir) == 0;
	snprintf(logp, sizeof logp, "%s/worker.stderr", dir);
	snprintf(exe, sizeof exe, "%s/build/fishscale-agent", r->app->root);
	long long pid = 0;
	/* every other provider's key variable is removed from the worker's environment */
	const char *unset[16];
	size_t nu = 0;
	static const char *const all_keyed[] = {"anthropic", "openai", "openrouter", "gemini", "ollama", "vllm", NULL};
	const char *mine = !strcmp(run->provider, "claude") ? "anthropic" : run->provider;
	const char *mine_env = fs_config_provider_key_env(&r->app->cfg, mine);
	if (!mine_env)
		mine_env = fs_llm_default_key_env(mine);
	for (int i = 0; all_keyed[i] && nu + 2 < sizeof unset / sizeof unset[0]; i++) {
		const char *names[2] = {fs_config_provider_key_env(&r->app->cfg, all_keyed[i]),
					fs_llm_default_key_env(all_keyed[i])};
		for (int k = 0; k < 2; k++)
			if (names[k] && (!mine_env || strcmp(names[k], mine_env)))
				unset[nu++] = names[k];
	}
	unset[nu] = NULL;
	if (!dir_ok) {
		snprintf(err, sizeof err, "cannot create the run directory: %s", strerror(errno));
	} else if (fs_agent_run_set_run_dir(r->app->db, run->id, dir) == 0 &&
		   fs_worker_spawn_env(exe, r->app->root, run->id, logp, unset, &pid, err, sizeof err) == 0) {
		/* the worker records its pid too; whichever lands first is the same */
		fs_agent_run_set_pid(r->app->db, run->id, pid);
		cJSON *d = cJSON_CreateObject();
		char sid[40];
		snprintf(sid, sizeof sid, "%s%lld", edit ? "edit-" : "", run->id);
		cJSON_AddStringToObject(d, "session_id", sid);
		cJSON_AddNumberToObject(d, "run_id", (double)run->id);
		cJSON_AddNumberToObject(d, "set_id", (double)set_id);
		cJSON_AddStringToObject(d, "provider", provider);
		cJSON_AddStringToObject(d, "model", run->model);
		cJSON_AddNumberToObject(d, "pid", (double)pid);
		snprintf(ev, sizeof ev, "%s_started", ev_prefix);
		fs_event_log(r->app->db, r->user.id, image_id, ev, d);
		cJSON_Delete(d);

		cJSON *o = cJSON_CreateObject();
		cJSON_AddBoolToObject(o, "success", 1);
		cJSON_AddNumberToObject(o, "run_id", (double)run->id);
		cJSON_AddStringToObject(o, "session_id", sid);
		cJSON_AddStringToObject(o, "state", "starting");
		cJSON_AddStringToObject(o, "provider", provider);
		cJSON_AddStringToObject(o, "model", run->model);
		cJSON_AddNumberToObject(o, "pid", (double)pid);
		cJSON_AddItemToObject(o, "options", opts);
		opts = NULL;
		fs_resp_json(w, 200, o);
		goto out;
	}
	/* the row stays as a failed run so the user can see why */
	fs_agent_run_finish(r->app->db, run->id, "failed", "start_failed", err, NULL);
	cJSON *d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "run_id", (double)run->id);
	cJSON_AddStringToObject(d, "error", err);
	snprintf(ev, sizeof ev, "%s_start_failed", ev_prefix);
	fs_event_log(r->app->db, r->user.id, image_id, ev, d);
	cJSON_Delete(d);
	fs_resp_error(r, w, 500, "could not start the agent: %s", err);
	rc = 0;
out:
	cJSON_Delete(opts);
	free(run);
	return rc;
}

static int h_start(fs_req *r, fs_resp *w)
{
	return start_run(r, w, KIND_OPTIMIZE);
}

static int h_edit_start(fs_req *r, fs_resp *w)
{
	return start_run(r, w, KIND_EDIT);
}

static int h_chat_start(fs_req *r, fs_resp *w)
{
	return start_run(r, w, KIND_CHAT);
}

/* ---- one run ---- */

/* Loads run r->ids[0] with the liveness check; 404 unless it is the
 * user's (or the user is an admin). Returns 0, or 1 with the response written. */
/* The run's path segment: the run id ("7") or the session id the start
 * answered ("edit-7"; the original API's name for an editor or chat run). */
static long long run_id_of(const fs_req *r)
{
	const char *p = r->nparams > 0 ? r->params[0] : NULL;
	long long v = 0;
	size_t n = 0;
	if (!p)
		return 0;
	if (!strncmp(p, "edit-", 5))
		p += 5;
	for (; p[n] && p[n] != '/' && p[n] != '?'; n++) {
		if (p[n] < '0' || p[n] > '9' || n >= 18)
			return 0;
		v = v * 10 + (p[n] - '0');
	}
	return n && p[0] != '0' ? v : 0;
}

static int load_run(fs_req *r, fs_resp *w, fs_agent_run_rec *run)
{
	r->ids[0] = run_id_of(r);
	if (r->ids[0] <= 0) {
		fs_resp_error(r, w, 404, "no such agent run");
		return 1;
	}
	int rc = fs_agent_run_get_checked(r->app->db, r->ids[0], run);
	if (rc == FS_DB_NOTFOUND || (!rc && run->user_id != r->user.id && !r->user.is_admin)) {
		fs_resp_error(r, w, 404, "no such agent run");
		return 1;
	}
	if (rc) {
		fs_resp_error(r, w, fs_http_status_for_db(rc), "could not read the agent run");
		return 1;
	}
	return 0;
}

static void set_default_num(cJSON *o, const char *k, double v)
{
	if (!cJSON_HasObjectItem(o, k))
		cJSON_AddNumberToObject(o, k, v);
}

static void set_default_str(cJSON *o, const char *k, const char *v)
{
	if (!cJSON_HasObjectItem(o, k))
		cJSON_AddStringToObject(o, k, v);
}

static void replace(cJSON *o, const char *k, cJSON *v)
{
	if (cJSON_HasObjectItem(o, k))
		cJSON_ReplaceItemInObject(o, k, v);
	else
		cJSON_AddItemToObject(o, k, v);
}

/* The worker's status file with the row's authoritative fields on top and
 * every field of seeds 000/001 present (zero values before the first status). */
static cJSON *status_json(fs_req *r, const fs_agent_run_rec *run)
{
	char path[1300], err[ERRBUF];
	cJSON *st = NULL;
	run_file(r, run->id, "status.json", path, sizeof path);
	int rc = fs_status_file_read(path, &st, err, sizeof err);
	if (rc) {
		st = cJSON_CreateObject();
		if (rc < 0)
			cJSON_AddStringToObject(st, "status_error", err);
	}
	if (!st)
		return NULL;
	cJSON *row = fs_agent_run_to_json(run);
	const char *final = fs_agent_state_active(run->state) ? NULL : run->state;
	const char *file_state = cJSON_GetStringValue(cJSON_GetObjectItem(st, "state"));
	/* the row decides a final state (a worker that died never wrote one);
	 * while running the worker's own word is fresher */
	const char *state = final ? final : file_state ? file_state : run->state;
	char state_copy[16];
	snprintf(state_copy, sizeof state_copy, "%s", state);
	replace(st, "state", cJSON_CreateString(state_copy));
	static const char *const row_keys[] = {"run_id", "session_id", "kind", "provider", "model", "pid",
					       "started_at", "finished_at", "image_id", "set_id", "options", NULL};
	for (int i = 0; row_keys[i]; i++) {
		cJSON *x = cJSON_DetachItemFromObject(row, row_keys[i]);
		if (!x)
			continue;
		/* the worker's provider/model are the resolved ones: keep them */
		if ((!strcmp(row_keys[i], "provider") || !strcmp(row_keys[i], "model")) &&
		    cJSON_GetStringValue(cJSON_GetObjectItem(st, row_keys[i])) &&
		    *cJSON_GetStringValue(cJSON_GetObjectItem(st, row_keys[i]))) {
			cJSON_Delete(x);
			continue;
		}
		replace(st, row_keys[i], x);
	}
	if (final) {
		if (run->finish_reason[0])
			replace(st, "finish_reason", cJSON_CreateString(run->finish_reason));
		if (run->error[0])
			replace(st, "error", cJSON_CreateString(run->error));
	}
	set_default_str(st, "phase", "starting");
	set_default_num(st, "iteration", 0);
	cJSON *opts = cJSON_GetObjectItem(st, "options");
	set_default_num(st, "max_iterations", cJSON_GetNumberValue(cJSON_GetObjectItem(opts, "max_iterations")));
	set_default_num(st, "elapsed_seconds", run->finished_at > 0 ? run->finished_at - run->started_at
				: fs_wall_s() - run->started_at);
	set_default_num(st, "step_time_seconds", 0);
	set_default_num(st, "hexagonalness", 0);
	set_default_num(st, "coverage_percent", 0);
	set_default_num(st, "tubercle_count", 0);
	set_default_num(st, "tubercle_delta", 0);
	set_default_num(st, "itc_count", 0);
	set_default_num(st, "plateau_count", 0);
	set_default_num(st, "plateau_threshold", cJSON_GetNumberValue(cJSON_GetObjectItem(opts, "plateau_iterations")));
	set_default_str(st, "last_prompt", "");
	set_default_str(st, "last_response", "");
	if (!cJSON_HasObjectItem(st, "log_lines"))
		cJSON_AddArrayToObject(st, "log_lines");
	if (!cJSON_HasObjectItem(st, "costs")) {
		cJSON *c = cJSON_AddObjectToObject(st, "costs");
		cJSON_AddStringToObject(c, "provider", run->provider);
		cJSON_AddStringToObject(c, "model", run->model);
		cJSON_AddNumberToObject(c, "input_tokens", (double)run->tokens_in);
		cJSON_AddNumberToObject(c, "output_tokens", (double)run->tokens_out);
		cJSON_AddNumberToObject(c, "estimated_cost", run->cost_usd);
		cJSON_AddNumberToObject(c, "last_step_cost", 0);
	}
	if (!cJSON_HasObjectItem(st, "usage")) {
		cJSON *u = cJSON_AddObjectToObject(st, "usage");
		cJSON_AddNumberToObject(u, "input_tokens", (double)run->tokens_in);
		cJSON_AddNumberToObject(u, "output_tokens", (double)run->tokens_out);
		cJSON_AddNumberToObject(u, "cost_usd", run->cost_usd);
		cJSON_AddStringToObject(u, "model", run->model);
	}
	if (!strcmp(run->kind, "optimize")) {
		if (!cJSON_HasObjectItem(st, "current_params"))
			cJSON_AddNullToObject(st, "current_params");
		if (!cJSON_HasObjectItem(st, "current_metrics"))
			cJSON_AddObjectToObject(st, "current_metrics");
		if (!cJSON_HasObjectItem(st, "best_iteration"))
			cJSON_AddNullToObject(st, "best_iteration");
		if (!cJSON_HasObjectItem(st, "best_metrics"))
			cJSON_AddObjectToObject(st, "best_metrics");
		if (!cJSON_HasObjectItem(st, "best_score")) {
			if (run->has_best)
				cJSON_AddNumberToObject(st, "best_score", run->best_score);
			else
				cJSON_AddNullToObject(st, "best_score");
		}
		if (!cJSON_HasObjectItem(st, "history"))
			cJSON_AddArrayToObject(st, "history");
	}
	if (!cJSON_HasObjectItem(st, "finish_reason"))
		cJSON_AddNullToObject(st, "finish_reason");
	cJSON_Delete(row);
	replace(st, "success", cJSON_CreateTrue());
	return st;
}

static int h_status(fs_req *r, fs_resp *w)
{
	fs_agent_run_rec *run = calloc(1, sizeof *run);
	if (!run)
		return FS_DB_ERROR;
	if (!load_run(r, w, run)) {
		cJSON *st = status_json(r, run);
		if (st)
			fs_resp_json(w, 200, st);
		else
			fs_resp_error(r, w, 500, "out of memory");
	}
	free(run);
	return 0;
}

static const fs_field log_fields[] = {
	{"since", FS_FIELD_INT, 0, 0, 1e15, 0, NULL},
	{"limit", FS_FIELD_INT, 0, 1, LOG_CHUNK_MAX, 0, NULL},
};

/* A poll of one of a run's growing files (agent.log, reply.txt): the
 * bytes from offset since (the query's since and limit, log_fields). */
struct run_chunk {
	fs_agent_run_rec *run;
	long long since, size; /* size: the file's now (0 when it is not there) */
	char *buf;	       /* n bytes read from since, NUL-terminated; NULL when none */
	size_t n;
};

static void run_chunk_free(struct run_chunk *c)
{
	free(c->buf);
	free(c->run);
}

/* 0 with *c filled (run_chunk_free it); 1 when the answer is written (a
 * bad query, no such run: free it too); FS_DB_ERROR without memory. */
static int read_run_chunk(fs_req *r, fs_resp *w, const char *file, struct run_chunk *c)
{
	fs_value v[2];
	char err[ERRBUF], path[1300];
	memset(c, 0, sizeof *c);
	if (!(c->run = calloc(1, sizeof *c->run)))
		return FS_DB_ERROR;
	if (fs_validate_kv(&r->query_kv, log_fields, 2, v, 0, err, sizeof err)) {
		fs_resp_error(r, w, 422, "%s", err);
		return 1;
	}
	if (load_run(r, w, c->run))
		return 1;
	c->since = v[0].present ? v[0].i : 0;
	size_t limit = v[1].present ? (size_t)v[1].i : LOG_CHUNK_MAX;
	run_file(r, c->run->id, file, path, sizeof path);
	FILE *f = fopen(path, "re");
	if (f && fseeko(f, 0, SEEK_END) == 0)
		c->size = ftello(f);
	if (f && c->since < c->size && fseeko(f, c->since, SEEK_SET) == 0 && (c->buf = malloc(limit + 1))) {
		c->n = fread(c->buf, 1, limit, f);
		c->buf[c->n] = 0;
	}
	if (f)
		fclose(f);
	return 0;
}

/* Complete lines of agent.log from byte offset since; "offset" in the
 * answer is where the next poll continues. */
static int h_log(fs_req *r, fs_resp *w)
{
	struct run_chunk c;
	int rc = read_run_chunk(r, w, "agent.log", &c);
	if (rc) {
		run_chunk_free(&c);
		return rc < 0 ? rc : 0;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddNumberToObject(o, "run_id", (double)c.run->id);
	cJSON *lines = cJSON_AddArrayToObject(o, "lines");
	long long next = c.since;
	if (c.buf) {
		/* only whole lines: a line being written is sent next time */
		size_t start = 0;
		for (size_t i = 0; i < c.n; i++) {
			if (c.buf[i] != '\n')
				continue;
			c.buf[i] = 0;
			cJSON_AddItemToArray(lines, cJSON_CreateString(c.buf + start));
			start = i + 1;
		}
		next = c.since + (long long)start;
	}
	cJSON_AddNumberToObject(o, "offset", (double)next);
	cJSON_AddNumberToObject(o, "total_bytes", (double)c.size);
	cJSON_AddNumberToObject(o, "total_lines", cJSON_GetArraySize(lines));
	cJSON_AddBoolToObject(o, "complete", !fs_agent_state_active(c.run->state) && next >= c.size);
	fs_resp_json(w, 200, o);
	run_chunk_free(&c);
	return 0;
}

/* Bytes of a UTF-8 text that end on a character boundary: a character
 * cut by the read is sent whole with the next poll. */
static size_t utf8_whole(const char *s, size_t n)
{
	size_t i = n, k = 0;
	while (i > 0 && k < 4 && ((unsigned char)s[i - 1] & 0xC0) == 0x80) {
		i--;
		k++;
	}
	if (i == 0)
		return n;
	unsigned char lead = (unsigned char)s[i - 1];
	size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
	return k + 1 >= need ? n : i - 1;
}

/* The model's streamed text of a chat run (reply.txt, appended by the
 * worker as deltas arrive) from byte offset since: the browser polls with
 * the returned offset and appends what it gets. */
static int h_text(fs_req *r, fs_resp *w)
{
	struct run_chunk c;
	int rc = read_run_chunk(r, w, "reply.txt", &c);
	if (rc) {
		run_chunk_free(&c);
		return rc < 0 ? rc : 0;
	}
	long long next = c.since;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddNumberToObject(o, "run_id", (double)c.run->id);
	if (c.buf) {
		size_t n = utf8_whole(c.buf, c.n);
		c.buf[n] = 0;
		next = c.since + (long long)n;
		cJSON_AddStringToObject(o, "text", c.buf);
	} else {
		cJSON_AddStringToObject(o, "text", "");
	}
	cJSON_AddNumberToObject(o, "offset", (double)next);
	cJSON_AddNumberToObject(o, "total_bytes", (double)c.size);
	cJSON_AddStringToObject(o, "state", c.run->state);
	cJSON_AddBoolToObject(o, "complete", !fs_agent_state_active(c.run->state) && next >= c.size);
	fs_resp_json(w, 200, o);
	run_chunk_free(&c);
	return 0;
}

/* Final figures of seed 000's stop response from the status file. */
static void add_final_figures(fs_req *r, const fs_agent_run_rec *run, cJSON *o)
{
	cJSON *st = status_json(r, run);
	if (!st)
		return;
	double hex = cJSON_GetNumberValue(cJSON_GetObjectItem(st, "hexagonalness"));
	if (!strcmp(run->kind, "optimize")) {
		cJSON *b = cJSON_GetObjectItem(st, "best_score");
		hex = cJSON_IsNumber(b) ? b->valuedouble : hex;
	}
	cJSON_AddNumberToObject(o, "final_hexagonalness", isnan(hex) ? 0 : hex);
	static const char *const keys[] = {"tubercles_added", "tubercles_deleted", "tubercle_count", NULL};
	for (int i = 0; keys[i]; i++) {
		double x = cJSON_GetNumberValue(cJSON_GetObjectItem(st, keys[i]));
		cJSON_AddNumberToObject(o, keys[i], isnan(x) ? 0 : x);
	}
	double nt = cJSON_GetNumberValue(cJSON_GetObjectItem(o, "tubercle_count"));
	if (!strcmp(run->kind, "optimize"))
		nt = cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(st, "best_metrics"), "n_tubercles"));
	cJSON_AddNumberToObject(o, "final_tubercles", isnan(nt) ? 0 : nt);
	cJSON_AddStringToObject(o, "state", cJSON_GetStringValue(cJSON_GetObjectItem(st, "state")));
	cJSON *fr = cJSON_GetObjectItem(st, "finish_reason");
	cJSON_AddItemToObject(o, "finish_reason", fr ? cJSON_Duplicate(fr, 1) : cJSON_CreateNull());
	cJSON_Delete(st);
}

static int h_stop(fs_req *r, fs_resp *w)
{
	if (fs_req_no_fields(r, w))
		return 0;
	fs_agent_run_rec *run = calloc(1, sizeof *run);
	if (!run)
		return FS_DB_ERROR;
	if (load_run(r, w, run))
		goto out;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddNumberToObject(o, "run_id", (double)run->id);
	if (!fs_agent_state_active(run->state)) {
		char msg[64];
		snprintf(msg, sizeof msg, "Agent already %s", run->state);
		cJSON_AddStringToObject(o, "message", msg);
		add_final_figures(r, run, o);
		fs_resp_json(w, 200, o);
		goto out;
	}
	/* the worker records "stopped" itself after a graceful shutdown */
	if (run->pid > 0 && fs_agent_pid_alive(run->pid, run->id))
		fs_worker_signal(run->pid, SIGTERM);
	int waited = 0;
	while (waited < STOP_WAIT_MS) {
		if (fs_agent_run_get_checked(r->app->db, run->id, run) || !fs_agent_state_active(run->state))
			break;
		sleep_ms(20);
		waited += 20;
	}
	if (fs_agent_state_active(run->state)) {
		if (run->pid > 0 && fs_agent_pid_alive(run->pid, run->id))
			fs_worker_signal(run->pid, SIGKILL);
		fs_agent_run_finish(r->app->db, run->id, "stopped", "user_stopped",
				    "the worker did not stop within 5 s and was killed", NULL);
		fs_agent_run_get(r->app->db, run->id, run);
	}
	cJSON *d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "run_id", (double)run->id);
	fs_event_log(r->app->db, r->user.id, run->image_id,
		     strcmp(run->kind, "optimize") ? "edit_agent_stopped" : "agent_stopped", d);
	cJSON_Delete(d);
	cJSON_AddStringToObject(o, "message", "Agent stopped by user");
	add_final_figures(r, run, o);
	fs_resp_json(w, 200, o);
out:
	free(run);
	return 0;
}

static const fs_field list_fields[] = {
	{"all", FS_FIELD_BOOL, 0, 0, 0, 0, NULL},
	{"limit", FS_FIELD_INT, 0, 1, 500, 0, NULL},
};

static int h_list(fs_req *r, fs_resp *w)
{
	fs_value v[2];
	char err[ERRBUF];
	if (fs_validate_kv(&r->query_kv, list_fields, 2, v, 0, err, sizeof err)) {
		fs_resp_error(r, w, 422, "%s", err);
		return 0;
	}
	int all = v[0].present && v[0].b;
	if (all && !r->user.is_admin) {
		fs_resp_error(r, w, 403, "only administrators may list every user's runs");
		return 0;
	}
	int rc = fs_agent_runs_reconcile(r->app->db, NULL);
	fs_agent_run_rec *list = NULL;
	size_t n = 0;
	if (rc || (rc = fs_agent_run_list(r->app->db, all ? 0 : r->user.id, v[1].present ? (int)v[1].i : 100,
					  &list, &n)))
		return rc;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON *a = cJSON_AddArrayToObject(o, "runs");
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, fs_agent_run_to_json(&list[i]));
	free(list);
	fs_resp_json(w, 200, o);
	return 0;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static const fs_field cleanup_fields[] = {
	{"max_age_hours", FS_FIELD_DOUBLE, 0, 0, 87600, 0, NULL},
};

static int h_cleanup(fs_req *r, fs_resp *w)
{
	fs_value v[1];
	char err[ERRBUF], dir[1200];
	if (r->json && fs_validate_json(r->json, cleanup_fields, 1, v, 0, err, sizeof err)) {
		fs_resp_error(r, w, 422, "%s", err);
		return 0;
	}
	double hours = r->json && v[0].present ? v[0].d : 24;
	double cutoff = fs_wall_s() - hours * 3600;
	int rc = fs_agent_runs_reconcile(r->app->db, NULL);
	fs_agent_run_rec *list = NULL;
	size_t n = 0, removed = 0;
	if (rc || (rc = fs_agent_run_list(r->app->db, r->user.id, 100000, &list, &n)))
		return rc;
	for (size_t i = 0; i < n; i++) {
		const fs_agent_run_rec *x = &list[i];
		if (fs_agent_state_active(x->state) || x->finished_at > cutoff)
			continue;
		/* the path comes from the id, never from the stored text */
		run_dir_of(r, x->id, dir, sizeof dir);
		if (nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
			continue;
		if (fs_agent_run_delete(r->app->db, x->id) == 0)
			removed++;
	}
	free(list);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddNumberToObject(o, "removed_count", (double)removed);
	fs_resp_json(w, 200, o);
	return 0;
}

/* Undoes the run's journal steps newest first, each as one step of the
 * journal: the set returns to where it was before the run (steps others
 * made meanwhile stay). A step that no longer applies (someone deleted the
 * tubercle it added, say) is left and counted; the answer says which. */
static int h_reset(fs_req *r, fs_resp *w)
{
	if (fs_req_no_fields(r, w))
		return 0;
	char err[ERRBUF] = "";
	fs_agent_run_rec *run = calloc(1, sizeof *run);
	cJSON *journal = NULL;
	if (!run)
		return FS_DB_ERROR;
	if (load_run(r, w, run))
		goto out;
	if (fs_agent_state_active(run->state)) {
		fs_resp_error(r, w, 409, "the run is still going; stop it before resetting");
		goto out;
	}
	if (run->set_id <= 0 || fs_image_check_access(r->app->db, run->image_id, &r->user, FS_ACCESS_READ, NULL)) {
		fs_resp_error(r, w, 404, "the run's set no longer exists");
		goto out;
	}
	journal = fs_set_journal(r->app->db, run->set_id, FS_UNDO_KEEP);
	if (!journal) {
		fs_resp_error(r, w, 500, "could not read the set's journal");
		goto out;
	}
	int undone = 0, failed = 0;
	long long rev = 0;
	cJSON *skipped = cJSON_CreateArray();
	const cJSON *e;
	cJSON_ArrayForEach(e, journal)
	{
		const cJSON *aid = cJSON_GetObjectItem(e, "agent_run_id");
		const char *state = cJSON_GetStringValue(cJSON_GetObjectItem(e, "state"));
		const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(e, "kind"));
		if (!state || strcmp(state, "done") || !cJSON_IsNumber(aid) || (long long)aid->valuedouble != run->id)
			continue;
		/* the journal's own entries are the users' actions, never the run's */
		if (kind && (!strcmp(kind, "undo") || !strcmp(kind, "redo") || !strcmp(kind, "undo_step") ||
			     !strcmp(kind, "revert")))
			continue;
		long long op = (long long)cJSON_GetNumberValue(cJSON_GetObjectItem(e, "id"));
		int rc = fs_set_undo_op(r->app->db, run->set_id, op, r->user.id, &rev, err, sizeof err);
		if (rc == FS_DB_INVALID) {
			cJSON *sk = cJSON_CreateObject();
			cJSON_AddNumberToObject(sk, "id", (double)op);
			cJSON_AddStringToObject(sk, "label", cJSON_GetStringValue(cJSON_GetObjectItem(e, "label")));
			cJSON_AddStringToObject(sk, "why", err);
			cJSON_AddItemToArray(skipped, sk);
			continue;
		}
		if (rc) {
			failed = rc;
			break;
		}
		undone++;
	}
	if (fs_set_revision(r->app->db, run->set_id, &rev))
		rev = -1;
	cJSON *d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "run_id", (double)run->id);
	cJSON_AddNumberToObject(d, "undone_steps", undone);
	fs_history_add(r->app->db, run->set_id, r->user.id, "agent_reset", d);
	fs_event_log(r->app->db, r->user.id, run->image_id, "agent_reset", d);
	cJSON_Delete(d);
	if (failed) {
		cJSON_Delete(skipped);
		fs_resp_error(r, w, failed == FS_DB_BUSY ? 503 : 409,
			      "reset stopped after %d step%s: %s", undone, undone == 1 ? "" : "s", err);
		goto out;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddNumberToObject(o, "run_id", (double)run->id);
	cJSON_AddNumberToObject(o, "set_id", (double)run->set_id);
	cJSON_AddNumberToObject(o, "undone_steps", undone);
	cJSON_AddItemToObject(o, "skipped_steps", skipped);
	cJSON_AddNumberToObject(o, "revision", (double)rev);
	if (run->checkpoint_rev >= 0)
		cJSON_AddNumberToObject(o, "checkpoint_revision", (double)run->checkpoint_rev);
	fs_resp_json(w, 200, o);
out:
	cJSON_Delete(journal);
	free(run);
	return 0;
}

static const fs_field approve_fields[] = {
	{"approve", FS_FIELD_BOOL, 1, 0, 0, 0, NULL},
	{"reason", FS_FIELD_STRING, 0, 0, 0, 500, NULL},
};

/* Answers a pending approve-each-step proposal: the worker polls for
 * approval.json in its run directory. */
static int h_approve(fs_req *r, fs_resp *w)
{
	fs_value v[2];
	char err[ERRBUF], path[1300];
	fs_agent_run_rec *run = calloc(1, sizeof *run);
	cJSON *st = NULL;
	if (!run)
		return FS_DB_ERROR;
	if (fs_req_body_fields(r, w, approve_fields, 2, v, 0))
		goto out;
	if (load_run(r, w, run))
		goto out;
	st = status_json(r, run);
	if (!fs_agent_state_active(run->state) || !cJSON_IsObject(cJSON_GetObjectItem(st, "pending_approval"))) {
		fs_resp_error(r, w, 409, "the run is not waiting for an approval");
		goto out;
	}
	cJSON *a = cJSON_CreateObject();
	cJSON_AddBoolToObject(a, "approve", v[0].b);
	cJSON_AddStringToObject(a, "reason", v[1].present ? v[1].s : "");
	run_file(r, run->id, "approval.json", path, sizeof path);
	int rc = fs_status_file_write(path, a, err, sizeof err);
	cJSON_Delete(a);
	if (rc) {
		fs_resp_error(r, w, 500, "cannot pass the answer to the agent: %s", err);
		goto out;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddBoolToObject(o, "approved", v[0].b);
	fs_resp_json(w, 200, o);
out:
	cJSON_Delete(st);
	free(run);
	return 0;
}

/* The run's transcript (transcript.jsonl, one record a line: model calls,
 * tool calls, tool errors, retries), as a download. */
static int h_transcript(fs_req *r, fs_resp *w)
{
	char path[1300], name[64];
	fs_agent_run_rec *run = calloc(1, sizeof *run);
	FILE *f = NULL;
	if (!run)
		return FS_DB_ERROR;
	if (load_run(r, w, run))
		goto out;
	run_file(r, run->id, "transcript.jsonl", path, sizeof path);
	w->status = 200;
	snprintf(w->content_type, sizeof w->content_type, "application/x-ndjson; charset=utf-8");
	snprintf(name, sizeof name, "fishscale-agent-run-%lld.jsonl", run->id);
	fs_resp_header(w, "Content-Disposition", "attachment; filename=\"%s\"", name);
	fs_buf_reset(&w->body);
	f = fopen(path, "re");
	if (f) {
		char buf[16384];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, f)) > 0)
			if (fs_buf_append(&w->body, buf, n)) {
				fs_buf_reset(&w->body);
				w->status = 0;
				fclose(f);
				free(run);
				return FS_DB_ERROR;
			}
		fclose(f);
	}
out:
	free(run);
	return 0;
}

const fs_route fs_routes_agents[] = {
	{"GET", "/api/agent/providers", h_providers, FS_MEMBER, 0},
	{"POST", "/api/agent/start", h_start, FS_MEMBER, 0},
	{"POST", "/api/agent/edit/start", h_edit_start, FS_MEMBER, 0},
	{"POST", "/api/agent/chat/start", h_chat_start, FS_MEMBER, 0},
	{"GET", "/api/agent/chat/text/{run}", h_text, FS_MEMBER, 0},
	{"GET", "/api/agent/text/{run}", h_text, FS_MEMBER, 0},
	{"GET", "/api/agent/transcript/{run}", h_transcript, FS_MEMBER, 0},
	{"GET", "/api/agent/status/{run}", h_status, FS_MEMBER, 0},
	{"GET", "/api/agent/edit/status/{run}", h_status, FS_MEMBER, 0},
	{"GET", "/api/agent/status/{run}/log", h_log, FS_MEMBER, 0},
	{"GET", "/api/agent/edit/status/{run}/log", h_log, FS_MEMBER, 0},
	{"POST", "/api/agent/stop/{run}", h_stop, FS_MEMBER, 0},
	{"POST", "/api/agent/edit/stop/{run}", h_stop, FS_MEMBER, 0},
	{"POST", "/api/agent/reset/{run}", h_reset, FS_MEMBER, 0},
	{"POST", "/api/agent/approve/{run}", h_approve, FS_MEMBER, 0},
	{"GET", "/api/agent/list", h_list, FS_MEMBER, 0},
	{"POST", "/api/agent/cleanup", h_cleanup, FS_MEMBER, 0},
};
const size_t fs_routes_agents_n = sizeof fs_routes_agents / sizeof fs_routes_agents[0];
