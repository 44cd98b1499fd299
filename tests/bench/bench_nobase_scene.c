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
 * Usage: bench_nobase_scene [KEY=VALUE ...] on sem_defaults; the keys are
 * sem_opts_keys.h's. Without keys: P1 Fig1's frame as far as h38b matched it (see
 * main). Cost: a scene of 700 x 540 px about 1-3 s of CPU.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "image/tubercle.h"
#include "sem_opts_keys.h"
#include "sem_scene.h"
#include "sem_sim.h"

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
		if (sem_opts_set_key(&o, argv[i])) {
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
