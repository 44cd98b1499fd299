/*
 * test_frame_snap.c - FS_TEST_FRAME_SNAP=0|1 for every unit test binary
 * and bench: the dome reading's frame-edge snap (dome_measure.h,
 * fs_dome_set_frame_snap; h49m) off (0: a start a rounding outside the
 * frame fails, the rule before h49m) or on (1) for the process. Unset:
 * the rule as shipped (on).
 *
 * Why a constructor (as test_tpl_cross.c's): the guard tables
 * (test_sem_accuracy, bench_noise_band, bench_detect_domes, ...) are then
 * read with the snap off without editing each main().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/dome_measure.h"

__attribute__((constructor)) static void test_frame_snap_init(void)
{
	const char *v = getenv("FS_TEST_FRAME_SNAP");
	if (!v || !*v)
		return;
	if (strcmp(v, "0") && strcmp(v, "1")) {
		fprintf(stderr, "FS_TEST_FRAME_SNAP=%s: 0 or 1\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_dome_set_frame_snap(v[0] == '1');
}
