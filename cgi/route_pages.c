/*
 * route_pages.c - the library (landing page after login) and About.
 */
#include "routes.h"
#include "version.h"

int fs_h_library(fs_req *r, fs_resp *w)
{
	cJSON *ctx = cJSON_CreateObject();
	cJSON_AddArrayToObject(ctx, "images");
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
