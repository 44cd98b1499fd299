/*
 * bench_axis_shadow.c - the axis step (centre_axis.h) read from the TRUE
 * centres of a simulated scene, the domes split by whether a neighbour
 * stands on their lit side (issue 13; docs/paper-figures.md, h37j).
 *
 * Why: on the tall fill-0.8 scenes at pitch 64 (corner 37, 39, 55) the
 * axis step moves the centres 0.3-0.8 px away from the detector, while
 * the same scenes rendered without the simulator's shadow are corrected
 * (h37e, section 4). The guess was that the neighbour's cast shadow falls
 * in the step's window on the lit side. From the true centres the right
 * shift is 0, so what the estimate reads there is its own bias; reading
 * it separately over the domes whose lit side faces a neighbour (one
 * whose shadow line passes over the lit side's base) and over those whose
 * neighbour there is missing (--missing) tests the guess without the
 * detector, whose centres a missing lattice breaks.
 *
 * Usage: bench_axis_shadow [--seed-add N] [--missing F] [--shadow S]
 *        [--sigma PX] [--offset PX] [--set KEY=VALUE]... [--meas SIGMA] [--r0 PX] [SCENE...]
 * (corner scenes, default 37 39 55 53; --missing sets the share of
 * missing sites, --shadow the simulator's shadow depth, --sigma the
 * geometry's blur (default 1.2 px), --offset moves every centre by PX
 * towards the detector before reading, so the right reading is -PX).
 * Prints one row per scene and group: the domes read, the shift, the
 * match's residual, ok / end / reversed, the lit side's ground over the
 * across-axis ground and the oblique direction the shift was read along
 * (degrees; 0 on the axis). AXIS_SHADOW_PRINT=1 also prints the groups'
 * mean profiles along (u), across (v) and against (w) the axis around the
 * base. Asserts nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/centre_axis.h"
#include "analysis/detect_methods.h"
#include "analysis/params.h"
#include "sem_cache.h"
#include "sem_opts_keys.h"
#include "sem_sim.h"

/* Whether dome i has a neighbour whose shadow line, cast away from the
 * detector at azimuth az, crosses the lit side's base of i: a dome within
 * 1.3 pitches ahead along the axis and within one base radius of i's
 * axis line beside it. */
static int lit_neighbour(const sem_truth *t, size_t i, double az)
{
	double ux = cos(az), uy = sin(az);
	for (size_t j = 0; j < t->n; j++) {
		if (j == i)
			continue;
		double dx = t->x[j] - t->x[i], dy = t->y[j] - t->y[i];
		double along = dx * ux + dy * uy, beside = -dx * uy + dy * ux;
		if (along > 0 && along < 1.3 * t->pitch && fabs(beside) < 0.5 * t->d[j])
			return 1;
	}
	return 0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The groups' mean profiles along (u), across (v) and against (w) the
 * axis from r0 - 3 sigma to r0 + 6 sigma, every fourth sample. */
static void print_means(double *const profs[2], const size_t cnt[2], const fs_centre_axis_geom *g, size_t len)
{
	for (int i = 0; i < g->ns; i += 4) {
		double r = i * g->step;
		if (r < g->r0 - 3 * g->sigma || r > g->r0 + 6 * g->sigma)
			continue;
		printf("  r %6.2f", r);
		for (int grp = 0; grp < 2; grp++) {
			double m[3] = {0, 0, 0};
			for (size_t k = 0; k < cnt[grp]; k++)
				for (int c = 0; c < 3; c++)
					m[c] += profs[grp][k * len + c * g->ns + i] / cnt[grp];
			printf("   u %.3f v %.3f w %.3f", m[0], m[1], m[2]);
		}
		printf("\n");
	}
}

/* --set KEY=VALUE (h41a, repeatable; sem_opts_keys.h's keys, checked
 * before any scene): a simulator option on every scene after its seed
 * (e.g. beam_continuous=1: the axis step's own bias under a continuous
 * beam spot) */
static sem_opts_args set_args;
/* --meas SIGMA (h41a): read on the rule's measurement image
 * (fs_detect_measure_image with that blur; the dome rule's msig is 0.5
 * px below a 40-px pitch) instead of the raw render; --r0 PX: the
 * geometry's base radius given (default the true median radius) - the
 * rule's first look reads at the base rule's median radius, 20 % large
 * at fill 0.8, pitch 16 (h41a) */
static double meas_sigma, r0_given;

static void run(int k, unsigned seed_add, double missing, double shadow, double sigma, double offset)
{
	sem_opts o;
	sem_truth t;
	sem_corner_args(k, seed_add, &set_args, &o);
	if (missing >= 0)
		o.missing = missing;
	if (shadow >= 0)
		o.shadow = shadow;
	fs_image *img = sem_make_shared(&o, &t);
	if (!img) {
		printf("%d: the simulator refused the scene\n", k);
		return;
	}
	if (meas_sigma > 0) {
		/* --meas: the rule's measurement image (its top-hat and blur),
		 * which the axis step reads in detection */
		fs_params pp;
		fs_params_default(&pp);
		fs_image *mi = NULL;
		char e[128];
		if (fs_detect_measure_image(img, &pp, meas_sigma, &mi, e, sizeof e)) {
			printf("%d: measurement image: %s\n", k, e);
			sem_truth_free(&t);
			fs_image_free(img);
			return;
		}
		fs_image_free(img);
		img = mi;
	}
	double *r = malloc(t.n * sizeof *r);
	size_t nr = 0;
	for (size_t i = 0; i < t.n; i++)
		if (sem_counted(&t, t.x[i], t.y[i]))
			r[nr++] = 0.5 * t.d[i];
	if (!nr) {
		free(r);
		sem_truth_free(&t);
		fs_image_free(img);
		return;
	}
	qsort(r, nr, sizeof *r, cmp_d);
	double r0 = r[nr / 2];
	if (r0_given > 0)
		r0 = r0_given;
	free(r);
	fs_centre_axis_geom g;
	fs_centre_axis_geom_of(o.det_azimuth, r0, sigma, t.pitch, &g);
	size_t len = fs_centre_axis_len(&g);
	double reach = fs_centre_axis_reach(&g);
	double *profs[2] = {malloc(t.n * len * sizeof(double)), malloc(t.n * len * sizeof(double))};
	size_t cnt[2] = {0, 0};
	for (size_t i = 0; profs[0] && profs[1] && i < t.n; i++) {
		double x = t.x[i] + offset * cos(o.det_azimuth), y = t.y[i] + offset * sin(o.det_azimuth);
		if (!sem_counted(&t, t.x[i], t.y[i]) || x < reach || y < reach || x + reach >= t.width - 1 ||
		    y + reach >= t.height - 1)
			continue;
		int grp = lit_neighbour(&t, i, o.det_azimuth);
		fs_centre_axis_profile(img, x, y, &g, profs[grp] + cnt[grp] * len);
		cnt[grp]++;
	}
	static const char *names[2] = {"lit side open", "neighbour on lit side"};
	if (getenv("AXIS_SHADOW_PRINT"))
		print_means(profs, cnt, &g, len);
	for (int grp = 0; grp < 2; grp++) {
		fs_centre_axis a;
		if (!profs[grp] || fs_centre_axis_estimate(profs[grp], cnt[grp], &g, t.pitch, &a)) {
			printf("%d: out of memory\n", k);
			break;
		}
		printf("%-5d %-5u %-7.2f %-6.2f %-22s %5zu %8.2f %9.4f %3d %3d %3d %6.3f %4.0f\n", k, seed_add,
		       o.missing, o.shadow, names[grp], cnt[grp], a.shift, a.residual, a.ok, a.end, a.reversed, a.ground,
		       a.oblique);
	}
	free(profs[0]);
	free(profs[1]);
	sem_truth_free(&t);
	fs_image_free(img);
}

int main(int argc, char **argv)
{
	unsigned seed_add = 0;
	double missing = -1, shadow = -1, sigma = 1.2, offset = 0;
	int scenes[64], listed = 0;
	for (int i = 1; i < argc; i++) {
		if (sem_bench_arg(argc, argv, &i, &seed_add, &set_args))
			continue;
		if (!strcmp(argv[i], "--meas") && i + 1 < argc)
			meas_sigma = atof(argv[++i]);
		else if (!strcmp(argv[i], "--r0") && i + 1 < argc)
			r0_given = atof(argv[++i]);
		else if (!strcmp(argv[i], "--missing") && i + 1 < argc)
			missing = atof(argv[++i]);
		else if (!strcmp(argv[i], "--shadow") && i + 1 < argc)
			shadow = atof(argv[++i]);
		else if (!strcmp(argv[i], "--sigma") && i + 1 < argc)
			sigma = atof(argv[++i]);
		else if (!strcmp(argv[i], "--offset") && i + 1 < argc)
			offset = atof(argv[++i]);
		else if (listed < 64 && atoi(argv[i]) >= 0 && atoi(argv[i]) < 64)
			scenes[listed++] = atoi(argv[i]);
		else {
			fprintf(stderr,
				"usage: %s [--seed-add N] [--missing F] [--shadow S] [--sigma PX] [--offset PX] "
				"[--set KEY=VALUE]... [--meas SIGMA] [--r0 PX] [SCENE...]\n",
				argv[0]);
			return 2;
		}
	}
	if (!listed) {
		static const int def[] = {37, 39, 55, 53};
		for (; listed < 4; listed++)
			scenes[listed] = def[listed];
	}
	printf("the axis step from the true centres (+ offset %.2f px towards the detector; the right shift is "
	       "%.2f px)\n",
	       offset, -offset);
	printf("%-5s %-5s %-7s %-6s %-22s %5s %8s %9s %3s %3s %3s %6s %4s\n", "scene", "seed+", "missing", "shadow", "group",
	       "domes", "shift", "residual", "ok", "end", "rev", "ground", "obl");
	for (int i = 0; i < listed; i++)
		run(scenes[i], seed_add, missing, shadow, sigma, offset);
	return 0;
}
