/*
 * cli_mcp.h - `fishscale mcp`: a Model Context Protocol server on
 * stdin/stdout (JSON-RPC 2.0, one JSON object per line) offering the
 * fish-scale agents' tools (lib/agent/agent_fish_tools.h) on one annotation set,
 * so an external MCP client (an IDE, Claude Desktop) can drive the editing
 * and extraction tools.
 *
 *   fishscale mcp --image ID --set ID --user LOGIN   on the site's database,
 *                                                    as that user (who must see the image)
 *   fishscale mcp IMAGE_FILE [--calibration UM]      standalone, temporary database
 *
 * Nothing but protocol messages goes to stdout; diagnostics go to stderr.
 */
#ifndef FS_CLI_MCP_H
#define FS_CLI_MCP_H

#include <stdio.h>

#include <cJSON.h>

/* argv[0] is "mcp". Exit status 0 at the end of input, 1 on a start-up error, 2 usage. */
int fs_cli_mcp(const char *root, int argc, char **argv);

/*
 * The protocol core, for tests and the command above: answers one request
 * line. Returns a new response object (caller deletes) or NULL when
 * nothing must be sent (a notification). ctx is the server's state.
 */
typedef struct fs_mcp fs_mcp;
cJSON *fs_mcp_handle_line(fs_mcp *m, const char *line, size_t len);

#endif
