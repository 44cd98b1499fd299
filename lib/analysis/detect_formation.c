/* detect_formation.c - the dome rule's bases through the fitted formation
 * (see detect_formation.h). */
#include "analysis/detect_formation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dome_base_fit.h"
#include "analysis/halftone.h"
#include "analysis/preprocess.h"

/* the base rule's gate: below this share of the rays' steps on one circle
 * there is no dome (a hole between domes, texture) */
#define DOME_QUALITY 0.45

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int fs_det_formation_measure(const fs_meas *m, const fs_cand_list *c, const fs_det_offset *off,
			     fs_measured *meas, fs_det_formation *info)
{
	fs_det_formation dummy;
	if (!info)
		info = &dummy;
	memset(info, 0, sizeof *info);
	size_t n = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (meas[i].ok && !(meas[i].t.fit_quality >= DOME_QUALITY))
			meas[i].ok = 0;
		n += meas[i].ok && isfinite(meas[i].t.radius_px);
	}
	if (!off || !off->fitted || n < 8)
		return 0;
	int rc = -1;
	double *xs = malloc(n * sizeof *xs), *ys = malloc(n * sizeof *ys), *rs = malloc(n * sizeof *rs);
	fs_image *lp = NULL;
	fs_dome_tpl t;
	memset(&t, 0, sizeof t);
	char err[128];
	if (!xs || !ys || !rs)
		goto out;
	n = 0;
	for (size_t i = 0; i < c->n; i++)
		if (meas[i].ok && isfinite(meas[i].t.radius_px)) {
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
	/* Two passes: the formation chosen on the patches around the base
	 * rule's centres, every dome fitted (its centre moved to where the
	 * template fits best); the formation chosen again around those
	 * centres and every dome fitted again from there. (On the detector's
	 * centres, 1-2 px off the domes' at a 16 px pitch, the first choice
	 * is a formation that explains the offset patches.) */
	int npass = 2;
	for (int pass = 0; pass < npass; pass++) {
		int b = fs_dome_tpl_build(img, &off->fit, fill0, xs, ys, n, pass == npass - 1, &t, err, sizeof err);
		if (b < 0)
			goto out;
		rc = 0;
		if (b > 0)
			goto out;
		size_t m2 = 0;
		for (size_t i = 0; i < c->n; i++) {
			fs_tubercle *q = &meas[i].t;
			if (!meas[i].ok || !isfinite(q->radius_px) || !(q->radius_px > 0))
				continue;
			fs_dome_tfit f;
			if (fs_dome_tpl_fit(&t, img, q->centroid_x, q->centroid_y, &f))
				continue;
			if (pass < npass - 1) {
				/* the next pass's centres and median fill */
				q->centroid_x = f.x;
				q->centroid_y = f.y;
				if (isfinite(f.radius) && m2 < n) {
					xs[m2] = f.x;
					ys[m2] = f.y;
					rs[m2++] = f.radius;
				}
				continue;
			}
			info->fitted++;
			q->centroid_x = f.x;
			q->centroid_y = f.y;
			q->fit_quality = f.quality;
			if (!isfinite(f.radius)) {
				info->unmeasured++;
				q->radius_px = NAN;
				continue;
			}
			double s = f.radius / q->radius_px;
			q->radius_px = f.radius;
			q->major_axis_px *= s;
			q->minor_axis_px *= s;
		}
		fs_dome_tpl_free(&t);
		if (pass < npass - 1) {
			if (m2 < 8)
				break; /* keep the first pass's centres, the base rule's radii */
			n = m2;
			qsort(rs, n, sizeof *rs, cmp_double);
			fill0 = 2 * rs[n / 2] / off->fit.pitch;
		}
	}
	info->applied = info->fitted > 0;
out:
	free(xs);
	free(ys);
	free(rs);
	fs_image_free(lp);
	fs_dome_tpl_free(&t);
	return rc;
}
