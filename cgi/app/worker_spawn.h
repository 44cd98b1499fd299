/*
 * worker_spawn.h - starting a detached worker process (an agent run's
 * fishscale-agent, a heavy job's fishscale-job) from a FastCGI worker or
 * from another worker.
 *
 * The worker is detached: fork, setsid, fork again (the middle process
 * exits at once and is reaped here, so no zombie is left in the web
 * process), a process group of its own (so Stop can signal the group),
 * stdin/stdout on /dev/null, stderr appended to a log file, every other
 * descriptor closed on exec (the FastCGI socket on fd 0 above all, and
 * SQLite handles), default signal dispositions and an empty signal mask.
 * The argument vector is fixed: exe --run <id> --root <root>; nothing a
 * client sent reaches the command line. Exec failures are reported back
 * through a close-on-exec pipe, so a missing binary is an error here and
 * not a silent dead run.
 */
#ifndef FS_WORKER_SPAWN_H
#define FS_WORKER_SPAWN_H

#include <stddef.h>

/*
 * Starts exe as above. stderr_path (may be NULL: /dev/null) is opened
 * O_APPEND|O_CREAT mode 0600 in the child. *pid receives the worker's pid
 * (its process group id as well). 0, or -1 with err.
 */
int fs_worker_spawn(const char *exe, const char *root, long long run_id, const char *stderr_path, long long *pid,
		    char *err, size_t errlen);

/* The same with the environment variables named in unset_env (NULL-terminated,
 * may be NULL) removed from the worker's environment: an agent run's worker
 * gets only the API key of its own provider. */
int fs_worker_spawn_env(const char *exe, const char *root, long long run_id, const char *stderr_path,
			const char *const *unset_env, long long *pid, char *err, size_t errlen);

/* The worker's side of the same argument vector: exactly --run <id> --root
 * <dir> (either order); 0 with *id > 0 and *root set, or -1. */
int fs_worker_parse_args(int argc, char **argv, long long *id, const char **root);

/* SIGTERM (or sig) to the process group of a worker spawned above; 0 or -1 with errno. */
int fs_worker_signal(long long pid, int sig);

#endif
