/*
 * set_view.c - shared pieces of the set routes (see set_view.h).
 */
#include "routes/set_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "base/base.h"
#include "analysis/analysis.h"

int fs_set_ctx_load(fs_req *r, fs_resp *w, long long set_id, fs_set_ctx *c)
{
	int rc = fs_set_get_info(r->app->db, set_id, &c->info);
	if (rc == FS_DB_OK)
		rc = fs_image_check_access(r->app->db, c->info.image_id, &r->user, FS_ACCESS_READ, &c->image);
	if (rc == FS_DB_NOTFOUND || rc == FS_DB_FORBIDDEN) {
		/* a set of an image the user may not see does not exist for them */
		fs_resp_error(r, w, 404, "no such set");
		return 1;
	}
	if (!rc)
		rc = fs_set_view_user_stacks(r, &c->info);
	if (rc) {
		fs_resp_error(r, w, fs_http_status_for_db(rc), "could not read the set");
		return 1;
	}
	return 0;
}

int fs_set_view_user_stacks(fs_req *r, fs_set_info *info)
{
	return fs_set_user_stacks(r->app->db, info->id, r->user.id, &info->can_undo, &info->can_redo);
}

void fs_set_view_weights(fs_req *r, fs_hex_weights *wts)
{
	fs_settings_hex_weights(r->app->db, r->user.id, wts);
	struct {
		const char *name;
		double *dst;
	} q[] = {{"spacing_weight", &wts->spacing}, {"degree_weight", &wts->degree},
		 {"edge_ratio_weight", &wts->edge_ratio}};
	for (size_t i = 0; i < 3; i++) {
		const char *v = fs_kv_get(&r->query_kv, q[i].name);
		char *end;
		double d = v ? strtod(v, &end) : NAN;
		if (v && !*end && d >= 0 && d <= 1)
			*q[i].dst = d;
	}
}

static double um_of(const fs_set_ctx *c)
{
	return c->image.um_per_px > 0 ? c->image.um_per_px : 0;
}

cJSON *fs_set_view_stats(const fs_set_ctx *c, const fs_tubercle_list *t, const fs_edge_list *e,
			 const fs_hex_weights *wts, fs_stats *out_stats)
{
	fs_stats s;
	double um = um_of(c);
	if (fs_stats_compute(t, e, um > 0 ? um : 1.0, wts, c->image.width, c->image.height, &s))
		return NULL;
	if (out_stats)
		*out_stats = s;
	/* with the set's measurement_version and measurement_rule */
	cJSON *o = fs_json_summary(NULL, &s, um > 0, c->info.measurement_version);
	if (!o)
		return NULL;
	cJSON_DeleteItemFromObject(o, "image");
	cJSON_AddNumberToObject(o, "n_nodes", s.n_tubercles);
	if (um <= 0) {
		/* without a calibration the µm figures would be pixels in disguise */
		static const char *const um_fields[] = {"mean_diameter_um", "std_diameter_um", "min_diameter_um",
							"max_diameter_um", "mean_space_um", "std_space_um",
							"min_space_um", "max_space_um", "mean_center_distance_um"};
		for (size_t i = 0; i < sizeof um_fields / sizeof um_fields[0]; i++)
			if (cJSON_GetObjectItem(o, um_fields[i]))
				cJSON_ReplaceItemInObject(o, um_fields[i], cJSON_CreateNull());
		cJSON_ReplaceItemInObject(o, "suggested_genus", cJSON_CreateString("Unknown"));
		cJSON_ReplaceItemInObject(o, "classification_confidence", cJSON_CreateString("none"));
	}
	return o;
}

cJSON *fs_set_view_info(const fs_set_info *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "id", (double)s->id);
	cJSON_AddNumberToObject(o, "image_id", (double)s->image_id);
	cJSON_AddStringToObject(o, "name", s->name);
	cJSON_AddNumberToObject(o, "revision", (double)s->revision);
	cJSON_AddNumberToObject(o, "clean_revision", (double)s->clean_revision);
	cJSON_AddBoolToObject(o, "dirty", s->revision != s->clean_revision);
	cJSON_AddNumberToObject(o, "n_tubercles", s->n_tubercles);
	cJSON_AddNumberToObject(o, "n_edges", s->n_edges);
	if (s->calibration_um_per_px > 0)
		cJSON_AddNumberToObject(o, "calibration_um_per_pixel", s->calibration_um_per_px);
	else
		cJSON_AddNullToObject(o, "calibration_um_per_pixel");
	if (s->has_params)
		cJSON_AddItemToObject(o, "parameters", fs_params_to_json(&s->params));
	else
		cJSON_AddNullToObject(o, "parameters");
	cJSON_AddBoolToObject(o, "can_undo", s->can_undo);
	cJSON_AddBoolToObject(o, "can_redo", s->can_redo);
	/* the measurement that produced the diameters, and whether it is the
	 * server's (else the set offers Re-measure): a set measured by another
	 * rule than the configured one differs, older or newer */
	char vt[64];
	const char *rule = fs_measurement_rule_name(fs_measurement_rule_of_version(s->measurement_version));
	cJSON_AddNumberToObject(o, "measurement_version", s->measurement_version);
	if (rule)
		cJSON_AddStringToObject(o, "measurement_rule", rule);
	else
		cJSON_AddNullToObject(o, "measurement_rule");
	cJSON_AddStringToObject(o, "measurement",
				fs_measurement_version_text(s->measurement_version, vt, sizeof vt));
	cJSON_AddNumberToObject(o, "current_measurement_version", FS_MEASUREMENT_VERSION);
	cJSON_AddStringToObject(o, "current_measurement_rule", fs_measurement_rule_name(fs_measurement_get_rule()));
	cJSON_AddStringToObject(o, "current_measurement",
				fs_measurement_version_text(FS_MEASUREMENT_VERSION, vt, sizeof vt));
	cJSON_AddBoolToObject(o, "measurement_outdated", s->measurement_version != FS_MEASUREMENT_VERSION);
	cJSON_AddNumberToObject(o, "created_at", (double)s->created_at);
	cJSON_AddNumberToObject(o, "updated_at", (double)s->updated_at);
	return o;
}

/* Tubercles and edges are written straight to JSON text (json_write.h):
 * a set of 10,000 tubercles would spend most of its time in cJSON. The
 * cJSON forms below parse this same text, so there is one definition of
 * the fields. */

static void len_field(fs_buf *b, const char *name, double px, double um)
{
	fs_jw_key(b, name, 0);
	if (um > 0)
		fs_jw_num(b, px * um);
	else
		fs_buf_append(b, "null", 4);
}

static void num_field(fs_buf *b, const char *name, double v, int first)
{
	fs_jw_key(b, name, first);
	fs_jw_num(b, v);
}

static void tubercle_raw(fs_buf *b, const fs_tubercle *t, double um)
{
	fs_buf_putc(b, '{');
	num_field(b, "id", t->id, 1);
	num_field(b, "centroid_x", t->centroid_x, 0);
	num_field(b, "centroid_y", t->centroid_y, 0);
	num_field(b, "radius_px", t->radius_px, 0);
	num_field(b, "diameter_px", 2 * t->radius_px, 0);
	len_field(b, "diameter_um", 2 * t->radius_px, um);
	num_field(b, "circularity", fs_tubercle_circularity(t), 0); /* null: unmeasured */
	num_field(b, "fit_quality", t->fit_quality, 0); /* null: unknown */
	fs_jw_key(b, "is_boundary", 0);
	fs_buf_puts(b, t->is_boundary ? "true" : "false");
	fs_jw_key(b, "source", 0);
	fs_jw_str(b, fs_source_name(t->source));
	if (t->has_ellipse) {
		num_field(b, "major_axis_px", t->major_axis_px, 0);
		num_field(b, "minor_axis_px", t->minor_axis_px, 0);
		len_field(b, "major_axis_um", t->major_axis_px, um);
		len_field(b, "minor_axis_um", t->minor_axis_px, um);
		num_field(b, "orientation", t->orientation, 0);
		num_field(b, "eccentricity", t->eccentricity, 0);
	}
	fs_buf_putc(b, '}');
}

static const fs_tubercle *find(const fs_tubercle_list *t, int id)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) { /* loaded lists are ordered by id */
		size_t mid = (lo + hi) / 2;
		if (t->items[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n && t->items[lo].id == id ? &t->items[lo] : NULL;
}

static void edge_raw(fs_buf *b, const fs_tubercle_list *t, const fs_edge *e, double um)
{
	fs_buf_putc(b, '{');
	num_field(b, "id1", e->id1, 1);
	num_field(b, "id2", e->id2, 0);
	const fs_tubercle *a = t ? find(t, e->id1) : NULL, *c = t ? find(t, e->id2) : NULL;
	if (a && c) {
		double cd = hypot(a->centroid_x - c->centroid_x, a->centroid_y - c->centroid_y);
		double ed = cd - a->radius_px - c->radius_px;
		num_field(b, "x1", a->centroid_x, 0);
		num_field(b, "y1", a->centroid_y, 0);
		num_field(b, "x2", c->centroid_x, 0);
		num_field(b, "y2", c->centroid_y, 0);
		num_field(b, "center_distance_px", cd, 0);
		num_field(b, "edge_distance_px", ed, 0);
		len_field(b, "center_distance_um", cd, um);
		len_field(b, "edge_distance_um", ed, um);
	}
	fs_buf_putc(b, '}');
}

static cJSON *parse_raw(fs_buf *b)
{
	cJSON *o = b->data ? cJSON_ParseWithLength(b->data, b->len) : NULL;
	fs_buf_free(b);
	return o ? o : cJSON_CreateNull();
}

cJSON *fs_set_view_tubercle(const fs_tubercle *t, double um)
{
	fs_buf b = FS_BUF_INIT;
	tubercle_raw(&b, t, um);
	return parse_raw(&b);
}

cJSON *fs_set_view_edge(const fs_tubercle_list *t, const fs_edge *e, double um)
{
	fs_buf b = FS_BUF_INIT;
	edge_raw(&b, t, e, um);
	return parse_raw(&b);
}

static cJSON *image_brief(const fs_set_ctx *c)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "id", (double)c->image.id);
	cJSON_AddNumberToObject(o, "width", c->image.width);
	cJSON_AddNumberToObject(o, "height", c->image.height);
	cJSON_AddNumberToObject(o, "revision", c->image.revision); /* a rotation or crop elsewhere shows here */
	if (c->image.um_per_px > 0) {
		cJSON *cal = cJSON_AddObjectToObject(o, "calibration");
		cJSON_AddNumberToObject(cal, "um_per_px", c->image.um_per_px);
		cJSON_AddStringToObject(cal, "method", c->image.calibration_method);
	} else {
		cJSON_AddNullToObject(o, "calibration");
	}
	return o;
}

/* The column layout (?layout=columns): one array per field instead of one
 * object per row, and edges without their end points (the reader has the
 * tubercles). A 70,000-tubercle set is a quarter of the bytes, which the
 * browser parses in a quarter of the time. Non-finite values (an
 * unmeasured radius, a length without a calibration, a tubercle without a
 * fitted ellipse) are null, as in the row layout. ?layout=compact (what
 * the workspace reads) leaves out the columns that follow from the others:
 * the diameters, the lengths in µm and the edges' lengths (store.js derives
 * them), and writes a column without any value as one null: a 70,000-
 * tubercle set without ellipses is a third of the bytes and of the parse. */
typedef double (*tub_field)(const fs_tubercle *t, double um);
static double tf_id(const fs_tubercle *t, double um) { (void)um; return t->id; }
static double tf_x(const fs_tubercle *t, double um) { (void)um; return t->centroid_x; }
static double tf_y(const fs_tubercle *t, double um) { (void)um; return t->centroid_y; }
static double tf_r(const fs_tubercle *t, double um) { (void)um; return t->radius_px; }
static double tf_d(const fs_tubercle *t, double um) { (void)um; return 2 * t->radius_px; }
static double tf_d_um(const fs_tubercle *t, double um) { return um > 0 ? 2 * t->radius_px * um : NAN; }
static double tf_circ(const fs_tubercle *t, double um) { (void)um; return fs_tubercle_circularity(t); }
static double tf_fit(const fs_tubercle *t, double um) { (void)um; return t->fit_quality; }
static double tf_boundary(const fs_tubercle *t, double um) { (void)um; return t->is_boundary ? 1 : 0; }
static double tf_major(const fs_tubercle *t, double um) { (void)um; return t->has_ellipse ? t->major_axis_px : NAN; }
static double tf_minor(const fs_tubercle *t, double um) { (void)um; return t->has_ellipse ? t->minor_axis_px : NAN; }
static double tf_major_um(const fs_tubercle *t, double um) { return t->has_ellipse && um > 0 ? t->major_axis_px * um : NAN; }
static double tf_minor_um(const fs_tubercle *t, double um) { return t->has_ellipse && um > 0 ? t->minor_axis_px * um : NAN; }
static double tf_orient(const fs_tubercle *t, double um) { (void)um; return t->has_ellipse ? t->orientation : NAN; }
static double tf_ecc(const fs_tubercle *t, double um) { (void)um; return t->has_ellipse ? t->eccentricity : NAN; }

/* compact: without the columns the reader derives from the others */
static int tubercle_columns(fs_sink *out, const fs_tubercle_list *t, double um, int compact)
{
	static const struct {
		const char *name;
		tub_field get;
		int derived; /* from radius_px, the ellipse and the calibration */
	} cols[] = {{"id", tf_id, 0}, {"centroid_x", tf_x, 0}, {"centroid_y", tf_y, 0}, {"radius_px", tf_r, 0},
		    {"diameter_px", tf_d, 1}, {"diameter_um", tf_d_um, 1}, {"circularity", tf_circ, 0},
		    {"fit_quality", tf_fit, 0}, {"is_boundary", tf_boundary, 0}, {"major_axis_px", tf_major, 0},
		    {"minor_axis_px", tf_minor, 0}, {"major_axis_um", tf_major_um, 1},
		    {"minor_axis_um", tf_minor_um, 1}, {"orientation", tf_orient, 0}, {"eccentricity", tf_ecc, 0}};
	fs_buf *b = out->buf;
	int bad = fs_buf_putc(b, '{') || fs_jw_key(b, "n", 1) || fs_jw_int(b, (long long)t->n);
	for (size_t k = 0; !bad && k < sizeof cols / sizeof cols[0]; k++) {
		if (compact && cols[k].derived)
			continue;
		bad = fs_jw_key(b, cols[k].name, 0);
		if (compact) { /* a column without a value (no ellipses, no fit) is one null */
			size_t i = 0;
			while (i < t->n && !isfinite(cols[k].get(&t->items[i], um)))
				i++;
			if (i == t->n) {
				bad = bad || fs_buf_puts(b, "null");
				continue;
			}
		}
		bad = bad || fs_buf_putc(b, '[');
		for (size_t i = 0; !bad && i < t->n; i++)
			bad = (i && fs_buf_putc(b, ',')) || fs_jw_num(b, cols[k].get(&t->items[i], um)) ||
			      fs_sink_tick(out);
		bad = bad || fs_buf_putc(b, ']');
	}
	bad = bad || fs_jw_key(b, "source", 0) || fs_buf_putc(b, '[');
	for (size_t i = 0; !bad && i < t->n; i++)
		bad = (i && fs_buf_putc(b, ',')) || fs_jw_str(b, fs_source_name(t->items[i].source)) ||
		      fs_sink_tick(out);
	return bad || fs_buf_puts(b, "]}") ? -1 : 0;
}

/* compact: the end points' ids only (the lengths follow from the tubercles) */
static int edge_columns(fs_sink *out, const fs_tubercle_list *t, const fs_edge_list *e, double um, int compact)
{
	size_t n = e->n;
	if (compact) {
		fs_buf *b = out->buf;
		int bad = fs_buf_putc(b, '{') || fs_jw_key(b, "n", 1) || fs_jw_int(b, (long long)n);
		for (int k = 0; !bad && k < 2; k++) {
			bad = fs_jw_key(b, k ? "id2" : "id1", 0) || fs_buf_putc(b, '[');
			for (size_t i = 0; !bad && i < n; i++)
				bad = (i && fs_buf_putc(b, ',')) ||
				      fs_jw_int(b, k ? e->items[i].id2 : e->items[i].id1) || fs_sink_tick(out);
			bad = bad || fs_buf_putc(b, ']');
		}
		return bad || fs_buf_putc(b, '}') ? -1 : 0;
	}
	double *cd = malloc((n ? n : 1) * sizeof *cd), *ed = malloc((n ? n : 1) * sizeof *ed);
	if (!cd || !ed) {
		free(cd);
		free(ed);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const fs_tubercle *a = find(t, e->items[i].id1), *c = find(t, e->items[i].id2);
		cd[i] = ed[i] = NAN;
		if (a && c) { /* as edge_raw */
			cd[i] = hypot(a->centroid_x - c->centroid_x, a->centroid_y - c->centroid_y);
			ed[i] = cd[i] - a->radius_px - c->radius_px;
		}
	}
	fs_buf *b = out->buf;
	int bad = fs_buf_putc(b, '{') || fs_jw_key(b, "n", 1) || fs_jw_int(b, (long long)n);
	for (int k = 0; !bad && k < 6; k++) {
		static const char *const names[] = {"id1", "id2", "center_distance_px", "edge_distance_px",
						    "center_distance_um", "edge_distance_um"};
		bad = fs_jw_key(b, names[k], 0) || fs_buf_putc(b, '[');
		for (size_t i = 0; !bad && i < n; i++) {
			double v = k == 0 ? e->items[i].id1 : k == 1 ? e->items[i].id2 : k == 2 || k == 4 ? cd[i] : ed[i];
			if (k >= 4)
				v = um > 0 ? v * um : NAN;
			bad = (i && fs_buf_putc(b, ',')) || fs_jw_num(b, v) || fs_sink_tick(out);
		}
		bad = bad || fs_buf_putc(b, ']');
	}
	free(cd);
	free(ed);
	return bad || fs_buf_putc(b, '}') ? -1 : 0;
}

/* The row layout's two arrays, a row at a time. */
static int tubercle_rows(fs_sink *out, const fs_tubercle_list *t, double um)
{
	int bad = fs_buf_putc(out->buf, '[');
	for (size_t i = 0; !bad && i < t->n; i++) {
		bad = i && fs_buf_putc(out->buf, ',');
		tubercle_raw(out->buf, &t->items[i], um);
		bad = bad || fs_sink_tick(out);
	}
	return bad || fs_buf_putc(out->buf, ']') ? -1 : 0;
}

static int edge_rows(fs_sink *out, const fs_tubercle_list *t, const fs_edge_list *e, double um)
{
	int bad = fs_buf_putc(out->buf, '[');
	for (size_t i = 0; !bad && i < e->n; i++) {
		bad = i && fs_buf_putc(out->buf, ',');
		edge_raw(out->buf, t, &e->items[i], um);
		bad = bad || fs_sink_tick(out);
	}
	return bad || fs_buf_putc(out->buf, ']') ? -1 : 0;
}

fs_set_view_whole fs_set_view_prepare(fs_req *r, const fs_set_ctx *c, const fs_tubercle_list *t,
				      const fs_edge_list *e)
{
	fs_set_view_whole v = {NULL, NULL};
	fs_hex_weights wts;
	fs_set_view_weights(r, &wts);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddItemToObject(o, "set", fs_set_view_info(&c->info));
	cJSON_AddItemToObject(o, "image", image_brief(c));
	v.head = o ? cJSON_PrintUnformatted(o) : NULL;
	cJSON_Delete(o);
	cJSON *st = fs_set_view_stats(c, t, e, &wts, NULL);
	if (st) {
		v.statistics = cJSON_PrintUnformatted(st);
		cJSON_Delete(st);
	}
	return v;
}

void fs_set_view_whole_free(fs_set_view_whole *v)
{
	cJSON_free(v->head);
	cJSON_free(v->statistics);
	v->head = v->statistics = NULL;
}

int fs_set_view_write(fs_req *r, const fs_set_ctx *c, const fs_tubercle_list *t, const fs_edge_list *e,
		      const fs_set_view_whole *v, fs_sink *out)
{
	double um = um_of(c);
	const char *layout = fs_kv_get(&r->query_kv, "layout");
	int compact = layout && !strcmp(layout, "compact");
	int columns = compact || (layout && !strcmp(layout, "columns"));
	size_t hl = v->head ? strlen(v->head) : 0;
	/* the head object without its closing brace, then the arrays */
	if (hl < 2 || fs_buf_append(out->buf, v->head, hl - 1) || fs_buf_puts(out->buf, ",\"tubercles\":"))
		return -1;
	if ((columns ? tubercle_columns(out, t, um, compact) : tubercle_rows(out, t, um)) ||
	    fs_buf_puts(out->buf, ",\"edges\":") ||
	    (columns ? edge_columns(out, t, e, um, compact) : edge_rows(out, t, e, um)))
		return -1;
	if (v->statistics &&
	    (fs_buf_puts(out->buf, ",\"statistics\":") || fs_buf_puts(out->buf, v->statistics)))
		return -1;
	return fs_buf_putc(out->buf, '}') || fs_sink_end(out) ? -1 : 0;
}

/* What a change did, as JSON text (an extraction replaces thousands of
 * tubercles: no cJSON tree for those). */
static char *changed_json(const fs_set_diff *d, const fs_tubercle_list *t, double um)
{
	fs_buf b = FS_BUF_INIT;
	fs_buf_puts(&b, "{\"added\":[");
	for (size_t i = 0; i < d->added.n; i++) {
		const fs_tubercle *cur = find(t, d->added.items[i].id);
		if (i)
			fs_buf_putc(&b, ',');
		tubercle_raw(&b, cur ? cur : &d->added.items[i], um);
	}
	fs_buf_puts(&b, "],\"updated\":[");
	for (size_t i = 0; i < d->after.n; i++) {
		const fs_tubercle *cur = find(t, d->after.items[i].id);
		if (i)
			fs_buf_putc(&b, ',');
		tubercle_raw(&b, cur ? cur : &d->after.items[i], um);
	}
	fs_buf_puts(&b, "],\"removed\":[");
	for (size_t i = 0; i < d->removed.n; i++) {
		if (i)
			fs_buf_putc(&b, ',');
		fs_jw_int(&b, d->removed.items[i].id);
	}
	fs_buf_puts(&b, "],\"edges_added\":[");
	for (size_t i = 0, k = 0; i < d->edges_added.n; i++) {
		/* a connection to a tubercle a crop hides is not shown either */
		if (!find(t, d->edges_added.items[i].id1) || !find(t, d->edges_added.items[i].id2))
			continue;
		if (k++)
			fs_buf_putc(&b, ',');
		edge_raw(&b, t, &d->edges_added.items[i], um);
	}
	fs_buf_puts(&b, "],\"edges_removed\":[");
	for (size_t i = 0; i < d->edges_removed.n; i++) {
		if (i)
			fs_buf_putc(&b, ',');
		fs_buf_putc(&b, '[');
		fs_jw_int(&b, d->edges_removed.items[i].id1);
		fs_buf_putc(&b, ',');
		fs_jw_int(&b, d->edges_removed.items[i].id2);
		fs_buf_putc(&b, ']');
	}
	fs_buf_printf(&b, "],\"parameters_changed\":%s}", d->params_changed ? "true" : "false");
	return fs_buf_steal(&b);
}

int fs_set_view_change(fs_req *r, fs_resp *w, long long set_id, int rc, long long new_rev, long long cur_rev,
		       const char *err, cJSON *extra)
{
	if (rc == FS_DB_STALE) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddBoolToObject(o, "success", 0);
		cJSON_AddStringToObject(o, "error", err && *err ? err : "the set has changed: reload it");
		cJSON_AddNumberToObject(o, "revision", (double)cur_rev);
		fs_resp_json(w, 409, o);
		cJSON_Delete(extra);
		return 0;
	}
	if (rc) {
		cJSON_Delete(extra);
		return fs_resp_db_error(r, w, rc, err, "the change failed");
	}
	/* the set's row and its tubercles in one snapshot, as GET does
	 * (route_sets.c load_items): another process's edit between the two
	 * reads paired one revision with the other's tubercles */
	fs_set_ctx c;
	int snap = fs_db_begin_read(r->app->db) == FS_DB_OK;
	if (fs_set_ctx_load(r, w, set_id, &c)) {
		if (snap)
			fs_db_end_read(r->app->db);
		cJSON_Delete(extra);
		return 0;
	}
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	int lr = fs_set_load(r->app->db, set_id, &t, &e);
	if (snap)
		fs_db_end_read(r->app->db);
	if (lr) {
		cJSON_Delete(extra);
		return lr;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddNumberToObject(o, "revision", (double)new_rev);
	cJSON_AddItemToObject(o, "set", fs_set_view_info(&c.info));
	fs_set_diff d;
	int full = 1;
	if (fs_set_last_change(&d, &full) == 0) {
		if (full)
			cJSON_AddBoolToObject(o, "reload", 1);
		else {
			char *ch = changed_json(&d, &t, um_of(&c));
			cJSON_AddRawToObject(o, "changed", ch);
			free(ch);
		}
		fs_set_diff_free(&d);
	} else {
		cJSON_AddBoolToObject(o, "reload", 1);
	}
	fs_hex_weights wts;
	fs_set_view_weights(r, &wts);
	cJSON *st = fs_set_view_stats(&c, &t, &e, &wts, NULL);
	if (st)
		cJSON_AddItemToObject(o, "statistics", st);
	if (extra) {
		cJSON *it = extra->child;
		while (it) {
			cJSON *next = it->next;
			cJSON_AddItemToObject(o, it->string, cJSON_DetachItemViaPointer(extra, it));
			it = next;
		}
		cJSON_Delete(extra);
	}
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	fs_resp_json(w, 200, o);
	return 0;
}

int fs_set_view_revision(fs_req *r, fs_resp *w, long long *rev)
{
	/* the routes that read only the revision take no other key either: a
	 * misspelt one is refused, not ignored */
	static const fs_field only[] = {{"revision", FS_FIELD_INT, 0, 0, 9e15, 0, NULL}};
	fs_value v[1];
	char err[256];
	if (r->json && fs_validate_json(r->json, only, 1, v, 0, err, sizeof err)) {
		fs_resp_error(r, w, 422, "%s", err);
		return -1;
	}
	const cJSON *j = r->json ? cJSON_GetObjectItemCaseSensitive(r->json, "revision") : NULL;
	if (cJSON_IsNumber(j) && j->valuedouble >= 0 && j->valuedouble == floor(j->valuedouble) &&
	    j->valuedouble < 9e15) {
		*rev = (long long)j->valuedouble;
		return 0;
	}
	const char *q = fs_kv_get(&r->query_kv, "revision");
	if (q && *q) {
		char *end;
		long long v = strtoll(q, &end, 10);
		if (!*end && v >= 0) {
			*rev = v;
			return 0;
		}
	}
	fs_resp_error(r, w, 400, "field 'revision' (the set revision your change is based on) is required");
	return -1;
}
