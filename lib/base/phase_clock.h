/*
 * phase_clock.h - where a piece of work's time goes, phase by phase: for
 * each phase its wall time, the time the thread that ran it spent on a
 * core, and the time it was runnable but waited for one (the kernel's
 * schedstat); the rest of its wall time the thread was blocked (I/O, a
 * lock, a sleep). On a loaded machine the wall time holds everyone else's
 * work too: on a core + blocked is what the phase takes on a quiet one.
 * A background job records its phases (cgi/main_job.c: the job's log and
 * its result's "phases"), the store adds its own through the connection
 * (fs_db_phase in store/db.h).
 *
 * A phase runs in one thread: fs_phase_begin closes the open phase, which
 * the calling thread must have opened, and opens the next; fs_phase_end
 * closes it. One thread at a time uses a clock (a job's computing thread,
 * then its main thread once it has joined it). A name met again adds to
 * its phase. Ownership: the caller owns the clock (no heap); names are
 * static strings, kept by pointer.
 */
#ifndef FS_PHASE_CLOCK_H
#define FS_PHASE_CLOCK_H

#include <stddef.h>

#define FS_PHASES_MAX 24

typedef struct {
	const char *name;
	double wall_ms, cpu_ms;
	double runq_ms; /* -1 where the kernel does not say */
	int count;      /* how many times it was entered */
} fs_phase;

typedef struct {
	fs_phase p[FS_PHASES_MAX];
	int n;
	int open; /* index of the open phase, -1 none */
	double wall0, cpu0, runq0;
} fs_phase_clock;

void fs_phase_clock_init(fs_phase_clock *c);
/* Closes the open phase (if any) and opens name's; beyond FS_PHASES_MAX
 * distinct names the time goes to the last one. */
void fs_phase_begin(fs_phase_clock *c, const char *name);
void fs_phase_end(fs_phase_clock *c);
/* The calling thread's time on a core, and runnable waiting for one (ms;
 * -1 where the kernel does not say). */
double fs_thread_cpu_ms(void);
double fs_thread_runq_ms(void);
/* One line: "name wall/cpu/runq ms, ..." (runq left out where unknown)
 * into out (n bytes, cut and NUL-terminated). */
void fs_phase_clock_text(const fs_phase_clock *c, char *out, size_t n);

#endif
