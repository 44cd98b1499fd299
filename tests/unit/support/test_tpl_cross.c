/*
 * test_tpl_cross.c - FS_TEST_TPL_CROSS=0|1 for every unit test binary and
 * bench: the template fit's centre search along the axes with the vertex
 * from six trial centres (dome_base_fit.h, fs_dome_tpl_set_cross_search;
 * h47e) turned off (0: the eight neighbours and the nine's least squares,
 * the rule as shipped) or on (1) for the process. Unset: the rule as
 * shipped (off; h48e had it on for part of stop 48).
 *
 * Why a constructor (as test_offset_walk.c's): the guard tables
 * (test_sem_accuracy, test_paper_images, bench_interior_seeds,
 * bench_detect_domes) are then read under the option without editing
 * each main().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/dome_base_fit.h"

__attribute__((constructor)) static void test_tpl_cross_init(void)
{
	const char *v = getenv("FS_TEST_TPL_CROSS");
	if (!v || !*v)
		return;
	if (strcmp(v, "0") && strcmp(v, "1")) {
		fprintf(stderr, "FS_TEST_TPL_CROSS=%s: 0 or 1\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_dome_tpl_set_cross_search(v[0] == '1');
}
