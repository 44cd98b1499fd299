/*
 * bench_lobe_profile - the dome as the image draws it along the detector's
 * axis (issue 13, P1 Fig4; docs/paper-figures.md, h37i). Asserts nothing.
 *
 * Why: P1 Fig4 loses its published fill under the dome rule (0.47 for
 * 0.73) and helpers rebuilt the same instrument from prose three times
 * (h34g, h35h, h37a). This is that instrument, for the paper figures and
 * for simulated Fig4-like scenes with known truth:
 * - the detector's axis from the mean patch about the dome rule's centres
 *   (its darkest to its brightest cell within 0.45 pitch), or given;
 * - per dome, the profile along the axis (the image blurred by 1.5 px,
 *   0.6 px below pitch 40; +-0.067 pitch across), its ground the median of
 *   a ring at 0.51-0.61 pitch, the dark lobe's minimum within -0.43..+0.107
 *   pitch and the bright lobe's maximum within -0.107..+0.43 pitch, and the
 *   centre moved three times to the middle of the lobes' quarter levels
 *   (at most 0.3 pitch: the lobe pair's middle, h35h);
 * - from the middles: the mean profile along the axis (each side's
 *   crossings of 50 / 25 / 15 / 10 / 5 % of its lobe), and the base read
 *   along the axis, the side facing the detector (the bright lobe's fall)
 *   and the side facing away (the dark lobe's rise) each at its own level
 *   ("split" readings; h36i's split of the two sides);
 * - on a scene, the same readings against the truth, and the dome rule's
 *   detection and Re-measure at the true centres (mean D error of the
 *   matched counted domes).
 * Usage: bench_lobe_profile [FILTER] - the rows whose label contains
 * FILTER; "--axis DEG" first forces the axis on the figures;
 * "--scene H FILL LEAN CAP POWER [SEED]" runs only that Fig4-like scene
 * (h/R, fill, lean, bright cap and its exponent, seed: h37r's fits).
 * "--sets NAME [SEED_ADD [BEAM_BLUR [patch]]]" prints h38g's foot-gate
 * table instead: one row per scene of a simulated set (corner, smooth,
 * interior; fig4: the scenes below; blur: caps and cos^2 domes in Fig4's
 * frame under a beam blur of 1-5.5 px) or per paper figure (figs), with the
 * per-dome lobe shape statistics (shape_of), the candidate gate's score
 * and verdict, and the split base's error at 15 / 15 % and 50 / 50 %
 * beside the dome rule's (docs/paper-figures.md, h38g).
 * Cost: about 0.5 s of CPU per figure, 1-3 s per scene (rendered); a
 * whole set about 1-2 min with renders cached.
 * h37r: the bright-cap scenes (sem_opts.cap) are the first simulated
 * ones to draw Fig4's mean profile (RMS 0.065-0.069) with its centres on
 * the lit side of the middles and its loss (docs/paper-figures.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/lattice_estimate.h"
#include "analysis/measurement.h"
#include "analysis/preprocess.h"
#include "analysis/scale_region.h"
#include "base/sorting.h"
#include "fixture_image.h"
#include "image/image.h"
#include "nearest_point.h"
#include "paper_figs.h"
#include "sem_cache.h"
#include "sem_scene.h"
#include "sem_sim.h"

#define NT 141 /* the mean profile: t in [-0.7, 0.7] pitch, step 0.01 */
#define NLEV 5
static const double LEV[NLEV] = {0.5, 0.25, 0.15, 0.10, 0.05};

typedef struct view {
	const fs_image *b; /* the blurred image the profiles are read on */
	double pitch, ax, ay; /* the axis: unit vector towards the detector */
} view;


static int inside(const view *v, double x, double y)
{
	return x >= 0 && y >= 0 && x <= v->b->width - 1 && y <= v->b->height - 1;
}

/* The ground about (cx, cy): the median of a ring at 0.51-0.61 pitch. */
static double ground_at(const view *v, double cx, double cy)
{
	double s[5 * 72];
	int n = 0;
	for (int k = 0; k < 5; k++)
		for (int a = 0; a < 72; a++) {
			double r = (0.51 + 0.025 * k) * v->pitch, th = a * 2 * M_PI / 72;
			double x = cx + r * cos(th), y = cy + r * sin(th);
			if (inside(v, x, y))
				s[n++] = fs_image_sample(v->b, x, y);
		}
	if (n < 20)
		return NAN;
	qsort(s, n, sizeof *s, fs_cmp_double);
	return s[n / 2];
}

/* The profile along the axis about (cx, cy) minus g: np samples 0.5 px
 * apart centred on it, each the mean of +-0.067 pitch across. -1 when it
 * leaves the image. */
static int profile_at(const view *v, double cx, double cy, double g, double *pr, int np)
{
	double w = 0.067 * v->pitch, nx = -v->ay, ny = v->ax;
	for (int i = 0; i < np; i++) {
		double t = (i - np / 2) * 0.5, s = 0;
		int m = 0;
		for (double u = -w; u <= w + 1e-9; u += 1.0, m++) {
			double x = cx + t * v->ax + u * nx, y = cy + t * v->ay + u * ny;
			if (!inside(v, x, y))
				return -1;
			s += fs_image_sample(v->b, x, y);
		}
		pr[i] = s / m - g;
	}
	return 0;
}

typedef struct lobes {
	double dark, bright;           /* the extremes' values */
	double away[NLEV], lit[NLEV];  /* outward crossings of LEV x the lobe, px from the centre */
	double td, tb;                 /* the extremes' positions, px along the axis (+ towards the detector) */
	double ind, inb;               /* each lobe's inner crossing of half its extreme, px along the axis */
} lobes;

/* The two lobes of a profile (np samples 0.5 px apart); 0 when both show. */
static int lobes_of(const view *v, const double *pr, int np, lobes *L)
{
	int c = np / 2, id = c - (int)(0.43 * v->pitch / 0.5), ib = c - (int)(0.107 * v->pitch / 0.5);
	for (int i = id; i <= c + (int)(0.107 * v->pitch / 0.5); i++)
		if (pr[i] < pr[id])
			id = i;
	for (int i = ib; i <= c + (int)(0.43 * v->pitch / 0.5); i++)
		if (pr[i] > pr[ib])
			ib = i;
	L->dark = pr[id];
	L->bright = pr[ib];
	if (!(L->dark < 0 && L->bright > 0))
		return -1;
	L->td = (id - c) * 0.5;
	L->tb = (ib - c) * 0.5;
	L->ind = L->inb = NAN;
	for (int i = id; i + 1 < np; i++)
		if (pr[i + 1] >= 0.5 * L->dark) {
			L->ind = (i + (0.5 * L->dark - pr[i]) / (pr[i + 1] - pr[i]) - c) * 0.5;
			break;
		}
	for (int i = ib; i > 0; i--)
		if (pr[i - 1] <= 0.5 * L->bright) {
			L->inb = (i - (pr[i] - 0.5 * L->bright) / (pr[i] - pr[i - 1]) - c) * 0.5;
			break;
		}
	for (int k = 0; k < NLEV; k++) {
		double ld = LEV[k] * L->dark, lb = LEV[k] * L->bright;
		L->away[k] = L->lit[k] = NAN;
		for (int i = id; i > 0; i--)
			if (pr[i - 1] >= ld) {
				L->away[k] = -(i - (ld - pr[i]) / (pr[i - 1] - pr[i]) - c) * 0.5;
				break;
			}
		for (int i = ib; i + 1 < np; i++)
			if (pr[i + 1] <= lb) {
				L->lit[k] = (i + (pr[i] - lb) / (pr[i] - pr[i + 1]) - c) * 0.5;
				break;
			}
	}
	return 0;
}

/* The axis from the mean 3 x 3 box patch (49 x 49 cells over +-0.6 pitch)
 * about up to 256 centres inside the region: from its darkest to its
 * brightest cell within 0.45 pitch. Returns the patch's darkest value (the
 * lobes a dome must show a quarter of) through *pdark, *pbright. */
static void patch_axis(view *v, const double *cx, const double *cy, size_t n, const fs_scale_region *reg,
		       double *pdark, double *pbright)
{
	enum { G = 49 };
	static double patch[G * G];
	memset(patch, 0, sizeof patch);
	int used = 0;
	double P = v->pitch, cell = 1.2 * P / (G - 1);
	for (size_t i = 0; i < n && used < 256; i++) {
		double g = ground_at(v, cx[i], cy[i]);
		if (!isfinite(g) || !inside(v, cx[i] - 0.6 * P - 1, cy[i] - 0.6 * P - 1) ||
		    !inside(v, cx[i] + 0.6 * P + 1, cy[i] + 0.6 * P + 1) || !fs_scale_region_contains(reg, cx[i], cy[i]))
			continue;
		for (int a = 0; a < G; a++)
			for (int c = 0; c < G; c++) {
				double s = 0, x = cx[i] + (c - G / 2) * cell, y = cy[i] + (a - G / 2) * cell;
				for (int q = -1; q <= 1; q++)
					for (int r = -1; r <= 1; r++)
						s += fs_image_sample(v->b, x + r, y + q);
				patch[a * G + c] += s / 9 - g;
			}
		used++;
	}
	int lo = -1, hi = -1;
	for (int a = 0; a < G; a++)
		for (int c = 0; c < G; c++) {
			if (hypot(c - G / 2, a - G / 2) * cell > 0.45 * P)
				continue;
			if (lo < 0 || patch[a * G + c] < patch[lo])
				lo = a * G + c;
			if (hi < 0 || patch[a * G + c] > patch[hi])
				hi = a * G + c;
		}
	double dx = hi % G - lo % G, dy = hi / G - lo / G, l = hypot(dx, dy);
	if (!isfinite(v->ax)) {
		v->ax = l > 0 ? dx / l : 1;
		v->ay = l > 0 ? dy / l : 0;
	}
	*pdark = used ? patch[lo] / used : 0;
	*pbright = used ? patch[hi] / used : 0;
}

/* Shape statistics of one dome's lobes (per dome, then the image's median):
 * none needs the centre, only the lobes' own extremes and crossings, so the
 * rule's centre scatter does not enter them (h35a, h36d: it entered every
 * statistic of the mean profile). */
enum { Q_ASYM_B, Q_ASYM_D, Q_WREL, Q_TAIL_B, Q_TAIL_D, Q_FADE_B, Q_FADE_D, Q_EXT50, NQ };

static void shape_of(const lobes *L, double *q)
{
	double lit50 = L->lit[0], lit15 = L->lit[2], away50 = -L->away[0], away15 = -L->away[2];
	/* the lobe's inner half-width over its outer: a sine lobe (smooth foot)
	 * is symmetric, a slope that grows to a cliff (sharp foot) is not */
	q[Q_ASYM_B] = (L->tb - L->inb) / (lit50 - L->tb);
	q[Q_ASYM_D] = (L->ind - L->td) / (L->td - away50);
	/* the lobes' mean full width at half over their distance (h35a) */
	q[Q_WREL] = 0.5 * ((lit50 - L->inb) + (L->ind - away50)) / (L->tb - L->td);
	/* the outer tail (50 -> 15 %) over the outer half-width (extreme -> 50 %):
	 * 0.36 on an unblurred sine, 0.65 on a Gaussian lobe, larger on a step */
	q[Q_TAIL_B] = (lit15 - lit50) / (lit50 - L->tb);
	q[Q_TAIL_D] = (away50 - away15) / (L->td - away50);
	q[Q_FADE_B] = lit15 - lit50;
	q[Q_FADE_D] = away50 - away15;
	q[Q_EXT50] = lit50 - away50;
}

/* Moves v's finite values to its front; returns how many. */
static int finite_front(double *v, int n)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[k++] = v[i];
	return k;
}

static double median_of(double *v, int n)
{
	return fs_median_double(v, (size_t)finite_front(v, n));
}

static double quantile_of(double *v, int n, double f)
{
	int k = finite_front(v, n);
	return k ? fs_select_kth(v, (size_t)k, (size_t)(f * (k - 1) + 0.5)) : NAN;
}

/* The candidate gate (h38g), set between the simulator's smooth and sharp
 * scenes (docs/paper-figures.md): score = wrel - |asymB - 1|. A sine lobe
 * (smooth foot) is as wide as 2/3 of the lobes' distance unblurred
 * (0.55-0.71 measured on resolved cos^2 domes) and as steep inside as
 * outside (asymB 0.84-1.14); a sharp cap's lobe is a rim (wrel 0.11-0.52)
 * or a slope growing to a cliff (asymB 1.18-3). Scores on the simulator,
 * test and held-out seeds: resolved smooth >= 0.441, sharp <= 0.318.
 * Below GATE_EXT px of 50 % extent the blur draws every dome alike (the
 * corner scenes' 4-px domes read 6.7-9.4 px, the smallest resolved
 * smooth domes 10.2). */
#define GATE_EXT 10.0
#define GATE_SCORE 0.38

/* The gate table's row: the medians over the judged domes of the shape
 * statistics, the sharpest tenth of the outer fades, and on a scene the
 * split base's error at 15 / 15 % and 50 / 50 % and the rule's own. */
static void brief_row(const char *label, const double *shape, double *col, const double *split, const double *truth,
		      int m, const sem_truth *tr, const fs_detect_result *res, double P)
{
	double med[NQ];
	for (int q = 0; q < NQ; q++) {
		for (int i = 0; i < m; i++)
			col[i] = shape[(size_t)i * NQ + q];
		med[q] = median_of(col, m);
	}
	for (int i = 0; i < m; i++) {
		col[2 * i] = shape[(size_t)i * NQ + Q_FADE_B];
		col[2 * i + 1] = shape[(size_t)i * NQ + Q_FADE_D];
	}
	double p10 = quantile_of(col, 2 * m, 0.1);
	double score = med[Q_WREL] - fabs(med[Q_ASYM_B] - 1);
	const char *foot = !(med[Q_EXT50] >= GATE_EXT) ? "unres" : score >= GATE_SCORE ? "SMOOTH" : "sharp";
	printf("%-34s %4d %6.2f %6.2f %6.3f %6.2f %6.2f %6.2f %6.2f %6.2f %6.1f %6.3f %6.3f %6s", label, m,
	       med[Q_ASYM_B], med[Q_ASYM_D], med[Q_WREL], med[Q_TAIL_B], med[Q_TAIL_D], med[Q_FADE_B], med[Q_FADE_D], p10,
	       med[Q_EXT50], 0.5 * (med[Q_FADE_B] + med[Q_FADE_D]) / med[Q_EXT50], score, foot);
	if (tr && m) {
		double s15 = 0, s50 = 0, ts = 0;
		int k = 0;
		for (int i = 0; i < m; i++)
			if (isfinite(split[i * 8 + 2]) && isfinite(split[i * 8]))
				s15 += split[i * 8 + 2], s50 += split[i * 8], ts += truth[i], k++;
		sem_match_errors e;
		double rule = NAN;
		if (!sem_matched_errors(tr, &res->tubercles, &e) && e.sum_truth > 0)
			rule = 100 * (e.sum_d / e.sum_truth - 1);
		printf(" %+7.1f %+7.1f %+7.1f", k ? 100 * (s15 / ts - 1) : NAN, k ? 100 * (s50 / ts - 1) : NAN, rule);
	} else if (m) {
		double s15 = 0, s50 = 0;
		int k = 0;
		for (int i = 0; i < m; i++)
			if (isfinite(split[i * 8 + 2]) && isfinite(split[i * 8]))
				s15 += split[i * 8 + 2], s50 += split[i * 8], k++;
		printf("  fill %.3f %.3f", k ? s15 / k / P : NAN, k ? s50 / k / P : NAN);
	}
	printf("\n");
}

/* One image: the rule's centres, the middles, the mean profile and the
 * split readings; tr (may be NULL) the truth of a scene. brief: one row of
 * the foot statistics instead (h38g's gate table; no Re-measure). */
static void run_any(const char *label, const fs_image *img, const sem_truth *tr, double axis_deg, int brief)
{
	char err[256];
	int failed = 0;
	fs_params p;
	fs_params_default(&p);
	fs_detect_result res;
	fs_lattice lat;
	fs_scale_region reg;
	if (fs_lattice_estimate(img, &lat, err, sizeof err) ||
	    fs_detect_rule_in_region(img, &p, 0, FS_RULE_DOME, NULL, &res, err, sizeof err))
		goto fail;
	if (fs_scale_region_detect(img, &reg, err, sizeof err))
		goto fail_res;
	view v = {NULL, tr ? tr->pitch : lat.pitch_px, NAN, NAN};
	if (isfinite(axis_deg)) {
		v.ax = cos(axis_deg * M_PI / 180);
		v.ay = sin(axis_deg * M_PI / 180);
	}
	fs_image *b = fs_gaussian_blurred(img, v.pitch < 40 ? 0.6 : 1.5, err, sizeof err);
	size_t n = res.tubercles.n;
	double *cx = malloc((n ? n : 1) * sizeof *cx), *cy = malloc((n ? n : 1) * sizeof *cy);
	double *split = malloc((n ? n : 1) * 8 * sizeof *split), *shift = malloc((n ? n : 1) * sizeof *shift);
	double *truth = malloc((n ? n : 1) * sizeof *truth);
	double *shape = malloc((n ? n : 1) * NQ * sizeof *shape), *col = malloc((n ? n : 1) * 2 * sizeof *col);
	int np = 2 * (int)(0.7 * v.pitch / 0.5) + 1;
	double *pr = malloc(np * sizeof *pr), mean[NT] = {0};
	if (!b || !cx || !cy || !split || !shift || !truth || !shape || !col || !pr) {
		snprintf(err, sizeof err, "out of memory");
		failed = 1;
		goto done;
	}
	v.b = b;
	for (size_t i = 0; i < n; i++) {
		cx[i] = res.tubercles.items[i].centroid_x;
		cy[i] = res.tubercles.items[i].centroid_y;
	}
	double pdark, pbright;
	patch_axis(&v, cx, cy, n, &reg, &pdark, &pbright);
	/* the split readings: (lit level, away level) indices into LEV */
	static const int SPLIT[][2] = {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {1, 3}, {0, 1}};
	enum { NS = sizeof SPLIT / sizeof SPLIT[0] };
	int m = 0;
	double P = v.pitch;
	for (size_t i = 0; i < n; i++) {
		double x = cx[i], y = cy[i], moved = 0;
		if (!inside(&v, x - 0.75 * P, y - 0.75 * P) || !inside(&v, x + 0.75 * P, y + 0.75 * P) ||
		    !fs_scale_region_contains(&reg, x, y) || (tr && !sem_counted(tr, x, y)))
			continue;
		lobes L;
		int ok = 1;
		for (int it = 0; it < 4 && ok; it++) {
			double g = ground_at(&v, x, y);
			ok = isfinite(g) && !profile_at(&v, x, y, g, pr, np) && !lobes_of(&v, pr, np, &L) &&
			     L.bright >= 0.25 * pbright && L.dark <= 0.25 * pdark && isfinite(L.away[1]) &&
			     isfinite(L.lit[1]);
			if (!ok || it == 3)
				break;
			/* to the middle of the quarter levels, at most 0.3 pitch in all */
			double s = 0.5 * (L.lit[1] - L.away[1]);
			s = fmax(-0.3 * P - moved, fmin(0.3 * P - moved, s));
			x += s * v.ax;
			y += s * v.ay;
			moved += s;
		}
		if (!ok)
			continue;
		for (int q = 0; q < NT; q++) {
			double t = (q - NT / 2) * 0.01 * P / 0.5 + np / 2;
			int t0 = (int)floor(t + 1e-9);
			t0 = t0 < 0 ? 0 : t0 > np - 2 ? np - 2 : t0;
			mean[q] += pr[t0] + (t - t0) * (pr[t0 + 1] - pr[t0]);
		}
		for (int s = 0; s < NS; s++)
			split[m * 8 + s] = L.lit[SPLIT[s][0]] + L.away[SPLIT[s][1]];
		shift[m] = moved;
		shape_of(&L, shape + (size_t)m * NQ);
		if (tr) {
			long k = nearest_point(tr->x, tr->y, NULL, tr->n, x, y, INFINITY);
			truth[m] = tr->d[k];
		}
		m++;
	}
	if (brief) {
		brief_row(label, shape, col, split, truth, m, tr, &res, P);
		goto done;
	}
	printf("%s: pitch %.2f px, axis %.1f deg, %d of %zu domes judged", label, P, atan2(v.ay, v.ax) * 180 / M_PI,
	       m, n);
	if (m == 0) {
		printf("\n");
		goto done;
	}
	qsort(shift, m, sizeof *shift, fs_cmp_double);
	printf(", middle - rule centre along the axis (+ towards the detector) median %+.2f px\n", shift[m / 2]);
	double mn = 0, mx = 0;
	int qmin = NT / 2, qmax = NT / 2;
	for (int q = 0; q < NT; q++) {
		if (mean[q] < mn)
			mn = mean[q], qmin = q;
		if (mean[q] > mx)
			mx = mean[q], qmax = q;
	}
	printf("  mean profile about the middles: dark lobe at %+.3f pitch, bright at %+.3f, depth / height %.3f; "
	       "crossings away / lit (pitch):",
	       (qmin - NT / 2) * 0.01, (qmax - NT / 2) * 0.01, mx > 0 ? -mn / mx : NAN);
	for (int k = 0; k < NLEV; k++) {
		double ta = NAN, tl = NAN;
		for (int q = qmin; q > 0; q--)
			if (mean[q - 1] >= LEV[k] * mn) {
				ta = (q - (LEV[k] * mn - mean[q]) / (mean[q - 1] - mean[q]) - NT / 2) * 0.01;
				break;
			}
		for (int q = qmax; q + 1 < NT; q++)
			if (mean[q + 1] <= LEV[k] * mx) {
				tl = (q + (mean[q] - LEV[k] * mx) / (mean[q] - mean[q + 1]) - NT / 2) * 0.01;
				break;
			}
		printf(" %g%% %.3f/%.3f", 100 * LEV[k], ta, tl);
	}
	printf("\n  along the axis (bright lobe's height = 1):");
	for (int q = 0; q < NT; q += 5)
		printf(" %.2f", mean[q] / (mx > 0 ? mx : 1));
	printf("\n");
	for (int s = 0; s < NS; s++) {
		double sum = 0, ts = 0;
		int k = 0;
		for (int i = 0; i < m; i++)
			if (isfinite(split[i * 8 + s]))
				sum += split[i * 8 + s], ts += truth[i], k++;
		printf("  split base, lit side at %g%% / away side at %g%%: mean D %.2f px, fill %.3f", 100 * LEV[SPLIT[s][0]],
		       100 * LEV[SPLIT[s][1]], sum / k, sum / k / P);
		if (tr)
			printf(", truth %.2f px, error %+.1f %%", ts / k, 100 * (sum / ts - 1));
		printf(" (%d)\n", k);
	}
	if (tr) {
		sem_match_errors e, e2;
		fs_tubercle_list at = {0};
		if (!sem_matched_errors(tr, &res.tubercles, &e) && !sem_inside_centres(tr, &at) &&
		    !fs_measure_centres_rule(img, &p, 0, FS_RULE_DOME, &at, err, sizeof err) &&
		    !sem_matched_errors(tr, &at, &e2) && e.n && e.sum_truth > 0 && e2.sum_truth > 0)
			printf("  dome rule: detection mean D error %+.1f %% (%zu), centres %+.2f px along the axis; "
			       "Re-measure at the true centres %+.1f %%\n",
			       100 * (e.sum_d / e.sum_truth - 1), e.n_measured, (e.ox * v.ax + e.oy * v.ay) / e.n,
			       100 * (e2.sum_d / e2.sum_truth - 1));
		fs_tubercle_list_free(&at);
	}
done:
	free(cx);
	free(cy);
	free(split);
	free(shift);
	free(truth);
	free(shape);
	free(col);
	free(pr);
	fs_image_free(b);
	fs_scale_region_free(&reg);
	if (!failed) {
		fs_detect_result_free(&res);
		return;
	}
fail_res:
	fs_detect_result_free(&res);
fail:
	printf("%s: failed: %s\n", label, err);
}

static void run(const char *label, const fs_image *img, const sem_truth *tr, double axis_deg)
{
	run_any(label, img, tr, axis_deg, 0);
}

/* the fit of h37i (lean 0.2, h/R 0.35, fill 0.84), the same centred, a
 * lean that costs the rule Fig4's loss, and h37r's bright caps, which
 * draw Fig4's profile and its loss with its centres on the lit side */
static const struct fig4_scene {
	const char *label;
	double h, fill, lean, cap, cap_power;
} scenes[] = {
	{"Fig4-like scene, lean 0.2 h/R 0.35 fill 0.84", 0.35, 0.84, 0.2, 0, 0},
	{"Fig4-like scene, centred h/R 0.35 fill 0.84", 0.35, 0.84, 0, 0, 0},
	{"Fig4-like scene, lean 0.3 h/R 0.5 fill 0.8", 0.5, 0.8, 0.3, 0, 0},
	{"Fig4-like scene, cap 0.15^2 h/R 0.3 fill 0.84", 0.3, 0.84, 0, 0.15, 2},
	{"Fig4-like scene, cap 0.2^2 h/R 0.35 fill 0.84", 0.35, 0.84, 0, 0.2, 2},
};
/* One simulated set's rows (h38g): corner, smooth or interior scenes, the
 * seeds moved by add (held-out: 4000), each read along its true detector
 * azimuth. */
static void run_set(const char *set, int add, double beam_blur, int patch)
{
	int nk = !strcmp(set, "corner") ? 64 : !strcmp(set, "smooth") ? SEM_SMOOTH_SCENES : SEM_INTERIOR_SCENES;
	for (int k = 0; k < nk; k++) {
		sem_opts o;
		sem_truth t;
		char label[64];
		if (!strcmp(set, "corner"))
			sem_corner_scene(k, &o);
		else if (!strcmp(set, "smooth"))
			sem_smooth_scene(k, &o);
		else
			sem_interior_scene(k, &o);
		o.seed += (unsigned)add;
		if (beam_blur > 0)
			o.beam_blur = beam_blur;
		snprintf(label, sizeof label, "%s %d f%.2f %s h%.2f s%g a%.0f p%.0f", set, k, o.fill,
			 o.profile == SEM_PROFILE_SMOOTH ? "cos2" : o.profile == 0 ? "sph" : "flat", o.h_over_r,
			 o.halftone, o.det_azimuth * 180 / M_PI, o.pitch);
		fs_image *img = sem_make_shared(&o, &t);
		if (!img) {
			printf("%s: not rendered\n", label);
			continue;
		}
		run_any(label, img, &t, patch ? NAN : o.det_azimuth * 180 / M_PI, 1);
		fflush(stdout);
		sem_truth_free(&t);
		fs_image_free(img);
	}
}

int main(int argc, char **argv)
{
	double axis = NAN;
	int a = 1;
	/* --sets NAME [SEED_ADD [BEAM_BLUR [patch]]]: the foot gate's table
	 * (h38g), one row per scene of the corner / smooth / interior set
	 * (the beam's blur replaced when BEAM_BLUR > 0; read along the true
	 * detector azimuth, or with "patch" along the axis the figures get,
	 * from the mean patch), per paper figure ("figs"), per Fig4-like
	 * scene above ("fig4") or per scene of a blur sweep in Fig4's frame
	 * ("blur") */
	if (argc > 2 && !strcmp(argv[1], "--sets")) {
		printf("%-34s %4s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %7s %7s %7s\n", "image", "n", "asymB",
		       "asymD", "wrel", "tailB", "tailD", "fadeB", "fadeD", "fp10", "ext50", "f/ext", "score", "foot", "spl15",
		       "spl50", "rule");
		if (!strcmp(argv[2], "fig4")) {
			for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++) {
				sem_opts o;
				sem_truth t;
				char label[35];
				sem_fig4_like(&o, scenes[i].h, scenes[i].fill, scenes[i].lean, scenes[i].cap,
					      scenes[i].cap_power);
				snprintf(label, sizeof label, "%.34s", scenes[i].label + strlen("Fig4-like scene, "));
				fs_image *img = sem_make_shared(&o, &t);
				if (!img) {
					printf("%s: not rendered\n", label);
					continue;
				}
				run_any(label, img, &t, -65, 1);
				sem_truth_free(&t);
				fs_image_free(img);
			}
			return 0;
		}
		if (!strcmp(argv[2], "blur")) {
			/* whether the paper figures' blur alone could draw their
			 * lobes: sharp caps and cos^2 domes in Fig4's frame (pitch
			 * 75, its screen), the beam's blur raised towards the
			 * figures' fades (2.4-7.8 px, figs) */
			static const double prof[][2] = {{0, 0.25}, {0, 0.5}, {SEM_PROFILE_SMOOTH, 0.35}};
			static const double fills[] = {0.5, 0.73}, blurs[] = {1, 2.5, 4, 5.5};
			for (size_t a = 0; a < 3; a++)
				for (size_t f = 0; f < 2; f++)
					for (size_t b = 0; b < 4; b++) {
						sem_opts o;
						sem_truth t;
						char label[35];
						sem_fig4_like(&o, prof[a][1], fills[f], 0, 0, 0);
						o.profile = prof[a][0];
						o.beam_blur = blurs[b];
						o.seed = 1;
						snprintf(label, sizeof label, "%s h%.2f f%.2f beam %.1f",
							 a < 2 ? "cap" : "cos2", prof[a][1], fills[f], blurs[b]);
						fs_image *img = sem_make_shared(&o, &t);
						if (!img) {
							printf("%s: not rendered\n", label);
							continue;
						}
						run_any(label, img, &t, -65, 1);
						fflush(stdout);
						sem_truth_free(&t);
						fs_image_free(img);
					}
			return 0;
		}
		if (strcmp(argv[2], "figs")) {
			run_set(argv[2], argc > 3 ? atoi(argv[3]) : 0, argc > 4 ? atof(argv[4]) : 0,
				argc > 5 && !strcmp(argv[5], "patch"));
			return 0;
		}
		const char *all[PAPER_FIGS_MAX];
		size_t nall = paper_fig_names(all, PAPER_FIGS_MAX);
		for (size_t i = 0; i < nall; i++) {
			char path[256];
			snprintf(path, sizeof path, "tests/fixtures/paper/%s", all[i]);
			fs_image *img = fixture_image(path);
			if (!img) {
				printf("%s: cannot be read\n", all[i]);
				continue;
			}
			char label[35];
			snprintf(label, sizeof label, "%.34s", all[i]);
			run_any(label, img, NULL, NAN, 1);
			fflush(stdout);
			fs_image_free(img);
		}
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "--axis")) {
		axis = atof(argv[2]);
		a = 3;
	}
	if (argc > a + 5 && !strcmp(argv[a], "--scene")) {
		sem_opts o;
		sem_truth t;
		char label[160];
		sem_fig4_like(&o, atof(argv[a + 1]), atof(argv[a + 2]), atof(argv[a + 3]), atof(argv[a + 4]),
			  atof(argv[a + 5]));
		if (argc > a + 6)
			o.seed = (unsigned)atoi(argv[a + 6]);
		snprintf(label, sizeof label, "Fig4-like scene, h/R %g fill %g lean %g cap %g^%g seed %u", o.h_over_r,
			 o.fill, o.lean, o.cap, o.cap_power, o.seed);
		fs_image *img = sem_make_shared(&o, &t);
		if (!img) {
			printf("%s: not rendered\n", label);
			return 1;
		}
		run(label, img, &t, isfinite(axis) ? axis : -65);
		sem_truth_free(&t);
		fs_image_free(img);
		return 0;
	}
	const char *only = argc > a ? argv[a] : NULL;
	static const char *figs[] = {"P1_Fig4_Atractosteus_simplex_7.07um.tif", "P1_Fig1_Lepidotes_elvensis_4.78um.tif",
				     "P1_Fig2_Polypterus_bichir_2.63um.tif"};
	for (size_t i = 0; i < sizeof figs / sizeof figs[0]; i++) {
		if (only && !strstr(figs[i], only))
			continue;
		char path[256];
		snprintf(path, sizeof path, "tests/fixtures/paper/%s", figs[i]);
		fs_image *img = fixture_image(path);
		if (!img) {
			printf("%s: cannot be read\n", figs[i]);
			continue;
		}
		run(figs[i], img, NULL, axis);
		fs_image_free(img);
	}
	for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++) {
		if (only && !strstr(scenes[i].label, only))
			continue;
		sem_opts o;
		sem_truth t;
		sem_fig4_like(&o, scenes[i].h, scenes[i].fill, scenes[i].lean, scenes[i].cap, scenes[i].cap_power);
		fs_image *img = sem_make_shared(&o, &t);
		if (!img) {
			printf("%s: not rendered\n", scenes[i].label);
			continue;
		}
		run(scenes[i].label, img, &t, -65);
		sem_truth_free(&t);
		fs_image_free(img);
	}
	return 0;
}
