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
