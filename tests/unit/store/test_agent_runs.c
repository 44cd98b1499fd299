/* Unit tests for agent run rows (limits per user and in total, final state
 * written once, liveness: dead pids, zombies, reused pids, starts that
 * never came up) and for spawning a detached worker with a clean
 * descriptor table. The spawn tests run this very binary as the worker:
 * started as "--run ID --root DIR" it reports its descriptors and waits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store/agent_runs.h"
#include "store/jobs.h"
#include "app/worker_spawn.h"
#include "store/db.h"
#include "test_db.h"
#include "store/users.h"

typedef test_two_users ctx;

static int setup(void **state)
{
	return test_two_users_setup(state, "agent-runs", "Alice", "Bob");
}

static int teardown(void **state)
{
	return test_two_users_teardown(state);
}

static int new_run_mem(ctx *c, long long user, const fs_agent_run_limits *lim, long long mem, long long *id,
		       int *refused)
{
	fs_agent_run_rec *r = calloc(1, sizeof *r);
	r->mem_bytes = mem;
	char err[256];
	snprintf(r->kind, sizeof r->kind, "edit");
	snprintf(r->provider, sizeof r->provider, "local");
	snprintf(r->options, sizeof r->options, "{\"max_iterations\":5}");
	r->user_id = user;
	int ref = 0;
	int rc = fs_agent_run_create(c->db, r, lim, &ref, err, sizeof err);
	if (id)
		*id = r->id;
	if (refused)
		*refused = ref;
	free(r);
	return rc;
}

static int new_run(ctx *c, long long user, const fs_agent_run_limits *lim, long long *id, int *refused)
{
	return new_run_mem(c, user, lim, 0, id, refused);
}

/* issue 15 (h22b): runs on large images take their share of the heavy
 * jobs' memory budget, beside the jobs, both ways; runs on small images
 * (mem_bytes 0) are not counted. */
static void runs_on_large_images_share_the_jobs_memory(void **state)
{
	ctx *c = *state;
	fs_agent_run_limits lim = {5, 10, 1000};
	long long id;
	int refused;
	assert_int_equal(new_run_mem(c, c->alice, &lim, 600, &id, &refused), 0);
	assert_int_equal(new_run_mem(c, c->bob, &lim, 600, NULL, &refused), FS_DB_CONSTRAINT);
	assert_int_equal(refused, FS_AGENT_LIMIT_MEMORY);
	/* more than the whole budget: never */
	assert_int_equal(new_run_mem(c, c->bob, &lim, 1001, NULL, &refused), FS_DB_CONSTRAINT);
	assert_int_equal(refused, FS_AGENT_LIMIT_TOO_BIG);
	/* a small image's run is not counted */
	assert_int_equal(new_run_mem(c, c->bob, &lim, 0, NULL, &refused), 0);
	long long mem = 0;
	assert_int_equal(fs_agent_runs_active_memory(c->db, &mem), 0);
	assert_int_equal(mem, 600);
	/* a heavy job sees the run's memory */
	fs_job_limits jl = {.max_running = 5, .mem_budget = 1000};
	fs_job_rec *j = calloc(1, sizeof *j);
	assert_non_null(j);
	snprintf(j->kind, sizeof j->kind, "extract");
	snprintf(j->params, sizeof j->params, "{}");
	j->user_id = c->bob;
	j->mem_bytes = 600;
	assert_int_equal(fs_job_create(c->db, j, 1, &jl, &refused), 0);
	assert_int_equal(refused, FS_JOB_REFUSED_MEMORY);
	/* the run ends: the job fits, and then a run does not */
	assert_int_equal(fs_agent_run_finish(c->db, id, "completed", "plateau_detected", NULL, NULL), 0);
	assert_int_equal(fs_job_create(c->db, j, 1, &jl, &refused), 0);
	assert_int_equal(refused, FS_JOB_OK);
	assert_int_equal(new_run_mem(c, c->alice, &lim, 600, NULL, &refused), FS_DB_CONSTRAINT);
	assert_int_equal(refused, FS_AGENT_LIMIT_MEMORY);
	free(j);
}

/* A pid that certainly belonged to a process that has exited and been reaped. */
static pid_t dead_pid(void)
{
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return p;
}

static void create_then_get_round_trips(void **state)
{
	ctx *c = *state;
	long long id;
	assert_int_equal(new_run(c, c->alice, NULL, &id, NULL), 0);
	fs_agent_run_rec *r = calloc(1, sizeof *r);
	assert_int_equal(fs_agent_run_get(c->db, id, r), 0);
	assert_string_equal(r->state, "starting");
	assert_string_equal(r->kind, "edit");
	assert_int_equal(r->user_id, c->alice);
	assert_int_equal(r->checkpoint_rev, -1);
	assert_true(r->started_at > 1e9);
	cJSON *j = fs_agent_run_to_json(r);
	char sid[32];
	snprintf(sid, sizeof sid, "edit-%lld", id);
	assert_string_equal(cJSON_GetObjectItem(j, "session_id")->valuestring, sid);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "options"), "max_iterations")->valueint, 5);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "finish_reason")));
	cJSON_Delete(j);
	free(r);
}

static void get_unknown_run_is_notfound(void **state)
{
	ctx *c = *state;
	fs_agent_run_rec *r = calloc(1, sizeof *r);
	assert_int_equal(fs_agent_run_get(c->db, 999, r), FS_DB_NOTFOUND);
	free(r);
}

static void second_run_of_a_user_over_the_limit_is_refused(void **state)
{
	ctx *c = *state;
	fs_agent_run_limits lim = {1, 10, 0};
	long long id;
	int refused;
	/* starting, no pid yet, within the grace time: counts as active */
	assert_int_equal(new_run(c, c->alice, &lim, &id, &refused), 0);
	assert_int_equal(new_run(c, c->alice, &lim, NULL, &refused), FS_DB_CONSTRAINT);
	assert_int_equal(refused, FS_AGENT_LIMIT_USER);
	/* another user is not affected */
	assert_int_equal(new_run(c, c->bob, &lim, NULL, &refused), 0);
	assert_int_equal(refused, FS_AGENT_LIMIT_NONE);
}

static void run_over_the_total_limit_is_refused(void **state)
{
	ctx *c = *state;
	fs_agent_run_limits lim = {5, 2, 0};
	int refused;
	assert_int_equal(new_run(c, c->alice, &lim, NULL, &refused), 0);
	assert_int_equal(new_run(c, c->bob, &lim, NULL, &refused), 0);
	assert_int_equal(new_run(c, c->bob, &lim, NULL, &refused), FS_DB_CONSTRAINT);
	assert_int_equal(refused, FS_AGENT_LIMIT_TOTAL);
}

static void finished_runs_do_not_count_against_the_limit(void **state)
{
	ctx *c = *state;
	fs_agent_run_limits lim = {1, 1, 0};
	long long id;
	int refused;
	assert_int_equal(new_run(c, c->alice, &lim, &id, &refused), 0);
	assert_int_equal(fs_agent_run_finish(c->db, id, "completed", "target_reached", NULL, NULL), 0);
	assert_int_equal(new_run(c, c->alice, &lim, NULL, &refused), 0);
}

static void final_state_is_written_once(void **state)
{
	ctx *c = *state;
	long long id;
	int changed;
	assert_int_equal(new_run(c, c->alice, NULL, &id, NULL), 0);
	assert_int_equal(fs_agent_run_finish(c->db, id, "stopped", "user_stop", NULL, &changed), 0);
	assert_int_equal(changed, 1);
	assert_int_equal(fs_agent_run_finish(c->db, id, "failed", "worker_died", "x", &changed), 0);
	assert_int_equal(changed, 0);
	fs_agent_run_rec *r = calloc(1, sizeof *r);
	assert_int_equal(fs_agent_run_get(c->db, id, r), 0);
	assert_string_equal(r->state, "stopped");
	assert_string_equal(r->finish_reason, "user_stop");
	assert_true(r->finished_at >= r->started_at);
	assert_int_equal(fs_agent_run_set_running(c->db, id, 1234), FS_DB_STALE);
	free(r);
}

static void run_with_a_dead_pid_is_reported_failed(void **state)
{
	ctx *c = *state;
	long long id;
	assert_int_equal(new_run(c, c->alice, NULL, &id, NULL), 0);
	assert_int_equal(fs_agent_run_set_running(c->db, id, dead_pid()), 0);
	fs_agent_run_rec *r = calloc(1, sizeof *r);
	assert_int_equal(fs_agent_run_get_checked(c->db, id, r), 0);
	assert_string_equal(r->state, "failed");
	assert_string_equal(r->finish_reason, "worker_died");
	assert_non_null(strstr(r->error, "without recording a final state"));
	free(r);
}

static void zombie_worker_counts_as_dead(void **state)
{
	(void)state;
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	/* not reaped yet: /proc shows it as Z until waitpid */
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)p);
	for (int i = 0; i < 2000; i++) {
		FILE *f = fopen(path, "r");
		char buf[256] = "";
		if (f) {
			size_t n = fread(buf, 1, sizeof buf - 1, f);
			buf[n] = 0;
			fclose(f);
		}
		char *q = strrchr(buf, ')');
		if (q && q[2] == 'Z')
			break;
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	assert_int_equal(fs_agent_pid_alive(p, 1), 0);
	waitpid(p, NULL, 0);
}

static void live_process_of_another_program_is_not_the_worker(void **state)
{
	(void)state;
	/* this test binary runs without "--run 7": a reused pid must not pass */
	assert_int_equal(fs_agent_pid_alive(getpid(), 7), 0);
	assert_int_equal(fs_agent_pid_alive(0, 7), 0);
}

static void starting_run_without_pid_fails_only_after_the_grace_time(void **state)
{
	ctx *c = *state;
	long long id;
	assert_int_equal(new_run(c, c->alice, NULL, &id, NULL), 0);
	fs_agent_run_rec *r = calloc(1, sizeof *r);
	assert_int_equal(fs_agent_run_get_checked(c->db, id, r), 0);
	assert_string_equal(r->state, "starting");
	sqlite3_stmt *st;
	sqlite3_prepare_v2(fs_db_handle(c->db), "UPDATE agent_runs SET started_at = started_at - 60 WHERE id = ?", -1,
			   &st, NULL);
	sqlite3_bind_int64(st, 1, id);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	assert_int_equal(fs_agent_run_get_checked(c->db, id, r), 0);
	assert_string_equal(r->state, "failed");
	free(r);
}

static void dead_runs_free_their_slot_for_a_new_start(void **state)
{
	ctx *c = *state;
	fs_agent_run_limits lim = {1, 1, 0};
	long long id;
	int refused;
	assert_int_equal(new_run(c, c->alice, &lim, &id, &refused), 0);
	assert_int_equal(fs_agent_run_set_running(c->db, id, dead_pid()), 0);
	assert_int_equal(new_run(c, c->alice, &lim, NULL, &refused), 0);
	fs_agent_run_rec *r = calloc(1, sizeof *r);
	assert_int_equal(fs_agent_run_get(c->db, id, r), 0);
	assert_string_equal(r->state, "failed");
	free(r);
}

static void list_shows_own_runs_or_everyones(void **state)
{
	ctx *c = *state;
	assert_int_equal(new_run(c, c->alice, NULL, NULL, NULL), 0);
	assert_int_equal(new_run(c, c->bob, NULL, NULL, NULL), 0);
	assert_int_equal(new_run(c, c->bob, NULL, NULL, NULL), 0);
	fs_agent_run_rec *l;
	size_t n;
	assert_int_equal(fs_agent_run_list(c->db, c->bob, 50, &l, &n), 0);
	assert_int_equal(n, 2);
	assert_true(l[0].id > l[1].id);
	free(l);
	assert_int_equal(fs_agent_run_list(c->db, 0, 50, &l, &n), 0);
	assert_int_equal(n, 3);
	free(l);
}

static void progress_and_checkpoint_are_recorded(void **state)
{
	ctx *c = *state;
	long long id;
	assert_int_equal(new_run(c, c->alice, NULL, &id, NULL), 0);
	assert_int_equal(fs_agent_run_set_checkpoint(c->db, id, 12, 40), 0);
	assert_int_equal(fs_agent_run_progress(c->db, id, 3, 1000, 200, 0.25, 1, 0.71), 0);
	assert_int_equal(fs_agent_run_progress(c->db, id, 4, 1500, 300, 0.30, 0, 0), 0);
	fs_agent_run_rec *r = calloc(1, sizeof *r);
	assert_int_equal(fs_agent_run_get(c->db, id, r), 0);
	assert_int_equal(r->checkpoint_rev, 12);
	assert_int_equal(r->checkpoint_op, 40);
	assert_int_equal(r->iterations, 4);
	assert_int_equal(r->tokens_in, 1500);
	assert_true(r->has_best);
	assert_true(r->best_score > 0.70 && r->best_score < 0.72); /* kept: no new best */
	free(r);
	assert_int_equal(fs_agent_run_delete(c->db, id), 0);
	r = calloc(1, sizeof *r);
	assert_int_equal(fs_agent_run_get(c->db, id, r), FS_DB_NOTFOUND);
	free(r);
}

/* ---- spawn ---- */

static char spawn_dir[128];

static int spawn_setup(void **state)
{
	(void)state;
	snprintf(spawn_dir, sizeof spawn_dir, "/tmp/fs-spawn-test-%d-XXXXXX", (int)getpid());
	return mkdtemp(spawn_dir) ? 0 : -1;
}

static int spawn_teardown(void **state)
{
	(void)state;
	const char *names[] = {"fds.txt", "fds.tmp", "release", "worker.log"};
	char p[256];
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", spawn_dir, names[i]);
		unlink(p);
	}
	rmdir(spawn_dir);
	return 0;
}

static int wait_file(const char *path, int present, int ms)
{
	for (int i = 0; i < ms; i++) {
		if ((access(path, F_OK) == 0) == present)
			return 1;
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	return 0;
}

static int wait_dead(long long pid, long long id, int ms)
{
	for (int i = 0; i < ms; i++) {
		if (!fs_agent_pid_alive(pid, id))
			return 1;
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* Worker mode of this binary: lists its descriptors, then waits for
 * <dir>/release (or a signal). */
static int fake_worker(const char *dir)
{
	char tmp[PATH_MAX], fin[PATH_MAX], rel[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s/fds.tmp", dir);
	snprintf(fin, sizeof fin, "%s/fds.txt", dir);
	snprintf(rel, sizeof rel, "%s/release", dir);
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return 1;
	char out[4096] = "";
	size_t len = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d))
			continue;
		char lp[300], target[PATH_MAX] = "";
		snprintf(lp, sizeof lp, "/proc/self/fd/%s", e->d_name);
		ssize_t k = readlink(lp, target, sizeof target - 1);
		target[k > 0 ? k : 0] = 0;
		len += (size_t)snprintf(out + len, sizeof out - len, "%s %s\n", e->d_name, target);
		if (len >= sizeof out)
			break;
	}
	closedir(d);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return 1;
	fputs(out, f);
	fclose(f);
	rename(tmp, fin);
	wait_file(rel, 1, 10000);
	return 0;
}

/* fs_agent_pid_alive(pid, run) while this process can open no file
 * (RLIMIT_NOFILE lowered and every descriptor below it taken); the limit
 * and the descriptors are restored. */
static int fds_exhausted_still_alive(long long pid, long long run)
{
	struct rlimit old, low;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	int probe = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(probe >= 0);
	close(probe);
	low = old;
	low.rlim_cur = (rlim_t)probe + 8;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	int held[64], nh = 0;
	for (;;) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			break;
		assert_true(nh < 64);
		held[nh++] = fd;
	}
	int e = errno;
	int alive = fs_agent_pid_alive(pid, run);
	while (nh > 0)
		close(held[--nh]);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_int_equal(e, EMFILE);
	return alive;
}

static void spawned_worker_has_only_std_fds_detached(void **state)
{
	(void)state;
	char exe[PATH_MAX], err[256], log[256], fds[256], rel[256];
	ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
	assert_true(k > 0);
	exe[k] = 0;
	snprintf(log, sizeof log, "%s/worker.log", spawn_dir);
	snprintf(fds, sizeof fds, "%s/fds.txt", spawn_dir);
	snprintf(rel, sizeof rel, "%s/release", spawn_dir);
	/* descriptors the worker must not inherit: one without close-on-exec */
	int leak = open("/dev/zero", O_RDONLY);
	assert_true(leak > 2);
	long long pid = 0;
	assert_int_equal(fs_worker_spawn(exe, spawn_dir, 4242, log, &pid, err, sizeof err), 0);
	assert_true(pid > 1);
	assert_true(wait_file(fds, 1, 10000));
	assert_int_equal(fs_agent_pid_alive(pid, 4242), 1);
	assert_int_equal(fs_agent_pid_alive(pid, 4243), 0);
	/* a server out of file descriptors cannot read /proc: that says
	 * nothing of the worker, which must not be failed as dead on it */
	assert_true(fds_exhausted_still_alive(pid, 4242));
	assert_int_equal(getpgid((pid_t)pid), (pid_t)pid);
	assert_true(getsid((pid_t)pid) != getsid(0));
	FILE *f = fopen(fds, "r");
	assert_non_null(f);
	char line[512];
	int n = 0;
	while (fgets(line, sizeof line, f)) {
		int fd;
		char target[400];
		assert_int_equal(sscanf(line, "%d %399s", &fd, target), 2);
		assert_true(fd <= 2);
		if (fd < 2)
			assert_string_equal(target, "/dev/null");
		else
			assert_string_equal(target, log);
		n++;
	}
	fclose(f);
	assert_int_equal(n, 3);
	close(leak);
	int rf = open(rel, O_CREAT | O_WRONLY, 0600);
	close(rf);
	assert_true(wait_dead(pid, 4242, 10000));
}

static void signal_stops_the_worker_group(void **state)
{
	(void)state;
	char exe[PATH_MAX], err[256], fds[256];
	ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
	assert_true(k > 0);
	exe[k] = 0;
	snprintf(fds, sizeof fds, "%s/fds.txt", spawn_dir);
	long long pid = 0;
	assert_int_equal(fs_worker_spawn(exe, spawn_dir, 77, NULL, &pid, err, sizeof err), 0);
	assert_true(wait_file(fds, 1, 10000));
	assert_int_equal(fs_worker_signal(pid, SIGTERM), 0);
	assert_true(wait_dead(pid, 77, 10000));
}

static void spawn_of_a_missing_program_fails_with_a_message(void **state)
{
	(void)state;
	char err[256] = "";
	long long pid = 5;
	assert_int_equal(fs_worker_spawn("/nonexistent/fishscale-agent", "/tmp", 1, NULL, &pid, err, sizeof err), -1);
	assert_int_equal(pid, 0);
	assert_non_null(strstr(err, "not executable"));
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "--run") && !strcmp(argv[3], "--root"))
		return fake_worker(argv[4]);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(create_then_get_round_trips, setup, teardown),
		cmocka_unit_test_setup_teardown(get_unknown_run_is_notfound, setup, teardown),
		cmocka_unit_test_setup_teardown(second_run_of_a_user_over_the_limit_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(run_over_the_total_limit_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(runs_on_large_images_share_the_jobs_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(finished_runs_do_not_count_against_the_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(final_state_is_written_once, setup, teardown),
		cmocka_unit_test_setup_teardown(run_with_a_dead_pid_is_reported_failed, setup, teardown),
		cmocka_unit_test(zombie_worker_counts_as_dead),
		cmocka_unit_test(live_process_of_another_program_is_not_the_worker),
		cmocka_unit_test_setup_teardown(starting_run_without_pid_fails_only_after_the_grace_time, setup, teardown),
		cmocka_unit_test_setup_teardown(dead_runs_free_their_slot_for_a_new_start, setup, teardown),
		cmocka_unit_test_setup_teardown(list_shows_own_runs_or_everyones, setup, teardown),
		cmocka_unit_test_setup_teardown(progress_and_checkpoint_are_recorded, setup, teardown),
		cmocka_unit_test_setup_teardown(spawned_worker_has_only_std_fds_detached, spawn_setup, spawn_teardown),
		cmocka_unit_test_setup_teardown(signal_stops_the_worker_group, spawn_setup, spawn_teardown),
		cmocka_unit_test(spawn_of_a_missing_program_fails_with_a_message),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
