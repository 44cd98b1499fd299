/*
 * fs_detect_set_cand_nudge (detect_methods.h, h47i): the instrument that
 * moves the dome rule's candidates by a rounding, to measure the guards'
 * noise floor. What it must do to be that instrument: 0 (the default)
 * leaves every candidate as it was to the bit, a nudge moves each one by
 * exactly the nudge in x and y and changes nothing else (the same
 * candidates, their order and prominences), and it reports the value it
 * replaces so a caller can put it back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "analysis/detect_methods.h"
#include "dome_candidates.h"
#include "sem_cache.h"
#include "sem_sim.h"

/* Corner scene 21's candidates (tall spheres, fill 0.8, pitch 16). */
static void candidates(const fs_image *img, double pitch, fs_cand_list *c)
{
	fs_params p;
	fs_params_default(&p);
	char err[256];
	memset(c, 0, sizeof *c);
	assert_int_equal(dome_candidates(img, &p, pitch, 0, c, NULL, err, sizeof err), 0);
	assert_true(c->n > 100);
}

static void nudge_moves_every_candidate_by_itself(void **state)
{
	(void)state;
	sem_opts o;
	sem_truth t;
	sem_corner_scene(21, &o);
	fs_image *img = sem_make_shared(&o, &t);
	assert_non_null(img);
	fs_cand_list a, b, z;
	assert_true(fs_detect_set_cand_nudge(0.125) == 0);
	candidates(img, t.pitch, &b);
	assert_true(fs_detect_set_cand_nudge(0) == 0.125);
	candidates(img, t.pitch, &a);
	assert_int_equal(a.n, b.n);
	for (size_t i = 0; i < a.n; i++) {
		/* exact: 0.125 is a power of two far above the ulp of x */
		assert_true(b.items[i].x == a.items[i].x + 0.125);
		assert_true(b.items[i].y == a.items[i].y + 0.125);
		assert_memory_equal(&b.items[i].response, &a.items[i].response, sizeof a.items[i].response);
		assert_memory_equal(&b.items[i].r, &a.items[i].r, sizeof a.items[i].r);
	}
	/* back at 0: the first candidates again, to the bit */
	candidates(img, t.pitch, &z);
	assert_int_equal(z.n, a.n);
	assert_memory_equal(z.items, a.items, a.n * sizeof *a.items);
	fs_cand_free(&a);
	fs_cand_free(&b);
	fs_cand_free(&z);
	sem_truth_free(&t);
	fs_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nudge_moves_every_candidate_by_itself),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
