/*
 * detect_auto.c - method "auto" (the default): detection at the scale of the
 * lattice estimated from the image, so no calibration guess is involved.
 *
 * With the pitch a known, tubercles have diameters between about 0.3 a and
 * 0.75 a, so one smoothing at sigma 0.15 a (a matched filter for that whole
 * range) makes every tubercle a single maximum; maxima closer than a / 2 are
 * one tubercle. Candidates are kept by prominence (peak minus the lowest
 * value within 0.6 a), relative to the strong ones (30 % of the 90th
 * percentile), which rejects noise and the flat dark surroundings of a
 * scale without an absolute threshold. Diameters come from fs_blob_measure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "detect_internal.h"
#include "preprocess.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Smoothed response, prominent peaks. Shared with the lattice method. */
int fs_detect_auto_candidates(const fs_image *pre, int f, const fs_params *p, double pitch,
			      fs_cand_list *keep, fs_image **resp_out, char *err, size_t errlen)
{
	double full_pitch = pitch;
	pitch /= f;
	int rc = -1;
	fs_cand_list c = {0};
	double *pr = NULL;
	fs_image *resp = fs_image_clone(pre);
	if (!resp) {
		snprintf(err, errlen, "auto: out of memory");
		goto out;
	}
	if (fs_gaussian_blur(resp, 0.15 * pitch, err, errlen))
		goto out;
	if (fs_det_peaks(resp, 0, 0.5 * pitch, &c)) {
		snprintf(err, errlen, "auto: out of memory");
		goto out;
	}
	fs_det_prominence(resp, &c, 0.6 * pitch);
	if (c.n) {
		pr = malloc(c.n * sizeof *pr);
		if (!pr) {
			snprintf(err, errlen, "auto: out of memory");
			goto out;
		}
		for (size_t i = 0; i < c.n; i++)
			pr[i] = c.items[i].response;
		qsort(pr, c.n, sizeof *pr, cmp_double);
		double p90 = pr[(size_t)(0.9 * (c.n - 1))];
		double lim = fmax(0.3 * p90, 0.2 * p->threshold);
		for (size_t i = 0; i < c.n; i++) {
			if (c.items[i].response < lim)
				continue;
			c.items[i].r = 0.3 * full_pitch;
			c.items[i].x = (c.items[i].x + 0.5) * f - 0.5;
			c.items[i].y = (c.items[i].y + 0.5) * f - 0.5;
			if (fs_cand_append(keep, &c.items[i])) {
				snprintf(err, errlen, "auto: out of memory");
				goto out;
			}
		}
	}
	if (resp_out) {
		*resp_out = resp;
		resp = NULL;
	}
	rc = 0;
out:
	fs_image_free(resp);
	fs_cand_free(&c);
	free(pr);
	return rc;
}

int fs_detect_measure_image(const fs_image *img, const fs_params *p, double sigma, fs_image **out,
			    char *err, size_t errlen)
{
	fs_image *m = fs_image_clone(img);
	if (!m) {
		snprintf(err, errlen, "measure image: out of memory");
		return -1;
	}
	if (fs_white_tophat(m, p->tophat_radius, err, errlen) ||
	    fs_gaussian_blur(m, sigma, err, errlen)) {
		fs_image_free(m);
		return -1;
	}
	*out = m;
	return 0;
}

int fs_detect_auto(const fs_image *pre, const fs_image *meas, int f, const fs_params *p,
		   const fs_lattice *lat, fs_detect_result *out, char *err, size_t errlen)
{
	int rc = -1;
	fs_cand_list c = {0};
	double a = lat->pitch_px;
	if (fs_detect_auto_candidates(pre, f, p, a, &c, NULL, err, errlen))
		goto out;
	if (fs_det_measure(meas, &c, 0.6 * a, 0.4 * a, p, FS_SOURCE_EXTRACTED, &out->tubercles)) {
		snprintf(err, errlen, "auto: out of memory");
		goto out;
	}
	rc = 0;
out:
	fs_cand_free(&c);
	return rc;
}
