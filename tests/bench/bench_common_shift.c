/*
 * bench_common_shift - the dome rule's centres moved by one common shift
 * fitted on the mean patch together with the templates' mix and the blur,
 * and the sizes the rule then reads (issue 13, groups A and E;
 * docs/paper-figures.md, h43a). Asserts nothing.
 *
 * Why: the 4-px domes' centres sit +0.2..+0.8 px towards the detector from
 * the candidates on, and the template fit keeps that shift because its
 * components' mix is solved on the mean patch about those same centres
 * (h42m). A shift chosen after the fact by the fits' mean R^2 takes A's low
 * domes home and fails on the low spheres, where its gain is noise-sized
 * (h42m --scan); the mean patch's blur is spoiled by the common offset
 * (h42l). This fits the shift (2-D) JOINTLY with the mix and the blur:
 * every trial builds the templates afresh (fs_dome_tpl_build: the mix
 * solved by least squares on the mean patch about the moved centres) and
 * scores the mean patch's residual share at its best fill (misfit below).
 * The search: a 2-D grid of +-1.0 px in 0.25 steps at the formation's own
 * blur, the blur 0.40-2.00 px in 0.08 steps there, the shift again on a
 * 0.05-px grid of +-0.15 px at that blur, the blur again in 0.02 steps of
 * +-0.08 px. The shift's gain is judged against the same blur search with
 * the centres unmoved (so the blur alone earns nothing), in units of the
 * mean patch's own noise: the per-point variance of the patches averaged
 * into it over their count, summed and taken as a share of the mean
 * patch's variance (noise below) - what a misfit of pure noise would be.
 *
 * The verdict: "accepted" where the gain is at least COMMON_SHIFT_GAIN_FLOOR noise
 * shares (the "moved" columns print the shift as found either way).
 *
 * Also h42a's calibration of the level reader (calib_factor) at the joint
 * fit's centres and blur and at the rule's centres and formation, and the
 * same with the simulator's own formation: the rule's D (or the moved D)
 * times the factor.
 *
 * Per scene: the rule's D and S (fs_detect_domes, sem_score); the rule's
 * common offset from the TRUE centres along / across the detector's axis
 * (+ towards it); the shift found (the move, ideally minus the offset), its
 * blur, its gain and the gain over the noise share; then the rule's last
 * step at given centres (fs_measure_centres_rule, the dome rule: the
 * formation, the templates and the level read from those centres) at the
 * rule's centres (the identity: must print the rule's D), at the rule's
 * centres moved by the shift found, and moved by minus the true common
 * offset (the oracle: a perfect common shift).
 *
 * Usage: bench_common_shift [--seed-add N] [SCENE...]; default A (2 6 18
 * 22), E (0 4 16 20) and B1 (1 3 5 7 17 19 21 23). About 1-2 s of CPU a
 * pitch-16 scene with SEM_SCENE_CACHE (the joint fit's 190 template
 * builds, three re-measures, four calibrations), 20-40 s a pitch-64 one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/detect_methods.h"
#include "analysis/detect_offset.h"
#include "analysis/dome_base_fit.h"
#include "analysis/dome_measure.h"
#include "analysis/measurement.h"
#include "common_shift.h"
#include "formation_blur.h"
#include "formation_calib.h"
#include "scene_sets.h"
#include "sem_scene.h"
#include "sem_score.h"


/* h42a's calibration of the level reader (formation_calib_factor) with
 * the templates built with f about the centres moved by (dx, dy), read
 * with the last step's window (0.6 pitch): the factor the level's bias
 * would be taken off by, at the blur the joint fit read. */
static double calib_factor(common_shift_trial *w, const fs_dome_fit *f, double dx, double dy, double fill)
{
	for (size_t j = 0; j < w->n; j++) {
		w->mx[j] = w->xs[j] + dx;
		w->my[j] = w->ys[j] + dy;
	}
	double mr = 0.6 * f->pitch;
	return formation_calib_factor(w->img, f, w->mx, w->my, w->n, fill, FS_DOME_R0 * mr, FS_DOME_R1 * mr);
}

/* The dome rule's last step at the centres of l moved by (dx, dy), scored. */
static int remeasure(const sem_scene *sim, const sem_opts *o, const fs_tubercle_list *l, double dx, double dy,
		     sem_score *sc)
{
	fs_tubercle_list t;
	memset(&t, 0, sizeof t);
	t.items = malloc((l->n + 1) * sizeof *t.items);
	if (!t.items)
		return -1;
	memcpy(t.items, l->items, l->n * sizeof *t.items);
	t.n = t.cap = l->n;
	for (size_t i = 0; i < t.n; i++) {
		t.items[i].centroid_x += dx;
		t.items[i].centroid_y += dy;
	}
	char err[256];
	int rc = fs_measure_centres_rule(sim->img, &sim->p, 0, FS_RULE_DOME, &t, err, sizeof err);
	if (!rc)
		rc = sem_score_detection(&sim->tr, &t, o->halftone, sc);
	free(t.items);
	return rc;
}

static int run_scene(int k, unsigned seed_add)
{
	sem_opts o;
	sem_corner_scene(k, &o);
	o.seed += seed_add;
	dome_scene ds;
	if (dome_scene_open(&ds, &o, SET_CORNER, k))
		return -1;
	sem_scene *sim = &ds.s;
	const fs_image *meas = ds.meas;
	const fs_tubercle_list *l = &ds.res.tubercles;
	sem_score sc;
	size_t n = l->n;
	int *mdet = malloc((n + 1) * sizeof *mdet), *mtru = malloc((sim->tr.n + 1) * sizeof *mtru);
	double *xs = malloc((n + 1) * sizeof *xs), *ys = malloc((n + 1) * sizeof *ys), *rs = malloc((n + 1) * sizeof *rs);
	double *mx = malloc((n + 1) * sizeof *mx), *my = malloc((n + 1) * sizeof *my);
	int rc = -1;
	if (!mdet || !mtru || !xs || !ys || !rs || !mx || !my || sem_score_detection(&sim->tr, l, o.halftone, &sc))
		goto out;
	size_t nr = 0;
	for (size_t i = 0; i < n; i++) {
		xs[i] = l->items[i].centroid_x;
		ys[i] = l->items[i].centroid_y;
	}
	if (sem_match(&sim->tr, xs, ys, n, 0.25 * sim->tr.pitch, mdet, mtru))
		goto out;
	/* the rule's centres with a size (the formation's and the build's) */
	for (size_t i = 0; i < n; i++)
		if (isfinite(l->items[i].radius_px) && l->items[i].radius_px > 0) {
			xs[nr] = l->items[i].centroid_x;
			ys[nr] = l->items[i].centroid_y;
			rs[nr++] = l->items[i].radius_px;
		}
	double ox = 0, oy = 0;
	size_t nm = 0;
	for (size_t j = 0; j < sim->tr.n; j++)
		if (mtru[j] >= 0 && sem_counted(&sim->tr, sim->tr.x[j], sim->tr.y[j])) {
			ox += l->items[mtru[j]].centroid_x - sim->tr.x[j];
			oy += l->items[mtru[j]].centroid_y - sim->tr.y[j];
			nm++;
		}
	if (!nm || nr < 8)
		goto out;
	ox /= nm;
	oy /= nm;
	double az = o.det_azimuth, ca = cos(az), sa = sin(az);
	fs_det_offset off;
	if (fs_det_offset_fit(meas, xs, ys, rs, nr, sim->tr.pitch, NULL, &off) || !off.fitted) {
		printf("%-3d +%-5u no formation\n", k, seed_add);
		rc = 0;
		goto out;
	}
	double dsum = 0;
	for (size_t i = 0; i < nr; i++)
		dsum += 2 * rs[i];
	common_shift_trial w = {meas, &off.fit, xs, ys, mx, my, nr, dsum / nr / off.fit.pitch, 0};
	common_shift j;
	common_shift_fit(&w, &j);
	sem_score s0, s1, s2;
	int r0 = remeasure(sim, &o, l, 0, 0, &s0), r1 = remeasure(sim, &o, l, j.dx, j.dy, &s1),
	    r2 = remeasure(sim, &o, l, -ox, -oy, &s2);
	double gain = j.mis0 - j.mis;
	/* the calibration at the joint fit's centres and blur, and (h42a's
	 * 0-1 of 32) at the rule's centres and the formation's own blur */
	fs_dome_fit fj = off.fit;
	fj.blur_px = j.blur;
	double c1 = calib_factor(&w, &fj, j.dx, j.dy, w.fill), c0 = calib_factor(&w, &off.fit, 0, 0, w.fill);
	double d1c = 100 * ((1 + s1.d_err / 100) * c1 - 1), d0c = 100 * ((1 + sc.d_err / 100) * c0 - 1);
	/* the same with the simulator's own formation (h42l's m: the scene's
	 * geometry and detector, the beam and the measurement image's
	 * smoothing in quadrature): whether the joint fit's centres would do
	 * where the formation and its blur are right */
	double msig = sim->tr.pitch >= 40 ? 1.0 : 0.5;
	fs_dome_fit fm;
	formation_sim(&o, sim->tr.pitch, w.fill, sqrt(o.beam_blur * o.beam_blur + msig * msig), &fm);
	double c3 = calib_factor(&w, &fm, j.dx, j.dy, w.fill), c4 = calib_factor(&w, &fm, 0, 0, w.fill);
	double d3c = 100 * ((1 + s1.d_err / 100) * c3 - 1), d4c = 100 * ((1 + sc.d_err / 100) * c4 - 1);
	printf("%-3d +%-5u offset %+.2f %+.2f | move %+.2f %+.2f blur %.2f (unmoved %.2f, fit %.2f) misfit %.4f -> %.4f "
	       "gain %.4f noise %.5f gain/noise %6.1f (%s) | D S rule %+6.2f %+6.2f at-centres %+6.2f %+6.2f moved %+6.2f "
	       "%+6.2f oracle %+6.2f %+6.2f | calib moved %.4f D %+6.2f, rule %.4f D %+6.2f | sim-formation calib moved %.4f D %+6.2f, rule %.4f D %+6.2f | builds %ld\n",
	       k, seed_add, ox * ca + oy * sa, -ox * sa + oy * ca, j.dx * ca + j.dy * sa, -j.dx * sa + j.dy * ca, j.blur,
	       j.blur0, off.fit.blur_px, j.mis0, j.mis, gain, j.noise, j.noise > 0 ? gain / j.noise : NAN,
	       gain >= COMMON_SHIFT_GAIN_FLOOR * j.noise ? "accepted" : "refused", sc.d_err,
	       sc.s_err, r0 ? NAN : s0.d_err, r0 ? NAN : s0.s_err, r1 ? NAN : s1.d_err, r1 ? NAN : s1.s_err,
	       r2 ? NAN : s2.d_err, r2 ? NAN : s2.s_err, c1, d1c, c0, d0c, c3, d3c, c4, d4c, w.builds);
	fflush(stdout);
	rc = 0;
out:
	free(mdet);
	free(mtru);
	free(xs);
	free(ys);
	free(rs);
	free(mx);
	free(my);
	dome_scene_close(&ds);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned seed_add = 0;
	int scenes[64], ns = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed-add") && i + 1 < argc)
			seed_add = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (ns < 64)
			scenes[ns++] = atoi(argv[i]);
	}
	if (!ns)
		ns = small_dome_scenes(scenes, 1);
	printf("the rule's centres moved by one common shift fitted with the templates' mix and the blur on the mean "
	       "patch (px along / across the detector's axis, + towards it); D and S %% of truth; seeds +%u\n",
	       seed_add);
	int bad = 0;
	for (int i = 0; i < ns; i++)
		bad |= run_scene(scenes[i], seed_add) != 0;
	return bad;
}
