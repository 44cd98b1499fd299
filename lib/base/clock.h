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

/*
 * A monotonic clock in milliseconds and a sleep that a caller may replace.
 * Why: code that computes waits and budgets from the time spent (the LLM
 * calls' retries, agent/llm_http.c) is tested on a fake clock whose sleeps
 * only advance its own time, so a test asserts the waits asked for and
 * slept exactly, whatever the machine's load (wall-clock bounds failed
 * under a load of 36, docs/paper-figures.md h36a). NULL, or a NULL member,
 * is the real one: CLOCK_MONOTONIC and nanosleep. The caller owns the
 * clock and its user; nothing is kept.
 */
typedef struct fs_clock {
	long (*now_ms)(void *user);
	void (*sleep_ms)(void *user, long ms);
	void *user;
} fs_clock;

long fs_clock_now_ms(const fs_clock *c);
/* Sleeps ms milliseconds (nothing when ms <= 0); a signal may end it early. */
void fs_clock_sleep_ms(const fs_clock *c, long ms);

/* A wait as people say it, into out (n bytes): "45 seconds", "1 minute",
 * "15 minutes" (rounded up to whole minutes from two minutes on), so a
 * message never asks anyone to wait "900 seconds". Returns out. */
char *fs_wait_words(int seconds, char *out, size_t n);

#endif
