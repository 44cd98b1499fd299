/*
 * frame_bar.h - the blur a simulated scene's scale bar shows: its edge
 * profile fitted by a blurred bar (h42l's bench_frame_edge_blur, and
 * bench_screened_blur_read's "bar" column, h43e: one fit, so the two
 * benches' columns are the same number).
 *
 * Ownership: the image is the caller's; nothing is kept.
 */
#ifndef FRAME_BAR_H
#define FRAME_BAR_H

#include "image/image.h"
#include "sem_sim.h"

/* The sigma (px) of the Gaussian, sampled on the pixel lattice
 * (fs_gaussian_blur's kind; 0 the bar itself), that best turns the bar's
 * 4 rows into its profile on img: rows H-32 .. H-13 averaged over the
 * middle half of the bar's columns, fitted with the background and the
 * height solved linearly, sigma searched 0-3 px in 0.005 steps. The
 * frame's left border is scene o's (sem_sim.c draws the bar there); img
 * has the scene's size. *rms (may be NULL) gets the fit's residual RMS.
 * NAN (and *rms NAN) where the scene has no frame wide enough. */
double frame_bar_sigma(const fs_image *img, const sem_opts *o, double *rms);

#endif
