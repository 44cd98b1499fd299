/*
 * detect_methods.h - the detection methods (detect_*.c) that fs_detect
 * (detect.c) dispatches to. Not part of the public API (include detect.h
 * instead).
 *
 * Ownership: *pre is taken as fs_detect_auto says; what the methods append
 * to out belongs to out (fs_detect_result_free); *resp_out and
 * fs_detect_measure_image's *out are new images the caller frees
 * (fs_image_free); everything else is only read.
 */
#ifndef FS_DETECT_METHODS_H
#define FS_DETECT_METHODS_H

#include "analysis/detect_measure.h"
#include "analysis/lattice_estimate.h"
#include "analysis/detect_scale.h"

/* log, dog and ellipse detect on s (detect_scale.h: the whole
 * preprocessed image or its tiles) and log and dog measure on m. */
int fs_detect_log(const fs_det_source *s, const fs_meas *m, const fs_params *p, double um_per_px,
		  fs_detect_result *out, char *err, size_t errlen);
int fs_detect_dog(const fs_det_source *s, const fs_meas *m, const fs_params *p, double um_per_px,
		  fs_detect_result *out, char *err, size_t errlen);
int fs_detect_ellipse(const fs_det_source *s, const fs_params *p, double um_per_px, fs_detect_result *out,
		      char *err, size_t errlen);
/* auto and lattice receive the lattice estimated on the raw image, and pre
 * reduced by the integer factor f (a pixel of pre = f x f input pixels).
 * They take *pre (the caller's before the call, NULL after it: freed, or
 * smoothed in place into the response), so the response is not a second
 * full-size image beside it (issue 15: at a pitch under 20 px pre is
 * full-size). Or, at full resolution (f 1) with the outline rule, *pre
 * NULL and tiled (detect_cand_tiled.h: its plan, tiles and threads): the
 * candidate step then runs tile by tile, with the same result, and nothing
 * full-size is made. tiled NULL: the whole image in *pre. */
int fs_detect_auto(fs_image **pre, const fs_det_source *tiled, const fs_meas *m, int f, const fs_params *p,
		   const fs_lattice *lat, fs_detect_result *out, char *err, size_t errlen);
int fs_detect_lattice(fs_image **pre, const fs_det_source *tiled, const fs_meas *m, int f, const fs_params *p,
		      const fs_lattice *lat, fs_detect_result *out, char *err, size_t errlen);

/* auto and lattice: pre is the preprocessed image they detect on, m the
 * image they measure diameters on (see fs_detect_measure_image). */

/* Auto's candidates (prominent peaks of pre smoothed at 0.15 x pitch), in
 * full-resolution pixels; pitch is in full-resolution pixels, pre reduced
 * by f. Takes *pre (NULL on return, as fs_detect_auto), or reads tiled
 * (as fs_detect_auto). The smoothed response (reduced) is returned in
 * *resp_out when that is not NULL (NULL when tiled). */
/*
 * The dome rule's candidates moved by px in x and in y (full-resolution
 * pixels), after they are found, before anything measures them (whole
 * image and tiles alike); 0, the default, leaves them as they are.
 * Returns the previous value. An instrument, not a parameter (h47i): a
 * nudge far below any physical meaning (1e-6 px) shows how far the
 * guards' counts move when the candidates move by a rounding, the floor
 * under which a cost cut that moves bits cannot be told from noise.
 * Process-wide, as fs_dome_votes_set_cells: set it before detecting.
 */
double fs_detect_set_cand_nudge(double px);

int fs_detect_auto_candidates(fs_image **pre, const fs_det_source *tiled, int f, const fs_params *p,
			      double pitch, int dome, fs_cand_list *keep, fs_image **resp_out, char *err,
			      size_t errlen);
/*
 * The image diameters are measured on (*out new): img after the top-hat (if
 * on) and a light blur (sigma, e.g. 3 % of the pitch), but without CLAHE,
 * whose non-linear mapping would move the half-level edge. img may be
 * compact; *out is a float image either way.
 */
int fs_detect_measure_image(const fs_image *img, const fs_params *p, double sigma, fs_image **out,
			    char *err, size_t errlen);
/* The dispatcher itself (detect.c), for the rule's dispatch
 * (detect_region.c): dome 1 the dome rule, 0 the outline rule; region as
 * fs_detect_rule_region (NULL: none). */
int fs_det_detect(const fs_image *img, const fs_params *p, double um_per_px, int dome, const fs_region_src *region,
		  fs_detect_result *out, char *err, size_t errlen);

#endif
