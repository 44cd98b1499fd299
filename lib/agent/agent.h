/*
 * agent.h - the agent subsystem's public face: LLM agents on annotation sets: the job runner and its kinds (optimiser,
 * editor, chat) with their tools, the loop, the providers and their wire
 * formats, keys, prices, retries, and the status files workers publish.
 *
 * Callers outside lib/agent/ include this header; each module's own header
 * says what it does and who owns each pointer.
 */
#ifndef FS_AGENT_H
#define FS_AGENT_H

#include "agent/agent_jobs.h"
#include "agent/agent_fish_tools.h"
#include "agent/agent_loop.h"
#include "agent/agent_tools.h"
#include "agent/agent_screenshot.h"
#include "agent/agent_prompts.h"
#include "agent/llm_provider.h"
#include "agent/llm_keys.h"
#include "agent/llm_wire.h"
#include "agent/prices.h"
#include "agent/retry.h"
#include "agent/status_file.h"
#include "agent/json_schema.h"
#include "agent/text_protocol.h"

#endif
