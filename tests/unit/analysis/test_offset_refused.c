/*
 * The formation's offset refused by the refined circles under a halftone
 * screen (detect_offset.h, fs_det_offset_refused, h43j): on the interior
 * scenes printed under a 5-px screen the first pass's refinement takes
 * the low domes' centres 1-2.5 px further towards the detector, the
 * offset's trials from there lose a median 0.15 of quality and 60-80 % of
 * them are refused, and detection's centres stayed 4-15 % of the pitch
 * off (mean D -10..-48 %). Where most domes refuse a good fit's offset
 * under a screen, the candidates are measured again without the
 * refinement. Checked: the rule's judgement (a screen, a good fit, fewer
 * than half of the domes moved), and detection of interior scene 6 under
 * a 5-px screen (fill 0.5, pitch 40, detector at 135 degrees): mean D
 * -42.2 % before, -6.5 % now (asserted within 10 %: the level from the
 * rule's centres, 0.2-1 px off, is not yet within 3 %).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/detect_offset.h"
#include "sanitized.h"
#include "sem_scene.h"
#include "sem_score.h"
#include "sem_sim.h"

#define N 10

/* n domes of which the first moved ones were moved by the offset's
 * trials, under a formation with the given screen and R^2 */
static int refused(double halftone, double quality, int applied, size_t moved)
{
	fs_det_offset off;
	memset(&off, 0, sizeof off);
	off.applied = applied;
	off.quality = quality;
	off.fit.halftone = halftone;
	fs_measured meas[N];
	double bx[N], by[N];
	memset(meas, 0, sizeof meas);
	for (size_t i = 0; i < N; i++) {
		meas[i].ok = 1;
		meas[i].t.fit_quality = 0.8;
		meas[i].t.radius_px = 8;
		bx[i] = meas[i].t.centroid_x = 20.0 * (double)i;
		by[i] = meas[i].t.centroid_y = 10;
		if (i < moved)
			meas[i].t.centroid_x -= 2.5;
	}
	/* not a dome (quality under 0.45): not counted either way */
	meas[N - 1].t.fit_quality = 0.2;
	return fs_det_offset_refused(&off, meas, bx, by, N);
}

static void refused_only_by_most_domes_of_a_good_printed_fit(void **state)
{
	(void)state;
	/* 9 domes: 4 moved is fewer than half, 5 is not */
	assert_true(refused(5, 0.93, 1, 4));
	assert_false(refused(5, 0.93, 1, 5));
	assert_true(refused(5, 0.93, 1, 0));
	assert_false(refused(0, 0.93, 1, 0));  /* no screen */
	assert_false(refused(5, 0.90, 1, 0));  /* the fit not good enough */
	assert_false(refused(5, 0.93, 0, 0));  /* no offset applied */
}

static void printed_interior_scene_read_near_its_true_diameter(void **state)
{
	(void)state;
	if (fs_test_subset())
		return;
	sem_opts o;
	sem_interior_scene(6, &o);
	o.halftone = 5;
	sem_scene s;
	fs_detect_result res;
	assert_int_equal(sem_scene_detect(&s, &o, fs_detect_domes, &res), 0);
	sem_score sc;
	assert_int_equal(sem_score_detection(&s.tr, &res.tubercles, o.halftone, &sc), 0);
	print_message("interior scene 6 under a 5-px screen: mean D %+.2f %%, recall %.3f\n", sc.d_err, sc.recall);
	assert_true(sc.recall >= 0.97);
	assert_true(fabs(sc.d_err) < 10);
	fs_detect_result_free(&res);
	sem_scene_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(refused_only_by_most_domes_of_a_good_printed_fit),
		cmocka_unit_test(printed_interior_scene_read_near_its_true_diameter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
