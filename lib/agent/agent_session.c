/*
 * agent_session.c - the session of an agent run (agent_fish_tools.h) that
 * the kinds (optimiser, editor, chat) and their tools share: the set and
 * image it works on, the status object and log lines, and the glue between
 * the loop's hooks and the caller's callbacks. agent_jobs.c runs a job on it.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/agent_fish_tools.h"
#include "agent/agent_jobs.h"
#include "analysis/detect.h"
#include "analysis/graph.h"
#include "analysis/params_json.h"
#include "store/scale_regions.h"
#include "store/sets_store.h"
#include "store/settings_store.h"

double fs_agent_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int fs_agent_score_better(double ha, double ca, double hb, double cb)
{
	/* hexagonalness moves by a few thousandths when nothing real changed
	 * (one tubercle more or less at the hull): that is a tie */
	if (fabs(ha - hb) >= FS_AGENT_HEX_TIE)
		return ha > hb;
	return ca > cb + 0.05;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * Coverage of the scale region by the tubercles the lattice supports (at
 * least two connections no longer than 1.5 median connections) and the
 * image shows (fs_agent_evidenced, agent_evidence.c): the share
 * of sample points of the region (a grid of a third of the median
 * connection) within 0.7 of it of a supported tubercle - in a complete
 * hexagonal lattice every point is within 0.58 pitch of a site. A missing
 * tubercle leaves a hole, a false one between true ones adds nothing, and a
 * tubercle on blank paper (the white band) is outside the region or
 * unsupported, so it cannot count as coverage gained; nor can a tubercle the
 * image does not show (deleting it never lowers the coverage).
 */
static double supported_coverage(fs_agent_sess *s, const fs_edge_list *e)
{
	double *len = malloc((e->n ? e->n : 1) * sizeof(double)), *sorted = NULL;
	int *deg = calloc(s->t.n ? s->t.n : 1, sizeof(int)), *at = NULL, *head = NULL, *next = NULL;
	int maxid = 0;
	double cov = 0;
	for (size_t k = 0; k < s->t.n; k++)
		maxid = s->t.items[k].id > maxid ? s->t.items[k].id : maxid;
	at = malloc(((size_t)maxid + 1) * sizeof(int));
	sorted = malloc((e->n ? e->n : 1) * sizeof(double));
	if (!len || !deg || !at || !sorted || !e->n)
		goto out;
	for (int i = 0; i <= maxid; i++)
		at[i] = -1;
	for (size_t k = 0; k < s->t.n; k++)
		if (s->t.items[k].id >= 0)
			at[s->t.items[k].id] = (int)k;
	for (size_t i = 0; i < e->n; i++) {
		int a = e->items[i].id1, b = e->items[i].id2;
		int ka = a >= 0 && a <= maxid ? at[a] : -1, kb = b >= 0 && b <= maxid ? at[b] : -1;
		len[i] = ka < 0 || kb < 0 ? INFINITY
			: hypot(s->t.items[ka].centroid_x - s->t.items[kb].centroid_x,
				s->t.items[ka].centroid_y - s->t.items[kb].centroid_y);
		sorted[i] = len[i];
	}
	qsort(sorted, e->n, sizeof(double), cmp_dbl);
	double med = sorted[e->n / 2];
	if (!(med > 0.5) || !isfinite(med))
		goto out;
	for (size_t i = 0; i < e->n; i++) {
		if (!(len[i] <= 1.5 * med))
			continue;
		deg[at[e->items[i].id1]]++;
		deg[at[e->items[i].id2]]++;
	}
	/* the supported tubercles in cells of the reach; the sampling keeps the
	 * scale of the last full build, so one change cannot move the grid */
	if (!(s->cov_med > 0))
		s->cov_med = med;
	double reach = 0.7 * s->cov_med, step = s->cov_med / 3;
	int W = s->rec.width > 0 ? s->rec.width : s->img->width, H = s->rec.height > 0 ? s->rec.height : s->img->height;
	int gw = (int)(W / reach) + 1, gh = (int)(H / reach) + 1;
	head = malloc((size_t)gw * gh * sizeof(int));
	next = malloc((s->t.n ? s->t.n : 1) * sizeof(int));
	if (!head || !next)
		goto out;
	for (int i = 0; i < gw * gh; i++)
		head[i] = -1;
	/* the verdicts the loop below asks for, first in the evidence's tile
	 * order (a large image's set is in no spatial order) */
	unsigned char *want = malloc(s->t.n ? s->t.n : 1);
	if (want) {
		for (size_t k = 0; k < s->t.n; k++) {
			int cx = (int)(s->t.items[k].centroid_x / reach), cy = (int)(s->t.items[k].centroid_y / reach);
			want[k] = !(deg[k] < 2 || cx < 0 || cy < 0 || cx >= gw || cy >= gh);
		}
		fs_agent_evidence_warm(s, &s->t, want);
		free(want);
	}
	for (size_t k = 0; k < s->t.n; k++) {
		int cx = (int)(s->t.items[k].centroid_x / reach), cy = (int)(s->t.items[k].centroid_y / reach);
		if (deg[k] < 2 || cx < 0 || cy < 0 || cx >= gw || cy >= gh ||
		    !fs_agent_evidenced((fs_agent_sess *)s, &s->t.items[k]))
			continue;
		next[k] = head[cy * gw + cx];
		head[cy * gw + cx] = (int)k;
	}
	long total = 0, covered = 0;
	for (double y = step / 2; y < H; y += step)
		for (double x = step / 2; x < W; x += step) {
			if (!fs_scale_region_contains(&s->region, x, y))
				continue;
			total++;
			int cx = (int)(x / reach), cy = (int)(y / reach), hit = 0;
			for (int yy = cy - 1; yy <= cy + 1 && !hit; yy++)
				for (int xx = cx - 1; xx <= cx + 1 && !hit; xx++) {
					if (xx < 0 || yy < 0 || xx >= gw || yy >= gh)
						continue;
					for (int k = head[yy * gw + xx]; k >= 0 && !hit; k = next[k])
						hit = hypot(s->t.items[k].centroid_x - x, s->t.items[k].centroid_y - y) <= reach;
				}
			covered += hit;
		}
	cov = total ? 100.0 * covered / total : 0;
out:
	free(len);
	free(sorted);
	free(deg);
	free(at);
	free(head);
	free(next);
	return cov;
}

static const char *connect_method(const fs_agent_sess *s)
{
	return s->job->auto_connect_method[0] ? s->job->auto_connect_method : "gabriel";
}

/* Statistics and the coverage tie-break of the graph the session judges. */
static int measure(fs_agent_sess *s)
{
	const fs_edge_list *e = s->judged ? &s->judge_e : &s->e;
	if (fs_stats_compute(&s->t, e, s->um_per_px, NULL, s->rec.width, s->rec.height, &s->stats))
		return -1;
	s->score_cov = s->judged ? supported_coverage(s, e) : s->stats.coverage_percent;
	return 0;
}

int fs_agent_judge(fs_agent_sess *s)
{
	if (s->judged) {
		fs_graph g;
		char err[128];
		if (fs_graph_parse(connect_method(s), &g))
			g = FS_GRAPH_GABRIEL;
		fs_edge_list_free(&s->judge_e);
		if (s->t.n >= 2 &&
		    fs_graph_build(&s->t, g, s->params.cull_long_edges, s->params.cull_factor, &s->judge_e, err, sizeof(err)))
			return -1;
		s->judge_len = fs_agent_reconnect_len(s);
		s->cov_med = 0; /* the coverage's sampling scale follows the whole graph again */
	}
	return measure(s);
}

int fs_agent_judge_at(fs_agent_sess *s, double x, double y)
{
	if (!s->judged)
		return measure(s);
	int rc = fs_agent_reconnect_at(s, x, y, -1);
	if (rc > 0)
		return fs_agent_judge(s);
	return rc ? -1 : measure(s);
}

int fs_agent_store_state(fs_agent_sess *s, const fs_tubercle_list *t, const fs_params *params, const char *kind,
			 char *err, size_t errlen)
{
	fs_tubercle_list c = {0};
	fs_edge_list e = {0};
	fs_graph g;
	long long rev;
	int rc = -1;
	if (fs_graph_parse(connect_method(s), &g))
		g = FS_GRAPH_GABRIEL;
	for (size_t i = 0; i < t->n; i++) {
		fs_tubercle x = t->items[i];
		x.id = (int)i + 1;
		if (fs_tubercle_list_append(&c, &x)) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	}
	if (c.n >= 2 && fs_graph_build(&c, g, s->params.cull_long_edges, s->params.cull_factor, &e, err, errlen))
		goto out;
	if (fs_set_replace_all(s->db, s->job->set_id, -1, s->job->user_id, &c, &e, params ? params : &s->params, kind,
			       s->job->run_id, &rev, NULL, err, errlen))
		goto out;
	rc = fs_agent_sess_reload(s, err, errlen);
out:
	fs_tubercle_list_free(&c);
	fs_edge_list_free(&e);
	return rc;
}

int fs_agent_sess_reload(fs_agent_sess *s, char *err, size_t errlen)
{
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	int rc = fs_set_load(s->db, s->job->set_id, &t, &e);
	if (rc) {
		snprintf(err, errlen, "cannot load set %lld (%d)", s->job->set_id, rc);
		return -1;
	}
	fs_tubercle_list_free(&s->t);
	fs_edge_list_free(&s->e);
	s->t = t;
	s->e = e;
	fs_set_revision(s->db, s->job->set_id, &s->revision);
	if (fs_agent_judge(s)) {
		snprintf(err, errlen, "out of memory computing statistics");
		return -1;
	}
	return 0;
}

int fs_agent_sess_init(fs_agent_sess *s, const fs_agent_job *job, fs_agent_env *env, char *err, size_t errlen)
{
	fs_set_info info;
	const fs_profile *prof = NULL;

	memset(s, 0, sizeof(*s));
	s->job = job;
	s->env = env;
	s->db = env->db;
	s->best = -1;
	s->applied = -1;
	s->profile_phase = 1;
	s->shot_scale = 1.0;
	s->t_start = s->t_iter = fs_agent_now();
	s->log_lines = cJSON_CreateArray();
	s->actions = cJSON_CreateArray();
	if (!s->log_lines || !s->actions) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (fs_set_get_info(s->db, job->set_id, &info)) {
		snprintf(err, errlen, "annotation set %lld not found", job->set_id);
		return -1;
	}
	if (job->image_id && info.image_id != job->image_id) {
		snprintf(err, errlen, "annotation set %lld does not belong to image %lld", job->set_id, job->image_id);
		return -1;
	}
	if (fs_image_get(s->db, info.image_id, &s->rec)) {
		snprintf(err, errlen, "image %lld not found", info.image_id);
		return -1;
	}
	/* in its own 1 or 2 bytes a pixel (issue 15: a 100 MP montage 100 MB,
	 * not 400 MB of floats); every consumer reads either storage: the scale
	 * region, the lattice estimate and the detection by bands and tiles,
	 * the evidence and the point analysis from crops, the screenshot from
	 * a streamed reduction */
	s->img = fs_image_load_work_compact(env->data_dir ? env->data_dir : env->cfg->data_dir, &s->rec, err, errlen);
	if (!s->img)
		return -1;
	if (fs_scale_region_for(s->db, s->rec.id, s->rec.work_key, s->img, &s->region, NULL, err, errlen))
		return -1;
	s->um_per_px = info.calibration_um_per_px > 0 ? info.calibration_um_per_px : s->rec.um_per_px;
	if (job->profile[0]) {
		prof = fs_profile_find(job->profile);
		if (!prof) {
			snprintf(err, errlen, "unknown profile '%s'", job->profile);
			return -1;
		}
		s->params = prof->params;
	} else if (info.has_params) {
		s->params = info.params;
		s->start_params = info.params;
		s->start_has_params = 1;
	} else {
		fs_params_default(&s->params);
	}
	/* µm size parameters need some calibration; the original's 700x estimate is the last resort */
	s->um_for_detect = s->um_per_px > 0 ? s->um_per_px
		: prof && prof->calibration_um_per_px > 0 ? prof->calibration_um_per_px
		: FS_CALIBRATION_ESTIMATE_700X;
	snprintf(s->phase, sizeof(s->phase), "%s", job->kind == FS_AGENT_OPTIMIZE ? "profile_selection"
						   : job->kind == FS_AGENT_CHAT ? "chat" : "assessment");
	s->judged = job->kind == FS_AGENT_EDIT;
	if (fs_agent_sess_reload(s, err, errlen))
		return -1;
	if (!s->start_has_params && info.has_params) {
		s->start_params = info.params;
		s->start_has_params = 1;
	}
	for (size_t i = 0; i < s->e.n; i++)
		if (fs_edge_list_append(&s->start_e, &s->e.items[i])) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	if (fs_stats_compute(&s->t, &s->e, s->um_per_px, NULL, s->rec.width, s->rec.height, &s->start_stats)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->lattice_pitch = -1;
	for (size_t i = 0; i < s->t.n; i++)
		if (fs_tubercle_list_append(&s->start_t, &s->t.items[i]) ||
		    fs_tubercle_list_append(&s->snap_t, &s->t.items[i])) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	s->snap_hex = s->stats.hexagonalness_score;
	s->snap_cov = s->score_cov;
	s->snap_iteration = -1;
	s->start_count = (int)s->t.n;
	s->start_hex = s->best_hex = s->stats.hexagonalness_score;
	s->start_cov = s->best_cov = s->stats.coverage_percent;
	return 0;
}

void fs_agent_sess_free(fs_agent_sess *s)
{
	if (!s)
		return;
	fs_image_free(s->img);
	fs_blur_tiles_free(s->ev_blur);
	fs_agent_likeness_free(s);
	free(s->ev_memo);
	fs_scale_region_free(&s->region);
	fs_tubercle_list_free(&s->t);
	fs_edge_list_free(&s->e);
	fs_tubercle_list_free(&s->best_t);
	fs_tubercle_list_free(&s->start_t);
	fs_edge_list_free(&s->start_e);
	fs_tubercle_list_free(&s->snap_t);
	fs_tubercle_list_free(&s->turn_t);
	fs_edge_list_free(&s->judge_e);
	fs_edge_list_free(&s->best_e);
	fs_agent_shot_cache_free(&s->shots);
	free(s->dbg);
	free(s->trials);
	if (s->policy_free)
		s->policy_free(s->policy);
	cJSON_Delete(s->log_lines);
	cJSON_Delete(s->actions);
	memset(s, 0, sizeof(*s));
}

void fs_agent_log(fs_agent_sess *s, const char *fmt, ...)
{
	char msg[1024], line[1100], hms[16];
	time_t now = time(NULL);
	struct tm tm;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	localtime_r(&now, &tm);
	strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
	snprintf(line, sizeof(line), "[%s] %s", hms, msg);
	if (s->log_lines) {
		cJSON_AddItemToArray(s->log_lines, cJSON_CreateString(line));
		while (cJSON_GetArraySize(s->log_lines) > FS_AGENT_LOG_KEEP)
			cJSON_DeleteItemFromArray(s->log_lines, 0);
	}
	if (s->env->on_log)
		s->env->on_log(s->env->ud, line);
}

void fs_agent_status_line(fs_agent_sess *s, cJSON *obj)
{
	char *j = obj ? cJSON_PrintUnformatted(obj) : NULL;
	if (j && s->env->on_log) {
		size_t n = strlen(j) + 9;
		char *line = malloc(n);
		if (line) {
			snprintf(line, n, "STATUS: %s", j);
			s->env->on_log(s->env->ud, line);
			free(line);
		}
	}
	free(j);
	cJSON_Delete(obj);
}

double fs_agent_r3(double v)
{
	return round(v * 1000.0) / 1000.0;
}

static cJSON *metrics_json(const fs_stats *st)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddNumberToObject(m, "hexagonalness", fs_agent_r3(st->hexagonalness_score));
	cJSON_AddNumberToObject(m, "n_tubercles", st->n_tubercles);
	cJSON_AddNumberToObject(m, "n_edges", st->n_edges);
	cJSON_AddNumberToObject(m, "n_unmeasured", st->n_unmeasured); /* no diameter: left out of the means */
	cJSON_AddNumberToObject(m, "coverage_percent", round(st->coverage_percent * 10) / 10);
	cJSON_AddNumberToObject(m, "mean_diameter_um", fs_agent_r3(st->mean_diameter_um));
	cJSON_AddNumberToObject(m, "std_diameter_um", fs_agent_r3(st->std_diameter_um));
	cJSON_AddNumberToObject(m, "mean_space_um", fs_agent_r3(st->mean_space_um));
	cJSON_AddNumberToObject(m, "std_space_um", fs_agent_r3(st->std_space_um));
	cJSON_AddNumberToObject(m, "spacing_uniformity", fs_agent_r3(st->spacing_uniformity));
	cJSON_AddNumberToObject(m, "degree_score", fs_agent_r3(st->degree_score));
	cJSON_AddNumberToObject(m, "edge_ratio_score", fs_agent_r3(st->edge_ratio_score));
	return m;
}

cJSON *fs_agent_metrics_json(const fs_stats *st)
{
	return metrics_json(st);
}

static void add_optimize_fields(const fs_agent_sess *s, cJSON *o)
{
	cJSON_AddItemToObject(o, "current_params", fs_params_to_json(&s->params));
	cJSON_AddNumberToObject(o, "target_score", s->job->target_score);
	if (s->n_trials)
		cJSON_AddItemToObject(o, "current_metrics", metrics_json(&s->trials[s->n_trials - 1].stats));
	else
		cJSON_AddItemToObject(o, "current_metrics", cJSON_CreateObject());
	if (s->best >= 0) {
		cJSON_AddNumberToObject(o, "best_iteration", s->trials[s->best].iteration);
		cJSON_AddItemToObject(o, "best_params", fs_params_to_json(&s->trials[s->best].params));
		cJSON_AddItemToObject(o, "best_metrics", metrics_json(&s->trials[s->best].stats));
		cJSON_AddNumberToObject(o, "best_score", fs_agent_r3(s->trials[s->best].stats.hexagonalness_score));
	} else {
		cJSON_AddNullToObject(o, "best_iteration");
		cJSON_AddNullToObject(o, "best_params");
		cJSON_AddItemToObject(o, "best_metrics", cJSON_CreateObject());
	}
	cJSON_AddNumberToObject(o, "plateau_count", s->no_improve);
	cJSON_AddNumberToObject(o, "plateau_iterations", s->job->plateau_iterations);
	cJSON *h = cJSON_AddArrayToObject(o, "history");
	for (size_t i = 0; i < s->n_trials; i++) {
		const fs_agent_trial *t = &s->trials[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddNumberToObject(x, "iteration", t->iteration);
		cJSON_AddStringToObject(x, "phase", t->phase);
		cJSON_AddNumberToObject(x, "hexagonalness", fs_agent_r3(t->stats.hexagonalness_score));
		/* the score's tie-break (fs_agent_score_better): with it the
		 * history says why a trial is the best */
		cJSON_AddNumberToObject(x, "coverage_percent", round(t->stats.coverage_percent * 10) / 10);
		cJSON_AddNumberToObject(x, "n_tubercles", t->stats.n_tubercles);
		cJSON_AddItemToObject(x, "params", fs_params_to_json(&t->params));
		cJSON_AddNumberToObject(x, "time", fs_agent_r3(t->at_elapsed));
		cJSON_AddNumberToObject(x, "seconds", fs_agent_r3(t->seconds));
		cJSON_AddBoolToObject(x, "is_best", (int)i == s->best);
		if (t->implausible)
			cJSON_AddStringToObject(x, "rejected", t->rejected);
		cJSON_AddItemToArray(h, x);
	}
}

static void add_edit_fields(const fs_agent_sess *s, cJSON *o)
{
	cJSON_AddNumberToObject(o, "tubercle_count", (double)s->t.n);
	cJSON_AddNumberToObject(o, "tubercle_delta", (double)s->t.n - s->start_count);
	cJSON_AddNumberToObject(o, "itc_count", (double)s->e.n);
	cJSON_AddNumberToObject(o, "hexagonalness", fs_agent_r3(s->stats.hexagonalness_score));
	cJSON_AddNumberToObject(o, "coverage_percent", round(s->stats.coverage_percent * 10) / 10);
	cJSON_AddNumberToObject(o, "initial_hexagonalness", fs_agent_r3(s->start_hex));
	cJSON_AddNumberToObject(o, "initial_coverage_percent", round(s->start_cov * 10) / 10);
	cJSON_AddNumberToObject(o, "plateau_count", s->plateau);
	cJSON_AddNumberToObject(o, "plateau_threshold", s->job->plateau_iterations);
	cJSON_AddNumberToObject(o, "tubercles_added", s->added);
	cJSON_AddNumberToObject(o, "tubercles_deleted", s->deleted);
	cJSON_AddNumberToObject(o, "tubercles_moved", s->moved);
	cJSON_AddStringToObject(o, "action", s->last_action);
	cJSON_AddItemToObject(o, "action_summary", cJSON_Duplicate(s->actions, 1));
}

void fs_agent_complete_event(fs_agent_sess *s, const char *kind, const char *reason, double wall,
			     void (*fill)(const fs_agent_sess *s, cJSON *ev))
{
	cJSON *ev = cJSON_CreateObject();
	if (!ev)
		return;
	cJSON_AddStringToObject(ev, "reason", reason);
	cJSON_AddStringToObject(ev, "kind", kind);
	cJSON_AddNumberToObject(ev, "run_id", (double)s->job->run_id);
	cJSON_AddNumberToObject(ev, "iterations_used", s->iteration);
	fill(s, ev);
	cJSON *t = cJSON_AddObjectToObject(ev, "timing");
	cJSON_AddNumberToObject(t, "wallclock_seconds", fs_agent_r3(wall));
	cJSON_AddNumberToObject(t, "avg_iteration_seconds",
				s->iteration ? fs_agent_r3(s->iter_seconds_sum / s->iteration) : 0);
	cJSON *l = cJSON_AddObjectToObject(ev, "llm");
	cJSON_AddStringToObject(l, "provider", s->provider);
	cJSON_AddStringToObject(l, "model", s->model);
	cJSON_AddNumberToObject(l, "input_tokens", (double)s->in_tokens);
	cJSON_AddNumberToObject(l, "output_tokens", (double)s->out_tokens);
	cJSON_AddNumberToObject(l, "total_tokens", (double)(s->in_tokens + s->out_tokens));
	cJSON_AddNumberToObject(l, "estimated_cost_usd", s->cost_usd);
	fs_history_add(s->db, s->job->set_id, s->job->user_id, "agent_complete", ev);
	cJSON_Delete(ev);
}

cJSON *fs_agent_status(const fs_agent_sess *s, const char *state, const char *finish_reason)
{
	static const char *kinds[] = {"", "optimize", "edit", "chat"};
	double now = fs_agent_now();
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "state", state);
	cJSON_AddStringToObject(o, "kind", kinds[s->job->kind >= 1 && s->job->kind <= 3 ? s->job->kind : 0]);
	cJSON_AddNumberToObject(o, "run_id", (double)s->job->run_id);
	cJSON_AddNumberToObject(o, "set_id", (double)s->job->set_id);
	cJSON_AddNumberToObject(o, "image_id", (double)s->rec.id);
	cJSON_AddNumberToObject(o, "revision", (double)s->revision);
	cJSON_AddStringToObject(o, "phase", s->phase);
	cJSON_AddNumberToObject(o, "iteration", s->iteration);
	cJSON_AddNumberToObject(o, "max_iterations", s->job->max_iterations);
	cJSON_AddNumberToObject(o, "llm_calls", s->turns);
	if (finish_reason)
		cJSON_AddStringToObject(o, "finish_reason", finish_reason);
	else
		cJSON_AddNullToObject(o, "finish_reason");
	double elapsed = now - s->t_start;
	cJSON_AddNumberToObject(o, "elapsed_seconds", round(elapsed * 10) / 10);
	cJSON_AddNumberToObject(o, "step_time_seconds", round((now - s->t_iter) * 10) / 10);
	cJSON *tm = cJSON_AddObjectToObject(o, "timing");
	cJSON_AddNumberToObject(tm, "elapsed_seconds", fs_agent_r3(elapsed));
	cJSON_AddNumberToObject(tm, "iteration_seconds", fs_agent_r3(now - s->t_iter));
	cJSON_AddNumberToObject(tm, "avg_iteration_seconds", s->iteration ? fs_agent_r3(elapsed / s->iteration) : 0);
	cJSON_AddStringToObject(o, "last_prompt", s->last_prompt);
	cJSON_AddStringToObject(o, "last_response", s->last_response);
	cJSON *u = cJSON_AddObjectToObject(o, "usage");
	cJSON_AddStringToObject(u, "provider", s->provider);
	cJSON_AddStringToObject(u, "model", s->model);
	cJSON_AddNumberToObject(u, "input_tokens", (double)s->in_tokens);
	cJSON_AddNumberToObject(u, "output_tokens", (double)s->out_tokens);
	cJSON_AddNumberToObject(u, "total_tokens", (double)(s->in_tokens + s->out_tokens));
	cJSON_AddNumberToObject(u, "cost_usd", s->cost_usd);
	cJSON_AddBoolToObject(u, "cost_estimated", s->cost_estimated);
	/* seed 000 names the same figures "costs" */
	cJSON *c = cJSON_AddObjectToObject(o, "costs");
	cJSON_AddStringToObject(c, "provider", s->provider);
	cJSON_AddStringToObject(c, "model", s->model);
	cJSON_AddNumberToObject(c, "input_tokens", (double)s->in_tokens);
	cJSON_AddNumberToObject(c, "output_tokens", (double)s->out_tokens);
	cJSON_AddNumberToObject(c, "estimated_cost", s->cost_usd);
	cJSON_AddNumberToObject(c, "last_step_cost", s->last_step_cost);
	cJSON_AddItemToObject(o, "log_lines", cJSON_Duplicate(s->log_lines, 1));
	if (s->job->kind == FS_AGENT_OPTIMIZE)
		add_optimize_fields(s, o);
	else
		add_edit_fields(s, o);
	return o;
}

void fs_agent_emit_status(fs_agent_sess *s)
{
	if (!s->env->on_status)
		return;
	cJSON *st = fs_agent_status(s, "running", NULL);
	if (st)
		s->env->on_status(s->env->ud, st);
	cJSON_Delete(st);
}

static void print_trunc(const cJSON *j, char *out, size_t outlen)
{
	out[0] = 0;
	if (!j)
		return;
	char *p = cJSON_IsString(j) ? NULL : cJSON_PrintUnformatted(j);
	snprintf(out, outlen, "%s", p ? p : cJSON_GetStringValue(j) ? cJSON_GetStringValue(j) : "");
	free(p);
}

void fs_agent_record(fs_agent_sess *s, const char *type, cJSON *obj)
{
	if (!obj)
		obj = cJSON_CreateObject();
	if (obj && s->env->on_record) {
		cJSON_AddStringToObject(obj, "type", type);
		cJSON_AddNumberToObject(obj, "t", fs_agent_r3(fs_agent_now() - s->t_start));
		s->env->on_record(s->env->ud, obj);
	}
	cJSON_Delete(obj);
}

void fs_agent_on_retry(void *user, int attempt, long delay_ms, long http_status, const char *why)
{
	fs_agent_sess *s = user;
	fs_agent_log(s, "Retry %d of the provider request in %.1f s (HTTP %ld): %.300s", attempt, delay_ms / 1000.0,
		     http_status, why ? why : "");
	cJSON *r = cJSON_CreateObject();
	cJSON_AddNumberToObject(r, "attempt", attempt);
	cJSON_AddNumberToObject(r, "delay_ms", (double)delay_ms);
	cJSON_AddNumberToObject(r, "http_status", (double)http_status);
	cJSON_AddStringToObject(r, "error", why ? why : "");
	fs_agent_record(s, "retry", r);
}

/* Tool arguments for the log and transcript: long strings (a model could
 * paste anything) are cut, so a line stays a line. */
static cJSON *redact_args(const cJSON *a)
{
	cJSON *c = a ? cJSON_Duplicate(a, 1) : cJSON_CreateObject();
	cJSON *it;
	cJSON_ArrayForEach(it, c)
	{
		if (cJSON_IsString(it) && strlen(it->valuestring) > 200) {
			char buf[220];
			snprintf(buf, sizeof(buf), "%.200s...", it->valuestring);
			cJSON_SetValuestring(it, buf);
		}
	}
	return c;
}

/* A log line and a transcript record for the model call and each tool call of a step. */
static void observe_step(fs_agent_sess *s, const cJSON *step)
{
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(step, "usage");
	const cJSON *tm = cJSON_GetObjectItemCaseSensitive(step, "timing");
	const cJSON *resp = cJSON_GetObjectItemCaseSensitive(step, "response");
	const char *err = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(step, "error"));
	double llm_ms = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(tm, "llm_ms"));
	fs_agent_log(s, "Model call %d (%s/%s): %.0f in, %.0f out tokens, $%.4f, %.0f ms%s%s", s->turns, s->provider,
		     s->model, cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(u, "input_tokens")),
		     cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(u, "output_tokens")),
		     cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(u, "step_cost_usd")), isnan(llm_ms) ? 0 : llm_ms,
		     err ? ", error: " : "", err ? err : "");
	cJSON *r = cJSON_CreateObject();
	cJSON_AddNumberToObject(r, "call", s->turns);
	cJSON_AddStringToObject(r, "provider", s->provider);
	cJSON_AddStringToObject(r, "model", s->model);
	cJSON_AddItemToObject(r, "usage", u ? cJSON_Duplicate(u, 1) : cJSON_CreateObject());
	cJSON_AddItemToObject(r, "timing", tm ? cJSON_Duplicate(tm, 1) : cJSON_CreateObject());
	cJSON_AddNumberToObject(r, "request_bytes",
				cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(step, "request_bytes")));
	const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(resp, "text"));
	cJSON_AddStringToObject(r, "text", text ? text : "");
	const char *stop = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(resp, "stop_reason"));
	if (stop)
		cJSON_AddStringToObject(r, "stop_reason", stop);
	if (err)
		cJSON_AddStringToObject(r, "error", err);
	fs_agent_record(s, "model_call", r);
	const cJSON *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(step, "tools"))
	{
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name"));
		const cJSON *res = cJSON_GetObjectItemCaseSensitive(t, "result");
		const char *terr = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "error"));
		const cJSON *ap = cJSON_GetObjectItemCaseSensitive(t, "approved");
		cJSON *args = redact_args(cJSON_GetObjectItemCaseSensitive(t, "arguments"));
		char *a = cJSON_PrintUnformatted(args);
		if (terr)
			fs_agent_log(s, "Tool error: %s(%.300s): %.300s", name ? name : "?", a ? a : "", terr);
		else
			fs_agent_log(s, "Tool %s(%.300s): ok", name ? name : "?", a ? a : "");
		free(a);
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "name", name ? name : "");
		cJSON_AddItemToObject(x, "arguments", args);
		cJSON_AddBoolToObject(x, "ok", !terr);
		if (cJSON_IsBool(ap))
			cJSON_AddBoolToObject(x, "approved", cJSON_IsTrue(ap));
		if (terr)
			cJSON_AddStringToObject(x, "error", terr);
		fs_agent_record(s, terr ? "tool_error" : "tool_call", x);
	}
}

void fs_agent_take_step(fs_agent_sess *s, const cJSON *step)
{
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(step, "usage");
	s->turns++;
	if (u) {
		s->in_tokens = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(u, "total_input_tokens"));
		s->out_tokens = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(u, "total_output_tokens"));
		s->cost_usd = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(u, "total_cost_usd"));
		s->last_step_cost = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(u, "step_cost_usd"));
		s->cost_estimated = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(u, "cost_estimated"));
		if (isnan(s->cost_usd))
			s->cost_usd = 0;
		if (isnan(s->last_step_cost))
			s->last_step_cost = 0;
	}
	/* the step's request and response are already sanitised (keys, base64) */
	print_trunc(cJSON_GetObjectItemCaseSensitive(step, "request"), s->last_prompt, sizeof(s->last_prompt));
	print_trunc(cJSON_GetObjectItemCaseSensitive(step, "response"), s->last_response, sizeof(s->last_response));
	observe_step(s, step);
	fs_agent_log(s, "Usage: %ld input, %ld output, $%.4f (%s)", s->in_tokens, s->out_tokens, s->cost_usd,
		     s->model);
	const char *err = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(step, "error"));
	if (err)
		fs_agent_log(s, "Agent error: %s", err);
}

const char *fs_agent_turn_text(const fs_agent_sess *s)
{
	if (!s->conv)
		return "";
	for (size_t i = s->conv->n; i-- > 0;) {
		const fs_msg *m = &s->conv->msgs[i];
		if (m->role != FS_ROLE_ASSISTANT)
			continue;
		for (size_t k = 0; k < m->n; k++)
			if (m->parts[k].kind == FS_PART_TEXT && m->parts[k].text)
				return m->parts[k].text;
		return "";
	}
	return "";
}

static int hook_cancel(void *user)
{
	fs_agent_sess *s = user;
	if (s->stop_reason[0])
		return 1;
	if (s->env->should_stop && s->env->should_stop(s->env->ud)) {
		snprintf(s->stop_reason, sizeof(s->stop_reason), "user_stopped");
		return 1;
	}
	return 0;
}

static void hook_text(const char *text, void *user)
{
	fs_agent_sess *s = user;
	if (!s->env->on_text || !text || !*text)
		return;
	/* each turn's text is a paragraph of its own: without the break the
	 * turns ran together ("Working on it.Done.") */
	if (s->text_any && s->text_turn != s->turns)
		s->env->on_text(s->env->ud, "\n\n");
	s->text_any = 1;
	s->text_turn = s->turns;
	s->env->on_text(s->env->ud, text);
}

static void preview_point(cJSON *pv, const char *key, double x, double y)
{
	cJSON *p = cJSON_AddObjectToObject(pv, key);
	cJSON_AddNumberToObject(p, "x", round(x * 10) / 10);
	cJSON_AddNumberToObject(p, "y", round(y * 10) / 10);
}

static const fs_tubercle *find_tub(const fs_agent_sess *s, int id)
{
	for (size_t i = 0; i < s->t.n; i++)
		if (s->t.items[i].id == id)
			return &s->t.items[i];
	return NULL;
}

cJSON *fs_agent_proposal(const fs_agent_sess *s, const char *tool, const cJSON *args)
{
	cJSON *p = cJSON_CreateObject();
	cJSON *pv;
	double sc = s->shot_scale > 0 ? s->shot_scale : 1.0;
	if (!p)
		return NULL;
	cJSON_AddStringToObject(p, "tool", tool);
	cJSON_AddItemToObject(p, "arguments", args ? cJSON_Duplicate(args, 1) : cJSON_CreateObject());
	cJSON_AddStringToObject(p, "reasoning", fs_agent_turn_text(s));
	cJSON_AddNumberToObject(p, "timeout_s", s->job->approve_timeout_s);
	pv = cJSON_AddObjectToObject(p, "preview");
	const cJSON *jx = cJSON_GetObjectItemCaseSensitive(args, "x");
	const cJSON *jy = cJSON_GetObjectItemCaseSensitive(args, "y");
	const cJSON *jid = cJSON_GetObjectItemCaseSensitive(args, "id");
	const fs_tubercle *t = cJSON_IsNumber(jid) ? find_tub(s, jid->valueint) : NULL;
	if (!strcmp(tool, "add_tubercle") && cJSON_IsNumber(jx) && cJSON_IsNumber(jy)) {
		preview_point(pv, "position", jx->valuedouble / sc, jy->valuedouble / sc);
	} else if (!strcmp(tool, "move_tubercle") && t && cJSON_IsNumber(jx) && cJSON_IsNumber(jy)) {
		preview_point(pv, "from", t->centroid_x, t->centroid_y);
		preview_point(pv, "to", jx->valuedouble / sc, jy->valuedouble / sc);
	} else if (!strcmp(tool, "delete_tubercle") && t) {
		preview_point(pv, "position", t->centroid_x, t->centroid_y);
		cJSON_AddNumberToObject(pv, "radius_px", t->radius_px);
	}
	return p;
}

int fs_agent_tool_listed(const char *list, const char *tool)
{
	const char *p = list;
	size_t tl = strlen(tool);
	while (p && *p) {
		while (*p == ' ' || *p == ',')
			p++;
		const char *e = p;
		while (*e && *e != ',')
			e++;
		size_t n = (size_t)(e - p);
		while (n && p[n - 1] == ' ')
			n--;
		if (n && p[n - 1] == '*' ? tl >= n - 1 && !strncmp(tool, p, n - 1) : n && n == tl && !strncmp(tool, p, n))
			return 1;
		p = e;
	}
	return 0;
}

static fs_approval hook_approve(const char *tool, const cJSON *args, char *reason, size_t reasonlen, void *user)
{
	fs_agent_sess *s = user;
	int a = 1;
	if (!s->env->approve)
		return FS_APPROVE;
	/* read-only tools change nothing a person would want to refuse */
	/* the run owner's setting, else the server's list; read at each call so
	 * a change in the Settings tab applies to a run that is going on */
	char free_tools[FS_CONF_STR];
	fs_settings_no_approval_tools(s->db, s->job->user_id,
				      s->env->cfg ? s->env->cfg->agent_no_approval_tools : FS_NO_APPROVAL_DEFAULT,
				      free_tools, sizeof free_tools);
	if (fs_agent_tool_listed(free_tools, tool))
		return FS_APPROVE;
	cJSON *p = fs_agent_proposal(s, tool, args);
	if (p)
		a = s->env->approve(s->env->ud, p, reason, reasonlen);
	cJSON_Delete(p);
	if (a < 0) {
		snprintf(s->stop_reason, sizeof(s->stop_reason), "approval_timeout");
		fs_agent_log(s, "Approval timed out for %s", tool);
		return FS_REJECT_TIMEOUT;
	}
	if (a == 0) {
		fs_agent_log(s, "Rejected %s: %s", tool, reason[0] ? reason : "no reason given");
		return FS_REJECT;
	}
	return FS_APPROVE;
}

void fs_agent_hooks_init(fs_agent_hooks *h, fs_agent_sess *s, void (*on_step)(const cJSON *, void *))
{
	memset(h, 0, sizeof(*h));
	h->on_step = on_step;
	h->cancel = hook_cancel;
	h->on_text = s->env->on_text ? hook_text : NULL;
	h->approve = s->job->approve_each_step ? hook_approve : NULL;
	h->user = s;
}

const char *fs_agent_finish_reason(const fs_agent_sess *s, const fs_agent_result *res)
{
	const char *r = res->finish_reason;
	if (s->stop_reason[0])
		return s->stop_reason;
	if (!strcmp(r, "finished"))
		return s->job->kind == FS_AGENT_OPTIMIZE ? "accepted" : "finished";
	if (!strcmp(r, "cancelled"))
		return "user_stopped";
	if (!strcmp(r, "rejected_timeout"))
		return "approval_timeout";
	if (!strcmp(r, "max_llm_calls") && s->job->kind != FS_AGENT_CHAT)
		return "max_iterations";
	return r[0] ? r : "error";
}

const char *fs_agent_state_for(const char *reason)
{
	if (!strcmp(reason, "user_stopped") || !strcmp(reason, "approval_timeout"))
		return "stopped";
	if (!strcmp(reason, "error"))
		return "failed";
	return "completed";
}
