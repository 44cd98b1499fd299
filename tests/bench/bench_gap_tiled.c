/*
 * bench_gap_tiled - the valleys' level under a tight screen whole and tile
 * by tile (detect_base_gap.h, its tiled twin h48k). Asserts nothing
 * (test_detect_domes_tiled's test_tight_screen_gap_read does).
 *
 * Why: the level under a tight screen (the fill-0.8 pitch-16 corner scenes
 * under the 5-px screen) is read from the valleys between neighbouring
 * domes since h48c; the tiled path, which takes images of more than four
 * tiles, read the rays' level until h48k. This shows, on those scenes
 * rendered larger than four tiles, how far the two paths are apart: per
 * scene-seed the dome rule's detection whole (one thread) and on tiles
 * (two threads), how many tubercles differ at all (centre or diameter, to
 * the bit), the largest diameter difference and each path's mean D; with
 * --off the second detection is the whole image's with the valleys'
 * reading off (fs_det_base_set_gap), which is what the tiled path read
 * before h48k.
 *
 * Usage: bench_gap_tiled [--off] [--size WxH] [--tile N] [--seeds A,B,...]
 * [SCENE...] (default 480x400 on 96-px tiles, seeds 0, the six
 * tight-screen corner scenes 11 13 15 27 29 31; SEM_SCENE_CACHE shares
 * the renders).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/detect_base_gap.h"
#include "bench_support.h"
#include "sem_cache.h"
#include "sem_scene.h"

/* mean diameter over the tubercles sized in both a and b */
static void mean_d(const fs_tubercle_list *a, const fs_tubercle_list *b, double *da, double *db)
{
	double sa = 0, sb = 0;
	size_t n = 0;
	for (size_t i = 0; i < a->n && i < b->n; i++)
		if (isfinite(a->items[i].radius_px) && isfinite(b->items[i].radius_px)) {
			sa += 2 * a->items[i].radius_px;
			sb += 2 * b->items[i].radius_px;
			n++;
		}
	*da = n ? sa / n : NAN;
	*db = n ? sb / n : NAN;
}

static int run(int scene, unsigned seed_add, int w, int h, int tile, int off)
{
	sem_opts o;
	sem_corner_scene(scene, &o);
	o.width = w;
	o.height = h;
	o.seed += seed_add;
	sem_truth t;
	fs_image *img = sem_make_shared(&o, &t);
	if (!img) {
		fprintf(stderr, "scene %d: no image\n", scene);
		return -1;
	}
	fs_params p;
	fs_params_default(&p);
	fs_detect_result a, b;
	char err[256];
	int rc = -1;
	fs_detect_set_tiling(0, 1);
	if (fs_detect_domes(img, &p, 0, &a, err, sizeof err)) {
		fprintf(stderr, "scene %d: %s\n", scene, err);
		goto out;
	}
	int was = 0;
	if (off)
		was = fs_det_base_set_gap(FS_DET_GAP_OFF);
	else
		fs_detect_set_tiling(tile, 2);
	int q = fs_detect_domes(img, &p, 0, &b, err, sizeof err);
	if (off)
		fs_det_base_set_gap(was);
	fs_detect_set_tiling(FS_DETECT_TILE_DEFAULT, 1);
	if (q) {
		fprintf(stderr, "scene %d: %s\n", scene, err);
		fs_detect_result_free(&a);
		goto out;
	}
	const fs_tubercle_list *ta = &a.tubercles, *tb = &b.tubercles;
	if (ta->n != tb->n) {
		printf("scene %2d +%-5u %zu x %zu tubercles\n", scene, seed_add, ta->n, tb->n);
	} else {
		size_t differ = 0;
		double dmax = 0;
		for (size_t i = 0; i < ta->n; i++) {
			const fs_tubercle *u = &ta->items[i], *v = &tb->items[i];
			int same_r = u->radius_px == v->radius_px || (isnan(u->radius_px) && isnan(v->radius_px));
			differ += !same_r || u->centroid_x != v->centroid_x || u->centroid_y != v->centroid_y;
			if (isfinite(u->radius_px) && isfinite(v->radius_px))
				dmax = fmax(dmax, 2 * fabs(u->radius_px - v->radius_px));
		}
		double da, db;
		mean_d(ta, tb, &da, &db);
		printf("scene %2d +%-5u %4zu tubercles, %4zu differ, max |dD| %.4f px, mean D whole %.3f, %s %.3f px "
		       "(%+.2f %%)\n",
		       scene, seed_add, ta->n, differ, dmax, da, off ? "reading off" : "tiled", db, 100 * (db - da) / da);
	}
	fs_detect_result_free(&a);
	fs_detect_result_free(&b);
	rc = 0;
out:
	sem_truth_free(&t);
	fs_image_free(img);
	return rc;
}

int main(int argc, char **argv)
{
	int w = 480, h = 400, tile = 96, off = 0;
	unsigned seeds[16] = {0};
	int ns = 1, scenes[64], nsc = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--off")) {
			off = 1;
		} else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
			if (sscanf(argv[++i], "%dx%d", &w, &h) != 2 || w < 64 || h < 64) {
				fprintf(stderr, "--size WxH\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--tile") && i + 1 < argc) {
			tile = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--seeds") && i + 1 < argc) {
			if ((ns = bench_parse_seeds(argv[++i], seeds, 16)) < 1) {
				fprintf(stderr, "--seeds A,B,... (at most 16)\n");
				return 2;
			}
		} else if (argv[i][0] != '-' && nsc < 64) {
			scenes[nsc++] = atoi(argv[i]);
		} else {
			fprintf(stderr, "usage: bench_gap_tiled [--off] [--size WxH] [--tile N] [--seeds A,B,...] [SCENE...]\n");
			return 2;
		}
	}
	if (tile < 32 || (w + tile - 1) / tile * ((h + tile - 1) / tile) <= 4) {
		fprintf(stderr, "--tile: at least 32 px and more than four tiles\n");
		return 2;
	}
	if (!nsc) {
		const int tight[6] = {11, 13, 15, 27, 29, 31};
		for (int k = 0; k < 6; k++)
			scenes[nsc++] = tight[k];
	}
	if (off)
		printf("%dx%d: whole, and whole with the valleys' reading off\n", w, h);
	else
		printf("%dx%d: whole, and on %d-px tiles in two threads\n", w, h, tile);
	for (int s = 0; s < ns; s++)
		for (int k = 0; k < nsc; k++)
			if (run(scenes[k], seeds[s], w, h, tile, off))
				return 1;
	return 0;
}
