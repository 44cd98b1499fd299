/*
 * bench_level_calib.c - the level reader's excess three ways per corner
 * scene (level_calib.h, h52a): from the scene's TRUE centres on the
 * rule's measurement image (the excess to take off: h46a, h47a, h49e), on
 * the lattice of the formation the rule fitted (the calibration's
 * ratio, traced from the detection), and the rule's own mean D and S
 * errors before and after the ratio is divided out. Whether the forward
 * model rendered at the image's profile blur carries the excess.
 *
 * Usage: bench_level_calib [--seeds A,B,...] [--blur PX] [--set KEY=VALUE]... [SCENE...]
 * (default the unscreened pitch-16 corner scenes 0..7 and 16..23, seed
 * set 0). The calibration runs in mode 1 (read, not applied) unless
 * FS_TEST_LEVEL_CALIB says otherwise; --blur also reads the lattice at
 * that blur (column "at": e.g. 0.943, the corner scenes' beam 0.8 and
 * the measurement image's 0.5 together, an oracle's); with mode 2 the rule's D already
 * holds it and the "after" columns divide it out twice. One row per
 * scene-seed: true-centre excess %, rendered excess %, the fill, blurs
 * (the render's, the formation's, the profile's) and reach of the
 * render, the rule's D and S %, and the same with every radius divided
 * by the ratio; then two oracles at the scene's blur (the beam and the
 * measurement image's smoothing, or --blur): the ratio with the templates'
 * weights solved about the TRUE centres at the TRUE fill and rendered at
 * it, on the rule's fitted formation (rule@true) and on the simulator's
 * own (sim@true), and the rule's profile and h/R; then the same two with
 * the weights solved and the lattice rendered at the templates' median
 * fill instead of the true one, read as % of the TRUE D (the reading of
 * a render of that fill: the level the image would be read at if its
 * domes were those); then the rule's formation with the weights solved
 * about the rule's own final centres at the templates' fill, at the
 * scene's blur and at the formation's own (% of the TRUE D as above). Asserts nothing: an
 * evidence bench (evidence.list).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/detect_base_fit.h"
#include "analysis/detect_methods.h"
#include "analysis/level_calib.h"
#include "formation_calib.h"
#include "sem_opts_keys.h"
#include "sem_scene.h"
#include "sem_score.h"

struct trace {
	fs_level_calib_info info;
	int n;
};

static void on_trace(void *ctx, const fs_level_calib_info *in)
{
	struct trace *t = ctx;
	t->info = *in;
	t->n++;
}

/* The level reader's mean radius from the TRUE counted centres on the
 * rule's measurement image with reach mr, as % of the true mean D. */
static double true_excess(const sem_scene *s, double mr)
{
	fs_image *meas = NULL;
	char err[256];
	double msig = s->tr.pitch >= 40 ? 1.0 : 0.5;
	if (!(mr > 0) || fs_detect_measure_image(s->img, &s->p, msig, &meas, err, sizeof err))
		return NAN;
	double sr = 0, sd = 0;
	for (size_t j = 0; j < s->tr.n; j++) {
		if (!sem_counted(&s->tr, s->tr.x[j], s->tr.y[j]))
			continue;
		int edge;
		double var, r = fs_det_base_level_blur(meas, s->tr.x[j], s->tr.y[j], mr, 1, &edge, &var, NULL);
		if (!isfinite(r) || edge)
			continue;
		sr += 2 * r;
		sd += s->tr.d[j];
	}
	fs_image_free(meas);
	return sd > 0 ? 100 * (sr - sd) / sd : NAN;
}

/* The reader's ratio on formation f's lattice with the templates' weights
 * solved on the image about the TRUE counted centres at the TRUE fill,
 * rendered at that fill and blur: which part of the rule's calibration
 * (its centres and fill, or the formation's geometry) misses the excess.
 * %-1 of the true D, NAN where it cannot be read. */
static double oracle_ratio_at(const sem_scene *s, const sem_opts *o, const fs_dome_fit *f, double blur, double mr,
			      double fill, const double *xs, const double *ys, size_t n)
{
	fs_image *meas = NULL;
	char err[256];
	double msig = s->tr.pitch >= 40 ? 1.0 : 0.5;
	if (fs_detect_measure_image(s->img, &s->p, msig, &meas, err, sizeof err))
		return NAN;
	double ratio = NAN;
	int nr;
	fs_dome_fit fb = *f;
	fb.blur_px = blur;
	fs_dome_tpl u;
	if (!fs_dome_tpl_build(meas, &fb, fill, xs, ys, n, &u, err, sizeof err)) {
		(void)fs_level_calib_read(&u, &fb, fill, blur, mr, &ratio, &nr);
		fs_dome_tpl_free(&u);
	}
	fs_image_free(meas);
	/* (as % of the true base: the render's base is fill's) */
	return 100 * (ratio * fill / o->fill - 1);
}

static double oracle_ratio(const sem_scene *s, const sem_opts *o, const fs_dome_fit *f, double blur, double mr,
			   double fill)
{
	double *xs = malloc((s->tr.n + 1) * sizeof *xs), *ys = malloc((s->tr.n + 1) * sizeof *ys);
	double v = NAN;
	if (xs && ys) {
		size_t n = sem_counted_centres(&s->tr, xs, ys);
		v = oracle_ratio_at(s, o, f, blur, mr, fill, xs, ys, n);
	}
	free(xs);
	free(ys);
	return v;
}

/* The same about the rule's own final centres (res), the fill the
 * templates read. */
static double rule_centres_ratio(const sem_scene *s, const sem_opts *o, const fs_tubercle_list *res,
				 const fs_dome_fit *f, double blur, double mr, double fill)
{
	double *xs = malloc((res->n + 1) * sizeof *xs), *ys = malloc((res->n + 1) * sizeof *ys);
	double v = NAN;
	if (xs && ys) {
		size_t n = 0;
		for (size_t i = 0; i < res->n; i++)
			if (isfinite(res->items[i].radius_px)) {
				xs[n] = res->items[i].centroid_x;
				ys[n++] = res->items[i].centroid_y;
			}
		v = oracle_ratio_at(s, o, f, blur, mr, fill, xs, ys, n);
	}
	free(xs);
	free(ys);
	return v;
}

static double oracle_blur = 0;

static int run(int k, unsigned add, const sem_opts_args *set, struct trace *tr)
{
	sem_opts o;
	sem_corner_args(k, add, set, &o);
	sem_scene s;
	if (sem_scene_render(&s, &o)) {
		fprintf(stderr, "corner %d +%u: %s\n", k, add, s.err);
		return -1;
	}
	fs_detect_result res;
	tr->n = 0;
	if (fs_detect_domes(s.img, &s.p, 0, &res, s.err, sizeof s.err)) {
		fprintf(stderr, "corner %d +%u: %s\n", k, add, s.err);
		sem_scene_close(&s);
		return -1;
	}
	sem_score a, b;
	const fs_level_calib_info *in = &tr->info;
	double f = tr->n && in->ratio > 0 ? 1 / in->ratio : NAN;
	int rc = sem_score_detection(&s.tr, &res.tubercles, o.halftone, &a);
	if (!rc && isfinite(f))
		rc = sem_score_scaled(&s.tr, &res.tubercles, o.halftone, f, &b);
	if (!rc) {
		double te = tr->n ? true_excess(&s, in->mr) : NAN;
		double ob = oracle_blur > 0 ? oracle_blur : hypot(o.beam_blur, s.tr.pitch >= 40 ? 1.0 : 0.5);
		fs_dome_fit sim;
		formation_sim(&o, s.tr.pitch, o.fill, ob, &sim);
		double o_rule = tr->n ? oracle_ratio(&s, &o, &in->form, ob, in->mr, o.fill) : NAN;
		double o_sim = tr->n ? oracle_ratio(&s, &o, &sim, ob, in->mr, o.fill) : NAN;
		double o_rf = tr->n ? oracle_ratio(&s, &o, &in->form, ob, in->mr, in->fill) : NAN;
		double o_sf = tr->n ? oracle_ratio(&s, &o, &sim, ob, in->mr, in->fill) : NAN;
		double c_ob = tr->n ? rule_centres_ratio(&s, &o, &res.tubercles, &in->form, ob, in->mr, in->fill) : NAN;
		double c_fb = tr->n ? rule_centres_ratio(&s, &o, &res.tubercles, &in->form, in->form_blur, in->mr,
							 in->fill)
				    : NAN;
		printf("%-3d +%-5u %s h/R %.2f fill %.2f | true %+6.2f render %+6.2f form %+6.2f at %+6.2f | tfill %.3f "
		       "blur %.3f form %.3f vblur %.3f mr %.2f ph %d | D %+6.2f S %+6.2f -> D %+6.2f S %+6.2f | rule@true %+6.2f "
		       "sim@true %+6.2f (%s h/R %.2f) | at the templates' fill: rule %+6.2f sim %+6.2f | "
		       "rule's centres, weights at %.3f: %+6.2f, at its own blur: %+6.2f\n",
		       k, add, o.profile > 1.5 ? "flat" : "sph ", o.h_over_r, o.fill, te,
		       tr->n ? 100 * (in->ratio - 1) : NAN, tr->n ? 100 * (in->ratio_form - 1) : NAN,
		       tr->n ? 100 * (in->ratio_at - 1) : NAN, tr->n ? in->fill : NAN, tr->n ? in->blur : NAN,
		       tr->n ? in->form_blur : NAN, tr->n ? in->vblur : NAN, tr->n ? in->mr : NAN,
		       tr->n ? in->nread : 0, a.d_err, a.s_err, isfinite(f) ? b.d_err : NAN,
		       isfinite(f) ? b.s_err : NAN, o_rule, o_sim, tr->n && in->form.profile > 1.5 ? "flat" : "sph",
		       tr->n ? in->form.h_over_r : NAN, o_rf, o_sf, ob, c_ob, c_fb);
	}
	fs_detect_result_free(&res);
	sem_scene_close(&s);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned seeds[16] = {0};
	int nseeds = 1, scenes[64], ns = 0;
	sem_opts_args set;
	memset(&set, 0, sizeof set);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seeds") && i + 1 < argc) {
			nseeds = 0;
			for (char *q = argv[++i]; *q && nseeds < 16;) {
				seeds[nseeds++] = (unsigned)strtoul(q, &q, 10);
				if (*q == ',')
					q++;
			}
		} else if (!strcmp(argv[i], "--blur") && i + 1 < argc) {
			oracle_blur = atof(argv[++i]);
			fs_level_calib_set_blur(oracle_blur);
		} else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
			if (sem_opts_args_add(&set, argv[++i])) {
				fprintf(stderr, "--set %s: not a key=value the simulator knows\n", argv[i]);
				return 2;
			}
		} else if (ns < 64 && argv[i][0] != '-')
			scenes[ns++] = atoi(argv[i]);
		else {
			fprintf(stderr, "usage: %s [--seeds A,B,...] [--blur PX] [--set KEY=VALUE]... [SCENE...]\n", argv[0]);
			return 2;
		}
	}
	if (!ns)
		for (int k = 0; k < 24; k++)
			if (k < 8 || k >= 16)
				scenes[ns++] = k;
	if (!getenv("FS_TEST_LEVEL_CALIB"))
		fs_level_calib_set(1);
	struct trace tr;
	memset(&tr, 0, sizeof tr);
	fs_level_calib_set_trace(on_trace, &tr);
	printf("the level reader's excess, %% of the true mean D: from the TRUE centres, on the fitted formation's\n"
	       "lattice (level_calib.h, mode %d); the rule's D and S %%, then with every radius / the ratio\n",
	       fs_level_calib_on());
	for (int si = 0; si < nseeds; si++)
		for (int i = 0; i < ns; i++)
			if (run(scenes[i], seeds[si], &set, &tr))
				return 1;
	return 0;
}
