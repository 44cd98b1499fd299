/*
 * lattice_estimate.c - lattice pitch and angle from the autocorrelation
 * (see lattice_estimate.h).
 *
 * Steps: take a central crop (<= 256 samples a side, at half resolution first), blur it lightly (sigma 1.5
 * suppresses the halftone screen of scanned figures), remove the local mean
 * (three box blurs ~ a Gaussian of crop/8, so illumination and a dark
 * background outside the scale do not dominate), apply a Hann window,
 * zero-pad to a power of two, and compute the autocorrelation as the inverse
 * FFT of the power spectrum. The angular mean of the autocorrelation falls
 * from the centre to a first minimum and rises to the ring of the six
 * nearest neighbours; its maximum after that minimum gives a first pitch,
 * which the 2-D peaks of that ring refine to sub-pixel precision.
 */
#include "analysis/lattice_estimate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fft.h"
#include "analysis/parabola_vertex.h"
#include "analysis/preprocess.h"

#define CROP_MAX 512
#define MIN_PITCH 6

static size_t next_pow2(size_t n)
{
	size_t p = 1;
	while (p < n)
		p <<= 1;
	return p;
}

/* Autocorrelation value at lag (dx, dy) (wrapped indexing). */
static float acf_at(const float *acf, size_t pw, size_t ph, int dx, int dy)
{
	size_t x = (size_t)((dx % (int)pw + (int)pw) % (int)pw);
	size_t y = (size_t)((dy % (int)ph + (int)ph) % (int)ph);
	return acf[y * pw + x];
}

/* One estimate on a central crop of crop_max x f pixels reduced by f; the
 * distances are returned in pixels of img. */
static int estimate(const fs_image *img, int f, int crop_max, fs_lattice *out, char *err,
		    size_t errlen)
{
	int rc = -1;
	fs_image *crop = NULL, *bg = NULL;
	float *re = NULL, *rowbuf = NULL;
	double *prof = NULL, *hann = NULL;
	int *cnt = NULL;
	memset(out, 0, sizeof *out);
	int cw = img->width / f < crop_max ? img->width / f : crop_max;
	int ch = img->height / f < crop_max ? img->height / f : crop_max;
	int x0 = (img->width - cw * f) / 2, y0 = (img->height - ch * f) / 2;
	size_t pw = next_pow2((size_t)cw), ph = next_pow2((size_t)ch);
	crop = fs_image_new(cw, ch);
	bg = fs_image_new(cw, ch);
	re = calloc(pw * ph, sizeof *re);
	int rmax = (cw < ch ? cw : ch) / 3;
	prof = calloc((size_t)rmax + 2, sizeof *prof);
	cnt = calloc((size_t)rmax + 2, sizeof *cnt);
	hann = malloc((size_t)cw * sizeof *hann);
	rowbuf = malloc((size_t)2 * cw * f * sizeof *rowbuf);
	if (!crop || !bg || !re || !prof || !cnt || !hann || !rowbuf) {
		snprintf(err, errlen, "lattice estimate: out of memory");
		goto out;
	}
	/* rows of the crop as floats (a compact image's converted): the same
	 * sums, in the same order, as over the float image */
	const float *rows[2];
	for (int y = 0; y < ch; y++) {
		for (int j = 0; j < f; j++)
			rows[j] = fs_image_span(img, x0, y0 + y * f + j, cw * f, rowbuf + (size_t)j * cw * f);
		for (int x = 0; x < cw; x++) {
			double s = 0;
			for (int j = 0; j < f; j++)
				for (int i = 0; i < f; i++)
					s += rows[j][x * f + i];
			crop->data[(size_t)y * cw + x] = (float)(s / (f * f));
		}
	}
	if (fs_gaussian_blur(crop, 1.5, err, errlen))
		goto out;
	memcpy(bg->data, crop->data, (size_t)cw * ch * sizeof(float));
	int br = (cw < ch ? cw : ch) / 16;
	for (int i = 0; i < 3; i++)
		if (fs_box_blur(bg, br > 1 ? br : 1, err, errlen))
			goto out;
	/* Hann window, separable: the column factors once, not per pixel. */
	for (int x = 0; x < cw; x++)
		hann[x] = 0.5 - 0.5 * cos(2 * M_PI * (x + 0.5) / cw);
	for (int y = 0; y < ch; y++) {
		double wy = 0.5 - 0.5 * cos(2 * M_PI * (y + 0.5) / ch);
		for (int x = 0; x < cw; x++) {
			size_t i = (size_t)y * cw + x;
			re[(size_t)y * pw + x] = (float)((crop->data[i] - bg->data[i]) * hann[x] * wy);
		}
	}
	if (fs_autocorr2d(re, pw, ph, 1)) {
		snprintf(err, errlen, "lattice estimate: out of memory");
		goto out;
	}
	float a0 = re[0];
	if (!(a0 > 0)) {
		rc = 0; /* flat image: no lattice */
		goto out;
	}
	for (size_t i = 0; i < pw * ph; i++)
		re[i] /= a0;

	/* Angular mean of the autocorrelation, 1-px rings. */
	for (int dy = -rmax; dy <= rmax; dy++) {
		for (int dx = -rmax; dx <= rmax; dx++) {
			int r = (int)lround(sqrt((double)dx * dx + (double)dy * dy));
			if (r > rmax)
				continue;
			prof[r] += acf_at(re, pw, ph, dx, dy);
			cnt[r]++;
		}
	}
	for (int r = 0; r <= rmax; r++)
		prof[r] = cnt[r] ? prof[r] / cnt[r] : 0;
	int rmin = 1;
	while (rmin < rmax && prof[rmin + 1] < prof[rmin])
		rmin++;
	int best = -1;
	for (int r = rmin + 1; r < rmax; r++) {
		if (r < MIN_PITCH)
			continue;
		if (best < 0 || prof[r] > prof[best])
			best = r;
	}
	if (best < 0 || prof[best] - prof[rmin] < 0.01) {
		rc = 0;
		goto out;
	}

	/* 2-D peaks on the ring around the first pitch: local maxima of the
	 * autocorrelation within 0.75..1.25 x pitch, strongest six. */
	double lo = 0.75 * best, hi = 1.25 * best;
	int hr = (int)ceil(hi) + 1;
	double pv[6] = {0}, px[6] = {0}, py[6] = {0};
	int np = 0;
	for (int dy = -hr; dy <= hr; dy++) {
		for (int dx = -hr; dx <= hr; dx++) {
			double d = sqrt((double)dx * dx + (double)dy * dy);
			if (d < lo || d > hi)
				continue;
			float v = acf_at(re, pw, ph, dx, dy);
			int is_max = 1;
			for (int j = -1; j <= 1 && is_max; j++)
				for (int i = -1; i <= 1; i++)
					if ((i || j) && acf_at(re, pw, ph, dx + i, dy + j) > v) {
						is_max = 0;
						break;
					}
			if (!is_max)
				continue;
			double ox = fs_parabola_vertex(acf_at(re, pw, ph, dx - 1, dy), v,
						       acf_at(re, pw, ph, dx + 1, dy));
			double oy = fs_parabola_vertex(acf_at(re, pw, ph, dx, dy - 1), v,
						       acf_at(re, pw, ph, dx, dy + 1));
			/* Insert into the top-6 list, kept sorted by value. */
			if (np == 6 && v <= pv[5])
				continue;
			int k = np < 6 ? np++ : 5;
			while (k > 0 && pv[k - 1] < v) {
				pv[k] = pv[k - 1];
				px[k] = px[k - 1];
				py[k] = py[k - 1];
				k--;
			}
			pv[k] = v;
			px[k] = dx + ox;
			py[k] = dy + oy;
		}
	}
	if (np < 2) {
		rc = 0;
		goto out;
	}
	double dist[6];
	for (int i = 0; i < np; i++) {
		px[i] *= f;
		py[i] *= f;
		dist[i] = hypot(px[i], py[i]);
		out->peak_dist[i] = dist[i];
		out->peak_angle[i] = atan2(py[i], px[i]);
	}
	out->n_peaks = np;
	/* The mean over the ring (not only the strongest pair) averages out
	 * shear, which scanned figures often have. */
	double sum = 0;
	for (int i = 0; i < np; i++)
		sum += dist[i];
	out->pitch_px = sum / np;
	double ang = fmod(atan2(py[0], px[0]), M_PI / 3);
	if (ang < 0)
		ang += M_PI / 3;
	out->angle = ang;
	out->strength = pv[0];
	rc = 0;
out:
	fs_image_free(crop);
	fs_image_free(bg);
	free(re);
	free(prof);
	free(cnt);
	free(hann);
	free(rowbuf);
	return rc;
}

int fs_lattice_estimate(const fs_image *img, fs_lattice *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	if (!img || img->width < 32 || img->height < 32) {
		snprintf(err, errlen, "lattice estimate: image must be at least 32 x 32 pixels");
		return -1;
	}
	/* Coarse first (half resolution, pitches >= 12 px) because it is four
	 * times cheaper; full resolution when that finds nothing or a pitch too
	 * small to be sure of at half resolution. (A quarter-resolution level
	 * was tried: with pitches under ~24 px it finds spurious long pitches
	 * in the illumination instead of nothing.) */
	if (img->width >= 96 && img->height >= 96) {
		if (estimate(img, 2, CROP_MAX / 2, out, err, errlen))
			return -1;
		if (out->pitch_px >= 16)
			return 0;
	}
	return estimate(img, 1, CROP_MAX / 2, out, err, errlen);
}
