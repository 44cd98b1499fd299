/*
 * agent_likeness.c - how much the image at a point looks like the set's own
 * tubercles (fs_agent_likeness_*, agent_fish_tools.h), for the evidence's
 * test of a site the editor would add (agent_evidence.c).
 *
 * Why: the evidence's measurements (a dome base or blob of the set's size,
 * round enough, a spread of grey levels like the set's) are local and
 * blind to what kind of structure gives them. On a low-contrast figure a
 * bright crack, a dark shadow between domes or grey ground between them
 * pass them all (h35b: P2 Fig1c, radius 12-18 px against the set's 14.1,
 * circularity 0.45-0.80, contrast 0.6-1.3 of the set's). What such points
 * lack is the look of the image's own domes: under one SEM detector every
 * dome of a figure shows the same arrangement of lit cap, lit flank and
 * shadow, and a crack (a line), a shadow or flat ground does not.
 *
 * How: the reference is the per-pixel median of the set's own patches (up
 * to EV_SAMPLE tubercles; a disc of half a pitch around each, on the
 * evidence's smoothed image, each patch brought to mean 0 and SD 1), so a
 * few false tubercles of the set do not shape it and nothing is in
 * absolute grey levels. A point's likeness is the largest normalised
 * correlation of its patch with the reference over shifts of up to a
 * reach the caller gives (a set's centres and a site's measured centre are
 * not the same point of a dome to the pixel: an eighth of a pitch; a
 * lattice site predicted from its neighbours may lie a third of a pitch
 * from the dome on it, h37h's P1 Fig4 gap at (288, 241) predicted at
 * (271, 224)). The same is read at the
 * set's own tubercles: their quartiles are what a real dome of this image
 * reaches, the scale the evidence judges a site's likeness on.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_fish_tools.h"
#include "analysis/blur_tiles.h"
#include "base/sorting.h"

/* the patch's samples per half side at most: a large pitch is sampled
 * coarser (the smoothed image varies over 5 % of a pitch, the blur) */
#define LK_K 16
/* the reach of the search around a set's own tubercle, pitches */
#define LK_REACH 0.125

/* The patch of radius 0.5 pitch centred at (x, y) into p (the grid's
 * (2K+1)^2 samples; outside the disc 0), normalised over the disc to mean
 * 0 and SD 1. 0, or -1 where the image is flat there or not available. */
static int patch_at(fs_agent_sess *s, double x, double y, double *p)
{
	int K = s->ev_lk_k, n = 2 * K + 1, ox, oy;
	double step = s->ev_lk_step, sum = 0, sum2 = 0;
	size_t m = 0;
	char err[128];
	const fs_image *im = fs_blur_tiles_at(s->ev_blur, x, y, &ox, &oy, err, sizeof err);
	if (!im)
		return -1;
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++) {
			double *v = &p[j * n + i];
			if ((i - K) * (i - K) + (j - K) * (j - K) > K * K) {
				*v = 0;
				continue;
			}
			*v = fs_image_sample_clamped(im, x - ox + (i - K) * step, y - oy + (j - K) * step);
			sum += *v;
			sum2 += *v * *v;
			m++;
		}
	double mean = sum / m, var = sum2 / m - mean * mean;
	if (!(var > 1e-12))
		return -1;
	double sd = sqrt(var);
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			if ((i - K) * (i - K) + (j - K) * (j - K) <= K * K)
				p[j * n + i] = (p[j * n + i] - mean) / sd;
	return 0;
}

/* Correlation of a normalised patch with the reference (both 0 outside
 * the disc): the mean product over the disc. */
static double correlate(const fs_agent_sess *s, const double *p)
{
	int n = 2 * s->ev_lk_k + 1;
	double c = 0;
	for (int k = 0; k < n * n; k++)
		c += p[k] * s->ev_lk_ref[k];
	return c / s->ev_lk_m;
}

double fs_agent_likeness_at(fs_agent_sess *s, double x, double y, double reach, double *px, double *py)
{
	if (!s->ev_lk_ref)
		return NAN;
	int n = 2 * s->ev_lk_k + 1;
	double *p = malloc((size_t)n * n * sizeof *p), best = -INFINITY, bx = x, by = y;
	if (!p)
		return NAN;
	/* shifts a pitch / 24 apart up to reach pitches, then a pitch / 96
	 * apart around the best (the correlation is smooth over the blur) */
	double d = s->ev_pitch / 24;
	int m = (int)ceil(reach * 24);
	for (int pass = 0; pass < 2; pass++) {
		double cx = bx, cy = by;
		for (int b = -m; b <= m; b++)
			for (int a = -m; a <= m; a++) {
				if (pass == 0 && a * a + b * b > m * m)
					continue;
				if (patch_at(s, cx + a * d, cy + b * d, p) == 0) {
					double c = correlate(s, p);
					if (c > best) {
						best = c;
						bx = cx + a * d;
						by = cy + b * d;
					}
				}
			}
		d /= 4;
		m = 2;
	}
	free(p);
	if (px)
		*px = bx;
	if (py)
		*py = by;
	return isfinite(best) ? best : NAN;
}

void fs_agent_likeness_free(fs_agent_sess *s)
{
	free(s->ev_lk_ref);
	s->ev_lk_ref = NULL;
	s->ev_lk_lo = s->ev_lk_med = NAN;
}

int fs_agent_likeness_reference(fs_agent_sess *s, const double *x, const double *y, size_t n)
{
	fs_agent_likeness_free(s);
	if (n < 5 || !(s->ev_pitch > 2))
		return -1;
	double h = 0.5 * s->ev_pitch;
	int K = h < LK_K ? (int)floor(h) : LK_K;
	if (K < 2)
		return -1;
	s->ev_lk_k = K;
	s->ev_lk_step = h / K;
	int w = 2 * K + 1;
	size_t np = (size_t)w * w, got = 0;
	double *all = malloc(n * np * sizeof *all), *col = malloc(n * sizeof *col);
	double *ref = malloc(np * sizeof *ref), *lk = malloc(n * sizeof *lk);
	if (!all || !col || !ref || !lk)
		goto fail;
	for (size_t i = 0; i < n; i++)
		got += patch_at(s, x[i], y[i], all + got * np) == 0;
	if (got < 5)
		goto fail;
	size_t m = 0;
	for (size_t k = 0; k < np; k++) {
		for (size_t i = 0; i < got; i++)
			col[i] = all[i * np + k];
		ref[k] = fs_median_double(col, got);
	}
	/* the median patch is itself brought to mean 0 and SD 1 over the disc */
	double sum = 0, sum2 = 0;
	for (int j = 0; j < w; j++)
		for (int i = 0; i < w; i++)
			if ((i - K) * (i - K) + (j - K) * (j - K) <= K * K) {
				sum += ref[j * w + i];
				sum2 += ref[j * w + i] * ref[j * w + i];
				m++;
			}
	double mean = sum / m, var = sum2 / m - mean * mean;
	if (!(var > 1e-12))
		goto fail;
	for (int j = 0; j < w; j++)
		for (int i = 0; i < w; i++)
			ref[j * w + i] = (i - K) * (i - K) + (j - K) * (j - K) <= K * K ? (ref[j * w + i] - mean) / sqrt(var) : 0;
	s->ev_lk_ref = ref;
	s->ev_lk_m = (double)m;
	ref = NULL;
	size_t nl = 0;
	for (size_t i = 0; i < n; i++) {
		double c = fs_agent_likeness_at(s, x[i], y[i], LK_REACH, NULL, NULL);
		if (isfinite(c))
			lk[nl++] = c;
	}
	if (nl < 5)
		goto fail;
	qsort(lk, nl, sizeof *lk, fs_cmp_double);
	s->ev_lk_lo = lk[nl / 4];
	s->ev_lk_med = lk[nl / 2];
	free(all);
	free(col);
	free(lk);
	return 0;
fail:
	free(all);
	free(col);
	free(ref);
	free(lk);
	fs_agent_likeness_free(s);
	return -1;
}
