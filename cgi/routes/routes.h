/*
 * routes.h - the handlers of every route group; the table is in routes.c.
 * One file per group: route_health.c, route_auth.c, route_admin.c,
 * route_pages.c, route_images.c, route_sets.c, route_data.c.
 */
#ifndef FS_ROUTES_H
#define FS_ROUTES_H

#include "routes/router.h"

int fs_h_health(fs_req *r, fs_resp *w);
int fs_h_me(fs_req *r, fs_resp *w);
int fs_h_me_disk(fs_req *r, fs_resp *w);
/* route_account.c: the Account page and changing one's own password */
int fs_h_account_page(fs_req *r, fs_resp *w);
int fs_h_account_password(fs_req *r, fs_resp *w);
int fs_h_me_password(fs_req *r, fs_resp *w);

int fs_h_login_form(fs_req *r, fs_resp *w);
int fs_h_login(fs_req *r, fs_resp *w);
int fs_h_logout(fs_req *r, fs_resp *w);

int fs_h_admin_page(fs_req *r, fs_resp *w);
int fs_h_admin_user_add(fs_req *r, fs_resp *w);
int fs_h_admin_user_disable(fs_req *r, fs_resp *w);
int fs_h_admin_user_enable(fs_req *r, fs_resp *w);
int fs_h_admin_user_password(fs_req *r, fs_resp *w);

int fs_h_library(fs_req *r, fs_resp *w);
int fs_h_about(fs_req *r, fs_resp *w);

/* Route groups, each defined in its own file. */
extern const fs_route fs_routes_images[]; /* route_images.c: library, upload, image files, transforms, calibration */
extern const size_t fs_routes_images_n;
extern const fs_route fs_routes_scale_region[]; /* route_scale_region.c: an image's scale region */
extern const size_t fs_routes_scale_region_n;
extern const fs_route fs_routes_sets[];   /* route_sets.c: sets, edits, undo/redo, history, extraction */
extern const size_t fs_routes_sets_n;
extern const fs_route fs_routes_data[];   /* route_data.c: event log, settings, profiles, import/export */
extern const size_t fs_routes_data_n;
extern const fs_route fs_routes_workspace[]; /* route_workspace.c: the workspace page */
extern const size_t fs_routes_workspace_n;
extern const fs_route fs_routes_jobs[];    /* route_jobs.c: background jobs and batches */
extern const size_t fs_routes_jobs_n;
/* Hands the extraction of a large image to a background job: 202 with the
 * job, or 429/503 with Retry-After when it cannot start now (answered). */
int fs_job_submit_extract(fs_req *r, fs_resp *w, const fs_image_rec *im, long long set_id, const fs_params *p);
/* A transform of a large image as a job ("rotate_left", "rotate_right",
 * "crop" with rect = x, y, width, height, "autocrop", or "undo" keeping keep
 * steps as fs_image_step_undo): 202 {job} or the refusal answered. */
/* The import of a large upload (its original stored already) as a job:
 * 202 {job}, or the refusal answered with *refused 1. compact_bits: the
 * probe's (fs_loaded), for the job's memory estimate. */
struct fs_import_req;
int fs_job_submit_import(fs_req *r, fs_resp *w, const struct fs_import_req *q, long long pixels, int compact_bits,
			 int *refused);
int fs_job_submit_transform(fs_req *r, fs_resp *w, const fs_image_rec *im, const char *step, const int rect[4],
			    int keep, int expect_revision);
/* Re-measure of a large image's set as a job, from the set's centres at
 * set->revision: 202 {job} or the refusal answered. */
struct fs_set_info;
int fs_job_submit_remeasure(fs_req *r, fs_resp *w, const fs_image_rec *im, const struct fs_set_info *set,
			    const fs_params *p);
extern const fs_route fs_routes_agents[];  /* route_agents.c: agent runs (start, status, log, stop, reset, list) */
extern const size_t fs_routes_agents_n;
extern const fs_route fs_routes_compare[]; /* route_compare.c: the Compare page, its API, saved comparisons */
extern const size_t fs_routes_compare_n;

#endif
