/*
 * render.h - the overlay renderer: the image in grey underneath, tubercles
 * as circles coloured by source (an unmeasured one, radius NaN, as a cross on its centre), edges as lines, optional id labels (the
 * bitmap font of font.h), a scale bar, optional downscaling. Used for the
 * CLI's --overlay, the agents' screenshots and image exports.
 *
 * Colours: extracted cyan, manual green, lattice orange, agent magenta;
 * edges amber; highlighted tubercles get a red double ring. No antialiasing;
 * everything is clipped at the borders.
 *
 * Ownership: fs_rgb owns its pixel buffer (free with fs_rgb_free, which
 * tolerates NULL and a zeroed struct). The inputs are never kept.
 */
#ifndef FS_RENDER_H
#define FS_RENDER_H

#include <stddef.h>

#include "image/image.h"
#include "image/tubercle.h"

typedef struct fs_render_opts {
	int show_tubercles;   /* circles (default 1) */
	int show_edges;       /* lines between centroids (default 1) */
	int show_ids;         /* id labels next to each circle (default 0) */
	int show_scale_bar;   /* needs um_per_px > 0 (default 1) */
	int max_side;         /* downscale so no side exceeds it; 0 = full size */
	double source_scale;  /* img is already a reduced copy with this many pixels per
			       * pixel of the coordinates (0 or 1 = the image itself) */
	double um_per_px;     /* calibration for the scale bar; <= 0 = no bar */
	const int *highlight_ids; /* tubercle ids drawn highlighted (may be NULL) */
	size_t n_highlight;
	/* cells to shade (the scale region's outside): a grid of shade_gw x
	 * shade_gh cells of shade_cell image pixels, 0 = shaded (may be NULL;
	 * borrowed for the call) */
	const unsigned char *shade;
	int shade_cell, shade_gw, shade_gh;
} fs_render_opts;

typedef struct fs_rgb {
	unsigned char *data; /* width * height * 3 bytes, row-major RGB */
	int width, height;
	double scale;        /* output pixels per image pixel (1 = full size) */
} fs_rgb;

void fs_render_opts_default(fs_render_opts *o);

/*
 * Renders the overlay of t and e (either may be NULL) on img into *out.
 * Edges naming an unknown tubercle id are skipped. o may be NULL
 * (defaults). Returns 0, or -1 with a message (bad image, out of memory).
 */
int fs_render_overlay(const fs_image *img, const fs_tubercle_list *t, const fs_edge_list *e,
		      const fs_render_opts *o, fs_rgb *out, char *err, size_t errlen);
void fs_rgb_free(fs_rgb *r);

/* Same, encoded as PNG into a malloc'ed buffer (*png, caller frees). */
int fs_render_png(const fs_image *img, const fs_tubercle_list *t, const fs_edge_list *e,
		  const fs_render_opts *o, unsigned char **png, size_t *png_len, double *scale,
		  char *err, size_t errlen);

/* The scale bar's length in µm for an image width_px wide: the first of
 * 1, 2, 5 x 10^k µm at least 10 % of the width; 0 when um_per_px <= 0. */
double fs_render_scale_bar_um(int width_px, double um_per_px);

#endif
