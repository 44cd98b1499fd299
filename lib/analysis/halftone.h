/*
 * halftone.h - finding and removing the screen of a printed (halftone)
 * figure, once per image, before the dome bases are measured (issue 13).
 *
 * Why: a figure printed through a halftone screen and scanned carries a
 * periodic dot pattern (period 3-6 px at the scan resolution) whose dot
 * edges are stronger than the dome bases; along the measurement's rays
 * they are steps at every period. The screen is a pair of perpendicular
 * line gratings, so its spectrum has four sharp peaks 90 degrees apart at
 * 1/period, far above the spectrum around them; a hexagonal lattice of
 * tubercles has six peaks 60 degrees apart and no 90-degree partner.
 *
 * Detection: the power spectrum of a Hann-windowed centred crop (power of
 * two, at most 256 px: 32 periods of the coarsest screen); the strongest bin at periods 2.5-8 px must stand
 * at least FS_HALFTONE_MIN_RATIO times above the median power of its ring,
 * and so must the strongest bin near the same bin turned by 90 degrees;
 * and the strongest bin near it turned by 60 or by 120 degrees must stay
 * below FS_HALFTONE_MAX_SIXFOLD times the weaker of those two. Why the
 * last (h35j): the lattice's harmonics (m b1 + n b2, b1 and b2 its
 * reciprocal vectors) fill the band 2.5-8 px, and those of the shell
 * |m b1 + n b2| = sqrt(13) |b1| come twelve to a ring at 60k +- 13.9
 * degrees, two of them 87.8 degrees apart: a 90-degree pair within the
 * partner's 2 bins. At pitch 28 that ring lies at 6.7 px (24.2 px /
 * sqrt 13), and on two unscreened interior scenes of test_sem_accuracy
 * (fill 0.4 / 0.7, h/R 0.25 / 0.5) it stood 51 and 74 times above its
 * ring's median: a screen found on an image without one. Every harmonic
 * has six-fold partners (the lattice's symmetry); a screen's peak has
 * four-fold ones only. The strongest 60/120-degree partner against the
 * weaker of the 90-degree pair: 0.72 and 0.79 on those two false screens;
 * at most 0.031 on the 64 printed corner scenes (both seed sets), 0.155
 * on the screened paper figures (P1 Fig1, Fig4, Fig6: 0.155, 0.038,
 * 0.128, their screens at 0 / 90 degrees, not 45); the threshold is about
 * their geometric middle.
 * Removal (dome_measure.c): a Gaussian low-pass of sigma 0.3 x period,
 * which leaves 17 % of the screen's fundamental (exp(-2 pi^2 0.3^2)) and
 * less of its harmonics; 0.45 x period (2 % left) also fills the gaps of
 * 3 px between close domes at pitch 16 and was worse on the simulator
 * (mean D within 3 % from the true centres in 15 of 64 scenes against 19).
 * The blur it adds is part of the image's effective blur that the base
 * rule corrects for.
 *
 * The caller owns every image. fs_halftone_detect keeps a copy of the
 * last crop it read (256 KB at most, under a lock) with its answer, and
 * answers a crop equal to it to the bit without reading it again (the
 * dome rule asks twice about one image, halftone.c).
 */
#ifndef FS_HALFTONE_H
#define FS_HALFTONE_H

#include <stddef.h>

#include "image/image.h"

#define FS_HALFTONE_MIN_RATIO 40.0
/* the strongest bin near the peak turned by 60 or 120 degrees, at most
 * this times the weaker of the 90-degree pair (a lattice harmonic's
 * six-fold partners, above) */
#define FS_HALFTONE_MAX_SIXFOLD 0.33
/* sigma of the low-pass that removes a screen, per px of period */
#define FS_HALFTONE_LOWPASS 0.3

/*
 * The halftone period of img in px (*period), 0 when there is no screen (or
 * the image is smaller than 64 x 64). *ratio (may be NULL) gets the weaker
 * of the two peaks' ratios to their rings' median power (0 when not
 * measured). Returns 0, -1 on out of memory.
 */
int fs_halftone_detect(const fs_image *img, double *period, double *ratio);
/* The side n of the centred crop fs_halftone_detect reads on a w x h
 * image, its corner in (*x0, *y0); 0 when it reads none (smaller than
 * 64 x 64). The detection on that crop alone is the image's. */
int fs_halftone_crop(int w, int h, int *x0, int *y0);

#endif
