/*
 * centre_refine.h - the centre of a dome (tubercle) at full resolution,
 * from the point its base circle is sharpest about (issue 13).
 *
 * Why: detection finds its candidates on a reduced image (about 10 px per
 * lattice pitch), so a centre is off by up to a tenth of the pitch, and
 * the base rule (dome_measure.h), which re-centres on the circle of each
 * ray's strongest step, converges from such a start to the wrong circle
 * where the shadow of a side detector or the bright cap offers steps
 * (diameters 10-20 % off on large domes).
 *
 * The rule: the base of a dome is the one intensity step that is a circle
 * about its centre, whatever side of it the detector lights (bright where
 * the slope faces the detector, dark where it faces away: the magnitude of
 * the radial derivative is high all round). Summed over 16 rays from a
 * trial centre, that magnitude as a function of the radius has its highest
 * peak when the trial centre is the dome's centre: from any other point the
 * step arrives at different radii along different rays and the peak
 * spreads. Shadows and the neighbours' bases are not concentric with the
 * trial centre and do not add up. That peak is as narrow as the step is
 * sharp (a few px) and has ridges around it, so a grid over the search
 * disc (every 2 px) finds its foot and a compass search (eight
 * directions, steps halved down to a quarter pixel) its top. A start
 * whose whole first ring of the grid lies 20 % below it is taken as the
 * centre without the rest of the grid (h41j) or the compass (h42k): on a
 * clean lattice the candidates are that good, and the template fit that
 * follows in the dome rule recentres them. That ring is looked at on
 * half the rays first, and a start clear of it there is taken without
 * the other half (h47j: on the lattice half the rays decide as all 16
 * for all but 2 of 2,856 starts).
 *
 * Cost: about 30 grid points (16 rays, a sample per px) and 20-40
 * compass trials (16 rays, the radii within 30 % of the peak's) per
 * centre at pitch 40-64, fewer at smaller pitches (the grid step is at
 * most a third of max_shift). Away from the image's border the grid's
 * sample positions and bilinear weights are tabulated once per centre
 * (per column and per row of trial centres: a position along x depends
 * on the column only) and each search stage's ray offsets once per
 * stage; the values are those of sampling every point afresh, so the
 * centre found is the same (bit-identical on the test images).
 *
 * Known bias: on low spherical domes lit from the side (h/R 0.25) the
 * sharpest circle lies about 0.35 R towards the detector of the true
 * centre (docs/paper-figures.md).
 *
 * The caller owns img; nothing is kept.
 */
#ifndef FS_CENTRE_REFINE_H
#define FS_CENTRE_REFINE_H

#include "image/image.h"

/*
 * Refines the centre (x, y) of a dome whose base radius lies in
 * [rmin, rmax] px, moving it at most max_shift px; the radial derivative
 * is taken over +-smooth px (at least the sampling step, at most 4 steps),
 * as wide as the base rule smooths its rays on this image. Writes the refined
 * centre to *ox, *oy (the start when nothing better is found) and returns
 * 0; -1 on bad arguments (nothing written).
 */
int fs_centre_refine(const fs_image *img, double x, double y, double rmin, double rmax, double max_shift,
		     double smooth, double *ox, double *oy);

/*
 * The outcome of one refinement's grid stage (the foot of the peak: its
 * trial centre and the radius of its ring) and everything it depends on.
 * Why: the dome rule refines the same starts twice - once with no
 * smoothing to choose the image's ray smoothing (detect_measure.c), once
 * with the smoothing chosen - and the grid, sampled a pixel apart, takes
 * the same derivative span for both whenever the smoothing is under
 * 1.5 grid samples (1.2 px on the paper figures): its outcome is then the
 * same, and half of the second refinement's cost. Zero-initialise it
 * (valid = 0); the caller owns it.
 */
typedef struct fs_refine_grid {
	int valid;
	const float *data; /* the image it was sampled from */
	int width, height;
	double x, y, rmin, rmax, max_shift, gdr;
	int gspan;
	double cx, cy, rp; /* the outcome */
	int clear;	   /* whether it stopped at a start clear of its first ring */
	/* The compass stage that followed, with its derivative span: when
	 * the chosen smoothing gives the compass the span of the first
	 * refinement (an image measured without smoothing, or one whose
	 * sample step is wider than the smoothing), the whole refinement is
	 * the same and its centre is taken as well (h23g). */
	int done, span;
	double ox, oy;
} fs_refine_grid;

/*
 * fs_centre_refine, keeping its grid stage's outcome in *kept (may be
 * NULL: fs_centre_refine itself): when *kept holds the grid stage of the
 * same image, start, radii, shift and derivative span, that outcome is
 * taken instead of sampling the grid again, and when it holds the compass
 * stage of the same derivative span too, the refined centre; otherwise
 * the grid is sampled and *kept replaced. The same result as
 * fs_centre_refine either way.
 */
int fs_centre_refine_kept(const fs_image *img, double x, double y, double rmin, double rmax, double max_shift,
			  double smooth, fs_refine_grid *kept, double *ox, double *oy);

/*
 * fs_centre_refine_kept on img, a crop at (cx, cy) of a larger image, x,
 * y and the result in the crop's pixels: the result plus (cx, cy) is, to
 * the last bit, the larger image's refinement from (x + cx, y + cy) where
 * the crop holds every pixel that reads (the tiled dome rule,
 * detect_domes_tiled.c). Why: a trial centre plus a ray's offset made on
 * the crop rounds at another magnitude than on the whole image, and the
 * refined centre came back a last bit off; the base rule from it then
 * read another base under a halftone screen (up to 0.3 px, h39i) and
 * near the image's border (corner 53, interior 13: h40e). So every
 * position is made in the larger image's pixels, as there, and only a
 * sample's pixel has (cx, cy) taken off (exact). fs_centre_refine_kept is
 * this at (0, 0), the same bits as before.
 */
int fs_centre_refine_crop(const fs_image *img, int cx, int cy, double x, double y, double rmin, double rmax,
			  double max_shift, double smooth, fs_refine_grid *kept, double *ox, double *oy);

#endif
