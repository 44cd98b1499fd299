/*
 * bench_paper_trace.c - which step of the dome rule sets a paper figure's
 * D (issue 13 section 4, docs/paper-figures.md section h38i).
 *
 * Why: the dome rule's last step (fs_det_size_domes_list at detection's
 * final centres) sizes every dome at once - the formation fitted at the
 * centres (detect_offset.h), the templates made at the base rule's median
 * fill (dome_base_fit.h: a coarse pick among five fills, 0.70-1.30 of
 * that median, then a fine grid about the pick), each dome fitted, and
 * the image's level from the base rule's readings unless most of them lie
 * on no step of the image (base_step.h, h36g), when the templates' own
 * sizes stand. A figure whose fill is far from the published one can be
 * wrong at any of these, and the rule keeps none of its intermediate
 * values (fs_det_base_fit_apply is called with no report). This runs
 * detection under both rules (as test_paper_images does:
 * fs_detect_rule_in_region, the automatic scale region), then the last
 * step again at the dome rule's final centres with Re-measure's
 * arguments (fs_meas.given 1; on a figure without a halftone screen the
 * same sizes, which the "replica" line checks dome by dome), and prints
 * what each step decided:
 *   - both rules: count, sized, pitch, mean D / pitch, the fill
 *     D / (D + S) of the statistics, and the per-dome D / pitch at the
 *     10/25/50/75/90 % quantiles; how many of each rule's centres the
 *     other found within 0.25 pitch (what one rule sees that the other
 *     does not);
 *   - the formation: R^2, the common offset (px and / pitch), the dome
 *     (h/R, profile, shadow elevation, azimuth), the halftone;
 *   - the templates: the base rule's median fill, the coarse window and
 *     where its pick landed (low edge, inside, high edge: h37p's
 *     instrument), the fine grid;
 *   - the level: readings used, pinned, on no step (FS_BASE_STEP_MIN),
 *     the scale s (1 when the no-step branch fires) and the level's
 *     readings' and the fitted sizes' D / pitch quantiles;
 *   - the no-base verdict (detect_base_fit.h, h38b, h38o, h39f), each
 *     input beside its bar: the level's no-step majority, the coarse
 *     pick on its window's end or inside, the wide read's best fill,
 *     rise, jackknife SE and t where it is asked, and where the templates
 *     sized fewer than 8 domes the own readings judged; then whether
 *     detection leaves the image unmeasured (the replica line counts the
 *     verdict too);
 *   - where detection's mean D comes from: the final D / pitch of the
 *     domes the template fit sized and of those it could not (they keep
 *     their own first reading, or the image's size where it is pinned);
 *   - with --domes, one line per dome (centre, first reading, level
 *     reading, its step contrast and pin, fitted and final D / pitch);
 *   - with --fill0 F, the templates made with their window centred at
 *     fill F instead of the base rule's median (h37p's test: whether the
 *     fitted sizes follow the window or find a fill of their own); the
 *     replica line then counts how far detection's sizes moved.
 * With --png DIR each figure's overlays under both rules are written as
 * DIR/<figure>_dome.png and _outline.png (the CLI's renderer; ids shown),
 * with the figure alone as _image.png, all enlarged 3 times.
 *
 * --crop DX DY: the figure cropped by DX px at the left and DY at the top
 * first (bench_detect_domes --shift's one-pixel crops, step by step).
 * --vs-whole (with --crop; h39f): the dome rule run on the uncropped
 * figure as well, and the crop's final centres matched to its (moved by
 * the crop, within 0.25 pitch): the median move, and each pair's base
 * reading and step judgement at both centres read on the whole figure's
 * measurement image (the same pixels, so only the centre differs) - how
 * many readings left or found a step, among the domes moved at most 2 px
 * and further. Why a crop flips the no-base verdict: docs/paper-figures.md
 * h39f.
 *
 * The trace repeats fs_det_measure_domes_at / fs_det_base_fit_apply's
 * steps for given centres without a halftone screen (the paper figures
 * have none): a change to those steps must be made here too, and the
 * replica line (main 4dc570e: every size equal on all nine figures) is
 * what shows that it was.
 *
 * --sem [KEY=VALUE ...] (h38s): instead of the figures, one simulated
 * scene in P2 Fig1c's frame and formation (sem_fig1c_like, h/R 0.25
 * unless hr= says otherwise; the keys are sem_opts_keys.h's), traced the
 * same way, with its truth: the counted domes' mean D / pitch and fill,
 * and each rule's matched mean D error. Whether a scene with the figure's
 * look reads right is what tells the rule's fault from the figure's.
 *
 * --fig4 [KEY=VALUE ...] (h46g): as --sem, but the scene starts from P1
 * Fig4's frame (sem_fig4_like: pitch 75, 2.84 px screen, 0.8 px scan
 * blur, detector at -65 deg, smooth cos^2 domes of h/R 0.35, fill 0.73,
 * no lean or cap unless the keys say so): what the rule reads where the
 * figure's published fill is the truth.
 *
 * --at-truth (h46g; --sem or --fig4): the last step traced again at the
 * TRUE centres (Re-measure there), to split what the centres cost from
 * what the steps after them cost.
 *
 * --moved-trace PX AZ (h46g): the last step traced again at the dome
 * rule's centres moved PX px towards azimuth AZ (degrees, as --along).
 *
 * --window-scan (h49h): the templates made with their window centred at
 * 0.30-0.80 in steps of 0.05 and the plan's domes fitted through each;
 * the median fitted D / pitch per window and its slope against the
 * window's centre (docs/paper-figures.md h49h: flat where the image names
 * the size, following the window where the no-base verdict refuses it).
 *
 * --wide (h43h): the wide read asked and printed whatever the verdict's
 * other inputs. --steps (h43h): the rays' summed step by D / pitch at the
 * dome rule's centres, the outline rule's and random points of the frame,
 * against the published fill: whether a base step is in the pixels at
 * all (docs/paper-figures.md h43h).
 *
 * Usage: bench_paper_trace [--domes] [--png DIR] [--fill0 F] [--window-scan] [--wide] [--steps] [--crop DX DY [--vs-whole]] [--at-truth] [--moved-trace PX AZ]
 * [FILTER | --sem KEY=VALUE ... | --fig4 KEY=VALUE ...] (default the three P2 figures: FILTER
 * "P2_"; any substring of a fixture's name). Asserts nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/base_step.h"
#include "analysis/detect.h"
#include "analysis/detect_base_fit.h"
#include "analysis/detect_methods.h"
#include "analysis/detect_offset.h"
#include "analysis/dome_base_fit.h"
#include "analysis/dome_measure.h"
#include "analysis/dome_signal.h"
#include "analysis/graph.h"
#include "analysis/halftone.h"
#include "analysis/measurement.h"
#include "analysis/metrics.h"
#include "analysis/preprocess.h"
#include "base/sorting.h"
#include "image/image_io.h"
#include "image/image_transform.h"
#include "image/render.h"
#include "nearest_point.h"
#include "paper_figs.h"
#include "sem_opts_keys.h"
#include "sem_scene.h"
#include "sem_sim.h"
#include "test_rng.h"

/* --foot: fs_det_offset_set_foot's passes (h47c) */
static unsigned foot_asked;

/* dome_base_fit.c's template window (set_fills): fills scale x fc, fc
 * capped at 0.85, kept in [0.05, 0.96]; the coarse step is three of the
 * fine 0.05 */
#define TPL_CAP 0.85
#define TPL_LO 0.70
#define TPL_STEP 0.05
#define TPL_FMIN 0.05
#define TPL_FMAX 0.96

static int window(double fc, double step, double *out)
{
	fc = fmin(fc, TPL_CAP);
	int n = 0;
	for (int k = 0; TPL_LO + step * k <= 2 - TPL_LO + 1e-9 && n < 16; k++) {
		double f = fc * (TPL_LO + step * k);
		if (f >= TPL_FMIN && f <= TPL_FMAX)
			out[n++] = f;
	}
	return n;
}

/* The coarse fill the templates were picked at: the coarse window's fill
 * whose fine grid is the templates' (-1 when none matches). */
static int coarse_pick(double fill0, const fs_dome_tpl *t, double *coarse, int *nc)
{
	*nc = window(fill0, 3 * TPL_STEP, coarse);
	for (int i = 0; i < *nc; i++) {
		double fine[16];
		int nf = window(coarse[i], TPL_STEP, fine);
		if (nf == t->nk && fabs(fine[0] - t->fill[0]) < 1e-12 && fabs(fine[nf - 1] - t->fill[nf - 1]) < 1e-12)
			return i;
	}
	return -1;
}

/* The 10/25/50/75/90 % quantiles of v[0..n) (sorted in place) times k. */
static void quantiles(const char *label, double *v, size_t n, double k)
{
	printf("    %-34s n %3zu", label, n);
	if (!n) {
		printf("\n");
		return;
	}
	qsort(v, n, sizeof *v, fs_cmp_double);
	static const double q[] = {0.10, 0.25, 0.50, 0.75, 0.90};
	for (int i = 0; i < 5; i++)
		printf("  q%02.0f %.3f", 100 * q[i], k * v[(size_t)(q[i] * (double)(n - 1) + 0.5)]);
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	printf("  mean %.3f\n", k * s / (double)n);
}

/* One rule's line and its per-dome D / pitch quantiles; the fill of the
 * statistics (as test_paper_images reads it). */
static void rule_line(const char *rule, fs_detect_result *r, double pitch, int w, int h)
{
	fs_params p;
	fs_params_default(&p);
	fs_edge_list e = {0};
	fs_stats st;
	memset(&st, 0, sizeof st);
	char err[256];
	double fill = NAN;
	if (!fs_graph_build(&r->tubercles, p.neighbor_graph, p.cull_long_edges, p.cull_factor, &e, err, sizeof err) &&
	    !fs_stats_compute(&r->tubercles, &e, 1.0, NULL, w, h, &st))
		fill = st.size_pitch_ratio;
	fs_edge_list_free(&e);
	double *d = malloc((r->tubercles.n + 1) * sizeof *d);
	size_t m = 0;
	for (size_t i = 0; d && i < r->tubercles.n; i++)
		if (isfinite(r->tubercles.items[i].radius_px))
			d[m++] = 2 * r->tubercles.items[i].radius_px;
	double s = 0;
	for (size_t i = 0; i < m; i++)
		s += d[i];
	printf("  %-7s %3zu tubercles (%3zu sized), pitch %6.2f px, mean D %6.2f px, D / pitch %.3f, fill D/(D+S) %.3f\n",
	       rule, r->tubercles.n, m, r->pitch_px, m ? s / (double)m : NAN, m ? s / (double)m / pitch : NAN, fill);
	if (d)
		quantiles("D / pitch", d, m, 1 / pitch);
	free(d);
}

/* How many of a's centres have one of b's within tol px. */
static size_t matched(const fs_tubercle_list *a, const fs_tubercle_list *b, double tol)
{
	size_t n = 0;
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; j < b->n; j++)
			if (hypot(a->items[i].centroid_x - b->items[j].centroid_x,
				  a->items[i].centroid_y - b->items[j].centroid_y) <= tol) {
				n++;
				break;
			}
	return n;
}

#define ZOOM 3

/* The mean place of a's centres from b's nearest within tol px (n pairs):
 * the dome rule's centres against the outline rule's, which sit on the
 * bright blob (h38s: on the simulator the truth lies between the two). */
static size_t pair_offset(const fs_tubercle_list *a, const fs_tubercle_list *b, double tol, double *mx, double *my)
{
	size_t n = 0;
	double sx = 0, sy = 0;
	for (size_t i = 0; i < a->n; i++) {
		double best = tol, bx = 0, by = 0;
		int found = 0;
		for (size_t j = 0; j < b->n; j++) {
			double dx = a->items[i].centroid_x - b->items[j].centroid_x,
			       dy = a->items[i].centroid_y - b->items[j].centroid_y;
			if (hypot(dx, dy) <= best) {
				best = hypot(dx, dy);
				bx = dx;
				by = dy;
				found = 1;
			}
		}
		if (found) {
			sx += bx;
			sy += by;
			n++;
		}
	}
	*mx = n ? sx / (double)n : NAN;
	*my = n ? sy / (double)n : NAN;
	return n;
}

static void write_png(const char *dir, const char *fig, const char *rule, const fs_image *img,
		      const fs_tubercle_list *t)
{
	char path[512], err[256];
	char base[128];
	const char *ext = strstr(fig, ".tif");
	snprintf(base, sizeof base, "%.*s", ext ? (int)(ext - fig) : (int)strlen(fig), fig);
	snprintf(path, sizeof path, "%s/%s_%s.png", dir, base, rule);
	fs_render_opts o;
	fs_render_opts_default(&o);
	o.show_edges = 0;
	o.show_ids = 1;
	fs_rgb rgb = {0};
	unsigned char *z = NULL;
	int rc = fs_render_overlay(img, t, NULL, &o, &rgb, err, sizeof err);
	/* the figures are 300-450 px wide: enlarged ZOOM times (nearest
	 * pixel) so a dome's foot can be told from its cap when looked at */
	if (!rc && !(z = malloc((size_t)rgb.width * rgb.height * 3 * ZOOM * ZOOM))) {
		snprintf(err, sizeof err, "out of memory");
		rc = -1;
	}
	for (int y = 0; !rc && y < rgb.height * ZOOM; y++)
		for (int x = 0; x < rgb.width * ZOOM; x++)
			memcpy(z + 3 * ((size_t)y * rgb.width * ZOOM + x),
			       rgb.data + 3 * ((size_t)(y / ZOOM) * rgb.width + x / ZOOM), 3);
	if (rc || fs_png_write_rgb(path, z, rgb.width * ZOOM, rgb.height * ZOOM, err, sizeof err))
		printf("  %s: %s\n", path, err);
	else
		printf("  overlay %s\n", path);
	free(z);
	fs_rgb_free(&rgb);
}

/* The last step again at the dome rule's final centres (see the header):
 * fs_det_measure_domes_at and fs_det_base_fit_apply with m->given 1,
 * their values kept. Returns 0, 1 when a step stops it (said why). */
/* A simulated scene's truth beside what the rules read: the counted true
 * domes' mean D / pitch and the fill D / (D + S) of the true D and
 * spaces, and per rule the matched domes' (quarter pitch) mean D error. */
static void truth_lines(const sem_truth *tr, const fs_detect_result *dres, const fs_detect_result *ores)
{
	double sd = 0, ss = 0;
	size_t nd = 0, ns = 0;
	for (size_t i = 0; i < tr->n; i++)
		if (sem_counted(tr, tr->x[i], tr->y[i])) {
			sd += tr->d[i];
			nd++;
		}
	for (size_t k = 0; k < tr->n_pairs; k++)
		if (sem_counted(tr, tr->x[tr->pi[k]], tr->y[tr->pi[k]])) {
			ss += tr->space[k];
			ns++;
		}
	double md = nd ? sd / (double)nd : NAN, ms = ns ? ss / (double)ns : NAN;
	printf("  truth   %3zu counted domes, mean D %6.2f px, D / pitch %.3f, fill D/(D+S) %.3f\n", nd, md,
	       md / tr->pitch, md / (md + ms));
	const fs_detect_result *r[2] = {dres, ores};
	const char *rule[2] = {"dome", "outline"};
	for (int k = 0; k < 2; k++) {
		sem_match_errors e;
		if (sem_matched_errors(tr, &r[k]->tubercles, &e))
			continue;
		printf("  %-7s matched %zu of %zu counted, sized %zu, mean D %+.1f %% of their truth, centres' mean offset "
		       "(%+.2f, %+.2f) px\n",
		       rule[k], e.n, nd, e.n_measured, e.sum_truth > 0 ? 100 * (e.sum_d / e.sum_truth - 1) : NAN,
		       e.n ? e.ox / (double)e.n : NAN, e.n ? e.oy / (double)e.n : NAN);
	}
}

/* Re-measure under the dome rule at the TRUE centres (as
 * test_remeasure_truth): whether the sizes are wrong only because the
 * centres are (h38s: a centre on the middle of a dome and its dark
 * crescent takes the crescent into the base). */
static void true_centres_line(const fs_image *img, const sem_truth *tr)
{
	fs_tubercle_list t = {0};
	char err[256];
	fs_params p;
	fs_params_default(&p);
	sem_match_errors e;
	if (sem_inside_centres(tr, &t) || fs_measure_centres_rule(img, &p, 0, FS_RULE_DOME, &t, err, sizeof err) ||
	    sem_matched_errors(tr, &t, &e)) {
		printf("  re-measure at the true centres failed\n");
		fs_tubercle_list_free(&t);
		return;
	}
	printf("  re-measure at the true centres: %zu, sized %zu, mean D %+.1f %% of their truth\n", e.n, e.n_measured,
	       e.sum_truth > 0 ? 100 * (e.sum_d / e.sum_truth - 1) : NAN);
	fs_tubercle_list_free(&t);
}

/* --along PX AZ: Re-measure (dome rule) at the dome rule's final centres
 * moved PX px towards azimuth AZ (degrees, x right, y down: the
 * detector's, as the formation reads it), for PX = 0, step, ..., along_px
 * (h38s: whether the size follows the centres' place on the axis, on a
 * figure where the truth is not known). */
static double along_px, along_az;

static void along_lines(const fs_image *img, const fs_detect_result *dres, const sem_truth *tr)
{
	double ax = cos(along_az * M_PI / 180), ay = sin(along_az * M_PI / 180), pitch = dres->pitch_px;
	int steps = 6;
	for (int k = 0; k <= steps; k++) {
		double d = along_px * k / steps;
		fs_tubercle_list t = {0};
		int bad = 0;
		for (size_t i = 0; i < dres->tubercles.n && !bad; i++) {
			fs_tubercle q = dres->tubercles.items[i];
			q.centroid_x += d * ax;
			q.centroid_y += d * ay;
			bad = fs_tubercle_list_append(&t, &q) != 0;
		}
		char err[256];
		fs_params p;
		fs_params_default(&p);
		if (bad || fs_measure_centres_rule(img, &p, 0, FS_RULE_DOME, &t, err, sizeof err)) {
			printf("  along %+5.1f px: re-measure failed\n", d);
			fs_tubercle_list_free(&t);
			return;
		}
		double sd = 0;
		size_t m = 0;
		for (size_t i = 0; i < t.n; i++)
			if (isfinite(t.items[i].radius_px)) {
				sd += 2 * t.items[i].radius_px;
				m++;
			}
		printf("  along %+5.1f px (%+.3f pitch): sized %zu of %zu, mean D / pitch %.3f", d, d / pitch, m, t.n,
		       m ? sd / (double)m / pitch : NAN);
		sem_match_errors e;
		if (tr && !sem_matched_errors(tr, &t, &e))
			printf(", matched mean D %+.1f %% of their truth", e.sum_truth > 0 ? 100 * (e.sum_d / e.sum_truth - 1) : NAN);
		printf("\n");
		fs_tubercle_list_free(&t);
	}
}

static double force_fill0; /* --fill0: the templates' window centred there (0: the rule's) */
/* --window-scan (h49h): the templates made at window centres 0.30-0.80
 * and the plan's domes fitted at each; whether their median size follows
 * the window (the window decides it) or stays (the mean patch names it) */
static int window_scan;
/* --wide (h43h): the wide read (fs_dome_tpl_read_wide) made and printed
 * whatever the verdict's other inputs, where the rule reads it only with
 * a no-step majority and the coarse pick inside its window: whether the
 * mean patch names a fill of its own on the figures whose pick lies on
 * a window's end */
static int wide_asked;

/* --window-scan: the median fitted D / pitch of pl's domes (their plan
 * centres, as the rule fits them) through templates of formation f made
 * with the window centred at 0.30, 0.35, ..., 0.80 of the pitch, and the
 * least-squares slope of that median against the window's centre: about
 * 0 where the image names the size (a simulated scene whose base the rule
 * reads, docs/paper-figures.md h49h), near 1 where the window does.
 * Returns 0, -1 on out of memory. */
static int window_scan_line(const fs_image *mimg, const fs_dome_fit *f, const fs_det_base_plan *pl, double pitch)
{
	enum { NW = 11 };
	double w[NW], m[NW], *r = malloc(pl->n * sizeof *r);
	char err[256];
	if (!r)
		return -1;
	printf("  window scan (--window-scan): centre -> median fitted D / pitch (sized):");
	size_t nm = 0;
	for (int i = 0; i < NW; i++) {
		double c = 0.30 + 0.05 * i;
		fs_dome_tpl t;
		size_t n = 0;
		int b = fs_dome_tpl_build(mimg, f, c, pl->xs, pl->ys, pl->n, &t, err, sizeof err);
		if (b < 0) {
			free(r);
			return -1;
		}
		for (size_t k = 0; !b && k < pl->n; k++) {
			fs_dome_tfit tf;
			int q = fs_dome_tpl_fit(&t, mimg, pl->xs[k], pl->ys[k], &tf);
			if (q < 0) {
				fs_dome_tpl_free(&t);
				free(r);
				return -1;
			}
			if (q == 0 && isfinite(tf.radius))
				r[n++] = tf.radius;
		}
		if (!b)
			fs_dome_tpl_free(&t);
		double med = n ? 2 * fs_median_double(r, n) / pitch : NAN;
		printf(" %.2f->%.3f (%zu)", c, med, n);
		if (isfinite(med)) {
			w[nm] = c;
			m[nm++] = med;
		}
	}
	double sw = 0, sm = 0, sww = 0, swm = 0, lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < nm; i++) {
		sw += w[i];
		sm += m[i];
		sww += w[i] * w[i];
		swm += w[i] * m[i];
		lo = fmin(lo, m[i]);
		hi = fmax(hi, m[i]);
	}
	double den = (double)nm * sww - sw * sw;
	printf("\n    slope %.2f, range %.3f-%.3f over %zu windows\n", nm > 2 && den > 0 ? ((double)nm * swm - sw * sm) / den : NAN,
	       lo, hi, nm);
	free(r);
	return 0;
}

/* The no-base verdict's inputs (h39f): the no-step majority of the
 * level's readings (more than half of at least 8), the templates' coarse
 * pick, the wide read's rise against FS_DET_BASE_WIDE_Z jackknife SEs
 * (read only where the majority holds and the pick is inside), and
 * where the templates sized fewer than 8 domes, the own readings'
 * judgement (fs_det_base_own_plan); then what detection reports. */
static void verdict_line(const fs_det_base_plan *pl, const fs_dome_tpl *t, int majority, const double *step,
			 const fs_det_base_fit *info)
{
	printf("  verdict: no-step majority %s; pick %s", majority ? "YES" : "no",
	       t->pick_edge ? "on its window's end" : "inside");
	if (majority && !t->pick_edge && isfinite(t->wide_rise))
		printf("; wide best %.3f, rise %.3f, SE %.3f, t %.2f (bar %.1f)", t->wide_best, t->wide_rise,
		       t->wide_rise_se, t->wide_rise_se > 0 ? t->wide_rise / t->wide_rise_se : NAN,
		       FS_DET_BASE_WIDE_Z);
	if (pl->own) {
		size_t nj = 0, nn = 0;
		for (size_t k = 0; k < pl->n; k++)
			if (isfinite(step[k])) {
				nj++;
				nn += step[k] < FS_BASE_STEP_MIN;
			}
		printf("; templates sized %zu (< 8): own readings %zu judged, %zu on no step", info->fitted, nj, nn);
	}
	printf(" -> %s\n", info->unmeasured ? "NO BASE (unmeasured)" : "sized");
}

/* No templates at the last step (h43h): the own readings judged as
 * detection judges them (detect_base_fit.h: each plan entry that is ok
 * and not pinned, at the plan's centre and its own radius), and the
 * verdict they give. */
static void own_line(const fs_image *mimg, const fs_det_base_plan *pl, const fs_measured *res, double max_r)
{
	size_t nj = 0, nn = 0;
	for (size_t k = 0; k < pl->n; k++) {
		const fs_measured *q = &res[pl->idx[k]];
		if (!q->ok || q->edge != 0 || !(q->t.radius_px > 0))
			continue;
		nj++;
		nn += fs_base_step_contrast(mimg, 0, 0, mimg->width, mimg->height, pl->xs[k], pl->ys[k], q->t.radius_px,
					    FS_DOME_R0 * max_r, FS_DOME_R1 * max_r) < FS_BASE_STEP_MIN;
	}
	printf("  verdict: no templates: own readings %zu judged, %zu on no step -> %s\n", nj, nn,
	       nj >= 8 && 2 * nn > nj ? "NO BASE (unmeasured)" : "sized (the readings stand)");
}

static int trace_last_step(const fs_image *img, const fs_detect_result *dres, int domes)
{
	const fs_tubercle_list *tl = &dres->tubercles;
	double pitch = dres->pitch_px, max_r = 0.6 * pitch;
	char err[256];
	fs_params p;
	fs_params_default(&p);
	fs_image *mimg = NULL, *fimg = img->bits ? fs_image_to_float(img) : NULL;
	if (fs_detect_measure_image(fimg ? fimg : img, &p, pitch >= 40 ? 1.0 : 0.5, &mimg, err, sizeof err)) {
		printf("  measurement image: %s\n", err);
		fs_image_free(fimg);
		return 1;
	}
	fs_meas m = {.img = mimg, .f = 1, .width = img->width, .height = img->height, .dome = 1, .given = 1};
	size_t n = tl->n;
	fs_cand_list c = {0};
	c.items = calloc(n + 1, sizeof *c.items);
	fs_measured *res = calloc(n + 1, sizeof *res);
	double *level_at = calloc(n + 1, sizeof *level_at), *level_var = calloc(n + 1, sizeof *level_var);
	double *first = calloc(n + 1, sizeof *first);
	int *level_edge = calloc(n + 1, sizeof *level_edge);
	c.n = c.cap = n;
	for (size_t i = 0; i < n; i++)
		c.items[i] = (fs_cand){tl->items[i].centroid_x, tl->items[i].centroid_y, 0, 0.5 * max_r};
	/* the first readings (fs_det_measure_domes_at) */
	for (size_t i = 0; i < n; i++) {
		double x = (c.items[i].x + 0.5) / 1.0 - 0.5, y = (c.items[i].y + 0.5) / 1.0 - 0.5, v = NAN;
		int rc = fs_dome_measure_base_blur(mimg, x, y, FS_DOME_R0 * max_r, FS_DOME_R1 * max_r, &res[i].t,
						   &res[i].edge, &v);
		res[i].ok = rc == 0;
		first[i] = rc == 0 && res[i].t.fit_quality >= 0.45 ? 2 * res[i].t.radius_px / pitch : NAN;
		level_at[i] = x == c.items[i].x && y == c.items[i].y
				      ? fs_det_base_level_value(rc, &res[i].t, res[i].edge, v, &level_edge[i], &level_var[i])
				      : -1;
		res[i].t.centroid_x = c.items[i].x;
		res[i].t.centroid_y = c.items[i].y;
	}
	fs_det_offset off;
	memset(&off, 0, sizeof off);
	int rc = 1;
	fs_det_base_plan pl;
	memset(&pl, 0, sizeof pl);
	fs_dome_tpl t;
	memset(&t, 0, sizeof t);
	double *fr = NULL;
	int *le = NULL;
	if (fs_det_offset_correct_period(&m, &c, max_r, 0, -1, res, &off)) {
		printf("  formation: out of memory\n");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		res[i].t.centroid_x = c.items[i].x;
		res[i].t.centroid_y = c.items[i].y;
	}
	const fs_dome_fit *f = &off.fit;
	/* (side and the low-dome ratio: the inputs of the tall-dome gate,
	 * FS_DET_BASE_TALL_LOW_RATIO, and of the turned-formation look's
	 * bounds, detect_base_fit.c; their margins: h42g) */
	printf("  formation: fitted %d, R^2 %.3f, offset (%.2f, %.2f) px = %.3f pitch, h/R %.2f, profile %.1f, "
	       "shadow elevation %.0f deg, azimuth %.0f deg, blur %.2f px (%.3f pitch), side %.3f, low-dome ratio "
	       "%.4f, fill %.3f, halftone %.2f, %zu patches\n",
	       off.fitted, off.quality, off.dx, off.dy, hypot(off.dx, off.dy) / pitch, f->h_over_r, f->profile,
	       f->elevation * 180 / M_PI, f->azimuth * 180 / M_PI, f->blur_px, f->pitch > 0 ? f->blur_px / f->pitch : 0,
	       f->side, f->low_ratio, f->fill, f->halftone, f->n_used);
	if (foot_asked)
		printf("  formation's foot %.2f (1: sharp), sharp-footed residual / best %.4f\n", f->foot, f->sharp_ratio);
	if (!off.fitted) {
		printf("  formation not fitted: the first readings stand\n");
		goto out;
	}
	if (f->halftone > 0) {
		printf("  halftone screen: the level is read on the low-pass (not traced here)\n");
		goto out;
	}
	if (fs_det_base_plan_make(res, n, &off, &pl)) {
		printf("  plan: out of memory\n");
		goto out;
	}
	if (!pl.n) {
		printf("  fewer than 8 domes: the first readings stand\n");
		goto out;
	}
	if (force_fill0 > 0) {
		printf("  templates' window forced: centred at %.3f instead of %.3f\n", force_fill0, pl.fill0);
		pl.fill0 = force_fill0;
	}
	int b = fs_dome_tpl_build(mimg, f, pl.fill0, pl.xs, pl.ys, pl.n, &t, err, sizeof err);
	if (b) {
		printf("  templates: %s; base rule's median fill %.3f, %zu domes\n",
		       b < 0 ? err : "none (the first readings stand)", pl.fill0, pl.n);
		if (b > 0)
			own_line(mimg, &pl, res, max_r);
		goto out;
	}
	double coarse[16];
	int nc, kp = coarse_pick(pl.fill0, &t, coarse, &nc);
	printf("  templates: base rule's median fill %.3f%s; coarse window", pl.fill0,
	       pl.fill0 > TPL_CAP ? " (capped at 0.85)" : "");
	for (int i = 0; i < nc; i++)
		printf(" %s%.3f%s", i == kp ? "[" : "", coarse[i], i == kp ? "]" : "");
	printf(" -> pick %s; fine %.3f-%.3f (%d), shadow term %d\n",
	       kp < 0 ? "?" : kp == 0 ? "LOW EDGE" : kp == nc - 1 ? "HIGH EDGE" : "inside", t.fill[0],
	       t.fill[t.nk - 1], t.nk, t.shadowed);
	fr = malloc(9 * pl.n * sizeof *fr);
	le = calloc(pl.n, sizeof *le);
	if (!fr || !le)
		goto out;
	double *fx = fr + pl.n, *fy = fx + pl.n, *lr = fy + pl.n, *sig = lr + pl.n, *step = sig + pl.n,
	       *var = step + pl.n, *l2 = var + pl.n, *scratch = l2 + pl.n;
	for (size_t k = 0; k < pl.n; k++) {
		fs_dome_tfit tf;
		fr[k] = lr[k] = var[k] = NAN;
		int q = fs_dome_tpl_fit(&t, mimg, pl.xs[k], pl.ys[k], &tf);
		if (q < 0)
			goto out;
		int sized = q == 0 && isfinite(tf.radius);
		sig[k] = q == 0 ? (sized ? tf.signal_end : tf.signal_start) : fs_dome_signal_at(&t, mimg, pl.xs[k], pl.ys[k]).signal;
		if (sized)
			fr[k] = tf.radius;
		/* given: sized where they are */
		fx[k] = c.items[pl.idx[k]].x;
		fy[k] = c.items[pl.idx[k]].y;
	}
	for (size_t k = 0; k < pl.n; k++) {
		if (!isfinite(fr[k]))
			continue;
		size_t i = pl.idx[k];
		if (!(level_at[i] < 0)) {
			lr[k] = level_at[i];
			le[k] = level_edge[i];
			var[k] = level_var[i];
		} else {
			lr[k] = fs_det_base_level_blur(mimg, fx[k], fy[k], max_r, 1, &le[k], &var[k], NULL);
		}
	}
	double v1, ext = 1;
	int clear = fs_det_base_extrap_plan(&pl, &off, lr, le, var, &v1);
	if (clear) {
		fs_image *b2 = fs_gaussian_blurred(mimg, FS_DET_BASE_EXTRA_BLUR, err, sizeof err);
		if (!b2)
			goto out;
		unsigned classes = fs_det_base_extrap_classes(&pl, lr, le);
		for (size_t k = 0; k < pl.n; k++) {
			int e2;
			double v2;
			l2[k] = NAN;
			if (isfinite(lr[k]) && !le[k] && fs_det_base_extrap_picked(fx[k], fy[k], classes))
				l2[k] = fs_det_base_level_blur(b2, fx[k], fy[k], max_r, 1, &e2, &v2, NULL);
		}
		fs_image_free(b2);
		ext = fs_det_base_extrap_apply(&pl, v1, le, l2, lr);
	}
	size_t flat = fs_det_base_drop_flat(&pl, sig, fr, scratch, res);
	/* too few sized by the templates: the own readings judged (h39f) */
	fs_det_base_own_plan(&pl, fr, 1);
	for (size_t k = 0; k < pl.n; k++) {
		double x, y, r;
		step[k] = NAN;
		if (fs_det_base_step_point(&pl, fr, fx, fy, fx, fy, lr, le, 0, res, k, &x, &y, &r))
			step[k] = fs_base_step_contrast(mimg, 0, 0, mimg->width, mimg->height, x, y, r, FS_DOME_R0 * max_r,
							FS_DOME_R1 * max_r);
	}
	/* (the rule's own choice: since h41f clear may be
	 * FS_DET_EXTRAP_TALL, where the rule takes no shadow factor) */
	double shadow = fs_det_base_shadow_take_out(&pl, &off, res, NULL, NULL, 0, clear, lr);
	/* the level's own sums, before the scale is applied */
	double *ql = malloc(4 * pl.n * sizeof *ql), *qf = ql + pl.n, *qs = qf + pl.n, *qn = qs + pl.n;
	size_t nl = 0, nf = 0, ns = 0, nn = 0, npin = 0, nost = 0;
	double sb = 0, sf = 0;
	for (size_t k = 0; ql && k < pl.n; k++) {
		if (!isfinite(fr[k]))
			continue;
		qf[nf++] = 2 * fr[k];
		int pin = isfinite(lr[k]) ? le[k] != 0 : res[pl.idx[k]].edge != 0;
		if (pin) {
			npin++;
			continue;
		}
		double rb = isfinite(lr[k]) ? lr[k] : res[pl.idx[k]].t.radius_px;
		ql[nl++] = 2 * rb;
		sb += rb;
		sf += fr[k];
		if (isfinite(step[k]))
			qs[ns++] = step[k];
		if (step[k] < FS_BASE_STEP_MIN) {
			nost++;
			qn[nn++] = 2 * rb;
		}
	}
	/* the no-base verdict (detect_base_fit.h), as detection makes it:
	 * each input beside its bar */
	fs_det_base_fit info;
	if (fs_det_base_level_size(&pl, 1, &t, f, fr, fx, fy, lr, le, step, res, &info))
		goto out;
	/* (nostep_majority's count, detect_base_fit.c) */
	int majority = info.read >= 8 && 2 * info.nostep > info.read;
	verdict_line(&pl, &t, majority, step, &info);
	if (wide_asked) {
		if (!isfinite(t.wide_rise) && fs_dome_tpl_read_wide(&t, f))
			goto out;
		double tw = t.wide_rise_se > 0 ? t.wide_rise / t.wide_rise_se : NAN;
		printf("  wide read (--wide, asked whatever the verdict): best %.3f%s, rise %.3f, SE %.3f, t %.2f -> %s\n",
		       t.wide_best,
		       t.wide_best <= FS_DOME_TPL_WIDE_LO + 1e-9 || t.wide_best >= FS_DOME_TPL_WIDE_HI - 1e-9 ? " (an end)"
													   : "",
		       t.wide_rise, t.wide_rise_se, tw, t.wide_rise > FS_DET_BASE_WIDE_Z * t.wide_rise_se ? "a fill named" : "no fill named");
	}
	printf("  level: %zu fitted, %zu read (%zu pinned), %zu of them on no step (%.0f %%), flat dropped %zu, "
	       "extrapolation x%.3f, shadow x%.3f; base sum / fit sum %.3f -> s %.3f%s\n",
	       info.fitted, nl, npin, nost, nl ? 100.0 * (double)nost / (double)nl : 0, flat, ext, shadow,
	       sf > 0 ? sb / sf : NAN, info.scale,
	       !info.applied ? " (not applied)" : 2 * nost > nl ? " (NO-STEP BRANCH: the templates' own sizes)" : "");
	if (ql) {
		quantiles("level readings D / pitch", ql, nl, 1 / pitch);
		quantiles("  of them on no step", qn, nn, 1 / pitch);
		quantiles("step contrast (x median)", qs, ns, 1);
		quantiles("fitted D / pitch (s = 1)", qf, nf, 1 / pitch);
	}
	free(ql);
	if (window_scan && window_scan_line(mimg, f, &pl, pitch))
		goto out;
	/* the replica against detection's own sizes */
	size_t same = 0, both = 0;
	for (size_t i = 0; i < n; i++) {
		int sized = res[i].ok && res[i].t.fit_quality >= FS_DOME_NO_DOME_QUALITY && fs_tubercle_measured(&res[i].t);
		int dsz = isfinite(tl->items[i].radius_px);
		both += sized == dsz;
		same += sized && dsz && fabs(res[i].t.radius_px - tl->items[i].radius_px) <= 1e-9 * tl->items[i].radius_px;
	}
	size_t dn = 0;
	for (size_t i = 0; i < n; i++)
		dn += isfinite(tl->items[i].radius_px);
	printf("  replica: %zu of %zu sized as detection, %zu of its %zu sizes equal\n", both, n, same, dn);
	/* where detection's mean D comes from: the domes the template fit
	 * sized (at the level), those it could not (their own first reading,
	 * which on a no-step figure is the window's ceiling or floor), and
	 * those outside the plan (no base of a dome's quality) */
	double *src = malloc(3 * (n + 1) * sizeof *src);
	size_t ns3[3] = {0};
	unsigned char *inplan = calloc(n + 1, 1);
	for (size_t k = 0; src && inplan && k < pl.n; k++) {
		size_t i = pl.idx[k];
		inplan[i] = 1;
		if (isfinite(tl->items[i].radius_px))
			src[(isfinite(fr[k]) ? 0 : 1) * n + ns3[isfinite(fr[k]) ? 0 : 1]++] = 2 * tl->items[i].radius_px;
	}
	for (size_t i = 0; src && inplan && i < n; i++)
		if (!inplan[i] && isfinite(tl->items[i].radius_px))
			src[2 * n + ns3[2]++] = 2 * tl->items[i].radius_px;
	if (src && inplan) {
		quantiles("final D / pitch: template-sized", src, ns3[0], 1 / pitch);
		quantiles("  kept their first reading", src + n, ns3[1], 1 / pitch);
		quantiles("  outside the plan", src + 2 * n, ns3[2], 1 / pitch);
	}
	free(src);
	free(inplan);
	if (domes) {
		printf("    %4s %8s %8s %7s %7s %6s %4s %7s %7s\n", "k", "x", "y", "first", "level", "step", "pin",
		       "fitted", "final");
		for (size_t k = 0; k < pl.n; k++) {
			size_t i = pl.idx[k];
			printf("    %4zu %8.1f %8.1f %7.3f %7.3f %6.2f %4d %7.3f %7.3f\n", i, fx[k], fy[k], first[i],
			       2 * lr[k] / pitch, step[k], le[k], 2 * fr[k] / pitch, 2 * tl->items[i].radius_px / pitch);
		}
	}
	rc = 0;
out:
	free(fr);
	free(le);
	fs_dome_tpl_free(&t);
	fs_det_base_plan_free(&pl);
	free(c.items);
	free(res);
	free(level_at);
	free(level_var);
	free(level_edge);
	free(first);
	fs_image_free(mimg);
	fs_image_free(fimg);
	return rc;
}


/* --vs-whole (h39f): why a one-pixel crop moves the no-base verdict. The
 * crop's final dome centres against the whole figure's (the crop's moved
 * by its crop offset, nearest within 0.25 pitch), and each matched pair's
 * base reading (the last step's first reading, fs_dome_measure_base_blur,
 * with its step contrast: base_step.h) read at both centres on the whole
 * figure's measurement image - the crop's pixels are the whole's, moved,
 * so what differs between the two readings is the centre alone. */
static void vs_whole(const fs_image *whole, const fs_tubercle_list *wt, const fs_tubercle_list *ct, double pitch,
		     int dx, int dy)
{
	char err[256];
	fs_params p;
	fs_params_default(&p);
	fs_image *mimg = NULL, *fimg = whole->bits ? fs_image_to_float(whole) : NULL;
	if (fs_detect_measure_image(fimg ? fimg : whole, &p, pitch >= 40 ? 1.0 : 0.5, &mimg, err, sizeof err)) {
		printf("  vs whole: measurement image: %s\n", err);
		fs_image_free(fimg);
		return;
	}
	double max_r = 0.6 * pitch, r0 = FS_DOME_R0 * max_r, r1 = FS_DOME_R1 * max_r;
	size_t n = ct->n, np = 0, flips[2][2] = {{0}}, near_flip[2] = {0}, near_n[2] = {0};
	double *ddx = malloc((n + 1) * sizeof *ddx), *ddy = malloc((n + 1) * sizeof *ddy);
	double *dw = malloc((n + 1) * sizeof *dw), *dc = malloc((n + 1) * sizeof *dc);
	for (size_t i = 0; ddx && ddy && dw && dc && i < n; i++) {
		double x = ct->items[i].centroid_x + dx, y = ct->items[i].centroid_y + dy;
		long bj = nearest_tubercle(wt, x, y, 0.25 * pitch);
		if (bj < 0)
			continue;
		const fs_tubercle *w = &wt->items[bj];
		fs_tubercle a, b;
		int ea, eb;
		double va, vb;
		if (fs_dome_measure_base_blur(mimg, w->centroid_x, w->centroid_y, r0, r1, &a, &ea, &va) ||
		    fs_dome_measure_base_blur(mimg, x, y, r0, r1, &b, &eb, &vb) || !(a.radius_px > 0) ||
		    !(b.radius_px > 0))
			continue;
		int sa = fs_base_step_contrast(mimg, 0, 0, mimg->width, mimg->height, w->centroid_x, w->centroid_y,
					       a.radius_px, r0, r1) >= FS_BASE_STEP_MIN;
		int sb = fs_base_step_contrast(mimg, 0, 0, mimg->width, mimg->height, x, y, b.radius_px, r0, r1) >=
			 FS_BASE_STEP_MIN;
		ddx[np] = x - w->centroid_x;
		ddy[np] = y - w->centroid_y;
		dw[np] = 2 * a.radius_px / pitch;
		dc[np] = 2 * b.radius_px / pitch;
		np++;
		flips[sa][sb]++;
		/* within 2 px of the whole's centre, or further */
		int far = hypot(x - w->centroid_x, y - w->centroid_y) > 2;
		near_n[far]++;
		near_flip[far] += sa != sb;
	}
	if (np) {
		double mx = fs_median_double(ddx, np), my = fs_median_double(ddy, np);
		double mw = fs_median_double(dw, np), mc = fs_median_double(dc, np);
		printf("  vs whole: %zu of %zu domes matched; centre moved by median (%+.2f, %+.2f) px = %.3f pitch; "
		       "reading D / pitch median %.3f whole -> %.3f crop\n",
		       np, n, mx, my, hypot(mx, my) / pitch, mw, mc);
		printf("  vs whole: readings on a step whole/crop: both %zu, step -> NO STEP %zu, no step -> step %zu, "
		       "neither %zu; the judgement changed for %zu of %zu moved <= 2 px, %zu of %zu moved further\n",
		       flips[1][1], flips[1][0], flips[0][1], flips[0][0], near_flip[0], near_n[0], near_flip[1],
		       near_n[1]);
	}
	free(ddx);
	free(ddy);
	free(dw);
	free(dc);
	fs_image_free(mimg);
	fs_image_free(fimg);
}

/* --steps (h43h): whether the image shows a step at a dome's base at all,
 * whatever reader looks for it. For one set of centres, the rays' summed
 * step (base_step.h, the judgement the no-base verdict counts) at every
 * D / pitch from 0.20 to 0.95 against its median over the base reader's
 * window: per D / pitch the centres' median contrast and the share of
 * them at or above FS_BASE_STEP_MIN; per centre the strongest contrast in
 * the window and where it lies; with own radii (the outline rule's) the
 * contrast at each centre's own edge. The same at pseudo-random points of
 * the frame ("random") is what the ground and the lattice's texture give
 * without a dome centred there: a figure whose dome centres read no more
 * than that holds no base the summed step can see. Only centres whose
 * window (and the judgement's reach) lies inside the frame. */
#define STEPS_NQ 16
static int steps_asked;
static double steps_pub; /* the published fill of the figure traced (0: none) */

static void steps_set(const fs_image *mimg, const double *xs, const double *ys, const double *rs, size_t n,
		      double pitch, const char *label, double pub)
{
	double max_r = 0.6 * pitch, r0 = FS_DOME_R0 * max_r, r1 = FS_DOME_R1 * max_r, reach = r1 + FS_BASE_STEP_REACH;
	double *v = malloc((STEPS_NQ + 3) * (n + 1) * sizeof *v);
	if (!v)
		return;
	double *best = v + STEPS_NQ * (n + 1), *where = best + (n + 1), *own = where + (n + 1);
	size_t used = 0, nown = 0;
	for (size_t i = 0; i < n; i++) {
		double x = xs[i], y = ys[i];
		if (x < reach || y < reach || x > mimg->width - 1 - reach || y > mimg->height - 1 - reach)
			continue;
		double bc = -1, bq = NAN;
		for (int q = 0; q < STEPS_NQ; q++) {
			double d = 0.20 + 0.05 * q;
			double c = fs_base_step_contrast(mimg, 0, 0, mimg->width, mimg->height, x, y, 0.5 * d * pitch, r0,
							 r1);
			v[(size_t)q * (n + 1) + used] = c;
			if (c > bc) {
				bc = c;
				bq = d;
			}
		}
		best[used] = bc;
		where[used] = bq;
		if (rs && isfinite(rs[i]) && rs[i] > r0 && rs[i] < r1)
			own[nown++] = fs_base_step_contrast(mimg, 0, 0, mimg->width, mimg->height, x, y, rs[i], r0, r1);
		used++;
	}
	printf("  steps at %-8s %3zu centres; D/pitch:", label, used);
	for (int q = 0; q < STEPS_NQ; q++)
		printf(" %5.2f", 0.20 + 0.05 * q);
	printf("\n    %-28s median", "");
	for (int q = 0; q < STEPS_NQ && used; q++) {
		double *c = v + (size_t)q * (n + 1);
		printf(" %5.2f", fs_median_double(c, used));
	}
	printf("\n    %-28s >= %.1f", "", FS_BASE_STEP_MIN);
	for (int q = 0; q < STEPS_NQ && used; q++) {
		size_t k = 0;
		for (size_t i = 0; i < used; i++)
			k += v[(size_t)q * (n + 1) + i] >= FS_BASE_STEP_MIN;
		printf(" %5.2f", (double)k / (double)used);
	}
	printf("\n");
	if (used) {
		size_t strong = 0;
		for (size_t i = 0; i < used; i++)
			strong += best[i] >= FS_BASE_STEP_MIN;
		double mb = fs_median_double(best, used), mw = fs_median_double(where, used);
		printf("    strongest in the window: median %.2f at D/pitch %.2f; %zu of %zu centres reach %.1f anywhere",
		       mb, mw, strong, used, FS_BASE_STEP_MIN);
		if (pub > 0) {
			int qp = (int)lround((pub - 0.20) / 0.05);
			if (qp >= 0 && qp < STEPS_NQ) {
				size_t k = 0;
				for (size_t i = 0; i < used; i++)
					k += v[(size_t)qp * (n + 1) + i] >= FS_BASE_STEP_MIN;
				printf("; at the published fill %.3f (column %.2f) %zu of %zu", pub, 0.20 + 0.05 * qp, k,
				       used);
			}
		}
		if (nown) {
			size_t k = 0;
			for (size_t i = 0; i < nown; i++)
				k += own[i] >= FS_BASE_STEP_MIN;
			printf("; at their own edge median %.2f, %zu of %zu", fs_median_double(own, nown), k, nown);
		}
		printf("\n");
	}
	free(v);
}

static void steps_lines(const fs_image *img, const fs_detect_result *dres, const fs_detect_result *ores, double pub)
{
	char err[256];
	fs_params p;
	fs_params_default(&p);
	double pitch = dres->pitch_px;
	fs_image *mimg = NULL, *fimg = img->bits ? fs_image_to_float(img) : NULL;
	if (fs_detect_measure_image(fimg ? fimg : img, &p, pitch >= 40 ? 1.0 : 0.5, &mimg, err, sizeof err)) {
		printf("  steps: measurement image: %s\n", err);
		fs_image_free(fimg);
		return;
	}
	const fs_detect_result *sets[2] = {dres, ores};
	const char *names[2] = {"dome", "outline"};
	for (int s = 0; s < 2; s++) {
		const fs_tubercle_list *tl = &sets[s]->tubercles;
		size_t n = tl->n;
		double *x = malloc(3 * (n + 1) * sizeof *x), *y = x ? x + n + 1 : NULL, *r = y ? y + n + 1 : NULL;
		if (!x)
			break;
		for (size_t i = 0; i < n; i++) {
			x[i] = tl->items[i].centroid_x;
			y[i] = tl->items[i].centroid_y;
			r[i] = s ? tl->items[i].radius_px : NAN;
		}
		steps_set(mimg, x, y, r, n, pitch, names[s], pub);
		free(x);
	}
	/* the frame's pseudo-random points (a fixed LCG: the same points on
	 * every run) */
	enum { NRAND = 200 };
	double rx[NRAND], ry[NRAND];
	uint64_t st = 12345;
	for (int i = 0; i < NRAND; i++) {
		rx[i] = test_lcg_unit(&st) * (img->width - 1);
		ry[i] = test_lcg_unit(&st) * (img->height - 1);
	}
	steps_set(mimg, rx, ry, NULL, NRAND, pitch, "random", pub);
	fs_image_free(mimg);
	fs_image_free(fimg);
}

/* Detection under both rules on img (as test_paper_images does), the
 * rules' lines, the overlays with --png, and the last step's trace; with
 * truth (a simulated scene) the matched domes' D error under both rules. */
/* --at-truth (h46g, a simulated scene): the last step's trace again at the
 * TRUE centres, Re-measure's sizes there standing in for detection's (the
 * replica line then compares the trace with Re-measure): which step loses
 * the size once the centres are right, beside the same steps at the
 * rule's own centres above. */
static int at_truth_asked;

static void trace_at_truth(const fs_image *img, const fs_detect_result *dres, const sem_truth *tr, int domes)
{
	fs_detect_result at = *dres;
	memset(&at.tubercles, 0, sizeof at.tubercles);
	char err[256];
	fs_params p;
	fs_params_default(&p);
	if (sem_inside_centres(tr, &at.tubercles) ||
	    fs_measure_centres_rule(img, &p, 0, FS_RULE_DOME, &at.tubercles, err, sizeof err)) {
		printf("  at the true centres: re-measure failed\n");
		fs_tubercle_list_free(&at.tubercles);
		return;
	}
	printf("  at the true centres (%zu), the last step again:\n", at.tubercles.n);
	trace_last_step(img, &at, domes);
	fs_tubercle_list_free(&at.tubercles);
}

/* --moved-trace PX AZ (h46g): the last step traced again at the dome
 * rule's centres moved PX px towards azimuth AZ (as --along moves them;
 * Re-measure's sizes there the replica's reference): on a figure, why the
 * size does or does not follow a centre moved off the rule's place (the
 * level's no-step share and the no-base verdict at the moved centres). */
static double moved_px, moved_az;
static int moved_asked;

static void trace_moved(const fs_image *img, const fs_detect_result *dres, int domes)
{
	fs_detect_result at = *dres;
	memset(&at.tubercles, 0, sizeof at.tubercles);
	double ax = cos(moved_az * M_PI / 180), ay = sin(moved_az * M_PI / 180);
	char err[256];
	fs_params p;
	fs_params_default(&p);
	int bad = 0;
	for (size_t i = 0; i < dres->tubercles.n && !bad; i++) {
		fs_tubercle q = dres->tubercles.items[i];
		q.centroid_x += moved_px * ax;
		q.centroid_y += moved_px * ay;
		bad = fs_tubercle_list_append(&at.tubercles, &q) != 0;
	}
	if (bad || fs_measure_centres_rule(img, &p, 0, FS_RULE_DOME, &at.tubercles, err, sizeof err)) {
		printf("  moved %+.1f px towards %.0f deg: re-measure failed\n", moved_px, moved_az);
		fs_tubercle_list_free(&at.tubercles);
		return;
	}
	printf("  at the rule's centres moved %+.1f px towards %.0f deg, the last step again:\n", moved_px, moved_az);
	trace_last_step(img, &at, domes);
	fs_tubercle_list_free(&at.tubercles);
}

/* --vs-whole: the uncropped figure and the crop's offset (NULL: not asked) */
static const fs_image *vs_whole_img;
static int vs_dx, vs_dy;

static int trace_image(const char *name, const fs_image *img, const sem_truth *tr, const char *png, int domes)
{
	char err[256];
	fs_params p;
	fs_params_default(&p);
	fs_detect_result dres, ores;
	if (fs_detect_rule_in_region(img, &p, 0, FS_RULE_DOME, NULL, &dres, err, sizeof err) ||
	    fs_detect_rule_in_region(img, &p, 0, FS_RULE_OUTLINE, NULL, &ores, err, sizeof err)) {
		printf("%s: detection failed: %s\n", name, err);
		return 1;
	}
	double pitch = dres.pitch_px;
	printf("%s (%dx%d)\n", name, img->width, img->height);
	/* the screen as the source shows it (h46g): a simulated print matches
	 * a figure's only if its screen is as strong against the finder's
	 * threshold, which decides whether the rule takes the screened path */
	double sp = 0, sr = 0;
	if (!fs_halftone_detect(img, &sp, &sr))
		printf("  screen on the source: period %.3f px, ratio %.1f (finder's bar %.0f)\n", sp, sr,
		       FS_HALFTONE_MIN_RATIO);
	rule_line("dome", &dres, pitch, img->width, img->height);
	rule_line("outline", &ores, pitch, img->width, img->height);
	printf("  centres within 0.25 pitch: dome's found by outline %zu of %zu, outline's found by dome %zu of "
	       "%zu\n",
	       matched(&dres.tubercles, &ores.tubercles, 0.25 * pitch), dres.tubercles.n,
	       matched(&ores.tubercles, &dres.tubercles, 0.25 * pitch), ores.tubercles.n);
	double pdx, pdy;
	size_t np = pair_offset(&dres.tubercles, &ores.tubercles, 0.4 * pitch, &pdx, &pdy);
	printf("  dome's centres minus the outline rule's nearest (within 0.4 pitch): %zu pairs, mean (%+.2f, %+.2f) px "
	       "= %.3f pitch\n",
	       np, pdx, pdy, hypot(pdx, pdy) / pitch);
	if (tr) {
		truth_lines(tr, &dres, &ores);
		true_centres_line(img, tr);
	}
	if (png) {
		write_png(png, name, "dome", img, &dres.tubercles);
		write_png(png, name, "outline", img, &ores.tubercles);
		fs_tubercle_list none = {0};
		write_png(png, name, "image", img, &none);
	}
	if (pitch > 0)
		trace_last_step(img, &dres, domes);
	if (pitch > 0 && moved_asked)
		trace_moved(img, &dres, domes);
	if (pitch > 0 && tr && at_truth_asked)
		trace_at_truth(img, &dres, tr, domes);
	if (pitch > 0 && steps_asked)
		steps_lines(img, &dres, &ores, steps_pub);
	if (pitch > 0 && along_px != 0)
		along_lines(img, &dres, tr);
	if (pitch > 0 && vs_whole_img) {
		fs_detect_result wres;
		if (fs_detect_rule_in_region(vs_whole_img, &p, 0, FS_RULE_DOME, NULL, &wres, err, sizeof err)) {
			printf("  vs whole: detection failed: %s\n", err);
		} else {
			vs_whole(vs_whole_img, &wres.tubercles, &dres.tubercles, pitch, vs_dx, vs_dy);
			fs_detect_result_free(&wres);
		}
	}
	fs_detect_result_free(&dres);
	fs_detect_result_free(&ores);
	return 0;
}

int main(int argc, char **argv)
{
	const char *only = "P2_", *png = NULL;
	int crop_dx = 0, crop_dy = 0;
	int domes = 0, sem = 0, vs = 0, fig4 = 0;
	double sem_hr = 0.25;
	sem_opts so;
	sem_fig1c_like(&so, sem_hr);
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--domes"))
			domes = 1;
		else if (!strcmp(argv[a], "--steps"))
			steps_asked = 1;
		else if (!strcmp(argv[a], "--wide"))
			wide_asked = 1;
		else if (!strcmp(argv[a], "--window-scan"))
			window_scan = 1;
		else if (!strcmp(argv[a], "--foot") && a + 1 < argc) {
			foot_asked = (unsigned)atoi(argv[++a]);
			fs_det_offset_set_foot(foot_asked);
		}
		else if (!strcmp(argv[a], "--moved-trace") && a + 2 < argc) {
			moved_px = atof(argv[++a]);
			moved_az = atof(argv[++a]);
			moved_asked = 1;
		} else if (!strcmp(argv[a], "--at-truth"))
			at_truth_asked = 1;
		else if (!strcmp(argv[a], "--vs-whole"))
			vs = 1;
		else if (!strcmp(argv[a], "--fill0") && a + 1 < argc)
			force_fill0 = atof(argv[++a]);
		else if (!strcmp(argv[a], "--crop") && a + 2 < argc) {
			crop_dx = atoi(argv[++a]);
			crop_dy = atoi(argv[++a]);
		} else if (!strcmp(argv[a], "--png") && a + 1 < argc)
			png = argv[++a];
		else if (!strcmp(argv[a], "--along") && a + 2 < argc) {
			along_px = atof(argv[++a]);
			along_az = atof(argv[++a]);
		} else if (!strcmp(argv[a], "--sem"))
			sem = 1;
		else if (!strcmp(argv[a], "--fig4")) {
			/* the keys that follow apply on top of Fig4's frame */
			sem = fig4 = 1;
			sem_fig4_like(&so, 0.35, 0.73, 0, 0, 0);
		} else if (sem && strchr(argv[a], '=')) {
			if (sem_opts_set_key(&so, argv[a])) {
				fprintf(stderr, "bench_paper_trace: unknown key %s\n", argv[a]);
				return 2;
			}
		} else
			only = argv[a];
	}
	if (sem) {
		sem_truth tr;
		memset(&tr, 0, sizeof tr);
		fs_image *img = sem_make(&so, &tr);
		if (!img) {
			printf("the simulator refused the scene\n");
			return 1;
		}
		char name[256];
		snprintf(name, sizeof name, "%s_hr%.2f_shadow%.2f_seed%u", fig4 ? "sem_fig4_like" : "sem_fig1c_like",
			 so.h_over_r, so.shadow, so.seed);
		printf("simulated: pitch %.1f fill %.3f profile %.1f h/R %.2f az %.0f elev %.0f deg strength %.2f shadow "
		       "%.2f blur %.2f scan %.2f rough %.2f edge %.2f halftone %.2f cap %.2f^%.0f seed %u\n",
		       so.pitch, so.fill, so.profile, so.h_over_r, so.det_azimuth * 180 / M_PI,
		       so.det_elevation * 180 / M_PI, so.det_strength, so.shadow, so.beam_blur, so.scan_blur,
		       so.roughness, so.edge, so.halftone, so.cap, so.cap_power, so.seed);
		int rc = trace_image(name, img, &tr, png, domes);
		fs_image_free(img);
		sem_truth_free(&tr);
		return rc;
	}
	const char *paper[PAPER_FIGS_MAX];
	size_t npaper = paper_fig_names(paper, PAPER_FIGS_MAX);
	if (!npaper) {
		printf("tests/fixtures/paper/expected.csv cannot be read\n");
		return 1;
	}
	for (size_t i = 0; i < npaper; i++) {
		if (!strstr(paper[i], only))
			continue;
		char path[512], err[256];
		snprintf(path, sizeof path, "tests/fixtures/paper/%s", paper[i]);
		fs_loaded L;
		if (fs_load_file(path, NULL, &L, err, sizeof err)) {
			printf("%s: load failed: %s\n", paper[i], err);
			return 1;
		}
		if (crop_dx > 0 || crop_dy > 0) {
			/* bench_detect_domes --shift's crops: which step jumps */
			fs_rect r = {crop_dx, crop_dy, L.image->width - crop_dx, L.image->height - crop_dy};
			fs_image *c = fs_image_crop(L.image, r, NULL, err, sizeof err);
			if (!c) {
				printf("%s: crop failed: %s\n", paper[i], err);
				return 1;
			}
			if (vs) {
				vs_whole_img = L.image;
				vs_dx = crop_dx;
				vs_dy = crop_dy;
			} else {
				fs_image_free(L.image);
			}
			L.image = c;
			printf("(cropped by %d px at the left, %d at the top)\n", crop_dx, crop_dy);
		}
		steps_pub = 0;
		paper_fig figs[PAPER_FIGS_MAX];
		int nf = paper_figs_read(figs, PAPER_FIGS_MAX);
		for (int j = 0; j < nf; j++)
			if (!strcmp(figs[j].file, paper[i]))
				steps_pub = figs[j].ratio;
		int rc = trace_image(paper[i], L.image, NULL, png, domes);
		fs_image_free((fs_image *)vs_whole_img);
		vs_whole_img = NULL;
		fs_loaded_free(&L);
		if (rc)
			return rc;
	}
	return 0;
}
