/*
 * worker_start.h - the start-up that the stoppable detached workers
 * (fishscale-agent, fishscale-job) share, so their mains hold only what
 * differs: the argument vector fs_worker_spawn wrote, the stop request
 * (SIGTERM from Stop/Cancel, SIGINT by hand) delivered to the worker's own
 * handler, SIGPIPE ignored (a provider's or a client's socket closing is
 * an error to report, not the end of the process), a line on stderr when a
 * fatal signal ends it (app/fatal_note.h), then the configuration and the
 * database opened.
 *
 * Ownership: app is the caller's; after 0 it is open and the caller closes
 * it (fs_app_close). argv and the handler are only read.
 */
#ifndef FS_WORKER_START_H
#define FS_WORKER_START_H

#include <stddef.h>

#include "app/http.h"

/*
 * prog names the worker in its messages ("fishscale-job"). Returns the
 * exit status to end with when the start failed, with the line to print
 * on stderr in msg: 2 for arguments other than --run ID --root DIR
 * ("usage: PROG --run ID --root DIR"), 1 when the configuration or the
 * database cannot be opened ("PROG ID: why"). 0 with *id set and app open.
 */
int fs_worker_start(int argc, char **argv, const char *prog, void (*on_stop)(int), fs_app *app, long long *id,
		    char *msg, size_t msglen);

#endif
