/*
 * bench_nobase_scene - one simulated scene, described on the command line,
 * measured by the dome rule against its truth: how many domes it found,
 * how many it left without a diameter (the no-base branch,
 * detect_base_fit.h, h38b) and the mean D error of the sized ones.
 * Asserts nothing.
 *
 * Why: the dome rule's no-step branch (most level readings on no step of
 * the image, h36g) fired on three paper figures and on no simulated scene
 * (docs/paper-figures.md, h37p, h38b), so no table guards what it does.
 * This renders a scene of any formation quickly, to look for one that
 * takes the branch with its truth known.
 * Usage: bench_nobase_scene [KEY=VALUE ...] on sem_defaults; keys: pitch,
 * fill, profile (0 sphere, 1 paraboloid, 2 flat, 3 smooth cos^2), hr,
 * rough, undul, dose, blur (beam), scan (scan blur), halftone, edge,
 * strength (detector), elev (deg), az (deg), cap, capp, width, height,
 * seed. Without keys: P1 Fig1's frame as far as h38b matched it (see
 * main). Cost: a scene of 700 x 540 px about 1-3 s of CPU.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "image/tubercle.h"
#include "sem_scene.h"
#include "sem_sim.h"

static int set_key(sem_opts *o, const char *kv)
{
	const char *eq = strchr(kv, '=');
	if (!eq)
		return -1;
	size_t n = (size_t)(eq - kv);
	double v = atof(eq + 1);
#define K(name) (n == strlen(name) && !strncmp(kv, name, n))
	if (K("pitch"))
		o->pitch = v;
	else if (K("fill"))
		o->fill = v;
	else if (K("profile"))
		o->profile = v;
	else if (K("hr"))
		o->h_over_r = v;
	else if (K("rough"))
		o->roughness = v;
	else if (K("undul"))
		o->undulation = v;
	else if (K("dose"))
		o->dose = v;
	else if (K("blur"))
		o->beam_blur = v;
	else if (K("scan"))
		o->scan_blur = v;
	else if (K("halftone"))
		o->halftone = v;
	else if (K("edge"))
		o->edge = v;
	else if (K("strength"))
		o->det_strength = v;
	else if (K("elev"))
		o->det_elevation = v * M_PI / 180;
	else if (K("az"))
		o->det_azimuth = v * M_PI / 180;
	else if (K("cap"))
		o->cap = v;
	else if (K("capp"))
		o->cap_power = v;
	else if (K("width"))
		o->width = (int)v;
	else if (K("height"))
		o->height = (int)v;
	else if (K("seed"))
		o->seed = (unsigned)v;
	else
		return -1;
#undef K
	return 0;
}

int main(int argc, char **argv)
{
	sem_opts o;
	sem_defaults(&o);
	/* a frame like P1 Fig1's: pitch 84, 700 x 540 */
	o.width = 700;
	o.height = 540;
	o.pitch = 84;
	o.fill = 0.51;
	o.profile = SEM_PROFILE_SMOOTH;
	o.h_over_r = 0.25;
	for (int i = 1; i < argc; i++)
		if (set_key(&o, argv[i])) {
			fprintf(stderr, "bench_nobase_scene: unknown argument %s\n", argv[i]);
			return 2;
		}
	sem_scene s;
	fs_detect_result res;
	memset(&res, 0, sizeof res);
	if (sem_scene_detect(&s, &o, fs_detect_domes, &res)) {
		fprintf(stderr, "bench_nobase_scene: %s\n", s.err);
		return 1;
	}
	sem_match_errors e;
	size_t unmeasured = 0;
	for (size_t i = 0; i < res.tubercles.n; i++)
		unmeasured += !fs_tubercle_measured(&res.tubercles.items[i]);
	int rc = sem_matched_errors(&s.tr, &res.tubercles, &e);
	printf("pitch %.0f fill %.2f profile %.0f h/R %.2f rough %.2f undul %.1f dose %.0f blur %.1f scan %.1f "
	       "halftone %.1f edge %.2f strength %.2f seed %u\n",
	       o.pitch, o.fill, o.profile, o.h_over_r, o.roughness, o.undulation, o.dose, o.beam_blur, o.scan_blur,
	       o.halftone, o.edge, o.det_strength, o.seed);
	if (rc == 0)
		printf("  %zu tubercles, %zu unmeasured; matched %zu, sized %zu, mean D %+.1f %% of truth\n",
		       res.tubercles.n, unmeasured, e.n, e.n_measured,
		       e.sum_truth > 0 ? 100 * (e.sum_d / e.sum_truth - 1) : NAN);
	fs_detect_result_free(&res);
	sem_scene_close(&s);
	return rc ? 1 : 0;
}
