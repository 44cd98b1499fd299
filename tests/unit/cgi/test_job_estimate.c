/* test_job_estimate.c - the extraction jobs' memory estimate (app/
 * job_control.h) against the peaks measured on this machine
 * (tests/bench/bench_job_memory.py, 2026-11-28: peak RSS of `fishscale
 * measure --threads 1` on the synthetic SEM image, 25 and 100 MP, 8 and 16
 * bit, and 100 MP at a fine pitch): every measured peak is covered, with
 * the stated margin, and none is overestimated past a factor that would
 * make admission control refuse or queue work the machine could run (the
 * old 26 bytes a pixel was twelve times auto's 100 MP peak). Also: the
 * whole-image path of log, dog and ellipse (at most four default tiles)
 * takes their layers' bytes, the dome rule takes more than the outline
 * rule (and its layers' bytes on an image it detects whole), deeper
 * samples more than 8-bit, and the sample size follows the stored image.
 * Re-measure jobs' estimate against their measured peaks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <unistd.h>

#include "analysis/detect.h"
#include "app/job_control.h"

typedef struct {
	fs_method method;
	fs_measurement_rule rule;
	int sample_bytes;
	long long pixels;
	double peak_mb; /* measured peak RSS, 10^6 bytes */
} measured_peak;

#define MP25 (5000LL * 5000)
#define MP100 (10000LL * 10000)
/* a Re-measure job on the 100 MP image, bands of rows (job_control.c) */
#define BANDS_PEAK_MIB 285.1
#define MP4 (2048LL * 2048)

static const measured_peak peaks[] = {
	{FS_METHOD_AUTO, FS_RULE_OUTLINE, 1, MP25, 67},	   {FS_METHOD_AUTO, FS_RULE_OUTLINE, 1, MP100, 215},
	{FS_METHOD_AUTO, FS_RULE_DOME, 1, MP25, 136},	   {FS_METHOD_AUTO, FS_RULE_DOME, 1, MP100, 275},
	{FS_METHOD_LOG, FS_RULE_OUTLINE, 1, MP25, 108},	   {FS_METHOD_LOG, FS_RULE_OUTLINE, 1, MP100, 266},
	{FS_METHOD_DOG, FS_RULE_OUTLINE, 1, MP25, 107},	   {FS_METHOD_DOG, FS_RULE_OUTLINE, 1, MP100, 237},
	{FS_METHOD_ELLIPSE, FS_RULE_OUTLINE, 1, MP25, 84}, {FS_METHOD_ELLIPSE, FS_RULE_OUTLINE, 1, MP100, 215},
	{FS_METHOD_AUTO, FS_RULE_OUTLINE, 2, MP25, 117},   {FS_METHOD_AUTO, FS_RULE_OUTLINE, 2, MP100, 415},
	{FS_METHOD_AUTO, FS_RULE_DOME, 2, MP25, 160},	   {FS_METHOD_AUTO, FS_RULE_DOME, 2, MP100, 415},
	{FS_METHOD_LOG, FS_RULE_OUTLINE, 2, MP25, 138},	   {FS_METHOD_DOG, FS_RULE_OUTLINE, 2, MP25, 133},
	{FS_METHOD_ELLIPSE, FS_RULE_OUTLINE, 2, MP25, 117},
	{FS_METHOD_LOG, FS_RULE_OUTLINE, 2, MP100, 415},   {FS_METHOD_DOG, FS_RULE_OUTLINE, 2, MP100, 415},
	{FS_METHOD_ELLIPSE, FS_RULE_OUTLINE, 2, MP100, 415},
	/* 100 MP at a fine pitch (14 px, 586,660 tubercles) */
	{FS_METHOD_AUTO, FS_RULE_OUTLINE, 1, MP100, 572},  {FS_METHOD_LOG, FS_RULE_OUTLINE, 1, MP100, 349},
	{FS_METHOD_DOG, FS_RULE_OUTLINE, 1, MP100, 349},   {FS_METHOD_ELLIPSE, FS_RULE_OUTLINE, 1, MP100, 305},
	/* the dome rule tile by tile, its candidates too (h22f; h21c's
	 * whole candidates: 1379; whole-image before: 7963) */
	{FS_METHOD_AUTO, FS_RULE_DOME, 1, MP100, 445},	   {FS_METHOD_AUTO, FS_RULE_DOME, 1, MP25, 136},
	/* lattice's dome candidates tile by tile too (h22f) */
	{FS_METHOD_LATTICE, FS_RULE_DOME, 1, MP100, 380},
	/* 2048 x 2048 (four default tiles: the dome rule whole), fine and
	 * usual pitch */
	{FS_METHOD_AUTO, FS_RULE_DOME, 1, MP4, 157},	   {FS_METHOD_AUTO, FS_RULE_DOME, 1, MP4, 87},
};

static void every_measured_peak_is_covered_with_the_margin(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof peaks / sizeof peaks[0]; i++) {
		const measured_peak *m = &peaks[i];
		double est = (double)fs_job_extract_memory_estimate(m->pixels, m->sample_bytes, m->method, m->rule);
		double peak = m->peak_mb * 1e6;
		char what[128];
		snprintf(what, sizeof what, "%s %s %d-byte %lld px: estimate %.0f MB, measured %.0f MB",
			 fs_method_name(m->method), fs_measurement_rule_name(m->rule), m->sample_bytes, m->pixels,
			 est / 1e6, m->peak_mb);
		if (est < peak * (100 + FS_JOB_MEMORY_MARGIN_PCT) / 100 * 0.98)
			fail_msg("below the measured peak and its margin: %s", what);
		/* the estimate is the fine pitch's (a job does not know the
		 * pitch): auto's peak there is 2.7 times the usual pitch's, the
		 * dome rule's 1.6 times */
		double over = 4;
		if (est > peak * over)
			fail_msg("more than %.0f times the measured peak: %s", over, what);
	}
}

/* Imports and transforms (h23d, the jobs' own peak_rss_mb in MiB,
 * tests/bench/bench_paths_memory.py under load): /work/large10k.tif
 * (10000 x 10000 8-bit, an uncompressed 100,005,122-byte TIFF) and a
 * 6144 x 4096 16-bit TIFF of 50,335,926 bytes, both held compact. */
static void imports_and_transforms_cover_their_measured_peaks(void **state)
{
	(void)state;
	const struct {
		long long pixels;
		int sample_bytes;
		long long file_bytes; /* 0: a transform */
		double peak_mib;
	} m[] = {
		{MP100, 1, 100005122, 212.0}, {6144LL * 4096, 2, 50332290, 104.0}, /* imports */
		{MP100, 1, 0, 300.0},         {MP100, 1, 0, 297.8}, /* rotate, crop */
		{MP100, 1, 0, 204.7},                               /* undo */
		{6144LL * 4096, 2, 0, 153.8}, {6144LL * 4096, 2, 0, 150.4}, /* rotate, autocrop */
	};
	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
		double est = (double)(m[i].file_bytes ? fs_job_import_memory_estimate(m[i].pixels, m[i].sample_bytes,
										       m[i].file_bytes)
						       : fs_job_transform_memory_estimate(m[i].pixels, m[i].sample_bytes));
		double peak = m[i].peak_mib * 1048576.0;
		if (est < peak * (100 + FS_JOB_MEMORY_MARGIN_PCT) / 100)
			fail_msg("case %zu: estimate %.0f MiB below the peak %.0f MiB and its margin", i, est / 1048576,
				 m[i].peak_mib);
		if (est > 2.5 * peak)
			fail_msg("case %zu: estimate %.0f MiB, more than 2.5 times the peak %.0f MiB", i, est / 1048576,
				 m[i].peak_mib);
		/* the old figure, 26 bytes a pixel, was more than twice as much */
		assert_true(fs_job_memory_estimate(m[i].pixels) > 2 * est);
	}
	/* a float image (a colour original) costs more than a compact one */
	assert_true(fs_job_import_memory_estimate(MP25, 4, 75000000) > fs_job_import_memory_estimate(MP25, 1, 25000000));
	assert_true(fs_job_transform_memory_estimate(MP25, 4) > fs_job_transform_memory_estimate(MP25, 2));
}

/* Re-measure jobs (peak_rss_mb, job_control.c): the 100 MP 8-bit image's
 * 71,858 tubercles (its measurement image in bands of rows) and a
 * 1900 x 2900 8-bit lattice's 18,600 (whole), every one re-measured; the
 * estimate covers each with the margin, not past 2.5 times, and grows with
 * the samples' size, the tubercles' count and the top-hat. */
static void remeasure_covers_its_measured_peaks(void **state)
{
	(void)state;
	const struct {
		long long w, h, n;
		double peak_mib;
	} m[] = {{10000, 10000, 71858, BANDS_PEAK_MIB}, {1900, 2900, 18600, 60.3}};
	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
		double est = (double)fs_job_remeasure_memory_estimate(m[i].w, m[i].h, 1, m[i].n, 0);
		double peak = m[i].peak_mib * 1048576.0;
		if (est < peak * (100 + FS_JOB_MEMORY_MARGIN_PCT) / 100)
			fail_msg("case %zu: estimate %.0f MiB below the peak %.0f MiB and its margin", i, est / 1048576,
				 m[i].peak_mib);
		if (est > 2.5 * peak)
			fail_msg("case %zu: estimate %.0f MiB, more than 2.5 times the peak %.0f MiB", i, est / 1048576,
				 m[i].peak_mib);
	}
	assert_true(fs_job_remeasure_memory_estimate(5000, 5000, 2, 1000, 0) >
		    fs_job_remeasure_memory_estimate(5000, 5000, 1, 1000, 0));
	assert_true(fs_job_remeasure_memory_estimate(5000, 5000, 1, 600000, 0) >
		    fs_job_remeasure_memory_estimate(5000, 5000, 1, 1000, 0));
	assert_true(fs_job_remeasure_memory_estimate(5000, 5000, 1, 1000, 1) >
		    fs_job_remeasure_memory_estimate(5000, 5000, 1, 1000, 0));
	assert_true(fs_job_remeasure_memory_estimate(3000, 3000, 1, 1000, 1) >
		    fs_job_remeasure_memory_estimate(3000, 3000, 1, 1000, 0));
	/* the record: its stored image's sample size */
	fs_image_rec im = {0};
	im.width = 10000;
	im.height = 10000;
	im.bit_depth = 8;
	im.channels = 1;
	assert_true(fs_job_remeasure_memory_estimate_for(&im, 71858, 0) ==
		    fs_job_remeasure_memory_estimate(10000, 10000, 1, 71858, 0));
}

static void whole_image_layers_cost_more(void **state)
{
	(void)state;
	long long px = 1000 * 1000;
	long long a = fs_job_extract_memory_estimate(px, 1, FS_METHOD_AUTO, FS_RULE_OUTLINE);
	assert_true(fs_job_extract_memory_estimate(px, 1, FS_METHOD_LOG, FS_RULE_OUTLINE) > a + 30 * px);
	assert_true(fs_job_extract_memory_estimate(px, 1, FS_METHOD_DOG, FS_RULE_OUTLINE) > a + 20 * px);
	assert_true(fs_job_extract_memory_estimate(px, 1, FS_METHOD_ELLIPSE, FS_RULE_OUTLINE) > a + 10 * px);
	/* tile by tile (more than four default tiles) they cost what auto
	 * does, and one tile's layers (under 100 MB) */
	long long tile = FS_DETECT_TILE_DEFAULT, big = 4 * tile * tile + 1;
	long long ab = fs_job_extract_memory_estimate(big, 1, FS_METHOD_AUTO, FS_RULE_OUTLINE);
	fs_method m[] = {FS_METHOD_LOG, FS_METHOD_DOG, FS_METHOD_ELLIPSE, FS_METHOD_LATTICE};
	for (int i = 0; i < 4; i++)
		assert_true(fs_job_extract_memory_estimate(big, 1, m[i], FS_RULE_OUTLINE) < ab + (100LL << 20));
	/* the dome rule whole (at most four tiles): its candidates' and
	 * measurement's full-size images, more than tile by tile */
	assert_true(fs_job_extract_memory_estimate(px, 1, FS_METHOD_AUTO, FS_RULE_DOME) > a + 25 * px);
	assert_true(fs_job_extract_memory_estimate(big, 1, FS_METHOD_AUTO, FS_RULE_DOME) < ab + 5 * big);
}

static void rule_and_sample_size_cost_more(void **state)
{
	(void)state;
	long long px = MP100;
	fs_method m[] = {FS_METHOD_AUTO, FS_METHOD_LOG, FS_METHOD_DOG, FS_METHOD_ELLIPSE, FS_METHOD_LATTICE};
	for (int i = 0; i < 5; i++) {
		long long e1 = fs_job_extract_memory_estimate(px, 1, m[i], FS_RULE_OUTLINE);
		long long e2 = fs_job_extract_memory_estimate(px, 2, m[i], FS_RULE_OUTLINE);
		long long e4 = fs_job_extract_memory_estimate(px, 4, m[i], FS_RULE_OUTLINE);
		assert_true(e1 < e2 && e2 < e4);
		/* a float sample takes at least its 4 bytes more than none */
		assert_true(e4 - e1 >= 3 * px);
		/* auto's and lattice's dome candidates tile by tile add about
		 * a byte a pixel; log, dog and ellipse keep h21c's 8 */
		long long dome_more = m[i] == FS_METHOD_AUTO || m[i] == FS_METHOD_LATTICE ? px / 2 : 5 * px;
		assert_true(fs_job_extract_memory_estimate(px, 1, m[i], FS_RULE_DOME) > e1 + dome_more);
	}
	/* still more for more pixels */
	assert_true(fs_job_extract_memory_estimate(px, 1, FS_METHOD_AUTO, FS_RULE_OUTLINE) >
		    fs_job_extract_memory_estimate(MP25, 1, FS_METHOD_AUTO, FS_RULE_OUTLINE));
}

static void sample_size_follows_the_stored_image(void **state)
{
	(void)state;
	assert_int_equal(fs_job_sample_bytes(8, 1), 1);
	assert_int_equal(fs_job_sample_bytes(1, 1), 1);
	assert_int_equal(fs_job_sample_bytes(12, 1), 2);
	assert_int_equal(fs_job_sample_bytes(16, 1), 2);
	assert_int_equal(fs_job_sample_bytes(32, 1), 4);
	assert_int_equal(fs_job_sample_bytes(8, 3), 4); /* colour: a float grey image */
	fs_image_rec im = {0};
	im.width = 10000;
	im.height = 10000;
	im.bit_depth = 16;
	im.channels = 1;
	fs_measurement_set_rule(FS_RULE_OUTLINE);
	assert_true(fs_job_extract_memory_estimate_for(&im, FS_METHOD_AUTO) ==
		    fs_job_extract_memory_estimate(MP100, 2, FS_METHOD_AUTO, FS_RULE_OUTLINE));
	fs_measurement_set_rule(FS_RULE_DOME);
	assert_true(fs_job_extract_memory_estimate_for(&im, FS_METHOD_AUTO) ==
		    fs_job_extract_memory_estimate(MP100, 2, FS_METHOD_AUTO, FS_RULE_DOME));
	fs_measurement_set_rule(FS_MEASUREMENT_RULE_DEFAULT);
}

/* A job computes in the cores shared out among the jobs that may run at
 * once, at most FS_JOB_MAX_THREADS, and each thread past the first adds
 * its tile's layers to the estimate: measured peak RSS of `fishscale
 * measure` on the 100 MP image (2026-11-29, 8-bit, outline rule) in one
 * thread and two: auto 201.1 / 242.1 MB, log 241.3 / 329.2. */
static void threads_share_the_cores_and_cost_their_tiles(void **state)
{
	(void)state;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	fs_config cfg;
	fs_config_defaults(&cfg);
	cfg.jobs_max_running = 256;
	fs_job_set_threads_from_config(&cfg);
	assert_int_equal(fs_job_threads(), 1);
	cfg.jobs_max_running = 1;
	fs_job_set_threads_from_config(&cfg);
	assert_int_equal(fs_job_threads(), cores > FS_JOB_MAX_THREADS ? FS_JOB_MAX_THREADS : cores);
	cfg.jobs_max_running = 0; /* cores - 1, at least 1 */
	fs_job_set_threads_from_config(&cfg);
	assert_int_equal(fs_job_threads(), cores <= 2 ? cores : 1);

	fs_image_rec im = {0};
	im.width = 10000;
	im.height = 10000;
	im.bit_depth = 8;
	im.channels = 1;
	fs_measurement_set_rule(FS_RULE_OUTLINE);
	long long one = fs_job_extract_memory_estimate(MP100, 1, FS_METHOD_AUTO, FS_RULE_OUTLINE);
	/* one job at a time (all the cores), then one job per core */
	const int max_running[] = {1, 256};
	for (int k = 0; k < 2; k++) {
		cfg.jobs_max_running = max_running[k];
		fs_job_set_threads_from_config(&cfg);
		int threads = fs_job_threads();
		long long est = fs_job_extract_memory_estimate_for(&im, FS_METHOD_AUTO);
		assert_true(est == one + (threads - 1) * FS_JOB_THREAD_EXTRA_BYTES *
						 (100 + FS_JOB_MEMORY_MARGIN_PCT) / 100);
		/* measured up to two threads */
		double measured = threads == 1 ? 201.1e6 : 242.1e6;
		if (threads <= 2)
			assert_true(est >= measured * (100 + FS_JOB_MEMORY_MARGIN_PCT) / 100);
		long long est_log = fs_job_extract_memory_estimate_for(&im, FS_METHOD_LOG);
		double measured_log = threads == 1 ? 241.3e6 : 329.2e6;
		if (threads <= 2)
			assert_true(est_log >= measured_log * (100 + FS_JOB_MEMORY_MARGIN_PCT) / 100);
	}
	cfg.jobs_max_running = 256;
	fs_job_set_threads_from_config(&cfg);
	fs_measurement_set_rule(FS_MEASUREMENT_RULE_DEFAULT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_measured_peak_is_covered_with_the_margin),
		cmocka_unit_test(imports_and_transforms_cover_their_measured_peaks),
		cmocka_unit_test(remeasure_covers_its_measured_peaks),
		cmocka_unit_test(whole_image_layers_cost_more),
		cmocka_unit_test(rule_and_sample_size_cost_more),
		cmocka_unit_test(sample_size_follows_the_stored_image),
		cmocka_unit_test(threads_share_the_cores_and_cost_their_tiles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
