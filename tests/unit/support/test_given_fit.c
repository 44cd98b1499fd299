/*
 * test_given_fit.c - FS_TEST_GIVEN_FIT=0|1|2 for every unit test binary
 * and bench: the last step's template fits at the given centres with a
 * cheaper centre search (detect_base_fit.h, fs_det_base_set_given_fit;
 * h51a: 1 none, 2 the cross). Unset or 0: the rule as shipped.
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

__attribute__((constructor)) static void test_given_fit_init(void)
{
	const char *v = getenv("FS_TEST_GIVEN_FIT");
	if (!v || !*v)
		return;
	if (v[1] || fs_det_base_set_given_fit(v[0] - '0') < 0) {
		fprintf(stderr, "FS_TEST_GIVEN_FIT=%s: 0, 1 or 2\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
}
