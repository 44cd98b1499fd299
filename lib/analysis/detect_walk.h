/*
 * detect_walk.h - the dome rule's candidates walked onto the domes'
 * centres by the formation's offset, for printed images whose screen is
 * coarse against the lattice (issue 13, h46c). An option: fs_meas.walk,
 * which no caller in lib sets (detection keeps h44d's two paths and
 * h45d's look again); bench_cand_offsets --walk measures it.
 *
 * Why (docs/paper-figures.md, h46c): the candidates sit towards the
 * detector by the votes' own bias (the votes' gradient lines meet nearer
 * the lit flank where blur, noise or a screen's residual weakens the
 * other edges; a 5-px screen, aliased by the reduction and not found on
 * the reduced image, moves them as 3 px of blur does: +3.0 px against
 * +1.9 without it on the printed interior), the template peaks keep the
 * seeds' offset to 0.05 px, and the first pass's refinement takes even
 * centred candidates back to +2.8 px. No image-alone centre criterion
 * tried is free of it; the formation fit is: from centred candidates it
 * reads about nothing (-0.4 px), from the candidates about 0.6 of their
 * offset. So the offset is read, all candidates moved by it, and read
 * again, until it stays; the rule then runs its unrefined path from
 * there (printed interior at 5 px, 8 seed sets: see the section).
 *
 * fs_det_walk_shift: from c's candidates (full-resolution px) moved by
 * the shift so far, each measured without the refinement at `smooth`
 * (fs_det_measure_dome_one into meas, the caller's scratch of c->n, left
 * holding the last step's measurement), flat ground dropped, the
 * formation's offset read (fs_det_offset_correct, m as given but with no
 * refinement); the step is taken (every candidate moved by it) unless
 * the fit failed or it is longer than the step before (a walk that does
 * not converge stops where it was); at most FS_DET_WALK_STEPS steps, the
 * last under FS_DET_WALK_STOP px. The summed shift (full-resolution px)
 * into (*sx, *sy), the steps taken into *steps (may be NULL).
 * Returns 0, -1 on out of memory.
 *
 * Ownership: reads m's images and c; writes meas and the outputs.
 */
#ifndef FS_DETECT_WALK_H
#define FS_DETECT_WALK_H

#include "analysis/detect_measure.h"

#define FS_DET_WALK_STEPS 6
#define FS_DET_WALK_STOP 0.1

int fs_det_walk_shift(const fs_meas *m, const fs_cand_list *c, double max_r, double smooth, fs_measured *meas,
		      double *sx, double *sy, int *steps);

#endif
