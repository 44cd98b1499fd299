/*
 * test_axis_calib.c - FS_TEST_AXIS_CALIB=0|1 for every unit test binary
 * and bench: the axis step's own shift at tight gaps read on the
 * formation's lattice and taken off (centre_axis_calib.h,
 * fs_centre_axis_set_calib; h51g) off (0) or on (1; 2 at the blur the
 * image's across-axis profile shows) for the process.
 * Unset: the rule as shipped (mode 2).
 *
 * Why a constructor (as test_frame_snap.c's): the guard tables
 * (test_sem_accuracy, bench_noise_band, bench_detect_domes, ...) are then
 * read with it on without editing each main().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/centre_axis_calib.h"

__attribute__((constructor)) static void test_axis_calib_init(void)
{
	const char *v = getenv("FS_TEST_AXIS_CALIB");
	if (!v || !*v)
		return;
	if (strcmp(v, "0") && strcmp(v, "1") && strcmp(v, "2")) {
		fprintf(stderr, "FS_TEST_AXIS_CALIB=%s: 0, 1 or 2\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_centre_axis_set_calib(v[0] - '0');
}
