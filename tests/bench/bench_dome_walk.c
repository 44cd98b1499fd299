/*
 * bench_dome_walk - how far the base rule's own passes (fs_dome_measure)
 * move a centre from where they start, in units of the rule's largest
 * radius r1, over a grid of starts covering simulated corner scenes.
 *
 * Why (h39c, docs/paper-figures.md): the tiled path measures a point again
 * on a wider crop when its measurement ended more than 1.25 r1 (plus the
 * refinement's reach) from its start (remeasure_strayed,
 * detect_domes_tiled.c), and no test reaches that branch (h38u). Whether
 * any image can reach it is decided by this walk: a pass moves the centre
 * by less than half its own radius or not at all, so three passes could
 * in principle go 1.5 r1, but this prints what they do go, from every
 * start, not only from the detector's candidates.
 *
 * Usage: bench_dome_walk [--step PX] [--mr F] [SCENE...]
 *   --step: grid spacing of the starts (default 4 px)
 *   --mr:   the rays' reach as a share of the pitch (default 0.6, Re-measure's)
 *   SCENE:  corner scene numbers (default every fourth, 0..60)
 * Each scene is measured with the ray smoothings detection chooses from
 * (fs_det_smooth_px), on the measurement image detection makes at full
 * resolution. Prints per scene and smoothing the largest move (r1), where,
 * and how many starts moved more than r1 and more than 1.25 r1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_measure.h"
#include "analysis/detect_methods.h"
#include "analysis/dome_measure.h"
#include "analysis/params.h"
#include "sem_scene.h"
#include "sem_sim.h"

static int walk_scene(int k, double mrf, int step)
{
	sem_opts o;
	sem_corner_scene(k, &o);
	sem_scene sim;
	if (sem_scene_render(&sim, &o)) {
		fprintf(stderr, "scene %d: the simulator refused it\n", k);
		return -1;
	}
	fs_image *meas = NULL;
	char err[256];
	/* detection's blur of the measurement image (detect.c) */
	double msig = o.pitch >= 40 ? 1.0 : 0.5;
	int rc = fs_detect_measure_image(sim.img, &sim.p, msig, &meas, err, sizeof err);
	if (rc) {
		fprintf(stderr, "scene %d: %s\n", k, err);
		goto out;
	}
	double mr = mrf * o.pitch, r0 = FS_DOME_R0 * mr, r1 = FS_DOME_R1 * mr;
	for (int s = 0; s < FS_DET_SMOOTH_TRIALS; s++) {
		double smooth = fs_det_smooth_px[s], best = 0, bx = 0, by = 0;
		size_t n = 0, over1 = 0, over125 = 0;
		for (int y = 2; y < sim.img->height - 2; y += step)
			for (int x = 2; x < sim.img->width - 2; x += step) {
				/* off the pixel grid, as candidates are */
				double sx = x + 0.3, sy = y + 0.7;
				fs_tubercle q;
				fs_tubercle_init(&q);
				if (fs_dome_measure(meas, sx, sy, r0, r1, smooth, &q))
					continue;
				double d = hypot(q.centroid_x - sx, q.centroid_y - sy) / r1;
				n++;
				over1 += d > 1.0;
				over125 += d > 1.25;
				if (d > best) {
					best = d;
					bx = sx;
					by = sy;
				}
			}
		printf("scene %2d pitch %2.0f screen %.0f smooth %.1f: %7zu starts, largest move %.3f r1 at (%.1f, %.1f); "
		       "> r1 %zu, > 1.25 r1 %zu\n",
		       k, o.pitch, o.halftone, smooth, n, best, bx, by, over1, over125);
	}
out:
	fs_image_free(meas);
	sem_scene_close(&sim);
	return rc;
}

int main(int argc, char **argv)
{
	int step = 4, nsc = 0, scenes[64];
	double mrf = 0.6;
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--step") && a + 1 < argc)
			step = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--mr") && a + 1 < argc)
			mrf = atof(argv[++a]);
		else if (nsc < 64 && atoi(argv[a]) >= 0 && atoi(argv[a]) < 64)
			scenes[nsc++] = atoi(argv[a]);
		else {
			fprintf(stderr, "usage: bench_dome_walk [--step PX] [--mr F] [SCENE...]\n");
			return 2;
		}
	}
	if (step < 1 || !(mrf > 0)) {
		fprintf(stderr, "bench_dome_walk: --step >= 1, --mr > 0\n");
		return 2;
	}
	if (!nsc)
		for (int k = 0; k < 64; k += 4)
			scenes[nsc++] = k;
	int rc = 0;
	for (int i = 0; i < nsc; i++)
		rc |= walk_scene(scenes[i], mrf, step) != 0;
	return rc;
}
