/*
 * agent_select.c - selections of tubercles (see agent_select.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_fish_tools.h"
#include "agent/agent_select.h"

static const char *const crit_keys[] = {"ids", "region", "edge", "corner", "near", "min_degree", "max_degree",
					"diameter_above_um", "diameter_below_um", "diameter_above_px",
					"diameter_below_px", "source", "isolated", "small", "large", NULL};

int fs_agent_selection_given(const cJSON *args)
{
	for (int i = 0; crit_keys[i]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, crit_keys[i]);
		/* a false flag is no criterion */
		if (v && !cJSON_IsFalse(v))
			return 1;
	}
	return 0;
}

void fs_agent_ids_text(const int *ids, size_t n, size_t max, char *out, size_t outlen)
{
	size_t k = 0;
	out[0] = 0;
	for (size_t i = 0; i < n && i < max && k + 1 < outlen; i++) {
		int w = snprintf(out + k, outlen - k, "%s#%d", i ? ", " : "", ids[i]);
		if (w < 0)
			return;
		k += (size_t)w;
	}
	if (n > max && k + 1 < outlen)
		snprintf(out + k, outlen - k, " and %zu more", n - max);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static const fs_tubercle_list *sort_list; /* qsort has no user pointer */

static int cmp_by_x(const void *a, const void *b)
{
	double x = sort_list->items[*(const int *)a].centroid_x, y = sort_list->items[*(const int *)b].centroid_x;
	return (x > y) - (x < y);
}

/* Nearest-neighbour distance of each tubercle: a sweep over the points
 * sorted by x, stopping once the x distance alone exceeds the best. */
static double *nn_dist(const fs_tubercle_list *t)
{
	double *d = malloc((t->n ? t->n : 1) * sizeof(double));
	int *ord = malloc((t->n ? t->n : 1) * sizeof(int));
	if (!d || !ord) {
		free(d);
		free(ord);
		return NULL;
	}
	for (size_t i = 0; i < t->n; i++)
		ord[i] = (int)i;
	sort_list = t;
	qsort(ord, t->n, sizeof(int), cmp_by_x);
	for (size_t k = 0; k < t->n; k++) {
		const fs_tubercle *a = &t->items[ord[k]];
		double best = INFINITY;
		for (size_t j = k + 1; j < t->n; j++) {
			const fs_tubercle *b = &t->items[ord[j]];
			if (b->centroid_x - a->centroid_x >= best)
				break;
			double h = hypot(b->centroid_x - a->centroid_x, b->centroid_y - a->centroid_y);
			best = h < best ? h : best;
		}
		for (size_t j = k; j-- > 0;) {
			const fs_tubercle *b = &t->items[ord[j]];
			if (a->centroid_x - b->centroid_x >= best)
				break;
			double h = hypot(b->centroid_x - a->centroid_x, b->centroid_y - a->centroid_y);
			best = h < best ? h : best;
		}
		d[ord[k]] = best;
	}
	free(ord);
	return d;
}

static double median_of(const double *v, size_t n)
{
	double *c = malloc((n ? n : 1) * sizeof(double)), m = 0;
	size_t k = 0;
	if (!c)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			c[k++] = v[i];
	if (k) {
		qsort(c, k, sizeof(double), cmp_dbl);
		m = c[k / 2];
	}
	free(c);
	return m;
}

double fs_agent_pitch(const fs_agent_sess *s)
{
	double *d = nn_dist(&s->t);
	double p = d ? median_of(d, s->t.n) : 0;
	free(d);
	return p;
}

static void add_desc(char *desc, size_t len, const char *fmt, double a, double b)
{
	size_t k = strlen(desc);
	if (k + 3 >= len)
		return;
	if (k)
		k += (size_t)snprintf(desc + k, len - k, ", ");
	snprintf(desc + k, len - k, fmt, a, b);
}

static double num(const cJSON *o, const char *k, double def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : def;
}

/* Band test: 1 when (x, y) is within the band of side (l r t b). */
static int in_band(char side, double x, double y, double bw, double bh, int w, int h)
{
	switch (side) {
	case 'l': return x <= bw;
	case 'r': return x >= w - bw;
	case 't': return y <= bh;
	case 'b': return y >= h - bh;
	}
	return 0;
}

/* 1 when (x, y) lies in the band of side, or with side 'a' in any of the
 * four bands. */
static int in_edge(char side, double x, double y, double bw, double bh, int w, int h)
{
	if (side != 'a')
		return in_band(side, x, y, bw, bh, w, h);
	return in_band('l', x, y, bw, bh, w, h) || in_band('r', x, y, bw, bh, w, h) ||
	       in_band('t', x, y, bw, bh, w, h) || in_band('b', x, y, bw, bh, w, h);
}

/* A corner's sides from its "which" ("top-left" ... or "any", NULL as
 * "any"): *v t / b and *hz l / r, 'a' for either. */
static void corner_sides(const char *which, char *v, char *hz)
{
	int any = !which || !strcmp(which, "any");
	*v = any ? 'a' : which[0];
	*hz = any ? 'a' : strchr(which, '-')[1];
}

/* 1 when (x, y) lies in the corner where the bands of sides v and hz
 * (corner_sides) cross. */
static int in_corner(char v, char hz, double x, double y, double bw, double bh, int w, int h)
{
	int in_v = v == 'a' ? in_band('t', x, y, bw, bh, w, h) || in_band('b', x, y, bw, bh, w, h)
			    : in_band(v, x, y, bw, bh, w, h);
	int in_h = hz == 'a' ? in_band('l', x, y, bw, bh, w, h) || in_band('r', x, y, bw, bh, w, h)
			     : in_band(hz, x, y, bw, bh, w, h);
	return in_v && in_h;
}

/* 1 when (x, y), image px, lies in the region's rectangle (x0, y0, x1, y1
 * in screenshot px, either order, scale sc). */
static int in_region(const cJSON *region, double sc, double x, double y)
{
	double x0 = fmin(num(region, "x0", 0), num(region, "x1", 0)) / sc;
	double x1 = fmax(num(region, "x0", 0), num(region, "x1", 0)) / sc;
	double y0 = fmin(num(region, "y0", 0), num(region, "y1", 0)) / sc;
	double y1 = fmax(num(region, "y0", 0), num(region, "y1", 0)) / sc;
	return !(x < x0 || x > x1 || y < y0 || y > y1);
}

int fs_agent_select(const fs_agent_sess *s, const cJSON *args, int **ids, size_t *n, char *desc, size_t desclen,
		    char *err, size_t errlen)
{
	const fs_tubercle_list *t = &s->t;
	double sc = s->shot_scale > 0 ? s->shot_scale : 1.0;
	int W = s->img ? s->img->width : s->rec.width, H = s->img ? s->img->height : s->rec.height;
	const cJSON *jids = cJSON_GetObjectItemCaseSensitive(args, "ids");
	const cJSON *region = cJSON_GetObjectItemCaseSensitive(args, "region");
	const cJSON *edge = cJSON_GetObjectItemCaseSensitive(args, "edge");
	const cJSON *corner = cJSON_GetObjectItemCaseSensitive(args, "corner");
	const cJSON *near = cJSON_GetObjectItemCaseSensitive(args, "near");
	const char *source = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "source"));
	int isolated = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "isolated"));
	int small = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "small"));
	int large = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "large"));
	double mind = num(args, "min_degree", -1), maxd = num(args, "max_degree", -1);
	double above = -1, below = -1; /* diameters, image px */
	double *nn = NULL, pitch = 0, med_r = 0;
	int *deg = NULL, *out = NULL, rc = -1;
	const fs_tubercle *nt = NULL;
	double near_r = 0;
	char side = 0, c1 = 0, c2 = 0;
	double bw = 0, bh = 0, cw = 0, ch = 0; /* the edge band's and the corner's widths, each its own */

	*ids = NULL;
	*n = 0;
	if (desclen)
		desc[0] = 0;
	double au = num(args, "diameter_above_um", -1), bu = num(args, "diameter_below_um", -1);
	if ((au >= 0 || bu >= 0) && !(s->um_per_px > 0)) {
		snprintf(err, errlen, "diameters in um need a calibration; the image has none (use diameter_above_px)");
		return -1;
	}
	if (au >= 0) {
		above = au / s->um_per_px;
		add_desc(desc, desclen, "diameter above %g um", au, 0);
	}
	if (bu >= 0) {
		below = bu / s->um_per_px;
		add_desc(desc, desclen, "diameter below %g um", bu, 0);
	}
	if (num(args, "diameter_above_px", -1) >= 0) {
		above = num(args, "diameter_above_px", -1) / sc;
		add_desc(desc, desclen, "diameter above %g px", num(args, "diameter_above_px", -1), 0);
	}
	if (num(args, "diameter_below_px", -1) >= 0) {
		below = num(args, "diameter_below_px", -1) / sc;
		add_desc(desc, desclen, "diameter below %g px", num(args, "diameter_below_px", -1), 0);
	}
	if (edge) {
		const char *sd = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(edge, "side"));
		double wp = num(edge, "width_percent", 10);
		side = sd ? sd[0] : 'a';
		bw = W * wp / 100;
		bh = H * wp / 100;
		size_t k = strlen(desc);
		snprintf(desc + k, desclen - k, "%s%s edge band %g%%", k ? ", " : "", sd ? sd : "any", wp);
	}
	if (corner) {
		const char *w = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(corner, "which"));
		double wp = num(corner, "width_percent", 10);
		cw = W * wp / 100;
		ch = H * wp / 100;
		corner_sides(w, &c1, &c2);
		size_t k = strlen(desc);
		snprintf(desc + k, desclen - k, "%s%s corner %g%%", k ? ", " : "", w ? w : "any", wp);
	}
	if (region) {
		add_desc(desc, desclen, "inside (%g, %g)", num(region, "x0", 0), num(region, "y0", 0));
		add_desc(desc, desclen, "(%g, %g) rectangle", num(region, "x1", 0), num(region, "y1", 0));
	}
	if (near) {
		int id = (int)num(near, "id", 0);
		for (size_t i = 0; i < t->n && !nt; i++)
			if (t->items[i].id == id)
				nt = &t->items[i];
		if (!nt) {
			snprintf(err, errlen, "near: no tubercle #%d in the set", id);
			return -1;
		}
	}
	if (isolated || near || small || large) {
		nn = nn_dist(t);
		if (!nn)
			goto oom;
		pitch = median_of(nn, t->n);
	}
	if (near) {
		near_r = num(near, "radius", -1) > 0 ? num(near, "radius", -1) / sc : 1.5 * pitch;
		add_desc(desc, desclen, "within %.0f px of #%.0f", near_r, nt->id);
	}
	if (small || large) {
		double *r = malloc((t->n ? t->n : 1) * sizeof(double));
		if (!r)
			goto oom;
		for (size_t i = 0; i < t->n; i++)
			r[i] = t->items[i].radius_px;
		med_r = median_of(r, t->n);
		free(r);
		if (small)
			add_desc(desc, desclen, "small (diameter below %.1f px)", 1.2 * med_r, 0);
		if (large)
			add_desc(desc, desclen, "large (diameter above %.1f px)", 3.2 * med_r, 0);
	}
	if (mind >= 0 || maxd >= 0 || isolated) {
		deg = fs_agent_degrees(s);
		if (!deg)
			goto oom;
	}
	if (mind >= 0)
		add_desc(desc, desclen, "degree >= %g", mind, 0);
	if (maxd >= 0)
		add_desc(desc, desclen, "degree <= %g", maxd, 0);
	if (isolated)
		add_desc(desc, desclen, "isolated (at most 1 connection or none within %.0f px)", 1.5 * pitch, 0);
	if (source) {
		size_t k = strlen(desc);
		snprintf(desc + k, desclen - k, "%ssource %s", k ? ", " : "", source);
	}
	if (jids) {
		size_t k = strlen(desc);
		snprintf(desc + k, desclen - k, "%s%d listed id(s)", k ? ", " : "", cJSON_GetArraySize(jids));
	}
	out = malloc((t->n ? t->n : 1) * sizeof(int));
	if (!out)
		goto oom;
	for (size_t i = 0; i < t->n; i++) {
		const fs_tubercle *u = &t->items[i];
		double x = u->centroid_x, y = u->centroid_y, d = 2 * u->radius_px;
		if (jids) {
			int hit = 0;
			const cJSON *v;
			cJSON_ArrayForEach(v, jids) hit |= cJSON_IsNumber(v) && v->valueint == u->id;
			if (!hit)
				continue;
		}
		if (region && !in_region(region, sc, x, y))
			continue;
		if (edge && !in_edge(side, x, y, bw, bh, W, H))
			continue;
		if (corner && !in_corner(c1, c2, x, y, cw, ch, W, H))
			continue;
		if (near && (u->id == nt->id || hypot(x - nt->centroid_x, y - nt->centroid_y) > near_r))
			continue;
		if (mind >= 0 && deg[i] < mind)
			continue;
		if (maxd >= 0 && deg[i] > maxd)
			continue;
		if (isolated && !(deg[i] <= 1 || nn[i] > 1.5 * pitch))
			continue;
		if (above >= 0 && !(d > above))
			continue;
		if (below >= 0 && !(d < below))
			continue;
		if (small && !(u->radius_px < 0.6 * med_r))
			continue;
		if (large && !(u->radius_px > 1.6 * med_r))
			continue;
		if (source) {
			static const char *const names[] = {"extracted", "manual", "lattice", "agent"};
			if ((int)u->source < 0 || (int)u->source > 3 || strcmp(names[u->source], source))
				continue;
		}
		out[(*n)++] = u->id;
	}
	*ids = out;
	out = NULL;
	rc = 0;
	goto done;
oom:
	snprintf(err, errlen, "out of memory");
done:
	free(out);
	free(nn);
	free(deg);
	return rc;
}

int fs_agent_point_in_area(const fs_agent_sess *s, const cJSON *args, double x, double y)
{
	double sc = s->shot_scale > 0 ? s->shot_scale : 1.0;
	int W = s->img ? s->img->width : s->rec.width, H = s->img ? s->img->height : s->rec.height;
	const cJSON *region = cJSON_GetObjectItemCaseSensitive(args, "region");
	const cJSON *edge = cJSON_GetObjectItemCaseSensitive(args, "edge");
	const cJSON *corner = cJSON_GetObjectItemCaseSensitive(args, "corner");
	const cJSON *near = cJSON_GetObjectItemCaseSensitive(args, "near");
	if (region && !in_region(region, sc, x, y))
		return 0;
	if (edge) {
		const char *sd = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(edge, "side"));
		double wp = num(edge, "width_percent", 10);
		if (!in_edge(sd && strcmp(sd, "any") ? sd[0] : 'a', x, y, W * wp / 100, H * wp / 100, W, H))
			return 0;
	}
	if (corner) {
		const char *w = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(corner, "which"));
		double wp = num(corner, "width_percent", 10);
		char v, hz;
		corner_sides(w, &v, &hz);
		if (!in_corner(v, hz, x, y, W * wp / 100, H * wp / 100, W, H))
			return 0;
	}
	if (near) {
		int id = (int)num(near, "id", 0);
		const fs_tubercle *nt = NULL;
		for (size_t i = 0; i < s->t.n && !nt; i++)
			if (s->t.items[i].id == id)
				nt = &s->t.items[i];
		if (!nt)
			return 0;
		double r = num(near, "radius", -1) > 0 ? num(near, "radius", -1) / sc : 1.5 * fs_agent_pitch(s);
		if (hypot(x - nt->centroid_x, y - nt->centroid_y) > r)
			return 0;
	}
	return 1;
}
