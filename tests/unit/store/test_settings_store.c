/* Unit tests for per-user settings (validation, merge with defaults,
 * storage) and per-user parameter profiles. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "store/db.h"
#include "test_db.h"
#include "fake_req.h"
#include "rm_tree.h"
#include "store/images_store.h"
#include "analysis/params.h"
#include "routes/router.h"
#include "store/sessions.h"
#include "store/sets_store.h"
#include "store/settings_store.h"
#include "store/users.h"

typedef test_two_users ctx;

static int setup(void **state)
{
	return test_two_users_setup(state, "settings", "Alice A", "Bob B");
}

static int teardown(void **state)
{
	return test_two_users_teardown(state);
}

/* Validates a JSON text; returns the result and leaves the message in err. */
static int validate_text(const char *json, char *err, size_t errlen)
{
	cJSON *o = cJSON_Parse(json);
	assert_non_null(o);
	int rc = fs_settings_validate(o, err, errlen);
	cJSON_Delete(o);
	return rc;
}

static int put_text(ctx *c, long long uid, const char *json, char *err, size_t errlen)
{
	cJSON *o = cJSON_Parse(json);
	assert_non_null(o);
	int rc = fs_settings_put(c->db, uid, o, err, errlen);
	cJSON_Delete(o);
	return rc;
}

static void defaults_match_the_original(void **state)
{
	(void)state;
	cJSON *d = fs_settings_defaults("Me");
	assert_non_null(d);
	assert_string_equal(cJSON_GetObjectItem(d, "tubercle_color")->valuestring, "#00ffff");
	assert_string_equal(cJSON_GetObjectItem(d, "connection_color")->valuestring, "#ffff00");
	assert_string_equal(cJSON_GetObjectItem(d, "grid_color")->valuestring, "#ff88ff");
	assert_string_equal(cJSON_GetObjectItem(d, "boundary_color")->valuestring, "#ff8800");
	assert_string_equal(cJSON_GetObjectItem(d, "manual_color")->valuestring, "#00ff00");
	assert_int_equal(cJSON_GetObjectItem(d, "id_text_size")->valueint, 12);
	assert_float_equal(cJSON_GetObjectItem(d, "grid_opacity")->valuedouble, 0.35, 1e-12);
	assert_float_equal(cJSON_GetObjectItem(d, "hex_spacing_weight")->valuedouble, 0.40, 1e-12);
	assert_float_equal(cJSON_GetObjectItem(d, "hex_degree_weight")->valuedouble, 0.45, 1e-12);
	assert_float_equal(cJSON_GetObjectItem(d, "hex_edge_ratio_weight")->valuedouble, 0.15, 1e-12);
	assert_float_equal(cJSON_GetObjectItem(d, "editor_region_factor")->valuedouble, 6, 1e-12);
	assert_string_equal(cJSON_GetObjectItem(d, "theme")->valuestring, "dark");
	assert_string_equal(cJSON_GetObjectItem(d, "scale_bar_position")->valuestring, "bottom-left");
	assert_string_equal(cJSON_GetObjectItem(d, "connection_endpoints")->valuestring, "center");
	assert_string_equal(cJSON_GetObjectItem(d, "tubercle_color_mode")->valuestring, "source");
	assert_string_equal(cJSON_GetObjectItem(d, "custom_panel_bg")->valuestring, "#1e293b");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(d, "scroll_zoom")));
	assert_string_equal(cJSON_GetObjectItem(d, "display_name")->valuestring, "Me");
	size_t n;
	fs_settings_schema(&n);
	assert_int_equal(cJSON_GetArraySize(d), (int)n);
	cJSON_Delete(d);
}

static void every_default_passes_validation(void **state)
{
	(void)state;
	char err[256];
	cJSON *d = fs_settings_defaults("Me");
	assert_int_equal(fs_settings_validate(d, err, sizeof err), 0);
	cJSON_Delete(d);
}

static void unknown_key_is_refused(void **state)
{
	(void)state;
	char err[256];
	assert_int_equal(validate_text("{\"tubercle_colour\": \"#000000\"}", err, sizeof err), -1);
	assert_non_null(strstr(err, "unknown setting 'tubercle_colour'"));
}

static void colour_must_be_hash_rrggbb(void **state)
{
	(void)state;
	char err[256];
	assert_int_equal(validate_text("{\"tubercle_color\": \"#00FFaa\"}", err, sizeof err), 0);
	const char *bad[] = {"\"red\"", "\"#fff\"", "\"#00ffzz\"", "\"00ffff0\"", "\"#00ffff \"", "12", "null"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0] - 1; i++) {
		char json[64];
		snprintf(json, sizeof json, "{\"grid_color\": %s}", bad[i]);
		assert_int_equal(validate_text(json, err, sizeof err), -1);
		assert_non_null(strstr(err, "'grid_color' must be a colour"));
	}
}

static void null_resets_a_key_and_is_valid(void **state)
{
	(void)state;
	char err[256];
	assert_int_equal(validate_text("{\"grid_color\": null}", err, sizeof err), 0);
}

static void weights_must_be_between_0_and_1(void **state)
{
	(void)state;
	char err[256];
	assert_int_equal(validate_text("{\"hex_degree_weight\": 0}", err, sizeof err), 0);
	assert_int_equal(validate_text("{\"hex_degree_weight\": 1}", err, sizeof err), 0);
	assert_int_equal(validate_text("{\"hex_degree_weight\": 1.01}", err, sizeof err), -1);
	assert_non_null(strstr(err, "between 0 and 1"));
	assert_int_equal(validate_text("{\"hex_spacing_weight\": -0.1}", err, sizeof err), -1);
	assert_int_equal(validate_text("{\"hex_spacing_weight\": \"0.5\"}", err, sizeof err), -1);
}

static void integer_settings_refuse_fractions_and_out_of_range(void **state)
{
	(void)state;
	char err[256];
	assert_int_equal(validate_text("{\"id_text_size\": 24}", err, sizeof err), 0);
	assert_int_equal(validate_text("{\"id_text_size\": 12.5}", err, sizeof err), -1);
	assert_int_equal(validate_text("{\"id_text_size\": 7}", err, sizeof err), -1);
	assert_int_equal(validate_text("{\"id_text_size\": 25}", err, sizeof err), -1);
	assert_non_null(strstr(err, "integer between 8 and 24"));
}

static void grid_opacity_range_is_0_1_to_1(void **state)
{
	(void)state;
	char err[256];
	assert_int_equal(validate_text("{\"grid_opacity\": 0.1}", err, sizeof err), 0);
	assert_int_equal(validate_text("{\"grid_opacity\": 0.05}", err, sizeof err), -1);
}

static void bools_must_be_json_booleans(void **state)
{
	(void)state;
	char err[256];
	assert_int_equal(validate_text("{\"scroll_zoom\": false}", err, sizeof err), 0);
	assert_int_equal(validate_text("{\"scroll_zoom\": 0}", err, sizeof err), -1);
	assert_int_equal(validate_text("{\"scroll_zoom\": \"true\"}", err, sizeof err), -1);
	assert_non_null(strstr(err, "'scroll_zoom' must be true or false"));
}

static void enums_list_their_choices(void **state)
{
	(void)state;
	char err[256];
	assert_int_equal(validate_text("{\"theme\": \"light\"}", err, sizeof err), 0);
	assert_int_equal(validate_text("{\"theme\": \"Dark\"}", err, sizeof err), -1);
	assert_string_equal(err, "setting 'theme' must be one of: dark, light, custom");
	assert_int_equal(validate_text("{\"scale_bar_position\": \"middle-center\"}", err, sizeof err), -1);
}

static void display_name_rules(void **state)
{
	(void)state;
	char err[256];
	assert_int_equal(validate_text("{\"display_name\": \"Zo\\u00eb M\"}", err, sizeof err), 0);
	assert_int_equal(validate_text("{\"display_name\": \"\"}", err, sizeof err), -1);
	assert_int_equal(validate_text("{\"display_name\": \" pad\"}", err, sizeof err), -1);
	assert_int_equal(validate_text("{\"display_name\": \"a\\nb\"}", err, sizeof err), -1);
	assert_int_equal(validate_text("{\"display_name\": null}", err, sizeof err), -1);
	char big[200];
	memset(big, 'x', 129);
	big[129] = 0;
	char json[300];
	snprintf(json, sizeof json, "{\"display_name\": \"%s\"}", big);
	assert_int_equal(validate_text(json, err, sizeof err), -1);
}

static void repeated_key_is_refused(void **state)
{
	(void)state;
	char err[256];
	assert_int_equal(validate_text("{\"theme\": \"light\", \"theme\": \"dark\"}", err, sizeof err), -1);
	assert_non_null(strstr(err, "given twice"));
}

static void patch_must_be_an_object(void **state)
{
	(void)state;
	char err[256];
	assert_int_equal(validate_text("[1]", err, sizeof err), -1);
	assert_int_equal(validate_text("\"x\"", err, sizeof err), -1);
}

static void get_without_stored_settings_gives_defaults_and_account_name(void **state)
{
	ctx *c = *state;
	cJSON *s = NULL;
	assert_int_equal(fs_settings_get(c->db, c->alice, &s), 0);
	assert_string_equal(cJSON_GetObjectItem(s, "display_name")->valuestring, "Alice A");
	assert_string_equal(cJSON_GetObjectItem(s, "theme")->valuestring, "dark");
	cJSON_Delete(s);
}

static void put_then_get_round_trips_and_lowercases_colours(void **state)
{
	ctx *c = *state;
	char err[256];
	assert_int_equal(put_text(c, c->alice,
				  "{\"theme\": \"light\", \"tubercle_color\": \"#ABCDEF\", \"hex_degree_weight\": 0.5,"
				  " \"scroll_zoom\": false}",
				  err, sizeof err),
			 0);
	cJSON *s = NULL;
	assert_int_equal(fs_settings_get(c->db, c->alice, &s), 0);
	assert_string_equal(cJSON_GetObjectItem(s, "theme")->valuestring, "light");
	assert_string_equal(cJSON_GetObjectItem(s, "tubercle_color")->valuestring, "#abcdef");
	assert_float_equal(cJSON_GetObjectItem(s, "hex_degree_weight")->valuedouble, 0.5, 1e-12);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(s, "scroll_zoom")));
	assert_string_equal(cJSON_GetObjectItem(s, "grid_color")->valuestring, "#ff88ff");
	cJSON_Delete(s);
}

static void put_merges_with_earlier_puts(void **state)
{
	ctx *c = *state;
	char err[256];
	assert_int_equal(put_text(c, c->alice, "{\"theme\": \"light\"}", err, sizeof err), 0);
	assert_int_equal(put_text(c, c->alice, "{\"id_text_size\": 20}", err, sizeof err), 0);
	cJSON *s = NULL;
	assert_int_equal(fs_settings_get(c->db, c->alice, &s), 0);
	assert_string_equal(cJSON_GetObjectItem(s, "theme")->valuestring, "light");
	assert_int_equal(cJSON_GetObjectItem(s, "id_text_size")->valueint, 20);
	cJSON_Delete(s);
}

static void invalid_put_changes_nothing(void **state)
{
	ctx *c = *state;
	char err[256];
	assert_int_equal(put_text(c, c->alice, "{\"theme\": \"light\"}", err, sizeof err), 0);
	assert_int_equal(put_text(c, c->alice, "{\"theme\": \"custom\", \"display_name\": \"New\", \"bogus\": 1}", err,
				  sizeof err),
			 FS_DB_INVALID);
	cJSON *s = NULL;
	assert_int_equal(fs_settings_get(c->db, c->alice, &s), 0);
	assert_string_equal(cJSON_GetObjectItem(s, "theme")->valuestring, "light");
	assert_string_equal(cJSON_GetObjectItem(s, "display_name")->valuestring, "Alice A");
	cJSON_Delete(s);
}

static void put_null_restores_the_default(void **state)
{
	ctx *c = *state;
	char err[256];
	assert_int_equal(put_text(c, c->alice, "{\"grid_opacity\": 0.9}", err, sizeof err), 0);
	assert_int_equal(put_text(c, c->alice, "{\"grid_opacity\": null}", err, sizeof err), 0);
	cJSON *s = NULL;
	assert_int_equal(fs_settings_get(c->db, c->alice, &s), 0);
	assert_float_equal(cJSON_GetObjectItem(s, "grid_opacity")->valuedouble, 0.35, 1e-12);
	cJSON_Delete(s);
}

/* issue 16 item 6: the tools an agent runs without asking */
static void no_approval_tools_are_a_list_of_names(void **state)
{
	(void)state;
	char err[256];
	assert_int_equal(validate_text("{\"agent_no_approval_tools\": \"get_*,select_tubercles\"}", err, sizeof err), 0);
	assert_int_equal(validate_text("{\"agent_no_approval_tools\": \"get_state, get_params\"}", err, sizeof err), 0);
	assert_int_equal(validate_text("{\"agent_no_approval_tools\": \"\"}", err, sizeof err), 0);
	assert_int_equal(validate_text("{\"agent_no_approval_tools\": null}", err, sizeof err), 0);
	const char *bad[] = {"{\"agent_no_approval_tools\": \"get_*,\"}", "{\"agent_no_approval_tools\": \"Get_state\"}",
			     "{\"agent_no_approval_tools\": \"get_*x\"}", "{\"agent_no_approval_tools\": \"a;b\"}",
			     "{\"agent_no_approval_tools\": \",get_state\"}", "{\"agent_no_approval_tools\": 3}"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(validate_text(bad[i], err, sizeof err), -1);
		assert_non_null(strstr(err, "agent_no_approval_tools"));
	}
}

static void no_approval_tools_default_to_the_servers_list(void **state)
{
	ctx *c = *state;
	char err[256], buf[256];
	assert_int_equal(fs_settings_is_stored(c->db, c->alice, "agent_no_approval_tools"), 0);
	fs_settings_no_approval_tools(c->db, c->alice, "get_state", buf, sizeof buf);
	assert_string_equal(buf, "get_state");
	assert_int_equal(put_text(c, c->alice, "{\"agent_no_approval_tools\": \"\"}", err, sizeof err), 0);
	assert_int_equal(fs_settings_is_stored(c->db, c->alice, "agent_no_approval_tools"), 1);
	fs_settings_no_approval_tools(c->db, c->alice, "get_state", buf, sizeof buf);
	assert_string_equal(buf, ""); /* the user's empty list: ask for every tool */
	fs_settings_no_approval_tools(c->db, c->bob, "get_*", buf, sizeof buf);
	assert_string_equal(buf, "get_*"); /* per user */
	assert_int_equal(put_text(c, c->alice, "{\"agent_no_approval_tools\": null}", err, sizeof err), 0);
	fs_settings_no_approval_tools(c->db, c->alice, "get_*", buf, sizeof buf);
	assert_string_equal(buf, "get_*");
}

static void display_name_goes_to_the_account(void **state)
{
	ctx *c = *state;
	char err[256];
	assert_int_equal(put_text(c, c->alice, "{\"display_name\": \"Alice Z\"}", err, sizeof err), 0);
	fs_user u;
	assert_int_equal(fs_user_get(c->db, c->alice, &u), 0);
	assert_string_equal(u.display_name, "Alice Z");
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(fs_db_handle(c->db), "SELECT settings FROM user_settings WHERE user_id = ?",
					    -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_int64(st, 1, c->alice);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_null(strstr((const char *)sqlite3_column_text(st, 0), "display_name"));
	sqlite3_finalize(st);
}

static void settings_are_per_user(void **state)
{
	ctx *c = *state;
	char err[256];
	assert_int_equal(put_text(c, c->alice, "{\"theme\": \"custom\"}", err, sizeof err), 0);
	cJSON *s = NULL;
	assert_int_equal(fs_settings_get(c->db, c->bob, &s), 0);
	assert_string_equal(cJSON_GetObjectItem(s, "theme")->valuestring, "dark");
	cJSON_Delete(s);
}

static void reset_forgets_stored_values_but_keeps_name(void **state)
{
	ctx *c = *state;
	char err[256];
	assert_int_equal(put_text(c, c->alice, "{\"theme\": \"custom\", \"display_name\": \"Kept\"}", err, sizeof err),
			 0);
	assert_int_equal(fs_settings_reset(c->db, c->alice), 0);
	cJSON *s = NULL;
	assert_int_equal(fs_settings_get(c->db, c->alice, &s), 0);
	assert_string_equal(cJSON_GetObjectItem(s, "theme")->valuestring, "dark");
	assert_string_equal(cJSON_GetObjectItem(s, "display_name")->valuestring, "Kept");
	cJSON_Delete(s);
}

static void stale_stored_keys_read_as_defaults(void **state)
{
	ctx *c = *state;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(fs_db_handle(c->db),
					    "INSERT INTO user_settings (user_id, settings) VALUES (?, "
					    "'{\"gone_key\": 1, \"id_text_size\": 99, \"theme\": \"light\"}')",
					    -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_int64(st, 1, c->bob);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	cJSON *s = NULL;
	assert_int_equal(fs_settings_get(c->db, c->bob, &s), 0);
	assert_null(cJSON_GetObjectItem(s, "gone_key"));
	assert_int_equal(cJSON_GetObjectItem(s, "id_text_size")->valueint, 12);
	assert_string_equal(cJSON_GetObjectItem(s, "theme")->valuestring, "light");
	cJSON_Delete(s);
}

static void profile_save_list_get_delete(void **state)
{
	ctx *c = *state;
	char err[256];
	fs_params p;
	fs_params_default(&p);
	p.threshold = 0.12;
	long long id = 0;
	assert_int_equal(fs_uprofile_save(c->db, c->alice, "My Gars", &p, 0, &id, err, sizeof err), 0);
	assert_true(id > 0);
	cJSON *l = NULL;
	assert_int_equal(fs_uprofile_list(c->db, c->alice, &l), 0);
	assert_int_equal(cJSON_GetArraySize(l), 1);
	cJSON *e = cJSON_GetArrayItem(l, 0);
	assert_string_equal(cJSON_GetObjectItem(e, "name")->valuestring, "My Gars");
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(e, "builtin")));
	assert_float_equal(cJSON_GetObjectItem(e, "threshold")->valuedouble, 0.12, 1e-12);
	assert_int_equal((long long)cJSON_GetObjectItem(e, "id")->valuedouble, id);
	cJSON_Delete(l);
	fs_params q;
	char canon[FS_PROFILE_NAME_MAX + 1];
	assert_int_equal(fs_uprofile_get(c->db, c->alice, "my gars", &q, canon), 0);
	assert_string_equal(canon, "My Gars");
	assert_float_equal(q.threshold, 0.12, 1e-12);
	assert_int_equal(fs_uprofile_delete(c->db, c->alice, id), 0);
	assert_int_equal(fs_uprofile_get(c->db, c->alice, "My Gars", &q, NULL), FS_DB_NOTFOUND);
}

static void profile_name_clash_is_a_conflict_unless_overwrite(void **state)
{
	ctx *c = *state;
	char err[256];
	fs_params p;
	fs_params_default(&p);
	long long id1, id2;
	assert_int_equal(fs_uprofile_save(c->db, c->alice, "run", &p, 0, &id1, err, sizeof err), 0);
	p.threshold = 0.2;
	assert_int_equal(fs_uprofile_save(c->db, c->alice, "RUN", &p, 0, &id2, err, sizeof err), FS_DB_CONSTRAINT);
	assert_non_null(strstr(err, "overwrite"));
	assert_int_equal(fs_uprofile_save(c->db, c->alice, "RUN", &p, 1, &id2, err, sizeof err), 0);
	assert_int_equal(id1, id2);
	fs_params q;
	assert_int_equal(fs_uprofile_get(c->db, c->alice, "run", &q, NULL), 0);
	assert_float_equal(q.threshold, 0.2, 1e-12);
	/* another user may use the same name */
	assert_int_equal(fs_uprofile_save(c->db, c->bob, "run", &p, 0, &id2, err, sizeof err), 0);
	assert_true(id2 != id1);
}

static void profile_may_not_shadow_a_builtin(void **state)
{
	ctx *c = *state;
	char err[256];
	fs_params p;
	fs_params_default(&p);
	assert_int_equal(fs_uprofile_save(c->db, c->alice, "Default", &p, 1, NULL, err, sizeof err), FS_DB_INVALID);
	assert_non_null(strstr(err, "built-in"));
	assert_int_equal(fs_uprofile_save(c->db, c->alice, "high-contrast", &p, 0, NULL, err, sizeof err),
			 FS_DB_INVALID);
}

static void profile_with_invalid_params_is_refused(void **state)
{
	ctx *c = *state;
	char err[256];
	fs_params p;
	fs_params_default(&p);
	p.min_circularity = 2;
	assert_int_equal(fs_uprofile_save(c->db, c->alice, "bad", &p, 0, NULL, err, sizeof err), FS_DB_INVALID);
	assert_non_null(strstr(err, "min_circularity"));
	cJSON *l = NULL;
	assert_int_equal(fs_uprofile_list(c->db, c->alice, &l), 0);
	assert_int_equal(cJSON_GetArraySize(l), 0);
	cJSON_Delete(l);
}

static void profile_names_are_checked(void **state)
{
	(void)state;
	char err[256];
	assert_int_equal(fs_profile_name_valid("ok name", err, sizeof err), 0);
	assert_int_equal(fs_profile_name_valid("", err, sizeof err), -1);
	assert_int_equal(fs_profile_name_valid(" lead", err, sizeof err), -1);
	assert_int_equal(fs_profile_name_valid("tab\there", err, sizeof err), -1);
	assert_int_equal(fs_profile_name_valid("bad\xc3", err, sizeof err), -1);
	char big[80];
	memset(big, 'a', 65);
	big[65] = 0;
	assert_int_equal(fs_profile_name_valid(big, err, sizeof err), -1);
}

static void delete_of_another_users_profile_is_not_found(void **state)
{
	ctx *c = *state;
	char err[256];
	fs_params p;
	fs_params_default(&p);
	long long id;
	assert_int_equal(fs_uprofile_save(c->db, c->alice, "mine", &p, 0, &id, err, sizeof err), 0);
	assert_int_equal(fs_uprofile_delete(c->db, c->bob, id), FS_DB_NOTFOUND);
	assert_int_equal(fs_uprofile_get(c->db, c->alice, "mine", &p, NULL), 0);
}

static void builtin_profile_json_has_the_original_fields(void **state)
{
	(void)state;
	const fs_profile *p = fs_profile_find("paralepidosteus");
	assert_non_null(p);
	cJSON *o = fs_profile_builtin_json(p);
	assert_non_null(o);
	const char *keys[] = {"name", "description", "calibration_um_per_px", "clahe_clip", "clahe_kernel",
			      "blur_sigma", "threshold", "min_circularity", "min_diameter_um", "max_diameter_um",
			      "method", "builtin"};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		assert_non_null(cJSON_GetObjectItem(o, keys[i]));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "builtin")));
	cJSON_Delete(o);
}


/* ---- the routes of route_data.c through the dispatcher (so the
 * sanitizers see the handlers too) ---- */

static fs_app app;
static char appdir[128];
static char cookie_env[200], csrf_env[100];
static long long app_image;

static int app_setup(void **state)
{
	(void)state;
	char err[512];
	snprintf(appdir, sizeof appdir, "/tmp/fs-settings-routes-%d", (int)getpid());
	if (fs_app_config(&app, ".", NULL, err, sizeof err))
		return -1;
	snprintf(app.cfg.data_dir, sizeof app.cfg.data_dir, "%s", appdir);
	snprintf(app.cfg.base_path, sizeof app.cfg.base_path, "/");
	if (fs_app_open(&app, 0, err, sizeof err))
		return -1;
	long long uid;
	char tok[65], csrf[65];
	if (fs_user_create(app.db, "tester", "Tester", 0, NULL, &uid, err, sizeof err) ||
	    fs_session_create(app.db, uid, (long long)time(NULL), 3600, "127.0.0.1", tok, csrf))
		return -1;
	snprintf(cookie_env, sizeof cookie_env, "HTTP_COOKIE=fs_session=%s", tok);
	snprintf(csrf_env, sizeof csrf_env, "HTTP_X_CSRF_TOKEN=%s", csrf);
	fs_image_rec rec;
	memset(&rec, 0, sizeof rec);
	rec.owner_id = uid;
	memset(rec.file_sha256, 'a', 64);
	memset(rec.work_key, 'b', 64);
	snprintf(rec.original_name, sizeof rec.original_name, "scale one.tif");
	snprintf(rec.format, sizeof rec.format, "tiff");
	rec.width = 100;
	rec.height = 80;
	rec.bit_depth = 8;
	rec.channels = 1;
	rec.n_pages = 1;
	rec.shared = 1;
	long long set_id;
	if (fs_image_insert(app.db, &rec, 1000) ||
	    fs_set_create(app.db, rec.id, "Base", uid, &set_id, err, sizeof err))
		return -1;
	app_image = rec.id;
	return 0;
}

static int app_teardown(void **state)
{
	(void)state;
	fs_app_close(&app);
	return test_rm_tree(appdir);
}

/* Runs one request; body may be NULL; ctype NULL = application/json when there is a body. */
static int call(const char *method, const char *uri, const char *ctype, const char *body, fs_resp *w)
{
	char m[40], u[300], q[300], ct[200], cl[64];
	const char *qs = strchr(uri, '?');
	snprintf(m, sizeof m, "REQUEST_METHOD=%s", method);
	snprintf(u, sizeof u, "DOCUMENT_URI=%.*s", qs ? (int)(qs - uri) : (int)strlen(uri), uri);
	snprintf(q, sizeof q, "QUERY_STRING=%s", qs ? qs + 1 : "");
	snprintf(ct, sizeof ct, "CONTENT_TYPE=%s", body ? (ctype ? ctype : "application/json") : "");
	snprintf(cl, sizeof cl, "CONTENT_LENGTH=%zu", body ? strlen(body) : 0);
	const char *env[] = {m, u, q, ct, cl, "REMOTE_ADDR=127.0.0.1", cookie_env, csrf_env, NULL};
	return fs_fake_dispatch(&app, env, body, w);
}

static int call_free(const char *method, const char *uri, const char *ctype, const char *body)
{
	fs_resp w;
	int st = call(method, uri, ctype, body, &w);
	fs_resp_free(&w);
	return st;
}

static void route_log_post_list_and_export(void **state)
{
	(void)state;
	assert_int_equal(call_free("POST", "/api/log", NULL, "{\"event_type\":\"toast_info\",\"details\":{\"message\":\"hi\"}}"),
			 201);
	assert_int_equal(call_free("POST", "/api/log", NULL, "{\"event_type\":\"Bad Type\"}"), 422);
	assert_int_equal(call_free("POST", "/api/log", NULL, "{\"event_type\":\"x\",\"details\":3}"), 422);
	fs_resp w;
	assert_int_equal(call("GET", "/api/log?type=toast_*&limit=5", NULL, NULL, &w), 200);
	assert_non_null(strstr(w.body.data, "\"message\":\"hi\""));
	assert_non_null(strstr(w.body.data, "\"next_before_id\":null"));
	fs_resp_free(&w);
	assert_int_equal(call("GET", "/api/log/export.jsonl?type=toast_info", NULL, NULL, &w), 200);
	assert_non_null(strstr(w.body.data, "\"event_type\":\"toast_info\""));
	assert_int_equal(w.body.data[w.body.len - 1], '\n');
	fs_resp_free(&w);
	assert_int_equal(call_free("GET", "/api/log?user=all", NULL, NULL), 403);
	assert_int_equal(call_free("GET", "/api/log?since=2026-13-01T00:00:00Z", NULL, NULL), 422);
}

static void route_settings_round_trip_and_errors(void **state)
{
	(void)state;
	fs_resp w;
	assert_int_equal(call("PUT", "/api/settings", NULL, "{\"settings\":{\"theme\":\"light\",\"grid_color\":\"#ABCDEF\"}}",
			      &w),
			 200);
	assert_non_null(strstr(w.body.data, "\"theme\":\"light\""));
	assert_non_null(strstr(w.body.data, "\"grid_color\":\"#abcdef\""));
	fs_resp_free(&w);
	assert_int_equal(call_free("PUT", "/api/settings", NULL, "{\"settings\":{\"what\":1}}"), 422);
	assert_int_equal(call_free("PUT", "/api/settings", NULL, "{\"settings\":[]}"), 422);
	assert_int_equal(call_free("PUT", "/api/settings", NULL, NULL), 400);
	assert_int_equal(call("POST", "/api/settings/reset", NULL, NULL, &w), 200);
	assert_non_null(strstr(w.body.data, "\"theme\":\"dark\""));
	/* not set: the server's list, as the setting and as its default */
	assert_non_null(strstr(w.body.data, "\"agent_no_approval_tools\":\"get_*,select_tubercles\""));
	fs_resp_free(&w);
	assert_int_equal(call("PUT", "/api/settings", NULL, "{\"settings\":{\"agent_no_approval_tools\":\"get_state\"}}", &w),
			 200);
	assert_non_null(strstr(w.body.data, "\"agent_no_approval_tools\":\"get_state\""));
	fs_resp_free(&w);
	assert_int_equal(call_free("PUT", "/api/settings", NULL, "{\"settings\":{\"agent_no_approval_tools\":\"x y\"}}"), 422);
	assert_int_equal(call_free("POST", "/api/settings/reset", NULL, NULL), 200);
}

static void route_profiles_crud(void **state)
{
	(void)state;
	fs_resp w;
	assert_int_equal(call("POST", "/api/profiles", NULL, "{\"name\":\"mine\",\"parameters\":{\"threshold\":0.2}}", &w),
			 201);
	cJSON *j = cJSON_Parse(w.body.data);
	long long id = (long long)cJSON_GetObjectItem(j, "id")->valuedouble;
	cJSON_Delete(j);
	fs_resp_free(&w);
	assert_int_equal(call_free("POST", "/api/profiles", NULL, "{\"name\":\"mine\",\"parameters\":{}}"), 409);
	assert_int_equal(call_free("POST", "/api/profiles", NULL, "{\"name\":\"default\",\"parameters\":{}}"), 422);
	assert_int_equal(call("GET", "/api/profiles", NULL, NULL, &w), 200);
	assert_non_null(strstr(w.body.data, "\"name\":\"mine\""));
	assert_non_null(strstr(w.body.data, "\"name\":\"paralepidosteus\""));
	fs_resp_free(&w);
	assert_int_equal(call("POST", "/api/profile", NULL, "{\"name\":\"MINE\"}", &w), 200);
	assert_non_null(strstr(w.body.data, "\"threshold\":0.2"));
	fs_resp_free(&w);
	char uri[64];
	snprintf(uri, sizeof uri, "/api/profiles/%lld", id);
	assert_int_equal(call_free("DELETE", uri, NULL, NULL), 200);
	assert_int_equal(call_free("DELETE", uri, NULL, NULL), 404);
}

static const char v3_doc[] =
	"{\"format\":\"fish-scale-annotations\",\"version\":\"3.0\",\"calibration\":{\"um_per_px\":0.5,"
	"\"method\":\"manual\"},\"sets\":[{\"id\":\"set_1\",\"name\":\"Base\",\"calibration_um_per_pixel\":0.5,"
	"\"tubercles\":[{\"id\":1,\"centroid_x\":10,\"centroid_y\":10,\"radius_px\":3,\"circularity\":0.9},"
	"{\"id\":2,\"centroid_x\":30,\"centroid_y\":12,\"radius_px\":2.5,\"circularity\":1}],"
	"\"edges\":[{\"id1\":1,\"id2\":2}],\"parameters\":{\"method\":\"log\",\"threshold\":0.1},"
	"\"history\":[{\"type\":\"extraction\",\"user\":\"X\"}]},"
	"{\"name\":\"a, b\",\"tubercles\":[{\"id\":1,\"centroid_x\":1,\"centroid_y\":2,\"radius_px\":1}],\"edges\":[]}]}";

static long long first_imported_set(const char *body)
{
	cJSON *j = cJSON_Parse(body);
	assert_non_null(j);
	long long id = (long long)cJSON_GetArrayItem(cJSON_GetObjectItem(j, "sets"), 0)->child->valuedouble;
	cJSON_Delete(j);
	return id;
}

static void route_import_export_and_csv(void **state)
{
	(void)state;
	char uri[128];
	fs_resp w;
	snprintf(uri, sizeof uri, "/api/images/%lld/import", app_image);
	assert_int_equal(call("POST", uri, NULL, v3_doc, &w), 201);
	assert_non_null(strstr(w.body.data, "\"name\":\"Base (2)\""));
	assert_non_null(strstr(w.body.data, "\"report\":["));
	long long sid = first_imported_set(w.body.data);
	fs_resp_free(&w);
	static const char mp[] = "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f_slo.json\"\r\n"
				 "Content-Type: application/json\r\n\r\n{\"tubercles\":[{\"id\":1,\"centroid_x\":4,"
				 "\"centroid_y\":4,\"diameter_px\":4}],\"edges\":[]}\r\n--XyZ--\r\n";
	assert_int_equal(call("POST", uri, "multipart/form-data; boundary=XyZ", mp, &w), 201);
	assert_non_null(strstr(w.body.data, "\"name\":\"Base (3)\""));
	fs_resp_free(&w);
	assert_int_equal(call_free("POST", uri, NULL, "{\"hello\":1}"), 422);
	assert_int_equal(call_free("POST", uri, "text/plain", "x"), 415);
	assert_int_equal(call_free("POST", uri, "multipart/form-data; boundary=XyZ", "--XyZ\r\ntruncated"), 400);

	snprintf(uri, sizeof uri, "/api/images/%lld/export.json", app_image);
	assert_int_equal(call("GET", uri, NULL, NULL, &w), 200);
	assert_non_null(strstr(w.body.data, "\"version\":\t\"3.0\""));
	assert_non_null(strstr(w.headers.data, "filename=\"scale_one_annotations.json\""));
	fs_resp_free(&w);
	snprintf(uri, sizeof uri, "/api/sets/%lld/export.json", sid);
	assert_int_equal(call("GET", uri, NULL, NULL, &w), 200);
	assert_non_null(strstr(w.body.data, "\"type\":\t\"import\""));
	fs_resp_free(&w);
	snprintf(uri, sizeof uri, "/api/sets/%lld/tubercles.csv", sid);
	assert_int_equal(call("GET", uri, NULL, NULL, &w), 200);
	assert_string_equal(w.content_type, "text/csv; charset=utf-8");
	fs_resp_free(&w);
	snprintf(uri, sizeof uri, "/api/sets/%lld/edges.csv", sid);
	assert_int_equal(call_free("GET", uri, NULL, NULL), 200);
	snprintf(uri, sizeof uri, "/api/sets/%lld/summary.csv", sid + 1);
	assert_int_equal(call("GET", uri, NULL, NULL, &w), 200);
	assert_non_null(strstr(w.body.data, "\"scale one.tif / a, b\""));
	fs_resp_free(&w);
	assert_int_equal(call_free("GET", "/api/sets/987654/tubercles.csv", NULL, NULL), 404);
	assert_int_equal(call_free("GET", "/api/images/987654/export.json", NULL, NULL), 404);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_match_the_original),
		cmocka_unit_test(every_default_passes_validation),
		cmocka_unit_test(unknown_key_is_refused),
		cmocka_unit_test(colour_must_be_hash_rrggbb),
		cmocka_unit_test(null_resets_a_key_and_is_valid),
		cmocka_unit_test(weights_must_be_between_0_and_1),
		cmocka_unit_test(integer_settings_refuse_fractions_and_out_of_range),
		cmocka_unit_test(grid_opacity_range_is_0_1_to_1),
		cmocka_unit_test(bools_must_be_json_booleans),
		cmocka_unit_test(enums_list_their_choices),
		cmocka_unit_test(display_name_rules),
		cmocka_unit_test(repeated_key_is_refused),
		cmocka_unit_test(patch_must_be_an_object),
		cmocka_unit_test(no_approval_tools_are_a_list_of_names),
		cmocka_unit_test(profile_names_are_checked),
		cmocka_unit_test(builtin_profile_json_has_the_original_fields),
		T(get_without_stored_settings_gives_defaults_and_account_name),
		T(put_then_get_round_trips_and_lowercases_colours),
		T(put_merges_with_earlier_puts),
		T(invalid_put_changes_nothing),
		T(put_null_restores_the_default),
		T(no_approval_tools_default_to_the_servers_list),
		T(display_name_goes_to_the_account),
		T(settings_are_per_user),
		T(reset_forgets_stored_values_but_keeps_name),
		T(stale_stored_keys_read_as_defaults),
		T(profile_save_list_get_delete),
		T(profile_name_clash_is_a_conflict_unless_overwrite),
		T(profile_may_not_shadow_a_builtin),
		T(profile_with_invalid_params_is_refused),
		T(delete_of_another_users_profile_is_not_found),
	};
	const struct CMUnitTest route_tests[] = {
		cmocka_unit_test(route_log_post_list_and_export),
		cmocka_unit_test(route_settings_round_trip_and_errors),
		cmocka_unit_test(route_profiles_crud),
		cmocka_unit_test(route_import_export_and_csv),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	return failed + cmocka_run_group_tests(route_tests, app_setup, app_teardown);
}
