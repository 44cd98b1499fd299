/*
 * bench_level_calib.c - the level reader's excess three ways per corner
 * scene (level_calib.h, h52a): from the scene's TRUE centres on the
 * rule's measurement image (the excess to take off: h46a, h47a, h49e), on
 * the lattice of the formation the rule fitted (the calibration's
 * ratio, traced from the detection), and the rule's own mean D and S
 * errors before and after the ratio is divided out. Whether the forward
 * model rendered at the image's profile blur carries the excess.
 *
 * Usage: bench_level_calib [--seeds A,B,...] [--blur PX] [--fixpoint ROUNDS] [--curve] [--grid G] [--only A,B] [--set KEY=VALUE]... [SCENE...]
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
 *
 * --fixpoint ROUNDS (h53a): instead, per scene-seed the fixed point F =
 * fimg / ratio(F) from the rule's own fill fimg (its mean D over the
 * formation's pitch, the excess in) for several variants (run_fixpoint
 * says which), and the rule's D and S with every radius times F / fimg;
 * --curve also prints each variant's reading over rendered fills 0.8..1.3
 * x the true one; --grid G renders the lattice on G samples a pitch
 * (fs_level_calib_set_grid; 0 the templates' 24); --only a,b runs those
 * variants alone.
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
/* The calibration's raw ratio (reading / rendered base) on f's lattice
 * with the templates' weights solved on meas about (xs, ys) at fill
 * wfill, rendered at fill and blur; NAN where it cannot be read. */
static double ratio_about(const fs_image *meas, const fs_dome_fit *f, double blur, double mr, double wfill,
			  double fill, const double *xs, const double *ys, size_t n)
{
	char err[256];
	double ratio = NAN;
	int nr;
	fs_dome_fit fb = *f;
	fb.blur_px = blur;
	fs_dome_tpl u;
	if (!fs_dome_tpl_build(meas, &fb, wfill, xs, ys, n, &u, err, sizeof err)) {
		(void)fs_level_calib_read(&u, &fb, fill, blur, mr, &ratio, &nr);
		fs_dome_tpl_free(&u);
	}
	return ratio;
}

static int measure_image(const sem_scene *s, fs_image **meas)
{
	char err[256];
	double msig = s->tr.pitch >= 40 ? 1.0 : 0.5;
	return fs_detect_measure_image(s->img, &s->p, msig, meas, err, sizeof err);
}

static double oracle_ratio_at(const sem_scene *s, const sem_opts *o, const fs_dome_fit *f, double blur, double mr,
			      double fill, const double *xs, const double *ys, size_t n)
{
	fs_image *meas = NULL;
	if (measure_image(s, &meas))
		return NAN;
	double ratio = ratio_about(meas, f, blur, mr, fill, fill, xs, ys, n);
	fs_image_free(meas);
	/* (as % of the true base: the render's base is fill's) */
	return 100 * (ratio * fill / o->fill - 1);
}

/* --fixpoint (h53a): the fill F whose rendering, read by the level's
 * reader, reads the rule's own fill fimg: F = fimg / ratio(F), iterated
 * from F = fimg (the excess in) for at most fix_rounds rounds or until F
 * moves less than 0.1 %; rebuild: the weights solved again at each
 * round's fill (else once, at wfix). Returns the last F (NAN where a
 * round reads nothing), the rounds in *rounds, the fills (% of the true
 * fill) into seq. */
static int fix_rounds = 0, show_curve = 0;
static const char *only; /* --only a,b: the variants run (NULL: all) */

static int variant_on(const char *name)
{
	if (!only)
		return 1;
	size_t n = strlen(name);
	for (const char *q = only; (q = strstr(q, name)); q += n)
		if ((q == only || q[-1] == ',') && (q[n] == ',' || !q[n]))
			return 1;
	return 0;
}

static double fixpoint(const fs_image *meas, const fs_dome_fit *f, double blur, double mr, double fimg,
		       double wfix, double tfill, const double *xs, const double *ys, size_t n, int rebuild, int *rounds,
		       char *seq, size_t seqlen)
{
	double fill = fimg;
	size_t used = 0;
	*rounds = 0;
	seq[0] = 0;
	for (int r = 0; r < fix_rounds; r++) {
		double ratio = ratio_about(meas, f, blur, mr, rebuild ? fill : wfix, fill, xs, ys, n);
		if (!(ratio > 0))
			return NAN;
		double next = fimg / ratio;
		(*rounds)++;
		if (used < seqlen)
			used += (size_t)snprintf(seq + used, seqlen - used, "%s%+.1f", r ? "," : "",
						 100 * (next / tfill - 1));
		int done = fabs(next - fill) < 1e-3 * fill;
		fill = next;
		if (done)
			break;
	}
	return fill;
}

/* The sized domes' centres of res into xs, ys (callers' arrays of res->n
 * + 1), their mean diameter in *md; returns how many. */
static size_t rule_centres(const fs_tubercle_list *res, double *xs, double *ys, double *md)
{
	size_t n = 0;
	double sd = 0;
	for (size_t i = 0; i < res->n; i++)
		if (isfinite(res->items[i].radius_px)) {
			xs[n] = res->items[i].centroid_x;
			ys[n++] = res->items[i].centroid_y;
			sd += 2 * res->items[i].radius_px;
		}
	*md = n ? sd / n : NAN;
	return n;
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
	double v = NAN, md;
	if (xs && ys) {
		size_t n = rule_centres(res, xs, ys, &md);
		v = oracle_ratio_at(s, o, f, blur, mr, fill, xs, ys, n);
	}
	free(xs);
	free(ys);
	return v;
}

static double oracle_blur = 0;

/* One --fixpoint row: the rule's D and S, then per variant (the
 * formation, the blur rendered at, the centres the weights are solved
 * about, rebuilt each round or not) the fill's path as % of the true
 * fill, the rounds, and the rule's D and S with every radius times F /
 * fimg. Variants: rule = the rule's formation at its own blur about its
 * own centres (what the rule can do), fixw = the same with the weights
 * solved once at fimg, ob = at the scene's blur (an oracle's), vb = at
 * the across-axis profile's blur where it reads, true = about the TRUE
 * counted centres at the scene's blur, sim = the simulator's formation
 * there. -1 on out of memory. */
static int run_fixpoint(int k0, unsigned add, const sem_scene *s, const sem_opts *o, const fs_tubercle_list *res,
			const struct trace *tr, const sem_score *a)
{
	printf("%-3d +%-5u %s h/R %.2f fill %.2f | D %+6.2f S %+6.2f |", k0, add, o->profile > 1.5 ? "flat" : "sph ",
	       o->h_over_r, o->fill, a->d_err, a->s_err);
	if (!tr->n) {
		printf(" not calibrated (gate shut)\n");
		return 0;
	}
	const fs_level_calib_info *in = &tr->info;
	fs_image *meas = NULL;
	if (measure_image(s, &meas)) {
		printf(" no measurement image\n");
		return 0;
	}
	size_t cap = (res->n > s->tr.n ? res->n : s->tr.n) + 1;
	double *xs = malloc(cap * sizeof *xs), *ys = malloc(cap * sizeof *ys);
	double *tx = malloc(cap * sizeof *tx), *ty = malloc(cap * sizeof *ty);
	int rc = -1;
	if (!xs || !ys || !tx || !ty)
		goto out;
	double md, ob = oracle_blur > 0 ? oracle_blur : hypot(o->beam_blur, s->tr.pitch >= 40 ? 1.0 : 0.5);
	size_t n = rule_centres(res, xs, ys, &md), tn = sem_counted_centres(&s->tr, tx, ty);
	double fimg = md / in->form.pitch;
	fs_dome_fit sim;
	formation_sim(o, s->tr.pitch, o->fill, ob, &sim);
	struct {
		const char *name;
		const fs_dome_fit *f;
		double blur;
		int truec, rebuild;
	} v[] = {
		{"rule", &in->form, in->form_blur, 0, 1}, {"fixw", &in->form, in->form_blur, 0, 0},
		{"ob", &in->form, ob, 0, 1},		  {"vb", &in->form, in->vblur, 0, 1},
		{"true", &in->form, ob, 1, 1},		  {"sim", &sim, ob, 1, 1},
		{"simw", &sim, ob, 1, 0},
	};
	printf(" fimg %+.1f%% blur form %.3f vb %.3f ob %.3f mr %.2f (%s h/R %.2f)", 100 * (fimg / o->fill - 1),
	       in->form_blur, in->vblur, ob, in->mr, in->form.profile > 1.5 ? "flat" : "sph", in->form.h_over_r);
	/* --curve: the fill each variant's rendering reads (ratio x F, % of
	 * the true fill) at rendered fills F of 0.80..1.30 x the true one,
	 * the weights solved at F: where the reading stands still as F moves,
	 * the fixed point has nothing to hold on to */
	for (int c = 0; show_curve && c <= 20; c++) {
		double F = o->fill * (0.80 + 0.025 * c);
		printf("\n  curve F %+5.1f%%:", 100 * (F / o->fill - 1));
		for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
			if (!variant_on(v[k].name))
				continue;
			/* (not rebuilt: the weights solved at the true fill about
			 * the TRUE centres, else at the rule's fill) */
			double wf = v[k].rebuild ? F : v[k].truec ? o->fill : fimg;
			double r = v[k].blur > 0 ? ratio_about(meas, v[k].f, v[k].blur, in->mr, wf, F, v[k].truec ? tx : xs,
							       v[k].truec ? ty : ys, v[k].truec ? tn : n)
						 : NAN;
			printf(" %s %+6.1f", v[k].name, 100 * (r * F / o->fill - 1));
		}
	}
	for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
		if (!variant_on(v[k].name))
			continue;
		char seq[128];
		int rounds = 0;
		double F = NAN, d = NAN, sv = NAN;
		if (v[k].blur > 0)
			F = fixpoint(meas, v[k].f, v[k].blur, in->mr, fimg, v[k].truec ? o->fill : fimg, o->fill, v[k].truec ? tx : xs, v[k].truec ? ty : ys,
				     v[k].truec ? tn : n, v[k].rebuild, &rounds, seq, sizeof seq);
		if (isfinite(F) && sem_score_scaled_ds(&s->tr, res, o->halftone, F / fimg, &d, &sv))
			goto out;
		/* the reading of the render at the TRUE fill (the weights
		 * solved there where each round solves them), % of the true
		 * fill: where it is not the image's fimg, no fixed point lands
		 * on the truth */
		double at1 = NAN;
		if (v[k].blur > 0)
			at1 = o->fill * ratio_about(meas, v[k].f, v[k].blur, in->mr,
						    v[k].rebuild ? o->fill : v[k].truec ? o->fill : fimg, o->fill,
						    v[k].truec ? tx : xs, v[k].truec ? ty : ys, v[k].truec ? tn : n);
		printf(" | %s D %+6.2f S %+6.2f r%d [%s] at1 %+.1f", v[k].name, d, sv, rounds, isfinite(F) ? seq : "-",
		       100 * (at1 / o->fill - 1));
	}
	printf("\n");
	fflush(stdout);
	rc = 0;
out:
	free(xs);
	free(ys);
	free(tx);
	free(ty);
	fs_image_free(meas);
	return rc;
}

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
	if (!rc && fix_rounds > 0)
		rc = run_fixpoint(k, add, &s, &o, &res.tubercles, tr, &a);
	else if (!rc) {
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
		} else if (!strcmp(argv[i], "--fixpoint") && i + 1 < argc) {
			fix_rounds = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--grid") && i + 1 < argc) {
			fs_level_calib_set_grid(atoi(argv[++i]));
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "--curve")) {
			show_curve = 1;
		} else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
			if (sem_opts_args_add(&set, argv[++i])) {
				fprintf(stderr, "--set %s: not a key=value the simulator knows\n", argv[i]);
				return 2;
			}
		} else if (ns < 64 && argv[i][0] != '-')
			scenes[ns++] = atoi(argv[i]);
		else {
			fprintf(stderr, "usage: %s [--seeds A,B,...] [--blur PX] [--fixpoint ROUNDS] [--curve] [--grid G] [--only A,B] [--set KEY=VALUE]... [SCENE...]\n", argv[0]);
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
