/*
 * job_control.h - the web side of background jobs (lib/store/jobs.h): the
 * limits the configuration sets, the memory a job is expected to need, and
 * starting admitted jobs as detached fishscale-job processes. The FastCGI
 * workers call it when a job is submitted or listed, and every job worker
 * when it ends, so queued work moves on without a daemon.
 */
#ifndef FS_JOB_CONTROL_H
#define FS_JOB_CONTROL_H

#include "analysis/params.h"
#include "app/http.h"
#include "store/jobs.h"

/* jobs_max_running / jobs_memory_mb with their automatic defaults. */
void fs_job_limits_from_config(const fs_config *cfg, fs_job_limits *lim);

/* Bytes a job over an image of that many pixels is expected to take at its
 * peak (working image and the detection's buffers of auto, lattice and
 * ellipse; imports and transforms take less). */
long long fs_job_memory_estimate(long long pixels);

/* The same for an extraction with method: log and dog keep a stack of
 * full-resolution scale layers and take about twice as much on an image
 * they detect whole (at most four default tiles); tile by tile they take
 * no more than auto. */
long long fs_job_extract_memory_estimate(long long pixels, fs_method method);

/* Starts the worker of an admitted (starting) job: 0, or -1 with err (the
 * job is then failed with that message). */
int fs_job_launch(fs_app *app, const fs_job_rec *job, char *err, size_t errlen);

/* Fails jobs whose worker died, then admits and launches queued jobs while
 * the limits allow. Returns the number started (errors are recorded on the
 * jobs themselves). */
int fs_job_schedule(fs_app *app);

#endif
