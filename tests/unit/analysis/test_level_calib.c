/*
 * test_level_calib.c - the level reader's excess read on the formation's
 * own lattice (level_calib.h, h52a): off by default and a no-op off; on
 * corner scene 2's formation (the simulator's, at the scene's blur,
 * templates built at the true centres) the reading averages its nine
 * phases, is repeatable to the bit and reads the 4-px flat top long as
 * the image's domes read; in mode 2 every reading is divided by it, and
 * without the profile's blur nothing is read. The walked domes' lit
 * shadow (h53e): off by default and a no-op off; on corner scene 4's
 * formation (tall spheres, the simulator's shadow) the ratio with / without
 * the shadow is repeatable to the bit, exactly 1 for templates without a
 * shadow, and divided out in mode 2 (mode 3 only where the cap is off).
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

#include "analysis/level_calib.h"
#include "formation_calib.h"
#include "sem_cache.h"
#include "sem_sim.h"

static int traced;

static void count_trace(void *ctx, const fs_level_calib_info *in)
{
	(void)ctx;
	(void)in;
	traced++;
}

/* what an option that is off is handed: a formation and empty templates
 * (nothing may be read from them) and eight domes' sizes, reaches and
 * level readings (lr, which must come back as they were: 2.3) */
static void off_inputs(fs_dome_fit *f, fs_dome_tpl *t, double fr[8], double mrs[8], double lr[8])
{
	memset(f, 0, sizeof *f);
	f->pitch = 16;
	f->blur_px = 1;
	memset(t, 0, sizeof *t);
	for (int k = 0; k < 8; k++) {
		fr[k] = 2;
		mrs[k] = 9.6;
		lr[k] = 2.3;
	}
}

static void off_by_default(void **state)
{
	(void)state;
	/* (FS_TEST_LEVEL_CALIB turns it on before main) */
	const char *env = getenv("FS_TEST_LEVEL_CALIB");
	int was = env && *env ? env[0] - '0' : 0;
	assert_int_equal(fs_level_calib_on(), was);
	assert_int_equal(fs_level_calib_set(2), was);
	assert_int_equal(fs_level_calib_set(0), 2);
	/* off: nothing read, nothing traced, the readings as they were */
	fs_dome_fit f;
	fs_dome_tpl t;
	double fr[8], mrs[8], lr[8];
	off_inputs(&f, &t, fr, mrs, lr);
	traced = 0;
	fs_level_calib_set_trace(count_trace, NULL);
	assert_int_equal(fs_level_calib_apply(&t, &f, fr, mrs, 8, 0.8, lr), 0);
	fs_level_calib_set_trace(NULL, NULL);
	assert_int_equal(traced, 0);
	for (int k = 0; k < 8; k++)
		assert_true(lr[k] == 2.3);
	fs_level_calib_set(was);
}

static void reads_the_formations_lattice(void **state)
{
	(void)state;
	sem_opts o;
	sem_corner_scene(2, &o);
	sem_truth t;
	fs_image *img = sem_make_shared(&o, &t);
	assert_non_null(img);
	/* the scene's beam and the measurement image's 0.5 px together */
	double blur = hypot(o.beam_blur, 0.5), *xs, *ys;
	size_t n;
	fs_dome_fit f;
	fs_dome_tpl u;
	assert_int_equal(formation_sim_templates_at(&o, img, &t, blur, &f, &u, &xs, &ys, &n), 0);
	double mr = 0.6 * t.pitch, a, b;
	int na, nb;
	assert_int_equal(fs_level_calib_read(&u, &f, o.fill, 0, mr, &a, &na), 0);
	assert_int_equal(fs_level_calib_read(&u, &f, o.fill, blur, mr, &b, &nb), 0);
	printf("scene 2, the simulator's formation at %.3f px: the reader's ratio %.4f (%d of %d phases)\n", blur, a,
	       na, FS_LEVEL_CALIB_NPH * FS_LEVEL_CALIB_NPH);
	assert_true(a == b && na == nb);
	assert_true(2 * na >= FS_LEVEL_CALIB_NPH * FS_LEVEL_CALIB_NPH);
	/* the flat top's rim read long on its own formation too (h42a's
	 * "model" row: +4..+25 %), never shorter than the base */
	assert_true(a > 1.0 && a < 1.4);
	/* mode 2 divides every reading by it; without the profile's blur
	 * nothing is read */
	double fr[8], mrs[8], lr[8];
	for (int k = 0; k < 8; k++) {
		fr[k] = 0.5 * o.fill * t.pitch;
		mrs[k] = mr;
		lr[k] = 2.3;
	}
	int was = fs_level_calib_set(2);
	assert_int_equal(fs_level_calib_apply(&u, &f, fr, mrs, 8, NAN, lr), 0);
	for (int k = 0; k < 8; k++)
		assert_true(lr[k] == 2.3);
	assert_int_equal(fs_level_calib_apply(&u, &f, fr, mrs, 8, 0.5 * blur, lr), 0);
	double c;
	int nc;
	assert_int_equal(fs_level_calib_read(&u, &f, o.fill, 0.5 * blur, mr, &c, &nc), 0);
	for (int k = 0; k < 8; k++)
		assert_true(fabs(lr[k] - 2.3 / c) < 1e-12);
	fs_level_calib_set(was);
	/* outside the templates' fills, or no templates: nothing read */
	assert_int_equal(fs_level_calib_read(&u, &f, 0.99, 0, mr, &a, &na), 1);
	fs_dome_tpl_free(&u);
	memset(&u, 0, sizeof u);
	assert_int_equal(fs_level_calib_read(&u, &f, o.fill, 0, mr, &a, &na), 1);
	free(xs);
	free(ys);
	sem_truth_free(&t);
	fs_image_free(img);
}

static int lit_traced;

static void count_lit_trace(void *ctx, const fs_lit_shadow_info *in)
{
	(void)ctx;
	(void)in;
	lit_traced++;
}

static void lit_shadow_off_by_default(void **state)
{
	(void)state;
	/* (FS_TEST_LIT_SHADOW turns it on before main) */
	const char *env = getenv("FS_TEST_LIT_SHADOW");
	int was = env && *env ? env[0] - '0' : 0;
	assert_int_equal(fs_level_calib_lit_shadow_on(), was);
	assert_int_equal(fs_level_calib_set_lit_shadow(2), was);
	assert_int_equal(fs_level_calib_set_lit_shadow(0), 2);
	fs_dome_fit f;
	fs_dome_tpl t;
	double fr[8], mrs[8], lr[8], ratio;
	off_inputs(&f, &t, fr, mrs, lr);
	lit_traced = 0;
	fs_level_calib_set_lit_shadow_trace(count_lit_trace, NULL);
	assert_int_equal(fs_level_calib_lit_shadow_apply(&t, &f, fr, mrs, 8, NAN, lr, &ratio), 0);
	fs_level_calib_set_lit_shadow_trace(NULL, NULL);
	assert_int_equal(lit_traced, 0);
	assert_true(isnan(ratio));
	for (int k = 0; k < 8; k++)
		assert_true(lr[k] == 2.3);
	fs_level_calib_set_lit_shadow(was);
}

static void lit_shadow_reads_the_formations_lattice(void **state)
{
	(void)state;
	sem_opts o;
	sem_corner_scene(4, &o);
	sem_truth t;
	fs_image *img = sem_make_shared(&o, &t);
	assert_non_null(img);
	fs_dome_fit f;
	fs_dome_tpl u;
	assert_int_equal(formation_sim_templates(&o, img, &t, &f, &u), 0);
	double mr = 0.6 * t.pitch, a, b;
	int na, nb;
	assert_int_equal(fs_level_calib_lit_shadow(&u, &f, o.fill, mr, NAN, &a, &na), 0);
	assert_int_equal(fs_level_calib_lit_shadow(&u, &f, o.fill, mr, NAN, &b, &nb), 0);
	printf("scene 4, the simulator's formation: lit reading with / without its shadow %.4f (%d of %d phases, "
	       "shadowed %d)\n",
	       a, na, FS_LEVEL_CALIB_NPH * FS_LEVEL_CALIB_NPH, u.shadowed);
	assert_true(a == b && na == nb);
	assert_true(a > 0.8 && a < 1.2);
	/* templates without a shadow: nothing cast */
	fs_dome_tpl u0 = u;
	u0.shadowed = 0;
	assert_int_equal(fs_level_calib_lit_shadow(&u0, &f, o.fill, mr, NAN, &b, &nb), 0);
	assert_true(b == 1);
	/* mode 3 leaves a capped image alone; mode 2 divides */
	double fr[8], mrs[8], lr[8], ratio;
	for (int k = 0; k < 8; k++) {
		fr[k] = 0.5 * o.fill * t.pitch;
		mrs[k] = mr;
		lr[k] = 2.3;
	}
	int was = fs_level_calib_set_lit_shadow(3);
	assert_int_equal(fs_level_calib_lit_shadow_apply(&u, &f, fr, mrs, 8, 0.9, lr, &ratio), 0);
	for (int k = 0; k < 8; k++)
		assert_true(lr[k] == 2.3);
	fs_level_calib_set_lit_shadow(2);
	assert_int_equal(fs_level_calib_lit_shadow_apply(&u, &f, fr, mrs, 8, NAN, lr, &ratio), 0);
	assert_true(ratio == a);
	for (int k = 0; k < 8; k++)
		assert_true(lr[k] == 2.3 / a);
	fs_level_calib_set_lit_shadow(was);
	fs_dome_tpl_free(&u);
	sem_truth_free(&t);
	fs_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(off_by_default),
		cmocka_unit_test(reads_the_formations_lattice),
		cmocka_unit_test(lit_shadow_off_by_default),
		cmocka_unit_test(lit_shadow_reads_the_formations_lattice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
