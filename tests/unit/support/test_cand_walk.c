/*
 * test_cand_walk.c - FS_TEST_CAND_WALK for every unit test binary and
 * bench: detection's candidates' walk under a coarse screen
 * (detect_walk.h, fs_det_walk_set; h46c, h47b) turned on for the
 * process: 0 off, 1 on, 2 on with the walked domes' level read without
 * the far rays (detect_walk.h). Unset: the rule as shipped (2 since h51f).
 *
 * Why a constructor (as test_offset_walk.c's): the guard tables
 * (test_sem_accuracy, test_paper_images, bench_interior_seeds,
 * test_detect_domes_tiled, ...) are then read under the walk without
 * editing each main().
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/detect_walk.h"

__attribute__((constructor)) static void test_cand_walk_init(void)
{
	const char *v = getenv("FS_TEST_CAND_WALK");
	if (!v || !*v)
		return;
	char *end;
	long on = strtol(v, &end, 10);
	if (*end || on < 0 || on > 2) {
		fprintf(stderr, "FS_TEST_CAND_WALK=%s: 0, 1 or 2\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_det_walk_set((int)on);
}
