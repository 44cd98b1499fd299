/*
 * common_shift.c - h43a's joint fit of the centres' common shift, the
 * templates' mix and the blur (common_shift.h), moved here from
 * bench_common_shift so bench_blur_fine_read reads the same shift.
 */
#include <math.h>

#include "common_shift.h"
#include "formation_blur.h"

/* The mean patch's residual share after the best fill's template and the
 * patch's best gain and offset (formation_tpl_misfit: what the build
 * solved the mix for); *noise gets the mean patch's noise share (above).
 * NAN where the mean patch is flat. */
static double tpl_misfit(const fs_dome_tpl *t, double *noise)
{
	size_t np = t->npts;
	if (noise) {
		double mm = 0, vv = 0, s = 0;
		for (size_t i = 0; i < np; i++)
			mm += t->mean[i];
		mm /= np;
		for (size_t i = 0; i < np; i++)
			vv += (t->mean[i] - mm) * (t->mean[i] - mm);
		for (size_t i = 0; i < np && t->nobs > 1; i++) {
			double a = 0, b = 0;
			for (size_t q = 0; q < t->nobs; q++) {
				double o = t->obs[q * np + i];
				a += o;
				b += o * o;
			}
			a /= t->nobs;
			s += (b / t->nobs - a * a) * t->nobs / (t->nobs - 1) / t->nobs;
		}
		*noise = vv > 0 ? s / vv : NAN;
	}
	return formation_tpl_misfit(t);
}

double common_shift_misfit(common_shift_trial *w, double dx, double dy, double bl, double *noise)
{
	fs_dome_fit f = *w->f0;
	f.blur_px = bl;
	for (size_t j = 0; j < w->n; j++) {
		w->mx[j] = w->xs[j] + dx;
		w->my[j] = w->ys[j] + dy;
	}
	fs_dome_tpl t;
	char err[128];
	w->builds++;
	if (fs_dome_tpl_build(w->img, &f, w->fill, w->mx, w->my, w->n, &t, err, sizeof err))
		return INFINITY;
	double r = tpl_misfit(&t, noise);
	fs_dome_tpl_free(&t);
	return r;
}

/* The blur at (dx, dy): lo..hi in steps st, the best kept in *bl, *br. */
static void blur_search(common_shift_trial *w, double dx, double dy, double lo, double hi, double st, double *bl, double *br)
{
	for (double b = lo; b <= hi + 1e-9; b += st) {
		if (!(b > 0.05))
			continue;
		double r = common_shift_misfit(w, dx, dy, b, NULL);
		if (r < *br) {
			*br = r;
			*bl = b;
		}
	}
}


void common_shift_fit(common_shift_trial *w, common_shift *j)
{
	double b0 = w->f0->blur_px;
	/* unmoved: the blur alone */
	j->blur0 = b0;
	j->mis0 = common_shift_misfit(w, 0, 0, b0, &j->noise);
	blur_search(w, 0, 0, 0.40, 2.00, 0.08, &j->blur0, &j->mis0);
	blur_search(w, 0, 0, j->blur0 - 0.06, j->blur0 + 0.06, 0.02, &j->blur0, &j->mis0);
	/* moved: a 2-D grid at the formation's blur, the blur there, the
	 * grid again finer, the blur again finer */
	double bx = 0, by = 0, bl = b0, br = common_shift_misfit(w, 0, 0, b0, NULL);
	for (int u = -4; u <= 4; u++)
		for (int v = -4; v <= 4; v++) {
			double r = common_shift_misfit(w, 0.25 * u, 0.25 * v, bl, NULL);
			if (r < br) {
				br = r;
				bx = 0.25 * u;
				by = 0.25 * v;
			}
		}
	blur_search(w, bx, by, 0.40, 2.00, 0.08, &bl, &br);
	double cx = bx, cy = by;
	for (int u = -3; u <= 3; u++)
		for (int v = -3; v <= 3; v++) {
			double r = common_shift_misfit(w, cx + 0.05 * u, cy + 0.05 * v, bl, NULL);
			if (r < br) {
				br = r;
				bx = cx + 0.05 * u;
				by = cy + 0.05 * v;
			}
		}
	blur_search(w, bx, by, bl - 0.08, bl + 0.08, 0.02, &bl, &br);
	/* the unmoved fit is one of the joint's trials' limits: never worse */
	if (!(br < j->mis0)) {
		bx = by = 0;
		bl = j->blur0;
		br = j->mis0;
	}
	j->dx = bx;
	j->dy = by;
	j->blur = bl;
	j->mis = br;
}

