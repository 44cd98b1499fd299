/*
 * test_ridge_lit.c - FS_TEST_RIDGE_LIT for every unit test binary and
 * bench: the level's low-passed ridge reading with the rays facing away
 * from the detector left out (detect_base_fit.h,
 * fs_det_base_set_ridge_lit; h48i) turned on for the process. Unset or 0:
 * the rule as shipped.
 *
 * Why a constructor (as test_held_lowpass.c's): the guard tables are then
 * read under the option without editing each main().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/detect_base_fit.h"

__attribute__((constructor)) static void test_ridge_lit_init(void)
{
	const char *v = getenv("FS_TEST_RIDGE_LIT");
	if (!v || !*v)
		return;
	if (strcmp(v, "0") && strcmp(v, "1")) {
		fprintf(stderr, "FS_TEST_RIDGE_LIT=%s: 0 or 1\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_det_base_set_ridge_lit(v[0] == '1');
}
