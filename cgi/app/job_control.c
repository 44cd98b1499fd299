/* job_control.c - limits, estimates and launching of background jobs (see job_control.h). */
#include "app/job_control.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/app.h"
#include "app/worker_spawn.h"
#include "analysis/detect.h"

/* Peak bytes per pixel of an extraction today: the float working image and
 * the detection's float buffers (measured: 25 bytes a pixel for 100 MP). */
#define EXTRACT_BYTES_PER_PIXEL 26
#define EXTRACT_BASE_BYTES (64LL << 20)

void fs_job_limits_from_config(const fs_config *cfg, fs_job_limits *lim)
{
	lim->max_running = cfg->jobs_max_running;
	if (lim->max_running <= 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		/* leave the site a core */
		lim->max_running = n > 1 ? (int)(n - 1) : 1;
	}
	if (cfg->jobs_memory_mb > 0) {
		lim->mem_budget = (long long)cfg->jobs_memory_mb << 20;
	} else {
		long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
		lim->mem_budget = pages > 0 && size > 0 ? (long long)pages * size / 2 : 4LL << 30;
	}
}

long long fs_job_memory_estimate(long long pixels)
{
	return EXTRACT_BASE_BYTES + EXTRACT_BYTES_PER_PIXEL * pixels;
}

/* Peak bytes a pixel of `fishscale measure --threads 1` with log and dog
 * on an image of at most four tiles, which they detect whole
 * (detect_scale.h): on a 3000 x 3000 lattice at 0.1 um/px log 57 (ten
 * float scale layers), dog 49, ellipse 26, auto 8. Admitting a log job at
 * auto's figure let two of them take twice the memory budget. A larger
 * image is detected tile by tile, whose peak is the compact image and one
 * tile's layers (the 100 MP synthetic SEM image at 0.4 um/px: log 243 MB,
 * dog 217 MB, ellipse 210 MB, auto 245-263 MB): auto's estimate covers it. */
#define LOG_BYTES_PER_PIXEL 60
#define DOG_BYTES_PER_PIXEL 52

long long fs_job_extract_memory_estimate(long long pixels, fs_method method)
{
	/* jobs keep the default tiling */
	long long tile = FS_DETECT_TILE_DEFAULT;
	if (pixels <= 4 * tile * tile) {
		if (method == FS_METHOD_LOG)
			return EXTRACT_BASE_BYTES + LOG_BYTES_PER_PIXEL * pixels;
		if (method == FS_METHOD_DOG)
			return EXTRACT_BASE_BYTES + DOG_BYTES_PER_PIXEL * pixels;
	}
	return fs_job_memory_estimate(pixels);
}

int fs_job_launch(fs_app *app, const fs_job_rec *job, char *err, size_t errlen)
{
	char exe[1200], dir[1200], logp[1300];
	snprintf(exe, sizeof exe, "%s/build/fishscale-job", app->root);
	fs_app_data_path(app, "jobs", dir, sizeof dir);
	mkdir(dir, 0750);
	snprintf(logp, sizeof logp, "%s/%lld.stderr", dir, job->id);
	long long pid = 0;
	if (fs_worker_spawn(exe, app->root, job->id, logp, &pid, err, errlen)) {
		fs_job_finish(app->db, job->id, "failed", NULL, err, NULL);
		return -1;
	}
	/* the worker records its pid too, and only it says "running": then it
	 * is ready for a Cancel's signal */
	fs_job_set_pid(app->db, job->id, pid);
	return 0;
}

int fs_job_schedule(fs_app *app)
{
	fs_job_limits lim;
	fs_job_limits_from_config(&app->cfg, &lim);
	fs_job_reap(app->db, NULL);
	int started = 0;
	for (;;) {
		fs_job_rec job;
		int found = 0;
		char err[256];
		if (fs_job_claim_next(app->db, &lim, &job, &found) || !found)
			break;
		if (!fs_job_launch(app, &job, err, sizeof err))
			started++;
	}
	return started;
}
