/*
 * test_gap_level.c - FS_TEST_GAP_LEVEL for every unit test binary and
 * bench: the dome rule's experimental level from the valleys under a tight
 * screen (detect_base_gap.h, fs_det_base_set_gap; h47g) turned on for the
 * process: 1 the lit feet's valley fit, 2 every foot's steepest steps,
 * 3 those lifted by the steps' mean excess (h48c) (FS_DET_GAP_FIT_LIT,
 * FS_DET_GAP_STEPS_ALL, FS_DET_GAP_STEPS_LIFTED). Unset: the rule as
 * shipped (3 since h48c); 0 the rays' reading under a tight screen.
 *
 * Why a constructor (as test_offset_walk.c's): the guard tables are then
 * read under the option without editing each main().
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/detect_base_gap.h"

__attribute__((constructor)) static void test_gap_level_init(void)
{
	const char *v = getenv("FS_TEST_GAP_LEVEL");
	if (!v || !*v)
		return;
	char *end;
	long mode = strtol(v, &end, 10);
	if (*end || mode < 0 || mode > 3) {
		fprintf(stderr, "FS_TEST_GAP_LEVEL=%s: 0, 1, 2 or 3\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_det_base_set_gap((int)mode);
}
