/* The grey erosion and dilation by a flat disk (disk_filter.c, the top-hat's
 * two halves) against the brute force - every output the extreme of the
 * samples within {dx^2 + dy^2 <= r^2} of it, inside the raster - to the
 * bit:
 * - random rasters of random sizes (1 x 1 up to 64 x 40, narrower and
 *   shorter than the disk, a row or a column alone) at every radius 0..40,
 *   values drawn from a few levels (ties everywhere), from [0, 1), with
 *   negatives and infinities;
 * - the white top-hat (fs_white_tophat) of a synthetic lattice under a
 *   gradient equals the brute force's opening subtracted, at radii 12 and
 *   30;
 * - a raster holding -0 and +0: the outputs equal the brute force's as
 *   values (disk_filter.h: which zero is order's choice).
 * Under the sanitizers (sanitized.h: memory errors, not results) every
 * fourth radius and the top-hat at 12 only: the brute force is most of
 * the cost, and the filter's code paths are the same. CPU: 1.0 s plain,
 * 0.8 s ASan (2.5 s with every radius). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/disk_filter.h"
#include "analysis/preprocess.h"
#include "sanitized.h"
#include "synth.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next_u32(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng >> 33);
}

/* The definition, one output at a time. */
static void brute(const float *in, float *out, int w, int h, int r, int is_max)
{
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			float v = is_max ? -INFINITY : INFINITY;
			for (int dy = -r; dy <= r; dy++)
				for (int dx = -r; dx <= r; dx++) {
					int sx = x + dx, sy = y + dy;
					if (dx * dx + dy * dy > r * r || sx < 0 || sx >= w || sy < 0 || sy >= h)
						continue;
					float s = in[(size_t)sy * w + sx];
					if (is_max ? s > v : s < v)
						v = s;
				}
			out[(size_t)y * w + x] = v;
		}
}

/* kind 0: eight levels (many equal extremes), 1: uniform [0, 1), 2: signed
 * with infinities. Never NaN, never -0. */
static void fill(float *v, size_t n, int kind)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t u = next_u32();
		if (kind == 0)
			v[i] = (float)(int)(u % 8u) * 0.125f;
		else if (kind == 1)
			v[i] = (float)(u >> 8) / 16777216.0f;
		else if (u % 17u == 0)
			v[i] = (u & 64u) ? INFINITY : -INFINITY;
		else
			v[i] = ((float)(u >> 8) - 8388608.0f) / 1024.0f;
	}
}

static void check_case(int w, int h, int r, int kind)
{
	size_t n = (size_t)w * h;
	float *in = malloc(n * sizeof *in), *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
	assert_non_null(in);
	assert_non_null(got);
	assert_non_null(want);
	fill(in, n, kind);
	for (int is_max = 0; is_max <= 1; is_max++) {
		assert_int_equal(fs_disk_filter(in, got, w, h, r, is_max), 0);
		brute(in, want, w, h, r, is_max);
		if (memcmp(got, want, n * sizeof *got)) {
			for (size_t i = 0; i < n; i++)
				if (memcmp(&got[i], &want[i], sizeof *got))
					fail_msg("%s %dx%d r=%d kind %d: (%zu, %zu) is %.9g, the brute force's %.9g",
						 is_max ? "dilation" : "erosion", w, h, r, kind, i % (size_t)w,
						 i / (size_t)w, got[i], want[i]);
		}
	}
	free(in);
	free(got);
	free(want);
}

static void equals_the_brute_force_at_every_radius(void **state)
{
	(void)state;
	for (int r = 0; r <= 40; r += fs_test_subset() ? 4 : 1) {
		/* smaller than the disk (down to one sample), then wider than it */
		int sw = 1 + (int)(next_u32() % (unsigned)(2 * r + 2)), sh = 1 + (int)(next_u32() % (unsigned)(2 * r + 2));
		check_case(sw > 64 ? 64 : sw, sh > 40 ? 40 : sh, r, r % 3);
		check_case(24 + (int)(next_u32() % 41u), 12 + (int)(next_u32() % 29u), r, (r + 1) % 3);
	}
	/* a row alone and a column alone */
	check_case(64, 1, 7, 1);
	check_case(1, 40, 7, 2);
}

static void tophat_equals_the_brute_force_opening(void **state)
{
	(void)state;
	synth_opts o;
	synth_truth t;
	synth_defaults(&o);
	o.width = 96;
	o.height = 72;
	o.pitch = 14;
	o.gradient = 0.5;
	o.noise = 0.03;
	fs_image *img = synth_make(&o, &t);
	assert_non_null(img);
	synth_truth_free(&t);
	size_t n = (size_t)img->width * img->height;
	float *ero = malloc(n * sizeof *ero), *open = malloc(n * sizeof *open);
	assert_non_null(ero);
	assert_non_null(open);
	static const int radii[] = {12, 30};
	for (size_t k = 0; k < (fs_test_subset() ? 1 : 2); k++) {
		char err[256];
		fs_image *th = fs_image_clone(img);
		assert_non_null(th);
		assert_int_equal(fs_white_tophat(th, radii[k], err, sizeof err), 0);
		brute(img->data, ero, img->width, img->height, radii[k], 0);
		brute(ero, open, img->width, img->height, radii[k], 1);
		for (size_t i = 0; i < n; i++) {
			float want = img->data[i] - open[i];
			if (memcmp(&th->data[i], &want, sizeof want))
				fail_msg("top-hat r=%d at %zu: %.9g, the brute force's %.9g", radii[k], i, th->data[i],
					 want);
		}
		fs_image_free(th);
	}
	free(ero);
	free(open);
	fs_image_free(img);
}

static void signed_zeros_give_the_same_values(void **state)
{
	(void)state;
	enum { W = 23, H = 17 };
	float in[W * H], got[W * H], want[W * H];
	for (int i = 0; i < W * H; i++) {
		uint32_t u = next_u32() % 5u;
		in[i] = u == 0 ? -0.0f : u == 1 ? 0.0f : u == 2 ? 0.5f : u == 3 ? -0.5f : 0.25f;
	}
	for (int is_max = 0; is_max <= 1; is_max++)
		for (int r = 1; r <= 9; r += 4) {
			assert_int_equal(fs_disk_filter(in, got, W, H, r, is_max), 0);
			brute(in, want, W, H, r, is_max);
			for (int i = 0; i < W * H; i++)
				if (!(got[i] == want[i]))
					fail_msg("r=%d is_max %d at %d: %g, the brute force's %g", r, is_max, i, got[i],
						 want[i]);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(equals_the_brute_force_at_every_radius),
		cmocka_unit_test(tophat_equals_the_brute_force_opening),
		cmocka_unit_test(signed_zeros_give_the_same_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
