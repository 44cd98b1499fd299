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

#include "analysis/detect_cand_tiled.h"
#include "analysis/detect_methods.h"
#include "analysis/preprocess.h"
#include "analysis/halftone.h"
#include "analysis/dome_template.h"

#define AUTO_MIN_PROMINENCE 0.01

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* lround(v) for |v| < 2^31, inline: the votes called lround four times
 * per radius of every edge pixel (3 % of the dome rule on the 2048 x 1536
 * lattice). v - trunc(v) is exact, so halves round away from zero as
 * lround's do: the same integers. */
static inline int round_half_away(double v)
{
	double t = (double)(long)v, f = v - t;
	return (int)t + (f >= 0.5) - (f <= -0.5);
}

/* Direction bins of the circle votes: 4 axes, each with its two ends. */
#define VOTE_DIRS 8

/*
 * Circle votes (a Hough transform for circles of radius 0.1 .. 0.45 pitch):
 * every pixel whose gradient is stronger than the mean votes, with its
 * gradient magnitude, for the points at those distances along its gradient
 * direction, on both sides. The base of a dome is a circle whatever the
 * detector makes of it (bright facing slope, dark far slope, a ring, a cap),
 * so the votes gather at the dome's centre, not at its brightest part.
 *
 * Two things tell a dome's centre from the other places edges surround:
 * - a circle has an edge on both ends of every diameter: each vote is
 *   binned by the direction it came from, and a point scores per axis the
 *   geometric mean of the votes from its two ends (the hole between three
 *   tight domes sees three narrow arcs 120 degrees apart, none opposite
 *   another; the channel between two domes sees one axis only);
 * - a dome is raised: the SE yield of a tilted slope is at least the
 *   flat's (secant law) except on the side facing away from a side
 *   detector, so at one end of a diameter at least the brighter side of
 *   the base edge is inside. Votes are kept apart by whether the brighter
 *   side faces the point (bright[]) or not (dark[]). A dark region bounded
 *   by bright edges on both ends is ambiguous: the hole between domes, or
 *   the cast shadow between one dome's dark side and its neighbour's
 *   bright rim (which pulled the votes of tight steep domes 0.33 pitch
 *   towards the shadow), but also the flat top inside a flat-topped
 *   dome's bright slope ring. Dark-dark pairs count half: counting them
 *   fully, half or not at all met recall and precision >= 0.97 in 40, 48
 *   and 50 of test_sem_accuracy's 64 scenes, but not counting them lost
 *   the mean-space level (29 scenes within 3 % against 30, 31 with half),
 *   and test_paper_images' dome ratios within 0.08 were 4, 3 and 2 of 9.
 * Each bin is smoothed by `blur` px; a point scores, summed over axes,
 * 2 sqrt((B(d) + D(d)) (B(-d) + D(-d)) - D(d) D(-d) / 2): the full vote
 * where a bright-inside edge surrounds it evenly.
 * Returns a new image (NULL: out of memory or blur error, err set).
 */
static fs_image *circle_votes(const fs_image *img, double pitch, double blur, char *err,
			      size_t errlen)
{
	int w = img->width, h = img->height;
	fs_image *bright[VOTE_DIRS] = {0}, *dark[VOTE_DIRS] = {0};
	fs_image *acc = fs_image_new(w, h);
	if (!acc) {
		snprintf(err, errlen, "auto: out of memory");
		return NULL;
	}
	if (w < 3 || h < 3)
		return acc;
	const float *d = img->data;
	double mean = 0;
	for (int y = 1; y < h - 1; y++) {
		for (int x = 1; x < w - 1; x++) {
			const float *q = d + (size_t)y * w + x;
			double gx = q[1] - q[-1], gy = q[w] - q[-w];
			mean += fabs(gx) + fabs(gy);
		}
	}
	mean /= (double)(w - 2) * (h - 2);
	double rmin = fmax(1, 0.1 * pitch), rmax = 0.45 * pitch;
	double rs = fmax(0.5, (rmax - rmin) / 16);
	/* The votes are cast, blurred and combined one band of rows at a time
	 * (issue 15: the 16 full-size layers took 6.4 GB on 100 MP at a pitch
	 * of 14 px). A band's layers hold its rows and the blur's K rows each
	 * side, and receive the votes of every voter that reaches them (rows
	 * up to rmax + 1 further): each pixel then gets the same votes in the
	 * same order as a full-size layer, and the blur (full rows, the
	 * vertical taps summed in the same order) gives the band's rows the
	 * same values to the bit. A band holds as many pixels as a tile of
	 * the detection's tiling (detect.h; at least 64 rows), the whole
	 * image when the tiling is off. */
	int K = fs_gaussian_radius(blur), reach = (int)ceil(rmax) + 1;
	int tile = 0;
	fs_detect_get_tiling(&tile, NULL);
	long band = tile > 0 ? (long)tile * tile / w : h;
	band = band < 64 ? 64 : band > h ? h : band;
	for (int b0 = 0; b0 < h; b0 += (int)band) {
		int b1 = b0 + band < h ? b0 + (int)band : h;
		int e0 = b0 - K > 0 ? b0 - K : 0, e1 = b1 + K < h ? b1 + K : h;
		int eh = e1 - e0;
		for (int b = 0; b < VOTE_DIRS; b++)
			if (!(bright[b] = fs_image_new(w, eh)) || !(dark[b] = fs_image_new(w, eh))) {
				snprintf(err, errlen, "auto: out of memory");
				goto fail;
			}
		int v0 = e0 - reach > 1 ? e0 - reach : 1, v1 = e1 + reach < h - 1 ? e1 + reach : h - 1;
		for (int y = v0; y < v1; y++) {
			for (int x = 1; x < w - 1; x++) {
				const float *q = d + (size_t)y * w + x;
				/* Sobel */
				double gx = (q[-w + 1] + 2 * q[1] + q[w + 1]) - (q[-w - 1] + 2 * q[-1] + q[w - 1]);
				double gy = (q[w - 1] + 2 * q[w] + q[w + 1]) - (q[-w - 1] + 2 * q[-w] + q[-w + 1]);
				if (fabs(gx) + fabs(gy) < 4 * mean)
					continue;
				double m = hypot(gx, gy);
				if (!(m > 0))
					continue; /* (a flat image's mean 0) no direction, a vote of 0 */
				double ux = gx / m, uy = gy / m;
				/* The point at +r u (up the gradient) has the edge's
				 * brighter side towards it and sees the edge in
				 * direction -u; the point at -r u the darker side, in
				 * direction u. */
				int b = (int)floor((atan2(uy, ux) + M_PI) / (2 * M_PI) * VOTE_DIRS) % VOTE_DIRS;
				float *a1 = bright[(b + VOTE_DIRS / 2) % VOTE_DIRS]->data, *a2 = dark[b]->data;
				for (double r = rmin; r <= rmax + 1e-9; r += rs) {
					int x1 = round_half_away(x + r * ux), y1 = round_half_away(y + r * uy);
					int x2 = round_half_away(x - r * ux), y2 = round_half_away(y - r * uy);
					if (x1 >= 0 && y1 >= e0 && x1 < w && y1 < e1)
						a1[(size_t)(y1 - e0) * w + x1] += (float)m;
					if (x2 >= 0 && y2 >= e0 && x2 < w && y2 < e1)
						a2[(size_t)(y2 - e0) * w + x2] += (float)m;
				}
			}
		}
		for (int b = 0; b < VOTE_DIRS; b++)
			if (fs_gaussian_blur(bright[b], blur, err, errlen) ||
			    fs_gaussian_blur(dark[b], blur, err, errlen))
				goto fail;
		for (int b = 0; b < VOTE_DIRS / 2; b++) {
			int o = b + VOTE_DIRS / 2;
			size_t off = (size_t)(b0 - e0) * w, n = (size_t)(b1 - b0) * w;
			const float *B1 = bright[b]->data + off, *D1 = dark[b]->data + off;
			const float *B2 = bright[o]->data + off, *D2 = dark[o]->data + off;
			float *A = acc->data + (size_t)b0 * w;
			for (size_t i = 0; i < n; i++) {
				float b1v = fmaxf(0, B1[i]), d1 = fmaxf(0, D1[i]);
				float b2 = fmaxf(0, B2[i]), d2 = fmaxf(0, D2[i]);
				A[i] += 2 * sqrtf(fmaxf(0, (b1v + d1) * (b2 + d2) - 0.5f * d1 * d2));
			}
		}
		for (int b = 0; b < VOTE_DIRS; b++) {
			fs_image_free(bright[b]);
			fs_image_free(dark[b]);
			bright[b] = dark[b] = NULL;
		}
	}
	return acc;
fail:
	for (int b = 0; b < VOTE_DIRS; b++) {
		fs_image_free(bright[b]);
		fs_image_free(dark[b]);
	}
	fs_image_free(acc);
	return NULL;
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
	qsort(pr, c->n, sizeof *pr, cmp_double);
	double p90 = pr[(size_t)(0.9 * (c->n - 1))];
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
	if (fs_det_peaks(resp, 0, sep, c)) {
		snprintf(err, errlen, "auto: out of memory");
		return -1;
	}
	fs_det_prominence(resp, c, 0.6 * pitch);
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
 * were cast on (pixels of resp). Returns 0, -1 on out of memory.
 */
static int dome_template_peaks(const fs_image *sm, fs_image **resp, double pitch, const fs_params *p,
			       fs_cand_list *c, double **off, char *err, size_t errlen)
{
	if (!c->n || !(0.5 * pitch >= 1))
		return 0;
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
	for (size_t i = 0; i < seeds.n; i++) {
		xs[i] = seeds.items[i].x;
		ys[i] = seeds.items[i].y;
	}
	if (fs_dome_template_ncc(sm, xs, ys, seeds.n, 0.5 * pitch, &ncc, err, errlen))
		goto out;
	if (ncc) {
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
		 * (detect_cand_tiled.h); the same peaks as below */
		if (dome || f != 1 || pre) {
			snprintf(err, errlen, "auto: tiles are for the outline rule at full resolution");
			goto out;
		}
		if (fs_auto_peaks_tiled(tiled, p->auto_smoothing * pitch, 0.5 * pitch, 0.6 * pitch, &c, &off, err,
					errlen))
			goto out;
		goto select;
	}
	if (dome) {
		/* Votes from edges smoothed at 5 % of the pitch: finer texture
		 * (noise) would vote everywhere. The dots of a printed halftone
		 * screen are edges stronger than the domes' bases: when pre
		 * holds a screen (a period of at most 8 input px, see
		 * halftone.h; on a reduced image the block mean has already
		 * averaged a finer screen away), the low-pass that removes it
		 * from the measurement removes it here too. */
		double sig = fmax(0.5, 0.05 * pitch), period = 0;
		if (fs_halftone_detect(pre, &period, NULL)) {
			snprintf(err, errlen, "auto: out of memory");
			goto out;
		}
		if (period > 0 && period * f <= 8)
			sig = fmax(sig, FS_HALFTONE_LOWPASS * period);
		sm = fs_gaussian_blurred(pre, sig, err, errlen);
		fs_image_free(pre);
		pre = NULL;
		if (!sm)
			goto out;
		/* The votes of one base spread by its radius times the error
		 * of the gradient's direction (about 0.3 rad on noisy,
		 * jittered domes): 0.14 pitch at the largest radius. */
		resp = circle_votes(sm, pitch, fmax(0.7, 0.14 * pitch), err, errlen);
		if (!resp)
			goto out;
	} else {
		/* smoothed in place: the same samples as a smoothed copy, without
		 * a second image of pre's size */
		resp = pre;
		pre = NULL;
		if (fs_gaussian_blur(resp, p->auto_smoothing * pitch, err, errlen))
			goto out;
	}
	/* One base can leave two maxima of its votes up to ~0.6 pitch apart
	 * (its bright crescent and its shadowed side), while lattice
	 * neighbours are 0.8 pitch apart or more: suppress within 0.7 pitch
	 * (0.5 and 0.6 lost scenes of test_sem_accuracy) */
	if (peaks_with_offsets(resp, pitch, (dome ? 0.7 : 0.5) * pitch, &c, &off, err, errlen))
		goto out;
	if (dome && dome_template_peaks(sm, &resp, pitch, p, &c, &off, err, errlen))
		goto out;
select:
	if (keep_prominent(&c, off, p, full_pitch, f, keep, err, errlen))
		goto out;
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
		m = fs_image_clone(img);
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
