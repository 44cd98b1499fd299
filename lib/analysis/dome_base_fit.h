/*
 * dome_base_fit.h - one tubercle's size read from its whole patch: the
 * patch fitted by least squares to a dome rendered through the image's SE
 * formation, at a grid of fills, with a gain and an offset of its own
 * (issue 13 section 2, "fitting, per tubercle, a dome model rendered
 * through the same SE formation to the observed patch").
 *
 * Why: the base rule (dome_measure.h) reads each base where 32 rays find
 * the signal's step; noise, a halftone screen or a neighbour's foot moves
 * a ray's step, so a tubercle's own reading scatters by 9-38 % of D on the
 * simulator where the image holds it to 1-3 % (the oracle of
 * test_sem_oracle, which fits every pixel of the patch). A fit of the
 * whole patch against one template per fill uses every pixel the way the
 * oracle does; its brightness and contrast are the tubercle's own (the
 * gain and offset), its shape the image's (the formation).
 *
 * The formation is the one the dome detector has already fitted once per
 * image for the centres' common offset (detect_offset.h, dome_fit.h:
 * h/R, profile, blur, lattice angle, detector azimuth and elevation). It
 * is not searched again here (branch h20e searched 60 formations per image
 * and cost 150-2,200 x the outline rule, docs/paper-figures.md).
 *
 * Per image (fs_dome_tpl_build): the lattice of that formation rendered
 * (se_render.h, 24 samples a pitch), its components (secant yield, the
 * two side-detector slopes, edge, the shadowed yield when the formation
 * has a shadow) blurred by the formation's blur and sampled at fixed
 * points of a disc of half a pitch (a pixel apart, 1/16 pitch on pitches
 * above 16 px; "16" within the pitch estimate's 1 %). A pixel apart, the
 * points lie on the pixel grid, where the fit reads the image bilinearly
 * at the centre's sub-pixel phase: a tent blur of up to 0.5 px SD that the
 * point-sampled template lacks and that on a 4-px dome decides between a
 * flat top and a taper (docs/paper-figures.md, h32f); the templates are
 * then also made as that read sees them, at 4 x 4 phases (nph). Two steps: at five fills, 0.70-1.30 of the given median,
 * every component blurred and the weights of the components (how much of
 * the signal is yield, slope, edge, shadow) solved by least squares on
 * the mean patch of up to 64 tubercles, at the fill that reads it best;
 * then 13 fills, 0.70-1.30 of that fill in steps of 0.05, each rendered,
 * mixed with those weights and blurred once (the blur is linear): one
 * template per fill, the same mix for every size. (The formation, fitted
 * at the base rule's median, may see the domes 25 % smaller than the rule
 * does, scene 40 of the corner matrix: a grid around that median left
 * most tubercles' fills outside it.)
 *
 * Per tubercle (fs_dome_tpl_fit): the image sampled at the same points
 * around the centre; for every fill the residual after the patch's best
 * gain and offset (a dot product each), a parabola through the best
 * three. The centre moves by a pattern search (the eight neighbours at
 * a step of 0.04 pitch, up to three steps, each neighbour read at the
 * best of the five fills near the best so far): a patch read 1 px off
 * its centre fits a dome 7 % smaller best. Then the centre between the
 * search's grid points: the vertex of the residual's quadratic through
 * the 3 x 3 trial centres one step apart about the search's end
 * (dome_centre_fit.h). (With fs_dome_tpl_set_cross_search, off by
 * default, h47e's search: the four neighbours along the axes and six of the nine,
 * where no screen was removed and the points lie off the pixel grid.) out->x, out->y is that centre,
 * which the dome rule takes as the tubercle's (detect_base_fit.h).
 * (Until h31d a second round at 0.02 pitch came before the vertex: a
 * third of the fit's reads for no better centres by the corner scenes'
 * table.)
 *
 * Fit quality: R^2 of the patch after its gain and offset (0..1). No size
 * (radius NAN, the centre kept) when the best fill lies at an end of the
 * grid or the best gain is not positive: the patch does not look like the
 * dome at any size of the grid.
 *
 * Ownership: fs_dome_tpl owns its arrays (fs_dome_tpl_free); everything
 * else belongs to the caller; nothing is kept between calls.
 */
#ifndef FS_DOME_BASE_FIT_H
#define FS_DOME_BASE_FIT_H

#include <stddef.h>

#include "analysis/dome_fit.h"
#include "analysis/se_render.h"
#include "image/image.h"

#define FS_DOME_TPL_NFILL 13

/* One row of a template's sample points (fs_dome_tpl.rows): the points
 * first .. first + n - 1, at dy px from the centre (the points' float dy,
 * widened), in columns c0 .. c0 + n - 1. */
typedef struct fs_dome_tpl_row {
	double dy;
	int first, n, c0;
} fs_dome_tpl_row;

typedef struct fs_dome_tpl {
	double pitch;       /* px */
	double rfit;        /* the fitted disc's radius, px */
	int nk;             /* fills in use */
	double fill[FS_DOME_TPL_NFILL];
	size_t npts;        /* sample points of the disc */
	float *dx, *dy;     /* their offsets from the centre, px */
	float *t;           /* nk x npts template values */
	double st[FS_DOME_TPL_NFILL], stt[FS_DOME_TPL_NFILL]; /* sums of t, t^2 */
	double vt[FS_DOME_TPL_NFILL]; /* stt - st^2 / npts (h49o) */
	double shift;       /* first step of the centre search, px */
	int shadowed;       /* 1 when the templates hold a shadow term */
	int screened;       /* 1 when the formation removed a halftone screen:
			     * the search's full 3 x 3 (fs_dome_tpl_fit) */
	/* The same points and templates laid out for the per-tubercle fit
	 * (h22e: the same values, read faster): the points' columns (ncol
	 * offsets colx, the column of each point in col) and the templates
	 * point by point in doubles (tp[i * nk + k] = t[k * npts + i]). */
	int ncol;
	float *colx;
	int *col;
	int *row_end;       /* at a row's first point, the index past its last */
	/* the rows of points one by one, as the AVX patch read walks them
	 * (h49f): nrows of them, each its dy, first point, count and first
	 * column */
	int nrows;
	struct fs_dome_tpl_row *rows;
	double *tp;
	/* Where the points lie a whole pixel apart (pitch up to 16 px), the
	 * patch's bilinear read at the centre's sub-pixel phase (fx, fy)
	 * blurs it by a tent the point-sampled model lacks, up to 0.5 px SD
	 * on a 2-px base (h32f): the templates as that read sees them, at
	 * nph x nph phases (fx, fy in steps of 1 / nph; the read uses the
	 * nearest), laid out as tp, with their sums (nph 1: tp, st, stt
	 * only, read at every phase). */
	int nph;
	double *tpp;        /* nph^2 x npts x nk */
	double *stp, *sttp; /* nph^2 x FS_DOME_TPL_NFILL */
	double *vtp;        /* nph^2 x FS_DOME_TPL_NFILL: sttp - stp^2 / npts */
	/* Whether the mean patch names a fill (h38b, issue 13): pick_edge -1
	 * or 1 when the coarse pick lay on the low or high end of its window
	 * (0 inside it); and, once fs_dome_tpl_read_wide has read the mean
	 * patch (mean, npts values, kept from the build) over the wide
	 * window FS_DOME_TPL_WIDE_LO..FS_DOME_TPL_WIDE_HI (fills, 13 steps
	 * of 0.06, the components solved afresh at each): wide_best the fill
	 * that reads it best, wide_rise how far the residual rises above that
	 * best on its lower side (each side's highest residual, the smaller
	 * of the two) as a share of the best; 0 when the best is an end of
	 * the wide window; both NAN until read. The templates themselves do
	 * not depend on either. Read on demand only: 13 lattices rendered
	 * and blurred per component cost P1 Fig1 57 M instructions a build.
	 * Why: where the image shows no base step the sizes are the
	 * templates', and a pick at the window's end, or inside a window
	 * over which the residual hardly moves, is the window's, not the
	 * image's (docs/paper-figures.md, h37p: P1 Fig1 follows the window's
	 * centre from 0.47 to 0.74). */
	int pick_edge;
	double wide_best, wide_rise;
	/* wide_rise's standard error (h38o): the jackknife over the nobs
	 * patches averaged into mean (obs, nobs x npts, kept from the build),
	 * each left out in turn and the wide read made again - the rise
	 * judged against the noise of its own mean patch, not a fixed bar;
	 * NAN until read */
	double wide_rise_se;
	/* the components' weights the templates were mixed with (nmix of
	 * them, then the constant; fs_dome_tpl_render) */
	double mixw[FS_SE_NCOMP + 1];
	int nmix;
	double *mean;
	double *obs;
	size_t nobs;
} fs_dome_tpl;

#define FS_DOME_TPL_WIDE_LO 0.13
#define FS_DOME_TPL_WIDE_HI 0.85

/* One tubercle's fit. */
typedef struct fs_dome_tfit {
	double x, y;        /* the centre (moved by the search), px */
	double radius;      /* base radius px; NAN = not measurable */
	double gain, offset; /* the patch's contrast and brightness */
	double quality;     /* R^2 after gain and offset, 0..1 */
	/* fs_dome_signal_at's signal (dome_signal.h) of the patches the fit
	 * read whole at its start (x, y as given) and at its end (x, y
	 * above): the same sums, so the dome rule's flat-ground test reads
	 * no patch again (h31d) */
	double signal_start, signal_end;
	/* the patches the fit sampled inside the image: its cost (h47e: 10
	 * where the search does not move; 7 with
	 * fs_dome_tpl_set_cross_search) */
	int patches;
} fs_dome_tfit;

/*
 * Builds the templates for img (the image the bases are measured on, a
 * halftone screen already removed) from the formation fit f (geometry,
 * blur, detector azimuth and elevation, pitch and lattice angle) around
 * the median fill fill0, the weights solved on the mean patch of the n
 * centres (xs, ys; px; at most 64 spread over them). Returns 0; 1 when
 * the templates cannot be made (fewer than 8 whole patches, a degenerate
 * formation; t then holds nothing to free); -1 on out of memory (err
 * set).
 */
int fs_dome_tpl_build(const fs_image *img, const fs_dome_fit *f, double fill0, const double *xs,
		      const double *ys, size_t n, fs_dome_tpl *t, char *err, size_t errlen);
/* The same with the patches read from a mosaic (the tiled dome rule's,
 * detect_domes_tiled.c): centre q's patch is read in img at (xs[q],
 * ys[q]) - (sx[q], sy[q]), xs and ys in the whole image's pixels and the
 * shift an integer (INT_MIN: not read), every sample's position made in
 * the whole image's pixels as fs_dome_tpl_build makes it there (the same
 * mean patch to the last bit; h40e). sx, sy NULL: fs_dome_tpl_build. */
int fs_dome_tpl_build_shifted(const fs_image *img, const fs_dome_fit *f, double fill0, const double *xs,
			      const double *ys, const int *sx, const int *sy, size_t n, fs_dome_tpl *t, char *err,
			      size_t errlen);

/*
 * Fits the tubercle near (x, y) (px of img). Returns 0 (out->radius NAN
 * when the base is not measurable), 1 when its patch does not lie inside
 * the image (out untouched), -1 on out of memory.
 */
int fs_dome_tpl_fit(const fs_dome_tpl *t, const fs_image *img, double x, double y, fs_dome_tfit *out);

/*
 * The same on img, a crop at (ox, oy) of a larger image, (x, y) and
 * out's centre in the crop's pixels: out's centre plus (ox, oy) is, to
 * the last bit, the larger image's fit from (x + ox, y + oy) where the
 * crop holds the patches the search reads (the tiled dome rule,
 * detect_domes_tiled.c). Why (h40e): a trial centre plus a point's
 * offset made on the crop rounds at another magnitude than on the whole
 * image, so the tiles' centres and sizes came back a few last bits off
 * the whole image's; those moved the last step's pitch, and a last bit
 * of the pitch can change the formation fit's neighbourhood (dome_fit.c).
 * Every position is made in the larger image's pixels and only a
 * sample's pixel has (ox, oy) taken off. fs_dome_tpl_fit is this at
 * (0, 0): the same bits as before.
 */
int fs_dome_tpl_fit_crop(const fs_dome_tpl *t, const fs_image *img, int ox, int oy, double x, double y,
			 fs_dome_tfit *out);

/*
 * fs_dome_tpl_fit_crop without the centre search: the fills read at (x,
 * y) alone (one patch instead of about ten), out's centre the start. For
 * a caller whose centres are already decided and which wants only the
 * fitted size there (the last step's fits at given centres,
 * fs_det_base_set_given_fit's FS_DET_GIVEN_FIT_STILL; h51a). Returns as fs_dome_tpl_fit_crop.
 */
int fs_dome_tpl_fit_still_crop(const fs_dome_tpl *t, const fs_image *img, int ox, int oy, double x, double y,
			       fs_dome_tfit *out);
/* ... and with h47e's cross search (fs_dome_tpl_set_cross_search) for
 * this call alone, where that search would apply (no screen removed, the
 * points off the pixel grid; else the eight): the same caller's cheaper
 * search (h51a). */
int fs_dome_tpl_fit_cross_crop(const fs_dome_tpl *t, const fs_image *img, int ox, int oy, double x, double y,
			       fs_dome_tfit *out);

void fs_dome_tpl_free(fs_dome_tpl *t);

/*
 * For tests: with on non-zero fs_dome_tpl_build renders every fill of its
 * fine step afresh (the coarse step's renders of the same fills not taken
 * again), 0 gives them back. Why: taking them promises the templates to
 * the bit, and only a build with and without them shows that it still
 * does (test_dome_tpl_reuse). Not to be called while another thread
 * builds templates.
 */
void fs_dome_tpl_forbid_reuse(int on);

/*
 * h47e's search, an option, off by default: with on non-zero fs_dome_tpl_fit's
 * centre search reads the four neighbours along the axes instead of the
 * eight (up to six moves) and its vertex is the quadratic through six of
 * the nine trial centres (fs_dome_centre_vertex6), where no halftone
 * screen was removed and the points are off the pixel grid: 7 patches a
 * tubercle instead of 10, the 2048 x 1536 lattice 1,797.4 -> 1,727.3 M
 * instructions (-3.9 %; at h48e 1,680.7 -> 1,608.6 M). h47e left it off
 * because it moved the guard's rows both ways (seed set 8000 45 -> 44,
 * the pitch-64 corners' per-tubercle D SD up: six points see the
 * residual's noise that nine average); h48e judged it against the
 * guards' noise band (bench_noise_band: the corner all four at candidate
 * nudges -1e-6, 0, +1e-6 over 8 seed sets 344 + 349 + 351 = 1044 off,
 * 345 + 350 + 353 = 1048 on) and turned it on, but on it the no-base
 * verdict flips under a one-pixel crop (test_nobase_crop: P2 Fig1c and
 * P1 Fig6 sized whole, unmeasured cropped) and a smooth scene's D SD
 * crosses 8 % (test_sem_smooth, scene 21), so it is off again (lead,
 * stop 48; docs/paper-figures.md, h47e and h48e). Process-wide; not to be called
 * while another thread fits.
 */
void fs_dome_tpl_set_cross_search(int on);
/* whether the cross search is on (fs_dome_tpl_set_cross_search) */
int fs_dome_tpl_cross_search(void);

/*
 * The templates' dome lattice at another fill, as an image of pixels: the
 * formation f's lattice (t's from fs_dome_tpl_build with f) rendered at
 * fill, mixed with the weights t's templates were mixed with, blurred by
 * the formation's blur, and sampled at the centres of the pixels of a
 * size x size image whose lattice site lies at (cx, cy) px. What the
 * image's own domes of that fill look like to the formation fit, for a
 * reader of pixels (the base rule's) to be run on where the truth is
 * known (bench_level_small --calibrate, docs/paper-figures.md h42a).
 * *out is the caller's (fs_image_free). Returns 0; 1 when t holds no
 * templates or fill lies outside (0.05, 0.96); -1 on out of memory.
 */
int fs_dome_tpl_render(const fs_dome_tpl *t, const fs_dome_fit *f, double fill, int size, double cx, double cy,
		       fs_image **out);
/* The same on a grid of grid samples a pitch (<= 0: the templates' own,
 * fs_dome_tpl_render's). Why (h53a): the templates' grid (24 a pitch,
 * 2 x 2 subsamples a sample) moves a 4-px base's support in steps, so
 * the render of a 4-px base stands still while its fill moves 10-15 %
 * and then jumps; a reader run on the render for fills that close
 * (level_calib.h) needs a finer one. */
int fs_dome_tpl_render_grid(const fs_dome_tpl *t, const fs_dome_fit *f, double fill, int grid, int size, double cx,
			    double cy, fs_image **out);
/* A bench's oracle (h53e): fs_dome_tpl_render with the shadow formed as
 * the test suite's simulator forms it - the yield and slope parts times
 * 1 - depth where the path to the detector is blocked, the edge and the
 * constant not - instead of the templates' linear shadow part (whose
 * weight is then unused), for templates that hold a shadow (the caller
 * may give a copy one: shadowed 1, nmix FS_SE_NCOMP, the constant last).
 * depth 0: off (the default). Process-wide, set before any render;
 * returns the previous depth. */
double fs_dome_tpl_set_product_shadow(double depth);
double fs_dome_tpl_product_shadow(void);

/* Fills t->wide_best and t->wide_rise (above) through the formation f t
 * was built from. Returns 0, -1 on out of memory (t unchanged). */
int fs_dome_tpl_read_wide(fs_dome_tpl *t, const fs_dome_fit *f);

/*
 * Where the templates read an image, for a caller that hands them crops
 * (the dome rule tile by tile, detect_domes_tiled.c): with the formation's
 * pitch, patch_r is the patch's reach around a centre (a patch whose disc
 * of that radius leaves the image is not read); search_r bounds how far
 * fs_dome_tpl_fit's centre search moves from its start; of n centres given
 * to fs_dome_tpl_build the mean patch reads those at 0, stride, 2 stride,
 * ... (the ones inside the image).
 */
typedef struct fs_dome_tpl_reach {
	double patch_r, search_r; /* px */
	size_t stride;
} fs_dome_tpl_reach;

void fs_dome_tpl_reach_of(double pitch, size_t n, fs_dome_tpl_reach *r);

#endif
