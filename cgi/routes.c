/*
 * routes.c - the one route table: method, path pattern, handler, role.
 */
#include "routes.h"

static const fs_route table[] = {
	{"GET", "/api/health", fs_h_health, FS_PUBLIC, 0},
	{"GET", "/api/me", fs_h_me, FS_MEMBER, 0},

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

const fs_route *fs_routes(size_t *count)
{
	*count = sizeof table / sizeof table[0];
	return table;
}
