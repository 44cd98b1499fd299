/*
 * route_health.c - GET /api/health (no login: for load balancers and
 * monitoring) and GET /api/me (who am I, and the CSRF token for scripts).
 */
#include <time.h>

#include "routes/routes.h"
#include "base/base.h"
#include "store/store.h"

int fs_h_health(fs_req *r, fs_resp *w)
{
	sqlite3_stmt *st = fs_db_stmt(r->app->db, "SELECT 1");
	int db_ok = st && sqlite3_step(st) == SQLITE_ROW;
	fs_db_done(st);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "status", db_ok ? "ok" : "degraded");
	cJSON_AddStringToObject(o, "version", fs_version_string());
	cJSON_AddStringToObject(o, "db", db_ok ? "ok" : "error");
	cJSON_AddNumberToObject(o, "uptime_s", (double)(time(NULL) - r->app->started_at));
	fs_resp_header(w, "Cache-Control", "no-store");
	fs_resp_json(w, db_ok ? 200 : 503, o);
	return 0;
}

/* The user's disk usage against the quota (a separate call: it stats files). */
int fs_h_me_disk(fs_req *r, fs_resp *w)
{
	long long used = 0;
	int rc = fs_disk_usage_user(r->app->db, r->app->cfg.data_dir, r->user.id, &used);
	if (rc)
		return rc;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddNumberToObject(o, "used_bytes", (double)used);
	cJSON_AddNumberToObject(o, "quota_bytes", (double)((long long)r->app->cfg.user_quota_mb << 20));
	fs_resp_header(w, "Cache-Control", "no-store");
	fs_resp_json(w, 200, o);
	return 0;
}

int fs_h_me(fs_req *r, fs_resp *w)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON *u = cJSON_AddObjectToObject(o, "user");
	cJSON_AddNumberToObject(u, "id", (double)r->user.id);
	cJSON_AddStringToObject(u, "login", r->user.login);
	cJSON_AddStringToObject(u, "display_name", r->user.display_name);
	cJSON_AddStringToObject(u, "role", r->user.is_admin ? "admin" : "member");
	cJSON_AddStringToObject(o, "csrf_token", r->csrf);
	fs_resp_header(w, "Cache-Control", "no-store");
	fs_resp_json(w, 200, o);
	return 0;
}
