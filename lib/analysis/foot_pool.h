/*
 * foot_pool.h - the domes' foot read once for the whole image: the mean
 * radial profile of every dome about its centre, in units of the image's
 * median base radius, pooled over all the domes of the image (issue 13,
 * h48h in docs/paper-figures.md).
 *
 * Why: a foot's shape (sharp: the flank meets the ground at an angle;
 * smooth: it flattens into it) belongs to the specimen, so every tubercle
 * of an image shares it, while a single dome's pixels do not tell the two
 * apart (h47c: per dome and in the formation's misfit nothing separated
 * them). Pooled over hundreds of domes the profile beyond the base the
 * rule reads says how far the surface's signal reaches past it.
 *
 * Ownership: every array is the caller's; nothing is kept between calls.
 */
#ifndef FOOT_POOL_H
#define FOOT_POOL_H

#include <stddef.h>

#include "image/image.h"
#include "image/tubercle.h"

/* the profile's bins: FS_FOOT_POOL_STEP of the median radius each, from
 * the centre out */
#define FS_FOOT_POOL_BINS 40
#define FS_FOOT_POOL_STEP 0.05

typedef struct fs_foot_pool {
	size_t domes;     /* domes pooled */
	double r_px;      /* their median base radius, px */
	double reach;     /* the profile's last filled radius, in r_px */
	/* the mean of the image over every pixel whose distance from a
	 * dome's centre, over r_px, falls in the bin (NAN: no pixel) */
	double prof[FS_FOOT_POOL_BINS];
	/* the profile's contrast c(u) = (P(u) - ground) / (peak - ground),
	 * ground its least value past 0.9 and peak its greatest inside 1.1,
	 * averaged over u < 0.3 (centre) and 0.8 <= u < 1.0 (edge, just
	 * inside the base the rule reads); NAN when the profile is flat */
	double centre, edge;
	/* past the profile's peak, the radius (in r_px) over which the
	 * contrast, every 0.1 averaged over two bins, falls from 0.8 to 0.2;
	 * NAN where it does not */
	double fall;
} fs_foot_pool;

/*
 * The decision: smooth where the median radius is at least
 * FS_FOOT_POOL_MIN_R px, the centre's contrast exceeds the edge's by
 * more than FS_FOOT_POOL_BAR and the fall is wider than FS_FOOT_POOL_FALL. Why: a sharp foot's flank is steepest at
 * the base, so its signal is brightest just inside the base (the
 * simulator's sharp corner and interior scenes: excess -1.21..+0.02 over
 * 8 seed sets), a smooth foot's flank flattens there and the rule reads
 * its base on the flank, so the profile falls from the centre through
 * it (the smooth-footed set: +0.26..+0.90); the bar is the gap's middle
 * (h48h, docs/paper-figures.md). Below 3 px (the corner scenes' 4-px
 * domes, R 1.8-2.4 px) the beam's blur rounds either foot into one blob
 * (excess +0.08..+0.51 on those sharp domes), so the image is not told
 * smooth there.
 */
#define FS_FOOT_POOL_MIN_R 3.0
#define FS_FOOT_POOL_BAR 0.14
/* and where the profile falls over more than FS_FOOT_POOL_FALL of the
 * radius: a uniform disc's base (bench_detect_domes' synthetic lattice)
 * also reads its centre brighter than its edge bins (excess +0.17), but
 * falls within the blur (0.17); the smooth set falls over 0.33-0.76, the
 * sharp corner and interior scenes over 0.08-0.34 */
#define FS_FOOT_POOL_FALL 0.25
int fs_foot_pool_smooth(const fs_foot_pool *fp);

/*
 * The support read from the pooled profile of a smooth-footed image: the
 * radius (in the median radius) at which the contrast, every 0.1 of it
 * averaged over two bins, first falls below FS_FOOT_POOL_FADE past the
 * centre, times FS_FOOT_POOL_SUPPORT_K; NAN where the profile does not
 * fall that far. Why (h48h): on the smooth-footed set the rule reads the
 * flank (-37 % on average), and the ratio of the true support to that
 * radius, calibrated on the set's own seeds (the median, 1.187), reads
 * the held-out seeds' mean D with a mean |D| of 9.9 %; a cos^2 dome is at
 * 5 % of its height at 0.857 of its support, 1 / 0.857 = 1.17.
 */
#define FS_FOOT_POOL_FADE 0.05
#define FS_FOOT_POOL_SUPPORT_K 1.187
double fs_foot_pool_support(const fs_foot_pool *fp);

/*
 * The radius (in the median radius) at which the contrast, every 0.1 of it
 * averaged over two bins, first falls below level past the centre (linear
 * between the steps' middles); NAN where it does not fall that far or the
 * profile is flat. fs_foot_pool_support is FS_FOOT_POOL_SUPPORT_K times
 * the fade at FS_FOOT_POOL_FADE.
 */
double fs_foot_pool_fade(const fs_foot_pool *fp, double level);

/*
 * The profile's tail, as a shape free of the rule's scale: the fade at 0.2
 * over the fade at 0.5. A cos^2 bump's brightness reads 1.41 (acos
 * sqrt(0.2) / (pi / 4)); a blur, a spread of sizes pooled at the median
 * radius or a skirt past the bump makes it heavier (h48l: the simulator's
 * smooth-told scenes 1.16-1.42 on seed sets 0 and 4000, P1 Fig2 1.38, P2
 * Fig1e 1.53, the gars' figures 1.52-1.80: it does not part the genera,
 * docs/paper-figures.md). NAN where either fade is.
 */
double fs_foot_pool_tail(const fs_foot_pool *fp);

/*
 * fs_foot_pool_set_support: an option (h48h; 0 by default, no detection
 * path sets it): where on, the dome rule's sizes at its final centres
 * (fs_det_size_domes_list, detection and Re-measure alike) are scaled by
 * fs_foot_pool_support wherever the image's pooled profile says smooth
 * (fs_foot_pool_smooth) and the support lies beyond the rule's reading.
 * 2 (h52f): the same gate, the support read instead as the mean dome's
 * contour (foot_contour.h: where |mean patch - ground| ends, on a circle
 * centred on the support whatever the lighting), over the median radius;
 * under a halftone screen (fs_halftone_detect) the patch smoothed by
 * FS_FOOT_CONTOUR_SCREEN x the period. Process-wide; returns the previous
 * value.
 */
int fs_foot_pool_set_support(int on);
int fs_foot_pool_support_on(void);

/*
 * The option's step: t's tubercles (full-resolution px) pooled on img,
 * which is the image reduced f times, and, where it says smooth and the
 * support lies beyond, every radius (and ellipse axis) of t multiplied by
 * the support reading, *scale set to it (else 1, t unchanged; NaN radii
 * stay NaN). Returns 0, or -1 with a message when out of memory.
 */
int fs_foot_pool_scale_list(const fs_image *img, double f, fs_tubercle_list *t, double *scale, char *err,
			    size_t errlen);

/*
 * The pooled profile of img about the n domes (xs, ys, rs: centres and
 * base radii, px) of a lattice of the given pitch (px). Each dome gives
 * its pixels within half the pitch of its centre (the cell's inscribed
 * circle, so that no neighbour's own flank enters). Returns 0; -1 with a
 * message when there are fewer than 8 domes, no usable radius or pitch,
 * or no memory.
 */
int fs_foot_pool_read(const fs_image *img, const double *xs, const double *ys, const double *rs, size_t n,
		      double pitch, fs_foot_pool *out, char *err, size_t errlen);

/*
 * The same profile with every dome's pixels binned in its OWN radius (rs[i])
 * instead of the median's (r_px is still the median; each dome's reach is
 * half the pitch or 2 of its radii): a spread of the domes' sizes then
 * no longer widens the pooled fall (h48l). Returns as fs_foot_pool_read.
 */
int fs_foot_pool_read_own(const fs_image *img, const double *xs, const double *ys, const double *rs, size_t n,
			  double pitch, fs_foot_pool *out, char *err, size_t errlen);

#endif
