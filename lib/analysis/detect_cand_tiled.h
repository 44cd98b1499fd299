/*
 * detect_cand_tiled.h - the candidate step of auto and lattice tile by tile
 * (issue 15), for a lattice pitch below 20 px, where it runs at full
 * resolution: instead of one full-size preprocessed response (4 bytes a
 * pixel), each tile's response is made from the preprocessing plan
 * (detect_pre_region.h: the image-wide stretches found in streaming
 * passes) over the tile widened by the smoothing's and the rays' reach.
 *
 * Auto: every 3x3 maximum of a tile's core is found with its prominence
 * and sub-pixel offset (both read only the response within the rays'
 * reach), then the greedy suppression runs over all tiles' maxima
 * (fs_det_peaks_suppress), as on the whole image. Lattice: the responses
 * its recovery searches around predicted neighbours are probed in batches
 * (fs_lattice_probe), a tile's crop for the predictions that fall in it.
 * Every value is the whole-image path's to the last bit.
 *
 * Ownership: the source and its plan stay the caller's; the lists and
 * arrays filled are the caller's (free with fs_cand_free / free).
 */
#ifndef FS_DETECT_CAND_TILED_H
#define FS_DETECT_CAND_TILED_H

#include <stddef.h>

#include "analysis/detect_candidates.h"
#include "analysis/detect_scale.h"

/*
 * Auto's peaks of the response (the preprocessed image smoothed at sigma)
 * over the tiles of s (s->plan; full resolution): the suppressed peaks
 * into c (min_dist apart, strongest first, as fs_det_peaks), each with its
 * prominence within radius (fs_det_prominence) in response, and its
 * sub-pixel offset (fs_det_peak_offset) in (*off)[2i], (*off)[2i + 1]
 * (new, the caller frees). Returns 0, or -1 with a message.
 */
int fs_auto_peaks_tiled(const fs_det_source *s, double sigma, double min_dist, double radius, fs_cand_list *c,
			double **off, char *err, size_t errlen);

/*
 * The same peaks of any response made tile by tile: fn makes a tile's
 * response (*resp new, a crop at (*rx, *ry) of the W x H image) holding
 * every pixel the image has within `reach` (fs_peaks_tiled_reach(radius))
 * of the tile's core, from the tile's preprocessed crop (widened by
 * overlap); the maxima of the core, their prominence and offsets are
 * kept and suppressed as above. The dome rule's votes and template
 * correlation (detect_cand_domes.h) run through it.
 */
typedef int (*fs_tile_resp_fn)(const fs_det_tile *t, void *ctx, int reach, fs_image **resp, int *rx, int *ry,
			       char *err, size_t errlen);
int fs_peaks_tiled_reach(double radius);
int fs_peaks_tiled(const fs_det_source *s, int overlap, fs_tile_resp_fn fn, void *ctx, double min_dist,
		   double radius, fs_cand_list *c, double **off, char *err, size_t errlen);

/* One search of the lattice method's recovery: the strongest response
 * within R px of (lround(sx), lround(sy)) (a pixel of the image), at
 * (bx, by), and its prominence within radius. key orders the results. */
typedef struct fs_lattice_probe {
	long key;
	double sx, sy;
	double bx, by;
	float prom;
} fs_lattice_probe;

/* Fills q[0..n) from resp, a crop at (ox, oy) of the W x H response that
 * holds every pixel within R + radius + 1 of each search's centre that the
 * image has. */
void fs_lattice_probe_crop(const fs_image *resp, int ox, int oy, int W, int H, int R, double radius,
			   fs_lattice_probe *q, size_t n);

/* The same from the tiles of s (a crop per tile holding searches; the
 * response = the preprocessing smoothed at sigma): 0, or -1 with a
 * message. */
int fs_lattice_probe_tiled(const fs_det_source *s, double sigma, int R, double radius, fs_lattice_probe *q,
			   size_t n, char *err, size_t errlen);

/* The same for any response: fn makes it over the preprocessed crop pre
 * at (x0, y0) of the image (a new image of pre's size), the image's own
 * values wherever they are at least `margin` px inside the crop's cut
 * edges (the image's own edges are not cut). */
typedef fs_image *(*fs_crop_resp_fn)(const fs_image *pre, int x0, int y0, void *ctx, char *err, size_t errlen);
int fs_lattice_probe_tiled_by(const fs_det_source *s, int margin, fs_crop_resp_fn fn, void *ctx, int R,
			      double radius, fs_lattice_probe *q, size_t n, char *err, size_t errlen);

#endif
