/*
 * detect_dog.c - method "dog": difference of Gaussians (the original's
 * blob_dog: sigmas smin * 1.6^i up to smax, layers (G_i - G_{i+1}) / 0.6).
 *
 * Each Gaussian level is made from the previous one by an incremental blur
 * of sqrt(s_{i+1}^2 - s_i^2), which is cheaper than blurring the image anew.
 * Diameters are measured from each tubercle's profile, as for log.
 *
 * Tile by tile (detect_scale.h) a level is exact where its own blur and
 * every blur before it read exact samples: the overlap is the sum of the
 * incremental kernels' radii plus the maxima's neighbour.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_methods.h"
#include "analysis/preprocess.h"

#define MAXLAYERS 16

struct dog_ctx {
	const fs_params *p;
	int k;                          /* layers */
	double inc[MAXLAYERS + 1];      /* incremental blur of level i */
	double radii[MAXLAYERS];
	fs_cand_list all;               /* every tile's maxima */
};

static int dog_tile(const fs_det_tile *t, void *arg, char *err, size_t errlen)
{
	struct dog_ctx *c = arg;
	const fs_image *pre = t->pre;
	int rc = -1, k = c->k;
	fs_image *gs[MAXLAYERS + 1] = {0};
	fs_image *layers[MAXLAYERS] = {0};
	size_t n = (size_t)pre->width * pre->height;
	for (int i = 0; i <= k; i++) {
		gs[i] = fs_gaussian_blurred(i ? gs[i - 1] : pre, c->inc[i], err, errlen);
		if (!gs[i])
			goto out;
	}
	for (int i = 0; i < k; i++) {
		layers[i] = fs_image_new_uninit(pre->width, pre->height); /* every sample is written */
		if (!layers[i]) {
			snprintf(err, errlen, "dog: out of memory");
			goto out;
		}
		for (size_t j = 0; j < n; j++)
			layers[i]->data[j] = (gs[i]->data[j] - gs[i + 1]->data[j]) / 0.6f;
	}
	rc = fs_det_scale_keep(t, layers, c->radii, k, c->p->threshold, &c->all, "dog", err, errlen);
out:
	for (int i = 0; i <= k; i++)
		fs_image_free(gs[i]);
	for (int i = 0; i < k; i++)
		fs_image_free(layers[i]);
	return rc;
}

int fs_detect_dog(const fs_det_source *s, const fs_meas *m, const fs_params *p, double um_per_px,
		  fs_detect_result *out, char *err, size_t errlen)
{
	struct dog_ctx ctx = {.p = p};
	double smin, smax, rmin;
	fs_det_sigma_range(p, um_per_px, &smin, &smax, &rmin);
	int k = (int)(log(smax / smin) / log(1.6) + 1);
	if (k < 1)
		k = 1;
	if (k > MAXLAYERS)
		k = MAXLAYERS;
	ctx.k = k;
	double prev = 0;
	int overlap = 1; /* the maxima's neighbour */
	for (int i = 0; i <= k; i++) {
		double sg = smin * pow(1.6, i);
		ctx.inc[i] = sqrt(sg * sg - prev * prev);
		overlap += fs_gaussian_radius(ctx.inc[i]);
		prev = sg;
	}
	for (int i = 0; i < k; i++)
		ctx.radii[i] = smin * pow(1.6, i) * M_SQRT2;
	return fs_det_scale_run(s, m, p, rmin, overlap, dog_tile, &ctx, &ctx.all, "dog", out, err, errlen);
}
