/*
 * test_still_given.c - FS_TEST_STILL_GIVEN=0|1 for every unit test binary
 * and bench: the last step's template fits at the given centres without
 * a centre search (detect_base_fit.h, fs_det_base_set_still_given; h51a).
 * Unset: the rule as shipped.
 *
 * Why a constructor (as test_lean_half.c's): the guard tables
 * (test_sem_accuracy, test_paper_images, bench_interior_seeds,
 * bench_noise_band, bench_detect_domes) are then read under the option
 * without editing each main().
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/detect_base_fit.h"

__attribute__((constructor)) static void test_still_given_init(void)
{
	const char *v = getenv("FS_TEST_STILL_GIVEN");
	if (!v || !*v)
		return;
	if (v[1] || (v[0] != '0' && v[0] != '1')) {
		fprintf(stderr, "FS_TEST_STILL_GIVEN=%s: 0 or 1\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_det_base_set_still_given(v[0] == '1');
}
