/*
 * The agent loop end to end: the three wire formats (plain and streamed)
 * against the mock server with a screenshot tool, validation failures and
 * rejections returned to the model, limits, nudges and the text protocol,
 * critical tools, key redaction in step records, and the local provider.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/agent_loop.h"
#include "mock_provider/mock_client.h"

static mock_server M;
static const char *KEY = "sk-loop-KEY-9f8e7d6c5b4a";
static char PNG[600];   /* fake screenshot base64, long enough to be truncated in logs */

typedef struct ctx {
	int screenshots, points, finishes;
	int leak_key;       /* screenshot result quotes the key, as a buggy tool might */
	fs_buf steps;       /* every step JSON, one per line */
	int nsteps;
	int reject;         /* approval: 0 approve, 1 reject add_point, 2 time out */
	int asked;          /* approval requests seen */
} ctx;

static int tool_screenshot(const cJSON *args, fs_tool_output *out, void *user)
{
	(void)args;
	ctx *c = user;
	c->screenshots++;
	out->image_b64 = strdup(PNG);
	out->width = 640;
	out->height = 480;
	out->data = cJSON_CreateObject();
	cJSON_AddStringToObject(out->data, "note", c->leak_key ? KEY : "overlay on");
	return FS_TOOL_OK;
}

static int tool_add_point(const cJSON *args, fs_tool_output *out, void *user)
{
	ctx *c = user;
	c->points++;
	out->data = cJSON_CreateObject();
	cJSON_AddNumberToObject(out->data, "id", c->points);
	cJSON_AddNumberToObject(out->data, "x", cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(args, "x")));
	return FS_TOOL_OK;
}

static int tool_finish(const cJSON *args, fs_tool_output *out, void *user)
{
	(void)args, (void)out;
	((ctx *)user)->finishes++;
	return FS_TOOL_OK;
}

static int tool_explode(const cJSON *args, fs_tool_output *out, void *user)
{
	(void)args, (void)user;
	snprintf(out->error, sizeof(out->error), "database is gone");
	return FS_TOOL_CRITICAL;
}

static fs_tool_registry *registry(ctx *c, int with_finish)
{
	char err[256];
	fs_tool_registry *r = fs_tools_new();
	assert_int_equal(fs_tools_add(r, "screenshot", "Render the image with the overlay", NULL,
				      tool_screenshot, c, 0, err, sizeof(err)), 0);
	assert_int_equal(fs_tools_add(r, "add_point", "Add a point",
		"{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\",\"minimum\":0,\"maximum\":100},"
		"\"y\":{\"type\":\"number\",\"minimum\":0,\"maximum\":100}},\"required\":[\"x\",\"y\"]}",
		tool_add_point, c, 0, err, sizeof(err)), 0);
	assert_int_equal(fs_tools_add(r, "explode", "Fails badly", NULL, tool_explode, c, 0, err, sizeof(err)), 0);
	if (with_finish)
		assert_int_equal(fs_tools_add(r, "finish", "Done",
			"{\"type\":\"object\",\"properties\":{\"summary\":{\"type\":\"string\"}}}",
			tool_finish, c, FS_TOOL_FINISHING, err, sizeof(err)), 0);
	return r;
}

static void on_step(const cJSON *step, void *user)
{
	ctx *c = user;
	char *s = cJSON_PrintUnformatted(step);
	fs_buf_puts(&c->steps, s);
	fs_buf_putc(&c->steps, '\n');
	cJSON_free(s);
	c->nsteps++;
}

static fs_approval approve(const char *tool, const cJSON *args, char *reason, size_t n, void *user)
{
	(void)args;
	ctx *c = user;
	c->asked++;
	if (strcmp(tool, "add_point") || c->reject == 0)
		return FS_APPROVE;
	if (c->reject == 2)
		return FS_REJECT_TIMEOUT;
	snprintf(reason, n, "too close to the edge");
	return FS_REJECT;
}

static int setup(void **state)
{
	(void)state;
	memcpy(PNG, "iVBORw0KGgo", 11);
	for (size_t i = 11; i < sizeof(PNG) - 1; i++)
		PNG[i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[i % 64];
	PNG[sizeof(PNG) - 1] = 0;
	return mock_start(&M);
}

static int teardown(void **state)
{
	(void)state;
	mock_stop(&M);
	return 0;
}

static fs_llm *make(const char *provider, const char *model, int stream)
{
	char err[256];
	fs_llm_config c;
	fs_llm_config_default(&c);
	c.provider = provider;
	c.model = model;
	c.base_url = M.base;
	c.api_key = KEY;
	c.stream = stream;
	c.http.retry.base_ms = 1;
	c.http.retry.max_ms = 2;
	c.http.retry.max_attempts = 2;
	fs_llm *llm = fs_llm_new(&c, err, sizeof(err));
	if (!llm)
		fail_msg("%s", err);
	return llm;
}

typedef struct outcome {
	fs_agent_result res;
	cJSON *reqs;
	int rc;
} outcome;

static void run_script(ctx *c, fs_llm *llm, fs_tool_registry *reg, const char *script,
		       const fs_agent_limits *lim, const fs_prices *prices, outcome *o)
{
	fs_agent_hooks hooks = {.on_step = on_step, .approve = approve, .user = c};
	assert_int_equal(mock_script(&M, script), 0);
	o->rc = fs_agent_run(llm, reg, prices, "You are a test agent. Tools:\n", "Do the task.", lim, &hooks,
			     &o->res);
	o->reqs = mock_requests(&M);
}

static void outcome_free(outcome *o, ctx *c)
{
	fs_agent_result_free(&o->res);
	cJSON_Delete(o->reqs);
	fs_buf_free(&c->steps);
}

static cJSON *req_body(const outcome *o, int i)
{
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(o->reqs, i), "body");
}

static cJSON *path(cJSON *root, const char *p)
{
	/* tiny path walker: "messages.2.content.0" */
	char buf[256], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", p);
	for (char *t = strtok_r(buf, ".", &save); t && root; t = strtok_r(NULL, ".", &save)) {
		if (*t >= '0' && *t <= '9')
			root = cJSON_GetArrayItem(root, atoi(t));
		else
			root = cJSON_GetObjectItemCaseSensitive(root, t);
	}
	return root;
}

static const char *str_at(cJSON *root, const char *p)
{
	return cJSON_GetStringValue(path(root, p));
}

static const char *FULL_SCRIPT =
	"{\"responses\":["
	"{\"text\":\"Let me look.\",\"tool_calls\":[{\"id\":\"c1\",\"name\":\"screenshot\",\"arguments\":{}}],"
	" \"usage\":{\"input\":1000,\"output\":100},\"thought_signature\":\"sig\"},"
	"{\"tool_calls\":[{\"id\":\"c2\",\"name\":\"add_point\",\"arguments\":{\"x\":10,\"y\":20}}],"
	" \"usage\":{\"input\":2000,\"output\":50}},"
	"{\"tool_calls\":[{\"id\":\"c3\",\"name\":\"finish\",\"arguments\":{\"summary\":\"done\"}}],"
	" \"usage\":{\"input\":3000,\"output\":10}}]}";

static void full_loop(const char *provider, const char *model, int stream, outcome *o, ctx *c)
{
	fs_prices prices = {0};
	char err[256];
	assert_int_equal(fs_prices_load(&prices, "conf/prices.conf", err, sizeof(err)), 0);
	fs_tool_registry *reg = registry(c, 1);
	fs_llm *llm = make(provider, model, stream);
	run_script(c, llm, reg, FULL_SCRIPT, NULL, &prices, o);
	if (o->rc)
		fail_msg("%s: %s", provider, o->res.error);
	assert_string_equal(o->res.finish_reason, "finished");
	assert_string_equal(o->res.finished_by, "finish");
	assert_int_equal(o->res.llm_calls, 3);
	assert_int_equal(o->res.tool_calls, 3);
	assert_int_equal(o->res.in_tokens, 6000);
	assert_int_equal(o->res.out_tokens, 160);
	assert_int_equal(c->screenshots, 1);
	assert_int_equal(c->points, 1);
	assert_int_equal(c->finishes, 1);
	assert_int_equal(c->nsteps, 3);
	assert_int_equal(cJSON_GetArraySize(o->reqs), 3);
	fs_llm_free(llm);
	fs_tools_free(reg);
	fs_prices_free(&prices);
}

static void check_anthropic_screenshot(const outcome *o)
{
	cJSON *b = req_body(o, 1);
	assert_string_equal(str_at(b, "messages.1.content.1.type"), "tool_use");
	assert_string_equal(str_at(b, "messages.2.content.0.type"), "tool_result");
	assert_string_equal(str_at(b, "messages.2.content.0.tool_use_id"), "c1");
	assert_string_equal(str_at(b, "messages.2.content.0.content.0.type"), "image");
	assert_string_equal(str_at(b, "messages.2.content.0.content.0.source.media_type"), "image/png");
	assert_string_equal(str_at(b, "messages.2.content.0.content.0.source.data"), PNG);
	assert_non_null(strstr(str_at(b, "messages.2.content.0.content.1.text"), "\"success\":true"));
	assert_string_equal(str_at(b, "tools.0.name"), "screenshot");
	assert_non_null(path(b, "tools.1.input_schema.properties.x"));
}

static void full_loop_anthropic(void **state)
{
	(void)state;
	ctx c = {0};
	outcome o = {0};
	full_loop("anthropic", "claude-sonnet-4-20250514", 0, &o, &c);
	check_anthropic_screenshot(&o);
	/* 6000 in at $3/M + 160 out at $15/M */
	assert_true(fabs(o.res.cost_usd - (6000 * 3.0 + 160 * 15.0) / 1e6) < 1e-9);
	assert_true(fabs(o.res.last_step_cost_usd - (3000 * 3.0 + 10 * 15.0) / 1e6) < 1e-9);
	assert_int_equal(o.res.cost_estimated, 0);
	outcome_free(&o, &c);
}

static void full_loop_anthropic_streamed(void **state)
{
	(void)state;
	ctx c = {0};
	outcome o = {0};
	full_loop("anthropic", "claude-sonnet-4-20250514", 1, &o, &c);
	check_anthropic_screenshot(&o);
	assert_true(cJSON_IsTrue(path(req_body(&o, 0), "stream")));
	outcome_free(&o, &c);
}

static void check_openai_screenshot(const outcome *o)
{
	cJSON *b = req_body(o, 1);
	char url[700];
	assert_string_equal(str_at(b, "messages.0.role"), "system");
	assert_string_equal(str_at(b, "messages.2.role"), "assistant");
	assert_string_equal(str_at(b, "messages.2.tool_calls.0.function.name"), "screenshot");
	assert_string_equal(str_at(b, "messages.3.role"), "tool");
	assert_string_equal(str_at(b, "messages.3.tool_call_id"), "c1");
	/* the image follows the tool messages in a user message */
	assert_string_equal(str_at(b, "messages.4.role"), "user");
	snprintf(url, sizeof(url), "data:image/png;base64,%s", PNG);
	assert_string_equal(str_at(b, "messages.4.content.1.image_url.url"), url);
	assert_string_equal(str_at(b, "tools.1.type"), "function");
	assert_string_equal(str_at(b, "tools.1.function.name"), "add_point");
}

static void full_loop_openai(void **state)
{
	(void)state;
	ctx c = {0};
	outcome o = {0};
	full_loop("openrouter", "openai/gpt-4o-mini", 0, &o, &c);
	check_openai_screenshot(&o);
	assert_true(fabs(o.res.cost_usd - (6000 * 0.15 + 160 * 0.60) / 1e6) < 1e-9);
	outcome_free(&o, &c);
}

static void full_loop_openai_streamed(void **state)
{
	(void)state;
	ctx c = {0};
	outcome o = {0};
	full_loop("openai", "gpt-4o", 1, &o, &c);
	check_openai_screenshot(&o);
	assert_true(cJSON_IsTrue(path(req_body(&o, 0), "stream_options.include_usage")));
	outcome_free(&o, &c);
}

static void check_gemini_screenshot(const outcome *o)
{
	cJSON *b = req_body(o, 1);
	assert_string_equal(str_at(b, "contents.1.role"), "model");
	/* the model's content comes back verbatim, signature included */
	assert_string_equal(str_at(b, "contents.1.parts.1.thoughtSignature"), "sig-0");
	assert_string_equal(str_at(b, "contents.2.parts.0.functionResponse.name"), "screenshot");
	assert_true(cJSON_IsTrue(path(b, "contents.2.parts.0.functionResponse.response.success")));
	assert_string_equal(str_at(b, "contents.3.role"), "user");
	assert_string_equal(str_at(b, "contents.3.parts.1.inline_data.data"), PNG);
	assert_string_equal(str_at(b, "systemInstruction.parts.0.text"), "You are a test agent. Tools:\n");
	assert_string_equal(str_at(b, "tools.0.functionDeclarations.1.name"), "add_point");
}

static void full_loop_gemini(void **state)
{
	(void)state;
	ctx c = {0};
	outcome o = {0};
	full_loop("gemini", "gemini-2.0-flash", 0, &o, &c);
	check_gemini_screenshot(&o);
	assert_true(fabs(o.res.cost_usd - (6000 * 0.10 + 160 * 0.40) / 1e6) < 1e-9);
	outcome_free(&o, &c);
}

static void full_loop_gemini_streamed(void **state)
{
	(void)state;
	ctx c = {0};
	outcome o = {0};
	full_loop("gemini", "gemini-2.0-flash", 1, &o, &c);
	check_gemini_screenshot(&o);
	outcome_free(&o, &c);
}

static void steps_never_contain_the_key_or_full_base64(void **state)
{
	(void)state;
	ctx c = {.leak_key = 1};
	outcome o = {0};
	full_loop("anthropic", "claude-sonnet-4-20250514", 0, &o, &c);
	/* the key really did reach the model (the tool leaked it)... */
	char *sent = cJSON_PrintUnformatted(req_body(&o, 1));
	assert_non_null(strstr(sent, KEY));
	cJSON_free(sent);
	/* ...but not the step records */
	assert_null(strstr(c.steps.data, KEY));
	assert_non_null(strstr(c.steps.data, "[REDACTED]"));
	assert_null(strstr(c.steps.data, PNG));
	assert_non_null(strstr(c.steps.data, "bytes base64 truncated"));
	outcome_free(&o, &c);
}

static void step_records_usage_timing_and_tools(void **state)
{
	(void)state;
	ctx c = {0};
	outcome o = {0};
	full_loop("anthropic", "claude-sonnet-4-20250514", 0, &o, &c);
	char *first = strndup(c.steps.data, strcspn(c.steps.data, "\n"));
	cJSON *st = cJSON_Parse(first);
	free(first);
	assert_non_null(st);
	assert_int_equal(cJSON_GetNumberValue(path(st, "step")), 1);
	assert_int_equal(cJSON_GetNumberValue(path(st, "usage.input_tokens")), 1000);
	assert_non_null(path(st, "usage.step_cost_usd"));
	assert_non_null(path(st, "timing.llm_ms"));
	assert_non_null(path(st, "timing.tools_ms"));
	assert_string_equal(str_at(st, "response.text"), "Let me look.");
	assert_string_equal(str_at(st, "tools.0.name"), "screenshot");
	assert_true(cJSON_IsTrue(path(st, "tools.0.image")));
	assert_true(cJSON_IsTrue(path(st, "tools.0.result.success")));
	assert_non_null(path(st, "request.messages"));
	cJSON_Delete(st);
	outcome_free(&o, &c);
}

static void schema_failure_returns_error_to_model(void **state)
{
	(void)state;
	ctx c = {0};
	outcome o = {0};
	fs_tool_registry *reg = registry(&c, 1);
	fs_llm *llm = make("anthropic", NULL, 0);
	run_script(&c, llm, reg,
		   "{\"responses\":[{\"tool_calls\":[{\"id\":\"a\",\"name\":\"add_point\",\"arguments\":{\"x\":500,\"y\":1}}]},"
		   "{\"tool_calls\":[{\"id\":\"b\",\"name\":\"add_point\",\"arguments\":{\"x\":5,\"y\":1,\"z\":0}}]},"
		   "{\"tool_calls\":[{\"id\":\"c\",\"name\":\"finish\",\"arguments\":{}}]}]}", NULL, NULL, &o);
	assert_string_equal(o.res.finish_reason, "finished");
	assert_int_equal(c.points, 0);
	cJSON *b = req_body(&o, 1);
	assert_true(cJSON_IsTrue(path(b, "messages.2.content.0.is_error")));
	assert_non_null(strstr(str_at(b, "messages.2.content.0.content"), "$.x: 500 is above the maximum 100"));
	assert_non_null(strstr(str_at(req_body(&o, 2), "messages.4.content.0.content"), "unknown property 'z'"));
	outcome_free(&o, &c);
	fs_llm_free(llm);
	fs_tools_free(reg);
}

static void unknown_tool_returns_error_to_model(void **state)
{
	(void)state;
	ctx c = {0};
	outcome o = {0};
	fs_tool_registry *reg = registry(&c, 1);
	fs_llm *llm = make("openai", "m", 0);
	run_script(&c, llm, reg,
		   "{\"responses\":[{\"tool_calls\":[{\"id\":\"a\",\"name\":\"delete_all\",\"arguments\":{}}]},"
		   "{\"tool_calls\":[{\"id\":\"c\",\"name\":\"finish\",\"arguments\":{}}]}]}", NULL, NULL, &o);
	assert_string_equal(o.res.finish_reason, "finished");
	assert_non_null(strstr(str_at(req_body(&o, 1), "messages.3.content"), "unknown tool 'delete_all'"));
	outcome_free(&o, &c);
	fs_llm_free(llm);
	fs_tools_free(reg);
}

static const char *FOUR_POINTS =
	"{\"responses\":["
	"{\"tool_calls\":[{\"name\":\"add_point\",\"arguments\":{\"x\":1,\"y\":1}}],\"usage\":{\"input\":1000000,\"output\":0}},"
	"{\"tool_calls\":[{\"name\":\"add_point\",\"arguments\":{\"x\":2,\"y\":1}}],\"usage\":{\"input\":1000000,\"output\":0}},"
	"{\"tool_calls\":[{\"name\":\"add_point\",\"arguments\":{\"x\":3,\"y\":1}}],\"usage\":{\"input\":1000000,\"output\":0}},"
	"{\"tool_calls\":[{\"name\":\"add_point\",\"arguments\":{\"x\":4,\"y\":1}}],\"usage\":{\"input\":1000000,\"output\":0}}]}";

static void limit_run(const fs_agent_limits *lim, const char *script, outcome *o, ctx *c)
{
	fs_prices prices = {0};
	char err[256];
	assert_int_equal(fs_prices_parse(&prices, "anthropic claude-sonnet-4-20250514 3 15\n", err, sizeof(err)), 0);
	fs_tool_registry *reg = registry(c, 1);
	fs_llm *llm = make("anthropic", NULL, 0);
	run_script(c, llm, reg, script, lim, &prices, o);
	fs_llm_free(llm);
	fs_tools_free(reg);
	fs_prices_free(&prices);
}

static void max_llm_calls_stops_run(void **state)
{
	(void)state;
	ctx c = {0};
	outcome o = {0};
	fs_agent_limits lim;
	fs_agent_limits_default(&lim);
	lim.max_cost_usd = 0;
	lim.max_llm_calls = 2;
	limit_run(&lim, FOUR_POINTS, &o, &c);
	assert_string_equal(o.res.finish_reason, "max_llm_calls");
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.res.llm_calls, 2);
	assert_int_equal(c.points, 2);
	outcome_free(&o, &c);
}

static void max_tool_calls_stops_run(void **state)
{
	(void)state;
	ctx c = {0};
	outcome o = {0};
	fs_agent_limits lim;
	fs_agent_limits_default(&lim);
	lim.max_tool_calls = 2;
	limit_run(&lim, "{\"responses\":[{\"tool_calls\":[{\"name\":\"add_point\",\"arguments\":{\"x\":1,\"y\":1}},"
		  "{\"name\":\"add_point\",\"arguments\":{\"x\":2,\"y\":1}},"
		  "{\"name\":\"add_point\",\"arguments\":{\"x\":3,\"y\":1}}]}]}", &o, &c);
	assert_string_equal(o.res.finish_reason, "max_tool_calls");
	assert_int_equal(c.points, 2);
	outcome_free(&o, &c);
}

static void max_cost_stops_run(void **state)
{
	(void)state;
	ctx c = {0};
	outcome o = {0};
	fs_agent_limits lim;
	fs_agent_limits_default(&lim);
	lim.max_cost_usd = 5.0; /* each step costs $3 */
	limit_run(&lim, FOUR_POINTS, &o, &c);
	assert_string_equal(o.res.finish_reason, "max_cost");
	/* the second call's worst case ($3 of input at least, plus max_tokens)
	 * would pass the limit: it is not made (issue 16) */
	assert_int_equal(o.res.llm_calls, 1);
	assert_true(fabs(o.res.cost_usd - 3.0) < 1e-9);
	assert_true(o.res.cost_usd <= lim.max_cost_usd);
	outcome_free(&o, &c);
}

static void max_tokens_stops_run(void **state)
{
	(void)state;
	ctx c = {0};
	outcome o = {0};
	fs_agent_limits lim;
	fs_agent_limits_default(&lim);
	lim.max_cost_usd = 0;
	lim.max_tokens = 2500000;
	limit_run(&lim, FOUR_POINTS, &o, &c);
	assert_string_equal(o.res.finish_reason, "max_tokens");
	assert_int_equal(o.res.llm_calls, 3);
	outcome_free(&o, &c);
}

static void wall_clock_timeout_stops_run(void **state)
{
	(void)state;
	ctx c = {0};
	outcome o = {0};
	fs_agent_limits lim;
	fs_agent_limits_default(&lim);
	lim.timeout_s = 0.4;
	/* the limit ends the model call under way: the slow reply (30 s, far
	 * beyond any pause of a loaded machine) never arrives. Asserted by
	 * what the run received, not by its wall time (a bound of 1.5 s is
	 * load-dependent, docs/paper-figures.md h36a) */
	limit_run(&lim, "{\"responses\":[{\"delay_ms\":30000,\"text\":\"slow\"}]}", &o, &c);
	assert_string_equal(o.res.finish_reason, "timeout");
	assert_int_equal(o.res.llm_calls, 1);
	assert_null(o.res.final_text);
	outcome_free(&o, &c);
}

static int always_cancel(void *user)
{
	(void)user;
	return 1;
}

static void cancel_hook_stops_run(void **state)
{
	(void)state;
	ctx c = {0};
	fs_agent_result res;
	fs_tool_registry *reg = registry(&c, 1);
	fs_llm *llm = make("anthropic", NULL, 0);
	fs_agent_hooks hooks = {.cancel = always_cancel};
	assert_int_equal(fs_agent_run(llm, reg, NULL, "s", "u", NULL, &hooks, &res), 0);
	assert_string_equal(res.finish_reason, "cancelled");
	assert_int_equal(res.llm_calls, 0);
	fs_agent_result_free(&res);
	fs_llm_free(llm);
	fs_tools_free(reg);
}

static void approval_reject_goes_back_as_error(void **state)
{
	(void)state;
	ctx c = {.reject = 1};
	outcome o = {0};
	fs_tool_registry *reg = registry(&c, 1);
	fs_llm *llm = make("anthropic", NULL, 0);
	run_script(&c, llm, reg,
		   "{\"responses\":[{\"tool_calls\":[{\"id\":\"a\",\"name\":\"add_point\",\"arguments\":{\"x\":5,\"y\":1}}]},"
		   "{\"tool_calls\":[{\"id\":\"c\",\"name\":\"finish\",\"arguments\":{}}]}]}", NULL, NULL, &o);
	assert_string_equal(o.res.finish_reason, "finished");
	assert_int_equal(c.points, 0);
	cJSON *b = req_body(&o, 1);
	assert_true(cJSON_IsTrue(path(b, "messages.2.content.0.is_error")));
	assert_non_null(strstr(str_at(b, "messages.2.content.0.content"), "rejected by the user: too close to the edge"));
	outcome_free(&o, &c);
	fs_llm_free(llm);
	fs_tools_free(reg);
}

static void approval_is_not_asked_for_invalid_calls(void **state)
{
	(void)state;
	ctx c = {.reject = 1};
	outcome o = {0};
	fs_tool_registry *reg = registry(&c, 1);
	fs_llm *llm = make("anthropic", NULL, 0);
	run_script(&c, llm, reg,
		   "{\"responses\":[{\"tool_calls\":[{\"id\":\"a\",\"name\":\"add_point\",\"arguments\":{\"x\":-5,\"y\":1}}]},"
		   "{\"tool_calls\":[{\"id\":\"c\",\"name\":\"finish\",\"arguments\":{}}]}]}", NULL, NULL, &o);
	assert_string_equal(o.res.finish_reason, "finished");
	assert_int_equal(c.asked, 1); /* only finish was put to the user */
	assert_non_null(strstr(str_at(req_body(&o, 1), "messages.2.content.0.content"), "below the minimum"));
	outcome_free(&o, &c);
	fs_llm_free(llm);
	fs_tools_free(reg);
}

static void approval_timeout_ends_run(void **state)
{
	(void)state;
	ctx c = {.reject = 2};
	outcome o = {0};
	fs_tool_registry *reg = registry(&c, 1);
	fs_llm *llm = make("anthropic", NULL, 0);
	run_script(&c, llm, reg,
		   "{\"responses\":[{\"tool_calls\":[{\"id\":\"a\",\"name\":\"add_point\",\"arguments\":{\"x\":5,\"y\":1}}]}]}",
		   NULL, NULL, &o);
	assert_string_equal(o.res.finish_reason, "rejected_timeout");
	assert_int_equal(c.points, 0);
	outcome_free(&o, &c);
	fs_llm_free(llm);
	fs_tools_free(reg);
}

static void prose_is_nudged_then_text_protocol_is_parsed(void **state)
{
	(void)state;
	ctx c = {0};
	outcome o = {0};
	fs_tool_registry *reg = registry(&c, 1);
	fs_llm *llm = make("openai", "m", 0);
	run_script(&c, llm, reg,
		   "{\"responses\":[{\"text\":\"I would add a point at 3,4. Shall I proceed?\"},"
		   "{\"text\":\"TOOL_CALL: add_point\\nPARAMETERS: {\\\"x\\\": 3, \\\"y\\\": 4}\"},"
		   "{\"text\":\"```json\\n{\\\"tool\\\": \\\"finish\\\", \\\"parameters\\\": {}}\\n```\"}]}",
		   NULL, NULL, &o);
	assert_string_equal(o.res.finish_reason, "finished");
	assert_int_equal(c.points, 1);
	assert_non_null(strstr(str_at(req_body(&o, 1), "messages.3.content"), "did not call a tool"));
	assert_non_null(strstr(str_at(req_body(&o, 2), "messages.5.content"), "Result of add_point:"));
	outcome_free(&o, &c);
	fs_llm_free(llm);
	fs_tools_free(reg);
}

static void prose_after_two_nudges_ends_with_no_tool_call(void **state)
{
	(void)state;
	ctx c = {0};
	outcome o = {0};
	fs_tool_registry *reg = registry(&c, 1);
	fs_llm *llm = make("gemini", NULL, 0);
	run_script(&c, llm, reg,
		   "{\"responses\":[{\"text\":\"Should I start?\"},{\"text\":\"Let me know.\"},"
		   "{\"text\":\"Do you want me to continue?\"},{\"text\":\"never asked\"}]}", NULL, NULL, &o);
	assert_string_equal(o.res.finish_reason, "no_tool_call");
	assert_int_equal(o.res.llm_calls, 3);
	assert_string_equal(o.res.final_text, "Do you want me to continue?");
	outcome_free(&o, &c);
	fs_llm_free(llm);
	fs_tools_free(reg);
}

static void end_turn_without_finishing_tool(void **state)
{
	(void)state;
	ctx c = {0};
	outcome o = {0};
	fs_tool_registry *reg = registry(&c, 0);
	fs_llm *llm = make("anthropic", NULL, 0);
	run_script(&c, llm, reg, "{\"responses\":[{\"text\":\"All done, nothing to change.\"}]}", NULL, NULL, &o);
	assert_string_equal(o.res.finish_reason, "end_turn");
	assert_string_equal(o.res.final_text, "All done, nothing to change.");
	outcome_free(&o, &c);
	fs_llm_free(llm);
	fs_tools_free(reg);
}

static void critical_tool_failure_stops_run(void **state)
{
	(void)state;
	ctx c = {0};
	outcome o = {0};
	fs_tool_registry *reg = registry(&c, 1);
	fs_llm *llm = make("anthropic", NULL, 0);
	run_script(&c, llm, reg,
		   "{\"responses\":[{\"tool_calls\":[{\"name\":\"explode\",\"arguments\":{}},"
		   "{\"name\":\"add_point\",\"arguments\":{\"x\":1,\"y\":1}}]}]}", NULL, NULL, &o);
	assert_int_equal(o.rc, -1);
	assert_string_equal(o.res.finish_reason, "error");
	assert_string_equal(o.res.error_kind, "tool");
	assert_string_equal(o.res.error, "explode: database is gone");
	assert_int_equal(c.points, 0);
	outcome_free(&o, &c);
	fs_llm_free(llm);
	fs_tools_free(reg);
}

static void provider_auth_error_ends_run_with_its_message(void **state)
{
	(void)state;
	ctx c = {0};
	outcome o = {0};
	fs_tool_registry *reg = registry(&c, 1);
	fs_llm *llm = make("openrouter", NULL, 0);
	run_script(&c, llm, reg, "{\"responses\":[{\"status\":401,\"message\":\"No auth credentials found\"}]}",
		   NULL, NULL, &o);
	assert_string_equal(o.res.finish_reason, "error");
	assert_string_equal(o.res.error_kind, "auth");
	assert_string_equal(o.res.error, "HTTP 401: No auth credentials found");
	assert_int_equal(c.nsteps, 1);
	assert_non_null(strstr(c.steps.data, "No auth credentials found"));
	outcome_free(&o, &c);
	fs_llm_free(llm);
	fs_tools_free(reg);
}

/* A scripted local policy: bad call, then the corrected call, then finish. */
static int policy(const fs_conv *conv, const cJSON *tools, fs_llm_reply *out, void *user,
		  char *err, size_t errlen)
{
	(void)tools, (void)err, (void)errlen;
	int *turns = user;
	const fs_msg *last = &conv->msgs[conv->n - 1];
	(*turns)++;
	if (*turns == 1)
		return fs_llm_reply_add_call(out, "l1", "add_point", cJSON_Parse("{\"x\":-1,\"y\":0}"), NULL);
	if (*turns == 2) {
		/* it sees its own mistake as an error result */
		if (last->n != 1 || last->parts[0].kind != FS_PART_TOOL_RESULT || !last->parts[0].is_error)
			return -1;
		return fs_llm_reply_add_call(out, "l2", "add_point", cJSON_Parse("{\"x\":1,\"y\":0}"), NULL);
	}
	return fs_llm_reply_add_call(out, "l3", "finish", NULL, NULL);
}

static void local_provider_runs_through_the_same_loop(void **state)
{
	(void)state;
	ctx c = {0};
	int turns = 0;
	char err[256];
	fs_agent_result res;
	fs_tool_registry *reg = registry(&c, 1);
	fs_llm *llm = fs_llm_new_local("scripted", policy, &turns, err, sizeof(err));
	fs_agent_hooks hooks = {.on_step = on_step, .user = &c};
	assert_non_null(llm);
	assert_int_equal(fs_agent_run(llm, reg, NULL, "s", "u", NULL, &hooks, &res), 0);
	assert_string_equal(res.finish_reason, "finished");
	assert_int_equal(res.llm_calls, 3);
	assert_int_equal(c.points, 1);
	assert_true(res.cost_usd == 0.0);
	assert_int_equal(c.nsteps, 3);
	assert_non_null(strstr(c.steps.data, "\"provider\":\"local\""));
	assert_non_null(strstr(c.steps.data, "below the minimum"));
	fs_agent_result_free(&res);
	fs_buf_free(&c.steps);
	fs_llm_free(llm);
	fs_tools_free(reg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(full_loop_anthropic),
		cmocka_unit_test(full_loop_anthropic_streamed),
		cmocka_unit_test(full_loop_openai),
		cmocka_unit_test(full_loop_openai_streamed),
		cmocka_unit_test(full_loop_gemini),
		cmocka_unit_test(full_loop_gemini_streamed),
		cmocka_unit_test(steps_never_contain_the_key_or_full_base64),
		cmocka_unit_test(step_records_usage_timing_and_tools),
		cmocka_unit_test(schema_failure_returns_error_to_model),
		cmocka_unit_test(unknown_tool_returns_error_to_model),
		cmocka_unit_test(max_llm_calls_stops_run),
		cmocka_unit_test(max_tool_calls_stops_run),
		cmocka_unit_test(max_cost_stops_run),
		cmocka_unit_test(max_tokens_stops_run),
		cmocka_unit_test(wall_clock_timeout_stops_run),
		cmocka_unit_test(cancel_hook_stops_run),
		cmocka_unit_test(approval_reject_goes_back_as_error),
		cmocka_unit_test(approval_is_not_asked_for_invalid_calls),
		cmocka_unit_test(approval_timeout_ends_run),
		cmocka_unit_test(prose_is_nudged_then_text_protocol_is_parsed),
		cmocka_unit_test(prose_after_two_nudges_ends_with_no_tool_call),
		cmocka_unit_test(end_turn_without_finishing_tool),
		cmocka_unit_test(critical_tool_failure_stops_run),
		cmocka_unit_test(provider_auth_error_ends_run_with_its_message),
		cmocka_unit_test(local_provider_runs_through_the_same_loop),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
