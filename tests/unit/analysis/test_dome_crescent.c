/*
 * The dome rule's centres where a tall dome's cast shadow makes a dark
 * crescent on the side away from the detector (P2 Fig1c's look; issue 13,
 * docs/paper-figures.md h38i and h38s).
 *
 * The scene: P2 Fig1c's frame and formation as the formation fit reads the
 * figure (sem_fig1c_like: 355 x 438 px, pitch 43, fill 0.488, detector at
 * azimuth 162 and elevation 25 deg), paraboloids of h/R 1, a beam blur of
 * 3 px and a shadow of depth 0.7. The candidates start on the middle of
 * each bright blob and its crescent, 0.2 pitch from the dome's centre,
 * and the formation fitted there has no shadow term (a dome drawn there
 * casts its shadow where the image is bright) and an offset short of the
 * way back. Before h38s the rule's centres stayed 7.6-8.3 px (0.18-0.19
 * pitch) into the crescent on seeds 1-6 and the sizes read about them took
 * the crescent in (D +41.2 % on seed 1, +17.2 % on seed 2; Re-measure at
 * the true centres +0.3 %); the formation fitted once more at the moved
 * centres (detect_offset.c) brings them within 2 px on seeds 1-5 (D
 * +14.5 %, +15.2 %). Sizes 2 px off still read 15 % large: what is left
 * is not asserted away. Cost: about 2 s of CPU plain (two renders shared
 * through SEM_SCENE_CACHE, two detections, one Re-measure); the
 * sanitizers' subset takes seed 1 only.
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

#include "analysis/detect.h"
#include "analysis/measurement.h"
#include "sanitized.h"
#include "sem_cache.h"
#include "sem_scene.h"
#include "sem_sim.h"

static fs_image *scene(unsigned seed, sem_opts *o, sem_truth *tr)
{
	sem_fig1c_like(o, 1.0);
	o->beam_blur = 3;
	o->shadow = 0.7;
	o->seed = seed;
	fs_image *img = sem_make_shared(o, tr);
	assert_non_null(img);
	return img;
}

/* The matched domes' mean centre offset along the detector's axis (px,
 * + towards the detector) and their mean D error (share of the truth). */
static void errors(const sem_opts *o, const sem_truth *tr, const fs_tubercle_list *t, size_t *n, double *along,
		   double *derr)
{
	sem_match_errors e;
	assert_int_equal(sem_matched_errors(tr, t, &e), 0);
	*n = e.n;
	*along = e.n ? (e.ox * cos(o->det_azimuth) + e.oy * sin(o->det_azimuth)) / (double)e.n : NAN;
	*derr = e.sum_truth > 0 ? e.sum_d / e.sum_truth - 1 : NAN;
}

static void centres_leave_the_crescent(void **state)
{
	(void)state;
	unsigned last = fs_test_subset() ? 1 : 2;
	for (unsigned seed = 1; seed <= last; seed++) {
		sem_opts o;
		sem_truth tr;
		char err[256];
		fs_image *img = scene(seed, &o, &tr);
		fs_params p;
		fs_params_default(&p);
		fs_detect_result res;
		assert_int_equal(fs_detect_rule_in_region(img, &p, 0, FS_RULE_DOME, NULL, &res, err, sizeof err), 0);
		size_t n;
		double along, derr;
		errors(&o, &tr, &res.tubercles, &n, &along, &derr);
		printf("seed %u: %zu matched, centres %+.2f px along the axis (%.3f pitch), D %+.1f %%\n", seed, n,
		       along, along / o.pitch, 100 * derr);
		assert_true(n >= 60); /* of 64-67 counted domes */
		/* before: -7.9 / -8.3 px (0.18 / 0.19 pitch) */
		assert_true(fabs(along) < 0.1 * o.pitch);
		/* before: +41.2 % on seed 1 */
		assert_true(derr < 0.25);
		fs_detect_result_free(&res);
		if (seed == 1) {
			/* the sizes are right where the centres are (before
			 * h38s too, +0.3 %): what the rule got wrong here was
			 * where it put them */
			fs_tubercle_list t;
			memset(&t, 0, sizeof t);
			assert_int_equal(sem_inside_centres(&tr, &t), 0);
			assert_int_equal(fs_measure_centres_rule(img, &p, 0, FS_RULE_DOME, &t, err, sizeof err), 0);
			errors(&o, &tr, &t, &n, &along, &derr);
			printf("  Re-measure at the true centres: %zu matched, D %+.1f %%\n", n, 100 * derr);
			assert_true(n >= 60);
			assert_true(fabs(derr) < 0.05);
			fs_tubercle_list_free(&t);
		}
		sem_truth_free(&tr);
		fs_image_free(img);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(centres_leave_the_crescent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
