/*
 * route_scale_region.c - an image's scale region over HTTP (see
 * store/scale_regions.h and docs/API.md):
 *   GET /api/images/{id}/scale_region   anyone who may see the image
 *   PUT /api/images/{id}/scale_region   the owner or an administrator:
 *       {"cell": C, "rows": [[x0, x1, ...], ...]}  a person's region, or
 *       {"reset": true}                            back to automatic
 * The region belongs to the working image as it is now (after rotations
 * and crops); its grid is fixed by the frame's size, so a PUT must use the
 * cell and row count a GET gave.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "analysis/analysis.h"
#include "base/base.h"
#include "routes/routes.h"
#include "store/store.h"
#include "web/web.h"

static int refuse(fs_req *r, fs_resp *w, int rc)
{
	if (rc == FS_DB_NOTFOUND) {
		fs_resp_error(r, w, 404, "no such image");
		return 0;
	}
	if (rc == FS_DB_FORBIDDEN) {
		fs_resp_error(r, w, 403, "only the image's owner or an administrator may change its scale region");
		return 0;
	}
	return rc;
}

/* The region in force for rec (computed and cached when missing); 0, or an
 * answer sent / an fs_db_rc. */
static int region_of(fs_req *r, fs_resp *w, const fs_image_rec *rec, fs_scale_region *reg, fs_scale_region_meta *meta)
{
	char dd[1200], err[512] = "";
	fs_app_data_path(r->app, "", dd, sizeof dd);
	/* compact (image.h): the region is found by row bands either way, the
	 * same region, and a worker then holds 1 or 2 bytes a pixel, not 4 */
	fs_image *img = fs_image_load_work_compact(dd, rec, err, sizeof err);
	if (!img) {
		fs_resp_error(r, w, 500, "cannot read the image: %s", err);
		return -1;
	}
	int rc = fs_scale_region_for(r->app->db, rec->id, rec->work_key, img, reg, meta, err, sizeof err);
	fs_image_free(img);
	return rc;
}

static cJSON *region_json(const fs_image_rec *rec, const fs_scale_region *reg, const fs_scale_region_meta *meta)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddNumberToObject(o, "image_id", (double)rec->id);
	cJSON_AddNumberToObject(o, "revision", rec->revision);
	cJSON_AddNumberToObject(o, "width", reg->width);
	cJSON_AddNumberToObject(o, "height", reg->height);
	cJSON_AddNumberToObject(o, "cell", reg->cell);
	cJSON_AddNumberToObject(o, "grid_width", reg->gw);
	cJSON_AddNumberToObject(o, "grid_height", reg->gh);
	cJSON_AddStringToObject(o, "source", meta->user ? "user" : "auto");
	if (meta->user && meta->updated_at)
		cJSON_AddNumberToObject(o, "updated_at", (double)meta->updated_at);
	cJSON_AddNumberToObject(o, "area_fraction", (double)(long)(10000 * fs_scale_region_fraction(reg)) / 10000);
	fs_rect bb;
	if (!fs_scale_region_bbox(reg, &bb)) {
		cJSON *b = cJSON_AddObjectToObject(o, "bbox");
		cJSON_AddNumberToObject(b, "x", bb.x);
		cJSON_AddNumberToObject(b, "y", bb.y);
		cJSON_AddNumberToObject(b, "width", bb.width);
		cJSON_AddNumberToObject(b, "height", bb.height);
	} else {
		cJSON_AddNullToObject(o, "bbox");
	}
	size_t cap = fs_scale_region_rows_cap(reg);
	char *rows = malloc(cap);
	cJSON *arr = rows && !fs_scale_region_rows_write(reg, rows, cap) ? cJSON_Parse(rows) : NULL;
	free(rows);
	if (!arr) {
		cJSON_Delete(o);
		return NULL;
	}
	cJSON_AddItemToObject(o, "rows", arr);
	return o;
}

/* The image's region as GET answers it (also after PUT). */
static int reply_region(fs_req *r, fs_resp *w, const fs_image_rec *rec)
{
	fs_scale_region reg;
	fs_scale_region_meta meta;
	int rc = region_of(r, w, rec, &reg, &meta);
	if (rc)
		return rc < 0 ? 0 : rc;
	cJSON *o = region_json(rec, &reg, &meta);
	fs_scale_region_free(&reg);
	if (!o)
		return FS_DB_ERROR;
	fs_resp_json(w, 200, o);
	return 0;
}

static int h_get(fs_req *r, fs_resp *w)
{
	fs_image_rec rec;
	int rc = fs_image_check_access(r->app->db, r->ids[0], &r->user, FS_ACCESS_READ, &rec);
	if (rc)
		return refuse(r, w, rc);
	return reply_region(r, w, &rec);
}

static int h_put(fs_req *r, fs_resp *w)
{
	fs_image_rec rec;
	int rc = fs_image_check_access(r->app->db, r->ids[0], &r->user, FS_ACCESS_MANAGE, &rec);
	if (rc)
		return refuse(r, w, rc);
	if (!r->json) {
		fs_resp_error(r, w, 422, "a JSON object is required: {\"cell\": C, \"rows\": [...]} or {\"reset\": true}");
		return 0;
	}
	char err[512] = "";
	const cJSON *reset = cJSON_GetObjectItemCaseSensitive(r->json, "reset");
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(r->json, "rows");
	const cJSON *cell = cJSON_GetObjectItemCaseSensitive(r->json, "cell");
	for (const cJSON *it = r->json->child; it; it = it->next)
		if (strcmp(it->string, "reset") && strcmp(it->string, "rows") && strcmp(it->string, "cell") &&
		    strcmp(it->string, "summary")) {
			fs_resp_error(r, w, 422, "unknown field '%s' (cell, rows, reset, summary)", it->string);
			return 0;
		}
	const cJSON *sum = cJSON_GetObjectItemCaseSensitive(r->json, "summary");
	char summary[121] = "";
	if (sum) {
		if (!cJSON_IsString(sum) || strlen(sum->valuestring) > 120) {
			fs_resp_error(r, w, 422, "summary must be a text of at most 120 bytes");
			return 0;
		}
		snprintf(summary, sizeof summary, "%s", sum->valuestring);
		for (char *p = summary; *p; p++)
			if ((unsigned char)*p < 0x20)
				*p = ' ';
	}
	if (reset) {
		if (!cJSON_IsTrue(reset) || rows || cell) {
			fs_resp_error(r, w, 422, "reset must be true and comes without cell and rows");
			return 0;
		}
		rc = fs_scale_region_change(r->app->db, rec.id, rec.work_key, r->user.id, NULL,
					    summary[0] ? summary : "reset to automatic", err, sizeof err);
	} else {
		if (!cJSON_IsNumber(cell) || !cJSON_IsArray(rows)) {
			fs_resp_error(r, w, 422, "cell (a number) and rows (an array of runs per grid row) are required");
			return 0;
		}
		if (!(cell->valuedouble >= 1 && cell->valuedouble <= 65536) ||
		    cell->valuedouble != (double)(int)cell->valuedouble) {
			fs_resp_error(r, w, 422, "cell must be a whole number of pixels (the GET's cell)");
			return 0;
		}
		if (cJSON_GetArraySize(rows) > 70000) {
			fs_resp_error(r, w, 422, "too many rows");
			return 0;
		}
		/* the shapes are checked by the parser (counts, order, bounds,
		 * at most FS_SCALE_REGION_MAX_RUNS runs); non-integers fail it */
		char *text = cJSON_PrintUnformatted(rows);
		fs_scale_region reg;
		int prc = text ? fs_scale_region_rows_parse(text, rec.width, rec.height, (int)cell->valuedouble, &reg,
							    err, sizeof err)
			       : -1;
		cJSON_free(text);
		if (prc) {
			fs_resp_error(r, w, 422, "%s", err[0] ? err : "out of memory");
			return 0;
		}
		rc = fs_scale_region_change(r->app->db, rec.id, rec.work_key, r->user.id, &reg,
					    summary[0] ? summary : "edited in the Image tab", err, sizeof err);
		fs_scale_region_free(&reg);
	}
	if (rc)
		return rc;
	rc = fs_image_get(r->app->db, rec.id, &rec);
	if (rc)
		return refuse(r, w, rc);
	return reply_region(r, w, &rec);
}

const fs_route fs_routes_scale_region[] = {
	{"GET", "/api/images/{id}/scale_region", h_get, FS_MEMBER, 0},
	{"PUT", "/api/images/{id}/scale_region", h_put, FS_MEMBER, 0},
};
const size_t fs_routes_scale_region_n = sizeof fs_routes_scale_region / sizeof fs_routes_scale_region[0];
