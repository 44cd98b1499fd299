/*
 * bench_agent_loop - agent loop overhead per step, the model's own time
 * excluded: building and serialising the request with a 1 MB base64
 * screenshot for each wire format, parsing a reply, validating arguments,
 * sanitising the step record, and a whole loop step through the local
 * provider. Prints "name: value unit (target ...)" lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_loop.h"
#include "agent/json_schema.h"
#include "agent/llm_keys.h"
#include "agent/llm_wire.h"
#include "bench_support.h"

#define IMAGE_BYTES (1u << 20)
#define REPS 20

static char *image;

static const char *SCHEMA =
	"{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\",\"minimum\":0,\"maximum\":4096},"
	"\"y\":{\"type\":\"number\",\"minimum\":0,\"maximum\":4096},\"radius\":{\"type\":\"number\",\"minimum\":1}},"
	"\"required\":[\"x\",\"y\"]}";

static int screenshot(const cJSON *args, fs_tool_output *out, void *user)
{
	(void)args, (void)user;
	out->image_b64 = strdup(image);
	out->width = 1024;
	out->height = 768;
	return out->image_b64 ? FS_TOOL_OK : FS_TOOL_ERROR;
}

static int add_point(const cJSON *args, fs_tool_output *out, void *user)
{
	(void)args, (void)user;
	out->data = cJSON_CreateObject();
	return FS_TOOL_OK;
}

static int policy(const fs_conv *conv, const cJSON *tools, fs_llm_reply *out, void *user, char *err, size_t errlen)
{
	(void)conv, (void)tools, (void)err, (void)errlen;
	int *n = user;
	(*n)++;
	if (*n % 2)
		return fs_llm_reply_add_call(out, "s", "screenshot", NULL, NULL);
	return fs_llm_reply_add_call(out, "a", "add_point", cJSON_Parse("{\"x\":10,\"y\":20,\"radius\":3}"), NULL);
}

static void build_conv(fs_conv *c)
{
	fs_conv_init(c);
	fs_conv_set_system(c, "You are a tubercle annotation agent.");
	fs_msg_add_text(fs_conv_add(c, FS_ROLE_USER), "Improve the annotation.");
	fs_msg *a = fs_conv_add(c, FS_ROLE_ASSISTANT);
	fs_msg_add_tool_call(a, "c1", "screenshot", NULL);
	fs_msg_add_tool_result(fs_conv_add(c, FS_ROLE_USER), "c1", "screenshot",
			       "{\"success\":true,\"data\":{\"image_width\":1024}}", 0, image, "image/png");
}

int main(void)
{
	char err[256];
	image = malloc(IMAGE_BYTES + 1);
	if (!image)
		return 1;
	for (size_t i = 0; i < IMAGE_BYTES; i++)
		image[i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[(i * 7) % 64];
	image[IMAGE_BYTES] = 0;

	cJSON *tools = cJSON_Parse("[{\"name\":\"add_point\",\"description\":\"d\",\"parameters\":{\"type\":\"object\"}}]");
	fs_conv conv;
	build_conv(&conv);
	for (int w = 0; w < 3; w++) {
		fs_wire_opts o = {.model = "m", .max_tokens = 4096};
		double best = 1e9;
		size_t bytes = 0;
		for (int i = 0; i < REPS; i++) {
			double t0 = bench_now_ms();
			cJSON *req = fs_wire_build((fs_wire)w, &o, &conv, tools);
			char *s = fs_wire_serialize(req, &bytes);
			free(s);
			cJSON_Delete(req);
			if (bench_now_ms() - t0 < best)
				best = bench_now_ms() - t0;
		}
		printf("request_build_%s_1MB_image: %.3f ms (best of %d, %zu bytes)\n",
		       fs_wire_name((fs_wire)w), best, REPS, bytes);
	}
	{
		fs_wire_opts o = {.model = "m", .max_tokens = 4096};
		cJSON *req = fs_wire_build(FS_WIRE_ANTHROPIC, &o, &conv, tools);
		const char *sec[] = {"sk-ant-secret-key", NULL};
		double best = 1e9;
		for (int i = 0; i < REPS; i++) {
			double t0 = bench_now_ms();
			cJSON_Delete(fs_llm_sanitize(req, sec));
			if (bench_now_ms() - t0 < best)
				best = bench_now_ms() - t0;
		}
		printf("step_record_sanitize_1MB_image: %.3f ms (best of %d)\n", best, REPS);
		cJSON_Delete(req);
	}
	{
		const char *resp =
			"{\"content\":[{\"type\":\"text\",\"text\":\"Adding a tubercle.\"},{\"type\":\"tool_use\","
			"\"id\":\"toolu_1\",\"name\":\"add_point\",\"input\":{\"x\":10,\"y\":20,\"radius\":3}}],"
			"\"stop_reason\":\"tool_use\",\"usage\":{\"input_tokens\":1500,\"output_tokens\":40}}";
		double t0 = bench_now_ms();
		for (int i = 0; i < 1000; i++) {
			fs_llm_reply r = {0};
			cJSON *j = cJSON_Parse(resp);
			fs_anthropic_parse(j, &r, err, sizeof(err));
			cJSON_Delete(j);
			fs_llm_reply_free(&r);
		}
		printf("response_parse: %.4f ms\n", (bench_now_ms() - t0) / 1000);
	}
	{
		cJSON *s = cJSON_Parse(SCHEMA), *a = cJSON_Parse("{\"x\":10,\"y\":20,\"radius\":3}");
		double t0 = bench_now_ms();
		for (int i = 0; i < 10000; i++)
			fs_schema_validate(s, a, err, sizeof(err));
		printf("argument_validation: %.5f ms\n", (bench_now_ms() - t0) / 10000);
		cJSON_Delete(s);
		cJSON_Delete(a);
	}
	{
		int turns = 0;
		fs_tool_registry *reg = fs_tools_new();
		fs_tools_add(reg, "screenshot", "Screenshot", NULL, screenshot, NULL, 0, err, sizeof(err));
		fs_tools_add(reg, "add_point", "Add", SCHEMA, add_point, NULL, 0, err, sizeof(err));
		fs_llm *llm = fs_llm_new_local("bench", policy, &turns, err, sizeof(err));
		fs_agent_limits lim;
		fs_agent_limits_default(&lim);
		lim.max_llm_calls = 40;
		fs_agent_result res;
		double t0 = bench_now_ms();
		fs_agent_run(llm, reg, NULL, "s", "u", &lim, NULL, &res);
		double dt = bench_now_ms() - t0;
		printf("local_loop_step (tool + result + prune, 1MB screenshot every 2nd step): %.3f ms "
		       "(%d steps, %s)\n", dt / res.llm_calls, res.llm_calls, res.finish_reason);
		fs_agent_result_free(&res);
		fs_llm_free(llm);
		fs_tools_free(reg);
	}
	{
		/* one step as the loop does it around an HTTP provider, minus the network */
		const char *resp =
			"{\"content\":[{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"add_point\","
			"\"input\":{\"x\":10,\"y\":20}}],\"stop_reason\":\"tool_use\"}";
		const char *sec[] = {"sk-ant-secret-key", NULL};
		cJSON *schema = cJSON_Parse(SCHEMA);
		fs_wire_opts o = {.model = "m", .max_tokens = 4096};
		double best = 1e9;
		for (int i = 0; i < REPS; i++) {
			double t0 = bench_now_ms();
			size_t n;
			cJSON *req = fs_wire_build(FS_WIRE_ANTHROPIC, &o, &conv, tools);
			free(fs_wire_serialize(req, &n));
			cJSON_Delete(fs_llm_sanitize(req, sec));
			cJSON *j = cJSON_Parse(resp);
			fs_llm_reply r = {0};
			fs_anthropic_parse(j, &r, err, sizeof(err));
			fs_schema_validate(schema, r.calls[0].args, err, sizeof(err));
			fs_llm_reply_free(&r);
			cJSON_Delete(j);
			cJSON_Delete(req);
			if (bench_now_ms() - t0 < best)
				best = bench_now_ms() - t0;
		}
		printf("loop_overhead_per_step_1MB_image (build+serialize+sanitize+parse+validate): %.3f ms "
		       "(best of %d; target < 5 ms)\n", best, REPS);
		cJSON_Delete(schema);
	}
	fs_conv_free(&conv);
	cJSON_Delete(tools);
	free(image);
	return 0;
}
