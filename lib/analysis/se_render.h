/*
 * se_render.h - the forward model of the per-image formation fit
 * (dome_fit.h, issue 13 section 2): a hexagonal lattice of domes rendered
 * as a secondary-electron (SE) detector sees it, on a grid measured in
 * pitches (g samples per pitch), split into the parts of the signal that
 * enter it linearly so that a fit can solve for their weights instead of
 * searching them:
 *   FS_SE_YIELD   sec(tilt)            the secant law (exponent 1)
 *   FS_SE_SLOPE_X -dz/dx / sec(tilt) x sec(tilt) = -dz/dx
 *   FS_SE_SLOPE_Y -dz/dy               a side detector at azimuth a weighs
 *                                      them cos a and sin a (slopes facing
 *                                      it brighter, facing away darker)
 *   FS_SE_EDGE    convexity            edge brightening (electrons escape
 *                                      from convex rims), capped
 *   FS_SE_SHADOW  sec(tilt) where the  shadowing: the straight path to the
 *                 path is blocked      detector at (azimuth, elevation)
 *                                      passes under the surface
 * Why split: brightness and contrast of a micrograph are unknown, and the
 * detector's strength, azimuth, the edge brightening and the depth of the
 * shadow are weights of these parts; only the geometry (fill, h/R,
 * profile, lattice angle), the blur and the shadow's direction have to be
 * searched.
 *
 * The heights are in grid units, so the slopes (and the image) do not
 * depend on the pitch: a dome of fill f and height ratio h/R looks the
 * same at every scale, up to the blur. Slopes and curvature are the dome
 * profile's analytic derivatives, averaged over 2 x 2 subsamples of each
 * grid sample (what a pixel integrates), so that a dome a few samples
 * wide keeps its base where it is; only the shadow test uses the heights
 * at the samples.
 *
 * This is written for the analysis and kept separate from the test suite's
 * simulator (tests/unit/support/sem_sim.c), which stays the independent
 * generator of the images the fit is judged on.
 *
 * Ownership: fs_se_field owns its arrays (fs_se_field_free); everything
 * else belongs to the caller.
 */
#ifndef FS_SE_RENDER_H
#define FS_SE_RENDER_H

#include <stddef.h>

enum { FS_SE_YIELD, FS_SE_SLOPE_X, FS_SE_SLOPE_Y, FS_SE_EDGE, FS_SE_SHADOW, FS_SE_NCOMP };

typedef struct fs_se_geom {
	double fill;     /* base diameter / pitch */
	double h_over_r; /* dome height / base radius */
	double profile;  /* 0 spherical cap, 1 paraboloid, 2 flat-topped (continuous) */
	double angle;    /* direction of one lattice vector, radians (y down) */
	/* the foot: at most 1 (or 0, unset) the profile as above, whose
	 * flank meets the ground at an angle (a sharp foot); m > 1 raises the
	 * profile's height fraction to the power m, h = H (h0 / H)^m, so the
	 * slope falls to 0 at the support like (1 - u)^(m - 1): a foot that
	 * flattens smoothly into the ground (h42h, h43c: the simulator's cos^2
	 * dome is close to the paraboloid at m = 2). The support (fill) and
	 * the top's height are the same at every m, so the fill a fit reads
	 * is where the surface meets the ground whichever foot it picks. */
	double foot;
} fs_se_geom;

typedef struct fs_se_field {
	int g;          /* samples per pitch */
	int half;       /* the components cover [-half, half]^2 around a site */
	int zhalf;      /* the height field covers [-zhalf, zhalf]^2 */
	float *z;       /* (2 zhalf + 1)^2 heights, grid units */
	float zmax;     /* the highest of them (0 for a flat field) */
	float *c[FS_SE_NCOMP]; /* (2 half + 1)^2 each, unblurred */
} fs_se_field;

/*
 * Renders the heights and the first four components of geometry m around
 * one site of the lattice at the origin, for a window of half width half
 * (grid samples) and shadows reaching reach samples beyond it. The field's
 * arrays are (re)allocated as needed; a zeroed field is a valid start.
 * FS_SE_SHADOW is set to zero. Returns 0, -1 on bad arguments or out of
 * memory.
 */
int fs_se_render(const fs_se_geom *m, int g, int half, int reach, fs_se_field *f);

/*
 * A render's geometry kept for the next renders of the same support: the
 * height samples and component subsamples that lie on a dome (and their
 * distances from its site), which depend on the fill, the lattice's angle,
 * g, half and reach alone, not on the dome's height, profile or foot. A
 * formation fit renders a dozen shapes at one fill; with a plan the sites'
 * loop and its hypot() calls are made once for them. Zeroed, a valid
 * start; owned by the caller, freed by fs_se_plan_free.
 */
typedef struct fs_se_plan_z {
	size_t i; /* index into fs_se_field.z */
	double u; /* r / R */
} fs_se_plan_z;

typedef struct fs_se_plan_sub {
	size_t o;          /* index into the components */
	double px, py, rr; /* the subsample's offset from its site and hypot(px, py) */
	double uu;         /* rr / R */
} fs_se_plan_sub;

typedef struct fs_se_plan {
	double fill, angle; /* the key: the last render's support and lattice */
	int g, half, reach;
	int key_set, built;  /* a key is held; the lists below are its */
	fs_se_plan_z *z;
	fs_se_plan_sub *sub;
	size_t nz, capz, ns, caps;
} fs_se_plan;

/*
 * fs_se_render, the same field to the bit, through plan p: the second
 * render in a row of one support (fill, angle, g, half, reach) makes the
 * plan, the next ones read it; a render of another support is made
 * directly and becomes the key.
 */
int fs_se_render_planned(const fs_se_geom *m, int g, int half, int reach, fs_se_field *f, fs_se_plan *p);

void fs_se_plan_free(fs_se_plan *p);

/* fs_se_render with the edge part's convexity clipped at edge_cap per grid
 * unit instead of fs_se_render's 1 (the same bits at edge_cap 1). Why: the
 * clip is a property of the surface per unit of its length (the
 * simulator's 1.5 per image px, h40b), so a grid finer than the image's
 * pixels must clip at the same length, not at the same number of grid
 * units (h43b: at 64 samples a pitch of 16 px the fixed clip is 4 per px,
 * and the tall spheres read the blur +0.01..+0.02 px off for it; h44g:
 * fs_dome_fit_opts.fine_render). */
int fs_se_render_cap(const fs_se_geom *m, int g, int half, int reach, double edge_cap, fs_se_field *f);

/* Fills FS_SE_SHADOW for a detector at azimuth az (radians, x right, y
 * down) and elevation el (radians above the surface) from the heights of
 * the last fs_se_render. */
void fs_se_shadow(fs_se_field *f, double az, double el);

void fs_se_field_free(fs_se_field *f);

/*
 * The dome profile fs_se_render draws, at u = r / R (0..1) for height
 * ratio H: the height h, slope h' and second derivative h'' in base radii
 * (the profile's blend as fs_se_geom's). Public so that a variant of the
 * model's linear parts (the benches') draws the same domes.
 */
void fs_se_dome_shape(double u, double H, double profile, double *h, double *h1, double *h2);

/* The same with the foot exponent of fs_se_geom.foot (at most 1: as
 * fs_se_dome_shape, to the bit). */
void fs_se_dome_shape_foot(double u, double H, double profile, double foot, double *h, double *h1, double *h2);

/*
 * The edge part of geometry m (FS_SE_EDGE's sites, 2 x 2 subsamples and
 * profile with its foot) with its convexity clipped per image px instead
 * of per grid unit: into out ((2 half + 1)^2, zeroed first) the mean over
 * each sample's subsamples of clip(-Laplacian of the height, 0, cap_px),
 * the Laplacian in px^-1 (px_per_sample: the image's px per grid sample,
 * pitch_px / g). What fs_blur_fine renders and the benches' physical
 * model (h40b, h44a). The sites and subsamples are the render's own (its
 * plan, fs_se_render_planned's, made and freed here). Returns 0, -1 on
 * bad arguments (those fs_se_render refuses, or px_per_sample or cap_px
 * not above 0) or out of memory.
 */
int fs_se_edge_px(const fs_se_geom *m, int g, int half, double px_per_sample, double cap_px, float *out);

/*
 * The cast shadow's outer border beyond the base of one dome (h_over_r,
 * profile as fs_se_geom's), in base radii, along the direction facing
 * away from a detector at elevation el (radians): where the base rule's
 * rays on that side read their step, the base's own step not being in
 * the image there (docs/paper-figures.md, h36i). 0 when the dome's foot
 * is no steeper than el (no shadow beyond the base). Neighbours'
 * shadows are not counted.
 */
double fs_se_shadow_reach(double h_over_r, double profile, double el);

/*
 * The shadow's border beyond the base (base radii) on rays all round the
 * dome: a ray at phi from the away direction sees the dome at the
 * elevation atan(tan el / cos phi); a ray whose border lies more than cap
 * beyond the base counts 0 (the base rule's window leaves it out, its
 * outlier cut puts it on the circle). *mean is the rays' mean, *a2 the
 * amplitude of its cos(2 phi) term: a circle fitted with a free centre
 * through readings on the border is larger than the base by *mean (the
 * first harmonic moves the centre), and the readings' polygon is
 * elongated along the detector's axis by *a2 (semi-axes R + a2, R - a2).
 */
void fs_se_shadow_rays(double h_over_r, double profile, double el, double cap, double *mean, double *a2);

#endif
