/*
 * detect_walk.c - the candidates walked by the formation's offset (see
 * detect_walk.h).
 */
#include "analysis/detect_walk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* mode 2 by default since h51f: with the lit cap (dome_measure.h) the
 * walked printed domes read within test_offset_refused's bounds */
static int walk_on = 2;

void fs_det_walk_set(int on)
{
	walk_on = on;
}

int fs_det_walk_get(void)
{
	return walk_on;
}

static fs_det_walk_trace *walk_trace;

void fs_det_walk_set_trace(fs_det_walk_trace *t)
{
	walk_trace = t;
}

/* the mean radius of meas[0..n)'s domes, full-resolution px (F: m's
 * scale), NAN for none; *k (may be NULL) their count */
static double mean_radius(const fs_measured *meas, size_t n, double F, size_t *k)
{
	double sr = 0;
	size_t c = 0;
	for (size_t i = 0; meas && i < n; i++) {
		if (meas[i].ok && isfinite(meas[i].t.radius_px)) {
			sr += meas[i].t.radius_px;
			c++;
		}
	}
	if (k)
		*k = c;
	return c ? F * sr / c : NAN;
}

/* one reading into the trace (when one is set) */
static void trace_step(double sx, double sy, const fs_det_offset *off, const fs_measured *meas, size_t n, double F,
		       double first_r)
{
	if (!walk_trace || walk_trace->n >= FS_DET_WALK_STEPS)
		return;
	fs_det_walk_step *s = &walk_trace->step[walk_trace->n++];
	memset(s, 0, sizeof *s);
	s->sx = sx;
	s->sy = sy;
	s->fitted = off->fitted;
	s->dx = off->dx * F;
	s->dy = off->dy * F;
	s->quality = off->quality;
	s->fill = off->fit.fill;
	s->h_over_r = off->fit.h_over_r;
	s->blur_px = off->fit.blur_px;
	s->side = off->fit.side;
	s->mean_r = mean_radius(meas, n, F, &s->n_ok);
	s->first_r = first_r;
}

int fs_det_walk_shift_by(const fs_det_walk_reader *r, const fs_cand_list *c, double *sx, double *sy, int *steps)
{
	int taken = 0;
	*sx = *sy = 0;
	if (steps)
		*steps = 0;
	if (walk_trace)
		walk_trace->n = 0;
	if (!c->n)
		return 0;
	fs_cand_list w = {.items = malloc(c->n * sizeof *c->items), .n = c->n, .cap = c->n};
	if (!w.items)
		return -1;
	memcpy(w.items, c->items, c->n * sizeof *c->items);
	double F = r->F, last = INFINITY;
	double first_r = walk_trace && r->first ? mean_radius(r->first, c->n, F, NULL) : NAN;
	int rc = -1;
	for (int k = 0; k < FS_DET_WALK_STEPS; k++) {
		fs_det_offset off;
		const fs_measured *meas = NULL;
		if (r->read(r->ctx, &w, &off, &meas))
			goto out;
		trace_step(*sx, *sy, &off, meas, w.n, F, first_r);
		/* the offset in m's pixels, the candidates in the input's */
		double dx = off.dx * F, dy = off.dy * F, d = hypot(dx, dy);
		if (!off.fitted || !(d <= last))
			break;
		for (size_t i = 0; i < w.n; i++) {
			w.items[i].x += dx;
			w.items[i].y += dy;
		}
		*sx += dx;
		*sy += dy;
		taken++;
		last = d;
		if (d < FS_DET_WALK_STOP || (walk_trace && walk_trace->max_steps > 0 && taken >= walk_trace->max_steps))
			break;
	}
	if (steps)
		*steps = taken;
	rc = 0;
out:
	free(w.items);
	return rc;
}

/* the whole image's reader (fs_det_walk_shift) */
struct whole_reader {
	fs_meas m0; /* the caller's, without the refinement */
	double max_r, smooth;
	fs_measured *meas;
};

static int whole_read(void *ctx, const fs_cand_list *w, fs_det_offset *off, const fs_measured **meas)
{
	struct whole_reader *wr = ctx;
	/* (each step's own floor: the caller's is for its final
	 * measurement) */
	fs_det_measure_unrefined(&wr->m0, w, wr->max_r, wr->smooth, NULL, wr->meas, NULL);
	*meas = wr->meas;
	return fs_det_offset_read(&wr->m0, w, wr->max_r, wr->smooth, wr->meas, off);
}

int fs_det_walk_shift(const fs_meas *m, const fs_cand_list *c, double max_r, double smooth, fs_measured *meas,
		      double *sx, double *sy, int *steps)
{
	struct whole_reader wr = {*m, max_r, smooth, meas};
	wr.m0.refine = 0;
	wr.m0.held_lowpass = fs_det_offset_held_lowpass();
	const fs_det_walk_reader r = {whole_read, &wr, m->f, meas};
	return fs_det_walk_shift_by(&r, c, sx, sy, steps);
}
