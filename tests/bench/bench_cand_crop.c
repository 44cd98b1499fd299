/*
 * bench_cand_crop - how far the dome rule's candidates move under a
 * one-pixel crop of a paper figure, for three reductions of the image
 * they are voted on (h44e). Evidence only: it asserts nothing, and lib's
 * rule is not changed by it.
 *
 * Detection votes the dome rule's candidates on the image reduced by
 * f = pitch / 10 in blocks that start at the frame's origin (detect.c):
 * a crop by one pixel shifts every block by 1 / f of a block (h43k). Per
 * figure, whole and cropped by +1+0, +0+1, +1+1 (as bench_detect_domes
 * --shift), each image's own lattice estimate, the candidates of
 * fs_detect_auto_candidates (dome 1) on:
 *
 * - frame:  fs_downsample, as detection reduces (its candidates to the bit);
 * - phases: every block origin (ox, oy) in [0, f)^2 (full blocks only),
 *           pooled and merged: a pooled candidate kept where at least half
 *           the phases found one within a quarter pitch, at the pooled
 *           mean taken twice, strongest support first, none within half a
 *           pitch of one kept (a crop only relabels the phases);
 * - smooth: a Gaussian of sigma K x f input px (--smooth K, default 0.7)
 *           sampled at the frame's block centres in place of the block
 *           means.
 *
 * Printed per crop and reduction: how many candidates, and each one's
 * distance to the nearest of the whole figure's (moved by the crop):
 * median, 90th percentile, largest, and how many move more than 0.5 and
 * 2 px. `bench_cand_crop [--smooth K] [FILTER]` (FILTER: part of a
 * figure's file name).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_candidates.h"
#include "analysis/detect_methods.h"
#include "analysis/lattice_estimate.h"
#include "analysis/preprocess.h"
#include "image/image_io.h"
#include "image/image_transform.h"
#include "paper_figs.h"

enum { RED_FRAME, RED_PHASES, RED_SMOOTH, RED_N };
static const char *const red_name[RED_N] = {"frame", "phases", "smooth"};

/* Normalised Gaussian taps of sigma s about the continuous position c
 * over [c - 3s, c + 3s] (at most cap): *k0 the first index. */
static int gauss_taps(double c, double s, int cap, double *w, int *k0)
{
	int a = (int)floor(c - 3 * s), b = (int)ceil(c + 3 * s);
	if (b - a + 1 > cap)
		b = a + cap - 1;
	double sum = 0;
	for (int k = a; k <= b; k++)
		sum += w[k - a] = exp(-0.5 * (k - c) * (k - c) / (s * s));
	for (int k = a; k <= b; k++)
		w[k - a] /= sum;
	*k0 = a;
	return b - a + 1;
}

static int clampi(int v, int n)
{
	return v < 0 ? 0 : v >= n ? n - 1 : v;
}

/* img (float) reduced by f with blocks from (ox, oy), full blocks only:
 * block means, or (smooth > 0) the Gaussian of sigma smooth * f sampled
 * at the block centres (edges clamped). NULL on out of memory. */
static fs_image *reduce(const fs_image *img, int f, int ox, int oy, double smooth)
{
	int W = img->width, H = img->height, w = (W - ox) / f, h = (H - oy) / f;
	fs_image *out = w > 0 && h > 0 ? fs_image_new(w, h) : NULL;
	if (!out)
		return NULL;
	if (!(smooth > 0)) {
		for (int y = 0; y < h; y++)
			for (int x = 0; x < w; x++) {
				double s = 0;
				for (int yy = oy + y * f; yy < oy + (y + 1) * f; yy++)
					for (int xx = ox + x * f; xx < ox + (x + 1) * f; xx++)
						s += img->data[(size_t)yy * W + xx];
				out->data[(size_t)y * w + x] = (float)(s / (f * f));
			}
		return out;
	}
	double sig = smooth * f;
	int cap = (int)(6 * sig) + 3;
	double *wt = malloc((size_t)cap * sizeof *wt);
	float *cols = malloc((size_t)H * w * sizeof *cols);
	if (!wt || !cols) {
		free(wt);
		free(cols);
		fs_image_free(out);
		return NULL;
	}
	/* separable: rows filtered at the sampled columns, then those at the
	 * sampled rows */
	for (int x = 0; x < w; x++) {
		int k0, n = gauss_taps(ox + x * f + 0.5 * (f - 1), sig, cap, wt, &k0);
		for (int y = 0; y < H; y++) {
			double s = 0;
			for (int k = 0; k < n; k++)
				s += wt[k] * img->data[(size_t)y * W + clampi(k0 + k, W)];
			cols[(size_t)y * w + x] = (float)s;
		}
	}
	for (int y = 0; y < h; y++) {
		int k0, n = gauss_taps(oy + y * f + 0.5 * (f - 1), sig, cap, wt, &k0);
		for (int x = 0; x < w; x++) {
			double s = 0;
			for (int k = 0; k < n; k++)
				s += wt[k] * cols[(size_t)clampi(k0 + k, H) * w + x];
			out->data[(size_t)y * w + x] = (float)s;
		}
	}
	free(wt);
	free(cols);
	return out;
}

/* The dome candidates of small (img reduced by f from (ox, oy)), moved
 * into img's pixels and appended to out. 0, or -1. */
static int cands_of(fs_image *small, int f, int ox, int oy, const fs_params *pp, int tile, const fs_params *p,
		    double pitch, fs_cand_list *out)
{
	char err[256];
	fs_image *pre = NULL;
	int rc = fs_det_preprocess(small, pp, tile, &pre, err, sizeof err);
	fs_image_free(small);
	if (rc)
		return -1;
	size_t n0 = out->n;
	if (fs_detect_auto_candidates(&pre, NULL, f, p, pitch, 1, out, NULL, err, sizeof err))
		return -1;
	for (size_t i = n0; i < out->n; i++) {
		out->items[i].x += ox;
		out->items[i].y += oy;
	}
	return 0;
}

/* The pooled candidates' mean within rad of (x, y); returns how many. */
static int pool_mean(const fs_cand_list *pool, double x, double y, double rad, fs_cand *mean)
{
	double sx = 0, sy = 0, sr = 0;
	int k = 0;
	for (size_t j = 0; j < pool->n; j++) {
		double dx = pool->items[j].x - x, dy = pool->items[j].y - y;
		if (dx * dx + dy * dy < rad * rad) {
			sx += pool->items[j].x;
			sy += pool->items[j].y;
			sr += pool->items[j].response;
			k++;
		}
	}
	if (k)
		*mean = (fs_cand){.x = sx / k, .y = sy / k, .response = sr / k, .r = pool->items[0].r};
	return k;
}

/* Most support first, then the stronger, then by position (a crop keeps
 * that order). */
static int cmp_support(const void *a, const void *b)
{
	const fs_cand *u = a, *v = b;
	if (u->response != v->response)
		return u->response > v->response ? -1 : 1;
	if (u->y != v->y)
		return u->y < v->y ? -1 : 1;
	return (u->x > v->x) - (u->x < v->x);
}

/* The phases' candidates merged (see the header) into out. */
static int merged(const fs_image *img, int f, const fs_params *pp, int tile, const fs_params *p, double pitch,
		  fs_cand_list *out)
{
	fs_cand_list pool = {0}, kept = {0};
	int rc = -1, nph = f * f;
	for (int oy = 0; oy < f; oy++)
		for (int ox = 0; ox < f; ox++) {
			fs_image *small = reduce(img, f, ox, oy, 0);
			if (!small || cands_of(small, f, ox, oy, pp, tile, p, pitch, &pool))
				goto out;
		}
	for (size_t i = 0; i < pool.n; i++) {
		fs_cand m1, m2;
		if (2 * pool_mean(&pool, pool.items[i].x, pool.items[i].y, 0.25 * pitch, &m1) < nph)
			continue;
		int n2 = pool_mean(&pool, m1.x, m1.y, 0.25 * pitch, &m2);
		if (2 * n2 < nph)
			continue;
		m2.response = n2 + m2.response / (1.0 + fabs(m2.response));
		if (fs_cand_append(&kept, &m2))
			goto out;
	}
	if (kept.n)
		qsort(kept.items, kept.n, sizeof *kept.items, cmp_support);
	for (size_t i = 0; i < kept.n; i++) {
		int clash = 0;
		for (size_t j = 0; j < out->n && !clash; j++)
			clash = hypot(out->items[j].x - kept.items[i].x, out->items[j].y - kept.items[i].y) < 0.5 * pitch;
		if (!clash && fs_cand_append(out, &kept.items[i]))
			goto out;
	}
	rc = 0;
out:
	fs_cand_free(&pool);
	fs_cand_free(&kept);
	return rc;
}

/* The candidates of img (float) under reduction r; -1 on failure or no
 * reduction (a pitch below 20 px: detection votes at full resolution). */
static int candidates(const fs_image *img, int r, double smooth, fs_cand_list *out, double *pitch_out)
{
	char err[256];
	fs_params p;
	fs_params_default(&p);
	fs_lattice lat;
	if (fs_lattice_estimate(img, &lat, err, sizeof err) || !(lat.pitch_px >= 20))
		return -1;
	/* detect.c's reduction and its parameters for it */
	double pitch = *pitch_out = lat.pitch_px;
	int f = (int)(pitch / 10), tile = (int)lround(3 * pitch);
	fs_params pp = p;
	tile = tile / f > 2 ? tile / f : 2;
	pp.blur_sigma = p.blur_sigma / f;
	pp.tophat_radius = p.tophat_radius > 0 ? (p.tophat_radius + f - 1) / f : 0;
	if (r == RED_PHASES)
		return merged(img, f, &pp, tile, &p, pitch, out);
	fs_image *small = r == RED_FRAME ? fs_downsample(img, f) : reduce(img, f, 0, 0, smooth);
	return small ? cands_of(small, f, 0, 0, &pp, tile, &p, pitch, out) : -1;
}

static int cmp_double(const void *a, const void *b)
{
	double u = *(const double *)a, v = *(const double *)b;
	return (u > v) - (u < v);
}

/* One line: c's candidates (a crop by dx, dy) against the whole's w. */
static void report(const char *label, const fs_cand_list *w, const fs_cand_list *c, int dx, int dy)
{
	double *d = malloc((c->n ? c->n : 1) * sizeof *d);
	if (!d)
		return;
	size_t big = 0, huge = 0;
	for (size_t i = 0; i < c->n; i++) {
		double best = INFINITY;
		for (size_t j = 0; j < w->n; j++)
			best = fmin(best, hypot(c->items[i].x + dx - w->items[j].x, c->items[i].y + dy - w->items[j].y));
		d[i] = best;
		big += best > 0.5;
		huge += best > 2;
	}
	qsort(d, c->n, sizeof *d, cmp_double);
	if (c->n)
		printf("  %-10s %3zu of %3zu  move median %6.3f q90 %6.3f max %7.3f  > 0.5 px %3zu  > 2 px %3zu\n",
		       label, c->n, w->n, d[c->n / 2], d[(size_t)(0.9 * (c->n - 1))], d[c->n - 1], big, huge);
	free(d);
}

int main(int argc, char **argv)
{
	double smooth = 0.7;
	int a = 1;
	if (a + 1 < argc && !strcmp(argv[a], "--smooth")) {
		smooth = atof(argv[a + 1]);
		a += 2;
	}
	const char *only = a < argc ? argv[a] : NULL;
	const char *paper[PAPER_FIGS_MAX];
	size_t npaper = paper_fig_names(paper, PAPER_FIGS_MAX);
	static const int d[4][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
	for (size_t i = 0; i < npaper; i++) {
		if (only && !strstr(paper[i], only))
			continue;
		char path[512], err[256];
		snprintf(path, sizeof path, "tests/fixtures/paper/%s", paper[i]);
		fs_loaded L;
		if (fs_load_file(path, NULL, &L, err, sizeof err)) {
			printf("%s: load failed: %s\n", paper[i], err);
			return 1;
		}
		fs_image *img = fs_image_to_float(L.image);
		fs_loaded_free(&L);
		if (!img)
			return 1;
		printf("%s\n", paper[i]);
		for (int r = 0; r < RED_N; r++) {
			fs_cand_list whole = {0};
			double pitch = 0;
			if (candidates(img, r, smooth, &whole, &pitch)) {
				printf("  %s: no reduced candidates (pitch %.2f)\n", red_name[r], pitch);
				fs_cand_free(&whole);
				break;
			}
			printf(" %s (pitch %.2f px, f %d)\n", red_name[r], pitch, (int)(pitch / 10));
			for (int k = 1; k < 4; k++) {
				fs_rect rc = {d[k][0], d[k][1], img->width - d[k][0], img->height - d[k][1]};
				fs_image *c = fs_image_crop(img, rc, NULL, err, sizeof err);
				fs_cand_list cl = {0};
				double cp;
				char label[32];
				snprintf(label, sizeof label, "crop +%d+%d", d[k][0], d[k][1]);
				if (c && !candidates(c, r, smooth, &cl, &cp))
					report(label, &whole, &cl, d[k][0], d[k][1]);
				fs_cand_free(&cl);
				fs_image_free(c);
			}
			fs_cand_free(&whole);
		}
		fs_image_free(img);
	}
	return 0;
}
