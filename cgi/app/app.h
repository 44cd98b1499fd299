/*
 * app.h - per-process start-up shared by the FastCGI workers and the
 * command-line tool: configuration, data directory, database, templates.
 */
#ifndef FS_APP_H
#define FS_APP_H

#include "app/http.h"

/* Loads the configuration (config_path, or $FISHSCALE_CONFIG, or
 * <root>/conf/fishscale.conf) with environment overrides. */
int fs_app_config(fs_app *app, const char *root, const char *config_path, char *err, size_t errlen);

/* Creates the data directory (0750) when missing and opens the database
 * <data_dir>/fishscale.db; with_templates also loads <root>/templates. */
int fs_app_open(fs_app *app, int with_templates, char *err, size_t errlen);
/* Logs what fs_app_log_skipped would, then closes the database. */
void fs_app_close(fs_app *app);

/*
 * Writes that did not fail what was asked (db.h, best effort: a login's
 * time, a session's last use, a cached scale region) are noted on the
 * connection, since the library prints nothing. Every process logs them
 * through this: the FastCGI worker after each request, and fs_app_close
 * for what is left (the end of a job, of a CLI command): one line to `to`,
 * "<program>: N best-effort write(s) skipped, the last <what>: <reason>",
 * and they are forgotten. Returns how many there were (0: nothing
 * written).
 */
#include <stdio.h>
int fs_app_log_skipped(fs_app *app, FILE *to);

/*
 * Every process of fishscale starts with umask 027 (fs_app_umask, first
 * thing in each main): the database holds password hashes, session tokens
 * and private annotations, so nothing it writes is for "others".
 * fs_app_secure_data_dir (fishscale init and the FastCGI supervisor) makes
 * the data directory 2750, owned by web_group when set (setgid, so every new
 * file and directory takes that group and nginx keeps serving images through
 * X-Accel-Redirect), and takes the "other" bits off everything an older
 * version left in it. 0, or -1 with err.
 */
void fs_app_umask(void);
int fs_app_secure_data_dir(const fs_app *app, char *err, size_t errlen);

/* <data_dir>/<name> into out. */
int fs_app_data_path(const fs_app *app, const char *name, char *out, size_t outlen);

#endif
