/*
 * measure_centres.c - measuring given centres with a measurement rule
 * (see measurement.h), for Re-measure: detection's measurement set-up
 * (detect.c, detect_measure.c) without the detection, for either rule;
 * on a large image the measurement image is made in bands of rows.
 */
#include "analysis/measurement.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/blob_measure.h"
#include "analysis/detect.h"
#include "analysis/detect_candidates.h"
#include "analysis/detect_measure.h"
#include "analysis/detect_methods.h"
#include "analysis/lattice_estimate.h"
#include "analysis/near_pairs.h"
#include "analysis/preprocess.h"
#include "image/image_transform.h"
#include "base/sorting.h"

/* Median nearest-neighbour distance of the centres (0 below two, or out
 * of memory). Each centre's nearest from the centres sorted by x
 * (near_pairs.h), the same distance the scan over every pair gave: that
 * scan was 5 billion distances, most of a minute, on the 71,858 centres of
 * a 100 MP image. */
static double median_nn(const fs_tubercle_list *t)
{
	if (t->n < 2)
		return 0;
	double *d = malloc(t->n * sizeof *d), *xs = malloc(t->n * sizeof *xs), *ys = malloc(t->n * sizeof *ys);
	fs_near_index ix = {0};
	double m = 0;
	if (!d || !xs || !ys)
		goto out;
	for (size_t i = 0; i < t->n; i++) {
		xs[i] = t->items[i].centroid_x;
		ys[i] = t->items[i].centroid_y;
	}
	if (fs_near_index_build(&ix, xs, ys, t->n))
		goto out;
	for (size_t i = 0; i < t->n; i++)
		d[i] = fs_near_nearest(&ix, i);
	m = fs_median_upper(d, t->n);
out:
	fs_near_index_free(&ix);
	free(d);
	free(xs);
	free(ys);
	return isfinite(m) ? m : 0;
}

static void set_unmeasured(fs_tubercle *x)
{
	fs_tubercle_set_unmeasured(x);
	x->fit_quality = NAN;
}

/* The size and shape of a measurement m, at the centre x as it is: the
 * centre (the user's, or an earlier detection's) is never moved. */
static void take_size(fs_tubercle *x, const fs_tubercle *m)
{
	fs_tubercle_take_size(x, m);
	x->fit_quality = m->fit_quality;
}

/*
 * The measurement image whole, or in bands of rows. On a large image (more
 * than BAND_MIN_PIXELS) the float measurement image is made one band of
 * the centres' rows at a time, with the rows above and below that the
 * blur, the top-hat and a measurement's rays reach (margin), so no
 * full-size float image exists: on a 100 MP image it was 400 MB of the
 * job's 534. A centre in a band is measured on the band's image in the
 * band's coordinates, which read the same samples as the whole image's
 * (the last bits of a ray's position aside: translated coordinates round
 * differently). A rule runs its passes over every centre through visit;
 * between passes, between() sees the results so far.
 */
static int band_rows_forced; /* tests: bands of this many rows on any image */

void fs_measure_centres_set_band_rows(int rows)
{
	band_rows_forced = rows > 0 ? rows : 0;
}

typedef void (*visit_fn)(const fs_image *meas, double x, double y, size_t i, int pass, void *ctx);

static int cmp_by_y(const void *a, const void *b, void *arg)
{
	const fs_tubercle_list *t = arg;
	double ya = t->items[*(const size_t *)a].centroid_y, yb = t->items[*(const size_t *)b].centroid_y;
	return (ya > yb) - (ya < yb);
}

/* The measurement image of rows [a, b) of img reduced by F (block means,
 * fs_downsample: rows [a F, b F) of img, cropped in img's own storage, so
 * a compact band is not made floats at full resolution; F 1: img's own
 * rows). */
static int band_image(const fs_image *img, int F, const fs_params *p, double sigma, int a, int b,
		      fs_image **out, char *err, size_t errlen)
{
	fs_image *crop;
	if (F > 1) {
		int y0 = a * F, y1 = b * F > img->height ? img->height : b * F;
		char cerr[128];
		fs_image *rows = fs_image_crop(img, (fs_rect){0, y0, img->width, y1 - y0}, NULL, cerr, sizeof cerr);
		crop = rows ? fs_downsample(rows, F) : NULL;
		fs_image_free(rows);
	} else {
		crop = fs_image_region_float(img, 0, a, img->width, b - a);
	}
	if (!crop) {
		snprintf(err, errlen, "measure: out of memory");
		return -1;
	}
	int rc = fs_detect_measure_image(crop, p, sigma, out, err, errlen);
	fs_image_free(crop);
	return rc;
}

/* A full-resolution coordinate on the image reduced by F: detection's
 * (detect_measure.c, "pixel centres"). */
static double reduced(double v, int F)
{
	return (v + 0.5) / F - 0.5;
}

/* Runs npass passes of visit over every centre of t (between(pass, ctx)
 * after each but the last; may be NULL) on the measurement image of img
 * reduced by F (detection's reduction of large pitches, detect.c; 1 =
 * none), whose pixels visit gets; p, sigma and reach (how far from a
 * centre a measurement reads) are in the reduced image's pixels. */
static int run_passes(const fs_image *img, int F, const fs_params *p, double sigma, double reach,
		      const fs_tubercle_list *t, int npass, visit_fn visit, void (*between)(int pass, void *ctx),
		      void *ctx, char *err, size_t errlen)
{
	int w = (img->width + F - 1) / F, h = (img->height + F - 1) / F;
	int rows = band_rows_forced ? band_rows_forced : FS_MEASURE_BAND_ROWS;
	int banded = band_rows_forced || (long long)w * h > FS_MEASURE_BAND_MIN_PIXELS;
	if (!banded || h <= rows) {
		fs_image *meas = NULL, *small = F > 1 ? fs_downsample(img, F) : NULL;
		if (F > 1 && !small) {
			snprintf(err, errlen, "measure: out of memory");
			return -1;
		}
		int rc = fs_detect_measure_image(small ? small : img, p, sigma, &meas, err, errlen);
		fs_image_free(small);
		if (rc)
			return -1;
		for (int pass = 0; pass < npass; pass++) {
			for (size_t i = 0; i < t->n; i++)
				visit(meas, reduced(t->items[i].centroid_x, F), reduced(t->items[i].centroid_y, F), i,
				      pass, ctx);
			if (between && pass + 1 < npass)
				between(pass, ctx);
		}
		fs_image_free(meas);
		return 0;
	}
	/* the blur's kernel, the top-hat's opening (twice its radius) and the
	 * rays, from a centre the measurement may move as far again */
	int margin = fs_gaussian_radius(sigma) + 2 * (p->tophat_radius > 0 ? p->tophat_radius : 0) +
		     (int)ceil(2 * reach) + 4;
	size_t *order = malloc((t->n ? t->n : 1) * sizeof *order);
	if (!order) {
		snprintf(err, errlen, "measure: out of memory");
		return -1;
	}
	for (size_t i = 0; i < t->n; i++)
		order[i] = i;
	qsort_r(order, t->n, sizeof *order, cmp_by_y, (void *)t);
	int rc = 0;
	for (int pass = 0; pass < npass && !rc; pass++) {
		size_t k = 0;
		for (int y0 = 0; y0 < h && k < t->n && !rc; y0 += rows) {
			/* the centres whose row is in [y0, y0 + rows); those above
			 * the image go with the first band, below it with the last */
			size_t k1 = k;
			while (k1 < t->n && (y0 + rows >= h || reduced(t->items[order[k1]].centroid_y, F) < y0 + rows))
				k1++;
			if (k1 == k)
				continue;
			int a = y0 - margin < 0 ? 0 : y0 - margin;
			int b = y0 + rows + margin > h ? h : y0 + rows + margin;
			fs_image *meas = NULL;
			if (band_image(img, F, p, sigma, a, b, &meas, err, errlen)) {
				rc = -1;
				break;
			}
			for (; k < k1; k++) {
				const fs_tubercle *c = &t->items[order[k]];
				visit(meas, reduced(c->centroid_x, F), reduced(c->centroid_y, F) - a, order[k], pass, ctx);
			}
			fs_image_free(meas);
		}
		if (!rc && between && pass + 1 < npass)
			between(pass, ctx);
	}
	free(order);
	return rc;
}

/* The outline rule: one pass, each centre's outline on the measurement
 * image detection measures on (F: its reduction). */
struct outline_run {
	fs_tubercle_list *t;
	double max_r;
	int F;
};

static void outline_visit(const fs_image *meas, double x, double y, size_t i, int pass, void *vctx)
{
	(void)pass;
	struct outline_run *o = vctx;
	fs_tubercle *c = &o->t->items[i], m;
	fs_tubercle_init(&m);
	if (fs_blob_measure(meas, x, y, o->max_r, &m) == 0 && fs_tubercle_measured(&m)) {
		/* to full-resolution pixels as detection scales them */
		m.radius_px *= o->F;
		m.major_axis_px *= o->F;
		m.minor_axis_px *= o->F;
		take_size(c, &m);
	} else {
		set_unmeasured(c);
	}
}

/* rmin, rmax: the radii the parameters expect, for when there is no pitch */
static int outline_rule(const fs_image *img, const fs_params *p, double pitch, double rmin, double rmax,
			fs_tubercle_list *t, char *err, size_t errlen)
{
	/* detection's blur: 3 % of the pitch, else 5 % of the mean expected
	 * diameter; a pitch of 60 px and more measured at 1 / (pitch / 30) of
	 * the resolution, the blur made up to the same (detect.c) */
	double msig = pitch > 0 ? 0.03 * pitch : 0.05 * (rmin + rmax);
	int F = pitch >= 60 ? (int)(pitch / 30) : 1;
	fs_params pm = *p;
	if (F > 1) {
		pm.tophat_radius = p->tophat_radius > 0 ? (p->tophat_radius + F - 1) / F : 0;
		double s2 = msig * msig - F * F / 12.0;
		msig = s2 > 0 ? sqrt(s2) / F : 0;
	}
	struct outline_run o = {t, (pitch > 0 ? 0.6 * pitch : 2 * rmax) / F, F};
	return run_passes(img, F, &pm, msig, o.max_r, t, 1, outline_visit, NULL, &o, err, errlen);
}

/*
 * The dome rule: the extraction's own sizing of domes whose centres are
 * final (fs_det_measure_domes_at, detect_measure.h: the ray smoothing,
 * each base, flat ground, the formation fitted at the centres, each
 * dome's size from the template fit at the base rule's level read from
 * the centres), at full resolution with detection's little smoothing,
 * rays up to 0.6 pitch (twice the largest expected radius without a
 * pitch), on the whole measurement image or, as detection measures an
 * image of more than four tiles, tile by tile (detect_domes_tiled.h; the
 * forced bands of the tests: tiles of that side). So re-measuring a fresh
 * dome-rule extraction gives back its sizes (test_remeasure_fresh), and a
 * centre the user placed is sized as the extraction would size a dome
 * there. What the rule cannot size stays unmeasured (radius NaN), its fit
 * quality saying why (fs_det_size_domes_list).
 */
static int dome_rule(const fs_image *img, const fs_params *p, double pitch, double rmax, int given,
		     fs_tubercle_list *t, char *err, size_t errlen)
{
	double mr = pitch > 0 ? 0.6 * pitch : 2 * rmax;
	double msig = pitch >= 40 ? 1.0 : 0.5;
	int tile = 0, threads = 1;
	fs_detect_get_tiling(&tile, &threads);
	if (band_rows_forced)
		tile = band_rows_forced;
	int tiled = band_rows_forced || (tile > 0 && (double)img->width * img->height > 4.0 * tile * tile);
	fs_image *fimg = NULL, *meas = NULL;
	int rc = -1;
	if (!tiled) {
		const fs_image *whole = img;
		if (img->bits && !(whole = fimg = fs_image_to_float(img))) {
			snprintf(err, errlen, "measure: out of memory");
			goto out;
		}
		if (fs_detect_measure_image(whole, p, msig, &meas, err, errlen))
			goto out;
	}
	fs_meas m = {.img = meas, .f = 1, .width = img->width, .height = img->height, .dome = 1, .src = img,
		     .mp = p, .sigma = msig, .tile = tiled ? tile : 0, .threads = threads, .given = given};
	rc = fs_det_size_domes_list(&m, mr, t, err, errlen);
out:
	fs_image_free(meas);
	fs_image_free(fimg);
	return rc;
}

int fs_measure_centres(const fs_image *img, const fs_params *p, double um_per_px, fs_tubercle_list *t, char *err,
		       size_t errlen)
{
	return fs_measure_centres_rule(img, p, um_per_px, fs_measurement_get_rule(), t, err, errlen);
}

static int measure(const fs_image *img, const fs_params *p, double um_per_px, fs_measurement_rule rule, int given,
		   fs_tubercle_list *t, char *err, size_t errlen);

int fs_measure_centres_rule(const fs_image *img, const fs_params *p, double um_per_px, fs_measurement_rule rule,
			    fs_tubercle_list *t, char *err, size_t errlen)
{
	return measure(img, p, um_per_px, rule, 1, t, err, errlen);
}

int fs_measure_centres_detected(const fs_image *img, const fs_params *p, double um_per_px, fs_measurement_rule rule,
				fs_tubercle_list *t, char *err, size_t errlen)
{
	return measure(img, p, um_per_px, rule, 2, t, err, errlen);
}

double fs_measure_centres_pitch(double lattice_pitch, const fs_tubercle_list *t)
{
	double nn = median_nn(t);
	/* a lattice estimate far from the centres' spacing belongs to
	 * something else (texture, a sub-lattice): the centres decide */
	return nn > 0 && !(lattice_pitch > 0.6 * nn && lattice_pitch < 1.6 * nn) ? nn : lattice_pitch;
}

/* given: fs_meas.given for the dome rule (detect_measure.h) */
static int measure(const fs_image *img, const fs_params *p, double um_per_px, fs_measurement_rule rule, int given,
		   fs_tubercle_list *t, char *err, size_t errlen)
{
	/* compact or float (image.h): the rules read only the measurement
	 * image made from it, and the lattice estimate reads either */
	if (!img || !(img->data || img->px) || img->width < 1 || img->height < 1) {
		snprintf(err, errlen, "measure: no image");
		return -1;
	}
	if (!fs_measurement_rule_name(rule)) {
		snprintf(err, errlen, "measure: no measurement rule %d", (int)rule);
		return -1;
	}
	if (!t->n)
		return 0;
	/* the pitch as detection finds it; the centres' own spacing when the
	 * image shows no lattice */
	double pitch = 0;
	if (img->width >= 32 && img->height >= 32) {
		fs_lattice lat = {0};
		char e2[128];
		if (fs_lattice_estimate(img, &lat, e2, sizeof e2) == 0)
			pitch = lat.pitch_px;
	}
	pitch = fs_measure_centres_pitch(pitch, t);
	double rmin = 0, rmax = 0;
	if (!(pitch > 0))
		fs_det_radius_range(p, um_per_px > 0 ? um_per_px : 1, &rmin, &rmax);
	return rule == FS_RULE_DOME ? dome_rule(img, p, pitch, rmax, given, t, err, errlen)
				    : outline_rule(img, p, pitch, rmin, rmax, t, err, errlen);
}

int fs_measure_centres_in_region(const fs_image *img, const fs_params *p, double um_per_px,
				 fs_measurement_rule rule, const fs_scale_region *region, fs_tubercle_list *t,
				 size_t *outside, char *err, size_t errlen)
{
	if (outside)
		*outside = 0;
	if (!img || !(img->data || img->px) || img->width < 1 || img->height < 1) {
		snprintf(err, errlen, "measure: no image");
		return -1;
	}
	fs_scale_region own;
	memset(&own, 0, sizeof own);
	if (!region) {
		if (fs_scale_region_detect(img, &own, err, errlen))
			return -1;
		region = &own;
	} else if (region->in && (region->width != img->width || region->height != img->height)) {
		snprintf(err, errlen, "measure: the scale region is %dx%d, the image %dx%d", region->width,
			 region->height, img->width, img->height);
		return -1;
	}
	/* the centres inside, measured on their own (their positions in t
	 * kept in at[]) */
	fs_tubercle_list in = {0};
	size_t *at = malloc((t->n ? t->n : 1) * sizeof *at), n_out = 0;
	int rc = -1;
	if (!at) {
		snprintf(err, errlen, "measure: out of memory");
		goto out;
	}
	for (size_t i = 0; i < t->n; i++) {
		if (fs_scale_region_contains(region, t->items[i].centroid_x, t->items[i].centroid_y)) {
			at[in.n] = i;
			if (fs_tubercle_list_append(&in, &t->items[i])) {
				snprintf(err, errlen, "measure: out of memory");
				goto out;
			}
		} else {
			set_unmeasured(&t->items[i]);
			n_out++;
		}
	}
	if (fs_measure_centres_rule(img, p, um_per_px, rule, &in, err, errlen))
		goto out;
	for (size_t k = 0; k < in.n; k++)
		take_size(&t->items[at[k]], &in.items[k]);
	if (outside)
		*outside = n_out;
	rc = 0;
out:
	free(at);
	fs_tubercle_list_free(&in);
	fs_scale_region_free(&own);
	return rc;
}
