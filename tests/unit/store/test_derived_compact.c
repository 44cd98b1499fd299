/*
 * The derived files of a compact image (issue 15 item 1): the import job
 * and the transform jobs now hand fs_files_store_derived the working image
 * in its 8 or 16 bits instead of a float copy. Every file must be the same
 * bytes as from the float image: the working image, the display PNG (or
 * the overview of a tiled image), the thumbnail and every pyramid tile,
 * here with the pyramid forced by a small minimum side (a paper figure of
 * 660 x 580 px then has 3 x 3 tiles at full size) and without one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <cmocka.h>

#include "fixture_image.h"
#include "image/image.h"
#include "store/image_files.h"
#include "store/pyramid.h"
#include "testimg_write.h"

#define PAPER "tests/fixtures/paper/P1_Fig1_Lepidotes_elvensis_4.78um.tif"
#define KEY "5a1e0c6b2f3d4e5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c"

typedef struct dirs {
	char a[128], b[128];
} dirs;

static int setup(void **state)
{
	dirs *d = calloc(1, sizeof *d);
	if (!d || fs_testimg_tmpdir(d->a, sizeof d->a) || fs_testimg_tmpdir(d->b, sizeof d->b))
		return -1;
	char err[128];
	if (fs_files_ensure_dirs(d->a, err, sizeof err) || fs_files_ensure_dirs(d->b, err, sizeof err))
		return -1;
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	dirs *d = *state;
	fs_files_remove_derived(d->a, KEY);
	fs_files_remove_derived(d->b, KEY);
	fs_testimg_rmdir(d->a);
	fs_testimg_rmdir(d->b);
	free(d);
	return 0;
}

static void same_file(const char *pa, const char *pb)
{
	unsigned char *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;
	if (fs_testimg_read(pa, &a, &la) || fs_testimg_read(pb, &b, &lb))
		fail_msg("cannot read %s or %s", pa, pb);
	assert_true(la > 0);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	free(a);
	free(b);
}

/* The tiles of both pyramids: the same names, the same bytes; their count. */
static int same_pyramids(const dirs *d)
{
	char pa[512], pb[512];
	snprintf(pa, sizeof pa, "%s/pyramid/%s", d->a, KEY);
	DIR *dir = opendir(pa);
	assert_non_null(dir);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(pa, sizeof pa, "%s/pyramid/%s/%s", d->a, KEY, e->d_name);
		snprintf(pb, sizeof pb, "%s/pyramid/%s/%s", d->b, KEY, e->d_name);
		same_file(pa, pb);
		n++;
	}
	closedir(dir);
	return n;
}

/* Stores c (compact) into b and its float copy into a, compares every
 * file; returns the number of pyramid tiles (0: none). */
static int derived_equal(const dirs *d, const fs_image *c)
{
	char err[256], pa[512], pb[512];
	fs_image *f = fs_image_to_float(c);
	assert_non_null(f);
	int made_a = 0, made_b = 0;
	assert_int_equal(fs_files_store_derived(d->a, KEY, f, 0, &made_a, err, sizeof err), 0);
	assert_int_equal(fs_files_store_derived(d->b, KEY, c, 0, &made_b, err, sizeof err), 0);
	assert_int_equal(made_a, made_b);
	for (int kind = FS_FILE_WORK; kind <= FS_FILE_THUMB; kind++) {
		assert_int_equal(fs_file_path(d->a, kind, KEY, pa, sizeof pa), 0);
		assert_int_equal(fs_file_path(d->b, kind, KEY, pb, sizeof pb), 0);
		same_file(pa, pb);
	}
	int tiles = 0;
	assert_int_equal(fs_pyramid_exists(d->a, KEY), fs_pyramid_exists(d->b, KEY));
	if (fs_pyramid_exists(d->a, KEY))
		tiles = same_pyramids(d);
	assert_true(fs_files_have_derived(d->b, KEY));
	fs_files_remove_derived(d->a, KEY);
	fs_files_remove_derived(d->b, KEY);
	fs_image_free(f);
	return tiles;
}

static void paper_figure_tiled_and_not(void **state)
{
	dirs *d = *state;
	fs_image *c = fixture_image_8bit(PAPER);
	assert_non_null(c);
	int old = fs_pyramid_min_side();
	fs_pyramid_set_min_side(256);
	/* levels: 3 x 3 tiles at full size, 2 x 2, then one */
	assert_int_equal(derived_equal(d, c), 9 + 4 + 1);
	fs_pyramid_set_min_side(FS_TILE_MIN_SIDE_DEFAULT);
	assert_int_equal(derived_equal(d, c), 0);
	fs_pyramid_set_min_side(old);
	fs_image_free(c);
}

/* 16 bits: every code's display byte, on 3 x 4 tiles at full size with
 * an odd width and height (the last tiles and the halvings' odd rows) */
static void sixteen_bit_tiled(void **state)
{
	dirs *d = *state;
	const int w = 700, h = 901;
	fs_image *c = fs_image_new_compact(w, h, 16);
	assert_non_null(c);
	unsigned short *px = c->px;
	uint32_t r = 99;
	for (size_t i = 0; i < (size_t)w * h; i++) {
		r = r * 1664525u + 1013904223u;
		px[i] = (unsigned short)(i < 65536 ? i : r >> 16);
	}
	int old = fs_pyramid_min_side();
	fs_pyramid_set_min_side(256);
	/* 3 x 4 tiles, then 350 x 451 in 2 x 2, then 175 x 226 in one */
	assert_int_equal(derived_equal(d, c), 12 + 4 + 1);
	fs_pyramid_set_min_side(old);
	fs_image_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(paper_figure_tiled_and_not, setup, teardown),
		cmocka_unit_test_setup_teardown(sixteen_bit_tiled, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
