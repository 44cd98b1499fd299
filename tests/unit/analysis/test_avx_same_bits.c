/*
 * The AVX loops give the plain loops' bits (cpu_features.h): both rules
 * measured with AVX allowed and forbidden (fs_cpu_forbid_avx) must give
 * the same tubercles to the last bit - centres, radii, fit qualities.
 *
 * Why: the dome rule's hot loops (the template fit's patch read and dot
 * products, the base readings' ray steps, the circle votes, the
 * refinement, the blurs and the disk filter) each have an AVX twin taken
 * where the processor has it, written to sum in the plain loop's order.
 * The build machine and CI have AVX, so no other test runs the plain
 * loops, and a twin that drifted (an order of sums, a -0 clamp) would
 * change results on an older processor only. Stop 43's cuts (h43f) added
 * four such twins.
 * The figures: P1 Fig2 (unscreened, the last step's formation fit and
 * template fit) and P1 Fig4 (printed: the low-pass and the screened
 * level); both rules on each. Checked to fail: 1e-9 added to the first
 * point of the template fit's AVX patch read (obs_rows4) fails both
 * dome-rule cases at their first tubercle.
 * Cost: about 0.4 s of CPU plain (eight detections on two paper figures).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "analysis/detect.h"
#include "base/cpu_features.h"
#include "image/image_io.h"

#define FIG2 "tests/fixtures/paper/P1_Fig2_Polypterus_bichir_2.63um.tif"
#define FIG4 "tests/fixtures/paper/P1_Fig4_Atractosteus_simplex_7.07um.tif"

/* One detection of img by the rule (dome: 1), AVX forbidden or not. */
static void detect(const fs_image *img, int dome, int forbid, fs_detect_result *res)
{
	fs_params p;
	fs_params_default(&p);
	char err[256];
	fs_cpu_forbid_avx(forbid);
	int rc = dome ? fs_detect_domes(img, &p, 0, res, err, sizeof err)
		      : fs_detect_outline(img, &p, 0, res, err, sizeof err);
	fs_cpu_forbid_avx(0);
	if (rc)
		fail_msg("%s", err);
}

/* Same bits: the doubles compared as bytes (a NaN radius, the dome
 * rule's "no base", equals itself). */
static void same_bits(const char *path, int dome)
{
	char err[256];
	fs_loaded L;
	assert_int_equal(fs_load_file(path, NULL, &L, err, sizeof err), 0);
	fs_detect_result a, b;
	detect(L.image, dome, 0, &a);
	detect(L.image, dome, 1, &b);
	assert_int_equal(a.tubercles.n, b.tubercles.n);
	assert_true(a.tubercles.n >= 20);
	size_t sized = 0;
	for (size_t i = 0; i < a.tubercles.n; i++) {
		const fs_tubercle *s = &a.tubercles.items[i], *t = &b.tubercles.items[i];
		if (memcmp(&s->centroid_x, &t->centroid_x, sizeof s->centroid_x) ||
		    memcmp(&s->centroid_y, &t->centroid_y, sizeof s->centroid_y) ||
		    memcmp(&s->radius_px, &t->radius_px, sizeof s->radius_px) ||
		    memcmp(&s->fit_quality, &t->fit_quality, sizeof s->fit_quality))
			fail_msg("%s (%s rule): tubercle %zu differs: AVX (%.17g, %.17g) r %.17g q %.17g, plain (%.17g, "
				 "%.17g) r %.17g q %.17g",
				 path, dome ? "dome" : "outline", i, s->centroid_x, s->centroid_y, s->radius_px,
				 s->fit_quality, t->centroid_x, t->centroid_y, t->radius_px, t->fit_quality);
		sized += fs_tubercle_measured(s);
	}
	printf("%s, %s rule: %zu tubercles (%zu sized), AVX and plain loops the same bits\n", path,
	       dome ? "dome" : "outline", a.tubercles.n, sized);
	fs_detect_result_free(&a);
	fs_detect_result_free(&b);
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
