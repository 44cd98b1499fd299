/*
 * cli_mcp_tools.h - the tools `fishscale mcp` offers beyond the agents'
 * own (issue 16: parity with the original's MCP server): calibration get
 * and set, the tubercle and connection lists, add / delete / clear
 * connections, undo and redo of the caller's steps, export of the
 * annotations (beside the image or to a named file; save_annotations is
 * the same), a history event, the user, load_image (standalone mode), and
 * an accept_result that puts the best extraction into the set.
 *
 * Ownership: the context and everything it points to are the caller's
 * (cli_mcp.c); the tools keep nothing.
 */
#ifndef FS_CLI_MCP_TOOLS_H
#define FS_CLI_MCP_TOOLS_H

#include <limits.h>
#include <stddef.h>

#include "agent/agent.h"
#include "cli/cli_agent.h"

typedef struct fs_mcp_ctx {
	fs_agent_sess *s;
	fs_agent_job *job;
	fs_agent_env *env;
	fs_standalone *ws;        /* standalone mode (an image file), else NULL */
	const char *root;
	char image_path[PATH_MAX];
	char data[1200];          /* the data directory (env->data_dir points here) */
	char login[64];
} fs_mcp_ctx;

int fs_mcp_tools_add(fs_tool_registry *reg, fs_mcp_ctx *c, char *err, size_t errlen);

/* MCP tool annotations for a tool name (readOnlyHint, destructiveHint,
 * idempotentHint); a new object. */
cJSON *fs_mcp_tool_annotations(const char *name);

#endif
