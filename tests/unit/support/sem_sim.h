/*
 * sem_sim.h - a physically based simulator of secondary-electron (SEM)
 * images of a tuberculated scale surface, with exact truth, for the
 * accuracy tests of the diameter measurement (issue 13) and the benchmark.
 *
 * The scene is a height field: domes on a hexagonal lattice (base radius R
 * is the truth; profiles from spherical cap through paraboloid to
 * flat-topped; height H = h_over_r x R; radius and position jitter; missing
 * sites) on a surface with low-frequency undulation and fine roughness.
 * The image is formed from it as an SE detector sees it, each pixel the
 * beam-spot-weighted yield of the surface under it (the yield from the
 * analytic slope at sub-pixel samples, then the beam's blur: see
 * sem_surface.h):
 *   yield = sec(tilt)^n           (secant law, tilt from the local slope)
 *         x (1 + k (n.d - sin e)) (side detector at azimuth a, elevation e:
 *                                  slopes facing it brighter, away darker)
 *         x (1 - s)  where the path to the detector is blocked (shadowing)
 *         + edge x convexity      (edge brightening: electrons escape from
 *                                  convex rims)
 * then beam blur, brightness/contrast drift, shot noise and 8/16-bit
 * quantisation; optionally the reproduction of a published figure: a 45°
 * halftone screen, scan blur, resampling and JPEG compression. Parts of the
 * frame can be non-scale: a white paper margin at the top, a black
 * surround at the left holding a label and a scale bar.
 *
 * Truth: the centres and base diameters of the domes (output pixels), the
 * edge-to-edge spaces between true neighbours (both sites present), and the
 * scale region (a rectangle).
 *
 * Ownership: sem_make returns a new fs_image (free with fs_image_free) and
 * fills a sem_truth whose arrays are freed by sem_truth_free.
 * Deterministic: the same options (seed included) give the same image.
 */
#ifndef SEM_SIM_H
#define SEM_SIM_H

#include <stddef.h>

#include "image/image.h"
#include "sem_surface.h" /* SEM_PROFILE_SMOOTH */

typedef struct sem_opts {
	int width, height;   /* rendered size, before resampling */
	double pitch;        /* centre distance of neighbours, px */
	double fill;         /* base diameter / pitch, 0.1..0.9 */
	double angle;        /* lattice rotation, radians */
	double profile;      /* 0 spherical cap, 1 paraboloid, 2 flat-topped (continuous);
			      * SEM_PROFILE_SMOOTH (3) the smooth-footed cos^2 dome,
			      * its D the profile's support (sem_surface.h) */
	double h_over_r;     /* dome height / base radius */
	double radius_jitter; /* relative SD of R */
	double pos_jitter;   /* SD of the position, fraction of the pitch */
	double missing;      /* fraction of sites without a dome */
	double undulation;   /* amplitude of the low-frequency surface, px of height */
	double roughness;    /* SD of the fine roughness, px of height */
	double secant_n;     /* exponent of the secant law */
	double det_azimuth;  /* radians, direction towards the detector (x right, y down) */
	double det_elevation; /* radians above the surface plane */
	double det_strength; /* k: 0 = no directional contrast */
	double shadow;       /* depth of the shadow, 0..1 */
	double edge;         /* edge brightening strength */
	double beam_blur;    /* sigma, px */
	double dose;         /* electrons per unit signal for shot noise; 0 = none */
	int bits;            /* 8 or 16; 0 = no quantisation */
	double drift;        /* brightness / contrast drift amplitude (0..0.3) */
	double halftone;     /* period of the 45° screen, px; 0 = none */
	double scan_blur;    /* sigma after the halftone, px */
	double resample;     /* output scale factor (1 = none) */
	int jpeg_quality;    /* 0 = none, else 1..100 */
	int margin_top;      /* white paper band at the top, px (rendered) */
	int black_left;      /* black surround at the left, px, with label and bar */
	unsigned seed;
	/* Rendering (sem_surface.h): sub-samples per pixel side where the
	 * yield is not smooth (0 = SEM_SUPERSAMPLE); raw = 1 returns the
	 * beam-blurred signal itself (no detector response, noise, margins or
	 * reproduction: for tests of the physics); radius_scale (0 = 1)
	 * multiplies every base radius after the jitter (the truth follows),
	 * so that the same scene can be rendered with larger or smaller domes. */
	int supersample;
	int raw;
	double radius_scale;
	/* Leaning tops (h37i, SEM_PROFILE_SMOOTH only): each dome's top lies
	 * lean x R from its base's centre towards lean_azimuth (radians), the
	 * base - the truth - unchanged (sem_surface_lean); 0 = centred, every
	 * scene before it to the bit. sem_make fails (NULL) for a lean
	 * outside 0..SEM_LEAN_MAX or on another profile. */
	double lean, lean_azimuth;
	/* A crack across the scale (h37h: P2 Fig1c's, where the local editor
	 * added tubercles): a groove crack_width px wide (0 = none, and then
	 * the scene is the same to the bit as before these fields) and
	 * crack_depth px deep, a Gaussian of sigma crack_width / 4 cut into
	 * the surface along the line at crack_angle (radians) through the
	 * frame's centre moved crack_offset px across it. The ganoine is broken
	 * there: no dome stands within crack_width / 2 of the line (the truth
	 * has none). Its steep walls show as bright lines, as in the figure. */
	double crack_width, crack_depth, crack_angle, crack_offset;
	/* A bright cap (h37r, any profile): each dome's signal times
	 * 1 + cap (z / Z)^cap_power, z its height at the point and Z its top's
	 * - a material or charging contrast independent of the slope
	 * (sem_surface_cap). cap 0 = none, every scene before it to the bit;
	 * cap_power 0 = 2. sem_make fails (NULL) for a cap outside
	 * 0..SEM_CAP_MAX or a power above SEM_CAP_POWER_MAX. */
	double cap, cap_power;
	/* The smooth dome's foot (h42h, SEM_PROFILE_SMOOTH only, no lean or
	 * cap; sem_surface_foot): foot_power, the cos^2 profile to that power,
	 * the base - the truth - the same; foot_stretch (>= 1), each dome's
	 * core (the cos^2 dome of its lattice radius inside foot_from of it,
	 * 0 = 0.8) kept and the tail beyond stretched to end at stretch x the
	 * radius, which is the truth's base. 0, 0 = the cos^2 dome, every
	 * scene before them to the bit; sem_make fails (NULL) outside their
	 * ranges (sem_surface.h) or on another profile. */
	double foot_power, foot_stretch, foot_from;
	/* A common offset of every dome from its lattice site (h39d), in
	 * rendered px, the truth moved with it: the centres' common offset
	 * as a parameter of the image, so that bench_sem_crlb can take the
	 * image's derivative with respect to it. 0, 0 = none, every scene
	 * before it to the bit. */
	double shift_x, shift_y;
	/* The beam spot done continuously (h40s): 1 blurs the signal on the
	 * sub-sample grid before the pixel's box (sem_surface_render_beam:
	 * every pixel the signal convolved with a continuous Gaussian of
	 * sigma sqrt(beam_blur^2 - 1/12) and then its box, the same variance
	 * as the default's), instead of the default's box and then a Gaussian
	 * sampled on the pixel lattice, which a sub-pixel view of the image
	 * sees as a staircase kernel (docs/paper-figures.md, h40a). 0 = the
	 * lattice blur, every scene before it to the bit. */
	int beam_continuous;
} sem_opts;

/* Sub-samples per pixel side (16 per pixel, at 16 distinct columns and
 * rows): the rendered edge of a base is then within about 1 / 32 px of
 * the true one; test_sem_physics.c measures it and how little the image
 * changes with more. */
#define SEM_SUPERSAMPLE 4

typedef struct sem_truth {
	size_t n;             /* domes rendered (centre anywhere in the frame) */
	double *x, *y, *d;    /* centre and base diameter, output px */
	int *inside;          /* 1 when the whole base lies in the scale region */
	size_t n_pairs;       /* true neighbour pairs (both present) */
	int *pi, *pj;         /* indices into x, y, d */
	double *space;        /* edge-to-edge space of each pair, output px */
	double rx0, ry0, rx1, ry1; /* the scale region [rx0, rx1) x [ry0, ry1), output px */
	double pitch;         /* output px */
	int width, height;    /* output size */
} sem_truth;

/* Defaults: 320x256, pitch 24, fill 0.5, paraboloid h/R 0.5, detector at
 * azimuth 0, elevation 35°, moderate noise, 8-bit, no reproduction. */
void sem_defaults(sem_opts *o);
/* Returns the image or NULL (bad options, out of memory); t is filled. */
fs_image *sem_make(const sem_opts *o, sem_truth *t);
void sem_truth_free(sem_truth *t);
/*
 * One scene at n (1..SEM_EDGES_MAX, sem_surface.h) edge brightening
 * strengths edge[0..n-1] (o->edge is not used): img[e] gets, to the bit,
 * sem_make's image of o with edge = edge[e], and t the truth they share
 * (it does not depend on the strength). The surface is walked once (the
 * slopes, shadows and sub-samples are the same for every strength, which
 * only scales the signal's last term) and each image is then formed from
 * the same state of the random generator (h35i: test_paper_profile_fill's
 * bank renders each dome at two strengths). Ownership: every img[e] a new
 * fs_image (fs_image_free), t as sem_make's. Returns 0; -1 on bad options
 * or out of memory, with every img[e] NULL.
 */
int sem_make_edges(const sem_opts *o, const double *edge, int n, fs_image **img, sem_truth *t);
/*
 * The printed figure's halftone screen of period P (> 0) and then the scan
 * blur of sigma scan_blur (0: none), in place, on an image sem_make
 * rendered without a screen, resampling or JPEG (halftone 0, resample 1,
 * jpeg_quality 0): the result is, to the bit, sem_make's image of the same
 * options with halftone = P and that scan_blur (the screen comes after
 * every random draw; the truth is the same). So a test that reads one
 * scene under several screens renders its surface once (h35f). Returns 0,
 * -1 on bad input or out of memory.
 */
int sem_screen(fs_image *img, double P, double scan_blur);

/*
 * The operator's brightness and contrast as sem_make sets them: the 1st
 * and 99th percentiles of every 7th sample of the noise-free signal sig
 * (single channel) into *lo, *hi (hi at least lo + 1e-6), which sem_make
 * maps to 0.12..0.88. Shared with bench_sem_crlb, whose bound must see
 * the same contrast. 0, or -1 out of memory.
 */
int sem_operator_range(const fs_image *sig, double *lo, double *hi);

/*
 * Scene k (0..63) of issue 13's corner matrix, shared by the accuracy tests
 * so that they judge the same scenes: bit 0 fill 0.25/0.80, 1 profile
 * spherical/flat-topped, 2 h/R 0.25/1.0, 3 halftone none/5 px, 4 detector
 * azimuth 0/135 degrees, 5 pitch 16/64 px; about 12 x 10 pitches (at least
 * 320 x 256), lattice angle 0.37 k mod 60 degrees, and every fourth scene
 * with a white paper margin on top and black surroundings on the left.
 */
void sem_corner_scene(int k, sem_opts *o);
/*
 * Scene k (0..SEM_SMOOTH_SCENES - 1) of the smooth-footed set (h34h,
 * test_sem_smooth.c): cos^2 domes (SEM_PROFILE_SMOOTH) at fill 0.30 /
 * 0.55 / 0.75 (k mod 3), then by the bits of k / 3: bit 0 pitch 24/48 px,
 * 1 h/R 0.25/0.5, 2 detector azimuth 0/135 degrees, 3 halftone none/5 px;
 * about 12 x 10 pitches (at least 320 x 256), lattice angle 0.37 k mod 60
 * degrees, the defaults' formation, seed 2000 + k, no margins.
 */
#define SEM_SMOOTH_SCENES 48
void sem_smooth_scene(int k, sem_opts *o);
/*
 * Scene i (0..SEM_INTERIOR_SCENES - 1) between the corners (h34i, h35c;
 * test_sem_accuracy's third table): spherical caps without a screen at
 * fill 0.4-0.7, pitch 28-40, h/R 0.25 / 0.5, in corner scene 33's
 * (detector at 0 deg) or 49's (135 deg) formation; 12 x 10 pitches, seeds
 * of their own (3000 + i for the first ten).
 */
#define SEM_INTERIOR_SCENES 14
void sem_interior_scene(int i, sem_opts *o);
/* Whether a point lies inside the scale region of t at least 0.75 pitch
 * from its border (where a dome is whole and has all its neighbours). */
int sem_counted(const sem_truth *t, double x, double y);
/* The true centres of t that sem_counted keeps, in t's order, into the
 * caller's xs and ys (room for t->n each). Returns how many. */
size_t sem_counted_centres(const sem_truth *t, double *xs, double *ys);

/*
 * Greedy one-to-one matching of detections (xs, ys; n) to the truth by
 * distance, within max_dist. match_of_det[i] (n entries, may be NULL) gets
 * the truth index or -1; match_of_truth (t->n entries, may be NULL) the
 * detection or -1. Returns 0, -1 on out of memory.
 */
int sem_match(const sem_truth *t, const double *xs, const double *ys, size_t n, double max_dist,
	      int *match_of_det, int *match_of_truth);

/* Scenes of the 64-corner matrix a test runs: all in the plain build, every
 * eighth under the sanitizers (there they look for memory errors; the
 * integrated pixels make a scene cost 0.5-5 s plain, several times that
 * under ASan), so the accuracy levels are asserted in the plain build. */
#if defined(__SANITIZE_ADDRESS__)
#define SEM_SCENE_STEP 8
#else
#define SEM_SCENE_STEP 1
#endif

#endif
