/*
 * detect_cand_domes.h - the dome rule's candidate step tile by tile (issues
 * 15 and 13), at a lattice pitch below 20 px, where it runs at full
 * resolution: on the whole image it made three full-size float images
 * (the smoothed image, the circle votes' sum, the template correlation:
 * 1.2 GB of a 100 MP montage's 1.38 GB peak at a pitch of 14 px). Here
 * each stage makes what it needs a tile or a band of rows at a time from
 * the preprocessing plan (detect_pre_region.h), so the memory follows the
 * tile size, not the image:
 *
 *   - the halftone screen is looked for on the same centred crop the
 *     whole image's test reads (halftone.h), which sets the smoothing;
 *   - the gradient mean that decides who votes: the smoothed image's bands
 *     of rows in order, one sum in raster order (dome_votes.h);
 *   - the votes' peaks: each tile's votes over its core and the peaks'
 *     reach (fs_peaks_tiled, detect_cand_tiled.h);
 *   - the mean dome: the seeds' patches added band by band in the seeds'
 *     raster order, the order the whole image's template takes them in
 *     (fs_dome_seeds_raster; dome_template.h);
 *   - its correlation's peaks: tile by tile as the votes'.
 *
 * Every value is the whole image's to the bit: the same candidates, in
 * the same order (test_detect_cand_domes.c). The cost is the
 * preprocessing made four times (once per stage) instead of once.
 *
 * Ownership: the source and its plan stay the caller's; a state keeps a
 * pointer to the source; lists and arrays filled are the caller's.
 */
#ifndef FS_DETECT_CAND_DOMES_H
#define FS_DETECT_CAND_DOMES_H

#include <stddef.h>

#include "analysis/detect_cand_tiled.h"
#include "analysis/detect_candidates.h"
#include "analysis/detect_scale.h"
#include "analysis/dome_template.h"

/* What the stages share: the source, the pitch (px), the smoothing (px)
 * and the gradient mean found by fs_dome_votes_setup_tiled. */
typedef struct fs_dome_cands {
	const fs_det_source *s;
	double pitch, sigma, mean;
} fs_dome_cands;

/*
 * The stages before the votes: the screen (halftone.h) and from it the
 * smoothing, then the gradient mean, into *st (which keeps s; s must
 * outlive it). Made once for a source: the window's votes and, where
 * they make no template, every pixel's votes read the same *st.
 * Returns 0, or -1 with a message (a source without a plan is refused).
 */
int fs_dome_votes_setup_tiled(const fs_det_source *s, double pitch, fs_dome_cands *st, char *err, size_t errlen);

/*
 * The votes' maxima over the whole source of st (fs_dome_votes_setup_tiled)
 * suppressed within min_dist, each with its prominence within radius in
 * response and its sub-pixel offset in (*off)[2i], (*off)[2i + 1] (new;
 * as detect_auto.c's whole image). Returns 0, or -1 with a message.
 */
int fs_dome_votes_peaks_tiled(const fs_dome_cands *st, double min_dist, double radius, fs_cand_list *c, double **off,
			      char *err, size_t errlen);

/*
 * The votes of the window [x0, x1) x [y0, y1) alone (fs_dome_votes_window,
 * dome_votes.h: the whole image's votes there, to the bit), new in *votes
 * (an image of the window's size; the caller frees it), from st
 * (fs_dome_votes_setup_tiled). Returns 0, or -1 with a message.
 */
int fs_dome_votes_window_tiled(const fs_dome_cands *st, int x0, int y0, int x1, int y1, fs_image **votes, char *err,
			       size_t errlen);

/*
 * The template's stages: the mean patch (disc radius tpl_radius) of the
 * seeds (xs[i], ys[i]) in the order given (fs_dome_seeds_raster's), then
 * the peaks of its correlation as above, replacing c and *off. *found
 * gets 0 when fewer than 3 discs lie whole in the image (c, *off
 * unchanged), else 1. keep (may be NULL) receives what makes the
 * response again (the votes', or the template's correlation when found).
 * Returns 0, or -1 with a message.
 */
struct fs_dome_resp;
int fs_dome_ncc_peaks_tiled(const fs_dome_cands *st, const double *xs, const double *ys, size_t n,
			    double tpl_radius, double min_dist, double radius, fs_cand_list *c, double **off,
			    struct fs_dome_resp *keep, int *found, char *err, size_t errlen);

/* The response the candidates were found in, made again crop by crop:
 * the template's correlation, or the votes when there was no template. */
typedef struct fs_dome_resp {
	int ready;   /* filled by the candidate step */
	int has_tpl; /* the correlation (tp), else the votes */
	fs_dome_cands st;
	fs_dome_mean tp;
} fs_dome_resp;

/* The lattice method's searches (fs_lattice_probe_tiled_by,
 * detect_cand_tiled.h) in that response: 0, or -1 with a message. */
int fs_dome_probe_tiled(const fs_dome_resp *r, int R, double radius, fs_lattice_probe *q, size_t n, char *err,
			size_t errlen);
void fs_dome_resp_free(fs_dome_resp *r);

/* Sorts candidates by row, then column (their sub-pixel positions): the
 * order both paths add the template's patches in. */
void fs_dome_seeds_raster(fs_cand *items, size_t n);

#endif
