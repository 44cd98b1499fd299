/* base_plan_fixture.c - see base_plan_fixture.h. */
#include "base_plan_fixture.h"

#include <string.h>

void base_plan_init(base_plan_fixture *f, size_t n, double pitch, double y, fs_measured *meas)
{
	memset(f, 0, sizeof *f);
	f->p.n = n;
	f->p.idx = f->idx;
	f->p.xs = f->xs;
	f->p.ys = f->ys;
	memset(meas, 0, n * sizeof *meas);
	for (size_t k = 0; k < n; k++) {
		f->idx[k] = k;
		f->xs[k] = f->fx[k] = pitch * (double)k;
		f->ys[k] = f->fy[k] = y;
		fs_tubercle_init(&meas[k].t);
		meas[k].ok = 1;
		meas[k].t.fit_quality = 0.8;
	}
}

void base_plan_radius(fs_measured *m, double r)
{
	m->t.radius_px = r;
	m->t.major_axis_px = m->t.minor_axis_px = 2 * r;
}

void base_plan_scale(base_plan_fixture *f, fs_measured *meas, fs_det_base_fit *info)
{
	fs_det_base_fit_scale(&f->p, f->fr, f->fx, f->fy, f->lr, f->le, f->step, meas, info);
}
