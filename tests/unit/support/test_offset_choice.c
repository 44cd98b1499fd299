/*
 * test_offset_choice.c - FS_TEST_OFFSET_CHOICE=0..63 for every unit test
 * binary and bench: the dome rule's offset search chooses between its
 * basins by fs_dome_fit_offset_pick (bit 1), takes the fine grid's
 * vertex (bit 2), and the mean patch averages a stable sample of the
 * centres (bit 4; its cells of the rounded pitch, bit 8), up to 128
 * centres (bit 16), or every k-th of the whole neighbourhoods (bit 32)
 * for the process (dome_fit.h, fs_dome_fit_set_offset_choice; h48a,
 * h48m). Unset or 0: the rule as shipped.
 *
 * Why a constructor (as test_tpl_cross.c's): the guard tables
 * (test_sem_accuracy, test_paper_images, bench_interior_seeds,
 * bench_noise_band, bench_detect_domes) are then read under the option
 * without editing each main().
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/dome_fit.h"

__attribute__((constructor)) static void test_offset_choice_init(void)
{
	const char *v = getenv("FS_TEST_OFFSET_CHOICE");
	if (!v || !*v)
		return;
	char *end;
	unsigned long b = strtoul(v, &end, 10);
	if (*end || b > 63 || v[0] < '0' || v[0] > '9') {
		fprintf(stderr, "FS_TEST_OFFSET_CHOICE=%s: 0..63\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_dome_fit_set_offset_choice((unsigned)b);
}
