/*
 * lsq6.h - a six-term linear least-squares fit finished from its normal
 * equations: the valley readers' wall-floor-wall models (gap_read.c,
 * h47g; gap_wide.c, h52g) accumulate X^T X and X^T y themselves, as each
 * builds its own six basis values per sample, and share the solve.
 * Not part of the public API (detect.h).
 *
 * The caller owns every argument; nothing is kept.
 */
#ifndef FS_LSQ6_H
#define FS_LSQ6_H

/* A[a][b] for b >= a holds X^T X's upper triangle and A[a][6] X^T y; yy
 * is y . y. Fills A's lower triangle (so A is the whole system on
 * return), solves by elimination with partial pivoting and returns the
 * residual sum of squares y.y - x . X^T y, HUGE_VAL when a pivot falls
 * below 1e-12 of its diagonal (singular). coef: the six coefficients
 * (may be NULL; untouched when singular). */
double fs_lsq6_rss(double A[6][7], double yy, double *coef);

#endif
