/*
 * tile_pool.c - the tile passes' work queue (see tile_pool.h).
 *
 * Why merges need no thread to wait: a thread that finishes a tile marks
 * it done and, unless another thread is merging, merges every tile that is
 * next in order and done. A merging thread looks again after each merge
 * (under the lock), so a tile finished meanwhile by a thread that saw it
 * merging is not left behind; the thread that finishes the last missing
 * tile therefore always finds the rest merged or merges it itself.
 */
#include "base/tile_pool.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* fs_tile_pool_most_threads(); passes may run in several threads at once */
static int most_threads;

struct pool {
	size_t n;
	fs_tile_fn work, merge;
	void *ctx;
	pthread_mutex_t lock; /* everything below */
	size_t next;          /* the next tile to take */
	size_t merged;        /* tiles 0 .. merged - 1 are merged */
	unsigned char *done;  /* with merge: tile k's work is done */
	int merging;          /* a thread is in merge (outside the lock) */
	int failed;
	char *err;            /* the caller's: the first failure's message */
	size_t errlen;
};

/* With the lock held: keeps the first failure's message. */
static void fail(struct pool *p, size_t k, const char *msg)
{
	if (!p->failed) {
		if (msg[0])
			snprintf(p->err, p->errlen, "%s", msg);
		else
			snprintf(p->err, p->errlen, "tile %zu failed", k);
	}
	p->failed = 1;
}

/* With the lock held (released around each merge): merges the tiles next
 * in order that are done, unless another thread is merging. */
static void merge_ready(struct pool *p, char *buf, size_t len)
{
	while (!p->failed && !p->merging && p->merged < p->n && p->done[p->merged]) {
		size_t k = p->merged;
		p->merging = 1;
		pthread_mutex_unlock(&p->lock);
		buf[0] = '\0';
		int rc = p->merge(k, p->ctx, buf, len);
		pthread_mutex_lock(&p->lock);
		p->merging = 0;
		p->merged++;
		if (rc)
			fail(p, k, buf);
	}
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	char buf[256];
	pthread_mutex_lock(&p->lock);
	while (!p->failed && p->next < p->n) {
		size_t k = p->next++;
		pthread_mutex_unlock(&p->lock);
		buf[0] = '\0';
		int rc = p->work(k, p->ctx, buf, sizeof buf);
		pthread_mutex_lock(&p->lock);
		if (rc) {
			fail(p, k, buf);
			break;
		}
		if (p->merge) {
			p->done[k] = 1;
			merge_ready(p, buf, sizeof buf);
		}
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int fs_tile_pool_run(size_t n_tiles, int n_threads, fs_tile_fn work, fs_tile_fn merge, void *ctx, char *err,
		     size_t errlen)
{
	if (!work) {
		snprintf(err, errlen, "tile pool: no work");
		return -1;
	}
	if (!n_tiles)
		return 0;
	struct pool p = {.n = n_tiles, .work = work, .merge = merge, .ctx = ctx, .err = err, .errlen = errlen};
	if (merge && !(p.done = calloc(n_tiles, 1))) {
		snprintf(err, errlen, "tile pool: out of memory");
		return -1;
	}
	int nth = n_threads < 1 ? 1 : n_threads > FS_TILE_POOL_MAX_THREADS ? FS_TILE_POOL_MAX_THREADS : n_threads;
	if ((size_t)nth > n_tiles)
		nth = (int)n_tiles;
	pthread_mutex_init(&p.lock, NULL);
	pthread_t th[FS_TILE_POOL_MAX_THREADS];
	int started = 0;
	for (int t = 1; t < nth; t++)
		if (pthread_create(&th[started], NULL, worker, &p) == 0)
			started++;
	int ran = started + 1, seen = __atomic_load_n(&most_threads, __ATOMIC_RELAXED);
	while (ran > seen &&
	       !__atomic_compare_exchange_n(&most_threads, &seen, ran, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	worker(&p);
	for (int t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	pthread_mutex_destroy(&p.lock);
	free(p.done);
	return p.failed ? -1 : 0;
}

int fs_tile_pool_most_threads(void)
{
	return __atomic_load_n(&most_threads, __ATOMIC_RELAXED);
}
