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
 * scale without an absolute threshold. The 0.15 and the 30 % are the
 * parameters auto_smoothing and auto_prominence (their defaults). Diameters come from fs_blob_measure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_cand_domes.h"
#include "analysis/detect_cand_tiled.h"
#include "analysis/detect_methods.h"
#include "analysis/preprocess.h"
#include "analysis/halftone.h"
#include "analysis/dome_ncc_coarse.h"
#include "analysis/dome_template.h"
#include "analysis/dome_votes.h"
#include "base/sorting.h"

#define AUTO_MIN_PROMINENCE 0.01

/* fs_detect_set_cand_nudge's px (detect_methods.h) */
static double cand_nudge;

double fs_detect_set_cand_nudge(double px)
{
	double was = cand_nudge;
	cand_nudge = px;
	return was;
}

/*
 * The circle votes of the whole image (dome_votes.h says what they vote
 * for). The votes are cast, blurred and combined one band of rows at a
 * time (issue 15: the 16 full-size layers took 6.4 GB on 100 MP at a pitch
 * of 14 px); a band holds as many pixels as a tile of the detection's
 * tiling (detect.h; at least 64 rows), the whole image when the tiling is
 * off. Every band's values are the whole image's to the bit
 * (dome_votes.h). Returns a new image (NULL: out of memory or blur error,
 * err set).
 */
static fs_image *circle_votes(const fs_image *img, double pitch, double blur, char *err, size_t errlen)
{
	int w = img->width, h = img->height;
	fs_image *acc = fs_image_new(w, h);
	if (!acc) {
		snprintf(err, errlen, "auto: out of memory");
		return NULL;
	}
	if (w < 3 || h < 3)
		return acc;
	double mean = fs_dome_grad_add(img->data + w, w, h - 2, 0) / ((double)(w - 2) * (h - 2));
	int tile = 0;
	fs_detect_get_tiling(&tile, NULL);
	long band = tile > 0 ? (long)tile * tile / w : h;
	band = band < 64 ? 64 : band > h ? h : band;
	for (int b0 = 0; b0 < h; b0 += (int)band) {
		int b1 = b0 + band < h ? b0 + (int)band : h;
		if (fs_dome_votes_rect(img->data, (size_t)w, 0, 0, w, h, mean, pitch, blur, 0, b0, w, b1,
				       acc->data + (size_t)b0 * w, (size_t)w, err, errlen)) {
			fs_image_free(acc);
			return NULL;
		}
	}
	return acc;
}

/* The votes of the window [x0, x1) x [y0, y1) of sm alone (dome_votes.h,
 * fs_dome_votes_window): a new image of the window's size, its values the
 * whole image's votes there (the gradient mean the whole image's, as
 * circle_votes's). NULL on out of memory or blur error, err set. */
static fs_image *window_votes(const fs_image *sm, double pitch, double blur, int x0, int y0, int x1, int y1,
			      char *err, size_t errlen)
{
	int w = sm->width, h = sm->height;
	fs_image *acc = fs_image_new(x1 - x0, y1 - y0);
	if (!acc) {
		snprintf(err, errlen, "auto: out of memory");
		return NULL;
	}
	double mean = fs_dome_grad_add(sm->data + w, w, h - 2, 0) / ((double)(w - 2) * (h - 2));
	if (fs_dome_votes_rect(sm->data, (size_t)w, 0, 0, w, h, mean, pitch, blur, x0, y0, x1, y1, acc->data,
			       (size_t)acc->width, err, errlen)) {
		fs_image_free(acc);
		return NULL;
	}
	return acc;
}

/* The candidates of c (prominence in response, sub-pixel offsets in
 * off[2i], off[2i + 1]) that stand out, in full-resolution pixels, into
 * keep: the same for the whole image's response and for its tiles'. */
static int keep_prominent(fs_cand_list *c, const double *off, const fs_params *p, double full_pitch, int f,
			  fs_cand_list *keep, char *err, size_t errlen)
{
	if (!c->n)
		return 0;
	double *pr = malloc(c->n * sizeof *pr);
	if (!pr) {
		snprintf(err, errlen, "auto: out of memory");
		return -1;
	}
	for (size_t i = 0; i < c->n; i++)
		pr[i] = c->items[i].response;
	/* the value sorting them gave, without the sort */
	double p90 = fs_select_kth(pr, c->n, (size_t)(0.9 * (c->n - 1)));
	free(pr);
	/* the absolute floor (0.01 of the image range) only keeps the
	 * noise of a blank image out; the knob is the relative one */
	double lim = fmax(p->auto_prominence * p90, AUTO_MIN_PROMINENCE);
	for (size_t i = 0; i < c->n; i++) {
		if (c->items[i].response < lim)
			continue;
		c->items[i].r = 0.3 * full_pitch;
		/* Sub-pixel peak: on the reduced grid a pixel is f pixels of
		 * meas, and a start near the centre saves fs_blob_measure its
		 * second pass. */
		c->items[i].x = (c->items[i].x + off[2 * i] + 0.5) * f - 0.5;
		c->items[i].y = (c->items[i].y + off[2 * i + 1] + 0.5) * f - 0.5;
		if (fs_cand_append(keep, &c->items[i])) {
			snprintf(err, errlen, "auto: out of memory");
			return -1;
		}
	}
	return 0;
}

/* The maxima of resp no two within sep px, their prominence within
 * 0.6 pitch (px of resp) and sub-pixel offsets (*off new, 2 per
 * candidate), replacing the contents of c. Returns 0, -1 on out of
 * memory (err set). */
static int peaks_with_offsets(const fs_image *resp, double pitch, double sep, fs_cand_list *c, double **off,
			      char *err, size_t errlen)
{
	c->n = 0;
	free(*off);
	*off = NULL;
	/* in the tiling's threads (the CLI's two): the same peaks */
	int threads = 1;
	fs_detect_get_tiling(NULL, &threads);
	if (fs_det_peaks_threads(resp, 0, sep, threads, c)) {
		snprintf(err, errlen, "auto: out of memory");
		return -1;
	}
	fs_det_prominence_threads(resp, c, 0.6 * pitch, threads);
	*off = malloc((c->n ? c->n : 1) * 2 * sizeof **off);
	if (!*off) {
		snprintf(err, errlen, "auto: out of memory");
		return -1;
	}
	for (size_t i = 0; i < c->n; i++)
		fs_det_peak_offset(resp, 0, 0, resp->width, resp->height, (int)c->items[i].x, (int)c->items[i].y,
				   &(*off)[2 * i], &(*off)[2 * i + 1]);
	return 0;
}

/* The seeds in the votes wv of the window whose corner is (x0, y0)
 * (fs_dome_votes_window), as peaks_with_offsets finds them in the whole
 * image's votes, moved into the image's pixels (whole pixels: exact).
 * Takes wv (freed here); one function for both candidate paths, so the
 * tiled path's seeds stay the whole image's to the bit. */
static int window_peaks(fs_image *wv, double pitch, int x0, int y0, fs_cand_list *c, double **off, char *err,
			size_t errlen)
{
	int rc = peaks_with_offsets(wv, pitch, 0.7 * pitch, c, off, err, errlen);
	fs_image_free(wv);
	if (rc)
		return rc;
	for (size_t i = 0; i < c->n; i++) {
		c->items[i].x += x0;
		c->items[i].y += y0;
	}
	return 0;
}

/*
 * The dome rule's candidates are the peaks of the image's own mean dome
 * correlated with it (dome_template.h), the vote peaks only its seeds:
 * under a printed screen, and on tight domes whose gaps its low-pass
 * fills, the votes scatter by 2-3 px at pitch 16 (one dome in ten to one
 * in four 0.25-0.5 pitch off or missed), while the whole dome's likeness
 * to the others does not (recall and precision >= 0.97 in 53 of
 * test_sem_accuracy's 64 scenes from the votes, 64 of 64 from the
 * correlation; a second pass from the correlation's own peaks: also 64,
 * no better centres). Disc radius half a pitch: the dome and its foot, not
 * the neighbours' bases (0.6 pitch away at fill 0.8). On success c and
 * *off hold the correlation's peaks and *resp is the correlation; with
 * fewer than 3 whole patches nothing changes. sm is the image the votes
 * were cast on (pixels of resp), or tiled its stages tile by tile (resp
 * then NULL and not made). *made (may be NULL: the last try, whose
 * votes' peaks stand either way) gets 1 where a template was made, else
 * 0. Returns 0, -1 on out of memory.
 */
static int dome_template_peaks(const fs_image *sm, const fs_dome_cands *tiled, fs_dome_resp *keep,
			       fs_image **resp, double pitch, int coarse, const fs_params *p, fs_cand_list *c,
			       double **off, int *made, char *err, size_t errlen)
{
	int ignored;
	if (!made)
		made = &ignored;
	*made = 0;
	if (!c->n || !(0.5 * pitch >= 1)) {
		if (tiled && keep) /* the response stays the votes */
			*keep = (fs_dome_resp){.ready = 1, .st = *tiled};
		return 0;
	}
	int rc = -1;
	fs_cand_list votes = {0}, seeds = {0};
	double *xs = NULL, *ys = NULL;
	fs_image *ncc = NULL;
	/* the prominent vote peaks on resp's own grid (keep_prominent with
	 * f = 1), from a copy: c stays as it is if there is no template */
	votes.items = malloc(c->n * sizeof *votes.items);
	if (!votes.items) {
		snprintf(err, errlen, "auto: out of memory");
		goto out;
	}
	memcpy(votes.items, c->items, c->n * sizeof *votes.items);
	votes.n = votes.cap = c->n;
	if (keep_prominent(&votes, *off, p, pitch, 1, &seeds, err, errlen))
		goto out;
	xs = malloc((seeds.n ? seeds.n : 1) * sizeof *xs);
	ys = malloc((seeds.n ? seeds.n : 1) * sizeof *ys);
	if (!xs || !ys) {
		snprintf(err, errlen, "auto: out of memory");
		goto out;
	}
	/* the patches are added in raster order, which a tiled image can
	 * keep (detect_cand_domes.h) */
	fs_dome_seeds_raster(seeds.items, seeds.n);
	for (size_t i = 0; i < seeds.n; i++) {
		xs[i] = seeds.items[i].x;
		ys[i] = seeds.items[i].y;
	}
	if (tiled) {
		if (fs_dome_ncc_peaks_tiled(tiled, xs, ys, seeds.n, 0.5 * pitch, 0.7 * pitch, 0.6 * pitch, c, off,
					    keep, made, err, errlen))
			goto out;
	} else if ((coarse ? fs_dome_template_ncc_coarse : fs_dome_template_ncc)(sm, xs, ys, seeds.n, 0.5 * pitch,
										&ncc, err, errlen)) {
		goto out;
	}
	if (ncc) {
		*made = 1;
		fs_image_free(*resp);
		*resp = ncc;
		if (peaks_with_offsets(*resp, pitch, 0.7 * pitch, c, off, err, errlen))
			goto out;
	}
	rc = 0;
out:
	fs_cand_free(&votes);
	fs_cand_free(&seeds);
	free(xs);
	free(ys);
	return rc;
}

/* Smoothed response (or circle votes, dome), prominent peaks. Shared with
 * the lattice method. */
int fs_detect_auto_candidates(fs_image **pre_in, const fs_det_source *tiled, int f, const fs_params *p,
			      double pitch, int dome, fs_cand_list *keep, fs_image **resp_out, char *err,
			      size_t errlen)
{
	fs_image *pre = *pre_in;
	*pre_in = NULL; /* ours from here: freed or made the response */
	double full_pitch = pitch;
	pitch /= f;
	int rc = -1;
	fs_cand_list c = {0};
	double *off = NULL;
	fs_image *resp = NULL, *sm = NULL;
	if (resp_out)
		*resp_out = NULL;
	if (tiled) {
		/* at full resolution, without a full-size response
		 * (detect_cand_tiled.h, detect_cand_domes.h); the same peaks
		 * as below */
		if (f != 1 || pre) {
			snprintf(err, errlen, "auto: tiles are for the candidates at full resolution");
			goto out;
		}
		if (dome) {
			/* the screen, smoothing and gradient mean once: the
			 * window's votes and every pixel's read the same */
			fs_dome_cands dc;
			if (fs_dome_votes_setup_tiled(tiled, pitch, &dc, err, errlen))
				goto out;
			int x0, y0, x1, y1, made = 0;
			if (fs_dome_votes_window(tiled->width, tiled->height, pitch, &x0, &y0, &x1, &y1)) {
				/* the seeds from the window's votes (dome_votes.h),
				 * found as the whole image's path finds them */
				fs_image *wv = NULL;
				if (fs_dome_votes_window_tiled(&dc, x0, y0, x1, y1, &wv, err, errlen))
					goto out;
				if (window_peaks(wv, pitch, x0, y0, &c, &off, err, errlen))
					goto out;
				if (dome_template_peaks(NULL, &dc, tiled->dome, NULL, pitch, 0, p, &c, &off, &made, err,
							errlen))
					goto out;
				if (!made) {
					/* no template from them: every pixel's votes */
					c.n = 0;
					free(off);
					off = NULL;
				}
			}
			if (!made && (fs_dome_votes_peaks_tiled(&dc, 0.7 * pitch, 0.6 * pitch, &c, &off, err, errlen) ||
				      dome_template_peaks(NULL, &dc, tiled->dome, NULL, pitch, 0, p, &c, &off, NULL, err,
							  errlen)))
				goto out;
			goto select;
		}
		if (fs_auto_peaks_tiled(tiled, p->auto_smoothing * pitch, 0.5 * pitch, 0.6 * pitch, &c, &off, err,
					errlen))
			goto out;
		goto select;
	}
	/* the correlation coarse to fine on the reduced image, where no
	 * caller reads the response between the peaks (dome_ncc_coarse.h) */
	int coarse = f > 1 && !resp_out && fs_dome_ncc_coarse_on();
	if (dome) {
		/* the smoothing and the votes' blur: dome_votes.h */
		double period = 0;
		if (fs_halftone_detect(pre, &period, NULL)) {
			snprintf(err, errlen, "auto: out of memory");
			goto out;
		}
		sm = fs_gaussian_blurred(pre, fs_dome_smoothing(pitch, period, f), err, errlen);
		fs_image_free(pre);
		pre = NULL;
		if (!sm)
			goto out;
		int x0, y0, x1, y1, made = 0;
		if (fs_dome_votes_window(sm->width, sm->height, pitch, &x0, &y0, &x1, &y1)) {
			/* the seeds from the window's votes (dome_votes.h) */
			fs_image *wv = window_votes(sm, pitch, fs_dome_votes_blur(pitch), x0, y0, x1, y1, err, errlen);
			if (!wv || window_peaks(wv, pitch, x0, y0, &c, &off, err, errlen))
				goto out;
			if (dome_template_peaks(sm, NULL, NULL, &resp, pitch, coarse, p, &c, &off, &made, err, errlen))
				goto out;
			if (made)
				goto select;
			/* no template from them: every pixel's votes, as below */
		}
		resp = circle_votes(sm, pitch, fs_dome_votes_blur(pitch), err, errlen);
		if (!resp)
			goto out;
	} else {
		/* smoothed in place: the same samples as a smoothed copy, without
		 * a second image of pre's size */
		resp = pre;
		pre = NULL;
		int threads = 1; /* the tiling's (the CLI's two): the same image */
		fs_detect_get_tiling(NULL, &threads);
		if (fs_gaussian_blur_threads(resp, p->auto_smoothing * pitch, threads, err, errlen))
			goto out;
	}
	/* One base can leave two maxima of its votes up to ~0.6 pitch apart
	 * (its bright crescent and its shadowed side), while lattice
	 * neighbours are 0.8 pitch apart or more: suppress within 0.7 pitch
	 * (0.5 and 0.6 lost scenes of test_sem_accuracy) */
	if (peaks_with_offsets(resp, pitch, (dome ? 0.7 : 0.5) * pitch, &c, &off, err, errlen))
		goto out;
	if (dome && dome_template_peaks(sm, NULL, NULL, &resp, pitch, coarse, p, &c, &off, NULL, err, errlen))
		goto out;
select:;
	size_t first = keep->n;
	if (keep_prominent(&c, off, p, full_pitch, f, keep, err, errlen))
		goto out;
	for (size_t i = first; dome && cand_nudge != 0 && i < keep->n; i++) {
		keep->items[i].x += cand_nudge;
		keep->items[i].y += cand_nudge;
	}
	if (resp_out) {
		*resp_out = resp;
		resp = NULL;
	}
	rc = 0;
out:
	fs_image_free(pre);
	fs_image_free(resp);
	fs_image_free(sm);
	fs_cand_free(&c);
	free(off);
	return rc;
}

int fs_detect_measure_image(const fs_image *img, const fs_params *p, double sigma, fs_image **out,
			    char *err, size_t errlen)
{
	fs_image *m;
	if (p->tophat_radius > 0) {
		/* the top-hat works in place on floats */
		m = fs_image_to_float(img);
		if (!m) {
			snprintf(err, errlen, "measure image: out of memory");
			return -1;
		}
		if (fs_white_tophat(m, p->tophat_radius, err, errlen) ||
		    fs_gaussian_blur(m, sigma, err, errlen)) {
			fs_image_free(m);
			return -1;
		}
	} else if (!(m = fs_gaussian_blurred(img, sigma, err, errlen))) {
		return -1;
	}
	*out = m;
	return 0;
}

int fs_detect_auto(fs_image **pre, const fs_det_source *tiled, const fs_meas *m, int f, const fs_params *p,
		   const fs_lattice *lat, fs_detect_result *out, char *err, size_t errlen)
{
	int rc = -1;
	fs_cand_list c = {0};
	double a = lat->pitch_px;
	if (fs_detect_auto_candidates(pre, tiled, f, p, a, m->dome, &c, NULL, err, errlen))
		goto out;
	if (fs_det_measure(m, &c, 0.6 * a, (m->dome ? 0.7 : 0.4) * a, p, FS_SOURCE_EXTRACTED,
			   &out->tubercles)) {
		snprintf(err, errlen, "auto: out of memory");
		goto out;
	}
	rc = 0;
out:
	fs_cand_free(&c);
	return rc;
}
