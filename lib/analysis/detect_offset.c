/*
 * detect_offset.c - the dome detector's centres corrected for their common
 * offset (see detect_offset.h).
 */
#include "analysis/detect_offset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/base_readings.h"
#include "analysis/detect_base_fit.h"
#include "analysis/dome_fit.h"
#include "analysis/dome_measure.h"
#include "analysis/foot_pool.h"
#include "analysis/halftone.h"
#include "analysis/preprocess.h"
#include "base/sorting.h"

/* 0.0125 pitch along both axes (one step of dome_fit.c's fine offset
 * grid) is 0.0177 pitch: below this the offset is the fit's rounding */
#define MIN_OFFSET 0.02
/* the formation fit's own least pitch, px (fs_dome_fit_image refuses a
 * finer one): the domes are not read into a fit that would refuse them */
#define FIT_MIN_PITCH 6
#define MAX_QUALITY_DROP 0.1
/* A dome with a bright cap (a top of higher yield, h37r's sem_opts.cap)
 * has its rays' strongest steps at the cap's and the lit flank's edge, a
 * circle off to the detector's side: the base rule's quality peaks there
 * and falls by 0.19-0.29 at the true centre, where the formation fit's
 * offset puts it (h37s, bench_centre_steps: offset -8..-10 px for
 * centres +10 px off, R^2 0.93-0.98). When the whole-patch fit is that
 * good and its offset that large, the offset is trusted over the base
 * rule's circle up to a drop of FAR_QUALITY_DROP. Not below a pitch of
 * 40 px: at pitch 16 under a 5 px screen the fit's large offsets with
 * R^2 >= 0.92 are not the domes' (corner scenes 12 and 14 and interior
 * scene 10 lose their targets), and not below R^2 0.92: P1 Fig1 (0.80)
 * and Fig6 (0.61) carry large offsets that would move their fills by
 * +0.07 / +0.28. */
#define FAR_OFFSET 0.08
#define FAR_QUALITY_DROP 0.35
#define FAR_FIT_R2 0.92
#define FAR_MIN_PITCH 40
/* The screened level's refit of the formation (fs_det_base_refit, at the
 * template fit's centres) walks its held fill (dome_fit.h,
 * fs_dome_fit_opts.fill_walk) in steps of WALK_STEP, within WALK_NEAR of
 * it, and keeps the walk's end only where it at least halves the held
 * fill's residual sum (WALK_GAIN). Why (h38v, h39a): the held fill, the
 * template fit's median size, can sit in a pocket of (fill, offset) where
 * the formation explains the domes' asymmetry with a tall shadowed dome
 * (corner scene 40@20000: fill 0.18 for 0.25, R^2 0.95, mean D -19 %);
 * with the offset searched for each fill the fit leaves it (0.22, R^2
 * 0.99, D -3.0 %; scene 25@0 x0.17, D -6.4 -> -1.8 %). A smaller gain is
 * the fit trading the fill for its nuisances (40@4000: 0.29 -> 0.23,
 * residual x0.67, the per-tubercle D SD 3.9 -> 11.4 %). Only the refit:
 * the first pass's fill (its base readings, up to half the true fill)
 * walked wherever the offset is fitted lost corner scenes 9, 17, 19, 31,
 * 42 and 56 and interior scene 7, none of them kept by a bar on the gain
 * (docs/paper-figures.md, h39a). */
#define WALK_STEP 0.02
#define WALK_NEAR 0.25
#define WALK_GAIN 0.5
/* fs_det_offset_set_foot's experiment (h47c): where the formation at the
 * held fill picks a smooth foot, it is fitted again with the fill free
 * from the held fill up to FOOT_REACH x it (0.88 at most): the held fill
 * is the base rule's reading, which on such a foot is the flank's, and
 * the support the foot model names lies beyond it (h43c: a cos^2 dome
 * read by the sharp profiles at 0.62-0.70 of its support) */
#define FOOT_REACH 1.6

/* Whether a measured candidate is a dome the detection keeps (as in
 * fs_det_measure: at least 0.45 of the rays' steps on one circle). */
static int is_dome(const fs_measured *q)
{
	return q->ok && q->t.fit_quality >= 0.45 && isfinite(q->t.radius_px);
}

size_t fs_det_offset_domes(const fs_measured *meas, size_t n, double *xs, double *ys, double *rs)
{
	size_t nd = 0;
	for (size_t i = 0; i < n; i++)
		if (is_dome(&meas[i])) {
			xs[nd] = meas[i].t.centroid_x;
			ys[nd] = meas[i].t.centroid_y;
			rs[nd++] = meas[i].t.radius_px;
		}
	return nd;
}

int fs_det_offset_domes_read(const fs_measured *meas, size_t nc, fs_det_domes *d, double *pitch)
{
	d->x = malloc(nc * sizeof *d->x);
	d->y = malloc(nc * sizeof *d->y);
	d->r = malloc(nc * sizeof *d->r);
	d->n = 0;
	*pitch = 0;
	if (!d->x || !d->y || !d->r)
		return -1;
	d->n = fs_det_offset_domes(meas, nc, d->x, d->y, d->r);
	*pitch = d->n >= 8 ? fs_dome_fit_pitch(d->x, d->y, d->n) : 0;
	return *pitch < 0 ? -1 : *pitch >= FIT_MIN_PITCH;
}

void fs_det_offset_domes_free(fs_det_domes *d)
{
	free(d->x);
	free(d->y);
	free(d->r);
}

int fs_det_offset_fit_once(const fs_image *img, const double *xs, const double *ys, double *rs, size_t n,
			   double pitch, const fs_dome_fit_opts *reading, fs_det_offset *info)
{
	memset(info, 0, sizeof *info);
	if (n < 8 || !(pitch >= FIT_MIN_PITCH))
		return 0;
	fs_dome_fit_opts o;
	fs_dome_fit_opts_default(&o);
	if (reading) {
		o.patch_ox = reading->patch_ox;
		o.patch_oy = reading->patch_oy;
		o.halftone_given = reading->halftone_given;
		o.halftone_period = reading->halftone_period;
		o.fill_walk = reading->fill_walk;
		o.fill_walk_max = reading->fill_walk_max;
		o.fill_walk_gain = reading->fill_walk_gain;
		o.cap_tie = reading->cap_tie;
		o.turn_check = reading->turn_check;
		o.foot_search = reading->foot_search;
	}
	o.no_sigma = 1;
	o.fill_min = o.fill_max = fmin(0.88, fmax(0.16, 2 * fs_median_upper(rs, n) / pitch));
	o.max_centres = FS_DET_OFFSET_MAX_CENTRES;
	o.keep_formation = 1;
	o.no_profiles = 1;
	o.coarse_to_fine = 1;
	fs_dome_fit f;
	char err[128];
	if (fs_dome_fit_image(img, xs, ys, n, pitch, &o, &f, err, sizeof err))
		return 0; /* too few whole patches: nothing to correct */
	if (o.foot_search && f.foot > 1 && o.fill_max < 0.88) {
		fs_dome_fit g;
		o.fill_max = fmin(0.88, FOOT_REACH * o.fill_min);
		int rr = fs_dome_fit_image(img, xs, ys, n, pitch, &o, &g, err, sizeof err);
		if (!rr && g.foot > 1)
			f = g;
		else {
			/* the free fill does not confirm the foot (P1 Fig4:
			 * foot 2 at the held fill, sharp with it free): the
			 * formation without the foot, as the rule's own */
			o.foot_search = 0;
			o.fill_max = o.fill_min;
			if (fs_dome_fit_image(img, xs, ys, n, pitch, &o, &f, err, sizeof err))
				return 0;
		}
	}
	info->fitted = 1;
	info->fit = f;
	info->dx = f.offset_x;
	info->dy = f.offset_y;
	info->quality = f.quality;
	info->applied = hypot(f.offset_x, f.offset_y) >= MIN_OFFSET * pitch;
	return 0;
}

/* A fit without a shadow term that moves the centres is fitted once
 * more at the moved centres. Why (h38s, P2 Fig1c's formation on the
 * simulator): where a tall dome's cast shadow makes a dark crescent on
 * the side away from the detector, the first centres sit on the middle
 * of the bright blob and its crescent (0.18 pitch off); a dome drawn
 * there casts its shadow where the image is bright, so every shadow
 * term is refused (a shadow brighter than the lit surface, dome_fit.c),
 * and the fill held at the base readings (which go round the crescent)
 * makes the offset short (0.13 of 0.23 pitch). From the moved centres
 * the shadow falls on the crescent and the fit finds the rest. Only a
 * second offset smaller than the first is taken (a correction that
 * converges): on one scene of six the second fit's offset landed on
 * another minimum of the residual, twice as far on the lit side. Not
 * under a halftone screen: on h37r's capped domes (2.84 px screen,
 * test_dome_capped_centres) the second fit pushed the centres of seed
 * 2 from 2.7 to 5.2 px onto the lit side. (h39a: the fill searched
 * with the offset, fitted again at the same centres instead, reads
 * seed 1 of test_dome_crescent closer, +6.7 % against +14.5 %, but
 * loses corner scene 19 on five of six further seed sets:
 * docs/paper-figures.md.) */
int fs_det_offset_refit_wanted(const fs_det_offset *info)
{
	return info->applied && !(info->fit.elevation > 0) && !(info->fit.halftone > 0);
}

void fs_det_offset_take_refit(fs_det_offset *info, const fs_det_offset *second)
{
	double fx = info->fit.offset_x, fy = info->fit.offset_y;
	if (!second->fitted || !(hypot(second->fit.offset_x, second->fit.offset_y) <= hypot(fx, fy)))
		return;
	info->fit = second->fit;
	info->dx = fx + second->fit.offset_x;
	info->dy = fy + second->fit.offset_y;
	info->quality = second->fit.quality;
}

int fs_det_offset_fit(const fs_image *img, const double *xs, const double *ys, double *rs, size_t n, double pitch,
		      const fs_dome_fit_opts *reading, fs_det_offset *info)
{
	fs_det_offset_fit_once(img, xs, ys, rs, n, pitch, reading, info);
	/* (patches read from a mosaic do not move with the centres: that
	 * caller makes the second look on patches copied about them) */
	if (!fs_det_offset_refit_wanted(info) || (reading && reading->patch_ox))
		return 0;
	double *x2 = malloc(n * sizeof *x2), *y2 = malloc(n * sizeof *y2);
	if (x2 && y2) { /* out of memory: the first look stands */
		for (size_t i = 0; i < n; i++) {
			x2[i] = xs[i] + info->fit.offset_x;
			y2[i] = ys[i] + info->fit.offset_y;
		}
		fs_det_offset second;
		fs_det_offset_fit_once(img, x2, y2, rs, n, pitch, reading, &second);
		fs_det_offset_take_refit(info, &second);
	}
	free(x2);
	free(y2);
	return 0;
}

void fs_det_offset_refit_walk(fs_dome_fit_opts *reading)
{
	reading->fill_walk = WALK_STEP;
	reading->fill_walk_max = WALK_NEAR;
	reading->fill_walk_gain = WALK_GAIN;
}

int fs_det_offset_apply_one(const fs_image *img, const fs_det_offset *info, double mr, double F, double smooth,
			    fs_measured *q, fs_tubercle *tried)
{
	return fs_det_offset_apply_crop(img, 0, 0, info, mr, F, smooth, q, tried);
}

int fs_det_offset_apply_crop(const fs_image *img, int ox, int oy, const fs_det_offset *info, double mr, double F,
			     double smooth, fs_measured *q, fs_tubercle *tried)
{
	fs_tubercle own;
	if (!tried)
		tried = &own;
	tried->centroid_x = q->t.centroid_x;
	tried->centroid_y = q->t.centroid_y;
	/* candidates that are no dome stay what they are: the correction
	 * moves domes, it does not make them (a hole measured from elsewhere
	 * can pass for one) */
	if (!info->applied || !is_dome(q))
		return 0;
	fs_tubercle t;
	fs_tubercle_init(&t);
	/* the start in the whole image's pixels first, then on the crop: an
	 * integer taken from it is exact, so fs_dome_measure gets the same
	 * pixel and fraction wherever the crop lies (dome_measure.c,
	 * sample_split); (centre - ox) + offset rounds at another magnitude
	 * than (centre + offset), and under a halftone screen a last-bit move
	 * of the start moved a reading by up to 0.3 px (h39i) */
	if (fs_dome_measure_crop(img, ox, oy, (q->t.centroid_x + info->dx) - ox, (q->t.centroid_y + info->dy) - oy,
				 FS_DOME_R0 * mr / F, FS_DOME_R1 * mr / F, smooth / F, &t))
		return 0;
	t.centroid_x += ox;
	t.centroid_y += oy;
	*tried = t;
	double drop = info->quality >= FAR_FIT_R2 && info->fit.pitch >= FAR_MIN_PITCH &&
				      hypot(info->dx, info->dy) >= FAR_OFFSET * info->fit.pitch
			      ? FAR_QUALITY_DROP
			      : MAX_QUALITY_DROP;
	if (!(t.fit_quality >= q->t.fit_quality - drop))
		return 0;
	q->t = t;
	q->edge = 0; /* a smoothed reading: not judged (detect_measure.h) */
	return 1;
}

/* fs_halftone_detect on m->img, looked for once a detection: kept in
 * m->readings (base_readings.h), whose image is m->img in every pass.
 * Without a set (Re-measure) it looks every time. 0, -1 out of memory. */
static int screen_period(const fs_meas *m, double *period)
{
	fs_base_readings *r = m->readings;
	if (r && r->screen_read) {
		*period = r->screen_period;
		return 0;
	}
	if (fs_halftone_detect(m->img, period, NULL))
		return -1;
	if (r) {
		r->screen_read = 1;
		r->screen_period = *period;
	}
	return 0;
}

/* Every candidate measured again from its centre plus info's offset,
 * kept as fs_det_offset_apply_one says; how many were kept. */
static size_t apply_all(const fs_meas *m, const fs_cand_list *c, double max_r, double smooth,
			const fs_det_offset *info, fs_measured *meas)
{
	size_t moved = 0;
	for (size_t i = 0; i < c->n; i++) {
		double mr = max_r > 0 ? max_r : 2 * c->items[i].r;
		moved += (size_t)fs_det_offset_apply_one(m->img, info, mr, m->f, smooth, &meas[i], NULL);
	}
	return moved;
}

int fs_det_offset_screen_fits(const fs_meas *m, const fs_cand_list *c, const fs_measured *meas, double *period)
{
	*period = -1;
	if (!m->img || !m->dome || c->n < 8)
		return 0;
	/* fs_dome_fit_image's screen first: without one (most images) the
	 * domes' pitch is not found twice */
	if (screen_period(m, period))
		return -1;
	if (!(*period > 0))
		return 0;
	fs_det_domes d;
	double pitch;
	int rc = fs_det_offset_domes_read(meas, c->n, &d, &pitch);
	if (rc <= 0)
		goto out;
	/* fs_dome_fit_image's count of whole neighbourhoods (mean_image) */
	size_t stride, used = 0;
	double ext;
	fs_dome_fit_reach(pitch, d.n, FS_DET_OFFSET_MAX_CENTRES, &stride, &ext);
	int W = m->img->width, H = m->img->height;
	for (size_t i = 0; i < d.n; i += stride)
		used += fs_dome_fit_whole(d.x[i], d.y[i], ext, W, H);
	rc = used >= 8;
out:
	fs_det_offset_domes_free(&d);
	return rc;
}

static unsigned g_turn_passes;

/* Whether a switch set for passes (FS_DET_TURN_FIRST, _LAST) is on in m's:
 * the last step's where m's centres are given, else the first pass's. */
static int passes_here(unsigned passes, const fs_meas *m)
{
	return (passes & (m->given ? FS_DET_TURN_LAST : FS_DET_TURN_FIRST)) != 0;
}
static unsigned g_foot_passes;

unsigned fs_det_offset_set_foot(unsigned passes)
{
	unsigned old = g_foot_passes;
	g_foot_passes = passes;
	return old;
}

int fs_det_offset_foot_search(const fs_meas *m)
{
	return passes_here(g_foot_passes, m);
}

static unsigned g_pool_passes;

unsigned fs_det_offset_set_foot_pool(unsigned passes)
{
	unsigned old = g_pool_passes;
	g_pool_passes = passes;
	return old;
}

/* The foot searched in m's pass: where fs_det_offset_set_foot names it,
 * or where fs_det_offset_set_foot_pool does and the domes' pooled
 * profile on m's image says the feet are smooth (a profile that cannot
 * be read says nothing: the rule's own formation). */
static int foot_search_here(const fs_meas *m, const fs_det_domes *d, double pitch)
{
	if (fs_det_offset_foot_search(m))
		return 1;
	if (!passes_here(g_pool_passes, m))
		return 0;
	fs_foot_pool fp;
	char err[96];
	return !fs_foot_pool_read(m->img, d->x, d->y, d->r, d->n, pitch, &fp, err, sizeof err) &&
	       fs_foot_pool_smooth(&fp);
}

unsigned fs_det_offset_set_turn_check(unsigned passes)
{
	unsigned old = g_turn_passes;
	g_turn_passes = passes;
	return old;
}

int fs_det_offset_correct(const fs_meas *m, const fs_cand_list *c, double max_r, double smooth,
			  fs_measured *meas, fs_det_offset *info)
{
	return fs_det_offset_correct_period(m, c, max_r, smooth, -1, meas, info);
}

double fs_det_offset_cap_tie(const fs_meas *m)
{
	return m->given ? FS_DET_OFFSET_CAP_TIE : 0;
}

static int correct_period(const fs_meas *m, const fs_cand_list *c, double max_r, double smooth, double period,
			  int apply, fs_measured *meas, fs_det_offset *info);

int fs_det_offset_correct_period(const fs_meas *m, const fs_cand_list *c, double max_r, double smooth,
				 double period, fs_measured *meas, fs_det_offset *info)
{
	return correct_period(m, c, max_r, smooth, period, 1, meas, info);
}

int fs_det_offset_read(const fs_meas *m, const fs_cand_list *c, double max_r, double smooth, const fs_measured *meas,
		       fs_det_offset *info)
{
	/* (meas is only read where nothing is applied) */
	return correct_period(m, c, max_r, smooth, -1, 0, (fs_measured *)meas, info);
}

static int g_held_lowpass;

void fs_det_offset_set_held_lowpass(int on)
{
	g_held_lowpass = on != 0;
}

int fs_det_offset_held_lowpass(void)
{
	return g_held_lowpass;
}

/* d's radii replaced by the level's reading on m's image low-passed as
 * the formation reads a screen of that period (detect_offset.h,
 * fs_det_offset_set_held_lowpass): the fill the formation is held at is
 * their median. A reading at its window's end or none: the dome's own
 * radius stays. 0, -1 out of memory (d unchanged). */
static int hold_lowpassed(const fs_meas *m, fs_det_domes *d, double mr, double period)
{
	char err[64];
	fs_image *lp = fs_gaussian_blurred(m->img, FS_HALFTONE_LOWPASS * period, err, sizeof err);
	if (!lp)
		return -1;
	for (size_t i = 0; i < d->n; i++) {
		int e = 0;
		double r = fs_det_base_level_lowpassed(lp, d->x[i], d->y[i], mr, m->f, &e);
		if (isfinite(r) && !e)
			d->r[i] = r;
	}
	fs_image_free(lp);
	return 0;
}

static int correct_period(const fs_meas *m, const fs_cand_list *c, double max_r, double smooth, double period,
			  int apply, fs_measured *meas, fs_det_offset *info)
{
	fs_det_offset dummy;
	if (!info)
		info = &dummy;
	memset(info, 0, sizeof *info);
	if (!m->img || !m->dome || c->n < 8)
		return 0;
	fs_det_domes d;
	double pitch;
	int rc = fs_det_offset_domes_read(meas, c->n, &d, &pitch);
	if (rc <= 0)
		goto out;
	rc = 0;
	/* the screen fs_dome_fit_image would look for on the same image,
	 * looked for once a detection (screen_period); where the look runs
	 * out of memory, the fit looks itself, as before */
	if (period < 0 && screen_period(m, &period))
		period = -1;
	fs_dome_fit_opts reading;
	memset(&reading, 0, sizeof reading);
	reading.halftone_given = period >= 0;
	reading.halftone_period = period;
	reading.cap_tie = fs_det_offset_cap_tie(m);
	reading.turn_check = passes_here(g_turn_passes, m);
	/* (the unrefined path's fill held at the low-passed level, h48d) */
	if (m->held_lowpass && !m->given && period > 0 && hold_lowpassed(m, &d, max_r > 0 ? max_r : 0.6 * pitch, period)) {
		rc = -1;
		goto out;
	}
	reading.foot_search = foot_search_here(m, &d, pitch);
	fs_det_offset_fit(m->img, d.x, d.y, d.r, d.n, pitch, &reading, info);
	/* given centres are final (detect_measure.h): the formation and the
	 * offset, applied by the caller where it reads its level from it */
	if (apply && info->applied && !m->given)
		info->moved += apply_all(m, c, max_r, smooth, info, meas);
out:
	/* (after the fit, which clears *info) */
	info->smooth = smooth / m->f;
	fs_det_offset_domes_free(&d);
	return rc;
}

int fs_det_offset_refused(const fs_det_offset *off, const fs_measured *meas, const double *bx, const double *by,
			  size_t n)
{
	if (!off->applied || !(off->fit.halftone > 0) || !(off->quality >= FAR_FIT_R2))
		return 0;
	size_t domes = 0, moved = 0;
	for (size_t i = 0; i < n; i++) {
		if (!is_dome(&meas[i]))
			continue;
		domes++;
		moved += meas[i].t.centroid_x != bx[i] || meas[i].t.centroid_y != by[i];
	}
	return 2 * moved < domes;
}

int fs_det_offset_coarse_screen(const fs_det_offset *off)
{
	return off->applied && off->fit.halftone > 0 && off->fit.pitch > 0 &&
	       off->fit.pitch < FS_DET_COARSE_SCREEN_PERIODS * off->fit.halftone;
}

int fs_det_offset_paths_differ(const fs_measured *a, const fs_measured *b, size_t n, double pitch)
{
	double *d = malloc((n ? n : 1) * sizeof *d);
	if (!d)
		return -1;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (is_dome(&a[i]) && is_dome(&b[i]))
			d[k++] = hypot(a[i].t.centroid_x - b[i].t.centroid_x, a[i].t.centroid_y - b[i].t.centroid_y);
	int apart = k && fs_median_upper(d, k) > FS_DET_PATHS_APART * pitch;
	free(d);
	return apart;
}

int fs_det_offset_again_step(const fs_det_offset *first, const fs_det_offset *second, fs_det_offset *step)
{
	*step = *first;
	step->applied = 0;
	/* only a further offset no longer than the first: a correction that
	 * converges (as h38s's second look); on interior scene 3 under a 6-px
	 * screen a first offset of +2.5 px read at R^2 0.76 was followed by
	 * one of 10 px, which put the centres 3.7 px past the domes' */
	if (!first->applied || !second->fitted || !(hypot(second->dx, second->dy) <= hypot(first->dx, first->dy)))
		return 0;
	/* and only where the formation fits the patches about the moved
	 * centres at least as well as about the first ones: a move that
	 * brings the centres nearer the domes sharpens their mean patch (the
	 * second R^2 0.01-0.05 higher on the printed interior scenes it
	 * helps); where the first fit already read the patch (interior scene
	 * 11 under a 6-px screen, R^2 0.984) and the second, its fill held
	 * higher, reads it no better (0.981), its further 1.05 px is that
	 * fit's trade of fill for offset, and the template fit from the moved
	 * centres stopped 0.77 px off at a fill 9 % short, below the screened
	 * level's resolved bar: D +0.1 -> -8.3 % (docs/paper-figures.md, h46d) */
	if (!(second->quality >= first->quality))
		return 0;
	/* the first formation stays: the base fit and the level read through
	 * it, and only the centres move by the further offset */
	step->dx = second->dx;
	step->dy = second->dy;
	step->quality = second->quality;
	step->applied = hypot(second->dx, second->dy) >= MIN_OFFSET * first->fit.pitch;
	return step->applied;
}

int fs_det_offset_look_again_by(const fs_det_offset *off, const fs_det_look *look)
{
	if (!off->applied || !off->fitted)
		return 0;
	fs_det_offset second, step;
	if (look->fit(look->ctx, off->fit.halftone, &second))
		return -1;
	/* (whether the domes move is decided once, for all of them: the
	 * step depends on the two looks only) */
	if (!fs_det_offset_again_step(off, &second, &step))
		return 0;
	return look->apply(look->ctx, &step);
}

/* The whole image's look again: its domes in meas, measured on m->img. */
struct look_whole {
	const fs_meas *m;
	const fs_cand_list *c;
	double max_r, smooth;
	fs_measured *meas;
};

static int look_whole_fit(void *ctx, double period, fs_det_offset *second)
{
	const struct look_whole *w = ctx;
	memset(second, 0, sizeof *second);
	fs_det_domes d;
	double pitch;
	int rc = fs_det_offset_domes_read(w->meas, w->c->n, &d, &pitch);
	if (rc > 0) {
		fs_dome_fit_opts reading;
		memset(&reading, 0, sizeof reading);
		reading.halftone_given = 1;
		reading.halftone_period = period;
		reading.cap_tie = fs_det_offset_cap_tie(w->m);
		reading.foot_search = foot_search_here(w->m, &d, pitch);
		fs_det_offset_fit_once(w->m->img, d.x, d.y, d.r, d.n, pitch, &reading, second);
	}
	fs_det_offset_domes_free(&d);
	return rc < 0 ? -1 : 0;
}

static int look_whole_apply(void *ctx, const fs_det_offset *step)
{
	const struct look_whole *w = ctx;
	/* (how many moved is not wanted: the caller keeps no count of the
	 * look again's moves) */
	(void)apply_all(w->m, w->c, w->max_r, w->smooth, step, w->meas);
	return 0;
}

int fs_det_offset_look_again(const fs_meas *m, const fs_cand_list *c, double max_r, double smooth,
			     fs_measured *meas, const fs_det_offset *off)
{
	struct look_whole w = {m, c, max_r, smooth, meas};
	const fs_det_look look = {look_whole_fit, look_whole_apply, &w};
	return fs_det_offset_look_again_by(off, &look);
}

/* A copy of n measurements, NULL out of memory. */
static fs_measured *measured_copy(const fs_measured *meas, size_t n)
{
	fs_measured *q = malloc((n ? n : 1) * sizeof *q);
	if (q)
		memcpy(q, meas, n * sizeof *q);
	return q;
}

int fs_det_paths_keep_refined(fs_det_paths *p, const fs_measured *meas, const fs_det_offset *off)
{
	p->refined = measured_copy(meas, p->n);
	if (!p->refined)
		return -1;
	p->refined_pitch = off->fit.pitch;
	return p->size(p->ctx, p->refined) ? -2 : 0;
}

int fs_det_paths_look_again(fs_det_paths *p, const fs_measured *meas, const fs_det_offset *off)
{
	if (!fs_det_offset_coarse_screen(off))
		return 0;
	/* the path as it was, for the comparison (fs_det_paths_choose) */
	if (p->refined && !(p->unrefined = measured_copy(meas, p->n)))
		return -1;
	return p->look_again(p->ctx) ? -2 : 0;
}

int fs_det_paths_choose(fs_det_paths *p, fs_measured *meas)
{
	if (!p->refined)
		return 0;
	int apart = fs_det_offset_paths_differ(p->refined, meas, p->n, p->refined_pitch);
	/* h44d's bar was measured between the paths before the look again
	 * existed, and the look again can bring the unrefined path within it
	 * though it had sat apart (6-px screen, interior scene 5 on the
	 * held-out seeds: 0.052 pitch after, the refined path 2 px off, D
	 * -13.8 %): apart before or after keeps it */
	if (!apart && p->unrefined) {
		if (p->size(p->ctx, p->unrefined))
			return -2;
		apart = fs_det_offset_paths_differ(p->refined, p->unrefined, p->n, p->refined_pitch);
	}
	if (apart < 0)
		return -1;
	if (!apart)
		memcpy(meas, p->refined, p->n * sizeof *meas);
	return 0;
}

void fs_det_paths_free(fs_det_paths *p)
{
	free(p->refined);
	free(p->unrefined);
	p->refined = p->unrefined = NULL;
}

/* Process-wide, as the measurement rule itself (measurement.h): set at
 * start-up by a bench or test before any detection runs, never by one. */
static int offset_walk_on;

void fs_det_offset_set_walk(int on)
{
	offset_walk_on = on;
}

int fs_det_offset_get_walk(void)
{
	return offset_walk_on;
}

/* The base readings at c's centres into res (the last step's first
 * readings, fs_det_measure_domes_at's, without its readings' cache), the
 * centres kept as given, and the formation fitted there into *off. */
static int walk_fit_at(const fs_meas *m, const fs_cand_list *c, double max_r, fs_measured *res, fs_det_offset *off)
{
	fs_measured_clear(res, c->n);
	for (size_t i = 0; i < c->n; i++) {
		double mr = max_r > 0 ? max_r : 2 * c->items[i].r, v;
		fs_det_base_first_reading(m, NULL, c->items[i].x, c->items[i].y, mr, &res[i], &v);
		res[i].t.centroid_x = c->items[i].x;
		res[i].t.centroid_y = c->items[i].y;
	}
	return fs_det_offset_correct_period(m, c, max_r, 0, 0, res, off);
}

int fs_det_offset_walk_given(const fs_meas *m, fs_cand_list *c, double max_r, int *moves)
{
	int kept = 0, rc = 0;
	if (moves)
		*moves = 0;
	if (!offset_walk_on || m->given != 2 || !m->img || !m->dome || m->f != 1 || c->n < 8)
		return 0;
	double period;
	if (screen_period(m, &period))
		return -1;
	if (period > 0)
		return 0;
	fs_measured *res = malloc(c->n * sizeof *res);
	fs_cand *to = malloc(c->n * sizeof *to);
	if (!res || !to) {
		rc = -1;
		goto out;
	}
	fs_det_offset here, there;
	if (walk_fit_at(m, c, max_r, res, &here)) {
		rc = -1;
		goto out;
	}
	double last = INFINITY;
	fs_cand_list moved = {.items = to, .n = c->n, .cap = c->n};
	for (int k = 0; k < FS_DET_OFFSET_WALK_ROUNDS; k++) {
		/* a converging correction only (as h38s's second look) */
		double step = hypot(here.dx, here.dy);
		/* (the rule's own formation must read a side detector; the
		 * moved ones need not: detect_offset.h) */
		if (!here.fitted || !here.applied || here.fit.halftone > 0 || (k == 0 && !(here.fit.side > 0)) ||
		    !(step <= last))
			break;
		for (size_t i = 0; i < c->n; i++) {
			to[i] = c->items[i];
			to[i].x += here.dx;
			to[i].y += here.dy;
		}
		if (walk_fit_at(m, &moved, max_r, res, &there)) {
			rc = -1;
			goto out;
		}
		if (!there.fitted || !(there.fit.fill >= here.fit.fill + FS_DET_OFFSET_WALK_RISE))
			break;
		memcpy(c->items, to, c->n * sizeof *to);
		kept++;
		last = step;
		here = there;
	}
	if (moves)
		*moves = kept;
out:
	free(res);
	free(to);
	return rc;
}
