/*
 * detect_ellipse.c - method "ellipse": Otsu threshold, 8-connected regions,
 * and each region's moments (centroid, equivalent diameter, major/minor
 * axis, orientation, eccentricity; circularity = 1 - eccentricity as the
 * original). Regions outside the µm area window (0.5 x the smallest disc to
 * 2 x the largest), with eccentricity > 0.9, or within the edge margin are
 * dropped. Touching tubercles are not split (the original's watershed is
 * not reproduced).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_methods.h"

static double otsu(const fs_image *img)
{
	int hist[256] = {0};
	size_t n = (size_t)img->width * img->height;
	for (size_t i = 0; i < n; i++) {
		int b = (int)(img->data[i] * 255 + 0.5f);
		hist[b < 0 ? 0 : b > 255 ? 255 : b]++;
	}
	double sum = 0;
	for (int i = 0; i < 256; i++)
		sum += (double)i * hist[i];
	double sb = 0, wb = 0, best = -1;
	int t = 127;
	for (int i = 0; i < 256; i++) {
		wb += hist[i];
		if (wb == 0)
			continue;
		double wf = (double)n - wb;
		if (wf == 0)
			break;
		sb += (double)i * hist[i];
		double mb = sb / wb, mf = (sum - sb) / wf;
		double v = wb * wf * (mb - mf) * (mb - mf);
		if (v > best) {
			best = v;
			t = i;
		}
	}
	return (t + 0.5) / 255.0;
}

int fs_detect_ellipse(const fs_image *pre, const fs_image *meas, const fs_params *p, double um_per_px,
		      fs_detect_result *out, char *err, size_t errlen)
{
	int rc = -1;
	(void)meas; /* region moments, not profiles, give this method's sizes */
	int w = pre->width, h = pre->height;
	size_t n = (size_t)w * h;
	unsigned char *fg = malloc(n);
	int *stack = malloc(n * sizeof *stack);
	if (!fg || !stack) {
		snprintf(err, errlen, "ellipse: out of memory");
		goto out;
	}
	double thr = otsu(pre);
	for (size_t i = 0; i < n; i++)
		fg[i] = pre->data[i] > thr;
	double rmin, rmax;
	fs_det_radius_range(p, um_per_px, &rmin, &rmax);
	double amin = M_PI * rmin * rmin * 0.5, amax = M_PI * rmax * rmax * 2.0;
	double m = p->edge_margin_px;
	for (size_t s = 0; s < n; s++) {
		if (!fg[s])
			continue;
		/* Flood fill one region, accumulating raw moments. */
		double S = 0, Sx = 0, Sy = 0, Sxx = 0, Syy = 0, Sxy = 0;
		int top = 0;
		stack[top++] = (int)s;
		fg[s] = 0;
		while (top) {
			int i = stack[--top];
			int x = i % w, y = i / w;
			S += 1;
			Sx += x;
			Sy += y;
			Sxx += (double)x * x;
			Syy += (double)y * y;
			Sxy += (double)x * y;
			for (int dy = -1; dy <= 1; dy++) {
				for (int dx = -1; dx <= 1; dx++) {
					int xx = x + dx, yy = y + dy;
					if (xx < 0 || yy < 0 || xx >= w || yy >= h)
						continue;
					size_t j = (size_t)yy * w + xx;
					if (fg[j]) {
						fg[j] = 0;
						stack[top++] = (int)j;
					}
				}
			}
		}
		if (S < amin || S > amax)
			continue;
		double cx = Sx / S, cy = Sy / S;
		double mxx = Sxx / S - cx * cx + 1.0 / 12, myy = Syy / S - cy * cy + 1.0 / 12;
		double mxy = Sxy / S - cx * cy;
		double tr = mxx + myy, det = mxx * myy - mxy * mxy;
		double disc = sqrt(fmax(0, tr * tr / 4 - det));
		double l1 = tr / 2 + disc, l2 = fmax(0, tr / 2 - disc);
		double ecc = l1 > 0 ? sqrt(fmax(0, 1 - l2 / l1)) : 0;
		if (ecc > 0.9 || 1 - ecc < p->min_circularity)
			continue;
		if (cx < m || cy < m || cx > w - 1 - m || cy > h - 1 - m)
			continue;
		fs_tubercle t = {0};
		t.id = (int)out->tubercles.n + 1;
		t.centroid_x = cx;
		t.centroid_y = cy;
		t.radius_px = sqrt(S / M_PI);
		t.circularity = 1 - ecc;
		t.has_ellipse = 1;
		t.major_axis_px = 4 * sqrt(l1);
		t.minor_axis_px = 4 * sqrt(l2);
		t.orientation = 0.5 * atan2(2 * mxy, mxx - myy);
		t.eccentricity = ecc;
		t.source = FS_SOURCE_EXTRACTED;
		if (fs_tubercle_list_append(&out->tubercles, &t)) {
			snprintf(err, errlen, "ellipse: out of memory");
			goto out;
		}
	}
	rc = 0;
out:
	free(fg);
	free(stack);
	return rc;
}
