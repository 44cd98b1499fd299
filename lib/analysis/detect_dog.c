/*
 * detect_dog.c - method "dog": difference of Gaussians (the original's
 * blob_dog: sigmas smin * 1.6^i up to smax, layers (G_i - G_{i+1}) / 0.6).
 *
 * Each Gaussian level is made from the previous one by an incremental blur
 * of sqrt(s_{i+1}^2 - s_i^2), which is cheaper than blurring the image anew.
 * Diameters are measured from each tubercle's profile, as for log.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_methods.h"
#include "analysis/preprocess.h"

#define MAXLAYERS 16

int fs_detect_dog(const fs_image *pre, const fs_image *meas, const fs_params *p, double um_per_px, fs_detect_result *out,
		  char *err, size_t errlen)
{
	int rc = -1;
	fs_meas m = {meas, 1, meas->width, meas->height, 0, 0};
	fs_image *gs[MAXLAYERS + 1] = {0};
	fs_image *layers[MAXLAYERS] = {0};
	fs_cand_list c = {0};
	double radii[MAXLAYERS];
	double rmin, rmax;
	fs_det_radius_range(p, um_per_px, &rmin, &rmax);
	double smin = fmax(1.0, rmin / M_SQRT2), smax = fmax(smin + 1, rmax / M_SQRT2);
	int k = (int)(log(smax / smin) / log(1.6) + 1);
	if (k < 1)
		k = 1;
	if (k > MAXLAYERS)
		k = MAXLAYERS;
	size_t n = (size_t)pre->width * pre->height;
	double prev = 0;
	for (int i = 0; i <= k; i++) {
		double s = smin * pow(1.6, i);
		gs[i] = fs_image_clone(i ? gs[i - 1] : pre);
		if (!gs[i]) {
			snprintf(err, errlen, "dog: out of memory");
			goto out;
		}
		if (fs_gaussian_blur(gs[i], sqrt(s * s - prev * prev), err, errlen))
			goto out;
		prev = s;
	}
	for (int i = 0; i < k; i++) {
		layers[i] = fs_image_new(pre->width, pre->height);
		if (!layers[i]) {
			snprintf(err, errlen, "dog: out of memory");
			goto out;
		}
		for (size_t j = 0; j < n; j++)
			layers[i]->data[j] = (gs[i]->data[j] - gs[i + 1]->data[j]) / 0.6f;
		radii[i] = smin * pow(1.6, i) * M_SQRT2;
	}
	if (fs_det_scale_peaks(layers, radii, k, p->threshold, &c) ||
	    fs_det_measure(&m, &c, 0, 0.5 * rmin, p, FS_SOURCE_EXTRACTED, &out->tubercles)) {
		snprintf(err, errlen, "dog: out of memory");
		goto out;
	}
	rc = 0;
out:
	for (int i = 0; i <= k && i <= MAXLAYERS; i++)
		fs_image_free(gs[i]);
	for (int i = 0; i < MAXLAYERS; i++)
		fs_image_free(layers[i]);
	fs_cand_free(&c);
	return rc;
}
