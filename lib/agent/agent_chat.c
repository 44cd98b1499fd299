/*
 * agent_chat.c - chat instructions on a set (seed 002): the model gets the
 * set as text (ids, positions, neighbour counts, boundary flags) and a
 * screenshot, the user's instruction and the editing tools, works through
 * at most max_tool_calls calls and replies in text (streamed through
 * env->on_text). The earlier exchanges on the set (agent_chat history
 * events) come first, so a conversation continues across runs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_fish_tools.h"
#include "agent/agent_prompts.h"
#include "base/buf.h"
#include "store/sets_store.h"

#define CHAT_SET_ROWS 600  /* tubercles listed in the prompt */
#define CHAT_HISTORY 5     /* earlier exchanges replayed */

static void on_step(const cJSON *step, void *user)
{
	fs_agent_sess *s = user;
	fs_agent_take_step(s, step);
	s->iteration++;
	fs_agent_emit_status(s);
}

static char *set_text(const fs_agent_sess *s)
{
	fs_buf b = FS_BUF_INIT;
	int *deg = fs_agent_degrees(s);
	double sc = s->shot_scale > 0 ? s->shot_scale : 1.0;
	if (!deg)
		return NULL;
	fs_buf_printf(&b, "%zu tubercles, %zu connections, hexagonalness %.3f, coverage %.1f%%.\n", s->t.n, s->e.n,
		      s->stats.hexagonalness_score, s->stats.coverage_percent);
	fs_buf_puts(&b, "id, x, y (screenshot pixels), neighbours, boundary\n");
	for (size_t i = 0; i < s->t.n && i < CHAT_SET_ROWS; i++) {
		const fs_tubercle *t = &s->t.items[i];
		fs_buf_printf(&b, "%d, %.0f, %.0f, %d, %s\n", t->id, t->centroid_x * sc, t->centroid_y * sc, deg[i],
			      t->is_boundary ? "yes" : "no");
	}
	if (s->t.n > CHAT_SET_ROWS)
		fs_buf_printf(&b, "(%zu more not listed)\n", s->t.n - CHAT_SET_ROWS);
	free(deg);
	return b.data ? fs_buf_steal(&b) : NULL;
}

/* Earlier exchanges, oldest first, as user / assistant turns. */
static int replay_history(fs_agent_sess *s, fs_conv *conv)
{
	cJSON *h = fs_history_list(s->db, s->job->set_id, 200);
	const cJSON *ev, *pick[CHAT_HISTORY];
	int n = 0, rc = 0;
	cJSON_ArrayForEach(ev, h)
	{
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "type"));
		if (n < CHAT_HISTORY && type && !strcmp(type, "agent_chat"))
			pick[n++] = ev;
	}
	for (int i = n - 1; i >= 0 && !rc; i--) {
		const char *q = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(pick[i], "instruction"));
		const char *a = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(pick[i], "reply"));
		fs_msg *m;
		if (!q || !a || !*q || !*a)
			continue;
		if (!(m = fs_conv_add(conv, FS_ROLE_USER)) || fs_msg_add_text(m, q) ||
		    !(m = fs_conv_add(conv, FS_ROLE_ASSISTANT)) || fs_msg_add_text(m, a))
			rc = -1;
	}
	cJSON_Delete(h);
	return rc;
}

int fs_agent_run_chat(fs_agent_sess *s, fs_llm *llm, const fs_prices *prices, cJSON **final_status, char *err,
		      size_t errlen)
{
	const fs_agent_job *job = s->job;
	fs_tool_registry *reg = fs_tools_new();
	char *system = NULL, *text = NULL;
	char w[16], h[16], maxc[16];
	fs_conv conv;
	fs_agent_result res;
	fs_agent_limits lim;
	fs_agent_hooks hooks;
	fs_agent_shot shot = {0};
	fs_agent_shot_opts so = {.overlay = 1, .numbers = 1, .max_side = FS_AGENT_SHOT_SIDE, .um_per_px = s->um_per_px};
	fs_msg *m;
	int rc = -1;

	fs_conv_init(&conv);
	memset(&res, 0, sizeof(res));
	if (!reg) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (!job->instruction[0]) {
		snprintf(err, errlen, "chat needs an instruction");
		goto out;
	}
	if (fs_fish_tools_add_edit(reg, s, 0, err, errlen))
		goto out;
	if (fs_agent_screenshot(s->img, &s->t, &s->e, &so, &s->shots, &shot, err, errlen))
		goto out;
	s->shot_scale = shot.scale;
	s->shot_w = shot.width;
	s->shot_h = shot.height;
	text = set_text(s);
	if (!text) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	int maxcalls = job->max_tool_calls > 0 ? job->max_tool_calls : 20;
	snprintf(w, sizeof(w), "%d", s->img->width);
	snprintf(h, sizeof(h), "%d", s->img->height);
	snprintf(maxc, sizeof(maxc), "%d", maxcalls);
	const char *ctx[] = {"image_name", s->rec.original_name, "image_width", w, "image_height", h,
			     "max_tool_calls", maxc, "set_text", text, NULL};
	system = fs_tools_system_prompt(reg, fs_prompt_chat, ctx, err, errlen);
	if (!system)
		goto out;
	if (fs_conv_set_system(&conv, system) || replay_history(s, &conv) || !(m = fs_conv_add(&conv, FS_ROLE_USER)) ||
	    fs_msg_add_text(m, job->instruction) || fs_msg_add_image(m, shot.b64, shot.media_type)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	s->conv = &conv;
	fs_agent_limits_default(&lim);
	lim.max_tool_calls = maxcalls;
	lim.max_calls_per_turn = maxcalls;
	lim.max_llm_calls = maxcalls + 2;
	lim.timeout_s = job->max_seconds > 0 ? job->max_seconds : lim.timeout_s;
	lim.max_cost_usd = job->max_cost_usd;
	fs_agent_hooks_init(&hooks, s, on_step);
	fs_agent_log(s, "Chat instruction: %.200s", job->instruction);
	fs_agent_emit_status(s);

	fs_agent_run_conv(llm, reg, prices, &conv, &lim, &hooks, &res);
	s->conv = NULL;
	const char *reason = fs_agent_finish_reason(s, &res);
	const char *state = fs_agent_state_for(reason);
	const char *reply = res.final_text ? res.final_text : "";
	snprintf(s->phase, sizeof(s->phase), "complete");
	cJSON *ev = cJSON_CreateObject();
	cJSON_AddStringToObject(ev, "instruction", job->instruction);
	cJSON_AddStringToObject(ev, "reply", reply);
	cJSON_AddStringToObject(ev, "finish_reason", reason);
	cJSON_AddNumberToObject(ev, "tool_calls", res.tool_calls);
	cJSON_AddNumberToObject(ev, "run_id", (double)job->run_id);
	cJSON_AddNumberToObject(ev, "tubercles_added", s->added);
	cJSON_AddNumberToObject(ev, "tubercles_deleted", s->deleted);
	cJSON_AddNumberToObject(ev, "tubercles_moved", s->moved);
	fs_history_add(s->db, job->set_id, job->user_id, "agent_chat", ev);
	cJSON_Delete(ev);
	if (res.error[0])
		fs_agent_log(s, "Agent error: %s", res.error);
	fs_agent_log(s, "Reply: %.300s", reply);
	*final_status = fs_agent_status(s, state, reason);
	if (*final_status) {
		cJSON_AddStringToObject(*final_status, "reply", reply);
		cJSON_AddNumberToObject(*final_status, "tool_calls", res.tool_calls);
		if (res.error[0])
			cJSON_AddStringToObject(*final_status, "error", res.error);
	}
	if (strcmp(state, "failed"))
		rc = 0;
	else
		snprintf(err, errlen, "%s", res.error[0] ? res.error : "the run failed");
out:
	s->conv = NULL;
	fs_agent_result_free(&res);
	fs_agent_shot_free(&shot);
	fs_conv_free(&conv);
	free(system);
	free(text);
	fs_tools_free(reg);
	return rc;
}

const fs_agent_kind_ops fs_agent_kind_chat = {
	.kind = FS_AGENT_CHAT,
	.run = fs_agent_run_chat,
	.local_policy = fs_agent_local_chat,
	.local_model = "local-keywords",
};
