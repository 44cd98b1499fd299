/* centre_axis_calib.c - the axis step read on the formation's own lattice
 * (see centre_axis_calib.h). */
#include "analysis/centre_axis_calib.h"

#include <math.h>
#include <stdlib.h>

static int calib_on = 2; /* fs_centre_axis_set_calib (h51g: mode 2, docs/paper-figures.md) */

int fs_centre_axis_set_calib(int mode)
{
	return __atomic_exchange_n(&calib_on, mode, __ATOMIC_RELAXED);
}

int fs_centre_axis_calib_on(void)
{
	return __atomic_load_n(&calib_on, __ATOMIC_RELAXED);
}

int fs_centre_axis_calib_read(const fs_dome_tpl *t, const fs_dome_fit *f, double fill, const fs_centre_axis_geom *g,
			      double pitch, fs_centre_axis *out)
{
	const int nph = FS_CENTRE_AXIS_CALIB_NPH;
	size_t len = fs_centre_axis_len(g), n = (size_t)(nph * nph);
	/* the site in the middle, its profiles inside the render */
	int c0 = (int)ceil(fs_centre_axis_reach(g)) + 2, size = 2 * c0 + 2;
	double *profs = malloc(n * len * sizeof *profs);
	if (!profs)
		return -1;
	int rc = 0;
	for (size_t k = 0; k < n && !rc; k++) {
		double cx = c0 + (double)(k % nph) / nph, cy = c0 + (double)(k / nph) / nph;
		fs_image *img = NULL;
		rc = fs_dome_tpl_render(t, f, fill, size, cx, cy, &img);
		if (!rc)
			fs_centre_axis_profile(img, cx, cy, g, profs + k * len);
		fs_image_free(img);
	}
	if (!rc)
		rc = fs_centre_axis_estimate(profs, n, g, pitch, out);
	free(profs);
	return rc;
}
