/*
 * detect_candidates.h - the first steps every detection method shares:
 * preprocessing for detection, candidate lists, peak picking (in one image
 * or a scale stack), prominence, and the radius range the µm parameters
 * allow. Below the methods (detect_*.c) and the dispatcher (detect.c); not
 * part of the public API (include detect.h instead).
 *
 * Ownership: candidate lists own their array (free with fs_cand_free); all
 * images passed in stay the caller's.
 */
#ifndef FS_DETECT_CANDIDATES_H
#define FS_DETECT_CANDIDATES_H

#include <stddef.h>

#include "analysis/detect.h"

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
/* c's candidates, each moved by (dx, dy) px, into *out (new; the
 * caller's, freed by fs_cand_free; room for one even when c is empty).
 * Returns 0, -1 out of memory (*out then empty). */
int fs_cand_list_shifted(const fs_cand_list *c, double dx, double dy, fs_cand_list *out);

/* Preprocessing of params.h on a copy of img: top-hat, CLAHE (tile side
 * clahe_tile, normally p->clahe_kernel), blur, normalise. *out is new (a
 * float image; img may be compact, image.h: the copy is its conversion).
 * With the detection's tiling on (fs_detect_set_tiling) the top-hat runs
 * tile by tile (preprocess_tiled.h) and *out is the only full-size buffer;
 * the result is the same to the last bit either way. */
int fs_det_preprocess(const fs_image *img, const fs_params *p, int clahe_tile, fs_image **out,
		      char *err, size_t errlen);

/* Pixels of resp that are the maximum of their 3x3 neighbourhood and > min_value,
 * then greedy suppression by decreasing value: no two kept within min_dist. */
int fs_det_peaks(const fs_image *resp, double min_value, double min_dist, fs_cand_list *out);
/* The same with the maxima found in bands of rows in up to `threads`
 * threads (base/tile_pool.h): the same list whatever the count. */
int fs_det_peaks_threads(const fs_image *resp, double min_value, double min_dist, int threads,
			 fs_cand_list *out);
/*
 * fs_det_peaks in two steps, for a response made tile by tile: the 3x3
 * maxima > min_value among the pixels [x0, x1) x [y0, y1) of resp, a crop
 * at (ox, oy) of a W x H image (the crop holds every neighbour the image
 * has of those pixels), appended to all at their image position; then,
 * once every tile's are in, the greedy suppression of a w x h image, which
 * appends the kept ones to out and empties all (the result does not depend
 * on the order of all, which is sorted strongest first, in `threads`
 * threads: fs_sort_threads). 0 or -1 (out of memory).
 */
int fs_det_maxima(const fs_image *resp, double min_value, int x0, int y0, int x1, int y1, int ox, int oy, int W,
		  int H, fs_cand_list *all);
int fs_det_peaks_suppress(fs_cand_list *all, double min_dist, int w, int h, int threads, fs_cand_list *out);

/* Prominence of each candidate: resp at the peak minus the lowest resp within
 * radius (sampled on 16 rays); stored in response. */
void fs_det_prominence(const fs_image *resp, fs_cand_list *c, double radius);
/* The same in up to `threads` threads: the same values whatever the count. */
void fs_det_prominence_threads(const fs_image *resp, fs_cand_list *c, double radius, int threads);

/* The sub-pixel offsets (each in [-0.5, 0.5]) of the peak at pixel (gx, gy)
 * of a W x H response from the parabolas through the 3 samples on each
 * axis (0 on the image's border, or where the peak is not a strict
 * maximum along the axis); resp is a crop at (ox, oy) holding the peak's
 * neighbours. */
void fs_det_peak_offset(const fs_image *resp, int ox, int oy, int W, int H, int gx, int gy, double *dx, double *dy);

/* Scale range in pixels (radii) from the µm parameters and the calibration. */
void fs_det_radius_range(const fs_params *p, double um_per_px, double *rmin, double *rmax);

/*
 * Peaks of a scale stack: layers[i] (all the size of the first) holds the
 * scale-normalised response at radius radii[i]. A peak is the maximum of its
 * 3x3x3 neighbourhood and > thr; overlapping peaks (centres closer than the
 * larger radius) keep the stronger. Appends to out with r = its radius.
 */
int fs_det_scale_peaks(fs_image *const *layers, const double *radii, int n, double thr,
		       fs_cand_list *out);
/*
 * fs_det_scale_peaks in two steps, for a stack computed tile by tile: the
 * maxima of the stack's pixels [x0, x1) x [y0, y1) (at least a pixel
 * inside the stack where it is not the image's border, so that every
 * neighbour is the image's own), appended to all at their position plus
 * (ox, oy); then, once every tile's are in, the overlap removal, which
 * empties all (a w x h image; the result does not depend on the order of
 * all, which is sorted strongest first). Both return 0 or -1 (out of memory).
 */
int fs_det_scale_maxima(fs_image *const *layers, const double *radii, int n, double thr, int x0, int y0, int x1,
			int y1, int ox, int oy, fs_cand_list *all);
int fs_det_scale_suppress(fs_cand_list *all, int w, int h, fs_cand_list *out);

#endif
