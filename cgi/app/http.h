/*
 * http.h - the request and response of one FastCGI request, independent of
 * libfcgi (cgi/main_fcgi.c adapts FCGX streams to it; the unit tests build
 * requests by hand).
 *
 * Ownership: fs_req_init/fs_req_free and fs_resp_init/fs_resp_free pair up;
 * a request borrows its app and its header strings from the caller for its
 * lifetime; everything it parses (kv lists, JSON body) it owns and frees.
 */
#ifndef FS_HTTP_H
#define FS_HTTP_H

#include <stddef.h>

#include <cJSON.h>

#include "base/base.h"
#include "store/store.h"
#include "web/web.h"

struct fs_tmpl_set;

/* Per-process state shared by every request of a FastCGI worker. */
typedef struct fs_app {
	fs_config cfg;
	fs_db *db;
	struct fs_tmpl_set *tmpl;
	char root[1024];      /* where templates/ and static/ live */
	long long started_at; /* unix time the process started */
} fs_app;

#define FS_MAX_PARAMS 4

typedef struct fs_req fs_req;

/* Reads at most n body bytes; returns the count, 0 at the end, -1 on error. */
typedef long (*fs_body_reader)(void *ctx, char *buf, size_t n);
/* Returns a CGI variable (REQUEST_METHOD, HTTP_COOKIE, ...) or NULL. */
typedef const char *(*fs_env_getter)(void *ctx, const char *name);

struct fs_req {
	fs_app *app;
	fs_env_getter env;
	fs_body_reader body;
	void *io_ctx;

	const char *method;
	char path[2048];        /* decoded path below the base path, starting with '/' */
	const char *query;      /* raw query string, "" when none */
	const char *content_type;
	long long content_length; /* -1 when absent */
	char client_addr[64];   /* the client, through trusted proxies */
	int https;              /* arrived over HTTPS (directly or via a trusted proxy) */
	int from_trusted_proxy;

	fs_kvlist query_kv;
	fs_kvlist form_kv;      /* application/x-www-form-urlencoded body */
	cJSON *json;            /* application/json body */
	fs_kvlist cookies;

	const char *params[FS_MAX_PARAMS]; /* {name} path segments, in order */
	long long ids[FS_MAX_PARAMS];      /* the same as integers for {id}-style params */
	int nparams;

	int authed;
	fs_user user;
	char csrf[65];
	char session_token[65];
	int is_api;             /* path under /api/: errors are JSON */
};

/*
 * Where a streamed answer goes (cgi/main_fcgi.c: the FastCGI stream). head
 * sends the status line and headers without a Content-Length; body sends
 * bytes and returns -1 once the client is gone. NULL in an fs_resp (the
 * unit tests): a streamed answer is kept in body, the same bytes.
 */
struct fs_resp;
typedef struct fs_resp_out {
	int (*head)(void *ctx, const struct fs_resp *w);
	int (*body)(void *ctx, const char *p, size_t n);
	void *ctx;
} fs_resp_out;

typedef struct fs_resp {
	int status;
	char content_type[96];
	fs_buf headers; /* "Name: value\r\n" lines */
	fs_buf body;
	const fs_resp_out *out; /* borrowed; NULL: keep everything in body */
	int head_only;          /* a HEAD request: a streamed body is dropped (handlers skip writing it) */
	int streaming;          /* the head is sent: the answer can no longer change */
	int stream_failed;      /* cut short (client gone or an error): the connection is dropped */
	fs_buf pending;         /* a streamed answer's bytes not yet handed on */
	fs_sink sink;           /* what fs_resp_stream_begin returns (writes into pending) */
} fs_resp;

void fs_req_init(fs_req *r, fs_app *app, fs_env_getter env, fs_body_reader body, void *io_ctx);
void fs_req_free(fs_req *r);
const char *fs_req_env(const fs_req *r, const char *name); /* never NULL: "" when absent */
/* A parameter from the query, then the form body, then a JSON string field. */
const char *fs_req_param(const fs_req *r, const char *name);

/*
 * Reads the whole body into out when it is at most max bytes. Returns 0;
 * 413 when Content-Length (or the bytes actually sent) exceed max, 400 on a
 * read error or a short body. Checked against Content-Length BEFORE reading.
 */
int fs_req_read_body(fs_req *r, size_t max, fs_buf *out);
/* Validates the request's JSON object body against fields (see
 * fs_validate_json) into v. Answers 400 when there is no JSON object body
 * and 422 naming the field when it does not validate, and returns 1 then;
 * 0 when v is filled. */
int fs_req_body_fields(fs_req *r, fs_resp *w, const fs_field *fields, size_t n, fs_value *v, int allow_unknown);
/* For a route that takes no fields: a JSON body, when one is sent, must
 * be an object without keys (a key would be silently ignored otherwise).
 * Answers 422 naming the first key and returns 1; 0 when there is none. */
int fs_req_no_fields(fs_req *r, fs_resp *w);

void fs_resp_init(fs_resp *w);
void fs_resp_free(fs_resp *w);
void fs_resp_header(fs_resp *w, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* JSON response; takes ownership of obj. */
void fs_resp_json(fs_resp *w, int status, cJSON *obj);
/* {"success": false, "error": msg} for the API; an error page otherwise. */
void fs_resp_error(fs_req *r, fs_resp *w, int status, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* 303 to a path below the base path ("/" = the library). */
void fs_resp_redirect(fs_req *r, fs_resp *w, const char *path);
/* Set-Cookie with the base path, HttpOnly, SameSite=Lax, Secure over HTTPS;
 * max_age < 0 omits Max-Age (browser session), 0 deletes. */
void fs_resp_cookie(fs_req *r, fs_resp *w, const char *name, const char *value, long max_age, int http_only);
/* Renders templates/<name> with ctx (ownership of ctx taken) plus the
 * common values (base, user, csrf, version, agent tabs). */
void fs_resp_page(fs_req *r, fs_resp *w, int status, const char *name, cJSON *ctx);

/*
 * A large answer written as it is produced (issue 15: a download of 70,000
 * tubercles held whole was 466 MB): everything that can fail with an HTTP
 * error is checked first; fs_resp_stream_begin then sends the status and
 * headers (no Content-Length: nginx passes the body on chunked) and
 * returns the sink the writers write to, handed to the client in chunks of
 * FS_SINK_CHUNK. fs_resp_stream_end says whether the body was complete:
 * when it was not (a writer failed, the client left), the worker ends
 * the FastCGI connection with a broken record (main_fcgi.c, cut_stream),
 * so nginx cuts the client's answer short instead of ending it as if it
 * were whole.
 */
fs_sink *fs_resp_stream_begin(fs_req *r, fs_resp *w, int status, const char *content_type);
/* ok: the writer's result (0 = everything written). Returns 0 when the
 * answer is complete, else -1 (nothing more can be said to the client). */
int fs_resp_stream_end(fs_resp *w, int ok);

/* Maps an fs_db_rc to an HTTP status (BUSY -> 503, NOTFOUND -> 404, ...). */
int fs_http_status_for_db(int rc);
/* Answers a failed store call (rc != FS_DB_OK): FS_DB_BUSY is handed back
 * as it is, for the dispatcher to retry and answer 503 if it stays busy;
 * any other rc becomes the matching HTTP error with err as the message, or
 * fallback (NULL: the status's reason phrase) when err is empty. Returns
 * FS_DB_BUSY or 0, what a handler returns. */
int fs_resp_db_error(fs_req *r, fs_resp *w, int rc, const char *err, const char *fallback);
const char *fs_http_reason(int status);

#endif
