/*
 * scene_sets.c - see scene_sets.h.
 */
#include "scene_sets.h"

#include <stdio.h>
#include <string.h>

#include "analysis/detect_methods.h"

const char *const SET_NAME[NSET] = {"corner", "interior", "smooth"};
const int SET_COUNT[NSET] = {64, SEM_INTERIOR_SCENES, SEM_SMOOTH_SCENES};

int small_dome_scenes(int *scenes, int with_b1)
{
	static const int aeb1[16] = {2, 6, 18, 22, 0, 4, 16, 20, 1, 3, 5, 7, 17, 19, 21, 23};
	int n = with_b1 ? 16 : 8;
	for (int i = 0; i < n; i++)
		scenes[i] = aeb1[i];
	return n;
}

int scene_set_named(const char *name)
{
	for (int set = 0; set < NSET; set++)
		if (!strcmp(name, SET_NAME[set]))
			return set;
	return -1;
}

void scene_set_opts(int set, int k, unsigned seed_add, sem_opts *o)
{
	if (set == SET_CORNER)
		sem_corner_scene(k, o);
	else if (set == SET_INTERIOR)
		sem_interior_scene(k, o);
	else
		sem_smooth_scene(k, o);
	o->seed += seed_add;
}

int dome_scene_open(dome_scene *m, const sem_opts *o, int set, int k)
{
	return dome_scene_open_as(m, o, set, k, 1);
}

int dome_scene_open_as(dome_scene *m, const sem_opts *o, int set, int k, int detect)
{
	memset(m, 0, sizeof *m);
	if (detect ? sem_scene_detect(&m->s, o, fs_detect_domes, &m->res) : sem_scene_open(&m->s, o)) {
		printf("%s %d: %s\n", SET_NAME[set], k, m->s.err);
		dome_scene_close(m);
		return -1;
	}
	m->fimg = m->s.img->bits ? fs_image_to_float(m->s.img) : NULL;
	/* the rule's measurement image (detect.c, the dome rule's msig) */
	m->msig = m->res.pitch_px >= 40 ? 1.0 : 0.5;
	char err[256];
	if (fs_detect_measure_image(m->fimg ? m->fimg : m->s.img, &m->s.p, m->msig, &m->meas, err, sizeof err)) {
		printf("%s %d: measurement image: %s\n", SET_NAME[set], k, err);
		dome_scene_close(m);
		return -1;
	}
	return 0;
}

void dome_scene_close(dome_scene *m)
{
	fs_image_free(m->meas);
	fs_image_free(m->fimg);
	fs_detect_result_free(&m->res);
	sem_scene_close(&m->s);
}
