/*
 * bench_centre_steps - where the dome rule's centres sit against the truth
 * after each of its steps, along the detector's axis (issue 13, P1 Fig4;
 * docs/paper-figures.md, h37s). Asserts nothing.
 *
 * Why: on h37r's bright-cap scenes (the first simulated ones with Fig4's
 * lobe profile and loss) the rule's final centres sat 2-11 px towards the
 * detector, and with the centre refinement off still 6-9 px: some step
 * before it takes the bright cap and the lit flank for the dome. This
 * replays fs_det_measure's dome path with the library's own steps (the
 * candidates of fs_detect_auto_candidates, fs_det_measure_dome_one with and
 * without the refinement, the flat-ground drop, the common offset of the
 * formation fit, fs_det_base_fit_apply) and reads the centres after each,
 * matched to the true ones (nearest within 0.3 pitch): median and mean
 * offset along the axis (+ towards the detector) and across it. The replay
 * is checked against fs_detect_domes' own centres (printed "replay = rule"
 * when every final centre is within 0.01 px of one of the rule's).
 * Usage: bench_centre_steps [--scene H FILL CAP POWER SEED] - default:
 * h37r's two capped Fig4-like scenes and the uncapped one, seeds 1-3;
 * "--figure PATH [AXIS_DEG [DX DY]]" a figure without truth (the formation fit's
 * offset along the axis, default -65 degrees, and its trials' quality;
 * DX DY: cropped by that many px at the left and the top first, h43k);
 * "--fig1c [KEY=VALUE ...]" one scene in P2 Fig1c's formation
 * (sem_fig1c_like, keys of sem_opts_keys.h; h38s), its axis the scene's
 * detector azimuth. "--interior N [SEED_ADD]" interior scene N of
 * test_sem_accuracy on the seed set SEED_ADD ("--corner N [SEED_ADD]" its
 * corner scene N; h39g); KEY=VALUE after SEED_ADD sets a simulator
 * option (sem_opts_keys.h; h43j: halftone=5 prints an interior scene).
 * h42m: the pitch-16 scenes too (candidates voted at full resolution, no
 * first-pass refinement, as detect.c does below a 20-px pitch); and after
 * the template fit, where the truth is known, the same fit from the TRUE
 * centres (with the rule's templates, and with templates built at the
 * true centres, whose components' mix is then printed beside the rule's),
 * from the rule's centres with templates built at the truth, with the
 * formation's azimuth set to the scene's, and with the templates rebuilt
 * at the fit's own centres three times: whether the common shift is made
 * by the search or carried by the templates. "--scan" first: also the
 * templates built at the rule's centres moved together along the axis
 * by -1.0..+1.0 px and the fits' mean R^2 at each (about 5 s more).
 * h45d: where the rule kept the path without the refinement (h43j's
 * refused rule, h44d's coarse-screen choice), that replay is printed as
 * the rule's ("replay with the refinement off = rule"), with the offset's
 * second look under a coarse screen (fs_det_offset_look_again).
 * "--turn PASSES" after "--scan" (h46a): the rule's formation fitted with
 * h45m's turn check in those passes (fs_det_offset_set_turn_check: 1 the
 * first pass, 2 the last step, 3 both), to see which step's centres the
 * half-turned detector moved.
 * h46d: the base fit's line also gives the level's scale and the mean D
 * error of the domes it sized (against the truth, matched as above), and
 * "--no-look" first (with or after --scan) prints that replay without the
 * look again (the replays that find the rule's path keep it).
 * Cost: 1-4 s of CPU a scene (rendered, or read from SEM_SCENE_CACHE).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/centre_axis_calib.h"
#include "analysis/centre_perdome_calib.h"
#include "analysis/centre_refine.h"
#include "base/sorting.h"
#include "analysis/detect.h"
#include "analysis/detect_base_fit.h"
#include "analysis/detect_candidates.h"
#include "analysis/detect_measure.h"
#include "analysis/detect_methods.h"
#include "analysis/detect_offset.h"
#include "analysis/dome_base_fit.h"
#include "analysis/centre_axis.h"
#include "analysis/dome_measure.h"
#include "analysis/lattice_estimate.h"
#include "analysis/preprocess.h"
#include "dome_candidates.h"
#include "fixture_image.h"
#include "image/image.h"
#include "image/image_transform.h"
#include "nearest_point.h"
#include "sem_cache.h"
#include "sem_opts_keys.h"
#include "sem_scene.h"
#include "sem_sim.h"

/* --scan given: the template fit's common-shift scan (truth_started) */
static int g_scan;
/* --centred given first (h46c): the candidates moved by their own mean
 * offset along the axis (read against the truth: an oracle) before the
 * later steps, which then start from centres without the votes' bias */
static int g_centred;

/* The mean offset along (ax, ay) of the n centres from the truth's inside
 * domes (report()'s matching), 0 when none matches */
static double mean_along(const double *xs, const double *ys, size_t n, const sem_truth *tr, double ax, double ay)
{
	double sa = 0;
	size_t k = 0;
	long *of = tr ? malloc((tr->n + 1) * sizeof *of) : NULL;
	if (!of)
		return 0;
	nearest_of_truth(tr, xs, ys, NULL, n, 0.3, of);
	for (size_t t = 0; t < tr->n; t++)
		if (of[t] >= 0) {
			sa += (xs[of[t]] - tr->x[t]) * ax + (ys[of[t]] - tr->y[t]) * ay;
			k++;
		}
	free(of);
	return k ? sa / k : 0;
}
/* --no-look given (h46d): the printed replay of the unrefined path
 * without its look again (the replays that find the rule's path keep
 * it), to set the base fit's end from either start side by side */
static int g_no_look;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The n centres (xs, ys) against the truth's inside domes: each true dome
 * takes its nearest centre within 0.3 pitch; prints the median and mean
 * offset along the axis (ax, ay) and the mean across it. */
static void report(const char *step, const double *xs, const double *ys, const int *use, size_t n,
		   const sem_truth *tr, double ax, double ay)
{
	double *al = tr ? malloc((tr->n ? tr->n : 1) * sizeof *al) : NULL;
	long *of = tr ? malloc((tr->n + 1) * sizeof *of) : NULL;
	double sa = 0, sc = 0;
	size_t k = 0;
	if (!al || !of) { /* !tr: a figure, no truth to read the centres against */
		free(al);
		free(of);
		return;
	}
	nearest_of_truth(tr, xs, ys, use, n, 0.3, of);
	for (size_t t = 0; t < tr->n; t++) {
		if (of[t] < 0)
			continue;
		double dx = xs[of[t]] - tr->x[t], dy = ys[of[t]] - tr->y[t];
		al[k++] = dx * ax + dy * ay;
		sa += dx * ax + dy * ay;
		sc += -dx * ay + dy * ax;
	}
	if (k) {
		qsort(al, k, sizeof *al, cmp_double);
		/* (h39g: a centre more than 1 px towards the detector is one
		 * locked on the lit flank, h37q's count) */
		size_t locked = 0;
		for (size_t j = 0; j < k; j++)
			locked += al[j] > 1.0;
		printf("  %-44s median %+6.2f  mean %+6.2f px along, mean %+5.2f across (%zu matched, %zu > 1 px)\n",
		       step, al[k / 2], sa / k, sc / k, k, locked);
	} else {
		printf("  %-44s nothing matched\n", step);
	}
	free(al);
	free(of);
}

static void report_meas(const char *step, const fs_measured *meas, size_t n, int domes_only, const sem_truth *tr,
			double ax, double ay)
{
	double *x = malloc((n ? n : 1) * sizeof *x), *y = malloc((n ? n : 1) * sizeof *y);
	int *use = malloc((n ? n : 1) * sizeof *use);
	if (x && y && use) {
		for (size_t i = 0; i < n; i++) {
			x[i] = meas[i].t.centroid_x;
			y[i] = meas[i].t.centroid_y;
			use[i] = meas[i].ok && (!domes_only || meas[i].t.fit_quality >= 0.45);
		}
		report(step, x, y, use, n, tr, ax, ay);
	}
	free(x);
	free(y);
	free(use);
}

/* The mean diameter error (%) of the measured domes matched to the true
 * ones inside the scale region (nearest within 0.3 pitch, as report's):
 * h46d's base fits from two starts compared; NAN without truth. */
static double mean_d_err(const fs_measured *meas, size_t n, const sem_truth *tr)
{
	double s = 0;
	size_t k = 0;
	double *x = malloc((n + 1) * sizeof *x), *y = malloc((n + 1) * sizeof *y);
	int *use = malloc((n + 1) * sizeof *use);
	long *of = tr ? malloc((tr->n + 1) * sizeof *of) : NULL;
	if (x && y && use && of) {
		for (size_t i = 0; i < n; i++) {
			x[i] = meas[i].t.centroid_x;
			y[i] = meas[i].t.centroid_y;
			use[i] = meas[i].ok && meas[i].t.fit_quality >= 0.45 && isfinite(meas[i].t.radius_px);
		}
		nearest_of_truth(tr, x, y, use, n, 0.3, of);
		for (size_t t = 0; t < tr->n; t++)
			if (of[t] >= 0) {
				s += 100 * (2 * meas[of[t]].t.radius_px - tr->d[t]) / tr->d[t];
				k++;
			}
	}
	free(x);
	free(y);
	free(use);
	free(of);
	return k ? s / (double)k : NAN;
}

/* Why the common offset moves a dome or not: each dome measured again
 * from its centre plus the offset (fs_det_offset_apply_one's trial), the
 * base rule's fit quality there minus its own (the step keeps a move
 * losing at most 0.1, or 0.35 under detect_offset.c's far-offset gate) and
 * where the trial's centre sits. */
static void tried_report(const fs_meas *m, const fs_det_offset *off, const fs_measured *before, size_t n,
			 double max_r, double smooth, const sem_truth *tr, double ax, double ay)
{
	double *dq = malloc((n ? n : 1) * sizeof *dq);
	fs_measured *t = malloc((n ? n : 1) * sizeof *t);
	size_t k = 0, kept = 0;
	if (dq && t) {
		for (size_t i = 0; i < n; i++) {
			fs_measured q = before[i];
			t[i] = before[i];
			if (!(q.ok && q.t.fit_quality >= 0.45 && isfinite(q.t.radius_px)))
				continue;
			fs_tubercle tried;
			kept += (size_t)fs_det_offset_apply_one(m->img, off, max_r, 1, smooth, &q, &tried);
			dq[k++] = tried.fit_quality - before[i].t.fit_quality;
			t[i].t = tried;
		}
		qsort(dq, k, sizeof *dq, cmp_double);
		if (k)
			printf("  offset's trials: %zu of %zu kept; quality there minus own: median %+.3f, "
			       "quartiles %+.3f / %+.3f\n",
			       kept, k, dq[k / 2], dq[k / 4], dq[3 * k / 4]);
		report_meas("the trials' centres (kept or not)", t, n, 0, tr, ax, ay);
	}
	free(dq);
	free(t);
}

/* h39g: the first part of fs_det_base_fit_apply (unscreened images: the
 * template fit on the measurement image), replayed to read the centres
 * after each of its steps - the template fit from the offset's centres,
 * the axis step's common shift, the per-dome lit-side shift - and what the
 * axis step read (the level and the later steps move no centre). */
static int read_prof(void *ctx, const fs_centre_axis_geom *g, const size_t *sel, size_t ns, const double *xs,
		     const double *ys, double *profs)
{
	const fs_image *img = ctx;
	for (size_t i = 0; i < ns; i++)
		fs_centre_axis_profile(img, xs[sel[i]], ys[sel[i]], g, profs + i * fs_centre_axis_len(g));
	return 0;
}

/* h42m: whether the template fit's own centre is where the shift is
 * made or only where it is not taken out - each planned dome fitted from
 * its nearest TRUE centre (within 0.3 pitch), with the templates built
 * at the offset's centres (the rule's) and with templates built at the
 * true centres (the mean patch then holds no centre error). A fit that
 * stays near zero from the truth but not from the rule's centres is a
 * search that does not go far enough; one that walks off the truth is
 * the template's own bias. */
static void truth_started(const fs_meas *m, const fs_det_offset *off, const fs_det_base_plan *p,
			  const fs_dome_tpl *t, const sem_truth *tr, double ax, double ay)
{
	size_t n = p->n;
	double *tx = malloc(4 * (n + 1) * sizeof *tx), *ty = tx + n + 1, *gx = ty + n + 1, *gy = gx + n + 1;
	int *use = malloc((n + 1) * sizeof *use);
	fs_dome_tpl tt;
	char err[128];
	memset(&tt, 0, sizeof tt);
	if (!tx || !use)
		goto out;
	for (size_t k = 0; k < n; k++) {
		long bi = nearest_point(tr->x, tr->y, NULL, tr->n, p->xs[k], p->ys[k], 0.3 * tr->pitch);
		use[k] = bi >= 0;
		tx[k] = bi >= 0 ? tr->x[bi] : p->xs[k];
		ty[k] = bi >= 0 ? tr->y[bi] : p->ys[k];
	}
	for (int built_true = 0; built_true < 2; built_true++) {
		const fs_dome_tpl *tp = t;
		if (built_true) {
			if (fs_dome_tpl_build(m->img, &off->fit, p->fill0, tx, ty, n, &tt, err, sizeof err))
				goto out;
			tp = &tt;
			/* what the two builds differ in: the components' weights
			 * (yield, slope x, slope y, edge, shadow; the constant last) -
			 * a common shift of the mean patch's centres along the
			 * detector's axis looks to first order like a slope term */
			printf("    mix at the rule's centres:");
			for (int q = 0; q <= t->nmix; q++)
				printf(" %+.4f", t->mixw[q]);
			printf("\n    mix at the TRUE centres:  ");
			for (int q = 0; q <= tt.nmix; q++)
				printf(" %+.4f", tt.mixw[q]);
			printf("\n");
		}
		int *u = malloc((n + 1) * sizeof *u);
		if (!u)
			goto out;
		for (size_t k = 0; k < n; k++) {
			fs_dome_tfit f;
			u[k] = 0;
			gx[k] = tx[k];
			gy[k] = ty[k];
			if (use[k] && fs_dome_tpl_fit(tp, m->img, tx[k], ty[k], &f) == 0 && isfinite(f.radius)) {
				gx[k] = f.x;
				gy[k] = f.y;
				u[k] = 1;
			}
		}
		report(built_true ? "  from the TRUE centres, templates there too" : "  from the TRUE centres (rule's templates)",
		       gx, gy, u, n, tr, ax, ay);
		if (built_true) {
			/* the search itself, given templates made at the truth:
			 * from the rule's own (the offset's) centres */
			for (size_t k = 0; k < n; k++) {
				fs_dome_tfit f;
				u[k] = 0;
				gx[k] = p->xs[k];
				gy[k] = p->ys[k];
				if (fs_dome_tpl_fit(&tt, m->img, p->xs[k], p->ys[k], &f) == 0 && isfinite(f.radius)) {
					gx[k] = f.x;
					gy[k] = f.y;
					u[k] = 1;
				}
			}
			report("  from the rule's centres, templates at the TRUE", gx, gy, u, n, tr, ax, ay);
		}
		free(u);
	}
	/* the formation's detector azimuth set to the scene's (the axis the
	 * centres are read along), the templates built at the rule's centres
	 * and every dome fitted from there: on the tall 4-px domes the first
	 * formation fit reads the detector on the far side (h42m) */
	{
		fs_dome_fit ft = off->fit;
		fs_dome_tpl ta;
		memset(&ta, 0, sizeof ta);
		ft.azimuth = atan2(ay, ax);
		int *u = malloc((n + 1) * sizeof *u);
		if (u && !fs_dome_tpl_build(m->img, &ft, p->fill0, p->xs, p->ys, n, &ta, err, sizeof err)) {
			for (size_t k = 0; k < n; k++) {
				fs_dome_tfit f;
				u[k] = 0;
				gx[k] = p->xs[k];
				gy[k] = p->ys[k];
				if (fs_dome_tpl_fit(&ta, m->img, p->xs[k], p->ys[k], &f) == 0 && isfinite(f.radius)) {
					gx[k] = f.x;
					gy[k] = f.y;
					u[k] = 1;
				}
			}
			report("  rule's centres, the scene's azimuth", gx, gy, u, n, tr, ax, ay);
		}
		fs_dome_tpl_free(&ta);
		free(u);
	}
	/* --scan (h42m): the templates built at the rule's centres moved
	 * together by s along the detector's axis (s = -1.0..+1.0 px), every
	 * dome fitted from its moved centre: whether the fits' mean quality
	 * (R^2) picks the s that brings the centres home - a common shift
	 * solved with the mix, which the rule's build does not do */
	if (g_scan) {
		int *u = malloc((n + 1) * sizeof *u);
		double *sx = malloc(2 * (n + 1) * sizeof *sx), *sy = sx ? sx + n + 1 : NULL;
		for (int j = -10; u && sx && j <= 10; j++) {
			double sh = 0.1 * j;
			fs_dome_tpl ts;
			memset(&ts, 0, sizeof ts);
			for (size_t k = 0; k < n; k++) {
				sx[k] = p->xs[k] + sh * ax;
				sy[k] = p->ys[k] + sh * ay;
			}
			if (fs_dome_tpl_build(m->img, &off->fit, p->fill0, sx, sy, n, &ts, err, sizeof err)) {
				fs_dome_tpl_free(&ts);
				continue;
			}
			double sq = 0;
			size_t nq = 0;
			for (size_t k = 0; k < n; k++) {
				fs_dome_tfit f;
				u[k] = 0;
				gx[k] = sx[k];
				gy[k] = sy[k];
				if (fs_dome_tpl_fit(&ts, m->img, sx[k], sy[k], &f) == 0 && isfinite(f.radius)) {
					gx[k] = f.x;
					gy[k] = f.y;
					u[k] = 1;
					sq += f.quality;
					nq++;
				}
			}
			fs_dome_tpl_free(&ts);
			char lab[80];
			snprintf(lab, sizeof lab, "  scan s %+.1f: mean R^2 %.5f (%zu), fit", sh, nq ? sq / nq : NAN, nq);
			report(lab, gx, gy, u, n, tr, ax, ay);
		}
		free(u);
		free(sx);
	}
	/* the templates made again at the fit's own centres and every dome
	 * fitted again from there, three rounds: whether the build-and-fit
	 * walks a common error home or holds it (a common shift of the mean
	 * patch's centres can be taken up by the components' mix) */
	{
		int *u = malloc((n + 1) * sizeof *u);
		double *cx = malloc(2 * (n + 1) * sizeof *cx), *cy = cx ? cx + n + 1 : NULL;
		if (!u || !cx) {
			free(u);
			free(cx);
			goto out;
		}
		memcpy(cx, p->xs, n * sizeof *cx);
		memcpy(cy, p->ys, n * sizeof *cy);
		for (int round = 1; round <= 3; round++) {
			fs_dome_tpl tr2;
			memset(&tr2, 0, sizeof tr2);
			if (fs_dome_tpl_build(m->img, &off->fit, p->fill0, cx, cy, n, &tr2, err, sizeof err)) {
				fs_dome_tpl_free(&tr2);
				break;
			}
			for (size_t k = 0; k < n; k++) {
				fs_dome_tfit f;
				u[k] = 0;
				if (fs_dome_tpl_fit(&tr2, m->img, cx[k], cy[k], &f) == 0 && isfinite(f.radius)) {
					gx[k] = f.x;
					gy[k] = f.y;
					u[k] = 1;
				} else {
					gx[k] = cx[k];
					gy[k] = cy[k];
				}
			}
			fs_dome_tpl_free(&tr2);
			memcpy(cx, gx, n * sizeof *cx);
			memcpy(cy, gy, n * sizeof *cy);
			char lab[64];
			snprintf(lab, sizeof lab, "  templates rebuilt at the fit's centres, round %d", round);
			report(lab, gx, gy, u, n, tr, ax, ay);
		}
		free(u);
		free(cx);
	}
out:
	fs_dome_tpl_free(&tt);
	free(tx);
	free(use);
}

/* Under a screen (h46d): the template fit on the screen's low-pass from
 * the plan's centres, as fs_det_base_fit_apply's first fit (the centres
 * the screened level is read from where the low-pass leaves the bases
 * resolved): where those centres go and the fitted radii's mean D error
 * (unscaled). */
static void screened_template_fit(const fs_meas *m, const fs_cand_list *c, const fs_det_offset *off,
				  const fs_measured *meas, const sem_truth *tr, double ax, double ay)
{
	fs_det_base_plan p;
	if (!off->fitted || !(off->fit.halftone > 0) || fs_det_base_plan_make(meas, c->n, off, &p))
		return;
	fs_image *lp = NULL;
	fs_dome_tpl t;
	memset(&t, 0, sizeof t);
	char err[128];
	double *fx = malloc(2 * (p.n + 1) * sizeof *fx), *fy = fx ? fx + p.n + 1 : NULL;
	int *use = malloc((p.n + 1) * sizeof *use);
	fs_measured *q = malloc((p.n + 1) * sizeof *q);
	if (!fx || !use || !q || !p.n || fs_det_base_lowpass(m->img, off, &lp, err, sizeof err) || !lp ||
	    fs_dome_tpl_build(lp, &off->fit, p.fill0, p.xs, p.ys, p.n, &t, err, sizeof err))
		goto out;
	for (size_t k = 0; k < p.n; k++) {
		fs_dome_tfit f;
		q[k] = meas[p.idx[k]];
		use[k] = fs_dome_tpl_fit(&t, lp, p.xs[k], p.ys[k], &f) == 0 && isfinite(f.radius);
		fx[k] = use[k] ? f.x : p.xs[k];
		fy[k] = use[k] ? f.y : p.ys[k];
		q[k].ok = use[k];
		q[k].t.centroid_x = fx[k];
		q[k].t.centroid_y = fy[k];
		q[k].t.radius_px = use[k] ? f.radius : NAN;
	}
	printf("  template fit on the low-pass (fill0 %.3f): fitted radii's mean D %+.2f %%\n", p.fill0,
	       mean_d_err(q, p.n, tr));
	report("  its centres", fx, fy, use, p.n, tr, ax, ay);
	/* the screened level's refit (fs_det_base_refit): the formation at
	 * those centres, its fill walked; where its azimuth turned from the
	 * first's, the level's centres move by its offset
	 * (fs_det_base_refit_starts) */
	{
		size_t n2 = 0;
		double *xs = malloc(3 * (p.n + 1) * sizeof *xs), *ys = xs ? xs + p.n + 1 : NULL, *rs = ys ? ys + p.n + 1 : NULL;
		if (xs) {
			for (size_t k = 0; k < p.n; k++)
				if (use[k]) {
					xs[n2] = fx[k];
					ys[n2] = fy[k];
					rs[n2++] = meas[p.idx[k]].t.radius_px;
				}
			fs_dome_fit_opts reading;
			memset(&reading, 0, sizeof reading);
			reading.halftone_given = 1;
			reading.halftone_period = off->fit.halftone;
			fs_det_offset_refit_walk(&reading);
			fs_det_offset o2;
			fs_det_offset_fit(m->img, xs, ys, rs, n2, off->fit.pitch, &reading, &o2);
			int mv = fs_det_base_refit_moves(off, &o2);
			printf("  refit there: offset %+.2f along, applied %d, R^2 %.3f, azimuth %+.0f deg from the first's: "
			       "the level's centres %s\n",
			       o2.dx * ax + o2.dy * ay, o2.applied, o2.quality,
			       (o2.fit.azimuth - off->fit.azimuth) * 180 / M_PI, mv ? "moved by it" : "these");
			for (size_t k = 0; mv && k < p.n; k++) {
				fx[k] += o2.dx;
				fy[k] += o2.dy;
			}
			if (mv)
				report("  the level's centres", fx, fy, use, p.n, tr, ax, ay);
		}
		free(xs);
	}
out:
	fs_dome_tpl_free(&t);
	fs_image_free(lp);
	free(fx);
	free(use);
	free(q);
	fs_det_base_plan_free(&p);
}

static void base_steps(const fs_meas *m, const fs_cand_list *c, const fs_det_offset *off, const fs_measured *meas,
		       const sem_truth *tr, double ax, double ay)
{
	fs_det_base_plan p;
	if (!off->fitted || off->fit.halftone > 0 || fs_det_base_plan_make(meas, c->n, off, &p))
		return;
	double *fr = malloc(3 * (p.n + 1) * sizeof *fr), *fx = fr + p.n + 1, *fy = fx + p.n + 1;
	int *use = malloc((p.n + 1) * sizeof *use);
	fs_dome_tpl t;
	memset(&t, 0, sizeof t);
	int *kind2 = NULL; /* each entry: 1 cut by the frame, 2 a fill's end, 0 sized */
	char err[128];
	if (!fr || !use || !p.n || fs_dome_tpl_build(m->img, &off->fit, p.fill0, p.xs, p.ys, p.n, &t, err, sizeof err))
		goto out;
	size_t cut = 0, nofill = 0;
	int *kind = malloc((p.n + 1) * sizeof *kind); /* 1 cut by the frame, 2 a fill's end */
	if (!kind)
		goto out;
	for (size_t k = 0; k < p.n; k++) {
		fs_dome_tfit f;
		fr[k] = NAN;
		fx[k] = p.xs[k];
		fy[k] = p.ys[k];
		int q = fs_dome_tpl_fit(&t, m->img, p.xs[k], p.ys[k], &f);
		if (q == 0 && isfinite(f.radius)) {
			fr[k] = f.radius;
			fx[k] = f.x;
			fy[k] = f.y;
		}
		cut += q == 1;
		nofill += q == 0 && !isfinite(f.radius);
		kind[k] = q == 1 ? 1 : q == 0 && !isfinite(f.radius) ? 2 : 0;
		use[k] = isfinite(fr[k]);
	}
	/* the domes it leaves unsized keep the offset's centres (p.xs, p.ys):
	 * those whose patch the frame cuts, and those whose best fill is an
	 * end of the templates' range */
	for (size_t k = 0; k < p.n; k++)
		use[k] = !use[k];
	printf("  template fit leaves %zu of %zu unsized: %zu patches cut by the frame, %zu at a fill's end\n",
	       cut + nofill, p.n, cut, nofill);
	report("unsized domes (the offset's centres)", p.xs, p.ys, use, p.n, tr, ax, ay);
	for (size_t k = 0; k < p.n; k++)
		use[k] = kind[k] == 1;
	report("  of which cut by the frame", p.xs, p.ys, use, p.n, tr, ax, ay);
	for (size_t k = 0; k < p.n; k++)
		use[k] = kind[k] == 2;
	report("  of which at a fill's end", p.xs, p.ys, use, p.n, tr, ax, ay);
	kind2 = kind;
	for (size_t k = 0; k < p.n; k++)
		use[k] = isfinite(fr[k]);
	printf("  formation: azimuth %.1f deg, blur %.2f px, pitch %.2f, fill0 %.3f\n", off->fit.azimuth * 180 / M_PI,
	       off->fit.blur_px, off->fit.pitch, p.fill0);
	report("template fit (from the offset's centres)", fx, fy, use, p.n, tr, ax, ay);
	if (tr)
		truth_started(m, off, &p, &t, tr, ax, ay);
	fs_centre_axis a;
	if (fs_det_base_axis_find(&p, off, fr, fx, fy, m->img->width, m->img->height, read_prof, (void *)m->img, &a))
		goto out;
	printf("  axis step: ok %d used %zu shift %+.2f px (win %.2f) residual %.4f end %d reversed %d shadowed %d "
	       "own %d oblique %.0f\n",
	       a.ok, a.used, a.shift, a.win, a.residual, a.end, a.reversed, a.shadowed, a.own, a.oblique);
	if (fs_det_base_axis_calibrate(&p, off, &off->fit, &t, fr, &a))
		goto out;
	/* (h51g: the step's own shift on the formation's lattice, taken off
	 * where FS_TEST_AXIS_CALIB=1 and the gap is tight) */
	printf("  axis step calibrated: calib %+.3f px, shift %+.3f px (r0 %.2f, again %d)\n", a.calib, a.shift, a.r0,
	       a.again);
	if (getenv("AXIS_CALIB_SCAN")) {
		/* the calibration's reading at other fills and radii, with
		 * the formation it renders (h51g's evidence) */
		printf("  formation: fill %.3f h/R %.2f profile %.2f foot %.2f elevation %.1f deg shadow %.3f side %.3f "
		       "edge %.3f\n",
		       off->fit.fill, off->fit.h_over_r, off->fit.profile, off->fit.foot,
		       off->fit.elevation * 180 / M_PI, off->fit.shadow, off->fit.side, off->fit.edge);
		/* AXIS_CALIB_BLUR=PX: the lattice rendered at that blur (the
		 * formation's holds the centres' scatter), read at the step's */
		fs_dome_fit fb = off->fit;
		if (getenv("AXIS_CALIB_BLUR"))
			fb.blur_px = atof(getenv("AXIS_CALIB_BLUR"));
		static const double fills[] = {0.70, 0.75, 0.80, 0.85, 0.90};
		static const double rads[] = {5.4, 6.4, 7.4, 0};
		double rr[4];
		for (int q = 0; q < 4; q++)
			rr[q] = rads[q] > 0 ? rads[q] * off->fit.pitch / 16 : a.r0;
		for (size_t i = 0; i < sizeof fills / sizeof *fills; i++) {
			printf("  calib at fill %.2f:", fills[i]);
			for (size_t j = 0; j < sizeof rads / sizeof *rads; j++) {
				fs_centre_axis_geom g;
				fs_centre_axis cc;
				fs_centre_axis_geom_of(off->fit.azimuth, rr[j], off->fit.blur_px, off->fit.pitch, &g);
				if (fs_centre_axis_calib_read(&t, &fb, fills[i], &g, off->fit.pitch, &cc) == 0)
					printf("  r0 %.1f %+.3f (ok %d res %.4f)", g.r0, cc.shift, cc.ok, cc.residual);
			}
			printf("\n");
		}
	}
	fs_det_base_axis_move(&p, fr, &a, fx, fy);
	report("after the axis step's common shift", fx, fy, use, p.n, tr, ax, ay);
	size_t moved = 0;
	{
		/* (h52b) the per-dome step as the formation's lattice reads
		 * it: centre_perdome_calib.h, at the rule's geometry */
		double *rv = malloc((p.n + 1) * sizeof *rv);
		size_t nr = 0;
		for (size_t k = 0; rv && k < p.n; k++)
			if (isfinite(fr[k]))
				rv[nr++] = fr[k];
		if (rv && nr >= FS_CENTRE_PERDOME_MIN && off->fit.pitch > 0) {
			double r0 = fs_median_upper(rv, nr);
			fs_centre_axis_geom g;
			fs_centre_perdome_geom(off->fit.azimuth, r0, off->fit.blur_px, off->fit.pitch, &g);
			fs_dome_fit fb = off->fit;
			if (isfinite(a.vblur) && a.vblur < fb.blur_px)
				fb.blur_px = a.vblur;
			fs_centre_perdome_cal cal;
			int q = fs_centre_perdome_calib_read(&t, &fb, 2 * r0 / off->fit.pitch, &g, &cal);
			printf("  per-dome calibration: rc %d ok %d gain %+.3f floor %.3f b0 %+.3f (r0 %.2f blur %.2f, "
			       "small %d tight %d)\n",
			       q, cal.ok, cal.gain, cal.floor, cal.b0, r0, fb.blur_px, r0 < 3 * g.sigma,
			       !(2 * (r0 + g.win) + 0.05 * off->fit.pitch < off->fit.pitch));
		}
		free(rv);
	}
	if (fs_det_base_axis_perdome(&p, off, &a, &off->fit, &t, fr, fx, fy, m->img->width, m->img->height, read_prof,
				     (void *)m->img, &moved))
		goto out;
	printf("  per-dome lit-side shift: %zu moved\n", moved);
	report("after the per-dome shift", fx, fy, use, p.n, tr, ax, ay);
	if (fs_det_base_axis_far(&a)) {
		/* the domes left unsized at a fill's end fitted again from
		 * their centres moved by the sized domes' common move, then
		 * moved by the axis step's shift as the sized ones were (h39g
		 * measured it here; the rule since h39h,
		 * fs_det_base_ends_again), beside the common move alone (h39g's
		 * rule) */
		double *v = malloc(2 * (p.n + 1) * sizeof *v), *gx = malloc(2 * (p.n + 1) * sizeof *gx);
		int *u2 = malloc((p.n + 1) * sizeof *u2);
		if (v && gx && u2) {
			size_t nv = 0, tried = 0, sized = 0;
			for (size_t k = 0; k < p.n; k++)
				if (use[k]) {
					v[nv] = fx[k] - p.xs[k];
					v[p.n + 1 + nv++] = fy[k] - p.ys[k];
				}
			double mdx = fs_median_upper(v, nv), mdy = fs_median_upper(v + p.n + 1, nv);
			double *gy = gx + p.n + 1;
			for (size_t k = 0; k < p.n; k++) {
				u2[k] = 0;
				gx[k] = p.xs[k] + mdx;
				gy[k] = p.ys[k] + mdy;
				if (kind2[k] != 2)
					continue;
				u2[k] = 1;
				tried++;
				fs_dome_tfit f;
				if (fs_dome_tpl_fit(&t, m->img, gx[k], gy[k], &f) == 0 && isfinite(f.radius)) {
					gx[k] = f.x + a.dx;
					gy[k] = f.y + a.dy;
					sized++;
				}
			}
			/* (the rule fits them again only where the first fit sized
			 * most of the plan: fs_det_base_ends_again) */
			printf("  fill's-end domes fitted again from the common move: %zu of %zu sized (the rule: %s, %zu of "
			       "%zu sized first)\n",
			       sized, tried, 2 * nv > p.n ? "fitted again" : "common move only", nv, p.n);
			report("  fill's end: fitted again (+ axis shift)", gx, gy, u2, p.n, tr, ax, ay);
			for (size_t k = 0; k < p.n; k++) {
				gx[k] = p.xs[k] + mdx;
				gy[k] = p.ys[k] + mdy;
			}
			report("  fill's end: the common move only (h39g)", gx, gy, u2, p.n, tr, ax, ay);
		}
		free(v);
		free(gx);
		free(u2);
	}
out:
	fs_dome_tpl_free(&t);
	free(kind2);
	free(fr);
	free(use);
	fs_det_base_plan_free(&p);
}

/* fs_det_measure's dome path, step by step (refine: the rule's 0.15 pitch,
 * or 0), at the smoothing `smooth` (full-resolution px). Fills fin[] with
 * the final candidates' measurements (c->n). */
static int replay(const fs_meas *m0, const fs_cand_list *c, double max_r, double smooth, double refine,
		  const sem_truth *tr, double ax, double ay, fs_measured *meas, int verbose)
{
	fs_meas m = *m0;
	m.refine = refine;
	for (size_t i = 0; i < c->n; i++) {
		double sx = (c->items[i].x), sy = (c->items[i].y);
		fs_det_measure_dome_one(m.img, sx, sy, max_r, 1, refine, smooth, NULL, &meas[i]);
	}
	if (verbose)
		report_meas(refine > 0 ? "refined + base circle (+ re-refine)" : "base circle, no refinement", meas,
			    c->n, 1, tr, ax, ay);
	fs_det_drop_flat_ground(meas, c->n, NULL);
	fs_measured *before = verbose ? malloc((c->n ? c->n : 1) * sizeof *before) : NULL;
	if (before)
		memcpy(before, meas, c->n * sizeof *meas);
	fs_det_offset off;
	if (fs_det_offset_correct(&m, c, max_r, smooth, meas, &off)) {
		free(before);
		return -1;
	}
	if (before && off.applied)
		tried_report(&m, &off, before, c->n, max_r, smooth, tr, ax, ay);
	free(before);
	if (verbose) {
		printf("  formation fit: fitted %d, offset (%+.2f, %+.2f) px = %+.2f along, applied %d, moved %zu, "
		       "R^2 %.3f\n",
		       off.fitted, off.dx, off.dy, off.dx * ax + off.dy * ay, off.applied, off.moved, off.quality);
		report_meas("after the common offset", meas, c->n, 1, tr, ax, ay);
	}
	/* the unrefined path under a coarse screen looks for its offset again
	 * (h45d, fs_det_offset_look_again), as fs_det_measure does */
	if (!(refine > 0) && fs_det_offset_coarse_screen(&off)) {
		if (verbose && g_no_look)
			printf("  (the offset not looked for again: --no-look)\n");
		else if (fs_det_offset_look_again(&m, c, max_r, smooth, meas, &off))
			return -1;
		if (verbose && !g_no_look)
			report_meas("after the offset looked for again", meas, c->n, 1, tr, ax, ay);
	}
	if (verbose) {
		base_steps(&m, c, &off, meas, tr, ax, ay);
		screened_template_fit(&m, c, &off, meas, tr, ax, ay);
	}
	fs_det_base_fit bf;
	memset(&bf, 0, sizeof bf);
	if (fs_det_base_fit_apply(&m, c, &off, max_r, NULL, NULL, NULL, meas, &bf))
		return -1;
	if (verbose) {
		printf("  base fit: applied %d, fitted %zu, kept %zu, nostep %zu, level scale %.4f, mean D %+.2f %%\n",
		       bf.applied, bf.fitted, bf.kept, bf.nostep, bf.scale, mean_d_err(meas, c->n, tr));
		report_meas("after the base fit (template, level, axis)", meas, c->n, 1, tr, ax, ay);
	}
	return 0;
}

/* 1 when the replay's domes (meas, n of them) put one within 0.01 px of
 * every one of the rule's centres (res), *same of them; 0 when it keeps
 * no dome or misses one. Why: the rule exports neither its smoothing nor
 * which path it kept, so the replay that gives the rule's own centres
 * tells both. */
static int replay_is_rule(const fs_measured *meas, size_t n, const fs_detect_result *res, size_t *same_out)
{
	size_t same = 0, kept = 0;
	for (size_t i = 0; i < n; i++) {
		if (!meas[i].ok || !(meas[i].t.fit_quality >= 0.45))
			continue;
		kept++;
		for (size_t j = 0; j < res->tubercles.n; j++)
			if (hypot(res->tubercles.items[j].centroid_x - meas[i].t.centroid_x,
				  res->tubercles.items[j].centroid_y - meas[i].t.centroid_y) < 0.01) {
				same++;
				break;
			}
	}
	*same_out = same;
	return kept && same >= res->tubercles.n;
}

static void run(const char *label, const fs_image *img, const sem_truth *tr, double axis_deg)
{
	char err[256];
	double ax = cos(axis_deg * M_PI / 180), ay = sin(axis_deg * M_PI / 180);
	fs_params p;
	fs_params_default(&p);
	fs_lattice lat;
	fs_detect_result res;
	memset(&res, 0, sizeof res);
	fs_image *meas_img = NULL;
	fs_cand_list c = {0};
	fs_measured *meas = NULL;
	printf("%s\n", label);
	if (fs_lattice_estimate(img, &lat, err, sizeof err) || !(lat.pitch_px > 0))
		goto fail;
	/* detect.c's dome path on an image of this size: candidates on the
	 * image reduced by f = pitch / 10 where the pitch is 20 px or more,
	 * at full resolution below (h42m: the pitch-16 corner scenes), as
	 * detect.c votes them (dome_candidates.h) */
	double pitch = lat.pitch_px;
	int f = 1;
	if (dome_candidates(img, &p, pitch, 0, &c, &f, err, sizeof err))
		goto fail;
	/* (the dome rule measures at full resolution whatever the pitch:
	 * detect.c's reduced measurement image is the outline rule's) */
	if (fs_detect_measure_image(img, &p, pitch >= 40 ? 1.0 : 0.5, &meas_img, err, sizeof err))
		goto fail;
	if (!(meas = calloc(c.n ? c.n : 1, sizeof *meas)))
		goto fail;
	double *x = malloc((c.n ? c.n : 1) * sizeof *x), *y = malloc((c.n ? c.n : 1) * sizeof *y);
	if (!x || !y) {
		free(x);
		free(y);
		goto fail;
	}
	for (size_t i = 0; i < c.n; i++) {
		x[i] = c.items[i].x;
		y[i] = c.items[i].y;
	}
	printf("  pitch %.2f px, f %d, %zu candidates\n", pitch, f, c.n);
	report("candidates (template correlation peaks)", x, y, NULL, c.n, tr, ax, ay);
	if (g_centred) {
		double al = mean_along(x, y, c.n, tr, ax, ay);
		for (size_t i = 0; i < c.n; i++) {
			c.items[i].x = x[i] -= al * ax;
			c.items[i].y = y[i] -= al * ay;
		}
		report("candidates centred (oracle)", x, y, NULL, c.n, tr, ax, ay);
	}
	/* the refinement alone, from the candidates (no base circle after) */
	/* (detect.c refines only candidates voted on a reduced image: at
	 * f = 1 its first pass has no refinement, and the "refinement alone"
	 * line shows what it would do) */
	double refine = f > 1 ? 0.15 * pitch : 0, max_r = 0.6 * pitch;
	for (size_t i = 0; i < c.n; i++)
		fs_centre_refine(meas_img, c.items[i].x, c.items[i].y, FS_DOME_R0 * max_r, FS_DOME_R1 * max_r,
				 0.15 * pitch, fs_det_smooth_px[0], &x[i], &y[i]);
	report("refinement alone (smoothing 0)", x, y, NULL, c.n, tr, ax, ay);
	free(x);
	free(y);
	if (fs_detect_domes(img, &p, 0, &res, err, sizeof err))
		goto fail;
	fs_meas m = {.img = meas_img, .f = 1, .width = img->width, .height = img->height, .dome = 1, .src = img,
		     .mp = &p};
	if (g_centred) {
		/* no replay can be the rule from moved candidates: both paths'
		 * steps at the widest smoothing, which the printed scenes take */
		double sm = fs_det_smooth_px[FS_DET_SMOOTH_TRIALS - 1];
		printf("  smoothing %.1f px, from the centred candidates, refined path:\n", sm);
		if (refine > 0 && replay(&m, &c, max_r, sm, refine, tr, ax, ay, meas, 1))
			goto fail;
		printf("  -- the same with the refinement off:\n");
		if (replay(&m, &c, max_r, sm, 0, tr, ax, ay, meas, 1))
			goto fail;
	}
	/* the smoothing the rule chose is not exported: the replay tries each
	 * and says which gives the rule's own centres */
	for (int s = 0; !g_centred && s < FS_DET_SMOOTH_TRIALS; s++) {
		if (replay(&m, &c, max_r, fs_det_smooth_px[s], refine, tr, ax, ay, meas, 0))
			goto fail;
		size_t same;
		if (!replay_is_rule(meas, c.n, &res, &same))
			continue;
		printf("  smoothing %.1f px: replay = rule (%zu of the rule's %zu centres)\n", fs_det_smooth_px[s],
		       same, res.tubercles.n);
		replay(&m, &c, max_r, fs_det_smooth_px[s], refine, tr, ax, ay, meas, 1);
		if (refine > 0) { /* (at f = 1 the replay above had none) */
			printf("  -- the same with the refinement off:\n");
			replay(&m, &c, max_r, fs_det_smooth_px[s], 0, tr, ax, ay, meas, 1);
		}
		break;
	}
	/* h44d's coarse-screen choice (or h43j's refused rule) may have kept
	 * the unrefined path: its replay is then the one that equals the rule
	 * (h45d: where that path's own centres go) */
	for (int s = 0; !g_centred && refine > 0 && s < FS_DET_SMOOTH_TRIALS; s++) {
		if (replay(&m, &c, max_r, fs_det_smooth_px[s], 0, tr, ax, ay, meas, 0))
			goto fail;
		size_t same;
		if (!replay_is_rule(meas, c.n, &res, &same))
			continue;
		printf("  smoothing %.1f px: replay with the refinement off = rule (%zu of the rule's %zu centres)\n",
		       fs_det_smooth_px[s], same, res.tubercles.n);
		replay(&m, &c, max_r, fs_det_smooth_px[s], 0, tr, ax, ay, meas, 1);
		break;
	}
	{
		size_t n = res.tubercles.n;
		double *rx = malloc((n ? n : 1) * sizeof *rx), *ry = malloc((n ? n : 1) * sizeof *ry);
		if (rx && ry) {
			for (size_t i = 0; i < n; i++) {
				rx[i] = res.tubercles.items[i].centroid_x;
				ry[i] = res.tubercles.items[i].centroid_y;
			}
			report("fs_detect_domes' final centres", rx, ry, NULL, n, tr, ax, ay);
		}
		free(rx);
		free(ry);
	}
	goto done;
fail:
	printf("  failed: %s\n", err);
done:
	free(meas);
	fs_cand_free(&c);
	fs_image_free(meas_img);
	fs_detect_result_free(&res);
}

/* o rendered (through the scene cache) and run() on it with the truth,
 * the axis at axis_deg; -1 (said under label) where the simulator
 * refuses it. One place for the three scene modes' render and free. */
static int run_scene(const sem_opts *o, const char *label, double axis_deg)
{
	sem_truth t;
	fs_image *img = sem_make_shared(o, &t);
	if (!img) {
		printf("%s: not rendered\n", label);
		return -1;
	}
	run(label, img, &t, axis_deg);
	sem_truth_free(&t);
	fs_image_free(img);
	return 0;
}

static void one(double h, double fill, double cap, double power, unsigned seed)
{
	sem_opts o;
	char label[160];
	sem_fig4_like(&o, h, fill, 0, cap, power);
	o.seed = seed;
	snprintf(label, sizeof label, "Fig4-like scene, h/R %g fill %g cap %g^%g seed %u", h, fill, cap, power, seed);
	run_scene(&o, label, -65);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--centred")) {
		g_centred = 1;
		argv++;
		argc--;
	}
	for (; argc > 1 && (!strcmp(argv[1], "--scan") || !strcmp(argv[1], "--no-look")); argv++, argc--) {
		if (!strcmp(argv[1], "--scan"))
			g_scan = 1;
		else
			g_no_look = 1;
	}
	if (argc > 2 && !strcmp(argv[1], "--turn")) {
		fs_det_offset_set_turn_check((unsigned)atoi(argv[2]));
		argv += 2;
		argc -= 2;
	}
	if (argc > 2 && !strcmp(argv[1], "--figure")) {
		/* a paper figure (no truth): the formation fit's offset and its
		 * trials' quality only */
		fs_image *img = fixture_image(argv[2]);
		if (!img) {
			printf("%s: cannot be read\n", argv[2]);
			return 1;
		}
		/* h43k: "--figure PATH AXIS DX DY" the figure cropped by DX px
		 * at the left and DY at the top first (bench_detect_domes
		 * --shift's one-pixel crops), to see which step's centres
		 * differ between a figure and its crops */
		if (argc > 5) {
			int dx = atoi(argv[4]), dy = atoi(argv[5]);
			char err[128];
			fs_rect r = {dx, dy, img->width - dx, img->height - dy};
			fs_image *c = fs_image_crop(img, r, NULL, err, sizeof err);
			fs_image_free(img);
			if (!c) {
				printf("crop failed: %s\n", err);
				return 1;
			}
			img = c;
			printf("(cropped by %d px at the left, %d at the top)\n", dx, dy);
		}
		run(argv[2], img, NULL, argc > 3 ? atof(argv[3]) : -65);
		fs_image_free(img);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--fig1c")) {
		/* h38s: P2 Fig1c's formation (sem_fig1c_like, h/R 0.25 unless
		 * hr= says otherwise) with sem_opts_keys.h's KEY=VALUE changes;
		 * the axis is the scene's detector azimuth */
		sem_opts o;
		sem_fig1c_like(&o, 0.25);
		for (int a = 2; a < argc; a++)
			if (sem_opts_set_key(&o, argv[a])) {
				printf("unknown key %s\n", argv[a]);
				return 2;
			}
		char label[160];
		snprintf(label, sizeof label, "Fig1c-like scene, h/R %g shadow %g blur %g seed %u", o.h_over_r, o.shadow,
			 o.beam_blur, o.seed);
		return run_scene(&o, label, o.det_azimuth * 180 / M_PI) ? 1 : 0;
	}
	if (argc > 2 && (!strcmp(argv[1], "--interior") || !strcmp(argv[1], "--corner"))) {
		/* h39g: an interior scene of test_sem_accuracy (sem_interior_scene)
		 * on a seed set moved by SEED_ADD, as bench_interior_seeds renders
		 * it; the axis is the scene's detector azimuth */
		sem_opts o;
		int i = atoi(argv[2]), corner = !strcmp(argv[1], "--corner");
		if (i < 0 || i >= (corner ? 64 : SEM_INTERIOR_SCENES)) {
			printf("no such scene %d\n", i);
			return 2;
		}
		if (corner)
			sem_corner_scene(i, &o);
		else
			sem_interior_scene(i, &o);
		o.seed += argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 0;
		/* h43j: KEY=VALUE after the seed set (sem_opts_keys.h), e.g.
		 * halftone=5: the interior scenes printed, which the matrix
		 * never prints (h43d) */
		for (int a = 4; a < argc; a++)
			if (sem_opts_set_key(&o, argv[a])) {
				printf("unknown key %s\n", argv[a]);
				return 2;
			}
		char label[160];
		snprintf(label, sizeof label, "%s scene %d, seed %u (fill %g, h/R %g, pitch %g, azimuth %.0f, screen %g)",
			 corner ? "corner" : "interior", i,
			 o.seed, o.fill, o.h_over_r, o.pitch, o.det_azimuth * 180 / M_PI, o.halftone);
		return run_scene(&o, label, o.det_azimuth * 180 / M_PI) ? 1 : 0;
	}
	if (argc > 5 && !strcmp(argv[1], "--scene")) {
		one(atof(argv[2]), atof(argv[3]), atof(argv[4]), atof(argv[5]), argc > 6 ? (unsigned)atoi(argv[6]) : 1);
		return 0;
	}
	for (unsigned s = 1; s <= 3; s++) {
		one(0.3, 0.84, 0.15, 2, s);
		one(0.35, 0.84, 0.2, 2, s);
		one(0.35, 0.84, 0, 2, s);
	}
	return 0;
}
