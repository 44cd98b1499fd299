/*
 * test_dome_shift.c - the dome rule's mean D / pitch on a paper figure
 * does not jump when the image loses its left column of pixels.
 *
 * Why (issue 13; docs/paper-figures.md, h36h and h37b): a one-pixel crop
 * is a translation and nothing a tubercle's size depends on, yet the
 * per-image formation fit (detect_offset.h) read a different sample of
 * the domes after it: every k-th of the list, k from the list's count,
 * and only then the ones the frame cuts dropped, so moving one dome in
 * or out of the list halved or doubled the sample and swapped half of
 * it. On P2 Pl1 Fig1a (Lepisosteus platostomus, 65 domes) the rule read
 * D / pitch 0.384 whole and 0.557 without its left column. The fit now
 * reads every dome whose patch is whole (fs_det_offset_pick), with their
 * lattice angle and fill: 0.466 and 0.388. The bound is the dome rule's
 * own crop-to-crop scatter on the nine paper figures after the change
 * (0.03-0.20, 0.075 on average; the outline rule's 0.003-0.033).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "analysis/detect.h"
#include "image/image_io.h"
#include "image/image_transform.h"
#include "paper_figs.h"

#define FIGURE PAPER_FIGS_DIR "P2_Pl1_Fig1a_Lepisosteus_platostomus_5.38um.tif"
#define MAX_JUMP 0.08

/* The dome rule's mean D / pitch on img (as bench_detect_domes --shift). */
static double d_over_pitch(const fs_image *img)
{
	fs_params p;
	fs_params_default(&p);
	fs_detect_result res;
	char err[256];
	assert_int_equal(fs_detect_domes(img, &p, 0, &res, err, sizeof err), 0);
	double s = 0;
	size_t m = 0;
	for (size_t i = 0; i < res.tubercles.n; i++)
		if (isfinite(res.tubercles.items[i].radius_px)) {
			s += 2 * res.tubercles.items[i].radius_px;
			m++;
		}
	double pitch = res.pitch_px;
	fs_detect_result_free(&res);
	assert_true(m >= 20 && pitch > 0);
	return s / (double)m / pitch;
}

static void left_column_cropped(void **state)
{
	(void)state;
	fs_loaded L;
	char err[256];
	assert_int_equal(fs_load_file(FIGURE, NULL, &L, err, sizeof err), 0);
	fs_rect r = {1, 0, L.image->width - 1, L.image->height};
	fs_image *c = fs_image_crop(L.image, r, NULL, err, sizeof err);
	assert_non_null(c);
	double whole = d_over_pitch(L.image), cropped = d_over_pitch(c);
	printf("P2 Pl1 Fig1a dome rule D / pitch: whole %.3f, left column cropped %.3f\n", whole, cropped);
	assert_true(fabs(whole - cropped) < MAX_JUMP);
	fs_image_free(c);
	fs_loaded_free(&L);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(left_column_cropped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
