/*
 * agent_loop.h - the agent loop: model turn, validated tool calls, results
 * back to the model, until a finishing tool succeeds, the model ends its
 * turn, or a limit is hit. Every step is reported as one cJSON object.
 *
 * ---------------------------------------------------------------------
 * How to use it (for the worker / CLI):
 *
 *   // 1. Tools
 *   fs_tool_registry *reg = fs_tools_new();
 *   fs_tools_add(reg, "get_state", "Current metrics", NULL, get_state_fn, ctx, 0, err, sizeof err);
 *   fs_tools_add(reg, "add_tubercle", "Add a tubercle at x,y (screenshot pixels)",
 *       "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\",\"minimum\":0},"
 *       "\"y\":{\"type\":\"number\",\"minimum\":0}},\"required\":[\"x\",\"y\"]}",
 *       add_fn, ctx, 0, err, sizeof err);
 *   fs_tools_add(reg, "finish", "Stop: the work is done", NULL, finish_fn, ctx,
 *       FS_TOOL_FINISHING, err, sizeof err);
 *   // a handler: int fn(const cJSON *args, fs_tool_output *out, void *user)
 *   //   success: out->data = cJSON object (taken over); return FS_TOOL_OK
 *   //   image:   out->image_b64 = malloc'd base64 PNG, out->width/height
 *   //   failure: snprintf(out->error, ...); return FS_TOOL_ERROR (model sees it)
 *   //   fatal:   return FS_TOOL_CRITICAL (storage lost...): the run stops, "error"
 *
 *   // 2. Provider from config values (key from env / 0600 key file, never argv)
 *   fs_llm_config cfg;
 *   fs_llm_config_default(&cfg);
 *   cfg.provider = "openrouter";          // anthropic|openai|openrouter|ollama|vllm|gemini
 *   cfg.model = "anthropic/claude-sonnet-4";
 *   cfg.base_url = NULL;                  // or e.g. "http://127.0.0.1:11434"
 *   cfg.key_file = "/etc/fishscale/keys"; // optional; env var first
 *   cfg.stream = 1;
 *   fs_llm *llm = fs_llm_new(&cfg, err, sizeof err);
 *   // offline: fs_llm_new_local("policy-name", policy_fn, policy_ctx, err, sizeof err)
 *
 *   // 3. Prices (conf/prices.conf) and the system prompt
 *   fs_prices prices = {0};
 *   fs_prices_load(&prices, "conf/prices.conf", err, sizeof err);
 *   const char *ctxkv[] = {"image_name", "P1.tif", "goal", "hexagonalness 0.8", NULL};
 *   char *system = fs_tools_system_prompt(reg, "You edit... Tools:\n{tools}\nGoal: {goal}",
 *                                         ctxkv, err, sizeof err);
 *
 *   // 4. Run
 *   fs_agent_limits lim;
 *   fs_agent_limits_default(&lim);
 *   lim.max_llm_calls = 30; lim.max_cost_usd = 2.0; lim.timeout_s = 900;
 *   fs_agent_hooks hooks = {.on_step = write_event_fn, .cancel = stop_flag_fn,
 *                           .approve = NULL, .on_text = NULL, .user = ctx};
 *   fs_agent_result res;
 *   fs_agent_run(llm, reg, &prices, system, "Improve the annotation.", &lim, &hooks, &res);
 *
 *   // 5. Result
 *   res.finish_reason   "finished" | "end_turn" | "max_llm_calls" | "max_tool_calls" |
 *                       "timeout" | "max_cost" | "max_tokens" | "no_tool_call" |
 *                       "cancelled" | "error" | "rejected_timeout"
 *   res.error, res.error_kind ("auth", "rate_limit", "provider_http", "network",
 *                       "provider_response", "stream", "tool", "internal")
 *   res.llm_calls, res.tool_calls, res.in_tokens, res.out_tokens,
 *   res.cost_usd, res.last_step_cost_usd, res.cost_estimated, res.final_text
 *   fs_agent_result_free(&res); free(system); fs_llm_free(llm);
 *   fs_tools_free(reg); fs_prices_free(&prices);
 *
 * Step objects (on_step; valid only during the call, keys and base64 removed):
 *   {"step":n, "provider", "model", "request": <sanitized body>, "request_bytes",
 *    "response":{"text","tool_calls":[{id,name,arguments}],"stop_reason"},
 *    "usage":{"input_tokens","output_tokens","step_cost_usd","total_input_tokens",
 *             "total_output_tokens","total_cost_usd","cost_estimated"},
 *    "tools":[{"id","name","arguments","approved","result","image"}],
 *    "nudge": bool, "timing":{"llm_ms","tools_ms"}, "error"?: msg, "finish_reason"?: ...}
 * Provider-model list for the UI: fs_prices_providers_json(&prices,
 *   fs_llm_provider_configured, (void *)key_file).
 * ---------------------------------------------------------------------
 *
 * Ownership: the loop borrows llm, registry, prices and hooks; the result's
 * final_text is malloc'd (fs_agent_result_free). Not thread-safe per llm.
 */
#ifndef FS_AGENT_LOOP_H
#define FS_AGENT_LOOP_H

#include <stddef.h>
#include <cJSON.h>

#include "agent/agent_tools.h"
#include "agent/llm_conv.h"
#include "agent/llm_provider.h"
#include "agent/prices.h"

typedef struct fs_agent_limits {
	int max_llm_calls;     /* default 30 */
	int max_tool_calls;    /* default 300 */
	int max_calls_per_turn;/* default 25: extra calls in one reply get an error result */
	double timeout_s;      /* wall clock, default 1800 */
	double max_cost_usd;   /* 0 = no cap; default 5 */
	long max_tokens;       /* input+output over the run; 0 = no cap */
	int max_nudges;        /* consecutive prose replies nudged; default 2 */
	size_t keep_images;    /* newest images kept in the prompt; default 2 */
} fs_agent_limits;

void fs_agent_limits_default(fs_agent_limits *l);

typedef enum fs_approval { FS_APPROVE = 0, FS_REJECT = 1, FS_REJECT_TIMEOUT = 2 } fs_approval;

typedef struct fs_agent_hooks {
	void (*on_step)(const cJSON *step, void *user);
	/* Before each call that passed validation; on FS_REJECT, reason goes back to the
	 * model as an error result; FS_REJECT_TIMEOUT ends the run ("rejected_timeout"). */
	fs_approval (*approve)(const char *tool, const cJSON *args, char *reason, size_t reasonlen,
			       void *user);
	fs_cancel_fn cancel;       /* polled during transfers, backoffs and between calls */
	fs_text_delta_fn on_text;  /* streamed text deltas */
	void *user;
} fs_agent_hooks;

typedef struct fs_agent_result {
	char finish_reason[32];
	char error[512];
	char error_kind[32];
	char finished_by[72];   /* the finishing tool that ended the run */
	int llm_calls;
	int tool_calls;
	long in_tokens;
	long out_tokens;
	double cost_usd;
	double last_step_cost_usd;
	int cost_estimated;
	char *final_text;       /* last text the model wrote, or NULL */
} fs_agent_result;

void fs_agent_result_free(fs_agent_result *r);

/*
 * Runs a fresh conversation (system prompt + one user message). Returns 0
 * when the run ended for any reason but "error", -1 for "error"; res is
 * filled either way. prices may be NULL (every cost is the estimate).
 */
int fs_agent_run(fs_llm *llm, fs_tool_registry *reg, const fs_prices *prices, const char *system,
		 const char *user_message, const fs_agent_limits *lim, const fs_agent_hooks *hooks,
		 fs_agent_result *res);

/* The same on a conversation the caller prepared (e.g. first message with an image). */
int fs_agent_run_conv(fs_llm *llm, fs_tool_registry *reg, const fs_prices *prices, fs_conv *conv,
		      const fs_agent_limits *lim, const fs_agent_hooks *hooks, fs_agent_result *res);

/* The instruction sent when the model answers in prose; caller frees. */
char *fs_agent_nudge_text(const fs_tool_registry *reg);

#endif
