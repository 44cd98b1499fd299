/*
 * llm_wire_format.h - what one provider wire format offers (see llm_wire.h
 * for the formats): building a request from a conversation and parsing the
 * answer. Each format (llm_anthropic.c, llm_openai.c, llm_gemini.c) defines
 * one fs_wire_format; llm_wire.c keeps the table of them and dispatches.
 *
 * Ownership: as in llm_wire.h (build returns a new cJSON or NULL; parse
 * fills a zeroed reply the caller frees with fs_llm_reply_free).
 */
#ifndef FS_LLM_WIRE_FORMAT_H
#define FS_LLM_WIRE_FORMAT_H

#include <stddef.h>
#include <cJSON.h>

#include "agent/llm_conv.h"

typedef struct fs_wire_opts {
	const char *model;
	int max_tokens;   /* 0 = do not send (Ollama's default) */
	int stream;
	int force_tool;   /* ask the provider to always call a tool (tool_choice any/required, mode ANY) */
} fs_wire_opts;

typedef struct fs_wire_format {
	const char *name; /* "anthropic", "openai", "gemini" */
	cJSON *(*build)(const fs_wire_opts *o, const fs_conv *c, const cJSON *tools);
	int (*parse)(const cJSON *resp, fs_llm_reply *out, char *err, size_t errlen);
} fs_wire_format;

extern const fs_wire_format fs_wire_format_anthropic;
extern const fs_wire_format fs_wire_format_openai;
extern const fs_wire_format fs_wire_format_gemini;

/* Each format's functions, also called directly by the tests. */
cJSON *fs_anthropic_build(const fs_wire_opts *o, const fs_conv *c, const cJSON *tools);
int fs_anthropic_parse(const cJSON *resp, fs_llm_reply *out, char *err, size_t errlen);

cJSON *fs_openai_build(const fs_wire_opts *o, const fs_conv *c, const cJSON *tools);
int fs_openai_parse(const cJSON *resp, fs_llm_reply *out, char *err, size_t errlen);

cJSON *fs_gemini_build(const fs_wire_opts *o, const fs_conv *c, const cJSON *tools);
int fs_gemini_parse(const cJSON *resp, fs_llm_reply *out, char *err, size_t errlen);

/* The provider's own error text from an error body ({"error":{"message"}}), or NULL. */
const char *fs_wire_error_message(const cJSON *body);

#endif
