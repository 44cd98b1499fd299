/*
 * measure_centres.c - measuring given centres with a measurement rule
 * (see measurement.h), for Re-measure: detection's measurement set-up
 * (detect.c, detect_measure.c) without the detection, for either rule.
 */
#include "analysis/measurement.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/blob_measure.h"
#include "analysis/detect_candidates.h"
#include "analysis/detect_methods.h"
#include "analysis/dome_measure.h"
#include "analysis/lattice_estimate.h"
#include "analysis/near_pairs.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

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
	qsort(d, t->n, sizeof *d, cmp_double);
	m = d[t->n / 2];
out:
	fs_near_index_free(&ix);
	free(d);
	free(xs);
	free(ys);
	return isfinite(m) ? m : 0;
}

static void set_unmeasured(fs_tubercle *x)
{
	x->radius_px = NAN;
	x->has_ellipse = 0;
	x->major_axis_px = x->minor_axis_px = x->orientation = x->eccentricity = 0;
	x->fit_quality = NAN;
}

/* The size and shape of a measurement m, at the centre x as it is: the
 * centre (the user's, or an earlier detection's) is never moved. */
static void take_size(fs_tubercle *x, const fs_tubercle *m)
{
	x->radius_px = m->radius_px;
	x->circularity = m->circularity;
	x->has_ellipse = m->has_ellipse;
	x->major_axis_px = m->major_axis_px;
	x->minor_axis_px = m->minor_axis_px;
	x->orientation = m->orientation;
	x->eccentricity = m->eccentricity;
	x->fit_quality = m->fit_quality;
}

/* rmin, rmax: the radii the parameters expect, for when there is no pitch */
static int outline_rule(const fs_image *img, const fs_params *p, double pitch, double rmin, double rmax,
			fs_tubercle_list *t, char *err, size_t errlen)
{
	/* detection's blur: 3 % of the pitch, else 5 % of the mean expected
	 * diameter */
	double msig = pitch > 0 ? 0.03 * pitch : 0.05 * (rmin + rmax);
	double max_r = pitch > 0 ? 0.6 * pitch : 2 * rmax;
	fs_image *meas = NULL;
	if (fs_detect_measure_image(img, p, msig, &meas, err, errlen))
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		fs_tubercle *x = &t->items[i], m;
		fs_tubercle_init(&m);
		if (fs_blob_measure(meas, x->centroid_x, x->centroid_y, max_r, &m) == 0 && fs_tubercle_measured(&m)) {
			take_size(x, &m);
		} else {
			set_unmeasured(x);
		}
	}
	fs_image_free(meas);
	return 0;
}

/* The dome rule's ray smoothing for this image, chosen as detection
 * chooses it (detect_measure.h): the least of 0, 1.2 and 2.2 px whose mean
 * fit quality over the first 48 centres of t is within 0.03 of the best. */
static double dome_smoothing(const fs_image *meas, const fs_tubercle_list *t, double r0, double r1)
{
	static const double sm[3] = {0, 1.2, 2.2};
	size_t n = t->n < 48 ? t->n : 48;
	double q[3] = {0};
	for (int k = 0; k < 3; k++) {
		for (size_t i = 0; i < n; i++) {
			fs_tubercle m;
			fs_tubercle_init(&m);
			if (fs_dome_measure(meas, t->items[i].centroid_x, t->items[i].centroid_y, r0, r1, sm[k], &m) ==
				    0 &&
			    isfinite(m.fit_quality))
				q[k] += m.fit_quality;
		}
		q[k] /= n;
	}
	double best = fmax(q[0], fmax(q[1], q[2]));
	for (int k = 0; k < 3; k++)
		if (q[k] >= best - 0.03)
			return sm[k];
	return 0;
}

/* Below FS_DOME_FLAT_SPREAD of the centres' median spread a centre shows
 * no dome: the base rule's fit quality tests how consistently the rays'
 * steps lie on a circle, which the steps of noise on flat ground can do
 * too (0.5-0.9 on a flat dark band of the synthetic lattice,
 * test_measure_centres); detection drops such points by the same measure
 * (fs_det_drop_flat_ground) and the agents' evidence refuses them (0.2,
 * agent_evidence.c). */
#define DOME_MIN_SPREAD FS_DOME_FLAT_SPREAD

static int dome_rule(const fs_image *img, const fs_params *p, double pitch, double rmax, fs_tubercle_list *t,
		     char *err, size_t errlen)
{
	/* detection's dome measurement: full resolution, little smoothing
	 * (detect.c), base radius within 0.15-0.8 of 0.6 pitch (of twice
	 * the largest expected radius without a pitch, as detection's
	 * methods without a lattice measure a candidate) */
	double mr = pitch > 0 ? 0.6 * pitch : 2 * rmax;
	double r0 = 0.15 * mr, r1 = 0.8 * mr;
	/* At the set's centre as it is. A centre off the dome's (the
	 * outline rule's, which a side detector pulls 0.1 pitch towards it)
	 * reads the base small: on the SEM simulator 11.4 px for a true 16.0
	 * (15.75 from the true centres). Neither the base rule's own circle
	 * fit nor centre_refine.h brings such a centre back (the latter reads
	 * 6.4 px there), so Re-measure does not pretend to: the numbers are in
	 * README "Measurement rule". */
	fs_image *meas = NULL;
	if (fs_detect_measure_image(img, p, pitch >= 40 ? 1.0 : 0.5, &meas, err, errlen))
		return -1;
	double smooth = dome_smoothing(meas, t, r0, r1);
	/* the centres' spreads over a disc of the largest base (r1), and
	 * their median: what a dome of this image shows */
	double *sp = malloc(t->n * sizeof *sp), *sorted = malloc(t->n * sizeof *sorted);
	if (!sp || !sorted) {
		free(sp);
		free(sorted);
		fs_image_free(meas);
		snprintf(err, errlen, "measure: out of memory");
		return -1;
	}
	for (size_t i = 0; i < t->n; i++)
		sorted[i] = sp[i] = fs_image_disc_spread(meas, t->items[i].centroid_x, t->items[i].centroid_y, r1);
	qsort(sorted, t->n, sizeof *sorted, cmp_double);
	double sp_med = sorted[t->n / 2];
	free(sorted);
	for (size_t i = 0; i < t->n; i++) {
		fs_tubercle *x = &t->items[i], m;
		fs_tubercle_init(&m);
		if (sp[i] >= DOME_MIN_SPREAD * sp_med &&
		    fs_dome_measure(meas, x->centroid_x, x->centroid_y, r0, r1, smooth, &m) == 0 &&
		    m.fit_quality >= FS_DOME_NO_DOME_QUALITY && fs_tubercle_measured(&m)) {
			take_size(x, &m);
		} else {
			double q = m.fit_quality;
			set_unmeasured(x);
			x->fit_quality = q; /* says how far from measurable it was */
		}
	}
	free(sp);
	fs_image_free(meas);
	return 0;
}

int fs_measure_centres(const fs_image *img, const fs_params *p, double um_per_px, fs_tubercle_list *t, char *err,
		       size_t errlen)
{
	return fs_measure_centres_rule(img, p, um_per_px, fs_measurement_get_rule(), t, err, errlen);
}

int fs_measure_centres_rule(const fs_image *img, const fs_params *p, double um_per_px, fs_measurement_rule rule,
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
	double nn = median_nn(t);
	/* a lattice estimate far from the centres' spacing belongs to
	 * something else (texture, a sub-lattice): the centres decide */
	if (nn > 0 && !(pitch > 0.6 * nn && pitch < 1.6 * nn))
		pitch = nn;
	double rmin = 0, rmax = 0;
	if (!(pitch > 0))
		fs_det_radius_range(p, um_per_px > 0 ? um_per_px : 1, &rmin, &rmax);
	return rule == FS_RULE_DOME ? dome_rule(img, p, pitch, rmax, t, err, errlen)
				    : outline_rule(img, p, pitch, rmin, rmax, t, err, errlen);
}
