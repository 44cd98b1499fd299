/* job_control.c - limits, estimates and launching of background jobs (see job_control.h). */
#include "app/job_control.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/app.h"
#include "app/worker_spawn.h"
#include "analysis/detect.h"

/* A job of a kind without its own estimate: the extractions' old
 * whole-image figure (float working image and buffers). */
#define OTHER_BYTES_PER_PIXEL 26
#define OTHER_BASE_BYTES (64LL << 20)

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

static int g_job_threads = 1;

void fs_job_set_threads_from_config(const fs_config *cfg)
{
	fs_job_limits lim;
	fs_job_limits_from_config(cfg, &lim);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	long t = n > 0 && lim.max_running > 0 ? n / lim.max_running : 1;
	g_job_threads = t < 1 ? 1 : t > FS_JOB_MAX_THREADS ? FS_JOB_MAX_THREADS : (int)t;
}

int fs_job_threads(void)
{
	return g_job_threads;
}

long long fs_job_memory_estimate(long long pixels)
{
	return OTHER_BASE_BYTES + OTHER_BYTES_PER_PIXEL * pixels;
}

/*
 * Imports and transforms since they keep the image compact (h23d; peak RSS
 * from the jobs' own result.peak_rss_mb, tests/bench/bench_paths_memory.py,
 * under load): /work/large10k.tif (10000 x 10000 8-bit, an uncompressed
 * 100 MB TIFF) import 212 MiB (498 before, decoded to floats), rotate 300
 * (872), crop 298 (866), undo 205 (770); a 6144 x 4096 16-bit TIFF (50 MB)
 * import 104 (152), rotate 154 (244), crop 152 (241), autocrop 150 (239),
 * undo 110 (199). They were estimated at 26 bytes a pixel (2.6 GB for
 * 100 MP); tests/unit/cgi/test_job_estimate.c holds the estimates to these
 * peaks.
 * The model: a fixed part (the process, SQLite, a band of rows) and what
 * is held at once. An import holds the original and the decoded image while
 * decoding, then the image, its deflated working file (at most the image's
 * bytes) and the pyramid's half-size level (a quarter byte a pixel); a step
 * holds the image, the new image and then the new one's deflated file and
 * pyramid level.
 */
#define STEP_BASE_BYTES (48LL << 20)

static long long with_margin(long long bytes)
{
	return bytes + bytes * FS_JOB_MEMORY_MARGIN_PCT / 100;
}

long long fs_job_import_memory_estimate(long long pixels, int sample_bytes, long long file_bytes)
{
	long long img = (long long)sample_bytes * pixels;
	long long decoding = file_bytes + img, storing = 2 * img + pixels / 4;
	return with_margin(STEP_BASE_BYTES + (decoding > storing ? decoding : storing));
}

long long fs_job_transform_memory_estimate(long long pixels, int sample_bytes)
{
	long long img = (long long)sample_bytes * pixels;
	return with_margin(STEP_BASE_BYTES + 3 * img + pixels / 4);
}

int fs_job_sample_bytes(int bit_depth, int channels)
{
	if (channels <= 1 && bit_depth > 0 && bit_depth <= 8)
		return 1;
	if (channels <= 1 && bit_depth > 8 && bit_depth <= 16)
		return 2;
	return 4;
}

/*
 * An extraction job's peak, measured (tests/bench/bench_job_memory.py,
 * 2026-11-28: peak RSS of `fishscale measure --threads 1`, which runs what
 * a job runs: one thread, the default tiles, the compact image; the jobs'
 * own peak_rss_mb in bench_large_api.py was at or below it) on the
 * synthetic SEM image at 0.4 um/px, 8 and 16 bit: a 5000 x 5000 crop
 * (25 MP) and the whole 10000 x 10000 (100 MP, pitch 36 px, 71,858
 * tubercles), and a 10000 x 10000 at a fine pitch (14 px, 589,487
 * tubercles: auto preprocesses it at full resolution and the lists are
 * eight times longer). Per method a fixed part (the process, one tile's
 * layers) and bytes a pixel: the fixed part from the line through the two
 * sizes at the usual pitch, the bytes a pixel from the fine pitch, which
 * are higher (a job does not know the pitch before it runs); 16-bit adds
 * what it added at the usual pitch (the 16-bit file's decoding, which is
 * every method's 16-bit peak there). Peak RSS in MB (10^6 bytes), 25 MP /
 * 100 MP / 100 MP at the fine pitch, 8-bit; 25 / 100 MP, 16-bit:
 *
 *   auto, outline rule   67 /  215 / 572      117 /  415
 *   auto, dome rule     136 /  275 /  445     160 /  415   (h22f, tiled
 *                       candidates; h21c: 1379 at the fine pitch; whole
 *                       before: 444 / 1716 / 7963     471 / 1816)
 *   log                 108 /  266 / 349      138 /  415
 *   dog                 107 /  237 / 349      133 /  415
 *   ellipse              84 /  215 / 305      117 /  415
 *
 * The dome rule's memory comes on top of whichever method found the
 * candidates. It measures tile by tile (h21c, detect_domes_tiled.h) and,
 * with auto, finds its candidates tile by tile at a fine pitch too (h22f,
 * detect_cand_domes.h): what it adds to the outline rule is its
 * per-tubercle work, 60-70 MB on 25 and 100 MP at the usual pitch and
 * 96 MB on 100 MP at the fine one (auto's outline rule there: 349 MB since
 * its own candidates went tile by tile), 1 byte a pixel over auto's; the
 * lattice method's, tile by tile too, peaked at 380 MB there.
 * On an image of at most four default tiles the dome rule runs whole
 * (detect.c): 157 MB on 2048 x 2048 at the fine pitch (87 at the usual),
 * DOME_WHOLE_BYTES_PER_PIXEL below.
 * A float working image (a colour original) is not measured: its bytes a
 * pixel are extrapolated from 8 to 16 bits (three more bytes a sample than
 * 8-bit, each costing what the second did). The old figure, 26 bytes a
 * pixel for every method, was the float whole-image path's: twelve times
 * auto's peak on 100 MP.
 */
typedef struct {
	double base_mb;	  /* fixed part, MB */
	double bpp8, bpp16; /* bytes a pixel with 1- and 2-byte samples */
} peak_cost;

static const peak_cost costs[] = {
	[FS_METHOD_AUTO] = {18, 5.54, 7.54},
	[FS_METHOD_LOG] = {55, 2.94, 4.53},
	[FS_METHOD_DOG] = {64, 2.85, 4.88},
	[FS_METHOD_ELLIPSE] = {40, 2.65, 4.87},
	/* lattice: auto's path (a fine pitch preprocessed at full resolution too) */
	[FS_METHOD_LATTICE] = {18, 5.54, 7.54},
};
/* the dome rule's on top of the method's (auto's dome - outline rule):
 * auto's and lattice's candidates tile by tile; log, dog and ellipse keep
 * h21c's figure (not measured under the dome rule) */
static const peak_cost dome_extra = {5, 1.0, 1.0};
static const peak_cost dome_extra_whole_candidates = {5, 8.2, 8.2};

/* Peak bytes a pixel of `fishscale measure --tile 0` (the whole image at
 * once) on a 3000 x 3000 lattice at 0.1 um/px: log 57 (ten float scale
 * layers), dog 49, ellipse 26. Log, dog and ellipse take that path on an
 * image of at most four default tiles (detect_scale.h); admitting a log job
 * at auto's figure let two of them take twice the memory budget. */
#define LOG_WHOLE_BYTES_PER_PIXEL 57
#define DOG_WHOLE_BYTES_PER_PIXEL 49
#define ELLIPSE_WHOLE_BYTES_PER_PIXEL 26
/* The dome rule on an image of at most four default tiles (the whole
 * image at once, candidates and measurement): 157 MB on 2048 x 2048 at a
 * pitch of 14 px with one thread, (157 - 23) MB / 4.19 MP = 32 bytes a
 * pixel, rounded up. */
#define DOME_WHOLE_BYTES_PER_PIXEL 33

static double cost_bpp(const peak_cost *c, int sample_bytes)
{
	return c->bpp8 + (sample_bytes - 1) * (c->bpp16 - c->bpp8);
}

long long fs_job_extract_memory_estimate(long long pixels, int sample_bytes, fs_method method,
					 fs_measurement_rule rule)
{
	if (sample_bytes != 1 && sample_bytes != 2)
		sample_bytes = 4;
	if ((int)method < 0 || (size_t)method >= sizeof costs / sizeof costs[0])
		method = FS_METHOD_AUTO;
	const peak_cost *c = &costs[method];
	double base = c->base_mb * 1e6, bpp = cost_bpp(c, sample_bytes);
	/* jobs keep the default tiling */
	long long tile = FS_DETECT_TILE_DEFAULT;
	if (pixels <= 4 * tile * tile) {
		/* the whole-image path's layers, over the image's own samples */
		int whole = method == FS_METHOD_LOG	? LOG_WHOLE_BYTES_PER_PIXEL
			    : method == FS_METHOD_DOG	? DOG_WHOLE_BYTES_PER_PIXEL
			    : method == FS_METHOD_ELLIPSE ? ELLIPSE_WHOLE_BYTES_PER_PIXEL
							  : 0;
		if (whole + sample_bytes - 1 > bpp)
			bpp = whole + sample_bytes - 1;
	}
	if (rule == FS_RULE_DOME) {
		const peak_cost *d = method == FS_METHOD_AUTO || method == FS_METHOD_LATTICE
					     ? &dome_extra
					     : &dome_extra_whole_candidates;
		base += d->base_mb * 1e6;
		bpp += cost_bpp(d, sample_bytes);
		if (pixels <= 4 * tile * tile && DOME_WHOLE_BYTES_PER_PIXEL + sample_bytes - 1 > bpp)
			bpp = DOME_WHOLE_BYTES_PER_PIXEL + sample_bytes - 1;
	}
	double peak = base + bpp * (double)pixels;
	return (long long)(peak * (100 + FS_JOB_MEMORY_MARGIN_PCT) / 100);
}

long long fs_job_extract_memory_estimate_for(const fs_image_rec *im, fs_method method)
{
	long long one = fs_job_extract_memory_estimate((long long)im->width * im->height,
						       fs_job_sample_bytes(im->bit_depth, im->channels), method,
						       fs_measurement_get_rule());
	return one + with_margin((g_job_threads - 1) * FS_JOB_THREAD_EXTRA_BYTES);
}

/*
 * A Re-measure job's peak (main_job.c, run_remeasure), two phases. While
 * measuring: the compact working image, the float measurement image
 * (fs_detect_measure_image: a float crop and its blur, 8 bytes a pixel; the
 * top-hat's two buffers 8 more) made whole on an image of at most
 * FS_MEASURE_BAND_MIN_PIXELS, else one band of FS_MEASURE_BAND_ROWS rows
 * with the rows its blur and rays reach (counted as 512 above and below: a
 * pitch up to 200 px), and the set's tubercles (96 bytes each, with the
 * rules' per-centre arrays). While storing, the images freed: the set's
 * rows, the diff's before and after, the packed record and the compressed
 * journal step, prepared outside the write lock (set_halves.h), counted at
 * 2 KiB a tubercle. Measured (the job's own peak_rss_mb, under load,
 * 2026-11-28), /work/large10k.tif (10000 x 10000 8-bit) with its 71,858
 * extracted tubercles, every one re-measured (bench_paths_memory.py):
 * 533.8 MiB with the whole float measurement image, 285.1 MiB with bands
 * (estimate 396 MiB);
 * a 1900 x 2900 8-bit lattice of squares with 18,600 (test_jobs_memory.py,
 * whole): 60.3 MiB. The synchronous Re-measure held the float working
 * image as well (418 MB).
 */
#define REMEASURE_BASE_BYTES (48LL << 20)
#define REMEASURE_BAND_MARGIN_ROWS 512
#define REMEASURE_MEASURING_BYTES_PER_TUBERCLE 256
#define REMEASURE_STORING_BYTES_PER_TUBERCLE 2048

long long fs_job_remeasure_memory_estimate(long long width, long long height, int sample_bytes,
					   long long n_tubercles, int tophat)
{
	if (sample_bytes != 1 && sample_bytes != 2)
		sample_bytes = 4;
	if (n_tubercles < 0)
		n_tubercles = 0;
	long long pixels = width * height;
	/* a float crop and its measurement image; the top-hat's two buffers */
	long long per_px = tophat ? 16 : 8;
	long long meas = pixels > FS_MEASURE_BAND_MIN_PIXELS
				 ? per_px * width * (FS_MEASURE_BAND_ROWS + 2 * REMEASURE_BAND_MARGIN_ROWS)
				 : (per_px - 4) * pixels;
	long long measuring = sample_bytes * pixels + meas + REMEASURE_MEASURING_BYTES_PER_TUBERCLE * n_tubercles;
	long long storing = REMEASURE_STORING_BYTES_PER_TUBERCLE * n_tubercles;
	return with_margin(REMEASURE_BASE_BYTES + (measuring > storing ? measuring : storing));
}

long long fs_job_remeasure_memory_estimate_for(const fs_image_rec *im, long long n_tubercles, int tophat)
{
	return fs_job_remeasure_memory_estimate(im->width, im->height, fs_job_sample_bytes(im->bit_depth, im->channels),
						n_tubercles, tophat);
}

/* What an agent session holds besides an extraction's peak: a row of
 * evidence tiles (21 of about 2 MB on a 10000 px wide image), the start,
 * best and judged sets of a 100 MP image's 72,000 tubercles (each about
 * 9 MB as a list) and the screenshots. */
#define AGENT_EXTRA_BYTES (64LL << 20)

long long fs_job_agent_memory_estimate_for(const fs_config *cfg, const fs_image_rec *im)
{
	long long pixels = (long long)im->width * im->height;
	if (pixels <= cfg->sync_max_pixels)
		return 0;
	/* an agent's extractions run in its own process in one thread */
	return fs_job_extract_memory_estimate(pixels, fs_job_sample_bytes(im->bit_depth, im->channels),
					      FS_METHOD_AUTO, fs_measurement_get_rule()) +
	       AGENT_EXTRA_BYTES * (100 + FS_JOB_MEMORY_MARGIN_PCT) / 100;
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
