/*
 * detect_region.c - detection with the selected measurement rule
 * (measurement.h) restricted to the scale region (see detect.h): runs the
 * whole detection (detect.c) with the rule's measurement, which drops
 * what lies outside the region once its centres are final and before the
 * dome rule sizes the rest (fs_region_src). A step of its own after the
 * centres, so the methods need not know about regions; dropping after
 * detection rather than masking the image keeps every method's
 * preprocessing and lattice estimate as they are.
 */
#include "analysis/detect.h"
#include "analysis/detect_methods.h"
#include "analysis/measurement.h"
#include "base/clock.h"

#include <stdio.h>
#include <string.h>

int fs_detect_rule_region(const fs_image *img, const fs_params *p, double um_per_px, fs_measurement_rule rule,
			  const fs_region_src *src, fs_detect_result *out, char *err, size_t errlen)
{
	switch (rule) {
	case FS_RULE_OUTLINE:
		return fs_det_detect(img, p, um_per_px, 0, src, out, err, errlen);
	case FS_RULE_DOME:
		return fs_det_detect(img, p, um_per_px, 1, src, out, err, errlen);
	}
	if (out)
		memset(out, 0, sizeof *out);
	snprintf(err, errlen, "detect: no measurement rule %d", (int)rule);
	return -1;
}

int fs_detect_rule_all(const fs_image *img, const fs_params *p, double um_per_px, fs_measurement_rule rule,
		       fs_detect_result *out, char *err, size_t errlen)
{
	return fs_detect_rule_region(img, p, um_per_px, rule, NULL, out, err, errlen);
}

/* fs_detect_rule_in_region's source: the caller's region, checked, or the
 * automatic one found when detection asks for it. */
struct in_region {
	const fs_image *img;
	const fs_scale_region *given;
	fs_scale_region own;
	double ms; /* time to find the automatic region */
};

static int in_region_get(void *vctx, const fs_scale_region **region, char *err, size_t errlen)
{
	struct in_region *c = vctx;
	const fs_scale_region *r = c->given;
	if (!r) {
		double t0 = 1e3 * fs_mono_s();
		if (fs_scale_region_detect(c->img, &c->own, err, errlen))
			return -1;
		c->ms = 1e3 * fs_mono_s() - t0;
		r = &c->own;
	} else if (r->in && (r->width != c->img->width || r->height != c->img->height)) {
		snprintf(err, errlen, "detect: the scale region is %dx%d, the image %dx%d", r->width, r->height,
			 c->img->width, c->img->height);
		return -1;
	}
	*region = r;
	return 0;
}

int fs_detect_rule_in_region(const fs_image *img, const fs_params *p, double um_per_px, fs_measurement_rule rule,
			     const fs_scale_region *region, fs_detect_result *out, char *err, size_t errlen)
{
	struct in_region c = {.img = img, .given = region};
	fs_region_src src = {in_region_get, &c};
	int rc = fs_detect_rule_region(img, p, um_per_px, rule, &src, out, err, errlen);
	if (!rc)
		out->ms_region = c.ms;
	fs_scale_region_free(&c.own);
	return rc;
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
