/*
 * settings_store.h - per-user settings and per-user parameter profiles,
 * stored on the server instead of the original's localStorage
 * (fishScaleSettings, fishScaleUserProfiles; reference-ui.md §1.11, §1.16).
 *
 * Settings are one flat JSON object of known keys (the table in
 * settings_store.c lists every key with its type, range and default;
 * fs_settings_schema() exposes it). What is stored is only what the user
 * changed; reads merge the stored values over the defaults, so a default
 * changed in a later version reaches everyone who never touched it, and a
 * stored key that a later version dropped is ignored on read.
 *
 * "display_name" is a setting for the client but lives in users.display_name
 * (it stamps history events): fs_settings_put writes it there, in the same
 * transaction as the rest.
 *
 * Parameter profiles: named fs_params per user, next to the built-in ones of
 * params.h. A user's profile may not take a built-in's name (compared
 * case-insensitively), and names are unique per user (case-insensitively).
 *
 * Errors: fs_db_rc values. FS_DB_INVALID (a bad key, value or name; the
 * message in err names it), FS_DB_CONSTRAINT (a profile name already in use),
 * FS_DB_NOTFOUND (no such profile of this user), FS_DB_BUSY.
 * Ownership: every cJSON result is new and the caller's (cJSON_Delete);
 * inputs are only read.
 */
#ifndef FS_SETTINGS_STORE_H
#define FS_SETTINGS_STORE_H

#include <stddef.h>

#include <cJSON.h>

#include "base/config.h"
#include "store/db.h"
#include "analysis/metrics.h"
#include "analysis/params.h"

#define FS_PROFILE_NAME_MAX 64   /* bytes */
#define FS_DISPLAY_NAME_MAX 128  /* bytes, as users.c allows */
#define FS_SETTING_NAMES_MAX 255 /* bytes of a list of tool names */

typedef enum fs_setting_type {
	FS_SETTING_BOOL,
	FS_SETTING_INT,
	FS_SETTING_NUMBER,
	FS_SETTING_COLOR,  /* "#rrggbb", stored lower-case */
	FS_SETTING_ENUM,
	FS_SETTING_TEXT,   /* display_name only */
	FS_SETTING_NAMES,  /* comma-separated names [a-z0-9_], each may end in '*' (a prefix); "" = none */
} fs_setting_type;

typedef struct fs_setting_def {
	const char *key;
	fs_setting_type type;
	double min, max;           /* INT, NUMBER */
	double def_num;            /* BOOL (0/1), INT, NUMBER */
	const char *def_str;       /* COLOR, ENUM ("" for TEXT: the user's name) */
	const char *const *choices; /* ENUM, NULL-terminated */
	const char *help;
} fs_setting_def;

/* The table of every setting key, in display order. */
const fs_setting_def *fs_settings_schema(size_t *count);

/* A new object with every key at its default; display_name = the given one. */
cJSON *fs_settings_defaults(const char *display_name);

/*
 * Checks a patch: an object of known keys, each of the right type and in
 * range; null means "back to the default". Returns 0, or -1 with a message
 * naming the first bad key. Pure (no database).
 */
int fs_settings_validate(const cJSON *patch, char *err, size_t errlen);

/* The user's settings (defaults merged with what is stored) into *out. */
int fs_settings_get(fs_db *db, long long user_id, cJSON **out);
/* The user's hexagonalness weights (settings hex_*_weight), the defaults
 * where unset or unreadable. */
void fs_settings_hex_weights(fs_db *db, long long user_id, fs_hex_weights *w);

/*
 * Validates patch and merges it into the stored settings (null keys are
 * removed, so they read as the default again); display_name goes to the
 * users table. All or nothing, in one transaction.
 */
int fs_settings_put(fs_db *db, long long user_id, const cJSON *patch, char *err, size_t errlen);

/* 1 when the user has stored a value for key (it is not the default), 0
 * when not, or on a database error. */
int fs_settings_is_stored(fs_db *db, long long user_id, const char *key);

/*
 * The tools that run without asking under approve-each-step for this user
 * (setting agent_no_approval_tools): the user's list when they set one,
 * else server_default (the configuration's agent_no_approval_tools), into
 * buf. Never fails: a database error gives server_default.
 */
void fs_settings_no_approval_tools(fs_db *db, long long user_id, const char *server_default, char *buf,
				   size_t buflen);

/* Forgets every stored setting (display_name is kept: it is the account's). */
int fs_settings_reset(fs_db *db, long long user_id);

/* A built-in profile as the original's /api/profiles entry plus every
 * parameter and "builtin": true. NULL on out of memory. */
cJSON *fs_profile_builtin_json(const fs_profile *p);

/* Profile names: trimmed of nothing (leading/trailing space refused),
 * 1..FS_PROFILE_NAME_MAX bytes of valid UTF-8 without control characters.
 * 0 when valid, else -1 with a message. Does not check built-ins. */
int fs_profile_name_valid(const char *name, char *err, size_t errlen);

/* The user's profiles by name: [{id, name, builtin: false, created_at,
 * ...parameters}]. */
int fs_uprofile_list(fs_db *db, long long user_id, cJSON **out);

/*
 * Saves params under name for the user. An existing profile of that name
 * (any case) is replaced when overwrite, else FS_DB_CONSTRAINT. A built-in
 * name or a bad name is FS_DB_INVALID; params are validated
 * (fs_params_validate). *id (may be NULL) receives the profile's id.
 */
int fs_uprofile_save(fs_db *db, long long user_id, const char *name, const fs_params *params, int overwrite,
		     long long *id, char *err, size_t errlen);

/* Deletes the user's profile id; FS_DB_NOTFOUND when it is not theirs. */
int fs_uprofile_delete(fs_db *db, long long user_id, long long id);

/* The user's profile called name (any case) into *out; FS_DB_NOTFOUND when
 * none. canon (may be NULL, FS_PROFILE_NAME_MAX + 1 bytes) gets the stored name. */
int fs_uprofile_get(fs_db *db, long long user_id, const char *name, fs_params *out, char *canon);

#endif
