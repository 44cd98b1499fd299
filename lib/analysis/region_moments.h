/*
 * region_moments.h - the 8-connected regions of a one-bit mask with their
 * raw moments, found row by row (a streaming labelling of runs): the
 * memory is a few rows of runs and the regions open on the current row,
 * not the mask's size in labels or a flood fill's stack, so a 100 MP
 * mask is labelled in a few megabytes (the ellipse method, issue 15).
 *
 * The moments are sums of integers (pixel coordinates, their squares and
 * products), exact in doubles below 2^53 whatever the order they are
 * added in: a region's moments equal a flood fill's.
 *
 * Ownership: the mask stays the caller's; a region passed to the callback
 * lives only during the call.
 */
#ifndef FS_REGION_MOMENTS_H
#define FS_REGION_MOMENTS_H

#include <stddef.h>

typedef struct fs_region_moments {
	double S, Sx, Sy, Sxx, Syy, Sxy; /* pixel count, sums of x, y, x^2, y^2, x y */
	long long first;                  /* raster index y * w + x of its first pixel */
} fs_region_moments;

/* Bit x of row y of a mask: bits[y * stride + x / 8] >> (x % 8) & 1. */
typedef int (*fs_region_fn)(const fs_region_moments *r, void *ctx);

/*
 * Calls fn once for every region of the w x h mask, when the region is
 * complete (in the order regions end; sort on first for the raster order
 * of their first pixels, a flood fill's). Returns 0, -1 with a message
 * (out of memory), or fn's non-zero return (which stops the scan).
 */
int fs_regions_scan(const unsigned char *bits, size_t stride, int w, int h, fs_region_fn fn, void *ctx, char *err,
		    size_t errlen);

#endif
