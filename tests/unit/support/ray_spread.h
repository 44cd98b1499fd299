/*
 * ray_spread.h - the domes' radius spread and their centres' scatter read
 * from rays about given centres, each with its own measurement scatter
 * taken off by splitting a dome's rays into two independent halves
 * (h46b).
 *
 * Why: a blur read from the mean patch about many centres (the fine
 * forward model's, the templates') reads the domes' radius spread var(R)
 * and the centres' scatter about the domes as blur too (h45b, h45n: 0.9-1.1
 * x var(R), plus the centres' scatter). Both can be measured per dome from
 * where its edge lies on rays about its centre: a dome of radius R_i whose
 * centre lies d_i off the given one has its edge on ray u at R_i + d_i . u.
 * A dome's edge radii, less each ray's mean over the domes (the lit and
 * shaded sides' own offsets), fitted by a + b.u on the even rays and again
 * on the odd ones, give two readings of (R_i - mean R, d_i - mean d) whose
 * measurement errors are independent where the rays share no pixel; the
 * covariance of the two halves over the domes is then the spread itself,
 * without the readings' own scatter.
 *
 * Ownership: every array is the caller's; nothing is kept between calls.
 */
#ifndef RAY_SPREAD_H
#define RAY_SPREAD_H

#include <stddef.h>

#include "image/image.h"

/* the rays a dome: 24 keeps neighbouring rays' bilinear samples apart
 * (1.7 px at R 6.4) so the halves' errors stay independent */
#define RAY_SPREAD_RAYS 24

typedef struct {
	size_t n;           /* domes with enough rays picked on both halves */
	double var_r;       /* the radii's spread: the halves' covariance (px^2) */
	double var_r_whole; /* the whole radii's variance (their scatter in it) */
	double scatter;     /* the centres' scatter a axis: the halves' covariance (px^2) */
	double scatter_whole;
	double edge_r;      /* the mean edge radius picked (px) */
} ray_spread;

/*
 * Reads the spread about the n centres (xs, ys) on img: rays from 0.55 r0
 * to r0 + out (px), the edge on each at the steepest change of the
 * domes' mean profile along that ray (its sign), looked for within 1.5 px
 * of it per dome. 0, or -1 with err set (fewer than 8 domes read, out of
 * memory).
 */
int ray_spread_read(const fs_image *img, const double *xs, const double *ys, size_t n, double r0, double out,
		    ray_spread *rs, char *err, size_t errlen);

/* ray_spread_read with each dome's whole-ray reading of its centre's
 * offset (the edge circle's centre less the given one, the domes' mean
 * offset off) in dx[i], dy[i] (NAN where the dome was not read): what a
 * bench compares with the truth. */
int ray_spread_read_each(const fs_image *img, const double *xs, const double *ys, size_t n, double r0, double out,
			 ray_spread *rs, double *dx, double *dy, char *err, size_t errlen);

#endif
