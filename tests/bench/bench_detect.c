/*
 * bench_detect.c - speed of the detection pipeline, per stage (load,
 * preprocess incl. lattice estimate, detect, graph, statistics), single
 * thread. Prints per stage the median and the minimum over all runs, and
 * the process CPU time of the whole pipeline; asserts nothing.
 * Inputs: a 2048x1536 8-bit synthetic lattice (~2,000 tubercles), written
 * to a temporary uncompressed TIFF (what SEMs write) and to a PNG so that
 * loading is measured too, and the paper images.
 * Targets: whole pipeline < 150 ms at 2048x1536, < 15 ms at 660x580; peak
 * memory < 8 x the image's float size + 32 MB (the largest peak RSS of the
 * processes that measured the 2048x1536 TIFF).
 *
 * Why several processes: on the 2-core KVM machine the project is measured
 * on, the speed of a process is bimodal. The same binary measures P1 Fig1
 * at ~10.5 ms or ~17 ms per run depending on the process, all its runs and
 * every stage alike (CPU time = wall time, one thread; independent of the
 * core and of address-space randomisation), and callgrind counts the same
 * instructions in both. One process's "median of 5" is then a draw of the
 * mode, and a slow draw once passed for a regression of a merge (README,
 * Benchmarks). So each image is measured in FS_BENCH_PROCS fresh processes
 * (default 5; this program started again with --case) of FS_BENCH_RUNS
 * runs each (default 5), the images interleaved process by process so a
 * change in the machine's load falls on all of them; the minimum is the
 * fast mode's figure, and the list of each process's median CPU shows the
 * modes (compare two builds by those lists, or by callgrind's counts, never
 * by one process each). The CPU clock is printed next to the wall clock
 * because a busy virtual machine's stolen time inflates only the latter.
 */
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/detect.h"
#include "base/heap_policy.h"
#include "analysis/graph.h"
#include "image/image_io.h"
#include "analysis/metrics.h"
#include "synth.h"
#include "bench_support.h"

extern char **environ;

enum { LOAD, PRE, DET, GRAPH, STATS, TOTAL, CPU, NFIG };
static const char *const fig_name[NFIG] = {"load", "preprocess", "detect", "graph", "statistics", "total",
					   "cpu"};

#define MAX_PROCS 50
#define MAX_RUNS 9 /* bench_runs' upper bound */

typedef int (*detect_fn)(const fs_image *, const fs_params *, double, fs_detect_result *, char *,
			 size_t);

/* One image measured with one rule: what the processes reported. */
struct bench_case {
	char label[600];
	char path[512];
	const char *rule; /* "outline" or "domes" */
	double fig[NFIG][MAX_PROCS * MAX_RUNS];
	int nfig;                    /* runs reported, all processes together */
	double proc_cpu[MAX_PROCS];  /* each process's median CPU per run */
	int nproc;
	long maxrss_kb;              /* the largest peak RSS of its processes */
	size_t n;
	int w, h;
	int failed;
};

/* The child's part (--case RULE PATH): `runs` runs of the pipeline, one
 * line "run" with the figures per run and one "size" line. */
static int measure(const char *rule, const char *path, int runs)
{
	detect_fn fn = !strcmp(rule, "domes") ? fs_detect_domes : fs_detect_outline;
	char err[256];
	fs_heap_keep_images(); /* as the FastCGI workers and the CLI do */
	for (int r = 0; r < runs; r++) {
		fs_loaded L;
		fs_detect_result res;
		fs_edge_list edges = {0};
		fs_stats st;
		fs_params p;
		fs_params_default(&p);
		double c0 = bench_cpu_ms();
		double t0 = bench_now_ms();
		if (fs_load_file(path, NULL, &L, err, sizeof err)) {
			printf("error load failed: %s\n", err);
			return 1;
		}
		double t1 = bench_now_ms();
		if (fn(L.image, &p, 0, &res, err, sizeof err)) {
			printf("error detect failed: %s\n", err);
			fs_loaded_free(&L);
			return 1;
		}
		double t2 = bench_now_ms();
		int grc = fs_graph_build(&res.tubercles, p.neighbor_graph, p.cull_long_edges, p.cull_factor,
					 &edges, err, sizeof err);
		double t3 = bench_now_ms();
		if (!grc)
			fs_stats_compute(&res.tubercles, &edges, 1.0, NULL, L.image->width, L.image->height,
					 &st);
		double t4 = bench_now_ms();
		double cpu = bench_cpu_ms() - c0;
		printf("run %.4f %.4f %.4f %.4f %.4f %.4f %.4f\n", t1 - t0, res.ms_preprocess, res.ms_detect,
		       t3 - t2, t4 - t3, t4 - t0, cpu);
		if (r == runs - 1)
			printf("size %d %d %zu\n", L.image->width, L.image->height, res.tubercles.n);
		fs_edge_list_free(&edges);
		fs_detect_result_free(&res);
		fs_loaded_free(&L);
	}
	return 0;
}

/* Runs one process of case c and adds what it reports to c. */
static void spawn_case(const char *self, struct bench_case *c, int runs)
{
	int fds[2];
	if (pipe(fds)) {
		c->failed = 1;
		return;
	}
	char nruns[16];
	snprintf(nruns, sizeof nruns, "%d", runs);
	char *argv[] = {(char *)self, "--case", (char *)c->rule, c->path, nruns, NULL};
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	pid_t pid;
	int rc = posix_spawn(&pid, self, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc) {
		printf("%s: cannot start a process: %s\n", c->label, strerror(rc));
		close(fds[0]);
		c->failed = 1;
		return;
	}
	FILE *f = fdopen(fds[0], "r");
	char line[512];
	double cpu[MAX_RUNS];
	int got = 0;
	while (f && fgets(line, sizeof line, f)) {
		double v[NFIG];
		if (sscanf(line, "run %lf %lf %lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4],
			   &v[5], &v[6]) == NFIG &&
		    got < MAX_RUNS) {
			for (int k = 0; k < NFIG; k++)
				c->fig[k][c->nfig] = v[k];
			c->nfig++;
			cpu[got++] = v[CPU];
		} else if (sscanf(line, "size %d %d %zu", &c->w, &c->h, &c->n) == 3) {
		} else if (!strncmp(line, "error ", 6)) {
			printf("%s: %s", c->label, line + 6);
			c->failed = 1;
		}
	}
	if (f)
		fclose(f);
	else
		close(fds[0]);
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) == pid && ru.ru_maxrss > c->maxrss_kb)
		c->maxrss_kb = ru.ru_maxrss;
	if (got)
		c->proc_cpu[c->nproc++] = bench_median(cpu, got);
	else
		c->failed = 1;
}

static double min_of(const double *v, int n)
{
	double m = n ? v[0] : 0;
	for (int i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void report(struct bench_case *c, int runs)
{
	if (c->failed && !c->nfig)
		return;
	printf("%s (%dx%d, %zu tubercles; %d processes x %d runs)\n", c->label, c->w, c->h, c->n, c->nproc,
	       runs);
	for (int k = LOAD; k < TOTAL; k++)
		printf("  %s: %.1f ms (min %.1f)\n", fig_name[k], bench_median(c->fig[k], c->nfig),
		       min_of(c->fig[k], c->nfig));
	printf("  total: %.1f ms (min %.1f; cpu %.1f ms, min %.1f)\n", bench_median(c->fig[TOTAL], c->nfig),
	       min_of(c->fig[TOTAL], c->nfig), bench_median(c->fig[CPU], c->nfig),
	       min_of(c->fig[CPU], c->nfig));
	qsort(c->proc_cpu, (size_t)c->nproc, sizeof c->proc_cpu[0], cmp_d);
	printf("  cpu per process (median of its runs, sorted):");
	for (int i = 0; i < c->nproc; i++)
		printf(" %.1f", c->proc_cpu[i]);
	printf(" ms\n");
}

/* The number of processes per image: FS_BENCH_PROCS when it is set to
 * 1..MAX_PROCS, otherwise 5. */
static int bench_procs(void)
{
	const char *e = getenv("FS_BENCH_PROCS");
	int n = e ? atoi(e) : 0;
	return n >= 1 && n <= MAX_PROCS ? n : 5;
}

static const char *const paper[] = {
	"P1_Fig1_Lepidotes_elvensis_4.78um.tif",
	"P1_Fig2_Polypterus_bichir_2.63um.tif",
	"P2_Fig1c_Paralepidosteus_sp_Acre_5.73um.tif",
	"P3_Fig4_Obaichthys_laevis_5.0um.tif",
};
#define NPAPER (sizeof paper / sizeof paper[0])
#define NCASES (3 + 2 * NPAPER)

static struct bench_case cases[NCASES]; /* static: too large for the stack */

static void set_case(struct bench_case *c, const char *label, const char *path, const char *rule)
{
	snprintf(c->label, sizeof c->label, "%s", label);
	snprintf(c->path, sizeof c->path, "%s", path);
	c->rule = rule;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "--case"))
		return measure(argv[2], argv[3], atoi(argv[4]) > 0 ? atoi(argv[4]) : 1);
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (len <= 0) {
		perror("readlink /proc/self/exe");
		return 1;
	}
	self[len] = 0;
	char err[256];
	char tmp[] = "/tmp/fs_bench_XXXXXX.png", tif[] = "/tmp/fs_bench_XXXXXX.tif";
	int fd = mkstemps(tmp, 4), fd2 = mkstemps(tif, 4);
	if (fd < 0 || fd2 < 0) {
		perror("mkstemps");
		return 1;
	}
	close(fd);
	close(fd2);
	synth_opts o;
	synth_truth t;
	bench_detect_lattice(&o);
	fs_image *img = synth_make(&o, &t);
	if (!img || fs_png_write_gray(tmp, img, err, sizeof err) || bench_write_tiff8(tif, img, 0)) {
		printf("synthetic image: %s\n", img ? "cannot write" : "out of memory");
		unlink(tmp);
		unlink(tif);
		return 1;
	}
	fs_image_free(img);
	synth_truth_free(&t);

	set_case(&cases[0], "synthetic 2048x1536 8-bit TIFF", tif, "outline");
	set_case(&cases[1], "synthetic 2048x1536 8-bit PNG", tmp, "outline");
	set_case(&cases[2], "synthetic 2048x1536 8-bit TIFF, fs_detect_domes (experimental)", tif, "domes");
	for (size_t i = 0; i < NPAPER; i++) {
		char path[512], label[600];
		snprintf(path, sizeof path, "tests/fixtures/paper/%s", paper[i]);
		set_case(&cases[3 + i], paper[i], path, "outline");
		snprintf(label, sizeof label, "%s, fs_detect_domes (experimental)", paper[i]);
		set_case(&cases[3 + NPAPER + i], label, path, "domes");
	}
	int procs = bench_procs(), runs = bench_runs(5);
	for (int p = 0; p < procs; p++)
		for (size_t i = 0; i < NCASES; i++)
			spawn_case(self, &cases[i], runs);
	unlink(tmp);
	unlink(tif);

	printf("target: total < 150 ms at 2048x1536, < 15 ms at 660x580\n");
	report(&cases[0], runs);
	printf("  peak RSS of its processes: %.1f MB (target < %.1f MB)\n", cases[0].maxrss_kb / 1024.0,
	       8.0 * o.width * o.height * sizeof(float) / 1048576.0 + 32);
	report(&cases[1], runs);
	/* issue 13: the dome-base rule may cost at most 3 x today's detection */
	for (size_t i = 2; i < NCASES; i++) {
		report(&cases[i], runs);
		size_t outline = i == 2 ? 0 : i >= 3 + NPAPER ? i - NPAPER : 0;
		if (strcmp(cases[i].rule, "domes") || cases[i].failed || cases[outline].failed)
			continue;
		printf("  CPU against fs_detect's: %.1fx (issue 13 allows 3x)\n",
		       bench_median(cases[i].fig[CPU], cases[i].nfig) /
			       bench_median(cases[outline].fig[CPU], cases[outline].nfig));
	}
	int failed = 0;
	for (size_t i = 0; i < NCASES; i++)
		failed |= cases[i].failed;
	return failed;
}
