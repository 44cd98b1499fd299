/* blur_fine.c - the blur read through a fine forward model, the rest of
 * the formation held (see blur_fine.h). */
#include "analysis/blur_fine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/box_tent_kernel.h"

#define NC FS_SE_NCOMP
/* Gaussian tails cut at this many sigma (the weights renormalised) */
#define TAIL 4.0

void fs_blur_fine_opts_default(fs_blur_fine_opts *o)
{
	memset(o, 0, sizeof *o);
	o->grid = 64;
	o->edge_cap_px = 1.5;
	o->kernel = FS_BLUR_FINE_BOX_TENT;
	o->sigma_lo = 0.3;
	o->sigma_hi = 3.0;
	o->shift_max = 1.5;
}

double fs_blur_fine_kernel(int kernel, double sigma, double s)
{
	if (!(sigma > 0))
		return 0;
	if (kernel == FS_BLUR_FINE_POINT)
		return fs_box_tent_phi(s / sigma) / sigma;
	return fs_box_tent_gauss(sigma, s);
}

typedef struct ctx {
	int kernel;
	double h;        /* px per grid sample */
	int half, cw;    /* the render's window */
	int nc;          /* the components present */
	const float *c[NC];
	int comp[NC];    /* their fs_se_render index */
	int ri, nd;      /* points' offsets -ri..ri (nd = 2 ri + 1) */
	size_t np;
	int *dx, *dy;
	double *mean, vv; /* the mean patch, centred, and its sum of squares */
	double *kx, *ky; /* nd x cw kernel weights */
	int *kx0, *kx1, *ky0, *ky1;
	double *hrow;    /* nc x cw x nd: rows summed along x */
	double *val;     /* nc x np: the components at the points */
	double w[NC + 1];
	int trials;
} ctx;

/* The weights of the grid's samples for a point at p px from the site
 * (the dome's centre), normalised (a constant stays constant). */
static void kernel_row(const ctx *c, double sigma, double p, double *w, int *i0, int *i1)
{
	double S = TAIL * sigma + (c->kernel == FS_BLUR_FINE_BOX_TENT ? FS_BOX_TENT_HALF : 0);
	int a = (int)ceil((p - S) / c->h) + c->half, b = (int)floor((p + S) / c->h) + c->half;
	a = a < 0 ? 0 : a;
	b = b > c->cw - 1 ? c->cw - 1 : b;
	double sum = 0;
	for (int i = a; i <= b; i++)
		sum += w[i] = fs_blur_fine_kernel(c->kernel, sigma, p - (i - c->half) * c->h);
	for (int i = a; i <= b; i++)
		w[i] = sum > 0 ? w[i] / sum : 0;
	*i0 = a;
	*i1 = b;
}

/* Least squares of the centred mean patch on the centred components:
 * the residual share. Gaussian elimination with partial pivoting on the
 * normal equations; a component with no variation at the points (the
 * shadow where none falls) is given weight 0 rather than failing. */
static double solve(ctx *c)
{
	int m = c->nc;
	double A[NC][NC + 1], cm[NC];
	memset(A, 0, sizeof A);
	for (int j = 0; j < m; j++) {
		double s = 0;
		for (size_t i = 0; i < c->np; i++)
			s += c->val[(size_t)j * c->np + i];
		cm[j] = s / c->np;
	}
	for (size_t i = 0; i < c->np; i++) {
		double x[NC];
		for (int j = 0; j < m; j++)
			x[j] = c->val[(size_t)j * c->np + i] - cm[j];
		for (int a = 0; a < m; a++) {
			for (int b = a; b < m; b++)
				A[a][b] += x[a] * x[b];
			A[a][m] += x[a] * c->mean[i];
		}
	}
	double diag[NC];
	for (int a = 0; a < m; a++) {
		for (int b = 0; b < a; b++)
			A[a][b] = A[b][a];
		diag[a] = A[a][a];
	}
	int ok[NC];
	for (int p = 0; p < m; p++) {
		int best = p;
		for (int r = p + 1; r < m; r++)
			if (fabs(A[r][p]) > fabs(A[best][p]))
				best = r;
		if (best != p)
			for (int q = 0; q <= m; q++) {
				double t = A[p][q];
				A[p][q] = A[best][q];
				A[best][q] = t;
			}
		ok[p] = fabs(A[p][p]) > 1e-12 * (diag[p] > 0 ? diag[p] : 1) && fabs(A[p][p]) > 1e-300;
		if (!ok[p])
			continue;
		for (int r = p + 1; r < m; r++) {
			double f = A[r][p] / A[p][p];
			for (int q = p; q <= m; q++)
				A[r][q] -= f * A[p][q];
		}
	}
	double wv[NC];
	for (int p = m - 1; p >= 0; p--) {
		if (!ok[p]) {
			wv[p] = 0;
			continue;
		}
		double s = A[p][m];
		for (int q = p + 1; q < m; q++)
			s -= A[p][q] * wv[q];
		wv[p] = s / A[p][p];
	}
	double rss = 0, k = 0;
	for (int j = 0; j < m; j++)
		k -= wv[j] * cm[j];
	for (size_t i = 0; i < c->np; i++) {
		double v = -c->mean[i];
		for (int j = 0; j < m; j++)
			v += wv[j] * (c->val[(size_t)j * c->np + i] - cm[j]);
		rss += v * v;
	}
	for (int j = 0; j <= NC; j++)
		c->w[j] = 0;
	for (int j = 0; j < m; j++)
		c->w[c->comp[j]] = wv[j];
	c->w[NC] = k; /* the constant of the centred patch (the patch's mean is added by the caller) */
	return rss / c->vv;
}

/* The misfit share at Gaussian sigma (px) and common offset (ox, oy):
 * the model about a dome centred at (ox, oy) from each given centre. */
static double misfit(ctx *c, double sigma, double ox, double oy)
{
	int nd = c->nd, cw = c->cw;
	c->trials++;
	for (int a = 0; a < nd; a++) {
		kernel_row(c, sigma, (a - c->ri) - ox, c->kx + (size_t)a * cw, &c->kx0[a], &c->kx1[a]);
		kernel_row(c, sigma, (a - c->ri) - oy, c->ky + (size_t)a * cw, &c->ky0[a], &c->ky1[a]);
	}
	int r0 = cw, r1 = -1;
	for (int b = 0; b < nd; b++) {
		r0 = c->ky0[b] < r0 ? c->ky0[b] : r0;
		r1 = c->ky1[b] > r1 ? c->ky1[b] : r1;
	}
	/* separable: each needed row summed along x once per column offset,
	 * then each point's rows summed along y */
	for (int j = 0; j < c->nc; j++) {
		const float *cj = c->c[j];
		for (int y = r0; y <= r1; y++) {
			const float *row = cj + (size_t)y * cw;
			double *hr = c->hrow + ((size_t)j * cw + y) * nd;
			for (int a = 0; a < nd; a++) {
				const double *k = c->kx + (size_t)a * cw;
				double s = 0;
				for (int i = c->kx0[a]; i <= c->kx1[a]; i++)
					s += k[i] * row[i];
				hr[a] = s;
			}
		}
		for (size_t i = 0; i < c->np; i++) {
			int a = c->dx[i] + c->ri, b = c->dy[i] + c->ri;
			const double *k = c->ky + (size_t)b * cw;
			double s = 0;
			for (int y = c->ky0[b]; y <= c->ky1[b]; y++)
				s += k[y] * c->hrow[((size_t)j * cw + y) * nd + a];
			c->val[(size_t)j * c->np + i] = s;
		}
	}
	return solve(c);
}

/* Golden-section search of one of (sigma, ox, oy) in [lo, hi] with the
 * others held, to tol; p updated, the misfit there returned. The misfit
 * is smooth and has one minimum within a bracket this narrow (the wide
 * grids before it place the bracket). */
static double golden(ctx *c, double *p, int which, double lo, double hi, double tol)
{
	const double g = 0.5 * (sqrt(5.0) - 1);
	double q[3] = {p[0], p[1], p[2]};
	double a = lo, b = hi, x1 = b - g * (b - a), x2 = a + g * (b - a);
	q[which] = x1;
	double f1 = misfit(c, q[0], q[1], q[2]);
	q[which] = x2;
	double f2 = misfit(c, q[0], q[1], q[2]);
	while (b - a > tol) {
		if (f1 <= f2) {
			b = x2;
			x2 = x1;
			f2 = f1;
			x1 = b - g * (b - a);
			q[which] = x1;
			f1 = misfit(c, q[0], q[1], q[2]);
		} else {
			a = x1;
			x1 = x2;
			f1 = f2;
			x2 = a + g * (b - a);
			q[which] = x2;
			f2 = misfit(c, q[0], q[1], q[2]);
		}
	}
	double fb = f1 <= f2 ? f1 : f2;
	q[which] = f1 <= f2 ? x1 : x2;
	/* the bracket's start point may be better than both interior ones
	 * when the minimum lies at the bracket's edge */
	double f0 = misfit(c, p[0], p[1], p[2]);
	if (f0 < fb)
		return f0;
	p[which] = q[which];
	return fb;
}

/* The components of formation f at fill on the context's window, the
 * edge clipped per px where asked; c->c and c->comp point at the parts
 * present (the shadow only with an elevation). 0, -1 where se_render
 * refuses the geometry or memory runs out. */
static int render_at(ctx *c, fs_se_field *fld, const fs_dome_fit *f, const fs_blur_fine_opts *o, double fill)
{
	fs_se_geom g = {fill, f->h_over_r, f->profile, f->angle, f->foot};
	int shadow = f->elevation > 0;
	/* shadows cast from as far as a dome's height reaches at the
	 * detector's elevation (bounded: a grazing detector would ask for the
	 * whole lattice) */
	int reach = shadow ? (int)ceil(0.5 * o->grid * f->h_over_r * fill / tan(f->elevation)) + 1 : 0;
	reach = reach > 2 * o->grid ? 2 * o->grid : reach;
	if (fs_se_render(&g, o->grid, c->half, reach, fld))
		return -1;
	if (shadow)
		fs_se_shadow(fld, f->azimuth, f->elevation);
	/* the edge clipped per image px (se_render.h): fs_se_render took
	 * this geometry and grid already */
	if (o->edge_cap_px > 0 && fs_se_edge_px(&g, o->grid, c->half, c->h, o->edge_cap_px, fld->c[FS_SE_EDGE]))
		return -1;
	c->nc = 0;
	for (int j = 0; j < NC; j++) {
		if (j == FS_SE_SHADOW && !shadow)
			continue;
		c->comp[c->nc] = j;
		c->c[c->nc++] = fld->c[j];
	}
	return 0;
}

/* Rounds of golden sections on the blur (bracket +-ds) and, where the
 * offset is free, on each of its axes (+-dsh, within shift_max of the
 * start), the brackets halved each round; p updated, its misfit
 * returned. */
static double refine(ctx *c, const fs_blur_fine_opts *o, double *p, double ds, double dsh, int rounds)
{
	double best = INFINITY;
	for (int round = 0; round < rounds; round++) {
		double lo = fmax(o->sigma_lo, p[0] - ds), hi = fmin(o->sigma_hi, p[0] + ds);
		/* a held blur (sigma_lo == sigma_hi) has no bracket to search */
		best = hi > lo ? golden(c, p, 0, lo, hi, 0.001) : misfit(c, p[0], p[1], p[2]);
		if (o->shift_max > 0) {
			for (int ax = 1; ax <= 2; ax++) {
				double base = ax == 1 ? o->shift_x : o->shift_y;
				lo = fmax(base - o->shift_max, p[ax] - dsh);
				hi = fmin(base + o->shift_max, p[ax] + dsh);
				best = golden(c, p, ax, lo, hi, 0.002);
			}
		}
		ds *= 0.5;
		dsh *= 0.5;
	}
	return best;
}

/* The blur, the offset and (fill_search) the fill searched for
 * formation f at fill, whose render is in fld: *p (sigma, offset x, y)
 * and *fill_out get the best point, its misfit is returned (INFINITY
 * where a render fails); fld holds the render at *fill_out after. */
static double search_shape(ctx *c, fs_se_field *fld, const fs_dome_fit *f, const fs_blur_fine_opts *o, double fill,
			   double *p, double *fill_out)
{
	/* The search. Where the offset is free, first a joint coarse grid
	 * of the Gaussian (a ladder 0.4..2.8 px) and the offset (0.5-px
	 * steps): at the start's offset a blur large enough to absorb a
	 * 1-px common offset fits better than the right one, and the
	 * offset searched at that blur lands on the wrong side (h44a:
	 * scene 22, whose rule's centres sit 0.93 px off, read 1.43 px that
	 * way). Then the Gaussian on a 0.1-px grid at the best offset, the
	 * offset on a 0.25-px grid about it at that blur, and rounds of
	 * one-parameter golden sections, each bracket about the last point,
	 * narrowing (blur and offset trade a little, so one pass is not
	 * their joint minimum). */
	double best = INFINITY;
	p[0] = o->sigma_lo;
	p[1] = o->shift_x;
	p[2] = o->shift_y;
	if (o->shift_max > 0) {
		static const double LADDER[] = {0.4, 0.7, 1.0, 1.4, 2.0, 2.8};
		int k = (int)floor(o->shift_max / 0.5 + 1e-9);
		double last = -1;
		for (size_t q = 0; q < sizeof LADDER / sizeof *LADDER; q++) {
			double sg = fmin(o->sigma_hi, fmax(o->sigma_lo, LADDER[q]));
			/* rungs clamped to one value (a narrow or held range) would
			 * repeat the same offsets' trials and never win (strict <) */
			if (sg == last)
				continue;
			last = sg;
			for (int iy = -k; iy <= k; iy++)
				for (int ix = -k; ix <= k; ix++) {
					double m = misfit(c, sg, o->shift_x + 0.5 * ix, o->shift_y + 0.5 * iy);
					if (m < best) {
						best = m;
						p[0] = sg;
						p[1] = o->shift_x + 0.5 * ix;
						p[2] = o->shift_y + 0.5 * iy;
					}
				}
		}
	}
	double s0 = p[0];
	for (double s = o->sigma_lo; s <= o->sigma_hi + 1e-9; s += 0.1) {
		if (o->shift_max > 0 && fabs(s - s0) > 0.45)
			continue;
		double m = misfit(c, s, p[1], p[2]);
		if (m < best) {
			best = m;
			p[0] = s;
		}
	}
	if (o->shift_max > 0) {
		double bx = p[1], by = p[2], cx = p[1], cy = p[2];
		for (int iy = -2; iy <= 2; iy++)
			for (int ix = -2; ix <= 2; ix++) {
				double x = cx + 0.25 * ix, y = cy + 0.25 * iy;
				if (fabs(x - o->shift_x) > o->shift_max + 1e-9 || fabs(y - o->shift_y) > o->shift_max + 1e-9)
					continue;
				double m = misfit(c, p[0], x, y);
				if (m < best) {
					best = m;
					bx = x;
					by = y;
				}
			}
		p[1] = bx;
		p[2] = by;
	}
	best = refine(c, o, p, 0.1, 0.25, 4);
	if (o->fill_search > 0) {
		/* the fill with them (fill_search): golden over the fill, each
		 * trial's blur and offset refined from the best point so far
		 * in narrow brackets (they move little with the fill) */
		const double gr = 0.5 * (sqrt(5.0) - 1);
		double a = fmax(0.05, fill - o->fill_search), b = fmin(0.98, fill + o->fill_search);
		double bestfill = fill, bp[3] = {p[0], p[1], p[2]};
		double x1 = b - gr * (b - a), x2 = a + gr * (b - a), q1[3], q2[3], f1, f2;
		memcpy(q1, bp, sizeof q1);
		f1 = render_at(c, fld, f, o, x1) ? INFINITY : refine(c, o, q1, 0.05, 0.1, 2);
		memcpy(q2, bp, sizeof q2);
		f2 = render_at(c, fld, f, o, x2) ? INFINITY : refine(c, o, q2, 0.05, 0.1, 2);
		while (b - a > 0.002) {
			if (f1 <= f2) {
				b = x2;
				x2 = x1;
				f2 = f1;
				memcpy(q2, q1, sizeof q2);
				x1 = b - gr * (b - a);
				memcpy(q1, q2, sizeof q1);
				f1 = render_at(c, fld, f, o, x1) ? INFINITY : refine(c, o, q1, 0.05, 0.1, 2);
			} else {
				a = x1;
				x1 = x2;
				f1 = f2;
				memcpy(q1, q2, sizeof q1);
				x2 = a + gr * (b - a);
				memcpy(q2, q1, sizeof q2);
				f2 = render_at(c, fld, f, o, x2) ? INFINITY : refine(c, o, q2, 0.05, 0.1, 2);
			}
		}
		double fb = f1 <= f2 ? f1 : f2;
		if (fb < best) {
			bestfill = f1 <= f2 ? x1 : x2;
			memcpy(p, f1 <= f2 ? q1 : q2, sizeof bp);
			best = fb;
		}
		fill = bestfill;
		if (render_at(c, fld, f, o, fill))
			return INFINITY;
	}
	*fill_out = fill;
	return best;
}

static void ctx_free(ctx *c)
{
	free(c->dx);
	free(c->dy);
	free(c->mean);
	free(c->kx);
	free(c->ky);
	free(c->kx0);
	free(c->kx1);
	free(c->ky0);
	free(c->ky1);
	free(c->hrow);
	free(c->val);
}

int fs_blur_fine_read(const fs_image *img, const double *xs, const double *ys, size_t n, const fs_dome_fit *f,
		      const fs_blur_fine_opts *o, fs_blur_fine *out, char *err, size_t errlen)
{
	fs_blur_fine_opts def;
	if (!o) {
		fs_blur_fine_opts_default(&def);
		o = &def;
	}
	memset(out, 0, sizeof *out);
	double pitch = f->pitch, fill = o->fill > 0 ? o->fill : f->fill;
	if (!(pitch >= 6) || o->grid < 8 || !(o->sigma_lo > 0) || !(o->sigma_hi >= o->sigma_lo) || o->shift_max < 0) {
		snprintf(err, errlen, "blur_fine: pitch %.2f px, grid %d, sigma %.2f..%.2f: not read", pitch, o->grid,
			 o->sigma_lo, o->sigma_hi);
		return -1;
	}
	ctx c;
	memset(&c, 0, sizeof c);
	fs_se_field fld;
	memset(&fld, 0, sizeof fld);
	int rc = -1;
	c.kernel = o->kernel;
	c.h = pitch / o->grid;
	double rp = 0.5 * pitch;
	c.ri = (int)floor(rp);
	c.nd = 2 * c.ri + 1;
	c.dx = malloc((size_t)c.nd * c.nd * sizeof *c.dx);
	c.dy = malloc((size_t)c.nd * c.nd * sizeof *c.dy);
	if (!c.dx || !c.dy)
		goto oom;
	for (int y = -c.ri; y <= c.ri; y++)
		for (int x = -c.ri; x <= c.ri; x++)
			if (x * x + y * y <= rp * rp) {
				c.dx[c.np] = x;
				c.dy[c.np++] = y;
			}
	c.mean = calloc(c.np, sizeof *c.mean);
	if (!c.mean)
		goto oom;
	/* the mean patch, read bilinearly about each centre as the
	 * formation fit reads it (its bilinear read is the tent the model
	 * carries) */
	size_t stride = o->max_centres && n > o->max_centres ? (n + o->max_centres - 1) / o->max_centres : 1;
	int W = img->width, H = img->height;
	for (size_t j = 0; j < n; j += stride) {
		double x = xs[j], y = ys[j];
		if (!(x - c.ri - 1 >= 0 && y - c.ri - 1 >= 0 && x + c.ri + 1 < W - 1 && y + c.ri + 1 < H - 1))
			continue;
		for (size_t i = 0; i < c.np; i++)
			c.mean[i] += fs_image_sample_clamped_any(img, x + c.dx[i], y + c.dy[i]);
		out->n_used++;
	}
	if (out->n_used < 8) {
		snprintf(err, errlen, "blur_fine: %zu centres with a whole patch (8 needed)", out->n_used);
		goto out;
	}
	double mm = 0;
	for (size_t i = 0; i < c.np; i++)
		mm += c.mean[i] /= out->n_used;
	mm /= c.np;
	for (size_t i = 0; i < c.np; i++) {
		c.mean[i] -= mm;
		c.vv += c.mean[i] * c.mean[i];
	}
	if (!(c.vv > 0)) {
		snprintf(err, errlen, "blur_fine: a flat mean patch");
		goto out;
	}
	/* the window: every point, moved by the largest offset, and the
	 * widest kernel's support about it */
	double reach_px = c.ri + o->shift_max + fabs(o->shift_x) + fabs(o->shift_y) + FS_BOX_TENT_HALF + TAIL * o->sigma_hi + 1;
	c.half = (int)ceil(reach_px / c.h) + 1;
	c.cw = 2 * c.half + 1;
	if (render_at(&c, &fld, f, o, fill)) {
		snprintf(err, errlen, "blur_fine: the geometry (fill %.3f, h/R %.2f) cannot be rendered", fill,
			 f->h_over_r);
		goto out;
	}
	size_t nk = (size_t)c.nd * c.cw;
	c.kx = malloc(nk * sizeof *c.kx);
	c.ky = malloc(nk * sizeof *c.ky);
	c.kx0 = malloc((size_t)c.nd * sizeof *c.kx0);
	c.kx1 = malloc((size_t)c.nd * sizeof *c.kx1);
	c.ky0 = malloc((size_t)c.nd * sizeof *c.ky0);
	c.ky1 = malloc((size_t)c.nd * sizeof *c.ky1);
	c.hrow = malloc((size_t)NC * c.cw * c.nd * sizeof *c.hrow);
	c.val = malloc((size_t)NC * c.np * sizeof *c.val);
	if (!c.kx || !c.ky || !c.kx0 || !c.kx1 || !c.ky0 || !c.ky1 || !c.hrow || !c.val)
		goto oom;

	double p[3], best;
	if (o->shape_search) {
		/* every profile at a ladder of heights: the formation fit's
		 * shape, read through its coarse templates about the rule's
		 * centres, is often not the domes' (h44a: E 4, 20 read as
		 * tall caps of blur 1.6 px) and the blur trades with it */
		static const double HR[] = {0.2, 0.3, 0.45, 0.65, 0.9, 1.2};
		fs_dome_fit fs = *f;
		/* the formation's own shape searched whole first; every shape
		 * then refined from its point at three fills about its fill
		 * (a fifth of a whole search each), and the best shape
		 * searched whole again */
		double p0[3], fill0;
		best = search_shape(&c, &fld, f, o, fill, p0, &fill0);
		if (!isfinite(best)) {
			snprintf(err, errlen, "blur_fine: the geometry (fill %.3f) cannot be rendered", fill);
			goto out;
		}
		double bfill = fill0, bprof = f->profile, bhr = f->h_over_r, bscreen = best;
		for (int prof = 0; prof <= 2; prof++)
			for (size_t k = 0; k < sizeof HR / sizeof *HR; k++)
				for (int df = -1; df <= 1; df++) {
					double q[3] = {p0[0], p0[1], p0[2]}, fl = fill0 + 0.04 * df;
					fs.profile = prof;
					fs.h_over_r = HR[k];
					if (render_at(&c, &fld, &fs, o, fl))
						continue;
					double m = refine(&c, o, q, 0.2, 0.3, 1);
					if (m < bscreen) {
						bscreen = m;
						bfill = fl;
						bprof = prof;
						bhr = HR[k];
					}
				}
		double bp[3] = {p0[0], p0[1], p0[2]};
		if (bprof != f->profile || bhr != f->h_over_r) {
			double q[3], qf;
			fs.profile = bprof;
			fs.h_over_r = bhr;
			double m = render_at(&c, &fld, &fs, o, bfill) ? INFINITY : search_shape(&c, &fld, &fs, o, bfill, q, &qf);
			if (m < best) {
				best = m;
				memcpy(bp, q, sizeof bp);
				fill0 = qf;
			} else {
				bprof = f->profile;
				bhr = f->h_over_r;
			}
		}
		bfill = fill0;
		fs.profile = bprof;
		fs.h_over_r = bhr;
		memcpy(p, bp, sizeof bp);
		fill = bfill;
		if (!isfinite(best) || render_at(&c, &fld, &fs, o, fill)) {
			snprintf(err, errlen, "blur_fine: no shape could be rendered");
			goto out;
		}
		out->profile = bprof;
		out->h_over_r = bhr;
	} else {
		best = search_shape(&c, &fld, f, o, fill, p, &fill);
		if (!isfinite(best) || render_at(&c, &fld, f, o, fill)) {
			snprintf(err, errlen, "blur_fine: the geometry (fill %.3f) cannot be rendered", fill);
			goto out;
		}
		out->profile = f->profile;
		out->h_over_r = f->h_over_r;
	}
	out->fill = fill;
	best = misfit(&c, p[0], p[1], p[2]); /* the weights at the point returned */
	out->sigma = p[0];
	out->beam = sqrt(p[0] * p[0] + 0.0625 * c.h * c.h);
	out->shift_x = p[1];
	out->shift_y = p[2];
	out->misfit = best;
	memcpy(out->weights, c.w, sizeof out->weights);
	out->weights[NC] += mm;
	out->trials = c.trials;
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "blur_fine: out of memory");
out:
	fs_se_field_free(&fld);
	ctx_free(&c);
	return rc;
}
