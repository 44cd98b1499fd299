/*
 * text_protocol.h - tool calls written in prose, for models that answer in
 * text instead of using the native tool-calling API.
 *
 * Two forms are recognised anywhere in the text, in order of appearance:
 *   TOOL_CALL: name
 *   PARAMETERS: {"json": "object"}          (the object may span lines)
 * and a ``` or ```json code fence holding {"tool"|"name": "...",
 * "parameters"|"arguments": {...}} (arguments may also be a JSON string),
 * or an array of such objects.
 *
 * Calls are appended to the reply with from_text set and ids
 * "text_call_<n>"; their results go back to the model as a user message
 * because there is no native call to answer.
 *
 * Ownership: text is only read; the calls appended to out belong to out
 * (fs_llm_reply_free, llm_conv.h).
 */
#ifndef FS_TEXT_PROTOCOL_H
#define FS_TEXT_PROTOCOL_H

#include <stddef.h>

#include "agent/llm_conv.h"

/* Returns the number of calls appended (0 if none), or -1 on out of memory. */
int fs_text_protocol_parse(const char *text, fs_llm_reply *out, char *err, size_t errlen);

#endif
