/*
 * agent_optimize.c - the extraction-parameter optimiser (AgenticExtraction,
 * seed 001): the model tries parameter sets through the tools of
 * agent_fish_tools.c; the run stops on the target, a plateau, the
 * iteration limit, accept_result, a user stop or an error; the best
 * extraction is put back into the set at the end as one step, and an
 * agent_complete history event records the outcome (seed 001 §8.3).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_fish_tools.h"
#include "agent/agent_prompts.h"
#include "store/eventlog.h"
#include "analysis/params_json.h"
#include "store/sets_store.h"

static void on_step(const cJSON *step, void *user)
{
	fs_agent_sess *s = user;
	fs_agent_take_step(s, step);
	fs_agent_emit_status(s);
}

/* Puts the best extraction back when the set holds another one. */
static int apply_best(fs_agent_sess *s, int *applied)
{
	char err[256] = "";
	long long rev;
	*applied = 0;
	if (s->best < 0 || s->applied == s->best)
		return 0;
	const fs_agent_trial *b = &s->trials[s->best];
	int rc = fs_set_replace_all(s->db, s->job->set_id, -1, s->job->user_id, &s->best_t, &s->best_e, &b->params,
				    "agent_best", s->job->run_id, &rev, NULL, err, sizeof(err));
	if (rc) {
		fs_agent_log(s, "Could not apply the best parameters: %s", err);
		return -1;
	}
	s->applied = s->best;
	s->params = b->params;
	*applied = 1;
	fs_agent_log(s, "Applied the best result (iteration %d, hexagonalness %.3f)", b->iteration,
		     b->stats.hexagonalness_score);
	return fs_agent_sess_reload(s, err, sizeof(err));
}

/* A run never ends below its start: when the set held an extraction that
 * scores better (fs_agent_score_better) than every plausible trial, it is
 * put back with its parameters. 1 when it was. */
static int keep_start(fs_agent_sess *s)
{
	char err[256] = "";
	long long rev;
	const fs_stats *st = &s->start_stats;
	if (s->start_t.n < FS_AGENT_MIN_COUNT)
		return 0;
	if (s->best >= 0 && !fs_agent_score_better(st->hexagonalness_score, st->coverage_percent,
						 s->trials[s->best].stats.hexagonalness_score,
						 s->trials[s->best].stats.coverage_percent))
		return 0;
	if (s->n_trials == 0)
		return 0; /* nothing was changed */
	if (fs_set_replace_all(s->db, s->job->set_id, -1, s->job->user_id, &s->start_t, &s->start_e,
			       s->start_has_params ? &s->start_params : &s->params, "agent_best", s->job->run_id, &rev,
			       NULL, err, sizeof(err)) ||
	    fs_agent_sess_reload(s, err, sizeof(err))) {
		fs_agent_log(s, "Could not put the starting extraction back: %s", err);
		return 0;
	}
	if (s->start_has_params)
		s->params = s->start_params;
	s->applied = -1;
	fs_agent_log(s, "No plausible result beat the start (hexagonalness %.3f, %zu tubercles): the starting "
		     "extraction is back", st->hexagonalness_score, s->start_t.n);
	return 1;
}

/* The "agent_complete" entry's part of an optimisation: its best trial */
static void complete_fill(const fs_agent_sess *s, cJSON *ev)
{
	if (s->best >= 0) {
		const fs_agent_trial *b = &s->trials[s->best];
		cJSON_AddNumberToObject(ev, "best_iteration", b->iteration);
		cJSON_AddItemToObject(ev, "best_params", fs_params_to_json(&b->params));
		cJSON *r = cJSON_AddObjectToObject(ev, "best_result");
		cJSON_AddNumberToObject(r, "n_tubercles", b->stats.n_tubercles);
		cJSON_AddNumberToObject(r, "n_edges", b->stats.n_edges);
		cJSON_AddNumberToObject(r, "hexagonalness", fs_agent_r3(b->stats.hexagonalness_score));
		cJSON_AddNumberToObject(r, "mean_diameter_um", fs_agent_r3(b->stats.mean_diameter_um));
		cJSON_AddNumberToObject(r, "std_diameter_um", fs_agent_r3(b->stats.std_diameter_um));
		cJSON_AddNumberToObject(r, "mean_space_um", fs_agent_r3(b->stats.mean_space_um));
		cJSON_AddNumberToObject(r, "std_space_um", fs_agent_r3(b->stats.std_space_um));
	} else {
		cJSON_AddNullToObject(ev, "best_iteration");
		cJSON_AddNullToObject(ev, "best_params");
		cJSON_AddNullToObject(ev, "best_result");
	}
}

/* The run's end: the set's history entry and the image's event */
static void complete_event(fs_agent_sess *s, const char *reason, double wall)
{
	fs_agent_complete_event(s, "optimize", reason, wall, complete_fill);
	cJSON *ev = cJSON_CreateObject();
	cJSON_AddNumberToObject(ev, "iterations", s->iteration);
	cJSON_AddNumberToObject(ev, "final_score",
				s->best >= 0 ? fs_agent_r3(s->trials[s->best].stats.hexagonalness_score) : 0);
	cJSON_AddStringToObject(ev, "reason", reason);
	cJSON_AddNumberToObject(ev, "set_id", (double)s->job->set_id);
	fs_event_log(s->db, s->job->user_id, s->rec.id, "optimize_auto_complete", ev);
	cJSON_Delete(ev);
}

int fs_agent_run_optimize(fs_agent_sess *s, fs_llm *llm, const fs_prices *prices, cJSON **final_status,
			  char *err, size_t errlen)
{
	const fs_agent_job *job = s->job;
	fs_tool_registry *reg = fs_tools_new();
	char *table = fs_agent_param_table(), *profiles = fs_agent_profile_list(), *system = NULL;
	char target[32], maxit[16], plat[16], w[16], h[16], cal[32];
	fs_conv conv;
	fs_agent_result res;
	fs_agent_limits lim;
	fs_agent_hooks hooks;
	int rc = -1, applied = 0;

	fs_conv_init(&conv);
	memset(&res, 0, sizeof(res));
	if (!reg || !table || !profiles) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (fs_fish_tools_add_optimize(reg, s, err, errlen))
		goto out;
	snprintf(target, sizeof(target), "%.2f", job->target_score);
	snprintf(maxit, sizeof(maxit), "%d", job->max_iterations);
	snprintf(plat, sizeof(plat), "%d", job->plateau_iterations);
	snprintf(w, sizeof(w), "%d", s->img->width);
	snprintf(h, sizeof(h), "%d", s->img->height);
	if (s->um_per_px > 0)
		snprintf(cal, sizeof(cal), "%.5g", s->um_per_px);
	else
		snprintf(cal, sizeof(cal), "none (assumed %.5g)", s->um_for_detect);
	const char *ctx[] = {"target_score", target, "max_iterations", maxit, "plateau_iterations", plat,
			     "param_table", table, "profiles", profiles, "image_name", s->rec.original_name,
			     "image_width", w, "image_height", h, "calibration", cal, NULL};
	system = fs_tools_system_prompt(reg, fs_prompt_optimize, ctx, err, errlen);
	if (!system)
		goto out;
	cJSON *pj = fs_params_to_json(&s->params);
	char *ptxt = pj ? cJSON_PrintUnformatted(pj) : NULL;
	cJSON_Delete(pj);
	char user[4096];
	snprintf(user, sizeof(user),
		 "Target hexagonalness: %.2f. Maximum extractions: %d. Starting point: %s%s%s, parameters %s. "
		 "Run an extraction first to get a baseline, then improve step by step; call accept_result "
		 "when the target is reached or no improvement is possible.",
		 job->target_score, job->max_iterations, job->profile[0] ? "profile " : "the set's current parameters",
		 job->profile, "", ptxt ? ptxt : "{}");
	free(ptxt);
	fs_msg *m;
	if (fs_conv_set_system(&conv, system) || !(m = fs_conv_add(&conv, FS_ROLE_USER)) || fs_msg_add_text(m, user)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	s->conv = &conv;
	fs_agent_limits_default(&lim);
	/* iterations are enforced by run_extraction; this is only the backstop */
	lim.max_llm_calls = 5 * (job->max_iterations > 0 ? job->max_iterations : 1) + 5;
	lim.timeout_s = job->max_seconds > 0 ? job->max_seconds : lim.timeout_s;
	lim.max_cost_usd = job->max_cost_usd;
	fs_agent_hooks_init(&hooks, s, on_step);
	fs_agent_log(s, "Starting optimization: target=%.2f, max_iter=%d, plateau=%d", job->target_score,
		     job->max_iterations, job->plateau_iterations);
	fs_agent_log(s, "Provider: %s/%s", s->provider, s->model);
	fs_agent_emit_status(s);

	fs_agent_run_conv(llm, reg, prices, &conv, &lim, &hooks, &res);
	s->conv = NULL;
	const char *reason = fs_agent_finish_reason(s, &res);
	snprintf(s->phase, sizeof(s->phase), "complete");
	int kept_start = keep_start(s);
	if (!kept_start)
		apply_best(s, &applied);
	double wall = fs_agent_now() - s->t_start;
	complete_event(s, reason, wall);
	fs_agent_log(s, "OPTIMIZATION COMPLETE: %d extractions, reason %s", s->iteration, reason);
	if (s->best >= 0)
		fs_agent_log(s, "Best: iteration %d, hexagonalness %.3f, %d tubercles", s->trials[s->best].iteration,
			     s->trials[s->best].stats.hexagonalness_score, s->trials[s->best].stats.n_tubercles);
	if (res.error[0])
		fs_agent_log(s, "Agent error: %s", res.error);
	fs_agent_log(s, "Usage: %ld tokens, $%.4f", s->in_tokens + s->out_tokens, s->cost_usd);
	const char *state = fs_agent_state_for(reason);
	*final_status = fs_agent_status(s, state, reason);
	if (*final_status) {
		cJSON_AddBoolToObject(*final_status, "best_applied", applied);
		cJSON_AddBoolToObject(*final_status, "start_kept", kept_start);
		cJSON_AddBoolToObject(*final_status, "accepted", s->accepted);
		cJSON_AddStringToObject(*final_status, "finish_text", s->finish_text);
		if (res.error[0])
			cJSON_AddStringToObject(*final_status, "error", res.error);
	}
	if (strcmp(state, "failed")) {
		rc = 0;
	} else {
		snprintf(err, errlen, "%s", res.error[0] ? res.error : "the run failed");
	}
out:
	s->conv = NULL;
	fs_agent_result_free(&res);
	fs_conv_free(&conv);
	free(system);
	free(table);
	free(profiles);
	fs_tools_free(reg);
	return rc;
}

const fs_agent_kind_ops fs_agent_kind_optimize = {
	.kind = FS_AGENT_OPTIMIZE,
	.run = fs_agent_run_optimize,
	.local_policy = fs_agent_local_optimize,
	.local_model = "local-coordinate-search",
};
