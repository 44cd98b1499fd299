/*
 * bench_noise_band.c - the guards' noise band: test_sem_accuracy's 64
 * corner scenes measured by the dome rule on several seed sets, each with
 * its candidates nudged by a few sub-rounding amounts
 * (fs_detect_set_cand_nudge), and which scene-seeds' four targets change
 * between the nudges.
 *
 * Why (docs/paper-figures.md, sections h47i, h47k and the lead's stop 47):
 * a 1e-6 px move of the candidates changes the misses of 49-61 of the 512
 * corner scene-seeds and the all-four count of a seed set by up to 4,
 * mostly through the formation fit's offset choosing between two
 * near-equal basins. A change that moves bits is then judged by luck on
 * "no seed set lower"; this prints the band a change's counts can be
 * read against, and which scene-seeds are coins. It took 24 runs of
 * test_sem_accuracy and a diff of their logs by hand before.
 *
 * Usage: bench_noise_band [--seeds A,B,...] [--nudges X,Y,...] [--errors]
 *        [SCENE...]
 * --seeds: offsets added to each scene's seed, as SEM_SEED_ADD (default
 * the 8 sets 0,4000,...,28000). --nudges: candidate nudges in px
 * (default -1e-6,0,1e-6); flips are counted against the nudge 0 when it
 * is given, else against the first. SCENE: corner scene numbers (default
 * all 64). SEM_SCENE_CACHE shares the renders with the tests; each scene
 * is rendered once and detected at every nudge.
 *
 * Prints per seed set the all-four count at each nudge and its band [min,
 * max], and each scene-seed whose targets' pass/fail differ between
 * nudges as scene@seed with its misses at each nudge (D, S, SD, RP; "-"
 * none); then per nudge the all-four counts of every set and their total,
 * the flips against the reference nudge, on how many seed sets each
 * scene flipped, and the line
 * "noise band: all four total MIN..MAX over nudges, flips N of M", N the
 * scene-seeds whose misses differ among all the nudges. Then the steady
 * failures (h49e): per scene, on how many seed sets it missed the four
 * targets at every nudge and which targets it missed at every nudge, with
 * the scene's corners; and per corner (fill, profile, h/R, halftone,
 * azimuth, pitch) the steady scene-seeds on each side and the targets
 * they missed, so the largest steadily failing group can be read off.
 * --errors (h51d) also prints every scene-seed's errors at each nudge, a
 * line "err K@SEED NUDGE: D S SD R P miss" (mean D and S errors %, D SD
 * %, recall, precision, the targets missed): the near misses' table.
 * Asserts nothing: an evidence bench (evidence.list).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/detect_methods.h"
#include "bench_support.h"
#include "sem_scene.h"
#include "sem_score.h"

#define NCORNER 64
#define MAX_SEEDS 16
#define MAX_NUDGES 8

enum { MISS_D = 1, MISS_S = 2, MISS_SD = 4, MISS_RP = 8 };

/* The targets test_sem_accuracy's corner table counts, as a mask of the
 * ones missed (0: all four met). */
static int misses_of(const sem_score *r)
{
	int m = 0;
	if (!(fabs(r->d_err) < 3))
		m |= MISS_D;
	if (!(fabs(r->s_err) < 3))
		m |= MISS_S;
	if (r->sd_applies && !(r->d_sd < 8))
		m |= MISS_SD;
	if (!(r->recall >= 0.97 && r->precision >= 0.97))
		m |= MISS_RP;
	return m;
}

static void print_misses(int m)
{
	if (!m) {
		printf("-");
		return;
	}
	const char *sep = "";
	static const char *const name[] = {"D", "S", "SD", "RP"};
	for (int b = 0; b < 4; b++)
		if (m & (1 << b)) {
			printf("%s%s", sep, name[b]);
			sep = "+";
		}
}

/* The corners of scene k as test_sem_accuracy names them (sem_sim.c's
 * sem_corner_scene: bit 0 fill, 1 profile, 2 h/R, 3 halftone, 4
 * azimuth, 5 pitch). */
static const char *const corner_name[6][2] = {
	{"fill 0.25", "fill 0.80"}, {"sphere", "flat"}, {"h/R 0.25", "h/R 1.0"},
	{"no screen", "5 px"},	    {"az 0", "az 135"}, {"pitch 16", "pitch 64"},
};

/* The steady failures: each scene that failed at every nudge on some seed
 * set, then per corner the count on either side (scene-seeds, and per
 * target the ones missed at every nudge). */
static void print_steady(const int *steady, int (*steady_t)[4], int ns)
{
	static const char *const tname[] = {"D", "S", "SD", "RP"};
	printf("steady failures (scene: seed sets of %d failed at every nudge; targets missed at every nudge "
	       "on that many sets):\n",
	       ns);
	int tot = 0;
	for (int k = 0; k < NCORNER; k++) {
		if (!steady[k])
			continue;
		tot += steady[k];
		printf("  %2d: %d; D %d S %d SD %d RP %d;", k, steady[k], steady_t[k][0], steady_t[k][1], steady_t[k][2],
		       steady_t[k][3]);
		for (int c = 0; c < 6; c++)
			printf(" %s", corner_name[c][(k >> c) & 1]);
		printf("\n");
	}
	printf("steady failures by corner (%d scene-seeds; side: scene-seeds, D/S/SD/RP):\n", tot);
	for (int c = 0; c < 6; c++) {
		printf("  ");
		for (int side = 0; side < 2; side++) {
			int n = 0, t[4] = {0};
			for (int k = 0; k < NCORNER; k++)
				if (((k >> c) & 1) == side) {
					n += steady[k];
					for (int b = 0; b < 4; b++)
						t[b] += steady_t[k][b];
				}
			printf("%s%s: %d, ", side ? "; " : "", corner_name[c][side], n);
			for (int b = 0; b < 4; b++)
				printf("%s%s %d", b ? "/" : "", tname[b], t[b]);
		}
		printf("\n");
	}
}

/* Corner scene k on seed offset add at each nudge: its misses into
 * miss[0..nn-1]. 0, or -1 when the scene or a detection fails (said on
 * stderr). */
static int run_scene(int k, unsigned add, const double *nudge, int nn, int *miss, int errors)
{
	sem_opts o;
	sem_corner_scene(k, &o);
	o.seed += add;
	sem_scene s;
	if (sem_scene_render(&s, &o)) {
		fprintf(stderr, "corner %d seed +%u: %s\n", k, add, s.err);
		return -1;
	}
	int rc = 0;
	for (int j = 0; j < nn && !rc; j++) {
		fs_detect_result res;
		fs_detect_set_cand_nudge(nudge[j]);
		if (fs_detect_domes(s.img, &s.p, 0, &res, s.err, sizeof s.err)) {
			fprintf(stderr, "corner %d seed +%u nudge %g: %s\n", k, add, nudge[j], s.err);
			rc = -1;
			break;
		}
		sem_score r;
		rc = sem_score_detection(&s.tr, &res.tubercles, o.halftone, &r);
		if (rc)
			fprintf(stderr, "corner %d seed +%u: out of memory scoring\n", k, add);
		else
			miss[j] = misses_of(&r);
		if (!rc && errors) {
			printf("  err %d@%u %g: D %+.3f S %+.3f SD %.3f R %.4f P %.4f miss ", k, add, nudge[j], r.d_err,
			       r.s_err, r.d_sd, r.recall, r.precision);
			print_misses(miss[j]);
			printf("\n");
		}
		fs_detect_result_free(&res);
	}
	fs_detect_set_cand_nudge(0);
	sem_scene_close(&s);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned seeds[MAX_SEEDS] = {0, 4000, 8000, 12000, 16000, 20000, 24000, 28000};
	double nudge[MAX_NUDGES] = {-1e-6, 0, 1e-6};
	int ns = 8, nn = 3, errors = 0;
	int pick[NCORNER], npick = 0;
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--seeds") && a + 1 < argc) {
			ns = bench_parse_seeds(argv[++a], seeds, MAX_SEEDS);
			if (ns <= 0) {
				fprintf(stderr, "bad --seeds (at most %d whole offsets)\n", MAX_SEEDS);
				return 2;
			}
		} else if (!strcmp(argv[a], "--errors")) {
			errors = 1;
		} else if (!strcmp(argv[a], "--nudges") && a + 1 < argc) {
			nn = bench_parse_list(argv[++a], nudge, MAX_NUDGES);
			if (nn <= 0) {
				fprintf(stderr, "bad --nudges (at most %d, px)\n", MAX_NUDGES);
				return 2;
			}
		} else {
			char *end;
			long k = strtol(argv[a], &end, 10);
			if (end == argv[a] || *end || k < 0 || k >= NCORNER || npick == NCORNER) {
				fprintf(stderr, "usage: %s [--seeds A,B,...] [--nudges X,Y,...] [--errors] [SCENE...]\n", argv[0]);
				return 2;
			}
			pick[npick++] = (int)k;
		}
	}
	if (!npick)
		for (int k = 0; k < NCORNER; k++)
			pick[npick++] = k;
	/* flips are counted against nudge 0 (the guards' own run) when given */
	int ref = 0;
	for (int j = 0; j < nn; j++)
		if (nudge[j] == 0) {
			ref = j;
			break;
		}

	int all[MAX_SEEDS][MAX_NUDGES] = {{0}};
	int flips_vs[MAX_NUDGES] = {0};
	int flips = 0, total = 0, failed = 0;
	/* per corner scene, on how many seed sets it flipped: a scene that
	 * flips on most sets is a coin wherever a change moves bits */
	int scene_flips[NCORNER] = {0};
	/* per corner scene, on how many seed sets it missed at every nudge,
	 * and per target on how many of those the target was missed at every
	 * nudge: the failures no nudge of the noise explains */
	int steady[NCORNER] = {0};
	int steady_t[NCORNER][4] = {{0}};
	for (int i = 0; i < ns; i++) {
		unsigned add = seeds[i];
		printf("seed set +%u\n", add);
		for (int q = 0; q < npick; q++) {
			int miss[MAX_NUDGES];
			if (run_scene(pick[q], add, nudge, nn, miss, errors)) {
				failed++;
				continue;
			}
			total++;
			int always = ~0, fails_all = 1;
			for (int j = 0; j < nn; j++) {
				always &= miss[j];
				fails_all &= miss[j] != 0;
			}
			if (fails_all) {
				steady[pick[q]]++;
				for (int b = 0; b < 4; b++)
					steady_t[pick[q]][b] += (always >> b) & 1;
			}
			int differ = 0;
			for (int j = 0; j < nn; j++) {
				all[i][j] += miss[j] == 0;
				if (miss[j] != miss[ref]) {
					flips_vs[j]++;
					differ = 1;
				}
			}
			if (!differ)
				continue;
			flips++;
			scene_flips[pick[q]]++;
			printf("  flip %d@%u:", pick[q], add);
			for (int j = 0; j < nn; j++) {
				printf("%s %g: ", j ? "," : "", nudge[j]);
				print_misses(miss[j]);
			}
			printf("\n");
		}
		int lo = all[i][0], hi = all[i][0];
		printf("  all four:");
		for (int j = 0; j < nn; j++) {
			printf("%s %g: %d", j ? "," : "", nudge[j], all[i][j]);
			lo = all[i][j] < lo ? all[i][j] : lo;
			hi = all[i][j] > hi ? all[i][j] : hi;
		}
		printf("; band [%d, %d]\n", lo, hi);
		fflush(stdout);
	}

	printf("all four per seed set (");
	for (int i = 0; i < ns; i++)
		printf("%s+%u", i ? "," : "", seeds[i]);
	printf("):\n");
	int tlo = 0, thi = 0;
	for (int j = 0; j < nn; j++) {
		int t = 0;
		printf("  nudge %g:", nudge[j]);
		for (int i = 0; i < ns; i++) {
			printf("%s%d", i ? "," : " ", all[i][j]);
			t += all[i][j];
		}
		printf(" = %d", t);
		if (j != ref)
			printf("; flips against nudge %g: %d", nudge[ref], flips_vs[j]);
		printf("\n");
		if (j == 0 || t < tlo)
			tlo = t;
		if (j == 0 || t > thi)
			thi = t;
	}
	printf("flips per scene (scene: seed sets of %d):", ns);
	for (int k = 0; k < NCORNER; k++)
		if (scene_flips[k])
			printf(" %d: %d", k, scene_flips[k]);
	printf("\n");
	print_steady(steady, steady_t, ns);
	if (failed)
		printf("scene-seeds that failed to run: %d\n", failed);
	printf("noise band: all four total %d..%d over nudges, flips %d of %d\n", tlo, thi, flips, total);
	return failed ? 1 : 0;
}
