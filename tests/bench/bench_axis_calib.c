/*
 * bench_axis_calib.c - the axis step's own shift at tight gaps
 * (centre_axis_calib.h, h51g) read three ways on corner scenes: from the
 * scene's TRUE centres on the image (the bias to take off, h51d's
 * reading), on the lattice of the simulator's own formation (its h/R,
 * profile, detector and shadow, the templates' weights solved at the true
 * centres) and, for comparison, with the rule's fitted formation in
 * bench_centre_steps (AXIS_CALIB_SCAN=1). Whether the forward model can
 * carry the bias at all when its formation is right.
 *
 * Usage: bench_axis_calib [--seed-add N] [--sigma PX] [--r0 PX] [--beam] [SCENE...]
 * (default scenes 1 17 3 5 21 23, the step's blur 1.2 px as h51d's, r0
 * the true base radius; the lattice rendered at the step's blur, or with
 * --beam at the scene's own beam blur). One row per scene. Asserts
 * nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/centre_axis_calib.h"
#include "formation_calib.h"
#include "sem_cache.h"
#include "sem_opts_keys.h"
#include "sem_sim.h"

static int run(int k, unsigned add, double sigma, double r0_given, int beam)
{
	sem_opts o;
	sem_opts_args none;
	memset(&none, 0, sizeof none);
	sem_corner_args(k, add, &none, &o);
	sem_truth t;
	fs_image *img = sem_make_shared(&o, &t);
	if (!img)
		return -1;
	double *xs = malloc((t.n + 1) * sizeof *xs), *ys = malloc((t.n + 1) * sizeof *ys);
	fs_dome_fit f;
	formation_sim(&o, t.pitch, o.fill, beam ? o.beam_blur : sigma, &f);
	double r0 = r0_given > 0 ? r0_given : 0.5 * o.fill * t.pitch;
	fs_centre_axis_geom g;
	fs_centre_axis_geom_of(f.azimuth, r0, sigma, t.pitch, &g);
	size_t len = fs_centre_axis_len(&g);
	double reach = fs_centre_axis_reach(&g);
	double *profs = malloc((t.n + 1) * len * sizeof *profs);
	int rc = -1;
	if (!xs || !ys || !profs)
		goto out;
	size_t n = 0, np = 0;
	for (size_t j = 0; j < t.n; j++) {
		if (!sem_counted(&t, t.x[j], t.y[j]))
			continue;
		xs[n] = t.x[j];
		ys[n++] = t.y[j];
		if (t.x[j] - reach >= 0 && t.y[j] - reach >= 0 && t.x[j] + reach < img->width - 1 &&
		    t.y[j] + reach < img->height - 1)
			fs_centre_axis_profile(img, t.x[j], t.y[j], &g, profs + np++ * len);
	}
	fs_centre_axis truth, cal;
	if (fs_centre_axis_estimate(profs, np, &g, t.pitch, &truth))
		goto out;
	fs_dome_tpl u;
	char err[128];
	int b = fs_dome_tpl_build(img, &f, o.fill, xs, ys, n, &u, err, sizeof err);
	if (b < 0)
		goto out;
	int q = b ? 1 : fs_centre_axis_calib_read(&u, &f, o.fill, &g, t.pitch, &cal);
	if (!b)
		fs_dome_tpl_free(&u);
	if (q < 0)
		goto out;
	printf("%-5d %-6u %5.2f %6.2f   %4zu %+7.3f %d   ", k, add / 1000, sigma, r0, truth.used, truth.shift,
	       truth.ok);
	if (q)
		printf("(no render)\n");
	else
		printf("%+7.3f %d %.4f\n", cal.shift, cal.ok, cal.residual);
	rc = 0;
out:
	free(xs);
	free(ys);
	free(profs);
	sem_truth_free(&t);
	fs_image_free(img);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned add = 0;
	double sigma = 1.2, r0 = 0;
	int scenes[64], ns = 0, beam = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed-add") && i + 1 < argc)
			add = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--sigma") && i + 1 < argc)
			sigma = atof(argv[++i]);
		else if (!strcmp(argv[i], "--r0") && i + 1 < argc)
			r0 = atof(argv[++i]);
		else if (!strcmp(argv[i], "--beam"))
			beam = 1;
		else if (ns < 64 && argv[i][0] != '-')
			scenes[ns++] = atoi(argv[i]);
		else {
			fprintf(stderr, "usage: %s [--seed-add N] [--sigma PX] [--r0 PX] [--beam] [SCENE...]\n", argv[0]);
			return 2;
		}
	}
	static const int def[] = {1, 17, 3, 5, 21, 23};
	if (!ns)
		for (size_t i = 0; i < sizeof def / sizeof *def; i++)
			scenes[ns++] = def[i];
	printf("the axis step's own shift, px: from the TRUE centres on the image, and on the simulator's own\n"
	       "formation's lattice from its sites (centre_axis_calib.h)\n");
	printf("scene seed+k sigma    r0   domes   true ok   render ok residual\n");
	for (int i = 0; i < ns; i++)
		if (run(scenes[i], add, sigma, r0, beam)) {
			fprintf(stderr, "scene %d failed\n", scenes[i]);
			return 1;
		}
	return 0;
}
