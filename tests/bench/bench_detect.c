/*
 * bench_detect.c - speed of the detection pipeline, per stage (load,
 * preprocess incl. lattice estimate, detect, graph, statistics), median of
 * 5 runs, single thread. Prints "stage: median ms"; asserts nothing.
 * Inputs: a 2048x1536 8-bit synthetic lattice (~2,000 tubercles), written
 * to a temporary uncompressed TIFF (what SEMs write) and to a PNG so that
 * loading is measured too, and the paper images. The figures are wall time;
 * the total is also given as process CPU time, which a busy virtual
 * machine's stolen time does not inflate.
 * Targets: whole pipeline < 150 ms at 2048x1536, < 15 ms at 660x580; peak
 * memory < 8 x the image's float size + 32 MB (printed as the process's
 * peak RSS, an upper bound: it includes the synthetic image's creation).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "analysis/detect.h"
#include "base/heap_policy.h"
#include "analysis/graph.h"
#include "image/image_io.h"
#include "analysis/metrics.h"
#include "synth.h"
#include "bench_support.h"

#define RUNS 5

typedef int (*detect_fn)(const fs_image *, const fs_params *, double, fs_detect_result *, char *,
			 size_t);

static double last_cpu; /* the median CPU of the last bench(), ms */

static int bench(const char *label, const char *path, detect_fn fn)
{
	double t_load[RUNS], t_pre[RUNS], t_det[RUNS], t_graph[RUNS], t_stats[RUNS], t_all[RUNS];
	double c_all[RUNS];
	char err[256];
	size_t n = 0;
	int w = 0, h = 0;
	for (int r = 0; r < RUNS; r++) {
		fs_loaded L;
		fs_detect_result res;
		fs_edge_list edges = {0};
		fs_stats st;
		fs_params p;
		fs_params_default(&p);
		double c0 = bench_cpu_ms();
		double t0 = bench_now_ms();
		if (fs_load_file(path, NULL, &L, err, sizeof err)) {
			printf("%s: load failed: %s\n", label, err);
			return -1;
		}
		double t1 = bench_now_ms();
		if (fn(L.image, &p, 0, &res, err, sizeof err)) {
			printf("%s: detect failed: %s\n", label, err);
			fs_loaded_free(&L);
			return -1;
		}
		double t2 = bench_now_ms();
		int grc = fs_graph_build(&res.tubercles, p.neighbor_graph, p.cull_long_edges, p.cull_factor,
					 &edges, err, sizeof err);
		double t3 = bench_now_ms();
		if (!grc)
			fs_stats_compute(&res.tubercles, &edges, 1.0, NULL, L.image->width, L.image->height,
					 &st);
		double t4 = bench_now_ms();
		c_all[r] = bench_cpu_ms() - c0;
		t_load[r] = t1 - t0;
		t_pre[r] = res.ms_preprocess;
		t_det[r] = res.ms_detect;
		t_graph[r] = t3 - t2;
		t_stats[r] = t4 - t3;
		t_all[r] = t4 - t0;
		n = res.tubercles.n;
		w = L.image->width;
		h = L.image->height;
		fs_edge_list_free(&edges);
		fs_detect_result_free(&res);
		fs_loaded_free(&L);
	}
	printf("%s (%dx%d, %zu tubercles)\n", label, w, h, n);
	printf("  load: %.1f ms\n  preprocess: %.1f ms\n  detect: %.1f ms\n", bench_median(t_load, RUNS),
	       bench_median(t_pre, RUNS), bench_median(t_det, RUNS));
	printf("  graph: %.1f ms\n  statistics: %.1f ms\n  total: %.1f ms (cpu %.1f ms)\n",
	       bench_median(t_graph, RUNS), bench_median(t_stats, RUNS), bench_median(t_all, RUNS), bench_median(c_all, RUNS));
	last_cpu = bench_median(c_all, RUNS);
	return 0;
}

int main(void)
{
	char err[256];
	fs_heap_keep_images(); /* as the FastCGI workers and the CLI do */
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
	synth_defaults(&o);
	o.width = 2048;
	o.height = 1536;
	o.pitch = 36;
	o.angle = 0.2;
	o.jitter = 1.5;
	o.gradient = 0.3;
	fs_image *img = synth_make(&o, &t);
	if (!img || fs_png_write_gray(tmp, img, err, sizeof err) || bench_write_tiff8(tif, img, 0)) {
		printf("synthetic image: %s\n", img ? "cannot write" : "out of memory");
		unlink(tmp);
		unlink(tif);
		return 1;
	}
	printf("target: total < 150 ms at 2048x1536, < 15 ms at 660x580\n");
	bench("synthetic 2048x1536 8-bit TIFF", tif, fs_detect_outline);
	double cpu_outline = last_cpu;
	bench("synthetic 2048x1536 8-bit PNG", tmp, fs_detect_outline);
	/* issue 13: the dome-base rule may cost at most 3 x today's detection */
	bench("synthetic 2048x1536 8-bit TIFF, fs_detect_domes (experimental)", tif, fs_detect_domes);
	printf("  CPU against fs_detect's: %.1fx (issue 13 allows 3x)\n", last_cpu / cpu_outline);
	struct rusage ru;
	if (!getrusage(RUSAGE_SELF, &ru))
		printf("  peak RSS of the process: %.1f MB (target < %.1f MB)\n", ru.ru_maxrss / 1024.0,
		       8.0 * o.width * o.height * sizeof(float) / 1048576.0 + 32);
	unlink(tmp);
	unlink(tif);
	fs_image_free(img);
	synth_truth_free(&t);
	static const char *paper[] = {
		"P1_Fig1_Lepidotes_elvensis_4.78um.tif",
		"P1_Fig2_Polypterus_bichir_2.63um.tif",
		"P2_Fig1c_Paralepidosteus_sp_Acre_5.73um.tif",
		"P3_Fig4_Obaichthys_laevis_5.0um.tif",
	};
	double cpu_paper[sizeof paper / sizeof paper[0]];
	for (size_t i = 0; i < sizeof paper / sizeof paper[0]; i++) {
		char path[512];
		snprintf(path, sizeof path, "tests/fixtures/paper/%s", paper[i]);
		bench(paper[i], path, fs_detect_outline);
		cpu_paper[i] = last_cpu;
	}
	for (size_t i = 0; i < sizeof paper / sizeof paper[0]; i++) {
		char path[512], label[600];
		snprintf(path, sizeof path, "tests/fixtures/paper/%s", paper[i]);
		snprintf(label, sizeof label, "%s, fs_detect_domes (experimental)", paper[i]);
		bench(label, path, fs_detect_domes);
		printf("  CPU against fs_detect's: %.1fx (issue 13 allows 3x)\n", last_cpu / cpu_paper[i]);
	}
	return 0;
}
