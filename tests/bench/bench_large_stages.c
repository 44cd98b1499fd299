/*
 * bench_large_stages.c - where the time and the memory of a large
 * extraction go (issue 15): the 10000 x 10000 8-bit synthetic SEM image of
 * bench_large.c (about 72,000 tubercles), each stage of `fishscale measure`
 * and of an extraction job timed in this process, one after the other:
 *   load (the TIFF, as the CLI reads it: compact, image.h), working-image
 *   write (as an import writes it) and read (as a job reads it: compact), scale region, detection (preprocessing and the method), neighbour
 *   graph, statistics, the tubercles and edges CSVs.
 * Per stage: wall and CPU milliseconds (median of FS_BENCH_RUNS runs,
 * default 5) and the peak RSS reached during the stage (the process's
 * high-water mark, reset before each stage through /proc/self/clear_refs).
 *
 * FS_BENCH_LARGE_IMAGE=PATH reads the image from that TIFF instead of
 * making it (bench_large with FS_BENCH_LARGE_SAVE=PATH writes one): making
 * it takes longer than measuring it. Reports; asserts nothing.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "base/base.h"
#include "base/heap_policy.h"
#include "image/image_io.h"
#include "store/store.h"
#include "synth.h"
#include "testimg_write.h"
#include "bench_support.h"

/* "VmHWM" or "VmRSS" of this process, MB (0 when /proc is not there). */
static double proc_mb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	double kb = 0;
	size_t kl = strlen(key);
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, key, kl) && line[kl] == ':')
			kb = atof(line + kl + 1);
	if (f)
		fclose(f);
	return kb / 1024;
}

/* Resets the peak RSS to the current RSS (Linux 4.0 and later). */
static void reset_peak(void)
{
	int fd = open("/proc/self/clear_refs", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "5", 1) != 1) {
			/* an older kernel: the peaks then accumulate */
		}
		close(fd);
	}
}

enum { S_LOAD, S_WRITE, S_WORK, S_REGION, S_PRE, S_DETECT, S_GRAPH, S_STATS, S_CSV_T, S_CSV_E, S_N };
static const char *const stage_name[S_N] = {
	"load TIFF (CLI)", "write working image (import)", "read working image (job)", "scale region", "detection: preprocessing",
	"detection: method + measure", "neighbour graph", "statistics", "tubercles CSV", "edges CSV",
};

typedef struct stage_rec {
	double wall[16], cpu[16], peak;
} stage_rec;

static stage_rec st[S_N];
static double t_wall, t_cpu;

static void begin(void)
{
	reset_peak();
	t_wall = bench_now_ms();
	t_cpu = bench_cpu_ms();
}

static void end(int s, int run)
{
	st[s].wall[run] = bench_now_ms() - t_wall;
	st[s].cpu[run] = bench_cpu_ms() - t_cpu;
	double pk = proc_mb("VmHWM");
	if (pk > st[s].peak)
		st[s].peak = pk;
}

int main(void)
{
	char err[512];
	int runs = bench_runs(5);
	fs_heap_keep_images();
	char dir[128];
	if (fs_testimg_tmpdir(dir, sizeof dir)) {
		printf("no temporary directory\n");
		return 1;
	}
	char tif[256], work[256];
	snprintf(work, sizeof work, "%s/work.fsw", dir);
	const char *given = getenv("FS_BENCH_LARGE_IMAGE");
	if (given && *given) {
		snprintf(tif, sizeof tif, "%s", given);
	} else {
		synth_opts o;
		synth_truth tr = {0};
		bench_large_scene(&o);
		fs_image *img = synth_make(&o, &tr);
		snprintf(tif, sizeof tif, "%s/sem.tif", dir);
		int wrc = img ? bench_write_tiff8(tif, img, 0) : -1;
		fs_image_free(img);
		synth_truth_free(&tr);
		if (wrc) {
			printf("synthetic image: cannot make or write it\n");
			return 1;
		}
	}
	for (int r = 0; r < runs; r++) {
		fs_loaded ld;
		begin();
		/* compact (image.h), as the CLI loads it */
		fs_load_opts lo = {.compact = 1};
		if (fs_load_file(tif, &lo, &ld, err, sizeof err)) {
			printf("load: %s\n", err);
			return 1;
		}
		end(S_LOAD, r);
		begin();
		if (fs_work_file_write(work, ld.image, err, sizeof err)) {
			printf("working image: %s\n", err);
			return 1;
		}
		end(S_WRITE, r);
		fs_loaded_free(&ld);
		begin();
		fs_image *img = fs_work_file_read_compact(work, err, sizeof err); /* as a job reads it */
		if (!img) {
			printf("working image: %s\n", err);
			return 1;
		}
		end(S_WORK, r);
		fs_scale_region reg;
		begin();
		if (fs_scale_region_detect(img, &reg, err, sizeof err)) {
			printf("scale region: %s\n", err);
			return 1;
		}
		end(S_REGION, r);
		fs_params p;
		fs_params_default(&p);
		fs_detect_result det;
		begin();
		if (fs_detect_in_region(img, &p, 0, &reg, &det, err, sizeof err)) {
			printf("detect: %s\n", err);
			return 1;
		}
		end(S_DETECT, r);
		/* the detection's own split of its wall time */
		double pre = det.ms_preprocess, all = st[S_DETECT].wall[r];
		st[S_PRE].wall[r] = pre;
		st[S_PRE].cpu[r] = all > 0 ? st[S_DETECT].cpu[r] * pre / all : 0;
		st[S_DETECT].wall[r] = all - pre;
		st[S_DETECT].cpu[r] -= st[S_PRE].cpu[r];
		st[S_PRE].peak = st[S_DETECT].peak;
		fs_image_free(img);
		fs_edge_list e = {0};
		begin();
		if (fs_graph_build(&det.tubercles, p.neighbor_graph, p.cull_long_edges, p.cull_factor, &e, err,
				   sizeof err)) {
			printf("graph: %s\n", err);
			return 1;
		}
		fs_scale_region_mark_boundary(&reg, &det.tubercles, reg.cell);
		end(S_GRAPH, r);
		fs_stats s;
		begin();
		if (fs_stats_compute(&det.tubercles, &e, 1.0, NULL, 10000, 10000, &s)) {
			printf("statistics: out of memory\n");
			return 1;
		}
		end(S_STATS, r);
		fs_buf b = FS_BUF_INIT;
		begin();
		int crc = fs_csv_tubercles(&b, &det.tubercles, 1.0);
		end(S_CSV_T, r);
		size_t csv_t = b.len;
		fs_buf_reset(&b);
		begin();
		crc |= fs_csv_edges(&b, &det.tubercles, &e, 1.0);
		end(S_CSV_E, r);
		size_t csv_e = b.len;
		if (crc) {
			printf("CSV: out of memory\n");
			return 1;
		}
		if (r == 0)
			printf("large image stages: %zu tubercles, %zu edges; CSVs %.1f + %.1f MB\n", det.tubercles.n,
			       e.n, csv_t / 1e6, csv_e / 1e6);
		fs_buf_free(&b);
		fs_edge_list_free(&e);
		fs_detect_result_free(&det);
		fs_scale_region_free(&reg);
	}
	double sw = 0, sc = 0;
	printf("  %-30s %9s %9s %12s   (median of %d)\n", "stage", "wall ms", "cpu ms", "peak RSS MB", runs);
	for (int s = 0; s < S_N; s++) {
		double w = bench_median(st[s].wall, runs), c = bench_median(st[s].cpu, runs);
		if (s != S_WORK && s != S_WRITE) {
			sw += w;
			sc += c;
		}
		printf("  %-30s %9.0f %9.0f %12.0f\n", stage_name[s], w, c, st[s].peak);
	}
	printf("  %-30s %9.0f %9.0f   (the CLI's stages: all but the working image's)\n", "sum", sw, sc);
	unlink(work);
	if (!(given && *given))
		unlink(tif);
	rmdir(dir);
	return 0;
}
