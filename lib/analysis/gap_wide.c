/*
 * gap_wide.c - see gap_wide.h.
 */
#include "analysis/gap_wide.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/box_tent_kernel.h"
#include "analysis/dome_fit.h"
#include "analysis/halftone.h"
#include "analysis/lsq6.h"
#include "analysis/gap_read.h"
#include "analysis/parabola_vertex.h"
#include "analysis/preprocess.h"
#include "base/sorting.h"

/* the samples' step along a line (px) */
#define GW_STEP 0.25
#define GW_MAXS 512
/* the lines across the valley: offsets (px) from the centres' line */
static const double gw_off[5] = {-1.0, -0.5, 0.0, 0.5, 1.0};
#define GW_LINES 5
/* the blur's search range (px) and the rounds of each coordinate search */
#define GW_S_LO 0.3
#define GW_S_HI 4.0
#define GW_ROUNDS 8

/* the wall's window share (gap_wide.h); a bench may set another */
static double gw_wall = FS_GAP_WIDE_WALL;

double fs_gap_wide_set_wall(double share)
{
	double was = gw_wall;
	if (share > 0 && share < 0.5)
		gw_wall = share;
	return was;
}

typedef struct gw_line {
	double t0; /* the first sample's distance from A along the line */
	int n;
	double v[GW_MAXS];
} gw_line;

/* Samples [t0, t1] of the line from A along (ux, uy) moved by off across
 * it; -1 where one leaves the image (a clamped reading would invent a
 * floor) or the window is too long. */
static int gw_sample(const fs_image *img, double ax, double ay, double ux, double uy, double off, double t0,
		     double t1, gw_line *L)
{
	int n = (int)floor((t1 - t0) / GW_STEP) + 1;
	if (n < 16 || n > GW_MAXS)
		return -1;
	double ox = ax - uy * off, oy = ay + ux * off, xmax = img->width - 1, ymax = img->height - 1;
	for (int i = 0; i < n; i++) {
		double t = t0 + i * GW_STEP, x = ox + ux * t, y = oy + uy * t;
		if (!(x >= 0 && y >= 0 && x <= xmax && y <= ymax))
			return -1;
		L->v[i] = fs_image_sample_clamped(img, x, y);
	}
	L->t0 = t0;
	L->n = n;
	return 0;
}

/* A linear piece c0 + c1 (t' - ref) on [a, b] blurred by a Gaussian of
 * sigma s, at t: its two basis values (the level's and the slope's). An
 * infinite end stands for the line's end (Phi 0 or 1, phi 0). */
static void piece(double t, double a, double b, double ref, double s, double *f0, double *f1)
{
	double za = isfinite(a) ? (a - t) / s : -INFINITY, zb = isfinite(b) ? (b - t) / s : INFINITY;
	double Pa = isfinite(za) ? fs_box_tent_Phi(za) : 0, Pb = isfinite(zb) ? fs_box_tent_Phi(zb) : 1;
	double pa = isfinite(za) ? fs_box_tent_phi(za) : 0, pb = isfinite(zb) ? fs_box_tent_phi(zb) : 0;
	*f0 = Pb - Pa;
	*f1 = (t - ref) * (Pb - Pa) - s * (pb - pa);
}

/* The residual sum of squares of the six-term model (wall, floor, wall)
 * with feet e1 < e2 and blur s over the line; HUGE_VAL when singular. */
static double gw_rss_coef(const gw_line *L, double e1, double e2, double s, double *coef)
{
	double A[6][7];
	memset(A, 0, sizeof A);
	double m = 0.5 * (e1 + e2), yy = 0;
	for (int i = 0; i < L->n; i++) {
		double t = L->t0 + i * GW_STEP, y = L->v[i], f[6];
		piece(t, -INFINITY, e1, e1, s, &f[0], &f[1]);
		piece(t, e1, e2, m, s, &f[2], &f[3]);
		piece(t, e2, INFINITY, e2, s, &f[4], &f[5]);
		for (int a = 0; a < 6; a++) {
			for (int b = a; b < 6; b++)
				A[a][b] += f[a] * f[b];
			A[a][6] += f[a] * y;
		}
		yy += y * y;
	}
	return fs_lsq6_rss(A, yy, coef);
}

static double gw_rss(const gw_line *L, double e1, double e2, double s)
{
	return gw_rss_coef(L, e1, e2, s, NULL);
}

/* p[which] searched on 9 points over [c - h, c + h] within [lo, hi], the
 * best moved to its parabola's vertex where that fits better. */
static void gw_search(const gw_line *L, double *p, int which, double h, double lo, double hi)
{
	double c = p[which], best = HUGE_VAL, bv = c, r[9];
	for (int k = 0; k < 9; k++) {
		double q[3] = {p[0], p[1], p[2]};
		q[which] = c + h * (k - 4) / 4.0;
		r[k] = q[which] < lo || q[which] > hi || !(q[1] > q[0] + 1) ? HUGE_VAL : gw_rss(L, q[0], q[1], q[2]);
		if (r[k] < best) {
			best = r[k];
			bv = q[which];
		}
	}
	int kb = (int)lround((bv - c) * 4 / h) + 4;
	if (kb > 0 && kb < 8 && r[kb - 1] < HUGE_VAL && r[kb + 1] < HUGE_VAL) {
		double q[3] = {p[0], p[1], p[2]};
		q[which] = bv + fs_parabola_vertex(-r[kb - 1], -r[kb], -r[kb + 1]) * h / 4;
		if (q[which] >= lo && q[which] <= hi && q[1] > q[0] + 1 && gw_rss(L, q[0], q[1], q[2]) < best)
			bv = q[which];
	}
	p[which] = bv;
}

int fs_gap_wide_feet(const fs_image *img, double ax, double ay, double bx, double by, double ra0, double rb0,
		     double *ra, double *rb, double *sig)
{
	fs_gap_wide_valley v;
	int rc = fs_gap_wide_read(img, ax, ay, bx, by, ra0, rb0, &v);
	*ra = v.ra;
	*rb = v.rb;
	if (sig)
		*sig = v.sig;
	return rc;
}

int fs_gap_wide_read(const fs_image *img, double ax, double ay, double bx, double by, double ra0, double rb0,
		     fs_gap_wide_valley *out)
{
	out->ra = out->rb = out->sig = NAN;
	for (int k = 0; k < 6; k++)
		out->coef[k] = NAN;
	out->wa = out->wb = out->rms = NAN;
	double dx = bx - ax, dy = by - ay, d = hypot(dx, dy);
	if (!img || !img->data || !(ra0 > 0) || !(rb0 > 0) || !(d - ra0 - rb0 >= FS_GAP_WIDE_MIN_GAP))
		return -1;
	double ux = dx / d, uy = dy / d;
	double wa = fmax(3.0, gw_wall * ra0), wb = fmax(3.0, gw_wall * rb0);
	double t0 = ra0 - wa, t1 = d - rb0 + wb;
	/* each foot kept a whole px inside its window's end and half a px
	 * off the valley's middle: a foot on its bound is not read */
	double m = 0.5 * (ra0 + d - rb0);
	double lo1 = t0 + 1, hi1 = m - 0.5, lo2 = m + 0.5, hi2 = t1 - 1;
	/* (two lines of at most GW_MAXS samples: 8 KB on the stack, so a
	 * valley not read is never an allocation's failure) */
	gw_line L[2];
	/* the lines summed (the fit is linear in the levels): one fit a
	 * valley. A line at offset o meets the circle at sqrt(R^2 - o^2)
	 * along it, so the lines' mean o^2 is added back to the foot's
	 * square */
	double o2 = 0;
	int ok = 1;
	for (int l = 0; l < GW_LINES && ok; l++) {
		double off = gw_off[l];
		o2 += off * off / GW_LINES;
		if (gw_sample(img, ax, ay, ux, uy, off, t0, t1, &L[1])) {
			ok = 0;
			break;
		}
		if (!l)
			L[0] = L[1];
		else
			for (int i = 0; i < L[0].n; i++)
				L[0].v[i] += L[1].v[i];
	}
	double p[3] = {ra0, d - rb0, 1.5}, h[3] = {0.25 * wa, 0.25 * wb, 1.0};
	for (int it = 0; ok && it < GW_ROUNDS; it++) {
		gw_search(&L[0], p, 2, h[2], GW_S_LO, GW_S_HI);
		gw_search(&L[0], p, 0, h[0], lo1, hi1);
		gw_search(&L[0], p, 1, h[1], lo2, hi2);
		for (int k = 0; k < 3; k++)
			h[k] *= 0.6;
	}
	if (ok) {
		/* (the lines' sum back to their mean: the residual's rms in the
		 * image's units) */
		double rss = gw_rss_coef(&L[0], p[0], p[1], p[2], out->coef);
		for (int k = 0; k < 6; k++)
			out->coef[k] /= GW_LINES;
		out->rms = sqrt(fmax(0, rss) / L[0].n) / GW_LINES;
	}
	if (!ok || p[0] <= lo1 + 1e-6 || p[0] >= hi1 - 1e-6 || p[1] <= lo2 + 1e-6 || p[1] >= hi2 - 1e-6 ||
	    p[2] <= GW_S_LO + 1e-6 || p[2] >= GW_S_HI - 1e-6)
		return -1;
	/* the chords' ends to the centres, then the blurred circle's inward
	 * shift taken back */
	double r1 = sqrt(p[0] * p[0] + o2), r2 = sqrt((d - p[1]) * (d - p[1]) + o2);
	out->ra = r1 + p[2] * p[2] / (2 * r1);
	out->rb = r2 + p[2] * p[2] / (2 * r2);
	out->sig = p[2];
	out->wa = wa;
	out->wb = wb;
	return 0;
}

/* fs_gap_wide_radii's pass; q (may be NULL) gets every read valley's
 * rms over its step contrast (the walls' mean step over the floor; a
 * valley whose walls do not stand above the floor gives none), *nq how
 * many; q holds one slot per neighbour pair (fs_gap_pairs' count is not
 * known before, so it is allocated here: *q the caller's to free) */
static int radii_pass(const fs_image *img, const double *x, const double *y, const double *r0, size_t n, double pitch,
		      double *r, int *nr, double *sig, double **q, size_t *nq)
{
	double ss = 0;
	size_t ns = 0;
	if (sig)
		*sig = NAN;
	if (q) {
		*q = NULL;
		*nq = 0;
	}
	for (size_t i = 0; i < n; i++) {
		r[i] = NAN;
		if (nr)
			nr[i] = 0;
	}
	fs_gap_pair *pr = NULL;
	size_t np = 0;
	double *sum = calloc(n ? n : 1, sizeof *sum);
	int *cnt = calloc(n ? n : 1, sizeof *cnt);
	if (!sum || !cnt || fs_gap_pairs(x, y, n, pitch, &pr, &np) ||
	    (q && !(*q = malloc((np ? np : 1) * sizeof **q)))) {
		free(sum);
		free(cnt);
		free(pr);
		return -1;
	}
	for (size_t k = 0; k < np; k++) {
		size_t i = pr[k].i, j = pr[k].j;
		fs_gap_wide_valley v;
		if (!isfinite(r0[i]) || !isfinite(r0[j]) || fs_gap_wide_read(img, x[i], y[i], x[j], y[j], r0[i], r0[j], &v))
			continue;
		ss += v.sig;
		ns++;
		sum[i] += v.ra;
		cnt[i]++;
		sum[j] += v.rb;
		cnt[j]++;
		double c = 0.5 * (v.coef[0] + v.coef[4]) - v.coef[2];
		if (q && c > 0)
			(*q)[(*nq)++] = v.rms / c;
	}
	for (size_t i = 0; i < n; i++) {
		if (cnt[i])
			r[i] = sum[i] / cnt[i];
		if (nr)
			nr[i] = cnt[i];
	}
	if (sig && ns)
		*sig = ss / ns;
	free(pr);
	free(sum);
	free(cnt);
	return 0;
}

int fs_gap_wide_radii(const fs_image *img, const double *x, const double *y, const double *r0, size_t n, double pitch,
		      double *r, int *nr, double *sig)
{
	return radii_pass(img, x, y, r0, n, pitch, r, nr, sig, NULL, NULL);
}

int fs_gap_wide_level_read(const fs_image *img, const double *x, const double *y, const double *r0, size_t n,
			   double pitch, fs_gap_wide_level *out)
{
	out->witness = out->scale = out->scale_med = NAN;
	out->valleys = 0;
	double *r = malloc((n ? n : 1) * sizeof *r), *q = NULL;
	size_t nq = 0;
	if (!r || radii_pass(img, x, y, r0, n, pitch, r, NULL, NULL, &q, &nq)) {
		free(r);
		return -1;
	}
	double s0 = 0, s1 = 0;
	size_t nk = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(r0[i]) && isfinite(r[i])) {
			s0 += r0[i];
			s1 += r[i];
			/* (r's slot i read: it holds the ratio from here on) */
			r[nk++] = r[i] / r0[i];
		}
	out->scale_med = nk ? fs_median_double(r, nk) : NAN;
	out->valleys = nq;
	if (nq)
		out->witness = fs_median_double(q, nq);
	if (s0 > 0)
		out->scale = s1 / s0;
	free(q);
	free(r);
	return 0;
}

/* the option (gap_wide.h): on by default (h53c, by the acceptance rule) */
static int gw_level_on = 1;

int fs_gap_wide_set_level(int on)
{
	int was = gw_level_on;
	gw_level_on = on != 0;
	return was;
}

int fs_gap_wide_level_on(void)
{
	return gw_level_on;
}

int fs_gap_wide_scale_list(const fs_image *meas, double f, fs_tubercle_list *t, double *scale, char *err,
			   size_t errlen)
{
	*scale = 1;
	size_t n = t->n;
	double period = 0;
	/* (no measurement image - the tiled path: the sizes stand) */
	if (!meas || n < 8)
		return 0;
	double *xs = malloc(4 * n * sizeof *xs), *ys = xs + n, *rs = ys + n, *tmp = rs + n;
	fs_image *lp = NULL;
	int rc = -1;
	if (!xs)
		goto oom;
	size_t nr = 0;
	for (size_t i = 0; i < n; i++) {
		const fs_tubercle *q = &t->items[i];
		xs[i] = (q->centroid_x + 0.5) / f - 0.5;
		ys[i] = (q->centroid_y + 0.5) / f - 0.5;
		rs[i] = q->radius_px > 0 ? q->radius_px / f : NAN;
		if (isfinite(rs[i]))
			tmp[nr++] = rs[i];
	}
	/* the cheap gates before the screen's spectrum: domes large enough
	 * (before the pitch's neighbour search, which every image of small
	 * domes - the 2048x1536 lattice's 2736 - would pay for nothing) and
	 * apart at all; then a screen, and the valleys resolved under its
	 * low-pass: a gap wider than its period (the rule's own screened
	 * gate, h42d) */
	rc = 0;
	double rmed = nr >= 8 ? fs_median_double(tmp, nr) : NAN;
	if (!(rmed >= FS_GAP_WIDE_MIN_R))
		goto out;
	double pitch = fs_dome_fit_pitch(xs, ys, n);
	if (pitch < 0)
		goto oom;
	if (!(pitch - 2 * rmed > 0))
		goto out;
	if (fs_halftone_detect(meas, &period, NULL))
		goto oom;
	if (!(period > 0 && pitch - 2 * rmed > period))
		goto out;
	char why[96];
	if (!(lp = fs_gaussian_blurred(meas, FS_HALFTONE_LOWPASS * period, why, sizeof why)))
		goto oom;
	fs_gap_wide_level lv;
	if (fs_gap_wide_level_read(lp, xs, ys, rs, n, pitch, &lv))
		goto oom;
	/* (the median of the domes' ratios: a few valleys the rule's centres
	 * put off weigh in the sum's, h53c) */
	if (!(lv.valleys >= FS_GAP_WIDE_MIN_VALLEYS && lv.witness < FS_GAP_WIDE_FLAT && lv.scale_med > 0))
		goto out;
	*scale = lv.scale_med;
	for (size_t i = 0; i < n; i++) {
		fs_tubercle *q = &t->items[i];
		q->radius_px *= *scale;
		if (q->has_ellipse) {
			q->major_axis_px *= *scale;
			q->minor_axis_px *= *scale;
		}
	}
	goto out;
oom:
	rc = -1;
	snprintf(err, errlen, "wide valleys: out of memory");
out:
	fs_image_free(lp);
	free(xs);
	return rc;
}
