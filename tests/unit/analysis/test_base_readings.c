/*
 * The dome rule's kept base readings (base_readings.h, dome_measure.h's
 * fs_dome_reading): what detection's last step takes instead of reading a
 * base again must be what the reading would have written, to the bit.
 *
 * Why: the last step (fs_det_measure_domes_at) reads each dome from its
 * final centre into a tubercle that is not zeroed, and the base rule
 * writes only some of its fields when it finds no measurable base (and
 * none when it cannot read at all); a kept reading replayed with more or
 * fewer fields than the reading writes would change what detection
 * reports. So on simulated SEM domes, at dome centres (measurable bases),
 * between domes and on flat ground (bases below the rule's quality, the
 * radius NaN) and outside the image (no reading), every field of a
 * tubercle filled with a marker pattern, and the edge and blur, are
 * compared after fs_dome_measure_base_blur and after
 * fs_dome_reading_apply of the kept reading; and the set finds a reading
 * only at exactly the point and radii it was read with, on the image it
 * was read on. The same for the step contrasts the set keeps
 * (base_step.h, h37f): the last step judges a reading's step from the set
 * only at exactly the point, radius and window the first pass judged,
 * and finds the value the judgement gives (a simulated dome's contrast,
 * kept and found, against fs_base_step_contrast's own).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analysis/base_readings.h"
#include "analysis/base_step.h"
#include "analysis/detect_measure.h"
#include "analysis/dome_measure.h"
#include "sem_scene.h"

/* a tubercle no reading leaves as it is by chance */
static void marked(fs_tubercle *t)
{
	memset(t, 0x5a, sizeof *t);
}

/* fs_dome_measure_base_blur at (x, y) against the kept reading replayed:
 * the same return, tubercle (every byte), edge and blur. Returns the
 * return value. */
static int replay_same(const fs_image *img, double x, double y, double r0, double r1, fs_dome_reading *kept)
{
	fs_tubercle a, b;
	int ea = -7, eb = -9;
	double va = 1e300, vb = -1e300;
	marked(&a);
	marked(&b);
	int ra = fs_dome_measure_base_blur(img, x, y, r0, r1, &a, &ea, &va);
	fs_dome_read_base_blur(img, x, y, r0, r1, kept);
	int rb = fs_dome_reading_apply(kept, &b, &eb, &vb);
	assert_int_equal(ra, rb);
	assert_memory_equal(&a, &b, sizeof a);
	assert_int_equal(ea, eb);
	assert_memory_equal(&va, &vb, sizeof va);
	return ra;
}

static void kept_readings_replay_the_reading(void **state)
{
	(void)state;
	sem_scene s;
	sem_opts o;
	sem_low_domes(&o);
	o.width = 256;
	o.height = 224;
	o.seed = 11;
	assert_int_equal(sem_scene_open(&s, &o), 0);
	assert_true(s.tr.n > 10);
	double mr = 0.6 * s.tr.pitch, r0 = FS_DOME_R0 * mr, r1 = FS_DOME_R1 * mr;
	size_t measured = 0, unmeasured = 0, failed = 0;
	fs_dome_reading kept;
	for (size_t j = 0; j < s.tr.n; j++) {
		/* the dome's centre, a point between two domes, and further */
		double pts[3][2] = {{s.tr.x[j] + 0.3, s.tr.y[j] - 0.2},
				    {s.tr.x[j] + 0.5 * s.tr.pitch, s.tr.y[j]},
				    {s.tr.x[j] + 0.5 * s.tr.pitch, s.tr.y[j] + 0.29 * s.tr.pitch}};
		for (int k = 0; k < 3; k++) {
			double x = pts[k][0], y = pts[k][1];
			if (x < 0 || y < 0 || x > s.img->width - 1 || y > s.img->height - 1)
				continue;
			if (replay_same(s.img, x, y, r0, r1, &kept))
				failed++;
			else if (isfinite(kept.t.radius_px))
				measured++;
			else
				unmeasured++;
		}
	}
	/* a straight step (x > 56) with faint noise: near it the rays' steps
	 * lie on a line, not on one circle, and some bases fall below the
	 * rule's quality (radius NaN, the ellipse not written) */
	fs_image *noise = fs_image_new(96, 96);
	assert_non_null(noise);
	uint32_t u = 12345;
	for (size_t i = 0; i < (size_t)96 * 96; i++) {
		u = u * 1664525u + 1013904223u;
		noise->data[i] = (float)((int)(i % 96) > 56) + 0.001f * (float)(u >> 8) / 16777216.0f;
	}
	for (int y = 30; y <= 66; y += 6)
		for (int x = 30; x <= 66; x += 6) {
			if (replay_same(noise, x + 0.25, y, r0, r1, &kept))
				failed++;
			else if (isfinite(kept.t.radius_px))
				measured++;
			else
				unmeasured++;
		}
	fs_image_free(noise);
	/* and where the rule cannot read at all: off the image */
	assert_int_not_equal(replay_same(s.img, -1.5, 20, r0, r1, &kept), 0);
	failed++;
	/* each branch of what a reading writes was met */
	assert_true(measured >= 10);
	assert_true(unmeasured >= 1);
	assert_true(failed >= 1);
	sem_scene_close(&s);
}

static void found_only_where_read(void **state)
{
	(void)state;
	fs_base_readings set = {0};
	fs_dome_reading r[3];
	memset(r, 0, sizeof r);
	for (int i = 0; i < 3; i++)
		r[i].t.radius_px = 10 + i;
	assert_int_equal(fs_base_readings_add(&set, FS_BASE_ON_MEAS, 100.25, 50.5, 2.7, 14.4, &r[0]), 0);
	assert_int_equal(fs_base_readings_add(&set, FS_BASE_ON_MEAS, 0.0, 7, 2.7, 14.4, &r[1]), 0);
	assert_int_equal(fs_base_readings_add(&set, FS_BASE_ON_MEAS, 30, 50.5, 2.7, 14.4, &r[2]), 0);
	/* not found before the set is sealed: adding and finding alternate
	 * only through fs_base_readings_seal */
	assert_null(fs_base_readings_find(&set, FS_BASE_ON_MEAS, 30, 50.5, 2.7, 14.4));
	fs_base_readings_seal(&set);
	const fs_dome_reading *f = fs_base_readings_find(&set, FS_BASE_ON_MEAS, 100.25, 50.5, 2.7, 14.4);
	assert_non_null(f);
	assert_true(f->t.radius_px == 10);
	f = fs_base_readings_find(&set, FS_BASE_ON_MEAS, 30, 50.5, 2.7, 14.4);
	assert_non_null(f);
	assert_true(f->t.radius_px == 12);
	assert_non_null(fs_base_readings_find(&set, FS_BASE_ON_MEAS, 0.0, 7, 2.7, 14.4));
	/* a point one bit off, -0.0 for 0.0, other radii: another reading */
	assert_null(fs_base_readings_find(&set, FS_BASE_ON_MEAS, nextafter(100.25, 200), 50.5, 2.7, 14.4));
	assert_null(fs_base_readings_find(&set, FS_BASE_ON_MEAS, -0.0, 7, 2.7, 14.4));
	assert_null(fs_base_readings_find(&set, FS_BASE_ON_MEAS, 100.25, 50.5, 2.7, 14.5));
	assert_null(fs_base_readings_find(&set, FS_BASE_ON_MEAS, 100.25, 50.5, 2.6, 14.4));
	/* ... and the same point on the image blurred more: another image */
	assert_null(fs_base_readings_find(&set, FS_BASE_ON_BLURRED, 100.25, 50.5, 2.7, 14.4));
	r[0].t.radius_px = 20;
	assert_int_equal(fs_base_readings_add(&set, FS_BASE_ON_BLURRED, 100.25, 50.5, 2.7, 14.4, &r[0]), 0);
	fs_base_readings_seal(&set);
	f = fs_base_readings_find(&set, FS_BASE_ON_BLURRED, 100.25, 50.5, 2.7, 14.4);
	assert_non_null(f);
	assert_true(f->t.radius_px == 20);
	f = fs_base_readings_find(&set, FS_BASE_ON_MEAS, 100.25, 50.5, 2.7, 14.4);
	assert_non_null(f);
	assert_true(f->t.radius_px == 10);
	assert_null(fs_base_readings_find(NULL, FS_BASE_ON_MEAS, 100.25, 50.5, 2.7, 14.4));
	fs_base_readings_free(&set);
	assert_int_equal(set.n, 0);
}

static void steps_found_only_where_judged(void **state)
{
	(void)state;
	sem_scene s;
	sem_opts o;
	sem_low_domes(&o);
	o.width = 160;
	o.height = 144;
	o.seed = 12;
	assert_int_equal(sem_scene_open(&s, &o), 0);
	fs_base_readings set = {0};
	double x = 80.3, y = 70.6, r = 0.25 * s.tr.pitch, r0 = 0.09 * s.tr.pitch, r1 = 0.48 * s.tr.pitch;
	double c = fs_base_step_contrast(s.img, 0, 0, s.img->width, s.img->height, x, y, r, r0, r1);
	assert_true(isfinite(c));
	assert_int_equal(fs_base_readings_add_step(&set, x, y, r, r0, r1, c), 0);
	assert_int_equal(fs_base_readings_add_step(&set, 0.0, 7, 3, 2.7, 14.4, NAN), 0);
	assert_int_equal(fs_base_readings_add_step(&set, 30, 50.5, 4, 2.7, 14.4, 2.5), 0);
	double f = -1;
	/* not found before the set is sealed */
	assert_int_equal(fs_base_readings_find_step(&set, x, y, r, r0, r1, &f), 0);
	fs_base_readings_seal(&set);
	assert_int_equal(fs_base_readings_find_step(&set, x, y, r, r0, r1, &f), 1);
	double again = fs_base_step_contrast(s.img, 0, 0, s.img->width, s.img->height, x, y, r, r0, r1);
	assert_memory_equal(&f, &again, sizeof f);
	assert_int_equal(fs_base_readings_find_step(&set, 30, 50.5, 4, 2.7, 14.4, &f), 1);
	assert_true(f == 2.5);
	/* a judgement with no value (NaN) is kept as judged */
	assert_int_equal(fs_base_readings_find_step(&set, 0.0, 7, 3, 2.7, 14.4, &f), 1);
	assert_true(isnan(f));
	/* a point one bit off, -0.0 for 0.0, another radius or window: none */
	f = -1;
	assert_int_equal(fs_base_readings_find_step(&set, nextafter(x, 200), y, r, r0, r1, &f), 0);
	assert_int_equal(fs_base_readings_find_step(&set, -0.0, 7, 3, 2.7, 14.4, &f), 0);
	assert_int_equal(fs_base_readings_find_step(&set, x, y, nextafter(r, 0), r0, r1, &f), 0);
	assert_int_equal(fs_base_readings_find_step(&set, x, y, r, r0, nextafter(r1, 0), &f), 0);
	assert_int_equal(fs_base_readings_find_step(&set, x, y, r, nextafter(r0, 0), r1, &f), 0);
	assert_true(f == -1);
	/* the readings' own keys are not steps' */
	assert_null(fs_base_readings_find(&set, FS_BASE_ON_MEAS, x, y, r0, r1));
	assert_int_equal(fs_base_readings_find_step(NULL, x, y, r, r0, r1, &f), 0);
	fs_base_readings_free(&set);
	assert_int_equal(set.nsteps, 0);
	sem_scene_close(&s);
}

/* The first pass's template fits kept for the last step's option
 * (fs_det_set_first_formation mode 2, h52d): found only at exactly the
 * centre kept, after the seal, with every field as kept; the option's
 * setter refuses a mode it does not know and says the previous one. */
static void fits_found_only_where_kept(void **state)
{
	(void)state;
	fs_base_readings set = {0};
	fs_base_fit_at a = {80.3, 70.6, 9.25, 0.8, 0.04, 0}, b = {0.0, 7, NAN, 0.1, 0.3, 1};
	assert_int_equal(fs_base_readings_add_fit(&set, &a), 0);
	assert_int_equal(fs_base_readings_add_fit(&set, &b), 0);
	assert_null(fs_base_readings_find_fit(&set, a.x, a.y));
	fs_base_readings_seal(&set);
	const fs_base_fit_at *f = fs_base_readings_find_fit(&set, a.x, a.y);
	assert_non_null(f);
	assert_memory_equal(f, &a, sizeof a);
	f = fs_base_readings_find_fit(&set, 0.0, 7);
	assert_non_null(f);
	assert_true(isnan(f->radius) && f->at_end == 1 && f->moved == 0.3);
	assert_null(fs_base_readings_find_fit(&set, nextafter(a.x, 200), a.y));
	assert_null(fs_base_readings_find_fit(&set, a.x, nextafter(a.y, 0)));
	assert_null(fs_base_readings_find_fit(&set, -0.0, 7));
	assert_null(fs_base_readings_find_fit(NULL, a.x, a.y));
	/* (the readings' and steps' keys are not fits') */
	assert_null(fs_base_readings_find(&set, FS_BASE_ON_MEAS, a.x, a.y, 1, 2));
	fs_base_readings_free(&set);
	assert_int_equal(set.nfits, 0);
	assert_null(set.fits);
	int was = fs_det_first_formation();
	assert_int_equal(fs_det_set_first_formation(6), -1);
	assert_int_equal(fs_det_set_first_formation(-1), -1);
	assert_int_equal(fs_det_first_formation(), was);
	assert_int_equal(fs_det_set_first_formation(2), was);
	assert_int_equal(fs_det_set_first_formation(was), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kept_readings_replay_the_reading),
		cmocka_unit_test(found_only_where_read),
		cmocka_unit_test(steps_found_only_where_judged),
		cmocka_unit_test(fits_found_only_where_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
