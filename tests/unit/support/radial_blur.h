/*
 * radial_blur.h - the radial profile of a radially symmetric object blurred
 * by an isotropic Gaussian, as the blur benches integrate it: a ring of
 * radius r blurred by sigma reads at radius rho
 *   (r / s^2) exp(-(r - rho)^2 / 2 s^2) I0(r rho / s^2)
 * per unit of r (s^2 = sigma^2), I0 the modified Bessel function of order
 * 0, taken as exp(-x) I0(x) so that the large arguments do not overflow.
 * Written once for bench_level_beam and bench_image_blur (h48j), whose
 * printouts depend on its bits (series and expansion as they had them).
 *
 * Ownership: plain numbers in and out.
 */
#ifndef RADIAL_BLUR_H
#define RADIAL_BLUR_H

/* exp(-x) I0(x), x >= 0: the series below 30, the asymptotic expansion
 * beyond (relative error below 1e-7 at 30). */
double radial_i0_scaled(double x);

/* The ring of radius r's weight at radius rho under a blur of variance s2
 * (the kernel above), evaluated left to right as the benches wrote it:
 * r / s2 * exp(..) * radial_i0_scaled(..). */
double radial_ring_weight(double r, double rho, double s2);

#endif
