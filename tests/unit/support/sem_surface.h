/*
 * sem_surface.h - the continuous surface of the SEM simulator (sem_sim.c)
 * and the secondary-electron signal it gives, evaluated at any point
 * (x, y) in rendered pixels (pixel centres at integers) rather than on the
 * pixel grid.
 *
 * Why: a pixel's SE signal is the beam-spot-weighted yield of the surface
 * under it. The yield is a nonlinear function of the slope, and the slope
 * jumps at a dome's base; slopes taken by differences between pixels, or a
 * yield taken only at the pixel centre, move the rendered edge off the true
 * base by a sizeable part of a pixel (0.4-0.55 px inside it with central
 * differences, branch h18b-sim). Here the heights, slopes and curvature
 * of the domes and the undulation are analytic, the yield is integrated
 * over each pixel by S x S sub-samples where it is not smooth (a dome's
 * base, a shadow's border) and the rest of the beam spot is a Gaussian
 * applied afterwards (sem_sim.c): the edge of the rendered signal stays at
 * the true base.
 *
 * Shadowing: a point is shadowed when the straight path towards the
 * detector passes under a dome. Domes are the only blockers: the
 * undulation and the fine roughness are far flatter than the detector's
 * elevation. Along a path a sharp-footed dome's height minus the ray's is
 * concave (the cap, paraboloid and flat-topped profiles are), so its
 * maximum is found by a golden-section search, not by sampling the path;
 * the smooth-footed dome's is not (convex across its foot), and there a
 * branch and bound on the gap's slope finds it (sem_surface.c,
 * dome_blocks_any; test_sem_physics checks both against a march).
 *
 * The smooth-footed dome (profile SEM_PROFILE_SMOOTH, h34h): height
 * H R cos^2(pi r / 2R), slope 0 at the top and at the base, steepest
 * (H pi / 2) at r = R / 2. Its base radius R - the truth - is the
 * profile's support: where the height reaches the ground, with the
 * ground's slope. The height is a quarter of the top's at r = 0.667 R,
 * 5 % at 0.857 R and 1 % at 0.936 R, so a reading of where the dome
 * "ends" that stops at a small height reads it smaller than D = 2R.
 * It models tubercles whose flanks flatten into the ganoine (P1 Fig1,
 * docs/paper-figures.md, h34g); the other profiles end on the ground with
 * a slope (a sharp foot).
 *
 * Ownership: sem_surface_init allocates the arrays of s (freed by
 * sem_surface_free); it keeps pointers to domes and rough, which the caller
 * owns and keeps alive while s is used.
 */
#ifndef SEM_SURFACE_H
#define SEM_SURFACE_H

#include <stddef.h>

#include "image/image.h"

/* The profile value of the smooth-footed (cos^2) dome; the others are
 * the continuous range 0..2 (sem_sim.h). */
#define SEM_PROFILE_SMOOTH 3.0

typedef struct sem_dome {
	double x, y, R; /* centre and base radius, rendered px */
} sem_dome;

typedef struct sem_surface {
	int W, H;
	double h_over_r, profile;
	/* the spherical cap's sphere for R = 1: Rs^2 and Rs - H, the same
	 * products dome_f made on every call before h34k */
	double Rs, Rs2, RsH;
	/* undulation: und_amp / 2 (sin(k1 . p + p1) + sin(k2 . p + p2)) */
	double und_amp, k1x, k1y, k2x, k2y, p1, p2;
	double und_slope; /* the undulation's steepest slope */
	float *und;       /* its samples, uw x uh from (-um, -um) */
	int uw, uh, um;
	/* at each pixel's centre (W x H): sin and cos of the two waves'
	 * phases, made with the grid's samples (h34k) */
	double *trig;
	double und_dx, und_dy; /* the grid's largest step along x, along y */
	double und_path;       /* their bound on its rise per px towards the detector */
	/* roughness heights on the pixel grid, and their slope and Laplacian
	 * there by differences (it is smooth over ~1 px) */
	const float *rough;
	float *rgx, *rgy, *rlap;
	const sem_dome *domes;
	size_t n_domes;
	double rmax; /* the largest base radius */
	/* buckets of side B listing the domes whose disk touches them */
	double B;
	int bw, bh;
	size_t *bstart;
	int *bidx;
	/* the detector: direction towards it, elevation */
	double ca, sa, ce, se, te;
	int shadows;
	double secant_n, det_strength, shadow, edge;
	/* the leaning dome (sem_surface_lean): the top's offset from the
	 * base's centre per unit R, its length, and the bound on the slope
	 * over the centred dome's (1 when not leaning) */
	double lean_x, lean_y, lean, lean_steep;
	/* the bright cap (sem_surface_cap): strength and exponent; 0 = none */
	double cap, cap_power;
	/* the smooth dome's foot (sem_surface_foot): the power of cos^2 and
	 * the tail's stretch, 0 = none (the cos^2 dome), where the tail
	 * starts, and the profile's steepest slope */
	double foot_power, foot_stretch, foot_from, foot_steep;
} sem_surface;

/*
 * Sets up s for the domes (n, none overlapping much), the roughness
 * heights rough (W x H, px of height, may be NULL) and the formation
 * parameters of o (sem_opts, sem_sim.h; passed as its fields to keep the
 * header free of it). Returns 0, -1 on out of memory.
 */
int sem_surface_init(sem_surface *s, int W, int H, double h_over_r, double profile, double und_amp,
		     double und_len, double p1, double p2, const float *rough, const sem_dome *domes,
		     size_t n, double bucket);
void sem_surface_detector(sem_surface *s, double azimuth, double elevation, double secant_n,
			  double det_strength, double shadow, double edge);
/*
 * Leaning smooth-footed domes (h37i): every dome's top moved by lean x R
 * (0..SEM_LEAN_MAX) from its base's centre towards azimuth (radians, x
 * right, y down), the base circle - the truth - unchanged; only for
 * SEM_PROFILE_SMOOTH (sem_surface.c, lean_at). lean 0 is the centred
 * dome, to the bit. Returns 0, -1 for a lean out of range or another
 * profile.
 */
#define SEM_LEAN_MAX 0.5
int sem_surface_lean(sem_surface *s, double lean, double azimuth);
/*
 * A bright cap (h37r): every point of a dome emits 1 + cap (z / Z)^power
 * times the signal its slope, detector and shadow give (edge brightening
 * included), z the dome's own height there and Z its top's - a material
 * or charging contrast that brightens the top whatever its slope, as a
 * ganoine cap of higher secondary yield would. Why: on P1 Fig4 the dome
 * rule's centres sit 8.9 px on the lit side of the lobe pairs' middles
 * and no shape term of the simulator draws that with Fig4's profile
 * (docs/paper-figures.md, h37i). cap 0 is no term, every scene to the
 * bit. Returns 0, -1 for cap outside 0..SEM_CAP_MAX or power not in
 * (0, SEM_CAP_POWER_MAX].
 */
/*
 * The smooth dome's foot changed (h42h), two ways:
 * - power: height H R0 (cos^2(pi v / 2))^power (v = r / R0), the support
 *   the same for every power, the height's fraction of the top at v
 *   cos(pi v / 2)^(2 power); 1 (or 0) is the cos^2 dome.
 * - stretch (>= 1, 0 = none): the core (v < from) kept and the tail
 *   beyond it stretched so that it ends at v = stretch: the dome's support
 *   - the disk of sem_dome.R, the truth - is stretch x R0, its core that
 *   of a cos^2 dome of radius R0 = R / stretch (top H R0).
 * Why: with the power or the stretch unknown, a bound on D
 * (bench_sem_crlb --set smooth) says whether the image shows the support
 * itself or only the core that the cos^2 shape extrapolates to it.
 * SEM_PROFILE_SMOOTH only, not with a lean or a cap. Returns 0, -1
 * otherwise, for a power outside [SEM_FOOT_POWER_MIN, SEM_FOOT_POWER_MAX],
 * a stretch outside [1, SEM_FOOT_STRETCH_MAX] or from outside (0, 1).
 */
#define SEM_FOOT_POWER_MIN 0.5
#define SEM_FOOT_POWER_MAX 3.0
#define SEM_FOOT_STRETCH_MAX 1.5
int sem_surface_foot(sem_surface *s, double power, double stretch, double from);
#define SEM_CAP_MAX 4.0
#define SEM_CAP_POWER_MAX 64.0
int sem_surface_cap(sem_surface *s, double cap, double power);
void sem_surface_free(sem_surface *s);

/* The unblurred SE signal at the point (x, y). */
double sem_surface_signal(const sem_surface *s, double x, double y);

/* Whether the point (x, y) on the surface is shadowed: the path from it
 * towards the detector passes under a dome (for the physics test). */
int sem_surface_shadowed(const sem_surface *s, double x, double y);

/*
 * Fills img (W x H) with the signal integrated over each pixel [x - 0.5,
 * x + 0.5) x [y - 0.5, y + 0.5): the mean of S x S sub-samples (one per
 * cell of an S x S grid, at S^2 distinct columns and rows) where the
 * pixel touches a dome's base or a shadow's border, the centre value
 * elsewhere (the signal is smooth there, and the centre is the mean up to
 * its curvature / 24). Returns 0, -1 on out of memory.
 */
int sem_surface_render(const sem_surface *s, int S, fs_image *img);
/*
 * The same render at n (1..SEM_EDGES_MAX) edge strengths at once (s's own
 * is not used): img[e] (each W x H) gets, to the bit, what
 * sem_surface_render gives with s's strength set to edge[e]. The strength
 * only scales a last term of each sample's signal, so the shadow walk,
 * the slopes and the sub-sampling are done once for all n (h35i). Returns
 * 0, -1 on bad arguments or out of memory.
 */
#define SEM_EDGES_MAX 8
int sem_surface_render_edges(const sem_surface *s, int S, const double *edge, int n, fs_image **img);
/*
 * The beam done continuously (h40s, sem_opts.beam_continuous): the same
 * sub-samples as sem_surface_render_edges (every pixel's S x S of them:
 * where that render takes the centre alone, the centres interpolated
 * bilinearly), each image then the signal convolved with a Gaussian of
 * sigma px (sem_beam_box) and then the pixel's box - a continuous spot,
 * where sem_make's default blurs the box means with a Gaussian sampled on
 * the pixel lattice (a staircase kernel seen from between the pixels).
 * Returns 0, -1 on bad arguments or out of memory.
 */
int sem_surface_render_beam(const sem_surface *s, int S, double sigma, const double *edge, int n, fs_image **img);
/*
 * out (W x H) = the signal whose samples sub holds (S x S planes of W x H,
 * plane j S + i the sample of cell (i, j) of the render's sheared grid:
 * at ((i S + j + 1/2) / S^2 - 1/2, (j S + i + 1/2) / S^2 - 1/2) from its
 * pixel's centre) convolved with a Gaussian of sigma px (>= 0) and a 1-px
 * box: pixel p = sum of K(d + ox) K(d + oy) / S^2 x the sample, K the
 * Gaussian convolved with the box in 1-D (differences of erf), normalised
 * to sum 1, clamped at the frame. At S = 4 a sample every 1/16 px along
 * either axis: a straight step's profile is erf-convolved-with-the-box to
 * about 1e-3 of the step (test_sem_beam). Returns 0, -1 on bad arguments
 * or out of memory.
 */
int sem_beam_box(const float *sub, int S, int W, int H, double sigma, fs_image *out);

#endif
