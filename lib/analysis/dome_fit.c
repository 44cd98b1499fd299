/* dome_fit.c - the per-image formation fit of the fill ratio (see
 * dome_fit.h). */
#include "analysis/dome_fit.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/box_tent_kernel.h"
#include "analysis/halftone.h"
#include "analysis/lanes.h"
#include "analysis/lanes_avx.h"
#include "analysis/parabola_vertex.h"
#include "analysis/near_pairs.h"
#include "analysis/preprocess.h"
#include "analysis/se_render.h"
#include "analysis/se_solve.h"
#include "base/cpu_features.h"
#include "base/sorting.h"

/* Grid samples per pitch: 20, or the image's own pixels when its pitch is
 * smaller (down to 12), so that the model's slopes are taken over the span
 * a pixel of the image averages them over (a dome 4 px wide on a 16-px
 * pitch is a few pixels of slope, not a smooth curve). */
#define G_MAX 20
#define G_MIN 12
/* the patch's radius, pitches: a dome of fill 0.8 and the gap to its
 * neighbours' bases (in hundredths, so that the mean image's width,
 * mean_half, is counted in integers) */
#define FIT_R_PCT 55
#define FIT_R (FIT_R_PCT / 100.0)
#define NPAR (FS_SE_NCOMP + 1)

static const double HR[] = {0.2, 0.4, 0.7, 1.0};
static const double PROF[] = {0, 1, 2};
/* blur sigma, pitches: beam, scan, a halftone's low-pass and the scatter
 * of the detected centres together */
static const double BLUR[] = {0.015, 0.03, 0.05, 0.075, 0.1, 0.13, 0.17};
static const double ELEV_DEG[] = {25, 40, 55};
/* the feet tried with fs_dome_fit_opts.foot_search (se_render.h,
 * fs_se_geom.foot): 1 the sharp-footed profiles; the rest feet that
 * flatten into the ground. Half steps: the support the fit reads moves
 * with the foot it picks (a cos^2 dome matched by the paraboloid to the
 * power m puts its support at 0.94 / 1.02 / 1.10 / 1.24 of the truth for
 * m = 2 / 2.5 / 3 / 4, h43c), so a coarser grid reads a coarser fill */
static const double FOOT[] = {1, 1.5, 2, 2.5, 3, 4};
#define NFOOT (int)(sizeof FOOT / sizeof FOOT[0])
#define NHR (int)(sizeof HR / sizeof HR[0])
/* the grid's low domes, for fs_dome_fit.low_ratio (dome_fit.h) */
#define LOW_HR 0.4
#define NPROF (int)(sizeof PROF / sizeof PROF[0])
_Static_assert(NPROF == sizeof ((fs_dome_fit *)0)->prof_rss / sizeof(double), "fs_dome_fit.prof_rss: one per profile");
#define NBLUR (int)(sizeof BLUR / sizeof BLUR[0])
#define NELEV (int)(sizeof ELEV_DEG / sizeof ELEV_DEG[0])
/* fs_dome_fit_opts.fine_render: the edge part's convexity clipped per
 * image px, the simulator's (h40b), not per sample of a grid whose
 * sample is a fraction of a px */
#define FINE_EDGE_CAP_PX 1.5

double fs_dome_fit_pitch(const double *xs, const double *ys, size_t n)
{
	if (n < 3)
		return 0;
	size_t step = n > 512 ? n / 512 : 1, ni = 0, cap = 0, k = 0;
	double *nn = malloc((n / step + 1) * sizeof *nn), *d = NULL;
	size_t *near = malloc(n * sizeof *near);
	fs_near_index ix;
	if (!nn || !near || fs_near_index_build(&ix, xs, ys, n)) {
		free(nn);
		free(near);
		return -1;
	}
	for (size_t i = 0; i < n; i += step)
		nn[ni++] = fs_near_nearest(&ix, i);
	double med = fs_median_upper(nn, ni);
	for (size_t i = 0; i < n; i += step) {
		size_t m = fs_near_within_box(&ix, i, 1.3 * med, near);
		for (size_t q = 0; q < m; q++) {
			size_t j = near[q];
			double r = hypot(xs[i] - xs[j], ys[i] - ys[j]);
			if (r <= 0.7 * med || r >= 1.3 * med)
				continue;
			if (k == cap) {
				cap = cap ? 2 * cap : 1024;
				double *dq = realloc(d, cap * sizeof *d);
				if (!dq) {
					free(nn);
					free(d);
					free(near);
					fs_near_index_free(&ix);
					return -1;
				}
				d = dq;
			}
			d[k++] = r;
		}
	}
	double pitch = med;
	if (k) {
		pitch = fs_median_upper(d, k);
	}
	free(nn);
	free(d);
	free(near);
	fs_near_index_free(&ix);
	return pitch;
}

void fs_dome_fit_opts_default(fs_dome_fit_opts *o)
{
	memset(o, 0, sizeof *o);
	o->fill_min = 0.16;
	o->fill_max = 0.88;
}

/* The mean image around the centres, on a grid 4 times finer than the
 * patch's and wide enough for every offset searched: a patch at any offset
 * is then read from it (averaging and sampling commute) instead of from
 * every centre again. Its cells are averaged when a patch first reads
 * them (observe): the offset searches read a part of the square (the wide
 * search about every fourth column and row, the fine one a disc around
 * one offset), and averaging was a fifth of a fit with a held fill. A
 * cell's sum runs over the centres in their order, as the whole square's
 * did, so its value does not depend on when it is made. */
typedef struct meanimg {
	int half;             /* samples each side */
	double step;          /* px per sample */
	double *v;            /* (2 half + 1)^2; valid where have[] is 1 */
	unsigned char *have;  /* 1: averaged */
	const fs_image *img;  /* the image averaged (the caller's) */
	size_t used;          /* centres averaged (in the list's order) */
	size_t *todo;         /* scratch: cells to average */
	int *tx0, *ty0;       /* per centre and column (row) of the square: */
	double *tfx, *tfy;    /* its pixel and bilinear weight, used x (2 half + 1) */
} meanimg;

static void meanimg_free(meanimg *m)
{
	free(m->v);
	free(m->have);
	free(m->todo);
	free(m->tx0);
	free(m->ty0);
	free(m->tfx);
	free(m->tfy);
	memset(m, 0, sizeof *m);
}

/* The observed side: the normalised mean patch. */
typedef struct patch {
	int g;                /* grid samples per pitch */
	int half, w;
	double *v;            /* w * w, normalised inside the mask */
	unsigned char *mask;  /* r <= FIT_R pitch */
	size_t npx;
	size_t *idx;          /* the npx samples inside the mask, ascending */
	int *ir, *iq;         /* their rows and columns */
	int *x0, *y0;         /* scratch of observe: per column (row) of the */
	double *fx, *fy;      /* patch, the mean image's cell and weight */
} patch;

/* One formation's fit. */
typedef struct cand {
	double fill, hr, prof;
	int blur, elev;       /* indices; elev -1 = no shadow term */
	double rss, coef[NPAR];
	double ox, oy;        /* the centres' offset it was fitted at, px */
	double foot;          /* fs_se_geom.foot (0: sharp, as 1) */
} cand;

typedef struct ctx {
	patch p;
	double angle, pitch;
	int bm, reach;        /* blur margin and shadow reach, grid samples */
	fs_se_field f;
	/* the last support's render plan: best_at renders its twelve shapes
	 * at one fill (fs_se_render_planned) */
	fs_se_plan plan;
	float *tmp, *bl[NBLUR][FS_SE_NCOMP]; /* blurred, cropped components */
	const float *use[FS_SE_NCOMP];     /* the ones solve_normal() reads */
	int keep_formation;   /* see fs_dome_fit_opts */
	int turn_check;       /* see fs_dome_fit_opts */
	int screened;         /* a halftone screen was low-passed away */
	int coarse_to_fine;   /* see fs_dome_fit_opts */
	/* the last unheld search's (best_at) least residual sum with a low
	 * dome (h/R at most LOW_HR) and with any: fs_dome_fit.low_ratio */
	double low_rss, any_rss;
	/* the same search's least residual sum and best formation per
	 * profile (fs_dome_fit.prof_rss, cap_tie) */
	double prof_rss[NPROF];
	cand prof_best[NPROF];
	double cap_tie;       /* see fs_dome_fit_opts */
	int foot_search;      /* see fs_dome_fit_opts */
	/* the least residual sum with a sharp foot (foot 1) over every
	 * unheld search of the fit (every fill and offset tried),
	 * fs_dome_fit.sharp_ratio: the sharp-footed fit's own best, not that
	 * of the last fill looked at */
	double sharp_rss;
	cand sharp_best;      /* its formation (foot_refine refines it too) */
	/* fs_dome_fit_opts.fine_render: fk fine samples per grid sample (0:
	 * off), the fine field ff of half width shf and shadow reach reachf,
	 * fine_px fine samples per image px, the edge's clip per fine sample,
	 * and per blur of the grid its kernel (Gaussian, pixel box and
	 * bilinear tent together) of radius fkr */
	int fk, shf, reachf;
	double fine_px, fine_edge_cap;
	fs_se_field ff;
	float *ftmp;
	double *fkern[NBLUR];
	int fkr[NBLUR];
	/* the coarse offset screen's patch: p's samples on every other row
	 * and column (idx, ir, iq its own, the rest p's) */
	patch sub;
} ctx;

#define MEAN_SUB 4      /* mean image samples per patch sample */
#define MAX_OFFSET_PCT 30 /* pitches, in hundredths */
#define MAX_OFFSET (MAX_OFFSET_PCT / 100.0)
/* the mean image's margin past FIT_R + MAX_OFFSET, hundredths of a
 * pitch: the patch's radius rounded up to whole samples (up to 1/G_MIN
 * pitch) and a bilinear read's next cell */
#define MEAN_MARGIN_PCT 10

/* Samples each side of the mean image: (FIT_R + MAX_OFFSET + margin)
 * pitch at pitch / (g MEAN_SUB) px a sample, rounded up. The pitch
 * cancels, so the count is g's alone, and it is made in integers: the
 * constants summed in doubles give 0.9500000000000001, and the quotient
 * by a step made from the pitch came out 76 or 76.00000000000001 at
 * g = 20 by the pitch's last bits, so 37 % of pitches took 77 samples
 * and a last bit decided which centres had a whole neighbourhood
 * (h40e, h40u in docs/paper-figures.md). */
static int mean_half(int g)
{
	int num = (FIT_R_PCT + MAX_OFFSET_PCT + MEAN_MARGIN_PCT) * g * MEAN_SUB;
	return (num + 99) / 100;
}

/* Chooses the centres with side (-1 all, 0 x < split, 1 x >= split) whose
 * whole neighbourhood lies inside the image (every k-th of the list when
 * max_centres is set), and tabulates for each the pixel and bilinear
 * weight of every column and row of the square; the cells are averaged
 * when read (observe). */
static unsigned offset_choice; /* fs_dome_fit_set_offset_choice */

/* The pitch of the stable sample's cells: as read, or with
 * FS_DOME_FIT_SAMPLE_ROUND rounded to 1/64 of an octave.
 * Why rounded (h48m): the pitch is read from the domes the first pass
 * kept and moves ~0.1 % under a 1e-6 px nudge; at 2x / pitch ~ 100 that
 * shifts every far cell's edges by a tenth of a cell, so the hash drew
 * another sample far from the origin. Rounded, the cells stay put unless
 * the pitch crosses a rounding edge. */
static double stable_pitch(double pitch)
{
	return offset_choice & FS_DOME_FIT_SAMPLE_ROUND ? exp2(round(64 * log2(pitch)) / 64) : pitch;
}

/* Whether the centre (x, y) is in the stable sample (FS_DOME_FIT_STABLE_SAMPLE)
 * of share p: a hash of its half-pitch cell (of stable_pitch) below p. */
static int in_stable_sample(double x, double y, double pitch, double p)
{
	uint64_t h = (uint64_t)(int64_t)floor(2 * x / pitch) * 0x9E3779B97F4A7C15ull ^
		     (uint64_t)(int64_t)floor(2 * y / pitch) * 0xC2B2AE3D27D4EB4Full;
	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 29;
	return (double)(h >> 11) * 0x1p-53 < p;
}

int fs_dome_fit_in_sample(double x, double y, double pitch, double share)
{
	return in_stable_sample(x, y, stable_pitch(pitch), share);
}

static int mean_image(const fs_image *img, const double *xs, const double *ys, const int *shx, const int *shy,
		      size_t n, double pitch, int g, int side, double split, size_t max_centres, meanimg *m)
{
	/* a larger sample averages the draw's own noise down (h48m), at a
	 * cost the fit's observe() pays per centre; whole image only, as the
	 * stable sample, so that tiled and whole keep one sample */
	if ((offset_choice & FS_DOME_FIT_SAMPLE_DOUBLE) && max_centres && !shx)
		max_centres *= 2;
	m->step = pitch / g / MEAN_SUB;
	m->half = mean_half(g);
	double ext = (m->half + 1) * m->step;
	/* FS_DOME_FIT_SAMPLE_WHOLE (h48m): every k-th of the centres that can
	 * be averaged at all. The first pass keeps candidates on the frame's
	 * last row or column as domes exactly where they lie on it, and a
	 * 1e-6 px nudge takes them out (corner 14@0: 395 / 377 / 382 domes,
	 * every one of the 13-18 lost at x or y = 0 or W-1); never whole,
	 * they still moved k and every pick after them. */
	size_t whole_n = n, pick = 0;
	int whole_only = (offset_choice & FS_DOME_FIT_SAMPLE_WHOLE) && max_centres && !shx;
	if (whole_only) {
		whole_n = 0;
		for (size_t i = 0; i < n; i++)
			whole_n += !((side == 0 && xs[i] >= split) || (side == 1 && xs[i] < split)) &&
				   fs_dome_fit_whole(xs[i], ys[i], ext, img->width, img->height);
	}
	size_t stride = max_centres && whole_n > max_centres ? (whole_n + max_centres - 1) / max_centres : 1;
	double share = 1, cell_pitch = stable_pitch(pitch);
	if ((offset_choice & FS_DOME_FIT_STABLE_SAMPLE) && stride > 1 && !shx) {
		share = (double)max_centres / (double)whole_n;
		stride = 1;
	}
	size_t w = (size_t)(2 * m->half + 1), cap = n / stride + 1;
	m->img = img;
	m->used = 0;
	m->v = malloc(w * w * sizeof *m->v);
	m->have = calloc(w * w, 1);
	m->todo = malloc(w * w * sizeof *m->todo);
	m->tx0 = malloc(cap * w * sizeof *m->tx0);
	m->ty0 = malloc(cap * w * sizeof *m->ty0);
	m->tfx = malloc(cap * w * sizeof *m->tfx);
	m->tfy = malloc(cap * w * sizeof *m->tfy);
	if (!m->v || !m->have || !m->todo || !m->tx0 || !m->ty0 || !m->tfx || !m->tfy)
		return -1;
	for (size_t i = 0; i < n; i += whole_only ? 1 : stride) {
		if ((side == 0 && xs[i] >= split) || (side == 1 && xs[i] < split))
			continue;
		if (whole_only && (!fs_dome_fit_whole(xs[i], ys[i], ext, img->width, img->height) || pick++ % stride))
			continue;
		if (share < 1 && !in_stable_sample(xs[i], ys[i], cell_pitch, share))
			continue;
		/* a mosaic's cell (fs_dome_fit_opts.patch_ox): the centre's
		 * position in img is its own less an integer, exact */
		int sx = shx ? shx[i] : 0, sy = shy ? shy[i] : 0;
		if (sx == INT_MIN)
			continue;
		double cx = xs[i] - sx, cy = ys[i] - sy;
		if (!fs_dome_fit_whole(cx, cy, ext, img->width, img->height))
			continue;
		size_t t = m->used++ * w;
		for (int u = -m->half; u <= m->half; u++, t++) {
			/* (the position in the centre's own pixels, as on the
			 * whole image; its pixel then shifted) */
			double x = xs[i] + u * m->step, y = ys[i] + u * m->step;
			int x0 = (int)floor(x), y0 = (int)floor(y);
			m->tfx[t] = x - x0;
			m->tfy[t] = y - y0;
			m->tx0[t] = x0 - sx;
			m->ty0[t] = y0 - sy;
		}
	}
	return 0;
}

void fs_dome_fit_reach(double pitch, size_t n, size_t max_centres, size_t *stride, double *extent)
{
	int g = (int)lround(pitch);
	g = g > G_MAX ? G_MAX : g < G_MIN ? G_MIN : g;
	double step = pitch / g / MEAN_SUB;
	*stride = max_centres && n > max_centres ? (n + max_centres - 1) / max_centres : 1;
	*extent = (mean_half(g) + 1) * step;
}

/* Averages the nt cells todo[] of m: each cell's bilinear sample added
 * centre after centre, then divided by their number. A cell at a time,
 * its sum in a register over the centres (each cell's sum still adds the
 * centres in their order from 0, so the same bits as the centres' loop
 * outside, which stored and reloaded every cell's sum and worked out its
 * column and row once per centre: h43n). */
#ifdef FS_LANES_AVX
/* average_cells' cells todo[0..] four at a time with AVX (where the CPU
 * has it), from 0 while four remain; returns the first cell left for the
 * scalar loop. Each lane is one cell, its sum over the centres in their
 * order and each term the scalar loop's operations in its order (no fused
 * multiply-add under target "avx"), so the same bits; the four cells need
 * not share a row or column. */
__attribute__((target("avx"))) static size_t average_cells4(meanimg *m, size_t nt)
{
	size_t w = (size_t)(2 * m->half + 1);
	long iw = m->img->width;
	const float *data = m->img->data;
	const v4d one = {1, 1, 1, 1};
	size_t k = 0;
	for (; k + 4 <= nt; k += 4) {
		const size_t *o = m->todo + k;
		size_t c0 = o[0] % w, c1 = o[1] % w, c2 = o[2] % w, c3 = o[3] % w;
		size_t r0 = o[0] / w, r1 = o[1] / w, r2 = o[2] / w, r3 = o[3] / w;
		v4d acc = {0, 0, 0, 0};
		for (size_t i = 0, t = 0; i < m->used; i++, t += w) {
			const int *tx0 = m->tx0 + t, *ty0 = m->ty0 + t;
			const double *tfx = m->tfx + t, *tfy = m->tfy + t;
			v4d fx = {tfx[c0], tfx[c1], tfx[c2], tfx[c3]};
			v4d fy = {tfy[r0], tfy[r1], tfy[r2], tfy[r3]};
			v4d d00, d01, d10, d11;
			fs_corners4(data + (long)ty0[r0] * iw + tx0[c0], data + (long)ty0[r1] * iw + tx0[c1],
				    data + (long)ty0[r2] * iw + tx0[c2], data + (long)ty0[r3] * iw + tx0[c3], iw, &d00,
				    &d01, &d10, &d11);
			acc += (d00 * (one - fx) + d01 * fx) * (one - fy) + (d10 * (one - fx) + d11 * fx) * fy;
		}
		v4d avg = acc / (v4d){(double)m->used, (double)m->used, (double)m->used, (double)m->used};
		for (int j = 0; j < 4; j++) {
			m->v[o[j]] = avg[j];
			m->have[o[j]] = 1;
		}
	}
	return k;
}
#endif

static void average_cells(meanimg *m, size_t nt)
{
	size_t w = (size_t)(2 * m->half + 1), iw = (size_t)m->img->width;
	const float *data = m->img->data;
	size_t k = 0;
#ifdef FS_LANES_AVX
	if (fs_cpu_has_avx())
		k = average_cells4(m, nt);
#endif
	for (; k < nt; k++) {
		size_t o = m->todo[k], col = o % w, row = o / w;
		const int *tx0 = m->tx0 + col, *ty0 = m->ty0 + row;
		const double *tfx = m->tfx + col, *tfy = m->tfy + row;
		double acc = 0;
		for (size_t i = 0, t = 0; i < m->used; i++, t += w) {
			double fx = tfx[t], fy = tfy[t];
			const float *d = data + (size_t)ty0[t] * iw + (size_t)tx0[t];
			acc += (d[0] * (1 - fx) + d[1] * fx) * (1 - fy) + (d[iw] * (1 - fx) + d[iw + 1] * fx) * fy;
		}
		m->v[o] = acc / m->used;
		m->have[o] = 1;
	}
}

/* The normalised patch of m at offset (ox, oy) px. */
static void observe(meanimg *m, double ox, double oy, patch *p)
{
	size_t w = (size_t)(2 * m->half + 1);
	double s = 0, s2 = 0;
	/* a sample's column depends on u alone, its row on v alone */
	for (int u = -p->half; u <= p->half; u++) {
		double x = (ox + u * m->step * MEAN_SUB) / m->step + m->half;
		double y = (oy + u * m->step * MEAN_SUB) / m->step + m->half;
		p->x0[u + p->half] = (int)floor(x);
		p->fx[u + p->half] = x - p->x0[u + p->half];
		p->y0[u + p->half] = (int)floor(y);
		p->fy[u + p->half] = y - p->y0[u + p->half];
	}
	/* the cells this patch reads that are not averaged yet */
	size_t nt = 0;
	for (size_t t = 0; t < p->npx; t++) {
		size_t o = (size_t)p->y0[p->ir[t]] * w + (size_t)p->x0[p->iq[t]];
		size_t c4[4] = {o, o + 1, o + w, o + w + 1};
		for (int k = 0; k < 4; k++)
			if (!m->have[c4[k]]) {
				m->have[c4[k]] = 2; /* listed */
				m->todo[nt++] = c4[k];
			}
	}
	if (nt)
		average_cells(m, nt);
	for (size_t t = 0; t < p->npx; t++) {
		int r = p->ir[t], q = p->iq[t];
		double fx = p->fx[q], fy = p->fy[r];
		const double *d = m->v + (size_t)p->y0[r] * w + (size_t)p->x0[q];
		double val = (d[0] * (1 - fx) + d[1] * fx) * (1 - fy) + (d[w] * (1 - fx) + d[w + 1] * fx) * fy;
		p->v[p->idx[t]] = val;
		s += val;
	}
	double mean = s / p->npx;
	for (size_t t = 0; t < p->npx; t++)
		s2 += (p->v[p->idx[t]] - mean) * (p->v[p->idx[t]] - mean);
	double sd = sqrt(s2 / p->npx);
	if (sd < 1e-12)
		sd = 1e-12;
	/* (outside the mask v stays 0) */
	for (size_t t = 0; t < p->npx; t++)
		p->v[p->idx[t]] = (p->v[p->idx[t]] - mean) / sd;
}

/* The blur below computes two neighbouring outputs at once in two lanes
 * (lanes.h). */
#define MAX_LINE 256 /* outputs of one line of the blur (2 half + 1 at G 20: 23) */

#ifdef FS_LANES_AVX
/* blur_line's outputs of a row (stride 1) four at a time with AVX (where
 * the CPU has it, fs_cpu_has_avx), from 0 while four remain; returns the
 * first output left for the pair loop. A quad whose taps are all bg is
 * flat; one with any output busy is summed whole, each lane its taps in
 * order (no fused multiply-add under target "avx"), and a lane of all-bg
 * taps sums to flat exactly as the pair loop's does: the same values. */
__attribute__((target("avx"))) static int blur_row4(const float *src, int n, const double *k, int kr, float flat,
						     const unsigned char *busy, float *dst)
{
	int taps = 2 * kr + 1, x = 0;
	for (; x + 4 <= n; x += 4) {
		if (!(busy[x] | busy[x + 1] | busy[x + 2] | busy[x + 3])) {
			dst[x] = dst[x + 1] = dst[x + 2] = dst[x + 3] = flat;
			continue;
		}
		v4d a = fs_conv4f(src + x, 1, k, taps);
		_mm_storeu_ps(dst + x, _mm256_cvtpd_ps((__m256d)a));
	}
	return x;
}
#endif

/* One line of a 1-D Gaussian: dst[x] = sum_i k[i] src[x + i], x < n, with
 * neighbouring taps and outputs (in src and dst alike) stride apart. Most of a rendered
 * component is the flat surface between the domes (bg: yield 1, slopes,
 * edge and shadow 0); where every tap is bg the sum is the same for all
 * such outputs, flat (bg summed through k in the same order), and is
 * written without summing. */
static void blur_line(const float *src, size_t stride, int n, const double *k, int kr, float bg, float flat,
		      float *dst)
{
	int taps = 2 * kr + 1, nb = 0;
	unsigned char busy[MAX_LINE];
	/* busy[x]: some tap of output x differs from bg (a sliding count) */
	for (int i = 0; i < taps - 1; i++)
		nb += src[(size_t)i * stride] != bg;
	for (int x = 0; x < n; x++) {
		nb += src[(size_t)(x + taps - 1) * stride] != bg;
		busy[x] = nb > 0;
		nb -= src[(size_t)x * stride] != bg;
	}
	int x = 0;
#ifdef FS_LANES_AVX
	if (stride == 1 && fs_cpu_has_avx())
		x = blur_row4(src, n, k, kr, flat, busy, dst);
#endif
	for (; x + 2 <= n; x += 2) {
		if (!busy[x] && !busy[x + 1]) {
			dst[(size_t)x * stride] = dst[(size_t)(x + 1) * stride] = flat;
			continue;
		}
		v2d a = {0, 0};
		const float *s = src + (size_t)x * stride;
		if (stride == 1)
			for (int i = 0; i < taps; i++)
				a += k[i] * fs_widen2(s + i);
		else
			for (int i = 0; i < taps; i++) {
				v2d sv = {s[(size_t)i * stride], s[(size_t)i * stride + stride]};
				a += k[i] * sv;
			}
		dst[(size_t)x * stride] = (float)a[0];
		dst[(size_t)(x + 1) * stride] = (float)a[1];
	}
	for (; x < n; x++) {
		if (!busy[x]) {
			dst[(size_t)x * stride] = flat;
			continue;
		}
		double a = 0;
		const float *s = src + (size_t)x * stride;
		for (int i = 0; i < taps; i++)
			a += k[i] * s[(size_t)i * stride];
		dst[(size_t)x * stride] = (float)a;
	}
}

/* blur_line of the two neighbouring columns at src and src + 1 (outputs
 * down the columns, stride apart), one column per lane: the two pixels a
 * tap reads lie side by side, one load. An output whose taps are all bg
 * is flat either way: the lane's sum is bg through k in flat's order (as
 * blur_crop sums it), the same value, so a pair is summed when either
 * column needs it. */
static void blur_cols2(const float *src, size_t stride, int n, const double *k, int kr, float bg, float flat,
		       float *dst)
{
	int taps = 2 * kr + 1, nb = 0;
	unsigned char busy[MAX_LINE];
	/* busy[x]: some tap of output x, in either column, differs from bg */
	for (int i = 0; i < taps - 1; i++)
		nb += (src[(size_t)i * stride] != bg) + (src[(size_t)i * stride + 1] != bg);
	for (int x = 0; x < n; x++) {
		const float *in = src + (size_t)(x + taps - 1) * stride, *out = src + (size_t)x * stride;
		nb += (in[0] != bg) + (in[1] != bg);
		busy[x] = nb > 0;
		nb -= (out[0] != bg) + (out[1] != bg);
	}
	for (int x = 0; x < n; x++) {
		float *d = dst + (size_t)x * stride;
		if (!busy[x]) {
			d[0] = d[1] = flat;
			continue;
		}
		v2d a = {0, 0};
		const float *s = src + (size_t)x * stride;
		for (int i = 0; i < taps; i++)
			a += k[i] * fs_widen2(s + (size_t)i * stride);
		d[0] = (float)a[0];
		d[1] = (float)a[1];
	}
}

#ifdef FS_LANES_AVX
/* blur_cols2 of four neighbouring columns at src .. src + 3 with AVX, one
 * column per lane: the four pixels a tap reads lie side by side, one
 * load; a quad is summed when any of its columns needs it (the others'
 * lanes then sum to flat, as blur_cols2's do). */
__attribute__((target("avx"))) static void blur_cols4(const float *src, size_t stride, int n, const double *k, int kr,
						      float bg, float flat, float *dst)
{
	int taps = 2 * kr + 1, nb = 0;
	unsigned char busy[MAX_LINE];
	for (int i = 0; i < taps - 1; i++) {
		const float *p = src + (size_t)i * stride;
		nb += (p[0] != bg) + (p[1] != bg) + (p[2] != bg) + (p[3] != bg);
	}
	for (int x = 0; x < n; x++) {
		const float *in = src + (size_t)(x + taps - 1) * stride, *out = src + (size_t)x * stride;
		nb += (in[0] != bg) + (in[1] != bg) + (in[2] != bg) + (in[3] != bg);
		busy[x] = nb > 0;
		nb -= (out[0] != bg) + (out[1] != bg) + (out[2] != bg) + (out[3] != bg);
	}
	for (int x = 0; x < n; x++) {
		float *d = dst + (size_t)x * stride;
		if (!busy[x]) {
			d[0] = d[1] = d[2] = d[3] = flat;
			continue;
		}
		v4d a = fs_conv4f(src + (size_t)x * stride, stride, k, taps);
		_mm_storeu_ps(d, _mm256_cvtpd_ps((__m256d)a));
	}
}
#endif

/* Gaussian blur of a (2 sh + 1)^2 window src whose flat surface has the
 * value bg, cropped to (2 half + 1)^2: rows first over the window's rows
 * that the columns' pass reads and the crop's columns, then the columns. */
static void blur_crop(const float *src, float bg, int sh, int half, double sigma, float *tmp, float *dst)
{
	int sw = 2 * sh + 1, cw = 2 * half + 1, kr = (int)ceil(3 * sigma);
	if (kr > sh - half)
		kr = sh - half;
	if (kr > 31)
		kr = 31;
	double k[64], ks = 0;
	for (int i = -kr; i <= kr; i++)
		ks += k[i + kr] = exp(-0.5 * i * i / (sigma * sigma));
	for (int i = 0; i <= 2 * kr; i++)
		k[i] /= ks;
	/* the flat surface through the rows' and the columns' sums */
	double fr = 0, fc = 0;
	for (int i = 0; i <= 2 * kr; i++)
		fr += k[i] * bg;
	float flat_r = (float)fr;
	for (int i = 0; i <= 2 * kr; i++)
		fc += k[i] * flat_r;
	int off = sh - half;
	for (int y = off - kr; y < off + cw + kr; y++)
		blur_line(src + (size_t)y * sw + off - kr, 1, cw, k, kr, bg, flat_r, tmp + (size_t)y * cw);
	int x = 0;
#ifdef FS_LANES_AVX
	if (fs_cpu_has_avx())
		for (; x + 4 <= cw; x += 4)
			blur_cols4(tmp + (size_t)(off - kr) * cw + x, (size_t)cw, cw, k, kr, flat_r, (float)fc, dst + x);
#endif
	for (; x + 2 <= cw; x += 2)
		blur_cols2(tmp + (size_t)(off - kr) * cw + x, (size_t)cw, cw, k, kr, flat_r, (float)fc, dst + x);
	for (; x < cw; x++)
		blur_line(tmp + (size_t)(off - kr) * cw + x, (size_t)cw, cw, k, kr, flat_r, (float)fc, dst + x);
}

/* The normal equations of the patch on nc components c->use[] and a
 * constant (index nc): xtx the lower triangle of X^T X, xtv X^T v. Kept
 * apart so that a caller can keep X^T X while only the patch changes (the
 * offset search) or while one component is added (the shadow term): each
 * sum runs over the same samples in the same order either way. */
static void normal_xtx(const ctx *c, int nc, double xtx[NPAR][NPAR])
{
	const patch *p = &c->p;
	int np = nc + 1;
	memset(xtx, 0, NPAR * sizeof xtx[0]);
	for (size_t t = 0; t < p->npx; t++) {
		size_t o = p->idx[t];
		double x[NPAR];
		for (int k = 0; k < nc; k++)
			x[k] = c->use[k][o];
		x[nc] = 1;
		for (int i = 0; i < np; i++)
			for (int j = 0; j <= i; j++)
				xtx[i][j] += x[i] * x[j];
	}
}

static void normal_xtv(const ctx *c, int nc, double *xtv)
{
	const patch *p = &c->p;
	for (int i = 0; i <= nc; i++)
		xtv[i] = 0;
	for (size_t t = 0; t < p->npx; t++) {
		size_t o = p->idx[t];
		for (int k = 0; k < nc; k++)
			xtv[k] += c->use[k][o] * p->v[o];
		xtv[nc] += p->v[o];
	}
}

/* Least squares from the normal equations; returns the residual sum of
 * squares (coef gets the weights, constant at index nc). */
static double solve_normal(const ctx *c, int nc, const double xtx[NPAR][NPAR], const double *xtv, double *coef)
{
	const patch *p = &c->p;
	int np = nc + 1;
	double A[NPAR][NPAR + 1];
	for (int i = 0; i < np; i++) {
		for (int j = 0; j <= i; j++)
			A[i][j] = A[j][i] = xtx[i][j];
		A[i][np] = xtv[i];
	}
	fs_se_solve(A, np, coef);
	/* RSS = v.v - coef.(X^T v) needs the normal equations before
	 * elimination; summing the residuals is as cheap at this size */
	double rss = 0;
	for (size_t t = 0; t < p->npx; t++) {
		size_t o = p->idx[t];
		double m = coef[nc];
		for (int k = 0; k < nc; k++)
			m += coef[k] * c->use[k][o];
		rss += (m - p->v[o]) * (m - p->v[o]);
	}
	return rss;
}

/* The normal equations on nc components and the constant (index nc)
 * extended by the component c->use[nc] (the constant moves to nc + 1):
 * only the new row is summed. */
static void normal_add(const ctx *c, int nc, const double xtx[NPAR][NPAR], const double *xtv, double out[NPAR][NPAR],
		       double *outv)
{
	const patch *p = &c->p;
	memset(out, 0, NPAR * sizeof out[0]);
	for (int i = 0; i < nc; i++) {
		for (int j = 0; j <= i; j++)
			out[i][j] = xtx[i][j];
		out[nc + 1][i] = xtx[nc][i];
		outv[i] = xtv[i];
	}
	out[nc + 1][nc + 1] = xtx[nc][nc];
	outv[nc + 1] = xtv[nc];
	outv[nc] = 0;
	for (size_t t = 0; t < p->npx; t++) {
		size_t o = p->idx[t];
		double x = c->use[nc][o];
		for (int j = 0; j < nc; j++)
			out[nc][j] += x * c->use[j][o];
		out[nc][nc] += x * x;
		out[nc + 1][nc] += x;
		outv[nc] += x * p->v[o];
	}
}

/* fs_dome_fit_opts.fine_render (h44g, docs/paper-figures.md). The
 * image's pixel integrates its 1-px box and the mean patch reads it
 * bilinearly at the centres' sub-pixel phases (a tent of 1 px half width,
 * averaged over the phases); together a quadratic B-spline 3 px wide.
 * The grid's model leaves both to its Gaussian, which is near enough on
 * large domes but not on the 4-px ones at pitch 16 (h43b): there the
 * model is rendered fk times finer, blurred by the Gaussian with that
 * B-spline and read at the grid's samples. */
#define FINE_KR_MAX 160

/* The fine kernel of a Gaussian of sigma fine samples: the B-spline of
 * fine_px samples a px convolved with it (box_tent_kernel.h's closed
 * form, in px: sigma / fine_px, at i / fine_px), normalised; returns its
 * radius (at most FINE_KR_MAX). */
static int fine_kernel(const ctx *c, double sigma, double *k)
{
	double W = c->fine_px;
	int kr = (int)ceil(3 * sigma + 1.5 * W);
	if (kr > c->shf - c->p.half * c->fk)
		kr = c->shf - c->p.half * c->fk;
	if (kr > FINE_KR_MAX)
		kr = FINE_KR_MAX;
	double ks = 0;
	for (int i = -kr; i <= kr; i++)
		ks += k[i + kr] = fs_box_tent_gauss(sigma / W, i / W);
	for (int i = 0; i <= 2 * kr; i++)
		k[i] /= ks;
	return kr;
}

/* The fine field's component src blurred by kernel k (radius kr) and read
 * at every fk-th fine sample, i.e. at the grid's (2 half + 1)^2 samples:
 * the rows' pass only at the grid's columns, the columns' only at its
 * rows. */
static void fine_blur(const ctx *c, const float *src, const double *k, int kr, float *dst)
{
	int K = c->fk, half = c->p.half, sh = c->shf, sw = 2 * sh + 1, cw = 2 * half + 1, hk = half * K;
	for (int y = -hk - kr; y <= hk + kr; y++) {
		const float *row = src + (size_t)(y + sh) * sw + sh;
		float *t = c->ftmp + (size_t)(y + hk + kr) * cw;
		for (int u = -half; u <= half; u++) {
			double a = 0;
			const float *s = row + u * K - kr;
			for (int i = 0; i <= 2 * kr; i++)
				a += k[i] * s[i];
			t[u + half] = (float)a;
		}
	}
	for (int v = -half; v <= half; v++)
		for (int u = -half; u <= half; u++) {
			double a = 0;
			const float *s = c->ftmp + (size_t)(v * K - kr + hk + kr) * cw + (u + half);
			for (int i = 0; i <= 2 * kr; i++)
				a += k[i] * s[(size_t)i * cw];
			dst[(size_t)(v + half) * cw + (u + half)] = (float)a;
		}
}

/* One geometry's components: on the grid, or on the fine grid (fk). */
static int render_geom(ctx *c, const fs_se_geom *m)
{
	if (!c->fk)
		return fs_se_render(m, c->p.g, c->p.half + c->bm, c->reach, &c->f);
	return fs_se_render_cap(m, c->p.g * c->fk, c->shf, c->reachf, c->fine_edge_cap, &c->ff);
}

static void shadow_geom(ctx *c, double az, double el)
{
	fs_se_shadow(c->fk ? &c->ff : &c->f, az, el);
}

/* Component k of the last render blurred at the grid's blur b (or, b < 0,
 * at sigma grid samples) into dst. */
static void blur_comp(ctx *c, int k, int b, double sigma, float *dst)
{
	int half = c->p.half, sh = half + c->bm;
	if (!c->fk) {
		blur_crop(c->f.c[k], k == FS_SE_YIELD ? 1.0f : 0.0f, sh, half, b >= 0 ? BLUR[b] * c->p.g : sigma, c->tmp,
			  dst);
		return;
	}
	if (b >= 0) {
		fine_blur(c, c->ff.c[k], c->fkern[b], c->fkr[b], dst);
		return;
	}
	double kern[2 * FINE_KR_MAX + 1];
	int kr = fine_kernel(c, sigma * c->fk, kern);
	fine_blur(c, c->ff.c[k], kern, kr, dst);
}

static void use_blur(ctx *c, int b)
{
	for (int k = 0; k < FS_SE_NCOMP; k++)
		c->use[k] = c->bl[b][k];
}

/* One geometry's fits over the blurs (try_geom): the unshadowed normal
 * equations per blur, which the shadowed ones extend by the shadow's row,
 * and the best unshadowed blur so far. */
typedef struct blur_scan {
	double fill, hr, prof, foot;
	const cand *hold;
	double xtx[NBLUR][NPAR][NPAR], xtv[NBLUR][NPAR], rss[NBLUR];
	double brss, baz;
	int bb;
} blur_scan;

/* The unshadowed fit at blur b of the geometry rendered in c->f. */
static void fit_blur(ctx *c, blur_scan *sc, int b, cand *best)
{
	for (int k = 0; k < FS_SE_SHADOW; k++)
		blur_comp(c, k, b, 0, c->bl[b][k]);
	use_blur(c, b);
	cand cd = {sc->fill, sc->hr, sc->prof, b, -1, 0, {0}, 0, 0, sc->foot};
	normal_xtx(c, FS_SE_SHADOW, sc->xtx[b]);
	normal_xtv(c, FS_SE_SHADOW, sc->xtv[b]);
	cd.rss = sc->rss[b] = solve_normal(c, FS_SE_SHADOW, sc->xtx[b], sc->xtv[b], cd.coef);
	cd.coef[NPAR - 1] = cd.coef[FS_SE_SHADOW];
	cd.coef[FS_SE_SHADOW] = 0;
	if (cd.rss < sc->brss) {
		sc->brss = cd.rss;
		sc->bb = b;
		sc->baz = atan2(cd.coef[FS_SE_SLOPE_Y], cd.coef[FS_SE_SLOPE_X]);
	}
	if ((!sc->hold || sc->hold->elev < 0) && cd.rss < best->rss)
		*best = cd;
}

/* The best formation for one geometry at the current patch: over the blurs
 * (only hold->blur and hold->elev when hold is given) and the shadow
 * elevations (tried at the best unshadowed blur and its neighbours).
 * *best is replaced when one is better. The blurs are searched from the
 * middle one downhill: the residual has one minimum over them (a model
 * sharper or softer than the image fits worse the further it is off), and
 * the blurs far from it, the widest the dearest, are not rendered. */
static int try_geom(ctx *c, double fill, double hr, double prof, double foot, const cand *hold, cand *best)
{
	fs_se_geom m = {fill, hr, prof, c->angle, foot};
	/* on the grid through the plan: a dozen shapes at one fill share
	 * one pass over the sites (fs_se_render_planned, the same bits) */
	if (c->fk ? render_geom(c, &m)
		  : fs_se_render_planned(&m, c->p.g, c->p.half + c->bm, c->reach, &c->f, &c->plan))
		return -1;
	blur_scan sc = {.fill = fill, .hr = hr, .prof = prof, .foot = foot, .hold = hold, .brss = INFINITY};
	int lo, hi;
	if (hold) {
		lo = hi = sc.bb = hold->blur;
		fit_blur(c, &sc, lo, best);
	} else {
		int s = NBLUR / 2;
		lo = s - 1;
		hi = s + 1;
		sc.bb = s;
		fit_blur(c, &sc, s, best);
		fit_blur(c, &sc, lo, best);
		fit_blur(c, &sc, hi, best);
		if (sc.rss[lo] < sc.rss[s])
			while (lo > 0 && sc.rss[lo] < sc.rss[lo + 1])
				fit_blur(c, &sc, --lo, best);
		else if (sc.rss[hi] < sc.rss[s])
			while (hi < NBLUR - 1 && sc.rss[hi] < sc.rss[hi - 1])
				fit_blur(c, &sc, ++hi, best);
	}
	if (hold && hold->elev < 0)
		return 0;
	for (int e = 0; e < NELEV; e++) {
		if (hold && e != hold->elev)
			continue;
		shadow_geom(c, sc.baz, ELEV_DEG[e] * M_PI / 180);
		/* (the blurs looked at: the best one's neighbours are, unless
		 * it is at the end of the range) */
		for (int b = sc.bb - 1; b <= sc.bb + 1; b++) {
			if (b < lo || b > hi)
				continue;
			blur_comp(c, FS_SE_SHADOW, b, 0, c->bl[b][FS_SE_SHADOW]);
			use_blur(c, b);
			cand cs = {fill, hr, prof, b, e, 0, {0}, 0, 0, foot};
			double sx[NPAR][NPAR], sv[NPAR];
			normal_add(c, FS_SE_SHADOW, sc.xtx[b], sc.xtv[b], sx, sv);
			cs.rss = solve_normal(c, FS_SE_NCOMP, sx, sv, cs.coef);
			/* a shadow brighter than the lit surface is no shadow
			 * (when searching; a held formation is kept as it is) */
			if ((hold || cs.coef[FS_SE_SHADOW] < 0) && cs.rss < best->rss)
				*best = cs;
		}
	}
	return 0;
}

/* The best formation at one fill for the current patch (all nuisances, or
 * those of hold). */
static int best_at(ctx *c, double fill, const cand *hold, cand *best)
{
	best->rss = INFINITY;
	if (hold)
		return try_geom(c, fill, hold->hr, hold->prof, hold->foot, hold, best);
	c->low_rss = INFINITY;
	for (int q = 0; q < NPROF; q++)
		c->prof_rss[q] = INFINITY;
	int nfoot = c->foot_search ? NFOOT : 1;
	for (int h = 0; h < NHR; h++) {
		for (int q = 0; q < NPROF; q++)
			for (int ft = 0; ft < nfoot; ft++) {
				/* the coarse scan uses every shape too: with a
				 * subset a tall flat-topped dome at fill 0.16
				 * passed for a paraboloid at 0.30 (R^2 0.993) */
				cand t = {.rss = INFINITY};
				if (try_geom(c, fill, HR[h], PROF[q], c->foot_search ? FOOT[ft] : 0, NULL, &t))
					return -1;
				/* (the sharp foot's best kept only where the
				 * foot is searched: the default path does not
				 * copy it) */
				if (c->foot_search && !ft && t.rss < c->sharp_rss) {
					c->sharp_rss = t.rss;
					c->sharp_best = t;
				}
				if (t.rss < c->prof_rss[q]) {
					c->prof_rss[q] = t.rss;
					c->prof_best[q] = t;
				}
				/* (the first of equal sums, as one search's
				 * order) */
				if (t.rss < best->rss)
					*best = t;
			}
		/* (the grid ascends: best is the low domes' best here) */
		if (HR[h] <= LOW_HR)
			c->low_rss = best->rss;
	}
	c->any_rss = best->rss;
	/* a shape the patch leaves open is the cap's (cap_tie); low_ratio
	 * stays the search's own (the tall-dome gate asks whether a low
	 * dome fits, not which profile) */
	if (c->cap_tie > 0 && best->prof != PROF[0] && c->prof_rss[0] <= best->rss * (1 + c->cap_tie))
		*best = c->prof_best[0];
	return 0;
}

/* The residual of the held formation (X^T X given) with the patch
 * observed at offset (x, y). */
static double offset_rss(ctx *c, meanimg *m, int nc, const double xtx[NPAR][NPAR], double x, double y)
{
	double xtv[NPAR], coef[NPAR];
	observe(m, x, y, &c->p);
	normal_xtv(c, nc, xtv);
	return solve_normal(c, nc, xtx, xtv, coef);
}

/* fs_dome_fit_set_offset_choice (dome_fit.h, h48a): process-wide, set
 * before any fit runs (offset_choice, above mean_image) */

unsigned fs_dome_fit_set_offset_choice(unsigned bits)
{
	unsigned was = offset_choice;
	offset_choice = bits;
	return was;
}

int fs_dome_fit_offset_pick(const double *rss, const double *x, const double *y, size_t n, double tie)
{
	double best = INFINITY;
	for (size_t k = 0; k < n; k++)
		if (rss[k] < best)
			best = rss[k];
	if (!isfinite(best))
		return -1;
	int pick = -1;
	for (size_t k = 0; k < n; k++)
		if (rss[k] <= best * (1 + tie) && (pick < 0 || hypot(x[k], y[k]) < hypot(x[pick], y[pick])))
			pick = (int)k;
	return pick;
}

/* The fine offset grid (cx + i st, cy + j st), |i|, |j| <= r, searched
 * downhill from its centre: each round reads the eight neighbours of the
 * best point so far and moves to the best of them, until none is better.
 * The grid's minimum wherever the residual has one minimum over it (the
 * fingerprints of bench_detect_domes: the same on every image measured),
 * in about a quarter of the full grid's reads. *br, *bx, *by: the best so
 * far, replaced by a better point. */
#define DESCENT_MAX_R 4
#define DESCENT_W (2 * DESCENT_MAX_R + 1)
typedef struct descent {
	ctx *c;
	meanimg *m;
	int nc, r;
	const double (*xtx)[NPAR];
	double cx, cy, st, lim;
	double rss[DESCENT_W * DESCENT_W];
	unsigned char seen[DESCENT_W * DESCENT_W];
	double best;
	int bi, bj;
} descent;

/* Reads grid point (i, j) once (INFINITY beyond the limit) and keeps it
 * when it is the best so far. */
static void descent_read(descent *d, int i, int j)
{
	size_t o = (size_t)(j + d->r) * DESCENT_W + (size_t)(i + d->r);
	if (!d->seen[o]) {
		double x = d->cx + i * d->st, y = d->cy + j * d->st;
		d->seen[o] = 1;
		d->rss[o] = fabs(x) > d->lim + 1e-9 || fabs(y) > d->lim + 1e-9
				    ? INFINITY
				    : offset_rss(d->c, d->m, d->nc, d->xtx, x, y);
	}
	if (d->rss[o] < d->best) {
		d->best = d->rss[o];
		d->bi = i;
		d->bj = j;
	}
}

/* Grid point (i, j)'s residual where the descent read it, else NaN. */
static double descent_at(const descent *d, int i, int j)
{
	if (i < -d->r || i > d->r || j < -d->r || j > d->r)
		return NAN;
	size_t o = (size_t)(j + d->r) * DESCENT_W + (size_t)(i + d->r);
	return d->seen[o] ? d->rss[o] : NAN;
}

static void offset_descent(ctx *c, meanimg *m, int nc, const double xtx[NPAR][NPAR], double cx, double cy, double st,
			   int r, double lim, double *br, double *bx, double *by)
{
	descent d = {.c = c, .m = m, .nc = nc, .r = r, .xtx = xtx, .cx = cx, .cy = cy, .st = st, .lim = lim,
		     .best = INFINITY};
	if (r > DESCENT_MAX_R)
		return;
	descent_read(&d, 0, 0);
	for (;;) {
		int ci = d.bi, cj = d.bj;
		for (int j = cj - 1; j <= cj + 1; j++)
			for (int i = ci - 1; i <= ci + 1; i++)
				if (i >= -r && i <= r && j >= -r && j <= r)
					descent_read(&d, i, j);
		if (d.bi == ci && d.bj == cj)
			break;
	}
	if (d.best < *br) {
		double vi = 0, vj = 0;
		/* (the vertex's three points on each axis were read by the
		 * descent's last round, which looked at all eight neighbours) */
		if ((offset_choice & FS_DOME_FIT_OFFSET_VERTEX) && isfinite(d.best)) {
			double b = d.best, a = descent_at(&d, d.bi - 1, d.bj), e = descent_at(&d, d.bi + 1, d.bj);
			if (isfinite(a) && isfinite(e))
				vi = fs_parabola_vertex(-a, -b, -e);
			a = descent_at(&d, d.bi, d.bj - 1);
			e = descent_at(&d, d.bi, d.bj + 1);
			if (isfinite(a) && isfinite(e))
				vj = fs_parabola_vertex(-a, -b, -e);
		}
		*br = d.best;
		*bx = cx + (d.bi + vi) * st;
		*by = cy + (d.bj + vj) * st;
	}
}

/* The wide offset grid (every 0.05 pitch out to MAX_OFFSET), coarse to
 * fine: every point read on the sub-patch (a quarter of the samples, so
 * a quarter of the mean image's cells averaged), the WIDE_KEEP best of
 * them read on the whole patch, in the grid's order. The whole grid's
 * pick whenever it is among them (bench_detect_domes' fingerprints: the
 * same on every image measured). */
#define WIDE_KEEP 8
#define WIDE_R 6 /* MAX_OFFSET / 0.05 */
static void wide_screened(ctx *c, meanimg *m, int nc, const double xtx[NPAR][NPAR], double lim, double *br, double *bx,
			  double *by, double *kx, double *ky, int *nk)
{
	enum { W = 2 * WIDE_R + 1 };
	double st = 0.05 * c->pitch, rs[W * W], sxtx[NPAR][NPAR];
	patch whole = c->p;
	c->p = c->sub;
	normal_xtx(c, nc, sxtx);
	for (int j = -WIDE_R; j <= WIDE_R; j++)
		for (int i = -WIDE_R; i <= WIDE_R; i++) {
			double x = i * st, y = j * st;
			rs[(j + WIDE_R) * W + i + WIDE_R] = fabs(x) > lim + 1e-9 || fabs(y) > lim + 1e-9
								    ? INFINITY
								    : offset_rss(c, m, nc, sxtx, x, y);
		}
	c->sub = c->p;
	c->p = whole;
	unsigned char keep[W * W] = {0};
	for (int k = 0; k < WIDE_KEEP; k++) {
		int bk = -1;
		for (int q = 0; q < W * W; q++)
			if (!keep[q] && isfinite(rs[q]) && (bk < 0 || rs[q] < rs[bk]))
				bk = q;
		if (bk >= 0)
			keep[bk] = 1;
	}
	*nk = 0;
	for (int q = 0; q < W * W; q++) {
		if (!keep[q])
			continue;
		double x = (q % W - WIDE_R) * st, y = (q / W - WIDE_R) * st;
		kx[*nk] = x;
		ky[(*nk)++] = y;
		double r = offset_rss(c, m, nc, xtx, x, y);
		if (r < *br) {
			*br = r;
			*bx = x;
			*by = y;
		}
	}
}

/* The offset by fs_dome_fit_offset_pick over the minima found downhill
 * from each of the wide search's kept points (FS_DOME_FIT_OFFSET_BASINS).
 * Why both parts (h48a): the wide grid picks the basin whose grid point
 * reads lowest, not the one whose minimum does, and on small printed domes
 * two basins 0.8 px apart hold minima within a few per cent that trade
 * places under a 1e-6 px move of the centres (corner 30@0, 1 - R^2 of the
 * 0.2-0.28 px and the 1.13 px minima: 0.00187 / 0.00236 at nudge 0,
 * 0.00204 / 0.00194 at +1e-6, 0.00804 / 0.00787 at -1e-6), on either side
 * of the offset's applied bar (detect_offset.c, 0.32 px there). *br, *bx,
 * *by: replaced by the pick. */
static void basins_pick(ctx *c, meanimg *m, int nc, const double xtx[NPAR][NPAR], double lim, const double *kx,
			const double *ky, int nk, double *br, double *bx, double *by)
{
	double rb[WIDE_KEEP], xb[WIDE_KEEP], yb[WIDE_KEEP];
	for (int k = 0; k < nk; k++) {
		rb[k] = INFINITY;
		xb[k] = kx[k];
		yb[k] = ky[k];
		offset_descent(c, m, nc, xtx, kx[k], ky[k], 0.0125 * c->pitch, 4, lim, &rb[k], &xb[k], &yb[k]);
	}
	int pick = fs_dome_fit_offset_pick(rb, xb, yb, (size_t)nk, FS_DOME_FIT_OFFSET_TIE);
	if (pick >= 0) {
		*br = rb[pick];
		*bx = xb[pick];
		*by = yb[pick];
	}
}

/* The centres' common offset from the dome centres: a side detector moves
 * the brightest part of a dome, and the detections with it (0.16 pitch at
 * fill 0.8 on the simulator). Searched for formation b, starting at
 * (*ox, *oy): over +-MAX_OFFSET pitch in steps of 0.05 pitch (wide), then
 * +-0.05 in steps of 0.0125; c->p is left observed at the best offset. */
static int fit_offset(ctx *c, meanimg *m, const cand *b, int wide, double *ox, double *oy)
{
	cand tmp = {.rss = INFINITY};
	if (try_geom(c, b->fill, b->hr, b->prof, b->foot, b, &tmp))
		return -1;
	use_blur(c, b->blur);
	int nc = b->elev >= 0 ? FS_SE_NCOMP : FS_SE_SHADOW;
	double coef[NPAR], bx = *ox, by = *oy, br = INFINITY, lim = MAX_OFFSET * c->pitch;
	/* the formation is held: X^T X is the same at every offset */
	double xtx[NPAR][NPAR], xtv[NPAR];
	normal_xtx(c, nc, xtx);
	double kx[WIDE_KEEP], ky[WIDE_KEEP];
	int nk = 0;
	for (int pass = wide ? 0 : 1; pass < 2; pass++) {
		if (!pass && c->coarse_to_fine) {
			wide_screened(c, m, nc, xtx, lim, &br, &bx, &by, kx, ky, &nk);
			continue;
		}
		if (pass && c->coarse_to_fine && nk > 0 && (offset_choice & FS_DOME_FIT_OFFSET_BASINS)) {
			basins_pick(c, m, nc, xtx, lim, kx, ky, nk, &br, &bx, &by);
			break;
		}
		if (pass && c->coarse_to_fine) {
			/* (not the wide grid: the residual has several
			 * minima over it, and downhill from its every other
			 * point found another one on two of the nine paper
			 * figures) */
			offset_descent(c, m, nc, xtx, bx, by, 0.0125 * c->pitch, 4, lim, &br, &bx, &by);
			break;
		}
		double st = (pass ? 0.0125 : 0.05) * c->pitch, cx = pass ? bx : 0, cy = pass ? by : 0;
		int r = pass ? 4 : (int)lround(MAX_OFFSET / 0.05);
		for (int j = -r; j <= r; j++)
			for (int i = -r; i <= r; i++) {
				double x = cx + i * st, y = cy + j * st;
				if (fabs(x) > lim + 1e-9 || fabs(y) > lim + 1e-9)
					continue;
				observe(m, x, y, &c->p);
				normal_xtv(c, nc, xtv);
				double rs = solve_normal(c, nc, xtx, xtv, coef);
				if (rs < br) {
					br = rs;
					bx = x;
					by = y;
				}
			}
	}
	*ox = bx;
	*oy = by;
	observe(m, bx, by, &c->p);
	return 0;
}

/* Whether a kept formation (keep_formation) and the offset found for it
 * read the detector in directions too far apart to keep it. The centres
 * sit off the dome centres towards the detector (the lit flank draws
 * them), so the offset points away from it: two reads of one direction,
 * the slope weights' and the offset's. Where the centres sit far off (the
 * refinement's 3-6 px pull onto the lit flank of low domes, h39g), a mean
 * patch read at offset 0 holds the dome displaced, and a displaced disc
 * differs from a centred one by a dipole along the displacement: the
 * slope weights fitted there take the sum of that and the detector's, and
 * their azimuth turns 30-50 degrees off (interior 5@12000: 168 for 135,
 * 5@16000: 106, 10@8000: -52 for 0; h40f) while the offset still points
 * away from the detector. Then the templates and the axis step read a
 * wrong formation. Opposite reads (the azimuth flipped, the offset
 * pointing away from it) are not refused: the axis step reads them
 * reversed (fs_centre_axis.reversed) and those scenes pass; nor an offset
 * below REFIT_MIN_OFFSET pitch, whose direction is the fine grid's; nor
 * under a halftone screen, whose low-pass (FS_HALFTONE_LOWPASS x the
 * period: 4-px domes under a 5-px screen) leaves neither direction
 * resolved: there the refit put the azimuth right and still moved the
 * pitch-16 corner scenes both ways (27@12000 S -0.5 -> -19.5 %, 31@8000
 * -2.4 -> -10.6 %, 28@20000 D +5.7 -> +1.1 %), as h38s's second look is
 * not made under a screen either (detect_offset.c); nor where the
 * secant-law yield takes a negative weight: domes darker on their slopes
 * than the flat ground are not the formation se_render.h draws, and its
 * slope weights read no detector (most paper figures' first fits: with
 * them refitted P1 Fig2's dome fill fell 0.267 -> 0.237, out of its
 * asserted band, and P3 Fig4 went from unmeasured to 0.623). */
#define REFIT_MIN_OFFSET 0.03
#define REFIT_OBLIQUE_DEG 20
#define REFIT_ROUNDS 3
/* A refit that turns the slope weights' azimuth by more than this is
 * undone: the refits that mend a dipole-turned azimuth turn it 30-40
 * degrees (interior 5@12000 36, 5@16000 33, 10@8000 39) and the paper
 * figures' 5-9; one that turns it round (P2 Pl1 Fig1a whole: 155
 * degrees, for a residual 1.5 % lower at a second minimum of the
 * offset's search) has hopped to another reading of the image rather
 * than mended this one, and its one-pixel crops, whose first fits read
 * the detector where the whole figure's did, do not take it (D/pitch
 * 0.510 whole against 0.374-0.418 cropped; docs/paper-figures.md, h40t). */
#define REFIT_MAX_TURN_DEG 90
static int oblique_reads(const ctx *c, const cand *b, double ox, double oy)
{
	if (c->screened || !(b->coef[FS_SE_YIELD] > 0) || !(hypot(ox, oy) >= REFIT_MIN_OFFSET * c->pitch))
		return 0;
	double az = atan2(b->coef[FS_SE_SLOPE_Y], b->coef[FS_SE_SLOPE_X]), away = atan2(oy, ox);
	return fabs(cos(az - away)) < cos(REFIT_OBLIQUE_DEG * M_PI / 180);
}

/* The formation (into *t) and the offset (*ox, *oy) fitted in turn, the
 * patch observed at the offset to start from: the formation there, the
 * offset searched downhill from it, again until the offset stays (at
 * most REFIT_ROUNDS rounds), and the formation at the last offset where
 * the last round moved it. fit_offset leaves the patch observed at the
 * offset it ends at. 0, or -1 out of memory. */
static int refit_in_turn(ctx *c, meanimg *m, double fill, cand *t, double *ox, double *oy)
{
	int moved = 1;
	for (int k = 0; k < REFIT_ROUNDS && moved; k++) {
		double px = *ox, py = *oy;
		if (best_at(c, fill, NULL, t) || fit_offset(c, m, t, 0, ox, oy))
			return -1;
		moved = *ox != px || *oy != py;
	}
	if (moved && best_at(c, fill, NULL, t))
		return -1;
	return 0;
}

/* The turn check (fs_dome_fit_opts.turn_check, h45m): the formation
 * fitted again from starting offsets TURN_STEP_PX and 2 TURN_STEP_PX
 * either way along the kept formation's detector axis (the formation at
 * the start, the offset searched downhill from there and the formation
 * again until the offset stays: refit_in_turn), and the one of
 * least residual among those with a positive yield weight that read the
 * detector's azimuth more than a quarter turn from the kept one's taken
 * where its residual sum is below the kept formation's at the kept
 * offset. Why: the kept formation is solved at the starting offset,
 * where on 4-px domes the rule's centres sit 0.5-0.9 px from the domes
 * (h45a) and the displaced dome's dipole is what the slope weights read,
 * with the opposite sign (corner 4, 6, 20, 22 at the rule's centres: 0
 * read as 180, 135 as -45, mostly with a negative yield weight, the side
 * weight -0.05..-0.43); the offset search that follows holds that
 * formation, so it never visits the other reading, and oblique_reads
 * lets an opposite read through.
 * The turn must have a positive yield weight: a negative one draws no
 * detector (oblique_reads), and allowed it turned corner 16@+0 from 137
 * to -41. Not under a screen (its low-pass leaves neither direction
 * resolved: oblique_reads). *ox, *oy and *best are replaced only where
 * the turn is taken; c->p is left observed at the offset kept. */
#define TURN_STEP_PX 0.5

/* What an unheld search (best_at) leaves in the context for the fit's
 * report: low_ratio's two sums and the profiles' (prof_rss, cap_tie). */
typedef struct search_sums {
	double low_rss, any_rss, prof_rss[NPROF];
	cand prof_best[NPROF];
} search_sums;

static void sums_save(const ctx *c, search_sums *s)
{
	s->low_rss = c->low_rss;
	s->any_rss = c->any_rss;
	memcpy(s->prof_rss, c->prof_rss, sizeof s->prof_rss);
	memcpy(s->prof_best, c->prof_best, sizeof s->prof_best);
}

static void sums_restore(ctx *c, const search_sums *s)
{
	c->low_rss = s->low_rss;
	c->any_rss = s->any_rss;
	memcpy(c->prof_rss, s->prof_rss, sizeof s->prof_rss);
	memcpy(c->prof_best, s->prof_best, sizeof s->prof_best);
}

static int turned_reads(ctx *c, meanimg *m, double fill, cand *best, double *ox, double *oy)
{
	if (c->screened)
		return 0;
	cand kept_here, pick = {.rss = INFINITY};
	/* the trials' searches must not report for the formation kept: the
	 * last trial's low_ratio (the tall-dome gate of the level's
	 * extrapolation, detect_base_fit.c) had replaced the kept one's, and
	 * with nothing turned the last step read fill-0.8 corner 23 at
	 * +16000 with low_ratio 1.49 for 1.04, D -0.1 -> -2.3 % (h46a) */
	search_sums kept_sums, pick_sums;
	sums_save(c, &kept_sums);
	pick_sums = kept_sums;
	/* (fit_offset left the patch observed at *ox, *oy) */
	if (best_at(c, fill, best, &kept_here))
		return -1;
	double a0 = atan2(best->coef[FS_SE_SLOPE_Y], best->coef[FS_SE_SLOPE_X]), px0 = 0, py0 = 0;
	static const double STEPS[4] = {-2, -1, 1, 2};
	for (int s = 0; s < 4; s++) {
		double tx = *ox + STEPS[s] * TURN_STEP_PX * cos(a0), ty = *oy + STEPS[s] * TURN_STEP_PX * sin(a0);
		cand t;
		observe(m, tx, ty, &c->p);
		if (refit_in_turn(c, m, fill, &t, &tx, &ty))
			return -1;
		double a1 = atan2(t.coef[FS_SE_SLOPE_Y], t.coef[FS_SE_SLOPE_X]);
		if (cos(a1 - a0) < 0 && t.coef[FS_SE_YIELD] > 0 && t.rss < pick.rss) {
			pick = t;
			px0 = tx;
			py0 = ty;
			sums_save(c, &pick_sums);
		}
	}
	if (pick.rss < kept_here.rss) {
		*best = pick;
		*ox = px0;
		*oy = py0;
		sums_restore(c, &pick_sums);
	} else {
		sums_restore(c, &kept_sums);
	}
	observe(m, *ox, *oy, &c->p);
	return 0;
}

/* The best formation and offset at one fill: the formation at the
 * starting offset, the offset for it, the formation again. (Taking the
 * first formation's residual at the new offset, to save the second
 * search, read 0.67 for a true 0.80: the formation fitted at the wrong
 * offset is the wrong one.) A kept formation (keep_formation) is fitted
 * again where it reads the detector oblique to its offset
 * (oblique_reads): the formation at the offset, the offset searched again
 * downhill from there, until the offset stays (at most REFIT_ROUNDS
 * rounds), and the formation at the last offset. */
static int best_with_offset(ctx *c, meanimg *m, double fill, int wide, double ox, double oy, cand *best)
{
	observe(m, ox, oy, &c->p);
	if (best_at(c, fill, NULL, best) || fit_offset(c, m, best, wide, &ox, &oy) ||
	    (!c->keep_formation && best_at(c, fill, NULL, best)))
		return -1;
	if (c->keep_formation && oblique_reads(c, best, ox, oy)) {
		cand first = *best;
		double fx = ox, fy = oy;
		/* the refit's searches leave their own sums in the context: the
		 * first formation, where it is kept, reports those of the
		 * search that chose it (low_ratio gates the level's tall
		 * extrapolation: turned_reads, h46a) */
		search_sums first_sums;
		sums_save(c, &first_sums);
		/* (fit_offset left the patch observed at its offset) */
		if (refit_in_turn(c, m, fill, best, &ox, &oy))
			return -1;
		double a0 = atan2(first.coef[FS_SE_SLOPE_Y], first.coef[FS_SE_SLOPE_X]);
		double a1 = atan2(best->coef[FS_SE_SLOPE_Y], best->coef[FS_SE_SLOPE_X]);
		if (cos(a1 - a0) < cos(REFIT_MAX_TURN_DEG * M_PI / 180)) {
			*best = first;
			ox = fx;
			oy = fy;
			observe(m, ox, oy, &c->p);
			sums_restore(c, &first_sums);
		}
	}
	if (c->keep_formation && c->turn_check && turned_reads(c, m, fill, best, &ox, &oy))
		return -1;
	best->ox = ox;
	best->oy = oy;
	return 0;
}

/* The minimum of the residual over the fills by a parabola through the
 * best sample and its neighbours. */
static double refine(const double *fills, const double *rss, int nf)
{
	int b = 0;
	for (int k = 1; k < nf; k++)
		if (rss[k] < rss[b])
			b = k;
	if (b == 0 || b == nf - 1)
		return fills[b];
	double d = rss[b - 1] - 2 * rss[b] + rss[b + 1];
	if (!isfinite(d) || !(d > 0))
		return fills[b];
	double t = 0.5 * (rss[b - 1] - rss[b + 1]) / d;
	return fills[b] + t * (fills[b + 1] - fills[b]);
}

/* Fits the fill within [lo, hi]: a coarse scan (step 0.04, each fill with
 * its own offset from the wide search) and a fine one (0.01, +-0.04
 * around the best, offsets searched near the best coarse one), or with
 * hold only the fine scan +-0.1 around hold->fill at hold's offset; a
 * single fill (lo == hi) also from start's offset when given.
 * *best the best formation, *fill the refined fill. */
static int fit_fill(ctx *c, meanimg *m, double lo, double hi, const cand *hold, const double *start, cand *best,
		    double *fill)
{
	double fills[64], rss[64];
	int nf = 0;
	cand bk;
	/* the kept formation's search sums (low_ratio, prof_rss): each
	 * fill's search leaves its own, and the fit reports the kept one's */
	search_sums best_sums, bk_sums;
	sums_save(c, &best_sums);
	bk_sums = best_sums;
	best->rss = INFINITY;
	double centre = hold ? hold->fill : 0.5 * (lo + hi), ox = hold ? hold->ox : 0, oy = hold ? hold->oy : 0;
	if (!hold && hi - lo > 1e-9) {
		for (double f = lo; f <= hi + 1e-9; f += 0.04) {
			if (best_with_offset(c, m, f, 1, 0, 0, &bk))
				return -1;
			if (bk.rss < best->rss)
				*best = bk;
		}
		centre = best->fill;
		ox = best->ox;
		oy = best->oy;
		best->rss = INFINITY;
	}
	double a = fmax(lo, centre - (hold ? 0.1 : 0.04)), b = fmin(hi, centre + (hold ? 0.1 : 0.04));
	for (double f = a; f <= b + 1e-9 && nf < 64; f += 0.01) {
		fills[nf] = f;
		if (hold) {
			bk.rss = INFINITY;
			if (try_geom(c, f, hold->hr, hold->prof, hold->foot, hold, &bk))
				return -1;
			bk.ox = ox;
			bk.oy = oy;
		} else if (best_with_offset(c, m, f, hi - lo < 1e-9, ox, oy, &bk)) {
			return -1;
		} else {
			sums_save(c, &bk_sums);
			cand bs;
			if (hi - lo < 1e-9 && start) {
				if (best_with_offset(c, m, f, 0, start[0], start[1], &bs))
					return -1;
				if (bs.rss < bk.rss) {
					bk = bs;
					sums_save(c, &bk_sums);
				}
			}
		}
		rss[nf++] = bk.rss;
		if (bk.rss < best->rss) {
			*best = bk;
			if (!hold)
				best_sums = bk_sums;
		}
	}
	sums_restore(c, &best_sums);
	*fill = refine(fills, rss, nf);
	return 0;
}

/* The held fill's walk (fs_dome_fit_opts.fill_walk): from the held fit
 * *best at f0, the fill moved by step at a time in either direction while
 * the residual falls, each fill's formation fitted at the last fill's
 * offset and its own offset searched downhill from there (fit_offset's
 * fine grid, +-0.05 pitch). Why both together (h38v, interior scene
 * 10@8000, corner 40@20000): where the level reads the fill 11-19 % low
 * and the centres sit 0.04 pitch off along the detector's axis, the held
 * fill's formation explains the asymmetry with a tall shadowed dome; at
 * that offset the true fill fits worse (0.158 against 0.107), so a fill
 * searched with the offset held stays, while with the offset searched for
 * each fill the true fill fits far better (R^2 0.994 against 0.976). A
 * walk follows that valley from the held point; a scan of the fills each
 * with its own wide offset search (fit_fill's coarse pass) would cost the
 * free fit's 20 times the held one. *best and *fill get the walk's end. */
static int walk_fill(ctx *c, meanimg *m, double f0, double step, double rel, double gain, cand *best, double *fill)
{
	cand held = *best;
	/* (fit_fill left the held formation's search sums in the context;
	 * the steps' searches leave theirs, and the fit reports the kept
	 * formation's: the last step looked at is one not taken) */
	search_sums held_sums, best_sums, prev_sums;
	sums_save(c, &held_sums);
	best_sums = held_sums;
	for (int dir = -1; dir <= 1; dir += 2) {
		cand prev = held;
		prev_sums = held_sums;
		for (int k = 1;; k++) {
			double f = f0 + dir * k * step;
			if (f < 0.16 - 1e-9 || f > 0.88 + 1e-9 || fabs(f / f0 - 1) > rel + 1e-9)
				break;
			cand bk;
			if (best_with_offset(c, m, f, 0, prev.ox, prev.oy, &bk))
				return -1;
			if (!(bk.rss < prev.rss))
				break;
			prev = bk;
			sums_save(c, &prev_sums);
		}
		if (prev.rss < best->rss) {
			*best = prev;
			best_sums = prev_sums;
		}
	}
	if (gain > 0 && !(best->rss <= gain * held.rss)) {
		*best = held;
		best_sums = held_sums;
	}
	sums_restore(c, &best_sums);
	*fill = best->fill;
	return 0;
}

/* The residual sum of one formation at a blur of sigma grid samples (any
 * value up to the grid's widest, BLUR's last), at the patch as observed:
 * try_geom's solve at a blur off the grid, the shadow (elevation index
 * elev, -1 none) cast towards the unshadowed fit's azimuth. The blurred
 * components go to the slots of blur 0 (bl[0]), which the grid's fits
 * render again before they read them. */
static double rss_at_sigma(ctx *c, double fill, double hr, double prof, double foot, double sigma, int elev,
			   double *coef)
{
	fs_se_geom g = {fill, hr, prof, c->angle, foot};
	if (!(fill > 0.05) || fill >= 0.95 || !(hr > 0.05) || render_geom(c, &g))
		return INFINITY;
	for (int k = 0; k < FS_SE_SHADOW; k++)
		blur_comp(c, k, -1, sigma, c->bl[0][k]);
	use_blur(c, 0);
	double xtx[NPAR][NPAR], xtv[NPAR];
	normal_xtx(c, FS_SE_SHADOW, xtx);
	normal_xtv(c, FS_SE_SHADOW, xtv);
	double rss = solve_normal(c, FS_SE_SHADOW, xtx, xtv, coef);
	/* (the constant last, as a cand's) */
	coef[NPAR - 1] = coef[FS_SE_SHADOW];
	coef[FS_SE_SHADOW] = 0;
	if (elev < 0)
		return rss;
	shadow_geom(c, atan2(coef[FS_SE_SLOPE_Y], coef[FS_SE_SLOPE_X]), ELEV_DEG[elev] * M_PI / 180);
	blur_comp(c, FS_SE_SHADOW, -1, sigma, c->bl[0][FS_SE_SHADOW]);
	double sx[NPAR][NPAR], sv[NPAR], cs[NPAR];
	normal_add(c, FS_SE_SHADOW, xtx, xtv, sx, sv);
	double r2 = solve_normal(c, FS_SE_NCOMP, sx, sv, cs);
	/* a shadow brighter than the lit surface is no shadow, as the grid */
	if (cs[FS_SE_SHADOW] < 0 && r2 < rss) {
		memcpy(coef, cs, sizeof cs);
		return r2;
	}
	return rss;
}

/* The smooth foot's continuous refinement (fs_dome_fit_opts.foot_search):
 * from the grid's best formation at its offset, fill, h/R, foot and blur
 * moved one at a time (steps halved when none helps) while the residual
 * falls. Why (h43c, docs/paper-figures.md): on a smooth foot the support
 * the fit reads trades with the foot, the blur and the height, and the
 * grid's steps (blur 0.6-1.2 px at pitch 24-48, h/R 0.2 / 0.4 / 0.7 / 1,
 * feet half a power apart) leave the fill 10-20 % off where the truth
 * lies between them. *sigma gets the blur (grid samples). */
static void refine_foot(ctx *c, meanimg *m, cand *best, int sharp, double *fill, double *sigma)
{
	observe(m, best->ox, best->oy, &c->p);
	double x[4] = {*fill, best->hr, best->foot > 1 ? best->foot : 1, BLUR[best->blur] * c->p.g};
	/* sharp: the foot held at 1 (the sharp formation's own best, so that
	 * the two feet are compared each at its refined point) */
	int nk = sharp ? 2 : 3;
	double lo[4] = {0.1, 0.1, 1, 0.2}, hi[4] = {0.9, 1.5, 6, BLUR[NBLUR - 1] * c->p.g};
	double step[4] = {0.02, 0.1, 0.25, 0.15 * x[3]}, coef[NPAR];
	double br = rss_at_sigma(c, x[0], x[1], best->prof, x[2], x[3], best->elev, coef);
	if (!isfinite(br))
		return;
	for (int round = 0; round < 7; round++) {
		int moved = 1;
		for (int pass = 0; pass < 8 && moved; pass++) {
			moved = 0;
			for (int k = 0; k < 4; k++)
				for (int dir = -1; dir <= 1 && (k != 2 || nk == 3); dir += 2) {
					double y[4] = {x[0], x[1], x[2], x[3]};
					y[k] = fmin(hi[k], fmax(lo[k], x[k] + dir * step[k]));
					if (y[k] == x[k])
						continue;
					double r = rss_at_sigma(c, y[0], y[1], best->prof, y[2], y[3], best->elev, coef);
					if (r < br) {
						br = r;
						memcpy(x, y, sizeof x);
						moved = 1;
						break;
					}
				}
		}
		for (int k = 0; k < 4; k++)
			step[k] *= 0.5;
	}
	rss_at_sigma(c, x[0], x[1], best->prof, x[2], x[3], best->elev, best->coef);
	best->rss = br;
	best->fill = *fill = x[0];
	best->hr = x[1];
	best->foot = x[2];
	*sigma = x[3];
}

/* Direction of one lattice vector from the centres' neighbour directions
 * (six-fold circular mean). */
static double lattice_angle(const double *xs, const double *ys, size_t n, double pitch, const fs_near_index *ix,
			    size_t *near)
{
	double cs = 0, sn = 0;
	size_t step = n > 400 ? n / 400 : 1;
	for (size_t i = 0; i < n; i += step) {
		/* the neighbours in ascending order, as a loop over all j
		 * adds them */
		size_t m = fs_near_within_box(ix, i, 1.3 * pitch, near);
		for (size_t q = 0; q < m; q++) {
			size_t j = near[q];
			double dx = xs[j] - xs[i], dy = ys[j] - ys[i], d = hypot(dx, dy);
			if (d < 0.7 * pitch || d > 1.3 * pitch)
				continue;
			double t = 6 * atan2(dy, dx);
			cs += cos(t);
			sn += sin(t);
		}
	}
	double a = atan2(sn, cs) / 6;
	return a < 0 ? a + M_PI / 3 : a;
}

static void radial(const patch *p, const double *v, double *out)
{
	double s[FS_DOME_FIT_NRAD] = {0}, w[FS_DOME_FIT_NRAD] = {0};
	for (int y = -p->half; y <= p->half; y++)
		for (int x = -p->half; x <= p->half; x++) {
			size_t o = (size_t)(y + p->half) * p->w + (x + p->half);
			int k = (int)(hypot(x, y) / (0.05 * p->g));
			if (!p->mask[o] || k >= FS_DOME_FIT_NRAD)
				continue;
			s[k] += v[o];
			w[k] += 1;
		}
	for (int k = 0; k < FS_DOME_FIT_NRAD; k++)
		out[k] = w[k] > 0 ? s[k] / w[k] : 0;
}

int fs_dome_fit_image(const fs_image *img, const double *xs, const double *ys, size_t n, double pitch,
		      const fs_dome_fit_opts *o, fs_dome_fit *out, char *err, size_t errlen)
{
	fs_dome_fit_opts dflt;
	if (!o) {
		fs_dome_fit_opts_default(&dflt);
		o = &dflt;
	}
	memset(out, 0, sizeof *out);
	if (!(pitch >= 6) || !(o->fill_min > 0) || o->fill_max < o->fill_min || o->fill_max >= 0.95) {
		snprintf(err, errlen, "dome fit: pitch %.3g px or fill range %.3g..%.3g out of range", pitch,
			 o->fill_min, o->fill_max);
		return -1;
	}
	int rc = -1;
	fs_image *lp = NULL;
	meanimg mi = {0}, mh[2] = {{0}, {0}};
	ctx c = {0};
	double *xsort = NULL, *mv = NULL;
	double period = 0;
	if (o->halftone_given)
		period = o->halftone_period;
	else if (fs_halftone_detect(img, &period, NULL))
		goto oom;
	if (period > 0) {
		lp = fs_gaussian_blurred(img, FS_HALFTONE_LOWPASS * period, err, errlen);
		if (!lp)
			goto done;
	}
	const fs_image *src = lp ? lp : img;
	patch *p = &c.p;
	p->g = (int)lround(pitch);
	p->g = p->g > G_MAX ? G_MAX : p->g < G_MIN ? G_MIN : p->g;
	int G = p->g;
	p->half = (int)ceil(FIT_R * G);
	p->w = 2 * p->half + 1;
	size_t cw = (size_t)p->w;
	p->v = calloc(cw * cw, sizeof *p->v);
	p->mask = malloc(cw * cw);
	p->idx = malloc(cw * cw * sizeof *p->idx);
	p->ir = malloc(cw * cw * sizeof *p->ir);
	p->iq = malloc(cw * cw * sizeof *p->iq);
	p->x0 = malloc(cw * sizeof *p->x0);
	p->y0 = malloc(cw * sizeof *p->y0);
	p->fx = malloc(cw * sizeof *p->fx);
	p->fy = malloc(cw * sizeof *p->fy);
	mv = malloc(cw * cw * sizeof *mv);
	if (!p->v || !p->mask || !p->idx || !p->ir || !p->iq || !p->x0 || !p->y0 || !p->fx || !p->fy || !mv)
		goto oom;
	for (int y = -p->half; y <= p->half; y++)
		for (int x = -p->half; x <= p->half; x++) {
			size_t o = (size_t)(y + p->half) * p->w + (x + p->half);
			int in = hypot(x, y) <= FIT_R * G;
			p->mask[o] = (unsigned char)in;
			if (in) {
				p->idx[p->npx] = o;
				p->ir[p->npx] = y + p->half;
				p->iq[p->npx++] = x + p->half;
			}
		}
	if (o->coarse_to_fine) {
		patch *q = &c.sub;
		*q = *p;
		q->npx = 0;
		q->idx = malloc(p->npx * sizeof *q->idx);
		q->ir = malloc(p->npx * sizeof *q->ir);
		q->iq = malloc(p->npx * sizeof *q->iq);
		if (!q->idx || !q->ir || !q->iq)
			goto oom;
		for (size_t t = 0; t < p->npx; t++)
			if ((p->ir[t] - p->half) % 2 == 0 && (p->iq[t] - p->half) % 2 == 0) {
				q->idx[q->npx] = p->idx[t];
				q->ir[q->npx] = p->ir[t];
				q->iq[q->npx++] = p->iq[t];
			}
	}
	if (mean_image(src, xs, ys, o->patch_ox, o->patch_oy, n, pitch, G, -1, 0, o->max_centres, &mi))
		goto oom;
	out->n_used = mi.used;
	if (mi.used < 8) {
		snprintf(err, errlen, "dome fit: %zu centres with a whole neighbourhood (8 needed)", mi.used);
		goto done;
	}
	c.pitch = pitch;
	c.keep_formation = o->keep_formation;
	c.turn_check = o->turn_check;
	c.cap_tie = o->cap_tie;
	c.foot_search = o->foot_search;
	c.sharp_rss = INFINITY;
	c.screened = period > 0;
	c.coarse_to_fine = o->coarse_to_fine;
	{
		fs_near_index ix;
		size_t *near = malloc((n + 1) * sizeof *near);
		if (!near || fs_near_index_build(&ix, xs, ys, n)) {
			free(near);
			goto oom;
		}
		c.angle = lattice_angle(xs, ys, n, pitch, &ix, near);
		free(near);
		fs_near_index_free(&ix);
	}
	c.bm = (int)ceil(3 * BLUR[NBLUR - 1] * G);
	/* the highest dome (h/R 1 at fill 0.88) seen at the lowest elevation */
	c.reach = (int)ceil(0.5 * 0.88 * G * HR[NHR - 1] / tan(ELEV_DEG[0] * M_PI / 180)) + 1;
	c.tmp = malloc((size_t)(2 * (p->half + c.bm) + 1) * cw * sizeof *c.tmp);
	if (!c.tmp)
		goto oom;
	for (int b = 0; b < NBLUR; b++)
		for (int k = 0; k < FS_SE_NCOMP; k++)
			if (!(c.bl[b][k] = calloc(cw * cw, sizeof *c.bl[b][k])))
				goto oom;
	if (o->fine_render > 1) {
		c.fk = o->fine_render;
		c.fine_px = G * c.fk / pitch;
		/* the simulator's clip, 1.5 per image px (h40b, h43b) */
		c.fine_edge_cap = FINE_EDGE_CAP_PX / c.fine_px;
		c.shf = p->half * c.fk + (int)ceil(3 * BLUR[NBLUR - 1] * G * c.fk + 1.5 * c.fine_px) + 1;
		c.reachf = c.reach * c.fk;
		c.ftmp = malloc((size_t)(2 * c.shf + 1) * cw * sizeof *c.ftmp);
		if (!c.ftmp)
			goto oom;
		for (int b = 0; b < NBLUR; b++) {
			if (!(c.fkern[b] = malloc((2 * FINE_KR_MAX + 1) * sizeof *c.fkern[b])))
				goto oom;
			c.fkr[b] = fine_kernel(&c, BLUR[b] * G * c.fk, c.fkern[b]);
		}
	}
	cand best;
	double fill;
	double start[2] = {o->start_x, o->start_y};
	if (fit_fill(&c, &mi, o->fill_min, o->fill_max, NULL, o->use_start ? start : NULL, &best, &fill))
		goto oom;
	if (o->fill_walk > 0 && !(o->fill_max > o->fill_min) &&
	    walk_fill(&c, &mi, fill, o->fill_walk, o->fill_walk_max, o->fill_walk_gain, &best, &fill))
		goto oom;
	double sigma_fine = 0;
	if (o->foot_search && o->foot_refine) {
		/* both feet refined at the best point's offset; the better kept,
		 * and sharp_ratio made of the two refined sums */
		cand sh = c.sharp_best;
		double fs = sh.fill, sgs = 0;
		sh.ox = best.ox;
		sh.oy = best.oy;
		refine_foot(&c, &mi, &best, 0, &fill, &sigma_fine);
		if (isfinite(c.sharp_rss)) {
			refine_foot(&c, &mi, &sh, 1, &fs, &sgs);
			c.sharp_rss = sh.rss;
			if (sh.rss <= best.rss) {
				best = sh;
				fill = fs;
				sigma_fine = sgs;
			}
		}
	}
	out->fill = fill;
	out->quality = 1 - best.rss / p->npx;
	out->residual = sqrt(fmax(0, best.rss / p->npx));
	out->h_over_r = best.hr;
	out->low_ratio = c.any_rss > 0 && isfinite(c.low_rss) ? sqrt(c.low_rss / c.any_rss) : 1;
	for (int q = 0; q < NPROF; q++)
		out->prof_rss[q] = c.prof_rss[q];
	out->profile = best.prof;
	out->foot = best.foot > 1 ? best.foot : 1;
	out->sharp_ratio = o->foot_search && best.rss > 0 && isfinite(c.sharp_rss) ? sqrt(c.sharp_rss / best.rss) : 1;
	out->blur_px = sigma_fine > 0 ? sigma_fine * pitch / G : BLUR[best.blur] * pitch;
	out->azimuth = atan2(best.coef[FS_SE_SLOPE_Y], best.coef[FS_SE_SLOPE_X]);
	out->elevation = best.elev >= 0 ? ELEV_DEG[best.elev] * M_PI / 180 : 0;
	out->side = fabs(best.coef[FS_SE_YIELD]) > 1e-12
			    ? hypot(best.coef[FS_SE_SLOPE_X], best.coef[FS_SE_SLOPE_Y]) / best.coef[FS_SE_YIELD]
			    : 0;
	if (fabs(best.coef[FS_SE_YIELD]) > 1e-12) {
		out->edge = best.coef[FS_SE_EDGE] / best.coef[FS_SE_YIELD];
		out->shadow = best.elev >= 0 ? -best.coef[FS_SE_SHADOW] / best.coef[FS_SE_YIELD] : 0;
	}
	out->grid_px = pitch / G;
	out->pitch = pitch;
	out->angle = c.angle;
	out->offset_x = best.ox;
	out->offset_y = best.oy;
	out->halftone = period;
	/* the radial profiles of the observed patch and of the best model */
	if (!o->no_profiles) {
		observe(&mi, best.ox, best.oy, p);
		cand tmp = {.rss = INFINITY};
		if (try_geom(&c, best.fill, best.hr, best.prof, best.foot, &best, &tmp))
			goto oom;
		use_blur(&c, best.blur);
		for (size_t q = 0; q < cw * cw; q++) {
			double m = best.coef[NPAR - 1];
			for (int k = 0; k < FS_SE_NCOMP; k++)
				m += best.coef[k] * c.use[k][q];
			mv[q] = m;
		}
		radial(p, p->v, out->obs);
		radial(p, mv, out->model);
	}
	/* (a mosaic's halves are not the image's: patch_ox) */
	if (!o->no_sigma && !o->patch_ox && o->fill_max > o->fill_min) {
		xsort = malloc((n + 1) * sizeof *xsort);
		if (!xsort)
			goto oom;
		memcpy(xsort, xs, n * sizeof *xsort);
		double split = fs_median_upper(xsort, n), fh[2];
		for (int side = 0; side < 2; side++) {
			fh[side] = fill;
			if (mean_image(src, xs, ys, NULL, NULL, n, pitch, G, side, split, 0, &mh[side]))
				goto oom;
			if (mh[side].used < 4)
				continue;
			observe(&mh[side], best.ox, best.oy, p);
			cand bh, hold = best;
			hold.fill = fill;
			if (fit_fill(&c, &mh[side], o->fill_min, o->fill_max, &hold, NULL, &bh, &fh[side]))
				goto oom;
		}
		out->fill_a = fh[0];
		out->fill_b = fh[1];
		out->sigma = 0.5 * fabs(fh[0] - fh[1]);
	}
	rc = 0;
	goto done;
oom:
	snprintf(err, errlen, "dome fit: out of memory");
done:
	free(xsort);
	free(mv);
	meanimg_free(&mi);
	meanimg_free(&mh[0]);
	meanimg_free(&mh[1]);
	free(c.p.v);
	free(c.p.mask);
	free(c.p.idx);
	free(c.p.ir);
	free(c.p.iq);
	free(c.p.x0);
	free(c.p.y0);
	free(c.p.fx);
	free(c.p.fy);
	free(c.sub.idx);
	free(c.sub.ir);
	free(c.sub.iq);
	free(c.tmp);
	for (int b = 0; b < NBLUR; b++)
		for (int k = 0; k < FS_SE_NCOMP; k++)
			free(c.bl[b][k]);
	fs_se_field_free(&c.f);
	fs_se_plan_free(&c.plan);
	fs_se_field_free(&c.ff);
	free(c.ftmp);
	for (int b = 0; b < NBLUR; b++)
		free(c.fkern[b]);
	fs_image_free(lp);
	return rc;
}
