/*
 * bench_sem_split.c - the corner scenes' mean S error split into what the
 * centres' distances and what the sizes make of it (issue 13 section 2).
 *
 * Why (docs/paper-figures.md, section h37e): the mean edge-to-edge space
 * of a neighbour pair is its centres' distance less the two radii, so a
 * scene's S error is the centres' distance error less the radii's error.
 * test_sem_accuracy prints only the sum, and a failing S could be blamed
 * on either; this prints both parts, in % of the true mean space, with
 * the matched centres' common error along and across the detector's axis
 * (% of the pitch) and, with --true, the mean D error the dome rule's
 * sizing reads from the TRUE centres (Re-measure, fs_measure_centres_rule:
 * under a halftone screen that is not detection's own last step, which
 * keeps its first pass's sizes). At fill 0.8 the space is a quarter of
 * D, so S within 3 % needs D within 0.75 %.
 *
 * --level (h37m): under a halftone screen, where the rule's level is read
 * on the image low-passed by FS_HALFTONE_LOWPASS x the period
 * (fs_det_base_level_screened), the mean D % that reading gives from the
 * TRUE centres, with the ridge model (Lridge: the rule's reader,
 * fs_det_base_level_lowpassed) and without (Lplain): what --true cannot
 * show there. The screen's true period, and the rule's window 2 x the
 * candidate's radius taken as 0.75 D (what scene 43's candidates gave).
 *
 * Usage: bench_sem_split [--outline] [--seed-add N] [--true] [--own] [--no-shadow]
 * [--level] [SCENE...] (default every corner scene 0-63; iN is interior
 * scene N, sem_interior_scene, h39g; --seed-add 4000 gives the
 * held-out seeds of HELPERS.md; SEM_SCENE_CACHE shares the renders).
 * --set KEY=VALUE (h40s, repeatable; sem_opts_keys.h's keys, checked
 * before any scene) sets a simulator option on every scene after its
 * seed - e.g. --set beam_continuous=1, the beam blurred before the
 * pixel's box; the last line counts the corner table's columns (D, S,
 * D SD, recall-precision, all four: test_sem_accuracy's) over the scenes.
 * --no-shadow renders the same scene, seed and all, with the simulator's
 * cast shadow switched off (sem_opts.shadow 0): what a rule's error owes
 * to the shadow is the difference of the two rows (h37e section 4, h37l).
 * --phase (h38d): under a halftone screen, where the counted domes' true
 * centres fall in the screen's cells: the mean phasor of the screen's two
 * cosines (along x + y and x - y) over them (|M|: 0 when the centres
 * sample every phase alike, 1 when they all sit at one; arg M in
 * degrees), and the per-dome D error binned by the centre's two phases
 * (4 x 4 bins of 90 degrees). A scene's mean D is the mean of a per-dome
 * error over the phases its lattice visits; the two together say how
 * much of a scene's error is the screen's beat with the lattice.
 * --screen-shift DX DY (h38d): the same surface under the same screen
 * moved by (-DX, -DY) pixels (the unscreened render placed at (DX, DY) in
 * a larger frame, screened there and cropped back, then the scan blur),
 * so a scene's error can be read against the screen's phase alone;
 * 0 0 is the scene as rendered, to the bit (--shift-check takes that
 * path at no shift, to show it).
 * --turn PASSES (h46a): the rule's formation fitted with h45m's turn check
 * (fs_det_offset_set_turn_check: 1 detection's first pass, 2 its last
 * step and Re-measure, 3 both); what the half-turned detector's
 * correction moves, scene by scene (the rows beside a run without it).
 * --first (h38d): the reader of the level where the screen's low-pass
 * merges the bases (pitch 16: the base rule's first reading,
 * fs_det_measure_dome_one on the measurement image, with each of the ray
 * smoothings the rule may pick), from the TRUE centres moved by
 * -0.6..+0.6 px along the detector's axis: the mean D % it gives, i.e. how
 * much a common error of the centres it starts from (the formation's
 * offset, found on a grid of 0.0125 pitch) moves a scene's mean D; and
 * the same read again from its own circle's centre (three times), to see
 * whether a reading that re-centres itself forgets its start.
 * --notch W (h38d): the first reading from the TRUE centres, each
 * smoothing, on the screened image, on it with the screen's carriers and
 * their harmonics notched out (Gaussian notches of W cycles per px), on
 * it low-passed as the rule does (FS_HALFTONE_LOWPASS x the period) and
 * on the same surface without a screen: whether a notch gives back the
 * clean image's reading. --notch-detect W: the whole detection run on
 * the notched image instead (with what fs_halftone_detect finds before
 * and after): the screen removed before the rule ever sees it.
 * --offset-track (h39b): the formation fit's common offset as detection
 * fits it (fs_det_offset_fit on detection's measurement image, as
 * --first; the fill held at the TRUE median radius, where the rule holds
 * it at its own readings') from the TRUE centres moved along the
 * detector's axis by 0, 1/4, ..., 2 steps of the fit's fine grid
 * (0.0125 pitch): per move, the move plus the offset along the axis
 * (and across), px. A fit that follows a common move of the centres
 * prints one value; the fit on its grid prints a saw-tooth of up to half
 * a step, and a residual with several minima prints jumps between them.
 * Prints one row per scene, asserts nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/detect_base_fit.h"
#include "analysis/detect_offset.h"
#include "analysis/detect_methods.h"
#include "analysis/dome_measure.h"
#include "analysis/fft.h"
#include "analysis/halftone.h"
#include "analysis/preprocess.h"
#include "analysis/measurement.h"
#include "base/sorting.h"
#include "sem_cache.h"
#include "sem_opts_keys.h"
#include "sem_scene.h"
#include "sem_score.h"

/* What the split needs beyond sem_score: sums over the pairs sem_score
 * counts in its S (both ends matched, counted and measured). */
typedef struct split {
	double space, dist_true, dist_found, radii_true, radii_found;
	size_t pairs;
	double along, across; /* matched counted centres' mean error, px */
	size_t centres;
} split;

static void split_scene(const sem_truth *t, const fs_tubercle_list *l, double det_az, const int *mtru, split *s)
{
	memset(s, 0, sizeof *s);
	for (size_t q = 0; q < t->n_pairs; q++) {
		if (!sem_pair_scored(t, l, mtru, q))
			continue;
		int a = t->pi[q], b = t->pj[q];
		const fs_tubercle *A = &l->items[mtru[a]], *B = &l->items[mtru[b]];
		s->space += t->space[q];
		s->dist_true += hypot(t->x[a] - t->x[b], t->y[a] - t->y[b]);
		s->dist_found += hypot(A->centroid_x - B->centroid_x, A->centroid_y - B->centroid_y);
		s->radii_true += 0.5 * (t->d[a] + t->d[b]);
		s->radii_found += A->radius_px + B->radius_px;
		s->pairs++;
	}
	double ca = cos(det_az), sa = sin(det_az);
	for (size_t j = 0; j < t->n; j++) {
		if (mtru[j] < 0 || !sem_counted(t, t->x[j], t->y[j]))
			continue;
		double ex = l->items[mtru[j]].centroid_x - t->x[j], ey = l->items[mtru[j]].centroid_y - t->y[j];
		s->along += ex * ca + ey * sa;
		s->across += -ex * sa + ey * ca;
		s->centres++;
	}
	if (s->centres) {
		s->along /= (double)s->centres;
		s->across /= (double)s->centres;
	}
}

/* Mean D error (%) against the truth t of the dome rule's sizes read at
 * l's centres (Re-measure with the default parameters; l takes them);
 * NAN when it cannot. */
static double d_at_centres(const fs_image *img, const sem_truth *t, fs_tubercle_list *l)
{
	fs_params p;
	fs_params_default(&p);
	char err[256];
	double sd = 0, st = 0;
	size_t n = 0;
	if (!fs_measure_centres_rule(img, &p, 0, FS_RULE_DOME, l, err, sizeof err) &&
	    !sem_matched_diameters(t, l, &sd, &st, &n) && n && st > 0)
		return 100 * (sd - st) / st;
	return NAN;
}

/* Mean D error (%) the dome rule reads from the true centres inside the
 * scale region; NAN when it cannot. */
static double d_from_truth(const fs_image *img, const sem_truth *t)
{
	fs_tubercle_list l;
	memset(&l, 0, sizeof l);
	double out = NAN;
	if (!sem_inside_centres(t, &l))
		out = d_at_centres(img, t, &l);
	fs_tubercle_list_free(&l);
	return out;
}

/* --own (h40g): the mean D error (%) Re-measure reads from the centres
 * xs, ys (n of them): the rule's own final centres, or those moved. Where
 * Dtrue is stable over seeds and the rule's D is not (corner 39: -0.6 to
 * -0.8 against -0.6 to -1.6 %), this says whether the centres or
 * detection's own path make the difference. NAN when it cannot. */
static double d_from_centres(const fs_image *img, const sem_truth *t, const double *xs, const double *ys, size_t n,
			     fs_tubercle_list *keep)
{
	fs_tubercle_list l;
	memset(&l, 0, sizeof l);
	double out = NAN;
	for (size_t i = 0; i < n; i++) {
		fs_tubercle x;
		fs_tubercle_init(&x);
		x.id = (int)l.n + 1;
		x.centroid_x = xs[i];
		x.centroid_y = ys[i];
		x.source = FS_SOURCE_MANUAL;
		if (fs_tubercle_list_append(&l, &x))
			goto done;
	}
	out = d_at_centres(img, t, &l);
done:
	if (keep)
		*keep = l;
	else
		fs_tubercle_list_free(&l);
	return out;
}

/* The per-dome part of --own: each counted dome's diameter read from the
 * rule's centre (a) less the one read from its true centre (b), in % of
 * its true D, against that centre's error along and across the detector's
 * axis (px): the mean, its SD, and the least-squares slopes (% per px) and
 * the mean over the domes whose error lies below and above the median
 * |error|. Whether the scatter moves D through each dome's own reading
 * (a slope) or through something all domes share (a common move). */
static void per_dome(const sem_truth *t, const fs_tubercle_list *a, const fs_tubercle_list *b, double det_az)
{
	int *ma = malloc((a->n + 1) * sizeof *ma), *mb = malloc((b->n + 1) * sizeof *mb);
	double *dd = malloc((t->n + 1) * sizeof *dd), *ea = malloc((t->n + 1) * sizeof *ea),
	       *ec = malloc((t->n + 1) * sizeof *ec);
	if (!ma || !mb || !dd || !ea || !ec || sem_match_tubercles(t, a, ma, NULL) || sem_match_tubercles(t, b, mb, NULL))
		goto out;
	int *ta = malloc((t->n + 1) * sizeof *ta), *tb = malloc((t->n + 1) * sizeof *tb);
	if (!ta || !tb) {
		free(ta);
		free(tb);
		goto out;
	}
	for (size_t j = 0; j < t->n; j++)
		ta[j] = tb[j] = -1;
	for (size_t i = 0; i < a->n; i++)
		if (ma[i] >= 0)
			ta[ma[i]] = (int)i;
	for (size_t i = 0; i < b->n; i++)
		if (mb[i] >= 0)
			tb[mb[i]] = (int)i;
	double ca = cos(det_az), sa = sin(det_az);
	size_t n = 0;
	for (size_t j = 0; j < t->n; j++) {
		if (ta[j] < 0 || tb[j] < 0 || !sem_counted(t, t->x[j], t->y[j]))
			continue;
		const fs_tubercle *A = &a->items[ta[j]], *B = &b->items[tb[j]];
		if (!fs_tubercle_measured(A) || !fs_tubercle_measured(B))
			continue;
		double ex = A->centroid_x - t->x[j], ey = A->centroid_y - t->y[j];
		dd[n] = 100 * 2 * (A->radius_px - B->radius_px) / t->d[j];
		ea[n] = ex * ca + ey * sa;
		ec[n] = -ex * sa + ey * ca;
		n++;
	}
	free(ta);
	free(tb);
	if (n < 3)
		goto out;
	double m = 0, v = 0, sa2 = 0, sc2 = 0, sac = 0, sad = 0, scd = 0, ma_ = 0, mc_ = 0;
	for (size_t i = 0; i < n; i++) {
		m += dd[i];
		ma_ += ea[i];
		mc_ += ec[i];
	}
	m /= (double)n;
	ma_ /= (double)n;
	mc_ /= (double)n;
	for (size_t i = 0; i < n; i++) {
		double d = dd[i] - m, x = ea[i] - ma_, y = ec[i] - mc_;
		v += d * d;
		sa2 += x * x;
		sc2 += y * y;
		sac += x * y;
		sad += x * d;
		scd += y * d;
	}
	double det = sa2 * sc2 - sac * sac;
	double ka = det > 0 ? (sad * sc2 - scd * sac) / det : NAN, kc = det > 0 ? (scd * sa2 - sad * sac) / det : NAN;
	/* below / above the median |error| */
	double *mag = malloc(n * sizeof *mag);
	double lo = NAN, hi = NAN;
	if (mag) {
		for (size_t i = 0; i < n; i++)
			mag[i] = hypot(ea[i] - ma_, ec[i] - mc_);
		double med = fs_median_double(mag, n);
		double sl = 0, sh = 0;
		size_t nl = 0, nh = 0;
		for (size_t i = 0; i < n; i++) {
			if (hypot(ea[i] - ma_, ec[i] - mc_) <= med) {
				sl += dd[i];
				nl++;
			} else {
				sh += dd[i];
				nh++;
			}
		}
		lo = nl ? sl / (double)nl : NAN;
		hi = nh ? sh / (double)nh : NAN;
		free(mag);
	}
	printf("      per dome (own - true centre, %% of D; %zu domes): mean %+.2f SD %.2f; slope along %+.2f across "
	       "%+.2f %%/px; scatter RMS along %.3f across %.3f px; small-error half %+.2f, large-error half %+.2f\n",
	       n, m, sqrt(v / (double)(n - 1)), ka, kc, sqrt(sa2 / (double)n), sqrt(sc2 / (double)n), lo, hi);
out:
	free(ma);
	free(mb);
	free(dd);
	free(ea);
	free(ec);
}

/* --own: Re-measure from the rule's centres (Down, detection's own D when
 * Re-measure of a fresh extraction is the identity), from them with
 * their common error (over the matched counted centres) taken off
 * (Dnocom), and from the TRUE centres moved by that common error (Dcom):
 * Dtrue -> Dcom is the common error's part, Dcom -> Down the per-dome
 * scatter's. */
static void print_own(const fs_image *img, const sem_truth *t, const fs_tubercle_list *l, const int *mtru,
		      double det_az)
{
	double ox = 0, oy = 0;
	size_t m = 0;
	for (size_t j = 0; j < t->n; j++) {
		if (mtru[j] < 0 || !sem_counted(t, t->x[j], t->y[j]))
			continue;
		ox += l->items[mtru[j]].centroid_x - t->x[j];
		oy += l->items[mtru[j]].centroid_y - t->y[j];
		m++;
	}
	if (m) {
		ox /= (double)m;
		oy /= (double)m;
	}
	size_t n = l->n > t->n ? l->n : t->n;
	double *xs = malloc((n + 1) * sizeof *xs), *ys = malloc((n + 1) * sizeof *ys);
	if (!xs || !ys) {
		free(xs);
		free(ys);
		return;
	}
	for (size_t i = 0; i < l->n; i++) {
		xs[i] = l->items[i].centroid_x;
		ys[i] = l->items[i].centroid_y;
	}
	fs_tubercle_list own_l, true_l;
	memset(&own_l, 0, sizeof own_l);
	memset(&true_l, 0, sizeof true_l);
	double own = d_from_centres(img, t, xs, ys, l->n, &own_l);
	for (size_t i = 0; i < l->n; i++) {
		xs[i] -= ox;
		ys[i] -= oy;
	}
	double nocom = d_from_centres(img, t, xs, ys, l->n, NULL);
	size_t k = 0;
	for (size_t j = 0; j < t->n; j++) {
		if (!t->inside[j])
			continue;
		xs[k] = t->x[j] + ox;
		ys[k] = t->y[j] + oy;
		k++;
	}
	double com = d_from_centres(img, t, xs, ys, k, NULL);
	printf("      own: Down %6.2f Dnocom %6.2f Dcom %6.2f (common error %+.3f, %+.3f px)\n", own, nocom, com, ox, oy);
	k = 0;
	for (size_t j = 0; j < t->n; j++)
		if (t->inside[j]) {
			xs[k] = t->x[j];
			ys[k] = t->y[j];
			k++;
		}
	d_from_centres(img, t, xs, ys, k, &true_l);
	per_dome(t, &own_l, &true_l, det_az);
	fs_tubercle_list_free(&own_l);
	fs_tubercle_list_free(&true_l);
	free(xs);
	free(ys);
}

/* --level: the screened level's mean D % from the true centres inside the
 * scale region, with the ridge model or without; NAN without a screen */
static void level_from_truth(const fs_image *img, const sem_truth *t, double period, double *ridge, double *plain)
{
	*ridge = *plain = NAN;
	if (!(period > 0))
		return;
	char err[128];
	fs_image *lp = fs_gaussian_blurred(img, FS_HALFTONE_LOWPASS * period, err, sizeof err);
	if (!lp)
		return;
	double sr = 0, sp = 0, tr = 0, tp = 0;
	for (size_t j = 0; j < t->n; j++) {
		if (!sem_counted(t, t->x[j], t->y[j]))
			continue;
		int er, ep;
		double r = fs_det_base_level_lowpassed(lp, t->x[j], t->y[j], 0.75 * t->d[j], 1, &er);
		double q = fs_det_base_level_one(lp, t->x[j], t->y[j], 0.75 * t->d[j], 1, &ep);
		/* (a reading pinned at its window's end is none, as in the rule) */
		if (isfinite(r) && !er) {
			sr += 2 * r;
			tr += t->d[j];
		}
		if (isfinite(q) && !ep) {
			sp += 2 * q;
			tp += t->d[j];
		}
	}
	if (tr > 0)
		*ridge = 100 * (sr - tr) / tr;
	if (tp > 0)
		*plain = 100 * (sp - tp) / tp;
	fs_image_free(lp);
}

/* The screen's phase (radians, 0..2 pi) of its cosine along x + y (which
 * 0) or x - y (1) at the point (x, y) of a screen moved by (-dx, -dy):
 * sem_sim.c's screen_spot at the pixel's centre sub-sample. */
static double screen_phase(double x, double y, double P, int dx, int dy, int which)
{
	double px = x + dx, py = y + dy;
	double u = (which ? px - py : px + py) / M_SQRT2;
	double ph = fmod(2 * M_PI * u / P, 2 * M_PI);
	return ph < 0 ? ph + 2 * M_PI : ph;
}

/* --phase: the counted domes' screen phasors and their D error binned by
 * the two phases of their true centres (see the head comment) */
static void print_phase(const sem_truth *t, const fs_tubercle_list *l, const int *mtru, double P, int dx, int dy)
{
	double cu = 0, su = 0, cw = 0, sw = 0, err[4][4], tru[4][4];
	size_t n = 0, cnt[4][4];
	memset(err, 0, sizeof err);
	memset(tru, 0, sizeof tru);
	memset(cnt, 0, sizeof cnt);
	for (size_t j = 0; j < t->n; j++) {
		if (mtru[j] < 0 || !sem_counted(t, t->x[j], t->y[j]))
			continue;
		double pu = screen_phase(t->x[j], t->y[j], P, dx, dy, 0), pw = screen_phase(t->x[j], t->y[j], P, dx, dy, 1);
		cu += cos(pu);
		su += sin(pu);
		cw += cos(pw);
		sw += sin(pw);
		n++;
		int bu = (int)(pu / (M_PI / 2)) & 3, bw = (int)(pw / (M_PI / 2)) & 3;
		err[bu][bw] += 2 * l->items[mtru[j]].radius_px - t->d[j];
		tru[bu][bw] += t->d[j];
		cnt[bu][bw]++;
	}
	if (!n)
		return;
	printf("      phase |Mu| %.3f arg %4.0f  |Mw| %.3f arg %4.0f  (n %zu)\n", hypot(cu, su) / n,
	       atan2(su, cu) * 180 / M_PI, hypot(cw, sw) / n, atan2(sw, cw) * 180 / M_PI, n);
	for (int a = 0; a < 4; a++) {
		printf("      u %3d-%3d:", 90 * a, 90 * a + 90);
		for (int b = 0; b < 4; b++) {
			if (cnt[a][b])
				printf(" %6.2f(%3zu)", 100 * err[a][b] / tru[a][b], cnt[a][b]);
			else
				printf(" %6s(%3d)", "-", 0);
		}
		printf("\n");
	}
}

/* --screen-shift: the scene rendered without its screen, then screened
 * moved by (-dx, -dy) and scan-blurred as sem_make would (sem_screen's
 * bits for 0, 0). NULL on failure. */
static fs_image *shifted_screen(const sem_opts *so, sem_truth *t, int dx, int dy)
{
	sem_opts o = *so;
	o.halftone = 0;
	fs_image *raw = sem_make_shared(&o, t);
	if (!raw)
		return NULL;
	int W = raw->width, H = raw->height;
	fs_image *big = fs_image_new(W + dx, H + dy);
	fs_image *out = fs_image_new(W, H);
	char err[128];
	int ok = big && out;
	for (int y = 0; ok && y < H; y++)
		memcpy(big->data + (size_t)(y + dy) * (W + dx) + dx, raw->data + (size_t)y * W, (size_t)W * sizeof *raw->data);
	/* (the screen is per pixel: the frame's empty margin touches nothing
	 * inside; the blur comes after the crop, as sem_screen's after the
	 * screen) */
	ok = ok && !sem_screen(big, so->halftone, 0);
	for (int y = 0; ok && y < H; y++)
		memcpy(out->data + (size_t)y * W, big->data + (size_t)(y + dy) * (W + dx) + dx, (size_t)W * sizeof *out->data);
	ok = ok && !(so->scan_blur > 0 && fs_gaussian_blur(out, so->scan_blur, err, sizeof err));
	fs_image_free(raw);
	fs_image_free(big);
	if (!ok) {
		fs_image_free(out);
		sem_truth_free(t);
		return NULL;
	}
	return out;
}

/* --first: the rays' reach of detection's candidates (max_r, px) on the
 * simulator's pitch-16 scenes: 0.59-0.61 pitch (scenes 9, 15, 27) */
#define FIRST_REACH 0.6

static void print_first(const fs_image *img, const sem_truth *t, double det_az)
{
	fs_params p;
	fs_params_default(&p);
	fs_image *meas = NULL;
	char err[128];
	/* detection's measurement image for the dome rule (detect.c) */
	if (fs_detect_measure_image(img, &p, t->pitch >= 40 ? 1.0 : 0.5, &meas, err, sizeof err))
		return;
	for (int k = 0; k < 2 * FS_DET_SMOOTH_TRIALS; k++) {
		int again = k >= FS_DET_SMOOTH_TRIALS;
		double sm = fs_det_smooth_px[k % FS_DET_SMOOTH_TRIALS];
		printf("      first%s, smooth %.1f, along the detector (px):", again ? " re-read from its centre" : "", sm);
		for (int s = -3; s <= 3; s++) {
			double dl = 0.2 * s, sd = 0, st = 0;
			for (size_t j = 0; j < t->n; j++) {
				if (!sem_counted(t, t->x[j], t->y[j]))
					continue;
				fs_measured r;
				fs_measured_clear(&r, 1);
				fs_det_measure_dome_one(meas, t->x[j] + dl * cos(det_az), t->y[j] + dl * sin(det_az),
							FIRST_REACH * t->pitch, 1, 0, sm, NULL, &r);
				for (int it = 0; again && r.ok && it < 3; it++) {
					double cx = r.t.centroid_x, cy = r.t.centroid_y;
					fs_measured_clear(&r, 1);
					fs_det_measure_dome_one(meas, cx, cy, FIRST_REACH * t->pitch, 1, 0, sm, NULL, &r);
				}
				if (!r.ok || !isfinite(r.t.radius_px))
					continue;
				sd += 2 * r.t.radius_px;
				st += t->d[j];
			}
			printf(" %+.1f:%+6.2f", dl, st > 0 ? 100 * (sd - st) / st : NAN);
		}
		printf("\n");
	}
	fs_image_free(meas);
}

/* --offset-track: see the head of the file. */
static void print_offset_track(const fs_image *img, const sem_truth *t, double det_az)
{
	fs_params p;
	fs_params_default(&p);
	fs_image *meas = NULL;
	char err[128];
	if (fs_detect_measure_image(img, &p, t->pitch >= 40 ? 1.0 : 0.5, &meas, err, sizeof err))
		return;
	double *xs = malloc(t->n * sizeof *xs), *ys = malloc(t->n * sizeof *ys), *rs = malloc(t->n * sizeof *rs);
	double ca = cos(det_az), sa = sin(det_az), st = 0.0125 * t->pitch;
	printf("      offset track, move + offset along / across the detector (px), moves 0..%.2f px in %.3f:", 2 * st,
	       st / 4);
	for (int k = 0; xs && ys && rs && k <= 8; k++) {
		double m = k * st / 4;
		for (size_t j = 0; j < t->n; j++) {
			xs[j] = t->x[j] + m * ca;
			ys[j] = t->y[j] + m * sa;
			rs[j] = 0.5 * t->d[j];
		}
		fs_det_offset info;
		fs_det_offset_fit(meas, xs, ys, rs, t->n, t->pitch, NULL, &info);
		if (!info.fitted) {
			printf(" (not fitted)");
			continue;
		}
		printf(" %+.3f/%+.3f", info.dx * ca + info.dy * sa + m, -info.dx * sa + info.dy * ca);
	}
	printf("\n");
	free(xs);
	free(ys);
	free(rs);
	fs_image_free(meas);
}

/* --notch W: the mean D % of the first reading (as --first, from the
 * TRUE centres, each smoothing) on the measurement image made from img,
 * NAN when nothing was read */
static double first_at_truth(const fs_image *img, const sem_truth *t, double sm)
{
	fs_params p;
	fs_params_default(&p);
	fs_image *meas = NULL;
	char err[128];
	if (fs_detect_measure_image(img, &p, t->pitch >= 40 ? 1.0 : 0.5, &meas, err, sizeof err))
		return NAN;
	double sd = 0, st = 0;
	for (size_t j = 0; j < t->n; j++) {
		if (!sem_counted(t, t->x[j], t->y[j]))
			continue;
		fs_measured r;
		fs_measured_clear(&r, 1);
		fs_det_measure_dome_one(meas, t->x[j], t->y[j], FIRST_REACH * t->pitch, 1, 0, sm, NULL, &r);
		if (!r.ok || !isfinite(r.t.radius_px))
			continue;
		sd += 2 * r.t.radius_px;
		st += t->d[j];
	}
	fs_image_free(meas);
	return st > 0 ? 100 * (sd - st) / st : NAN;
}

static size_t pow2_at_least(size_t n)
{
	size_t m = 1;
	while (m < n)
		m *= 2;
	return m;
}

/* --notch W: img with a 45-degree screen of period P notched out: every
 * frequency m a + n b (a, b the screen's two carriers, |m|, |n| <= 3, not
 * both 0; the thresholded dots have harmonics, folded back beyond the
 * Nyquist frequency) multiplied by 1 - exp(-d^2 / 2 W^2), d the distance
 * in cycles per px. The image mirrored into a power-of-two frame for the
 * transform. New image, NULL on out of memory. */
static fs_image *notched(const fs_image *img, double P, double wid)
{
	size_t W = (size_t)img->width, H = (size_t)img->height, W2 = pow2_at_least(2 * W), H2 = pow2_at_least(2 * H);
	float *re = calloc(W2 * H2, sizeof *re), *im = calloc(W2 * H2, sizeof *im);
	fs_image *out = fs_image_new(img->width, img->height);
	if (!re || !im || !out) {
		free(re);
		free(im);
		fs_image_free(out);
		return NULL;
	}
	double mean = 0;
	for (size_t i = 0; i < W * H; i++)
		mean += img->data[i];
	mean /= (double)(W * H);
	/* mirrored: no step at the frame's edges for the notch to ring on */
	for (size_t y = 0; y < H2; y++)
		for (size_t x = 0; x < W2; x++) {
			size_t sx = x % (2 * W), sy = y % (2 * H);
			sx = sx < W ? sx : 2 * W - 1 - sx;
			sy = sy < H ? sy : 2 * H - 1 - sy;
			re[y * W2 + x] = (float)(img->data[sy * W + sx] - mean);
		}
	fs_fft2d(re, im, W2, H2, 0);
	double c = 1 / (M_SQRT2 * P);
	for (size_t ky = 0; ky < H2; ky++)
		for (size_t kx = 0; kx < W2; kx++) {
			double fx = (double)(kx < W2 / 2 ? (long)kx : (long)kx - (long)W2) / W2;
			double fy = (double)(ky < H2 / 2 ? (long)ky : (long)ky - (long)H2) / H2, g = 1;
			for (int m = -3; m <= 3; m++)
				for (int n = -3; n <= 3; n++) {
					if (!m && !n)
						continue;
					double cx = (m + n) * c, cy = (m - n) * c;
					cx -= floor(cx + 0.5);
					cy -= floor(cy + 0.5);
					double dx = fx - cx, dy = fy - cy;
					dx -= floor(dx + 0.5);
					dy -= floor(dy + 0.5);
					g *= 1 - exp(-(dx * dx + dy * dy) / (2 * wid * wid));
				}
			re[ky * W2 + kx] *= (float)g;
			im[ky * W2 + kx] *= (float)g;
		}
	fs_fft2d(re, im, W2, H2, 1);
	for (size_t y = 0; y < H; y++)
		for (size_t x = 0; x < W; x++) {
			double v = re[y * W2 + x] / ((double)W2 * H2) + mean;
			out->data[y * W + x] = (float)fmin(1, fmax(0, v));
		}
	free(re);
	free(im);
	return out;
}

/* --notch W: the first reading from the true centres on the screened
 * image, on it notched, low-passed as the rule does, and on the same
 * surface without a screen (scan blur only) */
static void print_notch(const fs_image *img, const sem_opts *so, double wid)
{
	sem_opts o = *so;
	o.halftone = 0;
	sem_truth t;
	fs_image *clean = sem_make_shared(&o, &t);
	char err[128];
	if (!clean)
		return;
	fs_image *nt = notched(img, so->halftone, wid);
	fs_image *lp = fs_gaussian_blurred(img, FS_HALFTONE_LOWPASS * so->halftone, err, sizeof err);
	if (so->scan_blur > 0)
		(void)fs_gaussian_blur(clean, so->scan_blur, err, sizeof err);
	for (int k = 0; k < FS_DET_SMOOTH_TRIALS; k++) {
		double sm = fs_det_smooth_px[k];
		printf("      notch %.3f, smooth %.1f: screened %+6.2f notched %+6.2f low-passed %+6.2f clean %+6.2f\n", wid, sm,
		       first_at_truth(img, &t, sm), nt ? first_at_truth(nt, &t, sm) : NAN,
		       lp ? first_at_truth(lp, &t, sm) : NAN, first_at_truth(clean, &t, sm));
	}
	fs_image_free(nt);
	fs_image_free(lp);
	fs_image_free(clean);
	sem_truth_free(&t);
}

/* --set KEY=VALUE (h40s): sem_opts_keys' keys, applied to every scene
 * after its seed; and the table's counts over the scenes run (the
 * corner table's columns: D, S, D SD where it applies, recall and
 * precision, all four) */
static sem_opts_args set_args;
static int cnt_run, cnt_d, cnt_s, cnt_sd, cnt_sd_applies, cnt_rp, cnt_all;

static int run_scene(int k, unsigned seed_add, int outline, int truth, int no_shadow, int level, int phase, int first,
		     int track, double notch, int dx, int dy, int own)
{
	sem_opts o;
	sem_truth t;
	/* k >= 64: interior scene k - 64 (an "iN" argument) */
	if (k >= 64)
		sem_interior_scene(k - 64, &o);
	else
		sem_corner_scene(k, &o);
	o.seed += seed_add;
	sem_opts_args_apply(&set_args, &o);
	if (no_shadow)
		o.shadow = 0;
	int shifted = o.halftone > 0 && (dx || dy);
	fs_image *img = shifted ? shifted_screen(&o, &t, dx < 0 ? 0 : dx, dy) : sem_make_shared(&o, &t);
	if (!img) {
		printf("%d: the simulator refused the scene\n", k);
		return -1;
	}
	fs_params p;
	fs_params_default(&p);
	fs_detect_result res;
	char err[256];
	if (notch < 0 && o.halftone > 0) {
		/* --notch-detect: the whole detection on the image notched */
		fs_image *nt = notched(img, o.halftone, -notch);
		if (!nt) {
			printf("%d: out of memory\n", k);
			sem_truth_free(&t);
			fs_image_free(img);
			return -1;
		}
		double per0, q0, per1, q1;
		if (!fs_halftone_detect(img, &per0, &q0) && !fs_halftone_detect(nt, &per1, &q1))
			printf("      screen found: before period %.2f ratio %.0f, notched period %.2f ratio %.1f\n", per0, q0, per1, q1);
		fs_image_free(img);
		img = nt;
	}
	int rc = (outline ? fs_detect_outline : fs_detect_domes)(img, &p, 0, &res, err, sizeof err);
	if (rc) {
		printf("%d: %s\n", k, err);
		sem_truth_free(&t);
		fs_image_free(img);
		return -1;
	}
	const fs_tubercle_list *l = &res.tubercles;
	sem_score sc;
	int *mdet = malloc((l->n + 1) * sizeof *mdet), *mtru = malloc((t.n + 1) * sizeof *mtru);
	double *xs = malloc((l->n + 1) * sizeof *xs), *ys = malloc((l->n + 1) * sizeof *ys);
	rc = -1;
	if (mdet && mtru && xs && ys && !sem_score_detection(&t, l, o.halftone, &sc)) {
		for (size_t i = 0; i < l->n; i++) {
			xs[i] = l->items[i].centroid_x;
			ys[i] = l->items[i].centroid_y;
		}
		rc = sem_match(&t, xs, ys, l->n, 0.25 * t.pitch, mdet, mtru);
	}
	if (!rc) {
		split s;
		split_scene(&t, l, o.det_azimuth, mtru, &s);
		double dt = truth ? d_from_truth(img, &t) : NAN, lr = NAN, lpl = NAN;
		if (level)
			level_from_truth(img, &t, o.halftone, &lr, &lpl);
		int ok_d = fabs(sc.d_err) < 3, ok_s = fabs(sc.s_err) < 3;
		int ok_sd = !sc.sd_applies || sc.d_sd < 8, ok_rp = sc.recall >= 0.97 && sc.precision >= 0.97;
		cnt_run++;
		cnt_d += ok_d;
		cnt_s += ok_s;
		cnt_sd_applies += sc.sd_applies;
		cnt_sd += sc.sd_applies && sc.d_sd < 8;
		cnt_rp += ok_rp;
		cnt_all += ok_d && ok_s && ok_sd && ok_rp;
		/* (an empty pair set gives NANs, printed as such) */
		char name[16];
		snprintf(name, sizeof name, k >= 64 ? "i%d" : "%d", k >= 64 ? k - 64 : k);
		printf("%-5s %-4.2f %-4s %-4.2f %-3d %-4.0f %-3d %6.1f %6.1f %7.2f %7.2f %7.2f %7.2f %7.2f%s%s%s%s\n", name,
		       o.fill, o.profile > 1.5 ? "flat" : o.profile > 0.5 ? "par" : "sph", o.h_over_r, (int)o.halftone,
		       o.det_azimuth * 180 / M_PI, (int)o.pitch,
		       sc.d_err, sc.s_err, 100 * (s.dist_found - s.dist_true) / s.space,
		       -100 * (s.radii_found - s.radii_true) / s.space, 100 * s.along / t.pitch,
		       100 * s.across / t.pitch, dt, ok_d ? "" : " D", ok_s ? "" : " S", ok_sd ? "" : " SD",
		       ok_rp ? "" : " RP");
		if (level)
			printf("      Lridge %7.2f Lplain %7.2f\n", lr, lpl);
		if (own)
			print_own(img, &t, l, mtru, o.det_azimuth);
		if (phase && o.halftone > 0)
			print_phase(&t, l, mtru, o.halftone, dx < 0 ? 0 : dx, dy);
		if (first)
			print_first(img, &t, o.det_azimuth);
		if (track)
			print_offset_track(img, &t, o.det_azimuth);
		if (notch > 0 && o.halftone > 0)
			print_notch(img, &o, notch);
	} else {
		printf("%d: out of memory\n", k);
	}
	free(mdet);
	free(mtru);
	free(xs);
	free(ys);
	fs_detect_result_free(&res);
	sem_truth_free(&t);
	fs_image_free(img);
	return rc;
}

int main(int argc, char **argv)
{
	int own = 0, outline = 0, truth = 0, no_shadow = 0, level = 0, phase = 0, first = 0, track = 0, dx = 0, dy = 0, listed = 0,
	    rc = 0;
	unsigned seed_add = 0;
	double notch = 0;
	int scenes[64];
	for (int i = 1; i < argc; i++) {
		if (sem_bench_arg(argc, argv, &i, &seed_add, &set_args))
			continue;
		if (!strcmp(argv[i], "--outline"))
			outline = 1;
		else if (!strcmp(argv[i], "--true"))
			truth = 1;
		else if (!strcmp(argv[i], "--own"))
			own = 1;
		else if (!strcmp(argv[i], "--no-shadow"))
			no_shadow = 1;
		else if (!strcmp(argv[i], "--level"))
			level = 1;
		else if (!strcmp(argv[i], "--notch") && i + 1 < argc)
			notch = atof(argv[++i]);
		else if (!strcmp(argv[i], "--notch-detect") && i + 1 < argc)
			notch = -atof(argv[++i]);
		else if (!strcmp(argv[i], "--first"))
			first = 1;
		else if (!strcmp(argv[i], "--turn") && i + 1 < argc && atoi(argv[i + 1]) >= 0 && atoi(argv[i + 1]) <= 3)
			fs_det_offset_set_turn_check((unsigned)atoi(argv[++i]));
		else if (!strcmp(argv[i], "--offset-track"))
			track = 1;
		else if (!strcmp(argv[i], "--phase"))
			phase = phase ? phase : 1;
		else if (!strcmp(argv[i], "--screen-shift") && i + 2 < argc && atoi(argv[i + 1]) >= 0 && atoi(argv[i + 2]) >= 0) {
			dx = atoi(argv[++i]);
			dy = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--shift-check")) {
			/* the shifted path at no shift: sem_make's bits (checked) */
			dx = -1;
		} else if (listed < 64 && argv[i][0] == 'i' && atoi(argv[i] + 1) >= 0 &&
			 atoi(argv[i] + 1) < SEM_INTERIOR_SCENES)
			scenes[listed++] = 64 + atoi(argv[i] + 1);
		else if (listed < 64 && atoi(argv[i]) >= 0 && atoi(argv[i]) < 64)
			scenes[listed++] = atoi(argv[i]);
		else {
			fprintf(stderr, "usage: %s [--outline] [--seed-add N] [--true] [--own] [--no-shadow] [--level] [--phase] [--first] [--offset-track] [--turn PASSES] [--notch W] [--notch-detect W] [--screen-shift DX DY] [--shift-check] [--set KEY=VALUE]... [SCENE 0-63 | iN...]\n", argv[0]);
			return 2;
		}
	}
	if (!listed)
		for (listed = 0; listed < 64; listed++)
			scenes[listed] = listed;
	printf("%s, seeds +%u%s; S split: dist = the centres' distances, radii = minus the radii's error "
	       "(both %% of the true mean space; S%% = dist + radii); along/across: the centres' mean error "
	       "on the detector's axis, %% of the pitch; Dtrue: mean D %% from the true centres (--true)\n",
	       outline ? "the outline rule" : "the dome rule", seed_add, no_shadow ? ", no cast shadow" : "");
	printf("%-5s %-4s %-4s %-4s %-3s %-4s %-3s %6s %6s %7s %7s %7s %7s %7s\n", "scene", "fill", "prof", "h/R",
	       "ht", "az", "pit", "D%", "S%", "dist", "radii", "along", "across", "Dtrue");
	for (int i = 0; i < listed; i++)
		rc |= run_scene(scenes[i], seed_add, outline, truth, no_shadow, level, phase, first, track, notch, dx, dy, own) ? 1 : 0;
	printf("counts over %d scenes", cnt_run);
	for (int i = 0; i < set_args.n; i++)
		printf(" --set %s", set_args.kv[i]);
	printf(": D %d / S %d / D SD %d (of %d it applies to) / RP %d / all four %d\n", cnt_d, cnt_s, cnt_sd,
	       cnt_sd_applies, cnt_rp, cnt_all);
	return rc;
}
