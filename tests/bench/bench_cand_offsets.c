/*
 * bench_cand_offsets - where the dome rule's candidates sit against the
 * true centres, along the detector's axis, on printed (halftone) scenes
 * and on the same scenes without the screen, and what of it the screen
 * adds (issue 13; docs/paper-figures.md, h46c). Asserts nothing.
 *
 * Why: h45d found the printed interior's candidates about 1.5 px further
 * towards the detector than without a screen (+2.9..+4.1 px against
 * +1.4..+2.2), a bias the first formation fit reads only 0.6 of. This
 * makes the candidates as detect.c makes them (the image reduced by
 * f = pitch / 10 where the pitch is 20 px or more, fs_det_preprocess,
 * fs_detect_auto_candidates with the dome rule's votes and template) and
 * reads their mean offset from the truth, matched as bench_centre_steps
 * matches (each true inside dome its nearest candidate within 0.3 pitch):
 *   rule       the scene as given (printed when P > 0);
 *   unscreened the same surface rendered without the screen (P > 0 only);
 *   descreened the printed scene low-passed at full resolution by
 *              K x its period (fs_halftone_detect on the full image)
 *              before the reduction: the screen taken out before the
 *              block means alias it (a 5-px screen on f = 3 blocks is
 *              not averaged away, and fs_halftone_detect does not find
 *              it on the reduced image: the candidates' smoothing stays
 *              0.05 pitch);
 *   blurred    the unscreened scene blurred by S px before the reduction:
 *              how much extra blur moves the votes as far as the screen.
 * Usage: bench_cand_offsets [--corner] [--halftone P] [--seeds A,B,...]
 *        [--descreen K] [--blur S | --noise A] [--reduce F]
 *        [--replay | --walk | --walk-only | --walk-trace | --walk-cuts] [SCENE...]
 * defaults: the interior scenes (--corner: the corner scenes), P 5,
 * seeds 0, K 0.3 (FS_HALFTONE_LOWPASS), S 0 (column left out); --noise
 * A: the unscreened twin with white noise of SD A instead; --reduce F:
 * the candidates on the image reduced by F, not pitch / 10; --replay:
 * the rule run again from its candidates moved (centred on the truth,
 * an oracle; by the screen's share; without the refinement) and scored,
 * with a check that the unmoved replay is the rule to the bit; --walk:
 * also with fs_meas.walk (detect_walk.h); --walk-only: the rule and the
 * walk alone (h46c's tables); --walk-trace: --walk-only with each walk's
 * readings, --walk-cuts: and the rule cut after each step (h47b); SCENE:
 * scene numbers (default all; with --corner, the printed ones when P > 0,
 * i.e. the scenes whose own options print them). SEM_SCENE_CACHE shares
 * the renders with the tests. Cost: about 0.3 s a scene-seed cached.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/base_readings.h"
#include "analysis/detect.h"
#include "analysis/detect_candidates.h"
#include "analysis/detect_measure.h"
#include "analysis/detect_methods.h"
#include "analysis/detect_walk.h"
#include "analysis/halftone.h"
#include "analysis/lattice_estimate.h"
#include "analysis/preprocess.h"
#include "bench_support.h"
#include "dome_candidates.h"
#include "image/image.h"
#include "nearest_point.h"
#include "sem_cache.h"
#include "sem_score.h"
#include "sem_sim.h"

#define MAX_SEEDS 16
#define MAX_SCENES 64

/* --reduce F: the candidates made on the image reduced by F instead of
 * detect.c's pitch / 10 (0: detect.c's) */
static int g_force_f;

/* --noise A: the unscreened twin with white Gaussian noise of SD A added
 * (a fixed generator, so every run draws the same), printed as "noisy":
 * whether texture without the screen's tone dependence moves the votes
 * as the screen does */
static double g_noise;

/* --replay: each scene-seed's rule run again from its candidates moved
 * (replay above) and scored */
static int g_replay;
/* --walk (with --replay): also the rule with fs_meas.walk set (the
 * candidates walked by the formation's offset under a coarse screen,
 * detect_walk.h) */
static int g_walk;
/* --walk-trace (h47b): --walk-only, and each walked scene's formation
 * readings step by step (detect_walk.h's trace); --walk-cuts: also where
 * each stop would leave the rule: the rule replayed with the walk cut
 * after k steps, k = 1 .. the steps the walk takes */
static int g_walk_trace;
/* --walk-cuts: --walk-trace with the cuts (k replays more a scene) */
static int g_walk_cuts;
/* --walk-only: the rule and the walk alone (no oracle replays) */
static int g_walk_only;

static fs_image *noisy_copy(const fs_image *img, double sd)
{
	char err[128];
	fs_image *c = fs_gaussian_blurred(img, 1e-4, err, sizeof err);
	if (!c)
		return NULL;
	unsigned long long st = 0x9e3779b97f4a7c15ULL;
	size_t n = (size_t)c->width * c->height;
	for (size_t i = 0; i < n; i++) {
		double u[2];
		for (int j = 0; j < 2; j++) {
			st = st * 6364136223846793005ULL + 1442695040888963407ULL;
			u[j] = ((st >> 11) + 0.5) / 9007199254740992.0;
		}
		c->data[i] += (float)(sd * sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]));
	}
	return c;
}

/* The candidates' mean offset along (ax, ay) and across it from the
 * truth's inside domes (each its nearest candidate within 0.3 pitch,
 * nearest_mean_offset); *k the matched count (0: the means are NAN). */
static void offsets(const fs_cand_list *c, const sem_truth *tr, double ax, double ay, double *along,
		    double *across, size_t *k)
{
	long m = nearest_mean_offset(c, 0, 0, tr, 0.3, ax, ay, along, across);
	if (m < 0)
		printf("  (offsets: out of memory)\n");
	*k = m > 0 ? (size_t)m : 0;
}

/* The dome rule's candidates of img as detect.c makes them, img first
 * blurred by pre_sigma px (0: as it is); their mean offsets into *along,
 * *across, *k. Returns 0, -1 on failure (message printed). */
static int cand_offsets(const fs_image *img, double pre_sigma, const sem_truth *tr, double axis, double *along,
			double *across, size_t *k, int *f_out)
{
	char err[256];
	fs_params p;
	fs_params_default(&p);
	fs_lattice lat;
	fs_image *src = NULL;
	fs_cand_list c = {0};
	int rc = -1;
	*k = 0;
	*along = *across = NAN;
	if (pre_sigma > 0 && !(src = fs_gaussian_blurred(img, pre_sigma, err, sizeof err)))
		goto out;
	const fs_image *im = src ? src : img;
	if (fs_lattice_estimate(im, &lat, err, sizeof err) || !(lat.pitch_px > 0)) {
		snprintf(err, sizeof err, "no lattice");
		goto out;
	}
	if (dome_candidates(im, &p, lat.pitch_px, g_force_f, &c, f_out, err, sizeof err))
		goto out;
	offsets(&c, tr, cos(axis), sin(axis), along, across, k);
	rc = 0;
out:
	if (rc)
		printf("  (candidates failed: %s)\n", err);
	fs_image_free(src);
	fs_cand_free(&c);
	return rc;
}

/*
 * --replay: the rest of the rule run from the candidates moved by
 * (dx, dy) px (0, 0: the rule itself), as detect.c's whole-image dome path
 * runs it (the image measured whole: the interior scenes are at most four
 * tiles): fs_det_measure's first pass, then the last step at the final
 * centres (fs_det_size_domes_list). The tubercles into *out (the
 * caller's, freed by fs_tubercle_list_free). Returns 0, -1 (printed).
 */
static int replay(const fs_image *img, double dx, double dy, int refine, int walk, fs_tubercle_list *out)
{
	char err[256];
	fs_params p;
	fs_params_default(&p);
	fs_lattice lat;
	fs_image *meas = NULL;
	fs_cand_list c = {0};
	fs_base_readings readings = {0};
	int rc = -1;
	memset(out, 0, sizeof *out);
	if (fs_lattice_estimate(img, &lat, err, sizeof err) || !(lat.pitch_px > 0)) {
		snprintf(err, sizeof err, "no lattice");
		goto out;
	}
	double pitch = lat.pitch_px;
	int f = 1;
	if (dome_candidates(img, &p, pitch, 0, &c, &f, err, sizeof err))
		goto out;
	for (size_t i = 0; i < c.n; i++) {
		c.items[i].x += dx;
		c.items[i].y += dy;
	}
	if (fs_detect_measure_image(img, &p, pitch >= 40 ? 1.0 : 0.5, &meas, err, sizeof err))
		goto out;
	int threads = 1;
	fs_detect_get_tiling(NULL, &threads);
	fs_meas m = {.img = meas, .f = 1, .width = img->width, .height = img->height, .dome = 1,
		     .refine = refine && f > 1 ? 0.15 * pitch : 0, .src = img, .mp = &p, .sigma = 0, .tile = 0,
		     .threads = threads, .readings = &readings, .walk = walk};
	if (fs_det_measure(&m, &c, 0.6 * pitch, 0.7 * pitch, &p, FS_SOURCE_EXTRACTED, out)) {
		snprintf(err, sizeof err, "measure failed");
		goto out;
	}
	fs_meas g = m;
	g.given = 2;
	g.refine = 0;
	g.flat_spread = NULL;
	if (fs_det_size_domes_list(&g, 0.6 * pitch, out, err, sizeof err))
		goto out;
	rc = 0;
out:
	if (rc) {
		printf("  (replay failed: %s)\n", err);
		fs_tubercle_list_free(out);
	}
	fs_base_readings_free(&readings);
	fs_image_free(meas);
	fs_cand_free(&c);
	return rc;
}

/* The tubercles' mean offset along (ax, ay) from the truth (offsets()'s
 * matching), NAN when none matches */
static double tub_along(const fs_tubercle_list *l, const sem_truth *tr, double ax, double ay)
{
	fs_cand_list c = {0};
	double al = NAN, ac;
	size_t k;
	for (size_t i = 0; i < l->n; i++) {
		fs_cand q = {.x = l->items[i].centroid_x, .y = l->items[i].centroid_y};
		if (fs_cand_append(&c, &q)) {
			fs_cand_free(&c);
			return NAN;
		}
	}
	offsets(&c, tr, ax, ay, &al, &ac, &k);
	fs_cand_free(&c);
	return al;
}

/* A replay's score: all four (as test_sem_accuracy's), mean D within 3 %
 * and within 10 %, |mean D error| */
typedef struct tally4 {
	int n, all, d3, d10;
	double abs_d;
} tally4;

/* the last score_into's all four (1 met, 0 not), for the per-scene lines */
static int g_last_all;

static int score_into(const sem_truth *t, const fs_tubercle_list *res, double halftone, tally4 *T, double *d_err)
{
	sem_score r;
	*d_err = NAN;
	if (sem_score_detection(t, res, halftone, &r))
		return -1;
	int ok_d = fabs(r.d_err) < 3, ok_s = fabs(r.s_err) < 3, ok_sd = !r.sd_applies || r.d_sd < 8;
	int ok_rp = r.recall >= 0.97 && r.precision >= 0.97;
	T->n++;
	T->all += ok_d && ok_s && ok_sd && ok_rp;
	g_last_all = ok_d && ok_s && ok_sd && ok_rp;
	T->d3 += ok_d;
	T->d10 += fabs(r.d_err) < 10;
	T->abs_d += fabs(r.d_err);
	*d_err = r.d_err;
	return 0;
}

/* 1 when a and b hold the same tubercles to the bit (count, centres,
 * radii) */
static int same_list(const fs_tubercle_list *a, const fs_tubercle_list *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->items[i].centroid_x != b->items[i].centroid_x ||
		    a->items[i].centroid_y != b->items[i].centroid_y || a->items[i].radius_px != b->items[i].radius_px)
			return 0;
	return 1;
}

/* --walk-trace: the walk's readings (wt, from the candidates' mean
 * offset al along (ca, sa)) and the rule with the walk cut after k
 * steps. Per reading: the candidates' offset along the axis from the
 * truth where it was read, the offset read (along, across), the
 * formation's R^2, fill, h/R, blur and side, the unrefined bases' mean
 * D against the true mean; per cut: the rule's mean D error and its
 * final centres along. */
static void print_walk_trace(const fs_image *img, const sem_truth *t, const fs_det_walk_trace *wt, double al,
			     double ca, double sa, double halftone)
{
	double td = 0;
	size_t nt = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->inside[i]) {
			td += t->d[i];
			nt++;
		}
	td = nt ? td / nt : NAN;
	int taken = 0;
	for (int k = 0; k < wt->n; k++) {
		const fs_det_walk_step *s = &wt->step[k];
		double at = al + s->sx * ca + s->sy * sa;
		double ra = s->dx * ca + s->dy * sa, rx = -s->dx * sa + s->dy * ca;
		printf("       trace %d: at %+6.2f read %+6.2f (%+5.2f across) R2 %.4f fill %.3f h/R %.2f blur %.2f "
		       "side %+6.2f bases D %+6.2f %% (%zu), first pass's %+6.2f %%, ratio %.3f\n",
		       k, at, ra, rx, s->quality, s->fill, s->h_over_r, s->blur_px, s->side,
		       100 * (2 * s->mean_r / td - 1), s->n_ok, 100 * (2 * s->first_r / td - 1), s->mean_r / s->first_r);
		/* a reading was a step taken unless it was the last one
		 * the walk refused */
		if (k + 1 < wt->n)
			taken = k + 1;
	}
	/* (the last reading's step: taken when the replay's full walk moved
	 * by it, which the cut at n reproduces) */
	for (int k = 1; g_walk_cuts && k <= wt->n; k++) {
		fs_det_walk_trace cut = {.max_steps = k};
		fs_tubercle_list l = {0};
		fs_det_walk_set_trace(&cut);
		int rc = replay(img, 0, 0, 1, 1, &l);
		fs_det_walk_set_trace(NULL);
		if (rc)
			continue;
		sem_score r;
		if (!sem_score_detection(t, &l, halftone, &r)) {
			int all = fabs(r.d_err) < 3 && fabs(r.s_err) < 3 && (!r.sd_applies || r.d_sd < 8) &&
				  r.recall >= 0.97 && r.precision >= 0.97;
			printf("       cut after %d step%s: D %+6.2f %%, S %+6.2f %%, SD %5.2f, R/P %.3f/%.3f, all four %d, "
			       "final along %+5.2f%s\n",
			       k, k > 1 ? "s" : " ", r.d_err, r.s_err, r.d_sd, r.recall, r.precision, all,
			       tub_along(&l, t, ca, sa), k > taken ? " (the walk's own end)" : "");
		}
		fs_tubercle_list_free(&l);
	}
}

typedef struct col {
	double sum;
	int n;
} col;

static void col_add(col *c, double v)
{
	if (isfinite(v)) {
		c->sum += v;
		c->n++;
	}
}

int main(int argc, char **argv)
{
	int corner = 0, nseeds = 1, nscenes = 0;
	double P = 5, K = FS_HALFTONE_LOWPASS, S = 0;
	unsigned seeds[MAX_SEEDS] = {0};
	long scenes[MAX_SCENES];
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--corner"))
			corner = 1;
		else if (!strcmp(argv[a], "--halftone") && a + 1 < argc)
			P = atof(argv[++a]);
		else if (!strcmp(argv[a], "--descreen") && a + 1 < argc)
			K = atof(argv[++a]);
		else if (!strcmp(argv[a], "--replay"))
			g_replay = 1;
		else if (!strcmp(argv[a], "--walk"))
			g_walk = g_replay = 1;
		else if (!strcmp(argv[a], "--walk-only"))
			g_walk_only = g_walk = g_replay = 1;
		else if (!strcmp(argv[a], "--walk-trace"))
			g_walk_trace = g_walk_only = g_walk = g_replay = 1;
		else if (!strcmp(argv[a], "--walk-cuts"))
			g_walk_cuts = g_walk_trace = g_walk_only = g_walk = g_replay = 1;
		else if (!strcmp(argv[a], "--noise") && a + 1 < argc)
			g_noise = atof(argv[++a]);
		else if (!strcmp(argv[a], "--reduce") && a + 1 < argc)
			g_force_f = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--blur") && a + 1 < argc)
			S = atof(argv[++a]);
		else if (!strcmp(argv[a], "--seeds") && a + 1 < argc) {
			if ((nseeds = bench_parse_seeds(argv[++a], seeds, MAX_SEEDS)) < 1) {
				fprintf(stderr, "bad --seeds\n");
				return 2;
			}
		} else if (nscenes < MAX_SCENES && argv[a][0] >= '0' && argv[a][0] <= '9')
			scenes[nscenes++] = atol(argv[a]);
		else {
			fprintf(stderr,
				"usage: bench_cand_offsets [--corner] [--halftone P] [--seeds A,B,...] "
				"[--descreen K] [--blur S] [SCENE...]\n");
			return 2;
		}
	}
	int total = corner ? 64 : SEM_INTERIOR_SCENES;
	if (!nscenes)
		for (int i = 0; i < total; i++) {
			sem_opts o;
			if (corner) {
				/* the corner scenes printed by their own options */
				sem_corner_scene(i, &o);
				if (P > 0 && !(o.halftone > 0))
					continue;
			}
			scenes[nscenes++] = i;
		}
	printf("candidates' mean offset along the detector's axis (px, + towards it), %s scenes, screen %g px\n",
	       corner ? "corner" : "interior", P);
	printf("%-6s %-5s %6s %2s %8s %8s %8s %8s %8s %8s\n", "seed", "scene", "pitch", "f", "rule", "across",
	       "unscr", "screen+", "descr", S > 0 ? "blurred" : g_noise > 0 ? "noisy" : "-");
	col c_rule = {0}, c_un = {0}, c_add = {0}, c_ds = {0}, c_bl = {0};
	tally4 t_rule = {0}, t_centred = {0}, t_unscr = {0}, t_unref = {0}, t_centred_unref = {0}, t_walk = {0};
	int replay_diff = 0;
	double add_min = INFINITY, add_max = -INFINITY;
	for (int si = 0; si < nseeds; si++) {
		for (int j = 0; j < nscenes; j++) {
			int i = (int)scenes[j];
			if (i < 0 || i >= total)
				continue;
			sem_opts o;
			if (corner)
				sem_corner_scene(i, &o);
			else
				sem_interior_scene(i, &o);
			o.seed += seeds[si];
			/* the interior scenes are printed after the seed, as
			 * bench_interior_seeds --halftone prints them; a corner
			 * scene keeps its own screen */
			if (!corner)
				o.halftone = P;
			sem_opts ou = o;
			ou.halftone = 0;
			sem_truth t, tu;
			fs_image *img = sem_make_shared(&o, &t);
			if (!img) {
				printf("%-6u %-5d not rendered\n", seeds[si], i);
				continue;
			}
			double axis = o.det_azimuth;
			double al = NAN, ac = NAN, alu = NAN, acu = NAN, ald = NAN, acd = NAN, alb = NAN, acb = NAN;
			size_t k;
			int f = 1, fu = 1;
			cand_offsets(img, 0, &t, axis, &al, &ac, &k, &f);
			if (o.halftone > 0) {
				fs_image *un = sem_make_shared(&ou, &tu);
				if (un) {
					cand_offsets(un, 0, &tu, axis, &alu, &acu, &k, &fu);
					if (S > 0)
						cand_offsets(un, S, &tu, axis, &alb, &acb, &k, &fu);
					fs_image *nz = g_noise > 0 ? noisy_copy(un, g_noise) : NULL;
					if (nz)
						cand_offsets(nz, 0, &tu, axis, &alb, &acb, &k, &fu);
					fs_image_free(nz);
					fs_image_free(un);
					sem_truth_free(&tu);
				}
				double period = 0;
				char err[128];
				/* fs_halftone_detect reads floats: a compact scene
				 * widened by a blur of (almost) nothing */
				fs_image *fl = fs_gaussian_blurred(img, 1e-4, err, sizeof err);
				if (fl && !fs_halftone_detect(fl, &period, NULL) && period > 0)
					cand_offsets(img, K * period, &t, axis, &ald, &acd, &k, &f);
				fs_image_free(fl);
			}
			printf("%-6u %-5d %6.1f %2d %+8.2f %+8.2f %+8.2f %+8.2f %+8.2f %+8.2f\n", seeds[si], i, o.pitch,
			       f, al, ac, alu, al - alu, ald, alb);
			col_add(&c_rule, al);
			col_add(&c_un, alu);
			col_add(&c_add, al - alu);
			col_add(&c_ds, ald);
			col_add(&c_bl, alb);
			if (isfinite(al - alu)) {
				add_min = fmin(add_min, al - alu);
				add_max = fmax(add_max, al - alu);
			}
			if (g_replay && isfinite(al)) {
				/* the rule; its replay (which must be the rule to the
				 * bit); the candidates moved by their mean offset along
				 * the axis (centred, an oracle: the truth says how far);
				 * by the screen's share alone (as without the screen) */
				char err[256];
				fs_params p;
				fs_params_default(&p);
				fs_detect_result res;
				fs_tubercle_list rp = {0}, rc = {0}, ru = {0};
				double ca = cos(axis), sa = sin(axis), share = isfinite(alu) ? al - alu : 0;
				double d_rule = NAN, d_c = NAN, d_u = NAN, f_rule = NAN, f_c = NAN, f_u = NAN;
				int rule_all = 0;
				if (!fs_detect_domes(img, &p, 0, &res, err, sizeof err)) {
					score_into(&t, &res.tubercles, o.halftone, &t_rule, &d_rule);
					rule_all = g_last_all;
					f_rule = tub_along(&res.tubercles, &t, ca, sa);
					if (!replay(img, 0, 0, 1, 0, &rp))
						replay_diff += !same_list(&rp, &res.tubercles);
					fs_detect_result_free(&res);
				}
				if (!g_walk_only && !replay(img, -al * ca, -al * sa, 1, 0, &rc))
				{
					score_into(&t, &rc, o.halftone, &t_centred, &d_c);
					f_c = tub_along(&rc, &t, ca, sa);
				}
				if (!g_walk_only && o.halftone > 0 && !replay(img, -share * ca, -share * sa, 1, 0, &ru))
				{
					score_into(&t, &ru, o.halftone, &t_unscr, &d_u);
					f_u = tub_along(&ru, &t, ca, sa);
				}
				if (o.halftone > 0) {
					/* both without the first pass's refinement (the
					 * unrefined path h43j and h44d keep under a screen) */
					fs_tubercle_list a = {0}, b = {0};
					double d_a = NAN, d_b = NAN, f_a = NAN, f_b = NAN;
					if (!g_walk_only && !replay(img, 0, 0, 0, 0, &a)) {
						score_into(&t, &a, o.halftone, &t_unref, &d_a);
						f_a = tub_along(&a, &t, ca, sa);
					}
					if (!g_walk_only && !replay(img, -al * ca, -al * sa, 0, 0, &b)) {
						score_into(&t, &b, o.halftone, &t_centred_unref, &d_b);
						f_b = tub_along(&b, &t, ca, sa);
					}
					printf("       unrefined: rule's candidates %+6.2f (%+5.2f), centred %+6.2f (%+5.2f)\n",
					       d_a, f_a, d_b, f_b);
					fs_tubercle_list w = {0};
					fs_det_walk_trace wt = {0};
					if (g_walk_trace)
						fs_det_walk_set_trace(&wt);
					if (g_walk && !replay(img, 0, 0, 1, 1, &w)) {
						double d_w = NAN;
						score_into(&t, &w, o.halftone, &t_walk, &d_w);
						printf("       walked (fs_meas.walk): %+6.2f (%+5.2f) all four %d\n", d_w,
						       tub_along(&w, &t, ca, sa), g_last_all);
					}
					fs_tubercle_list_free(&w);
					fs_det_walk_set_trace(NULL);
					if (g_walk_trace)
						print_walk_trace(img, &t, &wt, al, ca, sa, o.halftone);
					fs_tubercle_list_free(&a);
					fs_tubercle_list_free(&b);
				}
				printf("       replayed D %% (final centres along, px): rule %+6.2f (%+5.2f), centred %+6.2f "
				       "(%+5.2f), screen's share taken out %+6.2f (%+5.2f); rule's all four %d\n",
				       d_rule, f_rule, d_c, f_c, d_u, f_u, rule_all);
				fs_tubercle_list_free(&rp);
				fs_tubercle_list_free(&rc);
				fs_tubercle_list_free(&ru);
			}
			fs_image_free(img);
			sem_truth_free(&t);
		}
	}
	printf("mean over scene-seeds: rule %+.2f (%d), unscreened %+.2f (%d), the screen adds %+.2f (%+.2f..%+.2f), "
	       "descreened %+.2f (%d)",
	       c_rule.sum / c_rule.n, c_rule.n, c_un.sum / c_un.n, c_un.n, c_add.sum / c_add.n, add_min, add_max,
	       c_ds.sum / c_ds.n, c_ds.n);
	if (S > 0 || g_noise > 0)
		printf(", unscreened %s %g %+.2f (%d)", S > 0 ? "blurred by (px)" : "with noise of SD", S > 0 ? S : g_noise,
		       c_bl.sum / c_bl.n, c_bl.n);
	printf("\n");
	if (g_replay) {
		const tally4 *T[6] = {&t_rule, &t_centred, &t_unscr, &t_unref, &t_centred_unref, &t_walk};
		const char *name[6] = {"rule", "candidates centred (oracle)", "the screen's share taken out",
				       "no refinement", "centred, no refinement", "walked (fs_meas.walk)"};
		printf("replay = rule on %d of %d scene-seeds\n", t_rule.n - replay_diff, t_rule.n);
		for (int i = 0; i < 6; i++)
			if (T[i]->n)
				printf("%-30s all four %d/%d, D within 3 %% %d, within 10 %% %d, mean |D| %.2f %%\n",
				       name[i], T[i]->all, T[i]->n, T[i]->d3, T[i]->d10, T[i]->abs_d / T[i]->n);
	}
	return 0;
}
