/*
 * test_ncc_coarse.c - FS_TEST_NCC_COARSE for every unit test binary and
 * bench: the dome rule's correlation coarse to fine on a reduced image
 * (dome_ncc_coarse.h, fs_dome_ncc_set_coarse; h48f) turned off (0) or on
 * (1) for the process. Unset: the rule as shipped (off).
 *
 * Why a constructor (as test_cand_walk.c's): the guard tables
 * (test_sem_accuracy, test_paper_images, bench_interior_seeds,
 * bench_noise_band, bench_detect_domes, ...) are then read with the
 * coarse correlation (FS_TEST_NCC_COARSE=1) without editing each main().
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/dome_ncc_coarse.h"

__attribute__((constructor)) static void test_ncc_coarse_init(void)
{
	const char *v = getenv("FS_TEST_NCC_COARSE");
	if (!v || !*v)
		return;
	char *end;
	long on = strtol(v, &end, 10);
	if (*end || on < 0 || on > 1) {
		fprintf(stderr, "FS_TEST_NCC_COARSE=%s: 0 or 1\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_dome_ncc_set_coarse((int)on);
}
