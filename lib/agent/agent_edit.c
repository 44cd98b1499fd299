/*
 * agent_edit.c - the pattern-completion editing agent (AgenticEdit, seed
 * 000). An iteration is one model turn. After each, the state is scored by
 * the one named score (fs_agent_score_better: hexagonalness of the
 * reconnected graph, ties by coverage of the scale region): a turn that
 * lowered it against the state before the turn is rolled back (one journal
 * step, "agent_rollback"); a turn that does not better the best so far
 * advances the plateau counter (so a model cannot dodge it by not asking
 * for the state, nor reset it by oscillating); max_iterations is enforced.
 * At the end, unless the user stopped the run or it failed: auto-connect
 * with the chosen method and boundary cleanup (tubercles with fewer than 2
 * neighbours), then back to the best state seen when the end is below it,
 * then an agent_complete history event with the gain in both terms.
 *
 * Every figure is measured on the reconnected graph (fs_agent_judge, and
 * after each single change fs_agent_judge_at, which reconnects only the
 * neighbourhood of the change): added tubercles count with their
 * neighbours at once, so the plateau and improvement decisions see the
 * graph the run will end with. The best state is kept, the start being
 * the first candidate.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_fish_tools.h"
#include "agent/agent_prompts.h"
#include "store/sets_store.h"

/* The state before the next turn, for its rollback. */
static void mark_turn(fs_agent_sess *s)
{
	fs_tubercle_list_free(&s->turn_t);
	for (size_t i = 0; i < s->t.n; i++)
		if (fs_tubercle_list_append(&s->turn_t, &s->t.items[i])) {
			fs_tubercle_list_free(&s->turn_t);
			s->turn_edits = -1; /* no copy: no rollback for this turn */
			return;
		}
	s->turn_hex = s->stats.hexagonalness_score;
	s->turn_cov = s->score_cov;
	s->turn_edits = s->added + s->deleted + s->moved;
}

/* A turn whose changes lowered the score (fs_agent_score_better against
 * the state before it) is taken back: one journal step back to that state. */
static void rollback_if_worse(fs_agent_sess *s)
{
	char err[256] = "";
	double hex = s->stats.hexagonalness_score, cov = s->score_cov;
	if (!s->job->keep_best || s->turn_edits < 0 || s->added + s->deleted + s->moved == s->turn_edits ||
	    !fs_agent_score_better(s->turn_hex, s->turn_cov, hex, cov))
		return;
	fs_tubercle_list back = s->turn_t;
	s->turn_t = (fs_tubercle_list){0};
	if (fs_agent_store_state(s, &back, NULL, "agent_rollback", err, sizeof(err)))
		fs_agent_log(s, "Could not roll back iteration %d: %s", s->iteration, err);
	else {
		s->rolled_back++;
		fs_agent_log(s, "Rolled back iteration %d: it lowered the score (hexagonalness %.3f -> %.3f, region "
			     "coverage %.1f%% -> %.1f%%)", s->iteration, s->turn_hex, hex, s->turn_cov, cov);
		snprintf(s->last_action, sizeof(s->last_action), "rollback");
	}
	fs_tubercle_list_free(&back);
}

static void on_step(const cJSON *step, void *user)
{
	fs_agent_sess *s = user;

	fs_agent_take_step(s, step);
	s->iteration++;
	rollback_if_worse(s);
	/* the score of the reconnected graph: hexagonalness, ties by the
	 * coverage of the scale region; an iteration that does not better the
	 * best advances the plateau counter */
	double hex = s->stats.hexagonalness_score, cov = s->score_cov;
	int improved = fs_agent_score_better(hex, cov, s->best_hex, s->best_cov);
	if (s->added || s->deleted || s->moved)
		snprintf(s->phase, sizeof(s->phase), "pattern_completion");
	fs_agent_log(s, "Hexagonalness: %.3f -> %.3f, Coverage of the scale region: %.1f%% -> %.1f%%", s->best_hex, hex,
		     s->best_cov, cov);
	if (fs_agent_score_better(hex, s->score_cov, s->snap_hex, s->snap_cov)) {
		/* the best state so far: the run ends on it */
		fs_tubercle_list_free(&s->snap_t);
		for (size_t i = 0; i < s->t.n; i++)
			if (fs_tubercle_list_append(&s->snap_t, &s->t.items[i]))
				break;
		s->snap_hex = hex;
		s->snap_cov = s->score_cov;
		s->snap_iteration = s->iteration;
	}
	if (improved) {
		s->plateau = 0;
		s->best_hex = hex;
		s->best_cov = cov;
	} else {
		s->plateau++;
	}
	fs_agent_log(s, "Plateau: %d/%d (%s)", s->plateau, s->job->plateau_iterations, improved ? "improved" : "no change");
	double now = fs_agent_now();
	s->iter_seconds_sum += now - s->t_iter;
	/* a step that already ended the run (finish, limits) needs no stop reason */
	if (!cJSON_GetObjectItemCaseSensitive(step, "finish_reason") && !s->stop_reason[0]) {
		if (s->job->plateau_iterations > 0 && s->plateau >= s->job->plateau_iterations) {
			snprintf(s->stop_reason, sizeof(s->stop_reason), "plateau_detected");
			fs_agent_log(s, "AUTO-STOP: no improvement for %d iterations. Final: hex=%.3f, coverage=%.1f%%",
				     s->plateau, hex, cov);
		} else if (s->iteration >= s->job->max_iterations) {
			snprintf(s->stop_reason, sizeof(s->stop_reason), "max_iterations");
			fs_agent_log(s, "MAX ITERATIONS: %d", s->iteration);
		}
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "iteration", s->iteration);
	cJSON_AddNumberToObject(o, "max_iterations", s->job->max_iterations);
	cJSON_AddStringToObject(o, "phase", s->phase);
	cJSON_AddNumberToObject(o, "hexagonalness", fs_agent_r3(hex));
	cJSON_AddNumberToObject(o, "coverage_percent", round(cov * 10) / 10);
	cJSON_AddNumberToObject(o, "tubercles", (double)s->t.n);
	cJSON_AddNumberToObject(o, "edges", (double)s->e.n);
	cJSON_AddNumberToObject(o, "plateau_count", s->plateau);
	cJSON_AddNumberToObject(o, "region_coverage_percent", round(cov * 10) / 10);
	fs_agent_status_line(s, o);
	fs_agent_emit_status(s);
	mark_turn(s);
	s->t_iter = now;
}

/* The run ends on its best state (by fs_agent_score_better; the start is
 * the first candidate), so it never ends below where it started. A state's
 * score in the loop is that of the graph reconnected around each change,
 * before the final auto-connect and boundary clean-up; stored again, the
 * best may score lower than it did there (P2 Fig1c: 0.547 in the loop,
 * 0.440 stored, start 0.457). So the state ended on is scored as stored,
 * and when that is below the start the run goes back to the start. */
/* Whether the list holds the same tubercles, in the same places, as the
 * session's current state: going back to it would only renumber ids (which
 * the run's action list and its per-step undo refer to), not change the
 * result. */
static int same_state(const fs_agent_sess *s, const fs_tubercle_list *t)
{
	if (t->n != s->t.n)
		return 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->items[i].centroid_x != s->t.items[i].centroid_x ||
		    t->items[i].centroid_y != s->t.items[i].centroid_y ||
		    !(t->items[i].radius_px == s->t.items[i].radius_px ||
		      (isnan(t->items[i].radius_px) && isnan(s->t.items[i].radius_px))))
			return 0;
	return 1;
}

static void end_on_best(fs_agent_sess *s)
{
	char err[256] = "";
	double hex = s->stats.hexagonalness_score, cov = s->score_cov;
	if (!s->job->keep_best)
		return;
	if (fs_agent_score_better(s->snap_hex, s->snap_cov, hex, cov) && !same_state(s, &s->snap_t)) {
		fs_tubercle_list keep = s->snap_t;
		s->snap_t = (fs_tubercle_list){0};
		if (fs_agent_store_state(s, &keep, NULL, "agent_best", err, sizeof(err)))
			fs_agent_log(s, "Could not go back to the best state: %s", err);
		else if (s->snap_iteration < 0)
			fs_agent_log(s,
				     "The end state (hexagonalness %.3f, lattice coverage %.1f%%) was below the start: went "
				     "back to the start (hexagonalness %.3f, lattice coverage %.1f%%)",
				     hex, cov, s->stats.hexagonalness_score, s->score_cov);
		else
			fs_agent_log(s,
				     "The end state (hexagonalness %.3f, lattice coverage %.1f%%) was below the best: went "
				     "back to the state after iteration %d (hexagonalness %.3f, lattice coverage %.1f%%)",
				     hex, cov, s->snap_iteration, s->stats.hexagonalness_score, s->score_cov);
		snprintf(s->last_action, sizeof(s->last_action), "restore_best");
		s->snap_t = keep;
		hex = s->stats.hexagonalness_score;
		cov = s->score_cov;
	}
	/* an empty set's start is its first extraction, not kept: nothing to go back to */
	if (s->start_t.n == 0 || !fs_agent_score_better(s->start_hex, s->start_score_cov, hex, cov) ||
	    same_state(s, &s->start_t))
		return;
	fs_tubercle_list start = {0};
	for (size_t i = 0; i < s->start_t.n; i++)
		if (fs_tubercle_list_append(&start, &s->start_t.items[i])) {
			fs_tubercle_list_free(&start);
			fs_agent_log(s, "Could not go back to the start: out of memory");
			return;
		}
	if (fs_agent_store_state(s, &start, NULL, "agent_best", err, sizeof(err)))
		fs_agent_log(s, "Could not go back to the start: %s", err);
	else {
		fs_agent_log(s,
			     "The state ended on scores below the start as stored (hexagonalness %.3f, lattice coverage "
			     "%.1f%%): went back to the start (hexagonalness %.3f, lattice coverage %.1f%%)",
			     hex, cov, s->stats.hexagonalness_score, s->score_cov);
		snprintf(s->last_action, sizeof(s->last_action), "restore_start");
	}
	fs_tubercle_list_free(&start);
}

static void finalize(fs_agent_sess *s)
{
	char err[256] = "";
	int n = 0, deleted = 0;
	const char *method = s->job->auto_connect_method[0] ? s->job->auto_connect_method : "gabriel";

	snprintf(s->phase, sizeof(s->phase), "finalizing");
	if (s->job->auto_connect && fs_agent_auto_connect(s, method, &n, err, sizeof(err)))
		fs_agent_log(s, "Auto-connect failed: %s", err);
	if (s->job->cleanup_boundary) {
		if (fs_agent_cleanup_boundary(s, &deleted, err, sizeof(err)))
			fs_agent_log(s, "Boundary cleanup failed: %s", err);
		/* the deleted tubercles' neighbours need their connections redone */
		else if (deleted && s->job->auto_connect && fs_agent_auto_connect(s, method, &n, err, sizeof(err)))
			fs_agent_log(s, "Auto-connect failed: %s", err);
	}
	end_on_best(s);
}

/* The "agent_complete" entry's part of an edit run: its finish text and
 * the set before and after */
static void complete_fill(const fs_agent_sess *s, cJSON *ev)
{
	cJSON_AddStringToObject(ev, "finish_text", s->finish_text);
	cJSON *i = cJSON_AddObjectToObject(ev, "initial");
	cJSON_AddNumberToObject(i, "n_tubercles", s->start_count);
	cJSON_AddNumberToObject(i, "hexagonalness", fs_agent_r3(s->start_hex));
	cJSON_AddNumberToObject(i, "coverage_percent", round(s->start_cov * 10) / 10);
	cJSON_AddNumberToObject(i, "region_coverage_percent", round(s->start_score_cov * 10) / 10);
	cJSON *f = cJSON_AddObjectToObject(ev, "result");
	cJSON_AddNumberToObject(f, "n_tubercles", (double)s->t.n);
	cJSON_AddNumberToObject(f, "n_edges", (double)s->e.n);
	cJSON_AddNumberToObject(f, "hexagonalness", fs_agent_r3(s->stats.hexagonalness_score));
	cJSON_AddNumberToObject(f, "coverage_percent", round(s->stats.coverage_percent * 10) / 10);
	cJSON_AddNumberToObject(f, "region_coverage_percent", round(s->score_cov * 10) / 10);
	cJSON_AddNumberToObject(f, "iterations_rolled_back", s->rolled_back);
	cJSON_AddNumberToObject(f, "tubercles_added", s->added);
	cJSON_AddNumberToObject(f, "tubercles_deleted", s->deleted);
	cJSON_AddNumberToObject(f, "tubercles_moved", s->moved);
}

int fs_agent_run_edit(fs_agent_sess *s, fs_llm *llm, const fs_prices *prices, cJSON **final_status, char *err,
		      size_t errlen)
{
	const fs_agent_job *job = s->job;
	fs_tool_registry *reg = fs_tools_new();
	char *system = NULL;
	char plat[16], w[16], h[16], sw[16], sh[16], cal[32], n0[16], h0[16], c0[16], maxit[16], user[1024];
	fs_conv conv;
	fs_agent_result res;
	fs_agent_limits lim;
	fs_agent_hooks hooks;
	fs_msg *m;
	int rc = -1;

	fs_conv_init(&conv);
	memset(&res, 0, sizeof(res));
	if (!reg) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (fs_fish_tools_add_edit(reg, s, 1, err, errlen))
		goto out;
	if (s->t.n == 0) {
		/* nothing to complete: the first step is an extraction, so an empty
		 * set gets the detector's result and then the pattern completion */
		int found = 0;
		snprintf(s->phase, sizeof(s->phase), "extraction");
		if (fs_agent_initial_extraction(s, &found, err, errlen)) {
			fs_agent_log(s, "Extraction failed: %s", err);
			goto out;
		}
		fs_agent_emit_status(s);
	}
	/* the plateau and the gain are judged by the score: hexagonalness of
	 * the reconnected graph, ties by coverage of the scale region */
	s->best_hex = s->stats.hexagonalness_score;
	s->best_cov = s->start_score_cov = s->score_cov;
	mark_turn(s);
	int side = s->img->width > s->img->height ? s->img->width : s->img->height;
	double sc = side > FS_AGENT_SHOT_SIDE ? (double)FS_AGENT_SHOT_SIDE / side : 1.0;
	snprintf(plat, sizeof(plat), "%d", job->plateau_iterations);
	snprintf(w, sizeof(w), "%d", s->img->width);
	snprintf(h, sizeof(h), "%d", s->img->height);
	snprintf(sw, sizeof(sw), "%d", (int)lround(s->img->width * sc));
	snprintf(sh, sizeof(sh), "%d", (int)lround(s->img->height * sc));
	if (s->um_per_px > 0)
		snprintf(cal, sizeof(cal), "%.5g", s->um_per_px);
	else
		snprintf(cal, sizeof(cal), "not set");
	snprintf(n0, sizeof(n0), "%d", s->start_count);
	snprintf(h0, sizeof(h0), "%.3f", s->start_hex);
	snprintf(c0, sizeof(c0), "%.1f", s->start_cov);
	snprintf(maxit, sizeof(maxit), "%d", job->max_iterations);
	const char *ctx[] = {"plateau_threshold", plat, "image_name", s->rec.original_name, "image_width", w,
			     "image_height", h, "shot_width", sw, "shot_height", sh, "calibration", cal,
			     "initial_tubercle_count", n0, "initial_hexagonalness", h0, "initial_coverage", c0,
			     "max_iterations", maxit, NULL};
	system = fs_tools_system_prompt(reg, fs_prompt_edit, ctx, err, errlen);
	if (!system)
		goto out;
	snprintf(user, sizeof(user),
		 "Current state: %zu tubercles, %zu connections, hexagonalness %.3f, coverage %.1f%%. Start with a "
		 "screenshot, scan the whole image for gaps in the hexagonal pattern and for false positives, and "
		 "complete the pattern.",
		 s->t.n, s->e.n, s->stats.hexagonalness_score, s->stats.coverage_percent);
	if (fs_conv_set_system(&conv, system) || !(m = fs_conv_add(&conv, FS_ROLE_USER)) || fs_msg_add_text(m, user)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	s->conv = &conv;
	fs_agent_limits_default(&lim);
	/* iterations are counted per turn in on_step; this is only the backstop */
	lim.max_llm_calls = (job->max_iterations > 0 ? job->max_iterations : 1) + 2;
	lim.timeout_s = job->max_seconds > 0 ? job->max_seconds : lim.timeout_s;
	lim.max_cost_usd = job->max_cost_usd;
	fs_agent_hooks_init(&hooks, s, on_step);
	fs_agent_log(s, "Started pattern completion (max_iter: %d, plateau: %d)", job->max_iterations,
		     job->plateau_iterations);
	fs_agent_log(s, "Provider: %s/%s", s->provider, s->model);
	fs_agent_emit_status(s);

	fs_agent_run_conv(llm, reg, prices, &conv, &lim, &hooks, &res);
	s->conv = NULL;
	const char *reason = fs_agent_finish_reason(s, &res);
	const char *state = fs_agent_state_for(reason);
	if (!strcmp(state, "completed"))
		finalize(s);
	snprintf(s->phase, sizeof(s->phase), "complete");
	fs_agent_complete_event(s, "edit", reason, fs_agent_now() - s->t_start, complete_fill);
	if (res.error[0])
		fs_agent_log(s, "Agent error: %s", res.error);
	fs_agent_log(s, "EDITING COMPLETE: %s; %zu tubercles (%+d), hexagonalness %.3f -> %.3f, coverage of the scale "
		     "region %.1f%% -> %.1f%%", reason, s->t.n, (int)s->t.n - s->start_count, s->start_hex,
		     s->stats.hexagonalness_score, s->start_score_cov, s->score_cov);
	fs_agent_log(s, "Total usage: %ld tokens, $%.4f", s->in_tokens + s->out_tokens, s->cost_usd);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "iteration", s->iteration);
	cJSON_AddNumberToObject(o, "hexagonalness", fs_agent_r3(s->stats.hexagonalness_score));
	cJSON_AddNumberToObject(o, "coverage_percent", round(s->stats.coverage_percent * 10) / 10);
	cJSON_AddNumberToObject(o, "tubercles", (double)s->t.n);
	cJSON_AddStringToObject(o, "phase", "complete");
	fs_agent_status_line(s, o);
	*final_status = fs_agent_status(s, state, reason);
	if (*final_status) {
		cJSON_AddStringToObject(*final_status, "finish_text", s->finish_text);
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
	fs_conv_free(&conv);
	free(system);
	fs_tools_free(reg);
	return rc;
}

const fs_agent_kind_ops fs_agent_kind_edit = {
	.kind = FS_AGENT_EDIT,
	.run = fs_agent_run_edit,
	.local_policy = fs_agent_local_edit,
	.local_model = "local-lattice-fit",
};
