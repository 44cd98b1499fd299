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

#include <math.h>

/* Offset in [-0.5, 0.5] of the vertex of the parabola through (-1, a),
 * (0, b), (1, c); 0 when b is not a strict maximum (a NaN sample gives 0
 * too: the curvature test is written so that NaN fails it).
 *
 * Three samples on one line have no vertex: their curvature is zero and
 * its computed sign is the rounding's, which sent the offset to 0 or to
 * +-0.5 by the last bits of the samples. It happens by construction: the
 * bilinear samples of a ray inside one pixel's cell lie on a parabola, so
 * the dome rule's step magnitudes (differences of neighbouring samples)
 * there lie on a line (a diagonal ray at the 0.35-px step keeps five
 * samples in one cell). A whole-image reading and a crop's then differed
 * by half a step on such a ray (test_detect_tiled's pitch-14 domes). A
 * curvature within FS_PARABOLA_FLAT of the samples' size is taken as
 * none; b is then no strict maximum, so the offset is 0. */
#define FS_PARABOLA_FLAT 1e-9

static inline double fs_parabola_vertex(double a, double b, double c)
{
	double d = a - 2 * b + c;
	if (!(d < -FS_PARABOLA_FLAT * (fabs(a) + 2 * fabs(b) + fabs(c))))
		return 0;
	double o = 0.5 * (a - c) / d;
	return o < -0.5 ? -0.5 : o > 0.5 ? 0.5 : o;
}

#endif
