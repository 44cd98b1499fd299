/* dome_base_fit.c - a tubercle's base fitted to its patch through the
 * image's formation (see dome_base_fit.h). */
#include "analysis/dome_base_fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/se_render.h"

#define SCALE_LO 0.70
#define SCALE_STEP 0.05
#define FILL_MAX 0.96 /* neighbours' bases touch at 1; se_render needs < 1 */
#define FILL_MIN 0.05
#define MEAN_MAX 64   /* tubercles averaged for the weights */
#define NW (FS_SE_NCOMP + 1)
/* the formation searched on every SEARCH_STRIDE-th fill (see the search) */
#define SEARCH_STRIDE 1

/* Gaussian blur of the (2 sh + 1)^2 window src into the centred
 * (2 half + 1)^2 crop dst, rows then columns (tmp: (2 sh + 1) x
 * (2 half + 1) floats). */
static void blur_crop(const float *src, int sh, int half, double sigma, float *tmp, float *dst)
{
	int sw = 2 * sh + 1, cw = 2 * half + 1, off = sh - half;
	int kr = sigma > 0 ? (int)ceil(3 * sigma) : 0;
	if (kr > off)
		kr = off;
	double k[2 * 64 + 1], ks = 0;
	if (kr > 64)
		kr = 64;
	for (int i = -kr; i <= kr; i++)
		ks += k[i + kr] = sigma > 0 ? exp(-0.5 * i * i / (sigma * sigma)) : 1;
	for (int i = 0; i <= 2 * kr; i++)
		k[i] /= ks;
	for (int y = 0; y < sw; y++)
		for (int x = 0; x < cw; x++) {
			double a = 0;
			const float *s = src + (size_t)y * sw + x + off - kr;
			for (int i = 0; i <= 2 * kr; i++)
				a += k[i] * s[i];
			tmp[(size_t)y * cw + x] = (float)a;
		}
	for (int y = 0; y < cw; y++)
		for (int x = 0; x < cw; x++) {
			double a = 0;
			for (int i = 0; i <= 2 * kr; i++)
				a += k[i] * tmp[(size_t)(y + off - kr + i) * cw + x];
			dst[(size_t)y * cw + x] = (float)a;
		}
}

/* Bilinear value of a (2 half + 1)^2 grid at (u, v) from its centre. */
static double grid_at(const float *g, int half, double u, double v)
{
	int cw = 2 * half + 1;
	double x = u + half, y = v + half;
	int x0 = (int)floor(x), y0 = (int)floor(y);
	if (x0 < 0)
		x0 = 0;
	if (y0 < 0)
		y0 = 0;
	if (x0 > cw - 2)
		x0 = cw - 2;
	if (y0 > cw - 2)
		y0 = cw - 2;
	double fx = x - x0, fy = y - y0;
	const float *d = g + (size_t)y0 * cw + x0;
	return (d[0] * (1 - fx) + d[1] * fx) * (1 - fy) + (d[cw] * (1 - fx) + d[cw + 1] * fx) * fy;
}

/* The image at the sample points around (x, y): 1 when they leave the
 * image (nothing written). Inside, bilinear without clamping. */
static int sample_obs(const fs_dome_tpl *t, const fs_image *img, double x, double y, double *o)
{
	double r = t->rfit + 1;
	if (!(x - r >= 0 && y - r >= 0 && x + r < img->width - 1 && y + r < img->height - 1))
		return 1;
	int w = img->width;
	for (size_t i = 0; i < t->npts; i++) {
		double px = x + t->dx[i], py = y + t->dy[i];
		int x0 = (int)px, y0 = (int)py;
		double fx = px - x0, fy = py - y0;
		const float *d = img->data + (size_t)y0 * w + x0;
		o[i] = (d[0] * (1 - fx) + d[1] * fx) * (1 - fy) + (d[w] * (1 - fx) + d[w + 1] * fx) * fy;
	}
	return 0;
}

/* Least squares with a tiny ridge (a component that vanishes, e.g. no
 * shadow, must not make it singular): A is n x (n + 1), augmented. */
static void solve_small(double A[NW][NW + 1], int n, double *x)
{
	for (int i = 0; i < n; i++)
		A[i][i] += 1e-9 * (A[i][i] + 1);
	for (int i = 0; i < n; i++) {
		int piv = i;
		for (int r = i + 1; r < n; r++)
			if (fabs(A[r][i]) > fabs(A[piv][i]))
				piv = r;
		for (int j = 0; j <= n && piv != i; j++) {
			double s = A[i][j];
			A[i][j] = A[piv][j];
			A[piv][j] = s;
		}
		for (int r = i + 1; r < n; r++) {
			double f = A[r][i] / A[i][i];
			for (int j = i; j <= n; j++)
				A[r][j] -= f * A[i][j];
		}
	}
	for (int i = n - 1; i >= 0; i--) {
		double s = A[i][n];
		for (int j = i + 1; j < n; j++)
			s -= A[i][j] * x[j];
		x[i] = s / A[i][i];
	}
}

void fs_dome_tpl_free(fs_dome_tpl *t)
{
	if (!t)
		return;
	free(t->dx);
	free(t->dy);
	free(t->t);
	memset(t, 0, sizeof *t);
}

/* The sample points: a square grid of step sp px inside the disc. */
static int make_points(fs_dome_tpl *t, double sp)
{
	int r = (int)floor(t->rfit / sp);
	size_t cap = (size_t)(2 * r + 1) * (2 * r + 1);
	t->dx = malloc(cap * sizeof *t->dx);
	t->dy = malloc(cap * sizeof *t->dy);
	if (!t->dx || !t->dy)
		return -1;
	t->npts = 0;
	for (int j = -r; j <= r; j++)
		for (int i = -r; i <= r; i++)
			if (hypot(i * sp, j * sp) <= t->rfit) {
				t->dx[t->npts] = (float)(i * sp);
				t->dy[t->npts++] = (float)(j * sp);
			}
	return 0;
}

/* The geometries searched (the formation fit's own are read at a fill
 * held at the base rule's median, which is off where that rule is: its
 * h/R and profile then are too). */
static const double HR[] = {0.2, 0.4, 0.7, 1.0};
static const double PROF[] = {0, 1, 2};
#define NHR (int)(sizeof HR / sizeof HR[0])
#define NPROF (int)(sizeof PROF / sizeof PROF[0])
/* The blurs searched, times the formation fit's (which includes the
 * scatter of the centres it averaged around: a tubercle's own patch is
 * sharper, or the fit's blur traded against a wrong fill). */
static const double BLURF[] = {0.5, 0.75, 1.0, 1.3, 1.7};
#define NBLUR (int)(sizeof BLURF / sizeof BLURF[0])
/* The shadow's elevations searched (the formation fit's own was read at
 * centres off the domes' and is as unreliable as its azimuth there). */
static const double ELEV_DEG[] = {25, 40, 55};
#define NELEV (int)(sizeof ELEV_DEG / sizeof ELEV_DEG[0])
#define NLIN FS_SE_SHADOW /* yield, the two slopes, edge */

/* One formation tried: geometry, blur, shadow (-1 none). */
typedef struct form {
	int h, p, b, e;
} form;

/* What rendering needs, and the fields of the geometry last rendered
 * (one per fill, unblurred). */
typedef struct rgrid {
	int gr, half, sh, reach;
	double g2p, sg[NBLUR];
	int h, p; /* the geometry in fld; -1 none */
	const fs_dome_tpl *of; /* whose fills fld holds */
	fs_se_field fld[FS_DOME_TPL_NFILL];
	float *shadow[NELEV][FS_DOME_TPL_NFILL]; /* each fill's shadowed yield per
						     * elevation, unblurred */
	int shaded[NELEV][FS_DOME_TPL_NFILL]; /* 1 when computed for fld */
	double az; /* the detector's azimuth, once read */
	int az_set;
	float *tmp, *bl;
} rgrid;

/* Renders geometry (h, p) at every fill of t into r->fld, unless there. */
static int render_geom(const fs_dome_tpl *t, const fs_dome_fit *f, int h, int p, rgrid *r)
{
	if (r->h == h && r->p == p && r->of == t)
		return 0;
	for (int k = 0; k < t->nk; k++) {
		fs_se_geom g = {t->fill[k], HR[h], PROF[p], f->angle};
		if (fs_se_render(&g, r->gr, r->sh, r->reach, &r->fld[k]))
			return -1; /* the arguments were checked: memory */
		for (int e = 0; e < NELEV; e++)
			r->shaded[e][k] = 0;
	}
	r->az_set = 0;
	r->of = t;
	r->h = h;
	r->p = p;
	return 0;
}

/* Field k's shadowed yield for elevation e (computed unless there);
 * NULL on out of memory. */
static const float *shade(rgrid *r, int k, int e)
{
	if (r->shaded[e][k])
		return r->shadow[e][k];
	size_t sw = (size_t)(2 * r->sh + 1);
	if (!r->shadow[e][k] && !(r->shadow[e][k] = malloc(sw * sw * sizeof(float))))
		return NULL;
	fs_se_shadow(&r->fld[k], r->az, ELEV_DEG[e] * M_PI / 180);
	memcpy(r->shadow[e][k], r->fld[k].c[FS_SE_SHADOW], sw * sw * sizeof(float));
	r->shaded[e][k] = 1;
	return r->shadow[e][k];
}

/* src blurred by blur b and sampled at t's points into dst. */
static void blur_sample(const fs_dome_tpl *t, rgrid *r, const float *src, int b, float *dst)
{
	blur_crop(src, r->sh, r->half, r->sg[b], r->tmp, r->bl);
	for (size_t i = 0; i < t->npts; i++)
		dst[i] = (float)grid_at(r->bl, r->half, t->dx[i] * r->g2p, t->dy[i] * r->g2p);
}

/* Least squares of v on the nc sampled components c[] and a constant;
 * w gets nc + 1 weights (the constant last); returns the residual sum
 * of squares. */
static double solve_on(const float *const *c, int nc, size_t np, const double *v, double *w)
{
	double A[NW][NW + 1], x[NW];
	int n1 = nc + 1;
	memset(A, 0, sizeof A);
	for (size_t i = 0; i < np; i++) {
		for (int j = 0; j < nc; j++)
			x[j] = c[j][i];
		x[nc] = 1;
		for (int a = 0; a < n1; a++) {
			for (int q = 0; q <= a; q++)
				A[a][q] += x[a] * x[q];
			A[a][n1] += x[a] * v[i];
		}
	}
	for (int a = 0; a < n1; a++)
		for (int q = a + 1; q < n1; q++)
			A[a][q] = A[q][a];
	solve_small(A, n1, w);
	double rss = 0;
	for (size_t i = 0; i < np; i++) {
		double m = w[nc] - v[i];
		for (int j = 0; j < nc; j++)
			m += w[j] * c[j][i];
		rss += m * m;
	}
	return rss;
}

static void score_all(const fs_dome_tpl *t, const double *o, double *sc, double *gain, double *offs);

/* The sum over the patches obs (nobs x npts) of their best fill's 1 - R^2. */
static double score_patches(const fs_dome_tpl *t, const double *obs, size_t nobs)
{
	double sum = 0, sc[FS_DOME_TPL_NFILL], g[FS_DOME_TPL_NFILL], of[FS_DOME_TPL_NFILL];
	for (size_t q = 0; q < nobs; q++) {
		score_all(t, obs + q * t->npts, sc, g, of);
		double b = 1;
		for (int k = 0; k < t->nk; k++)
			b = fmin(b, sc[k]);
		sum += b;
	}
	return sum;
}

/* The templates of geometry fm->h, fm->p at blur fm->b: every fill's
 * components blurred and sampled (cs: nk x (NLIN + NELEV) x npts), the
 * weights solved on the mean patch at each fill and those of the fill
 * that fits it best kept (one formation for every size); the shadow at
 * each elevation (for the azimuth the geometry's unshadowed weights read)
 * kept when it fits better and darkens (search_e; else fm->e's). Sets
 * fm->e and t's templates; returns 1 when one is flat, -1 on out of
 * memory. */
static int make_templates(fs_dome_tpl *t, const fs_dome_fit *f, form *fm, int search_e, const double *mean, rgrid *r,
			  float *cs)
{
	size_t np = t->npts;
	int nca = NLIN + NELEV;
	if (render_geom(t, f, fm->h, fm->p, r))
		return -1;
	for (int k = 0; k < t->nk; k++)
		for (int j = 0; j < NLIN; j++)
			blur_sample(t, r, r->fld[k].c[j], fm->b, cs + ((size_t)k * nca + j) * np);
	const float *c[NW];
	double w[NW], wb[NW] = {0}, brss = INFINITY;
	int bk = t->nk / 2;
	if (!r->az_set) {
		/* the detector's azimuth as this geometry's slopes read it,
		 * for its shadows */
		for (int j = 0; j < NLIN; j++)
			c[j] = cs + ((size_t)bk * nca + j) * np;
		solve_on(c, NLIN, np, mean, w);
		r->az = atan2(w[FS_SE_SLOPE_Y], w[FS_SE_SLOPE_X]);
		r->az_set = 1;
	}
	int e0 = search_e ? -1 : fm->e, e1 = search_e ? NELEV - 1 : fm->e;
	for (int e = e0; e <= e1; e++) {
		if (e >= 0)
			for (int k = 0; k < t->nk; k++) {
				const float *sh = shade(r, k, e);
				if (!sh)
					return -1;
				blur_sample(t, r, sh, fm->b, cs + ((size_t)k * nca + NLIN + e) * np);
			}
		int nc = e >= 0 ? NLIN + 1 : NLIN;
		for (int k = 0; k < t->nk; k++) {
			for (int j = 0; j < NLIN; j++)
				c[j] = cs + ((size_t)k * nca + j) * np;
			c[NLIN] = cs + ((size_t)k * nca + NLIN + (e >= 0 ? e : 0)) * np;
			double rss = solve_on(c, nc, np, mean, w);
			/* a shadow brighter than the lit surface is no shadow */
			if (rss < brss && (e < 0 || w[NLIN] < 0)) {
				brss = rss;
				memcpy(wb, w, sizeof w);
				if (e < 0)
					wb[NLIN] = 0;
				fm->e = e;
			}
		}
	}
	if (!isfinite(brss))
		return 1;
	int nc = fm->e >= 0 ? NLIN + 1 : NLIN;
	for (int k = 0; k < t->nk; k++) {
		float *tk = t->t + (size_t)k * np;
		const float *ck = cs + (size_t)k * nca * np;
		for (size_t i = 0; i < np; i++) {
			double v = 0;
			for (int j = 0; j < NLIN; j++)
				v += wb[j] * ck[(size_t)j * np + i];
			if (nc > NLIN)
				v += wb[NLIN] * ck[(size_t)(NLIN + fm->e) * np + i];
			tk[i] = (float)v;
		}
		double s = 0, s2 = 0;
		for (size_t i = 0; i < np; i++) {
			s += tk[i];
			s2 += (double)tk[i] * tk[i];
		}
		t->st[k] = s;
		t->stt[k] = s2;
		if (!(s2 - s * s / np > 1e-12))
			return 1;
	}
	return 0;
}

/* The index of the grid value nearest v. */
static int nearest(const double *grid, int n, double v)
{
	int b = 0;
	for (int i = 1; i < n; i++)
		if (fabs(grid[i] - v) < fabs(grid[b] - v))
			b = i;
	return b;
}

int fs_dome_tpl_build(const fs_image *img, const fs_dome_fit *f, double fill0, const double *xs,
		      const double *ys, size_t n, int search, fs_dome_tpl *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof *t);
	if (!(f->pitch >= 6) || !(fill0 > FILL_MIN) || n < 8)
		return 1;
	int rc = -1;
	rgrid r = {.h = -1, .p = -1, .of = NULL};
	float *tbest = NULL, *cs = NULL;
	double *mean = NULL, *obs = NULL;
	t->pitch = f->pitch;
	t->rfit = 0.5 * f->pitch;
	t->shift = fmax(0.5, 0.04 * f->pitch);
	/* the fills: 0.70..1.30 of the median (a median above what a lattice
	 * can hold read as 0.85), where the lattice can be drawn */
	double fc = fmin(fill0, 0.85);
	for (int k = 0; k < FS_DOME_TPL_NFILL; k++) {
		double fl = fc * (SCALE_LO + SCALE_STEP * k);
		if (fl >= FILL_MIN && fl <= FILL_MAX)
			t->fill[t->nk++] = fl;
	}
	if (t->nk < 3) {
		fs_dome_tpl_free(t);
		return 1;
	}
	/* the render grid: two samples a pixel on small pitches, at most 32
	 * a pitch (the patch is read at 24 points a pitch at most) */
	r.gr = (int)lround(2 * f->pitch);
	r.gr = r.gr < 24 ? 24 : r.gr > 48 ? 48 : r.gr;
	r.g2p = r.gr / f->pitch;
	r.half = (int)ceil(0.5 * r.gr) + 2;
	for (int b = 0; b < NBLUR; b++)
		r.sg[b] = f->blur_px * r.g2p * BLURF[b];
	r.sh = r.half + (int)ceil(3 * r.sg[search ? NBLUR - 1 : NBLUR / 2]) + 1;
	r.reach = (int)ceil(0.5 * FILL_MAX * r.gr * HR[NHR - 1] / tan(ELEV_DEG[0] * M_PI / 180)) + 1;
	if (make_points(t, f->pitch > 32 ? f->pitch / 32 : 1))
		goto oom;
	size_t np = t->npts, cw = (size_t)(2 * r.half + 1), sw = (size_t)(2 * r.sh + 1);
	r.tmp = malloc(sw * cw * sizeof *r.tmp);
	r.bl = malloc(cw * cw * sizeof *r.bl);
	cs = malloc((size_t)t->nk * (NLIN + NELEV) * np * sizeof *cs);
	mean = calloc(np, sizeof *mean);
	obs = malloc((size_t)MEAN_MAX * np * sizeof *obs);
	t->t = malloc((size_t)t->nk * np * sizeof *t->t);
	tbest = malloc((size_t)t->nk * np * sizeof *tbest);
	if (!r.tmp || !r.bl || !cs || !mean || !obs || !t->t || !tbest)
		goto oom;
	/* the patches of up to 64 tubercles spread over the image, and their
	 * mean */
	size_t stride = n > MEAN_MAX ? (n + MEAN_MAX - 1) / MEAN_MAX : 1, used = 0;
	for (size_t q = 0; q < n && used < MEAN_MAX; q += stride) {
		double *o = obs + used * np;
		if (sample_obs(t, img, xs[q], ys[q], o))
			continue;
		for (size_t i = 0; i < np; i++)
			mean[i] += o[i];
		used++;
	}
	if (used < 8) {
		rc = 1;
		goto done;
	}
	for (size_t i = 0; i < np; i++)
		mean[i] /= used;
	/* The formation whose templates read the patches best, each patch at
	 * its own fill, gain and offset (as the tubercles will be read): from
	 * the formation fit's geometry and blur, the blur searched, then the
	 * geometry at that blur, then the blur again (coordinate by
	 * coordinate: a twelfth of the full search's renders). Without
	 * search, the formation fit's own. */
	form cur = {nearest(HR, NHR, f->h_over_r), nearest(PROF, NPROF, f->profile), NBLUR / 2, -1};
	double best = INFINITY;
	if (search) {
		/* on every SEARCH_STRIDE-th fill (every fill: every other
		 * one, on a grid of 24 samples a pitch, was a fifth of the
		 * cost but read the 64 corner scenes' mean S within 3 % in 23
		 * instead of 29) */
		fs_dome_tpl ts = *t;
		ts.nk = 0;
		for (int k = 0; k < t->nk; k += SEARCH_STRIDE)
			ts.fill[ts.nk++] = t->fill[k];
		ts.t = tbest;
		for (int h = 0; h < NHR; h++)
			for (int p = 0; p < NPROF; p++)
				for (int b = 0; b < NBLUR; b++) {
					form fm = {h, p, b, -1};
					int mt = make_templates(&ts, f, &fm, 1, mean, &r, cs);
					if (mt < 0)
						goto oom;
					if (mt > 0)
						continue;
					double sc = score_patches(&ts, obs, used);
					if (sc < best) {
						best = sc;
						cur = fm;
					}
				}
		if (!isfinite(best)) {
			rc = 1;
			goto done;
		}
	}
	/* the chosen formation's templates at every fill */
	int mt = make_templates(t, f, &cur, !search, mean, &r, cs);
	if (mt < 0)
		goto oom;
	if (mt > 0) {
		rc = 1;
		goto done;
	}
	best = score_patches(t, obs, used);
	t->score = best / used;
	t->h_over_r = HR[cur.h];
	t->profile = PROF[cur.p];
	t->blur = f->blur_px * BLURF[cur.b];
	t->elevation = cur.e >= 0 ? ELEV_DEG[cur.e] * M_PI / 180 : 0;
	rc = 0;
	goto done;
oom:
	snprintf(err, errlen, "dome template: out of memory");
done:
	for (int k = 0; k < FS_DOME_TPL_NFILL; k++) {
		fs_se_field_free(&r.fld[k]);
		for (int e = 0; e < NELEV; e++)
			free(r.shadow[e][k]);
	}
	free(r.tmp);
	free(r.bl);
	free(cs);
	free(tbest);
	free(mean);
	free(obs);
	if (rc)
		fs_dome_tpl_free(t);
	return rc;
}

/* 1 - R^2 of the patch o against every fill's template (after the best
 * gain and offset); gain[k] the gains. A fill whose template the patch
 * does not follow (gain <= 0) scores 1. */
static void score_all(const fs_dome_tpl *t, const double *o, double *sc, double *gain, double *offs)
{
	size_t np = t->npts;
	double so = 0, soo = 0;
	for (size_t i = 0; i < np; i++) {
		so += o[i];
		soo += o[i] * o[i];
	}
	double vo = soo - so * so / np;
	for (int k = 0; k < t->nk; k++) {
		const float *tk = t->t + (size_t)k * np;
		double sot = 0;
		for (size_t i = 0; i < np; i++)
			sot += o[i] * tk[i];
		double cov = sot - so * t->st[k] / np, vt = t->stt[k] - t->st[k] * t->st[k] / np;
		gain[k] = cov / vt;
		offs[k] = (so - gain[k] * t->st[k]) / np;
		sc[k] = vo > 1e-20 && cov > 0 ? 1 - cov * cov / (vt * vo) : 1;
	}
}

/* The best 1 - R^2 of the patch o over the templates k0 - 2 .. k0 + 2
 * (*k the best of them). */
static double score_near(const fs_dome_tpl *t, const double *o, int k0, int *k)
{
	size_t np = t->npts;
	double so = 0, soo = 0;
	for (size_t i = 0; i < np; i++) {
		so += o[i];
		soo += o[i] * o[i];
	}
	double vo = soo - so * so / np, best = 1;
	*k = k0;
	for (int q = k0 - 2; q <= k0 + 2; q++) {
		if (q < 0 || q >= t->nk)
			continue;
		const float *tk = t->t + (size_t)q * np;
		double sot = 0;
		for (size_t i = 0; i < np; i++)
			sot += o[i] * tk[i];
		double cov = sot - so * t->st[q] / np, vt = t->stt[q] - t->st[q] * t->st[q] / np;
		double sc = vo > 1e-20 && cov > 0 ? 1 - cov * cov / (vt * vo) : 1;
		if (sc < best) {
			best = sc;
			*k = q;
		}
	}
	return best;
}

int fs_dome_tpl_fit(const fs_dome_tpl *t, const fs_image *img, double x, double y, fs_dome_tfit *out)
{
	double *o = malloc(t->npts * sizeof *o);
	double sc[FS_DOME_TPL_NFILL], gain[FS_DOME_TPL_NFILL], offs[FS_DOME_TPL_NFILL];
	if (!o)
		return 1;
	if (sample_obs(t, img, x, y, o)) {
		free(o);
		return 1;
	}
	score_all(t, o, sc, gain, offs);
	int kb = 0;
	for (int k = 1; k < t->nk; k++)
		if (sc[k] < sc[kb])
			kb = k;
	/* the centre: the eight neighbours, each at the best of the fills
	 * near the best so far (a patch read off its centre fits a smaller
	 * dome best, and that dome's best centre is off too), the step
	 * halved each round (the start is the base rule's centre, off by a
	 * pixel or two where the detector's side is brighter) */
	double cx = x, cy = y, best = sc[kb], h = t->shift;
	for (int round = 0; round < 3; round++, h *= 0.5) {
		/* up to three steps of this size while they improve */
		for (int mv = 0; mv < 3; mv++) {
			double bx = cx, by = cy;
			for (int j = -1; j <= 1; j++)
				for (int i = -1; i <= 1; i++) {
					if (!i && !j)
						continue;
					if (sample_obs(t, img, cx + i * h, cy + j * h, o))
						continue;
					int kq;
					double s = score_near(t, o, kb, &kq);
					if (s < best) {
						best = s;
						kb = kq;
						bx = cx + i * h;
						by = cy + j * h;
					}
				}
			if (bx == cx && by == cy)
				break;
			cx = bx;
			cy = by;
		}
	}
	sample_obs(t, img, cx, cy, o);
	score_all(t, o, sc, gain, offs);
	kb = 0;
	for (int k = 1; k < t->nk; k++)
		if (sc[k] < sc[kb])
			kb = k;
	out->x = cx;
	out->y = cy;
	out->gain = gain[kb];
	out->offset = offs[kb];
	out->quality = fmin(1, fmax(0, 1 - sc[kb]));
	out->radius = NAN;
	free(o);
	if (kb == 0 || kb == t->nk - 1 || !(gain[kb] > 0))
		return 0;
	double a = sc[kb - 1], b = sc[kb], c = sc[kb + 1], d = a - 2 * b + c;
	double off = d > 0 ? 0.5 * (a - c) / d : 0;
	off = off < -0.5 ? -0.5 : off > 0.5 ? 0.5 : off;
	double fl = t->fill[kb] + off * (t->fill[kb + 1] - t->fill[kb - 1]) / 2;
	out->radius = 0.5 * fl * t->pitch;
	return 0;
}
