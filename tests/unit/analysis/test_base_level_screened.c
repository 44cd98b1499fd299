/*
 * When the dome rule reads its level on the low-passed image of a printed
 * figure (detect_base_fit.h, fs_det_base_level_screened, h31b): only when
 * the low-pass (0.3 of the screen's period) leaves the bases resolved -
 * the template fit's median radius and the gap to the neighbours' bases
 * both at least 3 low-pass sigmas. The corner scenes' cases (a 5-px
 * screen: sigma 1.5 px): pitch 64 at fill 0.25 and 0.8 resolved, pitch 16
 * at fill 0.25 (2-px bases) and 0.8 (a 3.2-px gap) not; no screen, too
 * few sized domes or no fitted formation: never; an unresolved gap only
 * where the first reading's rays were smoothed as much as the low-pass
 * (h41c); where it merges them but no whole dot fits in the gap, the
 * level is read as without a screen (fs_det_base_level_tight_screen,
 * h42e). And the reading itself
 * (fs_det_base_level_lowpassed) finds a blurred disk's base and no dome
 * on flat ground.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analysis/detect_base_fit.h"
#include "analysis/preprocess.h"
#include "synth.h"

#define N 12

/* A plan of N domes and a fitted formation of the given pitch under a
 * screen of the given period, the first reading's rays smoothed by
 * smooth px; v[k] the radii: n of about r (spread 0.95-1.06 r, so the
 * median decides), the rest NAN. */
static void screened_case(fs_det_base_plan *p, fs_det_offset *off, double pitch, double period, double smooth,
			  double *v, double r, size_t n)
{
	memset(p, 0, sizeof *p);
	p->n = N;
	memset(off, 0, sizeof *off);
	off->fitted = 1;
	off->fit.pitch = pitch;
	off->fit.halftone = period;
	off->smooth = smooth;
	for (size_t k = 0; k < N; k++)
		v[k] = k < n ? r * (0.95 + 0.01 * (double)k) : NAN;
}

/* gate for n sized domes of radius r (the rest not sized) on a lattice of
 * the given pitch under a screen of the given period, the first reading's
 * rays smoothed by smooth px */
static int gate_smoothed(double pitch, double period, double r, size_t n, double smooth)
{
	fs_det_base_plan p;
	fs_det_offset off;
	double fr[N], scratch[N];
	screened_case(&p, &off, pitch, period, smooth, fr, r, n);
	return fs_det_base_level_screened(&p, &off, fr, scratch);
}

static int gate(double pitch, double period, double r, size_t n)
{
	return gate_smoothed(pitch, period, r, n, 0);
}

static void resolved_only_where_the_low_pass_leaves_the_bases_apart(void **state)
{
	(void)state;
	assert_true(gate(64, 5, 8.0, N));   /* fill 0.25 */
	assert_true(gate(64, 5, 25.6, N));  /* fill 0.8: gap 12.8 px */
	assert_false(gate(16, 5, 2.0, N));  /* fill 0.25: a 2-px base */
	assert_false(gate(16, 5, 6.4, N));  /* fill 0.8: a 3.2-px gap */
	assert_false(gate(64, 0, 8.0, N));  /* no screen */
	assert_false(gate(64, 5, 8.0, 7));  /* fewer than 8 sized */
	/* the median decides, not the largest or the smallest */
	assert_true(gate(40, 5, 4.6, N));
	assert_false(gate(40, 5, 4.3, N));
}

/* h41c: where the first reading's rays were smoothed at least as much as
 * the low-pass (sigma 1.5 px under a 5-px screen), they merge the 3.2-px
 * gap of fill 0.8 at pitch 16 too, and the low-passed level is taken
 * (corner scenes 9 and 25, whose rule picks 2.2 px); the base itself
 * must still be resolved, and 1.2 px of smoothing keeps the first
 * reading. */
static void a_gap_merged_on_the_smoothed_rays_too(void **state)
{
	(void)state;
	assert_true(gate_smoothed(16, 5, 6.4, N, 2.2));
	assert_true(gate_smoothed(16, 5, 6.4, N, 1.5));
	assert_false(gate_smoothed(16, 5, 6.4, N, 1.2));
	assert_false(gate_smoothed(16, 5, 6.4, N, 0));
	assert_false(gate_smoothed(16, 5, 2.0, N, 2.2)); /* a 2-px base */
	assert_false(gate_smoothed(16, 0, 6.4, N, 2.2)); /* no screen */
	assert_false(gate_smoothed(16, 5, 6.4, 7, 2.2)); /* fewer than 8 sized */
	/* resolved already: the smoothing changes nothing */
	assert_true(gate_smoothed(64, 5, 25.6, N, 0));
	assert_true(gate_smoothed(64, 5, 25.6, N, 2.2));
}

/* the tight-gap gate (h42e) for n sized domes of radius r */
static int tight(double pitch, double period, double r, size_t n)
{
	fs_det_base_plan p;
	fs_det_offset off;
	double fr[N], scratch[N];
	screened_case(&p, &off, pitch, period, 0, fr, r, n);
	return fs_det_base_level_tight_screen(&p, &off, fr, scratch);
}

/* h42e: where the low-pass merges the bases but no whole dot of the
 * screen fits between two of them (the gap shorter than the period), the
 * level is read as without a screen; the fill-0.8 pitch-16 corner
 * scenes' template radii give gaps of 2.3-3.8 px under the 5-px screen,
 * fill 0.25's 10-13 px, where the unsmoothed rays read into the dots. */
static void read_as_without_a_screen_where_no_dot_fits_in_the_gap(void **state)
{
	(void)state;
	assert_true(tight(16, 5, 6.4, N));   /* fill 0.8: a 3.2-px gap */
	assert_true(tight(16, 5, 6.0, N));   /* read short: a 3.9-px gap */
	assert_false(tight(16, 5, 2.0, N));  /* fill 0.25: a 12-px gap */
	assert_false(tight(16, 5, 5.3, N));  /* a 5.3-px gap: one dot fits */
	assert_false(tight(16, 0, 6.4, N));  /* no screen */
	assert_false(tight(16, 5, 6.4, 7));  /* fewer than 8 sized */
	/* the median decides, not the largest or the smallest */
	assert_true(tight(40, 5, 17.7, N));  /* the median 1.01 r: a 4.2-px gap */
	assert_false(tight(40, 5, 17.3, N)); /* a 5.05-px gap */
}

/* h43j: the same gate on the low-passed readings (n read of radius r,
 * the first pinned of them left out) where the template fit's radii
 * said merged */
static int gate_read(double pitch, double period, double r, size_t n, size_t pinned)
{
	fs_det_base_plan p;
	fs_det_offset off;
	double lr[N], scratch[N];
	int le[N];
	screened_case(&p, &off, pitch, period, 0, lr, r, n);
	for (size_t k = 0; k < N; k++)
		le[k] = k < pinned;
	return fs_det_base_level_screened_read(&p, &off, lr, le, scratch);
}

/* the printed interior scenes 0 and 11 (pitch 32 / 28, true radii 8 and
 * 5.6 px): the templates' radii 3.3 / 2.7 px say merged, the low-passed
 * readings resolved; a reading pinned at its window's end is no base */
static void the_readings_asked_again_where_the_templates_read_short(void **state)
{
	(void)state;
	assert_false(gate(32, 5, 3.3, N));
	assert_false(gate(28, 5, 2.7, N));
	assert_true(gate_read(32, 5, 8.0, N, 0));
	assert_true(gate_read(28, 5, 5.6, N, 0));
	assert_false(gate_read(16, 5, 2.0, N, 0));  /* a 2-px base */
	assert_false(gate_read(16, 5, 6.4, N, 0));  /* a 3.2-px gap */
	assert_false(gate_read(32, 0, 8.0, N, 0));  /* no screen */
	assert_false(gate_read(32, 5, 8.0, 7, 0));  /* fewer than 8 read */
	assert_false(gate_read(32, 5, 8.0, N, 5));  /* 7 left once the pinned go */
	assert_true(gate_read(32, 5, 8.0, N, 4));
}

static void reads_a_disk_and_no_dome_on_flat_ground(void **state)
{
	(void)state;
	int W = 96;
	double c = W / 2.0 + 0.3, R = 12;
	fs_image *img = synth_blurred_disk(W, c, R, 0.7, 0.2, 1.8);
	assert_non_null(img);
	/* mr: the rule's 0.6 pitch of a lattice of pitch 40 */
	int edge = 9;
	double r = fs_det_base_level_lowpassed(img, c, c, 24, 1, &edge);
	assert_true(fabs(r - R) < 0.3);
	assert_int_equal(edge, 0);
	for (int i = 0; i < W * W; i++)
		img->data[i] = 0.4f;
	assert_true(isnan(fs_det_base_level_lowpassed(img, c, c, 24, 1, &edge)));
	fs_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(resolved_only_where_the_low_pass_leaves_the_bases_apart),
		cmocka_unit_test(a_gap_merged_on_the_smoothed_rays_too),
		cmocka_unit_test(read_as_without_a_screen_where_no_dot_fits_in_the_gap),
		cmocka_unit_test(the_readings_asked_again_where_the_templates_read_short),
		cmocka_unit_test(reads_a_disk_and_no_dome_on_flat_ground),
	};
	return cmocka_run_group_tests_name("base level under a screen", tests, NULL, NULL);
}
