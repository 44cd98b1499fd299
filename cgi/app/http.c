/*
 * http.c - request helpers and response building (see http.h).
 */
#include "app/http.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "web/web.h"
#include "base/base.h"

void fs_req_init(fs_req *r, fs_app *app, fs_env_getter env, fs_body_reader body, void *io_ctx)
{
	memset(r, 0, sizeof *r);
	r->app = app;
	r->env = env;
	r->body = body;
	r->io_ctx = io_ctx;
	r->content_length = -1;
}

void fs_req_free(fs_req *r)
{
	fs_kvlist_free(&r->query_kv);
	fs_kvlist_free(&r->form_kv);
	fs_kvlist_free(&r->cookies);
	cJSON_Delete(r->json);
	r->json = NULL;
}

const char *fs_req_env(const fs_req *r, const char *name)
{
	const char *v = r->env ? r->env(r->io_ctx, name) : NULL;
	return v ? v : "";
}

const char *fs_req_param(const fs_req *r, const char *name)
{
	const char *v = fs_kv_get(&r->query_kv, name);
	if (!v)
		v = fs_kv_get(&r->form_kv, name);
	if (!v && r->json) {
		const cJSON *j = cJSON_GetObjectItemCaseSensitive(r->json, name);
		if (cJSON_IsString(j))
			v = j->valuestring;
	}
	return v;
}

int fs_req_read_body(fs_req *r, size_t max, fs_buf *out)
{
	if (r->content_length > (long long)max)
		return 413;
	char chunk[16384];
	for (;;) {
		long n = r->body ? r->body(r->io_ctx, chunk, sizeof chunk) : 0;
		if (n < 0)
			return 400;
		if (n == 0)
			break;
		if (out->len + (size_t)n > max)
			return 413;
		if (fs_buf_append(out, chunk, (size_t)n))
			return 500;
	}
	if (r->content_length >= 0 && (long long)out->len != r->content_length)
		return 400;
	return 0;
}

void fs_resp_init(fs_resp *w)
{
	memset(w, 0, sizeof *w);
	w->status = 200;
}

void fs_resp_free(fs_resp *w)
{
	fs_buf_free(&w->headers);
	fs_buf_free(&w->body);
	fs_buf_free(&w->pending);
}

/* The sink's writer: the client's stream, or the body when there is none
 * (a HEAD request's bytes are counted nowhere and dropped). */
static int stream_write(void *ctx, const char *p, size_t n)
{
	fs_resp *w = ctx;
	if (w->head_only)
		return 0;
	if (!w->out)
		return fs_buf_append(&w->body, p, n);
	return w->out->body(w->out->ctx, p, n);
}

fs_sink *fs_resp_stream_begin(fs_req *r, fs_resp *w, int status, const char *content_type)
{
	w->status = status;
	snprintf(w->content_type, sizeof w->content_type, "%s", content_type);
	fs_buf_reset(&w->body);
	fs_buf_reset(&w->pending);
	w->head_only = r->method && !strcmp(r->method, "HEAD");
	w->streaming = 1;
	w->sink = fs_sink_stream(&w->pending, stream_write, w);
	if (w->out && w->out->head(w->out->ctx, w)) {
		w->stream_failed = 1;
		w->sink.failed = 1;
	}
	return &w->sink;
}

int fs_resp_stream_end(fs_resp *w, int ok)
{
	if (ok != 0 || w->sink.failed || fs_sink_end(&w->sink))
		w->stream_failed = 1;
	fs_buf_free(&w->pending);
	return w->stream_failed ? -1 : 0;
}

void fs_resp_header(fs_resp *w, const char *name, const char *fmt, ...)
{
	va_list ap;
	fs_buf_printf(&w->headers, "%s: ", name);
	va_start(ap, fmt);
	fs_buf_vprintf(&w->headers, fmt, ap);
	va_end(ap);
	fs_buf_puts(&w->headers, "\r\n");
}

void fs_resp_json(fs_resp *w, int status, cJSON *obj)
{
	w->status = status;
	snprintf(w->content_type, sizeof w->content_type, "application/json");
	fs_buf_reset(&w->body);
	char *s = obj ? cJSON_PrintUnformatted(obj) : NULL;
	if (s) {
		fs_buf_puts(&w->body, s);
		cJSON_free(s);
	} else {
		w->status = 500;
		fs_buf_puts(&w->body, "{\"success\":false,\"error\":\"out of memory\"}");
	}
	cJSON_Delete(obj);
}

const char *fs_http_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 201: return "Created";
	case 204: return "No Content";
	case 303: return "See Other";
	case 304: return "Not Modified";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 409: return "Conflict";
	case 413: return "Payload Too Large";
	case 415: return "Unsupported Media Type";
	case 422: return "Unprocessable Entity";
	case 429: return "Too Many Requests";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	default: return "Error";
	}
}

int fs_http_status_for_db(int rc)
{
	switch (rc) {
	case FS_DB_OK: return 200;
	case FS_DB_BUSY: return 503;
	case FS_DB_NOTFOUND: return 404;
	case FS_DB_CONSTRAINT: return 409;
	case FS_DB_FORBIDDEN: return 403;
	case FS_DB_STALE: return 409;
	case FS_DB_INVALID: return 422;
	default: return 500;
	}
}

int fs_req_body_fields(fs_req *r, fs_resp *w, const fs_field *fields, size_t n, fs_value *v, int allow_unknown)
{
	char err[512];
	if (!r->json) {
		fs_resp_error(r, w, 400, "a JSON object body (Content-Type: application/json) is required");
		return 1;
	}
	if (fs_validate_json(r->json, fields, n, v, allow_unknown, err, sizeof err)) {
		fs_resp_error(r, w, 422, "%s", err);
		return 1;
	}
	return 0;
}

int fs_req_no_fields(fs_req *r, fs_resp *w)
{
	char err[512];
	fs_value none[1];
	if (r->json && fs_validate_json(r->json, NULL, 0, none, 0, err, sizeof err)) {
		fs_resp_error(r, w, 422, "%s", err);
		return 1;
	}
	return 0;
}

int fs_resp_db_error(fs_req *r, fs_resp *w, int rc, const char *err, const char *fallback)
{
	if (rc == FS_DB_BUSY)
		return rc;
	int st = fs_http_status_for_db(rc);
	fs_resp_error(r, w, st, "%s", err && *err ? err : fallback ? fallback : fs_http_reason(st));
	return 0;
}

void fs_resp_error(fs_req *r, fs_resp *w, int status, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (status == 503)
		fs_resp_header(w, "Retry-After", "1");
	if (r->is_api || !r->app || !r->app->tmpl) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddBoolToObject(o, "success", 0);
		cJSON_AddStringToObject(o, "error", msg);
		fs_resp_json(w, status, o);
		return;
	}
	cJSON *ctx = cJSON_CreateObject();
	cJSON_AddNumberToObject(ctx, "status", status);
	cJSON_AddStringToObject(ctx, "reason", fs_http_reason(status));
	cJSON_AddStringToObject(ctx, "message", msg);
	fs_resp_page(r, w, status, "error.html", ctx);
}

void fs_resp_redirect(fs_req *r, fs_resp *w, const char *path)
{
	w->status = 303;
	const char *base = r->app ? r->app->cfg.base_path : "/";
	/* base ends in '/', path starts with it: join without doubling */
	fs_resp_header(w, "Location", "%s%s", base, path[0] == '/' ? path + 1 : path);
	fs_buf_reset(&w->body);
	snprintf(w->content_type, sizeof w->content_type, "text/plain");
}

void fs_resp_cookie(fs_req *r, fs_resp *w, const char *name, const char *value, long max_age, int http_only)
{
	fs_buf line = FS_BUF_INIT;
	fs_buf_printf(&line, "%s=%s; Path=%s; SameSite=Lax", name, value, r->app ? r->app->cfg.base_path : "/");
	if (max_age >= 0)
		fs_buf_printf(&line, "; Max-Age=%ld", max_age);
	if (http_only)
		fs_buf_puts(&line, "; HttpOnly");
	if (r->https)
		fs_buf_puts(&line, "; Secure");
	fs_resp_header(w, "Set-Cookie", "%s", line.data);
	fs_buf_free(&line);
}

void fs_resp_page(fs_req *r, fs_resp *w, int status, const char *name, cJSON *ctx)
{
	if (!ctx)
		ctx = cJSON_CreateObject();
	fs_app *app = r->app;
	cJSON_AddStringToObject(ctx, "base", app->cfg.base_path);
	cJSON_AddStringToObject(ctx, "version", fs_version_string());
	if (r->authed) {
		cJSON *u = cJSON_AddObjectToObject(ctx, "user");
		cJSON_AddNumberToObject(u, "id", (double)r->user.id);
		cJSON_AddStringToObject(u, "login", r->user.login);
		cJSON_AddStringToObject(u, "display_name", r->user.display_name);
		cJSON_AddBoolToObject(u, "is_admin", r->user.is_admin);
		cJSON_AddStringToObject(ctx, "csrf", r->csrf);
	}
	int tabs = fs_config_agent_tabs(&app->cfg);
	cJSON_AddBoolToObject(ctx, "agent_extraction", tabs & 1);
	cJSON_AddBoolToObject(ctx, "agent_editing", (tabs & 2) != 0);
	fs_buf_reset(&w->body);
	char err[256];
	if (fs_tmpl_render(app->tmpl, name, ctx, &w->body, err, sizeof err)) {
		fs_buf_reset(&w->body);
		fs_buf_puts(&w->body, "template error\n");
		fprintf(stderr, "fishscale: rendering %s: %s\n", name, err);
		status = 500;
		snprintf(w->content_type, sizeof w->content_type, "text/plain; charset=utf-8");
	} else {
		snprintf(w->content_type, sizeof w->content_type, "text/html; charset=utf-8");
	}
	w->status = status;
	fs_resp_header(w, "Cache-Control", "no-store");
	cJSON_Delete(ctx);
}
