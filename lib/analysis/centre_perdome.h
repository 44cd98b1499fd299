/*
 * centre_perdome.h - the dome rule's centres locked onto a dome's lit
 * flank, told and moved one dome at a time after the axis step's common
 * shift (centre_axis.h; issue 13, docs/paper-figures.md h37q and h38l).
 * Not part of the public API (detect.h).
 *
 * Why: on low domes (h/R 0.25, fill 0.6, pitch 40 of the simulator:
 * interior scene 3) some first centres lock onto the lit flank, 1.9-3.2 px
 * towards the detector, while the rest of the image's centres are right.
 * The axis step moves every centre by one common shift, so it cannot move
 * those alone, and the level then reads their bases from off-centre
 * points (S +5 %). Each dome's own lit-side profile is matched against the
 * image's mean across-axis profile P_v (centre_axis.c's match, e + a
 * P_v(r - b) within two blurs of the median base radius r0; b scanned
 * within PERDOME_REACH of r0, a b at either end of the scan no reading):
 * a centre locked on the lit flank sees its lit base nearer than the
 * others do, b negative. A dome whose b lies more than max(1 px, K median
 * absolute deviations) below the image's median b is moved by b less the
 * median along the axis; every other dome stays.
 *
 * By its own numbers the test overlaps the right domes of tall fill-0.8
 * scenes at pitch 64 (their b scatter more: h37q), so it only runs behind
 * the axis step's own gates, which the caller applies
 * (detect_base_fit.c): the step itself ok, its lit side neither reversed,
 * shadowed nor read at P_v's own blur; no screen; a base of at least 3
 * blurs; and a gap between the bases that holds the lit ground clear of
 * the neighbour's foot.
 *
 * The caller owns every argument; nothing is kept.
 */
#ifndef FS_CENTRE_PERDOME_H
#define FS_CENTRE_PERDOME_H

#include <stddef.h>

#include "analysis/centre_axis.h"

/* The geometry of fs_centre_axis_geom_of for the per-dome reading: its
 * profiles long enough for a dome's b anywhere in the scan, and only the
 * pair along and across the axis read (g->pair). */
void fs_centre_perdome_geom(double az, double r0, double sigma, double pitch, fs_centre_axis_geom *g);

/* From the n domes' profiles (profs: n x fs_centre_axis_len(g), from
 * fs_centre_axis_profile at g; NAN in a dome's first sample leaves it
 * out), each dome's move along the axis into shift[k] (px; 0 for a dome
 * not flagged). Returns the number of domes flagged (0 with fewer than
 * FS_CENTRE_PERDOME_MIN readings), -1 when out of memory. */
#define FS_CENTRE_PERDOME_MIN 8
int fs_centre_perdome_shifts(const double *profs, size_t n, const fs_centre_axis_geom *g, double *shift);

/* The step as its formation reads it (centre_perdome_calib.h): gain the
 * slope of b against a centre's move towards the detector (-1 where b
 * reads the move as it is), floor the spread of b over a clean lattice's
 * sub-pixel phases in px of centre, b0 the sites' median b. */
typedef struct fs_centre_perdome_cal {
	int ok;
	double gain, floor, b0;
	/* 1: each dome's lit profile matched against its own across-axis
	 * profile instead of the image's sum, so that a dome's own size
	 * (the simulator's 4 % radius jitter: about 1 px at pitch 64) does
	 * not read as a centre's error (h52b's mode 3); 2: flagged by the
	 * sum and by its own profile both, moved by the sum's (mode 4) */
	int own;
} fs_centre_perdome_cal;

/* As fs_centre_perdome_shifts, judged and moved in px of centre through
 * cal where cal->ok: a dome is flagged where (b less the median) / gain
 * exceeds max(1 px, floor, K MADs / |gain|) and moved back by it; with
 * cal NULL or not ok the same bits as fs_centre_perdome_shifts. */
int fs_centre_perdome_shifts_cal(const double *profs, size_t n, const fs_centre_axis_geom *g,
				 const fs_centre_perdome_cal *cal, double *shift);

/* One dome's b: its lit profile pu (fs_centre_axis_profile's first ns
 * samples) matched against pv within reach px (the step's scan); NAN at
 * an end of the scan or where no match is finite. */
double fs_centre_perdome_b(const double *pu, const double *pv, const fs_centre_axis_geom *g, double reach);

/* The scan's half range, of r0 (fs_centre_perdome_b's reach). */
#define FS_CENTRE_PERDOME_REACH 0.4

#endif
