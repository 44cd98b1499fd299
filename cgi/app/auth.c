/*
 * auth.c - client identity, sessions, single sign-on and CSRF checks.
 */
#include "app/auth.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "store/store.h"
#include "base/base.h"

/* The rightmost X-Forwarded-For address that is not one of our trusted
 * proxies is the client: anything left of it may be forged by the client. */
static void client_from_xff(const fs_req *r, const char *xff, char *out, size_t outlen)
{
	char tmp[1024];
	snprintf(tmp, sizeof tmp, "%s", xff);
	for (;;) {
		char *comma = strrchr(tmp, ',');
		char *a = comma ? comma + 1 : tmp;
		while (*a == ' ')
			a++;
		char *e = a + strlen(a);
		while (e > a && e[-1] == ' ')
			*--e = 0;
		if (*a && !fs_config_is_trusted_proxy(&r->app->cfg, a)) {
			snprintf(out, outlen, "%s", a);
			return;
		}
		if (!comma)
			return;
		*comma = 0;
	}
}

void fs_auth_client(fs_req *r)
{
	const char *remote = fs_req_env(r, "REMOTE_ADDR");
	snprintf(r->client_addr, sizeof r->client_addr, "%s", remote);
	r->https = !strcasecmp(fs_req_env(r, "HTTPS"), "on");
	r->from_trusted_proxy = fs_config_is_trusted_proxy(&r->app->cfg, remote);
	if (!r->from_trusted_proxy)
		return;
	const char *xff = fs_req_env(r, "HTTP_X_FORWARDED_FOR");
	if (*xff)
		client_from_xff(r, xff, r->client_addr, sizeof r->client_addr);
	const char *proto = fs_req_env(r, "HTTP_X_FORWARDED_PROTO");
	if (*proto)
		r->https = !strcasecmp(proto, "https");
}

static int sso_login(fs_req *r, fs_resp *w)
{
	const fs_config *c = &r->app->cfg;
	if (!c->sso_header[0] || !r->from_trusted_proxy)
		return FS_DB_NOTFOUND;
	char var[96] = "HTTP_";
	size_t p = 5;
	for (const char *s = c->sso_header; *s && p + 1 < sizeof var; s++)
		var[p++] = (*s == '-') ? '_' : (char)((*s >= 'a' && *s <= 'z') ? *s - 32 : *s);
	var[p] = 0;
	const char *login = fs_req_env(r, var);
	if (!*login)
		return FS_DB_NOTFOUND;
	if (r->authed && !strcasecmp(r->user.login, login))
		return FS_DB_OK;
	if (!fs_login_valid(login))
		return FS_DB_NOTFOUND;
	fs_user u;
	int rc = fs_user_get_by_login(r->app->db, login, &u);
	if (rc == FS_DB_NOTFOUND && c->sso_create_users) {
		long long id;
		char err[256];
		rc = fs_user_create(r->app->db, login, login, 0, NULL, &id, err, sizeof err);
		if (rc == FS_DB_OK)
			rc = fs_user_get(r->app->db, id, &u);
	}
	if (rc)
		return rc;
	if (u.disabled)
		return FS_DB_NOTFOUND;
	rc = fs_auth_login(r, w, u.id);
	if (rc)
		return rc;
	r->user = u;
	r->authed = 1;
	return FS_DB_OK;
}

int fs_auth_session(fs_req *r, fs_resp *w)
{
	const fs_config *c = &r->app->cfg;
	const char *tok = fs_kv_get(&r->cookies, FS_SESSION_COOKIE);
	if (tok) {
		int rc = fs_session_lookup(r->app->db, tok, (long long)time(NULL), c->session_idle_minutes * 60,
					   &r->user, r->csrf);
		if (rc == FS_DB_OK) {
			r->authed = 1;
			snprintf(r->session_token, sizeof r->session_token, "%s", tok);
		} else if (rc != FS_DB_NOTFOUND) {
			return rc;
		}
	}
	int rc = sso_login(r, w);
	return (rc == FS_DB_OK || rc == FS_DB_NOTFOUND) ? FS_DB_OK : rc;
}

int fs_auth_login(fs_req *r, fs_resp *w, long long user_id)
{
	const fs_config *c = &r->app->cfg;
	char token[65], csrf[65];
	int rc = fs_session_create(r->app->db, user_id, (long long)time(NULL), c->session_absolute_hours * 3600,
				   r->client_addr, token, csrf);
	if (rc)
		return rc;
	/* Sessions that expired without a logout are deleted here, so the table
	 * does not grow with every login; a failure leaves them for the next
	 * login and does not refuse this one (lookups ignore expired rows). */
	(void)fs_session_purge(r->app->db, (long long)time(NULL), c->session_idle_minutes * 60);
	if (r->session_token[0])
		fs_session_delete(r->app->db, r->session_token);
	snprintf(r->session_token, sizeof r->session_token, "%s", token);
	snprintf(r->csrf, sizeof r->csrf, "%s", csrf);
	fs_resp_cookie(r, w, FS_SESSION_COOKIE, token, -1, 1);
	return FS_DB_OK;
}

int fs_auth_same_origin(const fs_req *r)
{
	const char *site = fs_req_env(r, "HTTP_SEC_FETCH_SITE");
	if (*site && strcmp(site, "same-origin") && strcmp(site, "none"))
		return 0;
	const char *origin = fs_req_env(r, "HTTP_ORIGIN");
	if (!*origin || !strcmp(origin, "null"))
		return !*origin;
	/* Origin is scheme://host[:port]; compare the host part with the Host
	 * the request was sent to (through a trusted proxy: X-Forwarded-Host). */
	const char *host = fs_req_env(r, "HTTP_HOST");
	if (r->from_trusted_proxy && *fs_req_env(r, "HTTP_X_FORWARDED_HOST"))
		host = fs_req_env(r, "HTTP_X_FORWARDED_HOST");
	const char *sep = strstr(origin, "://");
	if (!sep || !*host)
		return 0;
	return !strcasecmp(sep + 3, host);
}

const char *fs_auth_sent_csrf(const fs_req *r)
{
	const char *h = fs_req_env(r, "HTTP_X_CSRF_TOKEN");
	if (*h)
		return h;
	const char *f = fs_kv_get(&r->form_kv, "csrf_token");
	if (f)
		return f;
	if (r->json) {
		const cJSON *j = cJSON_GetObjectItemCaseSensitive(r->json, "csrf_token");
		if (cJSON_IsString(j))
			return j->valuestring;
	}
	/* never from the query string: URLs end up in logs and Referer headers */
	return NULL;
}
