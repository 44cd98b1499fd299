/* Unit tests of the jobs table's admission control (lib/store/jobs.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "store/jobs.h"
#include "store/users.h"
#include "test_db.h"

typedef struct fx {
	fs_db *db;
	char path[256];
	long long users[4];
} fx;

static int setup(void **state)
{
	static fx f;
	memset(&f, 0, sizeof f);
	f.db = test_db_open("jobs", f.path, sizeof f.path);
	if (!f.db)
		return -1;
	char err[256];
	const char *names[] = {"u1", "u2", "u3", "u4"};
	for (int i = 0; i < 4; i++)
		if (fs_user_create(f.db, names[i], NULL, 0, "a-long-password-1", &f.users[i], err, sizeof err))
			return -1;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	fx *f = *state;
	fs_db_close(f->db);
	test_db_remove(f->path);
	return 0;
}

static fs_job_rec job_for(long long user, long long mem)
{
	fs_job_rec j;
	memset(&j, 0, sizeof j);
	snprintf(j.kind, sizeof j.kind, "extract");
	j.user_id = user;
	j.pixels = mem / 26;
	j.mem_bytes = mem;
	return j;
}

static void admission_refuses_for_each_reason(void **state)
{
	fx *f = *state;
	fs_job_limits lim = {.max_running = 2, .mem_budget = 1000};
	int why;
	fs_job_rec a = job_for(f->users[0], 400), b = job_for(f->users[1], 400);
	assert_int_equal(fs_job_create(f->db, &a, 1, &lim, &why), 0);
	assert_int_equal(why, FS_JOB_OK);
	assert_string_equal(a.state, "starting");
	/* the same user again: one at a time */
	fs_job_rec a2 = job_for(f->users[0], 10);
	assert_int_equal(fs_job_create(f->db, &a2, 1, &lim, &why), 0);
	assert_int_equal(why, FS_JOB_REFUSED_USER);
	/* memory: 400 + 700 > 1000 */
	fs_job_rec big = job_for(f->users[1], 700);
	assert_int_equal(fs_job_create(f->db, &big, 1, &lim, &why), 0);
	assert_int_equal(why, FS_JOB_REFUSED_MEMORY);
	/* more than the whole budget: never */
	fs_job_rec huge = job_for(f->users[1], 1001);
	assert_int_equal(fs_job_create(f->db, &huge, 1, &lim, &why), 0);
	assert_int_equal(why, FS_JOB_REFUSED_TOO_BIG);
	assert_int_equal(fs_job_create(f->db, &b, 1, &lim, &why), 0);
	assert_int_equal(why, FS_JOB_OK);
	/* both slots taken */
	fs_job_rec c = job_for(f->users[2], 1);
	assert_int_equal(fs_job_create(f->db, &c, 1, &lim, &why), 0);
	assert_int_equal(why, FS_JOB_REFUSED_SITE);
	/* a refused job leaves no row; the retry estimate is a few seconds */
	fs_job_rec got;
	assert_int_equal(fs_job_get(f->db, a.id + 1, &got), 0);
	assert_int_equal(got.id, b.id);
	assert_int_equal(fs_job_get(f->db, b.id + 1, &got), FS_DB_NOTFOUND);
	assert_true(fs_job_retry_after(f->db, f->users[2]) >= 2);
	/* a final state is written once */
	int changed = 0;
	assert_int_equal(fs_job_finish(f->db, a.id, "done", "{\"n\":1}", NULL, &changed), 0);
	assert_int_equal(changed, 1);
	assert_int_equal(fs_job_finish(f->db, a.id, "failed", NULL, "late", &changed), 0);
	assert_int_equal(changed, 0);
	assert_int_equal(fs_job_get(f->db, a.id, &got), 0);
	assert_string_equal(got.state, "done");
	assert_true(got.progress == 1.0);
	fs_job_finish(f->db, b.id, "done", NULL, NULL, NULL);
}

static void queued_jobs_are_admitted_in_order_one_per_user(void **state)
{
	fx *f = *state;
	fs_job_limits lim = {.max_running = 2, .mem_budget = 1000};
	long long batch = 0;
	assert_int_equal(fs_batch_create(f->db, f->users[3], "b", &batch), 0);
	fs_job_rec q[3] = {job_for(f->users[3], 100), job_for(f->users[3], 100), job_for(f->users[2], 100)};
	int why;
	for (int i = 0; i < 3; i++) {
		q[i].batch_id = i < 2 ? batch : 0;
		assert_int_equal(fs_job_create(f->db, &q[i], 0, &lim, &why), 0);
		assert_string_equal(q[i].state, "queued");
	}
	fs_job_rec got;
	int found;
	/* u4's first, then u3's (u4 has one on the way), then nothing */
	assert_int_equal(fs_job_claim_next(f->db, &lim, &got, &found), 0);
	assert_int_equal(found, 1);
	assert_int_equal(got.id, q[0].id);
	assert_int_equal(fs_job_claim_next(f->db, &lim, &got, &found), 0);
	assert_int_equal(found, 1);
	assert_int_equal(got.id, q[2].id);
	assert_int_equal(fs_job_claim_next(f->db, &lim, &got, &found), 0);
	assert_int_equal(found, 0);
	/* u4's first ends: its second may go */
	assert_int_equal(fs_job_finish(f->db, q[0].id, "done", NULL, NULL, NULL), 0);
	assert_int_equal(fs_job_claim_next(f->db, &lim, &got, &found), 0);
	assert_int_equal(found, 1);
	assert_int_equal(got.id, q[1].id);
	assert_int_equal(got.batch_id, batch);
	cJSON *list = NULL;
	assert_int_equal(fs_job_list(f->db, f->users[3], batch, &list), 0);
	assert_int_equal(cJSON_GetArraySize(list), 2);
	cJSON_Delete(list);
	assert_int_equal(fs_batch_check_owner(f->db, batch, f->users[3]), 0);
	assert_int_equal(fs_batch_check_owner(f->db, batch, f->users[2]), FS_DB_NOTFOUND);
	fs_job_finish(f->db, q[1].id, "done", NULL, NULL, NULL);
	fs_job_finish(f->db, q[2].id, "done", NULL, NULL, NULL);
}

static void a_dead_worker_is_reaped(void **state)
{
	fx *f = *state;
	fs_job_limits lim = {.max_running = 2, .mem_budget = 1000};
	fs_job_rec j = job_for(f->users[1], 10);
	int why, ok = 0, n = 0;
	assert_int_equal(fs_job_create(f->db, &j, 1, &lim, &why), 0);
	/* this test process is alive but its command line does not name the job */
	assert_int_equal(fs_job_running(f->db, j.id, getpid(), &ok), 0);
	assert_int_equal(ok, 1);
	assert_int_equal(fs_job_reap(f->db, &n), 0);
	assert_int_equal(n, 1);
	fs_job_rec got;
	assert_int_equal(fs_job_get(f->db, j.id, &got), 0);
	assert_string_equal(got.state, "failed");
	/* a cancelled job cannot be started afterwards */
	fs_job_rec k = job_for(f->users[1], 10);
	assert_int_equal(fs_job_create(f->db, &k, 1, &lim, &why), 0);
	assert_int_equal(fs_job_finish(f->db, k.id, "cancelled", NULL, NULL, NULL), 0);
	assert_int_equal(fs_job_running(f->db, k.id, getpid(), &ok), 0);
	assert_int_equal(ok, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(admission_refuses_for_each_reason),
		cmocka_unit_test(queued_jobs_are_admitted_in_order_one_per_user),
		cmocka_unit_test(a_dead_worker_is_reaped),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
