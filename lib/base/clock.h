/*
 * clock.h - the two clocks the code reads: wall time for what is stored or
 * shown (timestamps in the database, status files, log lines), and a
 * monotonic clock for durations and timeouts, which wall-clock steps must
 * not disturb.
 */
#ifndef FS_CLOCK_H
#define FS_CLOCK_H

/* Seconds since the Unix epoch, with microseconds. */
double fs_wall_s(void);
/* Seconds of a monotonic clock (arbitrary origin), with nanoseconds. */
double fs_mono_s(void);

#endif
