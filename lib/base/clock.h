/*
 * clock.h - the two clocks the code reads: wall time for what is stored or
 * shown (timestamps in the database, status files, log lines), and a
 * monotonic clock for durations and timeouts, which wall-clock steps must
 * not disturb.
 */
#ifndef FS_CLOCK_H
#define FS_CLOCK_H

#include <stddef.h>

/* Seconds since the Unix epoch, with microseconds. */
double fs_wall_s(void);
/* Seconds of a monotonic clock (arbitrary origin), with nanoseconds. */
double fs_mono_s(void);

/* A wait as people say it, into out (n bytes): "45 seconds", "1 minute",
 * "15 minutes" (rounded up to whole minutes from two minutes on), so a
 * message never asks anyone to wait "900 seconds". Returns out. */
char *fs_wait_words(int seconds, char *out, size_t n);

#endif
