/*
 * measure_centres.c - measuring given centres with the current measurement
 * (see measurement.h), for Re-measure: detection's measurement set-up
 * (detect.c) without the detection.
 */
#include "analysis/measurement.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/blob_measure.h"
#include "analysis/detect_candidates.h"
#include "analysis/detect_methods.h"
#include "analysis/lattice_estimate.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median nearest-neighbour distance of the centres (0 below two). The
 * quadratic scan is fine next to the measurement's cost per tubercle. */
static double median_nn(const fs_tubercle_list *t)
{
	if (t->n < 2)
		return 0;
	double *d = malloc(t->n * sizeof *d);
	if (!d)
		return 0;
	for (size_t i = 0; i < t->n; i++) {
		double best = INFINITY;
		for (size_t j = 0; j < t->n; j++)
			if (j != i)
				best = fmin(best, hypot(t->items[i].centroid_x - t->items[j].centroid_x,
							t->items[i].centroid_y - t->items[j].centroid_y));
		d[i] = best;
	}
	qsort(d, t->n, sizeof *d, cmp_double);
	double m = d[t->n / 2];
	free(d);
	return isfinite(m) ? m : 0;
}

int fs_measure_centres(const fs_image *img, const fs_params *p, double um_per_px, fs_tubercle_list *t, char *err,
		       size_t errlen)
{
	if (!img || !img->data || img->width < 1 || img->height < 1) {
		snprintf(err, errlen, "measure: no image");
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
	double msig, max_r;
	if (pitch > 0) {
		msig = 0.03 * pitch;
		max_r = 0.6 * pitch;
	} else {
		double rmin, rmax;
		fs_det_radius_range(p, um_per_px > 0 ? um_per_px : 1, &rmin, &rmax);
		msig = 0.05 * (rmin + rmax);
		max_r = 2 * rmax;
	}
	fs_image *meas = NULL;
	if (fs_detect_measure_image(img, p, msig, &meas, err, errlen))
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		fs_tubercle *x = &t->items[i], m;
		fs_tubercle_init(&m);
		if (fs_blob_measure(meas, x->centroid_x, x->centroid_y, max_r, &m) == 0 &&
		    fs_tubercle_measured(&m)) {
			/* the size and shape of the measurement, at the centre as it is */
			x->radius_px = m.radius_px;
			x->circularity = m.circularity;
			x->has_ellipse = m.has_ellipse;
			x->major_axis_px = m.major_axis_px;
			x->minor_axis_px = m.minor_axis_px;
			x->orientation = m.orientation;
			x->eccentricity = m.eccentricity;
			x->fit_quality = m.fit_quality;
		} else {
			x->radius_px = NAN;
			x->has_ellipse = 0;
			x->major_axis_px = x->minor_axis_px = x->orientation = x->eccentricity = 0;
			x->fit_quality = NAN;
		}
	}
	fs_image_free(meas);
	return 0;
}
