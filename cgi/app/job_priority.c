/* job_priority.c - low-priority computing thread of a job (see job_priority.h). */
#include "app/job_priority.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sqlite3.h>
#include <time.h>
#include <unistd.h>

/* ioprio_set(2) has no glibc wrapper; the values are the kernel's ABI */
#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_CLASS_BE 2
#define IOPRIO_CLASS_SHIFT 13

int fs_job_lower_this_thread(void)
{
	int set = 0;
	/* on Linux PRIO_PROCESS with 0 is the calling thread only */
	if (setpriority(PRIO_PROCESS, 0, FS_JOB_COMPUTE_NICE) == 0)
		set++;
	struct sched_param sp = {0};
	/* 0 as pid is the calling thread too */
	if (sched_setscheduler(0, SCHED_BATCH, &sp) == 0)
		set++;
	/* best effort, level 7 of 0..7: matters to the I/O schedulers that
	 * honour it (mq-deadline and bfq for reads); buffered writes are
	 * written back by the kernel's threads whatever it says */
	if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, (IOPRIO_CLASS_BE << IOPRIO_CLASS_SHIFT) | 7) == 0)
		set++;
	return set;
}

struct low_call {
	int (*fn)(void *);
	void *arg;
	int rc;
};

static void *low_main(void *p)
{
	struct low_call *c = p;
	fs_job_lower_this_thread();
	c->rc = c->fn(c->arg);
	return NULL;
}

int fs_job_run_low(int (*fn)(void *arg), void *arg)
{
	struct low_call c = {fn, arg, -1};
	pthread_t t;
	if (pthread_create(&t, NULL, low_main, &c) != 0)
		return fn(arg);
	pthread_join(t, NULL);
	return c.rc;
}

static int yield_timeout_ms;

static int polite_wait(void *ctx, int n)
{
	(void)ctx;
	static unsigned seed;
	if (!seed)
		seed = (unsigned)getpid();
	seed = seed * 1103515245u + 12345u;
	/* FS_JOB_LOCK_POLL_MS .. 1.5 times it: jobs waiting together do not
	 * poll in step either */
	long us = FS_JOB_LOCK_POLL_MS * 1000L + (long)(seed >> 16) % (FS_JOB_LOCK_POLL_MS * 500L);
	if ((long)n * FS_JOB_LOCK_POLL_MS >= yield_timeout_ms)
		return 0;
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
	nanosleep(&ts, NULL);
	return 1;
}

void fs_job_yield_writes(fs_db *db, int timeout_ms)
{
	yield_timeout_ms = timeout_ms > 0 ? timeout_ms : 5000;
	sqlite3_busy_handler(fs_db_handle(db), polite_wait, NULL);
}

void fs_job_priority_describe(char *buf, size_t len)
{
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, 0);
	int pol = sched_getscheduler(0);
	const char *name = pol == SCHED_OTHER ? "other"
			   : pol == SCHED_BATCH ? "batch"
			   : pol == SCHED_IDLE	? "idle"
						: "realtime";
	snprintf(buf, len, "nice %d, %s", errno ? 0 : nice, name);
}
