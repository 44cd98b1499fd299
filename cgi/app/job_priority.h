/*
 * job_priority.h - a background job's heavy computing at low priority, its
 * result written at the web workers' priority.
 *
 * A job (main_job.c) computes for seconds on one core while the FastCGI
 * workers answer the site. Computing at a lower priority keeps the
 * workers' requests first. But the job's last step, writing its result,
 * holds SQLite's one write lock, for which every other user's edit waits:
 * at low priority beside other computing jobs it got half a core and held
 * the lock twice as long (priority inversion). An unprivileged process
 * cannot raise its priority again once lowered, and Linux keeps the nice
 * value, the scheduling policy and the I/O priority per thread: so the
 * computing runs in a thread of its own that lowers only itself, and the
 * process's main thread, at the priority the job was started with (the
 * worker's), writes the result.
 */
#ifndef FS_JOB_PRIORITY_H
#define FS_JOB_PRIORITY_H

#include <stddef.h>

#include "store/db.h"

/* The computing thread's nice value (the workers run at 0). */
#define FS_JOB_COMPUTE_NICE 10

/* Lowers the calling thread: nice FS_JOB_COMPUTE_NICE, SCHED_BATCH (a
 * CPU-bound thread: no preempting a woken worker), the lowest best-effort
 * I/O priority (its reads of the working image). What could not be set is
 * left as it was (a refusal costs only priority): returns how many of the
 * three were set. */
int fs_job_lower_this_thread(void);

/* Runs fn(arg) in a new thread that first lowers itself as above, waits
 * for it and returns fn's value. The thread's stack is the process's
 * default. When no thread can be made, fn runs in the calling thread at its
 * own priority (nothing is lost but the priority). */
int fs_job_run_low(int (*fn)(void *arg), void *arg);

/*
 * Makes db (the job's connection; the caller keeps owning it) wait for
 * SQLite's write lock in steps of FS_JOB_LOCK_POLL_MS (with jitter) instead
 * of the workers' 0.2-1 ms (store/db.c): when a lock is released, an edit
 * that waits for it takes it before a job that waits too, so an edit waits
 * for at most one job's write, not for several queued back to back. Gives
 * up (SQLITE_BUSY, which the job retries) after timeout_ms.
 */
#define FS_JOB_LOCK_POLL_MS 10
void fs_job_yield_writes(fs_db *db, int timeout_ms);

/* The calling thread's nice value, policy name ("other", "batch", "idle",
 * ...) for a log line, into buf (at least 32 bytes). */
void fs_job_priority_describe(char *buf, size_t len);

#endif
