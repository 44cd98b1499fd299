/*
 * dome_votes.h - the dome rule's circle votes (detect_auto.c explains what
 * they vote for) over any rectangle of the image, from a window of the
 * smoothed image, so the candidate step can run on the whole image, on
 * row bands of it, or tile by tile (detect_cand_domes.h), with the same
 * values to the bit.
 *
 * Why a rectangle gives the whole image's values: a pixel of the vote
 * layers receives the votes of every voter within the largest radius (plus
 * rounding), in raster order of the voters; the rectangle's layers, widened
 * by the layers' blur radius, receive the votes of the voters around them
 * in that same order, and the blur (separable, clamped at the layer's
 * edges) reads only samples inside the layer for the rectangle's pixels.
 * The gradient mean that sets who votes is an image-wide sum, added in
 * raster order one run of rows at a time (fs_dome_grad_add).
 *
 * Ownership: every pointer is the caller's; nothing is kept.
 */
#ifndef FS_DOME_VOTES_H
#define FS_DOME_VOTES_H

#include <stddef.h>

/* The smoothing (px of the image voted on) of the image the votes are
 * cast on, given the pitch (px of that image), the halftone period found
 * on it (halftone.h, 0 for none) and its reduction f from the input. */
double fs_dome_smoothing(double pitch, double period, int f);

/* The blur (px) of the vote layers for a pitch (px). */
double fs_dome_votes_blur(double pitch);

/* Adds to acc, in raster order, |gx| + |gy| (central differences) of the
 * n rows starting at rows (w pixels each, stride w), their pixels 1 ..
 * w - 2; rows[-w .. -1] and the row after the last must be readable. The
 * image's gradient mean is the sum over its rows 1 .. h - 2, divided by
 * (w - 2) (h - 2). Returns the new sum. */
double fs_dome_grad_add(const float *rows, int w, int n, double acc);

/*
 * The votes' window (h41d, issue 13's cost). The votes only seed the mean
 * dome (detect_auto.c): its patch is the mean over the prominent vote
 * peaks, and past a few hundred domes more seeds change that mean by
 * less than the noise of one patch. Casting the votes over every pixel of
 * a large image (16 layers, a Sobel and 34 votes an edge pixel: 341 M
 * instructions of the 2048 x 1536 lattice's detection) buys nothing the
 * template needs. So where the image holds more than FS_DOME_VOTES_CELLS
 * pitch cells (w h / pitch^2), the seeds are the peaks of the votes of a
 * centred window of about that many cells, the image's aspect kept (the
 * vote values there the whole image's: fs_dome_votes_rect), found in the
 * window as an image of its own; the correlation with the mean dome is
 * still made over the whole image, and its peaks are the candidates. An
 * image of at most that many cells (every simulator scene, at most 750
 * cells, and paper figure) votes over all of it, as before.
 * fs_dome_votes_window: 1 and the window [x0, x1) x [y0, y1) of a w x h
 * image at pitch (px of that image) when it applies, else 0 (the whole
 * image in the rectangle).
 */
#define FS_DOME_VOTES_CELLS 1024
int fs_dome_votes_window(int w, int h, double pitch, int *x0, int *y0, int *x1, int *y1);
/* The bound in cells (0: no window, every pixel votes; for tests and
 * benches); returns the previous one. */
double fs_dome_votes_set_cells(double cells);
/* How far outside a rectangle fs_dome_votes_rect reads the smoothed
 * image, in px, for a pitch and a vote blur (px of that image). */
int fs_dome_votes_reach(double pitch, double blur);

/*
 * The combined votes of the rectangle [x0, x1) x [y0, y1) of a W x H
 * smoothed image, ADDED to out (row stride ostride; the caller zeroes it
 * first). sm points at the window's pixel (sx, sy) of the image, row
 * stride stride, and holds every image pixel within
 * fs_dome_votes_reach(pitch, blur) of the rectangle. mean is the image's
 * gradient mean (fs_dome_grad_add), pitch and blur in px of the image.
 * Returns 0, or -1 (out of memory, err set).
 */
int fs_dome_votes_rect(const float *sm, size_t stride, int sx, int sy, int W, int H, double mean, double pitch,
		       double blur, int x0, int y0, int x1, int y1, float *out, size_t ostride, char *err,
		       size_t errlen);

#endif
