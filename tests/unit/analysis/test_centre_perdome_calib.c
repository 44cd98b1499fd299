/*
 * test_centre_perdome_calib.c - the per-dome step read on the formation's
 * own lattice (centre_perdome_calib.h, h52b): off by default; judged
 * through a gain of -1 and no floor it is the step of today to the bit;
 * on interior scene 3's formation (the simulator's, templates built at
 * the true centres) the lattice reads a gain near -1 (b follows a centre's
 * move towards the detector), a floor under the step's 1 px, the same
 * bits twice, and from the scene's true centres with four moved 2.5 px
 * towards the detector flags at least three of them and no other dome,
 * moving them back within 1 px (one reads b short: the image's own
 * per-dome spread); flagged by its own across profile too (mode 4), never
 * a dome the sum did not flag.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/centre_perdome_calib.h"
#include "formation_calib.h"
#include "sem_cache.h"
#include "sem_sim.h"

static void off_by_default(void **state)
{
	(void)state;
	/* (FS_TEST_PERDOME_CALIB turns it on before main) */
	const char *env = getenv("FS_TEST_PERDOME_CALIB");
	int was = env && *env ? env[0] - '0' : 0;
	assert_int_equal(fs_centre_perdome_calib_on(), was);
	assert_int_equal(fs_centre_perdome_set_calib(1), was);
	assert_int_equal(fs_centre_perdome_set_calib(2), 1);
	assert_int_equal(fs_centre_perdome_set_calib(0), 2);
	assert_int_equal(fs_centre_perdome_calib_on(), 0);
	fs_centre_perdome_set_calib(was);
}

static void calibrated_on_interior_3(void **state)
{
	(void)state;
	sem_opts o;
	sem_interior_scene(3, &o);
	sem_truth t;
	fs_image *img = sem_make_shared(&o, &t);
	assert_non_null(img);
	double *xs, *ys;
	size_t n;
	fs_dome_fit f;
	fs_dome_tpl u;
	assert_int_equal(formation_sim_templates_at(&o, img, &t, o.beam_blur, &f, &u, &xs, &ys, &n), 0);
	double r0 = 0.5 * o.fill * t.pitch;
	fs_centre_axis_geom g;
	fs_centre_perdome_geom(f.azimuth, r0, 1.2, t.pitch, &g);
	fs_centre_perdome_cal a, b;
	assert_int_equal(fs_centre_perdome_calib_read(&u, &f, o.fill, &g, &a), 0);
	assert_int_equal(fs_centre_perdome_calib_read(&u, &f, o.fill, &g, &b), 0);
	printf("interior 3's formation: gain %+.3f floor %.3f px b0 %+.3f px (ok %d)\n", a.gain, a.floor, a.b0, a.ok);
	assert_true(a.gain == b.gain && a.floor == b.floor && a.b0 == b.b0 && a.ok == b.ok);
	assert_true(a.ok && a.gain < -0.6 && a.gain > -1.4 && a.floor < 1);

	/* the image's domes at their true centres, four moved 2.5 px
	 * towards the detector; only those inside the frame's reach */
	size_t len = fs_centre_axis_len(&g), m = 0;
	double reach = fs_centre_axis_reach(&g), ux = cos(g.az), uy = sin(g.az);
	double *profs = malloc(n * len * sizeof *profs), *s0 = malloc(n * sizeof *s0), *s1 = malloc(n * sizeof *s1);
	int *moved = calloc(n, sizeof *moved);
	assert_true(profs && s0 && s1 && moved);
	for (size_t k = 0; k < n; k++) {
		if (xs[k] < reach + 3 || ys[k] < reach + 3 || xs[k] + reach + 3 >= img->width ||
		    ys[k] + reach + 3 >= img->height)
			continue;
		double d = m % 16 == 5 && m < 64 ? 2.5 : 0;
		moved[m] = d > 0;
		fs_centre_axis_profile(img, xs[k] + d * ux, ys[k] + d * uy, &g, profs + m * len);
		m++;
	}
	assert_true(m >= 32);
	/* a gain of -1 and no floor: today's step to the bit */
	fs_centre_perdome_cal one = {.ok = 1, .gain = -1, .floor = 0, .b0 = 0};
	int f0 = fs_centre_perdome_shifts(profs, m, &g, s0), f1 = fs_centre_perdome_shifts_cal(profs, m, &g, &one, s1);
	assert_int_equal(f0, f1);
	assert_memory_equal(s0, s1, m * sizeof *s0);
	int f2 = fs_centre_perdome_shifts_cal(profs, m, &g, &a, s1);
	printf("flagged %d today, %d calibrated of %zu\n", f0, f2, m);
	size_t hit = 0;
	for (size_t k = 0; k < m; k++)
		if (moved[k]) {
			printf("moved dome %zu: shift %+.3f (today %+.3f)\n", k, s1[k], s0[k]);
			hit += s1[k] != 0;
			if (s1[k] != 0)
				assert_true(fabs(s1[k] + 2.5) < 1.0);
		} else {
			assert_true(s1[k] == 0);
		}
	/* (one of the four reads b short of its move: the image's own
	 * spread at the true centres, 0.3-0.7 px, h52b) */
	assert_true(hit >= 3);
	/* each dome against its own across-axis profile (mode 3) */
	fs_centre_perdome_cal own = a;
	own.own = 1;
	int f3 = fs_centre_perdome_shifts_cal(profs, m, &g, &own, s1);
	size_t hit3 = 0, wrong3 = 0;
	for (size_t k = 0; k < m; k++)
		if (s1[k] != 0) {
			hit3 += moved[k];
			wrong3 += !moved[k];
		}
	printf("own across profile: flagged %d (%zu moved ones, %zu others)\n", f3, hit3, wrong3);
	/* flagged by both (mode 4): no dome the sum did not flag */
	own.own = 2;
	double *s4 = malloc(m * sizeof *s4);
	assert_non_null(s4);
	int f4 = fs_centre_perdome_shifts_cal(profs, m, &g, &a, s1);
	int f5 = fs_centre_perdome_shifts_cal(profs, m, &g, &own, s4);
	printf("flagged by both: %d of the sum's %d\n", f5, f4);
	assert_true(f5 <= f4);
	for (size_t k = 0; k < m; k++)
		assert_true(s4[k] == 0 || s4[k] == s1[k]);
	free(s4);
	free(profs);
	free(s0);
	free(s1);
	free(moved);
	fs_dome_tpl_free(&u);
	free(xs);
	free(ys);
	sem_truth_free(&t);
	fs_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(off_by_default),
		cmocka_unit_test(calibrated_on_interior_3),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
