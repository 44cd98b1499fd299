/*
 * bench_unrefined_truth - the dome rule's unrefined path (the one the
 * candidates' walk and the refused / coarse-screen paths measure with:
 * fs_det_measure_unrefined, the formation's offset, the base fit) run
 * from the TRUE centres and from the true centres moved by a known
 * offset along the detector's axis, step by step, on the printed
 * interior scenes (issue 13; docs/paper-figures.md, h48d). Asserts
 * nothing.
 *
 * Why: h47b found the walk losing the tall (h/R 0.5) printed domes
 * because the unrefined path already sizes them +5..+7 % from near-true
 * centres. This says which of its steps does it. Each candidate the rule
 * votes is put on its nearest true dome (within 0.3 pitch; the rule's
 * candidates, their order and the smoothing the rule chose from them are
 * kept, so only the start changes) plus o px along the detector's axis
 * (+ towards the detector), and the path runs as fs_det_measure runs it
 * with the refinement off (no look again: the walk's end has none):
 *   rays   the bases read from the start (fs_det_measure_unrefined);
 *   off    the formation's offset read there (along / across, px; "a"
 *          when applied) and the bases read again from the moved
 *          centres (fs_det_offset_correct);
 *   sized0 the base fit (level and templates) on the rays' bases at the
 *          start, the offset's move left out (its formation kept);
 *   sized  the base fit after the move: the path's own sizes;
 *   final  the whole rule from there (fs_det_measure with the
 *          refinement off, then the last step at its centres, as
 *          bench_cand_offsets' replay) scored as test_sem_accuracy
 *          scores it (mean D error, all four).
 * Every D column is the mean diameter of the inside domes a start was
 * put on, against their true mean (%). The level under a screen is the
 * base rule's reading on the smoothed rays (detect_base_fit.h); its
 * reading at the start ("level") is printed with the rays' smoothing.
 *
 * --feet (h49b) adds a line a scene-seed and start: the level's ridge
 * reading without the far rays (fs_dome_measure_base_ridge_lit_trace,
 * whatever FS_TEST_RIDGE_LIT says) split by the side each ray faces, px
 * from the TRUE base, and its stages (the polygon's radius, the inner
 * shift it takes off, that shift read on the lit and the side rays alone
 * at the picks' width and with the blur free, the ridge blur, the
 * result); --profile also prints the low-passed image's mean profile
 * along the lit and the side rays from the true centres (signal over the
 * ground 3-4 px outside, and its slope, every 0.5 px from 4 px inside the
 * base to 3 px outside). --rays (h49q, implies --feet) adds the same
 * rays by their direction about the detector (11.25-degree bins, 0
 * towards it: each bin's mean px from the TRUE base and the share the
 * reader left out as far), the azimuth it was given and its centre from
 * the true one along and across the detector's axis.
 *
 * Usage: bench_unrefined_truth [--halftone P] [--seeds A,B,...]
 *        [--offsets a,b,...] [--feet] [--rays] [--profile] [--set KEY=VALUE ...]
 *        [SCENE...]
 * defaults: P 5, seeds 0, offsets -0.5,0,0.5 (px), every interior scene.
 * SEM_SCENE_CACHE shares the renders with the tests. Cost: about 1 s a
 * scene-seed and offset cached.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/base_readings.h"
#include "analysis/detect.h"
#include "analysis/detect_base_fit.h"
#include "analysis/detect_measure.h"
#include "analysis/detect_methods.h"
#include "analysis/detect_offset.h"
#include "analysis/dome_measure.h"
#include "analysis/lattice_estimate.h"
#include "bench_support.h"
#include "dome_candidates.h"
#include "image/image.h"
#include "nearest_point.h"
#include "sem_cache.h"
#include "sem_opts_keys.h"
#include "sem_score.h"
#include "sem_sim.h"

#define MAX_LIST 16
#define MAX_SCENES 64

/* The rule's smoothing of the rays, chosen from its own candidates as
 * detect_measure.c's choose_smooth chooses it (its trials refined as the
 * first pass refines). */
static double rule_smooth(const fs_meas *m, const fs_cand_list *c, double max_r)
{
	double q[FS_DET_SMOOTH_CANDIDATES * FS_DET_SMOOTH_TRIALS];
	fs_det_kept *kept = calloc(FS_DET_SMOOTH_CANDIDATES, sizeof *kept);
	if (!kept || !c->n) {
		free(kept);
		return 0;
	}
	size_t nc = c->n < FS_DET_SMOOTH_CANDIDATES ? c->n : FS_DET_SMOOTH_CANDIDATES, done = 0, next;
	while ((next = fs_det_smooth_next(q, done, nc)) > done) {
		for (size_t i = done; i < next; i++)
			fs_det_smooth_trial(m->img, c->items[i].x, c->items[i].y, max_r, 1, m->refine, &kept[i],
					    &q[i * FS_DET_SMOOTH_TRIALS]);
		done = next;
	}
	free(kept);
	return fs_det_smooth_pick(q, done);
}

/* The mean measured D of the candidates that stand for an inside dome
 * (dome_of[i] >= 0, the first candidate on each), against those domes'
 * true mean, %; NAN when none is measured. */
static double d_error(const fs_measured *meas, const long *dome_of, const int *first, size_t n, const sem_truth *t)
{
	double sm = 0, st = 0;
	for (size_t i = 0; i < n; i++)
		if (dome_of[i] >= 0 && first[i] && meas[i].ok && isfinite(meas[i].t.radius_px) &&
		    meas[i].t.fit_quality >= 0.45) {
			sm += 2 * meas[i].t.radius_px;
			st += t->d[dome_of[i]];
		}
	return st > 0 ? 100 * (sm / st - 1) : NAN;
}

/* Their centres' mean offset from the truth along (ca, sa), px */
static double centres_along(const fs_measured *meas, const long *dome_of, const int *first, size_t n,
			    const sem_truth *t, double ca, double sa)
{
	double s = 0;
	int k = 0;
	for (size_t i = 0; i < n; i++)
		if (dome_of[i] >= 0 && first[i] && meas[i].ok) {
			s += (meas[i].t.centroid_x - t->x[dome_of[i]]) * ca + (meas[i].t.centroid_y - t->y[dome_of[i]]) * sa;
			k++;
		}
	return k ? s / k : NAN;
}

typedef struct row {
	double rays, along_read, moved, sized0, sized, final_d;
	double ridge;        /* the level's low-passed reading at the start, D % */
	double ridge_c;      /* where that reading's own centre ends, px along the axis from the truth */
	double c0, c1;       /* the sized centres along the axis (sized0, sized), px */
	double fhr, fside;   /* the formation's h/R and detector weight (side) */
	double r2;           /* the formation fit's R^2 */
	double held;         /* the fill the formation was held at over the truth's mean fill, % */
	double read_true;    /* the offset read with the fill held at the truth's (oracle), px along */
	int applied, all4;
} row;

/* --feet (h49b): the ridge reading without the far rays
 * (fs_dome_measure_base_ridge_lit_trace) split by the side each ray
 * faces, px from the TRUE base (the ray's point's distance from the true
 * centre less the true radius): lit (within 45 degrees of the detector's
 * direction), sides, far; and the reading's stages against the true
 * radius (the polygon, the inner shift, the ridge blur, the result). */
static int g_feet;
typedef struct feet {
	double lit, side, far, rpoly, ishift, blur, radius, kappa_s, isl, iss, ifl, ifs, sfl, sfs;
	int nl, ns, nf, n, nfl, nfs;
} feet;
static feet g_f;

/* --rays (h49q): the same rays' excess over the true base by their
 * direction about the detector (32 bins of 11.25 degrees, 0 towards it),
 * with how many of them the reader left out as far, the azimuth it was
 * given, and the reading's centre from the true one along and across the
 * detector's axis; each ray's own pick (the trace's, before a far ray
 * takes the circle's radius) */
static int g_rays;
static double g_re[32], g_rfar[32], g_raz, g_cal, g_cac;
static int g_rn[32];

/* --feet's profile: the low-passed image's mean along the rays from the
 * TRUE centre, by side (0 lit, 1 sides), at r - R = -6 .. +4 px in 0.25 */
#define PROF_N 41
static double g_prof[2][PROF_N];
static int g_profn[2];

static double bilin(const fs_image *im, double x, double y)
{
	int xi = (int)floor(x), yi = (int)floor(y);
	if (!im->data || xi < 0 || yi < 0 || xi + 1 >= im->width || yi + 1 >= im->height)
		return NAN;
	double fx = x - xi, fy = y - yi;
	const float *r0 = im->data + (size_t)yi * im->width + xi, *r1 = r0 + im->width;
	return (1 - fy) * ((1 - fx) * r0[0] + fx * r0[1]) + fy * ((1 - fx) * r1[0] + fx * r1[1]);
}

static void prof_add(const fs_image *lp, double az, double tx, double ty, double R)
{
	double ca = cos(az), sa = sin(az);
	for (int k = 0; k < 32; k++) {
		double th = 2 * M_PI * k / 32, c = cos(th) * ca + sin(th) * sa;
		int g = c > M_SQRT1_2 ? 0 : c >= 0 ? 1 : -1;
		if (g < 0)
			continue;
		double v[PROF_N];
		int ok = 1;
		for (int j = 0; j < PROF_N && ok; j++) {
			double r = R - 6 + 0.25 * j;
			v[j] = bilin(lp, tx + r * cos(th), ty + r * sin(th));
			ok = isfinite(v[j]);
		}
		if (!ok)
			continue;
		/* each ray relative to its ground 3..4 px outside */
		double gnd = 0;
		for (int j = PROF_N - 5; j < PROF_N; j++)
			gnd += v[j] / 5;
		for (int j = 0; j < PROF_N; j++)
			g_prof[g][j] += v[j] - gnd;
		g_profn[g]++;
	}
}

static void feet_add(const fs_image *lp, double x, double y, double max_r, double az, double tx, double ty,
		     double tr_px)
{
	fs_dome_ray_trace rt;
	if (fs_dome_measure_base_ridge_lit_trace(lp, x, y, FS_DOME_R0 * max_r, FS_DOME_R1 * max_r, az, &rt) ||
	    !isfinite(rt.st.radius))
		return;
	double ca = cos(az), sa = sin(az);
	for (int k = 0; k < FS_DOME_TRACE_RAYS; k++) {
		double px = rt.ray_x + rt.ray[k] * rt.ray_c[k], py = rt.ray_y + rt.ray[k] * rt.ray_s[k];
		double e = hypot(px - tx, py - ty) - tr_px, c = rt.ray_c[k] * ca + rt.ray_s[k] * sa;
		if (c > M_SQRT1_2)
			g_f.lit += e, g_f.nl++;
		else if (c < -M_SQRT1_2)
			g_f.far += e, g_f.nf++;
		else
			g_f.side += e, g_f.ns++;
	}
	if (g_rays) {
		for (int k = 0; k < FS_DOME_TRACE_RAYS; k++) {
			double px = rt.ray_x + rt.ray[k] * rt.ray_c[k], py = rt.ray_y + rt.ray[k] * rt.ray_s[k];
			double rel = atan2(rt.ray_s[k] * ca - rt.ray_c[k] * sa, rt.ray_c[k] * ca + rt.ray_s[k] * sa);
			int b = ((int)lround(rel / (2 * M_PI / 32)) + 32) % 32;
			g_re[b] += hypot(px - tx, py - ty) - tr_px;
			g_rfar[b] += rt.ray_c[k] * ca + rt.ray_s[k] * sa < 0;
			g_rn[b]++;
		}
		g_raz += az;
		g_cal += (rt.st.x - tx) * ca + (rt.st.y - ty) * sa;
		g_cac += -(rt.st.x - tx) * sa + (rt.st.y - ty) * ca;
	}
	prof_add(lp, az, tx, ty, tr_px);
	g_f.rpoly += rt.st.rpoly - tr_px;
	g_f.ishift += rt.st.ishift;
	g_f.isl += rt.ishift_side[0];
	g_f.iss += rt.ishift_side[1];
	/* (a side whose free fit found no step is left out of its means) */
	if (isfinite(rt.sfit_side[0]))
		g_f.ifl += rt.ishift_free[0], g_f.sfl += rt.sfit_side[0], g_f.nfl++;
	if (isfinite(rt.sfit_side[1]))
		g_f.ifs += rt.ishift_free[1], g_f.sfs += rt.sfit_side[1], g_f.nfs++;
	g_f.blur += rt.blur;
	g_f.kappa_s += rt.st.sigma;
	g_f.radius += rt.st.radius - tr_px;
	g_f.n++;
}

/* The level's reading under the screen (fs_det_base_level_lowpassed on
 * the measurement image low-passed as off's formation says) made at the
 * starts themselves, D % as d_error; NAN without a screen. */
static double ridge_at_starts(const fs_meas *m, const fs_cand_list *ct, const fs_det_offset *off, double max_r,
			     const long *dome_of, const int *first, const sem_truth *t, double ca, double sa,
			     double *along)
{
	fs_image *lp = NULL;
	char err[128];
	*along = NAN;
	if (!off->fitted || fs_det_base_lowpass(m->img, off, &lp, err, sizeof err) || !lp)
		return NAN;
	double sm = 0, st = 0, sc = 0;
	int nc = 0;
	for (size_t i = 0; i < ct->n; i++) {
		if (dome_of[i] < 0 || !first[i])
			continue;
		/* fs_det_base_level_lowpassed's reading with its polygon kept:
		 * where the reader's own centre ends tells whether its passes
		 * came home from the start (h48i) */
		fs_tubercle tb;
		int e = 0, rc;
		memset(&tb, 0, sizeof tb);
		if (fs_det_base_ridge_lit())
			rc = fs_dome_measure_base_ridge_lit(lp, ct->items[i].x, ct->items[i].y, FS_DOME_R0 * max_r,
							    FS_DOME_R1 * max_r, off->fit.azimuth, &tb, &e);
		else
			rc = fs_dome_measure_base_edge(lp, ct->items[i].x, ct->items[i].y, FS_DOME_R0 * max_r,
						       FS_DOME_R1 * max_r, 1, &tb, &e);
		double r = fs_det_base_level_value(rc, &tb, e, NAN, &e, NULL);
		if (g_feet && isfinite(r) && !e)
			feet_add(lp, ct->items[i].x, ct->items[i].y, max_r, off->fit.azimuth, t->x[dome_of[i]],
				 t->y[dome_of[i]], 0.5 * t->d[dome_of[i]]);
		if (isfinite(r) && !e) {
			sm += 2 * r;
			st += t->d[dome_of[i]];
			sc += (tb.centroid_x - t->x[dome_of[i]]) * ca + (tb.centroid_y - t->y[dome_of[i]]) * sa;
			nc++;
		}
	}
	fs_image_free(lp);
	*along = nc ? sc / nc : NAN;
	return st > 0 ? 100 * (sm / st - 1) : NAN;
}

/* One start: the path's steps from ct (the snapped candidates) into *r. */
static int run_start(const fs_meas *m, const fs_cand_list *ct, double pitch, double smooth, const long *dome_of,
		     const int *first, const sem_truth *t, double ca, double sa, double halftone, row *r)
{
	size_t n = ct->n;
	double max_r = 0.6 * pitch;
	fs_meas m2 = *m;
	m2.refine = 0;
	/* (as fs_det_measure's unrefined path under FS_TEST_HELD_LP) */
	m2.held_lowpass = m->refine > 0 && fs_det_offset_held_lowpass();
	fs_measured *meas = malloc((n ? n : 1) * sizeof *meas), *at0 = malloc((n ? n : 1) * sizeof *at0);
	int rc = -1;
	memset(r, 0, sizeof *r);
	if (!meas || !at0)
		goto out;
	fs_det_measure_unrefined(&m2, ct, max_r, smooth, NULL, meas, NULL);
	r->rays = d_error(meas, dome_of, first, n, t);
	memcpy(at0, meas, n * sizeof *meas);
	/* the oracle: the same formation fit with every started dome's
	 * radius the truth's (the fill it is held at, detect_offset.c) */
	fs_measured *tr = malloc((n ? n : 1) * sizeof *tr);
	if (!tr)
		goto out;
	memcpy(tr, meas, n * sizeof *meas);
	double sr = 0, st = 0;
	for (size_t i = 0; i < n; i++)
		if (dome_of[i] >= 0 && meas[i].ok && isfinite(meas[i].t.radius_px)) {
			sr += meas[i].t.radius_px;
			st += 0.5 * t->d[dome_of[i]];
			tr[i].t.radius_px = 0.5 * t->d[dome_of[i]];
		}
	r->held = st > 0 ? 100 * (sr / st - 1) : NAN;
	fs_det_offset oo;
	fs_meas m3 = m2;
	m3.held_lowpass = 0; /* (the truth's radii are the fill) */
	int orc = fs_det_offset_correct(&m3, ct, max_r, smooth, tr, &oo);
	free(tr);
	if (orc)
		goto out;
	r->read_true = oo.fitted ? oo.dx * ca + oo.dy * sa : NAN;
	fs_det_offset off;
	if (fs_det_offset_correct(&m2, ct, max_r, smooth, meas, &off))
		goto out;
	r->applied = off.applied;
	r->fhr = off.fitted ? off.fit.h_over_r : NAN;
	r->fside = off.fitted ? off.fit.side : NAN;
	r->r2 = off.fitted ? off.quality : NAN;
	r->along_read = off.fitted ? off.dx * ca + off.dy * sa : NAN;
	r->moved = d_error(meas, dome_of, first, n, t);
	if (fs_det_base_fit_apply(m, ct, &off, max_r, NULL, NULL, NULL, at0, NULL) ||
	    fs_det_base_fit_apply(m, ct, &off, max_r, NULL, NULL, NULL, meas, NULL))
		goto out;
	r->sized0 = d_error(at0, dome_of, first, n, t);
	r->sized = d_error(meas, dome_of, first, n, t);
	r->c0 = centres_along(at0, dome_of, first, n, t, ca, sa);
	r->c1 = centres_along(meas, dome_of, first, n, t, ca, sa);
	r->ridge = ridge_at_starts(m, ct, &off, max_r, dome_of, first, t, ca, sa, &r->ridge_c);
	/* the whole rule from these candidates without the refinement */
	fs_params p;
	fs_params_default(&p);
	fs_tubercle_list out = {0};
	char err[256];
	r->final_d = NAN;
	if (!fs_det_measure(&m2, ct, max_r, 0.7 * pitch, &p, FS_SOURCE_EXTRACTED, &out)) {
		fs_meas g = m2;
		g.given = 2;
		g.flat_spread = NULL;
		sem_score s;
		if (!fs_det_size_domes_list(&g, max_r, &out, err, sizeof err) &&
		    !sem_score_detection(t, &out, halftone, &s)) {
			r->final_d = s.d_err;
			r->all4 = fabs(s.d_err) < 3 && fabs(s.s_err) < 3 && (!s.sd_applies || s.d_sd < 8) &&
				  s.recall >= 0.97 && s.precision >= 0.97;
		}
	}
	fs_tubercle_list_free(&out);
	rc = 0;
out:
	free(meas);
	free(at0);
	return rc;
}

typedef struct acc {
	double rays, along_read, moved, sized0, sized, final_d, ridge, ridge_c, c0, c1, held, read_true;
	int n, all4, d3;
} acc;

static void acc_add(acc *a, const row *r)
{
	a->rays += r->rays;
	a->along_read += r->along_read;
	a->moved += r->moved;
	a->sized0 += r->sized0;
	a->sized += r->sized;
	a->final_d += r->final_d;
	a->ridge += r->ridge;
	a->ridge_c += r->ridge_c;
	a->c0 += r->c0;
	a->c1 += r->c1;
	a->held += r->held;
	a->read_true += r->read_true;
	a->all4 += r->all4;
	a->d3 += fabs(r->final_d) < 3;
	a->n++;
}

int main(int argc, char **argv)
{
	double P = 5, offs[MAX_LIST] = {-0.5, 0, 0.5};
	unsigned seeds[MAX_LIST] = {0};
	int noffs = 3, nseeds = 1, nscenes = 0, scenes[MAX_SCENES];
	sem_opts_args sets;
	memset(&sets, 0, sizeof sets);
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--halftone") && a + 1 < argc)
			P = atof(argv[++a]);
		else if (!strcmp(argv[a], "--seeds") && a + 1 < argc) {
			if ((nseeds = bench_parse_seeds(argv[++a], seeds, MAX_LIST)) < 1)
				return 2;
		} else if (!strcmp(argv[a], "--offsets") && a + 1 < argc) {
			if ((noffs = bench_parse_list(argv[++a], offs, MAX_LIST)) < 1)
				return 2;
		} else if (!strcmp(argv[a], "--feet")) {
			g_feet = g_feet > 1 ? 2 : 1;
		} else if (!strcmp(argv[a], "--rays")) {
			g_feet = g_feet ? g_feet : 1;
			g_rays = 1;
		} else if (!strcmp(argv[a], "--profile")) {
			g_feet = 2;
		} else if (!strcmp(argv[a], "--set") && a + 1 < argc) {
			if (sem_opts_args_say(&sets, "bench_unrefined_truth", "--set", argv[++a]))
				return 2;
		} else if (nscenes < MAX_SCENES && argv[a][0] >= '0' && argv[a][0] <= '9')
			scenes[nscenes++] = atoi(argv[a]);
		else {
			fprintf(stderr, "usage: bench_unrefined_truth [--halftone P] [--seeds A,B,...] "
					"[--offsets a,b,...] [--feet] [--rays] [--profile] [--set KEY=VALUE] [SCENE...]\n");
			return 2;
		}
	}
	if (!nscenes)
		for (int i = 0; i < SEM_INTERIOR_SCENES; i++)
			scenes[nscenes++] = i;
	static acc tot[MAX_SCENES][MAX_LIST];
	printf("the unrefined path from the true centres + o px along the detector's axis (+ towards it), "
	       "printed interior, screen %g px; D %% of the started domes' true mean\n", P);
	printf("%-6s %-5s %4s %5s %4s %6s | %8s %8s %8s %8s %8s %8s %8s %6s %6s %4s\n", "seed", "scene", "h/R", "fill",
	       "pit", "o", "rays", "ridge", "off.read", "moved", "sized0", "sized", "final", "c0", "c1", "all4");
	for (int si = 0; si < nseeds; si++) {
		for (int j = 0; j < nscenes; j++) {
			int i = scenes[j];
			sem_opts o;
			sem_interior_scene(i, &o);
			o.seed += seeds[si];
			o.halftone = P;
			sem_opts_args_apply(&sets, &o);
			sem_truth t;
			fs_image *img = sem_make_shared(&o, &t);
			if (!img) {
				printf("%-6u %-5d not rendered\n", seeds[si], i);
				continue;
			}
			char err[256];
			fs_params p;
			fs_params_default(&p);
			fs_lattice lat;
			fs_cand_list c = {0}, ct = {0};
			fs_image *mimg = NULL;
			fs_base_readings readings = {0};
			long *dome_of = NULL;
			int *first = NULL, f = 1;
			double ca = cos(o.det_azimuth), sa = sin(o.det_azimuth);
			if (fs_lattice_estimate(img, &lat, err, sizeof err) || !(lat.pitch_px > 0) ||
			    dome_candidates(img, &p, lat.pitch_px, 0, &c, &f, err, sizeof err) ||
			    fs_detect_measure_image(img, &p, lat.pitch_px >= 40 ? 1.0 : 0.5, &mimg, err, sizeof err)) {
				printf("%-6u %-5d failed\n", seeds[si], i);
				goto next;
			}
			double pitch = lat.pitch_px;
			fs_meas m = {.img = mimg, .f = 1, .width = img->width, .height = img->height, .dome = 1,
				     .refine = f > 1 ? 0.15 * pitch : 0, .src = img, .mp = &p, .readings = &readings};
			double smooth = rule_smooth(&m, &c, 0.6 * pitch);
			dome_of = malloc((c.n ? c.n : 1) * sizeof *dome_of);
			first = calloc(c.n ? c.n : 1, sizeof *first);
			int *taken = calloc(t.n ? t.n : 1, sizeof *taken);
			if (!dome_of || !first || !taken || fs_cand_list_shifted(&c, 0, 0, &ct)) {
				free(taken);
				goto next;
			}
			for (size_t k = 0; k < c.n; k++) {
				long d = nearest_point(t.x, t.y, NULL, t.n, c.items[k].x, c.items[k].y, 0.3 * t.pitch);
				dome_of[k] = d >= 0 && t.inside[d] ? d : -1;
				if (dome_of[k] >= 0 && !taken[d])
					first[k] = taken[d] = 1;
			}
			free(taken);
			for (int q = 0; q < noffs; q++) {
				for (size_t k = 0; k < c.n; k++) {
					long d = nearest_point(t.x, t.y, NULL, t.n, c.items[k].x, c.items[k].y, 0.3 * t.pitch);
					ct.items[k] = c.items[k];
					if (d >= 0) {
						ct.items[k].x = t.x[d] + offs[q] * ca;
						ct.items[k].y = t.y[d] + offs[q] * sa;
					}
				}
				fs_base_readings_free(&readings);
				memset(&readings, 0, sizeof readings);
				row r;
				if (run_start(&m, &ct, pitch, smooth, dome_of, first, &t, ca, sa, o.halftone, &r)) {
					printf("%-6u %-5d out of memory\n", seeds[si], i);
					continue;
				}
				printf("%-6u i%-4d %4.2f %5.2f %4.0f %+6.2f | %+8.2f %+8.2f %+7.2f%s %+8.2f %+8.2f %+8.2f %+8.2f "
				       "%+6.2f %+6.2f %4d  (ridge's centre %+.2f px along; smooth %.2f; formation h/R %.2f side %+.2f R2 %.4f; held fill %+.1f %%, read at the true fill %+.2f)\n",
				       seeds[si], i, o.h_over_r, o.fill, o.pitch, offs[q], r.rays, r.ridge, r.along_read,
				       r.applied ? "a" : " ", r.moved, r.sized0, r.sized, r.final_d, r.c0, r.c1, r.all4, r.ridge_c, smooth, r.fhr, r.fside, r.r2, r.held, r.read_true);
				acc_add(&tot[j][q], &r);
				if (g_feet && g_f.n) {
					printf("   feet (px from the true base): lit %+.3f sides %+.3f far %+.3f | polygon %+.3f "
					       "inner shift %+.3f (lit %+.3f sides %+.3f; blur free: lit %+.3f at %.2f px, sides %+.3f at %.2f px) ridge blur %.3f local sigma %.3f radius %+.3f (%d domes)\n",
					       g_f.lit / g_f.nl, g_f.side / g_f.ns, g_f.far / g_f.nf, g_f.rpoly / g_f.n,
					       g_f.ishift / g_f.n, g_f.isl / g_f.n, g_f.iss / g_f.n, g_f.ifl / g_f.nfl, g_f.sfl / g_f.nfl, g_f.ifs / g_f.nfs,
					       g_f.sfs / g_f.nfs, g_f.blur / g_f.n, g_f.kappa_s / g_f.n, g_f.radius / g_f.n, g_f.n);
				}
				if (g_rays && g_f.n) {
					printf("   rays (deg from the detector: px from the true base, far share) azimuth %.2f deg, centre %+.3f along %+.3f across:",
					       g_raz / g_f.n * 180 / M_PI, g_cal / g_f.n, g_cac / g_f.n);
					for (int b = 0; b < 32; b++) {
						int bb = (b + 16) % 32;
						if (g_rn[bb])
							printf(" %.0f:%+.3f/%.2f", (bb > 16 ? bb - 32 : bb) * 11.25, g_re[bb] / g_rn[bb], g_rfar[bb] / g_rn[bb]);
					}
					printf("\n");
				}
				memset(g_re, 0, sizeof g_re);
				memset(g_rfar, 0, sizeof g_rfar);
				memset(g_rn, 0, sizeof g_rn);
				g_raz = g_cal = g_cac = 0;
				if (g_feet && g_f.n && g_feet > 1) {
					for (int g = 0; g < 2; g++) {
						printf("   profile %s (r - R, signal, d/dr):", g ? "sides" : "lit");
						for (int j = 0; j < PROF_N; j += 2) {
							double a = g_prof[g][j] / g_profn[g];
							double d = j > 0 && j < PROF_N - 1 ? (g_prof[g][j + 1] - g_prof[g][j - 1]) / g_profn[g] / 0.5 : NAN;
							if (j >= 8 && j <= 36)
								printf(" %+.1f:%.3f/%+.3f", -6 + 0.25 * j, a, d);
						}
						printf("\n");
					}
				}
				memset(g_prof, 0, sizeof g_prof);
				memset(g_profn, 0, sizeof g_profn);
				memset(&g_f, 0, sizeof g_f);
			}
		next:
			fs_base_readings_free(&readings);
			free(dome_of);
			free(first);
			fs_cand_free(&c);
			fs_cand_free(&ct);
			fs_image_free(mimg);
			fs_image_free(img);
			sem_truth_free(&t);
		}
	}
	printf("\nmeans over the seed sets, per scene and start (D %%; off.read px along)\n");
	printf("%-5s %4s %6s | %8s %8s %6s %8s %8s %8s %8s %8s %6s %6s %6s %7s %5s %5s\n", "scene", "h/R", "o", "rays",
	       "ridge", "rdg.c", "off.read", "moved", "sized0", "sized", "final", "c0", "c1", "held", "rd.true", "D3", "all4");
	for (int j = 0; j < nscenes; j++) {
		sem_opts o;
		sem_interior_scene(scenes[j], &o);
		for (int q = 0; q < noffs; q++) {
			const acc *a = &tot[j][q];
			if (!a->n)
				continue;
			printf("i%-4d %4.2f %+6.2f | %+8.2f %+8.2f %+6.2f %+8.2f %+8.2f %+8.2f %+8.2f %+8.2f %+6.2f %+6.2f %+6.1f %+7.2f "
			       "%2d/%-2d %2d/%-2d\n",
			       scenes[j], o.h_over_r, offs[q], a->rays / a->n, a->ridge / a->n, a->ridge_c / a->n, a->along_read / a->n,
			       a->moved / a->n, a->sized0 / a->n, a->sized / a->n, a->final_d / a->n, a->c0 / a->n,
			       a->c1 / a->n, a->held / a->n, a->read_true / a->n, a->d3, a->n, a->all4, a->n);
		}
	}
	return 0;
}
