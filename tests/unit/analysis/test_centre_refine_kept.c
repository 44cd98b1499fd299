/*
 * The refinement with its grid stage kept (centre_refine.h,
 * fs_centre_refine_kept), against the refinement itself on simulated SEM
 * domes.
 *
 * Why: the dome rule refines each of its first 48 candidates twice (once
 * to choose the ray smoothing, once to measure) and takes the second
 * refinement's grid stage from the first when it is the same search. That
 * may save time but must not change a centre: kept or not, reused or
 * not, the refined centre is bit for bit fs_centre_refine's; and a kept
 * grid from another start, another image or another derivative span is
 * not taken. The compass stage too is kept and taken when the derivative
 * span is the same (the image measured without smoothing: h23g), and not
 * when it is another.
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
#include "sem_scene.h"

/* Side-lit domes at pitch 48 (the refinement's grid of 2 px over a
 * search disc of 0.15 pitch), starts 3 px off the true centres. */
static void open_scene(sem_scene *s)
{
	sem_opts o;
	sem_defaults(&o);
	o.width = 320;
	o.height = 288;
	o.pitch = 48;
	o.fill = 0.6;
	o.h_over_r = 0.5;
	o.seed = 7;
	assert_int_equal(sem_scene_open(s, &o), 0);
	assert_true(s->tr.n > 20);
}

/* The dome rule's arguments for a start near true dome j. */
typedef struct start {
	double x, y, r0, r1, shift;
} start;

static start start_at(const sem_scene *s, size_t j)
{
	double mr = 0.6 * s->tr.pitch;
	return (start){.x = s->tr.x[j] + 3, .y = s->tr.y[j] - 2, .r0 = FS_DOME_R0 * mr, .r1 = FS_DOME_R1 * mr,
		       .shift = 0.15 * s->tr.pitch};
}

/* fs_centre_refine_kept from start a in img with this smoothing (kept
 * updated), its centre into (*kx, *ky), asserted bit for bit
 * fs_centre_refine's. Returns kept as it was before. */
static fs_refine_grid refine_both(const fs_image *img, start a, double smooth, fs_refine_grid *kept, double *kx,
				  double *ky)
{
	double px, py;
	assert_int_equal(fs_centre_refine(img, a.x, a.y, a.r0, a.r1, a.shift, smooth, &px, &py), 0);
	fs_refine_grid before = *kept;
	assert_int_equal(fs_centre_refine_kept(img, a.x, a.y, a.r0, a.r1, a.shift, smooth, kept, kx, ky), 0);
	assert_true(test_same_bits(px, *kx));
	assert_true(test_same_bits(py, *ky));
	return before;
}

static void kept_gives_the_same_centres(void **state)
{
	(void)state;
	sem_scene s;
	open_scene(&s);
	/* smoothings whose grid span is the first's (0, 1.2 px: span 1 at a
	 * 1 px grid step) and one whose is not (2.2 px: span 2) */
	static const double smooth[3] = {0, 1.2, 2.2};
	size_t reused = 0, n = 0;
	for (size_t j = 0; j < s.tr.n; j++) {
		start a = start_at(&s, j);
		if (a.x < a.r1 + 20 || a.y < a.r1 + 20 || a.x > s.img->width - a.r1 - 20 ||
		    a.y > s.img->height - a.r1 - 20)
			continue;
		fs_refine_grid kept = {0};
		for (int k = 0; k < 3; k++) {
			double kx, ky;
			fs_refine_grid before = refine_both(s.img, a, smooth[k], &kept, &kx, &ky);
			assert_true(kept.valid);
			if (before.valid && before.gspan == kept.gspan)
				reused++;
		}
		n++;
	}
	/* the case the saving is for happened, on every start */
	assert_true(n >= 8);
	assert_int_equal(reused, n);
	sem_scene_close(&s);
}

/* The whole refinement is taken again for the same span, and a kept
 * compass stage of another span is not: smoothings 0, 0, 1.2, 1.2, 0 (the
 * compass spans 1, 1, 2, 2, 1 at its 0.5 px step), each centre bit for bit
 * fs_centre_refine's. */
static void compass_kept_for_the_same_span_only(void **state)
{
	(void)state;
	sem_scene s;
	open_scene(&s);
	static const double smooth[5] = {0, 0, 1.2, 1.2, 0};
	size_t taken = 0, n = 0, moved = 0;
	for (size_t j = 0; j < s.tr.n; j++) {
		start a = start_at(&s, j);
		fs_refine_grid kept = {0};
		double first_x = 0, first_y = 0;
		for (int k = 0; k < 5; k++) {
			double kx, ky;
			fs_refine_grid before = refine_both(s.img, a, smooth[k], &kept, &kx, &ky);
			assert_true(kept.done);
			taken += before.done && before.span == kept.span;
			if (k == 0) {
				first_x = kx;
				first_y = ky;
			}
			/* another span's compass really ends elsewhere somewhere
			 * (else taking the wrong one could pass unseen) */
			if (k == 2)
				moved += !test_same_bits(kx, first_x) || !test_same_bits(ky, first_y);
		}
		n++;
	}
	/* taken at the second and fourth smoothing of every start, never
	 * across spans (the fifth follows the 1.2s) */
	assert_true(n > 20);
	assert_int_equal(taken, 2 * n);
	assert_true(moved > 0);
	sem_scene_close(&s);
}

/* A kept grid stage of another start, or of another image, is not taken:
 * the centre is the one refined from this start in this image. */
static void another_start_or_image_is_not_taken(void **state)
{
	(void)state;
	sem_scene s;
	open_scene(&s);
	fs_image *copy = fs_image_clone(s.img);
	assert_non_null(copy);
	/* the copy's domes moved 2 px to the right: another image, where
	 * the same start refines elsewhere */
	for (int y = 0; y < copy->height; y++)
		for (int x = copy->width - 1; x >= 2; x--)
			copy->data[(size_t)y * copy->width + x] = copy->data[(size_t)y * copy->width + x - 2];
	size_t differ = 0, n = 0;
	for (size_t j = 0; j + 1 < s.tr.n; j++) {
		start a = start_at(&s, j), b = start_at(&s, j + 1);
		double kx, ky, qx, qy;
		fs_refine_grid kept = {0};
		assert_int_equal(fs_centre_refine_kept(s.img, a.x, a.y, a.r0, a.r1, a.shift, 0, &kept, &kx, &ky), 0);
		/* another start */
		(void)refine_both(s.img, b, 0, &kept, &kx, &ky);
		assert_true(kept.x == b.x && kept.y == b.y);
		/* another image, same start */
		(void)refine_both(copy, b, 0, &kept, &qx, &qy);
		differ += !test_same_bits(qx, kx) || !test_same_bits(qy, ky);
		n++;
	}
	/* the other image really refined elsewhere somewhere (else the check
	 * above could not fail) */
	assert_true(differ > 0);
	assert_true(n > 20);
	fs_image_free(copy);
	sem_scene_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kept_gives_the_same_centres),
		cmocka_unit_test(compass_kept_for_the_same_span_only),
		cmocka_unit_test(another_start_or_image_is_not_taken),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
