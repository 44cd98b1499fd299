/*
 * box_tent_kernel.h - the Gaussian blur as a mean patch sees it: convolved
 * with the pixel's 1-px box (what a pixel integrates) and the bilinear
 * read's tent of 1 px half width (the mean patch sampled at the centres'
 * sub-pixel phases). Box and tent together are the quadratic B-spline,
 * three parabolas over [-1.5, 1.5] px, so the convolution has a closed
 * form in the normal's truncated moments.
 *
 * Why one definition: the fine blur read (blur_fine.c, h44a) and the
 * formation fit's fine model (dome_fit.c's fine_render, h44g) both read
 * their renders through this kernel; the second had it by quadrature,
 * which is only an approximation of the same integral (stop 44's review).
 *
 * Inline, because blur_fine.c evaluates it afresh at every trial of its
 * search. No pointers.
 */
#ifndef FS_BOX_TENT_KERNEL_H
#define FS_BOX_TENT_KERNEL_H

#include <math.h>

/* the B-spline's half width (px): where the kernel's support ends beyond
 * the Gaussian's */
#define FS_BOX_TENT_HALF 1.5

/* The standard normal's distribution function and density. */
static inline double fs_box_tent_Phi(double z)
{
	return 0.5 * erfc(-z * M_SQRT1_2);
}

static inline double fs_box_tent_phi(double z)
{
	return exp(-0.5 * z * z) * (0.5 * M_2_SQRTPI * M_SQRT1_2);
}

/* The integral over [a, b] of (c0 + c1 t + c2 t^2) times the Gaussian
 * density of mean s and sigma sg in t: with t = s + sg z the polynomial is
 * q(s) + q'(s) sg z + c2 sg^2 z^2 and the normal's truncated moments are
 * closed forms, so the kernel needs no quadrature. */
static inline double fs_box_tent_piece(double a, double b, double c0, double c1, double c2, double s, double sg)
{
	double A = (a - s) / sg, B = (b - s) / sg, pa = fs_box_tent_phi(A), pb = fs_box_tent_phi(B),
	       i0 = fs_box_tent_Phi(B) - fs_box_tent_Phi(A);
	double i1 = pa - pb, i2 = i0 + A * pa - B * pb;
	return (c0 + c1 * s + c2 * s * s) * i0 + (c1 + 2 * c2 * s) * sg * i1 + c2 * sg * sg * i2;
}

/* The density at s (px) of the Gaussian of sigma (px, > 0) convolved with
 * the box and the tent: the B-spline weighed by the Gaussian about s.
 * Integral 1 over s. */
static inline double fs_box_tent_gauss(double sigma, double s)
{
	return fs_box_tent_piece(-1.5, -0.5, 1.125, 1.5, 0.5, s, sigma) +
	       fs_box_tent_piece(-0.5, 0.5, 0.75, 0, -1, s, sigma) + fs_box_tent_piece(0.5, 1.5, 1.125, -1.5, 0.5, s, sigma);
}

#endif
