/*
 * dome_readings.h - every reading dome_measure.h makes of one point (the
 * detection's smoothed reading and its unsmoothed twin, the level's
 * reading with its blur and edge, the ridge reading, the lone dome, the
 * traced stages), for the tests that hold two ways of reading a point to
 * the same bits: test_dome_lean_pass (a shortcut against the whole pass)
 * and test_dome_frame_snap (a start a rounding outside the frame against
 * one on its edge).
 *
 * Compared field by field (dome_readings_differ), not as bytes: the
 * padding of fs_tubercle is not written in any defined way by the
 * readers' struct copies.
 *
 * Ownership: the caller's struct and buffer; nothing is allocated.
 */
#ifndef FS_TEST_DOME_READINGS_H
#define FS_TEST_DOME_READINGS_H

#include <stddef.h>

#include "analysis/dome_measure.h"

typedef struct dome_readings {
	fs_tubercle t[5];   /* the five readings' tubercles, in read order */
	int rc[6], edge[2]; /* the six returns; the blur and edge readings' edges */
	double var;         /* the blur reading's variance */
	fs_dome_base_trace tr;
} dome_readings;

/* Reads the point (x, y) in the radii window [rmin, rmax] every way,
 * starting from zeros (a failed reading leaves some fields unwritten). */
void dome_read_all(const fs_image *img, double x, double y, double rmin, double rmax, double smooth,
		   dome_readings *r);

/* The first field in which a and b differ, named in buf ("rc[2]",
 * "t[1].centroid_x", "tr.sigma"; the returns first, then the tubercles,
 * edges, variance and trace), or NULL when they are the same to the bit. */
const char *dome_readings_differ(const dome_readings *a, const dome_readings *b, char *buf, size_t size);

#endif
