/*
 * agent_reconnect.c - the editor's judging after one change, without a
 * graph over the whole set (see fs_agent_judge_at in agent_fish_tools.h).
 *
 * Why it is exact for the Gabriel graph and the RNG: an edge (a, b) is
 * affected by a point p only when p lies in its diametral disc (Gabriel)
 * or its lune (RNG), so |a - p| and |b - p| are at most |a - b|; and with
 * the long-edge culling every kept edge is at most L = cull factor x the
 * median edge of the last full build (kept fixed between full builds, so
 * the culling does not move under the editor). Edges with both ends within
 * L of p are therefore the only ones that can change, and whether such an
 * edge exists is decided by the points within 2 L of p: the graph is
 * rebuilt on those alone and spliced in. Delaunay edges are not that local;
 * the same splice is then a close approximation, and every full reload (the
 * end of a run, auto-connect) rebuilds the whole graph anyway.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_fish_tools.h"
#include "analysis/graph.h"

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int cmp_edge(const void *a, const void *b)
{
	const fs_edge *p = a, *q = b;
	if (p->id1 != q->id1)
		return p->id1 < q->id1 ? -1 : 1;
	return (p->id2 > q->id2) - (p->id2 < q->id2);
}

/* Position of each id in s->t (ids are small positive integers). */
static int *id_index(const fs_tubercle_list *t, int *maxid)
{
	int m = 0;
	for (size_t k = 0; k < t->n; k++)
		m = t->items[k].id > m ? t->items[k].id : m;
	int *at = malloc(((size_t)m + 1) * sizeof(int));
	if (!at)
		return NULL;
	for (int i = 0; i <= m; i++)
		at[i] = -1;
	for (size_t k = 0; k < t->n; k++)
		if (t->items[k].id >= 0)
			at[t->items[k].id] = (int)k;
	*maxid = m;
	return at;
}

double fs_agent_reconnect_len(const fs_agent_sess *s)
{
	const fs_edge_list *e = &s->judge_e;
	int maxid;
	if (!e->n)
		return 0;
	int *at = id_index(&s->t, &maxid);
	double *len = malloc(e->n * sizeof(double));
	size_t n = 0;
	double L = 0;
	if (!at || !len)
		goto out;
	for (size_t i = 0; i < e->n; i++) {
		int a = e->items[i].id1, b = e->items[i].id2;
		int ka = a >= 0 && a <= maxid ? at[a] : -1, kb = b >= 0 && b <= maxid ? at[b] : -1;
		if (ka < 0 || kb < 0)
			continue;
		len[n++] = hypot(s->t.items[ka].centroid_x - s->t.items[kb].centroid_x,
				 s->t.items[ka].centroid_y - s->t.items[kb].centroid_y);
	}
	if (n) {
		qsort(len, n, sizeof(double), cmp_dbl);
		double med = len[n / 2];
		/* with culling no kept edge is longer than factor x median; without
		 * it none is bounded: the longest edge now, but at most 6 medians,
		 * keeps the splice local (longer hull edges near a change are then
		 * dropped until the next full build) */
		if (s->params.cull_long_edges && s->params.cull_factor > 0)
			L = s->params.cull_factor * med;
		else
			L = fmax(3 * med, fmin(len[n - 1], 6 * med));
	}
out:
	free(at);
	free(len);
	return L;
}

int fs_agent_reconnect_at(fs_agent_sess *s, double x, double y, int moved_id)
{
	double L = s->judge_len;
	fs_tubercle_list loc = {0};
	fs_edge_list le = {0};
	fs_graph g;
	char err[128];
	int rc = -1, maxid;
	int *at = NULL;

	if (!(L > 0))
		return 1; /* no baseline: the caller builds the whole graph */
	if (fs_graph_parse(s->job->auto_connect_method[0] ? s->job->auto_connect_method : "gabriel", &g))
		g = FS_GRAPH_GABRIEL;
	double R = 2 * L + 1;
	for (size_t k = 0; k < s->t.n; k++) {
		const fs_tubercle *t = &s->t.items[k];
		if (fabs(t->centroid_x - x) <= R && fabs(t->centroid_y - y) <= R &&
		    hypot(t->centroid_x - x, t->centroid_y - y) <= R && fs_tubercle_list_append(&loc, t))
			goto out;
	}
	/* the local graph, uncut: the cut is the session's fixed L below */
	if (loc.n >= 2 && fs_graph_build(&loc, g, 0, 1, &le, err, sizeof(err)))
		goto out;
	at = id_index(&s->t, &maxid);
	if (!at)
		goto out;
#define NEAR(k) (hypot(s->t.items[k].centroid_x - x, s->t.items[k].centroid_y - y) <= L)
	/* drop the edges near the change (and any whose end is gone) */
	size_t w = 0;
	for (size_t i = 0; i < s->judge_e.n; i++) {
		int a = s->judge_e.items[i].id1, b = s->judge_e.items[i].id2;
		int ka = a >= 0 && a <= maxid ? at[a] : -1, kb = b >= 0 && b <= maxid ? at[b] : -1;
		if (ka < 0 || kb < 0 || (NEAR(ka) && NEAR(kb)) || a == moved_id || b == moved_id)
			continue;
		s->judge_e.items[w++] = s->judge_e.items[i];
	}
	s->judge_e.n = w;
	/* and take the local graph's edges there, no longer than L */
	for (size_t i = 0; i < le.n; i++) {
		int a = le.items[i].id1, b = le.items[i].id2;
		int ka = a >= 0 && a <= maxid ? at[a] : -1, kb = b >= 0 && b <= maxid ? at[b] : -1;
		if (ka < 0 || kb < 0 || !NEAR(ka) || !NEAR(kb))
			continue;
		if (hypot(s->t.items[ka].centroid_x - s->t.items[kb].centroid_x,
			  s->t.items[ka].centroid_y - s->t.items[kb].centroid_y) > L)
			continue;
		if (fs_edge_list_append(&s->judge_e, &le.items[i]))
			goto out;
	}
#undef NEAR
	/* in the order fs_graph_build gives (id1 < id2, sorted), which the
	 * statistics rely on */
	qsort(s->judge_e.items, s->judge_e.n, sizeof(s->judge_e.items[0]), cmp_edge);
	rc = 0;
out:
	free(at);
	fs_tubercle_list_free(&loc);
	fs_edge_list_free(&le);
	return rc;
}
