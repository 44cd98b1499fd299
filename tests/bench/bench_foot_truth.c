/*
 * bench_foot_truth.c - the dome rule with and without its experimental
 * foot search (detect_offset.h, fs_det_offset_set_foot; h47c in
 * docs/paper-figures.md) on the simulator's scene sets: per scene the
 * mean D error of the rule's detection and of Re-measure at the TRUE
 * centres (the shape's part, the centres' taken out), both ways.
 *
 * Why: on smooth-footed and capped domes the base rule's step is the
 * flank's, so the level reads short even at the true centres (h46g:
 * -7..-9 % on P1 Fig4-like cos^2 domes, -26..-28 % capped); the formation
 * with the foot searched names the support instead, and this shows what
 * that buys on the smooth set and costs on the sharp-footed sets (the
 * corner and interior scenes), at the truth and at the rule's centres.
 *
 * Usage: bench_foot_truth SET [--foot PASSES] [--seed-add N] [K ...]
 *   SET: corner, interior or smooth (scene_sets.h); K: scene numbers
 *   (default every scene of the set); PASSES: fs_det_offset_set_foot's
 *   bits for the "foot" columns (default 2: the last step and Re-measure).
 * Columns: the truth's fill (mean D / pitch), then D % of the truth:
 * detection off / foot, at the true centres off / foot. The summary
 * counts the scenes within 3 % and the mean |D %| per column.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/detect_offset.h"
#include "analysis/measurement.h"
#include "scene_sets.h"
#include "sem_scene.h"
#include "sem_sim.h"

enum { COL_DET_OFF, COL_DET_FOOT, COL_TRUE_OFF, COL_TRUE_FOOT, NCOL };

/* Mean D of the matched tubercles in % of their truth; NAN when none. */
static double d_err(const sem_truth *tr, const fs_tubercle_list *t)
{
	sem_match_errors e;
	if (sem_matched_errors(tr, t, &e) || !(e.sum_truth > 0))
		return NAN;
	return 100 * (e.sum_d / e.sum_truth - 1);
}

static double detected_err(const sem_scene *s)
{
	fs_detect_result r;
	memset(&r, 0, sizeof r);
	char err[256];
	double v = NAN;
	if (!fs_detect_domes(s->img, &s->p, 0, &r, err, sizeof err))
		v = d_err(&s->tr, &r.tubercles);
	fs_detect_result_free(&r);
	return v;
}

static double truth_err(const sem_scene *s)
{
	fs_tubercle_list t = {0};
	char err[256];
	double v = NAN;
	if (!sem_inside_centres(&s->tr, &t) &&
	    !fs_measure_centres_rule(s->img, &s->p, 0, FS_RULE_DOME, &t, err, sizeof err))
		v = d_err(&s->tr, &t);
	fs_tubercle_list_free(&t);
	return v;
}

/* the truth's mean D over the pitch, counted domes only */
static double true_fill(const sem_truth *tr)
{
	double sd = 0;
	size_t nd = 0;
	for (size_t k = 0; k < tr->n; k++)
		if (sem_counted(tr, tr->x[k], tr->y[k])) {
			sd += tr->d[k];
			nd++;
		}
	return nd && tr->pitch > 0 ? sd / (double)nd / tr->pitch : NAN;
}

int main(int argc, char **argv)
{
	if (argc < 2 || scene_set_named(argv[1]) < 0) {
		fprintf(stderr, "usage: bench_foot_truth corner|interior|smooth [--foot PASSES] [--seed-add N] [K ...]\n");
		return 2;
	}
	int set = scene_set_named(argv[1]);
	unsigned passes = FS_DET_TURN_LAST, seed_add = 0;
	int ks[256], nk = 0;
	for (int a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "--foot") && a + 1 < argc)
			passes = (unsigned)atoi(argv[++a]);
		else if (!strcmp(argv[a], "--seed-add") && a + 1 < argc)
			seed_add = (unsigned)atoi(argv[++a]);
		else if (nk < 256)
			ks[nk++] = atoi(argv[a]);
	}
	if (!nk)
		for (int k = 0; k < SET_COUNT[set] && k < 256; k++)
			ks[nk++] = k;
	printf("%s scenes, seed add %u, foot passes %u\n", SET_NAME[set], seed_add, passes);
	printf("scene  fill   det off  det foot  true off  true foot\n");
	int within[NCOL] = {0}, counted[NCOL] = {0};
	double sum_abs[NCOL] = {0};
	for (int i = 0; i < nk; i++) {
		sem_opts o;
		scene_set_opts(set, ks[i], seed_add, &o);
		sem_scene s;
		if (sem_scene_open(&s, &o)) {
			printf("%-5d  %s\n", ks[i], s.err);
			sem_scene_close(&s);
			continue;
		}
		double v[NCOL];
		unsigned old = fs_det_offset_set_foot(0);
		v[COL_DET_OFF] = detected_err(&s);
		v[COL_TRUE_OFF] = truth_err(&s);
		fs_det_offset_set_foot(passes);
		v[COL_DET_FOOT] = detected_err(&s);
		v[COL_TRUE_FOOT] = truth_err(&s);
		fs_det_offset_set_foot(old);
		printf("%-5d  %.3f  %+7.1f  %+8.1f  %+8.1f  %+9.1f\n", ks[i], true_fill(&s.tr), v[0], v[1], v[2], v[3]);
		fflush(stdout);
		for (int c = 0; c < NCOL; c++) {
			/* (a scene without a reading counts 100, as test_sem_smooth's) */
			double a = isfinite(v[c]) ? fabs(v[c]) : 100;
			counted[c]++;
			within[c] += a <= 3;
			sum_abs[c] += a;
		}
		sem_scene_close(&s);
	}
	printf("within 3 %%: det off %d, det foot %d, true off %d, true foot %d of %d\n", within[0], within[1],
	       within[2], within[3], counted[0]);
	printf("mean |D %%|: det off %.1f, det foot %.1f, true off %.1f, true foot %.1f\n",
	       counted[0] ? sum_abs[0] / counted[0] : NAN, counted[1] ? sum_abs[1] / counted[1] : NAN,
	       counted[2] ? sum_abs[2] / counted[2] : NAN, counted[3] ? sum_abs[3] / counted[3] : NAN);
	return 0;
}
