/*
 * job_control.h - the web side of background jobs (lib/store/jobs.h): the
 * limits the configuration sets, the memory a job is expected to need, and
 * starting admitted jobs as detached fishscale-job processes. The FastCGI
 * workers call it when a job is submitted or listed, and every job worker
 * when it ends, so queued work moves on without a daemon.
 */
#ifndef FS_JOB_CONTROL_H
#define FS_JOB_CONTROL_H

#include "analysis/measurement.h"
#include "analysis/params.h"
#include "app/http.h"
#include "store/images_store.h"
#include "store/jobs.h"

/* jobs_max_running / jobs_memory_mb with their automatic defaults. */
void fs_job_limits_from_config(const fs_config *cfg, fs_job_limits *lim);

/* Bytes a job of another kind over an image of that many pixels is
 * expected to take at its peak when nothing better is known (the old
 * whole-image figure of a float image and its buffers, 26 bytes a pixel). */
long long fs_job_memory_estimate(long long pixels);

/* An import's peak (app/image_import.h): the original of file_bytes being
 * decoded into an image of sample_bytes a sample (1 or 2 compact, 4 float:
 * fs_loaded.compact_bits of the probe), then the image beside its deflated
 * working file and the pyramid's half-size level; measured peaks in
 * job_control.c, FS_JOB_MEMORY_MARGIN_PCT added. */
long long fs_job_import_memory_estimate(long long pixels, int sample_bytes, long long file_bytes);
/* A transform's or an undo's peak (store/image_steps.h): the working image
 * in its file's precision (sample_bytes, fs_work_file_info), the new image,
 * and the derived files written from it. */
long long fs_job_transform_memory_estimate(long long pixels, int sample_bytes);

/* Bytes one sample of an image's working image takes in memory: 1 for an
 * 8-bit grey image, 2 for 16-bit grey, 4 (floats) for anything else (a
 * colour original becomes a float grey image). */
int fs_job_sample_bytes(int bit_depth, int channels);

/* Bytes an extraction with method and measurement rule is expected to take
 * at its peak on an image of that many pixels held in sample_bytes a
 * sample: the measured peak (see job_control.c) with
 * FS_JOB_MEMORY_MARGIN_PCT added. */
#define FS_JOB_MEMORY_MARGIN_PCT 25
long long fs_job_extract_memory_estimate(long long pixels, int sample_bytes, fs_method method,
					 fs_measurement_rule rule);

/* The same for an image as stored, with the rule this process measures
 * with (the server's measurement_rule) and the threads a job computes in
 * (fs_job_threads: each thread past the first holds its own tile's layers,
 * FS_JOB_THREAD_EXTRA_BYTES): what admission control checks. */
long long fs_job_extract_memory_estimate_for(const fs_image_rec *im, fs_method method);

/*
 * Threads an extraction job computes its tiles in (issue 15): the cores
 * shared out among the heavy jobs that may run at once (jobs_max_running
 * and its default, cores - 1), at least 1, at most FS_JOB_MAX_THREADS.
 * One thread left a 2-core site's second core idle while the user waited
 * for the result (the default admits one job there). The threads compute
 * at low priority (job_priority.h: threads inherit the nice value and
 * SCHED_BATCH of the thread that makes them), so a web worker that wakes
 * still takes a core first. fs_job_set_threads_from_config: process-wide,
 * called by fs_app_config, so the workers' admission estimates and the job
 * process agree.
 */
#define FS_JOB_MAX_THREADS 4
/* Peak bytes each computing thread past the first adds (its tile's
 * layers). Measured, peak RSS of `fishscale measure --threads 1` and
 * `--threads 2` on the 100 MP bench image (8-bit, calibrated 0.4 um/px,
 * 2026-11-29): auto 201 -> 242 MB, log 241 -> 329, dog 242 -> 307; the
 * most, log's 88 MB, rounded up. */
#define FS_JOB_THREAD_EXTRA_BYTES (96LL * 1000 * 1000)
void fs_job_set_threads_from_config(const fs_config *cfg);
int fs_job_threads(void);

/* Bytes a Re-measure job (main_job.c) of n_tubercles on a width x height
 * image in sample_bytes a sample is expected to take at its peak: the
 * compact working image and the float measurement image while it
 * measures (whole, or a band of rows on a large image, measurement.h; the
 * top-hat's buffers when the parameters have one), or the set's rows, the
 * step's diff and journal while it stores, whichever is more (measured in
 * job_control.c), with FS_JOB_MEMORY_MARGIN_PCT added. The rule does not
 * change the images it holds. */
long long fs_job_remeasure_memory_estimate(long long width, long long height, int sample_bytes,
					   long long n_tubercles, int tophat);
long long fs_job_remeasure_memory_estimate_for(const fs_image_rec *im, long long n_tubercles, int tophat);

/* Bytes an agent run on the image is expected to take at its peak, 0 when
 * the image is small enough to extract synchronously (sync_max_pixels:
 * not counted, as small extractions are not). The session holds the
 * compact working image and runs extractions in its own process (the
 * optimiser; the editor on an empty set): an auto extraction's estimate
 * under the server's rule, plus the evidence's blurred tiles (a row of
 * them, blur_tiles.h) and the sets it keeps. */
long long fs_job_agent_memory_estimate_for(const fs_config *cfg, const fs_image_rec *im);

/* Starts the worker of an admitted (starting) job: 0, or -1 with err (the
 * job is then failed with that message). */
int fs_job_launch(fs_app *app, const fs_job_rec *job, char *err, size_t errlen);

/* Fails jobs whose worker died, then admits and launches queued jobs while
 * the limits allow. Returns the number started (errors are recorded on the
 * jobs themselves). */
int fs_job_schedule(fs_app *app);

#endif
