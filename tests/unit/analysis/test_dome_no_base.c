/*
 * The dome rule where the image shows no base (issue 13's contract: a
 * tubercle whose base cannot be measured keeps its centre and says so;
 * detect_base_fit.h, docs/paper-figures.md h37p and h38b).
 *
 * The scene: P1 Fig1's frame (700 x 540 px, pitch 84, fill 0.51) of low
 * smooth-footed domes (cos^2, h/R 0.25) on ground rough enough (SD 0.3 px
 * of height) that its texture's steps are as strong as the faint foot's:
 * the first simulated scene on which most of the level's readings lie on
 * no step (all of them, 50-53, on seeds 1-3, h38b), as on P1 Fig1, Fig6
 * and P3 Fig4, and on which the template's pick lay on an end of its
 * window. Before, the rule printed the window's sizes there (D +19.0 %,
 * +4.7 %, +10.1 % on seeds 1-3; -23 to +21 % over the nine scenes of
 * that branch h38b tried); now every dome keeps its centre (recall as
 * before), has no diameter, and its fit quality is a dome's (>= 0.45:
 * "a dome, its base not shown", measurement.h), under detection and under
 * Re-measure at the true centres. The same frame on the simulator's
 * default ground (roughness 0.05) keeps its diameters: the branch is the
 * image's, not the frame's. With the verdict not taken (h49h's
 * instrument) the frame is sized at the templates' window, +19 %. Cost:
 * about 0.8 s of CPU plain (three renders of 700 x 540 px, shared through
 * SEM_SCENE_CACHE, and five dome-rule runs; 0.3 s with the renders
 * cached).
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
#include "analysis/detect_base_fit.h"
#include "analysis/measurement.h"
#include "sem_cache.h"
#include "sem_scene.h"
#include "sem_sim.h"

static void frame(sem_opts *o, double roughness, unsigned seed)
{
	sem_defaults(o);
	o->width = 700;
	o->height = 540;
	o->pitch = 84;
	o->fill = 0.51;
	o->profile = SEM_PROFILE_SMOOTH;
	o->h_over_r = 0.25;
	o->roughness = roughness;
	o->seed = seed;
}

/* Counts over the tubercles of t matched to the truth: *matched, and of
 * them *sized (a diameter) and *dome (no diameter, a dome's fit quality). */
static void tally(const sem_truth *tr, const fs_tubercle_list *t, size_t *matched, size_t *sized, size_t *dome)
{
	int *mo = malloc((t->n ? t->n : 1) * sizeof *mo);
	assert_non_null(mo);
	assert_int_equal(sem_match_tubercles(tr, t, mo, NULL), 0);
	*matched = *sized = *dome = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (mo[i] < 0 || !sem_counted(tr, tr->x[mo[i]], tr->y[mo[i]]))
			continue;
		const fs_tubercle *q = &t->items[i];
		(*matched)++;
		*sized += fs_tubercle_measured(q);
		*dome += !fs_tubercle_measured(q) && q->fit_quality >= FS_DOME_NO_DOME_QUALITY;
	}
	free(mo);
}

static void detect(double roughness, unsigned seed, size_t *matched, size_t *sized, size_t *dome)
{
	sem_opts o;
	sem_truth tr;
	char err[256];
	frame(&o, roughness, seed);
	fs_image *img = sem_make_shared(&o, &tr);
	assert_non_null(img);
	fs_params p;
	fs_params_default(&p);
	fs_detect_result res;
	assert_int_equal(fs_detect_rule_in_region(img, &p, 0, FS_RULE_DOME, NULL, &res, err, sizeof err), 0);
	tally(&tr, &res.tubercles, matched, sized, dome);
	printf("roughness %.2f seed %u: %zu matched, %zu sized, %zu domes without a base\n", roughness, seed,
	       *matched, *sized, *dome);
	fs_detect_result_free(&res);
	sem_truth_free(&tr);
	fs_image_free(img);
}

static void no_base_no_diameter(void **state)
{
	(void)state;
	size_t matched, sized, dome;
	/* before: 33 matched, 33 sized (D +19.0 %) on seed 1 */
	for (unsigned seed = 1; seed <= 2; seed++) {
		detect(0.3, seed, &matched, &sized, &dome);
		assert_true(matched >= 28); /* the centres stay: ~33 counted domes */
		assert_int_equal(sized, 0);
		assert_int_equal(dome, matched);
	}
	/* the default ground: a step to read, the diameters kept */
	detect(0.05, 1, &matched, &sized, &dome);
	assert_true(matched >= 28);
	assert_int_equal(sized, matched);
}

static void remeasure_says_so_too(void **state)
{
	(void)state;
	sem_opts o;
	sem_truth tr;
	char err[256];
	frame(&o, 0.3, 1);
	fs_image *img = sem_make_shared(&o, &tr);
	assert_non_null(img);
	fs_params p;
	fs_params_default(&p);
	fs_tubercle_list t;
	memset(&t, 0, sizeof t);
	assert_int_equal(sem_inside_centres(&tr, &t), 0);
	assert_int_equal(fs_measure_centres_rule(img, &p, 0, FS_RULE_DOME, &t, err, sizeof err), 0);
	size_t matched, sized, dome;
	tally(&tr, &t, &matched, &sized, &dome);
	printf("Re-measure at the true centres: %zu matched, %zu sized, %zu domes without a base\n", matched, sized,
	       dome);
	assert_true(matched >= 28);
	assert_int_equal(sized, 0);
	assert_int_equal(dome, matched);
	fs_tubercle_list_free(&t);
	sem_truth_free(&tr);
	fs_image_free(img);
}

/*
 * The verdict's instrument (fs_det_base_set_nobase, h49h): with the
 * verdict not taken, the same frame is sized, and what it is sized at is
 * what the verdict refuses - the templates' own sizes, here more than 10
 * % above the true bases (seed 1: +19.0 %, h38b's figure; 12-19 % on
 * seeds 1-4 at roughness 0.2-0.3, docs/paper-figures.md h49h). The
 * setting is put back, and the setter hands back the one it replaced.
 */
static void verdict_off_sizes_the_windows_reading(void **state)
{
	(void)state;
	int was = fs_det_base_set_nobase(FS_DET_NOBASE_OFF);
	sem_opts o;
	sem_truth tr;
	char err[256];
	frame(&o, 0.3, 1);
	fs_image *img = sem_make_shared(&o, &tr);
	assert_non_null(img);
	fs_params p;
	fs_params_default(&p);
	fs_detect_result res;
	int rc = fs_detect_rule_in_region(img, &p, 0, FS_RULE_DOME, NULL, &res, err, sizeof err);
	assert_int_equal(fs_det_base_set_nobase(was), FS_DET_NOBASE_OFF);
	assert_int_equal(rc, 0);
	sem_match_errors e;
	assert_int_equal(sem_matched_errors(&tr, &res.tubercles, &e), 0);
	printf("verdict off, roughness 0.30 seed 1: %zu matched, %zu sized, mean D %+.1f %% of truth\n", e.n,
	       e.n_measured, 100 * (e.sum_d / e.sum_truth - 1));
	assert_true(e.n >= 28);
	assert_true(e.n_measured + 2 >= e.n);
	assert_true(e.sum_d > 1.10 * e.sum_truth);
	fs_detect_result_free(&res);
	sem_truth_free(&tr);
	fs_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_base_no_diameter),
		cmocka_unit_test(remeasure_says_so_too),
		cmocka_unit_test(verdict_off_sizes_the_windows_reading),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
