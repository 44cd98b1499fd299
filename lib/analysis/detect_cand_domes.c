/*
 * detect_cand_domes.c - the dome rule's candidate step tile by tile (see
 * detect_cand_domes.h).
 */
#include "analysis/detect_cand_domes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/detect_cand_tiled.h"
#include "analysis/dome_template.h"
#include "analysis/dome_votes.h"
#include "analysis/halftone.h"
#include "analysis/preprocess.h"
#include "base/stable_sort.h"

static int clampi(long v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : (int)v;
}

/* Rows of a band of the sequential stages: a tile's pixel count (at
 * least 64 rows), as the whole image's votes take theirs. */
static int band_rows(const fs_det_source *s)
{
	long b = (long)s->tile * s->tile / s->width;
	return b < 64 ? 64 : b > s->height ? s->height : (int)b;
}

/* The smoothed image over the rectangle [x0, x1) x [y0, y1) (clipped to
 * the image), new, a crop at (*sx, *sy): made from the preprocessed crop
 * widened by the blur's radius, so inside the rectangle it is the whole
 * image's to the bit (the widened margin is not). */
static fs_image *smoothed_rect(const fs_dome_cands *st, long x0, long y0, long x1, long y1, int *sx, int *sy,
			       char *err, size_t errlen)
{
	int W = st->s->width, H = st->s->height, K = fs_gaussian_radius(st->sigma);
	int ex0 = clampi(x0 - K, 0, W), ex1 = clampi(x1 + K, 0, W);
	int ey0 = clampi(y0 - K, 0, H), ey1 = clampi(y1 + K, 0, H);
	fs_image *sm = fs_pre_region(st->s->plan, ex0, ey0, ex1 - ex0, ey1 - ey0, err, errlen);
	/* in place: the same samples as a smoothed copy */
	if (sm && fs_gaussian_blur(sm, st->sigma, err, errlen)) {
		fs_image_free(sm);
		sm = NULL;
	}
	*sx = ex0;
	*sy = ey0;
	return sm;
}

/* The gradient mean of the smoothed image: its rows 1 .. H - 2 a band at
 * a time, in order, into one sum (dome_votes.h). */
static int grad_mean(fs_dome_cands *st, char *err, size_t errlen)
{
	int W = st->s->width, H = st->s->height, B = band_rows(st->s);
	double sum = 0;
	st->mean = 0;
	if (W < 3 || H < 3)
		return 0; /* no votes (as the whole image's) */
	for (int b0 = 1; b0 < H - 1; b0 += B) {
		int b1 = b0 + B < H - 1 ? b0 + B : H - 1, sx, sy;
		fs_image *sm = smoothed_rect(st, 0, b0 - 1, W, b1 + 1, &sx, &sy, err, errlen);
		if (!sm)
			return -1;
		sum = fs_dome_grad_add(sm->data + (size_t)(b0 - sy) * W, W, b1 - b0, sum);
		fs_image_free(sm);
	}
	st->mean = sum / ((double)(W - 2) * (H - 2));
	return 0;
}

/* The rectangle a tile's response covers: its core and `reach` px
 * around it, clipped to the image. */
static void resp_rect(const fs_det_tile *t, int W, int H, int reach, int *x0, int *y0, int *x1, int *y1)
{
	*x0 = clampi((long)t->ox + t->x0 - reach, 0, W);
	*y0 = clampi((long)t->oy + t->y0 - reach, 0, H);
	*x1 = clampi((long)t->ox + t->x1 + reach, 0, W);
	*y1 = clampi((long)t->oy + t->y1 + reach, 0, H);
}

/* A tile's votes (fs_tile_resp_fn): the tile's crop smoothed (exact
 * where the votes read it: the overlap), the votes of the core and the
 * peaks' reach. */
static int votes_resp(const fs_det_tile *t, void *ctx, int reach, fs_image **resp, int *rx, int *ry, char *err,
		      size_t errlen)
{
	const fs_dome_cands *st = ctx;
	int W = st->s->width, H = st->s->height, x0, y0, x1, y1;
	resp_rect(t, W, H, reach, &x0, &y0, &x1, &y1);
	fs_image *sm = fs_gaussian_blurred(t->pre, st->sigma, err, errlen);
	fs_image *out = sm ? fs_image_new(x1 - x0, y1 - y0) : NULL;
	if (sm && !out)
		snprintf(err, errlen, "auto: out of memory");
	if (out && fs_dome_votes_rect(sm->data, (size_t)sm->width, t->ox, t->oy, W, H, st->mean, st->pitch,
				      fs_dome_votes_blur(st->pitch), x0, y0, x1, y1, out->data, (size_t)out->width,
				      err, errlen)) {
		fs_image_free(out);
		out = NULL;
	}
	fs_image_free(sm);
	*resp = out;
	*rx = x0;
	*ry = y0;
	return out ? 0 : -1;
}

int fs_dome_votes_setup_tiled(const fs_det_source *s, double pitch, fs_dome_cands *st, char *err, size_t errlen)
{
	*st = (fs_dome_cands){.s = s, .pitch = pitch};
	if (!s->plan || s->tile < 1) {
		snprintf(err, errlen, "auto: no plan to make tiles from");
		return -1;
	}
	/* the screen, on the crop the whole image's test reads */
	double period = 0;
	int hx = 0, hy = 0, hn = fs_halftone_crop(s->width, s->height, &hx, &hy);
	if (hn) {
		fs_image *crop = fs_pre_region(s->plan, hx, hy, hn, hn, err, errlen);
		if (!crop)
			return -1;
		int hrc = fs_halftone_detect(crop, &period, NULL);
		fs_image_free(crop);
		if (hrc) {
			snprintf(err, errlen, "auto: out of memory");
			return -1;
		}
	}
	st->sigma = fs_dome_smoothing(pitch, period, 1);
	return grad_mean(st, err, errlen);
}

int fs_dome_votes_peaks_tiled(const fs_dome_cands *st, double min_dist, double radius, fs_cand_list *c, double **off,
			      char *err, size_t errlen)
{
	*off = NULL;
	double pitch = st->pitch;
	int overlap = fs_peaks_tiled_reach(radius) + fs_dome_votes_reach(pitch, fs_dome_votes_blur(pitch)) +
		      fs_gaussian_radius(st->sigma);
	/* (votes_resp reads st, not changing it) */
	return fs_peaks_tiled(st->s, overlap, votes_resp, (void *)st, min_dist, radius, c, off, err, errlen);
}

int fs_dome_votes_window_tiled(const fs_dome_cands *st, int x0, int y0, int x1, int y1, fs_image **votes, char *err,
			       size_t errlen)
{
	*votes = NULL;
	const fs_det_source *s = st->s;
	double pitch = st->pitch, blur = fs_dome_votes_blur(pitch);
	int reach = fs_dome_votes_reach(pitch, blur), sx, sy;
	fs_image *sm = smoothed_rect(st, (long)x0 - reach, (long)y0 - reach, (long)x1 + reach, (long)y1 + reach, &sx,
				     &sy, err, errlen);
	if (!sm)
		return -1;
	fs_image *out = fs_image_new(x1 - x0, y1 - y0);
	if (!out)
		snprintf(err, errlen, "auto: out of memory");
	if (out && fs_dome_votes_rect(sm->data, (size_t)sm->width, sx, sy, s->width, s->height, st->mean, pitch, blur,
				      x0, y0, x1, y1, out->data, (size_t)out->width, err, errlen)) {
		fs_image_free(out);
		out = NULL;
	}
	fs_image_free(sm);
	*votes = out;
	return out ? 0 : -1;
}

/* The template's patches, band by band in the seeds' order (raster: a
 * band's seeds follow the previous band's). */
static int add_patches(const fs_dome_cands *st, fs_dome_mean *tp, const double *xs, const double *ys, size_t n,
		       char *err, size_t errlen)
{
	int W = st->s->width, H = st->s->height, B = band_rows(st->s), R = tp->R;
	size_t i = 0;
	for (int b0 = 0; b0 < H && i < n; b0 += B) {
		int b1 = b0 + B < H ? b0 + B : H, sx, sy;
		size_t j = i;
		while (j < n && floor(ys[j]) < b1)
			j++;
		if (j == i)
			continue;
		/* a patch reads rows floor(y) - R .. floor(y) + R + 1 */
		fs_image *sm = smoothed_rect(st, 0, (long)b0 - R, W, (long)b1 + R + 1, &sx, &sy, err, errlen);
		if (!sm)
			return -1;
		for (; i < j; i++)
			fs_dome_mean_add(tp, sm->data, (size_t)W, sx, sy, W, H, xs[i], ys[i]);
		fs_image_free(sm);
	}
	/* seeds below the last row (none: they are the image's peaks) */
	return 0;
}

typedef struct ncc_ctx {
	const fs_dome_cands *st;
	const fs_dome_mean *tp;
} ncc_ctx;

/* A tile's correlation (fs_tile_resp_fn), as its votes. */
static int ncc_resp(const fs_det_tile *t, void *ctx, int reach, fs_image **resp, int *rx, int *ry, char *err,
		    size_t errlen)
{
	const ncc_ctx *nc = ctx;
	int W = nc->st->s->width, H = nc->st->s->height, x0, y0, x1, y1;
	resp_rect(t, W, H, reach, &x0, &y0, &x1, &y1);
	fs_image *sm = fs_gaussian_blurred(t->pre, nc->st->sigma, err, errlen);
	fs_image *out = sm ? fs_image_new_uninit(x1 - x0, y1 - y0) : NULL;
	if (sm && !out)
		snprintf(err, errlen, "auto: out of memory");
	if (out)
		fs_dome_mean_ncc(nc->tp, sm->data, (size_t)sm->width, t->ox, t->oy, W, H, x0, y0, x1, y1, out->data,
				(size_t)out->width);
	fs_image_free(sm);
	*resp = out;
	*rx = x0;
	*ry = y0;
	return out ? 0 : -1;
}

int fs_dome_ncc_peaks_tiled(const fs_dome_cands *st, const double *xs, const double *ys, size_t n,
			    double tpl_radius, double min_dist, double radius, fs_cand_list *c, double **off,
			    fs_dome_resp *keep, int *found, char *err, size_t errlen)
{
	fs_dome_mean tp;
	*found = 0;
	if (fs_dome_mean_begin(&tp, tpl_radius, err, errlen))
		return -1;
	int rc = -1;
	if (add_patches(st, &tp, xs, ys, n, err, errlen))
		goto out;
	if (!fs_dome_mean_end(&tp)) {
		rc = 0; /* no template: the votes' peaks stay */
		if (keep)
			*keep = (fs_dome_resp){.ready = 1, .st = *st};
		goto out;
	}
	ncc_ctx nc = {st, &tp};
	fs_cand_list nl = {0};
	double *noff = NULL;
	int overlap = fs_peaks_tiled_reach(radius) + tp.R + fs_gaussian_radius(st->sigma);
	if (fs_peaks_tiled(st->s, overlap, ncc_resp, &nc, min_dist, radius, &nl, &noff, err, errlen)) {
		fs_cand_free(&nl);
		goto out;
	}
	fs_cand_free(c);
	*c = nl;
	free(*off);
	*off = noff;
	*found = 1;
	rc = 0;
	if (keep) {
		/* the template goes to keep */
		*keep = (fs_dome_resp){.ready = 1, .has_tpl = 1, .st = *st, .tp = tp};
		return 0;
	}
out:
	fs_dome_mean_free(&tp);
	return rc;
}

/* The lattice's searches' crops (fs_crop_resp_fn): the response over
 * the part of the crop at least the stages' reach inside its cut edges
 * (the image's own edges are not cut), 0 elsewhere (never read). */
static int inner(int x0, int w, int W, int m, int *a, int *b)
{
	*a = x0 > 0 ? x0 + m : 0;
	*b = x0 + w < W ? x0 + w - m : W;
	return *b > *a;
}

static fs_image *crop_resp(const fs_image *pre, int x0, int y0, void *ctx, char *err, size_t errlen)
{
	const fs_dome_resp *r = ctx;
	const fs_dome_cands *st = &r->st;
	int W = st->s->width, H = st->s->height, ax, bx, ay, by;
	fs_image *sm = fs_gaussian_blurred(pre, st->sigma, err, errlen);
	fs_image *out = sm ? fs_image_new(pre->width, pre->height) : NULL;
	if (sm && !out)
		snprintf(err, errlen, "lattice: out of memory");
	int m = fs_gaussian_radius(st->sigma) +
		(r->has_tpl ? r->tp.R : fs_dome_votes_reach(st->pitch, fs_dome_votes_blur(st->pitch)));
	if (out && inner(x0, pre->width, W, m, &ax, &bx) && inner(y0, pre->height, H, m, &ay, &by)) {
		float *o = out->data + (size_t)(ay - y0) * out->width + (ax - x0);
		if (r->has_tpl)
			fs_dome_mean_ncc(&r->tp, sm->data, (size_t)sm->width, x0, y0, W, H, ax, ay, bx, by, o,
					 (size_t)out->width);
		else if (fs_dome_votes_rect(sm->data, (size_t)sm->width, x0, y0, W, H, st->mean, st->pitch,
					    fs_dome_votes_blur(st->pitch), ax, ay, bx, by, o, (size_t)out->width, err,
					    errlen)) {
			fs_image_free(out);
			out = NULL;
		}
	}
	fs_image_free(sm);
	return out;
}

int fs_dome_probe_tiled(const fs_dome_resp *r, int R, double radius, fs_lattice_probe *q, size_t n, char *err,
			size_t errlen)
{
	if (!r->ready) {
		snprintf(err, errlen, "lattice: no dome response to search");
		return -1;
	}
	int m = fs_gaussian_radius(r->st.sigma) +
		(r->has_tpl ? r->tp.R : fs_dome_votes_reach(r->st.pitch, fs_dome_votes_blur(r->st.pitch)));
	return fs_lattice_probe_tiled_by(r->st.s, m, crop_resp, (void *)r, R, radius, q, n, err, errlen);
}

void fs_dome_resp_free(fs_dome_resp *r)
{
	if (r && r->has_tpl)
		fs_dome_mean_free(&r->tp);
	if (r)
		*r = (fs_dome_resp){0};
}

static int cmp_raster(const void *a, const void *b)
{
	const fs_cand *x = a, *y = b;
	if (x->y != y->y)
		return x->y < y->y ? -1 : 1;
	return x->x < y->x ? -1 : x->x > y->x;
}

/* qsort's stable order with cmp_raster inlined (h53d) */
FS_STABLE_SORT_DEFINE(sort_raster, fs_cand, cmp_raster)

void fs_dome_seeds_raster(fs_cand *items, size_t n)
{
	if (n > 1)
		sort_raster(items, n);
}
