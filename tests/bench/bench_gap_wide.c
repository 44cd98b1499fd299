/*
 * bench_gap_wide - group C's wide valleys (pitch 64, fill 0.8: a 12.8-px
 * space) read by their floor's edges (analysis/gap_wide.h, h52g). Asserts
 * nothing.
 *
 * Why: 47 and 63 (screened flat tall tops) miss S on every seed set with D
 * -2.2 / -1.6 %, the same from the TRUE centres (h49e): the level on the
 * low-passed image reads their base short. Does the wide-valley reader,
 * which fits the floor and the walls' last stretch and takes the feet as
 * the floor's edges, read them right, and the other fill-0.8 pitch-64
 * scenes as well as the level does?
 *
 * Per scene-seed, on the image the rule reads the level on (the
 * measurement image, msig 1 px at pitch >= 40; under a screen its
 * low-pass at 0.3 of the simulator's period, as fs_det_base_lowpass),
 * mean D and S errors % (sem_score_scaled_ds):
 *   L    the level's reader at the TRUE centres (under a screen
 *        fs_det_base_level_lowpassed, else fs_det_base_level_one; reach
 *        0.6 pitch);
 *   W    the wide-valley feet at the TRUE centres started from L;
 *   Wt   the same started from the TRUE radii (the start's own effect);
 *   Wf   with --fix N, W read again N times, each round started from the
 *        last one's radii (the reading's fixed point; 0 rounds: W);
 * with --rule the dome rule's detection: its own D and S, and rW its
 * radii scaled by the mean wide-valley radius read at its own centres
 * (started from its own radii) over its mean radius: what the level
 * taken from the wide valleys would give; and, on a line before the
 * scene-seed's, the fit's rms over its step at the rule's own centres
 * and radii (the mean over the valleys). The mean fitted blur (sW), and
 * from the TRUE centres and radii the walls' mean step over the floor
 * (step), their rise across the window towards the foot relative to it
 * (rise) and the fit's residual rms over that step (rms/step: how well a
 * ramp and a step describe the wall).
 * Per scene the mean D and S and the sets within 3 % of S.
 *
 * --wall F: the wall window's share of the radius (fs_gap_wide_set_wall).
 * --edge: instead, where the image's signal ends against the simulator's
 * base (see edge_run); --raw reads the rendered pixels themselves, not
 * the measurement image or its low-pass (with --set blur=0, halftone=0,
 * scan=0: where the simulator's own signal ends).
 *
 * Usage: bench_gap_wide [--rule] [--edge] [--raw] [--fix N] [--wall F] [--seeds A,B,...]
 * [--set KEY=VALUE]... [SCENE...] (default the 16 pitch-64 fill-0.8 corner
 * scenes, seeds 0; SEM_SCENE_CACHE shares the renders).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/detect_base_fit.h"
#include "analysis/detect_methods.h"
#include "analysis/foot_pool.h"
#include "analysis/gap_wide.h"
#include "analysis/halftone.h"
#include "analysis/preprocess.h"
#include "bench_support.h"
#include "sem_cache.h"
#include "sem_opts_keys.h"
#include "sem_scene.h"
#include "sem_score.h"

#define MAXSEEDS 16
#define MAXSCENES 64
enum { Q_L, Q_W, Q_WT, Q_WF, Q_RULE, Q_RW, NQ };
static const char *const QNAME[NQ] = {"L", "W", "Wt", "Wf", "rule", "rW"};

typedef struct acc {
	double d, s;
	int n, s_ok;
} acc;

/* The image the rule reads the level on: *meas (the caller frees it) and
 * the returned image (meas itself, or its low-pass, also the caller's). */
static int raw_image;
/* --fix N: the rounds of Wf */
static int fix_rounds;
/* --witness: only the rule's detection and, at its own centres and radii,
 * the candidate witnesses of the flat tall top (h53c) */
static int witness_only;

static fs_image *level_image(sem_scene *sc, const sem_opts *o, fs_image **meas)
{
	fs_image *fimg = sc->img->bits ? fs_image_to_float(sc->img) : NULL;
	char err[256];
	if (raw_image) {
		/* --raw: the rendered pixels themselves */
		*meas = fimg ? fimg : fs_image_region_float(sc->img, 0, 0, sc->img->width, sc->img->height);
		return *meas;
	}
	double msig = sc->tr.pitch >= 40 ? 1.0 : 0.5;
	*meas = NULL;
	int rc = fs_detect_measure_image(fimg ? fimg : sc->img, &sc->p, msig, meas, err, sizeof err);
	fs_image_free(fimg);
	if (rc)
		return NULL;
	if (!(o->halftone > 0))
		return *meas;
	return fs_gaussian_blurred(*meas, FS_HALFTONE_LOWPASS * o->halftone, err, sizeof err);
}

/* --edge: on the scene's image (lv), the mean profile along the counted
 * true neighbours' centre lines about each TRUE foot (x = t - R, px, the
 * dome inside at x < 0), over every pair's two feet; then where it ends:
 * the floor (mean over the gap's middle third), the wall's top (the
 * profile's highest point within 0.25 R inside), the half-level crossing
 * between the two, the steepest descent and the point where the signal
 * comes within 5 % of the wall's height of the floor. */
static void edge_run(const fs_image *lv, const sem_truth *tr, int k, unsigned seed)
{
	enum { NP = 81 };
	double pr[NP] = {0}, fl = 0, R = 0;
	int np = 0, nf = 0;
	for (size_t q = 0; q < tr->n_pairs; q++) {
		int i = tr->pi[q], j = tr->pj[q];
		if (!sem_counted(tr, tr->x[i], tr->y[i]) || !sem_counted(tr, tr->x[j], tr->y[j]))
			continue;
		double dx = tr->x[j] - tr->x[i], dy = tr->y[j] - tr->y[i], d = hypot(dx, dy);
		double ux = dx / d, uy = dy / d;
		for (int side = 0; side < 2; side++) {
			int a = side ? j : i;
			double sx = side ? -ux : ux, sy = side ? -uy : uy, Ra = 0.5 * tr->d[a];
			for (int p = 0; p < NP; p++) {
				double t = Ra + (p - NP / 2) * 0.25;
				pr[p] += fs_image_sample(lv, tr->x[a] + sx * t, tr->y[a] + sy * t);
			}
			R += Ra;
			np++;
		}
		double g0 = 0.5 * tr->d[i], g1 = d - 0.5 * tr->d[j];
		for (int p = 0; p <= 8; p++) {
			double t = g0 + (g1 - g0) * (1.0 / 3 + p / 24.0);
			fl += fs_image_sample(lv, tr->x[i] + ux * t, tr->y[i] + uy * t);
			nf++;
		}
	}
	if (!np || !nf)
		return;
	for (int p = 0; p < NP; p++)
		pr[p] /= np;
	fl /= nf;
	R /= np;
	int top = NP / 2;
	for (int p = NP / 2; p >= 0 && (NP / 2 - p) * 0.25 <= 0.25 * R; p--)
		if (pr[p] > pr[top])
			top = p;
	double half = 0.5 * (pr[top] + fl), h5 = fl + 0.05 * (pr[top] - fl), xh = NAN, x5 = NAN, xs = NAN, gmin = 0;
	for (int p = top; p + 1 < NP; p++) {
		if (isnan(xh) && pr[p] >= half && pr[p + 1] < half)
			xh = (p - NP / 2) * 0.25 + 0.25 * (pr[p] - half) / (pr[p] - pr[p + 1]);
		if (isnan(x5) && pr[p] >= h5 && pr[p + 1] < h5)
			x5 = (p - NP / 2) * 0.25 + 0.25 * (pr[p] - h5) / (pr[p] - pr[p + 1]);
		double g = pr[p + 1] - pr[p];
		if (g < gmin) {
			gmin = g;
			xs = (p - NP / 2 + 0.5) * 0.25;
		}
	}
	printf("EDGE %2d +%-5u R %.2f floor %.4f top %.4f at %+.2f | half %+.3f steepest %+.3f floor+5%% %+.3f px\n", k,
	       seed, R, fl, pr[top], (top - NP / 2) * 0.25, xh, xs, x5);
	printf("  PROF x=-10..+10 px by 0.25:");
	for (int p = 0; p < NP; p++)
		printf(" %.4f", pr[p]);
	printf("\n");
}

static void acc_add(acc *a, double d, double s)
{
	if (!isfinite(s))
		return;
	a->d += d;
	a->s += s;
	a->n++;
	a->s_ok += fabs(s) < 3;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* --witness (h53c): at the rule's own centres (rx, ry) and radii (rr, m
 * domes, pitch px) on the level image lv, what might tell the flat tall
 * top (where the wide-valley reader is right) from the other profiles:
 * the wide-valley fit's rms over its step, mean and median over the
 * valleys, and the share of valleys under 0.015; the pooled radial
 * profile in the domes' own radii (foot_pool.h): its centre and edge
 * contrasts, its fall, the contrast at 0.5 and 0.7 R, and the profile
 * itself (contrast by 0.05 R bins). One WIT line per scene-seed. */
static void witness_run(const fs_image *lv, const double *rx, const double *ry, const double *rr, size_t m,
			double pitch, int k, unsigned seed, double rule_d, const sem_truth *tr,
			const fs_tubercle_list *tl, double halftone)
{
	/* the library's reading (fs_gap_wide_level_read): its witness and
	 * the rule's D and S scaled by its two scales */
	fs_gap_wide_level gl;
	double d1 = NAN, s1 = NAN, d2 = NAN, s2 = NAN;
	if (!fs_gap_wide_level_read(lv, rx, ry, rr, m, pitch, &gl)) {
		if (gl.scale > 0)
			sem_score_scaled_ds(tr, tl, halftone, gl.scale, &d1, &s1);
		if (gl.scale_med > 0)
			sem_score_scaled_ds(tr, tl, halftone, gl.scale_med, &d2, &s2);
		printf("LVL %2d +%-5u witness %.4f valleys %zu fires %d | sum-scale D %+6.2f S %+6.2f | median-scale D %+6.2f S %+6.2f\n",
		       k, seed, gl.witness, gl.valleys, gl.valleys >= FS_GAP_WIDE_MIN_VALLEYS && gl.witness < FS_GAP_WIDE_FLAT,
		       d1, s1, d2, s2);
	}
	double *q = malloc((m * 6 + 1) * sizeof *q);
	int qn = 0, q15 = 0;
	double qs = 0;
	for (size_t i = 0; q && i < m; i++)
		for (size_t j = i + 1; j < m; j++) {
			fs_gap_wide_valley v;
			if (!isfinite(rr[i]) || !isfinite(rr[j]) || hypot(rx[j] - rx[i], ry[j] - ry[i]) > 1.25 * pitch ||
			    fs_gap_wide_read(lv, rx[i], ry[i], rx[j], ry[j], rr[i], rr[j], &v))
				continue;
			double c = 0.5 * (v.coef[0] + v.coef[4]) - v.coef[2];
			if (c > 0 && qn < (int)(m * 6)) {
				q[qn++] = v.rms / c;
				qs += v.rms / c;
				q15 += v.rms / c < 0.015;
			}
		}
	double med = NAN;
	if (qn) {
		qsort(q, qn, sizeof *q, cmp_d);
		med = qn % 2 ? q[qn / 2] : 0.5 * (q[qn / 2 - 1] + q[qn / 2]);
	}
	free(q);
	fs_foot_pool fp;
	char err[128];
	int pr = fs_foot_pool_read_own(lv, rx, ry, rr, m, pitch, &fp, err, sizeof err);
	double g = INFINITY, pk = -INFINITY;
	for (int b = 0; !pr && b < FS_FOOT_POOL_BINS; b++) {
		double u = (b + 0.5) * FS_FOOT_POOL_STEP;
		if (!isfinite(fp.prof[b]))
			continue;
		if (u > 0.9 && fp.prof[b] < g)
			g = fp.prof[b];
		if (u < 1.1 && fp.prof[b] > pk)
			pk = fp.prof[b];
	}
	double c5 = NAN, c7 = NAN;
	if (!pr && pk > g) {
		c5 = (0.5 * (fp.prof[9] + fp.prof[10]) - g) / (pk - g);
		c7 = (0.5 * (fp.prof[13] + fp.prof[14]) - g) / (pk - g);
	}
	printf("WIT %2d +%-5u rule D %+6.2f | rms/step mean %.4f med %.4f <0.015 %.2f n %d | pool centre %.3f edge %.3f "
	       "fall %.3f c0.5 %.3f c0.7 %.3f\n",
	       k, seed, rule_d, qn ? qs / qn : NAN, med, qn ? (double)q15 / qn : NAN, qn, pr ? NAN : fp.centre,
	       pr ? NAN : fp.edge, pr ? NAN : fp.fall, c5, c7);
	printf("  POOL");
	for (int b = 0; !pr && b < FS_FOOT_POOL_BINS && pk > g; b++)
		printf(" %.3f", (fp.prof[b] - g) / (pk - g));
	printf("\n");
}

static int run_one(int k, unsigned seed, const sem_opts_args *set, int rule, int edge, acc *a, double *sw, int *nsw,
		   double *shape)
{
	sem_opts o;
	sem_corner_args(k, seed, set, &o);
	sem_scene sc;
	fs_detect_result res;
	memset(&res, 0, sizeof res);
	if (rule ? sem_scene_detect(&sc, &o, fs_detect_domes, &res) : sem_scene_render(&sc, &o)) {
		printf("%d +%u: %s\n", k, seed, sc.err);
		return -1;
	}
	const sem_truth *tr = &sc.tr;
	fs_image *meas = NULL, *lv = level_image(&sc, &o, &meas);
	if (!lv) {
		printf("%d +%u: no level image\n", k, seed);
		fs_image_free(meas);
		fs_detect_result_free(&res);
		sem_scene_close(&sc);
		return -1;
	}
	if (edge) {
		edge_run(lv, tr, k, seed);
	} else if (witness_only) {
		size_t m = res.tubercles.n;
		double *rx = malloc((3 * m + 1) * sizeof *rx), *ry = rx + m, *rr = ry + m, d = NAN, s = NAN;
		for (size_t i = 0; rx && i < m; i++) {
			const fs_tubercle *t = &res.tubercles.items[i];
			rx[i] = t->centroid_x;
			ry[i] = t->centroid_y;
			rr[i] = t->radius_px > 0 ? t->radius_px : NAN;
		}
		sem_score_scaled_ds(tr, &res.tubercles, o.halftone, 1.0, &d, &s);
		if (rx)
			witness_run(lv, rx, ry, rr, m, res.pitch_px, k, seed, d, tr, &res.tubercles, o.halftone);
		free(rx);
	} else {
		size_t n = tr->n, m = res.tubercles.n;
		double *L = malloc((6 * n + 4 * m + 2) * sizeof *L), *W = L + n, *Wt = L + 2 * n, *Rt = L + 3 * n;
		double *Wf = L + 4 * n, *Wp = L + 5 * n;
		double *rx = L + 6 * n, *ry = rx + m, *rr = ry + m, *rw = rr + m;
		double mr = 0.6 * tr->pitch, d[NQ], s[NQ];
		for (int q = 0; q < NQ; q++)
			d[q] = s[q] = NAN;
		for (size_t i = 0; i < n; i++) {
			int e = 0;
			L[i] = o.halftone > 0 ? fs_det_base_level_lowpassed(lv, tr->x[i], tr->y[i], mr, 1, &e)
					      : fs_det_base_level_one(lv, tr->x[i], tr->y[i], mr, 1, &e);
			if (e)
				L[i] = NAN;
			Rt[i] = 0.5 * tr->d[i];
		}
		double sg = NAN;
		fs_gap_wide_radii(lv, tr->x, tr->y, L, n, tr->pitch, W, NULL, NULL);
		fs_gap_wide_radii(lv, tr->x, tr->y, Rt, n, tr->pitch, Wt, NULL, &sg);
		if (isfinite(sg)) {
			*sw += sg;
			(*nsw)++;
		}
		sem_score_radii_ds(tr, tr->x, tr->y, L, n, o.halftone, &d[Q_L], &s[Q_L]);
		sem_score_radii_ds(tr, tr->x, tr->y, W, n, o.halftone, &d[Q_W], &s[Q_W]);
		sem_score_radii_ds(tr, tr->x, tr->y, Wt, n, o.halftone, &d[Q_WT], &s[Q_WT]);
		/* the reading's fixed point: each round started from the last
		 * (a dome none of whose valleys read keeps its start) */
		memcpy(Wp, W, n * sizeof *Wp);
		for (int it = 0; it < fix_rounds; it++) {
			fs_gap_wide_radii(lv, tr->x, tr->y, Wp, n, tr->pitch, Wf, NULL, NULL);
			for (size_t i = 0; i < n; i++)
				Wp[i] = isfinite(Wf[i]) ? Wf[i] : Wp[i];
		}
		sem_score_radii_ds(tr, tr->x, tr->y, Wp, n, o.halftone, &d[Q_WF], &s[Q_WF]);
		/* the walls' shape on the true centres' valleys: the step's
		 * contrast over the floor and the wall's rise across its window
		 * towards the foot, relative to that contrast */
		for (size_t q = 0; q < tr->n_pairs; q++) {
			int i = tr->pi[q], j = tr->pj[q];
			fs_gap_wide_valley v;
			if (!sem_counted(tr, tr->x[i], tr->y[i]) ||
			    fs_gap_wide_read(lv, tr->x[i], tr->y[i], tr->x[j], tr->y[j], Rt[i], Rt[j], &v))
				continue;
			double ca = v.coef[0] - v.coef[2], cb = v.coef[4] - v.coef[2];
			shape[0] += ca + cb;
			shape[1] += v.coef[1] * v.wa / ca - v.coef[5] * v.wb / cb;
			shape[2] += 2;
			shape[3] += v.rms / (0.5 * (ca + cb));
			shape[4] += 1;
		}
		if (rule && m) {
			for (size_t i = 0; i < m; i++) {
				const fs_tubercle *t = &res.tubercles.items[i];
				rx[i] = t->centroid_x;
				ry[i] = t->centroid_y;
				rr[i] = t->radius_px > 0 ? t->radius_px : NAN;
			}
			fs_gap_wide_radii(lv, rx, ry, rr, m, res.pitch_px, rw, NULL, NULL);
			/* the fit's rms over its step at the rule's own centres and
			 * radii, over the valleys between neighbours (a mean here) */
			double qs = 0;
			int qn = 0;
			for (size_t i = 0; i < m; i++)
				for (size_t j = i + 1; j < m; j++) {
					fs_gap_wide_valley v;
					if (!isfinite(rr[i]) || !isfinite(rr[j]) ||
					    hypot(rx[j] - rx[i], ry[j] - ry[i]) > 1.25 * res.pitch_px ||
					    fs_gap_wide_read(lv, rx[i], ry[i], rx[j], ry[j], rr[i], rr[j], &v))
						continue;
					double c = 0.5 * (v.coef[0] + v.coef[4]) - v.coef[2];
					if (c > 0) {
						qs += v.rms / c;
						qn++;
					}
				}
			printf("  rule's centres: rms/step %.4f over %d valleys\n", qn ? qs / qn : NAN, qn);
			sem_score_scaled_ds(tr, &res.tubercles, o.halftone, 1.0, &d[Q_RULE], &s[Q_RULE]);
			double sr = 0, sg = 0;
			for (size_t i = 0; i < m; i++)
				if (isfinite(rr[i]) && isfinite(rw[i])) {
					sr += rr[i];
					sg += rw[i];
				}
			if (sr > 0)
				sem_score_scaled_ds(tr, &res.tubercles, o.halftone, sg / sr, &d[Q_RW], &s[Q_RW]);
		}
		printf("%2d +%-5u", k, seed);
		for (int q = 0; q < NQ; q++)
			if (q < Q_RULE || rule) {
				printf(" | %s %+6.2f %+6.2f", QNAME[q], d[q], s[q]);
				acc_add(&a[q], d[q], s[q]);
			}
		printf("\n");
		free(L);
	}
	fflush(stdout);
	if (lv != meas)
		fs_image_free(lv);
	fs_image_free(meas);
	fs_detect_result_free(&res);
	sem_scene_close(&sc);
	return 0;
}

int main(int argc, char **argv)
{
	int scenes[MAXSCENES], ns = 0, rule = 0, edge = 0, nseed = 1;
	unsigned seeds[MAXSEEDS] = {0};
	sem_opts_args set = {0};
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rule"))
			rule = 1;
		else if (!strcmp(argv[i], "--witness"))
			rule = witness_only = 1;
		else if (!strcmp(argv[i], "--edge"))
			edge = 1;
		else if (!strcmp(argv[i], "--fix") && i + 1 < argc)
			fix_rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--raw"))
			raw_image = 1;
		else if (!strcmp(argv[i], "--wall") && i + 1 < argc)
			fs_gap_wide_set_wall(atof(argv[++i]));
		else if (!strcmp(argv[i], "--seeds") && i + 1 < argc) {
			if ((nseed = bench_parse_seeds(argv[++i], seeds, MAXSEEDS)) < 1) {
				fprintf(stderr, "%s: --seeds A,B,... (at most %d)\n", argv[0], MAXSEEDS);
				return 2;
			}
		} else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
			if (sem_opts_args_say(&set, argv[0], "--set", argv[i + 1]))
				return 2;
			i++;
		} else if (argv[i][0] >= '0' && argv[i][0] <= '9' && ns < MAXSCENES)
			scenes[ns++] = atoi(argv[i]);
		else {
			fprintf(stderr,
				"usage: %s [--rule] [--witness] [--edge] [--raw] [--fix N] [--wall F] [--seeds A,B,...] [--set KEY=VALUE]... [SCENE...]\n",
				argv[0]);
			return 2;
		}
	}
	if (!ns)
		for (int k = 33; k < 64; k += 2)
			scenes[ns++] = k;
	int tot[NQ] = {0};
	for (int a = 0; a < ns; a++) {
		acc ac[NQ];
		double sw = 0, shape[5] = {0};
		int nsw = 0;
		memset(ac, 0, sizeof ac);
		for (int b = 0; b < nseed; b++)
			run_one(scenes[a], seeds[b], &set, rule, edge, ac, &sw, &nsw, shape);
		if (edge || witness_only)
			continue;
		printf("SCENE %2d: sW %.3f step %.4f rise %+.3f rms/step %.4f", scenes[a], nsw ? sw / nsw : NAN,
		       shape[2] > 0 ? shape[0] / shape[2] : NAN, shape[2] > 0 ? shape[1] / shape[2] : NAN,
		       shape[4] > 0 ? shape[3] / shape[4] : NAN);
		for (int q = 0; q < NQ; q++)
			if (ac[q].n) {
				printf(" | %s D %+6.2f S %+6.2f (%d/%d)", QNAME[q], ac[q].d / ac[q].n, ac[q].s / ac[q].n,
				       ac[q].s_ok, ac[q].n);
				tot[q] += ac[q].s_ok;
			}
		printf("\n");
		fflush(stdout);
	}
	if (!edge) {
		printf("S within 3 %%, scene-seeds:");
		for (int q = 0; q < NQ; q++)
			if (q < Q_RULE || rule)
				printf(" %s %d", QNAME[q], tot[q]);
		printf("\n");
	}
	return 0;
}
