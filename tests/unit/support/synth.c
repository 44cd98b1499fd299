/* synth.c - synthetic hexagonal tubercle lattices with known truth (see synth.h). */
#include "synth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/preprocess.h"
#include "test_rng.h"

void synth_defaults(synth_opts *o)
{
	memset(o, 0, sizeof *o);
	o->width = 640;
	o->height = 480;
	o->pitch = 20;
	o->diam_ratio = 0.5;
	o->noise = 0.02;
	o->blur = 0.8;
	o->bits = 8;
	o->background = 0.3;
	o->contrast = 0.5;
	o->seed = 1;
}

void synth_truth_free(synth_truth *t)
{
	if (!t)
		return;
	free(t->x);
	free(t->y);
	memset(t, 0, sizeof *t);
}

fs_image *synth_make(const synth_opts *o, synth_truth *t)
{
	memset(t, 0, sizeof *t);
	if (o->width < 8 || o->height < 8 || o->pitch < 2 || o->diam_ratio <= 0 || o->diam_ratio >= 1)
		return NULL;
	uint64_t s = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)o->seed * 7919 + 1);
	int w = o->width, h = o->height;
	double r = 0.5 * o->diam_ratio * o->pitch;
	double c = cos(o->angle), sn = sin(o->angle);
	double ax = o->pitch * c, ay = o->pitch * sn;                  /* a1 */
	double bx = o->pitch * cos(o->angle + M_PI / 3), by = o->pitch * sin(o->angle + M_PI / 3);
	double diag = hypot(w, h);
	int K = (int)(diag / (o->pitch * 0.8)) + 2;
	size_t cap = (size_t)(2 * K + 1) * (2 * K + 1);
	fs_image *img = fs_image_new(w, h);
	float *cov = calloc((size_t)w * h, sizeof *cov);
	int *gi = malloc(cap * sizeof *gi), *gj = malloc(cap * sizeof *gj);
	t->x = malloc(cap * sizeof *t->x);
	t->y = malloc(cap * sizeof *t->y);
	if (!img || !cov || !gi || !gj || !t->x || !t->y)
		goto fail;
	t->radius = r;
	double cx = w / 2.0, cy = h / 2.0;
	for (int i = -K; i <= K; i++) {
		for (int j = -K; j <= K; j++) {
			double x = cx + i * ax + j * bx + (2 * test_xs64_unit(&s) - 1) * o->jitter;
			double y = cy + i * ay + j * by + (2 * test_xs64_unit(&s) - 1) * o->jitter;
			int drop = test_xs64_unit(&s) < o->missing;
			if (drop || x < -r || y < -r || x > w + r || y > h + r)
				continue;
			if (x - r - 1 < o->dark_left)
				continue;
			t->x[t->n] = x;
			t->y[t->n] = y;
			gi[t->n] = i;
			gj[t->n] = j;
			t->n++;
			int x0 = (int)floor(x - r - 1), x1 = (int)ceil(x + r + 1);
			int y0 = (int)floor(y - r - 1), y1 = (int)ceil(y + r + 1);
			for (int py = y0 < 0 ? 0 : y0; py <= y1 && py < h; py++) {
				for (int px = x0 < 0 ? 0 : x0; px <= x1 && px < w; px++) {
					double d = hypot(px - x, py - y);
					double a = r - d + 0.5;
					a = a < 0 ? 0 : a > 1 ? 1 : a;
					float *p = &cov[(size_t)py * w + px];
					if (a > *p)
						*p = (float)a;
				}
			}
		}
	}
	/* Spacing truth over lattice-neighbour pairs that are both present,
	 * found through the lattice index of each site (a pair of sites
	 * compared with every other took hours for the 590,000 tubercles of
	 * bench_large's fine-pitch image); each pair once, in the order of
	 * its first site. */
	double sum = 0;
	size_t np = 0;
	size_t side = (size_t)(2 * K + 1);
	long *at = malloc(side * side * sizeof *at);
	if (!at)
		goto fail;
	for (size_t k = 0; k < side * side; k++)
		at[k] = -1;
	for (size_t a = 0; a < t->n; a++)
		at[(size_t)(gi[a] + K) * side + (size_t)(gj[a] + K)] = (long)a;
	static const int nb[6][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, -1}, {-1, 1}};
	for (size_t a = 0; a < t->n; a++) {
		for (int k = 0; k < 6; k++) {
			int i = gi[a] + nb[k][0], j = gj[a] + nb[k][1];
			if (i < -K || i > K || j < -K || j > K)
				continue;
			long b = at[(size_t)(i + K) * side + (size_t)(j + K)];
			if (b <= (long)a)
				continue;
			sum += hypot(t->x[b] - t->x[a], t->y[b] - t->y[a]) - 2 * r;
			np++;
		}
	}
	free(at);
	t->spacing = np ? sum / np : 0;
	for (int y = 0; y < h; y++) {
		for (int x = 0; x < w; x++) {
			size_t i = (size_t)y * w + x;
			double v = x < o->dark_left ? 0.05 : o->background + o->contrast * cov[i];
			v *= 1 + o->gradient * ((double)x / w - 0.5);
			img->data[i] = (float)v;
		}
	}
	if (o->blur > 0) {
		char err[64];
		if (fs_gaussian_blur(img, o->blur, err, sizeof err))
			goto fail;
	}
	double q = o->bits == 16 ? 65535.0 : o->bits == 8 ? 255.0 : 0;
	for (size_t i = 0; i < (size_t)w * h; i++) {
		double v = img->data[i] + (o->noise > 0 ? o->noise * test_xs64_gauss(&s) : 0);
		v = v < 0 ? 0 : v > 1 ? 1 : v;
		if (q > 0)
			v = floor(v * q + 0.5) / q;
		img->data[i] = (float)v;
	}
	free(cov);
	free(gi);
	free(gj);
	return img;
fail:
	fs_image_free(img);
	free(cov);
	free(gi);
	free(gj);
	synth_truth_free(t);
	return NULL;
}

void synth_match(const synth_truth *t, const double *xs, const double *ys, size_t n, int width,
		 int height, double margin, double max_dist, synth_score *s, int *match_of_det)
{
	memset(s, 0, sizeof *s);
	char *used = calloc(t->n ? t->n : 1, 1);
	size_t matched_true = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->x[i] >= margin && t->y[i] >= margin && t->x[i] <= width - margin &&
		    t->y[i] <= height - margin)
			s->n_true++;
	for (size_t k = 0; k < n; k++) {
		if (match_of_det)
			match_of_det[k] = -1;
		if (xs[k] < margin || ys[k] < margin || xs[k] > width - margin || ys[k] > height - margin)
			continue;
		s->n_found++;
		double bd = max_dist;
		long bi = -1;
		for (size_t i = 0; i < t->n; i++) {
			double d = hypot(t->x[i] - xs[k], t->y[i] - ys[k]);
			if (!used[i] && d <= bd) {
				bd = d;
				bi = (long)i;
			}
		}
		if (bi >= 0) {
			used[bi] = 1;
			s->n_matched++;
			if (t->x[bi] >= margin && t->y[bi] >= margin && t->x[bi] <= width - margin &&
			    t->y[bi] <= height - margin)
				matched_true++;
			if (match_of_det)
				match_of_det[k] = (int)bi;
		}
	}
	s->recall = s->n_true ? (double)matched_true / s->n_true : 0;
	s->precision = s->n_found ? (double)s->n_matched / s->n_found : 0;
	free(used);
}

fs_image *synth_blurred_disk(int W, double c, double R, double in, double out, double sigma)
{
	fs_image *img = fs_image_new(W, W);
	if (!img)
		return NULL;
	for (int y = 0; y < W; y++)
		for (int x = 0; x < W; x++) {
			double v = 0;
			for (int sy = 0; sy < 4; sy++)
				for (int sx = 0; sx < 4; sx++)
					v += hypot(x + (sx + 0.5) / 4 - 0.5 - c, y + (sy + 0.5) / 4 - 0.5 - c) < R ? in : out;
			img->data[y * W + x] = (float)(v / 16);
		}
	char err[64];
	if (sigma > 0 && fs_gaussian_blur(img, sigma, err, sizeof err)) {
		fs_image_free(img);
		return NULL;
	}
	return img;
}

double synth_mean_space(const fs_tubercle_list *T, double pitch)
{
	double s = 0;
	size_t n = 0;
	for (size_t i = 0; i < T->n; i++)
		for (size_t j = i + 1; j < T->n; j++) {
			const fs_tubercle *a = &T->items[i], *b = &T->items[j];
			if (!fs_tubercle_measured(a) || !fs_tubercle_measured(b))
				continue;
			double d = hypot(a->centroid_x - b->centroid_x, a->centroid_y - b->centroid_y);
			if (d < 1.3 * pitch) {
				s += d - a->radius_px - b->radius_px;
				n++;
			}
		}
	return n ? s / n : NAN;
}
