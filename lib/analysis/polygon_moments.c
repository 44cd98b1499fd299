/* polygon_moments.c - see polygon_moments.h. */
#include "analysis/polygon_moments.h"

#include <math.h>

#include "analysis/lanes.h"

void fs_poly_moments_of(const double *x, const double *y, int n, fs_poly_moments *m)
{
	double A = 0, Sxy = 0, P = 0;
	/* The x and y sums in the two lanes of a pair, {x, y} a vertex:
	 * {Sx, Sy} and {Sxx, Syy} take the same expressions of each
	 * coordinate, and x0 y1, x1 y0 are the lanes of {x0, y0} {y1, x1}
	 * (x1 y0 = y0 x1 to the bit); every sum still added vertex by vertex
	 * in order, so the same values (h50a: two polygons a dome reading on
	 * the 2048 x 1536 lattice, 5,878 of them, and one an outline). */
	v2d s1 = {0, 0}, s2 = {0, 0};
	for (int k = 0; k < n; k++) {
		int j = k + 1 < n ? k + 1 : 0;
		double x0 = x[k], y0 = y[k], x1 = x[j], y1 = y[j];
		v2d p0 = {x0, y0}, p1 = {x1, y1}, xy = p0 * (v2d){y1, x1};
		double cr = xy[0] - xy[1];
		v2d c2 = {cr, cr};
		A += cr;
		s1 += (p0 + p1) * c2;
		s2 += (p0 * p0 + p0 * p1 + p1 * p1) * c2;
		Sxy += (xy[0] + 2 * x0 * y0 + 2 * x1 * y1 + xy[1]) * cr;
		P += hypot(x1 - x0, y1 - y0);
	}
	double Sx = s1[0], Sy = s1[1], Sxx = s2[0], Syy = s2[1];
	A *= 0.5;
	m->area = A;
	m->perimeter = P;
	m->gx = m->gy = m->l1 = m->l2 = m->orientation = 0;
	if (!(A > 0))
		return;
	double gx = Sx / (6 * A), gy = Sy / (6 * A);
	double mxx = Sxx / (12 * A) - gx * gx;
	double myy = Syy / (12 * A) - gy * gy;
	double mxy = Sxy / (24 * A) - gx * gy;
	double tr = mxx + myy, det = mxx * myy - mxy * mxy;
	double disc = sqrt(fmax(0, tr * tr / 4 - det));
	m->gx = gx;
	m->gy = gy;
	m->l1 = tr / 2 + disc;
	m->l2 = fmax(0, tr / 2 - disc);
	m->orientation = 0.5 * atan2(2 * mxy, mxx - myy);
}
