/*
 * bench_formation_truth.c - the per-image formation fit (dome_fit.c, as
 * detect_offset.c runs it for the dome rule) against the simulator's TRUE
 * formation, on every simulated scene set (issue 13; docs/paper-figures.md
 * h38n).
 *
 * Why: several corrections were refused because they would be keyed to a
 * fitted formation parameter (h/R and the profile for the ridge reader,
 * h38j; the blur for a calibration, h33d; a blur-dependent gate, h36d,
 * h38g), and each helper met the fit's looseness on a few scenes only.
 * This prints, for each scene, what the fit reads and what the simulator
 * rendered, so that which parameter is identifiable where (pitch, screen,
 * h/R) is read off one table instead of argued from a handful.
 *
 * Three fits per scene, all on the rule's measurement image
 * (fs_detect_measure_image with the rule's msig: 0.5 px below a 40 px
 * pitch, 1.0 from it):
 *   rule  fs_det_offset_fit at the dome rule's final centres and radii
 *         (the fill held at their median, 64 centres, coarse to fine),
 *         i.e. the formation the rule's later steps read. (Under a
 *         halftone screen detection itself fits at its first pass's
 *         centres, not its final ones; the same fit is made here at the
 *         final ones.)
 *   true  the same fit at the TRUE centres and radii (inside the scale
 *         region) and the true pitch: the fit's own error, without the
 *         centres'.
 *   free  fs_dome_fit_image with its defaults (fill searched 0.16-0.88,
 *         the whole grids, no uncertainty) at the TRUE centres: whether
 *         the fill itself is identified.
 * The true blur: the measurement image's is sqrt(beam^2 + msig^2), plus
 * under a screen the scan blur and the fit's own low-pass
 * (FS_HALFTONE_LOWPASS x the period); but the fit sees the MEAN patch,
 * whose rim is spread further by the domes' radii (sem_opts.radius_jitter,
 * 4 % of R: 1.0 px at R 25.6), so "blur" below is the image's with the
 * true radii's SD added in quadrature (the surface's minimum sits there:
 * scene 33, 1.60 px against the image's 1.28). The rule's centres add
 * their scatter (printed: RMS of detected minus matched true centre, px,
 * the common offset removed; the rule row's ratio is against the blur
 * with it).
 *
 * --surface (unscreened scenes; one line per scene, --surface-tables
 * also the tables): the residual of the mean patch at the
 * TRUE centres (offset 0, the fill held at the true fill) over a finer
 * grid of h/R, the three profiles, the blur and the shadow's elevation,
 * computed here with the fit's own forward model (se_render.h) and the
 * same linear solve (brightness, contrast, side slopes, edge, shadow
 * depth): the minimum over blur and elevation for every (h/R, profile),
 * and over profile and elevation for every (h/R, blur). How flat that
 * surface is along h/R, profile and blur is why the fit trades them.
 *
 * --refit: under the rule's line, the same fit with the formation fitted
 * again at the offset found (fs_dome_fit_opts.keep_formation 0), and the
 * rule's centres' common offset from the truth and their pitch: whether
 * the rule's formation is that of its starting point.
 *
 * --landscape (h38v): after the rule's line, the rule fit's residual, a
 * fit with the fill searched (fs_dome_fit_image's defaults) at the
 * rule's own centres moved by the offset its fit found, and on
 * unscreened scenes the --surface grid read at those centres (at the
 * rule's held fill, then at the true fill): whether a wrong formation (h38q's blow-ups) is the
 * best this patch allows (the centres or the model) or a point the
 * search settled on while a better one exists (the search).
 * --score (h38v): the scene's mean D, S, D SD, recall and precision as
 * test_sem_accuracy scores them, before the rule's line ("BLOW-UP" where
 * |mean D| > 5 %, h38q's mark).
 *
 * --no-shadow / --no-edge render the same scenes, seed and all, without
 * the simulator's cast shadow (sem_opts.shadow 0) or edge brightening
 * (sem_opts.edge 0): if the true shape became the surface's minimum
 * without one of them, that term would be what the model renders wrong
 * (on scene 36 neither does it: h38n).
 *
 * --shadow (h38t; corner and interior scenes): the cast shadow's length
 * read from the image along the axis away from the detector, at the TRUE
 * centres and at the rule's, and the h/R it implies at the formation
 * fit's elevation, at the true one, and as h/R cot(elevation) (see the
 * section "--shadow" below for how and why); then a summary per corner
 * class. --shadow-profiles also prints the mean away and across profiles.
 *
 * Usage: bench_formation_truth [--seed-add N] [--opt KEY=VALUE] [--set corner|interior|smooth]
 * [--surface | --surface-tables] [--no-shadow] [--no-edge] [--refit] [--landscape] [--score]
 * [--shadow | --shadow-profiles] [SCENE...] (default: all three sets, every scene; --seed-add 4000 the
 * held-out seeds; SEM_SCENE_CACHE shares the renders). Prints one line per scene and fit, then the
 * summaries per parameter. Asserts nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/detect_methods.h"
#include "analysis/detect_offset.h"
#include "analysis/dome_fit.h"
#include "analysis/halftone.h"
#include "analysis/se_render.h"
#include "image/image.h"
#include "sem_cache.h"
#include "scene_sets.h"
#include "sem_opts_keys.h"
#include "sem_scene.h"
#include "sem_score.h"
#include "sem_sim.h"

enum { FIT_RULE, FIT_TRUE, FIT_FREE, NFIT };
static const char *FIT_NAME[NFIT] = {"rule", "true", "free"};

/* One fit's reading against the truth, kept for the summaries. */
typedef struct row {
	int set, scene, ok;
	double pitch, halftone, t_fill, t_hr, t_prof, t_az, t_el, t_edge;
	double t_img;  /* the measurement image's blur sigma, px */
	double t_blur; /* the mean patch's: t_img with the radii's SD (px) */
	double fill, hr, prof, blur, az, el, edge, side, shadow, r2, off, scatter;
} row;

#define MAX_ROWS (3 * 128 * NFIT)
static row rows[MAX_ROWS];
static size_t nrows;

static double deg(double a)
{
	return a * 180 / M_PI;
}

/* angle difference in (-180, 180] degrees */
static double ang_diff(double a, double b)
{
	double d = fmod(deg(a - b) + 540.0, 360.0) - 180.0;
	return d;
}

static int no_shadow, no_edge, refit, landscape, score;

/* --shadow's readings kept for the summary */
typedef struct sh_row {
	double hr, prof, pitch, fill, screen;
	int rule, ok, below;
	double reach, t_reach, h_fit, h_true, h_cot, t_cot, h_joint, el_joint;
} sh_row;
#define MAX_SH (4 * 128)
static sh_row shrows[MAX_SH];
static size_t nrows_sh;
static int do_shadow;

/* --opt KEY=VALUE (h41a, repeatable; sem_opts_keys.h's keys, checked
 * before any scene): a simulator option on every scene after its seed,
 * e.g. --opt beam_continuous=1 (the formation fit against a continuous
 * beam spot; its "TRUE blur" is the same sigma, only the kernel's shape
 * differs) */
static sem_opts_args set_args;

static void scene_opts(int set, int k, unsigned seed_add, sem_opts *o)
{
	scene_set_opts(set, k, seed_add, o);
	sem_opts_args_apply(&set_args, o);
	if (no_shadow)
		o->shadow = 0;
	if (no_edge)
		o->edge = 0;
}

/* RMS of the detected centres' scatter about their matched true centres,
 * the common offset removed (px): what the rule's centres add to the blur
 * the fit sees. */
static double centre_scatter(const sem_truth *t, const fs_tubercle_list *tl, double *mx, double *my)
{
	*mx = *my = NAN;
	int *mt = malloc(tl->n * sizeof *mt);
	if (!mt || sem_match_tubercles(t, tl, mt, NULL)) {
		free(mt);
		return NAN;
	}
	double sx = 0, sy = 0, sxx = 0, syy = 0;
	size_t n = 0;
	for (size_t i = 0; i < tl->n; i++) {
		if (mt[i] < 0 || !sem_counted(t, t->x[mt[i]], t->y[mt[i]]))
			continue;
		double dx = tl->items[i].centroid_x - t->x[mt[i]], dy = tl->items[i].centroid_y - t->y[mt[i]];
		sx += dx;
		sy += dy;
		sxx += dx * dx;
		syy += dy * dy;
		n++;
	}
	free(mt);
	if (n < 2)
		return NAN;
	*mx = sx / n;
	*my = sy / n;
	double vx = sxx / n - (sx / n) * (sx / n), vy = syy / n - (sy / n) * (sy / n);
	return sqrt(0.5 * fmax(0, vx + vy));
}

static void put_row(const row *base, int ok, const fs_dome_fit *f, double held_fill, double scatter)
{
	if (nrows >= MAX_ROWS)
		return;
	row r = *base;
	r.ok = ok;
	r.scatter = scatter;
	if (ok) {
		r.fill = held_fill > 0 ? held_fill : f->fill;
		r.hr = f->h_over_r;
		r.prof = f->profile;
		r.blur = f->blur_px;
		r.az = f->azimuth;
		r.el = f->elevation;
		r.edge = f->edge;
		r.side = f->side;
		r.shadow = f->shadow;
		r.r2 = f->quality;
		r.off = hypot(f->offset_x, f->offset_y) / f->pitch;
	}
	rows[nrows++] = r;
}

/* the blur the fit should find: the mean patch's, with the rule's
 * centres' scatter where it has one */
static double blur_truth(const row *r)
{
	return isfinite(r->scatter) ? hypot(r->t_blur, r->scatter) : r->t_blur;
}

static void print_row(const row *r, int which)
{
	if (!r->ok) {
		printf("  %-4s (no fit)\n", FIT_NAME[which]);
		return;
	}
	printf("  %-4s fill %.3f%s h/R %.2f prof %.0f blur %5.2f px (x%.2f) az %+5.0f el %2.0f edge %5.2f side %5.2f "
	       "shadow %5.2f R2 %.3f off %.3f p",
	       FIT_NAME[which], r->fill, which == FIT_FREE ? " " : "h", r->hr, r->prof, r->blur, r->blur / blur_truth(r),
	       ang_diff(r->az, r->t_az), deg(r->el), r->edge, r->side, r->shadow, r->r2, r->off);
	if (which == FIT_RULE)
		printf(" scatter %.2f px", r->scatter);
	printf("\n");
}

/* ---- the residual surface (--surface) ---- */

#define S_G_MAX 20
#define S_G_MIN 12
#define S_FIT_R 0.55
#define S_NP (FS_SE_NCOMP + 1)

static const double S_HR[] = {0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.85, 1.0};
#define S_NHR (int)(sizeof S_HR / sizeof S_HR[0])
static const double S_BLUR[] = {0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.065, 0.075, 0.1};
#define S_NBLUR (int)(sizeof S_BLUR / sizeof S_BLUR[0])
static const double S_EL[] = {-1, 25, 35, 40, 55}; /* -1: no shadow term */
#define S_NEL (int)(sizeof S_EL / sizeof S_EL[0])

/* Separable Gaussian of a (2 sh + 1)^2 window (edges clamped: the margin
 * keeps them out of the crop), cropped to (2 half + 1)^2. */
static void s_blur(const float *src, int sh, int half, double sigma, double *tmp, double *dst)
{
	int sw = 2 * sh + 1, cw = 2 * half + 1, kr = (int)ceil(3 * sigma);
	if (kr > sh - half)
		kr = sh - half;
	double k[128], ks = 0;
	for (int i = -kr; i <= kr; i++)
		ks += k[i + kr] = sigma > 0 ? exp(-0.5 * i * i / (sigma * sigma)) : (i == 0);
	for (int y = 0; y < sw; y++)
		for (int x = 0; x < cw; x++) {
			double s = 0;
			for (int i = -kr; i <= kr; i++)
				s += k[i + kr] * src[(size_t)y * sw + (x + sh - half + i)];
			tmp[(size_t)y * cw + x] = s / ks;
		}
	for (int y = 0; y < cw; y++)
		for (int x = 0; x < cw; x++) {
			double s = 0;
			for (int i = -kr; i <= kr; i++)
				s += k[i + kr] * tmp[(size_t)(y + sh - half + i) * cw + x];
			dst[(size_t)y * cw + x] = s / ks;
		}
}

/* Least squares of v (masked samples) on nc columns and a constant; the
 * residual sum of squares. coef may be NULL. */
static double s_solve(double *const *col, int nc, const double *v, const unsigned char *mask, size_t nn,
		      double *coef)
{
	double a[S_NP][S_NP + 1];
	memset(a, 0, sizeof a);
	int m = nc + 1;
	for (size_t t = 0; t < nn; t++) {
		if (!mask[t])
			continue;
		double x[S_NP];
		for (int i = 0; i < nc; i++)
			x[i] = col[i][t];
		x[nc] = 1;
		for (int i = 0; i < m; i++) {
			for (int j = 0; j < m; j++)
				a[i][j] += x[i] * x[j];
			a[i][m] += x[i] * v[t];
		}
	}
	for (int i = 0; i < m; i++) {
		int p = i;
		for (int r = i + 1; r < m; r++)
			if (fabs(a[r][i]) > fabs(a[p][i]))
				p = r;
		for (int j = 0; j <= m; j++) {
			double s = a[i][j];
			a[i][j] = a[p][j];
			a[p][j] = s;
		}
		if (fabs(a[i][i]) < 1e-12)
			a[i][i] = 1e-12;
		for (int r = 0; r < m; r++) {
			if (r == i)
				continue;
			double f = a[r][i] / a[i][i];
			for (int j = i; j <= m; j++)
				a[r][j] -= f * a[i][j];
		}
	}
	double c[S_NP];
	for (int i = 0; i < m; i++)
		c[i] = a[i][m] / a[i][i];
	double rss = 0;
	for (size_t t = 0; t < nn; t++) {
		if (!mask[t])
			continue;
		double e = v[t] - c[nc];
		for (int i = 0; i < nc; i++)
			e -= c[i] * col[i][t];
		rss += e * e;
	}
	if (coef)
		memcpy(coef, c, (size_t)m * sizeof *c);
	return rss;
}

static int verbose_surface;

/* the abscissa of the vertex of the parabola through three points (the
 * middle one when they do not bend upwards) */
static double vertex(double x0, double y0, double x1, double y1, double x2, double y2)
{
	double d0 = (y1 - y0) / (x1 - x0), d1 = (y2 - y1) / (x2 - x1), c = (d1 - d0) / (x2 - x0);
	if (!(c > 0))
		return x1;
	double xv = 0.5 * (x0 + x1) - d0 / (2 * c);
	return fmin(x2, fmax(x0, xv));
}

/* bt2: the mean patch's true blur, squared (px^2). The patch is averaged
 * around the n centres (xs, ys) of a lattice of the given pitch, the model
 * rendered at the given fill; label NULL: the TRUE centres, pitch and fill
 * (--surface, h38n's line); otherwise (--landscape, h38v) the line is
 * prefixed by it, so that the same surface read at another set of centres
 * says whether a wrong formation there is the surface's own minimum */
static int surface(const fs_image *img, const double *xs, const double *ys, size_t n, double pitch, double fill,
		   const sem_opts *o, double angle, double bt2, const char *label)
{
	int g = (int)lround(pitch);
	g = g > S_G_MAX ? S_G_MAX : g < S_G_MIN ? S_G_MIN : g;
	int half = (int)ceil(S_FIT_R * g), cw = 2 * half + 1;
	int bm = (int)ceil(3 * S_BLUR[S_NBLUR - 1] * g) + 1, sh = half + bm;
	int reach = (int)ceil(0.5 * 0.88 * g * 1.0 / tan(25 * M_PI / 180)) + 1;
	size_t nn = (size_t)cw * cw;
	double *v = calloc(nn, sizeof *v), *tmp = malloc((size_t)(2 * sh + 1) * cw * sizeof *tmp);
	unsigned char *mask = calloc(nn, 1);
	double *bl[FS_SE_NCOMP];
	for (int k = 0; k < FS_SE_NCOMP; k++)
		bl[k] = malloc(nn * sizeof *bl[k]);
	int rc = -1;
	if (!v || !tmp || !mask)
		goto out;
	for (int k = 0; k < FS_SE_NCOMP; k++)
		if (!bl[k])
			goto out;
	/* the mean patch at the true centres (inside the image by the
	 * patch's reach), sampled at the model's grid */
	size_t used = 0;
	double ext = (half + 1) * pitch / g;
	for (size_t j = 0; j < n; j++) {
		if (xs[j] - ext < 0 || ys[j] - ext < 0 || xs[j] + ext >= img->width - 1 || ys[j] + ext >= img->height - 1)
			continue;
		for (int r = -half; r <= half; r++)
			for (int q = -half; q <= half; q++)
				v[(size_t)(r + half) * cw + q + half] +=
					fs_image_sample_clamped(img, xs[j] + q * pitch / g, ys[j] + r * pitch / g);
		used++;
	}
	if (used < 8)
		goto out;
	double s = 0, s2 = 0;
	size_t np = 0;
	for (int r = -half; r <= half; r++)
		for (int q = -half; q <= half; q++)
			if (q * q + r * r <= half * half) {
				size_t i = (size_t)(r + half) * cw + q + half;
				mask[i] = 1;
				s += v[i];
				np++;
			}
	for (size_t i = 0; i < nn; i++)
		if (mask[i])
			s2 += (v[i] - s / np) * (v[i] - s / np);
	for (size_t i = 0; i < nn; i++)
		v[i] = mask[i] ? (v[i] - s / np) / sqrt(s2 / np) : 0;
	double res[S_NHR][3], resb[S_NHR][S_NBLUR];
	int bestb[S_NHR][3], beste[S_NHR][3];
	for (int h = 0; h < S_NHR; h++) {
		for (int b = 0; b < S_NBLUR; b++)
			resb[h][b] = INFINITY;
		for (int q = 0; q < 3; q++) {
			res[h][q] = INFINITY;
			fs_se_field f;
			memset(&f, 0, sizeof f);
			fs_se_geom m = {fill, S_HR[h], q, angle, 0};
			if (fs_se_render(&m, g, sh, reach, &f)) {
				fs_se_field_free(&f);
				goto out;
			}
			for (int b = 0; b < S_NBLUR; b++) {
				for (int k = 0; k < FS_SE_SHADOW; k++)
					s_blur(f.c[k], sh, half, S_BLUR[b] * g, tmp, bl[k]);
				double coef[S_NP];
				double r0 = s_solve(bl, FS_SE_SHADOW, v, mask, nn, coef);
				double az = atan2(coef[FS_SE_SLOPE_Y], coef[FS_SE_SLOPE_X]);
				for (int e = 0; e < S_NEL; e++) {
					double rr = r0;
					if (S_EL[e] > 0) {
						fs_se_shadow(&f, az, S_EL[e] * M_PI / 180);
						s_blur(f.c[FS_SE_SHADOW], sh, half, S_BLUR[b] * g, tmp, bl[FS_SE_SHADOW]);
						double c2[S_NP];
						rr = s_solve(bl, FS_SE_NCOMP, v, mask, nn, c2);
						/* a shadow brighter than the lit surface is no shadow */
						if (!(c2[FS_SE_SHADOW] < 0))
							continue;
					}
					double rn = sqrt(rr / np);
					if (rn < res[h][q]) {
						res[h][q] = rn;
						bestb[h][q] = b;
						beste[h][q] = e;
					}
					if (rn < resb[h][b])
						resb[h][b] = rn;
				}
			}
			fs_se_field_free(&f);
		}
	}
	if (!verbose_surface)
		goto compact;
	printf("  surface at the TRUE centres, fill %.2f held (true h/R %.2f profile %.0f), %zu patches; residual = RMS / "
	       "SD of the mean patch, min over blur and elevation [best blur px, elevation]\n",
	       fill, o->h_over_r, o->profile, used);
	printf("  %6s %28s %28s %28s\n", "h/R", "sphere", "paraboloid", "flat");
	for (int h = 0; h < S_NHR; h++) {
		printf("  %6.2f", S_HR[h]);
		for (int q = 0; q < 3; q++)
			printf("      %.4f [%5.2f, %2.0f]     ", res[h][q], S_BLUR[bestb[h][q]] * pitch,
			       S_EL[beste[h][q]] > 0 ? S_EL[beste[h][q]] : 0);
		printf("\n");
	}
	printf("  min over profile and elevation by h/R (rows) and blur px (columns):\n  %6s", "h/R");
	for (int b = 0; b < S_NBLUR; b++)
		printf(" %6.2f", S_BLUR[b] * pitch);
	printf("\n");
	for (int h = 0; h < S_NHR; h++) {
		printf("  %6.2f", S_HR[h]);
		for (int b = 0; b < S_NBLUR; b++)
			printf(" %.4f", resb[h][b]);
		printf("\n");
	}
compact:;
	/* one line: the best shape, the residual at the true shape, how flat
	 * the best profile's row is along h/R, each profile's best, and the
	 * blur read from the surface: the best of the fine grid, a parabola
	 * through it and its neighbours (fine), and a parabola through the
	 * best three of the rule's own grid (dome_fit.c's BLUR, every one of
	 * which is on the fine grid) */
	int bh = 0, bq = 0;
	for (int h = 0; h < S_NHR; h++)
		for (int q = 0; q < 3; q++)
			if (res[h][q] < res[bh][bq])
				bh = h, bq = q;
	int th = 0;
	for (int h = 1; h < S_NHR; h++)
		if (fabs(S_HR[h] - o->h_over_r) < fabs(S_HR[th] - o->h_over_r))
			th = h;
	int tq = (int)lround(o->profile);
	double rtrue = tq >= 0 && tq < 3 ? res[th][tq] : NAN;
	double lo = INFINITY, hi = 0;
	for (int h = 0; h < S_NHR; h++) {
		lo = fmin(lo, res[h][bq]);
		hi = fmax(hi, res[h][bq]);
	}
	double pb[3] = {INFINITY, INFINITY, INFINITY};
	for (int h = 0; h < S_NHR; h++)
		for (int q = 0; q < 3; q++)
			pb[q] = fmin(pb[q], res[h][q]);
	/* the blur's row at the best h/R (min over profile and elevation) */
	const double *rb = resb[bh];
	int fb = 0;
	for (int b = 1; b < S_NBLUR; b++)
		if (rb[b] < rb[fb])
			fb = b;
	double fine = S_BLUR[fb] * pitch;
	if (fb > 0 && fb < S_NBLUR - 1)
		fine = vertex(S_BLUR[fb - 1], rb[fb - 1], S_BLUR[fb], rb[fb], S_BLUR[fb + 1], rb[fb + 1]) * pitch;
	static const double RULE_BLUR[] = {0.015, 0.03, 0.05, 0.075, 0.1};
	int ri[5], nr = 0;
	for (int i = 0; i < 5; i++)
		for (int b = 0; b < S_NBLUR; b++)
			if (fabs(S_BLUR[b] - RULE_BLUR[i]) < 1e-9)
				ri[nr++] = b;
	int cb = 0;
	for (int i = 1; i < nr; i++)
		if (rb[ri[i]] < rb[ri[cb]])
			cb = i;
	double coarse = S_BLUR[ri[cb]] * pitch, cpar = coarse;
	if (cb > 0 && cb < nr - 1)
		cpar = vertex(S_BLUR[ri[cb - 1]], rb[ri[cb - 1]], S_BLUR[ri[cb]], rb[ri[cb]], S_BLUR[ri[cb + 1]],
			      rb[ri[cb + 1]]) *
		       pitch;
	double tb = sqrt(bt2);
	if (label)
		printf("  surface %s (fill %.3f, pitch %.2f, %zu patches):", label, fill, pitch, used);
	else
		printf("  surface:");
	printf(" best h/R %.2f %s %.4f; at the truth %.4f; best profile's range over h/R %.4f; best sphere / "
	       "paraboloid / flat %.4f / %.4f / %.4f; blur (patch %.2f px) fine %.2f (x%.2f) rule grid %.2f (x%.2f) "
	       "its parabola %.2f (x%.2f)\n",
	       S_HR[bh], bq == 0 ? "sphere" : bq == 1 ? "paraboloid" : "flat", res[bh][bq], rtrue, hi - lo, pb[0], pb[1],
	       pb[2], tb, fine, fine / tb, coarse, coarse / tb, cpar, cpar / tb);
	rc = 0;
out:
	free(v);
	free(tmp);
	free(mask);
	for (int k = 0; k < FS_SE_NCOMP; k++)
		free(bl[k]);
	return rc;
}


/* ---- --shadow: the cast shadow's length read from the image (h38t) ----
 *
 * Why: the patch's shading cannot tell a paraboloid's or a flat top's h/R
 * (the linear weights absorb the height's scale, h38n); the cast shadow's
 * length on the ground is the one term of the image that grows with the
 * height itself. This reads it and says what h/R it implies.
 *
 * Along the direction facing away from the detector (a wedge of 5 rays
 * over +-10 deg, bilinear on the rule's measurement image, 0.02 R steps)
 * the signal falls where the away flank becomes self-shadowed (its tilt
 * reaches the elevation: the "onset", steepest fall inside the dome),
 * stays dark over the rest of the flank and the ground the dome hides,
 * and rises at the shadow's outer border (steepest rise after the
 * minimum). The base's own edge is read on the two rays across the axis
 * (no cast shadow there, the detector's term alike on both): steepest
 * fall beyond 0.5 R), printed only: it lies 0.05-0.07 R outside the base
 * (the blurred secant rim), so the reach is read against the radius
 * given: reach = border / R - 1, R the true radius at the true centres,
 * the rule's own radius at its centres (then from the image alone).
 * The search stops one pixel before the ray enters the next dome's base
 * (from the centres and radii given); a minimum or rise at that end is
 * "hidden": the neighbour's dome takes the shadow's end.
 * Readings: of the mean profile over the counted domes, and per dome
 * (median and the quartiles' half-spread).
 * Inversions (the simulator's profile shapes, as se_render.c's):
 *   el-fit  h/R whose axis reach at the formation fit's elevation and
 *           profile is the reading (fs_se_shadow_reach's geometry);
 *   el-true the same at the TRUE elevation and profile: the reading's own
 *           error, without the fit's;
 *   cot     h/R cot(el): a dome of height H f(u) (paraboloid, flat
 *           top) casts a shadow that depends on H / tan(el) alone, and so
 *           does its self-shadow's onset (H f'(u_t) = tan el): the
 *           shadow can give this product, never h/R and the elevation
 *           apart (a spherical cap changes shape with H: there only
 *           approximately);
 *   joint   h/R and elevation together from the onset and the reach
 *           (true profile), the spherical cap's only chance; but the
 *           onset is not in the image as a fall (the away flank's secant
 *           rim is brighter than its shadow's onset; the steepest fall
 *           read is the foot), so this column shows that it fails.
 */
static void shape_z(double u, double H, double profile, double *z, double *z1)
{
	if (profile <= 1) {
		double rs = (1 + H * H) / (2 * H), q = fmax(1e-9, rs * rs - u * u), sq = sqrt(q);
		double w = 1 - profile;
		*z = w * (sq - (rs - H)) + profile * H * (1 - u * u);
		*z1 = w * (-u / sq) + profile * (-2 * H * u);
		return;
	}
	double k = 2 + 4 * (profile - 1);
	*z = H * (1 - pow(u, k));
	*z1 = -H * k * pow(u, k - 1);
}

/* axis reach beyond the base (R) and the onset u_t (R; 1 when the foot is
 * no steeper than el: the flank casts nothing and the ray's fall is the
 * base) of a dome of height H (R) and profile at elevation el */
static void shadow_geom(double H, double profile, double el, double *reach, double *onset)
{
	double te = tan(el), best = 1, ub = 1;
	for (int i = 0; i <= 400; i++) {
		double u = i / 400.0, z, z1;
		shape_z(u, H, profile, &z, &z1);
		double v = u + z / te;
		if (v > best) {
			best = v;
			ub = u;
		}
	}
	*reach = best - 1;
	*onset = ub;
}

/* h/R in [0.05, 2] whose reach at (profile, el) is `reach`: bisection
 * (reach grows with h). *below = 1 when the reading is no reach at all
 * (then the h/R returned is the largest that casts none). */
static double invert_reach(double reach, double profile, double el, int *below)
{
	double lo = 0.05, hi = 2.0, r, u;
	*below = 0;
	shadow_geom(hi, profile, el, &r, &u);
	if (reach >= r)
		return hi;
	shadow_geom(lo, profile, el, &r, &u);
	if (reach <= r && reach <= 1e-6)
		*below = 1;
	for (int it = 0; it < 40; it++) {
		double m = 0.5 * (lo + hi);
		shadow_geom(m, profile, el, &r, &u);
		if (r < fmax(reach, 1e-6))
			lo = m;
		else
			hi = m;
	}
	return 0.5 * (lo + hi);
}

/* the elevation in [10, 80] deg at which a dome of h/R H and profile
 * casts `reach` (the reach falls as the elevation rises); NAN when the
 * reading lies outside what the range casts */
static double invert_elevation(double reach, double H, double profile)
{
	double lo = 10 * M_PI / 180, hi = 80 * M_PI / 180, r, u;
	shadow_geom(H, profile, lo, &r, &u);
	if (reach > r)
		return NAN;
	shadow_geom(H, profile, hi, &r, &u);
	if (reach < r || !(reach > 1e-6))
		return NAN;
	for (int it = 0; it < 40; it++) {
		double m = 0.5 * (lo + hi);
		shadow_geom(H, profile, m, &r, &u);
		if (r > reach)
			lo = m;
		else
			hi = m;
	}
	return 0.5 * (lo + hi);
}

/* (h/R, el) from onset and reach (both / R), profile given: a grid over
 * h/R 0.10-1.50 and el 15-65 deg, least squares on the two readings */
static void invert_joint(double onset, double reach, double profile, double *h_out, double *el_out)
{
	double best = INFINITY;
	*h_out = *el_out = NAN;
	for (int i = 0; i <= 70; i++) {
		double H = 0.10 + 0.02 * i;
		for (int j = 0; j <= 50; j++) {
			double el = (15 + j) * M_PI / 180, r, u;
			shadow_geom(H, profile, el, &r, &u);
			double e = (r - reach) * (r - reach) + (u - onset) * (u - onset);
			if (e < best) {
				best = e;
				*h_out = H;
				*el_out = el;
			}
		}
	}
}

#define SH_NS 121 /* samples along a ray: 0 .. span R */
/* the step (R) of a scene's rays: a span of 2.4 R, or R + 6 px where that
 * is longer (a 2-px dome's shadow border lies within 3 blur sigmas of
 * 2.4 R), so that the ground beyond the border is on the ray */
static double sh_du = 0.02;
#define SH_DU sh_du

/* the mean over a wedge of 5 rays (+-10 deg about direction a) of the
 * image from (cx, cy) at u R, u = 0 .. 2.4 */
static void wedge_profile(const fs_image *img, double cx, double cy, double R, double a, double *out)
{
	for (int s = 0; s < SH_NS; s++) {
		double acc = 0;
		for (int w = -2; w <= 2; w++) {
			double b = a + w * 5.0 * M_PI / 180;
			double r = s * SH_DU * R;
			acc += fs_image_sample_clamped(img, cx + r * cos(b), cy + r * sin(b));
		}
		out[s] = acc / 5;
	}
}

/* sub-sample position (in samples) of the extreme of v[i-1..i+1] */
static double sub_vertex(const double *v, int i)
{
	double a = v[i - 1], b = v[i], c = v[i + 1], den = a - 2 * b + c;
	return fabs(den) > 1e-12 ? i + 0.5 * (a - c) / den : i;
}

/* readings of one profile: across edge e (R), onset and border (R);
 * hi = the last sample before the neighbour; *hidden when the border is
 * not found before it */
typedef struct sh_read {
	double edge, onset, border;
	int hidden, ok, flat; /* flat: no dark run, reach 0 */
} sh_read;

static void read_profiles(const double *away, const double *acr, int hi, sh_read *r)
{
	double d[SH_NS];
	memset(r, 0, sizeof *r);
	for (int s = 1; s + 1 < SH_NS; s++)
		d[s] = (acr[s + 1] - acr[s - 1]) / (2 * SH_DU);
	/* the across edge: steepest fall over 0.5-1.6 R */
	int be = -1;
	for (int s = (int)(0.5 / SH_DU); s <= (int)(1.6 / SH_DU) && s + 2 < SH_NS; s++)
		if (be < 0 || d[s] < d[be])
			be = s;
	r->edge = sub_vertex(d, be) * SH_DU;
	if (hi > SH_NS - 3)
		hi = SH_NS - 3;
	if (hi < (int)(0.6 / SH_DU)) {
		r->hidden = 1;
		return;
	}
	for (int s = 1; s + 1 < SH_NS; s++)
		d[s] = (away[s + 1] - away[s - 1]) / (2 * SH_DU);
	/* the away minimum over 0.4 R .. hi */
	int bm = (int)(0.4 / SH_DU);
	for (int s = bm; s <= hi; s++)
		if (away[s] < away[bm])
			bm = s;
	if (bm >= hi - 1) {
		r->hidden = 1;
		return;
	}
	/* no dark run: the away ray falls to the ground and stays there
	 * (a rise after its minimum of less than 5 % of the dome's contrast
	 * across the axis is noise): no shadow beyond the base, reach 0 */
	double top = away[bm], amax = acr[0], amin = acr[0];
	for (int s = bm; s <= hi; s++)
		top = fmax(top, away[s]);
	for (int s = 0; s <= hi; s++) {
		amax = fmax(amax, acr[s]);
		amin = fmin(amin, acr[s]);
	}
	if (top - away[bm] < 0.05 * (amax - amin)) {
		r->onset = r->border = 1;
		r->ok = r->flat = 1;
		return;
	}
	int bo = (int)(0.2 / SH_DU), bb = bm + 1;
	for (int s = bo; s < bm; s++)
		if (d[s] < d[bo])
			bo = s;
	for (int s = bm + 1; s <= hi; s++)
		if (d[s] > d[bb])
			bb = s;
	/* the first local maximum of the rise worth half the steepest: the
	 * neighbour's lit flank, nearer the window's end, can rise more
	 * steeply than the shadow's border */
	for (int s = bm + 1; s < bb; s++)
		if (d[s] >= 0.5 * d[bb] && d[s] >= d[s - 1] && d[s] >= d[s + 1]) {
			bb = s;
			break;
		}
	if (bb >= hi - 1) {
		r->hidden = 1;
		return;
	}
	r->onset = sub_vertex(d, bo) * SH_DU;
	r->border = sub_vertex(d, bb) * SH_DU;
	r->ok = 1;
}

/* distance (px) along the unit ray (ux, uy) from dome i to the first
 * other base it enters */
static double ray_hit(const double *xs, const double *ys, const double *rs, size_t n, size_t i, double ux,
		      double uy)
{
	double best = INFINITY;
	for (size_t j = 0; j < n; j++) {
		if (j == i)
			continue;
		double dx = xs[j] - xs[i], dy = ys[j] - ys[i];
		double tproj = dx * ux + dy * uy;
		if (tproj <= 0)
			continue;
		double perp2 = dx * dx + dy * dy - tproj * tproj, rr = rs[j] * rs[j];
		if (perp2 >= rr)
			continue;
		double t = tproj - sqrt(rr - perp2);
		if (t < best)
			best = t;
	}
	return best;
}

static int cmp_dd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* One line: the readings at the given centres (counted ones used), the
 * away direction from azimuth az; inversions at (el_fit, prof_fit) and at
 * the truth. */
static void shadow_line(const char *label, const fs_image *img, const sem_truth *t, const double *xs,
			const double *ys, const double *rs, size_t n, double az, double el_fit, double prof_fit,
			double hr_fit, const sem_opts *o)
{
	double ax = cos(az + M_PI), ay = sin(az + M_PI);
	double *mA = calloc(SH_NS, sizeof *mA), *mC = calloc(SH_NS, sizeof *mC);
	double *pr = malloc((n + 1) * sizeof *pr), *po = malloc((n + 1) * sizeof *po);
	double *hits = malloc((n + 1) * sizeof *hits);
	double a[SH_NS], c1[SH_NS], c2[SH_NS];
	size_t used = 0, nread = 0, nhid = 0;
	double Rsum = 0;
	if (!mA || !mC || !pr || !po || !hits)
		goto out;
	{
		double rsum = 0;
		size_t rn = 0;
		for (size_t i = 0; i < n; i++)
			if (sem_counted(t, xs[i], ys[i]) && rs[i] > 0) {
				rsum += rs[i];
				rn++;
			}
		double rmean = rn ? rsum / rn : 1;
		sh_du = fmax(2.4, 1 + 6 / rmean) / (SH_NS - 1);
	}
	for (size_t i = 0; i < n; i++) {
		if (!sem_counted(t, xs[i], ys[i]) || !(rs[i] > 0))
			continue;
		double hit = ray_hit(xs, ys, rs, n, i, ax, ay);
		wedge_profile(img, xs[i], ys[i], rs[i], az + M_PI, a);
		wedge_profile(img, xs[i], ys[i], rs[i], az + M_PI / 2, c1);
		wedge_profile(img, xs[i], ys[i], rs[i], az - M_PI / 2, c2);
		for (int s = 0; s < SH_NS; s++) {
			c1[s] = 0.5 * (c1[s] + c2[s]);
			mA[s] += a[s];
			mC[s] += c1[s];
		}
		int hi = isfinite(hit) ? (int)floor((hit - 1.0) / (SH_DU * rs[i])) : SH_NS;
		hits[used] = isfinite(hit) ? hit / rs[i] : 99;
		Rsum += rs[i];
		used++;
		sh_read r;
		read_profiles(a, c1, hi, &r);
		if (r.ok) {
			pr[nread] = r.border - 1;
			po[nread] = r.onset;
			nread++;
		} else if (r.hidden)
			nhid++;
	}
	if (used < 4) {
		printf("  shadow %-5s too few counted domes (%zu)\n", label, used);
		goto out;
	}
	for (int s = 0; s < SH_NS; s++) {
		mA[s] /= used;
		mC[s] /= used;
	}
	qsort(hits, used, sizeof *hits, cmp_dd);
	/* the mean profile stops where a quarter of the domes meet a neighbour */
	double hq = hits[used / 4];
	double Rm = Rsum / used;
	int hi = hq < 90 ? (int)floor((hq - 1.0 / Rm) / SH_DU) : SH_NS;
	sh_read m;
	read_profiles(mA, mC, hi, &m);
	if (do_shadow > 1) {
		/* --shadow-profiles: the mean profiles themselves, every 0.1 R */
		printf("  shadow %-5s u (R):   ", label);
		for (int s = 0; s < SH_NS; s += 5)
			printf(" %5.2f", s * SH_DU);
		printf("\n  shadow %-5s away:    ", label);
		for (int s = 0; s < SH_NS; s += 5)
			printf(" %5.3f", mA[s]);
		printf("\n  shadow %-5s across:  ", label);
		for (int s = 0; s < SH_NS; s += 5)
			printf(" %5.3f", mC[s]);
		printf("\n");
	}
	double t_reach, t_onset;
	shadow_geom(o->h_over_r, o->profile, o->det_elevation, &t_reach, &t_onset);
	printf("  shadow %-5s true reach %.3f onset %.3f (R %.2f px; neighbour at %.2f R on the axis) | mean profile: ",
	       label, t_reach, t_onset, Rm, hq);
	if (m.ok) {
		double rch = m.border - 1, ons = m.onset;
		int b1 = 0, b2 = 0, b3 = 0;
		double hf = el_fit > 0 ? invert_reach(rch, prof_fit, el_fit, &b1) : NAN;
		double ht = invert_reach(rch, o->profile, o->det_elevation, &b2);
		/* the elevation-free quantity: h/R cot(el), read as the h/R
		 * whose reach at 45 deg is the reading (exact for the
		 * paraboloid and the flat top, whose shadows depend on H / tan e
		 * alone) */
		double hc = invert_reach(rch, o->profile, M_PI / 4, &b3), tc = o->h_over_r / tan(o->det_elevation);
		double hj, ej;
		invert_joint(ons, rch, o->profile, &hj, &ej);
		/* the other way round: the elevation the reading implies at the
		 * fit's h/R and profile (a sphere's h/R is read by the shading,
		 * h38n), and at the true ones (the reading's own error, deg) */
		double ef = hr_fit > 0 ? invert_elevation(rch, hr_fit, prof_fit) : NAN;
		double et = invert_elevation(rch, o->h_over_r, o->profile);
		printf("across edge %.3f reach %+.3f onset %.3f | h/R el-fit(%2.0f, prof %.0f) %s%.2f (%+.0f %%) el-true %s%.2f (%+.0f %%) "
		       "h/R cot(el) %s%.2f (true %.2f) joint %.2f (%+.0f %%) el %.0f | el at fit h/R %.2f: %.1f, at true h/R: %.1f deg\n",
		       m.edge, rch, ons, deg(el_fit), prof_fit, b1 ? "<" : "", hf, 100 * (hf / o->h_over_r - 1),
		       b2 ? "<" : "", ht, 100 * (ht / o->h_over_r - 1), b3 ? "<" : "", hc, tc, hj,
		       100 * (hj / o->h_over_r - 1), deg(ej), hr_fit, deg(ef), deg(et));
		if (nrows_sh < MAX_SH)
			shrows[nrows_sh++] = (sh_row){.hr = o->h_over_r, .prof = o->profile, .pitch = t->pitch,
						      .fill = o->fill, .screen = o->halftone, .rule = label[0] == 'r',
						      .ok = 1, .reach = rch, .t_reach = t_reach, .h_fit = hf,
						      .h_true = ht, .h_cot = hc, .t_cot = tc, .h_joint = hj,
						      .el_joint = ej, .below = b2};
	} else {
		printf("%s\n", m.hidden ? "HIDDEN (the minimum or the rise at the neighbour)" : "no reading");
		if (nrows_sh < MAX_SH)
			shrows[nrows_sh++] = (sh_row){.hr = o->h_over_r, .prof = o->profile, .pitch = t->pitch,
						      .fill = o->fill, .screen = o->halftone, .rule = label[0] == 'r',
						      .ok = 0, .t_reach = t_reach};
	}
	if (nread > 0) {
		qsort(pr, nread, sizeof *pr, cmp_dd);
		qsort(po, nread, sizeof *po, cmp_dd);
		int b2 = 0;
		double med = pr[nread / 2], iq = 0.5 * (pr[3 * nread / 4] - pr[nread / 4]);
		double ht = invert_reach(med, o->profile, o->det_elevation, &b2);
		printf("         per dome: %zu read, %zu hidden of %zu; reach median %+.3f (half-IQR %.3f) onset median %.3f "
		       "-> h/R el-true %s%.2f (%+.0f %%)\n",
		       nread, nhid, used, med, iq, po[nread / 2], b2 ? "<" : "", ht, 100 * (ht / o->h_over_r - 1));
	} else
		printf("         per dome: 0 read, %zu hidden of %zu\n", nhid, used);
out:
	free(mA);
	free(mC);
	free(pr);
	free(po);
	free(hits);
}

/* --shadow's summary: per class (pitch, screen, fill, h/R), for the TRUE
 * centres and the rule's: read / hidden, the median reach against the
 * truth's, and the implied h/R's median |error| at the fitted and the
 * true elevation and jointly. */
static double med_abs_err(const sh_row *const *v, size_t n, int which)
{
	double *e = malloc((n + 1) * sizeof *e);
	size_t k = 0;
	for (size_t i = 0; e && i < n; i++) {
		double h = which == 0 ? v[i]->h_fit : which == 1 ? v[i]->h_true : v[i]->h_cot;
		double t = which == 2 ? v[i]->t_cot : v[i]->hr;
		if (isfinite(h))
			e[k++] = fabs(h / t - 1);
	}
	double m = NAN;
	if (k) {
		qsort(e, k, sizeof *e, cmp_dd);
		m = e[k / 2];
	}
	free(e);
	return m;
}

static void shadow_summary(void)
{
	if (!nrows_sh)
		return;
	static const double PITCH[] = {16, 64}, FILL[] = {0.25, 0.8}, HR[] = {0.25, 1.0}, SCR[] = {0, 5},
			    PROF[] = {0, 2};
	printf("\n--shadow summary: corner classes (the 2 azimuths of each given seed set), then the interior "
	       "scenes; h/R errors only where the truth casts a shadow beyond the base\n");
	printf("| centres | pitch | screen | fill | profile | h/R | read/n | reach read (true), R | |err| h/R el-fit | el-true | "
	       "h/R cot(el) |\n");
	for (int rule = 0; rule < 2; rule++)
		for (int ip = 0; ip < 2; ip++)
			for (int is = 0; is < 2; is++)
				for (int iff = 0; iff < 2; iff++)
					for (int ipr = 0; ipr < 2; ipr++)
						for (int ih = 0; ih < 2; ih++) {
							const sh_row *v[MAX_SH];
							size_t n = 0, nok = 0;
							double rr[MAX_SH], tr = NAN;
							for (size_t i = 0; i < nrows_sh; i++) {
								const sh_row *r = &shrows[i];
								if (r->rule != rule || fabs(r->pitch - PITCH[ip]) > 0.5 ||
								    fabs(r->screen - SCR[is]) > 0.5 ||
								    fabs(r->fill - FILL[iff]) > 0.01 ||
								    fabs(r->hr - HR[ih]) > 0.01 || fabs(r->prof - PROF[ipr]) > 0.01)
									continue;
								n++;
								tr = r->t_reach;
								if (r->ok) {
									rr[nok] = r->reach;
									v[nok++] = r;
								}
							}
							if (!n)
								continue;
							double rm = NAN;
							if (nok) {
								qsort(rr, nok, sizeof *rr, cmp_dd);
								rm = rr[nok / 2];
							}
							printf("| %s | %.0f | %.0f | %.2f | %s | %.2f | %zu/%zu | %+.3f (%.3f) |", rule ? "rule" : "true",
							       PITCH[ip], SCR[is], FILL[iff], ipr ? "flat" : "sphere", HR[ih], nok, n, rm, tr);
							if (tr > 0.01)
								printf(" %.0f %% | %.0f %% | %.0f %% |\n", 100 * med_abs_err(v, nok, 0),
								       100 * med_abs_err(v, nok, 1), 100 * med_abs_err(v, nok, 2));
							else
								printf(" - | - | - |\n");
						}
	for (int rule = 0; rule < 2; rule++)
		for (int ih = 0; ih < 2; ih++) {
			const sh_row *v[MAX_SH];
			size_t n = 0, nok = 0;
			double hr = ih ? 0.5 : 0.25;
			for (size_t i = 0; i < nrows_sh; i++) {
				const sh_row *r = &shrows[i];
				if (r->rule != rule || fabs(r->pitch - 16) < 0.5 || fabs(r->pitch - 64) < 0.5 ||
				    fabs(r->hr - hr) > 0.01)
					continue;
				n++;
				if (r->ok && r->t_reach > 0.01)
					v[nok++] = r;
			}
			if (n)
				printf("| %s | interior | 0 | 0.4-0.7 | sphere | %.2f | %zu/%zu | | %.0f %% | %.0f %% | %.0f %% |\n",
				       rule ? "rule" : "true", hr, nok, n, 100 * med_abs_err(v, nok, 0),
				       100 * med_abs_err(v, nok, 1), 100 * med_abs_err(v, nok, 2));
		}
}

static int run_scene(int set, int k, unsigned seed_add, int do_surface)
{
	sem_opts o;
	scene_opts(set, k, seed_add, &o);
	dome_scene m;
	if (dome_scene_open(&m, &o, set, k))
		return -1;
	const sem_truth *t = &m.s.tr;
	const fs_detect_result *res = &m.res;
	const fs_image *meas = m.meas;
	char err[256];
	double msig = m.msig;
	int rc = -1;
	size_t nt = res->tubercles.n, nd = 0, ni = 0;
	double *xs = malloc((nt + t->n + 1) * sizeof *xs), *ys = malloc((nt + t->n + 1) * sizeof *ys),
	       *rs = malloc((nt + t->n + 1) * sizeof *rs);
	if (!xs || !ys || !rs) {
		printf("%s %d: measurement image: out of memory\n", SET_NAME[set], k);
		goto out;
	}
	double tp = o.halftone > 0 ? o.halftone : 0;
	double tb2 = o.beam_blur * o.beam_blur + msig * msig;
	if (tp > 0)
		tb2 += o.scan_blur * o.scan_blur + FS_HALFTONE_LOWPASS * tp * FS_HALFTONE_LOWPASS * tp;
	double rs1 = 0, rs2 = 0;
	size_t rn = 0;
	for (size_t j = 0; j < t->n; j++)
		if (t->inside[j]) {
			rs1 += 0.5 * t->d[j];
			rs2 += 0.25 * t->d[j] * t->d[j];
			rn++;
		}
	double rsd = rn > 1 ? sqrt(fmax(0, rs2 / rn - (rs1 / rn) * (rs1 / rn))) : 0;
	row base = {.set = set,
		    .scene = k,
		    .pitch = t->pitch,
		    .halftone = tp,
		    .t_fill = o.fill,
		    .t_hr = o.h_over_r,
		    .t_prof = o.profile,
		    .t_az = o.det_azimuth,
		    .t_el = o.det_elevation,
		    .t_img = sqrt(tb2),
		    .t_blur = sqrt(tb2 + rsd * rsd),
		    .t_edge = o.edge};
	printf("%s %d (seed +%u): pitch %.1f screen %.1f | TRUE fill %.2f h/R %.2f profile %.0f az %.0f el %.0f blur %.2f "
	       "px (image %.2f: beam %.2f, msig %.1f%s; radii SD %.2f) edge %.2f\n",
	       SET_NAME[set], k, seed_add, t->pitch, tp, o.fill, o.h_over_r, o.profile, deg(o.det_azimuth),
	       deg(o.det_elevation), base.t_blur, base.t_img, o.beam_blur, msig, tp > 0 ? ", scan, low-pass" : "",
	       rsd, o.edge);
	/* the rule's centres and radii, as fs_det_offset_domes takes them */
	for (size_t i = 0; i < nt; i++) {
		const fs_tubercle *q = &res->tubercles.items[i];
		if (!isfinite(q->radius_px) || !(q->radius_px > 0))
			continue;
		xs[nd] = q->centroid_x;
		ys[nd] = q->centroid_y;
		rs[nd++] = q->radius_px;
	}
	fs_det_offset off;
	double pitch = nd >= 8 ? fs_dome_fit_pitch(xs, ys, nd) : 0;
	int ok = nd >= 8 && pitch >= 6 && !fs_det_offset_fit(meas, xs, ys, rs, nd, pitch, NULL, &off) && off.fitted;
	double cmx, cmy, sc = centre_scatter(t, &res->tubercles, &cmx, &cmy);
	if (score) {
		/* the scene's own errors beside its fits (test_sem_accuracy's
		 * score): which formations go with a blow-up (h38v) */
		sem_score ss;
		if (!sem_score_detection(t, &res->tubercles, o.halftone, &ss))
			printf("  score: D %+.2f %% S %+.2f %% D SD %.2f %% recall %.3f precision %.3f%s\n", ss.d_err,
			       ss.s_err, ss.d_sd, ss.recall, ss.precision,
			       fabs(ss.d_err) > 5 ? "  BLOW-UP" : "");
	}
	put_row(&base, ok, ok ? &off.fit : NULL, ok ? off.fit.fill : 0, sc);
	print_row(&rows[nrows - 1], FIT_RULE);
	fs_dome_fit rule_fit = {0};
	int rule_ok = ok;
	if (ok)
		rule_fit = off.fit;
	if (refit && ok) {
		/* the rule's options but the formation fitted again at the
		 * offset found (keep_formation 0): whether the rule's formation
		 * is that of its starting offset */
		fs_dome_fit_opts ro;
		fs_dome_fit_opts_default(&ro);
		ro.no_sigma = ro.no_profiles = ro.coarse_to_fine = 1;
		ro.fill_min = ro.fill_max = off.fit.fill;
		ro.max_centres = FS_DET_OFFSET_MAX_CENTRES;
		fs_dome_fit rf;
		if (!fs_dome_fit_image(meas, xs, ys, nd, pitch, &ro, &rf, err, sizeof err)) {
			row r2 = base;
			r2.ok = 1;
			r2.scatter = sc;
			r2.fill = rf.fill;
			r2.hr = rf.h_over_r;
			r2.prof = rf.profile;
			r2.blur = rf.blur_px;
			r2.az = rf.azimuth;
			r2.el = rf.elevation;
			r2.edge = rf.edge;
			r2.side = rf.side;
			r2.shadow = rf.shadow;
			r2.r2 = rf.quality;
			r2.off = hypot(rf.offset_x, rf.offset_y) / rf.pitch;
			printf("  (refit at the offset found:)");
			print_row(&r2, FIT_RULE);
		}
		printf("  (the rule's centres minus the true: common %+.2f, %+.2f px; pitch %.2f for the true %.2f; %zu centres)\n",
		       cmx, cmy, pitch, t->pitch, nd);
	}
	/* the TRUE centres inside the scale region */
	for (size_t j = 0; j < t->n; j++)
		if (t->inside[j]) {
			xs[ni] = t->x[j];
			ys[ni] = t->y[j];
			rs[ni++] = 0.5 * t->d[j];
		}
	ok = !fs_det_offset_fit(meas, xs, ys, rs, ni, t->pitch, NULL, &off) && off.fitted;
	put_row(&base, ok, ok ? &off.fit : NULL, ok ? off.fit.fill : 0, NAN);
	print_row(&rows[nrows - 1], FIT_TRUE);
	if (do_shadow && set != SET_SMOOTH) {
		/* at the TRUE centres and radii, the true azimuth, and the
		 * inversion at the rule's fitted elevation and profile; then at
		 * the rule's centres, radii and fitted azimuth */
		/* every true dome, so that a counted dome's neighbour outside
		 * the scale region still ends its ray */
		for (size_t j = 0; j < t->n; j++) {
			xs[j] = t->x[j];
			ys[j] = t->y[j];
			rs[j] = 0.5 * t->d[j];
		}
		shadow_line("true", meas, t, xs, ys, rs, t->n, o.det_azimuth, rule_ok ? rule_fit.elevation : 0,
			    rule_ok ? rule_fit.profile : 0, rule_ok ? rule_fit.h_over_r : 0, &o);
		{
			size_t nr = 0;
			for (size_t i = 0; i < nt; i++) {
				const fs_tubercle *q = &res->tubercles.items[i];
				if (!isfinite(q->radius_px) || !(q->radius_px > 0))
					continue;
				xs[nr] = q->centroid_x;
				ys[nr] = q->centroid_y;
				rs[nr++] = q->radius_px;
			}
			if (rule_ok)
				shadow_line("rule", meas, t, xs, ys, rs, nr, rule_fit.azimuth, rule_fit.elevation,
					    rule_fit.profile, rule_fit.h_over_r, &o);
			/* the true centres back for the free fit below */
			ni = 0;
			for (size_t j = 0; j < t->n; j++)
				if (t->inside[j]) {
					xs[ni] = t->x[j];
					ys[ni] = t->y[j];
					rs[ni++] = 0.5 * t->d[j];
				}
		}
	}
	fs_dome_fit_opts fo;
	fs_dome_fit_opts_default(&fo);
	fo.no_sigma = 1;
	fo.no_profiles = 1;
	fs_dome_fit ff;
	ok = !fs_dome_fit_image(meas, xs, ys, ni, t->pitch, &fo, &ff, err, sizeof err);
	put_row(&base, ok, ok ? &ff : NULL, 0, NAN);
	print_row(&rows[nrows - 1], FIT_FREE);
	if (do_surface && !(tp > 0)) {
		ni = 0;
		for (size_t j = 0; j < t->n; j++)
			if (t->inside[j]) {
				xs[ni] = t->x[j];
				ys[ni++] = t->y[j];
			}
		surface(meas, xs, ys, ni, t->pitch, o.fill, &o, ok ? ff.angle : o.angle, base.t_blur * base.t_blur,
			NULL);
	}
	if (landscape && rule_ok) {
		/* the same surface at the rule's centres moved by the offset
		 * its fit found: at the rule's held fill, and at the true fill.
		 * Its minimum against the rule fit's residual (sqrt(1 - R^2))
		 * says whether the rule's formation is the best this patch
		 * allows (a model or centres problem) or a worse point the
		 * search settled on (a search problem); "at the truth" is the
		 * true shape's residual at these centres */
		size_t nr = 0;
		for (size_t i = 0; i < nt; i++) {
			const fs_tubercle *q = &res->tubercles.items[i];
			if (!isfinite(q->radius_px) || !(q->radius_px > 0))
				continue;
			xs[nr] = q->centroid_x + rule_fit.offset_x;
			ys[nr++] = q->centroid_y + rule_fit.offset_y;
		}
		printf("  (rule fit's residual %.4f = sqrt(1 - R^2 %.4f))\n", sqrt(fmax(0, 1 - rule_fit.quality)),
		       rule_fit.quality);
		/* the fill searched at the same centres (an image-only second
		 * opinion on the rule's median fill: where the two part, the
		 * patch itself disagrees with the level's sizes) */
		fs_dome_fit_opts lo;
		fs_dome_fit_opts_default(&lo);
		lo.no_sigma = lo.no_profiles = 1;
		fs_dome_fit lf;
		if (!fs_dome_fit_image(meas, xs, ys, nr, rule_fit.pitch, &lo, &lf, err, sizeof err))
			printf("  (free fill at the rule's centres + offset: %.3f, rule's %.3f, ratio %.3f; h/R %.2f prof %.0f "
			       "blur %.2f px R2 %.4f)\n",
			       lf.fill, rule_fit.fill, lf.fill / rule_fit.fill, lf.h_over_r, lf.profile, lf.blur_px,
			       lf.quality);
		/* the surface has no screen removal: unscreened scenes only */
		if (!(tp > 0)) {
			surface(meas, xs, ys, nr, rule_fit.pitch, rule_fit.fill, &o, rule_fit.angle,
				base.t_blur * base.t_blur, "at the rule's centres + offset, rule's fill");
			surface(meas, xs, ys, nr, rule_fit.pitch, o.fill, &o, rule_fit.angle,
				base.t_blur * base.t_blur, "at the rule's centres + offset, TRUE fill");
		}
	}
	fflush(stdout);
	rc = 0;
out:
	free(xs);
	free(ys);
	free(rs);
	dome_scene_close(&m);
	return rc;
}

/* ---- summaries ---- */

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void quart(double *v, size_t n, const char *label)
{
	if (!n) {
		printf("    %-34s (none)\n", label);
		return;
	}
	qsort(v, n, sizeof *v, cmp_d);
	printf("    %-34s n %3zu  min %7.3f  q1 %7.3f  median %7.3f  q3 %7.3f  max %7.3f\n", label, n, v[0], v[n / 4],
	       v[n / 2], v[(3 * n) / 4], v[n - 1]);
}

/* Whether a fitted h/R is the fit grid's nearest point to the truth
 * (0.2/0.4/0.7/1.0). */
static int hr_right(double fit, double truth)
{
	static const double grid[] = {0.2, 0.4, 0.7, 1.0};
	int b = 0;
	for (int i = 1; i < 4; i++)
		if (fabs(grid[i] - truth) < fabs(grid[b] - truth))
			b = i;
	return fabs(fit - grid[b]) < 1e-6;
}

typedef int (*row_pick)(const row *r);
static int pick_all(const row *r)
{
	(void)r;
	return 1;
}
static int pick_p_small(const row *r)
{
	return r->pitch < 30;
}
static int pick_p_large(const row *r)
{
	return r->pitch >= 30;
}
static int pick_screen(const row *r)
{
	return r->halftone > 0;
}
static int pick_clean(const row *r)
{
	return !(r->halftone > 0);
}
static int pick_low(const row *r)
{
	return r->t_hr < 0.75;
}
static int pick_tall(const row *r)
{
	return r->t_hr >= 0.75;
}

static void summary(int which)
{
	static const struct {
		const char *name;
		row_pick f;
	} classes[] = {{"all", pick_all},	  {"pitch < 30", pick_p_small}, {"pitch >= 30", pick_p_large},
		       {"no screen", pick_clean}, {"5-px screen", pick_screen}, {"h/R < 0.75", pick_low},
		       {"h/R 1.0", pick_tall}};
	printf("\n== summary: %s fit (%s) ==\n", FIT_NAME[which],
	       which == FIT_RULE ? "rule's centres, fill held at their median radius"
	       : which == FIT_TRUE ? "TRUE centres, fill held at the true median radius"
				   : "TRUE centres, fill searched");
	double *v = malloc(nrows * sizeof *v);
	if (!v)
		return;
	for (int set = 0; set < NSET; set++) {
		size_t n = 0;
		for (size_t i = 0; i < nrows; i++)
			n += rows[i].set == set && (int)(i % NFIT) == which;
		if (!n)
			continue;
		printf("  %s scenes (%zu):\n", SET_NAME[set], n);
		/* profile confusion: true 0 sphere, 1 paraboloid, 2 flat, 3 smooth cos^2 */
		int conf[4][3] = {{0}}, nofit = 0;
		for (size_t i = 0; i < nrows; i++) {
			const row *r = &rows[i];
			if (r->set != set || (int)(i % NFIT) != which)
				continue;
			if (!r->ok) {
				nofit++;
				continue;
			}
			int tp = (int)lround(r->t_prof), fp = (int)lround(r->prof);
			if (tp >= 0 && tp < 4 && fp >= 0 && fp < 3)
				conf[tp][fp]++;
		}
		printf("    profile confusion (rows true, columns fitted sphere / paraboloid / flat)%s\n",
		       nofit ? " (some scenes not fitted)" : "");
		static const char *pn[] = {"sphere", "paraboloid", "flat", "smooth"};
		for (int a = 0; a < 4; a++)
			if (conf[a][0] + conf[a][1] + conf[a][2])
				printf("      %-10s %3d %3d %3d\n", pn[a], conf[a][0], conf[a][1], conf[a][2]);
		/* h/R confusion: rows true h/R, columns fitted grid */
		static const double hg[] = {0.2, 0.4, 0.7, 1.0};
		static const double ht[] = {0.25, 0.5, 1.0};
		printf("    h/R confusion (rows true, columns fitted 0.2 / 0.4 / 0.7 / 1.0)\n");
		for (int a = 0; a < 3; a++) {
			int c[4] = {0}, any = 0;
			for (size_t i = 0; i < nrows; i++) {
				const row *r = &rows[i];
				if (r->set != set || (int)(i % NFIT) != which || !r->ok || fabs(r->t_hr - ht[a]) > 1e-6)
					continue;
				for (int b = 0; b < 4; b++)
					if (fabs(r->hr - hg[b]) < 1e-6)
						c[b]++, any = 1;
			}
			if (any)
				printf("      %-10.2f %3d %3d %3d %3d\n", ht[a], c[0], c[1], c[2], c[3]);
		}
		for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++) {
			size_t n1 = 0, hr_ok = 0, pr_ok = 0;
			for (size_t i = 0; i < nrows; i++) {
				const row *r = &rows[i];
				if (r->set != set || (int)(i % NFIT) != which || !r->ok || !classes[c].f(r))
					continue;
				n1++;
				hr_ok += (size_t)hr_right(r->hr, r->t_hr);
				pr_ok += (size_t)(lround(r->prof) == lround(r->t_prof));
			}
			if (!n1)
				continue;
			printf("    [%s] %zu fits: h/R on the grid point nearest the truth %zu, profile right %zu\n",
			       classes[c].name, n1, hr_ok, pr_ok);
#define DIST(expr, label)                                                                                  \
	do {                                                                                               \
		size_t m = 0;                                                                              \
		for (size_t i = 0; i < nrows; i++) {                                                       \
			const row *r = &rows[i];                                                           \
			if (r->set != set || (int)(i % NFIT) != which || !r->ok || !classes[c].f(r))      \
				continue;                                                                  \
			v[m++] = (expr);                                                                   \
		}                                                                                          \
		quart(v, m, label);                                                                        \
	} while (0)
			DIST(r->blur / blur_truth(r), "blur fitted / true (patch)");
			DIST(r->blur / r->t_img, "blur fitted / image's");
			DIST(ang_diff(r->az, r->t_az), "azimuth error, deg");
			DIST(deg(r->el), "elevation fitted, deg (0: none; 35)");
			DIST(r->edge, "edge weight (true edge 0.5)");
			DIST(r->side, "side weight");
			if (which == FIT_FREE)
				DIST(100 * (r->fill / r->t_fill - 1), "fill error, %");
			if (which != FIT_TRUE)
				DIST(r->off, "offset, pitches");
			if (which == FIT_RULE)
				DIST(r->scatter, "centre scatter, px");
			DIST(r->r2, "R^2");
#undef DIST
		}
	}
	free(v);
}

int main(int argc, char **argv)
{
	unsigned seed_add = 0;
	int only = -1, do_surface = 0, listed = 0, scenes[128];
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed-add") && i + 1 < argc)
			seed_add = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
			i++;
			only = scene_set_named(argv[i]);
			if (only < 0) {
				fprintf(stderr, "unknown set %s\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--opt") && i + 1 < argc) {
			if (sem_opts_args_say(&set_args, argv[0], "--opt", argv[++i]))
				return 2;
		} else if (!strcmp(argv[i], "--no-shadow"))
			no_shadow = 1;
		else if (!strcmp(argv[i], "--no-edge"))
			no_edge = 1;
		else if (!strcmp(argv[i], "--refit"))
			refit = 1;
		else if (!strcmp(argv[i], "--landscape"))
			landscape = 1;
		else if (!strcmp(argv[i], "--score"))
			score = 1;
		else if (!strcmp(argv[i], "--shadow"))
			do_shadow = 1;
		else if (!strcmp(argv[i], "--shadow-profiles"))
			do_shadow = 2;
		else if (!strcmp(argv[i], "--surface"))
			do_surface = 1;
		else if (!strcmp(argv[i], "--surface-tables"))
			do_surface = verbose_surface = 1;
		else if (listed < 128 && argv[i][0] >= '0' && argv[i][0] <= '9')
			scenes[listed++] = atoi(argv[i]);
		else {
			fprintf(stderr, "usage: %s [--seed-add N] [--opt KEY=VALUE] [--set corner|interior|smooth] [--surface | --surface-tables] [--no-shadow] [--no-edge] [--refit] [--landscape] [--score] [--shadow | --shadow-profiles] [SCENE...]\n",
				argv[0]);
			return 2;
		}
	}
	int rc = 0;
	for (int set = 0; set < NSET; set++) {
		if (only >= 0 && set != only)
			continue;
		if (listed) {
			for (int i = 0; i < listed; i++)
				if (scenes[i] >= 0 && scenes[i] < SET_COUNT[set])
					rc |= run_scene(set, scenes[i], seed_add, do_surface) ? 1 : 0;
		} else {
			for (int k = 0; k < SET_COUNT[set]; k++)
				rc |= run_scene(set, k, seed_add, do_surface) ? 1 : 0;
		}
	}
	for (int w = 0; w < NFIT; w++)
		summary(w);
	shadow_summary();
	return rc;
}
