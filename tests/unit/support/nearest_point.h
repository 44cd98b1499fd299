/*
 * nearest_point.h - the nearest of a set of points to a place, within a
 * limit: the benches' reading of centres against the simulator's truth
 * (each true dome takes its nearest centre) and of one detection's
 * centres against another's, written once (h47h).
 *
 * Not sem_match (sem_sim.h): that is a one-to-one greedy match, the
 * accuracy tables' score. Here two places may take the same point; what
 * the benches read is how far the nearest centre sits (the centres'
 * offsets), not how many domes were found.
 *
 * Every function: strictly nearer than the limit, the lowest index among
 * equally near points, distance by hypot. The benches' printouts depend
 * on these three (a bench whose loop differs in one keeps its own).
 *
 * Ownership: every array is the caller's; nothing is kept between calls.
 */
#ifndef NEAREST_POINT_H
#define NEAREST_POINT_H

#include <stddef.h>

#include "analysis/detect_candidates.h"
#include "image/tubercle.h"
#include "sem_sim.h"

/* The index of the point of (xs, ys; n) nearest (x, y), passing over
 * those whose use[i] is 0 (use may be NULL: all), or -1 when none lies
 * nearer than lim (INFINITY: no limit). */
long nearest_point(const double *xs, const double *ys, const int *use, size_t n, double x, double y, double lim);

/* The index of the tubercle of l nearest (x, y) within lim, or -1. */
long nearest_tubercle(const fs_tubercle_list *l, double x, double y, double lim);

/* Each of tr's inside domes' nearest point (nearest_point within frac x
 * the pitch) in of_truth[t] (tr->n entries; -1 for a dome outside the
 * scale region or with no point near enough). Returns the matched count. */
size_t nearest_of_truth(const sem_truth *tr, const double *xs, const double *ys, const int *use, size_t n,
			double frac, long *of_truth);

/* The mean offset of c's candidates, each moved by (sx, sy), from tr's
 * inside domes (each its nearest candidate within frac x the pitch,
 * nearest_of_truth) along the unit axis (ax, ay) and across it, into
 * *along and *across (NAN when none matched). Returns the matched count,
 * or -1 out of memory (the means then NAN). */
long nearest_mean_offset(const fs_cand_list *c, double sx, double sy, const sem_truth *tr, double frac, double ax,
			 double ay, double *along, double *across);

#endif
