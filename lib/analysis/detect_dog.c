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
	fs_cand_list mine = {0};
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
	if (fs_det_scale_maxima(layers, c->radii, k, c->p->threshold, t->x0, t->y0, t->x1, t->y1, t->ox, t->oy,
				&mine)) {
		snprintf(err, errlen, "dog: out of memory");
		goto out;
	}
	if (t->lock)
		pthread_mutex_lock(t->lock);
	rc = 0;
	for (size_t i = 0; i < mine.n && !rc; i++)
		rc = fs_cand_append(&c->all, &mine.items[i]);
	if (t->lock)
		pthread_mutex_unlock(t->lock);
	if (rc)
		snprintf(err, errlen, "dog: out of memory");
out:
	for (int i = 0; i <= k; i++)
		fs_image_free(gs[i]);
	for (int i = 0; i < k; i++)
		fs_image_free(layers[i]);
	fs_cand_free(&mine);
	return rc;
}

int fs_detect_dog(const fs_det_source *s, const fs_meas *m, const fs_params *p, double um_per_px,
		  fs_detect_result *out, char *err, size_t errlen)
{
	int rc = -1;
	struct dog_ctx ctx = {.p = p};
	fs_cand_list c = {0};
	fs_meas mm = *m;
	mm.dome = 0; /* profiles (the base rule only lightens the blur) */
	mm.refine = 0;
	double rmin, rmax;
	fs_det_radius_range(p, um_per_px, &rmin, &rmax);
	double smin = fmax(1.0, rmin / M_SQRT2), smax = fmax(smin + 1, rmax / M_SQRT2);
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
		int R = (int)(4.0 * ctx.inc[i] + 0.5); /* preprocess.c's kernel radius */
		overlap += R < 1 ? 1 : R;
		prev = sg;
	}
	for (int i = 0; i < k; i++)
		ctx.radii[i] = smin * pow(1.6, i) * M_SQRT2;
	if (fs_det_for_tiles(s, overlap, dog_tile, &ctx, err, errlen))
		goto out;
	if (fs_det_scale_suppress(&ctx.all, s->width, s->height, &c) ||
	    fs_det_measure(&mm, &c, 0, 0.5 * rmin, p, FS_SOURCE_EXTRACTED, &out->tubercles)) {
		snprintf(err, errlen, "dog: out of memory");
		goto out;
	}
	rc = 0;
out:
	fs_cand_free(&ctx.all);
	fs_cand_free(&c);
	return rc;
}
