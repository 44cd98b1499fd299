/*
 * worker_start.c - a stoppable worker's arguments, signals and app (see
 * worker_start.h).
 */
#include "app/worker_start.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "app/fatal_note.h"
#include "app/worker_spawn.h"

int fs_worker_start(int argc, char **argv, const char *prog, void (*on_stop)(int), fs_app *app, long long *id,
		    char *msg, size_t msglen)
{
	const char *root;
	if (fs_worker_parse_args(argc, argv, id, &root)) {
		snprintf(msg, msglen, "usage: %s --run ID --root DIR", prog);
		return 2;
	}
	fs_fatal_note_install(prog, *id);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	char err[512] = "";
	if (fs_app_config(app, root, NULL, err, sizeof err) || fs_app_open(app, 0, err, sizeof err)) {
		snprintf(msg, msglen, "%s %lld: %s", prog, *id, err);
		return 1;
	}
	return 0;
}
