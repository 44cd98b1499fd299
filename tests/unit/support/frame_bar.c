/*
 * frame_bar.c - the blur a simulated scene's scale bar shows
 * (frame_bar.h).
 */
#include "frame_bar.h"

#include <math.h>

#define PROF_ROWS 20

/* The bar's rows [H-24, H-20) convolved with a unit Gaussian of sigma s
 * sampled at integer offsets (s 0: the bar itself), at row y. */
static double bar_model(int y, int H, double s)
{
	double v = 0;
	for (int i = H - 24; i < H - 20; i++) {
		int d = y - i;
		if (s < 1e-6) {
			v += d == 0;
			continue;
		}
		double z = 0;
		int reach = (int)ceil(5 * s) + 1;
		for (int e = -reach; e <= reach; e++)
			z += exp(-0.5 * e * e / (s * s));
		v += exp(-0.5 * d * d / (s * s)) / z;
	}
	return v;
}

double frame_bar_sigma(const fs_image *img, const sem_opts *o, double *rms)
{
	/* (the frame's border, at most half the image: sem_sim.c's) */
	int bl = o->black_left < o->width / 2 ? o->black_left : o->width / 2;
	int W = img->width, H = img->height, x0 = bl / 8 + bl * 3 / 16, x1 = bl / 8 + bl * 9 / 16;
	double prof[PROF_ROWS];
	if (rms)
		*rms = NAN;
	if (bl < 24 || x1 > W || H < 40)
		return NAN;
	for (int r = 0; r < PROF_ROWS; r++) {
		int y = H - 32 + r;
		double s = 0;
		for (int x = x0; x < x1; x++)
			s += img->data[(size_t)y * W + x];
		prof[r] = s / (x1 - x0);
	}
	double best = INFINITY, bs = NAN;
	for (int q = 0; q <= 600; q++) {
		double s = 0.005 * q, m[PROF_ROWS], sm = 0, sv = 0, smm = 0, smv = 0;
		for (int r = 0; r < PROF_ROWS; r++) {
			m[r] = bar_model(H - 32 + r, H, s);
			sm += m[r];
			sv += prof[r];
			smm += m[r] * m[r];
			smv += m[r] * prof[r];
		}
		double den = PROF_ROWS * smm - sm * sm;
		if (!(fabs(den) > 0))
			continue;
		double a = (PROF_ROWS * smv - sm * sv) / den, b = (sv - a * sm) / PROF_ROWS, e = 0;
		for (int r = 0; r < PROF_ROWS; r++) {
			double d = prof[r] - b - a * m[r];
			e += d * d;
		}
		if (e < best) {
			best = e;
			bs = s;
		}
	}
	if (rms)
		*rms = sqrt(best / PROF_ROWS);
	return bs;
}
