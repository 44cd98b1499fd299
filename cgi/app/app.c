/* app.c - process start-up (see app.h). */
#include "app/app.h"

#include <errno.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "analysis/measurement.h"
#include "app/job_control.h"
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
	if (fs_config_load(&app->cfg, config_path, missing_ok, err, errlen) ||
	    fs_config_check_sso(&app->cfg, err, errlen))
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
	fs_packed_set_min(app->cfg.set_pack_min);
	fs_blob_set_chunk_bytes((size_t)app->cfg.set_stage_chunk_kb * 1024);
	fs_job_set_threads_from_config(&app->cfg);
	/* one measurement rule for every process of the site: the version
	 * sets record, Re-measure, extraction jobs and agents agree */
	fs_measurement_rule rule;
	if (fs_measurement_rule_parse(app->cfg.measurement_rule, &rule)) {
		snprintf(err, errlen, "unknown measurement_rule '%s'", app->cfg.measurement_rule);
		return -1;
	}
	fs_measurement_set_rule(rule);
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

void fs_app_umask(void)
{
	umask(027);
}

/* nftw has no user pointer: the group to give, for the walk in progress. */
static gid_t walk_gid;
static int walk_failed;

static int fix_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)f;
	if (type == FTW_SL || type == FTW_SLN)
		return 0;
	if (walk_gid != (gid_t)-1 && st->st_gid != walk_gid && lchown(path, (uid_t)-1, walk_gid))
		walk_failed = errno;
	mode_t want = st->st_mode & 07777 & ~(mode_t)S_IRWXO;
	if (type == FTW_D || type == FTW_DP)
		want |= S_ISGID;
	if (want != (st->st_mode & 07777) && chmod(path, want))
		walk_failed = errno;
	return 0;
}

int fs_app_secure_data_dir(const fs_app *app, char *err, size_t errlen)
{
	const char *dir = app->cfg.data_dir;
	gid_t gid = (gid_t)-1;
	if (app->cfg.web_group[0]) {
		struct group *g = getgrnam(app->cfg.web_group);
		if (!g) {
			snprintf(err, errlen, "web_group '%s' is not a group on this machine", app->cfg.web_group);
			return -1;
		}
		gid = g->gr_gid;
	}
	if (mkdir(dir, 0750) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	walk_gid = gid;
	walk_failed = 0;
	if (nftw(dir, fix_one, 16, FTW_PHYS) || walk_failed) {
		snprintf(err, errlen, "cannot set the group and modes in %s: %s", dir,
			 strerror(walk_failed ? walk_failed : errno));
		return -1;
	}
	/* the top directory: group-readable for nginx, nothing for others */
	struct stat st;
	if (stat(dir, &st) == 0 && chmod(dir, (st.st_mode & 07777 & ~(mode_t)S_IRWXO) | S_IRGRP | S_IXGRP | S_ISGID)) {
		snprintf(err, errlen, "cannot chmod %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

int fs_app_log_skipped(fs_app *app, FILE *to)
{
	if (!app->db)
		return 0;
	char why[200];
	int skipped = fs_db_take_skipped(app->db, why, sizeof why);
	if (skipped)
		fprintf(to, "%s: %d best-effort write(s) skipped, the last %s\n", program_invocation_short_name, skipped,
			why);
	return skipped;
}

void fs_app_close(fs_app *app)
{
	(void)fs_app_log_skipped(app, stderr);
	fs_tmpl_free(app->tmpl);
	app->tmpl = NULL;
	fs_db_close(app->db);
	app->db = NULL;
}
