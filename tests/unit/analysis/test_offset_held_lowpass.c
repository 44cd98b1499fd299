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
#include "analysis/lattice_estimate.h"
#include "sanitized.h"
#include "sem_cache.h"
#include "sem_sim.h"

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
	char err[256];
	sem_opts o;
	sem_interior_scene(8, &o);
	o.halftone = 5;
	sem_truth tr;
	fs_image *img = sem_make_shared(&o, &tr);
	assert_non_null(img);
	fs_params p;
	fs_params_default(&p);
	fs_lattice lat;
	assert_int_equal(fs_lattice_estimate(img, &lat, err, sizeof err), 0);
	double pitch = lat.pitch_px;
	fs_image *meas = NULL;
	assert_int_equal(fs_detect_measure_image(img, &p, 0.5, &meas, err, sizeof err), 0);
	/* every true dome's centre a candidate */
	fs_cand_list c = {0};
	for (size_t i = 0; i < tr.n; i++) {
		fs_cand q = {.x = tr.x[i], .y = tr.y[i], .r = 0.3 * pitch};
		if (q.x >= 0 && q.y >= 0 && q.x < img->width && q.y < img->height)
			assert_int_equal(fs_cand_append(&c, &q), 0);
	}
	double ax = cos(o.det_azimuth), ay = sin(o.det_azimuth);
	fs_meas m = {.img = meas, .f = 1, .width = img->width, .height = img->height, .dome = 1, .src = img, .mp = &p};
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
	fs_image_free(meas);
	fs_image_free(img);
	sem_truth_free(&tr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tall_printed_domes_read_home_from_their_centres),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
