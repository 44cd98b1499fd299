/*
 * bench_sem_render.c - the SEM simulator's rendering (sem_make,
 * tests/unit/support/sem_sim.c and sem_surface.c) over every scene family
 * the unit tests render: the 64 corner scenes (sem_corner_scene), the 10
 * interior scenes of test_sem_accuracy, the 48 smooth-footed scenes
 * (sem_smooth_scene) and test_paper_profile_fill's bank (3 heights x 3
 * profiles x 2 edge strengths at the full fill grid and every figure's
 * published fill). Prints per family the CPU seconds and a fingerprint
 * (FNV-1a of every image's float bits, its size and the truth's centres
 * and diameters), so a change to the renderer can be held to the same
 * bits (h34k); asserts nothing. An argument keeps the families whose name
 * contains it, a second one ("step") renders every step-th scene of each
 * (a cheap sample for callgrind); FS_BENCH_VERBOSE=1 prints every scene's
 * fingerprint. The profile bank is rendered as the test renders it, both
 * edge strengths of a dome by one sem_make_edges (h35i; with a step, one
 * sem_make a scene), so its fingerprint holds that path to sem_make's bits.
 * Run from the repository's root (the paper figures' published fills).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_support.h"
#include "paper_figs.h"
#include "sem_sim.h"

static uint64_t fnv(const void *v, size_t n, uint64_t h)
{
	const unsigned char *b = v;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ull;
	}
	return h;
}

static int verbose;

/* An image's and its truth's fingerprint. */
static uint64_t fingerprint(const fs_image *img, const sem_truth *t)
{
	uint64_t s = 1469598103934665603ull;
	s = fnv(&img->width, sizeof img->width, s);
	s = fnv(&img->height, sizeof img->height, s);
	s = fnv(img->data, (size_t)img->width * img->height * sizeof *img->data, s);
	s = fnv(t->x, t->n * sizeof *t->x, s);
	s = fnv(t->y, t->n * sizeof *t->y, s);
	s = fnv(t->d, t->n * sizeof *t->d, s);
	return s;
}

/* One scene's fingerprint folded into *h; -1 when sem_make fails. */
static int scene(const char *fam, int k, const sem_opts *o, uint64_t *h)
{
	sem_truth t;
	fs_image *img = sem_make(o, &t);
	if (!img) {
		fprintf(stderr, "%s %d: sem_make failed\n", fam, k);
		return -1;
	}
	uint64_t s = fingerprint(img, &t);
	if (verbose)
		printf("  %s %3d %016llx\n", fam, k, (unsigned long long)s);
	*h = fnv(&s, sizeof s, *h);
	fs_image_free(img);
	sem_truth_free(&t);
	return 0;
}

/* Profile scenes k and k + 1 (edge 0.5 and 2, the rest the same) by one
 * sem_make_edges, folded as scene() folds each: the same fingerprint as
 * two sem_make calls when the two are the same bits. */
static int scene_edges(int k, const sem_opts *o, uint64_t *h)
{
	static const double EDGE[] = {0.5, 2.0};
	sem_truth t;
	fs_image *img[2];
	if (sem_make_edges(o, EDGE, 2, img, &t)) {
		fprintf(stderr, "profile %d: sem_make_edges failed\n", k);
		return -1;
	}
	for (int e = 0; e < 2; e++) {
		uint64_t s = fingerprint(img[e], &t);
		if (verbose)
			printf("  profile %3d %016llx\n", k + e, (unsigned long long)s);
		*h = fnv(&s, sizeof s, *h);
		fs_image_free(img[e]);
	}
	sem_truth_free(&t);
	return 0;
}

/* as test_paper_profile_fill.c's bank_render and bank_fills */
static int profile_fills(double *fills)
{
	static const double FULL[] = {0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8};
	int n = (int)(sizeof FULL / sizeof FULL[0]);
	memcpy(fills, FULL, sizeof FULL);
	paper_fig figs[PAPER_FIGS_MAX];
	int nf = paper_figs_read(figs, PAPER_FIGS_MAX);
	for (int i = 0; i < nf && n < 32; i++) {
		int have = 0;
		for (int j = 0; j < n; j++)
			have |= fabs(fills[j] - figs[i].ratio) < 0.005;
		if (!have)
			fills[n++] = figs[i].ratio;
	}
	return n;
}

static void profile_scene(int k, const double *fills, sem_opts *o)
{
	static const double HR[] = {0.25, 0.6, 1.0}, SHAPE[] = {0, 1, 2}, EDGE[] = {0.5, 2.0};
	int s = k % 18, f = k / 18;
	sem_defaults(o);
	o->pitch = 40;
	o->width = 200;
	o->height = 180;
	o->fill = fills[f];
	o->edge = EDGE[s % 2];
	o->profile = SHAPE[(s / 2) % 3];
	o->h_over_r = HR[s / 6];
	o->dose = 0;
	o->bits = 0;
	o->drift = 0;
	o->seed = 11;
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 && *argv[1] ? argv[1] : NULL;
	int step = argc > 2 ? atoi(argv[2]) : 1;
	if (step < 1)
		step = 1;
	const char *v = getenv("FS_BENCH_VERBOSE");
	verbose = v && *v == '1';
	double fills[32];
	int nfill = profile_fills(fills);
	static const char *fam[] = {"corner", "interior", "smooth", "profile"};
	/* the first 10 interior scenes (h34i's): the fingerprint predates h35c's four */
	int count[] = {64, 10, SEM_SMOOTH_SCENES, 18 * nfill};
	uint64_t all = 1469598103934665603ull;
	double total = 0;
	for (int f = 0; f < 4; f++) {
		if (only && !strstr(fam[f], only))
			continue;
		uint64_t h = 1469598103934665603ull;
		double t0 = bench_cpu_ms();
		for (int k = 0; k < count[f]; k += step) {
			sem_opts o;
			if (f == 0)
				sem_corner_scene(k, &o);
			else if (f == 1)
				sem_interior_scene(k, &o);
			else if (f == 2)
				sem_smooth_scene(k, &o);
			else
				profile_scene(k, fills, &o);
			if (f == 3 && step == 1 && k % 2 == 0) {
				/* as the test renders the bank: both strengths at once */
				if (scene_edges(k, &o, &h))
					return 1;
				k++;
				continue;
			}
			if (scene(fam[f], k, &o, &h))
				return 1;
		}
		double cpu = (bench_cpu_ms() - t0) / 1000;
		total += cpu;
		all = fnv(&h, sizeof h, all);
		printf("%-8s %3d scenes  CPU %7.2f s  fingerprint %016llx\n", fam[f], count[f], cpu,
		       (unsigned long long)h);
	}
	printf("all: CPU %.2f s  fingerprint of all %016llx\n", total, (unsigned long long)all);
	return 0;
}
