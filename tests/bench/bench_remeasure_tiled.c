/*
 * bench_remeasure_tiled - Re-measure (fs_measure_centres_rule, dome rule)
 * of a simulated corner scene whole and tile by tile: how many given
 * centres get a different size, by how much, and where.
 *
 * Why (h39c, h39i, docs/paper-figures.md): a user's Re-measure of a large
 * image takes the tiled path (detect_domes_tiled.c, given_tiled); its
 * result should depend on the tiling no more than by border effects. h39c
 * found screened scenes where it did (corner 57: 9 domes, up to 3.8 px of
 * D; centres off the lattice on scene 40: 107 of 120).
 *
 * Usage: bench_remeasure_tiled [--tile PX] [--grid DX,DY] [SCENE...]
 *   --tile: the forced tiles' side (default 96)
 *   --grid: instead of the true centres, a square grid of the scene's
 *           pitch offset by (DX, DY) px (centres off the lattice)
 *   SCENE:  corner scene numbers (default 40 43 57); pN: interior scene
 *           N under a 5-px screen (h43j)
 * Prints per scene the centres, how many differ by more than 0.01 px of
 * D (or measured in one and not the other), the largest |dD| and where,
 * and the distance of that centre from the image's border.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/measurement.h"
#include "analysis/params.h"
#include "sem_scene.h"
#include "sem_sim.h"

static int centres(const sem_opts *o, const sem_truth *t, const fs_image *img, int grid, double gx, double gy,
		   fs_tubercle_list *out)
{
	fs_tubercle c;
	if (!grid) {
		for (size_t i = 0; i < t->n; i++) {
			if (t->x[i] < 0 || t->y[i] < 0 || t->x[i] > img->width - 1 || t->y[i] > img->height - 1)
				continue;
			fs_tubercle_init(&c);
			c.centroid_x = t->x[i];
			c.centroid_y = t->y[i];
			c.radius_px = t->d[i] / 2;
			if (fs_tubercle_list_append(out, &c))
				return -1;
		}
		return 0;
	}
	for (double y = gy; y < img->height; y += o->pitch)
		for (double x = gx; x < img->width; x += o->pitch) {
			fs_tubercle_init(&c);
			c.centroid_x = x;
			c.centroid_y = y;
			c.radius_px = o->pitch / 4;
			if (fs_tubercle_list_append(out, &c))
				return -1;
		}
	return 0;
}

static int copy_list(const fs_tubercle_list *a, fs_tubercle_list *b)
{
	for (size_t i = 0; i < a->n; i++)
		if (fs_tubercle_list_append(b, &a->items[i]))
			return -1;
	return 0;
}

static int scene(int k, int tile, int grid, double gx, double gy)
{
	sem_opts o;
	if (k >= 100) {
		/* h43j: "pN", interior scene N printed under a 5-px screen,
		 * where the screened level's gate is asked again on the
		 * low-passed readings (detect_base_fit.h) */
		sem_interior_scene(k - 100, &o);
		o.halftone = 5;
	} else {
		sem_corner_scene(k, &o);
	}
	sem_scene sim;
	if (sem_scene_render(&sim, &o)) {
		fprintf(stderr, "scene %d: the simulator refused it\n", k);
		return -1;
	}
	fs_tubercle_list whole = {0}, tiled = {0};
	char err[256];
	int rc = -1;
	if (centres(&o, &sim.tr, sim.img, grid, gx, gy, &whole) || copy_list(&whole, &tiled)) {
		fprintf(stderr, "out of memory\n");
		goto out;
	}
	fs_measure_centres_set_band_rows(0);
	if (fs_measure_centres_rule(sim.img, &sim.p, 1, FS_RULE_DOME, &whole, err, sizeof err)) {
		fprintf(stderr, "scene %d whole: %s\n", k, err);
		goto out;
	}
	fs_measure_centres_set_band_rows(tile);
	rc = fs_measure_centres_rule(sim.img, &sim.p, 1, FS_RULE_DOME, &tiled, err, sizeof err);
	fs_measure_centres_set_band_rows(0);
	if (rc) {
		fprintf(stderr, "scene %d tiled: %s\n", k, err);
		goto out;
	}
	size_t nd = 0, worst = 0;
	double big = -1;
	for (size_t i = 0; i < whole.n; i++) {
		double a = 2 * whole.items[i].radius_px, b = 2 * tiled.items[i].radius_px;
		int differ = isnan(a) != isnan(b) || (!isnan(a) && fabs(a - b) > 0.01);
		if (!differ)
			continue;
		nd++;
		double d = isnan(a) || isnan(b) ? INFINITY : fabs(a - b);
		if (d > big) {
			big = d;
			worst = i;
		}
	}
	printf("scene %2d (%dx%d, pitch %.0f, screen %.0f) %s, %d-px tiles: %zu centres, %zu differ", k,
	       sim.img->width, sim.img->height, o.pitch, o.halftone, grid ? "grid" : "true centres", tile, whole.n, nd);
	if (nd) {
		const fs_tubercle *w = &whole.items[worst];
		double bx = fmin(w->centroid_x, sim.img->width - 1 - w->centroid_x);
		double by = fmin(w->centroid_y, sim.img->height - 1 - w->centroid_y);
		printf("; largest at (%.1f, %.1f), %.0f px from the border: D %.2f whole, %.2f tiled", w->centroid_x,
		       w->centroid_y, fmin(bx, by), 2 * w->radius_px, 2 * tiled.items[worst].radius_px);
	}
	printf("\n");
	rc = 0;
out:
	fs_tubercle_list_free(&whole);
	fs_tubercle_list_free(&tiled);
	sem_scene_close(&sim);
	return rc;
}

int main(int argc, char **argv)
{
	int tile = 96, grid = 0, any = 0, rc = 0;
	double gx = 0, gy = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--tile") && i + 1 < argc) {
			tile = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--grid") && i + 1 < argc) {
			grid = 1;
			if (sscanf(argv[++i], "%lf,%lf", &gx, &gy) != 2) {
				fprintf(stderr, "--grid DX,DY\n");
				return 2;
			}
		} else {
			any = 1;
			rc |= scene(argv[i][0] == 'p' ? 100 + atoi(argv[i] + 1) : atoi(argv[i]), tile, grid, gx, gy);
		}
	}
	if (!any) {
		int def[] = {40, 43, 57};
		for (int i = 0; i < 3; i++)
			rc |= scene(def[i], tile, grid, gx, gy);
	}
	return rc ? 1 : 0;
}
