/*
 * gauss_ref.h - what the Gaussian blurs are checked against: an image of
 * uniform noise, and the blur of one pixel by direct 2-D convolution with
 * the blurs' kernel (truncated at 4 sigma, normalised) and their
 * replicated border. Slow on purpose: no separation, no recursion.
 *
 * Ownership: gauss_ref_noise returns a new image (fs_image_free), NULL
 * when out of memory.
 */
#ifndef GAUSS_REF_H
#define GAUSS_REF_H

#include "image/image.h"

/* Samples in [0, 1] from a linear congruential sequence started at seed. */
fs_image *gauss_ref_noise(int w, int h, unsigned seed);

/* The blur of img at (x, y) with this sigma. */
double gauss_ref_at(const fs_image *img, int x, int y, double sigma);

#endif
