/* centre_perdome_calib.c - the per-dome step read on the formation's own
 * lattice (see centre_perdome_calib.h). */
#include "analysis/centre_perdome_calib.h"

#include <math.h>
#include <stdlib.h>

#include "analysis/centre_axis_calib.h"
#include "base/sorting.h"

static int calib_on = 0; /* fs_centre_perdome_set_calib (h52b: off, docs/paper-figures.md) */

/* A gain this near 0 (b moving less than a third of the centre's move)
 * leaves the step nothing to read a centre by: no calibration. */
#define MIN_GAIN 0.33
/* The moves reach at most this share of the scan's reach, so that a
 * moved site's b is not cut by the scan's end. */
#define MOVE_SHARE 0.75

int fs_centre_perdome_set_calib(int mode)
{
	return __atomic_exchange_n(&calib_on, mode, __ATOMIC_RELAXED);
}

int fs_centre_perdome_calib_on(void)
{
	return __atomic_load_n(&calib_on, __ATOMIC_RELAXED);
}

int fs_centre_perdome_calib_read(const fs_dome_tpl *t, const fs_dome_fit *f, double fill,
				 const fs_centre_axis_geom *g, fs_centre_perdome_cal *cal)
{
	const int nph = FS_CENTRE_AXIS_CALIB_NPH, nsite = nph * nph;
	double reach = FS_CENTRE_PERDOME_REACH * g->r0;
	int nmove = 0;
	while (nmove < FS_CENTRE_PERDOME_CALIB_NMOVE && nmove * FS_CENTRE_PERDOME_CALIB_MOVE <= MOVE_SHARE * reach)
		nmove++;
	cal->ok = 0;
	cal->gain = cal->floor = cal->b0 = NAN;
	if (nmove < 2)
		return 0;
	size_t len = fs_centre_axis_len(g);
	double dmax = (nmove - 1) * FS_CENTRE_PERDOME_CALIB_MOVE;
	/* the site in the middle, its profiles (from the farthest move)
	 * inside the render */
	int c0 = (int)ceil(fs_centre_axis_reach(g) + dmax) + 2, size = 2 * c0 + 2;
	double *profs = malloc((size_t)(nsite * nmove) * len * sizeof *profs);
	double *pv = calloc((size_t)g->ns, sizeof *pv);
	double *b = malloc((size_t)(nsite * nmove) * sizeof *b);
	if (!profs || !pv || !b) {
		free(profs);
		free(pv);
		free(b);
		return -1;
	}
	double ux = cos(g->az), uy = sin(g->az);
	int rc = 0;
	for (int k = 0; k < nsite && !rc; k++) {
		double cx = c0 + (double)(k % nph) / nph, cy = c0 + (double)(k / nph) / nph;
		fs_image *img = NULL;
		rc = fs_dome_tpl_render(t, f, fill, size, cx, cy, &img);
		for (int j = 0; j < nmove && !rc; j++) {
			double d = j * FS_CENTRE_PERDOME_CALIB_MOVE;
			fs_centre_axis_profile(img, cx + d * ux, cy + d * uy, g, profs + (size_t)(k * nmove + j) * len);
		}
		fs_image_free(img);
	}
	if (rc)
		goto out;
	/* the lattice's across-axis profile from its sites, summed as the
	 * image's (the match's scale takes the sum's) */
	for (int k = 0; k < nsite; k++)
		for (int i = 0; i < g->ns; i++)
			pv[i] += profs[(size_t)(k * nmove) * len + g->ns + i];
	double sd = 0, sb = 0, sdd = 0, sdb = 0, lo = INFINITY, hi = -INFINITY;
	int m = 0;
	for (int k = 0; k < nsite; k++)
		for (int j = 0; j < nmove; j++) {
			double v = fs_centre_perdome_b(profs + (size_t)(k * nmove + j) * len, pv, g, reach);
			b[k * nmove + j] = v;
			if (!isfinite(v)) {
				/* a site the step cannot read is no calibration */
				if (j == 0)
					goto out;
				continue;
			}
			double d = j * FS_CENTRE_PERDOME_CALIB_MOVE;
			sd += d;
			sb += v;
			sdd += d * d;
			sdb += d * v;
			m++;
			if (j == 0) {
				lo = fmin(lo, v);
				hi = fmax(hi, v);
			}
		}
	double den = m * sdd - sd * sd;
	if (!(den > 0))
		goto out;
	cal->gain = (m * sdb - sd * sb) / den;
	for (int k = 0; k < nsite; k++)
		b[k] = b[k * nmove];
	cal->b0 = fs_median_upper(b, (size_t)nsite);
	cal->floor = (hi - lo) / fabs(cal->gain);
	cal->ok = cal->gain < -MIN_GAIN;
out:
	free(profs);
	free(pv);
	free(b);
	return rc;
}
