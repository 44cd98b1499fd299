/*
 * centre_axis_calib.h - the axis step's own shift (centre_axis.h) read on
 * the image's fitted formation, where the truth is known, so that it can
 * be taken off the image's reading (issue 13 section 2; h51d, h51g in
 * docs/paper-figures.md). Not part of the public API (detect.h).
 *
 * Why: at tight gaps the step's window about each dome holds more than
 * that dome's base. Read from the TRUE centres of the simulator's
 * fill-0.8, pitch-16 scenes the step moves them by -0.09..-0.21 px on tall
 * domes (the neighbour ahead casts its shadow over the 3.2-px gap and the
 * lit foot) and by +0.06..+0.11 px on low spheres (the neighbours' feet
 * enter the window's outer end), where the right reading is 0; h37j's
 * shadow test cannot see the first (its ground beyond the window is the
 * neighbour's foot). Both are properties of the formation, which the
 * formation fit (dome_fit.h) and the templates' weights (dome_base_fit.h,
 * fs_dome_tpl_render) already hold per image: its lattice is rendered at
 * the domes' fill with its sites at known positions, read by the same
 * step (same axis, radius, blur and window), and the shift read there is
 * the step's own at this formation. Nothing is taken from any truth; one
 * method for every image.
 *
 * Only where the neighbours reach the window (fs_centre_axis_gap_resolved
 * 0): elsewhere the step was measured unbiased (h37j's oblique reading
 * covers the shadow there) and its bits stay.
 *
 * Process-wide switch (fs_centre_axis_set_calib; FS_TEST_AXIS_CALIB for a
 * test or bench, tests/unit/support/test_axis_calib.c), mode 2 by
 * default (docs/paper-figures.md, h51g). The lattice is rendered at the
 * blur the image's summed across-axis profile shows (fs_centre_axis.vblur)
 * where that is below the formation's, whose blur holds the first pass's
 * centres' scatter (dome_fit.h): at the formation's own blur (mode 1)
 * the low spheres' lattice read +0.12..+0.32 px where the step's bias is
 * +0.05..+0.15, and scene 23's the wrong sign; the band's all four on
 * the eight unscreened fill-0.8, pitch-16 corner scenes went 47 / 46 /
 * 46 -> 37 / 36 / 36 in mode 1 and -> 49 / 48 / 48 in mode 2. With the
 * simulator's own formation the lattice reads the bias to 0.01 px on the
 * low spheres and -0.16 of -0.21 px on the tall flat tops, so the forward
 * model carries it; what the fitted formation still misses (the tall
 * domes' shadow, the low flat tops' sign) is the fit's.
 *
 * The caller owns every argument; nothing is kept.
 */
#ifndef FS_CENTRE_AXIS_CALIB_H
#define FS_CENTRE_AXIS_CALIB_H

#include "analysis/centre_axis.h"
#include "analysis/dome_base_fit.h"
#include "analysis/dome_fit.h"

/* Sub-pixel phases of the rendered site per axis: NPH^2 renders, each read
 * once, so that the sum holds the phases an image's domes sit at (and at
 * least the step's 8 domes). */
#define FS_CENTRE_AXIS_CALIB_NPH 3

/* The switch; returns the previous mode. 0 off; 1 the lattice rendered
 * at the formation's blur; 2 (the default) at the blur the image's
 * summed across-axis profile shows (fs_centre_axis.vblur) where that is
 * smaller. */
int fs_centre_axis_set_calib(int mode);
int fs_centre_axis_calib_on(void);

/*
 * The step's reading on formation f's lattice (t's templates' weights,
 * t built from f; fs_dome_tpl_render) at fill, from its sites, with
 * geometry g at this pitch: *out as fs_centre_axis_estimate's (out->shift
 * the step's own shift where out->ok). Returns 0; 1 when the lattice
 * cannot be rendered (no templates, fill out of range); -1 on out of
 * memory.
 */
int fs_centre_axis_calib_read(const fs_dome_tpl *t, const fs_dome_fit *f, double fill, const fs_centre_axis_geom *g,
			      double pitch, fs_centre_axis *out);

#endif
