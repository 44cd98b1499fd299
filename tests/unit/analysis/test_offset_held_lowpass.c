/*
 * The unrefined path's formation held at the low-passed level readings
 * (detect_offset.h, fs_meas.held_lowpass; h48d). On interior scene 8
 * (h/R 0.5, fill 0.5, pitch 32, detector at 0 degrees) under a 5-px
 * screen, the unrefined path measured from the TRUE centres: its rays,
 * smoothed against the dots, read the bases about 15 % large, and the
 * formation held at that fill reads the centres' offset 0.8 px away from
 * the detector, past its rounding bar, and moves the domes (the walk's
 * fixed point past the centre, h47b). Held at the level's low-passed
 * readings (+3 % there) it reads at most one step of its offset grid
 * (0.4 px) and moves none. Checked both ways, so the test fails if the
 * hold stops reaching the fit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_measure.h"
#include "analysis/detect_methods.h"
#include "analysis/detect_offset.h"
#include "printed_scene.h"
#include "sanitized.h"

/* The formation's offset along the detector's axis (ax, ay) read from
 * the unrefined path's bases at the candidates c, the fill held as
 * m->held_lowpass says; *applied whether it moved the domes. */
static double offset_read(const fs_meas *m, const fs_cand_list *c, double pitch, double ax, double ay,
			  int *applied)
{
	fs_measured *mm = calloc(c->n, sizeof *mm);
	assert_non_null(mm);
	double smooth = fs_det_smooth_px[FS_DET_SMOOTH_TRIALS - 1];
	fs_det_measure_unrefined(m, c, 0.6 * pitch, smooth, NULL, mm, NULL);
	fs_det_offset off;
	assert_int_equal(fs_det_offset_correct(m, c, 0.6 * pitch, smooth, mm, &off), 0);
	assert_true(off.fitted);
	assert_true(off.fit.halftone > 0);
	*applied = off.applied;
	free(mm);
	return off.dx * ax + off.dy * ay;
}

static void tall_printed_domes_read_home_from_their_centres(void **state)
{
	(void)state;
	if (fs_test_subset())
		return;
	printed_scene s;
	assert_int_equal(printed_scene_open(&s, 8, 0, 5), 0);
	double pitch = s.pitch;
	/* every true dome's centre a candidate */
	fs_cand_list c;
	assert_int_equal(printed_scene_true_cands(&s, &c), 0);
	double ax = cos(s.o.det_azimuth), ay = sin(s.o.det_azimuth);
	fs_meas m = {.img = s.meas, .f = 1, .width = s.img->width, .height = s.img->height, .dome = 1, .src = s.img,
		     .mp = &s.p};
	int applied;
	double rays = offset_read(&m, &c, pitch, ax, ay, &applied);
	print_message("held at the rays' fill: %+.2f px along, applied %d\n", rays, applied);
	assert_true(rays < -0.6);
	assert_true(applied);
	m.held_lowpass = 1;
	double held = offset_read(&m, &c, pitch, ax, ay, &applied);
	print_message("held at the low-passed level: %+.2f px along, applied %d\n", held, applied);
	assert_true(fabs(held) <= 0.45);
	assert_false(applied);
	fs_cand_free(&c);
	printed_scene_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tall_printed_domes_read_home_from_their_centres),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
