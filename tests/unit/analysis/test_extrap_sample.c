/* The level's second readings on a sample (h34b, issue 13's cost;
 * detect_base_fit.h, FS_DET_BASE_EXTRAP_SAMPLE): on a simulated scene of
 * more than FS_DET_BASE_EXTRAP_SAMPLE domes without a screen (corner scene
 * 33's at pitch 32: the bases stay resolved under the second blur, so the
 * level is extrapolated to no blur), the dome rule with the sample gives other
 * diameters than with every dome read again (the sample is in effect:
 * on the code before h34b the two runs are the same), its mean D within
 * 0.3 % of the full reading's and no further from the truth than that
 * plus 0.3 %; and the measurement tile by tile (two threads) picks the
 * same domes as the whole image's: the same results within 0.01 px. Under the sanitizers a quarter of the scene
 * with a sample of 32, whole and tiled only. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/detect.h"
#include "analysis/detect_base_fit.h"
#include "sanitized.h"
#include "sem_scene.h"

static void detect_dome(const sem_scene *s, int tile, int threads, fs_detect_result *r)
{
	char err[256];
	fs_detect_set_tiling(tile, threads);
	assert_int_equal(fs_detect_domes(s->img, &s->p, 0, r, err, sizeof err), 0);
	fs_detect_set_tiling(FS_DETECT_TILE_DEFAULT, 1);
}

/* The mean of the matched, counted domes' measured D over their true D, - 1. */
static double mean_d_error(const sem_scene *s, const fs_detect_result *r)
{
	double sd = 0, st = 0;
	size_t n = 0;
	assert_int_equal(sem_matched_diameters(&s->tr, &r->tubercles, &sd, &st, &n), 0);
	assert_true(n > 0 && st > 0);
	return sd / st - 1;
}

/* tile by tile (two threads, more than four tiles) against the whole image's part: the same
 * domes picked (the centres' pixels). The two paths agree here within
 * 1e-12 px; another pick of the second readings moves every D by about
 * 1e-3 px, below test_detect_domes_tiled's 0.01 px: hence TIGHT. */
#define TIGHT 1e-6
static void same_tiled(const sem_scene *s, int tile, const fs_detect_result *part)
{
	fs_detect_result tiled;
	detect_dome(s, tile, 2, &tiled);
	assert_int_equal(tiled.tubercles.n, part->tubercles.n);
	size_t d = 0;
	for (size_t i = 0; i < part->tubercles.n; i++) {
		const fs_tubercle *a = &part->tubercles.items[i], *b = &tiled.tubercles.items[i];
		d += !(fabs(a->centroid_x - b->centroid_x) < TIGHT && fabs(a->centroid_y - b->centroid_y) < TIGHT &&
		       (fabs(2 * a->radius_px - 2 * b->radius_px) < TIGHT ||
			(isnan(a->radius_px) && isnan(b->radius_px))));
	}
	if (d)
		printf("# tiled: %zu of %zu differ\n", d, part->tubercles.n);
	assert_int_equal(d, 0);
	fs_detect_result_free(&tiled);
}

static void test_sample_keeps_the_level(void **state)
{
	(void)state;
	/* corner scene 33's domes (fill 0.8, spherical caps, h/R 0.25, lit from
	 * 0 degrees, no screen) at pitch 28: about 590 on 704 x 600 px */
	sem_opts o;
	sem_corner_scene(33, &o);
	o.pitch = 28;
	o.width = 704;
	o.height = 600;
	o.seed = 3401;
	if (fs_test_subset()) {
		/* the sampled paths on a quarter of the scene, a sample of 32:
		 * whole image and tiles alike (no accuracy judged, sanitized.h) */
		o.width = 384;
		o.height = 320;
	}
	sem_scene s;
	assert_int_equal(sem_scene_open(&s, &o), 0);
	if (fs_test_subset()) {
		fs_detect_result part;
		size_t old = fs_det_base_set_extrap_sample(32);
		detect_dome(&s, 0, 1, &part);
		same_tiled(&s, 96, &part);
		fs_det_base_set_extrap_sample(old);
		fs_detect_result_free(&part);
		sem_scene_close(&s);
		return;
	}
	fs_detect_result all, part;
	size_t old = fs_det_base_set_extrap_sample(0);
	detect_dome(&s, 0, 1, &all);
	fs_det_base_set_extrap_sample(old);
	detect_dome(&s, 0, 1, &part);
	assert_true(all.tubercles.n > FS_DET_BASE_EXTRAP_SAMPLE + 64);
	assert_int_equal(all.tubercles.n, part.tubercles.n);
	size_t moved = 0;
	double sa = 0, sp = 0;
	for (size_t i = 0; i < all.tubercles.n; i++) {
		const fs_tubercle *a = &all.tubercles.items[i], *b = &part.tubercles.items[i];
		moved += a->radius_px != b->radius_px;
		if (isfinite(a->radius_px) && isfinite(b->radius_px)) {
			sa += a->radius_px;
			sp += b->radius_px;
		}
	}
	double ea = mean_d_error(&s, &all), ep = mean_d_error(&s, &part);
	printf("# %zu domes: %zu diameters moved by the sample, mean D %+.3f %% of every dome's reading; "
	       "against the truth %+.3f %% (all read) %+.3f %% (sample)\n",
	       all.tubercles.n, moved, 100 * (sp / sa - 1), 100 * ea, 100 * ep);
	assert_true(moved > 0);
	assert_true(fabs(sp / sa - 1) < 0.003);
	assert_true(fabs(ep) < fabs(ea) + 0.003);
	same_tiled(&s, 192, &part);
	fs_detect_result_free(&all);
	fs_detect_result_free(&part);
	sem_scene_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_keeps_the_level),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
