/*
 * se_mean_dome.h - variants of the dome rule's forward model
 * (analysis/se_render.h) for the MEAN patch of many domes, not one dome
 * (issue 13; docs/paper-figures.md, h40c): bench_formation_lm fits them
 * to the sub-pixel mean of every dome near its true centre, and h39j
 * found se_render misfits that mean by 2-8x the noise. Three ways in
 * which a mean of real domes is not one rendered dome, each optional:
 *
 *   SE_MEAN_JITTER  the radii scatter (relative SD s): the mean is the
 *                   lattice averaged over R (1 + e), e ~ N(0, s^2), on
 *                   three Gauss-Hermite nodes. Exact for every component
 *                   but the shadow, because each point lies on one dome
 *                   and the components are sums over domes, so the
 *                   neighbours' independent radii average the same way
 *                   as one common radius.
 *   SE_MEAN_ROUGH   fine random slopes r ~ N(0, t^2 I) and Laplacian
 *                   n ~ N(0, l^2) added to the dome's: the mean yield is
 *                   E sec(grad z + r) (to second order in t, exact in
 *                   its structure: + t^2 / 2 (2 + |g|^2) / sec^3) and the
 *                   mean edge E clip(-lap + n, 0, cap) (closed form);
 *                   the slopes' mean is unchanged (linear).
 *   SE_MEAN_PIXEL   an image pixel integrates its whole square: the
 *                   surface is sampled `fine` times finer than the bins
 *                   and box-integrated over 1 px before the blur.
 *
 * The geometry (profile family, hexagonal lattice), the edge's cap per
 * image pixel and the shadow (analysis/se_render.h's fs_se_shadow: the
 * yield where the straight path to the detector is blocked, from the
 * sample heights) are those of the rule's model, so that a variant
 * differs from it only in the term it tests. With no variant this is
 * se_render's model evaluated in px units (the bench's "base" model,
 * the control).
 *
 * Ownership: se_mean_ctx owns its buffers (se_mean_free); out arrays are
 * the caller's.
 */
#ifndef SE_MEAN_DOME_H
#define SE_MEAN_DOME_H

#include "analysis/se_render.h"

enum { SE_MEAN_JITTER = 1, SE_MEAN_ROUGH = 2, SE_MEAN_PIXEL = 4 };

typedef struct se_mean_par {
	double fill, h_over_r, profile, angle; /* as fs_se_geom */
	double pitch_px;
	double az, el;     /* detector, radians (the shadow) */
	double blur_px;    /* Gaussian sigma */
	double sx, sy;     /* the centres' common offset, px */
	double jitter;     /* relative SD of R (SE_MEAN_JITTER) */
	double rough_t;    /* SD of each random slope component (SE_MEAN_ROUGH) */
	double rough_l;    /* SD of the random Laplacian, 1 / px (SE_MEAN_ROUGH) */
} se_mean_par;

typedef struct se_mean_ctx {
	int kinds;        /* SE_MEAN_* bits */
	int q;            /* output samples (bins) per px */
	int wb;           /* output half width, bins: out is (2 wb + 1)^2 */
	int fine;         /* fine samples per bin under SE_MEAN_PIXEL (>= 1) */
	double edge_cap;  /* the edge term's clip, 1 / px */
	/* buffers */
	fs_se_field f;    /* the fine field: heights and components */
	float *acc[FS_SE_NCOMP], *tmp;
	size_t acc_n, tmp_n;
	long renders;
} se_mean_ctx;

/*
 * The five components (FS_SE_YIELD ... FS_SE_SHADOW, se_render's meaning;
 * the edge in 1 / px, clipped at edge_cap) of the mean dome of p around
 * the origin, blurred and moved by the offset, on the (2 wb + 1)^2 bins
 * of 1 / q px: out[k] gets them. 0, or -1 on bad parameters or out of
 * memory.
 */
int se_mean_components(se_mean_ctx *c, const se_mean_par *p, float *const out[FS_SE_NCOMP]);
void se_mean_free(se_mean_ctx *c);

#endif
