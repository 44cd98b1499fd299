/*
 * llm_provider.h - a model behind one interface: give it the conversation
 * and the tool list, get one reply (text, tool calls, usage).
 *
 * Providers and their wire formats (llm_wire.h):
 *   anthropic (alias claude)      POST {base}/v1/messages
 *   openai, openrouter, ollama,   POST {base}/v1/chat/completions
 *   vllm
 *   gemini                        POST {base}/v1beta/models/{model}:generateContent
 *                                 (:streamGenerateContent?alt=sse when streaming)
 *   local                         no network: turns come from a C policy
 *                                 callback given the conversation so far
 * Default bases: https://api.anthropic.com, https://api.openai.com,
 * https://openrouter.ai/api, $OLLAMA_HOST or http://localhost:11434,
 * http://localhost:8000 (vllm), https://generativelanguage.googleapis.com.
 * Keys go in headers only (x-api-key, Authorization: Bearer,
 * x-goog-api-key), never in URLs, so they cannot land in access logs.
 *
 * Ownership: fs_llm_new copies every config string and the key;
 * fs_llm_free releases everything and wipes the key (tolerates NULL).
 * The http options' hooks and clock are kept as given: what they point to
 * must outlive the provider.
 * fs_llm_last_request returns a pointer owned by the provider, valid until
 * the next turn; it references the conversation's image strings instead of
 * copying them, so read it before the conversation changes or is freed.
 */
#ifndef FS_LLM_PROVIDER_H
#define FS_LLM_PROVIDER_H

#include <stddef.h>
#include <cJSON.h>

#include "agent/llm_conv.h"
#include "agent/llm_http.h"
#include "agent/llm_wire.h"

typedef struct fs_llm fs_llm;

typedef struct fs_llm_config {
	const char *provider;  /* see above */
	const char *model;     /* NULL: the provider's default */
	const char *base_url;  /* NULL: the provider's default */
	const char *api_key;   /* NULL: from key_env / key_file (llm_keys.h) */
	const char *key_env;   /* NULL: the provider's default variable */
	const char *key_file;  /* NULL: none */
	int max_tokens;        /* per reply; 0 = not sent (ollama/vllm default) */
	int stream;            /* use server-sent events */
	int force_tool;        /* tool_choice any / required / mode ANY */
	fs_http_opts http;
} fs_llm_config;

/* Zero strings, max_tokens 4096, no streaming, fs_http_opts_default. */
void fs_llm_config_default(fs_llm_config *c);

/*
 * The local provider's policy: append the next turn to out (text and/or
 * calls via fs_llm_reply_add_call, optional usage) and return 0, or -1
 * with err to fail the run.
 */
typedef int (*fs_local_policy_fn)(const fs_conv *conv, const cJSON *tools, fs_llm_reply *out,
				  void *user, char *err, size_t errlen);

fs_llm *fs_llm_new(const fs_llm_config *c, char *err, size_t errlen);
fs_llm *fs_llm_new_local(const char *model, fs_local_policy_fn policy, void *user, char *err,
			 size_t errlen);
void fs_llm_free(fs_llm *llm);

void fs_llm_set_text_delta(fs_llm *llm, fs_text_delta_fn cb, void *user);
void fs_llm_set_cancel(fs_llm *llm, fs_cancel_fn cb, void *user);

/*
 * One model turn. Returns 0 with out filled (out must be zeroed; free it
 * with fs_llm_reply_free either way), or -1 with err and
 * fs_llm_last_error_kind set.
 */
int fs_llm_turn(fs_llm *llm, const fs_conv *conv, const cJSON *tools, fs_llm_reply *out,
		char *err, size_t errlen);

const char *fs_llm_provider(const fs_llm *llm);
const char *fs_llm_model(const fs_llm *llm);
const char *fs_llm_url(const fs_llm *llm);
/* The last request body as sent (unsanitized: run it through fs_llm_sanitize). */
const cJSON *fs_llm_last_request(const fs_llm *llm);
size_t fs_llm_last_request_bytes(const fs_llm *llm);
const char *fs_llm_last_error_kind(const fs_llm *llm);
int fs_llm_last_attempts(const fs_llm *llm);
/* The max_tokens sent with each request (0 = none; the local provider). */
int fs_llm_max_tokens(const fs_llm *llm);
/* NULL-terminated list of strings to redact from anything recorded (the key). */
const char *const *fs_llm_secrets(const fs_llm *llm);

/* 1 if name is an acceptable model name for any provider: 1 to 127
 * characters of [A-Za-z0-9._:/-], no "..". A model name goes into a
 * request URL (gemini) and a request body, so nothing else is let through. */
#define FS_LLM_MODEL_MAX 127
int fs_llm_model_name_valid(const char *name);

/* fs_prices_configured_fn for fs_prices_providers_json: key present (default env names + key_file). */
int fs_llm_provider_configured(const char *provider, void *key_file);

#endif
