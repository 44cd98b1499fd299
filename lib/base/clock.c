/* clock.c - wall and monotonic time (see clock.h). */
#include "base/clock.h"

#include <stdio.h>
#include <sys/time.h>
#include <time.h>

double fs_wall_s(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

double fs_mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

long fs_clock_now_ms(const fs_clock *c)
{
	if (c && c->now_ms)
		return c->now_ms(c->user);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

void fs_clock_sleep_ms(const fs_clock *c, long ms)
{
	if (c && c->sleep_ms) {
		c->sleep_ms(c->user, ms);
		return;
	}
	if (ms <= 0)
		return;
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

char *fs_wait_words(int seconds, char *out, size_t n)
{
	if (!out || !n)
		return out;
	if (seconds < 1)
		seconds = 1;
	if (seconds < 120) {
		snprintf(out, n, "%d second%s", seconds, seconds == 1 ? "" : "s");
	} else {
		int m = (seconds + 59) / 60;
		snprintf(out, n, "%d minutes", m);
	}
	return out;
}
