/*
 * agent_local_edit.c - the offline provider's editing policy and the
 * lattice fit it shares with the offline chat (agent_local_chat.c).
 *
 * Lattice fit: the pitch is the median nearest-neighbour distance, never
 * below the session's first plan's (the editor's own additions lower it). Each
 * pair of neighbours (distance within 25 % of the pitch) implies three
 * more lattice sites around the first tubercle (the vector rotated by +-60
 * degrees and reversed), which needs no global orientation and follows
 * local distortion. A site inside the scale region with no tubercle within
 * 0.75 pitch (ADD_MIN_SEP) is proposed only where the image shows a tubercle
 * (fs_agent_evidence_at: the detector's blob measurement, the local
 * contrast and the likeness to the set's own domes, against the set's own
 * tubercles); the measured centre (or the likeness's best point) is the
 * site. A tubercle is proposed for deletion when it has no neighbour
 * within 1.5 pitches (off the lattice) outside the scale region, when an
 * older one is closer than half a pitch (duplicate), or inside the region
 * when the same evidence is missing at it (off the lattice or not: a set
 * can miss a real tubercle's neighbours). Every proposal carries its
 * reason.
 *
 * The offline chat policy (its small grammar) is in agent_local_chat.c.
 *
 * The policy: a screenshot and the state first, then each turn judges every
 * proposal on the reconnected graph (trial_change: made in memory on top of
 * the ones accepted before it, the
 * neighbourhood reconnected, undone) and makes only those that do not lower
 * the score (hexagonalness, ties by coverage of the scale region;
 * fs_agent_score_better), saying per step why; never the same site or id
 * twice, so refused proposals are not repeated; when nothing is left,
 * auto_connect and finish.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_fish_tools.h"
#include "base/sorting.h"

#define MAX_CALLS_TURN 24
/* A site is added at least this many pitches from every tubercle the plan
 * keeps and from the plan's other sites: a lattice's nearest neighbours
 * lie a pitch apart (the pairs it predicts from are 0.75-1.25 pitch), and
 * at 0.5 the editor put tubercles on domes' flanks and shadows between
 * the set's (h35b, P2 Fig1c). The tubercles the plan deletes do not count:
 * a false one between real domes must not hide the missing dome beside it */
#define ADD_MIN_SEP 0.75

typedef struct grid {
	double cell;
	int gw, gh;
	int *head, *next; /* linked lists of point indices per cell */
} grid;

static void grid_free(grid *g)
{
	free(g->head);
	free(g->next);
	memset(g, 0, sizeof(*g));
}

static int grid_build(grid *g, const fs_tubercle_list *t, double cell, int w, int h)
{
	memset(g, 0, sizeof(*g));
	g->cell = cell;
	g->gw = (int)(w / cell) + 1;
	g->gh = (int)(h / cell) + 1;
	g->head = malloc((size_t)g->gw * g->gh * sizeof(int));
	g->next = malloc((t->n ? t->n : 1) * sizeof(int));
	if (!g->head || !g->next) {
		grid_free(g);
		return -1;
	}
	for (int i = 0; i < g->gw * g->gh; i++)
		g->head[i] = -1;
	for (size_t i = 0; i < t->n; i++) {
		int cx = (int)(t->items[i].centroid_x / cell), cy = (int)(t->items[i].centroid_y / cell);
		cx = cx < 0 ? 0 : cx >= g->gw ? g->gw - 1 : cx;
		cy = cy < 0 ? 0 : cy >= g->gh ? g->gh - 1 : cy;
		g->next[i] = g->head[cy * g->gw + cx];
		g->head[cy * g->gw + cx] = (int)i;
	}
	return 0;
}

/* Nearest point to (x, y) other than skip and those marked in gone (may be
 * NULL) within rings cells; distance or INFINITY. */
static double grid_nearest(const grid *g, const fs_tubercle_list *t, double x, double y, int skip, int rings, int *who,
			   const unsigned char *gone)
{
	int cx = (int)(x / g->cell), cy = (int)(y / g->cell);
	double best = INFINITY;
	if (who)
		*who = -1;
	for (int yy = cy - rings; yy <= cy + rings; yy++)
		for (int xx = cx - rings; xx <= cx + rings; xx++) {
			if (xx < 0 || yy < 0 || xx >= g->gw || yy >= g->gh)
				continue;
			for (int i = g->head[yy * g->gw + xx]; i >= 0; i = g->next[i]) {
				if (i == skip || (gone && gone[i]))
					continue;
				double d = hypot(t->items[i].centroid_x - x, t->items[i].centroid_y - y);
				if (d < best) {
					best = d;
					if (who)
						*who = i;
				}
			}
		}
	return best;
}

static int near_any(const double *x, const double *y, size_t n, double px, double py, double d)
{
	for (size_t i = 0; i < n; i++)
		if (hypot(x[i] - px, y[i] - py) < d)
			return 1;
	return 0;
}

void fs_lattice_plan_free(fs_lattice_plan *p)
{
	free(p->ax);
	free(p->ay);
	free(p->del);
	free(p->add_why);
	free(p->del_why);
	free(p->rx);
	free(p->ry);
	memset(p, 0, sizeof(*p));
}

int fs_agent_lattice_plan(fs_agent_sess *s, const double *avoid_x, const double *avoid_y, size_t n_avoid,
			  size_t max_add, fs_lattice_plan *out)
{
	const fs_tubercle_list *t = &s->t;
	const fs_image *img = s->img;
	grid g = {0};
	double *nn = NULL, *tmp = NULL, *rx = NULL, *ry = NULL;
	unsigned char *gone = NULL;
	size_t n_rej = 0, cap_rej = 0;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (t->n < 3)
		return 0;
	out->ax = malloc((max_add ? max_add : 1) * sizeof(double));
	out->ay = malloc((max_add ? max_add : 1) * sizeof(double));
	out->add_why = malloc((max_add ? max_add : 1) * sizeof(*out->add_why));
	out->del = malloc(t->n * sizeof(int));
	out->del_why = malloc(t->n * sizeof(*out->del_why));
	nn = malloc(t->n * sizeof(double));
	tmp = malloc(t->n * sizeof(double));
	if (!out->ax || !out->ay || !out->add_why || !out->del || !out->del_why || !nn || !tmp)
		goto out;
	double c0 = sqrt((double)img->width * img->height / t->n);
	if (grid_build(&g, t, c0, img->width, img->height))
		goto out;
	for (size_t i = 0; i < t->n; i++) {
		/* widen the search until a neighbour is found (sparse sets) */
		double d = INFINITY;
		for (int r = 1; r <= 8 && !isfinite(d); r *= 2)
			d = grid_nearest(&g, t, t->items[i].centroid_x, t->items[i].centroid_y, (int)i, r, NULL, NULL);
		nn[i] = d;
		tmp[i] = isfinite(d) ? d : 1e300;
	}
	double pitch = fs_median_upper(tmp, t->n);
	if (!(pitch > 0) || pitch > 1e299) {
		rc = 0;
		goto out;
	}
	/* the pitch never falls below the session's first plan's: the set's
	 * median spacing after the editor's own additions is partly theirs, and
	 * a pitch they lowered let the next turn add at a fraction of the
	 * lattice's spacing (h35b: P2 Fig1c under the dome rule, 37.3 px at the
	 * start, 23.2 px after 53 additions on flanks, shadows and the crack).
	 * It may rise: deleting false tubercles between real ones widens it */
	if (s->plan_pitch > pitch)
		pitch = s->plan_pitch;
	else if (!(s->plan_pitch > 0))
		s->plan_pitch = pitch;
	out->pitch = pitch;
	grid_free(&g);
	if (grid_build(&g, t, pitch, img->width, img->height))
		goto out;
	/* off-lattice tubercles, duplicates and tubercles the image does not
	 * show (the image is judged inside the scale region only: outside it
	 * there is no scale to show one); the verdicts the loop asks for are
	 * made first in the evidence's tile order (fs_agent_evidence_warm) */
	unsigned char *want = malloc(t->n ? t->n : 1);
	if (want) {
		for (size_t i = 0; i < t->n; i++) {
			const fs_tubercle *a = &t->items[i];
			int who;
			double d = grid_nearest(&g, t, a->centroid_x, a->centroid_y, (int)i, 2, &who, NULL);
			want[i] = !(!(d > 1.5 * pitch) && d < 0.5 * pitch && who >= 0 && t->items[who].id < a->id) &&
				  fs_scale_region_contains(&s->region, a->centroid_x, a->centroid_y);
		}
		fs_agent_evidence_warm(s, t, want);
		free(want);
	}
	gone = calloc(t->n, 1);
	if (!gone)
		goto out;
	for (size_t i = 0; i < t->n; i++) {
		const fs_tubercle *a = &t->items[i];
		fs_agent_evidence ev;
		int who, in = fs_scale_region_contains(&s->region, a->centroid_x, a->centroid_y);
		double d = grid_nearest(&g, t, a->centroid_x, a->centroid_y, (int)i, 2, &who, NULL);
		char *why = out->del_why[out->n_del];
		int off = d > 1.5 * pitch;
		/* inside the scale region a tubercle far from the set's others is
		 * judged by the image too: its neighbours may be the ones missing
		 * from the set (h34l: P1 Fig2's #333, 106 px from the set's nearest
		 * at a pitch of 61.6, its lattice neighbours in the image but not
		 * in the set); outside the region there is no scale to show one */
		if (off && !in)
			snprintf(why, 160, "off the lattice: nearest neighbour %.1f px, pitch %.1f px", d, pitch);
		else if (!off && d < 0.5 * pitch && who >= 0 && t->items[who].id < a->id)
			snprintf(why, 160, "duplicate of #%d, %.1f px away", t->items[who].id, d);
		/* the verdict is remembered per tubercle; the words only for those without it */
		else if (in && !fs_agent_evidenced(s, a) && fs_agent_evidence_at(s, a->centroid_x, a->centroid_y, &ev) == 0 &&
			 !ev.ok)
			snprintf(why, 160, "%sno tubercle in the image: %.110s", off ? "off the lattice and " : "", ev.why);
		else
			continue;
		out->del[out->n_del++] = a->id;
		gone[i] = 1;
	}
	for (size_t i = 0; i < t->n && out->n_add < max_add; i++) {
		const fs_tubercle *a = &t->items[i];
		if (nn[i] > 1.5 * pitch)
			continue;
		int cx = (int)(a->centroid_x / pitch), cy = (int)(a->centroid_y / pitch);
		for (int yy = cy - 2; yy <= cy + 2 && out->n_add < max_add; yy++)
			for (int xx = cx - 2; xx <= cx + 2 && out->n_add < max_add; xx++) {
				if (xx < 0 || yy < 0 || xx >= g.gw || yy >= g.gh)
					continue;
				for (int j = g.head[yy * g.gw + xx]; j >= 0 && out->n_add < max_add; j = g.next[j]) {
					double vx = t->items[j].centroid_x - a->centroid_x;
					double vy = t->items[j].centroid_y - a->centroid_y;
					double d = hypot(vx, vy);
					if ((size_t)j == i || d < 0.75 * pitch || d > 1.25 * pitch)
						continue;
					static const double c60 = 0.5, s60 = 0.86602540378443865;
					double cand[3][2] = {{a->centroid_x + c60 * vx - s60 * vy, a->centroid_y + s60 * vx + c60 * vy},
							     {a->centroid_x + c60 * vx + s60 * vy, a->centroid_y - s60 * vx + c60 * vy},
							     {a->centroid_x - vx, a->centroid_y - vy}};
					for (int k = 0; k < 3 && out->n_add < max_add; k++) {
						double px = cand[k][0], py = cand[k][1];
						fs_agent_evidence ev;
						if (px < 0.25 * pitch || py < 0.25 * pitch || px > img->width - 1 - 0.25 * pitch ||
						    py > img->height - 1 - 0.25 * pitch ||
						    !fs_scale_region_contains(&s->region, px, py))
							continue;
						if (grid_nearest(&g, t, px, py, -1, 1, NULL, gone) < ADD_MIN_SEP * pitch ||
						    near_any(avoid_x, avoid_y, n_avoid, px, py, 0.5 * pitch) ||
						    near_any(out->ax, out->ay, out->n_add, px, py, ADD_MIN_SEP * pitch) ||
						    near_any(rx, ry, n_rej, px, py, 0.3 * pitch))
							continue;
						/* the image must show a tubercle there; its measured centre is the site */
						if (fs_agent_evidence_at(s, px, py, &ev) || !ev.ok) {
							if (n_rej == cap_rej) {
								size_t cap = cap_rej ? 2 * cap_rej : 64;
								double *a2 = realloc(rx, cap * sizeof(double));
								if (!a2)
									goto out;
								rx = a2;
								double *b2 = realloc(ry, cap * sizeof(double));
								if (!b2)
									goto out;
								ry = b2;
								cap_rej = cap;
							}
							rx[n_rej] = px;
							ry[n_rej++] = py;
							continue;
						}
						px = ev.x;
						py = ev.y;
						/* nothing is ever added outside the scale region */
						if (!fs_scale_region_contains(&s->region, px, py) ||
						    grid_nearest(&g, t, px, py, -1, 1, NULL, gone) < ADD_MIN_SEP * pitch ||
						    near_any(out->ax, out->ay, out->n_add, px, py, ADD_MIN_SEP * pitch))
							continue;
						out->ax[out->n_add] = px;
						out->ay[out->n_add] = py;
						snprintf(out->add_why[out->n_add], 160, "%s", ev.why);
						out->n_add++;
					}
				}
			}
	}
	out->n_refused = n_rej;
	out->rx = rx;
	out->ry = ry;
	rx = ry = NULL;
	rc = 0;
out:
	grid_free(&g);
	free(gone);
	free(nn);
	free(tmp);
	free(rx);
	free(ry);
	if (rc)
		fs_lattice_plan_free(out);
	return rc;
}

/* ------------------------------------------------------------ the policy */

typedef struct edit_policy {
	int stage;
	double *px, *py;   /* sites proposed so far */
	size_t n, cap;
	/* tubercles proposed for deletion so far, by position: a rollback or the
	 * go-back to the start renumbers ids, so an id would name another one */
	double *dx, *dy;
	size_t nd, capd;
} edit_policy;

static void edit_policy_free(void *p)
{
	edit_policy *e = p;
	if (!e)
		return;
	free(e->px);
	free(e->py);
	free(e->dx);
	free(e->dy);
	free(e);
}

static int remember_site(edit_policy *e, double x, double y)
{
	if (e->n == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 64;
		double *a = realloc(e->px, cap * sizeof(double));
		if (!a)
			return -1;
		e->px = a;
		double *b = realloc(e->py, cap * sizeof(double));
		if (!b)
			return -1;
		e->py = b;
		e->cap = cap;
	}
	e->px[e->n] = x;
	e->py[e->n++] = y;
	return 0;
}

/* 1 when tubercle id was proposed for deletion before (one within 0.5 px of
 * its centre), else remembers it: 0; -1 out of memory or no such id. */
static int remember_deletion(edit_policy *e, const fs_tubercle_list *t, int id)
{
	const fs_tubercle *tb = NULL;
	for (size_t i = 0; i < t->n && !tb; i++)
		if (t->items[i].id == id)
			tb = &t->items[i];
	if (!tb)
		return -1;
	for (size_t i = 0; i < e->nd; i++)
		if (fabs(e->dx[i] - tb->centroid_x) <= 0.5 && fabs(e->dy[i] - tb->centroid_y) <= 0.5)
			return 1;
	if (e->nd == e->capd) {
		size_t cap = e->capd ? 2 * e->capd : 64;
		double *a = realloc(e->dx, cap * sizeof(double));
		if (!a)
			return -1;
		e->dx = a;
		double *b = realloc(e->dy, cap * sizeof(double));
		if (!b)
			return -1;
		e->dy = b;
		e->capd = cap;
	}
	e->dx[e->nd] = tb->centroid_x;
	e->dy[e->nd++] = tb->centroid_y;
	return 0;
}

int fs_agent_local_call(fs_llm_reply *out, int *seq, const char *name, cJSON *args)
{
	char id[32];
	snprintf(id, sizeof(id), "local_%d", ++*seq);
	if (!args)
		args = cJSON_CreateObject();
	return args ? fs_llm_reply_add_call(out, id, name, args, NULL) : -1;
}

int fs_agent_local_point_args(const fs_agent_sess *s, double x, double y, cJSON **args)
{
	double sc = s->shot_scale > 0 ? s->shot_scale : 1.0;
	*args = cJSON_CreateObject();
	if (!*args)
		return -1;
	/* the tools take screenshot pixels, like a model would give them */
	cJSON_AddNumberToObject(*args, "x", round(x * sc * 100) / 100);
	cJSON_AddNumberToObject(*args, "y", round(y * sc * 100) / 100);
	return 0;
}

/*
 * The turn's changes are judged one after the other on the reconnected
 * graph without storing them: each is made on the session's lists on top
 * of the ones accepted before it, judged with fs_agent_judge_at (only the
 * neighbourhood reconnected), and kept only when the score is no lower than
 * before it and than at the start of the turn; at the end the lists go back
 * to the stored state (the tools then make the accepted changes for real).
 */
typedef struct trial {
	fs_tubercle_list t0;   /* the stored state, given back by trial_end */
	fs_edge_list e0;
	fs_stats st0;
	double cov0;
	int next_id;
} trial;

/* Copies of st, se into t, e (zeroed first; they must not alias). */
static int copy_lists(const fs_tubercle_list *st, const fs_edge_list *se, fs_tubercle_list *t, fs_edge_list *e)
{
	memset(t, 0, sizeof(*t));
	memset(e, 0, sizeof(*e));
	for (size_t i = 0; i < st->n; i++)
		if (fs_tubercle_list_append(t, &st->items[i]))
			return -1;
	for (size_t i = 0; i < se->n; i++)
		if (fs_edge_list_append(e, &se->items[i]))
			return -1;
	return 0;
}

static int trial_begin(fs_agent_sess *s, trial *tr)
{
	memset(tr, 0, sizeof(*tr));
	tr->t0 = s->t;
	tr->e0 = s->judge_e;
	tr->st0 = s->stats;
	tr->cov0 = s->score_cov;
	for (size_t i = 0; i < s->t.n; i++)
		tr->next_id = s->t.items[i].id > tr->next_id ? s->t.items[i].id : tr->next_id;
	tr->next_id++;
	/* the session works on copies; the stored state's lists are kept aside */
	if (copy_lists(&tr->t0, &tr->e0, &s->t, &s->judge_e)) {
		fs_tubercle_list_free(&s->t);
		fs_edge_list_free(&s->judge_e);
		s->t = tr->t0;
		s->judge_e = tr->e0;
		return -1;
	}
	return 0;
}

static void trial_end(fs_agent_sess *s, trial *tr)
{
	fs_tubercle_list_free(&s->t);
	fs_edge_list_free(&s->judge_e);
	s->t = tr->t0;
	s->judge_e = tr->e0;
	s->stats = tr->st0;
	s->score_cov = tr->cov0;
}

/* Makes one change on the trial state: del_id > 0 deletes that id, else a
 * tubercle is added at (x, y). *hex, *cov: the score after it. The change
 * is undone when keep(score) says no. 1 kept, 0 undone, -1 out of memory. */
static int trial_change(fs_agent_sess *s, trial *tr, int del_id, double x, double y, double hb, double cb, double hs,
			double cs, double *hex, double *cov)
{
	fs_tubercle_list tb;
	fs_edge_list eb;
	fs_stats stb = s->stats;
	double covb = s->score_cov;
	if (copy_lists(&s->t, &s->judge_e, &tb, &eb)) {
		fs_tubercle_list_free(&tb);
		fs_edge_list_free(&eb);
		return -1;
	}
	if (del_id > 0) {
		size_t k = 0;
		for (size_t i = 0; i < s->t.n; i++) {
			if (s->t.items[i].id == del_id) {
				x = s->t.items[i].centroid_x;
				y = s->t.items[i].centroid_y;
				continue;
			}
			s->t.items[k++] = s->t.items[i];
		}
		s->t.n = k;
	} else {
		fs_tubercle n;
		fs_tubercle_init(&n);
		n.id = tr->next_id++;
		n.centroid_x = x;
		n.centroid_y = y;
		n.radius_px = s->ev_r > 0 ? s->ev_r : 1;
		n.circularity = 1;
		if (fs_tubercle_list_append(&s->t, &n))
			goto oom;
	}
	if (fs_agent_judge_at(s, x, y))
		goto oom;
	*hex = s->stats.hexagonalness_score;
	*cov = s->score_cov;
	if (!fs_agent_score_better(hb, cb, *hex, *cov) && !fs_agent_score_better(hs, cs, *hex, *cov)) {
		fs_tubercle_list_free(&tb);
		fs_edge_list_free(&eb);
		return 1;
	}
	fs_tubercle_list_free(&s->t);
	fs_edge_list_free(&s->judge_e);
	s->t = tb;
	s->judge_e = eb;
	s->stats = stb;
	s->score_cov = covb;
	return 0;
oom:
	fs_tubercle_list_free(&tb);
	fs_edge_list_free(&eb);
	return -1;
}

/* Text of the turn and a log line: what is done and why. */
static void say(fs_agent_sess *s, fs_llm_reply *out, const char *line)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "%s\n", line);
	fs_llm_reply_append_text(out, buf);
	fs_agent_log(s, "%s", line);
}

int fs_agent_local_edit(const fs_conv *conv, const cJSON *tools, fs_llm_reply *out, void *user, char *err,
			size_t errlen)
{
	fs_agent_sess *s = user;
	edit_policy *e = s->policy;
	fs_lattice_plan plan;
	int rc = -1, calls = 0, held = 0;
	char line[400];
	(void)conv;
	(void)tools;

	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		s->policy = e;
		s->policy_free = edit_policy_free;
	}
	if (e->stage == 0) {
		e->stage = 1;
		fs_llm_reply_append_text(out, "Looking at the image and the current state first.");
		if (fs_agent_local_call(out, &s->call_seq, "get_screenshot", NULL) ||
		    fs_agent_local_call(out, &s->call_seq, "get_state", NULL))
			goto oom;
		return 0;
	}
	if (fs_agent_lattice_plan(s, e->px, e->py, e->n, MAX_CALLS_TURN, &plan))
		goto oom;
	trial tr;
	if (trial_begin(s, &tr))
		goto oom_plan;
	double hs = s->stats.hexagonalness_score, cs = s->score_cov, h0 = hs, c0 = cs;
	/* each change is judged after the ones accepted before it; one that
	 * would lower the score (fs_agent_score_better) is not made */
	for (size_t i = 0; i < plan.n_del && calls < MAX_CALLS_TURN; i++) {
		double h1, c1;
		int seen = remember_deletion(e, &s->t, plan.del[i]), kept;
		if (seen < 0)
			goto oom_trial;
		if (seen)
			continue;
		if ((kept = trial_change(s, &tr, plan.del[i], 0, 0, h0, c0, hs, cs, &h1, &c1)) < 0)
			goto oom_trial;
		if (!kept) {
			snprintf(line, sizeof(line), "Keep #%d (%s): deleting it would lower the score (hexagonalness %.3f -> "
				 "%.3f, region coverage %.1f%% -> %.1f%%)", plan.del[i], plan.del_why[i], h0, h1, c0, c1);
			say(s, out, line);
			held++;
			continue;
		}
		cJSON *a = cJSON_CreateObject();
		if (!a)
			goto oom_trial;
		cJSON_AddNumberToObject(a, "id", plan.del[i]);
		if (fs_agent_local_call(out, &s->call_seq, "delete_tubercle", a))
			goto oom_trial;
		snprintf(line, sizeof(line), "Delete #%d: %s (hexagonalness %.3f -> %.3f, region coverage %.1f%% -> %.1f%%)",
			 plan.del[i], plan.del_why[i], h0, h1, c0, c1);
		say(s, out, line);
		h0 = h1;
		c0 = c1;
		calls++;
	}
	for (size_t i = 0; i < plan.n_add && calls < MAX_CALLS_TURN; i++) {
		double h1, c1;
		cJSON *a;
		int kept;
		if (remember_site(e, plan.ax[i], plan.ay[i]) ||
		    (kept = trial_change(s, &tr, 0, plan.ax[i], plan.ay[i], h0, c0, hs, cs, &h1, &c1)) < 0)
			goto oom_trial;
		if (!kept) {
			snprintf(line, sizeof(line), "Leave the site at (%.0f, %.0f) empty (%s): adding it would lower the "
				 "score (hexagonalness %.3f -> %.3f, region coverage %.1f%% -> %.1f%%)", plan.ax[i], plan.ay[i],
				 plan.add_why[i], h0, h1, c0, c1);
			say(s, out, line);
			held++;
			continue;
		}
		if (fs_agent_local_point_args(s, plan.ax[i], plan.ay[i], &a) ||
		    fs_agent_local_call(out, &s->call_seq, "add_tubercle", a))
			goto oom_trial;
		snprintf(line, sizeof(line), "Add at (%.0f, %.0f): %s (hexagonalness %.3f -> %.3f, region coverage %.1f%% -> "
			 "%.1f%%)", plan.ax[i], plan.ay[i], plan.add_why[i], h0, h1, c0, c1);
		say(s, out, line);
		h0 = h1;
		c0 = c1;
		calls++;
	}
	trial_end(s, &tr);
	/* refused sites are not looked at again in later turns */
	for (size_t i = 0; i < plan.n_refused; i++)
		if (remember_site(e, plan.rx[i], plan.ry[i]))
			goto oom_plan;
	if (calls) {
		char txt[200];
		snprintf(txt, sizeof(txt), "Lattice pitch %.1f px: %d change(s) to lattice sites and off-lattice tubercles.",
			 plan.pitch, calls);
		fs_llm_reply_append_text(out, txt);
	} else if (held) {
		/* proposals held back are remembered: the next turn looks further */
		fs_llm_reply_append_text(out, "Nothing to change this turn without lowering the score.");
		if (fs_agent_local_call(out, &s->call_seq, "get_state", NULL))
			goto oom_plan;
	} else {
		cJSON *a = cJSON_CreateObject();
		if (!a)
			goto oom_plan;
		cJSON_AddStringToObject(a, "method", s->job->auto_connect_method[0] ? s->job->auto_connect_method : "gabriel");
		snprintf(line, sizeof(line), "No predicted lattice site shows a tubercle in the image (%zu site(s) checked "
			 "and refused) and every tubercle is on the lattice and shown by the image.", plan.n_refused);
		fs_llm_reply_append_text(out, line);
		cJSON *f = cJSON_CreateObject();
		if (!f)
			goto oom_plan;
		cJSON_AddStringToObject(f, "reason", "pattern complete: no lattice site with a tubercle in the image left "
					"unmarked");
		if (fs_agent_local_call(out, &s->call_seq, "auto_connect", a) ||
		    fs_agent_local_call(out, &s->call_seq, "finish", f))
			goto oom_plan;
	}
	rc = 0;
	goto oom_plan;
oom_trial:
	trial_end(s, &tr);
oom_plan:
	fs_lattice_plan_free(&plan);
	if (!rc)
		return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}
