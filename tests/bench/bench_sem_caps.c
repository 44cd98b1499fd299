/*
 * bench_sem_caps - do the simulator's two clamps, the secant yield's cap
 * at 6 and the directional factor's floor at 0.05 (sem_surface.c,
 * signal_parts), bind on a scene? Counted on the surface's own samples.
 * Asserts nothing (issue 13; docs/paper-figures.md, h40a).
 *
 * Why: h40a's ablation switches the simulator's features off one at a
 * time through sem_opts (bench_formation_lm --set), but these two clamps
 * are not options; whether they can explain what the rule's forward model
 * (analysis/se_render.h, which caps the yield at 6 too and has no floor
 * on its linear directional weights) cannot fit is a count of where they
 * are reached.
 *
 * How: the scene rendered raw (the signal itself: no beam blur, detector
 * response, noise or margins), one sample at each pixel's centre
 * (supersample 1), with the other terms of the signal switched off so
 * that a pixel is the clamped quantity alone:
 *   yield pass: detector strength 0, shadow 0, edge 0, secant exponent 1
 *               - the pixel is min(6, sec(tilt));
 *   dirf pass:  secant exponent 0 (the yield is 1), shadow 0, edge 0, the
 *               scene's detector - the pixel is max(0.05, 1 + k (n.d -
 *               sin el)).
 * The surface (domes, jitters, undulation, roughness) is the scene's own
 * to the bit: these options enter only the signal. Pixel centres sample
 * the domes at random phases (jittered positions, a lattice at an angle
 * to the grid), so counts over a scene's domes estimate the areas; a
 * ring thinner than a pixel shows as few counts, which is what it is
 * worth in the image.
 *
 * Usage: bench_sem_caps [--seed-add N] [--set KEY=VALUE ...] [SCENE...]
 * (corner scenes; default the twelve h40a runs: 2 6 18 22 0 4 16 20 32 38
 * 50 52). Prints per scene the samples on domes (within the true base),
 * those at the yield cap and their share, the same within the outer 10 %
 * of the radius, and the smallest directional factor and the samples at
 * its floor.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/image.h"
#include "sem_opts_keys.h"
#include "sem_sim.h"

#define NSETS_MAX 32

/* index of the nearest true centre within its base, or -1; r/R in *u */
static long on_dome(const sem_truth *t, double x, double y, double *u)
{
	/* a scene has a few hundred domes: a linear scan per pixel is fine
	 * for an instrument (seconds) */
	for (size_t j = 0; j < t->n; j++) {
		double dx = x - t->x[j], dy = y - t->y[j], R = 0.5 * t->d[j];
		if (fabs(dx) > R || fabs(dy) > R)
			continue;
		double r = sqrt(dx * dx + dy * dy);
		if (r < R) {
			*u = r / R;
			return (long)j;
		}
	}
	return -1;
}

static int run_scene(int k, unsigned seed_add, const char *const *sets, int nsets)
{
	sem_opts o;
	sem_corner_scene(k, &o);
	o.seed += seed_add;
	for (int i = 0; i < nsets; i++)
		sem_opts_set_key(&o, sets[i]);
	sem_opts oy = o, od = o;
	oy.raw = od.raw = 1;
	oy.supersample = od.supersample = 1;
	/* no blur at all: form_image blurs by beam_blur^2 - 1/12 only when
	 * that is positive */
	oy.beam_blur = od.beam_blur = 0;
	oy.shadow = od.shadow = 0;
	oy.edge = od.edge = 0;
	oy.det_strength = 0;
	oy.secant_n = 1;
	od.secant_n = 0;
	sem_truth ty, td;
	fs_image *iy = sem_make(&oy, &ty), *id = sem_make(&od, &td);
	if (!iy || !id) {
		printf("%d: the simulator refused the scene\n", k);
		fs_image_free(iy);
		fs_image_free(id);
		sem_truth_free(&ty);
		sem_truth_free(&td);
		return -1;
	}
	long ndome = 0, nrim = 0, ycap = 0, ycap_rim = 0, ycap_off = 0, dfloor = 0, npix = 0;
	double dmin = INFINITY, ymax = 0;
	for (int y = 0; y < iy->height; y++)
		for (int x = 0; x < iy->width; x++) {
			double u = 0, vy = fs_image_value(iy, x, y), vd = fs_image_value(id, x, y);
			long j = on_dome(&ty, x, y, &u);
			int capped = vy >= 6 * (1 - 1e-6);
			npix++;
			ymax = fmax(ymax, vy);
			dmin = fmin(dmin, vd);
			dfloor += vd <= 0.05 * (1 + 1e-6);
			if (j < 0) {
				ycap_off += capped;
				continue;
			}
			ndome++;
			ycap += capped;
			if (u >= 0.9) {
				nrim++;
				ycap_rim += capped;
			}
		}
	printf("scene %2d (%s fill %.2f h/R %.2f az %3d pitch %2.0f, seed +%u): %ld samples, %ld on domes "
	       "(%ld in 0.9-1 R); yield at its cap 6: %ld on domes (%.3f %%; rim %ld, %.2f %%), %ld off them; "
	       "largest yield %.3f; directional factor min %.3f, %ld samples at its floor 0.05\n",
	       k, o.profile > 1 ? "flat" : "sph", o.fill, o.h_over_r, (int)lround(o.det_azimuth * 180 / M_PI),
	       o.pitch, seed_add, npix, ndome, nrim, ycap, ndome ? 100.0 * ycap / ndome : 0, ycap_rim,
	       nrim ? 100.0 * ycap_rim / nrim : 0, ycap_off, ymax, dmin, dfloor);
	fflush(stdout);
	fs_image_free(iy);
	fs_image_free(id);
	sem_truth_free(&ty);
	sem_truth_free(&td);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned seed_add = 0;
	const char *sets[NSETS_MAX];
	int nsets = 0, scenes[64], ns = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed-add") && i + 1 < argc) {
			seed_add = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
			sem_opts probe;
			sem_defaults(&probe);
			if (nsets == NSETS_MAX || sem_opts_set_key(&probe, argv[i + 1])) {
				fprintf(stderr, "--set %s: no such key (sem_opts_keys.h) or too many\n", argv[i + 1]);
				return 2;
			}
			sets[nsets++] = argv[++i];
		} else if (ns < 64) {
			scenes[ns++] = atoi(argv[i]);
		}
	}
	if (!ns) {
		static const int def[12] = {2, 6, 18, 22, 0, 4, 16, 20, 32, 38, 50, 52};
		for (int i = 0; i < 12; i++)
			scenes[ns++] = def[i];
	}
	for (int i = 0; i < ns; i++)
		run_scene(scenes[i], seed_add, sets, nsets);
	return 0;
}
