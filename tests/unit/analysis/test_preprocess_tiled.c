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
 * - auto's candidates and lattice's recovery searches made tile by tile
 *   from the preprocessing's plan (no full-size response) equal those of
 *   the whole preprocessed image to the last bit, and the whole detection
 *   at that pitch adds far less than the whole-image path's response;
 * - its memory: the resident size the tiled preprocessing adds is about
 *   its output, not the output plus three full-size top-hat temporaries
 *   (measured in a child process; not under the address sanitizer, whose
 *   quarantine keeps freed blocks resident). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/detect.h"
#include "analysis/detect_cand_tiled.h"
#include "analysis/detect_candidates.h"
#include "analysis/detect_methods.h"
#include "analysis/detect_pre_region.h"
#include "analysis/preprocess.h"
#include "analysis/preprocess_tiled.h"
#include "sanitized.h"
#include "synth.h"

static char err[256];

/* The tiled passes compared with the whole image: in one and in two
 * threads; under the address sanitizer (memory errors, not results) in two
 * only (sanitized.h), since one thread runs the same tiles' code in the
 * caller. */
#define FIRST_THREADS (fs_test_subset() ? 2 : 1)

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
				for (int th = FIRST_THREADS; th <= 2; th++) {
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
/* A kB line of /proc/self/status (VmRSS: resident now; VmHWM: its peak). */
static long status_kb(const char *fmt)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, fmt, &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static long rss_kb(void)
{
	return status_kb("VmRSS: %ld");
}

static long hwm_kb(void)
{
	return status_kb("VmHWM: %ld");
}

/* In a child: the peak resident size the preprocessing of in adds, in kB
 * (the child's high-water mark starts at its size at the fork); with
 * detect, the whole detection's (fs_detect_all), and *n its count. */
static long growth_kb(const fs_image *in, const fs_params *p, int tile, int detect, size_t *n)
{
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fd[0]);
		/* The heap's free blocks (earlier tests') would be reused
		 * without showing: give them back first; then the high-water
		 * mark restarts from here (clear_refs 5), or, where that is not
		 * allowed, the growth is counted from the inherited one. */
		malloc_trim(0);
		FILE *cr = fopen("/proc/self/clear_refs", "w");
		int reset = cr && fputs("5", cr) >= 0;
		if (cr && fclose(cr))
			reset = 0;
		long before = rss_kb();
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		long base = reset ? before : ru.ru_maxrss > before ? ru.ru_maxrss : before;
		fs_image *out = NULL;
		fs_detect_set_tiling(tile, 1);
		long grew[2] = {-1, 0};
		fs_detect_result r = {0};
		int rc = detect ? fs_detect_all(in, p, 0, &r, err, sizeof err)
				: fs_det_preprocess(in, p, 42, &out, err, sizeof err);
		if (rc == 0 && reset)
			grew[0] = hwm_kb() - base;
		else if (rc == 0 && getrusage(RUSAGE_SELF, &ru) == 0)
			grew[0] = ru.ru_maxrss - base;
		grew[1] = (long)r.tubercles.n;
		fs_detect_result_free(&r);
		fs_image_free(out);
		ssize_t wr = write(fd[1], grew, sizeof grew);
		_exit(wr == sizeof grew ? 0 : 1);
	}
	close(fd[1]);
	long got[2] = {-1, 0};
	assert_int_equal(read(fd[0], got, sizeof got), sizeof got);
	close(fd[0]);
	long grew = got[0];
	if (n)
		*n = (size_t)got[1];
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return grew;
}
#endif

/* Auto's candidates at pitch 14 from the whole preprocessed image (tile 0)
 * and tile by tile from the plan (detect_cand_tiled.h): tiles of 150 and
 * 200 px (4 x 4 and 3 x 3: the CLAHE grid of 42 px and the response's and
 * rays' overlap cross every tile border) and of 40 px (narrower than the
 * overlap), one and two threads (the plan's passes over the stretches
 * too), the top-hat off and on. */
static void candidates_tiled_equal_whole(void **state)
{
	(void)state;
	fs_image *img = fine_image(600, 560);
	fs_params p;
	fs_params_default(&p);
	const double pitch = 14;
	const int tiles[] = {150, 200, 40};
	for (int th = 0; th < 2; th++) {
		p.tophat_radius = th ? 6 : 0;
		fs_detect_set_tiling(0, 1);
		fs_image *pre = NULL, *resp = NULL;
		fs_cand_list whole = {0};
		assert_int_equal(fs_det_preprocess(img, &p, 42, &pre, err, sizeof err), 0);
		assert_int_equal(fs_detect_auto_candidates(&pre, NULL, 1, &p, pitch, 0, &whole, &resp, err, sizeof err),
				 0);
		assert_null(pre);
		assert_true(whole.n > 1400);
		/* lattice's recovery searches: every 7th px and between pixels,
		 * the image's border and corners included */
		size_t nq = 0;
		fs_lattice_probe q[2000], qt[2000];
		for (double y = 0.3; y < img->height - 0.5 && nq < 2000; y += 7.1)
			for (double x = 0.4; x < img->width - 0.5 && nq < 2000; x += 7.7)
				q[nq] = (fs_lattice_probe){.key = (long)nq, .sx = x, .sy = y}, nq++;
		memcpy(qt, q, sizeof q);
		int R = (int)(0.25 * pitch) + 1;
		fs_lattice_probe_crop(resp, 0, 0, img->width, img->height, R, 0.6 * pitch, q, nq);
#ifdef FS_UNDER_ASAN
		const size_t ntiles = 1; /* the sanitizers make each plan 20x slower */
#else
		const size_t ntiles = sizeof tiles / sizeof *tiles;
#endif
		for (size_t k = 0; k < ntiles; k++) {
			for (int threads = FIRST_THREADS; threads <= 2; threads++) {
				fs_pre_plan plan;
				assert_int_equal(fs_pre_plan_make(&plan, img, &p, 42, tiles[k], threads, err, sizeof err), 0);
				fs_det_source src = {.plan = &plan, .tile = tiles[k], .threads = threads,
						     .width = img->width, .height = img->height};
				fs_cand_list c = {0};
				assert_int_equal(fs_detect_auto_candidates(&pre, &src, 1, &p, pitch, 0, &c, NULL, err,
									   sizeof err),
						 0);
				assert_int_equal(c.n, whole.n);
				for (size_t i = 0; i < c.n; i++) {
					assert_true(c.items[i].x == whole.items[i].x);
					assert_true(c.items[i].y == whole.items[i].y);
					assert_true(c.items[i].response == whole.items[i].response);
					assert_true(c.items[i].r == whole.items[i].r);
				}
				fs_cand_free(&c);
				fs_lattice_probe t[2000];
				memcpy(t, qt, sizeof t);
				assert_int_equal(fs_lattice_probe_tiled(&src, p.auto_smoothing * pitch, R, 0.6 * pitch, t,
									nq, err, sizeof err),
						 0);
				for (size_t i = 0; i < nq; i++) {
					assert_int_equal(t[i].key, q[i].key);
					assert_true(t[i].bx == q[i].bx && t[i].by == q[i].by);
					assert_true(t[i].prom == q[i].prom);
				}
			}
		}
		fs_cand_free(&whole);
		fs_image_free(resp);
	}
	fs_image_free(img);
	fs_detect_set_tiling(FS_DETECT_TILE_DEFAULT, 1);
}

/* A w x h 8-bit compact image of a pitch-14 lattice under a left-to-right
 * gradient, made directly (the simulator would take long at this size):
 * cosine bumps and dips around the surface, or (raised) bumps only. */
#ifndef FS_UNDER_ASAN
static fs_image *big_lattice(int w, int h, int raised)
{
	fs_image *img = fs_image_new_compact(w, h, 8);
	assert_non_null(img);
	unsigned char *px = img->px;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			double cx = cos(2 * M_PI * x / 14.0), cy = cos(2 * M_PI * y / 14.0);
			double v = 0.4 + 0.1 * x / w + (raised ? 0.2 * (1 + cx) * (1 + cy) / 4 : 0.2 * cx * cy);
			px[(size_t)y * w + x] = (unsigned char)lrint(255 * v);
		}
	return img;
}
#endif

static void preprocessing_memory_is_its_output(void **state)
{
	(void)state;
#ifdef FS_UNDER_ASAN
	skip();
#else
	/* 3000 x 3000, 8-bit compact (9 MB): a 36 MB float output */
	int w = 3000, h = 3000;
	fs_image *img = big_lattice(w, h, 0);
	fs_params p;
	fs_params_default(&p);
	p.tophat_radius = 6;
	long out_kb = (long)w * h * 4 / 1024;
	long tiled = growth_kb(img, &p, 256, 0, NULL);
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

/* The whole detection at a pitch below 20 px (auto: the candidate step at
 * full resolution): with the tiling on, no full-size float image at all, so it
 * grows by far less than the whole-image path (tile 0), whose preprocessed
 * response alone is as large as the float image; both find the same
 * lattice's tubercles. */
static void fine_pitch_detection_has_no_full_size_image(void **state)
{
	(void)state;
#ifdef FS_UNDER_ASAN
	skip();
#else
	int w = 3000, h = 3000;
	fs_image *img = big_lattice(w, h, 1);
	fs_params p;
	fs_params_default(&p);
	long float_kb = (long)w * h * 4 / 1024;
	size_t n_tiled = 0, n_whole = 0;
	long tiled = growth_kb(img, &p, 256, 1, &n_tiled);
	long whole = growth_kb(img, &p, 0, 1, &n_whole);
	print_message("detection 3000 x 3000 at pitch 14: peak growth %ld kB tiled (256 px), %ld kB whole; "
		      "a float image %ld kB; %zu tubercles\n",
		      tiled, whole, float_kb, n_tiled);
	/* bright at (14 i, 14 j) only: a square lattice of pitch 14 px,
	 * below the 20 px from which the detection reduces the image */
	assert_true(n_tiled > (size_t)(w / 14 - 4) * (h / 14 - 4));
	assert_int_equal(n_tiled, n_whole);
	assert_true(tiled > 0);
	/* the tubercles' records and the tiles' crops only; a full-size
	 * response (the float image's size) would not fit */
	assert_true(tiled < float_kb / 2);
	assert_true(tiled + float_kb < whole);
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
		cmocka_unit_test(candidates_tiled_equal_whole),
		cmocka_unit_test(preprocessing_memory_is_its_output),
		cmocka_unit_test(fine_pitch_detection_has_no_full_size_image),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
