/*
 * The mean-patch variants of the rule's forward model (tests/unit/support/
 * se_mean_dome.h, h40c): bench_formation_lm judges the rule's model by
 * them, so each variant must be the physics it names. On flat ground
 * random slopes of SD t raise the mean secant by t^2 and a random
 * Laplacian of SD l gives the clipped edge term a mean l / sqrt(2 pi); a
 * radius scatter of relative SD s scales what one whole dome adds to the
 * patch by E (1 + e)^2 = 1 + s^2; a pixel's integration is the 1-px box
 * over the samples, which commutes with the blur.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "se_mean_dome.h"

enum { Qb = 4 };

static float *comps[FS_SE_NCOMP];

static void alloc_out(int wb)
{
	size_t n = (size_t)(2 * wb + 1) * (2 * wb + 1);
	for (int k = 0; k < FS_SE_NCOMP; k++) {
		comps[k] = calloc(n, sizeof *comps[k]);
		assert_non_null(comps[k]);
	}
}

static void free_out(void)
{
	for (int k = 0; k < FS_SE_NCOMP; k++) {
		free(comps[k]);
		comps[k] = NULL;
	}
}

/* A context at Qb samples a px over a window of wb_px px each way, the
 * edge term capped, and the components' arrays for it. */
static se_mean_ctx window_of(int wb_px)
{
	se_mean_ctx c;
	memset(&c, 0, sizeof c);
	c.q = Qb;
	c.wb = wb_px * Qb;
	c.edge_cap = 1;
	alloc_out(c.wb);
	return c;
}

static void window_free(se_mean_ctx *c)
{
	se_mean_free(c);
	free_out();
}

static se_mean_par small_domes(double pitch)
{
	se_mean_par p = {.fill = 0.25, .h_over_r = 0.5, .profile = 1, .angle = 0, .pitch_px = pitch, .az = 0,
			 .el = 60 * M_PI / 180, .blur_px = 0.5};
	return p;
}

static void roughness_raises_the_flat_grounds_yield_and_edge(void **state)
{
	(void)state;
	se_mean_ctx c = window_of(9);
	int w = 2 * c.wb + 1;
	se_mean_par p = small_domes(16);
	/* (8, 0) px: half way to the next site, 6 px from both bases */
	size_t o = (size_t)c.wb * w + (size_t)(c.wb + 8 * Qb);
	assert_int_equal(se_mean_components(&c, &p, comps), 0);
	double y0 = comps[FS_SE_YIELD][o], e0 = comps[FS_SE_EDGE][o];
	assert_true(fabs(y0 - 1) < 1e-6 && fabs(e0) < 1e-6);
	c.kinds = SE_MEAN_ROUGH;
	p.rough_t = 0.1;
	p.rough_l = 0.2;
	assert_int_equal(se_mean_components(&c, &p, comps), 0);
	assert_true(fabs(comps[FS_SE_YIELD][o] - (1 + 0.01)) < 1e-5);
	assert_true(fabs(comps[FS_SE_EDGE][o] - 0.2 / sqrt(2 * M_PI)) < 1e-5);
	/* the slopes are linear in the random slope: their mean is the
	 * dome's */
	assert_true(fabs(comps[FS_SE_SLOPE_X][o]) < 1e-6);
	window_free(&c);
}

static double yield_excess(const se_mean_ctx *c)
{
	int w = 2 * c->wb + 1;
	double s = 0;
	for (int i = 0; i < w * w; i++)
		s += comps[FS_SE_YIELD][i] - 1;
	return s;
}

static void radius_scatter_scales_a_whole_domes_share_by_one_plus_s2(void **state)
{
	(void)state;
	/* pitch 64, R 8 px: the window (14 px) holds the centre dome whole
	 * at every node and no neighbour */
	se_mean_ctx c = window_of(14);
	se_mean_par p = small_domes(64);
	assert_int_equal(se_mean_components(&c, &p, comps), 0);
	double base = yield_excess(&c);
	assert_true(base > 1);
	c.kinds = SE_MEAN_JITTER;
	p.jitter = 0.1;
	assert_int_equal(se_mean_components(&c, &p, comps), 0);
	double ratio = yield_excess(&c) / base;
	assert_true(fabs(ratio - (1 + 0.01)) < 0.001);
	/* no scatter, no change */
	p.jitter = 0;
	assert_int_equal(se_mean_components(&c, &p, comps), 0);
	assert_true(fabs(yield_excess(&c) - base) < 1e-9 * fabs(base));
	window_free(&c);
}

static void a_pixel_is_the_box_over_its_samples(void **state)
{
	(void)state;
	se_mean_ctx c = window_of(9);
	c.fine = 1;
	int w = 2 * c.wb + 1;
	se_mean_par p = small_domes(16);
	p.sx = 0.3;
	assert_int_equal(se_mean_components(&c, &p, comps), 0);
	size_t n = (size_t)w * w;
	float *plain[FS_SE_NCOMP];
	for (int k = 0; k < FS_SE_NCOMP; k++) {
		plain[k] = malloc(n * sizeof *plain[k]);
		assert_non_null(plain[k]);
		memcpy(plain[k], comps[k], n * sizeof *plain[k]);
	}
	c.kinds = SE_MEAN_PIXEL;
	assert_int_equal(se_mean_components(&c, &p, comps), 0);
	/* the 1-px box at 4 samples a px: 5 taps, the ends half weight,
	 * along x and y; the blur commutes with it */
	static const double tap[5] = {0.125, 0.25, 0.25, 0.25, 0.125};
	double worst = 0, moved = 0;
	for (int k = 0; k < FS_SE_NCOMP; k++)
		for (int y = 2; y < w - 2; y++)
			for (int x = 2; x < w - 2; x++) {
				double s = 0;
				for (int j = 0; j < 5; j++)
					for (int i = 0; i < 5; i++)
						s += tap[j] * tap[i] * plain[k][(size_t)(y + j - 2) * w + (x + i - 2)];
				double v = comps[k][(size_t)y * w + x];
				worst = fmax(worst, fabs(v - s));
				moved = fmax(moved, fabs(v - plain[k][(size_t)y * w + x]));
			}
	assert_true(worst < 1e-5);
	/* and it is not the plain model: the box smooths the base's step */
	assert_true(moved > 1e-3);
	for (int k = 0; k < FS_SE_NCOMP; k++)
		free(plain[k]);
	window_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(roughness_raises_the_flat_grounds_yield_and_edge),
		cmocka_unit_test(radius_scatter_scales_a_whole_domes_share_by_one_plus_s2),
		cmocka_unit_test(a_pixel_is_the_box_over_its_samples),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
