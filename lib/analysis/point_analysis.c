/*
 * point_analysis.c - the editor's auto-size (fs_analyze_point, detect.h):
 * the blob under a click, measured from its own profile.
 *
 * The region is a square of region_factor x the largest diameter around the
 * click. It is smoothed at a quarter of the largest radius so the tubercle
 * is one maximum; the maximum nearest the click (within the largest radius)
 * is measured with fs_blob_measure on the lightly smoothed region. Under
 * the dome rule (measurement.h) its size is then the dome's base, measured
 * as detection measures it (fs_dome_measure on the region smoothed by
 * 0.5 px, the base radius within the parameters' diameter range), so a
 * tubercle added by hand to a set of that rule is measured alike.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/blob_measure.h"
#include "analysis/detect.h"
#include "analysis/detect_methods.h"
#include "analysis/dome_measure.h"
#include "analysis/measurement.h"
#include "analysis/preprocess.h"

int fs_analyze_point(const fs_image *img, const fs_params *p, double um_per_px, double x, double y,
		     double region_factor, fs_point_result *out, char *err, size_t errlen)
{
	int rc = -1;
	fs_image *reg = NULL, *sm = NULL, *raw = NULL;
	fs_cand_list c = {0};
	if (!out) {
		snprintf(err, errlen, "analyze point: no result");
		return -1;
	}
	memset(out, 0, sizeof *out);
	if (!img || !p || !(um_per_px > 0) || !isfinite(x) || !isfinite(y) ||
	    !(region_factor >= 1 && region_factor <= 20)) {
		snprintf(err, errlen, "analyze point: need an image, parameters, um_per_px > 0 and "
				      "region_factor in [1, 20]");
		return -1;
	}
	if (x < 0 || y < 0 || x > img->width - 1 || y > img->height - 1) {
		snprintf(err, errlen, "analyze point: (%.1f, %.1f) is outside the image", x, y);
		return -1;
	}
	double dmax = p->max_diameter_um / um_per_px;
	int side = (int)lround(region_factor * dmax);
	if (side < 16)
		side = 16;
	int x0 = (int)floor(x - side / 2.0), y0 = (int)floor(y - side / 2.0);
	int x1 = x0 + side, y1 = y0 + side;
	x0 = x0 < 0 ? 0 : x0;
	y0 = y0 < 0 ? 0 : y0;
	x1 = x1 > img->width ? img->width : x1;
	y1 = y1 > img->height ? img->height : y1;
	out->region_x = x0;
	out->region_y = y0;
	out->region_w = x1 - x0;
	out->region_h = y1 - y0;
	/* the region's floats, from either storage (an agent session keeps a
	 * large image compact) */
	reg = fs_image_region_float(img, x0, y0, x1 - x0, y1 - y0);
	if (!reg) {
		snprintf(err, errlen, "analyze point: out of memory");
		goto out;
	}
	if (fs_measurement_get_rule() == FS_RULE_DOME &&
	    (!(raw = fs_image_clone(reg)) || fs_gaussian_blur(raw, 0.5, err, errlen))) {
		if (!raw)
			snprintf(err, errlen, "analyze point: out of memory");
		goto out;
	}
	if (fs_gaussian_blur(reg, p->blur_sigma, err, errlen))
		goto out;
	fs_normalize(reg);
	sm = fs_image_clone(reg);
	if (!sm) {
		snprintf(err, errlen, "analyze point: out of memory");
		goto out;
	}
	double rmax = dmax / 2;
	if (fs_gaussian_blur(sm, fmax(0.5, rmax / 4), err, errlen))
		goto out;
	if (fs_det_peaks(sm, 0, fmax(1, rmax / 2), &c)) {
		snprintf(err, errlen, "analyze point: out of memory");
		goto out;
	}
	double lx = x - x0, ly = y - y0, bd = rmax;
	long bi = -1;
	for (size_t i = 0; i < c.n; i++) {
		double d = hypot(c.items[i].x - lx, c.items[i].y - ly);
		if (d <= bd) {
			bd = d;
			bi = (long)i;
		}
	}
	rc = 0;
	if (bi < 0) {
		snprintf(out->reason, sizeof out->reason, "click_not_on_blob");
		goto out;
	}
	fs_tubercle t = {0};
	if (fs_blob_measure(reg, c.items[bi].x, c.items[bi].y, fmax(2, 1.2 * rmax), &t)) {
		snprintf(out->reason, sizeof out->reason, "no_edge_found");
		goto out;
	}
	if (hypot(t.centroid_x - lx, t.centroid_y - ly) > 1.5 * t.radius_px + 1) {
		snprintf(out->reason, sizeof out->reason, "click_not_on_blob");
		goto out;
	}
	if (raw) {
		/* the dome rule: the base around the click (the bright blob's
		 * centre lies towards a side detector, where the base reads
		 * small), or unmeasured */
		fs_tubercle d;
		fs_tubercle_init(&d);
		double rmin = fmax(1, p->min_diameter_um / um_per_px / 2);
		if (fs_dome_measure(raw, lx, ly, rmin, fmax(rmin + 1, rmax), 0, &d) == 0 &&
		    d.fit_quality >= FS_DOME_NO_DOME_QUALITY && fs_tubercle_measured(&d)) {
			t = d;
		} else {
			fs_tubercle_set_unmeasured(&t);
			t.fit_quality = d.fit_quality;
		}
	}
	t.centroid_x += x0;
	t.centroid_y += y0;
	t.source = FS_SOURCE_MANUAL;
	out->tubercle = t;
	out->found = 1;
out:
	fs_image_free(reg);
	fs_image_free(sm);
	fs_image_free(raw);
	fs_cand_free(&c);
	return rc;
}
