/*
 * agent_local_optimize.c - the offline provider's optimiser policy: a
 * compass (coordinate) search over the detection parameters that
 * maximises the optimiser's score, through the same tools a model would
 * call (set_params, load_profile, run_extraction, accept_result).
 *
 * The score is the tools' (agent_fish_tools.c, fs_agent_score_better):
 * hexagonalness of the result's graph, ties by coverage; an implausible
 * result (a method the image's calibration does not allow, a count far
 * from the image's lattice, detections outside the scale region) never
 * becomes the best, so the search never moves onto one.
 *
 * 1. Baseline: the starting parameters (the set's, or a profile's).
 * 2. Compass search from the best so far (no restart from the defaults:
 *    from a bad start the search has to find its way itself, which is
 *    what the unit test checks). The knobs are the parameters
 *    the best's method uses (params.c's table: fs_param_used_by; under
 *    auto its own auto_prominence and auto_smoothing, never threshold),
 *    in the order of `knobs` below, each with a first step sized to its
 *    range (multiplicative for the scale-free ones). One pass tries every
 *    knob up, then down; the first trial that beats the best moves the
 *    search there at once, and the same knob is pushed on in the same
 *    direction with a doubled step while that keeps improving. A value
 *    past a bound is clamped to the bound. Discrete knobs (the neighbour
 *    graph, culling on or off, and the method among those the image's
 *    calibration allows) are tried in the first pass only.
 * 3. A pass that improved nothing halves every step (refinement), up to
 *    LEVELS step sizes; when the finest pass improves nothing, the search
 *    is done and calls accept_result.
 * The plateau rule counts passes here, not extractions: a stop after a
 * few extractions without improvement would end a pass half way (a pass
 * over auto's knobs is ~20 trials; that is why every paper figure used to
 * end on its start), so the session's extraction-count rule is off for
 * this policy (own_plateau) and the run stops with plateau_detected after
 * plateau_iterations passes in a row that raised the best's hexagonalness
 * by less than plateau_threshold. The iteration limit, the target and the
 * time and cost limits hold as for any provider.
 * Before that, from a start whose method the image's calibration does not
 * allow, the search first switches to one it allows; from a start with no
 * plausible result (nothing found, far too much), a rescue moves every
 * count knob at once (rescue_move).
 * A candidate that was already tried (any earlier trial, not only this
 * pass), is out of range, or equals its base is skipped without spending
 * an extraction, so no parameter set is ever run twice.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_fish_tools.h"
#include "analysis/params_json.h"

#define LEVELS 3 /* step sizes: first, 1/2, 1/4 */
#define MAX_RESCUES 6

typedef enum { K_ADD, K_MUL, K_GRAPH, K_BOOL, K_METHOD } knob_kind;

/* The knobs, most influential first (measured on the paper figures and the
 * simulated scenes: the neighbour graph, two trials that change only the
 * connections, can be worth more than any detection knob; under auto the
 * smoothing, the top-hat and the CLAHE clip move hexagonalness most). step: the
 * first step (added, or a factor for K_MUL). */
static const struct knob {
	const char *name;
	knob_kind kind;
	double step;
	double lo, hi;
	int integer;
	int more; /* the direction (1 up, -1 down) that finds more tubercles, 0 none (the rescue) */
} knobs[] = {
	{"neighbor_graph", K_GRAPH, 0, 0, 0, 1, 0},
	{"auto_smoothing", K_ADD, 0.05, 0.05, 0.4, 0, -1},
	{"auto_prominence", K_MUL, 1.6, 0.05, 0.9, 0, -1},
	{"threshold", K_MUL, 1.6, 0.01, 0.5, 0, -1},
	{"tophat_radius", K_ADD, 8, 0, 100, 1, 0},
	{"clahe_clip", K_ADD, 0.02, 0, 0.2, 0, 0},
	{"min_circularity", K_ADD, 0.2, 0, 1, 0, -1},
	{"blur_sigma", K_ADD, 1.0, 0, 5, 0, -1},
	{"min_diameter_um", K_MUL, 1.4, 0.5, 20, 0, -1},
	{"max_diameter_um", K_MUL, 1.4, 1, 50, 0, 1},
	{"clahe_kernel", K_ADD, 4, 4, 32, 1, 0},
	{"cull_factor", K_ADD, 0.4, 1, 5, 0, 0},
	{"edge_margin_px", K_ADD, 10, 0, 200, 1, -1},
	{"cull_long_edges", K_BOOL, 0, 0, 0, 1, 0},
	{"method", K_METHOD, 0, 0, 0, 1, 0},
};
#define N_KNOBS ((int)(sizeof knobs / sizeof knobs[0]))
#define N_METHODS 5

typedef struct opt_policy {
	int stage;        /* 0 baseline, 1 baseline run, 2 search, 3 done */
	int level;        /* step = first step / 2^level */
	int knob, dir;    /* next candidate: knobs[knob], direction dir (0 up, 1 down; discrete: choice) */
	int pass_improved;
	int last_best;    /* the best when the last candidate was asked for */
	int asked_knob, asked_dir; /* the candidate asked for last */
	int pushing;      /* pushing knob push_knob on in direction push_dir, step x push_mul */
	int push_knob, push_dir;
	double push_mul;
	int passes;
	double pass_start_h; /* the best's hexagonalness when the pass began, -1 none */
	int rescues;      /* rescue moves made (nothing plausible yet) */
	double rescue_mul;
	int flat;         /* passes in a row that gained less than the plateau threshold */
} opt_policy;

static void opt_free(void *p)
{
	free(p);
}

static double get_v(const fs_params *p, const char *name)
{
	if (!strcmp(name, "auto_smoothing")) return p->auto_smoothing;
	if (!strcmp(name, "auto_prominence")) return p->auto_prominence;
	if (!strcmp(name, "threshold")) return p->threshold;
	if (!strcmp(name, "tophat_radius")) return p->tophat_radius;
	if (!strcmp(name, "clahe_clip")) return p->clahe_clip;
	if (!strcmp(name, "min_circularity")) return p->min_circularity;
	if (!strcmp(name, "blur_sigma")) return p->blur_sigma;
	if (!strcmp(name, "min_diameter_um")) return p->min_diameter_um;
	if (!strcmp(name, "max_diameter_um")) return p->max_diameter_um;
	if (!strcmp(name, "clahe_kernel")) return p->clahe_kernel;
	if (!strcmp(name, "cull_factor")) return p->cull_factor;
	if (!strcmp(name, "edge_margin_px")) return p->edge_margin_px;
	return NAN;
}

static void put_v(fs_params *p, const char *name, double v)
{
	if (!strcmp(name, "auto_smoothing")) p->auto_smoothing = round(v * 10000) / 10000;
	else if (!strcmp(name, "auto_prominence")) p->auto_prominence = round(v * 10000) / 10000;
	else if (!strcmp(name, "threshold")) p->threshold = round(v * 10000) / 10000;
	else if (!strcmp(name, "tophat_radius")) p->tophat_radius = (int)lround(v);
	else if (!strcmp(name, "clahe_clip")) p->clahe_clip = round(v * 1000) / 1000;
	else if (!strcmp(name, "min_circularity")) p->min_circularity = round(v * 1000) / 1000;
	else if (!strcmp(name, "blur_sigma")) p->blur_sigma = round(v * 1000) / 1000;
	else if (!strcmp(name, "min_diameter_um")) p->min_diameter_um = round(v * 1000) / 1000;
	else if (!strcmp(name, "max_diameter_um")) p->max_diameter_um = round(v * 1000) / 1000;
	else if (!strcmp(name, "clahe_kernel")) p->clahe_kernel = (int)lround(v);
	else if (!strcmp(name, "cull_factor")) p->cull_factor = round(v * 1000) / 1000;
	else if (!strcmp(name, "edge_margin_px")) p->edge_margin_px = (int)lround(v);
}

/* Whether method m may run on this image: log, dog and ellipse size their
 * search in micrometres and need a calibration (the tools reject their
 * results otherwise, so trying them would spend an extraction). */
static int method_allowed(const fs_agent_sess *s, int m)
{
	return s->um_per_px > 0 || m == FS_METHOD_AUTO || m == FS_METHOD_LATTICE;
}

/*
 * The candidate of knob k from base: direction dir (0 up, 1 down) with the
 * step times mul, or, for a discrete knob, its dir-th other value. 0 when
 * it exists and differs from base; -1 when the knob does not apply (the
 * method does not use it), the choice does not exist, or the value would
 * not change.
 */
static int candidate(const fs_agent_sess *s, const fs_params *base, int k, int dir, double mul, fs_params *out)
{
	const struct knob *kb = &knobs[k];
	*out = *base;
	if (kb->kind == K_METHOD) {
		/* the dir-th allowed method other than base's */
		for (int m = 0, seen = 0; m < N_METHODS; m++) {
			if (m == (int)base->method || !method_allowed(s, m))
				continue;
			if (seen++ == dir) {
				out->method = (fs_method)m;
				return 0;
			}
		}
		return -1;
	}
	if (fs_param_used_by(base->method, kb->name, NULL) != 1)
		return -1;
	if (kb->kind == K_GRAPH) {
		if (dir > 1)
			return -1;
		out->neighbor_graph = (fs_graph)((base->neighbor_graph + 1 + dir) % 3);
		return 0;
	}
	if (kb->kind == K_BOOL) {
		if (dir > 0)
			return -1;
		out->cull_long_edges = !base->cull_long_edges;
		return 0;
	}
	if (dir > 1)
		return -1;
	double v = get_v(base, kb->name), nv;
	if (kb->kind == K_MUL) {
		double f = pow(kb->step, mul);
		nv = dir == 0 ? v * f : v / f;
	} else {
		double d = kb->step * mul;
		if (kb->integer && d < 1)
			d = 1;
		nv = dir == 0 ? v + d : v - d;
	}
	if (nv > kb->hi)
		nv = kb->hi;
	if (nv < kb->lo)
		nv = kb->lo;
	/* clahe_clip: 0 is off, else at least 0.01 */
	if (!strcmp(kb->name, "clahe_clip") && nv > 0 && nv < 0.01)
		nv = dir == 0 ? 0.01 : 0;
	put_v(out, kb->name, nv);
	if (get_v(out, kb->name) == v)
		return -1;
	return 0;
}

/*
 * The rescue move from an implausible base (no plausible result yet): every
 * knob of the method that has a count direction moves one first step times
 * mul at once, towards more tubercles when the base found too few (want =
 * 1) or fewer when it found too many (want = -1). Far from sensible
 * values one knob alone changes nothing (a prominence of 0.9 with a
 * circularity of 0.9 finds nothing whichever of the two moves), so single
 * steps see a flat score. 0 when it changes something, else -1.
 */
static int rescue_move(const fs_params *base, int want, double mul, fs_params *out)
{
	int moved = 0;
	*out = *base;
	for (int k = 0; k < N_KNOBS; k++) {
		const struct knob *kb = &knobs[k];
		if (!kb->more || fs_param_used_by(base->method, kb->name, NULL) != 1)
			continue;
		double v = get_v(out, kb->name), nv;
		int up = kb->more * want > 0;
		if (kb->kind == K_MUL)
			nv = up ? v * pow(kb->step, mul) : v / pow(kb->step, mul);
		else
			nv = up ? v + kb->step * mul : v - kb->step * mul;
		nv = nv > kb->hi ? kb->hi : nv < kb->lo ? kb->lo : nv;
		put_v(out, kb->name, nv);
		moved |= get_v(out, kb->name) != v;
	}
	return moved ? 0 : -1;
}

/* The search varies the best trial's parameters, but set_params changes
 * the session's current ones (the last profile loaded, say) and, within
 * one method, refuses a change to a parameter the method does not use. A
 * candidate of the same method as the current parameters therefore takes
 * those from them: otherwise a candidate of a best that differs there was
 * refused, run_extraction repeated the current result, and the search
 * asked for the same candidate until the tool-call limit. 0, or -1 out of
 * memory. */
static int align_unused(const fs_agent_sess *s, fs_params *p)
{
	if (p->method != s->params.method)
		return 0; /* set_params takes a new method with all its values */
	cJSON *want = fs_params_to_json(p), *now = fs_params_to_json(&s->params);
	char err[128];
	int rc = -1;
	if (!want || !now)
		goto out;
	const cJSON *it;
	cJSON_ArrayForEach(it, now)
	{
		if (!it->string || fs_param_used_by(p->method, it->string, NULL) != 0 || !strcmp(it->string, "method"))
			continue;
		cJSON *copy = cJSON_Duplicate(it, 1);
		if (!copy || !cJSON_ReplaceItemInObject(want, it->string, copy)) {
			cJSON_Delete(copy);
			goto out;
		}
	}
	fs_params q = *p;
	if (fs_params_from_json(&q, want, 0, err, sizeof(err)) == 0)
		*p = q;
	rc = 0;
out:
	cJSON_Delete(want);
	cJSON_Delete(now);
	return rc;
}

static int set_and_run(fs_agent_sess *s, fs_llm_reply *out, const fs_params *p, const char *why)
{
	cJSON *a = fs_params_to_json(p);
	if (!a)
		return -1;
	fs_llm_reply_append_text(out, why);
	return fs_agent_local_call(out, &s->call_seq, "set_params", a) ||
	       fs_agent_local_call(out, &s->call_seq, "run_extraction", NULL);
}

/* A candidate worth an extraction: valid and never tried. 1 yes, 0 no, -1
 * out of memory. */
static int fresh(fs_agent_sess *s, fs_params *p)
{
	char verr[128];
	if (align_unused(s, p))
		return -1;
	return !fs_params_validate(p, verr, sizeof(verr)) && fs_agent_trial_find(s, p) < 0;
}

/*
 * The trial the search goes on from: the best (the tools' score), or,
 * while no result is plausible yet (a start far off: 3 tubercles from a
 * heavy blur), the one whose count is nearest the image's lattice
 * prediction, so that the search can walk out of the implausible region
 * instead of giving up. -1 when there is no trial.
 */
static int base_index(const fs_agent_sess *s)
{
	if (s->best >= 0)
		return s->best;
	double p = s->lattice_pitch, frac = s->region.in ? fs_scale_region_fraction(&s->region) : 1.0;
	double sites = p > 0 ? (double)s->img->width * s->img->height * frac / (p * p * sqrt(3) / 2) : 0;
	int bi = -1;
	double bd = 0;
	for (size_t i = 0; i < s->n_trials; i++) {
		double n = s->trials[i].stats.n_tubercles;
		/* distance from the prediction in orders of magnitude; without a
		 * lattice, more detections are nearer (the count floor is what failed) */
		double d = sites > 0 ? fabs(log((n + 1) / sites)) : -n;
		if (bi < 0 || d < bd) {
			bi = (int)i;
			bd = d;
		}
	}
	return bi;
}

/* For an implausible trial: 1 when it found too few tubercles for the
 * image's lattice, -1 too many, 0 neither (refused for its method). */
static int count_want(const fs_agent_sess *s, int idx)
{
	double p = s->lattice_pitch, frac = s->region.in ? fs_scale_region_fraction(&s->region) : 1.0;
	double sites = p > 0 ? (double)s->img->width * s->img->height * frac / (p * p * sqrt(3) / 2) : 0;
	int n = s->trials[idx].stats.n_tubercles;
	if (n < FS_AGENT_MIN_COUNT || (sites > 0 && n < 0.1 * sites))
		return 1;
	if (sites > 0 && n > 1.5 * sites + 10)
		return -1;
	return 0;
}

static int accept(fs_agent_sess *s, fs_llm_reply *out, const char *reason)
{
	cJSON *a = cJSON_CreateObject();
	if (!a)
		return -1;
	cJSON_AddStringToObject(a, "reason", reason);
	fs_llm_reply_append_text(out, reason);
	return fs_agent_local_call(out, &s->call_seq, "accept_result", a);
}

/* Describes the candidate for the log and the streamed text. */
static void describe(const fs_agent_sess *s, const opt_policy *o, int k, const fs_params *base, const fs_params *p,
		     int push, char *why, size_t n)
{
	const struct knob *kb = &knobs[k];
	double h = s->best >= 0 ? s->trials[s->best].stats.hexagonalness_score : 0;
	if (kb->kind == K_METHOD)
		snprintf(why, n, "Pass %d: method %s instead of %s (best hexagonalness %.3f).", o->passes + 1,
			 fs_method_name(p->method), fs_method_name(base->method), h);
	else if (kb->kind == K_GRAPH)
		snprintf(why, n, "Pass %d: neighbour graph %s (best hexagonalness %.3f).", o->passes + 1,
			 p->neighbor_graph == FS_GRAPH_DELAUNAY ? "delaunay" : p->neighbor_graph == FS_GRAPH_RNG ? "rng"
												 : "gabriel",
			 h);
	else if (kb->kind == K_BOOL)
		snprintf(why, n, "Pass %d: cull_long_edges %s (best hexagonalness %.3f).", o->passes + 1,
			 p->cull_long_edges ? "on" : "off", h);
	else
		snprintf(why, n, "%s %s %g -> %g (step level %d, best hexagonalness %.3f).",
			 push ? "Pushing on:" : "Coordinate search:", kb->name, get_v(base, kb->name),
			 get_v(p, kb->name), o->level, h);
}

int fs_agent_local_optimize(const fs_conv *conv, const cJSON *tools, fs_llm_reply *out, void *user, char *err,
			    size_t errlen)
{
	fs_agent_sess *s = user;
	opt_policy *o = s->policy;
	char why[256];
	fs_params p;
	int f;
	(void)conv;
	(void)tools;

	if (!o) {
		o = calloc(1, sizeof(*o));
		if (!o)
			goto oom;
		o->last_best = -2; /* no candidate asked for yet */
		o->pass_start_h = -1;
		s->policy = o;
		s->policy_free = opt_free;
		/* this policy ends itself when a pass at its finest step improves nothing */
		s->own_plateau = 1;
	}
	if (o->stage == 0) {
		o->stage = 1;
		fs_llm_reply_append_text(out, "Baseline with the starting parameters.");
		if (fs_agent_local_call(out, &s->call_seq, "get_params", NULL) ||
		    fs_agent_local_call(out, &s->call_seq, "run_extraction", NULL))
			goto oom;
		return 0;
	}
	if (o->stage == 1) {
		o->stage = 2;
		o->pass_start_h = s->best >= 0 ? s->trials[s->best].stats.hexagonalness_score : -1;
	}
	int bi = base_index(s);
	if (bi < 0)
		return accept(s, out, "No extraction to search from.") ? -1 : 0;
	const fs_params *base = &s->trials[bi].params;

	/* a start in a method the image's calibration does not allow (a log
	 * profile on an uncalibrated figure): every result of it is refused, so
	 * the search changes method first, keeping the other parameters */
	if (s->best < 0 && !method_allowed(s, base->method)) {
		for (int d = 0; d < N_METHODS; d++) {
			int k = N_KNOBS - 1; /* the method knob */
			if (candidate(s, base, k, d, 1, &p))
				break;
			if ((f = fresh(s, &p)) < 0)
				goto oom;
			if (!f)
				continue;
			snprintf(why, sizeof why, "Method %s needs a calibration this image does not have: trying %s.",
				 fs_method_name(base->method), fs_method_name(p.method));
			o->last_best = -2;
			return set_and_run(s, out, &p, why) ? -1 : 0;
		}
	}

	/* nothing plausible yet: move every count knob at once, doubling the
	 * step while the count stays on the wrong side, before single steps */
	if (s->best < 0 && o->rescues < MAX_RESCUES) {
		int want = count_want(s, bi);
		if (want) {
			o->rescue_mul = o->rescues ? 2 * o->rescue_mul : 1;
			o->rescues++;
			if (!rescue_move(base, want, o->rescue_mul, &p) && (f = fresh(s, &p)) != 0) {
				if (f < 0)
					goto oom;
				snprintf(why, sizeof why,
					 "Rescue: %d tubercles is too %s for the image's lattice; every count parameter "
					 "one step (x%g) towards %s at once.",
					 s->trials[bi].stats.n_tubercles, want > 0 ? "few" : "many", o->rescue_mul,
					 want > 0 ? "more" : "fewer");
				o->last_best = -2; /* a rescue is not a coordinate step to push on */
				return set_and_run(s, out, &p, why) ? -1 : 0;
			}
		}
	}

	/* the last candidate beat the base: the search moved there; a numeric
	 * knob is pushed on in the same direction with a doubled step */
	if (o->last_best > -2 && bi != o->last_best) {
		o->pass_improved = 1;
		if (knobs[o->asked_knob].kind == K_ADD || knobs[o->asked_knob].kind == K_MUL) {
			o->push_mul = o->pushing ? 2 * o->push_mul : 2 * ldexp(1.0, -o->level);
			o->push_knob = o->asked_knob;
			o->push_dir = o->asked_dir;
			o->pushing = 1;
		}
	} else if (o->last_best > -2 && o->pushing) {
		/* pushing on found nothing better: the next knob */
		o->pushing = 0;
		o->knob = o->push_knob + 1;
		o->dir = 0;
	}
	o->last_best = bi;

	if (o->pushing) {
		f = candidate(s, base, o->push_knob, o->push_dir, o->push_mul, &p) ? 0 : fresh(s, &p);
		if (f < 0)
			goto oom;
		if (f) {
			describe(s, o, o->push_knob, base, &p, 1, why, sizeof why);
			o->asked_knob = o->push_knob;
			o->asked_dir = o->push_dir;
			return set_and_run(s, out, &p, why) ? -1 : 0;
		}
		o->pushing = 0;
		o->knob = o->push_knob + 1;
		o->dir = 0;
	}
	while (o->level < LEVELS) {
		for (; o->knob < N_KNOBS; o->knob++, o->dir = 0) {
			const struct knob *kb = &knobs[o->knob];
			int discrete = kb->kind == K_GRAPH || kb->kind == K_BOOL || kb->kind == K_METHOD;
			if (discrete && o->level > 0)
				continue;
			for (; o->dir < N_METHODS; o->dir++) {
				if (candidate(s, base, o->knob, o->dir, ldexp(1.0, -o->level), &p))
					continue;
				if ((f = fresh(s, &p)) < 0)
					goto oom;
				if (!f)
					continue;
				describe(s, o, o->knob, base, &p, 0, why, sizeof why);
				o->asked_knob = o->knob;
				o->asked_dir = o->dir++; /* the next call goes on from the next direction */
				return set_and_run(s, out, &p, why) ? -1 : 0;
			}
		}
		/* the end of a pass: again at this step if it moved, else finer */
		double h = s->best >= 0 ? s->trials[s->best].stats.hexagonalness_score : -1;
		o->flat = h >= 0 && o->pass_start_h >= 0 && h < o->pass_start_h + s->job->plateau_threshold
			? o->flat + 1 : 0;
		o->passes++;
		o->knob = 0;
		o->dir = 0;
		if (!o->pass_improved)
			o->level++;
		o->pass_improved = 0;
		o->pass_start_h = h;
		if (s->job->plateau_iterations > 0 && o->flat >= s->job->plateau_iterations) {
			snprintf(s->stop_reason, sizeof(s->stop_reason), "plateau_detected");
			fs_agent_log(s, "PLATEAU: %d whole passes over the parameters gained less than %.3f", o->flat,
				     s->job->plateau_threshold);
			o->stage = 3;
			snprintf(why, sizeof why, "Plateau: %d passes over every parameter gained less than %.3f.", o->flat,
				 s->job->plateau_threshold);
			return accept(s, out, why) ? -1 : 0;
		}
	}
	o->stage = 3;
	if (s->best >= 0)
		snprintf(why, sizeof why,
			 "Compass search done: no untried step of any parameter the method uses improves the best "
			 "(hexagonalness %.3f) at the finest step.",
			 s->trials[s->best].stats.hexagonalness_score);
	else
		snprintf(why, sizeof why, "Compass search done: no plausible result found.");
	return accept(s, out, why) ? -1 : 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}
