/*
 * polygon_moments.h - area, centroid, second moments and perimeter of the
 * closed polygon of a tubercle's edge points (Green's theorem), and the
 * ellipse of the same second moments: what both outline rules (the
 * half-level outline, blob_measure.c, and the dome base, dome_measure.c)
 * turn their 32 ray ends into.
 *
 * The caller owns every argument; nothing is kept.
 */
#ifndef FS_POLYGON_MOMENTS_H
#define FS_POLYGON_MOMENTS_H

typedef struct fs_poly_moments {
	double area;      /* > 0 for a counter-clockwise polygon */
	double gx, gy;    /* centroid, in the points' frame */
	double perimeter;
	double l1, l2;    /* eigenvalues of the second-moment matrix, l1 >= l2 >= 0 */
	double orientation; /* of the major axis, radians */
} fs_poly_moments;

/* The moments of the polygon (x[k], y[k]), k = 0..n-1, closed; coordinates
 * relative to a point near its centre (the ray origin), which keeps the sums
 * precise. Centroid and eigenvalues are meaningful only when area > 0. */
void fs_poly_moments_of(const double *x, const double *y, int n, fs_poly_moments *m);

#endif
