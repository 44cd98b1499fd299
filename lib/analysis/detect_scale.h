/*
 * detect_scale.h - the methods that find tubercles in full-resolution
 * scale layers or regions (log, dog, ellipse; detect_methods.h), whole or
 * tile by tile (issue 15). Not part of the public API (include detect.h).
 *
 * On an image of more than four tiles (the tiling setting of detect.h)
 * nothing full-size is made in floats: the preprocessing's image-wide
 * extremes are found in streaming passes (detect_pre_region.h), then each
 * tile's preprocessed crop is made with an overlap as wide as the method's
 * filters reach (the largest scale's kernel radius, summed over dog's
 * incremental blurs), the method keeps what it finds in the tile's core
 * only, and what needs the whole image (the overlap removal of the scale
 * peaks, Otsu's threshold, the connected regions) works on the tiles'
 * results: candidates, a histogram, a one-bit mask. Diameters are
 * measured tile by tile as auto's (detect_tiled.h). The result equals the
 * whole-image path's (a test compares them on 3 x 3 tiles and more).
 *
 * Ownership: a source and a tile point at images the caller owns.
 */
#ifndef FS_DETECT_SCALE_H
#define FS_DETECT_SCALE_H

#include <pthread.h>

#include "analysis/detect.h"
#include "analysis/detect_measure.h"
#include "analysis/detect_pre_region.h"

/* Where a method reads its preprocessed image: pre (the whole image), or
 * a plan (detect_pre_region.h) that makes it tile by tile. */
struct fs_dome_resp;
typedef struct fs_det_source {
	const fs_image *pre;
	const fs_pre_plan *plan;
	int tile, threads; /* tiles: side in px, and how many at once */
	int width, height;
	/* when not NULL, the dome rule's candidate step leaves there what
	 * makes its response again, crop by crop (detect_cand_domes.h: the
	 * lattice method's searches); the caller's, freed by
	 * fs_dome_resp_free */
	struct fs_dome_resp *dome;
} fs_det_source;

/* One tile as a method sees it: the preprocessed crop at (ox, oy) of the
 * image, and the tile's core [x0, x1) x [y0, y1) in crop pixels; lock,
 * when not NULL, guards the method's shared results (tiles run in
 * threads). */
typedef struct fs_det_tile {
	const fs_image *pre;
	int ox, oy;
	int x0, y0, x1, y1;
	pthread_mutex_t *lock;
} fs_det_tile;

typedef int (*fs_det_tile_fn)(const fs_det_tile *t, void *ctx, char *err, size_t errlen);

/* Calls fn on every tile of s, each crop widened by overlap px (clipped to
 * the image); the whole image is one tile when s->pre is set. Returns 0,
 * or -1 with the first error (fn's, out of memory). */
int fs_det_for_tiles(const fs_det_source *s, int overlap, fs_det_tile_fn fn, void *ctx, char *err, size_t errlen);

/* The scale-space methods' (log, dog) frame, written once. */
/* Their sigma range from the diameters (the original's radius / sqrt 2,
 * at least 1 px and 1 apart); *rmin gets the smallest radius in px. */
void fs_det_sigma_range(const fs_params *p, double um_per_px, double *smin, double *smax, double *rmin);
/* A tile's part: the maxima of its layers in the tile's core
 * (fs_det_scale_maxima) appended to *all under the tile's lock. name
 * starts the message. Returns 0, or -1 with a message. */
int fs_det_scale_keep(const fs_det_tile *t, fs_image *const *layers, const double *radii, int n, double thr,
		      fs_cand_list *all, const char *name, char *err, size_t errlen);
/* The whole: fn over the tiles of s (fs_det_for_tiles, each tile's
 * maxima gathered into *all by fs_det_scale_keep), the overlap removal,
 * and the diameters measured from the profiles into out; *all is freed. */
int fs_det_scale_run(const fs_det_source *s, const fs_meas *m, const fs_params *p, double rmin, int overlap,
		     fs_det_tile_fn fn, void *ctx, fs_cand_list *all, const char *name, fs_detect_result *out,
		     char *err, size_t errlen);

/* fs_detect's path for log, dog and ellipse (detect.c): preprocessing,
 * the method and the measurement, whole or tiled. dome: the base rule's
 * lighter measurement blur. */
int fs_detect_scale(const fs_image *img, const fs_params *p, double um_per_px, int dome, fs_detect_result *out,
		    char *err, size_t errlen);

#endif
