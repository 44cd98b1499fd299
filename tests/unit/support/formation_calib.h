/*
 * formation_calib.h - the level reader's calibration on the formation's
 * own rendered dome (h42a), and the simulator's own formation to render
 * it with: what bench_level_small (--calibrate, --extrap-calib,
 * --blur-read) and bench_common_shift (h43a) share, so their factors are
 * one computation.
 *
 * Ownership: every array and formation is the caller's; nothing is kept
 * between calls.
 */
#ifndef FORMATION_CALIB_H
#define FORMATION_CALIB_H

#include <stddef.h>

#include "analysis/dome_base_fit.h"
#include "image/image.h"
#include "sem_sim.h"

/* The simulator's formation of scene o (its lattice angle, profile, h/R
 * and detector) at pitch and fill, with blur_px = blur (the benches pass
 * the beam and the measurement image's smoothing in quadrature, or 0
 * where a blur search sets it): what a forward model would read if
 * nothing but the blur were fitted. Every other field zero. */
void formation_sim(const sem_opts *o, double pitch, double fill, double blur, fs_dome_fit *f);

/* The templates *u of scene o's own formation (*f: formation_sim at o's
 * fill, blur the scene's beam) built on img, o's render with truth t,
 * about t's counted true centres (sem_counted_centres): what the tests
 * of a render of the formation that is right read. Returns
 * fs_dome_tpl_build's (0: *u the caller's to free), -1 on out of memory.
 */
int formation_sim_templates(const sem_opts *o, const fs_image *img, const sem_truth *t, fs_dome_fit *f,
			    fs_dome_tpl *u);

/* formation_sim_templates at the formation's blur (the tests that read
 * the formation's lattice at the measurement image's blur pass the beam
 * and its 0.5 px in quadrature), the counted true centres it built them
 * about kept in *xs, *ys (*n of them; the caller frees both, on failure
 * too). */
int formation_sim_templates_at(const sem_opts *o, const fs_image *img, const sem_truth *t, double blur,
			       fs_dome_fit *f, fs_dome_tpl *u, double **xs, double **ys, size_t *n);

/* The reader's bias on the formation's own dome: f's lattice at fill,
 * mixed with the weights the templates built on img about (xs, ys)
 * solved on its mean patch (fs_dome_tpl_render), read by the level's
 * reader (fs_dome_measure_base_trace, radii r0..r1) from its true site
 * at four sub-pixel phases; the true radius (fill x pitch / 2) over the
 * mean reading: the factor that would take the bias off if the
 * formation's dome showed the image's. NAN when the templates or any of
 * the four readings fail. */
double formation_calib_factor(const fs_image *img, const fs_dome_fit *f, const double *xs, const double *ys, size_t n,
			      double fill, double r0, double r1);

#endif
