/*
 * sem_scene.c - a simulated SEM scene made ready to measure (sem_scene.h).
 */
#include "sem_scene.h"

#include <math.h>
#include <string.h>

void sem_low_domes(sem_opts *o)
{
	sem_defaults(o);
	o->pitch = 32;
	o->fill = 0.5;
	o->h_over_r = 0.3;
}

void sem_tight_side_lit(sem_opts *o)
{
	sem_defaults(o);
	o->width = 480;
	o->height = 400;
	o->pitch = 16;
	o->fill = 0.8;
	o->det_azimuth = 135 * M_PI / 180;
}

int sem_scene_open(sem_scene *s, const sem_opts *o)
{
	memset(s, 0, sizeof *s);
	fs_params_default(&s->p);
	s->img = sem_make(o, &s->tr);
	return s->img ? 0 : -1;
}

void sem_scene_close(sem_scene *s)
{
	sem_truth_free(&s->tr);
	fs_image_free(s->img);
	s->img = NULL;
}
