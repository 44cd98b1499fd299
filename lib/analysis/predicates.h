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
static inline int fs_orient2d(double ax, double ay, double bx, double by, double cx, double cy);

/*
 * For a, b, c with fs_orient2d(a, b, c) > 0: 1 when d lies strictly inside
 * their circumcircle, -1 when strictly outside, 0 when on it.
 */
static inline int fs_incircle(double ax, double ay, double bx, double by, double cx, double cy,
			      double dx, double dy);

/* The exact stage alone (any input; the inline functions call it only when
 * the floating-point sign is not certain). */
int fs_orient2d_exact(double ax, double ay, double bx, double by, double cx, double cy);
int fs_incircle_exact(double ax, double ay, double bx, double by, double cx, double cy,
		      double dx, double dy);

/*
 * Stage 1, inline because the triangulation calls it millions of times and
 * a call per test cost a fifth of its time. Bounds from Shewchuk, "Adaptive
 * Precision Floating-Point Arithmetic and Fast Robust Geometric Predicates"
 * (1997); EPS = 2^-53, half an ulp of 1.
 */
#define FS_PRED_EPS (1.0 / 9007199254740992.0)
#define FS_ORIENT_BOUND ((3.0 + 16.0 * FS_PRED_EPS) * FS_PRED_EPS)
#define FS_INCIRCLE_BOUND ((10.0 + 96.0 * FS_PRED_EPS) * FS_PRED_EPS)

static inline int fs_orient2d(double ax, double ay, double bx, double by, double cx, double cy)
{
	double l = (ax - cx) * (by - cy);
	double r = (ay - cy) * (bx - cx);
	double det = l - r;
	double bound = FS_ORIENT_BOUND * (__builtin_fabs(l) + __builtin_fabs(r));

	if (det > bound)
		return 1;
	if (-det > bound)
		return -1;
	return fs_orient2d_exact(ax, ay, bx, by, cx, cy);
}

static inline int fs_incircle(double ax, double ay, double bx, double by, double cx, double cy,
			      double dx, double dy)
{
	double adx = ax - dx, ady = ay - dy;
	double bdx = bx - dx, bdy = by - dy;
	double cdx = cx - dx, cdy = cy - dy;
	double bc = bdx * cdy, cb = cdx * bdy;
	double ca = cdx * ady, ac = adx * cdy;
	double ab = adx * bdy, ba = bdx * ady;
	double alift = adx * adx + ady * ady;
	double blift = bdx * bdx + bdy * bdy;
	double clift = cdx * cdx + cdy * cdy;
	double det = alift * (bc - cb) + blift * (ca - ac) + clift * (ab - ba);
	double perm = (__builtin_fabs(bc) + __builtin_fabs(cb)) * alift +
		      (__builtin_fabs(ca) + __builtin_fabs(ac)) * blift +
		      (__builtin_fabs(ab) + __builtin_fabs(ba)) * clift;
	double bound = FS_INCIRCLE_BOUND * perm;

	if (det > bound)
		return 1;
	if (-det > bound)
		return -1;
	return fs_incircle_exact(ax, ay, bx, by, cx, cy, dx, dy);
}

#endif
