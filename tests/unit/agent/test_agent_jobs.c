/* Unit tests of fs_agent_job_run with a real provider wire against the mock
 * server (tests/mock_provider): cost limit, provider failure reported as
 * failed, usage and sanitised prompt in the status, approval with a remote
 * model, job defaults. */
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
#include "synth.h"
#include "store/users.h"

#include "mock_provider/mock_client.h"
#define FX_NAME "jobs"
#include "agent_fixture.h"

#define KEY "sk-test-agent-jobs-0123456789"

static mock_server M;

static int group_setup(void **state)
{
	(void)state;
	setenv("FS_TEST_AGENT_JOBS_KEY", KEY, 1);
	return mock_start(&M);
}

static int group_teardown(void **state)
{
	(void)state;
	mock_stop(&M);
	return 0;
}

static cJSON *run_remote(fx *f, fs_agent_job *job, seen *s, const char *script, int expect_rc, char *err,
			 size_t errlen)
{
	fs_agent_env env;
	cJSON *st = NULL;
	snprintf(f->cfg.anthropic_base_url, sizeof f->cfg.anthropic_base_url, "%s", M.base);
	snprintf(f->cfg.anthropic_key_env, sizeof f->cfg.anthropic_key_env, "FS_TEST_AGENT_JOBS_KEY");
	snprintf(job->provider, sizeof job->provider, "anthropic");
	snprintf(job->model, sizeof job->model, "claude-test");
	assert_int_equal(mock_script(&M, script), 0);
	env_init(&env, f, s);
	env.on_text = NULL; /* not streamed: the mock's plain responses */
	int rc = fs_agent_job_run(job, &env, &st, err, errlen);
	if (rc != expect_rc)
		fail_msg("rc %d (%s)", rc, err);
	assert_non_null(st);
	return st;
}

static const char FOUR_STATES[] =
	"{\"responses\":["
	"{\"text\":\"Looking.\",\"tool_calls\":[{\"id\":\"c1\",\"name\":\"get_state\",\"arguments\":{}}],"
	"\"usage\":{\"input\":100000,\"output\":1000}},"
	"{\"tool_calls\":[{\"id\":\"c2\",\"name\":\"get_state\",\"arguments\":{}}],"
	"\"usage\":{\"input\":100000,\"output\":1000}},"
	"{\"tool_calls\":[{\"id\":\"c3\",\"name\":\"get_state\",\"arguments\":{}}],"
	"\"usage\":{\"input\":100000,\"output\":1000}},"
	"{\"tool_calls\":[{\"id\":\"c4\",\"name\":\"finish\",\"arguments\":{\"reason\":\"done\"}}],"
	"\"usage\":{\"input\":100000,\"output\":1000}}]}";

static void cost_limit_stops_the_run(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	char err[256] = "";
	job_init(&job, f, FS_AGENT_EDIT);
	job.plateau_iterations = 0;
	job.max_cost_usd = 0.5; /* each step costs 0.315 at the fallback price */
	cJSON *st = run_remote(f, &job, &s, FOUR_STATES, 0, err, sizeof err);
	assert_string_equal(jstr(st, "finish_reason"), "max_cost");
	assert_string_equal(jstr(st, "state"), "completed");
	cJSON *u = cJSON_GetObjectItem(st, "usage");
	/* the second call's worst case (0.315 of input at least) would pass
	 * the limit: it is checked before the call and not made (issue 16) */
	assert_int_equal((int)jnum(u, "input_tokens"), 100000);
	assert_true(fabs(jnum(u, "cost_usd") - 0.315) < 1e-6);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(u, "cost_estimated")));
	assert_int_equal((int)jnum(st, "llm_calls"), 1);
	cJSON_Delete(st);
	seen_free(&s);
}

static void status_has_sanitised_prompt_and_response(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	char err[256] = "";
	job_init(&job, f, FS_AGENT_EDIT);
	job.plateau_iterations = 0;
	cJSON *st = run_remote(f, &job, &s, FOUR_STATES, 0, err, sizeof err);
	assert_string_equal(jstr(st, "finish_reason"), "finished");
	const char *p = jstr(st, "last_prompt"), *r = jstr(st, "last_response");
	assert_true(strlen(p) > 100);
	assert_non_null(strstr(r, "finish"));
	assert_null(strstr(p, KEY));
	assert_null(strstr(r, KEY));
	char *all = cJSON_PrintUnformatted(st);
	assert_null(strstr(all, KEY));
	free(all);
	/* the model's request carried the filled system prompt: no {placeholder} left */
	cJSON *reqs = mock_requests(&M);
	char *b = cJSON_PrintUnformatted(cJSON_GetObjectItem(cJSON_GetArrayItem(reqs, 0), "body"));
	assert_non_null(b);
	assert_non_null(strstr(b, "synthetic.png"));
	assert_null(strstr(b, "{plateau_threshold}"));
	assert_null(strstr(b, "{image_name}"));
	free(b);
	cJSON_Delete(reqs);
	cJSON_Delete(st);
	seen_free(&s);
}

static void provider_failure_is_failed_not_completed(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {0};
	char err[256] = "";
	job_init(&job, f, FS_AGENT_OPTIMIZE);
	cJSON *st = run_remote(f, &job, &s, "{\"responses\":[{\"status\":401,\"message\":\"invalid x-api-key\"}]}", -1,
			       err, sizeof err);
	assert_string_equal(jstr(st, "state"), "failed");
	assert_string_equal(jstr(st, "finish_reason"), "error");
	assert_true(strlen(jstr(st, "error")) > 0);
	assert_true(strlen(err) > 0);
	cJSON *c = history_event(f, "agent_complete");
	assert_non_null(c);
	assert_string_equal(jstr(c, "reason"), "error");
	cJSON_Delete(c);
	cJSON_Delete(st);
	seen_free(&s);
}

static void remote_rejection_reaches_the_model_as_error(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	seen s = {.reject_tool = "add_tubercle"};
	char err[256] = "";
	job_init(&job, f, FS_AGENT_EDIT);
	job.approve_each_step = 1;
	job.plateau_iterations = 0;
	const char *script =
		"{\"responses\":["
		"{\"text\":\"A gap at 300,200.\",\"tool_calls\":[{\"id\":\"a1\",\"name\":\"add_tubercle\","
		"\"arguments\":{\"x\":300,\"y\":200}}]},"
		"{\"tool_calls\":[{\"id\":\"a2\",\"name\":\"finish\",\"arguments\":{\"reason\":\"ok\"}}]}]}";
	fs_set_info before;
	assert_int_equal(fs_set_get_info(f->db, f->set_id, &before), 0);
	cJSON *st = run_remote(f, &job, &s, script, 0, err, sizeof err);
	assert_string_equal(jstr(st, "finish_reason"), "finished");
	cJSON *p = s.first_proposal;
	assert_string_equal(jstr(p, "tool"), "add_tubercle");
	assert_string_equal(jstr(p, "reasoning"), "A gap at 300,200.");
	cJSON *pos = cJSON_GetObjectItem(cJSON_GetObjectItem(p, "preview"), "position");
	assert_true(fabs(jnum(pos, "x") - 300) < 1e-9);
	/* the second request carries the rejection as an error result */
	cJSON *reqs = mock_requests(&M);
	char *body = cJSON_PrintUnformatted(cJSON_GetObjectItem(cJSON_GetArrayItem(reqs, 1), "body"));
	assert_non_null(body);
	assert_non_null(strstr(body, "rejected by the user: not there"));
	assert_non_null(strstr(body, "\"is_error\":true"));
	free(body);
	cJSON_Delete(reqs);
	assert_int_equal((int)jnum(st, "tubercles_added"), 0);
	cJSON_Delete(st);
	seen_free(&s);
}

static void job_defaults_follow_the_seeds(void **state)
{
	(void)state;
	fs_agent_job j;
	fs_agent_job_default(&j, FS_AGENT_EDIT);
	assert_int_equal(j.max_iterations, 30);
	assert_int_equal(j.plateau_iterations, 3);
	assert_true(j.auto_connect);
	assert_string_equal(j.auto_connect_method, "gabriel");
	assert_true(j.cleanup_boundary);
	assert_int_equal(j.max_tool_calls, 20);
	assert_string_equal(j.provider, "local");
	fs_agent_job_default(&j, FS_AGENT_OPTIMIZE);
	assert_true(fabs(j.target_score - 0.85) < 1e-12);
	assert_int_equal(j.plateau_iterations, 5);
}

static void unknown_kind_is_refused(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	fs_agent_env env;
	seen s = {0};
	cJSON *st = NULL;
	char err[256] = "";
	job_init(&job, f, FS_AGENT_EDIT);
	job.kind = (fs_agent_kind)9;
	env_init(&env, f, &s);
	assert_int_equal(fs_agent_job_run(&job, &env, &st, err, sizeof err), -1);
	assert_non_null(strstr(err, "kind"));
	cJSON_Delete(st);
	seen_free(&s);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(cost_limit_stops_the_run),
		T(status_has_sanitised_prompt_and_response),
		T(provider_failure_is_failed_not_completed),
		T(remote_rejection_reaches_the_model_as_error),
		cmocka_unit_test(job_defaults_follow_the_seeds),
		T(unknown_kind_is_refused),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
