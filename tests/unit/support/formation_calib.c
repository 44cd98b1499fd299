/*
 * formation_calib.c - the level reader's calibration on the formation's
 * own rendered dome (formation_calib.h).
 */
#include "formation_calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dome_measure.h"

void formation_sim(const sem_opts *o, double pitch, double fill, double blur, fs_dome_fit *f)
{
	memset(f, 0, sizeof *f);
	f->pitch = pitch;
	f->angle = o->angle;
	f->profile = o->profile;
	f->h_over_r = o->h_over_r;
	f->blur_px = blur;
	f->azimuth = o->det_azimuth;
	f->elevation = o->det_elevation;
	f->fill = fill;
}

int formation_sim_templates_at(const sem_opts *o, const fs_image *img, const sem_truth *t, double blur,
			       fs_dome_fit *f, fs_dome_tpl *u, double **xs, double **ys, size_t *n)
{
	formation_sim(o, t->pitch, o->fill, blur, f);
	*xs = malloc((t->n + 1) * sizeof **xs);
	*ys = malloc((t->n + 1) * sizeof **ys);
	*n = 0;
	if (!*xs || !*ys)
		return -1;
	*n = sem_counted_centres(t, *xs, *ys);
	char err[128];
	return fs_dome_tpl_build(img, f, o->fill, *xs, *ys, *n, u, err, sizeof err);
}

int formation_sim_templates(const sem_opts *o, const fs_image *img, const sem_truth *t, fs_dome_fit *f,
			    fs_dome_tpl *u)
{
	double *xs, *ys;
	size_t n;
	int rc = formation_sim_templates_at(o, img, t, o->beam_blur, f, u, &xs, &ys, &n);
	free(xs);
	free(ys);
	return rc;
}

double formation_calib_factor(const fs_image *img, const fs_dome_fit *f, const double *xs, const double *ys, size_t n,
			      double fill, double r0, double r1)
{
	fs_dome_tpl tpl;
	char err[128];
	if (fs_dome_tpl_build(img, f, fill, xs, ys, n, &tpl, err, sizeof err))
		return NAN;
	/* 1.5 pitches either side of the dome: the reader's window (0.6
	 * pitch) and the nearest neighbours, whose flanks it sees, inside */
	int size = 2 * (int)ceil(1.5 * f->pitch);
	double sum = 0;
	int got = 0;
	for (int ph = 0; ph < 4; ph++) {
		/* four sub-pixel phases: the reader's bias, not one phase's */
		double cx = 0.5 * size + 0.5 * (ph & 1), cy = 0.5 * size + 0.5 * (ph >> 1);
		fs_image *dome = NULL;
		fs_dome_base_trace tr;
		if (fs_dome_tpl_render(&tpl, f, fill, size, cx, cy, &dome))
			continue;
		if (!fs_dome_measure_base_trace(dome, cx, cy, r0, r1, &tr) && tr.radius > 0) {
			sum += tr.radius;
			got++;
		}
		fs_image_free(dome);
	}
	fs_dome_tpl_free(&tpl);
	return got == 4 ? 0.5 * fill * f->pitch / (sum / got) : NAN;
}
