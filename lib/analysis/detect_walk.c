/*
 * detect_walk.c - the candidates walked by the formation's offset (see
 * detect_walk.h).
 */
#include "analysis/detect_walk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_offset.h"

int fs_det_walk_shift(const fs_meas *m, const fs_cand_list *c, double max_r, double smooth, fs_measured *meas,
		      double *sx, double *sy, int *steps)
{
	int taken = 0;
	*sx = *sy = 0;
	if (steps)
		*steps = 0;
	if (!c->n)
		return 0;
	fs_cand_list w = {.items = malloc(c->n * sizeof *c->items), .n = c->n, .cap = c->n};
	if (!w.items)
		return -1;
	memcpy(w.items, c->items, c->n * sizeof *c->items);
	fs_meas m0 = *m;
	m0.refine = 0;
	double F = m->f, last = INFINITY;
	int rc = -1;
	for (int k = 0; k < FS_DET_WALK_STEPS; k++) {
		/* (each step's own floor: the caller's is for its final
		 * measurement) */
		fs_det_measure_unrefined(m, &w, max_r, smooth, NULL, meas, NULL);
		fs_det_offset off;
		if (fs_det_offset_correct(&m0, &w, max_r, smooth, meas, &off))
			goto out;
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
		if (d < FS_DET_WALK_STOP)
			break;
	}
	if (steps)
		*steps = taken;
	rc = 0;
out:
	free(w.items);
	return rc;
}
