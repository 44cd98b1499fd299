/*
 * route_data.c - the event log (list, append, JSONL export), per-user
 * settings, parameter profiles (built-in and the user's), and the import and
 * export of annotation sets (annotation JSON, CSV, overlay PNG).
 *
 * Every body and query is declared in an fs_field table and validated before
 * use; an invalid value is a 422 naming the field, a missing or malformed
 * body a 400. Routes about an image check that the user may see it first
 * (404 otherwise, so ids cannot be probed).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "store/store.h"
#include "image/image.h"
#include "analysis/analysis.h"
#include "web/web.h"
#include "image/render.h"
#include "routes/routes.h"

#define LOG_DETAILS_MAX (16 * 1024)
#define LOG_EXPORT_MAX 100000 /* lines per export: bounds the worker's memory */
#define LOG_PAGE_MAX 1000

#define NF(t) (sizeof(t) / sizeof((t)[0]))

/* ---- small helpers ---- */

/* A response object that starts with "success": true. */
static cJSON *ok_obj(void)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	return o;
}

static int reply_ok(fs_resp *w, int status, cJSON *o)
{
	fs_resp_json(w, status, o);
	return 0;
}

/* The JSON object body, or NULL after answering 400. */
static const cJSON *body_object(fs_req *r, fs_resp *w)
{
	if (!r->json) {
		fs_resp_error(r, w, 400, "a JSON object body (Content-Type: application/json) is required");
		return NULL;
	}
	return r->json;
}

/* Event types: 1..64 of [a-z0-9_]; with allow_star a trailing '*' (prefix). */
static int event_type_ok(const char *s, int allow_star)
{
	size_t n = strlen(s);
	if (allow_star && n > 1 && s[n - 1] == '*')
		n--;
	if (n < 1 || n > 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '_'))
			return 0;
	return 1;
}

/* A time as unix seconds ("1700000000.5") or ISO 8601 UTC
 * ("2026-01-02T03:04:05[.ffffff][Z]"). 0 or -1. */
static int parse_time(const char *s, double *out)
{
	char *end;
	if (isdigit((unsigned char)s[0]) && strlen(s) < 32 && !strchr(s, '-')) {
		double v = strtod(s, &end);
		if (*end || !isfinite(v) || v < 0)
			return -1;
		*out = v;
		return 0;
	}
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	const char *p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!p)
		return -1;
	double frac = 0;
	if (*p == '.') {
		frac = strtod(p, &end);
		p = end;
	}
	if (*p == 'Z')
		p++;
	else if (!strcmp(p, "+00:00"))
		p += 6;
	if (*p)
		return -1;
	time_t t = timegm(&tm);
	if (t == (time_t)-1)
		return -1;
	*out = (double)t + frac;
	return 0;
}

/* ---- event log ---- */

static const fs_field log_query_fields[] = {
	{"type", FS_FIELD_STRING, 0, 0, 0, 65, NULL},
	{"image_id", FS_FIELD_ID, 0, 0, 0, 0, NULL},
	{"since", FS_FIELD_STRING, 0, 0, 0, 40, NULL},
	{"until", FS_FIELD_STRING, 0, 0, 0, 40, NULL},
	{"before_id", FS_FIELD_ID, 0, 0, 0, 0, NULL},
	{"limit", FS_FIELD_INT, 0, 1, LOG_PAGE_MAX, 0, NULL},
	{"user", FS_FIELD_STRING, 0, 0, 0, 64, NULL},
};

/* Fills q from the query; answers the error itself and returns -1. */
static int log_query_from_request(fs_req *r, fs_resp *w, fs_event_query *q)
{
	fs_value v[NF(log_query_fields)];
	char err[256];
	memset(q, 0, sizeof *q);
	if (fs_validate_kv(&r->query_kv, log_query_fields, NF(log_query_fields), v, 0, err, sizeof err)) {
		fs_resp_error(r, w, 422, "%s", err);
		return -1;
	}
	if (v[0].present) {
		if (!event_type_ok(v[0].s, 1)) {
			fs_resp_error(r, w, 422,
				      "field 'type' must be 1 to 64 of a-z, 0-9 and _, optionally ending in *");
			return -1;
		}
		q->event_type = v[0].s;
	}
	q->image_id = v[1].present ? v[1].i : 0;
	if ((v[2].present && parse_time(v[2].s, &q->since)) || (v[3].present && parse_time(v[3].s, &q->until))) {
		fs_resp_error(r, w, 422,
			      "fields 'since' and 'until' must be unix seconds or ISO 8601 UTC times "
			      "(2026-01-31T12:00:00Z)");
		return -1;
	}
	q->before_id = v[4].present ? v[4].i : 0;
	q->limit = v[5].present ? (int)v[5].i : 100;
	q->user_id = r->user.id;
	if (v[6].present && strcmp(v[6].s, r->user.login)) {
		if (!r->user.is_admin) {
			fs_resp_error(r, w, 403, "only administrators may read other users' events");
			return -1;
		}
		if (!strcmp(v[6].s, "all")) {
			q->user_id = 0;
		} else {
			fs_user u;
			int rc = fs_user_get_by_login(r->app->db, v[6].s, &u);
			if (rc) {
				fs_resp_error(r, w, rc == FS_DB_NOTFOUND ? 404 : fs_http_status_for_db(rc),
					      rc == FS_DB_NOTFOUND ? "no such user" : "could not read the users");
				return -1;
			}
			q->user_id = u.id;
		}
	}
	return 0;
}

static int h_log_list(fs_req *r, fs_resp *w)
{
	fs_event_query q;
	if (log_query_from_request(r, w, &q))
		return 0;
	cJSON *entries = NULL;
	int rc = fs_event_query_run(r->app->db, &q, &entries);
	if (rc)
		return rc;
	cJSON *o = ok_obj();
	cJSON_AddItemToObject(o, "entries", entries);
	int n = cJSON_GetArraySize(entries);
	if (n > 0 && n == q.limit) {
		cJSON *last = cJSON_GetArrayItem(entries, n - 1);
		cJSON_AddNumberToObject(o, "next_before_id", cJSON_GetObjectItem(last, "id")->valuedouble);
	} else {
		cJSON_AddNullToObject(o, "next_before_id");
	}
	return reply_ok(w, 200, o);
}

static const fs_field log_post_fields[] = {
	{"event_type", FS_FIELD_STRING, 1, 0, 0, 64, NULL},
	{"image_id", FS_FIELD_ID, 0, 0, 0, 0, NULL},
	{"details", FS_FIELD_OBJECT, 0, 0, 0, 0, NULL},
};

static int h_log_post(fs_req *r, fs_resp *w)
{
	fs_value v[NF(log_post_fields)];
	if (fs_req_body_fields(r, w, log_post_fields, NF(log_post_fields), v, 0))
		return 0;
	if (!event_type_ok(v[0].s, 0) || strlen(v[0].s) > 64 - strlen(FS_EVENT_CLIENT_PREFIX)) {
		fs_resp_error(r, w, 422, "field 'event_type' must be 1 to %zu of a-z, 0-9 and _",
			      64 - strlen(FS_EVENT_CLIENT_PREFIX));
		return 0;
	}
	if (fs_event_type_is_server(v[0].s)) {
		fs_resp_error(r, w, 422, "field 'event_type': '%s' is written by the server only", v[0].s);
		return 0;
	}
	char stored[80];
	snprintf(stored, sizeof stored, "%s%s", FS_EVENT_CLIENT_PREFIX, v[0].s);
	/* an object, or absent (null counts as absent) */
	const cJSON *details = v[2].present ? cJSON_GetObjectItemCaseSensitive(r->json, "details") : NULL;
	if (details) {
		char *s = cJSON_PrintUnformatted(details);
		size_t len = s ? strlen(s) : 0;
		cJSON_free(s);
		if (!s)
			return FS_DB_ERROR;
		if (len > LOG_DETAILS_MAX) {
			fs_resp_error(r, w, 413, "field 'details' is %zu bytes; at most %d are kept", len,
				      LOG_DETAILS_MAX);
			return 0;
		}
	}
	long long image_id = v[1].present ? v[1].i : 0;
	if (image_id) {
		int rc = fs_image_check_access(r->app->db, image_id, &r->user, FS_ACCESS_READ, NULL);
		if (rc == FS_DB_NOTFOUND) {
			fs_resp_error(r, w, 404, "no such image");
			return 0;
		}
		if (rc)
			return rc;
	}
	int rc = fs_event_log(r->app->db, r->user.id, image_id, stored, details);
	if (rc)
		return rc;
	return reply_ok(w, 201, ok_obj());
}

/* One JSONL line per event, oldest first, the same filters as the list:
 * the newest `limit` (LOG_EXPORT_MAX without one) that match, streamed
 * (http.h) a page at a time from where they start (fs_event_query_nth_id),
 * up to the newest there was when the export began. */
static int h_log_export(fs_req *r, fs_resp *w)
{
	fs_event_query q;
	if (log_query_from_request(r, w, &q))
		return 0;
	int want = fs_kv_get(&r->query_kv, "limit") ? q.limit : LOG_EXPORT_MAX;
	long long first = 0, newest = 0;
	int rc = fs_event_query_nth_id(r->app->db, &q, want, &first);
	if (!rc)
		rc = fs_event_query_nth_id(r->app->db, &q, 1, &newest);
	if (rc)
		return rc;
	fs_resp_header(w, "Content-Disposition", "attachment; filename=\"fishscale-log.jsonl\"");
	fs_sink *out = fs_resp_stream_begin(r, w, 200, "application/x-ndjson; charset=utf-8");
	/* the page after `after`, up to the newest of the start */
	q.after_id = first > 0 ? first - 1 : 0;
	q.before_id = newest + 1;
	q.oldest_first = 1;
	q.limit = LOG_PAGE_MAX;
	int bad = 0;
	while (newest > 0 && !bad && !w->head_only) {
		cJSON *page = NULL;
		if (fs_event_query_run(r->app->db, &q, &page)) {
			bad = 1;
			break;
		}
		int n = cJSON_GetArraySize(page);
		for (cJSON *ev = page->child; ev && !bad; ev = ev->next) {
			char *line = cJSON_PrintUnformatted(ev);
			bad = !line || fs_sink_puts(out, line) || fs_sink_put(out, "\n", 1);
			cJSON_free(line);
		}
		if (n > 0)
			q.after_id = (long long)cJSON_GetObjectItem(cJSON_GetArrayItem(page, n - 1), "id")->valuedouble;
		cJSON_Delete(page);
		if (n < q.limit)
			break;
	}
	fs_resp_stream_end(w, bad);
	return 0;
}

/* ---- settings ---- */

static int reply_settings(fs_req *r, fs_resp *w)
{
	cJSON *s = NULL;
	int rc = fs_settings_get(r->app->db, r->user.id, &s);
	if (rc)
		return rc;
	cJSON *o = ok_obj();
	cJSON_AddItemToObject(o, "settings", s);
	cJSON *d = fs_settings_defaults(cJSON_GetObjectItem(s, "display_name")->valuestring);
	/* the server's list is the default of the tools that need no approval:
	 * what the tab shows is what the agent worker uses */
	const char *srv = r->app->cfg.agent_no_approval_tools;
	if (!fs_settings_is_stored(r->app->db, r->user.id, "agent_no_approval_tools"))
		cJSON_ReplaceItemInObject(s, "agent_no_approval_tools", cJSON_CreateString(srv));
	if (d) {
		cJSON_ReplaceItemInObject(d, "agent_no_approval_tools", cJSON_CreateString(srv));
		cJSON_AddItemToObject(o, "defaults", d);
	}
	return reply_ok(w, 200, o);
}

static int h_settings_get(fs_req *r, fs_resp *w)
{
	return reply_settings(r, w);
}

static int h_settings_put(fs_req *r, fs_resp *w)
{
	const cJSON *b = body_object(r, w);
	if (!b)
		return 0;
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(b, "settings");
	if (!cJSON_IsObject(s) || cJSON_GetArraySize(b) != 1) {
		fs_resp_error(r, w, 422, "the body must be {\"settings\": {...}}");
		return 0;
	}
	char err[256] = "";
	int rc = fs_settings_put(r->app->db, r->user.id, s, err, sizeof err);
	if (rc)
		return fs_resp_db_error(r, w, rc, err, NULL);
	cJSON *keys = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(keys, "keys");
	const cJSON *it;
	cJSON_ArrayForEach(it, s)
	{
		cJSON_AddItemToArray(arr, cJSON_CreateString(it->string));
	}
	fs_event_log(r->app->db, r->user.id, 0, "settings_changed", keys);
	cJSON_Delete(keys);
	return reply_settings(r, w);
}

static int h_settings_reset(fs_req *r, fs_resp *w)
{
	if (fs_req_no_fields(r, w))
		return 0;
	int rc = fs_settings_reset(r->app->db, r->user.id);
	if (rc)
		return rc;
	fs_event_log(r->app->db, r->user.id, 0, "settings_reset", NULL);
	return reply_settings(r, w);
}

/* ---- the parameters and which method uses which ---- */

static int h_parameters(fs_req *r, fs_resp *w)
{
	(void)r;
	size_t n;
	const fs_param_range *pr = fs_param_ranges(&n);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON *arr = cJSON_AddArrayToObject(o, "parameters");
	cJSON *by = cJSON_AddObjectToObject(o, "methods");
	for (int m = FS_METHOD_AUTO; m <= FS_METHOD_LATTICE; m++)
		cJSON_AddArrayToObject(by, fs_method_name((fs_method)m));
	static const char *const graph[] = {"neighbor_graph", "cull_long_edges"};
	for (size_t i = 0; i < n + 2; i++) {
		const char *name = i < n ? pr[i].name : graph[i - n];
		cJSON *p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "name", name);
		if (i < n) {
			cJSON_AddNumberToObject(p, "min", pr[i].min);
			cJSON_AddNumberToObject(p, "max", pr[i].max);
			cJSON_AddBoolToObject(p, "integer", pr[i].is_integer);
			cJSON_AddNumberToObject(p, "default", pr[i].default_value);
			cJSON_AddStringToObject(p, "help", pr[i].help);
		}
		cJSON *used = cJSON_AddArrayToObject(p, "used_by_method");
		cJSON *why = cJSON_AddObjectToObject(p, "not_used_because");
		for (int m = FS_METHOD_AUTO; m <= FS_METHOD_LATTICE; m++) {
			const char *mn = fs_method_name((fs_method)m), *reason = NULL;
			if (fs_param_used_by((fs_method)m, name, &reason) == 1) {
				cJSON_AddItemToArray(used, cJSON_CreateString(mn));
				cJSON_AddItemToArray(cJSON_GetObjectItem(by, mn), cJSON_CreateString(name));
			} else {
				cJSON_AddStringToObject(why, mn, reason ? reason : "");
			}
		}
		cJSON_AddItemToArray(arr, p);
	}
	fs_resp_json(w, 200, o);
	return 0;
}

/* ---- parameter profiles ---- */

static int h_profiles_list(fs_req *r, fs_resp *w)
{
	cJSON *mine = NULL;
	int rc = fs_uprofile_list(r->app->db, r->user.id, &mine);
	if (rc)
		return rc;
	cJSON *o = ok_obj();
	cJSON *arr = cJSON_AddArrayToObject(o, "profiles");
	size_t n;
	const fs_profile *bi = fs_profiles(&n);
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, fs_profile_builtin_json(&bi[i]));
	cJSON *it = mine->child;
	while (it) {
		cJSON *next = it->next;
		cJSON_AddItemToArray(arr, cJSON_DetachItemViaPointer(mine, it));
		it = next;
	}
	cJSON_Delete(mine);
	return reply_ok(w, 200, o);
}

static const fs_field profile_save_fields[] = {
	{"name", FS_FIELD_STRING, 1, 0, 0, FS_PROFILE_NAME_MAX, NULL},
	{"overwrite", FS_FIELD_BOOL, 0, 0, 0, 0, NULL},
	{"parameters", FS_FIELD_OBJECT, 1, 0, 0, 0, NULL},
};

static int h_profiles_save(fs_req *r, fs_resp *w)
{
	fs_value v[NF(profile_save_fields)];
	if (fs_req_body_fields(r, w, profile_save_fields, NF(profile_save_fields), v, 0))
		return 0;
	const cJSON *pj = cJSON_GetObjectItemCaseSensitive(r->json, "parameters");
	char err[256] = "";
	fs_params p;
	fs_params_default(&p);
	if (fs_params_from_json(&p, pj, 0, err, sizeof err)) {
		fs_resp_error(r, w, 422, "%s", err);
		return 0;
	}
	long long id = 0;
	int rc = fs_uprofile_save(r->app->db, r->user.id, v[0].s, &p, v[1].present && v[1].b, &id, err, sizeof err);
	if (rc)
		return fs_resp_db_error(r, w, rc, err, NULL);
	cJSON *o = ok_obj();
	cJSON_AddNumberToObject(o, "id", (double)id);
	cJSON_AddStringToObject(o, "name", v[0].s);
	cJSON_AddItemToObject(o, "parameters", fs_params_to_json(&p));
	return reply_ok(w, 201, o);
}

static int h_profiles_delete(fs_req *r, fs_resp *w)
{
	int rc = fs_uprofile_delete(r->app->db, r->user.id, r->ids[0]);
	if (rc == FS_DB_NOTFOUND) {
		fs_resp_error(r, w, 404, "no such profile of yours");
		return 0;
	}
	if (rc)
		return rc;
	return reply_ok(w, 200, ok_obj());
}

static const fs_field profile_get_fields[] = {
	{"name", FS_FIELD_STRING, 0, 0, 0, FS_PROFILE_NAME_MAX, NULL},
};

/* The original's POST /api/profile: one profile as parameters. */
static int h_profile_get(fs_req *r, fs_resp *w)
{
	fs_value v[NF(profile_get_fields)];
	char err[256];
	const char *name = "default";
	if (r->json) {
		if (fs_validate_json(r->json, profile_get_fields, NF(profile_get_fields), v, 0, err, sizeof err)) {
			fs_resp_error(r, w, 422, "%s", err);
			return 0;
		}
		if (v[0].present)
			name = v[0].s;
	}
	fs_params p;
	char canon[FS_PROFILE_NAME_MAX + 1];
	int builtin = 0;
	double cal = 0;
	size_t n;
	const fs_profile *bi = fs_profiles(&n);
	for (size_t i = 0; i < n && !builtin; i++)
		if (!strcasecmp(bi[i].name, name)) {
			builtin = 1;
			p = bi[i].params;
			cal = bi[i].calibration_um_per_px;
			snprintf(canon, sizeof canon, "%s", bi[i].name);
		}
	if (!builtin) {
		int rc = fs_uprofile_get(r->app->db, r->user.id, name, &p, canon);
		if (rc == FS_DB_NOTFOUND) {
			fs_resp_error(r, w, 404, "unknown profile '%.64s'", name);
			return 0;
		}
		if (rc)
			return rc;
	}
	cJSON *o = ok_obj();
	cJSON_AddStringToObject(o, "profile", canon);
	cJSON_AddBoolToObject(o, "builtin", builtin);
	if (cal > 0)
		cJSON_AddNumberToObject(o, "calibration_um_per_px", cal);
	else
		cJSON_AddNullToObject(o, "calibration_um_per_px");
	cJSON_AddItemToObject(o, "parameters", fs_params_to_json(&p));
	return reply_ok(w, 200, o);
}

/* ---- annotation sets: export, import, CSV, overlay ---- */

#define IMPORT_MAX_BYTES (64u << 20)
#define EXPORT_HISTORY_MAX 1000

/*
 * Looks up set_id and checks that the user may see its image. Returns 0
 * with info and rec filled; 1 after answering 404 (unknown set or image
 * not visible: the same answer, so ids cannot be probed); or an fs_db_rc.
 */
static int set_access(fs_req *r, fs_resp *w, long long set_id, fs_set_info *info, fs_image_rec *rec)
{
	int rc = fs_set_get_info(r->app->db, set_id, info);
	if (rc == FS_DB_OK)
		rc = fs_image_check_access(r->app->db, info->image_id, &r->user, FS_ACCESS_READ, rec);
	if (rc == FS_DB_NOTFOUND) {
		fs_resp_error(r, w, 404, "no such set");
		return 1;
	}
	return rc;
}

static int image_access(fs_req *r, fs_resp *w, long long image_id, fs_image_rec *rec)
{
	int rc = fs_image_check_access(r->app->db, image_id, &r->user, FS_ACCESS_READ, rec);
	if (rc == FS_DB_NOTFOUND) {
		fs_resp_error(r, w, 404, "no such image");
		return 1;
	}
	return rc;
}

static void iso_utc(long long t, char *out, size_t n)
{
	time_t s = (time_t)t;
	struct tm tm;
	gmtime_r(&s, &tm);
	strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Copies at most n - 1 bytes of src without cutting a UTF-8 character. */
static void copy_utf8(char *dst, size_t n, const char *src)
{
	size_t l = strlen(src);
	if (l >= n) {
		l = n - 1;
		while (l > 0 && ((unsigned char)src[l] & 0xc0) == 0x80)
			l--;
	}
	memcpy(dst, src, l);
	dst[l] = 0;
}

/* A file-name part for Content-Disposition: only [A-Za-z0-9._-] survive
 * (the rest become '_'), so no header injection or path is possible. */
static void file_part(const char *in, int strip_ext, char *out, size_t n)
{
	const char *base = strrchr(in, '/');
	base = base ? base + 1 : in;
	size_t l = strlen(base);
	const char *dot = strrchr(base, '.');
	if (strip_ext && dot && dot != base)
		l = (size_t)(dot - base);
	size_t k = 0;
	for (size_t i = 0; i < l && k + 1 < n; i++) {
		unsigned char c = (unsigned char)base[i];
		out[k++] = (isalnum(c) || c == '.' || c == '_' || c == '-') ? (char)c : '_';
	}
	out[k] = 0;
	if (!k)
		snprintf(out, n, "image");
}

static void disposition(fs_resp *w, const char *how, const fs_image_rec *rec, const char *set_name,
			const char *suffix)
{
	char stem[96], set[96] = "";
	file_part(rec->original_name, 1, stem, sizeof stem);
	if (set_name) {
		set[0] = '_';
		file_part(set_name, 0, set + 1, sizeof set - 1);
	}
	fs_resp_header(w, "Content-Disposition", "%s; filename=\"%s%s%s\"", how, stem, set, suffix);
}

static void attachment(fs_resp *w, const fs_image_rec *rec, const char *set_name, const char *suffix)
{
	disposition(w, "attachment", rec, set_name, suffix);
}

/* One set's fields as the annotation model, without rows or history. */
static void annot_set_head(const fs_set_info *info, fs_annot_set *s)
{
	memset(s, 0, sizeof *s);
	snprintf(s->id, sizeof s->id, "set_%lld", info->id);
	copy_utf8(s->name, sizeof s->name, info->name);
	iso_utc(info->created_at, s->created, sizeof s->created);
	iso_utc(info->updated_at, s->modified, sizeof s->modified);
	s->has_params = info->has_params;
	s->params = info->params;
	s->calibration_um_per_px = info->calibration_um_per_px;
	s->measurement_version = info->measurement_version;
}

/* A set's rows and history (oldest first, as the original's files keep
 * it) into s, whose head annot_set_head filled. */
static int annot_set_from_store(fs_db *db, const fs_set_info *info, fs_annot_set *s)
{
	int rc = fs_set_load(db, info->id, &s->tubercles, &s->edges);
	if (rc)
		return rc;
	cJSON *h = fs_history_list(db, info->id, EXPORT_HISTORY_MAX);
	if (!h)
		return FS_DB_ERROR;
	s->history = cJSON_CreateArray();
	for (int i = cJSON_GetArraySize(h) - 1; s->history && i >= 0; i--) {
		cJSON *ev = cJSON_DetachItemFromArray(h, i);
		cJSON_DeleteItemFromObjectCaseSensitive(ev, "id");
		cJSON_AddItemToArray(s->history, ev);
	}
	cJSON_Delete(h);
	return s->history ? FS_DB_OK : FS_DB_ERROR;
}

/* The sets of an image export, loaded one at a time while the file is
 * written (fs_annot_write_sets); the first is loaded before the answer
 * starts, so that a database error is still an HTTP error. */
struct export_sets {
	fs_db *db;
	const fs_set_info *infos;
	int first_loaded;
};

static int load_export_set(void *ctx, size_t i, fs_annot_set *s)
{
	struct export_sets *x = ctx;
	if (i == 0 && x->first_loaded)
		return 0;
	return annot_set_from_store(x->db, &x->infos[i], s);
}

/* Writes the v3.0 file of the given sets of rec as an attachment, streamed
 * (http.h): the text is cJSON_Print's of fs_annot_to_json, byte for byte,
 * without the tree or the text in memory, a set's rows at a time. */
static int reply_annotations(fs_req *r, fs_resp *w, const fs_image_rec *rec, const fs_set_info *infos, size_t n,
			     const char *set_name)
{
	fs_annot_doc doc;
	memset(&doc, 0, sizeof doc);
	copy_utf8(doc.image_name, sizeof doc.image_name, rec->original_name);
	doc.um_per_px = rec->um_per_px;
	copy_utf8(doc.calibration_method, sizeof doc.calibration_method, rec->calibration_method);
	doc.detected_version = 3;
	doc.sets = calloc(n ? n : 1, sizeof *doc.sets);
	if (!doc.sets)
		return FS_DB_ERROR;
	doc.n_sets = n;
	/* the head's fields of every set (ids and names) come from infos */
	for (size_t i = 0; i < n; i++)
		annot_set_head(&infos[i], &doc.sets[i]);
	struct export_sets x = {r->app->db, infos, 0};
	if (n) {
		int rc = annot_set_from_store(r->app->db, &infos[0], &doc.sets[0]);
		if (rc) {
			fs_annot_doc_free(&doc);
			return rc;
		}
		x.first_loaded = 1;
	}
	char now[40];
	iso_utc((long long)time(NULL), now, sizeof now);
	attachment(w, rec, set_name, "_annotations.json");
	fs_sink *out = fs_resp_stream_begin(r, w, 200, "application/json; charset=utf-8");
	/* a HEAD request: the head is all, nothing is written */
	int bad = !w->head_only &&
		  (fs_annot_write_sets(&doc, now, load_export_set, &x, out) || fs_sink_put(out, "\n", 1));
	fs_annot_doc_free(&doc);
	if (fs_resp_stream_end(w, bad))
		return 0;
	cJSON *ev = cJSON_CreateObject();
	cJSON_AddStringToObject(ev, "format", "json");
	cJSON_AddNumberToObject(ev, "n_sets", (double)n);
	if (set_name)
		cJSON_AddStringToObject(ev, "set", set_name);
	fs_event_log(r->app->db, r->user.id, rec->id, "annotations_exported", ev);
	cJSON_Delete(ev);
	return 0;
}

static int h_set_export_json(fs_req *r, fs_resp *w)
{
	fs_set_info info;
	fs_image_rec rec;
	int rc = set_access(r, w, r->ids[0], &info, &rec);
	if (rc)
		return rc > 0 ? 0 : rc;
	return reply_annotations(r, w, &rec, &info, 1, info.name);
}

static int h_image_export_json(fs_req *r, fs_resp *w)
{
	fs_image_rec rec;
	int rc = image_access(r, w, r->ids[0], &rec);
	if (rc)
		return rc > 0 ? 0 : rc;
	fs_set_info *infos = NULL;
	size_t n = 0;
	rc = fs_set_list(r->app->db, rec.id, &infos, &n);
	if (!rc)
		rc = reply_annotations(r, w, &rec, infos, n, NULL);
	free(infos);
	return rc;
}

/* ---- import ---- */

struct file_part_ctx {
	fs_buf *out;
	int in_file, found;
	char filename[256];
};

static int mp_begin(void *ud, const char *name, const char *filename, const char *ct)
{
	(void)ct;
	struct file_part_ctx *c = ud;
	c->in_file = name && !strcmp(name, "file") && !c->found;
	if (c->in_file) {
		c->found = 1;
		copy_utf8(c->filename, sizeof c->filename, filename ? filename : "");
	}
	return 0;
}

static int mp_data(void *ud, const char *data, size_t len)
{
	struct file_part_ctx *c = ud;
	if (c->in_file && fs_buf_append(c->out, data, len))
		return 1;
	return 0;
}

static int mp_end(void *ud)
{
	((struct file_part_ctx *)ud)->in_file = 0;
	return 0;
}

/* Reads the annotation file: the JSON body itself, or the multipart field
 * "file". Returns 0, or an HTTP status after answering. */
static int read_import_body(fs_req *r, fs_resp *w, fs_buf *file, char *filename, size_t fnlen)
{
	const char *ct = r->content_type ? r->content_type : "";
	int json = !strncasecmp(ct, "application/json", 16);
	int multi = !strncasecmp(ct, "multipart/form-data", 19);
	if (!json && !multi) {
		fs_resp_error(r, w, 415, "send the annotation file as application/json or as multipart field 'file'");
		return 415;
	}
	fs_buf body = FS_BUF_INIT;
	int st = fs_req_read_body(r, IMPORT_MAX_BYTES, &body);
	if (st) {
		if (st == 413)
			fs_resp_error(r, w, 413, "the annotation file is too large (at most %u bytes)", IMPORT_MAX_BYTES);
		else
			fs_resp_error(r, w, st, "could not read the request body");
		fs_buf_free(&body);
		return st;
	}
	snprintf(filename, fnlen, "(request body)");
	if (json) {
		*file = body;
		return 0;
	}
	struct file_part_ctx c = {file, 0, 0, ""};
	fs_multipart_cb cb = {mp_begin, mp_data, mp_end};
	char err[160];
	fs_multipart *m = fs_multipart_new(ct, &cb, &c, err, sizeof err);
	st = 0;
	if (!m) {
		fs_resp_error(r, w, 400, "%s", err);
		st = 400;
	} else if (fs_multipart_feed(m, body.data ? body.data : "", body.len) || fs_multipart_finish(m)) {
		fs_resp_error(r, w, 400, "malformed multipart body: %s", fs_multipart_error(m));
		st = 400;
	} else if (!c.found) {
		fs_resp_error(r, w, 422, "the multipart body has no field 'file'");
		st = 422;
	} else if (c.filename[0]) {
		snprintf(filename, fnlen, "%s", c.filename);
	}
	fs_multipart_free(m);
	fs_buf_free(&body);
	if (st)
		fs_buf_free(file);
	return st;
}

/* A set name the store accepts: forbidden and control characters dropped,
 * trimmed, at most FS_SET_NAME_MAX characters; "Imported" when nothing is left. */
static void clean_set_name(const char *in, char *out, size_t n)
{
	size_t k = 0, chars = 0;
	for (const unsigned char *p = (const unsigned char *)in; *p && k + 1 < n; p++) {
		if (*p < 0x20 || *p == 0x7f || strchr("/\\:*?\"<>|", *p))
			continue;
		if ((*p & 0xc0) != 0x80 && ++chars > FS_SET_NAME_MAX - 8)
			break; /* leaves room for a " (nn)" suffix */
		out[k++] = (char)*p;
	}
	while (k > 0 && ((unsigned char)out[k - 1] & 0xc0) == 0xc0)
		k--; /* a lead byte whose continuation did not fit */
	out[k] = 0;
	char tmp[FS_SET_NAME_MAX * 4 + 1];
	if (!fs_set_name_valid(out, tmp, sizeof tmp))
		snprintf(out, n, "Imported");
	else
		snprintf(out, n, "%s", tmp);
}

static int name_taken(const cJSON *taken, const char *name)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, taken)
	{
		if (!strcasecmp(it->valuestring, name))
			return 1;
	}
	return 0;
}

/* "Base", "Base (2)", "Base (3)", ... the first not in taken. */
static void unique_name(const cJSON *taken, const char *base, char *out, size_t n)
{
	snprintf(out, n, "%s", base);
	for (int k = 2; name_taken(taken, out) && k < 10000; k++)
		snprintf(out, n, "%s (%d)", base, k);
}

static void undo_created(fs_db *db, const long long *ids, size_t n)
{
	char err[128];
	for (size_t i = 0; i < n; i++)
		fs_set_delete(db, ids[i], -1, NULL, err, sizeof err);
}

/* Stores one parsed set as a new set of the image; *id receives it. */
static int import_set(fs_req *r, long long image_id, const fs_annot_set *s, const char *name, const char *filename,
		      int version, long long *id, char *err, size_t errlen)
{
	*id = 0;
	int rc = fs_set_create(r->app->db, image_id, name, r->user.id, id, err, errlen);
	if (rc)
		return rc;
	long long rev;
	/* the diameters are as measured by the version the file names (our own
	 * export says), else "before versioning" (0) */
	rc = fs_set_replace_all_version(r->app->db, *id, -1, r->user.id, &s->tubercles, &s->edges,
					s->has_params ? &s->params : NULL, "import", s->measurement_version, 0, &rev,
					NULL, err, errlen);
	if (rc)
		return rc;
	if (s->calibration_um_per_px > 0) {
		sqlite3_stmt *st = fs_db_stmt(r->app->db, "UPDATE sets SET calibration_um_per_px = ? WHERE id = ?");
		if (!st)
			return FS_DB_ERROR;
		fs_bind b = fs_bind_start(r->app->db, st);
		fs_bind_double(&b, 1, s->calibration_um_per_px);
		fs_bind_int64(&b, 2, *id);
		rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
		fs_db_done(st);
		if (rc)
			return rc;
	}
	cJSON *ev = cJSON_CreateObject();
	cJSON_AddStringToObject(ev, "filename", filename);
	cJSON_AddNumberToObject(ev, "format_version", version);
	cJSON_AddStringToObject(ev, "source_set_name", s->name);
	if (s->id[0])
		cJSON_AddStringToObject(ev, "source_set_id", s->id);
	cJSON_AddNumberToObject(ev, "n_tubercles", (double)s->tubercles.n);
	cJSON_AddNumberToObject(ev, "n_edges", (double)s->edges.n);
	if (s->calibration_um_per_px > 0)
		cJSON_AddNumberToObject(ev, "calibration_um_per_pixel", s->calibration_um_per_px);
	/* the file's own history keeps its times and users inside this event */
	if (s->history && cJSON_GetArraySize(s->history) > 0)
		cJSON_AddItemToObject(ev, "file_history", cJSON_Duplicate(s->history, 1));
	rc = fs_history_add(r->app->db, *id, r->user.id, "import", ev);
	cJSON_Delete(ev);
	/* the file is someone's saved work: the new set is not "unsaved" */
	return rc ? rc : fs_set_mark_saved(r->app->db, *id);
}

static cJSON *report_lines(const fs_buf *report)
{
	cJSON *arr = cJSON_CreateArray();
	const char *p = report->data ? report->data : "";
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		char *line = strndup(p, l);
		if (line)
			cJSON_AddItemToArray(arr, cJSON_CreateString(line));
		free(line);
		p += l + (nl ? 1 : 0);
	}
	return arr;
}

static int h_image_import(fs_req *r, fs_resp *w)
{
	fs_image_rec rec;
	int rc = image_access(r, w, r->ids[0], &rec);
	if (rc)
		return rc > 0 ? 0 : rc;
	fs_buf file = FS_BUF_INIT, report = FS_BUF_INIT;
	fs_annot_doc doc;
	memset(&doc, 0, sizeof doc);
	fs_set_info *infos = NULL;
	size_t n_infos = 0;
	long long *created = NULL;
	size_t n_created = 0;
	cJSON *taken = NULL, *out = NULL;
	char filename[256], err[256] = "";
	if (read_import_body(r, w, &file, filename, sizeof filename))
		goto out;
	if (fs_annot_parse(file.data ? file.data : "", file.len, &doc, &report, err, sizeof err)) {
		cJSON *ev = cJSON_CreateObject();
		cJSON_AddStringToObject(ev, "filename", filename);
		cJSON_AddStringToObject(ev, "error", err);
		fs_event_log(r->app->db, r->user.id, rec.id, "annotations_load_failed", ev);
		cJSON_Delete(ev);
		/* the parser's messages mostly say so already: say it once */
		if (strncmp(err, "not an annotation file", 22) == 0)
			fs_resp_error(r, w, 422, "%s", err);
		else
			fs_resp_error(r, w, 422, "not an annotation file: %s", err);
		goto out;
	}
	if (!doc.n_sets) {
		fs_resp_error(r, w, 422, "the annotation file holds no sets");
		goto out;
	}
	rc = fs_set_list(r->app->db, rec.id, &infos, &n_infos);
	if (rc)
		goto out;
	taken = cJSON_CreateArray();
	created = calloc(doc.n_sets, sizeof *created);
	out = ok_obj();
	if (!taken || !created || !out) {
		rc = FS_DB_ERROR;
		goto out;
	}
	for (size_t i = 0; i < n_infos; i++)
		cJSON_AddItemToArray(taken, cJSON_CreateString(infos[i].name));
	cJSON *sets = cJSON_AddArrayToObject(out, "sets");
	long long total_t = 0, total_e = 0;
	for (size_t i = 0; i < doc.n_sets; i++) {
		const fs_annot_set *s = &doc.sets[i];
		char base[FS_SET_NAME_MAX * 4 + 1], name[FS_SET_NAME_MAX * 4 + 16];
		clean_set_name(s->name, base, sizeof base);
		unique_name(taken, base, name, sizeof name);
		long long id;
		rc = import_set(r, rec.id, s, name, filename, doc.detected_version, &id, err, sizeof err);
		if (id)
			created[n_created++] = id;
		if (rc)
			break;
		cJSON_AddItemToArray(taken, cJSON_CreateString(name));
		if (strcmp(name, s->name))
			fs_buf_printf(&report, "set '%s' stored as '%s'\n", s->name, name);
		/* the store numbers a replaced set's tubercles 1..n in file order */
		size_t moved = 0;
		for (size_t k = 0; k < s->tubercles.n; k++)
			moved += s->tubercles.items[k].id != (int)k + 1;
		if (moved)
			fs_buf_printf(&report, "set '%s': %zu tubercle ids renumbered to 1..%zu in file order\n", name,
				      moved, s->tubercles.n);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "id", (double)id);
		cJSON_AddStringToObject(o, "name", name);
		cJSON_AddNumberToObject(o, "n_tubercles", (double)s->tubercles.n);
		cJSON_AddNumberToObject(o, "n_edges", (double)s->edges.n);
		cJSON_AddItemToArray(sets, o);
		total_t += (long long)s->tubercles.n;
		total_e += (long long)s->edges.n;
	}
	if (rc) {
		/* all or nothing: no half-imported file stays behind */
		undo_created(r->app->db, created, n_created);
		if (rc != FS_DB_BUSY) {
			fs_resp_error(r, w, fs_http_status_for_db(rc), "import failed: %s", err[0] ? err : "storage error");
			rc = 0;
		}
		goto out;
	}
	if (doc.um_per_px > 0 && fabs(doc.um_per_px - rec.um_per_px) > 1e-12)
		fs_buf_printf(&report, "the file's calibration %.6g um/px differs from the image's (%s); the sets "
				       "keep the file's as their snapshot\n",
			      doc.um_per_px, rec.um_per_px > 0 ? "calibrated" : "uncalibrated");
	cJSON_AddNumberToObject(out, "version", doc.detected_version);
	cJSON_AddItemToObject(out, "report", report_lines(&report));
	cJSON *ev = cJSON_CreateObject();
	cJSON_AddStringToObject(ev, "filename", filename);
	cJSON_AddNumberToObject(ev, "version", doc.detected_version);
	cJSON_AddNumberToObject(ev, "n_sets", (double)doc.n_sets);
	cJSON_AddNumberToObject(ev, "n_tubercles", (double)total_t);
	cJSON_AddNumberToObject(ev, "n_edges", (double)total_e);
	fs_event_log(r->app->db, r->user.id, rec.id, "annotations_loaded", ev);
	cJSON_Delete(ev);
	fs_resp_json(w, 201, out);
	out = NULL;
	rc = 0;
out:
	cJSON_Delete(out);
	cJSON_Delete(taken);
	free(created);
	free(infos);
	fs_annot_doc_free(&doc);
	fs_buf_free(&report);
	fs_buf_free(&file);
	return rc;
}

/* ---- CSV and overlay ---- */

enum csv_kind { CSV_TUBERCLES, CSV_EDGES, CSV_SUMMARY };

/* The user's hexagonalness weights (defaults when unreadable). */
static void user_weights(fs_req *r, fs_hex_weights *hw)
{
	fs_hex_weights_default(hw);
	cJSON *s = NULL;
	if (fs_settings_get(r->app->db, r->user.id, &s))
		return;
	hw->spacing = cJSON_GetObjectItem(s, "hex_spacing_weight")->valuedouble;
	hw->degree = cJSON_GetObjectItem(s, "hex_degree_weight")->valuedouble;
	hw->edge_ratio = cJSON_GetObjectItem(s, "hex_edge_ratio_weight")->valuedouble;
	cJSON_Delete(s);
}

/* The tubercles' and edges' CSVs are streamed (http.h) a chunk at a time
 * from the set's rows; the summary is one line. */
static int set_csv(fs_req *r, fs_resp *w, enum csv_kind kind)
{
	fs_set_info info;
	fs_image_rec rec;
	int rc = set_access(r, w, r->ids[0], &info, &rec);
	if (rc)
		return rc > 0 ? 0 : rc;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	rc = fs_set_load(r->app->db, info.id, &t, &e);
	if (rc)
		goto out;
	if (kind != CSV_SUMMARY) {
		attachment(w, &rec, info.name, kind == CSV_TUBERCLES ? "_tub.csv" : "_itc.csv");
		fs_sink *sink = fs_resp_stream_begin(r, w, 200, "text/csv; charset=utf-8");
		int bad = w->head_only                ? 0 :
			  kind == CSV_TUBERCLES ? fs_csv_tubercles_to(sink, &t, rec.um_per_px) :
						  fs_csv_edges_to(sink, &t, &e, rec.um_per_px);
		fs_resp_stream_end(w, bad);
		goto out;
	}
	fs_buf_reset(&w->body);
	fs_hex_weights hw;
	fs_stats s;
	user_weights(r, &hw);
	char label[600];
	snprintf(label, sizeof label, "%s / %s", rec.original_name, info.name);
	if (fs_stats_compute(&t, &e, rec.um_per_px, &hw, rec.width, rec.height, &s) || fs_csv_summary_header(&w->body) ||
	    fs_csv_summary_row(&w->body, label, &s, rec.um_per_px > 0, info.measurement_version)) {
		fs_buf_reset(&w->body);
		rc = FS_DB_ERROR;
		goto out;
	}
	w->status = 200;
	snprintf(w->content_type, sizeof w->content_type, "text/csv; charset=utf-8");
	attachment(w, &rec, info.name, "_summary.csv");
out:
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	return rc;
}

static int h_set_tubercles_csv(fs_req *r, fs_resp *w)
{
	return set_csv(r, w, CSV_TUBERCLES);
}

static int h_set_edges_csv(fs_req *r, fs_resp *w)
{
	return set_csv(r, w, CSV_EDGES);
}

static int h_set_summary_csv(fs_req *r, fs_resp *w)
{
	return set_csv(r, w, CSV_SUMMARY);
}

static const fs_field overlay_fields[] = {
	{"max_side", FS_FIELD_INT, 0, 16, 16384, 0, NULL},
	{"ids", FS_FIELD_BOOL, 0, 0, 0, 0, NULL},
	{"scale_bar", FS_FIELD_BOOL, 0, 0, 0, 0, NULL},
	{"region", FS_FIELD_BOOL, 0, 0, 0, 0, NULL},
};

/* The largest overlay drawn (4096 x 4096): an RGB copy of 48 MB. */
#define OVERLAY_MAX_PIXELS (4096.0 * 4096.0)

/*
 * The scale region an overlay shades, in the frame's coordinates (those of
 * the tubercles and of render.h's shade grid). img may be a reduced copy
 * (f x f blocks a pixel, src_scale = 1 / f): it is never handed to
 * fs_scale_region_for, which would take the copy for the frame, find no
 * region stored at the copy's size, and replace the frame's stored region
 * (a person's correction included) with the copy's automatic one. The
 * frame's stored region is shaded; when none is stored yet, the copy's
 * automatic region with its cells scaled back to the frame (not stored).
 */
static int overlay_region(fs_db *db, const fs_image_rec *rec, const fs_image *img, double src_scale,
			  fs_scale_region *reg, char *err, size_t errlen)
{
	if (img->width == rec->width && img->height == rec->height)
		return fs_scale_region_for(db, rec->id, rec->work_key, img, reg, NULL, err, errlen);
	int rc = fs_scale_region_stored(db, rec->id, rec->work_key, rec->width, rec->height, reg, NULL);
	if (rc != FS_DB_NOTFOUND)
		return rc;
	if (fs_scale_region_detect(img, reg, err, errlen))
		return FS_DB_ERROR;
	int f = src_scale > 0 && src_scale < 1 ? (int)lround(1.0 / src_scale) : 1;
	reg->cell *= f;
	reg->width = rec->width;
	reg->height = rec->height;
	reg->databar_rect.x *= f;
	reg->databar_rect.y *= f;
	reg->databar_rect.width *= f;
	reg->databar_rect.height *= f;
	return FS_DB_OK;
}

static int h_set_overlay(fs_req *r, fs_resp *w)
{
	fs_value v[NF(overlay_fields)];
	char err[256];
	if (fs_validate_kv(&r->query_kv, overlay_fields, NF(overlay_fields), v, 0, err, sizeof err)) {
		fs_resp_error(r, w, 422, "%s", err);
		return 0;
	}
	fs_set_info info;
	fs_image_rec rec;
	int rc = set_access(r, w, r->ids[0], &info, &rec);
	if (rc)
		return rc > 0 ? 0 : rc;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_image *img = NULL;
	unsigned char *png = NULL;
	size_t png_len = 0;
	rc = fs_set_load(r->app->db, info.id, &t, &e);
	if (rc)
		goto out;
	/* at most OVERLAY_MAX_PIXELS drawn: a large image is read already
	 * reduced, band by band, so a 100 MP image costs megabytes, not 400 MB */
	int max_side = v[0].present ? (int)v[0].i : 0;
	double big = rec.width > rec.height ? rec.width : rec.height;
	double fit = big * sqrt((double)OVERLAY_MAX_PIXELS / ((double)rec.width * rec.height));
	if ((double)rec.width * rec.height > OVERLAY_MAX_PIXELS && (max_side <= 0 || max_side > fit))
		max_side = (int)fit;
	double src_scale = 1.0;
	char path[4096];
	if (max_side > 0 && (rec.width > max_side || rec.height > max_side) &&
	    !fs_file_path(r->app->cfg.data_dir, FS_FILE_WORK, rec.work_key, path, sizeof path))
		img = fs_work_file_read_reduced(path, max_side, &src_scale, err, sizeof err);
	else
		img = fs_image_load_work(r->app->cfg.data_dir, &rec, err, sizeof err);
	if (!img) {
		fs_resp_error(r, w, 500, "could not read the image: %s", err);
		goto out;
	}
	fs_render_opts o;
	fs_render_opts_default(&o);
	o.max_side = max_side;
	o.source_scale = src_scale;
	o.show_ids = v[1].present && v[1].b;
	if (v[2].present)
		o.show_scale_bar = v[2].b;
	o.um_per_px = rec.um_per_px;
	/* region=1: what is not scale surface is shaded (scale_regions.h) */
	fs_scale_region reg = {0};
	if (v[3].present && v[3].b &&
	    overlay_region(r->app->db, &rec, img, src_scale, &reg, err, sizeof err) == FS_DB_OK) {
		o.shade = reg.in;
		o.shade_cell = reg.cell;
		o.shade_gw = reg.gw;
		o.shade_gh = reg.gh;
	}
	double scale;
	int rrc = fs_render_png(img, &t, &e, &o, &png, &png_len, &scale, err, sizeof err);
	fs_scale_region_free(&reg);
	if (rrc) {
		fs_resp_error(r, w, 500, "could not draw the overlay: %s", err);
		goto out;
	}
	fs_buf_reset(&w->body);
	if (fs_buf_append(&w->body, png, png_len)) {
		rc = FS_DB_ERROR;
		goto out;
	}
	w->status = 200;
	snprintf(w->content_type, sizeof w->content_type, "image/png");
	/* inline, since a page may show it in an <img>; the name is for a
	 * download: <image>_<set>_overlay.png, never "overlay.png" */
	disposition(w, "inline", &rec, info.name, "_overlay.png");
	fs_resp_header(w, "Cache-Control", "private, no-cache");
out:
	free(png);
	fs_image_free(img);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	return rc;
}

const fs_route fs_routes_data[] = {
	{"GET", "/api/log", h_log_list, FS_MEMBER, 0},
	{"POST", "/api/log", h_log_post, FS_MEMBER, 0},
	{"GET", "/api/log/export.jsonl", h_log_export, FS_MEMBER, 0},

	{"GET", "/api/settings", h_settings_get, FS_MEMBER, 0},
	{"PUT", "/api/settings", h_settings_put, FS_MEMBER, 0},
	{"POST", "/api/settings/reset", h_settings_reset, FS_MEMBER, 0},

	{"GET", "/api/parameters", h_parameters, FS_MEMBER, 0},
	{"GET", "/api/profiles", h_profiles_list, FS_MEMBER, 0},
	{"POST", "/api/profiles", h_profiles_save, FS_MEMBER, 0},
	{"DELETE", "/api/profiles/{id}", h_profiles_delete, FS_MEMBER, 0},
	{"POST", "/api/profile", h_profile_get, FS_MEMBER, 0},

	{"GET", "/api/sets/{id}/export.json", h_set_export_json, FS_MEMBER, 0},
	{"GET", "/api/images/{id}/export.json", h_image_export_json, FS_MEMBER, 0},
	{"POST", "/api/images/{id}/import", h_image_import, FS_MEMBER, FS_ROUTE_RAW_BODY},
	{"GET", "/api/sets/{id}/tubercles.csv", h_set_tubercles_csv, FS_MEMBER, 0},
	{"GET", "/api/sets/{id}/edges.csv", h_set_edges_csv, FS_MEMBER, 0},
	{"GET", "/api/sets/{id}/summary.csv", h_set_summary_csv, FS_MEMBER, 0},
	{"GET", "/api/sets/{id}/overlay.png", h_set_overlay, FS_MEMBER, 0},
};
const size_t fs_routes_data_n = NF(fs_routes_data);
