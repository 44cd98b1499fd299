/* clock.c - wall and monotonic time (see clock.h). */
#include "base/clock.h"

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
