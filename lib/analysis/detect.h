/*
 * detect.h - tubercle detection: preprocessing + one of the methods of
 * params.h (auto, log, dog, ellipse, lattice), diameters measured from each
 * tubercle's own intensity profile (never the detector's scale), and the
 * editor's point analysis.
 *
 * Ownership: fs_detect_result owns its tubercle list; free it with
 * fs_detect_result_free (tolerates NULL / zeroed). The input image is never kept.
 * A region an fs_region_src gives stays its caller's; detection only reads it.
 */
#ifndef FS_DETECT_H
#define FS_DETECT_H

#include <stddef.h>

#include "image/image.h"
#include "analysis/params.h"
#include "image/tubercle.h"
#include "analysis/scale_region.h"
#include "analysis/measurement.h"

typedef struct fs_detect_result {
	fs_tubercle_list tubercles; /* ids 1..n, source FS_SOURCE_EXTRACTED or _LATTICE */
	double pitch_px;            /* lattice pitch found (auto, lattice); 0 if none */
	double lattice_angle;       /* radians, orientation of one lattice direction */
	double ms_preprocess;       /* wall time of the stages, milliseconds */
	double ms_detect;
	size_t n_outside_region;    /* detections dropped: centre outside the scale region */
	double ms_region;           /* time to find the scale region (0 when given) */
} fs_detect_result;

/*
 * Runs the whole detection on img (values in [0, 1]; float or compact,
 * image.h: a compact image is read by row bands and tiles where the
 * detection is tiled, and converted whole for the whole-image paths), its diameters measured with the selected
 * measurement rule (measurement.h: the configuration's, else the
 * build's). um_per_px converts the
 * µm size parameters to pixels (method auto does not need it for detection).
 * Returns 0, or -1 with a message (invalid parameters, out of memory).
 * Finding no tubercle is not an error.
 */
int fs_detect(const fs_image *img, const fs_params *p, double um_per_px, fs_detect_result *out,
	      char *err, size_t errlen);
/*
 * The same with a scale region (scale_region.h): fs_detect finds the
 * automatic region of img; fs_detect_in_region takes the caller's (a
 * person's correction; NULL = automatic). Every detection whose centre lies
 * outside the region is dropped (counted in n_outside_region) and the rest
 * renumbered 1..n: nothing is ever detected on a paper margin, a black
 * surround or a data bar. fs_detect_all is the outline rule's detection
 * without it (for tests that measure what the region removes).
 */
int fs_detect_in_region(const fs_image *img, const fs_params *p, double um_per_px, const fs_scale_region *region,
			fs_detect_result *out, char *err, size_t errlen);
int fs_detect_all(const fs_image *img, const fs_params *p, double um_per_px, fs_detect_result *out,
		  char *err, size_t errlen);
/*
 * The same with the rule given rather than the selected one (a test, a
 * comparison of the rules): fs_detect_rule_all without the scale region
 * (FS_RULE_OUTLINE is fs_detect_all, FS_RULE_DOME fs_detect_domes),
 * fs_detect_rule_in_region with it. -1 for a value that is no rule.
 */
int fs_detect_rule_all(const fs_image *img, const fs_params *p, double um_per_px, fs_measurement_rule rule,
		       fs_detect_result *out, char *err, size_t errlen);
int fs_detect_rule_in_region(const fs_image *img, const fs_params *p, double um_per_px, fs_measurement_rule rule,
			     const fs_scale_region *region, fs_detect_result *out, char *err, size_t errlen);
/*
 * The scale region handed to detection (fs_detect_rule_region): detection
 * asks for it once its centres are final, drops what lies outside it
 * (counted in n_outside_region, the rest renumbered) and only then lets
 * the dome rule size the rest - that rule sizes an image's domes together
 * (the formation, the level), so sizing before the drop meant sizing every
 * tubercle twice. get: 0 with *region set (NULL, or a region without a
 * mask: nothing is dropped; it must stay valid until detection returns),
 * or -1 with a message, which detection then returns; called at most once,
 * and not at all when detection fails first. It may wait for a region
 * found meanwhile in another thread (the CLI). ctx is the caller's.
 */
typedef struct fs_region_src {
	int (*get)(void *ctx, const fs_scale_region **region, char *err, size_t errlen);
	void *ctx;
} fs_region_src;
/* fs_detect_rule_all with the region src gives (src NULL: none). */
int fs_detect_rule_region(const fs_image *img, const fs_params *p, double um_per_px, fs_measurement_rule rule,
			  const fs_region_src *src, fs_detect_result *out, char *err, size_t errlen);
/* fs_detect with the outline rule whatever the selected one: the accuracy
 * tables and benchmarks that set the two rules side by side. */
int fs_detect_outline(const fs_image *img, const fs_params *p, double um_per_px, fs_detect_result *out, char *err,
		      size_t errlen);
void fs_detect_result_free(fs_detect_result *r);

/*
 * Streaming, tiled measurement (issue 15, detect_tiled.c): methods auto and
 * lattice measure their candidates tile by tile (log, dog and ellipse
 * detect and measure tile by tile on an image of more than four tiles:
 * detect_scale.h), each tile's measurement
 * image made from the input cropped with an overlap, so no full-size
 * measurement image is allocated; the result equals the whole-image path's.
 * tile_px: side of a tile in measurement-image pixels (>= 16; smaller
 * values are raised), 0 = the whole-image path; threads: tiles measured at
 * once (1..8). Process-wide, set once at start-up before any detection
 * runs (not safe to change while detecting): the CLI uses two threads, a
 * background job and the FastCGI workers one (the default), tests force
 * small tiles.
 */
#define FS_DETECT_TILE_DEFAULT 1024

/*
 * Sizes (issue 15, detect_limits.c). Every method works tile by tile
 * (auto and lattice their measurement, log, dog and ellipse their
 * preprocessing, scale layers and measurement: detect_scale.h) and takes
 * any image the loaders accept. With tiling off (tile_px 0, `fishscale
 * measure --tile 0`) log, dog and ellipse keep several full-size float
 * scale layers (50-130 bytes a pixel: a 100 MP montage would need 5-13 GB)
 * and take at most FS_DETECT_UNTILED_MAX_PIXELS (a 6144 x 4096 SEM frame
 * fits). fs_detect_max_pixels: the limit under the current tiling setting,
 * 0 = none. fs_detect_check_size: 0, or -1 with a message saying what to
 * do instead (the detection itself refuses such an image the same way,
 * before allocating anything).
 */
#define FS_DETECT_UNTILED_MAX_PIXELS (26LL * 1000 * 1000)
long long fs_detect_max_pixels(fs_method m);
int fs_detect_check_size(fs_method m, long long width, long long height, char *err, size_t errlen);
void fs_detect_set_tiling(int tile_px, int threads);
void fs_detect_get_tiling(int *tile_px, int *threads);

/*
 * The dome-base rule's detection (issue 13; selected by measurement_rule
 * = dome, measurement.h; not yet the default): the same detection with the
 * SEM dome-base rule - candidates from circle votes (a Hough transform for
 * circles, blind to which side of a dome the detector lights) and diameters from fs_dome_measure (dome_measure.h),
 * with fit_quality set per tubercle and radius_px NAN where the base is not
 * measurable. Methods auto and lattice; the others as fs_detect but with the
 * base rule. docs/paper-figures.md has its accuracy on the SEM simulator.
 */
int fs_detect_domes(const fs_image *img, const fs_params *p, double um_per_px, fs_detect_result *out,
		    char *err, size_t errlen);

typedef struct fs_point_result {
	int found;               /* 1 when a blob was found at the point */
	char reason[96];         /* why not, when found == 0 (e.g. "click_not_on_blob") */
	fs_tubercle tubercle;    /* centre, radius, circularity, ellipse when found */
	int region_x, region_y, region_w, region_h; /* the analysed region, image pixels */
} fs_point_result;

/*
 * Editor auto-size: analyses a square region of side region_factor x the
 * maximum diameter around (x, y) and returns the blob there. img may be
 * compact (image.h): only the region is converted to floats.
 * Returns 0 (with found 0 or 1) or -1 with a message for bad arguments.
 */
int fs_analyze_point(const fs_image *img, const fs_params *p, double um_per_px, double x, double y,
		     double region_factor, fs_point_result *out, char *err, size_t errlen);

#endif
