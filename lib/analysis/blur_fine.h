/*
 * blur_fine.h - the image's blur read from the mean patch about given
 * centres through a fine forward model of the formation, every other
 * part of the formation held from a formation fit (dome_fit.h): a
 * blur-only refit, with the centres' common offset searched with it
 * (issue 13; docs/paper-figures.md, h44a).
 *
 * Why: the formation fit's templates read the blur only to -0.05..+0.08
 * px even about the TRUE centres (h42l), and h43b found why: they render
 * se_render's components on 24 samples a pitch (1.5 a px at pitch 16),
 * clip the edge's convexity per grid unit, and leave the pixel's box and
 * the mean patch's bilinear tent to their Gaussian (+0.17 px). h42a's
 * calibration of the level reader needs the beam to ~0.01 px on 4-px
 * domes. Here the components are rendered on `grid` samples a pitch
 * (default 64, 4 a px at pitch 16), the edge clipped per image px, and
 * the model read at the patch's points through the Gaussian convolved
 * with the pixel's box and the bilinear tent (a quadratic B-spline, 3 px
 * wide), in closed form (no blurred grid, no interpolation of it). The
 * mixing weights (constant, yield, the two slope terms, edge, shadow) are
 * solved by least squares at every trial, as the formation fit solves
 * them; the Gaussian's sigma and the common offset of the centres are
 * searched. The offset, because the rule's centres sit off the domes by
 * a common offset that the blur reading otherwise absorbs (h42l: A 22
 * and E 20 read 1.6-1.7 px about the rule's centres, 0.93 about the true
 * ones; a joint search repaired it).
 *
 * What is read: sigma, the Gaussian beyond the pixel's box and the
 * patch's tent; and beam, the same with the share se_render's own 2 x 2
 * sub-samples take (0.0625 (pitch / grid)^2 px^2) put back, i.e. the
 * image's spot on top of its pixels' box. On an image the measurement
 * smoothing or a screen's low-pass has blurred, both include it.
 *
 * Cost: one render of the window (grid 64: 4 samples a px at pitch 16,
 * the window sized for sigma_hi), then some 480 trials of a separable
 * sum over it, each evaluating the closed-form kernel afresh: 3.4 G
 * instructions on a pitch-16 corner scene (h44a, callgrind), 7.7 G with
 * fill_search, 28 G with shape_search - more than the whole dome rule
 * (2.3 G on the lattice); independent of the image's size beyond
 * averaging the patches. Not on any detection path.
 *
 * Ownership: the caller owns every argument; nothing is kept.
 */
#ifndef FS_BLUR_FINE_H
#define FS_BLUR_FINE_H

#include <stddef.h>

#include "analysis/dome_fit.h"
#include "analysis/se_render.h"
#include "image/image.h"

/* how the model is read at the patch's points */
enum {
	FS_BLUR_FINE_BOX_TENT, /* Gaussian x pixel box x bilinear tent (the image's formation and the patch's read) */
	FS_BLUR_FINE_POINT     /* the Gaussian alone (the rule's templates: box and tent left to it) */
};

typedef struct fs_blur_fine_opts {
	int grid;            /* render samples a pitch (default 64) */
	double edge_cap_px;  /* the edge's convexity clipped at this per image px (default 1.5, the
				se_render clip at 24 a pitch of 16 px); <= 0: se_render's clip per grid unit */
	int kernel;          /* FS_BLUR_FINE_BOX_TENT (default) or FS_BLUR_FINE_POINT */
	double sigma_lo, sigma_hi; /* the Gaussian searched within (px; default 0.3..3.0); equal: held
				      there, the rest searched about it (h45a: the fill read at a blur
				      read before, as an alternation's second step) */
	double shift_max;    /* the common offset searched within +-shift_max px on each axis
				(default 1.5); 0: held at shift_x, shift_y */
	double shift_x, shift_y; /* the held offset (px), and the search's start */
	size_t max_centres;  /* at most this many centres (every k-th); 0 = all */
	double fill;         /* > 0: this fill instead of the formation's */
	/* > 0: the fill searched too, within +-fill_search of it (a render
	 * a trial: about 15 more renders and 20 x the trials). Why: on 4-px
	 * domes the fill and the blur trade, and a formation fit's fill read
	 * through the coarse templates carries their misfit (h44a: scene 2's
	 * fit reads fill 0.294 for a true 0.249, and the blur at it 0.60 for
	 * a beam of 0.75) */
	double fill_search;
	/* 1: the dome's profile (0, 1, 2) and height h/R (0.2..1.2 in six
	 * steps) searched too, each with the blur, offset and fill_search
	 * (18 x the cost). Why: the formation fit's shape read through its
	 * coarse templates about the rule's centres is often not the
	 * domes' (h44a), and the blur trades with it */
	int shape_search;
} fs_blur_fine_opts;

typedef struct fs_blur_fine {
	double sigma;     /* the Gaussian read, px */
	double beam;      /* sigma with the render's sub-sample share put back, px */
	double shift_x, shift_y; /* dome centres minus the given centres, px */
	double fill;      /* the fill the model was read at */
	double profile, h_over_r; /* the shape it was read at (the formation's unless shape_search) */
	double misfit;    /* residual sum of squares over the mean patch's, at the best */
	double weights[FS_SE_NCOMP + 1]; /* the components' weights there, the constant last */
	size_t n_used;    /* centres whose patch lay inside the image */
	int trials;       /* misfits evaluated */
} fs_blur_fine;

void fs_blur_fine_opts_default(fs_blur_fine_opts *o);

/*
 * Reads img's blur about the n centres (xs, ys; px) through the fine
 * model of formation f (its pitch, lattice angle, fill, h/R, profile,
 * foot, the detector's azimuth and elevation for the shadow; elevation 0:
 * no shadow part). The mean patch is every whole-pixel offset within
 * half a pitch, read bilinearly about each centre whose patch lies
 * inside. o may be NULL (defaults). Returns 0, or -1 with a message
 * (pitch below 6 px, fewer than 8 centres inside, a geometry se_render
 * refuses, out of memory).
 */
int fs_blur_fine_read(const fs_image *img, const double *xs, const double *ys, size_t n, const fs_dome_fit *f,
		      const fs_blur_fine_opts *o, fs_blur_fine *out, char *err, size_t errlen);

/*
 * The 1-D kernel the model is read through at offset s (px) from a
 * sample: the Gaussian of sigma (px) convolved with the pixel's box and
 * the bilinear tent (FS_BLUR_FINE_BOX_TENT) or alone (FS_BLUR_FINE_POINT);
 * unnormalised density, integral 1. Public for its test.
 */
double fs_blur_fine_kernel(int kernel, double sigma, double s);

#endif
