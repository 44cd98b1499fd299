/*
 * test_held_lowpass.c - FS_TEST_HELD_LP for every unit test binary and
 * bench: the unrefined path's formation held at the low-passed level
 * readings (detect_offset.h, fs_det_offset_set_held_lowpass; h48d)
 * turned on for the process. Unset or 0: the rule as shipped.
 *
 * Why a constructor (as test_cand_walk.c's): the guard tables
 * (test_sem_accuracy, bench_interior_seeds, bench_cand_offsets, ...) are
 * then read under the option without editing each main().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/detect_offset.h"

__attribute__((constructor)) static void test_held_lowpass_init(void)
{
	const char *v = getenv("FS_TEST_HELD_LP");
	if (!v || !*v)
		return;
	if (strcmp(v, "0") && strcmp(v, "1")) {
		fprintf(stderr, "FS_TEST_HELD_LP=%s: 0 or 1\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_det_offset_set_held_lowpass(v[0] == '1');
}
