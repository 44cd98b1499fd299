/*
 * detect_diff.c - the difference of two detections (see detect_diff.h).
 */
#include "detect_diff.h"

#include <math.h>

/* The larger of m and v, a NaN kept once seen: a NaN must fail the
 * caller's "< tolerance", as a comparison of the two values would. */
static double worse(double m, double v)
{
	if (isnan(m))
		return m;
	return isnan(v) || v > m ? v : m;
}

void detect_diff_compute(const fs_tubercle_list *a, const fs_edge_list *ea, const fs_tubercle_list *b,
			 const fs_edge_list *eb, detect_diff *d)
{
	*d = (detect_diff){.n_a = a->n, .n_b = b->n, .ne_a = ea->n, .ne_b = eb->n};
	size_t n = a->n < b->n ? a->n : b->n;
	for (size_t i = 0; i < n; i++) {
		const fs_tubercle *p = &a->items[i], *q = &b->items[i];
		d->n_id_differ += p->id != q->id;
		d->n_source_differ += p->source != q->source;
		d->d_centre = worse(d->d_centre, fabs(p->centroid_x - q->centroid_x));
		d->d_centre = worse(d->d_centre, fabs(p->centroid_y - q->centroid_y));
		d->n_radius_nan_a += isnan(p->radius_px) != 0;
		if (isnan(p->radius_px) != isnan(q->radius_px))
			d->n_radius_nan_mismatch++;
		else if (!isnan(p->radius_px))
			d->d_radius = worse(d->d_radius, fabs(p->radius_px - q->radius_px));
		d->d_circularity = worse(d->d_circularity, fabs(p->circularity - q->circularity));
	}
	size_t ne = ea->n < eb->n ? ea->n : eb->n;
	for (size_t i = 0; i < ne; i++)
		d->n_edge_differ += ea->items[i].id1 != eb->items[i].id1 || ea->items[i].id2 != eb->items[i].id2;
}
