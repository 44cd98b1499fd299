/*
 * bench_domes_tiled - the dome rule's detection (fs_detect_domes) of a
 * simulated corner scene whole and on forced small tiles: how many
 * tubercles differ, by how much (centre, D) and where.
 *
 * Why (h40e, docs/paper-figures.md): a large image is detected tile by
 * tile (detect_domes_tiled.c) and should get the whole image's answer up
 * to what a tile's border genuinely hides. h39c and h39i mended two
 * defects; on pitch-64 corner scenes tiled and whole still differed
 * (scene 53 on 96-px tiles: 94 of 131 tubercles). This table says which
 * scenes differ and how much, so that a cause can be traced and its fix
 * judged on every scene at once.
 *
 * Usage: bench_domes_tiled [--tiles A,B,...] [--halftone P] [--seed-add N] [--interior] [--dump] [SCENE...]
 *   --tiles: the forced tiles' sides (default 96,128)
 *   --halftone P: every scene printed under a screen of period P (h43j)
 *   --seed-add N: every scene's seed N further (h45k; held-out: 4000)
 *   --interior: the interior scenes (sem_interior_scene) instead of the
 *            corner ones (default all 14)
 *   --dump:  every differing tubercle (whole's centre, distance from the
 *            border, dx, dy, dD)
 *   SCENE:   scene numbers (default all 64 corner scenes)
 * Per scene and tile: the counts whole / tiled, how many tubercles differ
 * by more than 0.01 px in centre or D (each tiled one matched to the
 * nearest whole one within a quarter pitch; unmatched ones count), the
 * number the same to the bit (centre and radius), the largest |centre|
 * and |dD| among the matched, the mean D's relative
 * difference, and the differing ones' least distance from the border.
 * The totals end the run. Asserts nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "bench_support.h"
#include "sem_cache.h"
#include "sem_sim.h"

#define MAX_TILES 8

struct diff {
	size_t differ, unmatched, same_bits;
	double dc, dd, mean_rel, near;
};

/* The index of t's nearest tubercle in l within lim px, or -1. */
static long nearest(const fs_tubercle_list *l, const fs_tubercle *t, double lim)
{
	long best = -1;
	double bd = lim * lim;
	for (size_t i = 0; i < l->n; i++) {
		double dx = l->items[i].centroid_x - t->centroid_x, dy = l->items[i].centroid_y - t->centroid_y;
		double d = dx * dx + dy * dy;
		if (d <= bd) {
			bd = d;
			best = (long)i;
		}
	}
	return best;
}

static double mean_d(const fs_tubercle_list *l)
{
	double s = 0;
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		if (isfinite(l->items[i].radius_px)) {
			s += 2 * l->items[i].radius_px;
			n++;
		}
	return n ? s / n : NAN;
}

static void compare(const fs_tubercle_list *w, const fs_tubercle_list *t, int W, int H, double pitch, int dump,
		    struct diff *d)
{
	*d = (struct diff){0, 0, 0, 0, 0, 0, INFINITY};
	unsigned char *used = calloc(w->n ? w->n : 1, 1);
	for (size_t i = 0; i < t->n; i++) {
		const fs_tubercle *b = &t->items[i];
		long k = nearest(w, b, 0.25 * pitch);
		double border = fmin(fmin(b->centroid_x, W - 1 - b->centroid_x), fmin(b->centroid_y, H - 1 - b->centroid_y));
		if (k < 0) {
			d->unmatched++;
			d->differ++;
			d->near = fmin(d->near, border);
			if (dump)
				printf("    tiled only (%.2f, %.2f) border %.0f\n", b->centroid_x, b->centroid_y, border);
			continue;
		}
		used[k] = 1;
		const fs_tubercle *a = &w->items[k];
		double dc = fmax(fabs(a->centroid_x - b->centroid_x), fabs(a->centroid_y - b->centroid_y));
		double dd = isnan(a->radius_px) != isnan(b->radius_px) ? INFINITY
			    : isnan(a->radius_px)                       ? 0
									: 2 * fabs(a->radius_px - b->radius_px);
		d->same_bits += a->centroid_x == b->centroid_x && a->centroid_y == b->centroid_y &&
				(a->radius_px == b->radius_px || (isnan(a->radius_px) && isnan(b->radius_px)));
		d->dc = fmax(d->dc, dc);
		d->dd = fmax(d->dd, dd);
		if (dc > 0.01 || dd > 0.01) {
			d->differ++;
			d->near = fmin(d->near, border);
			if (dump)
				printf("    (%.2f, %.2f) border %.0f: dx %+.4f dy %+.4f dD %+.4f\n", a->centroid_x,
				       a->centroid_y, border, b->centroid_x - a->centroid_x, b->centroid_y - a->centroid_y,
				       2 * (b->radius_px - a->radius_px));
		}
	}
	for (size_t k = 0; k < w->n; k++)
		if (!used[k]) {
			d->unmatched++;
			d->differ++;
			const fs_tubercle *a = &w->items[k];
			double border = fmin(fmin(a->centroid_x, W - 1 - a->centroid_x),
					     fmin(a->centroid_y, H - 1 - a->centroid_y));
			d->near = fmin(d->near, border);
			if (dump)
				printf("    whole only (%.2f, %.2f) border %.0f\n", a->centroid_x, a->centroid_y, border);
		}
	free(used);
	double mw = mean_d(w), mt = mean_d(t);
	d->mean_rel = 100 * (mt - mw) / mw;
}

static int detect(const fs_image *img, int tile, fs_detect_result *r)
{
	char err[256];
	fs_params p;
	fs_params_default(&p);
	fs_detect_set_tiling(tile, 1);
	int rc = fs_detect_domes(img, &p, 0, r, err, sizeof err);
	fs_detect_set_tiling(FS_DETECT_TILE_DEFAULT, 1);
	if (rc)
		fprintf(stderr, "detection (tile %d): %s\n", tile, err);
	return rc;
}

static size_t tot_differ[MAX_TILES], tot_n[MAX_TILES], tot_scenes_differ[MAX_TILES], tot_bits[MAX_TILES];

/* --halftone P (h43j): every scene printed under a screen of period P */
static double g_halftone = -1;
/* --seed-add N (h45k): every scene's seed N further (test_sem_accuracy's
 * SEM_SEED_ADD), so a held-out scene-seed's path can be checked tiled */
static unsigned g_seed_add;

static int scene(int k, int interior, const int *tiles, int nt, int dump)
{
	sem_opts o;
	if (interior)
		sem_interior_scene(k, &o);
	else
		sem_corner_scene(k, &o);
	if (g_halftone >= 0)
		o.halftone = g_halftone;
	o.seed += g_seed_add;
	sem_truth truth;
	fs_image *img = sem_make_shared(&o, &truth);
	if (!img) {
		fprintf(stderr, "scene %d: the simulator refused it\n", k);
		return -1;
	}
	fs_detect_result whole;
	int rc = detect(img, 0, &whole);
	if (rc)
		goto out;
	printf("%s %2d (%dx%d, pitch %.0f, fill %.2f, screen %.0f, az %.0f): %zu whole\n", interior ? "interior" : "scene", k, img->width,
	       img->height, o.pitch, o.fill, o.halftone, o.det_azimuth * 180 / M_PI, whole.tubercles.n);
	for (int i = 0; i < nt; i++) {
		fs_detect_result tiled;
		if ((rc = detect(img, tiles[i], &tiled)))
			break;
		struct diff d;
		compare(&whole.tubercles, &tiled.tubercles, img->width, img->height, o.pitch, dump, &d);
		printf("  tile %3d: %zu tiled, %zu differ (%zu unmatched), %zu the same bits, max |dc| %.4f, max |dD| "
		       "%.4f, mean D %+.4f %%",
		       tiles[i], tiled.tubercles.n, d.differ, d.unmatched, d.same_bits, d.dc, d.dd, d.mean_rel);
		if (d.differ)
			printf(", nearest differing %.0f px from the border", d.near);
		printf("\n");
		tot_differ[i] += d.differ;
		tot_n[i] += whole.tubercles.n;
		tot_scenes_differ[i] += d.differ > 0;
		tot_bits[i] += d.same_bits;
		fs_detect_result_free(&tiled);
	}
	fs_detect_result_free(&whole);
out:
	sem_truth_free(&truth);
	fs_image_free(img);
	return rc;
}

int main(int argc, char **argv)
{
	int tiles[MAX_TILES] = {96, 128}, nt = 2, dump = 0, interior = 0, any = 0, rc = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--tiles") && i + 1 < argc) {
			if ((nt = bench_parse_ints(argv[++i], 1, 1 << 20, tiles, MAX_TILES)) < 1) {
				fprintf(stderr, "--tiles A,B,... (px, at most %d)\n", MAX_TILES);
				return 2;
			}
		} else if (!strcmp(argv[i], "--seed-add") && i + 1 < argc) {
			g_seed_add = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--dump")) {
			dump = 1;
		} else if (!strcmp(argv[i], "--interior")) {
			interior = 1;
		} else if (!strcmp(argv[i], "--halftone") && i + 1 < argc) {
			g_halftone = atof(argv[++i]);
		}
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--tiles") || !strcmp(argv[i], "--halftone") || !strcmp(argv[i], "--seed-add")) {
			i++;
			continue;
		}
		if (!strcmp(argv[i], "--dump") || !strcmp(argv[i], "--interior"))
			continue;
		any = 1;
		rc |= scene(atoi(argv[i]), interior, tiles, nt, dump);
	}
	for (int k = 0; !any && k < (interior ? SEM_INTERIOR_SCENES : 64); k++)
		rc |= scene(k, interior, tiles, nt, dump);
	for (int i = 0; i < nt; i++)
		printf("tile %d: %zu scenes differ, %zu of %zu tubercles (%zu the same to the bit)\n", tiles[i],
		       tot_scenes_differ[i], tot_differ[i], tot_n[i], tot_bits[i]);
	return rc ? 1 : 0;
}
