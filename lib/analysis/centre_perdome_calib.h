/*
 * centre_perdome_calib.h - the per-dome lit-side step (centre_perdome.h)
 * read on the image's fitted formation, where every centre is known, so
 * that its flag and its move come from the formation (issue 13 section 2;
 * docs/paper-figures.md, h52b). Not part of the public API (detect.h).
 *
 * Why: the per-dome step reads each dome's b (its lit base's offset from
 * the image's summed across-axis profile) and takes a dome whose b lies
 * more than max(1 px, 6 MADs) below the median as a centre that far
 * towards the detector, moving it by b less the median: it assumes that a
 * centre error of d px along the axis reads d px of b. Whether it does
 * depends on the formation: the lit flank's shading, the window's blur and
 * the neighbours' feet inside the window (at tight gaps h37q's right
 * domes read b -2.4 px). h51g showed the fitted formation's lattice,
 * rendered at known sites at the blur the image's across-axis profile
 * shows, carries the axis step's own bias; here the same lattice is read
 * by the per-dome step from its sites and from points moved towards the
 * detector by known distances: the slope of b against that distance (the
 * step's gain) and the spread of b over the sites' sub-pixel phases (the
 * step's floor on a clean dome). The flag is then judged and the move
 * made in px of centre error (b less the median over the gain), with the
 * floor in place of the fixed 1 px where it is larger.
 *
 * Process-wide switch (fs_centre_perdome_set_calib; FS_TEST_PERDOME_CALIB
 * for a test or bench, tests/unit/support/test_perdome_calib.c), off by
 * default (0): mode 1 calibrates the step behind its gates of today; mode
 * 2 also lets it run where only the gap or the base's size kept it off
 * (the neighbours' feet in the window, a base under 3 blurs), wherever
 * the calibration reads a gain; mode 3 is mode 2 with each dome's lit
 * profile read against its own across-axis profile (fs_centre_perdome_cal
 * .own) rather than the image's sum; mode 4 is mode 2 with a dome moved
 * only where both readings flag it (by the sum's reading). See
 * docs/paper-figures.md, h52b, for
 * why all four stay off: on the formations the step runs on today the
 * lattice reads a gain of -0.95..-0.99 and a floor of 0.02-0.14 px, so
 * the calibration is the fixed rule within 5 %; at tight gaps it reads a
 * gain of the wrong sign on the tall domes (+1.3..+2.8: the neighbours'
 * feet, not the centre, move b) and -0.6..-0.9 on the low ones.
 *
 * The caller owns every argument; nothing is kept.
 */
#ifndef FS_CENTRE_PERDOME_CALIB_H
#define FS_CENTRE_PERDOME_CALIB_H

#include "analysis/centre_axis.h"
#include "analysis/centre_perdome.h"
#include "analysis/dome_base_fit.h"
#include "analysis/dome_fit.h"

/* The switch; returns the previous mode (0 off, 1-4 above). */
int fs_centre_perdome_set_calib(int mode);
int fs_centre_perdome_calib_on(void);

/* The known moves towards the detector the lattice is read from (px, of
 * which the first is 0), so that the gain is the slope over a locked
 * centre's range (h37q: 1.9-3.2 px on interior scene 3). */
#define FS_CENTRE_PERDOME_CALIB_NMOVE 5
#define FS_CENTRE_PERDOME_CALIB_MOVE 0.75

/*
 * The per-dome step on formation f's lattice (t's templates, t built from
 * f; fs_dome_tpl_render) at fill, read with the per-dome geometry g
 * (fs_centre_perdome_geom) from the sites and from points moved towards
 * the detector: fills *cal (gain, floor, b0, ok; centre_perdome.h).
 * Returns 0 (cal->ok 0 where a site's b is no reading or the gain is not
 * negative); 1 when the lattice cannot be rendered; -1 on out of memory.
 */
int fs_centre_perdome_calib_read(const fs_dome_tpl *t, const fs_dome_fit *f, double fill,
				 const fs_centre_axis_geom *g, fs_centre_perdome_cal *cal);

#endif
