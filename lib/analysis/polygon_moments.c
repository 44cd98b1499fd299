/* polygon_moments.c - see polygon_moments.h. */
#include "analysis/polygon_moments.h"

#include <math.h>

void fs_poly_moments_of(const double *x, const double *y, int n, fs_poly_moments *m)
{
	double A = 0, Sx = 0, Sy = 0, Sxx = 0, Syy = 0, Sxy = 0, P = 0;
	for (int k = 0; k < n; k++) {
		int j = (k + 1) % n;
		double x0 = x[k], y0 = y[k], x1 = x[j], y1 = y[j];
		double cr = x0 * y1 - x1 * y0;
		A += cr;
		Sx += (x0 + x1) * cr;
		Sy += (y0 + y1) * cr;
		Sxx += (x0 * x0 + x0 * x1 + x1 * x1) * cr;
		Syy += (y0 * y0 + y0 * y1 + y1 * y1) * cr;
		Sxy += (x0 * y1 + 2 * x0 * y0 + 2 * x1 * y1 + x1 * y0) * cr;
		P += hypot(x1 - x0, y1 - y0);
	}
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
