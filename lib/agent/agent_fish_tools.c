/*
 * agent_fish_tools.c - the tools of the optimiser and of the editing agent
 * on an annotation set in SQLite (see agent_fish_tools.h).
 *
 * Every change goes through sets_store.h with the run id, so each agent
 * step is one journal entry a user can undo selectively, and the set is
 * reloaded afterwards so results and status show what is stored. A store
 * refusal of the request (unknown id) is an error the model can correct; a
 * storage failure is critical and ends the run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_fish_tools.h"
#include "agent/agent_select.h"
#include "analysis/detect.h"
#include "analysis/lattice_estimate.h"
#include "store/eventlog.h"
#include "analysis/graph.h"
#include "analysis/params_json.h"
#include "store/sets_store.h"

static double num_arg(const cJSON *args, const char *k, double def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, k);
	return cJSON_IsNumber(v) ? v->valuedouble : def;
}

static int bool_arg(const cJSON *args, const char *k, int def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, k);
	return cJSON_IsBool(v) ? cJSON_IsTrue(v) : def;
}

static const char *str_arg(const cJSON *args, const char *k, const char *def)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, k));
	return v ? v : def;
}

/* A store failure: the model's mistake (invalid) or the run's end. */
static int store_failed(fs_tool_output *out, int rc, const char *what, const char *err)
{
	snprintf(out->error, sizeof(out->error), "%s: %s", what, err[0] ? err : "storage error");
	return rc == FS_DB_INVALID || rc == FS_DB_NOTFOUND ? FS_TOOL_ERROR : FS_TOOL_CRITICAL;
}

static int reload(fs_agent_sess *s, fs_tool_output *out)
{
	char err[256];
	if (fs_agent_sess_reload(s, err, sizeof(err))) {
		snprintf(out->error, sizeof(out->error), "%s", err);
		return FS_TOOL_CRITICAL;
	}
	return FS_TOOL_OK;
}

/*
 * After an edit the cache follows without reading the whole set back when
 * the revision moved by exactly one (nobody else wrote in between): the
 * change is applied to the cached lists, boundary flags and statistics are
 * recomputed. Otherwise the set is reloaded from SQLite.
 */
static int cmp_xy(const void *a, const void *b)
{
	const double *p = a, *q = b;
	return p[0] < q[0] ? -1 : p[0] > q[0] ? 1 : p[1] < q[1] ? -1 : p[1] > q[1];
}

static double cross(const double *o, const double *a, const double *b)
{
	return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

/*
 * 1 when (x, y) lies clearly inside the convex hull of the boundary
 * tubercles, so a tubercle there (added, or moved there from the
 * interior) leaves every boundary flag as it was and the Delaunay pass of
 * fs_graph_boundary can be skipped.
 */
static int inside_hull(const fs_tubercle_list *t, double x, double y)
{
	size_t nb = 0, k = 0;
	double *p, *h;
	int in = 0;
	for (size_t i = 0; i < t->n; i++)
		nb += t->items[i].is_boundary != 0;
	if (nb < 3)
		return 0;
	p = malloc(nb * 2 * sizeof(double));
	h = malloc((2 * nb + 1) * 2 * sizeof(double));
	if (!p || !h)
		goto out;
	nb = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->items[i].is_boundary) {
			p[2 * nb] = t->items[i].centroid_x;
			p[2 * nb + 1] = t->items[i].centroid_y;
			nb++;
		}
	qsort(p, nb, 2 * sizeof(double), cmp_xy);
	/* Andrew's monotone chain, counter-clockwise (y down: orientation only matters consistently) */
	for (size_t i = 0; i < nb; i++) {
		while (k >= 2 && cross(&h[2 * (k - 2)], &h[2 * (k - 1)], &p[2 * i]) <= 0)
			k--;
		h[2 * k] = p[2 * i];
		h[2 * k + 1] = p[2 * i + 1];
		k++;
	}
	for (size_t i = nb - 1, lo = k + 1; i-- > 0;) {
		while (k >= lo && cross(&h[2 * (k - 2)], &h[2 * (k - 1)], &p[2 * i]) <= 0)
			k--;
		h[2 * k] = p[2 * i];
		h[2 * k + 1] = p[2 * i + 1];
		k++;
	}
	if (k < 4)
		goto out;
	double q[2] = {x, y};
	in = 1;
	for (size_t i = 0; i + 1 < k && in; i++) {
		double len = hypot(h[2 * i + 2] - h[2 * i], h[2 * i + 3] - h[2 * i + 1]);
		/* at least 1e-3 px inside every side: rounding cannot matter */
		in = cross(&h[2 * i], &h[2 * i + 2], q) > 1e-3 * len;
	}
out:
	free(p);
	free(h);
	return in;
}

/* (x, y) and (x2, y2; NAN for none) are where tubercles came or went (a
 * move: moved_id went from (x2, y2) to (x, y)): the judged graph is
 * reconnected only there (fs_agent_judge_at). */
static int refresh(fs_agent_sess *s, long long new_rev, int keep_boundary, double x, double y, double x2, double y2,
		   int moved_id, fs_tool_output *out)
{
	if (new_rev != s->revision + 1)
		return reload(s, out);
	s->revision = new_rev;
	if (!keep_boundary && fs_graph_boundary(&s->t)) {
		snprintf(out->error, sizeof(out->error), "out of memory computing statistics");
		return FS_TOOL_CRITICAL;
	}
	/* at the scale region's inner edge is boundary too, as fs_set_load has it */
	fs_scale_region_mark_boundary(&s->region, &s->t, s->region.cell);
	if ((isfinite(x2) && s->judged && fs_agent_reconnect_at(s, x2, y2, moved_id) < 0) || fs_agent_judge_at(s, x, y)) {
		snprintf(out->error, sizeof(out->error), "out of memory computing statistics");
		return FS_TOOL_CRITICAL;
	}
	return FS_TOOL_OK;
}

static void cache_remove(fs_agent_sess *s, int id)
{
	size_t k = 0;
	for (size_t i = 0; i < s->t.n; i++)
		if (s->t.items[i].id != id)
			s->t.items[k++] = s->t.items[i];
	s->t.n = k;
	k = 0;
	for (size_t i = 0; i < s->e.n; i++)
		if (s->e.items[i].id1 != id && s->e.items[i].id2 != id)
			s->e.items[k++] = s->e.items[i];
	s->e.n = k;
}

int fs_agent_params_equal(const fs_params *a, const fs_params *b)
{
	return a->method == b->method && a->threshold == b->threshold && a->min_diameter_um == b->min_diameter_um &&
	       a->max_diameter_um == b->max_diameter_um && a->min_circularity == b->min_circularity &&
	       a->clahe_clip == b->clahe_clip && a->clahe_kernel == b->clahe_kernel &&
	       a->blur_sigma == b->blur_sigma && a->neighbor_graph == b->neighbor_graph &&
	       a->cull_long_edges == b->cull_long_edges && a->cull_factor == b->cull_factor &&
	       a->edge_margin_px == b->edge_margin_px && a->tophat_radius == b->tophat_radius &&
	       a->auto_prominence == b->auto_prominence && a->auto_smoothing == b->auto_smoothing;
}

int fs_agent_trial_find(const fs_agent_sess *s, const fs_params *p)
{
	for (size_t i = 0; i < s->n_trials; i++)
		if (fs_agent_params_equal(&s->trials[i].params, p))
			return (int)i;
	return -1;
}

int *fs_agent_degrees(const fs_agent_sess *s)
{
	int *deg = calloc(s->t.n ? s->t.n : 1, sizeof(int));
	int maxid = 0;
	int *index;
	if (!deg)
		return NULL;
	for (size_t i = 0; i < s->t.n; i++)
		if (s->t.items[i].id > maxid)
			maxid = s->t.items[i].id;
	index = malloc(((size_t)maxid + 1) * sizeof(int));
	if (!index) {
		free(deg);
		return NULL;
	}
	for (int i = 0; i <= maxid; i++)
		index[i] = -1;
	for (size_t i = 0; i < s->t.n; i++)
		index[s->t.items[i].id] = (int)i;
	for (size_t i = 0; i < s->e.n; i++) {
		int a = s->e.items[i].id1, b = s->e.items[i].id2;
		if (a >= 0 && a <= maxid && index[a] >= 0)
			deg[index[a]]++;
		if (b >= 0 && b <= maxid && index[b] >= 0)
			deg[index[b]]++;
	}
	free(index);
	return deg;
}

static double mean_radius(const fs_agent_sess *s)
{
	double sum = 0;
	if (!s->t.n) {
		/* no tubercle yet: the middle of the searched diameter range */
		double d = (s->params.min_diameter_um + s->params.max_diameter_um) / 2 / s->um_for_detect;
		return d > 2 ? d / 2 : 5;
	}
	size_t n = 0;
	for (size_t i = 0; i < s->t.n; i++)
		if (fs_tubercle_measured(&s->t.items[i])) {
			sum += s->t.items[i].radius_px;
			n++;
		}
	return n ? sum / n : 5; /* none measured: a small default, as above */
}

static void record_action(fs_agent_sess *s, const char *action, int id, double x, double y)
{
	cJSON *a = cJSON_CreateObject();
	snprintf(s->last_action, sizeof(s->last_action), "%s", action);
	if (!a)
		return;
	cJSON_AddNumberToObject(a, "iteration", s->iteration);
	cJSON_AddStringToObject(a, "action", action);
	if (id)
		cJSON_AddNumberToObject(a, "id", id);
	if (x >= 0) {
		cJSON_AddNumberToObject(a, "x", round(x * 10) / 10);
		cJSON_AddNumberToObject(a, "y", round(y * 10) / 10);
	}
	cJSON_AddItemToArray(s->actions, a);
	/* the summary is for people: the newest 100 are enough */
	while (cJSON_GetArraySize(s->actions) > 100)
		cJSON_DeleteItemFromArray(s->actions, 0);
}

static void edit_status_line(fs_agent_sess *s, const char *action, int id, double sx, double sy)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return;
	cJSON_AddNumberToObject(o, "iteration", s->iteration);
	cJSON_AddNumberToObject(o, "max_iterations", s->job->max_iterations);
	cJSON_AddStringToObject(o, "phase", s->phase);
	cJSON_AddNumberToObject(o, "hexagonalness", fs_agent_r3(s->stats.hexagonalness_score));
	cJSON_AddNumberToObject(o, "coverage_percent", round(s->stats.coverage_percent * 10) / 10);
	cJSON_AddNumberToObject(o, "tubercles", (double)s->t.n);
	cJSON_AddNumberToObject(o, "edges", (double)s->e.n);
	cJSON_AddNumberToObject(o, "plateau_count", s->plateau);
	cJSON_AddStringToObject(o, "action", action);
	if (sx >= 0) {
		cJSON_AddNumberToObject(o, "x", round(sx * 10) / 10);
		cJSON_AddNumberToObject(o, "y", round(sy * 10) / 10);
	}
	if (id)
		cJSON_AddNumberToObject(o, "id", id);
	fs_agent_status_line(s, o);
}

/* ---------------------------------------------------------------- shared */

static int shot_tool(fs_agent_sess *s, int overlay, int numbers, fs_tool_output *out)
{
	fs_agent_shot shot;
	fs_agent_shot_opts o = {.overlay = overlay, .numbers = numbers, .max_side = FS_AGENT_SHOT_SIDE,
				.um_per_px = s->um_per_px, .rects = s->dbg, .n_rects = s->n_dbg};
	char err[256] = "";
	if (fs_agent_screenshot(s->img, &s->t, &s->e, &o, &s->shots, &shot, err, sizeof(err))) {
		snprintf(out->error, sizeof(out->error), "screenshot failed: %s", err);
		return FS_TOOL_CRITICAL;
	}
	s->shot_scale = shot.scale;
	s->shot_w = shot.width;
	s->shot_h = shot.height;
	out->image_b64 = shot.b64;
	snprintf(out->media_type, sizeof(out->media_type), "%s", shot.media_type);
	out->width = shot.width;
	out->height = shot.height;
	out->data = cJSON_CreateObject();
	cJSON_AddNumberToObject(out->data, "width", shot.width);
	cJSON_AddNumberToObject(out->data, "height", shot.height);
	cJSON_AddNumberToObject(out->data, "original_width", s->img->width);
	cJSON_AddNumberToObject(out->data, "original_height", s->img->height);
	cJSON_AddNumberToObject(out->data, "scale_factor", shot.scale);
	cJSON_AddNumberToObject(out->data, "tubercles", (double)s->t.n);
	char note[256];
	snprintf(note, sizeof(note),
		 "Screenshot %dx%d pixels (image %dx%d, scale %.4f). Give coordinates in these screenshot "
		 "pixels; origin (0,0) top-left, x right, y down.",
		 shot.width, shot.height, s->img->width, s->img->height, shot.scale);
	cJSON_AddStringToObject(out->data, "note", note);
	fs_agent_log(s, "Screenshot captured (%dx%d, scale %.3f)", shot.width, shot.height, shot.scale);
	return FS_TOOL_OK;
}

/* ------------------------------------------------------------- optimiser */

static int grow_trials(fs_agent_sess *s)
{
	if (s->n_trials < s->cap_trials)
		return 0;
	size_t cap = s->cap_trials ? 2 * s->cap_trials : 16;
	fs_agent_trial *t = realloc(s->trials, cap * sizeof(*t));
	if (!t)
		return -1;
	s->trials = t;
	s->cap_trials = cap;
	return 0;
}

static cJSON *trial_result(const fs_agent_sess *s, int idx, int duplicate)
{
	const fs_agent_trial *t = &s->trials[idx];
	cJSON *d = cJSON_CreateObject();
	char msg[256];
	cJSON_AddNumberToObject(d, "iteration", t->iteration);
	cJSON_AddItemToObject(d, "metrics", fs_agent_metrics_json(&t->stats));
	cJSON_AddBoolToObject(d, "is_best", idx == s->best);
	if (s->trials[idx].implausible)
		cJSON_AddStringToObject(d, "rejected", s->trials[idx].rejected);
	if (s->best >= 0) {
		cJSON_AddNumberToObject(d, "best_iteration", s->trials[s->best].iteration);
		cJSON_AddNumberToObject(d, "best_hexagonalness", fs_agent_r3(s->trials[s->best].stats.hexagonalness_score));
	}
	cJSON_AddNumberToObject(d, "iterations_left", s->job->max_iterations - s->iteration);
	if (duplicate) {
		cJSON_AddBoolToObject(d, "duplicate", 1);
		snprintf(msg, sizeof(msg),
			 "These exact parameters were already tried in iteration %d: recorded result returned, "
			 "no extraction run. Change at least one parameter.", t->iteration);
	} else {
		snprintf(msg, sizeof(msg), "Extraction [%d/%d]: %d tubercles, hexagonalness=%.3f", t->iteration,
			 s->job->max_iterations, t->stats.n_tubercles, t->stats.hexagonalness_score);
	}
	cJSON_AddStringToObject(d, "message", msg);
	/* a digest of the last trials so the model need not call get_history each time */
	cJSON *recent = cJSON_AddArrayToObject(d, "recent_trials");
	size_t from = s->n_trials > 5 ? s->n_trials - 5 : 0;
	for (size_t i = from; i < s->n_trials; i++) {
		cJSON *x = cJSON_CreateObject();
		double h = s->trials[i].stats.hexagonalness_score;
		double prev = i ? s->trials[i - 1].stats.hexagonalness_score : h;
		cJSON_AddNumberToObject(x, "iteration", s->trials[i].iteration);
		cJSON_AddNumberToObject(x, "hexagonalness", fs_agent_r3(h));
		cJSON_AddNumberToObject(x, "n_tubercles", s->trials[i].stats.n_tubercles);
		cJSON_AddStringToObject(x, "trend", !i ? "baseline" : h > prev + 0.01 ? "IMPROVED"
					: h < prev - 0.01 ? "DECREASED" : "UNCHANGED");
		cJSON_AddItemToArray(recent, x);
	}
	return d;
}

static void iteration_event(fs_agent_sess *s, int idx, double iter_s)
{
	const fs_agent_trial *t = &s->trials[idx];
	cJSON *ev = cJSON_CreateObject();
	if (!ev)
		return;
	cJSON_AddNumberToObject(ev, "iteration", t->iteration);
	cJSON_AddNumberToObject(ev, "max_iterations", s->job->max_iterations);
	cJSON_AddStringToObject(ev, "phase", t->phase);
	cJSON_AddNumberToObject(ev, "run_id", (double)s->job->run_id);
	cJSON *tm = cJSON_AddObjectToObject(ev, "timing");
	cJSON_AddNumberToObject(tm, "elapsed_seconds", fs_agent_r3(t->at_elapsed));
	cJSON_AddNumberToObject(tm, "iteration_seconds", fs_agent_r3(iter_s));
	cJSON_AddItemToObject(ev, "params", fs_params_to_json(&t->params));
	cJSON *res = cJSON_AddObjectToObject(ev, "result");
	cJSON_AddNumberToObject(res, "n_tubercles", t->stats.n_tubercles);
	cJSON_AddNumberToObject(res, "n_edges", t->stats.n_edges);
	cJSON_AddNumberToObject(res, "hexagonalness", fs_agent_r3(t->stats.hexagonalness_score));
	cJSON_AddBoolToObject(res, "is_best", idx == s->best);
	cJSON *llm = cJSON_AddObjectToObject(ev, "llm");
	cJSON_AddNumberToObject(llm, "input_tokens", (double)s->in_tokens);
	cJSON_AddNumberToObject(llm, "output_tokens", (double)s->out_tokens);
	cJSON_AddStringToObject(ev, "llm_reasoning", fs_agent_turn_text(s));
	fs_history_add(s->db, s->job->set_id, s->job->user_id, "agent_iteration", ev);
	cJSON_Delete(ev);
}

static int copy_lists(fs_tubercle_list *dt, fs_edge_list *de, const fs_tubercle_list *t, const fs_edge_list *e)
{
	fs_tubercle_list_free(dt);
	fs_edge_list_free(de);
	for (size_t i = 0; i < t->n; i++)
		if (fs_tubercle_list_append(dt, &t->items[i]))
			return -1;
	for (size_t i = 0; i < e->n; i++)
		if (fs_edge_list_append(de, &e->items[i]))
			return -1;
	return 0;
}

static int cmp_len(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median connection length of a result (px), 0 without connections. */
static double median_edge(const fs_tubercle_list *t, const fs_edge_list *e)
{
	double *len = malloc((e->n ? e->n : 1) * sizeof(double)), med = 0;
	size_t n = 0;
	if (!len)
		return 0;
	/* detection results number their tubercles 1..n in order */
	for (size_t i = 0; i < e->n; i++) {
		int a = e->items[i].id1 - 1, b = e->items[i].id2 - 1;
		if (a < 0 || b < 0 || (size_t)a >= t->n || (size_t)b >= t->n || t->items[a].id != a + 1 ||
		    t->items[b].id != b + 1)
			continue;
		len[n++] = hypot(t->items[a].centroid_x - t->items[b].centroid_x,
				 t->items[a].centroid_y - t->items[b].centroid_y);
	}
	if (n) {
		qsort(len, n, sizeof(double), cmp_len);
		med = len[n / 2];
	}
	free(len);
	return med;
}

/*
 * Whether an extraction may become the optimiser's best (issue 16): a
 * method that needs a calibration on an image without one is refused (the
 * detector ran on the 700x estimate only); so is a detection outside the
 * scale region (detection is restricted to it, so this only guards a
 * region changed under the run), and a count far from what the image's own
 * lattice (autocorrelation pitch) predicts for the region: more than 1.5 x
 * its sites, fewer than a tenth of them (a strict setting that keeps a few
 * strong tubercles can score a high hexagonalness on a tiny, regular
 * patch), or neighbours closer than 0.6 pitch (blobs on paper grain, split
 * tubercles). Empty why = plausible.
 */
static void plausibility(fs_agent_sess *s, const fs_tubercle_list *t, const fs_edge_list *e, char *why, size_t n)
{
	why[0] = 0;
	if (!(s->um_per_px > 0) && s->params.method != FS_METHOD_AUTO && s->params.method != FS_METHOD_LATTICE) {
		snprintf(why, n, "method %s needs a calibration and the image has none", fs_method_name(s->params.method));
		return;
	}
	size_t outside = 0;
	for (size_t i = 0; i < t->n; i++)
		outside += !fs_scale_region_contains(&s->region, t->items[i].centroid_x, t->items[i].centroid_y);
	if (outside) {
		snprintf(why, n, "%zu detections outside the scale region", outside);
		return;
	}
	if (s->lattice_pitch < 0) {
		fs_lattice lat;
		char err[128];
		s->lattice_pitch = fs_lattice_estimate(s->img, &lat, err, sizeof(err)) == 0 && lat.strength > 0.05
			? lat.pitch_px : 0;
		if (s->lattice_pitch > 0)
			fs_agent_log(s, "Lattice of the image: pitch %.1f px, ~%.0f sites in the scale region "
				     "(plausibility of results)", s->lattice_pitch,
				     (double)s->img->width * s->img->height * fs_scale_region_fraction(&s->region) /
					     (s->lattice_pitch * s->lattice_pitch * sqrt(3) / 2));
	}
	double p = s->lattice_pitch;
	if (p <= 0 || !t->n)
		return;
	double frac = s->region.in ? fs_scale_region_fraction(&s->region) : 1.0;
	double sites = (double)s->img->width * s->img->height * frac / (p * p * sqrt(3) / 2);
	if (t->n > 1.5 * sites + 10) {
		snprintf(why, n, "%zu detections, more than the scale region's lattice (pitch %.1f px) has sites (~%.0f)",
			 t->n, p, sites);
		return;
	}
	if ((double)t->n < 0.1 * sites) {
		snprintf(why, n, "%zu detections, under a tenth of the scale region's lattice sites (~%.0f, pitch %.1f px)",
			 t->n, sites, p);
		return;
	}
	double med = median_edge(t, e);
	if (med > 0 && med < 0.6 * p)
		snprintf(why, n, "neighbours %.1f px apart, far closer than the image's lattice pitch %.1f px", med, p);
}

/*
 * Whether a plausible trial before `upto` scores better than (h, c). The
 * score's ties (fs_agent_score_better) make it intransitive: a best could
 * win by hexagonalness over the first trial and then lose coverage step by
 * step to trials that each tie with the one before, ending on the first
 * trial's hexagonalness with less coverage - below a trial the run had
 * (h35b: test_agent_local_search's SEM scene seed 11 under the dome rule,
 * trial 1 0.918 / 73.3 % with 137 tubercles, trial 13 0.924 with 127 (edge
 * margin 20 px), then ties down to trial 24, 0.919 / 67.5 %, the best: 10
 * true domes fewer than trial 1). A trial that an earlier plausible trial
 * beats never becomes the best, so the run never ends below one.
 */
static int beaten_by_earlier(const fs_agent_sess *s, size_t upto, double h, double c)
{
	for (size_t i = 0; i < upto; i++) {
		const fs_agent_trial *t = &s->trials[i];
		if (!t->implausible &&
		    fs_agent_score_better(t->stats.hexagonalness_score, t->stats.coverage_percent, h, c))
			return 1;
	}
	return 0;
}

static int t_run_extraction(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_agent_sess *s = user;
	fs_detect_result dr = {0};
	fs_edge_list e = {0};
	fs_stats st;
	char err[256] = "";
	int rc = FS_TOOL_ERROR, idx;
	long long rev;
	(void)args;

	idx = fs_agent_trial_find(s, &s->params);
	if (idx >= 0) {
		fs_agent_log(s, "Duplicate parameters (iteration %d): recorded result returned", s->trials[idx].iteration);
		out->data = trial_result(s, idx, 1);
		return FS_TOOL_OK;
	}
	if (s->iteration >= s->job->max_iterations) {
		snprintf(out->error, sizeof(out->error), "the maximum of %d extractions is reached", s->job->max_iterations);
		return FS_TOOL_ERROR;
	}
	double t0 = fs_agent_now();
	if (fs_detect_in_region(s->img, &s->params, s->um_for_detect, &s->region, &dr, err, sizeof(err))) {
		snprintf(out->error, sizeof(out->error), "extraction failed: %s", err);
		goto out;
	}
	if (fs_graph_build(&dr.tubercles, s->params.neighbor_graph, s->params.cull_long_edges, s->params.cull_factor,
			   &e, err, sizeof(err))) {
		snprintf(out->error, sizeof(out->error), "connections failed: %s", err);
		goto out;
	}
	/* judged as the set will be: the region's edge makes boundary tubercles */
	fs_scale_region_mark_boundary(&s->region, &dr.tubercles, s->region.cell);
	if (fs_stats_compute(&dr.tubercles, &e, s->um_per_px, NULL, s->img->width, s->img->height, &st) ||
	    grow_trials(s)) {
		snprintf(out->error, sizeof(out->error), "out of memory");
		rc = FS_TOOL_CRITICAL;
		goto out;
	}
	double now = fs_agent_now();
	s->iteration++;
	fs_agent_trial *tr = &s->trials[s->n_trials];
	memset(tr, 0, sizeof(*tr));
	tr->iteration = s->iteration;
	tr->params = s->params;
	tr->stats = st;
	tr->seconds = now - t0;
	tr->at_elapsed = now - s->t_start;
	snprintf(tr->phase, sizeof(tr->phase), "%s", s->phase);
	plausibility(s, &dr.tubercles, &e, tr->rejected, sizeof(tr->rejected));
	if (!tr->rejected[0] && st.n_tubercles < FS_AGENT_MIN_COUNT)
		snprintf(tr->rejected, sizeof(tr->rejected), "%d tubercles, fewer than %d", st.n_tubercles,
			 FS_AGENT_MIN_COUNT);
	tr->implausible = tr->rejected[0] != 0;
	idx = (int)s->n_trials++;
	double h = st.hexagonalness_score;
	/* one named score (fs_agent_score_better); an implausible result never
	 * becomes the best, nor one that an earlier plausible trial beats */
	const fs_stats *bs = s->best >= 0 ? &s->trials[s->best].stats : NULL;
	int better = !tr->implausible &&
		     (!bs || fs_agent_score_better(h, st.coverage_percent, bs->hexagonalness_score, bs->coverage_percent)) &&
		     !beaten_by_earlier(s, (size_t)idx, h, st.coverage_percent);
	if (better && (!bs || h > bs->hexagonalness_score + s->job->plateau_threshold))
		s->no_improve = 0;
	else
		s->no_improve++;
	if (tr->implausible)
		fs_agent_log(s, "Result of iteration %d rejected: %s", s->iteration, tr->rejected);
	if (better) {
		s->best = idx;
		if (copy_lists(&s->best_t, &s->best_e, &dr.tubercles, &e)) {
			snprintf(out->error, sizeof(out->error), "out of memory");
			rc = FS_TOOL_CRITICAL;
			goto out;
		}
	}
	/* the set shows every extraction while the run goes on; the best is put back at the end */
	int drc = fs_set_replace_all(s->db, s->job->set_id, -1, s->job->user_id, &dr.tubercles, &e, &s->params,
				     "agent_extraction", s->job->run_id, &rev, NULL, err, sizeof(err));
	if (drc) {
		rc = store_failed(out, drc, "storing the extraction", err);
		goto out;
	}
	s->applied = idx;
	if ((rc = reload(s, out)) != FS_TOOL_OK)
		goto out;
	double iter_s = now - s->t_iter;
	s->iter_seconds_sum += iter_s;
	s->t_iter = now;
	iteration_event(s, idx, iter_s);
	cJSON *ev = cJSON_CreateObject();
	cJSON_AddNumberToObject(ev, "n_tubercles", st.n_tubercles);
	cJSON_AddNumberToObject(ev, "n_edges", st.n_edges);
	cJSON_AddStringToObject(ev, "method", fs_method_name(s->params.method));
	cJSON_AddNumberToObject(ev, "hexagonalness_score", fs_agent_r3(h));
	cJSON_AddStringToObject(ev, "reliability", st.reliability ? st.reliability : "none");
	cJSON_AddNumberToObject(ev, "set_id", (double)s->job->set_id);
	fs_event_log(s->db, s->job->user_id, s->rec.id, "extraction_complete", ev);
	cJSON_Delete(ev);
	fs_agent_log(s, "Extraction [%d/%d]: %d tubercles, hexagonalness=%.3f", s->iteration, s->job->max_iterations,
		     st.n_tubercles, h);
	if (idx == s->best)
		fs_agent_log(s, "New best! hexagonalness=%.3f (iteration %d)", h, s->iteration);
	cJSON *sl = cJSON_CreateObject();
	cJSON_AddNumberToObject(sl, "iteration", s->iteration);
	cJSON_AddNumberToObject(sl, "max_iterations", s->job->max_iterations);
	cJSON_AddStringToObject(sl, "phase", s->phase);
	cJSON_AddNumberToObject(sl, "hexagonalness", fs_agent_r3(h));
	cJSON_AddNumberToObject(sl, "tubercles", st.n_tubercles);
	cJSON_AddNumberToObject(sl, "edges", st.n_edges);
	if (s->best >= 0)
		cJSON_AddNumberToObject(sl, "best_score", fs_agent_r3(s->trials[s->best].stats.hexagonalness_score));
	fs_agent_status_line(s, sl);
	/* the stopping rules of seed 001 §3.3, enforced here rather than left to the model */
	if (h >= s->job->target_score && !tr->implausible) {
		snprintf(s->stop_reason, sizeof(s->stop_reason), "target_achieved");
		fs_agent_log(s, "AUTO-ACCEPT: Target hexagonalness achieved: %.3f >= %.3f", h, s->job->target_score);
	} else if (s->iteration >= s->job->max_iterations) {
		snprintf(s->stop_reason, sizeof(s->stop_reason), "max_iterations");
		fs_agent_log(s, "MAX ITERATIONS: %d extractions done", s->iteration);
	} else if (!s->own_plateau && s->job->plateau_iterations > 0 && s->no_improve >= s->job->plateau_iterations) {
		snprintf(s->stop_reason, sizeof(s->stop_reason), "plateau_detected");
		fs_agent_log(s, "PLATEAU: no improvement for %d extractions", s->no_improve);
	}
	out->data = trial_result(s, idx, 0);
	fs_agent_emit_status(s);
	rc = FS_TOOL_OK;
out:
	fs_detect_result_free(&dr);
	fs_edge_list_free(&e);
	return rc;
}

int fs_agent_initial_extraction(fs_agent_sess *s, int *n, char *err, size_t errlen)
{
	fs_detect_result dr = {0};
	fs_edge_list e = {0};
	long long rev;
	int rc = -1;

	*n = 0;
	if (fs_detect(s->img, &s->params, s->um_for_detect, &dr, err, errlen))
		goto out;
	if (dr.tubercles.n >= 2 && fs_graph_build(&dr.tubercles, s->params.neighbor_graph, s->params.cull_long_edges,
						    s->params.cull_factor, &e, err, errlen))
		goto out;
	if (fs_set_replace_all(s->db, s->job->set_id, -1, s->job->user_id, &dr.tubercles, &e, &s->params,
			       "agent_extraction", s->job->run_id, &rev, NULL, err, errlen) ||
	    fs_agent_sess_reload(s, err, errlen))
		goto out;
	*n = (int)s->t.n;
	record_action(s, "run_extraction", 0, -1, -1);
	fs_agent_log(s, "The set was empty: extraction with method %s found %zu tubercles, %zu connections, "
		     "hexagonalness %.3f", fs_method_name(s->params.method), s->t.n, s->e.n, s->stats.hexagonalness_score);
	rc = 0;
out:
	fs_detect_result_free(&dr);
	fs_edge_list_free(&e);
	return rc;
}

static int t_opt_screenshot(const cJSON *args, fs_tool_output *out, void *user)
{
	return shot_tool(user, bool_arg(args, "include_overlay", 1), 0, out);
}

static int t_get_metrics(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_agent_sess *s = user;
	(void)args;
	out->data = fs_agent_metrics_json(&s->stats);
	cJSON_AddNumberToObject(out->data, "target_hexagonalness", s->job->target_score);
	cJSON_AddNumberToObject(out->data, "iteration", s->iteration);
	return FS_TOOL_OK;
}

static int t_get_params(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_agent_sess *s = user;
	(void)args;
	out->data = fs_params_to_json(&s->params);
	return FS_TOOL_OK;
}

static int t_set_params(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_agent_sess *s = user;
	fs_params p = s->params;
	char err[256] = "";
	if (!cJSON_GetArraySize(args)) {
		snprintf(out->error, sizeof(out->error), "no parameter given");
		return FS_TOOL_ERROR;
	}
	if (fs_params_from_json(&p, args, 0, err, sizeof(err))) {
		snprintf(out->error, sizeof(out->error), "%s", err);
		return FS_TOOL_ERROR;
	}
	/* only the method's own parameters are tuned: a change to one the
	 * method does not use would change nothing (params.c's table). A
	 * change of method brings a whole parameter set (the local search's
	 * neighbour of a best found under another method than the current
	 * one): what the new method does not use is not the model's error. */
	const cJSON *it;
	cJSON_ArrayForEach(it, args)
	{
		if (p.method != s->params.method)
			break;
		const char *why = NULL;
		if (!it->string || fs_param_used_by(p.method, it->string, &why) != 0)
			continue;
		cJSON *now = fs_params_to_json(&s->params), *want = fs_params_to_json(&p);
		int changed = !cJSON_Compare(cJSON_GetObjectItem(now, it->string), cJSON_GetObjectItem(want, it->string), 1);
		cJSON_Delete(now);
		cJSON_Delete(want);
		if (changed) {
			snprintf(out->error, sizeof(out->error),
				 "%s is not used by method %s (%s): change only the method's own parameters",
				 it->string, fs_method_name(p.method), why ? why : "");
			return FS_TOOL_ERROR;
		}
	}
	s->params = p;
	s->profile_phase = 0;
	snprintf(s->phase, sizeof(s->phase), "fine_tuning");
	char *txt = cJSON_PrintUnformatted(args);
	fs_agent_log(s, "Params updated: %s", txt ? txt : "");
	free(txt);
	out->data = cJSON_CreateObject();
	cJSON_AddItemToObject(out->data, "params", fs_params_to_json(&p));
	int dup = fs_agent_trial_find(s, &p);
	if (dup >= 0)
		cJSON_AddStringToObject(out->data, "warning", "these exact parameters were already tried; "
							       "run_extraction would return the recorded result");
	return FS_TOOL_OK;
}

static int t_load_profile(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_agent_sess *s = user;
	const char *name = str_arg(args, "profile_name", "");
	const fs_profile *p = fs_profile_find(name);
	if (!p) {
		size_t n;
		const fs_profile *all = fs_profiles(&n);
		int k = snprintf(out->error, sizeof(out->error), "unknown profile '%s'; known:", name);
		for (size_t i = 0; i < n && k > 0 && (size_t)k < sizeof(out->error); i++)
			k += snprintf(out->error + k, sizeof(out->error) - k, " %s", all[i].name);
		return FS_TOOL_ERROR;
	}
	s->params = p->params;
	if (s->um_per_px <= 0 && p->calibration_um_per_px > 0)
		s->um_for_detect = p->calibration_um_per_px;
	fs_agent_log(s, "Loaded profile: %s", p->name);
	out->data = cJSON_CreateObject();
	cJSON_AddStringToObject(out->data, "profile", p->name);
	cJSON_AddItemToObject(out->data, "parameters", fs_params_to_json(&p->params));
	return FS_TOOL_OK;
}

static int t_accept(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_agent_sess *s = user;
	s->accepted = 1;
	snprintf(s->finish_text, sizeof(s->finish_text), "%s", str_arg(args, "reason", ""));
	fs_agent_log(s, "Result accepted: %s", s->finish_text);
	out->data = cJSON_CreateObject();
	cJSON_AddStringToObject(out->data, "message", "accepted: the best parameters will be applied");
	return FS_TOOL_OK;
}

static int t_get_history(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_agent_sess *s = user;
	(void)args;
	out->data = cJSON_CreateObject();
	cJSON *tr = cJSON_AddArrayToObject(out->data, "trials");
	for (size_t i = 0; i < s->n_trials; i++) {
		cJSON *x = cJSON_CreateObject();
		cJSON_AddNumberToObject(x, "iteration", s->trials[i].iteration);
		cJSON_AddNumberToObject(x, "hexagonalness", fs_agent_r3(s->trials[i].stats.hexagonalness_score));
		cJSON_AddNumberToObject(x, "n_tubercles", s->trials[i].stats.n_tubercles);
		cJSON_AddItemToObject(x, "params", fs_params_to_json(&s->trials[i].params));
		cJSON_AddItemToArray(tr, x);
	}
	if (s->best >= 0) {
		cJSON_AddNumberToObject(out->data, "best_iteration", s->trials[s->best].iteration);
		cJSON_AddNumberToObject(out->data, "best_hexagonalness",
					fs_agent_r3(s->trials[s->best].stats.hexagonalness_score));
	}
	cJSON_AddNumberToObject(out->data, "current_iteration", s->iteration);
	return FS_TOOL_OK;
}

static const char set_params_schema[] =
	"{\"type\":\"object\",\"properties\":{"
	"\"method\":{\"type\":\"string\",\"enum\":[\"auto\",\"log\",\"dog\",\"ellipse\",\"lattice\"]},"
	"\"threshold\":{\"type\":\"number\"},\"min_diameter_um\":{\"type\":\"number\"},"
	"\"max_diameter_um\":{\"type\":\"number\"},\"min_circularity\":{\"type\":\"number\"},"
	"\"clahe_clip\":{\"type\":\"number\"},\"clahe_kernel\":{\"type\":\"integer\"},"
	"\"blur_sigma\":{\"type\":\"number\"},"
	"\"neighbor_graph\":{\"type\":\"string\",\"enum\":[\"delaunay\",\"gabriel\",\"rng\"]},"
	"\"cull_long_edges\":{\"type\":\"boolean\"},\"cull_factor\":{\"type\":\"number\"},"
	"\"edge_margin_px\":{\"type\":\"integer\"},\"tophat_radius\":{\"type\":\"integer\"},"
	"\"auto_prominence\":{\"type\":\"number\"},\"auto_smoothing\":{\"type\":\"number\"}}}";

int fs_fish_tools_add_optimize(fs_tool_registry *reg, fs_agent_sess *s, char *err, size_t errlen)
{
	static const char reason[] = "{\"type\":\"object\",\"properties\":{\"reason\":{\"type\":\"string\"}},"
				     "\"required\":[\"reason\"]}";
	if (fs_tools_add(reg, "run_extraction",
			 "Run the extraction with the current parameters and return its metrics. Parameters already "
			 "tried return the recorded result (marked duplicate) without running.",
			 NULL, t_run_extraction, s, 0, err, errlen) ||
	    fs_tools_add(reg, "get_screenshot", "Image with the current extraction drawn over it (downscaled).",
			 "{\"type\":\"object\",\"properties\":{\"include_overlay\":{\"type\":\"boolean\"}}}",
			 t_opt_screenshot, s, 0, err, errlen) ||
	    fs_tools_add(reg, "get_metrics", "Quality metrics of the current extraction.", NULL, t_get_metrics, s, 0,
			 err, errlen) ||
	    fs_tools_add(reg, "get_params", "Current extraction parameters.", NULL, t_get_params, s, 0, err, errlen) ||
	    fs_tools_add(reg, "set_params", "Change some extraction parameters (ranges are checked).",
			 set_params_schema, t_set_params, s, 0, err, errlen) ||
	    fs_tools_add(reg, "load_profile", "Replace the parameters with a built-in profile.",
			 "{\"type\":\"object\",\"properties\":{\"profile_name\":{\"type\":\"string\"}},"
			 "\"required\":[\"profile_name\"]}",
			 t_load_profile, s, 0, err, errlen) ||
	    fs_tools_add(reg, "accept_result", "Stop: the best result found is good enough or cannot be improved.",
			 reason, t_accept, s, FS_TOOL_FINISHING, err, errlen) ||
	    fs_tools_add(reg, "get_history", "Every parameter set tried with its score.", NULL, t_get_history, s, 0,
			 err, errlen))
		return -1;
	return 0;
}

/* --------------------------------------------------------- editing agent */

static int t_edit_screenshot(const cJSON *args, fs_tool_output *out, void *user)
{
	return shot_tool(user, bool_arg(args, "overlay", 1), bool_arg(args, "numbers", 0), out);
}

static cJSON *components(const fs_stats *st)
{
	cJSON *c = cJSON_CreateObject();
	cJSON_AddNumberToObject(c, "spacing_uniformity", fs_agent_r3(st->spacing_uniformity));
	cJSON_AddNumberToObject(c, "degree_score", fs_agent_r3(st->degree_score));
	cJSON_AddNumberToObject(c, "edge_ratio_score", fs_agent_r3(st->edge_ratio_score));
	return c;
}

static int t_get_state(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_agent_sess *s = user;
	(void)args;
	out->data = cJSON_CreateObject();
	cJSON_AddNumberToObject(out->data, "tubercle_count", (double)s->t.n);
	cJSON_AddNumberToObject(out->data, "edge_count", (double)s->e.n);
	cJSON_AddNumberToObject(out->data, "hexagonalness", fs_agent_r3(s->stats.hexagonalness_score));
	cJSON_AddItemToObject(out->data, "hexagonalness_components", components(&s->stats));
	cJSON_AddNumberToObject(out->data, "coverage_percent", round(s->stats.coverage_percent * 10) / 10);
	cJSON *d = cJSON_AddObjectToObject(out->data, "image_dimensions");
	cJSON_AddNumberToObject(d, "width", s->img->width);
	cJSON_AddNumberToObject(d, "height", s->img->height);
	cJSON *sd = cJSON_AddObjectToObject(out->data, "screenshot_dimensions");
	cJSON_AddNumberToObject(sd, "width", s->shot_w ? s->shot_w : s->img->width);
	cJSON_AddNumberToObject(sd, "height", s->shot_h ? s->shot_h : s->img->height);
	cJSON_AddNumberToObject(out->data, "iteration", s->iteration);
	cJSON_AddNumberToObject(out->data, "plateau_count", s->plateau);
	fs_agent_log(s, "State: hex=%.3f, coverage=%.1f%%, tubercles=%zu (%+d), plateau=%d/%d",
		     s->stats.hexagonalness_score, s->stats.coverage_percent, s->t.n, (int)s->t.n - s->start_count,
		     s->plateau, s->job->plateau_iterations);
	return FS_TOOL_OK;
}

static cJSON *tub_json(const fs_tubercle *t, double scale)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "id", t->id);
	cJSON_AddNumberToObject(o, "x", round(t->centroid_x * 10) / 10);
	cJSON_AddNumberToObject(o, "y", round(t->centroid_y * 10) / 10);
	/* null when unmeasured (cJSON prints NaN as null) */
	cJSON_AddNumberToObject(o, "radius_px", round(t->radius_px * 10) / 10);
	cJSON_AddNumberToObject(o, "screenshot_x", round(t->centroid_x * scale * 10) / 10);
	cJSON_AddNumberToObject(o, "screenshot_y", round(t->centroid_y * scale * 10) / 10);
	return o;
}

static const fs_tubercle *find_id(const fs_agent_sess *s, int id)
{
	for (size_t i = 0; i < s->t.n; i++)
		if (s->t.items[i].id == id)
			return &s->t.items[i];
	return NULL;
}

/* Screenshot coordinates to image pixels, checked against the image. */
static int to_image(const fs_agent_sess *s, const cJSON *args, double *x, double *y, fs_tool_output *out)
{
	double sc = s->shot_scale > 0 ? s->shot_scale : 1.0;
	double sx = num_arg(args, "x", -1), sy = num_arg(args, "y", -1);
	*x = sx / sc;
	*y = sy / sc;
	if (!(*x >= 0 && *y >= 0 && *x <= s->img->width - 1 && *y <= s->img->height - 1)) {
		snprintf(out->error, sizeof(out->error),
			 "(%.1f, %.1f) is outside the screenshot (%dx%d); coordinates are screenshot pixels", sx, sy,
			 (int)lround(s->img->width * sc), (int)lround(s->img->height * sc));
		return -1;
	}
	return 0;
}

/* Nothing is ever put outside the scale region (paper margin, black
 * surround, data bar): the call is refused with the reason, which the
 * model sees and the run's log keeps. */
static int outside_region(fs_agent_sess *s, double x, double y, fs_tool_output *out)
{
	if (fs_scale_region_contains(&s->region, x, y))
		return 0;
	double sc = s->shot_scale > 0 ? s->shot_scale : 1.0;
	snprintf(out->error, sizeof(out->error),
		 "(%.0f, %.0f) is outside the scale region (paper margin, surroundings or data bar): nothing is "
		 "placed there",
		 x * sc, y * sc);
	fs_agent_log(s, "Refused: image(%.0f, %.0f) is outside the scale region", x, y);
	return -1;
}

static int t_add(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_agent_sess *s = user;
	double sc = s->shot_scale > 0 ? s->shot_scale : 1.0;
	double x, y;
	fs_tubercle t;
	fs_point_result pr;
	char err[256] = "";
	const char *how = "given";
	int tid, rc;
	long long rev;

	if (to_image(s, args, &x, &y, out) || outside_region(s, x, y, out))
		return FS_TOOL_ERROR;
	fs_tubercle_init(&t);
	t.centroid_x = x;
	t.centroid_y = y;
	t.circularity = 1;
	t.source = FS_SOURCE_AGENT;
	double r = num_arg(args, "radius", -1);
	if (r > 0) {
		t.radius_px = r / sc;
	} else {
		double mr = mean_radius(s);
		t.radius_px = mr;
		how = "mean";
		/* the blob under the point gives the size when it is really there */
		if (fs_analyze_point(s->img, &s->params, s->um_for_detect, x, y, 2.0, &pr, err, sizeof(err)) == 0 &&
		    pr.found && hypot(pr.tubercle.centroid_x - x, pr.tubercle.centroid_y - y) <= 1.5 * mr &&
		    pr.tubercle.radius_px > 0.3 * mr && pr.tubercle.radius_px < 3 * mr) {
			t.radius_px = pr.tubercle.radius_px;
			t.circularity = pr.tubercle.circularity;
			how = "auto";
		}
	}
	err[0] = 0;
	rc = fs_set_add_tubercle(s->db, s->job->set_id, -1, s->job->user_id, &t, s->job->run_id, &tid, &rev, NULL, err,
				 sizeof(err));
	if (rc)
		return store_failed(out, rc, "adding the tubercle", err);
	int keep = 0;
	if (rev == s->revision + 1) {
		fs_tubercle n = t;
		n.id = tid;
		keep = inside_hull(&s->t, x, y);
		n.is_boundary = 0;
		if (fs_tubercle_list_append(&s->t, &n))
			rev = -1; /* out of memory: the reload below reads it back */
	}
	if ((rc = refresh(s, rev, keep, x, y, NAN, NAN, -1, out)) != FS_TOOL_OK)
		return rc;
	s->added++;
	record_action(s, "add_tubercle", tid, x, y);
	fs_agent_log(s, "Added tubercle #%d at shot(%.0f, %.0f) -> image(%.0f, %.0f), radius %.1f (%s)", tid,
		     x * sc, y * sc, x, y, t.radius_px, how);
	edit_status_line(s, "add_tubercle", tid, x * sc, y * sc);
	cJSON *ev = cJSON_CreateObject();
	cJSON_AddNumberToObject(ev, "id", tid);
	cJSON_AddNumberToObject(ev, "x", x);
	cJSON_AddNumberToObject(ev, "y", y);
	cJSON_AddNumberToObject(ev, "radius", t.radius_px);
	cJSON_AddNumberToObject(ev, "set_id", (double)s->job->set_id);
	fs_event_log(s->db, s->job->user_id, s->rec.id, "tools_tubercle_added", ev);
	cJSON_Delete(ev);
	const fs_tubercle *nt = find_id(s, tid);
	out->data = cJSON_CreateObject();
	cJSON_AddNumberToObject(out->data, "id", tid);
	if (nt)
		cJSON_AddItemToObject(out->data, "tubercle", tub_json(nt, sc));
	cJSON_AddStringToObject(out->data, "radius_from", how);
	cJSON_AddNumberToObject(out->data, "tubercle_count", (double)s->t.n);
	/* what the image shows there, so a model sees a step on blank surface
	 * for what it is (the local editor adds only where it is shown) */
	fs_agent_evidence evd;
	if (fs_agent_evidence_at(s, x, y, &evd) == 0) {
		cJSON *evj = cJSON_AddObjectToObject(out->data, "evidence");
		cJSON_AddBoolToObject(evj, "tubercle_in_image", evd.ok);
		cJSON_AddStringToObject(evj, "why", evd.why);
		if (!evd.ok)
			fs_agent_log(s, "Tubercle #%d: the image shows none there (%s)", tid, evd.why);
	}
	fs_agent_emit_status(s);
	return FS_TOOL_OK;
}

static int t_delete(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_agent_sess *s = user;
	int id = (int)num_arg(args, "id", 0), rc;
	char err[256] = "";
	long long rev;
	const fs_tubercle *t = find_id(s, id);
	if (!t) {
		snprintf(out->error, sizeof(out->error), "no tubercle #%d in the set", id);
		return FS_TOOL_ERROR;
	}
	double x = t->centroid_x, y = t->centroid_y, sc = s->shot_scale > 0 ? s->shot_scale : 1.0;
	rc = fs_set_delete_items(s->db, s->job->set_id, -1, s->job->user_id, &id, 1, NULL, 0, "agent_delete",
				 s->job->run_id, &rev, NULL, err, sizeof(err));
	if (rc)
		return store_failed(out, rc, "deleting the tubercle", err);
	int keep = !t->is_boundary;
	if (rev == s->revision + 1)
		cache_remove(s, id);
	if ((rc = refresh(s, rev, keep, x, y, NAN, NAN, -1, out)) != FS_TOOL_OK)
		return rc;
	s->deleted++;
	record_action(s, "delete_tubercle", id, x, y);
	fs_agent_log(s, "Deleted tubercle #%d at image(%.0f, %.0f)", id, x, y);
	edit_status_line(s, "delete_tubercle", id, x * sc, y * sc);
	cJSON *ev = cJSON_CreateObject();
	cJSON_AddNumberToObject(ev, "id", id);
	cJSON_AddNumberToObject(ev, "set_id", (double)s->job->set_id);
	fs_event_log(s->db, s->job->user_id, s->rec.id, "tools_tubercle_deleted", ev);
	cJSON_Delete(ev);
	out->data = cJSON_CreateObject();
	cJSON_AddNumberToObject(out->data, "deleted_id", id);
	cJSON_AddNumberToObject(out->data, "tubercle_count", (double)s->t.n);
	fs_agent_emit_status(s);
	return FS_TOOL_OK;
}

static int t_move(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_agent_sess *s = user;
	int id = (int)num_arg(args, "id", 0), rc;
	double x, y, sc = s->shot_scale > 0 ? s->shot_scale : 1.0;
	char err[256] = "";
	long long rev;
	const fs_tubercle *old = find_id(s, id);
	if (!old) {
		snprintf(out->error, sizeof(out->error), "no tubercle #%d in the set", id);
		return FS_TOOL_ERROR;
	}
	if (to_image(s, args, &x, &y, out) || outside_region(s, x, y, out))
		return FS_TOOL_ERROR;
	fs_tubercle t = *old;
	double fx = t.centroid_x, fy = t.centroid_y;
	t.centroid_x = x;
	t.centroid_y = y;
	rc = fs_set_update_tubercle(s->db, s->job->set_id, -1, s->job->user_id, id, &t, "agent_move", s->job->run_id,
				    &rev, NULL, err, sizeof(err));
	if (rc)
		return store_failed(out, rc, "moving the tubercle", err);
	int keep = 0;
	if (rev == s->revision + 1) {
		fs_tubercle *c = (fs_tubercle *)find_id(s, id);
		keep = c && !c->is_boundary && inside_hull(&s->t, x, y);
		if (c)
			*c = t;
	}
	if ((rc = refresh(s, rev, keep, x, y, fx, fy, id, out)) != FS_TOOL_OK)
		return rc;
	s->moved++;
	record_action(s, "move_tubercle", id, x, y);
	fs_agent_log(s, "Moved tubercle #%d from image(%.0f, %.0f) to image(%.0f, %.0f)", id, fx, fy, x, y);
	edit_status_line(s, "move_tubercle", id, x * sc, y * sc);
	cJSON *ev = cJSON_CreateObject();
	cJSON_AddNumberToObject(ev, "id", id);
	cJSON_AddNumberToObject(ev, "x", x);
	cJSON_AddNumberToObject(ev, "y", y);
	cJSON_AddNumberToObject(ev, "set_id", (double)s->job->set_id);
	fs_event_log(s->db, s->job->user_id, s->rec.id, "tools_tubercle_moved", ev);
	cJSON_Delete(ev);
	const fs_tubercle *nt = find_id(s, id);
	out->data = cJSON_CreateObject();
	if (nt)
		cJSON_AddItemToObject(out->data, "tubercle", tub_json(nt, sc));
	fs_agent_emit_status(s);
	return FS_TOOL_OK;
}

int fs_agent_auto_connect(fs_agent_sess *s, const char *method, int *n_edges, char *err, size_t errlen)
{
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_edge_list none = {0};
	fs_graph g;
	long long rev;
	int rc = -1;

	if (fs_graph_parse(method, &g)) {
		snprintf(err, errlen, "unknown method '%s' (delaunay, gabriel, rng)", method);
		return FS_DB_INVALID;
	}
	if (copy_lists(&t, &none, &s->t, &none)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (t.n >= 2 && fs_graph_build(&t, g, s->params.cull_long_edges, s->params.cull_factor, &e, err, errlen))
		goto out;
	rc = fs_set_replace_edges(s->db, s->job->set_id, -1, s->job->user_id, &e, "auto_connect", s->job->run_id, &rev,
				  NULL, err, errlen);
	if (rc)
		goto out;
	rc = fs_agent_sess_reload(s, err, errlen) ? FS_DB_ERROR : 0;
	if (rc)
		goto out;
	*n_edges = (int)s->e.n;
	cJSON *ev = cJSON_CreateObject();
	cJSON_AddStringToObject(ev, "method", method);
	cJSON *res = cJSON_AddObjectToObject(ev, "result");
	cJSON_AddNumberToObject(res, "n_edges", (double)s->e.n);
	cJSON_AddNumberToObject(res, "hexagonalness", fs_agent_r3(s->stats.hexagonalness_score));
	cJSON_AddNumberToObject(ev, "run_id", (double)s->job->run_id);
	fs_history_add(s->db, s->job->set_id, s->job->user_id, "auto_connect", ev);
	cJSON_Delete(ev);
	ev = cJSON_CreateObject();
	cJSON_AddStringToObject(ev, "method", method);
	cJSON_AddNumberToObject(ev, "n_edges", (double)s->e.n);
	cJSON_AddNumberToObject(ev, "hexagonalness_score", fs_agent_r3(s->stats.hexagonalness_score));
	cJSON_AddStringToObject(ev, "reliability", s->stats.reliability ? s->stats.reliability : "none");
	cJSON_AddNumberToObject(ev, "set_id", (double)s->job->set_id);
	fs_event_log(s->db, s->job->user_id, s->rec.id, "tools_auto_connect", ev);
	cJSON_Delete(ev);
	fs_agent_log(s, "Auto-connect (%s): %zu edges, hexagonalness %.3f", method, s->e.n, s->stats.hexagonalness_score);
out:
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	return rc;
}

int fs_agent_cleanup_boundary(fs_agent_sess *s, int *n, char *err, size_t errlen)
{
	int *deg = fs_agent_degrees(s);
	int *ids = malloc((s->t.n ? s->t.n : 1) * sizeof(int));
	size_t k = 0;
	long long rev;
	int rc = -1;

	*n = 0;
	if (!deg || !ids) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	/* a tubercle the image shows is kept (h34l: P1 Fig2's #288 under the
	 * outline rule, a real dome whose lower neighbours the set lacked);
	 * the verdicts are made in the evidence's tile order first */
	int judge = fs_agent_evidence_ready(s);
	if (judge) {
		unsigned char *want = malloc(s->t.n ? s->t.n : 1);
		if (want) {
			for (size_t i = 0; i < s->t.n; i++)
				want[i] = deg[i] < 2 &&
					  fs_scale_region_contains(&s->region, s->t.items[i].centroid_x, s->t.items[i].centroid_y);
			fs_agent_evidence_warm(s, &s->t, want);
			free(want);
		}
	}
	for (size_t i = 0; i < s->t.n; i++) {
		const fs_tubercle *a = &s->t.items[i];
		if (deg[i] >= 2 ||
		    (judge && fs_scale_region_contains(&s->region, a->centroid_x, a->centroid_y) && fs_agent_evidenced(s, a)))
			continue;
		ids[k++] = a->id;
	}
	rc = 0;
	if (!k)
		goto out;
	rc = fs_set_delete_items(s->db, s->job->set_id, -1, s->job->user_id, ids, k, NULL, 0, "agent_cleanup",
				 s->job->run_id, &rev, NULL, err, errlen);
	if (rc)
		goto out;
	rc = fs_agent_sess_reload(s, err, errlen) ? FS_DB_ERROR : 0;
	*n = (int)k;
	s->deleted += (int)k;
	fs_agent_log(s, "Boundary cleanup: deleted %zu tubercles with fewer than 2 neighbours", k);
out:
	free(deg);
	free(ids);
	return rc;
}

static int t_auto_connect(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_agent_sess *s = user;
	const char *m = str_arg(args, "method", "gabriel");
	char err[256] = "";
	int n = 0, rc = fs_agent_auto_connect(s, m, &n, err, sizeof(err));
	if (rc)
		return store_failed(out, rc, "auto-connect", err);
	record_action(s, "auto_connect", 0, -1, -1);
	out->data = cJSON_CreateObject();
	cJSON_AddStringToObject(out->data, "method", m);
	cJSON_AddNumberToObject(out->data, "n_edges", n);
	cJSON_AddNumberToObject(out->data, "hexagonalness", fs_agent_r3(s->stats.hexagonalness_score));
	fs_agent_emit_status(s);
	return FS_TOOL_OK;
}

/* ---- selections (agent_select.h) ---- */

static cJSON *ids_json(const int *ids, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; a && i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(ids[i]));
	return a;
}

static int t_select(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_agent_sess *s = user;
	int *ids = NULL;
	size_t n = 0;
	char desc[512];
	if (fs_agent_select(s, args, &ids, &n, desc, sizeof(desc), out->error, sizeof(out->error)))
		return FS_TOOL_ERROR;
	out->data = cJSON_CreateObject();
	cJSON_AddNumberToObject(out->data, "count", (double)n);
	cJSON_AddItemToObject(out->data, "ids", ids_json(ids, n));
	cJSON_AddStringToObject(out->data, "criteria", desc[0] ? desc : "none (every tubercle)");
	fs_agent_log(s, "Selected %zu tubercle(s): %s", n, desc[0] ? desc : "every tubercle");
	free(ids);
	return FS_TOOL_OK;
}

static int t_delete_many(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_agent_sess *s = user;
	int *ids = NULL;
	size_t n = 0;
	char desc[512], err[256] = "", list[512];
	long long rev;
	if (!fs_agent_selection_given(args)) {
		snprintf(out->error, sizeof(out->error),
			 "give at least one selection criterion (ids, region, edge, corner, near, degree, diameter, "
			 "source, isolated, small, large): an empty selection would delete everything");
		return FS_TOOL_ERROR;
	}
	if (fs_agent_select(s, args, &ids, &n, desc, sizeof(desc), out->error, sizeof(out->error)))
		return FS_TOOL_ERROR;
	if (n) {
		int rc = fs_set_delete_items(s->db, s->job->set_id, -1, s->job->user_id, ids, n, NULL, 0, "agent_delete",
					     s->job->run_id, &rev, NULL, err, sizeof(err));
		if (rc) {
			free(ids);
			return store_failed(out, rc, "deleting the tubercles", err);
		}
		if ((rc = reload(s, out)) != FS_TOOL_OK) {
			free(ids);
			return rc;
		}
		s->deleted += (int)n;
		record_action(s, "delete_tubercles", 0, -1, -1);
	}
	fs_agent_ids_text(ids, n, 30, list, sizeof(list));
	fs_agent_log(s, "Deleted %zu tubercle(s) (%s)%s%s", n, desc, n ? ": " : "", list);
	out->data = cJSON_CreateObject();
	cJSON_AddNumberToObject(out->data, "deleted", (double)n);
	cJSON_AddItemToObject(out->data, "deleted_ids", ids_json(ids, n));
	cJSON_AddStringToObject(out->data, "criteria", desc);
	cJSON_AddNumberToObject(out->data, "tubercle_count", (double)s->t.n);
	free(ids);
	fs_agent_emit_status(s);
	return FS_TOOL_OK;
}

static int t_fill_gaps(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_agent_sess *s = user;
	fs_lattice_plan plan;
	int max = (int)num_arg(args, "max_add", 50), added = 0, left = 0;
	cJSON *ids = cJSON_CreateArray();
	if (!ids || fs_agent_lattice_plan(s, NULL, NULL, 0, 100000, &plan)) {
		cJSON_Delete(ids);
		snprintf(out->error, sizeof(out->error), "out of memory");
		return FS_TOOL_CRITICAL;
	}
	double sc = s->shot_scale > 0 ? s->shot_scale : 1.0;
	for (size_t i = 0; i < plan.n_add; i++) {
		if (!fs_agent_point_in_area(s, args, plan.ax[i], plan.ay[i]))
			continue;
		if (added >= max) {
			left++;
			continue;
		}
		cJSON *a = cJSON_CreateObject();
		fs_tool_output o;
		memset(&o, 0, sizeof(o));
		cJSON_AddNumberToObject(a, "x", plan.ax[i] * sc);
		cJSON_AddNumberToObject(a, "y", plan.ay[i] * sc);
		int rc = t_add(a, &o, s);
		cJSON_Delete(a);
		if (rc == FS_TOOL_OK) {
			cJSON_AddItemToArray(ids, cJSON_CreateNumber(cJSON_GetNumberValue(cJSON_GetObjectItem(o.data, "id"))));
			added++;
		}
		cJSON_Delete(o.data);
		free(o.image_b64);
		if (rc == FS_TOOL_CRITICAL) {
			snprintf(out->error, sizeof(out->error), "%s", o.error);
			fs_lattice_plan_free(&plan);
			cJSON_Delete(ids);
			return rc;
		}
	}
	fs_lattice_plan_free(&plan);
	out->data = cJSON_CreateObject();
	cJSON_AddNumberToObject(out->data, "added", added);
	cJSON_AddNumberToObject(out->data, "sites_left", left);
	cJSON_AddNumberToObject(out->data, "max_add", max);
	cJSON_AddItemToObject(out->data, "added_ids", ids);
	cJSON_AddNumberToObject(out->data, "tubercle_count", (double)s->t.n);
	return FS_TOOL_OK;
}

static int t_get_statistics(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_agent_sess *s = user;
	const fs_stats *st = &s->stats;
	(void)args;
	out->data = fs_agent_metrics_json(st);
	cJSON_AddItemToObject(out->data, "hexagonalness_components", components(st));
	cJSON_AddNumberToObject(out->data, "min_diameter_um", fs_agent_r3(st->min_diameter_um));
	cJSON_AddNumberToObject(out->data, "max_diameter_um", fs_agent_r3(st->max_diameter_um));
	cJSON_AddNumberToObject(out->data, "min_space_um", fs_agent_r3(st->min_space_um));
	cJSON_AddNumberToObject(out->data, "max_space_um", fs_agent_r3(st->max_space_um));
	cJSON_AddNumberToObject(out->data, "mean_degree", fs_agent_r3(st->mean_degree));
	cJSON_AddNumberToObject(out->data, "n_boundary", st->n_boundary);
	cJSON_AddNumberToObject(out->data, "n_unmeasured", st->n_unmeasured);
	cJSON_AddStringToObject(out->data, "reliability", st->reliability ? st->reliability : "none");
	cJSON_AddNumberToObject(out->data, "um_per_px", s->um_per_px);
	cJSON *h = cJSON_AddObjectToObject(out->data, "degree_histogram");
	for (int d = 0; d <= FS_DEGREE_HIST_MAX; d++)
		if (st->degree_histogram[d]) {
			char k[8];
			snprintf(k, sizeof(k), "%d%s", d, d == FS_DEGREE_HIST_MAX ? "+" : "");
			cJSON_AddNumberToObject(h, k, st->degree_histogram[d]);
		}
	return FS_TOOL_OK;
}

static int t_finish(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_agent_sess *s = user;
	s->finished = 1;
	snprintf(s->finish_text, sizeof(s->finish_text), "%s", str_arg(args, "reason", ""));
	fs_agent_log(s, "Finished: %s", s->finish_text);
	out->data = cJSON_CreateObject();
	cJSON_AddStringToObject(out->data, "message", "finishing");
	return FS_TOOL_OK;
}

int fs_fish_tools_add_edit(fs_tool_registry *reg, fs_agent_sess *s, int with_finish, char *err, size_t errlen)
{
	static const char xy[] =
		"{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\",\"minimum\":0,"
		"\"description\":\"X in screenshot pixels\"},\"y\":{\"type\":\"number\",\"minimum\":0,"
		"\"description\":\"Y in screenshot pixels\"},\"radius\":{\"type\":\"number\",\"exclusiveMinimum\":0,"
		"\"description\":\"radius in screenshot pixels (automatic when omitted)\"}},\"required\":[\"x\",\"y\"]}";
	static const char idxy[] =
		"{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\",\"minimum\":1},"
		"\"x\":{\"type\":\"number\",\"minimum\":0},\"y\":{\"type\":\"number\",\"minimum\":0}},"
		"\"required\":[\"id\",\"x\",\"y\"]}";
	if (fs_tools_add(reg, "get_screenshot",
			 "Capture the image with the tubercle overlay (cyan extracted, green manual, magenta agent; "
			 "lines are connections). Downscaled: give coordinates in its pixels.",
			 "{\"type\":\"object\",\"properties\":{\"overlay\":{\"type\":\"boolean\"},"
			 "\"numbers\":{\"type\":\"boolean\"}}}",
			 t_edit_screenshot, s, 0, err, errlen) ||
	    fs_tools_add(reg, "get_state",
			 "Tubercle and edge counts, hexagonalness with components, coverage, dimensions.", NULL,
			 t_get_state, s, 0, err, errlen) ||
	    fs_tools_add(reg, "add_tubercle",
			 "Add a tubercle at x, y (screenshot pixels) on a BRIGHT round spot; the radius is measured "
			 "there (else the mean radius). Never add in dark background.",
			 xy, t_add, s, 0, err, errlen) ||
	    fs_tools_add(reg, "delete_tubercle",
			 "Delete a tubercle by id (false positives, duplicates); its connections go too.",
			 "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\",\"minimum\":1}},"
			 "\"required\":[\"id\"]}",
			 t_delete, s, 0, err, errlen) ||
	    fs_tools_add(reg, "move_tubercle", "Move a tubercle to x, y (screenshot pixels).", idxy, t_move, s, 0,
			 err, errlen) ||
	    fs_tools_add(reg, "auto_connect",
			 "Regenerate the connections: delaunay (most), gabriel (recommended) or rng (fewest).",
			 "{\"type\":\"object\",\"properties\":{\"method\":{\"type\":\"string\","
			 "\"enum\":[\"delaunay\",\"gabriel\",\"rng\"]}}}",
			 t_auto_connect, s, 0, err, errlen) ||
	    fs_tools_add(reg, "get_statistics",
			 "Detailed statistics: diameters, spacing, hexagonalness components, degree histogram.", NULL,
			 t_get_statistics, s, 0, err, errlen) ||
	    fs_tools_add(reg, "select_tubercles",
			 "List the ids of the tubercles matching a selection (all criteria must hold): ids, region "
			 "rectangle, edge band (side, width_percent), corner, near an id, degree, diameter, source, "
			 "isolated, small, large. Changes nothing.",
			 "{\"type\":\"object\",\"properties\":{" FS_AGENT_SELECTION_PROPS "}}", t_select, s, 0, err,
			 errlen) ||
	    fs_tools_add(reg, "delete_tubercles",
			 "Delete every tubercle matching a selection (as select_tubercles; at least one criterion), "
			 "e.g. {\"max_degree\":1,\"edge\":{\"side\":\"right\",\"width_percent\":15}}. One step.",
			 "{\"type\":\"object\",\"properties\":{" FS_AGENT_SELECTION_PROPS "}}", t_delete_many, s, 0, err,
			 errlen) ||
	    fs_tools_add(reg, "fill_gaps",
			 "Add tubercles at the empty, bright sites of the lattice, only inside the area given (region, "
			 "edge, corner, near; everywhere when none), at most max_add.",
			 "{\"type\":\"object\",\"properties\":{" FS_AGENT_SELECTION_PROPS
			 ",\"max_add\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000}}}",
			 t_fill_gaps, s, 0, err, errlen))
		return -1;
	if (with_finish &&
	    fs_tools_add(reg, "finish", "Signal that the pattern completion is done (give a brief reason).",
			 "{\"type\":\"object\",\"properties\":{\"reason\":{\"type\":\"string\"}},"
			 "\"required\":[\"reason\"]}",
			 t_finish, s, FS_TOOL_FINISHING, err, errlen))
		return -1;
	return 0;
}
