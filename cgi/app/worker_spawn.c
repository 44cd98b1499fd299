/*
 * worker_spawn.c - double-fork of a detached worker with a clean
 * descriptor table (see worker_spawn.h).
 */
#include "app/worker_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* Marks every descriptor from 3 up close-on-exec; close_range when the
 * kernel has it, else one fcntl per possible descriptor. */
static void cloexec_from_3(void)
{
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return;
	long max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = 3; fd < max; fd++) {
		int fl = fcntl(fd, F_GETFD);
		if (fl >= 0)
			fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
	}
}

static void reset_signals(void)
{
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &sa, NULL);
}

static void put_fd(int want, const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0600);
	if (fd < 0)
		fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0 && fd != want) {
		dup2(fd, want); /* dup2 clears close-on-exec on the copy */
		close(fd);
	} else if (fd == want) {
		fcntl(fd, F_SETFD, 0);
	}
}

/* In the grandchild: never returns. */
static void exec_worker(int errfd, const char *exe, const char *root, long long run_id, const char *stderr_path,
			const char *const *unset)
{
	/* secrets the worker does not need stay out of its environment */
	for (size_t i = 0; unset && unset[i]; i++)
		unsetenv(unset[i]);
	char idbuf[32];
	snprintf(idbuf, sizeof idbuf, "%lld", run_id);
	setpgid(0, 0);
	reset_signals();
	put_fd(0, "/dev/null", O_RDONLY);
	put_fd(1, "/dev/null", O_WRONLY);
	put_fd(2, stderr_path ? stderr_path : "/dev/null", O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW);
	cloexec_from_3();
	char *const argv[] = {"fishscale-agent", "--run", idbuf, "--root", (char *)root, NULL};
	execv(exe, argv);
	int e = errno;
	ssize_t k = write(errfd, &e, sizeof e);
	(void)k;
	_exit(127);
}

static int read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = read(fd, (char *)buf + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return (int)got;
		got += (size_t)k;
	}
	return (int)got;
}

int fs_worker_spawn(const char *exe, const char *root, long long run_id, const char *stderr_path, long long *pid,
		    char *err, size_t errlen)
{
	return fs_worker_spawn_env(exe, root, run_id, stderr_path, NULL, pid, err, errlen);
}

int fs_worker_spawn_env(const char *exe, const char *root, long long run_id, const char *stderr_path,
			const char *const *unset_env, long long *pid,
		    char *err, size_t errlen)
{
	int p[2];
	*pid = 0;
	if (access(exe, X_OK)) {
		snprintf(err, errlen, "agent worker %s is not executable: %s", exe, strerror(errno));
		return -1;
	}
	if (pipe2(p, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid_t mid = fork();
	if (mid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (mid == 0) {
		close(p[0]);
		setsid();
		pid_t g = fork();
		if (g == 0)
			exec_worker(p[1], exe, root, run_id, stderr_path, unset_env);
		ssize_t k = write(p[1], &g, sizeof g);
		(void)k;
		_exit(g < 0 ? 1 : 0);
	}
	close(p[1]);
	pid_t g = -1;
	int e = 0, rc = -1;
	int got = read_full(p[0], &g, sizeof g);
	/* EOF comes once the middle process exited and the worker exec'd */
	int got_e = got == (int)sizeof g ? read_full(p[0], &e, sizeof e) : 0;
	close(p[0]);
	while (waitpid(mid, NULL, 0) < 0 && errno == EINTR)
		;
	if (got != (int)sizeof g || g <= 0) {
		snprintf(err, errlen, "could not start the agent worker (fork failed)");
		goto out;
	}
	if (got_e == (int)sizeof e) {
		snprintf(err, errlen, "could not run %s: %s", exe, strerror(e));
		goto out;
	}
	*pid = g;
	rc = 0;
out:
	return rc;
}

int fs_worker_signal(long long pid, int sig)
{
	if (pid <= 1) {
		errno = EINVAL;
		return -1;
	}
	if (kill(-(pid_t)pid, sig) == 0)
		return 0;
	/* not a group leader (should not happen): the process alone */
	return kill((pid_t)pid, sig);
}

int fs_worker_parse_args(int argc, char **argv, long long *id, const char **root)
{
	*id = 0;
	*root = NULL;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--run")) {
			char *end;
			*id = strtoll(argv[i + 1], &end, 10);
			if (*end || *id <= 0)
				return -1;
		} else if (!strcmp(argv[i], "--root")) {
			*root = argv[i + 1];
		} else {
			return -1;
		}
	}
	return *id > 0 && *root && argc == 5 ? 0 : -1;
}
