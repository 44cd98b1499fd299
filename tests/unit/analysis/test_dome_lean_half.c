/*
 * The lean first pass on half its rays (dome_measure.h,
 * fs_dome_set_lean_half; h47f's two cost cuts rebuilt as an option by
 * h48e). The half pass only moves the start of the whole passes, so it
 * moves bits; what must hold:
 * - the setter takes the four modes and nothing else;
 * - each mode reaches the readings (some of a figure's level readings
 *   differ from the shipped rule's), and the bases it reads stay the
 *   shipped rule's to within the start's own noise: from the shipped
 *   reading's centres at points all over P1 Fig2 (random radii windows),
 *   the radii's relative differences from the shipped reading, median
 *   and 95th percentile, are at most 1.5 times those of the shipped rule
 *   started 0.2 px away (the whole passes read a base from where the
 *   lean pass leaves them: the half passes move the readings as a start
 *   0.1-0.2 px away does, 1.2-1.8 % of the radius at the median with
 *   these random radii windows, 0.03 % for 0.01 px), and no reading fails
 *   where the shipped one did not;
 * - FS_DOME_LEAN_HALF_RAYS leaves the ridge reading as shipped, to the
 *   bit (its lean widths would hold half the rays, and the ridge model
 *   reads the next pass's blur from them); FS_DOME_LEAN_HALF_SUM, whose
 *   widths are every ray's, does not.
 * Checked to fail: with the mode ignored in measure() (half always 0) the
 * differing counts are 0; with the ridge exclusion dropped the ridge
 * reading under FS_DOME_LEAN_HALF_RAYS differs.
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

#include "analysis/dome_measure.h"
#include "base/sorting.h"
#include "image/image_io.h"

#include "same_bits.h"
#include "test_rng.h"

#define FIG2 "tests/fixtures/paper/P1_Fig2_Polypterus_bichir_2.63um.tif"
#define POINTS 400
/* the shipped rule's start moved by this much (px) along x: the noise a
 * half pass is held to */
#define START_MOVE 0.2

static void setter(void **state)
{
	(void)state;
	assert_int_equal(fs_dome_lean_half(), FS_DOME_LEAN_ALL);
	assert_int_equal(fs_dome_set_lean_half(4), -1);
	assert_int_equal(fs_dome_set_lean_half(-1), -1);
	assert_int_equal(fs_dome_lean_half(), FS_DOME_LEAN_ALL);
	assert_int_equal(fs_dome_set_lean_half(FS_DOME_LEAN_HALF_SUM), 0);
	assert_int_equal(fs_dome_lean_half(), FS_DOME_LEAN_HALF_SUM);
	assert_int_equal(fs_dome_set_lean_half(FS_DOME_LEAN_HALF_LEVEL), 0);
	assert_int_equal(fs_dome_lean_half(), FS_DOME_LEAN_HALF_LEVEL);
	assert_int_equal(fs_dome_set_lean_half(FS_DOME_LEAN_ALL), 0);
}

typedef struct one {
	int rc, rc_ridge;
	fs_tubercle t, ridge;
} one;

static void read_one(const fs_image *img, double x, double y, double rmin, double rmax, one *o)
{
	int edge;
	double var;
	memset(o, 0, sizeof *o);
	o->rc = fs_dome_measure_base_blur(img, x, y, rmin, rmax, &o->t, &edge, &var);
	o->rc_ridge = fs_dome_measure_base_ridge(img, x, y, rmin, rmax, &o->ridge);
}

/* Fig2's points read as shipped and under mode; the counts and the
 * radii's relative differences as the header says */
static void against_shipped(int mode)
{
	char err[256];
	fs_loaded L;
	assert_int_equal(fs_load_file(FIG2, NULL, &L, err, sizeof err), 0);
	const fs_image *img = L.image;
	unsigned seed = 23;
	double rel[POINTS], noise[POINTS];
	int nrel = 0, differ = 0, ridge_differ = 0, rc_differ = 0;
	for (int i = 0; i < POINTS; i++) {
		double x = 8 + test_lcg32_unit(&seed) * (img->width - 17);
		double y = 8 + test_lcg32_unit(&seed) * (img->height - 17);
		double rmax = 6 + test_lcg32_unit(&seed) * 20, rmin = rmax * (0.2 + 0.3 * test_lcg32_unit(&seed));
		one a, b, c;
		/* from a base's centre as the shipped rule reads it (a
		 * detection's starts lie near one; a start between domes is
		 * a coin for any pass) */
		read_one(img, x, y, rmin, rmax, &a);
		if (a.rc)
			continue;
		x = a.t.centroid_x;
		y = a.t.centroid_y;
		read_one(img, x, y, rmin, rmax, &a);
		assert_int_equal(fs_dome_set_lean_half(mode), 0);
		read_one(img, x, y, rmin, rmax, &b);
		assert_int_equal(fs_dome_set_lean_half(FS_DOME_LEAN_ALL), 0);
		read_one(img, x + START_MOVE, y, rmin, rmax, &c);
		rc_differ += a.rc != b.rc;
		if (a.rc == 0 && b.rc == 0 && c.rc == 0) {
			if (a.t.radius_px > 0) {
				differ += !test_same_bits(a.t.radius_px, b.t.radius_px) ||
					  !test_same_bits(a.t.centroid_x, b.t.centroid_x) ||
					  !test_same_bits(a.t.centroid_y, b.t.centroid_y);
				noise[nrel] = fabs(c.t.radius_px / a.t.radius_px - 1);
				rel[nrel++] = fabs(b.t.radius_px / a.t.radius_px - 1);
			}
		}
		ridge_differ += a.rc_ridge != b.rc_ridge ||
				(a.rc_ridge == 0 && (!test_same_bits(a.ridge.radius_px, b.ridge.radius_px) ||
						     !test_same_bits(a.ridge.centroid_x, b.ridge.centroid_x)));
	}
	fs_image_free(L.image);
	assert_true(nrel > POINTS / 2);
	double med = fs_select_kth(rel, nrel, nrel / 2), p95 = fs_select_kth(rel, nrel, nrel * 95 / 100);
	double nmed = fs_select_kth(noise, nrel, nrel / 2), np95 = fs_select_kth(noise, nrel, nrel * 95 / 100);
	printf("mode %d: %d of %d readings differ, %d fail differently; radius |rel| median %.4f p95 %.4f "
	       "(start moved %.2f px: %.4f, %.4f); ridge readings differing %d\n",
	       mode, differ, nrel, rc_differ, med, p95, START_MOVE, nmed, np95, ridge_differ);
	assert_true(differ > 0);
	assert_true(med <= 1.5 * nmed);
	assert_true(p95 <= 1.5 * np95);
	assert_int_equal(rc_differ, 0);
	if (mode == FS_DOME_LEAN_HALF_RAYS)
		assert_int_equal(ridge_differ, 0);
	else
		assert_true(ridge_differ > 0);
}

static void half_rays(void **state)
{
	(void)state;
	against_shipped(FS_DOME_LEAN_HALF_RAYS);
}

static void half_sum(void **state)
{
	(void)state;
	against_shipped(FS_DOME_LEAN_HALF_SUM);
}

static int same_reading(int ra, const fs_tubercle *a, int rb, const fs_tubercle *b)
{
	return ra == rb && (ra != 0 || (test_same_bits(a->radius_px, b->radius_px) &&
					test_same_bits(a->centroid_x, b->centroid_x) &&
					test_same_bits(a->centroid_y, b->centroid_y)));
}

/* FS_DOME_LEAN_HALF_LEVEL: the level's reading as FS_DOME_LEAN_HALF_RAYS
 * reads it, a first reading as shipped (the header) */
static void half_level(void **state)
{
	(void)state;
	char err[256];
	fs_loaded L;
	assert_int_equal(fs_load_file(FIG2, NULL, &L, err, sizeof err), 0);
	const fs_image *img = L.image;
	unsigned seed = 29;
	int level_differ = 0, first_differ = 0, half_vs_rule = 0;
	for (int i = 0; i < POINTS; i++) {
		double x = 8 + test_lcg32_unit(&seed) * (img->width - 17), y = 8 + test_lcg32_unit(&seed) * (img->height - 17);
		double rmax = 6 + test_lcg32_unit(&seed) * 20, rmin = rmax * (0.2 + 0.3 * test_lcg32_unit(&seed));
		fs_tubercle lv[3], fst[3];
		int rl[3], rf[3], edge;
		double var;
		static const int modes[3] = {FS_DOME_LEAN_ALL, FS_DOME_LEAN_HALF_RAYS, FS_DOME_LEAN_HALF_LEVEL};
		for (int k = 0; k < 3; k++) {
			assert_int_equal(fs_dome_set_lean_half(modes[k]), 0);
			memset(&lv[k], 0, sizeof lv[k]);
			memset(&fst[k], 0, sizeof fst[k]);
			rl[k] = fs_dome_measure_base_blur(img, x, y, rmin, rmax, &lv[k], &edge, &var);
			rf[k] = fs_dome_measure_crop(img, 0, 0, x, y, rmin, rmax, 0, &fst[k]);
		}
		assert_int_equal(fs_dome_set_lean_half(FS_DOME_LEAN_ALL), 0);
		level_differ += !same_reading(rl[1], &lv[1], rl[2], &lv[2]);
		first_differ += !same_reading(rf[0], &fst[0], rf[2], &fst[2]);
		half_vs_rule += !same_reading(rl[0], &lv[0], rl[2], &lv[2]);
	}
	fs_image_free(L.image);
	printf("level mode: %d level readings differ from mode 1, %d first readings from the rule; %d level readings "
	       "differ from the rule\n",
	       level_differ, first_differ, half_vs_rule);
	assert_int_equal(level_differ, 0);
	assert_int_equal(first_differ, 0);
	/* (the mode reaches the level) */
	assert_true(half_vs_rule > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(setter),
		cmocka_unit_test(half_rays),
		cmocka_unit_test(half_sum),
		cmocka_unit_test(half_level),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
