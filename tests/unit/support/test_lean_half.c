/*
 * test_lean_half.c - FS_TEST_LEAN_HALF=0|1|2|3 for every unit test binary and
 * bench: the dome rule's lean first pass on half its rays
 * (dome_measure.h, fs_dome_set_lean_half; h48e) for the process. Unset or
 * 0: the rule as shipped.
 *
 * Why a constructor (as test_tpl_cross.c's): the guard tables
 * (test_sem_accuracy, test_paper_images, bench_interior_seeds,
 * bench_noise_band, bench_detect_domes) are then read under the option
 * without editing each main().
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/dome_measure.h"

__attribute__((constructor)) static void test_lean_half_init(void)
{
	const char *v = getenv("FS_TEST_LEAN_HALF");
	if (!v || !*v)
		return;
	if (v[1] || fs_dome_set_lean_half(v[0] - '0')) {
		fprintf(stderr, "FS_TEST_LEAN_HALF=%s: 0, 1, 2 or 3\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
}
