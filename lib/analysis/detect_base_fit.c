/* detect_base_fit.c - the dome rule's per-tubercle diameters from the
 * template fit at the base rule's level (see detect_base_fit.h). */
#include "analysis/detect_base_fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dome_base_fit.h"
#include "analysis/halftone.h"
#include "analysis/preprocess.h"

/* the base rule's gate (detect_measure.c): below this share of the rays'
 * steps on one circle there is no dome */
#define DOME_QUALITY 0.45
#define MIN_SIZED 8

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int is_dome(const fs_measured *q)
{
	return q->ok && q->t.fit_quality >= DOME_QUALITY && isfinite(q->t.radius_px) && q->t.radius_px > 0;
}

int fs_det_base_fit_apply(const fs_meas *m, const fs_cand_list *c, const fs_det_offset *off, fs_measured *meas,
			  fs_det_base_fit *info)
{
	fs_det_base_fit dummy;
	if (!info)
		info = &dummy;
	memset(info, 0, sizeof *info);
	if (!m->img || !m->dome || !off || !off->fitted)
		return 0;
	size_t n = 0;
	for (size_t i = 0; i < c->n; i++)
		n += is_dome(&meas[i]);
	if (n < MIN_SIZED)
		return 0;
	int rc = -1;
	double *xs = malloc(n * sizeof *xs), *ys = malloc(n * sizeof *ys), *rs = malloc(n * sizeof *rs);
	double *fr = malloc(c->n * sizeof *fr);
	fs_image *lp = NULL;
	fs_dome_tpl t;
	memset(&t, 0, sizeof t);
	char err[128];
	if (!xs || !ys || !rs || !fr)
		goto out;
	n = 0;
	for (size_t i = 0; i < c->n; i++)
		if (is_dome(&meas[i])) {
			xs[n] = meas[i].t.centroid_x;
			ys[n] = meas[i].t.centroid_y;
			rs[n++] = meas[i].t.radius_px;
		}
	qsort(rs, n, sizeof *rs, cmp_double);
	double fill0 = 2 * rs[n / 2] / off->fit.pitch;
	/* the formation was fitted with a halftone screen low-passed away
	 * (dome_fit.h): the patches are read the same way */
	const fs_image *img = m->img;
	if (off->fit.halftone > 0) {
		if (!(lp = fs_gaussian_blurred(m->img, FS_HALFTONE_LOWPASS * off->fit.halftone, err, sizeof err)))
			goto out;
		img = lp;
	}
	int b = fs_dome_tpl_build(img, &off->fit, fill0, xs, ys, n, &t, err, sizeof err);
	if (b < 0)
		goto out;
	rc = 0;
	if (b > 0)
		goto out; /* no templates: the base rule's radii stand */
	double sb = 0, sf = 0;
	for (size_t i = 0; i < c->n; i++) {
		fr[i] = NAN;
		if (!is_dome(&meas[i]))
			continue;
		fs_dome_tfit f;
		int q = fs_dome_tpl_fit(&t, img, meas[i].t.centroid_x, meas[i].t.centroid_y, &f);
		if (q < 0) {
			rc = -1;
			goto out;
		}
		if (q > 0 || !isfinite(f.radius))
			continue;
		fr[i] = f.radius;
		sb += meas[i].t.radius_px;
		sf += f.radius;
		info->fitted++;
	}
	if (info->fitted < MIN_SIZED || !(sf > 0))
		goto out;
	info->applied = 1;
	info->scale = sb / sf;
	for (size_t i = 0; i < c->n; i++) {
		if (!is_dome(&meas[i]))
			continue;
		if (!isfinite(fr[i])) {
			info->kept++;
			continue;
		}
		fs_tubercle *q = &meas[i].t;
		double r = info->scale * fr[i], s = r / q->radius_px;
		q->radius_px = r;
		q->major_axis_px *= s;
		q->minor_axis_px *= s;
	}
out:
	free(xs);
	free(ys);
	free(rs);
	free(fr);
	fs_image_free(lp);
	fs_dome_tpl_free(&t);
	return rc;
}
