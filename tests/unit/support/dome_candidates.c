/*
 * dome_candidates.c - the dome rule's candidates as detect.c votes them
 * (dome_candidates.h).
 */
#include "dome_candidates.h"

#include <math.h>
#include <stdio.h>

#include "analysis/detect_methods.h"
#include "analysis/preprocess.h"

int dome_candidates(const fs_image *img, const fs_params *p, double pitch, int force_f, fs_cand_list *out,
		    int *f_out, char *err, size_t errlen)
{
	int f = pitch >= 20 ? (int)(pitch / 10) : 1;
	if (force_f > 0)
		f = force_f;
	int tile = (int)lround(3 * pitch), rc = -1;
	fs_params pp = *p;
	fs_image *small = NULL, *pre = NULL;
	if (f > 1) {
		tile = tile / f > 2 ? tile / f : 2;
		pp.blur_sigma = p->blur_sigma / f;
		pp.tophat_radius = p->tophat_radius > 0 ? (p->tophat_radius + f - 1) / f : 0;
		if (!(small = fs_downsample(img, f))) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	}
	if (fs_det_preprocess(small ? small : img, &pp, tile, &pre, err, errlen))
		goto out;
	if (fs_detect_auto_candidates(&pre, NULL, f, p, pitch, 1, out, NULL, err, errlen))
		goto out;
	if (f_out)
		*f_out = f;
	rc = 0;
out:
	fs_image_free(small);
	fs_image_free(pre);
	return rc;
}
