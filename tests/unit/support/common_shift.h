/*
 * common_shift.h - h43a's fit of the dome rule's centres' common shift,
 * jointly with the templates' mix and the blur, on the mean patch about
 * the centres (issue 13; docs/paper-figures.md, h43a): every trial builds
 * the templates afresh about the moved centres (fs_dome_tpl_build: the mix
 * solved by least squares there) and scores the mean patch's residual
 * share at its best fill. Shared by bench_common_shift (which applies the
 * shift and re-measures) and bench_blur_fine_read (which holds the fine
 * blur read's offset at it, h44k), so both read the same shift.
 *
 * The search: a 2-D grid of +-1.0 px in 0.25 steps at the formation's own
 * blur, the blur 0.40-2.00 px in 0.08 steps there, the shift again on a
 * 0.05-px grid of +-0.15 px at that blur, the blur again in 0.02 steps of
 * +-0.08 px (about 190 template builds). The gain is judged against the
 * same blur search with the centres unmoved (so the blur alone earns
 * nothing), in units of the mean patch's own noise: the per-point variance
 * of the patches averaged into it over their count, summed and taken as a
 * share of the mean patch's variance - what a misfit of pure noise would
 * be.
 *
 * Ownership: the trial's pointers are the caller's (mx, my: scratch of n
 * each the fit writes); nothing is kept between calls.
 */
#ifndef COMMON_SHIFT_H
#define COMMON_SHIFT_H

#include <stddef.h>

#include "analysis/dome_base_fit.h"
#include "image/image.h"

/* The gain (the misfit's drop over the blur's alone, above) a shift must
 * show, in noise shares, before it would be applied. Set on the scenes of
 * h43a's table (docs/paper-figures.md): the moves that go the wrong way or
 * nowhere (the low spheres E 0 and 16: +0.39..+0.42 px on 16 for an
 * offset of +0.58..+0.60) gain 0.0-1.3 noise shares, the tall 4-px domes'
 * right moves 6.6-68; 3 refuses every one of the former on groups A and
 * E. Not on B1's scene 5, where the forward model's own bias moves
 * centres that are home by 0.15-0.25 px at gains of 6-16. */
#define COMMON_SHIFT_GAIN_FLOOR 3.0

/* What the fit works on: the mean patch of img about (xs, ys), the
 * formation f0 (its blur the search's start), the fill the templates are
 * built at; builds counts the template builds made. */
typedef struct common_shift_trial {
	const fs_image *img;
	const fs_dome_fit *f0;
	const double *xs, *ys;
	double *mx, *my;
	size_t n;
	double fill;
	long builds;
} common_shift_trial;

typedef struct common_shift {
	double dx, dy, blur, mis;  /* the joint best: the centres' move (px), its blur, its misfit */
	double blur0, mis0, noise; /* the centres unmoved, their best blur; the noise share there */
} common_shift;

/* The misfit of the templates built about the centres moved by (dx, dy)
 * with the formation's blur set to bl; *noise (if not NULL) gets the mean
 * patch's noise share. INFINITY where no templates are made. */
double common_shift_misfit(common_shift_trial *w, double dx, double dy, double bl, double *noise);

/* The joint fit (above) into *j; the unmoved fit is one of its limits, so
 * j->mis <= j->mis0 and the gain is j->mis0 - j->mis. */
void common_shift_fit(common_shift_trial *w, common_shift *j);

#endif
