/* Unit tests for phase_clock.h: a phase's CPU time is its own thread's
 * work, not its wall time (a blocked phase shows none), a name met again
 * adds to its phase in the order first met, and the log line says each. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/phase_clock.h"

/* Spins on the calling thread until it has had ms of CPU. */
static void burn_cpu_ms(double ms)
{
	double end = fs_thread_cpu_ms() + ms;
	volatile double x = 0;
	while (fs_thread_cpu_ms() < end)
		for (int i = 0; i < 1000; i++)
			x += i;
}

static void a_blocked_phase_takes_wall_time_not_cpu(void **state)
{
	(void)state;
	fs_phase_clock c;
	fs_phase_clock_init(&c);
	fs_phase_begin(&c, "working");
	burn_cpu_ms(30);
	fs_phase_begin(&c, "blocked");
	poll(NULL, 0, 40); /* the thread sleeps: what a phase waiting for I/O does */
	fs_phase_end(&c);
	assert_int_equal(c.n, 2);
	assert_string_equal(c.p[0].name, "working");
	assert_true(c.p[0].cpu_ms >= 30);
	/* wall time holds the CPU time (and the waits for a core) */
	assert_true(c.p[0].wall_ms >= c.p[0].cpu_ms - 1);
	assert_string_equal(c.p[1].name, "blocked");
	assert_true(c.p[1].wall_ms >= 40);
	/* sleeping costs next to no CPU: far less than the 30 ms spent above */
	assert_true(c.p[1].cpu_ms < 10);
	if (c.p[0].runq_ms >= 0)
		assert_true(c.p[0].runq_ms <= c.p[0].wall_ms + 1);
}

static void a_name_met_again_adds_up(void **state)
{
	(void)state;
	fs_phase_clock c;
	fs_phase_clock_init(&c);
	fs_phase_begin(&c, "a");
	burn_cpu_ms(5);
	fs_phase_begin(&c, "b");
	fs_phase_begin(&c, "a");
	burn_cpu_ms(5);
	fs_phase_end(&c);
	fs_phase_end(&c); /* nothing open: no effect */
	assert_int_equal(c.n, 2);
	assert_string_equal(c.p[0].name, "a");
	assert_int_equal(c.p[0].count, 2);
	assert_true(c.p[0].cpu_ms >= 10);
	assert_int_equal(c.p[1].count, 1);
	char line[200];
	fs_phase_clock_text(&c, line, sizeof line);
	assert_non_null(strstr(line, "a "));
	assert_non_null(strstr(line, ", b "));
	char small[5];
	fs_phase_clock_text(&c, small, sizeof small);
	assert_int_equal(strlen(small), 4);
}

static void beyond_the_last_slot_time_goes_to_it(void **state)
{
	(void)state;
	static const char *names[FS_PHASES_MAX + 3];
	static char bufs[FS_PHASES_MAX + 3][8];
	fs_phase_clock c;
	fs_phase_clock_init(&c);
	for (int k = 0; k < FS_PHASES_MAX + 3; k++) {
		snprintf(bufs[k], sizeof bufs[k], "p%d", k);
		names[k] = bufs[k];
		fs_phase_begin(&c, names[k]);
	}
	fs_phase_end(&c);
	assert_int_equal(c.n, FS_PHASES_MAX);
	assert_int_equal(c.p[FS_PHASES_MAX - 1].count, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_blocked_phase_takes_wall_time_not_cpu),
		cmocka_unit_test(a_name_met_again_adds_up),
		cmocka_unit_test(beyond_the_last_slot_time_goes_to_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
