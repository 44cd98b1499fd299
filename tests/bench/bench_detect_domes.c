/*
 * bench_detect_domes.c - the dome rule (fs_detect_domes) per image: its
 * CPU time and a fingerprint of everything it found, on the paper
 * figures, the 2048x1536 synthetic lattice of bench_detect and the 64
 * corner scenes of the SEM simulator (the scenes of test_sem_accuracy).
 *
 * Why: issue 13's benchmark asks for the dome rule to get cheaper without
 * changing its results. The accuracy tests count scenes that meet a
 * target, and a change can move tubercles without moving a count; the
 * fingerprint (FNV-1a over each tubercle's centre, radius, fit quality,
 * circularity and ellipse, written exactly with %a) changes with any bit
 * of any of them. Run it before and after a change meant for speed: the
 * fingerprints must be equal. Prints "label: n tubercles, cpu ms,
 * fingerprint" and, for the paper figures and the 2048x1536 lattice, the
 * outline rule's (fs_detect's) CPU on the same image and the ratio that
 * issue 13 bounds by 3 (detection only: bench_detect's ratio includes
 * loading, graph and statistics); asserts nothing. One run per image
 * (FS_BENCH_RUNS runs, the median CPU, when set).
 *
 * With an argument only the images whose label contains it are run (e.g.
 * `bench_detect_domes P1_Fig1` or `synthetic`): one image in one process
 * is what callgrind needs to count a stage's instructions per figure.
 *
 * `bench_detect_domes --shift [LABEL]`: the paper figures measured whole
 * and cropped by one pixel at the left, the top and both (a translation
 * and a one-pixel change of size, nothing a tubercle's size depends on):
 * each rule's count, mean D and D / pitch for each. Why (h36f): a
 * change that moves bits (a cheaper sampling) moves the paper figures'
 * means; how far the rule's own result moves under a one-pixel shift is
 * the scale against which such a move can be judged. Each figure ends
 * with its spread (largest minus smallest D / pitch of the four images)
 * per rule, and the run with the spreads' mean and largest (h37c: a
 * change meant to make the rule translation-stable is judged by these
 * two numbers, and several changes compared so are compared on the same
 * terms).
 *
 * `bench_detect_domes --nudge PX [LABEL]`: the same run with the dome
 * rule's candidates moved by PX in x and y before they are measured
 * (fs_detect_set_cand_nudge, h47i). At 1e-6 px a rounding: the
 * fingerprints change, and how far the CPU moves (callgrind on
 * `--nudge 1e-6 synthetic`) is how far a cost cut that moves the
 * candidates' bits can move it without doing anything (the lattice's
 * per-dome axis step runs or not on the reading of a 0.01-px common
 * shift, docs/paper-figures.md h47i).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/detect_methods.h"
#include "bench_support.h"
#include "image/image_io.h"
#include "image/image_transform.h"
#include "paper_figs.h"
#include "sem_sim.h"
#include "synth.h"

#define MAX_RUNS 15

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

static uint64_t fingerprint(const fs_tubercle_list *l)
{
	uint64_t h = 14695981039346656037ULL;
	char line[512];
	for (size_t i = 0; i < l->n; i++) {
		const fs_tubercle *t = &l->items[i];
		snprintf(line, sizeof line, "%a %a %a %a %a %a %a %a\n", t->centroid_x, t->centroid_y, t->radius_px,
			 t->fit_quality, t->circularity, t->major_axis_px, t->minor_axis_px, t->orientation);
		h = fnv(h, line);
	}
	return h;
}

/* The median CPU ms of fs_detect_outline on img, -1 on failure. */
static double outline_cpu(const fs_image *img, int runs)
{
	double cpu[MAX_RUNS] = {0};
	for (int r = 0; r < runs; r++) {
		fs_params p;
		fs_params_default(&p);
		fs_detect_result res;
		char err[256];
		double c0 = bench_cpu_ms();
		if (fs_detect_outline(img, &p, 0, &res, err, sizeof err))
			return -1;
		cpu[r] = bench_cpu_ms() - c0;
		fs_detect_result_free(&res);
	}
	return bench_median(cpu, runs);
}

/* Detects on img, prints the line (with the outline rule's CPU and the
 * ratio when ratio is set); *all is folded with the fingerprint. Returns
 * the median CPU ms, -1 on failure. */
static const char *only; /* the label filter (argv[1]), NULL for all */

static int wanted(const char *label)
{
	return !only || strstr(label, only);
}

static double run(const char *label, const fs_image *img, int runs, int ratio, uint64_t *all)
{
	double cpu[MAX_RUNS] = {0};
	size_t n = 0;
	uint64_t fp = 0;
	for (int r = 0; r < runs; r++) {
		fs_params p;
		fs_params_default(&p);
		fs_detect_result res;
		char err[256];
		double c0 = bench_cpu_ms();
		if (fs_detect_domes(img, &p, 0, &res, err, sizeof err)) {
			printf("%s: detection failed: %s\n", label, err);
			return -1;
		}
		cpu[r] = bench_cpu_ms() - c0;
		n = res.tubercles.n;
		fp = fingerprint(&res.tubercles);
		fs_detect_result_free(&res);
	}
	double c = bench_median(cpu, runs), co = ratio ? outline_cpu(img, runs) : 0;
	if (co > 0)
		printf("%s: %zu tubercles, cpu %.1f ms (outline rule %.1f ms, %.1fx, target 3x), fingerprint %016llx\n",
		       label, n, c, co, c / co, (unsigned long long)fp);
	else
		printf("%s: %zu tubercles, cpu %.1f ms, fingerprint %016llx\n", label, n, c, (unsigned long long)fp);
	char hex[32];
	snprintf(hex, sizeof hex, "%016llx", (unsigned long long)fp);
	*all = fnv(*all, hex);
	return c;
}

/* One line of --shift: the dome rule (outline: the outline rule) on img.
 * Returns its D / pitch (NAN when nothing was measured). */
static double shift_line(const char *label, const fs_image *img, int outline)
{
	fs_params p;
	fs_params_default(&p);
	fs_detect_result res;
	char err[256];
	if (outline ? fs_detect_outline(img, &p, 0, &res, err, sizeof err)
		    : fs_detect_domes(img, &p, 0, &res, err, sizeof err)) {
		printf("  %-10s detection failed: %s\n", label, err);
		return NAN;
	}
	double s = 0;
	size_t m = 0;
	for (size_t i = 0; i < res.tubercles.n; i++)
		if (isfinite(res.tubercles.items[i].radius_px)) {
			s += 2 * res.tubercles.items[i].radius_px;
			m++;
		}
	double d = m ? s / m : NAN;
	printf("  %-10s %-7s pitch %6.2f px, %3zu tubercles (%3zu sized), mean D %6.2f px, D / pitch %.3f\n",
	       label, outline ? "outline" : "dome", res.pitch_px, res.tubercles.n, m, d,
	       res.pitch_px > 0 ? d / res.pitch_px : NAN);
	fs_detect_result_free(&res);
	return res.pitch_px > 0 ? d / res.pitch_px : NAN;
}

/* The spreads of --shift, per rule (0 dome, 1 outline): each figure's
 * largest minus smallest D / pitch; a figure with an image not measured
 * has none (it would hide the spread it is meant to show). */
typedef struct shift_spread {
	double lo[2], hi[2];
	int missing[2];
	double sum[2], max[2];
	size_t n[2];
	const char *max_at[2];
} shift_spread;

static void shift_figure_begin(shift_spread *s)
{
	for (int r = 0; r < 2; r++) {
		s->lo[r] = INFINITY;
		s->hi[r] = -INFINITY;
		s->missing[r] = 0;
	}
}

static void shift_add(shift_spread *s, int rule, double v)
{
	if (!isfinite(v)) {
		s->missing[rule] = 1;
		return;
	}
	s->lo[rule] = fmin(s->lo[rule], v);
	s->hi[rule] = fmax(s->hi[rule], v);
}

static void shift_figure_end(shift_spread *s, const char *figure)
{
	double sp[2];
	for (int r = 0; r < 2; r++) {
		sp[r] = s->missing[r] || !(s->hi[r] >= s->lo[r]) ? NAN : s->hi[r] - s->lo[r];
		if (!isfinite(sp[r]))
			continue;
		s->sum[r] += sp[r];
		s->n[r]++;
		if (!s->max_at[r] || sp[r] > s->max[r]) {
			s->max[r] = sp[r];
			s->max_at[r] = figure;
		}
	}
	printf("  spread     D / pitch: dome %.3f, outline %.3f\n", sp[0], sp[1]);
}

/* Loads the paper fixture NAME into *L; prints why and returns 1 when it
 * cannot be read (L then holds nothing to free). */
static int load_paper(const char *name, fs_loaded *L)
{
	char path[512], err[256];
	snprintf(path, sizeof path, "tests/fixtures/paper/%s", name);
	if (fs_load_file(path, NULL, L, err, sizeof err)) {
		printf("%s: load failed: %s\n", name, err);
		return 1;
	}
	return 0;
}

/* --shift (see the header): 0, 1 when a figure cannot be read. */
static int shift_run(const char *const *paper, size_t n)
{
	static const int d[4][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
	shift_spread s;
	memset(&s, 0, sizeof s);
	for (size_t i = 0; i < n; i++) {
		char err[256];
		if (!wanted(paper[i]))
			continue;
		fs_loaded L;
		if (load_paper(paper[i], &L))
			return 1;
		printf("%s\n", paper[i]);
		shift_figure_begin(&s);
		for (int k = 0; k < 4; k++) {
			fs_rect r = {d[k][0], d[k][1], L.image->width - d[k][0], L.image->height - d[k][1]};
			char label[32];
			snprintf(label, sizeof label, k ? "crop +%d+%d" : "whole", d[k][0], d[k][1]);
			fs_image *c = k ? fs_image_crop(L.image, r, NULL, err, sizeof err) : NULL;
			if (k && !c) {
				printf("  %-10s crop failed: %s\n", label, err);
				s.missing[0] = s.missing[1] = 1;
				continue;
			}
			shift_add(&s, 0, shift_line(label, k ? c : L.image, 0));
			shift_add(&s, 1, shift_line(label, k ? c : L.image, 1));
			fs_image_free(c);
		}
		fs_loaded_free(&L);
		shift_figure_end(&s, paper[i]);
	}
	for (int r = 0; r < 2; r++)
		if (s.n[r])
			printf("%s rule: mean spread of D / pitch %.3f over %zu figures, largest %.3f (%s)\n",
			       r ? "outline" : "dome", s.sum[r] / (double)s.n[r], s.n[r], s.max[r], s.max_at[r]);
	return 0;
}

int main(int argc, char **argv)
{
	const char *paper[PAPER_FIGS_MAX];
	size_t npaper = paper_fig_names(paper, PAPER_FIGS_MAX);
	if (!npaper) {
		printf("tests/fixtures/paper/expected.csv cannot be read\n");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "--shift")) {
		only = argc > 2 ? argv[2] : NULL;
		return shift_run(paper, npaper);
	}
	if (argc > 2 && !strcmp(argv[1], "--nudge")) {
		fs_detect_set_cand_nudge(strtod(argv[2], NULL));
		argv += 2;
		argc -= 2;
	}
	only = argc > 1 ? argv[1] : NULL;
	int runs = bench_runs(1);
	if (runs > MAX_RUNS)
		runs = MAX_RUNS;
	uint64_t all = 14695981039346656037ULL;
	double sum_paper = 0, sum_sem = 0;
	for (size_t i = 0; i < npaper; i++) {
		if (!wanted(paper[i]))
			continue;
		fs_loaded L;
		if (load_paper(paper[i], &L))
			return 1;
		double c = run(paper[i], L.image, runs, 1, &all);
		fs_loaded_free(&L);
		if (c < 0)
			return 1;
		sum_paper += c;
	}
	synth_opts o;
	synth_truth t;
	if (!wanted("synthetic 2048x1536"))
		goto scenes;
	bench_detect_lattice(&o);
	fs_image *img = synth_make(&o, &t);
	if (!img) {
		printf("synthetic image: out of memory\n");
		return 1;
	}
	double cs = run("synthetic 2048x1536", img, runs, 1, &all);
	fs_image_free(img);
	synth_truth_free(&t);
	if (cs < 0)
		return 1;
scenes:
	for (int k = 0; k < 64; k++) {
		char label[32];
		snprintf(label, sizeof label, "SEM corner scene %02d", k);
		if (!wanted(label))
			continue;
		sem_opts so;
		sem_truth st;
		sem_corner_scene(k, &so);
		fs_image *s = sem_make(&so, &st);
		if (!s) {
			printf("scene %d: out of memory\n", k);
			return 1;
		}
		double c = run(label, s, runs, 0, &all);
		fs_image_free(s);
		sem_truth_free(&st);
		if (c < 0)
			return 1;
		sum_sem += c;
	}
	printf("paper figures: cpu %.1f ms in all\n", sum_paper);
	printf("SEM corner scenes: cpu %.1f ms in all\n", sum_sem);
	printf("fingerprint of all: %016llx\n", (unsigned long long)all);
	return 0;
}
