/*
 * The image's mean dome correlated with the image (dome_template.h), the
 * dome rule's candidates, against the SEM simulator's truth.
 *
 * The scene is the hardest kind for the circle votes (docs/paper-figures.md,
 * h20g): tight flat-topped steep domes (fill 0.80) at pitch 16 under a
 * 5 px halftone screen, lit from the side. The seeds are the true centres
 * scattered by up to 0.2 pitch, as the votes scatter there (2.1-2.6 px rms).
 * What the correlation must do with them: put its peak at the same place
 * on every dome - the true centre plus one common offset (where the seeds
 * sit on average) - far more consistently than the seeds themselves; and
 * not depend on the image's brightness and contrast.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dome_template.h"
#include "base/cpu_features.h"
#include "sem_sim.h"

static fs_image *scene(sem_truth *t)
{
	sem_opts o;
	sem_defaults(&o);
	o.width = 240;
	o.height = 200;
	o.pitch = 16;
	o.fill = 0.80;
	o.profile = 2;
	o.h_over_r = 1.0;
	o.halftone = 5;
	o.angle = 0.3;
	o.seed = 20;
	fs_image *img = sem_make(&o, t);
	assert_non_null(img);
	return img;
}

/* The true centres moved by a deterministic scatter of up to 0.2 pitch,
 * uniform over that disc (rms 0.14 pitch)
 * (a fixed linear congruential sequence: the same seeds every run). */
static void scattered_seeds(const sem_truth *t, double *xs, double *ys, double *seed_rms)
{
	unsigned s = 12345;
	double s2 = 0;
	for (size_t j = 0; j < t->n; j++) {
		s = s * 1103515245u + 12345u;
		double a = 2 * M_PI * ((s >> 8) & 0xffff) / 65536.0;
		s = s * 1103515245u + 12345u;
		double r = 0.2 * t->pitch * sqrt(((s >> 8) & 0xffff) / 65536.0); /* uniform over the disc */
		xs[j] = t->x[j] + r * cos(a);
		ys[j] = t->y[j] + r * sin(a);
		s2 += r * r;
	}
	*seed_rms = sqrt(s2 / t->n);
}

/* The correlation's maximum within 0.4 pitch of each counted true dome:
 * its offset from the truth, the mean offset and the rms about it. */
static void peaks_about_truth(const fs_image *ncc, const sem_truth *t, double *mx, double *my, double *rms,
			      size_t *n)
{
	double sx = 0, sy = 0, sxx = 0, syy = 0;
	size_t k = 0;
	int R = (int)(0.4 * t->pitch);
	for (size_t j = 0; j < t->n; j++) {
		if (!sem_counted(t, t->x[j], t->y[j]))
			continue;
		int cx = (int)lround(t->x[j]), cy = (int)lround(t->y[j]);
		double best = -2;
		int bx = cx, by = cy;
		for (int dy = -R; dy <= R; dy++)
			for (int dx = -R; dx <= R; dx++) {
				int x = cx + dx, y = cy + dy;
				if (x < 0 || y < 0 || x >= ncc->width || y >= ncc->height || dx * dx + dy * dy > R * R)
					continue;
				double v = ncc->data[(size_t)y * ncc->width + x];
				if (v > best) {
					best = v;
					bx = x;
					by = y;
				}
			}
		double ex = bx - t->x[j], ey = by - t->y[j];
		sx += ex;
		sy += ey;
		sxx += ex * ex;
		syy += ey * ey;
		k++;
	}
	*n = k;
	*mx = sx / k;
	*my = sy / k;
	*rms = sqrt(fmax(0, sxx / k - *mx * *mx + syy / k - *my * *my));
}

static void same_place_on_every_dome(void **state)
{
	(void)state;
	sem_truth t;
	fs_image *img = scene(&t);
	double *xs = malloc(t.n * sizeof *xs), *ys = malloc(t.n * sizeof *ys);
	assert_true(xs && ys);
	double seed_rms;
	scattered_seeds(&t, xs, ys, &seed_rms);
	fs_image *ncc = NULL;
	char err[128];
	assert_int_equal(fs_dome_template_ncc(img, xs, ys, t.n, 0.5 * t.pitch, &ncc, err, sizeof err), 0);
	assert_non_null(ncc);
	assert_int_equal(ncc->width, img->width);
	double mx, my, rms;
	size_t n;
	peaks_about_truth(ncc, &t, &mx, &my, &rms, &n);
	printf("seeds %.2f px rms; correlation peaks %.2f px rms about their mean offset (%.2f, %.2f) px, %zu domes\n",
	       seed_rms, rms, mx, my, n);
	assert_true(n > 60);
	/* The seeds scatter by ~2.3 px rms (0.14 pitch); about their common
	 * offset the correlation's peaks scatter by at most a pixel (pixel
	 * grid included), and the common offset itself is small. */
	assert_true(seed_rms > 2);
	assert_true(rms < 1.0);
	assert_true(hypot(mx, my) < 0.1 * t.pitch);
	/* A correlation: within [-1, 1]. */
	for (size_t i = 0; i < (size_t)ncc->width * ncc->height; i++)
		assert_true(ncc->data[i] >= -1.0001f && ncc->data[i] <= 1.0001f);
	fs_image_free(ncc);
	free(xs);
	free(ys);
	sem_truth_free(&t);
	fs_image_free(img);
}

/* Normalised: a brighter, lower-contrast image correlates the same. */
static void brightness_and_contrast_do_not_matter(void **state)
{
	(void)state;
	sem_truth t;
	fs_image *img = scene(&t);
	fs_image *dim = fs_image_new(img->width, img->height);
	assert_non_null(dim);
	for (size_t i = 0; i < (size_t)img->width * img->height; i++)
		dim->data[i] = 0.3f + 0.4f * img->data[i];
	fs_image *a = NULL, *b = NULL;
	char err[128];
	assert_int_equal(fs_dome_template_ncc(img, t.x, t.y, t.n, 0.5 * t.pitch, &a, err, sizeof err), 0);
	assert_int_equal(fs_dome_template_ncc(dim, t.x, t.y, t.n, 0.5 * t.pitch, &b, err, sizeof err), 0);
	assert_true(a && b);
	double worst = 0;
	for (size_t i = 0; i < (size_t)img->width * img->height; i++)
		worst = fmax(worst, fabs(a->data[i] - b->data[i]));
	assert_true(worst < 1e-3);
	fs_image_free(a);
	fs_image_free(b);
	fs_image_free(dim);
	sem_truth_free(&t);
	fs_image_free(img);
}

/* The correlation at a pixel is the same number wherever the pixel lies
 * in the image: the inner pixels are computed four at a time (one lane
 * each), the ones near the border one at a time, and a pixel moves from
 * one lane to another, or to the one-at-a-time path, when the image is
 * shifted. Shifted by 1-5 whole columns (the seeds with it, on whole
 * pixels, so the template is the same), every pixel whose disc lies in
 * both images correlates to the same bits. */
static void same_value_in_every_lane(void **state)
{
	(void)state;
	sem_truth t;
	fs_image *img = scene(&t);
	double *xs = malloc(t.n * sizeof *xs), *ys = malloc(t.n * sizeof *ys);
	assert_true(xs && ys);
	int R = (int)floor(0.5 * t.pitch);
	/* the seeds whose disc lies whole in the image (the others, left
	 * out of the template here, would enter it in the shifted image) */
	size_t n = 0;
	for (size_t j = 0; j < t.n; j++) {
		double x = floor(t.x[j]), y = floor(t.y[j]);
		if (x - R < 0 || y - R < 0 || x + R > img->width - 1 || y + R > img->height - 1)
			continue;
		xs[n] = x;
		ys[n++] = y;
	}
	fs_image *a = NULL;
	char err[128];
	assert_int_equal(fs_dome_template_ncc(img, xs, ys, n, 0.5 * t.pitch, &a, err, sizeof err), 0);
	assert_non_null(a);
	size_t compared = 0, nonzero = 0;
	for (int sh = 1; sh <= 5; sh++) {
		/* the image shifted right by sh columns, the seeds with it */
		fs_image *s = fs_image_new(img->width + sh, img->height);
		assert_non_null(s);
		for (int y = 0; y < s->height; y++)
			for (int x = 0; x < s->width; x++)
				s->data[(size_t)y * s->width + x] =
					img->data[(size_t)y * img->width + (x - sh < 0 ? 0 : x - sh)];
		double *sx = malloc(n * sizeof *sx);
		assert_non_null(sx);
		for (size_t j = 0; j < n; j++)
			sx[j] = xs[j] + sh;
		fs_image *b = NULL;
		assert_int_equal(fs_dome_template_ncc(s, sx, ys, n, 0.5 * t.pitch, &b, err, sizeof err), 0);
		assert_non_null(b);
		for (int y = 0; y < img->height; y++)
			for (int x = R; x < img->width; x++) {
				float va = a->data[(size_t)y * img->width + x];
				float vb = b->data[(size_t)y * s->width + x + sh];
				assert_memory_equal(&va, &vb, sizeof va);
				compared++;
				nonzero += va != 0;
			}
		fs_image_free(b);
		fs_image_free(s);
		free(sx);
	}
	assert_true(compared > 100000);
	assert_true(nonzero > compared / 2);
	fs_image_free(a);
	free(xs);
	free(ys);
	sem_truth_free(&t);
	fs_image_free(img);
}

/* No template without three whole discs; bad arguments are errors. */
static void too_few_patches_and_bad_arguments(void **state)
{
	(void)state;
	fs_image *img = fs_image_new(40, 40);
	assert_non_null(img);
	for (size_t i = 0; i < 1600; i++)
		img->data[i] = (float)((i * 7919) % 13) / 13.0f;
	double xs[3] = {20, 2, 38}, ys[3] = {20, 20, 20};
	fs_image *out = (fs_image *)1;
	char err[128];
	/* two of the three discs leave the image */
	assert_int_equal(fs_dome_template_ncc(img, xs, ys, 3, 5, &out, err, sizeof err), 0);
	assert_null(out);
	assert_int_equal(fs_dome_template_ncc(img, xs, ys, 3, 0.5, &out, err, sizeof err), -1);
	assert_null(out);
	assert_int_equal(fs_dome_template_ncc(NULL, xs, ys, 3, 5, &out, err, sizeof err), -1);
	/* a flat image: a flat template correlates with nothing */
	for (size_t i = 0; i < 1600; i++)
		img->data[i] = 0.5f;
	double cx[3] = {10, 20, 30}, cy[3] = {20, 20, 20};
	assert_int_equal(fs_dome_template_ncc(img, cx, cy, 3, 5, &out, err, sizeof err), 0);
	assert_non_null(out);
	for (size_t i = 0; i < 1600; i++)
		assert_true(out->data[i] == 0);
	fs_image_free(out);
	fs_image_free(img);
}

/* The pixels whose discs the image cuts: within R of the top or bottom
 * eight to a call (ncc8_cut), within R of the left or right edge four
 * rows to a call (ncc4_col), elsewhere one at a time, and with AVX
 * forbidden all of them one at a time. Each must be the one-pixel loop's
 * number to the bit, over the whole image and over a window of it that
 * holds the corner (as the tiled candidates ask for it), with the
 * rectangle's height not a multiple of four (h49d). */
static void cut_discs_same_bits_in_lanes(void **state)
{
	(void)state;
	sem_truth t;
	fs_image *img = scene(&t);
	int w = img->width, h = img->height;
	fs_dome_mean m;
	char err[128];
	assert_int_equal(fs_dome_mean_of_points(&m, img, t.x, t.y, t.n, 0.5 * t.pitch, err, sizeof err), 1);
	int R = m.R;
	size_t n = (size_t)w * h;
	float *lanes = malloc(n * sizeof *lanes), *plain = malloc(n * sizeof *plain);
	assert_true(lanes && plain);
	fs_dome_mean_ncc(&m, img->data, (size_t)w, 0, 0, w, h, 0, 0, w, h, lanes, (size_t)w);
	fs_cpu_forbid(FS_CPU_FORBID_AVX);
	fs_dome_mean_ncc(&m, img->data, (size_t)w, 0, 0, w, h, 0, 0, w, h, plain, (size_t)w);
	fs_cpu_forbid(FS_CPU_ALLOW_ALL);
	size_t cut = 0;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			size_t i = (size_t)y * w + x;
			assert_memory_equal(&lanes[i], &plain[i], sizeof lanes[i]);
			cut += (x < R || y < R || x >= w - R || y >= h - R) && lanes[i] != 0;
		}
	/* the cut discs are read, not left at 0 */
	assert_true(cut > (size_t)(w + h) * R);
	/* a window of the image at (sx, sy) holding the rectangle
	 * [0, 37) x [0, 30) and R pixels more right and down */
	int sx = 0, sy = 0, ww = 37 + R, wh = 30 + R;
	float *win = malloc((size_t)ww * wh * sizeof *win), *o = malloc(37 * 30 * sizeof *o);
	assert_true(win && o);
	for (int y = 0; y < wh; y++)
		memcpy(win + (size_t)y * ww, img->data + (size_t)(y + sy) * w + sx, (size_t)ww * sizeof *win);
	fs_dome_mean_ncc(&m, win, (size_t)ww, sx, sy, w, h, 0, 0, 37, 30, o, 37);
	for (int y = 0; y < 30; y++)
		assert_memory_equal(o + (size_t)y * 37, plain + (size_t)y * w, 37 * sizeof *o);
	/* and one at the bottom right corner: [w - 29, w) x [h - 23, h) */
	sx = w - 29 - R;
	sy = h - 23 - R;
	for (int y = 0; y < 23 + R; y++)
		memcpy(win + (size_t)y * ww, img->data + (size_t)(y + sy) * w + sx, (size_t)(29 + R) * sizeof *win);
	fs_dome_mean_ncc(&m, win, (size_t)ww, sx, sy, w, h, w - 29, h - 23, w, h, o, 29);
	for (int y = 0; y < 23; y++)
		assert_memory_equal(o + (size_t)y * 29, plain + (size_t)(h - 23 + y) * w + w - 29, 29 * sizeof *o);
	free(win);
	free(o);
	free(lanes);
	free(plain);
	fs_dome_mean_free(&m);
	sem_truth_free(&t);
	fs_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_place_on_every_dome),
		cmocka_unit_test(brightness_and_contrast_do_not_matter),
		cmocka_unit_test(too_few_patches_and_bad_arguments),
		cmocka_unit_test(same_value_in_every_lane),
		cmocka_unit_test(cut_discs_same_bits_in_lanes),
	};
	return cmocka_run_group_tests_name("dome template", tests, NULL, NULL);
}
