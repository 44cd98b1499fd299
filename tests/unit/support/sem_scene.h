/*
 * sem_scene.h - a simulated SEM scene made ready to measure, shared by the
 * measurement-rule tests (tests/unit/analysis/test_measurement_rule.c,
 * tests/unit/store/test_remeasure_rules.c) so that they judge the same
 * domes: the image (sem_sim.h), its truth, the default parameters and a
 * buffer for messages; and the scenes' options that several tests share.
 * Also the dome-rule tests' and benches' common start (sem_scene_render:
 * a scene rendered through the cache; sem_scene_detect: rendered and
 * detected; sem_corner_dome_errors: a corner scene's errors
 * under fs_detect_domes), written once instead of in each test.
 *
 * Ownership: the scene owns img and tr; sem_scene_close frees both.
 */
#ifndef SEM_SCENE_H
#define SEM_SCENE_H

#include "analysis/detect.h"
#include "analysis/params.h"
#include "image/tubercle.h"
#include "sem_score.h"
#include "sem_sim.h"

typedef struct sem_scene {
	sem_truth tr;
	fs_image *img;
	fs_params p; /* fs_params_default */
	char err[256];
} sem_scene;

/* Low domes (h/R 0.3, pitch 32, fill 0.5) lit from the side, on top of
 * sem_defaults (size unchanged): the outline rule's half level lies well
 * inside their base (issue 13: 12-26 % of D). */
void sem_low_domes(sem_opts *o);

/* Tight domes (pitch 16, fill 0.8) lit from 135 degrees, 480 x 400 px,
 * on top of sem_defaults (the caller sets its seed): the fine pitch whose
 * dome candidates are found at full resolution, with tiles narrower than
 * the stages' overlaps possible; the tiling tests' scene
 * (test_detect_cand_domes, test_detect_domes_tiled). */
void sem_tight_side_lit(sem_opts *o);

/* P1 Fig4's frame (h37i, h37r): 700 x 540 px, pitch 75, lattice angle
 * 0.3, detector at -65 degrees, smooth-footed domes under a 2.84 px
 * screen and 0.8 px scan blur, on top of sem_defaults; the top leaning
 * lean x R away from the detector and a bright cap of strength cap and
 * exponent cap_power (0, 0: neither). The caller sets its seed. */
void sem_fig4_like(sem_opts *o, double h_over_r, double fill, double lean, double cap, double cap_power);

/* P2 Fig1c's frame and formation as the dome rule's formation fit reads
 * the figure (bench_paper_trace, h38i/h38s): 355 x 438 px, pitch 43,
 * fill 0.488 (the published value), paraboloids of h_over_r, detector at
 * azimuth 162 deg and elevation 25 deg (the fit's shadow elevation), on
 * top of sem_defaults; no screen (the figure has none). The caller sets
 * its seed and whatever else it varies (shadow depth, blur). */
void sem_fig1c_like(sem_opts *o, double h_over_r);

/* Renders o into s; 0, or -1 when the simulator refuses (s is then empty). */
int sem_scene_open(sem_scene *s, const sem_opts *o);
void sem_scene_close(sem_scene *s);

/* A detector's signature (fs_detect, fs_detect_domes in analysis/detect.h). */
typedef int (*sem_detect_fn)(const fs_image *img, const fs_params *p, double um_per_px, fs_detect_result *out,
			     char *err, size_t errlen);

/*
 * o rendered into s through the run's scene cache (sem_make_shared,
 * sem_cache.h; the same pixels as sem_scene_open), s->p the default
 * parameters: the benches' start where they read the image themselves.
 * 0, or -1 with s->err saying why (s then empty).
 */
int sem_scene_render(sem_scene *s, const sem_opts *o);

/*
 * o rendered into s as sem_scene_render and measured by fn with
 * s->p (the default parameters, no calibration) into *res, the caller's
 * (fs_detect_result_free; s as sem_scene_open's). 0, or -1 with s->err
 * saying why, s then empty and res not filled.
 */
int sem_scene_detect(sem_scene *s, const sem_opts *o, sem_detect_fn fn, fs_detect_result *res);

/*
 * img, the render of truth t at halftone period halftone, measured by fn
 * with the default parameters (no calibration) and scored into *r
 * (sem_score_detection): the SEM tables' one scene (test_sem_accuracy,
 * test_sem_smooth). 0; -1 when fn fails (err says why) or out of memory.
 */
int sem_detect_score(const fs_image *img, const sem_truth *t, double halftone, sem_detect_fn fn, sem_score *r,
		     char *err, size_t errlen);

/*
 * sem_match (sem_sim.h) of the tubercles' centres to the truth within a
 * quarter pitch, the quarter-pitch rule of issue 13's targets: match_of_det
 * (t->n entries) and match_of_truth (tr->n entries), either may be NULL,
 * belong to the caller. 0, or -1 when out of memory.
 */
int sem_match_tubercles(const sem_truth *tr, const fs_tubercle_list *t, int *match_of_det, int *match_of_truth);

/*
 * The tubercles of t matched to the truth (sem_match within a quarter
 * pitch) whose true dome is counted (sem_counted) and whose base is
 * measured (fs_tubercle_measured): *n of them, the sums of their measured
 * diameters (px) in *sum_d and of their true ones in *sum_truth. 0, or -1
 * when out of memory or the match fails.
 */
int sem_matched_diameters(const sem_truth *tr, const fs_tubercle_list *t, double *sum_d, double *sum_truth,
			  size_t *n);

/* What a detector got wrong on a scene, over the same matched, counted
 * tubercles: their centres' summed offset from the truth (ox, oy, px; n
 * of them, measured or not) and, over the measured ones (n_measured), the
 * sums of measured and true diameters. */
typedef struct sem_match_errors {
	size_t n, n_measured;
	double ox, oy, sum_d, sum_truth;
} sem_match_errors;

/* Fills *e; 0, or -1 when out of memory or the match fails. */
int sem_matched_errors(const sem_truth *tr, const fs_tubercle_list *t, sem_match_errors *e);

/*
 * Corner scene k (sem_corner_scene) measured by fs_detect_domes
 * (sem_scene_detect) and what it got wrong (sem_matched_errors) in *e,
 * the scene's pitch in *pitch (may be NULL). 0, or -1 when the scene, the
 * detection or the match fails (the reason printed).
 */
int sem_corner_dome_errors(int k, sem_match_errors *e, double *pitch);

/*
 * Appends to t the true centres that lie inside the scale region
 * (tr->inside), as a user would place them: sources manual, ids from
 * t->n + 1, no size. 0, or -1 when out of memory. The caller owns t.
 */
int sem_inside_centres(const sem_truth *tr, fs_tubercle_list *t);

#endif
