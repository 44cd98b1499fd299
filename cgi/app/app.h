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
void fs_app_close(fs_app *app);

/* <data_dir>/<name> into out. */
int fs_app_data_path(const fs_app *app, const char *name, char *out, size_t outlen);

#endif
