/*
 * detect_internal.h - pieces shared by the detection methods (detect_*.c);
 * not part of the public API (include detect.h instead).
 *
 * Ownership: candidate lists own their array (free with fs_cand_free); all
 * images passed in stay the caller's.
 */
#ifndef FS_DETECT_INTERNAL_H
#define FS_DETECT_INTERNAL_H

#include <stddef.h>

#include "detect.h"
#include "lattice_estimate.h"

typedef struct fs_cand {
	double x, y;     /* pixels */
	double response; /* detector strength, larger = better */
	double r;        /* radius implied by the detector's scale (px), 0 if none */
} fs_cand;

typedef struct fs_cand_list {
	fs_cand *items;
	size_t n, cap;
} fs_cand_list;

int fs_cand_append(fs_cand_list *l, const fs_cand *c);
void fs_cand_free(fs_cand_list *l);

/* Preprocessing of params.h on a copy of img: top-hat, CLAHE (tile side
 * clahe_tile, normally p->clahe_kernel), blur, normalise. *out is new. */
int fs_det_preprocess(const fs_image *img, const fs_params *p, int clahe_tile, fs_image **out,
		      char *err, size_t errlen);

/* Pixels of resp that are the maximum of their 3x3 neighbourhood and > min_value,
 * then greedy suppression by decreasing value: no two kept within min_dist. */
int fs_det_peaks(const fs_image *resp, double min_value, double min_dist, fs_cand_list *out);

/* Prominence of each candidate: resp at the peak minus the lowest resp within
 * radius (sampled on 16 rays); stored in response. */
void fs_det_prominence(const fs_image *resp, fs_cand_list *c, double radius);

/*
 * The image diameters are measured on: img (see fs_detect_measure_image)
 * holds the input of fs_detect (width x height pixels) reduced by the
 * integer factor f (1 = full resolution). Large pitches are measured on a
 * reduced image because their smallest tubercles still span many pixels
 * there, and the measurement blur then costs f^3 times less.
 */
typedef struct fs_meas {
	const fs_image *img;
	int f;
	int width, height;
} fs_meas;

/*
 * Measures every candidate on m (fs_blob_measure with rays up to max_r, or
 * 2 x cand.r when max_r is 0), drops those without a measurable blob, below
 * p->min_circularity or within p->edge_margin_px of the border, and merges
 * candidates whose centres converge (closer than min_sep). Appends to out with
 * ids continuing from out->n + 1 and the given source. Candidates, max_r,
 * min_sep and the results are in input (full-resolution) pixels.
 */
int fs_det_measure(const fs_meas *m, const fs_cand_list *c, double max_r, double min_sep,
		   const fs_params *p, fs_source source, fs_tubercle_list *out);

/* Scale range in pixels (radii) from the µm parameters and the calibration. */
void fs_det_radius_range(const fs_params *p, double um_per_px, double *rmin, double *rmax);

int fs_detect_log(const fs_image *pre, const fs_image *meas, const fs_params *p, double um_per_px, fs_detect_result *out,
		  char *err, size_t errlen);
int fs_detect_dog(const fs_image *pre, const fs_image *meas, const fs_params *p, double um_per_px, fs_detect_result *out,
		  char *err, size_t errlen);
int fs_detect_ellipse(const fs_image *pre, const fs_image *meas, const fs_params *p, double um_per_px,
		      fs_detect_result *out, char *err, size_t errlen);
/* auto and lattice receive the lattice estimated on the raw image, and pre
 * reduced by the integer factor f (a pixel of pre = f x f input pixels). */
int fs_detect_auto(const fs_image *pre, const fs_meas *m, int f, const fs_params *p,
		   const fs_lattice *lat, fs_detect_result *out, char *err, size_t errlen);
int fs_detect_lattice(const fs_image *pre, const fs_meas *m, int f, const fs_params *p,
		      const fs_lattice *lat, fs_detect_result *out, char *err, size_t errlen);

/* Methods: pre is the preprocessed image they detect on, meas the image
 * they measure diameters on (see fs_detect_measure_image). */

/* Auto's candidates (prominent peaks of pre smoothed at 0.15 x pitch), in
 * full-resolution pixels; pitch is in full-resolution pixels, pre reduced
 * by f. The smoothed response (reduced) is returned in *resp_out when that
 * is not NULL. */
int fs_detect_auto_candidates(const fs_image *pre, int f, const fs_params *p, double pitch,
			      fs_cand_list *keep, fs_image **resp_out, char *err, size_t errlen);
/*
 * The image diameters are measured on (*out new): img after the top-hat (if
 * on) and a light blur (sigma, e.g. 3 % of the pitch), but without CLAHE,
 * whose non-linear mapping would move the half-level edge.
 */
int fs_detect_measure_image(const fs_image *img, const fs_params *p, double sigma, fs_image **out,
			    char *err, size_t errlen);

/*
 * Peaks of a scale stack: layers[i] (all the size of the first) holds the
 * scale-normalised response at radius radii[i]. A peak is the maximum of its
 * 3x3x3 neighbourhood and > thr; overlapping peaks (centres closer than the
 * larger radius) keep the stronger. Appends to out with r = its radius.
 */
int fs_det_scale_peaks(fs_image *const *layers, const double *radii, int n, double thr,
		       fs_cand_list *out);

#endif
