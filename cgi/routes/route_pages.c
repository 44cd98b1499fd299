/*
 * route_pages.c - the library (landing page after login) and About.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/store.h"
#include "routes/routes.h"
#include "web/web.h"
#include "base/base.h"

/* The library: the images the user may see, with search, sort and pages
 * (server-rendered; the same query fields as GET /api/images). */
int fs_h_library(fs_req *r, fs_resp *w)
{
	static const char *const sorts[] = {"date", "name", "owner", NULL};
	static const char *const orders[] = {"asc", "desc", NULL};
	static const fs_field fields[] = {
		{"q", FS_FIELD_STRING, 0, 0, 0, 200, NULL},
		{"sort", FS_FIELD_ENUM, 0, 0, 0, 0, sorts},
		{"order", FS_FIELD_ENUM, 0, 0, 0, 0, orders},
		{"page", FS_FIELD_INT, 0, 1, 1000000, 0, NULL},
	};
	fs_value v[4];
	char err[256];
	cJSON *ctx = cJSON_CreateObject();
	/* a bad query shows the first page and says why, instead of an error page */
	if (fs_validate_kv(&r->query_kv, fields, 4, v, 1, err, sizeof err)) {
		cJSON_AddStringToObject(ctx, "message", err);
		memset(v, 0, sizeof v);
	}
	fs_image_query q = {
		.q = v[0].present ? v[0].s : "",
		.sort = v[1].present ? (int)v[1].i : FS_SORT_DATE,
		.page = v[3].present ? (int)v[3].i : 1,
		.per_page = 24,
	};
	q.desc = v[2].present ? v[2].i == 1 : q.sort == FS_SORT_DATE;
	fs_image_rec *recs = NULL;
	size_t n = 0;
	long long total = 0;
	int rc = fs_image_list(r->app->db, &r->user, &q, &recs, &n, &total);
	if (rc) {
		cJSON_Delete(ctx);
		return rc;
	}
	cJSON *arr = cJSON_AddArrayToObject(ctx, "images");
	for (size_t i = 0; i < n; i++) {
		cJSON *o = fs_image_to_json(&recs[i], r->app->cfg.base_path, &r->user);
		char when[32];
		time_t t = (time_t)recs[i].created_at;
		struct tm tm;
		gmtime_r(&t, &tm);
		strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
		cJSON_AddStringToObject(o, "created", when);
		cJSON_AddItemToArray(arr, o);
	}
	free(recs);
	long long pages = (total + q.per_page - 1) / q.per_page;
	cJSON_AddStringToObject(ctx, "q", q.q);
	cJSON_AddStringToObject(ctx, "sort", sorts[q.sort]);
	cJSON_AddStringToObject(ctx, "order", q.desc ? "desc" : "asc");
	cJSON_AddNumberToObject(ctx, "total", (double)total);
	cJSON_AddNumberToObject(ctx, "page", q.page);
	cJSON_AddNumberToObject(ctx, "pages", (double)pages);
	if (q.page > 1)
		cJSON_AddNumberToObject(ctx, "prev_page", q.page - 1);
	if (q.page < pages)
		cJSON_AddNumberToObject(ctx, "next_page", q.page + 1);
	cJSON_AddBoolToObject(ctx, "searching", q.q[0] != 0);
	long long used = 0, quota = (long long)r->app->cfg.user_quota_mb << 20;
	if (!fs_disk_usage_user(r->app->db, r->app->cfg.data_dir, r->user.id, &used)) {
		char line[160];
		if (quota > 0)
			snprintf(line, sizeof line, "Your images take %.1f MB of your %.0f MB.", used / 1048576.0,
				 quota / 1048576.0);
		else
			snprintf(line, sizeof line, "Your images take %.1f MB.", used / 1048576.0);
		cJSON_AddStringToObject(ctx, "disk_usage", line);
		cJSON_AddBoolToObject(ctx, "disk_nearly_full", quota > 0 && used > quota / 10 * 9);
	}
	fs_resp_page(r, w, 200, "library.html", ctx);
	return 0;
}

int fs_h_about(fs_req *r, fs_resp *w)
{
	cJSON *ctx = cJSON_CreateObject();
	cJSON *v = fs_version_json();
	if (v)
		cJSON_AddItemToObject(ctx, "about", v);
	fs_resp_page(r, w, 200, "about.html", ctx);
	return 0;
}
