/*
 * bench_tophat.c - speed of the white top-hat (fs_white_tophat: a grey
 * erosion and a dilation by a flat disk, preprocess.c), one thread, on the
 * detection benchmarks' 2048 x 1536 lattice and on a 640 x 480 crop of it,
 * at the radii the product and the tests use: 12 (the low-contrast
 * profile), 30, and 60 (the local optimiser's worst start in
 * test_agent_local_search). Prints, per case, the median and the minimum
 * of FS_BENCH_RUNS runs (default 5) in CPU and wall milliseconds and the
 * CPU nanoseconds per pixel; asserts nothing. Also prints a fingerprint of
 * every output (FNV-1a of the floats' bits), so two builds can be compared
 * for the same bits as well as for speed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/preprocess.h"
#include "bench_support.h"

static uint64_t fnv(const float *v, size_t n, uint64_t h)
{
	const unsigned char *b = (const unsigned char *)v;
	for (size_t i = 0; i < n * sizeof *v; i++) {
		h ^= b[i];
		h *= 1099511628211ull;
	}
	return h;
}

static fs_image *crop(const fs_image *img, int w, int h)
{
	fs_image *c = fs_image_new(w, h);
	if (!c)
		return NULL;
	for (int y = 0; y < h; y++)
		memcpy(c->data + (size_t)y * w, img->data + (size_t)y * img->width, (size_t)w * sizeof(float));
	return c;
}

int main(void)
{
	enum { MAXRUNS = 9 };
	static const int radii[] = {12, 30, 60};
	int runs = bench_runs(5);
	synth_opts o;
	synth_truth t;
	bench_detect_lattice(&o);
	fs_image *full = synth_make(&o, &t);
	if (!full) {
		printf("synthetic image: out of memory\n");
		return 1;
	}
	synth_truth_free(&t);
	fs_image *small = crop(full, 640, 480);
	const fs_image *src[2] = {small, full};
	uint64_t all = 1469598103934665603ull;
	printf("white top-hat, one thread (median of %d runs; min)\n", runs);
	for (int s = 0; s < 2; s++) {
		for (size_t k = 0; k < sizeof radii / sizeof radii[0]; k++) {
			double cpu[MAXRUNS], wall[MAXRUNS];
			uint64_t fp = 0;
			for (int r = 0; r < runs; r++) {
				char err[256];
				fs_image *img = crop(src[s], src[s]->width, src[s]->height);
				if (!img) {
					printf("out of memory\n");
					return 1;
				}
				double t0 = bench_now_ms(), c0 = bench_cpu_ms();
				int rc = fs_white_tophat(img, radii[k], err, sizeof err);
				wall[r] = bench_now_ms() - t0;
				cpu[r] = bench_cpu_ms() - c0;
				if (rc) {
					printf("top-hat failed: %s\n", err);
					return 1;
				}
				size_t n = (size_t)img->width * img->height;
				fp = fnv(img->data, n, 1469598103934665603ull);
				fs_image_free(img);
			}
			double mc = bench_median(cpu, runs), mn = cpu[0];
			for (int r = 1; r < runs; r++)
				mn = cpu[r] < mn ? cpu[r] : mn;
			double px = (double)src[s]->width * src[s]->height;
			printf("top-hat %dx%d r=%d: cpu %.1f ms (min %.1f), wall %.1f ms, %.1f ns/px; fingerprint %016llx\n",
			       src[s]->width, src[s]->height, radii[k], mc, mn, bench_median(wall, runs), mc * 1e6 / px,
			       (unsigned long long)fp);
			all = (all ^ fp) * 1099511628211ull;
		}
	}
	printf("fingerprint of all: %016llx\n", (unsigned long long)all);
	fs_image_free(small);
	fs_image_free(full);
	return 0;
}
