/*
 * agent_local_edit.c - the offline provider's editing policy and the
 * lattice fit it shares with the offline chat (agent_local_chat.c).
 *
 * Lattice fit: the pitch is the median nearest-neighbour distance. Each
 * pair of neighbours (distance within 25 % of the pitch) implies three
 * more lattice sites around the first tubercle (the vector rotated by +-60
 * degrees and reversed), which needs no global orientation and follows
 * local distortion. A site is proposed when no tubercle is within half a
 * pitch of it and the working image is bright enough there (halfway
 * between the image mean and the tubercles' median brightness); its
 * position is refined to the local intensity centroid. Tubercles with no
 * neighbour within 1.5 pitches are off-lattice false positives; of two
 * closer than half a pitch the newer is a duplicate.
 *
 * The offline chat policy (its small grammar) is in agent_local_chat.c.
 *
 * The policy: a screenshot and the state first, then each turn deletes the
 * off-lattice tubercles and adds the missing sites found (never proposing
 * the same site or id twice, so rejected proposals are not repeated), and
 * when nothing is left, auto_connect and finish.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_fish_tools.h"

#define MAX_CALLS_TURN 24

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

/* Nearest point to (x, y) other than skip within rings cells; distance or INFINITY. */
static double grid_nearest(const grid *g, const fs_tubercle_list *t, double x, double y, int skip, int rings, int *who)
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
				if (i == skip)
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double image_mean(const fs_image *img)
{
	double sum = 0;
	long n = 0;
	for (int y = 0; y < img->height; y += 4)
		for (int x = 0; x < img->width; x += 4) {
			sum += fs_image_at(img, x, y);
			n++;
		}
	return n ? sum / n : 0;
}

static int near_any(const double *x, const double *y, size_t n, double px, double py, double d)
{
	for (size_t i = 0; i < n; i++)
		if (hypot(x[i] - px, y[i] - py) < d)
			return 1;
	return 0;
}

/* Intensity centroid of what stands above thr within radius rad. */
static void refine(const fs_image *img, double *x, double *y, double rad, double thr)
{
	for (int it = 0; it < 2; it++) {
		double sx = 0, sy = 0, sw = 0;
		int x0 = (int)floor(*x - rad), x1 = (int)ceil(*x + rad), y0 = (int)floor(*y - rad), y1 = (int)ceil(*y + rad);
		for (int yy = y0 < 0 ? 0 : y0; yy <= y1 && yy < img->height; yy++)
			for (int xx = x0 < 0 ? 0 : x0; xx <= x1 && xx < img->width; xx++) {
				if ((xx - *x) * (xx - *x) + (yy - *y) * (yy - *y) > rad * rad)
					continue;
				double v = fs_image_at(img, xx, yy) - thr;
				if (v > 0) {
					sx += v * xx;
					sy += v * yy;
					sw += v;
				}
			}
		if (sw <= 0)
			return;
		*x = sx / sw;
		*y = sy / sw;
	}
}

void fs_lattice_plan_free(fs_lattice_plan *p)
{
	free(p->ax);
	free(p->ay);
	free(p->del);
	memset(p, 0, sizeof(*p));
}

int fs_agent_lattice_plan(const fs_agent_sess *s, const double *avoid_x, const double *avoid_y, size_t n_avoid,
			  size_t max_add, fs_lattice_plan *out)
{
	const fs_tubercle_list *t = &s->t;
	const fs_image *img = s->img;
	grid g = {0};
	double *nn = NULL, *tmp = NULL;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (t->n < 3)
		return 0;
	out->ax = malloc((max_add ? max_add : 1) * sizeof(double));
	out->ay = malloc((max_add ? max_add : 1) * sizeof(double));
	out->del = malloc(t->n * sizeof(int));
	nn = malloc(t->n * sizeof(double));
	tmp = malloc(t->n * sizeof(double));
	if (!out->ax || !out->ay || !out->del || !nn || !tmp)
		goto out;
	double c0 = sqrt((double)img->width * img->height / t->n);
	if (grid_build(&g, t, c0, img->width, img->height))
		goto out;
	for (size_t i = 0; i < t->n; i++) {
		/* widen the search until a neighbour is found (sparse sets) */
		double d = INFINITY;
		for (int r = 1; r <= 8 && !isfinite(d); r *= 2)
			d = grid_nearest(&g, t, t->items[i].centroid_x, t->items[i].centroid_y, (int)i, r, NULL);
		nn[i] = d;
		tmp[i] = isfinite(d) ? d : 1e300;
	}
	qsort(tmp, t->n, sizeof(double), cmp_double);
	double pitch = tmp[t->n / 2];
	out->pitch = pitch;
	if (!(pitch > 0) || pitch > 1e299) {
		rc = 0;
		goto out;
	}
	grid_free(&g);
	if (grid_build(&g, t, pitch, img->width, img->height))
		goto out;
	/* off-lattice tubercles and duplicates */
	for (size_t i = 0; i < t->n; i++) {
		int who;
		double d = grid_nearest(&g, t, t->items[i].centroid_x, t->items[i].centroid_y, (int)i, 2, &who);
		if (d > 1.5 * pitch || (d < 0.5 * pitch && who >= 0 && t->items[who].id < t->items[i].id))
			out->del[out->n_del++] = t->items[i].id;
	}
	/* brightness reference */
	double rmean = 0;
	size_t nm = 0;
	for (size_t i = 0; i < t->n; i++)
		if (fs_tubercle_measured(&t->items[i])) {
			rmean += t->items[i].radius_px;
			nm++;
		}
	rmean = nm ? rmean / nm : 0; /* none measured: the pitch fallback below */
	if (rmean <= 0.5)
		rmean = pitch / 4;
	size_t ns = 0, step = t->n > 400 ? t->n / 400 : 1;
	for (size_t i = 0; i < t->n; i += step)
		tmp[ns++] = fs_agent_disc_mean(img, t->items[i].centroid_x, t->items[i].centroid_y, 0.6 * rmean);
	qsort(tmp, ns, sizeof(double), cmp_double);
	double tub = tmp[ns / 2], bg = image_mean(img);
	double thr = bg + 0.5 * (tub - bg);
	if (!(tub > bg)) {
		/* tubercles no brighter than the image: no basis for adding */
		rc = 0;
		goto out;
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
						if (px < rmean || py < rmean || px > img->width - 1 - rmean ||
						    py > img->height - 1 - rmean || !fs_scale_region_contains(&s->region, px, py))
							continue;
						if (grid_nearest(&g, t, px, py, -1, 1, NULL) < 0.5 * pitch ||
						    near_any(avoid_x, avoid_y, n_avoid, px, py, 0.5 * pitch) ||
						    near_any(out->ax, out->ay, out->n_add, px, py, 0.6 * pitch))
							continue;
						if (fs_agent_disc_mean(img, px, py, 0.6 * rmean) < thr)
							continue;
						refine(img, &px, &py, 0.4 * pitch, thr);
						/* nothing is ever added outside the scale region */
						if (!fs_scale_region_contains(&s->region, px, py) ||
						    grid_nearest(&g, t, px, py, -1, 1, NULL) < 0.5 * pitch ||
						    near_any(out->ax, out->ay, out->n_add, px, py, 0.6 * pitch) ||
						    fs_agent_disc_mean(img, px, py, 0.6 * rmean) < thr)
							continue;
						out->ax[out->n_add] = px;
						out->ay[out->n_add] = py;
						out->n_add++;
					}
				}
			}
	}
	rc = 0;
out:
	grid_free(&g);
	free(nn);
	free(tmp);
	if (rc)
		fs_lattice_plan_free(out);
	return rc;
}

/* ------------------------------------------------------------ the policy */

typedef struct edit_policy {
	int stage;
	double *px, *py;   /* sites proposed so far */
	size_t n, cap;
	int *ids;          /* ids proposed for deletion so far */
	size_t nid, capid;
} edit_policy;

static void edit_policy_free(void *p)
{
	edit_policy *e = p;
	if (!e)
		return;
	free(e->px);
	free(e->py);
	free(e->ids);
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

static int remember_id(edit_policy *e, int id)
{
	for (size_t i = 0; i < e->nid; i++)
		if (e->ids[i] == id)
			return 1;
	if (e->nid == e->capid) {
		size_t cap = e->capid ? 2 * e->capid : 64;
		int *a = realloc(e->ids, cap * sizeof(int));
		if (!a)
			return -1;
		e->ids = a;
		e->capid = cap;
	}
	e->ids[e->nid++] = id;
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

int fs_agent_local_edit(const fs_conv *conv, const cJSON *tools, fs_llm_reply *out, void *user, char *err,
			size_t errlen)
{
	fs_agent_sess *s = user;
	edit_policy *e = s->policy;
	fs_lattice_plan plan;
	int rc = -1, calls = 0;
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
	for (size_t i = 0; i < plan.n_del && calls < MAX_CALLS_TURN; i++) {
		int seen = remember_id(e, plan.del[i]);
		if (seen < 0)
			goto oom_plan;
		if (seen)
			continue;
		cJSON *a = cJSON_CreateObject();
		if (!a)
			goto oom_plan;
		cJSON_AddNumberToObject(a, "id", plan.del[i]);
		if (fs_agent_local_call(out, &s->call_seq, "delete_tubercle", a))
			goto oom_plan;
		calls++;
	}
	for (size_t i = 0; i < plan.n_add && calls < MAX_CALLS_TURN; i++) {
		cJSON *a;
		if (remember_site(e, plan.ax[i], plan.ay[i]) || fs_agent_local_point_args(s, plan.ax[i], plan.ay[i], &a) ||
		    fs_agent_local_call(out, &s->call_seq, "add_tubercle", a))
			goto oom_plan;
		calls++;
	}
	if (calls) {
		char txt[200];
		snprintf(txt, sizeof(txt), "Lattice pitch %.1f px: %d change(s) to lattice sites and off-lattice tubercles.",
			 plan.pitch, calls);
		fs_llm_reply_append_text(out, txt);
	} else {
		cJSON *a = cJSON_CreateObject();
		if (!a)
			goto oom_plan;
		cJSON_AddStringToObject(a, "method", s->job->auto_connect_method[0] ? s->job->auto_connect_method : "gabriel");
		fs_llm_reply_append_text(out, "No missing lattice site is bright enough and no tubercle is off the lattice.");
		cJSON *f = cJSON_CreateObject();
		if (!f)
			goto oom_plan;
		cJSON_AddStringToObject(f, "reason", "pattern complete: no bright lattice site left unmarked");
		if (fs_agent_local_call(out, &s->call_seq, "auto_connect", a) ||
		    fs_agent_local_call(out, &s->call_seq, "finish", f))
			goto oom_plan;
	}
	rc = 0;
oom_plan:
	fs_lattice_plan_free(&plan);
	if (!rc)
		return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}
