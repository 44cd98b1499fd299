/*
 * The dome rule's per-tubercle diameters under a halftone screen against
 * the SEM simulator's truth (issue 13 section 2: the per-tubercle D error
 * SD below 8 % of D where D >= 8 px and the screen's period <= D / 3).
 * Corner scenes 40 and 56 of test_sem_accuracy (pitch 64, fill 0.25, so
 * D = 16 px; low spherical caps, h/R 0.25; a 5-px screen; detector at 0
 * and 135 degrees): the formation fitted at the base rule's scattered
 * centres turned the detector round, and the template fit through it
 * coupled each dome's size to its centre's error along the detector's
 * axis (D error SD 9.2 and 10.4 %). With the formation fitted again at
 * the fit's centres (detect_base_fit.h, fs_det_base_refit_wanted) they
 * read 4.8 and 4.6 % (docs/paper-figures.md, section h33e).
 *
 * Per scene, through fs_detect_domes with the default parameters: the
 * detections matched to the truth within 0.25 pitch, over the truths at
 * least 0.75 pitch inside the scale region (as test_sem_accuracy counts
 * them): recall and precision at least 0.97, |mean D error| < 3 %, the SD
 * of the per-tubercle D error < 8 % and its RMS about zero (mean and
 * scatter together) < 8 %. Under the sanitizers scene 40 only.
 *
 * The refit's common offset (h34e): at pitch 16, fill 0.8 (D 12.8 px, gaps
 * 3.2 px) under the same screen, corner scene 9's candidates sit 2.9 px
 * (18 % of the pitch) towards the detector, and the formation fitted again
 * at the fit's centres still finds them 1.4 px off (the first fit had the
 * detector turned round): the refit's starts moved by that offset put the
 * centres' common error at 0.8 % of the pitch (main 6.6 %) and the mean D
 * at -3.1 % (main -13.9 %). Asserted: the common error under 3 % of the
 * pitch, |mean D error| under 5 %. About 0.7 s CPU plain.
 *
 * The refit's fill searched with its offset (h39a): corner scene 40 on
 * the seed 20000 further (a held-out seed set of h38v's, the one
 * whole-scene blow-up of 512 corner readings) had the refit's fill held
 * at 0.18 (truth 0.25), where the formation explained the domes'
 * asymmetry with a tall shadowed paraboloid and a weak side term (R^2
 * 0.95): mean D -19.0 %. Walked with the offset the fill leaves that
 * pocket (0.22, R^2 0.99): -3.0 %. Asserted: |mean D error| under 5 %
 * (h38v's blow-up bar) and the per-tubercle SD under 8 %.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/detect.h"
#include "sanitized.h"
#include "sem_cache.h"
#include "sem_scene.h"

static void screened_scene(int k)
{
	sem_opts o;
	sem_corner_scene(k, &o);
	sem_scene s;
	fs_detect_result res;
	assert_int_equal(sem_scene_detect(&s, &o, fs_detect_domes, &res), 0);
	const sem_truth *t = &s.tr;
	size_t n = res.tubercles.n;
	const fs_tubercle *det = res.tubercles.items;
	int *mdet = malloc((n + 1) * sizeof *mdet), *mtru = malloc((t->n + 1) * sizeof *mtru);
	assert_true(mdet && mtru);
	assert_int_equal(sem_match_tubercles(t, &res.tubercles, mdet, mtru), 0);
	size_t nt = 0, ntm = 0, nd = 0, ndm = 0, nm = 0;
	double se = 0, se2 = 0, dsum = 0;
	for (size_t j = 0; j < t->n; j++) {
		if (!sem_counted(t, t->x[j], t->y[j]))
			continue;
		nt++;
		if (mtru[j] < 0)
			continue;
		ntm++;
		double rd = res.tubercles.items[mtru[j]].radius_px;
		assert_true(isfinite(rd));
		double e = (2 * rd - t->d[j]) / t->d[j];
		se += e;
		se2 += e * e;
		dsum += t->d[j];
		nm++;
	}
	for (size_t i = 0; i < n; i++)
		if (sem_counted(t, det[i].centroid_x, det[i].centroid_y)) {
			nd++;
			ndm += mdet[i] >= 0;
		}
	assert_true(nm > 50);
	double mean = se / nm, sd = sqrt(fmax(0, (se2 - se * se / nm) / (nm - 1))), rms = sqrt(se2 / nm);
	printf("# scene %d: D %.1f px, %zu domes, recall %.3f, precision %.3f, D error mean %+.2f %%, "
	       "SD %.2f %%, RMS %.2f %%\n",
	       k, dsum / nm, nm, (double)ntm / nt, (double)ndm / nd, 100 * mean, 100 * sd, 100 * rms);
	/* the target applies: D >= 8 px, the period 5 <= D / 3 */
	assert_true(dsum / nm >= 8 && o.halftone <= dsum / nm / 3);
	assert_true((double)ntm / nt >= 0.97 && (double)ndm / nd >= 0.97);
	assert_true(fabs(mean) < 0.03);
	assert_true(sd < 0.08);
	assert_true(rms < 0.08);
	free(mdet);
	free(mtru);
	fs_detect_result_free(&res);
	sem_scene_close(&s);
}

static void tight_low_caps_screen_centres(void **state)
{
	(void)state;
	sem_match_errors e;
	double pitch;
	assert_int_equal(sem_corner_dome_errors(9, &e, &pitch), 0);
	assert_true(e.n > 100 && e.n_measured > 100);
	double bias = hypot(e.ox / e.n, e.oy / e.n) / pitch, derr = (e.sum_d - e.sum_truth) / e.sum_truth;
	printf("# scene 9: centres' common error %.2f %% of the pitch, mean D %+.2f %%, %zu domes\n", 100 * bias,
	       100 * derr, e.n);
	assert_true(bias < 0.03);
	assert_true(fabs(derr) < 0.05);
}

static void low_caps_screen_held_fill_pocket(void **state)
{
	(void)state;
	if (fs_test_subset())
		skip();
	sem_opts o;
	sem_corner_scene(40, &o);
	o.seed += 20000;
	sem_scene s;
	fs_detect_result res;
	assert_int_equal(sem_scene_detect(&s, &o, fs_detect_domes, &res), 0);
	const sem_truth *t = &s.tr;
	int *mtru = malloc((t->n + 1) * sizeof *mtru), *mdet = malloc((res.tubercles.n + 1) * sizeof *mdet);
	assert_true(mtru && mdet);
	assert_int_equal(sem_match_tubercles(t, &res.tubercles, mdet, mtru), 0);
	size_t nm = 0;
	double se = 0, se2 = 0;
	for (size_t j = 0; j < t->n; j++) {
		if (!sem_counted(t, t->x[j], t->y[j]) || mtru[j] < 0)
			continue;
		double e = (2 * res.tubercles.items[mtru[j]].radius_px - t->d[j]) / t->d[j];
		se += e;
		se2 += e * e;
		nm++;
	}
	assert_true(nm > 50);
	double mean = se / nm, sd = sqrt(fmax(0, (se2 - se * se / nm) / (nm - 1)));
	printf("# scene 40, seed +20000: %zu domes, D error mean %+.2f %%, SD %.2f %%\n", nm, 100 * mean, 100 * sd);
	/* before: -19.0 % */
	assert_true(fabs(mean) < 0.05);
	assert_true(sd < 0.08);
	free(mtru);
	free(mdet);
	fs_detect_result_free(&res);
	sem_scene_close(&s);
}

static void low_caps_screen_az0(void **state)
{
	(void)state;
	screened_scene(40);
}

static void low_caps_screen_az135(void **state)
{
	(void)state;
	if (fs_test_subset())
		skip();
	screened_scene(56);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(low_caps_screen_az0),
		cmocka_unit_test(low_caps_screen_az135),
		cmocka_unit_test(tight_low_caps_screen_centres),
		cmocka_unit_test(low_caps_screen_held_fill_pocket),
	};
	return cmocka_run_group_tests_name("dome rule under a screen: per-tubercle D", tests, NULL, NULL);
}
