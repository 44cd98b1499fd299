/*
 * route_workspace.c - the workspace page of one image (the browser client
 * in static/js/ does the rest through the JSON API).
 *
 * The page is only a shell: it carries the image id and name so the
 * scripts know what to load; an image the user may not see answers 404
 * exactly like one that does not exist, so ids cannot be probed. The first
 * set's id is in the page too, so the browser can fetch the image, the set
 * list and that set at once instead of one after the other; ?set=ID makes
 * another of its sets the first one opened.
 */
#include <stdlib.h>

#include "store/store.h"
#include "routes/routes.h"

static int h_workspace(fs_req *r, fs_resp *w)
{
	fs_image_rec rec;
	int rc = fs_image_check_access(r->app->db, r->ids[0], &r->user, FS_ACCESS_READ, &rec);
	if (rc == FS_DB_NOTFOUND || rc == FS_DB_FORBIDDEN) {
		fs_resp_error(r, w, 404, "no such image");
		return 0;
	}
	if (rc)
		return rc;
	cJSON *ctx = cJSON_CreateObject();
	cJSON *img = fs_image_to_json(&rec, r->app->cfg.base_path, &r->user);
	if (!ctx || !img) {
		cJSON_Delete(ctx);
		cJSON_Delete(img);
		return FS_DB_ERROR;
	}
	cJSON_AddItemToObject(ctx, "image", img);
	fs_set_info *sets = NULL;
	size_t n = 0;
	rc = fs_set_list(r->app->db, rec.id, &sets, &n);
	if (rc) {
		cJSON_Delete(ctx);
		return rc;
	}
	/* ?set=ID opens that set of the image first (the Compare page links so) */
	long long first = n ? sets[0].id : 0;
	const char *want = fs_kv_get(&r->query_kv, "set");
	for (size_t i = 0; want && i < n; i++)
		if (strtoll(want, NULL, 10) == sets[i].id)
			first = sets[i].id;
	if (first)
		cJSON_AddNumberToObject(ctx, "first_set_id", (double)first);
	free(sets);
	fs_resp_page(r, w, 200, "workspace.html", ctx);
	return 0;
}

const fs_route fs_routes_workspace[] = {
	{"GET", "/workspace/{id}", h_workspace, FS_MEMBER, 0},
};
const size_t fs_routes_workspace_n = sizeof fs_routes_workspace / sizeof fs_routes_workspace[0];
