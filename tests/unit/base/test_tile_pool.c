/* Unit tests for tile_pool.h: every tile worked once, merges in tile order
 * whatever order the tiles finish in, the first failure stops the pass and
 * is reported, and a pass's result is the same with any number of threads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/tile_pool.h"

#define MAXT 64

struct rec {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t n;
	int worked[MAXT];        /* times tile k's work ran */
	int done[MAXT];          /* tile k's work finished */
	size_t order[MAXT];      /* merges in the order they ran */
	size_t nmerged;
	int in_merge, overlap;   /* merges running at once; seen > 1 */
	int not_done_at_merge;   /* a merge before its tile's work ended */
	pthread_t worker[MAXT];  /* the thread that did tile k */
	size_t fail_work, fail_merge; /* tile whose work / merge fails (MAXT: none) */
	int silent;              /* fail without a message */
	int hold_first;          /* tile 0 waits until every other tile is done */
	int hold_timed_out;
	double value[MAXT];      /* tile k's result (its work's only output) */
	double sums[MAXT];       /* the merged running sums, in merge order */
	double total;
};

static void rec_init(struct rec *r, size_t n)
{
	memset(r, 0, sizeof *r);
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	r->n = n;
	r->fail_work = r->fail_merge = MAXT;
}

static void rec_free(struct rec *r)
{
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
}

static int others_done(const struct rec *r)
{
	for (size_t k = 1; k < r->n; k++)
		if (!r->done[k])
			return 0;
	return 1;
}

static int work(size_t k, void *ctx, char *err, size_t errlen)
{
	struct rec *r = ctx;
	pthread_mutex_lock(&r->lock);
	r->worked[k]++;
	r->worker[k] = pthread_self();
	if (k == 0 && r->hold_first) {
		/* wait for the condition (not for a time): the deadline only
		 * turns a pool that never runs the other tiles into a failure */
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 30;
		while (!others_done(r) && !r->hold_timed_out)
			if (pthread_cond_timedwait(&r->cond, &r->lock, &until) == ETIMEDOUT)
				r->hold_timed_out = 1;
	}
	pthread_mutex_unlock(&r->lock);
	if (k == r->fail_work) {
		if (!r->silent)
			snprintf(err, errlen, "tile %zu: no memory for its crop", k);
		return -1;
	}
	/* the tile's own result: a sum whose value depends on the order of
	 * additions, so a merge out of order would change the total's bits */
	double v = 0;
	for (int i = 1; i <= 1000; i++)
		v += 1.0 / ((double)i * (k + 1) + 0.1);
	r->value[k] = v;
	pthread_mutex_lock(&r->lock);
	r->done[k] = 1;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return 0;
}

static int merge(size_t k, void *ctx, char *err, size_t errlen)
{
	struct rec *r = ctx;
	pthread_mutex_lock(&r->lock);
	if (++r->in_merge > 1)
		r->overlap = 1;
	if (!r->done[k])
		r->not_done_at_merge = 1;
	pthread_mutex_unlock(&r->lock);
	/* the shared result, touched only here: no lock of the caller's */
	r->total += r->value[k];
	r->sums[r->nmerged] = r->total;
	r->order[r->nmerged++] = k;
	pthread_mutex_lock(&r->lock);
	r->in_merge--;
	pthread_mutex_unlock(&r->lock);
	if (k == r->fail_merge) {
		snprintf(err, errlen, "tile %zu: merge refused", k);
		return -1;
	}
	return 0;
}

static void every_tile_once_merged_in_order(void **state)
{
	(void)state;
	const size_t ntiles[] = {1, 2, 7, 40};
	const int nthreads[] = {1, 2, 3, 8, 50, 0, -3};
	for (size_t a = 0; a < sizeof ntiles / sizeof *ntiles; a++)
		for (size_t b = 0; b < sizeof nthreads / sizeof *nthreads; b++) {
			struct rec r;
			char err[128] = "";
			rec_init(&r, ntiles[a]);
			assert_int_equal(fs_tile_pool_run(r.n, nthreads[b], work, merge, &r, err, sizeof err), 0);
			assert_string_equal(err, "");
			for (size_t k = 0; k < r.n; k++)
				assert_int_equal(r.worked[k], 1);
			assert_int_equal(r.nmerged, r.n);
			for (size_t k = 0; k < r.n; k++)
				assert_int_equal(r.order[k], k);
			assert_false(r.overlap);
			assert_false(r.not_done_at_merge);
			rec_free(&r);
		}
}

static void no_tiles_no_calls(void **state)
{
	(void)state;
	struct rec r;
	char err[64] = "";
	rec_init(&r, 0);
	assert_int_equal(fs_tile_pool_run(0, 4, work, merge, &r, err, sizeof err), 0);
	assert_int_equal(r.nmerged, 0);
	assert_int_equal(fs_tile_pool_run(3, 1, NULL, merge, &r, err, sizeof err), -1);
	assert_true(strlen(err) > 0);
	rec_free(&r);
}

/* Runs first: the process-wide count starts at 0. A pass in one thread
 * starts none; more threads than tiles are clamped to the tiles; the count
 * keeps the most, and no tile ever ran in a thread beyond it. */
static void most_threads_counts_what_the_passes_ran(void **state)
{
	(void)state;
	struct rec r;
	char err[64];
	assert_int_equal(fs_tile_pool_most_threads(), 0);
	rec_init(&r, 9);
	assert_int_equal(fs_tile_pool_run(r.n, 1, work, NULL, &r, err, sizeof err), 0);
	assert_int_equal(fs_tile_pool_most_threads(), 1);
	rec_free(&r);
	rec_init(&r, 2);
	assert_int_equal(fs_tile_pool_run(r.n, 4, work, NULL, &r, err, sizeof err), 0);
	assert_int_equal(fs_tile_pool_most_threads(), 2);
	rec_free(&r);
	rec_init(&r, 64);
	assert_int_equal(fs_tile_pool_run(r.n, 3, work, merge, &r, err, sizeof err), 0);
	assert_int_equal(fs_tile_pool_most_threads(), 3);
	int distinct = 0;
	for (size_t k = 0; k < r.n; k++) {
		size_t j = 0;
		while (j < k && !pthread_equal(r.worker[j], r.worker[k]))
			j++;
		distinct += j == k;
	}
	assert_in_range(distinct, 1, 3);
	rec_free(&r);
	rec_init(&r, 9);
	assert_int_equal(fs_tile_pool_run(r.n, 1, work, NULL, &r, err, sizeof err), 0);
	assert_int_equal(fs_tile_pool_most_threads(), 3);
	rec_free(&r);
}

static void one_thread_is_the_caller(void **state)
{
	(void)state;
	struct rec r;
	char err[64];
	rec_init(&r, 9);
	assert_int_equal(fs_tile_pool_run(r.n, 1, work, NULL, &r, err, sizeof err), 0);
	for (size_t k = 0; k < r.n; k++) {
		assert_int_equal(r.worked[k], 1);
		assert_true(pthread_equal(r.worker[k], pthread_self()));
	}
	assert_int_equal(r.nmerged, 0); /* no merge asked for */
	rec_free(&r);
}

/* Tile 0 finishes last (it waits for all the others): two threads must
 * run at once, and the merges still come 0, 1, 2, ... */
static void merges_wait_for_earlier_tiles(void **state)
{
	(void)state;
	for (int threads = 2; threads <= 4; threads += 2) {
		struct rec r;
		char err[64] = "";
		rec_init(&r, 12);
		r.hold_first = 1;
		assert_int_equal(fs_tile_pool_run(r.n, threads, work, merge, &r, err, sizeof err), 0);
		assert_false(r.hold_timed_out);
		assert_int_equal(r.nmerged, r.n);
		for (size_t k = 0; k < r.n; k++)
			assert_int_equal(r.order[k], k);
		assert_false(r.not_done_at_merge);
		rec_free(&r);
	}
}

static void results_same_with_any_threads(void **state)
{
	(void)state;
	struct rec ref;
	char err[64];
	rec_init(&ref, 33);
	assert_int_equal(fs_tile_pool_run(ref.n, 1, work, merge, &ref, err, sizeof err), 0);
	for (int threads = 2; threads <= 8; threads++) {
		struct rec r;
		rec_init(&r, 33);
		r.hold_first = threads == 2; /* and once with tile 0 last */
		assert_int_equal(fs_tile_pool_run(r.n, threads, work, merge, &r, err, sizeof err), 0);
		assert_memory_equal(r.sums, ref.sums, sizeof ref.sums);
		assert_memory_equal(&r.total, &ref.total, sizeof r.total);
		rec_free(&r);
	}
	rec_free(&ref);
}

static void first_failure_stops_and_is_reported(void **state)
{
	(void)state;
	/* one thread: tiles 0..5 worked, 6.. never started, 0..4 merged */
	struct rec r;
	char err[128] = "";
	rec_init(&r, 20);
	r.fail_work = 5;
	assert_int_equal(fs_tile_pool_run(r.n, 1, work, merge, &r, err, sizeof err), -1);
	assert_string_equal(err, "tile 5: no memory for its crop");
	for (size_t k = 0; k < r.n; k++)
		assert_int_equal(r.worked[k], k <= 5);
	assert_int_equal(r.nmerged, 5);
	rec_free(&r);
	/* threads: tiles already taken may finish, but nothing at or after
	 * the failed tile is merged and every tile runs at most once */
	for (int threads = 2; threads <= 8; threads *= 2) {
		rec_init(&r, 40);
		r.fail_work = 3;
		err[0] = '\0';
		assert_int_equal(fs_tile_pool_run(r.n, threads, work, merge, &r, err, sizeof err), -1);
		assert_string_equal(err, "tile 3: no memory for its crop");
		assert_true(r.nmerged <= 3);
		for (size_t k = 0; k < r.n; k++)
			assert_true(r.worked[k] <= 1);
		rec_free(&r);
	}
}

static void merge_failure_stops_merging(void **state)
{
	(void)state;
	for (int threads = 1; threads <= 3; threads++) {
		struct rec r;
		char err[128] = "";
		rec_init(&r, 10);
		r.fail_merge = 2;
		assert_int_equal(fs_tile_pool_run(r.n, threads, work, merge, &r, err, sizeof err), -1);
		assert_string_equal(err, "tile 2: merge refused");
		assert_int_equal(r.nmerged, 3); /* 0, 1 and the refused 2 */
		for (size_t k = 0; k < r.nmerged; k++)
			assert_int_equal(r.order[k], k);
		rec_free(&r);
	}
}

static void failure_without_message_names_the_tile(void **state)
{
	(void)state;
	struct rec r;
	char err[64] = "";
	rec_init(&r, 4);
	r.fail_work = 2;
	r.silent = 1;
	assert_int_equal(fs_tile_pool_run(r.n, 1, work, NULL, &r, err, sizeof err), -1);
	assert_string_equal(err, "tile 2 failed");
	rec_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(most_threads_counts_what_the_passes_ran),
		cmocka_unit_test(every_tile_once_merged_in_order),
		cmocka_unit_test(no_tiles_no_calls),
		cmocka_unit_test(one_thread_is_the_caller),
		cmocka_unit_test(merges_wait_for_earlier_tiles),
		cmocka_unit_test(results_same_with_any_threads),
		cmocka_unit_test(first_failure_stops_and_is_reported),
		cmocka_unit_test(merge_failure_stops_merging),
		cmocka_unit_test(failure_without_message_names_the_tile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
