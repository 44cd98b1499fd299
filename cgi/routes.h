/*
 * routes.h - the handlers of every route group; the table is in routes.c.
 * One file per group: route_health.c, route_auth.c, route_admin.c,
 * route_pages.c.
 */
#ifndef FS_ROUTES_H
#define FS_ROUTES_H

#include "router.h"

int fs_h_health(fs_req *r, fs_resp *w);
int fs_h_me(fs_req *r, fs_resp *w);

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

#endif
