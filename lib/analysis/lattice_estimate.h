/*
 * lattice_estimate.h - pitch and orientation of a (roughly) hexagonal
 * pattern of bright tubercles, estimated from the image alone through the
 * autocorrelation of a central crop (computed by FFT).
 *
 * No calibration is involved: the pitch is in pixels. The caller owns every
 * argument; nothing is kept.
 */
#ifndef FS_LATTICE_ESTIMATE_H
#define FS_LATTICE_ESTIMATE_H

#include <stddef.h>

#include "image/image.h"

typedef struct fs_lattice {
	double pitch_px;  /* centre distance of nearest neighbours; 0 = no lattice found */
	double angle;     /* radians in [0, pi/3): direction of one lattice vector */
	double strength;  /* autocorrelation at the first ring (0..1; ~0 = no periodicity) */
	int n_peaks;      /* autocorrelation peaks on the first ring (6 for a clean hex lattice) */
	double peak_dist[6];  /* their distances, pixels (n_peaks entries) */
	double peak_angle[6]; /* their directions, radians */
} fs_lattice;

/*
 * Estimates the lattice of img. Pitches from 6 px up to a quarter of the
 * analysed crop (at most 512 px square, so <= 128 px) are found.
 * Returns 0 (pitch_px 0 when the image shows no periodic pattern), or -1
 * with a message (image too small: < 32 px a side, out of memory).
 * img may be compact (image.h): the crop's rows are converted as read.
 */
int fs_lattice_estimate(const fs_image *img, fs_lattice *out, char *err, size_t errlen);

#endif
