/*
 * llm_wire.h - translate a conversation (llm_conv.h) to each provider's
 * request JSON and the provider's answer back to an fs_llm_reply.
 *
 * Three wire formats:
 *   anthropic  Messages API (POST /v1/messages): tools with input_schema,
 *              tool_use / tool_result blocks, images inside tool results.
 *   openai     chat completions (OpenAI, OpenRouter, Ollama, vLLM): function
 *              tools, tool_calls, role "tool" results; images from tool
 *              results follow in one user message (tool messages are text).
 *   gemini     generateContent: functionDeclarations, functionCall /
 *              functionResponse, inline_data images (sent in a user content
 *              after the function responses), model content echoed verbatim.
 *
 * `tools` is the registry's neutral list: [{name, description, parameters}].
 *
 * Streaming: a fs_wire_stream takes the server-sent events of one response,
 * passes text deltas to a callback, and assembles the same JSON shape the
 * non-streamed endpoint returns, so one parser serves both paths.
 *
 * Ownership: build functions return a new cJSON (caller deletes) or NULL on
 * out of memory; parse functions fill a zeroed reply the caller frees with
 * fs_llm_reply_free (also on failure). fs_wire_stream_result hands its JSON
 * to the caller.
 */
#ifndef FS_LLM_WIRE_H
#define FS_LLM_WIRE_H

#include <stddef.h>
#include <cJSON.h>

#include "agent/llm_wire_format.h"

typedef enum fs_wire { FS_WIRE_ANTHROPIC, FS_WIRE_OPENAI, FS_WIRE_GEMINI } fs_wire;


/* The format of w (a row of the table of formats), its name. */
const fs_wire_format *fs_wire_format_of(fs_wire w);
const char *fs_wire_name(fs_wire w);

cJSON *fs_wire_build(fs_wire w, const fs_wire_opts *o, const fs_conv *c, const cJSON *tools);
int fs_wire_parse(fs_wire w, const cJSON *resp, fs_llm_reply *out, char *err, size_t errlen);

/*
 * cJSON_PrintUnformatted, but long base64 strings (screenshots) are copied
 * in one memcpy instead of being escaped character by character: a 1 MB
 * image costs ~0.3 ms instead of several. Returns a malloc'd string (free)
 * and its length, or NULL on out of memory. req is left as it was.
 */
char *fs_wire_serialize(cJSON *req, size_t *len);

typedef void (*fs_text_delta_fn)(const char *text, void *user);
typedef struct fs_wire_stream fs_wire_stream;

fs_wire_stream *fs_wire_stream_new(fs_wire w, fs_text_delta_fn cb, void *user);
/* Returns 0, or -1 for an error event or malformed data. */
int fs_wire_stream_event(fs_wire_stream *s, const char *event, const char *data, size_t len,
			 char *err, size_t errlen);
/* The assembled response, or NULL with err; the stream keeps nothing. */
cJSON *fs_wire_stream_result(fs_wire_stream *s, char *err, size_t errlen);
void fs_wire_stream_free(fs_wire_stream *s);

#endif
