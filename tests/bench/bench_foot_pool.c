/*
 * bench_foot_pool.c - the domes' pooled radial profile (foot_pool.h) about
 * the dome rule's own centres, on the simulator's scene sets (the 64
 * sharp-footed corner scenes, the 48 smooth-footed ones) and the paper
 * figures: what a once-per-image decision between a sharp and a smooth
 * foot can read (h48h in docs/paper-figures.md).
 *
 * Usage: bench_foot_pool corner|interior|smooth [--seed-add N] [K ...]
 *        bench_foot_pool --paper [NAME-PART]
 *        bench_foot_pool --synthetic   (bench_detect_domes' 2048x1536 lattice)
 * Per image: the domes pooled, the median radius (px), the pitch, then the
 * profile's contrast c(u) = (P(u) - ground) / (peak - ground) at radii u
 * (in the median radius), ground the profile's least value past 0.9 and
 * peak its greatest inside 1.1; the centre's (u < 0.3) and the edge's
 * (0.8..1.0) mean contrast, their difference (excess) and the decision
 * (fs_foot_pool_smooth), on the image and on the rule's measurement
 * image, and where smooth the support read (fs_foot_pool_support);
 * --profile prints c(u) every 0.1 as well (always with --paper). Then the
 * rule's score (sem_score: D, S, D SD, recall / precision, ALL4 where the
 * four targets are met) and a summary line. Under FS_TEST_FOOT_SUPPORT=1
 * (tests/unit/support/test_foot_pool_option.c) the scores are the
 * option's. Every image's line also gives the fall's shape (h48l): the
 * fades at 0.5 and 0.05, the tail (fade at 0.2 over fade at 0.5) pooled at
 * the median radius and in each dome's own radius, the radii's spread;
 * --paper adds the contrast across half the pitch and the specks' blur
 * bound (print_specks).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/dome_fit.h"
#include "analysis/foot_pool.h"
#include "analysis/measurement.h"
#include "base/sorting.h"
#include "bench_support.h"
#include "image/image_io.h"
#include "paper_figs.h"
#include "scene_sets.h"
#include "sem_score.h"
#include "synth.h"

static int show_profile;
/* the scene sets' summary: images told smooth; the rule's targets met */
static int n_images, n_smooth, n_d3, n_all4;
static double sum_abs_d;

/* The scale-free shape of the pooled fall (h48l): the fades at 0.5 and
 * 0.05, the tail (fs_foot_pool_tail) pooled at the median radius and in
 * each dome's own radius, and the spread of the rule's radii (SD over the
 * mean), which widens a fall pooled at the median radius. With
 * show_reach also the contrast every 0.1 of HALF THE PITCH (the profile
 * read with every radius set to a quarter pitch): what lies between a
 * dome's fade and its neighbours' cells. */
static int show_reach;

static void print_shape(const fs_image *img, const double *xs, const double *ys, const double *rs, size_t n,
			double pitch, const fs_foot_pool *fp)
{
	double s = 0, ss = 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(rs[i]) && rs[i] > 0) {
			s += rs[i];
			ss += rs[i] * rs[i];
			k++;
		}
	double mean = k ? s / k : NAN, cv = k > 1 ? sqrt(fmax(0, ss / k - mean * mean)) / mean : NAN;
	fs_foot_pool own;
	char err[256];
	double tail_own = fs_foot_pool_read_own(img, xs, ys, rs, n, pitch, &own, err, sizeof err)
				  ? NAN
				  : fs_foot_pool_tail(&own);
	printf(" f50 %.2f f05 %.2f tail %.2f own %.2f cv %.2f", fs_foot_pool_fade(fp, 0.5),
	       fs_foot_pool_fade(fp, FS_FOOT_POOL_FADE), fs_foot_pool_tail(fp), tail_own, cv);
	if (!show_reach)
		return;
	double *q = malloc(n * sizeof *q);
	fs_foot_pool wide;
	if (q) {
		for (size_t i = 0; i < n; i++)
			q[i] = isfinite(rs[i]) && rs[i] > 0 ? 0.25 * pitch : NAN;
		if (!fs_foot_pool_read(img, xs, ys, q, n, pitch, &wide, err, sizeof err)) {
			double g = INFINITY, pk = -INFINITY;
			for (int b = 0; b < FS_FOOT_POOL_BINS; b++)
				if (isfinite(wide.prof[b])) {
					g = fmin(g, wide.prof[b]);
					pk = fmax(pk, wide.prof[b]);
				}
			printf(" | half pitch %.1f px, c at 0.05..0.95 of it (ground its least):", 0.5 * pitch);
			for (int b = 0; b < FS_FOOT_POOL_BINS; b += 4)
				printf(" %.2f", (0.5 * (wide.prof[b] + wide.prof[b + 1]) - g) / (pk - g));
		}
	}
	free(q);
}

static void print_pool(const char *name, const fs_image *img, const fs_image *meas, const fs_tubercle_list *t,
		       const char *extra)
{
	size_t n = t->n;
	double *xs = malloc((n + 1) * sizeof *xs), *ys = malloc((n + 1) * sizeof *ys),
	       *rs = malloc((n + 1) * sizeof *rs);
	char err[256];
	if (!xs || !ys || !rs) {
		printf("%s: out of memory\n", name);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		xs[i] = t->items[i].centroid_x;
		ys[i] = t->items[i].centroid_y;
		rs[i] = t->items[i].radius_px;
	}
	double pitch = n >= 8 ? fs_dome_fit_pitch(xs, ys, n) : 0;
	fs_foot_pool fp;
	if (fs_foot_pool_read(img, xs, ys, rs, n, pitch, &fp, err, sizeof err)) {
		printf("%s: %s\n", name, err);
		goto out;
	}
	double g = INFINITY, pk = -INFINITY;
	for (int b = 0; b < FS_FOOT_POOL_BINS; b++) {
		double u = (b + 0.5) * FS_FOOT_POOL_STEP;
		if (!isfinite(fp.prof[b]))
			continue;
		if (u > 0.9 && fp.prof[b] < g)
			g = fp.prof[b];
		if (u < 1.1 && fp.prof[b] > pk)
			pk = fp.prof[b];
	}
	printf("%-14s n %4zu R %6.2f p %6.2f reach %.2f centre %5.2f edge %5.2f excess %+5.2f fall %4.2f %s", name,
	       fp.domes, fp.r_px, pitch, fp.reach, fp.centre, fp.edge, fp.centre - fp.edge, fp.fall,
	       fs_foot_pool_smooth(&fp) ? "SMOOTH" : "sharp ");
	n_images++;
	n_smooth += fs_foot_pool_smooth(&fp);
	if (fs_foot_pool_smooth(&fp))
		printf(" support %.3f", fs_foot_pool_support(&fp));
	if (meas) {
		fs_foot_pool fm;
		if (!fs_foot_pool_read(meas, xs, ys, rs, n, pitch, &fm, err, sizeof err))
			printf(" meas excess %+5.2f %s", fm.centre - fm.edge, fs_foot_pool_smooth(&fm) ? "SMOOTH" : "sharp ");
	}
	print_shape(img, xs, ys, rs, n, pitch, &fp);
	printf(" |");
	for (int b = 0; show_profile && b < FS_FOOT_POOL_BINS; b += 2) {
		double v = 0.5 * (fp.prof[b] + fp.prof[b + 1]);
		if (isfinite(v))
			printf(" %5.2f", (v - g) / (pk - g));
		else
			printf("     -");
	}
	printf(" | %s\n", extra);
	fflush(stdout);
out:
	free(xs);
	free(ys);
	free(rs);
}

/* The image's blur bounded by what is not a dome (h48l): the small bright
 * specks (debris on the ganoine, the print's screen dots) carry the scan's
 * blur at least, and a speck is at least a point, so the narrow end of
 * their half-height radii bounds that blur from above (a point blurred by
 * sigma: 1.177 sigma). Specks: strict 5x5 maxima farther than two median
 * radii from every dome, at least 12 px inside the frame, whose height
 * over the ring 7-10 px about them exceeds speck_min of the image's 1-99 %
 * range (0.5; FS_BENCH_SPECK_MIN: at 0.1 the P1 figures' pixel grain
 * fills the 4096 kept); the half height read on the mean profile in
 * 0.5 px rings. */
static double speck_min = 0.5;

static void print_specks(const fs_image *img, const fs_tubercle_list *t)
{
	int w = img->width, h = img->height;
	size_t np = (size_t)w * h, nr = 0;
	double *all = malloc(np * sizeof *all), *rh = malloc(4096 * sizeof *rh), *rad = malloc((t->n + 1) * sizeof *rad);
	if (!all || !rh || !rad) {
		printf("  specks: out of memory\n");
		goto out;
	}
	for (size_t i = 0; i < np; i++)
		all[i] = fs_image_value(img, (int)(i % w), (int)(i / w));
	double lo = fs_select_kth(all, np, np / 100), hi = fs_select_kth(all, np, np - 1 - np / 100);
	for (size_t i = 0; i < t->n; i++)
		rad[i] = t->items[i].radius_px;
	double rmed = t->n ? fs_median_upper(rad, t->n) : 0;
	for (int y = 12; y < h - 12 && nr < 4096; y++)
		for (int x = 12; x < w - 12 && nr < 4096; x++) {
			double v = fs_image_value(img, x, y);
			int peak = 1;
			for (int dy = -2; dy <= 2 && peak; dy++)
				for (int dx = -2; dx <= 2; dx++)
					if ((dx || dy) && fs_image_value(img, x + dx, y + dy) >= v) {
						peak = 0;
						break;
					}
			for (size_t i = 0; peak && i < t->n; i++)
				if (hypot(x - t->items[i].centroid_x, y - t->items[i].centroid_y) < 2 * rmed)
					peak = 0;
			if (!peak)
				continue;
			double ring[24] = {0}, bs = 0;
			int rc[24] = {0}, bn = 0;
			for (int dy = -10; dy <= 10; dy++)
				for (int dx = -10; dx <= 10; dx++) {
					double d = hypot(dx, dy), u = fs_image_value(img, x + dx, y + dy);
					if (d >= 7 && d <= 10) {
						bs += u;
						bn++;
					} else if (d < 7) {
						ring[(int)(d / 0.5 + 0.5)] += u;
						rc[(int)(d / 0.5 + 0.5)]++;
					}
				}
			double b = bs / bn, a = v - b;
			if (!(a > speck_min * (hi - lo)))
				continue;
			double prev = v;
			for (int k = 1; k < 14; k++) {
				if (!rc[k])
					continue;
				double m = ring[k] / rc[k];
				if (m < b + 0.5 * a) {
					double r0 = 0.5 * (k - 1);
					rh[nr++] = r0 + 0.5 * (prev - (b + 0.5 * a)) / (prev - m);
					break;
				}
				prev = m;
			}
		}
	if (nr < 10) {
		printf("  specks: %zu, too few\n", nr);
		goto out;
	}
	double p10 = fs_select_kth(rh, nr, nr / 10), med = fs_select_kth(rh, nr, nr / 2);
	printf("  specks %zu: half-height radius p10 %.2f px, median %.2f px (blur sigma at most %.2f px)\n", nr, p10,
	       med, p10 / 1.177);
out:
	free(all);
	free(rh);
	free(rad);
}

static int run_paper(const char *only)
{
	paper_fig pf[PAPER_FIGS_MAX];
	int np = paper_figs_read(pf, PAPER_FIGS_MAX);
	for (int k = 0; k < np; k++) {
		if (only && !strstr(pf[k].file, only))
			continue;
		char path[1024], err[256];
		snprintf(path, sizeof path, PAPER_FIGS_DIR "%.150s", pf[k].file);
		fs_loaded L;
		if (fs_load_file(path, NULL, &L, err, sizeof err)) {
			printf("%s: %s\n", pf[k].file, err);
			continue;
		}
		fs_params p;
		fs_params_default(&p);
		fs_detect_result res;
		memset(&res, 0, sizeof res);
		if (fs_detect_rule_in_region(L.image, &p, 0, FS_RULE_DOME, NULL, &res, err, sizeof err))
			printf("%s: %s\n", pf[k].file, err);
		else {
			char name[16], extra[64];
			snprintf(name, sizeof name, "%.14s", pf[k].file);
			snprintf(extra, sizeof extra, "published fill %.3f", pf[k].ratio);
			print_pool(name, L.image, NULL, &res.tubercles, extra);
			print_specks(L.image, &res.tubercles);
		}
		fs_detect_result_free(&res);
		fs_loaded_free(&L);
	}
	return 0;
}

/* bench_detect_domes' synthetic lattice (uniform discs, bench_support.h) */
static int run_synthetic(void)
{
	synth_opts o;
	synth_truth t;
	bench_detect_lattice(&o);
	fs_image *img = synth_make(&o, &t);
	if (!img) {
		printf("synthetic image: out of memory\n");
		return 1;
	}
	fs_params p;
	fs_params_default(&p);
	fs_detect_result res;
	memset(&res, 0, sizeof res);
	char err[256], extra[64];
	if (fs_detect_domes(img, &p, 0, &res, err, sizeof err))
		printf("synthetic: %s\n", err);
	else {
		snprintf(extra, sizeof extra, "true radius %.2f px", t.radius);
		print_pool("synthetic", img, NULL, &res.tubercles, extra);
	}
	fs_detect_result_free(&res);
	synth_truth_free(&t);
	fs_image_free(img);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--synthetic")) {
		show_profile = 1;
		return run_synthetic();
	}
	if (argc >= 2 && !strcmp(argv[1], "--paper")) {
		show_profile = 1;
		show_reach = 1;
		if (getenv("FS_BENCH_SPECK_MIN"))
			speck_min = atof(getenv("FS_BENCH_SPECK_MIN"));
		return run_paper(argc >= 3 ? argv[2] : NULL);
	}
	if (argc < 2 || scene_set_named(argv[1]) < 0) {
		fprintf(stderr, "usage: bench_foot_pool corner|interior|smooth [--seed-add N] [K ...] | --paper [PART]\n");
		return 2;
	}
	int set = scene_set_named(argv[1]);
	unsigned seed_add = 0;
	int ks[256], nk = 0;
	for (int a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "--profile"))
			show_profile = 1;
		else if (!strcmp(argv[a], "--seed-add") && a + 1 < argc)
			seed_add = (unsigned)atoi(argv[++a]);
		else if (nk < 256)
			ks[nk++] = atoi(argv[a]);
	}
	if (!nk)
		for (int k = 0; k < SET_COUNT[set] && k < 256; k++)
			ks[nk++] = k;
	printf("%s scenes, seed add %u; c(u) at u = 0.05, 0.15, ... 1.95\n", SET_NAME[set], seed_add);
	for (int i = 0; i < nk; i++) {
		sem_opts o;
		scene_set_opts(set, ks[i], seed_add, &o);
		dome_scene m;
		if (dome_scene_open(&m, &o, set, ks[i]))
			continue;
		char name[32], extra[96] = "";
		snprintf(name, sizeof name, "%s %d", SET_NAME[set], ks[i]);
		sem_score ss;
		if (!sem_score_detection(&m.s.tr, &m.res.tubercles, o.halftone, &ss)) {
			int all4 = fabs(ss.d_err) < 3 && fabs(ss.s_err) < 3 && (!ss.sd_applies || ss.d_sd < 8) &&
				   ss.recall >= 0.97 && ss.precision >= 0.97;
			snprintf(extra, sizeof extra, "D %+.1f %% S %+.1f %% SD %.1f %% RP %.2f/%.2f%s screen %.0f h/R %.2f",
				 ss.d_err, ss.s_err, ss.d_sd, ss.recall, ss.precision, all4 ? " ALL4" : "", o.halftone,
				 o.h_over_r);
			n_d3 += fabs(ss.d_err) < 3;
			n_all4 += all4;
			sum_abs_d += fabs(ss.d_err);
		}
		print_pool(name, m.s.img, m.meas, &m.res.tubercles, extra);
		dome_scene_close(&m);
	}
	printf("told smooth %d of %d images; the rule: mean D within 3 %% %d, all four %d, mean |D| %.1f %%\n",
	       n_smooth, n_images, n_d3, n_all4, n_images ? sum_abs_d / n_images : NAN);
	return 0;
}
