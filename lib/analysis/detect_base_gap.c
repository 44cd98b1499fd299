/*
 * detect_base_gap.c - see detect_base_gap.h.
 */
#include "analysis/detect_base_gap.h"

#include <math.h>
#include <stdlib.h>

#include "analysis/gap_read.h"

/* one setting a process, set before any detection (a bench's or test's
 * start), never while one runs; the rule's own since h48c */
static int gap_on = FS_DET_GAP_STEPS_LIFTED;

int fs_det_base_set_gap(int mode)
{
	int was = gap_on;
	gap_on = mode == FS_DET_GAP_FIT_LIT || mode == FS_DET_GAP_STEPS_ALL || mode == FS_DET_GAP_STEPS_LIFTED
			 ? mode
			 : FS_DET_GAP_OFF;
	return was;
}

/* the whole image's reader: every valley on img */
static int read_whole(void *ctx, const double *x, const double *y, fs_gap_pair *pr, size_t np, int method,
		      double sigma)
{
	const fs_image *img = ctx;
	for (size_t q = 0; q < np; q++)
		pr[q].read = !fs_gap_feet(img, x[pr[q].i], y[pr[q].i], x[pr[q].j], y[pr[q].j], method, sigma, &pr[q].ra,
					  &pr[q].rb, NULL);
	return 0;
}

int fs_det_base_gap_level(const fs_det_base_plan *p, const fs_det_offset *off, const fs_image *img, double F,
			  const double *fx, const double *fy, const double *fr, const int *le, const double *var,
			  double *lr)
{
	return fs_det_base_gap_level_by(p, off, F, fx, fy, fr, le, var, read_whole, (void *)img, lr);
}

int fs_det_base_gap_level_by(const fs_det_base_plan *p, const fs_det_offset *off, double F, const double *fx,
			     const double *fy, const double *fr, const int *le, const double *var, fs_det_gap_read_fn read,
			     void *ctx, double *lr)
{
	if (!gap_on || !p->n || !(off->fit.pitch > 0) || !(F > 0))
		return 0;
	if (gap_on == FS_DET_GAP_FIT_LIT && !isfinite(off->fit.azimuth))
		return 0;
	/* the steps' blur: the level readings' own (their mean step
	 * variance, v1 of h46b), in the measured image's px */
	double vs = 0, sigma = 0;
	int nv = 0;
	for (size_t k = 0; var && k < p->n; k++)
		if (isfinite(lr[k]) && !le[k] && isfinite(var[k])) {
			vs += var[k];
			nv++;
		}
	if (nv)
		sigma = sqrt(vs / nv);
	double *x = malloc(4 * p->n * sizeof *x);
	int *cnt = malloc(p->n * sizeof *cnt);
	if (!x || !cnt) {
		free(x);
		free(cnt);
		return -1;
	}
	double *y = x + p->n, *r = x + 2 * p->n, *sum = x + 3 * p->n;
	/* only the sized domes are neighbours: an unsized candidate's centre
	 * may be flat ground */
	for (size_t k = 0; k < p->n; k++) {
		int on = isfinite(fr[k]) && isfinite(fx[k]) && isfinite(fy[k]);
		x[k] = on ? fx[k] / F : NAN;
		y[k] = on ? fy[k] / F : NAN;
	}
	int fit = gap_on == FS_DET_GAP_FIT_LIT;
	fs_gap_pair *pr = NULL;
	size_t np = 0;
	if (fs_gap_pairs(x, y, p->n, off->fit.pitch / F, &pr, &np) ||
	    read(ctx, x, y, pr, np, fit ? FS_GAP_FIT : FS_GAP_STEPS, fit ? 0 : sigma)) {
		free(pr);
		free(x);
		free(cnt);
		return -1;
	}
	fs_gap_gather(x, y, p->n, pr, np, fit ? off->fit.azimuth : NAN, sum, cnt, r, NULL);
	free(pr);
	/* the steps' isotropic excess over the tight-screen scenes
	 * (FS_DET_GAP_STEPS_LIFTED, detect_base_gap.h) */
	double lift = gap_on == FS_DET_GAP_STEPS_LIFTED ? FS_DET_GAP_LIFT * sigma : 0;
	int n = 0;
	for (size_t k = 0; k < p->n; k++)
		if (isfinite(lr[k]) && !le[k] && isfinite(r[k])) {
			lr[k] = (r[k] + lift) * F;
			n++;
		}
	free(x);
	free(cnt);
	return n;
}
