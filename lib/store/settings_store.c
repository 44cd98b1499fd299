/* settings_store.c - per-user settings and parameter profiles (see settings_store.h). */
#include "store/settings_store.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "analysis/params_json.h"
#include "store/users.h"
#include "store/db_bind.h"

static const char *const endpoint_choices[] = {"center", "edge", NULL};
static const char *const color_mode_choices[] = {"uniform", "source", "boundary", NULL};
static const char *const scale_pos_choices[] = {"top-left",    "top-center",    "top-right",
						"middle-left", "middle-right",  "bottom-left",
						"bottom-center", "bottom-right", NULL};
static const char *const theme_choices[] = {"dark", "light", "custom", NULL};

#define B(k, d, h) {k, FS_SETTING_BOOL, 0, 1, d, NULL, NULL, h}
#define I(k, lo, hi, d, h) {k, FS_SETTING_INT, lo, hi, d, NULL, NULL, h}
#define N(k, lo, hi, d, h) {k, FS_SETTING_NUMBER, lo, hi, d, NULL, NULL, h}
#define C(k, d, h) {k, FS_SETTING_COLOR, 0, 0, 0, d, NULL, h}
#define E(k, ch, d, h) {k, FS_SETTING_ENUM, 0, 0, 0, d, ch, h}

/* Defaults are the original's (reference-ui.md §1.11) where it had the
 * setting; the rest are new and chosen to look like the original. */
static const fs_setting_def schema[] = {
	{"display_name", FS_SETTING_TEXT, 1, FS_DISPLAY_NAME_MAX, 0, "", NULL,
	 "your name, stamped into history events"},
	B("scroll_zoom", 1, "mouse wheel zooms the image"),
	B("show_tubercle_ids", 0, "default of the Tube IDs toggle on new images"),
	I("id_text_size", 8, 24, 12, "tubercle id label size in px"),
	C("tubercle_color", "#00ffff", "tubercle outline (uniform and extracted)"),
	C("connection_color", "#ffff00", "connection lines"),
	C("selected_color", "#ff0000", "selected tubercles and connections"),
	C("boundary_color", "#ff8800", "boundary tubercles in 'boundary' colour mode"),
	C("manual_color", "#00ff00", "manually added tubercles in 'source' colour mode"),
	C("grid_color", "#ff88ff", "grid lines"),
	N("grid_opacity", 0.1, 1.0, 0.35, "grid opacity"),
	N("tubercle_line_width", 0.5, 10, 2, "tubercle outline width in px"),
	N("connection_line_width", 0.5, 10, 1.5, "connection line width in px"),
	E("connection_endpoints", endpoint_choices, "center", "lines end at the centres or the circles"),
	E("tubercle_color_mode", color_mode_choices, "source", "uniform, by source or by boundary"),
	B("show_scale_bar", 1, "default of the Scale toggle"),
	E("scale_bar_position", scale_pos_choices, "bottom-left", "where the scale bar is drawn"),
	E("theme", theme_choices, "dark", "panel theme"),
	C("custom_panel_bg", "#1e293b", "custom theme: panel background"),
	C("custom_chart_bg", "#1a1a2e", "custom theme: chart background"),
	C("custom_text_primary", "#e2e8f0", "custom theme: primary text"),
	C("custom_text_muted", "#94a3b8", "custom theme: muted text"),
	C("custom_text_dim", "#64748b", "custom theme: dim text"),
	C("custom_border", "#334155", "custom theme: borders"),
	C("custom_grid_lines", "#333344", "custom theme: grid lines"),
	C("custom_set_name", "#93c5fd", "custom theme: set name in the stats bar"),
	C("custom_hex_value", "#fbbf24", "custom theme: hexagonalness value in the stats bar"),
	N("hex_spacing_weight", 0, 1, 0.40, "hexagonalness weight of spacing uniformity"),
	N("hex_degree_weight", 0, 1, 0.45, "hexagonalness weight of the degree score"),
	N("hex_edge_ratio_weight", 0, 1, 0.15, "hexagonalness weight of the edge ratio score"),
	N("editor_default_diameter_um", 0, 1000, 0, "diameter of added tubercles, 0 = auto (mean)"),
	B("editor_auto_size", 0, "size added tubercles from the image"),
	N("editor_region_factor", 1, 10, 6, "auto-size region in diameters"),
	B("editor_show_region", 0, "draw the analysed region after an auto-size"),
	B("editor_delete_without_confirm", 0, "delete without a confirmation dialog"),
	B("editor_chain_auto_connect", 1, "chain mode connects each new tubercle to the current one"),
	B("editor_chain_hint", 1, "show the chain mode keyboard hint"),
	I("tabs_panel_width", 200, 2000, 420, "width of the tabs panel in px"),
	B("auto_calibrate_data_bar", 0, "apply the calibration read from an SEM data bar to new uploads when it is confident"),
	/* issue 16: read-only tools need no approval; the server's configuration
	 * (agent_no_approval_tools) is the default of users who never set it */
	{"agent_no_approval_tools", FS_SETTING_NAMES, 0, FS_SETTING_NAMES_MAX, 0, FS_NO_APPROVAL_DEFAULT, NULL,
	 "tools that run without asking when each step needs approval: names, 'prefix*' for all that start so"},
};

#define NSCHEMA (sizeof schema / sizeof schema[0])

const fs_setting_def *fs_settings_schema(size_t *count)
{
	*count = NSCHEMA;
	return schema;
}

static const fs_setting_def *find_def(const char *key)
{
	for (size_t i = 0; i < NSCHEMA; i++)
		if (!strcmp(schema[i].key, key))
			return &schema[i];
	return NULL;
}

/* Valid UTF-8 (no overlongs, surrogates or code points above U+10FFFF)
 * without control characters. */
static int text_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned c = *p;
		int n;
		unsigned cp;
		if (c < 0x80) {
			if (c < 0x20 || c == 0x7f)
				return 0;
			p++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			n = 1;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			n = 2;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			n = 3;
			cp = c & 0x07;
		} else {
			return 0;
		}
		for (int k = 1; k <= n; k++) {
			if ((p[k] & 0xc0) != 0x80)
				return 0;
			cp = (cp << 6) | (p[k] & 0x3f);
		}
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp < 0xa0))
			return 0;
		p += n + 1;
	}
	return 1;
}

/* A list of tool names: names of [a-z0-9_], each optionally ending in '*',
 * separated by commas (spaces around them allowed); "" is the empty list. */
static int names_ok(const char *s)
{
	const char *p = s;
	while (*p) {
		while (*p == ' ')
			p++;
		size_t n = 0;
		while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= '0' && p[n] <= '9') || p[n] == '_')
			n++;
		if (p[n] == '*')
			n++;
		if (!n)
			return 0;
		p += n;
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (*p != ',')
			return 0;
		p++;
		while (*p == ' ')
			p++;
		if (!*p)
			return 0; /* a trailing comma */
	}
	return 1;
}

static int color_ok(const char *s)
{
	if (strlen(s) != 7 || s[0] != '#')
		return 0;
	for (int i = 1; i < 7; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Checks one value against its definition; the message names the key. */
static int value_ok(const fs_setting_def *d, const cJSON *v, char *err, size_t errlen)
{
	switch (d->type) {
	case FS_SETTING_BOOL:
		if (cJSON_IsBool(v))
			return 0;
		snprintf(err, errlen, "setting '%s' must be true or false", d->key);
		return -1;
	case FS_SETTING_INT:
		if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble == floor(v->valuedouble) &&
		    v->valuedouble >= d->min && v->valuedouble <= d->max)
			return 0;
		snprintf(err, errlen, "setting '%s' must be an integer between %g and %g", d->key, d->min, d->max);
		return -1;
	case FS_SETTING_NUMBER:
		if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= d->min &&
		    v->valuedouble <= d->max)
			return 0;
		snprintf(err, errlen, "setting '%s' must be a number between %g and %g", d->key, d->min, d->max);
		return -1;
	case FS_SETTING_COLOR:
		if (cJSON_IsString(v) && color_ok(v->valuestring))
			return 0;
		snprintf(err, errlen, "setting '%s' must be a colour written #rrggbb", d->key);
		return -1;
	case FS_SETTING_ENUM:
		if (cJSON_IsString(v))
			for (const char *const *c = d->choices; *c; c++)
				if (!strcmp(*c, v->valuestring))
					return 0;
		snprintf(err, errlen, "setting '%s' must be one of:", d->key);
		for (const char *const *c = d->choices; *c; c++) {
			size_t l = strlen(err);
			snprintf(err + l, errlen - l, "%s %s", c == d->choices ? "" : ",", *c);
		}
		return -1;
	case FS_SETTING_NAMES:
		if (cJSON_IsString(v) && strlen(v->valuestring) <= (size_t)d->max && names_ok(v->valuestring))
			return 0;
		snprintf(err, errlen,
			 "setting '%s' must be tool names (letters a-z, digits, '_'; 'prefix*' for every tool "
			 "starting so) separated by commas, at most %g bytes",
			 d->key, d->max);
		return -1;
	case FS_SETTING_TEXT:
		if (cJSON_IsString(v)) {
			size_t l = strlen(v->valuestring);
			const char *s = v->valuestring;
			if (l >= (size_t)d->min && l <= (size_t)d->max && text_ok(s) && !isspace((unsigned char)s[0]) &&
			    !isspace((unsigned char)s[l - 1]))
				return 0;
		}
		snprintf(err, errlen,
			 "setting '%s' must be text of %g to %g bytes without control characters or "
			 "leading/trailing spaces",
			 d->key, d->min, d->max);
		return -1;
	}
	snprintf(err, errlen, "setting '%s' has an unknown type", d->key);
	return -1;
}

int fs_settings_validate(const cJSON *patch, char *err, size_t errlen)
{
	if (!cJSON_IsObject(patch)) {
		snprintf(err, errlen, "settings must be an object");
		return -1;
	}
	const cJSON *v;
	cJSON_ArrayForEach(v, patch)
	{
		const fs_setting_def *d = find_def(v->string);
		if (!d) {
			snprintf(err, errlen, "unknown setting '%.64s'", v->string);
			return -1;
		}
		/* cJSON keeps repeated keys; the last would silently win */
		for (const cJSON *w = patch->child; w != v; w = w->next)
			if (!strcmp(w->string, v->string)) {
				snprintf(err, errlen, "setting '%s' given twice", d->key);
				return -1;
			}
		if (cJSON_IsNull(v)) {
			if (d->type == FS_SETTING_TEXT) {
				snprintf(err, errlen, "setting '%s' cannot be reset", d->key);
				return -1;
			}
			continue;
		}
		if (value_ok(d, v, err, errlen))
			return -1;
	}
	return 0;
}

static cJSON *default_value(const fs_setting_def *d, const char *display_name)
{
	switch (d->type) {
	case FS_SETTING_BOOL:
		return cJSON_CreateBool(d->def_num != 0);
	case FS_SETTING_INT:
	case FS_SETTING_NUMBER:
		return cJSON_CreateNumber(d->def_num);
	case FS_SETTING_COLOR:
	case FS_SETTING_ENUM:
	case FS_SETTING_NAMES:
		return cJSON_CreateString(d->def_str);
	case FS_SETTING_TEXT:
		return cJSON_CreateString(display_name ? display_name : "");
	}
	return NULL;
}

cJSON *fs_settings_defaults(const char *display_name)
{
	cJSON *o = cJSON_CreateObject();
	for (size_t i = 0; o && i < NSCHEMA; i++) {
		cJSON *v = default_value(&schema[i], display_name);
		if (!v || !cJSON_AddItemToObject(o, schema[i].key, v)) {
			cJSON_Delete(v);
			cJSON_Delete(o);
			return NULL;
		}
	}
	return o;
}

/* The stored object ({} when none or unreadable). */
static int load_stored(fs_db *db, long long user_id, cJSON **out)
{
	*out = NULL;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT settings FROM user_settings WHERE user_id = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, user_id);
	int rc = fs_bind_step(&b);
	cJSON *o = NULL;
	if (rc == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(st, 0);
		o = s ? cJSON_Parse(s) : NULL;
		if (o && !cJSON_IsObject(o)) {
			cJSON_Delete(o);
			o = NULL;
		}
		rc = SQLITE_DONE;
	}
	fs_db_done(st);
	if (rc != SQLITE_DONE)
		return fs_db_rc_from_sqlite(rc);
	*out = o ? o : cJSON_CreateObject();
	return *out ? FS_DB_OK : FS_DB_ERROR;
}

int fs_settings_get(fs_db *db, long long user_id, cJSON **out)
{
	*out = NULL;
	fs_user u;
	cJSON *stored = NULL, *res = NULL;
	int rc = fs_user_get(db, user_id, &u);
	if (rc)
		goto out;
	rc = load_stored(db, user_id, &stored);
	if (rc)
		goto out;
	res = fs_settings_defaults(u.display_name);
	if (!res) {
		rc = FS_DB_ERROR;
		goto out;
	}
	const cJSON *v;
	cJSON_ArrayForEach(v, stored)
	{
		const fs_setting_def *d = find_def(v->string);
		char msg[160];
		/* a key or range a later version dropped or tightened reads as the default */
		if (!d || d->type == FS_SETTING_TEXT || value_ok(d, v, msg, sizeof msg))
			continue;
		cJSON *copy = cJSON_Duplicate(v, 1);
		if (!copy || !cJSON_ReplaceItemInObject(res, d->key, copy)) {
			cJSON_Delete(copy);
			rc = FS_DB_ERROR;
			goto out;
		}
	}
	*out = res;
	res = NULL;
out:
	cJSON_Delete(res);
	cJSON_Delete(stored);
	return rc;
}

static int store(fs_db *db, long long user_id, const cJSON *obj)
{
	char *s = cJSON_PrintUnformatted(obj);
	if (!s)
		return FS_DB_ERROR;
	sqlite3_stmt *st = fs_db_stmt(db, "INSERT INTO user_settings (user_id, settings) VALUES (?, ?) "
					  "ON CONFLICT (user_id) DO UPDATE SET settings = excluded.settings");
	fs_bind b = fs_bind_start(db, st);
	int rc = FS_DB_ERROR;
	if (st) {
		fs_bind_int64(&b, 1, user_id);
		fs_bind_text(&b, 2, s, -1, SQLITE_TRANSIENT);
		rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
		fs_db_done(st);
	}
	cJSON_free(s);
	return rc;
}

int fs_settings_put(fs_db *db, long long user_id, const cJSON *patch, char *err, size_t errlen)
{
	if (fs_settings_validate(patch, err, errlen))
		return FS_DB_INVALID;
	cJSON *stored = NULL;
	int rc = fs_db_begin(db);
	if (rc) {
		snprintf(err, errlen, "the database is busy");
		return rc;
	}
	rc = load_stored(db, user_id, &stored);
	if (rc)
		goto fail;
	const cJSON *v;
	cJSON_ArrayForEach(v, patch)
	{
		const fs_setting_def *d = find_def(v->string);
		if (d->type == FS_SETTING_TEXT) {
			rc = fs_user_set_display_name(db, user_id, v->valuestring);
			if (rc)
				goto fail;
			continue;
		}
		cJSON_DeleteItemFromObjectCaseSensitive(stored, d->key);
		if (cJSON_IsNull(v))
			continue;
		cJSON *copy = cJSON_Duplicate(v, 1);
		if (!copy || !cJSON_AddItemToObject(stored, d->key, copy)) {
			cJSON_Delete(copy);
			rc = FS_DB_ERROR;
			goto fail;
		}
		if (d->type == FS_SETTING_COLOR)
			for (char *c = copy->valuestring; *c; c++)
				*c = (char)tolower((unsigned char)*c);
	}
	rc = store(db, user_id, stored);
	if (rc)
		goto fail;
	rc = fs_db_commit(db);
	if (rc)
		goto fail;
	cJSON_Delete(stored);
	return FS_DB_OK;
fail:
	fs_db_rollback(db);
	cJSON_Delete(stored);
	snprintf(err, errlen, "%s", rc == FS_DB_BUSY ? "the database is busy" : "could not store the settings");
	return rc;
}

int fs_settings_is_stored(fs_db *db, long long user_id, const char *key)
{
	cJSON *stored = NULL;
	const fs_setting_def *d = find_def(key);
	char msg[160];
	if (!d || load_stored(db, user_id, &stored))
		return 0;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(stored, key);
	int r = v && d->type != FS_SETTING_TEXT && !value_ok(d, v, msg, sizeof msg);
	cJSON_Delete(stored);
	return r;
}

void fs_settings_no_approval_tools(fs_db *db, long long user_id, const char *server_default, char *buf,
				   size_t buflen)
{
	cJSON *stored = NULL;
	char msg[160];
	const fs_setting_def *d = find_def("agent_no_approval_tools");
	snprintf(buf, buflen, "%s", server_default ? server_default : FS_NO_APPROVAL_DEFAULT);
	if (!db || !d || load_stored(db, user_id, &stored))
		return;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(stored, d->key);
	if (v && !value_ok(d, v, msg, sizeof msg))
		snprintf(buf, buflen, "%s", v->valuestring);
	cJSON_Delete(stored);
}

int fs_settings_reset(fs_db *db, long long user_id)
{
	return fs_db_exec_id(db, "DELETE FROM user_settings WHERE user_id = ?", user_id);
}

/* ---- parameter profiles ---- */

/* Every parameter flat into o (the original's /api/profiles layout). */
static int add_params_flat(cJSON *o, const fs_params *p)
{
	cJSON *pj = fs_params_to_json(p);
	if (!pj)
		return -1;
	cJSON *it = pj->child;
	while (it) {
		cJSON *next = it->next;
		cJSON_DetachItemViaPointer(pj, it);
		cJSON_AddItemToObject(o, it->string, it);
		it = next;
	}
	cJSON_Delete(pj);
	return 0;
}

cJSON *fs_profile_builtin_json(const fs_profile *p)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "name", p->name);
	cJSON_AddStringToObject(o, "description", p->description ? p->description : "");
	if (p->calibration_um_per_px > 0)
		cJSON_AddNumberToObject(o, "calibration_um_per_px", p->calibration_um_per_px);
	else
		cJSON_AddNullToObject(o, "calibration_um_per_px");
	cJSON_AddBoolToObject(o, "builtin", 1);
	if (add_params_flat(o, &p->params)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

int fs_profile_name_valid(const char *name, char *err, size_t errlen)
{
	size_t l = name ? strlen(name) : 0;
	if (l == 0 || l > FS_PROFILE_NAME_MAX) {
		snprintf(err, errlen, "profile name must be 1 to %d bytes", FS_PROFILE_NAME_MAX);
		return -1;
	}
	if (!text_ok(name) || isspace((unsigned char)name[0]) || isspace((unsigned char)name[l - 1])) {
		snprintf(err, errlen, "profile name may not hold control characters or leading/trailing spaces");
		return -1;
	}
	return 0;
}

/* Parameters as stored; unknown keys from other versions are skipped. */
static void params_from_text(const char *text, fs_params *p)
{
	fs_params_default(p);
	cJSON *o = text ? cJSON_Parse(text) : NULL;
	char msg[160];
	if (o)
		fs_params_from_json(p, o, 1, msg, sizeof msg);
	cJSON_Delete(o);
}

int fs_uprofile_list(fs_db *db, long long user_id, cJSON **out)
{
	*out = NULL;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT id, name, params, created_at FROM user_profiles "
					  "WHERE user_id = ? ORDER BY name COLLATE NOCASE, id");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, user_id);
	cJSON *arr = cJSON_CreateArray();
	int rc = SQLITE_ERROR;
	while (arr && (rc = fs_bind_step(&b)) == SQLITE_ROW) {
		fs_params p;
		params_from_text((const char *)sqlite3_column_text(st, 2), &p);
		cJSON *o = cJSON_CreateObject();
		if (!o || !cJSON_AddItemToArray(arr, o)) {
			cJSON_Delete(o);
			rc = SQLITE_NOMEM;
			break;
		}
		cJSON_AddNumberToObject(o, "id", (double)sqlite3_column_int64(st, 0));
		cJSON_AddStringToObject(o, "name", (const char *)sqlite3_column_text(st, 1));
		cJSON_AddStringToObject(o, "description", "");
		cJSON_AddNullToObject(o, "calibration_um_per_px");
		cJSON_AddBoolToObject(o, "builtin", 0);
		cJSON_AddNumberToObject(o, "created_at", (double)sqlite3_column_int64(st, 3));
		if (add_params_flat(o, &p)) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	fs_db_done(st);
	if (rc != SQLITE_DONE) {
		cJSON_Delete(arr);
		return rc == SQLITE_NOMEM ? FS_DB_ERROR : fs_db_rc_from_sqlite(rc);
	}
	*out = arr;
	return FS_DB_OK;
}

/* Id of the user's profile called name (any case), 0 when none. */
static int find_profile(fs_db *db, long long user_id, const char *name, long long *id, fs_params *p, char *canon)
{
	*id = 0;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT id, name, params FROM user_profiles "
					  "WHERE user_id = ? AND name = ? COLLATE NOCASE");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, user_id);
	fs_bind_text(&b, 2, name, -1, SQLITE_TRANSIENT);
	int rc = fs_bind_step(&b);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		if (canon)
			snprintf(canon, FS_PROFILE_NAME_MAX + 1, "%s", (const char *)sqlite3_column_text(st, 1));
		if (p)
			params_from_text((const char *)sqlite3_column_text(st, 2), p);
		rc = SQLITE_DONE;
	}
	fs_db_done(st);
	return rc == SQLITE_DONE ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

int fs_uprofile_save(fs_db *db, long long user_id, const char *name, const fs_params *params, int overwrite,
		     long long *id, char *err, size_t errlen)
{
	if (fs_profile_name_valid(name, err, errlen))
		return FS_DB_INVALID;
	size_t nb;
	const fs_profile *bi = fs_profiles(&nb);
	for (size_t i = 0; i < nb; i++)
		if (!strcasecmp(bi[i].name, name)) {
			snprintf(err, errlen, "'%s' is a built-in profile; choose another name", bi[i].name);
			return FS_DB_INVALID;
		}
	if (fs_params_validate(params, err, errlen))
		return FS_DB_INVALID;
	cJSON *pj = fs_params_to_json(params);
	char *text = pj ? cJSON_PrintUnformatted(pj) : NULL;
	cJSON_Delete(pj);
	if (!text) {
		snprintf(err, errlen, "out of memory");
		return FS_DB_ERROR;
	}
	long long existing = 0;
	int rc = fs_db_begin(db);
	if (rc)
		goto out;
	rc = find_profile(db, user_id, name, &existing, NULL, NULL);
	if (rc)
		goto fail;
	sqlite3_stmt *st;
	fs_bind b;
	if (existing && !overwrite) {
		snprintf(err, errlen, "you already have a profile called '%s' (send overwrite: true to replace it)",
			 name);
		rc = FS_DB_CONSTRAINT;
		goto fail;
	}
	if (existing) {
		st = fs_db_stmt(db, "UPDATE user_profiles SET name = ?, params = ? WHERE id = ?");
		if (!st) {
			rc = FS_DB_ERROR;
			goto fail;
		}
		b = fs_bind_start(db, st);
		fs_bind_text(&b, 1, name, -1, SQLITE_TRANSIENT);
		fs_bind_text(&b, 2, text, -1, SQLITE_TRANSIENT);
		fs_bind_int64(&b, 3, existing);
	} else {
		st = fs_db_stmt(db, "INSERT INTO user_profiles (user_id, name, params, created_at) VALUES (?, ?, ?, ?)");
		if (!st) {
			rc = FS_DB_ERROR;
			goto fail;
		}
		b = fs_bind_start(db, st);
		fs_bind_int64(&b, 1, user_id);
		fs_bind_text(&b, 2, name, -1, SQLITE_TRANSIENT);
		fs_bind_text(&b, 3, text, -1, SQLITE_TRANSIENT);
		fs_bind_int64(&b, 4, (long long)time(NULL));
	}
	rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	if (rc)
		goto fail;
	if (!existing)
		existing = sqlite3_last_insert_rowid(fs_db_handle(db));
	rc = fs_db_commit(db);
	if (rc)
		goto fail;
	if (id)
		*id = existing;
	goto out;
fail:
	fs_db_rollback(db);
out:
	if (rc && rc != FS_DB_CONSTRAINT)
		snprintf(err, errlen, "%s", rc == FS_DB_BUSY ? "the database is busy" : "could not store the profile");
	free(text);
	return rc;
}

int fs_uprofile_delete(fs_db *db, long long user_id, long long id)
{
	sqlite3_stmt *st = fs_db_stmt(db, "DELETE FROM user_profiles WHERE id = ? AND user_id = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, id);
	fs_bind_int64(&b, 2, user_id);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	if (rc == FS_DB_OK && sqlite3_changes(fs_db_handle(db)) == 0)
		rc = FS_DB_NOTFOUND;
	return rc;
}

int fs_uprofile_get(fs_db *db, long long user_id, const char *name, fs_params *out, char *canon)
{
	long long id;
	int rc = find_profile(db, user_id, name, &id, out, canon);
	if (rc == FS_DB_OK && !id)
		rc = FS_DB_NOTFOUND;
	return rc;
}

void fs_settings_hex_weights(fs_db *db, long long user_id, fs_hex_weights *w)
{
	fs_hex_weights_default(w);
	cJSON *s = NULL;
	if (fs_settings_get(db, user_id, &s) == FS_DB_OK && s) {
		const cJSON *v;
		if (cJSON_IsNumber(v = cJSON_GetObjectItem(s, "hex_spacing_weight")))
			w->spacing = v->valuedouble;
		if (cJSON_IsNumber(v = cJSON_GetObjectItem(s, "hex_degree_weight")))
			w->degree = v->valuedouble;
		if (cJSON_IsNumber(v = cJSON_GetObjectItem(s, "hex_edge_ratio_weight")))
			w->edge_ratio = v->valuedouble;
	}
	cJSON_Delete(s);
}
