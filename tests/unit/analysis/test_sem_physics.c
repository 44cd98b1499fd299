/*
 * The SEM simulator (tests/unit/support/sem_sim.c, sem_surface.c) against
 * the physics it claims, on its raw signal (before the detector response,
 * noise and reproduction):
 * - flat ground seen by the side detector gives the flat yield, 1, in
 *   every pixel (sec 0 = 1, no directional term, no convexity, no shadow);
 * - the SE edge of a large cap lies at the true base: without beam blur a
 *   pixel cut by the base holds the inside yield over the part of it that
 *   lies inside, so the fraction read back from its value places the base
 *   within 0.1 px (point samples at pixel centres could not: they place
 *   it anywhere in the pixel);
 * - a pixel's mean converges as the sub-samples per pixel grow: printed
 *   per step, and the default (SEM_SUPERSAMPLE) changes the image by less
 *   than a small part of its range against twice as many.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sem_sim.h"

/* A clean scene: no undulation, roughness, jitter, noise or blur. */
static void clean_opts(sem_opts *o)
{
	sem_defaults(o);
	o->raw = 1;
	o->undulation = 0;
	o->roughness = 0;
	o->radius_jitter = 0;
	o->pos_jitter = 0;
	o->beam_blur = 0;
}

static void flat_ground_gives_flat_yield(void **state)
{
	(void)state;
	sem_opts o;
	clean_opts(&o);
	o.missing = 1; /* no domes */
	o.beam_blur = 0.8;
	o.det_azimuth = 135 * M_PI / 180;
	sem_truth t;
	fs_image *img = sem_make(&o, &t);
	assert_non_null(img);
	assert_int_equal(t.n, 0);
	for (size_t i = 0; i < (size_t)img->width * img->height; i++)
		assert_true(fabs(img->data[i] - 1) < 1e-5);
	sem_truth_free(&t);
	fs_image_free(img);
}

/* Base position read from the pixel the base cuts on row y0, going out
 * from the centre in direction dir (+1 right, -1 left): its value is the
 * ground's (1) over the outside part and the inside yield, extrapolated
 * linearly from the two pixels further in, over the rest. */
static double base_from_row(const fs_image *img, int y0, double xe, int dir)
{
	int i = (int)lround(xe);
	const float *row = img->data + (size_t)y0 * img->width;
	double in = 2 * row[i - dir] - row[i - 2 * dir], out = row[i + 2 * dir];
	double frac = (row[i] - out) / (in - out); /* inside part of pixel i */
	return dir > 0 ? i - 0.5 + frac : i + 0.5 - frac;
}

static double worst_base_error(int supersample)
{
	double worst = 0;
	for (unsigned seed = 1; seed <= 6; seed++) {
		sem_opts o;
		clean_opts(&o);
		o.width = o.height = 90;
		o.pitch = 80;
		o.fill = 0.6; /* R = 24 px */
		o.profile = 0;
		o.h_over_r = 0.25; /* the slope at the base is 0.53: yield 1.13 inside */
		o.det_strength = 0;
		o.shadow = 0;
		o.edge = 0;
		o.pos_jitter = 0.01; /* the base anywhere within a pixel */
		o.seed = seed;
		o.supersample = supersample;
		sem_truth t;
		fs_image *img = sem_make(&o, &t);
		assert_non_null(img);
		size_t c = 0;
		for (size_t k = 1; k < t.n; k++)
			if (hypot(t.x[k] - 45, t.y[k] - 45) < hypot(t.x[c] - 45, t.y[c] - 45))
				c = k;
		double R = t.d[c] / 2;
		int y0 = (int)lround(t.y[c]);
		double half = sqrt(R * R - (y0 - t.y[c]) * (y0 - t.y[c]));
		for (int dir = -1; dir <= 1; dir += 2) {
			double xe = t.x[c] + dir * half;
			double e = fabs(base_from_row(img, y0, xe, dir) - xe);
			worst = fmax(worst, e);
		}
		sem_truth_free(&t);
		fs_image_free(img);
	}
	return worst;
}

static void se_edge_of_a_large_cap_is_at_its_base(void **state)
{
	(void)state;
	double e1 = worst_base_error(1), ed = worst_base_error(0), e16 = worst_base_error(16);
	printf("sem physics: base of a cap (R 24 px) from its SE edge, worst of 12: "
	       "centre samples %.3f px, %d x %d sub-samples %.3f px, 16 x 16 %.3f px\n",
	       e1, SEM_SUPERSAMPLE, SEM_SUPERSAMPLE, ed, e16);
	assert_true(ed < 0.1);
	assert_true(e16 < 0.1);
	/* the test can tell: centre samples put the base where the pixel is */
	assert_true(e1 > 0.1);
}

/* Largest and mean absolute change of the raw image of corner scene k
 * between a and b sub-samples per pixel side, relative to its range. */
static void change(int k, int a, int b, double *maxd, double *meand)
{
	sem_opts o;
	sem_corner_scene(k, &o);
	o.raw = 1;
	/* a part of the scene: about 5 x 4 pitches */
	o.width = (int)(5 * o.pitch);
	o.height = (int)(4 * o.pitch);
	sem_truth ta, tb;
	o.supersample = a;
	fs_image *ia = sem_make(&o, &ta);
	o.supersample = b;
	fs_image *ib = sem_make(&o, &tb);
	assert_non_null(ia);
	assert_non_null(ib);
	size_t n = (size_t)ia->width * ia->height;
	double lo = INFINITY, hi = -INFINITY, mx = 0, sum = 0;
	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, ib->data[i]);
		hi = fmax(hi, ib->data[i]);
		double d = fabs(ia->data[i] - ib->data[i]);
		mx = fmax(mx, d);
		sum += d;
	}
	*maxd = mx / (hi - lo);
	*meand = sum / n / (hi - lo);
	sem_truth_free(&ta);
	sem_truth_free(&tb);
	fs_image_free(ia);
	fs_image_free(ib);
}

static void supersampled_pixels_converge(void **state)
{
	(void)state;
	/* steep flat-topped domes packed at fill 0.8, lit from 135 degrees
	 * (shadows), at pitch 16: the hardest case for sampling */
	const int scenes[] = {23, 55};
	for (size_t q = 0; q < sizeof scenes / sizeof *scenes; q++) {
		int k = scenes[q];
		double m12, a12, m24, a24, m48, a48, m816, a816;
		change(k, 1, 2, &m12, &a12);
		change(k, 2, 4, &m24, &a24);
		change(k, 4, 8, &m48, &a48);
		change(k, 8, 16, &m816, &a816);
		printf("sem physics: scene %d, change of the raw image per doubling of the sub-samples "
		       "(max / mean, of its range): 1->2 %.4f/%.5f, 2->4 %.4f/%.5f, 4->8 %.4f/%.5f, "
		       "8->16 %.4f/%.5f (default %d)\n",
		       k, m12, a12, m24, a24, m48, a48, m816, a816, SEM_SUPERSAMPLE);
		/* converging: each doubling changes less on average */
		assert_true(a24 < a12);
		assert_true(a48 < a24);
		assert_true(a816 < a48);
		/* the default (4) is converged to a small part of the range */
		assert_true(a48 < 0.01);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flat_ground_gives_flat_yield),
		cmocka_unit_test(se_edge_of_a_large_cap_is_at_its_base),
		cmocka_unit_test(supersampled_pixels_converge),
	};
	return cmocka_run_group_tests_name("sem physics", tests, NULL, NULL);
}
