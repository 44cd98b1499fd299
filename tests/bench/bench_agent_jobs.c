/*
 * bench_agent_jobs - per-iteration overhead of the two agents without the
 * model, on a 2048x1536 synthetic lattice (pitch 40 px) and the set that
 * detection finds on it
 * stored in SQLite: screenshot rendering (downscaled to 1024 px, PNG,
 * base64), the editing tools (add + delete with journal and reload), the
 * status object, the optimiser's status with history; the extraction
 * itself and the offline lattice fit are printed separately (they are the
 * work, not overhead). Prints "name: value unit (target ...)" lines.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "agent/agent_fish_tools.h"
#include "analysis/graph.h"
#include "store/image_files.h"
#include "store/sets_store.h"
#include "analysis/detect.h"
#include "synth.h"
#include "store/users.h"
#include "bench_support.h"
#include "rm_tree.h"

#define REPS 10

static int die(const char *what, const char *err)
{
	fprintf(stderr, "bench_agent_jobs: %s: %s\n", what, err);
	return 1;
}

static double call_ms(fs_tool_registry *reg, const char *name, const char *args_json, int *ok)
{
	fs_tool_exec ex;
	cJSON *args = cJSON_Parse(args_json);
	double t0 = bench_now_ms();
	if (fs_tools_execute(reg, name, args, NULL, &ex) == 0) {
		*ok &= ex.ok;
		if (!ex.ok && ex.text)
			fprintf(stderr, "%s: %s\n", name, ex.text);
		fs_tool_exec_free(&ex);
	} else {
		*ok = 0;
	}
	double dt = bench_now_ms() - t0;
	cJSON_Delete(args);
	return dt;
}

int main(void)
{
	char dir[128], dbp[200], path[400], err[256] = "";
	const char *key = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
	long long uid, image_id, set_id, rev;
	synth_opts o;
	synth_truth tr = {0};
	int ok = 1;

	snprintf(dir, sizeof dir, "/tmp/fs-bench-agent-%d", (int)getpid());
	snprintf(dbp, sizeof dbp, "%s/fishscale.db", dir);
	if (mkdir(dir, 0700) || fs_files_ensure_dirs(dir, err, sizeof err))
		return die("data dir", err);
	fs_db *db = fs_db_open(dbp, 2000, err, sizeof err);
	if (!db || fs_user_create(db, "bench", "Bench", 0, "bench-password", &uid, err, sizeof err))
		return die("database", err);
	synth_defaults(&o);
	o.width = 2048;
	o.height = 1536;
	o.pitch = 40;
	fs_image *img = synth_make(&o, &tr);
	if (!img || fs_file_path(dir, FS_FILE_WORK, key, path, sizeof path) || fs_work_write(path, img, err, sizeof err))
		return die("image", err);
	char sql[600];
	snprintf(sql, sizeof sql,
		 "INSERT INTO image_files (sha256, size, format, created_at) VALUES ('ab', 1, 'png', 0);"
		 "INSERT INTO images (owner_id, file_sha256, work_key, original_name, format, width, height, bit_depth, "
		 "um_per_px, created_at, updated_at) VALUES (%lld, 'ab', '%s', 'bench.png', 'png', 2048, 1536, 8, 0.5, 0, 0);",
		 uid, key);
	if (sqlite3_exec(fs_db_handle(db), sql, NULL, NULL, NULL) != SQLITE_OK)
		return die("rows", sqlite3_errmsg(fs_db_handle(db)));
	image_id = sqlite3_last_insert_rowid(fs_db_handle(db));
	if (fs_set_create(db, image_id, "Base", uid, &set_id, err, sizeof err))
		return die("set", err);
	/* the set an agent starts from is a detection result (measured,
	 * sub-pixel centres), not the generator's exact lattice */
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_params p;
	fs_params_default(&p);
	fs_detect_result dr = {0};
	if (fs_detect(img, &p, 0.5, &dr, err, sizeof err))
		return die("detect", err);
	t = dr.tubercles;
	memset(&dr.tubercles, 0, sizeof dr.tubercles);
	fs_detect_result_free(&dr);
	if (fs_graph_build(&t, FS_GRAPH_GABRIEL, 1, 1.8, &e, err, sizeof err) ||
	    fs_set_replace_all(db, set_id, -1, uid, &t, &e, &p, "extraction", 0, &rev, NULL, err, sizeof err))
		return die("fill", err);
	fs_config cfg;
	fs_config_defaults(&cfg);
	fs_agent_env env = {.db = db, .cfg = &cfg, .data_dir = dir};
	fs_agent_job job;
	fs_agent_job_default(&job, FS_AGENT_EDIT);
	job.user_id = uid;
	job.image_id = image_id;
	job.set_id = set_id;
	job.run_id = 1;
	fs_agent_sess s;
	double t0 = bench_now_ms();
	if (fs_agent_sess_init(&s, &job, &env, err, sizeof err))
		return die("session", err);
	double init_ms = bench_now_ms() - t0;
	fs_tool_registry *reg = fs_tools_new();
	if (fs_fish_tools_add_edit(reg, &s, 1, err, sizeof err))
		return die("tools", err);

	double first_shot = call_ms(reg, "get_screenshot", "{\"overlay\":true}", &ok);
	double shot = 0, state = 0, add = 0, del = 0, status = 0;
	for (int i = 0; i < REPS; i++) {
		char a[96];
		shot += call_ms(reg, "get_screenshot", "{\"overlay\":true,\"numbers\":true}", &ok);
		state += call_ms(reg, "get_state", "{}", &ok);
		snprintf(a, sizeof a, "{\"x\":%d,\"y\":%d}", 100 + 40 * i, 300);
		add += call_ms(reg, "add_tubercle", a, &ok);
		snprintf(a, sizeof a, "{\"id\":%d}", s.t.items[s.t.n - 1].id);
		del += call_ms(reg, "delete_tubercle", a, &ok);
		double t1 = bench_now_ms();
		cJSON *st = fs_agent_status(&s, "running", NULL);
		char *txt = cJSON_PrintUnformatted(st);
		status += bench_now_ms() - t1;
		free(txt);
		cJSON_Delete(st);
	}
	double edit_iter = (shot + state + add + del + status) / REPS;
	t0 = bench_now_ms();
	for (int i = 0; i < REPS; i++)
		if (fs_agent_sess_reload(&s, err, sizeof err))
			return die("reload", err);
	double reload_ms = (bench_now_ms() - t0) / REPS;
	t0 = bench_now_ms();
	for (int i = 0; i < REPS; i++) {
		fs_tubercle nt = {.centroid_x = 500 + i, .centroid_y = 700, .radius_px = 5, .circularity = 1};
		int tid;
		if (fs_set_add_tubercle(db, set_id, -1, uid, &nt, 1, &tid, &rev, NULL, err, sizeof err))
			return die("add", err);
	}
	double store_add = (bench_now_ms() - t0) / REPS;
	double store_del = 0;
	for (int i = 0; i < REPS; i++) {
		fs_tubercle nt = {.centroid_x = 600 + i, .centroid_y = 700, .radius_px = 5, .circularity = 1};
		int tid;
		if (fs_set_add_tubercle(db, set_id, -1, uid, &nt, 1, &tid, &rev, NULL, err, sizeof err))
			return die("add", err);
		t0 = bench_now_ms();
		if (fs_set_delete_items(db, set_id, -1, uid, &tid, 1, NULL, 0, "agent_delete", 1, &rev, NULL, err,
					sizeof err))
			return die("delete", err);
		store_del += bench_now_ms() - t0;
	}
	store_del /= REPS;
	t0 = bench_now_ms();
	for (int i = 0; i < REPS; i++)
		fs_graph_boundary(&s.t);
	double bnd = (bench_now_ms() - t0) / REPS;
	t0 = bench_now_ms();
	for (int i = 0; i < REPS; i++)
		fs_stats_compute(&s.t, &s.e, 0.5, NULL, 2048, 1536, &s.stats);
	double stc = (bench_now_ms() - t0) / REPS;
	/* issue 16: the editor reconnects and measures after every change */
	t0 = bench_now_ms();
	for (int i = 0; i < REPS; i++)
		fs_agent_judge(&s);
	double judge = (bench_now_ms() - t0) / REPS;
	/* issue 16: one editor change as the local editor makes it - the
	 * evidence check at the site, the add (journal, incremental reconnect,
	 * statistics, lattice coverage), and its delete */
	double ev_ms = 0, chg_add = 0, chg_del = 0, jat = 0;
	for (int i = 0; i < REPS; i++) {
		char a[96];
		fs_agent_evidence ev;
		double x = 300 + 97 * i, y = 500 + 31 * i;
		t0 = bench_now_ms();
		fs_agent_evidence_at(&s, x, y, &ev);
		ev_ms += bench_now_ms() - t0;
		/* the tools take screenshot pixels (the image scaled to a side
		 * of FS_AGENT_SHOT_SIDE), the evidence image pixels */
		int side = s.img->width > s.img->height ? s.img->width : s.img->height;
		double sc = side > FS_AGENT_SHOT_SIDE ? (double)FS_AGENT_SHOT_SIDE / side : 1.0;
		snprintf(a, sizeof a, "{\"x\":%.1f,\"y\":%.1f}", x * sc, y * sc);
		chg_add += call_ms(reg, "add_tubercle", a, &ok);
		t0 = bench_now_ms();
		fs_agent_judge_at(&s, x, y);
		jat += bench_now_ms() - t0;
		snprintf(a, sizeof a, "{\"id\":%d}", s.t.items[s.t.n - 1].id);
		chg_del += call_ms(reg, "delete_tubercle", a, &ok);
	}
	double sel = 0;
	for (int i = 0; i < REPS; i++)
		sel += call_ms(reg, "select_tubercles", "{\"isolated\":true,\"edge\":{\"side\":\"right\",\"width_percent\":15}}", &ok);
	sel /= REPS;
	fs_tubercle_list lt = {0};
	fs_edge_list le = {0};
	t0 = bench_now_ms();
	fs_set_load(db, set_id, &lt, &le);
	double load_ms = bench_now_ms() - t0;
	fs_tubercle_list_free(&lt);
	fs_edge_list_free(&le);
	fs_lattice_plan plan;
	t0 = bench_now_ms();
	if (fs_agent_lattice_plan(&s, NULL, NULL, 0, 24, &plan))
		return die("lattice", "out of memory");
	double plan_ms = bench_now_ms() - t0;
	fs_lattice_plan_free(&plan);

	printf("agent session init (load image + set of %zu): %.1f ms\n", s.t.n, init_ms);
	printf("agent screenshot first (downscale + render + PNG + base64): %.1f ms\n", first_shot);
	printf("agent screenshot cached base: %.1f ms\n", shot / REPS);
	printf("agent get_state: %.2f ms\n", state / REPS);
	printf("agent add_tubercle (analyse point, journal, reload, status): %.1f ms\n", add / REPS);
	printf("agent delete_tubercle (journal, reload, status): %.1f ms\n", del / REPS);
	printf("agent set reload (fs_set_load %.1f ms + statistics): %.1f ms\n", load_ms, reload_ms);
	printf("agent store add alone %.1f ms, delete alone %.1f ms, boundary flags %.1f ms, statistics %.1f ms\n",
	       store_add, store_del, bnd, stc);
	printf("agent status object: %.2f ms\n", status / REPS);
	printf("agent judge after a change (reconnect %zu tubercles + statistics + lattice coverage): %.1f ms\n", s.t.n,
	       judge);
	printf("agent select_tubercles (isolated, right edge band): %.1f ms\n", sel);
	printf("agent edit iteration overhead (screenshot + state + add + delete + status): %.1f ms (target < 30 ms)\n",
	       edit_iter);
	printf("agent offline lattice fit (policy, not overhead): %.1f ms\n", plan_ms);
	printf("agent editor evidence check at a site (dome/blob measurement + contrast): %.2f ms\n", ev_ms / REPS);
	printf("agent editor reconnect + judge after one change (neighbourhood only, of %zu tubercles): %.1f ms\n", s.t.n,
	       jat / REPS);
	printf("agent editor step (evidence + add_tubercle with journal, incremental reconnect, statistics, coverage): "
	       "%.1f ms (target < 30 ms)\n", (ev_ms + chg_add) / REPS);
	printf("agent editor step (delete_tubercle with journal, incremental reconnect, statistics, coverage): %.1f ms "
	       "(target < 30 ms)\n", chg_del / REPS);
	fs_tools_free(reg);
	fs_agent_sess_free(&s);

	/* optimiser: overhead around one extraction, and the extraction itself */
	fs_agent_job_default(&job, FS_AGENT_OPTIMIZE);
	job.user_id = uid;
	job.image_id = image_id;
	job.set_id = set_id;
	job.run_id = 2;
	job.target_score = 1.1;
	if (fs_agent_sess_init(&s, &job, &env, err, sizeof err))
		return die("session", err);
	reg = fs_tools_new();
	if (fs_fish_tools_add_optimize(reg, &s, err, sizeof err))
		return die("tools", err);
	double ext = call_ms(reg, "run_extraction", "{}", &ok);
	double oshot = 0, ostat = 0, oset = 0;
	for (int i = 0; i < REPS; i++) {
		char a[64];
		snprintf(a, sizeof a, "{\"auto_prominence\":%.3f}", 0.10 + 0.001 * i);
		oset += call_ms(reg, "set_params", a, &ok);
		oshot += call_ms(reg, "get_screenshot", "{}", &ok);
		double t1 = bench_now_ms();
		cJSON *st = fs_agent_status(&s, "running", NULL);
		char *txt = cJSON_PrintUnformatted(st);
		ostat += bench_now_ms() - t1;
		free(txt);
		cJSON_Delete(st);
	}
	printf("agent optimiser extraction (detect + graph + stats + store, the work): %.0f ms\n", ext);
	printf("agent optimise iteration overhead (set_params + screenshot + status): %.1f ms (target < 30 ms)\n",
	       (oshot + ostat + oset) / REPS);
	fs_tools_free(reg);
	fs_agent_sess_free(&s);

	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	fs_image_free(img);
	synth_truth_free(&tr);
	fs_db_close(db);
	if (test_rm_tree(dir))
		fprintf(stderr, "could not remove %s\n", dir);
	if (!ok)
		fprintf(stderr, "bench_agent_jobs: a tool call failed\n");
	return ok ? 0 : 1;
}
