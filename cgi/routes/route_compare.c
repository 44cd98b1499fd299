/*
 * route_compare.c - the Compare page and its API: sets chosen by id, by a
 * saved comparison or as "the first set of each of my images", with group
 * labels; their statistics and samples with the reference data as JSON,
 * the chart (analysis/compare_chart.h) as SVG or PNG, the table as CSV;
 * the picker's list of sets; saved comparisons (list, create, read,
 * change, delete). docs/API.md describes every route.
 *
 * Access: a set is offered, read and charted only when the user may see
 * its image. Asked for by id, an invisible set answers 404 like a missing
 * one; read through a shared comparison, the sets its viewer may not see
 * are left out and counted (left_out).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/compare_chart.h"
#include "base/base.h"
#include "image/drawing.h"
#include "routes/routes.h"
#include "routes/set_view.h"
#include "store/store.h"
#include "web/web.h"

#define NF(a) (sizeof a / sizeof a[0])
#define SAMPLE_RAW_MAX 2000 /* above this many values a sample is sent binned */
#define SAMPLE_BINS 64

/* ---- which sets ---- */

typedef struct selection {
	fs_comparison_item *items;
	size_t n;
	size_t left_out;    /* in the comparison, but invisible to this user */
	int has_comparison; /* comparison= was given */
	fs_comparison comparison;
} selection;

static void selection_free(selection *s)
{
	free(s->items);
	fs_comparison_free(&s->comparison);
	memset(s, 0, sizeof *s);
}

/* 1 when u may see set_id's image (info and rec filled), 0 when not or it
 * does not exist, < 0 on a database error. */
static int set_visible(fs_req *r, long long set_id, fs_set_info *info, fs_image_rec *rec)
{
	int rc = fs_set_get_info(r->app->db, set_id, info);
	if (rc == FS_DB_OK)
		rc = fs_image_check_access(r->app->db, info->image_id, &r->user, FS_ACCESS_READ, rec);
	if (rc == FS_DB_NOTFOUND || rc == FS_DB_FORBIDDEN)
		return 0;
	return rc ? rc : 1;
}

/* "1,2,3" -> ids (each > 0, at most FS_COMPARISON_SETS_MAX); -1 when malformed. */
static int parse_ids(const char *s, fs_comparison_item **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	size_t cap = 16;
	fs_comparison_item *items = calloc(cap, sizeof *items);
	if (!items)
		return -2;
	const char *p = s;
	while (*p) {
		char *end;
		if (*p < '0' || *p > '9') {
			free(items);
			return -1;
		}
		long long id = strtoll(p, &end, 10);
		if (id <= 0 || (*end && *end != ',') || *n == FS_COMPARISON_SETS_MAX) {
			free(items);
			return -1;
		}
		if (*n == cap) {
			fs_comparison_item *q = realloc(items, 2 * cap * sizeof *q);
			if (!q) {
				free(items);
				return -2;
			}
			items = q;
			memset(items + cap, 0, cap * sizeof *q);
			cap *= 2;
		}
		for (size_t k = 0; k < *n; k++)
			if (items[k].set_id == id) {
				free(items);
				return -1;
			}
		items[(*n)++].set_id = id;
		p = *end ? end + 1 : end;
		if (*end == ',' && !*p) {
			free(items);
			return -1;
		}
	}
	*out = items;
	return *n ? 0 : -1;
}

/* Group labels from group.<set id>=LABEL; 1 and a 422 answer when one is bad. */
static int apply_labels(fs_req *r, fs_resp *w, selection *sel)
{
	for (size_t i = 0; i < r->query_kv.n; i++) {
		const fs_kv *kv = &r->query_kv.items[i];
		if (strncmp(kv->key, "group.", 6))
			continue;
		char *end;
		long long id = strtoll(kv->key + 6, &end, 10);
		char clean[sizeof sel->items[0].label];
		if (*end || id <= 0 || strlen(kv->value) != kv->value_len ||
		    !fs_comparison_label_valid(kv->value, clean, sizeof clean)) {
			fs_resp_error(r, w, 422, "%.80s: a group label is at most %d characters, without control characters",
				      kv->key, FS_COMPARISON_LABEL_MAX);
			return 1;
		}
		for (size_t k = 0; k < sel->n; k++)
			if (sel->items[k].set_id == id)
				snprintf(sel->items[k].label, sizeof sel->items[k].label, "%s", clean);
	}
	return 0;
}

/*
 * The sets asked for: sets=1,2,3 | comparison=ID | my_base_sets=1, with
 * group.<id> labels. Returns 0, 1 when an answer was written, or a db rc.
 */
static int select_sets(fs_req *r, fs_resp *w, selection *sel)
{
	memset(sel, 0, sizeof *sel);
	const char *sets = fs_kv_get(&r->query_kv, "sets");
	const char *cmp = fs_kv_get(&r->query_kv, "comparison");
	const char *mine = fs_kv_get(&r->query_kv, "my_base_sets");
	int given = (sets != NULL) + (cmp != NULL) + (mine != NULL);
	if (given != 1) {
		fs_resp_error(r, w, 400, "choose the sets with one of sets=ID,ID,..., comparison=ID or my_base_sets=1");
		return 1;
	}
	if (sets) {
		int rc = parse_ids(sets, &sel->items, &sel->n);
		if (rc == -2)
			return FS_DB_ERROR;
		if (rc) {
			fs_resp_error(r, w, 400, "sets must be 1 to %d different set ids separated by commas",
				      FS_COMPARISON_SETS_MAX);
			return 1;
		}
		for (size_t k = 0; k < sel->n; k++) {
			fs_set_info info;
			fs_image_rec rec;
			rc = set_visible(r, sel->items[k].set_id, &info, &rec);
			if (rc < 0)
				return rc;
			if (!rc) {
				fs_resp_error(r, w, 404, "no such set: %lld", sel->items[k].set_id);
				return 1;
			}
		}
	} else if (cmp) {
		char *end;
		long long id = strtoll(cmp, &end, 10);
		if (*end || id <= 0) {
			fs_resp_error(r, w, 400, "comparison must be a comparison id");
			return 1;
		}
		int rc = fs_comparison_get(r->app->db, id, &r->user, &sel->comparison);
		if (rc == FS_DB_NOTFOUND) {
			fs_resp_error(r, w, 404, "no such comparison");
			return 1;
		}
		if (rc)
			return rc;
		sel->has_comparison = 1;
		sel->items = calloc(sel->comparison.n_sets ? sel->comparison.n_sets : 1, sizeof *sel->items);
		if (!sel->items)
			return FS_DB_ERROR;
		for (size_t k = 0; k < sel->comparison.n_sets; k++) {
			fs_set_info info;
			fs_image_rec rec;
			rc = set_visible(r, sel->comparison.items[k].set_id, &info, &rec);
			if (rc < 0)
				return rc;
			if (rc)
				sel->items[sel->n++] = sel->comparison.items[k];
			else
				sel->left_out++;
		}
	} else {
		if (strcmp(mine, "1") && strcmp(mine, "true")) {
			fs_resp_error(r, w, 400, "my_base_sets takes 1");
			return 1;
		}
		long long *ids;
		size_t n;
		int rc = fs_compare_first_sets_of_owner(r->app->db, r->user.id, &ids, &n);
		if (rc)
			return rc;
		if (n > FS_COMPARISON_SETS_MAX)
			n = FS_COMPARISON_SETS_MAX;
		sel->items = calloc(n ? n : 1, sizeof *sel->items);
		if (!sel->items) {
			free(ids);
			return FS_DB_ERROR;
		}
		for (size_t k = 0; k < n; k++)
			sel->items[k].set_id = ids[k];
		sel->n = n;
		free(ids);
	}
	return apply_labels(r, w, sel);
}

/* ---- loading the sets ---- */

typedef struct loaded {
	fs_set_ctx ctx;
	fs_stats st;
	cJSON *stats_json;
	char name[600]; /* "image / set" */
	double *d, *s;
	size_t nd, ns;
} loaded;

typedef struct comparison_data {
	selection sel;
	loaded *sets;
	size_t n;
	fs_chart_set *chart;
	fs_hex_weights wts;
} comparison_data;

static void data_free(comparison_data *c)
{
	for (size_t i = 0; i < c->n; i++) {
		cJSON_Delete(c->sets[i].stats_json);
		free(c->sets[i].d);
		free(c->sets[i].s);
	}
	free(c->sets);
	free(c->chart);
	selection_free(&c->sel);
	memset(c, 0, sizeof *c);
}

/* Selects and loads the sets with their statistics and samples. Returns 0,
 * 1 when an answer was written, or a db rc. */
static int load(fs_req *r, fs_resp *w, comparison_data *c)
{
	memset(c, 0, sizeof *c);
	int rc = select_sets(r, w, &c->sel);
	if (rc)
		return rc;
	fs_set_view_weights(r, &c->wts);
	size_t n = c->sel.n;
	c->sets = calloc(n ? n : 1, sizeof *c->sets);
	c->chart = calloc(n ? n : 1, sizeof *c->chart);
	if (!c->sets || !c->chart)
		return FS_DB_ERROR;
	for (size_t i = 0; i < n; i++) {
		loaded *l = &c->sets[i];
		fs_tubercle_list t = {0};
		fs_edge_list e = {0};
		rc = set_visible(r, c->sel.items[i].set_id, &l->ctx.info, &l->ctx.image);
		if (rc == 0) {
			/* gone since it was chosen (deleted meanwhile): say so */
			fs_resp_error(r, w, 404, "no such set: %lld", c->sel.items[i].set_id);
			return 1;
		}
		if (rc < 0)
			return rc;
		c->n = i + 1;
		rc = fs_set_load(r->app->db, l->ctx.info.id, &t, &e);
		if (rc)
			return rc;
		double um = l->ctx.image.um_per_px > 0 ? l->ctx.image.um_per_px : 0;
		l->stats_json = fs_set_view_stats(&l->ctx, &t, &e, &c->wts, &l->st);
		int bad = !l->stats_json || fs_chart_samples(&t, &e, um > 0 ? um : 1, &l->d, &l->nd, &l->s, &l->ns);
		fs_tubercle_list_free(&t);
		fs_edge_list_free(&e);
		if (bad)
			return FS_DB_ERROR;
		snprintf(l->name, sizeof l->name, "%s / %s", l->ctx.image.original_name, l->ctx.info.name);
		fs_chart_set *s = &c->chart[i];
		s->id = l->ctx.info.id;
		s->name = l->name;
		s->group = c->sel.items[i].label;
		fs_chart_set_fill(s, &l->st, um > 0, l->d, l->nd, l->s, l->ns);
		/* an empty set has no hexagonalness to draw (the CLI's files draw
		 * their statistics' 0) */
		if (!l->st.n_tubercles)
			s->hexagonalness = NAN;
	}
	return 0;
}

/* ---- JSON ---- */

/* A sample value with four decimals at most (0.0001 µm or px is far below
 * any measurement's precision), written without printf: a comparison of
 * 200 sets writes some 300,000 of them. */
static int short_num(fs_buf *b, double v)
{
	if (!isfinite(v) || fabs(v) >= 1e12)
		return isfinite(v) ? fs_buf_printf(b, "%.6g", v) : fs_buf_puts(b, "null");
	char tmp[32], *p = tmp + sizeof tmp;
	long long q = llround(fabs(v) * 10000);
	int frac = (int)(q % 10000), digits = 4;
	q /= 10000;
	while (digits && frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	if (digits) {
		for (int i = 0; i < digits; i++, frac /= 10)
			*--p = (char)('0' + frac % 10);
		*--p = '.';
	}
	do {
		*--p = (char)('0' + q % 10);
		q /= 10;
	} while (q);
	if (v < 0 && (p[0] != '0' || p[1]))
		*--p = '-';
	return fs_buf_append(b, p, (size_t)(tmp + sizeof tmp - p));
}

/* {"unit", "n", "values": [...]} or, above SAMPLE_RAW_MAX values,
 * {"unit", "n", "bins": {"min", "width", "counts": [...]}}. */
static char *sample_json(const double *v, size_t n, const char *unit)
{
	fs_buf b = FS_BUF_INIT;
	int rc = fs_buf_printf(&b, "{\"unit\":\"%s\",\"n\":%zu,", unit, n);
	if (n <= SAMPLE_RAW_MAX) {
		rc = rc || fs_buf_puts(&b, "\"values\":[");
		for (size_t i = 0; i < n && !rc; i++)
			rc = (i && fs_buf_putc(&b, ',')) || short_num(&b, v[i]);
		rc = rc || fs_buf_puts(&b, "]}");
	} else {
		int counts[SAMPLE_BINS];
		double lo, width;
		int nb = fs_chart_bin(v, n, SAMPLE_BINS, &lo, &width, counts);
		rc = rc || fs_buf_puts(&b, "\"bins\":{\"min\":") || short_num(&b, lo) ||
		     fs_buf_puts(&b, ",\"width\":") || short_num(&b, width) || fs_buf_puts(&b, ",\"counts\":[");
		for (int i = 0; i < nb && !rc; i++)
			rc = fs_buf_printf(&b, i ? ",%d" : "%d", counts[i]);
		rc = rc || fs_buf_puts(&b, "]}}");
	}
	if (rc) {
		fs_buf_free(&b);
		return NULL;
	}
	return fs_buf_steal(&b);
}

static void add_num(cJSON *o, const char *k, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static cJSON *set_json(fs_req *r, const loaded *l, const fs_chart_set *s)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "id", (double)l->ctx.info.id);
	cJSON_AddStringToObject(o, "name", l->ctx.info.name);
	cJSON_AddNumberToObject(o, "image_id", (double)l->ctx.image.id);
	cJSON_AddStringToObject(o, "image_name", l->ctx.image.original_name);
	cJSON_AddStringToObject(o, "owner_login", l->ctx.image.owner_login);
	cJSON_AddStringToObject(o, "label", l->name);
	cJSON_AddStringToObject(o, "group", s->group ? s->group : "");
	cJSON_AddNumberToObject(o, "revision", (double)l->ctx.info.revision);
	cJSON_AddBoolToObject(o, "calibrated", s->calibrated);
	add_num(o, "calibration_um_per_px", s->calibrated ? l->ctx.image.um_per_px : NAN);
	char url[700];
	snprintf(url, sizeof url, "%sworkspace/%lld?set=%lld", r->app->cfg.base_path, l->ctx.image.id,
		 l->ctx.info.id);
	cJSON_AddStringToObject(o, "workspace_url", url);
	/* the measurement behind the diameters: an outdated one is marked and
	 * links to the workspace's Re-measure */
	cJSON_AddNumberToObject(o, "measurement_version", l->ctx.info.measurement_version);
	cJSON_AddBoolToObject(o, "measurement_outdated", l->ctx.info.measurement_version != FS_MEASUREMENT_VERSION);
	/* the chart's numbers, in µm, or px when uncalibrated */
	cJSON_AddStringToObject(o, "unit", s->calibrated ? "um" : "px");
	add_num(o, "mean_diameter", s->d_mean);
	add_num(o, "sd_diameter", s->d_sd);
	add_num(o, "mean_space", s->s_mean);
	add_num(o, "sd_space", s->s_sd);
	add_num(o, "fill_ratio", s->fill_ratio);
	add_num(o, "hexagonalness", s->hexagonalness);
	cJSON_AddStringToObject(o, "suggested_genus", s->genus);
	cJSON_AddStringToObject(o, "classification_confidence", s->confidence);
	cJSON_AddItemReferenceToObject(o, "statistics", l->stats_json);
	const char *unit = s->calibrated ? "um" : "px";
	char *dj = sample_json(l->d, l->nd, unit), *sj = sample_json(l->s, l->ns, unit);
	if (!dj || !sj || !cJSON_AddRawToObject(o, "diameters", dj) || !cJSON_AddRawToObject(o, "spaces", sj)) {
		free(dj);
		free(sj);
		cJSON_Delete(o);
		return NULL;
	}
	free(dj);
	free(sj);
	return o;
}

static cJSON *groups_json(const comparison_data *c)
{
	fs_chart_group *g = NULL;
	size_t ng = 0;
	cJSON *a = cJSON_CreateArray();
	if (!a || fs_chart_groups(c->chart, c->n, &g, &ng)) {
		cJSON_Delete(a);
		return NULL;
	}
	for (size_t k = 0; k < ng; k++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "label", g[k].label);
		cJSON_AddNumberToObject(o, "n_sets", (double)g[k].n_sets);
		cJSON_AddNumberToObject(o, "n_calibrated", (double)g[k].n_calibrated);
		add_num(o, "mean_diameter_um", g[k].d_mean);
		add_num(o, "sd_diameter_um", g[k].d_sd);
		add_num(o, "mean_space_um", g[k].s_mean);
		add_num(o, "sd_space_um", g[k].s_sd);
		add_num(o, "fill_ratio", g[k].fill_ratio);
		add_num(o, "hexagonalness", g[k].hexagonalness);
		cJSON_AddItemToArray(a, o);
	}
	free(g);
	return a;
}

static cJSON *comparison_json(const fs_comparison *cm, const fs_user *u, int with_items)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "id", (double)cm->id);
	cJSON_AddStringToObject(o, "name", cm->name);
	cJSON_AddStringToObject(o, "owner_login", cm->owner_login);
	cJSON_AddStringToObject(o, "visibility", cm->shared ? "shared" : "private");
	cJSON_AddBoolToObject(o, "can_manage", fs_comparison_can_manage(cm, u));
	cJSON_AddNumberToObject(o, "n_sets", (double)cm->n_sets);
	cJSON_AddNumberToObject(o, "created_at", (double)cm->created_at);
	cJSON_AddNumberToObject(o, "updated_at", (double)cm->updated_at);
	if (with_items) {
		cJSON *a = cJSON_AddArrayToObject(o, "sets");
		for (size_t k = 0; a && k < cm->n_sets; k++) {
			cJSON *it = cJSON_CreateObject();
			cJSON_AddNumberToObject(it, "set_id", (double)cm->items[k].set_id);
			cJSON_AddStringToObject(it, "label", cm->items[k].label);
			cJSON_AddItemToArray(a, it);
		}
	}
	return o;
}

static fs_drawing *draw(const comparison_data *c, int parts, const char *title, char *err, size_t errlen)
{
	fs_chart_input in = {c->chart, c->n, NULL, title};
	return fs_chart_draw(&in, parts, err, errlen);
}

static char *svg_of(const comparison_data *c, int part)
{
	char err[128];
	fs_drawing *d = draw(c, part, NULL, err, sizeof err);
	fs_buf b = FS_BUF_INIT;
	int rc = !d || fs_drawing_svg(d, &b);
	fs_drawing_free(d);
	if (rc) {
		fs_buf_free(&b);
		return NULL;
	}
	return fs_buf_steal(&b);
}

static int h_compare(fs_req *r, fs_resp *w)
{
	comparison_data c;
	int rc = load(r, w, &c);
	if (rc) {
		data_free(&c);
		return rc > 0 ? 0 : rc;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON *sets = cJSON_AddArrayToObject(o, "sets");
	int bad = !o || !sets;
	for (size_t i = 0; i < c.n && !bad; i++) {
		cJSON *s = set_json(r, &c.sets[i], &c.chart[i]);
		bad = !s || !cJSON_AddItemToArray(sets, s);
	}
	cJSON *groups = bad ? NULL : groups_json(&c);
	cJSON *ref = bad ? NULL : fs_reference_to_json(fs_reference_builtin());
	bad = bad || !groups || !ref;
	if (!bad) {
		cJSON_AddBoolToObject(o, "success", 1);
		cJSON_AddItemToObject(o, "groups", groups);
		cJSON_AddItemToObject(o, "reference", ref);
		cJSON_AddNumberToObject(o, "left_out", (double)c.sel.left_out);
		if (c.sel.has_comparison)
			cJSON_AddItemToObject(o, "comparison", comparison_json(&c.sel.comparison, &r->user, 1));
		else
			cJSON_AddNullToObject(o, "comparison");
		cJSON *wt = cJSON_AddObjectToObject(o, "weights");
		cJSON_AddNumberToObject(wt, "spacing", c.wts.spacing);
		cJSON_AddNumberToObject(wt, "degree", c.wts.degree);
		cJSON_AddNumberToObject(wt, "edge_ratio", c.wts.edge_ratio);
		const char *svg = fs_kv_get(&r->query_kv, "svg");
		if (svg && (!strcmp(svg, "1") || !strcmp(svg, "true"))) {
			static const struct {
				const char *key;
				int part;
			} parts[] = {{"main", FS_CHART_MAIN}, {"ratio", FS_CHART_RATIO}, {"dist", FS_CHART_DIST}};
			cJSON *so = cJSON_AddObjectToObject(o, "svg");
			for (size_t k = 0; k < NF(parts) && !bad; k++) {
				char *text = svg_of(&c, parts[k].part);
				bad = !text || !cJSON_AddStringToObject(so, parts[k].key, text);
				free(text);
			}
		}
	} else {
		cJSON_Delete(groups);
		cJSON_Delete(ref);
	}
	if (bad) {
		cJSON_Delete(o);
		data_free(&c);
		return FS_DB_ERROR;
	}
	/* the stats objects are referenced, not owned: print before freeing them */
	fs_resp_json(w, 200, o);
	data_free(&c);
	return 0;
}

/* ---- downloads ---- */

static const char *const part_names[] = {"main", "ratio", "dist", NULL};

static int parse_parts(fs_req *r, fs_resp *w, int *parts)
{
	const char *p = fs_kv_get(&r->query_kv, "parts");
	*parts = FS_CHART_ALL;
	if (!p)
		return 0;
	*parts = 0;
	char buf[64];
	snprintf(buf, sizeof buf, "%s", p);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int k = 0;
		while (part_names[k] && strcmp(part_names[k], t))
			k++;
		if (!part_names[k]) {
			*parts = 0;
			break;
		}
		*parts |= 1 << k;
	}
	if (!*parts || strlen(p) >= sizeof buf) {
		fs_resp_error(r, w, 422, "parts is a comma-separated list of main, ratio, dist");
		return 1;
	}
	return 0;
}

/* A download name: "compare" or the comparison's name, [A-Za-z0-9._-] only. */
static void file_name(const comparison_data *c, const char *ext, char *out, size_t n)
{
	char stem[80] = "compare";
	if (c->sel.has_comparison) {
		size_t k = 0;
		for (const unsigned char *p = (const unsigned char *)c->sel.comparison.name; *p && k < 60; p++)
			stem[k++] = (isalnum(*p) || *p == '.' || *p == '-' || *p == '_') && *p < 128 ? (char)*p : '_';
		stem[k] = 0;
	}
	snprintf(out, n, "fishscale-%s.%s", stem, ext);
}

static void disposition(fs_req *r, fs_resp *w, const comparison_data *c, const char *ext)
{
	const char *dl = fs_kv_get(&r->query_kv, "download");
	if (dl && (!strcmp(dl, "1") || !strcmp(dl, "true"))) {
		char name[128];
		file_name(c, ext, name, sizeof name);
		fs_resp_header(w, "Content-Disposition", "attachment; filename=\"%s\"", name);
	}
	fs_resp_header(w, "Cache-Control", "private, no-cache");
}

static const char *chart_title(fs_req *r, const comparison_data *c)
{
	const char *t = fs_kv_get(&r->query_kv, "title");
	if (t && strlen(t) <= 200)
		return t;
	return c->sel.has_comparison ? c->sel.comparison.name : NULL;
}

static int h_chart_svg(fs_req *r, fs_resp *w)
{
	int parts;
	if (parse_parts(r, w, &parts))
		return 0;
	comparison_data c;
	int rc = load(r, w, &c);
	if (rc) {
		data_free(&c);
		return rc > 0 ? 0 : rc;
	}
	char err[128];
	fs_drawing *d = draw(&c, parts, chart_title(r, &c), err, sizeof err);
	fs_buf_reset(&w->body);
	if (!d || fs_drawing_svg(d, &w->body)) {
		fs_drawing_free(d);
		data_free(&c);
		return FS_DB_ERROR;
	}
	fs_drawing_free(d);
	w->status = 200;
	snprintf(w->content_type, sizeof w->content_type, "image/svg+xml; charset=utf-8");
	disposition(r, w, &c, "svg");
	data_free(&c);
	return 0;
}

#define PNG_MAX_PIXELS 40e6

static int h_chart_png(fs_req *r, fs_resp *w)
{
	static const fs_field fields[] = {{"scale", FS_FIELD_DOUBLE, 0, 0.5, 4, 0, NULL}};
	fs_value v[1];
	char err[256];
	if (fs_validate_kv(&r->query_kv, fields, 1, v, 1, err, sizeof err)) {
		fs_resp_error(r, w, 422, "%s", err);
		return 0;
	}
	int parts;
	if (parse_parts(r, w, &parts))
		return 0;
	comparison_data c;
	int rc = load(r, w, &c);
	if (rc) {
		data_free(&c);
		return rc > 0 ? 0 : rc;
	}
	fs_drawing *d = draw(&c, parts, chart_title(r, &c), err, sizeof err);
	if (!d) {
		data_free(&c);
		return FS_DB_ERROR;
	}
	double scale = v[0].present ? v[0].d : 2;
	double area = fs_drawing_width(d) * fs_drawing_height(d);
	if (area * scale * scale > PNG_MAX_PIXELS) /* many sets: a smaller picture rather than none */
		scale = sqrt(PNG_MAX_PIXELS / area);
	unsigned char *png = NULL;
	size_t len = 0;
	rc = fs_drawing_png(d, scale, NULL, &png, &len, err, sizeof err);
	fs_drawing_free(d);
	if (rc) {
		fs_resp_error(r, w, 500, "could not draw the chart: %s", err);
		data_free(&c);
		return 0;
	}
	fs_buf_reset(&w->body);
	rc = fs_buf_append(&w->body, png, len);
	free(png);
	if (rc) {
		data_free(&c);
		return FS_DB_ERROR;
	}
	w->status = 200;
	snprintf(w->content_type, sizeof w->content_type, "image/png");
	disposition(r, w, &c, "png");
	data_free(&c);
	return 0;
}

static int h_table_csv(fs_req *r, fs_resp *w)
{
	comparison_data c;
	int rc = load(r, w, &c);
	if (rc) {
		data_free(&c);
		return rc > 0 ? 0 : rc;
	}
	fs_buf_reset(&w->body);
	/* each set's measurement version as a column */
	char (*vtext)[16] = calloc(c.n ? c.n : 1, sizeof *vtext);
	const char **versions = calloc(c.n ? c.n : 1, sizeof *versions);
	if (!vtext || !versions) {
		free(vtext);
		free(versions);
		data_free(&c);
		return FS_DB_ERROR;
	}
	for (size_t i = 0; i < c.n; i++) {
		snprintf(vtext[i], sizeof vtext[i], "%d", c.sets[i].ctx.info.measurement_version);
		versions[i] = vtext[i];
	}
	int bad = fs_csv_compare(&w->body, c.chart, c.n, versions);
	free(vtext);
	free(versions);
	if (bad) {
		data_free(&c);
		return FS_DB_ERROR;
	}
	w->status = 200;
	snprintf(w->content_type, sizeof w->content_type, "text/csv; charset=utf-8");
	char name[128];
	file_name(&c, "csv", name, sizeof name);
	fs_resp_header(w, "Content-Disposition", "attachment; filename=\"%s\"", name);
	fs_resp_header(w, "Cache-Control", "private, no-cache");
	data_free(&c);
	return 0;
}

/* ---- the picker ---- */

static int h_candidates(fs_req *r, fs_resp *w)
{
	static const fs_field fields[] = {
		{"q", FS_FIELD_STRING, 0, 0, 0, 200, NULL},
		{"image", FS_FIELD_ID, 0, 0, 0, 0, NULL},
		{"mine", FS_FIELD_BOOL, 0, 0, 0, 0, NULL},
		{"first", FS_FIELD_BOOL, 0, 0, 0, 0, NULL},
		{"limit", FS_FIELD_INT, 0, 1, FS_COMPARISON_SETS_MAX, 0, NULL},
	};
	fs_value v[NF(fields)];
	char err[256];
	if (fs_validate_kv(&r->query_kv, fields, NF(fields), v, 0, err, sizeof err)) {
		fs_resp_error(r, w, 422, "%s", err);
		return 0;
	}
	fs_compare_candidate *list;
	size_t n;
	int more;
	int rc = fs_compare_candidates(r->app->db, &r->user, v[0].present ? v[0].s : NULL, v[1].present ? v[1].i : 0,
				       v[2].present && v[2].b, v[3].present && v[3].b,
				       v[4].present ? (int)v[4].i : 200, &list, &n, &more);
	if (rc)
		return rc;
	cJSON *o = cJSON_CreateObject();
	cJSON *a = cJSON_AddArrayToObject(o, "sets");
	for (size_t i = 0; a && i < n; i++) {
		cJSON *s = cJSON_CreateObject();
		cJSON_AddNumberToObject(s, "set_id", (double)list[i].set_id);
		cJSON_AddStringToObject(s, "set_name", list[i].set_name);
		cJSON_AddNumberToObject(s, "image_id", (double)list[i].image_id);
		cJSON_AddStringToObject(s, "image_name", list[i].image_name);
		cJSON_AddStringToObject(s, "owner_login", list[i].owner_login);
		cJSON_AddNumberToObject(s, "n_tubercles", list[i].n_tubercles);
		cJSON_AddBoolToObject(s, "first", list[i].first);
		cJSON_AddBoolToObject(s, "calibrated", list[i].um_per_px > 0);
		cJSON_AddItemToArray(a, s);
	}
	cJSON_AddBoolToObject(o, "more", more);
	free(list);
	fs_resp_json(w, 200, o);
	return 0;
}

/* ---- saved comparisons ---- */

/* Reads {name, visibility, sets: [{set_id, label}]} from the JSON body.
 * need_all: name and sets required (create). Returns 0, or 1 with a 4xx
 * answer written. *items is malloc'ed (NULL when sets is absent). */
static int comparison_body(fs_req *r, fs_resp *w, int need_all, const char **name, int *shared,
			   fs_comparison_item **items, size_t *n)
{
	static const char *const vis[] = {"private", "shared", NULL};
	const fs_field fields[] = {
		{"name", FS_FIELD_STRING, need_all, 0, 0, 400, NULL},
		{"visibility", FS_FIELD_ENUM, 0, 0, 0, 0, vis},
	};
	fs_value v[NF(fields)];
	char err[256];
	*items = NULL;
	*n = 0;
	if (!cJSON_IsObject(r->json)) {
		fs_resp_error(r, w, 400, "the body must be a JSON object");
		return 1;
	}
	for (const cJSON *k = r->json->child; k; k = k->next)
		if (strcmp(k->string, "name") && strcmp(k->string, "visibility") && strcmp(k->string, "sets")) {
			fs_resp_error(r, w, 422, "unknown field '%.60s'", k->string);
			return 1;
		}
	if (fs_validate_json(r->json, fields, NF(fields), v, 1, err, sizeof err)) {
		fs_resp_error(r, w, 422, "%s", err);
		return 1;
	}
	*name = v[0].present ? v[0].s : NULL;
	*shared = v[1].present ? (int)v[1].i : (need_all ? 1 : -1);
	const cJSON *sets = cJSON_GetObjectItem(r->json, "sets");
	if (!sets) {
		if (need_all) {
			fs_resp_error(r, w, 422, "field 'sets' is required");
			return 1;
		}
		return 0;
	}
	int count = cJSON_GetArraySize(sets);
	if (!cJSON_IsArray(sets) || count < 1 || count > FS_COMPARISON_SETS_MAX) {
		fs_resp_error(r, w, 422, "field 'sets' must be a list of 1 to %d {set_id, label}",
			      FS_COMPARISON_SETS_MAX);
		return 1;
	}
	*items = calloc((size_t)count, sizeof **items);
	if (!*items)
		return FS_DB_ERROR;
	const cJSON *it;
	cJSON_ArrayForEach(it, sets)
	{
		const cJSON *id = cJSON_GetObjectItem(it, "set_id"), *label = cJSON_GetObjectItem(it, "label");
		if (!cJSON_IsObject(it) || !cJSON_IsNumber(id) || id->valuedouble < 1 || id->valuedouble > 9e15 ||
		    id->valuedouble != floor(id->valuedouble) || (label && !cJSON_IsString(label) && !cJSON_IsNull(label)) ||
		    (cJSON_IsString(label) && strlen(label->valuestring) >= sizeof (*items)[0].label)) {
			free(*items);
			*items = NULL;
			fs_resp_error(r, w, 422, "each of 'sets' is {set_id: a set id, label: text of at most %d characters}",
				      FS_COMPARISON_LABEL_MAX);
			return 1;
		}
		(*items)[*n].set_id = (long long)id->valuedouble;
		if (cJSON_IsString(label))
			snprintf((*items)[*n].label, sizeof (*items)[*n].label, "%s", label->valuestring);
		(*n)++;
	}
	return 0;
}

static int respond_comparison(fs_req *r, fs_resp *w, long long id, int status)
{
	fs_comparison cm;
	int rc = fs_comparison_get(r->app->db, id, &r->user, &cm);
	if (rc)
		return rc;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddItemToObject(o, "comparison", comparison_json(&cm, &r->user, 1));
	fs_comparison_free(&cm);
	fs_resp_json(w, status, o);
	return 0;
}

static int h_list(fs_req *r, fs_resp *w)
{
	fs_comparison *list;
	size_t n;
	int rc = fs_comparison_list(r->app->db, &r->user, &list, &n);
	if (rc)
		return rc;
	cJSON *o = cJSON_CreateObject();
	cJSON *a = cJSON_AddArrayToObject(o, "comparisons");
	for (size_t i = 0; a && i < n; i++)
		cJSON_AddItemToArray(a, comparison_json(&list[i], &r->user, 0));
	free(list);
	fs_resp_json(w, 200, o);
	return 0;
}

static int h_create(fs_req *r, fs_resp *w)
{
	const char *name;
	int shared;
	fs_comparison_item *items;
	size_t n;
	int rc = comparison_body(r, w, 1, &name, &shared, &items, &n);
	if (rc)
		return rc > 0 ? 0 : rc;
	char err[256] = "";
	long long id;
	rc = fs_comparison_create(r->app->db, &r->user, name, shared, items, n, &id, err, sizeof err);
	free(items);
	if (rc)
		return fs_resp_db_error(r, w, rc, err, NULL);
	return respond_comparison(r, w, id, 201);
}

static int h_get(fs_req *r, fs_resp *w)
{
	int rc = respond_comparison(r, w, r->ids[0], 200);
	if (rc == FS_DB_NOTFOUND) {
		fs_resp_error(r, w, 404, "no such comparison");
		return 0;
	}
	return rc;
}

static int h_update(fs_req *r, fs_resp *w)
{
	const char *name;
	int shared;
	fs_comparison_item *items;
	size_t n;
	int rc = comparison_body(r, w, 0, &name, &shared, &items, &n);
	if (rc)
		return rc > 0 ? 0 : rc;
	char err[256] = "";
	rc = fs_comparison_update(r->app->db, r->ids[0], &r->user, name, shared, items, n, err, sizeof err);
	free(items);
	if (rc == FS_DB_NOTFOUND && !err[0])
		snprintf(err, sizeof err, "no such comparison");
	if (rc == FS_DB_FORBIDDEN)
		snprintf(err, sizeof err, "only its owner or an administrator may change this comparison");
	if (rc)
		return fs_resp_db_error(r, w, rc, err, NULL);
	return respond_comparison(r, w, r->ids[0], 200);
}

static int h_delete(fs_req *r, fs_resp *w)
{
	int rc = fs_comparison_delete(r->app->db, r->ids[0], &r->user);
	if (rc == FS_DB_NOTFOUND)
		return fs_resp_db_error(r, w, rc, "no such comparison", NULL);
	if (rc == FS_DB_FORBIDDEN)
		return fs_resp_db_error(r, w, rc, "only its owner or an administrator may delete this comparison", NULL);
	if (rc)
		return rc;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddNumberToObject(o, "deleted", (double)r->ids[0]);
	fs_resp_json(w, 200, o);
	return 0;
}

/* ---- the page ---- */

static int h_page(fs_req *r, fs_resp *w)
{
	fs_resp_page(r, w, 200, "compare.html", cJSON_CreateObject());
	return 0;
}

const fs_route fs_routes_compare[] = {
	{"GET", "/compare", h_page, FS_MEMBER, 0},
	{"GET", "/api/compare", h_compare, FS_MEMBER, 0},
	{"GET", "/api/compare/chart.svg", h_chart_svg, FS_MEMBER, 0},
	{"GET", "/api/compare/chart.png", h_chart_png, FS_MEMBER, 0},
	{"GET", "/api/compare/table.csv", h_table_csv, FS_MEMBER, 0},
	{"GET", "/api/compare/candidates", h_candidates, FS_MEMBER, 0},
	{"GET", "/api/comparisons", h_list, FS_MEMBER, 0},
	{"POST", "/api/comparisons", h_create, FS_MEMBER, 0},
	{"GET", "/api/comparisons/{id}", h_get, FS_MEMBER, 0},
	{"PATCH", "/api/comparisons/{id}", h_update, FS_MEMBER, 0},
	{"DELETE", "/api/comparisons/{id}", h_delete, FS_MEMBER, 0},
};
const size_t fs_routes_compare_n = NF(fs_routes_compare);
