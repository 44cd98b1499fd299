/* Unit tests for clock.h: waits said in words (fs_wait_words), the
 * replaceable clock (fs_clock). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "base/clock.h"

static void waits_are_said_in_seconds_then_minutes(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(fs_wait_words(1, b, sizeof b), "1 second");
	assert_string_equal(fs_wait_words(0, b, sizeof b), "1 second");
	assert_string_equal(fs_wait_words(45, b, sizeof b), "45 seconds");
	assert_string_equal(fs_wait_words(119, b, sizeof b), "119 seconds");
	assert_string_equal(fs_wait_words(120, b, sizeof b), "2 minutes");
	assert_string_equal(fs_wait_words(121, b, sizeof b), "3 minutes");
	assert_string_equal(fs_wait_words(900, b, sizeof b), "15 minutes");
	char small[4];
	fs_wait_words(900, small, sizeof small);
	assert_int_equal(strlen(small), 3);
}

static void clocks_move_forward(void **state)
{
	(void)state;
	double a = fs_mono_s(), b = fs_mono_s();
	assert_true(b >= a);
	assert_true(fs_wall_s() > 1.6e9);
}

/* A clock whose time moves only when slept, counting its reads. */
typedef struct fake {
	long now;
	int reads;
} fake;

static long fake_now(void *user)
{
	fake *f = user;
	f->reads++;
	return f->now;
}

static void fake_sleep(void *user, long ms)
{
	((fake *)user)->now += ms;
}

static void a_given_clock_is_read_and_slept_instead_of_the_real_one(void **state)
{
	(void)state;
	fake f = {.now = 123};
	fs_clock c = {fake_now, fake_sleep, &f};
	assert_int_equal(fs_clock_now_ms(&c), 123);
	fs_clock_sleep_ms(&c, 5000); /* at once: nothing real is slept */
	assert_int_equal(fs_clock_now_ms(&c), 5123);
	assert_int_equal(f.reads, 2);
	/* the real one (NULL) sleeps at least what it is asked (a lower
	 * bound: a loaded machine only makes it longer) */
	long a = fs_clock_now_ms(NULL);
	fs_clock_sleep_ms(NULL, 20);
	assert_true(fs_clock_now_ms(NULL) - a >= 20);
	fs_clock none = {0};
	assert_true(fs_clock_now_ms(&none) >= a + 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(waits_are_said_in_seconds_then_minutes),
		cmocka_unit_test(clocks_move_forward),
		cmocka_unit_test(a_given_clock_is_read_and_slept_instead_of_the_real_one),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
