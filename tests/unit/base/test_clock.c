/* Unit tests for clock.h: waits said in words (fs_wait_words). */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(waits_are_said_in_seconds_then_minutes),
		cmocka_unit_test(clocks_move_forward),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
