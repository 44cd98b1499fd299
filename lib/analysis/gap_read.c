/*
 * gap_read.c - see gap_read.h.
 */
#include "analysis/gap_read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/box_tent_kernel.h"
#include "analysis/lsq6.h"
#include "analysis/parabola_vertex.h"

/* the samples' step along the line (px) and the derivative's half span */
#define GAP_STEP 0.25
#define GAP_DSPAN 2
/* the valley is looked for between these shares of the centres' distance */
#define GAP_T0 0.15
#define GAP_T1 0.85
/* a wall's step counts when at least this share of its half's strongest */
#define GAP_WALL_SHARE 0.5
/* the parallel lines' offsets (px) */
static const double line_off[3] = {-0.5, 0.0, 0.5};
#define GAP_LINES 3
#define GAP_MAXS 1024

typedef struct gap_line {
	double t0;	/* the first sample's distance from A along the line */
	int n;
	double v[GAP_MAXS];
} gap_line;

/* Where the samples are read: img a crop at (ox, oy) of a w x h image
 * (the whole image: 0, 0 and its own size). */
typedef struct gap_view {
	const fs_image *img;
	int ox, oy, w, h;
} gap_view;

/* The image along the line from A to B moved by off across it; -1 when a
 * sample leaves the image (a clamped reading would invent a wall). Each
 * position is made in the whole image's pixels and only the sample's has
 * the crop's origin taken off, which is exact (an integer off a double of
 * at least its size), so a crop reads the whole image's bits. */
static int sample_line(const gap_view *V, double ax, double ay, double ux, double uy, double d, double off,
		       gap_line *L)
{
	double t0 = GAP_T0 * d, t1 = GAP_T1 * d;
	int n = (int)floor((t1 - t0) / GAP_STEP) + 1;
	if (n < 4 * GAP_DSPAN + 3 || n > GAP_MAXS)
		return -1;
	double ox = ax - uy * off, oy = ay + ux * off;
	/* (in locals: the stores to L->v may alias V for the compiler) */
	const fs_image *img = V->img;
	double xmax = V->w - 1, ymax = V->h - 1, cx = V->ox, cy = V->oy;
	for (int i = 0; i < n; i++) {
		double t = t0 + i * GAP_STEP, x = ox + ux * t, y = oy + uy * t;
		if (!(x >= 0 && y >= 0 && x <= xmax && y <= ymax))
			return -1;
		L->v[i] = fs_image_sample_clamped(img, x - cx, y - cy);
	}
	L->t0 = t0;
	L->n = n;
	return 0;
}

/* The innermost strong wall step in samples [lo, hi) of |g|, searched from
 * the end nearest the middle (from_hi: from hi down); its position along
 * the line, or NAN. */
static double wall_step(const double *g, int lo, int hi, int from_hi, double t0)
{
	double best = 0;
	for (int i = lo; i < hi; i++)
		if (fabs(g[i]) > best)
			best = fabs(g[i]);
	if (!(best > 0))
		return NAN;
	for (int k = 0; k < hi - lo; k++) {
		int i = from_hi ? hi - 1 - k : lo + k;
		if (i <= lo || i >= hi - 1)
			continue;
		double a = fabs(g[i - 1]), b = fabs(g[i]), c = fabs(g[i + 1]);
		if (b >= GAP_WALL_SHARE * best && b >= a && b >= c)
			return t0 + (i + fs_parabola_vertex(a, b, c)) * GAP_STEP;
	}
	return NAN;
}

/* Both walls' steepest steps on one line: e1 (A's foot) and e2 (B's). */
static int line_steps(const gap_line *L, double d, double *e1, double *e2)
{
	double g[GAP_MAXS];
	int n = L->n, s = GAP_DSPAN;
	for (int i = 0; i < n; i++)
		g[i] = i < s || i >= n - s ? 0 : (L->v[i + s] - L->v[i - s]) / (2 * s * GAP_STEP);
	int mid = (int)lround((0.5 * d - L->t0) / GAP_STEP);
	if (mid <= s || mid >= n - s)
		return -1;
	*e1 = wall_step(g, s, mid + 1, 1, L->t0);
	*e2 = wall_step(g, mid, n - s, 0, L->t0);
	return isfinite(*e1) && isfinite(*e2) && *e2 > *e1 ? 0 : -1;
}

/* The standard normal's distribution function: not box_tent_kernel.h's
 * fs_box_tent_Phi, whose -z x 1/sqrt 2 differs from -z / sqrt 2 in the
 * last bits on four inputs of ten, and h47g's figures were read with this
 * one (its density is the kernel's, the same constant and product). */
static double Phi(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

/* Least squares of the six linear terms for the feet e1 < e2 and blur s
 * over samples [lo, hi) of L; the residual sum of squares (HUGE_VAL when
 * singular). */
static double valley_rss(const gap_line *L, int lo, int hi, double e1, double e2, double s)
{
	double A[6][7];
	memset(A, 0, sizeof A);
	double m = 0.5 * (e1 + e2);
	double yy = 0;
	for (int i = lo; i < hi; i++) {
		double t = L->t0 + i * GAP_STEP, y = L->v[i];
		double z1 = (e1 - t) / s, z2 = (e2 - t) / s;
		double P1 = Phi(z1), P2 = Phi(z2), p1 = fs_box_tent_phi(z1), p2 = fs_box_tent_phi(z2);
		double f[6] = {P1,
			       (t - e1) * P1 - s * p1,
			       P2 - P1,
			       (t - m) * (P2 - P1) - s * (p2 - p1),
			       1 - P2,
			       (t - e2) * (1 - P2) + s * p2};
		for (int a = 0; a < 6; a++) {
			for (int b = a; b < 6; b++)
				A[a][b] += f[a] * f[b];
			A[a][6] += f[a] * y;
		}
		yy += y * y;
	}
	return fs_lsq6_rss(A, yy, NULL);
}

/* One parameter of (e1, e2, s) searched over [c - h, c + h] on 9 points,
 * the best moved to its parabola's vertex when that fits better. */
static double search_one(const gap_line *L, int lo, int hi, double *p, int which, double h, double lo_b, double hi_b)
{
	double c = p[which], best = HUGE_VAL, bv = c, r[9];
	for (int k = 0; k < 9; k++) {
		double q[3] = {p[0], p[1], p[2]};
		q[which] = c + h * (k - 4) / 4.0;
		if (q[which] < lo_b || q[which] > hi_b || !(q[1] > q[0] + 0.2)) {
			r[k] = HUGE_VAL;
			continue;
		}
		r[k] = valley_rss(L, lo, hi, q[0], q[1], q[2]);
		if (r[k] < best) {
			best = r[k];
			bv = q[which];
		}
	}
	int kb = (int)lround((bv - c) * 4 / h) + 4;
	if (kb > 0 && kb < 8 && isfinite(r[kb - 1]) && isfinite(r[kb + 1])) {
		double o = fs_parabola_vertex(-r[kb - 1], -r[kb], -r[kb + 1]);
		double q[3] = {p[0], p[1], p[2]};
		q[which] = bv + o * h / 4;
		if (q[1] > q[0] + 0.2) {
			double rv = valley_rss(L, lo, hi, q[0], q[1], q[2]);
			if (rv < best) {
				best = rv;
				bv = q[which];
			}
		}
	}
	p[which] = bv;
	return best;
}

/* The valley model fitted on one line from the steps e1, e2: the feet and
 * the blur in *e1, *e2, *s. */
static int line_fit(const gap_line *L, double d, double *e1, double *e2, double *s)
{
	double w = 0.12 * d;
	int lo = (int)floor((*e1 - w - L->t0) / GAP_STEP), hi = (int)ceil((*e2 + w - L->t0) / GAP_STEP) + 1;
	if (lo < 0)
		lo = 0;
	if (hi > L->n)
		hi = L->n;
	if (hi - lo < 12)
		return -1;
	double p[3] = {*e1, *e2, 1.0};
	double h[3] = {0.6, 0.6, 0.6};
	double tlo = L->t0 + lo * GAP_STEP, thi = L->t0 + (hi - 1) * GAP_STEP;
	for (int it = 0; it < 6; it++) {
		search_one(L, lo, hi, p, 2, h[2], 0.25, 3.0);
		search_one(L, lo, hi, p, 0, h[0], tlo, thi);
		search_one(L, lo, hi, p, 1, h[1], tlo, thi);
		for (int k = 0; k < 3; k++)
			h[k] *= 0.5;
	}
	*e1 = p[0];
	*e2 = p[1];
	*s = p[2];
	return 0;
}

int fs_gap_feet(const fs_image *img, double ax, double ay, double bx, double by, int method, double sigma,
		double *ra, double *rb, double *sig)
{
	return fs_gap_feet_at(img, 0, 0, img->width, img->height, ax, ay, bx, by, method, sigma, ra, rb, sig);
}

int fs_gap_feet_at(const fs_image *img, int ox, int oy, int w, int h, double ax, double ay, double bx, double by,
		   int method, double sigma, double *ra, double *rb, double *sig)
{
	*ra = *rb = NAN;
	if (sig)
		*sig = NAN;
	double dx = bx - ax, dy = by - ay, d = hypot(dx, dy);
	if (!(d > 4) || !img->data)
		return -1;
	const gap_view V = {img, ox, oy, w, h};
	double ux = dx / d, uy = dy / d;
	double sa = 0, sb = 0, ss = 0;
	int nl = 0;
	static __thread gap_line L;
	for (int l = 0; l < GAP_LINES; l++) {
		double off = line_off[l], e1, e2, s = sigma;
		if (sample_line(&V, ax, ay, ux, uy, d, off, &L) || line_steps(&L, d, &e1, &e2))
			continue;
		if (method == FS_GAP_FIT && line_fit(&L, d, &e1, &e2, &s))
			continue;
		/* each foot's distance to its own centre, then the blurred
		 * circle's inward shift sigma^2 / 2R taken back */
		double r1 = hypot(e1, off), r2 = hypot(d - e2, off);
		if (s > 0) {
			r1 += s * s / (2 * r1);
			r2 += s * s / (2 * r2);
		}
		sa += r1;
		sb += r2;
		ss += s;
		nl++;
	}
	if (!nl)
		return -1;
	*ra = sa / nl;
	*rb = sb / nl;
	if (sig)
		*sig = ss / nl;
	return 0;
}

/* the grid's cell index of v (the cells reach * (1 + 1e-9) wide, so two
 * points within reach lie in the same or adjacent cells despite rounding) */
static long grid_cell(double v, double v0, double cs)
{
	return (long)floor((v - v0) / cs);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

int fs_gap_pairs(const double *x, const double *y, size_t n, double pitch, fs_gap_pair **out, size_t *np)
{
	*out = NULL;
	*np = 0;
	double reach = 1.25 * pitch;
	double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
	size_t nf = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]) && isfinite(y[i])) {
			x0 = fmin(x0, x[i]);
			y0 = fmin(y0, y[i]);
			x1 = fmax(x1, x[i]);
			y1 = fmax(y1, y[i]);
			nf++;
		}
	if (nf < 2 || !(reach > 0))
		return 0;
	/* at most about 4 n cells: a tiny reach must not make a huge grid
	 * (wider cells only cost more distance tests) */
	double cs = reach * (1 + 1e-9);
	double span = fmax(x1 - x0, y1 - y0);
	if (span / cs > 2.0 * sqrt((double)nf) + 1)
		cs = span / (2.0 * sqrt((double)nf) + 1);
	long gw = grid_cell(x1, x0, cs) + 1, gh = grid_cell(y1, y0, cs) + 1;
	size_t ncell = (size_t)gw * (size_t)gh;
	size_t *start = calloc(ncell + 1, sizeof *start);
	size_t *members = malloc(nf * sizeof *members);
	size_t *near = malloc(nf * sizeof *near);
	size_t cap = 4 * nf;
	fs_gap_pair *pr = malloc(cap * sizeof *pr);
	if (!start || !members || !near || !pr)
		goto oom;
	/* the points by cell, each cell's in ascending index */
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]) && isfinite(y[i]))
			start[grid_cell(y[i], y0, cs) * gw + grid_cell(x[i], x0, cs) + 1]++;
	for (size_t c = 0; c < ncell; c++)
		start[c + 1] += start[c];
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]) && isfinite(y[i]))
			members[start[grid_cell(y[i], y0, cs) * gw + grid_cell(x[i], x0, cs)]++] = i;
	for (size_t c = ncell; c > 0; c--)
		start[c] = start[c - 1];
	start[0] = 0;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]) || !isfinite(y[i]))
			continue;
		long cx = grid_cell(x[i], x0, cs), cy = grid_cell(y[i], y0, cs);
		size_t nn = 0;
		for (long gy = cy - 1; gy <= cy + 1; gy++)
			for (long gx = cx - 1; gx <= cx + 1; gx++) {
				if (gx < 0 || gy < 0 || gx >= gw || gy >= gh)
					continue;
				size_t c = (size_t)gy * gw + gx;
				for (size_t q = start[c]; q < start[c + 1]; q++)
					if (members[q] > i)
						near[nn++] = members[q];
			}
		/* ascending j, as the pairs' nested loop (the sums' order) */
		qsort(near, nn, sizeof *near, cmp_size);
		for (size_t q = 0; q < nn; q++) {
			size_t j = near[q];
			if (fabs(x[j] - x[i]) > reach || fabs(y[j] - y[i]) > reach ||
			    hypot(x[j] - x[i], y[j] - y[i]) > reach)
				continue;
			if (m == cap) {
				fs_gap_pair *g = realloc(pr, 2 * cap * sizeof *pr);
				if (!g)
					goto oom;
				pr = g;
				cap *= 2;
			}
			pr[m++] = (fs_gap_pair){i, j, NAN, NAN, 0};
		}
	}
	free(start);
	free(members);
	free(near);
	*out = pr;
	*np = m;
	return 0;
oom:
	free(start);
	free(members);
	free(near);
	free(pr);
	return -1;
}

void fs_gap_gather(const double *x, const double *y, size_t n, const fs_gap_pair *pr, size_t np, double azimuth,
		   double *sum, int *cnt, double *r, int *nr)
{
	for (size_t i = 0; i < n; i++) {
		sum[i] = 0;
		cnt[i] = 0;
	}
	for (size_t q = 0; q < np; q++) {
		size_t i = pr[q].i, j = pr[q].j;
		if (!pr[q].read)
			continue;
		/* i's foot faces j: its outward direction is i -> j */
		double c = isfinite(azimuth) ? ((x[j] - x[i]) * cos(azimuth) + (y[j] - y[i]) * sin(azimuth)) /
						      hypot(x[j] - x[i], y[j] - y[i])
					     : 0;
		if (!isfinite(azimuth) || c >= FS_GAP_LIT_COS) {
			sum[i] += pr[q].ra;
			cnt[i]++;
		}
		if (!isfinite(azimuth) || -c >= FS_GAP_LIT_COS) {
			sum[j] += pr[q].rb;
			cnt[j]++;
		}
	}
	for (size_t i = 0; i < n; i++) {
		r[i] = cnt[i] ? sum[i] / cnt[i] : NAN;
		if (nr)
			nr[i] = cnt[i];
	}
}

int fs_gap_radii(const fs_image *img, const double *x, const double *y, size_t n, double pitch, int method,
		 double sigma, double azimuth, double *r, int *nr)
{
	for (size_t i = 0; i < n; i++) {
		r[i] = NAN;
		if (nr)
			nr[i] = 0;
	}
	double *sum = calloc(n ? n : 1, sizeof *sum);
	int *cnt = calloc(n ? n : 1, sizeof *cnt);
	fs_gap_pair *pr = NULL;
	size_t np = 0;
	if (!sum || !cnt || fs_gap_pairs(x, y, n, pitch, &pr, &np)) {
		free(sum);
		free(cnt);
		return -1;
	}
	for (size_t q = 0; q < np; q++)
		pr[q].read = !fs_gap_feet(img, x[pr[q].i], y[pr[q].i], x[pr[q].j], y[pr[q].j], method, sigma,
					  &pr[q].ra, &pr[q].rb, NULL);
	fs_gap_gather(x, y, n, pr, np, azimuth, sum, cnt, r, nr);
	free(pr);
	free(sum);
	free(cnt);
	return 0;
}
