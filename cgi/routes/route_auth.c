/*
 * route_auth.c - the login form, login and logout.
 *
 * The login form has no session yet, so its CSRF token is a random value in
 * a short-lived cookie that the form echoes back (double submit); together
 * with the Origin / Sec-Fetch-Site check this stops login CSRF.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "app/auth.h"
#include "routes/routes.h"
#include "store/store.h"
#include "base/base.h"

/* Only same-site relative paths: an open redirect would help phishing. */
static const char *safe_next(const char *next)
{
	if (!next || next[0] != '/' || next[1] == '/' || next[1] == '\\' || strchr(next, ':') ||
	    strlen(next) > 512)
		return "/";
	for (const char *p = next; *p; p++)
		if ((unsigned char)*p < 0x20)
			return "/";
	return next;
}

static void login_page(fs_req *r, fs_resp *w, int status, const char *message, const char *login)
{
	char tok[65];
	if (fs_token_new(tok)) {
		fs_resp_error(r, w, 500, "no randomness available");
		return;
	}
	fs_resp_cookie(r, w, FS_LOGIN_CSRF_COOKIE, tok, 3600, 1);
	cJSON *ctx = cJSON_CreateObject();
	cJSON_AddStringToObject(ctx, "login_csrf", tok);
	cJSON_AddStringToObject(ctx, "next", safe_next(fs_req_param(r, "next")));
	if (message)
		cJSON_AddStringToObject(ctx, "message", message);
	if (login)
		cJSON_AddStringToObject(ctx, "login", login);
	fs_resp_page(r, w, status, "login.html", ctx);
}

int fs_h_login_form(fs_req *r, fs_resp *w)
{
	if (r->authed) {
		fs_resp_redirect(r, w, "/");
		return 0;
	}
	login_page(r, w, 200, NULL, NULL);
	return 0;
}

int fs_h_login(fs_req *r, fs_resp *w)
{
	const fs_config *c = &r->app->cfg;
	const char *login = fs_req_param(r, "login");
	const char *password = fs_req_param(r, "password");
	if (!login || !password || !*login || !*password) {
		login_page(r, w, 400, "Enter your login and password.", login);
		return 0;
	}
	if (!fs_login_valid(login)) {
		login_page(r, w, 401, "Wrong login or password.", NULL);
		return 0;
	}
	long long now = (long long)time(NULL);
	int retry = 0;
	int t = fs_throttle_check(r->app->db, login, r->client_addr, c->login_max_failures,
				  c->login_window_minutes * 60, now, &retry);
	if (t < 0)
		return t;
	if (t == 1) {
		char msg[160], wait[32];
		snprintf(msg, sizeof msg, "Too many failed logins. Try again in %s.",
			 fs_wait_words(retry, wait, sizeof wait));
		fs_resp_header(w, "Retry-After", "%d", retry);
		login_page(r, w, 429, msg, login);
		return 0;
	}
	fs_user u;
	int rc = fs_user_authenticate(r->app->db, login, password, now, &u);
	if (rc == FS_DB_NOTFOUND) {
		rc = fs_throttle_record(r->app->db, login, r->client_addr, now);
		if (rc)
			return rc;
		login_page(r, w, 401, "Wrong login or password.", login);
		return 0;
	}
	if (rc)
		return rc;
	fs_throttle_clear(r->app->db, login, r->client_addr);
	rc = fs_auth_login(r, w, u.id);
	if (rc)
		return rc;
	fs_resp_cookie(r, w, FS_LOGIN_CSRF_COOKIE, "", 0, 1);
	fs_resp_redirect(r, w, safe_next(fs_req_param(r, "next")));
	return 0;
}

int fs_h_logout(fs_req *r, fs_resp *w)
{
	if (r->session_token[0]) {
		int rc = fs_session_delete(r->app->db, r->session_token);
		if (rc)
			return rc;
	}
	fs_resp_cookie(r, w, FS_SESSION_COOKIE, "", 0, 1);
	if (r->is_api) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddBoolToObject(o, "success", 1);
		fs_resp_json(w, 200, o);
	} else {
		fs_resp_redirect(r, w, "/login");
	}
	return 0;
}
