/* The detection's preprocessing with bounded temporaries (issue 15 item 2,
 * preprocess_tiled.c and the row-by-row CLAHE of preprocess.c), on a
 * fine-pitch synthetic SEM image (pitch 14 px: preprocessed at full
 * resolution):
 * - CLAHE made row by row equals, to the last bit, CLAHE made the direct
 *   way (every sample binned, every tile's LUT, then the interpolation),
 *   with tiles that do not divide the image and the smallest tile;
 * - the top-hat tile by tile (3 x 3 tiles and more, tiles smaller than the
 *   overlap, one and two threads, a compact 8-bit source) equals the
 *   whole-image top-hat to the last bit;
 * - the whole preprocessing with the tiling on equals the whole-image path
 *   to the last bit;
 * - its memory: the resident size the tiled preprocessing adds is about
 *   its output, not the output plus three full-size top-hat temporaries
 *   (measured in a child process; not under the address sanitizer, whose
 *   quarantine keeps freed blocks resident). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/detect.h"
#include "analysis/detect_candidates.h"
#include "analysis/preprocess.h"
#include "analysis/preprocess_tiled.h"
#include "synth.h"

static char err[256];

/* A fine-pitch lattice with uneven illumination (what the top-hat and
 * CLAHE are for), 8-bit quantised. */
static fs_image *fine_image(int w, int h)
{
	synth_opts o;
	synth_truth t;
	synth_defaults(&o);
	o.width = w;
	o.height = h;
	o.pitch = 14;
	o.angle = 0.3;
	o.jitter = 0.5;
	o.gradient = 0.5;
	o.noise = 0.03;
	fs_image *img = synth_make(&o, &t);
	assert_non_null(img);
	synth_truth_free(&t);
	return img;
}

static int same_bits(const fs_image *a, const fs_image *b)
{
	return a->width == b->width && a->height == b->height &&
	       memcmp(a->data, b->data, (size_t)a->width * a->height * sizeof(float)) == 0;
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* CLAHE the direct way, as the whole-image implementation did before it
 * was made row by row: the reference the streamed one must equal. */
static void clahe_reference(fs_image *img, double clip, int tile)
{
	int w = img->width, h = img->height;
	int ntx = (w + tile - 1) / tile, nty = (h + tile - 1) / tile;
	size_t n = (size_t)w * h;
	float *lut = malloc((size_t)ntx * nty * 256 * sizeof *lut);
	unsigned char *bin = malloc(n);
	assert_non_null(lut);
	assert_non_null(bin);
	fs_normalize(img);
	for (size_t i = 0; i < n; i++)
		bin[i] = (unsigned char)clampi((int)(img->data[i] * 255 + 0.5f), 0, 255);
	for (int ty = 0; ty < nty; ty++)
		for (int tx = 0; tx < ntx; tx++) {
			int hist[256] = {0};
			int y0 = ty * tile, y1 = y0 + tile < h ? y0 + tile : h;
			int x0 = tx * tile, x1 = x0 + tile < w ? x0 + tile : w;
			int count = (y1 - y0) * (x1 - x0);
			for (int y = y0; y < y1; y++)
				for (int x = x0; x < x1; x++)
					hist[bin[(size_t)y * w + x]]++;
			int limit = (int)(clip * count);
			limit = limit < 1 ? 1 : limit;
			long excess = 0;
			for (int b = 0; b < 256; b++)
				if (hist[b] > limit) {
					excess += hist[b] - limit;
					hist[b] = limit;
				}
			long add = excess / 256, rem = excess % 256, cum = 0;
			float *l = lut + ((size_t)ty * ntx + tx) * 256;
			for (int b = 0; b < 256; b++) {
				cum += hist[b] + add + (b < rem);
				l[b] = (float)cum / (float)count;
			}
		}
	for (int y = 0; y < h; y++) {
		double fy = (y + 0.5) / tile - 0.5;
		int ty0 = (int)floor(fy);
		float ay = (float)(fy - ty0);
		const float *la = lut + (size_t)clampi(ty0, 0, nty - 1) * ntx * 256;
		const float *lb = lut + (size_t)clampi(ty0 + 1, 0, nty - 1) * ntx * 256;
		for (int x = 0; x < w; x++) {
			double fx = (x + 0.5) / tile - 0.5;
			int tx0 = (int)floor(fx);
			float ax = (float)(fx - tx0);
			int l0 = clampi(tx0, 0, ntx - 1) * 256, l1 = clampi(tx0 + 1, 0, ntx - 1) * 256;
			int b = bin[(size_t)y * w + x];
			float top = la[l0 + b] + ax * (la[l1 + b] - la[l0 + b]);
			float bot = lb[l0 + b] + ax * (lb[l1 + b] - lb[l0 + b]);
			img->data[(size_t)y * w + x] = top + ay * (bot - top);
		}
	}
	fs_normalize(img);
	free(lut);
	free(bin);
}

static void clahe_row_by_row_equals_direct(void **state)
{
	(void)state;
	fs_image *src = fine_image(301, 257);
	/* 42 = 3 pitches (what detect.c uses), 37 divides neither side, 2 is
	 * the smallest tile, 400 is larger than the image */
	const int tiles[] = {42, 37, 2, 400};
	const double clips[] = {0.03, 0.2, 1.0};
	for (size_t ti = 0; ti < sizeof tiles / sizeof *tiles; ti++)
		for (size_t ci = 0; ci < sizeof clips / sizeof *clips; ci++) {
			fs_image *a = fs_image_clone(src), *b = fs_image_clone(src);
			assert_int_equal(fs_clahe(a, clips[ci], tiles[ti], err, sizeof err), 0);
			clahe_reference(b, clips[ci], tiles[ti]);
			assert_true(same_bits(a, b));
			fs_image_free(a);
			fs_image_free(b);
		}
	fs_image_free(src);
}

/* The 8-bit compact copy of a quantised float image. */
static fs_image *compact_of(const fs_image *f)
{
	fs_image *c = fs_image_new_compact(f->width, f->height, 8);
	assert_non_null(c);
	unsigned char *px = c->px;
	for (size_t i = 0; i < (size_t)f->width * f->height; i++) {
		float v = f->data[i];
		px[i] = (unsigned char)(v <= 0 ? 0 : v >= 1 ? 255 : (int)lrintf(v * 255));
	}
	return c;
}

static void tophat_tiles_equal_whole(void **state)
{
	(void)state;
	fs_image *src = fine_image(530, 470);
	fs_image *comp = compact_of(src);
	fs_image *comp_f = fs_image_to_float(comp);
	const int radii[] = {5, 12};
	/* 4 x 3 tiles and more; 16 is smaller than the overlap of 2 radii */
	const int tiles[] = {160, 64, 16};
	for (size_t ri = 0; ri < 2; ri++) {
		for (int c = 0; c < 2; c++) {
			const fs_image *in = c ? comp : src;
			fs_image *whole = fs_image_clone(c ? comp_f : src);
			assert_int_equal(fs_white_tophat(whole, radii[ri], err, sizeof err), 0);
			for (size_t ti = 0; ti < 3; ti++)
				for (int th = 1; th <= 2; th++) {
					fs_image *t = fs_image_new(src->width, src->height);
					assert_int_equal(fs_white_tophat_tiled(in, t, radii[ri], tiles[ti], th, err,
									       sizeof err),
							 0);
					assert_true(same_bits(t, whole));
					fs_image_free(t);
				}
			fs_image_free(whole);
		}
	}
	/* radius 0: the float conversion */
	fs_image *t = fs_image_new(src->width, src->height);
	assert_int_equal(fs_white_tophat_tiled(comp, t, 0, 160, 1, err, sizeof err), 0);
	assert_true(same_bits(t, comp_f));
	/* a destination of another size is refused */
	fs_image *small = fs_image_new(10, 10);
	assert_int_equal(fs_white_tophat_tiled(src, small, 5, 160, 1, err, sizeof err), -1);
	assert_int_equal(fs_white_tophat_tiled(src, t, -1, 160, 1, err, sizeof err), -1);
	fs_image_free(small);
	fs_image_free(t);
	fs_image_free(comp_f);
	fs_image_free(comp);
	fs_image_free(src);
}

/* The detection's whole preprocessing (top-hat, CLAHE on the 3-pitch grid,
 * blur, normalisation) with the tiling on and off. */
static void preprocessing_tiled_equals_whole(void **state)
{
	(void)state;
	fs_image *src = fine_image(530, 470);
	fs_image *comp = compact_of(src);
	fs_params p;
	fs_params_default(&p);
	const int radii[] = {0, 6};
	for (int ri = 0; ri < 2; ri++) {
		p.tophat_radius = radii[ri];
		for (int c = 0; c < 2; c++) {
			const fs_image *in = c ? comp : src;
			fs_image *whole = NULL, *tiled = NULL;
			fs_detect_set_tiling(0, 1);
			assert_int_equal(fs_det_preprocess(in, &p, 42, &whole, err, sizeof err), 0);
			fs_detect_set_tiling(128, 2);
			assert_int_equal(fs_det_preprocess(in, &p, 42, &tiled, err, sizeof err), 0);
			assert_true(same_bits(whole, tiled));
			/* and it did something: stretched to [0, 1] */
			float lo = 1, hi = 0;
			for (size_t i = 0; i < (size_t)src->width * src->height; i++) {
				lo = fminf(lo, tiled->data[i]);
				hi = fmaxf(hi, tiled->data[i]);
			}
			assert_true(lo == 0.0f && hi == 1.0f);
			fs_image_free(whole);
			fs_image_free(tiled);
		}
	}
	fs_detect_set_tiling(FS_DETECT_TILE_DEFAULT, 1);
	fs_image_free(comp);
	fs_image_free(src);
}

#if defined(__SANITIZE_ADDRESS__)
#define FS_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FS_UNDER_ASAN 1
#endif
#endif

#ifndef FS_UNDER_ASAN
/* Resident kB now (VmRSS). */
static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* In a child: the peak resident size the preprocessing of in adds, in kB
 * (the child's high-water mark starts at its size at the fork). */
static long preprocess_growth_kb(const fs_image *in, const fs_params *p, int tile)
{
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fd[0]);
		long before = rss_kb();
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		long base = ru.ru_maxrss > before ? ru.ru_maxrss : before;
		fs_image *out = NULL;
		fs_detect_set_tiling(tile, 1);
		long grew = -1;
		if (fs_det_preprocess(in, p, 42, &out, err, sizeof err) == 0 && getrusage(RUSAGE_SELF, &ru) == 0)
			grew = ru.ru_maxrss - base;
		fs_image_free(out);
		ssize_t wr = write(fd[1], &grew, sizeof grew);
		_exit(wr == sizeof grew ? 0 : 1);
	}
	close(fd[1]);
	long grew = -1;
	assert_int_equal(read(fd[0], &grew, sizeof grew), sizeof grew);
	close(fd[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return grew;
}
#endif

static void preprocessing_memory_is_its_output(void **state)
{
	(void)state;
#ifdef FS_UNDER_ASAN
	skip();
#else
	/* 3000 x 3000, 8-bit compact (9 MB), a fine lattice made directly
	 * (the simulator would take long at this size): a 36 MB float output */
	int w = 3000, h = 3000;
	fs_image *img = fs_image_new_compact(w, h, 8);
	assert_non_null(img);
	unsigned char *px = img->px;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			double v = 0.4 + 0.1 * x / w + 0.2 * cos(2 * M_PI * x / 14.0) * cos(2 * M_PI * y / 14.0);
			px[(size_t)y * w + x] = (unsigned char)lrint(255 * v);
		}
	fs_params p;
	fs_params_default(&p);
	p.tophat_radius = 6;
	long out_kb = (long)w * h * 4 / 1024;
	long tiled = preprocess_growth_kb(img, &p, 256);
	print_message("preprocessing 3000 x 3000 with the top-hat: peak growth %ld kB tiled (256 px), "
		      "output %ld kB\n",
		      tiled, out_kb);
	/* the output is written in full, so it shows; the tiles' temporaries
	 * (four floats crops of 280 x 280 px) and CLAHE's rows add little;
	 * the whole-image top-hat's three full-size temporaries would add 3 x */
	assert_true(tiled >= out_kb * 9 / 10);
	assert_true(tiled < out_kb * 13 / 10);
	fs_image_free(img);
	fs_detect_set_tiling(FS_DETECT_TILE_DEFAULT, 1);
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clahe_row_by_row_equals_direct),
		cmocka_unit_test(tophat_tiles_equal_whole),
		cmocka_unit_test(preprocessing_tiled_equals_whole),
		cmocka_unit_test(preprocessing_memory_is_its_output),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
