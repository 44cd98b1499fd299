/*
 * The AVX and SSE2 loops give the plain loops' bits (cpu_features.h): both
 * rules measured with AVX allowed and forbidden, and with AVX and SSE2
 * forbidden (fs_cpu_forbid), must give the same tubercles to the last
 * bit - centres, radii, fit qualities; and the two SSE2 intrinsic loops'
 * own outputs (the circle votes' combination, the image's extremes) must
 * be their scalar twins' to the bit.
 *
 * Why: the dome rule's hot loops (the template fit's patch read and dot
 * products, the base readings' ray steps, the circle votes, the
 * refinement, the blurs, the formation fit's mean image and the disk
 * filter) each have an AVX twin taken where the processor has it,
 * written to sum in the plain loop's order.
 * The build machine and CI have AVX, so no other test runs the plain
 * loops, and a twin that drifted (an order of sums, a -0 clamp) would
 * change results on an older processor only. Stop 43's cuts (h43f) added
 * four such twins, and an SSE2 one (the votes' combination) whose scalar
 * loop ran only on a pixel row's last few pixels. The votes only seed the
 * mean dome, so a drift there need not move a tubercle: their own output
 * is compared too.
 * The figures: P1 Fig2 (unscreened, the last step's formation fit and
 * template fit) and P1 Fig4 (printed: the low-pass and the screened
 * level); both rules on each. Checked to fail: 1e-9 added to the first
 * point of the template fit's AVX patch read (obs_rows4) fails both
 * dome-rule cases at their first tubercle; 1e-6 added to lane 0 of the
 * votes' SSE2 combination (votes_combine4) fails votes_sse2_plain at
 * the first pixel and both dome-rule cases at their first tubercle.
 * Stop 46's twins (h46j): the votes' SSE2 steps (vote_steps2) with one
 * vote times 1.0001 fail votes_sse2_plain at the first pixel and both
 * dome-rule cases at their first tubercle; the patch read's AVX columns
 * (obs_cols4) with 1e-9 added to fx fail both dome-rule cases.
 * Cost: about 0.6 s of CPU plain, 2.5 s under ASan/UBSan (twelve
 * detections on two paper figures, the votes of one twice).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/dome_fit.h"
#include "analysis/dome_votes.h"
#include "analysis/preprocess.h"
#include "base/cpu_features.h"
#include "image/image_io.h"

#define FIG2 "tests/fixtures/paper/P1_Fig2_Polypterus_bichir_2.63um.tif"
#define FIG4 "tests/fixtures/paper/P1_Fig4_Atractosteus_simplex_7.07um.tif"

/* One detection of img by the rule (dome: 1), under fs_cpu_forbid(level). */
static void detect(const fs_image *img, int dome, int level, fs_detect_result *res)
{
	fs_params p;
	fs_params_default(&p);
	char err[256];
	fs_cpu_forbid(level);
	int rc = dome ? fs_detect_domes(img, &p, 0, res, err, sizeof err)
		      : fs_detect_outline(img, &p, 0, res, err, sizeof err);
	fs_cpu_forbid(FS_CPU_ALLOW_ALL);
	if (rc)
		fail_msg("%s", err);
}

static const char *level_name(int level)
{
	return level == FS_CPU_FORBID_AVX ? "AVX forbidden" : "AVX and SSE2 forbidden";
}

/* Same bits: the doubles compared as bytes (a NaN radius, the dome
 * rule's "no base", equals itself); the processor's loops against each
 * level of forbidden ones. */
static void same_bits(const char *path, int dome)
{
	char err[256];
	fs_loaded L;
	assert_int_equal(fs_load_file(path, NULL, &L, err, sizeof err), 0);
	fs_detect_result a;
	detect(L.image, dome, FS_CPU_ALLOW_ALL, &a);
	assert_true(a.tubercles.n >= 20);
	size_t sized = 0;
	for (size_t i = 0; i < a.tubercles.n; i++)
		sized += fs_tubercle_measured(&a.tubercles.items[i]);
	for (int level = FS_CPU_FORBID_AVX; level <= FS_CPU_FORBID_SSE2; level++) {
		fs_detect_result b;
		detect(L.image, dome, level, &b);
		assert_int_equal(a.tubercles.n, b.tubercles.n);
		for (size_t i = 0; i < a.tubercles.n; i++) {
			const fs_tubercle *s = &a.tubercles.items[i], *t = &b.tubercles.items[i];
			if (memcmp(&s->centroid_x, &t->centroid_x, sizeof s->centroid_x) ||
			    memcmp(&s->centroid_y, &t->centroid_y, sizeof s->centroid_y) ||
			    memcmp(&s->radius_px, &t->radius_px, sizeof s->radius_px) ||
			    memcmp(&s->fit_quality, &t->fit_quality, sizeof s->fit_quality))
				fail_msg("%s (%s rule): tubercle %zu differs: allowed (%.17g, %.17g) r %.17g q %.17g, "
					 "%s (%.17g, %.17g) r %.17g q %.17g",
					 path, dome ? "dome" : "outline", i, s->centroid_x, s->centroid_y,
					 s->radius_px, s->fit_quality, level_name(level), t->centroid_x,
					 t->centroid_y, t->radius_px, t->fit_quality);
		}
		fs_detect_result_free(&b);
	}
	printf("%s, %s rule: %zu tubercles (%zu sized), AVX, SSE2 and plain loops the same bits\n", path,
	       dome ? "dome" : "outline", a.tubercles.n, sized);
	fs_detect_result_free(&a);
	fs_loaded_free(&L);
}

/* The formation fit of P1 Fig2 about the dome rule's own centres with
 * the processor's loops and each level of forbidden ones, the whole
 * result compared as bytes. The detection's tubercles alone do not see
 * the mean image's cells (average_cells' AVX twin): their last bits reach
 * the fit's residuals and profiles but seldom a choice the tubercles
 * follow (checked: the cells' mean taken as a product by the reciprocal
 * of the count passes fig2_dome and fig4_dome, fails this). */
static void fig2_formation(void **state)
{
	(void)state;
	char err[256];
	fs_loaded L;
	assert_int_equal(fs_load_file(FIG2, NULL, &L, err, sizeof err), 0);
	fs_detect_result r;
	detect(L.image, 1, FS_CPU_ALLOW_ALL, &r);
	size_t n = r.tubercles.n;
	double *xs = malloc((n + 1) * sizeof *xs), *ys = malloc((n + 1) * sizeof *ys);
	assert_true(xs && ys);
	for (size_t i = 0; i < n; i++) {
		xs[i] = r.tubercles.items[i].centroid_x;
		ys[i] = r.tubercles.items[i].centroid_y;
	}
	double pitch = fs_dome_fit_pitch(xs, ys, n);
	fs_dome_fit f[3];
	for (int level = FS_CPU_ALLOW_ALL; level <= FS_CPU_FORBID_SSE2; level++) {
		memset(&f[level], 0, sizeof f[level]);
		fs_cpu_forbid(level);
		int rc = fs_dome_fit_image(L.image, xs, ys, n, pitch, NULL, &f[level], err, sizeof err);
		fs_cpu_forbid(FS_CPU_ALLOW_ALL);
		if (rc)
			fail_msg("%s", err);
	}
	assert_true(f[0].n_used >= 20);
	for (int level = FS_CPU_FORBID_AVX; level <= FS_CPU_FORBID_SSE2; level++)
		if (memcmp(&f[0], &f[level], sizeof f[0]))
			fail_msg("P1 Fig2's formation fit differs, %s: residual %.17g / %.17g, fill %.17g / %.17g",
				 level_name(level), f[0].residual, f[level].residual, f[0].fill, f[level].fill);
	printf("P1 Fig2's formation fit (%zu centres, fill %.4f): AVX, SSE2 and plain loops the same bits\n",
	       f[0].n_used, f[0].fill);
	free(xs);
	free(ys);
	fs_detect_result_free(&r);
	fs_loaded_free(&L);
}

/* The circle votes of P1 Fig2 (smoothed as the dome rule smooths an
 * image at a pitch of 24 px) with SSE2 allowed and forbidden, compared
 * float by float as bytes; and its extremes. */
static void votes_sse2_plain(void **state)
{
	(void)state;
	char err[256];
	fs_loaded L;
	assert_int_equal(fs_load_file(FIG2, NULL, &L, err, sizeof err), 0);
	fs_image *sm = fs_image_to_float(L.image);
	assert_non_null(sm);
	double pitch = 24, blur = fs_dome_votes_blur(pitch);
	assert_int_equal(fs_gaussian_blur(sm, fs_dome_smoothing(pitch, 0, 1), err, sizeof err), 0);
	int w = sm->width, h = sm->height;
	double mean = fs_dome_grad_add(sm->data + w, w, h - 2, 0) / ((double)(w - 2) * (h - 2));
	size_t n = (size_t)w * h;
	float *out[2];
	float lo[2], hi[2];
	for (int k = 0; k < 2; k++) {
		out[k] = calloc(n, sizeof *out[k]);
		assert_non_null(out[k]);
		fs_cpu_forbid(k ? FS_CPU_FORBID_SSE2 : FS_CPU_ALLOW_ALL);
		int rc = fs_dome_votes_rect(sm->data, (size_t)w, 0, 0, w, h, mean, pitch, blur, 0, 0, w, h, out[k],
					    (size_t)w, err, sizeof err);
		fs_minmax(sm, &lo[k], &hi[k]);
		fs_cpu_forbid(FS_CPU_ALLOW_ALL);
		assert_int_equal(rc, 0);
	}
	size_t voted = 0;
	for (size_t i = 0; i < n; i++) {
		if (memcmp(&out[0][i], &out[1][i], sizeof out[0][i]))
			fail_msg("votes at (%zu, %zu): SSE2 %.9g, plain %.9g", i % (size_t)w, i / (size_t)w,
				 (double)out[0][i], (double)out[1][i]);
		voted += out[0][i] > 0;
	}
	assert_true(voted > n / 4); /* the combination had something to combine */
	assert_memory_equal(&lo[0], &lo[1], sizeof lo[0]);
	assert_memory_equal(&hi[0], &hi[1], sizeof hi[0]);
	printf("P1 Fig2's votes (%zu of %zu pixels voted) and extremes: SSE2 and plain loops the same bits\n", voted,
	       n);
	free(out[0]);
	free(out[1]);
	fs_image_free(sm);
	fs_loaded_free(&L);
}

static void fig2_dome(void **state)
{
	(void)state;
	same_bits(FIG2, 1);
}

static void fig4_dome(void **state)
{
	(void)state;
	same_bits(FIG4, 1);
}

static void fig2_outline(void **state)
{
	(void)state;
	same_bits(FIG2, 0);
}

static void fig4_outline(void **state)
{
	(void)state;
	same_bits(FIG4, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fig2_dome),
		cmocka_unit_test(fig4_dome),
		cmocka_unit_test(fig2_outline),
		cmocka_unit_test(fig4_outline),
		cmocka_unit_test(votes_sse2_plain),
		cmocka_unit_test(fig2_formation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
