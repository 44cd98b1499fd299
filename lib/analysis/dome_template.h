/*
 * dome_template.h - the image's own mean dome as a matched filter for the
 * dome rule's candidates (issue 13 section 2).
 *
 * Why: the dome rule's first candidates are circle votes of edges
 * (detect_auto.c). Where edges are unreliable - a printed halftone screen
 * whose dots are steps as strong as the bases, tight domes whose 3 px gaps
 * the screen's low-pass fills, 4 px bases that barely pass the gradient
 * threshold - votes scatter or miss (docs/paper-figures.md, h20g). But one
 * detector lights every dome of an image the same way and the domes share
 * one profile, so every dome looks alike: the mean patch around the vote
 * peaks is what a dome of this image looks like (the screen's dots, at
 * unrelated phases under each dome, average out of it), and its
 * correlation with the image uses the whole dome - cap, ring and shadowed
 * side - not only its edges. The correlation is normalised (zero-mean
 * template against the zero-mean patch, divided by both norms), so local
 * brightness and contrast do not matter, as the oracle of
 * test_sem_oracle.c says a method must not assume them.
 *
 * The template's reference point is where the seeds sit on their domes on
 * average: a common offset, which the centre refinement (centre_refine.h)
 * and the fitted common offset (detect_offset.h) remove later.
 *
 * Cost: a disc of (2 R + 1)^2 pi / 4 taps per pixel (R = half a pitch of
 * the reduced image, about 5 px). Where four neighbouring discs lie whole
 * in the image the four pixels are summed together, one vector lane each,
 * with each lane's additions in the one-pixel order: the same bits
 * (test_dome_template.c shifts the image under the lanes), about a quarter
 * of the instructions (2048 x 1536 lattice: 757 -> ~190 M). The discs the
 * image's edges cut run in lanes too (eight a row within R of the top or
 * bottom, four rows a column within R of the left or right edge), with
 * the one-pixel loop's operations per pixel (h49d: 125.5 -> 105.7 M).
 *
 * The caller owns every argument; the returned image is the caller's; an
 * fs_dome_mean owns its arrays (fs_dome_mean_free).
 */
#ifndef FS_DOME_TEMPLATE_H
#define FS_DOME_TEMPLATE_H

#include <stddef.h>

#include "image/image.h"

/*
 * The normalised cross-correlation of img with the mean of its patches
 * (discs of radius `radius` px, at least 1) about the n points (xs[i],
 * ys[i]) (pixel coordinates of img, sub-pixel; points whose disc leaves
 * the image are not averaged). Each pixel of *out is the correlation over
 * the part of the disc inside the image, in [-1, 1]; 0 where the patch is
 * flat or fewer than half the disc's pixels are inside. Returns 0 with
 * *out a new image, or 0 with *out NULL when fewer than 3 discs lie
 * whole in the image (no template); -1 on bad arguments or out of memory
 * (err says which).
 */
int fs_dome_template_ncc(const fs_image *img, const double *xs, const double *ys, size_t n, double radius,
			 fs_image **out, char *err, size_t errlen);

/*
 * The same in steps, for an image made a window at a time (the candidate
 * step tile by tile, detect_cand_domes.h): begin, add every point's patch
 * (in the order the whole image's call takes them: the sums are the same
 * to the bit only in the same order), end (1 when there is a template,
 * 0 when fewer than 3 discs lay whole in the image), then the correlation
 * of any rectangle [x0, x1) x [y0, y1) of the W x H image into out (row
 * stride ostride), equal to fs_dome_template_ncc's there. A window
 * `win` is the image's pixel (sx, sy) with row stride `stride`: for add it
 * holds the disc of the point (and one more pixel right and down), for
 * the correlation every pixel within R = floor(radius) of the rectangle
 * that the image has. free releases what begin took (also after a failed
 * begin).
 */
typedef struct fs_dome_mean {
	double radius;
	int R, side;
	int *half;   /* the disc as row spans */
	double *tpl; /* side x side: sums, then the zero-mean template */
	size_t used;
	double tt, np;
} fs_dome_mean;

int fs_dome_mean_begin(fs_dome_mean *t, double radius, char *err, size_t errlen);
void fs_dome_mean_add(fs_dome_mean *t, const float *win, size_t stride, int sx, int sy, int W, int H, double x,
		     double y);
int fs_dome_mean_end(fs_dome_mean *t);
void fs_dome_mean_ncc(const fs_dome_mean *t, const float *win, size_t stride, int sx, int sy, int W, int H, int x0,
		     int y0, int x1, int y1, float *out, size_t ostride);
/* The correlation of the pixels x, x + 2, x + 4, .. of row y of a whole
 * W x H image (img, row stride W) into orow[x], .. (orow is the row of
 * an image W wide; the pixels between are not touched), eight a call
 * while their discs lie whole in the image and the CPU has AVX, each
 * value fs_dome_mean_ncc's at that pixel to the bit (dome_ncc_coarse.h's
 * coarse look). Returns the first of those pixels not made: x itself
 * where none was (no AVX, a disc leaving the image, a flat template). */
int fs_dome_mean_ncc_even(const fs_dome_mean *t, const float *img, int W, int H, int y, int x, float *orow);
void fs_dome_mean_free(fs_dome_mean *t);

/* begin, add every point of the whole image img, end: the mean dome of
 * fs_dome_template_ncc and its coarse twin (dome_ncc_coarse.h). Returns
 * 1 with a template, 0 without one (fewer than 3 whole discs), -1 on bad
 * arguments or out of memory (err set); t is the caller's to free in
 * every case but -1. */
int fs_dome_mean_of_points(fs_dome_mean *t, const fs_image *img, const double *xs, const double *ys, size_t n,
			   double radius, char *err, size_t errlen);

#endif
