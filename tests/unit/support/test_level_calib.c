/*
 * test_level_calib.c - FS_TEST_LEVEL_CALIB=0|1|2 for every unit test
 * binary and bench: the level reader's own excess read on the formation's
 * lattice (level_calib.h, fs_level_calib_set; h52a) off (0), read and
 * traced only (1) or divided out of the level (2) for the process.
 * Unset: the rule as shipped (0).
 *
 * Why a constructor (as test_axis_calib.c's): the guard tables
 * (test_sem_accuracy, bench_noise_band, bench_detect_domes, ...) are then
 * read with it on without editing each main().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/level_calib.h"

__attribute__((constructor)) static void test_level_calib_init(void)
{
	const char *v = getenv("FS_TEST_LEVEL_CALIB");
	if (!v || !*v)
		return;
	if (strcmp(v, "0") && strcmp(v, "1") && strcmp(v, "2")) {
		fprintf(stderr, "FS_TEST_LEVEL_CALIB=%s: 0, 1 or 2\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_level_calib_set(v[0] - '0');
}
