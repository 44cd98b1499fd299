/* agent_loop.c - the agent loop: turns, tool calls, limits, steps (see agent_loop.h). */
#include "agent/agent_loop.h"
#include "base/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "agent/llm_keys.h"
#include "agent/text_protocol.h"

void fs_agent_limits_default(fs_agent_limits *l)
{
	l->max_llm_calls = 30;
	l->max_tool_calls = 300;
	l->max_calls_per_turn = 25;
	l->timeout_s = 1800;
	l->max_cost_usd = 5.0;
	l->max_tokens = 0;
	l->max_nudges = 2;
	l->keep_images = 2;
}

void fs_agent_result_free(fs_agent_result *r)
{
	if (!r)
		return;
	free(r->final_text);
	r->final_text = NULL;
}

typedef struct run {
	fs_llm *llm;
	fs_tool_registry *reg;
	const fs_prices *prices;
	fs_conv *conv;
	const fs_agent_limits *lim;
	const fs_agent_hooks *hooks;
	fs_agent_result *res;
	double start;
	double deadline;
	int nudges;
	int done;
	long last_in;   /* input tokens of the last call: the next one's are at least these */
} run;

/* Cancel hook given to the provider: the user's flag or the wall-clock limit. */
static int run_cancel(void *user)
{
	run *r = user;
	if (r->hooks && r->hooks->cancel && r->hooks->cancel(r->hooks->user))
		return 1;
	return r->lim->timeout_s > 0 && fs_mono_s() >= r->deadline;
}

static int user_cancelled(const run *r)
{
	return r->hooks && r->hooks->cancel && r->hooks->cancel(r->hooks->user);
}

static void finish(run *r, const char *reason, const char *kind, const char *msg)
{
	if (r->done)
		return;
	r->done = 1;
	snprintf(r->res->finish_reason, sizeof(r->res->finish_reason), "%s", reason);
	if (kind)
		snprintf(r->res->error_kind, sizeof(r->res->error_kind), "%s", kind);
	if (msg)
		snprintf(r->res->error, sizeof(r->res->error), "%s", msg);
}

/* Input tokens of the next request, roughly: 4 characters a token, 1600 a
 * picture, the tools' definitions included; never below the last call's
 * reported input (the conversation only grows). */
static long next_input_estimate(const run *r)
{
	size_t chars = r->conv->system ? strlen(r->conv->system) : 0;
	long images = 0;
	for (size_t i = 0; i < r->conv->n; i++) {
		const fs_msg *m = &r->conv->msgs[i];
		for (size_t k = 0; k < m->n; k++) {
			if (m->parts[k].text)
				chars += strlen(m->parts[k].text);
			if (m->parts[k].image_b64)
				images++;
			if (m->parts[k].args) {
				char *a = cJSON_PrintUnformatted(m->parts[k].args);
				chars += a ? strlen(a) : 0;
				free(a);
			}
		}
	}
	char *defs = cJSON_PrintUnformatted(fs_tools_definitions(r->reg));
	chars += defs ? strlen(defs) : 0;
	free(defs);
	long est = (long)(chars / 4) + 1600 * images;
	return est > r->last_in ? est : r->last_in;
}

/* The worst case of the next call (its input plus a full reply of
 * max_tokens) must fit under the cost limit before it is made. */
static int next_call_too_costly(const run *r)
{
	const fs_agent_limits *l = r->lim;
	if (!(l->max_cost_usd > 0) || fs_prices_provider_is_free(fs_llm_provider(r->llm)))
		return 0;
	int mt = fs_llm_max_tokens(r->llm);
	double next = fs_prices_cost(r->prices, fs_llm_provider(r->llm), fs_llm_model(r->llm), next_input_estimate(r),
				     mt > 0 ? mt : 4096, NULL);
	return r->res->cost_usd + next > l->max_cost_usd;
}

/* Limits checked before each model call; returns 1 if the run must stop. */
static int limit_hit(run *r)
{
	const fs_agent_limits *l = r->lim;
	fs_agent_result *s = r->res;
	if (user_cancelled(r))
		finish(r, "cancelled", NULL, NULL);
	else if (l->timeout_s > 0 && fs_mono_s() >= r->deadline)
		finish(r, "timeout", NULL, NULL);
	else if (l->max_llm_calls > 0 && s->llm_calls >= l->max_llm_calls)
		finish(r, "max_llm_calls", NULL, NULL);
	else if (l->max_cost_usd > 0 && s->cost_usd >= l->max_cost_usd)
		finish(r, "max_cost", NULL, NULL);
	else if (l->max_tokens > 0 && s->in_tokens + s->out_tokens >= l->max_tokens)
		finish(r, "max_tokens", NULL, NULL);
	else if (next_call_too_costly(r))
		finish(r, "max_cost", NULL, NULL);
	return r->done;
}

char *fs_agent_nudge_text(const fs_tool_registry *reg)
{
	fs_buf b = FS_BUF_INIT;
	char *all = fs_tools_names(reg, 0);
	char *fin = fs_tools_names(reg, FS_TOOL_FINISHING);
	fs_buf_printf(&b,
		      "You replied with text but did not call a tool. You are an autonomous agent: "
		      "do not describe what you would do and do not ask for confirmation. Call one "
		      "of the tools now (%s).", all ? all : "");
	if (fin && *fin)
		fs_buf_printf(&b, " When the task is complete, call %s.", fin);
	fs_buf_puts(&b, " If you cannot use native tool calls, write exactly:\n"
			"TOOL_CALL: <tool name>\nPARAMETERS: {<arguments as JSON>}");
	free(all);
	free(fin);
	if (!b.data)
		return NULL;
	return fs_buf_steal(&b);
}

static cJSON *calls_json(const fs_llm_reply *rep)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; arr && i < rep->ncalls; i++) {
		cJSON *c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "id", rep->calls[i].id);
		cJSON_AddStringToObject(c, "name", rep->calls[i].name);
		cJSON_AddItemToObject(c, "arguments", cJSON_Duplicate(rep->calls[i].args, 1));
		if (rep->calls[i].args_error)
			cJSON_AddStringToObject(c, "arguments_error", rep->calls[i].args_error);
		if (rep->calls[i].from_text)
			cJSON_AddBoolToObject(c, "from_text", 1);
		cJSON_AddItemToArray(arr, c);
	}
	return arr;
}

static cJSON *step_new(run *r, const fs_llm_reply *rep, double step_cost, double llm_ms)
{
	const char *const *sec = fs_llm_secrets(r->llm);
	cJSON *st = cJSON_CreateObject();
	if (!st)
		return NULL;
	cJSON_AddNumberToObject(st, "step", r->res->llm_calls);
	cJSON_AddStringToObject(st, "provider", fs_llm_provider(r->llm));
	cJSON_AddStringToObject(st, "model", fs_llm_model(r->llm));
	const cJSON *req = fs_llm_last_request(r->llm);
	cJSON_AddItemToObject(st, "request", req ? fs_llm_sanitize(req, sec) : cJSON_CreateNull());
	cJSON_AddNumberToObject(st, "request_bytes", (double)fs_llm_last_request_bytes(r->llm));
	cJSON *resp = cJSON_AddObjectToObject(st, "response");
	if (rep) {
		if (rep->text) {
			fs_buf t = FS_BUF_INIT;
			if (fs_buf_reserve(&t, 0) == 0 && fs_llm_sanitize_text(rep->text, sec, &t) == 0)
				cJSON_AddStringToObject(resp, "text", t.data);
			fs_buf_free(&t);
		} else {
			cJSON_AddNullToObject(resp, "text");
		}
		cJSON *calls = calls_json(rep);
		cJSON_AddItemToObject(resp, "tool_calls", calls ? fs_llm_sanitize(calls, sec) : NULL);
		cJSON_Delete(calls);
		if (rep->stop_reason)
			cJSON_AddStringToObject(resp, "stop_reason", rep->stop_reason);
	}
	cJSON *u = cJSON_AddObjectToObject(st, "usage");
	cJSON_AddNumberToObject(u, "input_tokens", rep ? rep->in_tokens : 0);
	cJSON_AddNumberToObject(u, "output_tokens", rep ? rep->out_tokens : 0);
	cJSON_AddNumberToObject(u, "step_cost_usd", step_cost);
	cJSON_AddNumberToObject(u, "total_input_tokens", r->res->in_tokens);
	cJSON_AddNumberToObject(u, "total_output_tokens", r->res->out_tokens);
	cJSON_AddNumberToObject(u, "total_cost_usd", r->res->cost_usd);
	cJSON_AddBoolToObject(u, "cost_estimated", r->res->cost_estimated);
	cJSON_AddArrayToObject(st, "tools");
	cJSON *tm = cJSON_AddObjectToObject(st, "timing");
	cJSON_AddNumberToObject(tm, "llm_ms", llm_ms);
	return st;
}

static void step_emit(run *r, cJSON *st, double tools_ms)
{
	if (!st)
		return;
	cJSON_AddNumberToObject(cJSON_GetObjectItemCaseSensitive(st, "timing"), "tools_ms", tools_ms);
	if (r->done) {
		cJSON_AddStringToObject(st, "finish_reason", r->res->finish_reason);
		if (r->res->error[0]) {
			/* an error text can quote a request: keep keys out */
			fs_buf t = FS_BUF_INIT;
			if (fs_buf_reserve(&t, 0) == 0 &&
			    fs_llm_sanitize_text(r->res->error, fs_llm_secrets(r->llm), &t) == 0)
				cJSON_AddStringToObject(st, "error", t.data);
			fs_buf_free(&t);
		}
	}
	if (r->hooks && r->hooks->on_step)
		r->hooks->on_step(st, r->hooks->user);
	cJSON_Delete(st);
}

static void step_add_tool(run *r, cJSON *st, const fs_tool_call *c, int approved, const fs_tool_exec *ex)
{
	cJSON *t = cJSON_CreateObject();
	if (!st || !t) {
		cJSON_Delete(t);
		return;
	}
	cJSON_AddStringToObject(t, "id", c->id);
	cJSON_AddStringToObject(t, "name", c->name);
	cJSON_AddItemToObject(t, "arguments", fs_llm_sanitize(c->args, fs_llm_secrets(r->llm)));
	cJSON_AddBoolToObject(t, "approved", approved);
	if (ex && ex->result)
		cJSON_AddItemToObject(t, "result", fs_llm_sanitize(ex->result, fs_llm_secrets(r->llm)));
	cJSON_AddBoolToObject(t, "image", ex && ex->image_b64);
	cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(st, "tools"), t);
}

/* Result of one call into the user message that answers the turn. */
static int add_result(fs_msg *m, const fs_tool_call *c, const fs_tool_exec *ex)
{
	if (!c->from_text)
		return fs_msg_add_tool_result(m, c->id, c->name, ex->text, !ex->ok, ex->image_b64,
					      ex->media_type);
	/* prose calls have no native id to answer: say it in text */
	fs_buf b = FS_BUF_INIT;
	fs_buf_printf(&b, "Result of %s: %s", c->name, ex->text);
	int rc = b.data ? fs_msg_add_text(m, b.data) : -1;
	fs_buf_free(&b);
	if (!rc && ex->image_b64)
		rc = fs_msg_add_image(m, ex->image_b64, ex->media_type);
	return rc;
}

static int rejection(fs_tool_exec *ex, const char *tool, const char *why)
{
	char msg[600];
	memset(ex, 0, sizeof(*ex));
	snprintf(msg, sizeof(msg), "%s", why);
	ex->result = fs_tool_result_new(tool, 0, NULL, msg);
	ex->text = ex->result ? cJSON_PrintUnformatted(ex->result) : NULL;
	return ex->text ? 0 : -1;
}

/* Runs the calls of one reply; their results form one user message. */
static void run_tools(run *r, fs_llm_reply *rep, cJSON *st)
{
	const fs_agent_limits *l = r->lim;
	fs_msg *m = fs_conv_add(r->conv, FS_ROLE_USER);
	if (!m) {
		finish(r, "error", "internal", "out of memory");
		return;
	}
	for (size_t i = 0; i < rep->ncalls && !r->done; i++) {
		fs_tool_call *c = &rep->calls[i];
		fs_tool_exec ex;
		int approved = 1, rc;

		if (user_cancelled(r)) {
			finish(r, "cancelled", NULL, NULL);
			break;
		}
		if (l->timeout_s > 0 && fs_mono_s() >= r->deadline) {
			finish(r, "timeout", NULL, NULL);
			break;
		}
		if (l->max_tool_calls > 0 && r->res->tool_calls >= l->max_tool_calls) {
			finish(r, "max_tool_calls", NULL, NULL);
			break;
		}
		if (l->max_calls_per_turn > 0 && (int)i >= l->max_calls_per_turn) {
			approved = 0;
			rc = rejection(&ex, c->name, "too many tool calls in one reply; this call was not run");
		} else if (r->hooks && r->hooks->approve &&
			   fs_tools_check(r->reg, c->name, c->args, c->args_error, NULL, 0) == 0) {
			/* only calls that would run are put to the user */
			char reason[400] = "";
			fs_approval a = r->hooks->approve(c->name, c->args, reason, sizeof(reason), r->hooks->user);
			if (a == FS_REJECT_TIMEOUT) {
				step_add_tool(r, st, c, 0, NULL);
				finish(r, "rejected_timeout", NULL, NULL);
				break;
			}
			if (a == FS_REJECT) {
				char why[500];
				approved = 0;
				snprintf(why, sizeof(why), "rejected by the user: %s", reason[0] ? reason : "no reason given");
				rc = rejection(&ex, c->name, why);
			} else {
				rc = fs_tools_execute(r->reg, c->name, c->args, c->args_error, &ex);
			}
		} else {
			rc = fs_tools_execute(r->reg, c->name, c->args, c->args_error, &ex);
		}
		if (rc) {
			finish(r, "error", "internal", "out of memory running a tool");
			break;
		}
		if (approved)
			r->res->tool_calls++;
		step_add_tool(r, st, c, approved, &ex);
		if (add_result(m, c, &ex)) {
			fs_tool_exec_free(&ex);
			finish(r, "error", "internal", "out of memory");
			break;
		}
		if (ex.critical) {
			const char *e = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ex.result, "error"));
			char msg[512];
			snprintf(msg, sizeof(msg), "%s: %s", c->name, e ? e : "critical failure");
			finish(r, "error", "tool", msg);
		} else if (ex.ok && fs_tools_is_finishing(r->reg, c->name)) {
			snprintf(r->res->finished_by, sizeof(r->res->finished_by), "%s", c->name);
			finish(r, "finished", NULL, NULL);
		}
		fs_tool_exec_free(&ex);
	}
}

static void keep_text(run *r, const char *text)
{
	if (!text || !*text)
		return;
	char *d = strdup(text);
	if (d) {
		free(r->res->final_text);
		r->res->final_text = d;
	}
}

/* A reply without calls: nudge (bounded) or end the run. */
static void no_calls(run *r, const fs_llm_reply *rep, cJSON *st)
{
	int truncated = rep->stop_reason && (!strcmp(rep->stop_reason, "max_tokens") ||
					     !strcmp(rep->stop_reason, "length") ||
					     !strcmp(rep->stop_reason, "MAX_TOKENS"));
	if (!fs_tools_has_finishing(r->reg) && !truncated) {
		finish(r, "end_turn", NULL, NULL);
		return;
	}
	if (r->nudges >= r->lim->max_nudges) {
		finish(r, "no_tool_call", NULL, NULL);
		return;
	}
	r->nudges++;
	char *nudge = fs_agent_nudge_text(r->reg);
	fs_msg *m = fs_conv_add(r->conv, FS_ROLE_USER);
	if (!nudge || !m || fs_msg_add_text(m, nudge))
		finish(r, "error", "internal", "out of memory");
	free(nudge);
	cJSON_AddBoolToObject(st, "nudge", 1);
}

static void one_turn(run *r)
{
	fs_llm_reply rep;
	char err[512] = "";
	double t0, llm_ms, t1;
	int est = 0;

	memset(&rep, 0, sizeof(rep));
	if (r->lim->keep_images)
		fs_conv_prune_images(r->conv, r->lim->keep_images);
	t0 = fs_mono_s();
	int rc = fs_llm_turn(r->llm, r->conv, fs_tools_definitions(r->reg), &rep, err, sizeof(err));
	llm_ms = (fs_mono_s() - t0) * 1000.0;
	r->res->llm_calls++;
	if (rc) {
		const char *kind = fs_llm_last_error_kind(r->llm);
		if (kind && !strcmp(kind, "cancelled"))
			finish(r, user_cancelled(r) ? "cancelled" : "timeout", NULL, NULL);
		else
			finish(r, "error", kind ? kind : "internal", err);
		step_emit(r, step_new(r, NULL, 0, llm_ms), 0);
		fs_llm_reply_free(&rep);
		return;
	}
	double cost = fs_prices_cost(r->prices, fs_llm_provider(r->llm), fs_llm_model(r->llm),
				     rep.in_tokens, rep.out_tokens, &est);
	r->res->in_tokens += rep.in_tokens;
	r->last_in = rep.in_tokens;
	r->res->out_tokens += rep.out_tokens;
	r->res->cost_usd += cost;
	r->res->last_step_cost_usd = cost;
	r->res->cost_estimated |= est;
	keep_text(r, rep.text);
	if (rep.ncalls == 0 && rep.text && fs_text_protocol_parse(rep.text, &rep, err, sizeof(err)) < 0)
		finish(r, "error", "internal", err);
	cJSON *st = step_new(r, &rep, cost, llm_ms);
	t1 = fs_mono_s();
	if (!r->done && fs_conv_add_reply(r->conv, &rep))
		finish(r, "error", "internal", "out of memory");
	if (!r->done) {
		if (rep.ncalls == 0) {
			no_calls(r, &rep, st);
		} else {
			r->nudges = 0;
			run_tools(r, &rep, st);
		}
	}
	/* the cap is checked after the step too, so one expensive step cannot be followed by another */
	if (!r->done && r->lim->max_cost_usd > 0 && r->res->cost_usd >= r->lim->max_cost_usd)
		finish(r, "max_cost", NULL, NULL);
	step_emit(r, st, (fs_mono_s() - t1) * 1000.0);
	fs_llm_reply_free(&rep);
}

int fs_agent_run_conv(fs_llm *llm, fs_tool_registry *reg, const fs_prices *prices, fs_conv *conv,
		      const fs_agent_limits *lim, const fs_agent_hooks *hooks, fs_agent_result *res)
{
	fs_agent_limits defl;
	run r = {.llm = llm, .reg = reg, .prices = prices, .conv = conv, .hooks = hooks, .res = res};

	memset(res, 0, sizeof(*res));
	if (!lim) {
		fs_agent_limits_default(&defl);
		lim = &defl;
	}
	r.lim = lim;
	r.start = fs_mono_s();
	r.deadline = r.start + lim->timeout_s;
	fs_llm_set_cancel(llm, run_cancel, &r);
	if (hooks && hooks->on_text)
		fs_llm_set_text_delta(llm, hooks->on_text, hooks->user);
	while (!r.done && !limit_hit(&r))
		one_turn(&r);
	fs_llm_set_cancel(llm, NULL, NULL);
	return strcmp(res->finish_reason, "error") ? 0 : -1;
}

int fs_agent_run(fs_llm *llm, fs_tool_registry *reg, const fs_prices *prices, const char *system,
		 const char *user_message, const fs_agent_limits *lim, const fs_agent_hooks *hooks,
		 fs_agent_result *res)
{
	fs_conv conv;
	fs_msg *m;
	int rc;

	fs_conv_init(&conv);
	if (fs_conv_set_system(&conv, system) || !(m = fs_conv_add(&conv, FS_ROLE_USER)) ||
	    fs_msg_add_text(m, user_message ? user_message : "")) {
		memset(res, 0, sizeof(*res));
		snprintf(res->finish_reason, sizeof(res->finish_reason), "error");
		snprintf(res->error_kind, sizeof(res->error_kind), "internal");
		snprintf(res->error, sizeof(res->error), "out of memory");
		fs_conv_free(&conv);
		return -1;
	}
	rc = fs_agent_run_conv(llm, reg, prices, &conv, lim, hooks, res);
	fs_conv_free(&conv);
	return rc;
}
