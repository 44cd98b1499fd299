/*
 * test_remeasure_truth.c - Re-measure under the dome rule against the
 * simulator's truth (issue 13, h31a): given the TRUE centres of a scene's
 * domes, Re-measure (fs_measure_centres_rule, the dome rule's sizes at
 * given centres, detect_measure.h) reads the mean base diameter within
 * 3 % of the truth on the corner scenes where the dome rule's extraction
 * does; centres a user adds where there is no dome (the middle of a
 * lattice triangle, flat ground) are left unmeasured with a fit quality
 * saying why.
 *
 * Scenes: five of the 64 corner scenes (tests/unit/support/sem_sim.c),
 * pitch 16 (a second or less each): 1, 3, 17, 19 (fill 0.80, spherical
 * and flat-topped, detector at 0 and 135 degrees), where the mean
 * diameter is asserted - the extraction's too: the claim is "where the
 * extraction does", and a change that loses it there must say so - and
 * 0 (fill 0.25), where it is printed only: there the base rule read
 * from the true centres is 4.6 % large while the extraction, whose
 * centres are off the true ones, reads +2.3 % (h31a; at fill 0.25 the
 * scenes 4, 12, 16, 20, 24, 28 read +3.7 to +8.8 % from the true
 * centres, README "Re-measure"). Before h31a (the base rule's own reading
 * at each centre) scenes 1, 3, 17, 19 read +21.1, +3.3, +22.8, +5.0 %
 * from the true centres, and the triangles' middles were measured as
 * domes (fit quality 0.9). Holes are checked in every scene. Under the
 * sanitizers scenes 0 and 17 only.
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
#include "sem_scene.h"
#include "sem_sim.h"

/* The mean diameter's error (%) of the tubercles of t matched to the
 * truth (within a quarter pitch) whose true dome is counted (sem_counted)
 * and whose radius is measured; *n gets how many. */
static double mean_d_error(const sem_truth *tr, const fs_tubercle_list *t, size_t *n)
{
	double sd, st;
	assert_int_equal(sem_matched_diameters(tr, t, &sd, &st, n), 0);
	return *n ? 100 * (sd - st) / st : NAN;
}

/* Re-measure (the dome rule) at the true centres of tr inside the scale
 * region, as a user would place them, on img: the mean diameter's error
 * (%, mean_d_error), *nr the domes it counts and, when given, *unmeasured
 * the centres left without a diameter of *centres placed. */
static double remeasure_error(const fs_image *img, const sem_truth *tr, size_t *nr, size_t *unmeasured,
			      size_t *centres)
{
	fs_params p;
	fs_params_default(&p);
	char err[256];
	fs_tubercle_list t = {0};
	assert_int_equal(sem_inside_centres(tr, &t), 0);
	assert_int_equal(fs_measure_centres_rule(img, &p, 0, FS_RULE_DOME, &t, err, sizeof err), 0);
	double er = mean_d_error(tr, &t, nr);
	if (unmeasured) {
		*unmeasured = 0;
		for (size_t i = 0; i < t.n; i++)
			*unmeasured += !isfinite(t.items[i].radius_px);
	}
	if (centres)
		*centres = t.n;
	fs_tubercle_list_free(&t);
	return er;
}

/* Appends to t up to want manual centres at the middle of triangles of
 * three mutually neighbouring true domes, all counted (sem_counted);
 * returns how many. */
static size_t add_holes(const sem_truth *tr, fs_tubercle_list *t, size_t want)
{
	size_t added = 0;
	for (size_t a = 0; a < tr->n_pairs && added < want; a += 7) {
		int i = tr->pi[a], j = tr->pj[a];
		for (size_t b = 0; b < tr->n_pairs && added < want; b++) {
			int k = tr->pi[b] == i ? tr->pj[b] : tr->pj[b] == i ? tr->pi[b] : -1;
			if (k < 0 || k == j)
				continue;
			int jk = 0;
			for (size_t c = 0; c < tr->n_pairs && !jk; c++)
				jk = (tr->pi[c] == j && tr->pj[c] == k) || (tr->pi[c] == k && tr->pj[c] == j);
			if (!jk || !sem_counted(tr, tr->x[i], tr->y[i]) || !sem_counted(tr, tr->x[j], tr->y[j]) ||
			    !sem_counted(tr, tr->x[k], tr->y[k]))
				continue;
			fs_tubercle x;
			fs_tubercle_init(&x);
			x.id = (int)t->n + 1;
			x.centroid_x = (tr->x[i] + tr->x[j] + tr->x[k]) / 3;
			x.centroid_y = (tr->y[i] + tr->y[j] + tr->y[k]) / 3;
			x.source = FS_SOURCE_MANUAL;
			assert_int_equal(fs_tubercle_list_append(t, &x), 0);
			added++;
			break;
		}
	}
	return added;
}

static void true_centres_read_the_true_mean_diameter(void **state)
{
	(void)state;
	/* the scene, and whether the mean diameter is asserted there (see
	 * the header: at fill 0.25 it is printed only) */
	static const struct {
		int k, judged;
	} scenes[] = {{0, 0}, {1, 1}, {3, 1}, {17, 1}, {19, 1}};
	/* under the sanitizers (which look for memory errors, make test):
	 * scenes 0 and 17 only, a judged and a printed one */
	for (size_t s = 0; s < sizeof scenes / sizeof scenes[0]; s += fs_test_subset() ? 3 : 1) {
		sem_opts o;
		sem_corner_scene(scenes[s].k, &o);
		sem_truth tr;
		fs_image *img = sem_make(&o, &tr);
		assert_non_null(img);
		fs_params p;
		fs_params_default(&p);
		char err[256];
		fs_detect_result dr;
		assert_int_equal(fs_detect_rule_all(img, &p, 0, FS_RULE_DOME, &dr, err, sizeof err), 0);
		size_t nd = 0, nr = 0;
		double ed = mean_d_error(&tr, &dr.tubercles, &nd);
		/* a set of the true centres inside the scale region, as a user
		 * would place them */
		fs_tubercle_list t = {0};
		assert_int_equal(sem_inside_centres(&tr, &t), 0);
		/* and a user's centres where there is no dome: the middle of
		 * lattice triangles (flat ground between three domes) */
		size_t n_true = t.n, n_hole = add_holes(&tr, &t, 6);
		assert_int_equal(n_hole, 6);
		assert_int_equal(fs_measure_centres_rule(img, &p, 0, FS_RULE_DOME, &t, err, sizeof err), 0);
		for (size_t i = n_true; i < t.n; i++) {
			const fs_tubercle *h = &t.items[i];
			print_message("  no dome at (%.1f, %.1f): radius %.2f, fit quality %.3f\n", h->centroid_x,
				      h->centroid_y, h->radius_px, h->fit_quality);
			assert_false(isfinite(h->radius_px));
			/* why: no base circle (below the rule's 0.45), flat
			 * ground (0), or no base read at all (NaN) */
			assert_true(isnan(h->fit_quality) || h->fit_quality < FS_DOME_NO_DOME_QUALITY);
		}
		t.n = n_true;
		double er = mean_d_error(&tr, &t, &nr);
		size_t unmeasured = 0;
		for (size_t i = 0; i < t.n; i++)
			unmeasured += !isfinite(t.items[i].radius_px);
		print_message("scene %2d: extraction mean D %+.2f %% (%zu domes), Re-measure at the true centres %+.2f %% "
			      "(%zu of %zu, %zu unmeasured)\n",
			      scenes[s].k, ed, nd, er, nr, t.n, unmeasured);
		/* nearly every counted dome sized */
		assert_true(nr >= 0.9 * nd);
		if (scenes[s].judged) {
			assert_true(fabs(ed) < 3);
			assert_true(fabs(er) < 3);
		}
		fs_tubercle_list_free(&t);
		fs_detect_result_free(&dr);
		sem_truth_free(&tr);
		fs_image_free(img);
	}
}

/* The level read without the blur (h32e, detect_base_fit.h): corner
 * scene 34 (fill 0.25, flat-topped low domes, pitch 64, no screen: a
 * bright rim just inside each base, which the blur pushes outwards) read
 * its mean D +3.1 % from the true centres and +2.4 % in the extraction
 * before the level was extrapolated to no blur; +1.3 and +0.6 % after
 * (the oracle of test_sem_oracle: +0.2 %). Plain build only (one scene of
 * 768 x 640 px, about 2 s). */
static void bright_rim_level_without_blur(void **state)
{
	(void)state;
	if (fs_test_subset())
		return;
	sem_opts o;
	sem_corner_scene(34, &o);
	sem_truth tr;
	fs_image *img = sem_make(&o, &tr);
	assert_non_null(img);
	fs_params p;
	fs_params_default(&p);
	char err[256];
	fs_detect_result dr;
	assert_int_equal(fs_detect_rule_all(img, &p, 0, FS_RULE_DOME, &dr, err, sizeof err), 0);
	size_t nd = 0, nr = 0;
	double ed = mean_d_error(&tr, &dr.tubercles, &nd);
	double er = remeasure_error(img, &tr, &nr, NULL, NULL);
	print_message("scene 34: extraction mean D %+.2f %% (%zu domes), Re-measure at the true centres %+.2f %% (%zu)\n",
		      ed, nd, er, nr);
	assert_true(nd > 50 && nr >= 0.9 * nd);
	assert_true(fabs(ed) < 2);
	assert_true(fabs(er) < 2);
	fs_detect_result_free(&dr);
	sem_truth_free(&tr);
	fs_image_free(img);
}

/* Re-measure under a halftone screen (detect_measure.c: the level is the
 * base rule's reading on smoothed rays, read again from each centre plus
 * the formation's common offset, as the extraction reads it): corner
 * scene 42 (fill 0.25, flat-topped low domes, pitch 64, a 5-px screen)
 * reads its mean D +0.5 % from the true centres (h38u: no test reached
 * this branch, so a change to it passed every guard unseen). Plain
 * build only (one scene of 768 x 640 px, about 2 s). */
static void screened_true_centres_read_the_true_mean_diameter(void **state)
{
	(void)state;
	if (fs_test_subset())
		return;
	sem_opts o;
	sem_corner_scene(42, &o);
	assert_true(o.halftone > 0);
	sem_truth tr;
	fs_image *img = sem_make(&o, &tr);
	assert_non_null(img);
	size_t nr = 0, unmeasured = 0, centres = 0;
	double er = remeasure_error(img, &tr, &nr, &unmeasured, &centres);
	print_message("scene 42 (5-px screen): Re-measure at the true centres %+.2f %% (%zu counted domes; %zu of "
		      "%zu centres unmeasured)\n",
		      er, nr, unmeasured, centres);
	/* (the counted domes leave out those the frame cuts: sem_counted) */
	assert_true(nr > 50 && unmeasured <= centres / 10);
	assert_true(fabs(er) < 3);
	sem_truth_free(&tr);
	fs_image_free(img);
}

/* h43j: the interior scenes printed (a 5-px screen over sem_interior_scene
 * 0 and 11: low spheres, fill 0.5 at pitch 32 and 0.4 at pitch 28). The
 * template fit's radii read 40-55 % of the truth there (3.3 and 2.7 px),
 * below the 3 low-pass sigmas (4.5 px) of the screened level's gate, and
 * the level fell to the first reading: Re-measure at the TRUE centres
 * read -34.5 and -29.0 %; the low-passed readings themselves are asked
 * again (fs_det_base_level_screened_read): -1.8 and -0.4 %. Plain build
 * only (two scenes of 384 x 320 and 336 x 280 px, about 2 s). */
static void printed_interior_true_centres_read_the_true_mean_diameter(void **state)
{
	(void)state;
	if (fs_test_subset())
		return;
	static const int scenes[] = {0, 11};
	for (size_t s = 0; s < sizeof scenes / sizeof *scenes; s++) {
		sem_opts o;
		sem_interior_scene(scenes[s], &o);
		o.halftone = 5;
		sem_truth tr;
		fs_image *img = sem_make(&o, &tr);
		assert_non_null(img);
		size_t nr = 0;
		double er = remeasure_error(img, &tr, &nr, NULL, NULL);
		print_message("interior scene %d (5-px screen): Re-measure at the true centres %+.2f %% (%zu counted "
			      "domes)\n",
			      scenes[s], er, nr);
		assert_true(nr > 30);
		assert_true(fabs(er) < 3);
		sem_truth_free(&tr);
		fs_image_free(img);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(true_centres_read_the_true_mean_diameter),
		cmocka_unit_test(bright_rim_level_without_blur),
		cmocka_unit_test(screened_true_centres_read_the_true_mean_diameter),
		cmocka_unit_test(printed_interior_true_centres_read_the_true_mean_diameter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
