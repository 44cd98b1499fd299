/*
 * bench_ncc_coarse_loss.c - what h48f's coarse-to-fine correlation
 * (dome_ncc_coarse.h, FS_TEST_NCC_COARSE=1) reads differently from the
 * exact one, image by image, on every image where the dome rule takes it:
 * the paper figures, the 2048 x 1536 lattice and the corner scenes at
 * pitch 64 (pitch 16 is measured at full resolution, no coarse pass).
 *
 * Why (h49d): the coarse pass is a pure cost cut only if the candidates
 * it gives are the exact correlation's to the bit: every 3x3 maximum the
 * greedy suppression keeps, and every kept one's prominence decision
 * (keep_prominent's bar at 0.3 of the 90th percentile, detect_auto.c).
 * A proof would need a bound on how far the bilinear surface between the
 * even pixels can under-read (a maximum hides) or over-read (a ray's
 * lowest value is missed) the correlation. This prints the bound the
 * images themselves need, per band of distance from the frame's edge
 * (below R, R..2R, beyond: a disc the edge cuts is not smooth), and what
 * an exact pass "wherever a maximum could hide" under that bound would
 * cost: the pixels whose bilinear value plus the largest under-read
 * reaches the largest bilinear value of their 3x3.
 *
 * Per image: size and R; the largest under-read / over-read per band;
 * the 3x3 maxima of the exact correlation the coarse image lacks (all,
 * and those the suppression keeps); the kept ones' prominences that
 * differ, the largest difference and the keep decisions that flip; the
 * share of pixels an exact pass under the image's own bound would need.
 * Asserts nothing (issue 13's evidence; tests/bench/evidence.list).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/detect_candidates.h"
#include "analysis/dome_ncc_coarse.h"
#include "bench_support.h"
#include "base/sorting.h"
#include "image/image_io.h"
#include "paper_figs.h"
#include "sem_sim.h"
#include "synth.h"

/* What one image's witness found, summed over the images of a label. */
typedef struct loss {
	int w, h, R, calls;
	double under[3], over[3];
	size_t raw_lost, kept_lost, kept_lost_edge, kept_extra, kept;
	size_t prom_differ, flips;
	double prom_max;
	size_t pixels, hide;
} loss;

static int band_of(int x, int y, int w, int h, int R)
{
	int d = x < y ? x : y;
	d = d < w - 1 - x ? d : w - 1 - x;
	d = d < h - 1 - y ? d : h - 1 - y;
	return d < R ? 0 : d < 2 * R ? 1 : 2;
}

static int find(const fs_cand_list *l, double x, double y)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].x == x && l->items[i].y == y)
			return (int)i;
	return -1;
}

/* keep_prominent's bar: 0.3 (auto_prominence's default) of the 90th
 * percentile of the prominences, at least 0.01 */
static double bar(const fs_cand_list *c)
{
	if (!c->n)
		return 0.01;
	double *pr = malloc(c->n * sizeof *pr);
	if (!pr)
		return 0.01;
	for (size_t i = 0; i < c->n; i++)
		pr[i] = c->items[i].response;
	double p90 = fs_select_kth(pr, c->n, (size_t)(0.9 * (c->n - 1)));
	free(pr);
	return fmax(0.3 * p90, 0.01);
}

static void witness(void *ctx, const fs_image *img, const fs_dome_mean *t, const fs_image *co)
{
	loss *L = ctx;
	int w = img->width, h = img->height, R = t->R;
	fs_image *ex = fs_image_new(w, h);
	if (!ex)
		return;
	fs_dome_mean_ncc(t, img->data, (size_t)w, 0, 0, w, h, 0, 0, w, h, ex->data, (size_t)w);
	L->w = w;
	L->h = h;
	L->R = R;
	L->calls++;
	double worst = 0;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			size_t i = (size_t)y * w + x;
			int b = band_of(x, y, w, h, R);
			double e = (double)ex->data[i] - co->data[i];
			L->under[b] = fmax(L->under[b], e);
			L->over[b] = fmax(L->over[b], -e);
			worst = fmax(worst, e);
		}
	/* the pixels where a maximum could hide under this image's own
	 * largest under-read: those an exact pass would have to make */
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			float c = co->data[(size_t)y * w + x], m = c;
			for (int yy = y - 1; yy <= y + 1; yy++)
				for (int xx = x - 1; xx <= x + 1; xx++)
					if (xx >= 0 && yy >= 0 && xx < w && yy < h)
						m = fmaxf(m, co->data[(size_t)yy * w + xx]);
			L->hide += c + worst > 0 && c + worst >= m;
			L->pixels++;
		}
	fs_cand_list ma = {0}, mb = {0}, ka = {0}, kb = {0};
	if (fs_det_maxima(ex, 0, 0, 0, w, h, 0, 0, w, h, &ma) || fs_det_maxima(co, 0, 0, 0, w, h, 0, 0, w, h, &mb))
		goto out;
	for (size_t i = 0; i < ma.n; i++)
		L->raw_lost += find(&mb, ma.items[i].x, ma.items[i].y) < 0;
	double pitch = 2 * t->radius;
	if (fs_det_peaks(ex, 0, 0.7 * pitch, &ka) || fs_det_peaks(co, 0, 0.7 * pitch, &kb))
		goto out;
	fs_det_prominence(ex, &ka, 0.6 * pitch);
	fs_det_prominence(co, &kb, 0.6 * pitch);
	double la = bar(&ka), lb = bar(&kb);
	L->kept += ka.n;
	for (size_t i = 0; i < ka.n; i++) {
		int j = find(&kb, ka.items[i].x, ka.items[i].y);
		int keep_a = ka.items[i].response >= la;
		if (j < 0) {
			L->kept_lost++;
			L->kept_lost_edge += band_of((int)ka.items[i].x, (int)ka.items[i].y, w, h, R) < 2;
			L->flips += keep_a;
			continue;
		}
		double d = fabs(ka.items[i].response - kb.items[j].response);
		L->prom_differ += d > 0;
		L->prom_max = fmax(L->prom_max, d);
		L->flips += keep_a != (kb.items[j].response >= lb);
	}
	for (size_t j = 0; j < kb.n; j++)
		if (find(&ka, kb.items[j].x, kb.items[j].y) < 0) {
			L->kept_extra++;
			L->flips += kb.items[j].response >= lb;
		}
out:
	fs_cand_free(&ma);
	fs_cand_free(&mb);
	fs_cand_free(&ka);
	fs_cand_free(&kb);
	fs_image_free(ex);
}

static void print(const char *label, const loss *L)
{
	if (!L->calls) {
		printf("%-48s no coarse pass (full resolution)\n", label);
		return;
	}
	printf("%-48s %4dx%-4d R %d | under %.3f %.3f %.3f over %.3f %.3f %.3f | maxima lost %3zu, kept lost %2zu "
	       "(%zu within 2R) extra %2zu of %4zu | prom differ %4zu max %.3f, decisions flip %2zu | exact pass "
	       "%4.1f %%\n",
	       label, L->w, L->h, L->R, L->under[0], L->under[1], L->under[2], L->over[0], L->over[1], L->over[2],
	       L->raw_lost, L->kept_lost, L->kept_lost_edge, L->kept_extra, L->kept, L->prom_differ, L->prom_max,
	       L->flips, 100.0 * L->hide / (double)(L->pixels ? L->pixels : 1));
}

/* The dome rule on img with the witness reading loss L. */
static int detect(const fs_image *img, loss *L)
{
	memset(L, 0, sizeof *L);
	fs_dome_ncc_set_witness(witness, L);
	fs_params p;
	fs_params_default(&p);
	fs_detect_result res;
	char err[256];
	int rc = fs_detect_domes(img, &p, 0, &res, err, sizeof err);
	fs_dome_ncc_set_witness(NULL, NULL);
	if (rc) {
		printf("detection failed: %s\n", err);
		return -1;
	}
	fs_detect_result_free(&res);
	return 0;
}

int main(void)
{
	fs_dome_ncc_set_coarse(1);
	printf("largest under-read / over-read of the exact correlation by the coarse one, by distance from the "
	       "frame's edge: below R, R..2R, beyond\n");
	const char *paper[PAPER_FIGS_MAX];
	size_t npaper = paper_fig_names(paper, PAPER_FIGS_MAX);
	loss L;
	for (size_t i = 0; i < npaper; i++) {
		char path[512], err[256];
		snprintf(path, sizeof path, "%s%s", PAPER_FIGS_DIR, paper[i]);
		fs_loaded ld;
		if (fs_load_file(path, NULL, &ld, err, sizeof err)) {
			printf("%s: load failed: %s\n", paper[i], err);
			return 1;
		}
		int rc = detect(ld.image, &L);
		fs_loaded_free(&ld);
		if (rc)
			return 1;
		print(paper[i], &L);
	}
	synth_opts o;
	synth_truth t;
	bench_detect_lattice(&o);
	fs_image *img = synth_make(&o, &t);
	if (!img || detect(img, &L))
		return 1;
	print("synthetic 2048x1536", &L);
	fs_image_free(img);
	synth_truth_free(&t);
	for (int k = 0; k < 64; k++) {
		sem_opts so;
		sem_truth st;
		sem_corner_scene(k, &so);
		if (so.pitch < 32)
			continue;
		fs_image *s = sem_make(&so, &st);
		if (!s || detect(s, &L))
			return 1;
		char label[48];
		snprintf(label, sizeof label, "SEM corner scene %02d (pitch %.0f)", k, so.pitch);
		print(label, &L);
		fs_image_free(s);
		sem_truth_free(&st);
	}
	return 0;
}
