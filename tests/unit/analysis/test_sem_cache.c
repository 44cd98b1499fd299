/*
 * The run's shared scene cache (tests/unit/support/sem_cache.h): a scene
 * read back from it is the scene sem_make renders, bit for bit (image and
 * every truth array); a file that is not the scene's whole file (another
 * scene's, cut short, one byte changed) is never used; scenes that differ
 * in any one option have different files; without SEM_SCENE_CACHE nothing
 * is written. The accuracy tables of the simulator tests rest on this.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sem_cache.h"

static char dir[256];

/* A small scene with every part of the truth: margins, halftone, pairs. */
static void small_scene(sem_opts *o)
{
	sem_defaults(o);
	o->width = 120;
	o->height = 96;
	o->pitch = 16;
	o->halftone = 5;
	o->margin_top = 12;
	o->black_left = 24;
	o->seed = 5;
}

static int same_scene(const fs_image *a, const sem_truth *ta, const fs_image *b, const sem_truth *tb)
{
	if (a->width != b->width || a->height != b->height ||
	    memcmp(a->data, b->data, (size_t)a->width * a->height * sizeof *a->data))
		return 0;
	if (ta->n != tb->n || ta->n_pairs != tb->n_pairs || ta->width != tb->width || ta->height != tb->height)
		return 0;
	const double ra[] = {ta->rx0, ta->ry0, ta->rx1, ta->ry1, ta->pitch};
	const double rb[] = {tb->rx0, tb->ry0, tb->rx1, tb->ry1, tb->pitch};
	size_t n = ta->n, np = ta->n_pairs;
	return !memcmp(ra, rb, sizeof ra) && !memcmp(ta->x, tb->x, n * sizeof *ta->x) &&
	       !memcmp(ta->y, tb->y, n * sizeof *ta->y) && !memcmp(ta->d, tb->d, n * sizeof *ta->d) &&
	       !memcmp(ta->inside, tb->inside, n * sizeof *ta->inside) &&
	       !memcmp(ta->pi, tb->pi, np * sizeof *ta->pi) && !memcmp(ta->pj, tb->pj, np * sizeof *ta->pj) &&
	       !memcmp(ta->space, tb->space, np * sizeof *ta->space);
}

static long file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/fs-sem-cache-test-%d-XXXXXX", (int)getpid());
	if (!mkdtemp(dir))
		return -1;
	return setenv("SEM_SCENE_CACHE", dir, 1);
}

static int teardown(void **state)
{
	(void)state;
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		char p[600];
		while ((e = readdir(d)))
			if (e->d_name[0] != '.') {
				snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
				unlink(p);
			}
		closedir(d);
	}
	rmdir(dir);
	return unsetenv("SEM_SCENE_CACHE");
}

/* The first call renders and stores, the second reads: both equal
 * sem_make's scene. */
static void stored_scene_is_the_rendered_one(void **state)
{
	(void)state;
	sem_opts o;
	small_scene(&o);
	char path[512];
	assert_int_equal(sem_cache_path(dir, &o, path, sizeof path), 0);
	assert_true(file_size(path) < 0);
	sem_truth t0, t1, t2;
	fs_image *a = sem_make(&o, &t0);
	fs_image *b = sem_make_shared(&o, &t1);
	assert_non_null(a);
	assert_non_null(b);
	assert_true(t0.n > 10 && t0.n_pairs > 10);
	long size = file_size(path);
	assert_true(size > (long)(120 * 96 * sizeof(float)));
	fs_image *c = sem_make_shared(&o, &t2);
	assert_non_null(c);
	assert_true(same_scene(a, &t0, b, &t1));
	assert_true(same_scene(a, &t0, c, &t2));
	assert_int_equal(file_size(path), size);
	fs_image_free(a);
	fs_image_free(b);
	fs_image_free(c);
	sem_truth_free(&t0);
	sem_truth_free(&t1);
	sem_truth_free(&t2);
}

/* Writes bytes (n) to path. */
static void write_file(const char *path, const unsigned char *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static unsigned char *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	unsigned char *p = malloc(1 << 22);
	assert_non_null(p);
	*n = fread(p, 1, 1 << 22, f);
	fclose(f);
	assert_true(*n > 0 && *n < (1 << 22));
	return p;
}

/* Another scene's file, a file cut short and one with a byte changed in
 * the image are not read: the scene is rendered again (equal to
 * sem_make's) and its own file written over the bad one. */
static void bad_files_are_never_used(void **state)
{
	(void)state;
	sem_opts o, other;
	small_scene(&o);
	small_scene(&other);
	other.seed = 6;
	char path[512], opath[512];
	assert_int_equal(sem_cache_path(dir, &o, path, sizeof path), 0);
	assert_int_equal(sem_cache_path(dir, &other, opath, sizeof opath), 0);
	sem_truth t0, t1;
	fs_image *ref = sem_make(&o, &t0);
	assert_non_null(ref);
	fs_image *img = sem_make_shared(&other, &t1);
	assert_non_null(img);
	fs_image_free(img);
	sem_truth_free(&t1);
	size_t on = 0, n = 0;
	unsigned char *obytes = read_file(opath, &on);
	img = sem_make_shared(&o, &t1);
	assert_non_null(img);
	fs_image_free(img);
	sem_truth_free(&t1);
	unsigned char *good = read_file(path, &n);
	for (int kind = 0; kind < 3; kind++) {
		if (kind == 0) {
			write_file(path, obytes, on); /* the other scene's */
		} else if (kind == 1) {
			write_file(path, good, n - 9); /* cut short */
		} else {
			unsigned char *p = malloc(n);
			assert_non_null(p);
			memcpy(p, good, n);
			p[n / 2] ^= 0x10; /* a pixel's bit */
			write_file(path, p, n);
			free(p);
		}
		img = sem_make_shared(&o, &t1);
		assert_non_null(img);
		assert_true(same_scene(ref, &t0, img, &t1));
		fs_image_free(img);
		sem_truth_free(&t1);
		size_t n2 = 0;
		unsigned char *again = read_file(path, &n2);
		assert_true(n2 == n && !memcmp(again, good, n));
		free(again);
	}
	free(obytes);
	free(good);
	fs_image_free(ref);
	sem_truth_free(&t0);
}

/* Each option moved on its own gives another file name. */
static void every_option_is_in_the_key(void **state)
{
	(void)state;
	sem_opts base;
	small_scene(&base);
	char p0[512];
	assert_int_equal(sem_cache_path(dir, &base, p0, sizeof p0), 0);
	for (int f = 0; f < 37; f++) {
		sem_opts o = base;
		switch (f) {
		case 0: o.width++; break;
		case 1: o.height++; break;
		case 2: o.pitch += 0.5; break;
		case 3: o.fill += 0.01; break;
		case 4: o.angle += 0.01; break;
		case 5: o.profile += 0.5; break;
		case 6: o.h_over_r += 0.1; break;
		case 7: o.radius_jitter += 0.01; break;
		case 8: o.pos_jitter += 0.01; break;
		case 9: o.missing += 0.01; break;
		case 10: o.undulation += 0.1; break;
		case 11: o.roughness += 0.01; break;
		case 12: o.secant_n += 0.1; break;
		case 13: o.det_azimuth += 0.1; break;
		case 14: o.det_elevation += 0.1; break;
		case 15: o.det_strength += 0.1; break;
		case 16: o.shadow += 0.1; break;
		case 17: o.edge += 0.1; break;
		case 18: o.beam_blur += 0.1; break;
		case 19: o.dose += 1; break;
		case 20: o.bits = 16; break;
		case 21: o.drift += 0.01; break;
		case 22: o.halftone += 0.5; break;
		case 23: o.scan_blur += 0.1; break;
		case 24: o.resample = 0.5; break;
		case 25: o.jpeg_quality = 80; break;
		case 26: o.margin_top++; break;
		case 27: o.black_left++; break;
		case 28: o.seed++; break;
		case 29: o.supersample = 2; break;
		case 30: o.raw = 1; break;
		case 31: o.radius_scale = 1.05; break;
		case 32: o.lean = 0.2; break;
		case 33: o.lean_azimuth = 1; break;
		case 34: o.cap = 0.5; break;
		case 35: o.shift_x = 0.25; break;
		case 36: o.shift_y = -0.25; break;
		}
		char p[512];
		assert_int_equal(sem_cache_path(dir, &o, p, sizeof p), 0);
		assert_string_not_equal(p, p0);
	}
	/* the cap's exponent counts once there is a cap (h37r; without one it
	 * changes no pixel, and the keys before the cap stay as they were) */
	sem_opts c2 = base, c3 = base;
	c2.cap = c3.cap = 0.5;
	c2.cap_power = 2;
	c3.cap_power = 3;
	char q2[512], q3[512];
	assert_int_equal(sem_cache_path(dir, &c2, q2, sizeof q2), 0);
	assert_int_equal(sem_cache_path(dir, &c3, q3, sizeof q3), 0);
	assert_string_not_equal(q2, q3);
}

/* Without SEM_SCENE_CACHE the scene is rendered and nothing is written. */
static void without_the_variable_nothing_is_written(void **state)
{
	(void)state;
	sem_opts o;
	small_scene(&o);
	o.seed = 9;
	char path[512];
	assert_int_equal(sem_cache_path(dir, &o, path, sizeof path), 0);
	assert_int_equal(unsetenv("SEM_SCENE_CACHE"), 0);
	sem_truth t0, t1;
	fs_image *a = sem_make(&o, &t0), *b = sem_make_shared(&o, &t1);
	assert_int_equal(setenv("SEM_SCENE_CACHE", dir, 1), 0);
	assert_true(a && b && same_scene(a, &t0, b, &t1));
	assert_true(file_size(path) < 0);
	fs_image_free(a);
	fs_image_free(b);
	sem_truth_free(&t0);
	sem_truth_free(&t1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stored_scene_is_the_rendered_one),
		cmocka_unit_test(bad_files_are_never_used),
		cmocka_unit_test(every_option_is_in_the_key),
		cmocka_unit_test(without_the_variable_nothing_is_written),
	};
	return cmocka_run_group_tests_name("sem scene cache", tests, setup, teardown);
}
