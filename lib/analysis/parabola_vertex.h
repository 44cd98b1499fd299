/*
 * parabola_vertex.h - the sub-sample position of a peak from three equally
 * spaced samples: the vertex of the parabola through them. The candidates'
 * sub-pixel offsets (detect_candidates.c), the lattice's autocorrelation
 * peak (lattice_estimate.c) and the dome rule's radii (dome_measure.c) all
 * read a peak this way; one definition keeps their clamping and their
 * "no strict maximum" case the same.
 *
 * Inline, because the dome rule calls it in its per-ray loops. No pointers.
 */
#ifndef FS_PARABOLA_VERTEX_H
#define FS_PARABOLA_VERTEX_H

/* Offset in [-0.5, 0.5] of the vertex of the parabola through (-1, a),
 * (0, b), (1, c); 0 when b is not a strict maximum (a NaN sample gives 0
 * too: the curvature test is written so that NaN fails it). */
static inline double fs_parabola_vertex(double a, double b, double c)
{
	double d = a - 2 * b + c;
	if (!(d < 0))
		return 0;
	double o = 0.5 * (a - c) / d;
	return o < -0.5 ? -0.5 : o > 0.5 ? 0.5 : o;
}

#endif
