/*
 * The dome rule's level under a halftone screen on corner scene 59
 * (pitch 64, fill 0.8, flat tops of h/R 0.25, 5-px screen, detector at
 * 135 degrees; issue 13 section 2, group C; docs/paper-figures.md h41e,
 * h41i): the cast shadow on the side away from the detector lengthens
 * the away rays of every level reading on the screen's low-pass, and
 * the scene read +1.1..+1.9 % on all 8 seed sets (+1.6 % on the test
 * seed), beyond the 0.75 % its space needs at fill 0.8. The screened
 * shadow factor (fs_det_base_shadow_factor_screened, from the level's
 * own readings) and the cut domes' short readings left out of the
 * screened level (h40g's gate) take it to +1.0 % here: checked below
 * 1.3 %, which main's library (613555b) fails.
 * Cost: one corner scene rendered (or read from SEM_SCENE_CACHE) and
 * detected: about 1 s plain without the cache.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "sem_scene.h"

static void screened_low_flat_tops_shed_the_away_shadow(void **state)
{
	(void)state;
	sem_match_errors e;
	double pitch;
	assert_int_equal(sem_corner_dome_errors(59, &e, &pitch), 0);
	assert_true(e.n_measured > 60);
	double derr = (e.sum_d - e.sum_truth) / e.sum_truth;
	printf("# scene 59: mean D %+.2f %% over %zu measured domes\n", 100 * derr, e.n_measured);
	assert_true(fabs(derr) < 0.013);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(screened_low_flat_tops_shed_the_away_shadow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
