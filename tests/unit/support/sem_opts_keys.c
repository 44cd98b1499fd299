/* sem_opts_keys.c - see sem_opts_keys.h */
#include "sem_opts_keys.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sem_opts_set_key(sem_opts *o, const char *kv)
{
	const char *eq = strchr(kv, '=');
	if (!eq)
		return -1;
	size_t n = (size_t)(eq - kv);
	double v = atof(eq + 1), deg = v * M_PI / 180;
#define K(name) (n == strlen(name) && !strncmp(kv, name, n))
	if (K("pitch"))
		o->pitch = v;
	else if (K("fill"))
		o->fill = v;
	else if (K("angle"))
		o->angle = deg;
	else if (K("profile"))
		o->profile = v;
	else if (K("hr"))
		o->h_over_r = v;
	else if (K("rjit"))
		o->radius_jitter = v;
	else if (K("pjit"))
		o->pos_jitter = v;
	else if (K("rough"))
		o->roughness = v;
	else if (K("undul"))
		o->undulation = v;
	else if (K("secant"))
		o->secant_n = v;
	else if (K("az"))
		o->det_azimuth = deg;
	else if (K("elev"))
		o->det_elevation = deg;
	else if (K("strength"))
		o->det_strength = v;
	else if (K("shadow"))
		o->shadow = v;
	else if (K("edge"))
		o->edge = v;
	else if (K("blur"))
		o->beam_blur = v;
	else if (K("dose"))
		o->dose = v;
	else if (K("drift"))
		o->drift = v;
	else if (K("halftone"))
		o->halftone = v;
	else if (K("scan"))
		o->scan_blur = v;
	else if (K("cap"))
		o->cap = v;
	else if (K("capp"))
		o->cap_power = v;
	else if (K("foot"))
		o->foot_power = v;
	else if (K("footst"))
		o->foot_stretch = v;
	else if (K("footfrom"))
		o->foot_from = v;
	else if (K("width"))
		o->width = (int)v;
	else if (K("height"))
		o->height = (int)v;
	else if (K("supersample") || K("super"))
		o->supersample = (int)v;
	else if (K("beam_continuous") || K("beamc"))
		o->beam_continuous = (int)v;
	else if (K("shiftx"))
		o->shift_x = v;
	else if (K("shifty"))
		o->shift_y = v;
	else if (K("seed"))
		o->seed = (unsigned)v;
	else
		return -1;
#undef K
	return 0;
}

int sem_opts_set_keys(sem_opts *o, const char *list)
{
	if (!list)
		return 0;
	const char *p = list;
	for (;;) {
		p += strspn(p, ", \t\n");
		if (!*p)
			return 0;
		size_t n = strcspn(p, ", \t\n");
		char item[128];
		if (n >= sizeof item)
			return -1;
		memcpy(item, p, n);
		item[n] = 0;
		if (sem_opts_set_key(o, item))
			return -1;
		p += n;
	}
}

int sem_opts_args_add(sem_opts_args *a, const char *kv)
{
	sem_opts probe;
	sem_defaults(&probe);
	if (a->n >= SEM_OPTS_ARGS_MAX || sem_opts_set_key(&probe, kv))
		return -1;
	a->kv[a->n++] = kv;
	return 0;
}

int sem_opts_args_say(sem_opts_args *a, const char *prog, const char *opt, const char *kv)
{
	if (!sem_opts_args_add(a, kv))
		return 0;
	fprintf(stderr, "%s: %s %s: no such key (sem_opts_keys.h) or more than %d\n", prog, opt, kv, SEM_OPTS_ARGS_MAX);
	return -1;
}

int sem_bench_arg(int argc, char **argv, int *i, unsigned *seed_add, sem_opts_args *a)
{
	if (*i + 1 >= argc)
		return 0;
	if (!strcmp(argv[*i], "--seed-add")) {
		*seed_add = (unsigned)strtoul(argv[++*i], NULL, 10);
		return 1;
	}
	if (a && !strcmp(argv[*i], "--set")) {
		if (sem_opts_args_say(a, argv[0], "--set", argv[++*i]))
			exit(2);
		return 1;
	}
	return 0;
}

void sem_opts_args_apply(const sem_opts_args *a, sem_opts *o)
{
	for (int i = 0; i < a->n; i++)
		(void)sem_opts_set_key(o, a->kv[i]); /* checked when added */
}

void sem_corner_args(int k, unsigned seed_add, const sem_opts_args *a, sem_opts *o)
{
	sem_scene_args(0, k, seed_add, a, o);
}

void sem_scene_args(int interior, int k, unsigned seed_add, const sem_opts_args *a, sem_opts *o)
{
	if (interior)
		sem_interior_scene(k, o);
	else
		sem_corner_scene(k, o);
	o->seed += seed_add;
	sem_opts_args_apply(a, o);
}
