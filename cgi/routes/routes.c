/*
 * routes.c - the route table: method, path pattern, handler, role.
 *
 * The foundation's routes are listed here; each route group file
 * (route_images.c, route_sets.c, ...) declares its own rows in a table of
 * the same shape, listed in `groups` below, so that the whole table is
 * still one list read in one place.
 */
#include "routes/routes.h"

#include <string.h>

static const fs_route base_routes[] = {
	{"GET", "/api/health", fs_h_health, FS_PUBLIC, 0},
	{"GET", "/api/me", fs_h_me, FS_MEMBER, 0},
	{"GET", "/api/me/disk", fs_h_me_disk, FS_MEMBER, 0},
	{"POST", "/api/me/password", fs_h_me_password, FS_MEMBER, 0},
	{"GET", "/account", fs_h_account_page, FS_MEMBER, 0},
	{"POST", "/account/password", fs_h_account_password, FS_MEMBER, 0},

	{"GET", "/login", fs_h_login_form, FS_PUBLIC, 0},
	{"POST", "/login", fs_h_login, FS_PUBLIC, FS_ROUTE_LOGIN_FORM},
	{"POST", "/logout", fs_h_logout, FS_MEMBER, 0},

	{"GET", "/", fs_h_library, FS_MEMBER, 0},
	{"GET", "/about", fs_h_about, FS_MEMBER, 0},

	{"GET", "/admin", fs_h_admin_page, FS_ADMIN, 0},
	{"POST", "/admin/users", fs_h_admin_user_add, FS_ADMIN, 0},
	{"POST", "/admin/users/{id}/disable", fs_h_admin_user_disable, FS_ADMIN, 0},
	{"POST", "/admin/users/{id}/enable", fs_h_admin_user_enable, FS_ADMIN, 0},
	{"POST", "/admin/users/{id}/password", fs_h_admin_user_password, FS_ADMIN, 0},
};

struct group {
	const fs_route *rows;
	const size_t *n;
};

static const size_t base_n = sizeof base_routes / sizeof base_routes[0];

static const struct group groups[] = {
	{base_routes, &base_n},
	{fs_routes_images, &fs_routes_images_n},
	{fs_routes_scale_region, &fs_routes_scale_region_n},
	{fs_routes_sets, &fs_routes_sets_n},
	{fs_routes_data, &fs_routes_data_n},
	{fs_routes_workspace, &fs_routes_workspace_n},
	{fs_routes_agents, &fs_routes_agents_n},
	{fs_routes_jobs, &fs_routes_jobs_n},
	{fs_routes_compare, &fs_routes_compare_n},
};

#define MAX_ROUTES 256

const fs_route *fs_routes(size_t *count)
{
	static fs_route all[MAX_ROUTES];
	static size_t n;
	if (!n) {
		for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
			for (size_t i = 0; i < *groups[g].n && n < MAX_ROUTES; i++)
				all[n++] = groups[g].rows[i];
	}
	*count = n;
	return all;
}
