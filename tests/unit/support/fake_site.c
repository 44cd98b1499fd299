/* fake_site.c - see fake_site.h. */
#include "fake_site.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_req.h"
#include "rm_tree.h"
#include "routes/router.h"

int fs_fake_site_open(fs_fake_site *s, const char *tag)
{
	char err[512], token[65], csrf[65];
	memset(s, 0, sizeof *s);
	snprintf(s->dir, sizeof s->dir, "/tmp/fs-%s-XXXXXX", tag);
	if (!mkdtemp(s->dir) || fs_app_config(&s->app, ".", NULL, err, sizeof err))
		return -1;
	snprintf(s->app.cfg.data_dir, sizeof s->app.cfg.data_dir, "%s", s->dir);
	if (fs_app_open(&s->app, 1, err, sizeof err) ||
	    fs_user_create(s->app.db, "ann", "Ann", 0, NULL, &s->uid, err, sizeof err) ||
	    fs_session_create(s->app.db, s->uid, (long long)time(NULL), 3600, "127.0.0.1", token, csrf))
		return -1;
	snprintf(s->cookie, sizeof s->cookie, "HTTP_COOKIE=fs_session=%s", token);
	return 0;
}

int fs_fake_site_image(fs_fake_site *s, int seed, const char *name, int w, int h, fs_image_rec *rec)
{
	memset(rec, 0, sizeof *rec);
	rec->owner_id = s->uid;
	snprintf(rec->file_sha256, sizeof rec->file_sha256, "%064d", seed);
	fs_work_key_initial(rec->file_sha256, 0, rec->work_key);
	snprintf(rec->original_name, sizeof rec->original_name, "%s", name);
	snprintf(rec->format, sizeof rec->format, "tiff");
	rec->width = w, rec->height = h, rec->bit_depth = 8, rec->channels = 1, rec->n_pages = 1;
	return fs_image_insert(s->app.db, rec, 123) ? -1 : 0;
}

fs_db *fs_fake_site_connect(fs_fake_site *s)
{
	char path[200], err[256];
	snprintf(path, sizeof path, "%s/fishscale.db", s->dir);
	return fs_db_open(path, 2000, err, sizeof err);
}

cJSON *fs_fake_site_get(fs_fake_site *s, const char *uri, int *status)
{
	char u[256];
	snprintf(u, sizeof u, "DOCUMENT_URI=%s", uri);
	const char *env[] = {"REQUEST_METHOD=GET", u, "REMOTE_ADDR=127.0.0.1", s->cookie, NULL};
	fs_resp w;
	*status = fs_fake_dispatch(&s->app, env, NULL, &w);
	cJSON *j = cJSON_ParseWithLength(w.body.data, w.body.len);
	fs_resp_free(&w);
	return j;
}

void fs_fake_site_close(fs_fake_site *s)
{
	fs_app_close(&s->app);
	test_rm_tree(s->dir);
}
