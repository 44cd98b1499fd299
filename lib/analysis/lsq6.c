/*
 * lsq6.c - see lsq6.h.
 */
#include "analysis/lsq6.h"

#include <math.h>
#include <string.h>

double fs_lsq6_rss(double A[6][7], double yy, double *coef)
{
	for (int a = 0; a < 6; a++)
		for (int b = 0; b < a; b++)
			A[a][b] = A[b][a];
	double B[6][7];
	memcpy(B, A, sizeof B);
	for (int c = 0; c < 6; c++) {
		int p = c;
		for (int r = c + 1; r < 6; r++)
			if (fabs(B[r][c]) > fabs(B[p][c]))
				p = r;
		if (!(fabs(B[p][c]) > 1e-12 * (fabs(A[c][c]) + 1e-30)))
			return HUGE_VAL;
		if (p != c)
			for (int k = 0; k < 7; k++) {
				double tmp = B[c][k];
				B[c][k] = B[p][k];
				B[p][k] = tmp;
			}
		for (int r = c + 1; r < 6; r++) {
			double q = B[r][c] / B[c][c];
			for (int k = c; k < 7; k++)
				B[r][k] -= q * B[c][k];
		}
	}
	double x[6];
	for (int c = 5; c >= 0; c--) {
		double v = B[c][6];
		for (int k = c + 1; k < 6; k++)
			v -= B[c][k] * x[k];
		x[c] = v / B[c][c];
	}
	/* the fitted terms' sum of squares is x . (X^T y) */
	double fit = 0;
	for (int a = 0; a < 6; a++)
		fit += x[a] * A[a][6];
	if (coef)
		memcpy(coef, x, sizeof x);
	return yy - fit;
}
