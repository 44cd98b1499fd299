/*
 * detect_walk.h - the dome rule's candidates walked onto the domes'
 * centres by the formation's offset, for printed images whose screen is
 * coarse against the lattice (issue 13, h46c, h47b):
 * fs_meas.walk, which detection sets from fs_det_walk_set (process-wide,
 * mode 2 by default since h51f); bench_cand_offsets --walk measures it.
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
 * fs_det_walk_shift_by: from c's candidates (full-resolution px), moved by
 * the shift so far, the caller's reader measures them without the
 * refinement, drops flat ground and reads the formation's offset
 * (fs_det_walk_reader); the step is taken (every candidate moved by it)
 * unless the fit failed or it is longer than the step before (a walk
 * that does not converge stops where it was); at most FS_DET_WALK_STEPS
 * steps, the last under FS_DET_WALK_STOP px. The summed shift
 * (full-resolution px) into (*sx, *sy), the steps taken into *steps (may
 * be NULL). The whole image's walk (fs_det_walk_shift) and the tiled one
 * (detect_domes_tiled.c) are this loop with their own reader, so they
 * walk alike to the bit: each step moves the candidates by the reading
 * (their coordinates summed step by step, as read), the final shift is
 * the readings' sum.
 * Returns 0, -1 on out of memory (or the reader's -1).
 *
 * fs_det_walk_shift: the whole image's reader: each candidate measured
 * by fs_det_measure_dome_one (refine 0, the ray smoothing `smooth`) into
 * meas (the caller's scratch of c->n, left holding the last step's
 * measurement), flat ground dropped on its own floor, the offset read by
 * fs_det_offset_read (m as given but with no refinement).
 *
 * Ownership: reads m's images and c; writes meas and the outputs.
 */
#ifndef FS_DETECT_WALK_H
#define FS_DETECT_WALK_H

#include "analysis/detect_measure.h"
#include "analysis/detect_offset.h"

#define FS_DET_WALK_STEPS 6
#define FS_DET_WALK_STOP 0.1

/* read: w's candidates (full-resolution px) measured without the
 * refinement, flat ground dropped on their own floor, and the formation's
 * offset read from them into *off (m's pixels, the fit's own report);
 * *meas (may be left NULL) the w->n measurements it fitted, for the
 * trace. 0, or -1 (out of memory, or the caller's own failure). F: the
 * measurement image's reduction (the offset times F is full-resolution
 * px). */
typedef struct fs_det_walk_reader {
	int (*read)(void *ctx, const fs_cand_list *w, fs_det_offset *off, const fs_measured **meas);
	void *ctx;
	double F;
	/* the first pass's measurement of the c->n candidates the walk
	 * starts from (may be NULL): the trace's first_r */
	const fs_measured *first;
} fs_det_walk_reader;

int fs_det_walk_shift_by(const fs_det_walk_reader *r, const fs_cand_list *c, double *sx, double *sy, int *steps);

int fs_det_walk_shift(const fs_meas *m, const fs_cand_list *c, double max_r, double smooth, fs_measured *meas,
		      double *sx, double *sy, int *steps);

/* Detection's fs_meas.walk (detect.c) for the process, as
 * fs_det_offset_set_walk: 0 off, 1 on, 2 (h48n; the default since h51f)
 * on and the walked candidates' level read on the low-passed image
 * without the far rays (fs_meas.ridge_lit; h48i's reader, there only: on
 * every screened reading it loses corner scenes), whole image and tiles
 * alike. Mode 2 was held off until h51f: without the lit cap
 * (fs_dome_set_lit_cap, dome_measure.h) test_offset_refused's printed
 * scene 4 (+4000) read D -5.5 % under it (bound 5 %; the near-half
 * circle's radius reads what the side feet read); with the cap at 0.9 px
 * -4.7 %. FS_TEST_CAND_WALK=0/1/2 sets it in every unit test and bench
 * (tests/unit/support/test_cand_walk.c). */
void fs_det_walk_set(int on);
int fs_det_walk_get(void);

/*
 * An instrument (bench_cand_offsets --walk-trace, h47b): each formation
 * reading of the walk, where it was made and what it read. Set a trace
 * with fs_det_walk_set_trace (process-wide, one thread: benches only;
 * NULL, the default, for none); every walk then starts it again (n = 0)
 * and appends one step per reading, the last reading included whether or
 * not its step was taken. The trace is the caller's.
 */
typedef struct fs_det_walk_step {
	double sx, sy;    /* where it was read: the shift so far, full-resolution px */
	double dx, dy;    /* the offset the formation read there, full-resolution px */
	int fitted;       /* 0: the fit did not run (dx, dy 0) */
	double quality;   /* the formation's R^2 */
	double fill, h_over_r, blur_px, side; /* its dome and detector */
	double mean_r;    /* the measured bases' mean radius there, full-resolution px */
	double first_r;   /* the first pass's (the refined path's, before the walk)
			   * mean radius, full-resolution px; NAN when not given */
	size_t n_ok;      /* the candidates measured as domes there */
} fs_det_walk_step;

typedef struct fs_det_walk_trace {
	/* set by the caller: > 0, at most that many steps taken (where
	 * each stop would leave the rule); 0: the walk's own */
	int max_steps;
	int n;
	fs_det_walk_step step[FS_DET_WALK_STEPS];
} fs_det_walk_trace;

void fs_det_walk_set_trace(fs_det_walk_trace *t);

#endif
