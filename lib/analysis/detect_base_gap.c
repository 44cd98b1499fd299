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

int fs_det_base_gap_level(const fs_det_base_plan *p, const fs_det_offset *off, const fs_image *img, double F,
			  const double *fx, const double *fy, const double *fr, const int *le, const double *var,
			  double *lr)
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
	double *x = malloc(3 * p->n * sizeof *x);
	if (!x)
		return -1;
	double *y = x + p->n, *r = x + 2 * p->n;
	/* only the sized domes are neighbours: an unsized candidate's centre
	 * may be flat ground */
	for (size_t k = 0; k < p->n; k++) {
		int on = isfinite(fr[k]) && isfinite(fx[k]) && isfinite(fy[k]);
		x[k] = on ? fx[k] / F : NAN;
		y[k] = on ? fy[k] / F : NAN;
	}
	int rc = gap_on == FS_DET_GAP_FIT_LIT
			 ? fs_gap_radii(img, x, y, p->n, off->fit.pitch / F, FS_GAP_FIT, 0, off->fit.azimuth, r, NULL)
			 : fs_gap_radii(img, x, y, p->n, off->fit.pitch / F, FS_GAP_STEPS, sigma, NAN, r, NULL);
	if (rc) {
		free(x);
		return -1;
	}
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
	return n;
}
