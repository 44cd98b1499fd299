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

#include "analysis/detect_methods.h"
#include "analysis/preprocess.h"

#define AUTO_MIN_PROMINENCE 0.01

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Offset in [-0.5, 0.5] of the vertex of the parabola through (-1, a),
 * (0, b), (1, c); 0 when b is not a strict maximum. */
static double vertex(double a, double b, double c)
{
	double d = a - 2 * b + c;
	if (!(d < 0))
		return 0;
	double o = 0.5 * (a - c) / d;
	return o < -0.5 ? -0.5 : o > 0.5 ? 0.5 : o;
}

/*
 * Circle votes (a Hough transform for circles of radius 0.1 .. 0.45 pitch):
 * every pixel whose gradient is stronger than the mean votes, with its
 * gradient magnitude, for the points at those distances along its gradient
 * direction, on both sides. The base of a dome is a circle whatever the
 * detector makes of it (bright facing slope, dark far slope, a ring, a cap),
 * so the votes gather at the dome's centre, not at its brightest part nor
 * in the holes between tight domes. Returns a new image (NULL: out of
 * memory).
 */
static fs_image *circle_votes(const fs_image *img, double pitch)
{
	int w = img->width, h = img->height;
	fs_image *acc = fs_image_new(w, h);
	if (!acc || w < 3 || h < 3)
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
	float *a = acc->data;
	for (int y = 1; y < h - 1; y++) {
		for (int x = 1; x < w - 1; x++) {
			const float *q = d + (size_t)y * w + x;
			/* Sobel */
			double gx = (q[-w + 1] + 2 * q[1] + q[w + 1]) - (q[-w - 1] + 2 * q[-1] + q[w - 1]);
			double gy = (q[w - 1] + 2 * q[w] + q[w + 1]) - (q[-w - 1] + 2 * q[-w] + q[-w + 1]);
			if (fabs(gx) + fabs(gy) < 4 * mean)
				continue;
			double m = hypot(gx, gy);
			double ux = gx / m, uy = gy / m;
			for (double r = rmin; r <= rmax + 1e-9; r += rs) {
				int x1 = (int)lround(x + r * ux), y1 = (int)lround(y + r * uy);
				int x2 = (int)lround(x - r * ux), y2 = (int)lround(y - r * uy);
				if (x1 >= 0 && y1 >= 0 && x1 < w && y1 < h)
					a[(size_t)y1 * w + x1] += (float)m;
				if (x2 >= 0 && y2 >= 0 && x2 < w && y2 < h)
					a[(size_t)y2 * w + x2] += (float)m;
			}
		}
	}
	return acc;
}

/* Smoothed response (or circle votes, dome), prominent peaks. Shared with
 * the lattice method. */
int fs_detect_auto_candidates(const fs_image *pre, int f, const fs_params *p, double pitch, int dome,
			      fs_cand_list *keep, fs_image **resp_out, char *err, size_t errlen)
{
	double full_pitch = pitch;
	pitch /= f;
	int rc = -1;
	fs_cand_list c = {0};
	double *pr = NULL;
	fs_image *resp = NULL;
	if (dome) {
		/* Votes from edges smoothed at 5 % of the pitch: finer texture
		 * (noise, the dots of a printed halftone) would vote everywhere. */
		fs_image *sm = fs_gaussian_blurred(pre, fmax(0.5, 0.05 * pitch), err, errlen);
		if (!sm)
			goto out;
		resp = circle_votes(sm, pitch);
		fs_image_free(sm);
		if (!resp) {
			snprintf(err, errlen, "auto: out of memory");
			goto out;
		}
		if (fs_gaussian_blur(resp, fmax(0.7, 0.06 * pitch), err, errlen))
			goto out;
	} else {
		resp = fs_image_clone(pre);
		if (!resp) {
			snprintf(err, errlen, "auto: out of memory");
			goto out;
		}
		if (fs_gaussian_blur(resp, p->auto_smoothing * pitch, err, errlen))
			goto out;
	}
	/* circle votes also gather (less) in the holes between three tight
	 * domes, 0.58 pitch from their centres: suppress within 0.7 pitch */
	if (fs_det_peaks(resp, 0, (dome ? 0.7 : 0.5) * pitch, &c)) {
		snprintf(err, errlen, "auto: out of memory");
		goto out;
	}
	fs_det_prominence(resp, &c, 0.6 * pitch);
	if (c.n) {
		pr = malloc(c.n * sizeof *pr);
		if (!pr) {
			snprintf(err, errlen, "auto: out of memory");
			goto out;
		}
		for (size_t i = 0; i < c.n; i++)
			pr[i] = c.items[i].response;
		qsort(pr, c.n, sizeof *pr, cmp_double);
		double p90 = pr[(size_t)(0.9 * (c.n - 1))];
		/* the absolute floor (0.01 of the image range) only keeps the
		 * noise of a blank image out; the knob is the relative one */
		double lim = fmax(p->auto_prominence * p90, AUTO_MIN_PROMINENCE);
		for (size_t i = 0; i < c.n; i++) {
			if (c.items[i].response < lim)
				continue;
			c.items[i].r = 0.3 * full_pitch;
			/* Sub-pixel peak (parabola through the 3 samples on each
			 * axis): on the reduced grid a pixel is f pixels of meas,
			 * and a start near the centre saves fs_blob_measure its
			 * second pass. */
			int px = (int)c.items[i].x, py = (int)c.items[i].y;
			double ox = 0, oy = 0;
			if (px > 0 && py > 0 && px < resp->width - 1 && py < resp->height - 1) {
				const float *d = resp->data + (size_t)py * resp->width + px;
				ox = vertex(d[-1], d[0], d[1]);
				oy = vertex(d[-resp->width], d[0], d[resp->width]);
			}
			c.items[i].x = (c.items[i].x + ox + 0.5) * f - 0.5;
			c.items[i].y = (c.items[i].y + oy + 0.5) * f - 0.5;
			if (fs_cand_append(keep, &c.items[i])) {
				snprintf(err, errlen, "auto: out of memory");
				goto out;
			}
		}
	}
	if (resp_out) {
		*resp_out = resp;
		resp = NULL;
	}
	rc = 0;
out:
	fs_image_free(resp);
	fs_cand_free(&c);
	free(pr);
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

int fs_detect_auto(const fs_image *pre, const fs_meas *m, int f, const fs_params *p,
		   const fs_lattice *lat, fs_detect_result *out, char *err, size_t errlen)
{
	int rc = -1;
	fs_cand_list c = {0};
	double a = lat->pitch_px;
	if (fs_detect_auto_candidates(pre, f, p, a, m->dome, &c, NULL, err, errlen))
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
