/*
 * route_admin.c - the administrators' user page: list, add, disable,
 * enable, reset password. New and reset passwords are random, shown once
 * on the page that follows the action, and never stored in clear.
 */
#include <stdio.h>
#include <string.h>

#include "routes/routes.h"
#include "store/store.h"
#include "base/base.h"

static int add_user_row(const fs_user *u, void *ud)
{
	cJSON *arr = ud;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "id", (double)u->id);
	cJSON_AddStringToObject(o, "login", u->login);
	cJSON_AddStringToObject(o, "display_name", u->display_name);
	cJSON_AddStringToObject(o, "role", u->is_admin ? "admin" : "member");
	cJSON_AddBoolToObject(o, "disabled", u->disabled);
	cJSON_AddStringToObject(o, "disk", "0.0 MB");
	cJSON_AddItemToArray(arr, o);
	return 0;
}

/* Disk usage into the user rows (both lists are in user id order). */
static int add_usage(long long user_id, long long bytes, void *ud)
{
	cJSON *u;
	cJSON_ArrayForEach(u, (cJSON *)ud)
	{
		if ((long long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(u, "id")) == user_id) {
			char mb[32];
			snprintf(mb, sizeof mb, "%.1f MB", bytes / 1048576.0);
			cJSON_ReplaceItemInObjectCaseSensitive(u, "disk", cJSON_CreateString(mb));
			break;
		}
	}
	return 0;
}

static int admin_page(fs_req *r, fs_resp *w, int status, const char *message, const char *secret_login,
		      const char *secret)
{
	cJSON *ctx = cJSON_CreateObject();
	cJSON *users = cJSON_AddArrayToObject(ctx, "users");
	int rc = fs_user_each(r->app->db, add_user_row, users);
	if (!rc)
		rc = fs_disk_usage_each(r->app->db, r->app->cfg.data_dir, add_usage, users);
	if (rc) {
		cJSON_Delete(ctx);
		return rc;
	}
	if (message)
		cJSON_AddStringToObject(ctx, "message", message);
	if (secret) {
		cJSON_AddStringToObject(ctx, "secret_login", secret_login);
		cJSON_AddStringToObject(ctx, "secret", secret);
	}
	fs_resp_page(r, w, status, "admin.html", ctx);
	return 0;
}

int fs_h_admin_page(fs_req *r, fs_resp *w)
{
	return admin_page(r, w, 200, NULL, NULL, NULL);
}

int fs_h_admin_user_add(fs_req *r, fs_resp *w)
{
	const char *login = fs_req_param(r, "login");
	const char *display = fs_req_param(r, "display_name");
	const char *role = fs_req_param(r, "role");
	char pw[21];
	if (fs_password_generate(pw, 20))
		return FS_DB_ERROR;
	char err[256];
	long long id;
	int admin = role && !strcmp(role, "admin");
	int rc = fs_user_create(r->app->db, login ? login : "", display, admin, pw, &id, err, sizeof err);
	if (rc == FS_DB_BUSY)
		return rc;
	if (rc)
		return admin_page(r, w, rc == FS_DB_CONSTRAINT ? 409 : 422, err, NULL, NULL);
	char msg[160];
	snprintf(msg, sizeof msg, "Account '%s' created.", login);
	return admin_page(r, w, 200, msg, login, pw);
}

static int set_disabled(fs_req *r, fs_resp *w, int disabled)
{
	long long id = r->ids[0];
	if (disabled && id == r->user.id)
		return admin_page(r, w, 409, "You cannot disable your own account.", NULL, NULL);
	int rc = fs_user_set_disabled(r->app->db, id, disabled);
	if (rc == FS_DB_NOTFOUND) {
		fs_resp_error(r, w, 404, "no such user");
		return 0;
	}
	if (rc)
		return rc;
	return admin_page(r, w, 200, disabled ? "Account disabled; its sessions ended." : "Account enabled.",
			  NULL, NULL);
}

int fs_h_admin_user_disable(fs_req *r, fs_resp *w)
{
	return set_disabled(r, w, 1);
}

int fs_h_admin_user_enable(fs_req *r, fs_resp *w)
{
	return set_disabled(r, w, 0);
}

int fs_h_admin_user_password(fs_req *r, fs_resp *w)
{
	fs_user u;
	int rc = fs_user_get(r->app->db, r->ids[0], &u);
	if (rc == FS_DB_NOTFOUND) {
		fs_resp_error(r, w, 404, "no such user");
		return 0;
	}
	if (rc)
		return rc;
	char pw[21], err[256];
	if (fs_password_generate(pw, 20))
		return FS_DB_ERROR;
	rc = fs_user_set_password(r->app->db, u.id, pw, err, sizeof err);
	if (rc)
		return rc;
	/* a reset password must end sessions opened with the old one */
	if (u.id != r->user.id)
		fs_session_delete_user(r->app->db, u.id);
	return admin_page(r, w, 200, "Password reset.", u.login, pw);
}
