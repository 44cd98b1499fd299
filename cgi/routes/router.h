/*
 * router.h - the route table: method + path pattern -> handler + required
 * role. Patterns are literal segments and {name} parameters; a parameter
 * whose name ends in "id" only matches a positive decimal integer
 * (so /api/images/abc is a 404, not a handler's problem).
 */
#ifndef FS_ROUTER_H
#define FS_ROUTER_H

#include "app/http.h"

/* A handler fills w. It returns 0, or an fs_db_rc (e.g. FS_DB_BUSY) which
 * the dispatcher turns into an error response when w holds none. */
typedef int (*fs_handler)(fs_req *r, fs_resp *w);

enum fs_role { FS_PUBLIC = 0, FS_MEMBER = 1, FS_ADMIN = 2 };

enum fs_route_flags {
	FS_ROUTE_LOGIN_FORM = 1, /* unsafe method checked with the pre-session CSRF cookie */
	FS_ROUTE_RAW_BODY = 2,   /* the handler reads the body itself (uploads) */
};

typedef struct fs_route {
	const char *method;
	const char *pattern;
	fs_handler handler;
	int role;
	int flags;
} fs_route;

/* The one table (cgi/routes/routes.c). */
const fs_route *fs_routes(size_t *count);

/*
 * Finds the route for method and path. Returns the route, or NULL with
 * *status 404 (no pattern matches) or 405 (the path matches other methods;
 * allow receives them, comma-separated). Parameters go into r->params/ids.
 */
const fs_route *fs_route_match(const fs_route *table, size_t n, const char *method, const char *path, fs_req *r,
			       int *status, char *allow, size_t allowlen);

/* Runs one request: routing, authentication, CSRF, body parsing, handler. */
void fs_dispatch(fs_req *r, fs_resp *w);

#endif
