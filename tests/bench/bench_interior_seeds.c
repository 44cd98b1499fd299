/*
 * bench_interior_seeds.c - test_sem_accuracy's interior table (the 14
 * scenes between the corners, sem_interior_scene) on several seed sets at
 * once, with each scene's pass/fail and the mean |D| and |S| errors.
 *
 * Why (docs/paper-figures.md, sections h38e and h38q): the interior table
 * of make test is 14 scenes with a floor of 13, so one scene whose S error
 * sits near 3 % decides a change's verdict by its noise (h38e: every
 * bits-moving cut of the dome rule's readings lost one interior scene,
 * most often scene 10). Rendering the same 14 geometries on four seed
 * sets (56 scenes) tells a scene that crosses a threshold by a hair on one
 * seed from errors that grow on every seed. Too slow for make test (56
 * renders and detections); an evidence bench (evidence.list).
 *
 * Usage: bench_interior_seeds [--outline] [--seeds A,B,...] [--halftone P] [--set KEY=VALUE]... [SCENE...]
 * --seeds: the seed offsets added to each scene's own seed, as
 * SEM_SEED_ADD does in test_sem_accuracy (default 0,4000,8000,12000: the
 * test seeds, HELPERS.md's held-out set and two more). --outline: the
 * outline rule instead of the dome rule. SCENE: interior scene numbers
 * (default all). SEM_SCENE_CACHE shares the renders with the tests.
 * --set (h41a): a simulator option (sem_opts_keys.h) on every scene after
 * its seed, as test_sem_accuracy's SEM_SET.
 * --halftone P (h43o): the scenes printed through a P-px halftone screen,
 * set after the seed and before any --set, as test_sem_accuracy's printed
 * interior table (h43m, 5 px) sets it: its floors are the test seeds'
 * alone, and a change to the screened path is judged here over seed sets
 * as the unscreened interior is. Under a screen (this option or --set
 * halftone=P) each tally also counts the scenes whose mean D is within
 * 10 %, the printed table's wider count, with their mean |D|, |S|;
 * without one the output is what it was before the option.
 *
 * Prints one row per scene and seed set (as test_sem_accuracy's interior
 * table, plus the seed offset), then per seed set the counts meeting each
 * target (mean D, mean S, D SD, recall & precision, all four) and the
 * mean |D error|, |S error| and D SD over its scenes, with the count of
 * whole-scene blow-ups (|mean D error| > 5 %) and the mean errors
 * without them, then per scene the seed sets passing all four and its
 * mean |D|, |S| over the seed sets, then the totals. Asserts nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "bench_support.h"
#include "sem_opts_keys.h"
#include "sem_scene.h"
#include "sem_score.h"

#define MAX_SEEDS 16

/* one scene on one seed set, and whether it meets each target (the
 * thresholds of test_sem_accuracy) */
typedef struct row {
	sem_score r;
	int ok_d, ok_s, ok_sd, ok_rp, all;
	int d10;      /* |mean D error| < 10 % */
	int screened; /* the scene was printed through a halftone screen */
} row;

/* counts and sums over a set of rows */
typedef struct tally {
	int n, d, s, sd, sd_applies, rp, all;
	/* the 10 % count is printed only when a scene was screened, so an
	 * unscreened run prints what it printed before h43o */
	int d10, screened;
	/* under a screen most scenes read beyond the 5 % blow-up line (h43o:
	 * 76 of 112 at 5 px), so the means left without the blow-ups say
	 * little there; the scenes within 10 % and their mean errors are
	 * what a change to the screened path moves short of a blow-up */
	double abs_d10, abs_s10;
	double abs_d, abs_s, sd_sum;
	/* whole-scene blow-ups (h38q: a scene's every dome read 10-40 %
	 * small while its D SD stays low, the formation fit gone to another
	 * solution) dominate the mean errors of 56 scenes; the means without
	 * them are what a change moves elsewhere */
	int blow;
	double abs_d_rest, abs_s_rest;
} tally;

#define BLOW_UP_D 5.0 /* |mean D error| %: main's other failing interior scenes read at most 4.9 % (h38q, 8 seed sets) */

static void add(tally *T, const row *w)
{
	T->n++;
	T->d += w->ok_d;
	T->s += w->ok_s;
	T->sd_applies += w->r.sd_applies;
	T->sd += w->r.sd_applies && w->r.d_sd < 8;
	T->rp += w->ok_rp;
	T->all += w->all;
	T->d10 += w->d10;
	if (w->d10) {
		T->abs_d10 += fabs(w->r.d_err);
		T->abs_s10 += fabs(w->r.s_err);
	}
	T->screened += w->screened;
	T->abs_d += fabs(w->r.d_err);
	T->abs_s += fabs(w->r.s_err);
	T->sd_sum += w->r.d_sd;
	if (fabs(w->r.d_err) > BLOW_UP_D) {
		T->blow++;
	} else {
		T->abs_d_rest += fabs(w->r.d_err);
		T->abs_s_rest += fabs(w->r.s_err);
	}
}

static void print_tally(const char *what, const tally *T)
{
	if (T->n == 0)
		return;
	printf("%s: mean D %d/%d, mean S %d/%d, D SD %d/%d, recall & precision %d/%d, all four %d/%d; "
	       "mean |D| %.2f %%, mean |S| %.2f %%, mean D SD %.2f %%\n",
	       what, T->d, T->n, T->s, T->n, T->sd, T->sd_applies, T->rp, T->n, T->all, T->n, T->abs_d / T->n,
	       T->abs_s / T->n, T->sd_sum / T->n);
	if (T->screened)
		printf("  mean D within 10 %% %d/%d (printed); those scenes' mean |D| %.2f %%, mean |S| %.2f %%\n",
		       T->d10, T->n, T->d10 ? T->abs_d10 / T->d10 : NAN, T->d10 ? T->abs_s10 / T->d10 : NAN);
	int rest = T->n - T->blow;
	printf("  blow-ups (|D| > %.0f %%) %d; without them mean |D| %.2f %%, mean |S| %.2f %%\n", BLOW_UP_D, T->blow,
	       rest ? T->abs_d_rest / rest : NAN, rest ? T->abs_s_rest / rest : NAN);
}

/* --set KEY=VALUE (h41a, repeatable; sem_opts_keys.h's keys, checked
 * before any scene): a simulator option on every scene after its seed,
 * as test_sem_accuracy's SEM_SET (e.g. beam_continuous=1) */
static sem_opts_args set_args;

/* --halftone P (h43o): the screen's period in px after the seed, 0 for
 * the scenes' own (none); a --set halftone=... given too overrides it,
 * as SEM_SET overrides test_sem_accuracy's 5 px */
static double halftone_arg;

static int run_one(int i, unsigned add_seed, sem_detect_fn fn, row *w, sem_opts *o)
{
	sem_interior_scene(i, o);
	o->seed += add_seed;
	if (halftone_arg > 0)
		o->halftone = halftone_arg;
	sem_opts_args_apply(&set_args, o);
	sem_scene sim;
	fs_detect_result res;
	if (sem_scene_detect(&sim, o, fn, &res)) {
		fprintf(stderr, "scene %d seed +%u: %s\n", i, add_seed, sim.err);
		return -1;
	}
	int rc = sem_score_detection(&sim.tr, &res.tubercles, o->halftone, &w->r);
	fs_detect_result_free(&res);
	sem_scene_close(&sim);
	if (rc)
		return -1;
	w->ok_d = fabs(w->r.d_err) < 3;
	w->ok_s = fabs(w->r.s_err) < 3;
	w->ok_sd = !w->r.sd_applies || w->r.d_sd < 8;
	w->ok_rp = w->r.recall >= 0.97 && w->r.precision >= 0.97;
	w->all = w->ok_d && w->ok_s && w->ok_sd && w->ok_rp;
	w->d10 = fabs(w->r.d_err) < 10;
	w->screened = o->halftone > 0;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned seeds[MAX_SEEDS] = {0, 4000, 8000, 12000};
	int nseeds = 4;
	sem_detect_fn fn = fs_detect_domes;
	int pick[SEM_INTERIOR_SCENES], npick = 0;
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--outline")) {
			fn = fs_detect_outline;
		} else if (!strcmp(argv[a], "--seeds") && a + 1 < argc) {
			nseeds = bench_parse_seeds(argv[++a], seeds, MAX_SEEDS);
			if (nseeds <= 0) {
				fprintf(stderr, "bad --seeds\n");
				return 2;
			}
		} else if (!strcmp(argv[a], "--halftone") && a + 1 < argc) {
			char *end;
			halftone_arg = strtod(argv[++a], &end);
			if (end == argv[a] || *end || !(halftone_arg > 0)) {
				fprintf(stderr, "bad --halftone (a period in px > 0)\n");
				return 2;
			}
		} else if (!strcmp(argv[a], "--set") && a + 1 < argc) {
			if (sem_opts_args_say(&set_args, argv[0], "--set", argv[++a]))
				return 2;
		} else {
			int i = atoi(argv[a]);
			if (i < 0 || i >= SEM_INTERIOR_SCENES || npick >= SEM_INTERIOR_SCENES) {
				fprintf(stderr, "usage: %s [--outline] [--seeds A,B,...] [--halftone P] [--set KEY=VALUE]... "
					"[SCENE...]\n",
					argv[0]);
				return 2;
			}
			pick[npick++] = i;
		}
	}
	if (npick == 0)
		for (int i = 0; i < SEM_INTERIOR_SCENES; i++)
			pick[npick++] = i;

	static row rows[MAX_SEEDS][SEM_INTERIOR_SCENES];
	printf("%s between the corners on %d seed sets:\n",
	       fn == fs_detect_domes ? "fs_detect_domes" : "fs_detect_outline", nseeds);
	if (halftone_arg > 0)
		printf("printed through a %g-px halftone screen (after the seed)\n", halftone_arg);
	for (int k = 0; k < set_args.n; k++)
		printf("scene option after the seed: %s\n", set_args.kv[k]);
	printf("%-6s %-5s %-4s %-4s %-4s %-3s %5s %5s %6s %6s %6s %5s\n", "seed+", "scene", "fill", "h/R", "az",
	       "pit", "rec", "prec", "D%", "S%", "sdD%", "nan");
	tally total = {0};
	for (int k = 0; k < nseeds; k++) {
		tally T = {0};
		for (int q = 0; q < npick; q++) {
			int i = pick[q];
			row *w = &rows[k][i];
			sem_opts o;
			if (run_one(i, seeds[k], fn, w, &o))
				return 1;
			add(&T, w);
			add(&total, w);
			printf("%-6u %-5d %-4.2f %-4.2f %-4.0f %-3.0f %5.3f %5.3f %6.1f %6.1f %6.1f%s %4d %s%s%s%s\n",
			       seeds[k], i, o.fill, o.h_over_r, o.det_azimuth * 180 / M_PI, o.pitch, w->r.recall,
			       w->r.precision, w->r.d_err, w->r.s_err, w->r.d_sd, w->r.sd_applies ? "*" : " ",
			       w->r.n_nan, w->ok_d ? "" : " D", w->ok_s ? "" : " S", w->ok_sd ? "" : " SD",
			       w->ok_rp ? "" : " RP");
			fflush(stdout);
		}
		char what[64];
		snprintf(what, sizeof what, "seed +%u", seeds[k]);
		print_tally(what, &T);
	}
	/* per geometry: a scene that fails on one seed by a hair and passes on
	 * the others is noise; one whose errors grow on every seed is not */
	printf("per scene over the seed sets (all four met; mean |D|, |S| %%; D%% and S%% per seed set):\n");
	for (int q = 0; q < npick; q++) {
		int i = pick[q];
		tally T = {0};
		for (int k = 0; k < nseeds; k++)
			add(&T, &rows[k][i]);
		printf("scene %-2d all four %d/%d  |D| %5.2f  |S| %5.2f  D%%", i, T.all, T.n, T.abs_d / T.n,
		       T.abs_s / T.n);
		for (int k = 0; k < nseeds; k++)
			printf(" %+5.1f", rows[k][i].r.d_err);
		printf("  S%%");
		for (int k = 0; k < nseeds; k++)
			printf(" %+5.1f", rows[k][i].r.s_err);
		printf("\n");
	}
	print_tally("all seed sets", &total);
	return 0;
}
