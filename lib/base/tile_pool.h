/*
 * tile_pool.h - the work queue of the tile-by-tile passes (issue 15): up
 * to n threads take tile indices from a shared counter until every tile
 * is done or one has failed. The measurement's tiles (detect_tiled.c),
 * the top-hat's (preprocess_tiled.c) and the scale methods' (detect_scale.c)
 * all run through it.
 *
 * A pass's result must not depend on which thread did a tile or when. A
 * tile's work therefore writes only what belongs to that tile; what all
 * tiles share is gathered by the optional merge callback, which the pool
 * calls once per tile in ascending tile order (tile k after tiles
 * 0 .. k - 1), never two at once, as soon as tile k and all before it are
 * done. The calling thread works too: one thread starts no thread.
 *
 * Ownership: ctx is the caller's, passed to the callbacks unchanged; the
 * pool keeps nothing after it returns.
 */
#ifndef FS_TILE_POOL_H
#define FS_TILE_POOL_H

#include <stddef.h>

/* The work on tile k (0 <= k < n_tiles), or its merge: 0, or -1 with a
 * message in err (errlen bytes, the callback's own buffer). Called from
 * any of the pool's threads. */
typedef int (*fs_tile_fn)(size_t k, void *ctx, char *err, size_t errlen);

/* The most threads one pass runs (more are clamped to it). */
#define FS_TILE_POOL_MAX_THREADS 8

/*
 * Runs work on every tile 0 .. n_tiles - 1 with n_threads threads (the
 * calling thread one of them; clamped to 1 .. FS_TILE_POOL_MAX_THREADS and
 * to n_tiles), then, when merge is not NULL, merge on each tile in
 * ascending order as described above. After the first failure no further
 * tile is started or merged. Returns 0, or -1 with the first failure's
 * message (a thread that cannot be started is not a failure: the others
 * do its share).
 */
int fs_tile_pool_run(size_t n_tiles, int n_threads, fs_tile_fn work, fs_tile_fn merge, void *ctx, char *err,
		     size_t errlen);

/*
 * The most threads one pass of this process has run (the caller and the
 * threads it started), 0 before any pass with a tile. Issue 15 promises
 * that a background job computes in one thread and the CLI may use two:
 * the job reports this in its result, so a test can hold it to that.
 */
int fs_tile_pool_most_threads(void);

#endif
