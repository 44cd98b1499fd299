/*
 * test_nobase_option.c - FS_TEST_NOBASE for every unit test binary and
 * bench: the dome rule's no-base verdict (detect_base_fit.h,
 * fs_det_base_set_nobase; h49h) not taken (0) for the process, so an
 * image the rule leaves unmeasured shows what it would read. Unset or 1:
 * the rule as shipped.
 *
 * Why a constructor (as test_ridge_lit.c's): the paper table and the
 * no-base scenes are then read without the verdict without editing each
 * main().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/detect_base_fit.h"

__attribute__((constructor)) static void test_nobase_init(void)
{
	const char *v = getenv("FS_TEST_NOBASE");
	if (!v || !*v)
		return;
	if (strcmp(v, "0") && strcmp(v, "1")) {
		fprintf(stderr, "FS_TEST_NOBASE=%s: 0 or 1\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_det_base_set_nobase(v[0] == '1' ? FS_DET_NOBASE_VERDICT : FS_DET_NOBASE_OFF);
}
