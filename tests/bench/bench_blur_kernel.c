/*
 * bench_blur_kernel - which part of the way a pixel image is made the
 * formation's forward model (analysis/se_render.h) leaves out when it
 * reads the image's blur from the mean patch of 4-px domes (issue 13;
 * docs/paper-figures.md, h43b). Asserts nothing.
 *
 * Why: h42l found that the formation fit's mean patch reads the blur only
 * to -0.05..+0.08 px about the TRUE centres, where the pixels hold it to
 * 0.001-0.002 px and h42a's level calibration needs ~0.01 px. The rule's
 * templates (dome_base_fit.c) take se_render's components, blur them with
 * one Gaussian and read them at the patch's points, while the mean patch
 * about many centres is made of pixels (each the integral of its 1-px
 * box) read bilinearly at sub-pixel phases (which, averaged over the
 * phases, is a tent of 1 px half width). Both are left to the Gaussian.
 *
 * Here the mean patch is taken on the simulator's own image (before the
 * rule's measurement smoothing) about the TRUE centres, and the model is
 * se_render's components of the simulator's own geometry (profile, h/R,
 * lattice angle, the true mean fill, the detector's direction for the
 * shadow) with every mixing weight solved at each blur, read through one
 * of four sampling kernels:
 *   point      the Gaussian alone (what the rule's templates do)
 *   box        the pixel's box (1 px)
 *   tent       the bilinear read's tent
 *   box+tent   both (a quadratic B-spline, 3 px wide)
 * and the blur (the Gaussian's sigma, px) searched where the mean patch
 * fits best (0.30-1.40 in 0.02 steps, then the parabola's vertex). With
 * box+tent the Gaussian stands for the beam's spot alone: the simulator
 * draws sqrt(beam^2 - 1/12) (0.746 px at its default 0.8) on top of the
 * box, so a forward model that is the image's formation reads 0.746 on
 * every scene, less the share of se_render's own 2 x 2 sub-samples
 * (0.0625 (pitch / G)^2 px^2: 0.727 at G 24, 0.744 at 64 on a pitch of
 * 16 px); what a scene reads beyond that is the model's misfit.
 * --set KEY=VALUE (sem_opts_keys.h) switches the simulator's pieces (the
 * continuous beam, beamc=1, is the physical spot; the default samples
 * the Gaussian on the pixel lattice, h40a).
 *
 * --grid G: se_render's samples a pitch (default 24, the templates'; its
 * 2 x 2 sub-samples a sample lie pitch / 2G px apart, so a finer grid
 * asks whether the grid's spacing and sub-sampling matter).
 *
 * Each line also gives the centres' sub-pixel phases' first Fourier
 * coefficient along x and y (0 when the phases are spread evenly, as the
 * tent assumes; the lattice at angle 0 with 0.32-px jitter is not).
 *
 * --edge-px CAP: the edge part clipped at CAP per image px (the
 * simulator's is 1.5) as h40b's fs_se_edge_px (se_render.h) makes it; se_render clips
 * per grid unit, 1.5 per px only at --grid 24 on a pitch of 16 px, so a
 * finer grid without this changes the edge's clip as well.
 *
 * --down K (odd): each grid sample the mean of K x K samples of a grid K
 * times finer (the cell integrated finely; se_render's own 2 x 2
 * sub-samples then sit within each fine sample): whether the grid's
 * spacing or its samples' integration is what a coarse grid gets wrong.
 *
 * --calibrate: h42a's calibration of the level reader with this model: a
 * "CALIB" line with the level read from the TRUE centres on detection's
 * measurement image (% of the true mean D), and the same times the
 * factor of the model's own rendered dome (a pixel image: box, not
 * tent; then the measurement smoothing), with the beam read through
 * box+tent and with the simulator's true beam.
 *
 * --rule (h44b): the same calibration made from the dome rule's OWN final
 * centres (detection as make test runs it) with the blur given as an
 * oracle (the simulator's beam, and that beam 0.01, 0.03, 0.05 px off
 * either way): one "RULE" line a scene instead of the blur readings
 * (run_rule says what each field is). The question (issue 13, groups A
 * and E): h43b's calibration took the 4-px domes home at the TRUE
 * centres; does it from where the rule's centres are, how precisely must
 * the blur be known, and what does it cost the scenes that pass today.
 * About 7 s of CPU a pitch-16 scene at --grid 64, 15 s a pitch-64 one.
 *
 * Usage: bench_blur_kernel [--seed-add N] [--set KEY=VALUE]... [--grid G] [--edge-px CAP] [--down K]
 * [--calibrate] [--rule [--true-self]] [SCENE...];
 * default the 4-px corner scenes A (2 6 18 22) and E (0 4 16 20). Prints
 * one line per scene: the blur read through each kernel and its misfit
 * share. About 1 s of CPU a scene with SEM_SCENE_CACHE.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/detect_methods.h"
#include "analysis/detect_offset.h"
#include "analysis/dome_measure.h"
#include "analysis/preprocess.h"
#include "analysis/se_render.h"
#include "scene_sets.h"
#include "sem_opts_keys.h"
#include "sem_scene.h"
#include "sem_score.h"

/* se_render's grid a pitch: the rule's templates' (dome_base_fit.c's
 * RENDER_G) unless --grid says otherwise */
static int RENDER_G = 24;
/* --edge-px CAP: the edge part's convexity clipped per image px (the
 * simulator's 1.5) instead of se_render's per grid unit, which is 1.5 per
 * px only at 24 samples a pitch of 16 px (h40b's fs_se_edge_px) */
static double edge_px;
/* --down K (odd): each grid sample the mean of K x K samples of a grid K
 * times finer, i.e. the cell integrated finely on the same grid */
static int down = 1;
static int calibrate;
#define NCOMP FS_SE_NCOMP
#define SUB 8 /* a kernel's quadrature points per px */

enum { K_POINT, K_BOX, K_TENT, K_BT, K_N };
static const char *KNAME[K_N] = {"point", "box", "tent", "box+tent"};

/* A sampling kernel's 1-D quadrature: offsets (px) and weights summing
 * to 1 (midpoints of SUB cells a px). */
static int kernel_1d(int kind, double *off, double *w)
{
	int n = 0;
	double half = kind == K_POINT ? 0 : kind == K_BOX ? 0.5 : kind == K_TENT ? 1 : 1.5, sum = 0;
	if (kind == K_POINT) {
		off[0] = 0;
		w[0] = 1;
		return 1;
	}
	int m = (int)lround(2 * half * SUB);
	for (int k = 0; k < m; k++) {
		double s = -half + (k + 0.5) / SUB, a = fabs(s), v;
		if (kind == K_BOX)
			v = 1;
		else if (kind == K_TENT)
			v = 1 - a;
		else /* the box convolved with the tent: the quadratic B-spline */
			v = a <= 0.5 ? 0.75 - a * a : 0.5 * (1.5 - a) * (1.5 - a);
		off[n] = s;
		w[n++] = v;
		sum += v;
	}
	for (int k = 0; k < n; k++)
		w[k] /= sum;
	return n;
}

/* Bilinear value of a (2 half + 1)^2 grid at (u, v) grid units from its
 * centre, clamped to its last cell. */
static double grid_at(const float *g, int half, double u, double v)
{
	int cw = 2 * half + 1;
	double x = u + half, y = v + half;
	int x0 = (int)floor(x), y0 = (int)floor(y);
	x0 = x0 < 0 ? 0 : x0 > cw - 2 ? cw - 2 : x0;
	y0 = y0 < 0 ? 0 : y0 > cw - 2 ? cw - 2 : y0;
	double fx = x - x0, fy = y - y0;
	const float *p = g + (size_t)y0 * cw + x0;
	return (1 - fy) * ((1 - fx) * p[0] + fx * p[1]) + fy * ((1 - fx) * p[cw] + fx * p[cw + 1]);
}

/* A Gaussian of sigma (grid units) over a (2 h + 1)^2 grid, rows then
 * columns, the borders clamped. */
static void blur_grid(const float *src, int h, double sigma, float *tmp, float *dst)
{
	int w = 2 * h + 1, kr = sigma > 0 ? (int)ceil(4 * sigma) : 0;
	double *k = malloc((size_t)(2 * kr + 1) * sizeof *k), ks = 0;
	if (!k)
		return;
	for (int i = -kr; i <= kr; i++)
		ks += k[i + kr] = sigma > 0 ? exp(-0.5 * i * i / (sigma * sigma)) : 1;
	for (int i = 0; i <= 2 * kr; i++)
		k[i] /= ks;
	for (int y = 0; y < w; y++)
		for (int x = 0; x < w; x++) {
			double a = 0;
			for (int i = -kr; i <= kr; i++) {
				int xx = x + i < 0 ? 0 : x + i >= w ? w - 1 : x + i;
				a += k[i + kr] * src[(size_t)y * w + xx];
			}
			tmp[(size_t)y * w + x] = (float)a;
		}
	for (int y = 0; y < w; y++)
		for (int x = 0; x < w; x++) {
			double a = 0;
			for (int i = -kr; i <= kr; i++) {
				int yy = y + i < 0 ? 0 : y + i >= w ? w - 1 : y + i;
				a += k[i + kr] * tmp[(size_t)yy * w + x];
			}
			dst[(size_t)y * w + x] = (float)a;
		}
	free(k);
}

/* Least squares of y on the columns c (nc of np) and a constant; the
 * residual sum of squares. Columns with no variation are left out. */
static double lsq_rss(float *const *c, int nc, size_t np, const double *y, double *wout)
{
	double A[NCOMP + 1][NCOMP + 2];
	int m = 0;
	const float *col[NCOMP + 1];
	int idx[NCOMP + 1];
	for (int j = 0; j < nc; j++) {
		double s = 0, s2 = 0;
		for (size_t i = 0; i < np; i++) {
			s += c[j][i];
			s2 += (double)c[j][i] * c[j][i];
		}
		if (s2 - s * s / np > 1e-12 * np) {
			idx[m] = j;
			col[m++] = c[j];
		}
	}
	int n1 = m + 1;
	memset(A, 0, sizeof A);
	for (size_t i = 0; i < np; i++) {
		double x[NCOMP + 1];
		for (int j = 0; j < m; j++)
			x[j] = col[j][i];
		x[m] = 1;
		for (int a = 0; a < n1; a++) {
			for (int b = 0; b < n1; b++)
				A[a][b] += x[a] * x[b];
			A[a][n1] += x[a] * y[i];
		}
	}
	/* Gaussian elimination with partial pivoting */
	for (int p = 0; p < n1; p++) {
		int best = p;
		for (int r = p + 1; r < n1; r++)
			if (fabs(A[r][p]) > fabs(A[best][p]))
				best = r;
		if (!(fabs(A[best][p]) > 1e-300))
			return NAN;
		for (int q = 0; q <= n1; q++) {
			double t = A[p][q];
			A[p][q] = A[best][q];
			A[best][q] = t;
		}
		for (int r = p + 1; r < n1; r++) {
			double f = A[r][p] / A[p][p];
			for (int q = p; q <= n1; q++)
				A[r][q] -= f * A[p][q];
		}
	}
	double wv[NCOMP + 1];
	for (int p = n1 - 1; p >= 0; p--) {
		double s = A[p][n1];
		for (int q = p + 1; q < n1; q++)
			s -= A[p][q] * wv[q];
		wv[p] = s / A[p][p];
	}
	if (wout) {
		for (int j = 0; j <= nc; j++)
			wout[j] = 0;
		for (int j = 0; j < m; j++)
			wout[idx[j]] = wv[j];
		wout[nc] = wv[m];
	}
	double rss = 0;
	for (size_t i = 0; i < np; i++) {
		double v = wv[m] - y[i];
		for (int j = 0; j < m; j++)
			v += wv[j] * col[j][i];
		rss += v * v;
	}
	return rss;
}

typedef struct model {
	fs_se_field fld;
	int sh;          /* the rendered window's half width, grid units */
	double g2p;      /* grid units a px */
	size_t np;       /* the patch's points */
	int *dx, *dy;    /* their whole-pixel offsets */
	double *mean;    /* the mean patch */
	double vv;       /* its sum of squares about its mean */
	float *tmp, *bl; /* a blurred component */
	float *cs[NCOMP];
	double w[NCOMP + 1]; /* the last misfit's weights, the constant last */
} model;

/* The misfit share of the mean patch against the components blurred by
 * sigma (px) and read through kernel kind, every weight solved. */
static double misfit(model *m, double sigma, int kind)
{
	double off[3 * SUB], w[3 * SUB];
	int nk = kernel_1d(kind, off, w);
	for (int j = 0; j < NCOMP; j++) {
		blur_grid(m->fld.c[j], m->sh, sigma * m->g2p, m->tmp, m->bl);
		for (size_t i = 0; i < m->np; i++) {
			double v = 0;
			for (int b = 0; b < nk; b++)
				for (int a = 0; a < nk; a++)
					v += w[a] * w[b] *
					     grid_at(m->bl, m->sh, (m->dx[i] + off[a]) * m->g2p, (m->dy[i] + off[b]) * m->g2p);
			m->cs[j][i] = (float)v;
		}
	}
	return lsq_rss(m->cs, NCOMP, m->np, m->mean, m->w) / m->vv;
}

/* The sigma (px) of least misfit through kind: 0.30-1.40 in 0.02 steps,
 * then the vertex of the parabola through the best step and its two
 * neighbours; *mis the misfit there (the best step's). */
static double read_blur(model *m, int kind, double *mis)
{
	enum { NS = 56 };
	double r[NS];
	int kb = 0;
	for (int q = 0; q < NS; q++) {
		r[q] = misfit(m, 0.30 + 0.02 * q, kind);
		if (r[q] < r[kb])
			kb = q;
	}
	*mis = r[kb];
	double s = 0.30 + 0.02 * kb;
	if (kb > 0 && kb < NS - 1) {
		double a = r[kb - 1], b = r[kb], c = r[kb + 1], den = a - 2 * b + c;
		if (den > 0)
			s += 0.01 * (a - c) / den;
	}
	return s;
}

/* The detector's look a render needs (the simulator's, or the one a
 * formation fit read): the shadow's azimuth and elevation (0: no shadow
 * term, as fs_dome_fit's elevation says). */
typedef struct look {
	double azimuth, elevation;
} look;

/* How far (grid samples) the shadow of g's domes reaches beyond the
 * window seen from lk. */
static int look_reach(const look *lk, const fs_se_geom *g)
{
	return lk->elevation > 0 ? (int)ceil(0.5 * RENDER_G * g->h_over_r / tan(lk->elevation)) + 1 : 1;
}

/* --calibrate: h42a's calibration with this model. The lattice about one
 * site rendered as a pixel image (the components mixed with the weights
 * m->w solved at blur sigma, blurred by sigma, each pixel its box) at four
 * sub-pixel phases, smoothed as detection's measurement image is
 * (msig), and read by the level's reader from the site: the true base
 * radius over the mean reading is the factor. NAN when a read fails. */
static double calib_factor(model *m, const fs_se_geom *g, const look *lk, double pitch, double sigma, double msig,
			   double r0, double r1)
{
	int S = 2 * (int)ceil(1.5 * pitch), shc = (int)ceil((0.75 * S + 2 + 4 * 1.4) * m->g2p) + 2;
	int reach = look_reach(lk, g);
	size_t nw = (size_t)(2 * shc + 1) * (2 * shc + 1);
	fs_se_field fc;
	memset(&fc, 0, sizeof fc);
	float *tmp = malloc(nw * sizeof *tmp), *bl = malloc(nw * sizeof *bl);
	fs_image *img[4] = {NULL};
	double res = NAN, off[3 * SUB], w[3 * SUB], sum = 0;
	int nk = kernel_1d(K_BOX, off, w), got = 0;
	if (!tmp || !bl || fs_se_render(g, RENDER_G, shc, reach, &fc))
		goto out;
	if (lk->elevation > 0)
		fs_se_shadow(&fc, lk->azimuth, lk->elevation);
	if (edge_px > 0 && fs_se_edge_px(g, RENDER_G, shc, pitch / RENDER_G, edge_px, fc.c[FS_SE_EDGE]))
		goto out;
	for (int ph = 0; ph < 4; ph++) {
		if (!(img[ph] = fs_image_new(S, S)))
			goto out;
		for (int i = 0; i < S * S; i++)
			img[ph]->data[i] = (float)m->w[NCOMP];
	}
	for (int j = 0; j < NCOMP; j++) {
		if (m->w[j] == 0)
			continue;
		blur_grid(fc.c[j], shc, sigma * m->g2p, tmp, bl);
		for (int ph = 0; ph < 4; ph++) {
			double cx = 0.5 * S + 0.5 * (ph & 1), cy = 0.5 * S + 0.5 * (ph >> 1);
			for (int y = 0; y < S; y++)
				for (int x = 0; x < S; x++) {
					double v = 0;
					for (int b = 0; b < nk; b++)
						for (int a = 0; a < nk; a++)
							v += w[a] * w[b] *
							     grid_at(bl, shc, (x - cx + off[a]) * m->g2p, (y - cy + off[b]) * m->g2p);
					img[ph]->data[(size_t)y * S + x] += (float)(m->w[j] * v);
				}
		}
	}
	char err[128];
	for (int ph = 0; ph < 4; ph++) {
		double cx = 0.5 * S + 0.5 * (ph & 1), cy = 0.5 * S + 0.5 * (ph >> 1);
		fs_dome_base_trace tr;
		if (fs_gaussian_blur(img[ph], msig, err, sizeof err))
			goto out;
		if (!fs_dome_measure_base_trace(img[ph], cx, cy, r0, r1, &tr) && tr.radius > 0) {
			sum += tr.radius;
			got++;
		}
	}
	if (got == 4)
		res = 0.5 * g->fill * RENDER_G / m->g2p / (sum / 4);
out:
	for (int ph = 0; ph < 4; ph++)
		fs_image_free(img[ph]);
	fs_se_field_free(&fc);
	free(tmp);
	free(bl);
	return res;
}

static sem_opts_args set_args;

/* The patch's points (whole pixels within half a pitch of the centre)
 * into m; 0, or -1 out of memory. */
static int model_points(model *m, double pitch)
{
	double rp = 0.5 * pitch;
	int ri = (int)floor(rp);
	m->dx = malloc((size_t)(2 * ri + 1) * (2 * ri + 1) * sizeof *m->dx);
	m->dy = malloc((size_t)(2 * ri + 1) * (2 * ri + 1) * sizeof *m->dy);
	if (!m->dx || !m->dy)
		return -1;
	m->np = 0;
	for (int y = -ri; y <= ri; y++)
		for (int x = -ri; x <= ri; x++)
			if (x * x + y * y <= rp * rp) {
				m->dx[m->np] = x;
				m->dy[m->np++] = y;
			}
	m->mean = calloc(m->np, sizeof *m->mean);
	return m->mean ? 0 : -1;
}

/* The mean patch of img about the n centres (xs, ys) whose patch lies
 * whole inside (read bilinearly as the rule's sample_obs reads it) into
 * m->mean and m->vv; the centres used, the first Fourier coefficient of
 * their sub-pixel phases along x and y (c1x, c1y; may be NULL) and, when
 * ds is given, the sum of those centres' ds (dsum). */
static size_t model_patch(model *m, const fs_image *img, double pitch, const double *xs, const double *ys,
			  const double *ds, size_t n, double *dsum, double *c1x, double *c1y)
{
	int ri = (int)floor(0.5 * pitch), W = img->width, H = img->height;
	size_t used = 0;
	double sd = 0, cx1 = 0, cy1 = 0;
	memset(m->mean, 0, m->np * sizeof *m->mean);
	for (size_t j = 0; j < n; j++) {
		double x = xs[j], y = ys[j];
		if (x - ri - 1 < 0 || y - ri - 1 < 0 || x + ri + 1 >= W - 1 || y + ri + 1 >= H - 1)
			continue;
		for (size_t i = 0; i < m->np; i++) {
			double px = x + m->dx[i], py = y + m->dy[i];
			int x0 = (int)floor(px), y0 = (int)floor(py);
			double fx = px - x0, fy = py - y0;
			const float *p = img->data + (size_t)y0 * W + x0;
			m->mean[i] += (1 - fy) * ((1 - fx) * p[0] + fx * p[1]) + fy * ((1 - fx) * p[W] + fx * p[W + 1]);
		}
		if (ds)
			sd += ds[j];
		/* the centres' sub-pixel phases: the tent stands for their
		 * bilinear reads only where the phases are spread evenly (their
		 * first Fourier coefficient near 0) */
		cx1 += cos(2 * M_PI * (x - floor(x)));
		cy1 += cos(2 * M_PI * (y - floor(y)));
		used++;
	}
	if (dsum)
		*dsum = sd;
	if (c1x)
		*c1x = cx1;
	if (c1y)
		*c1y = cy1;
	if (!used)
		return 0;
	double mm = 0;
	for (size_t i = 0; i < m->np; i++)
		mm += m->mean[i] /= used;
	mm /= m->np;
	m->vv = 0;
	for (size_t i = 0; i < m->np; i++)
		m->vv += (m->mean[i] - mm) * (m->mean[i] - mm);
	return used;
}

/* g's components seen from lk on se_render's grid into m, wide enough for
 * the patch, the box+tent kernel and 4 sigma of 1.4 px (--edge-px and
 * --down as the options say), with the work arrays the misfit needs the
 * first time. 0, or -1 (a failed render or out of memory). */
static int model_field(model *m, const fs_se_geom *g, const look *lk, double pitch)
{
	double rp = 0.5 * pitch;
	m->g2p = RENDER_G / pitch;
	m->sh = (int)ceil((rp + 1.5 + 4 * 1.4) * m->g2p) + 2;
	int reach = look_reach(lk, g);
	if (fs_se_render(g, RENDER_G, m->sh, reach, &m->fld))
		return -1;
	if (lk->elevation > 0)
		fs_se_shadow(&m->fld, lk->azimuth, lk->elevation);
	if (edge_px > 0 && fs_se_edge_px(g, RENDER_G, m->sh, pitch / RENDER_G, edge_px, m->fld.c[FS_SE_EDGE]))
		return -1;
	if (down > 1) {
		/* the same window on a grid down times finer, its cells averaged */
		fs_se_field ff;
		memset(&ff, 0, sizeof ff);
		int fh = m->sh * down + down / 2, fw = 2 * fh + 1, cw = 2 * m->sh + 1;
		int bad = fs_se_render(g, RENDER_G * down, fh, reach * down, &ff);
		if (!bad) {
			if (lk->elevation > 0)
				fs_se_shadow(&ff, lk->azimuth, lk->elevation);
			if (edge_px > 0)
				bad = fs_se_edge_px(g, RENDER_G * down, fh, pitch / (RENDER_G * down), edge_px,
						      ff.c[FS_SE_EDGE]);
		}
		for (int j = 0; !bad && j < NCOMP; j++)
			for (int y = 0; y < cw; y++)
				for (int x = 0; x < cw; x++) {
					double a = 0;
					for (int b = -(down / 2); b <= down / 2; b++)
						for (int c = -(down / 2); c <= down / 2; c++)
							a += ff.c[j][(size_t)(y * down + down / 2 + b) * fw +
								     (x * down + down / 2 + c)];
					m->fld.c[j][(size_t)y * cw + x] = (float)(a / (down * down));
				}
		fs_se_field_free(&ff);
		if (bad)
			return -1;
	}
	size_t nw = (size_t)(2 * m->sh + 1) * (2 * m->sh + 1);
	free(m->tmp);
	free(m->bl);
	m->tmp = malloc(nw * sizeof *m->tmp);
	m->bl = malloc(nw * sizeof *m->bl);
	for (int j = 0; j < NCOMP; j++)
		if (!m->cs[j] && !(m->cs[j] = malloc(m->np * sizeof *m->cs[j])))
			return -1;
	return m->tmp && m->bl ? 0 : -1;
}

static void model_free(model *m)
{
	fs_se_field_free(&m->fld);
	free(m->dx);
	free(m->dy);
	free(m->mean);
	free(m->tmp);
	free(m->bl);
	for (int j = 0; j < NCOMP; j++)
		free(m->cs[j]);
}

/* The level read on meas by the rule's reader (its window for pitch)
 * about (x, y): 2 x the reading's radius, NAN when it fails. */
static double level_reading(const fs_image *meas, double x, double y, double r0, double r1)
{
	fs_dome_base_trace tr;
	if (fs_dome_measure_base_trace(meas, x, y, r0, r1, &tr) || !isfinite(tr.radius))
		return NAN;
	return 2 * tr.radius;
}

static int run_scene(int k, unsigned seed_add)
{
	sem_opts o;
	sem_corner_args(k, seed_add, &set_args, &o);
	sem_scene sim;
	if (sem_scene_render(&sim, &o)) {
		printf("%d: %s\n", k, sim.err);
		return -1;
	}
	const fs_image *img = sim.img;
	const sem_truth *t = &sim.tr;
	model m;
	memset(&m, 0, sizeof m);
	int rc = -1;
	double pitch = t->pitch;
	double *xs = malloc((t->n + 1) * sizeof *xs), *ys = malloc((t->n + 1) * sizeof *ys),
	       *ds = malloc((t->n + 1) * sizeof *ds);
	if (!xs || !ys || !ds || model_points(&m, pitch))
		goto out;
	/* the mean patch about every true centre inside */
	size_t nin = 0;
	for (size_t j = 0; j < t->n; j++)
		if (t->inside[j]) {
			xs[nin] = t->x[j];
			ys[nin] = t->y[j];
			ds[nin++] = t->d[j];
		}
	double dsum, cx1, cy1;
	size_t used = model_patch(&m, img, pitch, xs, ys, ds, nin, &dsum, &cx1, &cy1);
	if (used < 8)
		goto out;
	double fill = dsum / used / pitch;
	/* the simulator's geometry and look */
	fs_se_geom g = {fill, o.h_over_r, o.profile > 1.5 ? 2 : o.profile, o.angle, 0};
	look lk = {o.det_azimuth, o.det_elevation};
	if (model_field(&m, &g, &lk, pitch))
		goto out;
	printf("%-3d %s h/R %.2f az %3.0f fill %.3f (%zu domes, phase c1 %+.2f %+.2f):", k,
	       o.profile > 1.5 ? "flat" : "sph ", o.h_over_r, o.det_azimuth * 180 / M_PI, fill, used, cx1 / used,
	       cy1 / used);
	for (int kind = 0; kind < K_N; kind++) {
		double mis, s = read_blur(&m, kind, &mis);
		printf(" | %s %.3f (%.5f)", KNAME[kind], s, mis);
	}
	printf("\n");
	if (calibrate) {
		/* the level read from the TRUE centres on detection's
		 * measurement image, as bench_level_small's "true" reading */
		double msig = pitch >= 40 ? 1.0 : 0.5, mr = 0.6 * pitch, r0 = FS_DOME_R0 * mr, r1 = FS_DOME_R1 * mr;
		fs_image *meas = NULL;
		char err[128];
		double sr = 0, sd = 0;
		if (!fs_detect_measure_image(img, &sim.p, msig, &meas, err, sizeof err)) {
			for (size_t j = 0; j < t->n; j++) {
				double v;
				if (!sem_counted(t, t->x[j], t->y[j]) ||
				    !isfinite(v = level_reading(meas, t->x[j], t->y[j], r0, r1)))
					continue;
				sr += v;
				sd += t->d[j];
			}
			fs_image_free(meas);
		}
		double rd = sd > 0 ? 100 * (sr - sd) / sd : NAN, beam = sqrt(fmax(0, o.beam_blur * o.beam_blur - 1.0 / 12));
		double mis, sb = read_blur(&m, K_BT, &mis);
		misfit(&m, sb, K_BT); /* the weights at the read blur */
		double fr = calib_factor(&m, &g, &lk, pitch, sb, msig, r0, r1);
		misfit(&m, beam, K_BT);
		double ft = calib_factor(&m, &g, &lk, pitch, beam, msig, r0, r1);
		printf("CALIB %-3d true-centre reading %+6.2f %% | read beam %.3f: factor %.4f -> %+6.2f %% | true beam %.3f: "
		       "factor %.4f -> %+6.2f %%\n",
		       k, rd, sb, fr, 100 * ((1 + rd / 100) * fr - 1), beam, ft, 100 * ((1 + rd / 100) * ft - 1));
	}
	rc = 0;
out:
	model_free(&m);
	free(xs);
	free(ys);
	free(ds);
	sem_scene_close(&sim);
	return rc;
}

/* --rule (h44b): h43b's calibration made from the rule's OWN final
 * centres, with the blur given (an oracle: the simulator's beam, as the
 * model reads it through box+tent, plus each of RULE_DB). */
static int rule_mode;
/* --true-self: with --rule, the self and held curves about the TRUE
 * centres from the true fill as well ("tself") */
static int true_self;
static const double RULE_DB[] = {0, -0.05, -0.03, -0.01, +0.01, +0.03, +0.05};
#define RULE_NDB (sizeof RULE_DB / sizeof *RULE_DB)

/* One calibration: the weights solved on m's mean patch at blur sigma
 * (box+tent), the factor of the pixel dome (calib_factor), and the
 * rule's D and S with every radius times it, printed as " c D S". */
static double rule_calib_print(model *m, const fs_se_geom *g, const look *lk, double pitch, double sigma,
			       double msig, double r0, double r1, const sem_truth *t, const fs_tubercle_list *l,
			       double halftone)
{
	misfit(m, sigma, K_BT);
	double c = calib_factor(m, g, lk, pitch, sigma, msig, r0, r1);
	sem_score_scaled_print(t, l, halftone, c);
	return c;
}

/* The fill at which g's rendered dome, read by the level's reader, reads
 * what the rule read (fill_r, its mean D over the pitch): the rendered
 * reading's fill r(f) = f / c(f) (c the factor at fill f, the weights
 * solved on m's patch at blur sigma) on fills fill_r x 0.60 .. 1.10 in
 * steps of 0.05, and r(f) = fill_r found between two steps (the first
 * crossing from below; a secant). Printed as " fill c D S slope n": the
 * factor fill / fill_r, the rule's D and S with every radius times it,
 * (after the curve r / fill_r at the steps, in brackets)
 * the reading's slope dr/df there (1 for a reader that follows the
 * dome's size; a slope s turns a 1 % error of the reading into 1 / s %
 * of D), and how many crossings the steps show. The true fill is not
 * used: this is the calibration the rule could make with the blur alone
 * given. m's field is left at the last fill rendered. */
enum { FILL_STEPS = 11 };

/* r / fill_r of the FILL_STEPS steps (rs), the first crossing of
 * fill_r (*f, by a secant), the slope there and the crossings' count */
static int fill_cross(const double *fs, const double *rs, double fill_r, double *f, double *slope)
{
	int ncross = 0;
	*f = *slope = NAN;
	for (int i = 0; i + 1 < FILL_STEPS; i++) {
		double a = rs[i] - fill_r, b = rs[i + 1] - fill_r;
		if (!isfinite(a) || !isfinite(b) || (a > 0) == (b > 0))
			continue;
		if (!ncross++) {
			*f = fs[i] + (fs[i + 1] - fs[i]) * a / (a - b);
			*slope = (rs[i + 1] - rs[i]) / (fs[i + 1] - fs[i]);
		}
	}
	return ncross;
}

static void fill_curve_print(const char *label, const double *fs, const double *rs, double fill_r,
			     const sem_truth *t, const fs_tubercle_list *l, double halftone)
{
	double f, slope;
	int ncross = fill_cross(fs, rs, fill_r, &f, &slope);
	printf(" %s [", label);
	for (int i = 0; i < FILL_STEPS; i++)
		printf("%s%.3f", i ? " " : "", rs[i] / fill_r);
	printf("]");
	double c = f / fill_r;
	sem_score sc;
	if (!isfinite(c) || sem_score_scaled(t, l, halftone, c, &sc))
		printf(" %.3f %.4f NAN NAN %.2f %d", f, c, slope, ncross);
	else
		printf(" %.3f %.4f %+6.2f %+6.2f %.2f %d", f, c, sc.d_err, sc.s_err, slope, ncross);
}

/* "self" with the weights solved at each fill (as every calibration
 * here solves them), then "held" with the weights solved once at fill_r
 * and kept: whether a flat curve is the reader's or the weights' taking
 * up the size. *pf and *pc (the "pfill" field): the fill at which the
 * mean patch is fitted best at blur sigma over the same steps (the
 * parabola's vertex through the best step and its neighbours; NAN where
 * the best is an end step) and the factor there (rs interpolated): the
 * fill a formation fit would read with the blur given, and what the
 * calibration makes of it. */
static void rule_self_print(model *m, const fs_se_geom *g, const look *lk, double pitch, double sigma, double msig,
			    double r0, double r1, double fill_r, const sem_truth *t, const fs_tubercle_list *l,
			    double halftone, double *pf, double *pc)
{
	fs_se_geom gf = *g;
	double fs[FILL_STEPS], rs[FILL_STEPS], rh[FILL_STEPS], mis[FILL_STEPS], w0[NCOMP + 1];
	*pf = *pc = NAN;
	gf.fill = fill_r;
	if (model_field(m, &gf, lk, pitch))
		return;
	misfit(m, sigma, K_BT);
	memcpy(w0, m->w, sizeof w0);
	int kb = -1;
	for (int i = 0; i < FILL_STEPS; i++) {
		fs[i] = gf.fill = fill_r * (0.60 + 0.05 * i);
		rs[i] = rh[i] = mis[i] = NAN;
		if (model_field(m, &gf, lk, pitch))
			continue;
		mis[i] = misfit(m, sigma, K_BT);
		if (kb < 0 || mis[i] < mis[kb])
			kb = i;
		rs[i] = fs[i] / calib_factor(m, &gf, lk, pitch, sigma, msig, r0, r1);
		memcpy(m->w, w0, sizeof w0);
		rh[i] = fs[i] / calib_factor(m, &gf, lk, pitch, sigma, msig, r0, r1);
	}
	fill_curve_print("self", fs, rs, fill_r, t, l, halftone);
	fill_curve_print("held", fs, rh, fill_r, t, l, halftone);
	if (kb > 0 && kb < FILL_STEPS - 1 && isfinite(mis[kb - 1]) && isfinite(mis[kb + 1])) {
		double a = mis[kb - 1], b = mis[kb], c = mis[kb + 1], den = a - 2 * b + c, u = den > 0 ? 0.5 * (a - c) / den : 0;
		int j = u < 0 ? kb - 1 : kb;
		double w = u < 0 ? 1 + u : u;
		*pf = fs[kb] + u * (fs[kb + 1] - fs[kb]);
		*pc = *pf / (rs[j] + w * (rs[j + 1] - rs[j]));
	}
}

/* --rule: per scene one line "RULE k" with
 *   the rule's own D and S (detection as make test runs it);
 *   the level read by the rule's reader on the measurement image from
 *     the rule's matched final centres and from the TRUE ones (D % over
 *     the counted domes both read), and the rule's centres' mean offset
 *     from the truth along and across the detector's axis (px);
 *   the calibrated reading at the TRUE centres (h43b's row: patch and
 *     reading there, the oracle beam): c and D %;
 *   "rule": the mean patch about the rule's centres, the simulator's
 *     geometry at the TRUE fill (a second oracle), the oracle beam + each
 *     RULE_DB: c, D and S of the detection with every radius times c;
 *   "self": the same at the oracle beam, but rendered at the fill that
 *     reads what the rule read (rule_self_print: only the blur given):
 *     fill, c, D, S, the reading's slope and its crossings; "held" the
 *     same with the weights solved once at the rule's fill;
 *   "rgeom": the formation fitted at the rule's centres (fs_det_offset_fit
 *     on the measurement image: profile, h/R, lattice angle, detector)
 *     at the TRUE fill, the oracle beam (the fit's own blur unused): c, D,
 *     S;
 *   "pfill": the fill the mean patch about the rule's centres is fitted
 *     best at with the oracle beam (the simulator's geometry), the factor
 *     there, D, S (rule_self_print);
 *   with --true-self, "tself": the self and held curves about the TRUE
 *     centres from the true fill (how the factor there depends on the
 *     fill it is rendered at).
 * What the oracle blur would buy from where the rule's centres are, and
 * how precisely the blur must be known for it. */
static int run_rule(int k, unsigned seed_add)
{
	sem_opts o;
	sem_corner_args(k, seed_add, &set_args, &o);
	dome_scene ds;
	if (dome_scene_open(&ds, &o, SET_CORNER, k))
		return -1;
	const sem_truth *t = &ds.s.tr;
	const fs_tubercle_list *l = &ds.res.tubercles;
	const fs_image *meas = ds.meas;
	double pitch = t->pitch, msig = pitch >= 40 ? 1.0 : 0.5, mr = 0.6 * pitch, r0 = FS_DOME_R0 * mr,
	       r1 = FS_DOME_R1 * mr;
	double beam = sqrt(fmax(0, o.beam_blur * o.beam_blur - 1.0 / 12));
	model m;
	memset(&m, 0, sizeof m);
	int rc = -1;
	size_t nd = l->n;
	double *xd = malloc((nd + 1) * sizeof *xd), *yd = malloc((nd + 1) * sizeof *yd);
	double *xt = malloc((t->n + 1) * sizeof *xt), *yt = malloc((t->n + 1) * sizeof *yt),
	       *dt = malloc((t->n + 1) * sizeof *dt);
	double *xr = malloc((t->n + 1) * sizeof *xr), *yr = malloc((t->n + 1) * sizeof *yr),
	       *rr = malloc((t->n + 1) * sizeof *rr);
	int *mdet = malloc((nd + 1) * sizeof *mdet), *mtru = malloc((t->n + 1) * sizeof *mtru);
	sem_score sc0;
	if (!xd || !yd || !xt || !yt || !dt || !xr || !yr || !rr || !mdet || !mtru || model_points(&m, pitch) ||
	    sem_score_detection(t, l, o.halftone, &sc0))
		goto out;
	for (size_t i = 0; i < nd; i++) {
		xd[i] = l->items[i].centroid_x;
		yd[i] = l->items[i].centroid_y;
	}
	if (sem_match(t, xd, yd, nd, 0.25 * pitch, mdet, mtru))
		goto out;
	/* the level from either set of centres, over the counted domes both
	 * read, and the rule's centres' common offset from the truth */
	double sr = 0, st = 0, sd = 0, along = 0, across = 0;
	size_t nc = 0;
	for (size_t j = 0; j < t->n; j++) {
		if (mtru[j] < 0 || !sem_counted(t, t->x[j], t->y[j]))
			continue;
		const fs_tubercle *q = &l->items[mtru[j]];
		double vr = level_reading(meas, q->centroid_x, q->centroid_y, r0, r1),
		       vt = level_reading(meas, t->x[j], t->y[j], r0, r1);
		if (!isfinite(vr) || !isfinite(vt))
			continue;
		sr += vr;
		st += vt;
		sd += t->d[j];
		double dx = q->centroid_x - t->x[j], dy = q->centroid_y - t->y[j];
		along += dx * cos(o.det_azimuth) + dy * sin(o.det_azimuth);
		across += -dx * sin(o.det_azimuth) + dy * cos(o.det_azimuth);
		nc++;
	}
	if (!nc)
		goto out;
	double rd_r = 100 * (sr - sd) / sd, rd_t = 100 * (st - sd) / sd;
	/* the centres the patches are made about: every true one inside, and
	 * the rule's matched to them (with its radii, for its fill and the
	 * formation fit) */
	size_t nt = 0, nr = 0;
	double rsum = 0;
	size_t rn = 0;
	for (size_t j = 0; j < t->n; j++) {
		if (!t->inside[j])
			continue;
		xt[nt] = t->x[j];
		yt[nt] = t->y[j];
		dt[nt++] = t->d[j];
		if (mtru[j] < 0)
			continue;
		const fs_tubercle *q = &l->items[mtru[j]];
		xr[nr] = q->centroid_x;
		yr[nr] = q->centroid_y;
		rr[nr++] = q->radius_px;
		if (isfinite(q->radius_px)) {
			rsum += 2 * q->radius_px;
			rn++;
		}
	}
	double dsum;
	size_t used = model_patch(&m, ds.s.img, pitch, xt, yt, dt, nt, &dsum, NULL, NULL);
	if (used < 8 || rn < 8)
		goto out;
	double fill = dsum / used / pitch, fill_r = rsum / rn / pitch;
	fs_se_geom g = {fill, o.h_over_r, o.profile > 1.5 ? 2 : o.profile, o.angle, 0};
	look lk = {o.det_azimuth, o.det_elevation};
	if (model_field(&m, &g, &lk, pitch))
		goto out;
	printf("RULE %-3d D %+6.2f S %+6.2f | level@rule %+6.2f level@true %+6.2f | offset along %+.3f across %+.3f | "
	       "fill %.3f rule %.3f beam %.3f",
	       k, sc0.d_err, sc0.s_err, rd_r, rd_t, along / nc, across / nc, fill, fill_r, beam);
	/* h43b's row: patch and reading at the TRUE centres */
	misfit(&m, beam, K_BT);
	double ct = calib_factor(&m, &g, &lk, pitch, beam, msig, r0, r1);
	printf(" | true %.4f %+6.2f", ct, 100 * ((1 + rd_t / 100) * ct - 1));
	/* the rule's own centres: the patch about them */
	if (model_patch(&m, ds.s.img, pitch, xr, yr, NULL, nr, NULL, NULL, NULL) < 8)
		goto out;
	printf(" | rule");
	for (size_t q = 0; q < RULE_NDB; q++)
		rule_calib_print(&m, &g, &lk, pitch, beam + RULE_DB[q], msig, r0, r1, t, l, o.halftone);
	/* the rule's own fill, made self-consistent */
	printf(" |");
	double pf, pc;
	rule_self_print(&m, &g, &lk, pitch, beam, msig, r0, r1, fill_r, t, l, o.halftone, &pf, &pc);
	/* the formation the rule fits at its centres, with the oracle beam */
	fs_det_offset of;
	memset(&of, 0, sizeof of);
	if (!fs_det_offset_fit(meas, xr, yr, rr, nr, pitch, NULL, &of) && of.fitted) {
		fs_se_geom gr = {fill, of.fit.h_over_r, of.fit.profile, of.fit.angle, 0};
		look lr = {of.fit.azimuth, of.fit.elevation};
		printf(" | rgeom p%.1f h/R %.2f az %4.0f", of.fit.profile, of.fit.h_over_r, of.fit.azimuth * 180 / M_PI);
		if (model_field(&m, &gr, &lr, pitch))
			printf(" NAN NAN NAN");
		else
			rule_calib_print(&m, &gr, &lr, pitch, beam, msig, r0, r1, t, l, o.halftone);
	} else
		printf(" | rgeom none");
	sem_score sp;
	if (isfinite(pc) && !sem_score_scaled(t, l, o.halftone, pc, &sp))
		printf(" | pfill %.3f %.4f %+6.2f %+6.2f", pf, pc, sp.d_err, sp.s_err);
	else
		printf(" | pfill %.3f %.4f NAN NAN", pf, pc);
	if (true_self && model_patch(&m, ds.s.img, pitch, xt, yt, NULL, nt, NULL, NULL, NULL) >= 8) {
		/* the same curves about the TRUE centres, from the true fill:
		 * whether h43b's calibration there followed the dome's size or
		 * the fill it was given (the crossing fields mean nothing here) */
		printf(" | tself");
		rule_self_print(&m, &g, &lk, pitch, beam, msig, r0, r1, fill, t, l, o.halftone, &pf, &pc);
	}
	printf("\n");
	rc = 0;
out:
	model_free(&m);
	free(xd);
	free(yd);
	free(xt);
	free(yt);
	free(dt);
	free(xr);
	free(yr);
	free(rr);
	free(mdet);
	free(mtru);
	dome_scene_close(&ds);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned seed_add = 0;
	int scenes[64], ns = 0;
	for (int i = 1; i < argc; i++) {
		if (sem_bench_arg(argc, argv, &i, &seed_add, &set_args))
			continue;
		if (!strcmp(argv[i], "--grid") && i + 1 < argc)
			RENDER_G = atoi(argv[++i]) >= 8 ? atoi(argv[i]) : 24;
		else if (!strcmp(argv[i], "--calibrate"))
			calibrate = 1;
		else if (!strcmp(argv[i], "--rule"))
			rule_mode = 1;
		else if (!strcmp(argv[i], "--true-self"))
			true_self = 1;
		else if (!strcmp(argv[i], "--down") && i + 1 < argc)
			down = atoi(argv[++i]) >= 1 ? atoi(argv[i]) | 1 : 1;
		else if (!strcmp(argv[i], "--edge-px") && i + 1 < argc)
			edge_px = atof(argv[++i]);
		else if (ns < 64)
			scenes[ns++] = atoi(argv[i]);
	}
	if (!ns)
		ns = small_dome_scenes(scenes, 0);
	printf("the blur (px) the mean patch about the TRUE centres reads through se_render's components of the "
	       "simulator's geometry and each sampling kernel (misfit share); render grid %d a pitch (cells of %d x %d); edge "
	       "clip %s; seeds +%u\n",
	       RENDER_G, down, down, edge_px > 0 ? "per px" : "se_render's", seed_add);
	int bad = 0;
	for (int i = 0; i < ns; i++)
		bad |= (rule_mode ? run_rule(scenes[i], seed_add) : run_scene(scenes[i], seed_add)) != 0;
	return bad;
}
