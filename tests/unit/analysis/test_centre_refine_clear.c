/*
 * The refinement of a start that stands clear of its grid's first ring
 * (centre_refine.c, CLEAR_START): the start itself is the refined centre,
 * without the compass stage.
 *
 * Why: on a clean lattice the correlation's candidates lie within a few
 * tenths of a pixel of the dome's centre, the grid stops at them (h41j),
 * and the compass's 17 looks a dome then moved 257 of 2,738 such starts
 * on bench_detect_domes' lattice by a quarter step (0.34-0.45 px), which
 * the template fit that follows takes back (the lattice's mean centre
 * error 0.0252 -> 0.0253 px, mean radius -1.119 -> -1.120 %): it was an
 * eighth of the dome rule's instructions there for nothing the answer
 * keeps (h42k). A start that does not stand clear (3 px off here) is
 * still searched by the grid and the compass. The ring is tested on half
 * the rays first (h47j), and a start clear there is the centre too.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analysis/centre_refine.h"
#include "analysis/dome_measure.h"
#include "same_bits.h"
#include "synth.h"

/* Flat discs at pitch 36, half the pitch across, on bench_detect_domes'
 * lattice's terms (its size cut to 320 x 288). */
static fs_image *lattice(synth_truth *t)
{
	synth_opts o;
	synth_defaults(&o);
	o.width = 320;
	o.height = 288;
	o.pitch = 36;
	o.angle = 0.2;
	o.gradient = 0.3;
	o.jitter = 0;
	fs_image *img = synth_make(&o, t);
	assert_non_null(img);
	assert_true(t->n > 20);
	return img;
}

/* The dome rule's radii and search disc for a dome of this radius; the
 * grid stage's outcome in *k. */
static int refine(const fs_image *img, double x, double y, double r, fs_refine_grid *k, double *ox, double *oy)
{
	double mr = 2 * r;
	memset(k, 0, sizeof *k);
	return fs_centre_refine_kept(img, x, y, FS_DOME_R0 * mr, FS_DOME_R1 * mr, 0.15 * 36, 0, k, ox, oy);
}

static void clear_start_is_the_centre(void **state)
{
	(void)state;
	synth_truth t;
	fs_image *img = lattice(&t);
	/* starts a few tenths off the true centres, as the correlation's
	 * candidates on the lattice: the old compass moved such starts */
	static const double off[4][2] = {{0.3, -0.2}, {-0.35, 0.1}, {0.15, 0.4}, {-0.2, -0.3}};
	size_t n = 0, clear = 0;
	for (size_t j = 0; j < t.n; j++) {
		if (t.x[j] < 40 || t.y[j] < 40 || t.x[j] > img->width - 40 || t.y[j] > img->height - 40)
			continue;
		double x = t.x[j] + off[j % 4][0], y = t.y[j] + off[j % 4][1], rx, ry;
		fs_refine_grid k;
		assert_int_equal(refine(img, x, y, t.radius, &k, &rx, &ry), 0);
		n++;
		if (!k.clear)
			continue;
		clear++;
		assert_true(test_same_bits(rx, x));
		assert_true(test_same_bits(ry, y));
	}
	assert_true(n >= 20);
	assert_true(clear >= n / 2);
	fs_image_free(img);
	synth_truth_free(&t);
}

static void start_off_the_peak_is_searched(void **state)
{
	(void)state;
	synth_truth t;
	fs_image *img = lattice(&t);
	size_t n = 0;
	for (size_t j = 0; j < t.n; j++) {
		if (t.x[j] < 40 || t.y[j] < 40 || t.x[j] > img->width - 40 || t.y[j] > img->height - 40)
			continue;
		/* 3 px off: the grid's ring holds better centres, and the
		 * refinement comes back within a pixel of the true one */
		double x = t.x[j] + 3, y = t.y[j] - 2, rx, ry;
		fs_refine_grid k;
		assert_int_equal(refine(img, x, y, t.radius, &k, &rx, &ry), 0);
		assert_false(k.clear);
		assert_true(hypot(rx - t.x[j], ry - t.y[j]) < 1);
		n++;
	}
	assert_true(n >= 20);
	fs_image_free(img);
	synth_truth_free(&t);
}

/* A start the ring's test decides on half the rays (CLEAR_START_HALF,
 * h47j): 0.4 px off dome 11 of this lattice, the ring's highest trial
 * centre reads 0.785 of the start on the 8 rays and above 0.8 on all 16,
 * so the half test takes it as it is where the whole grid and the
 * compass moved it. The test pins that a start clear on half the rays is
 * not searched further (the cost cut's one change of behaviour). */
static void clear_on_half_the_rays_is_the_centre(void **state)
{
	(void)state;
	synth_truth t;
	fs_image *img = lattice(&t);
	assert_true(t.n > 11);
	double a = 7 * 0.3927, x = t.x[11] + 0.4 * cos(a), y = t.y[11] + 0.4 * sin(a), rx, ry;
	fs_refine_grid k;
	assert_int_equal(refine(img, x, y, t.radius, &k, &rx, &ry), 0);
	assert_true(k.clear);
	assert_true(test_same_bits(rx, x));
	assert_true(test_same_bits(ry, y));
	fs_image_free(img);
	synth_truth_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clear_start_is_the_centre),
		cmocka_unit_test(start_off_the_peak_is_searched),
		cmocka_unit_test(clear_on_half_the_rays_is_the_centre),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
