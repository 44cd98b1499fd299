/*
 * near_pairs.h - the centres near a centre, found from the centres sorted
 * by x instead of by measuring every pair: the per-image formation fit
 * (dome_fit.c) reads the lattice's pitch and angle from up to 512 centres
 * against all, which on a 2,700-tubercle image was 1.4 million distances
 * per pass (a quarter of the fit). A pair further apart in x than the
 * radius asked for is never looked at; every pair that is, is measured as
 * before, so the callers' sums and medians are what they were.
 *
 * Ownership: fs_near_index owns its arrays (fs_near_index_free); the
 * centres stay the caller's and must outlive the index.
 */
#ifndef FS_NEAR_PAIRS_H
#define FS_NEAR_PAIRS_H

#include <stddef.h>

typedef struct fs_near_index {
	const double *xs, *ys; /* the caller's centres */
	size_t n;
	double *sx;            /* xs in ascending order */
	size_t *order;         /* order[k]: the centre with the k-th smallest x */
	size_t *pos;           /* pos[i]: where centre i is in order */
} fs_near_index;

/* Sorts n centres by x. Returns 0, -1 on out of memory (ix then empty). */
int fs_near_index_build(fs_near_index *ix, const double *xs, const double *ys, size_t n);

void fs_near_index_free(fs_near_index *ix);

/* The distance (hypot) from centre i to its nearest other centre, as the
 * minimum over all pairs would give it; INFINITY when n < 2. */
double fs_near_nearest(const fs_near_index *ix, size_t i);

/* Writes to out (room for n) every other centre j whose x and y both lie
 * within r of centre i's (with a margin of a last bit), in ascending j
 * (a superset of those within distance r, for the caller to test);
 * returns how many. */
size_t fs_near_within_box(const fs_near_index *ix, size_t i, double r, size_t *out);

#endif
