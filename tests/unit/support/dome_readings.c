/* dome_readings.c - see dome_readings.h. */
#include "dome_readings.h"

#include <stdio.h>
#include <string.h>

#include "same_bits.h"

void dome_read_all(const fs_image *img, double x, double y, double rmin, double rmax, double smooth,
		   dome_readings *r)
{
	memset(r, 0, sizeof *r);
	r->rc[0] = fs_dome_measure(img, x, y, rmin, rmax, smooth, &r->t[0]);
	r->rc[1] = fs_dome_measure(img, x, y, rmin, rmax, 0, &r->t[1]);
	r->rc[2] = fs_dome_measure_base_blur(img, x, y, rmin, rmax, &r->t[2], &r->edge[0], &r->var);
	r->rc[3] = fs_dome_measure_base_edge(img, x, y, rmin, rmax, 1, &r->t[3], &r->edge[1]);
	r->rc[4] = fs_dome_measure_lone(img, x, y, rmin, rmax, smooth, &r->t[4]);
	r->rc[5] = fs_dome_measure_base_trace(img, x, y, rmin, rmax, &r->tr);
}

/* tubercle i's first differing field, named in buf; NULL when none */
static const char *tubercle_differs(int i, const fs_tubercle *p, const fs_tubercle *q, char *buf, size_t size)
{
	static const char *tub_d[] = {"centroid_x", "centroid_y", "radius_px", "fit_quality", "circularity",
				      "major_axis_px", "minor_axis_px", "orientation", "eccentricity"};
	static const char *tub_i[] = {"id", "has_ellipse", "is_boundary", "source"};
	const double pd[] = {p->centroid_x, p->centroid_y, p->radius_px, p->fit_quality, p->circularity,
			     p->major_axis_px, p->minor_axis_px, p->orientation, p->eccentricity};
	const double qd[] = {q->centroid_x, q->centroid_y, q->radius_px, q->fit_quality, q->circularity,
			     q->major_axis_px, q->minor_axis_px, q->orientation, q->eccentricity};
	const int pi[] = {p->id, p->has_ellipse, p->is_boundary, (int)p->source};
	const int qi[] = {q->id, q->has_ellipse, q->is_boundary, (int)q->source};
	for (int k = 0; k < 9; k++)
		if (!test_same_bits(pd[k], qd[k])) {
			snprintf(buf, size, "t[%d].%s", i, tub_d[k]);
			return buf;
		}
	for (int k = 0; k < 4; k++)
		if (pi[k] != qi[k]) {
			snprintf(buf, size, "t[%d].%s", i, tub_i[k]);
			return buf;
		}
	return NULL;
}

const char *dome_readings_differ(const dome_readings *a, const dome_readings *b, char *buf, size_t size)
{
	static const char *trace[] = {"rpoly", "ishift", "kappa", "sigma", "r_step", "r_small",
				      "w_small", "w_local", "radius", "x", "y", "quality"};
	for (int i = 0; i < 6; i++)
		if (a->rc[i] != b->rc[i]) {
			snprintf(buf, size, "rc[%d]", i);
			return buf;
		}
	for (int i = 0; i < 5; i++)
		if (tubercle_differs(i, &a->t[i], &b->t[i], buf, size))
			return buf;
	for (int i = 0; i < 2; i++)
		if (a->edge[i] != b->edge[i]) {
			snprintf(buf, size, "edge[%d]", i);
			return buf;
		}
	if (!test_same_bits(a->var, b->var)) {
		snprintf(buf, size, "var");
		return buf;
	}
	const fs_dome_base_trace *p = &a->tr, *q = &b->tr;
	const double pt[] = {p->rpoly, p->ishift, p->kappa, p->sigma, p->r_step, p->r_small,
			     p->w_small, p->w_local, p->radius, p->x, p->y, p->quality};
	const double qt[] = {q->rpoly, q->ishift, q->kappa, q->sigma, q->r_step, q->r_small,
			     q->w_small, q->w_local, q->radius, q->x, q->y, q->quality};
	for (int k = 0; k < 12; k++)
		if (!test_same_bits(pt[k], qt[k])) {
			snprintf(buf, size, "tr.%s", trace[k]);
			return buf;
		}
	return NULL;
}
