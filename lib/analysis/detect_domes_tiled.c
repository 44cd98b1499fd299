/*
 * detect_domes_tiled.c - the dome rule's measurement tile by tile (see
 * detect_domes_tiled.h).
 *
 * Every stage is a pass over points (a candidate's start, a dome's centre
 * plus the offset): the points are bucketed into square tiles by where
 * they start, and a tile's crop is the bounding box of its points widened
 * by the stage's reach and the measurement image's filters. The points of
 * a tile are measured in raster order (8-px bands, then x), as the
 * whole-image path measures them, for the cache; each result goes to its
 * own slot, so the order changes nothing else.
 */
#include "analysis/detect_domes_tiled.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/base_readings.h"
#include "analysis/base_step.h"
#include "analysis/detect_methods.h"
#include "analysis/detect_base_fit.h"
#include "analysis/detect_base_gap.h"
#include "analysis/detect_offset.h"
#include "analysis/detect_walk.h"
#include "analysis/dome_base_fit.h"
#include "analysis/dome_measure.h"
#include "analysis/dome_signal.h"
#include "analysis/dome_fit.h"
#include "analysis/halftone.h"
#include "analysis/level_calib.h"
#include "analysis/preprocess.h"
#include "analysis/raster_order.h"
#include "base/sorting.h"
#include "base/tile_pool.h"

static double g_overlap_scale = 1.0;

void fs_det_domes_set_overlap_scale(double scale)
{
	g_overlap_scale = scale > 0 ? scale : 1.0;
}

/* One point's work on its tile's measurement image `meas`, a crop at
 * (ox, oy) of the whole one. */
typedef void (*point_fn)(const fs_image *meas, int ox, int oy, size_t i, void *ctx);

/* A tile's crop turned into the image its points read (NULL: the crop
 * itself); returns a new image, or NULL with err set. */
typedef fs_image *(*crop_fn)(const fs_image *meas, void *ctx, char *err, size_t errlen);

struct pass {
	const fs_meas *m;
	crop_fn prep;
	const double *px, *py; /* the points, m's pixels; NAN: no work */
	int reach;             /* px around a point its work reads */
	point_fn fn;
	void *ctx;
	int tile, ntx;
	const size_t *start, *idx; /* points of tile k: idx[start[k] .. start[k + 1]) */
};

/* The measurement image's own reach: the blur's kernel and the top-hat's
 * erosion then dilation. */
static int filter_reach(const fs_meas *m)
{
	return fs_gaussian_radius(m->sigma) + 2 * (m->mp->tophat_radius > 0 ? m->mp->tophat_radius : 0) + 1;
}

/* The measurement image over [x0, x1] x [y0, y1] (clipped to the image)
 * widened by the filters' reach, as a new crop at (*ox, *oy); NULL on out
 * of memory (err set). */
static fs_image *meas_crop(const fs_meas *m, int x0, int y0, int x1, int y1, int *ox, int *oy, char *err,
			   size_t errlen)
{
	const fs_image *src = m->src;
	int fr = filter_reach(m);
	x0 = x0 - fr < 0 ? 0 : x0 - fr;
	y0 = y0 - fr < 0 ? 0 : y0 - fr;
	x1 = x1 + fr > src->width - 1 ? src->width - 1 : x1 + fr;
	y1 = y1 + fr > src->height - 1 ? src->height - 1 : y1 + fr;
	fs_image *crop = x1 >= x0 && y1 >= y0 ? fs_image_region_float(src, x0, y0, x1 - x0 + 1, y1 - y0 + 1) : NULL;
	if (!crop) {
		snprintf(err, errlen, "tiled dome measurement: out of memory");
		return NULL;
	}
	fs_image *meas = NULL;
	int rc = fs_detect_measure_image(crop, m->mp, m->sigma, &meas, err, errlen);
	fs_image_free(crop);
	if (rc)
		return NULL;
	*ox = x0;
	*oy = y0;
	return meas;
}

static int do_tile(size_t k, void *arg, char *err, size_t errlen)
{
	struct pass *P = arg;
	size_t a = P->start[k], b = P->start[k + 1];
	if (a == b)
		return 0;
	double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
	for (size_t q = a; q < b; q++) {
		size_t i = P->idx[q];
		x0 = fmin(x0, P->px[i]);
		y0 = fmin(y0, P->py[i]);
		x1 = fmax(x1, P->px[i]);
		y1 = fmax(y1, P->py[i]);
	}
	int ox, oy;
	fs_image *meas = meas_crop(P->m, (int)floor(x0) - P->reach, (int)floor(y0) - P->reach,
				   (int)ceil(x1) + P->reach, (int)ceil(y1) + P->reach, &ox, &oy, err, errlen);
	if (!meas)
		return -1;
	if (P->prep) {
		fs_image *q = P->prep(meas, P->ctx, err, errlen);
		fs_image_free(meas);
		if (!q)
			return -1;
		meas = q;
	}
	for (size_t q = a; q < b; q++)
		P->fn(meas, ox, oy, P->idx[q], P->ctx);
	fs_image_free(meas);
	return 0;
}

/* Runs fn on the n points (px, py) (NAN: none), each tile's crop widened
 * by reach, in m->threads threads. Returns 0, or -1 with a message. */
static int run_pass_prep(const fs_meas *m, size_t n, const double *px, const double *py, int reach, crop_fn prep,
			 point_fn fn, void *ctx, char *err, size_t errlen)
{
	const fs_image *src = m->src;
	struct pass P = {.m = m, .prep = prep, .px = px, .py = py, .reach = reach, .fn = fn, .ctx = ctx};
	P.tile = m->tile > 0 ? m->tile : (src->width > src->height ? src->width : src->height);
	P.ntx = (src->width + P.tile - 1) / P.tile;
	int nty = (src->height + P.tile - 1) / P.tile;
	size_t nt = (size_t)P.ntx * nty;
	size_t *start = calloc(nt + 1, sizeof *start);
	size_t *idx = malloc((n ? n : 1) * sizeof *idx);
	fs_raster_key *keys = malloc((n ? n : 1) * sizeof *keys);
	int rc = -1;
	if (!start || !idx || !keys) {
		snprintf(err, errlen, "tiled dome measurement: out of memory");
		goto out;
	}
	size_t nk = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(px[i]) || !isfinite(py[i]))
			continue;
		int tx = (int)floor(px[i] / P.tile), ty = (int)floor(py[i] / P.tile);
		tx = tx < 0 ? 0 : tx >= P.ntx ? P.ntx - 1 : tx;
		ty = ty < 0 ? 0 : ty >= nty ? nty - 1 : ty;
		keys[nk++] = (fs_raster_key){(size_t)ty * P.ntx + tx, (long)floor(py[i] / 8), px[i], i};
	}
	fs_raster_sort(keys, nk);
	for (size_t q = 0; q < nk; q++) {
		idx[q] = keys[q].i;
		start[keys[q].tile + 1]++;
	}
	for (size_t k = 0; k < nt; k++)
		start[k + 1] += start[k];
	P.start = start;
	P.idx = idx;
	rc = fs_tile_pool_run(nt, m->threads, do_tile, NULL, &P, err, errlen);
out:
	free(start);
	free(idx);
	free(keys);
	return rc;
}

static int run_pass(const fs_meas *m, size_t n, const double *px, const double *py, int reach, point_fn fn,
		    void *ctx, char *err, size_t errlen)
{
	return run_pass_prep(m, n, px, py, reach, NULL, fn, ctx, err, errlen);
}

/* The whole job's state, shared read-only by the passes (each point's
 * work writes its own slots). */
struct job {
	const fs_meas *m;
	const fs_cand_list *c;
	double max_r;
	fs_measured *res;
	double *q;             /* the smoothing trials, FS_DET_SMOOTH_TRIALS a candidate */
	double smooth;
	fs_det_offset off;
	double allow;          /* how far a measurement may end from its start */
	unsigned char *strayed; /* 1: ended further than allow */
	const fs_measured *prev; /* the offset pass: the results it starts from */
	int ridge_lit;         /* the sizing's level reader (fs_meas.ridge_lit; 1 also
				* for the walked candidates under fs_det_walk_set(2)) */
	double refine;         /* the measurement pass's refinement (m->refine, or 0
				* measured again where the offset was refused) */
	int screen_fits;       /* given 2: the fit would find a screen (not made) */
	double *level_at;      /* given centres: each one's level reading (reading_point) */
	int *level_edge;       /* ... its edge and its rays' blur (fs_det_base_level_value) */
	double *level_var;
	/* the screen's period on the measurement image (halftone_of_meas),
	 * screen_read 1 once looked for, where the job has no readings set
	 * (job_screen): the image is the same in every pass of the job, and
	 * fit_offset asks at each of its calls (twice where the refined path
	 * refused the offset, h45l) */
	int screen_read;
	double screen_period;
};

static double cand_mr(const struct job *j, size_t i)
{
	return j->max_r > 0 ? j->max_r : 2 * j->c->items[i].r;
}

/* A candidate's pixel centre as fs_det_measure computes it (f 1), to the
 * last bit. */
static double pixel(double v)
{
	return (v + 0.5) / 1.0 - 0.5;
}

static void smooth_point(const fs_image *meas, int ox, int oy, size_t i, void *ctx)
{
	struct job *j = ctx;
	fs_det_smooth_trial_crop(meas, ox, oy, pixel(j->c->items[i].x) - ox, pixel(j->c->items[i].y) - oy,
				 cand_mr(j, i), 1, j->m->refine, NULL, &j->q[i * FS_DET_SMOOTH_TRIALS]);
}

static void measure_point(const fs_image *meas, int ox, int oy, size_t i, void *ctx)
{
	struct job *j = ctx;
	const fs_cand *cd = &j->c->items[i];
	fs_measured *r = &j->res[i];
	/* (no grid stage kept from the smoothing pass: its crops are not
	 * this pass's) */
	/* the centre the whole image's to the last bit once ox, oy are
	 * added (fs_det_measure_dome_crop: its refinements and base made in
	 * the whole image's pixels). Re-measure's offset pass under a screen
	 * starts from it (h39i: a last bit there moved a reading by up to
	 * 0.3 px); detection's first pass is found again by its centres'
	 * bits (base_readings.h), and a last bit off moved corner scene 53's
	 * and interior 13's readings at the image's border (h40e) */
	fs_det_measure_dome_crop(meas, ox, oy, pixel(cd->x) - ox, pixel(cd->y) - oy, cand_mr(j, i), 1, j->refine,
				 j->smooth, NULL, r);
	if (r->ok) {
		r->t.centroid_x += ox;
		r->t.centroid_y += oy;
	}
	if (j->strayed)
		j->strayed[i] = r->ok && hypot(r->t.centroid_x - cd->x, r->t.centroid_y - cd->y) > j->allow;
}

static void offset_point(const fs_image *meas, int ox, int oy, size_t i, void *ctx)
{
	struct job *j = ctx;
	fs_measured q = j->prev[i]; /* as the measurement pass left it */
	double x0 = q.t.centroid_x + j->off.dx, y0 = q.t.centroid_y + j->off.dy;
	fs_tubercle tried;
	/* (the start made in the image's pixels, then on the crop: the whole
	 * image's to the last bit, fs_det_offset_apply_crop) */
	if (fs_det_offset_apply_crop(meas, ox, oy, &j->off, cand_mr(j, i), 1, j->smooth, &q, &tried))
		j->res[i] = q;
	/* judged by where the measurement from the offset went, kept or not */
	if (j->strayed)
		j->strayed[i] = hypot(tried.centroid_x - x0, tried.centroid_y - y0) > j->allow;
}

/* Given centres (fs_meas.given): a point's base on unsmoothed rays from
 * its centre (the level's reading, detect_base_fit.h). */
static void reading_point(const fs_image *meas, int ox, int oy, size_t i, void *ctx)
{
	struct job *j = ctx;
	fs_measured *r = &j->res[i];
	double mr = cand_mr(j, i);
	double v = NAN;
	/* (the plain reading, fs_dome_measure_base_edge, with its rays' blur,
	 * which the level reads too; detection's first pass read it already
	 * where its fit left the centre, base_readings.h: a crop reads the
	 * same base wherever its origin lies, dome_measure.c) */
	double x = pixel(j->c->items[i].x), y = pixel(j->c->items[i].y);
	double r0 = FS_DOME_R0 * mr, r1 = FS_DOME_R1 * mr;
	const fs_dome_reading *kr = fs_base_readings_find(j->m->readings, FS_BASE_ON_MEAS, x, y, r0, r1);
	int rc = kr ? fs_dome_reading_apply(kr, &r->t, &r->edge, &v)
		    : fs_dome_measure_base_blur(meas, x - ox, y - oy, r0, r1, &r->t, &r->edge, &v);
	r->ok = rc == 0;
	/* the level's reading from the same point */
	j->level_at[i] = fs_det_base_level_value(rc, &r->t, r->edge, v, &j->level_edge[i], &j->level_var[i]);
	if (r->ok && !kr) { /* (a kept reading's centre is the image's) */
		r->t.centroid_x += ox;
		r->t.centroid_y += oy;
	}
}

/* How far (px) the base rule reads from the centre it starts at, with
 * rays up to r1 and smoothed by smooth: 1.3 r1 of rays, a sample step
 * beyond, the smoothing and the bilinear pixel. */
static double base_reach(double r1, double smooth)
{
	return 1.3 * r1 + fmax(0.35, 1.3 * r1 / 40) + smooth + 2;
}

/* The candidates measured again, one by one, whose measurement ended
 * further from its start than the reach their tile allowed for: each on a
 * crop as wide as its own path (twice the distance it went, then the
 * rays' reach), and again on a wider one while the path it then takes
 * goes further (a dome cut by the image's border can send the base's
 * circle fit a long way). start: the point the pass started from (NULL:
 * the candidates' own), fn the pass's work. */
static int remeasure_strayed(struct job *j, const double *sx, const double *sy, point_fn fn, double base,
			     char *err, size_t errlen)
{
	const fs_meas *m = j->m;
	int W = m->src->width, H = m->src->height;
	unsigned char *strayed = j->strayed;
	j->strayed = NULL; /* the work below does not flag again */
	int rc = 0;
	for (size_t i = 0; i < j->c->n && !rc; i++) {
		if (!strayed[i])
			continue;
		double x0 = sx ? sx[i] : j->c->items[i].x, y0 = sy ? sy[i] : j->c->items[i].y;
		double d = hypot(j->res[i].t.centroid_x - x0, j->res[i].t.centroid_y - y0);
		for (int round = 0; round < 8; round++) {
			int reach = (int)ceil(2 * d + base);
			int ox, oy;
			fs_image *meas = meas_crop(m, (int)floor(x0) - reach, (int)floor(y0) - reach,
						   (int)ceil(x0) + reach, (int)ceil(y0) + reach, &ox, &oy, err, errlen);
			if (!meas) {
				rc = -1;
				break;
			}
			fn(meas, ox, oy, i, j);
			fs_image_free(meas);
			double d2 = j->res[i].ok ? hypot(j->res[i].t.centroid_x - x0, j->res[i].t.centroid_y - y0) : 0;
			int whole = reach >= W && reach >= H;
			if (d2 <= d || whole)
				break;
			d = d2;
		}
	}
	j->strayed = strayed;
	return rc;
}

/* The halftone period the formation fit would find on the whole
 * measurement image: its search reads only the centred n x n crop
 * (halftone.h), made here alone. */
static int halftone_of_meas(const fs_meas *m, double *period, char *err, size_t errlen)
{
	int W = m->src->width, H = m->src->height, s = W < H ? W : H;
	*period = 0;
	if (s < 64)
		return 0;
	int n = 64;
	while (2 * n <= s && n < 256)
		n *= 2;
	int x0 = (W - n) / 2, y0 = (H - n) / 2, ox, oy;
	fs_image *meas = meas_crop(m, x0, y0, x0 + n - 1, y0 + n - 1, &ox, &oy, err, errlen);
	fs_image *sub = meas ? fs_image_new(n, n) : NULL;
	int rc = -1;
	if (!sub) {
		snprintf(err, errlen, "tiled dome measurement: out of memory");
		goto out;
	}
	for (int y = 0; y < n; y++)
		memcpy(sub->data + (size_t)y * n, meas->data + (size_t)(y0 - oy + y) * meas->width + (x0 - ox),
		       (size_t)n * sizeof *sub->data);
	if (fs_halftone_detect(sub, period, NULL)) {
		snprintf(err, errlen, "tiled dome measurement: out of memory");
		goto out;
	}
	rc = 0;
out:
	fs_image_free(meas);
	fs_image_free(sub);
	return rc;
}

/* halftone_of_meas once a detection: kept in the detection's readings
 * set (m->readings, base_readings.h), whose last step is another job on
 * the same measurement image (m->src, m->mp and m->sigma, all that
 * meas_crop reads, are the detection's: detect.c); without a set
 * (Re-measure) once a job (j->screen_read). 0, or -1 with err set
 * (nothing kept then). */
static int job_screen(struct job *j, double *period, char *err, size_t errlen)
{
	fs_base_readings *r = j->m->readings;
	int *read = r ? &r->screen_read : &j->screen_read;
	double *kept = r ? &r->screen_period : &j->screen_period;
	if (!*read) {
		if (halftone_of_meas(j->m, kept, err, errlen))
			return -1;
		*read = 1;
	}
	*period = *kept;
	return 0;
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* A mosaic of ncell cells of S x S pixels, as square as it goes (cell k at
 * column k % *cols, row k / *cols); NULL when out of memory. The caller
 * owns the image. */
static fs_image *mosaic_new(size_t ncell, int S, int *cols)
{
	*cols = (int)ceil(sqrt((double)(ncell ? ncell : 1)));
	int rows = (int)((ncell + *cols - 1) / *cols);
	return fs_image_new(*cols * S, (rows ? rows : 1) * S);
}

/* The whole image's measurement image over the S x S cell at (cx, cy),
 * low-passed by a Gaussian of sigma lowpass when it is > 0 (the crop
 * widened by the blur's reach, so the cell's values are the whole low-passed
 * image's), copied into mosaic at (mx, my). Pixels beyond the image's edge
 * take the edge's (what reads the cell stays inside the image; the copy is
 * the edge the whole image's filters replicate). 0, or -1 with err set. */
static int copy_cell(const fs_meas *m, int cx, int cy, int S, double lowpass, fs_image *mosaic, int mx, int my,
		     char *err, size_t errlen)
{
	int W = m->src->width, H = m->src->height;
	int lp = lowpass > 0 ? fs_gaussian_radius(lowpass) + 1 : 0;
	int ox, oy;
	fs_image *meas = meas_crop(m, clampi(cx - lp, 0, W - 1), clampi(cy - lp, 0, H - 1),
				   clampi(cx + S - 1 + lp, 0, W - 1), clampi(cy + S - 1 + lp, 0, H - 1), &ox, &oy, err,
				   errlen);
	if (!meas)
		return -1;
	if (lp) {
		fs_image *q = fs_gaussian_blurred(meas, lowpass, err, errlen);
		fs_image_free(meas);
		if (!(meas = q))
			return -1;
	}
	for (int v = 0; v < S; v++) {
		int yy = clampi(cy + v, 0, H - 1) - oy;
		for (int u = 0; u < S; u++) {
			int xx = clampi(cx + u, 0, W - 1) - ox;
			mosaic->data[(size_t)(my + v) * mosaic->width + mx + u] = meas->data[(size_t)yy * meas->width + xx];
		}
	}
	fs_image_free(meas);
	return 0;
}

/*
 * The common offset (detect_offset.h) without the whole measurement
 * image: the patches the fit reads (fs_dome_fit_reach) copied into a
 * mosaic of square cells, each the whole image's measurement image about
 * one centre (its border replicated where the image's is, as the
 * low-pass of a halftone sees it), and the fit run on the mosaic with
 * the period found on the whole image. Fills j->off.
 */
static int formation_at(const fs_meas *m, const double *xs, const double *ys, double *rs, size_t nd, double pitch,
			double period, int refit, fs_det_offset *out, int *screen_fits, char *err, size_t errlen);

/* The common offset of j's domes into j->off: the formation fitted on a
 * mosaic about them, the screen's period given (period >= 0) or looked
 * for on the measurement image (period < 0). 0, or -1 with err set. */
static int fit_offset_period(struct job *j, double period, char *err, size_t errlen)
{
	const fs_meas *m = j->m;
	size_t n = j->c->n;
	memset(&j->off, 0, sizeof j->off);
	if (n < 8)
		return 0;
	fs_det_domes d;
	double pitch;
	int rc = fs_det_offset_domes_read(j->res, n, &d, &pitch);
	if (rc < 0)
		snprintf(err, errlen, "tiled dome measurement: out of memory");
	if (rc <= 0)
		goto out;
	rc = 0;
	if ((period < 0 && job_screen(j, &period, err, errlen)) ||
	    formation_at(m, d.x, d.y, d.r, d.n, pitch, period, 0, &j->off, &j->screen_fits, err, errlen))
		rc = -1;
out:
	fs_det_offset_domes_free(&d);
	return rc;
}

static int fit_offset(struct job *j, char *err, size_t errlen)
{
	return fit_offset_period(j, -1, err, errlen);
}

/* The fit's first look at nd centres (xs, ys; rs their base radii,
 * reordered in place) on the mosaic of their patches, the screen's period
 * given (fs_det_offset_fit_once; with refit the screened level's refit,
 * its fill walked: fs_det_offset_refit_walk): *out. With screen_fits (may
 * be NULL) in detection's last step, only whether the fit would find a
 * screen (*screen_fits 1, no fit made). 0, or -1 with err set. */
static int mosaic_fit(const fs_meas *m, const double *xs, const double *ys, double *rs, size_t nd, double pitch,
		      double period, int refit, fs_det_offset *out, int *screen_fits, char *err, size_t errlen)
{
	int W = m->src->width, H = m->src->height;
	memset(out, 0, sizeof *out);
	int *pxs = malloc((nd ? nd : 1) * sizeof *pxs), *pys = malloc((nd ? nd : 1) * sizeof *pys);
	fs_image *mosaic = NULL;
	int rc = -1;
	if (!pxs || !pys)
		goto oom;
	size_t stride;
	double ext;
	fs_dome_fit_reach(pitch, nd, FS_DET_OFFSET_MAX_CENTRES, &stride, &ext);
	int lp = period > 0 ? fs_gaussian_radius(FS_HALFTONE_LOWPASS * period) + 1 : 0;
	int half = (int)ceil(ext) + 2 + lp; /* a cell: the centre's pixel +- half */
	int S = 2 * half + 1;
	size_t ncell = 0;
	for (size_t i = 0; i < nd; i++) {
		pxs[i] = pys[i] = INT_MIN; /* not read, or outside */
		if (i % stride == 0 && fs_dome_fit_whole(xs[i], ys[i], ext, W, H))
			ncell++;
	}
	/* detection's last step keeps its sizes under a screen: the fit is
	 * not made where it would find one (detect_offset.h,
	 * fs_det_offset_screen_fits; on the mosaic every cell's patch is
	 * whole, so the fit reads ncell of them) */
	if (screen_fits && m->given == 2 && period > 0 && ncell >= 8) {
		*screen_fits = 1;
		rc = 0;
		goto out;
	}
	int cols;
	mosaic = mosaic_new(ncell, S, &cols);
	if (!mosaic)
		goto oom;
	size_t cell = 0;
	for (size_t i = 0; i < nd; i += stride) {
		if (!fs_dome_fit_whole(xs[i], ys[i], ext, W, H))
			continue;
		int cx = (int)floor(xs[i]) - half, cy = (int)floor(ys[i]) - half;
		int mx = (int)(cell % cols) * S, my = (int)(cell / cols) * S;
		if (copy_cell(m, cx, cy, S, 0, mosaic, mx, my, err, errlen))
			goto out;
		/* (the centre's shift into its cell: the fit makes each
		 * sample's position at the centre itself, dome_fit.h) */
		pxs[i] = cx - mx;
		pys[i] = cy - my;
		cell++;
	}
	fs_dome_fit_opts reading;
	memset(&reading, 0, sizeof reading);
	reading.patch_ox = pxs;
	reading.patch_oy = pys;
	reading.halftone_given = 1;
	reading.halftone_period = period;
	reading.cap_tie = fs_det_offset_cap_tie(m);
	reading.foot_search = fs_det_offset_foot_search(m);
	if (refit)
		fs_det_offset_refit_walk(&reading);
	fs_det_offset_fit_once(mosaic, xs, ys, rs, nd, pitch, &reading, out);
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "tiled dome measurement: out of memory");
out:
	free(pxs);
	free(pys);
	fs_image_free(mosaic);
	return rc;
}

/* fs_det_offset_fit's two looks (detect_offset.h), each on its own
 * mosaic; refit and screen_fits as mosaic_fit's. */
static int formation_at(const fs_meas *m, const double *xs, const double *ys, double *rs, size_t nd, double pitch,
			double period, int refit, fs_det_offset *out, int *screen_fits, char *err, size_t errlen)
{
	if (mosaic_fit(m, xs, ys, rs, nd, pitch, period, refit, out, screen_fits, err, errlen))
		return -1;
	if (!fs_det_offset_refit_wanted(out))
		return 0;
	/* the whole image's second look from the moved centres
	 * (detect_offset.h) on patches copied about them: the first mosaic's
	 * hold the first centres' patches, and a look at them found the
	 * first offset again, which was then added twice */
	double *x2 = malloc(nd * sizeof *x2), *y2 = malloc(nd * sizeof *y2);
	int rc = -1;
	if (!x2 || !y2) {
		snprintf(err, errlen, "tiled dome measurement: out of memory");
		goto out;
	}
	for (size_t i = 0; i < nd; i++) {
		x2[i] = xs[i] + out->fit.offset_x;
		y2[i] = ys[i] + out->fit.offset_y;
	}
	fs_det_offset second;
	if (mosaic_fit(m, x2, y2, rs, nd, pitch, period, refit, &second, NULL, err, errlen))
		goto out;
	fs_det_offset_take_refit(out, &second);
	rc = 0;
out:
	free(x2);
	free(y2);
	return rc;
}

/* The per-tubercle template fit (detect_base_fit.h) on crops: what the
 * fit pass shares. */
struct base_job {
	const fs_dome_tpl *t;
	double lowpass;        /* the halftone low-pass's sigma, 0: none */
	const fs_det_base_plan *p;
	const double *sx, *sy; /* where each entry's fit starts (px of the whole image) */
	double *fr;            /* the fitted radius of plan entry k, NAN: none */
	double *fx, *fy;       /* its fitted centre (px of the whole image) */
	const double *lvx, *lvy; /* where its level is read under a screen */
	double *lr;            /* the base rule's radius from that centre */
	int *le;               /* ... pinned at its window's end (fs_det_base_level_one) */
	double *var;           /* the blur's variance its rays showed (NAN) */
	double *l2;            /* the radius read again, blurred (h32e) */
	double *la;            /* its polygon's elongation along the detector, under a screen (NAN) */
	double az;             /* the formation's detector azimuth (radians) */
	int ridge_lit;         /* the level's far_out (fs_meas.ridge_lit) */
	double cap;            /* its lit cap (fs_det_base_set_lit_gate; NAN: free) */
	double *sh;            /* each reading's near-half shift (NAN: none) */
	double *sig;           /* its SE signal (dome_signal.h), NAN: none */
	unsigned char *end;    /* 1: its best fill an end of the range (NULL: not kept) */
	fs_dome_reading *kept; /* the level's readings for fs_meas.readings (NULL: none kept) */
	const struct job *j;   /* the candidates' reach */
	int given;             /* fs_meas.given: fs_det_base_tpl_fit's */
	int failed;            /* a fit ran out of memory */
};

static fs_image *lowpass_crop(const fs_image *meas, void *ctx, char *err, size_t errlen)
{
	const struct base_job *b = ctx;
	return fs_gaussian_blurred(meas, b->lowpass, err, errlen);
}

static void fit_point(const fs_image *meas, int ox, int oy, size_t k, void *ctx)
{
	struct base_job *b = ctx;
	fs_dome_tfit f;
	/* (in the whole image's pixels: dome_base_fit.h) */
	/* (the first pass's fits kept: fs_det_set_first_formation's mode 5) */
	int q = fs_det_base_tpl_fit_kept(b->t, meas, ox, oy, b->sx[k] - ox, b->sy[k] - oy, b->given, b->j->m->readings,
					 &f);
	if (q < 0)
		b->failed = 1;
	b->fr[k] = q == 0 && isfinite(f.radius) ? f.radius : NAN;
	if (isfinite(b->fr[k])) {
		b->fx[k] = f.x + ox;
		b->fy[k] = f.y + oy;
	}
	/* as fs_det_base_fit_apply reads it: the crop holds the patch and
	 * is cut only where the image ends */
	int sized = isfinite(b->fr[k]);
	if (b->end)
		b->end[k] = q == 0 && !sized;
	b->sig[k] = q < 0    ? NAN
		    : q == 0 ? (sized ? f.signal_end : f.signal_start)
			     : fs_dome_signal_at_crop(b->t, meas, ox, oy, b->sx[k] - ox, b->sy[k] - oy).signal;
}

/* the base rule's level from the fitted centre (detect_base_fit.h), on
 * the unfiltered crop as on the whole measurement image */
static void level_point(const fs_image *meas, int ox, int oy, size_t k, void *ctx)
{
	struct base_job *b = ctx;
	fs_dome_reading *r = b->kept ? &b->kept[k] : NULL;
	b->lr[k] = fs_det_base_level_blur(meas, b->fx[k] - ox, b->fy[k] - oy, cand_mr(b->j, b->p->idx[k]), 1,
					  &b->le[k], &b->var[k], r);
	if (r && !r->rc) { /* its centre in the image's pixels, as kept */
		r->t.centroid_x += ox;
		r->t.centroid_y += oy;
	}
}

/* ... and again on the crop blurred by FS_DET_BASE_EXTRA_BLUR more, for
 * the level's extrapolation to no blur (detect_base_fit.h) */
static fs_image *extrap_crop(const fs_image *meas, void *ctx, char *err, size_t errlen)
{
	(void)ctx;
	return fs_gaussian_blurred(meas, FS_DET_BASE_EXTRA_BLUR, err, errlen);
}

static void level_point_blurred(const fs_image *b2, int ox, int oy, size_t k, void *ctx)
{
	struct base_job *b = ctx;
	int e2;
	double v2;
	/* (fs_det_base_level_one's reading: the same radius) */
	fs_dome_reading *r = b->kept ? &b->kept[k] : NULL;
	b->l2[k] = fs_det_base_level_blur(b2, b->fx[k] - ox, b->fy[k] - oy, cand_mr(b->j, b->p->idx[k]), 1, &e2, &v2,
					  r);
	if (r && !r->rc) {
		r->t.centroid_x += ox;
		r->t.centroid_y += oy;
	}
}

/* The readings of plan entries whose lx is finite, kept in b->kept by
 * the pass just run, into the set on image `on` (base_readings.h). */
static void keep_readings(const fs_meas *m, const struct base_job *b, const double *lx, int on)
{
	for (size_t k = 0; b->kept && k < b->p->n; k++) {
		double mk = cand_mr(b->j, b->p->idx[k]);
		if (isfinite(lx[k]))
			(void)fs_base_readings_add(m->readings, on, b->fx[k], b->fy[k], FS_DOME_R0 * mk, FS_DOME_R1 * mk,
						   &b->kept[k]);
	}
	if (b->kept)
		fs_base_readings_seal(m->readings);
}

/* ... and under a halftone screen whose low-pass leaves the bases
 * resolved, on the low-passed crop (fs_det_base_level_screened) */
static void level_point_lowpassed(const fs_image *lp, int ox, int oy, size_t k, void *ctx)
{
	struct base_job *b = ctx;
	b->lr[k] = fs_det_base_level_lowpassed_lit(lp, b->lvx[k] - ox, b->lvy[k] - oy, cand_mr(b->j, b->p->idx[k]), 1,
						   b->az, b->ridge_lit, b->cap, &b->le[k], &b->la[k], &b->sh[k]);
}

/* Whether the level's readings lie on a step (base_step.h): each judged
 * entry's contrast at its reading, on its tile's crop of the measurement
 * image, into its own slot. */
struct step_job {
	const struct base_job *b;
	const double *qx, *qy, *qr; /* the reading's point and radius (NAN: not on this pass) */
	double *step;
	int w, h;                   /* the whole image's size */
};

static void step_point(const fs_image *img, int ox, int oy, size_t k, void *ctx)
{
	struct step_job *s = ctx;
	double mk = cand_mr(s->b->j, s->b->p->idx[k]);
	s->step[k] = fs_base_step_contrast(img, ox, oy, s->w, s->h, s->qx[k], s->qy[k], s->qr[k], FS_DOME_R0 * mk,
					   FS_DOME_R1 * mk);
}

/* The valleys' reading under a tight screen (detect_base_gap.h) on the
 * tiles' crops of the measurement image: each neighbour pair a point at
 * its midpoint, its feet into its own slot (fs_gap_feet_at). */
struct gap_job {
	const fs_meas *m;
	const double *x, *y; /* the domes' centres (px of the whole image) */
	fs_gap_pair *pr;
	int method;
	double sigma;
	char *err;
	size_t errlen;
};

static void gap_point(const fs_image *meas, int ox, int oy, size_t q, void *ctx)
{
	struct gap_job *g = ctx;
	fs_gap_pair *e = &g->pr[q];
	e->read = !fs_gap_feet_at(meas, ox, oy, g->m->src->width, g->m->src->height, g->x[e->i], g->y[e->i],
				  g->x[e->j], g->y[e->j], g->method, g->sigma, &e->ra, &e->rb, NULL);
}

/* fs_det_gap_read_fn: every pair on its tile's crop. A valley's samples
 * lie within 0.35 of the pair's distance along its line and 0.5 px across
 * from its midpoint (gap_read.c), and bilinear sampling reads one pixel
 * further: the crop reaches 0.35 d + 2 px round each midpoint. */
static int gap_read_tiled(void *ctx, const double *x, const double *y, fs_gap_pair *pr, size_t np, int method,
			  double sigma)
{
	struct gap_job *g = ctx;
	g->x = x;
	g->y = y;
	g->pr = pr;
	g->method = method;
	g->sigma = sigma;
	double *mx = malloc(2 * (np ? np : 1) * sizeof *mx);
	if (!mx) {
		snprintf(g->err, g->errlen, "tiled dome measurement: out of memory");
		return -1;
	}
	double *my = mx + np, dmax = 0;
	for (size_t q = 0; q < np; q++) {
		mx[q] = 0.5 * (x[pr[q].i] + x[pr[q].j]);
		my[q] = 0.5 * (y[pr[q].i] + y[pr[q].j]);
		dmax = fmax(dmax, hypot(x[pr[q].j] - x[pr[q].i], y[pr[q].j] - y[pr[q].i]));
	}
	int reach = (int)ceil(g_overlap_scale * (0.35 * dmax + 2));
	int rc = run_pass(g->m, np, mx, my, reach, gap_point, g, g->err, g->errlen);
	free(mx);
	return rc;
}

/* fs_det_base_step_point's judgement of every plan entry into step, on
 * the tiles' crops of the measurement image (no screen: the caller);
 * qx, qy, qr: p->n doubles each of scratch. 0, or -1 with a message. */
static int steps_tiled(const fs_meas *m, const fs_det_base_plan *p, const struct base_job *b, int screened,
		       const fs_measured *res, double *qx, double *qy, double *qr, double *step, char *err,
		       size_t errlen)
{
	double mr = 0, rmax = 0;
	for (size_t k = 0; k < p->n; k++) {
		step[k] = qx[k] = qy[k] = qr[k] = NAN;
		double x, y, r;
		if (!fs_det_base_step_point(p, b->fr, b->fx, b->fy, b->lvx, b->lvy, b->lr, b->le, screened, res, k, &x,
					    &y, &r))
			continue;
		double mk = cand_mr(b->j, p->idx[k]);
		/* the last step judges where the first pass did
		 * (base_readings.h): those are not judged again */
		if (m->given && fs_base_readings_find_step(m->readings, x, y, r, FS_DOME_R0 * mk, FS_DOME_R1 * mk, &step[k]))
			continue;
		mr = fmax(mr, mk);
		rmax = fmax(rmax, r);
		qx[k] = x;
		qy[k] = y;
		qr[k] = r;
	}
	struct step_job s = {b, qx, qy, qr, step, m->src->width, m->src->height};
	int reach = (int)ceil(g_overlap_scale * (fmax(FS_DOME_R1 * mr, rmax) + FS_BASE_STEP_REACH));
	if (run_pass_prep(m, p->n, qx, qy, reach, NULL, step_point, &s, err, errlen))
		return -1;
	/* kept after the pass, in plan order (adding is not thread-safe) */
	for (size_t k = 0; m->readings && !m->given && k < p->n; k++) {
		double mk = cand_mr(b->j, p->idx[k]);
		if (isfinite(qx[k]))
			(void)fs_base_readings_add_step(m->readings, qx[k], qy[k], qr[k], FS_DOME_R0 * mk, FS_DOME_R1 * mk, step[k]);
	}
	if (m->readings && !m->given)
		fs_base_readings_seal(m->readings);
	return 0;
}

/* No templates at given centres (h43h): as the whole image's
 * own_judged_whole (detect_base_fit.c), the base rule's own readings
 * judged on the tiles' crops (steps_tiled) and the plan left unmeasured
 * where most lie on no step. qx and step: p->n scratch doubles each (b's
 * l2 and var the other two). 0, -1 (err set). */
static int own_judged_tiled(const fs_meas *m, fs_det_base_plan *p, struct base_job *b, double *qx, double *step,
			    char *err, size_t errlen)
{
	for (size_t k = 0; k < p->n; k++) {
		b->fr[k] = b->lr[k] = NAN;
		b->fx[k] = p->xs[k];
		b->fy[k] = p->ys[k];
	}
	b->lvx = b->fx;
	b->lvy = b->fy;
	fs_det_base_own_plan(p, b->fr, m->given);
	if (fs_det_base_step_pick(p, b->fr, b->fx, b->fy, b->lvx, b->lvy, NULL, NULL, 0, b->j->res)) {
		snprintf(err, errlen, "tiled dome measurement: out of memory");
		return -1;
	}
	if (steps_tiled(m, p, b, 0, b->j->res, qx, b->l2, b->var, step, err, errlen))
		return -1;
	fs_det_base_fit_scale(p, b->fr, b->fx, b->fy, NULL, NULL, step, b->j->res, NULL);
	return 0;
}

/* The axis step (detect_base_fit.h, centre_axis.h): each read dome's
 * profiles on its tile's crop, into its own slots. */
struct axis_job {
	const fs_centre_axis_geom *g;
	const double *x, *y;  /* the read domes' fitted centres */
	double *profs;        /* fs_centre_axis_len(g) each */
};

static void axis_point(const fs_image *meas, int ox, int oy, size_t i, void *ctx)
{
	struct axis_job *a = ctx;
	fs_centre_axis_profile(meas, a->x[i] - ox, a->y[i] - oy, a->g, a->profs + i * fs_centre_axis_len(a->g));
}

/* fs_det_axis_reader on the tiles' crops: each dome's profiles read on
 * its tile's crop (its own slots). */
struct axis_read {
	const fs_meas *m;
	char *err;
	size_t errlen;
};

static int axis_read_tiled(void *ctx, const fs_centre_axis_geom *g, const size_t *sel, size_t ns, const double *xs,
			   const double *ys, double *profs)
{
	struct axis_read *r = ctx;
	double *x = malloc(2 * ns * sizeof *x);
	if (!x) {
		snprintf(r->err, r->errlen, "tiled dome measurement: out of memory");
		return -1;
	}
	for (size_t i = 0; i < ns; i++) {
		x[i] = xs[sel[i]];
		x[ns + i] = ys[sel[i]];
	}
	struct axis_job a = {.g = g, .x = x, .y = x + ns, .profs = profs};
	int reach = (int)ceil(g_overlap_scale * (fs_centre_axis_reach(g) + 2));
	int rc = run_pass(r->m, ns, a.x, a.y, reach, axis_point, &a, r->err, r->errlen);
	free(x);
	return rc;
}

/* The axis step's move judged against the base's step (detect_base_fit.h,
 * fs_det_base_axis_refused): each sized dome's reading at its centre and
 * at its centre plus (dx, dy), on its tile's crop, into its own slots. */
struct axis_check {
	const struct base_job *b;
	double dx, dy;
	signed char *on0, *on1;
	int w, h;
};

static void axis_check_point(const fs_image *meas, int ox, int oy, size_t k, void *ctx)
{
	struct axis_check *a = ctx;
	double mr = cand_mr(a->b->j, a->b->p->idx[k]);
	fs_det_base_axis_judge(meas, ox, oy, a->w, a->h, a->b->fx[k], a->b->fy[k], mr, &a->on0[k]);
	fs_det_base_axis_judge(meas, ox, oy, a->w, a->h, a->b->fx[k] + a->dx, a->b->fy[k] + a->dy, mr, &a->on1[k]);
}

/* 1 when the move is refused, 0 kept, -1 (err set) on out of memory */
static int axis_refused_tiled(const fs_meas *m, const fs_det_base_plan *p, const struct base_job *b,
			      const fs_centre_axis *ax, char *err, size_t errlen)
{
	size_t n = p->n;
	signed char *on = malloc(2 * n);
	double *qx = malloc(n * sizeof *qx);
	if (!on || !qx) {
		free(on);
		free(qx);
		snprintf(err, errlen, "tiled dome measurement: out of memory");
		return -1;
	}
	double mr = 0;
	for (size_t k = 0; k < n; k++) {
		on[k] = on[n + k] = -1;
		qx[k] = isfinite(b->fr[k]) ? b->fx[k] : NAN;
		if (isfinite(b->fr[k]))
			mr = fmax(mr, cand_mr(b->j, p->idx[k]));
	}
	struct axis_check a = {b, ax->dx, ax->dy, on, on + n, m->src->width, m->src->height};
	/* both readings and their step judgements inside the crop */
	int reach = (int)ceil(g_overlap_scale * (hypot(ax->dx, ax->dy) + 1.5 * FS_DOME_R1 * mr +
						  base_reach(FS_DOME_R1 * mr, 0) + FS_BASE_STEP_REACH));
	int rc = run_pass_prep(m, n, qx, b->fy, reach, NULL, axis_check_point, &a, err, errlen);
	if (!rc)
		rc = fs_det_base_axis_refused(on, on + n, n);
	free(on);
	free(qx);
	return rc;
}

/* The level's calibration tile by tile, as the whole image's
 * (level_calib_whole, detect_base_fit.c): the axis profile's blur about
 * the final centres read on the tiles' crops, each sized dome's reach
 * cand_mr. -1 on out of memory or a failed read (err set). */
static int level_calib_tiled(const struct job *j, const fs_det_base_plan *p, const fs_dome_tpl *t,
			     struct base_job *b, char *err, size_t errlen)
{
	struct axis_read r = {.m = j->m, .err = err, .errlen = errlen};
	err[0] = 0;
	double vblur;
	double *mrs = malloc(p->n * sizeof *mrs);
	int rc = mrs ? fs_det_base_axis_vblur(p, &j->off, b->fr, b->fx, b->fy, j->m->src->width, j->m->src->height,
					       axis_read_tiled, &r, &vblur)
		     : -1;
	for (size_t k = 0; !rc && k < p->n; k++)
		mrs[k] = isfinite(b->fr[k]) ? cand_mr(j, p->idx[k]) : NAN;
	if (!rc)
		rc = fs_level_calib_apply(t, &j->off.fit, b->fr, mrs, p->n, vblur, b->lr);
	free(mrs);
	if (rc && !err[0])
		snprintf(err, errlen, "tiled dome measurement: out of memory");
	return rc;
}

static int axis_tiled(const fs_meas *m, fs_det_base_plan *p, const fs_det_offset *off, const fs_dome_fit *formation,
		      const fs_dome_tpl *t, struct base_job *b, fs_centre_axis *ax, char *err, size_t errlen)
{
	struct axis_read r = {.m = m, .err = err, .errlen = errlen};
	err[0] = 0;
	int rc = fs_det_base_axis_find(p, off, b->fr, b->fx, b->fy, m->src->width, m->src->height, axis_read_tiled,
				       &r, ax);
	if (!rc)
		rc = fs_det_base_axis_calibrate(p, off, formation, t, b->fr, ax);
	if (rc && !err[0])
		snprintf(err, errlen, "tiled dome measurement: out of memory");
	if (!rc && ax->ok && ax->own) {
		int refused = axis_refused_tiled(m, p, b, ax, err, errlen);
		if (refused < 0)
			return -1;
		if (refused)
			ax->ok = 0;
	}
	/* (after the check, as the whole image's: a refused move is no far
	 * reading) */
	p->move_unsized = !rc && fs_det_base_axis_far(ax);
	size_t moved;
	if (!rc) {
		fs_det_base_axis_move(p, b->fr, ax, b->fx, b->fy);
		rc = fs_det_base_axis_perdome(p, off, ax, formation, t, b->fr, b->fx, b->fy, m->src->width,
					      m->src->height, axis_read_tiled, &r, &moved);
		if (rc && !err[0])
			snprintf(err, errlen, "tiled dome measurement: out of memory");
	}
	return rc;
}

/* The templates of formation f (fs_dome_tpl_build) on a mosaic of the
 * patches the mean patch reads about the starts (sx, sy: every R->stride-th
 * of the plan's p->n, each cell the whole image's measurement image
 * low-passed by lowpass about one start): as fs_dome_tpl_build on the
 * whole low-passed image. Its return, with err set on -1. */
static int tpl_on_mosaic(const fs_meas *m, const fs_det_base_plan *p, const fs_dome_tpl_reach *R, double lowpass,
			 const fs_dome_fit *f, const double *sx, const double *sy, fs_dome_tpl *t, char *err,
			 size_t errlen)
{
	int W = m->src->width, H = m->src->height;
	int half = (int)ceil(R->patch_r) + 2, S = 2 * half + 1;
	size_t nv = (p->n + R->stride - 1) / R->stride, ncell = 0;
	double *vx = malloc(nv * sizeof *vx), *vy = malloc(nv * sizeof *vy);
	int *mx = malloc(nv * sizeof *mx), *my = malloc(nv * sizeof *my);
	fs_image *mosaic = NULL;
	int rc = -1;
	if (!vx || !vy || !mx || !my)
		goto oom;
	for (size_t v = 0; v < nv; v++) {
		double x = sx[v * R->stride], y = sy[v * R->stride];
		vx[v] = x;
		vy[v] = y;
		mx[v] = my[v] = INT_MIN; /* outside the image: not read */
		if (x - R->patch_r >= 0 && y - R->patch_r >= 0 && x + R->patch_r < W - 1 && y + R->patch_r < H - 1)
			ncell++;
	}
	int cols;
	mosaic = mosaic_new(ncell, S, &cols);
	if (!mosaic)
		goto oom;
	size_t cell = 0;
	for (size_t v = 0; v < nv; v++) {
		double x = sx[v * R->stride], y = sy[v * R->stride];
		if (!(x - R->patch_r >= 0 && y - R->patch_r >= 0 && x + R->patch_r < W - 1 && y + R->patch_r < H - 1))
			continue;
		int cx = (int)floor(x) - half, cy = (int)floor(y) - half;
		int ox0 = (int)(cell % cols) * S, oy0 = (int)(cell / cols) * S;
		if (copy_cell(m, cx, cy, S, lowpass, mosaic, ox0, oy0, err, errlen))
			goto out;
		mx[v] = cx - ox0;
		my[v] = cy - oy0;
		cell++;
	}
	/* (each sample made at the start itself, then shifted into its
	 * cell: the whole image's mean patch to the last bit) */
	rc = fs_dome_tpl_build_shifted(mosaic, f, p->fill0, vx, vy, mx, my, nv, t, err, errlen);
	goto out;
oom:
	snprintf(err, errlen, "tiled dome measurement: out of memory");
out:
	free(vx);
	free(vy);
	free(mx);
	free(my);
	fs_image_free(mosaic);
	return rc;
}

/* Every plan entry fitted through b->t from its start (b->sx, b->sy) on
 * its tile's low-passed crop. 0, or -1 with err set. */
static int fit_pass(const fs_meas *m, const fs_dome_tpl_reach *R, int lp, struct base_job *b, char *err,
		    size_t errlen)
{
	const fs_det_base_plan *p = b->p;
	for (size_t k = 0; k < p->n; k++)
		b->fr[k] = b->sig[k] = NAN;
	int reach = (int)ceil(g_overlap_scale * (R->patch_r + R->search_r + lp + 2));
	if (run_pass_prep(m, p->n, b->sx, b->sy, reach, lp ? lowpass_crop : NULL, fit_point, b, err, errlen))
		return -1;
	if (b->failed) {
		snprintf(err, errlen, "tiled dome measurement: out of memory");
		return -1;
	}
	return 0;
}

/* fs_det_base_refit's steps tile by tile: the formation on the mosaic of
 * the centres' patches, the templates on the mosaic of the plan's, and the
 * fit pass over the tiles */
struct tiled_refit {
	struct base_job *b;
	const fs_dome_tpl_reach *R;
	int lp; /* the low-pass's reach (px), 0: none */
	/* the formation the last templates were built from (the lit
	 * shadow's render, h53e) */
	fs_dome_fit form;
};

static int tiled_formation(void *ctx, const double *xs, const double *ys, double *rs, size_t n, double pitch,
			   double period, fs_det_offset *o, char *err, size_t errlen)
{
	const struct tiled_refit *r = ctx;
	return formation_at(r->b->j->m, xs, ys, rs, n, pitch, period, 1, o, NULL, err, errlen);
}

static int tiled_templates(void *ctx, const fs_dome_fit *f, const double *sx, const double *sy, fs_dome_tpl *t,
			   char *err, size_t errlen)
{
	struct tiled_refit *r = ctx;
	r->form = *f;
	return tpl_on_mosaic(r->b->j->m, r->b->p, r->R, r->b->lowpass, f, sx, sy, t, err, errlen);
}

static int tiled_fit(void *ctx, const fs_dome_tpl *t, const double *sx, const double *sy, char *err, size_t errlen)
{
	const struct tiled_refit *r = ctx;
	r->b->t = t;
	r->b->sx = sx;
	r->b->sy = sy;
	return fit_pass(r->b->j->m, r->R, r->lp, r->b, err, errlen);
}

/* fs_det_base_ends_again's fit tile by tile: the fit pass of b's templates
 * from the given starts into the caller's arrays (b's own left as they
 * are), on the crops the first fit read */
struct tiled_some {
	const struct base_job *b;
	const fs_dome_tpl_reach *R;
	int lp;
};

static int tiled_fit_some(void *ctx, const double *sx, const double *sy, double *r, double *x, double *y, char *err,
			  size_t errlen)
{
	const struct tiled_some *s = ctx;
	struct base_job b2 = *s->b;
	double *sig = malloc(s->b->p->n * sizeof *sig);
	if (!sig) {
		snprintf(err, errlen, "tiled dome measurement: out of memory");
		return -1;
	}
	b2.sx = sx;
	b2.sy = sy;
	b2.fr = r;
	b2.fx = x;
	b2.fy = y;
	b2.sig = sig;
	b2.end = NULL;
	b2.failed = 0;
	int rc = fit_pass(s->b->j->m, s->R, s->lp, &b2, err, errlen);
	free(sig);
	return rc;
}

/*
 * The domes' sizes from the template fit, as fs_det_base_fit_apply gives
 * them on the whole measurement image: the templates built on a mosaic of
 * the patches the mean patch reads (each cell the whole image's low-passed
 * measurement image about one centre), every dome fitted on its tile's
 * low-passed crop, widened by the patch, the centre search and the
 * low-pass's reach; under a screen in the first pass the formation, the
 * templates and the fit again from the fit's centres
 * (fs_det_base_refit_wanted); the level set from all of them at once.
 */
static int fit_bases(struct job *j, char *err, size_t errlen)
{
	const fs_meas *m = j->m;
	fs_det_base_plan p;
	if (fs_det_base_plan_make(j->res, j->c->n, &j->off, &p)) {
		snprintf(err, errlen, "tiled dome measurement: out of memory");
		return -1;
	}
	if (!p.n)
		return 0;
	fs_dome_tpl_reach R;
	fs_dome_tpl_reach_of(j->off.fit.pitch, p.n, &R);
	struct base_job b = {.p = &p, .j = j, .sx = p.xs, .sy = p.ys, .end = p.at_end};
	b.lowpass = j->off.fit.halftone > 0 ? FS_HALFTONE_LOWPASS * j->off.fit.halftone : 0;
	int lp = b.lowpass > 0 ? fs_gaussian_radius(b.lowpass) + 1 : 0;
	b.fr = malloc(13 * p.n * sizeof *b.fr);
	b.fx = b.fr ? b.fr + p.n : NULL;
	b.fy = b.fr ? b.fx + p.n : NULL;
	b.lr = b.fr ? b.fy + p.n : NULL;
	double *lx = b.fr ? b.lr + p.n : NULL;
	b.sig = b.fr ? lx + p.n : NULL;
	double *scratch = b.fr ? b.sig + p.n : NULL;
	b.var = b.fr ? scratch + p.n : NULL;
	b.l2 = b.fr ? b.var + p.n : NULL;
	double *sx = b.fr ? b.l2 + p.n : NULL, *sy = b.fr ? sx + p.n : NULL, *rs2 = b.fr ? sy + p.n : NULL;
	b.la = b.fr ? rs2 + p.n : NULL;
	b.az = j->off.fit.azimuth;
	b.ridge_lit = j->ridge_lit;
	b.cap = fs_dome_lit_cap();
	b.given = m->given;
	b.le = calloc(p.n, sizeof *b.le);
	b.sh = malloc(p.n * sizeof *b.sh);
	fs_dome_tpl t;
	memset(&t, 0, sizeof t);
	int rc = -1;
	if (!b.fr || !b.le || !b.sh)
		goto oom;
	for (size_t k = 0; k < p.n; k++)
		b.sh[k] = NAN;
	int built = tpl_on_mosaic(m, &p, &R, b.lowpass, &j->off.fit, p.xs, p.ys, &t, err, errlen);
	if (built < 0)
		goto out;
	rc = 0;
	if (built > 0) {
		/* no templates: the base rule's radii stand, judged at given
		 * centres as the whole image's (own_judged_whole,
		 * detect_base_fit.c) */
		if (!(b.lowpass > 0) && m->given && own_judged_tiled(m, &p, &b, lx, scratch, err, errlen))
			rc = -1;
		goto out;
	}
	b.t = &t;
	if (fit_pass(m, &R, lp, &b, err, errlen)) {
		rc = -1;
		goto out;
	}
	b.lvx = b.fx;
	b.lvy = b.fy;
	/* the formation again at the fit's centres (detect_base_fit.h) */
	struct tiled_refit tr = {&b, &R, lp, j->off.fit};
	const fs_det_base_refit_path path = {tiled_formation, tiled_templates, tiled_fit, &tr};
	double axis_az;
	int refit = fs_det_base_refit(m, &p, &j->off, j->res, b.fr, b.fx, b.fy, scratch, sx, sy, rs2, &t, &path,
				      &axis_az, err, errlen);
	if (refit < 0) {
		rc = -1;
		goto out;
	}
	if (refit) {
		b.lvx = sx;
		b.lvy = sy;
	}
	if (m->given) {
		/* final centres: sized where they are (detect_measure.h) */
		for (size_t k = 0; k < p.n; k++)
			if (isfinite(b.fr[k])) {
				b.fx[k] = pixel(j->c->items[p.idx[k]].x);
				b.fy[k] = pixel(j->c->items[p.idx[k]].y);
			}
	} else {
		fs_centre_axis ax;
		struct tiled_some ts = {&b, &R, lp};
		fs_det_offset aoff = j->off;
		aoff.fit.azimuth = axis_az;
		/* the fits' own centres, for the last step's option (modes 2-5;
		 * as the whole image's, fs_det_base_fit_apply) */
		int keep_fits = m->readings && !(b.lowpass > 0) && !refit && fs_det_first_formation() >= 2;
		double *ax0 = keep_fits ? malloc(2 * p.n * sizeof *ax0) : NULL;
		for (size_t k = 0; ax0 && k < p.n; k++) {
			ax0[k] = b.fx[k];
			ax0[p.n + k] = b.fy[k];
		}
		/* (the templates' own formation: a refit's t2 was built from another) */
		if (axis_tiled(m, &p, &aoff, &j->off.fit, refit ? NULL : &t, &b, &ax, err, errlen) ||
		    fs_det_base_ends_again(&p, &ax, b.fr, b.fx, b.fy, tiled_fit_some, &ts, err, errlen)) {
			free(ax0);
			rc = -1;
			goto out;
		}
		/* (out of memory: the last step fits them itself) */
		if (ax0) {
			fs_det_base_keep_fits(m->readings, &p, 1, b.fr, b.sig, b.fx, b.fy, ax0, ax0 + p.n);
			fs_base_readings_seal(m->readings);
		}
		free(ax0);
	}
	/* the level: each sized dome's base measured again from its fitted
	 * centre on unsmoothed rays, where the image holds no halftone screen
	 * (detect_base_fit.h); each of the base rule's three passes may move
	 * the centre by half a radius, and the blur correction reads the
	 * profile about where the last one ended: 1.5 r1 and the rays' reach */
	int screened = b.lowpass > 0 && fs_det_base_level_screened(&p, &j->off, b.fr, scratch);
	/* (a gap shorter than the screen's period: as without a screen) */
	int tight = b.lowpass > 0 && !screened && fs_det_base_level_tight_screen(&p, &j->off, b.fr, scratch);
	if (b.lowpass > 0 && !screened && !tight) {
		/* the low-passed readings asked again where the templates'
		 * radii call the bases merged (fs_det_base_level_screened_read,
		 * h43j); read again below when they are taken */
		for (size_t k = 0; k < p.n; k++) {
			b.lr[k] = b.la[k] = NAN;
			b.le[k] = 0;
			lx[k] = isfinite(b.fr[k]) ? b.lvx[k] : NAN;
		}
		double mr2 = 0;
		for (size_t k = 0; k < p.n; k++)
			mr2 = fmax(mr2, cand_mr(j, p.idx[k]));
		int reach2 = (int)ceil(g_overlap_scale * (1.5 * FS_DOME_R1 * mr2 + base_reach(FS_DOME_R1 * mr2, 0) + lp));
		if (run_pass_prep(m, p.n, lx, b.lvy, reach2, lowpass_crop, level_point_lowpassed, &b, err, errlen)) {
			rc = -1;
			goto out;
		}
		/* the image's walked domes moved far: read again free
		 * (fs_det_base_set_lit_gate), as the whole image's */
		if (isfinite(b.cap) && fs_det_base_lit_gate_free(b.sh, p.n, scratch)) {
			b.cap = NAN;
			if (run_pass_prep(m, p.n, lx, b.lvy, reach2, lowpass_crop, level_point_lowpassed, &b, err,
					  errlen)) {
				rc = -1;
				goto out;
			}
		}
		screened = fs_det_base_level_screened_read(&p, &j->off, b.lr, b.le, scratch);
	}
	for (size_t k = 0; k < p.n; k++) {
		b.lr[k] = b.var[k] = b.l2[k] = b.la[k] = b.sh[k] = NAN;
		b.le[k] = 0;
		lx[k] = isfinite(b.fr[k]) && (!(b.lowpass > 0) || screened || tight) ? (screened ? b.lvx[k] : b.fx[k])
										     : NAN;
		/* given centres: read there already (reading_point), not again */
		if (m->given && (!(b.lowpass > 0) || tight) && isfinite(lx[k])) {
			b.lr[k] = j->level_at[p.idx[k]];
			b.le[k] = j->level_edge[p.idx[k]];
			b.var[k] = j->level_var[p.idx[k]];
			lx[k] = NAN;
		}
	}
	double mr = 0;
	for (size_t k = 0; k < p.n; k++)
		mr = fmax(mr, cand_mr(j, p.idx[k]));
	int reach = (int)ceil(g_overlap_scale *
			      (1.5 * FS_DOME_R1 * mr + base_reach(FS_DOME_R1 * mr, 0) + (screened ? lp : 0)));
	/* the readings kept for the last step (base_readings.h; without the
	 * memory it reads them again) */
	if (m->readings && !m->given && !screened)
		b.kept = malloc(p.n * sizeof *b.kept);
	if (run_pass_prep(m, p.n, lx, screened ? b.lvy : b.fy, reach, screened ? lowpass_crop : NULL,
			  screened ? level_point_lowpassed : level_point, &b, err, errlen)) {
		rc = -1;
		goto out;
	}
	if (screened && isfinite(b.cap) && fs_det_base_lit_gate_free(b.sh, p.n, scratch)) {
		b.cap = NAN;
		if (run_pass_prep(m, p.n, lx, b.lvy, reach, lowpass_crop, level_point_lowpassed, &b, err, errlen)) {
			rc = -1;
			goto out;
		}
	}
	/* the walked domes' cast-shadow excess, as the whole image's */
	if (screened && (b.ridge_lit || fs_det_base_ridge_lit()) && fs_level_calib_lit_shadow_on() &&
	    fs_det_base_lit_shadow(&p, refit ? &tr.form : &j->off.fit, &t, b.fr, j->c, j->max_r, 1, b.cap, b.lr)) {
		snprintf(err, errlen, "tiled dome measurement: out of memory");
		rc = -1;
		goto out;
	}
	keep_readings(m, &b, lx, FS_BASE_ON_MEAS);
	/* under a tight screen the valleys' reading, as the whole image's */
	if (tight) {
		struct gap_job g = {.m = m, .err = err, .errlen = errlen};
		err[0] = 0;
		if (fs_det_base_gap_level_by(&p, &j->off, 1, b.fx, b.fy, b.fr, b.le, b.var, gap_read_tiled, &g, b.lr) <
		    0) {
			if (!err[0])
				snprintf(err, errlen, "tiled dome measurement: out of memory");
			rc = -1;
			goto out;
		}
	}
	double v1 = 0;
	int clear = b.lowpass > 0 ? FS_DET_EXTRAP_NONE : fs_det_base_extrap_plan(&p, &j->off, b.lr, b.le, b.var, &v1);
	/* (as the whole image's: the level read where the offset puts a tall
	 * dome, fs_det_base_moved_wanted) */
	int moved = 0;
	/* the formation the plan was read with (the line's gate) */
	fs_det_offset o2;
	const fs_det_offset *poff = &j->off;
	if (!(b.lowpass > 0) && m->given && fs_det_base_moved_wanted(&p, &j->off, b.lr, b.le, b.var)) {
		double *xs = malloc(3 * (p.n + 1) * sizeof *xs);
		if (!xs) {
			rc = -1;
			goto oom;
		}
		double *ys = xs + p.n + 1, *rs = ys + p.n + 1;
		fs_det_base_moved_xy(&p, &j->off, xs, ys, rs);
		int q = mosaic_fit(m, xs, ys, rs, p.n, j->off.fit.pitch, 0, 0, &o2, NULL, err, errlen);
		free(xs);
		if (q) {
			rc = -1;
			goto out;
		}
		if (fs_det_base_extrap_plan(&p, &o2, b.lr, b.le, b.var, &v1) == FS_DET_EXTRAP_TALL) {
			moved = 1;
			for (size_t k = 0; k < p.n; k++) {
				b.fx[k] += j->off.dx;
				b.fy[k] += j->off.dy;
				lx[k] = isfinite(b.fr[k]) ? b.fx[k] : NAN;
			}
			if (run_pass_prep(m, p.n, lx, b.fy, reach, NULL, level_point, &b, err, errlen)) {
				rc = -1;
				goto out;
			}
			clear = fs_det_base_extrap_plan(&p, &o2, b.lr, b.le, b.var, &v1);
			poff = &o2;
		}
	}
	if (fs_det_base_line_wanted(clear, poff, v1)) {
		fs_det_base_line_apply(&p, v1, b.le, b.lr);
	} else if (clear) {
		unsigned classes = fs_det_base_extrap_classes(&p, b.lr, b.le);
		for (size_t k = 0; k < p.n; k++) {
			lx[k] = isfinite(b.lr[k]) && !b.le[k] && fs_det_base_extrap_picked(b.fx[k], b.fy[k], classes)
					? b.fx[k]
					: NAN;
			/* given centres: the first pass read most of them
			 * already (base_readings.h), those are not read again */
			double mk = cand_mr(j, p.idx[k]), v2;
			const fs_dome_reading *kr =
				m->given && isfinite(lx[k])
					? fs_base_readings_find(m->readings, FS_BASE_ON_BLURRED, b.fx[k], b.fy[k],
								FS_DOME_R0 * mk, FS_DOME_R1 * mk)
					: NULL;
			if (kr) {
				int e;
				b.l2[k] = fs_det_base_level_kept(kr, &e, &v2);
				lx[k] = NAN;
			}
		}
		int xb = fs_gaussian_radius(FS_DET_BASE_EXTRA_BLUR) + 1;
		reach = (int)ceil(g_overlap_scale * (1.5 * FS_DOME_R1 * mr + base_reach(FS_DOME_R1 * mr, 0) + xb));
		if (run_pass_prep(m, p.n, lx, b.fy, reach, extrap_crop, level_point_blurred, &b, err, errlen)) {
			rc = -1;
			goto out;
		}
		keep_readings(m, &b, lx, FS_BASE_ON_BLURRED);
		fs_det_base_extrap_apply(&p, v1, b.le, b.l2, b.lr);
	}
	fs_det_base_drop_flat(&p, b.sig, b.fr, scratch, j->res);
	fs_det_base_own_plan(&p, b.fr, m->given);
	/* the level's readings judged for a step, not under a screen
	 * (detect_base_fit.h; on the whole image's sample,
	 * fs_det_base_step_pick); lx, l2, var are free now */
	if (!(b.lowpass > 0) && fs_det_base_step_pick(&p, b.fr, b.fx, b.fy, b.lvx, b.lvy, b.lr, b.le, screened, j->res)) {
		rc = -1;
		goto oom;
	}
	if (!(b.lowpass > 0) && steps_tiled(m, &p, &b, screened, j->res, lx, b.l2, b.var, scratch, err, errlen)) {
		rc = -1;
		goto out;
	}
	/* (as the whole image's, detect_base_fit.c) */
	fs_det_base_shadow_take_out(&p, &j->off, j->res, b.le, b.la, screened, clear, b.lr);
	/* (as the whole image's) */
	const double *step = b.lowpass > 0 ? NULL : scratch;
	p.screened = b.lowpass > 0 && !screened;
	/* (the sizes stay at the given centres) */
	for (size_t k = 0; moved && k < p.n; k++) {
		b.fx[k] -= j->off.dx;
		b.fy[k] -= j->off.dy;
	}
	/* the reader's own excess at this formation divided out, where the
	 * level is the reader's alone: no screen, no extrapolation to no blur
	 * or line, the templates the formation's own (level_calib.h, h52a) */
	if (!(b.lowpass > 0) && m->given && !refit && clear == FS_DET_EXTRAP_NONE && fs_level_calib_on() &&
	    level_calib_tiled(j, &p, &t, &b, err, errlen)) {
		rc = -1;
		goto oom;
	}
	if (fs_det_base_level_size(&p, m->given, &t, &j->off.fit, b.fr, b.fx, b.fy, b.lr, b.le, step, j->res,
				   NULL)) {
		rc = -1;
		goto oom;
	}
	goto out;
oom:
	snprintf(err, errlen, "tiled dome measurement: out of memory");
out:
	free(b.fr);
	free(b.le);
	free(b.sh);
	free(b.kept);
	fs_dome_tpl_free(&t);
	fs_det_base_plan_free(&p);
	return rc;
}

/* The domes measured again from their centre plus the common offset
 * (detect_offset.h), as the whole-image path: px, py n scratch values
 * each, r1 the largest base. */
static int offset_pass(struct job *j, double *px, double *py, double r1, char *err, size_t errlen)
{
	size_t n = j->c->n;
	fs_measured *res = j->res;
	for (size_t i = 0; i < n; i++) {
		int dome = res[i].ok && res[i].t.fit_quality >= 0.45 && isfinite(res[i].t.radius_px);
		px[i] = dome ? res[i].t.centroid_x + j->off.dx : NAN;
		py[i] = dome ? res[i].t.centroid_y + j->off.dy : NAN;
	}
	/* a measurement from the offset start: its first pass there, the
	 * next ones from its circle's centre */
	j->allow = 1.25 * r1;
	memset(j->strayed, 0, n);
	fs_measured *prev = malloc(n * sizeof *prev);
	if (!prev) {
		snprintf(err, errlen, "tiled dome measurement: out of memory");
		return -1;
	}
	memcpy(prev, res, n * sizeof *prev);
	j->prev = prev;
	int reach = (int)ceil(g_overlap_scale * (j->allow + base_reach(r1, j->smooth)));
	int rc = run_pass(j->m, n, px, py, reach, offset_point, j, err, errlen);
	if (!rc && g_overlap_scale >= 1)
		rc = remeasure_strayed(j, px, py, offset_point, base_reach(r1, j->smooth), err, errlen);
	j->prev = NULL;
	free(prev);
	return rc;
}

/* The detection's steps on the tiles that the paths under a coarse
 * screen (fs_det_paths) and the look again (fs_det_look) call back:
 * offset_pass's scratch px, py and largest base r1, and the job's
 * message. */
struct tiled_steps {
	struct job *j;
	double *px, *py, r1;
	char *err;
	size_t errlen;
};

/* the look again's second look: the formation fitted on a mosaic about
 * the moved domes, given the first look's screen period (mosaic_fit), so
 * not looked for again, as the whole image's second look reads it */
static int look_fit(void *ctx, double period, fs_det_offset *second)
{
	struct tiled_steps *s = ctx;
	int rc = fit_offset_period(s->j, period, s->err, s->errlen);
	*second = s->j->off;
	return rc;
}

/* ... and the domes measured again from their centre plus the further
 * offset */
static int look_apply(void *ctx, const fs_det_offset *step)
{
	struct tiled_steps *s = ctx;
	s->j->off = *step;
	return offset_pass(s->j, s->px, s->py, s->r1, s->err, s->errlen);
}

/* The unrefined path's offset looked for again under a coarse screen
 * (fs_det_offset_look_again_by, as the whole image's), j->off's first
 * formation kept. */
static int paths_look_again(void *ctx)
{
	struct tiled_steps *s = ctx;
	fs_det_offset first = s->j->off;
	const fs_det_look look = {look_fit, look_apply, s};
	int rc = fs_det_offset_look_again_by(&first, &look);
	s->j->off = first;
	return rc;
}

/* A path sized (fit_bases) in meas instead of the job's results. */
static int paths_size(void *ctx, fs_measured *meas)
{
	struct tiled_steps *s = ctx;
	fs_measured *own = s->j->res;
	s->j->res = meas;
	int rc = fit_bases(s->j, s->err, s->errlen);
	s->j->res = own;
	return rc;
}

/* An fs_det_paths_* result: 1 when it failed, with the message written
 * where it is out of memory (a callback's -1 wrote its own). */
static int paths_failed(int rc, char *err, size_t errlen)
{
	if (rc == -1)
		snprintf(err, errlen, "tiled dome measurement: out of memory");
	return rc != 0;
}

/* The candidates' walk's reader (detect_walk.h), as the whole image's:
 * w's candidates measured without the refinement, flat ground dropped on
 * their own floor, the offset read on the mosaic about them. */
struct tiled_walk {
	struct job *j;
	double *px, *py, r1;
	char *err;
	size_t errlen;
};

static int walk_read(void *ctx, const fs_cand_list *w, fs_det_offset *off, const fs_measured **meas)
{
	struct tiled_walk *s = ctx;
	struct job *j = s->j;
	const fs_cand_list *own = j->c;
	size_t n = w->n;
	j->c = w;
	j->refine = 0;
	fs_measured_clear(j->res, n);
	j->allow = 1.25 * s->r1;
	memset(j->strayed, 0, n);
	for (size_t i = 0; i < n; i++) {
		s->px[i] = w->items[i].x;
		s->py[i] = w->items[i].y;
	}
	int reach = (int)ceil(g_overlap_scale * (j->allow + 1.25 * s->r1 + base_reach(s->r1, j->smooth)));
	int rc = run_pass(j->m, n, s->px, s->py, reach, measure_point, j, s->err, s->errlen);
	if (!rc && g_overlap_scale >= 1)
		rc = remeasure_strayed(j, NULL, NULL, measure_point, base_reach(s->r1, j->smooth), s->err, s->errlen);
	if (!rc) {
		fs_det_drop_flat_ground(j->res, n, NULL);
		rc = fit_offset(j, s->err, s->errlen);
	}
	*off = j->off;
	*meas = j->res;
	j->c = own;
	return rc;
}

static void back_to_given(struct job *j)
{
	for (size_t i = 0; i < j->c->n; i++) {
		j->res[i].t.centroid_x = pixel(j->c->items[i].x);
		j->res[i].t.centroid_y = pixel(j->c->items[i].y);
	}
}

/* Given centres (detect_measure.h, fs_det_measure_domes_at): the steps of
 * the whole-image path on crops. px, py: n scratch values each. */
static int given_tiled(struct job *j, double *px, double *py, char *err, size_t errlen)
{
	const fs_meas *m = j->m;
	size_t n = j->c->n;
	double mr = 0;
	for (size_t i = 0; i < n; i++) {
		mr = fmax(mr, cand_mr(j, i));
		px[i] = j->c->items[i].x;
		py[i] = j->c->items[i].y;
	}
	double r1 = FS_DOME_R1 * mr, sc = g_overlap_scale;
	/* each of the base rule's three passes may move its centre by half
	 * a radius, and the blur correction reads about where the last one
	 * ended (as the level's pass below) */
	int reach = (int)ceil(sc * (1.5 * r1 + base_reach(r1, 0)));
	if (run_pass(m, n, px, py, reach, reading_point, j, err, errlen))
		return -1;
	back_to_given(j);
	if (fit_offset(j, err, errlen))
		return -1;
	if (m->given == 2 && (j->screen_fits || (j->off.fitted && j->off.fit.halftone > 0)))
		return 1; /* detection under a screen (detect_measure.h) */
	if (j->off.fitted && j->off.fit.halftone > 0) {
		/* under a screen: the smoothing's trials and the bases read
		 * on smoothed rays, as the whole-image path */
		size_t nc = n < FS_DET_SMOOTH_CANDIDATES ? n : FS_DET_SMOOTH_CANDIDATES, done = 0, next;
		double lmax = fs_det_smooth_px[FS_DET_SMOOTH_TRIALS - 1];
		reach = (int)ceil(sc * (r1 + lmax + 2 + 1.25 * r1 + base_reach(r1, lmax)));
		while ((next = fs_det_smooth_next(j->q, done, nc)) > done) {
			for (size_t i = 0; i < n; i++)
				px[i] = i >= done && i < next ? j->c->items[i].x : NAN;
			if (run_pass(m, n, px, py, reach, smooth_point, j, err, errlen))
				return -1;
			done = next;
		}
		j->smooth = fs_det_smooth_pick(j->q, done);
		j->off.smooth = j->smooth; /* (the whole image's, F 1) */
		j->allow = 1.25 * r1;
		memset(j->strayed, 0, n);
		for (size_t i = 0; i < n; i++)
			px[i] = j->c->items[i].x;
		reach = (int)ceil(sc * (j->allow + 1.25 * r1 + base_reach(r1, j->smooth)));
		if (run_pass(m, n, px, py, reach, measure_point, j, err, errlen))
			return -1;
		if (sc >= 1 && remeasure_strayed(j, NULL, NULL, measure_point, base_reach(r1, j->smooth), err, errlen))
			return -1;
		/* and, as the extraction reads its level under a screen, again
		 * from the centres plus the common offset */
		if (j->off.applied && offset_pass(j, px, py, r1, err, errlen))
			return -1;
		back_to_given(j);
	}
	if (fit_bases(j, err, errlen))
		return -1;
	back_to_given(j);
	return 0;
}

int fs_det_measure_domes_tiled(const fs_meas *m, const fs_cand_list *c, double max_r, fs_measured *res, char *err,
			       size_t errlen)
{
	if (!m->src || !m->mp || m->f != 1 || !m->dome) {
		snprintf(err, errlen, "tiled dome measurement: needs the full-resolution source");
		return -1;
	}
	fs_measured_clear(res, c->n);
	if (!c->n)
		return 0;
	struct job j = {.m = m, .c = c, .max_r = max_r, .res = res, .ridge_lit = m->ridge_lit};
	size_t n = c->n;
	double mr = 0;
	for (size_t i = 0; i < n; i++)
		mr = fmax(mr, cand_mr(&j, i));
	double r1 = FS_DOME_R1 * mr, refine = m->refine > 0 ? m->refine : 0;
	double sc = g_overlap_scale;
	double *px = malloc(n * sizeof *px), *py = malloc(n * sizeof *py);
	double *bx = malloc(n * sizeof *bx), *by = malloc(n * sizeof *by);
	fs_measured *prev = NULL;
	fs_cand_list walked = {0}; /* the candidates walked (fs_meas.walk) */
	/* the two paths under a coarse screen (detect_offset.h) */
	struct tiled_steps steps = {&j, px, py, r1, err, errlen};
	fs_det_paths paths = {paths_size, paths_look_again, &steps, n, NULL, 0, NULL};
	j.q = calloc(FS_DET_SMOOTH_CANDIDATES * FS_DET_SMOOTH_TRIALS, sizeof *j.q);
	j.strayed = calloc(n, 1);
	int rc = -1;
	if (!px || !py || !bx || !by || !j.q || !j.strayed) {
		snprintf(err, errlen, "tiled dome measurement: out of memory");
		goto out;
	}
	j.refine = refine;
	if (m->given) {
		j.level_at = malloc(n * sizeof *j.level_at);
		j.level_edge = malloc(n * sizeof *j.level_edge);
		j.level_var = malloc(n * sizeof *j.level_var);
		if (!j.level_at || !j.level_edge || !j.level_var) {
			snprintf(err, errlen, "tiled dome measurement: out of memory");
			goto out;
		}
		rc = given_tiled(&j, px, py, err, errlen);
		goto out;
	}
	/* the smoothing: the first candidates' trials (their centres refined
	 * without smoothing, the base from there at the largest smoothing) */
	size_t nc = n < FS_DET_SMOOTH_CANDIDATES ? n : FS_DET_SMOOTH_CANDIDATES, done = 0, next;
	double lmax = fs_det_smooth_px[FS_DET_SMOOTH_TRIALS - 1];
	int reach = (int)ceil(sc * (refine + r1 + lmax + 2 + 1.25 * r1 + base_reach(r1, lmax)));
	for (size_t i = 0; i < n; i++)
		py[i] = c->items[i].y;
	/* in the whole-image path's batches (fs_det_smooth_next) */
	while ((next = fs_det_smooth_next(j.q, done, nc)) > done) {
		for (size_t i = 0; i < n; i++)
			px[i] = i >= done && i < next ? c->items[i].x : NAN;
		if (run_pass(m, n, px, py, reach, smooth_point, &j, err, errlen))
			goto out;
		done = next;
	}
	j.smooth = fs_det_smooth_pick(j.q, done);
	/* twice at most: again without the refinement where the refined
	 * circles refused the offset (fs_det_offset_refused, as the whole
	 * image's fs_det_measure) */
	for (j.refine = refine;; j.refine = 0) {
		/* every candidate: refined, measured from there (a first pass,
		 * then a second from its circle's centre, up to 1.25 r1 on),
		 * refined and measured again from where that ended */
		fs_measured_clear(res, n);
		j.allow = j.refine + 1.25 * r1;
		for (size_t i = 0; i < n; i++) {
			px[i] = j.c->items[i].x;
			py[i] = j.c->items[i].y; /* (the offset pass wrote both) */
		}
		reach = (int)ceil(sc * (j.allow + j.refine + 1.25 * r1 + base_reach(r1, j.smooth)));
		if (run_pass(m, n, px, py, reach, measure_point, &j, err, errlen))
			goto out;
		double base = 2 * j.refine + base_reach(r1, j.smooth);
		if (sc >= 1 && remeasure_strayed(&j, NULL, NULL, measure_point, base, err, errlen))
			goto out;
		/* flat ground is no dome (detect_measure.h), as on the whole image */
		fs_det_drop_flat_ground(res, n, m->flat_spread);
		/* the common offset, and the domes measured again from it */
		if (fit_offset(&j, err, errlen))
			goto out;
		j.off.smooth = j.smooth; /* (the whole image's, F 1) */
		if (!j.off.applied)
			break;
		for (size_t i = 0; i < n; i++) {
			bx[i] = res[i].t.centroid_x;
			by[i] = res[i].t.centroid_y;
		}
		if (offset_pass(&j, px, py, r1, err, errlen))
			goto out;
		/* the option (fs_meas.walk): under a coarse screen the
		 * candidates walked onto the domes by the formation's offset
		 * and measured from there as the refused path measures them,
		 * as the whole image's (detect_measure.c; from the domes the
		 * offset moved, as its walk starts) */
		if (j.refine > 0 && m->walk && fs_det_offset_coarse_screen(&j.off)) {
			struct tiled_walk tw = {&j, px, py, r1, err, errlen};
			const fs_det_walk_reader wr = {walk_read, &tw, 1, res};
			double wx, wy;
			if (fs_det_walk_shift_by(&wr, c, &wx, &wy, NULL))
				goto out;
			if (fs_cand_list_shifted(c, wx, wy, &walked)) {
				snprintf(err, errlen, "tiled dome measurement: out of memory");
				goto out;
			}
			j.c = &walked;
			j.ridge_lit = j.ridge_lit || m->walk == 2;
			continue;
		}
		if (!(j.refine > 0)) {
			/* the unrefined path: under a coarse screen its offset is
			 * looked for again (as the whole image's); the walk has
			 * no rest to take */
			if (!walked.items && paths_failed(fs_det_paths_look_again(&paths, res, &j.off), err, errlen))
				goto out;
			break;
		}
		if (fs_det_offset_refused(&j.off, res, bx, by, n))
			continue;
		if (!fs_det_offset_coarse_screen(&j.off))
			break;
		/* under a screen coarse against the lattice the refined path is
		 * sized first and kept only where the unrefined one ends near
		 * it (fs_det_offset_paths_differ, as the whole image's) */
		if (paths_failed(fs_det_paths_keep_refined(&paths, res, &j.off), err, errlen))
			goto out;
	}
	/* each dome's size from its whole patch (detect_base_fit.h) */
	if (fit_bases(&j, err, errlen))
		goto out;
	if (paths_failed(fs_det_paths_choose(&paths, res), err, errlen))
		goto out;
	rc = 0;
out:
	free(px);
	free(py);
	free(bx);
	free(by);
	free(j.q);
	free(j.strayed);
	free(j.level_at);
	free(j.level_edge);
	free(j.level_var);
	free(prev);
	fs_cand_free(&walked);
	fs_det_paths_free(&paths);
	return rc;
}
