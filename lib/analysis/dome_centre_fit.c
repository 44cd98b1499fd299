/* dome_centre_fit.c - a dome's centre between the template fit's trial
 * centres (see dome_centre_fit.h). */
#include "analysis/dome_centre_fit.h"

#include <math.h>

/* The vertex of s = a + b u + c v + d u^2 + e v^2 + f u v (d, e here
 * the squares' coefficients, whatever constant they are centred by) in
 * *u, *v; 0 where it is no bowl or lies outside the grid (|u|, |v| > 1).
 * The gradient's zero: [2d f; f 2e] (u v) = -(b c); a bowl only when
 * curved along every direction (a flat valley's "minimum" is its
 * rounding noise). */
static int bowl_vertex(double b, double c, double d, double e, double f, double *u, double *v)
{
	double det = 4 * d * e - f * f;
	if (!(d > 0 && e > 0 && det > 1e-9 * (d * d + e * e + f * f)))
		return 0;
	double x = (-b * 2 * e + c * f) / det, y = (-c * 2 * d + b * f) / det;
	if (!(fabs(x) <= 1 && fabs(y) <= 1))
		return 0;
	*u = x;
	*v = y;
	return 1;
}

int fs_dome_centre_vertex(const double s[9], double *u, double *v)
{
	*u = *v = 0;
	/* s = a + b u + c v + d (u^2 - 2/3) + e (v^2 - 2/3) + f u v: on the
	 * 3 x 3 grid these six functions are orthogonal, so each coefficient
	 * is one sum (norms 6, 6, 2, 2 and 4) */
	double b = 0, c = 0, d = 0, e = 0, f = 0;
	for (int j = -1; j <= 1; j++)
		for (int i = -1; i <= 1; i++) {
			double q = s[3 * (j + 1) + (i + 1)];
			b += q * i;
			c += q * j;
			d += q * (i * i - 2.0 / 3);
			e += q * (j * j - 2.0 / 3);
			f += q * i * j;
		}
	b /= 6;
	c /= 6;
	d /= 2;
	e /= 2;
	f /= 4;
	return bowl_vertex(b, c, d, e, f, u, v);
}

int fs_dome_centre_vertex6(const double s[9], int p, int q, double *u, double *v)
{
	*u = *v = 0;
	/* s = a + b u + c v + d u^2 + e v^2 + f u v through the five points of
	 * the cross (each axis's parabola) and the one corner (p, q), which
	 * alone carries the cross term */
	double m = s[4];
	double b = 0.5 * (s[5] - s[3]), c = 0.5 * (s[7] - s[1]);
	double d = 0.5 * (s[5] + s[3]) - m, e = 0.5 * (s[7] + s[1]) - m;
	double f = (s[3 * (q + 1) + (p + 1)] - m - p * b - q * c - d - e) * (p * q);
	return bowl_vertex(b, c, d, e, f, u, v);
}
