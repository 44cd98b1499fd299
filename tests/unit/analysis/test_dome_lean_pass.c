/*
 * The lean first pass of a base reading (dome_measure.c, h45e): the pass
 * that only moves the start samples the rays over the summed step's radii
 * and the picks' window alone, and is made whole where it turns out the
 * last one (its centre leaving the image). Every reading must be what the
 * whole passes give, to the bit: every entry point (the detection's
 * smoothed reading, the level's reading with its blur and edge, the
 * ridge reading, the lone dome, the traced stages) at points all over a
 * paper figure, with and without fs_dome_forbid_lean, radii windows from
 * 3 to 33 px.
 *
 * Why: the bench fingerprints reach the lean pass only at detection's
 * starts; a start by the border (whose first centre can leave the image,
 * and the pass is then made again whole) or a window whose picks reach
 * past the summed step's radii (the rays' steps read there too) is rare
 * there. A quarter of each set's points lies within 5 px of the left
 * border (up to 1 px outside it) and another quarter within 6 px of the
 * bottom one. Checked to fail: the summed step's span one radius short
 * at its end (lj1 for lj1 + 1) fails both figures (Fig2 at its 26th
 * point, Fig4 at its 21st, both in t[1].centroid_x: checked again with
 * the field-wise compare, h45o); the made-again whole pass dropped (a
 * lean pass kept as the last) fails both at a start by the bottom border
 * (Fig2's 286th). On the code before the lean pass it does not build
 * (no fs_dome_forbid_lean). Cost: about 0.4 s of CPU plain (1,200 points,
 * each read six ways, twice).
 *
 * The same for the passes' kept-rays shortcut (h47f: every ray kept
 * without the residuals' hypot and median where all edge points lie well
 * within the outlier bar's floor), against fs_dome_forbid_keep_rays, at
 * other points of the same figures. Checked to fail: KEEP_GAP at 0 and the
 * squared bound taken at 0.3 px instead of KEEP_ALL fails both figures
 * (the kept rays then differ from the median's).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dome_measure.h"
#include "image/image_io.h"

#include "dome_readings.h"
#include "test_rng.h"

#define FIG2 "tests/fixtures/paper/P1_Fig2_Polypterus_bichir_2.63um.tif"
#define FIG4 "tests/fixtures/paper/P1_Fig4_Atractosteus_simplex_7.07um.tif"
#define POINTS 600

/* same_readings with the shortcut under test forbidden by forbid (one
 * of dome_measure.h's test hooks) */
static void same_readings(const char *path, unsigned seed, void (*forbid)(int), const char *what)
{
	char err[256];
	fs_loaded L;
	assert_int_equal(fs_load_file(path, NULL, &L, err, sizeof err), 0);
	const fs_image *img = L.image;
	double W = img->width - 1, H = img->height - 1;
	int measured = 0;
	for (int i = 0; i < POINTS; i++) {
		double x, y;
		int where = i % 4;
		if (where == 0) {
			x = test_lcg32_unit(&seed) * 6 - 1;
			y = test_lcg32_unit(&seed) * H;
		} else if (where == 1) {
			x = test_lcg32_unit(&seed) * W;
			y = H - test_lcg32_unit(&seed) * 6;
		} else {
			x = test_lcg32_unit(&seed) * W;
			y = test_lcg32_unit(&seed) * H;
		}
		double rmax = 3 + test_lcg32_unit(&seed) * 30, rmin = rmax * (0.1 + 0.3 * test_lcg32_unit(&seed));
		double smooth = (i % 3) * 0.9;
		dome_readings lean, whole;
		dome_read_all(img, x, y, rmin, rmax, smooth, &lean);
		forbid(1);
		dome_read_all(img, x, y, rmin, rmax, smooth, &whole);
		forbid(0);
		char field[64];
		const char *f = dome_readings_differ(&lean, &whole, field, sizeof field);
		if (f)
			fail_msg("%s: point %d (%.3f, %.3f), radii %.3f..%.3f: the %s's reading differs (%s)", path, i,
				 x, y, rmin, rmax, what, f);
		measured += lean.rc[2] == 0 && lean.t[2].radius_px > 0;
	}
	/* most points read a base (not all failures alike) */
	assert_true(measured > POINTS / 2);
	fs_image_free(L.image);
}

static void fig2(void **state)
{
	(void)state;
	same_readings(FIG2, 17, fs_dome_forbid_lean, "lean pass");
}

static void fig4(void **state)
{
	(void)state;
	same_readings(FIG4, 18, fs_dome_forbid_lean, "lean pass");
}

static void fig2_keep_rays(void **state)
{
	(void)state;
	same_readings(FIG2, 19, fs_dome_forbid_keep_rays, "kept-rays shortcut");
}

static void fig4_keep_rays(void **state)
{
	(void)state;
	same_readings(FIG4, 20, fs_dome_forbid_keep_rays, "kept-rays shortcut");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fig2),
		cmocka_unit_test(fig4),
		cmocka_unit_test(fig2_keep_rays),
		cmocka_unit_test(fig4_keep_rays),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
