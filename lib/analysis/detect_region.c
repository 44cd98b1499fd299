/*
 * detect_region.c - detection with the selected measurement rule
 * (measurement.h) restricted to the scale region (see detect.h): runs the
 * whole detection (detect.c) with the rule's measurement and drops what
 * lies outside the region. A step of its own after the measurement, so the
 * methods and the measurement need not know about regions; dropping after
 * detection rather than masking the image keeps every method's
 * preprocessing and lattice estimate as they are.
 */
#include "analysis/detect.h"
#include "analysis/measurement.h"
#include "base/clock.h"

#include <stdio.h>
#include <string.h>

int fs_detect_rule_all(const fs_image *img, const fs_params *p, double um_per_px, fs_measurement_rule rule,
		       fs_detect_result *out, char *err, size_t errlen)
{
	switch (rule) {
	case FS_RULE_OUTLINE:
		return fs_detect_all(img, p, um_per_px, out, err, errlen);
	case FS_RULE_DOME:
		return fs_detect_domes(img, p, um_per_px, out, err, errlen);
	}
	if (out)
		memset(out, 0, sizeof *out);
	snprintf(err, errlen, "detect: no measurement rule %d", (int)rule);
	return -1;
}

int fs_detect_rule_in_region(const fs_image *img, const fs_params *p, double um_per_px, fs_measurement_rule rule,
			     const fs_scale_region *region, fs_detect_result *out, char *err, size_t errlen)
{
	if (fs_detect_rule_all(img, p, um_per_px, rule, out, err, errlen))
		return -1;
	fs_scale_region own;
	memset(&own, 0, sizeof own);
	if (!region) {
		double t0 = 1e3 * fs_mono_s();
		if (fs_scale_region_detect(img, &own, err, errlen)) {
			fs_detect_result_free(out);
			return -1;
		}
		out->ms_region = 1e3 * fs_mono_s() - t0;
		region = &own;
	} else if (region->in && (region->width != img->width || region->height != img->height)) {
		snprintf(err, errlen, "detect: the scale region is %dx%d, the image %dx%d", region->width,
			 region->height, img->width, img->height);
		fs_detect_result_free(out);
		return -1;
	}
	int rc = fs_detect_region_drop(img, p, um_per_px, rule, region, out, err, errlen);
	fs_scale_region_free(&own);
	return rc;
}

int fs_detect_region_drop(const fs_image *img, const fs_params *p, double um_per_px, fs_measurement_rule rule,
			  const fs_scale_region *region, fs_detect_result *out, char *err, size_t errlen)
{
	out->n_outside_region = fs_scale_region_filter(region, &out->tubercles);
	/* The dome rule sizes at the final centres all at once (the
	 * formation and the level are the image's domes', detect.c): once
	 * some are dropped, the rest are sized again as Re-measure sizes
	 * them, so that Re-measure gives back these sizes. */
	if (rule == FS_RULE_DOME && out->n_outside_region > 0 &&
	    fs_measure_centres_detected(img, p, um_per_px, rule, &out->tubercles, err, errlen)) {
		fs_detect_result_free(out);
		return -1;
	}
	return 0;
}

int fs_detect_in_region(const fs_image *img, const fs_params *p, double um_per_px, const fs_scale_region *region,
			fs_detect_result *out, char *err, size_t errlen)
{
	return fs_detect_rule_in_region(img, p, um_per_px, fs_measurement_get_rule(), region, out, err, errlen);
}

int fs_detect(const fs_image *img, const fs_params *p, double um_per_px, fs_detect_result *out, char *err,
	      size_t errlen)
{
	return fs_detect_in_region(img, p, um_per_px, NULL, out, err, errlen);
}

int fs_detect_outline(const fs_image *img, const fs_params *p, double um_per_px, fs_detect_result *out, char *err,
		      size_t errlen)
{
	return fs_detect_rule_in_region(img, p, um_per_px, FS_RULE_OUTLINE, NULL, out, err, errlen);
}
