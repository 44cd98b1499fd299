/* detect_base_fit.c - the dome rule's per-tubercle diameters from the
 * template fit at the base rule's level (see detect_base_fit.h). */
#include "analysis/detect_base_fit.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/base_readings.h"
#include "analysis/base_step.h"
#include "analysis/centre_axis_calib.h"
#include "analysis/level_calib.h"
#include "analysis/centre_perdome.h"
#include "analysis/centre_perdome_calib.h"
#include "analysis/detect_base_gap.h"
#include "analysis/detect_offset.h"
#include "analysis/dome_base_fit.h"
#include "analysis/dome_measure.h"
#include "analysis/dome_signal.h"
#include "analysis/halftone.h"
#include "analysis/preprocess.h"
#include "analysis/se_render.h"
#include "base/sorting.h"

/* the base rule's gate (detect_measure.c): below this share of the rays'
 * steps on one circle there is no dome */
#define DOME_QUALITY 0.45
#define MIN_SIZED 8

static int is_dome(const fs_measured *q)
{
	return q->ok && q->t.fit_quality >= DOME_QUALITY && isfinite(q->t.radius_px) && q->t.radius_px > 0;
}

void fs_det_base_plan_free(fs_det_base_plan *p)
{
	free(p->step_out);
	free(p->idx);
	free(p->xs);
	free(p->ys);
	free(p->at_end);
	free(p->ex);
	memset(p, 0, sizeof *p);
}

int fs_det_base_plan_make(const fs_measured *meas, size_t nc, const fs_det_offset *off, fs_det_base_plan *p)
{
	memset(p, 0, sizeof *p);
	if (!off || !off->fitted)
		return 0;
	size_t n = 0;
	for (size_t i = 0; i < nc; i++)
		n += is_dome(&meas[i]);
	if (n < MIN_SIZED)
		return 0;
	double *rs = malloc(n * sizeof *rs);
	p->idx = malloc(n * sizeof *p->idx);
	p->xs = malloc(n * sizeof *p->xs);
	p->ys = malloc(n * sizeof *p->ys);
	p->at_end = calloc(n, sizeof *p->at_end);
	if (!rs || !p->idx || !p->xs || !p->ys || !p->at_end) {
		free(rs);
		fs_det_base_plan_free(p);
		return -1;
	}
	for (size_t i = 0; i < nc; i++)
		if (is_dome(&meas[i])) {
			p->idx[p->n] = i;
			p->xs[p->n] = meas[i].t.centroid_x;
			p->ys[p->n] = meas[i].t.centroid_y;
			rs[p->n++] = meas[i].t.radius_px;
		}
	p->fill0 = 2 * fs_median_upper(rs, n) / off->fit.pitch;
	p->smooth_foot = off->fit.foot > 1;
	/* (the templates' window about the support the foot model names,
	 * not the base rule's flank reading: h47c) */
	if (p->smooth_foot && off->fit.fill > 0)
		p->fill0 = off->fit.fill;
	free(rs);
	return 0;
}

/* One level reading (the plain base rule, or with ridge its ridge
 * variant) in the radius window of mr at scale F: the radius, NAN when the
 * reading fails or its fit quality is below DOME_QUALITY; *edge as
 * fs_dome_measure_base_edge (0 with NAN); its polygon's measurement in
 * *poly unless NULL (the screened shadow factor's elongation, one
 * reading for both). (With its rays' blur, h32e: fs_det_base_level_blur.) */
static double level_reading(int ridge, const fs_image *img, double x, double y, double mr, double F, int *edge,
			    fs_tubercle *poly)
{
	fs_tubercle t;
	int e = 0;
	memset(&t, 0, sizeof t);
	int rc = fs_dome_measure_base_edge(img, x, y, FS_DOME_R0 * mr / F, FS_DOME_R1 * mr / F, ridge, &t, &e);
	if (poly)
		*poly = t;
	return fs_det_base_level_value(rc, &t, e, NAN, edge, NULL);
}

double fs_det_base_level_value(int rc, const fs_tubercle *t, int e, double v, int *edge, double *var)
{
	*edge = 0;
	if (var)
		*var = NAN;
	if (rc || !(t->fit_quality >= DOME_QUALITY) || !(t->radius_px > 0))
		return NAN;
	*edge = e;
	if (var)
		*var = v;
	return t->radius_px;
}

double fs_det_base_level_one(const fs_image *img, double x, double y, double mr, double F, int *edge)
{
	return level_reading(0, img, x, y, mr, F, edge, NULL);
}

double fs_det_base_level_kept(const fs_dome_reading *r, int *edge, double *var)
{
	/* written into a zeroed tubercle, as level_reading's */
	fs_tubercle t;
	int e;
	double v;
	memset(&t, 0, sizeof t);
	int rc = fs_dome_reading_apply(r, &t, &e, &v);
	return fs_det_base_level_value(rc, &t, e, v, edge, var);
}

double fs_det_base_level_blur(const fs_image *img, double x, double y, double mr, double F, int *edge, double *var,
			      fs_dome_reading *keep)
{
	/* level_reading's plain reading with its blur, kept as a value */
	fs_dome_reading r;
	fs_dome_read_base_blur(img, x, y, FS_DOME_R0 * mr / F, FS_DOME_R1 * mr / F, &r);
	if (keep)
		*keep = r;
	return fs_det_base_level_kept(&r, edge, var);
}

/* The base rule's rays look for their step within 1.25 of the common
 * circle's radius (dome_measure.c's window): a border farther out is not
 * read */
#define SHADOW_WINDOW 0.25

/* The readings' elongation along the detector's axis, relative to their
 * radius, below which there is no shadow's border to take out: the
 * unshadowed corner and interior scenes' readings show up to 0.005
 * (docs/paper-figures.md, h37d), their shadowed ones 0.010-0.021 */
#define SHADOW_A2_MIN 0.008

/* Under a halftone screen the level's own readings on the low-pass
 * (fs_det_base_shadow_factor_screened) show the elongation instead, and
 * the screened scenes without a shadow show more of it than the clean
 * ones: the corner scenes' fill-0.8 low spheres 0.006-0.009 at the rule's
 * centres, the shadowed low flat tops (43, 59) 0.013-0.016
 * (docs/paper-figures.md, h41i) */
#define SHADOW_A2_MIN_SCREENED 0.012

double fs_det_base_elongation(const fs_tubercle *t, double azimuth)
{
	if (!t->has_ellipse || !(t->major_axis_px >= t->minor_axis_px))
		return NAN;
	/* the polygon's elongation projected on the detector's axis:
	 * (a - b) / 2 cos 2 (theta - azimuth), semi-axes a, b */
	double e = 0.25 * (t->major_axis_px - t->minor_axis_px);
	return e * (cos(2 * t->orientation) * cos(2 * azimuth) + sin(2 * t->orientation) * sin(2 * azimuth));
}

/* The ratio base / reading for n readings whose elongations along the
 * detector's axis sum to sa and radii to sr: 1 below MIN_SIZED readings
 * or where q = sa / sr is at most q_min (the caller's threshold: the
 * elongation a shadowless scene shows, which differs with and without a
 * screen); else the elevation at which the formation's dome casts a
 * border with elongation q, then the border's mean over the rays there.
 * (Both factors' common tail, so the screened one cannot drift from the
 * clean one's arithmetic.) */
static double shadow_factor_of(const fs_det_offset *off, double sa, double sr, size_t n, double q_min)
{
	if (n < MIN_SIZED || !(sr > 0))
		return 1;
	double q = sa / sr;
	if (!(q > q_min))
		return 1;
	/* the elevation at which the formation's dome casts a border with
	 * that elongation (it falls as the elevation rises), then the
	 * border's mean over the rays there: the reading's excess radius */
	double lo = 1 * M_PI / 180, hi = 89 * M_PI / 180, m, a2;
	/* (below the elevation whose border along the axis leaves the window
	 * the elongation falls again: the search starts there) */
	for (int it = 0; it < 24; it++) {
		double mid = 0.5 * (lo + hi);
		if (fs_se_shadow_reach(off->fit.h_over_r, off->fit.profile, mid) > SHADOW_WINDOW)
			lo = mid;
		else
			hi = mid;
	}
	lo = hi;
	hi = 89 * M_PI / 180;
	fs_se_shadow_rays(off->fit.h_over_r, off->fit.profile, lo, SHADOW_WINDOW, &m, &a2);
	if (a2 > q) {
		for (int it = 0; it < 24; it++) {
			double mid = 0.5 * (lo + hi);
			fs_se_shadow_rays(off->fit.h_over_r, off->fit.profile, mid, SHADOW_WINDOW, &m, &a2);
			if (a2 > q)
				lo = mid;
			else
				hi = mid;
		}
		fs_se_shadow_rays(off->fit.h_over_r, off->fit.profile, 0.5 * (lo + hi), SHADOW_WINDOW, &m, &a2);
	}
	return 1 / (1 + m);
}

double fs_det_base_shadow_factor(const fs_det_base_plan *p, const fs_det_offset *off, const fs_measured *meas,
				 const double *lr, int clear)
{
	if (!clear || !off || !off->fitted || off->fit.halftone > 0)
		return 1;
	double sa = 0, sr = 0;
	size_t n = 0;
	for (size_t k = 0; k < p->n; k++) {
		double e = fs_det_base_elongation(&meas[p->idx[k]].t, off->fit.azimuth);
		if (!isfinite(lr[k]) || !isfinite(e))
			continue;
		sa += e;
		sr += lr[k];
		n++;
	}
	return shadow_factor_of(off, sa, sr, n, SHADOW_A2_MIN);
}

double fs_det_base_shadow_factor_screened(const fs_det_base_plan *p, const fs_det_offset *off, const double *lr,
					  const int *le, const double *la)
{
	/* only a formation that could cast the shadow: the detector on the
	 * side its slopes say and a shadow no deeper than the signal; the
	 * screened low spheres whose fit flipped the azimuth (side < 0) or
	 * took a shadow 1.4-58 times the yield show elongations of 0.011-0.024
	 * that no shadow makes (h41i) */
	if (!off || !off->fitted || !(off->fit.halftone > 0) || !(off->fit.side > 0) || !(off->fit.shadow > 0) ||
	    !(off->fit.shadow <= 1))
		return 1;
	double sa = 0, sr = 0;
	size_t n = 0;
	for (size_t k = 0; k < p->n; k++) {
		if (!isfinite(lr[k]) || le[k] || !isfinite(la[k]))
			continue;
		sa += la[k];
		sr += lr[k];
		n++;
	}
	return shadow_factor_of(off, sa, sr, n, SHADOW_A2_MIN_SCREENED);
}

void fs_det_base_shadow_apply(const fs_det_base_plan *p, double factor, double *lr)
{
	if (factor == 1)
		return;
	for (size_t k = 0; k < p->n; k++)
		if (isfinite(lr[k]))
			lr[k] *= factor;
}

double fs_det_base_shadow_take_out(const fs_det_base_plan *p, const fs_det_offset *off, const fs_measured *meas,
				   const int *le, const double *la, int screened, int extrap, double *lr)
{
	double f = screened ? fs_det_base_shadow_factor_screened(p, off, lr, le, la)
			    : fs_det_base_shadow_factor(p, off, meas, lr, extrap == FS_DET_EXTRAP_CLEAR);
	fs_det_base_shadow_apply(p, f, lr);
	return f;
}

static size_t g_extrap_sample = FS_DET_BASE_EXTRAP_SAMPLE;

size_t fs_det_base_set_extrap_sample(size_t bound)
{
	size_t old = g_extrap_sample;
	g_extrap_sample = bound;
	return old;
}

/* The smallest power of two m with n / m at most bound (1: bound 0) */
static unsigned classes_within(size_t n, size_t bound)
{
	unsigned m = 1;
	while (bound && n / m > bound && m < (1u << 30))
		m *= 2;
	return m;
}

static unsigned classes_for(size_t n)
{
	return classes_within(n, g_extrap_sample);
}

int fs_det_base_extrap_picked(double x, double y, unsigned m)
{
	if (m <= 1 || !isfinite(x) || !isfinite(y))
		return 1;
	/* the pixel, not the coordinates' bits: the tiled path's centres
	 * may differ from the whole image's in their last bits */
	uint64_t h = (uint64_t)(int64_t)floor(x) * 0x9E3779B97F4A7C15ULL ^
		     (uint64_t)(int64_t)floor(y) * 0xC2B2AE3D27D4EB4FULL;
	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ULL;
	h ^= h >> 29;
	return (h >> 32) % m == 0;
}

/* The readings in lr that are sized and not pinned at their window's end
 * (le): what the extrapolation's sample and the tall sphere's line count */
static size_t unpinned(const fs_det_base_plan *p, const double *lr, const int *le)
{
	size_t n = 0;
	for (size_t k = 0; k < p->n; k++)
		n += isfinite(lr[k]) && !le[k];
	return n;
}

unsigned fs_det_base_extrap_classes(const fs_det_base_plan *p, const double *lr, const int *le)
{
	return classes_for(unpinned(p, lr, le));
}

int fs_det_base_extrap_plan(const fs_det_base_plan *p, const fs_det_offset *off, const double *lr, const int *le,
			    const double *var, double *v1)
{
	*v1 = 0;
	if (!off->fitted || off->fit.halftone > 0 || !(off->fit.pitch > 0))
		return 0;
	double sv = 0;
	size_t n = 0;
	for (size_t k = 0; k < p->n; k++)
		if (isfinite(lr[k]) && !le[k] && var[k] > 0) {
			sv += var[k];
			n++;
		}
	if (n < MIN_SIZED)
		return 0;
	*v1 = sv / n;
	double sg = sqrt(*v1 + FS_DET_BASE_EXTRA_BLUR * FS_DET_BASE_EXTRA_BLUR);
	double r0 = 0.5 * p->fill0 * off->fit.pitch, gap = off->fit.pitch - 2 * r0;
	if (!(r0 >= FS_DET_BASE_RESOLVED * sg))
		return FS_DET_EXTRAP_NONE;
	if (gap >= FS_DET_BASE_FOOT_CLEAR * sg)
		return FS_DET_EXTRAP_CLEAR;
	/* at tight gaps only on a steep foot, whose excess is the blur's
	 * (detect_base_fit.h, h41f), and only where no low dome fits the
	 * patch as well (h41l): a low dome's h/R is the grid's coin toss */
	return off->fit.h_over_r >= FS_DET_BASE_TALL_HR && off->fit.low_ratio >= FS_DET_BASE_TALL_LOW_RATIO
		       ? FS_DET_EXTRAP_TALL
		       : FS_DET_EXTRAP_NONE;
}

int fs_det_base_moved_wanted(const fs_det_base_plan *p, const fs_det_offset *off, const double *lr, const int *le,
			     const double *var)
{
	double v1;
	if (!off->fitted || off->fit.halftone > 0 || !(hypot(off->dx, off->dy) > 0) ||
	    fs_det_base_extrap_plan(p, off, lr, le, var, &v1) != FS_DET_EXTRAP_NONE)
		return 0;
	/* shut by the formation alone: a tall dome's would open it */
	fs_det_offset tall = *off;
	tall.fit.h_over_r = 1;
	tall.fit.low_ratio = INFINITY;
	return fs_det_base_extrap_plan(p, &tall, lr, le, var, &v1) == FS_DET_EXTRAP_TALL;
}

void fs_det_base_moved_xy(const fs_det_base_plan *p, const fs_det_offset *off, double *xs, double *ys, double *rs)
{
	for (size_t k = 0; k < p->n; k++) {
		xs[k] = p->xs[k] + off->dx;
		ys[k] = p->ys[k] + off->dy;
		/* (the fit holds the fill at twice their median over the pitch) */
		rs[k] = 0.5 * off->fit.fill * off->fit.pitch;
	}
}

double fs_det_base_extrap_apply(const fs_det_base_plan *p, double v1, const int *le, const double *l2, double *lr)
{
	double s1 = 0, s2 = 0;
	size_t n = 0;
	for (size_t k = 0; k < p->n; k++)
		if (isfinite(lr[k]) && !le[k] && isfinite(l2[k])) {
			s1 += lr[k];
			s2 += l2[k];
			n++;
		}
	if (n < MIN_SIZED || !(s1 > 0))
		return 1;
	double corr = (s2 / s1 - 1) * v1 / (FS_DET_BASE_EXTRA_BLUR * FS_DET_BASE_EXTRA_BLUR);
	if (!(fabs(corr) <= FS_DET_BASE_EXTRAP_MAX))
		return 1;
	for (size_t k = 0; k < p->n; k++)
		if (isfinite(lr[k]))
			lr[k] *= 1 - corr;
	return 1 - corr;
}

/* fs_det_base_set_line's switch: one setting a process, set before
 * any detection (a bench's or test's command line), never while one
 * runs */
static int line_on = 1;

int fs_det_base_set_line(int on)
{
	int was = line_on;
	line_on = on != 0;
	return was;
}

/* the calibration: v1's mean at each beam (corner 5 and 21, seeds +32000
 * and +36000, h46b) against the image's v as the simulator made it */
static const double LINE_V1[3] = {0.377, 0.485, 0.598};
static const double LINE_V[3] = {0.626, 0.855, 1.215};

double fs_det_base_line_v(double v1)
{
	/* beyond the span by at most a tenth of it: a parabola's ends are
	 * not to be trusted further */
	double span = LINE_V1[2] - LINE_V1[0];
	if (!(v1 >= LINE_V1[0] - 0.1 * span && v1 <= LINE_V1[2] + 0.1 * span))
		return NAN;
	double v = 0;
	for (int i = 0; i < 3; i++) {
		double w = LINE_V[i];
		for (int j = 0; j < 3; j++)
			if (j != i)
				w *= (v1 - LINE_V1[j]) / (LINE_V1[i] - LINE_V1[j]);
		v += w;
	}
	return v;
}

int fs_det_base_line_wanted(int plan, const fs_det_offset *off, double v1)
{
	return line_on && plan == FS_DET_EXTRAP_TALL && off->fitted && off->fit.profile < 0.5 &&
	       isfinite(fs_det_base_line_v(v1));
}

double fs_det_base_line_apply(const fs_det_base_plan *p, double v1, const int *le, double *lr)
{
	double v = fs_det_base_line_v(v1);
	if (unpinned(p, lr, le) < MIN_SIZED || !isfinite(v))
		return 1;
	double g = 1 / (1 + FS_DET_BASE_LINE_SLOPE * v / 100);
	for (size_t k = 0; k < p->n; k++)
		if (isfinite(lr[k]))
			lr[k] *= g;
	return g;
}

/* The median radius of the readings r (those pinned at their window's end
 * left out where pinned is given) under a fitted screen into *r0: 0 where
 * there is no screen or fewer than MIN_SIZED readings (every screened
 * level's judgement below starts from it). */
static int screened_median_radius(const fs_det_base_plan *p, const fs_det_offset *off, const double *r,
				  const int *pinned, double *scratch, double *r0)
{
	if (!off->fitted || !(off->fit.halftone > 0) || !(off->fit.pitch > 0))
		return 0;
	size_t n = 0;
	for (size_t k = 0; k < p->n; k++)
		if (isfinite(r[k]) && !(pinned && pinned[k]))
			scratch[n++] = r[k];
	if (n < MIN_SIZED)
		return 0;
	*r0 = fs_median_upper(scratch, n);
	return 1;
}

/* Bases of median radius r0 resolved by the low-pass: the radius and the
 * gap both at least FS_DET_BASE_RESOLVED low-pass sigmas; a gap the
 * low-pass merges is merged on the first reading's rays too when they
 * were smoothed as much (detect_base_fit.h, h41c). One test for the first
 * readings and the low-passed ones (h43j), so the two cannot drift. */
static int screened_resolved(const fs_det_offset *off, double r0)
{
	double sigma = FS_HALFTONE_LOWPASS * off->fit.halftone;
	double gap = off->fit.pitch - 2 * r0;
	return r0 >= FS_DET_BASE_RESOLVED * sigma && (gap >= FS_DET_BASE_RESOLVED * sigma || off->smooth >= sigma);
}

int fs_det_base_level_screened(const fs_det_base_plan *p, const fs_det_offset *off, const double *fr, double *scratch)
{
	double r0;
	return screened_median_radius(p, off, fr, NULL, scratch, &r0) && screened_resolved(off, r0);
}

int fs_det_base_level_screened_read(const fs_det_base_plan *p, const fs_det_offset *off, const double *lr,
				    const int *le, double *scratch)
{
	double r0;
	return screened_median_radius(p, off, lr, le, scratch, &r0) && screened_resolved(off, r0);
}

int fs_det_base_level_tight_screen(const fs_det_base_plan *p, const fs_det_offset *off, const double *fr,
				   double *scratch)
{
	double r0;
	/* no whole dot between two bases: the unsmoothed rays' steepest
	 * step beyond the flank is the base's own (detect_base_fit.h) */
	return screened_median_radius(p, off, fr, NULL, scratch, &r0) && off->fit.pitch - 2 * r0 < off->fit.halftone;
}

double fs_det_base_level_lowpassed(const fs_image *lp, double x, double y, double mr, double F, int *edge)
{
	return level_reading(1, lp, x, y, mr, F, edge, NULL);
}

/* fs_det_base_set_ridge_lit's switch: one setting a process, set before
 * any detection, never while one runs */
static int ridge_lit_on;

int fs_det_base_set_ridge_lit(int on)
{
	int was = ridge_lit_on;
	ridge_lit_on = on != 0;
	return was;
}

int fs_det_base_ridge_lit(void)
{
	return ridge_lit_on;
}

/* fs_det_base_set_given_fit's mode: one setting a process, set before
 * any detection, never while one runs */
static int given_fit_mode;

int fs_det_base_set_given_fit(int mode)
{
	if (mode < FS_DET_GIVEN_FIT_RULE || mode > FS_DET_GIVEN_FIT_CROSS)
		return -1;
	int was = given_fit_mode;
	given_fit_mode = mode;
	return was;
}

int fs_det_base_given_fit(void)
{
	return given_fit_mode;
}

int fs_det_base_tpl_fit(const fs_dome_tpl *t, const fs_image *img, int ox, int oy, double x, double y, int given,
			fs_dome_tfit *out)
{
	if (given && given_fit_mode == FS_DET_GIVEN_FIT_STILL)
		return fs_dome_tpl_fit_still_crop(t, img, ox, oy, x, y, out);
	if (given && given_fit_mode == FS_DET_GIVEN_FIT_CROSS)
		return fs_dome_tpl_fit_cross_crop(t, img, ox, oy, x, y, out);
	return fs_dome_tpl_fit_crop(t, img, ox, oy, x, y, out);
}

const fs_base_fit_at *fs_det_base_kept_fit(const fs_base_readings *kept, double x, double y)
{
	const fs_base_fit_at *kf = kept ? fs_base_readings_find_fit(kept, x, y) : NULL;
	return kf && kf->moved <= FS_DET_FIRST_FIT_MOVED ? kf : NULL;
}

int fs_det_base_tpl_fit_kept(const fs_dome_tpl *t, const fs_image *img, int ox, int oy, double x, double y,
			     int given, const fs_base_readings *kept, fs_dome_tfit *out)
{
	if (given && fs_det_first_formation() == 5 && fs_det_base_kept_fit(kept, x + ox, y + oy))
		return fs_dome_tpl_fit_still_crop(t, img, ox, oy, x, y, out);
	return fs_det_base_tpl_fit(t, img, ox, oy, x, y, given, out);
}

void fs_det_base_keep_fits(fs_base_readings *r, const fs_det_base_plan *p, double f, const double *fr,
			   const double *sig, const double *fx, const double *fy, const double *x0, const double *y0)
{
	for (size_t k = 0; r && k < p->n; k++) {
		if (!isfinite(fr[k]))
			continue;
		fs_base_fit_at kf = {(fx[k] + 0.5) * f - 0.5, (fy[k] + 0.5) * f - 0.5, fr[k], sig[k],
				     hypot(fx[k] - x0[k], fy[k] - y0[k]), p->at_end[k]};
		(void)fs_base_readings_add_fit(r, &kf);
	}
}

double fs_det_base_level_lowpassed_along(const fs_image *lp, double x, double y, double mr, double F, double azimuth,
					 int far_out, int *edge, double *along)
{
	return fs_det_base_level_lowpassed_lit(lp, x, y, mr, F, azimuth, far_out, fs_dome_lit_cap(), edge, along, NULL);
}

/* fs_det_base_set_lit_gate's bar (px; NAN: off) */
static double lit_gate = FS_DET_BASE_LIT_GATE;

double fs_det_base_set_lit_gate(double px)
{
	double was = lit_gate;
	lit_gate = px >= 0 ? px : NAN;
	return was;
}

int fs_det_base_lit_gate_free(const double *shift, size_t n, double *scratch)
{
	if (!shift || !(lit_gate >= 0))
		return 0;
	size_t m = 0;
	for (size_t k = 0; k < n; k++)
		if (isfinite(shift[k]))
			scratch[m++] = shift[k];
	return m > 0 && fs_median_double(scratch, m) >= lit_gate;
}

double fs_det_base_level_lowpassed_lit(const fs_image *lp, double x, double y, double mr, double F, double azimuth,
				       int far_out, double cap, int *edge, double *along, double *shift)
{
	fs_tubercle t;
	double r;
	if (shift)
		*shift = NAN;
	if ((ridge_lit_on || far_out) && isfinite(azimuth)) {
		int e = 0;
		memset(&t, 0, sizeof t);
		int rc = fs_dome_measure_base_ridge_lit_capped(lp, x, y, FS_DOME_R0 * mr / F, FS_DOME_R1 * mr / F,
							       azimuth, cap, &t, &e, shift);
		r = fs_det_base_level_value(rc, &t, e, NAN, edge, NULL);
		if (rc && shift)
			*shift = NAN;
	} else {
		r = level_reading(1, lp, x, y, mr, F, edge, &t);
	}
	*along = isfinite(r) ? fs_det_base_elongation(&t, azimuth) : NAN;
	return r;
}

/* Whether plan entry k's level reading is the window's end: its
 * re-read (lr, le) where there is one, else the first reading's edge. */
static int pinned(const fs_det_base_plan *p, const double *lr, const int *le, const fs_measured *meas, size_t k)
{
	if (lr && isfinite(lr[k]))
		return le && le[k] != 0;
	return meas[p->idx[k]].edge != 0;
}

int fs_det_base_step_point(const fs_det_base_plan *p, const double *fr, const double *fx, const double *fy,
			   const double *lvx, const double *lvy, const double *lr, const int *le, int screened,
			   const fs_measured *meas, size_t k, double *x, double *y, double *r)
{
	/* left out of the judgement's sample (fs_det_base_step_pick) */
	if (p->step_out && p->step_out[k])
		return 0;
	if (p->own) {
		/* the base rule's own readings stand (fs_det_base_fit_scale):
		 * each is judged where it was read, fitted or not */
		const fs_measured *q = &meas[p->idx[k]];
		if (!q->ok || q->edge != 0 || !(q->t.radius_px > 0))
			return 0;
		*x = p->xs[k];
		*y = p->ys[k];
		*r = q->t.radius_px;
		return 1;
	}
	if (!isfinite(fr[k]) || pinned(p, lr, le, meas, k))
		return 0;
	if (lr && isfinite(lr[k])) {
		*x = screened ? lvx[k] : fx[k];
		*y = screened ? lvy[k] : fy[k];
		*r = lr[k];
		return screened ? 2 : 1;
	}
	*x = p->xs[k];
	*y = p->ys[k];
	*r = meas[p->idx[k]].t.radius_px;
	return 1;
}

static size_t g_step_sample = FS_DET_BASE_STEP_SAMPLE;

size_t fs_det_base_set_step_sample(size_t bound)
{
	size_t old = g_step_sample;
	g_step_sample = bound;
	return old;
}

int fs_det_base_step_pick(fs_det_base_plan *p, const double *fr, const double *fx, const double *fy,
			  const double *lvx, const double *lvy, const double *lr, const int *le, int screened,
			  const fs_measured *meas)
{
	free(p->step_out);
	p->step_out = NULL;
	size_t n = 0;
	double x, y, r;
	for (size_t k = 0; k < p->n; k++)
		n += fs_det_base_step_point(p, fr, fx, fy, lvx, lvy, lr, le, screened, meas, k, &x, &y, &r) != 0;
	unsigned m = classes_within(n, g_step_sample);
	if (m <= 1)
		return 0;
	unsigned char *out = calloc(p->n ? p->n : 1, 1);
	if (!out)
		return -1;
	/* (the pick by the point's pixel, as the second readings': the same
	 * in both passes and both paths) */
	for (size_t k = 0; k < p->n; k++)
		if (fs_det_base_step_point(p, fr, fx, fy, lvx, lvy, lr, le, screened, meas, k, &x, &y, &r))
			out[k] = !fs_det_base_extrap_picked(x, y, m);
	p->step_out = out;
	return 0;
}

/* A level reading whose ratio to its own dome's fitted radius lies below
 * the image's median ratio by more than LEVEL_STRAY_Z robust SDs of the
 * ratios, and by at least LEVEL_STRAY of the median, reads less than
 * that dome's base (a dome cut by the frame) and stays out of the level's
 * sums (detect_base_fit.h, "Stray readings"). The healthy readings'
 * ratios spread by 0.3-0.6 % (MAD) on the pitch-64 corner scenes, the
 * strays seen there lie 12-37 % below; the floor keeps a tight spread
 * from making strays of healthy readings. */
#define LEVEL_STRAY 0.10
#define LEVEL_STRAY_Z 6.0

/* The base reading plan entry k adds to the level's sum. */
static double level_of(const fs_det_base_plan *p, const double *lr, const fs_measured *meas, size_t k)
{
	return lr && isfinite(lr[k]) ? lr[k] : meas[p->idx[k]].t.radius_px;
}

/* The median of the read (fitted, not pinned) entries' ratios of their
 * level reading to their fitted radius in *m, and the distance below it
 * beyond which a ratio is a stray in *w: LEVEL_STRAY_Z robust SDs (1.4826 MAD)
 * of those ratios, at least LEVEL_STRAY of the median. *m NAN with
 * fewer than MIN_SIZED of them, or out of memory (then no reading is a
 * stray: the sums as before h40g). */
static void level_ratio_gate(const fs_det_base_plan *p, const double *fr, const double *lr, const int *le,
			     const fs_measured *meas, double *m, double *w)
{
	*m = *w = NAN;
	double *v = malloc((p->n ? p->n : 1) * sizeof *v);
	if (!v)
		return;
	size_t n = 0;
	for (size_t k = 0; k < p->n; k++)
		if (isfinite(fr[k]) && fr[k] > 0 && !pinned(p, lr, le, meas, k)) {
			double q = level_of(p, lr, meas, k) / fr[k];
			if (isfinite(q))
				v[n++] = q;
		}
	if (n >= MIN_SIZED) {
		*m = fs_median_double(v, n);
		for (size_t i = 0; i < n; i++)
			v[i] = fabs(v[i] - *m);
		*w = fmax(LEVEL_STRAY * *m, LEVEL_STRAY_Z * 1.4826 * fs_median_double(v, n));
	}
	free(v);
}

/* The level's readings (fs_det_base_fit_scale's arguments): info's
 * fitted, pinned, stray, read and nostep counts (info zeroed first), and
 * the sums of the read domes' base readings *sb and fitted radii *sf, and
 * of every fitted radius *sf_all. */
static void count_level(const fs_det_base_plan *p, const double *fr, const double *lr, const int *le,
			const double *step, const fs_measured *meas, fs_det_base_fit *info, double *sb, double *sf,
			double *sf_all)
{
	memset(info, 0, sizeof *info);
	*sb = *sf = *sf_all = 0;
	double m = NAN, w = NAN;
	if (!p->screened)
		level_ratio_gate(p, fr, lr, le, meas, &m, &w);
	for (size_t k = 0; k < p->n; k++)
		if (isfinite(fr[k])) {
			info->fitted++;
			*sf_all += fr[k];
			if (pinned(p, lr, le, meas, k)) {
				info->pinned++;
				continue;
			}
			double b = level_of(p, lr, meas, k);
			/* (only short: a long reading is a base, detect_base_fit.h) */
			if (m > 0 && !(m - b / fr[k] <= w)) {
				info->stray++;
				continue;
			}
			*sb += b;
			*sf += fr[k];
			info->read++;
			/* (the step judgement's sample, fs_det_base_step_pick) */
			info->judged += !(p->step_out && p->step_out[k]);
			info->nostep += step && step[k] < FS_BASE_STEP_MIN;
		}
}

/* More than half of at least MIN_SIZED readings on no step: one bar for
 * the level's readings and the rule's own, so both verdicts move together. */
static int majority_on_no_step(size_t read, size_t nostep)
{
	return read >= MIN_SIZED && 2 * nostep > read;
}

/* (of the judged readings: every read one unless the judgement took a
 * sample, fs_det_base_step_pick; at least MIN_SIZED read) */
static int nostep_majority(const fs_det_base_fit *info)
{
	return info->read >= MIN_SIZED && majority_on_no_step(info->judged, info->nostep);
}

void fs_det_base_own_plan(fs_det_base_plan *p, const double *fr, int given)
{
	size_t fitted = 0;
	for (size_t k = 0; k < p->n; k++)
		fitted += isfinite(fr[k]);
	p->own = given && fitted < MIN_SIZED;
}

/* Most of at least MIN_SIZED judged own readings on no step (p->own). */
static int own_nostep_majority(const fs_det_base_plan *p, const double *step)
{
	size_t read = 0, nostep = 0;
	for (size_t k = 0; step && k < p->n; k++)
		if (isfinite(step[k])) {
			read++;
			nostep += step[k] < FS_BASE_STEP_MIN;
		}
	return majority_on_no_step(read, nostep);
}

/* fs_det_base_set_nobase's switch: one setting a process, set before
 * any detection, never while one runs */
static int nobase_mode = FS_DET_NOBASE_VERDICT;

int fs_det_base_set_nobase(int mode)
{
	int was = nobase_mode;
	nobase_mode = mode;
	return was;
}

/* Every dome of the plan kept where it is, without a diameter (no base
 * in the image, detect_base_fit.h); sized domes at their fitted centres. */
static void leave_unmeasured(const fs_det_base_plan *p, const double *fr, const double *fx, const double *fy,
			     fs_measured *meas, fs_det_base_fit *info)
{
	for (size_t k = 0; k < p->n; k++) {
		fs_tubercle *q = &meas[p->idx[k]].t;
		if (isfinite(fr[k])) {
			q->centroid_x = fx[k];
			q->centroid_y = fy[k];
		}
		fs_tubercle_set_unmeasured(q);
		info->unmeasured++;
	}
}

/* The sized domes' common move from the plan's centres to their fitted
 * ones (the component-wise median of fx - xs, fy - ys; 0 when fewer than
 * MIN_SIZED are sized or out of memory). A dome the template fit cannot
 * size (its patch cut by the frame, its best fill an end of the
 * templates' range) keeps the plan's centre, which the first pass found
 * with the same common error as its neighbours': the formation's offset
 * on its grid, the refinement's pull onto the lit flank, which the
 * template fit and the axis step then take out of the sized domes only
 * (docs/paper-figures.md, h39g: on the held-out interior scenes that fail
 * those domes sit 1.5-4 px towards the detector while the sized ones are
 * within 0.1 px, and the last step sizes them there). Only where the axis
 * step found the centres far off (p->move_unsized): elsewhere the common
 * move is a fraction of a pixel, moving them gains nothing, and the border
 * domes it moves change the last step's formation sample (h39g: corner
 * 35 on the held-out seeds, S +0.4 -> +4.7 % from 11 uncounted domes
 * moved 0.6 px). */
static void common_move(const fs_det_base_plan *p, const double *fr, const double *fx, const double *fy, double *mdx,
			double *mdy)
{
	*mdx = *mdy = 0;
	double *v = malloc(2 * p->n * sizeof *v);
	if (!v)
		return;
	size_t n = 0;
	for (size_t k = 0; k < p->n; k++)
		if (isfinite(fr[k])) {
			v[n] = fx[k] - p->xs[k];
			v[p->n + n++] = fy[k] - p->ys[k];
		}
	if (n >= MIN_SIZED) {
		*mdx = fs_median_upper(v, n);
		*mdy = fs_median_upper(v + p->n, n);
	}
	free(v);
}

/* fs_det_base_fit_scale's work once count_level has filled info and the
 * sums sb, sf, sf_all from the same arguments. */
static void scale_counted_work(const fs_det_base_plan *p, const double *fr, const double *fx, const double *fy,
			       const double *step, fs_measured *meas, fs_det_base_fit *info, double sb, double sf,
			       double sf_all);

static fs_det_base_fit *base_fit_trace;

void fs_det_base_fit_set_trace(fs_det_base_fit *t)
{
	base_fit_trace = t;
}

static void scale_counted(const fs_det_base_plan *p, const double *fr, const double *fx, const double *fy,
			  const double *step, fs_measured *meas, fs_det_base_fit *info, double sb, double sf,
			  double sf_all)
{
	scale_counted_work(p, fr, fx, fy, step, meas, info, sb, sf, sf_all);
	if (base_fit_trace)
		*base_fit_trace = *info;
}

static void scale_counted_work(const fs_det_base_plan *p, const double *fr, const double *fx, const double *fy,
			       const double *step, fs_measured *meas, fs_det_base_fit *info, double sb, double sf,
			       double sf_all)
{
	size_t read = info->read;
	if (info->fitted < MIN_SIZED || !(sf_all > 0)) {
		/* the base rule's own readings stand; where most of them lie
		 * on no step they are no base either (detect_base_fit.h) */
		if (nobase_mode && p->own && own_nostep_majority(p, step))
			leave_unmeasured(p, fr, fx, fy, meas, info);
		return;
	}
	info->applied = 1;
	/* most readings on no step and no fill named by the templates: no
	 * size at all (detect_base_fit.h) */
	if (nobase_mode && p->no_fill && nostep_majority(info)) {
		leave_unmeasured(p, fr, fx, fy, meas, info);
		return;
	}
	/* too few readings of a base, or most of them on no step of the
	 * image (no base to read): the formation's own sizes */
	info->scale = read >= MIN_SIZED && sf > 0 && 2 * info->nostep <= info->judged && !p->smooth_foot ? sb / sf : 1;
	/* a dome without a fitted size whose only reading is pinned takes
	 * the image's: the level times the fit's median size */
	double rmed = NAN;
	size_t npin = 0;
	for (size_t k = 0; k < p->n; k++)
		npin += !isfinite(fr[k]) && pinned(p, NULL, NULL, meas, k);
	double *v = npin ? malloc(info->fitted * sizeof *v) : NULL;
	if (v) { /* out of memory: such domes keep their reading */
		size_t n = 0;
		for (size_t k = 0; k < p->n; k++)
			if (isfinite(fr[k]))
				v[n++] = fr[k];
		rmed = info->scale * fs_median_upper(v, n);
		free(v);
	}
	double mdx = 0, mdy = 0;
	if (p->move_unsized)
		common_move(p, fr, fx, fy, &mdx, &mdy);
	for (size_t k = 0; k < p->n; k++) {
		if (!isfinite(fr[k])) {
			fs_tubercle *q = &meas[p->idx[k]].t;
			if (meas[p->idx[k]].ok && p->ex && isfinite(p->ex[k])) {
				q->centroid_x = p->ex[k];
				q->centroid_y = p->ey[k];
			} else if (meas[p->idx[k]].ok) {
				q->centroid_x += mdx;
				q->centroid_y += mdy;
			}
			if (isfinite(rmed) && pinned(p, NULL, NULL, meas, k) && q->radius_px > 0) {
				double s = rmed / q->radius_px;
				q->radius_px = rmed;
				q->major_axis_px *= s;
				q->minor_axis_px *= s;
				info->replaced++;
			}
			info->kept++;
			continue;
		}
		fs_tubercle *q = &meas[p->idx[k]].t;
		double r = info->scale * fr[k], s = r / q->radius_px;
		q->radius_px = r;
		q->major_axis_px *= s;
		q->minor_axis_px *= s;
		q->centroid_x = fx[k];
		q->centroid_y = fy[k];
	}
}

int fs_det_base_ends_again(fs_det_base_plan *p, const fs_centre_axis *ax, const double *fr, const double *fx,
			   const double *fy, fs_det_base_fit_some fit, void *ctx, char *err, size_t errlen)
{
	if (!p->move_unsized || !ax->ok)
		return 0;
	size_t tried = 0, sized = 0;
	for (size_t k = 0; k < p->n; k++) {
		tried += !isfinite(fr[k]) && p->at_end[k];
		sized += isfinite(fr[k]);
	}
	/* (fewer than MIN_SIZED sized: no common move, and
	 * fs_det_base_fit_scale sizes nothing.) Only where the fit sized
	 * most of the plan: there a dome at a fill's end is one whose start
	 * lay off (6@24000: 102 of 142 sized, 11 at an end); where it sized
	 * a minority the ends are the templates' failure, not the starts',
	 * and the second fit sizes domes the formation does not describe
	 * (P1 Fig6: 24 of 72 sized, 30 at an end, 11 of them sized again,
	 * and the last step's no-base verdict turned into a fill of 0.79
	 * against the published 0.51) */
	if (!tried || sized < MIN_SIZED || !(2 * sized > p->n))
		return 0;
	double mdx, mdy;
	common_move(p, fr, fx, fy, &mdx, &mdy);
	double *w = malloc(5 * p->n * sizeof *w), *sy = w + p->n, *r = sy + p->n, *x = r + p->n, *y = x + p->n;
	p->ex = malloc(2 * p->n * sizeof *p->ex);
	if (!w || !p->ex) {
		free(w);
		snprintf(err, errlen, "dome base fit: out of memory");
		return -1;
	}
	p->ey = p->ex + p->n;
	for (size_t k = 0; k < p->n; k++) {
		int again = !isfinite(fr[k]) && p->at_end[k];
		w[k] = again ? p->xs[k] + mdx : NAN;
		sy[k] = again ? p->ys[k] + mdy : NAN;
		p->ex[k] = p->ey[k] = r[k] = NAN;
	}
	int rc = fit(ctx, w, sy, r, x, y, err, errlen);
	for (size_t k = 0; !rc && k < p->n; k++)
		if (isfinite(w[k]) && isfinite(r[k])) {
			p->ex[k] = x[k] + ax->dx;
			p->ey[k] = y[k] + ax->dy;
		}
	free(w);
	return rc;
}

void fs_det_base_fit_scale(const fs_det_base_plan *p, const double *fr, const double *fx, const double *fy,
			   const double *lr, const int *le, const double *step, fs_measured *meas,
			   fs_det_base_fit *info)
{
	fs_det_base_fit dummy;
	if (!info)
		info = &dummy;
	double sb, sf, sf_all;
	count_level(p, fr, lr, le, step, meas, info, &sb, &sf, &sf_all);
	scale_counted(p, fr, fx, fy, step, meas, info, sb, sf, sf_all);
}

/* Whether t (built through the formation f) names no fill
 * (detect_base_fit.h), reading the wide window only where the pick lies
 * inside its own; -1 on out of memory. */
static int no_fill(fs_dome_tpl *t, const fs_dome_fit *f)
{
	if (t->pick_edge)
		return 1;
	if (!isfinite(t->wide_rise) && fs_dome_tpl_read_wide(t, f))
		return -1;
	return !(t->wide_rise > FS_DET_BASE_WIDE_Z * t->wide_rise_se);
}

int fs_det_base_level_size(fs_det_base_plan *p, int given, fs_dome_tpl *t, const fs_dome_fit *f, const double *fr,
			   const double *fx, const double *fy, const double *lr, const int *le, const double *step,
			   fs_measured *meas, fs_det_base_fit *info)
{
	fs_det_base_fit got;
	double sb, sf, sf_all;
	count_level(p, fr, lr, le, step, meas, &got, &sb, &sf, &sf_all);
	/* the templates are asked only where the readings already say no
	 * step: their wide window costs 13 lattices (P1 Fig1 +57 M) */
	if (given && nostep_majority(&got) && (p->no_fill = no_fill(t, f)) < 0)
		return -1;
	scale_counted(p, fr, fx, fy, step, meas, &got, sb, sf, sf_all);
	if (info)
		*info = got;
	return 0;
}

size_t fs_det_base_drop_flat(const fs_det_base_plan *p, const double *sig, double *fr, double *scratch,
			     fs_measured *meas)
{
	size_t n = 0, dropped = 0;
	for (size_t k = 0; k < p->n; k++)
		if (isfinite(sig[k]))
			scratch[n++] = sig[k];
	if (n < MIN_SIZED)
		return 0;
	double floor_sig = FS_DOME_MIN_SIGNAL * fs_median_upper(scratch, n);
	for (size_t k = 0; k < p->n; k++)
		if (isfinite(sig[k]) && sig[k] < floor_sig) {
			meas[p->idx[k]].ok = 0;
			fr[k] = NAN;
			dropped++;
		}
	return dropped;
}

/* The axis step's selection (detect_base_fit.h) for the geometry *g of
 * off's formation at base radius r0: the plan entries into sel; returns
 * their number. */
static size_t axis_plan_at(const fs_det_base_plan *p, const fs_det_offset *off, const double *fr, const double *fx,
			   const double *fy, int w, int h, double r0, fs_centre_axis_geom *g, size_t *sel)
{
	if (!off->fitted || off->fit.halftone > 0 || !(off->fit.pitch > 0))
		return 0;
	fs_centre_axis_geom_of(off->fit.azimuth, r0, off->fit.blur_px, off->fit.pitch, g);
	/* the profile's own blur only where fs_det_base_axis_calibrate may
	 * render at it (mode 2, the neighbours in the window) */
	g->vblur = fs_centre_axis_calib_on() == 2 && !fs_centre_axis_gap_resolved(g, off->fit.pitch);
	double reach = fs_centre_axis_reach(g);
	size_t sized = 0, ns = 0;
	for (size_t k = 0; k < p->n; k++)
		sized += isfinite(fr[k]);
	size_t stride = sized > FS_DET_BASE_AXIS_MAX ? (sized + FS_DET_BASE_AXIS_MAX - 1) / FS_DET_BASE_AXIS_MAX : 1;
	for (size_t k = 0, q = 0; k < p->n; k++) {
		if (!isfinite(fr[k]))
			continue;
		if (q++ % stride)
			continue;
		if (fx[k] - reach >= 0 && fy[k] - reach >= 0 && fx[k] + reach < w - 1 && fy[k] + reach < h - 1)
			sel[ns++] = k;
	}
	return ns;
}

/* One reading of the shift: the profiles of the domes the plan at r0
 * selects about (fx, fy) read by read(), the shift estimated. 0 (ax->ok
 * 0 when nothing was read), -1 out of memory or a failed read. */
static int axis_look(const fs_det_base_plan *p, const fs_det_offset *off, const double *fr, const double *fx,
		     const double *fy, int w, int h, double r0, fs_det_axis_reader read, void *ctx, size_t *sel,
		     fs_centre_axis *ax)
{
	fs_centre_axis_geom g;
	memset(ax, 0, sizeof *ax);
	size_t ns = axis_plan_at(p, off, fr, fx, fy, w, h, r0, &g, sel);
	if (!ns)
		return 0;
	double *profs = malloc(ns * fs_centre_axis_len(&g) * sizeof *profs);
	if (!profs)
		return -1;
	int rc = read(ctx, &g, sel, ns, fx, fy, profs);
	if (!rc)
		rc = fs_centre_axis_estimate(profs, ns, &g, off->fit.pitch, ax);
	free(profs);
	if (!rc && ax->used) {
		/* (the move along the axis the estimate read, whether ok or
		 * not: the geometry's azimuth or its opposite) */
		fs_centre_axis_set_move(ax);
	}
	return rc;
}

/* axis_look from the centres moved by a1's move (a2). */
static int axis_again(const fs_det_base_plan *p, const fs_det_offset *off, const double *fr, const double *fx,
		      const double *fy, int w, int h, double r0, fs_det_axis_reader read, void *ctx, size_t *sel,
		      const fs_centre_axis *a1, fs_centre_axis *a2)
{
	memset(a2, 0, sizeof *a2);
	double *mx = malloc(2 * p->n * sizeof *mx);
	if (!mx)
		return -1;
	for (size_t k = 0; k < p->n; k++) {
		mx[k] = fx[k] + a1->dx;
		mx[p->n + k] = fy[k] + a1->dy;
	}
	int rc = axis_look(p, off, fr, mx, mx + p->n, w, h, r0, read, ctx, sel, a2);
	free(mx);
	return rc;
}

int fs_det_base_axis_find(const fs_det_base_plan *p, const fs_det_offset *off, const double *fr, const double *fx,
			  const double *fy, int w, int h, fs_det_axis_reader read, void *ctx, fs_centre_axis *ax)
{
	memset(ax, 0, sizeof *ax);
	if (!p->n)
		return 0;
	size_t *sel = malloc(p->n * sizeof *sel);
	double *v = malloc(p->n * sizeof *v);
	int rc = -1;
	if (!sel || !v)
		goto out;
	/* the base rule's median radius (h30f) */
	rc = axis_look(p, off, fr, fx, fy, w, h, 0.5 * p->fill0 * off->fit.pitch, read, ctx, sel, ax);
	if (!rc && ax->ok && (fabs(ax->shift) > ax->win || ax->own)) {
		/* A shift beyond the window's half-width: the lit side's base
		 * lay outside the window, so the reading stopped short of it
		 * (h35c: low domes at fill 0.5-0.6, pitch 32-40, centres 2-5
		 * px off). Read again from the centres it moved to. So is
		 * every shift read where the centres' scatter shut the gate
		 * (ax->own): the profiles summed from centres that scatter
		 * along the axis and sit off are blurred along it, and the
		 * first reading stops short inside the window too (h36e: fill
		 * 0.4, pitch 28, -1.27 px read, 1.6 px needed; the second
		 * look -0.16 px). */
		fs_centre_axis a2;
		ax->again = 1;
		rc = axis_again(p, off, fr, fx, fy, w, h, 0.5 * p->fill0 * off->fit.pitch, read, ctx, sel, ax, &a2);
		if (!rc && a2.ok) {
			ax->dx += a2.dx;
			ax->dy += a2.dy;
			ax->shift += a2.shift;
		}
		goto out;
	}
	if (rc || ax->ok)
		goto out;
	/* Failed: the template fit's median radius. Where the centres sit
	 * far off the domes' (tall spheres at fill 0.8, pitch 16: 1.2 px
	 * away from the detector) the base rule's readings from them are
	 * 20 % large and its window reads the neighbours' feet (the shift
	 * read with the wrong sign); the fit of the whole patch is less
	 * pulled (docs/paper-figures.md, h33c). */
	size_t nv = 0;
	for (size_t k = 0; k < p->n; k++)
		if (isfinite(fr[k]))
			v[nv++] = fr[k];
	if (nv < MIN_SIZED)
		goto out;
	double r1 = fs_median_upper(v, nv);
	fs_centre_axis a1;
	rc = axis_look(p, off, fr, fx, fy, w, h, r1, read, ctx, sel, &a1);
	if (rc || a1.ok) {
		if (!rc)
			*ax = a1;
		goto out;
	}
	/* Still failed on its residual alone: a second look from the
	 * centres moved by that shift, taken when it passes and finds
	 * them where it moved them (a quarter of the first shift at most):
	 * the profiles' match is judged at the centres it ends at, where
	 * a large shift's first reading is blurred by it. */
	if (!a1.used || a1.end || !isfinite(a1.residual) || !(fabs(a1.shift) > 0))
		goto out;
	fs_centre_axis a2;
	rc = axis_again(p, off, fr, fx, fy, w, h, r1, read, ctx, sel, &a1, &a2);
	/* (or when it goes on the same way: the first reading stopped
	 * short of a base the window did not hold, h35c) */
	if (!rc && a2.ok &&
	    (fabs(a2.shift) <= FS_DET_BASE_AXIS_CONFIRM * fabs(a1.shift) || a2.dx * a1.dx + a2.dy * a1.dy > 0)) {
		*ax = a2;
		ax->shift += a1.shift;
		ax->dx += a1.dx;
		ax->dy += a1.dy;
	}
out:
	free(sel);
	free(v);
	return rc;
}

int fs_det_base_axis_vblur(const fs_det_base_plan *p, const fs_det_offset *off, const double *fr, const double *fx,
			   const double *fy, int w, int h, fs_det_axis_reader read, void *ctx, double *vblur)
{
	*vblur = NAN;
	if (!p->n)
		return 0;
	size_t *sel = malloc(p->n * sizeof *sel);
	if (!sel)
		return -1;
	fs_centre_axis ax;
	int rc = axis_look(p, off, fr, fx, fy, w, h, 0.5 * p->fill0 * off->fit.pitch, read, ctx, sel, &ax);
	free(sel);
	if (!rc && ax.used)
		*vblur = ax.vblur;
	return rc;
}

int fs_det_base_axis_calibrate(const fs_det_base_plan *p, const fs_det_offset *off, const fs_dome_fit *formation,
			       const fs_dome_tpl *t, const double *fr, fs_centre_axis *ax)
{
	/* (no calibration where the lit side was reversed or read at P_v's
	 * own blur: the formation's lattice is not what that reading saw) */
	if (!fs_centre_axis_calib_on() || !t || !ax->ok || ax->own || ax->reversed || ax->shadowed || !p->n ||
	    !(off->fit.pitch > 0))
		return 0;
	fs_centre_axis_geom g;
	fs_centre_axis_geom_of(off->fit.azimuth, ax->r0, off->fit.blur_px, off->fit.pitch, &g);
	if (fs_centre_axis_gap_resolved(&g, off->fit.pitch))
		return 0;
	double *v = malloc(p->n * sizeof *v);
	if (!v)
		return -1;
	size_t nv = 0;
	for (size_t k = 0; k < p->n; k++)
		if (isfinite(fr[k]))
			v[nv++] = fr[k];
	/* the domes' fill as the templates sized them */
	double fill = nv ? 2 * fs_median_upper(v, nv) / off->fit.pitch : NAN;
	free(v);
	if (!(fill > 0))
		return 0;
	fs_dome_fit fb = *formation;
	if (fs_centre_axis_calib_on() == 2 && ax->vblur < fb.blur_px)
		fb.blur_px = ax->vblur;
	fs_centre_axis c;
	int rc = fs_centre_axis_calib_read(t, &fb, fill, &g, off->fit.pitch, &c);
	if (rc < 0)
		return -1;
	if (rc || !c.ok || c.reversed || c.shadowed)
		return 0;
	ax->calib = c.shift;
	ax->shift -= c.shift;
	fs_centre_axis_set_move(ax);
	return 0;
}

int fs_det_base_axis_far(const fs_centre_axis *ax)
{
	return ax->ok && ax->again;
}

void fs_det_base_axis_move(const fs_det_base_plan *p, const double *fr, const fs_centre_axis *ax, double *fx,
			   double *fy)
{
	if (!ax->ok)
		return;
	for (size_t k = 0; k < p->n; k++)
		if (isfinite(fr[k])) {
			fx[k] += ax->dx;
			fy[k] += ax->dy;
		}
}

void fs_det_base_axis_judge(const fs_image *img, int ox, int oy, int w, int h, double x, double y, double mr,
			    signed char *on)
{
	double r0 = FS_DOME_R0 * mr, r1 = FS_DOME_R1 * mr, v;
	fs_tubercle t;
	int e;
	fs_tubercle_init(&t);
	*on = -1;
	if (fs_dome_measure_base_blur(img, x - ox, y - oy, r0, r1, &t, &e, &v) || !(t.radius_px > 0) || e)
		return;
	*on = fs_base_step_contrast(img, ox, oy, w, h, x, y, t.radius_px, r0, r1) >= FS_BASE_STEP_MIN;
}

int fs_det_base_axis_refused(const signed char *on0, const signed char *on1, size_t n)
{
	size_t b = 0, c = 0;
	for (size_t k = 0; k < n; k++) {
		if (on0[k] < 0 || on1[k] < 0)
			continue;
		b += on0[k] && !on1[k];
		c += !on0[k] && on1[k];
	}
	return (double)b - (double)c > FS_DET_AXIS_STEP_Z * sqrt((double)(b + c));
}

int fs_det_base_axis_perdome(const fs_det_base_plan *p, const fs_det_offset *off, const fs_centre_axis *ax,
			     const fs_dome_fit *formation, const fs_dome_tpl *t, const double *fr, double *fx,
			     double *fy, int w, int h, fs_det_axis_reader read, void *ctx, size_t *moved)
{
	*moved = 0;
	/* behind the axis step's own gates (centre_perdome.h): where the
	 * common shift was not read, or read on the far side, in a shadow
	 * or at P_v's blur, the lit side is not the base's edge the match
	 * assumes */
	if (!p->n || !ax->ok || ax->reversed || ax->shadowed || ax->own || !off->fitted || off->fit.halftone > 0 ||
	    !(off->fit.pitch > 0))
		return 0;
	/* nor where the common shift read no more than one step of its scan:
	 * no evidence of a side, and on the 2048 x 1536 lattice (no side
	 * detector) the lit side then turns on the last bits of the
	 * response - shift 0.01 px on the reversed side (gated) or 0 on the
	 * other (read: +522 M instructions, h47i) */
	if (!(fabs(ax->shift) >= FS_DET_AXIS_PERDOME_MIN_SHIFT))
		return 0;
	double *v = malloc(p->n * sizeof *v);
	size_t *sel = malloc(p->n * sizeof *sel);
	int rc = -1;
	if (!v || !sel)
		goto out;
	rc = 0;
	size_t nv = 0;
	for (size_t k = 0; k < p->n; k++)
		if (isfinite(fr[k]))
			v[nv++] = fr[k];
	if (nv < FS_CENTRE_PERDOME_MIN)
		goto out;
	/* the template fit's median radius (the base rule's from centres
	 * on the lit flank is short), the formation's azimuth and blur */
	double r0 = fs_median_upper(v, nv), pitch = off->fit.pitch;
	fs_centre_axis_geom g;
	fs_centre_perdome_geom(off->fit.azimuth, r0, off->fit.blur_px, pitch, &g);
	int calib = fs_centre_perdome_calib_on(), gated = r0 < 3 * g.sigma || !fs_centre_axis_gap_resolved(&g, pitch);
	if (gated && calib != 2 && calib != 3 && calib != 4)
		goto out;
	fs_centre_perdome_cal cal = {0};
	if (calib) {
		/* the formation's lattice at the domes' fill, rendered at the
		 * blur the across-axis profile shows where that is smaller
		 * (h51g: the formation's blur holds the first centres'
		 * scatter) */
		if (!t || !formation)
			goto out;
		fs_dome_fit fb = *formation;
		if (isfinite(ax->vblur) && ax->vblur < fb.blur_px)
			fb.blur_px = ax->vblur;
		rc = fs_centre_perdome_calib_read(t, &fb, 2 * r0 / pitch, &g, &cal);
		if (rc < 0)
			goto out;
		rc = 0;
		if (!cal.ok)
			goto out;
		cal.own = calib == 3 ? 1 : calib == 4 ? 2 : 0;
	}
	/* every sized dome whose profiles lie inside the image (the common
	 * step's sample would leave most locked centres unread) */
	double reach = fs_centre_axis_reach(&g);
	size_t ns = 0;
	for (size_t k = 0; k < p->n; k++)
		if (isfinite(fr[k]) && fx[k] - reach >= 0 && fy[k] - reach >= 0 && fx[k] + reach < w - 1 &&
		    fy[k] + reach < h - 1)
			sel[ns++] = k;
	if (ns < FS_CENTRE_PERDOME_MIN)
		goto out;
	double *profs = malloc(ns * fs_centre_axis_len(&g) * sizeof *profs);
	if (!profs) {
		rc = -1;
		goto out;
	}
	rc = read(ctx, &g, sel, ns, fx, fy, profs);
	int flagged = rc ? 0 : fs_centre_perdome_shifts_cal(profs, ns, &g, calib ? &cal : NULL, v);
	free(profs);
	if (rc || flagged < 0) {
		rc = -1;
		goto out;
	}
	double ux = cos(g.az), uy = sin(g.az);
	for (size_t i = 0; i < ns; i++)
		if (v[i] != 0) {
			fx[sel[i]] += v[i] * ux;
			fy[sel[i]] += v[i] * uy;
		}
	*moved = (size_t)flagged;
out:
	free(v);
	free(sel);
	return rc;
}

/* The axis step's profiles read on the whole image. */
static int read_whole(void *ctx, const fs_centre_axis_geom *g, const size_t *sel, size_t ns, const double *xs,
		      const double *ys, double *profs)
{
	const fs_image *img = ctx;
	for (size_t i = 0; i < ns; i++)
		fs_centre_axis_profile(img, xs[sel[i]], ys[sel[i]], g, profs + i * fs_centre_axis_len(g));
	return 0;
}

/* The axis step on the whole image (fs_det_base_axis_find), its move
 * checked against the base's step where it read P_v's own base (mr: each
 * candidate's radius range as fs_det_measure's, max_r or 2 r, over F);
 * sets p->move_unsized, *ax the reading (h39h). */
static int axis_whole(const fs_image *img, fs_det_base_plan *p, const fs_det_offset *off, const fs_dome_fit *formation,
		      const fs_dome_tpl *t, const double *fr, double *fx, double *fy, const fs_cand_list *c, double max_r,
		      double F, fs_centre_axis *ax)
{
	int rc = fs_det_base_axis_find(p, off, fr, fx, fy, img->width, img->height, read_whole, (void *)img, ax);
	if (!rc)
		rc = fs_det_base_axis_calibrate(p, off, formation, t, fr, ax);
	size_t moved;
	if (!rc && ax->ok && ax->own) {
		signed char *on = malloc(2 * p->n);
		if (!on)
			return -1;
		for (size_t k = 0; k < p->n; k++) {
			on[k] = on[p->n + k] = -1;
			if (!isfinite(fr[k]))
				continue;
			double mr = (max_r > 0 ? max_r : 2 * c->items[p->idx[k]].r) / F;
			fs_det_base_axis_judge(img, 0, 0, img->width, img->height, fx[k], fy[k], mr, &on[k]);
			fs_det_base_axis_judge(img, 0, 0, img->width, img->height, fx[k] + ax->dx, fy[k] + ax->dy, mr,
					       &on[p->n + k]);
		}
		if (fs_det_base_axis_refused(on, on + p->n, p->n))
			ax->ok = 0;
		free(on);
	}
	p->move_unsized = !rc && fs_det_base_axis_far(ax);
	if (!rc) {
		fs_det_base_axis_move(p, fr, ax, fx, fy);
		rc = fs_det_base_axis_perdome(p, off, ax, formation, t, fr, fx, fy, img->width, img->height,
					      read_whole, (void *)img, &moved);
	}
	return rc;
}

/* The kept fit of plan entry k (fs_det_base_kept_fit) */
static const fs_base_fit_at *kept_fit(const fs_base_readings *kept, const double *sx, const double *sy, size_t k)
{
	return fs_det_base_kept_fit(kept, sx[k], sy[k]);
}

/* One template fit of plan entry k from (sx[k], sy[k]) through t into fr,
 * fx, fy, sig, p->at_end (fit_all's); kept as fs_det_base_tpl_fit_kept's.
 * -1 on out of memory. */
static int fit_one(const fs_dome_tpl *t, const fs_image *img, const fs_det_base_plan *p, const double *sx,
		   const double *sy, int given, const fs_base_readings *kept, size_t k, double *fr, double *fx,
		   double *fy, double *sig)
{
	fs_dome_tfit f;
	fr[k] = NAN;
	int q = fs_det_base_tpl_fit_kept(t, img, 0, 0, sx[k], sy[k], given, kept, &f);
	if (q < 0)
		return -1;
	int sized = q == 0 && isfinite(f.radius);
	p->at_end[k] = q == 0 && !sized;
	sig[k] = q == 0 ? (sized ? f.signal_end : f.signal_start) : fs_dome_signal_at(t, img, sx[k], sy[k]).signal;
	if (sized) {
		fr[k] = f.radius;
		fx[k] = f.x;
		fy[k] = f.y;
	}
	return 0;
}

/* Every plan entry fitted through t on img from (sx[k], sy[k]): fr the
 * fitted radius (NAN: not sized), fx, fy its centre where sized, sig the
 * dome's signal where the fit leaves its centre (a patch the frame cuts:
 * at the start, the part inside), p->at_end whether its best fill was an
 * end of the range. kept (the first pass's fits, fs_det_set_first_formation's
 * modes 2-5) or NULL. -1 on out of memory. */
static int fit_all(const fs_dome_tpl *t, const fs_image *img, const fs_det_base_plan *p, const double *sx,
		   const double *sy, int given, const fs_base_readings *kept, double *fr, double *fx, double *fy,
		   double *sig)
{
	int mode = kept ? fs_det_first_formation() : 0;
	/* mode 4: every stride-th kept fit is fitted again through t, and
	 * the median ratio of the two puts the other kept fits on t's scale
	 * (the level's scale is one sum over all sized domes, so a kept fit
	 * and a new one must read the same scale; h53b) */
	size_t nkept = 0, stride = 1, nrat = 0, q = 0;
	for (size_t k = 0; mode == 4 && k < p->n; k++)
		nkept += kept_fit(kept, sx, sy, k) != NULL;
	if (nkept > FS_DET_FIRST_FIT_SAMPLE)
		stride = (nkept + FS_DET_FIRST_FIT_SAMPLE - 1) / FS_DET_FIRST_FIT_SAMPLE;
	double *rat = mode == 4 && nkept ? malloc(nkept * sizeof *rat) : NULL;
	if (mode == 4 && nkept && !rat)
		return -1;
	unsigned char *scaled = rat ? calloc(p->n, 1) : NULL;
	if (rat && !scaled) {
		free(rat);
		return -1;
	}
	int rc = 0;
	for (size_t k = 0; k < p->n && !rc; k++) {
		const fs_base_fit_at *kf = kept_fit(kept, sx, sy, k);
		/* a dome the first pass fitted where it still lies keeps that
		 * fit; in mode 4 unless it is one of the sample; in mode 5 it
		 * is read again through t at its centre, without the centre
		 * search (fs_det_base_tpl_fit_kept) */
		if (kf && mode != 5 && !(mode == 4 && q++ % stride == 0)) {
			fr[k] = kf->radius;
			fx[k] = sx[k];
			fy[k] = sy[k];
			sig[k] = kf->signal;
			p->at_end[k] = kf->at_end;
			if (scaled)
				scaled[k] = 1;
			continue;
		}
		rc = fit_one(t, img, p, sx, sy, given, kept, k, fr, fx, fy, sig);
		if (!rc && kf && rat && isfinite(fr[k]) && kf->radius > 0)
			rat[nrat++] = fr[k] / kf->radius;
	}
	if (!rc && scaled) {
		/* too few of the sample sized through t: the kept fits fitted
		 * through t as the rule does */
		double s = nrat >= MIN_SIZED ? fs_median_upper(rat, nrat) : NAN;
		for (size_t k = 0; k < p->n && !rc; k++) {
			if (!scaled[k])
				continue;
			if (isfinite(s))
				fr[k] *= s;
			else
				rc = fit_one(t, img, p, sx, sy, given, NULL, k, fr, fx, fy, sig);
		}
	}
	free(rat);
	free(scaled);
	return rc;
}

int fs_det_base_refit_wanted(const fs_meas *m, const fs_det_base_plan *p, const fs_det_offset *off, const double *fr,
			     double *scratch)
{
	return !m->given && fs_det_base_level_screened(p, off, fr, scratch);
}

size_t fs_det_base_refit_centres(const fs_det_base_plan *p, const double *fr, const double *fx, const double *fy,
				 const fs_measured *meas, double *xs, double *ys, double *rs)
{
	size_t n = 0;
	for (size_t k = 0; k < p->n; k++)
		if (isfinite(fr[k])) {
			xs[n] = fx[k];
			ys[n] = fy[k];
			rs[n++] = meas[p->idx[k]].t.radius_px;
		}
	return n;
}

int fs_det_base_refit_moves(const fs_det_offset *off, const fs_det_offset *o2)
{
	if (!off->fitted || !o2->fitted)
		return 0;
	/* below the rounding bar that decides whether a first look measures
	 * the domes again, under a screen coarse against the lattice: the
	 * turned templates leave the centres off by less than the bar, too,
	 * and nothing after this takes it out (h46d); but only a refit that
	 * explains the mean patch to FS_DET_REFIT_BELOW_BAR_R2 (h47d,
	 * detect_base_fit.h) */
	if (!o2->applied &&
	    !(fs_det_offset_coarse_screen(off) && o2->quality >= FS_DET_REFIT_BELOW_BAR_R2))
		return 0;
	/* the two fits' detector azimuths more than 90 degrees apart */
	return cos(off->fit.azimuth - o2->fit.azimuth) < 0;
}

void fs_det_base_refit_starts(const fs_det_base_plan *p, const double *fr, const double *fx, const double *fy,
			      const fs_det_offset *off, const fs_det_offset *o2, double *sx, double *sy)
{
	/* the refit's common offset is where the dome centres lie from the
	 * fitted ones it was read at (h34e): only those move by it */
	int mv = fs_det_base_refit_moves(off, o2);
	double dx = mv ? o2->dx : 0, dy = mv ? o2->dy : 0;
	for (size_t k = 0; k < p->n; k++) {
		sx[k] = isfinite(fr[k]) ? fx[k] + dx : p->xs[k];
		sy[k] = isfinite(fr[k]) ? fy[k] + dy : p->ys[k];
	}
}

/* The first formation's blur (pitches) from which the look for a turned
 * formation is made (detect_base_fit.h, h41g). A formation fitted at
 * centres far off the domes takes up their displacement with a smeared
 * blur: all 15 first fits turned round on the 112 interior scene-seeds
 * read 0.10 or 0.13 pitch (interior 10@28000: 3.56 px, 1.40 px from the
 * true centres; h33e's turned screened fits 3.2 px for 1.9), where the
 * healthy ones read from 0.03; the fit's blur grid steps from 0.075 to
 * 0.1 pitch. A sharp first formation spends no second fit (the 2048 x
 * 1536 lattice: 0.03 pitch; unbounded, the look cost it 5.1 % of
 * fs_detect_domes' instructions for nothing). */
#define TURNED_MIN_BLUR 0.09
/* ... and below which detector strength and blur. A turned fit explains
 * the displaced domes' dipole with its slope weights, which then cancel
 * the detector's: the 15 turned interior fits read side 0.008-0.51 and
 * blur 0.10-0.13 pitch. The paper figures that took the look without
 * being turned (P1 Fig4 side 3.5, blur 0.17; P2 Pl1 Fig1a 0.93, 0.13; P3
 * Fig4 0.57, 0.17) paid 38-106 % of their CLI instructions for it. These
 * bounds (from data, a grid step of blur and half again of side past the
 * turned fits') only decide where the look is spent: a look that finds
 * no turn changes nothing. */
#define TURNED_MAX_SIDE 0.75
#define TURNED_MAX_BLUR 0.15

int fs_det_base_refit(const fs_meas *m, const fs_det_base_plan *p, const fs_det_offset *off, const fs_measured *meas,
		      const double *fr, const double *fx, const double *fy, double *scratch, double *sx, double *sy,
		      double *rs, fs_dome_tpl *t, const fs_det_base_refit_path *path, double *axis_az, char *err,
		      size_t errlen)
{
	/* without a screen, a look whether the first formation was turned
	 * round (detect_base_fit.h, h41g) */
	int look = 0;
	*axis_az = off->fit.azimuth;
	if (!fs_det_base_refit_wanted(m, p, off, fr, scratch)) {
		if (m->given || !off->fitted || off->fit.halftone > 0 || !(off->fit.side > 0) ||
		    !(off->fit.side <= TURNED_MAX_SIDE) || !(off->fit.blur_px >= TURNED_MIN_BLUR * off->fit.pitch) ||
		    !(off->fit.blur_px <= TURNED_MAX_BLUR * off->fit.pitch))
			return 0;
		look = 1;
	}
	size_t n2 = fs_det_base_refit_centres(p, fr, fx, fy, meas, sx, sy, rs);
	fs_det_offset o2;
	if (path->formation(path->ctx, sx, sy, rs, n2, off->fit.pitch, off->fit.halftone, &o2, err, errlen))
		return -1;
	/* where the look was made, the detector's axis is the second fit's
	 * whether or not it turned round (detect_base_fit.h, h42c) */
	if (look && o2.fitted && o2.fit.side > off->fit.side)
		*axis_az = o2.fit.azimuth;
	if (look && !(o2.fitted && cos(off->fit.azimuth - o2.fit.azimuth) < 0))
		return 0; /* it read the detector's side: the first fit stands */
	/* (fr, fx, fy are read here for the last time: the fit rewrites them) */
	fs_det_base_refit_starts(p, fr, fx, fy, off, &o2, sx, sy);
	fs_dome_tpl t2;
	memset(&t2, 0, sizeof t2);
	int b2 = o2.fitted ? path->templates(path->ctx, &o2.fit, sx, sy, &t2, err, errlen) : 1;
	if (b2 < 0)
		return -1;
	if (b2 > 0)
		return 0; /* the first fit stands */
	fs_dome_tpl_free(t);
	*t = t2;
	return path->fit(path->ctx, t, sx, sy, err, errlen) ? -1 : 1;
}

int fs_det_base_lowpass(const fs_image *img, const fs_det_offset *off, fs_image **out, char *err, size_t errlen)
{
	*out = NULL;
	/* the formation was fitted with a halftone screen low-passed away
	 * (dome_fit.h): the patches are read the same way */
	if (!(off->fit.halftone > 0))
		return 0;
	*out = fs_gaussian_blurred(img, FS_HALFTONE_LOWPASS * off->fit.halftone, err, errlen);
	return *out ? 0 : -1;
}

/* fs_det_base_refit's steps on the whole image: the formation on the
 * measurement image (meas), the templates and fits on the image they are
 * fitted on (img: meas or its low-pass) */
struct whole_refit {
	const fs_image *meas, *img;
	const fs_det_base_plan *p;
	double *fr, *fx, *fy, *sig;
	/* the formation the last templates were built from (the lit shadow's
	 * render, h53e) */
	fs_dome_fit form;
};

static int whole_formation(void *ctx, const double *xs, const double *ys, double *rs, size_t n, double pitch,
			   double period, fs_det_offset *o, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	const struct whole_refit *w = ctx;
	fs_dome_fit_opts reading;
	memset(&reading, 0, sizeof reading);
	reading.halftone_given = 1;
	reading.halftone_period = period;
	/* its fill searched with the offset (h39a, detect_offset.c) */
	fs_det_offset_refit_walk(&reading);
	return fs_det_offset_fit(w->meas, xs, ys, rs, n, pitch, &reading, o);
}

static int whole_templates(void *ctx, const fs_dome_fit *f, const double *sx, const double *sy, fs_dome_tpl *t,
			   char *err, size_t errlen)
{
	struct whole_refit *w = ctx;
	w->form = *f;
	return fs_dome_tpl_build(w->img, f, w->p->fill0, sx, sy, w->p->n, t, err, errlen);
}

static int whole_fit(void *ctx, const fs_dome_tpl *t, const double *sx, const double *sy, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	const struct whole_refit *w = ctx;
	return fit_all(t, w->img, w->p, sx, sy, 0, NULL, w->fr, w->fx, w->fy, w->sig);
}

/* fs_det_base_ends_again's fit on the whole image: the entries whose
 * start is finite through the templates in force */
struct whole_some {
	const fs_dome_tpl *t;
	const fs_image *img;
	size_t n;
};

static int whole_fit_some(void *ctx, const double *sx, const double *sy, double *r, double *x, double *y, char *err,
			  size_t errlen)
{
	const struct whole_some *w = ctx;
	for (size_t k = 0; k < w->n; k++) {
		if (!isfinite(sx[k]))
			continue;
		fs_dome_tfit f;
		int q = fs_dome_tpl_fit(w->t, w->img, sx[k], sy[k], &f);
		if (q < 0) {
			snprintf(err, errlen, "dome base fit: out of memory");
			return -1;
		}
		if (q == 0 && isfinite(f.radius)) {
			r[k] = f.radius;
			x[k] = f.x;
			y[k] = f.y;
		}
	}
	return 0;
}

/* The formation once more from the plan's centres moved by off's offset
 * (fs_det_base_moved_wanted): *out, as the tiled path's mosaic fit (one
 * look, no screen). -1 on out of memory. */
static int moved_look(const fs_image *img, const fs_det_base_plan *p, const fs_det_offset *off, fs_det_offset *out)
{
	double *xs = malloc(3 * (p->n + 1) * sizeof *xs);
	if (!xs)
		return -1;
	double *ys = xs + p->n + 1, *rs = ys + p->n + 1;
	fs_det_base_moved_xy(p, off, xs, ys, rs);
	fs_dome_fit_opts reading;
	memset(&reading, 0, sizeof reading);
	reading.halftone_given = 1;
	fs_det_offset_fit_once(img, xs, ys, rs, p->n, off->fit.pitch, &reading, out);
	free(xs);
	return 0;
}

/* No templates at given centres (h43h; detect_base_fit.h): the template
 * fit sized none of the plan, which is fewer than 8, so the base rule's
 * own readings are judged for a step as fs_det_base_own_plan's are and,
 * where most of them lie on no step, the plan is left unmeasured. fr and
 * step: p->n scratch doubles each. 0, -1 on out of memory. */
static int own_judged_whole(const fs_meas *m, fs_det_base_plan *p, const fs_cand_list *c, double max_r, double *fr,
			    double *step, fs_measured *meas, fs_det_base_fit *info)
{
	for (size_t k = 0; k < p->n; k++)
		fr[k] = NAN;
	fs_det_base_own_plan(p, fr, m->given);
	if (fs_det_base_step_pick(p, fr, p->xs, p->ys, p->xs, p->ys, NULL, NULL, 0, meas))
		return -1;
	for (size_t k = 0; k < p->n; k++) {
		double x, y, r;
		size_t i = p->idx[k];
		double mr = max_r > 0 ? max_r : 2 * c->items[i].r, r0 = FS_DOME_R0 * mr / m->f, r1 = FS_DOME_R1 * mr / m->f;
		step[k] = NAN;
		if (fs_det_base_step_point(p, fr, p->xs, p->ys, p->xs, p->ys, NULL, NULL, 0, meas, k, &x, &y, &r) &&
		    !fs_base_readings_find_step(m->readings, x, y, r, r0, r1, &step[k]))
			step[k] = fs_base_step_contrast(m->img, 0, 0, m->img->width, m->img->height, x, y, r, r0, r1);
	}
	fs_det_base_fit_scale(p, fr, p->xs, p->ys, NULL, NULL, step, meas, info);
	return 0;
}

/* The level's calibration on the whole image: the blur its axis profile
 * shows about the final centres, each sized dome's reach as the level
 * read it (max_r or 2 r, over F), fs_level_calib_apply. -1 on out of
 * memory. */
static int level_calib_whole(const fs_image *img, const fs_det_base_plan *p, const fs_det_offset *off,
			     const fs_dome_tpl *t, const double *fr, const double *fx, const double *fy,
			     const fs_cand_list *c, double max_r, double F, double *lr)
{
	double vblur;
	if (fs_det_base_axis_vblur(p, off, fr, fx, fy, img->width, img->height, read_whole, (void *)img, &vblur))
		return -1;
	double *mrs = malloc(p->n * sizeof *mrs);
	if (!mrs)
		return -1;
	for (size_t k = 0; k < p->n; k++)
		mrs[k] = isfinite(fr[k]) ? (max_r > 0 ? max_r : 2 * c->items[p->idx[k]].r) / F : NAN;
	int rc = fs_level_calib_apply(t, &off->fit, fr, mrs, p->n, vblur, lr);
	free(mrs);
	return rc;
}

int fs_det_base_lit_shadow(const fs_det_base_plan *p, const fs_dome_fit *form, const fs_dome_tpl *t, const double *fr,
			   const fs_cand_list *c, double max_r, double F, double cap, double *lr)
{
	double *mrs = malloc(p->n * sizeof *mrs), ratio;
	if (!mrs)
		return -1;
	for (size_t k = 0; k < p->n; k++)
		mrs[k] = isfinite(fr[k]) ? (max_r > 0 ? max_r : 2 * c->items[p->idx[k]].r) / F : NAN;
	int rc = fs_level_calib_lit_shadow_apply(t, form, fr, mrs, p->n, cap, lr, &ratio);
	free(mrs);
	return rc;
}

/* The low-passed image's lit readings of a fit's domes
 * (fs_det_base_level_lowpassed_lit at the level's centres lvx, lvy, the
 * window max_r or 2 r over F): what the level's first reading, its
 * reading under a screen and the lit gate's second, free reading share.
 * Every pointer is fs_det_base_fit_apply's; lr, le, la and sh are
 * written at k. */
struct lit_read {
	const fs_image *lp;
	const fs_meas *m;
	const fs_det_base_plan *p;
	const fs_cand_list *c;
	const fs_det_offset *off;
	const double *fr, *lvx, *lvy;
	double max_r;
	double *lr, *la, *sh;
	int *le;
};

/* dome k's reading under the cap (NAN: the free circle) */
static void lit_read_one(const struct lit_read *s, size_t k, double cap)
{
	double mr = s->max_r > 0 ? s->max_r : 2 * s->c->items[s->p->idx[k]].r;
	s->lr[k] = fs_det_base_level_lowpassed_lit(s->lp, s->lvx[k], s->lvy[k], mr, s->m->f, s->off->fit.azimuth,
						   s->m->ridge_lit, cap, &s->le[k], &s->la[k], &s->sh[k]);
}

/* every dome the fit sized (fr finite) */
static void lit_read_all(const struct lit_read *s, double cap)
{
	for (size_t k = 0; k < s->p->n; k++)
		if (isfinite(s->fr[k]))
			lit_read_one(s, k, cap);
}

int fs_det_base_fit_apply(const fs_meas *m, const fs_cand_list *c, const fs_det_offset *off, double max_r,
			  const double *level_at, const int *level_edge, const double *level_var, fs_measured *meas,
			  fs_det_base_fit *info)
{
	if (info)
		memset(info, 0, sizeof *info);
	if (!m->img || !m->dome)
		return 0;
	fs_det_base_plan p;
	if (fs_det_base_plan_make(meas, c->n, off, &p))
		return -1;
	if (!p.n)
		return 0;
	int rc = -1;
	double *fr = malloc(13 * p.n * sizeof *fr), *fx = fr + p.n, *fy = fx + p.n, *lr = fy + p.n;
	double *sig = lr + p.n, *scratch = sig + p.n, *var = scratch + p.n, *l2 = var + p.n;
	double *sx = l2 + p.n, *sy = sx + p.n, *rs2 = sy + p.n, *la = rs2 + p.n, *sh = la + p.n;
	int *le = calloc(p.n, sizeof *le);
	fs_image *lp = NULL;
	fs_dome_tpl t;
	memset(&t, 0, sizeof t);
	char err[128];
	if (!fr || !le || fs_det_base_lowpass(m->img, off, &lp, err, sizeof err))
		goto out;
	const fs_image *img = lp ? lp : m->img;
	int b = fs_dome_tpl_build(img, &off->fit, p.fill0, p.xs, p.ys, p.n, &t, err, sizeof err);
	if (b < 0)
		goto out;
	rc = 0;
	if (b > 0) {
		/* no templates: the base rule's radii stand, judged at given
		 * centres as too few templates' are (detect_base_fit.h) */
		if (!lp && m->given && own_judged_whole(m, &p, c, max_r, fr, scratch, meas, info))
			rc = -1;
		goto out;
	}
	for (size_t k = 0; k < p.n; k++)
		lr[k] = var[k] = la[k] = sh[k] = NAN;
	const fs_base_readings *kept_fits = m->given && fs_det_first_formation() >= 2 ? m->readings : NULL;
	if (fit_all(&t, img, &p, p.xs, p.ys, m->given, kept_fits, fr, fx, fy, sig)) {
		rc = -1;
		goto out;
	}
	/* under a screen whose low-pass leaves the bases resolved: the
	 * formation again at the fit's centres and every dome fitted again
	 * through it; the level still read from the first fit's centres
	 * (lvx, lvy; fs_det_base_refit_wanted) */
	const double *lvx = fx, *lvy = fy;
	struct whole_refit wr = {m->img, img, &p, fr, fx, fy, sig, off->fit};
	const fs_det_base_refit_path path = {whole_formation, whole_templates, whole_fit, &wr};
	double axis_az;
	int refit = fs_det_base_refit(m, &p, off, meas, fr, fx, fy, scratch, sx, sy, rs2, &t, &path, &axis_az, err,
				      sizeof err);
	if (refit < 0) {
		rc = -1;
		goto out;
	}
	if (refit) {
		lvx = sx;
		lvy = sy;
	}
	if (m->given) {
		/* final centres: sized where they are */
		for (size_t k = 0; k < p.n; k++)
			if (isfinite(fr[k])) {
				fx[k] = c->items[p.idx[k]].x;
				fy[k] = c->items[p.idx[k]].y;
			}
	} else {
		fs_centre_axis ax;
		struct whole_some ws = {&t, img, p.n};
		fs_det_offset aoff = *off;
		aoff.fit.azimuth = axis_az;
		/* the fits' own centres, for the last step's option (modes 2, 3) */
		int keep_fits = m->readings && !lp && !refit && fs_det_first_formation() >= 2;
		double *ax0 = keep_fits ? malloc(2 * p.n * sizeof *ax0) : NULL;
		for (size_t k = 0; ax0 && k < p.n; k++) {
			ax0[k] = fx[k];
			ax0[p.n + k] = fy[k];
		}
		/* (the templates' own formation: a refit's t2 was built from another) */
		if (axis_whole(m->img, &p, &aoff, &off->fit, refit ? NULL : &t, fr, fx, fy, c, max_r, m->f, &ax) ||
		    fs_det_base_ends_again(&p, &ax, fr, fx, fy, whole_fit_some, &ws, err, sizeof err)) {
			free(ax0);
			rc = -1;
			goto out;
		}
		/* (out of memory: the last step fits them itself) */
		if (ax0)
			fs_det_base_keep_fits(m->readings, &p, m->f, fr, sig, fx, fy, ax0, ax0 + p.n);
		free(ax0);
	}
	/* the level: without a screen on the measurement image; under one,
	 * where the low-pass leaves the bases resolved, on the low-passed
	 * image the templates were fitted on; where it does not but the gap
	 * is shorter than the screen's period, on the measurement image as
	 * without a screen (fs_det_base_level_tight_screen); else the first
	 * reading */
	int screened = lp && fs_det_base_level_screened(&p, off, fr, scratch);
	int tight = lp && !screened && fs_det_base_level_tight_screen(&p, off, fr, scratch);
	/* the walked domes' lit cap for this image's readings (NAN: free) */
	double cap = fs_dome_lit_cap();
	struct lit_read lit = {lp, m, &p, c, off, fr, lvx, lvy, max_r, lr, la, sh, le};
	if (lp && !screened && !tight) {
		/* the template fit's radii read short on low printed domes
		 * (h43j: 40-55 % of the truth on the interior scenes at pitch
		 * 28-32), so the gate above can call resolved bases merged;
		 * the low-passed readings themselves are asked again */
		for (int again = 0; again < 2; again++) {
			lit_read_all(&lit, cap);
			/* the image's walked domes moved far: read them again free
			 * (fs_det_base_set_lit_gate) */
			if (again || !isfinite(cap) || !fs_det_base_lit_gate_free(sh, p.n, scratch))
				break;
			cap = NAN;
		}
		screened = fs_det_base_level_screened_read(&p, off, lr, le, scratch);
		for (size_t k = 0; k < p.n && !screened; k++) {
			lr[k] = la[k] = NAN;
			le[k] = 0;
		}
	}
	for (size_t k = 0; k < p.n && (!lp || screened || tight); k++) {
		if (!isfinite(fr[k]))
			continue;
		size_t i = p.idx[k];
		double mr = max_r > 0 ? max_r : 2 * c->items[i].r;
		if (!screened && m->given && level_at && !(level_at[i] < 0)) {
			lr[k] = level_at[i];
			le[k] = level_edge[i];
			var[k] = level_var[i];
		} else if (screened && isfinite(lr[k])) {
			/* (read above, asked again) */
		} else if (screened) {
			lit_read_one(&lit, k, cap);
		} else {
			/* kept for the last step, which reads the base from
			 * this very centre again (base_readings.h) */
			fs_dome_reading r;
			int keep = m->readings && !m->given;
			lr[k] = fs_det_base_level_blur(m->img, fx[k], fy[k], mr, m->f, &le[k], &var[k], keep ? &r : NULL);
			/* (out of memory: the last step reads it again) */
			if (keep)
				(void)fs_base_readings_add(m->readings, FS_BASE_ON_MEAS, fx[k], fy[k],
							   FS_DOME_R0 * mr / m->f, FS_DOME_R1 * mr / m->f, &r);
		}
	}
	/* the image's walked domes moved far: read again free
	 * (fs_det_base_set_lit_gate) */
	if (screened && isfinite(cap) && fs_det_base_lit_gate_free(sh, p.n, scratch)) {
		cap = NAN;
		lit_read_all(&lit, cap);
	}
	/* the walked domes' cast-shadow excess read on the formation's
	 * lattice (level_calib.h, h53e; off by default) */
	if (screened && (m->ridge_lit || fs_det_base_ridge_lit()) && fs_level_calib_lit_shadow_on() &&
	    fs_det_base_lit_shadow(&p, refit ? &wr.form : &off->fit, &t, fr, c, max_r, m->f, cap, lr)) {
		rc = -1;
		goto out;
	}
	if (m->readings)
		fs_base_readings_seal(m->readings);
	/* under a tight screen, the option of the valleys' reading (h47g) */
	if (tight && fs_det_base_gap_level(&p, off, m->img, m->f, fx, fy, fr, le, var, lr) < 0) {
		rc = -1;
		goto out;
	}
	/* without a screen, the level extrapolated to no blur */
	double v1 = 0;
	int clear = lp ? FS_DET_EXTRAP_NONE : fs_det_base_extrap_plan(&p, off, lr, le, var, &v1);
	/* at given centres a tall dome may be seen only from where the
	 * offset puts it (fs_det_base_moved_wanted): the level read there */
	int moved = 0;
	/* the formation the plan was read with (the line's gate) */
	fs_det_offset o2;
	const fs_det_offset *poff = off;
	if (!lp && m->given && fs_det_base_moved_wanted(&p, off, lr, le, var)) {
		if (moved_look(m->img, &p, off, &o2)) {
			rc = -1;
			goto out;
		}
		if (fs_det_base_extrap_plan(&p, &o2, lr, le, var, &v1) == FS_DET_EXTRAP_TALL) {
			moved = 1;
			for (size_t k = 0; k < p.n; k++) {
				fx[k] += off->dx;
				fy[k] += off->dy;
				if (!isfinite(fr[k]))
					continue;
				double mr = max_r > 0 ? max_r : 2 * c->items[p.idx[k]].r;
				lr[k] = fs_det_base_level_blur(m->img, fx[k], fy[k], mr, m->f, &le[k], &var[k], NULL);
			}
			clear = fs_det_base_extrap_plan(&p, &o2, lr, le, var, &v1);
			poff = &o2;
		}
	}
	if (fs_det_base_line_wanted(clear, poff, v1)) {
		fs_det_base_line_apply(&p, v1, le, lr);
	} else if (clear) {
		/* the blurred image made only when a reading is not kept: the
		 * last step finds them all where the first pass read them
		 * (base_readings.h) */
		fs_image *b2 = NULL;
		int keep = m->readings && !m->given;
		unsigned classes = fs_det_base_extrap_classes(&p, lr, le);
		for (size_t k = 0; k < p.n; k++) {
			size_t i = p.idx[k];
			double mr = max_r > 0 ? max_r : 2 * c->items[i].r;
			double r0 = FS_DOME_R0 * mr / m->f, r1 = FS_DOME_R1 * mr / m->f;
			int e2;
			double v2;
			l2[k] = NAN;
			if (!isfinite(lr[k]) || le[k] || !fs_det_base_extrap_picked(fx[k], fy[k], classes))
				continue;
			const fs_dome_reading *kr =
				m->given ? fs_base_readings_find(m->readings, FS_BASE_ON_BLURRED, fx[k], fy[k], r0, r1) : NULL;
			if (kr) {
				l2[k] = fs_det_base_level_kept(kr, &e2, &v2);
				continue;
			}
			if (!b2 && !(b2 = fs_gaussian_blurred(m->img, FS_DET_BASE_EXTRA_BLUR, err, sizeof err))) {
				rc = -1;
				goto out;
			}
			/* (fs_det_base_level_one's reading: the same radius) */
			fs_dome_reading r;
			l2[k] = fs_det_base_level_blur(b2, fx[k], fy[k], mr, m->f, &e2, &v2, keep ? &r : NULL);
			if (keep)
				(void)fs_base_readings_add(m->readings, FS_BASE_ON_BLURRED, fx[k], fy[k], r0, r1, &r);
		}
		fs_image_free(b2);
		if (keep)
			fs_base_readings_seal(m->readings);
		fs_det_base_extrap_apply(&p, v1, le, l2, lr);
	}
	size_t flat = fs_det_base_drop_flat(&p, sig, fr, scratch, meas);
	fs_det_base_own_plan(&p, fr, m->given);
	/* on a sample where more than FS_DET_BASE_STEP_SAMPLE are judged */
	if (!lp && fs_det_base_step_pick(&p, fr, fx, fy, lvx, lvy, lr, le, screened, meas)) {
		rc = -1;
		goto out;
	}
	/* whether the level's readings lie on a step (base_step.h); scratch
	 * is free again. Not judged under a screen the formation found (lp):
	 * its dots and their low-pass leave no flat ground to judge by
	 * (detect_base_fit.h) */
	for (size_t k = 0; k < p.n; k++) {
		double x, y, r;
		int on = !lp && fs_det_base_step_point(&p, fr, fx, fy, lvx, lvy, lr, le, screened, meas, k, &x, &y, &r);
		size_t i = p.idx[k];
		double mr = max_r > 0 ? max_r : 2 * c->items[i].r, r0 = FS_DOME_R0 * mr / m->f, r1 = FS_DOME_R1 * mr / m->f;
		scratch[k] = NAN;
		/* the last step judges where the first pass did (base_readings.h) */
		if (on && !(m->given && fs_base_readings_find_step(m->readings, x, y, r, r0, r1, &scratch[k]))) {
			scratch[k] = fs_base_step_contrast(m->img, 0, 0, m->img->width, m->img->height, x, y, r, r0, r1);
			if (m->readings && !m->given)
				(void)fs_base_readings_add_step(m->readings, x, y, r, r0, r1, scratch[k]);
		}
	}
	if (m->readings && !m->given)
		fs_base_readings_seal(m->readings);
	/* the away rays' readings lie on the cast shadow's border (after the
	 * step judgement, which reads the image where the reading lies);
	 * under a screen their own polygons on the low-pass say so */
	fs_det_base_shadow_take_out(&p, off, meas, le, la, screened, clear, lr);
	/* strays are judged except where the level is the first reading
	 * (detect_base_fit.h) */
	p.screened = lp != NULL && !screened;
	/* (the sizes stay at the given centres) */
	for (size_t k = 0; moved && k < p.n; k++) {
		fx[k] -= off->dx;
		fy[k] -= off->dy;
	}
	/* the reader's own excess at this formation divided out where the
	 * level is the reader's alone (level_calib.h, h52a) */
	if (!lp && m->given && !refit && clear == FS_DET_EXTRAP_NONE && fs_level_calib_on() &&
	    level_calib_whole(m->img, &p, off, &t, fr, fx, fy, c, max_r, m->f, lr)) {
		rc = -1;
		goto out;
	}
	/* no base in the image (judged at given centres only), else the
	 * level's scale */
	if (fs_det_base_level_size(&p, m->given, &t, &off->fit, fr, fx, fy, lr, le, scratch, meas, info)) {
		rc = -1;
		goto out;
	}
	if (info)
		info->flat = flat;
out:
	free(fr);
	free(le);
	fs_image_free(lp);
	fs_dome_tpl_free(&t);
	fs_det_base_plan_free(&p);
	return rc;
}
