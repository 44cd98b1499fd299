/*
 * bench_gap_read - the fill-0.8 corner scenes' S read from the valleys
 * between neighbouring domes (analysis/gap_read.h, h47g). Asserts nothing.
 *
 * Why: at fill 0.8 the space is a quarter of D, so the mean S within 3 %
 * needs the mean D within about 0.75 %; the level's radial reading misses
 * that on the pitch-16 domes under the 5-px screen and on the pitch-64
 * flat tall tops (h46k: their S misses are the sizes'). The valley between
 * two domes shows both feet, each on the side the other does not cover.
 * Which reading of it carries S, from the TRUE centres, scene by scene.
 *
 * Per scene and seed set, on detection's measurement image (msig 0.5 px,
 * 1 px from a pitch of 40 px, as scene_sets.c), every dome at its TRUE
 * centre given a radius by each reading, scored as test_sem_accuracy
 * scores a detection (sem_score_detection: mean D and S errors %):
 *   L     the level's own reader (fs_det_base_level_one, reach 0.6 pitch:
 *         the rule's first reading from these centres);
 *   G0    the valley's steepest steps, no curvature correction;
 *   Gv    the same with the blurred circle's sigma^2 / 2R taken back at
 *         sigma from the L readings' own step variance (v1, h46b);
 *   GF    the valley model fitted (its own blur, corrected the same way);
 *   GL    Gv's feet, only those facing the detector or across its axis
 *         (the simulator's azimuth: an oracle of the direction alone);
 *   GLF   GF's the same;
 * and with --rule the dome rule's detection: its own D and S, and its
 * radii all scaled by the mean Gv, GF, GL and GLF radius read at the
 * rule's own centres over its mean radius (sem_score_scaled; rGv, rGF,
 * rGL, rGLF): what the level taken from the valleys would give.
 * A line per scene-seed; per scene the mean S error and the count of
 * seed sets within 3 % of each; a count line at the end.
 *
 * --dirs 1: per scene-seed each foot's error from the TRUE centres (steps
 * without the correction, and the fit), binned by its outward direction
 * against the detector's azimuth (0 = facing it); --dirs 2 also the mean
 * valley profile per bin (dirs_print).
 *
 * --sides (h48c): the side-aware readings at the rule's OWN centres. The
 * detector's azimuth pooled for the image is the formation's (fitted at
 * the rule's centres, fs_det_offset_fit, as the rule's gap option sees
 * it); each foot's step (sigma^2 / 2R taken back, as Gv) is classed by
 * the cosine of its outward direction to that azimuth and its error is
 * taken against the TRUE circle along the same line (so the centres'
 * own errors do not enter it): printed per 45-degree bin (SIDE lines,
 * 0 = facing the detector), and per scene-seed the S of the rule's
 * centres with every dome's radius its feet's mean (fallback: the rule's
 * radius) over: sAll every foot (the gap option's mode 2), sAx the feet
 * across the detector (|cos| <= 0.5), sNoFar the lit and across ones
 * (cos >= -0.5), sTab every foot less the --table correction of its bin
 * (8 numbers, px, 0 45 ... 315 degrees; default 0). The bins summed
 * over every scene-seed at the end (SIDES lines) are the table a
 * calibration on training seeds hands to a run on other seeds.
 *
 * Usage: bench_gap_read [--rule] [--dirs 1|2] [--sides] [--table b0,..,b7] [--seeds A,B,...]
 * [--set KEY=VALUE]... [SCENE...] (default the 21 pitch-16 and pitch-64
 * fill-0.8 scenes h47g looked at; seeds default 0; SEM_SCENE_CACHE shares
 * the renders).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/detect_base_fit.h"
#include "analysis/detect_methods.h"
#include "analysis/detect_offset.h"
#include "analysis/gap_read.h"
#include "bench_support.h"
#include "nearest_point.h"
#include "sem_cache.h"
#include "sem_opts_keys.h"
#include "sem_scene.h"
#include "sem_score.h"

#define MAXSEEDS 16
#define MAXSCENES 64
enum { R_L, R_G0, R_GV, R_GF, R_GL, R_GLF, R_RULE, R_RGV, R_RGF, R_RGL, R_RGLF, NREAD };
static const char *const RNAME[NREAD] = {"L", "G0", "Gv", "GF", "GL", "GLF", "rule", "rGv", "rGF", "rGL", "rGLF"};

/* --dirs: every counted true pair's two feet read by method, each foot's
 * error (px, read minus true radius) binned by its outward direction's
 * angle to the detector's azimuth (8 bins of 45 degrees, 0 = the foot
 * facing the detector); and the mean profile across the valley about the
 * true gap's middle in the same bins (--dirs 2). */
static void dirs_print(const fs_image *meas, const sem_truth *tr, double az, int method, double sigma, int prof)
{
	double se[8] = {0}, se2[8] = {0};
	int ne[8] = {0};
	enum { NP = 41 };
	double pr[8][NP], npr[8];
	memset(pr, 0, sizeof pr);
	memset(npr, 0, sizeof npr);
	for (size_t q = 0; q < tr->n_pairs; q++) {
		int i = tr->pi[q], j = tr->pj[q];
		if (!sem_counted(tr, tr->x[i], tr->y[i]) || !sem_counted(tr, tr->x[j], tr->y[j]))
			continue;
		double ra, rb;
		if (fs_gap_feet(meas, tr->x[i], tr->y[i], tr->x[j], tr->y[j], method, sigma, &ra, &rb, NULL))
			continue;
		double dx = tr->x[j] - tr->x[i], dy = tr->y[j] - tr->y[i], d = hypot(dx, dy);
		double ang = atan2(dy, dx) - az;
		for (int side = 0; side < 2; side++) {
			double a = side ? ang + M_PI : ang;
			a = fmod(a + 8 * M_PI + M_PI / 8, 2 * M_PI);
			int b = (int)(a / (M_PI / 4)) & 7;
			double e = side ? rb - 0.5 * tr->d[j] : ra - 0.5 * tr->d[i];
			se[b] += e;
			se2[b] += e * e;
			ne[b]++;
		}
		if (prof) {
			/* about the true gap's middle, from A's side (bin of A's foot) */
			double a = fmod(ang + 8 * M_PI + M_PI / 8, 2 * M_PI);
			int b = (int)(a / (M_PI / 4)) & 7;
			double mid = 0.5 * (0.5 * tr->d[i] + d - 0.5 * tr->d[j]);
			for (int k = 0; k < NP; k++) {
				double t = mid + (k - NP / 2) * 0.0125 * d;
				pr[b][k] += fs_image_sample(meas, tr->x[i] + dx / d * t, tr->y[i] + dy / d * t);
			}
			npr[b]++;
		}
	}
	printf("  DIRS method %d:", method);
	for (int b = 0; b < 8; b++)
		printf(" %3d:%+.3f", b * 45, ne[b] ? se[b] / ne[b] : NAN);
	printf("\n");
	(void)se2;
	if (prof)
		for (int b = 0; b < 8; b++) {
			printf("  PROF %3d (A's foot bin; x in 1/80 d from the true gap middle):", b * 45);
			for (int k = 0; k < NP; k++)
				printf(" %.3f", npr[b] ? pr[b][k] / npr[b] : NAN);
			printf("\n");
		}
}

/* Every variant's radii from one reading of each valley (fs_gap_radii's
 * neighbours and sums, each method read once): g0 the steps, gv with
 * sigma^2 / 2R at sig (per foot, as fs_gap_feet does it on the mean of
 * its lines), gf the fit, gl and glf gv's and gf's lit feet alone. */
static void gap_variants(const fs_image *meas, const double *x, const double *y, size_t n, double pitch, double sig,
			 double az, double *g0, double *gv, double *gf, double *gl, double *glf)
{
	double *acc = calloc(10 * (n ? n : 1), sizeof *acc);
	double *out[5] = {g0, gv, gf, gl, glf};
	double reach = 1.25 * pitch;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			if (fabs(x[j] - x[i]) > reach || fabs(y[j] - y[i]) > reach ||
			    hypot(x[j] - x[i], y[j] - y[i]) > reach)
				continue;
			double sa, sb, fa, fb;
			int st = fs_gap_feet(meas, x[i], y[i], x[j], y[j], FS_GAP_STEPS, 0, &sa, &sb, NULL);
			int ft = fs_gap_feet(meas, x[i], y[i], x[j], y[j], FS_GAP_FIT, 0, &fa, &fb, NULL);
			double c = ((x[j] - x[i]) * cos(az) + (y[j] - y[i]) * sin(az)) / hypot(x[j] - x[i], y[j] - y[i]);
			for (int side = 0; side < 2; side++) {
				size_t k = side ? j : i;
				int lit = (side ? -c : c) >= FS_GAP_LIT_COS;
				double rs = side ? sb : sa, rf = side ? fb : fa;
				double v[5] = {rs, sig > 0 ? rs + sig * sig / (2 * rs) : rs, rf, NAN, NAN};
				v[3] = v[1];
				v[4] = rf;
				for (int q = 0; q < 5; q++) {
					if ((q < 2 || q == 3) && st)
						continue;
					if ((q == 2 || q == 4) && ft)
						continue;
					if (q >= 3 && !lit)
						continue;
					acc[10 * k + 2 * q] += v[q];
					acc[10 * k + 2 * q + 1] += 1;
				}
			}
		}
	for (size_t k = 0; k < n; k++)
		for (int q = 0; q < 5; q++)
			out[q][k] = acc[10 * k + 2 * q + 1] > 0 ? acc[10 * k + 2 * q] / acc[10 * k + 2 * q + 1] : NAN;
	free(acc);
}

enum { SV_RULE, SV_ALL, SV_AX, SV_NOFAR, SV_TAB, NSV };
static const char *const SVNAME[NSV] = {"rule", "sAll", "sAx", "sNoFar", "sTab"};
/* s_table holds either set of readings in arrays of NREAD */
_Static_assert((int)NSV <= (int)NREAD, "NSV fits NREAD");
/* --table: each bin's correction (px), read off a training run's SIDES */
static double side_table[8];
/* --sides: every foot's error (px) per bin over the run */
static double side_sum[8];
static int side_cnt[8];

static int side_bin(double ang)
{
	double a = fmod(ang + 8 * M_PI + M_PI / 8, 2 * M_PI);
	return (int)(a / (M_PI / 4)) & 7;
}

/* The foot at distance r from (x, y) along the unit (ux, uy), less the
 * TRUE circle's crossing of that line (the true dome nearest (x, y)
 * within 0.5 pitch, counted): the foot's own error, px; NAN without one. */
static double foot_error(const sem_truth *tr, double x, double y, double ux, double uy, double r)
{
	long t = nearest_point(tr->x, tr->y, NULL, tr->n, x, y, 0.5 * tr->pitch);
	if (t < 0 || !sem_counted(tr, tr->x[t], tr->y[t]))
		return NAN;
	double wx = tr->x[t] - x, wy = tr->y[t] - y, along = wx * ux + wy * uy;
	double perp2 = wx * wx + wy * wy - along * along, R = 0.5 * tr->d[t];
	if (!(R * R > perp2))
		return NAN;
	return r - (along + sqrt(R * R - perp2));
}

typedef struct acc {
	double s_sum, d_sum;
	int n, s_ok, d_ok;
} acc;

static void acc_add(acc *a, double d, double s)
{
	if (!isfinite(s))
		return;
	a->s_sum += s;
	a->d_sum += d;
	a->n++;
	a->s_ok += fabs(s) < 3;
	a->d_ok += fabs(d) < 3;
}

/* --sides on one detected scene-seed (see the top): its line, each
 * variant's errors into a[] (NSV). */
static void sides_run(const fs_image *meas, const sem_truth *tr, const fs_detect_result *res, double sig,
		      double sim_az, double halftone, struct acc *a)
{
	size_t m = res->tubercles.n, n = 0;
	if (!m)
		return;
	double *rx = malloc(7 * m * sizeof *rx), *ry = rx + m, *rw = rx + 2 * m, *xs = rx + 3 * m, *ys = rx + 4 * m,
	       *rs = rx + 5 * m, *rv = rx + 6 * m;
	double *sum = calloc(2 * NSV * m, sizeof *sum);
	if (!rx || !sum) {
		free(rx);
		free(sum);
		return;
	}
	for (size_t i = 0; i < m; i++) {
		const fs_tubercle *t = &res->tubercles.items[i];
		rx[i] = t->centroid_x;
		ry[i] = t->centroid_y;
		rw[i] = t->radius_px;
		if (isfinite(rw[i]) && rw[i] > 0) {
			xs[n] = rx[i];
			ys[n] = ry[i];
			rs[n++] = rw[i];
		}
	}
	/* the image's detector, pooled: the formation at the rule's centres */
	double az = NAN, side = NAN, pitch = n >= 8 ? fs_dome_fit_pitch(xs, ys, n) : 0;
	fs_det_offset off;
	memset(&off, 0, sizeof off);
	if (pitch >= 6 && !fs_det_offset_fit(meas, xs, ys, rs, n, pitch, NULL, &off) && off.fitted) {
		az = off.fit.azimuth;
		side = off.fit.side;
	}
	double d[NSV], s[NSV], be[8] = {0};
	int bn[8] = {0};
	for (int q = 0; q < NSV; q++)
		d[q] = s[q] = NAN;
	sem_score_scaled_ds(tr, &res->tubercles, halftone, 1.0, &d[SV_RULE], &s[SV_RULE]);
	double reach = 1.25 * res->pitch_px, ca = cos(az), sa = sin(az);
	for (size_t i = 0; isfinite(az) && i < m; i++)
		for (size_t j = i + 1; j < m; j++) {
			if (!isfinite(rw[i]) || !isfinite(rw[j]) || fabs(rx[j] - rx[i]) > reach ||
			    fabs(ry[j] - ry[i]) > reach || hypot(rx[j] - rx[i], ry[j] - ry[i]) > reach)
				continue;
			double ra, rb;
			if (fs_gap_feet(meas, rx[i], ry[i], rx[j], ry[j], FS_GAP_STEPS, sig, &ra, &rb, NULL))
				continue;
			double dd = hypot(rx[j] - rx[i], ry[j] - ry[i]);
			double ux = (rx[j] - rx[i]) / dd, uy = (ry[j] - ry[i]) / dd;
			for (int sd = 0; sd < 2; sd++) {
				size_t k = sd ? j : i;
				double vx = sd ? -ux : ux, vy = sd ? -uy : uy, r = sd ? rb : ra;
				double c = vx * ca + vy * sa;
				int b = side_bin(atan2(vy, vx) - az);
				double e = foot_error(tr, rx[k], ry[k], vx, vy, r);
				if (isfinite(e)) {
					be[b] += e;
					bn[b]++;
				}
				double *acc_k = sum + 2 * NSV * k;
				int use[NSV] = {0, 1, fabs(c) <= 0.5, c >= -0.5, 1};
				for (int q = SV_ALL; q < NSV; q++)
					if (use[q]) {
						acc_k[2 * q] += q == SV_TAB ? r - side_table[b] : r;
						acc_k[2 * q + 1] += 1;
					}
			}
		}
	for (int q = SV_ALL; q < NSV && isfinite(az); q++) {
		for (size_t k = 0; k < m; k++)
			rv[k] = sum[2 * NSV * k + 2 * q + 1] > 0 ? sum[2 * NSV * k + 2 * q] / sum[2 * NSV * k + 2 * q + 1]
								 : rw[k];
		sem_score_radii_ds(tr, rx, ry, rv, m, halftone, &d[q], &s[q]);
	}
	printf(" az %6.1f (sim %6.1f) side %+.3f |", az * 180 / M_PI, sim_az * 180 / M_PI, side);
	for (int q = 0; q < NSV; q++) {
		printf(" %s %+6.2f %+6.2f", SVNAME[q], d[q], s[q]);
		acc_add(&a[q], d[q], s[q]);
	}
	printf("\n  SIDE");
	for (int b = 0; b < 8; b++) {
		printf(" %3d:%+.3f(%d)", b * 45, bn[b] ? be[b] / bn[b] : NAN, bn[b]);
		side_sum[b] += be[b];
		side_cnt[b] += bn[b];
	}
	printf("\n");
	free(rx);
	free(sum);
}

/* One scene-seed: its line, its errors into a[]. */
static int run_one(int k, unsigned seed_add, const sem_opts_args *set, int rule, int dirs, int sides, acc *a)
{
	sem_opts o;
	sem_corner_args(k, seed_add, set, &o);
	sem_scene sc;
	fs_detect_result res;
	memset(&res, 0, sizeof res);
	if (rule || sides ? sem_scene_detect(&sc, &o, fs_detect_domes, &res) : sem_scene_render(&sc, &o)) {
		printf("%d +%u: %s\n", k, seed_add, sc.err);
		return -1;
	}
	const sem_truth *tr = &sc.tr;
	fs_image *fimg = sc.img->bits ? fs_image_to_float(sc.img) : NULL, *meas = NULL;
	double msig = tr->pitch >= 40 ? 1.0 : 0.5;
	char err[256];
	if (fs_detect_measure_image(fimg ? fimg : sc.img, &sc.p, msig, &meas, err, sizeof err)) {
		printf("%d +%u: measurement image: %s\n", k, seed_add, err);
		fs_image_free(fimg);
		fs_detect_result_free(&res);
		sem_scene_close(&sc);
		return -1;
	}
	size_t n = tr->n;
	double *r = malloc(6 * n * sizeof *r), *gv = r + n, *gf = r + 2 * n, *g0 = r + 3 * n, *gl = r + 4 * n,
	       *glf = r + 5 * n;
	double mr = 0.6 * tr->pitch, vs = 0;
	int nv = 0;
	for (size_t i = 0; i < n; i++) {
		int e;
		double v;
		r[i] = fs_det_base_level_blur(meas, tr->x[i], tr->y[i], mr, 1, &e, &v, NULL);
		if (e)
			r[i] = NAN;
		if (isfinite(v) && sem_counted(tr, tr->x[i], tr->y[i])) {
			vs += v;
			nv++;
		}
	}
	double sig = nv ? sqrt(vs / nv) : 0;
	if (sides) {
		printf("%2d +%-5u sig %.3f", k, seed_add, sig);
		sides_run(meas, tr, &res, sig, o.det_azimuth, o.halftone, a);
		fflush(stdout);
		free(r);
		fs_image_free(meas);
		fs_image_free(fimg);
		fs_detect_result_free(&res);
		sem_scene_close(&sc);
		return 0;
	}
	gap_variants(meas, tr->x, tr->y, n, tr->pitch, sig, o.det_azimuth, g0, gv, gf, gl, glf);
	double d[NREAD], s[NREAD];
	for (int q = 0; q < NREAD; q++)
		d[q] = s[q] = NAN;
	const double *rr[6] = {r, g0, gv, gf, gl, glf};
	for (int q = 0; q < 6; q++)
		sem_score_radii_ds(tr, tr->x, tr->y, rr[q], n, o.halftone, &d[q], &s[q]);
	if (rule) {
		size_t m = res.tubercles.n;
		double *rx = malloc(5 * (m ? m : 1) * sizeof *rx), *ry = rx + m, *rg = rx + 2 * m, *rf = rx + 3 * m,
		       *rw = rx + 4 * m;
		for (size_t i = 0; i < m; i++) {
			const fs_tubercle *t = &res.tubercles.items[i];
			rx[i] = t->centroid_x;
			ry[i] = t->centroid_y;
			rw[i] = t->radius_px;
		}
		double *r0 = malloc(3 * (m ? m : 1) * sizeof *r0), *rl = r0 + m, *rlf = r0 + 2 * m;
		gap_variants(meas, rx, ry, m, res.pitch_px, sig, o.det_azimuth, r0, rg, rf, rl, rlf);
		sem_score_scaled_ds(tr, &res.tubercles, o.halftone, 1.0, &d[R_RULE], &s[R_RULE]);
		/* the rule's radii scaled by each reading's mean over its own
		 * mean, over the domes both size */
		const double *gr[4] = {rg, rf, rl, rlf};
		for (int q = 0; q < 4; q++) {
			double sw = 0, sg = 0;
			for (size_t i = 0; i < m; i++)
				if (isfinite(rw[i]) && isfinite(gr[q][i])) {
					sw += rw[i];
					sg += gr[q][i];
				}
			if (sw > 0)
				sem_score_scaled_ds(tr, &res.tubercles, o.halftone, sg / sw, &d[R_RGV + q], &s[R_RGV + q]);
		}
		free(r0);
		free(rx);
	}
	if (dirs) {
		dirs_print(meas, tr, o.det_azimuth, FS_GAP_STEPS, 0, dirs > 1);
		dirs_print(meas, tr, o.det_azimuth, FS_GAP_FIT, 0, 0);
	}
	printf("%2d +%-5u sig %.3f", k, seed_add, sig);
	for (int q = 0; q < NREAD; q++)
		if (q < R_RULE || rule) {
			printf(" | %s %+6.2f %+6.2f", RNAME[q], d[q], s[q]);
			acc_add(&a[q], d[q], s[q]);
		}
	printf("\n");
	fflush(stdout);
	free(r);
	fs_image_free(meas);
	fs_image_free(fimg);
	fs_detect_result_free(&res);
	sem_scene_close(&sc);
	return 0;
}

/* Every scene over every seed set (run_one): per scene each reading's
 * mean S and its sets within 3 %, then the count over the run of the
 * nq readings named name (the plain run's, or --sides' variants). */
static void s_table(const int *scenes, int ns, const unsigned *seeds, int nseed, const sem_opts_args *set, int rule,
		    int dirs, int sides, const char *const *name, int nq)
{
	int tot[NREAD] = {0};
	for (int a = 0; a < ns; a++) {
		acc ac[NREAD];
		memset(ac, 0, sizeof ac);
		for (int b = 0; b < nseed; b++)
			run_one(scenes[a], seeds[b], set, rule, dirs, sides, ac);
		printf("SCENE %2d:", scenes[a]);
		for (int q = 0; q < nq; q++)
			if (ac[q].n) {
				printf(" %s S %+6.2f (%d/%d)", name[q], ac[q].s_sum / ac[q].n, ac[q].s_ok, ac[q].n);
				tot[q] += ac[q].s_ok;
			}
		printf("\n");
		fflush(stdout);
	}
	printf("S within 3 %%, scene-seeds:");
	for (int q = 0; q < nq; q++)
		printf(" %s %d", name[q], tot[q]);
}

/* --sides over every scene and seed: the table of its variants, then the
 * bins over the run. */
static int sides_main(const int *scenes, int ns, const unsigned *seeds, int nseed, const sem_opts_args *set)
{
	s_table(scenes, ns, seeds, nseed, set, 1, 0, 1, SVNAME, NSV);
	printf("\nSIDES");
	for (int b = 0; b < 8; b++)
		printf(" %3d:%+.3f(%d)", b * 45, side_cnt[b] ? side_sum[b] / side_cnt[b] : NAN, side_cnt[b]);
	printf("\nSIDES table %s", "");
	for (int b = 0; b < 8; b++)
		printf("%s%.3f", b ? "," : "", side_cnt[b] ? side_sum[b] / side_cnt[b] : 0.0);
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	static const int def[] = {1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 39, 47, 55, 59, 63};
	int scenes[MAXSCENES], ns = 0, rule = 0, dirs = 0, sides = 0, nseed = 1;
	unsigned seeds[MAXSEEDS] = {0};
	sem_opts_args set = {0};
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rule"))
			rule = 1;
		else if (!strcmp(argv[i], "--sides"))
			sides = 1;
		else if (!strcmp(argv[i], "--table") && i + 1 < argc) {
			if (bench_parse_list(argv[++i], side_table, 8) != 8) {
				fprintf(stderr, "%s: --table b0,..,b7 (eight numbers, px)\n", argv[0]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--dirs") && i + 1 < argc)
			dirs = atoi(argv[++i]);
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
			fprintf(stderr, "usage: %s [--rule] [--dirs 1|2] [--sides] [--table b0,..,b7] [--seeds A,B,...] [--set KEY=VALUE]... [SCENE...]\n", argv[0]);
			return 2;
		}
	}
	if (!ns)
		for (size_t i = 0; i < sizeof def / sizeof def[0]; i++)
			scenes[ns++] = def[i];
	if (sides)
		return sides_main(scenes, ns, seeds, nseed, &set);
	/* the rule's columns only with --rule (run_one adds them only then) */
	s_table(scenes, ns, seeds, nseed, &set, rule, dirs, 0, RNAME, rule ? NREAD : R_RULE);
	printf("\n");
	return 0;
}
