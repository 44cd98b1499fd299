/*
 * route_account.c - a member's own account: the Account page and changing
 * one's own password, as a form (the page) and as JSON (the API).
 *
 * Changing the password needs the current one (a session left open on a
 * shared computer must not be enough to take the account over); a wrong
 * current password counts as a failed login of that account from that
 * address, so this form cannot be used to guess it faster than the login
 * page. Every other session of the user ends; the one making the change
 * stays. Ownership: nothing is kept between requests.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "routes/routes.h"
#include "store/store.h"
#include "web/web.h"
#include "base/base.h"

/* The outcome of one attempt: an HTTP status and a message for the user. */
typedef struct change_result {
	int status;
	int retry_after; /* with 429 */
	int ended;       /* sessions ended */
	char message[256];
} change_result;

static int change_password(fs_req *r, const char *current, const char *next, const char *confirm,
			   change_result *out)
{
	const fs_config *c = &r->app->cfg;
	fs_db *db = r->app->db;
	long long now = (long long)time(NULL);
	memset(out, 0, sizeof *out);
	if (!current || !*current || !next || !*next) {
		out->status = 422;
		snprintf(out->message, sizeof out->message, "Enter your current password and the new one.");
		return 0;
	}
	int retry = 0;
	int t = fs_throttle_check(db, r->user.login, r->client_addr, c->login_max_failures,
				  c->login_window_minutes * 60, now, &retry);
	if (t < 0)
		return t;
	if (t == 1) {
		out->status = 429;
		out->retry_after = retry;
		snprintf(out->message, sizeof out->message, "Too many wrong passwords. Try again in %d seconds.", retry);
		return 0;
	}
	fs_user u;
	int rc = fs_user_authenticate(db, r->user.login, current, now, &u);
	if (rc == FS_DB_NOTFOUND || (!rc && u.id != r->user.id)) {
		rc = fs_throttle_record(db, r->user.login, r->client_addr, now);
		if (rc)
			return rc;
		out->status = 403;
		snprintf(out->message, sizeof out->message, "The current password is wrong.");
		return 0;
	}
	if (rc)
		return rc;
	if (confirm && strcmp(confirm, next)) {
		out->status = 422;
		snprintf(out->message, sizeof out->message, "The new password and its confirmation differ.");
		return 0;
	}
	if (!strcmp(current, next)) {
		out->status = 422;
		snprintf(out->message, sizeof out->message, "The new password is the current one.");
		return 0;
	}
	char err[200] = "";
	if (fs_password_acceptable(next, err, sizeof err)) {
		out->status = 422;
		snprintf(out->message, sizeof out->message, "%s", err);
		return 0;
	}
	if ((rc = fs_db_begin(db)))
		return rc;
	rc = fs_user_set_password(db, r->user.id, next, err, sizeof err);
	if (!rc)
		rc = fs_session_delete_user_except(db, r->user.id, r->session_token, &out->ended);
	if (!rc) {
		cJSON *d = cJSON_CreateObject();
		cJSON_AddNumberToObject(d, "sessions_ended", out->ended);
		rc = fs_event_log(db, r->user.id, 0, "password_changed", d);
		cJSON_Delete(d);
	}
	if (rc) {
		fs_db_rollback(db);
		return rc;
	}
	if ((rc = fs_db_commit(db)))
		return rc;
	fs_throttle_clear(db, r->user.login, r->client_addr);
	out->status = 200;
	snprintf(out->message, sizeof out->message, "Password changed.%s",
		 out->ended ? " Your other sessions have been ended." : "");
	return 0;
}

static void account_page(fs_req *r, fs_resp *w, int status, const char *message, int ok)
{
	cJSON *ctx = cJSON_CreateObject();
	if (message) {
		cJSON_AddStringToObject(ctx, "message", message);
		cJSON_AddBoolToObject(ctx, "ok", ok);
	}
	cJSON_AddStringToObject(ctx, "login", r->user.login);
	fs_resp_page(r, w, status, "account.html", ctx);
}

int fs_h_account_page(fs_req *r, fs_resp *w)
{
	account_page(r, w, 200, NULL, 0);
	return 0;
}

/* The page's form (csrf_token, current_password, new_password, confirm_password). */
int fs_h_account_password(fs_req *r, fs_resp *w)
{
	change_result res;
	int rc = change_password(r, fs_req_param(r, "current_password"), fs_req_param(r, "new_password"),
				 fs_req_param(r, "confirm_password"), &res);
	if (rc)
		return rc;
	if (res.status == 429)
		fs_resp_header(w, "Retry-After", "%d", res.retry_after);
	account_page(r, w, res.status, res.message, res.status == 200);
	return 0;
}

static const fs_field password_fields[] = {
	{"current_password", FS_FIELD_STRING, 1, 0, 0, 1024, NULL},
	{"new_password", FS_FIELD_STRING, 1, 0, 0, 1024, NULL},
};

/* POST /api/me/password {current_password, new_password}. */
int fs_h_me_password(fs_req *r, fs_resp *w)
{
	fs_value v[2];
	if (fs_req_body_fields(r, w, password_fields, 2, v, 0))
		return 0;
	change_result res;
	int rc = change_password(r, v[0].s, v[1].s, NULL, &res);
	if (rc)
		return rc;
	if (res.status != 200) {
		if (res.status == 429)
			fs_resp_header(w, "Retry-After", "%d", res.retry_after);
		fs_resp_error(r, w, res.status, "%s", res.message);
		return 0;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "success", 1);
	cJSON_AddNumberToObject(o, "sessions_ended", res.ended);
	fs_resp_json(w, 200, o);
	return 0;
}
