/*
 * printed_scene.c - a screened interior scene set up for the unrefined
 * path's tests (see printed_scene.h).
 */
#include "printed_scene.h"

#include <stdio.h>
#include <string.h>

#include "analysis/detect_methods.h"
#include "analysis/lattice_estimate.h"
#include "sem_cache.h"

int printed_scene_open(printed_scene *s, int k, unsigned seed_add, double halftone)
{
	memset(s, 0, sizeof *s);
	sem_interior_scene(k, &s->o);
	s->o.seed += seed_add;
	s->o.halftone = halftone;
	fs_params_default(&s->p);
	s->img = sem_make_shared(&s->o, &s->tr);
	if (!s->img) {
		snprintf(s->err, sizeof s->err, "interior scene %d seed +%u not rendered", k, seed_add);
		return -1;
	}
	fs_lattice lat;
	if (fs_lattice_estimate(s->img, &lat, s->err, sizeof s->err))
		return -1;
	s->pitch = lat.pitch_px;
	return fs_detect_measure_image(s->img, &s->p, 0.5, &s->meas, s->err, sizeof s->err);
}

int printed_scene_true_cands(const printed_scene *s, fs_cand_list *out)
{
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < s->tr.n; i++) {
		fs_cand q = {.x = s->tr.x[i], .y = s->tr.y[i], .r = 0.3 * s->pitch};
		if (q.x >= 0 && q.y >= 0 && q.x < s->img->width && q.y < s->img->height && fs_cand_append(out, &q))
			return -1;
	}
	return 0;
}

void printed_scene_close(printed_scene *s)
{
	fs_image_free(s->meas);
	fs_image_free(s->img);
	sem_truth_free(&s->tr);
	memset(s, 0, sizeof *s);
}
