/*
 * centre_axis.h - the dome rule's centres moved along the detector's axis
 * by their common shift from the dome centres, read from where the lit
 * side's base lies against the unlit sides' (issue 13 section 2). Not
 * part of the public API (detect.h).
 *
 * Why: a side detector lights the half of a dome that faces it, so the
 * dome's image is asymmetric along the detector's azimuth, and the dome
 * rule's final centres (the template fit's, detect_base_fit.h) sit up to
 * 0.3 px (flat-topped) and 0.9-1.15 px (tall spheres) away from the
 * detector at fill 0.8, pitch 16 of the simulator, where the level's base
 * reading from them then reads D 4-22 % large (docs/paper-figures.md,
 * h24d and h30f). The formation fit (dome_fit.h) fitted at such centres
 * renders the shift as a stronger side-detector weight or another h/R or
 * profile (side weight 1.4 instead of 0.73, h/R 0.7 instead of 0.25 in
 * scene 3), and the templates of that formation put the centres back at
 * the bias even when started at the true centres: the shift and the
 * shading are one degree of freedom for a fit of the whole patch.
 *
 * What the shading does not move is the base's outline. Across the
 * detector's axis (the azimuth +- 90 degrees) a dome's image is symmetric
 * about the axis through its centre, so a centre moved along the axis
 * sees the base there as far as the true centre does (to second order);
 * along the axis towards the detector the lit side shows the same base
 * edge, brighter. So the mean profile over the domes along the lit
 * direction, P_u(r), is the mean profile across the axis, P_v(r) (both
 * sides averaged), shifted by the centres' error along the axis and
 * scaled by the lighting: P_u(r) = e + a P_v(r - b), e and a by least
 * squares, b by a scan (0.01 px) within a tenth of the pitch; the dome
 * centres are b px ahead of the given ones along the axis. Fitted within
 * two blurs of the median base radius r0 (where the base's step is; the
 * lit flank's inner brightening lies further in). The azimuth is the
 * formation fit's (dome_fit.h: its slope weights; within 7 degrees on the
 * corner scenes even at biased centres) or its opposite: at centres
 * locked 2-5 px onto the lit flank of low domes (h/R 0.25, fill 0.4-0.7,
 * pitch 28-48) that fit turned it by 170-190 degrees in 6 of 46 scenes,
 * and the shift read on the shadowed side moved the centres further off
 * (h35c; fill 0.5, pitch 40: D -35.9 %). The lit side is
 * the brighter one, so a third profile is read along the opposite
 * direction and, where its mean over [0, r0] is brighter than the
 * profile along the azimuth, it is taken as P_u and the azimuth turned
 * by 180 degrees (fs_centre_axis.az, .reversed). On the corner scenes
 * the side along the azimuth is the brighter (their tables unchanged).
 *
 * No shift (ok 0) for a base of fewer than 3 blurs (as the base rule's
 * small bases, dome_measure.c: the lit side is then the whole dome's
 * shading, not an edge; at fill 0.25, pitch 16 the reading went 0.3-0.8
 * px wrong). The blur is the formation fit's, which also holds the
 * detected centres' scatter (dome_fit.c) and so can call a resolved base
 * shading: low spherical caps (h/R 0.25) at fill 0.5-0.6, pitch 32-40,
 * whose first centres lock onto the lit flank 3-4 px towards the
 * detector, fit 0.1 pitch (3.2-4.2 px) against the image's 1 px, and the
 * base rule's median radius from those centres is 0.6-0.8 of the true
 * one; the level then read D 20-34 % small (h34i). So where that blur
 * shuts the step, the across-axis mean profile P_v (the shading along
 * the axis does not move it) is asked: the radius of its steepest step
 * is r0 and the half-width of that step's slope the blur; when that
 * blur is smaller and the base at least 3 of it, the shift is read at
 * them, the scan reaching as far as the profiles read hold (at most 0.2
 * pitch: such centres sit more than 0.1 pitch off). With fewer than 8
 * domes read, when the best b lies at an end
 * of the scan, or when the fit leaves more than 1 % of P_u's variance
 * around the base (the lit side is then not the sides' edge: 1.2 and 1.8 %
 * in the two scenes of the simulator's 64 where it read 0.4 and 1.5 px
 * wrong, at most 0.8 % elsewhere).
 *
 * A neighbour's cast shadow on the lit side (h37j): where a neighbour
 * stands near the axis ahead of each dome and the shadows are longer than
 * the gaps (tall domes at fill 0.8, pitch 64 of the simulator: a 37-px
 * shadow over 12.8-px gaps), its shadow covers the ground up to the lit
 * base and climbs the base's foot, so the lit side's bright flank ends
 * short of the base and the shift read along the axis moved the centres
 * 0.3-0.8 px away from the detector (corner scenes 37, 39, 55; from the
 * true centres -0.3 to -0.4 px, -0.03 where that neighbour was missing).
 * Flat ground is as bright on every side but in a shadow, so the lit
 * side's ground just beyond the window (GROUND of the pitch) is compared
 * with the across-axis ground; where the gap holds that ground clear of
 * the neighbour's foot and it reads darker than SHADOWED of it, the shift
 * is read along the nearest oblique direction (30, 45, 60 degrees either
 * side of the axis; both sides summed where both are clear) whose ground
 * is not shadowed, the base there moving by cos(angle) of the shift
 * (.shadowed, .oblique); no shift when every one is shadowed. Not where
 * the lit side was reversed or the formation's blur shut the gate (their
 * scenes show no such shadow).
 *
 * Tile by tile (detect_domes_tiled.c): each dome's profiles are read on
 * its tile's crop (fs_centre_axis_profile, its own slots) and summed in
 * the domes' order (fs_centre_axis_estimate), as the whole-image path
 * sums them.
 *
 * The caller owns every argument; nothing is kept.
 */
#ifndef FS_CENTRE_AXIS_H
#define FS_CENTRE_AXIS_H

#include <stddef.h>

#include "image/image.h"

/* The oblique directions beside the axis each dome's profiles also read
 * (at + and - each angle) for a lit side in a cast shadow. */
#define FS_CENTRE_AXIS_OBLIQUE 3

/* Where the profiles are read: along azimuth az (radians, image x towards
 * y) and across it, ns samples of step px from the centre out. */
typedef struct fs_centre_axis_geom {
	double az, r0, sigma, win, step;
	int ns;
	int pair; /* 1: only the profiles along and across the axis (2 ns samples a
		   * dome: the per-dome reading, centre_perdome.h, needs no more;
		   * fs_centre_axis_estimate needs them all, 0) */
	int vblur; /* 1: the estimate reads fs_centre_axis.vblur where its reading is ok, at
		    * this blur and not reversed (the caller that calibrates the reading asks;
		    * fs_centre_axis_geom_of: 0) */
} fs_centre_axis_geom;

typedef struct fs_centre_axis {
	int ok;            /* 1 when the shift below is to be applied */
	size_t used;       /* domes whose profiles were summed */
	double shift;      /* b above, px along the axis */
	double residual;   /* share of P_u's variance the fit leaves */
	double dx, dy;     /* the dome centres minus the given centres, px */
	int end;           /* the best shift lies at an end of the scan */
	double az;         /* the axis the shift is along (radians): the geometry's, */
	int reversed;      /* or (1) its opposite, the brighter side */
	double win;        /* the match's window, px either side of the base read */
	double ground;     /* the lit side's ground over the across-axis ground (0: not read) */
	int shadowed;      /* 1: that ground lies in a cast shadow (read clear of the neighbours) */
	double oblique;    /* degrees: the shift read that far beside the axis (0: on it) */
	int own;           /* 1: read at P_v's own base and blur (the formation's blur shut the gate) */
	int again;         /* 1: read again from the centres the first reading moved them to (the
			    * centres lay far off: beyond the window, or own; fs_det_base_axis_find) */
	double r0;         /* the base radius the match was read about (own: P_v's), px */
	double vblur;      /* the blur the summed across-axis profile shows at its steepest step
			    * (px; NAN: not read, or not asked for: fs_centre_axis_geom.vblur) */
	double calib;      /* the shift the step read on the formation's own lattice from its
			    * known sites and took off shift (centre_axis_calib.h; 0: none) */
} fs_centre_axis;

/* The geometry for a detector at azimuth az, domes of median base radius
 * r0 and blur sigma (px) on a lattice of the given pitch. */
void fs_centre_axis_geom_of(double az, double r0, double sigma, double pitch, fs_centre_axis_geom *g);

/* The length of one dome's profiles (fs_centre_axis_profile), samples:
 * 2 ns for a pair geometry. */
size_t fs_centre_axis_len(const fs_centre_axis_geom *g);

/* How far from a centre its profiles read (px): a centre that far inside
 * the image (or crop) reads only its pixels. */
double fs_centre_axis_reach(const fs_centre_axis_geom *g);

/* One dome's profiles at (x, y) of img: prof[0..ns) along the axis,
 * prof[ns..2 ns) across it (both sides' mean), prof[2 ns..3 ns) against
 * it, then along az + and - each oblique angle in turn (2
 * FS_CENTRE_AXIS_OBLIQUE profiles; fs_centre_axis_len in all); for a
 * pair geometry (g->pair) the first two only, the same samples. */
void fs_centre_axis_profile(const fs_image *img, double x, double y, const fs_centre_axis_geom *g, double *prof);

/* How well a shift b along the axis explains profile pu by profile pv
 * (both fs_centre_axis_geom's samples, from fs_centre_axis_profile): the
 * residual share of pu after e + a pv(r - c b) over the base's window,
 * c the cosine of pu's direction to the axis (1 on it); INFINITY where
 * the window holds too few samples or either is flat. The estimate
 * below scans it; a per-dome reading (tests/bench/bench_axis_perdome.c)
 * calls it directly. */
double fs_centre_axis_match(const double *pu, const double *pv, const fs_centre_axis_geom *g, double b, double c);

/* Whether the step's window (r0 + win either side of each dome) and the
 * ground beyond it stay clear of the neighbours' feet at this pitch: h37j's
 * gate for reading a cast shadow on that ground (centre_axis.c). Where it
 * is 0 the neighbours' feet and shadows enter the window
 * (centre_axis_calib.h). */
int fs_centre_axis_gap_resolved(const fs_centre_axis_geom *g, double pitch);

/* a->dx, a->dy: the move of a->shift px along a->az (the estimate's where
 * ok; its caller's where it takes a shift that is not, or calibrates one:
 * detect_base_fit.c). */
void fs_centre_axis_set_move(fs_centre_axis *a);

/* The shift from the n domes' profiles (profs: n x fs_centre_axis_len,
 * in order; NAN in a dome's first sample leaves it out), fills out.
 * Returns 0, -1 on out of memory. */
int fs_centre_axis_estimate(const double *profs, size_t n, const fs_centre_axis_geom *g, double pitch,
			    fs_centre_axis *out);

#endif
