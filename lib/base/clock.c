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
