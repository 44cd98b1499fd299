/* Unit tests: both agents and chat run end to end with the offline provider
 * "local" on a synthetic lattice: status fields, stops, history events,
 * journal, approval, best parameters, boundary cleanup. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "agent/agent_fish_tools.h"
#include "agent/agent_jobs.h"
#include "base/config.h"
#include "store/db.h"
#include "analysis/graph.h"
#include "store/image_files.h"
#include "analysis/params.h"
#include "analysis/params_json.h"
#include "store/sets_store.h"
#include "store/settings_store.h"
#include "synth.h"
#include "store/users.h"

#define FX_NAME "local"
#include "agent_fixture.h"

static cJSON *run_job(fx *f, const fs_agent_job *job, seen *s, int expect_rc)
{
	fs_agent_env env;
	cJSON *st = NULL;
	char err[256] = "";
	env_init(&env, f, s);
	int rc = fs_agent_job_run(job, &env, &st, err, sizeof err);
	if (rc != expect_rc)
		fail_msg("rc %d (%s)", rc, err);
	assert_non_null(st);
	return st;
}

/* ------------------------------------------------------------ optimiser */

static void optimize_local_runs_applies_best_and_never_repeats(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	job_init(&job, f, FS_AGENT_OPTIMIZE);
	job.max_iterations = 8;
	job.target_score = 0.999;
	job.plateau_iterations = 0;
	cJSON *st = run_job(f, &job, &s, 0);

	assert_string_equal(jstr(st, "state"), "completed");
	assert_true(jnum(st, "iteration") >= 2);
	assert_true(jnum(st, "iteration") <= 8);
	/* seed 001 §7.3 fields */
	static const char *keys[] = {"phase", "iteration", "max_iterations", "current_params", "current_metrics",
				     "best_params", "best_metrics", "best_iteration", "history", "last_prompt",
				     "last_response", "usage", "timing", "elapsed_seconds", "finish_reason", "state"};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (!cJSON_GetObjectItemCaseSensitive(st, keys[i]))
			fail_msg("status lacks %s", keys[i]);
	/* no parameter set tried twice */
	cJSON *h = cJSON_GetObjectItemCaseSensitive(st, "history");
	int n = cJSON_GetArraySize(h);
	assert_int_equal(n, (int)jnum(st, "iteration"));
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			fs_params a, b;
			char err[128];
			fs_params_default(&a);
			fs_params_default(&b);
			assert_int_equal(fs_params_from_json(&a, cJSON_GetObjectItem(cJSON_GetArrayItem(h, i), "params"), 0,
							     err, sizeof err), 0);
			assert_int_equal(fs_params_from_json(&b, cJSON_GetObjectItem(cJSON_GetArrayItem(h, j), "params"), 0,
							     err, sizeof err), 0);
			assert_false(fs_agent_params_equal(&a, &b));
		}
	/* under auto, a parameter auto does not use is never varied */
	fs_params d;
	fs_params_default(&d);
	for (int i = 0; i < n; i++) {
		fs_params a;
		char err[128];
		fs_params_default(&a);
		assert_int_equal(fs_params_from_json(&a, cJSON_GetObjectItem(cJSON_GetArrayItem(h, i), "params"), 0, err,
						     sizeof err), 0);
		if (a.method != FS_METHOD_AUTO)
			continue;
		assert_true(a.threshold == d.threshold && a.min_diameter_um == d.min_diameter_um &&
			    a.max_diameter_um == d.max_diameter_um && a.clahe_kernel == d.clahe_kernel);
	}
	/* the set ends on the best: the best trial's parameters, or the start
	 * when no plausible trial beat it (the fixture's start is the true
	 * lattice with a few errors, which extractions rarely beat) */
	fs_set_info info;
	fs_params best;
	char err[128];
	fs_params_default(&best);
	assert_int_equal(fs_set_get_info(f->db, f->set_id, &info), 0);
	assert_true(info.has_params);
	cJSON *bm = cJSON_GetObjectItem(st, "best_metrics");
	if (cJSON_IsTrue(cJSON_GetObjectItem(st, "start_kept"))) {
		assert_int_equal(info.n_tubercles, (int)(f->truth.n - f->n_missing + f->n_fp));
	} else {
		assert_int_equal(fs_params_from_json(&best, cJSON_GetObjectItem(st, "best_params"), 0, err, sizeof err),
				 0);
		assert_true(fs_agent_params_equal(&best, &info.params));
		assert_int_equal(info.n_tubercles, (int)jnum(bm, "n_tubercles"));
	}
	/* the set changed during the run, as a browser polling it would see */
	assert_true(s.rev_grew_during_run);
	assert_true(s.status_lines >= 1);
	cJSON_Delete(st);
	seen_free(&s);
}

static void optimize_writes_iteration_and_complete_events(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	job_init(&job, f, FS_AGENT_OPTIMIZE);
	job.max_iterations = 3;
	job.target_score = 0.999;
	job.plateau_iterations = 0;
	cJSON *st = run_job(f, &job, &s, 0);
	assert_string_equal(jstr(st, "finish_reason"), "max_iterations");
	assert_int_equal(history_count(f, "agent_iteration"), 3);
	cJSON *it = history_event(f, "agent_iteration");
	assert_non_null(it);
	static const char *ik[] = {"iteration", "max_iterations", "phase", "timing", "params", "result", "llm",
				   "llm_reasoning"};
	for (size_t i = 0; i < sizeof ik / sizeof ik[0]; i++)
		if (!cJSON_GetObjectItemCaseSensitive(it, ik[i]))
			fail_msg("agent_iteration lacks %s", ik[i]);
	assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(it, "result"), "is_best"));
	assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(it, "timing"), "iteration_seconds"));
	cJSON *c = history_event(f, "agent_complete");
	assert_non_null(c);
	assert_string_equal(jstr(c, "reason"), "max_iterations");
	assert_int_equal((int)jnum(c, "iterations_used"), 3);
	static const char *ck[] = {"best_iteration", "best_params", "best_result", "timing", "llm"};
	for (size_t i = 0; i < sizeof ck / sizeof ck[0]; i++)
		if (!cJSON_GetObjectItemCaseSensitive(c, ck[i]))
			fail_msg("agent_complete lacks %s", ck[i]);
	cJSON *l = cJSON_GetObjectItem(c, "llm");
	static const char *lk[] = {"provider", "model", "input_tokens", "output_tokens", "total_tokens",
				   "estimated_cost_usd"};
	for (size_t i = 0; i < sizeof lk / sizeof lk[0]; i++)
		assert_non_null(cJSON_GetObjectItemCaseSensitive(l, lk[i]));
	assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(c, "timing"), "wallclock_seconds"));
	assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(c, "timing"), "avg_iteration_seconds"));
	assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(c, "best_result"), "std_space_um"));
	cJSON_Delete(it);
	cJSON_Delete(c);
	cJSON_Delete(st);
	seen_free(&s);
}

static void optimize_stops_at_target(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	job_init(&job, f, FS_AGENT_OPTIMIZE);
	job.target_score = 0.01;
	cJSON *st = run_job(f, &job, &s, 0);
	assert_string_equal(jstr(st, "finish_reason"), "target_achieved");
	assert_string_equal(jstr(st, "state"), "completed");
	assert_int_equal((int)jnum(st, "iteration"), 1);
	cJSON_Delete(st);
	seen_free(&s);
}

static void optimize_stops_on_plateau(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	job_init(&job, f, FS_AGENT_OPTIMIZE);
	job.target_score = 0.999;
	job.max_iterations = 200;
	job.plateau_iterations = 1;
	job.plateau_threshold = 0.9; /* nothing improves that much */
	cJSON *st = run_job(f, &job, &s, 0);
	assert_string_equal(jstr(st, "finish_reason"), "plateau_detected");
	/* the local search counts its plateau in whole passes over the
	 * parameters (agent_local_optimize.c): the baseline, then one pass */
	int it = (int)jnum(st, "iteration");
	if (it <= 2 || it >= 200)
		fail_msg("plateau after %d extractions, want one whole pass", it);
	cJSON_Delete(st);
	seen_free(&s);
}

static void optimize_user_stop_is_stopped_state(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {.stop_after_statuses = 2};
	job_init(&job, f, FS_AGENT_OPTIMIZE);
	job.target_score = 0.999;
	cJSON *st = run_job(f, &job, &s, 0);
	assert_string_equal(jstr(st, "state"), "stopped");
	assert_string_equal(jstr(st, "finish_reason"), "user_stopped");
	cJSON *c = history_event(f, "agent_complete");
	assert_string_equal(jstr(c, "reason"), "user_stopped");
	cJSON_Delete(c);
	cJSON_Delete(st);
	seen_free(&s);
}

static void optimize_unknown_profile_fails(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	job_init(&job, f, FS_AGENT_OPTIMIZE);
	snprintf(job.profile, sizeof job.profile, "no-such-profile");
	cJSON *st = run_job(f, &job, &s, -1);
	assert_string_equal(jstr(st, "state"), "failed");
	assert_non_null(strstr(jstr(st, "error"), "no-such-profile"));
	cJSON_Delete(st);
	seen_free(&s);
}

/* --------------------------------------------------------- editing agent */

static int count_near(fx *f, double x, double y, double d)
{
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	int n = 0;
	assert_int_equal(fs_set_load(f->db, f->set_id, &t, &e), 0);
	for (size_t i = 0; i < t.n; i++)
		n += hypot(t.items[i].centroid_x - x, t.items[i].centroid_y - y) < d;
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	return n;
}

static void edit_local_fills_gaps_and_removes_false_positives(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	fs_set_info before, after;
	assert_int_equal(fs_set_get_info(f->db, f->set_id, &before), 0);
	job_init(&job, f, FS_AGENT_EDIT);
	job.cleanup_boundary = 0;
	cJSON *st = run_job(f, &job, &s, 0);
	assert_string_equal(jstr(st, "state"), "completed");
	assert_string_equal(jstr(st, "finish_reason"), "finished");
	assert_int_equal(count_near(f, 15, 100, 5), 0);
	assert_int_equal(count_near(f, 20, 260, 5), 0);
	assert_true(jnum(st, "tubercles_added") >= (double)f->n_missing);
	assert_int_equal((int)jnum(st, "tubercles_deleted"), (int)f->n_fp);
	/* every missing interior site is back */
	for (size_t i = 0; i < f->truth.n; i++) {
		int interior = f->truth.x[i] > 100 && f->truth.x[i] < FX_W - 40 && f->truth.y[i] > 40 &&
			       f->truth.y[i] < FX_H - 40;
		if (interior && i % FX_MISSING_EVERY == 0 && count_near(f, f->truth.x[i], f->truth.y[i], 4) != 1)
			fail_msg("site %zu (%.0f, %.0f) not filled", i, f->truth.x[i], f->truth.y[i]);
	}
	assert_int_equal(fs_set_get_info(f->db, f->set_id, &after), 0);
	assert_true(after.revision > before.revision);
	assert_true(s.rev_grew_during_run);
	static const char *keys[] = {"state", "phase", "iteration", "max_iterations", "tubercle_count",
				     "tubercle_delta", "hexagonalness", "coverage_percent", "elapsed_seconds",
				     "plateau_count", "usage", "costs", "last_prompt", "last_response",
				     "action_summary", "log_lines", "itc_count"};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (!cJSON_GetObjectItemCaseSensitive(st, keys[i]))
			fail_msg("status lacks %s", keys[i]);
	assert_int_equal((int)jnum(st, "tubercle_delta"), after.n_tubercles - before.n_tubercles);
	assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(st, "action_summary")) > 0);
	cJSON_Delete(st);
	seen_free(&s);
}

static void edit_journal_entries_carry_the_run_id(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	job_init(&job, f, FS_AGENT_EDIT);
	cJSON *st = run_job(f, &job, &s, 0);
	cJSON *j = fs_set_journal(f->db, f->set_id, 100), *e;
	int agent = 0, other = 0;
	cJSON_ArrayForEach(e, j)
	{
		if ((long long)cJSON_GetNumberValue(cJSON_GetObjectItem(e, "agent_run_id")) == 42)
			agent++;
		else
			other++;
	}
	assert_true(agent >= 3);
	assert_int_equal(other, 1); /* the fixture's extraction */
	cJSON_Delete(j);
	cJSON_Delete(st);
	seen_free(&s);
}

static void edit_cleanup_leaves_no_tubercle_below_two_neighbours(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	/* a lone tubercle in the bright area, far from the others */
	fs_tubercle t;
	int tid;
	long long rev;
	char err[256];
	memset(&t, 0, sizeof t);
	t.centroid_x = FX_W - 3;
	t.centroid_y = FX_H - 3;
	t.radius_px = 3;
	assert_int_equal(fs_set_add_tubercle(f->db, f->set_id, -1, f->uid, &t, 0, &tid, &rev, NULL, err, sizeof err), 0);
	job_init(&job, f, FS_AGENT_EDIT);
	job.max_iterations = 1; /* one look, then the finishing steps */
	job.plateau_iterations = 0;
	cJSON *st = run_job(f, &job, &s, 0);
	assert_string_equal(jstr(st, "finish_reason"), "max_iterations");
	fs_tubercle_list tl = {0};
	fs_edge_list el = {0};
	assert_int_equal(fs_set_load(f->db, f->set_id, &tl, &el), 0);
	for (size_t i = 0; i < tl.n; i++) {
		int d = 0;
		for (size_t k = 0; k < el.n; k++)
			d += el.items[k].id1 == tl.items[i].id || el.items[k].id2 == tl.items[i].id;
		if (d < 2)
			fail_msg("tubercle %d has %d neighbours", tl.items[i].id, d);
	}
	assert_true(tl.n > 100);
	fs_tubercle_list_free(&tl);
	fs_edge_list_free(&el);
	cJSON_Delete(st);
	seen_free(&s);
}

static void edit_stops_on_plateau(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	job_init(&job, f, FS_AGENT_EDIT);
	job.plateau_iterations = 1; /* the first turn only looks: no improvement */
	cJSON *st = run_job(f, &job, &s, 0);
	assert_string_equal(jstr(st, "finish_reason"), "plateau_detected");
	assert_int_equal((int)jnum(st, "iteration"), 1);
	assert_int_equal((int)jnum(st, "plateau_count"), 1);
	cJSON_Delete(st);
	seen_free(&s);
}

/* issue 16 item 2: an empty set is extracted first, as the run's first step */
static void edit_on_empty_set_starts_with_an_extraction(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_params p;
	long long rev;
	char err[256];
	fs_params_default(&p);
	assert_int_equal(fs_set_replace_all(f->db, f->set_id, -1, f->uid, &t, &e, &p, "clear", 0, &rev, NULL, err,
					    sizeof err), 0);
	job_init(&job, f, FS_AGENT_EDIT);
	job.cleanup_boundary = 0;
	cJSON *st = run_job(f, &job, &s, 0);
	assert_string_equal(jstr(st, "state"), "completed");
	assert_true(jnum(st, "tubercle_count") > 100);
	assert_int_equal((int)jnum(st, "initial_hexagonalness"), 0);
	cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(st, "action_summary"), 0);
	assert_string_equal(jstr(first, "action"), "run_extraction");
	cJSON_Delete(st);
	seen_free(&s);
}

static void edit_enforces_max_iterations(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	job_init(&job, f, FS_AGENT_EDIT);
	job.max_iterations = 2;
	job.plateau_iterations = 0;
	cJSON *st = run_job(f, &job, &s, 0);
	assert_string_equal(jstr(st, "finish_reason"), "max_iterations");
	assert_int_equal((int)jnum(st, "iteration"), 2);
	cJSON_Delete(st);
	seen_free(&s);
}

static void edit_user_stop_skips_finishing_steps(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {.stop_after_statuses = 1};
	job_init(&job, f, FS_AGENT_EDIT);
	cJSON *st = run_job(f, &job, &s, 0);
	assert_string_equal(jstr(st, "state"), "stopped");
	assert_string_equal(jstr(st, "finish_reason"), "user_stopped");
	/* the false positives are still there: nothing ran after the stop */
	assert_int_equal(count_near(f, 15, 100, 5), 1);
	cJSON_Delete(st);
	seen_free(&s);
}

static void edit_rejected_step_goes_back_and_run_continues(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {.reject_tool = "delete_tubercle"};
	job_init(&job, f, FS_AGENT_EDIT);
	job.approve_each_step = 1;
	job.cleanup_boundary = 0;
	cJSON *st = run_job(f, &job, &s, 0);
	assert_string_equal(jstr(st, "state"), "completed");
	assert_true(s.asked > 3);
	/* the rejected delete was not made and not proposed again; the other one was */
	assert_int_equal(count_near(f, 15, 100, 5) + count_near(f, 20, 260, 5), 1);
	assert_int_equal((int)jnum(st, "tubercles_deleted"), 1);
	cJSON_Delete(st);
	seen_free(&s);
}

/* issue 16 item 6: read-only tools run without asking (agent_no_approval_tools) */
static void edit_read_only_tools_need_no_approval(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	job_init(&job, f, FS_AGENT_EDIT);
	job.approve_each_step = 1;
	cJSON *st = run_job(f, &job, &s, 0);
	assert_true(s.asked > 0);
	assert_int_equal(s.asked_get, 0);
	cJSON_Delete(st);
	seen_free(&s);
	/* an empty list asks for everything */
	seen s2 = {0};
	snprintf(f->cfg.agent_no_approval_tools, sizeof f->cfg.agent_no_approval_tools, "%s", "");
	st = run_job(f, &job, &s2, 0);
	assert_true(s2.asked_get >= 2); /* get_screenshot, get_state */
	cJSON_Delete(st);
	seen_free(&s2);
	/* the run owner's setting (the Settings tab) wins over the server's list */
	char err[256];
	cJSON *patch = cJSON_Parse("{\"agent_no_approval_tools\": \"get_*\"}");
	assert_int_equal(fs_settings_put(f->db, f->uid, patch, err, sizeof err), 0);
	cJSON_Delete(patch);
	seen s3 = {0};
	st = run_job(f, &job, &s3, 0);
	assert_true(s3.asked > 0);
	assert_int_equal(s3.asked_get, 0);
	cJSON_Delete(st);
	seen_free(&s3);
	assert_true(fs_agent_tool_listed("get_*, select_tubercles", "get_state"));
	assert_true(fs_agent_tool_listed("get_*, select_tubercles", "select_tubercles"));
	assert_false(fs_agent_tool_listed("get_*, select_tubercles", "delete_tubercles"));
	assert_false(fs_agent_tool_listed("get_state", "get_statistics"));
}

static void edit_proposal_has_reasoning_and_image_position(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	job_init(&job, f, FS_AGENT_EDIT);
	job.approve_each_step = 1;
	cJSON *st = run_job(f, &job, &s, 0);
	cJSON *p = s.delete_proposal;
	assert_non_null(p);
	assert_string_equal(jstr(p, "tool"), "delete_tubercle");
	assert_non_null(cJSON_GetObjectItem(p, "arguments"));
	assert_true(strlen(jstr(p, "reasoning")) > 0);
	cJSON *pos = cJSON_GetObjectItem(cJSON_GetObjectItem(p, "preview"), "position");
	assert_non_null(pos);
	double x = jnum(pos, "x"), y = jnum(pos, "y");
	assert_true((fabs(x - 15) < 0.1 && fabs(y - 100) < 0.1) || (fabs(x - 20) < 0.1 && fabs(y - 260) < 0.1));
	cJSON_Delete(st);
	seen_free(&s);
}

static void edit_approval_timeout_stops_run(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {.approve_timeout = 1};
	job_init(&job, f, FS_AGENT_EDIT);
	job.approve_each_step = 1;
	cJSON *st = run_job(f, &job, &s, 0);
	/* the first call needing approval ends the run */
	assert_string_equal(jstr(st, "state"), "stopped");
	assert_string_equal(jstr(st, "finish_reason"), "approval_timeout");
	assert_int_equal(s.asked, 1);
	cJSON_Delete(st);
	seen_free(&s);
}

static void edit_status_lines_and_complete_event(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	job_init(&job, f, FS_AGENT_EDIT);
	cJSON *st = run_job(f, &job, &s, 0);
	assert_true(s.status_lines >= 3);
	assert_true(s.logs > s.status_lines);
	cJSON *c = history_event(f, "agent_complete");
	assert_non_null(c);
	assert_string_equal(jstr(c, "reason"), "finished");
	assert_non_null(cJSON_GetObjectItem(c, "result"));
	assert_non_null(cJSON_GetObjectItem(c, "llm"));
	assert_int_equal(history_count(f, "auto_connect"), 2); /* the agent's own and the final one */
	cJSON_Delete(c);
	cJSON_Delete(st);
	seen_free(&s);
}

/* ------------------------------------------------------------------ chat */

static void chat_deletes_isolated_and_replies(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	job_init(&job, f, FS_AGENT_CHAT);
	snprintf(job.instruction, sizeof job.instruction, "Please delete isolated tubercles");
	cJSON *st = run_job(f, &job, &s, 0);
	assert_string_equal(jstr(st, "state"), "completed");
	assert_int_equal(count_near(f, 15, 100, 5), 0);
	assert_int_equal(count_near(f, 20, 260, 5), 0);
	assert_non_null(strstr(jstr(st, "reply"), "Deleted 2"));
	assert_non_null(strstr(s.text, "Deleted 2"));
	/* the streamed turns keep their spacing */
	assert_non_null(strstr(s.text, "Working on it.\n\nDeleted 2"));
	cJSON *c = history_event(f, "agent_chat");
	assert_non_null(c);
	assert_string_equal(jstr(c, "instruction"), "Please delete isolated tubercles");
	assert_non_null(strstr(jstr(c, "reply"), "Deleted 2"));
	cJSON_Delete(c);
	cJSON_Delete(st);
	seen_free(&s);
}

static void chat_says_when_it_cannot(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	fs_set_info before, after;
	assert_int_equal(fs_set_get_info(f->db, f->set_id, &before), 0);
	job_init(&job, f, FS_AGENT_CHAT);
	snprintf(job.instruction, sizeof job.instruction, "Paint the scale purple");
	cJSON *st = run_job(f, &job, &s, 0);
	assert_non_null(strstr(jstr(st, "reply"), "did not understand \"paint\""));
	assert_non_null(strstr(jstr(st, "reply"), "nothing was changed"));
	assert_int_equal(fs_set_get_info(f->db, f->set_id, &after), 0);
	assert_int_equal(after.revision, before.revision);
	cJSON_Delete(st);
	seen_free(&s);
}

static void chat_fill_respects_max_tool_calls(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	fs_set_info before, after;
	assert_int_equal(fs_set_get_info(f->db, f->set_id, &before), 0);
	job_init(&job, f, FS_AGENT_CHAT);
	job.max_tool_calls = 3;
	snprintf(job.instruction, sizeof job.instruction, "fill the gaps");
	cJSON *st = run_job(f, &job, &s, 0);
	assert_int_equal(fs_set_get_info(f->db, f->set_id, &after), 0);
	assert_int_equal(after.n_tubercles - before.n_tubercles, 3);
	assert_non_null(strstr(jstr(st, "reply"), "limit"));
	cJSON_Delete(st);
	seen_free(&s);
}

static void chat_without_instruction_fails(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	job_init(&job, f, FS_AGENT_CHAT);
	fs_agent_env env;
	cJSON *st = NULL;
	char err[256] = "";
	env_init(&env, f, &s);
	assert_int_equal(fs_agent_job_run(&job, &env, &st, err, sizeof err), -1);
	assert_non_null(strstr(err, "instruction"));
	cJSON_Delete(st);
	seen_free(&s);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(optimize_local_runs_applies_best_and_never_repeats),
		T(optimize_writes_iteration_and_complete_events),
		T(optimize_stops_at_target),
		T(optimize_stops_on_plateau),
		T(optimize_user_stop_is_stopped_state),
		T(optimize_unknown_profile_fails),
		T(edit_local_fills_gaps_and_removes_false_positives),
		T(edit_journal_entries_carry_the_run_id),
		T(edit_cleanup_leaves_no_tubercle_below_two_neighbours),
		T(edit_stops_on_plateau),
		T(edit_enforces_max_iterations),
		T(edit_on_empty_set_starts_with_an_extraction),
		T(edit_user_stop_skips_finishing_steps),
		T(edit_rejected_step_goes_back_and_run_continues),
		T(edit_read_only_tools_need_no_approval),
		T(edit_proposal_has_reasoning_and_image_position),
		T(edit_approval_timeout_stops_run),
		T(edit_status_lines_and_complete_event),
		T(chat_deletes_isolated_and_replies),
		T(chat_says_when_it_cannot),
		T(chat_fill_respects_max_tool_calls),
		T(chat_without_instruction_fails),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
