/*
 * test_step_sample.c - FS_TEST_STEP_SAMPLE=N for every unit test binary and
 * bench: the step judgement's sample bound (detect_base_fit.h,
 * fs_det_base_set_step_sample; h51a judged a smaller bound than
 * FS_DET_BASE_STEP_SAMPLE). Unset: the rule as shipped.
 *
 * Why a constructor (as test_lean_half.c's): the guard tables are then
 * read under the bound without editing each main().
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/detect_base_fit.h"

__attribute__((constructor)) static void test_step_sample_init(void)
{
	const char *v = getenv("FS_TEST_STEP_SAMPLE");
	if (!v || !*v)
		return;
	char *end;
	long n = strtol(v, &end, 10);
	if (*end || n < 0) {
		fprintf(stderr, "FS_TEST_STEP_SAMPLE=%s: a count, 0 for no sample\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_det_base_set_step_sample((size_t)n);
}
