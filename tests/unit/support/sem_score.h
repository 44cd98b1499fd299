/*
 * sem_score.h - a detection scored against the SEM simulator's truth
 * (sem_sim.h), as the accuracy tables print it (test_sem_accuracy.c over
 * the 64 corner scenes, test_sem_smooth.c over the smooth-footed set).
 *
 * A detection matches a true dome within 0.25 x pitch (each used once).
 * Counted: truths and detections whose centre lies at least 0.75 pitch
 * inside the scale region (sem_counted). Recall, precision, mean D error %
 * (summed detected diameters against summed true ones over matched counted
 * truths), SD % of the per-tubercle D error, mean S error % (edge-to-edge
 * space over true neighbour pairs both matched and counted); whether the
 * D SD target applies (true mean D >= 8 px and the halftone period <= D /
 * 3). Tubercles without a finite radius are counted in n_nan and left out.
 *
 * Ownership: reads t and res, keeps nothing.
 */
#ifndef SEM_SCORE_H
#define SEM_SCORE_H

#include <stddef.h>

#include "image/tubercle.h"
#include "sem_sim.h"

typedef struct sem_score {
	double recall, precision, d_err, s_err, d_sd;
	int sd_applies, n_nan;
	size_t n_true, n_found;
} sem_score;

/* Scores the tubercles found (res) of the image made by sem_make with
 * truth t and halftone period halftone. Returns 0, -1 on out of memory. */
int sem_score_detection(const sem_truth *t, const fs_tubercle_list *res, double halftone, sem_score *r);

/* The same with every radius of res times f (res unchanged): a level
 * correction judged on a detection's own centres (every sized dome's
 * radius follows the level, detect_base_fit.h), as bench_level_small's
 * --rule-level and bench_screened_blur_read's --rule do. Returns 0, -1 on
 * out of memory. */
int sem_score_scaled(const sem_truth *t, const fs_tubercle_list *res, double halftone, double f, sem_score *r);
/* Its mean D and S errors alone (%, into *d and *s): what the benches'
 * level sweeps compare (bench_level_small, bench_screened_blur_read).
 * Returns 0, -1 on out of memory. */
int sem_score_scaled_ds(const sem_truth *t, const fs_tubercle_list *res, double halftone, double f, double *d,
			double *s);
/* sem_score_scaled_ds at f 1 of the n radii r (px) at the centres (x,
 * y), every one a tubercle of fit quality 1: a reader's radii at given
 * centres scored as a detection (bench_gap_read, bench_gap_wide). Returns
 * 0, -1 on out of memory. */
int sem_score_radii_ds(const sem_truth *t, const double *x, const double *y, const double *r, size_t n,
		       double halftone, double *d, double *s);
/* The benches' columns " f D S" of it (f "%.4f", D and S "%+6.2f"), or
 * " f NAN NAN" where f is not finite or the score fails: the rule's
 * result under a calibration factor, as bench_blur_kernel --rule and
 * bench_level_small's CRULE lines print it (to stdout). */
void sem_score_scaled_print(const sem_truth *t, const fs_tubercle_list *res, double halftone, double f);

/* Whether true neighbour pair q (t->pi[q], t->pj[q]) enters the mean
 * space: both ends matched (mtru: the detection matched to each true
 * dome, -1 none), inside the counted region and measured (a finite
 * radius). The score's spaces and bench_sem_split's split take the same
 * pairs. */
int sem_pair_scored(const sem_truth *t, const fs_tubercle_list *res, const int *mtru, size_t q);

#endif
