/*
 * se_solve.h - the least squares of the SE model's weights (se_render.h:
 * its FS_SE_NCOMP parts and a constant) from their normal equations, for
 * the formation fit (dome_fit.c) and the per-tubercle template fit
 * (dome_base_fit.c). They solved the same small system with two copies of
 * one elimination; one definition keeps their ridge and pivoting the same
 * (a change to one alone would move one fit and not the other).
 *
 * Inline, because the formation fit solves it at every trial of its
 * search. Nothing is kept: A is the caller's and is overwritten.
 */
#ifndef FS_SE_SOLVE_H
#define FS_SE_SOLVE_H

#include <math.h>

#include "analysis/se_render.h"

/* the weights: one per part and the constant */
#define FS_SE_NW (FS_SE_NCOMP + 1)

/* Solves the n x n system augmented by its right-hand side in column n of
 * A (n <= FS_SE_NW) into x[0..n), by Gaussian elimination with partial
 * pivoting after a tiny ridge on the diagonal: a part that vanishes (no
 * slope on a flat field, no shadow) must not make the system singular. */
static inline void fs_se_solve(double A[FS_SE_NW][FS_SE_NW + 1], int n, double *x)
{
	for (int i = 0; i < n; i++)
		A[i][i] += 1e-9 * (A[i][i] + 1);
	for (int i = 0; i < n; i++) {
		int piv = i;
		for (int r = i + 1; r < n; r++)
			if (fabs(A[r][i]) > fabs(A[piv][i]))
				piv = r;
		for (int j = 0; j <= n && piv != i; j++) {
			double s = A[i][j];
			A[i][j] = A[piv][j];
			A[piv][j] = s;
		}
		for (int r = i + 1; r < n; r++) {
			double f = A[r][i] / A[i][i];
			for (int j = i; j <= n; j++)
				A[r][j] -= f * A[i][j];
		}
	}
	for (int i = n - 1; i >= 0; i--) {
		double s = A[i][n];
		for (int j = i + 1; j < n; j++)
			s -= A[i][j] * x[j];
		x[i] = s / A[i][i];
	}
}

#endif
