/*
 * agent_fixture.h - the shared fixture of the agent tests: a database, a
 * data directory with a synthetic lattice image and a set holding the
 * lattice with missing sites and false positives. Header-only (static
 * functions) because each test binary includes it once; define FX_NAME
 * before including it (it names the temporary directory).
 */
#ifndef FS_TEST_AGENT_FIXTURE_H
#define FS_TEST_AGENT_FIXTURE_H

#include "rm_tree.h"

#ifndef FX_NAME
#error "define FX_NAME before including agent_fixture.h"
#endif

/* ---- fixture: a database, a data directory with a synthetic lattice
 * image (pitch 24 px, a dark band at the left), and a set holding the
 * lattice with some sites missing and false positives in the dark band. */
#define FX_W 480
#define FX_H 360
#define FX_PITCH 24.0
#define FX_MISSING_EVERY 9

typedef struct fx {
	fs_db *db;
	char dbpath[200], dir[160];
	long long uid, image_id, set_id;
	synth_truth truth;
	size_t n_missing, n_fp;
	fs_config cfg;
} fx;

static void fx_rm_tree(const char *dir)
{
	if (test_rm_tree(dir))
		fprintf(stderr, "could not remove %s\n", dir);
}

static int fx_setup(void **state)
{
	static int serial;
	char err[256], path[400];
	fx *f = calloc(1, sizeof(*f));
	synth_opts o;
	fs_image *img;
	const char *key = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

	fs_agent_kinds_register_all();

	if (!f)
		return -1;
	serial++;
	snprintf(f->dir, sizeof f->dir, "/tmp/fs-agent-%s-%d-%d", FX_NAME, (int)getpid(), serial);
	snprintf(f->dbpath, sizeof f->dbpath, "%s/fishscale.db", f->dir);
	fx_rm_tree(f->dir);
	if (mkdir(f->dir, 0700) || fs_files_ensure_dirs(f->dir, err, sizeof err))
		return -1;
	f->db = fs_db_open(f->dbpath, 2000, err, sizeof err);
	if (!f->db || fs_user_create(f->db, "ann", "Ann", 0, "ann-password", &f->uid, err, sizeof err))
		return -1;
	synth_defaults(&o);
	o.width = FX_W;
	o.height = FX_H;
	o.pitch = FX_PITCH;
	o.dark_left = 60;
	o.seed = 7;
	img = synth_make(&o, &f->truth);
	if (!img || fs_file_path(f->dir, FS_FILE_WORK, key, path, sizeof path) ||
	    fs_work_write(path, img, err, sizeof err))
		return -1;
	fs_image_free(img);
	sqlite3 *h = fs_db_handle(f->db);
	const char *sql = "INSERT INTO image_files (sha256, size, format, created_at) VALUES ('ab', 1, 'png', 0);";
	if (sqlite3_exec(h, sql, NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	char ins[600];
	snprintf(ins, sizeof ins,
		 "INSERT INTO images (owner_id, file_sha256, work_key, original_name, format, width, height, "
		 "bit_depth, um_per_px, created_at, updated_at) VALUES (%lld, 'ab', '%s', 'synthetic.png', 'png', "
		 "%d, %d, 8, 0.5, 0, 0);",
		 f->uid, key, FX_W, FX_H);
	if (sqlite3_exec(h, ins, NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	f->image_id = sqlite3_last_insert_rowid(h);
	if (fs_set_create(f->db, f->image_id, "Base", f->uid, &f->set_id, err, sizeof err))
		return -1;
	/* the lattice minus every FX_MISSING_EVERY-th interior site, plus false positives */
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	for (size_t i = 0; i < f->truth.n; i++) {
		fs_tubercle tu;
		int interior = f->truth.x[i] > 100 && f->truth.x[i] < FX_W - 40 && f->truth.y[i] > 40 &&
			       f->truth.y[i] < FX_H - 40;
		if (interior && i % FX_MISSING_EVERY == 0) {
			f->n_missing++;
			continue;
		}
		memset(&tu, 0, sizeof tu);
		tu.centroid_x = f->truth.x[i];
		tu.centroid_y = f->truth.y[i];
		tu.radius_px = f->truth.radius;
		tu.circularity = 1;
		tu.source = FS_SOURCE_EXTRACTED;
		fs_tubercle_list_append(&t, &tu);
	}
	static const double fp[][2] = {{15, 100}, {20, 260}};
	for (size_t i = 0; i < 2; i++) {
		fs_tubercle tu;
		memset(&tu, 0, sizeof tu);
		tu.centroid_x = fp[i][0];
		tu.centroid_y = fp[i][1];
		tu.radius_px = f->truth.radius;
		tu.circularity = 1;
		fs_tubercle_list_append(&t, &tu);
		f->n_fp++;
	}
	for (size_t i = 0; i < t.n; i++)
		t.items[i].id = (int)i + 1;
	long long rev;
	fs_params p;
	fs_params_default(&p);
	if (fs_graph_build(&t, FS_GRAPH_GABRIEL, 1, 1.8, &e, err, sizeof err) ||
	    fs_set_replace_all(f->db, f->set_id, -1, f->uid, &t, &e, &p, "extraction", 0, &rev, NULL, err, sizeof err))
		return -1;
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	fs_config_defaults(&f->cfg);
	snprintf(f->cfg.data_dir, sizeof f->cfg.data_dir, "%s", f->dir);
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	fx *f = *state;
	fs_db_close(f->db);
	synth_truth_free(&f->truth);
	fx_rm_tree(f->dir);
	free(f);
	return 0;
}

/* What the callbacks saw. */
typedef struct seen {
	int statuses, logs, status_lines, texts;
	long long first_rev, last_rev;
	int rev_grew_during_run;
	cJSON *last_status;
	char text[2048];
	int stop_after_statuses; /* should_stop once this many statuses arrived (0 = never) */
	const char *reject_tool; /* reject the first call of this tool */
	int approve_timeout, asked, rejected;
	int asked_get; /* proposals of read-only get_* tools */
	cJSON *first_proposal, *delete_proposal;
} seen;

static void cb_status(void *ud, const cJSON *st)
{
	seen *s = ud;
	long long rev = (long long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(st, "revision"));
	if (!s->statuses)
		s->first_rev = rev;
	else if (rev > s->last_rev && s->statuses > 1)
		s->rev_grew_during_run = 1;
	s->last_rev = rev;
	s->statuses++;
	cJSON_Delete(s->last_status);
	s->last_status = cJSON_Duplicate(st, 1);
}

static void cb_log(void *ud, const char *line)
{
	seen *s = ud;
	s->logs++;
	if (!strncmp(line, "STATUS: {", 9))
		s->status_lines++;
	else if (line[0] != '[' || line[3] != ':' || line[6] != ':' || line[9] != ']')
		fail_msg("bad log line: %s", line);
}

static void cb_text(void *ud, const char *d)
{
	seen *s = ud;
	s->texts++;
	strncat(s->text, d, sizeof(s->text) - strlen(s->text) - 1);
}

static int cb_stop(void *ud)
{
	seen *s = ud;
	return s->stop_after_statuses && s->statuses >= s->stop_after_statuses;
}

static int cb_approve(void *ud, const cJSON *proposal, char *reason, size_t n)
{
	seen *s = ud;
	s->asked++;
	const char *tool = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(proposal, "tool"));
	if (tool && !strncmp(tool, "get_", 4))
		s->asked_get++;
	if (!s->first_proposal)
		s->first_proposal = cJSON_Duplicate(proposal, 1);
	if (!s->delete_proposal && tool && !strcmp(tool, "delete_tubercle"))
		s->delete_proposal = cJSON_Duplicate(proposal, 1);
	if (s->approve_timeout)
		return -1;
	if (s->reject_tool && tool && !strcmp(tool, s->reject_tool) && !s->rejected) {
		s->rejected = 1;
		snprintf(reason, n, "not there");
		return 0;
	}
	return 1;
}

static void env_init(fs_agent_env *env, fx *f, seen *s)
{
	memset(env, 0, sizeof *env);
	env->db = f->db;
	env->cfg = &f->cfg;
	env->data_dir = f->dir;
	env->on_status = cb_status;
	env->on_log = cb_log;
	env->on_text = cb_text;
	env->should_stop = cb_stop;
	env->approve = cb_approve;
	env->ud = s;
}

static void job_init(fs_agent_job *job, fx *f, fs_agent_kind kind)
{
	fs_agent_job_default(job, kind);
	job->run_id = 42;
	job->user_id = f->uid;
	job->image_id = f->image_id;
	job->set_id = f->set_id;
}

static void seen_free(seen *s)
{
	cJSON_Delete(s->last_status);
	cJSON_Delete(s->first_proposal);
	cJSON_Delete(s->delete_proposal);
}

static __attribute__((unused)) const char *jstr(const cJSON *o, const char *k)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
	return v ? v : "";
}

static __attribute__((unused)) double jnum(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	assert_non_null(v);
	return cJSON_GetNumberValue(v);
}

/* The newest history event of a type (caller deletes), or NULL. */
static __attribute__((unused)) cJSON *history_event(fx *f, const char *type)
{
	cJSON *h = fs_history_list(f->db, f->set_id, 500), *ev, *found = NULL;
	cJSON_ArrayForEach(ev, h)
	{
		if (!strcmp(jstr(ev, "type"), type)) {
			found = cJSON_Duplicate(ev, 1);
			break;
		}
	}
	cJSON_Delete(h);
	return found;
}

static __attribute__((unused)) int history_count(fx *f, const char *type)
{
	cJSON *h = fs_history_list(f->db, f->set_id, 500), *ev;
	int n = 0;
	cJSON_ArrayForEach(ev, h) n += !strcmp(jstr(ev, "type"), type);
	cJSON_Delete(h);
	return n;
}
/* ---- end of fixture */

#endif
