/*
 * lattice_judged.h - the lattice method's recovered sites on two paper
 * figures judged by eye (h35g, docs/paper-figures.md "2026-11-29 (h35g)"),
 * and how one detection agrees with them: written once for
 * test_lattice_sites_real (which asserts the agreement on the whole
 * figures) and bench_lattice_sites (which counts it on one-pixel crops).
 *
 * A real tubercle is a dome of the image (cap and shadow or rim, of the
 * first pass's size) where the lattice puts one and no first-pass
 * detection covers it; not real is a site on ground between domes, on a
 * ridge, a crack or a speck, over a first-pass dome's flank (centre
 * within ~0.6 pitch of it), or in the caption band or margin. The lists
 * hold the sites judged not real that h34j's likeness check removes and
 * the sites judged real that it keeps; sites judged unclear are in
 * neither, nor are P2 Fig1c's six kept sites judged not real (the check
 * is not strict enough for them) and P1 Fig2's one removed real dome (its
 * disc holds the caption band's edge). Positions are the measured centres
 * rounded to the pixel, in the figure's own pixels.
 *
 * Ownership: static data; lattice_judged_check fills the caller's struct.
 */
#ifndef LATTICE_JUDGED_H
#define LATTICE_JUDGED_H

#include <stddef.h>

#include "image/tubercle.h"

typedef struct judged_site {
	double x, y;
} judged_site;

typedef struct judged_figure {
	const char *file;   /* under tests/fixtures/paper/ */
	double pitch;       /* the lattice's pitch on it (px), for the match radius */
	const judged_site *gone;
	size_t n_gone;
	const judged_site *real;
	size_t n_real;
} judged_figure;

/* P2 Fig1c and P1 Fig2, in that order. */
extern const judged_figure lattice_judged[2];

/* How a detection T (the figure's image shifted by (-dx, -dy): cropped by
 * dx columns at the left and dy rows at the top) agrees with f: a site is
 * "there" when a tubercle lies within 0.15 pitch of it (a judged-not-real
 * site counts only when that tubercle is one the lattice recovered). */
typedef struct judged_agreement {
	size_t back;     /* judged not real, recovered */
	size_t lost;     /* judged real, missing */
	judged_site back_at[32], lost_at[8]; /* the first of them, figure's px */
} judged_agreement;

void lattice_judged_check(const judged_figure *f, const fs_tubercle_list *T, int dx, int dy,
			  judged_agreement *out);

#endif
