/*
 * agent_local_optimize.c - the offline provider's optimiser policy: a
 * bounded search over the detection parameters that maximises
 * hexagonalness, through the same tools a model would call.
 *
 * 1. Baseline: the starting parameters.
 * 2. Profiles (coarse): "default" (method auto) and the contrast profiles.
 * 3. Coordinate search (fine) around the best so far: threshold,
 *    blur_sigma, min_circularity, cull_factor, auto_prominence,
 *    auto_smoothing up and down by a step, and the other neighbour graphs,
 *    each only when the method uses it (params.c's table: under auto,
 *    threshold changes nothing); a set already tried (or out of range) is
 *    skipped, so nothing is tried twice. When every neighbour at a step
 *    size has been tried without improvement the steps halve (twice);
 *    then accept_result.
 * The best is ranked by the tools (agent_fish_tools.c): results with fewer
 * than FS_AGENT_MIN_COUNT tubercles rank below any sane count.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_fish_tools.h"
#include "analysis/params_json.h"

#define LEVELS 3

typedef struct opt_policy {
	int stage;      /* 0 baseline, 1 profiles, 2 search */
	size_t profile; /* next profile to try */
	int level;      /* step size = base / 2^level */
} opt_policy;

static const char *const coarse_profiles[] = {"default", "high-contrast", "low-contrast"};

static void opt_free(void *p)
{
	free(p);
}

/* The parameter neighbour i varies (for the method's table in params.c). */
static const char *const varied[] = {"threshold", "threshold", "blur_sigma", "blur_sigma", "min_circularity",
				     "min_circularity", "cull_factor", "cull_factor", "neighbor_graph",
				     "neighbor_graph", "auto_prominence", "auto_prominence", "auto_smoothing",
				     "auto_smoothing"};
#define N_NEIGHBOURS ((int)(sizeof varied / sizeof varied[0]))

/* The i-th neighbour of base at this level; 0 when it exists. Only the
 * parameters base's method uses are varied: a neighbour in another one
 * would repeat the same result. */
static int neighbour(const fs_params *base, int i, int level, fs_params *out)
{
	double f = ldexp(1.0, -level);
	*out = *base;
	if (i < 0 || i >= N_NEIGHBOURS || fs_param_used_by(base->method, varied[i], NULL) != 1)
		return -1;
	switch (i) {
	case 0: out->threshold = base->threshold * (1 + 0.3 * f); break;
	case 1: out->threshold = base->threshold / (1 + 0.3 * f); break;
	case 2: out->blur_sigma = base->blur_sigma + 0.5 * f; break;
	case 3: out->blur_sigma = base->blur_sigma - 0.5 * f; break;
	case 4: out->min_circularity = base->min_circularity + 0.1 * f; break;
	case 5: out->min_circularity = base->min_circularity - 0.1 * f; break;
	case 6: out->cull_factor = base->cull_factor + 0.2 * f; break;
	case 7: out->cull_factor = base->cull_factor - 0.2 * f; break;
	case 8: out->neighbor_graph = (fs_graph)((base->neighbor_graph + 1) % 3); break;
	case 9: out->neighbor_graph = (fs_graph)((base->neighbor_graph + 2) % 3); break;
	case 10: out->auto_prominence = base->auto_prominence * (1 + 0.3 * f); break;
	case 11: out->auto_prominence = base->auto_prominence / (1 + 0.3 * f); break;
	case 12: out->auto_smoothing = base->auto_smoothing + 0.03 * f; break;
	case 13: out->auto_smoothing = base->auto_smoothing - 0.03 * f; break;
	default: return -1;
	}
	/* round so that printed and stored values are the values tried */
	out->threshold = round(out->threshold * 10000) / 10000;
	out->blur_sigma = round(out->blur_sigma * 1000) / 1000;
	out->min_circularity = round(out->min_circularity * 1000) / 1000;
	out->cull_factor = round(out->cull_factor * 1000) / 1000;
	out->auto_prominence = round(out->auto_prominence * 10000) / 10000;
	out->auto_smoothing = round(out->auto_smoothing * 10000) / 10000;
	return 0;
}

/* The search varies the best trial's parameters, but set_params changes
 * the session's current ones (the last profile loaded, say) and, within
 * one method, refuses a change to a parameter the method does not use. A
 * neighbour of the same method as the current parameters therefore takes
 * those from them: otherwise a neighbour of a best that differs there was
 * refused, run_extraction repeated the current result, and the search
 * asked for the same neighbour until the tool-call limit (it never went
 * past the coarse profiles). 0, or -1 out of memory. */
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

int fs_agent_local_optimize(const fs_conv *conv, const cJSON *tools, fs_llm_reply *out, void *user, char *err,
			    size_t errlen)
{
	fs_agent_sess *s = user;
	opt_policy *o = s->policy;
	char why[256];
	(void)conv;
	(void)tools;

	if (!o) {
		o = calloc(1, sizeof(*o));
		if (!o)
			goto oom;
		s->policy = o;
		s->policy_free = opt_free;
	}
	if (o->stage == 0) {
		o->stage = 1;
		fs_llm_reply_append_text(out, "Baseline with the starting parameters.");
		if (fs_agent_local_call(out, &s->call_seq, "get_params", NULL) ||
		    fs_agent_local_call(out, &s->call_seq, "run_extraction", NULL))
			goto oom;
		return 0;
	}
	while (o->stage == 1 && o->profile < sizeof(coarse_profiles) / sizeof(coarse_profiles[0])) {
		const char *name = coarse_profiles[o->profile++];
		const fs_profile *p = fs_profile_find(name);
		if (!p || fs_agent_trial_find(s, &p->params) >= 0)
			continue;
		cJSON *a = cJSON_CreateObject();
		if (!a)
			goto oom;
		cJSON_AddStringToObject(a, "profile_name", name);
		snprintf(why, sizeof(why), "Coarse search: trying profile %s.", name);
		fs_llm_reply_append_text(out, why);
		if (fs_agent_local_call(out, &s->call_seq, "load_profile", a) ||
		    fs_agent_local_call(out, &s->call_seq, "run_extraction", NULL))
			goto oom;
		return 0;
	}
	o->stage = 2;
	if (s->best < 0) {
		cJSON *a = cJSON_CreateObject();
		if (!a)
			goto oom;
		cJSON_AddStringToObject(a, "reason", "no extraction succeeded");
		return fs_agent_local_call(out, &s->call_seq, "accept_result", a) ? -1 : 0;
	}
	const fs_params *base = &s->trials[s->best].params;
	for (; o->level < LEVELS; o->level++) {
		for (int i = 0; i < N_NEIGHBOURS; i++) {
			fs_params p;
			char verr[128];
			if (neighbour(base, i, o->level, &p))
				continue;
			if (align_unused(s, &p))
				goto oom;
			if (fs_params_validate(&p, verr, sizeof(verr)) || fs_agent_trial_find(s, &p) >= 0)
				continue;
			snprintf(why, sizeof(why),
				 "Fine-tuning around the best (hexagonalness %.3f): neighbour %d at step level %d.",
				 s->trials[s->best].stats.hexagonalness_score, i, o->level);
			if (set_and_run(s, out, &p, why))
				goto oom;
			return 0;
		}
	}
	cJSON *a = cJSON_CreateObject();
	if (!a)
		goto oom;
	cJSON_AddStringToObject(a, "reason", "no untried neighbour of the best parameters improves hexagonalness");
	fs_llm_reply_append_text(out, "Every neighbour of the best parameters has been tried.");
	return fs_agent_local_call(out, &s->call_seq, "accept_result", a) ? -1 : 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}
