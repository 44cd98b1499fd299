/*
 * detect_log.c - method "log": multi-scale, scale-normalised Laplacian of
 * Gaussian (the original's blob_log: 10 scales linear between the sigmas of
 * min_diameter_um and max_diameter_um, threshold on -sigma^2 * laplacian).
 *
 * The Laplacian is the 5-point stencil on each Gaussian level. The scale
 * only finds the blob; its diameter is then measured from the tubercle's own
 * profile (fs_det_measure), so diameters are not quantised to the scales.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/detect_methods.h"
#include "analysis/preprocess.h"

#define NSCALES 10

int fs_detect_log(const fs_image *pre, const fs_image *meas, const fs_params *p, double um_per_px, fs_detect_result *out,
		  char *err, size_t errlen)
{
	int rc = -1;
	fs_meas m = {meas, 1, meas->width, meas->height, 0, 0};
	fs_image *layers[NSCALES] = {0};
	fs_image *g = NULL;
	fs_cand_list c = {0};
	double radii[NSCALES];
	double rmin, rmax;
	fs_det_radius_range(p, um_per_px, &rmin, &rmax);
	double smin = fmax(1.0, rmin / M_SQRT2), smax = fmax(smin + 1, rmax / M_SQRT2);
	int w = pre->width, h = pre->height;
	for (int s = 0; s < NSCALES; s++) {
		double sigma = smin + (smax - smin) * s / (NSCALES - 1);
		radii[s] = sigma * M_SQRT2;
		layers[s] = fs_image_new(w, h);
		g = fs_image_clone(pre);
		if (!layers[s] || !g) {
			snprintf(err, errlen, "log: out of memory");
			goto out;
		}
		if (fs_gaussian_blur(g, sigma, err, errlen))
			goto out;
		double s2 = sigma * sigma;
		for (int y = 0; y < h; y++) {
			int ym = y > 0 ? y - 1 : 0, yp = y < h - 1 ? y + 1 : h - 1;
			for (int x = 0; x < w; x++) {
				int xm = x > 0 ? x - 1 : 0, xp = x < w - 1 ? x + 1 : w - 1;
				double lap = fs_image_at(g, xm, y) + fs_image_at(g, xp, y) +
					     fs_image_at(g, x, ym) + fs_image_at(g, x, yp) -
					     4 * fs_image_at(g, x, y);
				layers[s]->data[(size_t)y * w + x] = (float)(-s2 * lap);
			}
		}
		fs_image_free(g);
		g = NULL;
	}
	if (fs_det_scale_peaks(layers, radii, NSCALES, p->threshold, &c) ||
	    fs_det_measure(&m, &c, 0, 0.5 * rmin, p, FS_SOURCE_EXTRACTED, &out->tubercles)) {
		snprintf(err, errlen, "log: out of memory");
		goto out;
	}
	rc = 0;
out:
	for (int s = 0; s < NSCALES; s++)
		fs_image_free(layers[s]);
	fs_image_free(g);
	fs_cand_free(&c);
	return rc;
}
