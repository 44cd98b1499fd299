/*
 * synth.h - synthetic SEM-like images of a hexagonal tubercle lattice with
 * known truth (centres, diameter, spacing), for the detection tests and the
 * benchmark.
 *
 * Ownership: synth_make returns a new fs_image (free with fs_image_free) and
 * fills a synth_truth whose arrays are freed with synth_truth_free.
 * Deterministic: the same options (seed included) give the same image.
 */
#ifndef SYNTH_H
#define SYNTH_H

#include <stddef.h>

#include "image/image.h"
#include "image/tubercle.h"

typedef struct synth_opts {
	int width, height;
	double pitch;       /* centre distance of neighbours, px */
	double diam_ratio;  /* tubercle diameter / pitch */
	double angle;       /* lattice rotation, radians */
	double jitter;      /* uniform positional jitter, +- px */
	double missing;     /* fraction of sites left out, 0..1 */
	double noise;       /* std of additive Gaussian noise (image units) */
	double blur;        /* PSF sigma, px (0 = sharp, anti-aliased edges) */
	double gradient;    /* illumination: factor 1 - g/2 at left .. 1 + g/2 at right */
	int bits;           /* 8 or 16: quantisation; 0 = none */
	int dark_left;      /* width of a dark band without tubercles at the left, px */
	double background;  /* scale surface level */
	double contrast;    /* tubercle level above the surface */
	unsigned seed;
} synth_opts;

typedef struct synth_truth {
	double *x, *y;      /* centres of the rendered tubercles */
	size_t n;
	double radius;      /* true radius, px (all equal) */
	double spacing;     /* mean edge-to-edge distance between true neighbours, px */
} synth_truth;

/* Sensible defaults: 640x480, pitch 20, ratio 0.5, mild noise, 8-bit. */
void synth_defaults(synth_opts *o);
/* Returns the image or NULL (bad options, out of memory); t is filled. */
fs_image *synth_make(const synth_opts *o, synth_truth *t);
void synth_truth_free(synth_truth *t);

/*
 * Scores detections (xs, ys, n) against the truth inside the interior
 * [margin, W - margin] x [margin, H - margin]: a detection matches a true
 * centre within max_dist px (each truth used once, greedy by distance).
 */
typedef struct synth_score {
	double recall, precision;
	size_t n_true, n_found, n_matched;
} synth_score;
void synth_match(const synth_truth *t, const double *xs, const double *ys, size_t n, int width,
		 int height, double margin, double max_dist, synth_score *s, int *match_of_det);

/*
 * The mean edge-to-edge space (px) over the pairs of T closer than 1.3
 * pitch, both measured: in a hexagonal lattice exactly the nearest
 * neighbours (the next ring is at 1.73 pitch). NAN when there is no such
 * pair. Written once (h49g) for test_detect and test_dome_flat_disks.
 */
double synth_mean_space(const fs_tubercle_list *T, double pitch);

/*
 * A W x W image of one disk of radius R centred at (c, c): brightness in
 * inside, out outside, each pixel the mean of 4 x 4 samples, then blurred
 * by sigma (0: not blurred). The caller frees it; NULL when out of memory.
 */
fs_image *synth_blurred_disk(int W, double c, double R, double in, double out, double sigma);

#endif
