/*
 * bench_smooth_table.c - what the dome rule reads on the simulator's
 * smooth-footed (cos^2) scenes, scene by scene, and why (issue 13; h52f in
 * docs/paper-figures.md).
 *
 * Why: test_sem_smooth prints each scene's errors but not which of the
 * rule's branches sized it, where its centres sit, or at what point of
 * the cos^2 profile its diameter lies; those decide what a mend has to
 * change (the centres, the branch, or the level).
 *
 * Per scene: the truth (fill, pitch, h/R, detector azimuth, screen); the
 * rule's mean D and S errors (sem_score, as test_sem_smooth scores them);
 * the last sizing step's branch (fs_det_base_fit_set_trace: "level" = the
 * base rule's level, "own" = the formation's own sizes where most level
 * readings lie on no step, "nobase" = left unmeasured, "raw" = the fit
 * was not applied); the level readings on no step of those judged; the
 * rule's centres' common offset from the truth along the detector's
 * azimuth, in units of the true mean radius R, and their RMS scatter
 * about it (px); the same mean D error and branch from the TRUE centres
 * (fs_measure_centres_rule, the dome rule's Re-measure); and where the
 * read radius u = r / R lies on the cos^2 profile: the height there as a
 * fraction of the top, 0.5 (1 + cos pi u), and the slope as a fraction
 * of the steepest, sin pi u.
 *
 * --fade: instead, where the image's signal about the domes ends, over
 * the true support radius R: the pooled profile's 5 % fade (foot_pool.h,
 * what FS_TEST_FOOT_SUPPORT=1 scales by 1.187) about the TRUE centres,
 * about the rule's, and about the rule's moved by the common shift whose
 * fade is least (--no-least skips that search: it did not find the
 * support's centre, h52f); then the mean dome's contour (foot_contour.h,
 * FS_TEST_FOOT_SUPPORT=2's reading; --level L its level, default 0.05,
 * --smooth PX the patch's smoothing, default none; --major its long
 * semi-axis instead of its circle's radius) about the true and the
 * rule's centres, and the contour circle's centre offset from the rule's
 * centres along the detector's azimuth, in R (the rule's centres sit
 * towards the detector: a good reading is minus their offset).
 *
 * Usage: bench_smooth_table [--seed-add N] [--fade [--no-least] [--level L]
 * [--smooth PX] [--major]] [K ...] (default every scene of sem_smooth_scene;
 * SEM_SCENE_CACHE shares the renders). Asserts nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/detect_base_fit.h"
#include "analysis/dome_fit.h"
#include "analysis/foot_contour.h"
#include "analysis/foot_pool.h"
#include "analysis/measurement.h"
#include "scene_sets.h"
#include "sem_scene.h"
#include "sem_score.h"
#include "sem_sim.h"

static const char *branch(const fs_det_base_fit *b)
{
	if (b->unmeasured)
		return "nobase";
	if (!b->applied)
		return "raw";
	return b->scale == 1 ? "own" : "level";
}

/* The rule's centres' common offset along (cos az, sin az) over the
 * matched true domes, in px (*along), and their RMS scatter about the
 * common offset (px). -1 when the match fails or none match. */
static int centre_offset(const sem_truth *tr, const fs_tubercle_list *t, double az, double *along, double *rms)
{
	int *m = malloc((t->n ? t->n : 1) * sizeof *m);
	if (!m || sem_match_tubercles(tr, t, m, NULL)) {
		free(m);
		return -1;
	}
	double sx = 0, sy = 0, sxx = 0;
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (m[i] < 0 || !sem_counted(tr, tr->x[m[i]], tr->y[m[i]]))
			continue;
		double dx = t->items[i].centroid_x - tr->x[m[i]], dy = t->items[i].centroid_y - tr->y[m[i]];
		sx += dx;
		sy += dy;
		sxx += dx * dx + dy * dy;
		n++;
	}
	free(m);
	if (!n)
		return -1;
	sx /= (double)n;
	sy /= (double)n;
	*along = sx * cos(az) + sy * sin(az);
	*rms = sqrt(fmax(0, sxx / (double)n - sx * sx - sy * sy));
	return 0;
}

static double true_radius(const sem_truth *tr)
{
	double s = 0;
	size_t n = 0;
	for (size_t k = 0; k < tr->n; k++)
		if (sem_counted(tr, tr->x[k], tr->y[k])) {
			s += tr->d[k];
			n++;
		}
	return n ? s / (double)n / 2 : NAN;
}

/* --fade: the pooled profile's 5 % fade (foot_pool.h) in px about the
 * centres xs, ys (radii rs: only the pool's unit), and about the same
 * centres all moved by the common shift (of a 0.05 R grid within 0.5 R)
 * whose fade is the least; NAN where it cannot be read. Why the least:
 * a smooth foot's signal returns to the ground at the support on every
 * side whatever the detector does there, so the pooled profile reaches
 * least far about the support's centre and further by the shift about
 * any other (h52f). */
static double fade_px(const fs_image *img, const double *xs, const double *ys, const double *rs, size_t n,
		      double pitch)
{
	fs_foot_pool fp;
	char why[96];
	if (fs_foot_pool_read(img, xs, ys, rs, n, pitch, &fp, why, sizeof why))
		return NAN;
	return fs_foot_pool_fade(&fp, FS_FOOT_POOL_FADE) * fp.r_px;
}

static double fade_least(const fs_image *img, const double *xs, const double *ys, const double *rs, size_t n,
			 double pitch, double R, double *sx, double *sy)
{
	double *mx = malloc(n * sizeof *mx), *my = malloc(n * sizeof *my), best = NAN;
	*sx = *sy = 0;
	for (int a = -10; mx && my && a <= 10; a++)
		for (int b = -10; b <= 10; b++) {
			if (a * a + b * b > 100)
				continue;
			for (size_t i = 0; i < n; i++) {
				mx[i] = xs[i] + 0.05 * a * R;
				my[i] = ys[i] + 0.05 * b * R;
			}
			double f = fade_px(img, mx, my, rs, n, pitch);
			if (isfinite(f) && !(f >= best)) {
				best = f;
				*sx = 0.05 * a * R;
				*sy = 0.05 * b * R;
			}
		}
	free(mx);
	free(my);
	return best;
}

/* The list's centres and radii as arrays (measured ones only); their count. */
static size_t list_arrays(const fs_tubercle_list *t, double *xs, double *ys, double *rs)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (isfinite(t->items[i].radius_px) && t->items[i].radius_px > 0) {
			xs[n] = t->items[i].centroid_x;
			ys[n] = t->items[i].centroid_y;
			rs[n] = t->items[i].radius_px;
			n++;
		}
	return n;
}

/* The truth's counted domes as arrays; their count. */
static size_t truth_arrays(const sem_truth *tr, double *xs, double *ys, double *rs)
{
	size_t n = 0;
	for (size_t k = 0; k < tr->n; k++)
		if (sem_counted(tr, tr->x[k], tr->y[k])) {
			xs[n] = tr->x[k];
			ys[n] = tr->y[k];
			rs[n] = tr->d[k] / 2;
			n++;
		}
	return n;
}

/* --fade's contour columns: the support read as the mean dome's contour
 * (foot_contour.h, the option FS_TEST_FOOT_SUPPORT=2's reading) at
 * ct_level, the patch smoothed by ct_smooth px (--level, --smooth); its
 * radius (px) and its centre's offset from the centres' (*cx, *cy). */
static double ct_level = FS_FOOT_CONTOUR_LEVEL, ct_smooth = 0;
static int ct_major; /* --major: the contour's long semi-axis instead of its circle */

static double contour_radius(const fs_image *img, const double *xs, const double *ys, size_t n, double pitch,
			     double *cx, double *cy)
{
	fs_foot_contour fc;
	char err[128];
	*cx = *cy = 0;
	if (fs_foot_contour_read(img, xs, ys, n, pitch, ct_smooth, ct_level, &fc, err, sizeof err))
		return NAN;
	*cx = fc.cx;
	*cy = fc.cy;
	return ct_major ? fc.major : fc.radius;
}

static int fade_mode(int *ks, int nk, unsigned seed_add, int no_least)
{
	printf("smooth-footed scenes, seed add %u: the pooled profile's %.0f %% fade over the true support radius\n",
	       seed_add, 100 * FS_FOOT_POOL_FADE);
	printf("%-5s %-4s %-3s %-4s %-3s %-2s | %6s %6s %6s %6s %6s | %6s %6s %6s\n", "scene", "fill", "pit", "h/R",
	       "az", "ht", "true", "rule", "least", "sh/R", "toDet", "ctTrue", "ctRule", "ctOff");
	double sum[3] = {0}, sq[3] = {0}, ct_s[2] = {0}, ct_q[2] = {0};
	int cnt[3] = {0}, ct_n[2] = {0}, ct_in[2] = {0};
	for (int i = 0; i < nk; i++) {
		sem_opts o;
		scene_set_opts(SET_SMOOTH, ks[i], seed_add, &o);
		sem_scene s;
		if (sem_scene_open(&s, &o)) {
			printf("%-5d %s\n", ks[i], s.err);
			sem_scene_close(&s);
			continue;
		}
		double R = true_radius(&s.tr);
		fs_image *fimg = s.img->bits ? fs_image_to_float(s.img) : NULL;
		const fs_image *img = fimg ? fimg : s.img;
		fs_detect_result r;
		memset(&r, 0, sizeof r);
		char err[256];
		size_t cap = s.tr.n + 1;
		double *xs = malloc(cap * sizeof *xs), *ys = malloc(cap * sizeof *ys), *rs = malloc(cap * sizeof *rs);
		double v[3] = {NAN, NAN, NAN}, sx = 0, sy = 0, ct[2] = {NAN, NAN}, ccx = 0, ccy = 0;
		if (xs && ys && rs) {
			size_t n = truth_arrays(&s.tr, xs, ys, rs);
			v[0] = fade_px(img, xs, ys, rs, n, s.tr.pitch) / R;
			ct[0] = contour_radius(img, xs, ys, n, s.tr.pitch, &ccx, &ccy) / R;
			if (!fs_detect_domes(s.img, &s.p, 0, &r, err, sizeof err)) {
				double *x2 = realloc(xs, (r.tubercles.n + 1) * sizeof *xs);
				double *y2 = realloc(ys, (r.tubercles.n + 1) * sizeof *ys);
				double *r2 = realloc(rs, (r.tubercles.n + 1) * sizeof *rs);
				xs = x2 ? x2 : xs;
				ys = y2 ? y2 : ys;
				rs = r2 ? r2 : rs;
				if (x2 && y2 && r2) {
					n = list_arrays(&r.tubercles, xs, ys, rs);
					double pitch = fs_dome_fit_pitch(xs, ys, n);
					v[1] = fade_px(img, xs, ys, rs, n, pitch) / R;
					if (!no_least)
						v[2] = fade_least(img, xs, ys, rs, n, pitch, R, &sx, &sy) / R;
					ct[1] = contour_radius(img, xs, ys, n, pitch, &ccx, &ccy) / R;
				}
			}
		}
		fs_detect_result_free(&r);
		/* the shift found, along the detector (the rule's centres sit towards it) */
		double along = -(sx * cos(o.det_azimuth) + sy * sin(o.det_azimuth)) / R;
		double cal = (ccx * cos(o.det_azimuth) + ccy * sin(o.det_azimuth)) / R;
		printf("%-5d %-4.2f %-3.0f %-4.2f %-3.0f %-2.0f | %6.3f %6.3f %6.3f %6.3f %+6.3f | %6.3f %6.3f %+6.3f\n",
		       ks[i], o.fill, o.pitch, o.h_over_r, o.det_azimuth * 180 / M_PI, o.halftone, v[0], v[1], v[2],
		       hypot(sx, sy) / R, along, ct[0], ct[1], cal);
		for (int c = 0; c < 2; c++)
			if (isfinite(ct[c])) {
				ct_n[c]++;
				ct_s[c] += ct[c];
				ct_q[c] += ct[c] * ct[c];
				ct_in[c] += fabs(ct[c] - 1) < 0.03;
			}
		fflush(stdout);
		for (int c = 0; c < 3; c++)
			if (isfinite(v[c])) {
				sum[c] += v[c];
				sq[c] += v[c] * v[c];
				cnt[c]++;
			}
		free(xs);
		free(ys);
		free(rs);
		fs_image_free(fimg);
		sem_scene_close(&s);
	}
	const char *nm[3] = {"true centres", "rule's centres", "rule's centres, least-fade shift"};
	for (int c = 0; c < 3; c++)
		if (cnt[c] > 1)
			printf("fade / R at the %s: mean %.3f SD %.3f (%d scenes)\n", nm[c], sum[c] / cnt[c],
			       sqrt(fmax(0, (sq[c] - sum[c] * sum[c] / cnt[c]) / (cnt[c] - 1))), cnt[c]);
	const char *cn[2] = {"true centres", "rule's centres"};
	for (int c = 0; c < 2; c++)
		if (ct_n[c] > 1)
			printf("contour radius / R at the %s: mean %.3f SD %.3f, within 3 %%: %d of %d\n", cn[c],
			       ct_s[c] / ct_n[c], sqrt(fmax(0, (ct_q[c] - ct_s[c] * ct_s[c] / ct_n[c]) / (ct_n[c] - 1))),
			       ct_in[c], ct_n[c]);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned seed_add = 0;
	int ks[SEM_SMOOTH_SCENES], nk = 0, fade = 0, no_least = 0;
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--fade"))
			fade = 1;
		else if (!strcmp(argv[a], "--no-least"))
			no_least = 1;
		else if (!strcmp(argv[a], "--major"))
			ct_major = 1;
		else if (!strcmp(argv[a], "--level") && a + 1 < argc)
			ct_level = atof(argv[++a]);
		else if (!strcmp(argv[a], "--smooth") && a + 1 < argc)
			ct_smooth = atof(argv[++a]);
		else if (!strcmp(argv[a], "--seed-add") && a + 1 < argc)
			seed_add = (unsigned)atoi(argv[++a]);
		else if (nk < SEM_SMOOTH_SCENES)
			ks[nk++] = atoi(argv[a]);
	}
	if (!nk)
		for (int k = 0; k < SEM_SMOOTH_SCENES; k++)
			ks[nk++] = k;
	if (fade)
		return fade_mode(ks, nk, seed_add, no_least);
	printf("smooth-footed scenes, seed add %u\n", seed_add);
	printf("%-5s %-4s %-3s %-4s %-3s %-2s | %6s %6s %-6s %7s %6s %5s | %6s %-6s %7s | %5s %5s %5s\n", "scene",
	       "fill", "pit", "h/R", "az", "ht", "D%", "S%", "branch", "nostep", "off/R", "rms", "D%tc", "brtc",
	       "nostep", "u", "z/H", "s/s0");
	fs_det_base_fit tb;
	int n_own = 0, n_level = 0, n_nobase = 0, n_raw = 0;
	double s_off = 0, s_u = 0, s_utc = 0;
	int n_u = 0, n_utc = 0;
	for (int i = 0; i < nk; i++) {
		sem_opts o;
		scene_set_opts(SET_SMOOTH, ks[i], seed_add, &o);
		sem_scene s;
		if (sem_scene_open(&s, &o)) {
			printf("%-5d %s\n", ks[i], s.err);
			sem_scene_close(&s);
			continue;
		}
		double R = true_radius(&s.tr);
		fs_detect_result r;
		memset(&r, 0, sizeof r);
		memset(&tb, 0, sizeof tb);
		fs_det_base_fit_set_trace(&tb);
		char err[256];
		sem_score sc;
		int ok = !fs_detect_domes(s.img, &s.p, 0, &r, err, sizeof err) &&
			 !sem_score_detection(&s.tr, &r.tubercles, o.halftone, &sc);
		fs_det_base_fit rule = tb;
		double along = NAN, rms = NAN;
		if (ok)
			centre_offset(&s.tr, &r.tubercles, o.det_azimuth, &along, &rms);
		fs_detect_result_free(&r);

		fs_tubercle_list t = {0};
		memset(&tb, 0, sizeof tb);
		double dtc = NAN;
		if (!sem_inside_centres(&s.tr, &t) &&
		    !fs_measure_centres_rule(s.img, &s.p, 0, FS_RULE_DOME, &t, err, sizeof err)) {
			sem_match_errors e;
			if (!sem_matched_errors(&s.tr, &t, &e) && e.sum_truth > 0)
				dtc = 100 * (e.sum_d / e.sum_truth - 1);
		}
		fs_det_base_fit tcb = tb;
		fs_det_base_fit_set_trace(NULL);
		fs_tubercle_list_free(&t);
		if (!ok) {
			printf("%-5d %s\n", ks[i], err);
			sem_scene_close(&s);
			continue;
		}
		double u = 1 + sc.d_err / 100, z = 0.5 * (1 + cos(M_PI * u)), sl = sin(M_PI * u);
		printf("%-5d %-4.2f %-3.0f %-4.2f %-3.0f %-2.0f | %+6.1f %+6.1f %-6s %3zu/%-3zu %+6.3f %5.2f | %+6.1f %-6s "
		       "%3zu/%-3zu | %5.3f %5.3f %5.3f\n",
		       ks[i], o.fill, o.pitch, o.h_over_r, o.det_azimuth * 180 / M_PI, o.halftone, sc.d_err, sc.s_err,
		       branch(&rule), rule.nostep, rule.judged, along / R, rms, dtc, branch(&tcb), tcb.nostep,
		       tcb.judged, u, z, sl);
		fflush(stdout);
		const char *b = branch(&rule);
		n_own += !strcmp(b, "own");
		n_level += !strcmp(b, "level");
		n_nobase += !strcmp(b, "nobase");
		n_raw += !strcmp(b, "raw");
		s_off += along / R;
		s_u += u;
		n_u++;
		if (isfinite(dtc)) {
			s_utc += 1 + dtc / 100;
			n_utc++;
		}
		sem_scene_close(&s);
	}
	printf("branches (the rule's last sizing): level %d, own sizes %d, no base %d, fit not applied %d\n", n_level,
	       n_own, n_nobase, n_raw);
	if (n_u)
		printf("mean offset along the detector %.3f R; mean read radius u %.3f (rule), %.3f (true centres)\n",
		       s_off / n_u, s_u / n_u, n_utc ? s_utc / n_utc : NAN);
	return 0;
}
