/* level_calib.c - the level reader's excess read on the formation's own
 * lattice (see level_calib.h). */
#include "analysis/level_calib.h"

#include <math.h>
#include <stdlib.h>

#include "analysis/detect_base_fit.h"
#include "analysis/dome_measure.h"
#include "base/sorting.h"

static int calib_mode; /* fs_level_calib_set (h52a: off by default) */
static fs_level_calib_trace_fn trace_fn;
static void *trace_ctx;
static double trace_blur;
static int calib_grid; /* fs_level_calib_set_grid (0: the templates' own) */

int fs_level_calib_set_grid(int g)
{
	return __atomic_exchange_n(&calib_grid, g, __ATOMIC_RELAXED);
}

int fs_level_calib_set(int mode)
{
	return __atomic_exchange_n(&calib_mode, mode, __ATOMIC_RELAXED);
}

double fs_level_calib_set_blur(double px)
{
	double old = trace_blur;
	trace_blur = px;
	return old;
}

int fs_level_calib_on(void)
{
	return __atomic_load_n(&calib_mode, __ATOMIC_RELAXED);
}

void fs_level_calib_set_trace(fs_level_calib_trace_fn fn, void *ctx)
{
	trace_fn = fn;
	trace_ctx = ctx;
}

int fs_level_calib_read(const fs_dome_tpl *t, const fs_dome_fit *f, double fill, double blur, double mr,
			double *ratio, int *nread)
{
	const int nph = FS_LEVEL_CALIB_NPH;
	*ratio = NAN;
	*nread = 0;
	if (!(f->pitch > 0) || !(mr > 0))
		return 1;
	fs_dome_fit fb = *f;
	if (blur > 0)
		fb.blur_px = blur;
	/* the site in the middle, the reader's rays and its blur's profile
	 * inside the render (the detection's reach, 1.5 R1 mr and more) */
	int c0 = (int)ceil(2 * FS_DOME_R1 * mr) + 4, size = 2 * c0 + 2;
	double sum = 0;
	for (int k = 0; k < nph * nph; k++) {
		double cx = c0 + (double)(k % nph) / nph, cy = c0 + (double)(k / nph) / nph;
		fs_image *img = NULL;
		int rc = fs_dome_tpl_render_grid(t, &fb, fill, __atomic_load_n(&calib_grid, __ATOMIC_RELAXED), size, cx,
						 cy, &img);
		if (rc)
			return rc;
		int edge;
		double var, r = fs_det_base_level_blur(img, cx, cy, mr, 1, &edge, &var, NULL);
		fs_image_free(img);
		/* (a reading pinned at its window's end is the window's, not
		 * the base's) */
		if (isfinite(r) && !edge) {
			sum += r;
			(*nread)++;
		}
	}
	if (2 * *nread >= nph * nph)
		*ratio = sum / *nread / (0.5 * fill * f->pitch);
	return 0;
}

int fs_level_calib_apply(const fs_dome_tpl *t, const fs_dome_fit *f, const double *fr, const double *mrs, size_t n,
			 double vblur, double *lr)
{
	int mode = fs_level_calib_on();
	if (!mode || !t || !(f->pitch > 0))
		return 0;
	double *v = malloc(2 * (n ? n : 1) * sizeof *v), *w = v + (n ? n : 1);
	if (!v)
		return -1;
	size_t nv = 0;
	for (size_t k = 0; k < n; k++)
		if (isfinite(fr[k]) && mrs[k] > 0) {
			v[nv] = fr[k];
			w[nv++] = mrs[k];
		}
	/* the domes' fill as the templates sized them (centre_axis_calib's),
	 * the reach the level read most of them with */
	double fill = nv ? 2 * fs_median_upper(v, nv) / f->pitch : NAN;
	double mr = nv ? fs_median_upper(w, nv) : NAN;
	free(v);
	if (!(fill > 0) || !(mr > 0))
		return 0;
	fs_level_calib_info in = {fill, f->blur_px, f->blur_px, vblur, mr, NAN, NAN, NAN, *f, 0, 0};
	/* the blur the image's profile shows where it is below the
	 * formation's, which holds the first pass's centre scatter (h51g);
	 * without it the formation's own is h42a's, whose factor scattered
	 * -37..+87 %: nothing to calibrate with */
	int rc = 0, nr;
	if (vblur > 0) {
		if (vblur < f->blur_px)
			in.blur = vblur;
		rc = fs_level_calib_read(t, f, fill, in.blur, mr, &in.ratio, &in.nread);
	}
	if (rc < 0)
		return -1;
	if (trace_fn) {
		if (fs_level_calib_read(t, f, fill, 0, mr, &in.ratio_form, &nr) < 0 ||
		    (trace_blur > 0 && fs_level_calib_read(t, f, fill, trace_blur, mr, &in.ratio_at, &nr) < 0))
			return -1;
	}
	if (!rc && mode == 2 && in.ratio > 0) {
		for (size_t k = 0; k < n; k++)
			if (isfinite(lr[k]))
				lr[k] /= in.ratio;
		in.applied = 1;
	}
	if (trace_fn)
		trace_fn(trace_ctx, &in);
	return 0;
}
