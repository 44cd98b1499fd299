/*
 * route_sets.c - annotation sets: list, create, read, rename, duplicate,
 * delete; every edit as a request applied at once and stored, with the
 * revision check; undo/redo of the user's own steps, save (checkpoint),
 * revert; history and the action journal (undo of anyone's one step); extraction, connection regeneration and the gradient
 * optimiser run synchronously on the set.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/app.h"
#include "analysis/analysis.h"
#include "store/store.h"
#include "routes/routes.h"
#include "routes/set_view.h"
#include "web/web.h"

#define ERRBUF 512

static int load_ctx(fs_req *r, fs_resp *w, fs_set_ctx *c)
{
	return fs_set_ctx_load(r, w, r->ids[0], c);
}

/* The set and the revision the request was made at (body or query): 0, or
 * 1 when the answer is written. */
static int load_ctx_at(fs_req *r, fs_resp *w, fs_set_ctx *c, long long *rev)
{
	return load_ctx(r, w, c) || fs_set_view_revision(r, w, rev);
}

/* The set with its tubercles and connections (e may be NULL: tubercles
 * only); the lists are the caller's to free after 0. 0, 1 when the answer
 * is written (no such set), or a storage error (negative). One snapshot:
 * an edit or a job's result committed by another process between reading
 * the set's row and its tubercles paired the old revision with the new
 * tubercles (test_set_get_snapshot). */
static int load_items(fs_req *r, fs_resp *w, fs_set_ctx *c, fs_tubercle_list *t, fs_edge_list *e)
{
	int snap = fs_db_begin_read(r->app->db) == FS_DB_OK;
	int rc = load_ctx(r, w, c) ? 1 : fs_set_load(r->app->db, c->info.id, t, e);
	if (snap)
		fs_db_end_read(r->app->db);
	return rc;
}

static void data_dir(fs_req *r, char *out, size_t n)
{
	fs_app_data_path(r->app, "", out, n);
}

/* An event-log entry whose details are number fields: pairs of (name,
 * double), ended by NULL. */
static void log_nums(fs_req *r, long long image_id, const char *type, ...)
{
	cJSON *d = cJSON_CreateObject();
	va_list ap;
	va_start(ap, type);
	for (const char *k = va_arg(ap, const char *); k; k = va_arg(ap, const char *))
		cJSON_AddNumberToObject(d, k, va_arg(ap, double));
	va_end(ap);
	fs_event_log(r->app->db, r->user.id, image_id, type, d);
	cJSON_Delete(d);
}

/* ---- sets of an image ---- */

/* 0 when the user may see the image; otherwise writes 404 and returns 1
 * (or a storage error code, negative). */
static int image_visible(fs_req *r, fs_resp *w, long long image_id)
{
	int rc = fs_image_check_access(r->app->db, image_id, &r->user, FS_ACCESS_READ, NULL);
	if (rc == FS_DB_NOTFOUND || rc == FS_DB_FORBIDDEN) {
		fs_resp_error(r, w, 404, "no such image");
		return 1;
	}
	return rc;
}

/* 200 {success: true, <key>: arr}; takes arr (NULL is a storage error). */
static int respond_array(fs_resp *w, const char *key, cJSON *arr)
{
	if (!arr)
		return FS_DB_ERROR;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddItemToObject(o, key, arr);
	fs_resp_json(w, 200, o);
	return 0;
}

/* 201 with the new set's info. */
static int respond_new_set(fs_req *r, fs_resp *w, long long sid)
{
	fs_set_info info;
	int rc = fs_set_get_info(r->app->db, sid, &info);
	if (!rc)
		rc = fs_set_view_user_stacks(r, &info);
	if (rc)
		return rc;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddItemToObject(o, "set", fs_set_view_info(&info));
	fs_resp_json(w, 201, o);
	return 0;
}

static int h_list(fs_req *r, fs_resp *w)
{
	int rc = image_visible(r, w, r->ids[0]);
	if (rc)
		return rc > 0 ? 0 : rc;
	fs_set_info *list;
	size_t n;
	if ((rc = fs_set_list(r->app->db, r->ids[0], &list, &n)))
		return rc;
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++) {
		fs_set_view_user_stacks(r, &list[i]);
		cJSON_AddItemToArray(a, fs_set_view_info(&list[i]));
	}
	free(list);
	return respond_array(w, "sets", a);
}

static int h_create(fs_req *r, fs_resp *w)
{
	static const fs_field f[] = {
		{"name", FS_FIELD_STRING, 1, 0, 0, 256, NULL},
		{"copy_from", FS_FIELD_ID, 0, 0, 0, 0, NULL},
	};
	fs_value v[2];
	if (fs_req_body_fields(r, w, f, 2, v, 0))
		return 0;
	int rc = image_visible(r, w, r->ids[0]);
	if (rc)
		return rc > 0 ? 0 : rc;
	char err[ERRBUF] = "";
	long long sid;
	if (v[1].present) {
		fs_set_info src;
		rc = fs_set_get_info(r->app->db, v[1].i, &src);
		if (rc == FS_DB_OK && src.image_id != r->ids[0])
			rc = FS_DB_NOTFOUND;
		if (rc == FS_DB_NOTFOUND) {
			fs_resp_error(r, w, 404, "no set %lld on this image to copy from", v[1].i);
			return 0;
		}
		if (!rc)
			rc = fs_set_duplicate(r->app->db, v[1].i, v[0].s, r->user.id, &sid, err, sizeof err);
	} else {
		rc = fs_set_create(r->app->db, r->ids[0], v[0].s, r->user.id, &sid, err, sizeof err);
	}
	if (rc)
		return fs_resp_db_error(r, w, rc, err, NULL);
	return respond_new_set(r, w, sid);
}

/* ---- one set ---- */

static int h_get(fs_req *r, fs_resp *w)
{
	fs_set_ctx c;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	int rc = load_items(r, w, &c, &t, &e);
	if (rc)
		return rc > 0 ? 0 : rc;
	fs_set_view_whole v = fs_set_view_prepare(r, &c, &t, &e);
	if (!v.head) {
		fs_tubercle_list_free(&t);
		fs_edge_list_free(&e);
		return FS_DB_ERROR;
	}
	/* streamed (http.h): 70,000 tubercles are tens of MB of JSON */
	fs_resp_header(w, "Cache-Control", "no-store");
	fs_sink *out = fs_resp_stream_begin(r, w, 200, "application/json");
	fs_resp_stream_end(w, w->head_only ? 0 : fs_set_view_write(r, &c, &t, &e, &v, out));
	fs_set_view_whole_free(&v);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	return 0;
}

/* Cheap polling: two integers, no set load. */
static int h_revision(fs_req *r, fs_resp *w)
{
	fs_set_ctx c;
	if (load_ctx(r, w, &c))
		return 0;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddNumberToObject(o, "revision", (double)c.info.revision);
	cJSON_AddBoolToObject(o, "dirty", c.info.revision != c.info.clean_revision);
	fs_resp_header(w, "Cache-Control", "no-store");
	fs_resp_json(w, 200, o);
	return 0;
}

static int h_statistics(fs_req *r, fs_resp *w)
{
	fs_set_ctx c;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	int rc = load_items(r, w, &c, &t, &e);
	if (rc)
		return rc > 0 ? 0 : rc;
	fs_hex_weights wts;
	fs_set_view_weights(r, &wts);
	cJSON *st = fs_set_view_stats(&c, &t, &e, &wts, NULL);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", st != NULL);
	cJSON_AddItemToObject(o, "statistics", st ? st : cJSON_CreateNull());
	cJSON *wj = cJSON_AddObjectToObject(o, "weights");
	cJSON_AddNumberToObject(wj, "spacing_weight", wts.spacing);
	cJSON_AddNumberToObject(wj, "degree_weight", wts.degree);
	cJSON_AddNumberToObject(wj, "edge_ratio_weight", wts.edge_ratio);
	fs_resp_json(w, 200, o);
	return 0;
}

static int h_rename(fs_req *r, fs_resp *w)
{
	static const fs_field f[] = {
		{"revision", FS_FIELD_INT, 1, 0, 9e15, 0, NULL},
		{"name", FS_FIELD_STRING, 1, 0, 0, 256, NULL},
	};
	fs_value v[2];
	fs_set_ctx c;
	if (fs_req_body_fields(r, w, f, 2, v, 0) || load_ctx(r, w, &c))
		return 0;
	char err[ERRBUF] = "";
	long long cur = 0;
	int rc = fs_set_rename(r->app->db, c.info.id, v[0].i, v[1].s, r->user.id, &cur, err, sizeof err);
	if (rc == FS_DB_STALE || rc == FS_DB_BUSY || rc == FS_DB_OK)
		return fs_set_view_change(r, w, c.info.id, rc, cur, cur, err, NULL);
	fs_resp_error(r, w, fs_http_status_for_db(rc), "%s", err);
	return 0;
}

static int h_duplicate(fs_req *r, fs_resp *w)
{
	static const fs_field f[] = {{"name", FS_FIELD_STRING, 1, 0, 0, 256, NULL}};
	fs_value v[1];
	fs_set_ctx c;
	if (fs_req_body_fields(r, w, f, 1, v, 0) || load_ctx(r, w, &c))
		return 0;
	char err[ERRBUF] = "";
	long long sid;
	int rc = fs_set_duplicate(r->app->db, c.info.id, v[0].s, r->user.id, &sid, err, sizeof err);
	if (rc)
		return fs_resp_db_error(r, w, rc, err, NULL);
	return respond_new_set(r, w, sid);
}

static int h_delete(fs_req *r, fs_resp *w)
{
	fs_set_ctx c;
	long long rev;
	if (load_ctx_at(r, w, &c, &rev))
		return 0;
	char err[ERRBUF] = "";
	long long cur = 0;
	int rc = fs_set_delete(r->app->db, c.info.id, rev, &cur, err, sizeof err);
	if (rc == FS_DB_STALE)
		return fs_set_view_change(r, w, c.info.id, rc, 0, cur, err, NULL);
	if (rc)
		return fs_resp_db_error(r, w, rc, err, NULL);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddNumberToObject(o, "deleted", (double)c.info.id);
	fs_resp_json(w, 200, o);
	return 0;
}

/* ---- edits ---- */

static double default_radius(fs_req *r, const fs_set_ctx *c)
{
	cJSON *s = NULL;
	double r_px = 0;
	if (c->image.um_per_px > 0 && fs_settings_get(r->app->db, r->user.id, &s) == FS_DB_OK && s) {
		const cJSON *d = cJSON_GetObjectItem(s, "default_tubercle_diameter_um");
		if (cJSON_IsNumber(d) && d->valuedouble > 0)
			r_px = d->valuedouble / 2 / c->image.um_per_px;
	}
	cJSON_Delete(s);
	if (r_px > 0)
		return r_px;
	fs_tubercle_list t = {0};
	if (fs_set_load(r->app->db, c->info.id, &t, NULL) == FS_DB_OK && t.n) {
		double sum = 0;
		size_t n = 0;
		for (size_t i = 0; i < t.n; i++)
			if (fs_tubercle_measured(&t.items[i])) {
				sum += t.items[i].radius_px;
				n++;
			}
		r_px = n ? sum / (double)n : 0;
	}
	fs_tubercle_list_free(&t);
	return r_px > 0 ? r_px : 10;
}

static int current_params(const fs_set_ctx *c, fs_params *p)
{
	if (c->info.has_params)
		*p = c->info.params;
	else
		fs_params_default(p);
	return 0;
}

/* Whether (x, y) lies outside the image's scale region (a person's
 * correction, else the automatic one; scale_regions.h). Auto-size reads
 * no tubercle there (issue 13 section 3: every consumer uses the region;
 * a dome's size read on paper or a surround is no tubercle's, and
 * Re-measure leaves such a centre unmeasured, measurement.h). 0 when the
 * region cannot be had: the point is then analysed as before. */
static int point_outside_region(fs_req *r, const fs_set_ctx *c, const fs_image *img, double x, double y)
{
	fs_scale_region reg;
	char err[ERRBUF];
	if (fs_scale_region_for(r->app->db, c->image.id, c->image.work_key, img, &reg, NULL, err, sizeof err) !=
	    FS_DB_OK)
		return 0;
	int out = !fs_scale_region_contains(&reg, x, y);
	fs_scale_region_free(&reg);
	return out;
}

static int h_add_tubercle(fs_req *r, fs_resp *w)
{
	static const char *const sources[] = {"manual", "extracted", "lattice", "agent", NULL};
	static const fs_field f[] = {
		{"revision", FS_FIELD_INT, 1, 0, 9e15, 0, NULL},
		{"x", FS_FIELD_DOUBLE, 1, -1e6, 1e6, 0, NULL},
		{"y", FS_FIELD_DOUBLE, 1, -1e6, 1e6, 0, NULL},
		{"radius_px", FS_FIELD_DOUBLE, 0, 0.1, 1e4, 0, NULL},
		{"auto_size", FS_FIELD_BOOL, 0, 0, 0, 0, NULL},
		{"region_factor", FS_FIELD_DOUBLE, 0, 1, 10, 0, NULL},
		{"source", FS_FIELD_ENUM, 0, 0, 0, 0, sources},
	};
	fs_value v[7];
	fs_set_ctx c;
	if (fs_req_body_fields(r, w, f, 7, v, 0) || load_ctx(r, w, &c))
		return 0;
	if (v[1].d < 0 || v[2].d < 0 || v[1].d >= c.image.width || v[2].d >= c.image.height) {
		fs_resp_error(r, w, 422, "the point (%.1f, %.1f) is outside the %dx%d image", v[1].d, v[2].d,
			      c.image.width, c.image.height);
		return 0;
	}
	fs_tubercle t;
	fs_tubercle_init(&t);
	t.centroid_x = v[1].d;
	t.centroid_y = v[2].d;
	t.circularity = 1;
	t.source = v[6].present ? (fs_source)v[6].i : FS_SOURCE_MANUAL;
	t.radius_px = v[3].present ? v[3].d : 0;
	cJSON *extra = cJSON_CreateObject();
	if (v[4].present && v[4].b) {
		char dd[1200], err[ERRBUF];
		data_dir(r, dd, sizeof dd);
		/* compact: the point's analysis converts only its region (image.h) */
		fs_image *img = fs_image_load_work_compact(dd, &c.image, err, sizeof err);
		if (!img) {
			cJSON_Delete(extra);
			fs_resp_error(r, w, 500, "cannot read the image: %s", err);
			return 0;
		}
		fs_params p;
		current_params(&c, &p);
		fs_point_result pr;
		int rc = 0;
		if (point_outside_region(r, &c, img, t.centroid_x, t.centroid_y)) {
			memset(&pr, 0, sizeof pr);
			snprintf(pr.reason, sizeof pr.reason, "outside_scale_region");
			pr.region_x = (int)t.centroid_x;
			pr.region_y = (int)t.centroid_y;
		} else {
			rc = fs_analyze_point(img, &p, c.image.um_per_px > 0 ? c.image.um_per_px : 0, t.centroid_x,
					      t.centroid_y, v[5].present ? v[5].d : 3.0, &pr, err, sizeof err);
		}
		fs_image_free(img);
		if (rc) {
			cJSON_Delete(extra);
			fs_resp_error(r, w, 422, "%s", err);
			return 0;
		}
		cJSON *ar = cJSON_AddObjectToObject(extra, "analysis");
		cJSON_AddBoolToObject(ar, "found", pr.found);
		cJSON *reg = cJSON_AddObjectToObject(ar, "region");
		cJSON_AddNumberToObject(reg, "x", pr.region_x);
		cJSON_AddNumberToObject(reg, "y", pr.region_y);
		cJSON_AddNumberToObject(reg, "width", pr.region_w);
		cJSON_AddNumberToObject(reg, "height", pr.region_h);
		if (!pr.found) {
			cJSON_AddStringToObject(ar, "reason", pr.reason);
		} else {
			fs_source src = t.source;
			t = pr.tubercle;
			t.source = src;
		}
	}
	if (t.radius_px <= 0)
		t.radius_px = default_radius(r, &c);
	char err[ERRBUF] = "";
	long long nrev = 0, cur = 0;
	int tid = 0;
	int rc = fs_set_add_tubercle(r->app->db, c.info.id, v[0].i, r->user.id, &t, 0, &tid, &nrev, &cur, err,
				     sizeof err);
	if (!rc) {
		cJSON_AddNumberToObject(extra, "id", tid);
		cJSON *d = cJSON_CreateObject();
		cJSON_AddNumberToObject(d, "id", tid);
		cJSON_AddNumberToObject(d, "x", t.centroid_x);
		cJSON_AddNumberToObject(d, "y", t.centroid_y);
		cJSON_AddNumberToObject(d, "radius", t.radius_px);
		cJSON_AddBoolToObject(d, "autoSized", v[4].present && v[4].b);
		cJSON_AddNumberToObject(d, "set_id", (double)c.info.id);
		fs_event_log(r->app->db, r->user.id, c.image.id, "edit_add_tub", d);
		cJSON_Delete(d);
	}
	return fs_set_view_change(r, w, c.info.id, rc, nrev, cur, err, extra);
}

static int h_update_tubercle(fs_req *r, fs_resp *w)
{
	static const fs_field f[] = {
		{"revision", FS_FIELD_INT, 1, 0, 9e15, 0, NULL},
		{"x", FS_FIELD_DOUBLE, 0, -1e6, 1e6, 0, NULL},
		{"y", FS_FIELD_DOUBLE, 0, -1e6, 1e6, 0, NULL},
		{"radius_px", FS_FIELD_DOUBLE, 0, 0.1, 1e4, 0, NULL},
	};
	fs_value v[4];
	fs_set_ctx c;
	if (fs_req_body_fields(r, w, f, 4, v, 0) || load_ctx(r, w, &c))
		return 0;
	int tid = (int)r->ids[1];
	fs_tubercle_list all = {0};
	int rc = fs_set_load(r->app->db, c.info.id, &all, NULL);
	if (rc)
		return rc;
	fs_tubercle t;
	int found = 0;
	for (size_t i = 0; i < all.n; i++)
		if (all.items[i].id == tid) {
			t = all.items[i];
			found = 1;
		}
	fs_tubercle_list_free(&all);
	if (!found) {
		fs_resp_error(r, w, 404, "no tubercle #%d in this set", tid);
		return 0;
	}
	fs_tubercle before = t;
	if (v[1].present)
		t.centroid_x = v[1].d;
	if (v[2].present)
		t.centroid_y = v[2].d;
	if (v[3].present) {
		t.radius_px = v[3].d;
		t.has_ellipse = 0;
	}
	if (!v[1].present && !v[2].present && !v[3].present) {
		fs_resp_error(r, w, 422, "give x and y to move, radius_px to resize");
		return 0;
	}
	int moved = v[1].present || v[2].present;
	char err[ERRBUF] = "";
	long long nrev = 0, cur = 0;
	rc = fs_set_update_tubercle(r->app->db, c.info.id, v[0].i, r->user.id, tid, &t,
				    moved ? "move_tubercle" : "resize_tubercle", 0, &nrev, &cur, err, sizeof err);
	if (!rc && moved) {
		cJSON *d = cJSON_CreateObject();
		cJSON_AddNumberToObject(d, "id", tid);
		cJSON *from = cJSON_AddArrayToObject(d, "from");
		cJSON_AddItemToArray(from, cJSON_CreateNumber(before.centroid_x));
		cJSON_AddItemToArray(from, cJSON_CreateNumber(before.centroid_y));
		cJSON *to = cJSON_AddArrayToObject(d, "to");
		cJSON_AddItemToArray(to, cJSON_CreateNumber(t.centroid_x));
		cJSON_AddItemToArray(to, cJSON_CreateNumber(t.centroid_y));
		fs_event_log(r->app->db, r->user.id, c.image.id, "edit_move_tub", d);
		cJSON_Delete(d);
	}
	return fs_set_view_change(r, w, c.info.id, rc, nrev, cur, err, NULL);
}

static int h_delete_tubercle(fs_req *r, fs_resp *w)
{
	fs_set_ctx c;
	long long rev;
	if (load_ctx_at(r, w, &c, &rev))
		return 0;
	int tid = (int)r->ids[1];
	char err[ERRBUF] = "";
	long long nrev = 0, cur = 0;
	int rc = fs_set_delete_items(r->app->db, c.info.id, rev, r->user.id, &tid, 1, NULL, 0, "delete_tubercle", 0,
				     &nrev, &cur, err, sizeof err);
	if (rc == FS_DB_INVALID && strstr(err, "no tubercle")) {
		fs_resp_error(r, w, 404, "%s", err);
		return 0;
	}
	if (!rc) {
		log_nums(r, c.image.id, "edit_delete_tub", "id", (double)(tid), NULL);
	}
	return fs_set_view_change(r, w, c.info.id, rc, nrev, cur, err, NULL);
}

static int h_add_edge(fs_req *r, fs_resp *w)
{
	static const fs_field f[] = {
		{"revision", FS_FIELD_INT, 1, 0, 9e15, 0, NULL},
		{"id1", FS_FIELD_ID, 1, 0, 0, 0, NULL},
		{"id2", FS_FIELD_ID, 1, 0, 0, 0, NULL},
	};
	fs_value v[3];
	fs_set_ctx c;
	if (fs_req_body_fields(r, w, f, 3, v, 0) || load_ctx(r, w, &c))
		return 0;
	if (v[1].i == v[2].i || v[1].i > 2000000000 || v[2].i > 2000000000) {
		fs_resp_error(r, w, 422, "a connection joins two different tubercles");
		return 0;
	}
	char err[ERRBUF] = "";
	long long nrev = 0, cur = 0;
	int rc = fs_set_add_edge(r->app->db, c.info.id, v[0].i, r->user.id, (int)v[1].i, (int)v[2].i, 0, &nrev, &cur,
				 err, sizeof err);
	if (!rc) {
		log_nums(r, c.image.id, "edit_add_itc", "id1", (double)v[1].i, "id2", (double)v[2].i, NULL);
	}
	return fs_set_view_change(r, w, c.info.id, rc, nrev, cur, err, NULL);
}

static int h_delete_edge(fs_req *r, fs_resp *w)
{
	fs_set_ctx c;
	long long rev;
	if (load_ctx_at(r, w, &c, &rev))
		return 0;
	if (r->ids[1] > 2000000000 || r->ids[2] > 2000000000) {
		fs_resp_error(r, w, 404, "no such connection");
		return 0;
	}
	fs_edge e = {(int)r->ids[1], (int)r->ids[2]};
	char err[ERRBUF] = "";
	long long nrev = 0, cur = 0;
	int rc = fs_set_delete_items(r->app->db, c.info.id, rev, r->user.id, NULL, 0, &e, 1, "delete_connection", 0,
				     &nrev, &cur, err, sizeof err);
	if (rc == FS_DB_INVALID && strstr(err, "no connection")) {
		fs_resp_error(r, w, 404, "%s", err);
		return 0;
	}
	if (!rc) {
		log_nums(r, c.image.id, "edit_delete_itc", "id1", (double)(e.id1), "id2", (double)(e.id2), NULL);
	}
	return fs_set_view_change(r, w, c.info.id, rc, nrev, cur, err, NULL);
}

/* Reads an array of positive ids (at most max) from the body. */
static int id_array(fs_req *r, fs_resp *w, const char *name, int **out, size_t *n, size_t max)
{
	*out = NULL;
	*n = 0;
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(r->json, name);
	if (!a)
		return 0;
	if (!cJSON_IsArray(a) || (size_t)cJSON_GetArraySize(a) > max) {
		fs_resp_error(r, w, 422, "'%s' must be an array of at most %zu tubercle ids", name, max);
		return -1;
	}
	*out = malloc(((size_t)cJSON_GetArraySize(a) + 1) * sizeof **out);
	if (!*out) {
		/* (answered here too: the caller cannot tell this -1 from a refusal) */
		fs_resp_error(r, w, 500, "out of memory");
		return -1;
	}
	const cJSON *it;
	cJSON_ArrayForEach(it, a)
	{
		if (!cJSON_IsNumber(it) || it->valuedouble < 1 || it->valuedouble > 2e9 ||
		    it->valuedouble != floor(it->valuedouble)) {
			free(*out);
			*out = NULL;
			fs_resp_error(r, w, 422, "'%s' must hold positive integer ids", name);
			return -1;
		}
		(*out)[(*n)++] = (int)it->valuedouble;
	}
	return 0;
}

static int h_delete_many(fs_req *r, fs_resp *w)
{
	/* every key declared, so a misspelt one is refused instead of ignored;
	 * the arrays' items are checked below */
	static const fs_field f[] = {
		{"revision", FS_FIELD_INT, 1, 0, 9e15, 0, NULL},
		{"tubercles", FS_FIELD_ARRAY, 0, 0, 0, 0, NULL},
		{"edges", FS_FIELD_ARRAY, 0, 0, 0, 0, NULL},
	};
	fs_value v[3];
	fs_set_ctx c;
	if (fs_req_body_fields(r, w, f, 3, v, 0) || load_ctx(r, w, &c))
		return 0;
	int *tids = NULL;
	size_t nt = 0;
	if (id_array(r, w, "tubercles", &tids, &nt, 1000000))
		return 0;
	const cJSON *ea = cJSON_GetObjectItemCaseSensitive(r->json, "edges");
	fs_edge_list edges = {0};
	if (ea) {
		const cJSON *it;
		int bad = !cJSON_IsArray(ea);
		cJSON_ArrayForEach(it, ea)
		{
			const cJSON *a = cJSON_GetArrayItem(it, 0), *b = cJSON_GetArrayItem(it, 1);
			if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2 || !cJSON_IsNumber(a) || !cJSON_IsNumber(b) ||
			    a->valuedouble < 1 || b->valuedouble < 1 || a->valuedouble > 2e9 || b->valuedouble > 2e9) {
				bad = 1;
				break;
			}
			fs_edge e = {(int)a->valuedouble, (int)b->valuedouble};
			if (fs_edge_list_append(&edges, &e)) {
				/* (not a smaller deletion than asked: dispatch answers 500) */
				free(tids);
				fs_edge_list_free(&edges);
				return -1;
			}
		}
		if (bad) {
			free(tids);
			fs_edge_list_free(&edges);
			fs_resp_error(r, w, 422, "'edges' must be an array of [id1, id2] pairs");
			return 0;
		}
	}
	char err[ERRBUF] = "";
	long long nrev = 0, cur = 0;
	int rc = fs_set_delete_items(r->app->db, c.info.id, v[0].i, r->user.id, tids, nt, edges.items, edges.n,
				     "delete_multi", 0, &nrev, &cur, err, sizeof err);
	if (!rc) {
		log_nums(r, c.image.id, "edit_delete_multi", "tubCount", (double)nt, "edgeCount", (double)edges.n, NULL);
	}
	free(tids);
	fs_edge_list_free(&edges);
	return fs_set_view_change(r, w, c.info.id, rc, nrev, cur, err, NULL);
}

static int h_clear(fs_req *r, fs_resp *w)
{
	fs_set_ctx c;
	long long rev;
	if (load_ctx_at(r, w, &c, &rev))
		return 0;
	char err[ERRBUF] = "";
	long long nrev = 0, cur = 0;
	int rc = fs_set_delete_items(r->app->db, c.info.id, rev, r->user.id, NULL, 0, NULL, 0, "clear_all", 0, &nrev,
				     &cur, err, sizeof err);
	if (!rc) {
		log_nums(r, c.image.id, "edit_clear_all", "tubCount", (double)(c.info.n_tubercles), "edgeCount", (double)(c.info.n_edges), NULL);
	}
	return fs_set_view_change(r, w, c.info.id, rc, nrev, cur, err, NULL);
}

static int h_radius(fs_req *r, fs_resp *w)
{
	static const fs_field f[] = {
		{"revision", FS_FIELD_INT, 1, 0, 9e15, 0, NULL},
		{"radius_px", FS_FIELD_DOUBLE, 1, 0.1, 1e4, 0, NULL},
		{"tubercles", FS_FIELD_ARRAY, 0, 0, 0, 0, NULL},
	};
	fs_value v[3];
	fs_set_ctx c;
	if (fs_req_body_fields(r, w, f, 3, v, 0) || load_ctx(r, w, &c))
		return 0;
	int *tids = NULL;
	size_t nt = 0;
	if (id_array(r, w, "tubercles", &tids, &nt, 1000000))
		return 0;
	char err[ERRBUF] = "";
	long long nrev = 0, cur = 0;
	int rc = fs_set_set_radius(r->app->db, c.info.id, v[0].i, r->user.id, tids, nt, v[1].d, &nrev, &cur, err,
				   sizeof err);
	free(tids);
	return fs_set_view_change(r, w, c.info.id, rc, nrev, cur, err, NULL);
}

/* ---- undo / redo / save / revert ---- */

typedef int (*rev_op)(fs_db *, long long, long long, long long, long long *, long long *, char *, size_t);

static int simple_op(fs_req *r, fs_resp *w, rev_op op, const char *event)
{
	fs_set_ctx c;
	long long rev;
	if (load_ctx_at(r, w, &c, &rev))
		return 0;
	char err[ERRBUF] = "";
	long long nrev = 0, cur = 0;
	int rc = op(r->app->db, c.info.id, rev, r->user.id, &nrev, &cur, err, sizeof err);
	if (!rc && event) {
		cJSON *d = cJSON_CreateObject();
		cJSON_AddNumberToObject(d, "set_id", (double)c.info.id);
		fs_event_log(r->app->db, r->user.id, c.image.id, event, d);
		cJSON_Delete(d);
	}
	return fs_set_view_change(r, w, c.info.id, rc, nrev, cur, err, NULL);
}

static int h_undo(fs_req *r, fs_resp *w)
{
	return simple_op(r, w, fs_set_undo, "edit_undo");
}

static int h_redo(fs_req *r, fs_resp *w)
{
	return simple_op(r, w, fs_set_redo, "edit_redo");
}

static int h_revert(fs_req *r, fs_resp *w)
{
	return simple_op(r, w, fs_set_revert, "edit_revert");
}

static int h_save(fs_req *r, fs_resp *w)
{
	fs_set_ctx c;
	long long rev;
	if (load_ctx_at(r, w, &c, &rev))
		return 0;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	int rc = fs_set_load(r->app->db, c.info.id, &t, &e);
	if (rc)
		return rc;
	fs_hex_weights wts;
	fs_set_view_weights(r, &wts);
	fs_stats s;
	memset(&s, 0, sizeof s);
	fs_stats_compute(&t, &e, c.image.um_per_px > 0 ? c.image.um_per_px : 1, &wts, c.image.width,
			 c.image.height, &s);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	char err[ERRBUF] = "";
	long long cur = 0;
	rc = fs_set_checkpoint(r->app->db, c.info.id, rev, r->user.id, r->user.display_name, s.hexagonalness_score,
			       &cur, err, sizeof err);
	if (!rc) {
		cJSON *d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "filename", c.image.original_name);
		cJSON_AddNumberToObject(d, "n_tubercles", s.n_tubercles);
		cJSON_AddNumberToObject(d, "n_edges", s.n_edges);
		cJSON_AddNumberToObject(d, "set_id", (double)c.info.id);
		fs_event_log(r->app->db, r->user.id, c.image.id, "annotations_saved", d);
		cJSON_Delete(d);
		/* a save changes no tubercle: say so rather than repeat the last edit */
		cJSON *o = cJSON_CreateObject();
		cJSON_AddBoolToObject(o, "success", 1);
		cJSON_AddNumberToObject(o, "revision", (double)cur);
		fs_set_info info;
		if (fs_set_get_info(r->app->db, c.info.id, &info) == FS_DB_OK &&
		    fs_set_view_user_stacks(r, &info) == FS_DB_OK)
			cJSON_AddItemToObject(o, "set", fs_set_view_info(&info));
		fs_resp_json(w, 200, o);
		return 0;
	}
	return fs_set_view_change(r, w, c.info.id, rc, 0, cur, err, NULL);
}

static int h_history(fs_req *r, fs_resp *w)
{
	fs_set_ctx c;
	if (load_ctx(r, w, &c))
		return 0;
	return respond_array(w, "history", fs_history_list(r->app->db, c.info.id, 1000));
}

/* The parameters of an extraction event, for the form (nothing changes). */
static int h_history_params(fs_req *r, fs_resp *w)
{
	fs_set_ctx c;
	if (load_ctx(r, w, &c))
		return 0;
	cJSON *ev;
	int rc = fs_history_get(r->app->db, c.info.id, r->ids[1], &ev);
	if (rc == FS_DB_NOTFOUND) {
		fs_resp_error(r, w, 404, "no such history event in this set");
		return 0;
	}
	if (rc)
		return rc;
	cJSON *p = cJSON_DetachItemFromObject(ev, "parameters");
	cJSON_Delete(ev);
	if (!cJSON_IsObject(p)) {
		cJSON_Delete(p);
		fs_resp_error(r, w, 422, "that event has no parameters");
		return 0;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddItemToObject(o, "parameters", p);
	fs_resp_json(w, 200, o);
	return 0;
}

static int h_journal(fs_req *r, fs_resp *w)
{
	fs_set_ctx c;
	if (load_ctx(r, w, &c))
		return 0;
	return respond_array(w, "actions", fs_set_journal_for(r->app->db, c.info.id, FS_UNDO_KEEP, r->user.id));
}

static int h_journal_undo(fs_req *r, fs_resp *w)
{
	fs_set_ctx c;
	if (load_ctx(r, w, &c))
		return 0;
	char err[ERRBUF] = "";
	long long nrev = 0;
	int rc = fs_set_undo_op(r->app->db, c.info.id, r->ids[1], r->user.id, &nrev, err, sizeof err);
	if (rc == FS_DB_NOTFOUND) {
		fs_resp_error(r, w, 404, "%s", err);
		return 0;
	}
	return fs_set_view_change(r, w, c.info.id, rc, nrev, nrev, err, NULL);
}

/* ---- extraction, connections, optimiser ---- */

/* Detection inside the image's scale region (a person's correction when
 * there is one, else the automatic region, cached: scale_regions.h). */
static int run_extraction(fs_db *db, const fs_image_rec *rec, const fs_image *img, const fs_params *p, double um,
			  fs_tubercle_list *t, fs_edge_list *e, char *err, size_t errlen)
{
	fs_detect_result dr;
	fs_scale_region reg;
	memset(&dr, 0, sizeof dr);
	int have = fs_scale_region_for(db, rec->id, rec->work_key, img, &reg, NULL, err, errlen) == FS_DB_OK;
	int drc = fs_detect_in_region(img, p, um, have ? &reg : NULL, &dr, err, errlen);
	if (have)
		fs_scale_region_free(&reg);
	if (drc)
		return -1;
	*t = dr.tubercles;
	memset(&dr.tubercles, 0, sizeof dr.tubercles);
	fs_detect_result_free(&dr);
	if (fs_graph_build(t, p->neighbor_graph, p->cull_long_edges, p->cull_factor, e, err, errlen)) {
		fs_tubercle_list_free(t);
		return -1;
	}
	return 0;
}

static int params_from_body(fs_req *r, fs_resp *w, const fs_set_ctx *c, const char *field, fs_params *p)
{
	current_params(c, p);
	const cJSON *pj = cJSON_GetObjectItemCaseSensitive(r->json, field);
	if (!pj)
		return 0;
	char err[ERRBUF];
	if (fs_params_from_json(p, pj, 0, err, sizeof err)) {
		fs_resp_error(r, w, 422, "%s", err);
		return -1;
	}
	return 0;
}

/* The parameters of a request body object that method m does not use:
 * [{name, reason}] (they were accepted, and change nothing). */
static cJSON *not_used_json(const cJSON *given, fs_method m)
{
	cJSON *a = cJSON_CreateArray();
	const cJSON *it;
	cJSON_ArrayForEach(it, given)
	{
		const char *why = NULL;
		if (it->string && fs_param_used_by(m, it->string, &why) == 0) {
			cJSON *u = cJSON_CreateObject();
			cJSON_AddStringToObject(u, "name", it->string);
			cJSON_AddStringToObject(u, "reason", why ? why : "");
			cJSON_AddItemToArray(a, u);
		}
	}
	return a;
}

/* The working image as floats, or compact (image.h) for a consumer that
 * reads either storage; NULL with the error answered. */
static fs_image *work_image_as(fs_req *r, fs_resp *w, const fs_set_ctx *c, int compact)
{
	char dd[1200], err[ERRBUF];
	data_dir(r, dd, sizeof dd);
	fs_image *img = compact ? fs_image_load_work_compact(dd, &c->image, err, sizeof err)
				: fs_image_load_work(dd, &c->image, err, sizeof err);
	if (!img)
		fs_resp_error(r, w, 500, "cannot read the image: %s", err);
	return img;
}

static fs_image *work_image(fs_req *r, fs_resp *w, const fs_set_ctx *c)
{
	return work_image_as(r, w, c, 0);
}

static int h_extract(fs_req *r, fs_resp *w)
{
	/* "parameters" is read by params_from_body (each parameter checked there) */
	static const fs_field f[] = {
		{"revision", FS_FIELD_INT, 1, 0, 9e15, 0, NULL},
		{"parameters", FS_FIELD_OBJECT, 0, 0, 0, 0, NULL},
	};
	fs_value v[2];
	fs_set_ctx c;
	if (fs_req_body_fields(r, w, f, 2, v, 0) || load_ctx(r, w, &c))
		return 0;
	fs_params p;
	if (params_from_body(r, w, &c, "parameters", &p))
		return 0;
	double um = c.image.um_per_px;
	if (p.method != FS_METHOD_AUTO && um <= 0) {
		fs_resp_error(r, w, 422, "method %s needs a calibration: calibrate the image first (or use auto)",
			      fs_method_name(p.method));
		return 0;
	}
	/* the whole-image path of log, dog and ellipse (tiling off) is
	 * refused on a large image before any job or buffer (detect.h); the
	 * site detects tile by tile, which takes any size */
	char serr[ERRBUF];
	if (fs_detect_check_size(p.method, c.image.width, c.image.height, serr, sizeof serr)) {
		fs_resp_error(r, w, 413, "%s", serr);
		return 0;
	}
	/* a large image is a background job; the answer comes at once */
	long long pixels = (long long)c.image.width * c.image.height;
	if (r->app->cfg.sync_max_pixels > 0 && pixels > r->app->cfg.sync_max_pixels)
		return fs_job_submit_extract(r, w, &c.image, c.info.id, &p);
	fs_image *img = work_image(r, w, &c);
	if (!img)
		return 0;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	char err[ERRBUF] = "";
	if (run_extraction(r->app->db, &c.image, img, &p, um, &t, &e, err, sizeof err)) {
		fs_image_free(img);
		cJSON *d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "error", err);
		fs_event_log(r->app->db, r->user.id, c.image.id, "extraction_failed", d);
		cJSON_Delete(d);
		fs_resp_error(r, w, 422, "extraction failed: %s", err);
		return 0;
	}
	fs_image_free(img);
	long long nrev = 0, cur = 0;
	int rc = fs_extraction_store(r->app->db, &c.image, c.info.id, v[0].i, r->user.id, &p, &t, &e, NULL, &nrev,
				     &cur, err, sizeof err);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	cJSON *extra = cJSON_CreateObject();
	cJSON_AddItemToObject(extra, "parameters", fs_params_to_json(&p));
	cJSON_AddItemToObject(extra, "not_used",
			      not_used_json(cJSON_GetObjectItemCaseSensitive(r->json, "parameters"), p.method));
	return fs_set_view_change(r, w, c.info.id, rc, nrev, cur, err, extra);
}

/* Re-measure: the set's centres measured again on the working image with
 * the server's measurement rule (measurement.h), as one undoable step (centres, ids, edits and
 * connections kept). An image over sync_max_pixels is re-measured by a
 * background job (main_job.c), which stores its result only if the set is
 * still at this revision. */
static int h_remeasure(fs_req *r, fs_resp *w)
{
	static const fs_field f[] = {{"revision", FS_FIELD_INT, 1, 0, 9e15, 0, NULL}};
	fs_value v[1];
	fs_set_ctx c;
	if (fs_req_body_fields(r, w, f, 1, v, 0) || load_ctx(r, w, &c))
		return 0;
	if (c.info.revision != v[0].i) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddBoolToObject(o, "success", 0);
		cJSON_AddStringToObject(o, "error", "the set has changed: reload it");
		cJSON_AddNumberToObject(o, "revision", (double)c.info.revision);
		fs_resp_json(w, 409, o);
		return 0;
	}
	fs_params p;
	current_params(&c, &p);
	/* a large image is a background job (100 MP, 70,000 tubercles: a
	 * minute of CPU and more memory than a worker should hold) */
	long long pixels = (long long)c.image.width * c.image.height;
	if (r->app->cfg.sync_max_pixels > 0 && pixels > r->app->cfg.sync_max_pixels)
		return fs_job_submit_remeasure(r, w, &c.image, &c.info, &p);
	fs_tubercle_list t = {0};
	int rc = fs_set_load(r->app->db, c.info.id, &t, NULL);
	if (rc)
		return rc;
	fs_image *img = work_image(r, w, &c);
	if (!img) {
		fs_tubercle_list_free(&t);
		return 0;
	}
	char err[ERRBUF] = "";
	int from = c.info.measurement_version;
	/* inside the image's scale region only (a person's correction, else
	 * the automatic one, as extraction): measurement.h */
	fs_scale_region reg;
	size_t outside = 0;
	int have = fs_scale_region_for(r->app->db, c.image.id, c.image.work_key, img, &reg, NULL, err, sizeof err) ==
		   FS_DB_OK;
	if (!have) {
		fs_image_free(img);
		fs_tubercle_list_free(&t);
		fs_resp_error(r, w, 500, "cannot find the image's scale region: %s", err);
		return 0;
	}
	int mrc = fs_measure_centres_in_region(img, &p, c.image.um_per_px > 0 ? c.image.um_per_px : 0,
					       fs_measurement_get_rule(), &reg, &t, &outside, err, sizeof err);
	fs_scale_region_free(&reg);
	fs_image_free(img);
	if (mrc) {
		fs_tubercle_list_free(&t);
		fs_resp_error(r, w, 422, "re-measuring failed: %s", err);
		return 0;
	}
	long long nrev = 0, cur = 0;
	int changed = 0, unmeasured = 0;
	rc = fs_set_remeasure(r->app->db, c.info.id, v[0].i, r->user.id, &t, FS_MEASUREMENT_VERSION, &changed,
			      &unmeasured, &nrev, &cur, err, sizeof err);
	size_t n = t.n;
	fs_tubercle_list_free(&t);
	cJSON *extra = cJSON_CreateObject();
	if (!rc) {
		cJSON *h = cJSON_CreateObject();
		cJSON_AddNumberToObject(h, "from_version", from);
		cJSON_AddNumberToObject(h, "to_version", FS_MEASUREMENT_VERSION);
		cJSON_AddStringToObject(h, "rule", fs_measurement_rule_name(fs_measurement_get_rule()));
		cJSON_AddNumberToObject(h, "n_tubercles", (double)n);
		cJSON_AddNumberToObject(h, "n_changed", changed);
		cJSON_AddNumberToObject(h, "n_unmeasured", unmeasured);
		cJSON_AddNumberToObject(h, "n_outside_region", (double)outside);
		fs_history_add(r->app->db, c.info.id, r->user.id, "remeasure", h);
		cJSON_AddNumberToObject(h, "set_id", (double)c.info.id);
		fs_event_log(r->app->db, r->user.id, c.image.id, "remeasure", h);
		cJSON_AddItemToObject(extra, "remeasure", h);
	}
	return fs_set_view_change(r, w, c.info.id, rc, nrev, cur, err, extra);
}

static int h_connections(fs_req *r, fs_resp *w)
{
	static const char *const graphs[] = {"delaunay", "gabriel", "rng", NULL};
	static const fs_field f[] = {
		{"revision", FS_FIELD_INT, 1, 0, 9e15, 0, NULL},
		{"graph_type", FS_FIELD_ENUM, 0, 0, 0, 0, graphs},
		{"cull_long_edges", FS_FIELD_BOOL, 0, 0, 0, 0, NULL},
		{"cull_factor", FS_FIELD_DOUBLE, 0, 1, 5, 0, NULL},
	};
	fs_value v[4];
	fs_set_ctx c;
	if (fs_req_body_fields(r, w, f, 4, v, 0) || load_ctx(r, w, &c))
		return 0;
	fs_params p;
	current_params(&c, &p);
	fs_graph g = v[1].present ? (fs_graph)v[1].i : FS_GRAPH_GABRIEL;
	int cull = v[2].present ? v[2].b : 1;
	double factor = v[3].present ? v[3].d : p.cull_factor;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	int rc = fs_set_load(r->app->db, c.info.id, &t, NULL);
	if (rc)
		return rc;
	char err[ERRBUF] = "";
	if (fs_graph_build(&t, g, cull, factor, &e, err, sizeof err)) {
		fs_tubercle_list_free(&t);
		fs_resp_error(r, w, 422, "%s", err);
		return 0;
	}
	long long nrev = 0, cur = 0;
	rc = fs_set_replace_edges(r->app->db, c.info.id, v[0].i, r->user.id, &e, "auto_connect", 0, &nrev, &cur, err,
				  sizeof err);
	if (!rc) {
		fs_hex_weights wts;
		fs_set_view_weights(r, &wts);
		fs_stats s;
		double um = c.image.um_per_px;
		fs_stats_compute(&t, &e, um > 0 ? um : 1, &wts, c.image.width, c.image.height, &s);
		cJSON *h = cJSON_CreateObject();
		cJSON_AddStringToObject(h, "graph_type", fs_graph_name(g));
		cJSON_AddNumberToObject(h, "n_tubercles", (double)t.n);
		cJSON_AddNumberToObject(h, "n_edges", (double)e.n);
		cJSON_AddBoolToObject(h, "cull_long_edges", cull);
		cJSON_AddNumberToObject(h, "cull_factor", factor);
		if (um > 0)
			cJSON_AddNumberToObject(h, "calibration_um_per_pixel", um);
		cJSON_AddNumberToObject(h, "hexagonalness", s.hexagonalness_score);
		fs_history_add(r->app->db, c.info.id, r->user.id, "auto_connect", h);
		cJSON_DeleteItemFromObject(h, "hexagonalness");
		cJSON_AddNumberToObject(h, "n_boundary", s.n_boundary);
		fs_event_log(r->app->db, r->user.id, c.image.id, "regenerate_connections", h);
		cJSON_Delete(h);
	}
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	return fs_set_view_change(r, w, c.info.id, rc, nrev, cur, err, NULL);
}

static int h_analyze_point(fs_req *r, fs_resp *w)
{
	static const fs_field f[] = {
		{"x", FS_FIELD_DOUBLE, 1, -1e6, 1e6, 0, NULL},
		{"y", FS_FIELD_DOUBLE, 1, -1e6, 1e6, 0, NULL},
		{"region_factor", FS_FIELD_DOUBLE, 0, 1, 10, 0, NULL},
		{"parameters", FS_FIELD_OBJECT, 0, 0, 0, 0, NULL},
	};
	fs_value v[4];
	fs_set_ctx c;
	if (fs_req_body_fields(r, w, f, 4, v, 0) || load_ctx(r, w, &c))
		return 0;
	fs_params p;
	if (params_from_body(r, w, &c, "parameters", &p))
		return 0;
	/* compact: the analysis converts only the point's region (image.h) */
	fs_image *img = work_image_as(r, w, &c, 1);
	if (!img)
		return 0;
	fs_point_result pr;
	char err[ERRBUF];
	int rc = 0;
	if (isfinite(v[0].d) && isfinite(v[1].d) && v[0].d >= 0 && v[1].d >= 0 && v[0].d < img->width &&
	    v[1].d < img->height && point_outside_region(r, &c, img, v[0].d, v[1].d)) {
		memset(&pr, 0, sizeof pr);
		snprintf(pr.reason, sizeof pr.reason, "outside_scale_region");
		pr.region_x = (int)v[0].d;
		pr.region_y = (int)v[1].d;
	} else {
		rc = fs_analyze_point(img, &p, c.image.um_per_px, v[0].d, v[1].d, v[2].present ? v[2].d : 3.0, &pr,
				      err, sizeof err);
	}
	fs_image_free(img);
	if (rc) {
		fs_resp_error(r, w, 422, "%s", err);
		return 0;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddBoolToObject(o, "found", pr.found);
	if (pr.found)
		cJSON_AddItemToObject(o, "tubercle", fs_set_view_tubercle(&pr.tubercle, c.image.um_per_px));
	else
		cJSON_AddStringToObject(o, "reason", pr.reason);
	cJSON *reg = cJSON_AddObjectToObject(o, "region");
	cJSON_AddNumberToObject(reg, "x", pr.region_x);
	cJSON_AddNumberToObject(reg, "y", pr.region_y);
	cJSON_AddNumberToObject(reg, "width", pr.region_w);
	cJSON_AddNumberToObject(reg, "height", pr.region_h);
	fs_resp_json(w, 200, o);
	return 0;
}

/* One step of the original's finite-difference gradient ascent on
 * hexagonalness (reference-ui §4.4), bounded in time per request. */
static const struct opt_param {
	const char *name;
	double lo, hi, delta, lr;
	int integer;
} opt_params[] = {
	{"threshold", 0.01, 0.50, 0.01, 0.005, 0},     {"min_diameter_um", 0.5, 20, 0.5, 0.25, 0},
	{"max_diameter_um", 1, 50, 1.0, 0.5, 0},       {"min_circularity", 0, 1, 0.05, 0.025, 0},
	{"clahe_clip", 0.01, 0.20, 0.01, 0.005, 0},    {"clahe_kernel", 4, 32, 2, 1.0, 1},
	{"blur_sigma", 0, 5, 0.2, 0.1, 0},             {"auto_prominence", 0.05, 0.9, 0.05, 0.025, 0},
	{"auto_smoothing", 0.05, 0.4, 0.02, 0.01, 0},
};
#define N_OPT (sizeof opt_params / sizeof opt_params[0])
#define OPT_BUDGET_S 25.0

static double get_p(const fs_params *p, int i)
{
	switch (i) {
	case 0: return p->threshold;
	case 1: return p->min_diameter_um;
	case 2: return p->max_diameter_um;
	case 3: return p->min_circularity;
	case 4: return p->clahe_clip;
	case 5: return p->clahe_kernel;
	case 7: return p->auto_prominence;
	case 8: return p->auto_smoothing;
	default: return p->blur_sigma;
	}
}

static void set_p(fs_params *p, int i, double v)
{
	const struct opt_param *o = &opt_params[i];
	if (v < o->lo)
		v = o->lo;
	if (v > o->hi)
		v = o->hi;
	if (o->integer)
		v = floor(v + 0.5);
	switch (i) {
	case 0: p->threshold = v; break;
	case 1: p->min_diameter_um = v; break;
	case 2: p->max_diameter_um = v; break;
	case 3: p->min_circularity = v; break;
	case 4: p->clahe_clip = v; break;
	case 5: p->clahe_kernel = (int)v; break;
	case 7: p->auto_prominence = v; break;
	case 8: p->auto_smoothing = v; break;
	default: p->blur_sigma = v; break;
	}
}

static double now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double evaluate(fs_db *db, const fs_image *img, const fs_params *p, double um, const fs_set_ctx *c, int *ok)
{
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	char err[ERRBUF];
	fs_params q = *p;
	if (q.max_diameter_um <= q.min_diameter_um)
		q.max_diameter_um = q.min_diameter_um + 0.5;
	*ok = run_extraction(db, &c->image, img, &q, um, &t, &e, err, sizeof err) == 0;
	double h = 0;
	if (*ok) {
		fs_stats s;
		if (fs_stats_compute(&t, &e, um > 0 ? um : 1, NULL, c->image.width, c->image.height, &s) == 0)
			h = floor(s.hexagonalness_score * 1000 + 0.5) / 1000; /* the original's rounding */
	}
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	return h;
}

static int h_optimize_step(fs_req *r, fs_resp *w)
{
	static const fs_field f[] = {
		{"revision", FS_FIELD_INT, 1, 0, 9e15, 0, NULL},
		{"iteration", FS_FIELD_INT, 0, 0, 10000, 0, NULL},
		{"max_iterations", FS_FIELD_INT, 0, 1, 10000, 0, NULL},
		{"delta_threshold", FS_FIELD_DOUBLE, 0, 0, 1, 0, NULL},
		{"target_score", FS_FIELD_DOUBLE, 0, 0, 1, 0, NULL},
		{"apply", FS_FIELD_BOOL, 0, 0, 0, 0, NULL},
		/* read below: the parameters, and the names of those to vary */
		{"params", FS_FIELD_OBJECT, 0, 0, 0, 0, NULL},
		{"enabled_params", FS_FIELD_ARRAY, 0, 0, 0, 0, NULL},
	};
	fs_value v[8];
	fs_set_ctx c;
	if (fs_req_body_fields(r, w, f, 8, v, 0) || load_ctx(r, w, &c))
		return 0;
	fs_params p;
	if (params_from_body(r, w, &c, "params", &p))
		return 0;
	int enabled[N_OPT] = {0}, n_enabled = 0;
	const cJSON *en = cJSON_GetObjectItemCaseSensitive(r->json, "enabled_params");
	const cJSON *it;
	if (en && !cJSON_IsArray(en)) {
		fs_resp_error(r, w, 422, "'enabled_params' must be an array of parameter names");
		return 0;
	}
	cJSON_ArrayForEach(it, en)
	{
		int known = 0;
		for (size_t i = 0; i < N_OPT; i++)
			if (cJSON_IsString(it) && !strcmp(it->valuestring, opt_params[i].name)) {
				known = 1;
				n_enabled += !enabled[i];
				enabled[i] = 1;
			}
		if (!known) {
			fs_resp_error(r, w, 422, "'enabled_params' may name threshold, min_diameter_um, max_diameter_um, "
						 "min_circularity, clahe_clip, clahe_kernel, blur_sigma, auto_prominence, "
						 "auto_smoothing");
			return 0;
		}
	}
	if (!en)
		for (size_t i = 0; i < N_OPT; i++)
			enabled[i] = 1, n_enabled++;
	/* only the method's own parameters are tuned (params.c's table): the
	 * others change nothing, and are said so */
	cJSON *not_used = cJSON_CreateArray();
	for (size_t i = 0; i < N_OPT; i++) {
		const char *why = NULL;
		if (!enabled[i] || fs_param_used_by(p.method, opt_params[i].name, &why) == 1)
			continue;
		enabled[i] = 0;
		n_enabled--;
		if (en) {
			cJSON *u = cJSON_CreateObject();
			cJSON_AddStringToObject(u, "name", opt_params[i].name);
			cJSON_AddStringToObject(u, "reason", why ? why : "");
			cJSON_AddItemToArray(not_used, u);
		}
	}
	if (n_enabled == 0) {
		cJSON_Delete(not_used);
		fs_resp_error(r, w, 422, "none of the enabled parameters is used by method %s (it uses: see GET "
					 "/api/parameters)", fs_method_name(p.method));
		return 0;
	}
	double um = c.image.um_per_px;
	if (p.method != FS_METHOD_AUTO && um <= 0) {
		cJSON_Delete(not_used);
		fs_resp_error(r, w, 422, "calibrate the image first (or use method auto)");
		return 0;
	}
	fs_image *img = work_image(r, w, &c);
	if (!img) {
		cJSON_Delete(not_used);
		return 0;
	}
	double t0 = now_mono();
	int ok, extractions = 0, timed_out = 0;
	double prev = evaluate(r->app->db, img, &p, um, &c, &ok);
	extractions++;
	cJSON *grad = cJSON_CreateObject();
	fs_params np = p;
	for (size_t i = 0; i < N_OPT; i++) {
		if (!enabled[i])
			continue;
		if (now_mono() - t0 > OPT_BUDGET_S) {
			timed_out = 1;
			break;
		}
		fs_params a = p, b = p;
		set_p(&a, (int)i, get_p(&p, (int)i) + opt_params[i].delta);
		set_p(&b, (int)i, get_p(&p, (int)i) - opt_params[i].delta);
		int oka, okb;
		double ha = evaluate(r->app->db, img, &a, um, &c, &oka), hb = evaluate(r->app->db, img, &b, um, &c, &okb);
		extractions += 2;
		double g = (ha - hb) / (2 * opt_params[i].delta);
		cJSON_AddNumberToObject(grad, opt_params[i].name, g);
		set_p(&np, (int)i, get_p(&p, (int)i) + opt_params[i].lr * g);
	}
	double h = evaluate(r->app->db, img, &np, um, &c, &ok);
	extractions++;
	int iteration = v[1].present ? (int)v[1].i : 1;
	int max_it = v[2].present ? (int)v[2].i : 20;
	double dthr = v[3].present ? v[3].d : 0.001, target = v[4].present ? v[4].d : 0.85;
	const char *reason = "";
	if (timed_out)
		reason = "time_budget";
	else if (h >= target)
		reason = "target_reached";
	else if (iteration >= max_it)
		reason = "max_iterations";
	else if (iteration >= 2 && fabs(h - prev) < dthr)
		reason = "converged";
	cJSON *extra = cJSON_CreateObject();
	cJSON_AddItemToObject(extra, "new_params", fs_params_to_json(&np));
	cJSON_AddItemToObject(extra, "gradient", grad);
	cJSON_AddItemToObject(extra, "not_used", not_used);
	cJSON_AddNumberToObject(extra, "prev_hexagonalness", prev);
	cJSON_AddNumberToObject(extra, "hexagonalness", h);
	cJSON_AddNumberToObject(extra, "delta", h - prev);
	cJSON_AddNumberToObject(extra, "extractions_performed", extractions);
	cJSON_AddBoolToObject(extra, "should_stop", *reason != 0);
	cJSON_AddStringToObject(extra, "stop_reason", reason);
	cJSON_AddNumberToObject(extra, "iteration", iteration);
	cJSON *d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "iteration", iteration);
	cJSON_AddNumberToObject(d, "prev_hexagonalness", prev);
	cJSON_AddNumberToObject(d, "hexagonalness", h);
	cJSON_AddNumberToObject(d, "delta", h - prev);
	cJSON_AddNumberToObject(d, "extractions_performed", extractions);
	cJSON_AddBoolToObject(d, "should_stop", *reason != 0);
	cJSON_AddStringToObject(d, "stop_reason", reason);
	fs_event_log(r->app->db, r->user.id, c.image.id, "optimize_step", d);
	cJSON_Delete(d);
	/* the step's result becomes the set's content (one undo step) unless
	 * the caller only wants the numbers */
	int rc = 0;
	long long nrev = c.info.revision, cur = 0;
	char err[ERRBUF] = "";
	if (!v[5].present || v[5].b) {
		fs_tubercle_list t = {0};
		fs_edge_list e = {0};
		if (run_extraction(r->app->db, &c.image, img, &np, um, &t, &e, err, sizeof err) == 0) {
			rc = fs_set_replace_all(r->app->db, c.info.id, v[0].i, r->user.id, &t, &e, &np, "optimize_step", 0,
						&nrev, &cur, err, sizeof err);
			fs_tubercle_list_free(&t);
			fs_edge_list_free(&e);
		}
	}
	fs_image_free(img);
	return fs_set_view_change(r, w, c.info.id, rc, nrev, cur, err, extra);
}

const fs_route fs_routes_sets[] = {
	{"GET", "/api/images/{id}/sets", h_list, FS_MEMBER, 0},
	{"POST", "/api/images/{id}/sets", h_create, FS_MEMBER, 0},
	{"GET", "/api/sets/{id}", h_get, FS_MEMBER, 0},
	{"PATCH", "/api/sets/{id}", h_rename, FS_MEMBER, 0},
	{"DELETE", "/api/sets/{id}", h_delete, FS_MEMBER, 0},
	{"GET", "/api/sets/{id}/revision", h_revision, FS_MEMBER, 0},
	{"GET", "/api/sets/{id}/statistics", h_statistics, FS_MEMBER, 0},
	{"POST", "/api/sets/{id}/duplicate", h_duplicate, FS_MEMBER, 0},
	{"POST", "/api/sets/{id}/tubercles", h_add_tubercle, FS_MEMBER, 0},
	{"PATCH", "/api/sets/{id}/tubercles/{tid}", h_update_tubercle, FS_MEMBER, 0},
	{"DELETE", "/api/sets/{id}/tubercles/{tid}", h_delete_tubercle, FS_MEMBER, 0},
	{"POST", "/api/sets/{id}/edges", h_add_edge, FS_MEMBER, 0},
	{"DELETE", "/api/sets/{id}/edges/{a_id}/{b_id}", h_delete_edge, FS_MEMBER, 0},
	{"POST", "/api/sets/{id}/delete", h_delete_many, FS_MEMBER, 0},
	{"POST", "/api/sets/{id}/clear", h_clear, FS_MEMBER, 0},
	{"POST", "/api/sets/{id}/radius", h_radius, FS_MEMBER, 0},
	{"POST", "/api/sets/{id}/undo", h_undo, FS_MEMBER, 0},
	{"POST", "/api/sets/{id}/redo", h_redo, FS_MEMBER, 0},
	{"POST", "/api/sets/{id}/save", h_save, FS_MEMBER, 0},
	{"POST", "/api/sets/{id}/revert", h_revert, FS_MEMBER, 0},
	{"GET", "/api/sets/{id}/history", h_history, FS_MEMBER, 0},
	{"GET", "/api/sets/{id}/history/{hid}/parameters", h_history_params, FS_MEMBER, 0},
	{"GET", "/api/sets/{id}/journal", h_journal, FS_MEMBER, 0},
	{"POST", "/api/sets/{id}/journal/{op_id}/undo", h_journal_undo, FS_MEMBER, 0},
	{"POST", "/api/sets/{id}/extract", h_extract, FS_MEMBER, 0},
	{"POST", "/api/sets/{id}/connections", h_connections, FS_MEMBER, 0},
	{"POST", "/api/sets/{id}/remeasure", h_remeasure, FS_MEMBER, 0},
	{"POST", "/api/sets/{id}/analyze-point", h_analyze_point, FS_MEMBER, 0},
	{"POST", "/api/sets/{id}/optimize-step", h_optimize_step, FS_MEMBER, 0},
};
const size_t fs_routes_sets_n = sizeof fs_routes_sets / sizeof fs_routes_sets[0];
