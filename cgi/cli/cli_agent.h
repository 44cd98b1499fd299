/*
 * cli_agent.h - `fishscale agent optimize|edit IMAGE` and `fishscale agent
 * providers`: the two agents without the web server, on a private
 * temporary database (the standalone workspace below, shared with
 * `fishscale mcp IMAGE`).
 *
 * API keys come from the environment or the configured key file only
 * (never from argv).
 */
#ifndef FS_CLI_AGENT_H
#define FS_CLI_AGENT_H

#include <stddef.h>

#include "app/http.h"

/* argv[0] is "agent". Exit status: 0 run completed/stopped, 1 failed, 2 usage. */
int fs_cli_agent(const char *root, int argc, char **argv);

/*
 * A throw-away workspace: a temporary data directory with its own SQLite
 * database, one user, the image loaded through lib/image/image_io.h and stored
 * like an upload, and its "Base" set. calibration > 0 sets µm per pixel
 * (else the file's own metadata, if any). fs_standalone_close removes the
 * whole directory (tolerates a zeroed struct).
 */
typedef struct fs_standalone {
	char dir[512];
	fs_app app;
	long long user_id, image_id, set_id;
	double um_per_px;
	char image_name[256];
} fs_standalone;

int fs_standalone_open(fs_standalone *s, const char *root, const char *image_path, double calibration, char *err, size_t errlen);
void fs_standalone_close(fs_standalone *s);

/* Runs the default detection into an empty set (the editing agent needs
 * tubercles to complete). *n receives the count found. */
int fs_standalone_seed(fs_standalone *s, int *n, char *err, size_t errlen);

#endif
