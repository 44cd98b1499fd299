/*
 * predicates.h - robust geometric predicates for the Delaunay triangulation.
 *
 * Both predicates return the exact sign of their determinant for any finite
 * double input: a floating-point evaluation is tried first and accepted when
 * its magnitude exceeds a forward error bound (Shewchuk's "A" bounds); only
 * otherwise is the determinant summed exactly as an expansion of doubles
 * (products split with fma, sums with two-sum). Near-degenerate input (integer
 * lattices, collinear or co-circular points) therefore gets the true answer,
 * which keeps the triangulation consistent. No memory is allocated.
 */
#ifndef FS_PREDICATES_H
#define FS_PREDICATES_H

/*
 * > 0 when a, b, c turn counter-clockwise (in a y-up frame; with image
 * coordinates, y down, the same sign means clockwise on screen), < 0 when
 * clockwise, 0 when collinear. Returns only -1, 0 or 1.
 */
int fs_orient2d(double ax, double ay, double bx, double by, double cx, double cy);

/*
 * For a, b, c with fs_orient2d(a, b, c) > 0: 1 when d lies strictly inside
 * their circumcircle, -1 when strictly outside, 0 when on it.
 */
int fs_incircle(double ax, double ay, double bx, double by, double cx, double cy, double dx,
		double dy);

#endif
