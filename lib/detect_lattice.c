/*
 * detect_lattice.c - method "lattice": auto's detection, then the lattice
 * is used to recover missed tubercles and reject off-lattice ones.
 *
 * The lattice vectors are the autocorrelation peaks of fs_lattice_estimate
 * (so a sheared lattice keeps its own vectors). Recovery: from every
 * tubercle, each lattice vector predicts a neighbour; where no tubercle lies
 * within 0.3 pitch of the prediction, the strongest response within 0.25
 * pitch is measured and accepted (source "lattice") if it stands out by at
 * least half of auto's prominence limit. Rejection: a tubercle with no
 * neighbour at 0.7..1.3 pitch (with two or more tubercles found) is dropped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blob_measure.h"
#include "detect_internal.h"

static int has_near(const fs_tubercle_list *l, double x, double y, double d)
{
	for (size_t i = 0; i < l->n; i++)
		if (hypot(l->items[i].centroid_x - x, l->items[i].centroid_y - y) < d)
			return 1;
	return 0;
}

int fs_detect_lattice(const fs_image *pre, const fs_image *meas, int f, const fs_params *p,
		      const fs_lattice *lat, fs_detect_result *out, char *err, size_t errlen)
{
	int rc = -1;
	fs_image *resp = NULL;
	fs_cand_list c = {0};
	fs_tubercle_list *T = &out->tubercles;
	double a = lat->pitch_px;
	if (fs_detect_auto_candidates(pre, f, p, a, &c, &resp, err, errlen))
		goto out;
	if (fs_det_measure(meas, &c, 0.6 * a, 0.4 * a, p, FS_SOURCE_EXTRACTED, T))
		goto oom;
	double minprom = 1e30;
	for (size_t i = 0; i < c.n; i++)
		minprom = fmin(minprom, c.items[i].response);
	int w = meas->width, h = meas->height;
	int sw = resp->width, sh = resp->height;
	double m = p->edge_margin_px > a / 2 ? p->edge_margin_px : a / 2;
	/* Recovery, two rounds (a recovered tubercle can predict the next one). */
	for (int round = 0; round < 2 && T->n; round++) {
		size_t n0 = T->n;
		for (size_t i = 0; i < n0; i++) {
			for (int k = 0; k < lat->n_peaks; k++) {
				double px = T->items[i].centroid_x + lat->peak_dist[k] * cos(lat->peak_angle[k]);
				double py = T->items[i].centroid_y + lat->peak_dist[k] * sin(lat->peak_angle[k]);
				if (px < m || py < m || px > w - 1 - m || py > h - 1 - m)
					continue;
				if (has_near(T, px, py, 0.3 * a))
					continue;
				fs_cand_list one = {0};
				/* Search the reduced response around the prediction. */
				int R = (int)(0.25 * a / f) + 1;
				double spx = (px + 0.5) / f - 0.5, spy = (py + 0.5) / f - 0.5;
				double best = -1, bx = spx, by = spy;
				for (int dy = -R; dy <= R; dy++) {
					for (int dx = -R; dx <= R; dx++) {
						int xx = (int)lround(spx) + dx, yy = (int)lround(spy) + dy;
						if (xx < 0 || yy < 0 || xx >= sw || yy >= sh ||
						    dx * dx + dy * dy > R * R)
							continue;
						double v = fs_image_at(resp, xx, yy);
						if (v > best) {
							best = v;
							bx = xx;
							by = yy;
						}
					}
				}
				fs_cand cc = {bx, by, 0, 0.3 * a};
				if (fs_cand_append(&one, &cc))
					goto oom;
				fs_det_prominence(resp, &one, 0.6 * a / f);
				int ok = one.items[0].response >= 0.5 * minprom;
				one.items[0].x = (bx + 0.5) * f - 0.5;
				one.items[0].y = (by + 0.5) * f - 0.5;
				size_t before = T->n;
				if (ok && fs_det_measure(meas, &one, 0.6 * a, 0.4 * a, p,
							 FS_SOURCE_LATTICE, T)) {
					fs_cand_free(&one);
					goto oom;
				}
				fs_cand_free(&one);
				(void)before;
			}
		}
	}
	/* Rejection of isolated (off-lattice) tubercles. */
	if (T->n >= 2) {
		size_t k = 0;
		for (size_t i = 0; i < T->n; i++) {
			int nb = 0;
			for (size_t j = 0; j < T->n && !nb; j++) {
				double d = hypot(T->items[i].centroid_x - T->items[j].centroid_x,
						 T->items[i].centroid_y - T->items[j].centroid_y);
				nb = j != i && d >= 0.7 * a && d <= 1.3 * a;
			}
			if (nb)
				T->items[k++] = T->items[i];
		}
		T->n = k;
		for (size_t i = 0; i < T->n; i++)
			T->items[i].id = (int)i + 1;
	}
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "lattice: out of memory");
out:
	fs_image_free(resp);
	fs_cand_free(&c);
	return rc;
}
