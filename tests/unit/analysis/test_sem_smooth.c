/*
 * The diameter measurement on smooth-footed domes (issue 13 sections 1
 * and 4, h34h): the simulator's cos^2 domes (SEM_PROFILE_SMOOTH,
 * sem_surface.h; D = the profile's support, where the height reaches the
 * ground with the ground's slope) in the 48 scenes of sem_smooth_scene
 * (fill 0.30 / 0.55 / 0.75 x pitch 24 / 48 x h/R 0.25 / 0.5 x detector
 * azimuth 0 / 135 degrees x halftone none / 5 px), the defaults' formation
 * and noise. P1 Fig1's tubercles are such domes (docs/paper-figures.md,
 * h34g): the 64 corner scenes, all sharp-footed, cannot show what a rule
 * does on them.
 *
 * Method auto with the default parameters through fs_detect_outline (the
 * outline rule, the default) and fs_detect_domes (the dome-base rule):
 * both tables printed, scored as test_sem_accuracy scores the corner
 * scenes (sem_score.h: recall, precision, mean D error %, mean S error %,
 * SD % of the per-tubercle D error; targets |D|, |S| < 3 %, SD < 8 %
 * where it applies, recall and precision >= 0.97).
 *
 * Not part of make test (tests/run_unit.sh skips it: 48 scenes measured
 * twice: 47 s of CPU, measured under load, plain); `make accuracy` runs
 * it. The asserts are the levels reached when it was written (a
 * regression guard, and a record of how far both rules are from the
 * targets on such domes), and the scenes' truth itself.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/detect.h"
#include "sem_cache.h"
#include "sem_scene.h"
#include "sem_score.h"

/* Levels reached at h34h (main 1259b2f's rules; docs/paper-figures.md,
 * section "2026-11-29 (h34h)"): neither rule meets mean D or mean S in
 * any scene (both read the domes 9-50 % small), so the guards are the
 * counts they do meet and ceilings on the mean |D error| and |S error|
 * over the 48 scenes (measured: outline 32.8 % / 49.6 %, dome 38.8 % /
 * 57.5 %); lower them when a rule gains. */
#define LEVEL_OUTLINE_SD 31
#define LEVEL_OUTLINE_RP 33
#define LEVEL_DOME_SD 32
#define LEVEL_DOME_RP 48
#define CEIL_OUTLINE_ABS_D 33.3
#define CEIL_OUTLINE_ABS_S 50.1
#define CEIL_DOME_ABS_D 39.3
#define CEIL_DOME_ABS_S 58.0

typedef struct summary {
	int d, s, sd, sd_applies, rp, all, run;
	double abs_d, abs_s; /* mean |D error| and |S error| over the scenes, % */
} summary;

static summary sum_outline, sum_dome;

static void run_scene(int k, sem_detect_fn fn, sem_score *r)
{
	sem_opts o;
	sem_truth t;
	sem_smooth_scene(k, &o);
	fs_image *img = sem_make_shared(&o, &t);
	assert_non_null(img);
	char err[256];
	assert_int_equal(sem_detect_score(img, &t, o.halftone, fn, r, err, sizeof err), 0);
	sem_truth_free(&t);
	fs_image_free(img);
}

static void run_table(const char *title, sem_detect_fn fn, summary *S)
{
	memset(S, 0, sizeof *S);
	clock_t c0 = clock();
	printf("%s\n", title);
	printf("%-5s %-4s %-3s %-4s %-3s %-3s %5s %5s %6s %6s %6s %4s\n", "scene", "fill", "pit", "h/R", "az",
	       "ht", "rec", "prec", "D%", "S%", "sdD%", "nan");
	for (int k = 0; k < SEM_SMOOTH_SCENES; k++) {
		sem_opts o;
		sem_smooth_scene(k, &o);
		sem_score r;
		S->run++;
		run_scene(k, fn, &r);
		int ok_d = fabs(r.d_err) < 3, ok_s = fabs(r.s_err) < 3;
		int ok_sd = !r.sd_applies || r.d_sd < 8;
		int ok_rp = r.recall >= 0.97 && r.precision >= 0.97;
		S->d += ok_d;
		S->s += ok_s;
		S->sd_applies += r.sd_applies;
		S->sd += r.sd_applies && r.d_sd < 8;
		S->rp += ok_rp;
		S->all += ok_d && ok_s && ok_sd && ok_rp;
		S->abs_d += isfinite(r.d_err) ? fabs(r.d_err) : 100;
		S->abs_s += isfinite(r.s_err) ? fabs(r.s_err) : 100;
		printf("%-5d %-4.2f %-3.0f %-4.2f %-3.0f %-3.0f %5.3f %5.3f %6.1f %6.1f %6.1f%s %3d %s%s%s%s\n", k,
		       o.fill, o.pitch, o.h_over_r, o.det_azimuth * 180 / M_PI, o.halftone, r.recall, r.precision,
		       r.d_err, r.s_err, r.d_sd, r.sd_applies ? "*" : " ", r.n_nan, ok_d ? "" : " D",
		       ok_s ? "" : " S", ok_sd ? "" : " SD", ok_rp ? "" : " RP");
		fflush(stdout);
	}
	S->abs_d /= SEM_SMOOTH_SCENES;
	S->abs_s /= SEM_SMOOTH_SCENES;
	printf("targets met: mean D %d/%d, mean S %d/%d, D SD %d/%d (* = applies), recall & precision %d/%d, "
	       "all four %d/%d; mean |D error| %.1f %%, |S error| %.1f %% (a scene without a reading counts "
	       "100); %.1f s of CPU\n",
	       S->d, SEM_SMOOTH_SCENES, S->s, SEM_SMOOTH_SCENES, S->sd, S->sd_applies, S->rp, SEM_SMOOTH_SCENES,
	       S->all, SEM_SMOOTH_SCENES, S->abs_d, S->abs_s, (double)(clock() - c0) / CLOCKS_PER_SEC);
}

static int run_all(void **state)
{
	(void)state;
	run_table("fs_detect (the outline rule, the default) on smooth-footed domes:", fs_detect_outline,
		  &sum_outline);
	run_table("fs_detect_domes (the dome-base rule) on smooth-footed domes:", fs_detect_domes, &sum_dome);
	return 0;
}

/* The set's truth: the diameters are fill x pitch (the radius jitter's
 * 4 % aside), the profile is the smooth one, and each of the set's
 * factors takes both (or all three) of its values. */
static void smooth_scenes_are_what_they_say(void **state)
{
	(void)state;
	int fills[3] = {0}, pitches[2] = {0}, hrs[2] = {0}, azs[2] = {0}, hts[2] = {0};
	for (int k = 0; k < SEM_SMOOTH_SCENES; k++) {
		sem_opts o;
		sem_smooth_scene(k, &o);
		assert_true(o.profile == SEM_PROFILE_SMOOTH);
		fills[o.fill < 0.4 ? 0 : o.fill < 0.6 ? 1 : 2]++;
		pitches[o.pitch > 30]++;
		hrs[o.h_over_r > 0.3]++;
		azs[o.det_azimuth > 0]++;
		hts[o.halftone > 0]++;
	}
	for (int i = 0; i < 3; i++)
		assert_int_equal(fills[i], SEM_SMOOTH_SCENES / 3);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pitches[i], SEM_SMOOTH_SCENES / 2);
		assert_int_equal(hrs[i], SEM_SMOOTH_SCENES / 2);
		assert_int_equal(azs[i], SEM_SMOOTH_SCENES / 2);
		assert_int_equal(hts[i], SEM_SMOOTH_SCENES / 2);
	}
	sem_opts o;
	sem_smooth_scene(SEM_SMOOTH_SCENES - 1, &o);
	sem_truth t;
	fs_image *img = sem_make(&o, &t);
	assert_non_null(img);
	double md = 0;
	for (size_t i = 0; i < t.n; i++)
		md += t.d[i];
	md /= t.n;
	assert_true(fabs(md - o.fill * o.pitch) < 0.02 * o.fill * o.pitch);
	sem_truth_free(&t);
	fs_image_free(img);
}

static void levels_reached(void **state)
{
	(void)state;
	assert_int_equal(sum_outline.run, SEM_SMOOTH_SCENES);
	assert_int_equal(sum_dome.run, SEM_SMOOTH_SCENES);
	assert_true(sum_outline.sd >= LEVEL_OUTLINE_SD);
	assert_true(sum_outline.rp >= LEVEL_OUTLINE_RP);
	assert_true(sum_outline.abs_d <= CEIL_OUTLINE_ABS_D);
	assert_true(sum_outline.abs_s <= CEIL_OUTLINE_ABS_S);
	assert_true(sum_dome.sd >= LEVEL_DOME_SD);
	assert_true(sum_dome.rp >= LEVEL_DOME_RP);
	assert_true(sum_dome.abs_d <= CEIL_DOME_ABS_D);
	assert_true(sum_dome.abs_s <= CEIL_DOME_ABS_S);
}

int main(void)
{
	const struct CMUnitTest truth[] = {
		cmocka_unit_test(smooth_scenes_are_what_they_say),
	};
	const struct CMUnitTest acc[] = {
		cmocka_unit_test(levels_reached),
	};
	int rc = cmocka_run_group_tests_name("sem smooth-footed scenes", truth, NULL, NULL);
	rc |= cmocka_run_group_tests_name("sem smooth-footed accuracy", acc, run_all, NULL);
	return rc;
}
