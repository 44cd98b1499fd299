/*
 * detect_measure.c - measuring, filtering and merging the candidates of a
 * detection method (see detect_measure.h).
 */
#include "analysis/detect_measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/base_readings.h"
#include "analysis/blob_measure.h"
#include "analysis/detect_base_fit.h"
#include "analysis/detect_offset.h"
#include "analysis/detect_walk.h"
#include "analysis/detect_domes_tiled.h"
#include "analysis/detect_tiled.h"
#include "analysis/centre_refine.h"
#include "analysis/dome_measure.h"
#include "analysis/foot_pool.h"
#include "analysis/gap_wide.h"
#include "analysis/measurement.h"
#include "analysis/raster_order.h"
#include "base/sorting.h"

const double fs_det_smooth_px[FS_DET_SMOOTH_TRIALS] = {0, 1.2, 2.2};

void fs_det_smooth_trial(const fs_image *img, double sx, double sy, double mr, double F, double refine,
			 fs_det_kept *kept, double q[FS_DET_SMOOTH_TRIALS])
{
	fs_det_smooth_trial_crop(img, 0, 0, sx, sy, mr, F, refine, kept, q);
}

void fs_det_smooth_trial_crop(const fs_image *img, int ox, int oy, double sx, double sy, double mr, double F,
			      double refine, fs_det_kept *kept, double q[FS_DET_SMOOTH_TRIALS])
{
	double r0 = FS_DOME_R0 * mr / F, r1 = FS_DOME_R1 * mr / F;
	/* from the centre the measurement will start from (refined when the
	 * detection refines them: from a centre off by a tenth of the pitch
	 * the smoothed profiles fit best, and smoothing moves the base) */
	if (refine > 0)
		fs_centre_refine_crop(img, ox, oy, sx, sy, r0, r1, refine / F, 0, kept ? &kept->grid : NULL, &sx,
				      &sy);
	if (kept) {
		kept->valid = 1;
		kept->img = img;
		kept->cx = sx;
		kept->cy = sy;
		kept->r0 = r0;
		kept->r1 = r1;
	}
	for (int k = 0; k < FS_DET_SMOOTH_TRIALS; k++) {
		fs_tubercle t;
		fs_tubercle_init(&t); /* as the measurement's: fit quality unknown */
		int ok = fs_dome_measure(img, sx, sy, r0, r1, fs_det_smooth_px[k] / F, &t) == 0;
		q[k] = ok ? t.fit_quality : 0;
		if (kept) {
			kept->t[k] = t;
			kept->ok[k] = ok;
		}
	}
}

double fs_det_smooth_pick(const double *q, size_t nc)
{
	double s[FS_DET_SMOOTH_TRIALS] = {0};
	if (!nc)
		return 0;
	/* summed candidate after candidate for each smoothing, as they were
	 * measured one smoothing at a time */
	for (int k = 0; k < FS_DET_SMOOTH_TRIALS; k++) {
		for (size_t i = 0; i < nc; i++)
			s[k] += q[i * FS_DET_SMOOTH_TRIALS + k];
		s[k] /= nc;
	}
	double best = fmax(s[0], fmax(s[1], s[2]));
	for (int k = 0; k < FS_DET_SMOOTH_TRIALS; k++)
		if (s[k] >= best - 0.03)
			return fs_det_smooth_px[k];
	return 0;
}

/* The mean over the first n candidates of q[a] - q[b] (*d) and its
 * standard error (the return). */
static double paired_diff(const double *q, size_t n, int a, int b, double *d)
{
	double m = 0, v = 0;
	for (size_t i = 0; i < n; i++)
		m += q[i * FS_DET_SMOOTH_TRIALS + a] - q[i * FS_DET_SMOOTH_TRIALS + b];
	m /= n;
	for (size_t i = 0; i < n; i++) {
		double e = q[i * FS_DET_SMOOTH_TRIALS + a] - q[i * FS_DET_SMOOTH_TRIALS + b] - m;
		v += e * e;
	}
	*d = m;
	return sqrt(v / (n - 1) / n);
}

int fs_det_smooth_settled(const double *q, size_t n)
{
	if (n < 2)
		return 0;
	int k = 0;
	double pick = fs_det_smooth_pick(q, n);
	while (k < FS_DET_SMOOTH_TRIALS - 1 && fs_det_smooth_px[k] != pick)
		k++;
	/* the rule takes the least smoothing k whose mean is within 0.03 of
	 * every other's: each of those comparisons, for k and for every
	 * smoothing below it, must hold beyond FS_DET_SMOOTH_Z standard
	 * errors of the candidates' paired differences */
	for (int m = 0; m < FS_DET_SMOOTH_TRIALS; m++) {
		double d, e;
		if (m != k && (e = paired_diff(q, n, k, m, &d), d + 0.03 < FS_DET_SMOOTH_Z * e))
			return 0;
	}
	for (int j = 0; j < k; j++) {
		int out = 0;
		for (int m = 0; m < FS_DET_SMOOTH_TRIALS && !out; m++) {
			double d, e;
			out = m != j && (e = paired_diff(q, n, j, m, &d), -0.03 - d >= FS_DET_SMOOTH_Z * e);
		}
		if (!out)
			return 0;
	}
	return 1;
}

size_t fs_det_smooth_next(const double *q, size_t done, size_t nc)
{
	if (done >= nc || (done && fs_det_smooth_settled(q, done)))
		return done;
	return done + FS_DET_SMOOTH_BATCH < nc ? done + FS_DET_SMOOTH_BATCH : nc;
}

/* The dome rule's ray smoothing for this image (see detect_measure.h);
 * the trial of candidate i is kept in kept[i]. */
static double choose_smooth(const fs_meas *m, const fs_cand_list *c, double max_r, fs_det_kept *kept)
{
	if (!m->dome || !c->n)
		return 0;
	double q[FS_DET_SMOOTH_CANDIDATES * FS_DET_SMOOTH_TRIALS];
	double F = m->f;
	size_t nc = c->n < FS_DET_SMOOTH_CANDIDATES ? c->n : FS_DET_SMOOTH_CANDIDATES, done = 0, next;
	while ((next = fs_det_smooth_next(q, done, nc)) > done) {
		for (size_t i = done; i < next; i++) {
			double mr = max_r > 0 ? max_r : 2 * c->items[i].r;
			fs_det_smooth_trial(m->img, (c->items[i].x + 0.5) / F - 0.5, (c->items[i].y + 0.5) / F - 0.5,
					    mr, F, m->refine, &kept[i], &q[i * FS_DET_SMOOTH_TRIALS]);
		}
		done = next;
	}
	return fs_det_smooth_pick(q, done);
}

void fs_det_measure_dome_one(const fs_image *img, double sx, double sy, double mr, double F, double refine,
			     double smooth, fs_det_kept *kept, fs_measured *r)
{
	fs_det_measure_dome_crop(img, 0, 0, sx, sy, mr, F, refine, smooth, kept, r);
}

void fs_det_measure_dome_crop(const fs_image *img, int ox, int oy, double sx, double sy, double mr, double F,
			      double refine, double smooth, fs_det_kept *kept, fs_measured *r)
{
	double r0 = FS_DOME_R0 * mr / F, r1 = FS_DOME_R1 * mr / F;
	fs_tubercle_init(&r->t); /* fit quality unknown unless measured */
	r->spread = NAN;
	r->edge = 0;
	/* (on a crop, in the whole image's pixels: centre_refine.h) */
	if (refine > 0)
		fs_centre_refine_crop(img, ox, oy, sx, sy, r0, r1, refine / F, smooth / F, kept ? &kept->grid : NULL,
				      &sx, &sy);
	int k = -1;
	if (kept && kept->valid && kept->img == img && kept->cx == sx && kept->cy == sy && kept->r0 == r0 &&
	    kept->r1 == r1)
		for (int i = 0; i < FS_DET_SMOOTH_TRIALS && k < 0; i++)
			if (fs_det_smooth_px[i] / F == smooth / F)
				k = i;
	if (k >= 0) {
		/* the trial's base: fs_dome_measure with these very arguments */
		r->t = kept->t[k];
		r->ok = kept->ok[k];
	} else {
		r->ok = fs_dome_measure_crop(img, ox, oy, sx, sy, r0, r1, smooth / F, &r->t) == 0;
	}
	/* The base rule's own circle fit drifts towards a side detector's
	 * shadow on steep domes; when it moved the centre by more than a
	 * pixel, the sharpest base circle, looked for again from where it
	 * ended, is the centre (measured again when that moved too). */
	if (refine > 0 && r->ok && hypot(r->t.centroid_x - sx, r->t.centroid_y - sy) > 1) {
		double cx, cy;
		fs_centre_refine_crop(img, ox, oy, r->t.centroid_x, r->t.centroid_y, r0, r1, refine / F, smooth / F,
				      NULL, &cx, &cy);
		if (hypot(cx - r->t.centroid_x, cy - r->t.centroid_y) > 1)
			r->ok = fs_dome_measure_crop(img, ox, oy, cx, cy, r0, r1, smooth / F, &r->t) == 0;
		r->t.centroid_x = cx;
		r->t.centroid_y = cy;
	}
	/* where the dome was found: read once here, so that both paths
	 * (whole image, tiles) read the same pixels */
	if (r->ok)
		r->spread = fs_image_disc_spread(img, r->t.centroid_x, r->t.centroid_y, r1);
}

static int kept_dome(const fs_measured *q)
{
	return q->ok && q->t.fit_quality >= 0.45 && isfinite(q->t.radius_px);
}

/* FS_DOME_FLAT_SPREAD of the median spread of meas's domes; 0 with fewer
 * than 3 (or without memory for the median: nothing judged). */
static double flat_floor(const fs_measured *meas, size_t n)
{
	size_t nd = 0;
	for (size_t i = 0; i < n; i++)
		nd += kept_dome(&meas[i]) && isfinite(meas[i].spread);
	if (nd < 3)
		return 0;
	double *sp = malloc(nd * sizeof *sp);
	if (!sp)
		return 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (kept_dome(&meas[i]) && isfinite(meas[i].spread))
			sp[k++] = meas[i].spread;
	double f = FS_DOME_FLAT_SPREAD * fs_median_upper(sp, nd);
	free(sp);
	return f;
}

size_t fs_det_drop_flat_ground(fs_measured *meas, size_t n, double *floor)
{
	size_t dropped = 0;
	double floor_sp = floor && *floor > 0 ? *floor : flat_floor(meas, n);
	if (floor && !(*floor > 0))
		*floor = floor_sp;
	if (!(floor_sp > 0))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (kept_dome(&meas[i]) && !(meas[i].spread >= floor_sp)) {
			meas[i].ok = 0;
			dropped++;
		}
	return dropped;
}

void fs_det_measure_unrefined(const fs_meas *m, const fs_cand_list *c, double max_r, double smooth,
			      const fs_raster_key *order, fs_measured *meas, double *floor)
{
	double F = m->f;
	fs_measured_clear(meas, c->n);
	for (size_t k = 0; k < c->n; k++) {
		size_t i = order ? order[k].i : k;
		double mr = max_r > 0 ? max_r : 2 * c->items[i].r;
		double sx = (c->items[i].x + 0.5) / F - 0.5, sy = (c->items[i].y + 0.5) / F - 0.5;
		fs_tubercle_init(&meas[i].t);
		fs_det_measure_dome_one(m->img, sx, sy, mr, F, 0, smooth, NULL, &meas[i]);
	}
	fs_det_drop_flat_ground(meas, c->n, floor);
}

/* Given centres (fs_meas.given): every measured candidate back at its
 * own centre (m's pixels, f 1). */
void fs_measured_clear(fs_measured *res, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fs_tubercle_init(&res[i].t);
		res[i].ok = 0;
		res[i].spread = NAN;
		res[i].edge = 0;
	}
}

static void at_given(const fs_cand_list *c, fs_measured *meas)
{
	for (size_t i = 0; i < c->n; i++) {
		meas[i].t.centroid_x = c->items[i].x;
		meas[i].t.centroid_y = c->items[i].y;
	}
}

int fs_det_base_first_reading(const fs_meas *m, const struct fs_base_readings *kept, double x, double y, double mr,
			      fs_measured *r, double *v)
{
	double r0 = FS_DOME_R0 * mr, r1 = FS_DOME_R1 * mr;
	const fs_dome_reading *kr = fs_base_readings_find(kept, FS_BASE_ON_MEAS, x, y, r0, r1);
	int rc = kr ? fs_dome_reading_apply(kr, &r->t, &r->edge, v)
		    : fs_dome_measure_base_blur(m->img, x, y, r0, r1, &r->t, &r->edge, v);
	r->ok = rc == 0;
	return rc;
}

/* fs_det_set_first_formation's setting: one a process, set before any
 * detection, never while one runs */
static int first_formation;

int fs_det_set_first_formation(int mode)
{
	if (mode < 0 || mode > 5)
		return -1;
	int was = first_formation;
	first_formation = mode;
	return was;
}

int fs_det_first_formation(void)
{
	return first_formation;
}

int fs_det_measure_domes_at(const fs_meas *m, const fs_cand_list *c, double max_r, fs_measured *res, char *err,
			    size_t errlen)
{
	if (!m->dome || !m->given || m->f != 1 || m->refine > 0 || (!m->img && !m->src)) {
		snprintf(err, errlen, "dome sizes at given centres: not a given-centre measurement");
		return -1;
	}
	fs_measured_clear(res, c->n);
	if (!c->n)
		return 0;
	if (!m->img) {
		/* tile by tile: the same steps on crops (detect_domes_tiled.c) */
		int rc = fs_det_measure_domes_tiled(m, c, max_r, res, err, errlen);
		if (rc == 0)
			at_given(c, res);
		return rc;
	}
	/* each base read from its centre on unsmoothed rays (the level's
	 * reading, detect_base_fit.h): kept for the level (level_at,
	 * level_edge), which reads it from the centre again where the
	 * pixel-centre mapping moved the point (its last bit) */
	double *level_at = malloc(c->n * sizeof *level_at), *level_var = malloc(c->n * sizeof *level_var);
	int *level_edge = malloc(c->n * sizeof *level_edge);
	if (!level_at || !level_edge || !level_var)
		goto oom;
	for (size_t i = 0; i < c->n; i++) {
		double mr = max_r > 0 ? max_r : 2 * c->items[i].r;
		double x = (c->items[i].x + 0.5) / 1.0 - 0.5, y = (c->items[i].y + 0.5) / 1.0 - 0.5;
		double v = NAN;
		/* (with its rays' blur, which the level reads too; detection's
		 * first pass read it already where its fit left the centre) */
		int rc = fs_det_base_first_reading(m, m->readings, x, y, mr, &res[i], &v);
		level_at[i] = x == c->items[i].x && y == c->items[i].y
				      ? fs_det_base_level_value(rc, &res[i].t, res[i].edge, v, &level_edge[i], &level_var[i])
				      : -1;
	}
	at_given(c, res);
	/* detection under a screen keeps its own sizes (below): where the
	 * formation fit would find one, it is not made (detect_offset.h) */
	double period = -1;
	int screen = m->given == 2 ? fs_det_offset_screen_fits(m, c, res, &period) : 0;
	if (screen < 0)
		goto oom;
	if (screen) {
		free(level_at);
		free(level_edge);
		free(level_var);
		return 1;
	}
	/* the formation at the centres, and their common offset from it
	 * (not applied to the centres: given); under the option the first
	 * pass's, at no offset */
	fs_det_offset off;
	int first = m->given == 2 && (first_formation == 1 || first_formation == 2);
	if (first && m->readings && m->readings->formation_kept && c->n >= 8) {
		memset(&off, 0, sizeof off);
		off.fitted = 1;
		off.quality = m->readings->formation_quality;
		off.fit = m->readings->formation;
	} else if (fs_det_offset_correct_period(m, c, max_r, 0, period, res, &off)) {
		goto oom;
	}
	if (m->given == 2 && off.fitted && off.fit.halftone > 0) {
		free(level_at);
		free(level_edge);
		free(level_var);
		return 1; /* detection under a screen: its own sizes stand */
	}
	if (off.fitted && off.fit.halftone > 0) {
		/* under a halftone screen the level is the base rule's reading
		 * on the rays smoothed as the image needs (detect_base_fit.h) */
		fs_det_kept *kept = calloc(FS_DET_SMOOTH_CANDIDATES, sizeof *kept);
		if (!kept)
			goto oom;
		double smooth = choose_smooth(m, c, max_r, kept);
		off.smooth = smooth; /* (F 1: the readings below) */
		for (size_t i = 0; i < c->n; i++) {
			double mr = max_r > 0 ? max_r : 2 * c->items[i].r;
			fs_det_measure_dome_one(m->img, (c->items[i].x + 0.5) / 1.0 - 0.5,
						(c->items[i].y + 0.5) / 1.0 - 0.5, mr, 1, 0, smooth,
						i < FS_DET_SMOOTH_CANDIDATES ? &kept[i] : NULL, &res[i]);
			/* ... and again from it plus the common offset, as the
			 * extraction reads its level under a screen */
			fs_det_offset_apply_one(m->img, &off, mr, 1, smooth, &res[i], NULL);
		}
		free(kept);
		at_given(c, res);
	}
	if (fs_det_base_fit_apply(m, c, &off, max_r, level_at, level_edge, level_var, res, NULL))
		goto oom;
	at_given(c, res);
	free(level_at);
	free(level_edge);
	free(level_var);
	return 0;
oom:
	free(level_at);
	free(level_edge);
	free(level_var);
	snprintf(err, errlen, "dome sizes at given centres: out of memory");
	return -1;
}

/* fs_foot_pool_set_support's step (foot_pool.h, h48h; off by default):
 * the sizes scaled to the support the pooled profile reads, on the
 * source image the rule measured (m->src, full resolution or reduced m->f
 * times) */
static int support_scale(const fs_meas *m, fs_tubercle_list *t, char *err, size_t errlen)
{
	const fs_image *src = m->src ? m->src : m->img;
	if (!src)
		return 0;
	double f = src->width == m->width ? 1 : m->f, k;
	return fs_foot_pool_scale_list(src, f, t, &k, err, errlen);
}

int fs_det_size_domes_list(const fs_meas *m, double max_r, fs_tubercle_list *t, char *err, size_t errlen)
{
	if (!t->n)
		return 0;
	fs_cand_list c = {0};
	fs_measured *res = malloc(t->n * sizeof *res);
	c.items = malloc(t->n * sizeof *c.items);
	int rc = -1;
	if (!res || !c.items) {
		snprintf(err, errlen, "dome sizes at given centres: out of memory");
		goto out;
	}
	c.n = c.cap = t->n;
	for (size_t i = 0; i < t->n; i++)
		c.items[i] = (fs_cand){t->items[i].centroid_x, t->items[i].centroid_y, 0, 0.5 * max_r};
	/* (experimental, off by default: detect_offset.h) */
	int moves = 0;
	if (fs_det_offset_walk_given(m, &c, max_r, &moves)) {
		snprintf(err, errlen, "dome sizes at given centres: out of memory");
		goto out;
	}
	for (size_t i = 0; moves && i < t->n; i++) {
		t->items[i].centroid_x = c.items[i].x;
		t->items[i].centroid_y = c.items[i].y;
	}
	rc = fs_det_measure_domes_at(m, &c, max_r, res, err, errlen);
	if (rc) {
		rc = rc > 0 ? 0 : -1; /* 1: t's sizes stand */
		goto out;
	}
	rc = -1;
	for (size_t i = 0; i < t->n; i++) {
		fs_tubercle *x = &t->items[i];
		const fs_tubercle *r = &res[i].t;
		int sized = res[i].ok && r->fit_quality >= FS_DOME_NO_DOME_QUALITY && fs_tubercle_measured(r);
		/* unsized with a base of a dome's quality: dropped as flat
		 * ground (a base, but no dome's signal), or still a dome whose
		 * base the image does not show (h38b, detect_base_fit.h: kept,
		 * its quality says it is a dome) */
		x->fit_quality =
			sized || res[i].ok || !(r->fit_quality >= FS_DOME_NO_DOME_QUALITY) ? r->fit_quality : 0;
		if (sized)
			fs_tubercle_take_size(x, r);
		else
			fs_tubercle_set_unmeasured(x);
	}
	rc = 0;
out:
	free(c.items);
	free(res);
	if (!rc && fs_foot_pool_support_on())
		rc = support_scale(m, t, err, errlen);
	/* the wide valleys where the flat tall top's witness holds (h53c, on by
	 * default: gap_wide.h) */
	double k;
	if (!rc && fs_gap_wide_level_on())
		rc = fs_gap_wide_scale_list(m->img, m->f, t, &k, err, errlen);
	return rc;
}

/* fs_det_measure's two paths under a coarse screen (fs_det_paths): the
 * base fit with the offset off points at now, the unrefined path's look
 * again (m2: m without the refinement) on meas. */
struct paths_whole {
	const fs_meas *m, *m2;
	const fs_cand_list *c;
	double max_r;
	const double *smooth;
	const fs_det_offset *off;
	fs_measured *meas;
};

static int paths_size(void *ctx, fs_measured *meas)
{
	const struct paths_whole *w = ctx;
	return fs_det_base_fit_apply(w->m, w->c, w->off, w->max_r, NULL, NULL, NULL, meas, NULL);
}

static int paths_look_again(void *ctx)
{
	const struct paths_whole *w = ctx;
	return fs_det_offset_look_again(w->m2, w->c, w->max_r, *w->smooth, w->meas, w->off);
}

int fs_det_measure(const fs_meas *m, const fs_cand_list *c, double max_r, double min_sep,
		   const fs_params *p, fs_source source, fs_tubercle_list *out)
{
	int rc = -1;
	int w = m->width, h = m->height;
	double F = m->f, mg = p->edge_margin_px;
	/* Duplicates are looked up in a grid of min_sep cells (3 x 3 cells
	 * around a centre) instead of against every kept tubercle; cells of
	 * at least 16 px, or log's and dog's min_sep of about a pixel would
	 * make the grid 8 bytes a pixel (800 MB on 100 MP). Any cell of at
	 * least min_sep finds the same duplicates. */
	double cs = min_sep > 16 ? min_sep : 16;
	int gw = (int)(w / cs) + 1, gh = (int)(h / cs) + 1;
	long *head = malloc((size_t)gw * gh * sizeof *head);
	long *next = malloc((c->n + out->n + 1) * sizeof *next);
	fs_measured *meas = NULL;
	fs_raster_key *order = NULL;
	double *before_x = NULL, *before_y = NULL;
	fs_det_offset off;
	fs_meas m2 = *m; /* the unrefined path's */
	m2.refine = 0;
	m2.held_lowpass = m->dome && m->refine > 0 && fs_det_offset_held_lowpass();
	double smooth = 0;
	/* the two paths under a coarse screen (detect_offset.h) */
	struct paths_whole pw = {m, &m2, c, max_r, &smooth, &off, NULL};
	fs_det_paths paths = {paths_size, paths_look_again, &pw, c->n, NULL, 0, NULL};
	fs_cand_list walked = {0};     /* the candidates walked (fs_meas.walk) */
	if (!head || !next)
		goto out;
	for (size_t i = 0; i < (size_t)gw * gh; i++)
		head[i] = -1;
	for (size_t j = 0; j < out->n; j++) {
		int gx = (int)(out->items[j].centroid_x / cs), gy = (int)(out->items[j].centroid_y / cs);
		if (gx < 0 || gy < 0 || gx >= gw || gy >= gh)
			continue;
		next[j] = head[(size_t)gy * gw + gx];
		head[(size_t)gy * gw + gx] = (long)j;
	}
	/* Measure in raster order (candidates come strongest first, scattered
	 * over the image, and the rays then miss the cache on every blob), and
	 * keep in candidate order below, so the strongest of two duplicates
	 * still wins. */
	meas = malloc((c->n ? c->n : 1) * sizeof *meas);
	order = malloc((c->n ? c->n : 1) * sizeof *order);
	if (!meas || !order)
		goto out;
	pw.meas = meas;
	/* (the tiled paths order each tile's candidates themselves) */
	for (size_t i = 0; m->img && i < c->n; i++) {
		order[i].tile = 0;
		order[i].i = i;
		order[i].band = (long)(c->items[i].y / 8);
		order[i].x = c->items[i].x;
	}
	if (m->img)
		fs_raster_sort(order, c->n);
	char terr[128];
	if (!m->img && !m->dome && fs_det_measure_tiled(m, c, max_r, meas, terr, sizeof terr))
		goto out;
	if (!m->img && m->dome && fs_det_measure_domes_tiled(m, c, max_r, meas, terr, sizeof terr))
		goto out;
	/* the smoothing choice's trials share their refinement and bases
	 * with the measurement of the same candidates (fs_det_kept) */
	fs_det_kept kept[FS_DET_SMOOTH_CANDIDATES];
	memset(kept, 0, sizeof kept);
	smooth = m->img ? choose_smooth(m, c, max_r, kept) : 0;
	for (size_t k = 0; m->img && k < c->n; k++) {
		size_t i = order[k].i;
		double mr = max_r > 0 ? max_r : 2 * c->items[i].r;
		fs_tubercle_init(&meas[i].t); /* fit quality unknown unless measured */
		/* Pixel centres: input pixel x lies at (x + 0.5) / F - 0.5 of m. */
		double sx = (c->items[i].x + 0.5) / F - 0.5, sy = (c->items[i].y + 0.5) / F - 0.5;
		if (m->dome) {
			fs_det_measure_dome_one(m->img, sx, sy, mr, F, m->refine, smooth,
						i < FS_DET_SMOOTH_CANDIDATES ? &kept[i] : NULL, &meas[i]);
		} else {
			meas[i].ok = fs_blob_measure(m->img, sx, sy, mr / F, &meas[i].t) == 0;
			meas[i].t.fit_quality = NAN;
			meas[i].spread = NAN;
		}
	}
	/* The dome rule: the centres' common offset from the dome centres
	 * (a side detector's), fitted once with the image formation. */
	if (m->img && m->dome)
		fs_det_drop_flat_ground(meas, c->n, m->flat_spread);
	if (m->img && m->dome && m->refine > 0) {
		before_x = malloc((c->n ? c->n : 1) * sizeof *before_x);
		before_y = malloc((c->n ? c->n : 1) * sizeof *before_y);
		if (!before_x || !before_y)
			goto out;
		for (size_t i = 0; i < c->n; i++) {
			before_x[i] = meas[i].t.centroid_x;
			before_y[i] = meas[i].t.centroid_y;
		}
	}
	if (m->img && m->dome && fs_det_offset_correct(m, c, max_r, smooth, meas, &off))
		goto out;
	/* under a screen, the refined circles may refuse the formation's
	 * offset: measured again from the candidates (detect_offset.h,
	 * fs_det_offset_refused); under a screen coarse against the lattice
	 * the refined path is sized first and kept only where the unrefined
	 * one ends near it (fs_det_offset_coarse_screen, _paths_differ) */
	/* the option (fs_meas.walk): under a coarse screen the candidates
	 * walked onto the domes by the formation's offset (detect_walk.h)
	 * and measured from there as the refused path measures them */
	const fs_cand_list *mc = c; /* the candidates measured from */
	if (m->img && m->dome && m->refine > 0 && m->walk && fs_det_offset_coarse_screen(&off)) {
		double wx, wy;
		if (fs_det_walk_shift(m, c, max_r, smooth, meas, &wx, &wy, NULL))
			goto out;
		if (fs_cand_list_shifted(c, wx, wy, &walked))
			goto out;
		mc = &walked;
	}
	int refused = mc == c && m->img && m->dome && m->refine > 0 &&
		      fs_det_offset_refused(&off, meas, before_x, before_y, c->n);
	if (mc == c && m->img && m->dome && m->refine > 0 && !refused && fs_det_offset_coarse_screen(&off)) {
		if (fs_det_paths_keep_refined(&paths, meas, &off))
			goto out;
		refused = 1;
	}
	if (refused || mc != c) {
		fs_det_measure_unrefined(m, mc, max_r, smooth, order, meas, m->flat_spread);
		if (fs_det_offset_correct(&m2, mc, max_r, smooth, meas, &off))
			goto out;
		/* under a coarse screen this path's offset is read short: look
		 * again from where it moved the domes (detect_offset.h,
		 * fs_det_offset_look_again); the walk has no rest to take */
		if (mc == c && fs_det_paths_look_again(&paths, meas, &off))
			goto out;
	}
	/* ... and each dome's size relative to the others read from its
	 * whole patch through that formation, at the base rule's mean level
	 * (its own readings scatter with the noise on its rays) */
	/* the formation the domes are sized through, for the last step's
	 * option (fs_det_set_first_formation; kept whatever the setting: a
	 * copy of a struct) */
	if (m->img && m->dome && !m->given && m->readings && off.fitted) {
		m->readings->formation_kept = 1;
		m->readings->formation_quality = off.quality;
		m->readings->formation = off.fit;
	}
	fs_meas ms = *m; /* the sizing's: the walked domes' level reader */
	ms.ridge_lit = m->ridge_lit || (mc != c && m->walk == 2);
	if (m->img && m->dome && fs_det_base_fit_apply(&ms, mc, &off, max_r, NULL, NULL, NULL, meas, NULL))
		goto out;
	if (fs_det_paths_choose(&paths, meas))
		goto out;
	for (size_t i = 0; i < c->n; i++) {
		if (!meas[i].ok)
			continue;
		fs_tubercle t = meas[i].t;
		t.centroid_x = (t.centroid_x + 0.5) * F - 0.5;
		t.centroid_y = (t.centroid_y + 0.5) * F - 0.5;
		t.radius_px *= F;
		t.major_axis_px *= F;
		t.minor_axis_px *= F;
		/* Below a quarter of the rays' strongest steps on one circle
		 * there is no dome (a hole between domes, texture); an
		 * unmeasured base (radius NAN) keeps its centre. */
		if (m->dome && !(t.fit_quality >= 0.45))
			continue;
		if (isfinite(t.radius_px) && t.circularity < p->min_circularity)
			continue;
		if (t.centroid_x < mg || t.centroid_y < mg || t.centroid_x > w - 1 - mg ||
		    t.centroid_y > h - 1 - mg)
			continue;
		int gx = (int)(t.centroid_x / cs), gy = (int)(t.centroid_y / cs);
		int dup = 0;
		for (int yy = gy - 1; yy <= gy + 1 && !dup; yy++) {
			for (int xx = gx - 1; xx <= gx + 1 && !dup; xx++) {
				if (xx < 0 || yy < 0 || xx >= gw || yy >= gh)
					continue;
				for (long j = head[(size_t)yy * gw + xx]; j >= 0 && !dup; j = next[j]) {
					double dx = out->items[j].centroid_x - t.centroid_x;
					double dy = out->items[j].centroid_y - t.centroid_y;
					dup = dx * dx + dy * dy < min_sep * min_sep;
				}
			}
		}
		if (dup)
			continue;
		t.id = (int)out->n + 1;
		t.source = source;
		if (fs_tubercle_list_append(out, &t))
			goto out;
		next[out->n - 1] = head[(size_t)gy * gw + gx];
		head[(size_t)gy * gw + gx] = (long)(out->n - 1);
	}
	rc = 0;
out:
	free(head);
	free(next);
	free(meas);
	free(order);
	free(before_x);
	free(before_y);
	fs_det_paths_free(&paths);
	fs_cand_free(&walked);
	return rc;
}
