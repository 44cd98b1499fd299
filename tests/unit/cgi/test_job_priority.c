/* test_job_priority.c - a job computes in a thread of its own at low
 * priority (nice FS_JOB_COMPUTE_NICE, SCHED_BATCH, the lowest best-effort
 * I/O priority) while the calling thread, which writes the result under
 * SQLite's lock, keeps the priority it had (app/job_priority.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "app/job_priority.h"

struct seen {
	int nice, policy, ioprio;
	long tid;
	char text[64];
};

static int look(void *arg)
{
	struct seen *s = arg;
	s->nice = getpriority(PRIO_PROCESS, 0);
	s->policy = sched_getscheduler(0);
	s->ioprio = (int)syscall(SYS_ioprio_get, 1, 0);
	s->tid = (long)syscall(SYS_gettid);
	fs_job_priority_describe(s->text, sizeof s->text);
	return 7;
}

static void computes_low_and_the_caller_keeps_its_priority(void **state)
{
	(void)state;
	int nice0 = getpriority(PRIO_PROCESS, 0);
	int pol0 = sched_getscheduler(0);
	int io0 = (int)syscall(SYS_ioprio_get, 1, 0);
	struct seen s;
	memset(&s, 0, sizeof s);
	assert_int_equal(fs_job_run_low(look, &s), 7);
	/* another thread, lowered */
	assert_true(s.tid != (long)syscall(SYS_gettid));
	if (nice0 <= FS_JOB_COMPUTE_NICE)
		assert_int_equal(s.nice, FS_JOB_COMPUTE_NICE);
	assert_int_equal(s.policy, SCHED_BATCH);
	assert_int_equal(s.ioprio, (2 << 13) | 7); /* best effort, level 7 */
	assert_non_null(strstr(s.text, "batch"));
	/* the caller (the thread that writes the result) as it was */
	assert_int_equal(getpriority(PRIO_PROCESS, 0), nice0);
	assert_int_equal(sched_getscheduler(0), pol0);
	assert_int_equal((int)syscall(SYS_ioprio_get, 1, 0), io0);
	char text[64];
	fs_job_priority_describe(text, sizeof text);
	assert_null(strstr(text, "batch"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(computes_low_and_the_caller_keeps_its_priority),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
