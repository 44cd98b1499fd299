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
 * of the instructions (2048 x 1536 lattice: 757 -> ~190 M).
 *
 * The caller owns every argument; the returned image is the caller's.
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

#endif
