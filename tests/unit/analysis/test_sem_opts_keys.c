/*
 * A simulated scene's options from a KEY=VALUE list (sem_opts_keys.h's
 * sem_opts_set_keys, h41a): test_sem_accuracy's SEM_SET (e.g.
 * "beam_continuous=1") sets them on every scene after its seed, and its
 * tables are read as "the same scenes under another simulator" - so a
 * list must set every item it names, in order, leave the other options
 * alone, and refuse a key it does not know rather than run the default
 * scenes under a mistyped name.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "sem_opts_keys.h"
#include "sem_sim.h"

static void list_sets_each_item_in_order(void **state)
{
	(void)state;
	sem_opts o, ref;
	sem_defaults(&o);
	sem_defaults(&ref);
	/* commas, blanks and a newline as separators; the later blur wins */
	assert_int_equal(sem_opts_set_keys(&o, "beam_continuous=1, blur=1.5\tfill=0.6,\nblur=0.9"), 0);
	assert_int_equal(o.beam_continuous, 1);
	assert_true(fabs(o.beam_blur - 0.9) < 1e-12);
	assert_true(fabs(o.fill - 0.6) < 1e-12);
	/* nothing else moved */
	o.beam_continuous = ref.beam_continuous;
	o.beam_blur = ref.beam_blur;
	o.fill = ref.fill;
	assert_int_equal(memcmp(&o, &ref, sizeof o), 0);
}

/* the pixel grid's phase under the domes (h47a's bench_level_beam) */
static void shift_keys_move_the_domes(void **state)
{
	(void)state;
	sem_opts o, ref;
	sem_defaults(&o);
	sem_defaults(&ref);
	assert_int_equal(sem_opts_set_keys(&o, "shiftx=0.25,shifty=-0.5"), 0);
	assert_true(fabs(o.shift_x - 0.25) < 1e-12);
	assert_true(fabs(o.shift_y + 0.5) < 1e-12);
	o.shift_x = ref.shift_x;
	o.shift_y = ref.shift_y;
	assert_int_equal(memcmp(&o, &ref, sizeof o), 0);
}

static void empty_list_changes_nothing(void **state)
{
	(void)state;
	sem_opts o, ref;
	sem_defaults(&o);
	sem_defaults(&ref);
	assert_int_equal(sem_opts_set_keys(&o, NULL), 0);
	assert_int_equal(sem_opts_set_keys(&o, ""), 0);
	assert_int_equal(sem_opts_set_keys(&o, " ,, "), 0);
	assert_int_equal(memcmp(&o, &ref, sizeof o), 0);
}

static void unknown_key_is_refused(void **state)
{
	(void)state;
	sem_opts o;
	sem_defaults(&o);
	assert_int_equal(sem_opts_set_keys(&o, "beam_continous=1"), -1); /* misspelt */
	assert_int_equal(o.beam_continuous, 0);
	assert_int_equal(sem_opts_set_keys(&o, "beam_continuous"), -1); /* no value */
	/* the items before the bad one are set (the header says so) */
	assert_int_equal(sem_opts_set_keys(&o, "fill=0.5,bogus=2,pitch=40"), -1);
	assert_true(fabs(o.fill - 0.5) < 1e-12);
	sem_opts d;
	sem_defaults(&d);
	assert_true(o.pitch == d.pitch);
}

/* The benches' --set list (sem_opts_args): a bad key and a full list are
 * refused when given (the bench stops before any scene; a 17th --set was
 * read as scene 0 by the copies this replaced), and the items are
 * applied in the order given. */
static void bench_args_checked_and_applied_in_order(void **state)
{
	(void)state;
	sem_opts_args a = {0};
	assert_int_equal(sem_opts_args_add(&a, "beam_continous=1"), -1);
	assert_int_equal(sem_opts_args_add(&a, "blur"), -1);
	assert_int_equal(a.n, 0);
	assert_int_equal(sem_opts_args_add(&a, "blur=1.5"), 0);
	assert_int_equal(sem_opts_args_add(&a, "fill=0.6"), 0);
	assert_int_equal(sem_opts_args_add(&a, "blur=0.9"), 0);
	sem_opts o, ref;
	sem_defaults(&o);
	sem_defaults(&ref);
	sem_opts_args_apply(&a, &o);
	assert_true(fabs(o.beam_blur - 0.9) < 1e-12);
	assert_true(fabs(o.fill - 0.6) < 1e-12);
	o.beam_blur = ref.beam_blur;
	o.fill = ref.fill;
	assert_int_equal(memcmp(&o, &ref, sizeof o), 0);
	while (a.n < SEM_OPTS_ARGS_MAX)
		assert_int_equal(sem_opts_args_add(&a, "seed=3"), 0);
	assert_int_equal(sem_opts_args_add(&a, "seed=4"), -1);
	assert_int_equal(a.n, SEM_OPTS_ARGS_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(list_sets_each_item_in_order),
		cmocka_unit_test(empty_list_changes_nothing),
		cmocka_unit_test(unknown_key_is_refused),
		cmocka_unit_test(shift_keys_move_the_domes),
		cmocka_unit_test(bench_args_checked_and_applied_in_order),
	};
	return cmocka_run_group_tests_name("sem_opts_keys lists", tests, NULL, NULL);
}
