/*
 * test_first_formation.c - FS_TEST_FIRST_FORMATION=0..5 for every unit
 * test binary and bench: the last step sizes the domes through the first
 * pass's formation instead of fitting one again at the final centres
 * (detect_measure.h, fs_det_set_first_formation; h52d; 2: and the first
 * pass's template fits of the domes that stayed; 3: those fits, the
 * formation fitted again; 4, 5: mode 3 with the kept fits put on the
 * last step's templates' scale, by a sample's ratio or each read again
 * without the centre search, h53b). Unset or 0: the rule as shipped.
 *
 * Why a constructor (as test_given_fit.c's): the guard tables
 * (test_sem_accuracy, test_paper_images, bench_interior_seeds,
 * bench_noise_band, bench_detect_domes) are then read under the option
 * without editing each main().
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/detect_measure.h"

__attribute__((constructor)) static void test_first_formation_init(void)
{
	const char *v = getenv("FS_TEST_FIRST_FORMATION");
	if (!v || !*v)
		return;
	if (v[1] || fs_det_set_first_formation(v[0] - '0') < 0) {
		fprintf(stderr, "FS_TEST_FIRST_FORMATION=%s: 0 to 5\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
}
