/*
 * test_foot_option.c - FS_TEST_FOOT for every unit test binary and bench:
 * the dome rule's experimental foot search (detect_offset.h,
 * fs_det_offset_set_foot; h47c) turned on for the process, the value its
 * passes' bits (1 the first pass, 2 the last step and Re-measure, 3
 * both). Unset or 0: the rule as shipped.
 *
 * Why a constructor (as test_offset_walk.c's): the guard tables
 * (test_sem_accuracy, test_paper_images, bench_interior_seeds, ...) are
 * then read under the option without editing each main().
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/detect_offset.h"

__attribute__((constructor)) static void test_foot_option_init(void)
{
	const char *v = getenv("FS_TEST_FOOT");
	if (!v || !*v)
		return;
	char *end;
	long passes = strtol(v, &end, 10);
	if (*end || passes < 0 || passes > 3) {
		fprintf(stderr, "FS_TEST_FOOT=%s: 0, 1, 2 or 3\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_det_offset_set_foot((unsigned)passes);
}
