/*
 * formation_blur.c - the blur at which a formation's templates read an
 * image's mean patch best (formation_blur.h).
 */
#include "formation_blur.h"

#include <math.h>

double formation_tpl_misfit(const fs_dome_tpl *t)
{
	size_t np = t->npts;
	double mm = 0, vv = 0, best = INFINITY;
	for (size_t i = 0; i < np; i++)
		mm += t->mean[i];
	mm /= np;
	for (size_t i = 0; i < np; i++)
		vv += (t->mean[i] - mm) * (t->mean[i] - mm);
	for (int k = 0; k < t->nk; k++) {
		const float *tk = t->t + (size_t)k * np;
		double tm = 0, tt = 0, tv = 0;
		for (size_t i = 0; i < np; i++)
			tm += tk[i];
		tm /= np;
		for (size_t i = 0; i < np; i++) {
			tt += (tk[i] - tm) * (tk[i] - tm);
			tv += (tk[i] - tm) * (t->mean[i] - mm);
		}
		double r = vv - (tt > 0 ? tv * tv / tt : 0);
		if (r < best)
			best = r;
	}
	return vv > 0 ? best / vv : NAN;
}

double formation_blur_misfit(const fs_image *img, const fs_dome_fit *f0, double bl, const double *xs,
			     const double *ys, size_t n, double fill)
{
	fs_dome_fit f = *f0;
	f.blur_px = bl;
	fs_dome_tpl tpl;
	char err[128];
	if (fs_dome_tpl_build(img, &f, fill, xs, ys, n, &tpl, err, sizeof err))
		return INFINITY;
	double r = formation_tpl_misfit(&tpl);
	fs_dome_tpl_free(&tpl);
	return r;
}

double formation_blur_fine(const fs_image *img, const fs_dome_fit *f0, const double *xs, const double *ys, size_t n,
			   double fill, double lo, double hi, double *mis)
{
	double bb = NAN, br = INFINITY;
	int nq = (int)lround((hi - lo) / 0.04);
	for (int stage = 0; stage < 2; stage++) {
		double c = bb;
		int q0 = stage ? -4 : 0, q1 = stage ? 4 : nq;
		for (int q = q0; q <= q1; q++) {
			double bl = stage ? c + 0.01 * q : lo + 0.04 * q;
			if (stage && (q == 0 || !(bl > 0.05)))
				continue;
			double r = formation_blur_misfit(img, f0, bl, xs, ys, n, fill);
			if (r < br) {
				br = r;
				bb = bl;
			}
		}
		if (!isfinite(bb))
			break;
	}
	*mis = br;
	return bb;
}
