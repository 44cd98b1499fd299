/* test_worker_slots.c - the lock-file slots that bound the data-bar readers (app/worker_slots.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/worker_slots.h"

static void n_slots_then_none_until_one_is_given_back(void **state)
{
	(void)state;
	char dir[] = "/tmp/fs-slots-XXXXXX", err[256];
	assert_non_null(mkdtemp(dir));
	int a = fs_worker_slot_take(dir, "t", 2, 0, err, sizeof err);
	int b = fs_worker_slot_take(dir, "t", 2, 0, err, sizeof err);
	assert_true(a >= 0 && b >= 0);
	/* both taken: a third waits (here 100 ms) and gives up with a reason */
	assert_int_equal(fs_worker_slot_take(dir, "t", 2, 100, err, sizeof err), -1);
	assert_non_null(strstr(err, "try again later"));
	close(a);
	int c = fs_worker_slot_take(dir, "t", 2, 0, err, sizeof err);
	assert_true(c >= 0);
	close(b);
	close(c);
	char p[300];
	for (int k = 0; k < 2; k++) {
		snprintf(p, sizeof p, "%s/t-%d.lock", dir, k);
		unlink(p);
	}
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(n_slots_then_none_until_one_is_given_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
