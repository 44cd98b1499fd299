/*
 * The dome rule's centres on domes with a bright cap (issue 13, P1 Fig4;
 * docs/paper-figures.md, h37r and h37s).
 *
 * h37r's Fig4-like scenes (sem_opts.cap: the yield 1 + 0.15 (z/Z)^2, h/R
 * 0.3, fill 0.84, pitch 75, detector at -65 degrees, 2.84 px screen) drew
 * Fig4's lobe profile and its loss; bench_centre_steps (h37s) showed that
 * the formation fit's common offset finds the true centres there (-8..-10
 * px along the axis, R^2 0.93-0.98) but that the base rule's fit quality
 * at the moved centres fell by 0.19-0.29, so fs_det_offset_apply_one
 * refused every move and the centres stayed +10 px on the lit side (D
 * -44 %). With a well-fitted large offset the gate now allows a larger
 * drop (detect_offset.c): the centres must come back within 5 px along
 * the axis and D within -38 % (after: -21 % and -33 %; the rest is the
 * level's foot question of h37i); the same scene without the cap must keep
 * its centres within 3 px (its offset was applied before too).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/measurement.h"
#include "sem_cache.h"
#include "sem_scene.h"
#include "sem_sim.h"

/* h37r's capped Fig4-like scene: h/R 0.3, fill 0.84, cap exponent 2. */
static void fig4_like(sem_opts *o, double cap, unsigned seed)
{
	sem_fig4_like(o, 0.3, 0.84, 0, cap, 2);
	o->seed = seed;
}

/* The dome rule's mean centre offset along the detector's axis (+ towards
 * it) and mean D error of the matched domes on the scene. */
static void measure(double cap, unsigned seed, double *along, double *d_err)
{
	sem_opts o;
	sem_truth t;
	char err[256];
	fig4_like(&o, cap, seed);
	fs_image *img = sem_make_shared(&o, &t);
	assert_non_null(img);
	fs_params p;
	fs_params_default(&p);
	fs_detect_result res;
	assert_int_equal(fs_detect_rule_in_region(img, &p, 0, FS_RULE_DOME, NULL, &res, err, sizeof err), 0);
	sem_match_errors e;
	assert_int_equal(sem_matched_errors(&t, &res.tubercles, &e), 0);
	assert_true(e.n >= 40 && e.sum_truth > 0);
	double ax = cos(o.det_azimuth), ay = sin(o.det_azimuth); /* towards the detector */
	*along = (e.ox * ax + e.oy * ay) / e.n;
	*d_err = e.sum_d / e.sum_truth - 1;
	printf("cap %.2f seed %u: %zu matched, centres %+.2f px along the axis, D %+.1f %%\n", cap, seed, e.n,
	       *along, 100 * *d_err);
	fs_detect_result_free(&res);
	sem_truth_free(&t);
	fs_image_free(img);
}

static void capped_domes_keep_their_centres(void **state)
{
	(void)state;
	double along, d_err;
	/* before: +10.47 px, D -44.1 % (seed 1); +10.6 px (seed 2) */
	for (unsigned seed = 1; seed <= 2; seed++) {
		measure(0.15, seed, &along, &d_err);
		assert_true(fabs(along) < 5);
		assert_true(d_err > -0.38);
	}
}

static void uncapped_domes_unchanged(void **state)
{
	(void)state;
	double along, d_err;
	measure(0, 1, &along, &d_err);
	assert_true(fabs(along) < 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(capped_domes_keep_their_centres),
		cmocka_unit_test(uncapped_domes_unchanged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
