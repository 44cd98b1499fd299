/*
 * dispatch.c - one request from start to end: base path, routing,
 * authentication, CSRF, body parsing, the handler, error mapping.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app/auth.h"
#include "routes/router.h"
#include "base/base.h"

/* JSON and form bodies are read whole; anything bigger than this that is
 * not an upload is a mistake or an attack. */
#define FS_MAX_SMALL_BODY (8u << 20)

static int is_unsafe(const char *m)
{
	return strcmp(m, "GET") && strcmp(m, "HEAD") && strcmp(m, "OPTIONS");
}

/* Splits DOCUMENT_URI (already decoded by nginx) below the base path. */
static int set_path(fs_req *r)
{
	const char *uri = fs_req_env(r, "DOCUMENT_URI");
	if (!*uri) {
		uri = fs_req_env(r, "REQUEST_URI");
		const char *q = strchr(uri, '?');
		static char tmp[2048];
		size_t n = q ? (size_t)(q - uri) : strlen(uri);
		if (n >= sizeof tmp)
			return -1;
		memcpy(tmp, uri, n);
		tmp[n] = 0;
		uri = tmp;
	}
	const char *base = r->app->cfg.base_path;
	size_t bl = strlen(base);
	if (strncmp(uri, base, bl)) {
		/* "/fishscale" without the slash means the library */
		if (bl > 1 && strlen(uri) == bl - 1 && !strncmp(uri, base, bl - 1))
			uri = base;
		else
			return -1;
	}
	int n = snprintf(r->path, sizeof r->path, "/%s", uri + bl);
	if (n < 0 || (size_t)n >= sizeof r->path)
		return -1;
	/* nginx normalises "..": refuse any that slipped through, and NULs */
	if (strstr(r->path, "/../") || strstr(r->path, "/./"))
		return -1;
	return 0;
}

static int parse_body(fs_req *r, fs_resp *w)
{
	const char *ct = r->content_type;
	if (r->content_length <= 0 && !*ct)
		return 0;
	fs_buf body = FS_BUF_INIT;
	int st;
	if (!strncasecmp(ct, "application/json", 16)) {
		st = fs_req_read_body(r, FS_MAX_SMALL_BODY, &body);
		if (!st) {
			r->json = cJSON_ParseWithLength(body.data ? body.data : "", body.len);
			if (!r->json) {
				fs_resp_error(r, w, 400, "malformed JSON body");
				st = 400;
			} else if (!cJSON_IsObject(r->json)) {
				fs_resp_error(r, w, 400, "the JSON body must be an object");
				st = 400;
			}
		}
	} else if (!strncasecmp(ct, "application/x-www-form-urlencoded", 33)) {
		st = fs_req_read_body(r, FS_MAX_SMALL_BODY, &body);
		if (!st && fs_urlenc_parse(body.data ? body.data : "", body.len, &r->form_kv)) {
			fs_resp_error(r, w, 400, "malformed form body");
			st = 400;
		}
	} else if (r->content_length == 0) {
		st = 0;
	} else {
		fs_resp_error(r, w, 415, "unsupported content type '%.80s'", ct);
		st = 415;
	}
	if (st == 413)
		fs_resp_error(r, w, 413, "request body too large (at most %u bytes here)", FS_MAX_SMALL_BODY);
	else if (st == 400 && !w->body.len)
		fs_resp_error(r, w, 400, "could not read the request body");
	fs_buf_free(&body);
	return st;
}

static int check_csrf(fs_req *r, fs_resp *w, const fs_route *rt)
{
	if (!fs_auth_same_origin(r)) {
		fs_resp_error(r, w, 403, "cross-site request refused");
		return 403;
	}
	const char *sent = fs_auth_sent_csrf(r);
	const char *expected = NULL;
	if (rt->flags & FS_ROUTE_LOGIN_FORM)
		expected = fs_kv_get(&r->cookies, FS_LOGIN_CSRF_COOKIE);
	else if (r->authed)
		expected = r->csrf;
	if (!expected || !*expected || !sent || !fs_token_equal(sent, expected)) {
		fs_resp_error(r, w, 403, "missing or wrong CSRF token");
		return 403;
	}
	return 0;
}

void fs_dispatch(fs_req *r, fs_resp *w)
{
	r->method = fs_req_env(r, "REQUEST_METHOD");
	r->query = fs_req_env(r, "QUERY_STRING");
	r->content_type = fs_req_env(r, "CONTENT_TYPE");
	const char *cl = fs_req_env(r, "CONTENT_LENGTH");
	if (*cl) {
		char *end;
		long long v = strtoll(cl, &end, 10);
		r->content_length = (*end || v < 0) ? -1 : v;
	}
	fs_auth_client(r);
	if (set_path(r)) {
		r->is_api = 1;
		fs_resp_error(r, w, 404, "not found");
		return;
	}
	r->is_api = !strncmp(r->path, "/api/", 5) || !strcmp(r->path, "/api");
	if (fs_urlenc_parse(r->query, strlen(r->query), &r->query_kv)) {
		fs_resp_error(r, w, 400, "malformed query string");
		return;
	}
	const char *ck = fs_req_env(r, "HTTP_COOKIE");
	if (*ck && fs_cookie_parse(ck, &r->cookies))
		fs_kvlist_free(&r->cookies); /* a bad cookie header is treated as none */

	size_t n;
	const fs_route *table = fs_routes(&n);
	int status;
	char allow[128];
	const fs_route *rt = fs_route_match(table, n, r->method, r->path, r, &status, allow, sizeof allow);
	if (!rt) {
		if (status == 405) {
			fs_resp_header(w, "Allow", "%s", allow);
			fs_resp_error(r, w, 405, "method %s not allowed here", r->method);
		} else {
			fs_resp_error(r, w, 404, "not found");
		}
		return;
	}
	int rc = fs_auth_session(r, w);
	if (rc) {
		fs_resp_error(r, w, fs_http_status_for_db(rc), "the database is busy, try again");
		return;
	}
	if (rt->role >= FS_MEMBER && !r->authed) {
		if (!r->is_api && !strcmp(r->method, "GET")) {
			fs_resp_redirect(r, w, "/login");
			return;
		}
		fs_resp_error(r, w, 401, "login required");
		return;
	}
	if (rt->role >= FS_ADMIN && !r->user.is_admin) {
		fs_resp_error(r, w, 403, "administrators only");
		return;
	}
	if (!(rt->flags & FS_ROUTE_RAW_BODY) && parse_body(r, w))
		return;
	if (is_unsafe(r->method) && check_csrf(r, w, rt))
		return;
	rc = rt->handler(r, w);
	if (w->streaming) {
		/* the status is sent: a failure can only cut the answer short */
		if (rc)
			w->stream_failed = 1;
		return;
	}
	if (rc && w->status < 400) {
		fs_buf_reset(&w->headers);
		fs_resp_error(r, w, fs_http_status_for_db(rc),
			      rc == FS_DB_BUSY ? "the database is busy, try again" : "internal error");
	}
}
