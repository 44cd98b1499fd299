/*
 * test_offset_walk.c - FS_TEST_OFFSET_WALK for every unit test binary and
 * bench: the dome rule's experimental offset walk (detect_offset.h,
 * fs_det_offset_set_walk; h46i) turned on for the process, 1 keeping the
 * first formation, 2 the last fit's. Unset or 0: the rule as shipped.
 *
 * Why a constructor (as test_rule.c's): the guard tables (test_sem_accuracy,
 * test_paper_images, bench_interior_seeds, ...) are then read under the
 * walk without editing each main().
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/detect_offset.h"

__attribute__((constructor)) static void test_offset_walk_init(void)
{
	const char *v = getenv("FS_TEST_OFFSET_WALK");
	if (!v || !*v)
		return;
	char *end;
	long mode = strtol(v, &end, 10);
	if (*end || mode < 0 || mode > 2) {
		fprintf(stderr, "FS_TEST_OFFSET_WALK=%s: 0, 1 or 2\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_det_offset_set_walk((int)mode);
}
