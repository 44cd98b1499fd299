/*
 * test_perdome_calib.c - FS_TEST_PERDOME_CALIB=0|1|2 for every unit test
 * binary and bench: the per-dome lit-side step judged and moved through
 * the formation's own lattice (centre_perdome_calib.h,
 * fs_centre_perdome_set_calib; h52b) off (0), on behind the step's gates
 * of today (1), or also where only the base's size or the gap kept it off
 * (2), and as 2 with each dome read against its own across-axis profile
 * (3), or flagged by both and moved by the sum's reading (4). Unset:
 * the rule as shipped (0).
 *
 * Why a constructor (as test_axis_calib.c's): the guard tables are then
 * read with it on without editing each main().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/centre_perdome_calib.h"

__attribute__((constructor)) static void test_perdome_calib_init(void)
{
	const char *v = getenv("FS_TEST_PERDOME_CALIB");
	if (!v || !*v)
		return;
	if (strcmp(v, "0") && strcmp(v, "1") && strcmp(v, "2") && strcmp(v, "3") && strcmp(v, "4")) {
		fprintf(stderr, "FS_TEST_PERDOME_CALIB=%s: 0, 1, 2, 3 or 4\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_centre_perdome_set_calib(v[0] - '0');
}
