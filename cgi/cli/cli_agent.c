/*
 * cli_agent.c - the agents from the command line (see cli_agent.h): option
 * parsing, the standalone workspace, progress on stderr in the form of
 * seed 001 §9.2, and the results (annotations JSON, CSVs, final status)
 * written into -o DIR.
 */
#include "cli/cli_agent.h"

#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "store/store.h"
#include "app/app.h"
#include "base/base.h"
#include "cli/cli.h"
#include "analysis/analysis.h"
#include "image/image_io.h"

/* ---- standalone workspace ---- */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

void fs_standalone_close(fs_standalone *s)
{
	if (s->app.db)
		fs_app_close(&s->app);
	s->app.db = NULL;
	if (s->dir[0])
		nftw(s->dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	s->dir[0] = 0;
}

static int file_sha256(const char *path, char out[65], long long *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	fs_sha256 h;
	unsigned char buf[65536], dg[32];
	size_t n;
	*size = 0;
	fs_sha256_init(&h);
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		fs_sha256_update(&h, buf, n);
		*size += (long long)n;
	}
	int bad = ferror(f);
	fclose(f);
	fs_sha256_final(&h, dg);
	fs_hex_encode(dg, 32, out);
	return bad ? -1 : 0;
}

int fs_standalone_open(fs_standalone *s, const char *root, const char *image_path, double calibration, char *err, size_t errlen)
{
	fs_loaded ld = {0};
	fs_image_rec rec;
	char data[600], sha[65];
	long long size = 0;
	int rc = -1;

	memset(s, 0, sizeof *s);
	memset(&rec, 0, sizeof rec);
	const char *tmp = getenv("TMPDIR");
	snprintf(s->dir, sizeof s->dir, "%s/fishscale-agent-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(s->dir)) {
		snprintf(err, errlen, "cannot create a temporary directory: %s", strerror(errno));
		s->dir[0] = 0;
		return -1;
	}
	if (fs_app_config(&s->app, root, NULL, err, errlen))
		goto out;
	snprintf(s->app.cfg.data_dir, sizeof s->app.cfg.data_dir, "%s", s->dir);
	if (fs_app_open(&s->app, 0, err, errlen))
		goto out;
	fs_app_data_path(&s->app, "", data, sizeof data);
	/* compact (image.h): the agent's session and the seed's detection read
	 * either storage, and a 100 MP file then takes 100 MB here, not 400 */
	fs_load_opts lo = {.max_pixels = s->app.cfg.max_pixels, .page = 0, .compact = 1};
	if (fs_load_file(image_path, &lo, &ld, err, errlen))
		goto out;
	if (file_sha256(image_path, sha, &size)) {
		snprintf(err, errlen, "cannot read %s", image_path);
		goto out;
	}
	if (fs_user_create(s->app.db, "agent", "Agent (command line)", 1, NULL, &s->user_id, err, errlen))
		goto out;
	char namebuf[PATH_MAX];
	snprintf(namebuf, sizeof namebuf, "%s", image_path);
	fs_image_name_sanitise(basename(namebuf), s->image_name, sizeof s->image_name);
	fs_image_rec_from_loaded(&rec, s->user_id, sha, 0, s->image_name, &ld);
	s->um_per_px = calibration > 0 ? calibration : ld.suggested_um_per_px;
	/* only the working image: nothing shows the display copies, thumbnail
	 * or pyramid of a command-line workspace */
	char work[4096];
	if (fs_files_ensure_dirs(data, err, errlen) ||
	    fs_file_path(data, FS_FILE_WORK, rec.work_key, work, sizeof work) ||
	    fs_work_write(work, ld.image, err, errlen))
		goto out;
	if (fs_db_begin(s->app.db)) {
		snprintf(err, errlen, "database busy");
		goto out;
	}
	int drc = fs_image_insert(s->app.db, &rec, size);
	if (!drc && s->um_per_px > 0)
		drc = fs_image_set_calibration(s->app.db, rec.id, s->um_per_px, calibration > 0 ? "manual" : "metadata");
	if (!drc)
		drc = fs_set_create(s->app.db, rec.id, "Base", s->user_id, &s->set_id, err, errlen);
	if (drc || fs_db_commit(s->app.db)) {
		if (!err[0] || !drc)
			snprintf(err, errlen, "cannot store the image: %s", fs_db_errmsg(s->app.db));
		fs_db_rollback(s->app.db);
		goto out;
	}
	s->image_id = rec.id;
	rc = 0;
out:
	fs_loaded_free(&ld);
	if (rc)
		fs_standalone_close(s);
	return rc;
}

int fs_standalone_seed(fs_standalone *s, int *n, char *err, size_t errlen)
{
	fs_image_rec rec;
	fs_detect_result det = {0};
	fs_edge_list edges = {0};
	fs_params p;
	char data[600];
	fs_image *img = NULL;
	int rc = -1;
	*n = 0;
	if (fs_image_get(s->app.db, s->image_id, &rec))
		goto out;
	fs_app_data_path(&s->app, "", data, sizeof data);
	img = fs_image_load_work_compact(data, &rec, err, errlen);
	if (!img)
		goto out;
	fs_params_default(&p);
	if (fs_detect(img, &p, s->um_per_px > 0 ? s->um_per_px : 0, &det, err, errlen) ||
	    fs_graph_build(&det.tubercles, p.neighbor_graph, p.cull_long_edges, p.cull_factor, &edges, err, errlen))
		goto out;
	long long nr, cr;
	if (fs_set_replace_all(s->app.db, s->set_id, -1, s->user_id, &det.tubercles, &edges, &p, "extraction", 0, &nr,
			       &cr, err, errlen))
		goto out;
	*n = (int)det.tubercles.n;
	rc = 0;
out:
	fs_edge_list_free(&edges);
	fs_detect_result_free(&det);
	fs_image_free(img);
	return rc;
}

/* ---- progress ---- */

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

typedef struct progress {
	int verbose;
	int kind;
	int last_iter;
	int last_count;
	int last_turns;     /* llm_calls of the last status: a step ended when it grows */
	int blocks;         /* optimiser iterations printed */
	char seen[1024];    /* the last model text taken from a status */
	char held[512];     /* the newest iteration's lines, not yet printed */
	FILE *out;
	fs_buf transcript;  /* JSONL records, written with -o */
} progress;

static double jnum(const cJSON *o, const char *k)
{
	const cJSON *x = cJSON_GetObjectItem(o, k);
	return cJSON_IsNumber(x) ? x->valuedouble : 0;
}

/* The model's words of the status's last step (its response is recorded as
 * JSON with the words in "text"), on one line; "" when there are none. */
static void status_text(const cJSON *st, char *out, size_t outlen)
{
	const char *resp = cJSON_GetStringValue(cJSON_GetObjectItem(st, "last_response"));
	cJSON *rj = resp ? cJSON_Parse(resp) : NULL;
	if (cJSON_GetStringValue(cJSON_GetObjectItem(rj, "text")))
		resp = cJSON_GetStringValue(cJSON_GetObjectItem(rj, "text"));
	snprintf(out, outlen, "%s", resp ? resp : "");
	cJSON_Delete(rj);
	for (char *c = out; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
}

static void print_agent_line(progress *p, const char *text)
{
	/* at most 159 bytes of it, as before */
	int len = (int)strlen(text);
	fprintf(p->out, "  \xe2\x86\x92 Agent: \"%.*s%s\"\n", len > 159 ? 159 : len, text, len > 159 ? "..." : "");
}

static void flush_held(progress *p)
{
	if (!p->held[0])
		return;
	fputs(p->held, p->out);
	p->held[0] = 0;
	p->blocks++;
}

/* The optimiser's progress as seed 001 prints it: each iteration's metrics,
 * then the model's reasoning on them - which is the text of the NEXT step
 * (the one that asks for the following extraction). The extraction's own
 * status comes before that step ends, so an iteration's lines are held until
 * the step that produced them has ended (llm_calls grows), and a step's text
 * is printed under the iteration before the one it asked for. The text of
 * the first step (asking for the baseline) precedes every iteration and is
 * not printed. */
static void status_optimize(progress *p, const cJSON *st)
{
	int it = (int)jnum(st, "iteration"), turns = (int)jnum(st, "llm_calls");
	int step_done = turns > p->last_turns;
	if (step_done) {
		char text[sizeof p->seen];
		p->last_turns = turns;
		status_text(st, text, sizeof text);
		if (text[0] && strcmp(text, p->seen)) {
			if (p->blocks > 0)
				print_agent_line(p, text);
			snprintf(p->seen, sizeof p->seen, "%s", text);
		}
		flush_held(p);
	}
	if (it > p->last_iter) {
		const cJSON *m = cJSON_GetObjectItem(st, "current_metrics");
		int max = (int)jnum(st, "max_iterations"), n = (int)jnum(m, "n_tubercles");
		flush_held(p);
		if (it == 1)
			snprintf(p->held, sizeof p->held,
				 "Iteration %d/%d: Running initial extraction...\n"
				 "  \xe2\x86\x92 Hexagonalness: %.2f, Tubercles: %d\n",
				 it, max, jnum(m, "hexagonalness"), n);
		else
			snprintf(p->held, sizeof p->held,
				 "Iteration %d/%d: Running extraction...\n"
				 "  \xe2\x86\x92 Hexagonalness: %.2f, Tubercles: %d (%+d)\n",
				 it, max, jnum(m, "hexagonalness"), n, n - p->last_count);
		p->last_iter = it;
		p->last_count = n;
		if (step_done)
			flush_held(p);
	}
	fflush(p->out);
}

static void cb_status(void *ud, const cJSON *st)
{
	progress *p = ud;
	if (p->kind == FS_AGENT_OPTIMIZE) {
		status_optimize(p, st);
		return;
	}
	int it = (int)jnum(st, "iteration");
	if (it <= p->last_iter)
		return;
	p->last_iter = it;
	int max = (int)jnum(st, "max_iterations");
	int n = (int)jnum(st, "tubercle_count");
	fprintf(p->out, "Iteration %d/%d: %s\n", it, max, cJSON_GetStringValue(cJSON_GetObjectItem(st, "phase"))
		? cJSON_GetStringValue(cJSON_GetObjectItem(st, "phase")) : "");
	fprintf(p->out, "  \xe2\x86\x92 Hexagonalness: %.3f, Coverage: %.0f%%, Tubercles: %d (%+d)\n",
		jnum(st, "hexagonalness"), jnum(st, "coverage_percent"), n, (int)jnum(st, "tubercle_delta"));
	char text[1024];
	status_text(st, text, sizeof text);
	if (text[0])
		print_agent_line(p, text);
	fflush(p->out);
}

static void cb_log(void *ud, const char *line)
{
	progress *p = ud;
	if (p->verbose)
		fprintf(p->out, "%s\n", line);
}

static void cb_record(void *ud, const cJSON *rec)
{
	progress *p = ud;
	char *j = cJSON_PrintUnformatted(rec);
	if (j) {
		fs_buf_puts(&p->transcript, j);
		fs_buf_putc(&p->transcript, '\n');
	}
	free(j);
}

static int cb_stop(void *ud)
{
	(void)ud;
	return interrupted != 0;
}

/* ---- results ---- */

static int write_out(const char *dir, const char *name, const char *data, size_t len, char *err, size_t errlen)
{
	char path[PATH_MAX];
	if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) {
		snprintf(err, errlen, "output path too long");
		return -1;
	}
	return fs_file_write_atomic(path, data, len, err, errlen);
}

static int write_json(const char *dir, const char *name, const cJSON *j, char *err, size_t errlen)
{
	char *s = cJSON_Print(j);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = write_out(dir, name, s, strlen(s), err, errlen);
	cJSON_free(s);
	return rc;
}

static int write_results(fs_standalone *s, const char *outdir, const cJSON *final, const fs_buf *transcript,
			 fs_stats *stats, char *err, size_t errlen)
{
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	fs_set_info info;
	fs_buf b = FS_BUF_INIT;
	fs_annot_doc doc;
	fs_annot_set set;
	cJSON *annot = NULL;
	char stem[256], name[320];
	int rc = -1;

	memset(&doc, 0, sizeof doc);
	memset(&set, 0, sizeof set);
	snprintf(stem, sizeof stem, "%s", s->image_name);
	char *dot = strrchr(stem, '.');
	if (dot && dot != stem)
		*dot = 0;
	if (mkdir(outdir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", outdir, strerror(errno));
		goto out;
	}
	if (fs_set_load(s->app.db, s->set_id, &t, &e) || fs_set_get_info(s->app.db, s->set_id, &info)) {
		snprintf(err, errlen, "cannot read the resulting set");
		goto out;
	}
	double um = s->um_per_px > 0 ? s->um_per_px : 1.0;
	fs_image_rec rec;
	if (fs_image_get(s->app.db, s->image_id, &rec) ||
	    fs_stats_compute(&t, &e, um, NULL, rec.width, rec.height, stats)) {
		snprintf(err, errlen, "cannot compute statistics");
		goto out;
	}
	/* annotations in the original's v3 format, one set */
	snprintf(doc.image_name, sizeof doc.image_name, "%s", s->image_name);
	doc.um_per_px = s->um_per_px;
	snprintf(doc.calibration_method, sizeof doc.calibration_method, "%s", s->um_per_px > 0 ? "manual" : "");
	snprintf(set.name, sizeof set.name, "%.127s", info.name);
	set.tubercles = t;
	set.edges = e;
	set.has_params = info.has_params;
	set.params = info.params;
	set.calibration_um_per_px = s->um_per_px;
	set.measurement_version = info.measurement_version;
	doc.sets = &set;
	doc.n_sets = 1;
	time_t now = time(NULL);
	char iso[40];
	strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	annot = fs_annot_to_json(&doc, iso);
	snprintf(name, sizeof name, "%s_annotations.json", stem);
	if (!annot || write_json(outdir, name, annot, err, errlen))
		goto out;
	if (fs_csv_tubercles(&b, &t, um))
		goto oom;
	snprintf(name, sizeof name, "%s_tubercles.csv", stem);
	if (write_out(outdir, name, b.data, b.len, err, errlen))
		goto out;
	fs_buf_reset(&b);
	if (fs_csv_edges(&b, &t, &e, um))
		goto oom;
	snprintf(name, sizeof name, "%s_edges.csv", stem);
	if (write_out(outdir, name, b.data, b.len, err, errlen))
		goto out;
	fs_buf_reset(&b);
	if (fs_csv_summary_header(&b) || fs_csv_summary_row(&b, s->image_name, stats, s->um_per_px > 0, info.measurement_version))
		goto oom;
	snprintf(name, sizeof name, "%s_summary.csv", stem);
	if (write_out(outdir, name, b.data, b.len, err, errlen))
		goto out;
	snprintf(name, sizeof name, "%s_agent.json", stem);
	if (final && write_json(outdir, name, final, err, errlen))
		goto out;
	snprintf(name, sizeof name, "%s_transcript.jsonl", stem);
	if (transcript && write_out(outdir, name, transcript->data ? transcript->data : "", transcript->len, err, errlen))
		goto out;
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	cJSON_Delete(annot);
	fs_buf_free(&b);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	return rc;
}

/* ---- commands ---- */

static int usage(FILE *f)
{
	fprintf(f,
		"usage: fishscale agent optimize IMAGE [OPTIONS]\n"
		"       fishscale agent edit IMAGE [OPTIONS]\n"
		"       fishscale agent providers\n\n"
		"options:\n"
		"  --calibration UM       micrometres per pixel (else the file's metadata)\n"
		"  --provider NAME        local (default without a key), anthropic, openai, openrouter,\n"
		"                         gemini, ollama, vllm\n"
		"  --model ID             model of the provider (default: the price table's default)\n"
		"  --max-iterations N     iterations (optimize default 10, edit 30)\n"
		"  --max-seconds N        wall-clock limit\n"
		"  --max-cost USD         stop when the estimated cost exceeds this\n"
		"  optimize only:\n"
		"  --profile NAME         starting profile (default \"default\")\n"
		"  --use-current-params   start from the set's parameters instead\n"
		"  --target-score X       stop at this hexagonalness (default 0.85)\n"
		"  --plateau-threshold X  minimum improvement that counts (default 0.005)\n"
		"  edit only:\n"
		"  --plateau-threshold N  stop after N iterations without improvement (default 3)\n"
		"  --auto-connect METHOD  connect at the end: delaunay, gabriel (default), rng\n"
		"  --no-auto-connect      leave the connections\n"
		"  --cleanup-boundary     delete tubercles with fewer than 2 neighbours at the end (default)\n"
		"  --no-cleanup-boundary\n"
		"  -v, --verbose          print the agent's log lines\n"
		"  -o, --output DIR       write <image>_annotations.json, _tubercles.csv, _edges.csv,\n"
		"                         _summary.csv and _agent.json (final status) into DIR\n"
		"API keys come only from the environment or the configured key file.\n");
	return f == stdout ? 0 : 2;
}

/* Every provider `agent` accepts, in the order `agent providers` lists them. */
static const char *const accepted_providers[] = {"local", "anthropic", "openai", "openrouter", "gemini", "ollama",
						  "vllm", NULL};

static int providers_cmd(const char *root)
{
	fs_app app;
	fs_prices prices = {0};
	char err[512], path[1200];
	if (fs_app_config(&app, root, NULL, err, sizeof err)) {
		fprintf(stderr, "fishscale agent: %s\n", err);
		return 1;
	}
	snprintf(path, sizeof path, "%s/conf/prices.conf", app.root);
	if (fs_prices_load(&prices, path, err, sizeof err)) {
		fprintf(stderr, "fishscale agent: %s\n", err);
		return 1;
	}
	const char *last = "";
	printf("%-11s %-48s %10s %10s\n", "PROVIDER", "MODEL", "IN $/Mtok", "OUT $/Mtok");
	printf("%-11s %-48s %10s %10s  %s\n", "local", "local (offline algorithms)", "0", "0", "configured");
	for (size_t i = 0; i < prices.n; i++) {
		const fs_price *p = &prices.items[i];
		if (strcmp(p->provider, last)) {
			int ok = fs_llm_key_optional(p->provider) ||
				 fs_llm_key_present(p->provider, fs_config_provider_key_env(&app.cfg, p->provider),
						    app.cfg.key_file[0] ? app.cfg.key_file : NULL);
			printf("%-11s %s\n", p->provider, ok ? "(configured)" : "(no API key)");
			last = p->provider;
		}
		printf("%-11s %-48s %10.3f %10.3f%s\n", "", p->model, p->in_per_mtok, p->out_per_mtok,
		       p->is_default ? "  default" : "");
	}
	/* providers without a price table entry are accepted too: say so */
	for (int i = 1; accepted_providers[i]; i++) {
		int listed = 0;
		for (size_t k = 0; k < prices.n && !listed; k++)
			listed = !strcmp(prices.items[k].provider, accepted_providers[i]);
		if (listed)
			continue;
		const char *pv = accepted_providers[i];
		int ok = fs_llm_key_optional(pv) ||
			 fs_llm_key_present(pv, fs_config_provider_key_env(&app.cfg, pv),
					    app.cfg.key_file[0] ? app.cfg.key_file : NULL);
		const char *base = fs_config_provider_base_url(&app.cfg, pv);
		printf("%-11s %s\n", pv, ok ? "(configured)" : "(no API key)");
		printf("%-11s %-48s %10s %10s\n", "", base ? base : "(model given with --model)", "0", "0");
	}
	fs_prices_free(&prices);
	return 0;
}

enum {
	O_CAL = 256, O_PROVIDER, O_MODEL, O_PROFILE, O_CURRENT, O_TARGET, O_MAXIT, O_PLATEAU, O_AUTO,
	O_NOAUTO, O_CLEANUP, O_NOCLEANUP, O_SECONDS, O_COST
};

static const struct option long_opts[] = {
	{"calibration", required_argument, NULL, O_CAL},
	{"provider", required_argument, NULL, O_PROVIDER},
	{"model", required_argument, NULL, O_MODEL},
	{"profile", required_argument, NULL, O_PROFILE},
	{"use-current-params", no_argument, NULL, O_CURRENT},
	{"target-score", required_argument, NULL, O_TARGET},
	{"max-iterations", required_argument, NULL, O_MAXIT},
	{"plateau-threshold", required_argument, NULL, O_PLATEAU},
	{"auto-connect", required_argument, NULL, O_AUTO},
	{"auto-connect-method", required_argument, NULL, O_AUTO},
	{"no-auto-connect", no_argument, NULL, O_NOAUTO},
	{"cleanup-boundary", no_argument, NULL, O_CLEANUP},
	{"no-cleanup-boundary", no_argument, NULL, O_NOCLEANUP},
	{"max-seconds", required_argument, NULL, O_SECONDS},
	{"max-cost", required_argument, NULL, O_COST},
	{"verbose", no_argument, NULL, 'v'},
	{"output", required_argument, NULL, 'o'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* The provider is known and, when it needs one, has a key (environment or
 * the configured key file). 0, or -1 with the reason in err. */
static int check_provider(const char *root, const char *provider, char *err, size_t errlen)
{
	fs_app app;
	int known = 0;
	for (int i = 0; accepted_providers[i]; i++)
		known |= !strcmp(accepted_providers[i], provider);
	if (!known) {
		snprintf(err, errlen, "unknown provider '%s' (see `fishscale agent providers`)", provider);
		return -1;
	}
	if (!strcmp(provider, "local") || fs_llm_key_optional(provider))
		return 0;
	if (fs_app_config(&app, root, NULL, err, errlen))
		return -1;
	const char *env = fs_config_provider_key_env(&app.cfg, provider);
	if (!fs_llm_key_present(provider, env, app.cfg.key_file[0] ? app.cfg.key_file : NULL)) {
		snprintf(err, errlen, "no API key for %s: set %s (or a line '%s = KEY' in the key file)", provider,
			 env ? env : "its key variable", provider);
		return -1;
	}
	return 0;
}

static int parse_num(const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int run_cmd(const char *root, int kind, int argc, char **argv)
{
	fs_agent_job job;
	fs_standalone ws;
	progress pr = {0};
	const char *outdir = NULL;
	double cal = 0, x;
	char err[1024] = "";
	cJSON *final = NULL;
	int rc = 1;

	fs_agent_kinds_register_all();
	fs_agent_job_default(&job, kind);
	job.max_iterations = kind == FS_AGENT_OPTIMIZE ? 10 : 30;
	if (kind == FS_AGENT_OPTIMIZE)
		snprintf(job.profile, sizeof job.profile, "default");
	memset(&ws, 0, sizeof ws);
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, "vo:h", long_opts, NULL)) != -1) {
		switch (c) {
		case O_CAL:
			if (parse_num(optarg, FS_UM_PER_PX_MIN, FS_UM_PER_PX_MAX, &cal))
				goto bad;
			break;
		case O_PROVIDER:
			snprintf(job.provider, sizeof job.provider, "%s", !strcmp(optarg, "claude") ? "anthropic" : optarg);
			break;
		case O_MODEL:
			snprintf(job.model, sizeof job.model, "%s", optarg);
			break;
		case O_PROFILE:
			if (!fs_profile_find(optarg)) {
				fprintf(stderr, "fishscale agent: unknown profile '%s'\n", optarg);
				return 2;
			}
			snprintf(job.profile, sizeof job.profile, "%s", optarg);
			break;
		case O_CURRENT:
			job.profile[0] = 0;
			break;
		case O_TARGET:
			if (parse_num(optarg, 0.01, 1, &job.target_score))
				goto bad;
			break;
		case O_MAXIT:
			if (parse_num(optarg, 1, 1000, &x) || x != floor(x))
				goto bad;
			job.max_iterations = (int)x;
			break;
		case O_PLATEAU:
			if (kind == FS_AGENT_OPTIMIZE) {
				if (parse_num(optarg, 0, 1, &job.plateau_threshold))
					goto bad;
			} else {
				if (parse_num(optarg, 1, 10, &x) || x != floor(x))
					goto bad;
				job.plateau_iterations = (int)x;
			}
			break;
		case O_AUTO:
			if (strcmp(optarg, "delaunay") && strcmp(optarg, "gabriel") && strcmp(optarg, "rng"))
				goto bad;
			job.auto_connect = 1;
			snprintf(job.auto_connect_method, sizeof job.auto_connect_method, "%s", optarg);
			break;
		case O_NOAUTO:
			job.auto_connect = 0;
			break;
		case O_CLEANUP:
			job.cleanup_boundary = 1;
			break;
		case O_NOCLEANUP:
			job.cleanup_boundary = 0;
			break;
		case O_SECONDS:
			if (parse_num(optarg, 1, 86400, &x))
				goto bad;
			job.max_seconds = (int)x;
			break;
		case O_COST:
			if (parse_num(optarg, 0, 1000, &job.max_cost_usd))
				goto bad;
			break;
		case 'v':
			pr.verbose = 1;
			break;
		case 'o':
			outdir = optarg;
			break;
		case 'h':
			return usage(stdout);
		default:
			return usage(stderr);
		}
	}
	if (optind != argc - 1)
		return usage(stderr);
	const char *image = argv[optind];
	/* provider and key before any work: a run that cannot start writes nothing */
	if (check_provider(root, job.provider, err, sizeof err)) {
		fprintf(stderr, "fishscale agent: %s\n", err);
		return 2;
	}
	if (access(image, R_OK)) {
		fprintf(stderr, "fishscale agent: %s: %s\n", image, strerror(errno));
		return 2;
	}
	if (outdir) {
		struct stat od;
		char parent[PATH_MAX];
		snprintf(parent, sizeof parent, "%s", outdir);
		const char *pd = dirname(parent);
		if (stat(outdir, &od) == 0 ? !S_ISDIR(od.st_mode) || access(outdir, W_OK)
					   : access(pd, W_OK)) {
			fprintf(stderr, "fishscale agent: cannot write results into %s\n", outdir);
			return 2;
		}
	}

	if (fs_standalone_open(&ws, root, image, cal, err, sizeof err)) {
		fprintf(stderr, "fishscale agent: %s: %s\n", image, err);
		return 1;
	}
	if (kind == FS_AGENT_EDIT) {
		int n = 0;
		if (fs_standalone_seed(&ws, &n, err, sizeof err)) {
			fprintf(stderr, "fishscale agent: initial extraction failed: %s\n", err);
			goto out;
		}
		fprintf(stderr, "Initial extraction: %d tubercles\n", n);
	}
	job.user_id = ws.user_id;
	job.image_id = ws.image_id;
	job.set_id = ws.set_id;

	FILE *o = stderr;
	if (kind == FS_AGENT_OPTIMIZE) {
		fprintf(o, "Fish Scale Extraction Optimizer\n================================\n");
		fprintf(o, "Image: %s\n", ws.image_name);
		fprintf(o, "Provider: %s%s%s%s\n", job.provider, job.model[0] ? " (" : "", job.model,
			job.model[0] ? ")" : "");
		fprintf(o, "Starting profile: %s\n", job.profile[0] ? job.profile : "(current parameters)");
		fprintf(o, "Target hexagonalness: %.2f\n\n", job.target_score);
	} else {
		fprintf(o, "Fish Scale Pattern Completion Agent\n===================================\n");
		fprintf(o, "Image: %s\n", ws.image_name);
		fprintf(o, "Provider: %s%s%s%s\n", job.provider, job.model[0] ? " (" : "", job.model,
			job.model[0] ? ")" : "");
		fprintf(o, "Max iterations: %d, plateau after %d\n\n", job.max_iterations, job.plateau_iterations);
	}

	char data[600], prices[1200];
	fs_app_data_path(&ws.app, "", data, sizeof data);
	snprintf(prices, sizeof prices, "%s/conf/prices.conf", ws.app.root);
	pr.kind = kind;
	pr.out = stderr;
	fs_agent_env env = {0};
	env.db = ws.app.db;
	env.cfg = &ws.app.cfg;
	env.data_dir = data;
	env.prices_path = prices;
	env.on_status = cb_status;
	env.on_log = cb_log;
	env.should_stop = cb_stop;
	env.on_record = cb_record;
	env.ud = &pr;
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, &old);
	int jrc = fs_agent_job_run(&job, &env, &final, err, sizeof err);
	sigaction(SIGINT, &old, NULL);
	flush_held(&pr);

	const char *state = final ? cJSON_GetStringValue(cJSON_GetObjectItem(final, "state")) : NULL;
	const char *reason = final ? cJSON_GetStringValue(cJSON_GetObjectItem(final, "finish_reason")) : NULL;
	fs_stats stats;
	memset(&stats, 0, sizeof stats);
	char werr[512] = "";
	int wrc = outdir ? write_results(&ws, outdir, final, &pr.transcript, &stats, werr, sizeof werr) : 0;
	if (kind == FS_AGENT_OPTIMIZE) {
		fprintf(o, "\nOptimization Complete\n\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80"
			   "\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80"
			   "\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80"
			   "\xe2\x94\x80\xe2\x94\x80\n");
		const cJSON *bm = cJSON_GetObjectItem(final, "best_metrics");
		fprintf(o, "Best result: Iteration %d\n", (int)jnum(final, "best_iteration"));
		fprintf(o, "  Hexagonalness: %.2f\n  Tubercles: %d\n", jnum(bm, "hexagonalness"),
			(int)jnum(bm, "n_tubercles"));
		fprintf(o, "  Mean diameter: %.1f \xc2\xb5m\n  Mean spacing: %.1f \xc2\xb5m\n", jnum(bm, "mean_diameter_um"),
			jnum(bm, "mean_space_um"));
		const cJSON *bp = cJSON_GetObjectItem(final, "best_params"), *it;
		if (cJSON_IsObject(bp)) {
			fprintf(o, "\nOptimal parameters:\n");
			cJSON_ArrayForEach(it, bp)
			{
				if (cJSON_IsNumber(it))
					fprintf(o, "  %s: %g\n", it->string, it->valuedouble);
				else if (cJSON_IsString(it))
					fprintf(o, "  %s: %s\n", it->string, it->valuestring);
			}
		}
	} else {
		fprintf(o, "\nPattern Completion Complete\n");
		fprintf(o, "  Hexagonalness: %.3f (from %.3f)\n", jnum(final, "hexagonalness"),
			jnum(final, "initial_hexagonalness"));
		fprintf(o, "  Coverage: %.0f%%\n  Tubercles: %d (+%d added, -%d deleted)\n", jnum(final, "coverage_percent"),
			(int)jnum(final, "tubercle_count"), (int)jnum(final, "tubercles_added"),
			(int)jnum(final, "tubercles_deleted"));
	}
	const cJSON *u = cJSON_GetObjectItem(final, "usage");
	fprintf(o, "\nFinished: %s (%s)\n", state ? state : "failed", reason ? reason : "error");
	fprintf(o, "Usage: %.0f input + %.0f output tokens (~$%.2f)\n", jnum(u, "input_tokens"),
		jnum(u, "output_tokens"), jnum(u, "cost_usd"));
	if (jrc)
		fprintf(stderr, "fishscale agent: %s\n", err);
	if (wrc)
		fprintf(stderr, "fishscale agent: %s\n", werr);
	else if (outdir)
		fprintf(o, "Results written to %s\n", outdir);
	rc = jrc || wrc || (state && !strcmp(state, "failed")) ? 1 : 0;
out:
	cJSON_Delete(final);
	fs_buf_free(&pr.transcript);
	fs_standalone_close(&ws);
	return rc;
bad:
	fprintf(stderr, "fishscale agent: bad value for an option: '%s'\n", optarg);
	return 2;
}

int fs_cli_agent(const char *root, int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr);
	const char *sub = argv[1];
	if (!strcmp(sub, "providers"))
		return providers_cmd(root);
	if (!strcmp(sub, "optimize"))
		return run_cmd(root, FS_AGENT_OPTIMIZE, argc - 1, argv + 1);
	if (!strcmp(sub, "edit"))
		return run_cmd(root, FS_AGENT_EDIT, argc - 1, argv + 1);
	if (!strcmp(sub, "help") || !strcmp(sub, "--help") || !strcmp(sub, "-h"))
		return usage(stdout);
	fprintf(stderr, "fishscale agent: unknown subcommand '%s'\n", sub);
	return usage(stderr);
}
