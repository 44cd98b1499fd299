/* radial_blur.c - see radial_blur.h */
#include "radial_blur.h"

#include <math.h>

double radial_i0_scaled(double x)
{
	if (x < 30) {
		double t = 1, sum = 1, q = 0.25 * x * x;
		for (int k = 1; k < 200 && t > 1e-17 * sum; k++) {
			t *= q / ((double)k * k);
			sum += t;
		}
		return sum * exp(-x);
	}
	double u = 1 / x;
	return (1 + u / 8 + 9 * u * u / 128 + 225 * u * u * u / 3072) / sqrt(2 * M_PI * x);
}

double radial_ring_weight(double r, double rho, double s2)
{
	return r / s2 * exp(-0.5 * (r - rho) * (r - rho) / s2) * radial_i0_scaled(r * rho / s2);
}
