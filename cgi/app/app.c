/* app.c - process start-up (see app.h). */
#include "app/app.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "web/web.h"

int fs_app_config(fs_app *app, const char *root, const char *config_path, char *err, size_t errlen)
{
	memset(app, 0, sizeof *app);
	char real[PATH_MAX];
	/* an absolute root, so that paths made from it do not depend on the cwd */
	if (!realpath(root && *root ? root : ".", real) || strlen(real) >= sizeof app->root) {
		snprintf(err, errlen, "cannot resolve the source directory '%.200s'", root ? root : ".");
		return -1;
	}
	memcpy(app->root, real, strlen(real) + 1);
	app->started_at = (long long)time(NULL);
	fs_config_defaults(&app->cfg);
	char path[1200];
	int missing_ok = 0;
	if (!config_path || !*config_path)
		config_path = getenv("FISHSCALE_CONFIG");
	if (!config_path || !*config_path) {
		snprintf(path, sizeof path, "%s/conf/fishscale.conf", app->root);
		config_path = path;
		missing_ok = 1;
	}
	if (fs_config_load(&app->cfg, config_path, missing_ok, err, errlen))
		return -1;
	/* A relative data directory is relative to the source tree, whatever
	 * the process's working directory: resolve it once, here, so that every
	 * user of cfg.data_dir sees the same absolute path. */
	if (app->cfg.data_dir[0] != '/') {
		char abs[sizeof app->cfg.data_dir];
		int n = snprintf(abs, sizeof abs, "%s/%s", app->root, app->cfg.data_dir);
		if (n < 0 || (size_t)n >= sizeof abs) {
			snprintf(err, errlen, "data directory path too long");
			return -1;
		}
		memcpy(app->cfg.data_dir, abs, sizeof abs);
	}
	/* every process that stores derived files decides alike */
	fs_pyramid_set_min_side(app->cfg.tile_min_side);
	return 0;
}

int fs_app_data_path(const fs_app *app, const char *name, char *out, size_t outlen)
{
	/* fs_app_config made data_dir absolute */
	int n = snprintf(out, outlen, "%s/%s", app->cfg.data_dir, name);
	return (n < 0 || (size_t)n >= outlen) ? -1 : 0;
}

int fs_app_open(fs_app *app, int with_templates, char *err, size_t errlen)
{
	char dir[1200], db[1300];
	if (fs_app_data_path(app, "", dir, sizeof dir) || fs_app_data_path(app, "fishscale.db", db, sizeof db)) {
		snprintf(err, errlen, "data directory path too long");
		return -1;
	}
	if (mkdir(dir, 0750) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	app->db = fs_db_open(db, 5000, err, errlen);
	if (!app->db)
		return -1;
	if (with_templates) {
		char tdir[1100];
		snprintf(tdir, sizeof tdir, "%s/templates", app->root);
		app->tmpl = fs_tmpl_load_dir(tdir, err, errlen);
		if (!app->tmpl) {
			fs_db_close(app->db);
			app->db = NULL;
			return -1;
		}
	}
	return 0;
}

void fs_app_close(fs_app *app)
{
	fs_tmpl_free(app->tmpl);
	app->tmpl = NULL;
	fs_db_close(app->db);
	app->db = NULL;
}
