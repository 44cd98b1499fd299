/*
 * The frame's edge snap of a dome reading (dome_measure.c's measure(),
 * fs_dome_set_frame_snap, h49m): a start a rounding (1e-6 px) outside the
 * frame reads what a start on the frame's edge reads, to the bit, with
 * the snap on, and fails with it off (the rule before it); 0.01 px
 * outside fails either way (FS_DOME_FRAME_SNAP is 1e-3 px).
 *
 * Why: the dome rule's candidates on the frame's first or last row or
 * column lie on integer pixels; a 1e-6 px nudge outside failed their
 * reading, which took them out of the first pass's dome list and moved
 * the formation fit's every-k-th sample (h48m: the source of most of the
 * guards' noise band). Every entry point a detection or a level reading
 * uses is read (the detection's smoothed reading, the level's reading
 * with its blur and edge, the ridge reading, the lone dome, the traced
 * stages) at points on all four edges and the four corners of a paper
 * figure, on integer and non-integer positions along the edge.
 * Checked to fail: with the snap taken out of measure() (the test built
 * against the rule before h49m, FS_DOME_FRAME_SNAP's test left in place)
 * on_edge_with_snap fails at its first point (rc[0]).
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

#define FIG2 "tests/fixtures/paper/P1_Fig2_Polypterus_bichir_2.63um.tif"
/* points per edge */
#define ALONG 24

/* Point i of the 4 ALONG + 4 on the frame's edge (*ex, *ey) and the
 * direction out of the frame there (*ux, *uy: -1, 0 or +1 each); every
 * other point along an edge lies on an integer pixel, as a candidate's
 * maximum does, the rest between. */
static void edge_point(const fs_image *img, int i, double *ex, double *ey, int *ux, int *uy)
{
	double W = img->width - 1, H = img->height - 1;
	int side = i / ALONG, j = i % ALONG;
	double t = (j + 1.0) / (ALONG + 1.0);
	double a = j % 2 ? t : 0;
	*ux = *uy = 0;
	switch (side) {
	case 0: /* the left edge */
		*ex = 0, *ey = j % 2 ? a * H : (double)(int)(t * H), *ux = -1;
		break;
	case 1: /* the right edge */
		*ex = W, *ey = j % 2 ? a * H : (double)(int)(t * H), *ux = 1;
		break;
	case 2: /* the top edge */
		*ex = j % 2 ? a * W : (double)(int)(t * W), *ey = 0, *uy = -1;
		break;
	case 3: /* the bottom edge */
		*ex = j % 2 ? a * W : (double)(int)(t * W), *ey = H, *uy = 1;
		break;
	default: /* the four corners, out of the frame both ways */
		*ex = j % 2 ? W : 0;
		*ey = j / 2 % 2 ? H : 0;
		*ux = j % 2 ? 1 : -1;
		*uy = j / 2 % 2 ? 1 : -1;
		break;
	}
}

#define NPOINTS (4 * ALONG + 4)

/* Reads every point on the edge and off it by `out` px; what (0) the
 * off-edge readings must equal the edge's (and how many edge readings
 * measured a base, *based), (1) must fail every entry point. */
static void check(const fs_image *img, double out, int must_equal, int *based)
{
	const double rmax = 9, rmin = 2, smooth = 0.9;
	*based = 0;
	for (int i = 0; i < NPOINTS; i++) {
		double ex, ey;
		int ux, uy;
		edge_point(img, i, &ex, &ey, &ux, &uy);
		dome_readings on, off;
		dome_read_all(img, ex, ey, rmin, rmax, smooth, &on);
		dome_read_all(img, ex + ux * out, ey + uy * out, rmin, rmax, smooth, &off);
		*based += on.rc[2] == 0 && on.t[2].radius_px > 0;
		if (must_equal) {
			char field[64];
			const char *f = dome_readings_differ(&on, &off, field, sizeof field);
			if (f)
				fail_msg("point %d (%.3f, %.3f) and %g px outside: the readings differ (%s)", i, ex,
					 ey, out, f);
		} else {
			for (int k = 0; k < 6; k++)
				if (off.rc[k] != -1)
					fail_msg("point %d (%.3f, %.3f), %g px outside: reading %d did not fail (%d)", i,
						 ex, ey, out, k, off.rc[k]);
		}
	}
}

static fs_image *fig2(void)
{
	char err[256];
	fs_loaded L;
	assert_int_equal(fs_load_file(FIG2, NULL, &L, err, sizeof err), 0);
	return L.image;
}

static void on_edge_with_snap(void **state)
{
	(void)state;
	fs_image *img = fig2();
	int was = fs_dome_set_frame_snap(1), based;
	check(img, 1e-6, 1, &based);
	/* the edge's readings are not all failures: most read a base */
	assert_true(based > NPOINTS / 2);
	/* just inside the tolerance, the same */
	check(img, 0.9 * FS_DOME_FRAME_SNAP, 1, &based);
	fs_dome_set_frame_snap(was);
	fs_image_free(img);
}

static void fails_without_snap(void **state)
{
	(void)state;
	fs_image *img = fig2();
	int was = fs_dome_set_frame_snap(0), based;
	check(img, 1e-6, 0, &based);
	fs_dome_set_frame_snap(was);
	fs_image_free(img);
}

static void fails_beyond_tolerance(void **state)
{
	(void)state;
	fs_image *img = fig2();
	int was = fs_dome_set_frame_snap(1), based;
	check(img, 0.01, 0, &based);
	check(img, 2 * FS_DOME_FRAME_SNAP, 0, &based);
	fs_dome_set_frame_snap(was);
	fs_image_free(img);
}

/* on by default; the setter returns the previous setting */
static void on_by_default(void **state)
{
	(void)state;
	/* (FS_TEST_FRAME_SNAP may have set it for this process) */
	const char *env = getenv("FS_TEST_FRAME_SNAP");
	int expect = !(env && env[0] == '0');
	assert_int_equal(fs_dome_set_frame_snap(0), expect);
	assert_int_equal(fs_dome_set_frame_snap(1), 0);
	assert_int_equal(fs_dome_set_frame_snap(expect), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(on_by_default),
		cmocka_unit_test(on_edge_with_snap),
		cmocka_unit_test(fails_without_snap),
		cmocka_unit_test(fails_beyond_tolerance),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
