/*
 * detect_log.c - method "log": multi-scale, scale-normalised Laplacian of
 * Gaussian (the original's blob_log: 10 scales linear between the sigmas of
 * min_diameter_um and max_diameter_um, threshold on -sigma^2 * laplacian).
 *
 * The Laplacian is the 5-point stencil on each Gaussian level. The scale
 * only finds the blob; its diameter is then measured from the tubercle's own
 * profile (fs_det_measure), so diameters are not quantised to the scales.
 *
 * Tile by tile (detect_scale.h) the scales are the same for every tile
 * (from the µm parameters, not from the tile), and a tile's crop reaches
 * the largest scale's kernel radius plus the stencil's pixel plus the
 * maxima's neighbour beyond its core: there every layer sample equals the
 * whole image's, so the core's maxima are the whole image's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/detect_methods.h"
#include "analysis/preprocess.h"

#define NSCALES 10

struct log_ctx {
	const fs_params *p;
	double sigma[NSCALES], radii[NSCALES];
	fs_cand_list all; /* every tile's maxima */
};

static int log_tile(const fs_det_tile *t, void *arg, char *err, size_t errlen)
{
	struct log_ctx *c = arg;
	const fs_image *pre = t->pre;
	int rc = -1;
	fs_image *layers[NSCALES] = {0};
	fs_image *g = NULL;
	int w = pre->width, h = pre->height;
	for (int s = 0; s < NSCALES; s++) {
		double sigma = c->sigma[s];
		layers[s] = fs_image_new_uninit(w, h); /* every sample is written */
		g = fs_gaussian_blurred(pre, sigma, err, errlen);
		if (!layers[s] || !g) {
			snprintf(err, errlen, "log: out of memory");
			goto out;
		}
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
	rc = fs_det_scale_keep(t, layers, c->radii, NSCALES, c->p->threshold, &c->all, "log", err, errlen);
out:
	for (int s = 0; s < NSCALES; s++)
		fs_image_free(layers[s]);
	fs_image_free(g);
	return rc;
}

int fs_detect_log(const fs_det_source *s, const fs_meas *m, const fs_params *p, double um_per_px,
		  fs_detect_result *out, char *err, size_t errlen)
{
	struct log_ctx ctx = {.p = p};
	double smin, smax, rmin;
	fs_det_sigma_range(p, um_per_px, &smin, &smax, &rmin);
	for (int k = 0; k < NSCALES; k++) {
		ctx.sigma[k] = smin + (smax - smin) * k / (NSCALES - 1);
		ctx.radii[k] = ctx.sigma[k] * M_SQRT2;
	}
	/* the largest scale's kernel radius, the stencil's pixel and the
	 * maxima's neighbour */
	int overlap = fs_gaussian_radius(ctx.sigma[NSCALES - 1]) + 2;
	return fs_det_scale_run(s, m, p, rmin, overlap, log_tile, &ctx, &ctx.all, "log", out, err, errlen);
}
