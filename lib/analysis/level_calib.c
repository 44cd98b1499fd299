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

/* The rendered site's reading at phase k of NPH^2: the level's reader
 * (lit NULL) or the walked domes' lit reader (fs_det_base_level_lowpassed_lit
 * with far rays out, lit->az and lit->cap); NAN where it does not read or
 * is pinned at its window's end (the window's, not the base's). Returns 0,
 * 1 (no render), -1 (memory). */
typedef struct lit_args {
	double az, cap;
	double dx, dy; /* the reading's start off the site (px) */
} lit_args;

static int read_phase(const fs_dome_tpl *t, const fs_dome_fit *fb, double fill, double mr, const lit_args *lit, int k,
		      double *r)
{
	const int nph = FS_LEVEL_CALIB_NPH;
	*r = NAN;
	/* the site in the middle, the reader's rays and its blur's profile
	 * inside the render (the detection's reach, 1.5 R1 mr and more) */
	int c0 = (int)ceil(2 * FS_DOME_R1 * mr) + 4, size = 2 * c0 + 2;
	double cx = c0 + (double)(k % nph) / nph, cy = c0 + (double)(k / nph) / nph;
	fs_image *img = NULL;
	int rc = fs_dome_tpl_render_grid(t, fb, fill, __atomic_load_n(&calib_grid, __ATOMIC_RELAXED), size, cx, cy,
					 &img);
	if (rc)
		return rc;
	int edge = 0;
	double v;
	if (lit) {
		double along;
		v = fs_det_base_level_lowpassed_lit(img, cx + lit->dx, cy + lit->dy, mr, 1, lit->az, 1, lit->cap, &edge,
						    &along, NULL);
	} else {
		double var;
		v = fs_det_base_level_blur(img, cx, cy, mr, 1, &edge, &var, NULL);
	}
	fs_image_free(img);
	if (isfinite(v) && !edge)
		*r = v;
	return 0;
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
	double sum = 0;
	for (int k = 0; k < nph * nph; k++) {
		double r;
		int rc = read_phase(t, &fb, fill, mr, NULL, k, &r);
		if (rc)
			return rc;
		if (isfinite(r)) {
			sum += r;
			(*nread)++;
		}
	}
	if (2 * *nread >= nph * nph)
		*ratio = sum / *nread / (0.5 * fill * f->pitch);
	return 0;
}

static int lit_shadow_mode; /* fs_level_calib_set_lit_shadow (off by default) */
static fs_lit_shadow_trace_fn lit_trace_fn;
static void *lit_trace_ctx;
/* (NAN: the formation's own) */
static fs_lit_shadow_oracle oracle = {NAN, NAN, NAN, NAN, NAN};

void fs_level_calib_set_lit_shadow_trace(fs_lit_shadow_trace_fn fn, void *ctx)
{
	lit_trace_fn = fn;
	lit_trace_ctx = ctx;
}

void fs_level_calib_set_lit_shadow_oracle(const fs_lit_shadow_oracle *o)
{
	oracle = *o;
}

int fs_level_calib_lit_shadow(const fs_dome_tpl *t, const fs_dome_fit *f, double fill, double mr, double cap,
			      double *ratio, int *nread)
{
	const int nph = FS_LEVEL_CALIB_NPH;
	*ratio = NAN;
	*nread = 0;
	if (!(f->pitch > 0) || !(mr > 0) || !isfinite(f->azimuth))
		return 1;
	/* a bench's product shadow (fs_dome_tpl_set_product_shadow) casts
	 * one whatever the templates hold */
	int product = fs_dome_tpl_product_shadow() > 0;
	/* no shadow in the formation: nothing cast */
	if (!t->shadowed && !product) {
		*ratio = 1;
		return 0;
	}
	/* the same templates without the shadow's part (its weight 0; the
	 * copy shares t's arrays and is only read) */
	fs_dome_tpl t0 = *t;
	t0.mixw[FS_SE_SHADOW] = 0;
	lit_args lit = {f->azimuth, cap, 0, 0}, lit1 = lit;
	/* the oracle's start for the shadowed render: where a walk the
	 * shadow moved would start */
	if (isfinite(oracle.start)) {
		lit1.dx = oracle.start * cos(f->azimuth);
		lit1.dy = oracle.start * sin(f->azimuth);
	}
	/* a bench's oracle geometry (fs_level_calib_set_lit_shadow_oracle) */
	fs_dome_tpl tx = *t;
	if (product) {
		/* the product's render (dome_base_fit.h): tx with a shadow
		 * part (the constant moved last), t0 without any */
		if (!t->shadowed) {
			tx.mixw[FS_SE_NCOMP] = t->mixw[t->nmix];
			tx.mixw[FS_SE_SHADOW] = 0;
			tx.nmix = FS_SE_NCOMP;
			tx.shadowed = 1;
		} else {
			t0.mixw[FS_SE_SHADOW] = t->mixw[t->nmix];
			t0.nmix = FS_SE_SHADOW;
			t0.shadowed = 0;
		}
	}
	fs_dome_fit fx = *f;
	if (isfinite(oracle.depth_x))
		tx.mixw[FS_SE_SHADOW] *= oracle.depth_x;
	if (isfinite(oracle.h_over_r))
		fx.h_over_r = oracle.h_over_r;
	if (isfinite(oracle.elevation))
		fx.elevation = oracle.elevation;
	if (isfinite(oracle.profile))
		fx.profile = oracle.profile;
	t = &tx;
	f = &fx;
	double s1 = 0, s0 = 0;
	for (int k = 0; k < nph * nph; k++) {
		double r1, r0;
		int rc = read_phase(t, f, fill, mr, &lit1, k, &r1);
		if (!rc)
			rc = read_phase(&t0, f, fill, mr, &lit, k, &r0);
		if (rc)
			return rc;
		/* (the same phases in both sums) */
		if (isfinite(r1) && isfinite(r0)) {
			s1 += r1;
			s0 += r0;
			(*nread)++;
		}
	}
	if (2 * *nread >= nph * nph && s0 > 0)
		*ratio = s1 / s0;
	return 0;
}

int fs_level_calib_set_lit_shadow(int mode)
{
	return __atomic_exchange_n(&lit_shadow_mode, mode, __ATOMIC_RELAXED);
}

int fs_level_calib_lit_shadow_on(void)
{
	return __atomic_load_n(&lit_shadow_mode, __ATOMIC_RELAXED);
}

/* the domes' fill as the templates sized them and the reach the level
 * read most of them with (centre_axis_calib's): the medians of the finite
 * fr[k] (with mrs[k] > 0) over the pitch, and of their mrs. 0; 1 where
 * there is none to calibrate with; -1 on out of memory */
static int sized_fill(const double *fr, const double *mrs, size_t n, double pitch, double *fill, double *mr)
{
	double *v = malloc(2 * (n ? n : 1) * sizeof *v), *w = v + (n ? n : 1);
	if (!v)
		return -1;
	size_t nv = 0;
	for (size_t k = 0; k < n; k++)
		if (isfinite(fr[k]) && mrs[k] > 0) {
			v[nv] = fr[k];
			w[nv++] = mrs[k];
		}
	*fill = 2 * (nv ? fs_median_upper(v, nv) : NAN) / pitch;
	*mr = nv ? fs_median_upper(w, nv) : NAN;
	free(v);
	return *fill > 0 && *mr > 0 ? 0 : 1;
}

/* the finite readings lr[k] divided by ratio */
static void divide_readings(double *lr, size_t n, double ratio)
{
	for (size_t k = 0; k < n; k++)
		if (isfinite(lr[k]))
			lr[k] /= ratio;
}

int fs_level_calib_lit_shadow_apply(const fs_dome_tpl *t, const fs_dome_fit *f, const double *fr, const double *mrs,
				    size_t n, double cap, double *lr, double *ratio)
{
	*ratio = NAN;
	int mode = fs_level_calib_lit_shadow_on();
	if (!mode || !t || !(f->pitch > 0))
		return 0;
	/* mode 3: only where the image's lit readings are the free circle's
	 * (the gate freed them, fs_det_base_set_lit_gate) */
	if (mode == 3 && isfinite(cap))
		return 0;
	double fill, mr;
	int rc = sized_fill(fr, mrs, n, f->pitch, &fill, &mr);
	if (rc)
		return rc < 0 ? -1 : 0;
	int nr;
	rc = fs_level_calib_lit_shadow(t, f, fill, mr, cap, ratio, &nr);
	if (rc < 0)
		return -1;
	int applied = !rc && *ratio > 0 && mode >= 2;
	if (applied)
		divide_readings(lr, n, *ratio);
	if (lit_trace_fn) {
		fs_lit_shadow_info in = {fill, mr, cap, t->shadowed, *ratio, nr, applied, *f};
		lit_trace_fn(lit_trace_ctx, &in);
	}
	return 0;
}

int fs_level_calib_apply(const fs_dome_tpl *t, const fs_dome_fit *f, const double *fr, const double *mrs, size_t n,
			 double vblur, double *lr)
{
	int mode = fs_level_calib_on();
	if (!mode || !t || !(f->pitch > 0))
		return 0;
	double fill, mr;
	int rc = sized_fill(fr, mrs, n, f->pitch, &fill, &mr);
	if (rc)
		return rc < 0 ? -1 : 0;
	fs_level_calib_info in = {fill, f->blur_px, f->blur_px, vblur, mr, NAN, NAN, NAN, *f, 0, 0};
	/* the blur the image's profile shows where it is below the
	 * formation's, which holds the first pass's centre scatter (h51g);
	 * without it the formation's own is h42a's, whose factor scattered
	 * -37..+87 %: nothing to calibrate with */
	int nr;
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
		divide_readings(lr, n, in.ratio);
		in.applied = 1;
	}
	if (trace_fn)
		trace_fn(trace_ctx, &in);
	return 0;
}
