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
 * --pitch-sweep HALF STEP (h44j): instead, the whole figure's own final
 * centres sized by the last step with the pitch it is handed moved from
 * Re-measure's own (fs_lattice_estimate, fs_measure_centres_pitch) by
 * -HALF..+HALF px in steps of STEP, each stage's output printed: the rays'
 * reach (0.6 pitch) and band, the base readings (how many read, how many
 * the formation keeps, their median radius), the formation fit's own
 * pitch (median neighbour distance of the kept domes) and fill start,
 * the formation it picks (profile, h/R, blur, elevation, azimuth, the
 * per-profile residual sums), the base-fit step (fitted, read, no-step,
 * scale) and the D / pitch the step's parts give, then the rule's own
 * (fs_det_size_domes_list) - the two must agree - and the D / pitch of
 * the templates and level with the formation held at the unmoved pitch's
 * (the formation's turns told from the later steps'). Why: h43k found the
 * small-pitch P2 figures' last step jumping 0.024 of D / pitch for 0.01
 * px of pitch; the sweep shows which stage turns the pitch into a
 * discrete choice. D / pitch is over Re-measure's own pitch throughout,
 * so that only the sizes move.
 *
 * Usage: bench_crop_centres_swap [--crop DX DY] [--pitch-sweep HALF STEP]
 * [FILTER] (default FILTER "P1_Fig4").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/detect_base_fit.h"
#include "analysis/detect_measure.h"
#include "analysis/detect_methods.h"
#include "analysis/detect_offset.h"
#include "analysis/dome_fit.h"
#include "analysis/dome_measure.h"
#include "analysis/lattice_estimate.h"
#include "analysis/measurement.h"
#include "base/sorting.h"
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

/* Paper figure name loaded (L) and detected whole (W, its line
 * printed): 0, or -1 with what failed printed and nothing kept. */
static int figure_whole(const char *name, fs_loaded *L, fs_detect_result *W)
{
	char path[512], err[256];
	snprintf(path, sizeof path, "tests/fixtures/paper/%s", name);
	if (fs_load_file(path, NULL, L, err, sizeof err)) {
		printf("%s: load failed: %s\n", name, err);
		return -1;
	}
	printf("%s\n", name);
	if (detect_line("whole, detected", L->image, W)) {
		fs_loaded_free(L);
		return -1;
	}
	return 0;
}

static void one_figure(const char *name, const int (*crops)[2], size_t ncrops)
{
	fs_loaded L;
	fs_detect_result W;
	if (figure_whole(name, &L, &W))
		return;
	char err[256];
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

/* The last step's stages at given centres (fs_det_measure_domes_at's
 * order, whole image, given 1) with the rays' reach mr; prints one line.
 * p0: the pitch D is divided by. */
static void sweep_line(const fs_image *meas, const fs_image *src, const fs_params *p, const fs_tubercle_list *w,
		       double pitch, double p0, double *prev_r, int *prev_kept, int first, const fs_det_offset *fixed,
		       fs_det_offset *save)
{
	size_t n = w->n;
	double mr = 0.6 * pitch, r0 = FS_DOME_R0 * mr, r1 = FS_DOME_R1 * mr;
	fs_cand_list c = {0};
	fs_measured *res = calloc(n, sizeof *res), *res2 = calloc(n, sizeof *res2);
	double *xs = malloc(n * sizeof *xs), *ys = malloc(n * sizeof *ys), *rs = malloc(n * sizeof *rs);
	c.items = malloc(n * sizeof *c.items);
	fs_tubercle_list t;
	char err[256];
	if (!res || !res2 || !xs || !ys || !rs || !c.items || moved_copy(w, 0, 0, src->width, src->height, &t)) {
		printf("  out of memory\n");
		goto out;
	}
	c.n = c.cap = n;
	for (size_t i = 0; i < n; i++)
		c.items[i] = (fs_cand){w->items[i].centroid_x, w->items[i].centroid_y, 0, 0.5 * mr};
	fs_meas m = {.img = meas, .f = 1, .width = src->width, .height = src->height, .dome = 1, .src = src,
		     .mp = p, .sigma = 0.5, .given = 1};
	/* stage 1: each base read from its centre */
	size_t nok = 0;
	for (size_t i = 0; i < n; i++) {
		int edge = 0;
		double v;
		fs_tubercle_init(&res[i].t);
		res[i].ok = fs_dome_measure_base_blur(meas, c.items[i].x, c.items[i].y, r0, r1, &res[i].t, &edge,
						      &v) == 0;
		res[i].edge = edge;
		res[i].spread = NAN;
		res[i].t.centroid_x = c.items[i].x;
		res[i].t.centroid_y = c.items[i].y;
		nok += res[i].ok;
	}
	/* stage 2: the domes the formation fit keeps, its pitch and fill */
	size_t nd = fs_det_offset_domes(res, n, xs, ys, rs);
	double fpitch = nd >= 8 ? fs_dome_fit_pitch(xs, ys, nd) : 0;
	/* against the line before: domes that entered or left the kept set,
	 * and kept domes whose reading jumped (> 0.25 px: a pick, not the
	 * rays' sample positions, which move with the pitch by < 0.01 px) */
	size_t nset = 0, njump = 0;
	for (size_t i = 0, k = 0; i < n; i++) {
		int kept = k < nd && xs[k] == c.items[i].x && ys[k] == c.items[i].y;
		double r = kept ? rs[k] : NAN;
		k += kept;
		if (!first) {
			nset += kept != prev_kept[i];
			njump += kept && prev_kept[i] && fabs(r - prev_r[i]) > 0.25;
		}
		prev_kept[i] = kept;
		prev_r[i] = r;
	}
	double rmed = nd ? fs_median_upper(rs, nd) : NAN;
	/* stage 3: the formation */
	fs_det_offset off;
	if (fs_det_offset_correct_period(&m, &c, mr, 0, -1, res, &off)) {
		printf("  out of memory\n");
		goto out;
	}
	if (save) {
		*save = off;
		goto out;
	}
	/* stage 4: templates and level; and again with the formation held
	 * at the unmoved pitch's (fixed), which tells the formation's turns
	 * from the later steps' own */
	memcpy(res2, res, n * sizeof *res2);
	/* the formation fitted (fs_det_offset_correct_period's fit, its
	 * options) with the lattice pitch of ALL the given centres, which no
	 * reading's pick can move, instead of the kept domes' */
	fs_measured *res3 = malloc(n * sizeof *res3);
	double *ax = malloc(n * sizeof *ax), *ay = malloc(n * sizeof *ay);
	double s3 = 0, apitch = NAN;
	size_t ns3 = 0;
	if (res3 && ax && ay && nd >= 8) {
		memcpy(res3, res, n * sizeof *res3);
		for (size_t i = 0; i < n; i++) {
			ax[i] = c.items[i].x;
			ay[i] = c.items[i].y;
		}
		apitch = fs_dome_fit_pitch(ax, ay, n);
		fs_dome_fit_opts reading;
		memset(&reading, 0, sizeof reading);
		reading.halftone_given = 0;
		reading.cap_tie = fs_det_offset_cap_tie(&m);
		fs_det_offset off3;
		double *rs3 = malloc(nd * sizeof *rs3);
		if (rs3) {
			fs_det_offset_domes(res, n, xs, ys, rs3);
			fs_det_offset_fit(meas, xs, ys, rs3, nd, apitch, &reading, &off3);
			off3.smooth = 0;
			fs_det_base_fit bf3;
			if (fs_det_base_fit_apply(&m, &c, &off3, mr, NULL, NULL, NULL, res3, &bf3) == 0)
				for (size_t i = 0; i < n; i++)
					if (res3[i].ok && res3[i].t.fit_quality >= FS_DOME_NO_DOME_QUALITY &&
					    fs_tubercle_measured(&res3[i].t)) {
						s3 += 2 * res3[i].t.radius_px;
						ns3++;
					}
			free(rs3);
		}
	}
	free(res3);
	free(ax);
	free(ay);
	fs_det_base_fit bf, bf2;
	memset(&bf, 0, sizeof bf);
	memset(&bf2, 0, sizeof bf2);
	if (fs_det_base_fit_apply(&m, &c, &off, mr, NULL, NULL, NULL, res, &bf) ||
	    (fixed && fs_det_base_fit_apply(&m, &c, fixed, mr, NULL, NULL, NULL, res2, &bf2))) {
		printf("  out of memory\n");
		goto out;
	}
	double s = 0, s2 = 0;
	size_t ns = 0, ns2 = 0;
	for (size_t i = 0; i < n; i++) {
		if (res[i].ok && res[i].t.fit_quality >= FS_DOME_NO_DOME_QUALITY && fs_tubercle_measured(&res[i].t)) {
			s += 2 * res[i].t.radius_px;
			ns++;
		}
		if (fixed && res2[i].ok && res2[i].t.fit_quality >= FS_DOME_NO_DOME_QUALITY &&
		    fs_tubercle_measured(&res2[i].t)) {
			s2 += 2 * res2[i].t.radius_px;
			ns2++;
		}
	}
	/* the rule itself */
	double rule = NAN;
	size_t nr = 0;
	if (fs_det_size_domes_list(&m, mr, &t, err, sizeof err) == 0)
		rule = mean_dp(&t, p0, &nr);
	const fs_dome_fit *f = &off.fit;
	printf("  %7.3f %+6.3f %5.2f-%5.2f %3zu %3zu %2zu %2zu %6.3f %7.3f %5.3f | %d %.0f %.1f %5.2f %4.1f %6.1f"
	       " %6.2f %6.2f %6.2f | %zu %zu %zu %.3f | %.3f %3zu | %.3f %3zu | %.3f %3zu | %.3f %.3f %3zu\n",
	       pitch, pitch - p0, r0, r1, nok, nd, nset, njump, rmed, fpitch, nd ? 2 * rmed / fpitch : NAN, off.fitted,
	       f->profile, f->h_over_r, f->blur_px, f->elevation * 180 / M_PI, f->azimuth * 180 / M_PI,
	       f->prof_rss[0], f->prof_rss[1], f->prof_rss[2], bf.fitted, bf.read, bf.nostep, bf.scale,
	       ns ? s / ns / p0 : NAN, ns, rule, nr, ns2 ? s2 / ns2 / p0 : NAN, ns2, apitch,
	       ns3 ? s3 / ns3 / p0 : NAN, ns3);
	fs_tubercle_list_free(&t);
out:
	free(c.items);
	free(res);
	free(res2);
	free(xs);
	free(ys);
	free(rs);
}

/* --pitch-sweep (see the header) on one figure. */
static void sweep_figure(const char *name, double half, double step)
{
	fs_loaded L;
	fs_detect_result W;
	if (figure_whole(name, &L, &W))
		return;
	char err[256];
	fs_image *fimg = NULL, *meas = NULL;
	remeasure_line("whole's centres on whole", L.image, &W.tubercles, 0, 0, W.pitch_px);
	fs_params p;
	fs_params_default(&p);
	fs_lattice lat = {0};
	double lp = fs_lattice_estimate(L.image, &lat, err, sizeof err) == 0 ? lat.pitch_px : 0;
	double p0 = fs_measure_centres_pitch(lp, &W.tubercles);
	const fs_image *whole = L.image;
	/* as measure_centres.c's dome rule: a float image, detection's
	 * measurement image at its little smoothing (below pitch 40) */
	if ((L.image->bits && !(whole = fimg = fs_image_to_float(L.image))) ||
	    fs_detect_measure_image(whole, &p, p0 >= 40 ? 1.0 : 0.5, &meas, err, sizeof err)) {
		printf("  measurement image failed\n");
		goto out;
	}
	if (p0 >= 40)
		printf("  (pitch %.2f: the sweep's fs_meas sigma 0.5 is not the rule's 1.0; read the rule column)\n",
		       p0);
	printf("  Re-measure's pitch %.4f (lattice %.4f)\n", p0, lp);
	printf("  %7s %6s %11s %3s %3s %2s %2s %6s %7s %5s | %s | %s | %s | %s | %s | %s\n", "pitch", "dp", "rays r0-r1",
	       "ok", "dom", "io", "jp", "r med", "f pitch", "fill0", "fit prof h/R blur elev az rss0 rss1 rss2",
	       "fitted read nostep s", "parts D/p n", "rule D/p n", "dp 0's formation D/p n", "all-centre pitch, D/p n");
	int k = (int)floor(half / step + 1e-9);
	double *prev_r = calloc(W.tubercles.n + 1, sizeof *prev_r);
	int *prev_kept = calloc(W.tubercles.n + 1, sizeof *prev_kept);
	fs_det_offset off0;
	memset(&off0, 0, sizeof off0);
	if (prev_r && prev_kept) {
		sweep_line(meas, whole, &p, &W.tubercles, p0, p0, prev_r, prev_kept, 1, NULL, &off0);
		for (int i = -k; i <= k; i++)
			sweep_line(meas, whole, &p, &W.tubercles, p0 + i * step, p0, prev_r, prev_kept, i == -k,
				   &off0, NULL);
	}
	free(prev_r);
	free(prev_kept);
out:
	fs_image_free(meas);
	fs_image_free(fimg);
	fs_detect_result_free(&W);
	fs_loaded_free(&L);
}

int main(int argc, char **argv)
{
	static int crops[8][2] = {{1, 0}, {0, 1}, {1, 1}};
	size_t ncrops = 3;
	const char *only = "P1_Fig4";
	double half = 0, step = 0;
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--pitch-sweep") && a + 2 < argc) {
			half = atof(argv[a + 1]);
			step = atof(argv[a + 2]);
			a += 2;
		} else if (!strcmp(argv[a], "--crop") && a + 2 < argc) {
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
		if (strstr(paper[i], only) && step > 0)
			sweep_figure(paper[i], half, step);
		else if (strstr(paper[i], only))
			one_figure(paper[i], (const int (*)[2])crops, ncrops);
	return 0;
}
