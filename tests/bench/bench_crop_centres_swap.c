/*
 * bench_crop_centres_swap.c - a paper figure's one-pixel-crop spread
 * under the dome rule split into what the centres make and what the last
 * step (sizing at given centres) makes (h43k).
 *
 * Why: bench_detect_domes --shift shows the dome rule's D / pitch moving
 * by up to 0.07 under a one-pixel crop, and bench_paper_trace shows the
 * last step's formation (h/R, profile, azimuth, shadow) and the level's
 * scale differing between the figure and its crops. Either the centres
 * differ (candidates on the image reduced by pitch / 10, whose blocks
 * start at the frame's origin, then the template fit and refinement) and
 * the last step follows them, or the last step itself reads other sizes
 * at the same centres from the same pixels cut one px shorter. Swapping
 * the centres tells them apart: the whole figure's final centres
 * re-measured (fs_measure_centres_rule, the dome rule's last step at
 * given centres) on the crop, and the crop's on the whole figure. If the
 * sizes follow the centres, the centres make the spread; if they follow
 * the pixels, the last step does.
 *
 * For each crop (+1+0, +0+1, +1+1 and any given with --crop DX DY) it
 * prints the mean D / pitch of: the whole figure's detection, its
 * centres re-measured on the whole (identity check), the crop's
 * detection, its centres re-measured on the crop (identity check), the
 * whole's centres moved by the crop and re-measured on the crop, and the
 * crop's centres re-measured on the whole. No scale region
 * (bench_detect_domes --shift's frame). Asserts nothing.
 *
 * Usage: bench_crop_centres_swap [--crop DX DY] [FILTER] (default FILTER
 * "P1_Fig4").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/measurement.h"
#include "image/image_io.h"
#include "image/image_transform.h"
#include "paper_figs.h"

/* Mean D / pitch of the sized tubercles of t; *n their count. */
static double mean_dp(const fs_tubercle_list *t, double pitch, size_t *n)
{
	double s = 0;
	size_t m = 0;
	for (size_t i = 0; i < t->n; i++)
		if (isfinite(t->items[i].radius_px)) {
			s += 2 * t->items[i].radius_px;
			m++;
		}
	*n = m;
	return m && pitch > 0 ? s / (double)m / pitch : NAN;
}

/* A copy of src's centres moved by (mx, my), keeping those inside a
 * w x h frame; sizes cleared. 0, -1 when out of memory. */
static int moved_copy(const fs_tubercle_list *src, double mx, double my, int w, int h, fs_tubercle_list *dst)
{
	memset(dst, 0, sizeof *dst);
	for (size_t i = 0; i < src->n; i++) {
		fs_tubercle t = src->items[i];
		t.centroid_x += mx;
		t.centroid_y += my;
		if (!(t.centroid_x >= 0 && t.centroid_y >= 0 && t.centroid_x < w && t.centroid_y < h))
			continue;
		t.radius_px = NAN;
		if (fs_tubercle_list_append(dst, &t))
			return -1;
	}
	return 0;
}

/* Re-measures a copy of src moved by (mx, my) on img under the dome rule
 * and prints its line; returns its D / pitch. */
static double remeasure_line(const char *what, const fs_image *img, const fs_tubercle_list *src, double mx,
			     double my, double pitch)
{
	fs_params p;
	fs_params_default(&p);
	fs_tubercle_list t;
	char err[256];
	if (moved_copy(src, mx, my, img->width, img->height, &t)) {
		printf("  %-34s out of memory\n", what);
		return NAN;
	}
	if (fs_measure_centres_rule(img, &p, 0, FS_RULE_DOME, &t, err, sizeof err)) {
		printf("  %-34s failed: %s\n", what, err);
		fs_tubercle_list_free(&t);
		return NAN;
	}
	size_t n;
	double v = mean_dp(&t, pitch, &n);
	printf("  %-34s %3zu centres, %3zu sized, D / pitch %.3f\n", what, t.n, n, v);
	fs_tubercle_list_free(&t);
	return v;
}

static int detect_line(const char *what, const fs_image *img, fs_detect_result *res)
{
	fs_params p;
	fs_params_default(&p);
	char err[256];
	if (fs_detect_domes(img, &p, 0, res, err, sizeof err)) {
		printf("  %-34s detection failed: %s\n", what, err);
		return -1;
	}
	size_t n;
	double v = mean_dp(&res->tubercles, res->pitch_px, &n);
	printf("  %-34s %3zu centres, %3zu sized, D / pitch %.3f (pitch %.2f)\n", what, res->tubercles.n, n, v,
	       res->pitch_px);
	return 0;
}

static void one_figure(const char *name, const int (*crops)[2], size_t ncrops)
{
	char path[512], err[256];
	snprintf(path, sizeof path, "tests/fixtures/paper/%s", name);
	fs_loaded L;
	if (fs_load_file(path, NULL, &L, err, sizeof err)) {
		printf("%s: load failed: %s\n", name, err);
		return;
	}
	printf("%s\n", name);
	fs_detect_result W;
	if (detect_line("whole, detected", L.image, &W)) {
		fs_loaded_free(&L);
		return;
	}
	remeasure_line("whole's centres on whole", L.image, &W.tubercles, 0, 0, W.pitch_px);
	for (size_t k = 0; k < ncrops; k++) {
		int dx = crops[k][0], dy = crops[k][1];
		fs_rect r = {dx, dy, L.image->width - dx, L.image->height - dy};
		fs_image *c = fs_image_crop(L.image, r, NULL, err, sizeof err);
		if (!c) {
			printf(" crop +%d+%d failed: %s\n", dx, dy, err);
			continue;
		}
		printf(" crop +%d+%d\n", dx, dy);
		fs_detect_result C;
		if (!detect_line("crop, detected", c, &C)) {
			remeasure_line("crop's centres on crop", c, &C.tubercles, 0, 0, C.pitch_px);
			remeasure_line("whole's centres on crop", c, &W.tubercles, -dx, -dy, C.pitch_px);
			remeasure_line("crop's centres on whole", L.image, &C.tubercles, dx, dy, W.pitch_px);
			fs_detect_result_free(&C);
		}
		fs_image_free(c);
	}
	fs_detect_result_free(&W);
	fs_loaded_free(&L);
}

int main(int argc, char **argv)
{
	static int crops[8][2] = {{1, 0}, {0, 1}, {1, 1}};
	size_t ncrops = 3;
	const char *only = "P1_Fig4";
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--crop") && a + 2 < argc) {
			if (ncrops == 3)
				ncrops = 0;
			if (ncrops < 8) {
				crops[ncrops][0] = atoi(argv[a + 1]);
				crops[ncrops][1] = atoi(argv[a + 2]);
				ncrops++;
			}
			a += 2;
		} else {
			only = argv[a];
		}
	}
	const char *paper[PAPER_FIGS_MAX];
	size_t npaper = paper_fig_names(paper, PAPER_FIGS_MAX);
	if (!npaper) {
		printf("tests/fixtures/paper/expected.csv cannot be read\n");
		return 1;
	}
	for (size_t i = 0; i < npaper; i++)
		if (strstr(paper[i], only))
			one_figure(paper[i], (const int (*)[2])crops, ncrops);
	return 0;
}
