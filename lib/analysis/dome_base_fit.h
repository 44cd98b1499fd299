/*
 * dome_base_fit.h - one tubercle's base measured the way the oracle of
 * test_sem_oracle.c measures it (issue 13 section 2): its patch fitted by
 * least squares to a dome rendered through the image's SE formation, with
 * a gain and an offset of its own.
 *
 * Why: from the true centres and the true formation, fitting only each
 * base radius with a per-patch gain and offset meets the accuracy
 * targets in 59 of the 64 corner scenes (docs/paper-figures.md); a rule on
 * where the signal steps (dome_measure.h) reads a low cap's base 11-14 %
 * small even where the image holds it to 0.1 %. The formation is what an
 * image gives once, not per tubercle: dome_fit.h fits it to the mean
 * patch around the centres (profile, h/R, blur, detector direction and
 * elevation); the brightness and contrast of each patch are unknown and
 * fitted per tubercle, as the "affine" oracle does.
 *
 * Per image (fs_dome_tpl_build): the lattice is rendered (se_render.h)
 * at a grid of fills around the image's median (0.70-1.30 of it in steps
 * of 0.05), its components blurred and sampled at fixed points of a disc
 * of half a pitch (a pixel apart, or 1/32 pitch on large pitches). The
 * formation is chosen among dome geometries (h/R 0.2-1.0; spherical,
 * paraboloid, flat-topped), blurs (0.5-1.7 x the formation fit's, which
 * includes the scatter of the centres it averaged around) and shadows
 * (none, or at 25, 40, 55 degrees for the azimuth the slope weights
 * read): for each, the components' weights (how much of the signal is
 * yield, side-detector slope, edge, shadow) are solved on the mean patch
 * of up to 64 tubercles at the fill that fits it best, and the formation
 * kept is the one whose templates read those 64 patches best, each at its
 * own fill, gain and offset (as the tubercles will be read). The
 * formation fit's own h/R and profile are not used: they were read at a
 * fill held at the base rule's median, which is off where that rule is.
 * Without the search (search 0) the formation fit's geometry and blur,
 * snapped to the grid, with the shadow chosen as above.
 *
 * Per tubercle (fs_dome_tpl_fit): the image sampled at the same points
 * around the centre; the residual after the best gain and offset for
 * every fill (a dot product each), a parabola through the best three.
 * The centre moves by a pattern search (the eight neighbours at steps of
 * 0.04 pitch, 0.02, 0.01, at most three steps of each size, each
 * neighbour at the best of the five fills near the best so far: a patch
 * read off its centre fits a smaller dome best), then the fills are
 * fitted again there. The neighbours' bases scale with the fill in the
 * template (as the oracle scales every radius): at half a pitch only
 * their blurred feet reach the disc.
 *
 * Fit quality: R^2 of the patch after its gain and offset (0..1). A base
 * is not measured (radius NAN, the centre kept) when the best fill lies
 * at an end of the grid or the best gain is not positive (the patch does
 * not look like the dome at any size).
 *
 * Ownership: fs_dome_tpl owns its arrays (fs_dome_tpl_free); everything
 * else belongs to the caller; nothing is kept between calls.
 */
#ifndef FS_DOME_BASE_FIT_H
#define FS_DOME_BASE_FIT_H

#include <stddef.h>

#include "analysis/dome_fit.h"
#include "image/image.h"

#define FS_DOME_TPL_NFILL 13

typedef struct fs_dome_tpl {
	double pitch;       /* px */
	double rfit;        /* the fitted disc's radius, px */
	int nk;             /* fills in use */
	double fill[FS_DOME_TPL_NFILL];
	size_t npts;        /* sample points of the disc */
	float *dx, *dy;     /* their offsets from the centre, px */
	float *t;           /* nk x npts template values */
	double st[FS_DOME_TPL_NFILL], stt[FS_DOME_TPL_NFILL]; /* sums of t, t^2 */
	double shift;       /* first step of the centre search, px */
	double h_over_r, profile; /* the geometry chosen (se_render.h) */
	double blur;        /* and the blur, px */
	double elevation;   /* the shadow's, radians; 0 = none */
	double score;       /* its mean 1 - R^2 over the patches it was chosen on */
} fs_dome_tpl;

/* One tubercle's fit. */
typedef struct fs_dome_tfit {
	double x, y;        /* the centre (moved by the search), px */
	double radius;      /* base radius px; NAN = not measurable */
	double gain, offset; /* the patch's brightness and contrast */
	double quality;     /* R^2 after gain and offset, 0..1 */
} fs_dome_tfit;

/*
 * Builds the templates for img (the image the bases are measured on, a
 * halftone screen already removed) from the formation fit f (its
 * geometry, blur, detector direction and elevation, pitch and lattice
 * angle) around the median fill fill0, with the weights solved on the
 * mean patch of the n centres (xs, ys; px; at most 64 spread over them).
 * Returns 0; 1 when the templates cannot be made (fewer than 8 whole
 * patches, a degenerate formation; t then holds nothing to free); -1 on
 * out of memory (err set).
 */
int fs_dome_tpl_build(const fs_image *img, const fs_dome_fit *f, double fill0, const double *xs,
		      const double *ys, size_t n, int search, fs_dome_tpl *t, char *err, size_t errlen);

/*
 * Fits the tubercle near (x, y) (px of img). Returns 0 (out->radius NAN
 * when the base is not measurable), 1 when its patch does not lie inside
 * the image (out untouched).
 */
int fs_dome_tpl_fit(const fs_dome_tpl *t, const fs_image *img, double x, double y, fs_dome_tfit *out);

void fs_dome_tpl_free(fs_dome_tpl *t);

#endif
