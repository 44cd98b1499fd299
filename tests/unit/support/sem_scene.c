/*
 * sem_scene.c - a simulated SEM scene made ready to measure (sem_scene.h).
 */
#include "sem_scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sem_cache.h"

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

void sem_fig4_like(sem_opts *o, double h_over_r, double fill, double lean, double cap, double cap_power)
{
	sem_defaults(o);
	o->width = 700;
	o->height = 540;
	o->pitch = 75;
	o->fill = fill;
	o->angle = 0.3;
	o->det_azimuth = -65 * M_PI / 180;
	o->profile = SEM_PROFILE_SMOOTH;
	o->h_over_r = h_over_r;
	o->halftone = 2.84;
	o->scan_blur = 0.8;
	o->lean = lean;
	o->lean_azimuth = o->det_azimuth + M_PI;
	o->cap = cap;
	o->cap_power = cap_power;
}

void sem_fig1c_like(sem_opts *o, double h_over_r)
{
	sem_defaults(o);
	o->width = 355;
	o->height = 438;
	o->pitch = 43;
	o->fill = 0.488;
	o->profile = 1;
	o->h_over_r = h_over_r;
	o->det_azimuth = 162 * M_PI / 180;
	o->det_elevation = 25 * M_PI / 180;
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

int sem_scene_render(sem_scene *s, const sem_opts *o)
{
	memset(s, 0, sizeof *s);
	fs_params_default(&s->p);
	s->img = sem_make_shared(o, &s->tr);
	if (!s->img) {
		snprintf(s->err, sizeof s->err, "the simulator refused the scene");
		return -1;
	}
	return 0;
}

int sem_scene_detect(sem_scene *s, const sem_opts *o, sem_detect_fn fn, fs_detect_result *res)
{
	if (sem_scene_render(s, o))
		return -1;
	if (fn(s->img, &s->p, 0, res, s->err, sizeof s->err)) {
		sem_scene_close(s);
		return -1;
	}
	return 0;
}

int sem_detect_score(const fs_image *img, const sem_truth *t, double halftone, sem_detect_fn fn, sem_score *r,
		     char *err, size_t errlen)
{
	fs_params p;
	fs_params_default(&p);
	fs_detect_result res;
	if (fn(img, &p, 0, &res, err, errlen))
		return -1;
	int rc = sem_score_detection(t, &res.tubercles, halftone, r);
	fs_detect_result_free(&res);
	return rc;
}

int sem_match_tubercles(const sem_truth *tr, const fs_tubercle_list *t, int *match_of_det, int *match_of_truth)
{
	size_t m = t->n ? t->n : 1;
	double *xs = malloc(m * sizeof *xs), *ys = malloc(m * sizeof *ys);
	int rc = -1;
	if (xs && ys) {
		for (size_t i = 0; i < t->n; i++) {
			xs[i] = t->items[i].centroid_x;
			ys[i] = t->items[i].centroid_y;
		}
		rc = sem_match(tr, xs, ys, t->n, 0.25 * tr->pitch, match_of_det, match_of_truth);
	}
	free(xs);
	free(ys);
	return rc;
}

int sem_matched_errors(const sem_truth *tr, const fs_tubercle_list *t, sem_match_errors *e)
{
	int *mt = malloc((t->n ? t->n : 1) * sizeof *mt);
	int rc = -1;
	memset(e, 0, sizeof *e);
	if (!mt || sem_match_tubercles(tr, t, mt, NULL))
		goto out;
	for (size_t i = 0; i < t->n; i++) {
		int k = mt[i];
		if (k < 0 || !sem_counted(tr, tr->x[k], tr->y[k]))
			continue;
		e->ox += t->items[i].centroid_x - tr->x[k];
		e->oy += t->items[i].centroid_y - tr->y[k];
		e->n++;
		if (!fs_tubercle_measured(&t->items[i]))
			continue;
		e->sum_d += 2 * t->items[i].radius_px;
		e->sum_truth += tr->d[k];
		e->n_measured++;
	}
	rc = 0;
out:
	free(mt);
	return rc;
}

int sem_matched_diameters(const sem_truth *tr, const fs_tubercle_list *t, double *sum_d, double *sum_truth,
			  size_t *n)
{
	sem_match_errors e;
	int rc = sem_matched_errors(tr, t, &e);
	*sum_d = e.sum_d;
	*sum_truth = e.sum_truth;
	*n = e.n_measured;
	return rc;
}

int sem_inside_centres(const sem_truth *tr, fs_tubercle_list *t)
{
	for (size_t i = 0; i < tr->n; i++) {
		if (!tr->inside[i])
			continue;
		fs_tubercle x;
		fs_tubercle_init(&x);
		x.id = (int)t->n + 1;
		x.centroid_x = tr->x[i];
		x.centroid_y = tr->y[i];
		x.source = FS_SOURCE_MANUAL;
		if (fs_tubercle_list_append(t, &x))
			return -1;
	}
	return 0;
}

int sem_corner_dome_errors(int k, sem_match_errors *e, double *pitch)
{
	sem_opts o;
	sem_corner_scene(k, &o);
	sem_scene s;
	fs_detect_result res;
	memset(e, 0, sizeof *e);
	if (sem_scene_detect(&s, &o, fs_detect_domes, &res)) {
		printf("# corner scene %d: %s\n", k, s.err);
		return -1;
	}
	int rc = sem_matched_errors(&s.tr, &res.tubercles, e);
	if (rc)
		printf("# corner scene %d: the match failed\n", k);
	if (pitch)
		*pitch = s.tr.pitch;
	fs_detect_result_free(&res);
	sem_scene_close(&s);
	return rc;
}
